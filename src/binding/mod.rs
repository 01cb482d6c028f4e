//! The Node-API layer, as raw Node-API callbacks over `napi-sys` (napi-rs's argument glue costs more than
//! a whole short mask, and its module registration runs JavaScript while Node loads the addon). Its
//! entries trust `lib/checks.js` to word every error, but stay memory-safe whoever calls them with
//! whatever (docs/safety.md's threat model): each looks up its views itself and checks every bound before
//! the kernel runs; anything else gets one generic error, with nothing written. No path panics (a panic
//! across the boundary would abort the process). docs/architecture.md describes the exports `init`
//! defines.

mod block;
mod properties;
mod view;

use core::cell::Cell;
use core::ffi::{c_void, CStr};
use core::ptr;

use napi_sys as sys;

use self::block::Block;
use self::properties::{check, method, number, string, value};
use self::view::{buffer_info_checks_type, Bytes, Call};
use crate::kernel::{Kernel, Level};

/// What the JavaScript expects of the addon (`lib/version.js`, read by `build.rs`): a loader meeting
/// another number passes the addon over.
const INTERFACE: u32 = match u32::from_str_radix(env!("BUFFERUTIL_SIMD_ADDON_INTERFACE"), 10) {
    Ok(number) => number,
    Err(_) => panic!("BUFFERUTIL_SIMD_ADDON_INTERFACE is not a number"),
};

const MAX_SAFE_INTEGER: f64 = 9_007_199_254_740_991.0;
const REFUSED: &CStr =
    c"bufferutil-simd: the addon refused these arguments (call it through the package)";

type Callback = unsafe extern "C" fn(sys::napi_env, sys::napi_callback_info) -> sys::napi_value;

