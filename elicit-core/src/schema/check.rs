//! What values a property admits: the V rules applied to one value.
//!
//! This lives beside the model because the strict parse needs it too (a `default` must
//! be valid for its own property, [D11](crate::rules#d11)); `content` applies it to every property of an
//! answer, and the typed parsers of `#[derive(Elicit)]` apply it field by field, so all
//! three agree by construction.

use std::cmp::Ordering;
use std::fmt;

use serde_json::{Number, Value};

use super::{FormatSpec, MultiSelectSchema, Options, PropertyKind, StringSchema};
use crate::format::Format;

/// One rule a value breaks.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ValidationErrorKind {
    /// A required property is absent ([V5](crate::rules#v5)).
    Missing,
    /// A present `null`: not a value, for any property ([D10](crate::rules#d10)).
    Null,
    /// The answer (the content) is not a JSON object.
    NotAnObject {
        /// The JSON type found.
        found: &'static str,
    },
    /// The value has the wrong JSON type.
    WrongType {
        /// The type the property needs.
        expected: &'static str,
        /// The JSON type found.
        found: &'static str,
    },
    /// Fewer Unicode scalar values than `minLength` ([V1](crate::rules#v1), [D6](crate::rules#d6)).
    TooShort {
        /// `minLength`.
        min: u32,
        /// The length found.
        len: usize,
    },
    /// More Unicode scalar values than `maxLength` ([V1](crate::rules#v1), [D6](crate::rules#d6)).
    TooLong {
        /// `maxLength`.
        max: u32,
        /// The length found.
        len: usize,
    },
    /// No match for `pattern` anywhere in the value ([V4](crate::rules#v4)).
    PatternMismatch {
        /// The pattern.
        pattern: String,
    },
    /// Not a valid value of the `format` ([V7](crate::rules#v7)).
    InvalidFormat {
        /// The format.
        format: Format,
    },
    /// Below the inclusive `minimum`.
    BelowMinimum {
        /// `minimum`.
        minimum: Number,
    },
    /// Above the inclusive `maximum`.
    AboveMaximum {
        /// `maximum`.
        maximum: Number,
    },
    /// Not one of the options (the option's title instead of its value is this too).
    NotAnOption {
        /// The value found.
        value: String,
        /// When the value is the title of an option, that option's value.
        did_you_mean: Option<String>,
    },
    /// A multi-select item that is not a string.
    ItemWrongType {
        /// Index in the array.
        index: usize,
        /// The JSON type found.
        found: &'static str,
    },
    /// A multi-select item that is not one of the options.
    ItemNotAnOption {
        /// Index in the array.
        index: usize,
        /// The value found.
        value: String,
    },
    /// Fewer items than `minItems` ([V6](crate::rules#v6)).
    TooFewItems {
        /// `minItems`.
        min: u64,
        /// The count found.
        len: usize,
    },
    /// More items than `maxItems` ([V6](crate::rules#v6)).
    TooManyItems {
        /// `maxItems`.
        max: u64,
        /// The count found.
        len: usize,
    },
    /// A valid JSON value that does not fit the Rust type of a typed field ([D5](crate::rules#d5)).
    OutOfTypeRange {
        /// The Rust type.
        rust_type: &'static str,
    },
    /// A key the schema does not declare, refused because the typed parser denies
    /// unknown fields ([D9](crate::rules#d9)).
    UnknownField,
    /// An answer to a form with a property whose type the client cannot show: the user
    /// never saw that field, so the form cannot be accepted ([E6](crate::rules#e6)).
    Unrenderable {
        /// The property's `type` as received.
        type_name: String,
    },
    /// A response whose `action` this crate does not know ([E6](crate::rules#e6)): not a success.
    UnknownAction {
        /// The action received.
        action: String,
    },
}

