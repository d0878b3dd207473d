//! Runs `examples/terminal_client.rs` with scripted answers on its stdin, as CI does,
//! and checks the response it prints on stdout and the dialog it shows on stderr.
//! stdin is a pipe here, so the example asks through its line-reading asker on the
//! same engine (`elicit::client::ClientEngine`) as at a terminal; the terminal asker
//! itself is driven in a real terminal by `tests/examples/terminal_tmux.rs`.
//!
//! The example is built with cargo and found through cargo's JSON report, for the
//! reasons given in `tests/examples/acp_agent.rs`: examples have no `CARGO_BIN_EXE_…`, and a file
//! under `target/` may be stale. Each run is bounded by [`RUN_TIMEOUT`] and the child is
//! killed if it is still running when its handle is dropped.
// The example needs `url` (URL review, on by default) and `inquire` (the terminal asker).
#![cfg(all(feature = "url", feature = "inquire"))]

use crate::common;

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::sync::OnceLock;
use std::thread;
use std::time::Duration;

use serde_json::{json, Value};

/// How long one run of the example may take. Generous: the machine is shared with builds.
const RUN_TIMEOUT: Duration = Duration::from_secs(20);

fn client_binary() -> &'static Path {
    static BINARY: OnceLock<PathBuf> = OnceLock::new();
    BINARY.get_or_init(|| common::build_example("terminal_client"))
}

/// Kills the child if it is still running when the run is abandoned.
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// What one run printed.
struct Run {
    /// The one line on stdout, parsed.
    answer: Value,
    /// The dialog.
    dialog: String,
}

/// Everything a pipe delivers until it closes, read on a thread.
fn drain(mut pipe: impl Read + Send + 'static) -> Receiver<String> {
    let (sender, receiver) = mpsc::channel();
    thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = pipe.read_to_end(&mut bytes);
        let _ = sender.send(String::from_utf8_lossy(&bytes).into_owned());
    });
    receiver
}

/// Runs the example with these arguments and this text on stdin (not a terminal, so
/// it is read as a script).
fn run(args: &[&str], script: &str) -> Run {
    let mut child = Running(
        Command::new(client_binary())
            .args(args)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .env("NO_COLOR", "1")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the example starts"),
    );
    let stdout = drain(child.0.stdout.take().expect("stdout is piped"));
    let stderr = drain(child.0.stderr.take().expect("stderr is piped"));
    let mut stdin = child.0.stdin.take().expect("stdin is piped");
    // A client that stops reading early closes the pipe: not an error here, the
    // printed answer says what happened.
    let _ = stdin.write_all(script.as_bytes());
    drop(stdin);

    let dialog = stderr
        .recv_timeout(RUN_TIMEOUT)
        .unwrap_or_else(|_| panic!("the example did not finish within {RUN_TIMEOUT:?}"));
    let out = stdout
        .recv_timeout(RUN_TIMEOUT)
        .unwrap_or_else(|_| panic!("the example did not finish within {RUN_TIMEOUT:?}:\n{dialog}"));
    let status = child.0.wait().expect("the example can be waited for");
    assert!(status.success(), "the example failed ({status}):\n{dialog}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines.len(),
        1,
        "stdout must be exactly the answer:\n{out}\n---\n{dialog}"
    );
    let answer = serde_json::from_str(lines[0])
        .unwrap_or_else(|e| panic!("the answer is not JSON ({e}): {out}"));
    Run { answer, dialog }
}

/// A response must be a valid ACP `CreateElicitationResponse` as well as the one
/// expected.
fn assert_response(run: &Run, expected: Value) {
    assert_eq!(run.answer, expected, "dialog:\n{}", run.dialog);
    common::assert_valid_acp("CreateElicitationResponse", &run.answer);
}

fn assert_shown(run: &Run, texts: &[&str]) {
    for text in texts {
        assert!(
            run.dialog.contains(text),
            "`{text}` was not shown:\n{}",
            run.dialog
        );
    }
}

/// A params file for one test, under cargo's scratch directory for integration tests.
fn params_file(name: &str, params: &Value) -> PathBuf {
    let path =
        PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("terminal_client_{name}.json"));
    std::fs::write(&path, params.to_string()).expect("the scratch directory is writable");
    path
}

