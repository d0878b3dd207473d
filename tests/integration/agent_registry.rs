//! The agent's record of URL elicitations: bound to the connection that sent them and
//! the user who started them (E5, S6), completed once (U5), consent kept apart from
//! completion (U2).
// The `Elicitor`'s URL mode and the registry need the `url` feature (on by default).
#![cfg(feature = "url")]

use crate::common;

use std::sync::Arc;

use elicit::agent::{
    CompletionError, ConnectionId, Elicitor, UrlOutcome, UrlRegistry, UrlState, UserId,
};
use elicit::protocol::{CompleteElicitation, ElicitationCapabilities, ElicitationResponse, Scope};
use serde_json::json;

fn url_caps() -> ElicitationCapabilities {
    ElicitationCapabilities::from_json(Some(&json!({ "url": {} })))
}

/// Two connections of one agent, sharing its registry; alice on the first, bob on the
/// second.
fn two_connections() -> (UrlRegistry, Elicitor, Elicitor) {
    let registry = UrlRegistry::new();
    let a = Elicitor::new(url_caps(), ConnectionId::new())
        .with_user(UserId::new("alice"))
        .with_registry(&registry);
    let b = Elicitor::new(url_caps(), ConnectionId::new())
        .with_user(UserId::new("bob"))
        .with_registry(&registry);
    (registry, a, b)
}

fn send(elicitor: &Elicitor) -> String {
    elicitor
        .url(
            Scope::session("s1"),
            "Connect your calendar",
            "https://auth.example.com/connect",
        )
        .unwrap()
        .elicitation_id()
        .to_owned()
}

fn alice() -> UserId {
    UserId::new("alice")
}

// covers: U5, E5, S6
#[test]
fn completion_yields_the_notification_once() {
    let (_, a, _) = two_connections();
    let id = send(&a);
    let done = a.complete(&id, Some(&alice())).unwrap();
    assert_eq!(done, CompleteElicitation::new(id.clone()));
    assert_eq!(done.to_json(), json!({ "elicitationId": id }));
    assert_eq!(
        done.to_notification(),
        json!({ "jsonrpc": "2.0", "method": "elicitation/complete", "params": { "elicitationId": id } })
    );
    common::assert_valid_acp("CompleteElicitationNotification", &done.to_json());
    assert_eq!(a.url_state(&id), Some(UrlState::Completed));
    // U5: once.
    assert_eq!(
        a.complete(&id, Some(&alice())),
        Err(CompletionError::AlreadyCompleted)
    );
}

// covers: E5, U5
#[test]
fn another_connection_cannot_complete_or_answer() {
    let (registry, a, b) = two_connections();
    let id = send(&a);
    // Even for the same user on the other connection.
    let b_as_alice = Elicitor::new(url_caps(), b.connection())
        .with_user(alice())
        .with_registry(&registry);
    assert_eq!(
        b_as_alice.complete(&id, Some(&alice())),
        Err(CompletionError::ForeignConnection)
    );
    assert_eq!(
        b.complete(&id, Some(&UserId::new("bob"))),
        Err(CompletionError::ForeignConnection)
    );
    assert_eq!(
        b.record_response(&id, &ElicitationResponse::accept_without_content()),
        Err(CompletionError::ForeignConnection)
    );
    assert_eq!(b.url_state(&id), None);
    assert!(!b.forget(&id));
    // Untouched on its own connection.
    assert_eq!(a.url_state(&id), Some(UrlState::AwaitingResponse));
    assert!(a.complete(&id, Some(&alice())).is_ok());
    assert_eq!(
        CompletionError::ForeignConnection.to_string(),
        "this URL elicitation belongs to another client connection and completes only there"
    );
}

// covers: E5
#[test]
fn a_separate_registry_knows_nothing() {
    let (_, a, _) = two_connections();
    let id = send(&a);
    let elsewhere = Elicitor::new(url_caps(), a.connection()).with_user(alice());
    assert_eq!(
        elsewhere.complete(&id, Some(&alice())),
        Err(CompletionError::Unknown)
    );
}

// covers: S6, E5
#[test]
fn only_the_user_who_started_can_complete() {
    let (_, a, _) = two_connections();
    let id = send(&a);
    let bob = UserId::new("bob");
    assert_eq!(
        a.complete(&id, Some(&bob)),
        Err(CompletionError::UserMismatch)
    );
    assert_eq!(a.complete(&id, None), Err(CompletionError::UserMismatch));
    // Refusals change nothing.
    assert_eq!(a.url_state(&id), Some(UrlState::AwaitingResponse));
    assert!(a.complete(&id, Some(&alice())).is_ok());
}

// covers: S6
#[test]
fn the_user_is_bound_when_the_request_is_sent() {
    let mut elicitor = Elicitor::new(url_caps(), ConnectionId::new()).with_user(alice());
    let id = send(&elicitor);
    elicitor.set_user(Some(UserId::new("mallory")));
    let mallory = UserId::new("mallory");
    assert_eq!(
        elicitor.complete(&id, Some(&mallory)),
        Err(CompletionError::UserMismatch)
    );
    assert!(elicitor.complete(&id, Some(&alice())).is_ok());
}

// covers: E5, S6
#[test]
fn without_authentication_the_connection_alone_binds() {
    let elicitor = Elicitor::new(url_caps(), ConnectionId::new());
    assert_eq!(elicitor.user(), None);
    let id = send(&elicitor);
    // An elicitation started with no user cannot be claimed by one.
    assert_eq!(
        elicitor.complete(&id, Some(&alice())),
        Err(CompletionError::UserMismatch)
    );
    assert!(elicitor.complete(&id, None).is_ok());
}

