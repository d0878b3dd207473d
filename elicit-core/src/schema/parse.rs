//! Reading a `requestedSchema` from JSON: the strict parse an agent (or a careful
//! client) uses, and the lenient one a client uses to stay forward compatible.
//!
//! Both walk the whole document once and collect every problem instead of stopping at
//! the first, so an author sees all their mistakes together. The lenient parse differs
//! only where the spec says it may (C6, D7, D8, D14, E6): malformed cosmetic members
//! read as absent, unknown types, formats, keywords and unusable patterns are kept but
//! not enforced. Constraints that are malformed are errors in both.

use std::borrow::Cow;
use std::collections::HashSet;
use std::sync::OnceLock;

use serde_json::{Map, Value};

use super::check::check_value;
use super::error::{push_pointer, SchemaError, SchemaErrorKind as K, SchemaIssue};
use super::{
    BooleanSchema, EnumOption, FormatSpec, IntegerSchema, Meta, MultiSelectSchema, NumberSchema,
    Options, Pattern, Property, PropertyKind, PropertySchema, RequestedSchema, SingleSelectSchema,
    StringSchema, Text, UnknownProperty,
};
use crate::format::Format;
use crate::pattern::{compile_pattern, DEFAULT_PATTERN_MAX_LEN, DEFAULT_PATTERN_SIZE_LIMIT};

/// Which parse to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ParseMode {
    /// Refuse everything outside the subset (what an agent, and `Deserialize`, use).
    #[default]
    Strict,
    /// Keep what a newer peer may send, unenforced (what a client uses).
    Lenient,
}

/// Abuse limits (D12). The defaults are generous for any real form and small enough
/// that a hostile schema cannot make a client allocate or work without bound.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Limits {
    /// Most properties in one form.
    pub max_properties: usize,
    /// Most options in one select.
    pub max_options: usize,
    /// Longest text member (title, description, option value, default), in bytes.
    pub max_text_bytes: usize,
    /// Longest `pattern` source, in characters.
    pub max_pattern_len: usize,
    /// Largest compiled pattern, in bytes (see `regex::RegexBuilder::size_limit`).
    pub pattern_size_limit: usize,
    /// Deepest nesting inside `_meta` and other kept JSON.
    pub max_depth: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_properties: 256,
            max_options: 1024,
            max_text_bytes: 64 * 1024,
            max_pattern_len: DEFAULT_PATTERN_MAX_LEN,
            pattern_size_limit: DEFAULT_PATTERN_SIZE_LIMIT,
            max_depth: 64,
        }
    }
}

/// How to parse: the mode and the limits.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct ParseOptions {
    /// Strict or lenient.
    pub mode: ParseMode,
    /// Abuse limits (D12).
    pub limits: Limits,
}

impl ParseOptions {
    /// Strict parse with default limits.
    pub fn strict() -> Self {
        ParseOptions::default()
    }

    /// Lenient parse with default limits.
    pub fn lenient() -> Self {
        ParseOptions {
            mode: ParseMode::Lenient,
            limits: Limits::default(),
        }
    }

    /// The same options with other limits.
    pub fn with_limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }
}

impl RequestedSchema {
    /// The strict parse (F1, F2, D2–D4, D7, D8, D11, D12): returns the schema, or every
    /// problem found, each with its JSON pointer.
    ///
    /// ```
    /// use elicit_core::RequestedSchema;
    /// let schema = RequestedSchema::from_json(&serde_json::json!({
    ///     "type": "object",
    ///     "properties": { "name": { "type": "string", "minLength": 1 } },
    ///     "required": ["name"]
    /// })).unwrap();
    /// assert_eq!(schema.properties()[0].name(), "name");
    /// ```
    pub fn from_json(json: &Value) -> Result<Self, SchemaError> {
        Self::parse(json, &ParseOptions::strict())
    }

    /// The lenient parse a client uses (C6, D7, D8, D14, E6): malformed cosmetic members
    /// read as absent; unknown property types, unknown formats and unusable patterns are
    /// kept and reported by [`RequestedSchema::unenforced`]; everything else is as strict.
    pub fn from_json_lenient(json: &Value) -> Result<Self, SchemaError> {
        Self::parse(json, &ParseOptions::lenient())
    }

    /// Parses with explicit options.
    pub fn parse(json: &Value, options: &ParseOptions) -> Result<Self, SchemaError> {
        let mut p = Parser {
            strict: options.mode == ParseMode::Strict,
            limits: &options.limits,
            issues: Vec::new(),
        };
        let schema = p.root(json);
        match schema {
            Some(schema) if p.issues.is_empty() => Ok(schema),
            _ => Err(SchemaError::new(p.issues)),
        }
    }
}

/// Keywords that only annotate: kept and re-emitted, never enforced, accepted by
/// both parses.
pub(crate) fn is_annotation_keyword(key: &str) -> bool {
    matches!(
        key,
        "$comment" | "examples" | "deprecated" | "readOnly" | "writeOnly"
    )
}

/// Option values seen so far (D4): a linear scan of a stack array for the short lists
/// forms have (no allocation), a hash set past that, so a list at the option limit
/// stays linear.
struct Seen<'a> {
    list: [&'a str; Seen::LINEAR],
    len: usize,
    set: Option<HashSet<&'a str>>,
}

impl<'a> Seen<'a> {
    const LINEAR: usize = 32;

