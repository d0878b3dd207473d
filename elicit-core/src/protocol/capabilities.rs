//! The client's `elicitation` capability, as ACP reads it ([C1](crate::rules#c1)–[C6](crate::rules#c6)).
//!
//! Four situations must stay apart:
//! - no capability at all: the member is omitted or `null` ([C2](crate::rules#c2));
//! - a capability that declares no mode: `{}` or `{"form": null, "url": null}` ([C4](crate::rules#c4));
//! - one mode, or both: a mode counts only when its member is present and not `null`
//!   ([C3](crate::rules#c3)).
//!
//! MCP reads `{}` as "form only"; ACP does not ([C5](crate::rules#c5)). MCP's reading lives in
//! [`super::mcp::McpElicitationCapabilities`], a different type, so the two cannot be
//! confused. Every optional member is default-on-error ([C6](crate::rules#c6)): a malformed value reads as
//! absent instead of failing the whole `initialize`.

use std::fmt;

use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

use crate::schema::Meta;

/// An elicitation mode a client can declare and an agent can request ([C1](crate::rules#c1), [E2](crate::rules#e2)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Mode {
    /// Form mode: the client renders a form from a `requestedSchema` (F).
    Form,
    /// URL mode: the client sends the user to a URL (U).
    Url,
}

impl Mode {
    /// Both modes.
    pub const ALL: [Mode; 2] = [Mode::Form, Mode::Url];

    /// The wire name: `"form"` or `"url"`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Mode::Form => "form",
            Mode::Url => "url",
        }
    }

    /// The mode with this wire name; `None` for a custom or future mode ([E6](crate::rules#e6)).
    pub fn from_wire(name: &str) -> Option<Mode> {
        match name {
            "form" => Some(Mode::Form),
            "url" => Some(Mode::Url),
            _ => None,
        }
    }
}

impl fmt::Display for Mode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The object declaring one mode (`"form": {}` or `"url": {}`): empty but for an
/// optional `_meta` ([C3](crate::rules#c3), [E7](crate::rules#e7)).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ModeCapability {
    meta: Option<Meta>,
}

impl ModeCapability {
    /// `{}`.
    pub fn new() -> Self {
        ModeCapability { meta: None }
    }

    /// Sets `_meta` ([E7](crate::rules#e7)).
    pub fn with_meta(mut self, meta: Option<Meta>) -> Self {
        self.meta = meta;
        self
    }

    /// `_meta` ([E7](crate::rules#e7)), as received.
    pub fn meta(&self) -> Option<&Meta> {
        self.meta.as_ref()
    }

    /// Reads a mode member: `None` for absent, `null` or malformed ([C3](crate::rules#c3), [C6](crate::rules#c6)).
    pub(crate) fn from_member(json: Option<&Value>) -> Option<ModeCapability> {
        let obj = json?.as_object()?;
        Some(ModeCapability {
            meta: read_meta(obj),
        })
    }

    pub(crate) fn to_json(&self) -> Value {
        let mut map = Map::new();
        if let Some(meta) = &self.meta {
            map.insert("_meta".to_owned(), Value::Object(meta.clone()));
        }
        Value::Object(map)
    }
}

/// `_meta` is default-on-error ([C6](crate::rules#c6)): anything but an object reads as absent.
pub(crate) fn read_meta(obj: &Map<String, Value>) -> Option<Meta> {
    obj.get("_meta").and_then(Value::as_object).cloned()
}

/// What a client declared in `clientCapabilities.elicitation`, read the ACP way
/// ([C1](crate::rules#c1)–[C6](crate::rules#c6)).
///
/// ```
/// use elicit::protocol::{ElicitationCapabilities, Mode};
/// use serde_json::json;
///
/// // C2: no member, no elicitation at all.
/// let none = ElicitationCapabilities::from_json(None);
/// assert!(!none.is_present());
///
/// // C4: present, but no mode declared; unlike MCP, `{}` is not "form" (C5).
/// let empty = ElicitationCapabilities::from_json(Some(&json!({})));
/// assert!(empty.is_present() && !empty.supports(Mode::Form));
///
/// // C3, C6: a mode counts when its member is an object; `5` reads as absent.
/// let url = ElicitationCapabilities::from_json(Some(&json!({ "url": {}, "form": 5 })));
/// assert!(url.supports(Mode::Url) && !url.supports(Mode::Form));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ElicitationCapabilities {
    /// `None`: the member is omitted or `null` ([C2](crate::rules#c2)). The other fields are then unset.
    present: Option<Declared>,
}

#[derive(Debug, Clone, PartialEq, Eq, Default)]
struct Declared {
    form: Option<ModeCapability>,
    url: Option<ModeCapability>,
    meta: Option<Meta>,
}

impl ElicitationCapabilities {
    /// No elicitation capability at all ([C2](crate::rules#c2)): the member is left out.
    pub fn absent() -> Self {
        ElicitationCapabilities { present: None }
    }

    /// A present capability that declares no mode: `{}` ([C4](crate::rules#c4)).
    pub fn new() -> Self {
        ElicitationCapabilities {
            present: Some(Declared::default()),
        }
    }

