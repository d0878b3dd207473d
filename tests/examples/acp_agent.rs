//! Drives `examples/acp_agent.rs` as an ACP client would: the built example runs as a
//! child process, and the test speaks newline-delimited JSON-RPC on its real stdin and
//! stdout: `initialize` with client capabilities, `session/new`, `session/prompt`, and
//! an answer to the agent's `elicitation/create`.
//!
//! Each elicitation message the agent emits is checked against the official ACP schemas
//! (v1 and v2), and so is each answer this test gives as a client, so that the test
//! cannot pass by speaking a dialect of its own.
//!
//! # How the example is found
//!
//! `env!("CARGO_BIN_EXE_…")` exists only for binaries, and `cargo test --test examples`
//! does not build examples, so a file under `target/debug/examples/` may be missing or
//! older than the source. The test therefore asks cargo to build the example, with the
//! features and profile this test was built with (so a no-op when it is fresh, and the
//! same library this test links), with `--message-format=json`, and takes the
//! executable's path from cargo's own report: right whatever the target directory
//! (`CARGO_TARGET_DIR`) and however stale the tree. Cargo's lock on the target directory
//! serialises this with any other build; it is done once per test binary.
//!
//! # Bounded time
//!
//! Every read from the agent has a timeout ([`READ_TIMEOUT`]); the child is killed when
//! its handle is dropped, on success and on a failed assertion alike.
// The example needs `agent-client-protocol` (the one-call asks) and `url` (URL mode).
#![cfg(all(feature = "agent-client-protocol", feature = "url"))]

use crate::common;

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::thread;
use std::time::Duration;

use serde_json::{json, Value};

/// How long to wait for any one message. Generous: the machine is shared with builds.
const READ_TIMEOUT: Duration = Duration::from_secs(20);

/// The URL the example sends in URL mode.
const CONSENT_URL: &str = "http://127.0.0.1:47615/consent";

/// The example's executable, built once for all the tests of this file.
fn agent_binary() -> &'static Path {
    static BINARY: OnceLock<PathBuf> = OnceLock::new();
    BINARY.get_or_init(|| common::build_example("acp_agent"))
}

/// The running example, seen from the client's side of the pipe.
pub(crate) struct AgentProcess {
    /// The `agentInfo.name` the agent reports.
    name: &'static str,
    child: Child,
    stdin: ChildStdin,
    /// Lines of the agent's stdout, read by a thread so that reads can time out.
    lines: Receiver<String>,
    /// The agent's stderr, for failure messages.
    stderr: Arc<Mutex<String>>,
    next_id: i64,
}

