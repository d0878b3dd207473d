//! A client's side of an elicitation, in the terminal: any `elicitation/create` put to a
//! person by elicit's client engine ([`ClientEngine`]) and its terminal asker
//! ([`TerminalAsker`], on the `inquire` prompt crate), and the response a client would
//! send back.
//!
//! ```text
//! cargo run --example terminal_client --features inquire                    # the kitchen-sink form
//! cargo run --example terminal_client --features inquire -- --demo url      # a look-alike URL
//! cargo run --example terminal_client --features inquire -- request.json    # any `elicitation/create` params
//! cargo run --example terminal_client --features inquire -- --agent my-agent request.json
//! ```
//!
//! The dialog goes to stderr; stdout gets exactly one line, the JSON this client would
//! send back: the `ElicitationResponse` (`{"action": …}`), or the JSON-RPC error object
//! (`{"code": -32602, …}`) when the request cannot be honoured (C8, E6).
//!
//! **At a terminal** (stdin and stderr both terminals) every question is an inquire
//! prompt: who asks and why first (K1, K4); text, integers and numbers typed, each
//! checked as it is typed by the form engine itself, so a wrong value is refused at
//! Enter with the engine's reason (F3); booleans and selects as lists, multi selects as
//! checklists (Space toggles) whose item counts are checked the same way; the current
//! answer, a declared default at first, kept on Enter (F4); a review before sending
//! (K2). Esc offers to decline or cancel the request (or to go back to the question),
//! Ctrl-C cancels it at once; `:decline` in a text prompt, or the last entry of a list
//! where one entry is picked, declines it too; a multi select has no decline checkbox
//! (K1, R1). A URL request shows the full address, the
//! registrable domain emphasised and every warning above the question; only an
//! explicit `y` consents, and this client never opens the page itself (S2–S4, K3).
//!
//! **Scripts.** inquire needs a terminal. When stdin or stderr is not one (a pipe, a
//! file, CI), the same engine asks through a small line-reading asker instead: one
//! answer per line, read exactly as if typed and echoed after its prompt so the
//! transcript reads like a session; `#` lines are comments; the end of the input
//! dismisses the request (`cancel`). The engine's rules (order, defaults, checks,
//! review, URL review) are the same; only the drawing differs. At a field: Enter keeps
//! the value in `[brackets]`, `:clear` empties an optional answer, `:back` returns to
//! the previous field, `:decline` and `:cancel` leave; options are chosen by number or
//! by value, several separated by commas. At the review: `send`, `edit FIELD`,
//! `decline`, `cancel`. At a URL: `yes`, `no`, `cancel`. CI runs the committed
//! scripts:
//!
//! ```text
//! cargo run --example terminal_client --features inquire < examples/terminal_client.script
//! cargo run --example terminal_client --features inquire -- --demo url < examples/terminal_client_url.script
//! ```
//!
//! `tests/examples/terminal_tmux.rs` drives the prompts in a real terminal (tmux);
//! `tests/examples/terminal_client.rs` drives the scripts.

use std::io::{self, BufRead, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use elicit::client::terminal::{field_hint, TerminalAsker};
use elicit::client::terminal_text::{
    bounded, intro_line, url_consent, verbatim, MAX_MESSAGE_CHARS, MAX_NAME_CHARS,
};
use elicit::client::{
    readable_label, AgentIdentity, AskFuture, Asker, AskerNotice, ClientEngine, Consent,
    ConsentPrompt, FieldAnswer, FieldKind, FieldPrompt, FormField, Intro, ReviewChoice,
    ReviewPrompt,
};
use serde_json::{json, Value};

const USAGE: &str = "usage: terminal_client [--agent NAME] [--demo form|url | PARAMS.json]";

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            // Nothing on stdout: there is no answer to send.
            let _ = writeln!(io::stderr(), "terminal_client: {error}");
            ExitCode::from(2)
        }
    }
}

fn run() -> Result<(), String> {
    let args = Args::parse(std::env::args().skip(1))?;
    let params = match &args.request {
        Request::Demo(Demo::Form) => demo_form(),
        Request::Demo(Demo::Url) => demo_url(),
        Request::File(path) => read_params(path)?,
    };

    // A real client knows the agent from `initialize` (`agentInfo`), never from the
    // request itself (K1). Standing alone, this one is told.
    let responder = ClientEngine::new(AgentIdentity::new(args.agent));
    let mut asker: Box<dyn Asker> = if io::stdin().is_terminal() && io::stderr().is_terminal() {
        Box::new(TerminalAsker::new())
    } else {
        Box::new(LineAsker::new(io::BufReader::new(io::stdin())))
    };
    // The engine is async (an SDK integration runs it on the connection's runtime);
    // here one request is answered on a runtime of this thread.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .map_err(|error| format!("cannot start the runtime: {error}"))?;
    let json = match runtime.block_on(responder.respond(&mut *asker, &params)) {
        Ok(response) => response.to_json(),
        Err(error) => error.to_json(),
    };
    writeln!(io::stdout(), "{json}").map_err(|error| format!("cannot write the answer: {error}"))
}

