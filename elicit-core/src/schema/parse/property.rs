//! One property schema: its `type`, the kind it selects, the common members and what is
//! left over; and the keywords of the subset, read in one pass over the object.

use serde_json::{Map, Value};

use super::defaults::PendingDefault;
use super::{depth_exceeds, json_type, Parser, Ptr};
use crate::schema::error::SchemaErrorKind as K;
use crate::schema::{BooleanSchema, Property, PropertyKind, PropertySchema, UnknownProperty};

impl Parser<'_> {
    /// One property, added to `properties`; its `default`, if any, goes to `defaults`
    /// (checked by [`Parser::default`] once every property is read). The property is
    /// built in place: it is large, and moving it through return values showed in
    /// profiles.
    pub(super) fn property<'v>(
        &mut self,
        name: &'v str,
        json: &'v Value,
        at: &Ptr<'_>,
        properties: &mut Vec<Property>,
        defaults: &mut Vec<PendingDefault<'v>>,
    ) {
        let Some(obj) = json.as_object() else {
            self.err(
                at,
                K::NotAnObject {
                    found: json_type(json),
                },
            );
            return;
        };
        let mut b = PropBuilder::new(at);
        b.read(obj);
        if b.has_ref {
            self.err(&at.key("$ref"), K::Ref);
            return;
        }
        let type_name = match b.get(Kw::Type) {
            None => {
                self.err(at, K::MissingType);
                return;
            }
            Some(Value::String(t)) => t.as_str(),
            Some(_) => {
                self.err(&at.key("type"), K::TypeNotAString);
                return;
            }
        };
        // The property is built where it stays: a `Property` is about 200 bytes, and
        // moving it from a return value into a local and then into the vector cost about
        // a tenth of a parse. A placeholder is pushed, the kind is written into it, and a
        // property that fails comes off again.
        // `resize_with` writes the placeholder in the slot itself; `push` built it on the
        // stack and copied its 200 bytes with a `memcpy` call.
        properties.resize_with(properties.len() + 1, Property::placeholder);
        let Some(slot) = properties.last_mut() else {
            return;
        };
        let kind = &mut slot.schema.kind;
        let read = match type_name {
            "string" => self.string_kind(&mut b, kind),
            "number" => self.number_kind(&mut b, kind),
            "integer" => self.integer_kind(&mut b, kind),
            "boolean" => self.boolean_kind(&mut b, kind),
            "array" => self.multi_select_kind(&mut b, kind),
            "object" => {
                self.err(&at.key("type"), K::NestedObject);
                None
            }
            "null" => {
                self.err(&at.key("type"), K::NullType);
                None
            }
            other if self.strict => {
                self.err(
                    &at.key("type"),
                    K::UnknownType {
                        found: other.to_owned(),
                    },
                );
                None
            }
            // E6: kept byte for byte, never rendered as a known kind.
            _ if depth_exceeds(json, self.limits.max_depth) => {
                self.err(
                    at,
                    K::LimitExceeded {
                        what: "levels of nesting",
                        limit: self.limits.max_depth,
                    },
                );
                None
            }
            _ => {
                *slot = Property {
                    name: self.pool.text(name),
                    required: false,
                    schema: PropertySchema {
                        title: b
                            .get(Kw::Title)
                            .and_then(Value::as_str)
                            .map(|s| self.pool.text(s)),
                        description: b
                            .get(Kw::Description)
                            .and_then(Value::as_str)
                            .map(|s| self.pool.text(s)),
                        kind: PropertyKind::Unknown(UnknownProperty { raw: obj.clone() }),
                        meta: None,
                        extra: None,
                    },
                };
                return;
            }
        };
        if read.is_none() {
            properties.pop();
            return;
        }
        // Common members, and anything left over.
        let schema = &mut slot.schema;
        if let Some((t, d)) = self.plain_texts(&b, obj.len()) {
            // Nothing but keywords, texts that are strings within the limit, no `_meta`:
            // the members need no second pass, and nothing here can be an error.
            schema.title = t.map(|t| self.pool.text(t));
            schema.description = d.map(|d| self.pool.text(d));
        } else {
            let mut extra = None;
            for (i, (key, value)) in obj.iter().enumerate() {
                let kat = at.key(key);
                match b.member_kw(i, key) {
                    Some(Kw::Type | Kw::Default) => {}
                    Some(Kw::Title) => schema.title = self.cosmetic_text(value, &kat, "title"),
                    Some(Kw::Description) => {
                        schema.description = self.cosmetic_text(value, &kat, "description")
                    }
                    Some(Kw::Meta) => schema.meta = self.meta(value, &kat).map(Box::new),
                    Some(k) if b.is_used(k) => {}
                    _ => self.other_keyword(key, value, &kat, &mut extra),
                }
            }
            schema.extra = extra.map(Box::new);
        }
        slot.name = self.pool.text(name);
        for (keyword, kind_name) in std::mem::take(&mut b.misplaced) {
            self.err(
                &at.key(keyword),
                K::KeywordNotForKind {
                    keyword,
                    kind: kind_name,
                },
            );
        }
        if !matches!(b.get(Kw::Default), None | Some(Value::Null)) {
            // The member itself, with the lifetime of the document.
            if let Some((_, value)) = obj.iter().find(|(key, _)| *key == "default") {
                let default = self.default_value(value);
                defaults.push(PendingDefault {
                    property: properties.len() - 1,
                    name,
                    default,
                    issues_before: self.issues.len(),
                });
            }
        }
    }

    /// The `title` and `description` of a property whose members are all keywords of
    /// the subset, each used by its kind or common, with no `_meta` and with texts that
    /// are strings within the limit: then the generic loop over the members would find
    /// nothing to report and nothing to keep but these two. `None` when it must run.
    #[inline]
    fn plain_texts<'v>(
        &self,
        b: &PropBuilder<'v>,
        members: usize,
    ) -> Option<(Option<&'v str>, Option<&'v str>)> {
        const COMMON: u32 = 1 << Kw::Type as u32
            | 1 << Kw::Title as u32
            | 1 << Kw::Description as u32
            | 1 << Kw::Default as u32;
        if b.present.count_ones() as usize != members || b.present & !(COMMON | b.used) != 0 {
            return None;
        }
        let max = self.limits.max_text_bytes;
        let text = |kw| match b.get(kw) {
            None => Some(None),
            Some(Value::String(s)) if s.len() <= max => Some(Some(s.as_str())),
            Some(_) => None,
        };
        Some((text(Kw::Title)?, text(Kw::Description)?))
    }

    fn boolean_kind(&mut self, b: &mut PropBuilder<'_>, out: &mut PropertyKind) -> Option<()> {
        b.misplace_string_and_array("boolean");
        b.misplace_many(&[Kw::Minimum, Kw::Maximum], "boolean");
        super::place(out, PropertyKind::Boolean(BooleanSchema { default: None }));
        Some(())
    }
}

