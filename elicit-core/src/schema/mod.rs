//! The restricted schema of an elicitation form ([F1](crate::rules#f1), [F2](crate::rules#f2)).
//!
//! One model serves both uses: a derived type's schema is a `static` built at compile
//! time from borrowed data (no allocation to obtain it), and a schema received at run
//! time is parsed from JSON into owned data. Both are the same [`RequestedSchema`]:
//! its texts are [`Text`]s and its option lists [`List`]s, each either a `&'static`
//! constant or parsed data (held inline, or shared within one parse).
//!
//! The model represents exactly the subset the spec allows. What the strict parse
//! refuses cannot be built; what only the lenient parse a client uses accepts (unknown
//! property types, unknown formats, patterns the engine cannot run) is represented by
//! variants that can never be mistaken for the known kinds ([E6](crate::rules#e6), [D7](crate::rules#d7), [D8](crate::rules#d8)).

use std::borrow::Cow;
use std::fmt;
use std::sync::OnceLock;

use serde_json::{Map, Value};

use crate::pattern::{compile_pattern, DEFAULT_PATTERN_SIZE_LIMIT};
use crate::store::key::same_text;

mod emit;
pub(crate) mod error;
mod lint;
pub(crate) mod parse;

pub use crate::format::Format;
pub use crate::pattern::PatternError;
pub use crate::store::{List, Text};
pub use crate::vocab::{SecretHit, SecretKind};
pub use error::{SchemaError, SchemaErrorKind};
pub use lint::{Finding, FindingKind};
pub use parse::{Limits, ParseMode, ParseOptions};

/// What the model needs of validation, which is built on it (`content`): a slot for
/// the tables validation builds from a schema on need and keeps beside it, and the
/// check of a `default` against its own property that the strict parse makes
/// ([D11](crate::rules#d11)).
///
/// The model declares what it needs and never names the module that answers it:
/// `content` implements this for [`Validator`], so data flows one way (`schema` →
/// `content`) while a schema still carries its tables, at no cost at run time (the
/// slot's type is known at compile time; nothing is boxed or looked up).
pub(crate) trait Validation {
    /// What validation keeps beside a schema.
    type Tables: fmt::Debug + Send + Sync;
    /// The tables of a schema that has not validated yet (usable in a `static`).
    const NO_TABLES: Self::Tables;
    /// The first rule `value` breaks as the `default` of a property of this kind, as a
    /// sentence; `None` when it is valid.
    fn default_violation(kind: &PropertyKind, value: &Value) -> Option<String>;
}

/// The crate's validation, as the model sees it ([`Validation`]).
pub(crate) enum Validator {}

/// What validation keeps beside each schema ([`Validation::Tables`]).
pub(crate) type Tables = <Validator as Validation>::Tables;

/// A `_meta` object or a set of preserved members: JSON object members in order.
pub type Meta = Map<String, Value>;

/// The `requestedSchema` of a form-mode elicitation: a flat object of primitive
/// properties ([F1](crate::rules#f1)).
///
/// Build one with [`RequestedSchema::from_json`] (strict), [`RequestedSchema::from_json_lenient`]
/// (what a client uses), or get one from a type with `#[derive(Elicit)]`.
///
/// ```
/// use elicit::RequestedSchema;
/// use serde_json::json;
///
/// // A property type from a future protocol version.
/// let sent = json!({
///     "type": "object",
///     "properties": {
///         "name": { "type": "string", "title": "Your name" },
///         "where": { "type": "geo-point" }
///     }
/// });
///
/// // An agent's schema must pass the strict parse; this one does not.
/// let error = RequestedSchema::from_json(&sent).unwrap_err();
/// assert_eq!(error.pointer(), "/properties/where/type");
///
/// // A client reads it leniently, keeps the unknown property (E6) and says what it
/// // cannot render or enforce, instead of dropping it silently.
/// let schema = RequestedSchema::from_json_lenient(&sent)?;
/// assert!(!schema.is_renderable());
/// assert_eq!(schema.unenforced()[0].property, "where");
/// assert_eq!(schema.to_json(), sent); // kept byte for byte
/// # Ok::<(), elicit::SchemaError>(())
/// ```
#[derive(Debug)]
pub struct RequestedSchema {
    pub(crate) title: Option<Text>,
    pub(crate) description: Option<Text>,
    pub(crate) properties: Cow<'static, [Property]>,
    // Boxed like `PropertySchema`'s: nearly every schema has neither, and a schema is
    // moved whole when a parse returns it.
    pub(crate) meta: Option<Box<Meta>>,
    pub(crate) extra: Option<Box<Meta>>,
    /// The wire JSON, computed once on first use (see [`RequestedSchema::as_json`]).
    pub(crate) wire: OnceLock<Value>,
    /// What validation builds from the properties on need ([`Validation`]).
    pub(crate) tables: Tables,
}

