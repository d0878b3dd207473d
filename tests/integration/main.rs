//! The facade's integration tests, in one binary so that the shared helpers and the
//! derive-heavy forms compile once: the schema model, validation, the derive, the
//! protocol messages, and the agent and client sides.

#[path = "../common/mod.rs"]
mod common;
#[path = "../forms/mod.rs"]
mod forms;
#[path = "../protocol_support/mod.rs"]
mod protocol_support;

mod acp_client;
mod acp_forward;
mod acp_sdk;
mod agent_elicitor;
mod agent_instances;
mod agent_registry;
mod client_check;
mod client_form;
mod client_html;
mod client_respond;
mod client_tracker;
mod client_tui;
mod content_validate;
mod derive_default;
mod derive_key_order;
mod derive_proptest;
mod derive_schema;
mod mcp_titled_select;
mod naming;
mod protocol_acp;
mod protocol_capabilities;
mod protocol_create;
mod protocol_mcp;
mod protocol_response;
mod protocol_roundtrip;
mod redis_page;
mod redis_relay_attacks;
mod redis_route;
mod rmcp;
mod rmcp_client;
mod rmcp_client_ts;
mod rmcp_client_versions;
mod rmcp_dialog;
mod rmcp_input_state;
mod rmcp_rounds;
mod schema_lint;
mod schema_parse;
mod schema_wire;
mod url_page;
mod url_page_attacks;
mod url_page_router;
mod url_page_standalone;
