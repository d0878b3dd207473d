//! The MCP dialect of elicitation ([M1](crate::rules#m1)–[M7](crate::rules#m7)), for agents that speak MCP as well.
//!
//! ACP adapted MCP's data model, but the messages differ: MCP has no scope ([M1](crate::rules#m1)), reads
//! an empty capability as form ([M2](crate::rules#m2)), names the completion notification differently
//! ([M3](crate::rules#m3)), has protocol errors of its own ([M4](crate::rules#m4), [M6](crate::rules#m6)), keeps a legacy enum form ([M5](crate::rules#m5)) and has
//! no `pattern` ([M7](crate::rules#m7)). Every MCP message here is its own type, distinct from the ACP
//! types of [`super`], so a message cannot be sent in the wrong dialect by accident;
//! conversions are explicit and say what they drop.
//!
//! Two protocol versions differ enough to get a module each:
//! - [`v2025_11_25`]: `elicitation/create` is a request pushed by the server, `mode`
//!   optional for form, URL mode has an `elicitationId`, completion is the
//!   `notifications/elicitation/complete` notification, and a server that needs a URL
//!   elicitation answers `-32042`.
//! - [`v2026_07_28`]: elicitations travel inside an `InputRequiredResult`
//!   (`inputRequests`, keyed by the server) and come back in `inputResponses`; URL mode
//!   has no `elicitationId`; there is no completion and no `-32042`; capabilities come
//!   with every request in `_meta`, and a missing one is `-32021` ([M6](crate::rules#m6)).
//!
//! What is shared by both versions is here: the capability ([`McpElicitationCapabilities`]),
//! the schema in MCP form ([`McpSchema`]), form params ([`FormParams`]), the request
//! params ([`ElicitRequestParams`], generic over the version's URL params: each version
//! names its own by an alias) and the result ([`ElicitResult`]).

use std::fmt;

use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{json, Map, Value};

use super::capabilities::{read_meta, ElicitationCapabilities, Mode, ModeCapability};
use super::create::{checked_url, CreateElicitation, SchemaRef};
use super::error::{ParamsError, ParamsErrorKind};
use super::jsonrpc::RequestId;
use super::response::{Action, ElicitationResponse};
use crate::schema::{Meta, ParseOptions, PropertyKind, RequestedSchema, SchemaError};

mod params;
pub mod v2025_11_25;
pub mod v2026_07_28;

pub use params::{ElicitRequestParams, McpUrlParams};

/// The MCP method of an elicitation request (both versions).
pub const ELICITATION_CREATE: &str = "elicitation/create";

/// The MCP completion notification ([M3](crate::rules#m3); 2025-11-25 only).
pub const ELICITATION_COMPLETE_NOTIFICATION: &str = "notifications/elicitation/complete";

/// MCP error code: the request needs a URL elicitation first ([M4](crate::rules#m4); 2025-11-25 only).
pub const URL_ELICITATION_REQUIRED: i64 = -32042;

/// MCP error code: the request needs a client capability that was not declared ([M6](crate::rules#m6);
/// 2026-07-28).
pub const MISSING_REQUIRED_CLIENT_CAPABILITY: i64 = -32021;

/// The request `_meta` key under which a 2026-07-28 client sends its capabilities ([M6](crate::rules#m6)).
pub const CLIENT_CAPABILITIES_META_KEY: &str = "io.modelcontextprotocol/clientCapabilities";

/// Why an ACP message has no MCP form, or an MCP message no ACP form.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ConversionError {
    /// A custom or future ACP mode: MCP has no way to carry it ([E6](crate::rules#e6)).
    UnknownMode(String),
    /// A custom or future ACP action: MCP's actions are only accept, decline, cancel.
    UnknownAction(String),
    /// A 2026-07-28 URL request has no `elicitationId`, and ACP requires one: the agent
    /// must mint it ([U1](crate::rules#u1), [U4](crate::rules#u4)).
    MissingElicitationId,
}

impl fmt::Display for ConversionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConversionError::UnknownMode(mode) => {
                write!(f, "the elicitation mode {mode:?} has no MCP form")
            }
            ConversionError::UnknownAction(action) => {
                write!(f, "the elicitation action {action:?} has no MCP form")
            }
            ConversionError::MissingElicitationId => f.write_str(
                "an ACP URL elicitation needs an `elicitationId`, which this MCP request lacks",
            ),
        }
    }
}

impl std::error::Error for ConversionError {}

// ---------------------------------------------------------------------------------------
// Capability (M2)

/// The `elicitation` client capability read the MCP way ([M2](crate::rules#m2)): an empty object `{}`
/// declares form only, as it did before modes existed ([C5](crate::rules#c5) is where ACP differs).
///
/// Written back, a declared mode is always explicit (`{"form": {}}`), which means the
/// same to every MCP version and cannot be misread by an ACP peer.
///
/// ```
/// use elicit::protocol::mcp::McpElicitationCapabilities;
/// use elicit::protocol::Mode;
/// use serde_json::json;
///
/// let caps = McpElicitationCapabilities::from_json(Some(&json!({})));
/// assert!(caps.supports(Mode::Form) && !caps.supports(Mode::Url)); // M2
/// assert_eq!(caps.to_json(), Some(json!({ "form": {} })));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct McpElicitationCapabilities {
    present: Option<McpDeclared>,
}