impl Clone for RequestedSchema {
    fn clone(&self) -> Self {
        RequestedSchema {
            title: self.title.clone(),
            description: self.description.clone(),
            properties: self.properties.clone(),
            meta: self.meta.clone(),
            extra: self.extra.clone(),
            wire: OnceLock::new(),
            tables: Validator::NO_TABLES,
        }
    }
}

impl PartialEq for RequestedSchema {
    fn eq(&self, other: &Self) -> bool {
        self.title == other.title
            && self.description == other.description
            && self.properties == other.properties
            && self.meta == other.meta
            && self.extra == other.extra
    }
}

impl RequestedSchema {
    /// A schema from borrowed, compile-time data. This is what `#[derive(Elicit)]`
    /// expands to; it is usable in a `static`.
    ///
    /// The caller is responsible for the rules the strict parse enforces (the derive
    /// checks them at compile time); [`RequestedSchema::check`] verifies them at run time.
    pub const fn from_static(
        title: Option<&'static str>,
        description: Option<&'static str>,
        properties: &'static [Property],
    ) -> Self {
        RequestedSchema {
            title: match title {
                Some(t) => Some(Text::from_static(t)),
                None => None,
            },
            description: match description {
                Some(t) => Some(Text::from_static(t)),
                None => None,
            },
            properties: Cow::Borrowed(properties),
            meta: None,
            extra: None,
            wire: OnceLock::new(),
            tables: Validator::NO_TABLES,
        }
    }

    /// A schema from owned parts, checked by the same rules as the strict parse.
    pub fn new(
        title: Option<String>,
        description: Option<String>,
        properties: Vec<Property>,
    ) -> Result<Self, SchemaError> {
        let schema = RequestedSchema {
            title: title.map(Text::from),
            description: description.map(Text::from),
            properties: Cow::Owned(properties),
            meta: None,
            extra: None,
            wire: OnceLock::new(),
            tables: Validator::NO_TABLES,
        };
        schema.check()?;
        Ok(schema)
    }

    /// Re-checks this schema against every rule of the strict parse (by emitting it and
    /// parsing it strictly). Useful for schemas built by hand with the `from_static`
    /// constructors.
    pub fn check(&self) -> Result<(), SchemaError> {
        Self::from_json(&self.to_json()).map(|_| ())
    }

    /// The schema's `title`.
    pub fn title(&self) -> Option<&str> {
        self.title.as_deref()
    }

    /// The schema's `description`.
    pub fn description(&self) -> Option<&str> {
        self.description.as_deref()
    }

    /// The properties in wire order ([D13](crate::rules#d13)).
    pub fn properties(&self) -> &[Property] {
        &self.properties
    }

    /// The property with this wire name.
    pub fn property(&self, name: &str) -> Option<&Property> {
        self.properties.iter().find(|p| p.name == name)
    }

