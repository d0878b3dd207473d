//! Why request params could not be read or built, and where.

use std::fmt;

use serde_json::{Map, Value};

use super::jsonrpc::{InvalidParamsReason, JsonRpcError};
use crate::schema::SchemaError;

/// Params of `elicitation/create` or `elicitation/complete` (or their MCP forms) that
/// break the rules: what is wrong ([`ParamsErrorKind`]) and where (a JSON pointer into
/// the params).
///
/// [`ParamsError::to_jsonrpc_error`] gives the `-32602` answer a client sends back.
#[derive(Debug, Clone, PartialEq)]
pub struct ParamsError {
    pointer: String,
    kind: ParamsErrorKind,
    /// Read from `elicitation/complete` rather than `elicitation/create`.
    complete: bool,
}

/// What is wrong with the params.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ParamsErrorKind {
    /// The params are not a JSON object.
    NotAnObject,
    /// A required member is missing.
    Missing {
        /// The member (`message`, `mode`, `requestedSchema`, `elicitationId`, `url`).
        member: &'static str,
    },
    /// A member has the wrong JSON type.
    WrongType {
        /// The member.
        member: &'static str,
        /// What it must be.
        expected: &'static str,
    },
    /// Both `sessionId` and `requestId`: a request has exactly one scope ([D1](crate::rules#d1)).
    BothScopes,
    /// Neither `sessionId` nor `requestId`: a request has exactly one scope ([D1](crate::rules#d1)).
    NoScope,
    /// `toolCallId` without `sessionId` ([D1](crate::rules#d1)).
    ToolCallWithoutSession,
    /// `requestId` is `null`: ACP v2 ids are never `null` ([E3](crate::rules#e3)); v1 reads
    /// one, and only a request read from a v1 peer can hold one.
    NullRequestId,
    /// `url` is not an absolute URI ([U1](crate::rules#u1), [V7](crate::rules#v7)).
    UrlNotAbsolute,
    /// `requestedSchema` breaks the schema rules ([F1](crate::rules#f1), [F2](crate::rules#f2), [D2](crate::rules#d2)–[D14](crate::rules#d14)).
    Schema(SchemaError),
}

impl ParamsError {
    pub(crate) fn new(pointer: impl Into<String>, kind: ParamsErrorKind) -> Self {
        ParamsError {
            pointer: pointer.into(),
            kind,
            complete: false,
        }
    }

    /// Marks an error found in `elicitation/complete` params.
    pub(crate) fn in_complete(mut self) -> Self {
        self.complete = true;
        self
    }

    pub(crate) fn missing(member: &'static str) -> Self {
        ParamsError::new(format!("/{member}"), ParamsErrorKind::Missing { member })
    }

    pub(crate) fn wrong_type(member: &'static str, expected: &'static str) -> Self {
        ParamsError::new(
            format!("/{member}"),
            ParamsErrorKind::WrongType { member, expected },
        )
    }

    /// The same error, found inside the member at `prefix` (a JSON pointer).
    pub(crate) fn under(mut self, prefix: &str) -> Self {
        self.pointer = format!("{prefix}{}", self.pointer);
        self
    }

    /// JSON pointer (RFC 6901) of the offending member of the params; empty for the
    /// params themselves.
    pub fn pointer(&self) -> &str {
        &self.pointer
    }

    /// What is wrong.
    pub fn kind(&self) -> &ParamsErrorKind {
        &self.kind
    }

    /// The machine-readable reason a client reports (see [`InvalidParamsReason`]).
    pub fn reason(&self) -> InvalidParamsReason {
        use ParamsErrorKind as K;
        match &self.kind {
            K::NotAnObject => InvalidParamsReason::NotAnObject,
            K::BothScopes | K::NoScope | K::ToolCallWithoutSession | K::NullRequestId => {
                InvalidParamsReason::BadScope
            }
            K::Schema(_) => InvalidParamsReason::MalformedSchema,
            K::UrlNotAbsolute => InvalidParamsReason::InvalidUrlParams,
            K::Missing { member } | K::WrongType { member, .. } => match *member {
                "message" => InvalidParamsReason::InvalidMessage,
                "mode" => InvalidParamsReason::InvalidMode,
                "sessionId" | "toolCallId" | "requestId" => InvalidParamsReason::BadScope,
                "requestedSchema" => InvalidParamsReason::MalformedSchema,
                "url" => InvalidParamsReason::InvalidUrlParams,
                // `elicitationId` belongs to URL mode in `elicitation/create` and is the
                // whole of `elicitation/complete`.
                "elicitationId" if self.complete => InvalidParamsReason::InvalidElicitationId,
                "elicitationId" => InvalidParamsReason::InvalidUrlParams,
                _ => InvalidParamsReason::Malformed,
            },
        }
    }

    /// The `-32602` error object a client answers with ([C8](crate::rules#c8), [D1](crate::rules#d1)), its `data` naming the
    /// reason, the message and the pointer; for a schema, also every issue found.
    pub fn to_jsonrpc_error(&self) -> JsonRpcError {
        let pointer = (!self.pointer.is_empty()).then_some(self.pointer.as_str());
        let mut error = JsonRpcError::invalid_params(self.reason(), self.to_string(), pointer);
        if let ParamsErrorKind::Schema(schema) = &self.kind {
            let issues = schema
                .iter()
                .map(|(issue_pointer, kind)| {
                    let mut item = Map::new();
                    item.insert(
                        "pointer".to_owned(),
                        Value::from(format!("{}{issue_pointer}", self.pointer)),
                    );
                    item.insert("message".to_owned(), Value::from(kind.to_string()));
                    Value::Object(item)
                })
                .collect();
            error.insert_data("issues", Value::Array(issues));
        }
        error
    }
}

impl fmt::Display for ParamsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use ParamsErrorKind as K;
        match &self.kind {
            K::NotAnObject => f.write_str("the params must be a JSON object"),
            K::Missing { member } => write!(f, "`{member}` is required"),
            K::WrongType { member, expected } => write!(f, "`{member}` must be {expected}"),
            K::BothScopes => f.write_str(
                "both `sessionId` and `requestId` are present: an elicitation has exactly one scope",
            ),
            K::NoScope => f.write_str(
                "neither `sessionId` nor `requestId` is present: an elicitation has exactly one scope",
            ),
            K::ToolCallWithoutSession => f.write_str("`toolCallId` is only allowed with `sessionId`"),
            K::NullRequestId => f.write_str(
                "`requestId` is `null`: ACP v2 ids are a string or an int64 integer, never `null`",
            ),
            K::UrlNotAbsolute => f.write_str("`url` must be an absolute URI"),
            K::Schema(schema) => {
                let issues = schema.iter();
                if issues.len() == 1 {
                    write!(f, "invalid `requestedSchema` at {}{}: {}", self.pointer, schema.pointer(), schema.kind())
                } else {
                    write!(f, "invalid `requestedSchema`, {} problems:", issues.len())?;
                    for (pointer, kind) in issues {
                        write!(f, "\n  - at {}{pointer}: {kind}", self.pointer)?;
                    }
                    Ok(())
                }
            }
        }
    }
}

// `Display` spells out every schema problem (it is the `-32602` message a client
// sends back), so the schema error is not reported again as a source; match
// `ParamsErrorKind::Schema` to get it.
impl std::error::Error for ParamsError {}
