//! The browser's answer: an `application/x-www-form-urlencoded` body read back into
//! content, checked by [`RequestedSchema::validate`] ([F3](crate::rules#f3)).

use serde_json::{Map, Number, Value};

use super::{ACTION_FIELD, FIELD_PREFIX};
use crate::content::{ValidationError, ValidationErrorKind, ValidationErrors};
use crate::protocol::ElicitationResponse;
use crate::schema::{PropertyKind, RequestedSchema};

/// The button the user pressed ([K1](crate::rules#k1), [R1](crate::rules#r1)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SubmitAction {
    /// Send the answers: `accept`.
    Accept,
    /// Refuse explicitly: `decline`.
    Decline,
    /// Dismiss without choosing: `cancel`.
    Cancel,
}

impl SubmitAction {
    /// The button's `value` in the form, which is also the response's `action`.
    pub const fn as_str(self) -> &'static str {
        match self {
            SubmitAction::Accept => "accept",
            SubmitAction::Decline => "decline",
            SubmitAction::Cancel => "cancel",
        }
    }

    fn from_value(value: &str) -> Option<Self> {
        [
            SubmitAction::Accept,
            SubmitAction::Decline,
            SubmitAction::Cancel,
        ]
        .into_iter()
        .find(|a| a.as_str() == value)
    }
}

/// A submitted form, as the browser sent it: the button pressed and what was typed in
/// each field, before it is turned into content.
///
/// Read with [`Submission::parse`]; [`Submission::content`] gives the validated content
/// and [`Submission::response`] the response for the button pressed. Give it to
/// [`HtmlForm::refill`](super::HtmlForm::refill) to show the page again with what the
/// user typed and every error beside its field ([F3](crate::rules#f3)).
#[derive(Debug, Clone)]
pub struct Submission<'s> {
    schema: &'s RequestedSchema,
    action: Option<SubmitAction>,
    /// What was sent for each property, by property index, in the order sent.
    raw: Vec<Vec<String>>,
}

impl<'s> Submission<'s> {
    /// Reads a urlencoded body by the WHATWG rules (`form_urlencoded`: `+` is a space,
    /// invalid percent-encodings are kept as written, invalid UTF-8 becomes U+FFFD).
    /// Names that are not fields of this form are ignored ([D9](crate::rules#d9)). Bound the body's
    /// size before (the HTTP server's request limit): every value in it is kept.
    pub fn parse(schema: &'s RequestedSchema, body: &[u8]) -> Self {
        let mut raw = vec![Vec::new(); schema.properties().len()];
        let mut action = None;
        let mut action_seen = false;
        for (name, value) in form_urlencoded::parse(body) {
            if name == ACTION_FIELD {
                // A browser sends the pressed button only; a second one is not a press.
                if !action_seen {
                    action = SubmitAction::from_value(&value);
                    action_seen = true;
                }
            } else if let Some(property) = name.strip_prefix(FIELD_PREFIX) {
                if let Some(i) = schema
                    .properties()
                    .iter()
                    .position(|p| p.name() == property)
                {
                    raw[i].push(value.into_owned());
                }
            }
        }
        Submission {
            schema,
            action,
            raw,
        }
    }

    /// The button pressed; `None` when the body names no button or an unknown one.
    pub fn action(&self) -> Option<SubmitAction> {
        self.action
    }

    /// What was sent for a property, in order (empty when nothing was).
    pub fn raw_values(&self, property: &str) -> &[String] {
        self.schema
            .properties()
            .iter()
            .position(|p| p.name() == property)
            .map_or(&[], |i| self.raw[i].as_slice())
    }

    pub(super) fn raw_by_index(&self, index: usize) -> &[String] {
        self.raw.get(index).map_or(&[], Vec::as_slice)
    }

    /// The content the fields make, before validation: each field read by its kind
    /// (see the module documentation for the rules), in property order ([D13](crate::rules#d13)).
    pub fn unchecked_content(&self) -> Map<String, Value> {
        let mut content = Map::new();
        for (p, raw) in self.schema.properties().iter().zip(&self.raw) {
            if let Some(value) = read_field(p.schema().kind(), p.is_required(), raw) {
                content.insert(p.name().to_owned(), value);
            }
        }
        content
    }