    /// The names of the required properties, in property order.
    pub fn required(&self) -> impl Iterator<Item = &str> + '_ {
        self.properties
            .iter()
            .filter(|p| p.required)
            .map(|p| p.name())
    }

    /// The schema's `_meta` object ([E7](crate::rules#e7)), kept as received.
    pub fn meta(&self) -> Option<&Meta> {
        self.meta.as_deref()
    }

    /// Members this crate does not interpret, kept so the schema re-emits as received
    /// (annotations in the strict parse; any unknown member in the lenient parse).
    pub fn extra_members(&self) -> Option<&Meta> {
        self.extra.as_deref()
    }

    /// Replaces the `_meta` object.
    pub fn with_meta(mut self, meta: Option<Meta>) -> Self {
        self.meta = meta.map(Box::new);
        self.wire = OnceLock::new();
        self
    }

    /// Whether a client can render every property (no unknown property type, [E6](crate::rules#e6)).
    pub fn is_renderable(&self) -> bool {
        self.properties
            .iter()
            .all(|p| !matches!(p.schema.kind, PropertyKind::Unknown(_)))
    }

    /// What this schema declares but the engine will not enforce: unknown formats
    /// ([D7](crate::rules#d7)), patterns that cannot run in linear time ([D8](crate::rules#d8)), unknown property types ([E6](crate::rules#e6)),
    /// unknown keywords kept by the lenient parse. Empty for every strictly parsed or
    /// derived schema.
    pub fn unenforced(&self) -> Vec<Unenforced> {
        let mut out = Vec::new();
        for p in self.properties.iter() {
            p.schema.collect_unenforced(&p.name, &mut out);
        }
        out
    }
}

/// Something a leniently parsed schema declares that validation does not enforce.
#[derive(Debug, Clone, PartialEq)]
pub struct Unenforced {
    /// The property it belongs to.
    pub property: String,
    /// What is not enforced and why.
    pub reason: String,
}

/// One property of a form: its wire name, whether it is required, and its schema.
#[derive(Debug, Clone, PartialEq)]
pub struct Property {
    pub(crate) name: Text,
    pub(crate) required: bool,
    pub(crate) schema: PropertySchema,
}

impl Property {
    /// What the parse pushes before it reads a property into place: no name, no texts, a
    /// boolean kind (nothing to drop).
    pub(crate) const fn placeholder() -> Self {
        Property {
            name: Text::from_static(""),
            required: false,
            schema: PropertySchema {
                title: None,
                description: None,
                kind: PropertyKind::Boolean(BooleanSchema { default: None }),
                meta: None,
                extra: None,
            },
        }
    }

    /// A property from compile-time data (usable in a `static`).
    pub const fn from_static(name: &'static str, required: bool, schema: PropertySchema) -> Self {
        Property {
            name: Text::from_static(name),
            required,
            schema,
        }
    }

    /// A property with an owned name.
    pub fn new(name: impl Into<Text>, required: bool, schema: PropertySchema) -> Self {
        Property {
            name: name.into(),
            required,
            schema,
        }
    }

    /// The wire name (the key in `properties` and in the content).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Whether the name is listed in `required`.
    pub fn is_required(&self) -> bool {
        self.required
    }

    /// The property's schema.
    pub fn schema(&self) -> &PropertySchema {
        &self.schema
    }

    /// What a form shows as the field's label: the title, else the name ([K1](crate::rules#k1)).
    pub fn label(&self) -> &str {
        self.schema.title().unwrap_or(&self.name)
    }
}

/// The schema of one property: the members every kind shares and the kind itself.
#[derive(Debug, Clone, PartialEq)]
pub struct PropertySchema {
    pub(crate) title: Option<Text>,
    pub(crate) description: Option<Text>,
    pub(crate) kind: PropertyKind,
    // Boxed: nearly every property has neither, and a small struct moves cheaply.
    pub(crate) meta: Option<Box<Meta>>,
    pub(crate) extra: Option<Box<Meta>>,
}

impl PropertySchema {
    /// A property schema from compile-time data (usable in a `static`).
    pub const fn from_static(
        title: Option<&'static str>,
        description: Option<&'static str>,
        kind: PropertyKind,
    ) -> Self {
        PropertySchema {
            title: match title {
                Some(t) => Some(Text::from_static(t)),
                None => None,
            },
            description: match description {
                Some(t) => Some(Text::from_static(t)),
                None => None,
            },
            kind,
            meta: None,
            extra: None,
        }
    }

    /// A property schema of this kind with no title or description.
    pub fn new(kind: PropertyKind) -> Self {
        PropertySchema {
            title: None,
            description: None,
            kind,
            meta: None,
            extra: None,
        }
    }

