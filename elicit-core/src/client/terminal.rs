//! An [`Asker`] for a person at a terminal, on the `inquire` prompt crate (feature
//! `inquire`).
//!
//! [`TerminalAsker`] puts each question of the [`ClientEngine`](super::ClientEngine) to the
//! person with one of inquire's prompts, on stderr (stdout stays free for whatever the
//! program prints):
//!
//! - who asks and why first, with the ACP scope when there is one
//!   ([K1](crate::rules#k1), [K4](crate::rules#k4));
//! - text, integers and numbers in a text prompt whose validator is the form engine's
//!   own check (a clone of the form takes the answer with
//!   [`FormEngine::set_text`]), so a value the engine would refuse is refused at entry,
//!   with the engine's reason ([F3](crate::rules#f3));
//! - booleans and single selects as a list (titles shown, values sent); multi selects
//!   as a checklist whose validator checks `minItems`/`maxItems` the same way;
//! - the current answer (a declared default at first) shown and kept on Enter
//!   ([F4](crate::rules#f4)); an optional field left empty: Enter on an empty text, or
//!   on "(leave empty)", where the cursor of an optional list without an answer starts;
//! - Esc, in every prompt (field, review, URL consent), asks what to do: back to the
//!   question, decline the request, or cancel it; Esc again, or Ctrl-C anywhere,
//!   cancels at once. `:decline` in a text prompt, or the last entry of a list where
//!   one entry is picked (a boolean, a single select), declines too; a multi select
//!   has no such entry, since a checkbox is checked together with answers (found:
//!   "(decline this request)" checked with "vegan" declined a filled form). `:back`
//!   returns to the previous field ([K1](crate::rules#k1), [R1](crate::rules#r1)).
//!   Either way a line says what the agent is told (inquire leaves a prompt
//!   interrupted by Ctrl-C as it was drawn);
//! - the review, with Send / Edit a field / Decline / Cancel ([K2](crate::rules#k2));
//! - URL consent: the full URL, the registrable domain emphasised, every warning above
//!   the question, and consent only by an explicit `y`
//!   ([S2](crate::rules#s2)–[S4](crate::rules#s4), [K3](crate::rules#k3)). This asker
//!   never opens the URL: after consent it tells the person to open it in their own
//!   browser, outside the client and any model behind it ([S3](crate::rules#s3)).
//!
//! `tests/examples/terminal_tmux.rs` drives this asker, through
//! `examples/terminal_client.rs`, in a real terminal (a tmux pane): every kind, a
//! default kept, wrong values refused at entry, cancel, decline, URL consent.
//!
//! Every text that comes from the agent is shown through the
//! [`terminal_text`](super::terminal_text) neutraliser: control characters, escape
//! sequences, bidirectional and invisible characters are shown as `<U+XXXX>` instead of
//! acting or hiding, white space and line breaks in prose collapse to one space, the
//! message and descriptions are bounded ([S5](crate::rules#s5)); the lines of a URL
//! consent that this asker vouches for start with a mark agent text never contains
//! ([`url_consent`]).
//!
//! inquire is synchronous: each prompt runs on a thread of its own and hands its answer
//! back through a one-shot channel, so the asker's futures are `Send`. When the
//! question is no longer wanted (a deadline, a cancelled request: the
//! [`StopSignal`]), the prompt is abandoned: the terminal is given back at once (raw
//! mode off, cursor shown) and the answer the person may still type is thrown away.
//! No prompt crate can be interrupted while it waits for a key, so the abandoned
//! prompt's thread takes the person's next key and ends; a program that exits after
//! the answer (as `examples/terminal_client.rs` does) never sees it.
//!
//! ```no_run
//! use elicit::client::{AgentIdentity, ClientEngine, terminal::TerminalAsker};
//! # async fn run(params: serde_json::Value) {
//! let responder = ClientEngine::new(AgentIdentity::new("deploy-bot"));
//! let mut asker = TerminalAsker::new();
//! match responder.respond(&mut asker, &params).await {
//!     Ok(response) => println!("{}", response.to_json()),
//!     Err(error) => println!("{}", error.to_json()),
//! }
//! # }
//! ```

use std::fmt::{self, Display, Write as _};
use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use futures::channel::oneshot;
use inquire::error::InquireResult;
use inquire::list_option::ListOption;
use inquire::ui::RenderConfig;
use inquire::validator::Validation;
#[cfg(feature = "url")]
use inquire::Confirm;
use inquire::{InquireError, MultiSelect, Select, Text};
use serde_json::Value;

use super::asker::{
    AskFuture, Asker, AskerNotice, FieldAnswer, FieldPrompt, Intro, ReviewChoice, ReviewPrompt,
    StopSignal,
};
#[cfg(feature = "url")]
use super::asker::{Consent, ConsentPrompt};
use super::form::{FieldKind, FormEngine, FormField};
use super::label::readable_label;
#[cfg(feature = "url")]
use super::terminal_text::url_consent;
use super::terminal_text::{
    bounded, intro_line, plain, verbatim, MAX_MESSAGE_CHARS, MAX_NAME_CHARS,
};

/// What typed in a text prompt refuses the whole request ([R1](crate::rules#r1)).
pub const DECLINE_COMMAND: &str = ":decline";
/// What typed in a text prompt leaves an optional field empty.
pub const CLEAR_COMMAND: &str = ":clear";
/// What typed in a text prompt goes back to the previous field.
pub const BACK_COMMAND: &str = ":back";

/// The list entry that leaves an optional select empty.
const LEAVE_EMPTY: &str = "(leave empty)";
/// The list entry that refuses the request, in a list where one entry is picked (a
/// boolean, a single select). Never in a multi select, where it would be a checkbox
/// checked with others: there, and in every prompt, Esc offers decline.
const DECLINE_ENTRY: &str = "(decline this request)";

/// The choices Esc offers in every prompt, in the order shown: back to the question
/// first, so that a stray Esc loses nothing ([K1](crate::rules#k1), [R1](crate::rules#r1)).
const LEAVE_ENTRIES: [&str; 3] = [
    "Back to the question",
    "Decline: tell the agent you refuse this request",
    "Cancel: dismiss this request without answering",
];

