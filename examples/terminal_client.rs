//! A client's side of an elicitation, in the terminal: renders any `elicitation/create`
//! the way a person can answer it, and prints the response a client would send back.
//!
//! ```text
//! cargo run --example terminal_client                         # a built-in form
//! cargo run --example terminal_client -- --demo url           # a built-in URL request
//! cargo run --example terminal_client -- request.json         # any `elicitation/create` params
//! cargo run --example terminal_client -- --agent my-agent request.json
//! ```
//!
//! The dialog goes to stderr; stdout gets exactly one line, the JSON this client would
//! send back: the `ElicitationResponse` (`{"action": …}`), or the JSON-RPC error object
//! (`{"code": -32602, …}`) when the request cannot be honoured (C8, E6).
//!
//! **Scripts.** When stdin is not a terminal the answers are read from it line by line,
//! exactly as if typed, and echoed after their prompt so the transcript reads like a
//! session; lines starting with `#` are comments. The end of the input dismisses the
//! request (`cancel`). CI runs the committed scripts:
//!
//! ```text
//! cargo run --example terminal_client < examples/terminal_client.script
//! cargo run --example terminal_client -- --demo url < examples/terminal_client_url.script
//! ```
//!
//! **Forms** are driven by elicit's form engine: fields in the order the agent sent them
//! (D13), declared defaults pre-filled and shown in `[brackets]` (F4), each answer
//! checked as it is given and asked again with the reason when it is refused (F3), every
//! answer reviewed before sending (K2), and `decline` and `cancel` always available
//! (K1). At any field prompt: Enter keeps the value shown, `:clear` empties an optional
//! answer, `:decline` refuses the form, `:cancel` dismisses it. Options are chosen by
//! number or by name; several options are separated by commas.
//!
//! **URL requests** are reviewed with `elicit::UrlReview` before anything else: the full
//! URL (S2), the site with its registrable domain highlighted (S4, K3), and every
//! warning (S4). Only an explicit `yes` is consent; this client never opens or fetches
//! the URL itself (S2, S3).

use std::fmt::{self, Display, Write as _};
use std::io::{self, BufRead, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use elicit::client::{check_request, AgentIdentity, FormEngine};
use elicit::client::{FieldError, FieldErrorKind, FieldKind, FormField, Incoming};
use elicit::protocol::{InvalidParamsReason, JsonRpcError};
use elicit::schema::PropertyKind;
use elicit::{CreateElicitation, ElicitationCapabilities, ElicitationResponse, Mode, UrlReview};
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

    let stdin = io::stdin();
    let scripted = !stdin.is_terminal();
    // Colour only for a person at a terminal, and never against their wish.
    let styled = io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none();
    let mut terminal = Terminal {
        input: stdin.lock(),
        scripted,
        styled,
    };

    let reply = answer(&mut terminal, &params, AgentIdentity::new(args.agent))
        .map_err(|error| format!("the terminal failed: {error}"))?;
    let json = match reply {
        Reply::Response(response) => response.to_json(),
        Reply::Refused(error) => error.to_json(),
    };
    writeln!(io::stdout(), "{json}").map_err(|error| format!("cannot write the answer: {error}"))
}

/// What this client sends back for the request.
enum Reply {
    /// The result of `elicitation/create`.
    Response(ElicitationResponse),
    /// The JSON-RPC error it answers with instead.
    Refused(JsonRpcError),
}