    /// Sets the title.
    pub fn with_title(mut self, title: impl Into<Text>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// Sets the description.
    pub fn with_description(mut self, description: impl Into<Text>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// Sets the `_meta` object.
    pub fn with_meta(mut self, meta: Option<Meta>) -> Self {
        self.meta = meta.map(Box::new);
        self
    }

    /// The `title`.
    pub fn title(&self) -> Option<&str> {
        self.title.as_deref()
    }

    /// The `description`.
    pub fn description(&self) -> Option<&str> {
        self.description.as_deref()
    }

    /// The kind and its constraints.
    pub fn kind(&self) -> &PropertyKind {
        &self.kind
    }

    /// The `_meta` object ([E7](crate::rules#e7)).
    pub fn meta(&self) -> Option<&Meta> {
        self.meta.as_deref()
    }

    /// Members kept but not interpreted (see [`RequestedSchema::extra_members`]).
    pub fn extra_members(&self) -> Option<&Meta> {
        self.extra.as_deref()
    }

    /// The declared `default`, as JSON.
    pub fn default_value(&self) -> Option<Value> {
        match &self.kind {
            PropertyKind::String(s) => s.default.as_ref().map(|d| Value::from(d.as_ref())),
            PropertyKind::Number(n) => n.default.map(Value::from),
            PropertyKind::Integer(n) => n.default.map(Value::from),
            PropertyKind::Boolean(b) => b.default.map(Value::Bool),
            PropertyKind::SingleSelect(s) => s.default.as_ref().map(|d| Value::from(d.as_ref())),
            PropertyKind::MultiSelect(m) => m
                .default
                .as_ref()
                .map(|d| Value::Array(d.iter().map(|s| Value::from(s.as_ref())).collect())),
            PropertyKind::Unknown(u) => u.raw.get("default").cloned(),
        }
    }

    fn collect_unenforced(&self, name: &str, out: &mut Vec<Unenforced>) {
        let mut push = |reason: String| {
            out.push(Unenforced {
                property: name.to_owned(),
                reason,
            })
        };
        match &self.kind {
            PropertyKind::String(s) => {
                if let Some(FormatSpec::Unknown(f)) = &s.format {
                    push(format!(
                        "unknown format `{f}` is kept as an annotation; {}",
                        crate::rules::cite("D7")
                    ));
                }
                if let Some(p) = &s.pattern {
                    if let Err(e) = p.regex() {
                        push(format!(
                            "pattern `{}` is not enforced: {e}; {}",
                            p.source(),
                            crate::rules::cite("D8")
                        ));
                    }
                }
            }
            PropertyKind::Unknown(u) => push(format!(
                "unknown property type `{}` cannot be rendered or validated; {}",
                u.type_name(),
                crate::rules::cite("E6")
            )),
            _ => {}
        }
        if let Some(extra) = &self.extra {
            for key in extra.keys() {
                if !parse::is_annotation_keyword(key) {
                    push(format!("unknown keyword `{key}` is kept but not enforced"));
                }
            }
        }
    }
}

/// The kind of a property and its constraints ([F2](crate::rules#f2)).
#[derive(Debug, Clone, PartialEq)]
pub enum PropertyKind {
    /// `type: "string"` without options.
    String(StringSchema),
    /// `type: "number"` (a double).
    Number(NumberSchema),
    /// `type: "integer"` (an int64).
    Integer(IntegerSchema),
    /// `type: "boolean"`.
    Boolean(BooleanSchema),
    /// `type: "string"` with `enum` (untitled) or `oneOf` (titled) options.
    SingleSelect(SingleSelectSchema),
    /// `type: "array"` whose items are options.
    MultiSelect(MultiSelectSchema),
    /// A property `type` this crate does not know, kept byte for byte by the lenient
    /// parse and never rendered as a known kind ([E6](crate::rules#e6)).
    Unknown(UnknownProperty),
}

impl PropertyKind {
    /// The JSON Schema `type` of the property on the wire.
    pub fn type_name(&self) -> &str {
        match self {
            PropertyKind::String(_) | PropertyKind::SingleSelect(_) => "string",
            PropertyKind::Number(_) => "number",
            PropertyKind::Integer(_) => "integer",
            PropertyKind::Boolean(_) => "boolean",
            PropertyKind::MultiSelect(_) => "array",
            PropertyKind::Unknown(u) => u.type_name(),
        }
    }
}

/// A free-text string property.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct StringSchema {
    /// `minLength`, in Unicode scalar values ([D6](crate::rules#d6)).
    pub min_length: Option<u32>,
    /// `maxLength`, in Unicode scalar values ([D6](crate::rules#d6)).
    pub max_length: Option<u32>,
    /// `pattern`, an ECMA-262 regular expression searched unanchored ([V4](crate::rules#v4)).
    pub pattern: Option<Pattern>,
    /// `format`.
    pub format: Option<FormatSpec>,
    /// `default`.
    pub default: Option<Text>,
}

impl StringSchema {
    /// A string schema from compile-time data (usable in a `static`).
    pub const fn from_static(
        min_length: Option<u32>,
        max_length: Option<u32>,
        pattern: Option<&'static str>,
        format: Option<Format>,
        default: Option<&'static str>,
    ) -> Self {
        StringSchema {
            min_length,
            max_length,
            pattern: match pattern {
                Some(p) => Some(Pattern::from_static(p)),
                None => None,
            },
            format: match format {
                Some(f) => Some(FormatSpec::Known(f)),
                None => None,
            },
            default: match default {
                Some(d) => Some(Text::from_static(d)),
                None => None,
            },
        }
    }
}

/// The `format` of a string property.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FormatSpec {
    /// One of the four formats the spec names; asserted by validation ([V7](crate::rules#v7)).
    Known(Format),
    /// Any other format: only the lenient parse keeps it, as an annotation ([D7](crate::rules#d7)).
    Unknown(Text),
}