/// What one environment's functions share. Made by `init`, freed at the environment's end, after its
/// last call. A Node-API environment runs on one thread, so the cells are never touched concurrently.
struct Environment {
    /// The kernel every call in this environment runs: the widest this CPU has until the first `level`
    /// call chooses, once. A worker asking for another level changes nothing elsewhere.
    kernel: Cell<Kernel>,
    /// Whether `level` has chosen the kernel.
    chosen: Cell<bool>,
    /// The block `useBlock` adopted for the environment; null until then.
    block: Cell<*const Block>,
    /// Whether this runtime's `napi_get_buffer_info` answers a non-view with a status
    /// ([`buffer_info_checks_type`]).
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
/// and runs [`init`], and nothing else, so no JavaScript runs inside Node's addon-loading lock. `cargo
/// test` builds no addon and leaves it out.
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

/// Defines the exports, each as a property (no setter on `Object.prototype` runs), every function with
/// the Environment as its data.
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
    // SAFETY: `env` is live.
    let (interface, levels) = unsafe { (number(env, INTERFACE)?, string(env, &levels)?) };
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

/// The levels `level` takes as a cap, lowest first: every kernel level but simd128, which is
/// WebAssembly's. The one list both `levels` and `level` read.
fn native_levels() -> impl Iterator<Item = Level> {
    Level::ALL.into_iter().filter(|level| *level != Level::Simd128)
}

/// # Safety
/// Called once, by Node-API at the environment's end, with the `Environment` `init` made.
unsafe extern "C" fn free_environment(data: *mut c_void) {
    // SAFETY: the caller's contract. It holds no reference: the block's SharedArrayBuffer reference
    // (src/binding/block.rs) belongs to the environment, which Node-API frees at its end.
    drop(unsafe { Box::from_raw(data.cast::<Environment>()) });
}

/// One of the functions `init` defines, taking `N` arguments (missing ones are `undefined`).
trait Entry<const N: usize> {
    /// What the current call returns (null is `undefined`), or `None` to refuse it. The masking entries'
    /// are `#[inline]`, not `#[inline(always)]`: inlined into [`entry`] after their own optimisation,
    /// they keep the views they look up in registers.
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

/// `level(cap)`: the name of the level this environment's calls run at. The environment's first call
/// chooses it: the widest this CPU has, at most `cap` (a name of [`native_levels`], any case; anything
/// else means no cap). Later calls return the same.
struct ChooseLevel;

impl Entry<1> for ChooseLevel {
    fn run(call: &Call<1>) -> Option<sys::napi_value> {
        if !call.environment.chosen.replace(true) {
            let cap = call.short_string(0).and_then(|name| {
                native_levels().find(|level| level.name().eq_ignore_ascii_case(&name))
            });
            call.environment.kernel.set(Kernel::best(cap));
        }
        // SAFETY: the call's `env` is live for this callback.
        unsafe { string(call.env, call.environment.kernel.get().level().name()) }.ok()
    }
}

/// `useBlock(view)`: adopts `view` as this environment's block if none was adopted before and it is a
/// Float64Array of 3 or more over a SharedArrayBuffer (see `block.rs`); says whether it did.
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

/// `mask(source, output, offset, length, keyWord)`: `output[offset + i] = source[i] ^ key[i & 3]` for
/// `i < length`.
struct Mask;

impl Entry<5> for Mask {
    #[inline]
    fn run(call: &Call<5>) -> Option<sys::napi_value> {
        let (source, output) = (call.view(0)?, call.view(1)?);
        let numbers = [call.number(2)?, call.number(3)?, call.number(4)?];
        mask(call.environment.kernel.get(), source, output, numbers)
    }
}

/// `maskBlock(source, output)`: `mask` with offset, length and key word read from the block, which spares
/// three Node-API calls.
struct MaskBlock;

impl Entry<2> for MaskBlock {
    #[inline]
    fn run(call: &Call<2>) -> Option<sys::napi_value> {
        let (source, output) = (call.view(0)?, call.view(1)?);
        let numbers = call.environment.block()?.numbers();
        mask(call.environment.kernel.get(), source, output, numbers)
    }
}

/// `unmask(buffer, keyWord)`: `buffer[i] ^= key[i & 3]`.
struct Unmask;

impl Entry<2> for Unmask {
    #[inline]
    fn run(call: &Call<2>) -> Option<sys::napi_value> {
        let (buffer, key) = (call.view(0)?, key(call.number(1)?)?);
        let kernel = call.environment.kernel.get();
        mask_in_bounds(kernel, buffer, buffer, 0, buffer.len, key)
    }
}

/// `unmaskBlock(buffer)`: `unmask` with the key word read from the block.
struct UnmaskBlock;

impl Entry<1> for UnmaskBlock {
    #[inline]
    fn run(call: &Call<1>) -> Option<sys::napi_value> {
        let buffer = call.view(0)?;
        let [.., word] = call.environment.block()?.numbers();
        let (key, kernel) = (key(word)?, call.environment.kernel.get());
        mask_in_bounds(kernel, buffer, buffer, 0, buffer.len, key)
    }
}

/// [`mask_in_bounds`] with the numbers (offset, length, key word) not yet checked.
#[inline(always)]
fn mask(
    kernel: Kernel,
    source: Bytes,
    output: Bytes,
    [offset, length, word]: [f64; 3],
) -> Option<sys::napi_value> {
    let (offset, length, key) = (index(offset)?, index(length)?, key(word)?);
    mask_in_bounds(kernel, source, output, offset, length, key)
}

/// Masks `length` bytes of `source` into `output` at `offset` if both ranges lie inside the views
/// (`None` otherwise, with nothing written). The views come from the current call, with no JavaScript
/// run since they were looked up.
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
        // Both ranges lie inside views Node-API gave for this call, with no JavaScript run since and no
        // reference to them.
        // SAFETY: `offset + length <= output.len` (tested above): `add` stays inside `output`.
        let dst = unsafe { output.data.add(offset) };
        // SAFETY: `length <= source.len` and `dst` has `length` bytes left in `output`; overlap is
        // within `mask_raw`'s contract.
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
