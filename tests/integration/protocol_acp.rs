//! The `acp` feature: lossless round trips through the official
//! `agent-client-protocol-schema` types (`cargo test --features acp`).
#![cfg(feature = "acp")]

use crate::protocol_support;

use agent_client_protocol_schema::v1 as official;
use elicit::protocol::acp::{
    create_elicitation_from_acp, requested_schema_from_acp, AcpConversionError,
};
use elicit::protocol::{
    CompleteElicitation, CreateElicitation, ElicitationCapabilities, ElicitationResponse, Mode,
    Scope,
};
use elicit::schema::ParseOptions;
use elicit::RequestedSchema;
use proptest::prelude::*;
use protocol_support::assert_acp;
use protocol_support::strategies::{capabilities, config, create, meta, response, text};
use serde_json::{json, Value};

fn schema_json() -> Value {
    json!({
        "type": "object",
        "title": "Profile",
        "description": "Who you are",
        "properties": {
            "name": { "type": "string", "title": "Name", "minLength": 1, "maxLength": 80, "default": "Ada" },
            "ticket": { "type": "string", "pattern": "^[A-Z]+-\\d+$" },
            "email": { "type": "string", "format": "email", "_meta": { "hint": "work" } },
            "age": { "type": "integer", "minimum": 0, "maximum": 150, "default": 30 },
            "ratio": { "type": "number", "minimum": -1.5, "maximum": 2.25, "default": 0.5 },
            "agree": { "type": "boolean", "default": false },
            "plan": { "type": "string", "oneOf": [
                { "const": "free", "title": "Free", "description": "no cost" },
                { "const": "pro", "title": "Pro", "_meta": { "badge": true } }
            ], "default": "free" },
            "size": { "type": "string", "enum": ["s", "m", "l"] },
            "tags": { "type": "array", "items": { "type": "string", "enum": ["a", "b", "c"] }, "minItems": 1, "maxItems": 2, "default": ["a"] },
            "colors": { "type": "array", "items": { "anyOf": [{ "const": "#f00", "title": "Red" }, { "const": "#0f0", "title": "Green" }] } }
        },
        "required": ["name", "age", "agree"],
        "_meta": { "form": "v1" }
    })
}

fn schema() -> RequestedSchema {
    RequestedSchema::from_json(&schema_json()).unwrap()
}

/// The JSON with every `required` list sorted: the official types keep properties
/// sorted by name, so a schema back from them lists `required` in that order (D13); as a
/// set it is unchanged.
fn unordered(json: &Value) -> Value {
    match json {
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| {
                    let mut v = unordered(v);
                    if let (true, Some(items)) = (k == "required", v.as_array_mut()) {
                        items.sort_by_key(Value::to_string);
                    }
                    (k.clone(), v)
                })
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(unordered).collect()),
        other => other.clone(),
    }
}

fn sorted_names(schema: &RequestedSchema) -> Vec<&str> {
    let mut names: Vec<&str> = schema.properties().iter().map(|p| p.name()).collect();
    names.sort_unstable();
    names
}

// covers: F1, F2, E7, D13
#[test]
fn schema_round_trips_through_the_official_type() {
    let ours = schema();
    let theirs = official::ElicitationSchema::try_from(&ours).unwrap();
    // The official type writes the same JSON: objects compare without member order.
    assert_eq!(serde_json::to_value(&theirs).unwrap(), ours.to_json());
    let back = RequestedSchema::try_from(&theirs).unwrap();
    // Everything survives but property order: the official type sorts by name (D13).
    assert_eq!(unordered(&back.to_json()), unordered(&ours.to_json()));
    assert_ne!(
        back.to_json()["required"],
        ours.to_json()["required"],
        "order only"
    );
    let back_names: Vec<&str> = back.properties().iter().map(|p| p.name()).collect();
    assert_eq!(back_names, sorted_names(&ours));
    // Official → ours → official: the same value, `required` listed in property order.
    let again = official::ElicitationSchema::try_from(&back).unwrap();
    assert_eq!(
        unordered(&serde_json::to_value(&again).unwrap()),
        unordered(&serde_json::to_value(&theirs).unwrap())
    );
    // With `required` already in that order, it is the identity.
    assert_eq!(
        official::ElicitationSchema::try_from(&RequestedSchema::try_from(&again).unwrap()).unwrap(),
        again
    );
    assert_acp("ElicitationSchema", &serde_json::to_value(&theirs).unwrap());
}

