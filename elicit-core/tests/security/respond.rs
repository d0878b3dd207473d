//! `client/respond.rs`: the client engine (`ClientEngine`) driven by scripted askers:
//! what a person is asked, in which order, what is refused and shown, and what goes back
//! on the wire. Mirrors the facade's `tests/integration/client_respond.rs` (which
//! cargo-mutants does not run for elicit-core), on elicit-core's public API, each
//! future driven to its end without a runtime ([`block_on`]): a scripted asker answers
//! at once, and a deadline is a future that is already over.

use std::future::{pending, ready};
use std::time::Duration;

use elicit_core::client::{
    AgentIdentity, AskFuture, Asker, AskerNotice, ClientEngine, ClientPolicy, Consent, FieldAnswer,
    FieldPrompt, FormAnswer, ReviewChoice, ReviewPrompt, ScriptedAsker, Shown, Step, StopSignal,
};
use elicit_core::protocol::INVALID_PARAMS;
use elicit_core::schema::{Limits, ParseOptions};
use elicit_core::{ElicitationCapabilities, Mode};
use serde_json::{json, Value};

/// Drives `future` to its end on this thread: every future here is ready, or waits
/// on another one raced beside it that is.
fn block_on<F: std::future::Future>(future: F) -> F::Output {
    use std::task::{Context, Poll, Waker};
    let mut future = std::pin::pin!(future);
    let mut cx = Context::from_waker(Waker::noop());
    for _ in 0..1_000_000 {
        if let Poll::Ready(output) = future.as_mut().poll(&mut cx) {
            return output;
        }
    }
    panic!("the future never finished")
}

fn responder() -> ClientEngine {
    ClientEngine::new(AgentIdentity::new("deploy-bot"))
}

/// Properties in an order no sort would give, each kind once.
fn kitchen_sink() -> Value {
    json!({
        "mode": "form", "sessionId": "s1", "toolCallId": "t9",
        "message": "Configure the deploy",
        "requestedSchema": { "type": "object", "required": ["target", "passes", "tags"],
            "properties": {
                "target": { "type": "string", "title": "Target", "enum": ["staging", "prod"], "default": "staging" },
                "passes": { "type": "integer", "minimum": 1, "maximum": 5, "default": 2 },
                "ratio": { "type": "number", "minimum": 0, "maximum": 1 },
                "notify": { "type": "boolean", "default": false },
                "email": { "type": "string", "format": "email" },
                "tags": { "type": "array", "minItems": 1, "maxItems": 2,
                    "items": { "anyOf": [ { "const": "a", "title": "Alpha" }, { "const": "b", "title": "Beta" } ] },
                    "default": ["b"] },
                "zone": { "type": "string", "oneOf": [ { "const": "eu", "title": "Europe" }, { "const": "us", "title": "America" } ] }
            } }
    })
}

fn fields_asked(shown: &[Shown]) -> Vec<String> {
    shown
        .iter()
        .filter_map(|s| match s {
            Shown::Field { name, .. } => Some(name.clone()),
            _ => None,
        })
        .collect()
}

fn wire(answer: &elicit_core::ElicitationResponse) -> String {
    serde_json::to_string(&answer.to_json()).unwrap()
}

#[test]
fn accept_defaults_sends_exactly_the_defaults_in_the_agents_order() {
    block_on(async {
        // covers: F4, D13, F3, R1
        let mut asker = ScriptedAsker::accept_defaults();
        let answer = responder()
            .respond(&mut asker, &kitchen_sink())
            .await
            .unwrap();
        // On the bytes: the agent's order, not alphabetical.
        assert_eq!(
            wire(&answer),
            r#"{"action":"accept","content":{"target":"staging","passes":2,"notify":false,"tags":["b"]}}"#
        );
        assert_eq!(
            fields_asked(asker.shown()),
            ["target", "passes", "ratio", "notify", "email", "tags", "zone"]
        );
    });
}