impl fmt::Display for ValidationErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use ValidationErrorKind::*;
        match self {
            Missing => f.write_str("is required but missing"),
            Null => f.write_str("is null; leave an optional field out instead of sending null"),
            NotAnObject { found } => write!(f, "the answer must be a JSON object, found {found}"),
            WrongType { expected, found } => write!(f, "must be {expected}, found {found}"),
            TooShort { min, len } => write!(
                f,
                "is {len} character{} long; at least {min} required",
                plural(*len)
            ),
            TooLong { max, len } => write!(
                f,
                "is {len} character{} long; at most {max} allowed",
                plural(*len)
            ),
            PatternMismatch { pattern } => write!(f, "does not match the pattern `{pattern}`"),
            InvalidFormat { format } => write!(f, "is not a valid {}", format_noun(*format)),
            BelowMinimum { minimum } => write!(f, "must be at least {minimum}"),
            AboveMaximum { maximum } => write!(f, "must be at most {maximum}"),
            NotAnOption {
                value,
                did_you_mean: Some(v),
            } => write!(
                f,
                "is `{value}`, an option's title; send its value `{v}` instead"
            ),
            NotAnOption { value, .. } => write!(f, "is `{value}`, which is not one of the options"),
            ItemWrongType { index, found } => {
                write!(f, "has {found} at item {index}; items must be option values (strings)")
            }
            ItemNotAnOption { index, value } => {
                write!(f, "has `{value}` at item {index}, which is not one of the options")
            }
            TooFewItems { min, len } => {
                write!(f, "has {len} item{}; choose at least {min}", plural(*len))
            }
            TooManyItems { max, len } => {
                write!(f, "has {len} item{}; choose at most {max}", plural(*len))
            }
            OutOfTypeRange { rust_type } => write!(f, "does not fit in a `{rust_type}`"),
            UnknownField => f.write_str("is not a field of this form"),
            Unrenderable { type_name } => write!(
                f,
                "has the type `{type_name}`, which this client cannot show; decline or cancel instead"
            ),
            UnknownAction { action } => write!(
                f,
                "the client answered with the unknown action `{action}`; treat it as a failure, not as an answer"
            ),
        }
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

fn format_noun(format: Format) -> &'static str {
    match format {
        Format::Email => "email address",
        Format::Uri => "absolute URI",
        Format::Date => "date (YYYY-MM-DD)",
        Format::DateTime => "RFC 3339 date-time",
    }
}

/// The JSON type of a value, as a noun phrase for messages.
pub(crate) fn json_type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(n) if n.is_f64() => "a number",
        Value::Number(_) => "an integer",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Checks one value against a property kind, reporting each broken rule to `sink`.
/// Returns whether the value was valid.
pub(crate) fn check_value(
    kind: &PropertyKind,
    value: &Value,
    sink: &mut dyn FnMut(ValidationErrorKind),
) -> bool {
    if value.is_null() {
        // D10, for every kind (an unknown type too: null is never a value).
        sink(ValidationErrorKind::Null);
        return false;
    }
    match kind {
        PropertyKind::String(s) => match value {
            Value::String(v) => check_string(s, v, sink),
            other => wrong_type("a string", other, sink),
        },
        PropertyKind::SingleSelect(s) => match value {
            Value::String(v) => check_option(&s.options, v, sink),
            other => wrong_type("a string (one of the options)", other, sink),
        },
        PropertyKind::Number(n) => match value {
            Value::Number(v) => check_bounds(
                v,
                n.minimum.and_then(Number::from_f64).as_ref(),
                n.maximum.and_then(Number::from_f64).as_ref(),
                sink,
            ),
            other => wrong_type("a number", other, sink),
        },
        PropertyKind::Integer(n) => match value {
            // V2: any number with a zero fractional part is an integer.
            Value::Number(v) if is_integer(v) => check_bounds(
                v,
                n.minimum.map(Number::from).as_ref(),
                n.maximum.map(Number::from).as_ref(),
                sink,
            ),
            other => wrong_type("an integer", other, sink),
        },
        PropertyKind::Boolean(_) => match value {
            Value::Bool(_) => true,
            other => wrong_type("a boolean", other, sink),
        },
        PropertyKind::MultiSelect(m) => match value {
            Value::Array(items) => check_items(m, items, sink),
            other => wrong_type("an array of options", other, sink),
        },
        // E6: nothing is known of an unknown type beyond "null is not a value".
        PropertyKind::Unknown(_) => true,
    }
}

fn wrong_type(
    expected: &'static str,
    found: &Value,
    sink: &mut dyn FnMut(ValidationErrorKind),
) -> bool {
    sink(ValidationErrorKind::WrongType {
        expected,
        found: json_type_name(found),
    });
    false
}

