//! An MCP client on rmcp 3.x whose whole screen is a ratatui application: every
//! elicitation is answered with elicit's form widget (`elicit::client::tui`), inside
//! the application's own frame, from its own key events.
//!
//! ```text
//! cargo run --example tui_client --features ratatui,rmcp_3 -- [--accept-defaults] \
//!     [--protocol VERSION] [--call TOOL]… [--call-all] (URL | -- COMMAND ARGS…)
//! ```
//!
//! The arguments are `mcp_client`'s:
//!
//! - `URL` (the last argument): the server over Streamable HTTP (plain `http://`);
//!   `-- COMMAND ARGS…`: the server started as a child process over its stdin and
//!   stdout (its stdout read through elicit's `RawTap`, its stderr shown in the log).
//! - `--call TOOL` (repeatable) calls those tools in order with `{}`; `--call-all` calls
//!   every tool without a required argument; with neither, the person picks a tool on
//!   screen and fills its arguments in the same form widget when the tool's input
//!   schema is a flat form (else types them as a JSON object).
//! - `--protocol 2025-11-25` or `2026-07-28`; by default the newest both sides support.
//! - `--accept-defaults`: nothing waits for a person (forms whose required fields all
//!   have defaults are accepted with them, everything else declined).
//!
//! The screen is drawn on stderr (the alternate screen, raw mode), so stdout carries
//! only the tool results, one line each, printed when the screen is given back; the
//! program ends after its calls. `q` or Ctrl-C outside a question quits.
//!
//! Everything rmcp does runs on tokio; the screen runs on a thread of its own, where a
//! plain loop reads crossterm's events, draws, and takes the questions of elicit's
//! `TuiAsker` as they arrive.

use std::collections::VecDeque;
use std::io::Stderr;
use std::process::Stdio;
use std::sync::mpsc as std_mpsc;
use std::time::Duration;

use elicit::client::tui::{FormState, FormView, Key, Question, QuestionView, Questions, TuiAsker};
use elicit::client::{AgentIdentity, Asker, FormAnswer, FormEngine, ScriptedAsker};
use elicit::rmcp::client::{ElicitClient, RawTap};
use elicit::RequestedSchema;
use ratatui::backend::CrosstermBackend;
use ratatui::crossterm::event::{self, Event, KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use ratatui::crossterm::terminal::{self, EnterAlternateScreen, LeaveAlternateScreen};
use ratatui::crossterm::{cursor, execute};
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};
use ratatui::{Frame, Terminal};
use rmcp::model::{CallToolRequestParams, ProtocolVersion, Tool};
use rmcp::service::{RoleClient, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::{ClientLifecycleMode, ClientServiceExt};
use serde_json::{json, Map, Value};
use tokio::io::AsyncBufReadExt;
use tokio::sync::{mpsc, oneshot};

struct Args {
    accept_defaults: bool,
    protocol: Option<String>,
    calls: Vec<String>,
    call_all: bool,
    target: Target,
}

enum Target {
    Url(String),
    Command(Vec<String>),
}

const USAGE: &str = "usage: tui_client [--accept-defaults] [--protocol VERSION] [--call TOOL]... [--call-all] (URL | -- COMMAND ARGS...)";

fn parse_args() -> Result<Args, String> {
    let mut args = std::env::args().skip(1);
    let mut parsed = Args {
        accept_defaults: false,
        protocol: None,
        calls: Vec::new(),
        call_all: false,
        target: Target::Url(String::new()),
    };
    let mut url = None;
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--accept-defaults" => parsed.accept_defaults = true,
            "--call-all" => parsed.call_all = true,
            "--protocol" => {
                let version = args.next().ok_or("--protocol needs a version")?;
                if !matches!(version.as_str(), "2025-11-25" | "2026-07-28") {
                    return Err(format!(
                        "unknown protocol version {version:?}: use 2025-11-25 or 2026-07-28"
                    ));
                }
                parsed.protocol = Some(version);
            }
            "--call" => parsed
                .calls
                .push(args.next().ok_or("--call needs a tool name")?),
            "--" => {
                let command: Vec<String> = args.by_ref().collect();
                if command.is_empty() {
                    return Err("-- needs a command to start".into());
                }
                parsed.target = Target::Command(command);
            }
            other if other.starts_with("--") => return Err(format!("unknown option {other}")),
            other => url = Some(other.to_owned()),
        }
    }
    match (&parsed.target, url) {
        (Target::Command(_), Some(url)) => Err(format!("both a URL ({url}) and a command")),
        (Target::Command(_), None) => Ok(parsed),
        (Target::Url(_), Some(url)) => {
            parsed.target = Target::Url(url);
            Ok(parsed)
        }
        (Target::Url(_), None) => Err("no server: give a URL or -- COMMAND".into()),
    }
}

