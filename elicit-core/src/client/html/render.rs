//! The form as HTML: one `<form>`, no script, its own inline style sheet, every agent
//! text escaped.

use serde_json::Value;

use super::markup::Markup;
use super::submit::{Submission, SubmitAction};
use super::{ACTION_FIELD, FIELD_PREFIX};
use crate::client::{readable_label, AgentIdentity};
use crate::content::check::check_value;
use crate::content::{ValidationErrorKind, ValidationErrors};
use crate::format::Format;
use crate::protocol::CreateElicitation;
use crate::schema::{FormatSpec, Options, Property, PropertyKind, RequestedSchema};

/// The options of an HTML form; [`render`](super::render) is `HtmlForm::new(schema).render()`.
///
/// ```
/// use elicit::client::html::HtmlForm;
/// use elicit::client::AgentIdentity;
/// use elicit::RequestedSchema;
/// use serde_json::json;
///
/// let schema = RequestedSchema::from_json(&json!({
///     "type": "object",
///     "properties": { "name": { "type": "string", "title": "Your name" } }
/// }))?;
/// let page = HtmlForm::new(&schema)
///     .agent(AgentIdentity::new("deploy-bot").with_title("Deploy Bot"))
///     .message("Who is deploying?")
///     .action_url("/elicitations/42")
///     .accept_label("Send")
///     .render();
/// assert!(page.contains("Deploy Bot (deploy-bot)"));
/// assert!(page.contains(r#"action="/elicitations/42""#));
/// # Ok::<(), elicit::SchemaError>(())
/// ```
#[derive(Debug, Clone)]
#[must_use]
pub struct HtmlForm<'s> {
    schema: &'s RequestedSchema,
    agent: Option<AgentIdentity>,
    message: Option<String>,
    action_url: Option<String>,
    labels: [String; 3],
    browser_checks: bool,
    mask_secrets: bool,
    stylesheet: bool,
    refill: Option<(Vec<Vec<String>>, Option<ValidationErrors>)>,
}

impl<'s> HtmlForm<'s> {
    /// A form for `schema` with no agent named, no message, posting to the page's own
    /// URL, with the buttons "Accept", "Decline" and "Cancel".
    pub fn new(schema: &'s RequestedSchema) -> Self {
        HtmlForm {
            schema,
            agent: None,
            message: None,
            action_url: None,
            labels: ["Accept".into(), "Decline".into(), "Cancel".into()],
            browser_checks: false,
            mask_secrets: false,
            stylesheet: true,
            refill: None,
        }
    }

    /// The form of a form-mode request (see [`check_request`](crate::client::check_request)),
    /// showing its message ([K4](crate::rules#k4)); `None` for a request in another mode. Name the
    /// agent with [`HtmlForm::agent`], from the connection the request came in on ([K1](crate::rules#k1)).
    pub fn for_request(request: &'s CreateElicitation) -> Option<Self> {
        request
            .requested_schema()
            .map(|schema| HtmlForm::new(schema).message(request.message()))
    }

    /// The agent asking, shown at the top of the form ([K1](crate::rules#k1)). Without one the form
    /// says the agent is not identified.
    pub fn agent(mut self, agent: AgentIdentity) -> Self {
        self.agent = Some(agent);
        self
    }

    /// The request's message, shown under the agent ([K4](crate::rules#k4)).
    pub fn message(mut self, message: impl Into<String>) -> Self {
        self.message = Some(message.into());
        self
    }

    /// Where the form posts (the `action` attribute); by default the page's own URL.
    pub fn action_url(mut self, url: impl Into<String>) -> Self {
        self.action_url = Some(url.into());
        self
    }

    /// The text of the accept button.
    pub fn accept_label(mut self, label: impl Into<String>) -> Self {
        self.labels[0] = label.into();
        self
    }

    /// The text of the decline button.
    pub fn decline_label(mut self, label: impl Into<String>) -> Self {
        self.labels[1] = label.into();
        self
    }

    /// The text of the cancel button.
    pub fn cancel_label(mut self, label: impl Into<String>) -> Self {
        self.labels[2] = label.into();
        self
    }