// covers: E1, E3, U1, D1
#[test]
fn requests_round_trip_through_the_official_type() {
    let scopes = [
        Scope::session("s"),
        Scope::tool_call("s", "t"),
        Scope::request(7),
        Scope::request("r"),
    ];
    for scope in scopes {
        for with_meta in [false, true] {
            let meta = with_meta.then(|| json!({ "k": [1, "two"] }).as_object().unwrap().clone());
            let form = CreateElicitation::form(scope.clone(), "Profile?", schema())
                .with_meta(meta.clone());
            let url =
                CreateElicitation::url(scope.clone(), "Sign in", "el-1", "https://a.example/x?y=1")
                    .unwrap()
                    .with_meta(meta);
            for ours in [form, url] {
                let theirs = official::CreateElicitationRequest::try_from(&ours).unwrap();
                assert_eq!(serde_json::to_value(&theirs).unwrap(), ours.to_json());
                let back = CreateElicitation::try_from(&theirs).unwrap();
                assert_eq!(unordered(&back.to_json()), unordered(&ours.to_json()));
                assert_eq!(back.scope(), ours.scope());
                let again = official::CreateElicitationRequest::try_from(&back).unwrap();
                assert_eq!(
                    unordered(&serde_json::to_value(&again).unwrap()),
                    unordered(&serde_json::to_value(&theirs).unwrap())
                );
                assert_eq!(CreateElicitation::try_from(&again).unwrap(), back);
            }
        }
    }
}

// covers: E6
#[test]
fn unknown_modes_and_actions_round_trip() {
    let custom = json!({ "mode": "_cards", "sessionId": "s", "message": "m", "deck": [1, 2], "_meta": { "a": 1 } });
    let ours = CreateElicitation::from_json(&custom).unwrap();
    let theirs = official::CreateElicitationRequest::try_from(&ours).unwrap();
    assert!(matches!(theirs.mode, official::ElicitationMode::Other(_)));
    let back = CreateElicitation::try_from(&theirs).unwrap();
    assert_eq!(back.to_json(), custom);
    assert_eq!(back.mode(), None);

    let other = json!({ "action": "_later", "when": { "h": 3 } });
    let ours = ElicitationResponse::from_json(&other).unwrap();
    let theirs = official::CreateElicitationResponse::try_from(&ours).unwrap();
    assert!(matches!(
        theirs.action,
        official::ElicitationAction::Other(_)
    ));
    assert_eq!(
        ElicitationResponse::try_from(&theirs).unwrap().to_json(),
        other
    );
}

// covers: R1, R2, R3
#[test]
fn responses_round_trip_through_the_official_type() {
    let content =
        json!({ "s": "x", "i": i64::MIN, "f": 88.5, "whole": 3.0, "b": true, "a": ["p", "q"] });
    for ours in [
        ElicitationResponse::accept(content.as_object().unwrap().clone()),
        ElicitationResponse::accept_without_content(),
        ElicitationResponse::decline(),
        ElicitationResponse::cancel().with_meta(json!({ "m": null }).as_object().cloned()),
    ] {
        let theirs = official::CreateElicitationResponse::try_from(&ours).unwrap();
        let back = ElicitationResponse::try_from(&theirs).unwrap();
        assert_eq!(back, ours);
        assert_eq!(
            official::CreateElicitationResponse::try_from(&back).unwrap(),
            theirs
        );
    }
}