/// Puts every question to a person at a terminal with inquire's prompts (see the
/// [module](self)). Declares form and URL mode.
#[derive(Debug, Clone)]
pub struct TerminalAsker {
    styled: bool,
    /// Who asks and why, for the request whose header was shown last, so that the
    /// header is shown once per request (the review and the fields share it).
    last_intro: Option<String>,
}

impl Default for TerminalAsker {
    fn default() -> Self {
        Self::new()
    }
}

impl TerminalAsker {
    /// An asker on this process's terminal; styled (bold, underline) when stderr is a
    /// terminal and `NO_COLOR` is not set.
    pub fn new() -> Self {
        TerminalAsker {
            styled: std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none(),
            last_intro: None,
        }
    }

    /// With styles on or off.
    pub fn styled(mut self, on: bool) -> Self {
        self.styled = on;
        self
    }

    fn say(&self, text: impl Display) {
        // The dialog is best effort: a closed stderr must not lose the answer.
        let _ = writeln!(std::io::stderr().lock(), "{text}");
    }

    /// Who asks and why, once per request ([K1](crate::rules#k1), [K4](crate::rules#k4)).
    fn introduce(&mut self, intro: &Intro<'_>, form: Option<&FormEngine>) {
        let asks = intro_line(intro);
        if self.last_intro.as_deref() == Some(asks.as_str()) {
            return;
        }
        let mut header = format!("\n{}", Emphasis::strong(self.styled, &asks));
        if let Some(form) = form {
            if let Some(title) = form.title() {
                let _ = write!(header, "\nForm: {}", bounded(title, MAX_NAME_CHARS));
            }
            if let Some(description) = form.description() {
                let _ = write!(
                    header,
                    "\n      {}",
                    bounded(description, MAX_MESSAGE_CHARS)
                );
            }
            // D7, D8: what this client cannot check, said rather than hidden.
            for unenforced in form.unenforced() {
                let _ = write!(
                    header,
                    "\nNote: `{}` is not checked here: {}",
                    bounded(&unenforced.property, MAX_NAME_CHARS),
                    bounded(&unenforced.reason, MAX_MESSAGE_CHARS)
                );
            }
            let _ = write!(
                header,
                "\nEsc: decline or cancel this request, or go back to the question.\
                 \nCtrl-C cancels at once; in a text field, {DECLINE_COMMAND} declines too."
            );
        }
        self.say(&header);
        self.last_intro = Some(asks);
    }

    /// After the person ended the request (sent, declined, cancelled): the next
    /// request gets its header again, even from the same agent with the same message;
    /// and a decline or cancel is said plainly, since inquire leaves an interrupted
    /// prompt as it was drawn (Ctrl-C) ([R1](crate::rules#r1)).
    fn ended(&mut self, how: Ending, stop: &StopSignal) {
        self.last_intro = None;
        // A stopped question was not answered by the person: the engine's notice says
        // what happened.
        if stop.is_stopped() {
            return;
        }
        match how {
            Ending::Sent => {}
            Ending::Declined => self.say("Declined: the agent is told you refused this request."),
            Ending::Cancelled => {
                self.say("Cancelled: the agent is told you dismissed this request.")
            }
        }
    }
}

/// How a request ended at this asker.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ending {
    Sent,
    Declined,
    Cancelled,
}

/// How a field's answer ends the request, if it does.
fn field_ending(answer: &FieldAnswer) -> Option<Ending> {
    match answer {
        FieldAnswer::Decline => Some(Ending::Declined),
        FieldAnswer::Cancel => Some(Ending::Cancelled),
        _ => None,
    }
}

/// How the review's choice ends the request, if it does.
fn review_ending(choice: &ReviewChoice) -> Option<Ending> {
    match choice {
        ReviewChoice::Send => Some(Ending::Sent),
        ReviewChoice::Decline => Some(Ending::Declined),
        ReviewChoice::Cancel => Some(Ending::Cancelled),
        _ => None,
    }
}

impl Asker for TerminalAsker {
    fn ask_field<'a>(&'a mut self, prompt: FieldPrompt<'a>) -> AskFuture<'a, FieldAnswer> {
        if prompt.stop.is_stopped() {
            return Box::pin(std::future::ready(FieldAnswer::Cancel));
        }
        self.introduce(&prompt.intro, Some(prompt.form));
        let question = FieldQuestion::new(&prompt, self.styled);
        if let Some(problem) = prompt.problem {
            // F3: why the last answer was refused, beside the field.
            self.say(format_args!("  ! {}", bounded(problem, MAX_MESSAGE_CHARS)));
        }
        let stop = prompt.stop;
        let answer = run_blocking(stop, FieldAnswer::Cancel, move || question.ask());
        Box::pin(async move {
            let answer = answer.await;
            if let Some(how) = field_ending(&answer) {
                self.ended(how, stop);
            }
            answer
        })
    }

    fn review<'a>(&'a mut self, prompt: ReviewPrompt<'a>) -> AskFuture<'a, ReviewChoice> {
        if prompt.stop.is_stopped() {
            return Box::pin(std::future::ready(ReviewChoice::Cancel));
        }
        self.introduce(&prompt.intro, None);
        // K2: every answer as it will be sent, and what stops it from being sent.
        let review = prompt.review;
        let mut text = String::from("\nReview:");
        for entry in review.entries() {
            let marker = if entry.required { " *" } else { "" };
            let shown = entry.shown.as_deref().unwrap_or("(no answer)");
            let _ = write!(
                text,
                "\n  {}{marker}: {}",
                bounded(readable_label(&entry.name, &entry.label), MAX_NAME_CHARS),
                verbatim(shown)
            );
        }
        match review.problems() {
            None => text.push_str("\nReady to send."),
            Some(problems) => {
                text.push_str("\nNot ready:");
                for line in problems.to_string().lines() {
                    let _ = write!(
                        text,
                        "\n  ! {}",
                        bounded(line.trim_start(), MAX_MESSAGE_CHARS)
                    );
                }
            }
        }
        self.say(text);
        let fields: Vec<(String, String)> = review
            .entries()
            .iter()
            .map(|e| {
                let shown = e.shown.as_deref().unwrap_or("(no answer)");
                (
                    e.name.clone(),
                    format!(
                        "{}: {}",
                        bounded(readable_label(&e.name, &e.label), MAX_NAME_CHARS),
                        verbatim(shown)
                    ),
                )
            })
            .collect();
        let stop = prompt.stop;
        let styled = self.styled;
        let choice = run_blocking(stop, ReviewChoice::Cancel, move || {
            let choice = with_leave(styled, || {
                Select::new("Send these answers?", REVIEW_ENTRIES.to_vec())
                    .with_help_message("Esc to leave")
                    .with_render_config(render_config(styled))
                    .raw_prompt()
                    .map(|option| review_choice(option.index))
            })?;
            if choice != ReviewChoice::Edit(String::new()) {
                return Ok(choice);
            }
            let labels: Vec<String> = fields.iter().map(|(_, label)| label.clone()).collect();
            match Select::new("Which field?", labels)
                .with_render_config(render_config(styled))
                .raw_prompt()
            {
                Ok(option) => Ok(ReviewChoice::Edit(fields[option.index].0.clone())),
                // Esc here goes back to the review, not out of the request.
                Err(InquireError::OperationCanceled) => Ok(ReviewChoice::Edit(String::new())),
                Err(error) => cancel_on(error),
            }
        });
        // `Edit("")` (Esc at "Which field?") names no field: the engine reviews again.
        Box::pin(async move {
            let choice = choice.await;
            if let Some(how) = review_ending(&choice) {
                self.ended(how, stop);
            }
            choice
        })
    }

