//! `agent/registry.rs`: the agent's record of URL elicitations. Each is bound to the
//! connection that sent it and the user who started it (E5, S6), completes once (U5),
//! keeps consent apart from completion (U2), has an unguessable id unique among the
//! outstanding ones (U4), and memory stays bounded (D12). The same holds for instances
//! of an agent sharing one `Store`, and a store that fails or keeps changing never
//! passes for a success.

use std::collections::HashSet;
use std::error::Error as _;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;

use elicit_core::agent::{
    CompletionError, ConnectionId, Elicitor, MemoryStore, RefusedError, RegistryError,
    RegistryLimits, Store, StoreError, UrlEntry, UrlOutcome, UrlRegistry, UrlState, UserId,
};
use elicit_core::protocol::{
    CompleteElicitation, ElicitationCapabilities, ElicitationResponse, Mode, Scope,
};
use serde_json::json;

const URL: &str = "https://auth.example.com/connect";

fn url_caps() -> ElicitationCapabilities {
    ElicitationCapabilities::from_json(Some(&json!({ "url": {} })))
}

fn alice() -> UserId {
    UserId::new("alice")
}

fn bob() -> UserId {
    UserId::new("bob")
}

/// An elicitor on a fresh connection of `registry`, with `user`.
fn on(registry: &UrlRegistry, user: Option<UserId>) -> Elicitor {
    let mut elicitor = Elicitor::new(url_caps(), ConnectionId::new()).with_registry(registry);
    elicitor.set_user(user);
    elicitor
}

/// Two connections of one agent, sharing its registry; alice on the first, bob on the
/// second.
fn two_connections() -> (UrlRegistry, Elicitor, Elicitor) {
    let registry = UrlRegistry::new();
    let a = on(&registry, Some(alice()));
    let b = on(&registry, Some(bob()));
    (registry, a, b)
}

/// Sends a URL elicitation and returns its id.
fn send(elicitor: &Elicitor) -> String {
    elicitor
        .url(Scope::session("s1"), "Connect your calendar", URL)
        .unwrap()
        .elicitation_id()
        .to_owned()
}

fn limits(max_outstanding_per_connection: usize, max_finished: usize) -> UrlRegistry {
    UrlRegistry::with_limits(RegistryLimits {
        max_outstanding_per_connection,
        max_finished,
    })
}

fn accept() -> ElicitationResponse {
    ElicitationResponse::accept_without_content()
}

// covers: U2, U5
#[test]
fn outstanding_states_are_awaiting_and_consented_only() {
    assert!(UrlState::AwaitingResponse.is_outstanding());
    assert!(UrlState::Consented.is_outstanding());
    assert!(!UrlState::Completed.is_outstanding());
    assert!(!UrlState::Declined.is_outstanding());
    assert!(!UrlState::Cancelled.is_outstanding());
}

// covers: U2, U5, R1
#[test]
fn states_have_distinct_names() {
    let states = [
        UrlState::AwaitingResponse,
        UrlState::Consented,
        UrlState::Completed,
        UrlState::Declined,
        UrlState::Cancelled,
    ];
    let names: HashSet<String> = states.iter().map(ToString::to_string).collect();
    assert_eq!(names.len(), states.len());
    assert!(names.iter().all(|name| !name.is_empty()));
}

