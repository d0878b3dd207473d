//! The params of `elicitation/create` ([E1](crate::rules#e1)–[E7](crate::rules#e7), [U1](crate::rules#u1), [D1](crate::rules#d1)).
//!
//! One type for the three shapes a request can take: form (`requestedSchema`), URL
//! (`elicitationId`, `url`) and a custom or future mode this crate does not know. The
//! last is kept as received, member for member, and can never be read as form or URL
//! ([E6](crate::rules#e6)). A malformed *known* mode (`"mode": "form"` without a schema) is an error, not
//! an unknown mode.
//!
//! Scope is flattened into the params ([E3](crate::rules#e3)): `sessionId` (+ `toolCallId`) or
//! `requestId`, exactly one ([D1](crate::rules#d1)). [`Scope`] makes any other combination impossible to
//! build; reading one is an error a client answers with `-32602`.

use std::fmt;
use std::ops::Deref;

use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{json, Map, Value};

use super::capabilities::{read_meta, Mode};
use super::error::{ParamsError, ParamsErrorKind};
use super::jsonrpc::RequestId;
use super::version::{v2_schema_json, AcpVersion};
use super::ELICITATION_CREATE;
use crate::format::Format;
use crate::schema::{Meta, ParseOptions, RequestedSchema};

/// What an elicitation is tied to ([E3](crate::rules#e3)): a session (optionally one tool call in it), or
/// a JSON-RPC request made outside any session (e.g. during authentication).
///
/// Exactly one scope per request ([D1](crate::rules#d1)); `toolCallId` exists only inside a session scope.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Scope {
    /// `sessionId`, and `toolCallId` when the elicitation belongs to one tool call.
    Session {
        /// The session.
        session_id: String,
        /// The tool call within the session, if any.
        tool_call_id: Option<String>,
    },
    /// `requestId`: the pending client-to-agent request this elicitation belongs to.
    Request {
        /// The JSON-RPC id of that request.
        request_id: RequestId,
    },
}

impl Scope {
    /// A session scope.
    pub fn session(session_id: impl Into<String>) -> Self {
        Scope::Session {
            session_id: session_id.into(),
            tool_call_id: None,
        }
    }

    /// A session scope narrowed to one tool call.
    pub fn tool_call(session_id: impl Into<String>, tool_call_id: impl Into<String>) -> Self {
        Scope::Session {
            session_id: session_id.into(),
            tool_call_id: Some(tool_call_id.into()),
        }
    }

    /// A request scope (a string or integer id; never `null`, [E3](crate::rules#e3)).
    pub fn request(request_id: impl Into<RequestId>) -> Self {
        Scope::Request {
            request_id: request_id.into(),
        }
    }

    /// The session, for a session scope.
    pub fn session_id(&self) -> Option<&str> {
        match self {
            Scope::Session { session_id, .. } => Some(session_id),
            Scope::Request { .. } => None,
        }
    }

    /// The tool call, for a session scope narrowed to one.
    pub fn tool_call_id(&self) -> Option<&str> {
        match self {
            Scope::Session { tool_call_id, .. } => tool_call_id.as_deref(),
            Scope::Request { .. } => None,
        }
    }

    /// The request, for a request scope.
    pub fn request_id(&self) -> Option<&RequestId> {
        match self {
            Scope::Request { request_id } => Some(request_id),
            Scope::Session { .. } => None,
        }
    }

    /// Whether this scope can be written in `version`: a `null` `requestId` (only ever
    /// read from a v1 peer) cannot be in v2.
    pub(crate) fn check_for(&self, version: AcpVersion) -> Result<(), ParamsError> {
        match self {
            Scope::Request { request_id }
                if request_id.is_null() && !version.allows_null_request_id() =>
            {
                Err(ParamsError::new(
                    "/requestId",
                    ParamsErrorKind::NullRequestId,
                ))
            }
            _ => Ok(()),
        }
    }

