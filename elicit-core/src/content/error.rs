//! What a failed validation reports: each broken rule ([`ValidationErrorKind`]), the
//! property it broke it on ([`ValidationError`]), and every violation of an answer
//! together ([`ValidationErrors`]), each with a message a person understands.

use std::fmt;

use serde_json::{Number, Value};

use crate::format::Format;
use crate::schema::error::push_pointer;

/// One rule a value breaks.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ValidationErrorKind {
    /// A required property is absent ([V5](crate::rules#v5)).
    Missing,
    /// A required property with a `default` is absent ([V5](crate::rules#v5)): the
    /// `default` only pre-fills the form, the answer must still carry the value. Said
    /// apart from [`Missing`](Self::Missing) because a serde or clap user reads
    /// `default` as "optional"; an optional field is `Option<T>`.
    MissingWithDefault {
        /// The property's `default`, as declared.
        default: Value,
    },
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

impl ValidationErrorKind {
    /// What an absent required property breaks: [`MissingWithDefault`](Self::MissingWithDefault)
    /// when it declares a `default`, else [`Missing`](Self::Missing).
    pub(crate) fn missing(schema: &crate::schema::PropertySchema) -> Self {
        match schema.default_value() {
            Some(default) => ValidationErrorKind::MissingWithDefault { default },
            None => ValidationErrorKind::Missing,
        }
    }
}

impl fmt::Display for ValidationErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use ValidationErrorKind::*;
        match self {
            Missing => f.write_str("is required but missing"),
            MissingWithDefault { default } => write!(
                f,
                "is required but missing: its default ({default}) only pre-fills the form, \
                 the answer must still include it (a field that may be left out is optional, \
                 `Option<T>` in a derived form)"
            ),
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

/// One failing property and the rule it broke.
#[derive(Debug, Clone, PartialEq)]
pub struct ValidationError {
    /// The property's wire name; `None` when the content as a whole is wrong.
    pub property: Option<String>,
    /// The rule broken.
    pub kind: ValidationErrorKind,
}

impl ValidationError {
    /// A violation of one property.
    pub fn new(property: impl Into<String>, violation: ValidationErrorKind) -> Self {
        ValidationError {
            property: Some(property.into()),
            kind: violation,
        }
    }

    /// The JSON pointer of the offending value in the content (`""` for the content).
    pub fn pointer(&self) -> String {
        match &self.property {
            Some(p) => push_pointer("", p),
            None => String::new(),
        }
    }
}

impl fmt::Display for ValidationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.property {
            Some(p) => write!(f, "`{p}` {}", self.kind),
            None => write!(f, "{}", self.kind),
        }
    }
}

/// Every violation found in an answer. Never empty.
#[derive(Debug, Clone, PartialEq)]
pub struct ValidationErrors {
    errors: Vec<ValidationError>,
}

impl ValidationErrors {
    /// Collects violations; `None` when there are none.
    pub fn from_vec(errors: Vec<ValidationError>) -> Option<Self> {
        (!errors.is_empty()).then_some(ValidationErrors { errors })
    }

    /// A single violation.
    pub fn single(error: ValidationError) -> Self {
        ValidationErrors {
            errors: vec![error],
        }
    }

    /// The violations, in property order.
    pub fn errors(&self) -> &[ValidationError] {
        &self.errors
    }

    /// The violations of one property.
    pub fn for_property<'a>(
        &'a self,
        name: &'a str,
    ) -> impl Iterator<Item = &'a ValidationErrorKind> + 'a {
        self.errors
            .iter()
            .filter(move |e| e.property.as_deref() == Some(name))
            .map(|e| &e.kind)
    }

    /// How many violations there are.
    pub fn len(&self) -> usize {
        self.errors.len()
    }

    /// Always false: a `ValidationErrors` holds at least one violation.
    pub fn is_empty(&self) -> bool {
        self.errors.is_empty()
    }
}

impl fmt::Display for ValidationErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.errors.as_slice() {
            [one] => one.fmt(f),
            many => {
                write!(f, "{} problems with the answer:", many.len())?;
                for e in many {
                    write!(f, "\n  - {e}")?;
                }
                Ok(())
            }
        }
    }
}

impl std::error::Error for ValidationErrors {}

impl IntoIterator for ValidationErrors {
    type Item = ValidationError;
    type IntoIter = std::vec::IntoIter<ValidationError>;
    fn into_iter(self) -> Self::IntoIter {
        self.errors.into_iter()
    }
}

impl<'a> IntoIterator for &'a ValidationErrors {
    type Item = &'a ValidationError;
    type IntoIter = std::slice::Iter<'a, ValidationError>;
    fn into_iter(self) -> Self::IntoIter {
        self.errors.iter()
    }
}
