//! `agent/relay.rs` (feature `redis`): the relay between the instances of an agent,
//! against a real `redis-server` (`redis_server`) each test starts and stops:
//!
//! - a completion done on one instance reaches the hook of the instance that issued
//!   the elicitation, once; a refused one says why, as the registry does;
//! - a `PUBLISH` that fails is an error (never a delivery), retried a bounded number of
//!   times when the failure may pass, pausing between attempts, and once when it
//!   cannot; each attempt bounded by the configured response timeout;
//! - on a Redis Cluster (sharded pub/sub), the same, and the subscription's heartbeats
//!   keep it up;
//! - every box is sealed with fresh randomness, so that two seals of one message differ;
//! - the relay's `Debug` names the instance, never its keys.

use std::error::Error;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use elicit_core::agent::{
    CompletionError, ConnectionId, Delivery, Elicitor, MemoryStore, RedisRelay, RegistryLimits,
    RelayConfig, RelayEnd, RelayKey, RouteError, UrlEntry, UrlOutcome, UrlRegistry, UrlState,
    UserId,
};
use elicit_core::protocol::{ElicitationCapabilities, ElicitationResponse, Scope};
use serde_json::json;

use crate::redis_server::{RedisCluster, RedisServer};

/// The deployment's relay key in these tests.
const KEY: [u8; 32] = [0x5e; 32];

fn alice() -> UserId {
    UserId::new("alice")
}

/// Timeouts short enough that a caller gives up on Redis within 6 s.
fn quick() -> RelayConfig {
    RelayConfig::new()
        .response_timeout(Duration::from_millis(300))
        .connection_timeout(Duration::from_millis(300))
}

fn relay(server: &RedisServer, config: RelayConfig) -> RedisRelay {
    relay_at(&server.url(), config)
}

fn relay_at(url: &str, config: RelayConfig) -> RedisRelay {
    RedisRelay::connect(url, RelayKey::from_bytes(KEY), config)
        .expect("the relay connects and subscribes")
}

/// A registry on `store` (shared by the instances' registries), routed by `relay`.
fn registry(store: &MemoryStore<UrlEntry>, relay: &RedisRelay) -> UrlRegistry {
    UrlRegistry::with_store(store.clone(), RegistryLimits::DEFAULT).routed_by(relay)
}

/// Alice's connection to the instance of `registry`.
fn elicitor(registry: &UrlRegistry) -> Elicitor {
    let caps = ElicitationCapabilities::from_json(Some(&json!({ "url": {} })));
    Elicitor::new(caps, ConnectionId::new())
        .with_user(alice())
        .with_registry(registry)
}

/// A URL elicitation Alice consented to: ready to be completed.
fn consented(elicitor: &Elicitor) -> String {
    let pending = elicitor
        .url(
            Scope::session("s1"),
            "Connect your calendar",
            "https://auth.example.com/connect",
        )
        .expect("the elicitation is sent");
    let id = pending.elicitation_id().to_owned();
    assert_eq!(
        elicitor.record_response(&id, &ElicitationResponse::accept_without_content()),
        Ok(UrlOutcome::Consented)
    );
    id
}