/// A tool to call and its arguments.
type Call = (String, Map<String, Value>);

/// What the MCP side tells the screen.
enum ToScreen {
    /// A line for the log.
    Log(String),
    /// The person picks a tool and fills its arguments; `None` when they do not.
    Pick(Vec<Tool>, oneshot::Sender<Option<Call>>),
    /// The calls are over: give the terminal back.
    Done,
}

#[tokio::main]
async fn main() {
    let args = match parse_args() {
        Ok(args) => args,
        Err(message) => {
            eprintln!("{message}\n{USAGE}");
            std::process::exit(2);
        }
    };
    let (asker, questions) = TuiAsker::new();
    let (to_screen, from_mcp) = std_mpsc::channel();
    let (quit_sender, mut quit) = mpsc::unbounded_channel();
    let screen = match Screen::start() {
        Ok(screen) => screen,
        Err(error) => {
            eprintln!("tui_client: the terminal cannot be used ({error})");
            std::process::exit(1);
        }
    };
    let ui = std::thread::spawn(move || screen.run(questions, from_mcp, quit_sender));
    let log = to_screen.clone();
    let outcome = tokio::select! {
        outcome = run(args, asker, log) => outcome,
        _ = quit.recv() => Err("quit before the calls were over".to_owned()),
    };
    let _ = to_screen.send(ToScreen::Done);
    // The terminal is given back when the screen's thread ends, before anything is
    // printed.
    let _ = ui.join();
    match outcome {
        Ok((results, failed)) => {
            for line in results {
                println!("{line}");
            }
            if failed {
                eprintln!("tui_client: a tool call failed");
                std::process::exit(1);
            }
        }
        Err(message) => {
            eprintln!("tui_client: {message}");
            std::process::exit(1);
        }
    }
}

type Client = RunningService<RoleClient, ElicitClient<Box<dyn Asker>>>;

/// Connects, calls the tools, and returns the result lines for stdout (and whether a
/// call failed).
async fn run(
    args: Args,
    asker: TuiAsker,
    screen: std_mpsc::Sender<ToScreen>,
) -> Result<(Vec<String>, bool), String> {
    let log = |line: String| {
        let _ = screen.send(ToScreen::Log(line));
    };
    let protocol = match &args.protocol {
        Some(version) => Some(
            serde_json::from_value::<ProtocolVersion>(Value::from(version.as_str()))
                .map_err(|e| format!("protocol version: {e}"))?,
        ),
        None => None,
    };
    // A fresh handler per connection attempt (the HTTP fallback makes a second); every
    // one asks through the same screen.
    let make_handler = || {
        let asker: Box<dyn Asker> = if args.accept_defaults {
            Box::new(ScriptedAsker::accept_defaults())
        } else {
            Box::new(asker.clone())
        };
        let handler = ElicitClient::new(asker);
        match &protocol {
            Some(version) => handler.with_protocol_version(version.clone()),
            None => handler,
        }
    };
    let (client, _child) = connect(make_handler, &args.target, &screen).await?;
    if let Some(info) = client.peer_info() {
        let server = info
            .server_info
            .as_ref()
            .map_or("a server without serverInfo", |i| i.name.as_str());
        log(format!(
            "connected to {server} (protocol {})",
            info.protocol_version
        ));
    }
    let tools = client
        .list_all_tools()
        .await
        .map_err(|e| format!("tools/list: {e}"))?;
    let mut calls: Vec<Call> = args
        .calls
        .iter()
        .map(|name| (name.clone(), Map::new()))
        .collect();
    if args.call_all {
        calls.extend(
            tools
                .iter()
                .filter(|tool| !has_required_argument(tool))
                .map(|tool| (tool.name.to_string(), Map::new())),
        );
    }
    if args.calls.is_empty() && !args.call_all && !tools.is_empty() {
        let (reply, picked) = oneshot::channel();
        let _ = screen.send(ToScreen::Pick(tools.clone(), reply));
        match picked.await.ok().flatten() {
            Some(call) => calls.push(call),
            None => log("no tool chosen".to_owned()),
        }
    }
    let mut results = Vec::new();
    let mut failed = false;
    for (name, arguments) in calls {
        log(format!("calling {name}…"));
        let params = CallToolRequestParams::new(name.clone()).with_arguments(arguments);
        let line = match client.call_tool(params).await {
            Ok(result) => {
                let text: Vec<&str> = result
                    .content
                    .iter()
                    .filter_map(|block| block.as_text().map(|t| t.text.as_str()))
                    .collect();
                log(format!("{name}: {}", text.join(" ")));
                format!(
                    "{name}: {}",
                    serde_json::to_string(&result).unwrap_or_default()
                )
            }
            Err(error) => {
                failed = true;
                log(format!("{name}: error: {error}"));
                format!("{name}: error: {error}")
            }
        };
        results.push(line);
    }
    let _ = client.cancel().await;
    Ok((results, failed))
}

