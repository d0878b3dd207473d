//! URL consent: the page a URL-mode request asks the person to open, reviewed, and
//! their explicit choice ([S2](crate::rules#s2)–[S4](crate::rules#s4),
//! [K3](crate::rules#k3)).

use ratatui_core::buffer::Buffer;
use ratatui_core::layout::Rect;
use ratatui_core::text::{Line, Span};
use ratatui_core::widgets::StatefulWidget;

use super::draw::{asks_line, buttons, clear, draw_screen, Body, Header, Theme};
use super::text::{neutralise, wrap};
use super::Key;
use crate::client::{Consent, ConsentPrompt, Intro, UrlReview};

/// The buttons of the question.
const CONSENT_BUTTONS: [&str; 3] = ["Open", "Decline", "Cancel"];

/// The state of a URL consent on screen: the reviewed URL, the focus, and once the
/// person has chosen, the outcome. Drawn with [`ConsentView`], fed keys with
/// [`handle_key`](Self::handle_key).
///
/// Consent is never a default ([S2](crate::rules#s2)): no button has the focus at
/// first and Enter alone opens nothing. `y` (or `o`) consents, `n` declines, Esc or
/// Ctrl-C cancels, Ctrl-D declines; or the buttons, with the arrows and Enter. While
/// part of the request is scrolled out of view, consent is refused with a word to
/// read it all first: every warning and the whole URL must have been on screen.
///
/// The widget never opens the URL: after consent the application opens it in a secure
/// context of its own, or tells the person to ([S3](crate::rules#s3)).
#[derive(Debug, Clone)]
pub struct ConsentState {
    header: Header,
    review: UrlReview,
    focus: Option<usize>,
    /// What the last key could not do, said in the footer.
    hint: Option<&'static str>,
    outcome: Option<Consent>,
    scroll: usize,
    /// Whether everything has been on screen (set when drawn).
    seen_all: bool,
}

impl ConsentState {
    /// The consent for `review`, asked by `intro`'s agent.
    pub fn new(intro: &Intro<'_>, review: UrlReview) -> Self {
        ConsentState {
            header: Header::from_intro(intro),
            review,
            focus: None,
            hint: None,
            outcome: None,
            scroll: 0,
            seen_all: false,
        }
    }

    /// The consent an [`Asker::consent`](crate::client::Asker::consent) is asked for.
    pub fn from_prompt(prompt: &ConsentPrompt<'_>) -> Self {
        Self::new(&prompt.intro, prompt.review.clone())
    }

    /// The reviewed URL.
    pub fn review(&self) -> &UrlReview {
        &self.review
    }

    /// What the person chose, once they have.
    pub fn outcome(&self) -> Option<Consent> {
        self.outcome
    }

    /// Takes one key; returns the person's choice when this key made it.
    pub fn handle_key(&mut self, key: Key) -> Option<Consent> {
        if self.outcome.is_some() {
            return None;
        }
        self.hint = None;
        match key {
            Key::Esc | Key::Ctrl('c') => self.finish(Consent::Cancel),
            Key::Ctrl('d') | Key::Char('n' | 'N') => self.finish(Consent::Decline),
            Key::Char('y' | 'Y' | 'o' | 'O') => self.open(),
            Key::Right | Key::Tab => {
                self.focus = Some(
                    self.focus
                        .map_or(0, |f| (f + 1).min(CONSENT_BUTTONS.len() - 1)),
                );
                None
            }
            Key::Left | Key::BackTab => {
                self.focus = Some(self.focus.map_or(0, |f| f.saturating_sub(1)));
                None
            }
            Key::Up => {
                self.scroll = self.scroll.saturating_sub(1);
                None
            }
            Key::Down => {
                self.scroll += 1;
                None
            }
            Key::PageUp => {
                self.scroll = self.scroll.saturating_sub(10);
                None
            }
            Key::PageDown => {
                self.scroll += 10;
                None
            }
            Key::Enter => {
                match self.focus {
                    Some(0) => self.open(),
                    Some(1) => self.finish(Consent::Decline),
                    Some(_) => self.finish(Consent::Cancel),
                    None => {
                        self.hint = Some("Enter alone opens nothing: type y to open, n to decline, Esc to cancel");
                        None
                    }
                }
            }
            _ => None,
        }
    }

