//! The Node-API layer: the module's exports, `bind(level)` and the functions it makes, as raw Node-API
//! callbacks (napi-derive's argument glue costs 100–200 ns a call, more than bufferutil's whole 16-byte
//! mask). Every argument is checked before the kernel runs; a bad one throws a `TypeError` or
//! `RangeError` (with Node's `code`s) and nothing is written. No path panics: a panic across the boundary
//! would abort the process.
//!
//! ```text
//! init (once per environment that loads the addon)  -> { bind }, an Environment
//! bind(level) -> the environment's object for that level, made once:
//!     { mask, unmask, maskBlock, unmaskBlock, useBlock, kernelLevel, backend }
//!     each function's data: its Binding = the level's Kernel + the Environment
//! mask / unmask          every argument read through Node-API (args.rs), then the kernel
//! maskBlock / unmaskBlock  views as arguments, numbers from the environment's block (block.rs)
//! ```
//!
//! - `args.rs`: one call's arguments, read and checked; the operations themselves.
//! - `errors.rs`: the error words and numbers printed as JavaScript prints them.
//! - `block.rs`: the block, and why it must be a view of a SharedArrayBuffer.

mod args;
mod block;
mod errors;

use core::cell::{Cell, RefCell};
use core::ffi::{c_void, CStr};
use core::ptr;
use core::sync::atomic::Ordering;

use napi::bindgen_prelude::{sys, Env, Object};
use napi::JsValue;
use napi_derive::napi;

use self::args::{Call, BUFFER_INFO_CHECKS_TYPE};
use self::block::Block;
use self::errors::{throw, ArgResult};
use crate::kernel::{Kernel, Level};

type Callback = unsafe extern "C" fn(sys::napi_env, sys::napi_callback_info) -> sys::napi_value;

/// A level's binding and a strong reference to the object `bind` made for it.
type Bound = (Box<Binding>, sys::napi_ref);

/// What one environment's functions share: one object per level `bind` was asked for, and the block.
/// Made by `init`, freed at the environment's end, after its last call.
struct Environment {
    /// Per `Level::index`: the level's binding and a strong reference to its object.
    bound: RefCell<[Option<Bound>; Level::ALL.len()]>,
    /// The block `useBlock` adopted, once per environment; null until then.
    block: Cell<*const Block>,
}

impl Environment {
    /// The environment's block, if `useBlock` adopted one.
    #[inline(always)]
    fn block(&self) -> Option<&Block> {
        // SAFETY: a non-null pointer is a block `block::adopt` accepted, whose SharedArrayBuffer a
        // reference keeps alive until the environment ends, after its last call.
        unsafe { self.block.get().as_ref() }
    }
}

/// The data of every function `bind` made for one level: what its calls run on.
struct Binding {
    kernel: Kernel,
    environment: *const Environment,
    /// The environment's block, copied here when it is adopted so that a call reads it in one step.
    block: Cell<*const Block>,
}

impl Binding {
    /// The current call of a function `bound_object` made, and that function's binding; `None` when
    /// Node-API cannot read the call (nothing useful can be done then).
    ///
    /// # Safety
    /// `env` and `info` must be the live handles of a callback of a function `bound_object` made, and
    /// neither result may outlive that callback.
    #[inline(always)]
    unsafe fn call<'a, const N: usize>(
        env: sys::napi_env,
        info: sys::napi_callback_info,
    ) -> Option<(Call<N>, &'a Binding)> {
        // SAFETY: the caller's contract.
        let call = unsafe { Call::<N>::new(env, info) }?;
        // SAFETY: the function's data is its Binding (the caller's contract), which is freed with its
        // environment, after the function's last call.
        let binding = unsafe { &*call.data().cast::<Binding>() };
        Some((call, binding))
    }

    /// The environment's block, if `useBlock` adopted one.
    #[inline(always)]
    fn block(&self) -> Option<&Block> {
        // SAFETY: as in `Environment::block`, whose pointer this is a copy of.
        unsafe { self.block.get().as_ref() }
    }

    fn environment(&self) -> &Environment {
        // SAFETY: a Binding lives inside its Environment's `bound`, so the Environment outlives it.
        unsafe { &*self.environment }
    }
}

#[napi(module_exports)]
pub fn init(exports: Object, env: Env) -> napi::Result<()> {
    let (env, exports) = (env.raw(), exports.raw());
    // SAFETY: `env` is the live handle Node passed to the module's init.
    BUFFER_INFO_CHECKS_TYPE.store(unsafe { buffer_info_checks_type(env) }, Ordering::Relaxed);
    let environment = Box::into_raw(Box::new(Environment {
        bound: RefCell::new(Default::default()),
        block: Cell::new(ptr::null()),
    }));
    // SAFETY: `environment` is a live allocation that only the hook takes back, at the environment's end.
    let status =
        unsafe { sys::napi_add_env_cleanup_hook(env, Some(free_environment), environment.cast()) };
    if status != sys::Status::napi_ok {
        // SAFETY: no hook holds it and nothing else has seen it yet.
        drop(unsafe { Box::from_raw(environment) });
        return check(status);
    }
    // SAFETY: the handles are live; `environment` lives until the environment's end, after the last call.
    unsafe { export_function(env, exports, c"bind", bind_callback, environment.cast()) }
}