/// Decides what the request is, shows it, and gets the user's answer.
fn answer<R: BufRead>(
    terminal: &mut Terminal<R>,
    params: &Value,
    agent: AgentIdentity,
) -> io::Result<Reply> {
    // This client can show forms and review URLs, so it declares both (C1).
    let capabilities = ElicitationCapabilities::with_modes([Mode::Form, Mode::Url]);
    // C8, D1, E2–E6, F1, F2, U1: a request that cannot be honoured is answered with a
    // `-32602` before anything is shown.
    match check_request(&capabilities, params) {
        Ok(Incoming::Form(request)) => run_form(terminal, &request, agent),
        Ok(Incoming::Url(request)) => run_url(terminal, &request, &agent),
        Ok(incoming @ Incoming::Unknown(_)) => {
            // E6: a mode this client does not know is never rendered as a known one.
            terminal.say(format_args!(
                "{} sent a request in the `{}` mode, which this client cannot show.",
                plain(&agent),
                plain(incoming.request().mode_name())
            ))?;
            let error = incoming
                .unsupported_error()
                .unwrap_or_else(|| JsonRpcError::unsupported_mode(incoming.request().mode_name()));
            Ok(Reply::Refused(error))
        }
        Err(error) => {
            terminal.say(format_args!(
                "{} sent a request this client cannot honour: {}",
                plain(&agent),
                plain(error.message())
            ))?;
            Ok(Reply::Refused(error))
        }
    }
}

// ---------------------------------------------------------------------------------
// Form mode

/// How the user left a form before sending it.
enum Leave {
    Decline,
    Cancel,
}

fn run_form<R: BufRead>(
    terminal: &mut Terminal<R>,
    request: &CreateElicitation,
    agent: AgentIdentity,
) -> io::Result<Reply> {
    let mut form = match FormEngine::from_request(request, agent) {
        Ok(form) => form,
        Err(error) => {
            // E6: a property of an unknown type cannot be rendered, and leaving it out
            // would send an answer the agent did not ask for.
            terminal.say(format_args!("This form cannot be shown: {}", plain(&error)))?;
            return Ok(Reply::Refused(error.to_jsonrpc_error()));
        }
    };

    // K1, K4: who asks, and their message, before any question.
    terminal.say(format_args!(
        "{} asks: {}",
        terminal.strong(plain(form.agent())),
        plain(form.message())
    ))?;
    if let Some(title) = form.title() {
        terminal.say(format_args!("Form: {}", plain(title)))?;
    }
    if let Some(description) = form.description() {
        terminal.say(format_args!("      {}", plain(description)))?;
    }
    terminal.say(
        "Enter keeps the value in [brackets]; :clear empties an optional answer; \
         :decline refuses the form; :cancel dismisses it.",
    )?;
    // D7, D8: say which of the agent's rules this client cannot check.
    for unenforced in form.unenforced() {
        terminal.say(format_args!(
            "Note: `{}` is not checked here: {}",
            plain(&unenforced.property),
            plain(&unenforced.reason)
        ))?;
    }

    let names: Vec<String> = form.fields().map(|f| f.name().to_owned()).collect();
    for name in &names {
        if let Some(leave) = ask_field(terminal, &mut form, name)? {
            return Ok(leave_form(&form, leave));
        }
    }

    // K2: every answer reviewed before anything is sent.
    loop {
        show_review(terminal, &form)?;
        let Some(line) = terminal.ask("Send it? [y]es, [e]dit FIELD, [d]ecline, [c]ancel > ")?
        else {
            return Ok(leave_form(&form, Leave::Cancel));
        };
        let line = line.trim();
        let (command, argument) = line.split_once(' ').unwrap_or((line, ""));
        match command.to_lowercase().as_str() {
            "y" | "yes" | "send" => match form.submit() {
                Ok(response) => return Ok(Reply::Response(response)),
                // F3: the whole form is checked again; nothing is sent while it fails.
                Err(problems) => {
                    terminal.warn("cannot send yet:")?;
                    show_lines(terminal, &problems)?;
                }
            },
            "e" | "edit" => {
                let argument = argument.trim();
                let targets = if argument.is_empty() {
                    names.clone()
                } else if let Some(name) = find_field(&form, argument) {
                    vec![name]
                } else {
                    terminal.warn(format_args!("the form has no field {argument:?}"))?;
                    continue;
                };
                for name in &targets {
                    if let Some(leave) = ask_field(terminal, &mut form, name)? {
                        return Ok(leave_form(&form, leave));
                    }
                }
            }
            "d" | "decline" | ":decline" => return Ok(leave_form(&form, Leave::Decline)),
            "c" | "cancel" | ":cancel" => return Ok(leave_form(&form, Leave::Cancel)),
            _ => terminal
                .warn("answer yes, edit (with a field's number or name), decline or cancel")?,
        }
    }
}

