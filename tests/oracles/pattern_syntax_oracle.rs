//! Which patterns `compile_pattern` reads as ECMA-262 (compiled, or refused only as
//! unsupported) against `jsonschema`'s own ECMA-262 syntax check (`format: regex`, the
//! same unicode-mode grammar widened by identity escapes), on generated patterns. Also
//! that no input panics and every error is one line.

use crate::common;

use common::formats::{reference, Rng};
use elicit::schema::Pattern;
use serde_json::json;

#[test]
fn syntax_verdicts_agree_with_jsonschema() {
    // covers: V4, D8
    let format_regex = reference(&json!({ "format": "regex" })).expect("schema builds");
    let pieces = [
        "a",
        "b",
        "é",
        "\u{1f432}",
        "\\",
        "(",
        ")",
        "[",
        "]",
        "{",
        "}",
        "|",
        "^",
        "$",
        ".",
        "*",
        "+",
        "?",
        "-",
        ",",
        "0",
        "1",
        "2",
        "9",
        ":",
        "=",
        "!",
        "<",
        ">",
        "k",
        "p",
        "P",
        "u",
        "x",
        "c",
        "d",
        "D",
        "w",
        "W",
        "s",
        "S",
        "b",
        "B",
        "_",
        "i",
        "m",
        "{1}",
        "{1,2}",
        "(?:",
        "(?<n>",
        "(?=",
        "(?<=",
        "\\p{L}",
        "\\p{Foo}",
        "\\u{41}",
        "\\uD83D",
        "\\k<n>",
        "\\1",
        "[a-z]",
        "(?i:",
        "(?-s:",
        "/",
        " ",
        "#",
        "@",
    ];
    let mut rng = Rng::new(29);
    let (mut valid, mut invalid, mut unsupported) = (0, 0, 0);
    let mut differences = Vec::new();
    for _ in 0..30_000 {
        let source: String = (0..=rng.below(6))
            .map(|_| *rng.pick::<&str>(&pieces))
            .collect();
        let ours = match Pattern::new(source.clone()) {
            Ok(_) => {
                valid += 1;
                true
            }
            Err(error) => {
                let text = error.to_string();
                assert!(
                    !text.contains('\n') && !text.is_empty(),
                    "{source:?}: {text}"
                );
                if error.is_unsupported() {
                    unsupported += 1;
                } else {
                    invalid += 1;
                }
                error.is_unsupported()
            }
        };
        if ours != format_regex.is_valid(&json!(source)) {
            differences.push((source, ours));
        }
    }
    // jsonschema checks `\p{…}` names for shape only; we check them against ECMA's tables.
    let unexplained: Vec<_> = differences
        .iter()
        .filter(|(source, ours)| *ours || !source.contains("\\p{Foo}"))
        .collect();
    eprintln!(
        "syntax: 30000 generated ({valid} compiled, {unsupported} unsupported, {invalid} \
         invalid); {} differ from jsonschema's format-regex check, {} of them not about \
         property names",
        differences.len(),
        unexplained.len()
    );
    assert!(unexplained.is_empty(), "{unexplained:#?}");
}
