//! The whole URL-mode exchange from agent to client and back (U1, U2, U5, U6). The
//! client's completion tracker on its own (U6: a completion is reported once, only for
//! a URL elicitation received on this connection, with bounded memory) is tested where
//! `cargo mutants -p elicit-core` finds it: `elicit-core/tests/security/tracker.rs`.
// URL mode needs the `url` feature (on by default).
#![cfg(feature = "url")]

use crate::common;

use elicit::client::{Completion, CompletionTracker, Ignored};
use elicit::protocol::{CompleteElicitation, ElicitationCapabilities, ElicitationResponse, Scope};
use serde_json::json;

fn done(id: &str) -> CompleteElicitation {
    CompleteElicitation::new(id)
}

// covers: U1, U2, U5, U6, E5, S6, C7, C8
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
