//! Runs `examples/mcp_client.rs` as its users do, at its default protocol version (the
//! newest both sides speak), as the README's commands run it:
//! - against `examples/mcp_server.rs` started by it as a child process over stdio, the
//!   answers typed on stdin, every tool result read from stdout. The server is started
//!   through `tee` on both of its pipes, so the test reads what the server received
//!   (the version offered, the `elicitation` capability and its shape) and what it
//!   answered (its versions), whichever versions it speaks;
//! - with the feature `axum`, against `examples/conformance_server.rs` (rmcp's
//!   default: MCP 2026-07-28) over Streamable HTTP, through the recording proxy of
//!   `mcp_http.rs`.
//!
//! Bounded by timeouts; the children die with the client.
#![cfg(all(feature = "rmcp_3", feature = "url"))]

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::{json, Value};

use crate::common;

/// What one run of the client left: its stdout and stderr, whether it exited with
/// success, and the messages the server received and sent.
struct Run {
    stdout: String,
    stderr: String,
    ok: bool,
    to_server: Vec<Value>,
    from_server: Vec<Value>,
}

impl std::fmt::Debug for Run {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "stdout:\n{}\nstderr:\n{}", self.stdout, self.stderr)
    }
}

/// The JSON-RPC messages of a file of lines.
fn messages(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}")))
        .collect()
}

