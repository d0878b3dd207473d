//! Conversions to and from the official ACP types of
//! [`agent-client-protocol-schema`](https://docs.rs/agent-client-protocol-schema)
//! (`v1`), behind the `acp` cargo feature.
//!
//! | this crate | official |
//! | --- | --- |
//! | [`RequestedSchema`] | `ElicitationSchema` |
//! | [`CreateElicitation`] | `CreateElicitationRequest` |
//! | [`ElicitationResponse`] | `CreateElicitationResponse` |
//! | [`CompleteElicitation`] | `CompleteElicitationNotification` |
//! | [`ElicitationCapabilities`] | `ElicitationCapabilities` (present) or `Option<…>` |
//!
//! Capabilities and completions convert both ways with `From`: every member has a place
//! on both sides. Schemas, requests and responses convert with `TryFrom`, through their
//! wire JSON, and each conversion checks that the JSON written by the target equals the
//! JSON of the source, member for member and number for number; a conversion that would
//! drop or change anything fails with the JSON pointer of the first difference instead.
//! Such cases exist in both directions: the official types hold no annotation keyword
//! (`$schema`, `examples`) and no content value beyond the five of [R3](crate::rules#r3), and integers
//! beyond int64 become doubles; this crate's strict parse refuses schemas the official
//! types accept ([D2](crate::rules#d2)–[D4](crate::rules#d4), [D11](crate::rules#d11)).
//!
//! One thing the official types cannot hold is order: they keep properties, unknown
//! members and content in `BTreeMap`s, sorted by name. Converting into them loses the
//! property order ([D13](crate::rules#d13)) and that alone; coming back, properties are in name order and
//! `required`, which this crate lists in property order, follows. The check compares
//! objects without regard to member order and `required` as a set. An agent that wants
//! its form in declaration order sends this crate's types.
//!
//! The official crate is used with default features off, so it adds no `schemars`.
//!
//! # v1 only, and why
//!
//! These conversions are to the `v1` types of `agent-client-protocol-schema` 1.17.0, the
//! version the ACP SDK 5.2 pins exactly (the v1 types are the same in 1.20.0). The v2
//! preview changed in 1.20.0: no `pattern`, `IndexMap`s that keep order, a strict
//! scope (see [`AcpVersion`]). Its 1.17.0 types still have
//! `pattern` and sort properties by name, so a typed v2 conversion on them would break
//! two of those rules, and one build cannot hold 1.17.0 and 1.20.0 together. For v2,
//! use this crate's own wire JSON, [`CreateElicitation::to_json_for`] and
//! [`CreateElicitation::parse_for`] with [`AcpVersion::V2`],
//! which keep order and follow the 1.20.0 rules (checked against the 1.20.0 crate in
//! the repository's `tests/acp_schema_1_20`). Typed v2 conversions come when an SDK
//! release pins 1.20: the SDK and schema pins move together.

use std::fmt;

use agent_client_protocol_schema::v1 as official;
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{Map, Value};

use super::capabilities::{ElicitationCapabilities, Mode, ModeCapability};
use super::complete::CompleteElicitation;
use super::create::CreateElicitation;
use super::error::ParamsError;
use super::response::{ElicitationResponse, ResponseError};
use super::version::AcpVersion;
use crate::schema::{ParseOptions, RequestedSchema, SchemaError};

/// Why a value could not be converted to or from its official ACP type.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum AcpConversionError {
    /// The official type cannot read this crate's JSON.
    Official {
        /// The official type.
        target: &'static str,
        /// serde's message.
        message: String,
    },
    /// The conversion would drop or change a member (everything but member order is
    /// kept, or the conversion fails).
    Lossy {
        /// The official type involved.
        target: &'static str,
        /// JSON pointer of the first member that differs.
        pointer: String,
    },
    /// This crate refuses the official value's schema (strict parse, [F1](crate::rules#f1), [F2](crate::rules#f2), [D2](crate::rules#d2)–[D14](crate::rules#d14)).
    Schema(SchemaError),
    /// This crate refuses the official value's request params ([D1](crate::rules#d1), [E2](crate::rules#e2)–[E4](crate::rules#e4), [U1](crate::rules#u1)).
    Params(ParamsError),
    /// This crate refuses the official value's response ([R1](crate::rules#r1)–[R3](crate::rules#r3)).
    Response(ResponseError),
    /// An absent capability has no official `ElicitationCapabilities` (use
    /// `Option<ElicitationCapabilities>`).
    AbsentCapability,
}