    /// Whether the browser checks the answers before posting them (off by default: the
    /// form carries `novalidate`).
    ///
    /// Off, every answer reaches [`parse_submission`](super::parse_submission), which
    /// applies the schema exactly, and comes back beside its field when it is wrong
    /// ([F3](crate::rules#f3)). On, the browser refuses some answers at once, but also some valid
    /// ones: `type="email"` refuses quoted and non-ASCII local parts that an RFC 5321
    /// mailbox allows ([V7](crate::rules#v7)). Decline and cancel are never checked ([K1](crate::rules#k1)).
    pub fn browser_checks(mut self, on: bool) -> Self {
        self.browser_checks = on;
        self
    }

    /// Whether the form carries its own small style sheet ([`STYLESHEET`], on by
    /// default) as a `<style>` element, so that it is readable and usable as it is:
    /// labels beside their inputs, each error in red under its field, the accept
    /// button told apart. Every rule is scoped to `.elicit-form`. Turn it off to style
    /// the form with the page's own CSS (the classes are listed in the
    /// [module documentation](super)).
    pub fn stylesheet(mut self, on: bool) -> Self {
        self.stylesheet = on;
        self
    }

    /// Shows each text field that asks for a secret (by its name, title or
    /// description, with the vocabulary of [`RequestedSchema::secret_findings`]) as a
    /// password input that the browser neither shows nor remembers
    /// (`type="password"`, `autocomplete="off"`), and never writes what was typed
    /// into it back into the page, not even on [`refill`](Self::refill). Off by
    /// default: a client's form never asks for secrets ([F5](crate::rules#f5)); the agent's own
    /// URL-mode page turns it on.
    pub fn mask_secrets(mut self, on: bool) -> Self {
        self.mask_secrets = on;
        self
    }

    /// Shows the form again as the user sent it: each field filled with what was sent
    /// (not the defaults), and each error [`Submission::content`] finds beside its field,
    /// with `aria-invalid` on the input ([F3](crate::rules#f3)). The submission is read with this
    /// form's schema; one read with another schema fills only the fields they share by
    /// position.
    pub fn refill(mut self, submission: &Submission<'_>) -> Self {
        let raw = (0..self.schema.properties().len())
            .map(|i| submission.raw_by_index(i).to_vec())
            .collect();
        self.refill = Some((raw, submission.content().err()));
        self
    }

    /// The HTML: one `<form>` element, self-contained (no script, no link, no outside
    /// resource).
    pub fn render(&self) -> String {
        let mut m = Markup::new();
        m.open("form")
            .attr("class", "elicit-form")
            .attr("method", "post")
            .attr_opt("action", self.action_url.as_deref())
            .attr("accept-charset", "UTF-8")
            .flag("novalidate", !self.browser_checks)
            .close();
        if self.stylesheet {
            m.raw("<style>").raw(STYLESHEET).raw("</style>");
        }
        self.header(&mut m);
        let errors = self.refill.as_ref().and_then(|(_, e)| e.as_ref());
        if let Some(errors) = errors {
            m.open("div")
                .attr("class", "elicit-problems")
                .attr("role", "alert")
                .close()
                .open("p")
                .close()
                .raw("The answer was not sent: ")
                .text(&problem_count(errors.len()))
                .raw(" to fix below.")
                .end("p");
            // Errors not tied to a field of the form (never from a form's own fields).
            for e in errors.errors() {
                let known = e
                    .property
                    .as_deref()
                    .is_some_and(|p| self.schema.property(p).is_some());
                if !known {
                    m.open("p")
                        .attr("class", "elicit-error")
                        .close()
                        .text(&e.to_string())
                        .end("p");
                }
            }
            m.end("div");
        }
        for (index, property) in self.schema.properties().iter().enumerate() {
            let field_errors: Vec<&ValidationErrorKind> = errors
                .map(|e| e.for_property(property.name()).collect())
                .unwrap_or_default();
            self.field(&mut m, index, property, &field_errors);
        }
        self.buttons(&mut m);
        m.end("form");
        m.finish()
    }

