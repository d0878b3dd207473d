//! Typed forms: the [`Elicit`] trait that `#[derive(Elicit)]` implements, the field
//! traits that map Rust types to property kinds, and [`Elicited`].
//!
//! The derive never looks at type names. Each field's kind comes from its type's
//! [`Field`] implementation, so aliases and paths work, and a type that cannot be a flat
//! form field fails to compile with a message saying what to use instead.

use std::borrow::Cow;
use std::collections::{BTreeSet, HashSet};
use std::hash::Hash;

use serde_json::{Map, Value};

use crate::content::check::check_string;
use crate::content::json_type_name;
use crate::content::ValidationErrorKind;
use crate::content::{ValidationError, ValidationErrors};
use crate::protocol::{Action, ElicitationResponse};
use crate::schema::parse::value_to_i64;
use crate::schema::{
    EnumOption, FormatSpec, Property, PropertyKind, RequestedSchema, StringSchema, Text,
};

#[doc(hidden)]
pub mod private;

/// The outcome of an elicitation for a typed form ([R1](crate::rules#r1), [R5](crate::rules#r5)): the agent must handle all
/// three.
#[derive(Debug, Clone, PartialEq)]
#[must_use = "an elicitation can be declined or cancelled: handle every outcome; see R5 (decline, cancel and failure are handled)"]
pub enum Elicited<T> {
    /// The user submitted the form; the content was valid and parsed.
    Accepted(T),
    /// The user explicitly refused.
    Declined,
    /// The user dismissed the request without choosing.
    Cancelled,
}

impl<T> Elicited<T> {
    /// The accepted value, if any.
    pub fn accepted(self) -> Option<T> {
        match self {
            Elicited::Accepted(t) => Some(t),
            _ => None,
        }
    }

    /// Maps the accepted value.
    pub fn map<U>(self, f: impl FnOnce(T) -> U) -> Elicited<U> {
        match self {
            Elicited::Accepted(t) => Elicited::Accepted(f(t)),
            Elicited::Declined => Elicited::Declined,
            Elicited::Cancelled => Elicited::Cancelled,
        }
    }
}

/// A type that is an elicitation form. Implement it with `#[derive(Elicit)]`.
pub trait Elicit: Sized {
    /// Whether this form is for the agent's own URL-mode page only
    /// (`#[elicit(url_mode)]`): it may ask for secrets, which only that page may
    /// collect ([F5](crate::rules#f5), [F6](crate::rules#f6)), so
    /// [`Elicitor::form`](crate::agent::Elicitor::form) refuses it, whatever its
    /// fields. `false` unless the type opts in.
    const URL_MODE: bool = false;

    /// The form's schema: a compile-time constant, in declaration order ([D13](crate::rules#d13)).
    fn requested_schema() -> &'static RequestedSchema;

    /// Validates `content` exactly as [`RequestedSchema::validate`] does, reporting the
    /// same errors, then builds the value (integers written as `3.0` convert, [D5](crate::rules#d5); an
    /// absent optional field is `None`; `null` is an error, [D10](crate::rules#d10); unknown keys are
    /// ignored unless the type denies them, [D9](crate::rules#d9)).
    fn from_content(content: &Value) -> Result<Self, ValidationErrors>;

    /// The content that answers this form with this value.
    fn to_content(&self) -> Value;

    /// Reads a client's response ([F3](crate::rules#f3), [R1](crate::rules#r1)–[R5](crate::rules#r5)): `accept` re-validates and parses the
    /// content (absent content is an empty object, [R2](crate::rules#r2)); `decline` and `cancel` carry no
    /// content. An action this crate does not know is an error: the agent must not take
    /// it for success.
    fn from_response(response: &ElicitationResponse) -> Result<Elicited<Self>, ValidationErrors> {
        match response.action() {
            Action::Accept => {
                let empty = Value::Object(serde_json::Map::new());
                let content = response.content_value().unwrap_or(&empty);
                Self::from_content(content).map(Elicited::Accepted)
            }
            Action::Decline => Ok(Elicited::Declined),
            Action::Cancel => Ok(Elicited::Cancelled),
            Action::Other(action) => Err(ValidationErrors::single(ValidationError {
                property: None,
                kind: ValidationErrorKind::UnknownAction {
                    action: action.to_string(),
                },
            })),
        }
    }
}