/// # Safety
/// Called once, by Node-API at the environment's end, with the `Environment` `init` made.
unsafe extern "C" fn free_environment(data: *mut c_void) {
    // SAFETY: the caller's contract. The references it holds go with the environment: Node-API frees
    // what is left of them at its end.
    drop(unsafe { Box::from_raw(data.cast::<Environment>()) });
}

/// `bind(level)`: this environment's functions running at the widest level this CPU has, at most `level`
/// (a level name, any case; anything else means no cap). One object per level and environment, made on
/// the first call and returned again after, so binding costs nothing past six objects however often it
/// is called. `lib/native.js` calls it once with `BUFFERUTIL_SIMD_LEVEL`.
///
/// # Safety
/// Called by Node-API only, with live `env` and `info`, on the function `init` made.
unsafe extern "C" fn bind_callback(
    env: sys::napi_env,
    info: sys::napi_callback_info,
) -> sys::napi_value {
    // SAFETY: Node-API passed live handles; the Call ends with this callback.
    let Some(call) = (unsafe { Call::<1>::new(env, info) }) else {
        return ptr::null_mut();
    };
    let cap = call
        .short_string(0)
        .and_then(|name| Level::from_name(&name));
    let kernel = Kernel::best(cap);
    // SAFETY: `bind`'s data is the Environment, which lives until the environment's end.
    let environment = unsafe { &*call.data().cast::<Environment>() };
    // SAFETY: the handles are live for this callback.
    match unsafe { bound_object(env, environment, kernel) } {
        Ok(object) => object,
        Err(error) => {
            let message = std::ffi::CString::new(error.reason).unwrap_or_default();
            // SAFETY: `env` is live and `message` NUL-terminated; a failed throw leaves `undefined`.
            unsafe { sys::napi_throw_error(env, ptr::null(), message.as_ptr()) };
            ptr::null_mut()
        }
    }
}

/// The environment's object for `kernel`'s level: the one made before, or a new one, kept.
///
/// # Safety
/// `env` must be the live handle of the current callback, and `environment` this environment's.
unsafe fn bound_object(
    env: sys::napi_env,
    environment: &Environment,
    kernel: Kernel,
) -> napi::Result<sys::napi_value> {
    let slot = kernel.level().index();
    let mut object = ptr::null_mut();
    if let Some((_, reference)) = &environment.bound.borrow()[slot] {
        // SAFETY: the handles are live; `object` is a valid place; the reference is strong.
        check(unsafe { sys::napi_get_reference_value(env, *reference, &mut object) })?;
        return Ok(object);
    }
    let binding = Box::new(Binding {
        kernel,
        environment,
        block: Cell::new(environment.block.get()),
    });
    let data = ptr::from_ref::<Binding>(&binding)
        .cast_mut()
        .cast::<c_void>();
    let functions: [(&CStr, Callback); 6] = [
        (c"mask", mask_callback),
        (c"unmask", unmask_callback),
        (c"maskBlock", mask_block_callback),
        (c"unmaskBlock", unmask_block_callback),
        (c"useBlock", use_block_callback),
        (c"kernelLevel", kernel_level_callback),
    ];
    let mut reference = ptr::null_mut();
    // SAFETY: the handles are live; `data` points into the box, which `bound` keeps until the
    // environment's end, after the functions' last call; the out-pointers are valid places.
    unsafe {
        check(sys::napi_create_object(env, &mut object))?;
        for (name, callback) in functions {
            export_function(env, object, name, callback, data)?;
        }
        let backend = string(env, kernel.level().name())?;
        check(sys::napi_set_named_property(
            env,
            object,
            c"backend".as_ptr(),
            backend,
        ))?;
        check(sys::napi_create_reference(env, object, 1, &mut reference))?;
    }
    environment.bound.borrow_mut()[slot] = Some((binding, reference));
    Ok(object)
}

/// `mask(source, mask, output, offset, length)`.
///
/// # Safety
/// Called by Node-API only, with live `env` and `info`, on a function `bound_object` made.
unsafe extern "C" fn mask_callback(
    env: sys::napi_env,
    info: sys::napi_callback_info,
) -> sys::napi_value {
    // SAFETY: the caller's contract.
    unsafe { run::<5>(env, info, |call, binding| call.mask(binding.kernel)) }
}

/// `unmask(buffer, mask)`.
///
/// # Safety
/// Called by Node-API only, with live `env` and `info`, on a function `bound_object` made.
unsafe extern "C" fn unmask_callback(
    env: sys::napi_env,
    info: sys::napi_callback_info,
) -> sys::napi_value {
    // SAFETY: the caller's contract.
    unsafe { run::<2>(env, info, |call, binding| call.unmask(binding.kernel)) }
}