#[test]
fn accept_defaults_declines_a_form_with_a_required_field_without_default_and_every_url() {
    block_on(async {
        // covers: F4, R1, K3
        let mut params = kitchen_sink();
        params["requestedSchema"]["required"] = json!(["target", "email"]);
        let mut asker = ScriptedAsker::accept_defaults();
        let answer = responder().respond(&mut asker, &params).await.unwrap();
        assert_eq!(answer.to_json(), json!({ "action": "decline" }));

        let url = json!({ "mode": "url", "sessionId": "s1", "message": "Sign in",
            "elicitationId": "e1", "url": "https://auth.example.com/start" });
        let mut asker = ScriptedAsker::accept_defaults();
        let answer = responder().respond(&mut asker, &url).await.unwrap();
        assert_eq!(answer.to_json(), json!({ "action": "decline" }));
    });
}

#[test]
fn a_wrong_value_is_refused_at_entry_shown_beside_its_field_and_corrected() {
    block_on(async {
        // covers: F3, K2, V1
        let params = json!({ "mode": "form", "requestId": 7, "message": "How many?",
            "requestedSchema": { "type": "object", "required": ["passes"], "properties": {
                "passes": { "type": "integer", "title": "Passes", "minimum": 1, "maximum": 5 },
                "name": { "type": "string", "maxLength": 3 }
            } } });
        let mut asker = ScriptedAsker::new([
            Step::Field(FieldAnswer::Text("nine".into())),
            Step::Field(FieldAnswer::Text("9".into())),
            Step::Field(FieldAnswer::Text("4".into())),
            Step::Field(FieldAnswer::Text("toolong".into())),
            Step::Field(FieldAnswer::Keep),
            Step::Review(ReviewChoice::Send),
        ]);
        let answer = responder().respond(&mut asker, &params).await.unwrap();
        assert_eq!(
            answer.to_json(),
            json!({ "action": "accept", "content": { "passes": 4 } })
        );
        let problems: Vec<(String, Option<String>)> = asker
            .shown()
            .iter()
            .filter_map(|s| match s {
                Shown::Field { name, problem, .. } => Some((name.clone(), problem.clone())),
                _ => None,
            })
            .collect();
        assert_eq!(problems[0], ("passes".into(), None));
        assert!(problems[1]
            .1
            .as_deref()
            .unwrap()
            .contains("not a whole number"));
        assert!(problems[2].1.as_deref().unwrap().contains("at most 5"));
        assert_eq!(problems[3], ("name".into(), None));
        assert!(problems[4].1.as_deref().unwrap().contains("at most 3"));
        assert_eq!(asker.remaining(), 0);
    });
}

#[test]
fn a_required_field_left_empty_is_asked_again_at_once() {
    block_on(async {
        // covers: F3, V5
        let params = json!({ "mode": "form", "sessionId": "s", "message": "Name?",
            "requestedSchema": { "type": "object", "required": ["name"], "properties": {
                "name": { "type": "string" } } } });
        let mut asker = ScriptedAsker::new([
            Step::Field(FieldAnswer::Keep),
            Step::Field(FieldAnswer::Text("Ada".into())),
            Step::Review(ReviewChoice::Send),
        ]);
        let answer = responder().respond(&mut asker, &params).await.unwrap();
        assert_eq!(
            answer.to_json(),
            json!({ "action": "accept", "content": { "name": "Ada" } })
        );
        match &asker.shown()[1] {
            Shown::Field { problem, .. } => {
                assert!(problem.as_deref().unwrap().contains("required"))
            }
            other => panic!("expected the field again, got {other:?}"),
        }
    });
}

#[test]
fn a_multi_select_is_checked_for_its_item_counts_at_entry() {
    block_on(async {
        // covers: F3, F2
        let params = json!({ "mode": "form", "sessionId": "s", "message": "Pick two",
            "requestedSchema": { "type": "object", "properties": {
                "tags": { "type": "array", "minItems": 2,
                    "items": { "type": "string", "enum": ["a", "b", "c"] } } } } });
        let mut asker = ScriptedAsker::new([
            Step::Field(FieldAnswer::Value(json!(["a"]))),
            Step::Field(FieldAnswer::Text("a, d".into())),
            Step::Field(FieldAnswer::Text("a, c".into())),
            Step::Review(ReviewChoice::Send),
        ]);
        let answer = responder().respond(&mut asker, &params).await.unwrap();
        assert_eq!(
            answer.to_json(),
            json!({ "action": "accept", "content": { "tags": ["a", "c"] } })
        );
        assert!(
            matches!(&asker.shown()[1], Shown::Field { problem: Some(p), .. } if p.contains("at least 2"))
        );
        assert!(
            matches!(&asker.shown()[2], Shown::Field { problem: Some(p), .. } if p.contains("not one of the options"))
        );
        assert_eq!(asker.shown()[3], Shown::Review { ready: true });
    });
}

