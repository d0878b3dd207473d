//! `compile_pattern` against its oracles (V4, D8): the JSON Schema Test Suite's `pattern`,
//! ECMA-262 and non-BMP cases and its `format: regex` cases, then the `jsonschema` crate on
//! patterns both accept.

use crate::common;

use common::formats::{reference, suite_file, Rng};
use elicit::schema::{Pattern, PatternError};
use serde_json::{json, Value};

/// A pattern compiled by the crate's public API, as a client's schema would hold it.
struct Compiled(Pattern);

impl Compiled {
    fn is_match(&self, text: &str) -> bool {
        self.0.is_match(text).expect("`Pattern::new` compiled it")
    }
}

fn compile(source: &str) -> Result<Compiled, PatternError> {
    Pattern::new(source.to_owned()).map(Compiled)
}

/// Whether `data` is valid against a suite schema built from `pattern` and
/// `patternProperties` (with `additionalProperties` and `type`, the only other keywords
/// those groups use), matching with our compiled patterns.
fn evaluate(schema: &Value, data: &Value, compiled: &[(String, Compiled)]) -> bool {
    if let Some(kind) = schema.get("type").and_then(Value::as_str) {
        let ok = match kind {
            "string" => data.is_string(),
            "object" => data.is_object(),
            "integer" => data.as_f64().is_some_and(|n| n.fract() == 0.0),
            other => panic!("type {other} not used by these groups"),
        };
        if !ok {
            return false;
        }
    }
    if schema.get("pattern").is_some() {
        if let Value::String(text) = data {
            return compiled[0].1.is_match(text);
        }
        return true;
    }
    let Some(properties) = schema.get("patternProperties").and_then(Value::as_object) else {
        return true;
    };
    let Value::Object(object) = data else {
        return true;
    };
    let closed = schema.get("additionalProperties") == Some(&Value::Bool(false));
    object.iter().all(|(key, value)| {
        let mut matched = false;
        for (source, regex) in compiled {
            if regex.is_match(key) {
                matched = true;
                if !evaluate(&properties[source.as_str()], value, &[]) {
                    return false;
                }
            }
        }
        matched || !closed
    })
}

#[test]
fn suite_pattern_cases_agree() {
    // covers: V4, D8
    let mut accepted_patterns = 0;
    let mut checked = 0;
    let mut jsonschema_checked = 0;
    let mut failures = Vec::new();
    let mut refused = Vec::new();
    for file in [
        "pattern.json",
        "optional/ecmascript-regex.json",
        "optional/non-bmp-regex.json",
    ] {
        for group in suite_file(file) {
            let schema = &group["schema"];
            let sources: Vec<String> =
                match (schema.get("pattern"), schema.get("patternProperties")) {
                    (Some(Value::String(source)), _) => vec![source.clone()],
                    (_, Some(Value::Object(properties))) => properties.keys().cloned().collect(),
                    _ => panic!("group {} has no pattern", group["description"]),
                };
            let mut compiled = Vec::new();
            for source in &sources {
                match compile(source) {
                    Ok(regex) => compiled.push((source.clone(), regex)),
                    Err(error) => refused.push(format!("{file}: {source:?}: {error}")),
                }
            }
            if compiled.len() != sources.len() {
                continue;
            }
            accepted_patterns += 1;
            let theirs = reference(schema);
            for case in group["tests"].as_array().into_iter().flatten() {
                let data = &case["data"];
                let expected = case["valid"].as_bool().expect("`valid` is a boolean");
                let ours = evaluate(schema, data, &compiled);
                checked += 1;
                if ours != expected {
                    failures.push(format!(
                        "{file}: {sources:?} on {data}: suite {expected}, ours {ours}"
                    ));
                }
                if let Some(validator) = &theirs {
                    jsonschema_checked += 1;
                    if validator.is_valid(data) != ours {
                        failures.push(format!("{file}: {sources:?} on {data}: jsonschema differs"));
                    }
                }
            }
        }
    }
    eprintln!(
        "pattern suite: {accepted_patterns} groups accepted, {checked} cases checked \
         ({jsonschema_checked} also against jsonschema), {} refused, {} disagreeing",
        refused.len(),
        failures.len()
    );
    assert!(refused.is_empty(), "{refused:#?}");
    assert!(failures.is_empty(), "{failures:#?}");
}