fn until(what: &str, done: impl Fn() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while !done() {
        assert!(Instant::now() < deadline, "{what}: not within 10 s");
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// What the store's error under `error` says failed: `redis: publishing failed …`.
fn store_failure(error: &RouteError) -> String {
    error
        .source()
        .and_then(Error::source)
        .map(ToString::to_string)
        .unwrap_or_default()
}

/// A URL elicitation issued on A and completed on B (the external interaction's
/// callback landed there) is handed to A's hook, once; whatever the registry refuses
/// is refused with its reason, and nothing is sent; once A stopped, B is told nobody
/// listens (completed in the store all the same).
// covers: U5, E5, S6
#[test]
fn a_completion_on_one_instance_reaches_the_hook_of_the_one_that_issued_it() {
    let Some(server) = RedisServer::start() else {
        return;
    };
    let (a, b) = (
        relay(&server, RelayConfig::new()),
        relay(&server, RelayConfig::new()),
    );
    let store = MemoryStore::new();
    let (on_a, on_b) = (registry(&store, &a), registry(&store, &b));
    let heard = Arc::new(Mutex::new(Vec::<(ConnectionId, String)>::new()));
    let into = Arc::clone(&heard);
    a.on_completion(&on_a, move |done| {
        let id = done.elicitation_id().to_owned();
        into.lock().unwrap().push((done.connection(), id));
    });
    let alice_on_a = elicitor(&on_a);
    let id = consented(&alice_on_a);

    assert_eq!(
        b.complete(&on_b, &id, Some(&alice())),
        Ok(Delivery::Delivered)
    );
    until("A's hook hears the completion", || {
        !heard.lock().unwrap().is_empty()
    });
    assert_eq!(alice_on_a.url_state(&id), Some(UrlState::Completed));

    // Refused by the registry: the registry's reason, and no source of its own.
    for (done_by, expected) in [
        (alice(), CompletionError::AlreadyCompleted),
        (UserId::new("mallory"), CompletionError::UserMismatch),
    ] {
        let refused = b.complete(&on_b, &id, Some(&done_by)).expect_err("refused");
        assert_eq!(refused, RouteError::Refused(expected.clone()));
        assert_eq!(refused.to_string(), expected.to_string());
        assert!(!refused.to_string().is_empty());
        assert!(refused.source().is_none(), "{refused:?}");
    }
    let unknown = a
        .complete(&on_a, "never-issued", Some(&alice()))
        .expect_err("refused");
    assert_eq!(
        unknown.to_string(),
        CompletionError::Unknown.to_string(),
        "{unknown:?}"
    );
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(
        *heard.lock().unwrap(),
        vec![(alice_on_a.connection(), id)],
        "heard once, for Alice's connection"
    );

    // A stopped: nobody listens on its channel any more, and B says so.
    let late = consented(&alice_on_a);
    a.close();
    until("A's channel has no subscriber", || {
        server
            .cli(&["PUBSUB", "NUMSUB", a.channel()])
            .lines()
            .nth(1)
            == Some("0")
    });
    assert_eq!(
        b.complete(&on_b, &late, Some(&alice())),
        Ok(Delivery::NoListener)
    );
    assert_eq!(alice_on_a.url_state(&late), Some(UrlState::Completed));
    b.close();
}

/// An elicitation of a registry no relay routes can only be this instance's: completed
/// through the relay, it is handed to this instance's hook for that registry at once,
/// or, with no hook, nobody hears of it (`NoListener`), completed in the store all the
/// same.
// covers: U5, E5
#[test]
fn a_completion_of_an_unrouted_registry_stays_on_this_instance() {
    let Some(server) = RedisServer::start() else {
        return;
    };
    let a = relay(&server, RelayConfig::new());
    let plain = UrlRegistry::with_store(MemoryStore::new(), RegistryLimits::DEFAULT);
    let alice_here = elicitor(&plain);
    let first = consented(&alice_here);
    assert_eq!(
        a.complete(&plain, &first, Some(&alice())),
        Ok(Delivery::NoListener)
    );
    assert_eq!(alice_here.url_state(&first), Some(UrlState::Completed));
    let heard = Arc::new(Mutex::new(Vec::<String>::new()));
    let into = Arc::clone(&heard);
    a.on_completion(&plain, move |done| {
        into.lock().unwrap().push(done.elicitation_id().to_owned());
    });
    let second = consented(&alice_here);
    assert_eq!(
        a.complete(&plain, &second, Some(&alice())),
        Ok(Delivery::Delivered)
    );
    assert_eq!(*heard.lock().unwrap(), vec![second]);
    a.close();
}

/// Registries of A and B on one store: what Alice's connection to A issues and B
/// completes is published to A. With Alice's connection to A.
fn issued_on_a_completed_on_b(a: &RedisRelay, b: &RedisRelay) -> (Elicitor, UrlRegistry) {
    let store = MemoryStore::new();
    (elicitor(&registry(&store, a)), registry(&store, b))
}

/// Redis stops after the entry was completed in the store: the owner cannot be told,
/// and `complete` says so (never a delivery), with the store's error as its source,
/// after the bounded attempts a connection that dropped is given, paused between.
// covers: U5, R5
#[test]
fn a_publish_that_fails_is_an_error_after_bounded_paced_attempts() {
    let Some(mut server) = RedisServer::start() else {
        return;
    };
    // Short timeouts: a call that never gives up fails this test in seconds.
    let (a, b) = (relay(&server, quick()), relay(&server, quick()));
    let (alice_on_a, on_b) = issued_on_a_completed_on_b(&a, &b);
    let ids: Vec<String> = (0..3).map(|_| consented(&alice_on_a)).collect();
    server.stop();
    for id in &ids {
        let started = Instant::now();
        let failed = b
            .complete(&on_b, id, Some(&alice()))
            .expect_err("Redis is down");
        let elapsed = started.elapsed();
        let RouteError::Publish(cause) = &failed else {
            panic!("completed in the store, not published: {failed:?}")
        };
        assert_eq!(
            failed.to_string(),
            "the elicitation was completed, but its owning instance could not be told"
        );
        let source = failed.source().expect("the store's error is the source");
        assert_eq!(source.to_string(), cause.to_string());
        let why = store_failure(&failed);
        assert!(
            why.starts_with("redis: publishing failed after 3 attempts"),
            "{why}"
        );
        // 25 ms, then 50 ms, between the three attempts.
        assert!(elapsed >= Duration::from_millis(75), "{elapsed:?}");
        assert!(elapsed < Duration::from_secs(5), "{elapsed:?}");
        // Completed in the store all the same: a retried tool call sees it.
        assert_eq!(alice_on_a.url_state(id), Some(UrlState::Completed));
    }
    a.close();
    b.close();
}

/// A TCP proxy in front of Redis that, while armed, answers every `PUBLISH` itself with
/// `-TRYAGAIN` (an error a client may send the command again after) and counts them;
/// everything else crosses unchanged.
struct RetryProxy {
    addr: SocketAddr,
    armed: Arc<AtomicBool>,
    refused: Arc<AtomicU64>,
}

/// The length of the first RESP command (an array of bulk strings) in `bytes`, once
/// all of it is there.
fn command_len(bytes: &[u8]) -> Option<usize> {
    fn line(bytes: &[u8], at: usize) -> Option<(usize, usize)> {
        let end = at + bytes.get(at..)?.windows(2).position(|w| w == b"\r\n")?;
        let number = std::str::from_utf8(&bytes[at + 1..end])
            .ok()?
            .parse()
            .ok()?;
        Some((number, end + 2))
    }
    let (parts, mut at) = line(bytes, 0)?;
    for _ in 0..parts {
        let (len, start) = line(bytes, at)?;
        at = start + len + 2;
    }
    (at <= bytes.len()).then_some(at)
}

impl RetryProxy {
    fn start(server: &RedisServer) -> RetryProxy {
        let port: u16 = server
            .url()
            .trim_end_matches('/')
            .rsplit(':')
            .next()
            .and_then(|port| port.parse().ok())
            .expect("the server's port");
        let listener = TcpListener::bind("127.0.0.1:0").expect("a port for the proxy");
        let addr = listener.local_addr().expect("the proxy's address");
        let armed = Arc::new(AtomicBool::new(false));
        let refused = Arc::new(AtomicU64::new(0));
        let (on, count) = (Arc::clone(&armed), Arc::clone(&refused));
        std::thread::spawn(move || {
            for client in listener.incoming() {
                let Ok(mut client) = client else { return };
                let Ok(mut upstream) = TcpStream::connect(("127.0.0.1", port)) else {
                    continue;
                };
                let (mut back_from, mut back_to) = (
                    upstream.try_clone().expect("a clone"),
                    client.try_clone().expect("a clone"),
                );
                std::thread::spawn(move || {
                    let _ = std::io::copy(&mut back_from, &mut back_to);
                });
                let (on, count) = (Arc::clone(&on), Arc::clone(&count));
                std::thread::spawn(move || {
                    let mut pending = Vec::new();
                    let mut buf = [0u8; 8192];
                    while let Ok(n) = client.read(&mut buf) {
                        if n == 0 {
                            break;
                        }
                        pending.extend_from_slice(&buf[..n]);
                        while let Some(len) = command_len(&pending) {
                            let command: Vec<u8> = pending.drain(..len).collect();
                            let publish = command.windows(11).any(|w| w == b"\r\nPUBLISH\r\n");
                            let sent = if publish && on.load(Ordering::SeqCst) {
                                count.fetch_add(1, Ordering::SeqCst);
                                client.write_all(b"-TRYAGAIN refused by the test's proxy\r\n")
                            } else {
                                upstream.write_all(&command)
                            };
                            if sent.is_err() {
                                return;
                            }
                        }
                    }
                });
            }
        });
        RetryProxy {
            addr,
            armed,
            refused,
        }
    }

    fn url(&self) -> String {
        format!("redis://{}/", self.addr)
    }
}

/// A `PUBLISH` Redis answers with an error that may pass (`TRYAGAIN`) is sent again,
/// three attempts in all, pausing 25 ms then 50 ms between them; once Redis takes it
/// again, the next one is delivered.
// covers: U5, R5
#[test]
fn a_publish_that_may_pass_is_sent_again_after_a_pause() {
    let Some(server) = RedisServer::start() else {
        return;
    };
    let proxy = RetryProxy::start(&server);
    let a = relay(&server, RelayConfig::new());
    let b = relay_at(&proxy.url(), quick());
    let (alice_on_a, on_b) = issued_on_a_completed_on_b(&a, &b);
    let ids: Vec<String> = (0..4).map(|_| consented(&alice_on_a)).collect();
    proxy.armed.store(true, Ordering::SeqCst);
    for (done, id) in ids[..3].iter().enumerate() {
        let started = Instant::now();
        let failed = b
            .complete(&on_b, id, Some(&alice()))
            .expect_err("TRYAGAIN every time");
        let elapsed = started.elapsed();
        let why = store_failure(&failed);
        assert!(
            why.starts_with("redis: publishing failed after 3 attempts"),
            "{why}"
        );
        assert_eq!(proxy.refused.load(Ordering::SeqCst), 3 * (done as u64 + 1));
        assert!(elapsed >= Duration::from_millis(75), "{elapsed:?}");
    }
    proxy.armed.store(false, Ordering::SeqCst);
    assert_eq!(
        b.complete(&on_b, &ids[3], Some(&alice())),
        Ok(Delivery::Delivered)
    );
    a.close();
    b.close();
}

/// A `PUBLISH` Redis refuses for good (here B's user may not publish) is not sent
/// again: one attempt, an error at once.
// covers: R5
#[test]
fn a_publish_redis_refuses_is_not_sent_again() {
    let Some(server) = RedisServer::start() else {
        return;
    };
    let created = server.cli(&[
        "ACL", "SETUSER", "relay", "on", ">pw", "~*", "&*", "+@all", "-publish",
    ]);
    assert_eq!(created.trim(), "OK");
    let a = relay(&server, RelayConfig::new());
    let b = relay_at(
        &server.url().replace("redis://", "redis://relay:pw@"),
        quick(),
    );
    let (alice_on_a, on_b) = issued_on_a_completed_on_b(&a, &b);
    let id = consented(&alice_on_a);
    let started = Instant::now();
    let failed = b
        .complete(&on_b, &id, Some(&alice()))
        .expect_err("PUBLISH is refused");
    assert!(matches!(failed, RouteError::Publish(_)), "{failed:?}");
    assert_eq!(
        store_failure(&failed),
        "redis: publishing failed: the server could not answer or refused"
    );
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
    a.close();
    b.close();
}

/// Each attempt at a `PUBLISH` waits for Redis at most the relay's response timeout:
/// Redis paused longer than three of them is an error before the pause ends, not a
/// late delivery.
// covers: R5
#[test]
fn each_publish_attempt_waits_at_most_the_response_timeout() {
    let Some(server) = RedisServer::start() else {
        return;
    };
    let a = relay(&server, RelayConfig::new());
    let b = relay(
        &server,
        RelayConfig::new().response_timeout(Duration::from_millis(150)),
    );
    let (alice_on_a, on_b) = issued_on_a_completed_on_b(&a, &b);
    let id = consented(&alice_on_a);
    // PUBLISH waits while writes are paused.
    server.cli(&["CLIENT", "PAUSE", "3000", "WRITE"]);
    let started = Instant::now();
    let outcome = b.complete(&on_b, &id, Some(&alice()));
    let elapsed = started.elapsed();
    server.cli(&["CLIENT", "UNPAUSE"]);
    let failed = outcome.expect_err("no answer in time");
    assert!(matches!(failed, RouteError::Publish(_)), "{failed:?}");
    let why = store_failure(&failed);
    assert!(
        why.starts_with("redis: publishing failed after 3 attempts"),
        "{why}"
    );
    assert!(elapsed < Duration::from_millis(2500), "{elapsed:?}");
    a.close();
    b.close();
}

/// Every message is sealed with a fresh ephemeral key: the same message sealed twice
/// for one instance gives two different payloads, both of which it opens.
// covers: S1
#[test]
fn two_seals_of_one_message_differ() {
    let end = RelayEnd::new([3; 32], RelayKey::from_bytes(KEY), Vec::new());
    let json = br#"{"f":"someone","m":{"Complete":{"id":"e-1"}}}"#;
    let first = end.seal_for(end.instance_id(), json).expect("sealed");
    let second = end.seal_for(end.instance_id(), json).expect("sealed");
    assert_ne!(first, second);
    for payload in [&first, &second] {
        let (from, message) = end.open(payload).expect("opened");
        assert_eq!(from, "someone");
        assert_eq!(message, json!({ "Complete": { "id": "e-1" } }));
    }
}

/// A message tagged for one instance and sealed for another (moved from one channel to
/// another by whoever can publish on Redis) is dropped by both; tagged and sealed for
/// one, it opens there only. The fuzz target's two ends print their id, not their key.
// covers: S6
#[test]
fn a_message_moved_to_another_instance_is_dropped() {
    let key = || RelayKey::from_bytes(KEY);
    let (one, other) = (
        RelayEnd::new([3; 32], key(), Vec::new()),
        RelayEnd::new([4; 32], key(), Vec::new()),
    );
    assert_ne!(one.instance_id(), other.instance_id());
    let json = br#"{"f":"someone","m":{"Complete":{"id":"e-1"}}}"#;
    let moved = one
        .seal_misaddressed(other.instance_id(), one.instance_id(), json)
        .expect("sealed");
    assert_eq!(one.open(&moved), None);
    assert_eq!(other.open(&moved), None);
    let addressed = one
        .seal_misaddressed(other.instance_id(), other.instance_id(), json)
        .expect("sealed");
    assert_eq!(one.open(&addressed), None);
    assert_eq!(
        other.open(&addressed),
        Some(("someone".to_owned(), json!({ "Complete": { "id": "e-1" } })))
    );
    assert_eq!(one.seal_misaddressed("not a key", "not a key", json), None);
    let printed = format!("{one:?}");
    assert!(printed.starts_with("RelayEnd {"), "{printed}");
    assert!(printed.contains(one.instance_id()), "{printed}");
    assert!(!printed.contains("secret"), "{printed}");
}

/// The relay's `Debug` names the instance and whether it listens, never its keys.
// covers: S1
#[test]
fn a_relay_prints_its_instance_not_its_keys() {
    let Some(server) = RedisServer::start() else {
        return;
    };
    let a = relay(&server, RelayConfig::new());
    let printed = format!("{a:?}");
    assert!(printed.starts_with("RedisRelay {"), "{printed}");
    assert!(printed.contains(a.instance_id()), "{printed}");
    assert!(printed.contains("listening: true"), "{printed}");
    assert!(
        !printed.contains("94, 94") && !printed.contains("5e5e"),
        "{printed}"
    );
    a.close();
}

/// On a three-primary Redis Cluster (sharded pub/sub): a completion on B reaches A's
/// hook whichever nodes their channels live on, and A's subscription stays up, each
/// heartbeat it publishes on its own channel heard back before the next.
// covers: U5, E5
#[test]
fn on_a_cluster_a_completion_reaches_the_issuing_instance_and_the_subscription_holds() {
    let Some(cluster) = RedisCluster::start() else {
        return;
    };
    let connect = || {
        RedisRelay::connect_cluster(
            cluster.urls(),
            RelayKey::from_bytes(KEY),
            RelayConfig::new().ping_every(Duration::from_millis(300)),
        )
        .expect("the relay connects and subscribes")
    };
    let (a, b) = (connect(), connect());
    let store = MemoryStore::new();
    let (on_a, on_b) = (registry(&store, &a), registry(&store, &b));
    let heard = Arc::new(Mutex::new(Vec::<String>::new()));
    let into = Arc::clone(&heard);
    a.on_completion(&on_a, move |done| {
        into.lock().unwrap().push(done.elicitation_id().to_owned());
    });
    let alice_on_a = elicitor(&on_a);
    let ids: Vec<String> = (0..2).map(|_| consented(&alice_on_a)).collect();

    assert_eq!(
        b.complete(&on_b, &ids[0], Some(&alice())),
        Ok(Delivery::Delivered)
    );
    until("A's hook hears the completion", || {
        heard.lock().unwrap().len() == 1
    });
    // Several heartbeats later, A never stopped listening.
    let watched = Instant::now();
    while watched.elapsed() < Duration::from_secs(2) {
        assert!(a.is_listening(), "after {:?}", watched.elapsed());
        std::thread::sleep(Duration::from_millis(5));
    }
    assert_eq!(
        b.complete(&on_b, &ids[1], Some(&alice())),
        Ok(Delivery::Delivered)
    );
    until("A's hook hears the second completion", || {
        heard.lock().unwrap().len() == 2
    });
    assert_eq!(*heard.lock().unwrap(), ids);
    a.close();
    b.close();
}
