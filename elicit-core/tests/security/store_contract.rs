//! `agent/store.rs`, `agent/redis.rs`: one contract for every `Store`, written once
//! ([`store_contract!`]) and run on `MemoryStore` always and, with feature `redis`, on
//! `RedisStore` against a real `redis-server` each test starts on 127.0.0.1 and stops.
//! The contract is what the registry and the secure page build on: an id is recorded
//! once (U4), a state change replaces exactly the state that was checked, so racing
//! instances cannot both complete (U5), and records expire only where the store says.
//! The Redis tests add what only a server shows: every key has the prefix and a TTL,
//! a stopped server makes every operation an error (never a success) and a restarted
//! one is used again, and a write whose answer was lost is read back, not guessed.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Barrier;
use std::time::Duration;

use elicit_core::agent::{MemoryStore, Store};

/// The record of the contract: a version and a text, as the crate's records are small
/// structs compared with `==`.
pub(crate) type Record = (u32, String);

pub(crate) fn record(version: u32) -> Record {
    (version, format!("state {version}"))
}

/// Writers in the races.
const RACERS: usize = 8;
/// Versions each race goes through.
const ROUNDS: u32 = 12;

pub(crate) mod contract {
    use super::*;

    // covers: U4
    pub(crate) fn insert_twice_keeps_the_first(store: &dyn Store<Record>) {
        assert_eq!(store.get("k").unwrap(), None);
        assert!(store.insert_new("k", record(1)).unwrap());
        assert!(
            !store.insert_new("k", record(2)).unwrap(),
            "the second insert is refused"
        );
        assert_eq!(
            store.get("k").unwrap(),
            Some(record(1)),
            "and changes nothing"
        );
        assert!(
            store.insert_new("other", record(9)).unwrap(),
            "keys are independent"
        );
        assert_eq!(store.get("k").unwrap(), Some(record(1)));
        assert_eq!(store.get("other").unwrap(), Some(record(9)));
        assert_eq!(store.get("absent").unwrap(), None);
    }

    // covers: U5
    pub(crate) fn fresh_and_stale_compare_and_swap(store: &dyn Store<Record>) {
        assert!(
            !store
                .compare_and_swap("k", &record(1), Some(record(2)))
                .unwrap(),
            "absent: nothing to swap"
        );
        assert_eq!(
            store.get("k").unwrap(),
            None,
            "a swap on an absent key creates nothing"
        );
        assert!(store.insert_new("k", record(1)).unwrap());
        assert!(
            store
                .compare_and_swap("k", &record(1), Some(record(2)))
                .unwrap(),
            "fresh"
        );
        assert!(
            !store
                .compare_and_swap("k", &record(1), Some(record(3)))
                .unwrap(),
            "stale"
        );
        assert_eq!(
            store.get("k").unwrap(),
            Some(record(2)),
            "the stale swap changed nothing"
        );
        // Equal in version but not in text: a different record, so stale.
        assert!(!store
            .compare_and_swap("k", &(2, "other".into()), Some(record(3)))
            .unwrap());
        assert!(
            !store.compare_and_swap("k", &record(1), None).unwrap(),
            "a stale removal"
        );
        assert_eq!(store.get("k").unwrap(), Some(record(2)));
        assert!(
            store.compare_and_swap("k", &record(2), None).unwrap(),
            "a fresh removal"
        );
        assert_eq!(store.get("k").unwrap(), None);
        assert!(
            !store.compare_and_swap("k", &record(2), None).unwrap(),
            "removed once"
        );
        assert!(
            store.insert_new("k", record(5)).unwrap(),
            "a removed key can be inserted again"
        );
        assert_eq!(store.get("k").unwrap(), Some(record(5)));
    }

    /// `RACERS` threads insert one key at once: one is told it stored.
    // covers: U4
    pub(crate) fn racing_inserts_store_once(store: &dyn Store<Record>) {
        let start = Barrier::new(RACERS);
        let won = AtomicUsize::new(0);
        std::thread::scope(|scope| {
            for n in 0..RACERS {
                let (start, won) = (&start, &won);
                scope.spawn(move || {
                    start.wait();
                    if store.insert_new("raced", record(100 + n as u32)).unwrap() {
                        won.fetch_add(1, Ordering::SeqCst);
                    }
                });
            }
        });
        assert_eq!(won.load(Ordering::SeqCst), 1);
        let stored = store.get("raced").unwrap().expect("one insert stored");
        assert!((100..100 + RACERS as u32).contains(&stored.0));
    }