/// The largest integer a JSON number carries exactly to every client: 2^53 − 1, what
/// JavaScript calls `Number.MAX_SAFE_INTEGER`. A JavaScript client (most MCP and ACP
/// clients are) reads every JSON number as a double, so `9007199254740993` arrives as
/// `9007199254740992`: a bound or a value beyond ±this is not what the client sees.
///
/// So an integer field asks for what both ends read alike: the range of its Rust type
/// clamped to `-MAX_SAFE_INTEGER..=MAX_SAFE_INTEGER`, written as the property's
/// `minimum` and `maximum` (`i64`, `isize`: ±(2^53 − 1); `u64`, `usize`: 0..=2^53 − 1;
/// the narrower types their own range). The typed parse enforces exactly that range
/// ([F3](crate::rules#f3): what is sent and what is validated agree): a larger answer
/// is a validation error, never a rounded value. A bound or default written beyond it
/// on `#[derive(Elicit)]` is a compile error on that literal.
///
/// ```
/// use elicit::typed::{Field, Shape, MAX_SAFE_INTEGER};
///
/// assert_eq!(MAX_SAFE_INTEGER, 9_007_199_254_740_991);
/// let Shape::Integer { min, max } = <u64 as Field>::SHAPE else { unreachable!() };
/// assert_eq!((min, max), (0, MAX_SAFE_INTEGER));
/// let Shape::Integer { min, max } = <i16 as Field>::SHAPE else { unreachable!() };
/// assert_eq!((min, max), (-32768, 32767));
/// ```
pub const MAX_SAFE_INTEGER: i64 = (1 << 53) - 1;

/// What kind of property a Rust type is, before the field's attributes add constraints.
/// Const-constructible, so a derived schema is built at compile time.
#[derive(Debug, Clone, Copy)]
pub enum Shape {
    /// Free text.
    Text,
    /// An integer whose Rust type holds exactly `min..=max`, clamped to the integers a
    /// JSON number carries exactly to every client (±[`MAX_SAFE_INTEGER`]).
    Integer {
        /// The type's smallest value, at least `-MAX_SAFE_INTEGER`.
        min: i64,
        /// The type's largest value, at most `MAX_SAFE_INTEGER`.
        max: i64,
    },
    /// A floating-point number; `f32` bounds its range, `f64` does not.
    Number {
        /// The smallest finite value of the type, if narrower than a double.
        min: Option<f64>,
        /// The largest finite value of the type, if narrower than a double.
        max: Option<f64>,
    },
    /// `true` or `false`.
    Boolean,
    /// One of the options of a unit-only enum.
    SingleSelect(OptionList),
    /// Any number of the options of a unit-only enum.
    MultiSelect(OptionList),
}

/// The options of a derived enum, borrowed for compile-time schemas.
#[derive(Debug, Clone, Copy)]
pub enum OptionList {
    /// Untitled options (`enum`).
    Untitled(&'static [Text]),
    /// Titled options (`oneOf` / `anyOf`).
    Titled(&'static [EnumOption]),
}

/// A Rust type that can be one field of a flat elicitation form.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a field of an elicitation form",
    label = "not a flat form field",
    note = "elicitation forms are flat: a field is a `String`, `bool`, an integer, `f32`/`f64`, a unit-only enum with `#[derive(Elicit)]`, an `Option` of one of these, or a `Vec`, `BTreeSet` or `HashSet` of such an enum (a multi-select)",
    note = "split a nested struct into separate fields, use a multi-select enum instead of `Vec<String>`, and ask for maps or tuples as separate fields"
)]
pub trait Field: Sized {
    /// The property kind of this type.
    const SHAPE: Shape;
    /// Whether the field must be present (`false` for `Option`).
    const REQUIRED: bool = true;
    /// The Rust type's name, for messages.
    const RUST_TYPE: &'static str;

