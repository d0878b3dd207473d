//! Runs `examples/acp_client.rs` as its users do, with `--accept-defaults`, against the
//! example agents it starts as children over stdio: the agent's answer to the turn is
//! read from the client's stdout. Bounded by a timeout; the agents die with the client.
#![cfg(all(
    feature = "agent-client-protocol",
    feature = "inquire",
    feature = "url"
))]

use std::process::{Command, Stdio};
use std::time::Duration;

use crate::common;

/// Runs the client with `args` against the example agent `agent`; its stdout and
/// exit success.
fn run_client(args: &[&str], agent: &str) -> (String, bool) {
    let client = common::build_example("acp_client");
    let agent = common::build_example(agent);
    let child = Command::new(client)
        .args(args)
        .arg("--")
        .arg(agent)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("the client starts");
    let output = common::wait_bounded(child, Duration::from_secs(60));
    (
        String::from_utf8_lossy(&output.stdout).into_owned(),
        output.status.success(),
    )
}

/// `acp_agent`'s form has a required field without a default (`strategy`): a headless
/// client declines it, and the agent says so.
// covers: C1, R1
#[test]
fn accept_defaults_declines_a_form_it_cannot_fill_and_the_agent_says_so() {
    let (stdout, ok) = run_client(&["--accept-defaults"], "acp_agent");
    assert!(ok, "{stdout}");
    assert!(
        stdout.contains("You declined to give a plan, so I did not start the task."),
        "{stdout}"
    );
}

/// `url_secret_agent` asks in URL mode, which a headless client declines; `--prompt`
/// chooses the text of the turn.
// covers: R1, U2
#[cfg(feature = "axum")]
#[test]
fn accept_defaults_declines_url_mode_and_the_agent_says_so() {
    let (stdout, ok) = run_client(
        &["--accept-defaults", "--prompt", "Connect"],
        "url_secret_agent",
    );
    assert!(ok, "{stdout}");
    assert!(
        stdout.contains("You declined to connect the account."),
        "{stdout}"
    );
}

/// Without a command there is nothing to connect to: the usage, exit status 2.
#[test]
fn without_an_agent_the_client_prints_its_usage() {
    let client = common::build_example("acp_client");
    let output = Command::new(client)
        .arg("--accept-defaults")
        .output()
        .expect("the client runs");
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("usage: acp_client"));
}
