//! The form engine: the state behind a form-mode dialog, whatever draws it ([F3](crate::rules#f3), [F4](crate::rules#f4),
//! [K1](crate::rules#k1), [K2](crate::rules#k2), [K4](crate::rules#k4), [D13](crate::rules#d13), [E6](crate::rules#e6)).
//!
//! A [`FormEngine`] holds the request's schema, the agent that asks and its message,
//! and the user's answers. It gives the fields in wire order with what a dialog shows
//! (label, description, required marker, kind, options), pre-fills declared defaults
//! ([F4](crate::rules#f4)), takes answers as typed JSON values or as the text a user typed, checks each
//! one as it is set, shows every answer for review before sending ([K2](crate::rules#k2)), and produces
//! the response: `accept` with content that validates ([F3](crate::rules#f3)), or `decline` or `cancel`,
//! which are always available ([K1](crate::rules#k1)).
//!
//! Every text of the form (message, titles, descriptions, option labels, answers) is
//! to be rendered as plain text: no link in a form is clickable ([S5](crate::rules#s5)).

use std::fmt;

use serde_json::{Map, Number, Value};

use super::identity::AgentIdentity;
use crate::content::check::check_value;
use crate::content::ValidationErrorKind;
use crate::content::ValidationErrors;
use crate::protocol::{CreateElicitation, ElicitationResponse, InvalidParamsReason, JsonRpcError};
use crate::schema::{Options, Property, PropertyKind, RequestedSchema, Unenforced};

/// The kind of input a field needs ([F2](crate::rules#f2)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FieldKind {
    /// Free text, maybe with a `format` ([`FormField::format`]).
    Text,
    /// A whole number (int64).
    Integer,
    /// A number (double).
    Number,
    /// Yes or no.
    Boolean,
    /// One of the options.
    SingleSelect,
    /// Any number of the options.
    MultiSelect,
}

impl FieldKind {
    /// The kind of a property; `None` for a type this crate does not know ([E6](crate::rules#e6)).
    fn of(kind: &PropertyKind) -> Option<FieldKind> {
        Some(match kind {
            PropertyKind::String(_) => FieldKind::Text,
            PropertyKind::Integer(_) => FieldKind::Integer,
            PropertyKind::Number(_) => FieldKind::Number,
            PropertyKind::Boolean(_) => FieldKind::Boolean,
            PropertyKind::SingleSelect(_) => FieldKind::SingleSelect,
            PropertyKind::MultiSelect(_) => FieldKind::MultiSelect,
            PropertyKind::Unknown(_) => return None,
        })
    }
}

/// A property whose type this crate does not know ([E6](crate::rules#e6)).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownField {
    /// The property's name.
    pub property: String,
    /// Its `type` as received.
    pub type_name: String,
}

/// Why a form cannot be shown.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum FormError {
    /// Some properties have a type this client does not know. Showing the form without
    /// them would send an answer the agent did not ask for, and guessing a widget
    /// would render an unknown type as a known one ([E6](crate::rules#e6)).
    Unrenderable {
        /// Every such property, in order.
        fields: Vec<UnknownField>,
    },
    /// The request is not in form mode.
    NotAForm {
        /// The request's mode.
        mode: String,
    },
}

impl FormError {
    /// The `-32602` error a client answers with when it cannot show the form.
    pub fn to_jsonrpc_error(&self) -> JsonRpcError {
        match self {
            FormError::Unrenderable { fields } => {
                let pointer = fields.first().map(|f| {
                    format!(
                        "/requestedSchema/properties/{}",
                        escape_pointer(&f.property)
                    )
                });
                JsonRpcError::invalid_params(
                    InvalidParamsReason::MalformedSchema,
                    self.to_string(),
                    pointer.as_deref(),
                )
            }
            FormError::NotAForm { mode } => JsonRpcError::unsupported_mode(mode),
        }
    }
}

/// RFC 6901: `~` and `/` in a member name.
fn escape_pointer(name: &str) -> String {
    name.replace('~', "~0").replace('/', "~1")
}