    /// The content, when it passes [`RequestedSchema::validate`]; otherwise every
    /// violation ([F3](crate::rules#f3)). A form with a property this client cannot show is never
    /// accepted: each such property is a [`ValidationErrorKind::Unrenderable`] ([E6](crate::rules#e6)).
    pub fn content(&self) -> Result<Value, ValidationErrors> {
        let content = Value::Object(self.unchecked_content());
        let mut errors = match self.schema.validate(&content) {
            Ok(()) => Vec::new(),
            Err(e) => e.into_iter().collect(),
        };
        for p in self.schema.properties() {
            if let PropertyKind::Unknown(u) = p.schema().kind() {
                errors.push(ValidationError::new(
                    p.name(),
                    ValidationErrorKind::Unrenderable {
                        type_name: u.type_name().to_owned(),
                    },
                ));
            }
        }
        match ValidationErrors::from_vec(errors) {
            None => Ok(content),
            Some(errors) => Err(errors),
        }
    }

    /// The response for the button pressed ([R1](crate::rules#r1)): `decline` and `cancel` as they
    /// are, whatever the fields hold ([R2](crate::rules#r2)); `accept` with the content when it validates.
    /// A body without a known button is read as `accept` (a user agent's implicit
    /// submission): its content must validate all the same.
    pub fn response(&self) -> Result<ElicitationResponse, ValidationErrors> {
        match self.action {
            Some(SubmitAction::Decline) => Ok(ElicitationResponse::decline()),
            Some(SubmitAction::Cancel) => Ok(ElicitationResponse::cancel()),
            Some(SubmitAction::Accept) | None => match self.content()? {
                Value::Object(content) => Ok(ElicitationResponse::accept(content)),
                _ => unreachable!("`content` builds an object"),
            },
        }
    }
}

/// One field's value from what was sent for it; `None` leaves the key out.
fn read_field(kind: &PropertyKind, required: bool, raw: &[String]) -> Option<Value> {
    // One input per field except multi-selects (a checkbox each) and booleans (the
    // hidden `false` then the checkbox's `true`): the last value sent is the answer.
    let last = raw.last().map(String::as_str);
    match kind {
        // An empty text box is no answer: the key is left out ([D10](crate::rules#d10)).
        PropertyKind::String(_) | PropertyKind::SingleSelect(_) => last
            .filter(|t| !t.is_empty())
            .map(|t| Value::String(t.to_owned())),
        PropertyKind::Integer(_) => last
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .map(read_integer),
        PropertyKind::Number(_) => last
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .map(read_number),
        PropertyKind::Boolean(_) => last.map(|t| match t {
            "true" => Value::Bool(true),
            "false" => Value::Bool(false),
            // Not what the form sends: kept, so validation names the wrong type.
            other => Value::String(other.to_owned()),
        }),
        PropertyKind::MultiSelect(_) => {
            let items: Vec<Value> = raw
                .iter()
                .filter(|t| !t.is_empty())
                .map(|t| Value::String(t.clone()))
                .collect();
            // No box ticked: an empty list when an answer is required, else no answer.
            (!items.is_empty() || required).then_some(Value::Array(items))
        }
        PropertyKind::Unknown(_) => None,
    }
}

/// An integer field's text: an int64, or a number with a zero fraction ([V2](crate::rules#v2)).
/// Anything else is kept as a number or as text, so validation names the wrong type.
fn read_integer(text: &str) -> Value {
    if let Ok(i) = text.parse::<i64>() {
        return Value::from(i);
    }
    match read_number(text) {
        Value::Number(n) => match n.as_f64() {
            Some(f) if f.fract() == 0.0 && I64_FLOAT_RANGE.contains(&f) => {
                // Exact: in range and integral.
                Value::from(f as i64)
            }
            _ => Value::Number(n),
        },
        other => other,
    }
}

/// The doubles that convert to an int64 exactly.
const I64_FLOAT_RANGE: std::ops::Range<f64> =
    -9_223_372_036_854_775_808.0..9_223_372_036_854_775_808.0;

/// A number field's text: a finite number, or the text itself (a wrong type).
fn read_number(text: &str) -> Value {
    if let Ok(i) = text.parse::<i64>() {
        return Value::from(i);
    }
    // Rust's float syntax less its words (`inf`, `NaN`): HTML number inputs send digits.
    let number = text
        .bytes()
        .any(|b| b.is_ascii_digit())
        .then(|| text.parse::<f64>().ok())
        .flatten()
        .and_then(Number::from_f64);
    match number {
        Some(n) => Value::Number(n),
        None => Value::String(text.to_owned()),
    }
}