    /// Reads the scope members of a params object ([E3](crate::rules#e3), [D1](crate::rules#d1)). A malformed or `null`
    /// `toolCallId` reads as absent ([C6](crate::rules#c6): the schema marks it default-on-error).
    pub(crate) fn from_params(obj: &Map<String, Value>) -> Result<Scope, ParamsError> {
        let tool_call_id = obj.get("toolCallId").and_then(Value::as_str);
        match (obj.get("sessionId"), obj.get("requestId")) {
            // D1: exactly one scope.
            (Some(_), Some(_)) => Err(ParamsError::new("", ParamsErrorKind::BothScopes)),
            (None, None) if tool_call_id.is_some() => Err(ParamsError::new(
                "/toolCallId",
                ParamsErrorKind::ToolCallWithoutSession,
            )),
            (None, None) => Err(ParamsError::new("", ParamsErrorKind::NoScope)),
            (Some(session), None) => match session {
                Value::String(session_id) => Ok(Scope::Session {
                    session_id: session_id.clone(),
                    tool_call_id: tool_call_id.map(str::to_owned),
                }),
                _ => Err(ParamsError::wrong_type("sessionId", "a string")),
            },
            // D1: `toolCallId` only with `sessionId`.
            (None, Some(_)) if tool_call_id.is_some() => Err(ParamsError::new(
                "/toolCallId",
                ParamsErrorKind::ToolCallWithoutSession,
            )),
            (None, Some(request)) => RequestId::from_json(request)
                .map(|request_id| Scope::Request { request_id })
                .ok_or_else(|| {
                    ParamsError::wrong_type("requestId", "a string or an int64 integer")
                }),
        }
    }

    fn write<M: SerializeMap>(&self, map: &mut M) -> Result<(), M::Error> {
        match self {
            Scope::Session {
                session_id,
                tool_call_id,
            } => {
                map.serialize_entry("sessionId", session_id)?;
                if let Some(tool_call_id) = tool_call_id {
                    map.serialize_entry("toolCallId", tool_call_id)?;
                }
            }
            Scope::Request { request_id } => map.serialize_entry("requestId", request_id)?,
        }
        Ok(())
    }
}

/// A schema held by a message: borrowed when it lives forever (a derived type's, whose
/// cached wire form is then reused), boxed otherwise (it is large).
#[derive(Debug, Clone)]
pub(crate) enum SchemaRef {
    Static(&'static RequestedSchema),
    Owned(Box<RequestedSchema>),
}

impl SchemaRef {
    pub(crate) fn into_owned(self) -> RequestedSchema {
        match self {
            SchemaRef::Static(schema) => schema.clone(),
            SchemaRef::Owned(schema) => *schema,
        }
    }
}

impl PartialEq for SchemaRef {
    /// The schemas compare, not where they live.
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

impl Deref for SchemaRef {
    type Target = RequestedSchema;

    fn deref(&self) -> &RequestedSchema {
        match self {
            SchemaRef::Static(schema) => schema,
            SchemaRef::Owned(schema) => schema,
        }
    }
}

/// The mode-specific part of a request, borrowed from a [`CreateElicitation`]: match on
/// it to handle each mode. Only a request read from the wire can be `Other`.
///
/// `Debug` shows a URL's origin only (see [`CreateElicitation`]).
#[derive(Clone, Copy, PartialEq)]
pub enum ModeParams<'a> {
    /// Form mode ([F1](crate::rules#f1), [F2](crate::rules#f2)).
    Form {
        /// The form to render.
        requested_schema: &'a RequestedSchema,
    },
    /// URL mode ([U1](crate::rules#u1)).
    Url {
        /// The agent's opaque id for this elicitation ([U4](crate::rules#u4)).
        elicitation_id: &'a str,
        /// Where to send the user, after consent ([S2](crate::rules#s2)).
        url: &'a str,
    },
    /// A custom (`_`-prefixed) or future mode ([E6](crate::rules#e6)): never to be rendered as form or URL.
    Other {
        /// The mode's name.
        mode: &'a str,
        /// The params exactly as received, to store or forward unchanged.
        raw: &'a Map<String, Value>,
    },
}

#[derive(Clone, PartialEq)]
enum Body {
    Form {
        requested_schema: SchemaRef,
    },
    Url {
        elicitation_id: String,
        url: String,
    },
    /// [E6](crate::rules#e6): the whole params object as received, member order included.
    Other {
        mode: String,
        raw: Map<String, Value>,
    },
}

/// The params of `elicitation/create` ([E1](crate::rules#e1)–[E7](crate::rules#e7), [U1](crate::rules#u1)).
///
/// Build one with [`CreateElicitation::form`], [`CreateElicitation::form_static`] or
/// [`CreateElicitation::url`]; read one with [`CreateElicitation::from_json`] (strict
/// schema parse) or [`CreateElicitation::from_json_lenient`] (the parse a client uses).
/// Serde gives the exact wire form. `Debug` shows a URL-mode request's `url` by its
/// origin only (`"https://agent.example.com/…"`): the rest of a link may carry a
/// one-time token (the secure page's do), and `Debug` output ends up in logs.
///
/// ```
/// use elicit::protocol::{CreateElicitation, ModeParams, Scope};
/// use elicit::RequestedSchema;
/// use serde_json::json;
///
/// let schema = RequestedSchema::from_json(&json!({
///     "type": "object",
///     "properties": { "name": { "type": "string" } },
///     "required": ["name"]
/// }))?;
/// let request = CreateElicitation::form(Scope::session("sess-1"), "Who are you?", schema);
/// assert_eq!(request.to_json()["mode"], "form");
/// assert_eq!(request.to_json()["sessionId"], "sess-1");
///
/// // A mode this crate does not know is kept as received and never read as form (E6).
/// let custom = CreateElicitation::from_json(&json!({
///     "mode": "_oauth", "requestId": 7, "message": "Sign in", "provider": "x"
/// }))?;
/// assert!(matches!(custom.params(), ModeParams::Other { mode: "_oauth", .. }));
/// assert_eq!(custom.to_json()["provider"], "x");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct CreateElicitation {
    message: String,
    scope: Scope,
    body: Body,
    meta: Option<Meta>,
}