// ---------------------------------------------------------------------------------
// The line-reading asker, for scripts

/// One answer per line from `input`, questions on stderr. Reading blocks this thread,
/// which is all this one-request program runs; a client with a deadline would read on
/// a thread of its own, as `examples/mcp_client.rs` does.
struct LineAsker<R> {
    input: R,
    /// The request whose intro was shown, so that it is shown once.
    introduced: Option<String>,
}

impl<R: BufRead + Send> LineAsker<R> {
    fn new(input: R) -> Self {
        LineAsker {
            input,
            introduced: None,
        }
    }

    fn say(&self, text: impl std::fmt::Display) {
        // The dialog is best effort: a closed stderr must not lose the answer.
        let _ = writeln!(io::stderr().lock(), "{text}");
    }

    /// K1, K4: who asks and why, once, before any question; `true` the first time.
    /// Every agent text this asker prints goes through elicit's `terminal_text`.
    fn introduce(&mut self, intro: &Intro<'_>) -> bool {
        let intro = intro_line(intro);
        if self.introduced.as_deref() == Some(intro.as_str()) {
            return false;
        }
        self.say(format_args!("\n{intro}"));
        self.introduced = Some(intro);
        true
    }

    /// Shows `prompt` and reads one answer without its line ending, echoed; `None` at
    /// the end of the input.
    fn ask(&mut self, prompt: &str) -> Option<String> {
        let mut stderr = io::stderr().lock();
        let _ = write!(stderr, "{prompt}");
        let _ = stderr.flush();
        loop {
            let mut line = String::new();
            match self.input.read_line(&mut line) {
                Ok(0) | Err(_) => {
                    let _ = writeln!(stderr, "(end of script)");
                    return None;
                }
                Ok(_) => {}
            }
            let answer = line.trim_end_matches(['\n', '\r']);
            if answer.trim_start().starts_with('#') {
                continue;
            }
            // A person's typing is echoed by the terminal; a script's is not.
            let _ = writeln!(stderr, "{}", verbatim(answer));
            return Some(answer.to_owned());
        }
    }
}

impl<R: BufRead + Send> Asker for LineAsker<R> {
    fn ask_field<'a>(&'a mut self, prompt: FieldPrompt<'a>) -> AskFuture<'a, FieldAnswer> {
        if self.introduce(&prompt.intro) {
            // K1: decline and cancel are always within reach.
            self.say(
                "Enter keeps the value in [brackets]; :clear empties an optional answer; \
                 :back returns to the previous field; :decline refuses the request; \
                 :cancel dismisses it.",
            );
        }
        let field = prompt.field;
        if prompt.problem.is_none() {
            show_field(self, &field, prompt.position, prompt.count);
        }
        if let Some(problem) = prompt.problem {
            // F3: why the last answer was refused, then the field again.
            self.say(format_args!("  ! {}", bounded(problem, MAX_MESSAGE_CHARS)));
        }
        let shown = match field.display_value() {
            Some(shown) => format!("  [{}] > ", verbatim(shown)),
            None => "  > ".to_owned(),
        };
        let answer = match self.ask(&shown) {
            None => FieldAnswer::Cancel,
            Some(line) => match line.trim() {
                "" => FieldAnswer::Keep,
                ":clear" => FieldAnswer::Clear,
                ":back" => FieldAnswer::Back,
                ":decline" => FieldAnswer::Decline,
                ":cancel" => FieldAnswer::Cancel,
                // Free text is taken as typed, surrounding spaces included.
                _ => FieldAnswer::Text(by_number(&field, &line).unwrap_or(line)),
            },
        };
        Box::pin(std::future::ready(answer))
    }

