//! The Node-API layer: `bind(level)`, which makes `mask`, `unmask` and `backend` for one kernel level as
//! raw Node-API callbacks.
//!
//! Raw callbacks, not `#[napi]` functions: napi-derive's argument glue costs 100–200 ns a call, more than
//! bufferutil's whole 16-byte mask. Every argument is checked here, once, before the kernel runs; a bad one
//! throws a `TypeError` or `RangeError` (with Node's `code`s) and nothing is written. No path panics: a
//! panic across the boundary would abort the process.

use core::ffi::{c_char, c_void, CStr};
use core::ptr;
use core::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::ffi::CString;
use std::sync::Arc;

use napi::bindgen_prelude::{sys, Env, Object};
use napi::JsValue;
use napi_derive::napi;

use crate::kernel::{Kernel, Level};

const MAX_SAFE_INTEGER: f64 = 9_007_199_254_740_991.0;

/// Whether this runtime's `napi_get_buffer_info` answers a non-view with a status. Node before 20.12 and
/// 21.7 aborts the process instead (`node::Buffer::Data` asserts), so there every argument is first
/// asked `napi_is_buffer`, one more Node-API call, which newer runtimes are spared.
static BUFFER_INFO_CHECKS_TYPE: AtomicBool = AtomicBool::new(false);

/// Why a call was refused.
enum ArgError {
    /// `TypeError`, `ERR_INVALID_ARG_TYPE`.
    Type(String),
    /// `RangeError`, `ERR_OUT_OF_RANGE`.
    Range(String),
    /// JavaScript already threw (a getter on the key array did): return and let it propagate.
    Pending,
}

type ArgResult<T> = Result<T, ArgError>;

/// The masking key, and whether reading it may have run JavaScript (an array's element getters).
struct Key {
    bytes: [u8; 4],
    ran_javascript: bool,
}

/// A byte view of JavaScript memory: where it starts and how many bytes it has.
#[derive(Clone, Copy)]
struct Bytes {
    data: *mut u8,
    len: usize,
}

#[napi(module_exports)]
pub fn init(exports: Object, env: Env) -> napi::Result<()> {
    let (env, exports) = (env.raw(), exports.raw());
    // SAFETY: `env` is the live handle Node passed to the module's init.
    let checks_type = unsafe { buffer_info_checks_type(env) };
    BUFFER_INFO_CHECKS_TYPE.store(checks_type, Ordering::Relaxed);
    // SAFETY: `env` and `exports` are the live handles Node passed to the module's init.
    unsafe { export_function(env, exports, c"bind", bind_callback, ptr::null_mut()) }
}

/// `bind(level)`: `{ mask, unmask, maskWord, unmaskWord, backend, kernelLevel }` running at the widest
/// level this CPU has, at most `level` (a level name, any case; anything else means no cap).
///
/// Each call's functions carry one `Block`, holding their kernel, as callback data, so the level belongs
/// to the object, not to the process: a worker that binds another level changes nothing for the other
/// threads.
/// `binding.js` calls it once per environment with that environment's `BUFFERUTIL_SIMD_LEVEL`.
///
/// # Safety
/// Called by Node-API only, with live `env` and `info`.
unsafe extern "C" fn bind_callback(
    env: sys::napi_env,
    info: sys::napi_callback_info,
) -> sys::napi_value {
    let mut args = [ptr::null_mut(); 1];
    // SAFETY: Node-API passed live `env` and `info`; `args` has room for the handle asked for.
    let cap = match unsafe { call_info(env, info, &mut args) } {
        // SAFETY: `args[0]` is a live handle of this call.
        Ok(_) => unsafe { level_name(env, args[0]) }.and_then(|name| Level::from_name(&name)),
        Err(_) => None,
    };
    let kernel = Kernel::best(cap);
    let mut object = ptr::null_mut();
    // SAFETY: `env` is live; `object` is a valid place for the result, then a live handle of this call.
    let result = unsafe {
        check(sys::napi_create_object(env, &mut object))
            .and_then(|()| bound_functions(env, object, kernel))
    };
    match result {
        Ok(()) => object,
        Err(error) => {
            let message = CString::new(error.reason).unwrap_or_default();
            // SAFETY: `env` is live and `message` NUL-terminated; a failed throw leaves `undefined`.
            unsafe { sys::napi_throw_error(env, ptr::null(), message.as_ptr()) };
            ptr::null_mut()
        }
    }
}

