//! MCP 2026-07-28 ([M6](crate::rules#m6)): elicitations travel inside an `InputRequiredResult`
//! (`inputRequests`, keyed by the server) and come back in `inputResponses`; URL params
//! have no `elicitationId`; there is no completion notification and no `-32042`; the
//! client's capabilities come with every request in
//! `_meta["io.modelcontextprotocol/clientCapabilities"]`, and a missing one is `-32021`.

use serde::ser::SerializeMap;
use serde_json::{json, Map, Value};

use super::params::sealed::Sealed;
use super::{
    params_object, read_message, read_url, request_params, ConversionError, ElicitResult,
    McpElicitationCapabilities, McpUrlParams, CLIENT_CAPABILITIES_META_KEY, ELICITATION_CREATE,
    MISSING_REQUIRED_CLIENT_CAPABILITY,
};
use crate::protocol::capabilities::{read_meta, Mode};
use crate::protocol::create::{checked_url, CreateElicitation, Scope};
use crate::protocol::error::ParamsError;
use crate::protocol::jsonrpc::JsonRpcError;
use crate::schema::Meta;

/// The protocol version string.
pub const PROTOCOL_VERSION: &str = "2026-07-28";

/// The `resultType` of an [`InputRequiredResult`].
pub const INPUT_REQUIRED: &str = "input_required";

/// The params of a URL-mode request: `{"mode": "url", "message", "url"}`. No
/// `elicitationId` ([M6](crate::rules#m6)) and no scope ([M1](crate::rules#m1)).
/// `Debug` shows the `url` by its origin only: a link may carry a one-time token.
#[derive(Clone, PartialEq, Eq)]
pub struct UrlParams {
    message: String,
    url: String,
}

impl std::fmt::Debug for UrlParams {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("UrlParams")
            .field("message", &self.message)
            .field("url", &crate::protocol::create::RedactedUrl(&self.url))
            .finish()
    }
}

impl UrlParams {
    /// URL params; refused when `url` is not an absolute URI.
    pub fn new(message: impl Into<String>, url: impl Into<String>) -> Result<Self, ParamsError> {
        Ok(UrlParams {
            message: message.into(),
            url: checked_url(url)?,
        })
    }

    /// The message to show the user.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// Where to send the user.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The ACP request for this URL in `scope`, with an `elicitationId` the agent
    /// mints ([U4](crate::rules#u4)): ACP requires one and this version has none ([M6](crate::rules#m6)).
    pub fn into_acp(self, scope: Scope, elicitation_id: impl Into<String>) -> CreateElicitation {
        CreateElicitation::url_unchecked(scope, self.message, elicitation_id.into(), self.url)
    }
}

impl McpUrlParams for UrlParams {}

impl Sealed for UrlParams {
    fn message(&self) -> &str {
        &self.message
    }

    fn from_object(obj: &Map<String, Value>) -> Result<Self, ParamsError> {
        Ok(UrlParams {
            message: read_message(obj)?,
            url: read_url(obj)?,
        })
    }

    fn write<M: SerializeMap>(&self, map: &mut M) -> Result<(), M::Error> {
        map.serialize_entry("mode", Mode::Url.as_str())?;
        map.serialize_entry("message", &self.message)?;
        map.serialize_entry("url", &self.url)
    }

    /// [M6](crate::rules#m6): the `elicitationId` is dropped; the agent keeps the mapping from its
    /// input-request key.
    fn from_acp(acp: &CreateElicitation, _elicitation_id: &str, url: &str) -> Self {
        UrlParams {
            message: acp.message().to_owned(),
            url: url.to_owned(),
        }
    }
}

/// The params of `elicitation/create` in MCP 2026-07-28: form or URL, no scope ([M1](crate::rules#m1));
/// the URL params have no `elicitationId` ([M6](crate::rules#m6)).
///
/// Reading, writing and the conversion from ACP are those of the generic
/// [`mcp::ElicitRequestParams`](super::ElicitRequestParams); the conversion to ACP is
/// this version's.
pub type ElicitRequestParams = super::ElicitRequestParams<UrlParams>;