impl CreateElicitation {
    /// The JSON-RPC method: `elicitation/create` ([E1](crate::rules#e1)).
    pub const METHOD: &'static str = ELICITATION_CREATE;

    /// A form-mode request ([F1](crate::rules#f1), [F2](crate::rules#f2)) with an owned schema.
    pub fn form(
        scope: Scope,
        message: impl Into<String>,
        requested_schema: RequestedSchema,
    ) -> Self {
        Self::form_ref(
            scope,
            message.into(),
            SchemaRef::Owned(Box::new(requested_schema)),
        )
    }

    /// A form-mode request with a schema that lives forever, such as a derived type's
    /// `requested_schema()`: nothing is copied, and the schema's cached wire form is
    /// reused.
    pub fn form_static(
        scope: Scope,
        message: impl Into<String>,
        requested_schema: &'static RequestedSchema,
    ) -> Self {
        Self::form_ref(scope, message.into(), SchemaRef::Static(requested_schema))
    }

    pub(crate) fn form_ref(scope: Scope, message: String, requested_schema: SchemaRef) -> Self {
        CreateElicitation {
            message,
            scope,
            body: Body::Form { requested_schema },
            meta: None,
        }
    }

    /// A URL-mode request ([U1](crate::rules#u1)). Refused when `url` is not an absolute URI.
    ///
    /// This checks the wire rules only; the safety rules for what a URL may contain
    /// ([S1](crate::rules#s1)) are the agent's to apply before sending.
    pub fn url(
        scope: Scope,
        message: impl Into<String>,
        elicitation_id: impl Into<String>,
        url: impl Into<String>,
    ) -> Result<Self, ParamsError> {
        let url = checked_url(url)?;
        Ok(Self::url_unchecked(
            scope,
            message.into(),
            elicitation_id.into(),
            url,
        ))
    }

    /// A URL-mode request whose URL was already checked.
    pub(crate) fn url_unchecked(
        scope: Scope,
        message: String,
        elicitation_id: String,
        url: String,
    ) -> Self {
        CreateElicitation {
            message,
            scope,
            body: Body::Url {
                elicitation_id,
                url,
            },
            meta: None,
        }
    }

    /// Sets `_meta` ([E7](crate::rules#e7)).
    pub fn with_meta(mut self, meta: Option<Meta>) -> Self {
        if let Body::Other { raw, .. } = &mut self.body {
            // E6: the raw payload is what gets written, so it must carry the change.
            match &meta {
                Some(m) => raw.insert("_meta".to_owned(), Value::Object(m.clone())),
                None => raw.shift_remove("_meta"),
            };
        }
        self.meta = meta;
        self
    }

    /// Reads the params with the strict schema parse (what an agent and `Deserialize`
    /// use).
    pub fn from_json(json: &Value) -> Result<Self, ParamsError> {
        Self::parse(json, &ParseOptions::strict())
    }

    /// Reads the params with the lenient schema parse a client uses ([C6](crate::rules#c6), [D7](crate::rules#d7), [D8](crate::rules#d8), [E6](crate::rules#e6)):
    /// unknown property types and formats are kept, unenforced.
    pub fn from_json_lenient(json: &Value) -> Result<Self, ParamsError> {
        Self::parse(json, &ParseOptions::lenient())
    }