// covers: U5, U6
#[test]
fn unknown_and_duplicate_ids_are_refused_distinctly() {
    let (_, a, _) = two_connections();
    assert_eq!(
        a.complete("no-such-id", Some(&alice())),
        Err(CompletionError::Unknown)
    );
    assert_eq!(
        a.complete("", Some(&alice())),
        Err(CompletionError::Unknown)
    );
    assert_eq!(
        a.record_response("no-such-id", &ElicitationResponse::decline()),
        Err(CompletionError::Unknown)
    );
    let id = send(&a);
    a.complete(&id, Some(&alice())).unwrap();
    assert_eq!(
        a.complete(&id, Some(&alice())),
        Err(CompletionError::AlreadyCompleted)
    );
    let all = [
        CompletionError::Unknown,
        CompletionError::ForeignConnection,
        CompletionError::UserMismatch,
        CompletionError::AlreadyCompleted,
    ];
    let messages: std::collections::HashSet<String> = all.iter().map(ToString::to_string).collect();
    assert_eq!(messages.len(), all.len());
    // No message names an id or a user (U3: they end up in logs).
    assert!(messages
        .iter()
        .all(|m| !m.contains(&id) && !m.contains("alice")));
}

// covers: U2
#[test]
fn accept_is_consent_not_completion() {
    let (registry, a, _) = two_connections();
    let id = send(&a);
    assert_eq!(a.url_state(&id), Some(UrlState::AwaitingResponse));
    let outcome = a
        .record_response(&id, &ElicitationResponse::accept_without_content())
        .unwrap();
    assert_eq!(outcome, UrlOutcome::Consented);
    // U2: still outstanding; nothing was completed.
    let state = a.url_state(&id).unwrap();
    assert_eq!(state, UrlState::Consented);
    assert!(state.is_outstanding());
    assert_eq!(registry.outstanding(a.connection()), 1);
    // The same answer again changes nothing.
    assert_eq!(
        a.record_response(&id, &ElicitationResponse::accept_without_content()),
        Ok(UrlOutcome::Consented)
    );
    // Completion is a separate event, from the external interaction.
    a.complete(&id, Some(&alice())).unwrap();
    assert_eq!(a.url_state(&id), Some(UrlState::Completed));
    assert!(!UrlState::Completed.is_outstanding());
    assert_eq!(registry.outstanding(a.connection()), 0);
}

// covers: R1, R5, U2
#[test]
fn declined_and_cancelled_elicitations_are_closed() {
    let (_, a, _) = two_connections();
    for (response, state) in [
        (ElicitationResponse::decline(), UrlState::Declined),
        (ElicitationResponse::cancel(), UrlState::Cancelled),
    ] {
        let id = send(&a);
        let outcome = a.record_response(&id, &response).unwrap();
        assert!(!outcome.is_consented());
        assert_eq!(a.url_state(&id), Some(state));
        assert_eq!(
            a.complete(&id, Some(&alice())),
            Err(CompletionError::Closed { state })
        );
        assert_eq!(
            a.record_response(&id, &ElicitationResponse::accept_without_content()),
            Err(CompletionError::Closed { state })
        );
    }
}

// covers: E6, R5
#[test]
fn an_unknown_action_is_not_consent() {
    let (_, a, _) = two_connections();
    let id = send(&a);
    let unknown = ElicitationResponse::from_json(&json!({ "action": "_snooze" })).unwrap();
    let error = a.record_response(&id, &unknown).unwrap_err();
    let CompletionError::UnknownAction(action) = &error else {
        panic!("{error:?}")
    };
    assert_eq!(action.action, "_snooze");
    assert_eq!(a.url_state(&id), Some(UrlState::AwaitingResponse));
}

// covers: U2, U5
#[test]
fn a_completion_may_overtake_the_response() {
    let (_, a, _) = two_connections();
    let id = send(&a);
    a.complete(&id, Some(&alice())).unwrap();
    // The response arrives afterwards: it still says what the user chose.
    assert_eq!(
        a.record_response(&id, &ElicitationResponse::accept_without_content()),
        Ok(UrlOutcome::Consented)
    );
    assert_eq!(a.url_state(&id), Some(UrlState::Completed));
}

// covers: U4, E5
#[test]
fn forgotten_and_disconnected_elicitations_cannot_complete() {
    let (registry, a, b) = two_connections();
    let forgotten = send(&a);
    assert!(a.forget(&forgotten));
    assert!(!a.forget(&forgotten));
    assert_eq!(
        a.complete(&forgotten, Some(&alice())),
        Err(CompletionError::Unknown)
    );

    let open = send(&a);
    let other = send(&b);
    a.disconnect();
    assert_eq!(registry.outstanding(a.connection()), 0);
    assert_eq!(
        a.complete(&open, Some(&alice())),
        Err(CompletionError::Unknown)
    );
    // Other connections are untouched.
    assert!(b.complete(&other, Some(&UserId::new("bob"))).is_ok());
}

// covers: U4, E5
#[test]
fn connections_on_many_threads_share_one_registry() {
    let registry = UrlRegistry::new();
    let handles: Vec<_> = (0..4)
        .map(|n| {
            let elicitor = Arc::new(
                Elicitor::new(url_caps(), ConnectionId::new())
                    .with_user(UserId::new(format!("user-{n}")))
                    .with_registry(&registry),
            );
            std::thread::spawn(move || {
                let ids: Vec<String> = (0..16).map(|_| send(&elicitor)).collect();
                for id in &ids {
                    elicitor.complete(id, elicitor.user()).unwrap();
                }
                ids
            })
        })
        .collect();
    let mut all = std::collections::HashSet::new();
    for handle in handles {
        for id in handle.join().unwrap() {
            assert!(all.insert(id));
        }
    }
    assert_eq!(all.len(), 64);
}
