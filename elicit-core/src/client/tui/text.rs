//! Agent text made safe to draw, wrapped to a width, and the words the widgets say
//! about a field.

use std::fmt::{Display, Write as _};

use unicode_width::UnicodeWidthChar;

use crate::client::{FieldError, FieldErrorKind, FormField};
use crate::schema::PropertyKind;

/// Agent text as plain text that changes nothing on screen but itself
/// ([S5](crate::rules#s5)): the shared terminal neutraliser,
/// [`terminal_text::verbatim`](crate::client::terminal_text::verbatim). A control
/// character (the start of an escape sequence, a carriage return, a tab), a
/// bidirectional control, an invisible character, or a box-drawing character that could
/// imitate the widgets' own marks is written `<U+XXXX>` instead of acting or hiding;
/// spaces are kept where they are.
pub(crate) fn neutralise(text: impl Display) -> String {
    crate::client::terminal_text::verbatim(text)
        .as_str()
        .to_owned()
}

/// Whether `c` acts on the terminal, reorders text, draws as nothing or imitates a
/// mark: what [`neutralise`] writes as `<U+XXXX>`.
pub(crate) fn is_hiding(c: char) -> bool {
    !crate::client::terminal_text::shows_as_itself(c)
}

/// Agent text that may hold paragraphs (a message, a description): each line of it
/// neutralised on its own, so a line break breaks the line inside the text's own
/// region and nothing else acts.
pub(crate) fn neutralise_lines(text: &str) -> Vec<String> {
    text.split('\n')
        .map(|line| neutralise(line.strip_suffix('\r').unwrap_or(line)))
        .collect()
}

/// How many columns `text` takes.
pub(crate) fn width(text: &str) -> usize {
    text.chars().map(|c| c.width().unwrap_or(0)).sum()
}

/// `text` cut into lines of at most `max` columns, between words where it can and
/// inside a word longer than a line; never empty (an empty text is one empty line).
pub(crate) fn wrap(text: &str, max: usize) -> Vec<String> {
    let max = max.max(1);
    let mut lines = Vec::new();
    let mut line = String::new();
    let mut used = 0;
    for word in text.split(' ') {
        let w = width(word);
        // The space before the word, when the line has something.
        let gap = usize::from(!line.is_empty());
        if used + gap + w <= max {
            if gap == 1 {
                line.push(' ');
            }
            line.push_str(word);
            used += gap + w;
            continue;
        }
        if !line.is_empty() {
            lines.push(std::mem::take(&mut line));
            used = 0;
        }
        if w <= max {
            line.push_str(word);
            used = w;
            continue;
        }
        // A word longer than a line (a URL, a token): broken where the line ends.
        for c in word.chars() {
            let cw = c.width().unwrap_or(0);
            if used + cw > max && !line.is_empty() {
                lines.push(std::mem::take(&mut line));
                used = 0;
            }
            line.push(c);
            used += cw;
        }
    }
    lines.push(line);
    lines
}

/// Why an answer was refused, for the line beside its field: the engine's reason
/// without the field's name (the field is right there).
pub(crate) fn problem_text(error: &FieldError) -> String {
    match &error.kind {
        FieldErrorKind::NotUnderstood { text, expected } => format!("{text:?} is not {expected}"),
        FieldErrorKind::NoSuchOption { text } => format!("{text:?} is not one of the options"),
        FieldErrorKind::Invalid(violations) if !violations.is_empty() => violations
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join("; "),
        _ => error.to_string(),
    }
}

/// What a field takes, in words: its kind, format and bounds ("a whole number from 1
/// to 5", "an email address", "any of the options, from 1 to 2 of them"). Holds agent
/// text (a `pattern`): neutralise it.
pub(crate) fn hint(field: &FormField<'_>) -> String {
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
        // The engine refuses forms with unknown types (E6): never shown.
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

#[cfg(test)]
mod tests {
    use super::*;

    // covers: S5
    #[test]
    fn hiding_characters_are_shown_as_code_points() {
        assert_eq!(
            neutralise("a\u{1b}[2Jb\u{202e}c\u{200b}d\u{e0041}\t"),
            "a<U+001B>[2Jb<U+202E>c<U+200B>d<U+E0041><U+0009>"
        );
        assert_eq!(neutralise("Café – 東京 ok"), "Café – 東京 ok");
        assert_eq!(neutralise_lines("one\r\ntwo\u{7}"), ["one", "two<U+0007>"]);
    }

    #[test]
    fn text_wraps_between_words_and_inside_long_ones() {
        assert_eq!(wrap("one two three", 7), ["one two", "three"]);
        assert_eq!(wrap("abcdefghij", 4), ["abcd", "efgh", "ij"]);
        assert_eq!(wrap("", 4), [""]);
        // Wide characters count two columns.
        assert_eq!(wrap("東京都", 4), ["東京", "都"]);
        assert_eq!(width("東京"), 4);
    }
}
