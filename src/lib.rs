//! bufferutil-simd: WebSocket masking (RFC 6455 §5.3) for Node-API, with SIMD.
//!
//! [`kernel`] is plain Rust and knows nothing of Node-API; `binding` checks every argument and calls it.
//! Built for `wasm32`, the crate is instead the WebAssembly tier: `wasm` drives the same kernel over a
//! scratch buffer in linear memory, and there is no Node-API.

pub mod kernel;

// Under `cargo test` the binding's module registration is left out, so nothing calls into it.
#[cfg(not(target_arch = "wasm32"))]
#[cfg_attr(test, allow(dead_code))]
mod binding;

#[cfg(target_arch = "wasm32")]
mod wasm;
