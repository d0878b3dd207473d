//! `elicit::rmcp::client` against a server on the official MCP TypeScript SDK
//! (`@modelcontextprotocol/sdk` 1.x, protocol 2025-11-25): `tests/mcp_ts/server.mjs`,
//! started here as a child process and spoken to over its stdin and stdout.
//!
//! The client is `ElicitClient` with a [`ScriptedAsker`] behind a recorder, reading the
//! server's stdout through a [`RawTap`]; every byte it writes to the server's stdin is
//! recorded too, and each message it sent is checked against the official MCP
//! 2025-11-25 schema when the connection ends. Each tool of the server sends one
//! elicitation through the SDK and answers with what the SDK handed back to it (the
//! SDK checks accepted content against the schema it sent), so the test asserts both
//! what the person was shown and what the server received.
//!
//! Needs Node and the SDK installed by `.ci/mcp-ts` (into `tests/mcp_ts/node_modules`);
//! without them the test is skipped, unless `CI` is set, where it fails.
#![cfg(all(feature = "rmcp_3", feature = "url"))]

use std::io;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::process::Stdio;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};

use ::rmcp::model::{CallToolRequestParams, ProtocolVersion};
use ::rmcp::service::{RoleClient, RunningService};
use ::rmcp::ClientServiceExt;
use elicit::client::{
    AskFuture, Asker, AskerNotice, Consent, ConsentPrompt, FieldAnswer, FieldPrompt, FormAnswer,
    FormPrompt, ReviewChoice, ReviewPrompt, ScriptedAsker, Shown, Step,
};
use elicit::rmcp::client::{ElicitClient, RawTap};
use elicit::ElicitationCapabilities;
use serde_json::{json, Value};
use tokio::io::AsyncWrite;

use crate::protocol_support::assert_mcp;
use crate::protocol_support::rmcp_wire::{bounded, eventually, tool_text};

const MCP: &str = "2025-11-25";

// The texts `server.mjs` sends with its `hostile` tool, character for character.
const HOSTILE_MESSAGE: &str = "Sign <script>alert(1)</script>\u{1b}[2J here\u{202e}";
const HOSTILE_TITLE: &str = "<b>Name</b>\u{1b}[31m red\u{7}\u{202e}evil";
const HOSTILE_DESCRIPTION: &str = "[click](javascript:alert(1)) <img src=x>\r\nfake line";

/// Node and the server script, or `None` (the test is skipped) when they are not
/// installed and `CI` is not set.
fn ts_server() -> Option<(PathBuf, PathBuf)> {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp_ts");
    let sdk = folder.join("node_modules/@modelcontextprotocol/sdk/package.json");
    let node = std::env::var_os("ELICIT_MCP_TS_NODE")
        .map(PathBuf::from)
        .or_else(|| {
            std::fs::read_to_string(folder.join("node_modules/.elicit-node"))
                .ok()
                .map(|path| PathBuf::from(path.trim()))
        });
    let missing = if !sdk.is_file() {
        Some(format!(
            "the MCP TypeScript SDK ({} is missing)",
            sdk.display()
        ))
    } else {
        match &node {
            Some(node) if node.is_file() => None,
            Some(node) => Some(format!("Node ({} is missing)", node.display())),
            None => Some("Node (no tests/mcp_ts/node_modules/.elicit-node)".into()),
        }
    };
    match missing {
        None => Some((node?, folder.join("server.mjs"))),
        Some(what) if std::env::var_os("CI").is_some() => {
            panic!("{what}: run .ci/mcp-ts before the tests")
        }
        Some(what) => {
            eprintln!("skipped: {what}; run .ci/mcp-ts to install it");
            None
        }
    }
}

/// Every byte written through it, kept in order.
#[derive(Clone, Default)]
struct Sent(Arc<Mutex<Vec<u8>>>);

impl Sent {
    /// The messages written, one per line, parsed.
    fn messages(&self) -> Vec<Value> {
        let bytes = self
            .0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        String::from_utf8(bytes)
            .expect("the client writes UTF-8")
            .lines()
            .filter(|line| !line.trim().is_empty())
            .map(|line| {
                serde_json::from_str(line).unwrap_or_else(|e| {
                    panic!("the client wrote a line that is not JSON ({e}): {line}")
                })
            })
            .collect()
    }
}

/// The writing half of the pipe, recording what goes through it.
struct Recording<W> {
    inner: W,
    sent: Sent,
}

