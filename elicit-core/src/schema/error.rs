//! Why a schema was refused, and where.

use std::fmt;

/// A schema that breaks the rules of [F1](crate::rules#f1)/F2 and the D decisions: every problem found
/// in one pass, each with the JSON pointer of the offending member.
#[derive(Debug, Clone, PartialEq)]
pub struct SchemaError {
    issues: Vec<SchemaIssue>,
}

impl SchemaError {
    pub(crate) fn new(issues: Vec<SchemaIssue>) -> Self {
        debug_assert!(!issues.is_empty(), "a SchemaError holds at least one issue");
        SchemaError { issues }
    }

    /// Every problem found, in document order: the JSON pointer (RFC 6901) of the
    /// offending member, empty for the root, and what is wrong with it.
    ///
    /// ```
    /// # use elicit::schema::{RequestedSchema, SchemaErrorKind};
    /// let error = RequestedSchema::from_json(&serde_json::json!({
    ///     "type": "object",
    ///     "properties": { "n": { "type": "integer", "minimum": 5, "maximum": 1 } },
    ///     "required": ["missing"]
    /// }))
    /// .unwrap_err();
    /// let pointers: Vec<&str> = error.iter().map(|(pointer, _)| pointer).collect();
    /// assert_eq!(pointers, ["/properties/n/minimum", "/required/0"]);
    /// ```
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (&str, &SchemaErrorKind)> + '_ {
        self.issues
            .iter()
            .map(|issue| (issue.pointer.as_str(), &issue.kind))
    }

    /// The JSON pointer of the first problem found; empty for the root.
    pub fn pointer(&self) -> &str {
        &self.issues[0].pointer
    }

    /// What the first problem found is.
    pub fn kind(&self) -> &SchemaErrorKind {
        &self.issues[0].kind
    }
}

impl fmt::Display for SchemaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.issues.as_slice() {
            [one] => one.fmt(f),
            many => {
                write!(f, "{} problems in the requested schema:", many.len())?;
                for issue in many {
                    write!(f, "\n  - {issue}")?;
                }
                Ok(())
            }
        }
    }
}

impl std::error::Error for SchemaError {}

/// One problem in a schema: where and what. Public only through
/// [`SchemaError::iter`], as a pair, so that "a problem" has one name, the error.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct SchemaIssue {
    /// JSON pointer (RFC 6901) of the offending member; empty for the root.
    pub(crate) pointer: String,
    /// What is wrong.
    pub(crate) kind: SchemaErrorKind,
}

impl fmt::Display for SchemaIssue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.pointer.is_empty() {
            write!(f, "at the root: {}", self.kind)
        } else {
            write!(f, "at {}: {}", self.pointer, self.kind)
        }
    }
}

/// What is wrong with a schema. Each reason the strict parse refuses has its own variant.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum SchemaErrorKind {
    /// The schema (or a property schema) is not a JSON object.
    NotAnObject {
        /// The JSON type found.
        found: &'static str,
    },
    /// The root `type` is missing or not `"object"` ([F1](crate::rules#f1)).
    RootNotObjectType,
    /// The root has no `properties` ([F1](crate::rules#f1)).
    MissingProperties,
    /// A property has no `type`.
    MissingType,
    /// `type` is a list or not a string: elicitation properties have exactly one type.
    TypeNotAString,
    /// `type: "object"` on a property: forms are flat ([F1](crate::rules#f1)).
    NestedObject,
    /// `type: "null"`: null is not a value ([D10](crate::rules#d10)).
    NullType,
    /// `type: "array"` that is not a multi-select of string options ([F1](crate::rules#f1), [F2](crate::rules#f2)).
    ArrayNotMultiSelect {
        /// Why it is not a multi-select.
        reason: &'static str,
    },
    /// A `$ref`: schemas are self-contained ([F1](crate::rules#f1)).
    Ref,
    /// A `type` the spec does not define (strict parse only; the lenient one keeps it, [E6](crate::rules#e6)).
    UnknownType {
        /// The type found.
        found: String,
    },
    /// A keyword outside the elicitation subset.
    UnsupportedKeyword {
        /// The keyword.
        keyword: String,
    },
    /// A keyword of the subset that does not apply to this kind of property.
    KeywordNotForKind {
        /// The keyword.
        keyword: &'static str,
        /// The property's kind.
        kind: &'static str,
    },
    /// A member of the wrong JSON type.
    WrongJsonType {
        /// The member.
        keyword: &'static str,
        /// What it must be.
        expected: &'static str,
    },
    /// A length or count that is not a whole number.
    NotAnInteger {
        /// The member.
        keyword: &'static str,
    },
    /// A length or count below zero.
    Negative {
        /// The member.
        keyword: &'static str,
    },
    /// A number outside the range its member allows (uint32 lengths, uint64 counts,
    /// int64 integers, finite doubles).
    OutOfRange {
        /// The member.
        keyword: &'static str,
        /// The range allowed.
        range: &'static str,
    },
    /// A lower bound above its upper bound.
    MinAboveMax {
        /// The lower-bound member.
        min: &'static str,
        /// The upper-bound member.
        max: &'static str,
    },
    /// A `default` that is not valid for its own property ([D11](crate::rules#d11)).
    InvalidDefault {
        /// Why, in words.
        reason: String,
    },
    /// An empty `enum`, `oneOf`, `items.enum` or `items.anyOf` ([D4](crate::rules#d4)).
    EmptyOptions,
    /// An option value that appears twice ([D4](crate::rules#d4)).
    DuplicateOption {
        /// The repeated value.
        value: String,
    },
    /// An option value that is not a string.
    OptionNotAString,
    /// `enum` and `oneOf` on the same property ([D3](crate::rules#d3)).
    EnumWithOneOf,
    /// A titled option without `const`.
    OptionMissingConst,
    /// A titled option without `title`.
    OptionMissingTitle,
    /// MCP's legacy `enumNames` ([M5](crate::rules#m5)): the strict parse refuses it.
    LegacyEnumNames,
    /// `required` names a property that does not exist ([D2](crate::rules#d2)).
    RequiredUnknown {
        /// The name.
        name: String,
    },
    /// `required` names a property twice.
    RequiredDuplicate {
        /// The name.
        name: String,
    },
    /// A `format` other than `email`, `uri`, `date`, `date-time` ([D7](crate::rules#d7)).
    UnknownFormat {
        /// The format found.
        found: String,
    },
    /// A `pattern` that cannot be compiled or run in linear time ([D8](crate::rules#d8)).
    InvalidPattern {
        /// The compiler's reason.
        reason: String,
    },
    /// An abuse limit was exceeded ([D12](crate::rules#d12)).
    LimitExceeded {
        /// What was counted.
        what: &'static str,
        /// The limit in force.
        limit: usize,
    },
}