impl Drop for AgentProcess {
    fn drop(&mut self) {
        // Never leave a child behind, whether the test passed or panicked.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl AgentProcess {
    fn start() -> Self {
        Self::spawn(agent_binary(), "elicit-acp-agent", &[])
    }

    /// Starts an example agent from its executable, with these environment variables.
    pub(crate) fn spawn(binary: &Path, name: &'static str, env: &[(&str, &str)]) -> Self {
        Self::spawn_with_args(binary, name, &[], env)
    }

    /// Starts an example agent from its executable, with these arguments and
    /// environment variables.
    pub(crate) fn spawn_with_args(
        binary: &Path,
        name: &'static str,
        args: &[&str],
        env: &[(&str, &str)],
    ) -> Self {
        let mut child = Command::new(binary)
            .args(args)
            .envs(env.iter().copied())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the example starts");
        let stdin = child.stdin.take().expect("stdin is piped");
        let stdout = child.stdout.take().expect("stdout is piped");
        let mut stderr_pipe = child.stderr.take().expect("stderr is piped");

        let (sender, lines) = mpsc::channel();
        thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if sender.send(line).is_err() {
                    break;
                }
            }
        });
        let stderr = Arc::new(Mutex::new(String::new()));
        let sink = Arc::clone(&stderr);
        thread::spawn(move || {
            let mut text = String::new();
            let _ = stderr_pipe.read_to_string(&mut text);
            sink.lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push_str(&text);
        });
        AgentProcess {
            name,
            child,
            stdin,
            lines,
            stderr,
            next_id: 0,
        }
    }

    pub(crate) fn stderr(&self) -> String {
        self.stderr
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Writes one JSON-RPC message as one line.
    pub(crate) fn send(&mut self, message: &Value) {
        let mut line = message.to_string();
        line.push('\n');
        self.stdin
            .write_all(line.as_bytes())
            .and_then(|()| self.stdin.flush())
            .unwrap_or_else(|e| panic!("cannot write to the agent: {e}\n{}", self.stderr()));
    }

    /// The agent's next message, within [`READ_TIMEOUT`].
    pub(crate) fn recv(&mut self) -> Value {
        match self.lines.recv_timeout(READ_TIMEOUT) {
            Ok(line) => serde_json::from_str(&line).unwrap_or_else(|e| {
                panic!("the agent wrote a line that is not JSON ({e}): {line}")
            }),
            Err(RecvTimeoutError::Timeout) => panic!(
                "no message from the agent within {READ_TIMEOUT:?}; its stderr:\n{}",
                self.stderr()
            ),
            Err(RecvTimeoutError::Disconnected) => {
                panic!(
                    "the agent closed its stdout; its stderr:\n{}",
                    self.stderr()
                )
            }
        }
    }

    /// Sends a request and returns its id.
    pub(crate) fn send_request(&mut self, method: &str, params: Value) -> i64 {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }));
        id
    }

    /// Sends a request and returns its result, which must be the next message.
    pub(crate) fn call(&mut self, method: &str, params: Value) -> Value {
        let id = self.send_request(method, params);
        let response = self.recv();
        assert_eq!(
            response["id"], id,
            "expected the response to `{method}`, got {response}"
        );
        assert!(
            response.get("error").is_none(),
            "`{method}` failed: {response}"
        );
        response["result"].clone()
    }

    /// `initialize` declaring these client capabilities, then `session/new`; returns
    /// the session id.
    pub(crate) fn open_session(&mut self, client_capabilities: Value) -> String {
        let init = self.call(
            "initialize",
            json!({
                "protocolVersion": 1,
                "clientCapabilities": client_capabilities,
                "clientInfo": { "name": "elicit-test-client", "version": "0.0.0" }
            }),
        );
        assert_eq!(init["protocolVersion"], 1, "{init}");
        assert_eq!(init["agentInfo"]["name"], self.name, "{init}");
        let session = self.call("session/new", json!({ "cwd": "/tmp", "mcpServers": [] }));
        session["sessionId"]
            .as_str()
            .unwrap_or_else(|| panic!("`session/new` returned no session id: {session}"))
            .to_owned()
    }

    /// Sends `session/prompt`; returns its request id.
    pub(crate) fn prompt(&mut self, session_id: &str) -> i64 {
        self.send_request(
            "session/prompt",
            json!({
                "sessionId": session_id,
                "prompt": [{ "type": "text", "text": "Tidy up the parser" }]
            }),
        )
    }

    /// The next message, which must be an `elicitation/create` request valid in both
    /// ACP schemas; returns its id and params.
    pub(crate) fn expect_create(&mut self) -> (Value, Value) {
        let message = self.recv();
        assert_eq!(
            message["method"], "elicitation/create",
            "expected an elicitation request, got {message}"
        );
        let id = message.get("id").cloned().unwrap_or_else(|| {
            panic!("`elicitation/create` must be a request, with an id: {message}")
        });
        let params = message["params"].clone();
        common::assert_valid_acp("CreateElicitationRequest", &params);
        (id, params)
    }

    /// Answers an `elicitation/create` with this result, after checking that the
    /// answer is itself a valid ACP `CreateElicitationResponse`.
    pub(crate) fn answer(&mut self, id: Value, result: Value) {
        common::assert_valid_acp("CreateElicitationResponse", &result);
        self.send(&json!({ "jsonrpc": "2.0", "id": id, "result": result }));
    }

    /// The end of the turn: one agent message for the session, then the prompt's
    /// response with `end_turn`. Returns the message's text.
    pub(crate) fn expect_turn_end(&mut self, session_id: &str, prompt_id: i64) -> String {
        let update = self.recv();
        assert_eq!(
            update["method"], "session/update",
            "expected the turn's message, got {update}"
        );
        assert_valid_v1_session_notification(&update["params"]);
        assert_eq!(update["params"]["sessionId"], session_id, "{update}");
        let chunk = &update["params"]["update"];
        assert_eq!(chunk["sessionUpdate"], "agent_message_chunk", "{update}");
        let text = chunk["content"]["text"]
            .as_str()
            .unwrap_or_else(|| panic!("the agent message has no text: {update}"))
            .to_owned();

        let response = self.recv();
        assert_eq!(
            response["id"], prompt_id,
            "expected the prompt's response, got {response}"
        );
        assert_eq!(response["result"]["stopReason"], "end_turn", "{response}");
        text
    }
}

