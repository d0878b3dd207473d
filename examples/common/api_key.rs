//! The form the `save_api_key` tool of `examples/mcp_server.rs` asks for on the secure
//! page, and its message: in a file of their own so that `benches/relay_load.rs`, which
//! measures that tool's path, asks for the very same form (both include it with
//! `#[path]`).

use elicit::Elicit;

/// The API key `save_api_key` asks for on the secure page.
#[derive(Elicit)]
#[elicit(url_mode, title = "Your API key")]
pub struct ApiKey {
    /// The API key of your account, from its settings page
    #[elicit(title = "API key", min_length = 16, max_length = 200)]
    pub api_key: String,
}

/// The page's text for it (no link in it: the client shows the URL itself).
pub const API_KEY_MESSAGE: &str = "Enter your API key on the server's secure page.";