impl fmt::Display for FormError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FormError::Unrenderable { fields } => {
                f.write_str("the form cannot be shown: ")?;
                for (i, field) in fields.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(
                        f,
                        "`{}` has the unknown type `{}`",
                        field.property, field.type_name
                    )?;
                }
                Ok(())
            }
            FormError::NotAForm { mode } => {
                write!(f, "the request is in `{mode}` mode, not form mode")
            }
        }
    }
}

impl std::error::Error for FormError {}

/// What is wrong with an answer to one field.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum FieldErrorKind {
    /// The form has no field of this name.
    NoSuchField,
    /// The text could not be read as the field's kind.
    NotUnderstood {
        /// The text.
        text: String,
        /// What it should be, e.g. "a whole number".
        expected: &'static str,
    },
    /// The text names no option of the field (by value or title).
    NoSuchOption {
        /// The text.
        text: String,
    },
    /// The field is not a select, so options cannot be chosen.
    NotASelect,
    /// The value breaks the field's rules ([F2](crate::rules#f2), [V1](crate::rules#v1)–[V7](crate::rules#v7)).
    Invalid(Vec<ValidationErrorKind>),
}

/// An answer the form refused, naming the field ([K2](crate::rules#k2)). The previous answer is kept.
#[derive(Debug, Clone, PartialEq)]
pub struct FieldError {
    /// The field's name (the key in the content).
    pub field: String,
    /// The field's label, as shown.
    pub label: String,
    /// What is wrong.
    pub kind: FieldErrorKind,
}

impl fmt::Display for FieldError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.label == self.field {
            write!(f, "`{}`: ", self.field)?;
        } else {
            write!(f, "{} (`{}`): ", self.label, self.field)?;
        }
        match &self.kind {
            FieldErrorKind::NoSuchField => f.write_str("the form has no such field"),
            FieldErrorKind::NotUnderstood { text, expected } => {
                write!(f, "{text:?} is not {expected}")
            }
            FieldErrorKind::NoSuchOption { text } => {
                write!(f, "{text:?} is not one of the options")
            }
            FieldErrorKind::NotASelect => f.write_str("the field has no options to choose"),
            FieldErrorKind::Invalid(violations) => {
                for (i, v) in violations.iter().enumerate() {
                    if i > 0 {
                        f.write_str("; ")?;
                    }
                    write!(f, "{v}")?;
                }
                Ok(())
            }
        }
    }
}

impl std::error::Error for FieldError {}

/// One option of a select field, as a dialog shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Choice<'a> {
    /// The value that goes into the content (`const`, or the `enum` entry).
    pub value: &'a str,
    /// What to show: the title, else the value.
    pub label: &'a str,
    /// The option's description, if any.
    pub description: Option<&'a str>,
    /// Whether the current answer includes it.
    pub selected: bool,
}

/// One field of a form, as a dialog shows it ([D13](crate::rules#d13): in wire order).
#[derive(Debug, Clone, Copy)]
pub struct FormField<'a> {
    engine: &'a FormEngine,
    index: usize,
}