    /// `RACERS` threads swap one key from each version to the next at once: exactly
    /// one wins per version, and the key ends at the last version.
    // covers: U5
    pub(crate) fn racing_writers_win_once_per_version(store: &dyn Store<Record>) {
        assert!(store.insert_new("counter", record(0)).unwrap());
        let start = Barrier::new(RACERS);
        let wins: Vec<AtomicUsize> = (0..ROUNDS).map(|_| AtomicUsize::new(0)).collect();
        std::thread::scope(|scope| {
            for _ in 0..RACERS {
                let (start, wins) = (&start, &wins);
                scope.spawn(move || {
                    for version in 0..ROUNDS {
                        start.wait();
                        if store
                            .compare_and_swap(
                                "counter",
                                &record(version),
                                Some(record(version + 1)),
                            )
                            .unwrap()
                        {
                            wins[version as usize].fetch_add(1, Ordering::SeqCst);
                        }
                        // Everyone has tried this version before the next one starts.
                        start.wait();
                    }
                });
            }
        });
        for (version, won) in wins.iter().enumerate() {
            assert_eq!(won.load(Ordering::SeqCst), 1, "version {version}");
        }
        assert_eq!(store.get("counter").unwrap(), Some(record(ROUNDS)));
    }

    /// With a TTL, a record is gone after it and its key can be inserted again;
    /// without one (`MemoryStore`), it stays until removed.
    pub(crate) fn expiry(store: &dyn Store<Record>, ttl: Option<Duration>) {
        assert!(store.insert_new("expiring", record(1)).unwrap());
        match ttl {
            Some(ttl) => {
                let deadline = std::time::Instant::now() + ttl + Duration::from_secs(10);
                while store.get("expiring").unwrap().is_some() {
                    assert!(
                        std::time::Instant::now() < deadline,
                        "the record outlived its TTL"
                    );
                    std::thread::sleep(ttl / 4);
                }
                assert!(!store
                    .compare_and_swap("expiring", &record(1), Some(record(2)))
                    .unwrap());
                assert!(store.insert_new("expiring", record(3)).unwrap());
                assert_eq!(store.get("expiring").unwrap(), Some(record(3)));
            }
            None => {
                std::thread::sleep(Duration::from_millis(50));
                assert_eq!(store.get("expiring").unwrap(), Some(record(1)));
            }
        }
    }
}

/// The contract's tests for one store: `$make` gives a fixture with `store()` (a
/// `Store<Record>`) and `ttl()` (its records' time to live, if any), or `None` to skip
/// (no Redis on a machine without `CI`).
macro_rules! store_contract {
    ($name:ident, $make:expr) => {
        mod $name {
            use super::*;

            #[test]
            fn insert_twice_keeps_the_first() {
                let Some(fixture) = $make else { return };
                contract::insert_twice_keeps_the_first(&fixture.store());
            }

            #[test]
            fn fresh_and_stale_compare_and_swap() {
                let Some(fixture) = $make else { return };
                contract::fresh_and_stale_compare_and_swap(&fixture.store());
            }

            #[test]
            fn racing_inserts_store_once() {
                let Some(fixture) = $make else { return };
                contract::racing_inserts_store_once(&fixture.store());
            }

            #[test]
            fn racing_writers_win_once_per_version() {
                let Some(fixture) = $make else { return };
                contract::racing_writers_win_once_per_version(&fixture.store());
            }

            #[test]
            fn expiry() {
                let Some(fixture) = $make else { return };
                contract::expiry(&fixture.store(), fixture.ttl());
            }
        }
    };
}

/// A fresh `MemoryStore`: no TTL.
struct Memory(MemoryStore<Record>);

impl Memory {
    fn store(&self) -> MemoryStore<Record> {
        self.0.clone()
    }

    fn ttl(&self) -> Option<Duration> {
        None
    }
}