impl ElicitRequestParams {
    /// The ACP request for these params in `scope`. A URL request needs an
    /// `elicitationId` the agent mints ([U4](crate::rules#u4)); without one it is refused.
    pub fn into_acp(
        self,
        scope: Scope,
        elicitation_id: Option<String>,
    ) -> Result<CreateElicitation, ConversionError> {
        match self {
            ElicitRequestParams::Form(f) => Ok(f.into_acp(scope)),
            ElicitRequestParams::Url(u) => match elicitation_id {
                Some(id) => Ok(u.into_acp(scope, id)),
                None => Err(ConversionError::MissingElicitationId),
            },
        }
    }
}

/// An elicitation as an input request: `{"method": "elicitation/create", "params"}`.
#[derive(Debug, Clone, PartialEq)]
pub struct ElicitRequest {
    /// The params.
    pub params: ElicitRequestParams,
}

impl ElicitRequest {
    /// Reads `{"method": "elicitation/create", "params"}`.
    pub fn from_json(json: &Value) -> Result<Self, ParamsError> {
        let params = request_params(json)?;
        let params = ElicitRequestParams::from_json(params).map_err(|e| e.under("/params"))?;
        Ok(ElicitRequest { params })
    }

    /// The wire JSON.
    pub fn to_json(&self) -> Value {
        json!({ "method": ELICITATION_CREATE, "params": self.params.to_json() })
    }
}

/// One entry of `inputRequests`. Read from the wire, an entry whose `method` is
/// `elicitation/create` is parsed (schemas leniently, [M5](crate::rules#m5)); any other is kept as
/// received.
#[derive(Debug, Clone, PartialEq)]
pub enum InputRequest {
    /// An elicitation.
    Elicitation(ElicitRequestParams),
    /// Any other input request (sampling, roots), kept as received.
    Other(Map<String, Value>),
}

impl InputEntry for InputRequest {}

impl entry::Sealed for InputRequest {
    fn from_json(json: &Value) -> Result<Self, ParamsError> {
        let obj = params_object(json)?;
        match obj.get("method") {
            Some(Value::String(m)) if m == ELICITATION_CREATE => {
                ElicitRequest::from_json(json).map(|r| InputRequest::Elicitation(r.params))
            }
            Some(Value::String(_)) => Ok(InputRequest::Other(obj.clone())),
            None => Err(ParamsError::missing("method")),
            Some(_) => Err(ParamsError::wrong_type("method", "a string")),
        }
    }

    fn to_json(&self) -> Value {
        match self {
            InputRequest::Elicitation(params) => ElicitRequest {
                params: params.clone(),
            }
            .to_json(),
            InputRequest::Other(raw) => Value::Object(raw.clone()),
        }
    }
}

/// An entry of a [`Keyed`] map: [`InputRequest`] or [`InputResponse`].
///
/// This trait is sealed: those two types implement it and nothing outside this crate
/// can. How an entry is read and written is private to this module.
pub trait InputEntry: entry::Sealed {}

mod entry {
    use serde_json::Value;

    use crate::protocol::error::ParamsError;

    /// What [`super::Keyed`] needs of an entry. Public in a private module, so that
    /// [`super::InputEntry`] is sealed.
    pub trait Sealed: Sized {
        /// Reads a member's value; an error's pointer is relative to the value.
        fn from_json(json: &Value) -> Result<Self, ParamsError>;

        /// The member's wire JSON.
        fn to_json(&self) -> Value;
    }
}

/// Entries under server-assigned keys, in order: the shape of `inputRequests` and
/// `inputResponses` ([M6](crate::rules#m6)), named through the aliases [`InputRequests`] and
/// [`InputResponses`]. Entries are written in the order they were read or first
/// inserted; inserting under a key already present replaces that entry in its place.
#[derive(Debug, Clone, PartialEq)]
pub struct Keyed<T: InputEntry> {
    entries: Vec<(String, T)>,
}