#[derive(Debug, Clone, PartialEq, Eq, Default)]
struct McpDeclared {
    form: Option<Map<String, Value>>,
    url: Option<Map<String, Value>>,
}

impl McpElicitationCapabilities {
    /// No elicitation capability.
    pub fn absent() -> Self {
        McpElicitationCapabilities { present: None }
    }

    /// A capability declaring exactly these modes. With no mode at all the capability
    /// is absent: MCP cannot say "elicitation, but no mode" ([M2](crate::rules#m2) reads `{}` as form).
    pub fn with_modes(modes: impl IntoIterator<Item = Mode>) -> Self {
        let mut declared = McpDeclared::default();
        for mode in modes {
            match mode {
                Mode::Form => declared.form = Some(Map::new()),
                Mode::Url => declared.url = Some(Map::new()),
            }
        }
        if declared.form.is_none() && declared.url.is_none() {
            return Self::absent();
        }
        McpElicitationCapabilities {
            present: Some(declared),
        }
    }

    /// Reads the value of the `elicitation` member, `None` when omitted. An object
    /// with neither a `form` nor a `url` member declares form ([M2](crate::rules#m2)). A malformed mode
    /// member (not an object) reads as absent; a capability whose mode members are all
    /// malformed, or that is not an object, as no capability.
    pub fn from_json(json: Option<&Value>) -> Self {
        let Some(obj) = json.and_then(Value::as_object) else {
            return Self::absent();
        };
        let mode = |key: &str| obj.get(key).and_then(Value::as_object).cloned();
        let mut declared = McpDeclared {
            form: mode("form"),
            url: mode("url"),
        };
        // M2: the capability as it was before modes existed means form.
        if !obj.contains_key("form") && !obj.contains_key("url") {
            declared.form = Some(Map::new());
        }
        // MCP cannot say "elicitation, but no mode": when every mode member is
        // malformed, nothing usable was declared.
        if declared.form.is_none() && declared.url.is_none() {
            return Self::absent();
        }
        McpElicitationCapabilities {
            present: Some(declared),
        }
    }

    /// Reads `clientCapabilities` (the whole object) and takes its `elicitation`
    /// member.
    pub fn from_client_capabilities(client_capabilities: &Value) -> Self {
        Self::from_json(client_capabilities.get("elicitation"))
    }

    /// The wire JSON of the `elicitation` member, `None` when absent. Modes are always
    /// explicit.
    pub fn to_json(&self) -> Option<Value> {
        let declared = self.present.as_ref()?;
        let mut map = Map::new();
        if let Some(form) = &declared.form {
            map.insert("form".to_owned(), Value::Object(form.clone()));
        }
        if let Some(url) = &declared.url {
            map.insert("url".to_owned(), Value::Object(url.clone()));
        }
        Some(Value::Object(map))
    }

    /// Whether the capability is declared at all.
    pub fn is_present(&self) -> bool {
        self.present.is_some()
    }

    /// Whether this mode is declared ([M2](crate::rules#m2): `{}` declares form).
    pub fn supports(&self, mode: Mode) -> bool {
        self.mode_object(mode).is_some()
    }

    /// The object declaring this mode, as received.
    pub fn mode_object(&self, mode: Mode) -> Option<&Map<String, Value>> {
        let declared = self.present.as_ref()?;
        match mode {
            Mode::Form => declared.form.as_ref(),
            Mode::Url => declared.url.as_ref(),
        }
    }
}

impl From<&ElicitationCapabilities> for McpElicitationCapabilities {
    /// The same modes, each mode's `_meta` kept. An ACP capability that declares no
    /// mode becomes no MCP capability (MCP would read `{}` as form, [C5](crate::rules#c5)); the ACP
    /// capability's own `_meta` has no place in MCP and is dropped.
    fn from(acp: &ElicitationCapabilities) -> Self {
        let mut declared = McpDeclared::default();
        for mode in acp.modes() {
            let mut object = Map::new();
            if let Some(meta) = acp.mode(mode).and_then(ModeCapability::meta) {
                object.insert("_meta".to_owned(), Value::Object(meta.clone()));
            }
            match mode {
                Mode::Form => declared.form = Some(object),
                Mode::Url => declared.url = Some(object),
            }
        }
        if declared.form.is_none() && declared.url.is_none() {
            return Self::absent();
        }
        McpElicitationCapabilities {
            present: Some(declared),
        }
    }
}