#[test]
fn suite_regex_format_cases_agree() {
    // covers: V4, D8
    let mut checked = 0;
    for group in suite_file("optional/format/regex.json") {
        for case in group["tests"].as_array().into_iter().flatten() {
            let Value::String(source) = &case["data"] else {
                continue;
            };
            let expected = case["valid"].as_bool().expect("`valid` is a boolean");
            // A valid ECMA-262 pattern is either compiled or refused as unsupported.
            let ours = match compile(source) {
                Ok(_) => true,
                Err(error) => error.is_unsupported(),
            };
            assert_eq!(ours, expected, "{source:?}");
            checked += 1;
        }
    }
    eprintln!("format regex suite: {checked} string cases checked");
}

/// Texts every corpus pattern is tried on: ASCII, line terminators, ECMA white space,
/// non-ASCII digits and letters, the two characters that case-fold into ASCII, astral
/// characters.
const TEXTS: &[&str] = &[
    "",
    "a",
    "A",
    "abc",
    "ABC",
    "aBc",
    "abc\n",
    "\nabc",
    "a\nb",
    "a\rb",
    "a\r\nb",
    "a\u{2028}b",
    "a\u{2029}b",
    "0",
    "42",
    "4a2",
    "\u{0660}",
    "\u{09ea}\u{09e8}",
    "_",
    "-",
    " ",
    "\t",
    "\u{0b}",
    "\u{0c}",
    "\u{a0}",
    "\u{feff}",
    "\u{2003}",
    "\u{85}",
    "\u{180e}",
    "é",
    "É",
    "école",
    "ſ",
    "\u{212a}",
    "k",
    "K",
    "s",
    "S",
    "ß",
    "ẞ",
    "π",
    "Π",
    "\u{1f432}",
    "\u{1f409}",
    "x\u{1f432}y",
    "{",
    "}",
    "[",
    "]",
    "(",
    ")",
    "\\",
    "/",
    "^",
    "$",
    ".",
    "*",
    "+",
    "?",
    "|",
    "\0",
    "\u{1}",
    "\u{3}",
    "\u{8}",
    "foo bar",
    "foobar",
    "a foo b",
    "éfooé",
    "_foo_",
    "user@example.com",
    "2024-01-31",
    "555-1234",
    "Hello World",
    "hello",
    "HELLO",
    "aaaa",
    "abab",
    "ab-cd",
    "\u{10ffff}",
    "\u{e000}",
    "\u{d7ff}",
    "\u{ffff}",
    "ǅ",
    "ǆ",
    "Ǆ",
];

