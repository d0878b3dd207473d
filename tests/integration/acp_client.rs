//! `elicit::agent_client_protocol::client` on the real ACP SDK at both ends.
//!
//! Two kinds of agent:
//! - the repository's example agents (`acp_agent`, `url_secret_agent`), built with
//!   cargo and started as child processes, spoken to over their real stdin and stdout
//!   by an SDK client (`Client.v1()`) carrying the [`ElicitClient`] handler;
//! - a small SDK agent written here (`Agent.v1()`), over an in-memory line pipe, for
//!   what the examples never send: the request scope, a tool call, schemas a client
//!   must refuse, properties with members the SDK's typed request drops, repeated and
//!   unknown completions, a withdrawn request.
//!
//! Every line is recorded as written ([`Wire`]); every message the client sends (the
//! `initialize` request, each answer to `elicitation/create`, each error) is checked
//! against the official ACP schemas v1 and v2 (`protocol_support::assert_acp`). Every
//! run is bounded by [`WAIT`]; children are killed on drop.
#![cfg(all(feature = "agent-client-protocol", feature = "url"))]

use std::future::Future;
use std::io;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::Duration;

use agent_client_protocol::schema::ProtocolVersion;
use agent_client_protocol::v1::schema as acp;
use agent_client_protocol::v1::{ConnectionTo, Responder, SessionSetup};
use agent_client_protocol::{Agent, Client, Lines, UntypedMessage};
use elicit::agent_client_protocol::client::ElicitClient;
use elicit::client::{
    AskFuture, Asker, AskerNotice, ClientPolicy, Consent, ConsentPrompt, FieldAnswer, FieldPrompt,
    ReviewChoice, ReviewPrompt, ScriptedAsker, Shown, Step,
};
use elicit::{ElicitationCapabilities, Mode, Scope};
use futures::channel::{mpsc, oneshot};
use futures::future;
use futures::{SinkExt, Stream, StreamExt};
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

use crate::common;
use crate::protocol_support::assert_acp;

/// The bound on any one test's run. Generous: the machine is shared with builds.
const WAIT: Duration = Duration::from_secs(90);

/// The example agents' executables, built once per test binary.
fn acp_agent() -> &'static Path {
    static BINARY: OnceLock<PathBuf> = OnceLock::new();
    BINARY.get_or_init(|| common::build_example("acp_agent"))
}

/// A current-thread tokio runtime with its I/O and timer (the children's pipes).
fn run<F: Future<Output = ()>>(test: F) {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime")
        .block_on(async {
            tokio::time::timeout(WAIT, test)
                .await
                .unwrap_or_else(|_| panic!("the test did not finish within {WAIT:?}"));
        });
}

// ---------------------------------------------------------------------------------------
// The wire

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Direction {
    ToClient,
    ToAgent,
}

/// Every line written on one connection, in order, as written.
#[derive(Clone, Default)]
struct Wire(Arc<Mutex<Vec<(Direction, String)>>>);

impl Wire {
    fn record(&self, direction: Direction, line: &str) {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push((direction, line.to_owned()));
    }

    fn lines(&self, direction: Direction) -> Vec<String> {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .iter()
            .filter(|(d, _)| *d == direction)
            .map(|(_, line)| line.clone())
            .collect()
    }

    fn messages(&self, direction: Direction) -> Vec<Value> {
        self.lines(direction)
            .iter()
            .map(|line| {
                serde_json::from_str(line)
                    .unwrap_or_else(|e| panic!("a line on the wire is not JSON ({e}): {line}"))
            })
            .collect()
    }

    /// The agent's `elicitation/create` requests, raw line and parsed.
    fn creates(&self) -> Vec<(String, Value)> {
        self.lines(Direction::ToClient)
            .into_iter()
            .filter_map(|line| {
                let message: Value = serde_json::from_str(&line).ok()?;
                (message["method"] == "elicitation/create").then_some((line, message))
            })
            .collect()
    }

    /// The client's answers to `elicitation/create`, raw line and parsed, in order.
    fn answers(&self) -> Vec<(String, Value)> {
        let ids: Vec<Value> = self
            .creates()
            .into_iter()
            .map(|(_, m)| m["id"].clone())
            .collect();
        self.lines(Direction::ToAgent)
            .into_iter()
            .filter_map(|line| {
                let message: Value = serde_json::from_str(&line).ok()?;
                (message.get("method").is_none() && ids.contains(&message["id"]))
                    .then_some((line, message))
            })
            .collect()
    }

    /// Checks every message the client sent that elicitation touches against the
    /// official ACP schemas: `initialize`'s params (v1, its elicitation capability v1
    /// and v2), each result and each error it answered an agent's request with (v1
    /// and v2). Returns how many were checked.
    fn assert_client_messages_valid(&self) -> usize {
        let mut checked = 0;
        for message in self.messages(Direction::ToAgent) {
            if message["method"] == "initialize" {
                // A v1 `initialize` (v2 renames `clientCapabilities` and requires
                // `info`): the whole request against v1, and the elicitation
                // capability elicit declares against both.
                common::assert_valid_acp_versions(&["v1"], "InitializeRequest", &message["params"]);
                let declared = &message["params"]["clientCapabilities"]["elicitation"];
                if !declared.is_null() {
                    assert_acp("ElicitationCapabilities", declared);
                }
                checked += 1;
            } else if message.get("method").is_none() {
                if let Some(result) = message.get("result") {
                    if self.creates().iter().any(|(_, c)| c["id"] == message["id"]) {
                        assert_acp("CreateElicitationResponse", result);
                        checked += 1;
                    }
                }
                if let Some(error) = message.get("error") {
                    assert_acp("Error", error);
                    checked += 1;
                }
            }
        }
        checked
    }

