//! MCP 2025-11-25: `elicitation/create` pushed by the server ([M1](crate::rules#m1)), the
//! `notifications/elicitation/complete` notification ([M3](crate::rules#m3)) and the `-32042` error ([M4](crate::rules#m4)).

use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{json, Map, Value};

use super::params::sealed::Sealed;
use super::{
    params_object, read_message, read_url, request_params, McpUrlParams,
    ELICITATION_COMPLETE_NOTIFICATION, ELICITATION_CREATE, URL_ELICITATION_REQUIRED,
};
use crate::protocol::capabilities::{read_meta, Mode};
use crate::protocol::complete::CompleteElicitation;
use crate::protocol::create::{checked_url, CreateElicitation, Scope};
use crate::protocol::error::ParamsError;
use crate::protocol::jsonrpc::{JsonRpcError, RequestId};
use crate::schema::Meta;

/// The protocol version string.
pub const PROTOCOL_VERSION: &str = "2025-11-25";

/// The params of a URL-mode request: `{"mode": "url", "message", "elicitationId",
/// "url", "_meta"?}`. No scope ([M1](crate::rules#m1)).
/// `Debug` shows the `url` by its origin only: a link may carry a one-time token.
#[derive(Clone, PartialEq, Eq)]
pub struct UrlParams {
    message: String,
    elicitation_id: String,
    url: String,
    meta: Option<Meta>,
}

impl std::fmt::Debug for UrlParams {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("UrlParams")
            .field("message", &self.message)
            .field("elicitation_id", &self.elicitation_id)
            .field("url", &crate::protocol::create::RedactedUrl(&self.url))
            .field("meta", &self.meta)
            .finish()
    }
}

impl UrlParams {
    /// URL params; refused when `url` is not an absolute URI.
    pub fn new(
        message: impl Into<String>,
        elicitation_id: impl Into<String>,
        url: impl Into<String>,
    ) -> Result<Self, ParamsError> {
        Ok(UrlParams {
            message: message.into(),
            elicitation_id: elicitation_id.into(),
            url: checked_url(url)?,
            meta: None,
        })
    }

    /// Sets `_meta`.
    pub fn with_meta(mut self, meta: Option<Meta>) -> Self {
        self.meta = meta;
        self
    }

    /// The message to show the user.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The server's id for this elicitation.
    pub fn elicitation_id(&self) -> &str {
        &self.elicitation_id
    }

    /// Where to send the user.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// `_meta`.
    pub fn meta(&self) -> Option<&Meta> {
        self.meta.as_ref()
    }

    /// Reads URL params (`mode` must be `"url"`).
    pub fn from_json(json: &Value) -> Result<Self, ParamsError> {
        let obj = params_object(json)?;
        match obj.get("mode") {
            Some(Value::String(mode)) if mode == Mode::Url.as_str() => Self::from_object(obj),
            None => Err(ParamsError::missing("mode")),
            Some(_) => Err(ParamsError::wrong_type("mode", "\"url\"")),
        }
    }

    /// The wire JSON.
    pub fn to_json(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }

    /// The ACP request for this URL in `scope` ([M1](crate::rules#m1): MCP has none, the caller knows it).
    pub fn into_acp(self, scope: Scope) -> CreateElicitation {
        CreateElicitation::url_unchecked(scope, self.message, self.elicitation_id, self.url)
            .with_meta(self.meta)
    }
}

impl McpUrlParams for UrlParams {}

impl Sealed for UrlParams {
    fn message(&self) -> &str {
        &self.message
    }

    fn from_object(obj: &Map<String, Value>) -> Result<Self, ParamsError> {
        let message = read_message(obj)?;
        let elicitation_id = match obj.get("elicitationId") {
            Some(Value::String(id)) => id.clone(),
            None => return Err(ParamsError::missing("elicitationId")),
            Some(_) => return Err(ParamsError::wrong_type("elicitationId", "a string")),
        };
        Ok(UrlParams {
            message,
            elicitation_id,
            url: read_url(obj)?,
            meta: read_meta(obj),
        })
    }

    fn write<M: SerializeMap>(&self, map: &mut M) -> Result<(), M::Error> {
        map.serialize_entry("mode", Mode::Url.as_str())?;
        map.serialize_entry("message", &self.message)?;
        map.serialize_entry("elicitationId", &self.elicitation_id)?;
        map.serialize_entry("url", &self.url)?;
        if let Some(meta) = &self.meta {
            map.serialize_entry("_meta", meta)?;
        }
        Ok(())
    }

    fn from_acp(acp: &CreateElicitation, elicitation_id: &str, url: &str) -> Self {
        UrlParams {
            message: acp.message().to_owned(),
            elicitation_id: elicitation_id.to_owned(),
            url: url.to_owned(),
            meta: acp.meta().cloned(),
        }
    }
}

impl Serialize for UrlParams {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        self.write(&mut map)?;
        map.end()
    }
}

impl<'de> Deserialize<'de> for UrlParams {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let json = Value::deserialize(deserializer)?;
        UrlParams::from_json(&json).map_err(serde::de::Error::custom)
    }
}

/// The params of `elicitation/create` in MCP 2025-11-25: form or URL, no scope ([M1](crate::rules#m1));
/// the URL params have an `elicitationId`.
///
/// Reading, writing and the conversion from ACP are those of the generic
/// [`mcp::ElicitRequestParams`](super::ElicitRequestParams); the conversion to ACP is
/// this version's.
pub type ElicitRequestParams = super::ElicitRequestParams<UrlParams>;