impl<'a> FormField<'a> {
    /// The full property, for every constraint (lengths, bounds, pattern, item
    /// counts) and the `_meta` ([E7](crate::rules#e7)).
    pub fn property(&self) -> &'a Property {
        &self.engine.schema.properties()[self.index]
    }

    /// The name: the key in the content.
    pub fn name(&self) -> &'a str {
        self.property().name()
    }

    /// What to show as the field's label: the title, else the name ([K1](crate::rules#k1)).
    pub fn label(&self) -> &'a str {
        self.property().label()
    }

    /// The description, to show as help text.
    pub fn description(&self) -> Option<&'a str> {
        self.property().schema().description()
    }

    /// Whether an answer is required (show a marker).
    pub fn is_required(&self) -> bool {
        self.property().is_required()
    }

    /// The input the field needs.
    pub fn kind(&self) -> FieldKind {
        self.engine.kinds[self.index]
    }

    /// The `format` of a text field (`email`, `uri`, `date`, `date-time`, or an
    /// unknown one kept as an annotation, [D7](crate::rules#d7)).
    pub fn format(&self) -> Option<&'a str> {
        match self.property().schema().kind() {
            PropertyKind::String(s) => s.format.as_ref().map(|f| f.name()),
            _ => None,
        }
    }

    /// The options of a select, in order, with which are chosen; empty otherwise.
    pub fn options(&self) -> Vec<Choice<'a>> {
        let Some(options) = options_of(self.property().schema().kind()) else {
            return Vec::new();
        };
        let value = self.value();
        let is_selected = |v: &str| match value {
            Some(Value::String(s)) => s == v,
            Some(Value::Array(items)) => items.iter().any(|i| i.as_str() == Some(v)),
            _ => false,
        };
        match options {
            Options::Untitled(values) => values
                .iter()
                .map(|v| Choice {
                    value: v,
                    label: v,
                    description: None,
                    selected: is_selected(v),
                })
                .collect(),
            Options::Titled(titled) => titled
                .iter()
                .map(|o| Choice {
                    value: o.value(),
                    label: o.title(),
                    description: o.description(),
                    selected: is_selected(o.value()),
                })
                .collect(),
        }
    }

    /// The declared `default` (already pre-filled when valid, [F4](crate::rules#f4)).
    pub fn default_value(&self) -> Option<Value> {
        self.property().schema().default_value()
    }

    /// The current answer, as it will be sent.
    pub fn value(&self) -> Option<&'a Value> {
        self.engine.values[self.index].as_ref()
    }

    /// The current answer as a person reads it: option titles instead of values, `yes`
    /// or `no` for booleans. `None` when unanswered.
    pub fn display_value(&self) -> Option<String> {
        self.value()
            .map(|v| display(self.property().schema().kind(), v))
    }

    /// What the schema declares for this field that is not enforced ([D7](crate::rules#d7), [D8](crate::rules#d8)).
    pub fn unenforced(&self) -> impl Iterator<Item = &'a Unenforced> + 'a {
        let name = self.name();
        self.engine
            .unenforced
            .iter()
            .filter(move |u| u.property == name)
    }
}

/// Every answer, as the user reviews them before sending ([K2](crate::rules#k2)).
#[derive(Debug, Clone, PartialEq)]
pub struct Review {
    agent: AgentIdentity,
    message: String,
    entries: Vec<ReviewEntry>,
    problems: Option<ValidationErrors>,
}

/// One line of a [`Review`].
#[derive(Debug, Clone, PartialEq)]
pub struct ReviewEntry {
    /// The field's name.
    pub name: String,
    /// The field's label.
    pub label: String,
    /// Whether an answer is required.
    pub required: bool,
    /// The answer as it will be sent; `None` when unanswered (the key is left out).
    pub value: Option<Value>,
    /// The answer as a person reads it (option titles, `yes`/`no`).
    pub shown: Option<String>,
}

impl Review {
    /// The agent asking ([K1](crate::rules#k1)).
    pub fn agent(&self) -> &AgentIdentity {
        &self.agent
    }

    /// The request's message ([K4](crate::rules#k4)).
    pub fn message(&self) -> &str {
        &self.message
    }

    /// Every field with its answer, in order ([D13](crate::rules#d13)).
    pub fn entries(&self) -> &[ReviewEntry] {
        &self.entries
    }

    /// What would make [`FormEngine::submit`] fail now (missing required answers
    /// above all), or `None` when the form can be sent.
    pub fn problems(&self) -> Option<&ValidationErrors> {
        self.problems.as_ref()
    }

    /// Whether the form can be sent as it is.
    pub fn is_ready(&self) -> bool {
        self.problems.is_none()
    }
}

impl fmt::Display for Review {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{} asks: {}", self.agent, self.message)?;
        for entry in &self.entries {
            let marker = if entry.required { " *" } else { "" };
            let shown = entry.shown.as_deref().unwrap_or("(no answer)");
            writeln!(f, "  {}{marker}: {shown}", entry.label)?;
        }
        match &self.problems {
            None => f.write_str("Ready to send."),
            Some(problems) => write!(f, "Not ready: {problems}"),
        }
    }
}

