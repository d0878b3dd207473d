//! Agent text made safe to print at a terminal: the one neutraliser every asker and
//! example of this crate prints agent text through ([S5](crate::rules#s5),
//! [K1](crate::rules#k1), [K3](crate::rules#k3)).
//!
//! Everything a terminal client prints that an agent or a server chose (the request's
//! `message`, a form's title and description, field labels and descriptions, option
//! labels, the agent's or server's name, a tool's name and description, a problem or a
//! notice that quotes such text, a default value) goes through [`plain`] (prose, on one
//! line), [`bounded`] (prose with a length limit) or [`verbatim`] (a value, every
//! character kept). No feature is needed: a line-based client without `inquire` needs
//! it as much as the [terminal asker](super::terminal) does.
//!
//! What happens to each kind of character, and why:
//!
//! - **Control characters** (C0, DEL and C1, among them ESC, CSI `U+009B` and OSC
//!   `U+009D`) are shown as `<U+001B>` instead of acting. No escape sequence can start,
//!   so agent text cannot hide what follows it (`ESC[8m`), move the cursor, clear the
//!   screen, recolour the client's warnings or retitle the window (`ESC]0;…BEL`).
//! - **Line breaks and runs of white space** (CR, LF, tab, VT, FF, NEL, U+2028 LINE
//!   SEPARATOR, U+2029 PARAGRAPH SEPARATOR, no-break and typographic spaces) become one
//!   space in [`plain`] and [`bounded`], with none at either end: a line break would
//!   start a line that reads as the client's own, and a run of spaces pads text to a
//!   column so that a wrapped line lines up as the client's own block. [`verbatim`]
//!   keeps ordinary spaces where they are (an answer is shown as it will be sent) and
//!   shows every other white space character as `<U+0009>`.
//! - **Bidirectional controls** (marks, embeddings, overrides, isolates) and
//!   **invisible characters** (zero-width spaces and joiners, the word joiner, the
//!   byte order mark, soft hyphen, fillers, variation selectors, TAG characters of
//!   "ASCII smuggling"): the very lists the URL review warns about are shown as
//!   `<U+202E>`, not removed. Shown, because what a person reads must be all there is:
//!   a removed character would still be in the text the agent gets back, in a name the
//!   person compares with another (`git<U+200B>hub`), or in the text the person copies
//!   into another program. The one exception is a single U+FE0F VARIATION SELECTOR-16
//!   right after a visible character, the emoji presentation of `⚠️` or `✔️`: on its
//!   own it can neither hide nor reorder text; a second one in a row (the start of a
//!   payload hidden in selectors) is shown.
//! - **The client's own mark** [`TRUSTED_MARK`] (`┃`), and every other box-drawing and
//!   block character (U+2500–U+259F, its look-alikes), is shown as `<U+2503>`. The
//!   lines a client vouches for, such as the address, site and warnings of a URL
//!   consent ([`url_consent`]), start with the mark, so a line that starts with it can
//!   only be the client's, however the agent's text wraps.
//! - Everything else (letters of every script, punctuation, symbols, emoji) is shown
//!   as it is.
//!
//! ```
//! use elicit::client::terminal_text::{bounded, plain, verbatim};
//!
//! // An escape sequence does not act; a line break does not start a line.
//! assert_eq!(
//!     plain("Sign in\u{1b}[8m\n  Address: https://good.example").to_string(),
//!     "Sign in<U+001B>[8m Address: https://good.example"
//! );
//! // A window title change, a bidi override and a hidden tag are shown.
//! assert_eq!(
//!     plain("bot\u{1b}]0;root\u{7}\u{202e}\u{e0041}").to_string(),
//!     "bot<U+001B>]0;root<U+0007><U+202E><U+E0041>"
//! );
//! // A long message is cut, and says so.
//! assert_eq!(
//!     bounded(&"a".repeat(50), 10).to_string(),
//!     "aaaaaaaaaa… (40 more characters not shown)"
//! );
//! // A value keeps its spaces; a tab is shown.
//! assert_eq!(verbatim(" a  b\t").to_string(), " a  b<U+0009>");
//! ```

use std::fmt::{self, Display, Write as _};

use super::asker::Intro;
use crate::hidden_chars::{is_bidi_control, is_invisible};
use crate::protocol::Scope;

/// How many characters of a request's `message` (or of a description) a terminal
/// client shows: four lines of an 80-column terminal. A longer one is cut, with a note
/// of how much was left out, so that no message can push the client's own lines (a
/// URL's address, site and warnings) off the screen.
pub const MAX_MESSAGE_CHARS: usize = 320;

