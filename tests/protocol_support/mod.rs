//! Oracle validation for the `protocol_*` tests: every message we emit is checked
//! against the definition of its type in the published ACP schemas (v1 and v2) or the
//! MCP schema of its version. Validators are compiled once per definition and shared.
//!
//! Needs `mod common;` beside `mod protocol_support;` in the test crate.
#![allow(dead_code)] // each test crate uses its own subset

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use serde_json::{json, Value};

#[cfg(all(feature = "rmcp_3", feature = "url"))]
pub mod rmcp_wire;
pub mod strategies;

/// Validations run so far in this test binary (for the summary a test may print).
pub static VALIDATIONS: AtomicUsize = AtomicUsize::new(0);

type Cache = Mutex<HashMap<(String, String), Option<Arc<jsonschema::Validator>>>>;

fn cache() -> &'static Cache {
    static CACHE: OnceLock<Cache> = OnceLock::new();
    CACHE.get_or_init(|| Mutex::new(HashMap::new()))
}

/// MCP erratum 1 (../shared/oracles/SOURCES.md): every MCP `schema.json` types
/// `ElicitResult.content` values as `["string", "integer", "boolean"]` (plus string
/// arrays), although the TypeScript source says `number`; a valid fractional answer
/// such as `88.5` fails against the unpatched file. We add `"number"` to that list.
fn patch_mcp_elicit_result(root: &mut Value) {
    let Some(any_of) = root
        .pointer_mut("/$defs/ElicitResult/properties/content/additionalProperties/anyOf")
        .and_then(Value::as_array_mut)
    else {
        panic!("MCP schema: ElicitResult.content is not where erratum 1 says it is");
    };
    let mut patched = false;
    for branch in any_of {
        if let Some(types) = branch.get_mut("type").and_then(Value::as_array_mut) {
            if types.iter().any(|t| t == "integer") && !types.iter().any(|t| t == "number") {
                types.push(json!("number"));
                patched = true;
            }
        }
    }
    assert!(
        patched,
        "MCP schema: erratum 1 no longer applies; drop the patch"
    );
}

/// The compiled validator of `$defs/<def>` in the oracle file `rel`, or `None` when the
/// oracles are missing (see `common::oracles_dir`).
pub fn validator(rel: &str, def: &str) -> Option<Arc<jsonschema::Validator>> {
    let key = (rel.to_owned(), def.to_owned());
    if let Some(v) = cache().lock().unwrap().get(&key) {
        return v.clone();
    }
    let built = crate::common::load_json(rel).map(|mut root| {
        if rel.starts_with("mcp-schema/") {
            patch_mcp_elicit_result(&mut root);
        }
        assert!(root["$defs"].get(def).is_some(), "{rel} has no $defs/{def}");
        let wrapped = json!({
            "$schema": root["$schema"],
            "$defs": root["$defs"],
            "$ref": format!("#/$defs/{def}"),
        });
        // Format assertion on; unknown formats (ACP's int64, uint32, double, regex; MCP's
        // byte) are ignored, which is jsonschema's default.
        let validator = jsonschema::options()
            .should_validate_formats(true)
            .build(&wrapped)
            .unwrap_or_else(|e| panic!("{rel} $defs/{def} does not compile: {e}"));
        Arc::new(validator)
    });
    cache().lock().unwrap().insert(key, built.clone());
    built
}

fn check(rel: &str, def: &str, json: &Value) -> bool {
    let Some(validator) = validator(rel, def) else {
        return false;
    };
    let errors: Vec<String> = validator
        .iter_errors(json)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "not a valid `{def}` of {rel}:\n  {}\n{}",
        errors.join("\n  "),
        serde_json::to_string_pretty(json).unwrap_or_default()
    );
    VALIDATIONS.fetch_add(1, Ordering::Relaxed);
    true
}

fn is_valid(rel: &str, def: &str, json: &Value) -> Option<bool> {
    Some(validator(rel, def)?.is_valid(json))
}

/// Asserts `json` is a valid `$defs/<def>` of both ACP schemas (v1 and v2).
pub fn assert_acp(def: &str, json: &Value) {
    check("acp-schema/v1.schema.json", def, json);
    check("acp-schema/v2.schema.json", def, json);
}

/// Whether `json` is a valid `$defs/<def>` of the ACP schema `version` (`"v1"` or
/// `"v2"`); `None` when the oracles are missing.
pub fn acp_accepts(version: &str, def: &str, json: &Value) -> Option<bool> {
    is_valid(&format!("acp-schema/{version}.schema.json"), def, json)
}

/// Asserts `json` is a valid `$defs/<def>` of the MCP schema of `version`
/// (`2025-11-25` or `2026-07-28`), erratum 1 patched.
pub fn assert_mcp(version: &str, def: &str, json: &Value) {
    check(&format!("mcp-schema/{version}/schema.json"), def, json);
}

/// Whether `json` is a valid `$defs/<def>` of the MCP schema of `version`.
pub fn mcp_accepts(version: &str, def: &str, json: &Value) -> Option<bool> {
    is_valid(&format!("mcp-schema/{version}/schema.json"), def, json)
}