    fn header(&self, m: &mut Markup) {
        m.open("div").attr("class", "elicit-header").close();
        m.open("p").attr("class", "elicit-agent").close();
        match &self.agent {
            // K1: the identity comes from the connection, not from the request.
            Some(agent) => {
                m.raw("Asked by the agent ")
                    .open("strong")
                    .close()
                    .agent_text(&agent.to_string())
                    .end("strong");
            }
            None => {
                m.raw("Asked by an agent that is not identified");
            }
        }
        m.end("p");
        if let Some(message) = &self.message {
            m.open("p")
                .attr("class", "elicit-message")
                .close()
                .agent_text(message)
                .end("p");
        }
        if let Some(title) = self.schema.title() {
            m.open("p")
                .attr("class", "elicit-title")
                .close()
                .agent_text(title)
                .end("p");
        }
        if let Some(description) = self.schema.description() {
            m.open("p")
                .attr("class", "elicit-description")
                .close()
                .agent_text(description)
                .end("p");
        }
        m.end("div");
    }

    /// What a field shows as filled: what the user sent, else the declared default
    /// when it is valid ([F4](crate::rules#f4)), as the texts its inputs carry.
    fn filled(&self, index: usize, property: &Property) -> Vec<String> {
        if let Some((raw, _)) = &self.refill {
            return raw[index].clone();
        }
        let kind = property.schema().kind();
        let Some(default) = property.schema().default_value() else {
            return Vec::new();
        };
        // D11 makes a parsed default valid; one that is not is left out, as the form
        // engine does, rather than shown as an answer the form would refuse.
        if !check_value(kind, &default, &mut |_| {}) {
            return Vec::new();
        }
        match default {
            Value::String(s) => vec![s],
            Value::Bool(b) => vec![b.to_string()],
            Value::Number(n) => vec![n.to_string()],
            Value::Array(items) => items
                .into_iter()
                .filter_map(|i| i.as_str().map(str::to_owned))
                .collect(),
            Value::Null | Value::Object(_) => Vec::new(),
        }
    }