/// How many characters of a name (an agent's or server's name and title, a tool's
/// name, a session id) a terminal client shows.
pub const MAX_NAME_CHARS: usize = 100;

/// The mark at the start of every line a terminal client vouches for (U+2503 BOX
/// DRAWINGS HEAVY VERTICAL). Agent text shown through this module can never contain it
/// (nor any other box-drawing or block character): see the [module](self).
pub const TRUSTED_MARK: char = '\u{2503}';

/// Agent prose on one line: white space collapsed, control, bidirectional, invisible
/// and reserved characters shown as `<U+XXXX>` (see the [module](self)). Not shortened:
/// use [`bounded`] for a message or a description.
///
/// ```
/// use elicit::client::terminal_text::plain;
/// assert_eq!(plain("OK\u{1b}[2J\u{202e}").to_string(), "OK<U+001B>[2J<U+202E>");
/// assert_eq!(plain("  two\r\nlines ").to_string(), "two lines");
/// ```
pub fn plain(text: impl Display) -> Plain {
    Plain::new(&text.to_string(), Whitespace::Collapse, usize::MAX)
}

/// [`plain`], shortened to at most `max_chars` characters as shown (each `<U+XXXX>`
/// counts for its length), then `… (N more characters not shown)`, where N counts the
/// characters left out, white space aside.
///
/// ```
/// use elicit::client::terminal_text::bounded;
/// assert_eq!(bounded("short", 10).to_string(), "short");
/// assert_eq!(
///     bounded("one two three", 7).to_string(),
///     "one two… (5 more characters not shown)"
/// );
/// ```
pub fn bounded(text: impl Display, max_chars: usize) -> Plain {
    Plain::new(&text.to_string(), Whitespace::Collapse, max_chars)
}

/// A value (an answer, a default) shown exactly: every ordinary space kept where it
/// is, and every other white space, control, bidirectional, invisible or reserved
/// character shown as `<U+XXXX>`, so the person sees what will be sent.
///
/// ```
/// use elicit::client::terminal_text::verbatim;
/// assert_eq!(verbatim("a  b\n").to_string(), "a  b<U+000A>");
/// ```
pub fn verbatim(text: impl Display) -> Plain {
    Plain::new(&text.to_string(), Whitespace::Show, usize::MAX)
}

/// Text that is safe to print at a terminal, made by [`plain`], [`bounded`] or
/// [`verbatim`]; `Display` writes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plain(String);

/// What to do with white space.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Whitespace {
    /// Runs become one space, none at either end.
    Collapse,
    /// Ordinary spaces kept; every other white space character shown.
    Show,
}

impl Plain {
    fn new(text: &str, whitespace: Whitespace, max_chars: usize) -> Plain {
        let mut out = String::with_capacity(text.len().min(max_chars.saturating_mul(4)));
        let mut shown = 0usize;
        // A collapsed run of white space waiting for the next visible character.
        let mut pending_space = false;
        // The previous character kept as it is (for the one U+FE0F allowed after it).
        let mut previous_visible = false;
        let mut piece = String::new();
        for (index, c) in text.char_indices() {
            piece.clear();
            if whitespace == Whitespace::Collapse && c.is_whitespace() {
                pending_space = !out.is_empty();
                previous_visible = false;
                continue;
            }
            if pending_space {
                piece.push(' ');
            }
            let kept = if c == '\u{FE0F}' && previous_visible {
                true
            } else {
                !must_be_shown(c, whitespace)
            };
            if kept {
                piece.push(c);
            } else {
                let _ = write!(piece, "<U+{:04X}>", u32::from(c));
            }
            let width = piece.chars().count();
            if shown + width > max_chars {
                // The cut is always at a visible character, so at least one is left.
                let left = text[index..].chars().filter(|c| !c.is_whitespace()).count();
                let _ = write!(
                    out,
                    "… ({left} more character{} not shown)",
                    if left == 1 { "" } else { "s" }
                );
                return Plain(out);
            }
            pending_space = false;
            shown += width;
            out.push_str(&piece);
            previous_visible = kept && c != '\u{FE0F}';
        }
        Plain(out)
    }