impl FormatSpec {
    /// The format's name as on the wire.
    pub fn name(&self) -> &str {
        match self {
            FormatSpec::Known(f) => f.name(),
            FormatSpec::Unknown(n) => n,
        }
    }
}

/// A `pattern`: its source as written, compiled once on first use.
#[derive(Debug)]
pub struct Pattern {
    source: Text,
    // Boxed so that a string property (and so every property kind) stays small to move.
    compiled: OnceLock<Box<Result<regex::Regex, PatternError>>>,
}

impl Pattern {
    /// A pattern from compile-time data; compiled on first use.
    pub const fn from_static(source: &'static str) -> Self {
        Pattern {
            source: Text::from_static(source),
            compiled: OnceLock::new(),
        }
    }

    /// Compiles a pattern now (ECMA-262 syntax, [D8](crate::rules#d8)).
    pub fn new(source: impl Into<Text>) -> Result<Self, PatternError> {
        Self::with_size_limit(source, DEFAULT_PATTERN_SIZE_LIMIT)
    }

    /// Compiles a pattern now with a given compiled-size limit.
    pub fn with_size_limit(
        source: impl Into<Text>,
        size_limit: usize,
    ) -> Result<Self, PatternError> {
        let source = source.into();
        let re = compile_pattern(&source, size_limit)?;
        Ok(Pattern::compiled(source, Ok(re)))
    }

    /// Keeps a pattern that could not be compiled, for the lenient parse ([D8](crate::rules#d8)).
    pub(crate) fn unenforced(source: Text, error: PatternError) -> Self {
        Pattern::compiled(source, Err(error))
    }

    /// A pattern whose compilation has been tried already.
    pub(crate) fn compiled(source: Text, compiled: Result<regex::Regex, PatternError>) -> Self {
        Pattern {
            source,
            compiled: OnceLock::from(Box::new(compiled)),
        }
    }

    /// The pattern as written.
    pub fn source(&self) -> &str {
        &self.source
    }

    /// Whether `text` contains a match (a search, not a full match: [V4](crate::rules#v4)), or why the
    /// pattern cannot be enforced.
    pub fn is_match(&self, text: &str) -> Result<bool, &PatternError> {
        self.regex().map(|re| re.is_match(text))
    }

    /// The compiled expression, or why it cannot be enforced.
    pub(crate) fn regex(&self) -> Result<&regex::Regex, &PatternError> {
        self.compiled
            .get_or_init(|| Box::new(compile_pattern(&self.source, DEFAULT_PATTERN_SIZE_LIMIT)))
            .as_ref()
            .as_ref()
    }
}

