//! The guide: the path each kind of user takes, each page with the complete `Cargo.toml`
//! lines (elicit's features and the SDK's own) and a complete program.
//!
//! | you write | page | example in the repository |
//! | --- | --- | --- |
//! | an ACP agent on the official ACP SDK | [`acp_agent`] | `acp_agent`, `url_secret_agent` |
//! | an MCP server on rmcp (`#[tool_router]`/`#[tool]`) | [`mcp_server`] | `mcp_server` |
//! | a client: terminal, full-screen terminal, web page, GUI | [`client`] | `mcp_client`, `acp_client`, `tui_client` |
//! | a server deployed remotely: the secure page, several instances, Redis | [`remote`] | `mcp_server --http`, `conformance_server` |
//!
//! The form itself is a Rust type in every case: see the [derive's reference](crate::Elicit)
//! for its attributes.
//!
//! The pages' programs are compiled as doctests with the features they name, and the
//! repository's copy-paste check (`tests/copy_paste/check.py`) builds each one in a crate
//! of its own with exactly the page's `Cargo.toml` lines.

/// Building without the features a page needs shows this instead of its text.
macro_rules! page {
    ($(#[$meta:meta])* $name:ident, $file:literal, $($feature:literal),+) => {
        $(#[$meta])*
        #[cfg_attr(all($(feature = $feature),+), doc = include_str!($file))]
        #[cfg_attr(
            not(all($(feature = $feature),+)),
            doc = concat!(
                "This page's program needs the features ",
                $("`", $feature, "` ",)+
                "(docs.rs builds with every feature)."
            )
        )]
        pub mod $name {}
    };
}

page!(
    acp_agent,
    "guide/acp_agent.md",
    "agent-client-protocol",
    "url"
);
page!(mcp_server, "guide/mcp_server.md", "rmcp_3");
page!(
    client,
    "guide/client.md",
    "rmcp_3",
    "inquire",
    "ratatui",
    "html",
    "agent-client-protocol"
);
page!(remote, "guide/remote.md", "rmcp_3", "axum", "redis");