// covers: U5, C1, C2, C3, C4
#[test]
fn completions_and_capabilities_convert_both_ways() {
    let ours = CompleteElicitation::new("el-1").with_meta(json!({ "x": 1 }).as_object().cloned());
    let theirs = official::CompleteElicitationNotification::from(&ours);
    assert_eq!(serde_json::to_value(&theirs).unwrap(), ours.to_json());
    assert_eq!(CompleteElicitation::from(&theirs), ours);

    let caps = ElicitationCapabilities::from_json(Some(&json!({
        "form": { "_meta": { "f": 1 } }, "url": {}, "_meta": { "c": true }
    })));
    let theirs = official::ElicitationCapabilities::try_from(&caps).unwrap();
    assert!(theirs.supports_form() && theirs.supports_url());
    assert_eq!(
        serde_json::to_value(&theirs).unwrap(),
        caps.to_json().unwrap()
    );
    assert_eq!(ElicitationCapabilities::from(&theirs), caps);
    // Present without modes (C4) and absent (C2) stay apart.
    let empty = ElicitationCapabilities::new();
    let theirs = official::ElicitationCapabilities::try_from(&empty).unwrap();
    assert!(!theirs.supports_form() && !theirs.supports_url());
    assert_eq!(ElicitationCapabilities::from(&theirs), empty);
    let absent = ElicitationCapabilities::absent();
    assert_eq!(
        official::ElicitationCapabilities::try_from(&absent),
        Err(AcpConversionError::AbsentCapability)
    );
    assert_eq!(
        Option::<official::ElicitationCapabilities>::from(&absent),
        None
    );
    assert_eq!(
        ElicitationCapabilities::from(None::<official::ElicitationCapabilities>),
        absent
    );
    // The official reading of C6 agrees with ours on malformed members.
    for input in [
        json!({ "form": 5, "url": {} }),
        json!({ "form": null }),
        json!({ "_meta": 3 }),
    ] {
        let theirs: official::ElicitationCapabilities =
            serde_json::from_value(input.clone()).unwrap();
        assert_eq!(
            ElicitationCapabilities::from(&theirs),
            ElicitationCapabilities::from_json(Some(&input))
        );
        assert_eq!(
            ElicitationCapabilities::from(&theirs).supports(Mode::Form),
            theirs.supports_form()
        );
    }
}

// covers: E7, R3
#[test]
fn lossy_conversions_fail_and_say_where() {
    // An annotation the official schema type has no field for.
    let with_schema_uri = RequestedSchema::from_json(&json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object", "properties": {}
    }))
    .unwrap();
    match official::ElicitationSchema::try_from(&with_schema_uri) {
        Err(AcpConversionError::Lossy { pointer, .. }) => assert_eq!(pointer, "/$schema"),
        other => panic!("expected a lossy conversion, got {other:?}"),
    }
    // Content beyond int64 would become a double.
    let big = ElicitationResponse::accept(json!({ "n": u64::MAX }).as_object().unwrap().clone());
    match official::CreateElicitationResponse::try_from(&big) {
        Err(AcpConversionError::Lossy { pointer, .. }) => assert_eq!(pointer, "/content/n"),
        other => panic!("expected a lossy conversion, got {other:?}"),
    }
    // Content values outside R3 have no official form.
    let nested =
        ElicitationResponse::accept(json!({ "o": { "x": 1 } }).as_object().unwrap().clone());
    let e = official::CreateElicitationResponse::try_from(&nested).unwrap_err();
    assert!(
        matches!(
            e,
            AcpConversionError::Official {
                target: "CreateElicitationResponse",
                ..
            }
        ),
        "{e}"
    );
    assert!(e.to_string().contains("CreateElicitationResponse"));
}