    #[cfg(feature = "url")]
    fn consent<'a>(&'a mut self, prompt: ConsentPrompt<'a>) -> AskFuture<'a, Consent> {
        if prompt.stop.is_stopped() {
            return Box::pin(std::future::ready(Consent::Cancel));
        }
        self.introduce(&prompt.intro, None);
        let review = prompt.review;
        let styled = self.styled;
        // S2: the full URL; S4, K3: the host with its registrable domain emphasised;
        // S4: every warning, all before the question, on lines marked as this
        // client's, which the agent's message (bounded, on one line, above them)
        // cannot imitate or push away.
        self.say(url_consent(review, styled, terminal_columns()));
        let url = verbatim(review.full_url()).to_string();
        let stop = prompt.stop;
        let consent = run_blocking(stop, Consent::Cancel, move || {
            // S2: no default, so Enter alone is not consent: only `y` is.
            with_leave(styled, || {
                Confirm::new("Open this page?")
                    .with_help_message("type y to agree or n to decline, then Enter; Esc to leave")
                    .with_render_config(render_config(styled))
                    .prompt()
                    .map(|open| {
                        if open {
                            Consent::Open
                        } else {
                            Consent::Decline
                        }
                    })
            })
        });
        let styled_url = Emphasis::strong(styled, url).to_string();
        Box::pin(async move {
            let consent = consent.await;
            match consent {
                Consent::Open => {
                    self.say(format_args!(
                        "Consented. Open {styled_url} in your browser."
                    ));
                    self.ended(Ending::Sent, stop);
                }
                Consent::Decline => self.ended(Ending::Declined, stop),
                _ => self.ended(Ending::Cancelled, stop),
            }
            consent
        })
    }

    fn notice(&mut self, notice: &AskerNotice) {
        self.last_intro = None;
        self.say(bounded(notice, MAX_MESSAGE_CHARS));
    }
}

/// The width of the terminal, when there is one to ask, so that the lines of a URL
/// consent are cut to fit and every piece keeps its mark.
#[cfg(feature = "url")]
fn terminal_columns() -> Option<usize> {
    if !std::io::stderr().is_terminal() {
        return None;
    }
    crossterm::terminal::size()
        .ok()
        .map(|(columns, _)| usize::from(columns))
        .filter(|&columns| columns > 0)
}

/// inquire's look: its colours only when this asker is styled (inquire alone looks
/// at `NO_COLOR` only), and a refused answer marked `!` as every other problem this
/// asker shows (inquire's own mark is `#`).
fn render_config(styled: bool) -> RenderConfig<'static> {
    let mut config = if styled {
        RenderConfig::default_colored()
    } else {
        RenderConfig::empty()
    };
    config.error_message.prefix.content = "!";
    config
}

/// The review's choices, in the order shown.
const REVIEW_ENTRIES: [&str; 4] = ["Send", "Edit a field", "Decline", "Cancel"];

/// The review's choice at `index` of [`REVIEW_ENTRIES`]; `Edit` with an empty name
/// means "ask which field".
fn review_choice(index: usize) -> ReviewChoice {
    match index {
        0 => ReviewChoice::Send,
        1 => ReviewChoice::Edit(String::new()),
        2 => ReviewChoice::Decline,
        _ => ReviewChoice::Cancel,
    }
}

/// Esc and Ctrl-C dismiss the request (`cancel`, [R1](crate::rules#r1)); any other
/// error of the terminal also ends it as `cancel`, and says why.
fn cancel_on<T: Cancelled>(error: InquireError) -> InquireResult<T> {
    match error {
        InquireError::OperationCanceled | InquireError::OperationInterrupted => Ok(T::cancelled()),
        other => Err(other),
    }
}

/// The answers that dismiss a question and that refuse its request.
trait Cancelled {
    fn cancelled() -> Self;
    fn declined() -> Self;
}

impl Cancelled for FieldAnswer {
    fn cancelled() -> Self {
        FieldAnswer::Cancel
    }
    fn declined() -> Self {
        FieldAnswer::Decline
    }
}

impl Cancelled for ReviewChoice {
    fn cancelled() -> Self {
        ReviewChoice::Cancel
    }
    fn declined() -> Self {
        ReviewChoice::Decline
    }
}

#[cfg(feature = "url")]
impl Cancelled for Consent {
    fn cancelled() -> Self {
        Consent::Cancel
    }
    fn declined() -> Self {
        Consent::Decline
    }
}

/// What the person chose after Esc.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Leave {
    /// Back to the question, as it was before Esc.
    Back,
    /// Refuse the request (`decline`).
    Decline,
    /// Dismiss it (`cancel`).
    Cancel,
}

/// The choice at `index` of [`LEAVE_ENTRIES`].
fn leave_choice(index: usize) -> Leave {
    match index {
        0 => Leave::Back,
        1 => Leave::Decline,
        _ => Leave::Cancel,
    }
}

