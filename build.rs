fn main() {
    // The WebAssembly module links no Node-API (see src/wasm.rs).
    if std::env::var("CARGO_CFG_TARGET_ARCH").as_deref() != Ok("wasm32") {
        napi_build::setup();
    }
}
