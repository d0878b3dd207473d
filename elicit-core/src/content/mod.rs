//! The answer to a form (`content`) and its validation against the requested schema.
//!
//! Validation follows JSON Schema 2020-12 with format assertion on ([V1](crate::rules#v1)–[V7](crate::rules#v7)): content is
//! valid exactly when such a validator says so for the same schema. Every violation is
//! reported, each with the property and the rule, not only the first.
//!
//! Validation has this one home: the rules applied to a value and to a whole answer
//! (`check`), what they report ([`ValidationErrorKind`], [`ValidationError`],
//! [`ValidationErrors`]), and the tables a schema keeps to apply them fast: its names
//! sorted for the keys out of order (`index`) and, from its second validation, a check
//! plan laid out for the walk (`plan`). It is built on the model (`schema`), never the
//! reverse: the model holds the tables in a slot whose type this module chooses, and
//! its strict parse checks defaults by these rules through the same interface.

use serde_json::{Map, Value};

use crate::schema::RequestedSchema;

pub(crate) mod check;
mod error;
pub(crate) mod index;
pub(crate) mod plan;

pub(crate) use error::json_type_name;
pub use error::{ValidationError, ValidationErrorKind, ValidationErrors};

/// One value of an accepted form's content ([R3](crate::rules#r3)).
#[derive(Debug, Clone, PartialEq)]
pub enum ContentValue {
    /// A string (free text, a date, or a single-select option value).
    String(String),
    /// An int64 integer.
    Integer(i64),
    /// A double.
    Number(f64),
    /// A boolean.
    Boolean(bool),
    /// A multi-select: option values.
    StringArray(Vec<String>),
}

impl ContentValue {
    /// Reads a content value from JSON. `None` for what [R3](crate::rules#r3) does not allow (null,
    /// objects, arrays with a non-string item, non-finite or out-of-range numbers).
    /// Integers written with a zero fraction (`3.0`) read as integers ([V2](crate::rules#v2)).
    pub fn from_json(value: &Value) -> Option<ContentValue> {
        Some(match value {
            Value::String(s) => ContentValue::String(s.clone()),
            Value::Bool(b) => ContentValue::Boolean(*b),
            Value::Number(n) => {
                if let Some(i) = n.as_i64() {
                    ContentValue::Integer(i)
                } else if n.is_u64() {
                    return None;
                } else {
                    let f = n.as_f64()?;
                    if f.fract() == 0.0
                        && (-9_223_372_036_854_775_808.0..9_223_372_036_854_775_808.0).contains(&f)
                    {
                        ContentValue::Integer(f as i64)
                    } else {
                        ContentValue::Number(f)
                    }
                }
            }
            Value::Array(items) => ContentValue::StringArray(
                items
                    .iter()
                    .map(|i| i.as_str().map(str::to_owned))
                    .collect::<Option<Vec<_>>>()?,
            ),
            Value::Null | Value::Object(_) => return None,
        })
    }

    /// The JSON form of this value. A non-finite number (which JSON cannot carry)
    /// becomes `null`, which every property refuses ([D10](crate::rules#d10)).
    pub fn to_json(&self) -> Value {
        match self {
            ContentValue::String(s) => Value::String(s.clone()),
            ContentValue::Integer(i) => Value::from(*i),
            ContentValue::Number(f) => {
                serde_json::Number::from_f64(*f).map_or(Value::Null, Value::Number)
            }
            ContentValue::Boolean(b) => Value::Bool(*b),
            ContentValue::StringArray(items) => {
                Value::Array(items.iter().map(|s| Value::String(s.clone())).collect())
            }
        }
    }
}

impl From<ContentValue> for Value {
    fn from(v: ContentValue) -> Value {
        match v {
            ContentValue::String(s) => Value::String(s),
            ContentValue::StringArray(items) => {
                Value::Array(items.into_iter().map(Value::String).collect())
            }
            other => other.to_json(),
        }
    }
}

impl TryFrom<&Value> for ContentValue {
    type Error = ValidationErrorKind;

    fn try_from(value: &Value) -> Result<Self, ValidationErrorKind> {
        ContentValue::from_json(value).ok_or_else(|| match value {
            Value::Null => ValidationErrorKind::Null,
            other => ValidationErrorKind::WrongType {
                expected: "a string, integer, number, boolean or array of strings",
                found: json_type_name(other),
            },
        })
    }
}

/// A map of property names to content values, in order.
pub type Content = Map<String, Value>;

impl RequestedSchema {
    /// Validates an answer's `content` (any JSON; a non-object is an error, not a
    /// panic) and reports every violation: missing required properties, `null` ([D10](crate::rules#d10)),
    /// wrong types, lengths in Unicode scalar values ([V1](crate::rules#v1)), integers written as `3.0`
    /// accepted ([V2](crate::rules#v2)), bounds, options (a title instead of the value is wrong), items and
    /// their counts ([V6](crate::rules#v6)), formats ([V7](crate::rules#v7)), patterns searched unanchored ([V4](crate::rules#v4)). Keys the
    /// schema does not declare are allowed ([V5](crate::rules#v5), [D9](crate::rules#d9)).
    ///
    /// ```
    /// use elicit::RequestedSchema;
    /// use serde_json::json;
    /// let schema = RequestedSchema::from_json(&json!({
    ///     "type": "object",
    ///     "properties": { "age": { "type": "integer", "minimum": 0 } },
    ///     "required": ["age"]
    /// })).unwrap();
    /// assert!(schema.validate(&json!({ "age": 3.0 })).is_ok());
    /// let errors = schema.validate(&json!({ "age": -1 })).unwrap_err();
    /// assert_eq!(errors.to_string(), "`age` must be at least 0");
    /// ```
    pub fn validate(&self, content: &Value) -> Result<(), ValidationErrors> {
        let Some(content) = content.as_object() else {
            return Err(ValidationErrors::single(ValidationError {
                property: None,
                kind: ValidationErrorKind::NotAnObject {
                    found: json_type_name(content),
                },
            }));
        };
        if self.admits_content(content) {
            return Ok(());
        }
        match ValidationErrors::from_vec(self.content_violations(content)) {
            None => Ok(()),
            Some(e) => Err(e),
        }
    }

    /// Whether the content is valid, without collecting the violations.
    pub fn is_valid(&self, content: &Value) -> bool {
        content
            .as_object()
            .is_some_and(|content| self.admits_content(content))
    }
}