/// Sets `bind`'s functions and `backend` on `object`, every function carrying one new `Block` with
/// `kernel`. The block lives until the environment is torn down and the view `takeBlock` made (if any)
/// is collected.
///
/// # Safety
/// `env` and `object` must be live handles of the current callback.
unsafe fn bound_functions(
    env: sys::napi_env,
    object: sys::napi_value,
    kernel: &'static Kernel,
) -> napi::Result<()> {
    let block = Arc::new(Block {
        slots: Default::default(),
        taken: AtomicBool::new(false),
        kernel,
    });
    let data = Arc::into_raw(block).cast_mut().cast::<c_void>();
    // SAFETY: `data` came from `Arc::into_raw`; the hook gives that reference back once, at teardown.
    let status = unsafe { sys::napi_add_env_cleanup_hook(env, Some(release_block_of_env), data) };
    if status != sys::Status::napi_ok {
        // SAFETY: no hook holds `data`: take the reference back.
        drop(unsafe { Arc::from_raw(data.cast::<Block>()) });
        return check(status);
    }
    type Callback = unsafe extern "C" fn(sys::napi_env, sys::napi_callback_info) -> sys::napi_value;
    let functions: [(&CStr, Callback); 8] = [
        (c"mask", mask_callback),
        (c"unmask", unmask_callback),
        (c"maskWord", mask_word_callback),
        (c"unmaskWord", unmask_word_callback),
        (c"maskBlock", mask_block_callback),
        (c"unmaskBlock", unmask_block_callback),
        (c"takeBlock", take_block_callback),
        (c"kernelLevel", kernel_level_callback),
    ];
    for (name, callback) in functions {
        // SAFETY: the handles are live (the caller's contract), and `data` outlives every call of the
        // function: the environment's reference is released only at its teardown, after the last call.
        unsafe { export_function(env, object, name, callback, data) }?;
    }
    let name = kernel.level().name();
    let mut backend = ptr::null_mut();
    // SAFETY: the handles are live; `name` is valid for its length; `backend` is a valid place.
    unsafe {
        check(sys::napi_create_string_utf8(
            env,
            name.as_ptr().cast(),
            name.len() as isize,
            &mut backend,
        ))?;
        check(sys::napi_set_named_property(
            env,
            object,
            c"backend".as_ptr(),
            backend,
        ))
    }
}

/// The string `value` holds, if it is a short one (level names are); anything else is no name.
///
/// # Safety
/// `value` must be a live handle of the current callback.
unsafe fn level_name(env: sys::napi_env, value: sys::napi_value) -> Option<String> {
    let mut buffer = [0u8; 16];
    let mut len = 0usize;
    // SAFETY: `buffer` has room for the bytes asked for and their NUL; a non-string gets a status.
    let status = unsafe {
        sys::napi_get_value_string_utf8(
            env,
            value,
            buffer.as_mut_ptr().cast(),
            buffer.len(),
            &mut len,
        )
    };
    if status != sys::Status::napi_ok {
        return None;
    }
    core::str::from_utf8(&buffer[..len]).ok().map(str::to_owned)
}

/// `kernelLevel()`: the level this object's callbacks run at, read from the same callback data they
/// use (what the worker tests check `backend` against).
///
/// # Safety
/// Called by Node-API only, with live `env` and `info`, on a function `bound_functions` made.
unsafe extern "C" fn kernel_level_callback(
    env: sys::napi_env,
    info: sys::napi_callback_info,
) -> sys::napi_value {
    let mut args: [sys::napi_value; 0] = [];
    // SAFETY: Node-API passed live `env` and `info`.
    let Ok(block) = (unsafe { arguments(env, info, &mut args) }) else {
        return ptr::null_mut();
    };
    let name = block.kernel.level().name();
    let mut value = ptr::null_mut();
    // SAFETY: `env` is live; `name` is valid for its length; `value` is a valid place for the result.
    unsafe {
        sys::napi_create_string_utf8(env, name.as_ptr().cast(), name.len() as isize, &mut value)
    };
    value
}

/// See [`BUFFER_INFO_CHECKS_TYPE`]. A runtime that does not say its Node version is not trusted.
///
/// # Safety
/// `env` must be the live handle of the current call into the addon.
unsafe fn buffer_info_checks_type(env: sys::napi_env) -> bool {
    let mut version: *const sys::napi_node_version = ptr::null();
    // SAFETY: `version` is a valid place for the result, which Node-API points at static data.
    let status = unsafe { sys::napi_get_node_version(env, &mut version) };
    if status != sys::Status::napi_ok || version.is_null() {
        return false;
    }
    // SAFETY: Node-API returned a valid pointer to a version that lives as long as the process.
    let version = unsafe { &*version };
    match version.major {
        0..=19 => false,
        20 => version.minor >= 12,
        21 => version.minor >= 7,
        _ => true,
    }
}

/// # Safety
/// `env` and `exports` must be live handles of the current call into the addon.
unsafe fn export_function(
    env: sys::napi_env,
    exports: sys::napi_value,
    name: &CStr,
    callback: unsafe extern "C" fn(sys::napi_env, sys::napi_callback_info) -> sys::napi_value,
    data: *mut c_void,
) -> napi::Result<()> {
    let mut function = ptr::null_mut();
    // SAFETY: the handles are live (the caller's contract), `name` is NUL-terminated, and `function` is a
    // valid place for the result; `data` is only handed back to `callback`.
    unsafe {
        check(sys::napi_create_function(
            env,
            name.as_ptr(),
            -1,
            Some(callback),
            data,
            &mut function,
        ))?;
        check(sys::napi_set_named_property(
            env,
            exports,
            name.as_ptr(),
            function,
        ))
    }
}

fn check(status: sys::napi_status) -> napi::Result<()> {
    if status == sys::Status::napi_ok {
        Ok(())
    } else {
        Err(napi::Error::from_reason(format!(
            "Node-API call failed with status {status}"
        )))
    }
}

/// How a callback reads its key argument.
type KeyReader = unsafe fn(sys::napi_env, sys::napi_value) -> ArgResult<Key>;

