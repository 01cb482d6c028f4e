//! The Node-API layer, as raw Node-API callbacks (napi-derive's argument glue costs more than a whole
//! short mask). Its entries are trusted ones: `lib/checks.js` checks every argument and words every error
//! before the package calls them. The addon only does what memory safety needs, so that it stays safe
//! whoever calls it with whatever: it looks up each view itself and checks every bound before the kernel
//! runs; anything else gets one generic error, with nothing written. No path panics (a panic across the
//! boundary would abort the process).
//!
//! ```text
//! init (once per environment)  -> an Environment, and exports { interface, levels, level, mask,
//!                                 maskBlock, unmask, unmaskBlock, useBlock }
//! level(cap)                   the level this environment's calls run at, chosen by its first call:
//!                                 the widest this CPU has, at most `cap` (the widest until then)
//! mask(source, output, offset, length, keyWord)
//! maskBlock(source, output)    the same, offset, length and key word from the block (block.rs)
//! unmask(buffer, keyWord)
//! unmaskBlock(buffer)          the same, the key word from the block
//! ```
//!
//! No user code runs while the addon builds what it hands out: properties are defined, not set, so no
//! setter on `Object.prototype` is called. Every function's data is the Environment, made by `init` and
//! freed only at the environment's end, after the last call.

mod block;
mod properties;
mod view;

use core::cell::Cell;
use core::ffi::{c_void, CStr};
use core::ptr;

use napi::bindgen_prelude::{sys, Env, Object};
use napi::JsValue;
use napi_derive::napi;

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
    #[inline(always)]
    fn kernel(&self) -> Kernel {
        self.kernel.get()
    }

    /// The block, if `useBlock` adopted one.
    #[inline(always)]
    fn block(&self) -> Option<&Block> {
        // SAFETY: a non-null pointer is a block `block::adopt` accepted, whose SharedArrayBuffer a
        // reference keeps alive until the environment ends, after its last call.
        unsafe { self.block.get().as_ref() }
    }
}

#[napi(module_exports)]
pub fn init(exports: Object, env: Env) -> napi::Result<()> {
    let (env, exports) = (env.raw(), exports.raw());
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
    // SAFETY: `env` is live.
    let (interface, levels) =
        unsafe { (number(env, INTERFACE)?, string(env, &native_level_names())?) };
    let properties = [
        value(c"interface", interface),
        value(c"levels", levels),
        method(c"level", level_callback, data),
        method(c"mask", mask_callback, data),
        method(c"maskBlock", mask_block_callback, data),
        method(c"unmask", unmask_callback, data),
        method(c"unmaskBlock", unmask_block_callback, data),
        method(c"useBlock", use_block_callback, data),
    ];
    // Defined, not set: no setter on `Object.prototype` runs.
    // SAFETY: the handles are live; the names are NUL-terminated and static; `data` is what every
    // method's callback expects, alive until the environment's end, after the last call.
    check(unsafe {
        sys::napi_define_properties(env, exports, properties.len(), properties.as_ptr())
    })
}

/// The levels `level` takes as a cap, lowest first: every kernel level but simd128, which is
/// WebAssembly's. The one list both `levels` and `level` read.
fn native_levels() -> impl Iterator<Item = Level> {
    Level::ALL
        .into_iter()
        .filter(|level| *level != Level::Simd128)
}

/// The level named `name` (any case) if `level` takes it.
fn native_level(name: &str) -> Option<Level> {
    native_levels().find(|level| level.name().eq_ignore_ascii_case(name))
}

/// [`native_levels`], comma-separated (a string: filling an array would run any setter on
/// `Array.prototype`).
fn native_level_names() -> String {
    native_levels()
        .map(Level::name)
        .collect::<Vec<_>>()
        .join(",")
}

