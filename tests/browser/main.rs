//! Tests in a real browser: a headless Chromium, driven over WebDriver by `chromedriver`,
//! loads pages from a server the test starts on loopback (see `harness`). Without
//! Chromium and ChromeDriver the tests say they were skipped and pass, except on CI (the
//! `CI` environment variable set), where they fail. Run with
//! `cargo test --features html,axum,agent-client-protocol --test browser` (with
//! `--features html` alone, the tests of the agent's secure page are left out).

#[cfg(all(feature = "axum", feature = "agent-client-protocol"))]
#[path = "../common/mod.rs"]
mod common;
mod harness;

mod html_form;
#[cfg(all(feature = "axum", feature = "agent-client-protocol"))]
mod url_page;
