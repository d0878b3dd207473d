//! The schemas `#[derive(Elicit)]` emits, as the wire sees them: pretty-JSON snapshots
//! under `tests/snapshots/` (compared as text; `ELICIT_BLESS=1` rewrites them), each
//! valid against the ACP `ElicitationSchema` (v1 and v2) and accepted by the strict
//! parse; and what the generated `from_content` / `to_content` do with answers.

use crate::common;
use crate::forms;

use std::collections::{BTreeSet, HashSet};
use std::path::PathBuf;

use elicit::content::ValidationErrorKind;
use elicit::typed::MAX_SAFE_INTEGER;
use elicit::{Elicit, ElicitationResponse, Elicited, RequestedSchema};
use forms::*;
use serde_json::{json, Value};

fn snapshot_path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/snapshots")
        .join(format!("{name}.json"))
}

// covers: F1, F2, D13
#[test]
fn schemas_match_their_snapshots() {
    let bless = std::env::var_os("ELICIT_BLESS").is_some();
    let mut stale = Vec::new();
    for (name, schema) in all_schemas() {
        let path = snapshot_path(name);
        let text = serde_json::to_string_pretty(schema.as_json()).unwrap() + "\n";
        if bless {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, &text).unwrap();
            continue;
        }
        match std::fs::read_to_string(&path) {
            Ok(expected) if expected == text => {}
            Ok(expected) => stale.push(format!("{name}: expected\n{expected}\ngot\n{text}")),
            Err(e) => stale.push(format!("{name}: {} ({e})\ngot\n{text}", path.display())),
        }
    }
    assert!(
        stale.is_empty(),
        "schema snapshots differ (rerun with ELICIT_BLESS=1 to accept):\n{}",
        stale.join("\n")
    );
}

// covers: F1, F2
#[test]
fn schemas_are_valid_acp_elicitation_schemas() {
    for (name, schema) in all_schemas() {
        let _ = name;
        common::assert_valid_acp("ElicitationSchema", schema.as_json());
    }
}

// covers: F1, F2, D2, D3, D4, D11
#[test]
fn schemas_pass_the_strict_parse_and_round_trip() {
    for (name, schema) in all_schemas() {
        let parsed = RequestedSchema::from_json(schema.as_json()).unwrap_or_else(|e| {
            panic!("`{name}`: the strict parse refuses the derived schema: {e}")
        });
        assert_eq!(&parsed, schema, "`{name}` does not round-trip");
        schema.check().unwrap();
        assert!(
            schema.unenforced().is_empty(),
            "`{name}`: {:?}",
            schema.unenforced()
        );
    }
}

// covers: F5
#[test]
fn derived_schemas_ask_for_no_secret() {
    for (name, schema) in all_schemas() {
        let findings = schema.secret_findings();
        // `Settings::map_pin` opts out with `allow_secret`: the run-time lint still sees
        // the word, which is why the opt-out has to give a reason.
        let expected = usize::from(name == "settings");
        assert_eq!(findings.len(), expected, "`{name}`: {findings:?}");
    }
}

// covers: D13
#[test]
fn properties_keep_declaration_order() {
    let names: Vec<&str> = Choices::requested_schema()
        .properties()
        .iter()
        .map(|p| p.name())
        .collect();
    assert_eq!(
        names,
        [
            "color",
            "strategy",
            "fallback",
            "tags",
            "strategies",
            "palette",
            "extras",
            "agree",
            "subscribe"
        ]
    );
    let required: Vec<&str> = Choices::requested_schema().required().collect();
    assert_eq!(
        required,
        [
            "color",
            "strategy",
            "tags",
            "strategies",
            "palette",
            "agree"
        ]
    );
}

#[test]
fn the_schema_is_one_static_value() {
    assert!(std::ptr::eq(
        Refactor::requested_schema(),
        Refactor::requested_schema()
    ));
    assert!(std::ptr::eq(
        Refactor::requested_schema().as_json(),
        Refactor::requested_schema().as_json()
    ));
}

#[test]
fn wire_names_follow_rename_rules_and_serde() {
    let schema = Settings::requested_schema().as_json();
    let keys: Vec<&String> = schema["properties"].as_object().unwrap().keys().collect();
    assert_eq!(keys, ["max-passes", "lang", "dry-run", "type", "map-pin"]);
    assert_eq!(
        schema["properties"]["type"]["enum"],
        json!(["VERY_LOW", "HIGH", "MAX"])
    );

    // The same names as serde's derive on the same type.
    let value = Settings {
        max_passes: 3,
        language: "en".into(),
        dry_run: true,
        cache: vec![1],
        r#type: Level::Maximum,
        map_pin: Some("north".into()),
    };
    let mut via_serde = serde_json::to_value(&value).unwrap();
    assert_eq!(via_serde, value.to_content());
    assert_eq!(
        Settings::from_content(&via_serde).unwrap(),
        Settings {
            cache: vec![],
            ..value.clone()
        }
    );
    via_serde.as_object_mut().unwrap().remove("map-pin");
    let back: Settings = serde_json::from_value(via_serde).unwrap();
    assert_eq!(back.map_pin, None);
}