/// `session/update` exists in ACP v1 only (v2 reports session updates differently), so
/// it is checked against v1 alone. Skips under the rule of `common::oracles_dir`.
fn assert_valid_v1_session_notification(params: &Value) {
    let Some(root) = common::load_json("acp-schema/v1.schema.json") else {
        return;
    };
    let errors = common::errors_of(&common::acp_validator(&root, "SessionNotification"), params);
    assert!(
        errors.is_empty(),
        "not a valid ACP v1 `SessionNotification`: {errors:?}\n{params:#}"
    );
}

/// A form-mode turn up to the agent's request: returns the agent, the session id, the
/// prompt id, and the request's id and params.
fn form_turn() -> (AgentProcess, String, i64, Value, Value) {
    let mut agent = AgentProcess::start();
    let session = agent.open_session(json!({ "elicitation": { "form": {} } }));
    let prompt = agent.prompt(&session);
    let (id, params) = agent.expect_create();
    assert_eq!(params["mode"], "form", "{params}");
    assert_eq!(params["sessionId"], session, "{params}");
    (agent, session, prompt, id, params)
}

// covers: C1, C3, E1, E2, E3, E4, F1, F2, F3, D13
#[test]
fn form_accept_reports_the_values_received() {
    let (mut agent, session, prompt, id, params) = form_turn();
    let schema = &params["requestedSchema"];
    // D13: the form reaches the client in declaration order, not sorted by name.
    let order: Vec<&str> = schema["properties"]
        .as_object()
        .map(|p| p.keys().map(String::as_str).collect())
        .unwrap_or_default();
    assert_eq!(
        order,
        ["strategy", "passes", "notify", "run_tests"],
        "{schema}"
    );
    assert_eq!(schema["properties"]["passes"]["default"], 2, "{schema}");

    agent.answer(
        id,
        json!({
            "action": "accept",
            "content": {
                "strategy": "Aggressive",
                "passes": 3,
                "notify": "ada@example.com",
                "run_tests": false
            }
        }),
    );
    let text = agent.expect_turn_end(&session, prompt);
    for expected in [
        "Received your plan",
        "strategy Aggressive",
        "3 review pass",
        "to ada@example.com",
        "tests after each pass: no",
    ] {
        assert!(text.contains(expected), "`{expected}` missing from: {text}");
    }
}

// covers: F3, V2
#[test]
fn form_accept_reads_an_integral_number_as_an_integer() {
    let (mut agent, session, prompt, id, _) = form_turn();
    // V2: `4.0` is an integer; the optional `notify` is left out.
    agent.answer(
        id,
        json!({ "action": "accept", "content": { "strategy": "Balanced", "passes": 4.0, "run_tests": true } }),
    );
    let text = agent.expect_turn_end(&session, prompt);
    assert!(text.contains("strategy Balanced"), "{text}");
    assert!(text.contains("4 review pass"), "{text}");
    assert!(text.contains("to nobody"), "{text}");
    assert!(text.contains("tests after each pass: yes"), "{text}");
}

