//! The Node-API entries, as raw callbacks over `napi-sys` (why: docs/architecture.md). Whoever calls them
//! with whatever, they check every bound before the kernel runs, else throw one generic error with nothing
//! written (`lib/checks.js` words the errors). No path panics.

mod block;
mod view;

use core::cell::Cell;
use core::ffi::{c_void, CStr};
use core::ptr;

use napi_sys as sys;

use self::block::Block;
use self::view::{buffer_info_checks_type, Bytes, Call};
use crate::kernel::{Kernel, Level};

/// What the JavaScript expects of the addon: `addon-interface` in Cargo.toml, which `build.rs` reads
/// (and `npm version` copies into `lib/version.js`).
const INTERFACE: u32 = match u32::from_str_radix(env!("BUFFERUTIL_SIMD_ADDON_INTERFACE"), 10) {
    Ok(number) => number,
    Err(_) => panic!("BUFFERUTIL_SIMD_ADDON_INTERFACE is not a number"),
};

const MAX_SAFE_INTEGER: f64 = 9_007_199_254_740_991.0;
const REFUSED: &CStr =
    c"bufferutil-simd: the addon refused these arguments (call it through the package)";

type Callback = unsafe extern "C" fn(sys::napi_env, sys::napi_callback_info) -> sys::napi_value;
type Property = sys::napi_property_descriptor;

/// What an environment's functions share, from `init` to its end (on one thread: plain cells do).
struct Environment {
    /// The kernel every call here runs: the widest this CPU has until the first `level` call chooses.
    kernel: Cell<Kernel>,
    chosen: Cell<bool>,
    /// The block `useBlock` adopted; null until then.
    block: Cell<*const Block>,
    buffer_info_checks_type: bool,
}

impl Environment {
    /// The block, if `useBlock` adopted one.
    #[inline(always)]
    fn block(&self) -> Option<&Block> {
        // SAFETY: a non-null pointer is a block `block::adopt` accepted, whose SharedArrayBuffer a
        // reference keeps alive until the environment ends, after its last call.
        unsafe { self.block.get().as_ref() }
    }
}

/// What Node calls to load the addon, once per environment: it finds the Node-API functions in the host
/// and runs [`init`], and no JavaScript runs inside Node's addon-loading lock.
///
/// # Safety
/// Called by Node-API with the live handles of the environment loading the addon.
#[cfg(not(test))]
#[no_mangle]
pub unsafe extern "C" fn napi_register_module_v1(
    env: sys::napi_env,
    exports: sys::napi_value,
) -> sys::napi_value {
    // SAFETY: before any Node-API call; the functions it finds are the host's, which outlives the handle.
    drop(unsafe { sys::setup() });
    let failed = c"bufferutil-simd: the addon could not define its exports";
    // SAFETY: the caller's contract gives live handles; the message is NUL-terminated and static.
    unsafe {
        if init(env, exports).is_err() {
            sys::napi_throw_error(env, ptr::null(), failed.as_ptr());
        }
    }
    exports
}

/// Defines the exports (docs/architecture.md), every function with the Environment as its data.
///
/// # Safety
/// `env` and `exports` must be the live handles Node passed to [`napi_register_module_v1`].
unsafe fn init(env: sys::napi_env, exports: sys::napi_value) -> Result<(), sys::napi_status> {
    let environment = Box::into_raw(Box::new(Environment {
        kernel: Cell::new(Kernel::best(None)),
        chosen: Cell::new(false),
        block: Cell::new(ptr::null()),
        // SAFETY: `env` is the live handle Node passed to the module's init.
        buffer_info_checks_type: unsafe { buffer_info_checks_type(env) },
    }));
    // SAFETY: `environment` is a live allocation that only the hook takes back, at the environment's end.
    let status =
        unsafe { sys::napi_add_env_cleanup_hook(env, Some(free_environment), environment.cast()) };
    if status != sys::Status::napi_ok {
        // SAFETY: no hook holds it and nothing else has seen it yet.
        drop(unsafe { Box::from_raw(environment) });
        return check(status);
    }
    let data = environment.cast::<c_void>();
    // A string, not an array: filling an array would run any setter on `Array.prototype`.
    let levels = native_levels().map(Level::name).collect::<Vec<_>>().join(",");
    let mut interface = ptr::null_mut();
    // SAFETY: `env` is live; `interface` is a valid place for the result.
    check(unsafe { sys::napi_create_uint32(env, INTERFACE, &mut interface) })?;
    // SAFETY: `env` is live.
    let levels = unsafe { string(env, &levels)? };
    let properties = [
        value(c"interface", interface),
        value(c"levels", levels),
        method(c"level", entry::<1, ChooseLevel>, data),
        method(c"mask", entry::<5, Mask>, data),
        method(c"maskBlock", entry::<2, MaskBlock>, data),
        method(c"unmask", entry::<2, Unmask>, data),
        method(c"unmaskBlock", entry::<1, UnmaskBlock>, data),
        method(c"useBlock", entry::<1, UseBlock>, data),
    ];
    // SAFETY: the handles are live; the names are NUL-terminated and static; `data` is what every
    // method's callback expects, alive until the environment's end, after the last call.
    check(unsafe {
        sys::napi_define_properties(env, exports, properties.len(), properties.as_ptr())
    })
}

