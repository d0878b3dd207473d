//! The client's answer to `elicitation/create` ([R1](crate::rules#r1)–[R4](crate::rules#r4)).

use std::fmt;

use serde::de::Error as _;
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

use super::jsonrpc::RequestId;

/// What the user did ([R1](crate::rules#r1)).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Action {
    /// Submitted the form, or consented to open the URL ([U2](crate::rules#u2)).
    Accept,
    /// Explicitly refused.
    Decline,
    /// Dismissed without choosing.
    Cancel,
    /// An action this crate does not know ([E6](crate::rules#e6)): the response is kept as received and
    /// must not be taken for any of the three.
    Other(String),
}

impl Action {
    /// The wire name.
    pub fn as_str(&self) -> &str {
        match self {
            Action::Accept => "accept",
            Action::Decline => "decline",
            Action::Cancel => "cancel",
            Action::Other(s) => s,
        }
    }

    fn from_wire(s: &str) -> Action {
        match s {
            "accept" => Action::Accept,
            "decline" => Action::Decline,
            "cancel" => Action::Cancel,
            other => Action::Other(other.to_owned()),
        }
    }
}

impl fmt::Display for Action {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The result of `elicitation/create`: `{"action", "content"?, "_meta"?}`.
///
/// `content` is read only on `accept`, where omitted and `null` are the same; on
/// `decline` and `cancel` it is ignored ([R2](crate::rules#r2)). An action this crate does not know is
/// kept with the whole payload as received and written back unchanged ([E6](crate::rules#e6)). A
/// malformed `_meta` reads as absent ([C6](crate::rules#c6)).
///
/// ```
/// use elicit::protocol::{Action, ElicitationResponse};
/// use serde_json::json;
///
/// let declined = ElicitationResponse::from_json(&json!({
///     "action": "decline", "content": { "ignored": true }
/// }))?;
/// assert_eq!(declined.content(), None); // R2
///
/// let custom = json!({ "action": "_defer", "until": "tomorrow" });
/// let response = ElicitationResponse::from_json(&custom)?;
/// assert_eq!(response.action(), &Action::Other("_defer".into()));
/// assert_eq!(response.to_json(), custom); // E6
/// # Ok::<(), elicit::protocol::ResponseError>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct ElicitationResponse {
    action: Action,
    /// Always a JSON object when present; only kept for `accept` ([R2](crate::rules#r2)).
    content: Option<Value>,
    meta: Option<Map<String, Value>>,
    /// For an unknown action: the whole payload as received ([E6](crate::rules#e6)).
    raw: Option<Map<String, Value>>,
}

impl ElicitationResponse {
    /// `accept` with form content.
    pub fn accept(content: Map<String, Value>) -> Self {
        ElicitationResponse {
            action: Action::Accept,
            content: Some(Value::Object(content)),
            meta: None,
            raw: None,
        }
    }

    /// `accept` without content: the answer to a URL-mode elicitation ([R4](crate::rules#r4), [U2](crate::rules#u2)).
    pub fn accept_without_content() -> Self {
        ElicitationResponse {
            action: Action::Accept,
            content: None,
            meta: None,
            raw: None,
        }
    }

    /// `decline`.
    pub fn decline() -> Self {
        ElicitationResponse {
            action: Action::Decline,
            content: None,
            meta: None,
            raw: None,
        }
    }

    /// `cancel`.
    pub fn cancel() -> Self {
        ElicitationResponse {
            action: Action::Cancel,
            content: None,
            meta: None,
            raw: None,
        }
    }

    /// Sets `_meta` ([E7](crate::rules#e7)).
    pub fn with_meta(mut self, meta: Option<Map<String, Value>>) -> Self {
        if let Some(raw) = &mut self.raw {
            match &meta {
                Some(m) => raw.insert("_meta".to_owned(), Value::Object(m.clone())),
                None => raw.shift_remove("_meta"),
            };
        }
        self.meta = meta;
        self
    }