/// K2: every answer as it will be sent, and what still stops the form from being sent.
fn show_review<R: BufRead>(terminal: &Terminal<R>, form: &FormEngine) -> io::Result<()> {
    let review = form.review();
    terminal.say("\nReview:")?;
    for entry in review.entries() {
        let marker = if entry.required { " *" } else { "" };
        match &entry.shown {
            Some(shown) => terminal.say(format_args!(
                "  {}{marker}: {}",
                plain(&entry.label),
                plain(shown)
            ))?,
            None => terminal.say(format_args!(
                "  {}{marker}: (no answer)",
                plain(&entry.label)
            ))?,
        }
    }
    match review.problems() {
        None => terminal.say("Ready to send."),
        Some(problems) => {
            terminal.say("Not ready:")?;
            show_lines(terminal, problems)
        }
    }
}

/// A multi-line message of the library, each line shown as plain text.
fn show_lines<R: BufRead>(terminal: &Terminal<R>, text: impl Display) -> io::Result<()> {
    for line in text.to_string().lines() {
        terminal.warn(plain(line.trim_start()))?;
    }
    Ok(())
}

fn leave_form(form: &FormEngine, leave: Leave) -> Reply {
    Reply::Response(match leave {
        Leave::Decline => form.decline(),
        Leave::Cancel => form.cancel(),
    })
}

/// A field by its number in the form (from 1), its name, or its label.
fn find_field(form: &FormEngine, which: &str) -> Option<String> {
    if let Ok(number) = which.parse::<usize>() {
        return form
            .fields()
            .nth(number.checked_sub(1)?)
            .map(|f| f.name().to_owned());
    }
    form.fields()
        .find(|f| f.name() == which || f.label().eq_ignore_ascii_case(which))
        .map(|f| f.name().to_owned())
}

/// Asks one field until it has an acceptable answer, or the user leaves the form.
fn ask_field<R: BufRead>(
    terminal: &mut Terminal<R>,
    form: &mut FormEngine,
    name: &str,
) -> io::Result<Option<Leave>> {
    let Some(field) = form.field(name) else {
        return Ok(None);
    };
    let required = field.is_required();
    terminal.say("")?;
    let marker = if required { " *" } else { "" };
    let label = terminal.strong(plain(field.label()));
    match field.description() {
        Some(description) => {
            terminal.say(format_args!("{label}{marker} — {}", plain(description)))?
        }
        None => terminal.say(format_args!("{label}{marker}"))?,
    }
    terminal.say(format_args!("  {}", plain(hint(&field))))?;
    for (number, choice) in field.options().iter().enumerate() {
        match choice.description {
            Some(description) => terminal.say(format_args!(
                "    {}. {} — {}",
                number + 1,
                plain(choice.label),
                plain(description)
            ))?,
            None => terminal.say(format_args!("    {}. {}", number + 1, plain(choice.label)))?,
        }
    }

    loop {
        // F4: the current answer, a declared default at first, is shown and kept on Enter.
        let prompt = match form.field(name).and_then(|f| f.display_value()) {
            Some(shown) => format!("  [{}] > ", plain(shown)),
            None => "  > ".to_owned(),
        };
        let Some(line) = terminal.ask(&prompt)? else {
            return Ok(Some(Leave::Cancel));
        };
        match line.trim() {
            ":decline" => return Ok(Some(Leave::Decline)),
            ":cancel" => return Ok(Some(Leave::Cancel)),
            ":clear" if required => terminal.warn("an answer is required")?,
            ":clear" => {
                form.clear(name).map_err(io::Error::other)?;
                return Ok(None);
            }
            "" if required && form.value(name).is_none() => {
                terminal.warn("an answer is required")?
            }
            "" => return Ok(None),
            // Free text is taken as typed, surrounding spaces included.
            _ => match set_answer(form, name, &line) {
                Ok(()) => return Ok(None),
                // F3: refused now, with the reason, and asked again.
                Err(error) => terminal.warn(plain(error))?,
            },
        }
    }
}

