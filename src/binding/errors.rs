//! What a refused call throws: the kinds of error, their words (the same on every tier: `lib/checks.js`
//! words them for JavaScript), and numbers printed exactly as JavaScript prints them. Everything here is
//! cold: the hot path only compares, and formats nothing unless it throws.

use core::ffi::c_char;
use core::ops::RangeInclusive;
use std::ffi::CString;

use napi::bindgen_prelude::sys;

pub(super) const MAX_SAFE_INTEGER: f64 = 9_007_199_254_740_991.0;
/// What `offset` and `length` must be.
pub(super) const INDEX: (RangeInclusive<f64>, &str) = (
    0.0..=MAX_SAFE_INTEGER,
    "an integer >= 0 and <= 9007199254740991",
);
/// What a key word (the key's 4 bytes as one integer, signed or not) must be.
pub(super) const KEY_WORD: (RangeInclusive<f64>, &str) =
    (-2_147_483_648.0..=4_294_967_295.0, "a 32-bit integer");
/// What each element of an array key must be.
pub(super) const KEY_ELEMENT: (RangeInclusive<f64>, &str) =
    (0.0..=255.0, "an integer >= 0 and <= 255");

/// Why a call was refused.
pub(super) enum ArgError {
    /// `TypeError`, `ERR_INVALID_ARG_TYPE`.
    Type(String),
    /// `RangeError`, `ERR_OUT_OF_RANGE`.
    Range(String),
    /// JavaScript already threw (a getter on the key array did): return and let it propagate.
    Pending,
}

pub(super) type ArgResult<T> = Result<T, ArgError>;

