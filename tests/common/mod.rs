//! Shared by the integration tests that check output against the oracles in
//! `../shared/oracles` (published ACP/MCP schemas, test suites).
//!
//! The oracles live outside the repository. When they cannot be found a test says that
//! it was skipped and why; on CI (the `CI` environment variable set) it fails instead,
//! so a missing checkout can never pass silently.
#![allow(dead_code)] // each test crate uses its own subset

use std::path::{Path, PathBuf};
use std::process::Command;

/// The oracles directory: `$ELICIT_ORACLES` if set, else `<workspace>/../shared/oracles`.
/// `None` (with a note on stderr) when it does not exist outside CI; a panic on CI.
pub fn oracles_dir() -> Option<PathBuf> {
    let (dir, source) = match std::env::var_os("ELICIT_ORACLES") {
        Some(dir) => (PathBuf::from(dir), "ELICIT_ORACLES"),
        None => (
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/oracles"),
            "the default location <workspace>/../shared/oracles",
        ),
    };
    if dir.is_dir() {
        return Some(dir);
    }
    let why = format!(
        "oracles not found at {} (from {source}); set ELICIT_ORACLES to the oracles directory",
        dir.display()
    );
    if std::env::var_os("CI").is_some() {
        panic!("{why}; on CI the oracle tests must run");
    }
    eprintln!("skipped: {why}");
    None
}

/// A JSON file under the oracles directory, by relative path. `None` under the same
/// rule as [`oracles_dir`]; a present but unreadable or malformed file is a failure.
pub fn load_json(rel: &str) -> Option<serde_json::Value> {
    let path = oracles_dir()?.join(rel);
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) => {
            let why = format!("oracle {} cannot be read: {e}", path.display());
            if std::env::var_os("CI").is_some() || path.parent().is_some_and(Path::is_dir) {
                panic!("{why}");
            }
            eprintln!("skipped: {why}");
            return None;
        }
    };
    match serde_json::from_str(&text) {
        Ok(json) => Some(json),
        Err(e) => panic!("oracle {} is not valid JSON: {e}", path.display()),
    }
}

pub mod formats;
pub mod gen;

/// Asserts that `json` is a valid instance of `$defs/<def>` in both official ACP
/// schemas (v1 and v2; v2 is stricter where they differ). Skips under the rule of
/// [`oracles_dir`].
pub fn assert_valid_acp(def: &str, json: &serde_json::Value) {
    for version in ["v1", "v2"] {
        let Some(root) = load_json(&format!("acp-schema/{version}.schema.json")) else {
            return;
        };
        let errors = errors_of(&acp_validator(&root, def), json);
        assert!(
            errors.is_empty(),
            "not a valid ACP {version} `{def}`:\n  {}\n{}",
            errors.join("\n  "),
            serde_json::to_string_pretty(json).unwrap_or_default()
        );
    }
}

/// A validator for `$defs/<def>` of an ACP schema root, with format assertion on: the
/// root's `$schema` and `$defs` around a `$ref` to the definition.
pub fn acp_validator(root: &serde_json::Value, def: &str) -> jsonschema::Validator {
    let wrapped = serde_json::json!({
        "$schema": root["$schema"],
        "$defs": root["$defs"],
        "$ref": format!("#/$defs/{def}"),
    });
    jsonschema::options()
        .should_validate_formats(true)
        .build(&wrapped)
        .unwrap_or_else(|e| panic!("the ACP schema for `{def}` does not compile: {e}"))
}

/// Validators for one ACP definition, in both versions (build once, use many times).
pub fn acp_validators(def: &str) -> Vec<(&'static str, jsonschema::Validator)> {
    acp_validators_in(&["v1", "v2"], def)
}

/// Validators for one ACP definition in the given versions (`"v1"`, `"v2"`).
pub fn acp_validators_in(
    versions: &[&'static str],
    def: &str,
) -> Vec<(&'static str, jsonschema::Validator)> {
    let mut out = Vec::new();
    for version in versions {
        let Some(root) = load_json(&format!("acp-schema/{version}.schema.json")) else {
            return Vec::new();
        };
        out.push((*version, acp_validator(&root, def)));
    }
    out
}

/// The validation errors of `instance` against one validator, as readable lines.
pub fn errors_of(validator: &jsonschema::Validator, instance: &serde_json::Value) -> Vec<String> {
    validator
        .iter_errors(instance)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect()
}

/// Asserts that `json` is a valid `$defs/<def>` in the given ACP schema versions only
/// (for what only v2's forward-compatible "other" variants admit, or definitions only
/// one version has).
pub fn assert_valid_acp_versions(versions: &[&'static str], def: &str, json: &serde_json::Value) {
    for (version, validator) in acp_validators_in(versions, def) {
        let errors = errors_of(&validator, json);
        assert!(
            errors.is_empty(),
            "not a valid ACP {version} `{def}`: {errors:?}\n{json:#}"
        );
    }
}

/// Builds an example with cargo and returns the path of its executable, from cargo's
/// JSON messages. The build uses the features and, when it is `release`, the profile
/// this test was compiled with, so that it reuses the library this test links instead
/// of compiling another variant.
pub fn build_example(name: &str) -> PathBuf {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut command = Command::new(cargo);
    command
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["build", "--example", name, "--no-default-features"])
        .arg("--message-format=json-render-diagnostics");
    let features: Vec<&str> = [
        ("url", cfg!(feature = "url")),
        ("acp", cfg!(feature = "acp")),
        (
            "agent-client-protocol",
            cfg!(feature = "agent-client-protocol"),
        ),
        ("rmcp_3", cfg!(feature = "rmcp_3")),
        ("html", cfg!(feature = "html")),
        ("axum", cfg!(feature = "axum")),
        ("inquire", cfg!(feature = "inquire")),
        ("redis", cfg!(feature = "redis")),
        ("ratatui", cfg!(feature = "ratatui")),
    ]
    .into_iter()
    .filter_map(|(feature, on)| on.then_some(feature))
    .collect();
    if !features.is_empty() {
        command.args(["--features", &features.join(",")]);
    }
    if !cfg!(debug_assertions) {
        command.arg("--release");
    }
    let output = command
        .output()
        .unwrap_or_else(|e| panic!("cannot run cargo to build the `{name}` example: {e}"));
    assert!(
        output.status.success(),
        "building the `{name}` example failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .filter(|message| {
            message["reason"] == "compiler-artifact"
                && message["target"]["name"] == name
                && message["target"]["kind"]
                    .as_array()
                    .is_some_and(|kinds| kinds.iter().any(|k| k == "example"))
        })
        .find_map(|message| message["executable"].as_str().map(PathBuf::from))
        .unwrap_or_else(|| panic!("cargo built the `{name}` example but reported no executable"))
}

/// Waits for `child` to exit, killing it and failing the test when it is still
/// running after `limit`; then its captured output.
pub fn wait_bounded(
    mut child: std::process::Child,
    limit: std::time::Duration,
) -> std::process::Output {
    let started = std::time::Instant::now();
    while child.try_wait().expect("the child's status").is_none() {
        if started.elapsed() > limit {
            let _ = child.kill();
            panic!("the child did not finish within {limit:?}");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    child.wait_with_output().expect("the child's output")
}