    /// Reads the params by the rules of an ACP protocol version, parsing a form schema
    /// with these options.
    ///
    /// As [`parse`](Self::parse), which reads v1; in [`AcpVersion::V2`] a `null`
    /// `requestId` is refused too ([`ParamsErrorKind::NullRequestId`]), and so is a
    /// `toolCallId` member beside `requestId` even when it is `null` (v1 reads that as
    /// absent, [C6](crate::rules#c6)). Both scopes at
    /// once and `toolCallId` without `sessionId` are refused in both versions
    /// ([`ParamsErrorKind::BothScopes`], [`ParamsErrorKind::ToolCallWithoutSession`]);
    /// a client answers each with `-32602` ([`ParamsError::to_jsonrpc_error`]).
    pub fn parse_for(
        json: &Value,
        options: &ParseOptions,
        version: AcpVersion,
    ) -> Result<Self, ParamsError> {
        let request = Self::parse(json, options)?;
        request.scope.check_for(version)?;
        // v2 refuses a `toolCallId` member beside `requestId` whatever its value; v1
        // reads a `null` or malformed one as absent (C6).
        let tool_call_member = json.get("toolCallId").is_some();
        if version == AcpVersion::V2 && request.scope.request_id().is_some() && tool_call_member {
            return Err(ParamsError::new(
                "/toolCallId",
                ParamsErrorKind::ToolCallWithoutSession,
            ));
        }
        Ok(request)
    }

    /// Reads the params, parsing a form schema with these options.
    ///
    /// Refused, with the member at fault: not an object; `mode` missing or not a string
    /// ([E2](crate::rules#e2): it does not default to form); not exactly one scope ([D1](crate::rules#d1)); `message` missing
    /// or not a string ([E4](crate::rules#e4)); a form without a valid `requestedSchema`; a URL request
    /// without a string `elicitationId` or an absolute `url` ([U1](crate::rules#u1)).
    ///
    /// For form and URL mode, members the spec does not define are not kept (as in
    /// the official ACP types); a custom or future mode keeps every member ([E6](crate::rules#e6)).
    pub fn parse(json: &Value, options: &ParseOptions) -> Result<Self, ParamsError> {
        let obj = json
            .as_object()
            .ok_or_else(|| ParamsError::new("", ParamsErrorKind::NotAnObject))?;
        let mode = match obj.get("mode") {
            Some(Value::String(mode)) => mode,
            // E2: no default mode in ACP.
            None => return Err(ParamsError::missing("mode")),
            Some(_) => return Err(ParamsError::wrong_type("mode", "a string")),
        };
        let scope = Scope::from_params(obj)?;
        let message = match obj.get("message") {
            Some(Value::String(message)) => message.clone(),
            None => return Err(ParamsError::missing("message")),
            Some(_) => return Err(ParamsError::wrong_type("message", "a string")),
        };
        let body = match Mode::from_wire(mode) {
            Some(Mode::Form) => {
                let schema = obj
                    .get("requestedSchema")
                    .ok_or_else(|| ParamsError::missing("requestedSchema"))?;
                let requested_schema = RequestedSchema::parse(schema, options).map_err(|e| {
                    ParamsError::new("/requestedSchema", ParamsErrorKind::Schema(e))
                })?;
                Body::Form {
                    requested_schema: SchemaRef::Owned(Box::new(requested_schema)),
                }
            }
            Some(Mode::Url) => {
                let elicitation_id = match obj.get("elicitationId") {
                    Some(Value::String(id)) => id.clone(),
                    None => return Err(ParamsError::missing("elicitationId")),
                    Some(_) => return Err(ParamsError::wrong_type("elicitationId", "a string")),
                };
                let url = match obj.get("url") {
                    Some(Value::String(url)) => url.clone(),
                    None => return Err(ParamsError::missing("url")),
                    Some(_) => return Err(ParamsError::wrong_type("url", "a string")),
                };
                check_url(&url)?;
                Body::Url {
                    elicitation_id,
                    url,
                }
            }
            // E6: kept whole, as received; never read as form or URL.
            None => Body::Other {
                mode: mode.clone(),
                raw: obj.clone(),
            },
        };
        Ok(CreateElicitation {
            message,
            scope,
            body,
            meta: read_meta(obj),
        })
    }