/// Sets an answer as typed; for a select, an option's number is accepted too when the
/// text names no option.
fn set_answer(form: &mut FormEngine, name: &str, text: &str) -> Result<(), FieldError> {
    match form.set_text(name, text) {
        Err(error) if matches!(error.kind, FieldErrorKind::NoSuchOption { .. }) => {
            match form
                .field(name)
                .and_then(|field| options_by_number(&field, text))
            {
                Some(value) => form.set(name, value),
                None => Err(error),
            }
        }
        result => result,
    }
}

/// The values of the options numbered in `text` (from 1, comma-separated for a
/// multi-select), or `None` unless every piece is such a number.
fn options_by_number(field: &FormField<'_>, text: &str) -> Option<Value> {
    let options = field.options();
    let pick = |piece: &str| {
        let number = piece.trim().parse::<usize>().ok()?;
        options
            .get(number.checked_sub(1)?)
            .map(|choice| choice.value)
    };
    match field.kind() {
        FieldKind::SingleSelect => pick(text).map(Value::from),
        FieldKind::MultiSelect => {
            let mut chosen: Vec<&str> = Vec::new();
            for piece in text.split(',') {
                let value = pick(piece)?;
                if !chosen.contains(&value) {
                    chosen.push(value);
                }
            }
            Some(Value::from(chosen))
        }
        _ => None,
    }
}

/// What a field expects, in words: its kind and constraints.
fn hint(field: &FormField<'_>) -> String {
    match field.property().schema().kind() {
        PropertyKind::String(text) => {
            let mut hint = match field.format() {
                Some("email") => "an email address".to_owned(),
                Some("uri") => "an absolute URI, such as https://example.com/".to_owned(),
                Some("date") => "a date, YYYY-MM-DD".to_owned(),
                Some("date-time") => "a date and time, such as 2025-01-31T09:30:00Z".to_owned(),
                Some(other) => format!("text ({other})"),
                None => "text".to_owned(),
            };
            hint += &range(",", text.min_length, text.max_length, " characters");
            if let Some(pattern) = &text.pattern {
                hint += &format!(" matching /{}/", pattern.source());
            }
            hint
        }
        PropertyKind::Integer(number) => {
            format!(
                "a whole number{}",
                range("", number.minimum, number.maximum, "")
            )
        }
        PropertyKind::Number(number) => {
            format!("a number{}", range("", number.minimum, number.maximum, ""))
        }
        PropertyKind::Boolean(_) => "yes or no".to_owned(),
        PropertyKind::SingleSelect(_) => "one option, by number or name".to_owned(),
        PropertyKind::MultiSelect(select) => format!(
            "options by number or name, separated by commas{}",
            range(",", select.min_items, select.max_items, " of them")
        ),
        // The form engine refuses forms with unknown types (E6): never shown.
        PropertyKind::Unknown(_) => String::new(),
    }
}

/// ` from 1 to 5`, ` at least 1`, ` at most 5` or nothing, between `lead` and `unit`.
fn range<T: Display>(lead: &str, min: Option<T>, max: Option<T>, unit: &str) -> String {
    match (min, max) {
        (Some(min), Some(max)) => format!("{lead} from {min} to {max}{unit}"),
        (Some(min), None) => format!("{lead} at least {min}{unit}"),
        (None, Some(max)) => format!("{lead} at most {max}{unit}"),
        (None, None) => String::new(),
    }
}

// ---------------------------------------------------------------------------------
// URL mode