    fn field(&self, m: &mut Markup, index: usize, p: &Property, errors: &[&ValidationErrorKind]) {
        let ids = Ids::new(index);
        let filled = self.filled(index, p);
        let name = format!("{FIELD_PREFIX}{}", p.name());
        let description = p.schema().description();
        let hint = hint(p.schema().kind());
        let mut described = Vec::new();
        if description.is_some() {
            described.push(ids.description.as_str());
        }
        if hint.is_some() {
            described.push(ids.hint.as_str());
        }
        if !errors.is_empty() {
            described.push(ids.error.as_str());
        }
        let described = described.join(" ");
        let described = (!described.is_empty()).then_some(described.as_str());
        let invalid = (!errors.is_empty()).then_some("true");
        let kind = p.schema().kind();
        let group = matches!(
            kind,
            PropertyKind::SingleSelect(_) | PropertyKind::MultiSelect(_)
        );

        m.open(if group { "fieldset" } else { "div" })
            .attr("class", "elicit-field")
            .attr("data-kind", kind_name(kind))
            .attr_opt("aria-describedby", if group { described } else { None })
            .close();
        match kind {
            PropertyKind::SingleSelect(s) => {
                legend(m, p);
                let current = filled.last().map(String::as_str);
                let mut choices: Vec<(String, &str, Option<&str>)> = choices(&s.options);
                if !p.is_required() {
                    // An optional select can be left unanswered again once chosen.
                    choices.push((String::new(), "No answer", None));
                }
                for (j, (value, label, option_description)) in choices.iter().enumerate() {
                    let id = format!("{}-o{j}", ids.input);
                    let checked = match current {
                        Some(c) => c == value,
                        None => value.is_empty(),
                    };
                    m.open("div").attr("class", "elicit-option").close();
                    m.open("input")
                        .attr("type", "radio")
                        .attr("id", &id)
                        .attr("name", &name)
                        .attr("value", value)
                        .flag("checked", checked)
                        .flag("required", p.is_required())
                        .attr_opt("aria-invalid", invalid)
                        .close();
                    option_label(m, &id, label, *option_description, value.is_empty());
                    m.end("div");
                }
            }
            PropertyKind::MultiSelect(s) => {
                legend(m, p);
                for (j, (value, label, option_description)) in
                    choices(&s.options).iter().enumerate()
                {
                    let id = format!("{}-o{j}", ids.input);
                    m.open("div").attr("class", "elicit-option").close();
                    m.open("input")
                        .attr("type", "checkbox")
                        .attr("id", &id)
                        .attr("name", &name)
                        .attr("value", value)
                        .flag("checked", filled.iter().any(|f| f == value))
                        .attr_opt("aria-invalid", invalid)
                        .close();
                    option_label(m, &id, label, *option_description, false);
                    m.end("div");
                }
            }
            PropertyKind::Boolean(_) => {
                // An unchecked box sends nothing: the hidden `false` before it is the
                // answer then, and a checked box's `true` comes after it and wins.
                m.open("input")
                    .attr("type", "hidden")
                    .attr("name", &name)
                    .attr("value", "false")
                    .close();
                m.open("input")
                    .attr("type", "checkbox")
                    .attr("id", &ids.input)
                    .attr("name", &name)
                    .attr("value", "true")
                    .flag("checked", filled.last().map(String::as_str) == Some("true"))
                    .attr_opt("aria-describedby", described)
                    .attr_opt("aria-invalid", invalid)
                    .close();
                label(m, &ids.input, p);
            }
            PropertyKind::Unknown(u) => {
                // E6: shown as a field this client cannot show, never dropped, and the
                // accept button is disabled.
                m.open("p")
                    .attr("class", "elicit-unrenderable")
                    .attr("id", &ids.input)
                    .close()
                    .agent_text(&field_label(p))
                    .raw(if p.is_required() { " (required)" } else { "" })
                    .raw(": this client cannot show a field of type ")
                    .open("code")
                    .close()
                    .agent_text(u.type_name())
                    .end("code")
                    .raw(", so the form can only be declined or cancelled.")
                    .end("p");
            }
            PropertyKind::String(_) | PropertyKind::Integer(_) | PropertyKind::Number(_) => {
                let masked = self.mask_secrets
                    && matches!(kind, PropertyKind::String(_))
                    && asks_for_secret(p);
                label(m, &ids.input, p);
                m.open("input");
                input_attributes(m, kind, masked);
                if masked {
                    m.attr("autocomplete", "off");
                }
                m.attr("id", &ids.input)
                    .attr("name", &name)
                    .attr_opt(
                        "value",
                        filled.last().map(String::as_str).filter(|_| !masked),
                    )
                    .flag("required", p.is_required())
                    .attr_opt("aria-describedby", described)
                    .attr_opt("aria-invalid", invalid)
                    .close();
            }
        }
        // F3: the error right under what it is about, before the help texts; worded
        // so that it reads as an error without styling too.
        if !errors.is_empty() {
            m.open("p")
                .attr("class", "elicit-error")
                .attr("id", &ids.error)
                .close()
                .raw("<strong>Error:</strong> ");
            for (i, e) in errors.iter().enumerate() {
                if i > 0 {
                    m.raw("; ");
                }
                m.text(&error_text(e));
            }
            m.end("p");
        }
        if let Some(description) = description {
            m.open("p")
                .attr("class", "elicit-help")
                .attr("id", &ids.description)
                .close()
                .agent_text(description)
                .end("p");
        }
        if let Some(hint) = hint {
            m.open("p")
                .attr("class", "elicit-hint")
                .attr("id", &ids.hint)
                .close()
                .text(&hint)
                .end("p");
        }
        m.end(if group { "fieldset" } else { "div" });
    }

    fn buttons(&self, m: &mut Markup) {
        let renderable = self.schema.is_renderable();
        m.open("div").attr("class", "elicit-actions").close();
        // Accept first: a browser's implicit submission (Enter in a field) presses it.
        for (i, action) in [
            SubmitAction::Accept,
            SubmitAction::Decline,
            SubmitAction::Cancel,
        ]
        .into_iter()
        .enumerate()
        {
            let accept = action == SubmitAction::Accept;
            m.open("button")
                .attr("type", "submit")
                .attr("name", ACTION_FIELD)
                .attr("value", action.as_str())
                // K1: decline and cancel work with required fields empty.
                .flag("formnovalidate", !accept)
                .flag("disabled", accept && !renderable)
                .close()
                .text(&self.labels[i])
                .end("button");
        }
        m.end("div");
    }
}

/// The ids of one field's elements, from its position: a property name can hold any
/// character, an id cannot, and the position is unique.
struct Ids {
    input: String,
    description: String,
    hint: String,
    error: String,
}

impl Ids {
    fn new(index: usize) -> Self {
        let input = format!("elicit-f{index}");
        Ids {
            description: format!("{input}-description"),
            hint: format!("{input}-hint"),
            error: format!("{input}-error"),
            input,
        }
    }
}