impl<W: AsyncWrite + Unpin> AsyncWrite for Recording<W> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = &mut *self;
        let polled = Pin::new(&mut this.inner).poll_write(cx, buf);
        if let Poll::Ready(Ok(n)) = &polled {
            this.sent
                .0
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .extend_from_slice(&buf[..*n]);
        }
        polled
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

/// One field as the asker was shown it.
#[derive(Debug, Clone, PartialEq)]
struct FieldSeen {
    message: String,
    name: String,
    label: String,
    description: Option<String>,
    options: Vec<String>,
}

/// What the recorder saw, shared with the test.
#[derive(Default)]
struct Log {
    fields: Vec<FieldSeen>,
    shown: Vec<Shown>,
    remaining: usize,
}

/// A [`ScriptedAsker`] whose record the test can read while the client owns it.
struct Recorder {
    inner: ScriptedAsker,
    log: Arc<Mutex<Log>>,
}

impl Recorder {
    fn sync(&self) {
        let mut log = self.log.lock().unwrap_or_else(PoisonError::into_inner);
        log.shown = self.inner.shown().to_vec();
        log.remaining = self.inner.remaining();
    }
}

impl Asker for Recorder {
    fn modes(&self) -> ElicitationCapabilities {
        self.inner.modes()
    }

    fn ask_field<'a>(&'a mut self, prompt: FieldPrompt<'a>) -> AskFuture<'a, FieldAnswer> {
        let field = prompt.field;
        self.log
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .fields
            .push(FieldSeen {
                message: prompt.intro.message.to_owned(),
                name: field.name().to_owned(),
                label: field.label().to_owned(),
                description: field.description().map(str::to_owned),
                options: field.options().iter().map(|c| c.label.to_owned()).collect(),
            });
        Box::pin(async move {
            let answer = self.inner.ask_field(prompt).await;
            self.sync();
            answer
        })
    }

    fn review<'a>(&'a mut self, prompt: ReviewPrompt<'a>) -> AskFuture<'a, ReviewChoice> {
        Box::pin(async move {
            let choice = self.inner.review(prompt).await;
            self.sync();
            choice
        })
    }

    fn ask_form<'a>(&'a mut self, prompt: FormPrompt<'a>) -> Option<AskFuture<'a, FormAnswer>> {
        // The scripted asker asks one field at a time: it declines whole forms.
        self.inner.ask_form(prompt)
    }

    fn consent<'a>(&'a mut self, prompt: ConsentPrompt<'a>) -> AskFuture<'a, Consent> {
        Box::pin(async move {
            let consent = self.inner.consent(prompt).await;
            self.sync();
            consent
        })
    }

    fn notice(&mut self, notice: &AskerNotice) {
        self.inner.notice(notice);
        self.sync();
    }
}

type Client = RunningService<RoleClient, ElicitClient<Recorder>>;

/// The text a tool answered with, parsed: what the server got back from the SDK.
async fn call(client: &Client, tool: &str) -> Value {
    let result = bounded(
        tool,
        client.call_tool(CallToolRequestParams::new(tool.to_owned())),
    )
    .await
    .unwrap_or_else(|e| panic!("{tool} failed: {e}"));
    let text = tool_text(&result);
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{tool} answered {text:?}: {e}"))
}

/// Checks every message the client wrote against the MCP schema; returns how many
/// answered an `elicitation/create`.
fn assert_client_messages_valid(messages: &[Value], elicitation_ids: &[Value]) -> usize {
    let mut answers = 0;
    for message in messages {
        let has_id = message.get("id").is_some();
        match message.get("method").and_then(Value::as_str) {
            Some(_) if has_id => {
                assert_mcp(MCP, "JSONRPCRequest", message);
                assert_mcp(MCP, "ClientRequest", message);
            }
            Some(_) => {
                assert_mcp(MCP, "JSONRPCNotification", message);
                assert_mcp(MCP, "ClientNotification", message);
            }
            None if message.get("error").is_some() => {
                assert_mcp(MCP, "JSONRPCErrorResponse", message);
                answers += usize::from(elicitation_ids.contains(&message["id"]));
            }
            None => {
                assert_mcp(MCP, "JSONRPCResultResponse", message);
                if elicitation_ids.contains(&message["id"]) {
                    assert_mcp(MCP, "ElicitResult", &message["result"]);
                    answers += 1;
                } else {
                    assert_mcp(MCP, "ClientResult", &message["result"]);
                }
            }
        }
    }
    answers
}

