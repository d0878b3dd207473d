//! A terminal ACP client on the official SDK that answers the agent's elicitations
//! through elicit's client engine.
//!
//! ```text
//! cargo run --example acp_client --features agent-client-protocol,inquire -- \
//!     [--accept-defaults] [--prompt TEXT] -- COMMAND ARGS…
//! ```
//!
//! It starts `COMMAND ARGS…` as the agent, speaks ACP v1 over the child's stdin and
//! stdout, sends `initialize` (declaring the elicitation modes the asker renders: C1),
//! opens a session, sends one prompt (`--prompt`, by default "Tidy up the parser"),
//! and prints the agent's answer on stdout. Every `elicitation/create` the agent sends
//! meanwhile is put to the person in the terminal (`client::terminal::TerminalAsker`,
//! on inquire): the agent's name and message first, the fields in the agent's order
//! with their defaults, a review before sending, decline and cancel at every question,
//! a URL shown in full with its domain before consent; `elicitation/complete` is
//! reported once. Every text the agent chose (its name, its messages, its answer) is
//! printed through elicit's `client::terminal_text`, so none of it acts on the terminal.
//!
//! `--accept-defaults`: nothing waits for a person. A form whose required fields all
//! have defaults is accepted with exactly the defaults; any other form, and every URL
//! request, is declined; a request a client must refuse gets its error.
//!
//! Try it against the example agents:
//!
//! ```text
//! cargo build --example acp_agent --features agent-client-protocol
//! cargo run --example acp_client --features agent-client-protocol,inquire -- \
//!     -- target/debug/examples/acp_agent
//! ```

use std::io;
use std::process::Stdio;

use agent_client_protocol::schema::ProtocolVersion;
use agent_client_protocol::v1::schema::{Implementation, InitializeRequest};
use agent_client_protocol::v1::{ConnectionTo, SessionSetup};
use agent_client_protocol::{Agent, Client, Lines};
use elicit::agent_client_protocol::client::ElicitClient;
use elicit::client::terminal::TerminalAsker;
use elicit::client::terminal_text::{bounded, plain, verbatim, MAX_NAME_CHARS};
use elicit::client::{Asker, ScriptedAsker};
use futures::{Sink, Stream};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

const USAGE: &str = "usage: acp_client [--accept-defaults] [--prompt TEXT] -- COMMAND ARGS...";

struct Args {
    accept_defaults: bool,
    prompt: String,
    command: Vec<String>,
}

fn parse_args() -> Result<Args, String> {
    let mut args = std::env::args().skip(1);
    let mut parsed = Args {
        accept_defaults: false,
        prompt: "Tidy up the parser".to_owned(),
        command: Vec::new(),
    };
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--accept-defaults" => parsed.accept_defaults = true,
            "--prompt" => parsed.prompt = args.next().ok_or("--prompt needs a text")?,
            "--" => {
                parsed.command = args.by_ref().collect();
                if parsed.command.is_empty() {
                    return Err("-- needs the agent's command".into());
                }
            }
            other => return Err(format!("unknown argument {other}")),
        }
    }
    if parsed.command.is_empty() {
        return Err("no agent: give -- COMMAND ARGS...".into());
    }
    Ok(parsed)
}

/// The SDK is runtime-neutral; tokio drives it and the child's pipes. One thread is
/// enough: the terminal prompts run on threads of their own.
#[tokio::main(flavor = "current_thread")]
async fn main() {
    let args = match parse_args() {
        Ok(args) => args,
        Err(message) => {
            eprintln!("{message}\n{USAGE}");
            std::process::exit(2);
        }
    };
    match run(args).await {
        Ok(text) => {
            // The agent's answer, line by line, through elicit's neutraliser: no escape
            // sequence, bidi or invisible character reaches the terminal as itself.
            for line in text.lines() {
                println!("{}", verbatim(line));
            }
        }
        Err(message) => {
            eprintln!("acp_client: {}", plain(message));
            std::process::exit(1);
        }
    }
}

async fn run(args: Args) -> Result<String, String> {
    let asker: Box<dyn Asker> = if args.accept_defaults {
        Box::new(ScriptedAsker::accept_defaults())
    } else {
        Box::new(TerminalAsker::new())
    };
    let elicit = ElicitClient::new(asker);

    let (program, rest) = args.command.split_first().expect("checked by parse_args");
    let mut child = tokio::process::Command::new(program)
        .args(rest)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| format!("cannot start {program}: {e}"))?;
    let stdin = child.stdin.take().ok_or("the agent has no stdin")?;
    let stdout = child.stdout.take().ok_or("the agent has no stdout")?;
    let transport = Lines::new(line_sink(stdin), line_stream(stdout));

    let prompt = args.prompt;
    let text = Client
        .v1()
        .name("elicit-acp-client")
        // One call: `elicitation/create` and `elicitation/complete` go to elicit.
        .with_handler(elicit.clone())
        .connect_with(transport, async move |cx: ConnectionTo<Agent>| {
            let request = InitializeRequest::new(ProtocolVersion::V1).client_info(
                Implementation::new("elicit-acp-client", env!("CARGO_PKG_VERSION")),
            );
            let response = elicit.initialize(&cx, request).await?;
            if let Some(agent) = &response.agent_info {
                eprintln!(
                    "connected to {} {}",
                    bounded(&agent.name, MAX_NAME_CHARS),
                    bounded(&agent.version, MAX_NAME_CHARS)
                );
            }
            cx.build_session_cwd()?
                .block_task()
                .run_until(async |SessionSetup { mut session, .. }| {
                    session.send_prompt(&prompt)?;
                    session.read_to_string().await
                })
                .await
        })
        .await
        .map_err(|e| format!("the agent: {e}"))?;
    drop(child);
    Ok(text)
}

/// Newline-delimited JSON-RPC to the child's stdin.
fn line_sink(
    stdin: tokio::process::ChildStdin,
) -> impl Sink<String, Error = io::Error> + Send + 'static {
    futures::sink::unfold(stdin, async |mut stdin, line: String| {
        stdin
            .write_all(line.trim_end_matches('\n').as_bytes())
            .await?;
        stdin.write_all(b"\n").await?;
        stdin.flush().await?;
        Ok::<_, io::Error>(stdin)
    })
}

/// The child's stdout, line by line.
fn line_stream(
    stdout: tokio::process::ChildStdout,
) -> impl Stream<Item = io::Result<String>> + Send + 'static {
    futures::stream::unfold(
        BufReader::new(stdout).lines(),
        async |mut lines| match lines.next_line().await {
            Ok(Some(line)) => Some((Ok(line), lines)),
            Ok(None) => None,
            Err(error) => Some((Err(error), lines)),
        },
    )
}