    /// Builds the value from JSON already validated against this field's property.
    /// Errors only for a value the property admits but the type cannot hold ([D5](crate::rules#d5)).
    fn from_json(value: &Value) -> Result<Self, ValidationErrorKind>;

    /// The value when the key is absent: `None` for a required field.
    fn absent() -> Option<Self> {
        None
    }

    /// The JSON of this value; `None` leaves the key out (an empty `Option`).
    fn to_json(&self) -> Option<Value>;

    /// Checks and converts `value` in one step, for the common case of a valid answer:
    /// `Some` only if `value` satisfies `kind` (the kind built from [`Field::SHAPE`])
    /// and converts, with the same result as the checked path. `None` leaves the value
    /// to that path, which reports what is wrong. Not a public API; the default always
    /// defers.
    #[doc(hidden)]
    #[inline]
    fn __read_valid(value: &Value, kind: &PropertyKind) -> Option<Self> {
        let _ = (value, kind);
        None
    }

    /// Reads this field of a form's content; what `#[derive(Elicit)]` calls. Not a
    /// public API. A method rather than a function so that a type which is not a
    /// `Field` gets one error at the field's type, not one per use.
    #[doc(hidden)]
    fn __read(
        value: Option<&Value>,
        property: &Property,
        errors: &mut private::Errors,
    ) -> Option<Self> {
        private::field::<Self>(value, property, errors)
    }

    /// Writes this field into a form's content and hands the content back; what
    /// `#[derive(Elicit)]` calls, one call nested in the next. Not a public API (see
    /// [`Field::__read`]). By value, so that the derived `to_content` owns no map while
    /// it calls: it needs no unwinding path, which cost the compiler more than the call.
    #[doc(hidden)]
    fn __write(&self, mut content: Map<String, Value>, name: &str) -> Map<String, Value> {
        private::put(&mut content, name, self);
        content
    }
}

/// A unit-only enum usable as a select option; implemented by `#[derive(Elicit)]`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an option type",
    label = "not a unit-only enum deriving `Elicit`",
    note = "a multi-select is a `Vec`, `BTreeSet` or `HashSet` of a unit-only enum with `#[derive(Elicit)]`; free-text lists are not allowed in elicitation forms"
)]
pub trait SelectOption: Sized + 'static {
    /// The options, in declaration order.
    const OPTIONS: OptionList;
    /// The variant whose wire value is `value`.
    fn from_option(value: &str) -> Option<Self>;
    /// This variant's wire value.
    fn as_option(&self) -> &'static str;
}

/// Types that may carry `min_length`, `max_length`, `pattern` and `format`.
#[diagnostic::on_unimplemented(
    message = "this attribute applies to string fields, and `{Self}` is not one",
    label = "not a string field",
    note = "`min_length`, `max_length`, `pattern` and `format` constrain text; use `minimum`/`maximum` for numbers and `min_items`/`max_items` for multi-selects"
)]
pub trait TextField {}

/// Types that may carry `minimum` and `maximum`.
#[diagnostic::on_unimplemented(
    message = "this attribute applies to number fields, and `{Self}` is not one",
    label = "not a number field",
    note = "`minimum`, `maximum` and a numeric `default` apply to numbers; use `min_length`/`max_length` for text and `min_items`/`max_items` for multi-selects"
)]
pub trait NumericField {}

/// Types that may carry `min_items` and `max_items`.
#[diagnostic::on_unimplemented(
    message = "this attribute applies to multi-select fields, and `{Self}` is not one",
    label = "not a multi-select field",
    note = "`min_items`, `max_items` and a list `default` apply to multi-selects: a `Vec`, `BTreeSet` or `HashSet` of a unit-only enum with `#[derive(Elicit)]`"
)]
pub trait MultiSelectField {}

/// Types that may carry a string `default`: text and single-select fields.
#[diagnostic::on_unimplemented(
    message = "a string `default` applies to text and single-select fields, and `{Self}` is not one",
    label = "not a text or single-select field",
    note = "write `default = 3` for numbers, `default = true` for booleans and `default = [\"a\", \"b\"]` for multi-selects"
)]
pub trait StringDefaultField {}