/// Runs `ask` (one prompt) until it is answered. Esc opens the leave menu (back to
/// the question, decline, cancel), so that decline is reachable from every prompt
/// without being an entry of it, and never a checkbox that can be checked with
/// answers; Esc in that menu, or Ctrl-C anywhere, cancels at once
/// ([K1](crate::rules#k1), [R1](crate::rules#r1)).
fn with_leave<T: Cancelled>(
    styled: bool,
    mut ask: impl FnMut() -> InquireResult<T>,
) -> InquireResult<T> {
    loop {
        match ask() {
            Err(InquireError::OperationCanceled) => {
                let picked = Select::new("Leave this request?", LEAVE_ENTRIES.to_vec())
                    .with_help_message("Enter picks; Esc again cancels the request")
                    .with_render_config(render_config(styled))
                    .raw_prompt();
                match picked.map(|option| leave_choice(option.index)) {
                    Ok(Leave::Back) => continue,
                    Ok(Leave::Decline) => return Ok(T::declined()),
                    Ok(Leave::Cancel) => return Ok(T::cancelled()),
                    Err(error) => return cancel_on(error),
                }
            }
            Err(error) => return cancel_on(error),
            answered => return answered,
        }
    }
}

/// Runs a blocking prompt on a thread of its own and waits for it without blocking the
/// executor. When `stop` fires first, the terminal is given back and `stopped` is the
/// answer; the prompt's own answer, if it ever comes, is thrown away.
fn run_blocking<T>(
    stop: &StopSignal,
    stopped: T,
    prompt: impl FnOnce() -> InquireResult<T> + Send + 'static,
) -> impl std::future::Future<Output = T> + Send + 'static
where
    T: Cancelled + Send + 'static,
{
    let (sender, receiver) = oneshot::channel();
    let (stop_sender, stop_receiver) = oneshot::channel::<()>();
    let done = Arc::new(AtomicBool::new(false));
    let finished = Arc::clone(&done);
    let spawned = std::thread::Builder::new()
        .name("elicit-terminal-prompt".into())
        .spawn(move || {
            let answer = prompt();
            finished.store(true, Ordering::Release);
            let _ = sender.send(answer);
        });
    stop.on_stop(move || {
        if done.load(Ordering::Acquire) {
            return; // answered already: the terminal is inquire's no more
        }
        // The prompt blocks on the keyboard and cannot be interrupted: give the terminal
        // back now (inquire would only do it after the person's next key) and let the
        // waiting future end.
        give_terminal_back();
        let _ = stop_sender.send(());
    });
    async move {
        if let Err(error) = spawned {
            eprintln!("the terminal prompt could not start ({error}); the request is cancelled");
            return T::cancelled();
        }
        let answer = futures::future::select(receiver, stop_receiver).await;
        match answer {
            futures::future::Either::Left((Ok(Ok(answer)), _)) => answer,
            futures::future::Either::Left((Ok(Err(error)), _)) => {
                eprintln!("the terminal failed ({error}); the request is cancelled");
                T::cancelled()
            }
            futures::future::Either::Left((Err(_), _)) => T::cancelled(),
            futures::future::Either::Right(_) => stopped,
        }
    }
}

/// Raw mode off, bracketed paste off, the cursor shown, on a new line: the terminal as
/// inquire found it.
fn give_terminal_back() {
    let _ = crossterm::terminal::disable_raw_mode();
    if !std::io::stderr().is_terminal() {
        return;
    }
    let mut stderr = std::io::stderr().lock();
    let _ = crossterm::execute!(
        stderr,
        crossterm::event::DisableBracketedPaste,
        crossterm::cursor::Show
    );
    let _ = writeln!(stderr);
}

/// One field's question, owned, to be asked on the prompt's thread.
struct FieldQuestion {
    form: FormEngine,
    name: String,
    kind: FieldKind,
    required: bool,
    /// The question line: position, label, required marker.
    message: String,
    /// The help line: the field's description and what it takes.
    help: String,
    /// The current answer as a person reads it (a default at first, [F4](crate::rules#f4)).
    current: Option<String>,
    /// For lists: the entries and what each one answers.
    entries: Vec<(String, Entry)>,
    /// For lists: each entry as the finished prompt shows it (an option's title
    /// without its description, as the review shows it).
    summaries: Vec<String>,
    /// For lists: where the cursor starts (the current answer).
    cursor: usize,
    /// For multi selects: the entries checked at first.
    checked: Vec<usize>,
    /// inquire's colours on.
    styled: bool,
}

/// What a list entry answers.
#[derive(Debug, Clone, PartialEq)]
enum Entry {
    /// A value of the field (an option's value, or a boolean).
    Value(Value),
    /// Leave the optional field empty.
    Clear,
    /// Refuse the request.
    Decline,
}

impl FieldQuestion {
    fn new(prompt: &FieldPrompt<'_>, styled: bool) -> Self {
        let field = prompt.field;
        let marker = if field.is_required() { " *" } else { "" };
        let message = format!(
            "[{}/{}] {}{marker}",
            prompt.position + 1,
            prompt.count,
            bounded(readable_label(field.name(), field.label()), MAX_NAME_CHARS)
        );
        let mut help = String::new();
        if let Some(description) = field.description() {
            let _ = write!(help, "{} · ", bounded(description, MAX_MESSAGE_CHARS));
        }
        help.push_str(bounded(field_hint(&field), MAX_MESSAGE_CHARS).as_str());
        let entries = entries(&field);
        let options = field.options();
        let summaries = entries
            .iter()
            .enumerate()
            .map(|(i, (label, _))| match options.get(i) {
                Some(choice) => bounded(choice.label, MAX_NAME_CHARS).to_string(),
                None => label.clone(),
            })
            .collect();
        let current_value = field.value();
        // The cursor on the current answer, so Enter keeps it (F4); without one, on
        // "leave empty" for an optional field, so Enter does not pick a value the person
        // never chose.
        let cursor = entries
            .iter()
            .position(|(_, e)| matches!((e, current_value), (Entry::Value(v), Some(c)) if v == c))
            .or_else(|| {
                current_value
                    .is_none()
                    .then(|| entries.iter().position(|(_, e)| *e == Entry::Clear))
                    .flatten()
            })
            .unwrap_or(0);
        let checked = match current_value {
            Some(Value::Array(items)) => entries
                .iter()
                .enumerate()
                .filter(|(_, (_, e))| matches!(e, Entry::Value(v) if items.contains(v)))
                .map(|(i, _)| i)
                .collect(),
            _ => Vec::new(),
        };
        FieldQuestion {
            form: prompt.form.clone(),
            name: field.name().to_owned(),
            kind: field.kind(),
            required: field.is_required(),
            message,
            help,
            current: field.display_value().map(|v| verbatim(v).to_string()),
            entries,
            summaries,
            cursor,
            checked,
            styled,
        }
    }