store_contract!(memory, Some(Memory(MemoryStore::new())));

#[test]
fn memory_store_counts_its_keys_and_hides_them() {
    let store = MemoryStore::<Record>::new();
    assert!(store.is_empty());
    assert!(store.insert_new("secret-token", record(1)).unwrap());
    assert_eq!(store.len(), 1);
    assert!(!format!("{store:?}").contains("secret-token"));
}

#[cfg(feature = "redis")]
pub(crate) mod redis_store {
    use std::error::Error as _;
    use std::time::Instant;

    use elicit_core::agent::{RedisConfig, RedisStore, StoreError};

    use super::*;
    pub(crate) use crate::redis_server::RedisServer;

    /// A server of its own and a store on it, with a TTL short enough to watch.
    pub(crate) struct Redis {
        pub(crate) server: RedisServer,
        store: RedisStore<Record>,
    }

    pub(crate) const TTL: Duration = Duration::from_millis(600);

    impl Redis {
        pub(crate) fn start() -> Option<Redis> {
            let server = RedisServer::start()?;
            let store = RedisStore::connect(
                server.url().as_str(),
                RedisConfig::new().prefix("contract:").ttl(TTL),
            )
            .expect("the store connects");
            Some(Redis { server, store })
        }

        pub(crate) fn store(&self) -> RedisStore<Record> {
            self.store.clone()
        }

        fn ttl(&self) -> Option<Duration> {
            Some(TTL)
        }
    }

    store_contract!(contract_on_redis, Redis::start());

    /// The same contract on a Redis Cluster of three primaries: every command and
    /// script touches one key, routed to the node of its slot.
    pub(crate) struct Cluster {
        cluster: crate::redis_server::RedisCluster,
        store: RedisStore<Record>,
    }

    impl Cluster {
        fn start() -> Option<Cluster> {
            let cluster = crate::redis_server::RedisCluster::start()?;
            let store = RedisStore::connect_cluster(
                cluster.urls().iter().map(String::as_str),
                RedisConfig::new().prefix("contract:").ttl(TTL),
            )
            .expect("the store connects to the cluster");
            Some(Cluster { cluster, store })
        }

        fn store(&self) -> RedisStore<Record> {
            self.store.clone()
        }

        fn ttl(&self) -> Option<Duration> {
            Some(TTL)
        }
    }

    store_contract!(contract_on_redis_cluster, Cluster::start());

    /// On the cluster, keys spread over the nodes, each with the prefix and a TTL.
    #[test]
    fn on_a_cluster_keys_spread_over_the_nodes_with_a_ttl() {
        let Some(cluster) = Cluster::start() else {
            return;
        };
        // Longer than the contract's TTL, so that no key expires before it is seen.
        let store = cluster.store().with_ttl(Duration::from_secs(60));
        for n in 0..30 {
            assert!(store.insert_new(&format!("k{n}"), record(n)).unwrap());
            assert!(store
                .compare_and_swap(&format!("k{n}"), &record(n), Some(record(n + 1)))
                .unwrap());
            assert_eq!(store.get(&format!("k{n}")).unwrap(), Some(record(n + 1)));
        }
        let mut total = 0;
        for node in &cluster.cluster.nodes {
            let keys = node.keys();
            assert!(!keys.is_empty(), "30 keys reach every node of three");
            for key in &keys {
                assert!(key.starts_with("contract:") && node.pttl(key) > 0, "{key}");
            }
            total += keys.len();
        }
        assert_eq!(total, 30);
    }