// covers: U1, U4
#[test]
fn a_pending_url_is_the_request_with_its_id() {
    let (_, a, _) = two_connections();
    let pending = a
        .url(Scope::session("s1"), "Connect your calendar", URL)
        .unwrap();
    let id = pending.elicitation_id().to_owned();
    // 128 bits in lowercase hex: opaque, unguessable, safe in any text.
    assert_eq!(id.len(), 32);
    assert!(id.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')));
    let request = pending.request();
    assert_eq!(request.mode(), Some(Mode::Url));
    assert_eq!(request.elicitation_id(), Some(id.as_str()));
    assert_eq!(request.target_url(), Some(URL));
    assert_eq!(request.message(), "Connect your calendar");
    assert_eq!(request.scope(), &Scope::session("s1"));
    assert_eq!(request.to_json()["elicitationId"], id.as_str());
    let owned = pending.clone().into_request();
    assert_eq!(&owned, pending.request());
    assert_eq!(owned.elicitation_id(), Some(id.as_str()));
    // The id is the one the registry knows.
    assert_eq!(a.url_state(&id), Some(UrlState::AwaitingResponse));
}

// covers: U4
#[test]
fn ids_are_unique_and_use_every_hex_digit() {
    let registry = limits(1000, 16);
    let a = on(&registry, None);
    let ids: Vec<String> = (0..200).map(|_| send(&a)).collect();
    let distinct: HashSet<&String> = ids.iter().collect();
    assert_eq!(distinct.len(), ids.len());
    // Both nibbles of the random bytes reach every digit: 6400 digits drawn at random
    // miss one of 16 with a probability far below 1e-100.
    for position in [0, 1] {
        let digits: HashSet<u8> = ids
            .iter()
            .flat_map(|id| id.bytes().skip(position).step_by(2))
            .collect();
        assert_eq!(digits.len(), 16, "nibble {position}");
    }
}

// covers: U3, U5, S6
#[test]
fn completion_errors_are_distinct_and_name_no_id_or_user() {
    let (_, a, _) = two_connections();
    let id = send(&a);
    let unknown = ElicitationResponse::from_json(&json!({ "action": "_snooze" })).unwrap();
    let CompletionError::UnknownAction(action) = a.record_response(&id, &unknown).unwrap_err()
    else {
        panic!("an unknown action")
    };
    let all = [
        CompletionError::Unknown,
        CompletionError::ForeignConnection,
        CompletionError::UserMismatch,
        CompletionError::AlreadyCompleted,
        CompletionError::Closed {
            state: UrlState::Declined,
        },
        CompletionError::Closed {
            state: UrlState::Cancelled,
        },
        CompletionError::UnknownAction(action.clone()),
    ];
    let messages: HashSet<String> = all.iter().map(ToString::to_string).collect();
    assert_eq!(messages.len(), all.len());
    // No message names an id or a user (U3: they end up in logs).
    for message in &messages {
        assert!(!message.is_empty());
        assert!(
            !message.contains(&id) && !message.contains("alice"),
            "{message}"
        );
    }
    // A closed elicitation says how it was closed.
    let declined = all[4].to_string();
    assert!(
        declined.contains(&UrlState::Declined.to_string()),
        "{declined}"
    );
    // The unknown action is transparent: its text is the error's, said once, so it
    // is not reported again as a source.
    assert_eq!(all[6].to_string(), action.to_string());
    assert!(all.iter().all(|error| error.source().is_none()));
}

// covers: D12, U4
#[test]
fn default_limits() {
    assert_eq!(RegistryLimits::default(), RegistryLimits::DEFAULT);
    assert_eq!(RegistryLimits::DEFAULT.max_outstanding_per_connection, 64);
    assert_eq!(RegistryLimits::DEFAULT.max_finished, 4096);
    assert_eq!(UrlRegistry::new().limits(), RegistryLimits::DEFAULT);
    assert_eq!(UrlRegistry::default().limits(), RegistryLimits::DEFAULT);
    let custom = RegistryLimits {
        max_outstanding_per_connection: 3,
        max_finished: 5,
    };
    assert_eq!(UrlRegistry::with_limits(custom).limits(), custom);
    assert_eq!(UrlRegistry::with_limits(custom).clone().limits(), custom);
}

// covers: D12, U4
#[test]
fn the_default_registry_holds_64_outstanding_per_connection() {
    let registry = UrlRegistry::new();
    let a = on(&registry, None);
    for _ in 0..64 {
        send(&a);
    }
    assert_eq!(registry.outstanding(a.connection()), 64);
    assert_eq!(
        a.url(Scope::session("s1"), "m", URL).unwrap_err(),
        RefusedError::TooManyOutstanding { limit: 64 }
    );
}

// covers: D12, U4, U2
#[test]
fn outstanding_counts_follow_every_transition() {
    let registry = limits(3, 16);
    let a = on(&registry, Some(alice()));
    let b = on(&registry, None);
    assert_eq!(registry.outstanding(a.connection()), 0);
    let ids: Vec<String> = (0..3).map(|_| send(&a)).collect();
    assert_eq!(registry.outstanding(a.connection()), 3);
    // Refused at the limit, and nothing was recorded for it.
    assert_eq!(
        a.url(Scope::session("s1"), "m", URL).unwrap_err(),
        RefusedError::TooManyOutstanding { limit: 3 }
    );
    assert_eq!(registry.outstanding(a.connection()), 3);
    // Another connection has its own allowance.
    send(&b);
    assert_eq!(registry.outstanding(b.connection()), 1);
    assert_eq!(registry.outstanding(a.connection()), 3);

    // Consent keeps it outstanding (U2).
    assert_eq!(
        a.record_response(&ids[0], &accept()),
        Ok(UrlOutcome::Consented)
    );
    assert_eq!(registry.outstanding(a.connection()), 3);
    // Completing one frees exactly one place.
    a.complete(&ids[0], Some(&alice())).unwrap();
    assert_eq!(registry.outstanding(a.connection()), 2);
    let replacement = send(&a);
    assert_eq!(registry.outstanding(a.connection()), 3);
    assert!(a.url(Scope::session("s1"), "m", URL).is_err());
    // So does a decline, a cancel and a forget.
    assert_eq!(
        a.record_response(&ids[1], &ElicitationResponse::decline()),
        Ok(UrlOutcome::Declined)
    );
    assert_eq!(registry.outstanding(a.connection()), 2);
    assert_eq!(
        a.record_response(&ids[2], &ElicitationResponse::cancel()),
        Ok(UrlOutcome::Cancelled)
    );
    assert_eq!(registry.outstanding(a.connection()), 1);
    assert!(a.forget(&replacement));
    assert_eq!(registry.outstanding(a.connection()), 0);
    // Finished elicitations never count again.
    assert!(a.complete(&ids[0], Some(&alice())).is_err());
    assert!(a
        .record_response(&ids[1], &ElicitationResponse::cancel())
        .is_err());
    assert_eq!(registry.outstanding(a.connection()), 0);
    assert_eq!(registry.outstanding(b.connection()), 1);
    // The whole allowance is back.
    for _ in 0..3 {
        send(&a);
    }
    assert_eq!(registry.outstanding(a.connection()), 3);
    assert!(a.url(Scope::session("s1"), "m", URL).is_err());
}

// covers: D12, U5
#[test]
fn finished_elicitations_are_remembered_up_to_the_limit() {
    let registry = limits(16, 3);
    let a = on(&registry, None);
    let ids: Vec<String> = (0..4).map(|_| send(&a)).collect();
    for id in &ids[..3] {
        a.complete(id, None).unwrap();
    }
    // Exactly `max_finished` are remembered.
    for id in &ids[..3] {
        assert_eq!(a.url_state(id), Some(UrlState::Completed));
        assert_eq!(a.complete(id, None), Err(CompletionError::AlreadyCompleted));
    }
    // One more finished: the oldest is forgotten, and still refused, as unknown.
    assert_eq!(
        a.record_response(&ids[3], &ElicitationResponse::decline()),
        Ok(UrlOutcome::Declined)
    );
    assert_eq!(a.url_state(&ids[0]), None);
    assert_eq!(a.complete(&ids[0], None), Err(CompletionError::Unknown));
    assert_eq!(a.url_state(&ids[1]), Some(UrlState::Completed));
    assert_eq!(a.url_state(&ids[3]), Some(UrlState::Declined));
    assert_eq!(
        a.complete(&ids[3], None),
        Err(CompletionError::Closed {
            state: UrlState::Declined
        })
    );
    // Outstanding ones are never forgotten for lack of room.
    let open = send(&a);
    for _ in 0..5 {
        let id = send(&a);
        a.complete(&id, None).unwrap();
    }
    assert_eq!(a.url_state(&open), Some(UrlState::AwaitingResponse));
    assert!(a.complete(&open, None).is_ok());
}

// covers: E5, U5, S6
#[test]
fn completion_yields_the_notification_once() {
    let (registry, a, _) = two_connections();
    let id = send(&a);
    let done = a.complete(&id, Some(&alice())).unwrap();
    assert_eq!(done, CompleteElicitation::new(id.clone()));
    assert_eq!(done.elicitation_id(), id);
    assert_eq!(done.to_json(), json!({ "elicitationId": id }));
    assert_eq!(a.url_state(&id), Some(UrlState::Completed));
    assert_eq!(registry.outstanding(a.connection()), 0);
    // U5: once.
    assert_eq!(
        a.complete(&id, Some(&alice())),
        Err(CompletionError::AlreadyCompleted)
    );
    // Even for another user: the answer does not depend on who asks twice.
    assert!(a.complete(&id, Some(&bob())).is_err());
    assert_eq!(a.url_state(&id), Some(UrlState::Completed));
}

// covers: E5, U5
#[test]
fn another_connection_cannot_complete_answer_see_or_forget() {
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
        b.complete(&id, Some(&bob())),
        Err(CompletionError::ForeignConnection)
    );
    assert_eq!(
        b.record_response(&id, &accept()),
        Err(CompletionError::ForeignConnection)
    );
    assert_eq!(
        b.record_response(&id, &ElicitationResponse::decline()),
        Err(CompletionError::ForeignConnection)
    );
    assert_eq!(b.url_state(&id), None);
    assert!(!b.forget(&id));
    // Untouched on its own connection.
    assert_eq!(a.url_state(&id), Some(UrlState::AwaitingResponse));
    assert_eq!(registry.outstanding(a.connection()), 1);
    assert_eq!(registry.outstanding(b.connection()), 0);
    assert!(a.complete(&id, Some(&alice())).is_ok());
    // Once finished, still not the other connection's.
    assert_eq!(b.url_state(&id), None);
    assert_eq!(
        b.complete(&id, Some(&bob())),
        Err(CompletionError::ForeignConnection)
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
    assert_eq!(elsewhere.url_state(&id), None);
}

// covers: E5
#[test]
fn clones_of_a_registry_share_one_record() {
    let registry = UrlRegistry::new();
    let clone = registry.clone();
    let a = on(&clone, None);
    let id = send(&a);
    assert_eq!(registry.outstanding(a.connection()), 1);
    let same_connection = Elicitor::new(url_caps(), a.connection()).with_registry(&registry);
    assert_eq!(
        same_connection.url_state(&id),
        Some(UrlState::AwaitingResponse)
    );
    assert!(same_connection.complete(&id, None).is_ok());
    assert_eq!(a.url_state(&id), Some(UrlState::Completed));
}

// covers: S6, E5
#[test]
fn only_the_user_who_started_can_complete() {
    let (registry, a, _) = two_connections();
    let id = send(&a);
    assert_eq!(
        a.complete(&id, Some(&bob())),
        Err(CompletionError::UserMismatch)
    );
    assert_eq!(a.complete(&id, None), Err(CompletionError::UserMismatch));
    // Identities compare exactly.
    assert_eq!(
        a.complete(&id, Some(&UserId::new("Alice"))),
        Err(CompletionError::UserMismatch)
    );
    // Refusals change nothing.
    assert_eq!(a.url_state(&id), Some(UrlState::AwaitingResponse));
    assert_eq!(registry.outstanding(a.connection()), 1);
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
    assert_eq!(a.url_state("no-such-id"), None);
    assert!(!a.forget("no-such-id"));
    let id = send(&a);
    // Ids compare exactly.
    assert_eq!(
        a.complete(&id.to_uppercase(), Some(&alice())),
        Err(CompletionError::Unknown)
    );
    a.complete(&id, Some(&alice())).unwrap();
    assert_eq!(
        a.complete(&id, Some(&alice())),
        Err(CompletionError::AlreadyCompleted)
    );
}

// covers: U2
#[test]
fn accept_is_consent_not_completion() {
    let (registry, a, _) = two_connections();
    let id = send(&a);
    assert_eq!(a.url_state(&id), Some(UrlState::AwaitingResponse));
    assert_eq!(a.record_response(&id, &accept()), Ok(UrlOutcome::Consented));
    // U2: still outstanding; nothing was completed.
    assert_eq!(a.url_state(&id), Some(UrlState::Consented));
    assert_eq!(registry.outstanding(a.connection()), 1);
    // The same answer again changes nothing.
    assert_eq!(a.record_response(&id, &accept()), Ok(UrlOutcome::Consented));
    assert_eq!(a.url_state(&id), Some(UrlState::Consented));
    // Completion is a separate event, from the external interaction.
    a.complete(&id, Some(&alice())).unwrap();
    assert_eq!(a.url_state(&id), Some(UrlState::Completed));
    assert_eq!(registry.outstanding(a.connection()), 0);
}

// covers: R1, R5, U2
#[test]
fn declined_and_cancelled_elicitations_are_closed() {
    let (registry, a, _) = two_connections();
    for (response, outcome, state) in [
        (
            ElicitationResponse::decline(),
            UrlOutcome::Declined,
            UrlState::Declined,
        ),
        (
            ElicitationResponse::cancel(),
            UrlOutcome::Cancelled,
            UrlState::Cancelled,
        ),
    ] {
        let id = send(&a);
        assert_eq!(a.record_response(&id, &response), Ok(outcome));
        assert_eq!(a.url_state(&id), Some(state));
        assert_eq!(registry.outstanding(a.connection()), 0);
        assert_eq!(
            a.complete(&id, Some(&alice())),
            Err(CompletionError::Closed { state })
        );
        assert_eq!(
            a.record_response(&id, &accept()),
            Err(CompletionError::Closed { state })
        );
        assert!(!a.forget(&id));
        assert_eq!(a.url_state(&id), Some(state));
    }
    // A decline after consent closes it too: the user changed their mind.
    let id = send(&a);
    assert_eq!(a.record_response(&id, &accept()), Ok(UrlOutcome::Consented));
    assert_eq!(
        a.record_response(&id, &ElicitationResponse::decline()),
        Ok(UrlOutcome::Declined)
    );
    assert_eq!(a.url_state(&id), Some(UrlState::Declined));
    assert_eq!(registry.outstanding(a.connection()), 0);
}

// covers: E6, R5
#[test]
fn an_unknown_action_is_not_consent() {
    let (registry, a, _) = two_connections();
    let unknown = ElicitationResponse::from_json(&json!({ "action": "_snooze" })).unwrap();
    let id = send(&a);
    let error = a.record_response(&id, &unknown).unwrap_err();
    let CompletionError::UnknownAction(action) = &error else {
        panic!("{error:?}")
    };
    assert_eq!(action.action, "_snooze");
    assert_eq!(a.url_state(&id), Some(UrlState::AwaitingResponse));
    // Nor does it undo consent.
    assert_eq!(a.record_response(&id, &accept()), Ok(UrlOutcome::Consented));
    assert!(matches!(
        a.record_response(&id, &unknown),
        Err(CompletionError::UnknownAction(_))
    ));
    assert_eq!(a.url_state(&id), Some(UrlState::Consented));
    assert_eq!(registry.outstanding(a.connection()), 1);
}

// covers: U2, U5
#[test]
fn a_completion_may_overtake_the_response() {
    let (_, a, _) = two_connections();
    let unknown = ElicitationResponse::from_json(&json!({ "action": "_later" })).unwrap();
    for (response, outcome) in [
        (accept(), UrlOutcome::Consented),
        (ElicitationResponse::decline(), UrlOutcome::Declined),
        (ElicitationResponse::cancel(), UrlOutcome::Cancelled),
    ] {
        let id = send(&a);
        a.complete(&id, Some(&alice())).unwrap();
        // The response arrives afterwards: it still says what the user chose, and the
        // elicitation stays completed.
        assert_eq!(a.record_response(&id, &response), Ok(outcome));
        assert_eq!(a.url_state(&id), Some(UrlState::Completed));
        assert!(matches!(
            a.record_response(&id, &unknown),
            Err(CompletionError::UnknownAction(_))
        ));
        assert_eq!(
            a.complete(&id, Some(&alice())),
            Err(CompletionError::AlreadyCompleted)
        );
    }
}

// covers: U4, E5
#[test]
fn forgotten_elicitations_cannot_complete() {
    let (registry, a, _) = two_connections();
    let forgotten = send(&a);
    assert!(a.forget(&forgotten));
    assert!(!a.forget(&forgotten));
    assert_eq!(a.url_state(&forgotten), None);
    assert_eq!(registry.outstanding(a.connection()), 0);
    assert_eq!(
        a.complete(&forgotten, Some(&alice())),
        Err(CompletionError::Unknown)
    );
    // A consented one can be given up on too.
    let consented = send(&a);
    assert_eq!(
        a.record_response(&consented, &accept()),
        Ok(UrlOutcome::Consented)
    );
    assert!(a.forget(&consented));
    assert_eq!(a.url_state(&consented), None);
    // A finished one is not outstanding: nothing to forget, and it stays finished.
    let done = send(&a);
    a.complete(&done, Some(&alice())).unwrap();
    assert!(!a.forget(&done));
    assert_eq!(a.url_state(&done), Some(UrlState::Completed));
    assert_eq!(
        a.complete(&done, Some(&alice())),
        Err(CompletionError::AlreadyCompleted)
    );
}

// covers: E5, U5
#[test]
fn a_disconnect_forgets_only_that_connection() {
    let (registry, a, b) = two_connections();
    let open = send(&a);
    let consented = send(&a);
    assert_eq!(
        a.record_response(&consented, &accept()),
        Ok(UrlOutcome::Consented)
    );
    let finished = send(&a);
    a.complete(&finished, Some(&alice())).unwrap();
    let other_open = send(&b);
    let other_finished = send(&b);
    b.complete(&other_finished, Some(&bob())).unwrap();

    a.disconnect();
    assert_eq!(registry.outstanding(a.connection()), 0);
    for id in [&open, &consented, &finished] {
        assert_eq!(a.url_state(id), None);
        assert_eq!(
            a.complete(id, Some(&alice())),
            Err(CompletionError::Unknown)
        );
    }
    // Other connections are untouched.
    assert_eq!(registry.outstanding(b.connection()), 1);
    assert_eq!(b.url_state(&other_open), Some(UrlState::AwaitingResponse));
    assert_eq!(
        b.complete(&other_finished, Some(&bob())),
        Err(CompletionError::AlreadyCompleted)
    );
    assert!(b.complete(&other_open, Some(&bob())).is_ok());
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
    let mut all = HashSet::new();
    for handle in handles {
        for id in handle.join().unwrap() {
            assert!(all.insert(id));
        }
    }
    assert_eq!(all.len(), 64);
}

// covers: U4, D12
#[test]
fn registry_errors_say_why_and_become_the_elicitors() {
    // The registry's own error, which the `Elicitor` reports as its matching variant.
    let full = RegistryError::TooManyOutstanding { limit: 3 };
    let text = full.to_string();
    assert!(text.contains('3') && text.contains("outstanding"), "{text}");
    let no_randomness = RegistryError::RandomnessUnavailable("no entropy".to_owned());
    let text = no_randomness.to_string();
    assert!(
        text.contains("no entropy") && text.contains("random"),
        "{text}"
    );
    assert!(full.source().is_none() && no_randomness.source().is_none());

    assert_eq!(
        RefusedError::from(full.clone()),
        RefusedError::TooManyOutstanding { limit: 3 }
    );
    assert_eq!(
        RefusedError::from(no_randomness),
        RefusedError::RandomnessUnavailable("no entropy".to_owned())
    );
    // The elicitor says the same thing the registry did.
    assert_eq!(
        RefusedError::from(full.clone()).to_string(),
        full.to_string()
    );
}

/// A store over a `MemoryStore` that can fail every call, or only `get`, and can lose
/// the next compare-and-swaps (answer `false` and change nothing), as if another
/// instance had got there first. Clones share everything.
#[derive(Debug, Clone, Default)]
struct Flaky {
    inner: MemoryStore<UrlEntry>,
    failing: Arc<AtomicBool>,
    failing_gets: Arc<AtomicBool>,
    losses: Arc<AtomicUsize>,
    swaps: Arc<AtomicUsize>,
}

impl Flaky {
    fn fail(&self, failing: bool) {
        self.failing.store(failing, Ordering::SeqCst);
    }

    fn fail_gets(&self, failing: bool) {
        self.failing_gets.store(failing, Ordering::SeqCst);
    }

    /// Loses the next `losses` compare-and-swaps.
    fn lose(&self, losses: usize) {
        self.losses.store(losses, Ordering::SeqCst);
    }

    /// How many compare-and-swaps were asked for, lost ones included.
    fn swaps(&self) -> usize {
        self.swaps.load(Ordering::SeqCst)
    }

    fn check(&self, flag: &AtomicBool) -> Result<(), StoreError> {
        if flag.load(Ordering::SeqCst) {
            Err(StoreError::new("the database is down"))
        } else {
            Ok(())
        }
    }
}

impl Store<UrlEntry> for Flaky {
    fn insert_new(&self, key: &str, value: UrlEntry) -> Result<bool, StoreError> {
        self.check(&self.failing)?;
        self.inner.insert_new(key, value)
    }

    fn get(&self, key: &str) -> Result<Option<UrlEntry>, StoreError> {
        self.check(&self.failing)?;
        self.check(&self.failing_gets)?;
        self.inner.get(key)
    }

    fn compare_and_swap(
        &self,
        key: &str,
        current: &UrlEntry,
        new: Option<UrlEntry>,
    ) -> Result<bool, StoreError> {
        self.check(&self.failing)?;
        self.swaps.fetch_add(1, Ordering::SeqCst);
        if self
            .losses
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
            .is_ok()
        {
            return Ok(false);
        }
        self.inner.compare_and_swap(key, current, new)
    }
}

/// Two instances of one agent sharing `store`, each with these limits.
fn two_instances(
    store: &MemoryStore<UrlEntry>,
    limits: RegistryLimits,
) -> (UrlRegistry, UrlRegistry) {
    (
        UrlRegistry::with_store(store.clone(), limits),
        UrlRegistry::with_store(store.clone(), limits),
    )
}

/// The elicitor of `elicitor`'s connection and user, on another registry (another
/// instance of the agent).
fn through(registry: &UrlRegistry, elicitor: &Elicitor) -> Elicitor {
    let mut other = Elicitor::new(url_caps(), elicitor.connection()).with_registry(registry);
    other.set_user(elicitor.user().cloned());
    other
}

// covers: E5, S6, U4, U5
#[test]
fn instances_sharing_a_store_complete_once_on_the_right_connection_and_user() {
    let store = MemoryStore::new();
    let (first, second) = two_instances(&store, RegistryLimits::DEFAULT);
    let a = on(&first, Some(alice()));
    let id = send(&a);
    assert_eq!(store.len(), 1);
    let a_on_second = through(&second, &a);
    // The second instance reads the elicitation from the store.
    assert_eq!(a_on_second.url_state(&id), Some(UrlState::AwaitingResponse));
    // On a connection the second instance does not know, it is another connection's.
    let stranger = on(&second, Some(alice()));
    assert_eq!(
        stranger.complete(&id, Some(&alice())),
        Err(CompletionError::ForeignConnection)
    );
    assert_eq!(
        stranger.record_response(&id, &accept()),
        Err(CompletionError::ForeignConnection)
    );
    assert_eq!(stranger.url_state(&id), None);
    assert!(!stranger.forget(&id));
    // Another user, even on the right connection.
    assert_eq!(
        a_on_second.complete(&id, Some(&bob())),
        Err(CompletionError::UserMismatch)
    );
    // Consent recorded by one instance is seen by the other (U2).
    assert_eq!(
        a_on_second.record_response(&id, &accept()),
        Ok(UrlOutcome::Consented)
    );
    assert_eq!(a.url_state(&id), Some(UrlState::Consented));
    // Completed once, through either instance (U5).
    assert_eq!(
        a_on_second.complete(&id, Some(&alice())),
        Ok(CompleteElicitation::new(id.clone()))
    );
    assert_eq!(
        a.complete(&id, Some(&alice())),
        Err(CompletionError::AlreadyCompleted)
    );
    assert_eq!(
        a_on_second.complete(&id, Some(&alice())),
        Err(CompletionError::AlreadyCompleted)
    );
    assert_eq!(a.url_state(&id), Some(UrlState::Completed));
    assert!(!a.forget(&id));
    assert_eq!(store.len(), 1);
    // Ids are unique over the shared store (U4): no instance reuses a known one.
    let ids: HashSet<String> = (0..20)
        .map(|n| send(if n % 2 == 0 { &a } else { &stranger }))
        .collect();
    assert_eq!(ids.len(), 20);
    assert!(!ids.contains(&id));
}

// covers: E5, U4, D12
#[test]
fn an_instance_frees_the_places_another_instance_finished_at_its_limit() {
    let store = MemoryStore::new();
    let (first, second) = two_instances(
        &store,
        RegistryLimits {
            max_outstanding_per_connection: 2,
            max_finished: 16,
        },
    );
    let a = on(&first, Some(alice()));
    let a_on_second = through(&second, &a);
    let completed = send(&a);
    let forgotten = send(&a);
    assert_eq!(first.outstanding(a.connection()), 2);
    assert_eq!(store.len(), 2);
    // The other instance finishes one and forgets the other; this one does not know yet.
    a_on_second.complete(&completed, Some(&alice())).unwrap();
    assert!(a_on_second.forget(&forgotten));
    assert_eq!(first.outstanding(a.connection()), 2);
    // At the limit, it reads the store again: both places are free.
    let third = send(&a);
    assert_eq!(first.outstanding(a.connection()), 1);
    let fourth = send(&a);
    assert_eq!(first.outstanding(a.connection()), 2);
    // Those are really outstanding: still refused, and nothing left in the store.
    let before = store.len();
    assert_eq!(
        a.url(Scope::session("s1"), "m", URL).unwrap_err(),
        RefusedError::TooManyOutstanding { limit: 2 }
    );
    assert_eq!(store.len(), before);
    assert_eq!(first.outstanding(a.connection()), 2);
    // A declined one frees its place the same way.
    assert_eq!(
        a_on_second.record_response(&third, &ElicitationResponse::decline()),
        Ok(UrlOutcome::Declined)
    );
    let fifth = send(&a);
    assert_eq!(a.url_state(&fifth), Some(UrlState::AwaitingResponse));
    assert_eq!(a.url_state(&fourth), Some(UrlState::AwaitingResponse));
    // A disconnect removes from the store what this instance knows of the connection.
    a.disconnect();
    assert_eq!(first.outstanding(a.connection()), 0);
    assert_eq!(a.url_state(&fourth), None);
    assert_eq!(a.url_state(&fifth), None);
}

// covers: E5, U4, D12
#[test]
fn a_store_that_cannot_be_read_frees_no_place() {
    let store = Flaky::default();
    let first = UrlRegistry::with_store(
        store.clone(),
        RegistryLimits {
            max_outstanding_per_connection: 1,
            max_finished: 16,
        },
    );
    let second = UrlRegistry::with_store(store.clone(), RegistryLimits::DEFAULT);
    let a = on(&first, None);
    let id = send(&a);
    through(&second, &a).complete(&id, None).unwrap();
    store.fail_gets(true);
    // Whether the place is free cannot be read: it stays taken, and the refused
    // elicitation is not left in the store.
    assert_eq!(
        a.url(Scope::session("s1"), "m", URL).unwrap_err(),
        RefusedError::TooManyOutstanding { limit: 1 }
    );
    assert_eq!(store.inner.len(), 1);
    store.fail_gets(false);
    let next = send(&a);
    assert_eq!(a.url_state(&next), Some(UrlState::AwaitingResponse));
}

// covers: E5, S6, U5
#[test]
fn a_failing_store_refuses_everything_and_never_panics() {
    let store = Flaky::default();
    let registry = UrlRegistry::with_store(store.clone(), RegistryLimits::DEFAULT);
    let a = on(&registry, Some(alice()));
    let sent = send(&a);
    store.fail(true);

    // Nothing can be recorded, so nothing may be sent.
    let error = a
        .url(Scope::session("s1"), "Connect your calendar", URL)
        .unwrap_err();
    let RefusedError::Store(cause) = &error else {
        panic!("{error:?}")
    };
    assert_eq!(
        error.to_string(),
        "the URL elicitation could not be recorded"
    );
    let source = error.source().expect("the store error is the source");
    assert_eq!(source.to_string(), cause.to_string());
    assert_eq!(
        source.source().map(ToString::to_string).as_deref(),
        Some("the database is down")
    );
    assert_eq!(registry.outstanding(a.connection()), 1);

    // Nothing can be completed or answered: a failing store is never a success.
    let error = a.complete(&sent, Some(&alice())).unwrap_err();
    assert!(matches!(error, CompletionError::Store(_)), "{error:?}");
    assert!(error.source().is_some());
    assert!(matches!(
        a.record_response(&sent, &accept()),
        Err(CompletionError::Store(_))
    ));
    assert!(matches!(
        a.record_response(&sent, &ElicitationResponse::decline()),
        Err(CompletionError::Store(_))
    ));
    assert!(matches!(
        a.complete("no-such-id", None),
        Err(CompletionError::Store(_))
    ));
    // What cannot be read is not known; what cannot be removed was not forgotten.
    assert_eq!(a.url_state(&sent), None);
    assert!(!a.forget(&sent));
    assert_eq!(registry.outstanding(a.connection()), 1);

    // Back up: nothing changed meanwhile.
    store.fail(false);
    assert_eq!(a.url_state(&sent), Some(UrlState::AwaitingResponse));
    assert!(a.complete(&sent, Some(&alice())).is_ok());
    assert_eq!(registry.outstanding(a.connection()), 0);

    // A disconnect with a failing store forgets this instance's record, quietly.
    let open = send(&a);
    store.fail(true);
    a.disconnect();
    assert_eq!(registry.outstanding(a.connection()), 0);
    store.fail(false);
    assert_eq!(
        store.inner.get(&open).unwrap().map(|e| e.state()),
        Some(UrlState::AwaitingResponse)
    );
}

// covers: U3, U4, U5
#[test]
fn store_errors_say_what_failed_and_keep_the_cause() {
    let cause = StoreError::new("the database is down");
    let registry_error = RegistryError::Store(cause.clone());
    let elicit_error = RefusedError::from(registry_error.clone());
    assert_eq!(elicit_error, RefusedError::Store(cause.clone()));
    // The elicitor says the same thing the registry did; the store's error is the
    // source of both, said once.
    assert_eq!(elicit_error.to_string(), registry_error.to_string());
    for error in [
        &registry_error as &dyn std::error::Error,
        &elicit_error,
        &CompletionError::Store(cause.clone()),
    ] {
        let text = error.to_string();
        assert!(!text.contains("database"), "{text}");
        assert_eq!(
            error.source().map(ToString::to_string),
            Some(cause.to_string())
        );
    }
    // Distinct from every other completion error.
    let completion = CompletionError::Store(cause).to_string();
    for other in [
        CompletionError::Unknown,
        CompletionError::ForeignConnection,
        CompletionError::UserMismatch,
        CompletionError::AlreadyCompleted,
    ] {
        assert_ne!(other.to_string(), completion);
    }
    assert_ne!(
        registry_error.to_string(),
        RegistryError::TooManyOutstanding { limit: 1 }.to_string()
    );
}

// covers: U2, U5
#[test]
fn a_lost_race_is_retried_after_checking_again() {
    let store = Flaky::default();
    let registry = UrlRegistry::with_store(store.clone(), RegistryLimits::DEFAULT);
    let a = on(&registry, Some(alice()));

    let id = send(&a);
    store.lose(1);
    assert_eq!(a.record_response(&id, &accept()), Ok(UrlOutcome::Consented));
    assert_eq!(a.url_state(&id), Some(UrlState::Consented));
    store.lose(1);
    assert_eq!(
        a.complete(&id, Some(&alice())),
        Ok(CompleteElicitation::new(id.clone()))
    );
    assert_eq!(a.url_state(&id), Some(UrlState::Completed));
    assert_eq!(registry.outstanding(a.connection()), 0);
    assert_eq!(
        a.complete(&id, Some(&alice())),
        Err(CompletionError::AlreadyCompleted)
    );

    let declined = send(&a);
    store.lose(1);
    assert_eq!(
        a.record_response(&declined, &ElicitationResponse::decline()),
        Ok(UrlOutcome::Declined)
    );
    assert_eq!(a.url_state(&declined), Some(UrlState::Declined));

    let forgotten = send(&a);
    store.lose(1);
    assert!(a.forget(&forgotten));
    assert_eq!(a.url_state(&forgotten), None);
    assert_eq!(registry.outstanding(a.connection()), 0);
}

// covers: U5
#[test]
fn a_store_that_keeps_changing_is_an_error_not_a_loop() {
    let store = Flaky::default();
    let registry = UrlRegistry::with_store(store.clone(), RegistryLimits::DEFAULT);
    let a = on(&registry, Some(alice()));
    let id = send(&a);
    assert_eq!(a.record_response(&id, &accept()), Ok(UrlOutcome::Consented));
    store.lose(usize::MAX);

    let before = store.swaps();
    let error = a.complete(&id, Some(&alice())).unwrap_err();
    let CompletionError::Store(cause) = &error else {
        panic!("{error:?}")
    };
    let reason = cause.source().map(ToString::to_string).unwrap_or_default();
    assert!(reason.contains("kept changing"), "{reason}");
    // Retried, a bounded number of times.
    let tries = store.swaps() - before;
    assert!((2..=16).contains(&tries), "{tries}");

    assert!(matches!(
        a.record_response(&id, &ElicitationResponse::decline()),
        Err(CompletionError::Store(_))
    ));
    // The same consent again needs no change, so no swap.
    let before = store.swaps();
    assert_eq!(a.record_response(&id, &accept()), Ok(UrlOutcome::Consented));
    assert_eq!(store.swaps(), before);
    assert!(!a.forget(&id));
    // Nothing changed.
    assert_eq!(a.url_state(&id), Some(UrlState::Consented));
    assert_eq!(registry.outstanding(a.connection()), 1);
    store.lose(0);
    assert!(a.complete(&id, Some(&alice())).is_ok());
}

// covers: U5, E5
#[test]
fn instances_racing_to_complete_one_id_complete_it_once() {
    let store = MemoryStore::new();
    let (first, second) = two_instances(&store, RegistryLimits::DEFAULT);
    let a = on(&first, Some(alice()));
    for _ in 0..20 {
        let id = send(&a);
        let racers: Vec<_> = [&first, &second, &first, &second]
            .into_iter()
            .map(|registry| {
                let elicitor = through(registry, &a);
                let id = id.clone();
                std::thread::spawn(move || elicitor.complete(&id, Some(&alice())))
            })
            .collect();
        let results: Vec<_> = racers.into_iter().map(|r| r.join().unwrap()).collect();
        assert_eq!(
            results.iter().filter(|r| r.is_ok()).count(),
            1,
            "{results:?}"
        );
        assert!(results
            .iter()
            .all(|r| matches!(r, Ok(_) | Err(CompletionError::AlreadyCompleted))));
    }
}
