//! The used rounds of MCP 2026-07-28 in Redis (`rmcp/state.rs`,
//! `Rounds::at_most_once_in_redis`), against a real `redis-server`: two instances with
//! their own connections share one Redis, as the instances of a deployment do.

use std::time::Duration;

use elicit_core::agent::{RedisConfig, RedisStore, UserId};
use elicit_core::rmcp::input::{
    RoundError, RoundKey, RoundRequest, Rounds, Unbound, USED_ROUND_MARGIN,
};
use rmcp::model::ErrorCode;
use rmcp::ErrorData;
use serde_json::json;

use crate::redis_server::RedisServer;

const PREFIX: &str = "test:round:";
const TTL: Duration = Duration::from_secs(30);

/// One instance: its own connection to `server`, the deployment's key.
fn instance(server: &RedisServer) -> Rounds {
    let store: RedisStore<()> =
        RedisStore::connect(server.url(), RedisConfig::new().prefix("test:other:"))
            .expect("Redis answers");
    Rounds::new(RoundKey::from_bytes([9; 32]))
        .with_ttl(TTL)
        .at_most_once_in_redis(&store, PREFIX)
}

fn call(user: &str) -> RoundRequest {
    RoundRequest::new("tools/call", "pay", json!({ "amount": 5 }).as_object())
        .for_user(&UserId::new(user))
}

fn state(rounds: &Rounds, request: &RoundRequest) -> String {
    let mut round = rounds.begin(request.clone());
    round.carry(json!({ "step": 1 }));
    round.seal().unwrap().request_state.unwrap()
}

// covers: M6, S6
#[test]
fn a_round_answered_on_one_instance_is_refused_on_every_other() {
    let Some(mut server) = RedisServer::start() else {
        return;
    };
    let (a, b) = (instance(&server), instance(&server));
    let alice = call("alice");
    let sealed = state(&a, &alice);

    // Another user's retry is refused and uses nothing up.
    assert!(matches!(
        b.open(&call("mallory"), Some(&sealed), None),
        Err(RoundError::Unbound(Unbound::OtherUser))
    ));
    assert_eq!(server.keys(), Vec::<String>::new());

    // Answered on B: recorded under the round id, not the state, with the round's TTL.
    let answers = b.open(&alice, Some(&sealed), None).unwrap().unwrap();
    let key = format!("{PREFIX}{}", answers.round_id());
    assert_eq!(server.keys(), vec![key.clone()]);
    let value = server.cli(&["GET", &key]);
    assert!(
        !value.contains(&sealed) && !value.contains("alice"),
        "{value}"
    );
    let ttl = u64::try_from(server.pttl(&key)).expect("a TTL");
    let most = u64::try_from((TTL + USED_ROUND_MARGIN).as_millis()).unwrap();
    assert!(ttl <= most && ttl > most - 5_000, "{ttl} ms");

    // Replayed, on A and on B: refused as used.
    for instance in [&a, &b] {
        let replay = instance.open(&alice, Some(&sealed), None);
        assert!(matches!(replay, Err(RoundError::Used)), "{replay:?}");
        let error = ErrorData::from(replay.unwrap_err());
        assert_eq!(error.code, ErrorCode::INVALID_PARAMS);
        assert!(
            error.message.contains("already answered once"),
            "{}",
            error.message
        );
    }
    // A fresh round of the same request opens once, whichever instance first.
    let next = state(&b, &alice);
    assert!(a.open(&alice, Some(&next), None).is_ok());
    assert!(matches!(
        b.open(&alice, Some(&next), None),
        Err(RoundError::Used)
    ));
    assert_eq!(server.keys().len(), 2);

    // Redis down: refused, never let through; back (empty): the round opens once.
    let third = state(&a, &alice);
    server.stop();
    let refused = b.open(&alice, Some(&third), None);
    assert!(matches!(refused, Err(RoundError::Store(_))), "{refused:?}");
    assert_eq!(
        ErrorData::from(refused.unwrap_err()).code,
        ErrorCode::INTERNAL_ERROR
    );
    server.restart();
    assert!(b.open(&alice, Some(&third), None).is_ok());
    assert!(matches!(
        a.open(&alice, Some(&third), None),
        Err(RoundError::Used)
    ));
}