    fn new(len: usize) -> Self {
        Seen {
            list: [""; Self::LINEAR],
            len: 0,
            set: (len > Self::LINEAR).then(|| HashSet::with_capacity(len)),
        }
    }

    /// `false` when `value` was seen before.
    fn insert(&mut self, value: &'a str) -> bool {
        match &mut self.set {
            Some(set) => set.insert(value),
            None if self.list[..self.len].contains(&value) => false,
            None if self.len == Self::LINEAR => {
                // More values than `new` was told of: move on to the set.
                let mut set: HashSet<&'a str> = self.list.iter().copied().collect();
                set.insert(value);
                self.set = Some(set);
                true
            }
            None => {
                self.list[self.len] = value;
                self.len += 1;
                true
            }
        }
    }
}

/// Where the parser is, as a chain of borrowed segments on the stack. The JSON pointer
/// string is only built when an error is reported, so a valid schema costs nothing here.
#[derive(Clone, Copy)]
struct Ptr<'a> {
    parent: Option<&'a Ptr<'a>>,
    seg: Seg<'a>,
}

#[derive(Clone, Copy)]
enum Seg<'a> {
    Root,
    Key(&'a str),
    Index(usize),
}

static ROOT: Ptr<'static> = Ptr {
    parent: None,
    seg: Seg::Root,
};

impl<'a> Ptr<'a> {
    fn key<'b>(&'b self, key: &'b str) -> Ptr<'b> {
        Ptr {
            parent: Some(self),
            seg: Seg::Key(key),
        }
    }

    fn index(&self, index: usize) -> Ptr<'_> {
        Ptr {
            parent: Some(self),
            seg: Seg::Index(index),
        }
    }

    /// The RFC 6901 pointer: `""` for the root.
    fn render(&self) -> String {
        let mut segs = Vec::new();
        let mut at = Some(self);
        while let Some(p) = at {
            segs.push(p.seg);
            at = p.parent;
        }
        let mut out = String::new();
        for seg in segs.iter().rev() {
            match seg {
                Seg::Root => {}
                Seg::Key(k) => out = push_pointer(&out, k),
                Seg::Index(i) => out = push_pointer(&out, &i.to_string()),
            }
        }
        out
    }
}

struct Parser<'a> {
    strict: bool,
    limits: &'a Limits,
    issues: Vec<SchemaIssue>,
}

fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Depth of nested arrays and objects, counted without recursion so a hostile value
/// cannot overflow the stack.
fn depth_exceeds(v: &Value, max: usize) -> bool {
    let mut stack: Vec<(&Value, usize)> = vec![(v, 0)];
    while let Some((v, d)) = stack.pop() {
        if d > max {
            return true;
        }
        match v {
            Value::Array(a) => stack.extend(a.iter().map(|c| (c, d + 1))),
            Value::Object(o) => stack.extend(o.values().map(|c| (c, d + 1))),
            _ => {}
        }
    }
    false
}