    /// The wire JSON of the params.
    pub fn to_json(&self) -> Value {
        // Serializing into a `Value` cannot fail: keys are strings, numbers finite.
        serde_json::to_value(self).unwrap_or(Value::Null)
    }

    /// The whole JSON-RPC request: `{"jsonrpc": "2.0", "id", "method", "params"}`.
    pub fn to_request(&self, id: &RequestId) -> Value {
        json!({ "jsonrpc": "2.0", "id": id.to_json(), "method": Self::METHOD, "params": self.to_json() })
    }

    /// The wire JSON of the params in an ACP protocol version (see
    /// [`AcpVersion`] for what differs).
    ///
    /// [`AcpVersion::V1`] is [`to_json`](Self::to_json). [`AcpVersion::V2`] leaves out
    /// every string property's `pattern` and says it in words in the property's
    /// `description` instead (the agent still enforces it when it validates the
    /// answer, as [`Elicitor`](crate::Elicitor) does with the schema it asked); the
    /// order of properties and members is kept. A custom or future mode is written as
    /// received ([E6](crate::rules#e6)) in both.
    ///
    /// Fails only in v2, for a request read from a v1 peer with a `null` `requestId`
    /// ([`ParamsErrorKind::NullRequestId`]): v2 has no such scope.
    pub fn to_json_for(&self, version: AcpVersion) -> Result<Value, ParamsError> {
        self.scope.check_for(version)?;
        let mut json = self.to_json();
        if version.carries_pattern() {
            return Ok(json);
        }
        if let (Body::Form { .. }, Some(schema)) = (&self.body, json.get_mut("requestedSchema")) {
            *schema = v2_schema_json(schema);
        }
        Ok(json)
    }

    /// The whole JSON-RPC request in an ACP protocol version, as
    /// [`to_json_for`](Self::to_json_for) writes the params. `id` is the agent's own,
    /// which this crate never builds `null`.
    pub fn to_request_for(
        &self,
        id: &RequestId,
        version: AcpVersion,
    ) -> Result<Value, ParamsError> {
        let params = self.to_json_for(version)?;
        Ok(
            json!({ "jsonrpc": "2.0", "id": id.to_json(), "method": Self::METHOD, "params": params }),
        )
    }

    /// The message to show the user ([E4](crate::rules#e4), [K4](crate::rules#k4)).
    pub fn message(&self) -> &str {
        &self.message
    }

    /// What the elicitation is tied to ([E3](crate::rules#e3)).
    pub fn scope(&self) -> &Scope {
        &self.scope
    }

    /// The mode, or `None` for a custom or future mode ([E6](crate::rules#e6)).
    pub fn mode(&self) -> Option<Mode> {
        match self.body {
            Body::Form { .. } => Some(Mode::Form),
            Body::Url { .. } => Some(Mode::Url),
            Body::Other { .. } => None,
        }
    }

    /// The mode's wire name, known or not.
    pub fn mode_name(&self) -> &str {
        match &self.body {
            Body::Form { .. } => Mode::Form.as_str(),
            Body::Url { .. } => Mode::Url.as_str(),
            Body::Other { mode, .. } => mode,
        }
    }

    /// The mode-specific part, to match on.
    pub fn params(&self) -> ModeParams<'_> {
        match &self.body {
            Body::Form { requested_schema } => ModeParams::Form { requested_schema },
            Body::Url {
                elicitation_id,
                url,
            } => ModeParams::Url {
                elicitation_id,
                url,
            },
            Body::Other { mode, raw } => ModeParams::Other { mode, raw },
        }
    }

    /// The schema, for form mode.
    pub fn requested_schema(&self) -> Option<&RequestedSchema> {
        match &self.body {
            Body::Form { requested_schema } => Some(requested_schema),
            _ => None,
        }
    }

    /// The elicitation id, for URL mode ([U1](crate::rules#u1), [U4](crate::rules#u4)).
    pub fn elicitation_id(&self) -> Option<&str> {
        match &self.body {
            Body::Url { elicitation_id, .. } => Some(elicitation_id),
            _ => None,
        }
    }

    /// The URL, for URL mode ([U1](crate::rules#u1)).
    pub fn target_url(&self) -> Option<&str> {
        match &self.body {
            Body::Url { url, .. } => Some(url),
            _ => None,
        }
    }

    /// For a custom or future mode, the params exactly as received ([E6](crate::rules#e6)).
    pub fn raw(&self) -> Option<&Map<String, Value>> {
        match &self.body {
            Body::Other { raw, .. } => Some(raw),
            _ => None,
        }
    }

    /// `_meta` ([E7](crate::rules#e7)).
    pub fn meta(&self) -> Option<&Meta> {
        self.meta.as_ref()
    }

    /// The schema as held, borrowed or owned (for conversions that keep it borrowed).
    pub(crate) fn schema_ref(&self) -> Option<&SchemaRef> {
        match &self.body {
            Body::Form { requested_schema } => Some(requested_schema),
            _ => None,
        }
    }
}