fn run_url<R: BufRead>(
    terminal: &mut Terminal<R>,
    request: &CreateElicitation,
    agent: &AgentIdentity,
) -> io::Result<Reply> {
    let url = request.target_url().unwrap_or_default();
    let review = match UrlReview::new(url) {
        Ok(review) => review,
        Err(error) => {
            // Not an http(s) page (`javascript:`, `file:`…): never offered to the user.
            terminal.say(format_args!(
                "{} sent a link this client will not offer: {error}",
                plain(agent)
            ))?;
            return Ok(Reply::Refused(JsonRpcError::invalid_params(
                InvalidParamsReason::InvalidUrlParams,
                format!("the URL cannot be offered to the user: {error}"),
                Some("/url"),
            )));
        }
    };

    // K1, K4, S2: who asks and why, then the whole URL, before any question.
    terminal.say(format_args!(
        "{} asks you to open a web page: {}",
        terminal.strong(plain(agent)),
        plain(request.message())
    ))?;
    terminal.say(format_args!("  Address: {}", review.full_url()))?;
    // S4, K3: the registrable domain is who runs the site; make it stand out.
    let host = review.host_unicode();
    let site = match review
        .registrable_domain()
        .and_then(|domain| Some((host.strip_suffix(domain)?, domain)))
    {
        Some((subdomains, domain)) => {
            format!("{}{}", plain(subdomains), terminal.highlight(plain(domain)))
        }
        None => plain(host).to_string(),
    };
    if host == review.host_ascii() {
        terminal.say(format_args!("  Site:    {site}"))?;
    } else {
        terminal.say(format_args!(
            "  Site:    {site} (written {})",
            review.host_ascii()
        ))?;
    }
    if review.warnings().is_empty() {
        terminal.say("  No warnings.")?;
    } else {
        terminal.say("  Warnings:")?;
        for warning in review.warnings() {
            terminal.warn(plain(warning))?;
        }
    }
    terminal.say(
        "This client does not open the page itself: if you agree, open the address above \
         in your browser. Nothing you do there comes back through this client.",
    )?;

    loop {
        let Some(line) = terminal.ask("Open this page? [y]es, [n]o, [c]ancel > ")? else {
            return Ok(Reply::Response(ElicitationResponse::cancel()));
        };
        match line.trim().to_lowercase().as_str() {
            // S2: consent is a deliberate yes; Enter alone is not.
            "y" | "yes" => {
                terminal.say(format_args!(
                    "Consented. Open {} in your browser.",
                    review.full_url()
                ))?;
                // R4: URL mode answers without content (U3: nothing from the page).
                return Ok(Reply::Response(
                    ElicitationResponse::accept_without_content(),
                ));
            }
            "n" | "no" | "d" | "decline" | ":decline" => {
                return Ok(Reply::Response(ElicitationResponse::decline()))
            }
            "c" | "cancel" | ":cancel" => {
                return Ok(Reply::Response(ElicitationResponse::cancel()))
            }
            _ => terminal.warn("answer yes to open the page, no to refuse, or cancel")?,
        }
    }
}

// ---------------------------------------------------------------------------------
// The terminal

/// Where the dialog happens: questions and messages on stderr, answers from `input`.
struct Terminal<R> {
    input: R,
    /// Answers come from a script, not a person: echo them, skip `#` comments.
    scripted: bool,
    /// ANSI styles are welcome.
    styled: bool,
}

impl<R: BufRead> Terminal<R> {
    fn say(&self, text: impl Display) -> io::Result<()> {
        writeln!(io::stderr().lock(), "{text}")
    }

    fn warn(&self, text: impl Display) -> io::Result<()> {
        if self.styled {
            self.say(format_args!("  \x1b[33m! {text}\x1b[0m"))
        } else {
            self.say(format_args!("  ! {text}"))
        }
    }

    fn strong<T: Display>(&self, text: T) -> Styled<T> {
        Styled {
            text,
            style: self.styled.then_some("\x1b[1m"),
            plain: ("", ""),
        }
    }

    /// Bold and underlined at a terminal; between brackets in plain text, so the
    /// highlight survives in a transcript.
    fn highlight<T: Display>(&self, text: T) -> Styled<T> {
        Styled {
            text,
            style: self.styled.then_some("\x1b[1;4m"),
            plain: ("[", "]"),
        }
    }