/// `maskBlock(source, output)`: `mask` with offset, length and key word from the block, which spares
/// three Node-API calls (~12 ns on mask). Without a block, `mask`'s errors for a missing argument.
///
/// # Safety
/// Called by Node-API only, with live `env` and `info`, on a function `bound_object` made.
unsafe extern "C" fn mask_block_callback(
    env: sys::napi_env,
    info: sys::napi_callback_info,
) -> sys::napi_value {
    // SAFETY: the caller's contract.
    unsafe {
        run::<2>(env, info, |call, binding| {
            call.mask_block(binding.kernel, binding.block())
        })
    }
}

/// `unmaskBlock(buffer)`: `unmask` with the key word from the block. Not faster than a number argument on
/// Node, but it lets `index.js` keep one way of passing numbers.
///
/// # Safety
/// Called by Node-API only, with live `env` and `info`, on a function `bound_object` made.
unsafe extern "C" fn unmask_block_callback(
    env: sys::napi_env,
    info: sys::napi_callback_info,
) -> sys::napi_value {
    // SAFETY: the caller's contract.
    unsafe {
        run::<1>(env, info, |call, binding| {
            call.unmask_block(binding.kernel, binding.block())
        })
    }
}

/// `useBlock(view)`: adopts `view` as this environment's block if it is the first asked for in the
/// environment and a Float64Array of 4 or more over a SharedArrayBuffer (see `block.rs`); says whether it
/// did. `index.js` offers its own right after `bind`.
///
/// # Safety
/// Called by Node-API only, with live `env` and `info`, on a function `bound_object` made.
unsafe extern "C" fn use_block_callback(
    env: sys::napi_env,
    info: sys::napi_callback_info,
) -> sys::napi_value {
    // SAFETY: the caller's contract; neither outlives this callback.
    let Some((call, binding)) = (unsafe { Binding::call::<1>(env, info) }) else {
        return ptr::null_mut();
    };
    let environment = binding.environment();
    // SAFETY (in the match): the handles are live for this callback.
    let adopted = environment.block().is_none()
        && match unsafe { block::adopt(env, call.argument(0)) } {
            Some(block) => {
                environment.block.set(block);
                for (binding, _) in environment.bound.borrow().iter().flatten() {
                    binding.block.set(block);
                }
                true
            }
            None => false,
        };
    let mut value = ptr::null_mut();
    // SAFETY: `env` is live; `value` is a valid place for the result.
    unsafe { sys::napi_get_boolean(env, adopted, &mut value) };
    value
}

/// `kernelLevel()`: the level this object's callbacks run at, read from the same data they use (what
/// the worker tests check `backend` against).
///
/// # Safety
/// Called by Node-API only, with live `env` and `info`, on a function `bound_object` made.
unsafe extern "C" fn kernel_level_callback(
    env: sys::napi_env,
    info: sys::napi_callback_info,
) -> sys::napi_value {
    // SAFETY: the caller's contract; neither outlives this callback.
    let Some((_, binding)) = (unsafe { Binding::call::<0>(env, info) }) else {
        return ptr::null_mut();
    };
    let name = binding.kernel.level().name();
    // SAFETY: `env` is live for this callback.
    unsafe { string(env, name) }.unwrap_or(ptr::null_mut())
}

/// Runs `operation` on the current call with its function's binding, and throws what it refused.
///
/// # Safety
/// `env` and `info` must be the live handles of a callback of a function `bound_object` made, taking `N`
/// arguments.
#[inline(always)]
unsafe fn run<const N: usize>(
    env: sys::napi_env,
    info: sys::napi_callback_info,
    operation: impl FnOnce(&Call<N>, &Binding) -> ArgResult<()>,
) -> sys::napi_value {
    // SAFETY: the caller's contract; neither outlives this callback.
    let Some((call, binding)) = (unsafe { Binding::call::<N>(env, info) }) else {
        return ptr::null_mut();
    };
    if let Err(error) = operation(&call, binding) {
        // SAFETY: `env` is live for this callback.
        unsafe { throw(call.env(), error) };
    }
    ptr::null_mut()
}

/// Whether `napi_get_buffer_info` answers a non-view with a status here (see [`BUFFER_INFO_CHECKS_TYPE`]).
/// A runtime that does not say its Node version is not trusted.
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
/// `env` and `target` must be live handles of the current call into the addon, and `data` must be what
/// `callback` expects, alive as long as the function can be called.
unsafe fn export_function(
    env: sys::napi_env,
    target: sys::napi_value,
    name: &CStr,
    callback: Callback,
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
            target,
            name.as_ptr(),
            function,
        ))
    }
}

/// # Safety
/// `env` must be the live handle of the current call into the addon.
unsafe fn string(env: sys::napi_env, text: &str) -> napi::Result<sys::napi_value> {
    let mut value = ptr::null_mut();
    // SAFETY: `env` is live; `text` is valid for its length; `value` is a valid place for the result.
    check(unsafe {
        sys::napi_create_string_utf8(env, text.as_ptr().cast(), text.len() as isize, &mut value)
    })?;
    Ok(value)
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