#[test]
fn decline_and_cancel_are_reachable_from_a_field_and_from_the_review() {
    block_on(async {
        // covers: K1, R1
        for (steps, action) in [
            (vec![Step::Field(FieldAnswer::Decline)], "decline"),
            (vec![Step::Field(FieldAnswer::Cancel)], "cancel"),
            (
                vec![
                    Step::Field(FieldAnswer::Keep),
                    Step::Field(FieldAnswer::Keep),
                    Step::Field(FieldAnswer::Keep),
                    Step::Field(FieldAnswer::Keep),
                    Step::Field(FieldAnswer::Keep),
                    Step::Field(FieldAnswer::Keep),
                    Step::Field(FieldAnswer::Keep),
                    Step::Review(ReviewChoice::Decline),
                ],
                "decline",
            ),
            // The script running out is a person walking away.
            (vec![], "cancel"),
        ] {
            let mut asker = ScriptedAsker::new(steps);
            let answer = responder()
                .respond(&mut asker, &kitchen_sink())
                .await
                .unwrap();
            assert_eq!(answer.to_json(), json!({ "action": action }));
        }
    });
}

#[test]
fn back_and_edit_change_an_earlier_answer() {
    block_on(async {
        // covers: K2
        let params = json!({ "mode": "form", "sessionId": "s", "message": "Two",
            "requestedSchema": { "type": "object", "properties": {
                "a": { "type": "string" }, "b": { "type": "string" } } } });
        let mut asker = ScriptedAsker::new([
            Step::Field(FieldAnswer::Text("1".into())),
            Step::Field(FieldAnswer::Back),
            Step::Field(FieldAnswer::Text("2".into())),
            Step::Field(FieldAnswer::Text("x".into())),
            Step::Review(ReviewChoice::Edit("b".into())),
            Step::Field(FieldAnswer::Clear),
            Step::Review(ReviewChoice::Send),
        ]);
        let answer = responder().respond(&mut asker, &params).await.unwrap();
        assert_eq!(
            answer.to_json(),
            json!({ "action": "accept", "content": { "a": "2" } })
        );
        assert_eq!(fields_asked(asker.shown()), ["a", "b", "a", "b", "b"]);
    });
}

#[test]
fn a_request_the_client_must_refuse_gets_its_error_and_the_person_is_told() {
    block_on(async {
        // covers: C8, E6, F1, D3
        let cases = [
            // URL mode not declared by a form-only asker (C8).
            (
                json!({ "mode": "url", "sessionId": "s", "message": "m",
                    "elicitationId": "e", "url": "https://a.example.com/" }),
                "undeclared_mode",
            ),
            // A malformed schema: `enum` with `oneOf` (D3).
            (
                json!({ "mode": "form", "sessionId": "s", "message": "m",
                    "requestedSchema": { "type": "object", "properties": {
                        "x": { "type": "string", "enum": ["a"], "oneOf": [{ "const": "a" }] } } } }),
                "malformed_schema",
            ),
        ];
        for (params, reason) in cases {
            let mut asker = ScriptedAsker::new([])
                .with_modes(ElicitationCapabilities::with_modes([Mode::Form]));
            let error = responder().respond(&mut asker, &params).await.unwrap_err();
            assert_eq!(error.code(), INVALID_PARAMS);
            assert_eq!(error.data().unwrap()["reason"], reason);
            assert!(
                matches!(asker.shown(), [Shown::Notice(AskerNotice::Refused { agent, .. })] if agent == "deploy-bot"),
                "{:?}",
                asker.shown()
            );
        }
        // A property type this client does not know is refused, never skipped (E6).
        let unknown = json!({ "mode": "form", "sessionId": "s", "message": "m",
            "requestedSchema": { "type": "object", "properties": {
                "a": { "type": "string" }, "when": { "type": "moment" } } } });
        let mut asker = ScriptedAsker::accept_defaults();
        let error = responder().respond(&mut asker, &unknown).await.unwrap_err();
        assert_eq!(error.code(), INVALID_PARAMS);
        assert!(matches!(
            asker.shown(),
            [Shown::Notice(AskerNotice::Refused { reason, .. })] if reason.contains("when")
        ));
        // A custom mode is never rendered as a known one (E6).
        let custom = json!({ "mode": "_acme", "sessionId": "s", "message": "m" });
        let error = responder()
            .respond(&mut ScriptedAsker::accept_defaults(), &custom)
            .await
            .unwrap_err();
        assert_eq!(error.code(), INVALID_PARAMS);
    });
}