impl fmt::Debug for Body {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Body::Form { requested_schema } => f
                .debug_struct("Form")
                .field("requested_schema", requested_schema)
                .finish(),
            Body::Url {
                elicitation_id,
                url,
            } => f
                .debug_struct("Url")
                .field("elicitation_id", elicitation_id)
                .field("url", &RedactedUrl(url))
                .finish(),
            Body::Other { mode, raw } => f
                .debug_struct("Other")
                .field("mode", mode)
                .field("raw", raw)
                .finish(),
        }
    }
}

impl fmt::Debug for ModeParams<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ModeParams::Form { requested_schema } => f
                .debug_struct("Form")
                .field("requested_schema", requested_schema)
                .finish(),
            ModeParams::Url {
                elicitation_id,
                url,
            } => f
                .debug_struct("Url")
                .field("elicitation_id", elicitation_id)
                .field("url", &RedactedUrl(url))
                .finish(),
            ModeParams::Other { mode, raw } => f
                .debug_struct("Other")
                .field("mode", mode)
                .field("raw", raw)
                .finish(),
        }
    }
}

/// A URL as `Debug` shows it: its scheme and host (and port) only, then `/…`. The
/// path, query and fragment may carry a one-time token, as the secure page's links
/// do, and user-info a credential; `Debug` output goes to logs. Text that is not an
/// absolute URL shows as `"…"`.
pub(crate) struct RedactedUrl<'a>(pub(crate) &'a str);

impl fmt::Debug for RedactedUrl<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let origin = self.0.split_once("://").filter(|(scheme, _)| {
            !scheme.is_empty()
                && scheme
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
        });
        match origin {
            Some((scheme, rest)) => {
                let authority = rest
                    .find(['/', '?', '#', '\\'])
                    .map_or(rest, |end| &rest[..end]);
                // Never the user-info (`user:password@`).
                let host = authority
                    .rsplit_once('@')
                    .map_or(authority, |(_, host)| host);
                fmt::Debug::fmt(&format!("{scheme}://{host}/…"), f)
            }
            None => fmt::Debug::fmt("…", f),
        }
    }
}

/// [U1](crate::rules#u1), [V7](crate::rules#v7): the URL of a URL-mode request is an absolute URI.
pub(crate) fn check_url(url: &str) -> Result<(), ParamsError> {
    if Format::Uri.is_valid(url) {
        Ok(())
    } else {
        Err(ParamsError::new("/url", ParamsErrorKind::UrlNotAbsolute))
    }
}

/// The URL of a new URL-mode request, refused when it is not an absolute URI ([U1](crate::rules#u1)): the
/// check every URL-params constructor, ACP's and each MCP version's, makes alike.
pub(crate) fn checked_url(url: impl Into<String>) -> Result<String, ParamsError> {
    let url = url.into();
    check_url(&url)?;
    Ok(url)
}

impl Serialize for CreateElicitation {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if let Body::Other { raw, .. } = &self.body {
            // E6: written back exactly as received.
            return raw.serialize(serializer);
        }
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("mode", self.mode_name())?;
        self.scope.write(&mut map)?;
        map.serialize_entry("message", &self.message)?;
        match &self.body {
            Body::Form { requested_schema } => {
                map.serialize_entry("requestedSchema", &**requested_schema)?
            }
            Body::Url {
                elicitation_id,
                url,
            } => {
                map.serialize_entry("elicitationId", elicitation_id)?;
                map.serialize_entry("url", url)?;
            }
            Body::Other { .. } => {}
        }
        if let Some(meta) = &self.meta {
            map.serialize_entry("_meta", meta)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for CreateElicitation {
    /// The strict parse ([`CreateElicitation::from_json`]).
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let json = Value::deserialize(deserializer)?;
        CreateElicitation::from_json(&json).map_err(serde::de::Error::custom)
    }
}
