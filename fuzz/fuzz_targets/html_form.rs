//! The HTML form and the browser's post, from the input `[schema, body]` (the body a
//! string, read as urlencoded bytes). Invariants: no panic; every `<` of the page opens
//! or closes one of the elements the renderer writes, so no schema text became markup;
//! what `parse_submission` returns validates against the schema (F3); the re-render
//! with the errors is just as clean.
#![no_main]

use elicit::client::html::{parse_submission, HtmlForm, Submission};
use elicit::client::AgentIdentity;
use elicit::RequestedSchema;
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

const ELEMENTS: &[&str] = &[
    "form", "div", "p", "strong", "bdi", "label", "input", "span", "fieldset", "legend", "button",
    "code", "style",
];

fn assert_only_our_markup(page: &str) {
    for (at, _) in page.match_indices('<') {
        let rest = page[at + 1..].trim_start_matches('/');
        let name: String = rest
            .chars()
            .take_while(|c| c.is_ascii_alphabetic())
            .collect();
        assert!(
            ELEMENTS.contains(&name.as_str()) && rest[name.len()..].starts_with([' ', '>']),
            "markup not written by the renderer at {at}: {page}"
        );
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(Value::Array(input)) = serde_json::from_slice::<Value>(data) else {
        return;
    };
    let [schema, Value::String(body)] = input.as_slice() else {
        return;
    };
    let Ok(schema) = RequestedSchema::from_json_lenient(schema) else {
        return;
    };
    let agent = schema.title().unwrap_or("fuzz").to_owned();
    let page = HtmlForm::new(&schema)
        .agent(AgentIdentity::new(agent.clone()))
        .message(agent)
        .render();
    assert_only_our_markup(&page);
    // The agent's own page: secrets masked, no style sheet.
    let masked = HtmlForm::new(&schema)
        .mask_secrets(true)
        .stylesheet(false)
        .render();
    assert_only_our_markup(&masked);
    if let Ok(content) = parse_submission(&schema, body.as_bytes()) {
        assert!(
            schema.validate(&content).is_ok(),
            "returned content validates (F3)"
        );
    }
    let submission = Submission::parse(&schema, body.as_bytes());
    let _ = submission.response();
    assert_only_our_markup(&HtmlForm::new(&schema).refill(&submission).render());
});