/// Types that may carry `default = true` or `default = false`.
#[diagnostic::on_unimplemented(
    message = "a boolean `default` applies to `bool` fields, and `{Self}` is not one",
    label = "not a boolean field",
    note = "write `default = \"text\"` for text and selects, `default = 3` for numbers and `default = [\"a\"]` for multi-selects"
)]
pub trait BooleanField {}

/// Types that are not `Option`: what `Option<T>` may wrap.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be wrapped in `Option` in an elicitation form",
    note = "an optional field is `Option<T>` with `T` a plain field type; `Option<Option<T>>` has no meaning on the wire"
)]
pub trait NonOptional {}

// ---- strings ------------------------------------------------------------------------

impl Field for String {
    const SHAPE: Shape = Shape::Text;
    const RUST_TYPE: &'static str = "String";
    fn from_json(value: &Value) -> Result<Self, ValidationErrorKind> {
        match value {
            Value::String(s) => Ok(s.clone()),
            other => Err(wrong_type("a string", other)),
        }
    }
    #[inline]
    fn __read_valid(value: &Value, kind: &PropertyKind) -> Option<Self> {
        match (value, kind) {
            (Value::String(s), PropertyKind::String(schema)) if text_is_valid(schema, s) => {
                Some(s.as_str().to_owned())
            }
            _ => None,
        }
    }
    fn to_json(&self) -> Option<Value> {
        Some(Value::String(self.clone()))
    }
}
/// Whether `s` satisfies `schema`. Inlined into each derived `from_content`, where the
/// schema is a constant: a field without `pattern` or `format` whose lengths the byte
/// length settles (V1, D6: `n` bytes hold between `ceil(n / 4)` and `n` scalar values)
/// costs a comparison or two; anything else is one call to [`text_is_valid_slow`].
#[inline]
fn text_is_valid(schema: &StringSchema, s: &str) -> bool {
    if schema.pattern.is_none() && schema.format.is_none() && lengths_settled(schema, s) {
        return true;
    }
    text_is_valid_slow(schema, s)
}

/// Whether the byte length of `s` alone shows it within the schema's length bounds.
#[inline(always)]
fn lengths_settled(schema: &StringSchema, s: &str) -> bool {
    schema.max_length.is_none_or(|max| s.len() <= max as usize)
        && schema
            .min_length
            .is_none_or(|min| s.len().div_ceil(4) >= min as usize)
}

/// [`text_is_valid`] past its inlined case. A format with settled lengths and no pattern
/// (an `email` field, say) goes straight to the format's check (V7; an unknown format is
/// not asserted, D7); anything else is `check_string`'s.
#[inline(never)]
fn text_is_valid_slow(schema: &StringSchema, s: &str) -> bool {
    if schema.pattern.is_none() && lengths_settled(schema, s) {
        return match &schema.format {
            Some(FormatSpec::Known(format)) => format.is_valid(s),
            Some(FormatSpec::Unknown(_)) | None => true,
        };
    }
    check_string(schema, s, &mut |_| {})
}

impl TextField for String {}
impl StringDefaultField for String {}
impl NonOptional for String {}

impl Field for Cow<'static, str> {
    const SHAPE: Shape = Shape::Text;
    const RUST_TYPE: &'static str = "Cow<'static, str>";
    fn from_json(value: &Value) -> Result<Self, ValidationErrorKind> {
        String::from_json(value).map(Cow::Owned)
    }
    #[inline]
    fn __read_valid(value: &Value, kind: &PropertyKind) -> Option<Self> {
        String::__read_valid(value, kind).map(Cow::Owned)
    }
    fn to_json(&self) -> Option<Value> {
        Some(Value::String(self.to_string()))
    }
}
impl TextField for Cow<'static, str> {}
impl StringDefaultField for Cow<'static, str> {}
impl NonOptional for Cow<'static, str> {}

fn wrong_type(expected: &'static str, found: &Value) -> ValidationErrorKind {
    ValidationErrorKind::WrongType {
        expected,
        found: json_type_name(found),
    }
}

