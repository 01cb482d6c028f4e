fn main() {
    // The addon's interface number has one home, lib/version.js, which the loader compares it with.
    println!("cargo:rerun-if-changed=lib/version.js");
    let text = std::fs::read_to_string("lib/version.js").expect("lib/version.js");
    let interface = text
        .split("addonInterface: ")
        .nth(1)
        .and_then(|rest| rest.split(|c: char| !c.is_ascii_digit()).next())
        .filter(|digits| !digits.is_empty())
        .expect("lib/version.js has no `addonInterface: N`");
    println!("cargo:rustc-env=BUFFERUTIL_SIMD_ADDON_INTERFACE={interface}");
    // The WebAssembly module links no Node-API (see src/wasm.rs).
    if std::env::var("CARGO_CFG_TARGET_ARCH").as_deref() != Ok("wasm32") {
        napi_build::setup();
    }
}