    /// Every key the store writes starts with the prefix and has a TTL set by Redis,
    /// renewed by each swap; a `SCAN` of the whole keyspace finds no other key.
    #[test]
    fn every_key_has_the_prefix_and_a_ttl() {
        let Some(server) = RedisServer::start() else {
            return;
        };
        let ttl = Duration::from_secs(30);
        let store: RedisStore<Record> =
            RedisStore::connect(server.url().as_str(), RedisConfig::new().ttl(ttl)).unwrap();
        assert_eq!(store.config().key_prefix(), "elicit:", "the default prefix");
        for n in 0..20 {
            assert!(store.insert_new(&format!("k{n}"), record(n)).unwrap());
        }
        for n in 0..10 {
            assert!(store
                .compare_and_swap(&format!("k{n}"), &record(n), Some(record(n + 1)))
                .unwrap());
        }
        for n in 10..15 {
            assert!(store
                .compare_and_swap(&format!("k{n}"), &record(n), None)
                .unwrap());
        }
        let keys = server.keys();
        let mut expected: Vec<String> = (0..10)
            .chain(15..20)
            .map(|n| format!("elicit:k{n}"))
            .collect();
        expected.sort();
        assert_eq!(
            keys, expected,
            "only the live records, each under the prefix"
        );
        for key in &keys {
            let pttl = server.pttl(key);
            assert!(pttl > 25_000 && pttl <= 30_000, "{key}: PTTL {pttl}");
        }
        // A swap renews the TTL: wait, swap, and the PTTL is back near the full TTL.
        let short = RedisStore::<Record>::connect(
            server.url().as_str(),
            RedisConfig::new()
                .prefix("short:")
                .ttl(Duration::from_secs(3)),
        )
        .unwrap();
        assert!(short.insert_new("r", record(1)).unwrap());
        std::thread::sleep(Duration::from_millis(1200));
        let before = server.pttl("short:r");
        assert!(before > 0 && before <= 1_900, "PTTL {before}");
        assert!(short
            .compare_and_swap("r", &record(1), Some(record(2)))
            .unwrap());
        let after = server.pttl("short:r");
        assert!(after > 2_000, "renewed: PTTL {after}");
        // Another prefix on the same connection keeps its records apart.
        let pages: RedisStore<Record> = store.with_prefix("elicit:page:");
        assert!(pages.insert_new("k0", record(7)).unwrap());
        assert_eq!(store.get("k0").unwrap(), Some(record(1)));
        assert_eq!(pages.get("k0").unwrap(), Some(record(7)));
        assert!(server.pttl("elicit:page:k0") > 25_000);
    }

    /// A value this store did not write is an error with a cause, not a record and not
    /// a swap.
    #[test]
    fn a_foreign_value_is_an_error() {
        let Some(redis) = Redis::start() else { return };
        let store = redis.store();
        redis
            .server
            .cli(&["SET", "contract:k", "not a record", "PX", "60000"]);
        let error = store.get("k").unwrap_err();
        assert!(error.source().is_some());
        assert!(store
            .compare_and_swap("k", &record(1), Some(record(2)))
            .is_err());
        assert!(
            !store.insert_new("k", record(1)).unwrap(),
            "the key is taken all the same"
        );
        redis.server.cli(&["HSET", "contract:h", "f", "v"]);
        assert!(store.get("h").is_err(), "a key of another type");
        assert!(store.compare_and_swap("h", &record(1), None).is_err());
    }

    /// The error chain reaches the redis-rs error.
    pub(crate) fn is_redis_error(error: &StoreError) -> bool {
        let mut cause = error.source();
        while let Some(error) = cause {
            if error.downcast_ref::<redis::RedisError>().is_some() {
                return true;
            }
            cause = error.source();
        }
        false
    }