/// `mask(source, mask, output, offset, length)`.
///
/// # Safety
/// Called by Node-API only, with live `env` and `info`.
unsafe extern "C" fn mask_callback(
    env: sys::napi_env,
    info: sys::napi_callback_info,
) -> sys::napi_value {
    // SAFETY: the caller's contract.
    unsafe { mask_call(env, info, key) }
}

/// `maskWord(source, word, output, offset, length)`: `mask` with the key as an integer (see `key_word`).
///
/// # Safety
/// Called by Node-API only, with live `env` and `info`.
unsafe extern "C" fn mask_word_callback(
    env: sys::napi_env,
    info: sys::napi_callback_info,
) -> sys::napi_value {
    // SAFETY: the caller's contract.
    unsafe { mask_call(env, info, key_word) }
}

/// `unmask(buffer, mask)`.
///
/// # Safety
/// Called by Node-API only, with live `env` and `info`.
unsafe extern "C" fn unmask_callback(
    env: sys::napi_env,
    info: sys::napi_callback_info,
) -> sys::napi_value {
    // SAFETY: the caller's contract.
    unsafe { unmask_call(env, info, key) }
}

/// `unmaskWord(buffer, word)`: `unmask` with the key as an integer (see `key_word`).
///
/// # Safety
/// Called by Node-API only, with live `env` and `info`.
unsafe extern "C" fn unmask_word_callback(
    env: sys::napi_env,
    info: sys::napi_callback_info,
) -> sys::napi_value {
    // SAFETY: the caller's contract.
    unsafe { unmask_call(env, info, key_word) }
}

/// # Safety
/// `env` and `info` must be the live handles of the current callback.
#[inline(always)]
unsafe fn mask_call(
    env: sys::napi_env,
    info: sys::napi_callback_info,
    read_key: KeyReader,
) -> sys::napi_value {
    let mut args = [ptr::null_mut(); 5];
    // SAFETY: Node-API passed live `env` and `info`; `args` has room for the 5 handles asked for.
    let result = unsafe { arguments(env, info, &mut args) }.and_then(|block| {
        // SAFETY: `args` holds handles of this call, from `arguments`.
        unsafe { mask_checked(env, &args, read_key, block.kernel) }
    });
    // SAFETY: `env` is live for this call.
    unsafe { finish(env, result) }
}

/// # Safety
/// `env` and `info` must be the live handles of the current callback.
#[inline(always)]
unsafe fn unmask_call(
    env: sys::napi_env,
    info: sys::napi_callback_info,
    read_key: KeyReader,
) -> sys::napi_value {
    let mut args = [ptr::null_mut(); 2];
    // SAFETY: Node-API passed live `env` and `info`; `args` has room for the 2 handles asked for.
    let result = unsafe { arguments(env, info, &mut args) }.and_then(|block| {
        // SAFETY: `args` holds handles of this call, from `arguments`.
        unsafe { unmask_checked(env, &args, read_key, block.kernel) }
    });
    // SAFETY: `env` is live for this call.
    unsafe { finish(env, result) }
}

/// Fills `args` with the call's arguments (missing ones come back as `undefined`) and returns the
/// function's data pointer.
///
/// # Safety
/// `env` and `info` must be the live handles of the current callback.
#[inline(always)]
unsafe fn call_info<const N: usize>(
    env: sys::napi_env,
    info: sys::napi_callback_info,
    args: &mut [sys::napi_value; N],
) -> ArgResult<*mut c_void> {
    let mut argc = N;
    let mut data: *mut c_void = ptr::null_mut();
    // SAFETY: `args` has room for `argc` handles and `data` for the function's data; `this` is not
    // wanted (null is allowed).
    let status = unsafe {
        sys::napi_get_cb_info(
            env,
            info,
            &mut argc,
            args.as_mut_ptr(),
            ptr::null_mut(),
            &mut data,
        )
    };
    if status == sys::Status::napi_ok {
        Ok(data)
    } else {
        Err(ArgError::Type("invalid call".into()))
    }
}

/// [`call_info`] for the functions `bound_functions` made: their `Block`, alive while they can be called.
///
/// # Safety
/// `env` and `info` must be the live handles of a callback of a function `bound_functions` made.
#[inline(always)]
unsafe fn arguments<'a, const N: usize>(
    env: sys::napi_env,
    info: sys::napi_callback_info,
    args: &mut [sys::napi_value; N],
) -> ArgResult<&'a Block> {
    // SAFETY: the caller's contract.
    let data = unsafe { call_info(env, info, args) }?;
    if data.is_null() {
        return Err(ArgError::Type("invalid call".into()));
    }
    // SAFETY: the data of these functions is their environment's block, whose reference the environment
    // releases only at teardown, after the last call.
    Ok(unsafe { &*data.cast::<Block>() })
}

