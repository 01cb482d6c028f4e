//! One call's arguments, read through raw Node-API and checked: views, numbers, the key. [`Call`] is the
//! small safe wrapper the entry points use: the only `unsafe` they need is to make one, and the masking
//! operations on it (`mask`, `unmask` and their block forms) check every bound before the kernel runs.

use core::ffi::c_void;
use core::ptr;
use core::sync::atomic::{AtomicBool, Ordering};

use napi::bindgen_prelude::sys;

use super::block::{Block, BlockNumbers};
use super::errors::{
    bounds_error, checked_integer, key_array_length, not_a_key, not_a_number, not_a_view,
    short_key, ArgError, ArgResult, INDEX, KEY_ELEMENT,
};
use crate::kernel::Kernel;

/// Whether this runtime's `napi_get_buffer_info` answers a non-view with a status. Node before 20.12 and
/// 21.7 aborts the process instead (`node::Buffer::Data` asserts), so there every argument is first
/// asked `napi_is_buffer`, one more Node-API call, which newer runtimes are spared. Set once, by `init`.
pub(super) static BUFFER_INFO_CHECKS_TYPE: AtomicBool = AtomicBool::new(false);

/// A byte view of JavaScript memory, as Node-API gave it during the current call: where it starts and how
/// many bytes it has. Valid until JavaScript runs again.
#[derive(Clone, Copy)]
struct Bytes {
    data: *mut u8,
    len: usize,
}

/// The masking key, and whether reading it may have run JavaScript (an array's element getters).
struct Key {
    bytes: [u8; 4],
    ran_javascript: bool,
}

/// The `N` arguments of the current callback (missing ones are `undefined`) and the function's data.
///
/// It holds handles that live only as long as the callback, and views are read from it only inside the
/// operations below, which run no JavaScript between reading a view and the kernel's last write.
pub(super) struct Call<const N: usize> {
    env: sys::napi_env,
    args: [sys::napi_value; N],
    data: *mut c_void,
}