    fn review<'a>(&'a mut self, prompt: ReviewPrompt<'a>) -> AskFuture<'a, ReviewChoice> {
        // K2: every answer as it will be sent, and what stops it from being sent.
        let review = prompt.review;
        self.say("\nReview:");
        for entry in review.entries() {
            let marker = if entry.required { " *" } else { "" };
            let shown = entry.shown.as_deref().unwrap_or("(no answer)");
            self.say(format_args!(
                "  {}{marker}: {}",
                bounded(readable_label(&entry.name, &entry.label), MAX_NAME_CHARS),
                verbatim(shown)
            ));
        }
        match review.problems() {
            None => self.say("Ready to send."),
            Some(problems) => {
                self.say("Not ready:");
                for line in problems.to_string().lines() {
                    self.say(format_args!(
                        "  ! {}",
                        bounded(line.trim_start(), MAX_MESSAGE_CHARS)
                    ));
                }
            }
        }
        let choice = loop {
            let Some(line) = self.ask("Send it? send, edit FIELD, decline or cancel > ") else {
                break ReviewChoice::Cancel;
            };
            let line = line.trim();
            let (command, argument) = line.split_once(' ').unwrap_or((line, ""));
            match command {
                "send" | "yes" | "y" => break ReviewChoice::Send,
                "edit" | "e" => match find_field(review, argument.trim()) {
                    Some(name) => break ReviewChoice::Edit(name),
                    None => self.say(format_args!(
                        "  ! the form has no field {:?}",
                        bounded(argument.trim(), MAX_NAME_CHARS)
                    )),
                },
                "decline" | ":decline" => break ReviewChoice::Decline,
                "cancel" | ":cancel" => break ReviewChoice::Cancel,
                _ => self.say("  ! answer send, edit FIELD, decline or cancel"),
            }
        };
        Box::pin(std::future::ready(choice))
    }

    fn consent<'a>(&'a mut self, prompt: ConsentPrompt<'a>) -> AskFuture<'a, Consent> {
        self.introduce(&prompt.intro);
        let review = prompt.review;
        // S2: the full URL; S4, K3: the registrable domain in brackets; S4: every
        // warning, all before the question, on lines marked as the client's that the
        // agent's message (above, bounded, on one line) cannot imitate.
        self.say(url_consent(review, false, None));
        let consent = loop {
            let Some(line) = self.ask("Open this page? yes, no or cancel > ") else {
                break Consent::Cancel;
            };
            match line.trim() {
                // S2: consent is a deliberate yes; Enter alone is not.
                "yes" | "y" => {
                    self.say(format_args!(
                        "Consented. Open {} in your browser.",
                        verbatim(review.full_url())
                    ));
                    break Consent::Open;
                }
                "no" | "n" | "decline" | ":decline" => break Consent::Decline,
                "cancel" | ":cancel" => break Consent::Cancel,
                _ => self.say("  ! answer yes to open the page, no to refuse, or cancel"),
            }
        };
        Box::pin(std::future::ready(consent))
    }

    fn notice(&mut self, notice: &AskerNotice) {
        self.say(bounded(notice, MAX_MESSAGE_CHARS));
    }
}

/// The field's question: position, label, description, what it takes, its options.
fn show_field<R>(asker: &LineAsker<R>, field: &FormField<'_>, position: usize, count: usize)
where
    R: BufRead + Send,
{
    let marker = if field.is_required() { " *" } else { "" };
    let mut line = format!(
        "\n[{}/{count}] {}{marker}",
        position + 1,
        bounded(readable_label(field.name(), field.label()), MAX_NAME_CHARS)
    );
    if let Some(description) = field.description() {
        line += &format!(" — {}", bounded(description, MAX_MESSAGE_CHARS));
    }
    asker.say(line);
    asker.say(format_args!(
        "  {}",
        bounded(field_hint(field), MAX_MESSAGE_CHARS)
    ));
    for (number, choice) in field.options().iter().enumerate() {
        match choice.description {
            Some(description) => asker.say(format_args!(
                "    {}. {} — {}",
                number + 1,
                bounded(choice.label, MAX_NAME_CHARS),
                bounded(description, MAX_MESSAGE_CHARS)
            )),
            None => asker.say(format_args!(
                "    {}. {}",
                number + 1,
                bounded(choice.label, MAX_NAME_CHARS)
            )),
        }
    }
}

/// For a select, the values of the options numbered in `line` (from 1, separated by
/// commas for a multi select), as the engine reads them; `None` unless every piece is
/// such a number, so a value typed by name goes to the engine as typed.
fn by_number(field: &FormField<'_>, line: &str) -> Option<String> {
    if !matches!(
        field.kind(),
        FieldKind::SingleSelect | FieldKind::MultiSelect
    ) {
        return None;
    }
    let options = field.options();
    let values: Option<Vec<&str>> = line
        .split(',')
        .map(|piece| {
            let number = piece.trim().parse::<usize>().ok()?;
            Some(options.get(number.checked_sub(1)?)?.value)
        })
        .collect();
    Some(values?.join(","))
}

/// A field of the review by its number (from 1), its name or its label.
fn find_field(review: &elicit::client::Review, which: &str) -> Option<String> {
    let entries = review.entries();
    if let Ok(number) = which.parse::<usize>() {
        return entries.get(number.checked_sub(1)?).map(|e| e.name.clone());
    }
    entries
        .iter()
        .find(|e| {
            e.name == which
                || e.label.eq_ignore_ascii_case(which)
                || readable_label(&e.name, &e.label).eq_ignore_ascii_case(which)
        })
        .map(|e| e.name.clone())
}

// ---------------------------------------------------------------------------------
// Arguments and requests

struct Args {
    agent: String,
    request: Request,
}

enum Request {
    Demo(Demo),
    File(PathBuf),
}

enum Demo {
    Form,
    Url,
}

impl Args {
    fn parse(mut args: impl Iterator<Item = String>) -> Result<Args, String> {
        let mut agent = "elicit-acp-agent".to_owned();
        let mut request = None;
        while let Some(arg) = args.next() {
            match arg.as_str() {
                "--agent" => {
                    agent = args
                        .next()
                        .ok_or(format!("`--agent` needs a name\n{USAGE}"))?
                }
                "--demo" => {
                    let demo = match args.next().as_deref() {
                        Some("form") => Demo::Form,
                        Some("url") => Demo::Url,
                        _ => return Err(format!("`--demo` is `form` or `url`\n{USAGE}")),
                    };
                    request = Some(Request::Demo(demo));
                }
                "-h" | "--help" => return Err(USAGE.to_owned()),
                path if !path.starts_with('-') && request.is_none() => {
                    request = Some(Request::File(PathBuf::from(path)));
                }
                other => return Err(format!("unexpected argument `{other}`\n{USAGE}")),
            }
        }
        Ok(Args {
            agent,
            request: request.unwrap_or(Request::Demo(Demo::Form)),
        })
    }
}

/// The params of an `elicitation/create` from a file: the params object itself, or a
/// whole JSON-RPC request carrying them.
fn read_params(path: &Path) -> Result<Value, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|error| format!("cannot read {}: {error}", path.display()))?;
    let json: Value = serde_json::from_str(&text)
        .map_err(|error| format!("{} is not JSON: {error}", path.display()))?;
    Ok(match json.get("method").and_then(Value::as_str) {
        Some("elicitation/create") => json.get("params").cloned().unwrap_or(Value::Null),
        _ => json,
    })
}