/// The state of one form-mode dialog ([F3](crate::rules#f3), [F4](crate::rules#f4), [K1](crate::rules#k1), [K2](crate::rules#k2), [K4](crate::rules#k4), [D13](crate::rules#d13), [E6](crate::rules#e6)).
///
/// ```
/// use elicit::client::{AgentIdentity, FormEngine};
/// use elicit::RequestedSchema;
/// use serde_json::json;
///
/// let schema = RequestedSchema::from_json_lenient(&json!({
///     "type": "object",
///     "properties": {
///         "passes": { "type": "integer", "title": "Passes", "minimum": 1, "maximum": 5, "default": 2 },
///         "strategy": { "type": "string", "oneOf": [
///             { "const": "safe", "title": "Conservative" },
///             { "const": "fast", "title": "Aggressive" }
///         ] }
///     },
///     "required": ["strategy"]
/// }))?;
/// let mut form = FormEngine::new(&schema, AgentIdentity::new("refactor-bot"), "How should I refactor?")?;
/// assert_eq!(form.value("passes"), Some(&json!(2))); // F4
///
/// assert!(form.set_text("passes", "9").is_err()); // checked as it is set
/// form.set_text("passes", "3")?;
/// form.set_text("strategy", "Aggressive")?; // a title, sent as its value
/// println!("{}", form.review()); // K2
///
/// let response = form.submit().unwrap();
/// assert_eq!(response.to_json(), json!({
///     "action": "accept", "content": { "passes": 3, "strategy": "fast" }
/// }));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct FormEngine {
    agent: AgentIdentity,
    message: String,
    schema: RequestedSchema,
    kinds: Vec<FieldKind>,
    values: Vec<Option<Value>>,
    unenforced: Vec<Unenforced>,
}

impl FormEngine {
    /// The engine of a form: `schema` as read by the lenient parse, the agent asking
    /// ([K1](crate::rules#k1)) and its message ([K4](crate::rules#k4)). Declared defaults that are valid are pre-filled ([F4](crate::rules#f4)).
    ///
    /// Refused when a property has a type this crate does not know ([E6](crate::rules#e6)).
    pub fn new(
        schema: &RequestedSchema,
        agent: AgentIdentity,
        message: impl Into<String>,
    ) -> Result<Self, FormError> {
        let mut kinds = Vec::with_capacity(schema.properties().len());
        let mut unknown = Vec::new();
        for p in schema.properties() {
            match FieldKind::of(p.schema().kind()) {
                Some(kind) => kinds.push(kind),
                None => unknown.push(UnknownField {
                    property: p.name().to_owned(),
                    type_name: p.schema().kind().type_name().to_owned(),
                }),
            }
        }
        if !unknown.is_empty() {
            return Err(FormError::Unrenderable { fields: unknown });
        }
        let values = schema
            .properties()
            .iter()
            .map(|p| {
                // F4. The parse checks defaults (D11); one that still fails is left
                // out rather than shown as an answer the form would refuse.
                p.schema()
                    .default_value()
                    .map(|d| normalize(p.schema().kind(), d))
                    .filter(|d| check_value(p.schema().kind(), d, &mut |_| {}))
            })
            .collect();
        Ok(FormEngine {
            agent,
            message: message.into(),
            schema: schema.clone(),
            kinds,
            values,
            unenforced: schema.unenforced(),
        })
    }

    /// The engine for a form-mode request (see [`super::check_request`]).
    pub fn from_request(
        request: &CreateElicitation,
        agent: AgentIdentity,
    ) -> Result<Self, FormError> {
        match request.requested_schema() {
            Some(schema) => Self::new(schema, agent, request.message()),
            None => Err(FormError::NotAForm {
                mode: request.mode_name().to_owned(),
            }),
        }
    }