    /// The `clientCapabilities.elicitation` the client declared.
    fn declared(&self) -> Value {
        self.messages(Direction::ToAgent)
            .into_iter()
            .find(|m| m["method"] == "initialize")
            .expect("the client sent `initialize`")["params"]["clientCapabilities"]["elicitation"]
            .clone()
    }
}

/// A line sink that records what it writes.
fn recording_sink<W: tokio::io::AsyncWrite + Unpin + Send + 'static>(
    wire: &Wire,
    direction: Direction,
    writer: W,
) -> impl futures::Sink<String, Error = io::Error> + Send + 'static {
    let wire = wire.clone();
    futures::sink::unfold(writer, move |mut writer, line: String| {
        let wire = wire.clone();
        async move {
            let line = line.trim_end_matches('\n');
            wire.record(direction, line);
            writer.write_all(line.as_bytes()).await?;
            writer.write_all(b"\n").await?;
            writer.flush().await?;
            Ok::<_, io::Error>(writer)
        }
    })
}

/// The lines of a reader, recorded as they are read.
fn recording_stream<R: tokio::io::AsyncRead + Unpin + Send + 'static>(
    wire: &Wire,
    direction: Direction,
    reader: R,
) -> impl Stream<Item = io::Result<String>> + Send + 'static {
    let wire = wire.clone();
    let lines = BufReader::new(reader).lines();
    futures::stream::unfold(lines, move |mut lines| {
        let wire = wire.clone();
        async move {
            match lines.next_line().await {
                Ok(Some(line)) => {
                    wire.record(direction, &line);
                    Some((Ok(line), lines))
                }
                Ok(None) => None,
                Err(error) => Some((Err(error), lines)),
            }
        }
    })
}

/// One direction of an in-memory pipe, recorded.
fn pipe(
    wire: &Wire,
    direction: Direction,
) -> (
    impl futures::Sink<String, Error = io::Error> + Send + 'static,
    impl Stream<Item = io::Result<String>> + Send + 'static,
) {
    let (sender, receiver) = mpsc::unbounded::<String>();
    let wire = wire.clone();
    let writer = sender
        .sink_map_err(|_| io::Error::from(io::ErrorKind::BrokenPipe))
        .with(move |line: String| {
            wire.record(direction, &line);
            future::ready(Ok::<_, io::Error>(line))
        });
    (writer, receiver.map(Ok))
}

// ---------------------------------------------------------------------------------------
// Askers

/// What an asker was introduced with, once per question: the line a person reads and
/// the scope (K1).
#[derive(Clone, Default)]
struct Intros(Arc<Mutex<Vec<Intro>>>);

/// The introduction line and the scope of one question.
type Intro = (String, Option<Scope>);