/// Runs the client with `args` (no `--protocol` unless given) against `mcp_server`
/// over stdio, `input` on its stdin.
fn run_client(args: &[&str], input: &str) -> Run {
    let client = common::build_example("mcp_client");
    let server = common::build_example("mcp_server");
    let folder = std::env::temp_dir().join(format!(
        "elicit-mcp-client-{}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos())
    ));
    std::fs::create_dir_all(&folder).expect("a scratch folder");
    let (to_server, from_server) = (folder.join("to_server"), folder.join("from_server"));
    let mut child = Command::new(client)
        .args(args)
        .args(["--", "sh", "-c", r#"tee "$1" | "$2" | tee "$3""#, "sh"])
        .args([&to_server, &server, &from_server])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the client starts");
    child
        .stdin
        .take()
        .expect("piped stdin")
        .write_all(input.as_bytes())
        .expect("the answers are written");
    let output = common::wait_bounded(child, Duration::from_secs(60));
    let run = Run {
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        ok: output.status.success(),
        to_server: messages(&to_server),
        from_server: messages(&from_server),
    };
    let _ = std::fs::remove_dir_all(&folder);
    run
}

/// The version the client must settle on with a server that answered
/// `server/discover` with `answer`: 2026-07-28 when the server lists it; else the
/// newest with `initialize` the server lists (rmcp's `-32022` refusal names them);
/// 2025-11-25 when it names none.
fn expected_version(answer: &Value) -> String {
    let listed = answer["result"]["supportedVersions"]
        .as_array()
        .or_else(|| answer["error"]["data"]["supported"].as_array());
    let Some(listed) = listed else {
        return "2025-11-25".into();
    };
    let known = [
        "2026-07-28",
        "2025-11-25",
        "2025-06-18",
        "2025-03-26",
        "2024-11-05",
    ];
    known
        .iter()
        .find(|version| listed.iter().any(|v| v == **version))
        .map_or_else(
            || panic!("no version in common: {answer}"),
            |v| (*v).to_owned(),
        )
}

/// The `elicitation` capability of version `version` for a client that renders form
/// and URL mode: `{}` up to 2025-06-18, each mode from 2025-11-25.
fn capability_of(version: &str) -> Value {
    if version <= "2025-06-18" {
        json!({})
    } else {
        json!({ "form": {}, "url": {} })
    }
}

/// The client at its default opened with `server/discover`, settled on the newest
/// version both sides speak, told the person so, and declared its capability to the
/// server in that version's shape. Returns the version.
fn assert_newest_version_spoken(run: &Run) -> String {
    let discover = &run.to_server[0];
    assert_eq!(discover["method"], "server/discover", "{run:?}");
    let answer = run
        .from_server
        .iter()
        .find(|m| m["id"] == discover["id"] && m.get("method").is_none())
        .unwrap_or_else(|| panic!("the server answered server/discover: {run:?}"));
    let version = expected_version(answer);
    assert!(
        run.stderr.contains(&format!(
            "connected to elicit-mcp-server (protocol {version})"
        )),
        "{run:?}"
    );
    let initialize = run.to_server.iter().find(|m| m["method"] == "initialize");
    if version == "2026-07-28" {
        assert!(initialize.is_none(), "no initialize in 2026-07-28: {run:?}");
        for call in run.to_server.iter().filter(|m| m["method"] == "tools/call") {
            assert_eq!(
                call["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"]
                    ["elicitation"],
                capability_of(&version),
            );
        }
    } else {
        let initialize = initialize.unwrap_or_else(|| panic!("initialize: {run:?}"));
        assert_eq!(initialize["params"]["protocolVersion"], version.as_str());
        assert_eq!(
            initialize["params"]["capabilities"]["elicitation"],
            capability_of(&version),
            "the capability in the shape of {version}"
        );
    }
    version
}

// covers: C1, D13, F3, F4, K2, R1
#[test]
fn a_person_picks_plan_task_and_answers_its_form_line_by_line() {
    // The tool by number, its arguments, the second option by number, the default
    // kept, an email, the default kept, then send.
    let input = "1\n{\"task\":\"Tidy\"}\n2\n\nbob@example.com\n\nsend\n";
    let run = run_client(&[], input);
    assert!(run.ok, "{run:?}");
    assert_newest_version_spoken(&run);
    let stdout = &run.stdout;
    assert!(
        stdout.contains("strategy Balanced")
            && stdout.contains("2 review pass(es)")
            && stdout.contains("notify bob@example.com"),
        "{run:?}"
    );
}

// covers: C1, R1, U2, S2
#[test]
fn accept_defaults_calls_every_tool_without_required_arguments_and_declines_url_mode() {
    // The README's headless command, at the client's default version.
    let run = run_client(&["--accept-defaults", "--call-all"], "");
    assert!(run.ok, "{run:?}");
    assert_newest_version_spoken(&run);
    // plan_task needs a `task`: not called; connect_account (URL mode) is declined.
    assert!(!run.stdout.contains("plan_task"), "{run:?}");
    assert!(
        run.stdout.contains("connect_account") && run.stdout.contains("declined"),
        "{run:?}"
    );
}

// covers: C1, M2, F4, R1
#[test]
fn an_explicit_protocol_is_the_one_offered_in_its_shape() {
    // 2025-06-18, asked for: `initialize` offers it with `{}` (form, its only mode),
    // and the form the server pushes is answered.
    let input = "1\n{\"task\":\"Tidy\"}\n2\n\nbob@example.com\n\nsend\n";
    let run = run_client(&["--protocol", "2025-06-18"], input);
    assert!(run.ok, "{run:?}");
    assert_eq!(run.to_server[0]["method"], "initialize", "{run:?}");
    assert_eq!(run.to_server[0]["params"]["protocolVersion"], "2025-06-18");
    assert_eq!(
        run.to_server[0]["params"]["capabilities"]["elicitation"],
        json!({})
    );
    assert!(
        run.stderr
            .contains("connected to elicit-mcp-server (protocol 2025-06-18)"),
        "{run:?}"
    );
    assert!(
        run.stdout.contains("strategy Balanced") && run.stdout.contains("2 review pass(es)"),
        "{run:?}"
    );
}

#[test]
fn an_unknown_protocol_version_is_refused_with_the_ones_it_speaks() {
    let output = Command::new(common::build_example("mcp_client"))
        .args(["--protocol", "2025-13-01", "--", "true"])
        .stdin(Stdio::null())
        .output()
        .expect("the client runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(
            "unknown protocol version \"2025-13-01\": use one of 2024-11-05, \
                         2025-03-26, 2025-06-18, 2025-11-25, 2026-07-28"
        ),
        "{stderr}"
    );
}

// covers: C1, R1, U2
#[cfg(feature = "axum")]
#[tokio::test]
async fn at_its_default_it_reaches_mcp_server_over_http_on_one_connection() {
    use crate::mcp_http::{Instance, Proxy};
    use crate::protocol_support::rmcp_wire::{bounded, Side};

    let instance = Instance::start(&[]).await;
    let proxy = Proxy::start(instance.addr).await;
    let client = tokio::process::Command::new(common::build_example("mcp_client"))
        .args(["--accept-defaults", "--call", "connect_account"])
        .arg(proxy.mcp_url())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("the client starts");
    let output = bounded("the client", client.wait_with_output())
        .await
        .expect("the client's output");
    let side = |wanted: Side| -> Vec<Value> {
        proxy
            .wire
            .messages()
            .into_iter()
            .filter(|(side, _)| *side == wanted)
            .map(|(_, m)| m)
            .collect()
    };
    let run = Run {
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        ok: output.status.success(),
        to_server: side(Side::Client),
        from_server: side(Side::Server),
    };
    assert!(run.ok, "{run:?}");
    assert_newest_version_spoken(&run);
    // One discovery: whatever the server answered, the client went on from there
    // (no second connection).
    let discovers = run
        .to_server
        .iter()
        .filter(|m| m["method"] == "server/discover")
        .count();
    assert_eq!(discovers, 1, "{:?}", run.to_server);
    assert!(run.stdout.contains("declined to connect"), "{run:?}");
}

// covers: C1, M6, F4, R1
#[cfg(feature = "axum")]
#[tokio::test]
async fn at_its_default_it_speaks_2026_07_28_with_a_current_server_over_http() {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

    use crate::mcp_http::Proxy;
    use crate::protocol_support::rmcp_wire::{bounded, Side};

    // conformance_server, as it is: rmcp's default versions, 2026-07-28 the newest.
    let mut server = tokio::process::Command::new(common::build_example("conformance_server"))
        .arg("0")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .kill_on_drop(true)
        .spawn()
        .expect("the server starts");
    let mut lines = BufReader::new(server.stdout.take().expect("piped stdout")).lines();
    let url = bounded("the server's URL", lines.next_line())
        .await
        .expect("the server's stdout")
        .expect("the server prints its URL");
    let upstream = url
        .strip_prefix("http://")
        .and_then(|rest| rest.strip_suffix("/mcp"))
        .and_then(|addr| addr.parse().ok())
        .unwrap_or_else(|| panic!("not `http://ADDR/mcp`: {url:?}"));
    let proxy = Proxy::start(upstream).await;

    let mut client = tokio::process::Command::new(common::build_example("mcp_client"))
        .args(["--call", "test_input_required_result_elicitation"])
        .arg(proxy.mcp_url())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("the client starts");
    // The name, then send.
    let mut stdin = client.stdin.take().expect("piped stdin");
    stdin.write_all(b"Ada\nsend\n").await.expect("the answers");
    drop(stdin);
    let output = bounded("the client", client.wait_with_output())
        .await
        .expect("the client's output");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stdout}\n{stderr}");
    assert!(
        stderr.contains("connected to elicit-conformance-server (protocol 2026-07-28)"),
        "{stderr}"
    );
    assert!(stdout.contains("Hello, Ada!"), "{stdout}\n{stderr}");

    // What the server received: discovery, no initialize, and the capability with
    // each request; the answer inside the retry.
    let received: Vec<Value> = proxy
        .wire
        .messages()
        .into_iter()
        .filter(|(side, _)| *side == Side::Client)
        .map(|(_, m)| m)
        .collect();
    assert_eq!(received[0]["method"], "server/discover", "{received:?}");
    assert!(received.iter().all(|m| m["method"] != "initialize"));
    let calls: Vec<&Value> = received
        .iter()
        .filter(|m| m["method"] == "tools/call")
        .collect();
    assert_eq!(calls.len(), 2, "the call and its retry: {received:?}");
    for call in &calls {
        assert_eq!(
            call["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"]["elicitation"],
            json!({ "form": {}, "url": {} })
        );
    }
    assert_eq!(
        calls[1]["params"]["inputResponses"]["user_name"],
        json!({ "action": "accept", "content": { "name": "Ada" } })
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
        "NO_COLOR=1 '{}' -- '{}'; echo EXIT=$?; sleep 60",
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
