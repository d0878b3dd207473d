//! `RequestedSchema::validate` and `ContentValue`: every violation reported, with the
//! property and the rule, for each rule of section V and the D decisions.

use elicit::content::{ContentValue, ValidationErrorKind};
use elicit::RequestedSchema;
use serde_json::{json, Value};

fn form() -> RequestedSchema {
    RequestedSchema::from_json(&json!({
        "type": "object",
        "properties": {
            "name": { "type": "string", "minLength": 2, "maxLength": 4 },
            "code": { "type": "string", "pattern": "[0-9]" },
            "mail": { "type": "string", "format": "email" },
            "n": { "type": "integer", "minimum": 1, "maximum": 5 },
            "x": { "type": "number", "maximum": 1.5 },
            "ok": { "type": "boolean" },
            "pick": { "type": "string", "oneOf": [{ "const": "c", "title": "Conservative" }] },
            "tags": { "type": "array", "items": { "type": "string", "enum": ["a", "b"] }, "minItems": 1, "maxItems": 2 }
        },
        "required": ["name", "n"]
    }))
    .unwrap()
}

fn violations(content: Value) -> Vec<(Option<String>, ValidationErrorKind)> {
    match form().validate(&content) {
        Ok(()) => vec![],
        Err(e) => e.into_iter().map(|e| (e.property, e.kind)).collect(),
    }
}

fn only(content: Value) -> ValidationErrorKind {
    let mut v = violations(content);
    assert_eq!(v.len(), 1, "{v:?}");
    v.remove(0).1
}

// covers: V5, D9
#[test]
fn a_valid_answer_passes_and_extra_keys_are_allowed() {
    assert_eq!(
        violations(json!({ "name": "Ada", "n": 3, "anything": { "x": [1] } })),
        vec![]
    );
}

#[test]
fn non_object_content_is_an_error_not_a_panic() {
    for content in [json!(null), json!([]), json!("x"), json!(3)] {
        let v = violations(content);
        assert_eq!(v.len(), 1);
        assert_eq!(v[0].0, None);
        assert!(matches!(v[0].1, ValidationErrorKind::NotAnObject { .. }));
    }
}

// covers: V5, D10
#[test]
fn missing_required_and_null_are_errors() {
    assert_eq!(
        violations(json!({})),
        vec![
            (Some("name".into()), ValidationErrorKind::Missing),
            (Some("n".into()), ValidationErrorKind::Missing)
        ]
    );
    // A present null is not a value, optional properties included (D10).
    assert_eq!(
        only(json!({ "name": "Ada", "n": 1, "ok": null })),
        ValidationErrorKind::Null
    );
}

// covers: V1, D6
#[test]
fn lengths_count_unicode_scalar_values() {
    // Four scalar values, eight UTF-16 units, sixteen bytes.
    assert_eq!(violations(json!({ "name": "😀😀😀😀", "n": 1 })), vec![]);
    assert_eq!(
        only(json!({ "name": "😀😀😀😀😀", "n": 1 })),
        ValidationErrorKind::TooLong { max: 4, len: 5 }
    );
    // A combining sequence is two scalar values.
    assert_eq!(violations(json!({ "name": "e\u{301}", "n": 1 })), vec![]);
    assert_eq!(
        only(json!({ "name": "é", "n": 1 })),
        ValidationErrorKind::TooShort { min: 2, len: 1 }
    );
}

// covers: V2, V3, D5
#[test]
fn integers_accept_zero_fractions_and_numbers_accept_integers() {
    assert_eq!(violations(json!({ "name": "Ada", "n": 3.0 })), vec![]);
    assert!(matches!(
        only(json!({ "name": "Ada", "n": 3.5 })),
        ValidationErrorKind::WrongType {
            expected: "an integer",
            ..
        }
    ));
    assert_eq!(violations(json!({ "name": "Ada", "n": 1, "x": 1 })), vec![]);
    assert!(matches!(
        only(json!({ "name": "Ada", "n": 6 })),
        ValidationErrorKind::AboveMaximum { .. }
    ));
    assert!(matches!(
        only(json!({ "name": "Ada", "n": 0 })),
        ValidationErrorKind::BelowMinimum { .. }
    ));
    assert!(matches!(
        only(json!({ "name": "Ada", "n": 1, "x": 1.6 })),
        ValidationErrorKind::AboveMaximum { .. }
    ));
}