    /// Redis stopped: every operation is an error, within a bound, never a success.
    /// Restarted (empty): the same store works again, the script reloaded on NOSCRIPT.
    #[test]
    fn a_stopped_redis_is_an_error_and_a_restarted_one_works_again() {
        let Some(mut redis) = Redis::start() else {
            return;
        };
        let store: RedisStore<Record> = RedisStore::connect(
            redis.server.url().as_str(),
            RedisConfig::new()
                .attempts(2)
                .response_timeout(Duration::from_millis(500))
                .connection_timeout(Duration::from_millis(500)),
        )
        .unwrap();
        assert!(store.insert_new("k", record(1)).unwrap());
        assert!(store
            .compare_and_swap("k", &record(1), Some(record(2)))
            .unwrap());
        redis.server.stop();
        for _ in 0..3 {
            let started = Instant::now();
            let errors = [
                store.insert_new("new", record(1)).map(|_| ()).unwrap_err(),
                store.get("k").map(|_| ()).unwrap_err(),
                store
                    .compare_and_swap("k", &record(2), Some(record(3)))
                    .map(|_| ())
                    .unwrap_err(),
                store
                    .compare_and_swap("k", &record(2), None)
                    .map(|_| ())
                    .unwrap_err(),
            ];
            for error in &errors {
                assert!(is_redis_error(error), "{error:?}");
                assert!(
                    error.source().unwrap().to_string().starts_with("redis: "),
                    "{error:?}"
                );
            }
            assert!(
                started.elapsed() < Duration::from_secs(10),
                "{:?}",
                started.elapsed()
            );
        }
        redis.server.restart();
        // The connection manager reconnects; the store's attempts cover the first
        // command that finds the old connection dead: that first call succeeds.
        let inserted = store
            .insert_new("k", record(10))
            .expect("the store works again");
        assert!(inserted, "the restarted server is empty");
        // EVALSHA finds no script after the restart: loaded again, then run.
        assert!(store
            .compare_and_swap("k", &record(10), Some(record(11)))
            .unwrap());
        assert_eq!(store.get("k").unwrap(), Some(record(11)));
        redis.server.cli(&["SCRIPT", "FLUSH"]);
        assert!(store
            .compare_and_swap("k", &record(11), Some(record(12)))
            .unwrap());
        assert_eq!(store.get("k").unwrap(), Some(record(12)));
    }

    /// A write whose answer is lost (Redis paused past the response timeout, then
    /// running the queued command) is read back: the call reports what happened.
    #[test]
    fn a_write_whose_answer_was_lost_is_read_back() {
        let Some(redis) = Redis::start() else { return };
        let store: RedisStore<Record> = RedisStore::connect(
            redis.server.url().as_str(),
            RedisConfig::new()
                .attempts(6)
                .response_timeout(Duration::from_millis(150)),
        )
        .unwrap();
        assert!(store.insert_new("k", record(1)).unwrap());
        // Loaded once, so that the queued attempts below find the script.
        assert!(store
            .compare_and_swap("k", &record(1), Some(record(2)))
            .unwrap());
        // Writes (and scripts) wait while paused; the first attempts time out, their
        // commands run when the pause ends, and a later attempt reads the outcome:
        // the record with this call's write token.
        let calls_before = redis.server.calls("evalsha");
        redis.server.cli(&["CLIENT", "PAUSE", "400", "WRITE"]);
        assert!(
            store
                .compare_and_swap("k", &record(2), Some(record(3)))
                .unwrap(),
            "it did swap"
        );
        assert_eq!(store.get("k").unwrap(), Some(record(3)));
        let calls = redis.server.calls("evalsha") - calls_before;
        assert!(
            calls >= 2,
            "the swap was attempted again after the lost answer: {calls} EVALSHA"
        );
        redis.server.cli(&["CLIENT", "PAUSE", "400", "WRITE"]);
        assert!(store.insert_new("n", record(5)).unwrap(), "it did insert");
        assert_eq!(store.get("n").unwrap(), Some(record(5)));
        // A removal whose answer was lost, the key gone: unknown, so an error.
        redis.server.cli(&["CLIENT", "PAUSE", "400", "WRITE"]);
        match store.compare_and_swap("n", &record(5), None) {
            Ok(removed) => assert!(removed, "never told a lost race it did not lose"),
            Err(error) => assert!(
                error.source().unwrap().to_string().contains("unknown"),
                "{error:?}"
            ),
        }
        assert_eq!(store.get("n").unwrap(), None);
    }

    mod registry_on_redis {
        use elicit_core::agent::{
            CompletionError, ConnectionId, Elicitor, RefusedError, RegistryLimits, UrlEntry,
            UrlOutcome, UrlRegistry, UrlState, UserId,
        };
        use elicit_core::protocol::{
            CompleteElicitation, ElicitationCapabilities, ElicitationResponse, Scope,
        };
        use serde_json::json;

        use super::*;

        fn alice() -> UserId {
            UserId::new("alice")
        }

        /// One instance of the agent: its own connection to Redis, its own registry.
        fn instance(server: &RedisServer) -> UrlRegistry {
            let store: RedisStore<UrlEntry> =
                RedisStore::connect(server.url().as_str(), RedisConfig::new()).unwrap();
            UrlRegistry::with_store(store, RegistryLimits::DEFAULT)
        }

