//! JSON-RPC pieces the elicitation messages need: request ids ([E3](crate::rules#e3)) and the error
//! objects a client answers with ([C8](crate::rules#c8), [D1](crate::rules#d1)).
//!
//! A client that cannot honour an `elicitation/create` answers with an error instead of
//! a result. The cases the spec names are all "Invalid params" (`-32602`): a mode the
//! client did not declare ([C8](crate::rules#c8)), a mode or mode payload it cannot read, a schema it
//! refuses, a scope that is not exactly one of session or request ([D1](crate::rules#d1)). The `data`
//! member says which, in a form a program can branch on (`reason`, stable snake_case)
//! and a person can read (`message`), with the JSON pointer of the offending member
//! when there is one.

use std::fmt;

use serde::de::Error as _;
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{json, Map, Value};

use super::capabilities::Mode;

/// JSON-RPC "Invalid params": the code for every refusal of an `elicitation/create`
/// ([C8](crate::rules#c8), [D1](crate::rules#d1)).
pub const INVALID_PARAMS: i64 = -32602;

/// A JSON-RPC request id: a string or an int64 integer ([E3](crate::rules#e3)).
///
/// ACP v1 also allows `null`; v2 forbids it. A `null` id is therefore accepted when a
/// message is read and kept so the message can be forwarded as received, but this
/// crate offers no way to build one: every constructor takes a string or an integer.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct RequestId(Repr);

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Repr {
    Str(String),
    Number(i64),
    /// Only ever read from the wire ([E3](crate::rules#e3), v1), never built.
    Null,
}

impl RequestId {
    /// A string id.
    pub fn string(id: impl Into<String>) -> Self {
        RequestId(Repr::Str(id.into()))
    }

    /// An integer id.
    pub fn number(id: i64) -> Self {
        RequestId(Repr::Number(id))
    }

    /// The id if it is a string.
    pub fn as_str(&self) -> Option<&str> {
        match &self.0 {
            Repr::Str(s) => Some(s),
            _ => None,
        }
    }

    /// The id if it is an integer.
    pub fn as_i64(&self) -> Option<i64> {
        match self.0 {
            Repr::Number(n) => Some(n),
            _ => None,
        }
    }

    /// Whether this is the `null` id some v1 peers send ([E3](crate::rules#e3)). Only a message read from
    /// the wire can carry one.
    pub fn is_null(&self) -> bool {
        matches!(self.0, Repr::Null)
    }

    /// The wire JSON.
    pub fn to_json(&self) -> Value {
        match &self.0 {
            Repr::Str(s) => Value::String(s.clone()),
            Repr::Number(n) => Value::from(*n),
            Repr::Null => Value::Null,
        }
    }

    /// Reads an id: a string, an integer that fits in an int64, or `null` ([E3](crate::rules#e3), v1).
    /// `None` for anything else (a fraction, an integer beyond int64, a bool, …).
    pub(crate) fn from_json(json: &Value) -> Option<RequestId> {
        match json {
            Value::String(s) => Some(RequestId::string(s.clone())),
            Value::Number(n) => n.as_i64().map(RequestId::number),
            Value::Null => Some(RequestId(Repr::Null)),
            _ => None,
        }
    }
}

impl From<i64> for RequestId {
    fn from(id: i64) -> Self {
        RequestId::number(id)
    }
}

impl From<String> for RequestId {
    fn from(id: String) -> Self {
        RequestId::string(id)
    }
}

impl From<&str> for RequestId {
    fn from(id: &str) -> Self {
        RequestId::string(id)
    }
}

impl fmt::Display for RequestId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            Repr::Str(s) => write!(f, "{s:?}"),
            Repr::Number(n) => write!(f, "{n}"),
            Repr::Null => f.write_str("null"),
        }
    }
}

impl Serialize for RequestId {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match &self.0 {
            Repr::Str(s) => serializer.serialize_str(s),
            Repr::Number(n) => serializer.serialize_i64(*n),
            Repr::Null => serializer.serialize_unit(),
        }
    }
}

impl<'de> Deserialize<'de> for RequestId {
    /// Reads a string, an int64 or `null` ([E3](crate::rules#e3), v1).
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let json = Value::deserialize(deserializer)?;
        RequestId::from_json(&json)
            .ok_or_else(|| D::Error::custom("a JSON-RPC id must be a string or an int64 integer"))
    }
}