impl ElicitRequestParams {
    /// The ACP request for these params in `scope` ([M1](crate::rules#m1): MCP has no scope; an agent
    /// relaying an MCP server's elicitation during a tool call uses
    /// [`Scope::tool_call`]).
    pub fn into_acp(self, scope: Scope) -> CreateElicitation {
        match self {
            ElicitRequestParams::Form(f) => f.into_acp(scope),
            ElicitRequestParams::Url(u) => u.into_acp(scope),
        }
    }
}

/// A whole `elicitation/create` request: `{"jsonrpc": "2.0", "id", "method",
/// "params"}`.
#[derive(Debug, Clone, PartialEq)]
pub struct ElicitRequest {
    /// The JSON-RPC id.
    pub id: RequestId,
    /// The params.
    pub params: ElicitRequestParams,
}

impl ElicitRequest {
    /// Reads a request: `method` must be `elicitation/create`, `id` a string or an
    /// integer, `params` valid.
    pub fn from_json(json: &Value) -> Result<Self, ParamsError> {
        let params = request_params(json)?;
        let id = match json.get("id") {
            Some(id) => RequestId::from_json(id)
                .filter(|id| !id.is_null())
                .ok_or_else(|| ParamsError::wrong_type("id", "a string or an integer"))?,
            None => return Err(ParamsError::missing("id")),
        };
        let params = ElicitRequestParams::from_json(params).map_err(|e| e.under("/params"))?;
        Ok(ElicitRequest { id, params })
    }

    /// The wire JSON.
    pub fn to_json(&self) -> Value {
        json!({ "jsonrpc": "2.0", "id": self.id.to_json(), "method": ELICITATION_CREATE, "params": self.params.to_json() })
    }
}

/// The params of `notifications/elicitation/complete` ([M3](crate::rules#m3)): `{"elicitationId",
/// "_meta"?}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ElicitationCompleteNotification {
    elicitation_id: String,
    meta: Option<Meta>,
}

impl ElicitationCompleteNotification {
    /// The notification method ([M3](crate::rules#m3)).
    pub const METHOD: &'static str = ELICITATION_COMPLETE_NOTIFICATION;

    /// The notification for this id.
    pub fn new(elicitation_id: impl Into<String>) -> Self {
        ElicitationCompleteNotification {
            elicitation_id: elicitation_id.into(),
            meta: None,
        }
    }

    /// The id of the URL elicitation that completed.
    pub fn elicitation_id(&self) -> &str {
        &self.elicitation_id
    }

    /// `_meta`.
    pub fn meta(&self) -> Option<&Meta> {
        self.meta.as_ref()
    }

    /// Reads the params.
    pub fn from_json(json: &Value) -> Result<Self, ParamsError> {
        let acp = CompleteElicitation::from_json(json)?;
        Ok(Self::from(&acp))
    }

    /// The params' wire JSON.
    pub fn to_json(&self) -> Value {
        CompleteElicitation::from(self).to_json()
    }

    /// The whole notification: `{"jsonrpc": "2.0", "method", "params"}`.
    pub fn to_notification(&self) -> Value {
        json!({ "jsonrpc": "2.0", "method": Self::METHOD, "params": self.to_json() })
    }
}

impl From<&CompleteElicitation> for ElicitationCompleteNotification {
    /// The same notice under MCP's method name ([M3](crate::rules#m3)).
    fn from(acp: &CompleteElicitation) -> Self {
        ElicitationCompleteNotification {
            elicitation_id: acp.elicitation_id().to_owned(),
            meta: acp.meta().cloned(),
        }
    }
}

impl From<&ElicitationCompleteNotification> for CompleteElicitation {
    /// The same notice under ACP's method name ([U5](crate::rules#u5)).
    fn from(mcp: &ElicitationCompleteNotification) -> Self {
        CompleteElicitation::new(mcp.elicitation_id.clone()).with_meta(mcp.meta.clone())
    }
}

impl Serialize for ElicitationCompleteNotification {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        CompleteElicitation::from(self).serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for ElicitationCompleteNotification {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let json = Value::deserialize(deserializer)?;
        ElicitationCompleteNotification::from_json(&json).map_err(serde::de::Error::custom)
    }
}

/// The `-32042` error a server answers with when the request needs the user to go
/// through these URL elicitations first ([M4](crate::rules#m4)): `data: {"elicitations": [...]}`.
pub fn url_elicitation_required(
    message: impl Into<String>,
    elicitations: &[UrlParams],
) -> JsonRpcError {
    let elicitations: Vec<Value> = elicitations.iter().map(UrlParams::to_json).collect();
    JsonRpcError::new(
        URL_ELICITATION_REQUIRED,
        message,
        Some(json!({ "elicitations": elicitations })),
    )
}

/// The URL elicitations a `-32042` error asks for ([M4](crate::rules#m4)); `None` for any other error.
pub fn required_url_elicitations(
    error: &JsonRpcError,
) -> Option<Result<Vec<UrlParams>, ParamsError>> {
    if error.code() != URL_ELICITATION_REQUIRED {
        return None;
    }
    let read = || {
        let list = match error.data().and_then(|d| d.get("elicitations")) {
            Some(Value::Array(list)) => list,
            None => return Err(ParamsError::missing("elicitations")),
            Some(_) => {
                return Err(ParamsError::wrong_type(
                    "elicitations",
                    "an array of URL params",
                ))
            }
        };
        list.iter()
            .enumerate()
            .map(|(i, item)| {
                UrlParams::from_json(item).map_err(|e| e.under(&format!("/elicitations/{i}")))
            })
            .collect()
    };
    Some(read())
}