/// # Safety
/// `args` must hold the live handles of the current callback.
#[inline(always)]
unsafe fn mask_checked(
    env: sys::napi_env,
    args: &[sys::napi_value; 5],
    read_key: KeyReader,
    kernel: &Kernel,
) -> ArgResult<()> {
    // SAFETY: the handles are live (the caller's contract), here and in the next four calls.
    let mut source = unsafe { bytes(env, args[0], "source") }?;
    // SAFETY: as above.
    let key = unsafe { read_key(env, args[1]) }?;
    if key.ran_javascript {
        // A getter on the key array may have detached or shrunk the source: look again.
        // SAFETY: as above.
        source = unsafe { bytes(env, args[0], "source") }?;
    }
    // Nothing from here on runs JavaScript, so the views stay as checked until the kernel is done.
    // SAFETY: as above.
    let output = unsafe { bytes(env, args[2], "output") }?;
    // SAFETY: as above.
    let offset = unsafe { index(env, args[3], "offset") }?;
    // SAFETY: as above.
    let length = unsafe { index(env, args[4], "length") }?;
    // SAFETY: the views are from this call and nothing has run JavaScript since they were read.
    unsafe { mask_in_bounds(source, key.bytes, output, offset, length, kernel) }
}

/// Checks `length` and `offset` against the views, then masks.
///
/// # Safety
/// `source` and `output` must be views Node-API gave during the current callback, with no JavaScript run
/// since.
#[inline(always)]
unsafe fn mask_in_bounds(
    source: Bytes,
    key: [u8; 4],
    output: Bytes,
    offset: usize,
    length: usize,
    kernel: &Kernel,
) -> ArgResult<()> {
    // `output.len - length` cannot wrap: when `length > output.len` an earlier test decides.
    if length > source.len || length > output.len || offset > output.len - length {
        return Err(bounds_error(source.len, output.len, offset, length));
    }
    if length == 0 {
        return Ok(());
    }
    // SAFETY: `offset + length <= output.len` (checked above), so the output range is in bounds.
    let destination = unsafe { output.data.add(offset) };
    // SAFETY: `length <= source.len` and `offset + length <= output.len`: both ranges lie inside the views
    // Node-API gave for this call; no reference to them exists; any overlap is allowed.
    unsafe { kernel.mask_raw(source.data, destination, length, key) };
    Ok(())
}

/// The error for a `length` or `offset` out of the views' bounds; out of line, so the checks cost the
/// hot path a few compares (formatting inline cost it 3–4 ns a call).
#[cold]
#[inline(never)]
fn bounds_error(source_len: usize, output_len: usize, offset: usize, length: usize) -> ArgError {
    if length > source_len || length > output_len {
        return length_error(length, source_len, output_len);
    }
    ArgError::Range(format!(
        "The value of \"offset\" is out of range. It must be <= output.byteLength - length ({}). Received {offset}",
        output_len - length
    ))
}

/// # Safety
/// `args` must hold the live handles of the current callback.
#[inline(always)]
unsafe fn unmask_checked(
    env: sys::napi_env,
    args: &[sys::napi_value; 2],
    read_key: KeyReader,
    kernel: &Kernel,
) -> ArgResult<()> {
    // SAFETY: the handles are live (the caller's contract).
    let mut buffer = unsafe { bytes(env, args[0], "buffer") }?;
    // SAFETY: as above.
    let key = unsafe { read_key(env, args[1]) }?;
    if key.ran_javascript {
        // As in `mask_checked`: look at the buffer again after the key's getters.
        // SAFETY: as above.
        buffer = unsafe { bytes(env, args[0], "buffer") }?;
    }
    if buffer.len != 0 {
        // SAFETY: the whole view Node-API gave for this call, in place; no reference to it exists.
        unsafe { kernel.mask_raw(buffer.data, buffer.data, buffer.len, key.bytes) };
    }
    Ok(())
}

/// A `length` that reaches past the source, or past the whole output whatever the offset: the error
/// names the smaller bound it broke.
#[cold]
fn length_error(length: usize, source_len: usize, output_len: usize) -> ArgError {
    let (bound, len) = if source_len <= output_len {
        ("source.byteLength", source_len)
    } else {
        ("output.byteLength", output_len)
    };
    ArgError::Range(format!(
        "The value of \"length\" is out of range. It must be <= {bound} ({len}). Received {length}"
    ))
}

/// The bytes of any ArrayBufferView (Buffer, TypedArray, DataView), or a `TypeError` naming `name`.
///
/// # Safety
/// `value` must be a live handle of the current callback.
#[inline(always)]
unsafe fn bytes(env: sys::napi_env, value: sys::napi_value, name: &str) -> ArgResult<Bytes> {
    // SAFETY: the caller's contract.
    match unsafe { buffer_info(env, value) } {
        Some(view) => Ok(view),
        // SAFETY: the caller's contract.
        None => unsafe { bytes_of_other_view(env, value, name) },
    }
}

/// The bytes of `value` by `napi_get_buffer_info`, which Node answers for every ArrayBufferView; anything
/// else gets `None` (see [`BUFFER_INFO_CHECKS_TYPE`] for how older Node is kept from aborting).
///
/// # Safety
/// `value` must be a live handle of the current callback.
#[inline(always)]
unsafe fn buffer_info(env: sys::napi_env, value: sys::napi_value) -> Option<Bytes> {
    if !BUFFER_INFO_CHECKS_TYPE.load(Ordering::Relaxed) {
        let mut is_view = false;
        // SAFETY: `is_view` is a valid place for the result; the handles are live.
        let status = unsafe { sys::napi_is_buffer(env, value, &mut is_view) };
        if status != sys::Status::napi_ok || !is_view {
            return None;
        }
    }
    let mut data: *mut c_void = ptr::null_mut();
    let mut len = 0usize;
    // SAFETY: `data` and `len` are valid places for the results; the handles are live; `value` is a view
    // or this runtime answers anything else with a status.
    let status = unsafe { sys::napi_get_buffer_info(env, value, &mut data, &mut len) };
    (status == sys::Status::napi_ok).then_some(Bytes {
        data: data.cast(),
        len,
    })
}

