//! The engine behind [`elicit`](https://docs.rs/elicit): the restricted schema of an
//! elicitation form, validation that agrees with JSON Schema 2020-12, typed fields, and
//! the elicitation messages of the Agent Client Protocol (ACP) and MCP.
//!
//! Most users depend on the `elicit` crate, which re-exports this one together with
//! `#[derive(Elicit)]`.
//!
//! ```
//! use elicit_core::RequestedSchema;
//! use serde_json::json;
//!
//! // What an agent sends: a flat form of primitive properties (SPEC F1, F2).
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
//! # Ok::<(), elicit_core::SchemaError>(())
//! ```
//!
//! Modules follow the data: [`schema`] (model, strict and lenient parse, wire form,
//! lint) → [`content`] (answers and their validation) → [`protocol`] (messages) →
//! [`typed`] (the `Elicit` trait and field traits). Lower modules never use higher
//! ones.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod agent;
pub mod client;
pub mod content;
pub mod format;
pub mod pattern;
pub mod protocol;
pub mod schema;
pub mod typed;
#[cfg(feature = "url")]
mod url_safety;
pub mod vocab;

#[cfg(feature = "url")]
pub use agent::url_check::{UnsafeUrl, UrlPolicy};
#[cfg(feature = "url")]
pub use client::url_review::{UrlError, UrlReview, UrlWarning};

#[cfg(feature = "url")]
pub use agent::{CompletionError, PendingUrl, UrlRegistry, UrlState};
pub use agent::{ConnectionId, ElicitError, Elicitor, UrlOutcome, UserId};
pub use client::{check_request, AgentIdentity, CompletionTracker, FormEngine, Incoming};
pub use content::{ContentValue, ValidationError, ValidationErrors};
pub use format::Format;
pub use protocol::{
    Action, CompleteElicitation, CreateElicitation, ElicitationCapabilities, ElicitationResponse,
    Mode, ResponseError, Scope,
};
pub use schema::{
    Finding, FindingKind, Limits, ParseMode, ParseOptions, Property, PropertyKind, PropertySchema,
    RequestedSchema, SchemaError, SchemaErrorKind, SchemaIssue, Violation,
};
pub use typed::{Elicit, Elicited, Field, SelectOption};

#[doc(hidden)]
pub use typed::private as __private;
