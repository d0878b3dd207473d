//! The exact wire form of a schema.
//!
//! `type` and `properties` are always written (ACP v2 requires both, [F1](crate::rules#f1)); properties
//! and options keep their order ([D13](crate::rules#d13)); `_meta` and kept members are written back as
//! received; nothing the ACP v2 schema forbids is written (no `enumNames`, no empty
//! option list, no `null` members).

use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};
use serde::{Deserialize, Deserializer};
use serde_json::Value;

use super::{EnumOption, Meta, Options, PropertyKind, PropertySchema, RequestedSchema};

impl RequestedSchema {
    /// The wire JSON of this schema, as a new value.
    pub fn to_json(&self) -> Value {
        self.as_json().clone()
    }

    /// The wire JSON of this schema, computed once and cached: after the first call
    /// this neither allocates nor walks the schema.
    pub fn as_json(&self) -> &Value {
        self.wire.get_or_init(|| {
            // Serializing our own model into a `Value` cannot fail: every key is a
            // string and every number is finite.
            serde_json::to_value(SerializeSchema(self)).unwrap_or(Value::Null)
        })
    }
}

impl Serialize for RequestedSchema {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self.wire.get() {
            Some(json) => json.serialize(serializer),
            None => SerializeSchema(self).serialize(serializer),
        }
    }
}

impl<'de> Deserialize<'de> for RequestedSchema {
    /// The strict parse (see [`RequestedSchema::from_json`]).
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let json = Value::deserialize(deserializer)?;
        RequestedSchema::from_json(&json).map_err(serde::de::Error::custom)
    }
}

struct SerializeSchema<'a>(&'a RequestedSchema);

impl Serialize for SerializeSchema<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let s = self.0;
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("type", "object")?;
        if let Some(t) = &s.title {
            map.serialize_entry("title", t)?;
        }
        if let Some(d) = &s.description {
            map.serialize_entry("description", d)?;
        }
        map.serialize_entry("properties", &Properties(s))?;
        if s.properties.iter().any(|p| p.required) {
            map.serialize_entry("required", &Required(s))?;
        }
        if let Some(m) = &s.meta {
            map.serialize_entry("_meta", m)?;
        }
        write_extra(&mut map, s.extra.as_deref())?;
        map.end()
    }
}

fn write_extra<M: SerializeMap>(map: &mut M, extra: Option<&Meta>) -> Result<(), M::Error> {
    if let Some(extra) = extra {
        for (k, v) in extra {
            map.serialize_entry(k, v)?;
        }
    }
    Ok(())
}

struct Properties<'a>(&'a RequestedSchema);

impl Serialize for Properties<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.properties.len()))?;
        for p in self.0.properties.iter() {
            map.serialize_entry(&p.name, &p.schema)?;
        }
        map.end()
    }
}

struct Required<'a>(&'a RequestedSchema);

impl Serialize for Required<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(None)?;
        for p in self.0.properties.iter().filter(|p| p.required) {
            seq.serialize_element(&p.name)?;
        }
        seq.end()
    }
}

impl Serialize for PropertySchema {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if let PropertyKind::Unknown(u) = &self.kind {
            // E6: an unknown property type is written back exactly as received.
            return u.raw.serialize(serializer);
        }
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("type", self.kind.type_name())?;
        if let Some(t) = &self.title {
            map.serialize_entry("title", t)?;
        }
        if let Some(d) = &self.description {
            map.serialize_entry("description", d)?;
        }
        match &self.kind {
            PropertyKind::String(s) => {
                if let Some(v) = s.min_length {
                    map.serialize_entry("minLength", &v)?;
                }
                if let Some(v) = s.max_length {
                    map.serialize_entry("maxLength", &v)?;
                }
                if let Some(p) = &s.pattern {
                    map.serialize_entry("pattern", p.source())?;
                }
                if let Some(f) = &s.format {
                    map.serialize_entry("format", f.name())?;
                }
                if let Some(d) = &s.default {
                    map.serialize_entry("default", d)?;
                }
            }
            PropertyKind::SingleSelect(s) => {
                match &s.options {
                    Options::Untitled(values) => map.serialize_entry("enum", values.as_ref())?,
                    Options::Titled(options) => {
                        map.serialize_entry("oneOf", &TitledOptions(options))?
                    }
                }
                if let Some(d) = &s.default {
                    map.serialize_entry("default", d)?;
                }
            }
            PropertyKind::Number(n) => {
                if let Some(v) = n.minimum {
                    map.serialize_entry("minimum", &v)?;
                }
                if let Some(v) = n.maximum {
                    map.serialize_entry("maximum", &v)?;
                }
                if let Some(v) = n.default {
                    map.serialize_entry("default", &v)?;
                }
            }
            PropertyKind::Integer(n) => {
                if let Some(v) = n.minimum {
                    map.serialize_entry("minimum", &v)?;
                }
                if let Some(v) = n.maximum {
                    map.serialize_entry("maximum", &v)?;
                }
                if let Some(v) = n.default {
                    map.serialize_entry("default", &v)?;
                }
            }
            PropertyKind::Boolean(b) => {
                if let Some(v) = b.default {
                    map.serialize_entry("default", &v)?;
                }
            }
            PropertyKind::MultiSelect(m) => {
                map.serialize_entry("items", &Items(&m.options))?;
                if let Some(v) = m.min_items {
                    map.serialize_entry("minItems", &v)?;
                }
                if let Some(v) = m.max_items {
                    map.serialize_entry("maxItems", &v)?;
                }
                if let Some(d) = &m.default {
                    map.serialize_entry("default", d.as_ref())?;
                }
            }
            PropertyKind::Unknown(_) => {}
        }
        if let Some(m) = &self.meta {
            map.serialize_entry("_meta", m)?;
        }
        write_extra(&mut map, self.extra.as_deref())?;
        map.end()
    }
}

struct Items<'a>(&'a Options);

impl Serialize for Items<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        match self.0 {
            Options::Untitled(values) => {
                map.serialize_entry("type", "string")?;
                map.serialize_entry("enum", values.as_ref())?;
            }
            // F2: titled items carry no `type`.
            Options::Titled(options) => map.serialize_entry("anyOf", &TitledOptions(options))?,
        }
        map.end()
    }
}

struct TitledOptions<'a>(&'a [EnumOption]);

impl Serialize for TitledOptions<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(self.0.len()))?;
        for o in self.0 {
            seq.serialize_element(o)?;
        }
        seq.end()
    }
}

impl Serialize for EnumOption {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("const", &self.value)?;
        map.serialize_entry("title", &self.title)?;
        if let Some(d) = &self.description {
            map.serialize_entry("description", d)?;
        }
        if let Some(m) = &self.meta {
            map.serialize_entry("_meta", m)?;
        }
        map.end()
    }
}