async fn connect(
    make_handler: impl Fn() -> ElicitClient<Box<dyn Asker>>,
    target: &Target,
    screen: &std_mpsc::Sender<ToScreen>,
) -> Result<(Client, Option<tokio::process::Child>), String> {
    match target {
        Target::Url(url) => {
            let handler = make_handler();
            let lifecycle = handler.lifecycle();
            let auto = matches!(lifecycle, ClientLifecycleMode::Auto { .. });
            let transport = StreamableHttpClientTransport::from_uri(url.as_str());
            match handler.serve_with_lifecycle(transport, lifecycle).await {
                Ok(client) => Ok((client, None)),
                // As mcp_client: a legacy server may refuse `server/discover` before any
                // session exists; try `initialize` once on a new connection.
                Err(discover) if auto => {
                    let handler = make_handler()
                        .with_protocol_version(ProtocolVersion::LATEST_WITH_INITIALIZE);
                    let transport = StreamableHttpClientTransport::from_uri(url.as_str());
                    handler
                        .serve_with_lifecycle(transport, ClientLifecycleMode::Initialize)
                        .await
                        .map(|client| (client, None))
                        .map_err(|e| {
                            format!(
                                "connecting to {url}: server/discover: {discover}; initialize: {e}"
                            )
                        })
                }
                Err(e) => Err(format!("connecting to {url}: {e}")),
            }
        }
        Target::Command(command) => {
            let mut child = tokio::process::Command::new(&command[0])
                .args(&command[1..])
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                // Its stderr would write over the screen: shown in the log instead.
                .stderr(Stdio::piped())
                .kill_on_drop(true)
                .spawn()
                .map_err(|e| format!("starting {}: {e}", command[0]))?;
            let stdin = child.stdin.take().ok_or("the child has no stdin")?;
            let stdout = child.stdout.take().ok_or("the child has no stdout")?;
            if let Some(stderr) = child.stderr.take() {
                let screen = screen.clone();
                tokio::spawn(async move {
                    let mut lines = tokio::io::BufReader::new(stderr).lines();
                    while let Ok(Some(line)) = lines.next_line().await {
                        let _ = screen.send(ToScreen::Log(format!("server: {line}")));
                    }
                });
            }
            let tap = RawTap::new();
            let handler = make_handler().with_tap(tap.clone());
            let lifecycle = handler.lifecycle();
            let client = handler
                .serve_with_lifecycle((tap.reader(stdout), stdin), lifecycle)
                .await
                .map_err(|e| format!("initializing {}: {e}", command[0]))?;
            Ok((client, Some(child)))
        }
    }
}

fn has_required_argument(tool: &Tool) -> bool {
    tool.input_schema
        .get("required")
        .and_then(Value::as_array)
        .is_some_and(|required| !required.is_empty())
}

/// The terminal, on stderr, in raw mode on the alternate screen; given back on drop
/// (and by the panic hook).
struct Screen {
    terminal: Terminal<CrosstermBackend<Stderr>>,
}