    /// The agent asking ([K1](crate::rules#k1)): show it with the form.
    pub fn agent(&self) -> &AgentIdentity {
        &self.agent
    }

    /// The request's message ([K4](crate::rules#k4)): show it with the form.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The form's title.
    pub fn title(&self) -> Option<&str> {
        self.schema.title()
    }

    /// The form's description.
    pub fn description(&self) -> Option<&str> {
        self.schema.description()
    }

    /// The schema.
    pub fn schema(&self) -> &RequestedSchema {
        &self.schema
    }

    /// The fields, in wire order ([D13](crate::rules#d13)).
    pub fn fields(&self) -> impl ExactSizeIterator<Item = FormField<'_>> + '_ {
        (0..self.kinds.len()).map(move |index| FormField {
            engine: self,
            index,
        })
    }

    /// The field of this name.
    pub fn field(&self, name: &str) -> Option<FormField<'_>> {
        self.position(name).map(|index| FormField {
            engine: self,
            index,
        })
    }

    /// What the schema declares that is not enforced (unknown formats, [D7](crate::rules#d7); patterns
    /// the engine cannot run, [D8](crate::rules#d8); unknown keywords): show it, so that the user and the
    /// client know these rules are not checked here.
    pub fn unenforced(&self) -> &[Unenforced] {
        &self.unenforced
    }

    /// The current answer of a field.
    pub fn value(&self, name: &str) -> Option<&Value> {
        self.values.get(self.position(name)?)?.as_ref()
    }

    fn position(&self, name: &str) -> Option<usize> {
        self.schema
            .properties()
            .iter()
            .position(|p| p.name() == name)
    }

    fn index(&self, name: &str) -> Result<usize, FieldError> {
        self.position(name).ok_or_else(|| FieldError {
            field: name.to_owned(),
            label: name.to_owned(),
            kind: FieldErrorKind::NoSuchField,
        })
    }

    fn error(&self, index: usize, problem: FieldErrorKind) -> FieldError {
        let p = &self.schema.properties()[index];
        FieldError {
            field: p.name().to_owned(),
            label: p.label().to_owned(),
            kind: problem,
        }
    }

    fn kind_of(&self, index: usize) -> &PropertyKind {
        self.schema.properties()[index].schema().kind()
    }

    /// Sets an answer from a typed value: a string, an integer, a number, a boolean,
    /// or an array of option values, exactly as it goes into the content. Checked now
    /// ([F3](crate::rules#f3)): a refused value leaves the previous answer in place. An integer written
    /// as `3.0` is stored as `3` ([V2](crate::rules#v2)).
    pub fn set(&mut self, name: &str, value: impl Into<Value>) -> Result<(), FieldError> {
        let index = self.index(name)?;
        let value = normalize(self.kind_of(index), value.into());
        self.store(index, value, true)
    }

    /// Sets an answer from what the user typed, read by the field's kind:
    /// - text: taken as typed;
    /// - integer: `3`, `-3`, and numbers with a zero fraction such as `3.0` ([V2](crate::rules#v2));
    /// - number: any finite decimal number (`2.5`, `1e3`);
    /// - boolean: `yes`/`no`, `true`/`false`, `y`/`n`, `on`/`off`, `1`/`0`, in any case;
    /// - single-select: an option's value or title (values first, then titles, then
    ///   either ignoring case when that names one option only), sent as its value;
    /// - multi-select: one option as above, or a comma-separated list of them (a
    ///   repeated option counts once).
    ///
    /// Surrounding spaces are ignored except in free text. Empty text (or only
    /// spaces, except in free text) clears the answer: it is how a dialog says "no
    /// answer"; send an empty string with [`set`](Self::set). Checked now; a refused
    /// text leaves the previous answer in place.
    pub fn set_text(&mut self, name: &str, text: &str) -> Result<(), FieldError> {
        let index = self.index(name)?;
        let free_text = matches!(self.kind_of(index), PropertyKind::String(_));
        if text.is_empty() || (!free_text && text.trim().is_empty()) {
            self.values[index] = None;
            return Ok(());
        }
        let value = match parse_text(self.kind_of(index), text) {
            Ok(value) => value,
            Err(problem) => return Err(self.error(index, problem)),
        };
        self.store(index, value, true)
    }

    /// Adds one option, by value or title, to the answer of a multi-select (a
    /// repeated choice is ignored), or sets the answer of a single-select. A
    /// multi-select is checked against its options and `maxItems` only, so it can
    /// be filled one choice at a time; `minItems` is checked on review and submit.
    pub fn select_option(&mut self, name: &str, option: &str) -> Result<(), FieldError> {
        let index = self.index(name)?;
        let (value, full_check) = match self.kind_of(index) {
            PropertyKind::SingleSelect(s) => match match_option(&s.options, option) {
                Some(v) => (Value::String(v.to_owned()), true),
                None => return Err(self.no_such_option(index, option)),
            },
            PropertyKind::MultiSelect(m) => {
                let Some(chosen) = match_option(&m.options, option) else {
                    return Err(self.no_such_option(index, option));
                };
                let mut items = self.current_items(index);
                if !items.iter().any(|i| i.as_str() == Some(chosen)) {
                    items.push(Value::String(chosen.to_owned()));
                }
                (Value::Array(items), false)
            }
            _ => return Err(self.error(index, FieldErrorKind::NotASelect)),
        };
        self.store(index, value, full_check)
    }

    /// Removes one option, by value or title, from the answer of a multi-select, or
    /// clears a single-select whose answer it is.
    pub fn deselect_option(&mut self, name: &str, option: &str) -> Result<(), FieldError> {
        let index = self.index(name)?;
        match self.kind_of(index) {
            PropertyKind::SingleSelect(s) => {
                let Some(chosen) = match_option(&s.options, option) else {
                    return Err(self.no_such_option(index, option));
                };
                if self.values[index].as_ref().and_then(Value::as_str) == Some(chosen) {
                    self.values[index] = None;
                }
                Ok(())
            }
            PropertyKind::MultiSelect(m) => {
                let Some(chosen) = match_option(&m.options, option).map(str::to_owned) else {
                    return Err(self.no_such_option(index, option));
                };
                if let Some(Value::Array(items)) = &mut self.values[index] {
                    items.retain(|i| i.as_str() != Some(chosen.as_str()));
                }
                Ok(())
            }
            _ => Err(self.error(index, FieldErrorKind::NotASelect)),
        }
    }

    fn no_such_option(&self, index: usize, option: &str) -> FieldError {
        self.error(
            index,
            FieldErrorKind::NoSuchOption {
                text: option.to_owned(),
            },
        )
    }

    fn current_items(&self, index: usize) -> Vec<Value> {
        match &self.values[index] {
            Some(Value::Array(items)) => items.clone(),
            _ => Vec::new(),
        }
    }

    /// Clears the answer of a field: the key is left out of the content.
    pub fn clear(&mut self, name: &str) -> Result<(), FieldError> {
        let index = self.index(name)?;
        self.values[index] = None;
        Ok(())
    }

    /// Checks a value against its property and stores it. `full` off skips
    /// `minItems`, for a multi-select filled one choice at a time.
    fn store(&mut self, index: usize, value: Value, full: bool) -> Result<(), FieldError> {
        // F3: the same rules `RequestedSchema::validate` applies, one field at a time,
        // so the user hears of a problem where they made it.
        let mut violations = Vec::new();
        check_value(self.kind_of(index), &value, &mut |v| {
            if full || !matches!(v, ValidationErrorKind::TooFewItems { .. }) {
                violations.push(v);
            }
        });
        if violations.is_empty() {
            self.values[index] = Some(value);
            Ok(())
        } else {
            Err(self.error(index, FieldErrorKind::Invalid(violations)))
        }
    }

    /// The content as it stands: every answered field, in order ([D13](crate::rules#d13)).
    pub fn content(&self) -> Map<String, Value> {
        self.schema
            .properties()
            .iter()
            .zip(&self.values)
            .filter_map(|(p, v)| Some((p.name().to_owned(), v.clone()?)))
            .collect()
    }

    /// Every answer, for the user to review before sending ([K2](crate::rules#k2)), with what would
    /// stop the form from being sent.
    pub fn review(&self) -> Review {
        let entries = self
            .fields()
            .map(|field| ReviewEntry {
                name: field.name().to_owned(),
                label: field.label().to_owned(),
                required: field.is_required(),
                value: field.value().cloned(),
                shown: field.display_value(),
            })
            .collect();
        Review {
            agent: self.agent.clone(),
            message: self.message.clone(),
            entries,
            problems: self.schema.validate(&Value::Object(self.content())).err(),
        }
    }

    /// `accept` with the answers, when they validate against the schema as a whole
    /// ([F3](crate::rules#f3): re-checked with [`RequestedSchema::validate`], required fields included);
    /// otherwise every problem, and nothing is sent.
    pub fn submit(&self) -> Result<ElicitationResponse, ValidationErrors> {
        let content = self.content();
        self.schema.validate(&Value::Object(content.clone()))?;
        Ok(ElicitationResponse::accept(content))
    }

    /// `decline`: the user explicitly refused ([K1](crate::rules#k1), [R1](crate::rules#r1)). Always available.
    pub fn decline(&self) -> ElicitationResponse {
        ElicitationResponse::decline()
    }

    /// `cancel`: the user dismissed the form ([K1](crate::rules#k1), [R1](crate::rules#r1)). Always available.
    pub fn cancel(&self) -> ElicitationResponse {
        ElicitationResponse::cancel()
    }
}

