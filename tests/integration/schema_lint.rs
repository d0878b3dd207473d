//! `RequestedSchema::lint`: forms must not ask for secrets (F5) and should not carry
//! clickable URLs (F7); ordinary profile data is fine.

use elicit::schema::FindingKind;
use elicit::RequestedSchema;
use serde_json::{json, Value};

fn schema(properties: Value) -> RequestedSchema {
    RequestedSchema::from_json(&json!({ "type": "object", "properties": properties })).unwrap()
}

fn secret_properties(s: &RequestedSchema) -> Vec<String> {
    s.secret_findings()
        .into_iter()
        .filter_map(|f| f.property)
        .collect()
}

// covers: F5
#[test]
fn secrets_are_found_in_names_titles_and_descriptions() {
    let s = schema(json!({
        "password": { "type": "string" },
        "apiKey": { "type": "string" },
        "t": { "type": "string", "title": "GitHub personal access token" },
        "d": { "type": "string", "description": "Paste your private key here" },
        "cvv": { "type": "string" },
        "iban": { "type": "string" },
        "kennwort": { "type": "string" },
        "recovery": { "type": "string", "title": "Recovery codes" },
        "pin": { "type": "integer" }
    }));
    assert_eq!(
        secret_properties(&s),
        ["password", "apiKey", "t", "d", "cvv", "iban", "kennwort", "recovery", "pin"]
    );
    let findings = s.secret_findings();
    let first = findings[0].to_string();
    assert!(first.contains("property `password` (name)"), "{first}");
    assert!(first.contains("use URL mode instead"), "{first}");
}

// covers: F5
#[test]
fn profile_data_and_lookalikes_are_not_secrets() {
    let s = schema(json!({
        "name": { "type": "string", "title": "Full name" },
        "email": { "type": "string", "format": "email", "title": "Email address" },
        "username": { "type": "string", "title": "User name" },
        "max_tokens": { "type": "integer", "title": "Token budget" },
        "keyboard": { "type": "string", "enum": ["qwerty", "dvorak"] },
        "opinion": { "type": "string" },
        "sort_key": { "type": "string" }
    }));
    assert_eq!(s.lint(), vec![]);
}

// covers: F7
#[test]
fn urls_in_form_text_are_reported_everywhere() {
    let s = RequestedSchema::from_json(&json!({
        "type": "object",
        "title": "Setup",
        "description": "See https://example.com/help first",
        "properties": {
            "plan": {
                "type": "string",
                "description": "Details at www.example.org/plans",
                "oneOf": [{ "const": "a", "title": "Visit http://evil.example" }]
            }
        }
    }))
    .unwrap();
    let urls: Vec<(Option<String>, &str, String)> = s
        .lint()
        .into_iter()
        .filter_map(|f| match f.kind {
            FindingKind::Url { text } => Some((f.property, f.field, text)),
            _ => None,
        })
        .collect();
    assert_eq!(
        urls,
        vec![
            (None, "description", "https://example.com/help".to_owned()),
            (
                Some("plan".to_owned()),
                "description",
                "www.example.org/plans".to_owned()
            ),
            (
                Some("plan".to_owned()),
                "option title",
                "http://evil.example".to_owned()
            ),
        ]
    );
}

// covers: F5
#[test]
fn a_form_about_passwords_may_say_so_in_its_own_title() {
    // The form's title says what it is for; only its fields ask for things.
    let s = RequestedSchema::from_json(&json!({
        "type": "object",
        "title": "Reset your password",
        "properties": { "email": { "type": "string", "format": "email" } }
    }))
    .unwrap();
    assert!(s.secret_findings().is_empty());
}