impl Parser<'_> {
    fn err(&mut self, at: &Ptr<'_>, kind: K) {
        self.issues.push(SchemaIssue {
            pointer: at.render(),
            kind,
        });
    }

    fn root(&mut self, json: &Value) -> Option<RequestedSchema> {
        let Some(obj) = json.as_object() else {
            self.err(
                &ROOT,
                K::NotAnObject {
                    found: json_type(json),
                },
            );
            return None;
        };
        let mut title = None;
        let mut description = None;
        let mut meta = None;
        let mut extra = Map::new();
        let mut properties_json = None;
        let mut required_json = None;
        let mut saw_type = false;
        for (key, value) in obj {
            let at = ROOT.key(key);
            match key.as_str() {
                "type" => {
                    saw_type = true;
                    if value.as_str() != Some("object") {
                        self.err(&at, K::RootNotObjectType);
                    }
                }
                "title" => title = self.cosmetic_text(value, &at, "title"),
                "description" => description = self.cosmetic_text(value, &at, "description"),
                "_meta" => meta = self.meta(value, &at),
                "properties" => properties_json = Some(value),
                "required" => required_json = Some(value),
                "$schema" => {
                    extra.insert(key.clone(), value.clone());
                }
                _ => self.other_keyword(key, value, &at, &mut extra),
            }
        }
        if !saw_type {
            self.err(&ROOT, K::RootNotObjectType);
        }
        let mut properties = Vec::new();
        let at = ROOT.key("properties");
        match properties_json {
            None => self.err(&ROOT, K::MissingProperties),
            Some(value) => match value.as_object() {
                None => self.err(
                    &at,
                    K::WrongJsonType {
                        keyword: "properties",
                        expected: "an object of property schemas",
                    },
                ),
                Some(props) => {
                    if props.len() > self.limits.max_properties {
                        self.err(
                            &at,
                            K::LimitExceeded {
                                what: "properties",
                                limit: self.limits.max_properties,
                            },
                        );
                    } else {
                        properties.reserve_exact(props.len());
                        for (name, schema) in props {
                            let pat = at.key(name);
                            self.text_limit(name, &pat);
                            if let Some(schema) = self.property(schema, &pat) {
                                properties.push(Property {
                                    name: Cow::Owned(name.clone()),
                                    required: false,
                                    schema,
                                });
                            }
                        }
                    }
                }
            },
        }
        if let Some(value) = required_json {
            self.required(
                value,
                &ROOT.key("required"),
                properties_json,
                &mut properties,
            );
        }
        Some(RequestedSchema {
            title,
            description,
            properties: Cow::Owned(properties),
            meta,
            extra: (!extra.is_empty()).then_some(extra),
            wire: OnceLock::new(),
        })
    }

    fn required(
        &mut self,
        value: &Value,
        at: &Ptr<'_>,
        declared: Option<&Value>,
        properties: &mut [Property],
    ) {
        let list = match value {
            Value::Null => return,
            Value::Array(list) => list,
            _ => {
                return self.err(
                    at,
                    K::WrongJsonType {
                        keyword: "required",
                        expected: "an array of property names",
                    },
                )
            }
        };
        let declared = declared.and_then(Value::as_object);
        // Names that are required but not (validly) declared: rare, so a list.
        let mut seen_elsewhere: Vec<&str> = Vec::new();
        // `required` nearly always follows the declaration order, so each search starts
        // after the last property found and the whole list costs one pass.
        let mut cursor = 0;
        for (i, name) in list.iter().enumerate() {
            let iat = at.index(i);
            let Some(name) = name.as_str() else {
                self.err(
                    &iat,
                    K::WrongJsonType {
                        keyword: "required",
                        expected: "an array of property names (strings)",
                    },
                );
                continue;
            };
            let found = (cursor..properties.len())
                .chain(0..cursor)
                .find(|&j| properties[j].name == name);
            let duplicate = match found {
                Some(j) => {
                    cursor = j + 1;
                    std::mem::replace(&mut properties[j].required, true)
                }
                None if seen_elsewhere.contains(&name) => true,
                None => {
                    seen_elsewhere.push(name);
                    false
                }
            };
            if duplicate {
                self.err(
                    &iat,
                    K::RequiredDuplicate {
                        name: name.to_owned(),
                    },
                );
                continue;
            }
            if found.is_some() {
                continue;
            }
            // D2: a required name with no property can never be satisfied by a form; a
            // property that failed to parse is reported on its own.
            if !declared.is_some_and(|d| d.contains_key(name)) {
                self.err(
                    &iat,
                    K::RequiredUnknown {
                        name: name.to_owned(),
                    },
                );
            }
        }
    }

    /// A member outside the subset: refused by the strict parse, kept (and reported as
    /// unenforced) by the lenient one. Annotation keywords are kept by both.
    fn other_keyword(&mut self, key: &str, value: &Value, at: &Ptr<'_>, extra: &mut Meta) {
        if key == "$ref" {
            return self.err(at, K::Ref);
        }
        if is_annotation_keyword(key) || !self.strict {
            if depth_exceeds(value, self.limits.max_depth) {
                return self.err(
                    at,
                    K::LimitExceeded {
                        what: "levels of nesting",
                        limit: self.limits.max_depth,
                    },
                );
            }
            extra.insert(key.to_owned(), value.clone());
        } else {
            self.err(
                at,
                K::UnsupportedKeyword {
                    keyword: key.to_owned(),
                },
            );
        }
    }

    fn text_limit(&mut self, text: &str, at: &Ptr<'_>) -> bool {
        if text.len() > self.limits.max_text_bytes {
            self.err(
                at,
                K::LimitExceeded {
                    what: "bytes in one text",
                    limit: self.limits.max_text_bytes,
                },
            );
            return false;
        }
        true
    }

    /// `title` / `description`: null is absent; malformed is an error in the strict
    /// parse and absent in the lenient one (C6, D14).
    fn cosmetic_text(
        &mut self,
        value: &Value,
        at: &Ptr<'_>,
        keyword: &'static str,
    ) -> Option<Text> {
        match value {
            Value::Null => None,
            Value::String(s) => self.text_limit(s, at).then(|| Cow::Owned(s.clone())),
            _ if self.strict => {
                self.err(
                    at,
                    K::WrongJsonType {
                        keyword,
                        expected: "a string",
                    },
                );
                None
            }
            _ => None,
        }
    }

    /// `_meta` (E7): kept as received; null is absent; malformed as for cosmetic text.
    fn meta(&mut self, value: &Value, at: &Ptr<'_>) -> Option<Meta> {
        match value {
            Value::Null => None,
            Value::Object(m) => {
                if depth_exceeds(value, self.limits.max_depth) {
                    self.err(
                        at,
                        K::LimitExceeded {
                            what: "levels of nesting",
                            limit: self.limits.max_depth,
                        },
                    );
                    return None;
                }
                Some(m.clone())
            }
            _ if self.strict => {
                self.err(
                    at,
                    K::WrongJsonType {
                        keyword: "_meta",
                        expected: "an object",
                    },
                );
                None
            }
            _ => None,
        }
    }

    fn property(&mut self, json: &Value, at: &Ptr<'_>) -> Option<PropertySchema> {
        let Some(obj) = json.as_object() else {
            self.err(
                at,
                K::NotAnObject {
                    found: json_type(json),
                },
            );
            return None;
        };
        let mut b = PropBuilder::new(obj, at);
        if b.has_ref {
            self.err(&at.key("$ref"), K::Ref);
            return None;
        }
        let type_name = match b.get(Kw::Type) {
            None => {
                self.err(at, K::MissingType);
                return None;
            }
            Some(Value::String(t)) => t.as_str(),
            Some(_) => {
                self.err(&at.key("type"), K::TypeNotAString);
                return None;
            }
        };
        let kind = match type_name {
            "string" => self.string_kind(&mut b),
            "number" => self.number_kind(&mut b),
            "integer" => self.integer_kind(&mut b),
            "boolean" => self.boolean_kind(&mut b),
            "array" => self.multi_select_kind(&mut b),
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
            _ => {
                if depth_exceeds(json, self.limits.max_depth) {
                    self.err(
                        at,
                        K::LimitExceeded {
                            what: "levels of nesting",
                            limit: self.limits.max_depth,
                        },
                    );
                    return None;
                }
                return Some(PropertySchema {
                    title: b
                        .get(Kw::Title)
                        .and_then(Value::as_str)
                        .map(|s| Cow::Owned(s.to_owned())),
                    description: b
                        .get(Kw::Description)
                        .and_then(Value::as_str)
                        .map(|s| Cow::Owned(s.to_owned())),
                    kind: PropertyKind::Unknown(UnknownProperty { raw: obj.clone() }),
                    meta: None,
                    extra: None,
                });
            }
        }?;
        // Common members, and anything left over.
        let mut title = None;
        let mut description = None;
        let mut meta = None;
        let mut extra = Map::new();
        for (i, (key, value)) in obj.iter().enumerate() {
            let kat = at.key(key);
            match b.member_kw(i, key) {
                Some(Kw::Type | Kw::Default) => {}
                Some(Kw::Title) => title = self.cosmetic_text(value, &kat, "title"),
                Some(Kw::Description) => {
                    description = self.cosmetic_text(value, &kat, "description")
                }
                Some(Kw::Meta) => meta = self.meta(value, &kat).map(Box::new),
                Some(k) if b.is_used(k) => {}
                _ => self.other_keyword(key, value, &kat, &mut extra),
            }
        }
        for (keyword, kind_name) in std::mem::take(&mut b.misplaced) {
            self.err(
                &at.key(keyword),
                K::KeywordNotForKind {
                    keyword,
                    kind: kind_name,
                },
            );
        }
        let mut schema = PropertySchema {
            title,
            description,
            kind,
            meta,
            extra: (!extra.is_empty()).then(|| Box::new(extra)),
        };
        self.default(b.get(Kw::Default), &at.key("default"), &mut schema);
        Some(schema)
    }

    // ---- numbers -------------------------------------------------------------------

    /// A length (uint32) or an item count (uint64). Null reads as absent.
    fn count(&mut self, b: &mut PropBuilder<'_>, kw: Kw, max: u64) -> Option<u64> {
        let keyword = kw.name();
        let value = b.take(kw)?;
        let at = &b.at.key(keyword);
        let range = if max == u64::from(u32::MAX) {
            "at most 4294967295 (uint32)"
        } else {
            "at most 18446744073709551615 (uint64)"
        };
        match value {
            Value::Null => None,
            Value::Number(n) => {
                if let Some(u) = n.as_u64() {
                    if u > max {
                        self.err(at, K::OutOfRange { keyword, range });
                        return None;
                    }
                    Some(u)
                } else if n.as_i64().is_some() {
                    self.err(at, K::Negative { keyword });
                    None
                } else {
                    let f = n.as_f64().unwrap_or(f64::NAN);
                    if f.fract() != 0.0 || !f.is_finite() {
                        self.err(at, K::NotAnInteger { keyword });
                    } else if f < 0.0 {
                        self.err(at, K::Negative { keyword });
                    } else if f > max as f64 || f >= 18446744073709551616.0 {
                        self.err(at, K::OutOfRange { keyword, range });
                    } else {
                        // A float with no fraction is an integer in JSON Schema (V2).
                        return Some(f as u64);
                    }
                    None
                }
            }
            _ => {
                self.err(
                    at,
                    K::WrongJsonType {
                        keyword,
                        expected: "a non-negative integer",
                    },
                );
                None
            }
        }
    }

    fn int64(&mut self, b: &mut PropBuilder<'_>, kw: Kw) -> Option<i64> {
        let keyword = kw.name();
        let value = b.take(kw)?;
        let at = &b.at.key(keyword);
        match value {
            Value::Null => None,
            Value::Number(n) => match value_to_i64(n) {
                Ok(i) => Some(i),
                Err(IntError::Fraction) => {
                    self.err(at, K::NotAnInteger { keyword });
                    None
                }
                Err(IntError::Range) => {
                    self.err(
                        at,
                        K::OutOfRange {
                            keyword,
                            range: "a 64-bit signed integer (int64)",
                        },
                    );
                    None
                }
            },
            _ => {
                self.err(
                    at,
                    K::WrongJsonType {
                        keyword,
                        expected: "an integer",
                    },
                );
                None
            }
        }
    }

    fn double(&mut self, b: &mut PropBuilder<'_>, kw: Kw) -> Option<f64> {
        let keyword = kw.name();
        let value = b.take(kw)?;
        let at = &b.at.key(keyword);
        match value {
            Value::Null => None,
            Value::Number(n) => match exact_f64(n) {
                Some(f) => Some(f),
                None => {
                    self.err(
                        at,
                        K::OutOfRange {
                            keyword,
                            range: "a double (integers beyond 2^53 are not exact)",
                        },
                    );
                    None
                }
            },
            _ => {
                self.err(
                    at,
                    K::WrongJsonType {
                        keyword,
                        expected: "a number",
                    },
                );
                None
            }
        }
    }

    fn min_max<T: PartialOrd>(
        &mut self,
        at: &Ptr<'_>,
        min: &Option<T>,
        max: &Option<T>,
        names: (&'static str, &'static str),
    ) {
        if let (Some(lo), Some(hi)) = (min, max) {
            if lo > hi {
                self.err(
                    &at.key(names.0),
                    K::MinAboveMax {
                        min: names.0,
                        max: names.1,
                    },
                );
            }
        }
    }

    // ---- kinds ---------------------------------------------------------------------

    fn string_kind(&mut self, b: &mut PropBuilder<'_>) -> Option<PropertyKind> {
        let has_enum = b.get(Kw::Enum).is_some_and(|v| !v.is_null());
        let has_one_of = b.get(Kw::OneOf).is_some_and(|v| !v.is_null());
        for k in [
            Kw::Items,
            Kw::MinItems,
            Kw::MaxItems,
            Kw::Minimum,
            Kw::Maximum,
        ] {
            b.misplace(k, "string");
        }
        if has_enum || has_one_of || b.contains(Kw::EnumNames) {
            return self.single_select_kind(b, has_enum, has_one_of);
        }
        b.allow(&[Kw::Enum, Kw::OneOf]);
        let min_length = self
            .count(b, Kw::MinLength, u64::from(u32::MAX))
            .map(|v| v as u32);
        let max_length = self
            .count(b, Kw::MaxLength, u64::from(u32::MAX))
            .map(|v| v as u32);
        self.min_max(b.at, &min_length, &max_length, ("minLength", "maxLength"));
        let pattern = match b.take(Kw::Pattern) {
            None | Some(Value::Null) => None,
            Some(Value::String(src)) => self.pattern(src, &b.at.key("pattern")),
            Some(_) => {
                self.err(
                    &b.at.key("pattern"),
                    K::WrongJsonType {
                        keyword: "pattern",
                        expected: "a string (an ECMA-262 regular expression)",
                    },
                );
                None
            }
        };
        let format = match b.take(Kw::Format) {
            None | Some(Value::Null) => None,
            Some(Value::String(name)) => match Format::from_name(name) {
                Some(f) => Some(FormatSpec::Known(f)),
                None if self.strict => {
                    self.err(
                        &b.at.key("format"),
                        K::UnknownFormat {
                            found: name.clone(),
                        },
                    );
                    None
                }
                // D7: kept as an annotation, not asserted.
                None => Some(FormatSpec::Unknown(Cow::Owned(name.clone()))),
            },
            Some(_) => {
                self.err(
                    &b.at.key("format"),
                    K::WrongJsonType {
                        keyword: "format",
                        expected: "a string",
                    },
                );
                None
            }
        };
        Some(PropertyKind::String(StringSchema {
            min_length,
            max_length,
            pattern,
            format,
            default: None,
        }))
    }

    fn pattern(&mut self, src: &str, at: &Ptr<'_>) -> Option<Pattern> {
        if src.chars().count() > self.limits.max_pattern_len {
            self.err(
                at,
                K::LimitExceeded {
                    what: "characters in a pattern",
                    limit: self.limits.max_pattern_len,
                },
            );
            return None;
        }
        match compile_pattern(src, self.limits.pattern_size_limit) {
            Ok(re) => Some(Pattern::compiled(Cow::Owned(src.to_owned()), Ok(re))),
            Err(e) if self.strict => {
                self.err(
                    at,
                    K::InvalidPattern {
                        reason: e.to_string(),
                    },
                );
                None
            }
            // D8: kept, unenforced, and reported by `unenforced()`.
            Err(e) => Some(Pattern::unenforced(Cow::Owned(src.to_owned()), e)),
        }
    }

    fn single_select_kind(
        &mut self,
        b: &mut PropBuilder<'_>,
        has_enum: bool,
        has_one_of: bool,
    ) -> Option<PropertyKind> {
        for k in [Kw::MinLength, Kw::MaxLength, Kw::Pattern, Kw::Format] {
            b.misplace(k, "single-select");
        }
        if has_enum && has_one_of {
            self.err(&b.at.key("oneOf"), K::EnumWithOneOf);
            b.allow(&[Kw::Enum, Kw::OneOf, Kw::EnumNames]);
            return None;
        }
        let names = b.take(Kw::EnumNames);
        let options = if has_one_of {
            b.allow(&[Kw::Enum]);
            if names.is_some() {
                self.legacy_names_misplaced(b);
            }
            let v = b.take(Kw::OneOf)?;
            self.titled_options(v, &b.at.key("oneOf"), "oneOf")?
        } else {
            b.allow(&[Kw::OneOf]);
            let v = b.take(Kw::Enum)?;
            let at = &b.at.key("enum");
            let values = self.untitled_options(v, at)?;
            match names {
                None | Some(Value::Null) => Options::Untitled(Cow::Owned(values)),
                Some(names) => self.legacy_enum_names(values, names, &b.at.key("enumNames"))?,
            }
        };
        Some(PropertyKind::SingleSelect(SingleSelectSchema {
            options,
            default: None,
        }))
    }

    fn legacy_names_misplaced(&mut self, b: &PropBuilder<'_>) {
        if self.strict {
            self.err(&b.at.key("enumNames"), K::LegacyEnumNames);
        }
    }

    /// M5: MCP's legacy `enum` + `enumNames` reads as titled options in the lenient
    /// parse; the strict parse refuses it. Names that do not line up with the values
    /// are cosmetic and read as absent.
    fn legacy_enum_names(
        &mut self,
        values: Vec<Text>,
        names: &Value,
        at: &Ptr<'_>,
    ) -> Option<Options> {
        if self.strict {
            self.err(at, K::LegacyEnumNames);
            return None;
        }
        let names: Option<Vec<&str>> = names
            .as_array()
            .filter(|n| n.len() == values.len())
            .and_then(|n| n.iter().map(Value::as_str).collect());
        Some(match names {
            Some(names) => Options::Titled(Cow::Owned(
                values
                    .into_iter()
                    .zip(names)
                    .map(|(value, title)| EnumOption {
                        value,
                        title: Cow::Owned(title.to_owned()),
                        description: None,
                        meta: None,
                    })
                    .collect(),
            )),
            None => Options::Untitled(Cow::Owned(values)),
        })
    }

    fn options_array<'v>(
        &mut self,
        v: &'v Value,
        at: &Ptr<'_>,
        keyword: &'static str,
    ) -> Option<&'v Vec<Value>> {
        let Some(list) = v.as_array() else {
            self.err(
                at,
                K::WrongJsonType {
                    keyword,
                    expected: "an array of options",
                },
            );
            return None;
        };
        if list.is_empty() {
            self.err(at, K::EmptyOptions);
            return None;
        }
        if list.len() > self.limits.max_options {
            self.err(
                at,
                K::LimitExceeded {
                    what: "options",
                    limit: self.limits.max_options,
                },
            );
            return None;
        }
        Some(list)
    }

    fn untitled_options(&mut self, v: &Value, at: &Ptr<'_>) -> Option<Vec<Text>> {
        let list = self.options_array(v, at, "enum")?;
        let mut seen = Seen::new(list.len());
        let mut out = Vec::with_capacity(list.len());
        let before = self.issues.len();
        for (i, item) in list.iter().enumerate() {
            let iat = at.index(i);
            match item.as_str() {
                None => self.err(&iat, K::OptionNotAString),
                Some(s) => {
                    if !seen.insert(s) {
                        self.err(
                            &iat,
                            K::DuplicateOption {
                                value: s.to_owned(),
                            },
                        );
                    } else if self.text_limit(s, &iat) {
                        out.push(Cow::Owned(s.to_owned()));
                    }
                }
            }
        }
        (self.issues.len() == before).then_some(out)
    }

    fn titled_options(
        &mut self,
        v: &Value,
        at: &Ptr<'_>,
        keyword: &'static str,
    ) -> Option<Options> {
        let list = self.options_array(v, at, keyword)?;
        let mut seen = Seen::new(list.len());
        let mut out = Vec::with_capacity(list.len());
        let before = self.issues.len();
        for (i, item) in list.iter().enumerate() {
            let iat = at.index(i);
            let Some(obj) = item.as_object() else {
                self.err(
                    &iat,
                    K::NotAnObject {
                        found: json_type(item),
                    },
                );
                continue;
            };
            let mut value = None;
            let mut title = None;
            let mut description = None;
            let mut meta = None;
            let (mut has_const, mut has_title) = (false, false);
            for (key, member) in obj {
                let kat = iat.key(key);
                match key.as_str() {
                    "const" => {
                        has_const = true;
                        match member.as_str() {
                            Some(s) => value = Some(s),
                            None => self.err(&kat, K::OptionNotAString),
                        }
                    }
                    "title" => match member.as_str() {
                        Some(s) => {
                            title = Some(s);
                            has_title = true;
                        }
                        None => {
                            has_title = true;
                            self.err(
                                &kat,
                                K::WrongJsonType {
                                    keyword: "title",
                                    expected: "a string",
                                },
                            );
                        }
                    },
                    "description" => description = self.cosmetic_text(member, &kat, "description"),
                    "_meta" => meta = self.meta(member, &kat).map(Box::new),
                    k if is_annotation_keyword(k) => {}
                    _ if self.strict => self.err(
                        &kat,
                        K::UnsupportedKeyword {
                            keyword: key.clone(),
                        },
                    ),
                    // Lenient: an option's unknown member is cosmetic.
                    _ => {}
                }
            }
            match (value, has_const) {
                (None, false) => self.err(&iat, K::OptionMissingConst),
                (Some(v), _) if !seen.insert(v) => self.err(
                    &iat.key("const"),
                    K::DuplicateOption {
                        value: v.to_owned(),
                    },
                ),
                _ => {}
            }
            if !has_title {
                self.err(&iat, K::OptionMissingTitle);
            }
            if let (Some(value), Some(title)) = (value, title) {
                if self.text_limit(value, &iat) && self.text_limit(title, &iat) {
                    out.push(EnumOption {
                        value: Cow::Owned(value.to_owned()),
                        title: Cow::Owned(title.to_owned()),
                        description,
                        meta,
                    });
                }
            }
        }
        (self.issues.len() == before).then(|| Options::Titled(Cow::Owned(out)))
    }

    fn number_kind(&mut self, b: &mut PropBuilder<'_>) -> Option<PropertyKind> {
        let minimum = self.double(b, Kw::Minimum);
        let maximum = self.double(b, Kw::Maximum);
        self.min_max(b.at, &minimum, &maximum, ("minimum", "maximum"));
        b.misplace_string_and_array("number");
        Some(PropertyKind::Number(NumberSchema {
            minimum,
            maximum,
            default: None,
        }))
    }

    fn integer_kind(&mut self, b: &mut PropBuilder<'_>) -> Option<PropertyKind> {
        let minimum = self.int64(b, Kw::Minimum);
        let maximum = self.int64(b, Kw::Maximum);
        self.min_max(b.at, &minimum, &maximum, ("minimum", "maximum"));
        b.misplace_string_and_array("integer");
        Some(PropertyKind::Integer(IntegerSchema {
            minimum,
            maximum,
            default: None,
        }))
    }

    fn boolean_kind(&mut self, b: &mut PropBuilder<'_>) -> Option<PropertyKind> {
        b.misplace_string_and_array("boolean");
        for k in [Kw::Minimum, Kw::Maximum] {
            b.misplace(k, "boolean");
        }
        Some(PropertyKind::Boolean(BooleanSchema { default: None }))
    }

    fn multi_select_kind(&mut self, b: &mut PropBuilder<'_>) -> Option<PropertyKind> {
        for k in [
            Kw::MinLength,
            Kw::MaxLength,
            Kw::Pattern,
            Kw::Format,
            Kw::Minimum,
            Kw::Maximum,
            Kw::Enum,
            Kw::OneOf,
        ] {
            b.misplace(k, "multi-select");
        }
        let min_items = self.count(b, Kw::MinItems, u64::MAX);
        let max_items = self.count(b, Kw::MaxItems, u64::MAX);
        self.min_max(b.at, &min_items, &max_items, ("minItems", "maxItems"));
        let items_at = &b.at.key("items");
        let Some(items) = b.take(Kw::Items) else {
            self.err(
                b.at,
                K::ArrayNotMultiSelect {
                    reason: "`items` is missing",
                },
            );
            return None;
        };
        let Some(items) = items.as_object() else {
            self.err(
                items_at,
                K::ArrayNotMultiSelect {
                    reason: "`items` is not an object",
                },
            );
            return None;
        };
        // The members that decide the shape, in one pass (no hashed look-ups).
        let (mut has_ref, mut has_enum, mut has_any_of, mut items_type) =
            (false, false, false, None);
        for (key, value) in items {
            match key.as_str() {
                "$ref" => has_ref = true,
                "enum" => has_enum = !value.is_null(),
                "anyOf" => has_any_of = !value.is_null(),
                "type" => items_type = Some(value),
                _ => {}
            }
        }
        if has_ref {
            self.err(&items_at.key("$ref"), K::Ref);
            return None;
        }
        match items_type {
            None if has_any_of => {}
            Some(Value::String(t)) if t == "string" => {}
            None => {
                self.err(
                    items_at,
                    K::ArrayNotMultiSelect {
                        reason: "`items` has neither `enum` nor `anyOf`",
                    },
                );
                return None;
            }
            Some(_) => {
                self.err(
                    &items_at.key("type"),
                    K::ArrayNotMultiSelect {
                        reason: "items must be strings",
                    },
                );
                return None;
            }
        }
        let mut options = None;
        let mut ok = true;
        for (key, value) in items {
            let kat = items_at.key(key);
            match key.as_str() {
                "type" | "_meta" | "title" | "description" => {}
                "enum" | "anyOf" if value.is_null() => {}
                "enum" if has_any_of => {
                    self.err(&kat, K::EnumWithOneOf);
                    ok = false;
                }
                "enum" => {
                    options = self
                        .untitled_options(value, &kat)
                        .map(|v| Options::Untitled(Cow::Owned(v)));
                    ok &= options.is_some();
                }
                "anyOf" => {
                    options = self.titled_options(value, &kat, "anyOf");
                    ok &= options.is_some();
                }
                k if is_annotation_keyword(k) => {}
                _ if self.strict => {
                    self.err(
                        &kat,
                        K::UnsupportedKeyword {
                            keyword: key.clone(),
                        },
                    );
                    ok = false;
                }
                _ => {}
            }
        }
        if !has_enum && !has_any_of {
            self.err(
                items_at,
                K::ArrayNotMultiSelect {
                    reason: "`items` has neither `enum` nor `anyOf`",
                },
            );
            return None;
        }
        let options = options.filter(|_| ok)?;
        Some(PropertyKind::MultiSelect(MultiSelectSchema {
            options,
            min_items,
            max_items,
            default: None,
        }))
    }

    // ---- defaults (D11) --------------------------------------------------------------

    /// Reads `default` and checks it against its own property. In the lenient parse a
    /// malformed or invalid default reads as absent (ACP marks it
    /// `x-deserialize-default-on-error`, C6).
    fn default(&mut self, value: Option<&Value>, at: &Ptr<'_>, schema: &mut PropertySchema) {
        let Some(value) = value.filter(|v| !v.is_null()) else {
            return;
        };
        let mut reasons = Vec::new();
        check_value(&schema.kind, value, &mut |v| reasons.push(v.to_string()));
        if let Some(reason) = reasons.into_iter().next() {
            if self.strict {
                self.err(at, K::InvalidDefault { reason });
            }
            return;
        }
        if let Some(s) = value.as_str() {
            if !self.text_limit(s, at) {
                return;
            }
        }
        match &mut schema.kind {
            PropertyKind::String(s) => s.default = value.as_str().map(|d| Cow::Owned(d.to_owned())),
            PropertyKind::SingleSelect(s) => {
                s.default = value.as_str().map(|d| Cow::Owned(d.to_owned()))
            }
            PropertyKind::Number(n) => match value.as_number().and_then(exact_f64) {
                Some(f) => n.default = Some(f),
                None if self.strict => self.err(
                    at,
                    K::InvalidDefault {
                        reason: "the number is not exactly representable as a double".to_owned(),
                    },
                ),
                None => {}
            },
            PropertyKind::Integer(n) => {
                n.default = value.as_number().and_then(|n| value_to_i64(n).ok());
            }
            PropertyKind::Boolean(b) => b.default = value.as_bool(),
            PropertyKind::MultiSelect(m) => {
                m.default = value.as_array().map(|items| {
                    Cow::Owned(
                        items
                            .iter()
                            .filter_map(Value::as_str)
                            .map(|s| Cow::Owned(s.to_owned()))
                            .collect(),
                    )
                })
            }
            PropertyKind::Unknown(_) => {}
        }
    }
}