impl From<&McpElicitationCapabilities> for ElicitationCapabilities {
    /// The same modes, explicit: MCP's `{}` becomes ACP's `{"form": {}}` ([M2](crate::rules#m2), [C5](crate::rules#c5)). A
    /// mode object keeps its `_meta`; MCP members ACP does not define are dropped.
    fn from(mcp: &McpElicitationCapabilities) -> Self {
        if !mcp.is_present() {
            return ElicitationCapabilities::absent();
        }
        Mode::ALL
            .into_iter()
            .fold(ElicitationCapabilities::new(), |caps, mode| {
                match mcp.mode_object(mode) {
                    Some(object) => {
                        caps.with_mode(mode, ModeCapability::new().with_meta(read_meta(object)))
                    }
                    None => caps,
                }
            })
    }
}

impl Serialize for McpElicitationCapabilities {
    /// An absent capability serializes as `null`.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.to_json().unwrap_or(Value::Null).serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for McpElicitationCapabilities {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let json = Value::deserialize(deserializer)?;
        Ok(McpElicitationCapabilities::from_json(Some(&json)))
    }
}

// ---------------------------------------------------------------------------------------
// Schema (M5, M7)

/// A `requestedSchema` in MCP form.
///
/// Read with the lenient parse, which takes MCP's legacy `enum` + `enumNames` as a
/// titled single-select ([M5](crate::rules#m5)). Written without `pattern`, which MCP's schema does not
/// have ([M7](crate::rules#m7)); the agent keeps the full schema and still enforces the pattern when it
/// validates the answer. A titled single-select is written as `oneOf`, or as the legacy
/// `enum` + `enumNames` where that is the right form ([`TitledSelect`]): for a client
/// of a protocol version that knows nothing else, or for a property the server names
/// ([`with_legacy_titled`](Self::with_legacy_titled)). Everything else is written as
/// in ACP, which never gets the legacy form: it is written here only.
#[derive(Debug, Clone, PartialEq)]
pub struct McpSchema {
    schema: SchemaRef,
    /// How every titled single-select is written.
    titled: TitledSelect,
    /// Properties written as `enum` + `enumNames` whatever `titled` says.
    legacy: Vec<String>,
}

/// How an MCP message writes a titled single-select ([M5](crate::rules#m5)).
///
/// MCP 2025-06-18 has one titled select, `{"type": "string", "enum": [..],
/// "enumNames": [..]}`; 2025-11-25 added `oneOf` of `{const, title}` and keeps the old
/// form as deprecated (`LegacyTitledEnumSchema`). ACP has only `oneOf`: this choice
/// exists in the MCP dialect only.
///
/// ```
/// use elicit::protocol::mcp::TitledSelect;
///
/// assert_eq!(TitledSelect::for_protocol_version("2025-06-18"), TitledSelect::LegacyEnumNames);
/// assert_eq!(TitledSelect::for_protocol_version("2025-11-25"), TitledSelect::OneOf);
/// assert_eq!(TitledSelect::for_protocol_version("2026-07-28"), TitledSelect::OneOf);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub enum TitledSelect {
    /// `oneOf: [{"const", "title"}..]` (2025-11-25 and later; ACP's only form).
    #[default]
    OneOf,
    /// `enum: [values..]` with `enumNames: [titles..]` (2025-06-18's only titled form).
    /// An option's `description` and `_meta` have no place in it and are left out.
    LegacyEnumNames,
}

impl TitledSelect {
    /// The form a client of this protocol version reads: the legacy `enumNames` up to
    /// 2025-06-18, `oneOf` from 2025-11-25 on. MCP's versions are dates
    /// (`YYYY-MM-DD`) and compare as strings; anything else (a future version name)
    /// gets `oneOf`.
    pub fn for_protocol_version(version: &str) -> Self {
        let dated = version.len() == 10
            && version.bytes().enumerate().all(|(i, b)| {
                if i == 4 || i == 7 {
                    b == b'-'
                } else {
                    b.is_ascii_digit()
                }
            });
        if dated && version <= LAST_ENUM_NAMES_VERSION {
            TitledSelect::LegacyEnumNames
        } else {
            TitledSelect::OneOf
        }
    }
}

/// The last MCP version whose only titled select is `enum` + `enumNames`.
const LAST_ENUM_NAMES_VERSION: &str = "2025-06-18";

/// A property named for the legacy titled form ([`McpSchema::with_legacy_titled`]) is
/// not a titled single-select of the schema.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotATitledSelect {
    property: String,
}

impl NotATitledSelect {
    /// The property named.
    pub fn property(&self) -> &str {
        &self.property
    }
}

impl fmt::Display for NotATitledSelect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the property {:?} is not a titled single-select of the schema, so it has no \
             `enum` + `enumNames` form",
            self.property
        )
    }
}

impl std::error::Error for NotATitledSelect {}

impl McpSchema {
    /// Wraps an owned schema.
    pub fn new(schema: RequestedSchema) -> Self {
        Self::from_ref(SchemaRef::Owned(Box::new(schema)))
    }

    /// Wraps a schema that lives forever (a derived type's), without copying it.
    pub fn from_static(schema: &'static RequestedSchema) -> Self {
        Self::from_ref(SchemaRef::Static(schema))
    }

