//! The params of `elicitation/create`, written once for both protocol versions: form or
//! URL, generic over the version's URL params (the one part that differs, [M6](crate::rules#m6)).

use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

use super::{
    acp_form_params, params_object, read_mcp_mode, ConversionError, FormParams, TitledSelect,
};
use crate::protocol::capabilities::Mode;
use crate::protocol::create::{CreateElicitation, ModeParams};
use crate::protocol::error::ParamsError;
use crate::schema::ParseOptions;

/// The URL params of one MCP protocol version: [`v2025_11_25::UrlParams`] (with an
/// `elicitationId`) or [`v2026_07_28::UrlParams`] (without one, [M6](crate::rules#m6)).
///
/// This trait is sealed: those two types implement it and nothing outside this crate
/// can. It only lets [`ElicitRequestParams`] be written once for both versions; what it
/// asks of a version (reading, writing and converting its URL params) is private, so it
/// can change with the next protocol version without breaking anyone.
///
/// [`v2025_11_25::UrlParams`]: super::v2025_11_25::UrlParams
/// [`v2026_07_28::UrlParams`]: super::v2026_07_28::UrlParams
pub trait McpUrlParams: sealed::Sealed {}

pub(super) mod sealed {
    use serde::ser::SerializeMap;
    use serde_json::{Map, Value};

    use crate::protocol::create::CreateElicitation;
    use crate::protocol::error::ParamsError;

    /// What [`super::ElicitRequestParams`] needs of a version's URL params. Public in a
    /// private module, so that [`super::McpUrlParams`] is sealed.
    pub trait Sealed: Sized {
        /// The message to show the user.
        fn message(&self) -> &str;

        /// Reads the params of a request whose `mode` is `"url"`.
        fn from_object(obj: &Map<String, Value>) -> Result<Self, ParamsError>;

        /// Writes the members, `mode` first.
        fn write<M: SerializeMap>(&self, map: &mut M) -> Result<(), M::Error>;

        /// The URL params of an ACP URL request, with what this version keeps of it.
        fn from_acp(acp: &CreateElicitation, elicitation_id: &str, url: &str) -> Self;
    }
}

/// The params of `elicitation/create`: form or URL, no scope ([M1](crate::rules#m1)). `U` is the version's
/// URL params; name it through the version's alias,
/// [`v2025_11_25::ElicitRequestParams`] or [`v2026_07_28::ElicitRequestParams`], which
/// also has the version's conversion to ACP (`into_acp`).
///
/// [`v2025_11_25::ElicitRequestParams`]: super::v2025_11_25::ElicitRequestParams
/// [`v2026_07_28::ElicitRequestParams`]: super::v2026_07_28::ElicitRequestParams
#[derive(Debug, Clone, PartialEq)]
pub enum ElicitRequestParams<U: McpUrlParams> {
    /// Form mode; `mode` may be omitted on the wire.
    Form(FormParams),
    /// URL mode, in the version's form (2026-07-28 has no `elicitationId`, [M6](crate::rules#m6)).
    Url(U),
}

impl<U: McpUrlParams> ElicitRequestParams<U> {
    /// Reads the params; a form schema with the lenient parse ([M5](crate::rules#m5)).
    pub fn from_json(json: &Value) -> Result<Self, ParamsError> {
        Self::parse(json, &ParseOptions::lenient())
    }

    /// Reads the params, parsing a form schema with these options.
    pub fn parse(json: &Value, options: &ParseOptions) -> Result<Self, ParamsError> {
        let obj = params_object(json)?;
        Ok(match read_mcp_mode(obj)? {
            Mode::Form => ElicitRequestParams::Form(FormParams::from_object(obj, options)?),
            Mode::Url => ElicitRequestParams::Url(U::from_object(obj)?),
        })
    }

    /// The wire JSON.
    pub fn to_json(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }

    /// Writes a form's titled single-selects in this form ([M5](crate::rules#m5)): choose it with
    /// [`TitledSelect::for_protocol_version`] from the version the client negotiated.
    /// URL params have no schema and are unchanged.
    #[must_use]
    pub fn with_titled_select(self, titled: TitledSelect) -> Self {
        match self {
            ElicitRequestParams::Form(f) => ElicitRequestParams::Form(f.with_titled_select(titled)),
            url => url,
        }
    }

    /// The mode.
    pub fn mode(&self) -> Mode {
        match self {
            ElicitRequestParams::Form(_) => Mode::Form,
            ElicitRequestParams::Url(_) => Mode::Url,
        }
    }

    /// The message to show the user.
    pub fn message(&self) -> &str {
        match self {
            ElicitRequestParams::Form(f) => f.message(),
            ElicitRequestParams::Url(u) => u.message(),
        }
    }
}

impl<U: McpUrlParams> Serialize for ElicitRequestParams<U> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        match self {
            ElicitRequestParams::Form(f) => f.write(&mut map)?,
            ElicitRequestParams::Url(u) => u.write(&mut map)?,
        }
        map.end()
    }
}

impl<'de, U: McpUrlParams> Deserialize<'de> for ElicitRequestParams<U> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let json = Value::deserialize(deserializer)?;
        ElicitRequestParams::from_json(&json).map_err(serde::de::Error::custom)
    }
}

impl<U: McpUrlParams> TryFrom<&CreateElicitation> for ElicitRequestParams<U> {
    type Error = ConversionError;

    /// The MCP form of an ACP request: the scope is dropped ([M1](crate::rules#m1)); a URL keeps its
    /// `elicitationId` in 2025-11-25 and drops it in 2026-07-28 ([M6](crate::rules#m6): the agent keeps the
    /// mapping from its input-request key). A schema loses only `pattern` when written
    /// ([M7](crate::rules#m7)). A custom or future ACP mode has no MCP form.
    fn try_from(acp: &CreateElicitation) -> Result<Self, ConversionError> {
        match acp.params() {
            ModeParams::Form { .. } => acp_form_params(acp)
                .map(ElicitRequestParams::Form)
                .ok_or_else(|| ConversionError::UnknownMode(acp.mode_name().to_owned())),
            ModeParams::Url {
                elicitation_id,
                url,
            } => Ok(ElicitRequestParams::Url(U::from_acp(
                acp,
                elicitation_id,
                url,
            ))),
            ModeParams::Other { mode, .. } => Err(ConversionError::UnknownMode(mode.to_owned())),
        }
    }
}