fn committed_script(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

// covers: F2, F3, F4, K1, K2, K4, D13, R1, R3, V7
#[test]
fn committed_form_script_accepts_after_reasking_bad_values() {
    let run = run(&[], &committed_script("terminal_client.script"));
    assert_response(
        &run,
        json!({
            "action": "accept",
            "content": {
                "name": "spring-cleanup",
                "notify": "ada@example.com",
                "date": "2026-12-24",
                "retries": 2,
                "rollout": 0.25,
                "announce": false,
                "region": "us",
                "channel": "beta",
                "platforms": ["macos", "windows"],
                "reviewers": ["ada", "grace"]
            }
        }),
    );
    // The content keeps the form's order (D13); the optional `notes` left out.
    let keys: Vec<&str> = run.answer["content"]
        .as_object()
        .map(|c| c.keys().map(String::as_str).collect())
        .unwrap_or_default();
    assert_eq!(
        keys,
        [
            "name",
            "notify",
            "date",
            "retries",
            "rollout",
            "announce",
            "region",
            "channel",
            "platforms",
            "reviewers"
        ]
    );
    assert_shown(
        &run,
        &[
            // K1, K4: who asks and why, and how to leave.
            "elicit-acp-agent asks: Before I cut the release, a few details. (session demo-session)",
            ":decline refuses the request; :cancel dismisses it.",
            // F4: defaults shown.
            "[spring-cleanup] > \n",
            "[0.25] > \n",
            "[Stable] > 2",
            // F3: refused values, with the engine's reason, then asked again.
            "! Notify (`notify`): is not a valid email address",
            "! Retries (`retries`): must be at most 5",
            "! `platforms`: has 3 items; choose at most 2",
            "! Reviewers (`reviewers`): has 1 item; choose at least 2",
            // K2: the review, and the edit it allows.
            "Review:",
            "  Release notes: (no answer)",
            "  Retries *: 3",
            "  Retries *: 2",
            "  Reviewers *: Ada Lovelace, Grace Hopper",
            "Ready to send.",
        ],
    );
    // The first thing shown is who asks (K1).
    assert!(
        run.dialog
            .trim_start()
            .starts_with("elicit-acp-agent asks:"),
        "{}",
        run.dialog
    );
}

// covers: K1, R1, R5
#[test]
fn decline_at_a_field_sends_decline() {
    let run = run(&["--demo", "form"], "\n:decline\n");
    assert_response(&run, json!({ "action": "decline" }));
}

// covers: K1, K2, R1
#[test]
fn decline_at_the_review_sends_decline() {
    // Every required field answered, the rest kept or left empty, declined at the
    // review.
    let answers = "\nada@example.com\n\n2026-01-31\n\n\n\n\n\n\n1,2\ndecline\n";
    let run = run(&[], answers);
    assert_shown(&run, &["Ready to send."]);
    assert_response(&run, json!({ "action": "decline" }));
}

// covers: K1, R1
#[test]
fn cancel_and_the_end_of_the_script_send_cancel() {
    let run_cancel = run(&[], ":cancel\n");
    assert_response(&run_cancel, json!({ "action": "cancel" }));
    // A script that stops before the form is done dismisses it.
    let run_eof = run(&[], "\nada@example.com\n");
    assert_shown(&run_eof, &["(end of script)"]);
    assert_response(&run_eof, json!({ "action": "cancel" }));
}

// covers: F3, K2
#[test]
fn required_field_without_answer_is_asked_again() {
    let params = json!({
        "mode": "form", "sessionId": "s1", "message": "Who are you?",
        "requestedSchema": {
            "type": "object",
            "properties": {
                "name": { "type": "string", "title": "Name", "minLength": 1 },
                "team": { "type": "string", "enum": ["core", "docs"] }
            },
            "required": ["name"]
        }
    });
    let file = params_file("required", &params);
    let path = file.to_str().expect("a UTF-8 path");
    // Enter on a required field without a value, then a name; the optional `team` is
    // chosen by number and then cleared from the review.
    let run = run(&[path], "\nAda\n2\nedit team\n:clear\nsend\n");
    assert_shown(
        &run,
        // An untitled field reads as words ("Team"); `edit team` still finds it.
        &["! Name (`name`):", "  Team: docs", "  Team: (no answer)"],
    );
    assert_response(
        &run,
        json!({ "action": "accept", "content": { "name": "Ada" } }),
    );
}

// covers: S2, S3, S4, K3, R4, U2, U3
#[test]
fn committed_url_script_consents_after_the_review_and_warnings() {
    let run = run(
        &["--demo", "url"],
        &committed_script("terminal_client_url.script"),
    );
    // R4: consent without content.
    assert_response(&run, json!({ "action": "accept" }));
    assert_shown(
        &run,
        &[
            "elicit-acp-agent asks: Sign in to connect your account. (session demo-session)",
            // S2: the full URL before the question.
            "Address: https://login.xn--80ak6aa92e.com/connect",
            // S4, K3: the registrable domain, highlighted; the ASCII form beside it.
            "Site:    login.[аррӏе.com] (written login.xn--80ak6aa92e.com)",
            // S4: the look-alike warned about.
            "! the site name looks like `login.apple.com` but is a different site",
            // Enter alone is not consent: asked again.
            "answer yes to open the page, no to refuse, or cancel",
            // S3: the page opens in the person's own browser, outside this client and
            // any model behind it; U3: nothing from it comes back (no content above).
            "This client does not open the page itself",
            "Consented. Open https://login.xn--80ak6aa92e.com/connect in your browser.",
        ],
    );
    let warning = run
        .dialog
        .find("looks like `login.apple.com`")
        .expect("the warning is shown");
    let question = run
        .dialog
        .find("Open this page?")
        .expect("consent is asked");
    assert!(
        warning < question,
        "the warnings must be shown before consent is asked:\n{}",
        run.dialog
    );
}

// covers: S4, K3, R1
#[test]
fn a_loopback_http_url_is_warned_about_and_declined() {
    let params = json!({
        "mode": "url", "requestId": 7, "message": "Approve the plan",
        "elicitationId": "el-1",
        "url": "http://127.0.0.1:47615/consent"
    });
    let file = params_file("loopback", &params);
    let path = file.to_str().expect("a UTF-8 path");
    let run = run(&["--agent", "mystery-agent", path], "no\n");
    assert_response(&run, json!({ "action": "decline" }));
    assert_shown(
        &run,
        &[
            "mystery-agent asks: Approve the plan (before any session: request 7)",
            "Address: http://127.0.0.1:47615/consent",
            "the link is not secure (http, not https)",
            "the unusual port 47615",
        ],
    );
}

// covers: C8, E2, E6, U1, S2
#[test]
fn requests_that_cannot_be_honoured_are_refused_and_said_so() {
    let cases = [
        // E6: a custom mode is never rendered.
        (
            json!({ "mode": "_poll", "sessionId": "s1", "message": "Pick one" }),
            "unsupported_mode",
        ),
        // E2: no default mode.
        (
            json!({ "sessionId": "s1", "message": "Hello" }),
            "invalid_mode",
        ),
    ];
    for (i, (params, reason)) in cases.into_iter().enumerate() {
        let file = params_file(&format!("refused_{i}"), &params);
        let run = run(&[file.to_str().expect("a UTF-8 path")], "yes\n");
        assert_eq!(run.answer["code"], -32602, "{params}: {}", run.answer);
        assert_eq!(
            run.answer["data"]["reason"], reason,
            "{params}: {}",
            run.answer
        );
        // Never a silent skip: the person is told.
        assert_shown(&run, &["a request from elicit-acp-agent was refused"]);
    }
    // A URL that is not a web page is never offered: declined, and the person told.
    let params = json!({
        "mode": "url", "sessionId": "s1", "message": "Run this",
        "elicitationId": "el-2", "url": "javascript:alert(1)"
    });
    let file = params_file("refused_url", &params);
    let run = run(&[file.to_str().expect("a UTF-8 path")], "yes\n");
    assert_response(&run, json!({ "action": "decline" }));
    assert_shown(&run, &["its URL cannot be offered"]);
    assert!(
        !run.dialog.contains("Open this page?"),
        "a javascript: URL was offered:\n{}",
        run.dialog
    );
}

// covers: S5, K4
#[test]
fn agent_texts_are_shown_as_plain_text() {
    // An escape sequence that would clear the screen, a line break that would fake a
    // line of the dialog (collapsed into a space), and a right-to-left override that
    // would reverse a label.
    let params = json!({
        "mode": "form", "sessionId": "s1",
        "message": "Hello\u{1b}[2J\nReady to send.",
        "requestedSchema": {
            "type": "object",
            "properties": {
                "ok": { "type": "boolean", "title": "O\u{202e}K", "default": true }
            }
        }
    });
    let file = params_file("plain_text", &params);
    let run = run(&[file.to_str().expect("a UTF-8 path")], "\nsend\n");
    assert_response(
        &run,
        json!({ "action": "accept", "content": { "ok": true } }),
    );
    assert!(
        !run.dialog.contains('\u{1b}'),
        "an escape sequence reached the terminal:\n{}",
        run.dialog
    );
    assert!(
        !run.dialog.contains('\u{202e}'),
        "a bidi control reached the terminal:\n{}",
        run.dialog
    );
    assert_shown(
        &run,
        &[
            "asks: Hello<U+001B>[2J Ready to send. (session s1)\n",
            "O<U+202E>K",
        ],
    );
}

// covers: S2, S4, S5, K3, K4
#[test]
fn a_hostile_message_cannot_imitate_or_hide_the_url_consent() {
    // Findings 28.4 and 28.12: a space-padded fake "Address / Site / No warnings."
    // block, `ESC[8m` to conceal what follows, a long tail to push it away, and an
    // agent name that would retitle the window.
    let pad = " ".repeat(120);
    let message = format!(
        "Sign in.{pad}  Address: https://accounts.example.com/{pad}  Site:    \
         accounts.[example.com]{pad}  No warnings.{pad}\u{1b}[8m{}",
        "More text. ".repeat(300)
    );
    let params = json!({
        "mode": "url", "sessionId": "s1", "elicitationId": "e1",
        "message": message, "url": "https://login.xn--80ak6aa92e.com/connect"
    });
    let file = params_file("hostile_url", &params);
    let run = run(
        &[
            "--agent",
            "evil\u{1b}]0;PWNED\u{7}",
            file.to_str().expect("a UTF-8 path"),
        ],
        "no\n",
    );
    assert_response(&run, json!({ "action": "decline" }));
    assert!(
        !run.dialog.contains('\u{1b}'),
        "an escape reached the terminal:\n{}",
        run.dialog
    );
    let lines: Vec<&str> = run.dialog.lines().collect();
    // The agent's texts: one line, bounded, before the client's block.
    let intro = lines
        .iter()
        .position(|l| l.contains(" asks: "))
        .expect("the intro");
    assert!(
        lines[intro].starts_with(
            "evil<U+001B>]0;PWNED<U+0007> asks: Sign in. Address: https://accounts.example.com/ \
             Site: accounts.[example.com] No warnings. <U+001B>[8mMore text."
        ),
        "{}",
        lines[intro]
    );
    assert!(lines[intro].contains("more characters not shown) (session s1)"));
    assert_eq!(
        lines
            .iter()
            .filter(|l| l.contains("accounts.example.com"))
            .count(),
        1,
        "{}",
        run.dialog
    );
    // The client's block: marked lines only, right after, the real address and site.
    assert_eq!(lines[intro + 1], "┃ The agent asks you to open a web page.");
    assert_eq!(
        lines[intro + 2],
        "┃ Address: https://login.xn--80ak6aa92e.com/connect"
    );
    assert_eq!(
        lines[intro + 3],
        "┃ Site:    login.[аррӏе.com] (written login.xn--80ak6aa92e.com)"
    );
    assert_eq!(lines[intro + 4], "┃ Warnings:");
    let question = lines
        .iter()
        .position(|l| l.starts_with("Open this page?"))
        .expect("the question");
    assert!(lines[intro + 1..question]
        .iter()
        .all(|l| l.starts_with("┃ ")));
    assert!(lines[question - 1].starts_with("┃ above in your own browser."));
}