    fn ask(self) -> InquireResult<FieldAnswer> {
        with_leave(self.styled, || match self.kind {
            FieldKind::Text | FieldKind::Integer | FieldKind::Number => self.ask_text(),
            FieldKind::Boolean | FieldKind::SingleSelect => self.ask_one(),
            FieldKind::MultiSelect => self.ask_many(),
        })
    }

    fn ask_text(&self) -> InquireResult<FieldAnswer> {
        let form = self.form.clone();
        let name = self.name.clone();
        let required = self.required;
        let has_current = self.current.is_some();
        let validator = move |input: &str| {
            Ok(
                match check_text(&form, &name, required, has_current, input) {
                    Ok(()) => Validation::Valid,
                    Err(reason) => Validation::Invalid(reason.into()),
                },
            )
        };
        let help = format!(
            "{} · {BACK_COMMAND} previous field{}",
            self.help,
            if self.required {
                String::new()
            } else {
                format!(" · {CLEAR_COMMAND} leaves it empty")
            }
        );
        let mut text = Text::new(&self.message)
            .with_help_message(&help)
            .with_validator(validator)
            .with_formatter(&shown_text)
            .with_render_config(render_config(self.styled));
        if let Some(current) = &self.current {
            text = text.with_default(current);
        }
        let typed = text.prompt()?;
        Ok(text_answer(&typed, self.current.as_deref()))
    }

    fn ask_one(&self) -> InquireResult<FieldAnswer> {
        let labels: Vec<String> = self.entries.iter().map(|(l, _)| l.clone()).collect();
        let summary = |picked: ListOption<&String>| self.summaries[picked.index].clone();
        let picked = Select::new(&self.message, labels)
            .with_help_message(&self.help)
            .with_starting_cursor(self.cursor)
            .with_formatter(&summary)
            .with_render_config(render_config(self.styled))
            .raw_prompt()?;
        Ok(entry_answer(&self.entries[picked.index].1))
    }

    fn ask_many(&self) -> InquireResult<FieldAnswer> {
        let labels: Vec<String> = self.entries.iter().map(|(l, _)| l.clone()).collect();
        let form = self.form.clone();
        let name = self.name.clone();
        let entries = self.entries.clone();
        let validator = move |chosen: &[ListOption<&String>]| {
            let indices: Vec<usize> = chosen.iter().map(|o| o.index).collect();
            Ok(match check_many(&form, &name, &entries, &indices) {
                Ok(()) => Validation::Valid,
                Err(reason) => Validation::Invalid(reason.into()),
            })
        };
        let help = format!(
            "{} · Space toggles, Enter confirms, Esc to decline or cancel",
            self.help
        );
        let picked = MultiSelect::new(&self.message, labels)
            .with_help_message(&help)
            .with_default(&self.checked)
            .with_validator(validator)
            .with_formatter(&|chosen| shown_many(&self.summaries, chosen))
            .with_render_config(render_config(self.styled))
            .raw_prompt()?;
        let indices: Vec<usize> = picked.iter().map(|o| o.index).collect();
        Ok(many_answer(&self.entries, &indices))
    }
}

/// The entries of a list: the options (titles shown, with their descriptions; values
/// sent), `Yes`/`No` for a boolean, then, where one entry is picked, "leave empty" for
/// an optional field and "decline". A multi select has its options only: checking
/// nothing leaves it empty, and decline is behind Esc, never a checkbox.
fn entries(field: &FormField<'_>) -> Vec<(String, Entry)> {
    let mut entries: Vec<(String, Entry)> = match field.kind() {
        FieldKind::Boolean => vec![
            ("Yes".to_owned(), Entry::Value(Value::Bool(true))),
            ("No".to_owned(), Entry::Value(Value::Bool(false))),
        ],
        FieldKind::SingleSelect | FieldKind::MultiSelect => field
            .options()
            .iter()
            .map(|choice| {
                let label = match choice.description {
                    Some(description) => format!(
                        "{} — {}",
                        bounded(choice.label, MAX_NAME_CHARS),
                        bounded(description, MAX_MESSAGE_CHARS)
                    ),
                    None => bounded(choice.label, MAX_NAME_CHARS).to_string(),
                };
                (label, Entry::Value(Value::String(choice.value.to_owned())))
            })
            .collect(),
        FieldKind::Text | FieldKind::Integer | FieldKind::Number => return Vec::new(),
    };
    if field.kind() == FieldKind::MultiSelect {
        // Checking nothing leaves it empty; decline is Esc's, never a checkbox that
        // could be checked with answers (found: "(decline this request)" checked with
        // "vegan" declined the whole filled form).
        return entries;
    }
    if !field.is_required() {
        entries.push((LEAVE_EMPTY.to_owned(), Entry::Clear));
    }
    entries.push((DECLINE_ENTRY.to_owned(), Entry::Decline));
    entries
}

/// A text answer as the finished prompt shows it: an empty one says so, rather than
/// leaving a bare label that reads as a question skipped by mistake.
fn shown_text(answer: &str) -> String {
    if answer.is_empty() {
        "(no answer)".to_owned()
    } else {
        answer.to_owned()
    }
}

/// The checked entries as the finished prompt shows them (by their `summaries`);
/// nothing checked says so.
fn shown_many(summaries: &[String], chosen: &[ListOption<&String>]) -> String {
    if chosen.is_empty() {
        return "(no answer)".to_owned();
    }
    let labels: Vec<&str> = chosen
        .iter()
        .filter_map(|o| summaries.get(o.index).map(String::as_str))
        .collect();
    labels.join(", ")
}

/// What one picked list entry answers.
fn entry_answer(entry: &Entry) -> FieldAnswer {
    match entry {
        Entry::Value(value) => FieldAnswer::Value(value.clone()),
        Entry::Clear => FieldAnswer::Clear,
        Entry::Decline => FieldAnswer::Decline,
    }
}

