//! The client's completion tracker: a completion is reported once, only for a URL
//! elicitation received on this connection (U6), with bounded memory; and the whole
//! URL-mode exchange from agent to client and back (U1, U2, U5).

use crate::common;

use elicit::client::{Completion, CompletionTracker, Ignored};
use elicit::protocol::{
    CompleteElicitation, CreateElicitation, ElicitationCapabilities, ElicitationResponse, Scope,
};
use elicit::RequestedSchema;
use serde_json::json;

fn url_request(id: &str) -> CreateElicitation {
    CreateElicitation::url(
        Scope::session("s"),
        "Sign in",
        id,
        "https://auth.example.com/",
    )
    .unwrap()
}

fn done(id: &str) -> CompleteElicitation {
    CompleteElicitation::new(id)
}

// covers: U6, U5
#[test]
fn a_completion_is_reported_once_for_a_known_id() {
    let mut tracker = CompletionTracker::new();
    assert!(tracker.track(&url_request("el-1")));
    assert!(tracker.is_pending("el-1"));
    let completion = tracker.complete(&done("el-1"));
    assert!(completion.is_completed());
    assert_eq!(completion, Completion::Completed("el-1".into()));
    assert!(!tracker.is_pending("el-1"));
    assert_eq!(
        tracker.complete(&done("el-1")),
        Completion::Ignored(Ignored::AlreadyCompleted)
    );
    assert_eq!(
        tracker.complete(&done("el-1")),
        Completion::Ignored(Ignored::AlreadyCompleted)
    );
}

// covers: U6, U4
#[test]
fn unknown_ids_are_ignored() {
    let mut tracker = CompletionTracker::new();
    tracker.track_id("el-1");
    assert_eq!(
        tracker.complete(&done("el-2")),
        Completion::Ignored(Ignored::Unknown)
    );
    // Ids are opaque and compared exactly.
    assert_eq!(
        tracker.complete(&done("EL-1")),
        Completion::Ignored(Ignored::Unknown)
    );
    assert_eq!(
        tracker.complete(&done("el-1 ")),
        Completion::Ignored(Ignored::Unknown)
    );
    assert!(!tracker.complete(&done("")).is_completed());
    assert!(tracker.is_pending("el-1"));
}

// covers: U6, E6
#[test]
fn only_url_requests_are_tracked_and_malformed_notifications_are_ignored() {
    let mut tracker = CompletionTracker::new();
    let schema =
        RequestedSchema::from_json(&json!({ "type": "object", "properties": {} })).unwrap();
    assert!(!tracker.track(&CreateElicitation::form(Scope::session("s"), "m", schema)));
    assert_eq!(tracker.pending_len(), 0);
    tracker.track_id("el-1");
    for params in [
        json!(null),
        json!({}),
        json!({ "elicitationId": 1 }),
        json!("el-1"),
    ] {
        assert_eq!(
            tracker.complete_params(&params),
            Completion::Ignored(Ignored::Malformed),
            "{params}"
        );
    }
    assert_eq!(
        tracker.complete_params(&json!({ "elicitationId": "el-1", "_meta": { "x": 1 } })),
        Completion::Completed("el-1".into())
    );
}

// covers: U4, U6
#[test]
fn a_duplicate_outstanding_id_is_tracked_once_and_an_id_may_be_reused_after_completion() {
    let mut tracker = CompletionTracker::new();
    assert!(tracker.track_id("el-1"));
    assert!(!tracker.track_id("el-1"));
    assert_eq!(tracker.pending_len(), 1);
    assert!(tracker.complete(&done("el-1")).is_completed());
    // U4 asks for uniqueness among outstanding ids only.
    assert!(tracker.track_id("el-1"));
    assert!(tracker.complete(&done("el-1")).is_completed());
}

// covers: U6, R1
#[test]
fn a_forgotten_id_is_ignored() {
    let mut tracker = CompletionTracker::new();
    tracker.track_id("el-1");
    assert!(tracker.forget("el-1")); // e.g. the user declined
    assert!(!tracker.forget("el-1"));
    assert_eq!(
        tracker.complete(&done("el-1")),
        Completion::Ignored(Ignored::Unknown)
    );
}

