//! An MCP client on rmcp 3.x that answers elicitations through elicit's client engine.
//!
//! ```text
//! cargo run --example mcp_client --features rmcp_3 -- [--accept-defaults] \
//!     [--protocol VERSION] [--call TOOL]… [--call-all] (URL | -- COMMAND ARGS…)
//! ```
//!
//! - `URL` (the last argument): the server over Streamable HTTP, as the MCP conformance
//!   suite passes it. Plain `http://` only: reqwest is built without TLS (this example
//!   talks to local servers; a TLS stack would double its build).
//! - `-- COMMAND ARGS…`: the server started as a child process, spoken to over its stdin
//!   and stdout; its stdout is read through elicit's `RawTap`, so each elicitation is
//!   answered from the bytes the server wrote (the server's property order, option
//!   descriptions and `_meta` kept: D13, E7).
//! - `--call TOOL` (repeatable) calls those tools in order with `{}`; `--call-all` calls
//!   every listed tool that takes no required argument, with `{}`; with neither, the
//!   person picks a tool (and types its arguments as JSON).
//! - `--protocol VERSION`: speak that MCP version only (`2026-07-28` with
//!   `server/discover` and input requests; `2025-11-25`, `2025-06-18`, … with
//!   `initialize`). By default the newest both sides speak: `server/discover` first,
//!   `initialize` when the server is older (`ElicitClient::connect`).
//! - `--accept-defaults`: nothing waits for a person. A form whose required fields all
//!   have defaults is accepted with exactly the defaults; any other form, and every URL
//!   request, is declined; a request a client must refuse gets its error.
//!
//! Otherwise elicitations are asked in the terminal: with the feature `inquire` and a
//! person at the terminal (stdin and stderr are terminals), by elicit's
//! `TerminalAsker` (lists, checklists, validation at entry); else by a small
//! line-based asker reading one answer per line, typed or piped. The dialog goes to
//! stderr; every tool result to stdout.
//!
//! Everything the server chose (its name, tool names and descriptions, each
//! elicitation's message, labels, options, problems) is printed through elicit's
//! `client::terminal_text`, so no escape sequence reaches the terminal and a URL's
//! address, site and warnings are drawn on lines the server's text cannot imitate; a
//! tool result is printed as JSON with every such character escaped (`\u001b`).

use std::io::{BufRead, Write};
use std::process::Stdio;