impl fmt::Display for AcpConversionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AcpConversionError::Official { target, message } => {
                write!(f, "the official `{target}` cannot hold this value: {message}")
            }
            AcpConversionError::Lossy { target, pointer } => {
                let at = if pointer.is_empty() { "the root" } else { pointer };
                write!(f, "converting through the official `{target}` would lose or change the member at {at}")
            }
            AcpConversionError::Schema(_) => f.write_str("the official schema is refused"),
            AcpConversionError::Params(_) => f.write_str("the official request is refused"),
            AcpConversionError::Response(_) => f.write_str("the official response is refused"),
            AcpConversionError::AbsentCapability => f.write_str(
                "an absent elicitation capability has no official `ElicitationCapabilities`; convert to an `Option`",
            ),
        }
    }
}

impl std::error::Error for AcpConversionError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            AcpConversionError::Schema(e) => Some(e),
            AcpConversionError::Params(e) => Some(e),
            AcpConversionError::Response(e) => Some(e),
            _ => None,
        }
    }
}

// ---------------------------------------------------------------------------------------
// The lossless check

/// Reads this crate's wire JSON into the official type and checks that the official
/// type writes the same JSON back.
fn into_official<T: Serialize + DeserializeOwned>(
    ours: &Value,
    target: &'static str,
) -> Result<T, AcpConversionError> {
    let official: T =
        serde_json::from_value(ours.clone()).map_err(|e| AcpConversionError::Official {
            target,
            message: e.to_string(),
        })?;
    let written = official_json(&official, target)?;
    check_same(ours, &written, target)?;
    Ok(official)
}

fn official_json<T: Serialize>(
    official: &T,
    target: &'static str,
) -> Result<Value, AcpConversionError> {
    serde_json::to_value(official).map_err(|e| AcpConversionError::Official {
        target,
        message: e.to_string(),
    })
}

fn check_same(
    expected: &Value,
    actual: &Value,
    target: &'static str,
) -> Result<(), AcpConversionError> {
    match first_difference(
        &canonical(expected, None),
        &canonical(actual, None),
        String::new(),
    ) {
        None => Ok(()),
        Some(pointer) => Err(AcpConversionError::Lossy { target, pointer }),
    }
}

/// The JSON both sides agree to mean the same: a member whose value is `null` is the
/// same as an absent one (the schema says so of every optional member), `required` is
/// a set (an empty one the same as none), and numbers compare by value.
fn canonical(json: &Value, key: Option<&str>) -> Value {
    match json {
        Value::Object(map) => Value::Object(
            map.iter()
                .filter(|(k, v)| {
                    !(v.is_null()
                        || k.as_str() == "required" && v.as_array().is_some_and(Vec::is_empty))
                })
                .map(|(k, v)| (k.clone(), canonical(v, Some(k))))
                .collect::<Map<String, Value>>(),
        ),
        Value::Array(items) => {
            let mut items: Vec<Value> = items.iter().map(|v| canonical(v, None)).collect();
            if key == Some("required") {
                items.sort_by_key(Value::to_string);
            }
            Value::Array(items)
        }
        Value::Number(n) => match (n.as_f64(), n.is_f64()) {
            // A float with an exact integer value is the same number as that integer.
            (Some(f), true) if f.fract() == 0.0 && f.abs() < 9_007_199_254_740_992.0 => {
                Value::from(f as i64)
            }
            _ => json.clone(),
        },
        _ => json.clone(),
    }
}