    fn open(&mut self) -> Option<Consent> {
        if !self.seen_all {
            self.hint = Some("Read it all first: scroll down with ↓ or Page Down");
            return None;
        }
        self.finish(Consent::Open)
    }

    fn finish(&mut self, consent: Consent) -> Option<Consent> {
        self.outcome = Some(consent);
        Some(consent)
    }

    fn draw_body(&self, body: &mut Body, theme: &Theme) {
        let review = &self.review;
        body.blank();
        body.push(Line::from(Span::styled(
            "The agent asks you to open a web page.",
            theme.label,
        )));
        // S2: the full URL, whole, however long: wrapped, never cut.
        let url = neutralise(review.full_url());
        let room = body.width.saturating_sub(11).max(8);
        for (i, piece) in wrap(&url, room).into_iter().enumerate() {
            let lead = if i == 0 { "  Address: " } else { "           " };
            body.push(Line::from(vec![
                Span::raw(lead),
                Span::styled(piece, theme.text),
            ]));
        }
        // S4, K3: the host with its registrable domain emphasised (and bracketed, so
        // that it shows without styles too), and how it is written when it differs.
        let (subdomains, domain) = host_parts(review.host_unicode(), review.registrable_domain());
        let mut site = vec![
            Span::raw("  Site:    "),
            Span::styled(neutralise(subdomains), theme.text),
            Span::styled(format!("[{}]", neutralise(domain)), theme.emphasis),
        ];
        if review.host_unicode() != review.host_ascii() {
            site.push(Span::styled(
                format!(" (written {})", neutralise(review.host_ascii())),
                theme.text,
            ));
        }
        body.push(Line::from(site));
        // S4: every warning, before the question.
        if review.warnings().is_empty() {
            body.push(Line::from(Span::styled("  No warnings.", theme.muted)));
        } else {
            body.push(Line::from(Span::styled("  Warnings:", theme.warning)));
            for warning in review.warnings() {
                body.wrapped(
                    4,
                    Some(Span::styled("  ! ", theme.warning)),
                    &neutralise(warning),
                    theme.warning,
                );
            }
        }
        body.blank();
        body.wrapped(
            0,
            None,
            "This client does not open the page itself: if you agree, open the address \
             above in your own browser. Nothing you do there comes back through this client.",
            theme.muted,
        );
    }
}

/// The host split before its registrable domain: `("login.", "example.com")`; the
/// whole host when it has none (an IP address, `localhost`).
fn host_parts<'h>(host: &'h str, domain: Option<&str>) -> (&'h str, &'h str) {
    domain
        .and_then(|d| {
            let start = host.len().checked_sub(d.len())?;
            (host.get(start..)? == d && (start == 0 || host[..start].ends_with('.')))
                .then(|| host.split_at(start))
        })
        .unwrap_or(("", host))
}

/// Draws a [`ConsentState`]: who asks (pinned), the message, the full URL, the site
/// with its registrable domain emphasised, every warning, then the question and its
/// buttons at the bottom.
#[derive(Debug, Clone, Copy, Default)]
pub struct ConsentView {
    theme: Theme,
}

impl ConsentView {
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

impl StatefulWidget for ConsentView {
    type State = ConsentState;

    fn render(self, area: Rect, buf: &mut Buffer, state: &mut ConsentState) {
        let theme = &self.theme;
        clear(area, buf);
        let pinned = [asks_line(&state.header.agent, theme)];
        let mut body = Body::new(area.width);
        state.header.draw_message(&mut body, theme);
        state.draw_body(&mut body, theme);
        let mut question = vec![Span::styled("Open this page?", theme.label)];
        question.extend(buttons(&CONSENT_BUTTONS, state.focus, theme).spans);
        let help = state
            .hint
            .unwrap_or("y open · n decline · Esc cancel · ←→ buttons, Enter press · ↑↓ scroll");
        let footer = vec![
            Line::from(question),
            Line::from(Span::styled(
                help,
                if state.hint.is_some() {
                    theme.warning
                } else {
                    theme.muted
                },
            )),
        ];
        let mut scroll = state.scroll;
        draw_screen(area, buf, &pinned, &body, &footer, &mut scroll, theme);
        state.scroll = scroll;
        // The rows the body had: everything has been seen once the end was on screen.
        let rows = usize::from(area.height).saturating_sub(1 + footer.len());
        if rows > 0 && scroll + rows >= body.lines.len() {
            state.seen_all = true;
        }
    }
}
