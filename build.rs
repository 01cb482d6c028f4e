fn main() {
    // The addon's interface number has one home, Cargo.toml's [package.metadata.bufferutil-simd].
    println!("cargo:rerun-if-changed=Cargo.toml");
    let manifest = std::fs::read_to_string("Cargo.toml").expect("Cargo.toml");
    let interface = manifest.lines().find_map(|line| line.strip_prefix("addon-interface = "));
    let interface = interface.expect("Cargo.toml has no `addon-interface = N`");
    println!("cargo:rustc-env=BUFFERUTIL_SIMD_ADDON_INTERFACE={interface}");
    // The WebAssembly module links no Node-API (see src/wasm.rs).
    if std::env::var("CARGO_CFG_TARGET_ARCH").as_deref() != Ok("wasm32") {
        napi_build::setup();
    }
}