        fn on(registry: &UrlRegistry, connection: ConnectionId, user: Option<UserId>) -> Elicitor {
            let caps = ElicitationCapabilities::from_json(Some(&json!({ "url": {} })));
            let mut elicitor = Elicitor::new(caps, connection).with_registry(registry);
            elicitor.set_user(user);
            elicitor
        }

        fn send(elicitor: &Elicitor) -> Result<String, RefusedError> {
            elicitor
                .url(
                    Scope::session("s1"),
                    "Connect your calendar",
                    "https://auth.example.com/connect",
                )
                .map(|pending| pending.elicitation_id().to_owned())
        }

        /// The registry's flow across two instances sharing Redis: recorded once with a
        /// TTL under the prefix, consent seen by both, bound to connection and user,
        /// completed once even when the instances race, refused when Redis is down.
        // covers: E5, S6, U2, U4, U5
        #[test]
        fn two_instances_share_the_registry_in_redis() {
            let Some(mut server) = RedisServer::start() else {
                return;
            };
            let (first, second) = (instance(&server), instance(&server));
            let connection = ConnectionId::new();
            let a = on(&first, connection, Some(alice()));
            let a_on_second = on(&second, connection, Some(alice()));
            let id = send(&a).unwrap();
            let key = format!("elicit:{id}");
            assert_eq!(server.keys(), vec![key.clone()]);
            assert!(server.pttl(&key) > 0);

            assert_eq!(a_on_second.url_state(&id), Some(UrlState::AwaitingResponse));
            let stranger = on(&second, ConnectionId::new(), Some(alice()));
            assert_eq!(
                stranger.complete(&id, Some(&alice())),
                Err(CompletionError::ForeignConnection)
            );
            assert_eq!(
                a_on_second.complete(&id, Some(&UserId::new("bob"))),
                Err(CompletionError::UserMismatch)
            );
            assert_eq!(
                a_on_second.record_response(&id, &ElicitationResponse::accept_without_content()),
                Ok(UrlOutcome::Consented)
            );
            assert_eq!(a.url_state(&id), Some(UrlState::Consented));
            assert_eq!(
                a_on_second.complete(&id, Some(&alice())),
                Ok(CompleteElicitation::new(id.clone()))
            );
            assert_eq!(
                a.complete(&id, Some(&alice())),
                Err(CompletionError::AlreadyCompleted)
            );
            assert!(server.pttl(&key) > 0, "the swaps kept the TTL");

            // Racing completions over both instances: one notification each time.
            for _ in 0..10 {
                let id = send(&a).unwrap();
                let racers: Vec<_> = [&first, &second, &first, &second]
                    .into_iter()
                    .map(|registry| {
                        let elicitor = on(registry, connection, Some(alice()));
                        let id = id.clone();
                        std::thread::spawn(move || elicitor.complete(&id, Some(&alice())))
                    })
                    .collect();
                let results: Vec<_> = racers
                    .into_iter()
                    .map(|racer| racer.join().unwrap())
                    .collect();
                assert_eq!(
                    results.iter().filter(|r| r.is_ok()).count(),
                    1,
                    "{results:?}"
                );
                assert!(results
                    .iter()
                    .all(|r| matches!(r, Ok(_) | Err(CompletionError::AlreadyCompleted))));
            }
            for key in server.keys() {
                assert!(key.starts_with("elicit:") && server.pttl(&key) > 0, "{key}");
            }

            // Redis down: nothing is sent, nothing completes.
            let pending = send(&a).unwrap();
            server.stop();
            assert!(matches!(send(&a), Err(RefusedError::Store(_))));
            assert!(matches!(
                a.complete(&pending, Some(&alice())),
                Err(CompletionError::Store(_))
            ));
            assert!(matches!(
                a_on_second
                    .record_response(&pending, &ElicitationResponse::accept_without_content()),
                Err(CompletionError::Store(_))
            ));
            assert_eq!(
                a.url_state(&pending),
                None,
                "an unreadable state is not a state"
            );
        }

