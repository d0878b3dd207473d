//! Runs `examples/mcp_client.rs` as its users do, against `examples/mcp_server.rs`
//! started by it as a child process over stdio: the answers typed on stdin, every tool
//! result read from stdout. Bounded by a timeout; the children die with the client.
#![cfg(all(feature = "rmcp_3", feature = "url"))]

use std::io::Write;
use std::process::{Command, Stdio};
use std::time::Duration;

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
    let output = common::wait_bounded(child, Duration::from_secs(60));
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

/// A tmux server of the test's own (its own socket), killed with the test.
#[cfg(feature = "inquire")]
struct Tmux {
    socket: String,
}

#[cfg(feature = "inquire")]
impl Tmux {
    /// Starts `command` in a detached 120×40 session; `None` (skipped) without tmux,
    /// unless `CI` is set.
    fn start(command: &str) -> Option<Tmux> {
        let present = Command::new("tmux")
            .arg("-V")
            .output()
            .is_ok_and(|o| o.status.success());
        if !present {
            assert!(
                std::env::var_os("CI").is_none(),
                "tmux is missing: run .ci/mcp-ts before the tests"
            );
            eprintln!("skipped: tmux is missing (run .ci/mcp-ts)");
            return None;
        }
        let tmux = Tmux {
            socket: format!("elicit-mcp-client-{}", std::process::id()),
        };
        tmux.run(&[
            "new-session",
            "-d",
            "-s",
            "t",
            "-x",
            "120",
            "-y",
            "40",
            command,
        ]);
        Some(tmux)
    }

    fn run(&self, args: &[&str]) -> String {
        let output = Command::new("tmux")
            .args(["-L", &self.socket])
            .args(args)
            .output()
            .expect("tmux runs");
        String::from_utf8_lossy(&output.stdout).into_owned()
    }

    fn keys(&self, keys: &[&str]) {
        for key in keys {
            self.run(&["send-keys", "-t", "t", key]);
        }
    }

    /// The screen and its history, wrapped lines joined.
    fn screen(&self) -> String {
        self.run(&["capture-pane", "-p", "-J", "-S", "-", "-t", "t"])
    }

    /// Waits (at most 30 s) until the screen shows `text`; returns the screen.
    fn wait_for(&self, text: &str) -> String {
        let started = std::time::Instant::now();
        loop {
            let screen = self.screen();
            if screen.contains(text) {
                return screen;
            }
            assert!(
                started.elapsed() < Duration::from_secs(30),
                "the terminal never showed {text:?}:\n{screen}"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

#[cfg(feature = "inquire")]
impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .args(["-L", &self.socket, "kill-server"])
            .output();
    }
}

// covers: F4, K1, K2, R1
#[cfg(feature = "inquire")]
#[test]
fn at_a_terminal_the_terminal_asker_puts_the_questions() {
    let client = common::build_example("mcp_client");
    let server = common::build_example("mcp_server");
    let command = format!(
        "NO_COLOR=1 '{}' --protocol 2025-11-25 -- '{}'; echo EXIT=$?; sleep 60",
        client.display(),
        server.display()
    );
    let Some(tmux) = Tmux::start(&command) else {
        return;
    };
    // The tool is picked on a line; the form is the terminal asker's (inquire's list
    // for the select, its text prompts, its review).
    tmux.wait_for("tool (number or name");
    tmux.keys(&["1", "Enter"]);
    tmux.wait_for("arguments as a JSON object");
    tmux.keys(&["{\"task\":\"Tidy\"}", "Enter"]);
    let screen = tmux.wait_for("[1/4] Strategy");
    assert!(
        screen.contains("elicit-mcp-server"),
        "who asks (K1):\n{screen}"
    );
    tmux.keys(&["Down", "Enter"]);
    tmux.wait_for("[2/4]");
    tmux.keys(&["Enter"]); // the default kept (F4)
    tmux.wait_for("[3/4]");
    tmux.keys(&["bob@example.com", "Enter"]);
    tmux.wait_for("[4/4]");
    tmux.keys(&["Enter"]);
    tmux.wait_for("Send these answers?");
    tmux.keys(&["Enter"]);
    let screen = tmux.wait_for("EXIT=");
    assert!(screen.contains("EXIT=0"), "{screen}");
    assert!(
        screen.contains("strategy Balanced")
            && screen.contains("2 review pass(es)")
            && screen.contains("notify bob@example.com"),
        "{screen}"
    );
}
