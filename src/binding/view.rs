//! One callback's arguments through raw Node-API: the views, looked up by the addon itself, and short
//! strings. [`Call`] holds handles that live only as long as the callback.

use core::ffi::c_void;
use core::ptr;

use napi_sys as sys;

use super::Environment;

/// The bytes of a view as Node-API gave them during the current call. Valid until JavaScript runs again.
#[derive(Clone, Copy)]
pub(super) struct Bytes {
    pub data: *mut u8,
    pub len: usize,
}

/// The current callback's environment handle, `N` arguments (missing ones are `undefined`) and Environment.
pub(super) struct Call<'a, const N: usize> {
    pub env: sys::napi_env,
    pub args: [sys::napi_value; N],
    pub environment: &'a Environment,
}

impl<const N: usize> Call<'_, N> {
    /// Reads the call's arguments; `None` if Node-API cannot.
    ///
    /// # Safety
    /// `env` and `info` must be the live handles of the current callback of a function `init` made, and
    /// the `Call` must not outlive that callback.
    #[inline(always)]
    pub(super) unsafe fn new(env: sys::napi_env, info: sys::napi_callback_info) -> Option<Self> {
        let mut args = [ptr::null_mut(); N];
        let mut argc = N;
        let mut data: *mut c_void = ptr::null_mut();
        // SAFETY: the handles are live (the caller's contract); `args` has room for `argc` handles and
        // `data` for the function's data; `this` is not wanted (null is allowed).
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
        (status == sys::Status::napi_ok).then_some(())?;
        // SAFETY: the data of every function `init` made is the Environment, freed after the last call.
        let environment = unsafe { &*data.cast::<Environment>() };
        Some(Call { env, args, environment })
    }

    /// Argument `index` as a short string (level names are), if it is one.
    pub(super) fn short_string(&self, index: usize) -> Option<String> {
        let mut buffer = [0u8; 16];
        let mut len = 0usize;
        // SAFETY: the handles are live for this callback (`new`'s contract); `buffer` has room for the
        // bytes asked for and their NUL; a non-string gets a status.
        let status = unsafe {
            sys::napi_get_value_string_utf8(
                self.env,
                self.args[index],
                buffer.as_mut_ptr().cast(),
                buffer.len(),
                &mut len,
            )
        };
        (status == sys::Status::napi_ok).then_some(())?;
        core::str::from_utf8(&buffer[..len]).ok().map(str::to_owned)
    }

    /// Argument `index` if it is a number (nothing is converted).
    #[inline(always)]
    pub(super) fn number(&self, index: usize) -> Option<f64> {
        let mut number = 0f64;
        // SAFETY: `number` is a valid place for the result; the handles are live for this callback.
        let status = unsafe { sys::napi_get_value_double(self.env, self.args[index], &mut number) };
        (status == sys::Status::napi_ok).then_some(number)
    }

    /// The bytes of argument `index` if it is an ArrayBufferView (any TypedArray, DataView or Buffer).
    #[inline(always)]
    pub(super) fn view(&self, index: usize) -> Option<Bytes> {
        let value = self.args[index];
        self.buffer_info(value).or_else(|| self.other_view(value))
    }

    /// The bytes of `value` by `napi_get_buffer_info`, which Node answers for every ArrayBufferView.
    #[inline(always)]
    fn buffer_info(&self, value: sys::napi_value) -> Option<Bytes> {
        if !self.environment.buffer_info_checks_type {
            let mut is_view = false;
            // SAFETY: `is_view` is a valid place for the result; the handles are live for this callback.
            let status = unsafe { sys::napi_is_buffer(self.env, value, &mut is_view) };
            if status != sys::Status::napi_ok || !is_view {
                return None;
            }
        }
        let mut data: *mut c_void = ptr::null_mut();
        let mut len = 0usize;
        // SAFETY: `data` and `len` are valid places for the results; the handles are live; `value` is a
        // view or this runtime answers anything else with a status.
        let status = unsafe { sys::napi_get_buffer_info(self.env, value, &mut data, &mut len) };
        (status == sys::Status::napi_ok).then_some(Bytes { data: data.cast(), len })
    }

    /// The slow way to a view's bytes, for runtimes whose `napi_get_buffer_info` takes only Uint8Arrays.
    #[cold]
    fn other_view(&self, value: sys::napi_value) -> Option<Bytes> {
        let (mut is_typed_array, mut is_data_view) = (false, false);
        let mut data: *mut c_void = ptr::null_mut();
        let mut len = 0usize;
        // SAFETY (whole block): the handles are live for this callback; every out-pointer is a valid
        // place for its result; unwanted ones are null, which Node-API allows.
        unsafe {
            if sys::napi_is_typedarray(self.env, value, &mut is_typed_array) == sys::Status::napi_ok
                && is_typed_array
            {
                let (mut kind, mut length) = (0, 0usize);
                let status = sys::napi_get_typedarray_info(
                    self.env,
                    value,
                    &mut kind,
                    &mut length,
                    &mut data,
                    ptr::null_mut(),
                    ptr::null_mut(),
                );
                (status == sys::Status::napi_ok).then_some(())?;
                len = length.checked_mul(element_size(kind)?)?;
            } else if sys::napi_is_dataview(self.env, value, &mut is_data_view)
                == sys::Status::napi_ok
                && is_data_view
            {
                let status = sys::napi_get_dataview_info(
                    self.env,
                    value,
                    &mut len,
                    &mut data,
                    ptr::null_mut(),
                    ptr::null_mut(),
                );
                (status == sys::Status::napi_ok).then_some(())?;
            } else {
                return None;
            }
        }
        Some(Bytes { data: data.cast(), len })
    }
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

/// Whether `napi_get_buffer_info` answers a non-view with a status here. Node before 20.12 and 21.7 aborts
/// instead (`node::Buffer::Data` asserts): there every argument is first asked `napi_is_buffer`. A runtime
/// that does not say its Node version is not trusted.
///
/// # Safety
/// `env` must be the live handle of the current call into the addon.
pub(super) unsafe fn buffer_info_checks_type(env: sys::napi_env) -> bool {
    let mut version: *const sys::napi_node_version = ptr::null();
    // SAFETY: `version` is a valid place for the result, which Node-API points at static data.
    let status = unsafe { sys::napi_get_node_version(env, &mut version) };
    // SAFETY: on success Node-API points `version` at static data, which lives as long as the process.
    let version = if status == sys::Status::napi_ok { unsafe { version.as_ref() } } else { None };
    match version.map(|version| (version.major, version.minor)) {
        None | Some((0..=19, _)) => false,
        Some((20, minor)) => minor >= 12,
        Some((21, minor)) => minor >= 7,
        _ => true,
    }
}