fn options_of(kind: &PropertyKind) -> Option<&Options> {
    match kind {
        PropertyKind::SingleSelect(s) => Some(&s.options),
        PropertyKind::MultiSelect(m) => Some(&m.options),
        _ => None,
    }
}

/// The smallest and largest doubles that convert to an int64 exactly.
const I64_FLOAT_RANGE: std::ops::Range<f64> =
    -9_223_372_036_854_775_808.0..9_223_372_036_854_775_808.0;

/// An integer property's value written as a double with a zero fraction becomes that
/// integer ([V2](crate::rules#v2)), so an agent with a strict integer parser reads it too.
fn normalize(kind: &PropertyKind, value: Value) -> Value {
    if let (PropertyKind::Integer(_), Value::Number(n)) = (kind, &value) {
        if !n.is_i64() && !n.is_u64() {
            if let Some(f) = n.as_f64() {
                if f.fract() == 0.0 && I64_FLOAT_RANGE.contains(&f) {
                    // Exact: in range and integral.
                    return Value::from(f as i64);
                }
            }
        }
    }
    value
}

fn parse_text(kind: &PropertyKind, text: &str) -> Result<Value, FieldErrorKind> {
    let trimmed = text.trim();
    let not_understood = |expected| FieldErrorKind::NotUnderstood {
        text: text.to_owned(),
        expected,
    };
    match kind {
        PropertyKind::String(_) => Ok(Value::String(text.to_owned())),
        PropertyKind::Integer(_) => parse_integer(trimmed)
            .map(Value::from)
            .ok_or_else(|| not_understood("a whole number")),
        PropertyKind::Number(_) => parse_number(trimmed).ok_or_else(|| not_understood("a number")),
        PropertyKind::Boolean(_) => parse_boolean(trimmed)
            .map(Value::Bool)
            .ok_or_else(|| not_understood("yes or no")),
        PropertyKind::SingleSelect(s) => match_option(&s.options, text)
            .map(|v| Value::String(v.to_owned()))
            .ok_or_else(|| FieldErrorKind::NoSuchOption {
                text: text.to_owned(),
            }),
        PropertyKind::MultiSelect(m) => parse_choices(&m.options, text).map(Value::Array),
        // Never reached: the engine refuses forms with unknown types (E6).
        PropertyKind::Unknown(_) => Err(not_understood("a value of a known type")),
    }
}

