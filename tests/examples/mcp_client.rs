//! Runs `examples/mcp_client.rs` as its users do, against `examples/mcp_server.rs`
//! started by it as a child process over stdio: the answers typed on stdin, every tool
//! result read from stdout. Bounded by a timeout; the children die with the client.
#![cfg(all(feature = "rmcp_3", feature = "url"))]

use std::io::Write;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::common;

/// Runs the client with `args`, `input` on its stdin; its stdout and exit success.
///
/// The protocol is pinned to 2025-11-25, the version `mcp_server` is written for: rmcp
/// answers its `server/discover` with 2026-07-28 too, but that server elicits with
/// `elicitation/create` requests and reads the capability from `initialize`, neither of
/// which a 2026-07-28 connection has.
fn run_client(args: &[&str], input: &str) -> (String, bool) {
    let client = common::build_example("mcp_client");
    let server = common::build_example("mcp_server");
    let mut child = Command::new(client)
        .args(["--protocol", "2025-11-25"])
        .args(args)
        .arg("--")
        .arg(server)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("the client starts");
    child
        .stdin
        .take()
        .expect("piped stdin")
        .write_all(input.as_bytes())
        .expect("the answers are written");
    let started = Instant::now();
    loop {
        if child.try_wait().expect("the client's status").is_some() {
            break;
        }
        if started.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            panic!("the client did not finish within 60 s");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let output = child.wait_with_output().expect("the client's output");
    (
        String::from_utf8_lossy(&output.stdout).into_owned(),
        output.status.success(),
    )
}

// covers: D13, F3, F4, K2, R1
#[test]
fn a_person_picks_plan_task_and_answers_its_form_line_by_line() {
    // The tool by number, its arguments, the second option by number, the default
    // kept, an email, the default kept, then send.
    let input = "1\n{\"task\":\"Tidy\"}\n2\n\nbob@example.com\n\nsend\n";
    let (stdout, ok) = run_client(&[], input);
    assert!(ok, "{stdout}");
    assert!(
        stdout.contains("strategy Balanced")
            && stdout.contains("2 review pass(es)")
            && stdout.contains("notify bob@example.com"),
        "{stdout}"
    );
}

// covers: R1, U2, S2
#[test]
fn accept_defaults_calls_every_tool_without_required_arguments_and_declines_url_mode() {
    let (stdout, ok) = run_client(&["--accept-defaults", "--call-all"], "");
    assert!(ok, "{stdout}");
    // plan_task needs a `task`: not called; connect_account (URL mode) is declined.
    assert!(!stdout.contains("plan_task"), "{stdout}");
    assert!(
        stdout.contains("connect_account") && stdout.contains("declined"),
        "{stdout}"
    );
}