/// Patterns valid in ECMA-262 unicode mode (with the identity-escape widening), chosen to
/// cover each translation rule.
const CORPUS: &[&str] = &[
    "",
    "a",
    "abc",
    "^abc$",
    "^a*$",
    "a+",
    "a?b",
    "a{2}",
    "a{2,}",
    "a{1,3}",
    "a{0}",
    "a*?",
    "a{2,3}?",
    "^$",
    "^",
    "$",
    "a|b",
    "a|",
    "|",
    "(a)",
    "(?:a)",
    "(?<n>a)",
    "()",
    "(?:)",
    ".",
    "^.$",
    "^.+$",
    "[abc]",
    "[^abc]",
    "[a-z]",
    "[^a-z]",
    "[]",
    "[^]",
    "^[^]$",
    "[-a]",
    "[a-]",
    "[a-c-e]",
    "[--a]",
    "[\\d-]",
    "[[]",
    "[a[]",
    "[\\]]",
    "[\\-]",
    "[&&]",
    "[~~]",
    "[\\b]",
    "\\d",
    "\\D",
    "\\w",
    "\\W",
    "\\s",
    "\\S",
    "^\\d+$",
    "^\\w+$",
    "^\\s$",
    "^\\S$",
    "[\\d]",
    "[\\D]",
    "[\\s]",
    "[\\S]",
    "[\\w]",
    "[\\W]",
    "[^\\d]",
    "[^\\D]",
    "[^\\W]",
    "[^\\S]",
    "\\bfoo\\b",
    "\\Bfoo",
    "foo\\B",
    "\\b",
    "\\B",
    "\\p{L}",
    "\\p{Letter}",
    "\\p{Lu}",
    "\\P{Lu}",
    "\\p{Ll}",
    "\\p{gc=Lu}",
    "\\p{General_Category=Decimal_Number}",
    "\\p{digit}",
    "\\p{Nd}",
    "^\\p{Letter}+$",
    "\\p{Script=Greek}",
    "\\p{sc=Grek}",
    "\\p{scx=Grek}",
    "\\p{Script_Extensions=Latin}",
    "\\p{ASCII}",
    "\\p{Any}",
    "\\p{Assigned}",
    "\\p{Alphabetic}",
    "\\p{White_Space}",
    "\\p{space}",
    "[\\p{L}\\p{N}]",
    "[^\\p{L}]",
    "[\\P{L}]",
    "\\p{Lt}",
    "\\p{LC}",
    "\\p{Cs}",
    "\\P{Cs}",
    "\\p{sc=Hrkt}",
    "\\t",
    "\\n",
    "\\r",
    "\\v",
    "\\f",
    "\\0",
    "\\cA",
    "\\cc",
    "[\\cA]",
    "\\x41",
    "\\u0041",
    "\\u{41}",
    "\\u{1F432}",
    "\\ud83d\\udc32",
    "\\uD83D",
    "[\\uD800-\\uDFFF]",
    "[\\u0000-\\uFFFF]",
    "[\\u{0}-\\u{10FFFF}]",
    "^\\uD83D\\uDC32*$",
    "\\/",
    "\\-",
    "\\@",
    "\\#",
    "\\_",
    "\\ ",
    "\\.",
    "\\*",
    "\\\\",
    "\\^",
    "\\$",
    "\\{",
    "\\}",
    "\\[",
    "\\]",
    "\\(",
    "\\)",
    "\\|",
    "\\?",
    "\\+",
    "a\\{2\\}",
    "(?i:a)",
    "(?i:abc)",
    "(?i:k)",
    "(?i:s)",
    "(?i:ß)",
    "(?i:\\w)",
    "(?i:\\W)",
    "(?i:[^k])",
    "(?i:[a-z])",
    "(?i:\\p{Lu})",
    "(?i:\\P{Lu})",
    "(?i:\\P{Ll})",
    "(?i:[\\P{Ll}])",
    "(?i:[^\\P{Ll}])",
    "(?-i:a)",
    "(?i:a(?-i:b))",
    "(?s:.)",
    "(?s:^.$)",
    "(?-s:.)",
    "(?m:a)",
    "(?i-s:a.)",
    "(?<a>x)|(?<a>y)",
    "(?:(?<a>x)|(?<a>y))z",
    "^(?<year>\\d{4})-(?<month>\\d{2})$",
    "(?<$>a)",
    "(?<_a1>a)",
    "(?<\\u0061>a)",
    "(?<é>a)",
    "^[a-z0-9._%+-]+@[a-z0-9.-]+\\.[a-z]{2,}$",
    "^\\d{3}-\\d{4}$",
    "^[A-Z][a-z]+(?: [A-Z][a-z]+)*$",
    "^(\\([0-9]{3}\\))?[0-9]{3}-[0-9]{4}$",
    "^[^\\s@]+@[^\\s@]+$",
    "\\p{Letter}cole",
    "\\wcole",
    "[a-z]cole",
    "^\u{1f432}*$",
    "^(?:a|b)+$",
    "^(a|ab)(c|bcd)(d*)$",
    "a{0,0}",
    "(?:a*)*",
    "(?:a?)+b",
    "x*y+z?",
];

/// Disagreements with `jsonschema` where ECMA-262 is on our side, with the reason; any
/// other disagreement fails the test.
fn known_jsonschema_difference(pattern: &str) -> Option<&'static str> {
    Some(match pattern {
        p if p.contains("\\b") || p.contains("\\B") => {
            "jsonschema keeps `regex`'s Unicode `\\b`/`\\B`; ECMA's are ASCII"
        }
        p if p.contains("(?i:") && (p.contains("\\P{") || p.contains("[^")) => {
            "jsonschema folds before complementing `\\P{…}`; ECMA complements first"
        }
        _ => return None,
    })
}