/// `3`, `-3`, `+3`, and any finite number with a zero fraction within int64 (`3.0`,
/// `3e2`); never `inf` or `NaN`.
fn parse_integer(text: &str) -> Option<i64> {
    if let Ok(i) = text.parse::<i64>() {
        return Some(i);
    }
    let f = parse_finite(text)?;
    // Exact: in range and integral.
    (f.fract() == 0.0 && I64_FLOAT_RANGE.contains(&f)).then_some(f as i64)
}

/// A finite number; an integer stays an integer on the wire ([V3](crate::rules#v3) accepts it).
fn parse_number(text: &str) -> Option<Value> {
    if let Ok(i) = text.parse::<i64>() {
        return Some(Value::from(i));
    }
    parse_finite(text)
        .and_then(Number::from_f64)
        .map(Value::Number)
}

/// Rust's float syntax, less the words (`inf`, `infinity`, `nan`) it also accepts.
fn parse_finite(text: &str) -> Option<f64> {
    if !text.bytes().any(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse::<f64>().ok().filter(|f| f.is_finite())
}

fn parse_boolean(text: &str) -> Option<bool> {
    match text.to_lowercase().as_str() {
        "yes" | "y" | "true" | "on" | "1" => Some(true),
        "no" | "n" | "false" | "off" | "0" => Some(false),
        _ => None,
    }
}

/// The value of the option `text` names: a value as written, a title as written,
/// either trimmed, then either ignoring case if that names exactly one option.
fn match_option<'o>(options: &'o Options, text: &str) -> Option<&'o str> {
    let exact = |t: &str| -> Option<&'o str> {
        if let Some(i) = options.position(t) {
            return options.values().nth(i);
        }
        options
            .titled_options()?
            .iter()
            .find(|o| o.title() == t)
            .map(|o| o.value())
    };
    if let Some(v) = exact(text) {
        return Some(v);
    }
    let trimmed = text.trim();
    if let Some(v) = exact(trimmed) {
        return Some(v);
    }
    let folded = trimmed.to_lowercase();
    let mut found: Option<&'o str> = None;
    for (i, value) in options.values().enumerate() {
        let label = options.label(i).unwrap_or(value);
        if value.to_lowercase() == folded || label.to_lowercase() == folded {
            if found.is_some_and(|f| f != value) {
                return None; // ambiguous
            }
            found = Some(value);
        }
    }
    found
}