    /// Shows `prompt` and reads one answer, without its line ending; `None` at the end
    /// of the input.
    fn ask(&mut self, prompt: &str) -> io::Result<Option<String>> {
        let mut stderr = io::stderr().lock();
        write!(stderr, "{prompt}")?;
        stderr.flush()?;
        loop {
            let mut line = String::new();
            if self.input.read_line(&mut line)? == 0 {
                writeln!(
                    stderr,
                    "{}",
                    if self.scripted { "(end of script)" } else { "" }
                )?;
                return Ok(None);
            }
            let answer = line.trim_end_matches(['\n', '\r']);
            if self.scripted {
                if answer.trim_start().starts_with('#') {
                    continue;
                }
                // A person's typing is echoed by the terminal; a script's is not.
                writeln!(stderr, "{}", plain(answer))?;
            }
            return Ok(Some(answer.to_owned()));
        }
    }
}

/// Text from the agent (or about it), to show as plain text (S5): a control character
/// (an escape sequence could move the cursor, hide a warning, fake a prompt), a line
/// break (a fake line) or a bidirectional control (text shown in another order than
/// it is read) is shown as `<U+001B>` instead of acting.
struct Plain(String);

fn plain(text: impl Display) -> Plain {
    Plain(text.to_string())
}

impl Display for Plain {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for c in self.0.chars() {
            if c.is_control() || is_bidi_control(c) {
                write!(f, "<U+{:04X}>", u32::from(c))?;
            } else {
                f.write_char(c)?;
            }
        }
        Ok(())
    }
}

/// The bidirectional formatting characters of Unicode (UAX #9): marks, embeddings,
/// overrides and isolates.
fn is_bidi_control(c: char) -> bool {
    matches!(
        c,
        '\u{061C}' | '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}'
    )
}

/// Text with an ANSI style, or with plain markers around it.
struct Styled<T> {
    text: T,
    style: Option<&'static str>,
    plain: (&'static str, &'static str),
}

impl<T: Display> Display for Styled<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.style {
            Some(style) => write!(f, "{style}{}\x1b[0m", self.text),
            None => write!(f, "{}{}{}", self.plain.0, self.text, self.plain.1),
        }
    }
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
        // A real client knows the agent from `initialize` (`agentInfo`), never from the
        // request itself (K1). Standing alone, this one is told.
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

/// A form with every kind of field: text with a length and a format, a titled select,
/// a multi-select, a number, an integer and a yes/no.
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
                    "minLength": 3, "maxLength": 40, "default": "spring-cleanup"
                },
                "channel": {
                    "type": "string", "title": "Channel",
                    "oneOf": [
                        { "const": "stable", "title": "Stable" },
                        { "const": "beta", "title": "Beta", "description": "Early adopters only" },
                        { "const": "nightly", "title": "Nightly" }
                    ],
                    "default": "stable"
                },
                "platforms": {
                    "type": "array", "title": "Platforms",
                    "items": { "type": "string", "enum": ["linux", "macos", "windows"] },
                    "minItems": 1, "default": ["linux"]
                },
                "rollout": {
                    "type": "number", "title": "Rollout share",
                    "description": "The fraction of users who get it first",
                    "minimum": 0, "maximum": 1, "default": 0.25
                },
                "retries": {
                    "type": "integer", "title": "Retries", "minimum": 0, "maximum": 5, "default": 1
                },
                "notify": { "type": "string", "title": "Notify", "format": "email" },
                "announce": { "type": "boolean", "title": "Announce it", "default": true }
            },
            "required": ["name", "channel", "platforms", "notify"]
        }
    })
}

/// The URL-mode request `examples/acp_agent.rs` sends: a loopback page, which the
/// review warns about.
fn demo_url() -> Value {
    json!({
        "mode": "url",
        "sessionId": "demo-session",
        "message": "Review and approve the task plan in your browser.",
        "elicitationId": "demo-elicitation",
        "url": "http://127.0.0.1:47615/consent"
    })
}
