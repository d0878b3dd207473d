//! Typed, validated elicitation for the Agent Client Protocol (ACP), and for MCP where
//! the two share a data model.
//!
//! An agent describes the form it needs as a Rust type; the schema is a compile-time
//! constant and the answer comes back parsed and fully validated.
//!
//! ```
//! use elicit::{Elicit, Elicited, ElicitationResponse};
//! use serde_json::json;
//!
//! /// How should I approach this refactor?
//! #[derive(Elicit, Debug, PartialEq)]
//! struct Refactor {
//!     /// Strategy to follow
//!     strategy: Strategy,
//!     #[elicit(title = "Passes", minimum = 1, maximum = 5, default = 2)]
//!     passes: u8,
//!     #[elicit(format = "email")]
//!     notify: Option<String>,
//! }
//!
//! #[derive(Elicit, Debug, PartialEq)]
//! enum Strategy {
//!     #[elicit(title = "Conservative")]
//!     Conservative,
//!     Balanced,
//!     Aggressive,
//! }
//!
//! // The schema to send, built at compile time.
//! let schema = Refactor::requested_schema().as_json();
//! assert_eq!(schema["properties"]["passes"]["maximum"], 5);
//!
//! // The client's answer, validated and parsed.
//! let response = ElicitationResponse::from_json(&json!({
//!     "action": "accept",
//!     "content": { "strategy": "Balanced", "passes": 3 }
//! }))?;
//! match Refactor::from_response(&response)? {
//!     Elicited::Accepted(r) => assert_eq!(r.passes, 3),
//!     Elicited::Declined | Elicited::Cancelled => unreachable!("the user accepted"),
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub use elicit_core::*;
pub use elicit_derive::Elicit;
