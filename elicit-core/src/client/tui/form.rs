//! The form widget: every field of a form-mode request on one page, then the review.

use ratatui_core::buffer::Buffer;
use ratatui_core::layout::Rect;
use ratatui_core::style::Modifier;
use ratatui_core::text::{Line, Span};
use ratatui_core::widgets::StatefulWidget;
use serde_json::Value;

use super::draw::{asks_line, buttons, clear, draw_screen, Body, Header, Theme};
use super::text::{hint, is_hiding, neutralise, neutralise_lines, problem_text, width};
use super::Key;
use crate::client::{FieldKind, FormAnswer, FormEngine, FormPrompt, Intro};
use crate::content::ValidationErrors;

/// The buttons under the fields.
const EDIT_BUTTONS: [&str; 3] = ["Review", "Decline", "Cancel"];
/// The buttons of the review.
const REVIEW_BUTTONS: [&str; 4] = ["Send", "Edit", "Decline", "Cancel"];
/// The entry that leaves an optional single choice empty. It answers the field only;
/// refusing the request is a button and a key, never an entry of a list.
const LEAVE_EMPTY: &str = "(leave empty)";
/// The widest an edit box is drawn.
const MAX_BOX: usize = 40;

/// The state of a form on screen: the [`FormEngine`] with the answers, where the
/// focus is, what the person is typing, each field's problem, and, once the person has
/// finished, the outcome. The application keeps it between frames, draws it with
/// [`FormView`] and feeds it keys with [`handle_key`](Self::handle_key).
///
/// Keys: Tab and Shift-Tab go from field to field and to the buttons; Up and Down
/// move through a list's options and past its ends to the next field; Space chooses
/// (or checks) the option under the cursor; Enter takes the answer and goes on, or
/// presses the focused button; in an edit box Left, Right, Home, End, Backspace,
/// Delete and Ctrl-U (empty it) edit. Ctrl-D declines and Esc or Ctrl-C cancels, at
/// every moment ([K1](crate::rules#k1), [R1](crate::rules#r1)).
///
/// An answer is given to the engine when the person leaves its field: one the engine
/// refuses keeps the focus there with the reason beside it
/// ([F3](crate::rules#f3)); a required field left empty is marked, and stops the form
/// only at the review. "Review" shows every answer as it will be sent
/// ([K2](crate::rules#k2)); "Send" there gives the outcome
/// [`FormAnswer::Submit`] when the engine accepts the whole form, and otherwise goes
/// back to the fields with every problem beside its field.
#[derive(Debug, Clone)]
pub struct FormState {
    engine: FormEngine,
    header: Header,
    fields: Vec<FieldUi>,
    problems: Vec<Option<String>>,
    /// A problem of the form as a whole (no field to show it beside).
    form_problem: Option<String>,
    page: Page,
    focus: Focus,
    review_button: usize,
    outcome: Option<FormAnswer>,
    scroll: usize,
    review_scroll: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Page {
    Fields,
    Review,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Focus {
    Field(usize),
    Button(usize),
}

/// What the widget keeps for one field beside the engine's answer.
#[derive(Debug, Clone)]
struct FieldUi {
    name: String,
    kind: FieldKind,
    /// The edit box's text (text, whole numbers, numbers).
    input: String,
    /// The caret, in characters.
    caret: usize,
    /// The text that stands for the engine's current answer: leaving the box with it
    /// unchanged keeps the answer as it is (a default stays exactly the default, F4).
    committed: String,
    /// A list's entries (booleans, selects).
    entries: Vec<Entry>,
    /// The list's cursor.
    cursor: usize,
}

#[derive(Debug, Clone, PartialEq)]
enum Entry {
    /// A value of the field: its label (neutralised) and description.
    Value {
        value: Value,
        label: String,
        description: Option<String>,
    },
    /// Leave the optional field empty.
    Clear,
}

impl FormState {
    /// A form on screen, introduced by the engine's agent and message; the focus on
    /// the first field.
    pub fn new(form: FormEngine) -> Self {
        let intro = Intro {
            agent: form.agent(),
            message: form.message(),
            scope: None,
        };
        let header = Header::from_intro(&intro);
        Self::with_header(form, header)
    }

    /// The form an [`Asker::ask_form`](crate::client::Asker::ask_form) is given, with
    /// its intro (scope included) and the problems of the last submission, each
    /// beside its field.
    pub fn from_prompt(prompt: &FormPrompt<'_>) -> Self {
        let mut state = Self::with_header(prompt.form.clone(), Header::from_intro(&prompt.intro));
        if let Some(problems) = prompt.problems {
            state.show_problems(problems);
        }
        state
    }

    fn with_header(engine: FormEngine, header: Header) -> Self {
        let fields: Vec<FieldUi> = engine.fields().map(|f| FieldUi::new(&f)).collect();
        let focus = if fields.is_empty() {
            Focus::Button(0)
        } else {
            Focus::Field(0)
        };
        FormState {
            problems: vec![None; fields.len()],
            engine,
            header,
            fields,
            form_problem: None,
            page: Page::Fields,
            focus,
            review_button: 0,
            outcome: None,
            scroll: 0,
            review_scroll: 0,
        }
    }

    /// The engine, with the answers taken so far.
    pub fn engine(&self) -> &FormEngine {
        &self.engine
    }

    /// What the person decided, once they have: sent, declined or cancelled.
    pub fn outcome(&self) -> Option<&FormAnswer> {
        self.outcome.as_ref()
    }

    /// Why the answer of the field `name` was refused (or that it is missing), as
    /// shown beside it.
    pub fn problem(&self, name: &str) -> Option<&str> {
        let index = self.fields.iter().position(|f| f.name == name)?;
        self.problems[index].as_deref()
    }

    /// The name of the field with the focus, if a field has it.
    pub fn focused_field(&self) -> Option<&str> {
        match (self.page, self.focus) {
            (Page::Fields, Focus::Field(index)) => Some(&self.fields[index].name),
            _ => None,
        }
    }

    /// Whether the review is on screen.
    pub fn is_reviewing(&self) -> bool {
        self.page == Page::Review
    }

    /// Takes one key. Returns the outcome when this key finished the form (sent,
    /// declined, cancelled); keys after that change nothing.
    pub fn handle_key(&mut self, key: Key) -> Option<FormAnswer> {
        if self.outcome.is_some() {
            return None;
        }
        match key {
            // K1, R1: from anywhere, whatever has the focus.
            Key::Esc | Key::Ctrl('c') => return self.finish(FormAnswer::Cancel),
            Key::Ctrl('d') => return self.finish(FormAnswer::Decline),
            _ => {}
        }
        match self.page {
            Page::Fields => self.fields_key(key),
            Page::Review => self.review_key(key),
        }
    }

    fn finish(&mut self, answer: FormAnswer) -> Option<FormAnswer> {
        self.outcome = Some(answer.clone());
        Some(answer)
    }

    fn fields_key(&mut self, key: Key) -> Option<FormAnswer> {
        match self.focus {
            Focus::Button(button) => self.button_key(button, key),
            Focus::Field(index) => {
                match self.fields[index].kind {
                    FieldKind::Text | FieldKind::Integer | FieldKind::Number => {
                        self.box_key(index, key)
                    }
                    _ => self.list_key(index, key),
                }
                None
            }
        }
    }

    /// The focus after `index`: the next field, or the first button.
    fn next_of(&self, index: usize) -> Focus {
        if index + 1 < self.fields.len() {
            Focus::Field(index + 1)
        } else {
            Focus::Button(0)
        }
    }

    fn box_key(&mut self, index: usize, key: Key) {
        let field = &mut self.fields[index];
        match key {
            // Only what prints: an invisible or direction-changing character typed or
            // pasted would hide in the box.
            Key::Char(c) if !is_hiding(c) => {
                let at = byte_at(&field.input, field.caret);
                field.input.insert(at, c);
                field.caret += 1;
            }
            Key::Backspace if field.caret > 0 => {
                field.caret -= 1;
                let at = byte_at(&field.input, field.caret);
                field.input.remove(at);
            }
            Key::Delete if field.caret < field.input.chars().count() => {
                let at = byte_at(&field.input, field.caret);
                field.input.remove(at);
            }
            Key::Left => field.caret = field.caret.saturating_sub(1),
            Key::Right => field.caret = (field.caret + 1).min(field.input.chars().count()),
            Key::Home => field.caret = 0,
            Key::End => field.caret = field.input.chars().count(),
            Key::Ctrl('u') => {
                field.input.clear();
                field.caret = 0;
            }
            Key::Enter | Key::Tab | Key::Down => {
                let next = self.next_of(index);
                self.move_focus(next);
            }
            Key::BackTab | Key::Up if index > 0 => self.move_focus(Focus::Field(index - 1)),
            _ => {}
        }
    }

    fn list_key(&mut self, index: usize, key: Key) {
        let count = self.fields[index].entries.len();
        match key {
            Key::Up if self.fields[index].cursor > 0 => self.fields[index].cursor -= 1,
            Key::Down if self.fields[index].cursor + 1 < count => self.fields[index].cursor += 1,
            Key::Char(' ') => self.choose(index),
            Key::Enter => {
                // Enter on a single choice takes the option under the cursor; on a
                // checklist it takes what is checked.
                if self.fields[index].kind != FieldKind::MultiSelect {
                    self.choose(index);
                }
                if self.problems[index].is_none()
                    || self.fields[index].kind == FieldKind::MultiSelect
                {
                    let next = self.next_of(index);
                    self.move_focus(next);
                }
            }
            Key::Tab | Key::Down => {
                let next = self.next_of(index);
                self.move_focus(next);
            }
            Key::BackTab | Key::Up if index > 0 => self.move_focus(Focus::Field(index - 1)),
            _ => {}
        }
    }

    fn button_key(&mut self, button: usize, key: Key) -> Option<FormAnswer> {
        let last_field = self.fields.len().checked_sub(1);
        match key {
            Key::Right | Key::Tab if button + 1 < EDIT_BUTTONS.len() => {
                self.focus = Focus::Button(button + 1)
            }
            Key::Tab if !self.fields.is_empty() => self.focus = Focus::Field(0),
            Key::Left | Key::BackTab if button > 0 => self.focus = Focus::Button(button - 1),
            Key::BackTab | Key::Up => {
                if let Some(last) = last_field {
                    self.focus = Focus::Field(last);
                }
            }
            Key::Enter => match button {
                0 => {
                    self.page = Page::Review;
                    self.review_button = 0;
                    self.review_scroll = 0;
                }
                1 => return self.finish(FormAnswer::Decline),
                _ => return self.finish(FormAnswer::Cancel),
            },
            _ => {}
        }
        None
    }

    fn review_key(&mut self, key: Key) -> Option<FormAnswer> {
        match key {
            Key::Right | Key::Tab => {
                self.review_button = (self.review_button + 1).min(REVIEW_BUTTONS.len() - 1)
            }
            Key::Left | Key::BackTab => self.review_button = self.review_button.saturating_sub(1),
            Key::Up => self.review_scroll = self.review_scroll.saturating_sub(1),
            Key::Down => self.review_scroll += 1,
            Key::PageUp => self.review_scroll = self.review_scroll.saturating_sub(10),
            Key::PageDown => self.review_scroll += 10,
            Key::Enter => match self.review_button {
                0 => return self.send(),
                1 => self.page = Page::Fields,
                2 => return self.finish(FormAnswer::Decline),
                _ => return self.finish(FormAnswer::Cancel),
            },
            _ => {}
        }
        None
    }

    /// F3: the whole form checked by the engine; sent, or back to the fields with every
    /// problem beside its field.
    fn send(&mut self) -> Option<FormAnswer> {
        match self.engine.submit() {
            Ok(_) => self.finish(FormAnswer::Submit(self.engine.content())),
            Err(errors) => {
                self.show_problems(&errors);
                self.page = Page::Fields;
                None
            }
        }
    }

    /// Every problem beside its field; the focus on the first field that has one.
    fn show_problems(&mut self, errors: &ValidationErrors) {
        let mut first = None;
        for (index, field) in self.fields.iter().enumerate() {
            let reasons: Vec<String> = errors
                .for_property(&field.name)
                .map(ToString::to_string)
                .collect();
            if !reasons.is_empty() {
                self.problems[index] = Some(reasons.join("; "));
                first.get_or_insert(index);
            }
        }
        let whole: Vec<String> = errors
            .errors()
            .iter()
            .filter(|e| {
                e.property
                    .as_deref()
                    .is_none_or(|p| !self.fields.iter().any(|f| f.name == p))
            })
            .map(ToString::to_string)
            .collect();
        self.form_problem = (!whole.is_empty()).then(|| whole.join("; "));
        if let Some(index) = first {
            self.focus = Focus::Field(index);
        }
    }

    /// Moves the focus after giving the engine the answer of the field it leaves; a
    /// refused answer keeps it there ([F3](crate::rules#f3)).
    fn move_focus(&mut self, to: Focus) {
        if let Focus::Field(index) = self.focus {
            if !self.commit(index) {
                return;
            }
        }
        if let Focus::Field(index) = to {
            let field = &mut self.fields[index];
            field.caret = field.input.chars().count();
        }
        self.focus = to;
    }

    /// Gives the engine the answer of field `index`; `false` when it refused it.
    fn commit(&mut self, index: usize) -> bool {
        let name = self.fields[index].name.clone();
        match self.fields[index].kind {
            FieldKind::Text | FieldKind::Integer | FieldKind::Number => {
                let field = &self.fields[index];
                if field.input != field.committed {
                    let input = field.input.clone();
                    if let Err(error) = self.engine.set_text(&name, &input) {
                        self.problems[index] = Some(problem_text(&error));
                        return false;
                    }
                    // What will be sent, as the engine reads it (`3.0` is `3`).
                    let shown = self.current_text(index);
                    let field = &mut self.fields[index];
                    field.committed = shown.clone();
                    field.caret = shown.chars().count();
                    field.input = shown;
                }
            }
            FieldKind::MultiSelect => {
                // `minItems` too, now that the person is done with the list.
                if let Some(value) = self.engine.value(&name).cloned() {
                    let mut probe = self.engine.clone();
                    if let Err(error) = probe.set(&name, value) {
                        self.problems[index] = Some(problem_text(&error));
                        return false;
                    }
                }
            }
            FieldKind::Boolean | FieldKind::SingleSelect => {}
        }
        self.problems[index] = self.missing(index);
        true
    }

    /// A required field without an answer: marked now, refused only at the review.
    fn missing(&self, index: usize) -> Option<String> {
        let field = self.engine.fields().nth(index)?;
        (field.is_required() && field.value().is_none()).then(|| "an answer is required".to_owned())
    }

    fn current_text(&self, index: usize) -> String {
        self.engine
            .fields()
            .nth(index)
            .and_then(|f| f.display_value())
            .unwrap_or_default()
    }

    /// Space on a list: the option under the cursor chosen (single) or toggled (multi).
    fn choose(&mut self, index: usize) {
        let field = &self.fields[index];
        let name = field.name.clone();
        let Some(entry) = field.entries.get(field.cursor).cloned() else {
            return;
        };
        let result = match (field.kind, entry) {
            (_, Entry::Clear) => self.engine.clear(&name),
            (FieldKind::MultiSelect, Entry::Value { value, .. }) => {
                let option = value.as_str().unwrap_or_default().to_owned();
                let checked = matches!(self.engine.value(&name), Some(Value::Array(items)) if items.contains(&value));
                if checked {
                    let result = self.engine.deselect_option(&name, &option);
                    // Nothing checked leaves the field empty (no `[]` sent).
                    if matches!(self.engine.value(&name), Some(Value::Array(items)) if items.is_empty())
                    {
                        let _ = self.engine.clear(&name);
                    }
                    result
                } else {
                    self.engine.select_option(&name, &option)
                }
            }
            (_, Entry::Value { value, .. }) => self.engine.set(&name, value),
        };
        self.problems[index] = match result {
            Ok(()) => None,
            Err(error) => Some(problem_text(&error)),
        };
    }

    // ---- drawing ----

    fn draw_fields(&self, body: &mut Body, theme: &Theme) {
        if self.engine.title().is_some()
            || self.engine.description().is_some()
            || !self.engine.unenforced().is_empty()
            || self.form_problem.is_some()
        {
            body.blank();
        }
        if let Some(title) = self.engine.title() {
            body.wrapped(
                0,
                None,
                &format!("Form: {}", neutralise(title)),
                theme.label,
            );
        }
        if let Some(description) = self.engine.description() {
            for line in neutralise_lines(description) {
                body.wrapped(2, None, &line, theme.muted);
            }
        }
        // D7, D8: what this client cannot check, said rather than hidden.
        for unenforced in self.engine.unenforced() {
            let note = format!(
                "Note: `{}` is not checked here: {}",
                neutralise(&unenforced.property),
                neutralise(&unenforced.reason)
            );
            body.wrapped(0, None, &note, theme.muted);
        }
        if let Some(problem) = &self.form_problem {
            body.wrapped(
                0,
                Some(Span::styled("! ", theme.error)),
                &neutralise(problem),
                theme.error,
            );
        }
        for (index, field) in self.engine.fields().enumerate() {
            body.blank();
            let focused = self.focus == Focus::Field(index);
            let start = body.start_focus();
            let ui = &self.fields[index];
            let marker = if focused { "▶ " } else { "  " };
            let mut label = vec![
                Span::styled(marker, theme.focused),
                Span::styled(
                    neutralise(field.label()),
                    if focused { theme.focused } else { theme.label },
                ),
            ];
            if field.is_required() {
                label.push(Span::styled(" *", theme.label));
            }
            body.push(Line::from(label));
            if let Some(description) = field.description() {
                for line in neutralise_lines(description) {
                    body.wrapped(4, None, &line, theme.muted);
                }
            }
            body.wrapped(4, None, &neutralise(hint(&field)), theme.muted);
            match ui.kind {
                FieldKind::Text | FieldKind::Integer | FieldKind::Number => {
                    body.push(edit_box(ui, focused, body.width, theme));
                }
                kind => {
                    for (i, entry) in ui.entries.iter().enumerate() {
                        let selected = match entry {
                            Entry::Value { value, .. } => match field.value() {
                                Some(Value::Array(items)) => items.contains(value),
                                Some(current) => current == value,
                                None => false,
                            },
                            Entry::Clear => field.value().is_none(),
                        };
                        let mark = match (kind, selected) {
                            (FieldKind::MultiSelect, true) => "[x] ",
                            (FieldKind::MultiSelect, false) => "[ ] ",
                            (_, true) => "(•) ",
                            (_, false) => "( ) ",
                        };
                        let here = focused && ui.cursor == i;
                        let style = if here { theme.focused } else { theme.text };
                        let (label, description) = match entry {
                            Entry::Value {
                                label, description, ..
                            } => (label.as_str(), description.as_deref()),
                            Entry::Clear => (LEAVE_EMPTY, None),
                        };
                        let text = match description {
                            Some(d) => format!("{mark}{label} — {d}"),
                            None => format!("{mark}{label}"),
                        };
                        let lead = Span::styled(if here { "  > " } else { "    " }, style);
                        body.wrapped(8, Some(lead), &text, style);
                    }
                }
            }
            if let Some(problem) = &self.problems[index] {
                body.wrapped(
                    4,
                    Some(Span::styled("    ! ", theme.error)),
                    &neutralise(problem),
                    theme.error,
                );
            }
            if focused {
                body.end_focus(start);
            }
        }
    }

    fn fields_footer(&self, theme: &Theme) -> Vec<Line<'static>> {
        let focused = match self.focus {
            Focus::Button(b) => Some(b),
            Focus::Field(_) => None,
        };
        let help = match self.focus {
            Focus::Field(index) => match self.fields[index].kind {
                FieldKind::MultiSelect => {
                    "↑↓ move · Space check · Enter next · Tab fields · Ctrl-D decline · Esc cancel"
                }
                FieldKind::Boolean | FieldKind::SingleSelect => {
                    "↑↓ move · Space choose · Enter choose, next · Ctrl-D decline · Esc cancel"
                }
                _ => {
                    "Enter next · Tab/Shift-Tab fields · Ctrl-U empty · Ctrl-D decline · Esc cancel"
                }
            },
            Focus::Button(_) => {
                "←→ buttons · Enter press · Shift-Tab fields · Ctrl-D decline · Esc cancel"
            }
        };
        vec![
            buttons(&EDIT_BUTTONS, focused, theme),
            Line::from(Span::styled(help, theme.muted)),
        ]
    }

    fn draw_review(&self, body: &mut Body, theme: &Theme) {
        body.blank();
        body.push(Line::from(Span::styled(
            "Review: nothing is sent until you press Send",
            theme.label,
        )));
        let review = self.engine.review();
        for entry in review.entries() {
            let marker = if entry.required { " *" } else { "" };
            let shown = match &entry.shown {
                Some(shown) => neutralise(shown),
                None => "(no answer)".to_owned(),
            };
            body.wrapped(
                4,
                None,
                &format!("{}{marker}: {shown}", neutralise(&entry.label)),
                theme.text,
            );
        }
        body.blank();
        match review.problems() {
            None => body.push(Line::from(Span::styled("Ready to send.", theme.label))),
            Some(problems) => {
                body.push(Line::from(Span::styled("Not ready:", theme.error)));
                for problem in problems.errors() {
                    body.wrapped(
                        4,
                        Some(Span::styled("  ! ", theme.error)),
                        &neutralise(problem),
                        theme.error,
                    );
                }
            }
        }
    }
}

impl FieldUi {
    fn new(field: &crate::client::FormField<'_>) -> Self {
        let committed = field.display_value().unwrap_or_default();
        let mut entries: Vec<Entry> = match field.kind() {
            FieldKind::Boolean => vec![
                Entry::Value {
                    value: Value::Bool(true),
                    label: "Yes".to_owned(),
                    description: None,
                },
                Entry::Value {
                    value: Value::Bool(false),
                    label: "No".to_owned(),
                    description: None,
                },
            ],
            FieldKind::SingleSelect | FieldKind::MultiSelect => field
                .options()
                .iter()
                .map(|choice| Entry::Value {
                    value: Value::String(choice.value.to_owned()),
                    label: neutralise(choice.label),
                    description: choice.description.map(neutralise),
                })
                .collect(),
            FieldKind::Text | FieldKind::Integer | FieldKind::Number => Vec::new(),
        };
        if !field.is_required()
            && matches!(field.kind(), FieldKind::Boolean | FieldKind::SingleSelect)
        {
            entries.push(Entry::Clear);
        }
        // The cursor on the current answer (a default, F4), else on "leave empty" so
        // that Enter does not pick a value the person never chose.
        let current = field.value();
        let cursor = entries
            .iter()
            .position(|e| match (e, current) {
                (Entry::Value { value, .. }, Some(Value::Array(items))) => items.contains(value),
                (Entry::Value { value, .. }, Some(c)) => value == c,
                (Entry::Clear, None) => true,
                _ => false,
            })
            .unwrap_or(0);
        FieldUi {
            name: field.name().to_owned(),
            kind: field.kind(),
            caret: committed.chars().count(),
            input: committed.clone(),
            committed,
            entries,
            cursor,
        }
    }
}

/// The byte offset of the `chars`-th character of `text`.
fn byte_at(text: &str, chars: usize) -> usize {
    text.char_indices()
        .nth(chars)
        .map_or(text.len(), |(at, _)| at)
}

/// `[text   ]`, as wide as the text (at most [`MAX_BOX`] columns) or the room left;
/// a focused box shows its caret (reverse video) and scrolls to keep it in view.
fn edit_box(field: &FieldUi, focused: bool, room: usize, theme: &Theme) -> Line<'static> {
    let inner = room.saturating_sub(8).clamp(4, MAX_BOX);
    let chars: Vec<char> = field.input.chars().collect();
    // The first character shown: the caret (and the cell it draws in) must fit.
    let mut start = 0;
    let caret = field.caret.min(chars.len());
    while start < caret && width(&chars[start..caret].iter().collect::<String>()) + 1 > inner {
        start += 1;
    }
    let mut before = String::new();
    let mut used = 0;
    for c in &chars[start..caret] {
        before.push(*c);
        used += width(&c.to_string());
    }
    let style = if focused { theme.focused } else { theme.text };
    let mut spans = vec![
        Span::raw("    "),
        Span::styled("[", style),
        Span::styled(before, style),
    ];
    let mut rest: String = String::new();
    let mut after = chars[caret..].iter();
    if focused {
        let at = after.next().copied().unwrap_or(' ');
        used += width(&at.to_string()).max(1);
        spans.push(Span::styled(
            at.to_string(),
            style.add_modifier(Modifier::REVERSED),
        ));
    }
    for c in after {
        let w = width(&c.to_string());
        if used + w > inner {
            break;
        }
        rest.push(*c);
        used += w;
    }
    spans.push(Span::styled(rest, style));
    spans.push(Span::styled(" ".repeat(inner.saturating_sub(used)), style));
    spans.push(Span::styled("]", style));
    Line::from(spans)
}