        /// Redis commands per operation (`INFO commandstats` before and after) and the
        /// memory one pending URL elicitation holds (`MEMORY USAGE`), printed; the
        /// counts are asserted, being what the module documentation promises.
        #[test]
        fn commands_per_operation_and_memory_per_elicitation() {
            let Some(server) = RedisServer::start() else {
                return;
            };
            let store: RedisStore<Record> =
                RedisStore::connect(server.url().as_str(), RedisConfig::new()).unwrap();
            // Load the script first, so that the counts are those of a warm server.
            assert!(!store.compare_and_swap("warm", &record(0), None).unwrap());
            let commands = ["set", "get", "evalsha", "eval", "script|load", "del"];
            let count = |label: &str, operation: &dyn Fn()| -> Vec<u64> {
                let before: Vec<u64> = commands.iter().map(|c| server.calls(c)).collect();
                operation();
                let after: Vec<u64> = commands.iter().map(|c| server.calls(c)).collect();
                let delta: Vec<u64> = after.iter().zip(&before).map(|(a, b)| a - b).collect();
                let shown: Vec<String> = commands
                    .iter()
                    .zip(&delta)
                    .filter(|(_, n)| **n > 0)
                    .map(|(c, n)| format!("{n} {}", c.to_uppercase()))
                    .collect();
                eprintln!("redis commands: {label}: {}", shown.join(", "));
                delta
            };
            // A script's own calls count too: a swap is one round trip, EVALSHA, in
            // which Redis runs GET and then SET or DEL.
            //                                        SET GET EVALSHA EVAL LOAD DEL
            assert_eq!(
                count("insert_new", &|| assert!(store
                    .insert_new("k", record(1))
                    .unwrap())),
                [1, 0, 0, 0, 0, 0]
            );
            assert_eq!(
                count("insert_new, taken", &|| assert!(!store
                    .insert_new("k", record(1))
                    .unwrap())),
                [1, 0, 0, 0, 0, 0]
            );
            assert_eq!(
                count("get", &|| assert!(store.get("k").unwrap().is_some())),
                [0, 1, 0, 0, 0, 0]
            );
            assert_eq!(
                count("compare_and_swap", &|| assert!(store
                    .compare_and_swap("k", &record(1), Some(record(2)))
                    .unwrap())),
                [1, 1, 1, 0, 0, 0]
            );
            assert_eq!(
                count("compare_and_swap, stale", &|| assert!(!store
                    .compare_and_swap("k", &record(1), Some(record(3)))
                    .unwrap())),
                [0, 1, 1, 0, 0, 0]
            );
            assert_eq!(
                count("compare_and_swap to remove", &|| assert!(store
                    .compare_and_swap("k", &record(2), None)
                    .unwrap())),
                [0, 1, 1, 0, 0, 1]
            );

            let registry = UrlRegistry::with_store(
                RedisStore::<UrlEntry>::connect(server.url().as_str(), RedisConfig::new()).unwrap(),
                RegistryLimits::DEFAULT,
            );
            let a = on(&registry, ConnectionId::new(), Some(alice()));
            let mut id = String::new();
            count("registry: send a URL elicitation", &|| {
                drop(send(&a).unwrap())
            });
            count("registry: send, then the client accepts", &|| {
                let sent = send(&a).unwrap();
                let consented =
                    a.record_response(&sent, &ElicitationResponse::accept_without_content());
                assert_eq!(consented, Ok(UrlOutcome::Consented));
            });
            id.push_str(&send(&a).unwrap());
            let consented = a.record_response(&id, &ElicitationResponse::accept_without_content());
            assert_eq!(consented, Ok(UrlOutcome::Consented));
            count("registry: complete a consented one", &|| {
                drop(a.complete(&id, Some(&alice())).unwrap())
            });

            let pending = send(&a).unwrap();
            let key = format!("elicit:{pending}");
            let bytes: u64 = server
                .cli(&["MEMORY", "USAGE", &key])
                .trim()
                .parse()
                .unwrap();
            let value = server.cli(&["GET", &key]);
            eprintln!(
                "redis memory: one pending URL elicitation in the registry: 1 key, {bytes} bytes (MEMORY USAGE; the value is {} bytes: {})",
                value.trim_end().len(),
                value.trim_end()
            );
            assert!(bytes > 0 && bytes < 512, "{bytes}");
        }
    }
}
