//! Two instances of an agent, each a process of its own, sharing their URL registry in
//! one real `redis-server` (started by the test on 127.0.0.1 and stopped by it): the
//! first connection of each must not be the same connection (issue 28, finding 10).
//!
//! Before, every process numbered its connections from `#1`, so instance B's first
//! connection passed the registry's connection check (E5) for an elicitation of
//! instance A's first connection: it could record the client's answer to it and
//! complete it. Each instance here is this test binary run again, on this one test,
//! in a role given by the environment.
// The page's Redis tests start the server this one uses; both need `redis`.
#![cfg(all(feature = "axum", feature = "redis"))]

use std::collections::BTreeMap;
use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use elicit::agent::{
    ConnectionId, Elicitor, RedisConfig, RedisStore, RegistryLimits, Store, UrlEntry, UrlRegistry,
    UrlState,
};
use elicit::{ElicitationCapabilities, ElicitationResponse, Scope};
use serde_json::json;

use super::redis_page::redis_server::RedisServer;

/// The environment variable naming the role of a run as an instance.
const ROLE: &str = "ELICIT_TEST_INSTANCE_ROLE";
const REDIS: &str = "ELICIT_TEST_INSTANCE_REDIS";
const ELICITATION: &str = "ELICIT_TEST_INSTANCE_ELICITATION";

/// The bound on one instance's run.
const LIMIT: Duration = Duration::from_secs(60);

const PREFIX: &str = "elicit:url:";

// covers: E5, U5, S6
#[test]
fn each_instances_first_connection_is_its_own() {
    if let Ok(role) = std::env::var(ROLE) {
        return instance(&role);
    }
    let Some(server) = RedisServer::start() else {
        return;
    };
    // A's first connection sends a URL elicitation.
    let a = run_instance("ask", &server.url(), None);
    let id = &a["elicitation"];
    // B's first connection takes it as its own: the client's answer, the completion.
    let b = run_instance("take", &server.url(), Some(id));
    assert_ne!(
        a["connection"], b["connection"],
        "two instances' first connections share an id"
    );
    assert_eq!(b["record_response"], "Err(ForeignConnection)", "{b:?}");
    assert_eq!(b["complete"], "Err(ForeignConnection)", "{b:?}");

    // Nothing changed in Redis: the elicitation still waits for A's client.
    let store: RedisStore<UrlEntry> =
        RedisStore::connect(server.url().as_str(), RedisConfig::new().prefix(PREFIX))
            .expect("the store connects");
    let entry = store.get(id).unwrap().expect("the elicitation is stored");
    assert_eq!(entry.state(), UrlState::AwaitingResponse);
    let a_connection: ConnectionId = serde_json::from_str(&a["connection"]).unwrap();
    assert_eq!(entry.connection(), a_connection);
}

/// One instance: a registry in Redis, and its first connection, which `ask`s (sends a
/// URL elicitation) or `take`s the elicitation given (records an answer, completes).
/// What happened goes to stdout as `instance: name=value` lines.
fn instance(role: &str) {
    let redis = std::env::var(REDIS).expect("the Redis URL");
    let store: RedisStore<UrlEntry> =
        RedisStore::connect(redis.as_str(), RedisConfig::new().prefix(PREFIX))
            .expect("the store connects");
    let registry = UrlRegistry::with_store(store, RegistryLimits::DEFAULT);
    let caps = ElicitationCapabilities::from_json(Some(&json!({ "url": {} })));
    // This process's first connection.
    let elicitor = Elicitor::new(caps, ConnectionId::new()).with_registry(&registry);
    let connection = serde_json::to_string(&elicitor.connection()).unwrap();
    println!("instance: connection={connection}");
    match role {
        "ask" => {
            let pending = elicitor
                .url(
                    Scope::session("s1"),
                    "Connect your account",
                    "https://auth.example.com/connect",
                )
                .expect("the elicitation is recorded");
            println!("instance: elicitation={}", pending.elicitation_id());
        }
        "take" => {
            let id = std::env::var(ELICITATION).expect("the elicitation to take");
            let answer = elicitor
                .record_response(&id, &ElicitationResponse::accept_without_content())
                .map(|_| ());
            println!("instance: record_response={answer:?}");
            let complete = elicitor.complete(&id, None).map(|_| ());
            println!("instance: complete={complete:?}");
        }
        other => panic!("no instance role {other:?}"),
    }
}

/// Runs this test binary again as an instance in `role`, within [`LIMIT`]; what it
/// printed, by name.
fn run_instance(role: &str, redis: &str, elicitation: Option<&str>) -> BTreeMap<String, String> {
    let test = format!(
        "{}::each_instances_first_connection_is_its_own",
        module_path!()
            .split_once("::")
            .map_or(module_path!(), |(_, path)| path)
    );
    let mut command = Command::new(std::env::current_exe().expect("the test binary"));
    command
        .args([test.as_str(), "--exact", "--nocapture", "--test-threads=1"])
        .env(ROLE, role)
        .env(REDIS, redis)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(id) = elicitation {
        command.env(ELICITATION, id);
    }
    let mut child = command.spawn().expect("the test binary runs again");
    let deadline = Instant::now() + LIMIT;
    let status = loop {
        if let Some(status) = child.try_wait().expect("the instance's status") {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("the instance `{role}` did not finish within {LIMIT:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let mut out = String::new();
    let mut err = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut out)
        .unwrap();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    assert!(
        status.success(),
        "instance `{role}`: {status}\n{out}\n{err}"
    );
    let said: BTreeMap<String, String> = out
        .lines()
        // libtest writes its own `test … ` before the first line.
        .filter_map(|line| line.split_once("instance: ").map(|(_, said)| said))
        .filter_map(|line| line.split_once('='))
        .map(|(name, value)| (name.to_owned(), value.to_owned()))
        .collect();
    assert!(
        said.contains_key("connection"),
        "instance `{role}` ran the test: {out}\n{err}"
    );
    said
}