impl fmt::Display for SchemaErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use SchemaErrorKind::*;
        match self {
            NotAnObject { found } => write!(f, "expected a JSON object, found {found}"),
            RootNotObjectType => f.write_str(
                "a requested schema must have `\"type\": \"object\"`; wrap the fields in an object schema",
            ),
            MissingProperties => f.write_str(
                "a requested schema must have `properties`; add `\"properties\": {}` even for an empty form",
            ),
            MissingType => f.write_str(
                "the property has no `type`; give it one of string, number, integer, boolean or array",
            ),
            TypeNotAString => f.write_str(
                "`type` must be a single string; an optional field is expressed by leaving it out of `required`, not with a type list",
            ),
            NestedObject => f.write_str(
                "nested objects are not allowed: elicitation forms are flat; split the object into separate properties",
            ),
            NullType => f.write_str(
                "`type: \"null\"` is not allowed: leave an optional field out of `required` instead",
            ),
            ArrayNotMultiSelect { reason } => write!(
                f,
                "an array property must be a multi-select of string options ({reason}); use `items` with `enum` or `anyOf`"
            ),
            Ref => f.write_str("`$ref` is not allowed: write the property schema in place"),
            UnknownType { found } => write!(
                f,
                "unknown property type `{found}`; use string, number, integer, boolean or array"
            ),
            UnsupportedKeyword { keyword } => write!(
                f,
                "`{keyword}` is not part of the elicitation schema subset; remove it"
            ),
            KeywordNotForKind { keyword, kind } => {
                write!(f, "`{keyword}` does not apply to a {kind} property; remove it")
            }
            WrongJsonType { keyword, expected } => {
                write!(f, "`{keyword}` must be {expected}")
            }
            NotAnInteger { keyword } => write!(f, "`{keyword}` must be a whole number"),
            Negative { keyword } => write!(f, "`{keyword}` must not be negative"),
            OutOfRange { keyword, range } => write!(f, "`{keyword}` must be {range}"),
            MinAboveMax { min, max } => {
                write!(f, "`{min}` is greater than `{max}`, so no value can be valid")
            }
            InvalidDefault { reason } => write!(
                f,
                "the `default` is not valid for its own property: {reason}"
            ),
            EmptyOptions => f.write_str("a select needs at least one option"),
            DuplicateOption { value } => {
                write!(f, "option `{value}` appears more than once; option values must be unique")
            }
            OptionNotAString => f.write_str("option values must be strings"),
            EnumWithOneOf => f.write_str(
                "`enum` and `oneOf` on the same property; use `enum` for untitled options or `oneOf` for titled ones, not both",
            ),
            OptionMissingConst => {
                f.write_str("a titled option needs `const`, the value that goes into the answer")
            }
            OptionMissingTitle => {
                f.write_str("a titled option needs `title`; use `enum` if the options have no titles")
            }
            LegacyEnumNames => f.write_str(
                "`enumNames` is MCP's legacy form; use `oneOf` with `const` and `title` for titled options",
            ),
            RequiredUnknown { name } => write!(
                f,
                "`required` names `{name}`, which is not in `properties`"
            ),
            RequiredDuplicate { name } => {
                write!(f, "`required` names `{name}` more than once")
            }
            UnknownFormat { found } => write!(
                f,
                "unknown format `{found}`; use email, uri, date or date-time"
            ),
            InvalidPattern { reason } => write!(f, "the `pattern` cannot be used: {reason}"),
            LimitExceeded { what, limit } => {
                write!(f, "too many {what} (the limit is {limit}); split the request or raise the limit")
            }
        }
    }
}

/// Appends one reference token to a JSON pointer (RFC 6901 escaping).
pub(crate) fn push_pointer(base: &str, token: &str) -> String {
    let mut out = String::with_capacity(base.len() + token.len() + 1);
    out.push_str(base);
    out.push('/');
    for c in token.chars() {
        match c {
            '~' => out.push_str("~0"),
            '/' => out.push_str("~1"),
            c => out.push(c),
        }
    }
    out
}