    /// The text as it is shown.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl Display for Plain {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Whether [`verbatim`] prints `c` as itself: `false` for every control, white space
/// other than the space, bidirectional, invisible and reserved character (see the
/// [module](self)). For a program that prints agent text in a format of its own, such
/// as JSON on one line, and must escape these characters its own way.
///
/// ```
/// use elicit::client::terminal_text::shows_as_itself;
/// assert!(shows_as_itself('é') && shows_as_itself(' '));
/// assert!(!shows_as_itself('\u{9b}') && !shows_as_itself('\u{202e}') && !shows_as_itself('\t'));
/// ```
pub fn shows_as_itself(c: char) -> bool {
    !must_be_shown(c, Whitespace::Show)
}

/// Whether `c` is shown as `<U+XXXX>` rather than as itself.
fn must_be_shown(c: char, whitespace: Whitespace) -> bool {
    if c == ' ' {
        return false;
    }
    (whitespace == Whitespace::Show && c.is_whitespace())
        || c.is_control()
        || is_bidi_control(c)
        || is_invisible(c)
        || is_reserved(c)
}

/// The box-drawing and block characters (U+2500–U+259F): [`TRUSTED_MARK`] and its
/// look-alikes, which agent text never shows as themselves.
fn is_reserved(c: char) -> bool {
    ('\u{2500}'..='\u{259F}').contains(&c)
}

/// Who asks and why, on one line: `deploy-bot asks: Proceed? (session s1)`, the agent
/// through [`bounded`] to [`MAX_NAME_CHARS`], the message to [`MAX_MESSAGE_CHARS`],
/// the scope's ids to [`MAX_NAME_CHARS`] ([K1](crate::rules#k1),
/// [K4](crate::rules#k4)).
///
/// ```
/// use elicit::client::terminal_text::intro_line;
/// use elicit::client::{AgentIdentity, Intro};
/// let agent = AgentIdentity::new("bot\u{1b}]0;pwned\u{7}");
/// let intro = Intro { agent: &agent, message: "Go?\n\n  Address: x", scope: None };
/// assert_eq!(intro_line(&intro), "bot<U+001B>]0;pwned<U+0007> asks: Go? Address: x");
/// ```
pub fn intro_line(intro: &Intro<'_>) -> String {
    let mut line = format!(
        "{} asks: {}",
        bounded(intro.agent, MAX_NAME_CHARS),
        bounded(intro.message, MAX_MESSAGE_CHARS)
    );
    let id = |text: &str| bounded(text, MAX_NAME_CHARS);
    let _ = match intro.scope {
        Some(Scope::Session {
            session_id,
            tool_call_id: Some(tool_call),
        }) => write!(
            line,
            " (session {}, tool call {})",
            id(session_id),
            id(tool_call)
        ),
        Some(Scope::Session { session_id, .. }) => write!(line, " (session {})", id(session_id)),
        Some(Scope::Request { request_id }) => write!(
            line,
            " (before any session: request {})",
            id(&request_id.to_json().to_string())
        ),
        None => Ok(()),
    };
    line
}

/// The lines of a URL consent that the client vouches for, each starting with
/// [`TRUSTED_MARK`]: that a web page is asked for, its full address, the site with its
/// registrable domain in `[brackets]` (bold and underlined when `styled`) and its
/// Punycode form when it differs, every warning or "No warnings.", and that the client
/// does not open the page itself ([S2](crate::rules#s2)–[S4](crate::rules#s4),
/// [K3](crate::rules#k3)). Show them after [`intro_line`] and right before the
/// question, so that the agent's message, bounded and on one line, comes first and can
/// neither imitate them (it cannot contain the mark) nor push them off the screen.
///
/// `columns` is the terminal's width when the caller knows it: a longer line (a long
/// address, a warning) is then cut into pieces that fit, each one marked, so that every
/// line of the block on the screen starts with the mark. Without it, the terminal wraps
/// a long line itself and its continuation is not marked.
///
/// ```
/// use elicit::client::terminal_text::url_consent;
/// use elicit::client::UrlReview;
/// let review = UrlReview::new("https://login.example.com/connect")?;
/// assert_eq!(
///     url_consent(&review, false, None),
///     "┃ The agent asks you to open a web page.\n\
///      ┃ Address: https://login.example.com/connect\n\
///      ┃ Site:    login.[example.com]\n\
///      ┃ No warnings.\n\
///      ┃ This client does not open the page itself: if you agree, open the address\n\
///      ┃ above in your own browser. Nothing you do there comes back through this client."
/// );
/// # Ok::<(), elicit::client::UrlError>(())
/// ```
#[cfg(feature = "url")]
pub fn url_consent(review: &super::UrlReview, styled: bool, columns: Option<usize>) -> String {
    let mut lines = vec![
        "The agent asks you to open a web page.".to_owned(),
        format!("Address: {}", verbatim(review.full_url())),
    ];
    let (subdomains, domain) = host_parts(review.host_unicode(), review.registrable_domain());
    let domain = verbatim(domain);
    let domain = if styled {
        format!("\u{1b}[1;4m[{domain}]\u{1b}[0m")
    } else {
        format!("[{domain}]")
    };
    let mut site = format!("Site:    {}{domain}", verbatim(subdomains));
    if review.host_unicode() != review.host_ascii() {
        let _ = write!(site, " (written {})", verbatim(review.host_ascii()));
    }
    lines.push(site);
    if review.warnings().is_empty() {
        lines.push("No warnings.".to_owned());
    } else {
        lines.push("Warnings:".to_owned());
        for warning in review.warnings() {
            lines.push(format!("! {}", plain(warning)));
        }
    }
    lines.push(
        "This client does not open the page itself: if you agree, open the address".to_owned(),
    );
    lines.push(
        "above in your own browser. Nothing you do there comes back through this client."
            .to_owned(),
    );
    // The mark and its space take two columns; below 22 columns nothing reads well, so
    // the pieces stay at least 20 characters wide.
    let width = columns.map(|columns| columns.saturating_sub(2).max(20));
    let mut block = String::new();
    for line in &lines {
        for piece in pieces(line, width) {
            if !block.is_empty() {
                block.push('\n');
            }
            let _ = write!(block, "{TRUSTED_MARK} {piece}");
        }
    }
    block
}

/// `line` cut every `width` characters (the client's own SGR sequences copied without
/// being counted), or whole without a width.
#[cfg(feature = "url")]
fn pieces(line: &str, width: Option<usize>) -> Vec<String> {
    let Some(width) = width else {
        return vec![line.to_owned()];
    };
    let mut pieces = Vec::new();
    let mut piece = String::new();
    let mut count = 0;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            piece.push(c);
            for d in chars.by_ref() {
                piece.push(d);
                if d == 'm' {
                    break;
                }
            }
            continue;
        }
        if count == width {
            pieces.push(std::mem::take(&mut piece));
            count = 0;
        }
        piece.push(c);
        count += 1;
    }
    pieces.push(piece);
    pieces
}