/// `number` as an integer, if it is one within `range`; otherwise a `RangeError` naming it.
#[inline(always)]
pub(super) fn checked_integer(
    number: f64,
    name: &str,
    (range, expected): &(RangeInclusive<f64>, &str),
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

/// A number argument that is no number; `received` is [`super::args`]'s ` Received …`.
#[cold]
pub(super) fn not_a_number(name: &str, noun: &str, received: &str) -> ArgError {
    ArgError::Type(format!(
        "The \"{name}\" {noun} must be of type number.{received}"
    ))
}

#[cold]
pub(super) fn not_a_view(name: &str, received: &str) -> ArgError {
    ArgError::Type(format!(
        "The \"{name}\" argument must be an instance of Buffer, TypedArray, or DataView.{received}"
    ))
}

#[cold]
pub(super) fn not_a_key(received: &str) -> ArgError {
    ArgError::Type(format!(
        "The \"mask\" argument must be an instance of Buffer, TypedArray, DataView, or an Array of 4 integers.{received}"
    ))
}

#[cold]
pub(super) fn short_key(bytes: usize) -> ArgError {
    ArgError::Type(format!(
        "The \"mask\" argument must have at least 4 bytes. Received {bytes} bytes"
    ))
}

#[cold]
pub(super) fn key_array_length(length: u32) -> ArgError {
    ArgError::Type(format!(
        "The \"mask\" array must have 4 elements. Received {length}"
    ))
}

/// The error for a `length` or `offset` out of the views' bounds; out of line, so the checks cost the
/// hot path a few compares (formatting inline cost it 3–4 ns a call).
#[cold]
#[inline(never)]
pub(super) fn bounds_error(
    source_len: usize,
    output_len: usize,
    offset: usize,
    length: usize,
) -> ArgError {
    if length > source_len || length > output_len {
        // Named after the smaller bound it broke: a detached output is no "offset" problem.
        let (bound, len) = if source_len <= output_len {
            ("source.byteLength", source_len)
        } else {
            ("output.byteLength", output_len)
        };
        return ArgError::Range(format!(
            "The value of \"length\" is out of range. It must be <= {bound} ({len}). Received {length}"
        ));
    }
    ArgError::Range(format!(
        "The value of \"offset\" is out of range. It must be <= output.byteLength - length ({}). Received {offset}",
        output_len - length
    ))
}

/// Throws what `error` says (nothing for `Pending`, whose exception is already pending).
///
/// # Safety
/// `env` must be live for the current callback.
#[cold]
pub(super) unsafe fn throw(env: sys::napi_env, error: ArgError) {
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

/// A number as JavaScript's `String(number)` prints it (ECMA-262 Number::toString): the fewest digits
/// that read back as `number`, the nearest to it of those, the even one on a tie; positional from 1e-6 up
/// to 1e21, exponent form outside.
pub(super) fn js_number(number: f64) -> String {
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
    if number == 0.0 {
        return "0".into();
    }
    let sign = if number < 0.0 { "-" } else { "" };
    let (digits, point) = shortest_digits(number.abs());
    // `digits` × 10^(point - k): k = digits.len(), as `n` in the specification is `point`.
    let k = digits.len() as i32;
    let n = point;
    let body = if k <= n && n <= 21 {
        format!("{digits}{}", "0".repeat((n - k) as usize))
    } else if 0 < n && n <= 21 {
        format!("{}.{}", &digits[..n as usize], &digits[n as usize..])
    } else if -6 < n && n <= 0 {
        format!("0.{}{digits}", "0".repeat((-n) as usize))
    } else {
        let exponent = n - 1;
        let sign = if exponent < 0 { '-' } else { '+' };
        let mantissa = if k == 1 {
            digits.clone()
        } else {
            format!("{}.{}", &digits[..1], &digits[1..])
        };
        format!("{mantissa}e{sign}{}", exponent.abs())
    };
    format!("{sign}{body}")
}

/// The digits of a finite positive `number` as JavaScript chooses them, and where the decimal point
/// goes: `0.d1d2… × 10^point`. Rust's shortest form has the fewest digits too, but on an exact tie
/// between two nearest candidates it may pick the odd one; this picks as the specification does.
fn shortest_digits(number: f64) -> (String, i32) {
    // Rust's shortest: how many digits are needed (never fewer than JavaScript needs).
    let shortest = format!("{number:e}");
    let (mantissa, exponent) = shortest.split_once('e').unwrap_or((&shortest, "0"));
    let exponent: i32 = exponent.parse().unwrap_or(0);
    let rust_digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let k = rust_digits.len();
    // The exact value, far past any double's last digit (767 significant digits at most).
    let exact = format!("{number:.800e}");
    let (exact_mantissa, exact_exponent) = exact.split_once('e').unwrap_or((&exact, "0"));
    let exact_exponent: i32 = exact_exponent.parse().unwrap_or(0);
    let exact_digits: Vec<u8> = exact_mantissa
        .bytes()
        .filter(u8::is_ascii_digit)
        .map(|byte| byte - b'0')
        .collect();
    if exact_exponent != exponent || exact_digits.len() <= k {
        // The shortest rounded up to the next power of ten (9.99… → 1e…): no tie to break there.
        return (rust_digits, exponent + 1);
    }
    // The k-digit numbers just below and just above the exact value, and how the rest compares with half.
    let (head, rest) = exact_digits.split_at(k);
    if rest.iter().all(|&digit| digit == 0) {
        return (rust_digits, exponent + 1);
    }
    let below: String = head.iter().map(|&digit| char::from(b'0' + digit)).collect();
    let above = increment(&below);
    let half = rest[0].cmp(&5).then_with(|| {
        if rest[1..].iter().any(|&digit| digit != 0) {
            core::cmp::Ordering::Greater
        } else {
            core::cmp::Ordering::Equal
        }
    });
    let reads_back = |digits: &str, point: i32| {
        format!("{digits}e{}", point - digits.len() as i32).parse::<f64>() == Ok(number)
    };
    let point = exponent + 1;
    let (above_digits, above_point) = match above {
        Some(digits) => (digits, point),
        None => (format!("1{}", "0".repeat(k - 1)), point + 1),
    };
    let below_ok = reads_back(&below, point);
    let above_ok = reads_back(&above_digits, above_point);
    let pick_below = match (below_ok, above_ok) {
        (true, false) => true,
        (false, true) => false,
        (true, true) => match half {
            core::cmp::Ordering::Less => true,
            core::cmp::Ordering::Greater => false,
            core::cmp::Ordering::Equal => (head[k - 1] & 1) == 0,
        },
        (false, false) => return (rust_digits, point),
    };
    let (digits, point) = if pick_below {
        (below, point)
    } else {
        (above_digits, above_point)
    };
    (trim_zeros(digits), point)
}

/// `digits` + 1 in the last place, or `None` when it carries out of all of them (999 → 1000).
fn increment(digits: &str) -> Option<String> {
    let mut bytes = digits.as_bytes().to_vec();
    for byte in bytes.iter_mut().rev() {
        if *byte == b'9' {
            *byte = b'0';
        } else {
            *byte += 1;
            return String::from_utf8(bytes).ok();
        }
    }
    None
}

/// Trailing zeros carry no digit of the significand (`point` already places them).
fn trim_zeros(digits: String) -> String {
    let trimmed = digits.trim_end_matches('0');
    if trimmed.is_empty() {
        "0".into()
    } else {
        trimmed.into()
    }
}

#[cfg(test)]
mod tests {
    use super::js_number;

    #[test]
    fn numbers_print_as_javascript_prints_them() {
        // Each right-hand side is what `String(number)` gives in V8.
        let cases: [(f64, &str); 17] = [
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
            (123456789012345680000.0, "123456789012345680000"),
            (-2.5e-300, "-2.5e-300"),
            (1.7976931348623157e308, "1.7976931348623157e+308"),
            // Exactly halfway between …812 and …813 at 16 digits: JavaScript takes the even one.
            (91880792.23632812, "91880792.23632812"),
            (0.1 + 0.2, "0.30000000000000004"),
        ];
        for (number, printed) in cases {
            assert_eq!(js_number(number), printed, "{number:?}");
        }
    }
}