/// Whether a JSON number is an integer in JSON Schema's sense ([V2](crate::rules#v2)).
pub(crate) fn is_integer(n: &Number) -> bool {
    n.is_i64()
        || n.is_u64()
        || n.as_f64()
            .is_some_and(|f| f.is_finite() && f.fract() == 0.0)
}

pub(crate) fn check_string(
    s: &StringSchema,
    v: &str,
    sink: &mut dyn FnMut(ValidationErrorKind),
) -> bool {
    let mut ok = true;
    // V1, D6: lengths count Unicode scalar values. A string of `n` bytes holds between
    // `ceil(n / 4)` and `n` of them, so the count is needed only when those bounds do
    // not already settle both limits.
    let settled = s.max_length.is_none_or(|max| v.len() <= max as usize)
        && s.min_length
            .is_none_or(|min| v.len().div_ceil(4) >= min as usize);
    if !settled {
        let len = v.chars().count();
        if let Some(min) = s.min_length {
            if len < min as usize {
                sink(ValidationErrorKind::TooShort { min, len });
                ok = false;
            }
        }
        if let Some(max) = s.max_length {
            if len > max as usize {
                sink(ValidationErrorKind::TooLong { max, len });
                ok = false;
            }
        }
    }
    if let Some(p) = &s.pattern {
        // V4: a search, not a full match. An unusable pattern (lenient parse only) is
        // not enforced (D8) and is reported by `RequestedSchema::unenforced`.
        if let Ok(re) = p.regex() {
            if !re.is_match(v) {
                sink(ValidationErrorKind::PatternMismatch {
                    pattern: p.source().to_owned(),
                });
                ok = false;
            }
        }
    }
    if let Some(FormatSpec::Known(format)) = &s.format {
        if !format.is_valid(v) {
            sink(ValidationErrorKind::InvalidFormat { format: *format });
            ok = false;
        }
    }
    ok
}

pub(crate) fn check_option(
    options: &Options,
    v: &str,
    sink: &mut dyn FnMut(ValidationErrorKind),
) -> bool {
    if options.contains(v) {
        return true;
    }
    let did_you_mean = options
        .titled_options()
        .and_then(|o| o.iter().find(|o| o.title() == v))
        .map(|o| o.value().to_owned());
    sink(ValidationErrorKind::NotAnOption {
        value: v.to_owned(),
        did_you_mean,
    });
    false
}

fn check_items(
    m: &MultiSelectSchema,
    items: &[Value],
    sink: &mut dyn FnMut(ValidationErrorKind),
) -> bool {
    let mut ok = true;
    for (index, item) in items.iter().enumerate() {
        match item {
            Value::String(s) if m.options.contains(s) => {}
            Value::String(s) => {
                sink(ValidationErrorKind::ItemNotAnOption {
                    index,
                    value: s.clone(),
                });
                ok = false;
            }
            other => {
                sink(ValidationErrorKind::ItemWrongType {
                    index,
                    found: json_type_name(other),
                });
                ok = false;
            }
        }
    }
    ok & check_item_count(m, items.len(), sink)
}

pub(crate) fn check_item_count(
    m: &MultiSelectSchema,
    len: usize,
    sink: &mut dyn FnMut(ValidationErrorKind),
) -> bool {
    let mut ok = true;
    if let Some(min) = m.min_items {
        if (len as u64) < min {
            sink(ValidationErrorKind::TooFewItems { min, len });
            ok = false;
        }
    }
    if let Some(max) = m.max_items {
        if len as u64 > max {
            sink(ValidationErrorKind::TooManyItems { max, len });
            ok = false;
        }
    }
    ok
}

pub(crate) fn check_bounds(
    v: &Number,
    minimum: Option<&Number>,
    maximum: Option<&Number>,
    sink: &mut dyn FnMut(ValidationErrorKind),
) -> bool {
    let mut ok = true;
    if let Some(min) = minimum {
        if compare_numbers(v, min) == Ordering::Less {
            sink(ValidationErrorKind::BelowMinimum {
                minimum: min.clone(),
            });
            ok = false;
        }
    }
    if let Some(max) = maximum {
        if compare_numbers(v, max) == Ordering::Greater {
            sink(ValidationErrorKind::AboveMaximum {
                maximum: max.clone(),
            });
            ok = false;
        }
    }
    ok
}

