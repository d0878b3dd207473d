//! The examples, run as their users run them: over stdio, driven by a real client.

#[path = "../common/mod.rs"]
mod common;

mod acp_agent;
mod terminal_client;