impl<const N: usize> Call<N> {
    /// Reads the call's arguments; `None` if Node-API cannot (nothing useful can be done then).
    ///
    /// # Safety
    /// `env` and `info` must be the live handles of the current callback, and the `Call` must not outlive
    /// that callback.
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
        (status == sys::Status::napi_ok).then_some(Call { env, args, data })
    }

    pub(super) fn env(&self) -> sys::napi_env {
        self.env
    }

    /// Argument `index`, unread.
    pub(super) fn argument(&self, index: usize) -> sys::napi_value {
        self.args[index]
    }

    /// The data pointer the function was made with.
    pub(super) fn data(&self) -> *mut c_void {
        self.data
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
        if status != sys::Status::napi_ok {
            return None;
        }
        core::str::from_utf8(&buffer[..len]).ok().map(str::to_owned)
    }

    /// The bytes of argument `index`, any ArrayBufferView, or a `TypeError` naming `name`.
    #[inline(always)]
    fn view(&self, index: usize, name: &str) -> ArgResult<Bytes> {
        let value = self.args[index];
        match self.buffer_info(value) {
            Some(view) => Ok(view),
            None => self
                .other_view(value)
                .ok_or_else(|| not_a_view(name, &self.received(value))),
        }
    }

    /// The bytes of `value` by `napi_get_buffer_info`, which Node answers for every ArrayBufferView;
    /// anything else gets `None` (see [`BUFFER_INFO_CHECKS_TYPE`] for how older Node is kept from aborting).
    #[inline(always)]
    fn buffer_info(&self, value: sys::napi_value) -> Option<Bytes> {
        if !BUFFER_INFO_CHECKS_TYPE.load(Ordering::Relaxed) {
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
        (status == sys::Status::napi_ok).then_some(Bytes {
            data: data.cast(),
            len,
        })
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
                let mut kind = 0;
                let mut length = 0usize;
                let status = sys::napi_get_typedarray_info(
                    self.env,
                    value,
                    &mut kind,
                    &mut length,
                    &mut data,
                    ptr::null_mut(),
                    ptr::null_mut(),
                );
                let size = element_size(kind)?;
                len = length.checked_mul(size)?;
                (status == sys::Status::napi_ok).then_some(())?;
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
        Some(Bytes {
            data: data.cast(),
            len,
        })
    }

    /// Argument `index` as a byte count or index: a number that is a safe integer >= 0.
    #[inline(always)]
    fn index(&self, index: usize, name: &str) -> ArgResult<usize> {
        let number = self.number(self.args[index], name, "argument")?;
        Ok(checked_integer(number, name, &INDEX)? as usize)
    }

    /// The number `value` holds, or a `TypeError` for anything else (no conversion runs).
    #[inline(always)]
    fn number(&self, value: sys::napi_value, name: &str, noun: &str) -> ArgResult<f64> {
        let mut number = 0f64;
        // SAFETY: `number` is a valid place for the result; the handles are live for this callback.
        let status = unsafe { sys::napi_get_value_double(self.env, value, &mut number) };
        if status == sys::Status::napi_ok {
            Ok(number)
        } else {
            Err(not_a_number(name, noun, &self.received(value)))
        }
    }

    /// Argument `view` as bytes, then argument `key` as the key: in that order, the order of their errors.
    /// If reading the key ran JavaScript (an array key's getters), the view is read again, since they may
    /// have detached or shrunk it.
    #[inline(always)]
    fn view_then_key(&self, view: usize, name: &str, key: usize) -> ArgResult<(Bytes, [u8; 4])> {
        let bytes = self.view(view, name)?;
        let key = self.key(key)?;
        let bytes = if key.ran_javascript {
            self.view(view, name)?
        } else {
            bytes
        };
        Ok((bytes, key.bytes))
    }

    /// The masking key: the first 4 bytes of an ArrayBufferView, or an array of 4 integers 0..=255.
    #[inline(always)]
    fn key(&self, index: usize) -> ArgResult<Key> {
        let value = self.args[index];
        match self.buffer_info(value) {
            Some(view) => key_of_view(view),
            None => self.key_of_other(value),
        }
    }

    /// The key from a view that `napi_get_buffer_info` refused, or from an array of 4 integers.
    #[cold]
    fn key_of_other(&self, value: sys::napi_value) -> ArgResult<Key> {
        let mut is_array = false;
        // SAFETY: `is_array` is a valid place for the result; the handles are live for this callback.
        let status = unsafe { sys::napi_is_array(self.env, value, &mut is_array) };
        if status != sys::Status::napi_ok || !is_array {
            return match self.other_view(value) {
                Some(view) => key_of_view(view),
                None => Err(not_a_key(&self.received(value))),
            };
        }
        let mut length = 0u32;
        // SAFETY: `value` is an array; `length` is a valid place for the result.
        unsafe { sys::napi_get_array_length(self.env, value, &mut length) };
        if length != 4 {
            return Err(key_array_length(length));
        }
        let mut key = [0u8; 4];
        for (index, byte) in (0u32..).zip(key.iter_mut()) {
            let mut element = ptr::null_mut();
            // SAFETY: `element` is a valid place for the result. This may run a getter, hence `Pending`.
            let status = unsafe { sys::napi_get_element(self.env, value, index, &mut element) };
            if status != sys::Status::napi_ok {
                return Err(ArgError::Pending);
            }
            let name = ["mask[0]", "mask[1]", "mask[2]", "mask[3]"][index as usize];
            let number = self.number(element, name, "element")?;
            *byte = checked_integer(number, name, &KEY_ELEMENT)? as u8;
        }
        Ok(Key {
            bytes: key,
            ran_javascript: true,
        })
    }

    /// `" Received …"`, describing `value` the way Node's own argument errors do, briefly.
    #[cold]
    fn received(&self, value: sys::napi_value) -> String {
        let mut kind = 0;
        // SAFETY: `kind` is a valid place for the result; the handles are live for this callback.
        if unsafe { sys::napi_typeof(self.env, value, &mut kind) } != sys::Status::napi_ok {
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
            _ => return format!(" Received an instance of {}", self.object_kind(value)),
        };
        format!(" Received type {name}")
    }

    /// What kind of object `value` is, for the kinds a caller may mistake for a view, told by the
    /// engine's own brand checks (no getter or Proxy trap runs); `another type` for the rest.
    #[cold]
    fn object_kind(&self, value: sys::napi_value) -> &'static str {
        let (mut is_array, mut is_array_buffer) = (false, false);
        // SAFETY: the handles are live for this callback; the out-pointers are valid places.
        unsafe {
            if sys::napi_is_array(self.env, value, &mut is_array) == sys::Status::napi_ok
                && is_array
            {
                return "Array";
            }
            if sys::napi_is_arraybuffer(self.env, value, &mut is_array_buffer)
                == sys::Status::napi_ok
                && is_array_buffer
            {
                return "ArrayBuffer";
            }
        }
        "another type"
    }
}