// covers: D5, V2
#[test]
fn integers_written_as_floats_convert() {
    let content = json!({ "strategy": "Balanced", "passes": 3.0 });
    let r = Refactor::from_content(&content).unwrap();
    assert_eq!(r.passes, 3);
    assert_eq!(Refactor::requested_schema().validate(&content), Ok(()));
}

// covers: D5, F3, R3
#[test]
fn wide_integers_ask_and_accept_what_every_client_reads_exactly() {
    // What is sent: ±(2^53 - 1) for the 64-bit types, the integers a JavaScript
    // client reads without rounding; never ±2^63.
    let schema = Numbers::requested_schema().to_json();
    let bounds = |name: &str| {
        let p = &schema["properties"][name];
        (p["minimum"].as_i64(), p["maximum"].as_i64())
    };
    let max = Some(MAX_SAFE_INTEGER);
    assert_eq!(bounds("long"), (Some(-MAX_SAFE_INTEGER), max));
    assert_eq!(bounds("size"), (Some(-MAX_SAFE_INTEGER), max));
    assert_eq!(bounds("ulong"), (Some(0), max));
    assert_eq!(bounds("usize_"), (Some(0), max));
    assert_eq!(
        bounds("int"),
        (Some(i64::from(i32::MIN)), Some(i64::from(i32::MAX)))
    );
    // What is validated is exactly that (F3): the edges pass, one beyond fails, in the
    // schema's validation and the typed parse alike.
    let example = Numbers::example();
    assert_eq!(
        Numbers::from_content(&example.to_content()),
        Ok(example.clone())
    );
    for (name, beyond) in [
        ("long", json!(MAX_SAFE_INTEGER + 1)),
        ("long", json!(-MAX_SAFE_INTEGER - 1)),
        ("size", json!(i64::MIN)),
        ("ulong", json!(MAX_SAFE_INTEGER + 1)),
        ("ulong", json!(u64::MAX)),
        ("usize_", json!(9_007_199_254_740_992.0)),
    ] {
        let mut content = example.to_content();
        content[name] = beyond.clone();
        let errors = Numbers::from_content(&content).unwrap_err();
        assert_eq!(
            Some(errors.clone()),
            Numbers::requested_schema().validate(&content).err(),
            "{name} = {beyond}"
        );
        let failing: Vec<&str> = errors
            .errors()
            .iter()
            .filter_map(|e| e.property.as_deref())
            .collect();
        assert_eq!(failing, [name], "{name} = {beyond}");
    }
}

// covers: D5
#[test]
fn out_of_range_values_are_errors_not_wraps() {
    let mut content = Numbers::example().to_content();
    content["tiny"] = json!(128);
    content["ulong"] = json!(u64::MAX);
    content["single"] = json!(1e39);
    let errors = Numbers::from_content(&content).unwrap_err();
    assert_eq!(
        Some(errors.clone()),
        Numbers::requested_schema().validate(&content).err()
    );
    let failing: Vec<&str> = errors
        .errors()
        .iter()
        .filter_map(|e| e.property.as_deref())
        .collect();
    assert_eq!(failing, ["tiny", "ulong", "single"]);
    assert!(errors
        .errors()
        .iter()
        .all(|e| matches!(e.kind, ValidationErrorKind::AboveMaximum { .. })));
}

// covers: D10, V5
#[test]
fn null_is_refused_and_absent_optionals_are_none() {
    let absent = json!({ "strategy": "Aggressive", "passes": 1 });
    assert_eq!(Refactor::from_content(&absent).unwrap().notify, None);
    let null = json!({ "strategy": "Aggressive", "passes": 1, "notify": null });
    let errors = Refactor::from_content(&null).unwrap_err();
    assert_eq!(
        errors.for_property("notify").collect::<Vec<_>>(),
        [&ValidationErrorKind::Null]
    );
}

// covers: D9, V5
#[test]
fn unknown_keys_are_ignored_unless_denied() {
    let content = json!({ "strategy": "Balanced", "passes": 2, "extra": [1, 2] });
    assert!(Refactor::from_content(&content).is_ok());
    let strict = json!({ "name": "x", "extra": 1, "other": null });
    let errors = Strict::from_content(&strict).unwrap_err();
    let unknown: Vec<(&str, &ValidationErrorKind)> = errors
        .errors()
        .iter()
        .map(|e| (e.property.as_deref().unwrap(), &e.kind))
        .collect();
    assert_eq!(
        unknown,
        [
            ("extra", &ValidationErrorKind::UnknownField),
            ("other", &ValidationErrorKind::UnknownField)
        ]
    );
    assert!(Strict::from_content(&json!({ "name": "x", "count": 7 })).is_ok());
}