use elicit::client::terminal_text::{
    bounded, intro_line, plain, shows_as_itself, url_consent, verbatim, MAX_MESSAGE_CHARS,
    MAX_NAME_CHARS,
};
use elicit::client::{
    readable_label, AskFuture, Asker, AskerNotice, Consent, ConsentPrompt, FieldAnswer, FieldKind,
    FieldPrompt, ReviewChoice, ReviewPrompt, ScriptedAsker,
};
use elicit::rmcp::client::{ConnectError, ElicitClient, RawTap};
use rmcp::model::{CallToolRequestParams, ProtocolVersion, Tool};
use rmcp::service::{RoleClient, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use serde_json::{Map, Value};
use tokio::sync::mpsc;

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

const USAGE: &str = "usage: mcp_client [--accept-defaults] [--protocol VERSION] [--call TOOL]... [--call-all] (URL | -- COMMAND ARGS...)";

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
                let known = ProtocolVersion::KNOWN_VERSIONS;
                if !known.iter().any(|known| known.as_str() == version) {
                    let known: Vec<&str> = known.iter().map(ProtocolVersion::as_str).collect();
                    return Err(format!(
                        "unknown protocol version {version:?}: use one of {}",
                        known.join(", ")
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

#[tokio::main]
async fn main() {
    let args = match parse_args() {
        Ok(args) => args,
        Err(message) => {
            eprintln!("{message}\n{USAGE}");
            std::process::exit(2);
        }
    };
    if let Err(message) = run(args).await {
        // The message may quote the server: neutralised like every text it chose.
        eprintln!("mcp_client: {}", plain(message));
        std::process::exit(1);
    }
}

async fn run(args: Args) -> Result<(), String> {
    // At a terminal (feature `inquire`), the terminal asker puts the questions; else
    // the line asker reads answers from stdin, typed or piped.
    let terminal = !args.accept_defaults && terminal_asker().is_some();
    let lines = if terminal {
        Lines::OnDemand
    } else {
        Lines::from_stdin()
    };
    let protocol = match &args.protocol {
        Some(version) => Some(
            serde_json::from_value::<ProtocolVersion>(Value::from(version.as_str()))
                .map_err(|e| format!("protocol version: {e}"))?,
        ),
        None => None,
    };
    // A fresh handler per connection attempt (the HTTP fallback below makes a second).
    let make_handler = || {
        let asker: Box<dyn Asker> = if args.accept_defaults {
            Box::new(ScriptedAsker::accept_defaults())
        } else if let Some(asker) = terminal.then(terminal_asker).flatten() {
            asker
        } else {
            Box::new(LineAsker {
                lines: lines.clone(),
            })
        };
        let handler = ElicitClient::new(asker);
        match &protocol {
            Some(version) => handler.with_protocol_version(version.clone()),
            None => handler,
        }
    };
    let (client, _child) = connect(make_handler, &args.target).await?;
    if let Some(info) = client.peer_info() {
        let server = info
            .server_info
            .as_ref()
            .map_or("a server without serverInfo", |i| i.name.as_str());
        eprintln!(
            "connected to {} (protocol {})",
            bounded(server, MAX_NAME_CHARS),
            bounded(&info.protocol_version, MAX_NAME_CHARS)
        );
    }
    let tools = client
        .list_all_tools()
        .await
        .map_err(|e| format!("tools/list: {e}"))?;
    let mut calls: Vec<(String, Map<String, Value>)> = args
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
    if args.calls.is_empty() && !args.call_all {
        match pick_tool(&tools, &lines).await? {
            Some(call) => calls.push(call),
            None => eprintln!("no tool chosen"),
        }
    }
    let mut failed = false;
    for (name, arguments) in calls {
        let params = CallToolRequestParams::new(name.clone()).with_arguments(arguments);
        match client.call_tool(params).await {
            Ok(result) => {
                let json = serde_json::to_string(&result).unwrap_or_default();
                println!("{}: {}", verbatim(&name), escaped_json(&json));
            }
            Err(error) => {
                failed = true;
                println!(
                    "{}: error: {}",
                    verbatim(&name),
                    bounded(error, MAX_MESSAGE_CHARS)
                );
            }
        }
    }
    let _ = client.cancel().await;
    if failed {
        Err("a tool call failed".into())
    } else {
        Ok(())
    }
}

type Client = RunningService<RoleClient, ElicitClient<Box<dyn Asker>>>;

async fn connect(
    make_handler: impl Fn() -> ElicitClient<Box<dyn Asker>>,
    target: &Target,
) -> Result<(Client, Option<tokio::process::Child>), String> {
    match target {
        Target::Url(url) => {
            let handler = make_handler();
            let auto = handler.protocol_version().is_none();
            let transport = StreamableHttpClientTransport::from_uri(url.as_str());
            match handler.connect(transport).await {
                Ok(client) => Ok((client, None)),
                // A server that names no version both speak: trying again cannot help.
                Err(e @ ConnectError::NoCommonVersion { .. }) => {
                    Err(format!("connecting to {url}: {e}"))
                }
                // An older server over HTTP may fail `server/discover` in a way rmcp
                // does not read as a legacy server's answer (a 5xx, a closed stream):
                // with no version asked for, try `initialize` once on a new connection.
                Err(discover) if auto => {
                    let handler = make_handler()
                        .with_protocol_version(ProtocolVersion::LATEST_WITH_INITIALIZE);
                    let transport = StreamableHttpClientTransport::from_uri(url.as_str());
                    handler
                        .connect(transport)
                        .await
                        .map(|client| (client, None))
                        .map_err(|e| {
                            format!(
                                "connecting to {url}: {discover}; then initialize on a new connection: {e}"
                            )
                        })
                }
                Err(e) => Err(format!("connecting to {url}: {e}")),
            }
        }
        Target::Command(command) => {
            // Started here rather than with rmcp's child-process transport so that its
            // stdout can go through the tap.
            let mut child = tokio::process::Command::new(&command[0])
                .args(&command[1..])
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::inherit())
                .kill_on_drop(true)
                .spawn()
                .map_err(|e| format!("starting {}: {e}", command[0]))?;
            let stdin = child.stdin.take().ok_or("the child has no stdin")?;
            let stdout = child.stdout.take().ok_or("the child has no stdout")?;
            let tap = RawTap::new();
            let client = make_handler()
                .with_tap(tap.clone())
                .connect((tap.reader(stdout), stdin))
                .await
                .map_err(|e| format!("connecting to {}: {e}", command[0]))?;
            Ok((client, Some(child)))
        }
    }
}

/// Compact JSON with every character a terminal must not receive as itself (C1
/// controls, DEL, bidirectional and invisible characters; serde_json escapes C0 already)
/// written as a JSON escape: the same value for a program reading it, nothing that acts
/// at a terminal.
fn escaped_json(json: &str) -> String {
    let mut out = String::with_capacity(json.len());
    for c in json.chars() {
        if shows_as_itself(c) {
            out.push(c);
        } else {
            let mut units = [0u16; 2];
            for unit in c.encode_utf16(&mut units) {
                out.push_str(&format!("\\u{unit:04x}"));
            }
        }
    }
    out
}

fn has_required_argument(tool: &Tool) -> bool {
    tool.input_schema
        .get("required")
        .and_then(Value::as_array)
        .is_some_and(|required| !required.is_empty())
}

async fn pick_tool(
    tools: &[Tool],
    lines: &Lines,
) -> Result<Option<(String, Map<String, Value>)>, String> {
    if tools.is_empty() {
        return Ok(None);
    }
    for (n, tool) in tools.iter().enumerate() {
        let about = tool.description.as_deref().unwrap_or("");
        eprintln!(
            "  {}. {} {}",
            n + 1,
            bounded(&tool.name, MAX_NAME_CHARS),
            bounded(about, MAX_MESSAGE_CHARS)
        );
    }
    let Some(choice) = lines.prompt("tool (number or name, empty to quit): ").await else {
        return Ok(None);
    };
    let choice = choice.trim();
    if choice.is_empty() {
        return Ok(None);
    }
    let tool = choice
        .parse::<usize>()
        .ok()
        .and_then(|n| tools.get(n.wrapping_sub(1)))
        .or_else(|| tools.iter().find(|t| t.name == choice))
        .ok_or_else(|| format!("no tool {choice:?}"))?;
    let arguments = lines
        .prompt("arguments as a JSON object (empty for {}): ")
        .await
        .unwrap_or_default();
    let arguments = if arguments.trim().is_empty() {
        Map::new()
    } else {
        match serde_json::from_str(&arguments) {
            Ok(Value::Object(map)) => map,
            _ => return Err("the arguments must be a JSON object".into()),
        }
    };
    Ok(Some((tool.name.to_string(), arguments)))
}

/// Lines typed on stdin.
///
/// Piped input is read by one thread and handed over a channel, so that a question
/// the engine abandons (deadline, cancel) just stops waiting. At a terminal whose
/// questions the terminal asker puts, no thread may sit reading stdin (it would take
/// the keys meant for the prompt): each line is read when it is asked for, and only
/// the tool choice is asked that way.
#[derive(Clone)]
enum Lines {
    Piped(std::sync::Arc<tokio::sync::Mutex<mpsc::UnboundedReceiver<String>>>),
    OnDemand,
}

impl Lines {
    fn from_stdin() -> Self {
        let (tx, rx) = mpsc::unbounded_channel();
        std::thread::spawn(move || {
            for line in std::io::stdin().lock().lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Lines::Piped(std::sync::Arc::new(tokio::sync::Mutex::new(rx)))
    }

    /// Shows `prompt` on stderr and waits for a line; `None` at the end of input.
    async fn prompt(&self, prompt: &str) -> Option<String> {
        eprint!("{prompt}");
        let _ = std::io::stderr().flush();
        match self {
            Lines::Piped(rx) => rx.lock().await.recv().await,
            Lines::OnDemand => tokio::task::spawn_blocking(|| {
                let mut line = String::new();
                match std::io::stdin().lock().read_line(&mut line) {
                    Ok(0) | Err(_) => None,
                    Ok(_) => Some(line.trim_end_matches(['\r', '\n']).to_owned()),
                }
            })
            .await
            .ok()
            .flatten(),
        }
    }
}

/// The terminal asker (feature `inquire`) when a person is at the terminal.
#[cfg(feature = "inquire")]
fn terminal_asker() -> Option<Box<dyn Asker>> {
    use std::io::IsTerminal;
    if !std::io::stdin().is_terminal() || !std::io::stderr().is_terminal() {
        return None;
    }
    let styled = std::env::var_os("NO_COLOR").is_none();
    Some(Box::new(
        elicit::client::terminal::TerminalAsker::new().styled(styled),
    ))
}

#[cfg(not(feature = "inquire"))]
fn terminal_asker() -> Option<Box<dyn Asker>> {
    None
}

/// A small line-based asker: one line per question. (A full terminal asker on a
/// prompt crate is another piece of work; this one keeps the example self-contained.)
struct LineAsker {
    lines: Lines,
}

impl Asker for LineAsker {
    fn ask_field<'a>(&'a mut self, prompt: FieldPrompt<'a>) -> AskFuture<'a, FieldAnswer> {
        Box::pin(async move {
            if prompt.position == 0 && prompt.problem.is_none() {
                eprintln!("\n{}", intro_line(&prompt.intro));
                eprintln!("(Enter keeps [the value shown]; :clear, :back, :decline, :cancel)");
            }
            let field = prompt.field;
            if let Some(problem) = prompt.problem {
                eprintln!("  ! {}", bounded(problem, MAX_MESSAGE_CHARS));
            }
            if let Some(description) = field.description() {
                eprintln!("  {}", bounded(description, MAX_MESSAGE_CHARS));
            }
            let options = field.options();
            for (n, choice) in options.iter().enumerate() {
                let about = choice
                    .description
                    .map(|d| format!(" - {}", bounded(d, MAX_MESSAGE_CHARS)))
                    .unwrap_or_default();
                eprintln!(
                    "    {}. {}{about}",
                    n + 1,
                    bounded(choice.label, MAX_NAME_CHARS)
                );
            }
            let shown = verbatim(field.display_value().unwrap_or_default());
            let required = if field.is_required() { "*" } else { "" };
            let label = bounded(readable_label(field.name(), field.label()), MAX_NAME_CHARS);
            let line = match self
                .lines
                .prompt(&format!("  {label}{required} [{shown}]: "))
                .await
            {
                Some(line) => line,
                None => return FieldAnswer::Cancel,
            };
            let line = line.trim();
            match line {
                "" => FieldAnswer::Keep,
                ":clear" => FieldAnswer::Clear,
                ":back" => FieldAnswer::Back,
                ":decline" => FieldAnswer::Decline,
                ":cancel" => FieldAnswer::Cancel,
                _ => match field.kind() {
                    // Options by number as well as by name.
                    FieldKind::SingleSelect | FieldKind::MultiSelect => {
                        let picked: Vec<String> = line
                            .split(',')
                            .map(|part| {
                                let part = part.trim();
                                part.parse::<usize>()
                                    .ok()
                                    .and_then(|n| options.get(n.wrapping_sub(1)))
                                    .map_or_else(|| part.to_owned(), |c| c.value.to_owned())
                            })
                            .collect();
                        FieldAnswer::Text(picked.join(","))
                    }
                    _ => FieldAnswer::Text(line.to_owned()),
                },
            }
        })
    }

    fn review<'a>(&'a mut self, prompt: ReviewPrompt<'a>) -> AskFuture<'a, ReviewChoice> {
        Box::pin(async move {
            eprintln!("\nReview:");
            for entry in prompt.review.entries() {
                let shown = verbatim(entry.shown.as_deref().unwrap_or("(empty)"));
                eprintln!(
                    "  {} ({}): {shown}",
                    bounded(readable_label(&entry.name, &entry.label), MAX_NAME_CHARS),
                    bounded(&entry.name, MAX_NAME_CHARS)
                );
            }
            if let Some(problems) = prompt.review.problems() {
                for line in problems.to_string().lines() {
                    eprintln!("  ! {}", bounded(line.trim_start(), MAX_MESSAGE_CHARS));
                }
            }
            loop {
                let Some(line) = self
                    .lines
                    .prompt("send, edit FIELD, decline or cancel? ")
                    .await
                else {
                    return ReviewChoice::Cancel;
                };
                match line.trim() {
                    "send" | "s" | "" => return ReviewChoice::Send,
                    "decline" => return ReviewChoice::Decline,
                    "cancel" => return ReviewChoice::Cancel,
                    other => {
                        if let Some(name) = other.strip_prefix("edit ") {
                            return ReviewChoice::Edit(name.trim().to_owned());
                        }
                    }
                }
            }
        })
    }

    fn consent<'a>(&'a mut self, prompt: ConsentPrompt<'a>) -> AskFuture<'a, Consent> {
        Box::pin(async move {
            let review = prompt.review;
            // K1, K4: who asks and why, bounded and on one line; then S2: the full URL
            // before any question; S4: the site and every warning, on lines marked as
            // this client's, which the agent's text cannot imitate or push away.
            eprintln!("\n{}", intro_line(&prompt.intro));
            eprintln!("{}", url_consent(review, false, None));
            match self
                .lines
                .prompt("open it in your browser yourself? (yes/no/cancel) ")
                .await
                .as_deref()
                .map(str::trim)
            {
                Some("yes") => Consent::Open,
                Some("cancel") | None => Consent::Cancel,
                Some(_) => Consent::Decline,
            }
        })
    }

    fn notice(&mut self, notice: &AskerNotice) {
        eprintln!("note: {}", bounded(notice, MAX_MESSAGE_CHARS));
    }
}