// ---- booleans -----------------------------------------------------------------------

impl Field for bool {
    const SHAPE: Shape = Shape::Boolean;
    const RUST_TYPE: &'static str = "bool";
    fn from_json(value: &Value) -> Result<Self, ValidationErrorKind> {
        value
            .as_bool()
            .ok_or_else(|| wrong_type("a boolean", value))
    }
    #[inline]
    fn __read_valid(value: &Value, kind: &PropertyKind) -> Option<Self> {
        match (value, kind) {
            (Value::Bool(b), PropertyKind::Boolean(_)) => Some(*b),
            _ => None,
        }
    }
    fn to_json(&self) -> Option<Value> {
        Some(Value::Bool(*self))
    }
}
impl BooleanField for bool {}
impl NonOptional for bool {}

// ---- integers -----------------------------------------------------------------------

macro_rules! integer_field {
    ($($t:ty),*) => {$(
        impl Field for $t {
            // The type's own range, clamped to what every client reads exactly
            // (MAX_SAFE_INTEGER): `i64`, `u64`, `isize` and `usize` values beyond
            // ±(2^53 − 1) cannot be asked for.
            const SHAPE: Shape = Shape::Integer {
                min: if (<$t>::MIN as i128) < -(MAX_SAFE_INTEGER as i128) { -MAX_SAFE_INTEGER } else { <$t>::MIN as i64 },
                max: if (<$t>::MAX as i128) > (MAX_SAFE_INTEGER as i128) { MAX_SAFE_INTEGER } else { <$t>::MAX as i64 },
            };
            const RUST_TYPE: &'static str = stringify!($t);
            fn from_json(value: &Value) -> Result<Self, ValidationErrorKind> {
                let Value::Number(n) = value else {
                    return Err(wrong_type("an integer", value));
                };
                // D5: `3.0` is the integer 3; a value outside the type is an error,
                // never a wrap.
                let i = value_to_i64(n).map_err(|_| ValidationErrorKind::OutOfTypeRange { rust_type: stringify!($t) })?;
                <$t>::try_from(i).map_err(|_| ValidationErrorKind::OutOfTypeRange { rust_type: stringify!($t) })
            }
            #[inline]
            fn __read_valid(value: &Value, kind: &PropertyKind) -> Option<Self> {
                // Integers written as integers; `3.0` and values beyond int64 take the
                // checked path.
                let (Value::Number(n), PropertyKind::Integer(schema)) = (value, kind) else {
                    return None;
                };
                let i = n.as_i64()?;
                let in_bounds = schema.minimum.is_none_or(|min| i >= min)
                    && schema.maximum.is_none_or(|max| i <= max);
                if in_bounds { <$t>::try_from(i).ok() } else { None }
            }
            fn to_json(&self) -> Option<Value> {
                // Values above int64 cannot be sent; they are outside the schema's
                // maximum too, so the form would refuse them.
                Some(i64::try_from(*self).map_or(Value::Null, Value::from))
            }
        }
        impl NumericField for $t {}
        impl NonOptional for $t {}
    )*};
}
integer_field!(i8, i16, i32, i64, isize, u8, u16, u32, u64, usize);

// ---- floats -------------------------------------------------------------------------

impl Field for f64 {
    const SHAPE: Shape = Shape::Number {
        min: None,
        max: None,
    };
    const RUST_TYPE: &'static str = "f64";
    fn from_json(value: &Value) -> Result<Self, ValidationErrorKind> {
        value.as_f64().ok_or_else(|| wrong_type("a number", value))
    }
    #[inline]
    fn __read_valid(value: &Value, kind: &PropertyKind) -> Option<Self> {
        float_in_bounds(value, kind)
    }
    fn to_json(&self) -> Option<Value> {
        Some(serde_json::Number::from_f64(*self).map_or(Value::Null, Value::Number))
    }
}
impl NumericField for f64 {}