// covers: C1, D13, E4, F1, F2, F4, K1, K2, M3, M5, R1, S2, U2, U5
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_sdk_server_gets_typed_answers_refusals_and_url_consent_from_elicit() {
    let Some((node, script)) = ts_server() else {
        return;
    };
    let mut child = tokio::process::Command::new(&node)
        .arg(&script)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .kill_on_drop(true)
        .spawn()
        .unwrap_or_else(|e| panic!("starting {} {}: {e}", node.display(), script.display()));
    let stdin = child.stdin.take().expect("piped stdin");
    let stdout = child.stdout.take().expect("piped stdout");

    let script = ScriptedAsker::new([
        // every_kind, in the server's order.
        Step::Field(FieldAnswer::Keep), // nickname
        Step::Field(FieldAnswer::Text("ada@example.com".into())), // email
        Step::Field(FieldAnswer::Text("42".into())), // age
        Step::Field(FieldAnswer::Keep), // ratio
        Step::Field(FieldAnswer::Text("no".into())), // subscribe
        Step::Field(FieldAnswer::Text("blue".into())), // color
        Step::Field(FieldAnswer::Keep), // size
        Step::Field(FieldAnswer::Text("Beta".into())), // legacy, by its enumName
        Step::Field(FieldAnswer::Keep), // tags
        Step::Field(FieldAnswer::Text("Cheese, Olives".into())), // toppings, by title
        Step::Review(ReviewChoice::Send),
        // hostile
        Step::Field(FieldAnswer::Text("Ada".into())),
        Step::Review(ReviewChoice::Send),
        // invalid: nothing is asked. url:
        Step::Consent(Consent::Open),
    ]);
    let log = Arc::new(Mutex::new(Log::default()));
    let recorder = Recorder {
        inner: script,
        log: log.clone(),
    };
    let sent = Sent::default();
    let tap = RawTap::new();
    let handler = ElicitClient::new(recorder)
        .with_tap(tap.clone())
        .with_protocol_version(ProtocolVersion::V_2025_11_25);
    let lifecycle = handler.lifecycle();
    let writer = Recording {
        inner: stdin,
        sent: sent.clone(),
    };
    let client = bounded(
        "initialize",
        handler.serve_with_lifecycle((tap.reader(stdout), writer), lifecycle),
    )
    .await
    .expect("the SDK server accepts initialize");
    let info = client.peer_info().expect("the server's initialize result");
    assert_eq!(info.protocol_version, ProtocolVersion::V_2025_11_25);

    // -- every kind of field, defaults pre-filled; the SDK checked the content.
    let every_kind = call(&client, "every_kind").await;
    assert_eq!(
        every_kind,
        json!({"action": "accept", "content": {
            "nickname": "sam", "email": "ada@example.com", "age": 42, "ratio": 0.5,
            "subscribe": false, "color": "blue", "size": "m", "legacy": "b",
            "tags": ["x"], "toppings": ["ch", "ol"],
        }}),
    );
    let order = [
        "nickname",
        "email",
        "age",
        "ratio",
        "subscribe",
        "color",
        "size",
        "legacy",
        "tags",
        "toppings",
    ];
    {
        let log = log.lock().unwrap();
        let fields: Vec<&FieldSeen> = log.fields.iter().take(order.len()).collect();
        let names: Vec<&str> = fields.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, order, "the fields in the server's order (D13)");
        let label = |name: &str| {
            fields
                .iter()
                .find(|f| f.name == name)
                .unwrap()
                .label
                .clone()
        };
        assert_eq!(label("nickname"), "Nickname");
        assert_eq!(label("color"), "color", "no title: the name");
        let options = |name: &str| {
            fields
                .iter()
                .find(|f| f.name == name)
                .unwrap()
                .options
                .clone()
        };
        assert_eq!(options("color"), ["red", "green", "blue"]);
        assert_eq!(options("size"), ["Small", "Medium"]);
        assert_eq!(
            options("legacy"),
            ["Alpha", "Beta"],
            "enumNames as titles (M5)"
        );
        assert_eq!(options("tags"), ["x", "y", "z"]);
        assert_eq!(options("toppings"), ["Cheese", "Olives"]);
        assert_eq!(fields[0].description.as_deref(), Some("What we call you"));
        // The value each field was first asked with: its default (F4), or nothing.
        let first_values: Vec<Option<Value>> = order
            .iter()
            .map(|name| {
                log.shown
                    .iter()
                    .find_map(|shown| match shown {
                        Shown::Field { name: n, value, .. } if n == name => Some(value.clone()),
                        _ => None,
                    })
                    .unwrap_or_else(|| panic!("{name} was asked"))
            })
            .collect();
        assert_eq!(
            first_values,
            [
                Some(json!("sam")),
                None,
                Some(json!(30)),
                Some(json!(0.5)),
                Some(json!(true)),
                Some(json!("green")),
                Some(json!("m")),
                None,
                Some(json!(["x"])),
                Some(json!(["ch"])),
            ]
        );
    }

    // -- hostile texts reach the asker as text, exactly as sent, for it to show plain.
    let hostile = call(&client, "hostile").await;
    assert_eq!(
        hostile,
        json!({"action": "accept", "content": {"name": "Ada"}})
    );
    {
        let log = log.lock().unwrap();
        let seen = log
            .fields
            .iter()
            .find(|f| f.name == "name")
            .expect("name asked");
        assert_eq!(seen.label, HOSTILE_TITLE);
        assert_eq!(seen.description.as_deref(), Some(HOSTILE_DESCRIPTION));
        assert_eq!(seen.message, HOSTILE_MESSAGE);
        {
            // What a terminal client prints of it: no control character acts.
            let shown = elicit::client::terminal_text::plain(&seen.label).to_string();
            assert!(
                !shown.chars().any(|c| c.is_control() || c == '\u{202e}'),
                "{shown:?}"
            );
            assert!(
                shown.contains("<U+001B>") && shown.contains("<U+202E>"),
                "{shown:?}"
            );
        }
    }

    // -- a schema a client must refuse: -32602 with the reason, told to the person.
    let invalid = call(&client, "invalid").await;
    assert_eq!(invalid["error"]["code"], json!(-32602), "{invalid}");
    let error_message = invalid["error"]["message"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    let reason = {
        let log = log.lock().unwrap();
        log.shown
            .iter()
            .find_map(|shown| match shown {
                Shown::Notice(AskerNotice::Refused { agent, reason }) => {
                    assert_eq!(
                        agent, "elicit-ts-test-server 1.0.0",
                        "the serverInfo of initialize (K1)"
                    );
                    Some(reason.clone())
                }
                _ => None,
            })
            .expect("the person is told of the refusal")
    };
    assert!(
        reason.contains("address"),
        "the reason names the property: {reason}"
    );
    // The error's data says where and what, and the person read the same.
    let data = &invalid["error"]["data"];
    assert_eq!(data["reason"], json!("malformed_schema"), "{invalid}");
    assert_eq!(
        data["issues"][0]["pointer"],
        json!("/requestedSchema/properties/address/type"),
        "{invalid}"
    );
    let detail = data["message"].as_str().unwrap_or_default();
    assert!(
        !detail.is_empty() && reason.contains(detail),
        "{reason} / {detail}"
    );
    assert_eq!(
        reason.matches(detail).count(),
        1,
        "the reason says it once: {reason}"
    );
    assert!(
        error_message.contains("address"),
        "the server gets the reason too: {error_message}"
    );
    assert!(
        !log.lock()
            .unwrap()
            .fields
            .iter()
            .any(|f| f.message == "Where do you live?"),
        "nothing of a refused form is asked"
    );

    // -- URL mode: the full URL shown before consent, then the completion notice.
    let url = call(&client, "url").await;
    assert_eq!(url, json!({"action": "accept", "content": null}));
    eventually("the completion notice", || {
        log.lock().unwrap().shown.iter().any(|shown| {
            matches!(shown, Shown::Notice(AskerNotice::Completed { elicitation_id })
                if elicitation_id == "connect-7f3a")
        })
    })
    .await;
    {
        let log = log.lock().unwrap();
        let consent_at = log
            .shown
            .iter()
            .position(|shown| {
                matches!(shown, Shown::Consent { url, .. }
                    if url == "https://accounts.example.com/connect?state=7f3a")
            })
            .expect("the full URL was shown (S2)");
        let completed_at = log
            .shown
            .iter()
            .position(|shown| matches!(shown, Shown::Notice(AskerNotice::Completed { .. })))
            .unwrap();
        assert!(consent_at < completed_at);
        assert_eq!(log.remaining, 0, "every scripted answer was used");
    }

    client.cancel().await.expect("the client closes");
    let _ = child.kill().await;

    // -- every message the client wrote is valid MCP 2025-11-25.
    let messages = sent.messages();
    let methods: Vec<&str> = messages
        .iter()
        .filter_map(|m| m["method"].as_str())
        .collect();
    assert_eq!(methods[..2], ["initialize", "notifications/initialized"]);
    assert!(!methods.contains(&"server/discover"));
    // C1: the modes the asker renders, each declared explicitly.
    assert_eq!(
        messages[0]["params"]["capabilities"]["elicitation"],
        json!({"form": {}, "url": {}})
    );
    // The server sends no request but `elicitation/create`: every response the client
    // wrote answers one.
    let answered: Vec<&Value> = messages
        .iter()
        .filter(|m| m.get("method").is_none())
        .collect();
    let elicitation_ids: Vec<Value> = answered.iter().map(|m| m["id"].clone()).collect();
    assert_eq!(
        assert_client_messages_valid(&messages, &elicitation_ids),
        4,
        "one answer per elicitation: {messages:#?}"
    );
    let refusal = answered
        .iter()
        .find(|m| m.get("error").is_some())
        .expect("the refusal on the wire");
    assert_eq!(refusal["error"]["code"], json!(-32602));
    // The content went out in the server's order (D13).
    let raw = String::from_utf8(sent.0.lock().unwrap().clone()).unwrap();
    let accepted = raw
        .lines()
        .find(|line| line.contains("\"nickname\""))
        .expect("the every_kind answer");
    let content_keys: Vec<usize> = order
        .iter()
        .map(|key| accepted.find(&format!("\"{key}\":")).unwrap())
        .collect();
    assert!(content_keys.windows(2).all(|w| w[0] < w[1]), "{accepted}");
}

