//! The engine behind [`elicit-acp`](https://docs.rs/elicit-acp): the restricted schema of an
//! elicitation form, validation that agrees with JSON Schema 2020-12, typed fields, and
//! the elicitation messages of the Agent Client Protocol (ACP) and MCP.
//!
//! Most users depend on the `elicit-acp` package (library `elicit`), which re-exports
//! this one together with `#[derive(Elicit)]` and pins both to the same version.
//!
//! ```
//! use elicit::RequestedSchema;
//! use serde_json::json;
//!
//! // What an agent sends: a flat form of primitive properties (rules F1 and F2).
//! let schema = RequestedSchema::from_json(&json!({
//!     "type": "object",
//!     "properties": {
//!         "name": { "type": "string", "title": "Your name", "minLength": 1 },
//!         "passes": { "type": "integer", "minimum": 1, "maximum": 5, "default": 2 }
//!     },
//!     "required": ["name"]
//! }))?;
//!
//! // What comes back, checked the way a JSON Schema validator would (V1-V7).
//! assert!(schema.validate(&json!({ "name": "Ada", "passes": 3 })).is_ok());
//! let errors = schema.validate(&json!({ "name": "", "passes": 9 })).unwrap_err();
//! assert_eq!(errors.len(), 2);
//! println!("{errors}");
//! # Ok::<(), elicit::SchemaError>(())
//! ```
//!
//! Modules follow the data: [`schema`] (model, strict and lenient parse, wire form,
//! lint) → [`content`] (answers and their validation) → [`protocol`] (messages) →
//! [`typed`] (the `Elicit` trait and field traits) → [`agent`] and [`client`], the two
//! sides. Lower modules never use higher ones. [`rules`] states every rule the docs
//! cite by id.
#![forbid(unsafe_code)]
#![deny(missing_docs)]
// Some links name their target although it resolves here (`[`Elicitor`](crate::Elicitor)):
// the facade re-exports these pages, and there a bare `[`Elicitor`]` renders as raw text.
#![allow(rustdoc::redundant_explicit_links)]
#![cfg_attr(docsrs, feature(doc_cfg))]

pub mod agent;
#[cfg(feature = "agent-client-protocol")]
#[cfg_attr(docsrs, doc(cfg(feature = "agent-client-protocol")))]
pub mod agent_client_protocol;
#[cfg(feature = "axum")]
#[cfg_attr(docsrs, doc(cfg(feature = "axum")))]
pub mod axum;
#[cfg(all(feature = "agent-client-protocol", feature = "url"))]
#[cfg_attr(
    docsrs,
    doc(cfg(all(feature = "agent-client-protocol", feature = "url")))
)]
pub mod bridge;
pub mod client;
pub mod content;
pub mod protocol;
#[cfg(feature = "rmcp_3")]
#[cfg_attr(docsrs, doc(cfg(feature = "rmcp_3")))]
pub mod rmcp;
pub mod rules;
pub mod schema;
pub mod typed;

// Internals: reached from the public modules and from `__private` only.
mod format;
mod hidden_chars;
mod pattern;
mod store;
#[cfg(feature = "url")]
mod url_error;
#[cfg(feature = "url")]
mod url_safety;
mod vocab;

#[cfg(test)]
mod layers;

// The names an author needs first; everything else is in its module.
#[allow(deprecated)]
pub use agent::ElicitError;
pub use agent::{Elicitor, RefusedError};
#[cfg(feature = "url")]
pub use client::{UrlError, UrlReview, UrlWarning};
pub use content::ValidationErrors;
pub use protocol::{
    Action, CreateElicitation, ElicitationCapabilities, ElicitationResponse, Mode, Scope,
};
pub use schema::{RequestedSchema, SchemaError};
pub use typed::{Elicit, Elicited};

/// What `#[derive(Elicit)]` needs, at compile time (the macro calls the same rules the
/// runtime applies) and in the code it generates. Not a public API: it changes without
/// notice, which is why the facade pins `elicit-derive` and `elicit-core` exactly.
#[doc(hidden)]
pub mod __private {
    pub use crate::typed::private::*;
    pub use crate::vocab::{find_secret, SecretHit, SecretKind};
}