/// # Safety
/// Called once, by Node-API at the environment's end, with the `Environment` `init` made.
unsafe extern "C" fn free_environment(data: *mut c_void) {
    // SAFETY: the caller's contract. The references it holds go with the environment: Node-API frees
    // what is left of them at its end.
    drop(unsafe { Box::from_raw(data.cast::<Environment>()) });
}

/// `level(cap)`: the name of the level this environment's calls run at. The environment's first call
/// chooses it: the widest this CPU has, at most `cap` (a name of [`native_levels`], any case; anything
/// else means no cap). Later calls return the same.
///
/// # Safety
/// Called by Node-API only, with live `env` and `info`, on the function `init` made.
unsafe extern "C" fn level_callback(
    env: sys::napi_env,
    info: sys::napi_callback_info,
) -> sys::napi_value {
    // SAFETY: the caller's contract; neither outlives this callback.
    let Some((call, environment)) = (unsafe { environment_call::<1>(env, info) }) else {
        return ptr::null_mut();
    };
    if !environment.chosen.replace(true) {
        let cap = call.short_string(0).and_then(|name| native_level(&name));
        environment.kernel.set(Kernel::best(cap));
    }
    let kernel = environment.kernel();
    // SAFETY: `env` is live for this callback.
    unsafe { string(env, kernel.level().name()) }.unwrap_or(ptr::null_mut())
}

/// `mask(source, output, offset, length, keyWord)`: `output[offset + i] = source[i] ^ key[i & 3]` for
/// `i < length`.
///
/// # Safety
/// Called by Node-API only, with live `env` and `info`, on the function `init` made.
unsafe extern "C" fn mask_callback(
    env: sys::napi_env,
    info: sys::napi_callback_info,
) -> sys::napi_value {
    // SAFETY: the caller's contract.
    unsafe {
        masking::<5>(env, info, |call, environment| {
            let (source, output) = (call.view(0)?, call.view(1)?);
            let (offset, length, word) = (call.number(2)?, call.number(3)?, call.number(4)?);
            mask_checked(environment.kernel(), source, output, offset, length, word)
        })
    }
}

/// `maskBlock(source, output)`: `mask` with offset, length and key word read from the block, which spares
/// three Node-API calls.
///
/// # Safety
/// Called by Node-API only, with live `env` and `info`, on the function `init` made.
unsafe extern "C" fn mask_block_callback(
    env: sys::napi_env,
    info: sys::napi_callback_info,
) -> sys::napi_value {
    // SAFETY: the caller's contract.
    unsafe {
        masking::<2>(env, info, |call, environment| {
            let (source, output) = (call.view(0)?, call.view(1)?);
            let [offset, length, word] = environment.block()?.numbers();
            mask_checked(environment.kernel(), source, output, offset, length, word)
        })
    }
}

/// `unmask(buffer, keyWord)`: `buffer[i] ^= key[i & 3]`.
///
/// # Safety
/// Called by Node-API only, with live `env` and `info`, on the function `init` made.
unsafe extern "C" fn unmask_callback(
    env: sys::napi_env,
    info: sys::napi_callback_info,
) -> sys::napi_value {
    // SAFETY: the caller's contract.
    unsafe {
        masking::<2>(env, info, |call, environment| {
            let (buffer, key) = (call.view(0)?, key(call.number(1)?)?);
            mask_in_bounds(environment.kernel(), buffer, buffer, 0, buffer.len, key)
        })
    }
}

/// `unmaskBlock(buffer)`: `unmask` with the key word read from the block.
///
/// # Safety
/// Called by Node-API only, with live `env` and `info`, on the function `init` made.
unsafe extern "C" fn unmask_block_callback(
    env: sys::napi_env,
    info: sys::napi_callback_info,
) -> sys::napi_value {
    // SAFETY: the caller's contract.
    unsafe {
        masking::<1>(env, info, |call, environment| {
            let buffer = call.view(0)?;
            let [.., word] = environment.block()?.numbers();
            let key = key(word)?;
            mask_in_bounds(environment.kernel(), buffer, buffer, 0, buffer.len, key)
        })
    }
}