impl Screen {
    fn start() -> std::io::Result<Screen> {
        terminal::enable_raw_mode()?;
        execute!(std::io::stderr(), EnterAlternateScreen, cursor::Hide)?;
        let hook = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            give_terminal_back();
            hook(info);
        }));
        match Terminal::new(CrosstermBackend::new(std::io::stderr())) {
            Ok(terminal) => Ok(Screen { terminal }),
            Err(error) => {
                give_terminal_back();
                Err(error)
            }
        }
    }

    /// The event loop: draws, takes questions and messages, reads keys, until the MCP
    /// side is done or the person quits.
    fn run(
        mut self,
        questions: Questions,
        from_mcp: std_mpsc::Receiver<ToScreen>,
        quit: mpsc::UnboundedSender<()>,
    ) {
        let mut app = App::default();
        loop {
            while let Ok(message) = from_mcp.try_recv() {
                match message {
                    ToScreen::Log(line) => app.log(line),
                    ToScreen::Pick(tools, reply) => app.picking = Some(Picking::new(tools, reply)),
                    ToScreen::Done => return,
                }
            }
            // One question at a time; the next waits in the channel.
            if app.question.is_none() {
                app.question = questions.try_next();
            }
            if app.question.as_ref().is_some_and(Question::is_withdrawn) {
                app.question = None;
                app.log("the server stopped waiting for that answer".to_owned());
            }
            if self.terminal.draw(|frame| app.draw(frame)).is_err() {
                let _ = quit.send(());
                return;
            }
            match event::poll(Duration::from_millis(50)) {
                Ok(true) => {}
                Ok(false) => continue,
                Err(_) => {
                    let _ = quit.send(());
                    return;
                }
            }
            let Ok(Event::Key(key)) = event::read() else {
                continue;
            };
            let Some(key) = key_of(key) else { continue };
            if app.key(key) {
                let _ = quit.send(());
                return;
            }
        }
    }
}

impl Drop for Screen {
    fn drop(&mut self) {
        give_terminal_back();
    }
}

fn give_terminal_back() {
    let _ = execute!(std::io::stderr(), LeaveAlternateScreen, cursor::Show);
    let _ = terminal::disable_raw_mode();
}

/// crossterm's key event as the widget's [`Key`]: presses and repeats only.
fn key_of(event: KeyEvent) -> Option<Key> {
    if event.kind == KeyEventKind::Release {
        return None;
    }
    let ctrl = event.modifiers.contains(KeyModifiers::CONTROL);
    Some(match event.code {
        KeyCode::Char(c) if ctrl => Key::Ctrl(c.to_ascii_lowercase()),
        KeyCode::Char(c) => Key::Char(c),
        KeyCode::Enter => Key::Enter,
        KeyCode::Esc => Key::Esc,
        KeyCode::Tab => Key::Tab,
        KeyCode::BackTab => Key::BackTab,
        KeyCode::Up => Key::Up,
        KeyCode::Down => Key::Down,
        KeyCode::Left => Key::Left,
        KeyCode::Right => Key::Right,
        KeyCode::Home => Key::Home,
        KeyCode::End => Key::End,
        KeyCode::PageUp => Key::PageUp,
        KeyCode::PageDown => Key::PageDown,
        KeyCode::Backspace => Key::Backspace,
        KeyCode::Delete => Key::Delete,
        _ => return None,
    })
}

/// What is on screen.
#[derive(Default)]
struct App {
    log: VecDeque<String>,
    question: Option<Question>,
    picking: Option<Picking>,
}

/// The person picking a tool, then filling its arguments.
struct Picking {
    tools: Vec<Tool>,
    cursor: usize,
    arguments: Option<(String, FormState)>,
    reply: Option<oneshot::Sender<Option<Call>>>,
}

impl Picking {
    fn new(tools: Vec<Tool>, reply: oneshot::Sender<Option<Call>>) -> Self {
        Picking {
            tools,
            cursor: 0,
            arguments: None,
            reply: Some(reply),
        }
    }

    /// Takes a key; `true` when the picking is over.
    fn key(&mut self, key: Key) -> bool {
        if let Some((name, form)) = &mut self.arguments {
            return match form.handle_key(key) {
                Some(FormAnswer::Submit(content)) => {
                    let arguments = match content.get(JSON_ARGUMENTS) {
                        // The fallback: the arguments typed as a JSON object.
                        Some(Value::String(text)) if content.len() == 1 => {
                            serde_json::from_str::<Map<String, Value>>(text).unwrap_or_default()
                        }
                        _ => content,
                    };
                    let name = name.clone();
                    self.answer(Some((name, arguments)));
                    true
                }
                Some(_) => {
                    self.answer(None);
                    true
                }
                None => false,
            };
        }
        match key {
            Key::Up => self.cursor = self.cursor.saturating_sub(1),
            Key::Down => self.cursor = (self.cursor + 1).min(self.tools.len().saturating_sub(1)),
            Key::Enter => {
                let tool = &self.tools[self.cursor];
                self.arguments = Some((tool.name.to_string(), arguments_form(tool)));
            }
            Key::Esc | Key::Ctrl('c') | Key::Char('q') => {
                self.answer(None);
                return true;
            }
            _ => {}
        }
        false
    }

