//! `Format::is_valid` against its oracles (V7): the JSON Schema Test Suite's optional
//! format tests, and the `jsonschema` crate (0.61, format assertion on) on the suite's
//! strings plus generated ones. Every disagreement fails the test and is listed.

use crate::common;

use common::formats::{reference, reference_format, suite_file, Rng};
use elicit::schema::Format;
use serde_json::{json, Value};

/// Compares `Format::is_valid` with `jsonschema` on every input, returning the
/// disagreements.
fn disagreements(format: Format, inputs: &[String]) -> Vec<String> {
    let validator =
        reference(&json!({ "format": format.name() })).expect("jsonschema builds a format schema");
    let valid = inputs.iter().filter(|input| format.is_valid(input)).count();
    eprintln!(
        "{}: {valid} of {} inputs valid",
        format.name(),
        inputs.len()
    );
    inputs
        .iter()
        .filter(|input| format.is_valid(input) != reference_format(&validator, input))
        .map(|input| {
            format!(
                "{} {input:?}: ours {}",
                format.name(),
                format.is_valid(input)
            )
        })
        .collect()
}

#[test]
fn suite_format_cases_agree() {
    // covers: V7
    let mut checked = 0;
    let mut failures = Vec::new();
    for format in Format::ALL {
        let validator = reference(&json!({ "format": format.name() })).expect("schema builds");
        for group in suite_file(&format!("optional/format/{}.json", format.name())) {
            for case in group["tests"].as_array().into_iter().flatten() {
                let Value::String(data) = &case["data"] else {
                    continue; // formats ignore non-strings; the typed layer checks types
                };
                let expected = case["valid"].as_bool().expect("`valid` is a boolean");
                let ours = format.is_valid(data);
                let theirs = reference_format(&validator, data);
                checked += 1;
                if ours != expected || ours != theirs {
                    failures.push(format!(
                        "{} {data:?} ({}): suite {expected}, jsonschema {theirs}, ours {ours}",
                        format.name(),
                        case["description"]
                    ));
                }
            }
        }
    }
    eprintln!(
        "format suite: {checked} string cases checked, {} disagreeing",
        failures.len()
    );
    assert!(failures.is_empty(), "{failures:#?}");
}

#[test]
fn dates_agree_with_jsonschema() {
    // covers: V7
    let mut inputs = Vec::new();
    for year in ["0000", "1900", "2000", "2023", "2024", "2100", "9999"] {
        for month in 0..=13 {
            for day in 0..=32 {
                inputs.push(format!("{year}-{month:02}-{day:02}"));
            }
        }
    }
    let alphabet: Vec<char> = "0123456789-/:.Tt +é\u{0660}".chars().collect();
    let mut rng = Rng::new(7);
    for _ in 0..20_000 {
        let seed = rng.pick(&inputs).clone();
        inputs.push(rng.mutate(&seed, &alphabet));
        inputs.push(rng.string(&alphabet, 8, 12));
    }
    // Bytes around the digits, in every position.
    for at in 0..10 {
        for c in ['/', ':', '0', '9', 'a', '\u{7f}', 'é'] {
            let mut chars: Vec<char> = "2024-02-29".chars().collect();
            chars[at] = c;
            inputs.push(chars.into_iter().collect());
        }
    }
    let failures = disagreements(Format::Date, &inputs);
    eprintln!(
        "date: {} inputs, {} disagreeing",
        inputs.len(),
        failures.len()
    );
    assert!(failures.is_empty(), "{failures:#?}");
}

#[test]
fn date_times_agree_with_jsonschema() {
    // covers: V7
    let mut inputs = Vec::new();
    let offsets = [
        "Z",
        "z",
        "+00:00",
        "-00:00",
        "+01:00",
        "-01:00",
        "+23:59",
        "-23:59",
        "+24:00",
        "+00:60",
        "+0100",
        "+01:00:00",
        "",
        "Z ",
        "+1:00",
        "-08:00",
    ];
    for date in ["1998-12-31", "1990-02-29", "2000-01-01"] {
        for separator in ['T', 't', ' ', '_'] {
            for hour in [0, 1, 8, 15, 22, 23, 24] {
                for minute in [0, 30, 59, 60] {
                    for second in ["00", "59", "60", "61", "60.5", "59.", "59.123456789"] {
                        for offset in offsets {
                            inputs.push(format!(
                                "{date}{separator}{hour:02}:{minute:02}:{second}{offset}"
                            ));
                        }
                    }
                }
            }
        }
    }
    let alphabet: Vec<char> = "0123456789-:.TtZz+ é".chars().collect();
    let mut rng = Rng::new(11);
    for _ in 0..20_000 {
        let seed = rng.pick(&inputs).clone();
        inputs.push(rng.mutate(&seed, &alphabet));
    }
    let failures = disagreements(Format::DateTime, &inputs);
    eprintln!(
        "date-time: {} inputs, {} disagreeing",
        inputs.len(),
        failures.len()
    );
    assert!(failures.is_empty(), "{failures:#?}");
}