fn parse_choices(options: &Options, text: &str) -> Result<Vec<Value>, FieldErrorKind> {
    // A title may itself contain a comma: the whole text first.
    if let Some(v) = match_option(options, text) {
        return Ok(vec![Value::String(v.to_owned())]);
    }
    let mut chosen: Vec<Value> = Vec::new();
    for piece in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let Some(v) = match_option(options, piece) else {
            return Err(FieldErrorKind::NoSuchOption {
                text: piece.to_owned(),
            });
        };
        if !chosen.iter().any(|c| c.as_str() == Some(v)) {
            chosen.push(Value::String(v.to_owned()));
        }
    }
    Ok(chosen)
}

/// A value as a person reads it.
fn display(kind: &PropertyKind, value: &Value) -> String {
    let label = |options: &Options, v: &str| -> String {
        options
            .position(v)
            .and_then(|i| options.label(i))
            .unwrap_or(v)
            .to_owned()
    };
    match (kind, value) {
        (PropertyKind::SingleSelect(s), Value::String(v)) => label(&s.options, v),
        (PropertyKind::MultiSelect(_), Value::Array(items)) if items.is_empty() => {
            "(none)".to_owned()
        }
        (PropertyKind::MultiSelect(m), Value::Array(items)) => items
            .iter()
            .map(|i| match i.as_str() {
                Some(v) => label(&m.options, v),
                None => i.to_string(),
            })
            .collect::<Vec<_>>()
            .join(", "),
        (_, Value::Bool(true)) => "yes".to_owned(),
        (_, Value::Bool(false)) => "no".to_owned(),
        (_, Value::String(s)) => s.clone(),
        (_, other) => other.to_string(),
    }
}
