//! The ACP protocol versions and what differs between them for elicitation.
//!
//! ACP v1 is the stable protocol; v2 is the preview of `agent-client-protocol-schema`
//! 1.20.0 (its `unstable_protocol_v2` feature). For `elicitation/create` they differ in
//! four points, each checked against the 1.20.0 crate's own source:
//!
//! | | v1 | v2 |
//! | --- | --- | --- |
//! | `pattern` on a string property | kept | not in the schema: left out, said in words in the property's `description` ([M7](crate::rules#m7) does the same for MCP), and still enforced by the agent when it validates the answer |
//! | both `sessionId` and `requestId`, or `toolCallId` without `sessionId` | refused by this crate's decision [D1](crate::rules#d1) (the v1 types read a session scope and ignore the rest) | refused by the schema itself |
//! | `requestId: null` | read and kept, so a message can be forwarded as received ([E3](crate::rules#e3)) | refused: v2 ids are never `null` |
//! | order of `properties` and of accepted `content` | kept by this crate ([D13](crate::rules#d13)); the v1 types sort by name | kept by the types too (`IndexMap`) |
//!
//! And one rule for the agent: when it stops waiting for an elicitation, it cancels the
//! request with `$/cancel_request` (a SHOULD in v1, a MUST in v2). The asks of the
//! `agent_client_protocol` module (feature `agent-client-protocol`) do so in both
//! versions.
//!
//! ```
//! use elicit::protocol::{AcpVersion, CreateElicitation, Scope};
//! use elicit::RequestedSchema;
//! use serde_json::json;
//!
//! let schema = RequestedSchema::from_json(&json!({ "type": "object", "properties": {
//!     "code": { "type": "string", "title": "Code", "pattern": "^[A-Z]{3}$" } } }))?;
//! let request = CreateElicitation::form(Scope::session("s1"), "Which airport?", schema);
//!
//! let v1 = request.to_json_for(AcpVersion::V1)?;
//! assert_eq!(v1["requestedSchema"]["properties"]["code"]["pattern"], "^[A-Z]{3}$");
//!
//! let v2 = request.to_json_for(AcpVersion::V2)?;
//! assert_eq!(v2["requestedSchema"]["properties"]["code"], json!({
//!     "type": "string", "title": "Code", "description": "must match the pattern ^[A-Z]{3}$"
//! }));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::fmt;

use serde_json::Value;

use super::mcp::say_pattern;

/// An ACP protocol version, as negotiated in `initialize` (`protocolVersion`, an
/// integer).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
#[non_exhaustive]
pub enum AcpVersion {
    /// Protocol version 1, the stable protocol.
    #[default]
    V1,
    /// Protocol version 2, as of `agent-client-protocol-schema` 1.20.0 (a preview).
    V2,
}

impl AcpVersion {
    /// The version for a negotiated `protocolVersion`; `None` for one this crate does
    /// not know.
    pub fn from_number(version: u64) -> Option<AcpVersion> {
        match version {
            1 => Some(AcpVersion::V1),
            2 => Some(AcpVersion::V2),
            _ => None,
        }
    }

    /// The `protocolVersion` number.
    pub fn number(self) -> u16 {
        match self {
            AcpVersion::V1 => 1,
            AcpVersion::V2 => 2,
        }
    }

    /// Whether a string property's `pattern` travels on the wire (v1 only).
    pub fn carries_pattern(self) -> bool {
        self == AcpVersion::V1
    }

    /// Whether a `null` `requestId` is a valid scope (v1 only, [E3](crate::rules#e3)).
    pub fn allows_null_request_id(self) -> bool {
        self == AcpVersion::V1
    }

    /// Whether the agent MUST send `$/cancel_request` for an elicitation it stops
    /// waiting for (v2); in v1 it SHOULD.
    pub fn must_cancel_abandoned_requests(self) -> bool {
        self == AcpVersion::V2
    }
}

impl fmt::Display for AcpVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ACP v{}", self.number())
    }
}

/// The v2 form of a schema's wire JSON: no `pattern` on a string property, the
/// constraint said in words in its `description` instead, everything else (the order
/// of properties and members included) as it was. Properties of unknown types are left
/// as received ([E6](crate::rules#e6)).
pub(crate) fn v2_schema_json(schema: &Value) -> Value {
    let mut json = schema.clone();
    if let Some(properties) = json.get_mut("properties").and_then(Value::as_object_mut) {
        for property in properties.values_mut() {
            let Some(object) = property.as_object_mut() else {
                continue;
            };
            if object.get("type").and_then(Value::as_str) != Some("string") {
                continue;
            }
            // The v2 schema has no `pattern`: the person still gets to read it, and the
            // agent still checks it when it validates the answer.
            if let Some(Value::String(pattern)) = object.shift_remove("pattern") {
                say_pattern(object, &pattern);
            }
        }
    }
    json
}