/// The keywords of the subset a property schema may use, in one fixed order.
const KEYWORDS: [&str; 17] = [
    "type",
    "title",
    "description",
    "_meta",
    "default",
    "minLength",
    "maxLength",
    "pattern",
    "format",
    "enum",
    "oneOf",
    "enumNames",
    "minimum",
    "maximum",
    "items",
    "minItems",
    "maxItems",
];

/// A keyword of [`KEYWORDS`], by its index: what the parser asks a [`PropBuilder`] for,
/// so that no look-up compares strings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kw {
    Type,
    Title,
    Description,
    Meta,
    Default,
    MinLength,
    MaxLength,
    Pattern,
    Format,
    Enum,
    OneOf,
    EnumNames,
    Minimum,
    Maximum,
    Items,
    MinItems,
    MaxItems,
}

impl Kw {
    /// The keyword as written in a schema.
    pub(super) fn name(self) -> &'static str {
        KEYWORDS[self as usize]
    }
}

/// The keyword a member name is, if it is one of [`KEYWORDS`].
fn keyword_index(key: &str) -> Option<Kw> {
    // A `match` compiles to a switch on length and bytes; a unit test checks it against
    // `KEYWORDS`.
    Some(match key {
        "type" => Kw::Type,
        "title" => Kw::Title,
        "description" => Kw::Description,
        "_meta" => Kw::Meta,
        "default" => Kw::Default,
        "minLength" => Kw::MinLength,
        "maxLength" => Kw::MaxLength,
        "pattern" => Kw::Pattern,
        "format" => Kw::Format,
        "enum" => Kw::Enum,
        "oneOf" => Kw::OneOf,
        "enumNames" => Kw::EnumNames,
        "minimum" => Kw::Minimum,
        "maximum" => Kw::Maximum,
        "items" => Kw::Items,
        "minItems" => Kw::MinItems,
        "maxItems" => Kw::MaxItems,
        _ => return None,
    })
}

/// One property's members, read in a single pass over the object (no hashing), and
/// which of them a kind has used, so the generic loop can tell what is left over.
pub(super) struct PropBuilder<'a> {
    slots: [Option<&'a Value>; KEYWORDS.len()],
    /// The keyword of each of the first [`PropBuilder::REMEMBERED`] members, so that the
    /// generic loop does not match their names again.
    member_kws: [Option<Kw>; PropBuilder::REMEMBERED],
    has_ref: bool,
    pub(super) at: &'a Ptr<'a>,
    /// The keywords present, one bit each (by [`Kw`] index).
    present: u32,
    used: u32,
    misplaced: Vec<(&'static str, &'static str)>,
}