#[test]
fn emails_agree_with_jsonschema() {
    // covers: V7
    let locals = [
        "joe",
        "joe.bloggs",
        "\"joe bloggs\"",
        "\"\"",
        "\"a\\\"b\"",
        ".joe",
        "joe.",
        "jo..e",
        "te~st",
        "a+b",
        "jöe",
        "\"jöe\"",
        "a@b",
        "\"a@b\"",
        "",
        "x",
        "#!$%&'*+-/=?^_`{|}~",
    ];
    let domains = [
        "example.com",
        "localhost",
        "[127.0.0.1]",
        "[127.0.0.300]",
        "[IPv6:::1]",
        "[ipv6:::1]",
        "[IPv6:::g]",
        "[example]",
        "-example.com",
        "example-.com",
        "example..com",
        "example.com.",
        "exa_mple.com",
        "xn--bcher-kva.example",
        "XN--bcher-kva.example",
        "xn--X.example",
        "ab--cd.example",
        "xn---abc.example",
        "xn--.example",
        "xn--ls8h.la",
        "xn--nxasmq6b.com",
        "xn--80ak6aa92e.com",
        "xn--mgbh0fb.xn--kgbechtv",
        "xn--zckzah.jp",
        "b\u{fc}cher.example",
        "a.b.c.d.e.f",
        "1.2.3.4",
        "例え.jp",
        "",
    ];
    let mut inputs: Vec<String> = Vec::new();
    for local in locals {
        for domain in domains {
            inputs.push(format!("{local}@{domain}"));
        }
    }
    inputs.push("Joe <joe@example.com>".to_owned());
    inputs.push("Joe <joe@example.com".to_owned());
    inputs.push(format!("joe@{}.com", "a".repeat(64)));
    inputs.push(format!("joe@{}.com", "a".repeat(63)));
    inputs.push(format!("{}@example.com", "a".repeat(65)));
    inputs.push(format!("joe@{}", ["abcdefghi"; 26].join(".")));
    // Punycode labels: random payloads after `xn--`.
    let puny: Vec<char> = "abcdefghijklmnopqrstuvwxyz0123456789-".chars().collect();
    let alphabet: Vec<char> = "abc.-_@\"[]:\\ <>é1xn".chars().collect();
    let mut rng = Rng::new(13);
    for _ in 0..20_000 {
        inputs.push(format!("a@xn--{}.com", rng.string(&puny, 1, 12)));
        let seed = rng.pick(&inputs).clone();
        inputs.push(rng.mutate(&seed, &alphabet));
    }
    let failures = disagreements(Format::Email, &inputs);
    eprintln!(
        "email: {} inputs, {} disagreeing",
        inputs.len(),
        failures.len()
    );
    assert!(failures.is_empty(), "{failures:#?}");
}

#[test]
fn uris_agree_with_jsonschema() {
    // covers: V7
    let seeds = [
        "http://example.com/a/b?c=d#e",
        "https://user:pass@example.com:8080/",
        "http://[::1]/",
        "http://[v7.abc]/",
        "http://[::ffff:1.2.3.4]:80/x",
        "http://[fe80::1%25eth0]/",
        "urn:isbn:0451450523",
        "mailto:a@b.c",
        "a:",
        "a+b-c.d:x",
        "file:///etc/passwd",
        "http://%41%42/",
        "http://%FF/",
        "http://a:b:c/",
        "http://a@b@c/",
        "ldap://[2001:db8::7]/c=GB?objectClass?one",
        "tel:+1-816-555-1212",
        "http://example.com/é",
        "//example.com",
        "/a/b",
        "a/b:c",
    ];
    // Mostly characters URIs hold, so mutants stay near the valid ones; a few others.
    let near: Vec<char> = "az09:/?#[]@!$&'()*+,;=-._~%AFv".chars().collect();
    let far: Vec<char> = " é{}|^`\"<>\\".chars().collect();
    let mut rng = Rng::new(17);
    let mut inputs: Vec<String> = seeds.iter().map(|s| (*s).to_owned()).collect();
    // Mutants of valid URIs are the interesting ones: grow from those the reference accepts.
    let validator = reference(&json!({ "format": "uri" })).expect("schema builds");
    let mut valid: Vec<String> = inputs
        .iter()
        .filter(|input| reference_format(&validator, input))
        .cloned()
        .collect();
    for round in 0..60_000 {
        let seed = rng.pick(&valid).clone();
        let alphabet = if round % 10 == 0 { &far } else { &near };
        let mutant = rng.mutate(&seed, alphabet);
        if reference_format(&validator, &mutant) && valid.len() < 5_000 {
            valid.push(mutant.clone());
        }
        inputs.push(mutant);
        if round % 4 == 0 {
            inputs.push(rng.string(&near, 1, 16));
        }
    }
    let failures = disagreements(Format::Uri, &inputs);
    eprintln!(
        "uri: {} inputs, {} disagreeing",
        inputs.len(),
        failures.len()
    );
    assert!(failures.is_empty(), "{failures:#?}");
}