/// The JSON pointer of the first place where `a` and `b` differ. Objects compare
/// without regard to member order.
fn first_difference(a: &Value, b: &Value, at: String) -> Option<String> {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            for (k, v) in x {
                let here = format!("{at}/{}", k.replace('~', "~0").replace('/', "~1"));
                match y.get(k) {
                    Some(w) => {
                        if let Some(p) = first_difference(v, w, here) {
                            return Some(p);
                        }
                    }
                    None => return Some(here),
                }
            }
            y.keys()
                .find(|k| !x.contains_key(*k))
                .map(|k| format!("{at}/{}", k.replace('~', "~0").replace('/', "~1")))
        }
        (Value::Array(x), Value::Array(y)) => {
            for (i, (v, w)) in x.iter().zip(y).enumerate() {
                if let Some(p) = first_difference(v, w, format!("{at}/{i}")) {
                    return Some(p);
                }
            }
            (x.len() != y.len()).then(|| format!("{at}/{}", x.len().min(y.len())))
        }
        _ => (a != b).then_some(at),
    }
}

/// Parses the official value's JSON with this crate's reader and checks nothing was
/// lost on the way.
fn from_official<O: Serialize, T>(
    official: &O,
    target: &'static str,
    read: impl FnOnce(&Value) -> Result<T, AcpConversionError>,
    write: impl FnOnce(&T) -> Value,
) -> Result<T, AcpConversionError> {
    let json = official_json(official, target)?;
    let ours = read(&json)?;
    check_same(&json, &write(&ours), target)?;
    Ok(ours)
}

// ---------------------------------------------------------------------------------------
// Schema

impl TryFrom<&RequestedSchema> for official::ElicitationSchema {
    type Error = AcpConversionError;

    fn try_from(schema: &RequestedSchema) -> Result<Self, AcpConversionError> {
        into_official(schema.as_json(), "ElicitationSchema")
    }
}

impl TryFrom<RequestedSchema> for official::ElicitationSchema {
    type Error = AcpConversionError;

    fn try_from(schema: RequestedSchema) -> Result<Self, AcpConversionError> {
        Self::try_from(&schema)
    }
}

impl TryFrom<&official::ElicitationSchema> for RequestedSchema {
    type Error = AcpConversionError;

    /// With the strict parse; see [`requested_schema_from_acp`] for other options.
    fn try_from(schema: &official::ElicitationSchema) -> Result<Self, AcpConversionError> {
        requested_schema_from_acp(schema, &ParseOptions::strict())
    }
}

impl TryFrom<official::ElicitationSchema> for RequestedSchema {
    type Error = AcpConversionError;

    fn try_from(schema: official::ElicitationSchema) -> Result<Self, AcpConversionError> {
        Self::try_from(&schema)
    }
}

/// An official schema as a [`RequestedSchema`], parsed with these options (a client
/// passes [`ParseOptions::lenient`]).
pub fn requested_schema_from_acp(
    schema: &official::ElicitationSchema,
    options: &ParseOptions,
) -> Result<RequestedSchema, AcpConversionError> {
    from_official(
        schema,
        "ElicitationSchema",
        |json| RequestedSchema::parse(json, options).map_err(AcpConversionError::Schema),
        RequestedSchema::to_json,
    )
}

// ---------------------------------------------------------------------------------------
// Request

impl TryFrom<&CreateElicitation> for official::CreateElicitationRequest {
    type Error = AcpConversionError;

    fn try_from(request: &CreateElicitation) -> Result<Self, AcpConversionError> {
        into_official(&request.to_json(), "CreateElicitationRequest")
    }
}

impl TryFrom<CreateElicitation> for official::CreateElicitationRequest {
    type Error = AcpConversionError;

    fn try_from(request: CreateElicitation) -> Result<Self, AcpConversionError> {
        Self::try_from(&request)
    }
}

impl TryFrom<&official::CreateElicitationRequest> for CreateElicitation {
    type Error = AcpConversionError;

