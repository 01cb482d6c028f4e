//! The values and properties the binding makes: strings, numbers, and properties defined (not set, so no
//! setter on a prototype runs) with the attributes an assignment would give.

use core::ffi::{c_void, CStr};
use core::ptr;

use napi_sys as sys;

use super::Callback;

/// A writable, enumerable, configurable property, as an assignment would make it.
const PROPERTY: sys::napi_property_attributes = sys::PropertyAttributes::writable
    | sys::PropertyAttributes::enumerable
    | sys::PropertyAttributes::configurable;

/// A method property: `callback` with `data`.
pub(super) fn method(
    name: &'static CStr,
    callback: Callback,
    data: *mut c_void,
) -> sys::napi_property_descriptor {
    sys::napi_property_descriptor { method: Some(callback), data, ..value(name, ptr::null_mut()) }
}

/// A value property.
pub(super) fn value(name: &'static CStr, value: sys::napi_value) -> sys::napi_property_descriptor {
    sys::napi_property_descriptor {
        utf8name: name.as_ptr(),
        name: ptr::null_mut(),
        method: None,
        getter: None,
        setter: None,
        value,
        attributes: PROPERTY,
        data: ptr::null_mut(),
    }
}

/// # Safety
/// `env` must be the live handle of the current call into the addon.
pub(super) unsafe fn string(
    env: sys::napi_env,
    text: &str,
) -> Result<sys::napi_value, sys::napi_status> {
    let mut value = ptr::null_mut();
    // SAFETY: `env` is live; `text` is valid for its length; `value` is a valid place for the result.
    check(unsafe {
        sys::napi_create_string_utf8(env, text.as_ptr().cast(), text.len() as isize, &mut value)
    })?;
    Ok(value)
}

/// # Safety
/// `env` must be the live handle of the current call into the addon.
pub(super) unsafe fn number(
    env: sys::napi_env,
    number: u32,
) -> Result<sys::napi_value, sys::napi_status> {
    let mut value = ptr::null_mut();
    // SAFETY: `env` is live; `value` is a valid place for the result.
    check(unsafe { sys::napi_create_uint32(env, number, &mut value) })?;
    Ok(value)
}

/// The status of a Node-API call as a `Result`, for `?`.
pub(super) fn check(status: sys::napi_status) -> Result<(), sys::napi_status> {
    (status == sys::Status::napi_ok).then_some(()).ok_or(status)
}
