//! A client's retry on MCP 2026-07-28: an arbitrary `requestState` and arbitrary
//! `inputResponses`, through `Rounds::open` (the deployment's check of a round a retry
//! continues) and what a tool then reads of it. The input is `[state, responses,
//! mutation]`: `state` a string, `responses` an object (the retry's `inputResponses`),
//! `mutation` a string of bytes read as (position, xor) pairs; any input that is not
//! such an array is the state itself (as text), without answers, and its bytes the
//! mutation.
//!
//! Invariants (M6, S6):
//! - no text opens as a round, whatever it is (no holder of the key sealed it), and
//!   refusing it never panics;
//! - a state this deployment sealed, changed anywhere by the mutation, is refused;
//!   unchanged, it opens for its own user and request only (another user's retry is
//!   `Unbound`, a request without user is `Unbound`, another tool is `OtherRequest`),
//!   a refused attempt does not use the round up, and with `at_most_once` it opens once,
//!   then is `Used` on every instance that shares the store;
//! - what opens carries exactly what was sealed (the data, the round id, the asked
//!   keys) and the retry's answers as sent: an unasked key is reported as such and never
//!   read as an answer, an asked key is read back unchanged, a form read against an
//!   input that was not asked as that form is refused;
//! - the stateless read of a form from the same `inputResponses` (`input::read`)
//!   returns only an answer that validates (F3).
#![no_main]

use std::collections::BTreeMap;

use elicit::agent::{MemoryStore, Store, UserId};
use elicit::rmcp::input::{self, RoundError, RoundKey, RoundRequest, Rounds, UsedRound};
use elicit::{Elicit, Elicited};
use libfuzzer_sys::fuzz_target;
use serde_json::{json, Value};

/// A form a tool reads from a retry.
#[derive(Elicit, Debug)]
#[allow(dead_code)]
struct Booking {
    /// Party size
    #[elicit(minimum = 1, maximum = 12)]
    party_size: u8,
    /// Phone
    #[elicit(pattern = "^\\+?[0-9 ]{7,15}$")]
    phone: Option<String>,
}

const KEY: [u8; 32] = [7; 32];