fn label(m: &mut Markup, id: &str, p: &Property) {
    m.open("label")
        .attr("for", id)
        .close()
        .agent_text(&field_label(p));
    required_marker(m, p);
    m.end("label");
}

fn legend(m: &mut Markup, p: &Property) {
    m.open("legend").close().agent_text(&field_label(p));
    required_marker(m, p);
    m.end("legend");
}

/// The field's label: its `title`, or its name made readable (`party_size` → "Party
/// size") when it has none ([K1](crate::rules#k1)); the name stays what is submitted.
fn field_label(p: &Property) -> std::borrow::Cow<'_, str> {
    readable_label(p.name(), p.label())
}

fn required_marker(m: &mut Markup, p: &Property) {
    // A required boolean is always answered (unticked is `false`): marking it
    // "required" would read as "must be ticked".
    if p.is_required() && !matches!(p.schema().kind(), PropertyKind::Boolean(_)) {
        m.raw(" ")
            .open("span")
            .attr("class", "elicit-required")
            .close()
            .raw("(required)")
            .end("span");
    }
}

fn option_label(m: &mut Markup, id: &str, label: &str, description: Option<&str>, ours: bool) {
    m.open("label").attr("for", id).close();
    if ours {
        m.text(label);
    } else {
        m.agent_text(label);
    }
    if let Some(description) = description {
        m.raw(" ")
            .open("span")
            .attr("class", "elicit-option-description")
            .close()
            .agent_text(description)
            .end("span");
    }
    m.end("label");
}

/// Each option's value (what is submitted), label (what is shown) and description.
fn choices(options: &Options) -> Vec<(String, &str, Option<&str>)> {
    match options {
        Options::Untitled(values) => values
            .iter()
            .map(|v| (v.to_string(), v.as_ref(), None))
            .collect(),
        Options::Titled(titled) => titled
            .iter()
            .map(|o| (o.value().to_owned(), o.title(), o.description()))
            .collect(),
    }
}

/// The form's own style sheet ([`HtmlForm::stylesheet`]): plain CSS, every rule scoped
/// to `.elicit-form`, no outside resource. Labels sit beside their inputs (above them
/// on a narrow screen), help texts and errors under the input they are about, errors
/// in red and bold, the accept button filled.
pub const STYLESHEET: &str = "\
.elicit-form{font:16px/1.5 system-ui,-apple-system,'Segoe UI',sans-serif;color:#1b1d21;max-width:46rem}\
.elicit-form p{margin:0}\
.elicit-form .elicit-header{margin:0 0 1.25rem}\
.elicit-form .elicit-agent{color:#4a4f57;font-size:.9rem}\
.elicit-form .elicit-message{font-size:1.15rem;font-weight:600;margin:.35rem 0}\
.elicit-form .elicit-title{font-weight:600}\
.elicit-form .elicit-description{color:#33373d}\
.elicit-form .elicit-problems{border-left:4px solid #b3261e;background:#fdf1f0;padding:.5rem .75rem;margin:0 0 1.25rem}\
.elicit-form .elicit-field{display:grid;grid-template-columns:minmax(7rem,13rem) minmax(0,1fr);column-gap:1rem;row-gap:.2rem;align-items:baseline;margin:0 0 1.1rem;padding:0;border:0;min-width:0}\
.elicit-form .elicit-field>*{grid-column:2}\
.elicit-form .elicit-field>label:first-child{grid-column:1;font-weight:600}\
.elicit-form fieldset.elicit-field{display:block}\
.elicit-form fieldset.elicit-field>legend{float:left;width:13rem;margin-right:1rem;padding:0;font-weight:600}\
.elicit-form fieldset.elicit-field>:not(legend){margin-left:14rem}\
.elicit-form fieldset.elicit-field::after{content:'';display:block;clear:both}\
.elicit-form .elicit-field[data-kind=boolean]>input[type=checkbox]{grid-column:2;grid-row:1;justify-self:start;margin:0}\
.elicit-form .elicit-field[data-kind=boolean]>label{grid-column:2;grid-row:1;margin-left:1.6rem;font-weight:600}\
.elicit-form .elicit-option{display:flex;gap:.5rem;align-items:baseline;margin:.1rem 0}\
.elicit-form .elicit-option-description{display:block;color:#4a4f57;font-size:.9rem}\
.elicit-form .elicit-required{color:#4a4f57;font-weight:400;font-size:.85rem}\
.elicit-form input:not([type=checkbox]):not([type=radio]){width:100%;box-sizing:border-box;padding:.4rem .55rem;font:inherit;border:1px solid #8a9099;border-radius:4px;background:#fff}\
.elicit-form [aria-invalid=true]{border-color:#b3261e;outline:1px solid #b3261e}\
.elicit-form .elicit-help,.elicit-form .elicit-hint{color:#4a4f57;font-size:.9rem}\
.elicit-form .elicit-error{color:#b3261e;font-weight:600}\
.elicit-form .elicit-unrenderable{color:#8a4b00;font-weight:600}\
.elicit-form .elicit-actions{display:flex;gap:.75rem;margin-top:1.5rem}\
.elicit-form button{font:inherit;padding:.45rem 1.1rem;border-radius:4px;border:1px solid #5f6670;background:#fff;color:#1b1d21;cursor:pointer}\
.elicit-form button[value=accept]{background:#1a56db;border-color:#1a56db;color:#fff}\
.elicit-form button:disabled{opacity:.5;cursor:not-allowed}\
@media (max-width:40rem){.elicit-form .elicit-field{display:block}.elicit-form fieldset.elicit-field>legend{float:none;width:auto}.elicit-form fieldset.elicit-field>:not(legend){margin-left:0}.elicit-form .elicit-field>*{margin-top:.2rem}}";

