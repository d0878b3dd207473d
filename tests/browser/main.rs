//! Tests in a real browser: a headless Chromium, driven over WebDriver by `chromedriver`,
//! loads pages from a server the test starts on loopback (see `harness`). Without
//! Chromium and ChromeDriver the tests say they were skipped and pass, except on CI (the
//! `CI` environment variable set), where they fail. Run with
//! `cargo test --features html --test browser`.

mod harness;

mod html_form;