/// The slow way to a view's bytes, for runtimes whose `napi_get_buffer_info` takes only Uint8Arrays.
///
/// # Safety
/// `value` must be a live handle of the current callback.
#[cold]
unsafe fn bytes_of_other_view(
    env: sys::napi_env,
    value: sys::napi_value,
    name: &str,
) -> ArgResult<Bytes> {
    let mut is_typed_array = false;
    let mut is_data_view = false;
    let mut data: *mut c_void = ptr::null_mut();
    // SAFETY (whole block): every out-pointer is a valid place for its result; unwanted ones are null,
    // which Node-API allows.
    unsafe {
        if sys::napi_is_typedarray(env, value, &mut is_typed_array) == sys::Status::napi_ok
            && is_typed_array
        {
            let mut kind = 0;
            let mut length = 0usize;
            let status = sys::napi_get_typedarray_info(
                env,
                value,
                &mut kind,
                &mut length,
                &mut data,
                ptr::null_mut(),
                ptr::null_mut(),
            );
            if let (sys::Status::napi_ok, Some(size)) = (status, element_size(kind)) {
                if let Some(len) = length.checked_mul(size) {
                    return Ok(Bytes {
                        data: data.cast(),
                        len,
                    });
                }
            }
        } else if sys::napi_is_dataview(env, value, &mut is_data_view) == sys::Status::napi_ok
            && is_data_view
        {
            let mut len = 0usize;
            let status = sys::napi_get_dataview_info(
                env,
                value,
                &mut len,
                &mut data,
                ptr::null_mut(),
                ptr::null_mut(),
            );
            if status == sys::Status::napi_ok {
                return Ok(Bytes {
                    data: data.cast(),
                    len,
                });
            }
        }
    }
    // SAFETY: the caller's contract.
    let received = unsafe { received(env, value) };
    Err(ArgError::Type(format!(
        "The \"{name}\" argument must be an instance of Buffer, TypedArray, or DataView.{received}"
    )))
}

/// Bytes per element of a `napi_typedarray_type` (napi-sys hides the later ones behind Node-API versions).
fn element_size(kind: sys::napi_typedarray_type) -> Option<usize> {
    match kind {
        0..=2 => Some(1),      // Int8Array, Uint8Array, Uint8ClampedArray
        3 | 4 | 11 => Some(2), // Int16Array, Uint16Array, Float16Array
        5..=7 => Some(4),      // Int32Array, Uint32Array, Float32Array
        8..=10 => Some(8),     // Float64Array, BigInt64Array, BigUint64Array
        _ => None,
    }
}

/// A byte count or index: a number that is a safe integer >= 0.
///
/// # Safety
/// `value` must be a live handle of the current callback.
#[inline(always)]
unsafe fn index(env: sys::napi_env, value: sys::napi_value, name: &str) -> ArgResult<usize> {
    const EXPECTED: &str = "an integer >= 0 and <= 9007199254740991";
    // SAFETY: the caller's contract.
    let number = unsafe {
        integer(
            env,
            value,
            name,
            "argument",
            0.0..=MAX_SAFE_INTEGER,
            EXPECTED,
        )
    }?;
    Ok(number as usize)
}

/// The integer a number argument holds, if it is one within `range`; otherwise a `TypeError` (not a
/// number) or `RangeError` naming it, worded `The "{name}" {noun} …` and `… It must be {expected}.`
///
/// # Safety
/// `value` must be a live handle of the current callback.
#[inline(always)]
unsafe fn integer(
    env: sys::napi_env,
    value: sys::napi_value,
    name: &str,
    noun: &str,
    range: core::ops::RangeInclusive<f64>,
    expected: &str,
) -> ArgResult<i64> {
    let mut number = 0f64;
    // SAFETY: `number` is a valid place for the result; a non-number gets a status, never a conversion.
    let status = unsafe { sys::napi_get_value_double(env, value, &mut number) };
    if status != sys::Status::napi_ok {
        // SAFETY: the caller's contract.
        let received = unsafe { received(env, value) };
        return Err(ArgError::Type(format!(
            "The \"{name}\" {noun} must be of type number.{received}"
        )));
    }
    checked_integer(number, name, range, expected)
}

/// `number` as an integer, if it is one within `range`; otherwise a `RangeError` naming it.
#[inline(always)]
fn checked_integer(
    number: f64,
    name: &str,
    range: core::ops::RangeInclusive<f64>,
    expected: &str,
) -> ArgResult<i64> {
    // `-0.0` passes, as in `Number.isSafeInteger`; NaN fails every comparison. Within ±2^53 the round
    // trip through an integer is exact for integers only (and cheaper than `fract`, a libm call).
    if range.contains(&number) && (number as i64) as f64 == number {
        Ok(number as i64)
    } else {
        Err(out_of_range(number, name, expected))
    }
}

#[cold]
#[inline(never)]
fn out_of_range(number: f64, name: &str, expected: &str) -> ArgError {
    ArgError::Range(format!(
        "The value of \"{name}\" is out of range. It must be {expected}. Received {}",
        js_number(number)
    ))
}

