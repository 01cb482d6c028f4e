//! bufferutil-simd: WebSocket masking (RFC 6455 §5.3) for Node-API, with SIMD.
//!
//! [`kernel`] is plain Rust and knows nothing of Node-API; `binding` checks every argument and calls it.

pub mod kernel;

// Under `cargo test` napi-derive leaves the module registration out, so nothing calls into the binding.
#[cfg_attr(test, allow(dead_code))]
mod binding;