    /// Reads a schema an MCP server sent, with the lenient parse ([M5](crate::rules#m5), [C6](crate::rules#c6), [D7](crate::rules#d7), [D8](crate::rules#d8), [E6](crate::rules#e6)).
    pub fn from_json(json: &Value) -> Result<Self, SchemaError> {
        Self::parse(json, &ParseOptions::lenient())
    }

    /// Reads a schema with explicit options (the strict parse refuses `enumNames`).
    pub fn parse(json: &Value, options: &ParseOptions) -> Result<Self, SchemaError> {
        RequestedSchema::parse(json, options).map(Self::new)
    }

    /// Writes every titled single-select in this form ([M5](crate::rules#m5)); choose it with
    /// [`TitledSelect::for_protocol_version`] from the version the client negotiated.
    #[must_use]
    pub fn with_titled_select(mut self, titled: TitledSelect) -> Self {
        self.titled = titled;
        self
    }

    /// Writes the titled single-select `property` as the legacy `enum` + `enumNames`,
    /// whatever [`with_titled_select`](Self::with_titled_select) says: for a server
    /// whose clients expect that form for one field ([M5](crate::rules#m5)). Refused when the
    /// schema has no titled single-select of that name.
    ///
    /// ```
    /// use elicit::protocol::mcp::McpSchema;
    /// use elicit::RequestedSchema;
    /// use serde_json::json;
    ///
    /// let schema = RequestedSchema::from_json(&json!({ "type": "object", "properties": {
    ///     "size": { "type": "string", "oneOf": [
    ///         { "const": "s", "title": "Small" }, { "const": "l", "title": "Large" } ] } } }))?;
    /// let mcp = McpSchema::new(schema).with_legacy_titled("size")?;
    /// assert_eq!(mcp.to_json()["properties"]["size"], json!({
    ///     "type": "string", "enum": ["s", "l"], "enumNames": ["Small", "Large"] }));
    /// assert!(McpSchema::from_json(&mcp.to_json())?.with_legacy_titled("colour").is_err());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn with_legacy_titled(
        mut self,
        property: impl Into<String>,
    ) -> Result<Self, NotATitledSelect> {
        let property = property.into();
        let titled = self.parsed().property(&property).is_some_and(
            |p| matches!(p.schema().kind(), PropertyKind::SingleSelect(s) if s.options.is_titled()),
        );
        if !titled {
            return Err(NotATitledSelect { property });
        }
        if !self.legacy.contains(&property) {
            self.legacy.push(property);
        }
        Ok(self)
    }

    /// How the titled single-select `property` is written.
    pub fn titled_select_of(&self, property: &str) -> TitledSelect {
        if self.legacy.iter().any(|p| p == property) {
            TitledSelect::LegacyEnumNames
        } else {
            self.titled
        }
    }

    /// The schema as parsed, `pattern` included.
    pub fn schema(&self) -> &RequestedSchema {
        self.parsed()
    }

    /// The schema, owned.
    pub fn into_schema(self) -> RequestedSchema {
        self.schema.into_owned()
    }

    /// Whether some property has a `pattern` the MCP form leaves out ([M7](crate::rules#m7)): the agent
    /// must then enforce it itself.
    pub fn omits_pattern(&self) -> bool {
        self.parsed()
            .properties()
            .iter()
            .any(|p| matches!(p.schema().kind(), PropertyKind::String(s) if s.pattern.is_some()))
    }

    /// The MCP wire JSON: the ACP form without `pattern` ([M7](crate::rules#m7)), each titled
    /// single-select in its chosen form ([M5](crate::rules#m5)).
    pub fn to_json(&self) -> Value {
        mcp_schema_json(self.parsed().as_json(), |name| self.titled_select_of(name))
    }

    fn parsed(&self) -> &RequestedSchema {
        &self.schema
    }

    pub(crate) fn into_ref(self) -> SchemaRef {
        self.schema
    }

    /// The properties named for the legacy form.
    #[cfg_attr(not(feature = "rmcp_3"), allow(dead_code))]
    pub(crate) fn legacy_properties(&self) -> &[String] {
        &self.legacy
    }

    pub(crate) fn from_ref(schema: SchemaRef) -> Self {
        McpSchema {
            schema,
            titled: TitledSelect::OneOf,
            legacy: Vec::new(),
        }
    }
}

/// The MCP form of a schema's ACP JSON: [M7](crate::rules#m7), no `pattern` on a string property;
/// [M5](crate::rules#m5), a titled single-select for which `titled` says so written as `enum` +
/// `enumNames` in the place of its `oneOf`. Properties of unknown types are left as
/// received ([E6](crate::rules#e6)).
fn mcp_schema_json(acp: &Value, titled: impl Fn(&str) -> TitledSelect) -> Value {
    let mut json = acp.clone();
    if let Some(properties) = json.get_mut("properties").and_then(Value::as_object_mut) {
        for (name, property) in properties.iter_mut() {
            let Some(object) = property.as_object_mut() else {
                continue;
            };
            if object.get("type").and_then(Value::as_str) != Some("string") {
                continue;
            }
            // M7: the constraint cannot travel, so it is said in words where the client
            // shows the field, and the person has a chance to meet it the first time.
            if let Some(Value::String(pattern)) = object.shift_remove("pattern") {
                say_pattern(object, &pattern);
            }
            if titled(name) == TitledSelect::LegacyEnumNames && object.contains_key("oneOf") {
                *object = legacy_titled(std::mem::take(object));
            }
        }
    }
    json
}