/// Exact comparison of two JSON numbers, whatever their representation: converting a
/// large integer to a double would round and let values just past a bound through.
pub(crate) fn compare_numbers(a: &Number, b: &Number) -> Ordering {
    match (exact(a), exact(b)) {
        (Exact::Int(x), Exact::Int(y)) => x.cmp(&y),
        (Exact::Float(x), Exact::Float(y)) => x.partial_cmp(&y).unwrap_or(Ordering::Equal),
        (Exact::Int(x), Exact::Float(y)) => compare_int_float(x, y),
        (Exact::Float(x), Exact::Int(y)) => compare_int_float(y, x).reverse(),
    }
}

enum Exact {
    Int(i128),
    Float(f64),
}

fn exact(n: &Number) -> Exact {
    if let Some(i) = n.as_i64() {
        Exact::Int(i128::from(i))
    } else if let Some(u) = n.as_u64() {
        Exact::Int(i128::from(u))
    } else {
        Exact::Float(n.as_f64().unwrap_or(0.0))
    }
}

fn compare_int_float(i: i128, f: f64) -> Ordering {
    // Every i128 that comes from an i64 or u64 lies within ±2^64.
    const LIMIT: f64 = 18_446_744_073_709_551_616.0 * 2.0;
    if f.is_nan() {
        return Ordering::Equal;
    }
    if f >= LIMIT {
        return Ordering::Less;
    }
    if f <= -LIMIT {
        return Ordering::Greater;
    }
    let floor = f.floor();
    // Exact: |floor| < 2^65 fits an i128, and a float's floor is an integer.
    let fi = floor as i128;
    match i.cmp(&fi) {
        Ordering::Equal if f > floor => Ordering::Less,
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // covers: V2, V3
    #[test]
    fn integer_and_float_compare_exactly() {
        let big = Number::from(9_007_199_254_740_993_u64);
        let bound = Number::from_f64(9_007_199_254_740_992.0).unwrap();
        assert_eq!(compare_numbers(&big, &bound), Ordering::Greater);
        assert_eq!(compare_numbers(&bound, &big), Ordering::Less);
        let half = Number::from_f64(2.5).unwrap();
        assert_eq!(compare_numbers(&Number::from(2), &half), Ordering::Less);
        assert_eq!(compare_numbers(&Number::from(3), &half), Ordering::Greater);
        assert_eq!(
            compare_numbers(&Number::from(-3), &Number::from_f64(-2.5).unwrap()),
            Ordering::Less
        );
        assert_eq!(
            compare_numbers(&Number::from(u64::MAX), &Number::from_f64(1e300).unwrap()),
            Ordering::Less
        );
        assert_eq!(
            compare_numbers(&Number::from(i64::MIN), &Number::from_f64(-1e300).unwrap()),
            Ordering::Greater
        );
        assert_eq!(
            compare_numbers(&Number::from(7), &Number::from_f64(7.0).unwrap()),
            Ordering::Equal
        );
    }

    // covers: V2
    #[test]
    fn integers_include_zero_fraction_floats() {
        assert!(is_integer(&Number::from_f64(3.0).unwrap()));
        assert!(is_integer(&Number::from_f64(1e300).unwrap()));
        assert!(!is_integer(&Number::from_f64(3.5).unwrap()));
        assert!(is_integer(&Number::from(u64::MAX)));
    }

    // covers: V1, D6
    #[test]
    fn lengths_skip_the_count_only_when_the_byte_length_settles_it() {
        let texts = [
            "",
            "a",
            "ab",
            "é",
            "éé",
            "€€€",
            "𝄞",
            "𝄞𝄞",
            "a𝄞é€",
            "abcdefgh",
            "𝄞𝄞𝄞𝄞𝄞",
        ];
        for text in texts {
            let len = text.chars().count() as u32;
            for min in (0..=9).map(Some).chain([None]) {
                for max in (0..=9).map(Some).chain([None]) {
                    let schema = StringSchema {
                        min_length: min,
                        max_length: max,
                        ..StringSchema::default()
                    };
                    let expected = min.is_none_or(|m| len >= m) && max.is_none_or(|m| len <= m);
                    let mut reported = Vec::new();
                    let ok = check_string(&schema, text, &mut |v| reported.push(v));
                    assert_eq!(ok, expected, "{text:?} with {min:?}..{max:?}");
                    assert_eq!(reported.is_empty(), expected);
                }
            }
        }
    }
}