/// At its default (no version asked for), the client reaches the SDK server, which
/// knows nothing of `server/discover`: it answers it with an error, the client falls
/// back to `initialize` on the same pipes, offering 2025-11-25 with the capability in
/// that version's shape, and a form round-trips.
// covers: C1, R1
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn at_its_default_the_client_falls_back_to_initialize_with_an_sdk_server() {
    let Some((node, script)) = ts_server() else {
        return;
    };
    let mut child = tokio::process::Command::new(&node)
        .arg(&script)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .kill_on_drop(true)
        .spawn()
        .unwrap_or_else(|e| panic!("starting {} {}: {e}", node.display(), script.display()));
    let stdin = child.stdin.take().expect("piped stdin");
    let stdout = child.stdout.take().expect("piped stdout");
    let log = Arc::new(Mutex::new(Log::default()));
    let recorder = Recorder {
        inner: ScriptedAsker::new([
            Step::Field(FieldAnswer::Text("Ada".into())),
            Step::Review(ReviewChoice::Send),
        ]),
        log: log.clone(),
    };
    let sent = Sent::default();
    let tap = RawTap::new();
    let writer = Recording {
        inner: stdin,
        sent: sent.clone(),
    };
    let client = bounded(
        "the handshake",
        ElicitClient::new(recorder)
            .with_tap(tap.clone())
            .connect((tap.reader(stdout), writer)),
    )
    .await
    .expect("the client reaches the SDK server");
    let info = client.peer_info().expect("the server's initialize result");
    assert_eq!(info.protocol_version, ProtocolVersion::V_2025_11_25);

    let hostile = call(&client, "hostile").await;
    assert_eq!(
        hostile,
        json!({"action": "accept", "content": {"name": "Ada"}})
    );
    client.cancel().await.expect("the client closes");
    let _ = child.kill().await;

    let messages = sent.messages();
    let methods: Vec<&str> = messages
        .iter()
        .filter_map(|m| m["method"].as_str())
        .collect();
    assert_eq!(
        methods[..3],
        ["server/discover", "initialize", "notifications/initialized"]
    );
    let initialize = messages
        .iter()
        .find(|m| m["method"] == "initialize")
        .unwrap();
    assert_eq!(initialize["params"]["protocolVersion"], MCP);
    assert_eq!(
        initialize["params"]["capabilities"]["elicitation"],
        json!({"form": {}, "url": {}})
    );
    assert_mcp(MCP, "InitializeRequest", initialize);
}