/// A `pattern` MCP cannot carry ([M7](crate::rules#m7)), said in words for the person.
pub(crate) fn pattern_in_words(pattern: &str) -> String {
    format!("must match the pattern {pattern}")
}

/// Adds [`pattern_in_words`] to the property's `description`, after what it said, or
/// as the description where the schema's own emitter puts one (after `title`, else
/// after `type`), so that the MCP form reads back and writes out unchanged.
pub(crate) fn say_pattern(object: &mut Map<String, Value>, pattern: &str) {
    let words = pattern_in_words(pattern);
    if let Some(Value::String(before)) = object.get_mut("description") {
        *before = match before.is_empty() {
            true => words,
            false => format!("{before} ({words})"),
        };
        return;
    }
    let after = if object.contains_key("title") {
        "title"
    } else {
        "type"
    };
    let mut out = Map::new();
    for (key, value) in std::mem::take(object) {
        let here = key == after;
        out.insert(key, value);
        if here {
            out.insert("description".to_owned(), Value::String(words.clone()));
        }
    }
    if !out.contains_key("description") {
        out.insert("description".to_owned(), Value::String(words));
    }
    *object = out;
}

/// `{.., "oneOf": [{const, title, ..}..], ..}` as `{.., "enum": [consts..], "enumNames":
/// [titles..], ..}`, the other members in their places.
fn legacy_titled(object: Map<String, Value>) -> Map<String, Value> {
    let mut out = Map::new();
    for (key, value) in object {
        if key != "oneOf" {
            out.insert(key, value);
            continue;
        }
        let options = value.as_array().cloned().unwrap_or_default();
        let member = |name: &str| -> Vec<Value> {
            options
                .iter()
                .map(|o| o.get(name).cloned().unwrap_or(Value::Null))
                .collect()
        };
        out.insert("enum".to_owned(), Value::Array(member("const")));
        out.insert("enumNames".to_owned(), Value::Array(member("title")));
    }
    out
}

impl From<RequestedSchema> for McpSchema {
    fn from(schema: RequestedSchema) -> Self {
        McpSchema::new(schema)
    }
}

impl From<&'static RequestedSchema> for McpSchema {
    fn from(schema: &'static RequestedSchema) -> Self {
        McpSchema::from_static(schema)
    }
}

impl Serialize for McpSchema {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.to_json().serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for McpSchema {
    /// The lenient parse ([`McpSchema::from_json`]).
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let json = Value::deserialize(deserializer)?;
        McpSchema::from_json(&json).map_err(serde::de::Error::custom)
    }
}

// ---------------------------------------------------------------------------------------
// Form params (both versions)

/// The params of a form-mode MCP elicitation: `{"mode"?: "form", "message",
/// "requestedSchema", "_meta"?}`, the same in 2025-11-25 and 2026-07-28. No scope
/// ([M1](crate::rules#m1)).
#[derive(Debug, Clone, PartialEq)]
pub struct FormParams {
    message: String,
    requested_schema: McpSchema,
    meta: Option<Meta>,
}

impl FormParams {
    /// Form params.
    pub fn new(message: impl Into<String>, requested_schema: impl Into<McpSchema>) -> Self {
        FormParams {
            message: message.into(),
            requested_schema: requested_schema.into(),
            meta: None,
        }
    }

    /// Sets `_meta`.
    pub fn with_meta(mut self, meta: Option<Meta>) -> Self {
        self.meta = meta;
        self
    }

    /// Writes the schema's titled single-selects in this form ([M5](crate::rules#m5),
    /// [`McpSchema::with_titled_select`]).
    #[must_use]
    pub fn with_titled_select(mut self, titled: TitledSelect) -> Self {
        self.requested_schema = self.requested_schema.with_titled_select(titled);
        self
    }

    /// Writes the titled single-select `property` as `enum` + `enumNames`
    /// ([M5](crate::rules#m5), [`McpSchema::with_legacy_titled`]).
    pub fn with_legacy_titled(
        mut self,
        property: impl Into<String>,
    ) -> Result<Self, NotATitledSelect> {
        self.requested_schema = self.requested_schema.with_legacy_titled(property)?;
        Ok(self)
    }

    /// The message to show the user.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The schema.
    pub fn requested_schema(&self) -> &McpSchema {
        &self.requested_schema
    }

    /// `_meta`.
    pub fn meta(&self) -> Option<&Meta> {
        self.meta.as_ref()
    }