/// A JSON number as a double, when the double is exact: `number` bounds and defaults
/// are doubles on the wire (F2), and an integer past 2^53 would silently move.
pub(crate) fn exact_f64(n: &serde_json::Number) -> Option<f64> {
    let f = n.as_f64().filter(|f| f.is_finite())?;
    if let Some(i) = n.as_i64() {
        return (f as i128 == i128::from(i)).then_some(f);
    }
    if let Some(u) = n.as_u64() {
        return (f as i128 == i128::from(u) && f < 18_446_744_073_709_551_616.0).then_some(f);
    }
    Some(f)
}

/// Why a JSON number is not an int64.
pub(crate) enum IntError {
    /// It has a fractional part.
    Fraction,
    /// It is outside the int64 range.
    Range,
}

/// A JSON number as an int64, accepting floats with no fractional part (V2, D5).
pub(crate) fn value_to_i64(n: &serde_json::Number) -> Result<i64, IntError> {
    if let Some(i) = n.as_i64() {
        return Ok(i);
    }
    if n.as_u64().is_some() {
        return Err(IntError::Range);
    }
    let f = n.as_f64().unwrap_or(f64::NAN);
    if !f.is_finite() || f.fract() != 0.0 {
        return Err(IntError::Fraction);
    }
    // 2^63 is exactly representable; every float below it in magnitude with no
    // fraction converts exactly.
    if (-9_223_372_036_854_775_808.0..9_223_372_036_854_775_808.0).contains(&f) {
        Ok(f as i64)
    } else {
        Err(IntError::Range)
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
enum Kw {
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
    fn name(self) -> &'static str {
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
struct PropBuilder<'a> {
    slots: [Option<&'a Value>; KEYWORDS.len()],
    /// The keyword of each of the first [`PropBuilder::REMEMBERED`] members, so that the
    /// generic loop does not match their names again.
    member_kws: [Option<Kw>; PropBuilder::REMEMBERED],
    has_ref: bool,
    at: &'a Ptr<'a>,
    used: u32,
    misplaced: Vec<(&'static str, &'static str)>,
}

impl<'a> PropBuilder<'a> {
    const REMEMBERED: usize = 16;

    fn new(obj: &'a Map<String, Value>, at: &'a Ptr<'a>) -> Self {
        let mut slots = [None; KEYWORDS.len()];
        let mut member_kws = [None; Self::REMEMBERED];
        let mut has_ref = false;
        for (i, (key, value)) in obj.iter().enumerate() {
            let kw = keyword_index(key);
            if let Some(remembered) = member_kws.get_mut(i) {
                *remembered = kw;
            }
            match kw {
                Some(kw) => slots[kw as usize] = Some(value),
                None => has_ref |= key == "$ref",
            }
        }
        PropBuilder {
            slots,
            member_kws,
            has_ref,
            at,
            used: 0,
            misplaced: Vec::new(),
        }
    }

    fn get(&self, keyword: Kw) -> Option<&'a Value> {
        self.slots[keyword as usize]
    }

    /// The keyword of the `index`-th member, named `key`.
    fn member_kw(&self, index: usize, key: &str) -> Option<Kw> {
        match self.member_kws.get(index) {
            Some(kw) => *kw,
            None => keyword_index(key),
        }
    }

    fn contains(&self, keyword: Kw) -> bool {
        self.get(keyword).is_some()
    }

    fn is_used(&self, keyword: Kw) -> bool {
        self.used & (1 << keyword as u32) != 0
    }

    fn mark(&mut self, keyword: Kw) {
        self.used |= 1 << keyword as u32;
    }

    fn take(&mut self, keyword: Kw) -> Option<&'a Value> {
        self.mark(keyword);
        self.get(keyword)
    }

    /// Keywords already reported elsewhere (or harmless when null).
    fn allow(&mut self, keywords: &[Kw]) {
        for &k in keywords {
            if self.get(k).is_some_and(Value::is_null) {
                self.mark(k);
            }
        }
    }

    /// A keyword of the subset that does not fit this kind: reported once, by name.
    fn misplace(&mut self, keyword: Kw, kind: &'static str) {
        if self.contains(keyword) && !self.is_used(keyword) {
            self.mark(keyword);
            self.misplaced.push((keyword.name(), kind));
        }
    }

    fn misplace_string_and_array(&mut self, kind: &'static str) {
        for k in [
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
        ] {
            self.misplace(k, kind);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{keyword_index, Seen, KEYWORDS};

    #[test]
    fn seen_finds_repeats_past_the_stack_array() {
        let values: Vec<String> = (0..40).map(|i| i.to_string()).collect();
        for hint in [0, 40] {
            let mut seen = Seen::new(hint);
            assert!(values.iter().all(|v| seen.insert(v)));
            assert!(values.iter().all(|v| !seen.insert(v)));
        }
    }

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