/// The host split before its registrable domain, to emphasise the domain
/// ([S4](crate::rules#s4)): `("login.", "example.com")`; the whole host when it has no
/// registrable domain (an IP address, `localhost`).
#[cfg(feature = "url")]
pub(crate) fn host_parts<'h>(host: &'h str, domain: Option<&str>) -> (&'h str, &'h str) {
    match domain.and_then(|d| {
        let start = host.len().checked_sub(d.len())?;
        (host.get(start..)? == d && (start == 0 || host[..start].ends_with('.')))
            .then(|| host.split_at(start))
    }) {
        Some(parts) => parts,
        None => ("", host),
    }
}

/// What a field takes, in words, for a help line: its kind, format and bounds
/// ("a whole number from 0 to 5", "an email address", "any of the options, from 1 to 2
/// of them"). Agent text in it (a `pattern`) is not neutralised: show it through
/// [`plain`].
pub fn field_hint(field: &crate::client::FormField<'_>) -> String {
    use crate::schema::PropertyKind;
    use std::fmt::Write as _;
    let property = field.property();
    match property.schema().kind() {
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
                let _ = write!(hint, " matching /{}/", pattern.source());
            }
            hint
        }
        PropertyKind::Integer(n) => {
            format!("a whole number{}", range("", n.minimum, n.maximum, ""))
        }
        PropertyKind::Number(n) => format!("a number{}", range("", n.minimum, n.maximum, "")),
        PropertyKind::Boolean(_) => "yes or no".to_owned(),
        PropertyKind::SingleSelect(_) => "one option".to_owned(),
        PropertyKind::MultiSelect(m) => format!(
            "any of the options{}",
            range(",", m.min_items, m.max_items, " of them")
        ),
        // The engine refuses forms with unknown types (E6): never asked.
        PropertyKind::Unknown(_) => String::new(),
    }
}