/// What the checked entries of a multi select answer: decline when its entry is
/// checked, else the values in the agent's order (an empty set leaves the field empty).
fn many_answer(entries: &[(String, Entry)], indices: &[usize]) -> FieldAnswer {
    let mut values = Vec::new();
    for &index in indices {
        match entries.get(index).map(|(_, e)| e) {
            Some(Entry::Decline) => return FieldAnswer::Decline,
            Some(Entry::Value(value)) => values.push(value.clone()),
            Some(Entry::Clear) | None => {}
        }
    }
    if values.is_empty() {
        FieldAnswer::Clear
    } else {
        FieldAnswer::Value(Value::Array(values))
    }
}

/// The multi select's validator: the checked values as the engine would take them
/// (options, `minItems`, `maxItems`), on a clone of the form ([F3](crate::rules#f3)).
fn check_many(
    form: &FormEngine,
    name: &str,
    entries: &[(String, Entry)],
    indices: &[usize],
) -> Result<(), String> {
    match many_answer(entries, indices) {
        FieldAnswer::Decline => Ok(()),
        FieldAnswer::Value(value) => {
            let mut form = form.clone();
            form.set(name, value).map_err(|e| plain(e).to_string())
        }
        _ => {
            let required = form.field(name).is_some_and(|f| f.is_required());
            if required {
                Err("an answer is required: check at least one option".to_owned())
            } else {
                Ok(())
            }
        }
    }
}

/// The text prompt's validator: the answer as the engine would take it, on a clone of
/// the form ([F3](crate::rules#f3)); the commands pass.
fn check_text(
    form: &FormEngine,
    name: &str,
    required: bool,
    has_current: bool,
    input: &str,
) -> Result<(), String> {
    match input.trim() {
        DECLINE_COMMAND | BACK_COMMAND => return Ok(()),
        CLEAR_COMMAND if required => {
            return Err("an answer is required: it cannot be left empty".to_owned())
        }
        CLEAR_COMMAND => return Ok(()),
        _ => {}
    }
    if input.is_empty() {
        // inquire hands back the default (the current answer) for an empty input, so
        // an empty one here means there is none.
        return if required && !has_current {
            Err("an answer is required".to_owned())
        } else {
            Ok(())
        };
    }
    let mut form = form.clone();
    form.set_text(name, input).map_err(|e| plain(e).to_string())
}

/// What a text prompt's answer means: a command, the current answer kept, or the text.
fn text_answer(typed: &str, current: Option<&str>) -> FieldAnswer {
    match typed.trim() {
        DECLINE_COMMAND => FieldAnswer::Decline,
        CLEAR_COMMAND => FieldAnswer::Clear,
        BACK_COMMAND => FieldAnswer::Back,
        // Enter on the current answer (inquire returns the default as typed).
        _ if Some(typed) == current => FieldAnswer::Keep,
        _ => FieldAnswer::Text(typed.to_owned()),
    }
}

/// [`terminal_text::field_hint`](super::terminal_text::field_hint), where it moved so
/// that the asker and the `ratatui` widgets share one text.
pub use super::terminal_text::field_hint;

/// Bold at a styled terminal.
struct Emphasis<T> {
    text: T,
    styled: bool,
}

impl<T: Display> Emphasis<T> {
    fn strong(styled: bool, text: T) -> Self {
        Emphasis { text, styled }
    }
}