fn method(name: &'static CStr, callback: Callback, data: *mut c_void) -> Property {
    Property { method: Some(callback), data, ..value(name, ptr::null_mut()) }
}

/// A value property, defined (no setter on a prototype runs) with the attributes an assignment gives.
fn value(name: &'static CStr, value: sys::napi_value) -> Property {
    Property {
        utf8name: name.as_ptr(),
        name: ptr::null_mut(),
        method: None,
        getter: None,
        setter: None,
        value,
        attributes: sys::PropertyAttributes::writable
            | sys::PropertyAttributes::enumerable
            | sys::PropertyAttributes::configurable,
        data: ptr::null_mut(),
    }
}

/// # Safety
/// `env` must be the live handle of the current call into the addon.
unsafe fn string(env: sys::napi_env, text: &str) -> Result<sys::napi_value, sys::napi_status> {
    let mut value = ptr::null_mut();
    // SAFETY: `env` is live; `text` is valid for its length; `value` is a valid place for the result.
    check(unsafe {
        sys::napi_create_string_utf8(env, text.as_ptr().cast(), text.len() as isize, &mut value)
    })?;
    Ok(value)
}

fn check(status: sys::napi_status) -> Result<(), sys::napi_status> {
    (status == sys::Status::napi_ok).then_some(()).ok_or(status)
}

/// The levels `level` takes as a cap, lowest first: every kernel level but WebAssembly's simd128.
fn native_levels() -> impl Iterator<Item = Level> {
    Level::ALL.into_iter().filter(|level| *level != Level::Simd128)
}

/// # Safety
/// Called once, by Node-API at the environment's end, with the `Environment` `init` made.
unsafe extern "C" fn free_environment(data: *mut c_void) {
    // SAFETY: the caller's contract. The block's SharedArrayBuffer reference (block.rs) is not the
    // Environment's: Node-API frees it at the environment's end.
    drop(unsafe { Box::from_raw(data.cast::<Environment>()) });
}

/// One of the functions `init` defines, taking `N` arguments (missing ones are `undefined`).
trait Entry<const N: usize> {
    /// The call's result (null is `undefined`), or `None` to refuse it. The masking entries' are
    /// `#[inline]`: inlined after their own optimisation, they keep the views in registers.
    fn run(call: &Call<N>) -> Option<sys::napi_value>;
}

/// The Node-API callback of entry `E`: throws the one generic error when `E` refuses the call.
///
/// # Safety
/// Called by Node-API only, with live `env` and `info`, on the function `init` defined with it.
unsafe extern "C" fn entry<const N: usize, E: Entry<N>>(
    env: sys::napi_env,
    info: sys::napi_callback_info,
) -> sys::napi_value {
    // SAFETY: the caller's contract; the `Call` does not outlive this callback.
    let Some(call) = (unsafe { Call::<N>::new(env, info) }) else {
        return ptr::null_mut();
    };
    E::run(&call).unwrap_or_else(|| {
        // SAFETY: `env` is live; the message is NUL-terminated; a failed throw leaves `undefined`. No
        // `code`: setting one would run any setter on `Error.prototype`.
        unsafe { sys::napi_throw_error(env, ptr::null(), REFUSED.as_ptr()) };
        ptr::null_mut()
    })
}

/// `level(cap)`: the name of the level this environment's calls run at, chosen by its first call: the
/// widest this CPU has, at most `cap` (a name of [`native_levels`], any case; else no cap).
struct ChooseLevel;

impl Entry<1> for ChooseLevel {
    fn run(call: &Call<1>) -> Option<sys::napi_value> {
        if !call.environment.chosen.replace(true) {
            let cap = call.short_string(0).and_then(|name| Level::from_name(&name));
            let cap = cap.filter(|level| native_levels().any(|native| native == *level));
            call.environment.kernel.set(Kernel::best(cap));
        }
        // SAFETY: the call's `env` is live for this callback.
        unsafe { string(call.env, call.environment.kernel.get().level().name()) }.ok()
    }
}

