//! A form-mode elicitation as an HTML form, and the browser's answer read back
//! (feature `html`).
//!
//! [`render`] turns a [`RequestedSchema`] (strictly or leniently parsed) into one
//! self-contained `<form>` element: no script, no link, no outside resource; its small
//! style sheet ([`STYLESHEET`]) inline, which [`HtmlForm::stylesheet`] leaves out. [`HtmlForm`]
//! sets what else the page shows and does: the agent asking and its message
//! ([K1](crate::rules#k1), [K4](crate::rules#k4)), where the form posts, the button labels. [`parse_submission`] reads the
//! `application/x-www-form-urlencoded` body the browser posts into content that passed
//! [`RequestedSchema::validate`] ([F3](crate::rules#f3)); [`Submission`] also tells which button was
//! pressed and gives the [`ElicitationResponse`](crate::ElicitationResponse) for it
//! ([R1](crate::rules#r1)), and [`HtmlForm::refill`] shows the page again with each error beside its field.
//!
//! ```
//! use elicit::client::html::{parse_submission, render, Submission};
//! use elicit::RequestedSchema;
//! use serde_json::json;
//!
//! let schema = RequestedSchema::from_json(&json!({
//!     "type": "object",
//!     "properties": {
//!         "passes": { "type": "integer", "title": "Passes", "minimum": 1, "maximum": 5, "default": 2 },
//!         "notify": { "type": "boolean", "title": "Notify me" }
//!     },
//!     "required": ["passes"]
//! }))?;
//! let page = render(&schema);
//! assert!(page.starts_with("<form"));
//! assert!(page.contains(r#"type="number""#) && page.contains(r#"value="2""#)); // F4
//!
//! // What a browser posts after the user typed 3 and ticked the box.
//! let body = b"f.passes=3&f.notify=false&f.notify=true&elicit-action=accept";
//! assert_eq!(parse_submission(&schema, body)?, json!({ "passes": 3, "notify": true }));
//!
//! // Out of bounds: refused, and the page again with the error beside the field.
//! let body = b"f.passes=9&f.notify=false&elicit-action=accept";
//! let errors = parse_submission(&schema, body).unwrap_err();
//! assert_eq!(errors.errors()[0].pointer(), "/passes");
//! let submission = Submission::parse(&schema, body);
//! let again = elicit::client::html::HtmlForm::new(&schema).refill(&submission).render();
//! assert!(again.contains("must be at most 5"));
//!
//! // Decline works whatever the fields hold (K1, R1).
//! let declined = Submission::parse(&schema, b"f.passes=&elicit-action=decline").response()?;
//! assert_eq!(declined.to_json(), json!({ "action": "decline" }));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # The page
//!
//! Fields come in the agent's order ([D13](crate::rules#d13)), each with a `<label for>` (a `<legend>`
//! for a group of options), its description linked by `aria-describedby`, and a
//! visible "(required)" marker. Declared defaults are pre-filled ([F4](crate::rules#f4)).
//!
//! | property | input |
//! | --- | --- |
//! | string | `type="text"`, or `email`, `url`, `date` for those formats; `date-time` is text with the expected form in the hint (a `datetime-local` input sends no UTC offset, which an RFC 3339 date-time needs) |
//! | integer, number | `type="number"` with `min`, `max`, and `step="1"` or `step="any"` |
//! | boolean | a checkbox after a hidden `false`: unchecked sends `false`, checked `true` |
//! | single select | radio buttons showing the titles and submitting the values; an optional one has a "No answer" button |
//! | multi select | a checkbox per option; the hint states `minItems`/`maxItems` |
//! | unknown type | a line saying this client cannot show it, and the accept button disabled ([E6](crate::rules#e6)) |
//!
//! Every rule is checked by [`parse_submission`], exactly; the attributes are for the
//! browser's keyboards, pickers and assistive technology. The form carries `novalidate`
//! unless [`HtmlForm::browser_checks`] turns the browser's own checks on, since a
//! browser refuses some valid answers (`type="email"` refuses quoted local parts). The
//! attributes never ask for more than the schema: `minlength` is the declared
//! `minLength` and `maxlength` (which limits typing even under `novalidate`) twice
//! `maxLength`, because HTML counts UTF-16 code units where JSON Schema counts Unicode
//! scalar values ([V1](crate::rules#v1), [D6](crate::rules#d6)). No `pattern` attribute is written: HTML anchors it and
//! compiles it with the `v` flag, JSON Schema searches unanchored ([V4](crate::rules#v4)), so the
//! pattern is stated in the hint instead.
//!
//! Decline and cancel carry `formnovalidate`, so even with the browser's checks on the
//! user can refuse a form whose required fields are empty ([K1](crate::rules#k1)).
//!
//! # What the browser sends
//!
//! Each field is named [`FIELD_PREFIX`] followed by the property name, and the button
//! pressed is [`ACTION_FIELD`] with the value `accept`, `decline` or `cancel`. The prefix
//! keeps a property called like the button from taking its place. Reading a body:
//! - an empty text, number or select leaves the key out ([D10](crate::rules#d10)): a required one is then
//!   reported missing;
//! - a boolean is the last value sent (the hidden `false`, or the checkbox's `true`);
//! - a multi select is every value sent, in order; none at all is `[]` when the
//!   property is required and leaves the key out otherwise;
//! - a number that does not parse is kept as text, so validation reports its type;
//! - names that are not fields of the form are ignored ([D9](crate::rules#d9)).
//!
//! # Styling
//!
//! The form is readable as it is: its own [`STYLESHEET`] puts each label beside its
//! input, help texts and errors under it, errors in red with an "Error:" prefix (which
//! also reads without any style), and fills the accept button. To style it with the
//! page's own CSS instead, turn it off with [`HtmlForm::stylesheet`]; the classes are
//! `elicit-form`, `elicit-header` (`elicit-agent`, `elicit-message`, `elicit-title`,
//! `elicit-description`), `elicit-problems`, `elicit-field` (with `data-kind`),
//! `elicit-option`, `elicit-option-description`, `elicit-required`, `elicit-error`,
//! `elicit-help`, `elicit-hint`, `elicit-unrenderable` and `elicit-actions`.
//!
//! # Escaping
//!
//! Every text from the agent (message, titles, descriptions, option titles and values,
//! defaults, property names, the agent's name) goes through `html-escape`, in text and
//! in double-quoted attributes alike: the renderer has no way to write it as markup.
//! Each such text is also wrapped in `<bdi>` so bidirectional controls in it cannot
//! reorder what surrounds it. Element ids come from the field's position, never from
//! its name. Nothing is a link: a URL in a text stays text ([S5](crate::rules#s5), [F7](crate::rules#f7)).

mod asker;
mod markup;
mod render;
mod submit;

pub use asker::HtmlAsker;
pub use render::{HtmlForm, STYLESHEET};
pub use submit::{Submission, SubmitAction};

use crate::content::ValidationErrors;
use crate::schema::RequestedSchema;

/// The prefix of every field's `name` in the form and the body: `f.` then the
/// property name.
pub const FIELD_PREFIX: &str = "f.";

/// The `name` of the three buttons; the value is `accept`, `decline` or `cancel`.
pub const ACTION_FIELD: &str = "elicit-action";

/// The form for `schema` with the default options (see [`HtmlForm`]): one
/// self-contained `<form>` element, every schema text escaped.
pub fn render(schema: &RequestedSchema) -> String {
    HtmlForm::new(schema).render()
}

/// The content of a submitted form (the browser's urlencoded `body`), returned only
/// when it passes [`RequestedSchema::validate`] ([F3](crate::rules#f3)). It does not look at the
/// button: use [`Submission::response`] for that.
pub fn parse_submission(
    schema: &RequestedSchema,
    body: &[u8],
) -> Result<serde_json::Value, ValidationErrors> {
    Submission::parse(schema, body).content()
}