/// The masking key: the first 4 bytes of an ArrayBufferView, or an array of 4 integers 0..=255.
///
/// # Safety
/// `value` must be a live handle of the current callback.
#[inline(always)]
unsafe fn key(env: sys::napi_env, value: sys::napi_value) -> ArgResult<Key> {
    // SAFETY: the caller's contract.
    match unsafe { buffer_info(env, value) } {
        // SAFETY: a view from Node-API describes readable memory.
        Some(view) => unsafe { key_of_view(view) },
        // SAFETY: the caller's contract.
        None => unsafe { key_of_other(env, value) },
    }
}

/// The key as one integer, `key[0] | key[1] << 8 | key[2] << 16 | key[3] << 24`, signed or not: what
/// index.js passes, since a number costs Node-API less to read than a view's bytes and length.
///
/// # Safety
/// `value` must be a live handle of the current callback.
#[inline(always)]
unsafe fn key_word(env: sys::napi_env, value: sys::napi_value) -> ArgResult<Key> {
    let range = -2_147_483_648.0..=4_294_967_295.0;
    // SAFETY: the caller's contract.
    let word = unsafe { integer(env, value, "mask", "argument", range, "a 32-bit integer") }?;
    Ok(Key {
        bytes: (word as u32).to_le_bytes(),
        ran_javascript: false,
    })
}

/// The first 4 bytes of a view.
///
/// # Safety
/// `view` must describe readable memory, as the views Node-API gives during a call do.
unsafe fn key_of_view(view: Bytes) -> ArgResult<Key> {
    if view.len < 4 {
        return Err(ArgError::Type(format!(
            "The \"mask\" argument must have at least 4 bytes. Received {} bytes",
            view.len
        )));
    }
    // SAFETY: the view has at least 4 readable bytes.
    let bytes = unsafe { view.data.cast::<[u8; 4]>().read_unaligned() };
    Ok(Key {
        bytes,
        ran_javascript: false,
    })
}

/// The key from a view that `napi_get_buffer_info` refused, or from an array of 4 integers.
///
/// # Safety
/// `value` must be a live handle of the current callback.
#[cold]
unsafe fn key_of_other(env: sys::napi_env, value: sys::napi_value) -> ArgResult<Key> {
    let mut is_array = false;
    // SAFETY: `is_array` is a valid place for the result.
    let status = unsafe { sys::napi_is_array(env, value, &mut is_array) };
    if status != sys::Status::napi_ok || !is_array {
        // SAFETY: the caller's contract.
        let view = unsafe { bytes_of_other_view(env, value, "mask") };
        return match view {
            // SAFETY: a view from Node-API describes readable memory.
            Ok(view) => unsafe { key_of_view(view) },
            Err(_) => Err(ArgError::Type(format!(
                "The \"mask\" argument must be an instance of Buffer, TypedArray, DataView, or an Array of 4 integers.{}",
                // SAFETY: the caller's contract.
                unsafe { received(env, value) }
            ))),
        };
    }
    let mut length = 0u32;
    // SAFETY: `value` is an array; `length` is a valid place for the result.
    unsafe { sys::napi_get_array_length(env, value, &mut length) };
    if length != 4 {
        return Err(ArgError::Type(format!(
            "The \"mask\" array must have 4 elements. Received {length}"
        )));
    }
    let mut key = [0u8; 4];
    for (index, byte) in (0u32..).zip(key.iter_mut()) {
        let mut element = ptr::null_mut();
        // SAFETY: `element` is a valid place for the result. This may run a getter, hence `Pending`.
        let status = unsafe { sys::napi_get_element(env, value, index, &mut element) };
        if status != sys::Status::napi_ok {
            return Err(ArgError::Pending);
        }
        let name = ["mask[0]", "mask[1]", "mask[2]", "mask[3]"][index as usize];
        let expected = "an integer >= 0 and <= 255";
        // SAFETY: `element` is a live handle of this callback.
        let number = unsafe { integer(env, element, name, "element", 0.0..=255.0, expected) }?;
        *byte = number as u8;
    }
    Ok(Key {
        bytes: key,
        ran_javascript: true,
    })
}

/// `" Received …"`, describing `value` the way Node's own argument errors do, briefly.
///
/// # Safety
/// `value` must be a live handle of the current callback.
#[cold]
unsafe fn received(env: sys::napi_env, value: sys::napi_value) -> String {
    let mut kind = 0;
    // SAFETY: `kind` is a valid place for the result.
    if unsafe { sys::napi_typeof(env, value, &mut kind) } != sys::Status::napi_ok {
        return String::new();
    }
    let name = match kind {
        sys::ValueType::napi_undefined => return " Received undefined".into(),
        sys::ValueType::napi_null => return " Received null".into(),
        sys::ValueType::napi_boolean => "boolean",
        sys::ValueType::napi_number => "number",
        sys::ValueType::napi_string => "string",
        sys::ValueType::napi_symbol => "symbol",
        sys::ValueType::napi_function => "function",
        9 => "bigint", // napi_bigint, hidden by napi-sys below Node-API 6
        // SAFETY: the caller's contract.
        _ => {
            return format!(" Received an instance of {}", unsafe {
                object_kind(env, value)
            })
        }
    };
    format!(" Received type {name}")
}