// covers: D4, D8, F2
#[test]
fn official_values_our_strict_parse_refuses() {
    // D4: an empty option list is accepted by the official type, refused by us.
    let empty_enum: official::ElicitationSchema = serde_json::from_value(json!({
        "type": "object", "properties": { "c": { "type": "string", "enum": [] } }
    }))
    .unwrap();
    assert!(matches!(
        RequestedSchema::try_from(&empty_enum),
        Err(AcpConversionError::Schema(_))
    ));
    // D8: a look-around pattern: strict refuses, the lenient parse keeps it unenforced.
    let lookahead: official::ElicitationSchema = serde_json::from_value(json!({
        "type": "object", "properties": { "p": { "type": "string", "pattern": "^(?=a)a+$" } }
    }))
    .unwrap();
    assert!(RequestedSchema::try_from(&lookahead).is_err());
    let lenient = requested_schema_from_acp(&lookahead, &ParseOptions::lenient()).unwrap();
    assert_eq!(lenient.to_json()["properties"]["p"]["pattern"], "^(?=a)a+$");
    assert!(!lenient.unenforced().is_empty());
    // The same through a request, with the lenient parse a client uses.
    let request: official::CreateElicitationRequest = serde_json::from_value(json!({
        "mode": "form", "sessionId": "s", "message": "m",
        "requestedSchema": { "type": "object", "properties": { "p": { "type": "string", "pattern": "^(?=a)a+$" } } }
    }))
    .unwrap();
    assert!(matches!(
        CreateElicitation::try_from(&request),
        Err(AcpConversionError::Params(_))
    ));
    assert!(create_elicitation_from_acp(&request, &ParseOptions::lenient()).is_ok());
}

/// Ours → official → ours leaves the JSON unchanged but for member order.
fn through_official<T, O>(ours: &T, to_json: impl Fn(&T) -> Value)
where
    O: for<'a> TryFrom<&'a T, Error = AcpConversionError> + serde::Serialize,
    T: for<'a> TryFrom<&'a O, Error = AcpConversionError>,
{
    let theirs = O::try_from(ours).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(serde_json::to_value(&theirs).unwrap(), to_json(ours));
    let back = T::try_from(&theirs).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(unordered(&to_json(&back)), unordered(&to_json(ours)));
}

proptest! {
    #![proptest_config(config())]

    // covers: E1, E3, E7, U1, F1, D1
    #[test]
    fn any_request_round_trips(request in create()) {
        through_official::<_, official::CreateElicitationRequest>(&request, CreateElicitation::to_json);
        let schema = request.requested_schema().cloned();
        if let Some(schema) = schema {
            through_official::<_, official::ElicitationSchema>(&schema, RequestedSchema::to_json);
        }
    }

    // covers: R1, R2, R3
    #[test]
    fn any_response_round_trips(response in response()) {
        through_official::<_, official::CreateElicitationResponse>(&response, ElicitationResponse::to_json);
    }

    // covers: C1, C3, U5
    #[test]
    fn any_capability_and_completion_round_trips(caps in capabilities(), id in text(), meta in meta()) {
        let theirs = Option::<official::ElicitationCapabilities>::from(&caps);
        prop_assert_eq!(ElicitationCapabilities::from(theirs), caps);
        let complete = CompleteElicitation::new(id).with_meta(meta);
        prop_assert_eq!(CompleteElicitation::from(official::CompleteElicitationNotification::from(&complete)), complete);
    }
}

// covers: E3
#[test]
fn the_negotiated_protocol_version_picks_the_wire_rules() {
    use agent_client_protocol_schema::ProtocolVersion;
    use elicit::protocol::acp::UnknownAcpVersion;
    use elicit::protocol::AcpVersion;

    assert_eq!(
        AcpVersion::try_from(ProtocolVersion::V1),
        Ok(AcpVersion::V1)
    );
    assert_eq!(
        AcpVersion::try_from(ProtocolVersion::V2),
        Ok(AcpVersion::V2)
    );
    let unknown = AcpVersion::try_from(ProtocolVersion::V0).expect_err("the pre-release");
    assert_eq!(unknown, UnknownAcpVersion { version: 0 });
    assert!(unknown.to_string().contains("version 0"), "{unknown}");
    assert_eq!(ProtocolVersion::from(AcpVersion::V2), ProtocolVersion::V2);
    assert_eq!(ProtocolVersion::from(AcpVersion::V1), ProtocolVersion::V1);
}