/// Why a client refuses an elicitation request: the stable, machine-readable `reason`
/// in the `data` of a `-32602` error.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum InvalidParamsReason {
    /// The params are not a JSON object.
    NotAnObject,
    /// `message` is missing or not a string ([E4](crate::rules#e4)).
    InvalidMessage,
    /// `mode` is missing or not a string ([E2](crate::rules#e2)).
    InvalidMode,
    /// A known mode the client did not declare in its capabilities ([C7](crate::rules#c7), [C8](crate::rules#c8)).
    UndeclaredMode,
    /// A custom or future mode the client does not handle ([E6](crate::rules#e6)).
    UnsupportedMode,
    /// Not exactly one scope: both `sessionId` and `requestId`, neither, `toolCallId`
    /// without `sessionId`, or a scope member of the wrong type ([E3](crate::rules#e3), [D1](crate::rules#d1)).
    BadScope,
    /// `requestedSchema` is missing or breaks the schema rules ([F1](crate::rules#f1), [F2](crate::rules#f2), [D2](crate::rules#d2)–[D14](crate::rules#d14)).
    MalformedSchema,
    /// URL mode without a string `elicitationId`, or without an absolute `url` ([U1](crate::rules#u1)).
    InvalidUrlParams,
    /// `elicitationId` missing or not a string in `elicitation/complete` ([U5](crate::rules#u5)).
    InvalidElicitationId,
    /// Any other member missing or of the wrong type (an MCP envelope's `method`,
    /// `params` or `id`, a result's `action`, …).
    Malformed,
}

impl InvalidParamsReason {
    /// The stable wire name, written in `error.data.reason`.
    pub const fn as_str(self) -> &'static str {
        match self {
            InvalidParamsReason::NotAnObject => "params_not_an_object",
            InvalidParamsReason::InvalidMessage => "invalid_message",
            InvalidParamsReason::InvalidMode => "invalid_mode",
            InvalidParamsReason::UndeclaredMode => "undeclared_mode",
            InvalidParamsReason::UnsupportedMode => "unsupported_mode",
            InvalidParamsReason::BadScope => "bad_scope",
            InvalidParamsReason::MalformedSchema => "malformed_schema",
            InvalidParamsReason::InvalidUrlParams => "invalid_url_params",
            InvalidParamsReason::InvalidElicitationId => "invalid_elicitation_id",
            InvalidParamsReason::Malformed => "malformed_params",
        }
    }

    /// Every reason, for tables and tests.
    pub const ALL: [InvalidParamsReason; 10] = [
        InvalidParamsReason::NotAnObject,
        InvalidParamsReason::InvalidMessage,
        InvalidParamsReason::InvalidMode,
        InvalidParamsReason::UndeclaredMode,
        InvalidParamsReason::UnsupportedMode,
        InvalidParamsReason::BadScope,
        InvalidParamsReason::MalformedSchema,
        InvalidParamsReason::InvalidUrlParams,
        InvalidParamsReason::InvalidElicitationId,
        InvalidParamsReason::Malformed,
    ];

    /// The reason with this wire name.
    pub fn from_wire(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|r| r.as_str() == name)
    }
}

impl fmt::Display for InvalidParamsReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A JSON-RPC error object: `{"code", "message", "data"?}`.
///
/// Built by this crate for the refusals of `elicitation/create` (code
/// [`INVALID_PARAMS`]) and, in [`super::mcp`], for MCP's `-32042` and `-32021`.
#[derive(Debug, Clone, PartialEq)]
pub struct JsonRpcError {
    code: i64,
    message: String,
    data: Option<Value>,
}

impl JsonRpcError {
    /// An error with any code. Prefer the named constructors.
    pub fn new(code: i64, message: impl Into<String>, data: Option<Value>) -> Self {
        JsonRpcError {
            code,
            message: message.into(),
            data,
        }
    }

