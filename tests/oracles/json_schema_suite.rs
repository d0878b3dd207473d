//! The official JSON-Schema-Test-Suite (draft 2020-12), read in place from
//! `../shared/oracles/json-schema-test-suite/`, run through our validator for every
//! case whose schema can be expressed in the elicitation subset.
//!
//! A suite schema is tried two ways:
//! - as one property: `{"type":"object","properties":{"v": S},"required":["v"]}` with
//!   the content `{"v": data}`. Suite schemas often omit `type` (a keyword like
//!   `minLength` then ignores other JSON types); we add the type the keywords imply and
//!   run only the cases whose data has that type, for which adding it changes nothing.
//! - as the whole form, when the data is an object: `S` plus `"type": "object"`.
//!
//! A schema the strict parse refuses (keywords outside the subset) is not expressible;
//! those cases are counted as skipped. Every case that runs must give the suite's
//! expected verdict.

use crate::common;

use elicit::RequestedSchema;
use serde_json::{json, Map, Value};

const FILES: &[&str] = &[
    "type.json",
    "enum.json",
    "const.json",
    "minLength.json",
    "maxLength.json",
    "minimum.json",
    "maximum.json",
    "exclusiveMinimum.json",
    "exclusiveMaximum.json",
    "minItems.json",
    "maxItems.json",
    "required.json",
    "oneOf.json",
    "anyOf.json",
    "items.json",
    "properties.json",
    "additionalProperties.json",
    "default.json",
    "pattern.json",
    // `format.json` expects formats not to be asserted; with assertion on, the
    // optional/format files below are the ones that apply (SOURCES.md).
    "optional/bignum.json",
    "optional/float-overflow.json",
    "optional/ecmascript-regex.json",
    "optional/non-bmp-regex.json",
    "optional/format/email.json",
    "optional/format/uri.json",
    "optional/format/date.json",
    "optional/format/date-time.json",
];

/// The JSON type a typeless suite schema's keywords imply, if they imply exactly one.
fn implied_type(schema: &Map<String, Value>) -> Option<&'static str> {
    let string = ["minLength", "maxLength", "pattern", "format"];
    let number = ["minimum", "maximum"];
    let array = ["items", "minItems", "maxItems"];
    let has = |keys: &[&str]| keys.iter().any(|k| schema.contains_key(*k));
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        if values.iter().all(Value::is_string) {
            return Some("string");
        }
        return None;
    }
    match (has(&string), has(&number), has(&array)) {
        (true, false, false) => Some("string"),
        (false, true, false) => Some("number"),
        (false, false, true) => Some("array"),
        _ => None,
    }
}

fn data_has_type(data: &Value, ty: &str) -> bool {
    match ty {
        "string" => data.is_string(),
        "number" => data.is_number(),
        "integer" => data.as_number().is_some_and(|n| {
            n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f.fract() == 0.0)
        }),
        "boolean" => data.is_boolean(),
        "array" => data.is_array(),
        _ => false,
    }
}

#[derive(Default)]
struct Tally {
    ran: usize,
    skipped: usize,
    files: usize,
}

// covers: V1, V2, V3, V4, V5, V6, V7, D6
#[test]
fn json_schema_test_suite_cases_agree() {
    let Some(dir) = common::oracles_dir() else {
        return;
    };
    let dir = dir.join("json-schema-test-suite/draft2020-12");
    let mut tally = Tally::default();
    let mut failures = Vec::new();
    for file in FILES {
        let path = dir.join(file);
        let text =
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let groups: Vec<Value> = serde_json::from_str(&text).unwrap();
        tally.files += 1;
        for group in &groups {
            let mut schema = group["schema"].as_object().cloned().unwrap_or_default();
            schema.remove("$schema");
            for case in group["tests"].as_array().into_iter().flatten() {
                let data = &case["data"];
                let expected = case["valid"].as_bool().unwrap();
                let Some((form, content)) = express(&schema, data) else {
                    tally.skipped += 1;
                    continue;
                };
                tally.ran += 1;
                let got = form.validate(&content);
                if got.is_ok() != expected {
                    failures.push(format!(
                        "{file}: {} / {}: expected {}, got {:?}",
                        group["description"], case["description"], expected, got
                    ));
                }
            }
        }
    }
    println!(
        "JSON-Schema-Test-Suite: {} cases ran from {} files, {} skipped as not expressible in the elicitation subset",
        tally.ran, tally.files, tally.skipped
    );
    assert!(
        failures.is_empty(),
        "{} disagreements:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(tally.ran > 150, "too few suite cases ran ({})", tally.ran);
}

/// The suite case as a form and its content, when the subset can express it.
fn express(schema: &Map<String, Value>, data: &Value) -> Option<(RequestedSchema, Value)> {
    // As one property.
    let ty = match schema.get("type") {
        Some(Value::String(t)) => Some(t.as_str()),
        Some(_) => None,
        None => implied_type(schema),
    };
    if let Some(ty) = ty {
        if data_has_type(data, ty) {
            let mut property = schema.clone();
            property.insert("type".into(), json!(ty));
            let form =
                json!({ "type": "object", "properties": { "v": property }, "required": ["v"] });
            if let Ok(form) = RequestedSchema::from_json(&form) {
                return Some((form, json!({ "v": data })));
            }
        }
    }
    // As the whole form.
    if data.is_object() && schema.get("type").is_none_or(|t| t == "object") {
        let mut root = schema.clone();
        root.insert("type".into(), json!("object"));
        root.entry("properties").or_insert_with(|| json!({}));
        if let Ok(form) = RequestedSchema::from_json(&Value::Object(root)) {
            return Some((form, data.clone()));
        }
    }
    None
}