    /// With the strict schema parse; see [`create_elicitation_from_acp`] for other
    /// options. The official type accepts both scopes at once; this crate refuses that
    /// ([D1](crate::rules#d1)).
    fn try_from(request: &official::CreateElicitationRequest) -> Result<Self, AcpConversionError> {
        create_elicitation_from_acp(request, &ParseOptions::strict())
    }
}

impl TryFrom<official::CreateElicitationRequest> for CreateElicitation {
    type Error = AcpConversionError;

    fn try_from(request: official::CreateElicitationRequest) -> Result<Self, AcpConversionError> {
        Self::try_from(&request)
    }
}

/// An official request as a [`CreateElicitation`], its schema parsed with these
/// options (a client passes [`ParseOptions::lenient`]).
pub fn create_elicitation_from_acp(
    request: &official::CreateElicitationRequest,
    options: &ParseOptions,
) -> Result<CreateElicitation, AcpConversionError> {
    from_official(
        request,
        "CreateElicitationRequest",
        |json| CreateElicitation::parse(json, options).map_err(AcpConversionError::Params),
        CreateElicitation::to_json,
    )
}

// ---------------------------------------------------------------------------------------
// Response

impl TryFrom<&ElicitationResponse> for official::CreateElicitationResponse {
    type Error = AcpConversionError;

    /// Fails for content the official type cannot hold: values other than the five of
    /// [R3](crate::rules#r3), integers beyond int64.
    fn try_from(response: &ElicitationResponse) -> Result<Self, AcpConversionError> {
        into_official(&response.to_json(), "CreateElicitationResponse")
    }
}

impl TryFrom<ElicitationResponse> for official::CreateElicitationResponse {
    type Error = AcpConversionError;

    fn try_from(response: ElicitationResponse) -> Result<Self, AcpConversionError> {
        Self::try_from(&response)
    }
}

impl TryFrom<&official::CreateElicitationResponse> for ElicitationResponse {
    type Error = AcpConversionError;

    fn try_from(
        response: &official::CreateElicitationResponse,
    ) -> Result<Self, AcpConversionError> {
        from_official(
            response,
            "CreateElicitationResponse",
            |json| ElicitationResponse::from_json(json).map_err(AcpConversionError::Response),
            ElicitationResponse::to_json,
        )
    }
}

impl TryFrom<official::CreateElicitationResponse> for ElicitationResponse {
    type Error = AcpConversionError;

    fn try_from(response: official::CreateElicitationResponse) -> Result<Self, AcpConversionError> {
        Self::try_from(&response)
    }
}

// ---------------------------------------------------------------------------------------
// Completion

impl From<&CompleteElicitation> for official::CompleteElicitationNotification {
    fn from(complete: &CompleteElicitation) -> Self {
        official::CompleteElicitationNotification::new(complete.elicitation_id().to_owned())
            .meta(complete.meta().cloned())
    }
}

impl From<CompleteElicitation> for official::CompleteElicitationNotification {
    fn from(complete: CompleteElicitation) -> Self {
        Self::from(&complete)
    }
}

impl From<&official::CompleteElicitationNotification> for CompleteElicitation {
    fn from(complete: &official::CompleteElicitationNotification) -> Self {
        CompleteElicitation::new(complete.elicitation_id.0.as_ref())
            .with_meta(complete.meta.clone())
    }
}

impl From<official::CompleteElicitationNotification> for CompleteElicitation {
    fn from(complete: official::CompleteElicitationNotification) -> Self {
        Self::from(&complete)
    }
}

// ---------------------------------------------------------------------------------------
// Protocol version

impl TryFrom<agent_client_protocol_schema::ProtocolVersion> for AcpVersion {
    type Error = UnknownAcpVersion;

