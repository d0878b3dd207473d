//! What we emit is exact on the wire: every schema validates against `ElicitationSchema`
//! in the official ACP JSON Schema (v1 and v2), survives a round trip through the
//! official Rust types, and re-parses to the same value.

use crate::common;

use common::gen::{cases, schema};
use elicit::RequestedSchema;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use serde_json::{json, Value};

/// Every kind, constraint and option style, with titles, descriptions, defaults and
/// `_meta` everywhere they may appear.
fn kitchen_sink() -> Value {
    json!({
        "type": "object",
        "title": "Everything",
        "description": "Every property kind the subset has",
        "properties": {
            "name": { "type": "string", "title": "Name", "description": "Your name", "minLength": 1, "maxLength": 64, "default": "Ada", "_meta": { "ui": "text" } },
            "code": { "type": "string", "pattern": "^[A-Z]{3}$", "default": "ABC" },
            "email": { "type": "string", "format": "email", "default": "ada@example.com" },
            "site": { "type": "string", "format": "uri" },
            "day": { "type": "string", "format": "date", "default": "2024-02-29" },
            "at": { "type": "string", "format": "date-time" },
            "ratio": { "type": "number", "minimum": 0.5, "maximum": 2.0, "default": 1.25 },
            "count": { "type": "integer", "minimum": -3, "maximum": 9, "default": 3 },
            "agree": { "type": "boolean", "title": "Agree?", "default": false },
            "plain": { "type": "string", "enum": ["a", "b", "c"], "default": "b" },
            "titled": { "type": "string", "oneOf": [
                { "const": "c", "title": "Conservative", "description": "Small steps" },
                { "const": "b", "title": "Balanced", "_meta": { "x": 1 } }
            ], "default": "c" },
            "tags": { "type": "array", "items": { "type": "string", "enum": ["x", "y", "z"] }, "minItems": 1, "maxItems": 2, "default": ["x"] },
            "colors": { "type": "array", "items": { "anyOf": [
                { "const": "r", "title": "Red" },
                { "const": "g", "title": "Green", "description": "Like grass" }
            ] }, "default": ["g", "r"] }
        },
        "required": ["name", "count", "titled"],
        "_meta": { "origin": "test" }
    })
}

/// Checks an emitted schema against both ACP versions and the official types.
fn check_emitted(
    validators: &[(&str, jsonschema::Validator)],
    json: &Value,
) -> Result<(), TestCaseError> {
    for (version, validator) in validators {
        let errors = common::errors_of(validator, json);
        prop_assert!(
            errors.is_empty(),
            "not a valid ACP {} ElicitationSchema: {:?}\n{:#}",
            version,
            errors,
            json
        );
    }
    // Round trip through the official ACP types (v1 and v2): nothing lost or added.
    let v1: agent_client_protocol_schema::v1::ElicitationSchema =
        serde_json::from_value(json.clone())
            .map_err(|e| TestCaseError::fail(format!("v1 type refused: {e}")))?;
    prop_assert_eq!(&serde_json::to_value(&v1).unwrap(), json);
    let v2: agent_client_protocol_schema::v2::ElicitationSchema =
        serde_json::from_value(json.clone())
            .map_err(|e| TestCaseError::fail(format!("v2 type refused: {e}")))?;
    prop_assert_eq!(&serde_json::to_value(&v2).unwrap(), json);
    Ok(())
}

// covers: F1, F2, E7
#[test]
fn kitchen_sink_is_valid_acp_and_round_trips() {
    let source = kitchen_sink();
    let schema = RequestedSchema::from_json(&source).unwrap();
    let emitted = schema.to_json();
    assert_eq!(emitted, source);
    check_emitted(&common::acp_validators("ElicitationSchema"), &emitted).unwrap();
    assert_eq!(RequestedSchema::from_json(&emitted).unwrap(), schema);
    // The cached wire form is the same value, and the same allocation each time.
    assert!(std::ptr::eq(schema.as_json(), schema.as_json()));
}

// covers: F1, F2, D13
#[test]
fn generated_schemas_are_valid_acp_and_round_trip() {
    let mut runner = TestRunner::new(Config {
        cases: cases(10_000) / 10,
        failure_persistence: None,
        ..Config::default()
    });
    let count = std::cell::Cell::new(0);
    let validators = common::acp_validators("ElicitationSchema");
    runner
        .run(&schema(), |json| {
            let parsed = RequestedSchema::from_json(&json)
                .map_err(|e| TestCaseError::fail(e.to_string()))?;
            let emitted = parsed.to_json();
            check_emitted(&validators, &emitted)?;
            let again = RequestedSchema::from_json(&emitted)
                .map_err(|e| TestCaseError::fail(e.to_string()))?;
            prop_assert_eq!(&again, &parsed);
            prop_assert_eq!(again.to_json(), emitted);
            count.set(count.get() + 1);
            Ok(())
        })
        .unwrap();
    println!(
        "{} generated schemas validated against ACP v1 and v2 and round-tripped",
        count.get()
    );
}

// covers: E6
#[test]
fn leniently_kept_unknowns_are_still_valid_acp() {
    // A client forwarding a schema with an unknown property type and format must write
    // it back as received; the "other" variants ACP v2 added for forward compatibility
    // accept it (v1 predates them and lists only the known formats).
    let source = json!({
        "type": "object",
        "properties": {
            "c": { "type": "_color", "palette": ["#fff"] },
            "p": { "type": "string", "format": "phone" }
        }
    });
    let lenient = RequestedSchema::from_json_lenient(&source).unwrap();
    let emitted = lenient.to_json();
    assert_eq!(emitted, source);
    common::assert_valid_acp_versions(&["v2"], "ElicitationSchema", &emitted);
}