#[test]
fn url_mode_shows_the_review_asks_consent_and_tracks_the_completion_once() {
    block_on(async {
        // covers: S2, S4, K3, U2, U6, R4
        let params = json!({ "mode": "url", "sessionId": "s1", "message": "Sign in",
            "elicitationId": "e-42", "url": "https://xn--pypal-4ve.com/login" });
        let responder = responder();
        let mut asker = ScriptedAsker::new([Step::Consent(Consent::Open)]);
        let answer = responder.respond(&mut asker, &params).await.unwrap();
        assert_eq!(answer.to_json(), json!({ "action": "accept" }));
        match &asker.shown()[0] {
            Shown::Consent { url, warnings } => {
                assert_eq!(url, "https://xn--pypal-4ve.com/login");
                assert!(!warnings.is_empty(), "a punycode host is warned about");
            }
            other => panic!("expected the consent, got {other:?}"),
        }
        assert!(responder.is_pending("e-42"));
        assert!(!responder
            .complete(&json!({ "elicitationId": "e-1" }))
            .is_completed());
        assert!(responder
            .complete(&json!({ "elicitationId": "e-42" }))
            .is_completed());
        assert!(!responder
            .complete(&json!({ "elicitationId": "e-42" }))
            .is_completed());

        // Declined and dismissed consents track nothing.
        for (consent, action) in [(Consent::Decline, "decline"), (Consent::Cancel, "cancel")] {
            let responder = self::responder();
            let mut asker = ScriptedAsker::new([Step::Consent(consent)]);
            let answer = responder.respond(&mut asker, &params).await.unwrap();
            assert_eq!(answer.to_json(), json!({ "action": action }));
            assert!(!responder
                .complete(&json!({ "elicitationId": "e-42" }))
                .is_completed());
        }
    });
}

#[test]
fn a_url_that_cannot_be_offered_is_declined_without_asking() {
    block_on(async {
        // covers: S2, S4
        let params = json!({ "mode": "url", "sessionId": "s1", "message": "Sign in",
            "elicitationId": "e", "url": "javascript:alert(1)" });
        let mut asker = ScriptedAsker::new([Step::Consent(Consent::Open)]);
        let answer = responder().respond(&mut asker, &params).await.unwrap();
        assert_eq!(answer.to_json(), json!({ "action": "decline" }));
        assert!(matches!(
            asker.shown(),
            [Shown::Notice(AskerNotice::Refused { .. })]
        ));
        assert_eq!(asker.remaining(), 1, "no consent was asked");
    });
}

#[test]
fn never_ask_declines_without_showing_anything_but_still_refuses_bad_requests() {
    block_on(async {
        // covers: K1, C8
        let responder = responder().with_policy(ClientPolicy::never_ask());
        let mut asker = ScriptedAsker::new([Step::Field(FieldAnswer::Keep)]);
        let answer = responder
            .respond(&mut asker, &kitchen_sink())
            .await
            .unwrap();
        assert_eq!(answer.to_json(), json!({ "action": "decline" }));
        assert!(asker.shown().is_empty());
        let url = json!({ "mode": "url", "sessionId": "s1", "message": "Sign in",
            "elicitationId": "e", "url": "https://auth.example.com/" });
        let answer = responder.respond(&mut asker, &url).await.unwrap();
        assert_eq!(answer.to_json(), json!({ "action": "decline" }));
        assert!(asker.shown().is_empty());
        let bad = json!({ "mode": "form", "message": "no scope",
            "requestedSchema": { "type": "object", "properties": {} } });
        assert_eq!(
            responder
                .respond(&mut asker, &bad)
                .await
                .unwrap_err()
                .code(),
            INVALID_PARAMS
        );
    });
}