/// What kind of object `value` is, for the kinds a caller may mistake for a view, told by the engine's
/// own brand checks (no getter or Proxy trap runs); `another type` for the rest.
///
/// # Safety
/// `value` must be a live handle of the current callback.
#[cold]
unsafe fn object_kind(env: sys::napi_env, value: sys::napi_value) -> &'static str {
    let (mut is_array, mut is_array_buffer) = (false, false);
    // SAFETY: the handles are live (the caller's contract); the out-pointers are valid places.
    unsafe {
        if sys::napi_is_array(env, value, &mut is_array) == sys::Status::napi_ok && is_array {
            return "Array";
        }
        if sys::napi_is_arraybuffer(env, value, &mut is_array_buffer) == sys::Status::napi_ok
            && is_array_buffer
        {
            return "ArrayBuffer";
        }
    }
    "another type"
}

/// A number as JavaScript's `String(number)` prints it: the shortest digits that round-trip (as Rust's
/// are), in exponent form below 1e-6 and from 1e21 on.
fn js_number(number: f64) -> String {
    if number.is_nan() {
        return "NaN".into();
    }
    if number.is_infinite() {
        return if number > 0.0 {
            "Infinity"
        } else {
            "-Infinity"
        }
        .into();
    }
    let magnitude = number.abs();
    if magnitude == 0.0 || (1e-6..1e21).contains(&magnitude) {
        return format!("{}", if magnitude == 0.0 { 0.0 } else { number });
    }
    let text = format!("{number:e}");
    match text.split_once('e') {
        Some((digits, exponent)) if !exponent.starts_with('-') => format!("{digits}e+{exponent}"),
        _ => text,
    }
}

/// Throws what `result` says, if anything; the callbacks return `undefined` either way.
///
/// # Safety
/// `env` must be live for the current callback.
#[inline(always)]
unsafe fn finish(env: sys::napi_env, result: ArgResult<()>) -> sys::napi_value {
    if let Err(error) = result {
        // SAFETY: the caller's contract.
        unsafe { throw(env, error) };
    }
    ptr::null_mut()
}

/// # Safety
/// `env` must be live for the current callback.
#[cold]
unsafe fn throw(env: sys::napi_env, error: ArgError) {
    let (range, code, message) = match error {
        ArgError::Type(message) => (false, c"ERR_INVALID_ARG_TYPE", message),
        ArgError::Range(message) => (true, c"ERR_OUT_OF_RANGE", message),
        ArgError::Pending => return,
    };
    // Our messages hold no NUL; should one ever, a shorter message beats a panic.
    let text = CString::new(message).unwrap_or_default();
    let (code, message): (*const c_char, *const c_char) = (code.as_ptr(), text.as_ptr());
    // SAFETY: both strings are NUL-terminated and outlive the call; a failed throw leaves `undefined`.
    unsafe {
        if range {
            sys::napi_throw_range_error(env, code, message);
        } else {
            sys::napi_throw_type_error(env, code, message);
        }
    }
}

/// Where `index.js` leaves the numbers of its next `maskBlock` / `unmaskBlock` call: the offset, the length
/// and the key word, as doubles. Reading them here costs a memory load each instead of a Node-API call
/// each (~5 ns). One per `bind` call (binding.js binds once per environment: each worker has its own),
/// carried by every function that call made, with their kernel; the memory belongs to the addon, not to
/// V8, so no one can free or resize it while it is read: JavaScript sees it through an external ArrayBuffer
/// that holds one reference, the environment holds the other. Whatever is in it is checked after it is
/// read, exactly as arguments are; atomic loads, since JavaScript may write it at any time.
#[repr(C)]
struct Block {
    slots: [AtomicU64; BLOCK_SLOTS],
    /// Whether `takeBlock` has handed out the view (once per `bind`).
    taken: AtomicBool,
    /// The kernel of the `bind` call that made this block and its functions: the level they all run at.
    kernel: &'static Kernel,
}

const BLOCK_SLOTS: usize = 4;
const OFFSET_SLOT: usize = 0;
const LENGTH_SLOT: usize = 1;
const KEY_SLOT: usize = 2;

impl Block {
    #[inline(always)]
    fn read(&self, slot: usize) -> f64 {
        f64::from_bits(self.slots[slot].load(Ordering::Relaxed))
    }

    /// The key word, checked as `maskWord`'s.
    #[inline(always)]
    fn key(&self) -> ArgResult<[u8; 4]> {
        let range = -2_147_483_648.0..=4_294_967_295.0;
        let word = checked_integer(self.read(KEY_SLOT), "mask", range, "a 32-bit integer")?;
        Ok((word as u32).to_le_bytes())
    }

    #[inline(always)]
    fn index(&self, slot: usize, name: &str) -> ArgResult<usize> {
        let expected = "an integer >= 0 and <= 9007199254740991";
        let number = checked_integer(self.read(slot), name, 0.0..=MAX_SAFE_INTEGER, expected)?;
        Ok(number as usize)
    }
}

/// # Safety
/// Called once, by Node-API at environment teardown, with the reference `bound_functions` made.
unsafe extern "C" fn release_block_of_env(data: *mut c_void) {
    // SAFETY: the caller's contract.
    drop(unsafe { Arc::from_raw(data.cast::<Block>()) });
}

