//! Sequences of form-engine operations, from the input `[schema, [op, …]]` where an op
//! is `["set", name, value]`, `["text", name, text]`, `["select", name, option]`,
//! `["deselect", name, option]`, `["clear", name]`, `["review"]` or `["submit"]`.
//! Invariants: no panic; a value set without error is held; what `submit` accepts
//! validates against the schema (F3); review and submit agree on readiness (K2).
#![no_main]

use elicit::client::{AgentIdentity, FormEngine};
use elicit::{Action, RequestedSchema};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

fuzz_target!(|data: &[u8]| {
    let Ok(Value::Array(input)) = serde_json::from_slice::<Value>(data) else {
        return;
    };
    let [schema, Value::Array(ops)] = input.as_slice() else {
        return;
    };
    let Ok(schema) = RequestedSchema::from_json_lenient(schema) else {
        return;
    };
    let Ok(mut form) = FormEngine::new(&schema, AgentIdentity::new("fuzz"), "fuzzing") else {
        return;
    };
    for op in ops.iter().take(64) {
        let Value::Array(op) = op else { continue };
        let word = op.first().and_then(Value::as_str).unwrap_or("");
        let name = op.get(1).and_then(Value::as_str).unwrap_or("");
        let arg = op.get(2).cloned().unwrap_or(Value::Null);
        match word {
            "set" => {
                if form.set(name, arg.clone()).is_ok() {
                    assert!(
                        form.value(name).is_some(),
                        "a value set without error is held"
                    );
                }
            }
            "text" => {
                let _ = form.set_text(name, arg.as_str().unwrap_or(""));
            }
            "select" => {
                let _ = form.select_option(name, arg.as_str().unwrap_or(""));
            }
            "deselect" => {
                let _ = form.deselect_option(name, arg.as_str().unwrap_or(""));
            }
            "clear" => {
                let _ = form.clear(name);
            }
            "review" => {
                let review = form.review();
                assert_eq!(
                    review.is_ready(),
                    form.submit().is_ok(),
                    "review and submit disagree"
                );
            }
            _ => {
                if let Ok(response) = form.submit() {
                    assert_eq!(response.action(), &Action::Accept);
                    let content = response.content_value().cloned().unwrap_or(Value::Null);
                    assert!(
                        schema.validate(&content).is_ok(),
                        "submit sent content that does not validate"
                    );
                }
            }
        }
    }
    assert_eq!(form.decline().action(), &Action::Decline);
    assert_eq!(form.cancel().action(), &Action::Cancel);
});