/// A person who never answers; records whether the engine told it to stop.
#[derive(Default)]
struct Absent {
    stops: Vec<StopSignal>,
    notices: Vec<AskerNotice>,
}

impl Asker for Absent {
    fn ask_field<'a>(&'a mut self, prompt: FieldPrompt<'a>) -> AskFuture<'a, FieldAnswer> {
        self.stops.push(prompt.stop.clone());
        Box::pin(pending())
    }
    fn review<'a>(&'a mut self, prompt: ReviewPrompt<'a>) -> AskFuture<'a, ReviewChoice> {
        self.stops.push(prompt.stop.clone());
        Box::pin(pending())
    }
    fn notice(&mut self, notice: &AskerNotice) {
        self.notices.push(notice.clone());
    }
}

#[test]
fn the_deadline_answers_cancel_stops_the_prompt_and_tells_the_person() {
    block_on(async {
        // covers: R1, K1
        let mut asker = Absent::default();
        let answer = responder()
            .respond_until(&mut asker, &kitchen_sink(), ready(()))
            .await
            .unwrap();
        assert_eq!(answer.to_json(), json!({ "action": "cancel" }));
        assert_eq!(asker.stops.len(), 1);
        assert!(asker.stops[0].is_stopped());
        assert_eq!(
            asker.notices,
            [AskerNotice::TimedOut {
                agent: "deploy-bot".into()
            }]
        );

        // An answer before the deadline is the answer; the signal never fires.
        let mut asker = ScriptedAsker::accept_defaults();
        let answer = responder()
            .respond_until(&mut asker, &kitchen_sink(), pending())
            .await
            .unwrap();
        assert_eq!(answer.to_json()["action"], "accept");
        // A deadline that is already over still lets a refusal through first.
        let error = responder()
            .respond_until(
                &mut ScriptedAsker::accept_defaults(),
                &json!({ "mode": "form" }),
                ready(()),
            )
            .await
            .unwrap_err();
        assert_eq!(error.code(), INVALID_PARAMS);
    });
}

#[test]
fn a_whole_form_asker_gets_the_problems_and_its_content_is_sent_in_order() {
    block_on(async {
        // covers: F3, D13, D9
        let mut content = serde_json::Map::new();
        content.insert("notify".into(), json!(true));
        content.insert("passes".into(), json!(9));
        content.insert("target".into(), json!("prod"));
        content.insert("tags".into(), json!(["a"]));
        content.insert("extra".into(), json!("not a field"));
        let mut fixed = content.clone();
        fixed.insert("passes".into(), json!(3));
        let mut asker = ScriptedAsker::new([
            Step::Form(FormAnswer::Submit(content)),
            Step::Form(FormAnswer::Submit(fixed)),
        ])
        .whole_form(true);
        let answer = responder()
            .respond(&mut asker, &kitchen_sink())
            .await
            .unwrap();
        assert_eq!(
            wire(&answer),
            r#"{"action":"accept","content":{"target":"prod","passes":3,"notify":true,"tags":["a"]}}"#
        );
        match asker.shown() {
            [Shown::Form { problems: None }, Shown::Form {
                problems: Some(problems),
            }] => assert!(problems.contains("passes"), "{problems}"),
            other => panic!("{other:?}"),
        }
    });
}

#[test]
fn the_client_declares_what_its_asker_renders() {
    block_on(async {
        // covers: C1, C3, C7
        let form_only = ScriptedAsker::accept_defaults()
            .with_modes(ElicitationCapabilities::with_modes([Mode::Form]));
        let caps = responder().capabilities(&form_only);
        assert!(caps.supports(Mode::Form) && !caps.supports(Mode::Url));
        let both = ScriptedAsker::accept_defaults();
        assert!(responder().capabilities(&both).supports(Mode::Url));
    });
}