// covers: R1, R2, R5
#[test]
fn form_decline_stops_the_task() {
    let (mut agent, session, prompt, id, _) = form_turn();
    // R2: content on decline is ignored, however valid it looks.
    agent.answer(
        id,
        json!({ "action": "decline", "content": { "strategy": "Balanced", "passes": 3, "run_tests": true } }),
    );
    let text = agent.expect_turn_end(&session, prompt);
    assert!(text.contains("You declined"), "{text}");
    assert!(text.contains("did not start the task"), "{text}");
    assert!(
        !text.contains("Received"),
        "a decline must not read as success: {text}"
    );
}

// covers: R1, R5
#[test]
fn form_cancel_stops_the_task() {
    let (mut agent, session, prompt, id, _) = form_turn();
    agent.answer(id, json!({ "action": "cancel" }));
    let text = agent.expect_turn_end(&session, prompt);
    assert!(text.contains("dismissed"), "{text}");
    assert!(text.contains("did not start the task"), "{text}");
    assert!(
        !text.contains("Received"),
        "a cancel must not read as success: {text}"
    );
}

// covers: F3, R3, R5, V5, V7
#[test]
fn form_bad_answer_is_reported_and_not_used() {
    let (mut agent, session, prompt, id, _) = form_turn();
    // A client that did not validate: not an option, out of range, not an email, and a
    // required field missing. Each value is still a valid ACP content value.
    agent.answer(
        id,
        json!({
            "action": "accept",
            "content": { "strategy": "Reckless", "passes": 9, "notify": "not an address" }
        }),
    );
    let text = agent.expect_turn_end(&session, prompt);
    assert!(text.contains("not valid"), "{text}");
    assert!(text.contains("did not start the task"), "{text}");
    assert!(
        !text.contains("Received your plan"),
        "an invalid answer was used: {text}"
    );
    for field in ["`strategy`", "`passes`", "`notify`", "`run_tests`"] {
        assert!(
            text.contains(field),
            "the problem with {field} is not reported: {text}"
        );
    }
}

// covers: R5
#[test]
fn client_error_is_not_success() {
    let (mut agent, session, prompt, id, _) = form_turn();
    agent.send(&json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": { "code": -32602, "message": "the form cannot be shown" }
    }));
    let text = agent.expect_turn_end(&session, prompt);
    assert!(text.contains("the client answered with an error"), "{text}");
    assert!(text.contains("the form cannot be shown"), "{text}");
    assert!(text.contains("did not start the task"), "{text}");
}

/// A URL-mode turn up to the agent's request, for a client with these capabilities.
fn url_turn(client_capabilities: Value) -> (AgentProcess, String, i64, Value, String) {
    let mut agent = AgentProcess::start();
    let session = agent.open_session(client_capabilities);
    let prompt = agent.prompt(&session);
    let (id, params) = agent.expect_create();
    assert_eq!(params["mode"], "url", "{params}");
    assert_eq!(params["sessionId"], session, "{params}");
    assert_eq!(params["url"], CONSENT_URL, "{params}");
    let elicitation_id = params["elicitationId"]
        .as_str()
        .filter(|id| !id.is_empty())
        .unwrap_or_else(|| panic!("a URL-mode request needs an elicitation id: {params}"))
        .to_owned();
    (agent, session, prompt, id, elicitation_id)
}