fuzz_target!(|data: &[u8]| {
    // Any other input is the state itself, as text, with no answers.
    let (state, responses, mutation) = match serde_json::from_slice::<Value>(data) {
        Ok(Value::Array(input)) => match input.as_slice() {
            [Value::String(s), Value::Object(r), rest @ ..] => {
                let mutation = match rest.first() {
                    Some(Value::String(m)) => m.clone().into_bytes(),
                    _ => Vec::new(),
                };
                let r: BTreeMap<String, Value> =
                    r.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
                (s.clone(), Some(r), mutation)
            }
            [Value::String(s), ..] => (s.clone(), None, Vec::new()),
            _ => return,
        },
        _ => (
            String::from_utf8_lossy(data).into_owned(),
            None,
            data.to_vec(),
        ),
    };
    let (state, mutation) = (&state, &mutation[..]);
    let responses = responses.as_ref();

    let shared = MemoryStore::<UsedRound>::new();
    let here = Rounds::new(RoundKey::from_bytes(KEY)).at_most_once(shared.clone());
    let there = Rounds::new(RoundKey::from_bytes(KEY)).at_most_once(shared.clone());
    let book = |user: Option<&str>| {
        let arguments = json!({ "restaurant": "Chez Elicit" });
        let request = RoundRequest::new("tools/call", "book_table", arguments.as_object());
        match user {
            Some(user) => request.for_user(&UserId::new(user)),
            None => request,
        }
    };
    let (alice, bob, nobody) = (book(Some("alice")), book(Some("bob")), book(None));

    // The stateless read of the same answers: only a valid answer is accepted (F3).
    if let Ok(Some(Elicited::Accepted(booking))) = input::read::<Booking>(responses, "booking") {
        let content = booking.to_content();
        assert!(
            Booking::requested_schema().validate(&content).is_ok(),
            "read accepted {content:?}"
        );
    }

    // Any text: refused, on rounds that bind the user and on anonymous ones alike.
    let opened = here.open(&alice, Some(state), responses);
    assert!(opened.is_err(), "{state:?} opened: {opened:?}");
    let anonymous = Rounds::new(RoundKey::from_bytes(KEY)).anonymous();
    assert!(anonymous.open(&nobody, Some(state), responses).is_err());
    assert!(shared.is_empty(), "a refused state recorded a round");

    // A genuine round: two inputs asked (a roots request and an elicitation built by
    // hand), the fuzzer's text carried.
    let mut round = here.begin(alice.clone());
    round
        .request(
            "roots",
            serde_json::from_value(json!({ "method": "roots/list" })).expect("a roots request"),
        )
        .request(
            "booking",
            serde_json::from_value(json!({ "method": "elicitation/create", "params": {
                "mode": "form", "message": "Book?",
                "requestedSchema": Booking::requested_schema().to_json() } }))
            .expect("an elicitation request"),
        )
        .carry(json!({ "text": state }));
    let genuine = round
        .seal()
        .expect("sealed")
        .request_state
        .expect("a state");

    // Changed anywhere: refused.
    let mut bytes = genuine.clone().into_bytes();
    for pair in mutation.chunks(2) {
        if let [at, xor] = pair {
            let at = usize::from(*at) % bytes.len();
            bytes[at] ^= xor;
        }
    }
    if let Ok(changed) = String::from_utf8(bytes) {
        if changed != genuine {
            let refused = there.open(&alice, Some(&changed), responses);
            assert!(refused.is_err(), "a changed state opened: {refused:?}");
        }
    }
    // Sent with trailing text, or cut: refused.
    let longer = format!("{genuine}{state}");
    if longer != genuine {
        assert!(there.open(&alice, Some(&longer), responses).is_err());
    }
    let cut = &genuine[..genuine.len() - 1 - mutation.len() % (genuine.len() - 1)];
    assert!(there.open(&alice, Some(cut), responses).is_err());

    // Not for another user, nor without one, nor for another request; none of these
    // uses the round up.
    assert!(matches!(
        there.open(&bob, Some(&genuine), responses),
        Err(RoundError::Unbound(_))
    ));
    assert!(matches!(
        there.open(&nobody, Some(&genuine), responses),
        Err(RoundError::Unbound(_))
    ));
    let other = RoundRequest::new("tools/call", "plan_task", None).for_user(&UserId::new("alice"));
    assert!(matches!(
        there.open(&other, Some(&genuine), responses),
        Err(RoundError::OtherRequest)
    ));
    assert!(shared.is_empty(), "a refused attempt used the round");

    // Its own user: once, on any instance, with what was sealed and what was answered.
    let answers = there
        .open(&alice, Some(&genuine), responses)
        .expect("the genuine state opens")
        .expect("a round");
    assert_eq!(answers.data(), &json!({ "text": state }));
    assert_eq!(answers.round_id().len(), 32);
    for key in ["roots", "booking"] {
        let answer = answers.response(key).expect("asked");
        assert_eq!(answer, responses.and_then(|r| r.get(key)));
        // Asked, but not as this form: never read as one.
        assert!(matches!(
            answers.form::<Booking>(key),
            Err(RoundError::NotAsked { .. })
        ));
    }
    let missing = answers.missing();
    assert!(missing.iter().all(|key| ["roots", "booking"].contains(key)));
    for key in answers.unrequested() {
        assert!(key != "roots" && key != "booking");
        assert!(responses.is_some_and(|r| r.contains_key(key)));
        assert!(matches!(
            answers.response(key),
            Err(RoundError::NotAsked { .. })
        ));
    }
    assert_eq!(
        shared
            .get(answers.round_id())
            .expect("a memory store answers")
            .map(|used| used.expires_at()),
        Some(answers.expires_at()),
    );
    for rounds in [&here, &there] {
        let replay = rounds.open(&alice, Some(&genuine), responses);
        assert!(matches!(replay, Err(RoundError::Used)), "{replay:?}");
    }
});