    /// The version an `initialize` negotiated, to write and read elicitations by its
    /// rules ([`CreateElicitation::to_json_for`]); refused for a version this crate does
    /// not know (0, the pre-release, or one after 2).
    fn try_from(
        version: agent_client_protocol_schema::ProtocolVersion,
    ) -> Result<Self, UnknownAcpVersion> {
        AcpVersion::from_number(u64::from(version.as_u16())).ok_or(UnknownAcpVersion {
            version: version.as_u16(),
        })
    }
}

impl From<AcpVersion> for agent_client_protocol_schema::ProtocolVersion {
    fn from(version: AcpVersion) -> Self {
        agent_client_protocol_schema::ProtocolVersion::from(version.number())
    }
}

/// A negotiated ACP `protocolVersion` this crate has no rules for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UnknownAcpVersion {
    /// The version number.
    pub version: u16,
}

impl fmt::Display for UnknownAcpVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "ACP protocol version {} is not one this crate knows (1 or 2)",
            self.version
        )
    }
}

impl std::error::Error for UnknownAcpVersion {}

// ---------------------------------------------------------------------------------------
// Capabilities

impl From<&official::ElicitationCapabilities> for ElicitationCapabilities {
    /// A present capability with the same modes and `_meta`s ([C3](crate::rules#c3), [E7](crate::rules#e7)).
    fn from(caps: &official::ElicitationCapabilities) -> Self {
        let mut ours = ElicitationCapabilities::new().with_meta(caps.meta.clone());
        if let Some(form) = &caps.form {
            ours = ours.with_mode(
                Mode::Form,
                ModeCapability::new().with_meta(form.meta.clone()),
            );
        }
        if let Some(url) = &caps.url {
            ours = ours.with_mode(Mode::Url, ModeCapability::new().with_meta(url.meta.clone()));
        }
        ours
    }
}

impl From<official::ElicitationCapabilities> for ElicitationCapabilities {
    fn from(caps: official::ElicitationCapabilities) -> Self {
        Self::from(&caps)
    }
}

impl From<Option<&official::ElicitationCapabilities>> for ElicitationCapabilities {
    /// `None` is the absent capability ([C2](crate::rules#c2)).
    fn from(caps: Option<&official::ElicitationCapabilities>) -> Self {
        caps.map_or_else(ElicitationCapabilities::absent, Self::from)
    }
}

impl From<Option<official::ElicitationCapabilities>> for ElicitationCapabilities {
    /// `None` is the absent capability ([C2](crate::rules#c2)).
    fn from(caps: Option<official::ElicitationCapabilities>) -> Self {
        Self::from(caps.as_ref())
    }
}

impl From<&ElicitationCapabilities> for Option<official::ElicitationCapabilities> {
    /// `None` for the absent capability ([C2](crate::rules#c2)).
    fn from(caps: &ElicitationCapabilities) -> Self {
        if !caps.is_present() {
            return None;
        }
        let mode_meta = |mode| caps.mode(mode).map(|m: &ModeCapability| m.meta().cloned());
        Some(
            official::ElicitationCapabilities::new()
                .form(
                    mode_meta(Mode::Form)
                        .map(|meta| official::ElicitationFormCapabilities::new().meta(meta)),
                )
                .url(
                    mode_meta(Mode::Url)
                        .map(|meta| official::ElicitationUrlCapabilities::new().meta(meta)),
                )
                .meta(caps.meta().cloned()),
        )
    }
}

impl TryFrom<&ElicitationCapabilities> for official::ElicitationCapabilities {
    type Error = AcpConversionError;

    /// Fails for the absent capability, which the official type cannot express ([C2](crate::rules#c2)).
    fn try_from(caps: &ElicitationCapabilities) -> Result<Self, AcpConversionError> {
        Option::<official::ElicitationCapabilities>::from(caps)
            .ok_or(AcpConversionError::AbsentCapability)
    }
}

impl TryFrom<ElicitationCapabilities> for official::ElicitationCapabilities {
    type Error = AcpConversionError;

    fn try_from(caps: ElicitationCapabilities) -> Result<Self, AcpConversionError> {
        Self::try_from(&caps)
    }
}