/// # Safety
/// Called once, by Node-API when the ArrayBuffer over the block is collected, with its reference.
unsafe extern "C" fn release_block_of_view(
    _env: sys::napi_env,
    _data: *mut c_void,
    hint: *mut c_void,
) {
    // SAFETY: the caller's contract.
    drop(unsafe { Arc::from_raw(hint.cast::<Block>()) });
}

/// `takeBlock()`: a Float64Array over this environment's block, the first time; `undefined` after.
///
/// # Safety
/// Called by Node-API only, with live `env` and `info`.
unsafe extern "C" fn take_block_callback(
    env: sys::napi_env,
    info: sys::napi_callback_info,
) -> sys::napi_value {
    let mut args: [sys::napi_value; 0] = [];
    // SAFETY: the caller's contract.
    let Ok(block) = (unsafe { arguments(env, info, &mut args) }) else {
        return ptr::null_mut();
    };
    if block.taken.swap(true, Ordering::Relaxed) {
        return ptr::null_mut();
    }
    // SAFETY: `block` came from an `Arc` that the environment holds.
    let hint = unsafe {
        Arc::increment_strong_count(block);
        block as *const Block
    };
    let mut buffer = ptr::null_mut();
    // SAFETY: the slots are BLOCK_SLOTS * 8 bytes of memory that lives as long as `hint`'s reference,
    // which the finalizer releases; ArrayBuffer contents need no alignment beyond the doubles' 8.
    let status = unsafe {
        sys::napi_create_external_arraybuffer(
            env,
            block.slots.as_ptr().cast_mut().cast(),
            BLOCK_SLOTS * 8,
            Some(release_block_of_view),
            hint.cast_mut().cast(),
            &mut buffer,
        )
    };
    if status != sys::Status::napi_ok {
        // Some runtimes refuse external memory: no block, and index.js passes the numbers as arguments.
        // SAFETY: the finalizer will not run: take its reference back.
        drop(unsafe { Arc::from_raw(hint) });
        return ptr::null_mut();
    }
    let mut view = ptr::null_mut();
    // SAFETY: `buffer` holds exactly BLOCK_SLOTS doubles from byte 0.
    let status = unsafe {
        sys::napi_create_typedarray(
            env,
            sys::TypedarrayType::float64_array,
            BLOCK_SLOTS,
            buffer,
            0,
            &mut view,
        )
    };
    if status == sys::Status::napi_ok {
        view
    } else {
        ptr::null_mut()
    }
}

/// `maskBlock(source, output)`: `mask` with offset, length and key word read from the block.
///
/// # Safety
/// Called by Node-API only, with live `env` and `info`.
unsafe extern "C" fn mask_block_callback(
    env: sys::napi_env,
    info: sys::napi_callback_info,
) -> sys::napi_value {
    let mut args = [ptr::null_mut(); 2];
    // SAFETY: the caller's contract; `args` holds this call's handles once filled.
    let result = unsafe { arguments(env, info, &mut args) }.and_then(|block| unsafe {
        // SAFETY: as above; the order of checks is `mask`'s: source, key, output, offset, length.
        let source = bytes(env, args[0], "source")?;
        let key = block.key()?;
        let output = bytes(env, args[1], "output")?;
        let offset = block.index(OFFSET_SLOT, "offset")?;
        let length = block.index(LENGTH_SLOT, "length")?;
        // SAFETY: views of this call; reading the block ran no JavaScript.
        mask_in_bounds(source, key, output, offset, length, block.kernel)
    });
    // SAFETY: `env` is live for this call.
    unsafe { finish(env, result) }
}

/// `unmaskBlock(buffer)`: `unmask` with the key word read from the block.
///
/// # Safety
/// Called by Node-API only, with live `env` and `info`.
unsafe extern "C" fn unmask_block_callback(
    env: sys::napi_env,
    info: sys::napi_callback_info,
) -> sys::napi_value {
    let mut args = [ptr::null_mut(); 1];
    // SAFETY: the caller's contract; `args` holds this call's handle once filled.
    let result = unsafe { arguments(env, info, &mut args) }.and_then(|block| unsafe {
        // SAFETY: as above.
        let buffer = bytes(env, args[0], "buffer")?;
        let key = block.key()?;
        if buffer.len != 0 {
            // SAFETY: the whole view Node-API gave for this call, in place; no reference to it exists.
            block
                .kernel
                .mask_raw(buffer.data, buffer.data, buffer.len, key);
        }
        Ok(())
    });
    // SAFETY: `env` is live for this call.
    unsafe { finish(env, result) }
}

#[cfg(test)]
mod tests {
    use super::js_number;

    #[test]
    fn numbers_print_as_javascript_prints_them() {
        let cases: [(f64, &str); 12] = [
            (f64::NAN, "NaN"),
            (f64::NEG_INFINITY, "-Infinity"),
            (-0.0, "0"),
            (1.5, "1.5"),
            (-1.0, "-1"),
            (9007199254740992.0, "9007199254740992"),
            (18446744073709552010.0, "18446744073709552000"),
            (1e21, "1e+21"),
            (1e300, "1e+300"),
            (0.000001, "0.000001"),
            (1.5e-7, "1.5e-7"),
            (5e-324, "5e-324"),
        ];
        for (number, printed) in cases {
            assert_eq!(js_number(number), printed);
        }
    }
}