/// ` from 1 to 5`, ` at least 1`, ` at most 5` or nothing, between `lead` and `unit`.
fn range<T: std::fmt::Display>(lead: &str, min: Option<T>, max: Option<T>, unit: &str) -> String {
    match (min, max) {
        (Some(min), Some(max)) => format!("{lead} from {min} to {max}{unit}"),
        (Some(min), None) => format!("{lead} at least {min}{unit}"),
        (None, Some(max)) => format!("{lead} at most {max}{unit}"),
        (None, None) => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::client::AgentIdentity;

    // covers: S5
    #[test]
    fn control_sequences_never_act() {
        // CSI (7-bit and 8-bit), OSC (window title) ended by BEL or ST, DCS, C1, DEL.
        let cases = [
            ("\u{1b}[8mhidden", "<U+001B>[8mhidden"),
            ("\u{1b}[2J\u{1b}[H", "<U+001B>[2J<U+001B>[H"),
            ("\u{9b}31m", "<U+009B>31m"),
            ("\u{1b}]0;title\u{7}", "<U+001B>]0;title<U+0007>"),
            ("\u{9d}0;title\u{9c}", "<U+009D>0;title<U+009C>"),
            ("\u{1b}P1$r\u{1b}\\", "<U+001B>P1$r<U+001B>\\"),
            ("a\u{7f}b\u{8}c\u{0}", "a<U+007F>b<U+0008>c<U+0000>"),
            ("\u{85}", ""),
        ];
        for (hostile, shown) in cases {
            assert_eq!(plain(hostile).as_str(), shown, "{hostile:?}");
            assert!(!plain(hostile).as_str().chars().any(char::is_control));
        }
        // NEL is white space: collapsed in prose, shown in a value.
        assert_eq!(verbatim("\u{85}").as_str(), "<U+0085>");
    }

    // covers: S5
    #[test]
    fn line_breaks_and_padding_collapse_in_prose() {
        assert_eq!(
            plain("Sign in.\n\n   Address: x\r\n\tSite:\u{b}\u{c}y").as_str(),
            "Sign in. Address: x Site: y"
        );
        // Unicode line and paragraph separators, no-break and typographic spaces.
        assert_eq!(
            plain("a\u{2028}b\u{2029}c\u{a0}\u{a0}d\u{2003}e\u{3000}f\u{1680}g").as_str(),
            "a b c d e f g"
        );
        // Space-padding to a column is gone, and nothing is left at either end.
        assert_eq!(
            plain(format!("  msg{}Address: evil  ", " ".repeat(90))).as_str(),
            "msg Address: evil"
        );
        assert_eq!(plain(" \n\t ").as_str(), "");
        // A value keeps its spaces and shows every other white space character.
        assert_eq!(
            verbatim(" a  b\r\n\u{2028}\u{a0}").as_str(),
            " a  b<U+000D><U+000A><U+2028><U+00A0>"
        );
    }

    // covers: S4, S5
    #[test]
    fn bidi_and_invisible_characters_are_shown() {
        assert_eq!(
            plain("a\u{202e}b\u{2066}c\u{200f}d\u{61c}").as_str(),
            "a<U+202E>b<U+2066>c<U+200F>d<U+061C>"
        );
        assert_eq!(
            plain("git\u{200b}hub\u{200d}\u{2060}\u{feff}\u{ad}").as_str(),
            "git<U+200B>hub<U+200D><U+2060><U+FEFF><U+00AD>"
        );
        // TAG characters ("ASCII smuggling") and supplementary variation selectors.
        assert_eq!(
            plain("ok\u{e0001}\u{e0068}\u{e0069}\u{e007f}").as_str(),
            "ok<U+E0001><U+E0068><U+E0069><U+E007F>"
        );
        assert_eq!(plain("x\u{e0100}\u{fe00}").as_str(), "x<U+E0100><U+FE00>");
        assert_eq!(
            plain("\u{3164}\u{115f}\u{2800}").as_str(),
            "<U+3164><U+115F><U+2800>"
        );
        // Every character of the URL review's list is shown, whatever its context.
        for c in (0..=0x10FFFFu32).filter_map(char::from_u32) {
            if (is_invisible(c) || is_bidi_control(c)) && !c.is_whitespace() {
                let shown = plain(format!("a{c}b")).to_string();
                assert!(
                    shown.contains(&format!("<U+{:04X}>", u32::from(c))) || c == '\u{FE0F}',
                    "{c:?} -> {shown}"
                );
            }
        }
    }

    // covers: S5
    #[test]
    fn one_emoji_presentation_selector_is_kept() {
        assert_eq!(
            plain("\u{26a0}\u{fe0f} careful").as_str(),
            "\u{26a0}\u{fe0f} careful"
        );
        // A second one in a row, or one with nothing visible before it, is shown.
        assert_eq!(
            plain("\u{26a0}\u{fe0f}\u{fe0f}").as_str(),
            "\u{26a0}\u{fe0f}<U+FE0F>"
        );
        assert_eq!(plain("\u{fe0f}x").as_str(), "<U+FE0F>x");
        assert_eq!(plain("\u{200b}\u{fe0f}").as_str(), "<U+200B><U+FE0F>");
        assert_eq!(plain("a \u{fe0f}").as_str(), "a <U+FE0F>");
    }

    // covers: K3
    #[test]
    fn the_trusted_mark_and_its_look_alikes_are_never_agent_text() {
        assert_eq!(
            plain("┃ Address: https://good.example").as_str(),
            "<U+2503> Address: https://good.example"
        );
        assert_eq!(
            plain("│▌▐─╿").as_str(),
            "<U+2502><U+258C><U+2590><U+2500><U+257F>"
        );
        for c in '\u{2500}'..='\u{259F}' {
            assert!(!plain(c).as_str().contains(c));
            assert!(!verbatim(c).as_str().contains(c));
            assert!(!bounded(c, 3).as_str().contains(c));
        }
        // Just outside the ranges: shown as themselves.
        assert_eq!(plain("\u{24FF}\u{25A0}").as_str(), "\u{24FF}\u{25A0}");
    }

    // covers: K4
    #[test]
    fn bounded_text_is_cut_and_says_how_much() {
        assert_eq!(bounded("abc", 3).as_str(), "abc");
        assert_eq!(
            bounded("abcd", 3).as_str(),
            "abc… (1 more character not shown)"
        );
        // An escape counts for its length, and is never cut in the middle.
        assert_eq!(
            bounded("ab\u{1b}cd", 5).as_str(),
            "ab… (3 more characters not shown)"
        );
        // Collapsed white space is not counted as left out.
        assert_eq!(
            bounded(format!("a{}b", " ".repeat(500)), 1).as_str(),
            "a… (1 more character not shown)"
        );
        let long = bounded("word ".repeat(1000), MAX_MESSAGE_CHARS).to_string();
        assert!(long.chars().count() < MAX_MESSAGE_CHARS + 40, "{long}");
        assert!(long.ends_with("more characters not shown)"), "{long}");
        assert_eq!(bounded("", 0).as_str(), "");
        assert_eq!(bounded("x", 0).as_str(), "… (1 more character not shown)");
        // Letters of every script and emoji are kept as they are.
        assert_eq!(
            plain("Café – 東京 ✅ مرحبا").as_str(),
            "Café – 東京 ✅ مرحبا"
        );
    }

    // covers: K1, K4
    #[test]
    fn the_intro_bounds_the_agent_and_its_message() {
        let agent = AgentIdentity::new("n".repeat(300)).with_title("Bot\u{1b}]0;x\u{7}");
        let message = format!("{}\n  Address: https://good.example", "pad ".repeat(200));
        let scope = Scope::Session {
            session_id: "s\n1".into(),
            tool_call_id: Some("t\u{202e}".into()),
        };
        let intro = Intro {
            agent: &agent,
            message: &message,
            scope: Some(&scope),
        };
        let line = intro_line(&intro);
        assert!(!line.contains('\n') && !line.contains('\u{1b}'), "{line}");
        assert!(line.starts_with("Bot<U+001B>]0;x<U+0007> (nnnn"), "{line}");
        assert!(line.contains("not shown) asks: pad pad"), "{line}");
        assert!(!line.contains("Address"), "{line}");
        assert!(
            line.ends_with("not shown) (session s 1, tool call t<U+202E>)"),
            "{line}"
        );
        assert!(line.chars().count() < MAX_NAME_CHARS + MAX_MESSAGE_CHARS + 150);
    }

    /// Whether `text` could act on or hide from a terminal: a character that does not
    /// show as itself, except one U+FE0F after another character.
    fn unsafe_at(text: &str) -> Option<char> {
        let mut previous = None;
        for c in text.chars() {
            let allowed = c == '\u{FE0F}' && previous.is_some_and(|p| p != '\u{FE0F}');
            if !shows_as_itself(c) && !allowed {
                return Some(c);
            }
            previous = Some(c);
        }
        None
    }

    // covers: S5, K4
    #[test]
    fn random_hostile_text_never_reaches_the_terminal() {
        // Every class of character, mixed at random (xorshift, fixed seed: the same
        // 10,000 texts each run).
        let alphabet: Vec<char> = "aZ9 .-:[]<>+U\u{e9}\u{6771}\u{2705}\u{26a0}"
            .chars()
            .chain([
                '\u{0}', '\u{7}', '\u{8}', '\t', '\n', '\r', '\u{b}', '\u{c}', '\u{1b}',
            ])
            .chain([
                '\u{7f}', '\u{85}', '\u{9b}', '\u{9c}', '\u{9d}', '\u{a0}', '\u{ad}',
            ])
            .chain([
                '\u{200b}', '\u{200d}', '\u{200e}', '\u{2028}', '\u{2029}', '\u{202e}',
            ])
            .chain([
                '\u{2066}',
                '\u{3000}',
                '\u{fe0f}',
                '\u{feff}',
                '\u{e0041}',
                '\u{e0100}',
            ])
            .chain(['\u{2502}', TRUSTED_MARK, '\u{2588}'])
            .collect();
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for _ in 0..10_000 {
            let len = (next() % 40) as usize;
            let text: String = (0..len)
                .map(|_| alphabet[(next() % alphabet.len() as u64) as usize])
                .collect();
            let prose = plain(&text).to_string();
            assert_eq!(unsafe_at(&prose), None, "{text:?} -> {prose:?}");
            assert!(
                !prose.contains("  ") && prose.trim() == prose,
                "{text:?} -> {prose:?}"
            );
            let value = verbatim(&text).to_string();
            assert_eq!(unsafe_at(&value), None, "{text:?} -> {value:?}");
            // Nothing but the escapes is added: the same text once they are read back
            // (unless the text itself spells an escape).
            if !text.contains("<U+") {
                let mut read_back = String::new();
                let mut rest = value.as_str();
                while let Some(at) = rest.find("<U+") {
                    read_back.push_str(&rest[..at]);
                    let end = rest[at..].find('>').expect("an escape ends") + at;
                    let code = u32::from_str_radix(&rest[at + 3..end], 16).expect("hex");
                    read_back.push(char::from_u32(code).expect("a char"));
                    rest = &rest[end + 1..];
                }
                read_back.push_str(rest);
                assert_eq!(read_back, text);
            }
            let max = (next() % 30) as usize;
            let short = bounded(&text, max).to_string();
            assert_eq!(unsafe_at(&short), None, "{text:?} -> {short:?}");
            match short.split_once("… (") {
                Some((kept, note)) if short != prose => {
                    assert!(kept.chars().count() <= max, "{max}: {short:?}");
                    assert!(prose.starts_with(kept), "{prose:?} / {short:?}");
                    assert!(note.ends_with(" not shown)"), "{short:?}");
                }
                _ => assert_eq!(short, prose, "{max}: {text:?}"),
            }
        }
    }

    // covers: K1, K4
    #[test]
    fn every_scope_is_shown_bounded() {
        let agent = AgentIdentity::new("bot").with_version("1.0");
        let intro = |scope: Option<&Scope>| {
            intro_line(&Intro {
                agent: &agent,
                message: "Go?",
                scope,
            })
        };
        assert_eq!(intro(None), "bot 1.0 asks: Go?");
        assert_eq!(
            intro(Some(&Scope::session("s\u{1b}1"))),
            "bot 1.0 asks: Go? (session s<U+001B>1)"
        );
        let request = Scope::Request {
            request_id: serde_json::from_value(serde_json::json!("r\u{202e}7"))
                .expect("a request id"),
        };
        assert_eq!(
            intro(Some(&request)),
            "bot 1.0 asks: Go? (before any session: request \"r<U+202E>7\")"
        );
    }

    // covers: S5
    #[test]
    fn what_shows_as_itself() {
        for c in ['a', 'é', ' ', '東', '✅', '-', '"'] {
            assert!(shows_as_itself(c), "{c:?}");
        }
        for c in [
            '\u{1b}', '\u{9b}', '\u{7f}', '\t', '\n', '\u{a0}', '\u{2028}', '\u{202e}',
        ]
        .into_iter()
        .chain(['\u{200b}', '\u{e0041}', '\u{fe0f}', TRUSTED_MARK])
        {
            assert!(!shows_as_itself(c), "{c:?}");
        }
    }

    // covers: S5 (a value shows every white space but the space, including those that
    // are neither control nor invisible characters: typographic and ideographic spaces)
    #[test]
    fn a_value_shows_every_white_space_but_the_space() {
        assert_eq!(
            verbatim("a\u{2003}b\u{3000}c\u{1680}d\u{2009}e f").as_str(),
            "a<U+2003>b<U+3000>c<U+1680>d<U+2009>e f"
        );
        for c in ['\u{2003}', '\u{3000}', '\u{1680}', '\u{2009}', '\u{205f}'] {
            assert!(!shows_as_itself(c), "{c:?}");
        }
        // In prose the same characters are one space, as any white space.
        assert_eq!(plain("a\u{2003}\u{3000}b").as_str(), "a b");
    }

    // covers: K2, F2 (the help line says what each kind of field takes, bounds included)
    #[test]
    fn the_hint_says_what_each_field_takes() {
        let schema = crate::schema::RequestedSchema::from_json(&serde_json::json!({
            "type": "object",
            "properties": {
                "text": { "type": "string" },
                "bounded": { "type": "string", "minLength": 2, "maxLength": 8, "pattern": "^[a-z]+$" },
                "short": { "type": "string", "maxLength": 8 },
                "email": { "type": "string", "format": "email" },
                "uri": { "type": "string", "format": "uri" },
                "date": { "type": "string", "format": "date" },
                "when": { "type": "string", "format": "date-time" },
                "count": { "type": "integer", "minimum": 0, "maximum": 5 },
                "at_least": { "type": "integer", "minimum": 1 },
                "ratio": { "type": "number", "maximum": 1.5 },
                "free": { "type": "number" },
                "ok": { "type": "boolean" },
                "tier": { "type": "string", "enum": ["s", "l"] },
                "tags": { "type": "array", "minItems": 1, "maxItems": 2,
                          "items": { "type": "string", "enum": ["a", "b", "c"] } },
                "any": { "type": "array", "items": { "type": "string", "enum": ["a", "b"] } }
            }
        }))
        .expect("a valid schema");
        let form = crate::client::FormEngine::new(&schema, AgentIdentity::new("bot"), "Hi")
            .expect("renderable");
        let hints: Vec<(String, String)> = form
            .fields()
            .map(|field| (field.name().to_owned(), field_hint(&field)))
            .collect();
        let expected = [
            ("text", "text"),
            (
                "bounded",
                "text, from 2 to 8 characters matching /^[a-z]+$/",
            ),
            ("short", "text, at most 8 characters"),
            ("email", "an email address"),
            ("uri", "an absolute URI, such as https://example.com/"),
            ("date", "a date, YYYY-MM-DD"),
            ("when", "a date and time, such as 2025-01-31T09:30:00Z"),
            ("count", "a whole number from 0 to 5"),
            ("at_least", "a whole number at least 1"),
            ("ratio", "a number at most 1.5"),
            ("free", "a number"),
            ("ok", "yes or no"),
            ("tier", "one option"),
            ("tags", "any of the options, from 1 to 2 of them"),
            ("any", "any of the options"),
        ];
        let expected: Vec<(String, String)> = expected
            .iter()
            .map(|(name, hint)| ((*name).to_owned(), (*hint).to_owned()))
            .collect();
        assert_eq!(hints, expected);
    }

    // covers: S2, S4, K3
    #[cfg(feature = "url")]
    #[test]
    fn the_consent_block_marks_every_line() {
        let review = crate::client::UrlReview::new("https://login.xn--80ak6aa92e.com/connect")
            .expect("reviewable");
        let block = url_consent(&review, false, None);
        for line in block.lines() {
            assert!(line.starts_with("┃ "), "{block}");
        }
        assert!(block.contains("┃ Address: https://login.xn--80ak6aa92e.com/connect\n"));
        assert!(block.contains(
            "┃ Site:    login.[аррӏе.com] (written login.xn--80ak6aa92e.com)\n┃ Warnings:\n┃ ! "
        ));
        let styled = url_consent(&review, true, None);
        assert!(
            styled.contains("login.\u{1b}[1;4m[аррӏе.com]\u{1b}[0m"),
            "{styled}"
        );
        // At a known width every piece of every line is marked and fits.
        for columns in [30, 60, 100] {
            let narrow = url_consent(&review, true, Some(columns));
            for line in narrow.lines() {
                assert!(line.starts_with("┃ "), "{narrow}");
                let visible = line.replace("\u{1b}[1;4m", "").replace("\u{1b}[0m", "");
                assert!(visible.chars().count() <= columns, "{columns}: {line}");
            }
            let joined: String = narrow.lines().map(|l| l.trim_start_matches("┃ ")).collect();
            let whole: String = styled.lines().map(|l| l.trim_start_matches("┃ ")).collect();
            assert_eq!(joined, whole, "nothing lost or added at {columns}");
        }
        assert_eq!(pieces("abcdef", Some(2)), ["ab", "cd", "ef"]);
        assert_eq!(pieces("ab\u{1b}[1mcd", Some(2)), ["ab\u{1b}[1m", "cd"]);
        assert_eq!(pieces("", Some(5)), [""]);
        // Below 22 columns the pieces stay 20 wide.
        let tiny = url_consent(&review, false, Some(3));
        assert!(tiny.lines().all(|l| l.chars().count() <= 22), "{tiny}");
        assert!(tiny.lines().any(|l| l.chars().count() == 22), "{tiny}");
        assert_eq!(
            host_parts("paypa1.com.example-login.com", Some("example-login.com")),
            ("paypa1.com.", "example-login.com")
        );
        assert_eq!(
            host_parts("example.com", Some("example.com")),
            ("", "example.com")
        );
        assert_eq!(host_parts("127.0.0.1", None), ("", "127.0.0.1"));
        assert_eq!(
            host_parts("notexample.com", Some("example.com")),
            ("", "notexample.com")
        );
    }
}