/// The kitchen sink: every kind of field the spec has (F2), with defaults (F4) and
/// optional fields: text with a length, email, URI and date formats, an integer and a
/// number with bounds, a boolean, an untitled and a titled single select, an untitled
/// and a titled multi select with item counts.
fn demo_form() -> Value {
    json!({
        "mode": "form",
        "sessionId": "demo-session",
        "message": "Before I cut the release, a few details.",
        "requestedSchema": {
            "type": "object",
            "title": "Release settings",
            "properties": {
                "name": {
                    "type": "string", "title": "Release name",
                    "minLength": 3, "maxLength": 20, "default": "spring-cleanup"
                },
                "notify": { "type": "string", "title": "Notify", "format": "email" },
                "notes": {
                    "type": "string", "title": "Release notes", "format": "uri",
                    "description": "A page about it"
                },
                "date": { "type": "string", "title": "Release date", "format": "date" },
                "retries": {
                    "type": "integer", "title": "Retries", "minimum": 0, "maximum": 5, "default": 1
                },
                "rollout": {
                    "type": "number", "title": "Rollout share",
                    "description": "Users who get it first",
                    "minimum": 0, "maximum": 1, "default": 0.25
                },
                "announce": { "type": "boolean", "title": "Announce it", "default": true },
                "region": { "type": "string", "enum": ["eu", "us", "apac"] },
                "channel": {
                    "type": "string", "title": "Channel",
                    "oneOf": [
                        { "const": "stable", "title": "Stable" },
                        { "const": "beta", "title": "Beta", "description": "early adopters" },
                        { "const": "nightly", "title": "Nightly" }
                    ],
                    "default": "stable"
                },
                "platforms": {
                    "type": "array",
                    "items": { "type": "string", "enum": ["linux", "macos", "windows"] },
                    "minItems": 1, "maxItems": 2, "default": ["linux"]
                },
                "reviewers": {
                    "type": "array", "title": "Reviewers",
                    "items": { "anyOf": [
                        { "const": "ada", "title": "Ada Lovelace" },
                        { "const": "alan", "title": "Alan Turing" },
                        { "const": "grace", "title": "Grace Hopper" }
                    ] },
                    "minItems": 2
                }
            },
            "required": ["name", "notify", "date", "retries", "channel", "platforms", "reviewers"]
        }
    })
}

/// A URL-mode request whose host is a look-alike: `аррӏе.com` in Cyrillic letters,
/// written `xn--80ak6aa92e.com`, which the review warns about (S4).
fn demo_url() -> Value {
    json!({
        "mode": "url",
        "sessionId": "demo-session",
        "message": "Sign in to connect your account.",
        "elicitationId": "demo-elicitation",
        "url": "https://login.xn--80ak6aa92e.com/connect"
    })
}