impl Clone for Pattern {
    fn clone(&self) -> Self {
        let compiled = OnceLock::new();
        if let Some(c) = self.compiled.get() {
            let _ = compiled.set(c.clone());
        }
        Pattern {
            source: self.source.clone(),
            compiled,
        }
    }
}

impl PartialEq for Pattern {
    fn eq(&self, other: &Self) -> bool {
        self.source == other.source
    }
}

/// A number (double) property.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct NumberSchema {
    /// Inclusive lower bound.
    pub minimum: Option<f64>,
    /// Inclusive upper bound.
    pub maximum: Option<f64>,
    /// `default`.
    pub default: Option<f64>,
}

impl NumberSchema {
    /// A number schema (usable in a `static`).
    pub const fn from_static(
        minimum: Option<f64>,
        maximum: Option<f64>,
        default: Option<f64>,
    ) -> Self {
        NumberSchema {
            minimum,
            maximum,
            default,
        }
    }
}

/// An integer (int64) property.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct IntegerSchema {
    /// Inclusive lower bound.
    pub minimum: Option<i64>,
    /// Inclusive upper bound.
    pub maximum: Option<i64>,
    /// `default`.
    pub default: Option<i64>,
}

impl IntegerSchema {
    /// An integer schema (usable in a `static`).
    pub const fn from_static(
        minimum: Option<i64>,
        maximum: Option<i64>,
        default: Option<i64>,
    ) -> Self {
        IntegerSchema {
            minimum,
            maximum,
            default,
        }
    }
}

/// A boolean property.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct BooleanSchema {
    /// `default`.
    pub default: Option<bool>,
}

impl BooleanSchema {
    /// A boolean schema (usable in a `static`).
    pub const fn from_static(default: Option<bool>) -> Self {
        BooleanSchema { default }
    }
}

/// The options of a select, untitled or titled. Each list is a [`List`]: compile-time
/// data for a derived schema, parsed data for a parsed one; it reads as a slice.
///
/// ```
/// use elicit::schema::{Options, Text};
///
/// static SIZES: [Text; 2] = [Text::from_static("s"), Text::from_static("m")];
/// let options = Options::untitled(&SIZES);
/// let Options::Untitled(values) = &options else { unreachable!() };
/// assert_eq!(values.len(), 2);
/// assert_eq!(options.position("m"), Some(1));
/// ```
#[derive(Debug, Clone, PartialEq)]
pub enum Options {
    /// `enum: ["a", "b"]`: the values are their own labels.
    Untitled(List<Text>),
    /// `oneOf` / `anyOf` of `{const, title, description?}`.
    Titled(List<EnumOption>),
}

impl Options {
    /// Untitled options from compile-time data.
    pub const fn untitled(values: &'static [Text]) -> Self {
        Options::Untitled(List::from_static(values))
    }

    /// Titled options from compile-time data.
    pub const fn titled(options: &'static [EnumOption]) -> Self {
        Options::Titled(List::from_static(options))
    }

    /// How many options there are.
    pub fn len(&self) -> usize {
        match self {
            Options::Untitled(v) => v.len(),
            Options::Titled(v) => v.len(),
        }
    }

    /// Whether there is no option (never true of a parsed schema, [D4](crate::rules#d4)).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether the options carry titles.
    pub fn is_titled(&self) -> bool {
        matches!(self, Options::Titled(_))
    }

    /// The option values (what goes into the content), in order.
    pub fn values(&self) -> impl Iterator<Item = &str> + '_ {
        let (a, b) = match self {
            Options::Untitled(v) => (Some(v.iter().map(|s| s.as_ref())), None),
            Options::Titled(v) => (None, Some(v.iter().map(|o| o.value()))),
        };
        a.into_iter().flatten().chain(b.into_iter().flatten())
    }

    /// Whether `value` is one of the option values.
    #[inline]
    pub fn contains(&self, value: &str) -> bool {
        self.position(value).is_some()
    }

    /// The position of the first option whose value is `value`. Lengths are compared
    /// before bytes, and a parsed option's length is read without its buffer.
    #[inline]
    pub fn position(&self, value: &str) -> Option<usize> {
        match self {
            Options::Untitled(v) => v.iter().position(|s| same_text(s, value)),
            Options::Titled(v) => v.iter().position(|o| same_text(&o.value, value)),
        }
    }

    /// The label of option `index`: its title when titled, else its value.
    pub fn label(&self, index: usize) -> Option<&str> {
        match self {
            Options::Untitled(v) => v.get(index).map(|s| s.as_ref()),
            Options::Titled(v) => v.get(index).map(|o| o.title()),
        }
    }

    /// The titled options, if titled.
    pub fn titled_options(&self) -> Option<&[EnumOption]> {
        match self {
            Options::Titled(v) => Some(v),
            Options::Untitled(_) => None,
        }
    }
}