    /// Parses the response from JSON ([R1](crate::rules#r1)–[R4](crate::rules#r4), [C6](crate::rules#c6), [E6](crate::rules#e6)).
    pub fn from_json(json: &Value) -> Result<Self, ResponseError> {
        let obj = json.as_object().ok_or(ResponseError::NotAnObject)?;
        let action = match obj.get("action") {
            Some(Value::String(a)) => Action::from_wire(a),
            Some(_) => return Err(ResponseError::ActionNotAString),
            None => return Err(ResponseError::MissingAction),
        };
        // `_meta` is default-on-error (C6): a malformed one reads as absent.
        let meta = obj.get("_meta").and_then(Value::as_object).cloned();
        let (content, raw) = match &action {
            Action::Accept => match obj.get("content") {
                // R2: absent and null are the same.
                None | Some(Value::Null) => (None, None),
                Some(c @ Value::Object(_)) => (Some(c.clone()), None),
                Some(_) => return Err(ResponseError::ContentNotAnObject),
            },
            // R2: content is meaningful only on accept; ignored otherwise.
            Action::Decline | Action::Cancel => (None, None),
            Action::Other(_) => (None, Some(obj.clone())),
        };
        Ok(ElicitationResponse {
            action,
            content,
            meta,
            raw,
        })
    }

    /// The wire JSON.
    pub fn to_json(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }

    /// The whole JSON-RPC response to `elicitation/create`: `{"jsonrpc": "2.0", "id",
    /// "result"}`.
    pub fn to_response(&self, id: &RequestId) -> Value {
        serde_json::json!({ "jsonrpc": "2.0", "id": id.to_json(), "result": self.to_json() })
    }

    /// What the user did.
    pub fn action(&self) -> &Action {
        &self.action
    }

    /// The submitted content, on `accept` only.
    pub fn content(&self) -> Option<&Map<String, Value>> {
        self.content.as_ref().and_then(Value::as_object)
    }

    /// The submitted content as a JSON value (always an object), on `accept` only.
    pub fn content_value(&self) -> Option<&Value> {
        self.content.as_ref()
    }

    /// `_meta` ([E7](crate::rules#e7)).
    pub fn meta(&self) -> Option<&Map<String, Value>> {
        self.meta.as_ref()
    }

    /// For an unknown action, the payload exactly as received ([E6](crate::rules#e6)).
    pub fn raw(&self) -> Option<&Map<String, Value>> {
        self.raw.as_ref()
    }
}

impl Serialize for ElicitationResponse {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if let Some(raw) = &self.raw {
            return raw.serialize(serializer);
        }
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("action", self.action.as_str())?;
        if let Some(c) = &self.content {
            map.serialize_entry("content", c)?;
        }
        if let Some(m) = &self.meta {
            map.serialize_entry("_meta", m)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for ElicitationResponse {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let json = Value::deserialize(deserializer)?;
        ElicitationResponse::from_json(&json).map_err(D::Error::custom)
    }
}

/// Why a response could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ResponseError {
    /// The result is not a JSON object.
    NotAnObject,
    /// No `action` member ([R1](crate::rules#r1)).
    MissingAction,
    /// `action` is not a string.
    ActionNotAString,
    /// `content` on `accept` is neither an object nor `null` ([R2](crate::rules#r2), [R3](crate::rules#r3)).
    ContentNotAnObject,
}

impl fmt::Display for ResponseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ResponseError::NotAnObject => "an elicitation response must be a JSON object",
            ResponseError::MissingAction => {
                "an elicitation response needs `action` (accept, decline or cancel)"
            }
            ResponseError::ActionNotAString => "`action` must be a string",
            ResponseError::ContentNotAnObject => {
                "`content` must be an object of property values (or absent)"
            }
        })
    }
}

impl std::error::Error for ResponseError {}