    /// A present capability declaring exactly these modes.
    pub fn with_modes(modes: impl IntoIterator<Item = Mode>) -> Self {
        modes.into_iter().fold(Self::new(), |caps, mode| {
            caps.with_mode(mode, ModeCapability::new())
        })
    }

    /// Declares a mode (making the capability present if it was absent).
    pub fn with_mode(mut self, mode: Mode, capability: ModeCapability) -> Self {
        let declared = self.present.get_or_insert_with(Declared::default);
        match mode {
            Mode::Form => declared.form = Some(capability),
            Mode::Url => declared.url = Some(capability),
        }
        self
    }

    /// Withdraws a mode; the capability stays present.
    pub fn without_mode(mut self, mode: Mode) -> Self {
        if let Some(declared) = &mut self.present {
            match mode {
                Mode::Form => declared.form = None,
                Mode::Url => declared.url = None,
            }
        }
        self
    }

    /// Sets the capability's own `_meta` ([E7](crate::rules#e7)), making it present if it was absent.
    pub fn with_meta(mut self, meta: Option<Meta>) -> Self {
        self.present.get_or_insert_with(Declared::default).meta = meta;
        self
    }

    /// Reads the value of the `elicitation` member of `clientCapabilities`, `None`
    /// when the member is omitted ([C2](crate::rules#c2)–[C6](crate::rules#c6)). Never fails: a malformed value (not an
    /// object) reads as absent ([C6](crate::rules#c6)), a malformed mode as undeclared, a malformed
    /// `_meta` as no `_meta`.
    pub fn from_json(json: Option<&Value>) -> Self {
        let Some(obj) = json.and_then(Value::as_object) else {
            // C2 (omitted, null) and C6 (any other non-object).
            return Self::absent();
        };
        ElicitationCapabilities {
            present: Some(Declared {
                form: ModeCapability::from_member(obj.get("form")),
                url: ModeCapability::from_member(obj.get("url")),
                meta: read_meta(obj),
            }),
        }
    }

    /// Reads `clientCapabilities` (the whole object) and takes its `elicitation`
    /// member.
    pub fn from_client_capabilities(client_capabilities: &Value) -> Self {
        Self::from_json(client_capabilities.get("elicitation"))
    }

    /// The wire JSON of the `elicitation` member, `None` when absent (leave the member
    /// out). A declared mode is always written as its own object: `{}` is never
    /// written to mean form ([C4](crate::rules#c4), [C5](crate::rules#c5)).
    pub fn to_json(&self) -> Option<Value> {
        let declared = self.present.as_ref()?;
        let mut map = Map::new();
        if let Some(form) = &declared.form {
            map.insert("form".to_owned(), form.to_json());
        }
        if let Some(url) = &declared.url {
            map.insert("url".to_owned(), url.to_json());
        }
        if let Some(meta) = &declared.meta {
            map.insert("_meta".to_owned(), Value::Object(meta.clone()));
        }
        Some(Value::Object(map))
    }

    /// Whether the client declared elicitation at all, even with no mode ([C2](crate::rules#c2), [C4](crate::rules#c4)).
    pub fn is_present(&self) -> bool {
        self.present.is_some()
    }

    /// Whether the client declared this mode ([C3](crate::rules#c3)). An agent MUST NOT request a mode
    /// for which this is false ([C7](crate::rules#c7)).
    pub fn supports(&self, mode: Mode) -> bool {
        self.mode(mode).is_some()
    }

    /// The declared modes, form first.
    pub fn modes(&self) -> impl Iterator<Item = Mode> + '_ {
        Mode::ALL.into_iter().filter(|m| self.supports(*m))
    }

    /// The object declaring this mode, with its `_meta`.
    pub fn mode(&self, mode: Mode) -> Option<&ModeCapability> {
        let declared = self.present.as_ref()?;
        match mode {
            Mode::Form => declared.form.as_ref(),
            Mode::Url => declared.url.as_ref(),
        }
    }

    /// The capability's own `_meta` ([E7](crate::rules#e7)).
    pub fn meta(&self) -> Option<&Meta> {
        self.present.as_ref()?.meta.as_ref()
    }
}

impl Serialize for ElicitationCapabilities {
    /// An absent capability serializes as `null` ([C2](crate::rules#c2): the same as omitted); skip the
    /// member with `#[serde(skip_serializing_if = "…")]` and [`Self::is_present`] to
    /// leave it out instead.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self.to_json() {
            None => serializer.serialize_unit(),
            Some(Value::Object(map)) => {
                let mut out = serializer.serialize_map(Some(map.len()))?;
                for (k, v) in &map {
                    out.serialize_entry(k, v)?;
                }
                out.end()
            }
            Some(other) => other.serialize(serializer),
        }
    }
}

impl<'de> Deserialize<'de> for ElicitationCapabilities {
    /// Never fails on a well-formed JSON value ([C6](crate::rules#c6)); `null` is absent ([C2](crate::rules#c2)). Use
    /// `#[serde(default)]` on the member so an omitted one is absent too.
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let json = Value::deserialize(deserializer)?;
        Ok(ElicitationCapabilities::from_json(Some(&json)))
    }
}