/// The value of a number that lies within a number kind's bounds, when the comparison
/// in `f64` is exact: a double, or an integer of at most 53 bits. Anything else takes
/// the checked path, which compares exactly.
#[inline]
fn float_in_bounds(value: &Value, kind: &PropertyKind) -> Option<f64> {
    let (Value::Number(n), PropertyKind::Number(schema)) = (value, kind) else {
        return None;
    };
    let f = if n.is_f64() {
        n.as_f64()?
    } else {
        let i = n.as_i64()?;
        if i.unsigned_abs() > 1 << 53 {
            return None;
        }
        i as f64
    };
    let in_bounds =
        schema.minimum.is_none_or(|min| f >= min) && schema.maximum.is_none_or(|max| f <= max);
    in_bounds.then_some(f)
}
impl NonOptional for f64 {}

impl Field for f32 {
    // f32's finite range: a larger double would become infinity.
    const SHAPE: Shape = Shape::Number {
        min: Some(f32::MIN as f64),
        max: Some(f32::MAX as f64),
    };
    const RUST_TYPE: &'static str = "f32";
    fn from_json(value: &Value) -> Result<Self, ValidationErrorKind> {
        let f = value
            .as_f64()
            .ok_or_else(|| wrong_type("a number", value))?;
        let narrow = f as f32;
        if narrow.is_finite() {
            Ok(narrow)
        } else {
            Err(ValidationErrorKind::OutOfTypeRange { rust_type: "f32" })
        }
    }
    #[inline]
    fn __read_valid(value: &Value, kind: &PropertyKind) -> Option<Self> {
        let narrow = float_in_bounds(value, kind)? as f32;
        narrow.is_finite().then_some(narrow)
    }
    fn to_json(&self) -> Option<Value> {
        Some(serde_json::Number::from_f64(f64::from(*self)).map_or(Value::Null, Value::Number))
    }
}
impl NumericField for f32 {}
impl NonOptional for f32 {}

// ---- optional fields ----------------------------------------------------------------

impl<T: Field + NonOptional> Field for Option<T> {
    const SHAPE: Shape = T::SHAPE;
    const REQUIRED: bool = false;
    const RUST_TYPE: &'static str = T::RUST_TYPE;
    fn from_json(value: &Value) -> Result<Self, ValidationErrorKind> {
        T::from_json(value).map(Some)
    }
    #[inline]
    fn __read_valid(value: &Value, kind: &PropertyKind) -> Option<Self> {
        T::__read_valid(value, kind).map(Some)
    }
    fn absent() -> Option<Self> {
        Some(None)
    }
    fn to_json(&self) -> Option<Value> {
        self.as_ref().and_then(T::to_json)
    }
}
impl<T: TextField> TextField for Option<T> {}
impl<T: NumericField> NumericField for Option<T> {}
impl<T: MultiSelectField> MultiSelectField for Option<T> {}
impl<T: StringDefaultField> StringDefaultField for Option<T> {}
impl<T: BooleanField> BooleanField for Option<T> {}

// ---- multi-selects ------------------------------------------------------------------

fn collect_options<T: SelectOption, C: FromIterator<T>>(
    value: &Value,
) -> Result<C, ValidationErrorKind> {
    let Value::Array(items) = value else {
        return Err(wrong_type("an array of options", value));
    };
    items
        .iter()
        .enumerate()
        .map(|(index, item)| match item {
            Value::String(s) => {
                T::from_option(s).ok_or_else(|| ValidationErrorKind::ItemNotAnOption {
                    index,
                    value: s.clone(),
                })
            }
            other => Err(ValidationErrorKind::ItemWrongType {
                index,
                found: json_type_name(other),
            }),
        })
        .collect()
}

/// The items of a multi-select answer whose count is within the schema's bounds; `None`
/// leaves it to the checked path.
#[inline]
fn valid_items<'a>(value: &'a Value, kind: &PropertyKind) -> Option<&'a [Value]> {
    let (Value::Array(items), PropertyKind::MultiSelect(schema)) = (value, kind) else {
        return None;
    };
    let len = items.len() as u64;
    if schema.min_items.is_some_and(|min| len < min)
        || schema.max_items.is_some_and(|max| len > max)
    {
        return None;
    }
    Some(items)
}

