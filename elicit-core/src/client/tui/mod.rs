//! A form widget for full-screen terminal applications on ratatui (feature `ratatui`).
//!
//! A line prompt cannot run inside a full-screen application: the application owns
//! the terminal, draws every frame itself and reads every key. This module gives such
//! an application what the terminal asker gives a line-based CLI, as ratatui widgets
//! it draws in its own frame and feeds its own key events:
//!
//! - [`FormState`] and [`FormView`]: a form-mode request on the client's
//!   [`FormEngine`](super::FormEngine), every field on one page in the agent's order
//!   ([D13](crate::rules#d13)), who asks and why first ([K1](crate::rules#k1),
//!   [K4](crate::rules#k4)); text, whole numbers and numbers in edit boxes checked by
//!   the engine when the person leaves them (a value the engine refuses is refused
//!   there, its reason beside the field, [F3](crate::rules#f3)); booleans and single
//!   selects as radio lists (titles shown, values sent), multi selects as checklists
//!   whose item counts the engine checks; defaults shown and kept
//!   ([F4](crate::rules#f4)); optional fields left empty; a review of every answer
//!   before anything is sent ([K2](crate::rules#k2)); decline and cancel reachable at
//!   every moment, as keys and as buttons, never as an option that could be checked
//!   with others ([K1](crate::rules#k1), [R1](crate::rules#r1)). Its outcome is a
//!   [`FormAnswer`](super::FormAnswer), what [`Asker::ask_form`](super::Asker::ask_form)
//!   returns.
//! - [`ConsentState`] and [`ConsentView`] (feature `url`): a URL-mode request, with the
//!   full URL, the host with its registrable domain emphasised, and every warning above
//!   the question ([S2](crate::rules#s2)–[S4](crate::rules#s4), [K3](crate::rules#k3)),
//!   from the engine's [`UrlReview`](super::UrlReview). Consent is never the default:
//!   Enter alone does not give it. Its outcome is a [`Consent`](super::Consent).
//! - [`TuiAsker`] and [`Questions`]: an [`Asker`](super::Asker) whose questions arrive in
//!   the application's event loop as [`Question`]s, drawn with [`QuestionView`]; the
//!   person's answer goes back to the waiting [`ClientEngine`](super::ClientEngine) (or the
//!   rmcp and ACP integrations on it), which applies every rule a client owes.
//!
//! Keys are this module's own small [`Key`] enum, not a back end's event type: ratatui
//! draws on crossterm, termion and termwiz alike, and a widget that took crossterm's
//! `KeyEvent` would force crossterm (and its version) on the other two. Mapping an
//! event to a [`Key`] is a few lines in the application (`examples/tui_client.rs` does
//! it for crossterm).
//!
//! The widgets depend on `ratatui-core` only (the crate ratatui splits out for widget
//! libraries), so an application on `ratatui` 0.30 renders them with
//! `Frame::render_stateful_widget`. They draw inside the area they are given and
//! nowhere else.
//!
//! Every text that comes from the agent (its name, the message, titles, descriptions,
//! option labels, the URL, the engine's messages that quote them) is drawn through a
//! neutraliser: control characters (an escape sequence), bidirectional controls and
//! invisible characters are shown as `<U+XXXX>`, so agent text changes nothing on the
//! screen but its own text ([S5](crate::rules#s5)).
//!
//! ```
//! use elicit::client::tui::{FormState, FormView, Key};
//! use elicit::client::{AgentIdentity, FormAnswer, FormEngine};
//! use elicit::RequestedSchema;
//! use ratatui_core::{buffer::Buffer, layout::Rect, widgets::StatefulWidget};
//! use serde_json::json;
//!
//! let schema = RequestedSchema::from_json_lenient(&json!({
//!     "type": "object",
//!     "properties": { "passes": { "type": "integer", "title": "Passes",
//!                                 "minimum": 1, "maximum": 5, "default": 2 } },
//!     "required": ["passes"]
//! }))?;
//! let form = FormEngine::new(&schema, AgentIdentity::new("refactor-bot"), "How many passes?")?;
//! let mut state = FormState::new(form);
//!
//! // The application draws the form in its own frame …
//! let area = Rect::new(0, 0, 60, 16);
//! let mut buffer = Buffer::empty(area);
//! FormView::new().render(area, &mut buffer, &mut state);
//! // … and feeds it the person's keys: 9 is refused beside the field, 3 is taken.
//! for key in [Key::Backspace, Key::Char('9'), Key::Enter] {
//!     state.handle_key(key);
//! }
//! assert!(state.problem("passes").unwrap().contains("at most 5"));
//! for key in [Key::Backspace, Key::Char('3'), Key::Enter] {
//!     state.handle_key(key);
//! }
//! // Enter on "Review", then Enter on "Send".
//! state.handle_key(Key::Enter);
//! let answer = state.handle_key(Key::Enter).expect("sent");
//! assert_eq!(answer, FormAnswer::Submit(json!({ "passes": 3 }).as_object().unwrap().clone()));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod asker;
#[cfg(feature = "url")]
mod consent;
mod draw;
mod form;
mod text;

#[cfg(feature = "url")]
pub use asker::ConsentQuestion;
pub use asker::{FormQuestion, Question, QuestionView, Questions, TuiAsker};
#[cfg(feature = "url")]
pub use consent::{ConsentState, ConsentView};
pub use draw::Theme;
pub use form::{FormState, FormView};

/// A key the person pressed, as the widgets understand it.
///
/// The application maps its back end's key events to it (crossterm's `KeyEvent`,
/// termion's `Key`, termwiz's `KeyEvent`): a press or a repeat, never a release.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Key {
    /// A printable character, typed without Ctrl or Alt (Shift is in the character).
    Char(char),
    /// A letter with Ctrl held: `Ctrl('c')` cancels, `Ctrl('d')` declines, `Ctrl('u')`
    /// empties the edit box.
    Ctrl(char),
    /// Enter: take the answer and go on; press the focused button.
    Enter,
    /// Escape: cancel the request ([R1](crate::rules#r1)).
    Esc,
    /// Tab: the next field or button.
    Tab,
    /// Shift-Tab: the previous field or button.
    BackTab,
    /// Up: the previous option, or the previous field.
    Up,
    /// Down: the next option, or the next field.
    Down,
    /// Left: the caret, or the previous button.
    Left,
    /// Right: the caret, or the next button.
    Right,
    /// Home: the start of the edit box.
    Home,
    /// End: the end of the edit box.
    End,
    /// Page Up: scroll up.
    PageUp,
    /// Page Down: scroll down.
    PageDown,
    /// Backspace: erase before the caret.
    Backspace,
    /// Delete: erase at the caret.
    Delete,
}
