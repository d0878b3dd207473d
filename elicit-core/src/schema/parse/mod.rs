//! Reading a `requestedSchema` from JSON: the strict parse an agent (or a careful
//! client) uses, and the lenient one a client uses to stay forward compatible.
//!
//! Both walk the whole document once and collect every problem instead of stopping at
//! the first, so an author sees all their mistakes together. The lenient parse differs
//! only where the spec says it may ([C6](crate::rules#c6), [D7](crate::rules#d7), [D8](crate::rules#d8), [D14](crate::rules#d14), [E6](crate::rules#e6)): malformed cosmetic members
//! read as absent, unknown types, formats, keywords and unusable patterns are kept but
//! not enforced. Constraints that are malformed are errors in both.

use serde_json::Value;

use super::error::{push_pointer, SchemaError, SchemaErrorKind as K, SchemaIssue};
use super::{PropertyKind, RequestedSchema};
use crate::pattern::{DEFAULT_PATTERN_MAX_LEN, DEFAULT_PATTERN_SIZE_LIMIT};
use crate::store::TextPool;
use lists::Lists;

mod attach;
mod defaults;
mod lists;
mod members;
mod numbers;
mod property;
mod root;
mod selects;
mod strings;

pub(crate) use numbers::value_to_i64;

/// Which parse to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ParseMode {
    /// Refuse everything outside the subset (what an agent, and `Deserialize`, use).
    #[default]
    Strict,
    /// Keep what a newer peer may send, unenforced (what a client uses).
    Lenient,
}

/// Abuse limits ([D12](crate::rules#d12)). The defaults are generous for any real form and small enough
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
    /// Abuse limits ([D12](crate::rules#d12)).
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
    /// The strict parse ([F1](crate::rules#f1), [F2](crate::rules#f2), [D2](crate::rules#d2)–[D4](crate::rules#d4), [D7](crate::rules#d7), [D8](crate::rules#d8), [D11](crate::rules#d11), [D12](crate::rules#d12)): returns the schema, or every
    /// problem found, each with its JSON pointer.
    ///
    /// ```
    /// use elicit::RequestedSchema;
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

    /// The lenient parse a client uses ([C6](crate::rules#c6), [D7](crate::rules#d7), [D8](crate::rules#d8), [D14](crate::rules#d14), [E6](crate::rules#e6)): malformed cosmetic members
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
            pool: TextPool::new(),
            lists: Lists::new(),
        };
        // The schema is built in the return slot: a `RequestedSchema` is a few hundred
        // bytes, and handing it back through an `Option` copied it twice.
        p.root(json)
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
    /// Where the texts the parse keeps go ([`TextPool`]).
    pool: TextPool,
    /// Where the option lists go ([`Lists`]).
    lists: Lists,
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

/// Writes a property's kind into the placeholder [`Parser::property`] pushed for it
/// ([`Property::placeholder`](crate::schema::Property)). The placeholder's boolean kind
/// owns nothing, so it is forgotten rather than dropped: an assignment would call the
/// kind's drop glue for each property, about 2 % of a parse. Anything else is dropped.
#[inline(always)]
fn place(out: &mut PropertyKind, kind: PropertyKind) {
    match std::mem::replace(out, kind) {
        placeholder @ PropertyKind::Boolean(_) => std::mem::forget(placeholder),
        other => drop(other),
    }
}

impl Parser<'_> {
    /// The problems found, as the parse's error.
    #[cold]
    fn error(&mut self) -> SchemaError {
        SchemaError::new(std::mem::take(&mut self.issues))
    }

    fn err(&mut self, at: &Ptr<'_>, kind: K) {
        self.issues.push(SchemaIssue {
            pointer: at.render(),
            kind,
        });
    }
}