// covers: V4
#[test]
fn patterns_search_anywhere_in_the_value() {
    assert_eq!(
        violations(json!({ "name": "Ada", "n": 1, "code": "ab3cd" })),
        vec![]
    );
    assert!(matches!(
        only(json!({ "name": "Ada", "n": 1, "code": "abc" })),
        ValidationErrorKind::PatternMismatch { .. }
    ));
}

// covers: V7
#[test]
fn formats_are_asserted() {
    assert_eq!(
        violations(json!({ "name": "Ada", "n": 1, "mail": "ada@example.com" })),
        vec![]
    );
    assert!(matches!(
        only(json!({ "name": "Ada", "n": 1, "mail": "ada" })),
        ValidationErrorKind::InvalidFormat { .. }
    ));
}

// covers: F2
#[test]
fn option_titles_are_not_values() {
    assert_eq!(
        violations(json!({ "name": "Ada", "n": 1, "pick": "c" })),
        vec![]
    );
    let v = only(json!({ "name": "Ada", "n": 1, "pick": "Conservative" }));
    assert_eq!(
        v,
        ValidationErrorKind::NotAnOption {
            value: "Conservative".into(),
            did_you_mean: Some("c".into())
        }
    );
    assert_eq!(
        v.to_string(),
        "is `Conservative`, an option's title; send its value `c` instead"
    );
}

// covers: V6
#[test]
fn multi_selects_check_items_and_counts_and_allow_repeats() {
    assert_eq!(
        violations(json!({ "name": "Ada", "n": 1, "tags": ["a", "a"] })),
        vec![]
    );
    assert_eq!(
        violations(json!({ "name": "Ada", "n": 1, "tags": ["a", "z", 3] })),
        vec![
            (
                Some("tags".into()),
                ValidationErrorKind::ItemNotAnOption {
                    index: 1,
                    value: "z".into()
                }
            ),
            (
                Some("tags".into()),
                ValidationErrorKind::ItemWrongType {
                    index: 2,
                    found: "an integer"
                }
            ),
            (
                Some("tags".into()),
                ValidationErrorKind::TooManyItems { max: 2, len: 3 }
            ),
        ]
    );
    assert_eq!(
        only(json!({ "name": "Ada", "n": 1, "tags": [] })),
        ValidationErrorKind::TooFewItems { min: 1, len: 0 }
    );
}

#[test]
fn every_violation_is_reported_with_a_readable_list() {
    let content = json!({ "name": "A", "n": "3", "ok": "yes", "tags": "a" });
    let errors = form().validate(&content).unwrap_err();
    assert_eq!(errors.len(), 4);
    assert_eq!(
        errors.to_string(),
        "4 problems with the answer:\n  \
         - `name` is 1 character long; at least 2 required\n  \
         - `n` must be an integer, found a string\n  \
         - `ok` must be a boolean, found a string\n  \
         - `tags` must be an array of options, found a string"
    );
    assert_eq!(errors.errors()[1].pointer(), "/n");
    assert!(!form().is_valid(&content));
}

// covers: R3
#[test]
fn content_values_convert_to_and_from_json() {
    let cases = [
        (json!("x"), Some(ContentValue::String("x".into()))),
        (json!(3), Some(ContentValue::Integer(3))),
        (json!(3.0), Some(ContentValue::Integer(3))),
        (json!(2.5), Some(ContentValue::Number(2.5))),
        (json!(true), Some(ContentValue::Boolean(true))),
        (
            json!(["a", "b"]),
            Some(ContentValue::StringArray(vec!["a".into(), "b".into()])),
        ),
        (json!(null), None),
        (json!({}), None),
        (json!(["a", 1]), None),
        (json!(u64::MAX), None),
    ];
    for (json, expected) in cases {
        let got = ContentValue::from_json(&json);
        assert_eq!(got, expected, "{json}");
        if let Some(v) = got {
            let back = v.to_json();
            assert_eq!(ContentValue::from_json(&back), Some(v));
        }
    }
    assert_eq!(ContentValue::Number(f64::NAN).to_json(), Value::Null);
    assert!(matches!(
        ContentValue::try_from(&json!(null)),
        Err(ValidationErrorKind::Null)
    ));
}