impl<'a> PropBuilder<'a> {
    const REMEMBERED: usize = 16;

    /// An empty builder: [`PropBuilder::read`] fills it in place (built in a function
    /// and returned, it was copied: a call to memcpy per property).
    #[inline(always)]
    fn new(at: &'a Ptr<'a>) -> Self {
        PropBuilder {
            slots: [None; KEYWORDS.len()],
            member_kws: [None; Self::REMEMBERED],
            has_ref: false,
            at,
            present: 0,
            used: 0,
            misplaced: Vec::new(),
        }
    }

    /// Reads the members of the property's object.
    #[inline(always)]
    fn read(&mut self, obj: &'a Map<String, Value>) {
        for (i, (key, value)) in obj.iter().enumerate() {
            let kw = keyword_index(key);
            if let Some(remembered) = self.member_kws.get_mut(i) {
                *remembered = kw;
            }
            match kw {
                Some(kw) => {
                    self.slots[kw as usize] = Some(value);
                    self.present |= 1 << kw as u32;
                }
                None => self.has_ref |= key == "$ref",
            }
        }
    }

    pub(super) fn get(&self, keyword: Kw) -> Option<&'a Value> {
        self.slots[keyword as usize]
    }

    /// The keyword of the `index`-th member, named `key`.
    fn member_kw(&self, index: usize, key: &str) -> Option<Kw> {
        match self.member_kws.get(index) {
            Some(kw) => *kw,
            None => keyword_index(key),
        }
    }

    pub(super) fn contains(&self, keyword: Kw) -> bool {
        self.get(keyword).is_some()
    }

    fn is_used(&self, keyword: Kw) -> bool {
        self.used & (1 << keyword as u32) != 0
    }

    fn mark(&mut self, keyword: Kw) {
        self.used |= 1 << keyword as u32;
    }

    pub(super) fn take(&mut self, keyword: Kw) -> Option<&'a Value> {
        self.mark(keyword);
        self.get(keyword)
    }

    /// Keywords already reported elsewhere (or harmless when null).
    pub(super) fn allow(&mut self, keywords: &[Kw]) {
        for &k in keywords {
            if self.get(k).is_some_and(Value::is_null) {
                self.mark(k);
            }
        }
    }

    /// Keywords of the subset that do not fit this kind: each present one is reported
    /// once, by name, in the order given. Nearly always none is present: one test of the
    /// bit sets says so.
    #[inline]
    pub(super) fn misplace_many(&mut self, keywords: &[Kw], kind: &'static str) {
        let mask = keywords.iter().fold(0u32, |m, k| m | 1 << *k as u32);
        if self.present & mask & !self.used == 0 {
            return;
        }
        for &keyword in keywords {
            let bit = 1 << keyword as u32;
            if self.present & bit & !self.used != 0 {
                self.used |= bit;
                self.misplaced.push((keyword.name(), kind));
            }
        }
    }

    #[inline]
    pub(super) fn misplace_string_and_array(&mut self, kind: &'static str) {
        self.misplace_many(
            &[
                Kw::MinLength,
                Kw::MaxLength,
                Kw::Pattern,
                Kw::Format,
                Kw::Enum,
                Kw::OneOf,
                Kw::EnumNames,
                Kw::Items,
                Kw::MinItems,
                Kw::MaxItems,
            ],
            kind,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::{keyword_index, KEYWORDS};

    #[test]
    fn members_past_the_remembered_ones_are_still_read() {
        let mut property = serde_json::Map::new();
        for i in 0..20 {
            property.insert(format!("x-{i}"), serde_json::json!(i));
        }
        property.insert("type".into(), "string".into());
        property.insert("title".into(), "Late".into());
        property.insert("maxLength".into(), 3.into());
        let json = serde_json::json!({ "type": "object", "properties": { "p": property } });
        let schema = crate::RequestedSchema::from_json_lenient(&json).unwrap();
        let p = schema.properties()[0].schema();
        assert_eq!(p.title(), Some("Late"));
        assert_eq!(p.extra_members().map(|m| m.len()), Some(20));
        assert!(schema
            .validate(&serde_json::json!({ "p": "long" }))
            .is_err());
        assert_eq!(schema.to_json(), json);
    }

    #[test]
    fn keyword_index_matches_the_keyword_table() {
        for (i, k) in KEYWORDS.iter().enumerate() {
            let kw = keyword_index(k).expect(k);
            assert_eq!((kw as usize, kw.name()), (i, *k));
        }
        assert_eq!(keyword_index("$ref"), None);
        assert_eq!(keyword_index(""), None);
    }
}