impl<T: Display> Display for Emphasis<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.styled {
            write!(f, "\x1b[1m{}\x1b[0m", self.text)
        } else {
            write!(f, "{}", self.text)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::client::AgentIdentity;
    use crate::RequestedSchema;
    use serde_json::json;
    use std::task::{Context, Poll, Wake, Waker};

    /// Polls `future` on this thread, parked between wake-ups.
    fn block_on<F: std::future::Future>(future: F) -> F::Output {
        struct Unpark(std::thread::Thread);
        impl Wake for Unpark {
            fn wake(self: Arc<Self>) {
                self.0.unpark();
            }
        }
        let waker = Waker::from(Arc::new(Unpark(std::thread::current())));
        let mut cx = Context::from_waker(&waker);
        let mut future = std::pin::pin!(future);
        loop {
            if let Poll::Ready(output) = future.as_mut().poll(&mut cx) {
                return output;
            }
            std::thread::park_timeout(std::time::Duration::from_secs(1));
        }
    }

    fn form() -> FormEngine {
        let schema = RequestedSchema::from_json_lenient(&json!({
            "type": "object",
            "properties": {
                "name": { "type": "string", "title": "Name", "minLength": 3, "default": "abc" },
                "passes": { "type": "integer", "minimum": 1, "maximum": 5 },
                "mail": { "type": "string", "format": "email" },
                "ok": { "type": "boolean", "default": false },
                "tier": { "type": "string", "oneOf": [
                    { "const": "s", "title": "Small", "description": "cheap" },
                    { "const": "l", "title": "Large" }
                ] },
                "tags": { "type": "array", "minItems": 1, "maxItems": 2,
                          "items": { "type": "string", "enum": ["a", "b", "c"] }, "default": ["b"] }
            },
            "required": ["name", "passes", "tags"]
        }))
        .expect("a valid schema");
        FormEngine::new(&schema, AgentIdentity::new("bot"), "Hi").expect("renderable")
    }

    // covers: F3
    #[test]
    fn the_text_validator_is_the_engines_check() {
        let form = form();
        assert!(check_text(&form, "name", true, true, "abcd").is_ok());
        let short = check_text(&form, "name", true, true, "ab").unwrap_err();
        assert!(short.contains("at least 3"), "{short}");
        let not_number = check_text(&form, "passes", true, false, "three").unwrap_err();
        assert!(not_number.contains("is not a whole number"), "{not_number}");
        assert!(check_text(&form, "passes", true, false, "9").is_err());
        // V2: 3.0 is an integer.
        assert!(check_text(&form, "passes", true, false, "3.0").is_ok());
        assert!(check_text(&form, "mail", false, false, "not an address").is_err());
        assert!(check_text(&form, "mail", false, false, "ada@example.com").is_ok());
        // The form the validator checks on is a clone: nothing was set.
        assert_eq!(form.value("passes"), None);
    }

    // covers: F3, F4, K1, R1
    #[test]
    fn empty_answers_and_commands() {
        let form = form();
        // Required without a current answer: refused at entry.
        assert!(check_text(&form, "passes", true, false, "").is_err());
        // Optional: empty leaves it empty.
        assert!(check_text(&form, "mail", false, false, "").is_ok());
        assert!(check_text(&form, "passes", true, false, CLEAR_COMMAND).is_err());
        assert!(check_text(&form, "mail", false, false, CLEAR_COMMAND).is_ok());
        assert!(check_text(&form, "passes", true, false, DECLINE_COMMAND).is_ok());

        assert_eq!(text_answer(":decline", None), FieldAnswer::Decline);
        assert_eq!(text_answer(" :clear ", None), FieldAnswer::Clear);
        assert_eq!(text_answer(":back", None), FieldAnswer::Back);
        // F4: Enter hands back the current answer, kept as it is.
        assert_eq!(text_answer("abc", Some("abc")), FieldAnswer::Keep);
        assert_eq!(
            text_answer("abd", Some("abc")),
            FieldAnswer::Text("abd".into())
        );
        assert_eq!(text_answer("", None), FieldAnswer::Text(String::new()));
    }

    // covers: F2, K1, R1
    #[test]
    fn list_entries_show_titles_and_send_values() {
        let form = form();
        let tier = form.field("tier").expect("a field");
        let tier_entries = entries(&tier);
        let labels: Vec<&str> = tier_entries.iter().map(|(l, _)| l.as_str()).collect();
        assert_eq!(
            labels,
            ["Small — cheap", "Large", LEAVE_EMPTY, DECLINE_ENTRY]
        );
        assert_eq!(
            entry_answer(&tier_entries[1].1),
            FieldAnswer::Value(json!("l"))
        );
        assert_eq!(entry_answer(&tier_entries[2].1), FieldAnswer::Clear);
        assert_eq!(entry_answer(&tier_entries[3].1), FieldAnswer::Decline);

        let ok = form.field("ok").expect("a field");
        let ok_entries = entries(&ok);
        assert_eq!(ok_entries[0], ("Yes".to_owned(), Entry::Value(json!(true))));
        assert_eq!(ok_entries[1], ("No".to_owned(), Entry::Value(json!(false))));
    }

    // covers: F2, F3, F4, K1, R1
    #[test]
    fn a_multi_select_has_no_decline_checkbox() {
        let form = form();
        let tags = form.field("tags").expect("a field");
        let list = entries(&tags);
        // a, b, c only: no "leave empty" (nothing checked is empty) and no decline to
        // check with answers; decline is Esc's (found: "(decline this request)"
        // checked with "vegan" declined the whole filled form).
        let labels: Vec<&str> = list.iter().map(|(l, _)| l.as_str()).collect();
        assert_eq!(labels, ["a", "b", "c"]);
        assert!(list.iter().all(|(_, e)| matches!(e, Entry::Value(_))));
        assert!(check_many(&form, "tags", &list, &[0]).is_ok());
        let too_many = check_many(&form, "tags", &list, &[0, 1, 2]).unwrap_err();
        assert!(too_many.contains("at most 2"), "{too_many}");
        assert!(check_many(&form, "tags", &list, &[]).is_err());
        assert_eq!(
            many_answer(&list, &[2, 0]),
            FieldAnswer::Value(json!(["c", "a"]))
        );
        assert_eq!(many_answer(&list, &[]), FieldAnswer::Clear);
        // Every prompt kind: decline is an entry only where one entry is picked.
        for name in ["ok", "tier"] {
            let field = form.field(name).expect("a field");
            let list = entries(&field);
            assert_eq!(
                list.last(),
                Some(&(DECLINE_ENTRY.to_owned(), Entry::Decline))
            );
            assert_eq!(
                list.iter().filter(|(_, e)| *e == Entry::Decline).count(),
                1,
                "{name}"
            );
        }
        // Text prompts have no list: `:decline` and Esc.
        assert!(entries(&form.field("name").expect("a field")).is_empty());
        // Esc's menu: back first, so a stray Esc loses nothing.
        assert_eq!(leave_choice(0), Leave::Back);
        assert_eq!(leave_choice(1), Leave::Decline);
        assert_eq!(leave_choice(2), Leave::Cancel);
        assert!(LEAVE_ENTRIES[1].starts_with("Decline"));
        assert!(LEAVE_ENTRIES[2].starts_with("Cancel"));
    }

    // covers: K1, R1
    #[test]
    fn leaving_without_the_menu() {
        // An answer passes through; Ctrl-C cancels at once; another failure stays one.
        assert_eq!(
            with_leave(false, || Ok(FieldAnswer::Keep)).ok(),
            Some(FieldAnswer::Keep)
        );
        assert_eq!(
            with_leave(false, || Err::<ReviewChoice, _>(
                InquireError::OperationInterrupted
            ))
            .ok(),
            Some(ReviewChoice::Cancel)
        );
        assert!(with_leave(false, || Err::<FieldAnswer, _>(InquireError::NotTTY)).is_err());
        assert_eq!(<FieldAnswer as Cancelled>::declined(), FieldAnswer::Decline);
        assert_eq!(
            <ReviewChoice as Cancelled>::declined(),
            ReviewChoice::Decline
        );
    }

    // covers: K1, K4, S5
    #[test]
    fn the_header_shows_agent_text_neutralised_and_bounded() {
        let schema = RequestedSchema::from_json_lenient(&json!({
            "type": "object",
            "title": "T\u{1b}[8m",
            "properties": { "party_size": { "type": "integer" } }
        }))
        .expect("a valid schema");
        let message = format!(
            "Book\u{1b}[8m{}\n  Address: https://good.example",
            " ".repeat(400)
        );
        let form = FormEngine::new(&schema, AgentIdentity::new("bot\u{1b}]0;x\u{7}"), &message)
            .expect("renderable");
        let intro = Intro {
            agent: form.agent(),
            message: form.message(),
            scope: None,
        };
        let mut asker = TerminalAsker::new().styled(false);
        asker.introduce(&intro, Some(&form));
        assert_eq!(
            asker.last_intro.as_deref(),
            Some("bot<U+001B>]0;x<U+0007> asks: Book<U+001B>[8m Address: https://good.example")
        );
        // 29.7: an untitled field is asked by a readable label.
        let stop = StopSignal::new();
        let question = FieldQuestion::new(
            &FieldPrompt {
                intro,
                form: &form,
                field: form.field("party_size").expect("a field"),
                position: 0,
                count: 1,
                problem: None,
                stop: &stop,
            },
            false,
        );
        assert_eq!(question.message, "[1/1] Party size");
    }

    // covers: F4
    #[test]
    fn the_current_answer_places_the_cursor_and_the_checks() {
        let form = form();
        let stop = StopSignal::new();
        let intro = Intro {
            agent: form.agent(),
            message: form.message(),
            scope: None,
        };
        let prompt = |name: &str, position| FieldPrompt {
            intro,
            form: &form,
            field: form.field(name).expect("a field"),
            position,
            count: 6,
            problem: None,
            stop: &stop,
        };
        let ok = FieldQuestion::new(&prompt("ok", 3), false);
        assert_eq!(ok.cursor, 1, "the default `false` is `No`");
        assert_eq!(ok.message, "[4/6] Ok");
        let tags = FieldQuestion::new(&prompt("tags", 5), false);
        assert_eq!(tags.checked, [1]);
        assert_eq!(tags.message, "[6/6] Tags *");
        assert!(tags.help.contains("from 1 to 2 of them"), "{}", tags.help);
        let name = FieldQuestion::new(&prompt("name", 0), false);
        assert_eq!(name.current.as_deref(), Some("abc"));
        // Optional, no answer yet: Enter leaves it empty rather than picking the first
        // option (found in a real terminal: Enter on `eu` sent `eu`).
        let tier = FieldQuestion::new(&prompt("tier", 4), false);
        assert_eq!(tier.entries[tier.cursor].1, Entry::Clear);
        // The finished prompt shows titles as the review does, without descriptions.
        assert_eq!(
            tier.summaries,
            ["Small", "Large", LEAVE_EMPTY, DECLINE_ENTRY]
        );
    }

    // covers: K2
    #[test]
    fn finished_prompts_say_what_was_answered() {
        assert_eq!(shown_text(""), "(no answer)");
        assert_eq!(shown_text("ada@example.com"), "ada@example.com");
        let summaries = ["Small".to_owned(), "Large".to_owned()];
        let labels = ["Small — cheap".to_owned(), "Large".to_owned()];
        let chosen = [
            ListOption::new(0, &labels[0]),
            ListOption::new(1, &labels[1]),
        ];
        assert_eq!(shown_many(&summaries, &chosen), "Small, Large");
        assert_eq!(shown_many(&summaries, &[]), "(no answer)");
        // One mark for every problem this asker shows.
        assert_eq!(render_config(true).error_message.prefix.content, "!");
        assert_eq!(render_config(false).error_message.prefix.content, "!");
    }

    // covers: K1, K4
    #[test]
    fn the_header_is_shown_once_per_request() {
        let form = form();
        let stop = StopSignal::new();
        let intro = Intro {
            agent: form.agent(),
            message: form.message(),
            scope: None,
        };
        let mut asker = TerminalAsker::new().styled(false);
        asker.introduce(&intro, Some(&form));
        assert_eq!(asker.last_intro.as_deref(), Some("bot asks: Hi"));
        // The review of the same request (no form given) does not show it again (found
        // in a real terminal: the header came twice).
        asker.introduce(&intro, None);
        assert_eq!(asker.last_intro.as_deref(), Some("bot asks: Hi"));
        // Once the request ends, the next one gets its header, even if it reads the same.
        asker.ended(Ending::Cancelled, &stop);
        assert_eq!(asker.last_intro, None);
        assert_eq!(field_ending(&FieldAnswer::Decline), Some(Ending::Declined));
        assert_eq!(field_ending(&FieldAnswer::Keep), None);
        assert_eq!(review_ending(&ReviewChoice::Send), Some(Ending::Sent));
        assert_eq!(review_ending(&ReviewChoice::Edit("x".into())), None);
    }

    // covers: K1, K2, R1
    #[test]
    fn review_choices_and_cancel_keys() {
        assert_eq!(review_choice(0), ReviewChoice::Send);
        assert_eq!(review_choice(1), ReviewChoice::Edit(String::new()));
        assert_eq!(review_choice(2), ReviewChoice::Decline);
        assert_eq!(review_choice(3), ReviewChoice::Cancel);
        // Esc and Ctrl-C both dismiss; another failure stays an error.
        assert_eq!(
            cancel_on::<FieldAnswer>(InquireError::OperationCanceled).ok(),
            Some(FieldAnswer::Cancel)
        );
        assert_eq!(
            cancel_on::<ReviewChoice>(InquireError::OperationInterrupted).ok(),
            Some(ReviewChoice::Cancel)
        );
        assert!(cancel_on::<FieldAnswer>(InquireError::NotTTY).is_err());
    }

    // covers: K1
    #[test]
    fn a_stopped_signal_answers_without_a_prompt() {
        let stop = StopSignal::new();
        stop.stop();
        let form = form();
        let mut asker = TerminalAsker::new().styled(false);
        let intro = Intro {
            agent: form.agent(),
            message: form.message(),
            scope: None,
        };
        let answer = asker.ask_field(FieldPrompt {
            intro,
            form: &form,
            field: form.field("name").expect("a field"),
            position: 0,
            count: 6,
            problem: None,
            stop: &stop,
        });
        let answer = block_on(answer);
        assert_eq!(answer, FieldAnswer::Cancel);
    }

    // covers: K1
    #[test]
    fn a_stop_ends_the_wait_for_a_blocked_prompt() {
        let stop = StopSignal::new();
        // A prompt that blocks until it is told to end (as a real one waits for a key).
        let (release, blocked) = std::sync::mpsc::channel::<()>();
        let waiting = run_blocking(&stop, FieldAnswer::Cancel, move || {
            let _ = blocked.recv();
            Ok(FieldAnswer::Keep)
        });
        let stopper = stop.clone();
        let timer = std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(50));
            stopper.stop();
        });
        assert_eq!(block_on(waiting), FieldAnswer::Cancel);
        let _ = release.send(());
        timer.join().expect("the timer thread ends");
    }
}