/// Whether the property's name, title or description asks for a secret: the
/// vocabulary of the form-mode lint ([F5](crate::rules#f5)).
fn asks_for_secret(p: &Property) -> bool {
    let schema = p.schema();
    [Some(p.name()), schema.title(), schema.description()]
        .into_iter()
        .flatten()
        .any(|text| crate::vocab::find_secret(text).is_some())
}

/// `type` and the constraints a browser can check without refusing a valid value.
fn input_attributes(m: &mut Markup, kind: &PropertyKind, masked: bool) {
    match kind {
        PropertyKind::String(s) => {
            let input_type = match &s.format {
                _ if masked => "password",
                Some(FormatSpec::Known(Format::Email)) => "email",
                Some(FormatSpec::Known(Format::Uri)) => "url",
                Some(FormatSpec::Known(Format::Date)) => "date",
                // `datetime-local` sends no UTC offset, which an RFC 3339 date-time
                // needs (V7): plain text, with the form to use in the hint.
                _ => "text",
            };
            m.attr("type", input_type);
            // HTML counts UTF-16 code units, JSON Schema Unicode scalar values (V1):
            // a scalar value is one or two units, so `minlength` as declared and twice
            // `maxlength` never refuse an allowed value; the exact check is on submit.
            if let Some(min) = s.min_length {
                m.attr("minlength", &min.to_string());
            }
            if let Some(max) = s.max_length {
                m.attr("maxlength", &(u64::from(max) * 2).to_string());
            }
            // No `pattern` attribute: HTML anchors it and compiles it with the `v`
            // flag, JSON Schema searches unanchored (V4). Checked on submit.
        }
        PropertyKind::Integer(n) => {
            m.attr("type", "number")
                .attr("step", "1")
                .attr("inputmode", "numeric");
            if let Some(min) = n.minimum {
                m.attr("min", &min.to_string());
            }
            if let Some(max) = n.maximum {
                m.attr("max", &max.to_string());
            }
        }
        PropertyKind::Number(n) => {
            m.attr("type", "number")
                .attr("step", "any")
                .attr("inputmode", "decimal");
            if let Some(min) = n.minimum.and_then(serde_json::Number::from_f64) {
                m.attr("min", &min.to_string());
            }
            if let Some(max) = n.maximum.and_then(serde_json::Number::from_f64) {
                m.attr("max", &max.to_string());
            }
        }
        _ => {}
    }
}

