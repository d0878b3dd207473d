//! Agent text made safe to draw, wrapped to a width, and the words the widgets say
//! about a field.

use std::fmt::Display;

use unicode_width::UnicodeWidthChar;

use crate::client::{FieldError, FieldErrorKind, FormField};

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

/// What a field takes, in words: the terminal asker's own text
/// ([`field_hint`](crate::client::terminal_text::field_hint)). Holds agent text (a
/// `pattern`): neutralise it.
pub(crate) fn hint(field: &FormField<'_>) -> String {
    crate::client::terminal_text::field_hint(field)
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