    /// Reads the params of a form request whose `mode` is absent or `"form"` ([M1](crate::rules#m1)).
    fn from_object(obj: &Map<String, Value>, options: &ParseOptions) -> Result<Self, ParamsError> {
        let message = read_message(obj)?;
        let schema = obj
            .get("requestedSchema")
            .ok_or_else(|| ParamsError::missing("requestedSchema"))?;
        let requested_schema = McpSchema::parse(schema, options)
            .map_err(|e| ParamsError::new("/requestedSchema", ParamsErrorKind::Schema(e)))?;
        Ok(FormParams {
            message,
            requested_schema,
            meta: read_meta(obj),
        })
    }

    fn write<M: SerializeMap>(&self, map: &mut M) -> Result<(), M::Error> {
        // `mode` is optional for form in MCP (M1) but always written: explicit is read
        // the same by every version.
        map.serialize_entry("mode", Mode::Form.as_str())?;
        map.serialize_entry("message", &self.message)?;
        map.serialize_entry("requestedSchema", &self.requested_schema)?;
        if let Some(meta) = &self.meta {
            map.serialize_entry("_meta", meta)?;
        }
        Ok(())
    }

    /// The ACP request for this form in `scope` ([M1](crate::rules#m1): MCP has none, the caller knows
    /// it). The schema is kept as parsed; ACP emission writes it whole.
    pub fn into_acp(self, scope: super::Scope) -> CreateElicitation {
        CreateElicitation::form_ref(scope, self.message, self.requested_schema.into_ref())
            .with_meta(self.meta)
    }
}

/// The `mode` of MCP params: absent means form ([M1](crate::rules#m1)). MCP has no custom modes: any
/// other value is an error.
fn read_mcp_mode(obj: &Map<String, Value>) -> Result<Mode, ParamsError> {
    match obj.get("mode") {
        None => Ok(Mode::Form),
        Some(Value::String(mode)) => Mode::from_wire(mode)
            .ok_or_else(|| ParamsError::wrong_type("mode", "\"form\" or \"url\"")),
        Some(_) => Err(ParamsError::wrong_type("mode", "\"form\" or \"url\"")),
    }
}

fn read_message(obj: &Map<String, Value>) -> Result<String, ParamsError> {
    match obj.get("message") {
        Some(Value::String(message)) => Ok(message.clone()),
        None => Err(ParamsError::missing("message")),
        Some(_) => Err(ParamsError::wrong_type("message", "a string")),
    }
}

fn read_url(obj: &Map<String, Value>) -> Result<String, ParamsError> {
    match obj.get("url") {
        Some(Value::String(url)) => checked_url(url.clone()),
        None => Err(ParamsError::missing("url")),
        Some(_) => Err(ParamsError::wrong_type("url", "a string")),
    }
}

fn params_object(json: &Value) -> Result<&Map<String, Value>, ParamsError> {
    json.as_object()
        .ok_or_else(|| ParamsError::new("", ParamsErrorKind::NotAnObject))
}

/// Reads `{"method": "elicitation/create", "params"}` and returns the params.
fn request_params(json: &Value) -> Result<&Value, ParamsError> {
    let obj = params_object(json)?;
    match obj.get("method") {
        Some(Value::String(m)) if m == ELICITATION_CREATE => {}
        None => return Err(ParamsError::missing("method")),
        Some(_) => return Err(ParamsError::wrong_type("method", "\"elicitation/create\"")),
    }
    obj.get("params")
        .ok_or_else(|| ParamsError::missing("params"))
}

// ---------------------------------------------------------------------------------------
// Result (both versions)

/// MCP's three actions. Unlike ACP ([E6](crate::rules#e6)) MCP's set is closed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum McpAction {
    /// Submitted, or consented to open the URL.
    Accept,
    /// Explicitly refused.
    Decline,
    /// Dismissed.
    Cancel,
}

impl McpAction {
    /// The wire name.
    pub const fn as_str(self) -> &'static str {
        match self {
            McpAction::Accept => "accept",
            McpAction::Decline => "decline",
            McpAction::Cancel => "cancel",
        }
    }
}

/// The client's answer to an MCP elicitation: `{"action", "content"?, "_meta"?}` — the
/// `ElicitResult` of 2025-11-25 and an `inputResponses` entry of 2026-07-28.
///
/// As in ACP, `content` is read only on accept; omitted and `null` are the same ([R2](crate::rules#r2)).
#[derive(Debug, Clone, PartialEq)]
pub struct ElicitResult {
    action: McpAction,
    content: Option<Map<String, Value>>,
    meta: Option<Meta>,
}

impl ElicitResult {
    /// `accept` with form content.
    pub fn accept(content: Map<String, Value>) -> Self {
        ElicitResult {
            action: McpAction::Accept,
            content: Some(content),
            meta: None,
        }
    }

    /// `accept` without content (URL mode).
    pub fn accept_without_content() -> Self {
        ElicitResult {
            action: McpAction::Accept,
            content: None,
            meta: None,
        }
    }