/// A titled option: `{"const": value, "title": title, "description"?: …}`.
#[derive(Debug, Clone, PartialEq)]
pub struct EnumOption {
    pub(crate) value: Text,
    pub(crate) title: Text,
    pub(crate) description: Option<Text>,
    // Boxed like `PropertySchema`'s: rare, and options are stored by the dozen.
    pub(crate) meta: Option<Box<Meta>>,
}

impl EnumOption {
    /// An option from compile-time data.
    pub const fn from_static(
        value: &'static str,
        title: &'static str,
        description: Option<&'static str>,
    ) -> Self {
        EnumOption {
            value: Text::from_static(value),
            title: Text::from_static(title),
            description: match description {
                Some(d) => Some(Text::from_static(d)),
                None => None,
            },
            meta: None,
        }
    }

    /// An option with owned data.
    pub fn new(value: impl Into<Text>, title: impl Into<Text>) -> Self {
        EnumOption {
            value: value.into(),
            title: title.into(),
            description: None,
            meta: None,
        }
    }

    /// Sets the description.
    pub fn with_description(mut self, description: impl Into<Text>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// The `const`: the value that goes into the content.
    pub fn value(&self) -> &str {
        &self.value
    }

    /// The `title` a client shows.
    pub fn title(&self) -> &str {
        &self.title
    }

    /// The `description`.
    pub fn description(&self) -> Option<&str> {
        self.description.as_deref()
    }

    /// The `_meta` object ([E7](crate::rules#e7)).
    pub fn meta(&self) -> Option<&Meta> {
        self.meta.as_deref()
    }
}

/// A single-select: a string that must be one of the options.
#[derive(Debug, Clone, PartialEq)]
pub struct SingleSelectSchema {
    /// The options, in order.
    pub options: Options,
    /// `default`: one of the option values.
    pub default: Option<Text>,
}

impl SingleSelectSchema {
    /// A single-select from compile-time data.
    pub const fn from_static(options: Options, default: Option<&'static str>) -> Self {
        SingleSelectSchema {
            options,
            default: match default {
                Some(d) => Some(Text::from_static(d)),
                None => None,
            },
        }
    }
}

/// A multi-select: an array of option values.
#[derive(Debug, Clone, PartialEq)]
pub struct MultiSelectSchema {
    /// The options, in order.
    pub options: Options,
    /// `minItems`.
    pub min_items: Option<u64>,
    /// `maxItems`.
    pub max_items: Option<u64>,
    /// `default`: option values.
    pub default: Option<Cow<'static, [Text]>>,
}

impl MultiSelectSchema {
    /// A multi-select from compile-time data.
    pub const fn from_static(
        options: Options,
        min_items: Option<u64>,
        max_items: Option<u64>,
        default: Option<&'static [Text]>,
    ) -> Self {
        MultiSelectSchema {
            options,
            min_items,
            max_items,
            default: match default {
                Some(d) => Some(Cow::Borrowed(d)),
                None => None,
            },
        }
    }
}

/// A property of a type this crate does not know: its raw JSON, kept as received ([E6](crate::rules#e6)).
#[derive(Debug, Clone, PartialEq)]
pub struct UnknownProperty {
    pub(crate) raw: Meta,
}

impl UnknownProperty {
    /// The `type` member as received (empty when it was not a string).
    pub fn type_name(&self) -> &str {
        self.raw.get("type").and_then(Value::as_str).unwrap_or("")
    }

    /// The property's JSON object exactly as received.
    pub fn raw(&self) -> &Meta {
        &self.raw
    }
}
