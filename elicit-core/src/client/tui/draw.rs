//! What the widgets share when they draw: the theme, a page of lines that scrolls
//! under a pinned header and above a fixed footer, and the buttons.

use std::ops::Range;

use ratatui_core::buffer::Buffer;
use ratatui_core::layout::Rect;
use ratatui_core::style::{Color, Modifier, Style};
use ratatui_core::text::{Line, Span};

use super::text::{neutralise, wrap};

/// The styles the widgets draw with. Every mark that matters (focus, the selected
/// option, the emphasised domain, an error) is also a character on screen, so the
/// widgets read the same without colours (`NO_COLOR`, a screen reader, a capture).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Theme {
    /// Ordinary text, and the agent's message.
    pub text: Style,
    /// Help lines, descriptions, hints.
    pub muted: Style,
    /// The line that says who asks ([K1](crate::rules#k1)).
    pub agent: Style,
    /// A field's label.
    pub label: Style,
    /// The focused field's label, the option under the cursor, the edit box in use.
    pub focused: Style,
    /// A refused answer's reason, beside its field ([F3](crate::rules#f3)).
    pub error: Style,
    /// A URL's warnings ([S4](crate::rules#s4)).
    pub warning: Style,
    /// The registrable domain of a URL's host ([S4](crate::rules#s4),
    /// [K3](crate::rules#k3)).
    pub emphasis: Style,
    /// A button.
    pub button: Style,
    /// The focused button.
    pub focused_button: Style,
}

impl Default for Theme {
    /// Bold, underline and reverse video with red and yellow for problems: readable on
    /// dark and light terminals alike.
    fn default() -> Self {
        Theme {
            text: Style::new(),
            muted: Style::new().add_modifier(Modifier::DIM),
            agent: Style::new().add_modifier(Modifier::BOLD),
            label: Style::new().add_modifier(Modifier::BOLD),
            focused: Style::new().fg(Color::Cyan).add_modifier(Modifier::BOLD),
            error: Style::new().fg(Color::Red).add_modifier(Modifier::BOLD),
            warning: Style::new().fg(Color::Yellow).add_modifier(Modifier::BOLD),
            emphasis: Style::new().add_modifier(Modifier::BOLD | Modifier::UNDERLINED),
            button: Style::new(),
            focused_button: Style::new().add_modifier(Modifier::REVERSED | Modifier::BOLD),
        }
    }
}

impl Theme {
    /// No styles at all: marks only.
    pub fn plain() -> Self {
        Theme {
            text: Style::new(),
            muted: Style::new(),
            agent: Style::new(),
            label: Style::new(),
            focused: Style::new(),
            error: Style::new(),
            warning: Style::new(),
            emphasis: Style::new(),
            button: Style::new(),
            focused_button: Style::new(),
        }
    }
}

/// The lines of a page's scrolling part, and which of them belong to what has the
/// focus (kept on screen).
#[derive(Debug, Default)]
pub(crate) struct Body {
    pub(crate) lines: Vec<Line<'static>>,
    pub(crate) focus: Option<Range<usize>>,
    /// The columns the lines are wrapped to.
    pub(crate) width: usize,
}

impl Body {
    pub(crate) fn new(width: u16) -> Self {
        Body {
            lines: Vec::new(),
            focus: None,
            width: usize::from(width),
        }
    }

    pub(crate) fn push(&mut self, line: Line<'static>) {
        self.lines.push(line);
    }

    pub(crate) fn blank(&mut self) {
        self.lines.push(Line::default());
    }

    /// Text already neutralised, wrapped after `indent` spaces (and `first` on the
    /// first line instead of the spaces, when given).
    pub(crate) fn wrapped(
        &mut self,
        indent: usize,
        first: Option<Span<'static>>,
        text: &str,
        style: Style,
    ) {
        let room = self.width.saturating_sub(indent).max(8);
        for (i, piece) in wrap(text, room).into_iter().enumerate() {
            let lead = match (&first, i) {
                (Some(first), 0) => first.clone(),
                _ => Span::raw(" ".repeat(indent)),
            };
            self.lines
                .push(Line::from(vec![lead, Span::styled(piece, style)]));
        }
    }

    /// The next lines pushed belong to the focus, until [`end_focus`](Self::end_focus).
    pub(crate) fn start_focus(&mut self) -> usize {
        self.lines.len()
    }

    pub(crate) fn end_focus(&mut self, start: usize) {
        self.focus = Some(start..self.lines.len());
    }
}