    /// `decline`.
    pub fn decline() -> Self {
        ElicitResult {
            action: McpAction::Decline,
            content: None,
            meta: None,
        }
    }

    /// `cancel`.
    pub fn cancel() -> Self {
        ElicitResult {
            action: McpAction::Cancel,
            content: None,
            meta: None,
        }
    }

    /// Sets `_meta`.
    pub fn with_meta(mut self, meta: Option<Meta>) -> Self {
        self.meta = meta;
        self
    }

    /// What the user did.
    pub fn action(&self) -> McpAction {
        self.action
    }

    /// The content, on accept only.
    pub fn content(&self) -> Option<&Map<String, Value>> {
        self.content.as_ref()
    }

    /// `_meta`.
    pub fn meta(&self) -> Option<&Meta> {
        self.meta.as_ref()
    }

    /// Reads a result. Refused: not an object, no string `action`, an action other
    /// than the three, `content` on accept that is neither an object nor `null`.
    pub fn from_json(json: &Value) -> Result<Self, ParamsError> {
        let obj = params_object(json)?;
        let action = match obj.get("action") {
            Some(Value::String(a)) => match a.as_str() {
                "accept" => McpAction::Accept,
                "decline" => McpAction::Decline,
                "cancel" => McpAction::Cancel,
                _ => {
                    return Err(ParamsError::wrong_type(
                        "action",
                        "\"accept\", \"decline\" or \"cancel\"",
                    ))
                }
            },
            None => return Err(ParamsError::missing("action")),
            Some(_) => return Err(ParamsError::wrong_type("action", "a string")),
        };
        let content = match obj.get("content") {
            // R2: content only counts on accept, where absent and null are the same.
            _ if action != McpAction::Accept => None,
            None | Some(Value::Null) => None,
            Some(Value::Object(c)) => Some(c.clone()),
            Some(_) => {
                return Err(ParamsError::wrong_type(
                    "content",
                    "an object of property values",
                ))
            }
        };
        Ok(ElicitResult {
            action,
            content,
            meta: obj.get("_meta").and_then(Value::as_object).cloned(),
        })
    }

    /// The wire JSON.
    pub fn to_json(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }

    /// The whole JSON-RPC response: `{"jsonrpc": "2.0", "id", "result"}` (2025-11-25).
    pub fn to_response(&self, id: &RequestId) -> Value {
        json!({ "jsonrpc": "2.0", "id": id.to_json(), "result": self.to_json() })
    }
}

impl Serialize for ElicitResult {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("action", self.action.as_str())?;
        if let Some(content) = &self.content {
            map.serialize_entry("content", content)?;
        }
        if let Some(meta) = &self.meta {
            map.serialize_entry("_meta", meta)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for ElicitResult {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let json = Value::deserialize(deserializer)?;
        ElicitResult::from_json(&json).map_err(serde::de::Error::custom)
    }
}

impl From<&ElicitResult> for ElicitationResponse {
    /// The same answer in ACP form.
    fn from(mcp: &ElicitResult) -> Self {
        let response = match (mcp.action, &mcp.content) {
            (McpAction::Accept, Some(content)) => ElicitationResponse::accept(content.clone()),
            (McpAction::Accept, None) => ElicitationResponse::accept_without_content(),
            (McpAction::Decline, _) => ElicitationResponse::decline(),
            (McpAction::Cancel, _) => ElicitationResponse::cancel(),
        };
        response.with_meta(mcp.meta.clone())
    }
}

impl TryFrom<&ElicitationResponse> for ElicitResult {
    type Error = ConversionError;