/// `useBlock(view)`: adopts `view` as the block if there is none and `block::adopt` takes it; says whether.
struct UseBlock;

impl Entry<1> for UseBlock {
    fn run(call: &Call<1>) -> Option<sys::napi_value> {
        let adopted = call.environment.block.get().is_null() && {
            // SAFETY: the call's handles are live for this callback.
            let block = unsafe { block::adopt(call.env, call.args[0]) };
            call.environment.block.set(block.unwrap_or(ptr::null()));
            block.is_some()
        };
        let mut value = ptr::null_mut();
        // SAFETY: the call's `env` is live for this callback; `value` is a valid place for the result.
        let status = unsafe { sys::napi_get_boolean(call.env, adopted, &mut value) };
        (status == sys::Status::napi_ok).then_some(value)
    }
}

/// `mask(source, output, offset, length, keyWord)`: `output[offset + i] = source[i] ^ key[i & 3]`.
struct Mask;

impl Entry<5> for Mask {
    #[inline]
    fn run(call: &Call<5>) -> Option<sys::napi_value> {
        let (source, output) = (call.view(0)?, call.view(1)?);
        let [offset, length, word] = [call.number(2)?, call.number(3)?, call.number(4)?];
        let (offset, length, key) = (index(offset)?, index(length)?, key(word)?);
        mask_in_bounds(call.environment.kernel.get(), source, output, offset, length, key)
    }
}

/// `maskBlock(source, output)`: `mask` with offset, length and key word read from the block.
struct MaskBlock;

impl Entry<2> for MaskBlock {
    #[inline]
    fn run(call: &Call<2>) -> Option<sys::napi_value> {
        let (source, output) = (call.view(0)?, call.view(1)?);
        let [offset, length, word] = call.environment.block()?.numbers();
        let (offset, length, key) = (index(offset)?, index(length)?, key(word)?);
        mask_in_bounds(call.environment.kernel.get(), source, output, offset, length, key)
    }
}

/// `unmask(buffer, keyWord)`: `buffer[i] ^= key[i & 3]`.
struct Unmask;

impl Entry<2> for Unmask {
    #[inline]
    fn run(call: &Call<2>) -> Option<sys::napi_value> {
        let (buffer, key) = (call.view(0)?, key(call.number(1)?)?);
        mask_in_bounds(call.environment.kernel.get(), buffer, buffer, 0, buffer.len, key)
    }
}

/// `unmaskBlock(buffer)`: `unmask` with the key word read from the block.
struct UnmaskBlock;

impl Entry<1> for UnmaskBlock {
    #[inline]
    fn run(call: &Call<1>) -> Option<sys::napi_value> {
        let buffer = call.view(0)?;
        let [.., word] = call.environment.block()?.numbers();
        mask_in_bounds(call.environment.kernel.get(), buffer, buffer, 0, buffer.len, key(word)?)
    }
}

/// Masks `length` bytes of `source` into `output` at `offset` if both ranges lie inside the views
/// (`None` otherwise, with nothing written).
#[inline(always)]
fn mask_in_bounds(
    kernel: Kernel,
    source: Bytes,
    output: Bytes,
    offset: usize,
    length: usize,
    key: [u8; 4],
) -> Option<sys::napi_value> {
    // `output.len - length` cannot wrap: `length <= output.len` is tested first.
    if length > source.len || length > output.len || offset > output.len - length {
        return None;
    }
    if length != 0 {
        // SAFETY: `offset + length <= output.len` (tested above): `add` stays inside `output`.
        let dst = unsafe { output.data.add(offset) };
        // SAFETY: both ranges lie inside views Node-API gave for this call, with no JavaScript run since
        // and no reference to them: `length <= source.len` and `dst` has `length` bytes left in
        // `output`; overlap is within `mask_raw`'s contract.
        unsafe { kernel.mask_raw(source.data, dst, length, key) };
    }
    Some(ptr::null_mut())
}

/// A number as a byte count or index: a safe integer >= 0 (`-0` included, NaN not).
#[inline(always)]
fn index(number: f64) -> Option<usize> {
    // Within 0..=2^53 the round trip through an integer is exact for integers only.
    ((0.0..=MAX_SAFE_INTEGER).contains(&number) && (number as u64) as f64 == number)
        .then_some(number as usize)
}

/// The key from its word, `key[0] | key[1] << 8 | key[2] << 16 | key[3] << 24`, signed or not.
#[inline(always)]
fn key(word: f64) -> Option<[u8; 4]> {
    let whole = word as i64;
    ((-2_147_483_648.0..=4_294_967_295.0).contains(&word) && whole as f64 == word)
        .then(|| (whole as u32).to_le_bytes())
}