/// The rules of a field in words, for the rules a browser does not check exactly.
fn hint(kind: &PropertyKind) -> Option<String> {
    let mut parts: Vec<String> = Vec::new();
    match kind {
        PropertyKind::String(s) => {
            match (s.min_length, s.max_length) {
                (Some(min), Some(max)) => parts.push(format!("From {min} to {max} characters.")),
                (Some(min), None) => parts.push(format!("At least {min} characters.")),
                (None, Some(max)) => parts.push(format!("At most {max} characters.")),
                (None, None) => {}
            }
            match &s.format {
                Some(FormatSpec::Known(Format::DateTime)) => parts.push(
                    "A date and time with its UTC offset, such as 2026-01-31T09:30:00Z.".to_owned(),
                ),
                Some(FormatSpec::Known(_)) | None => {}
                Some(FormatSpec::Unknown(f)) => {
                    parts.push(format!("Format {f} (not checked by this client)."))
                }
            }
            if let Some(pattern) = &s.pattern {
                let checked = if pattern.is_match("").is_ok() {
                    "checked when sent"
                } else {
                    "not checked by this client"
                };
                parts.push(format!(
                    "Must contain a match for the pattern {} ({checked}).",
                    pattern.source()
                ));
            }
        }
        PropertyKind::Integer(n) => bounds(&mut parts, n.minimum, n.maximum),
        PropertyKind::Number(n) => bounds(&mut parts, n.minimum, n.maximum),
        PropertyKind::MultiSelect(s) => match (s.min_items, s.max_items) {
            (Some(min), Some(max)) => parts.push(format!("Choose from {min} to {max}.")),
            (Some(min), None) => parts.push(format!("Choose at least {min}.")),
            (None, Some(max)) => parts.push(format!("Choose at most {max}.")),
            (None, None) => {}
        },
        _ => {}
    }
    (!parts.is_empty()).then(|| parts.join(" "))
}

fn bounds<T: std::fmt::Display>(parts: &mut Vec<String>, min: Option<T>, max: Option<T>) {
    match (min, max) {
        (Some(min), Some(max)) => parts.push(format!("From {min} to {max}.")),
        (Some(min), None) => parts.push(format!("At least {min}.")),
        (None, Some(max)) => parts.push(format!("At most {max}.")),
        (None, None) => {}
    }
}

fn kind_name(kind: &PropertyKind) -> &'static str {
    match kind {
        PropertyKind::String(_) => "text",
        PropertyKind::Integer(_) => "integer",
        PropertyKind::Number(_) => "number",
        PropertyKind::Boolean(_) => "boolean",
        PropertyKind::SingleSelect(_) => "single-select",
        PropertyKind::MultiSelect(_) => "multi-select",
        PropertyKind::Unknown(_) => "unknown",
    }
}

/// An error beside its field: the rule, with the field's name left out (it is beside it).
fn error_text(kind: &ValidationErrorKind) -> String {
    let text = kind.to_string();
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => format!("This field {first}{}", chars.as_str()),
        None => text,
    }
}

fn problem_count(n: usize) -> String {
    if n == 1 {
        "1 problem".to_owned()
    } else {
        format!("{n} problems")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    // covers: K1
    #[test]
    fn an_untitled_field_is_labelled_by_readable_words() {
        let schema = RequestedSchema::from_json_lenient(&json!({
            "type": "object",
            "properties": {
                "party_size": { "type": "integer" },
                "dietaryNeeds": { "type": "array", "items": { "type": "string", "enum": ["vegan"] } },
                "seating": { "type": "string", "enum": ["inside", "outside"] },
                "email": { "type": "string", "title": "Your e-mail" },
                "wants_bread": { "type": "boolean" },
                "x_custom": { "type": "color" }
            },
            "required": ["party_size"]
        }))
        .expect("a valid schema");
        let page = HtmlForm::new(&schema).render();
        for shown in [
            "><bdi>Party size</bdi> <span class=\"elicit-required\">(required)</span></label>",
            "<legend><bdi>Dietary needs</bdi></legend>",
            "<bdi>Seating</bdi>",
            "<bdi>Wants bread</bdi></label>",
            "<bdi>X custom</bdi>",
            // A title is kept as the agent wrote it.
            "<bdi>Your e-mail</bdi>",
        ] {
            assert!(page.contains(shown), "{shown} is not in:\n{page}");
        }
        // The names are still what the browser submits.
        for name in ["party_size", "dietaryNeeds", "seating", "wants_bread"] {
            assert!(
                page.contains(&format!("{FIELD_PREFIX}{name}\"")),
                "{name}: {page}"
            );
        }
        // Untitled options are values, not names: shown as the agent wrote them.
        assert!(page.contains("<bdi>vegan</bdi>"), "{page}");
        assert!(!page.contains("<bdi>party_size</bdi>"), "{page}");
    }
}