/// The choices of a multi-select answer that is valid for `kind`: every item an option
/// and the count within bounds. `None` leaves it to the checked path.
#[inline]
fn read_valid_options<T: SelectOption, C: FromIterator<T>>(
    value: &Value,
    kind: &PropertyKind,
) -> Option<C> {
    valid_items(value, kind)?
        .iter()
        .map(|item| item.as_str().and_then(T::from_option))
        .collect()
}

fn options_json<'a, T: SelectOption>(items: impl Iterator<Item = &'a T>) -> Option<Value> {
    Some(Value::Array(
        items
            .map(|t| Value::String(t.as_option().to_owned()))
            .collect(),
    ))
}

// The three collections are written out rather than made by a macro: rustc lists these
// impls in the "the following other types implement trait" help of a misused attribute,
// and a macro's impls show up there as its internals.
impl<T: SelectOption> Field for Vec<T> {
    const SHAPE: Shape = Shape::MultiSelect(T::OPTIONS);
    const RUST_TYPE: &'static str = "Vec";
    fn from_json(value: &Value) -> Result<Self, ValidationErrorKind> {
        collect_options(value)
    }
    #[inline]
    fn __read_valid(value: &Value, kind: &PropertyKind) -> Option<Self> {
        // A loop into a vector of the right size: `collect` into `Option<Vec<_>>` went
        // through a generic adapter that cost more than the items themselves.
        let items = valid_items(value, kind)?;
        let mut choices = Vec::with_capacity(items.len());
        for item in items {
            choices.push(T::from_option(item.as_str()?)?);
        }
        Some(choices)
    }
    fn to_json(&self) -> Option<Value> {
        options_json(self.iter())
    }
}
impl<T: SelectOption> MultiSelectField for Vec<T> {}
impl<T: SelectOption> NonOptional for Vec<T> {}

// A set drops repeated choices (V6 allows them on the wire; a set cannot hold them).
impl<T: SelectOption + Ord> Field for BTreeSet<T> {
    const SHAPE: Shape = Shape::MultiSelect(T::OPTIONS);
    const RUST_TYPE: &'static str = "BTreeSet";
    fn from_json(value: &Value) -> Result<Self, ValidationErrorKind> {
        collect_options(value)
    }
    #[inline]
    fn __read_valid(value: &Value, kind: &PropertyKind) -> Option<Self> {
        read_valid_options(value, kind)
    }
    fn to_json(&self) -> Option<Value> {
        options_json(self.iter())
    }
}
impl<T: SelectOption + Ord> MultiSelectField for BTreeSet<T> {}
impl<T: SelectOption + Ord> NonOptional for BTreeSet<T> {}

impl<T: SelectOption + Hash + Eq, S: std::hash::BuildHasher + Default> Field for HashSet<T, S> {
    const SHAPE: Shape = Shape::MultiSelect(T::OPTIONS);
    const RUST_TYPE: &'static str = "HashSet";
    fn from_json(value: &Value) -> Result<Self, ValidationErrorKind> {
        collect_options(value)
    }
    #[inline]
    fn __read_valid(value: &Value, kind: &PropertyKind) -> Option<Self> {
        read_valid_options(value, kind)
    }
    fn to_json(&self) -> Option<Value> {
        // A hash set has no order; send the choices in option order so the answer is
        // deterministic.
        let mut items: Vec<&T> = self.iter().collect();
        items.sort_by_key(|t| option_index::<T>(t.as_option()));
        options_json(items.into_iter())
    }
}
impl<T: SelectOption + Hash + Eq, S: std::hash::BuildHasher + Default> MultiSelectField
    for HashSet<T, S>
{
}
impl<T: SelectOption + Hash + Eq, S: std::hash::BuildHasher + Default> NonOptional
    for HashSet<T, S>
{
}

fn option_index<T: SelectOption>(value: &str) -> usize {
    match T::OPTIONS {
        OptionList::Untitled(v) => v.iter().position(|o| o == value),
        OptionList::Titled(v) => v.iter().position(|o| o.value() == value),
    }
    .unwrap_or(usize::MAX)
}