impl Call<5> {
    /// `mask(source, mask, output, offset, length)`, checked in that order.
    #[inline(always)]
    pub(super) fn mask(&self, kernel: Kernel) -> ArgResult<()> {
        let (source, key) = self.view_then_key(0, "source", 1)?;
        // Nothing from here on runs JavaScript, so the views stay as read until the kernel is done.
        let output = self.view(2, "output")?;
        let offset = self.index(3, "offset")?;
        let length = self.index(4, "length")?;
        mask_in_bounds(kernel, source, key, output, offset, length)
    }
}

impl Call<2> {
    /// `unmask(buffer, mask)`.
    #[inline(always)]
    pub(super) fn unmask(&self, kernel: Kernel) -> ArgResult<()> {
        let (buffer, key) = self.view_then_key(0, "buffer", 1)?;
        mask_whole(kernel, buffer, key);
        Ok(())
    }

    /// `maskBlock(source, output)`: `mask` with offset, length and key word from the block, checked in
    /// `mask`'s order (source, key, output, offset, length). Without a block, every number is refused.
    #[inline(always)]
    pub(super) fn mask_block(&self, kernel: Kernel, block: Option<&Block>) -> ArgResult<()> {
        let numbers = block.map_or(BlockNumbers::NONE, Block::numbers);
        let source = self.view(0, "source")?;
        let key = key_of_word(numbers.key_word)?;
        let output = self.view(1, "output")?;
        let offset = checked_integer(numbers.offset, "offset", &INDEX)? as usize;
        let length = checked_integer(numbers.length, "length", &INDEX)? as usize;
        mask_in_bounds(kernel, source, key, output, offset, length)
    }
}

impl Call<1> {
    /// `unmaskBlock(buffer)`: `unmask` with the key word from the block (refused without one).
    #[inline(always)]
    pub(super) fn unmask_block(&self, kernel: Kernel, block: Option<&Block>) -> ArgResult<()> {
        let buffer = self.view(0, "buffer")?;
        let key = key_of_word(block.map_or(f64::NAN, Block::key_word))?;
        mask_whole(kernel, buffer, key);
        Ok(())
    }
}

/// Checks `length` and `offset` against the views, then masks. Private to this module: its views come
/// from the current call, with no JavaScript run since they were read (every caller above).
#[inline(always)]
fn mask_in_bounds(
    kernel: Kernel,
    source: Bytes,
    key: [u8; 4],
    output: Bytes,
    offset: usize,
    length: usize,
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
    // SAFETY: both ranges lie inside views Node-API gave for this call (`length <= source.len`, `offset +
    // length <= output.len`), with no JavaScript run since and no reference to them; any overlap is allowed.
    unsafe { kernel.mask_raw(source.data, destination, length, key) };
    Ok(())
}

/// Masks a whole view in place: no bound to check. Private to this module, as `mask_in_bounds`.
#[inline(always)]
fn mask_whole(kernel: Kernel, view: Bytes, key: [u8; 4]) {
    if view.len != 0 {
        // SAFETY: the whole of a view Node-API gave for this call, with no JavaScript run since and no
        // reference to it; in place is within `mask_raw`'s contract.
        unsafe { kernel.mask_raw(view.data, view.data, view.len, key) };
    }
}

/// The key as one number, `key[0] | key[1] << 8 | key[2] << 16 | key[3] << 24`, signed or not.
#[inline(always)]
fn key_of_word(word: f64) -> ArgResult<[u8; 4]> {
    let word = checked_integer(word, "mask", &super::errors::KEY_WORD)?;
    Ok((word as u32).to_le_bytes())
}

/// The first 4 bytes of a view from the current call.
fn key_of_view(view: Bytes) -> ArgResult<Key> {
    if view.len < 4 {
        return Err(short_key(view.len));
    }
    // SAFETY: the view, from Node-API during this call, has at least 4 readable bytes.
    let bytes = unsafe { view.data.cast::<[u8; 4]>().read_unaligned() };
    Ok(Key {
        bytes,
        ran_javascript: false,
    })
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