// covers: U6, D12
#[test]
fn memory_is_bounded() {
    assert_eq!(
        CompletionTracker::new().capacity(),
        CompletionTracker::DEFAULT_CAPACITY
    );
    assert_eq!(CompletionTracker::with_capacity(0).capacity(), 1);
    let mut tracker = CompletionTracker::with_capacity(3);
    for i in 0..10 {
        tracker.track_id(format!("el-{i}"));
    }
    assert_eq!(tracker.pending_len(), 3);
    // The oldest were forgotten: their completion is ignored.
    assert_eq!(
        tracker.complete(&done("el-0")),
        Completion::Ignored(Ignored::Unknown)
    );
    for i in 7..10 {
        assert!(tracker.complete(&done(&format!("el-{i}"))).is_completed());
    }
    // Completed ids are bounded too; a forgotten one is still ignored.
    for i in 10..20 {
        tracker.track_id(format!("el-{i}"));
        assert!(tracker.complete(&done(&format!("el-{i}"))).is_completed());
    }
    assert_eq!(
        tracker.complete(&done("el-7")),
        Completion::Ignored(Ignored::Unknown)
    );
    assert_eq!(
        tracker.complete(&done("el-19")),
        Completion::Ignored(Ignored::AlreadyCompleted)
    );
    assert_eq!(
        tracker.complete(&done("el-3")),
        Completion::Ignored(Ignored::Unknown)
    );
}

// covers: U1, U2, U5, U6, E5, S6, C7, C8
#[cfg(feature = "url")]
#[test]
fn a_url_elicitation_from_agent_to_client_and_back() {
    use elicit::agent::{ConnectionId, Elicitor, UrlOutcome, UserId};
    use elicit::client::{check_request, Incoming};

    // Agent: the client declared URL mode.
    let client_caps = ElicitationCapabilities::from_json(Some(&json!({ "url": {} })));
    let alice = UserId::new("alice");
    let elicitor = Elicitor::new(client_caps.clone(), ConnectionId::new()).with_user(alice.clone());
    let pending = elicitor
        .url(
            Scope::tool_call("s1", "call-4"),
            "Connect your calendar",
            "https://auth.example.com/connect",
        )
        .unwrap();
    let wire = pending.request().to_json();
    common::assert_valid_acp("CreateElicitationRequest", &wire);

    // Client: checks it, remembers the id, asks the user, consents.
    let mut tracker = CompletionTracker::new();
    let Incoming::Url(request) = check_request(&client_caps, &wire).unwrap() else {
        panic!("a URL request")
    };
    assert!(tracker.track(&request));
    let review = Incoming::Url(request.clone())
        .url_review()
        .unwrap()
        .unwrap();
    assert_eq!(review.host_unicode(), "auth.example.com");
    let answer = ElicitationResponse::accept_without_content();
    common::assert_valid_acp("CreateElicitationResponse", &answer.to_json());

    // Agent: consent is not completion (U2).
    let id = pending.elicitation_id();
    assert_eq!(
        elicitor.record_response(id, &answer).unwrap(),
        UrlOutcome::Consented
    );
    // A notification the agent never sent is ignored by the client.
    assert_eq!(
        tracker.complete(&done("forged")),
        Completion::Ignored(Ignored::Unknown)
    );

    // Agent: the external interaction finished, for alice (S6).
    let notification = elicitor
        .complete(id, Some(&alice))
        .unwrap()
        .to_notification();
    common::assert_valid_acp("CompleteElicitationNotification", &notification["params"]);

    // Client: reports it once (U6).
    assert_eq!(
        tracker.complete_params(&notification["params"]),
        Completion::Completed(id.to_owned())
    );
    assert_eq!(
        tracker.complete_params(&notification["params"]),
        Completion::Ignored(Ignored::AlreadyCompleted)
    );
}