impl<T: InputEntry> Default for Keyed<T> {
    /// No entries.
    fn default() -> Self {
        Keyed {
            entries: Vec::new(),
        }
    }
}

impl<T: InputEntry> Keyed<T> {
    /// No entries.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds (or replaces) the entry under `key`.
    pub fn insert(&mut self, key: String, entry: T) {
        match self.entries.iter_mut().find(|(k, _)| *k == key) {
            Some(slot) => slot.1 = entry,
            None => self.entries.push((key, entry)),
        }
    }

    /// The entry under `key`.
    pub fn get(&self, key: &str) -> Option<&T> {
        self.entries.iter().find(|(k, _)| k == key).map(|(_, e)| e)
    }

    /// Every entry, in order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &T)> + '_ {
        self.entries.iter().map(|(k, e)| (k.as_str(), e))
    }

    /// The number of entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Reads the map, in the wire's member order; each entry as its type says
    /// ([`InputRequest`], [`InputResponse`]). An error's pointer starts at the entry's
    /// key.
    pub fn from_json(json: &Value) -> Result<Self, ParamsError> {
        let obj = params_object(json)?;
        let entries = obj
            .iter()
            .map(|(key, value)| {
                T::from_json(value)
                    .map(|e| (key.clone(), e))
                    .map_err(|e| e.under(&format!("/{}", escape_pointer(key))))
            })
            .collect::<Result<_, _>>()?;
        Ok(Keyed { entries })
    }

    /// The wire JSON, entries in order.
    pub fn to_json(&self) -> Value {
        Value::Object(
            self.entries
                .iter()
                .map(|(k, e)| (k.clone(), e.to_json()))
                .collect(),
        )
    }
}

/// `inputRequests`: input requests keyed by server-assigned keys, in order ([M6](crate::rules#m6)).
pub type InputRequests = Keyed<InputRequest>;

impl InputRequests {
    /// Adds (or replaces) an elicitation under `key`.
    pub fn insert_elicitation(&mut self, key: impl Into<String>, params: ElicitRequestParams) {
        self.insert(key.into(), InputRequest::Elicitation(params));
    }

    /// The elicitations, with their keys, in order.
    pub fn elicitations(&self) -> impl Iterator<Item = (&str, &ElicitRequestParams)> + '_ {
        self.entries.iter().filter_map(|(k, r)| match r {
            InputRequest::Elicitation(p) => Some((k.as_str(), p)),
            InputRequest::Other(_) => None,
        })
    }
}

/// The result a server returns when it needs input first ([M6](crate::rules#m6)):
/// `{"resultType": "input_required", "inputRequests"?, "requestState"?, "_meta"?}`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct InputRequiredResult {
    /// The input requests.
    pub input_requests: Option<InputRequests>,
    /// Opaque state the client sends back with its responses.
    pub request_state: Option<String>,
    /// `_meta`.
    pub meta: Option<Meta>,
}

impl InputRequiredResult {
    /// Reads the result; `resultType` must be `input_required`.
    pub fn from_json(json: &Value) -> Result<Self, ParamsError> {
        let obj = params_object(json)?;
        match obj.get("resultType") {
            Some(Value::String(t)) if t == INPUT_REQUIRED => {}
            None => return Err(ParamsError::missing("resultType")),
            Some(_) => return Err(ParamsError::wrong_type("resultType", "\"input_required\"")),
        }
        let input_requests = match obj.get("inputRequests") {
            None | Some(Value::Null) => None,
            Some(requests) => {
                Some(InputRequests::from_json(requests).map_err(|e| e.under("/inputRequests"))?)
            }
        };
        let request_state = match obj.get("requestState") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(s.clone()),
            Some(_) => return Err(ParamsError::wrong_type("requestState", "a string")),
        };
        Ok(InputRequiredResult {
            input_requests,
            request_state,
            meta: read_meta(obj),
        })
    }

    /// The wire JSON.
    pub fn to_json(&self) -> Value {
        let mut map = Map::new();
        map.insert("resultType".to_owned(), Value::from(INPUT_REQUIRED));
        if let Some(requests) = &self.input_requests {
            map.insert("inputRequests".to_owned(), requests.to_json());
        }
        if let Some(state) = &self.request_state {
            map.insert("requestState".to_owned(), Value::from(state.clone()));
        }
        if let Some(meta) = &self.meta {
            map.insert("_meta".to_owned(), Value::Object(meta.clone()));
        }
        Value::Object(map)
    }
}

