//! The block: 24 bytes where `lib/tiers/native.js` leaves the offset, length and key word of its next
//! `maskBlock` call, so that the addon reads them with a memory load each instead of a Node-API call each.
//!
//! The addon keeps a pointer to the block between calls, so it takes only a Float64Array over a
//! SharedArrayBuffer, which can be neither detached nor transferred (an ArrayBuffer's memory moves on
//! `transfer()` or `postMessage`, freed with its new owner), and reads the doubles with atomic loads (another
//! thread may write them at any time). Whatever is read is checked after, as any argument is.

use core::ffi::c_void;
use core::ptr;
use core::sync::atomic::{AtomicU64, Ordering};

use napi_sys as sys;

const SLOTS: usize = 3;

/// Three doubles, as `lib/tiers/native.js` writes them through a Float64Array: offset, length, key word.
#[repr(C, align(8))]
pub(super) struct Block {
    slots: [AtomicU64; SLOTS],
}

impl Block {
    /// Offset, length and key word, as they are now, unchecked.
    #[inline(always)]
    pub(super) fn numbers(&self) -> [f64; SLOTS] {
        self.slots.each_ref().map(|slot| f64::from_bits(slot.load(Ordering::Relaxed)))
    }
}

/// The block in `view`, if it is a Float64Array of at least 3 elements over a SharedArrayBuffer; then a
/// strong reference to that SharedArrayBuffer keeps its memory alive until the environment ends (Node-API
/// frees what references are left then), and so the block lives as long as any call that reads it.
///
/// # Safety
/// `env` and `view` must be live handles of the current callback.
pub(super) unsafe fn adopt(env: sys::napi_env, view: sys::napi_value) -> Option<*const Block> {
    let (mut is_typed_array, mut is_array_buffer) = (false, false);
    let (mut kind, mut length, mut data, mut buffer) =
        (0, 0usize, ptr::null_mut::<c_void>(), ptr::null_mut());
    let mut reference = ptr::null_mut();
    // SAFETY: the handles are live (the caller's contract); every out-pointer is a valid place, the
    // unwanted byte offset is null, which Node-API allows.
    let shared = unsafe {
        sys::napi_is_typedarray(env, view, &mut is_typed_array) == sys::Status::napi_ok
            && is_typed_array
            && sys::napi_get_typedarray_info(
                env,
                view,
                &mut kind,
                &mut length,
                &mut data,
                &mut buffer,
                ptr::null_mut(),
            ) == sys::Status::napi_ok
            && kind == sys::TypedarrayType::float64_array
            && length >= SLOTS
            && !data.is_null()
            && (data as usize).is_multiple_of(align_of::<Block>())
            // A TypedArray's buffer that is no ArrayBuffer is a SharedArrayBuffer.
            && sys::napi_is_arraybuffer(env, buffer, &mut is_array_buffer) == sys::Status::napi_ok
            && !is_array_buffer
            && sys::napi_create_reference(env, buffer, 1, &mut reference) == sys::Status::napi_ok
    };
    shared.then_some(data.cast::<Block>().cast_const())
}