impl Intros {
    fn get(&self) -> Vec<Intro> {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

/// A [`ScriptedAsker`] that also records each question's introduction, and each
/// field's `_meta` and option descriptions (members the SDK's typed model drops).
struct Recorded {
    inner: ScriptedAsker,
    intros: Intros,
    members: Vec<(Option<Value>, Vec<Option<String>>)>,
}

impl Recorded {
    fn new(inner: ScriptedAsker) -> (Self, Intros) {
        let intros = Intros::default();
        let asker = Recorded {
            inner,
            intros: intros.clone(),
            members: Vec::new(),
        };
        (asker, intros)
    }

    fn record(&self, intro: &elicit::client::Intro<'_>) {
        self.intros
            .0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push((intro.to_string(), intro.scope.cloned()));
    }
}

impl Asker for Recorded {
    fn modes(&self) -> ElicitationCapabilities {
        self.inner.modes()
    }
    fn ask_field<'a>(&'a mut self, prompt: FieldPrompt<'a>) -> AskFuture<'a, FieldAnswer> {
        if prompt.position == 0 {
            self.record(&prompt.intro);
        }
        let field = prompt.field;
        let meta = field.property().schema().meta().cloned().map(Value::Object);
        let descriptions = field
            .options()
            .iter()
            .map(|c| c.description.map(str::to_owned))
            .collect();
        self.members.push((meta, descriptions));
        self.inner.ask_field(prompt)
    }
    fn review<'a>(&'a mut self, prompt: ReviewPrompt<'a>) -> AskFuture<'a, ReviewChoice> {
        self.inner.review(prompt)
    }
    fn consent<'a>(&'a mut self, prompt: ConsentPrompt<'a>) -> AskFuture<'a, Consent> {
        self.record(&prompt.intro);
        self.inner.consent(prompt)
    }
    fn notice(&mut self, notice: &AskerNotice) {
        self.inner.notice(notice);
    }
}

/// A person who never answers: every question stays open until it is stopped.
#[derive(Default)]
struct Silent {
    asked: Arc<AtomicUsize>,
    stopped: Arc<AtomicUsize>,
    notices: Arc<Mutex<Vec<AskerNotice>>>,
    /// Told when the first question is asked.
    asking: Option<oneshot::Sender<()>>,
}

impl Asker for Silent {
    fn ask_field<'a>(&'a mut self, prompt: FieldPrompt<'a>) -> AskFuture<'a, FieldAnswer> {
        self.asked.fetch_add(1, Ordering::SeqCst);
        let stopped = Arc::clone(&self.stopped);
        prompt.stop.on_stop(move || {
            stopped.fetch_add(1, Ordering::SeqCst);
        });
        if let Some(asking) = self.asking.take() {
            let _ = asking.send(());
        }
        Box::pin(future::pending())
    }
    fn review<'a>(&'a mut self, _: ReviewPrompt<'a>) -> AskFuture<'a, ReviewChoice> {
        Box::pin(future::pending())
    }
    fn notice(&mut self, notice: &AskerNotice) {
        self.notices
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(notice.clone());
    }
}

fn fields_shown(shown: &[Shown]) -> Vec<String> {
    shown
        .iter()
        .filter_map(|s| match s {
            Shown::Field { name, .. } => Some(name.clone()),
            _ => None,
        })
        .collect()
}

fn completions(shown: &[Shown]) -> Vec<String> {
    shown
        .iter()
        .filter_map(|s| match s {
            Shown::Notice(AskerNotice::Completed { elicitation_id }) => {
                Some(elicitation_id.clone())
            }
            _ => None,
        })
        .collect()
}

/// Waits (bounded by the test's [`WAIT`]) until the asker was shown what `done` looks
/// for: a completion arrives after the answer that consented, through its own task.
async fn until_shown(elicit: &ElicitClient<ScriptedAsker>, done: impl Fn(&[Shown]) -> bool) {
    loop {
        if done(elicit.asker().await.shown()) {
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

// ---------------------------------------------------------------------------------------
// The example agents, over stdio

/// Starts `binary`, connects an SDK client with `elicit`'s handler over the child's
/// stdio, sends `initialize`, opens a session and one prompt, and returns the text of
/// the turn and the wire. `beside` runs alongside the turn (a browser, for instance).
async fn turn_with<A: Asker + 'static>(
    binary: &Path,
    elicit: &ElicitClient<A>,
    beside: impl Future<Output = ()>,
) -> (String, Wire) {
    let wire = Wire::default();
    let mut child = tokio::process::Command::new(binary)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {}: {e}", binary.display()));
    let stdin = child.stdin.take().expect("a piped stdin");
    let stdout = child.stdout.take().expect("a piped stdout");
    let transport = Lines::new(
        recording_sink(&wire, Direction::ToAgent, stdin),
        recording_stream(&wire, Direction::ToClient, stdout),
    );
    let client = {
        let elicit = elicit.clone();
        Client.v1().with_handler(elicit.clone()).connect_with(
            transport,
            async move |cx: ConnectionTo<Agent>| {
                elicit
                    .initialize(&cx, acp::InitializeRequest::new(ProtocolVersion::V1))
                    .await?;
                cx.build_session_cwd()?
                    .block_task()
                    .run_until(async |SessionSetup { mut session, .. }| {
                        session.send_prompt("Tidy up the parser")?;
                        session.read_to_string().await
                    })
                    .await
            },
        )
    };
    let (text, ()) = future::join(client, beside).await;
    drop(child);
    (text.expect("the turn ends with the agent's answer"), wire)
}

async fn turn<A: Asker + 'static>(elicit: &ElicitClient<A>) -> (String, Wire) {
    turn_with(acp_agent(), elicit, async {}).await
}

/// The answers of the form turns: strategy, passes, notify, run_tests kept, review.
fn plan_steps() -> Vec<Step> {
    vec![
        Step::Field(FieldAnswer::Value(json!("Aggressive"))),
        Step::Field(FieldAnswer::Text("4".into())),
        Step::Field(FieldAnswer::Text("ada@example.com".into())),
        Step::Field(FieldAnswer::Keep),
        Step::Review(ReviewChoice::Send),
    ]
}

// covers: C1, C3, D13, E1, E3, E7, F3, F4, K1, K4, R1, R3
#[test]
fn a_form_accepted_reaches_the_agent_in_the_agents_order() {
    run(async {
        let (asker, intros) = Recorded::new(ScriptedAsker::new(plan_steps()));
        let elicit = ElicitClient::new(asker);
        let (text, wire) = turn(&elicit).await;
        // The agent got the values: its turn says so.
        assert!(
            text.contains("strategy Aggressive, 4 review pass(es), summary to ada@example.com, tests after each pass: yes"),
            "{text}"
        );
        // C1: the client declared what its asker renders, and nothing else.
        assert_eq!(wire.declared(), json!({ "form": {}, "url": {} }));
        assert!(wire.assert_client_messages_valid() >= 2);

        // D13 on the agent's bytes: its properties are not alphabetical…
        let creates = wire.creates();
        assert_eq!(creates.len(), 1);
        let (create_line, create) = &creates[0];
        let order = ["strategy", "passes", "notify", "run_tests"];
        let at = |line: &str, key: &str| {
            line.find(&format!("\"{key}\":"))
                .unwrap_or_else(|| panic!("`{key}` not in {line}"))
        };
        assert!(order
            .windows(2)
            .all(|w| at(create_line, w[0]) < at(create_line, w[1])));
        // …the SDK's typed request sorts them…
        let typed: acp::CreateElicitationRequest =
            serde_json::from_value(create["params"].clone()).expect("the SDK reads the request");
        let acp::ElicitationMode::Form(form) = &typed.mode else {
            panic!("a form: {typed:?}")
        };
        let sorted: Vec<&str> = form
            .requested_schema
            .properties
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(sorted, ["notify", "passes", "run_tests", "strategy"]);
        // …the asker saw them in the agent's order, defaults pre-filled (F4)…
        let asker = elicit.asker().await;
        assert_eq!(fields_shown(asker.inner.shown()), order);
        assert!(asker.inner.shown().contains(&Shown::Field {
            name: "passes".into(),
            value: Some(json!(2)),
            problem: None
        }));
        drop(asker);
        // …and the answer's content keeps it, on the client's bytes.
        let answers = wire.answers();
        assert_eq!(answers.len(), 1);
        let (answer_line, answer) = &answers[0];
        assert_eq!(
            answer["result"],
            json!({ "action": "accept", "content": {
                "strategy": "Aggressive", "passes": 4, "notify": "ada@example.com", "run_tests": true
            } })
        );
        let sent = ["strategy", "passes", "notify", "run_tests"];
        assert!(sent
            .windows(2)
            .all(|w| at(answer_line, w[0]) < at(answer_line, w[1])));

        // K1, K4: who asks (the agent's title and name from `initialize`), its
        // message, and the session it asks for (E3).
        let intros = intros.get();
        assert_eq!(intros.len(), 1);
        let (line, scope) = &intros[0];
        assert!(
            line.starts_with("elicit example agent (elicit-acp-agent "),
            "{line}"
        );
        assert!(
            line.contains("Before I start, tell me how to go about this task."),
            "{line}"
        );
        let session = create["params"]["sessionId"].as_str().unwrap();
        assert!(line.ends_with(&format!("(session {session})")), "{line}");
        assert_eq!(scope.as_ref(), Some(&Scope::session(session)));
    });
}

// covers: K1, R1, R5
#[test]
fn declining_and_dismissing_the_form_reach_the_agent_as_such() {
    run(async {
        for (step, action, said) in [
            (
                FieldAnswer::Decline,
                "decline",
                "You declined to give a plan",
            ),
            (FieldAnswer::Cancel, "cancel", "You dismissed the question"),
        ] {
            let asker = ScriptedAsker::new([Step::Field(step)]);
            let elicit = ElicitClient::new(asker);
            let (text, wire) = turn(&elicit).await;
            assert!(text.contains(said), "{text}");
            let answers = wire.answers();
            assert_eq!(answers[0].1["result"], json!({ "action": action }));
            assert!(wire.assert_client_messages_valid() >= 2);
        }
    });
}

// covers: R1, K1
#[test]
fn the_deadline_answers_cancel_and_stops_the_question() {
    run(async {
        let asker = Silent::default();
        let (asked, stopped, notices) = (
            Arc::clone(&asker.asked),
            Arc::clone(&asker.stopped),
            Arc::clone(&asker.notices),
        );
        let policy = ClientPolicy::new().with_deadline(Duration::from_millis(300));
        let elicit = ElicitClient::new(asker).with_policy(policy);
        let (text, wire) = turn(&elicit).await;
        assert!(text.contains("You dismissed the question"), "{text}");
        assert_eq!(wire.answers()[0].1["result"], json!({ "action": "cancel" }));
        assert_eq!(asked.load(Ordering::SeqCst), 1);
        // The open question was told to stop, and the person why.
        assert_eq!(stopped.load(Ordering::SeqCst), 1);
        let notices = notices.lock().unwrap().clone();
        assert!(
            matches!(&notices[..], [AskerNotice::TimedOut { agent }] if agent.contains("elicit-acp-agent")),
            "{notices:?}"
        );
        assert!(wire.assert_client_messages_valid() >= 2);
    });
}

// covers: R1
#[test]
fn never_ask_declines_without_showing_anything() {
    run(async {
        let elicit =
            ElicitClient::new(ScriptedAsker::new([])).with_policy(ClientPolicy::never_ask());
        let (text, wire) = turn(&elicit).await;
        assert!(text.contains("You declined to give a plan"), "{text}");
        assert_eq!(
            wire.answers()[0].1["result"],
            json!({ "action": "decline" })
        );
        assert_eq!(elicit.asker().await.shown(), &[]);
        assert!(wire.assert_client_messages_valid() >= 2);
    });
}

// covers: C1, C3, C7, K3, S2, U1, U2, U5, U6
#[test]
fn url_consent_then_the_agents_completion_reaches_the_asker_once() {
    run(async {
        let asker = ScriptedAsker::new([Step::Consent(Consent::Open)])
            .with_modes(ElicitationCapabilities::with_modes([Mode::Url]));
        let elicit = ElicitClient::new(asker);
        let (text, wire) = turn(&elicit).await;
        // C1, C7: URL only declared, so the agent asked in URL mode.
        assert_eq!(wire.declared(), json!({ "url": {} }));
        let create = &wire.creates()[0].1["params"];
        assert_eq!(create["mode"], "url");
        let id = create["elicitationId"].as_str().unwrap().to_owned();
        assert!(
            text.contains(&format!("sent `elicitation/complete` for elicitation {id}")),
            "{text}"
        );
        assert_eq!(wire.answers()[0].1["result"], json!({ "action": "accept" }));
        // S2, K3: the full URL was shown before consent.
        until_shown(&elicit, |shown| !completions(shown).is_empty()).await;
        let asker = elicit.asker().await;
        assert!(matches!(
            &asker.shown()[0],
            Shown::Consent { url, .. } if url == "http://127.0.0.1:47615/consent"
        ));
        // U5, U6: the completion reached the person once, and the id is done.
        assert_eq!(completions(asker.shown()), [id.as_str()]);
        drop(asker);
        assert!(!elicit.is_pending(&id));
        assert!(wire.assert_client_messages_valid() >= 2);
    });
}

// covers: C1, C4, C7
#[test]
fn an_asker_that_renders_no_mode_declares_none() {
    run(async {
        let asker = ScriptedAsker::new([]).with_modes(ElicitationCapabilities::new());
        let elicit = ElicitClient::new(asker);
        let (text, wire) = turn(&elicit).await;
        assert_eq!(wire.declared(), json!({}));
        assert!(wire.creates().is_empty());
        assert!(text.contains("declared no elicitation mode"), "{text}");
        assert_eq!(wire.assert_client_messages_valid(), 1);
    });
}

/// `url_secret_agent`: the person consents in the client, then types the key on the
/// agent's own page in a browser (here, plain HTTP); the agent's completion follows.
#[cfg(feature = "axum")]
mod secret_page {
    use super::*;
    use std::io::{Read, Write};
    use std::net::TcpStream;

    fn url_secret_agent() -> &'static Path {
        static BINARY: OnceLock<PathBuf> = OnceLock::new();
        BINARY.get_or_init(|| common::build_example("url_secret_agent"))
    }

    /// One HTTP/1.1 exchange, as a browser on the page: status, headers, body.
    fn http(
        url: &str,
        method: &str,
        headers: &[(&str, &str)],
        body: &str,
    ) -> (u16, String, String) {
        let rest = url.strip_prefix("http://").expect("an http URL");
        let (host, path) = rest.split_at(rest.find('/').expect("a path"));
        let mut stream = TcpStream::connect(host).expect("the page listens");
        stream
            .set_read_timeout(Some(Duration::from_secs(20)))
            .unwrap();
        let mut request =
            format!("{method} {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n");
        for (name, value) in headers {
            request.push_str(&format!("{name}: {value}\r\n"));
        }
        request.push_str(&format!("Content-Length: {}\r\n\r\n{body}", body.len()));
        stream.write_all(request.as_bytes()).unwrap();
        let mut raw = String::new();
        stream.read_to_string(&mut raw).expect("the page answers");
        let (head, body) = raw.split_once("\r\n\r\n").expect("an HTTP reply");
        let status = head
            .split(' ')
            .nth(1)
            .and_then(|s| s.parse().ok())
            .expect("a status");
        (status, head.to_owned(), body.to_owned())
    }

    /// Opens the page and submits `key` on it.
    fn fill_in(url: &str, key: &str) {
        let (status, head, _) = http(url, "GET", &[("Sec-Fetch-Site", "none")], "");
        assert_eq!(status, 200);
        let cookie = head
            .lines()
            .find_map(|l| {
                l.strip_prefix("set-cookie: ")
                    .or_else(|| l.strip_prefix("Set-Cookie: "))
            })
            .and_then(|v| v.split(';').next())
            .expect("the page binds the browser")
            .to_owned();
        let origin = url.split("/elicit/").next().unwrap();
        let form = format!("f.api_key={key}&f.region=us-east&elicit-action=accept");
        let (status, _, body) = http(
            url,
            "POST",
            &[
                ("Origin", origin),
                ("Sec-Fetch-Site", "same-origin"),
                ("Content-Type", "application/x-www-form-urlencoded"),
                ("Cookie", &cookie),
            ],
            &form,
        );
        assert_eq!(status, 200, "{body}");
    }

    // covers: F6, K3, S2, U2, U3, U5, U6
    #[test]
    fn the_key_goes_to_the_page_and_the_completion_to_the_person() {
        const KEY: &str = "sk-live-4f9a0c1d2e3b4a5f";
        run(async {
            let asker = ScriptedAsker::new([Step::Consent(Consent::Open)]);
            let elicit = ElicitClient::new(asker);
            let browser = {
                let elicit = elicit.clone();
                async move {
                    // The person consented in the client; then they open the link.
                    until_shown(&elicit, |shown| {
                        shown.iter().any(|s| matches!(s, Shown::Consent { .. }))
                    })
                    .await;
                    let url = match &elicit.asker().await.shown()[0] {
                        Shown::Consent { url, .. } => url.clone(),
                        other => panic!("a consent first: {other:?}"),
                    };
                    tokio::task::spawn_blocking(move || fill_in(&url, KEY))
                        .await
                        .expect("the browser finishes");
                }
            };
            let (text, wire) = turn_with(url_secret_agent(), &elicit, browser).await;
            assert!(
                text.contains(&format!("received an API key of {} characters", KEY.len())),
                "{text}"
            );
            // U3: the key never went over ACP, either way.
            for direction in [Direction::ToAgent, Direction::ToClient] {
                assert!(wire.lines(direction).iter().all(|l| !l.contains(KEY)));
            }
            let id = wire.creates()[0].1["params"]["elicitationId"]
                .as_str()
                .unwrap()
                .to_owned();
            until_shown(&elicit, |shown| !completions(shown).is_empty()).await;
            assert_eq!(completions(elicit.asker().await.shown()), [id]);
            assert!(wire.assert_client_messages_valid() >= 2);
        });
    }
}

// ---------------------------------------------------------------------------------------
// An agent written here, over an in-memory pipe

/// What the test's agent body gets: its connection to the client, and the client's
/// connection to it (to send requests as the client).
struct Both {
    agent: ConnectionTo<Client>,
    client: ConnectionTo<Agent>,
    /// The connection's wire so far.
    wire: Wire,
}

impl Both {
    /// Sends raw `elicitation/create` params; the client's result, or its error.
    async fn create(&self, params: Value) -> Result<Value, agent_client_protocol::Error> {
        let message = UntypedMessage::new("elicitation/create", params).unwrap();
        self.agent.send_request(message).block_task().await
    }

    fn complete(&self, elicitation_id: &str) {
        let message = UntypedMessage::new(
            "elicitation/complete",
            json!({ "elicitationId": elicitation_id }),
        )
        .unwrap();
        self.agent.send_notification(message).unwrap();
    }
}

/// Connects an SDK agent (answering `initialize` as "Test agent", and `session/new`
/// after a request-scoped elicitation) to an SDK client carrying `elicit`'s handler,
/// runs `body`, and returns the wire once both ended.
async fn with_agent<A: Asker + 'static>(
    elicit: &ElicitClient<A>,
    body: impl AsyncFnOnce(Both),
) -> Wire {
    let wire = Wire::default();
    let (agent_out, client_in) = pipe(&wire, Direction::ToClient);
    let (client_out, agent_in) = pipe(&wire, Direction::ToAgent);
    let (client_ready, client_made) = oneshot::channel::<ConnectionTo<Agent>>();
    let (close_client, client_closed) = oneshot::channel::<()>();

    let agent = Agent
        .v1()
        .on_receive_request(
            async move |request: acp::InitializeRequest,
                        responder: Responder<acp::InitializeResponse>,
                        _cx: ConnectionTo<Client>| {
                responder.respond(
                    acp::InitializeResponse::new(request.protocol_version).agent_info(
                        acp::Implementation::new("test-agent", "1.0").title("Test agent"),
                    ),
                )
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |_request: acp::NewSessionRequest,
                        responder: Responder<acp::NewSessionResponse>,
                        cx: ConnectionTo<Client>| {
                // Before the session exists: scoped to the pending `session/new` (E3).
                let request_id = serde_json::to_value(responder.raw_id()).unwrap();
                let turn = cx.clone();
                cx.spawn(async move {
                    let params = json!({
                        "mode": "form", "requestId": request_id, "message": "Which workspace?",
                        "requestedSchema": { "type": "object", "properties": {
                            "workspace": { "type": "string", "default": "main" } } }
                    });
                    let message = UntypedMessage::new("elicitation/create", params)?;
                    turn.send_request(message).block_task().await?;
                    responder.respond(acp::NewSessionResponse::new("s1"))
                })
            },
            agent_client_protocol::on_receive_request!(),
        );
    let body_wire = wire.clone();
    let agent_side = agent.connect_with(Lines::new(agent_out, agent_in), async move |cx| {
        let client = client_made.await.expect("the client is connected");
        body(Both {
            agent: cx,
            client,
            wire: body_wire,
        })
        .await;
        drop(close_client);
        Ok(())
    });
    let client_side = {
        let elicit = elicit.clone();
        Client.v1().with_handler(elicit.clone()).connect_with(
            Lines::new(client_out, client_in),
            async move |cx| {
                elicit
                    .initialize(&cx, acp::InitializeRequest::new(ProtocolVersion::V1))
                    .await?;
                let _ = client_ready.send(cx);
                let _ = client_closed.await;
                Ok(())
            },
        )
    };
    let (agent_result, client_result) = future::join(agent_side, client_side).await;
    agent_result.expect("the agent's side ends cleanly");
    drop(client_result);
    wire
}

/// A form with one optional text field, in this scope.
fn small_form(scope: Value) -> Value {
    let mut params = json!({
        "mode": "form", "message": "Name it",
        "requestedSchema": { "type": "object", "properties": {
            "name": { "type": "string", "default": "x" } } }
    });
    params
        .as_object_mut()
        .unwrap()
        .extend(scope.as_object().unwrap().clone());
    params
}

fn keep_and_send(times: usize) -> Vec<Step> {
    (0..times)
        .flat_map(|_| {
            [
                Step::Field(FieldAnswer::Keep),
                Step::Review(ReviewChoice::Send),
            ]
        })
        .collect()
}

// covers: E3, K1, K4
#[test]
fn session_tool_call_and_request_scopes_reach_the_asker() {
    run(async {
        let (asker, intros) = Recorded::new(ScriptedAsker::new(keep_and_send(3)));
        let elicit = ElicitClient::new(asker);
        let wire = with_agent(&elicit, async |both: Both| {
            let accepted = json!({ "action": "accept", "content": { "name": "x" } });
            let session = both.create(small_form(json!({ "sessionId": "s1" }))).await;
            assert_eq!(session.unwrap(), accepted);
            let tool_call = small_form(json!({ "sessionId": "s1", "toolCallId": "call-7" }));
            assert_eq!(both.create(tool_call).await.unwrap(), accepted);
            // The request scope: the agent asks while the client's `session/new` waits.
            let opened = both
                .client
                .send_request(acp::NewSessionRequest::new("/tmp"))
                .block_task()
                .await
                .expect("the session opens once the question is answered");
            assert_eq!(&*opened.session_id.0, "s1");
        })
        .await;
        let new_session_id = wire
            .messages(Direction::ToAgent)
            .into_iter()
            .find(|m| m["method"] == "session/new")
            .expect("the client sent `session/new`")["id"]
            .clone();
        let intros = intros.get();
        let scopes: Vec<Option<Scope>> = intros.iter().map(|(_, s)| s.clone()).collect();
        let request_scope: elicit::Scope = Scope::request(
            serde_json::from_value::<elicit::protocol::RequestId>(new_session_id.clone()).unwrap(),
        );
        assert_eq!(
            scopes,
            [
                Some(Scope::session("s1")),
                Some(Scope::tool_call("s1", "call-7")),
                Some(request_scope)
            ]
        );
        // What the person reads: the agent, the message, and the scope.
        assert!(
            intros[0]
                .0
                .starts_with("Test agent (test-agent 1.0) asks: Name it"),
            "{}",
            intros[0].0
        );
        assert!(intros[0].0.ends_with("(session s1)"));
        assert!(
            intros[1].0.ends_with("(session s1, tool call call-7)"),
            "{}",
            intros[1].0
        );
        assert!(
            intros[2]
                .0
                .ends_with(&format!("(before any session: request {new_session_id})")),
            "{}",
            intros[2].0
        );
        assert_eq!(wire.assert_client_messages_valid(), 4);
    });
}

// covers: C8, D2, E6, F1, D1
#[test]
fn a_request_the_client_must_refuse_is_answered_32602_and_the_person_told_why() {
    run(async {
        let asker =
            ScriptedAsker::new([]).with_modes(ElicitationCapabilities::with_modes([Mode::Form]));
        let elicit = ElicitClient::new(asker);
        let wire = with_agent(&elicit, async |both: Both| {
            let refused = [
                // E6: a property kind no client knows; never rendered as a known one,
                // never skipped.
                json!({ "mode": "form", "sessionId": "s1", "message": "Pick a colour",
                    "requestedSchema": { "type": "object", "properties": {
                        "name": { "type": "string" }, "colour": { "type": "_color" } } } }),
                // F1: no nesting.
                json!({ "mode": "form", "sessionId": "s1", "message": "Address",
                    "requestedSchema": { "type": "object", "properties": {
                        "address": { "type": "object", "properties": {} } } } }),
                // C8: a mode this client did not declare.
                json!({ "mode": "url", "sessionId": "s1", "message": "Sign in",
                    "elicitationId": "e1", "url": "https://auth.example.com/" }),
                // D1: two scopes.
                json!({ "mode": "form", "sessionId": "s1", "requestId": 3, "message": "Both",
                    "requestedSchema": { "type": "object", "properties": {} } }),
            ];
            for params in refused {
                let error = both.create(params.clone()).await.expect_err("refused");
                assert_eq!(error.code.value(), -32602, "{params}");
            }
        })
        .await;
        // Every refusal went out as an ACP error, and the person saw each one's reason.
        assert_eq!(wire.assert_client_messages_valid(), 1 + 4);
        let asker = elicit.asker().await;
        let reasons: Vec<String> = asker
            .shown()
            .iter()
            .map(|s| match s {
                Shown::Notice(AskerNotice::Refused { agent, reason }) => {
                    assert!(agent.contains("test-agent"), "{agent}");
                    reason.clone()
                }
                other => panic!("nothing but refusals is shown: {other:?}"),
            })
            .collect();
        assert_eq!(reasons.len(), 4, "{reasons:?}");
        assert!(reasons[0].contains("_color"), "{}", reasons[0]);
        assert!(reasons[1].contains("address"), "{}", reasons[1]);
        assert!(reasons[2].contains("url"), "{}", reasons[2]);
        let errors: Vec<Value> = wire
            .answers()
            .into_iter()
            .map(|(_, m)| m["error"].clone())
            .collect();
        assert!(errors.iter().all(|e| e["code"] == -32602), "{errors:?}");
    });
}

// covers: D7, D13, E7, F4
#[test]
fn the_raw_params_keep_the_agents_order_and_what_the_typed_request_drops() {
    run(async {
        let steps = [FieldAnswer::Keep, FieldAnswer::Keep, FieldAnswer::Keep]
            .map(Step::Field)
            .into_iter()
            .chain([Step::Review(ReviewChoice::Send)]);
        let (asker, _) = Recorded::new(ScriptedAsker::new(steps));
        let elicit = ElicitClient::new(asker);
        // Not alphabetical; an unknown `format` and a member the SDK's types do not
        // model; an option description and a property `_meta`.
        let params = json!({ "mode": "form", "sessionId": "s1", "message": "Pick",
            "requestedSchema": { "type": "object", "properties": {
                "zeta": { "type": "string", "default": "z", "format": "hostname",
                          "_meta": { "x.example/hint": 1 } },
                "alpha": { "type": "string", "default": "a",
                           "oneOf": [ { "const": "a", "title": "A", "description": "the first" } ] },
                "mid": { "type": "integer", "default": 3, "x-unit": "passes" } } } });
        // The SDK's typed request cannot even be read: the form would never reach a
        // typed handler, and the person would never hear of it.
        assert!(serde_json::from_value::<acp::CreateElicitationRequest>(params.clone()).is_err());
        let wire = with_agent(&elicit, async |both: Both| {
            let answer = both.create(params).await.expect("answered");
            assert_eq!(
                answer,
                json!({ "action": "accept", "content": { "zeta": "z", "alpha": "a", "mid": 3 } })
            );
        })
        .await;
        let (line, _) = &wire.answers()[0];
        let at = |k: &str| line.find(&format!("\"{k}\"")).unwrap();
        assert!(
            at("zeta") < at("alpha") && at("alpha") < at("mid"),
            "{line}"
        );
        let asker = elicit.asker().await;
        assert_eq!(fields_shown(asker.inner.shown()), ["zeta", "alpha", "mid"]);
        // E7: the property's `_meta` and the option's description reached the asker.
        assert_eq!(asker.members[0].0, Some(json!({ "x.example/hint": 1 })));
        assert_eq!(asker.members[1].1, [Some("the first".to_owned())]);
        assert_eq!(wire.assert_client_messages_valid(), 2);
    });
}

// covers: U2, U4, U5, U6
#[test]
fn unknown_and_repeated_completions_are_ignored() {
    run(async {
        let asker = ScriptedAsker::new(
            [
                Step::Consent(Consent::Open),
                Step::Consent(Consent::Decline),
            ]
            .into_iter()
            .chain(keep_and_send(1)),
        );
        let elicit = ElicitClient::new(asker);
        let probe = elicit.clone();
        let wire = with_agent(&elicit, async move |both: Both| {
            let url = |id: &str| {
                json!({ "mode": "url", "sessionId": "s1", "message": "Sign in",
                        "elicitationId": id, "url": "https://auth.example.com/start" })
            };
            assert_eq!(
                both.create(url("el-1")).await.unwrap(),
                json!({ "action": "accept" })
            );
            assert!(probe.is_pending("el-1"));
            assert_eq!(
                both.create(url("el-2")).await.unwrap(),
                json!({ "action": "decline" })
            );
            // U6: an id never sent, one the person declined, the real one twice.
            both.complete("el-unknown");
            both.complete("el-2");
            both.complete("el-1");
            both.complete("el-1");
            // One more question, so every completion above has been dispatched.
            let form = small_form(json!({ "sessionId": "s1" }));
            assert_eq!(both.create(form).await.unwrap()["action"], "accept");
            until_shown(&probe, |shown| !completions(shown).is_empty()).await;
        })
        .await;
        let asker = elicit.asker().await;
        assert_eq!(completions(asker.shown()), ["el-1"]);
        drop(asker);
        assert!(!elicit.is_pending("el-1"));
        assert_eq!(wire.assert_client_messages_valid(), 4);
    });
}

// covers: R1 (the agent's `$/cancel_request`, ACP's request cancellation)
#[test]
fn a_request_the_agent_withdraws_ends_the_question() {
    run(async {
        let (asking, asked) = oneshot::channel();
        let asker = Silent {
            asking: Some(asking),
            ..Silent::default()
        };
        let stopped = Arc::clone(&asker.stopped);
        let elicit = ElicitClient::new(asker);
        let wire = with_agent(&elicit, async move |both: Both| {
            let question = both.create(small_form(json!({ "sessionId": "s1" })));
            // Dropped once the person is being asked: the SDK sends `$/cancel_request`.
            match future::select(Box::pin(question), asked).await {
                future::Either::Right((Ok(()), question)) => drop(question),
                future::Either::Right((Err(_), _)) => panic!("the asker was dropped"),
                future::Either::Left((answer, _)) => panic!("answered without asking: {answer:?}"),
            }
            // The client ends the question and answers the withdrawn request.
            while both.wire.answers().is_empty() {
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
        })
        .await;
        assert_eq!(stopped.load(Ordering::SeqCst), 1);
        let sent = wire.messages(Direction::ToClient);
        assert!(
            sent.iter().any(|m| m["method"] == "$/cancel_request"),
            "{sent:?}"
        );
        let answers = wire.answers();
        assert_eq!(answers.len(), 1);
        assert_eq!(answers[0].1["error"]["code"], -32800, "{}", answers[0].0);
        assert_eq!(wire.assert_client_messages_valid(), 2);
    });
}