#[cfg(test)]
mod tests {
    use super::private::{property_kind as kind, Attrs, Num};
    use super::*;
    use crate::content::check::check_value;
    use serde_json::json;

    /// Values around every edge the fast paths decide on: types, bounds, integers
    /// written as doubles, integers past 2^53 and past int64, lengths in scalar values.
    fn values() -> Vec<Value> {
        let mut v = vec![
            Value::Null,
            json!(true),
            json!(false),
            json!("x"),
            json!(""),
            json!("é"),
            json!("ééé"),
            json!("𝄞𝄞"),
            json!("abcd"),
            json!("a@b.co"),
            json!(["a"]),
            json!([]),
            json!({}),
            json!(3.0),
            json!(2.5),
            json!(-0.0),
            json!(1e300),
            json!(u64::MAX),
            json!(i64::MIN),
            json!(9_007_199_254_740_993_u64),
            json!(9_007_199_254_740_992_i64),
            json!(-9_007_199_254_740_993_i64),
        ];
        for i in -3..=300 {
            v.push(json!(i));
        }
        v
    }

    fn agrees<T: Field + PartialEq + std::fmt::Debug>(kinds: &[PropertyKind]) -> usize {
        let mut fast = 0;
        for kind in kinds {
            for value in values() {
                let checked = check_value(kind, &value, &mut |_| {})
                    .then(|| T::from_json(&value).ok())
                    .flatten();
                if let Some(quick) = T::__read_valid(&value, kind) {
                    fast += 1;
                    assert_eq!(Some(&quick), checked.as_ref(), "{value} against {kind:?}");
                }
            }
        }
        fast
    }

    fn int(min: i64, max: i64) -> Attrs {
        Attrs {
            minimum: Some(Num::Int(min)),
            maximum: Some(Num::Int(max)),
            ..Attrs::NONE
        }
    }

    // covers: V1, V2, V3, D5, D6
    #[test]
    fn the_fast_paths_accept_only_what_the_checked_path_accepts_with_the_same_value() {
        let bounded = Attrs {
            min_length: Some(2),
            max_length: Some(3),
            ..Attrs::NONE
        };
        let email = Attrs {
            format: Some(crate::schema::Format::Email),
            ..Attrs::NONE
        };
        let text = [Attrs::NONE, bounded, email].map(|a| kind(Shape::Text, a));
        assert!(agrees::<String>(&text) > 0);
        assert!(agrees::<Option<String>>(&text) > 0);
        assert!(agrees::<Cow<'static, str>>(&text) > 0);
        assert!(agrees::<bool>(&[kind(bool::SHAPE, Attrs::NONE)]) > 0);
        assert!(agrees::<u8>(&[kind(u8::SHAPE, Attrs::NONE), kind(u8::SHAPE, int(13, 120))]) > 0);
        assert!(agrees::<i64>(&[kind(i64::SHAPE, Attrs::NONE), kind(i64::SHAPE, int(-1, 1))]) > 0);
        assert!(agrees::<u64>(&[kind(u64::SHAPE, Attrs::NONE)]) > 0);
        let unit = Attrs {
            minimum: Some(Num::Float(0.0)),
            maximum: Some(Num::Float(2.5)),
            ..Attrs::NONE
        };
        let floats = [Attrs::NONE, unit];
        assert!(agrees::<f64>(&floats.map(|a| kind(f64::SHAPE, a))) > 0);
        assert!(agrees::<f32>(&floats.map(|a| kind(f32::SHAPE, a))) > 0);
        // An integer kind never hands a double-written value to the fast path, and a
        // bound of 2^53 + 1 is compared exactly.
        assert_eq!(
            u8::__read_valid(&json!(3.0), &kind(u8::SHAPE, Attrs::NONE)),
            None
        );
        let huge = kind(f64::SHAPE, int(0, 9_007_199_254_740_992));
        assert_eq!(
            f64::__read_valid(&json!(9_007_199_254_740_993_u64), &huge),
            None
        );
    }
}