/// Draws a [`FormState`]: who asks first (pinned to the top), the message, the form's
/// title and every field with its problem, or the review; the buttons and the keys at
/// the bottom. Cheap to build for every frame.
#[derive(Debug, Clone, Copy, Default)]
pub struct FormView {
    theme: Theme,
}

impl FormView {
    /// With the default [`Theme`].
    pub fn new() -> Self {
        Self::default()
    }

    /// With these styles.
    pub fn theme(mut self, theme: Theme) -> Self {
        self.theme = theme;
        self
    }
}

impl StatefulWidget for FormView {
    type State = FormState;

    fn render(self, area: Rect, buf: &mut Buffer, state: &mut FormState) {
        let theme = &self.theme;
        clear(area, buf);
        let pinned = [asks_line(&state.header.agent, theme)];
        let mut body = Body::new(area.width);
        state.header.draw_message(&mut body, theme);
        match state.page {
            Page::Fields => {
                state.draw_fields(&mut body, theme);
                let footer = state.fields_footer(theme);
                let mut scroll = state.scroll;
                draw_screen(area, buf, &pinned, &body, &footer, &mut scroll, theme);
                state.scroll = scroll;
            }
            Page::Review => {
                state.draw_review(&mut body, theme);
                let footer = vec![
                    buttons(&REVIEW_BUTTONS, Some(state.review_button), theme),
                    Line::from(Span::styled(
                        "←→ buttons · Enter press · ↑↓ scroll · Ctrl-D decline · Esc cancel",
                        theme.muted,
                    )),
                ];
                let mut scroll = state.review_scroll;
                draw_screen(area, buf, &pinned, &body, &footer, &mut scroll, theme);
                state.review_scroll = scroll;
            }
        }
    }
}