/// Runs `operation` on the current call of a masking function with its Environment; throws the one
/// generic error unless it masked (`Some`).
///
/// # Safety
/// `env` and `info` must be the live handles of a callback of a function `init` made, taking `N`
/// arguments.
#[inline(always)]
unsafe fn masking<const N: usize>(
    env: sys::napi_env,
    info: sys::napi_callback_info,
    operation: impl FnOnce(&Call<N>, &Environment) -> Option<()>,
) -> sys::napi_value {
    // SAFETY: the caller's contract; neither outlives this callback.
    let Some((call, environment)) = (unsafe { environment_call::<N>(env, info) }) else {
        return ptr::null_mut();
    };
    if operation(&call, environment).is_none() {
        // SAFETY: `env` is live; the message is NUL-terminated; a failed throw leaves `undefined`. No
        // `code`: setting one would run any setter on `Error.prototype`.
        unsafe { sys::napi_throw_error(env, ptr::null(), REFUSED.as_ptr()) };
    }
    ptr::null_mut()
}

/// `useBlock(view)`: adopts `view` as this environment's block if none was adopted before and it is a
/// Float64Array of 3 or more over a SharedArrayBuffer (see `block.rs`); says whether it did.
///
/// # Safety
/// Called by Node-API only, with live `env` and `info`, on the function `init` made.
unsafe extern "C" fn use_block_callback(
    env: sys::napi_env,
    info: sys::napi_callback_info,
) -> sys::napi_value {
    // SAFETY: the caller's contract; neither outlives this callback.
    let Some((call, environment)) = (unsafe { environment_call::<1>(env, info) }) else {
        return ptr::null_mut();
    };
    // SAFETY (in the match): the handles are live for this callback.
    let adopted = environment.block.get().is_null()
        && match unsafe { block::adopt(env, call.argument(0)) } {
            Some(block) => {
                environment.block.set(block);
                true
            }
            None => false,
        };
    let mut value = ptr::null_mut();
    // SAFETY: `env` is live; `value` is a valid place for the result.
    unsafe { sys::napi_get_boolean(env, adopted, &mut value) };
    value
}

/// The current call of one of `init`'s functions and its Environment.
///
/// # Safety
/// `env` and `info` must be the live handles of a callback of a function `init` made, and neither result
/// may outlive that callback.
#[inline(always)]
unsafe fn environment_call<'a, const N: usize>(
    env: sys::napi_env,
    info: sys::napi_callback_info,
) -> Option<(Call<'a, N>, &'a Environment)> {
    // SAFETY: the caller's contract.
    let call = unsafe { Call::<N>::new(env, info) }?;
    let environment = call.environment;
    Some((call, environment))
}

/// `mask_in_bounds` with numbers not yet checked.
#[inline(always)]
fn mask_checked(
    kernel: Kernel,
    source: Bytes,
    output: Bytes,
    offset: f64,
    length: f64,
    word: f64,
) -> Option<()> {
    mask_in_bounds(
        kernel,
        source,
        output,
        index(offset)?,
        index(length)?,
        key(word)?,
    )
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
) -> Option<()> {
    // `output.len - length` cannot wrap: `length <= output.len` is tested first.
    if length > source.len || length > output.len || offset > output.len - length {
        return None;
    }
    if length != 0 {
        // `offset + length <= output.len` (tested above) and `length <= source.len`, so both ranges lie
        // inside views Node-API gave for this call, with no JavaScript run since and no reference to them.
        // SAFETY: as just said, both pointers are valid for `length` bytes; overlap is within the contract.
        unsafe { kernel.mask_raw(source.data, output.data.add(offset), length, key) };
    }
    Some(())
}

/// A block number as a byte count or index: a safe integer >= 0 (`-0` included, NaN not).
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
