//! The client side: what a client checks and shows before it asks its user, and what
//! it remembers after.
//!
//! - [`check_request`]: whether an `elicitation/create` can be honoured, or the
//!   `-32602` error to answer with ([C8](crate::rules#c8), [D1](crate::rules#d1), [E6](crate::rules#e6)).
//! - [`FormEngine`]: the state of a form-mode dialog: fields in order, defaults,
//!   answers checked as they are set, review, and the response ([F3](crate::rules#f3), [F4](crate::rules#f4), [K1](crate::rules#k1), [K2](crate::rules#k2), [K4](crate::rules#k4)).
//! - `UrlReview` (feature `url`): what to show before opening a URL-mode
//!   elicitation ([S2](crate::rules#s2)-S5, [K3](crate::rules#k3)).
//! - `html` (feature `html`): a form as a self-contained HTML `<form>`, and the
//!   browser's urlencoded answer read back into validated content.
//! - `terminal` (feature `inquire`): an [`Asker`] for a person at a terminal.
//! - `tui` (feature `ratatui`): a form widget and URL consent for full-screen terminal
//!   applications on ratatui, and an [`Asker`] that hands them its questions.
//! - [`terminal_text`]: agent text made safe to print at a terminal, for every asker
//!   and client that prints it (no feature needed).
//! - [`readable_label`]: what to call a field the agent gave no `title`.
//! - [`ClientEngine`]: all of the above in one call: a request in, the person asked
//!   through an [`Asker`] (a terminal, a GUI, a web page, a [`ScriptedAsker`]), the
//!   response or the JSON-RPC error out, under a [`ClientPolicy`] (deadline, never ask).
//! - [`CompletionTracker`]: which `elicitation/complete` notifications to act on ([U6](crate::rules#u6)).
//!
//! ```
//! use elicit::client::{check_request, AgentIdentity, FormEngine, Incoming};
//! use elicit::protocol::ElicitationCapabilities;
//! use serde_json::json;
//!
//! // What this client declared in `initialize`.
//! let caps = ElicitationCapabilities::from_json(Some(&json!({ "form": {} })));
//! let params = json!({
//!     "mode": "form", "sessionId": "s1", "message": "Proceed with the deploy?",
//!     "requestedSchema": { "type": "object", "properties": {
//!         "confirm": { "type": "boolean", "title": "Deploy now", "default": false }
//!     } }
//! });
//! let request = match check_request(&caps, &params) {
//!     Ok(Incoming::Form(request)) => request,
//!     Ok(_) => unreachable!("a form-mode request"),
//!     Err(error) => panic!("answer with {}", error.to_json()),
//! };
//! let mut form = FormEngine::from_request(&request, AgentIdentity::new("deploy-bot"))?;
//! form.set_text("confirm", "yes")?;
//! let answer = form.submit()?;
//! assert_eq!(answer.to_json(), json!({ "action": "accept", "content": { "confirm": true } }));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod asker;
mod check;
mod form;
#[cfg(feature = "html")]
#[cfg_attr(docsrs, doc(cfg(feature = "html")))]
pub mod html;
mod identity;
mod label;
mod respond;
mod scripted;
#[cfg(feature = "inquire")]
#[cfg_attr(docsrs, doc(cfg(feature = "inquire")))]
pub mod terminal;
pub mod terminal_text;
mod tracker;
#[cfg(feature = "ratatui")]
#[cfg_attr(docsrs, doc(cfg(feature = "ratatui")))]
pub mod tui;
#[cfg(feature = "url")]
mod url_review;

#[cfg(feature = "url")]
pub use crate::url_error::InvalidUrl;
#[cfg(feature = "url")]
pub use crate::url_safety::UrlPart;
#[allow(deprecated)]
pub use asker::Notice;
pub use asker::{
    AskFuture, Asker, AskerNotice, FieldAnswer, FieldPrompt, FormAnswer, FormPrompt, Intro,
    ReviewChoice, ReviewPrompt, StopSignal,
};
#[cfg(feature = "url")]
pub use asker::{Consent, ConsentPrompt};
pub use check::{check_request, check_request_with, Incoming};
pub use form::{
    Choice, FieldError, FieldErrorKind, FieldKind, FormEngine, FormError, FormField, Review,
    ReviewEntry, UnknownField,
};
pub use identity::AgentIdentity;
pub use label::{readable_label, readable_name};
#[allow(deprecated)]
pub use respond::Responder;
pub use respond::{ClientEngine, ClientPolicy};
pub use scripted::{ScriptedAsker, Shown, Step};
pub use tracker::{Completion, CompletionTracker, Ignored};
#[cfg(feature = "url")]
pub use url_review::{UrlError, UrlReview, UrlWarning, MAX_REVIEWABLE_LENGTH};