// covers: C7, U1, U2, U4, U5, R4
#[test]
fn url_accept_is_followed_by_complete_with_the_same_id() {
    // C7: without form mode the agent does not ask in a form; it uses URL mode.
    let (mut agent, session, prompt, id, elicitation_id) =
        url_turn(json!({ "elicitation": { "url": {} } }));
    // U2: accept is consent to open the URL; R4: no content.
    agent.answer(id, json!({ "action": "accept" }));

    let complete = agent.recv();
    assert_eq!(
        complete["method"], "elicitation/complete",
        "expected the completion, got {complete}"
    );
    assert!(
        complete.get("id").is_none(),
        "`elicitation/complete` is a notification: {complete}"
    );
    common::assert_valid_acp("CompleteElicitationNotification", &complete["params"]);
    // U5: the original id.
    assert_eq!(
        complete["params"]["elicitationId"],
        elicitation_id.as_str(),
        "{complete}"
    );

    let text = agent.expect_turn_end(&session, prompt);
    assert!(text.contains("Received your consent"), "{text}");
    assert!(text.contains(CONSENT_URL), "{text}");
    assert!(text.contains(&elicitation_id), "{text}");
}

// covers: C6, C7
#[test]
fn malformed_form_capability_reads_as_absent() {
    // C6: `"form": 5` reads as absent, leaving URL mode only.
    let (mut agent, session, prompt, id, _) =
        url_turn(json!({ "elicitation": { "form": 5, "url": {} } }));
    agent.answer(id, json!({ "action": "cancel" }));
    let text = agent.expect_turn_end(&session, prompt);
    assert!(text.contains("dismissed"), "{text}");
}

// covers: R5, U5
#[test]
fn url_decline_sends_no_completion() {
    let (mut agent, session, prompt, id, _) = url_turn(json!({ "elicitation": { "url": {} } }));
    agent.answer(id, json!({ "action": "decline" }));
    // A completion would come before the turn's message: `expect_turn_end` fails on it.
    let text = agent.expect_turn_end(&session, prompt);
    assert!(text.contains("You declined"), "{text}");
    assert!(!text.contains("Received"), "{text}");
}

// covers: C2, C4, C7
#[test]
fn client_without_elicitation_gets_no_request_and_a_graceful_message() {
    for capabilities in [
        json!({}),                                               // C2: omitted
        json!({ "elicitation": null }),                          // C2: null
        json!({ "elicitation": {} }),                            // C4: present, no mode
        json!({ "elicitation": { "form": null, "url": null } }), // C4
    ] {
        let mut agent = AgentProcess::start();
        let session = agent.open_session(capabilities.clone());
        let prompt = agent.prompt(&session);
        // C7: the very next message is the turn's end; an `elicitation/create` here
        // fails `expect_turn_end`, which wants a `session/update` first.
        let text = agent.expect_turn_end(&session, prompt);
        assert!(
            text.contains("declared no elicitation mode")
                && text.contains("did not start the task"),
            "with {capabilities}: {text}"
        );
    }
}

// covers: E3, E5
#[test]
fn prompt_for_an_unknown_session_is_refused_without_asking() {
    let mut agent = AgentProcess::start();
    agent.open_session(json!({ "elicitation": { "form": {}, "url": {} } }));
    let prompt = agent.prompt("session-of-someone-else");
    let response = agent.recv();
    assert_eq!(
        response["id"], prompt,
        "expected the prompt's response, got {response}"
    );
    assert_eq!(response["error"]["code"], -32602, "{response}");
}

// covers: R5
#[test]
fn session_cancel_withdraws_the_question_and_ends_the_turn_cancelled() {
    let (mut agent, session, prompt, _, _) = form_turn();
    agent.send(&json!({
        "jsonrpc": "2.0",
        "method": "session/cancel",
        "params": { "sessionId": session }
    }));
    // The request is withdrawn; the turn's message says it was not answered.
    let mut update = agent.recv();
    while update["method"] == "$/cancel_request" {
        update = agent.recv();
    }
    assert_eq!(update["method"], "session/update", "{update}");
    assert_valid_v1_session_notification(&update["params"]);
    let text = update["params"]["update"]["content"]["text"]
        .as_str()
        .unwrap_or_default();
    assert!(text.contains("did not start the task"), "{update}");
    let response = agent.recv();
    assert_eq!(response["id"], prompt, "{response}");
    assert_eq!(response["result"]["stopReason"], "cancelled", "{response}");
}