#[cfg(feature = "html")]
#[test]
fn the_html_asker_shows_the_page_again_with_errors_and_reads_the_buttons() {
    block_on(async {
        // covers: F3, F4, K1, K4, R1, D13
        use elicit_core::client::html::HtmlAsker;
        use std::sync::{Arc, Mutex};

        let params = json!({ "mode": "form", "sessionId": "s", "message": "Deploy <b>now</b>?",
            "requestedSchema": { "type": "object", "required": ["passes"], "properties": {
                "passes": { "type": "integer", "title": "Passes", "minimum": 1, "maximum": 5, "default": 2 },
                "note": { "type": "string" } } } });
        let pages = Arc::new(Mutex::new(Vec::<String>::new()));
        let bodies = Arc::new(Mutex::new(vec![
            b"f.passes=3&f.note=ok&elicit-action=accept".to_vec(),
            b"f.passes=9&f.note=ok&elicit-action=accept".to_vec(),
        ]));
        let (seen, queue) = (Arc::clone(&pages), Arc::clone(&bodies));
        let mut asker = HtmlAsker::new(move |page: String| {
            seen.lock().unwrap().push(page);
            let body = queue.lock().unwrap().pop();
            async move { body }
        });
        assert!(!responder().capabilities(&asker).supports(Mode::Url));
        let answer = responder().respond(&mut asker, &params).await.unwrap();
        assert_eq!(
            wire(&answer),
            r#"{"action":"accept","content":{"passes":3,"note":"ok"}}"#
        );
        let pages = pages.lock().unwrap().clone();
        assert_eq!(pages.len(), 2);
        // The agent and its message, escaped (K1, K4); the default pre-filled (F4).
        assert!(pages[0].contains("deploy-bot"), "{}", pages[0]);
        assert!(
            pages[0].contains("Deploy &lt;b&gt;now&lt;&#x2F;b&gt;?"),
            "{}",
            pages[0]
        );
        assert!(pages[0].contains(r#"value="2""#));
        // The refused answer shown again with its error beside the field (F3).
        assert!(pages[1].contains(r#"value="9""#) && pages[1].contains("must be at most 5"));

        // Decline whatever the fields hold; a closed page is a cancel.
        for (body, action) in [
            (Some(b"f.passes=&elicit-action=decline".to_vec()), "decline"),
            (None, "cancel"),
        ] {
            let mut asker = HtmlAsker::new(move |_page: String| {
                let body = body.clone();
                async move { body }
            });
            let answer = responder().respond(&mut asker, &params).await.unwrap();
            assert_eq!(answer.to_json(), json!({ "action": action }));
        }
    });
}

// covers: K1 (the policy a client is configured with is the one it applies and reports)
#[test]
fn the_policy_and_parse_options_read_back_as_configured() {
    let policy = ClientPolicy::new().with_deadline(Duration::from_secs(120));
    assert_eq!(policy.deadline(), Some(Duration::from_secs(120)));
    assert!(!policy.is_never_ask());
    assert_eq!(ClientPolicy::new().deadline(), None);
    assert!(ClientPolicy::never_ask().is_never_ask());
    assert_eq!(ClientPolicy::never_ask().deadline(), None);

    let engine = responder().with_policy(policy.clone());
    assert_eq!(engine.policy(), &policy);
    assert_eq!(responder().policy(), &ClientPolicy::new());
    assert_eq!(engine.agent().to_string(), "deploy-bot");
    let shown = format!("{engine:?}");
    assert!(
        shown.contains("deploy-bot") && shown.contains("120s"),
        "{shown}"
    );
    // Schemas are read leniently unless the client says otherwise.
    assert_eq!(responder().parse_options(), &ParseOptions::lenient());
}

// covers: D12 (a client's own, stricter limits refuse a larger form, and say so)
#[test]
fn stricter_parse_limits_refuse_a_larger_form() {
    block_on(async {
        let mut limits = Limits::default();
        limits.max_properties = 2;
        let options = ParseOptions::lenient().with_limits(limits);
        let engine = responder().with_parse_options(options.clone());
        assert_eq!(engine.parse_options(), &options);
        let mut asker = ScriptedAsker::accept_defaults();
        let error = engine
            .respond(&mut asker, &kitchen_sink())
            .await
            .unwrap_err();
        assert_eq!(error.code(), INVALID_PARAMS);
        assert!(matches!(
            asker.shown(),
            [Shown::Notice(AskerNotice::Refused { .. })]
        ));
        // The same form under the default limits is asked.
        let mut asker = ScriptedAsker::accept_defaults();
        assert!(responder()
            .respond(&mut asker, &kitchen_sink())
            .await
            .is_ok());
    });
}

/// An asker that answers every field with `Keep`, sends the review, and records
/// whether it was shown a scope.
#[derive(Default)]
struct SeesScope {
    scoped: Vec<bool>,
}

impl Asker for SeesScope {
    fn ask_field<'a>(&'a mut self, prompt: FieldPrompt<'a>) -> AskFuture<'a, FieldAnswer> {
        self.scoped.push(prompt.intro.scope.is_some());
        Box::pin(ready(FieldAnswer::Keep))
    }
    fn review<'a>(&'a mut self, prompt: ReviewPrompt<'a>) -> AskFuture<'a, ReviewChoice> {
        self.scoped.push(prompt.intro.scope.is_some());
        Box::pin(ready(ReviewChoice::Send))
    }
    fn notice(&mut self, _: &AskerNotice) {}
}

// covers: M1, K1 (an MCP request has no scope, so none is shown, whatever the request
// was given when it was read; an ACP request's session is shown)
#[test]
fn an_mcp_connection_shows_no_scope() {
    block_on(async {
        let params = json!({ "mode": "form", "sessionId": "s1", "message": "Name?",
            "requestedSchema": { "type": "object", "properties": {
                "name": { "type": "string" } } } });
        let mut acp = SeesScope::default();
        responder().respond(&mut acp, &params).await.unwrap();
        assert_eq!(acp.scoped, [true, true]);
        let mut mcp = SeesScope::default();
        ClientEngine::mcp(AgentIdentity::new("server"))
            .respond(&mut mcp, &params)
            .await
            .unwrap();
        assert_eq!(mcp.scoped, [false, false]);
    });
}

// covers: U6 (only a URL elicitation this client consented to awaits its completion)
#[test]
fn only_a_consented_url_is_pending() {
    block_on(async {
        let engine = responder();
        assert!(!engine.is_pending("e-7"));
        let params = json!({ "mode": "url", "sessionId": "s1", "message": "Sign in",
            "elicitationId": "e-7", "url": "https://auth.example.com/start" });
        let mut asker = ScriptedAsker::new([Step::Consent(Consent::Decline)]);
        engine.respond(&mut asker, &params).await.unwrap();
        assert!(!engine.is_pending("e-7"));
        let mut asker = ScriptedAsker::new([Step::Consent(Consent::Open)]);
        engine.respond(&mut asker, &params).await.unwrap();
        assert!(engine.is_pending("e-7") && !engine.is_pending("e-8"));
        assert!(engine
            .complete(&json!({ "elicitationId": "e-7" }))
            .is_completed());
        assert!(!engine.is_pending("e-7"));
    });
}

// covers: C8, E6, K1 (the person is told why a request was refused, in one line that
// says the error's detail once)
#[test]
fn a_refusal_is_told_with_its_reason_said_once() {
    block_on(async {
        for params in [
            json!({ "mode": "url", "sessionId": "s", "message": "m",
                "elicitationId": "e", "url": "https://a.example.com/" }),
            json!({ "mode": "form", "sessionId": "s", "message": "m",
                "requestedSchema": { "type": "object", "properties": {
                    "when": { "type": "moment" } } } }),
            json!({ "mode": "_acme", "sessionId": "s", "message": "m" }),
            json!({ "mode": "form", "message": "no scope",
                "requestedSchema": { "type": "object", "properties": {} } }),
        ] {
            let mut asker = ScriptedAsker::new([])
                .with_modes(ElicitationCapabilities::with_modes([Mode::Form]));
            let error = responder().respond(&mut asker, &params).await.unwrap_err();
            let detail = error.data().unwrap()["message"]
                .as_str()
                .unwrap()
                .to_owned();
            let [Shown::Notice(AskerNotice::Refused { reason, .. })] = asker.shown() else {
                panic!("{:?}", asker.shown())
            };
            assert_eq!(reason, error.message(), "{params}");
            assert_eq!(reason.matches(detail.as_str()).count(), 1, "{reason}");
        }
    });
}