// covers: V6
#[test]
fn multi_selects_parse_into_collections() {
    let content = json!({
        "color": "red",
        "strategy": "Conservative",
        "tags": ["green", "green"],
        "strategies": ["Aggressive", "Conservative", "Aggressive"],
        "palette": ["sky-blue", "red"],
        "agree": true
    });
    let c = Choices::from_content(&content).unwrap();
    assert_eq!(c.tags, [Color::Green, Color::Green]);
    assert_eq!(
        c.strategies,
        BTreeSet::from([Strategy::Conservative, Strategy::Aggressive])
    );
    assert_eq!(c.palette, HashSet::from([Color::Red, Color::SkyBlue]));
    assert_eq!(c.fallback, None);
    // A set writes its choices in option order.
    assert_eq!(c.to_content()["palette"], json!(["red", "sky-blue"]));
}

// covers: F2
#[test]
fn option_titles_are_not_values() {
    let content = json!({ "strategy": "conservative", "passes": 2 });
    let errors = Refactor::from_content(&content).unwrap_err();
    assert_eq!(
        errors.errors()[0].kind,
        ValidationErrorKind::NotAnOption {
            value: "conservative".into(),
            did_you_mean: None
        }
    );
    let titled = json!({ "color": "Red", "strategy": "Conservative", "tags": ["red"],
                         "strategies": [], "palette": [], "agree": true });
    let errors = Choices::from_content(&titled).unwrap_err();
    assert_eq!(errors.len(), 1, "{errors}");
}

// covers: R1, R2, R5
#[test]
fn responses_become_typed_outcomes() {
    let accept = ElicitationResponse::from_json(&json!({
        "action": "accept",
        "content": { "strategy": "Balanced", "passes": 4 }
    }))
    .unwrap();
    assert_eq!(
        Refactor::from_response(&accept).unwrap(),
        Elicited::Accepted(Refactor {
            strategy: Strategy::Balanced,
            passes: 4,
            notify: None
        })
    );
    let decline = ElicitationResponse::from_json(&json!({ "action": "decline" })).unwrap();
    assert_eq!(
        Refactor::from_response(&decline).unwrap(),
        Elicited::Declined
    );
    let cancel = ElicitationResponse::from_json(&json!({ "action": "cancel" })).unwrap();
    assert_eq!(
        Refactor::from_response(&cancel).unwrap(),
        Elicited::Cancelled
    );
    // An accept without content is an empty answer: an error when a field is required,
    // a value when none is.
    let empty = ElicitationResponse::from_json(&json!({ "action": "accept" })).unwrap();
    assert!(Refactor::from_response(&empty).is_err());
    assert_eq!(
        Empty::from_response(&empty).unwrap(),
        Elicited::Accepted(Empty::default())
    );
}

// covers: R3
#[test]
fn non_object_content_is_one_error() {
    for content in [json!(null), json!([]), json!("x"), json!(1)] {
        let errors = Refactor::from_content(&content).unwrap_err();
        assert_eq!(errors.len(), 1);
        assert_eq!(
            Some(errors),
            Refactor::requested_schema().validate(&content).err()
        );
    }
}

#[test]
fn skipped_fields_are_default_and_not_sent() {
    let p = Profile {
        full_name: "Ada".into(),
        handle: "ada".into(),
        email: "ada@example.com".into(),
        homepage: None,
        birthday: None,
        available_from: Some("2024-01-01T00:00:00Z".into()),
        notes: None,
        internal_id: 42,
    };
    let content = p.to_content();
    assert_eq!(
        content,
        json!({ "fullName": "Ada", "handle": "ada", "email": "ada@example.com", "from": "2024-01-01T00:00:00Z" })
    );
    assert_eq!(
        Profile::from_content(&content).unwrap(),
        Profile {
            internal_id: 0,
            ..p
        }
    );
}

impl Numbers {
    fn example() -> Numbers {
        Numbers {
            tiny: -1,
            small: 2,
            short: 300,
            ushort: 60_000,
            int: -70_000,
            uint: 4_000_000_000,
            long: -MAX_SAFE_INTEGER,
            ulong: MAX_SAFE_INTEGER as u64,
            size: -5,
            usize_: 5,
            ratio: 1.5,
            single: 0.25,
            offset: None,
            delta: Some(-10),
        }
    }
}

// covers: D5
#[test]
fn numbers_round_trip() {
    let n = Numbers::example();
    let content: Value = n.to_content();
    assert_eq!(Numbers::from_content(&content).unwrap(), n);
}
