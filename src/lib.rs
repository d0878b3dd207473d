//! Typed, validated elicitation for the Agent Client Protocol (ACP), and for MCP where
//! the two share a data model.
//!
//! ```
//! use elicit::RequestedSchema;
//! use serde_json::json;
//!
//! let schema = RequestedSchema::from_json(&json!({
//!     "type": "object",
//!     "properties": { "passes": { "type": "integer", "minimum": 1, "maximum": 5 } },
//!     "required": ["passes"]
//! }))?;
//! assert!(schema.validate(&json!({ "passes": 3.0 })).is_ok());
//! assert!(schema.validate(&json!({ "passes": 9 })).is_err());
//! # Ok::<(), elicit::SchemaError>(())
//! ```
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub use elicit_core::*;