    /// `-32602` with `data: {"reason", "message", "pointer"?}`.
    ///
    /// `detail` is the human explanation; `pointer` the JSON pointer (RFC 6901) of the
    /// offending member of the params, when there is one.
    pub fn invalid_params(
        reason: InvalidParamsReason,
        detail: impl Into<String>,
        pointer: Option<&str>,
    ) -> Self {
        let detail = detail.into();
        let mut data = Map::new();
        data.insert("reason".to_owned(), Value::from(reason.as_str()));
        data.insert("message".to_owned(), Value::from(detail.clone()));
        if let Some(pointer) = pointer {
            data.insert("pointer".to_owned(), Value::from(pointer));
        }
        JsonRpcError {
            code: INVALID_PARAMS,
            message: format!("Invalid params: {detail}"),
            data: Some(Value::Object(data)),
        }
    }

    /// `-32602` for a request in a mode the client did not declare ([C7](crate::rules#c7), [C8](crate::rules#c8)).
    pub fn undeclared_mode(mode: Mode) -> Self {
        let mut error = Self::invalid_params(
            InvalidParamsReason::UndeclaredMode,
            format!(
                "the client did not declare the `{}` elicitation mode in its capabilities",
                mode.as_str()
            ),
            Some("/mode"),
        );
        error.insert_data("mode", Value::from(mode.as_str()));
        error
    }

    /// `-32602` for a custom or future mode this client does not handle ([E6](crate::rules#e6)).
    pub fn unsupported_mode(mode: &str) -> Self {
        let mut error = Self::invalid_params(
            InvalidParamsReason::UnsupportedMode,
            format!("the client does not support the elicitation mode {mode:?}"),
            Some("/mode"),
        );
        error.insert_data("mode", Value::from(mode));
        error
    }

    /// Adds a member to `data` (which must be an object or absent).
    pub(crate) fn insert_data(&mut self, key: &str, value: Value) {
        match &mut self.data {
            Some(Value::Object(data)) => {
                data.insert(key.to_owned(), value);
            }
            None => {
                let mut data = Map::new();
                data.insert(key.to_owned(), value);
                self.data = Some(Value::Object(data));
            }
            Some(_) => {}
        }
    }

    /// The error code.
    pub fn code(&self) -> i64 {
        self.code
    }

    /// The one-line message.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The `data` member.
    pub fn data(&self) -> Option<&Value> {
        self.data.as_ref()
    }

    /// For a `-32602` built by this crate, the machine-readable reason in `data`.
    pub fn reason(&self) -> Option<InvalidParamsReason> {
        if self.code != INVALID_PARAMS {
            return None;
        }
        self.data
            .as_ref()?
            .get("reason")?
            .as_str()
            .and_then(InvalidParamsReason::from_wire)
    }

    /// The wire JSON of the error object.
    pub fn to_json(&self) -> Value {
        let mut map = Map::new();
        map.insert("code".to_owned(), Value::from(self.code));
        map.insert("message".to_owned(), Value::from(self.message.clone()));
        if let Some(data) = &self.data {
            map.insert("data".to_owned(), data.clone());
        }
        Value::Object(map)
    }

    /// The whole JSON-RPC error response: `{"jsonrpc": "2.0", "id", "error"}`.
    pub fn to_response(&self, id: &RequestId) -> Value {
        json!({ "jsonrpc": "2.0", "id": id.to_json(), "error": self.to_json() })
    }

    /// Reads an error object. `None` when `code` is not an integer or `message` not a
    /// string.
    pub fn from_json(json: &Value) -> Option<Self> {
        let obj = json.as_object()?;
        Some(JsonRpcError {
            code: obj.get("code")?.as_i64()?,
            message: obj.get("message")?.as_str()?.to_owned(),
            data: obj.get("data").cloned(),
        })
    }
}

impl fmt::Display for JsonRpcError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "JSON-RPC error {}: {}", self.code, self.message)
    }
}

impl std::error::Error for JsonRpcError {}

impl Serialize for JsonRpcError {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("code", &self.code)?;
        map.serialize_entry("message", &self.message)?;
        if let Some(data) = &self.data {
            map.serialize_entry("data", data)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for JsonRpcError {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let json = Value::deserialize(deserializer)?;
        JsonRpcError::from_json(&json).ok_or_else(|| {
            D::Error::custom("a JSON-RPC error needs an integer `code` and a string `message`")
        })
    }
}
