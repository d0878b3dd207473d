//! The examples, run as their users run them: over stdio, driven by a real client.

#[path = "../common/mod.rs"]
mod common;
#[path = "../protocol_support/mod.rs"]
mod protocol_support;

mod acp_agent;
mod acp_client;
mod acp_mcp_agent;
mod acp_mcp_agent_http;
mod acp_proxy;
mod conformance_server;
mod mcp_client;
mod mcp_fleet;
mod mcp_http;
mod mcp_server;
mod mcp_server_http;
mod mcp_server_limits;
mod mcp_server_ts;
mod terminal_client;
mod terminal_tmux;
mod three_hops;
mod tui_tmux;
mod url_secret_agent;
