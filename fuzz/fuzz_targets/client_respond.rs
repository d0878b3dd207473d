//! Arbitrary `elicitation/create` params through the whole client engine
//! (`ClientEngine`) with a scripted asker, from the input `[dialect, params, [step, …],
//! [completion, …]]`:
//! - `dialect` is `"mcp"` for an MCP connection (no scope shown), anything else ACP;
//! - a step is `["keep"]`, `["clear"]`, `["text", s]`, `["value", v]`, `["back"]`,
//!   `["decline"]`, `["cancel"]` (field answers), `["send"]`, `["edit", name]`,
//!   `["review-decline"]`, `["review-cancel"]` (review choices), `["open"]`,
//!   `["consent-decline"]`, `["consent-cancel"]` (URL consent), or `["defaults"]` as
//!   the first step for the headless accept-defaults policy;
//! - a completion is the params of an `elicitation/complete`.
//!
//! Invariants: no panic, and the engine never waits on a scripted asker; a refusal is
//! a JSON-RPC error with a message and the person was told why (never a silent skip);
//! an accepted form's content validates against the schema the client read (F3);
//! decline and cancel carry no content (R2); an accepted URL request is one the
//! person consented to after seeing its exact URL (S2), it carries no content (R4),
//! and its completion is reported once, an unknown or finished id never (U6).
#![no_main]

use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll, Waker};

use elicit::client::{
    AgentIdentity, AskerNotice, ClientEngine, Consent, FieldAnswer, ReviewChoice, ScriptedAsker,
    Shown, Step,
};
use elicit::{Action, RequestedSchema, UrlReview};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

fn step(op: &Value) -> Option<Step> {
    let op = op.as_array()?;
    let word = op.first()?.as_str()?;
    let arg = op.get(1);
    let text = || arg.and_then(Value::as_str).unwrap_or("").to_owned();
    Some(match word {
        "keep" => Step::Field(FieldAnswer::Keep),
        "clear" => Step::Field(FieldAnswer::Clear),
        "text" => Step::Field(FieldAnswer::Text(text())),
        "value" => Step::Field(FieldAnswer::Value(arg.cloned().unwrap_or(Value::Null))),
        "back" => Step::Field(FieldAnswer::Back),
        "decline" => Step::Field(FieldAnswer::Decline),
        "cancel" => Step::Field(FieldAnswer::Cancel),
        "send" => Step::Review(ReviewChoice::Send),
        "edit" => Step::Review(ReviewChoice::Edit(text())),
        "review-decline" => Step::Review(ReviewChoice::Decline),
        "review-cancel" => Step::Review(ReviewChoice::Cancel),
        "open" => Step::Consent(Consent::Open),
        "consent-decline" => Step::Consent(Consent::Decline),
        "consent-cancel" => Step::Consent(Consent::Cancel),
        _ => return None,
    })
}

/// Polls a future that must not wait: every answer of a scripted asker is ready.
fn now<F: Future>(future: F) -> F::Output {
    let mut future = pin!(future);
    let mut cx = Context::from_waker(Waker::noop());
    match future.as_mut().poll(&mut cx) {
        Poll::Ready(output) => output,
        Poll::Pending => panic!("the engine waited on a scripted asker"),
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(Value::Array(input)) = serde_json::from_slice::<Value>(data) else {
        return;
    };
    let [dialect, params, Value::Array(steps), rest @ ..] = input.as_slice() else {
        return;
    };
    let responder = if dialect == "mcp" {
        ClientEngine::mcp(AgentIdentity::new("fuzz-server"))
    } else {
        ClientEngine::new(AgentIdentity::new("fuzz-agent"))
    };
    let mut asker = if steps.first().and_then(|s| s.get(0)) == Some(&Value::from("defaults")) {
        ScriptedAsker::accept_defaults()
    } else {
        ScriptedAsker::new(steps.iter().take(64).filter_map(step))
    };

    let outcome = now(responder.respond(&mut asker, params));
    let shown = asker.shown();
    let url = params.get("url").and_then(Value::as_str);
    let is_url = params.get("mode").and_then(Value::as_str) == Some("url");
    match &outcome {
        Err(error) => {
            assert!(!error.message().is_empty(), "an error without a message");
            assert!(
                shown
                    .iter()
                    .any(|s| matches!(s, Shown::Notice(AskerNotice::Refused { .. }))),
                "a request refused without telling the person why: {shown:?}"
            );
            assert!(
                !shown.iter().any(|s| matches!(
                    s,
                    Shown::Field { .. } | Shown::Consent { .. } | Shown::Review { .. }
                )),
                "a refused request was still asked: {shown:?}"
            );
        }
        Ok(response) => match response.action() {
            Action::Accept if is_url => {
                // The full URL as the review shows it (S2): the request's URL, normalised.
                let reviewed = url.and_then(|u| UrlReview::new(u).ok());
                let reviewed = reviewed.as_ref().map(UrlReview::full_url);
                let consented = shown.iter().any(
                    |s| matches!(s, Shown::Consent { url: seen, .. } if Some(seen.as_str()) == reviewed),
                );
                assert!(consented, "a URL accepted without consent to its URL");
                assert!(
                    response.content_value().is_none(),
                    "URL accept with content"
                );
            }
            Action::Accept => {
                let schema = params
                    .get("requestedSchema")
                    .map(RequestedSchema::from_json_lenient)
                    .and_then(Result::ok)
                    .expect("an accepted form had a schema the client read");
                let content = response.content_value().cloned().unwrap_or(Value::Null);
                if let Err(errors) = schema.validate(&content) {
                    panic!("accepted content that does not validate: {errors}");
                }
            }
            Action::Decline | Action::Cancel => {
                assert!(
                    response.content_value().is_none(),
                    "content on {response:?}"
                );
            }
            other => panic!("the engine answered an action it never builds: {other:?}"),
        },
    }

    // Completions: only the id consented to, once.
    let consented_id = match &outcome {
        Ok(response) if is_url && response.action() == &Action::Accept => params
            .get("elicitationId")
            .and_then(Value::as_str)
            .map(str::to_owned),
        _ => None,
    };
    let mut completed = 0;
    for completion in rest.first().and_then(Value::as_array).into_iter().flatten() {
        if let elicit::client::Completion::Completed(id) = responder.complete(completion) {
            assert_eq!(
                Some(&id),
                consented_id.as_ref(),
                "completed an id never consented to"
            );
            completed += 1;
        }
    }
    if let Some(id) = &consented_id {
        let done = responder.complete(&serde_json::json!({ "elicitationId": id }));
        assert!(
            completed == 0 || !done.is_completed(),
            "a finished id completed twice"
        );
        assert!(completed <= 1, "one id completed {completed} times");
    } else {
        assert_eq!(completed, 0);
    }
});