    fn answer(&mut self, call: Option<Call>) {
        if let Some(reply) = self.reply.take() {
            let _ = reply.send(call);
        }
    }
}

/// The name of the one field of the fallback arguments form.
const JSON_ARGUMENTS: &str = "arguments";

/// A form for a tool's arguments: its input schema when that is a flat form elicit
/// can show, else one text field for a JSON object.
fn arguments_form(tool: &Tool) -> FormState {
    let me = AgentIdentity::new("tui_client");
    let message = format!("Arguments for {}", tool.name);
    let schema = Value::Object((*tool.input_schema).clone());
    if let Ok(schema) = RequestedSchema::from_json_lenient(&schema) {
        if let Ok(form) = FormEngine::new(&schema, me.clone(), message.clone()) {
            return FormState::new(form);
        }
    }
    let fallback = json!({
        "type": "object",
        "properties": { JSON_ARGUMENTS: {
            "type": "string", "title": "Arguments (a JSON object)", "default": "{}"
        } },
        "required": [JSON_ARGUMENTS]
    });
    let schema = RequestedSchema::from_json_lenient(&fallback).expect("a valid built-in schema");
    FormState::new(FormEngine::new(&schema, me, message).expect("a renderable built-in form"))
}

impl App {
    fn log(&mut self, line: String) {
        self.log.push_back(shown(&line));
        while self.log.len() > 200 {
            self.log.pop_front();
        }
    }

    /// Takes a key; `true` when the person quits.
    fn key(&mut self, key: Key) -> bool {
        if let Some(question) = &mut self.question {
            let consent_url = match question {
                Question::Consent(consent) => Some(consent.state().review().full_url().to_owned()),
                _ => None,
            };
            if question.handle_key(key) {
                let answered = self.question.take();
                // S3: this client never opens the page; the person does.
                if let Some(Question::Consent(consent)) = &answered {
                    if consent.state().outcome() == Some(elicit::client::Consent::Open) {
                        if let Some(url) = consent_url {
                            self.log(format!("consented: open {url} in your browser"));
                        }
                    }
                }
            }
            return false;
        }
        if let Some(picking) = &mut self.picking {
            if picking.key(key) {
                self.picking = None;
            }
            return false;
        }
        matches!(key, Key::Char('q') | Key::Ctrl('c') | Key::Esc)
    }

    fn draw(&mut self, frame: &mut Frame<'_>) {
        let area = frame.area();
        let title = Line::from(Span::styled(
            " tui_client: an MCP client answering elicitations in ratatui ",
            Style::new().add_modifier(Modifier::REVERSED),
        ));
        frame.render_widget(title, Rect { height: 1, ..area });
        let below = Rect {
            y: area.y + 1,
            height: area.height.saturating_sub(1),
            ..area
        };
        if let Some(question) = &mut self.question {
            frame.render_stateful_widget(QuestionView::new(), below, question);
            return;
        }
        if let Some(picking) = &mut self.picking {
            if let Some((_, form)) = &mut picking.arguments {
                frame.render_stateful_widget(FormView::new(), below, form);
                return;
            }
            let mut lines = vec![
                Line::from("Pick a tool (↑↓, Enter; Esc quits):"),
                Line::default(),
            ];
            for (i, tool) in picking.tools.iter().enumerate() {
                let marker = if i == picking.cursor { "> " } else { "  " };
                let about = tool.description.as_deref().unwrap_or("");
                lines.push(Line::from(shown(&format!(
                    "{marker}{}  {about}",
                    tool.name
                ))));
            }
            frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), below);
            return;
        }
        let rows = usize::from(below.height.saturating_sub(2));
        let start = self.log.len().saturating_sub(rows);
        let mut lines: Vec<Line<'_>> = self
            .log
            .iter()
            .skip(start)
            .map(|line| Line::from(line.as_str()))
            .collect();
        lines.push(Line::default());
        lines.push(Line::from(Span::styled(
            "q quits",
            Style::new().add_modifier(Modifier::DIM),
        )));
        frame.render_widget(Paragraph::new(lines), below);
    }
}

/// Server text for the log and the tool list (tool results, descriptions, the server's
/// stderr) through the shared terminal neutraliser: control, bidirectional, invisible
/// and box-drawing characters written `<U+XXXX>` (the widgets do the same to everything
/// they draw).
fn shown(text: &str) -> String {
    elicit::client::terminal_text::verbatim(text).to_string()
}