    /// The same answer in MCP form; a custom or future ACP action has none.
    fn try_from(acp: &ElicitationResponse) -> Result<Self, ConversionError> {
        let result = match acp.action() {
            Action::Accept => match acp.content() {
                Some(content) => ElicitResult::accept(content.clone()),
                None => ElicitResult::accept_without_content(),
            },
            Action::Decline => ElicitResult::decline(),
            Action::Cancel => ElicitResult::cancel(),
            Action::Other(action) => return Err(ConversionError::UnknownAction(action.clone())),
        };
        Ok(result.with_meta(acp.meta().cloned()))
    }
}

/// The form params of an ACP request, scope dropped ([M1](crate::rules#m1)); `None` for URL or unknown
/// modes.
fn acp_form_params(acp: &CreateElicitation) -> Option<FormParams> {
    let schema = acp.schema_ref()?.clone();
    Some(FormParams {
        message: acp.message().to_owned(),
        requested_schema: McpSchema::from_ref(schema),
        meta: acp.meta().cloned(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn schema() -> RequestedSchema {
        RequestedSchema::from_json(&json!({ "type": "object", "properties": {
            "size": { "type": "string", "title": "Size", "default": "l", "oneOf": [
                { "const": "s", "title": "Small", "description": "The small one" },
                { "const": "l", "title": "Large" } ] },
            "colour": { "type": "string", "oneOf": [
                { "const": "r", "title": "Red" }, { "const": "g", "title": "Green" } ] },
            "plain": { "type": "string", "enum": ["a", "b"] },
            "tags": { "type": "array", "items": { "anyOf": [
                { "const": "x", "title": "X" } ] } },
            "code": { "type": "string", "pattern": "^[a-z]+$" } },
            "required": ["size"] }))
        .expect("a valid schema")
    }

    // covers: M5
    #[test]
    fn the_protocol_version_chooses_the_titled_form() {
        use TitledSelect::*;
        for (version, form) in [
            ("2025-03-26", LegacyEnumNames),
            ("2025-06-18", LegacyEnumNames),
            ("2025-11-25", OneOf),
            ("2026-07-28", OneOf),
            ("draft", OneOf),
            ("2025-6-18", OneOf),
            ("", OneOf),
        ] {
            assert_eq!(
                TitledSelect::for_protocol_version(version),
                form,
                "{version}"
            );
        }
    }

    // covers: M5, M7, D13
    #[test]
    fn legacy_form_replaces_one_of_in_place_and_keeps_the_rest() {
        let mcp = McpSchema::new(schema()).with_titled_select(TitledSelect::LegacyEnumNames);
        let json = mcp.to_json();
        // `enum` + `enumNames` where `oneOf` was; option descriptions have no place.
        assert_eq!(
            serde_json::to_string(&json["properties"]["size"]).unwrap(),
            r#"{"type":"string","title":"Size","enum":["s","l"],"enumNames":["Small","Large"],"default":"l"}"#
        );
        assert_eq!(
            json["properties"]["colour"],
            json!({ "type": "string", "enum": ["r", "g"], "enumNames": ["Red", "Green"] })
        );
        // Untitled selects and multi-selects are not single titled selects: unchanged.
        assert_eq!(
            json["properties"]["plain"],
            json!({ "type": "string", "enum": ["a", "b"] })
        );
        assert_eq!(
            json["properties"]["tags"],
            json!({ "type": "array", "items": { "anyOf": [{ "const": "x", "title": "X" }] } })
        );
        // M7: the pattern said in words, where the client shows the field.
        assert_eq!(
            json["properties"]["code"],
            json!({ "type": "string", "description": "must match the pattern ^[a-z]+$" })
        );
        let order: Vec<&String> = json["properties"].as_object().unwrap().keys().collect();
        assert_eq!(order, ["size", "colour", "plain", "tags", "code"]);
        // Read back (lenient), the legacy form is the same titled select.
        let back = McpSchema::from_json(&json).unwrap();
        assert_eq!(
            back.schema().property("size").unwrap().schema().kind(),
            schema()
                .property("size")
                .map(|p| p.schema().kind())
                .map(|k| {
                    // The description was the one member let go.
                    let PropertyKind::SingleSelect(s) = k else {
                        unreachable!()
                    };
                    let mut s = s.clone();
                    if let crate::schema::Options::Titled(options) = &s.options {
                        let stripped: Vec<_> = options
                            .iter()
                            .map(|o| {
                                crate::schema::EnumOption::new(
                                    o.value().to_owned(),
                                    o.title().to_owned(),
                                )
                            })
                            .collect();
                        s.options = crate::schema::Options::Titled(stripped.into());
                    }
                    PropertyKind::SingleSelect(s)
                })
                .as_ref()
                .unwrap()
        );
    }

    // covers: M5
    #[test]
    fn a_named_property_alone_goes_out_in_the_legacy_form() {
        let mcp = McpSchema::new(schema())
            .with_legacy_titled("colour")
            .unwrap();
        let json = mcp.to_json();
        assert!(json["properties"]["size"].get("oneOf").is_some());
        assert!(json["properties"]["size"].get("enumNames").is_none());
        assert_eq!(
            json["properties"]["colour"]["enumNames"],
            json!(["Red", "Green"])
        );
        assert_eq!(
            mcp.titled_select_of("colour"),
            TitledSelect::LegacyEnumNames
        );
        assert_eq!(mcp.titled_select_of("size"), TitledSelect::OneOf);
        // Only a titled single-select of the schema can be named.
        for name in ["plain", "tags", "code", "missing"] {
            let error = McpSchema::new(schema())
                .with_legacy_titled(name)
                .unwrap_err();
            assert_eq!(error.property(), name);
            assert!(
                error.to_string().contains("not a titled single-select"),
                "{error}"
            );
        }
    }

    // covers: M5, F2
    #[test]
    fn the_acp_form_never_has_enum_names() {
        let params = FormParams::new("Pick", McpSchema::new(schema()))
            .with_titled_select(TitledSelect::LegacyEnumNames)
            .with_legacy_titled("size")
            .unwrap();
        assert!(serde_json::to_string(&params.requested_schema().to_json())
            .unwrap()
            .contains("enumNames"));
        let acp = params
            .into_acp(crate::protocol::Scope::request(1))
            .to_json();
        let text = serde_json::to_string(&acp).unwrap();
        assert!(!text.contains("enumNames"), "{text}");
        assert!(text.contains("oneOf"), "{text}");
    }
}
