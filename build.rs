fn main() {
    // The addon's interface number has one home, lib/version.js, which the loader compares it with.
    println!("cargo:rerun-if-changed=lib/version.js");
    let text = std::fs::read_to_string("lib/version.js").expect("lib/version.js");
    // The digits up to the next space; src/binding/mod.rs fails to compile on anything but a number.
    let interface = text.split_once("addonInterface: ").and_then(|(_, rest)| rest.split_once(' '));
    let (interface, _) = interface.expect("lib/version.js has no `addonInterface: N `");
    println!("cargo:rustc-env=BUFFERUTIL_SIMD_ADDON_INTERFACE={interface}");
    // The WebAssembly module links no Node-API (see src/wasm.rs).
    if std::env::var("CARGO_CFG_TARGET_ARCH").as_deref() != Ok("wasm32") {
        napi_build::setup();
    }
}
