//! The `elicitation/complete` notification the agent's registry produces is valid ACP
//! (U5). The behaviour of the registry itself (E5, S6, U2, U4, U5) is tested where
//! `cargo mutants -p elicit-core` finds it: `elicit-core/tests/security/registry.rs`.
// The `Elicitor`'s URL mode and the registry need the `url` feature (on by default).
#![cfg(feature = "url")]

use crate::common;

use elicit::agent::{ConnectionId, Elicitor, UserId};
use elicit::protocol::{ElicitationCapabilities, Scope};
use serde_json::json;

// covers: U5, E5, S6
#[test]
fn the_completion_notification_is_valid_acp() {
    let alice = UserId::new("alice");
    let caps = ElicitationCapabilities::from_json(Some(&json!({ "url": {} })));
    let elicitor = Elicitor::new(caps, ConnectionId::new()).with_user(alice.clone());
    let pending = elicitor
        .url(
            Scope::session("s1"),
            "Connect your calendar",
            "https://auth.example.com/connect",
        )
        .unwrap();
    let id = pending.elicitation_id();
    let done = elicitor.complete(id, Some(&alice)).unwrap();
    assert_eq!(done.to_json(), json!({ "elicitationId": id }));
    assert_eq!(
        done.to_notification(),
        json!({ "jsonrpc": "2.0", "method": "elicitation/complete", "params": { "elicitationId": id } })
    );
    common::assert_valid_acp("CompleteElicitationNotification", &done.to_json());
}