/// The header line that never scrolls: who asks ([K1](crate::rules#k1)).
pub(crate) fn asks_line(agent: &str, theme: &Theme) -> Line<'static> {
    Line::from(vec![
        Span::styled(neutralise(agent), theme.agent),
        Span::styled(" asks:", theme.agent),
    ])
}

/// Draws `pinned` at the top of `area`, `footer` at its bottom and as much of `body`
/// as fits between them from `scroll` (adjusted so that the focus is on screen and
/// nothing past the end is left blank). Nothing is drawn outside `area`.
pub(crate) fn draw_screen(
    area: Rect,
    buf: &mut Buffer,
    pinned: &[Line<'static>],
    body: &Body,
    footer: &[Line<'static>],
    scroll: &mut usize,
    theme: &Theme,
) {
    if area.is_empty() {
        return;
    }
    let height = usize::from(area.height);
    let footer_rows = footer.len().min(height);
    let pinned_rows = pinned.len().min(height - footer_rows);
    let body_rows = height - footer_rows - pinned_rows;
    let mut y = area.y;
    for line in &pinned[..pinned_rows] {
        buf.set_line(area.x, y, line, area.width);
        y += 1;
    }

    if let Some(focus) = &body.focus {
        if focus.end > *scroll + body_rows {
            *scroll = focus.end.saturating_sub(body_rows);
        }
        if focus.start < *scroll {
            *scroll = focus.start;
        }
    }
    *scroll = (*scroll).min(body.lines.len().saturating_sub(body_rows));
    let shown = body.lines.iter().skip(*scroll).take(body_rows);
    let body_top = y;
    for line in shown {
        buf.set_line(area.x, y, line, area.width);
        y += 1;
    }
    // Marks for what is scrolled out of view, at the right edge.
    if body_rows > 0 && area.width > 2 {
        let right = area.right() - 1;
        if *scroll > 0 {
            buf.set_string(right, body_top, "▲", theme.muted);
        }
        if *scroll + body_rows < body.lines.len() {
            let last = body_top + u16::try_from(body_rows - 1).unwrap_or(0);
            buf.set_string(right, last, "▼", theme.muted);
        }
    }

    let footer_top = area.bottom() - u16::try_from(footer_rows).unwrap_or(0);
    for (y, line) in (footer_top..).zip(&footer[footer.len() - footer_rows..]) {
        buf.set_line(area.x, y, line, area.width);
    }
}

/// Blanks the symbols of `area` (its styles stay the application's): a question covers
/// whatever was drawn there before.
pub(crate) fn clear(area: Rect, buf: &mut Buffer) {
    let blank = " ".repeat(usize::from(area.width));
    for y in area.top()..area.bottom() {
        buf.set_stringn(area.x, y, &blank, usize::from(area.width), Style::new());
    }
}

/// A row of buttons, the focused one marked `▶` (and styled).
pub(crate) fn buttons(labels: &[&str], focused: Option<usize>, theme: &Theme) -> Line<'static> {
    let mut spans = Vec::with_capacity(labels.len() * 2);
    for (i, label) in labels.iter().enumerate() {
        let on = focused == Some(i);
        spans.push(Span::raw(if on { " ▶" } else { "  " }));
        spans.push(Span::styled(
            format!("[ {label} ]"),
            if on {
                theme.focused_button
            } else {
                theme.button
            },
        ));
    }
    Line::from(spans)
}

/// Who asks, why, and in what context, owned by a widget's state
/// ([K1](crate::rules#k1), [K4](crate::rules#k4)); agent text, drawn neutralised.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Header {
    pub(crate) agent: String,
    pub(crate) message: String,
    pub(crate) scope: Option<String>,
}

impl Header {
    pub(crate) fn from_intro(intro: &crate::client::Intro<'_>) -> Self {
        use crate::protocol::Scope;
        let scope = intro.scope.map(|scope| match scope {
            Scope::Session {
                session_id,
                tool_call_id: Some(tool_call),
            } => format!("session {session_id}, tool call {tool_call}"),
            Scope::Session { session_id, .. } => format!("session {session_id}"),
            Scope::Request { request_id } => {
                format!("before any session: request {}", request_id.to_json())
            }
        });
        Header {
            agent: intro.agent.to_string(),
            message: intro.message.to_owned(),
            scope,
        }
    }

    /// The message, indented under the pinned "… asks:" line, then the scope.
    pub(crate) fn draw_message(&self, body: &mut Body, theme: &Theme) {
        for line in super::text::neutralise_lines(&self.message) {
            body.wrapped(2, None, &line, theme.text);
        }
        if let Some(scope) = &self.scope {
            body.wrapped(2, None, &format!("({})", neutralise(scope)), theme.muted);
        }
    }
}