/// One entry of `inputResponses`. Read from the wire, an entry with an `action` member
/// is read as an elicitation result (and refused if malformed); any other object is
/// kept as received.
#[derive(Debug, Clone, PartialEq)]
pub enum InputResponse {
    /// The answer to an elicitation.
    Elicitation(ElicitResult),
    /// Any other input response (sampling, roots), kept as received.
    Other(Map<String, Value>),
}

impl InputEntry for InputResponse {}

impl entry::Sealed for InputResponse {
    fn from_json(json: &Value) -> Result<Self, ParamsError> {
        let obj = params_object(json)?;
        if obj.contains_key("action") {
            ElicitResult::from_json(json).map(InputResponse::Elicitation)
        } else {
            Ok(InputResponse::Other(obj.clone()))
        }
    }

    fn to_json(&self) -> Value {
        match self {
            InputResponse::Elicitation(result) => result.to_json(),
            InputResponse::Other(raw) => Value::Object(raw.clone()),
        }
    }
}

/// `inputResponses`: the client's answers, keyed as the requests were ([M6](crate::rules#m6)).
pub type InputResponses = Keyed<InputResponse>;

impl InputResponses {
    /// Adds (or replaces) the answer to the elicitation under `key`.
    pub fn insert_elicitation(&mut self, key: impl Into<String>, result: ElicitResult) {
        self.insert(key.into(), InputResponse::Elicitation(result));
    }

    /// The answer to the elicitation sent under `key`, if that entry is one.
    pub fn elicitation(&self, key: &str) -> Option<&ElicitResult> {
        match self.get(key)? {
            InputResponse::Elicitation(result) => Some(result),
            InputResponse::Other(_) => None,
        }
    }
}

/// The client's elicitation capability as sent with a request ([M6](crate::rules#m6)): read from
/// `params._meta["io.modelcontextprotocol/clientCapabilities"].elicitation`, with MCP
/// semantics ([M2](crate::rules#m2)).
pub fn client_capabilities_from_meta(
    request_meta: &Map<String, Value>,
) -> McpElicitationCapabilities {
    McpElicitationCapabilities::from_json(
        request_meta
            .get(CLIENT_CAPABILITIES_META_KEY)
            .and_then(|caps| caps.get("elicitation")),
    )
}

/// The `-32021` error a server answers with when the request needs an elicitation
/// capability the client did not send ([M6](crate::rules#m6)): `data: {"requiredCapabilities":
/// {"elicitation": …}}`.
pub fn missing_required_capability(
    message: impl Into<String>,
    required: &McpElicitationCapabilities,
) -> JsonRpcError {
    let elicitation = required.to_json().unwrap_or_else(|| json!({}));
    JsonRpcError::new(
        MISSING_REQUIRED_CLIENT_CAPABILITY,
        message,
        Some(json!({ "requiredCapabilities": { "elicitation": elicitation } })),
    )
}

/// The elicitation capability a `-32021` error asks for; `None` for any other error or
/// when it asks for no elicitation capability.
pub fn required_capability(error: &JsonRpcError) -> Option<McpElicitationCapabilities> {
    if error.code() != MISSING_REQUIRED_CLIENT_CAPABILITY {
        return None;
    }
    let caps = McpElicitationCapabilities::from_json(
        error
            .data()?
            .get("requiredCapabilities")?
            .get("elicitation"),
    );
    caps.is_present().then_some(caps)
}

/// RFC 6901: `~` and `/` in a key are escaped in a pointer.
fn escape_pointer(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}