#[test]
fn corpus_agrees_with_jsonschema() {
    // covers: V4, D8
    let mut compared = 0;
    let mut both_accept = 0;
    let mut only_ours = Vec::new();
    let mut unexplained = Vec::new();
    let mut explained = Vec::new();
    for &source in CORPUS {
        let ours = match compile(source) {
            Ok(regex) => regex,
            Err(error) => panic!("corpus pattern {source:?} refused: {error}"),
        };
        let Some(theirs) = reference(&json!({ "pattern": source })) else {
            only_ours.push(source);
            continue;
        };
        both_accept += 1;
        for &text in TEXTS {
            compared += 1;
            if ours.is_match(text) != theirs.is_valid(&json!(text)) {
                let line = format!("{source:?} on {text:?}: ours {}", ours.is_match(text));
                match known_jsonschema_difference(source) {
                    Some(reason) => explained.push((reason, line)),
                    None => unexplained.push(line),
                }
            }
        }
    }
    eprintln!(
        "corpus: {} patterns, {both_accept} accepted by both, {compared} matches compared, \
         {} explained differences, {} unexplained; jsonschema refuses {:?}",
        CORPUS.len(),
        explained.len(),
        unexplained.len(),
        only_ours
    );
    let mut reasons: Vec<(&str, usize, &str)> = Vec::new();
    for (reason, line) in &explained {
        match reasons.iter_mut().find(|(known, ..)| known == reason) {
            Some((_, count, _)) => *count += 1,
            None => reasons.push((reason, 1, line)),
        }
    }
    for (reason, count, example) in reasons {
        eprintln!("  {count} differences because {reason}; e.g. {example}");
    }
    assert!(unexplained.is_empty(), "{unexplained:#?}");
}

/// Random patterns from a small grammar: where both engines accept one, they must agree
/// on every text.
#[test]
fn generated_patterns_agree_with_jsonschema() {
    // covers: V4
    let atoms = [
        "a",
        "b",
        "k",
        "s",
        "é",
        ".",
        "\\d",
        "\\D",
        "\\w",
        "\\W",
        "\\s",
        "\\S",
        "[a-c]",
        "[^a]",
        "[\\d_]",
        "[^\\s]",
        "\\p{L}",
        "\\p{Lu}",
        "\\P{Ll}",
        "\\-",
        "\\.",
        "\\u0041",
        "\\x2d",
        "\\u{1F432}",
        "\u{1f432}",
        "[-]",
        "[\\-a]",
        "\\t",
        "\\n",
        "(?:ab)",
        "(a|b)",
    ];
    let quantifiers = ["", "", "", "*", "+", "?", "{2}", "{1,2}", "{0,}", "*?"];
    let mut rng = Rng::new(23);
    let mut generated = 0;
    let mut both_accept = 0;
    let mut failures = Vec::new();
    for _ in 0..1_500 {
        let mut source = String::new();
        if rng.below(3) == 0 {
            source.push('^');
        }
        for _ in 0..=rng.below(4) {
            let atom = *rng.pick::<&str>(&atoms);
            source.push_str(atom);
            let quantifier = *rng.pick::<&str>(&quantifiers);
            source.push_str(quantifier);
            if rng.below(8) == 0 {
                source.push('|');
            }
        }
        if rng.below(3) == 0 {
            source.push('$');
        }
        generated += 1;
        let (Ok(ours), Some(theirs)) = (compile(&source), reference(&json!({ "pattern": source })))
        else {
            continue;
        };
        both_accept += 1;
        for &text in TEXTS {
            if ours.is_match(text) != theirs.is_valid(&json!(text)) {
                failures.push(format!(
                    "{source:?} on {text:?}: ours {}",
                    ours.is_match(text)
                ));
            }
        }
    }
    eprintln!(
        "generated: {generated} patterns, {both_accept} accepted by both, {} disagreeing",
        failures.len()
    );
    assert!(failures.is_empty(), "{failures:#?}");
}
