//! Three instances of `examples/mcp_server.rs` (A, B and C) as child processes of one
//! build, on one real `redis-server` that the test starts on loopback (no persistence)
//! and stops, driven by rmcp's client over Streamable HTTP through the recording proxy
//! of `mcp_http`, every elicitation message checked against the MCP 2025-11-25 schema.
//! The page of one instance is opened and submitted on another, as a load balancer in
//! front of them would send the browser (by hand, one request per connection; and once
//! in headless Chromium through the browser tests' WebDriver harness, behind a TCP
//! balancer at the public origin); instances are killed (`SIGKILL`) and Redis is
//! stopped and started again under them.
//!
//! What each fault shows, asserted here:
//!
//! | fault | client (through A) | page | Redis |
//! |---|---|---|---|
//! | B killed right after a submission | the result (the key's length) and the completion | "Received" only once A had the answer; C refuses a replay (410) | the used ticket, with its TTL |
//! | A killed while its elicitation is pending | its transport closes once it stops retrying (`Transport closed`); never a result | B, which showed the form, refuses the submission: 503 "Not delivered ... no longer running", never "Received" | only A's records, each with a TTL within `--page-ttl`; none after it |
//! | Redis stopped mid-flight | the waiting call ends "cancelled (or the page expired)" at the link's TTL; new calls are tool errors naming the store and redis-rs's cause | 503 "cannot take answers right now", never "Received" | down |
//! | Redis started again, same port | the next flow succeeds on the same processes | shown and "Received" | the three relays subscribed again |
//! | a completion done in another process | `notifications/elicitation/complete` through A, same id, once | — | the entry `Completed`; a wrong user and a second completion refused |
//! | a page token replayed on each instance | one request, one completion | 410 "already used", on open and on submit | the used ticket, no secret |
//! | a `requestState` answered on A replayed on B (MCP 2026-07-28) | `-32602` "already answered once", nothing asked | — | one used round, under its id, with a TTL |
//!
//! Skipped with a message without `redis-server` unless `CI` is set (then it fails).
//! Every wait is bounded; every child is killed when dropped.
#![cfg(all(
    feature = "rmcp_3",
    feature = "url",
    feature = "axum",
    feature = "redis"
))]

use std::net::SocketAddr;

use ::rmcp::model::{CallToolRequestParams, ElicitResult, ElicitationAction};
use ::rmcp::service::ServiceError;
use elicit::protocol::mcp::URL_ELICITATION_REQUIRED;
use serde_json::json;

use crate::mcp_http::redis_server::RedisServer;
use crate::mcp_http::*;
use crate::protocol_support::rmcp_wire::{bounded, call_tool, eventually, TestClient};

/// What every key of the example starts with.
const KEYS: &str = "elicit-mcp-server:";

/// A key of the kind `save_api_key` asks for, and its form.
const KEY: &str = "sk-fleet-0123456789abcdefXYZ";

fn key_form() -> String {
    format!("f.api_key={KEY}&elicit-action=accept")
}

/// Instances A, B and C on one Redis behind one public origin, each with a recording
/// proxy in front of its `/mcp`.
struct Fleet {
    a: Instance,
    b: Instance,
    c: Instance,
    proxy_a: Proxy,
    proxy_c: Proxy,
    browser: Browser,
}

impl Fleet {
    /// Starts the three with `--page-ttl ttl` and waits until each relay listens.
    async fn start(redis: &RedisServer, ttl: u64) -> Fleet {
        let origin = format!("http://127.0.0.1:{}", free_port());
        Fleet::start_at(redis, ttl, &origin).await
    }

    /// [`start`](Self::start), behind the public origin `origin`.
    async fn start_at(redis: &RedisServer, ttl: u64, origin: &str) -> Fleet {
        let origin = origin.to_owned();
        let url = redis.url();
        let ttl = ttl.to_string();
        let start = |name: &'static str| {
            let (url, origin, ttl) = (url.clone(), origin.clone(), ttl.clone());
            async move {
                Instance::start(&[
                    "--redis",
                    &url,
                    "--public-origin",
                    &origin,
                    "--page-ttl",
                    &ttl,
                    "--instance",
                    name,
                ])
                .await
            }
        };
        let (a, b, c) = tokio::join!(start("a"), start("b"), start("c"));
        let (proxy_a, proxy_c) = tokio::join!(Proxy::start(a.addr), Proxy::start(c.addr));
        let fleet = Fleet {
            a,
            b,
            c,
            proxy_a,
            proxy_c,
            browser: Browser::at(&origin),
        };
        fleet.listening(redis, 3).await;
        fleet
    }

    /// Waits until `count` instances listen on their relay channels.
    async fn listening(&self, redis: &RedisServer, count: usize) {
        eventually(&format!("{count} relay channels"), || {
            channels(redis) == count
        })
        .await;
    }
}

/// How many instances listen on a relay channel (`PUBSUB CHANNELS`), 0 when Redis is
/// down.
fn channels(redis: &RedisServer) -> usize {
    let pattern = format!("{KEYS}inst:*");
    let output = std::process::Command::new("redis-cli")
        .args(["-u", &redis.url(), "--raw", "PUBSUB", "CHANNELS", &pattern])
        .stdin(std::process::Stdio::null())
        .output()
        .expect("redis-cli runs");
    if !output.status.success() {
        return 0;
    }
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter(|line| line.starts_with(KEYS))
        .count()
}

/// The example's keys in Redis and their values.
fn stored(redis: &RedisServer) -> Vec<(String, String)> {
    redis
        .keys()
        .into_iter()
        .filter(|key| key.starts_with(KEYS))
        .map(|key| {
            let value = redis.cli(&["GET", &key]);
            (key, value)
        })
        .collect()
}

/// The id of the one `elicitation/create` that crossed `wire`.
fn elicitation_id(wire: &Wire) -> String {
    let creates = wire.creates();
    assert_eq!(creates.len(), 1, "{creates:?}");
    creates[0]["params"]["elicitationId"]
        .as_str()
        .expect("an elicitationId")
        .to_owned()
}

/// `save_api_key` through A with the page opened and submitted on `page_on`: the
/// tool's text, the submission's reply, the link's path and cookie, the id.
async fn save_key_via(
    fleet: &Fleet,
    client: &::rmcp::service::RunningService<::rmcp::service::RoleClient, TestClient>,
    page_on: SocketAddr,
) -> (String, Reply, String, String, String) {
    let (result, (done, path, cookie)) =
        tokio::join!(call_tool(client, "save_api_key", json!({})), async {
            let url = requested_url(&fleet.proxy_a.wire).await;
            fleet.browser.fill(page_on, &url, &key_form()).await
        });
    let id = elicitation_id(&fleet.proxy_a.wire);
    (text_of(&result), done, path, cookie, id)
}

// covers: E1, M1, M2, F1, F4
#[tokio::test]
async fn a_form_elicitation_end_to_end_through_one_instance_of_three() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    let fleet = Fleet::start(&redis, 60).await;
    const PLAN: &str =
        r#"{"strategy":"Aggressive","passes":1,"notify":"ada@example.com","run_tests":true}"#;
    let client = connect(
        &fleet.proxy_c.mcp_url(),
        TestClient::new(Some(json!({})), |request| {
            let request = serde_json::to_value(request).unwrap();
            assert_eq!(request["mode"], "form", "{request}");
            Ok(ElicitResult::new(ElicitationAction::Accept)
                .with_content(serde_json::from_str(PLAN).unwrap()))
        }),
    )
    .await;
    let text = text_of(&call_tool(&client, "plan_task", json!({ "task": "Ship it" })).await);
    for said in [
        "\"Ship it\"",
        "strategy Aggressive",
        "1 review pass(es)",
        "notify ada@example.com",
        "run tests: true",
    ] {
        assert!(text.contains(said), "{said:?} in {text:?}");
    }
    assert_eq!(fleet.proxy_c.wire.creates().len(), 1);
    // The request and the client's answer.
    assert_eq!(fleet.proxy_c.wire.assert_valid(), 2);
    // A form leaves nothing in the shared store.
    assert_eq!(stored(&redis), [], "nothing in Redis for a form");
}

// covers: U1, U2, U3, U5, M3, S6
#[tokio::test]
async fn url_mode_consented_on_a_and_submitted_on_b_completes_through_a() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    let fleet = Fleet::start(&redis, 60).await;
    let handler = consenting();
    let client = connect(&fleet.proxy_a.mcp_url(), handler.clone()).await;
    let (text, done, path, _, id) = save_key_via(&fleet, &client, fleet.b.addr).await;
    assert_eq!(done.status, 200, "{}", done.body);
    assert!(done.body.contains("Received"), "{}", done.body);
    assert!(
        text.contains(&format!("API key of {} characters", KEY.len())),
        "{text:?}"
    );
    assert!(text.contains("instance a"), "A asked, A answers: {text:?}");
    assert!(!text.contains(KEY), "never the key: {text:?}");
    // U5: the completion, same id, on the connection held by A.
    eventually("the notification through a", || {
        !handler.completed().is_empty()
    })
    .await;
    assert_eq!(handler.completed(), std::slice::from_ref(&id));
    assert_eq!(fleet.proxy_a.wire.completions(), std::slice::from_ref(&id));
    // U3: the key crossed neither the client's connection nor Redis.
    assert!(
        fleet
            .proxy_a
            .wire
            .messages()
            .iter()
            .all(|(_, m)| !m.to_string().contains(KEY)),
        "the key is not on the MCP wire"
    );
    let stored = stored(&redis);
    let ticket = format!(
        "{KEYS}page:{}",
        elicit::axum::PageTicket::store_key(path.trim_start_matches("/elicit/"))
    );
    assert!(stored.iter().any(|(key, _)| *key == ticket), "{stored:?}");
    assert!(
        stored.iter().all(|(_, value)| !value.contains(KEY)),
        "the key is not in Redis: {stored:?}"
    );
    for (key, _) in &stored {
        assert!(redis.pttl(key) > 0, "{key} has a TTL");
    }
    // The request, the client's consent, the completion.
    assert_eq!(fleet.proxy_a.wire.assert_valid(), 3);
}

// covers: M4, U1, U5, S6
#[tokio::test]
async fn a_url_required_flow_completed_via_b_is_seen_complete_by_a_retry_on_c() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    let fleet = Fleet::start(&redis, 60).await;
    let handler_a = TestClient::new(Some(json!({ "url": {} })), |_| {
        panic!("-32042 carries the URL: no elicitation/create")
    });
    let client_a = connect(&fleet.proxy_a.mcp_url(), handler_a.clone()).await;
    let error = bounded(
        "link_repository on a",
        client_a.call_tool(CallToolRequestParams::new("link_repository")),
    )
    .await
    .expect_err("the first call needs the page");
    let ServiceError::McpError(error) = error else {
        panic!("a JSON-RPC error, not {error:?}");
    };
    assert_eq!(i64::from(error.code.0), URL_ELICITATION_REQUIRED);
    let elicitation = &error.data.as_ref().expect("data")["elicitations"][0];
    let id = elicitation["elicitationId"].as_str().unwrap().to_owned();
    let url = elicitation["url"].as_str().unwrap().to_owned();
    const TOKEN: &str = "ghp_fleet_0123456789abcdef";
    let (done, _, _) = fleet
        .browser
        .fill(
            fleet.b.addr,
            &url,
            &format!("f.token={TOKEN}&elicit-action=accept"),
        )
        .await;
    assert_eq!(done.status, 200, "{}", done.body);
    assert!(done.body.contains("Received"), "{}", done.body);
    // A got the submission from B and told its client.
    eventually("the completion through a", || {
        handler_a.completed().contains(&id)
    })
    .await;
    assert_eq!(fleet.proxy_a.wire.completions(), std::slice::from_ref(&id));
    // The retry lands on C, a session of its own.
    let client_c = connect(
        &fleet.proxy_c.mcp_url(),
        TestClient::new(Some(json!({ "url": {} })), |_| {
            panic!("nothing more to ask")
        }),
    )
    .await;
    let text = text_of(&call_tool(&client_c, "link_repository", json!({})).await);
    for said in [
        "linked",
        &format!("{} characters", TOKEN.len()),
        &id,
        "instance c",
    ] {
        assert!(text.contains(said), "{said:?} in {text:?}");
    }
    let stored = stored(&redis);
    assert!(
        stored.iter().all(|(_, value)| !value.contains(TOKEN)),
        "the token is not in Redis: {stored:?}"
    );
    // The -32042 error and the completion on A's wire; nothing to check on C's but
    // that no elicitation went out there.
    assert_eq!(fleet.proxy_a.wire.assert_valid(), 2);
    assert_eq!(fleet.proxy_c.wire.assert_valid(), 0);
}

// covers: U5, M3, S6, E5
#[tokio::test]
async fn a_completion_done_elsewhere_is_sent_by_the_instance_that_holds_the_connection() {
    use elicit::agent::{
        CompletionError, Delivery, RedisConfig, RedisRelay, RedisStore, RegistryLimits,
        RelayConfig, RouteError, UrlEntry, UrlRegistry, UserId,
    };
    let Some(redis) = RedisServer::start() else {
        return;
    };
    let fleet = Fleet::start(&redis, 60).await;
    let handler_a = TestClient::new(Some(json!({ "url": {} })), |_| {
        panic!("-32042 carries the URL: no elicitation/create")
    });
    let client_a = connect(&fleet.proxy_a.mcp_url(), handler_a.clone()).await;
    let error = bounded(
        "link_repository on a",
        client_a.call_tool(CallToolRequestParams::new("link_repository")),
    )
    .await
    .expect_err("the first call needs the page");
    let ServiceError::McpError(error) = error else {
        panic!("a JSON-RPC error, not {error:?}");
    };
    let id = error.data.as_ref().expect("data")["elicitations"][0]["elicitationId"]
        .as_str()
        .expect("an elicitationId")
        .to_owned();
    // Where an external step's callback lands: a process of its own (this test) on
    // the deployment's Redis, with its relay and the example's registry prefix.
    let relay = RedisRelay::connect(
        redis.url().as_str(),
        relay_key(),
        RelayConfig::new().prefix(KEYS),
    )
    .expect("the callback's relay");
    let store: RedisStore<UrlEntry> = RedisStore::connect(
        redis.url().as_str(),
        RedisConfig::new().prefix(format!("{KEYS}url:")),
    )
    .expect("the callback's store");
    let registry = UrlRegistry::with_store(store, RegistryLimits::DEFAULT).routed_by(&relay);
    // S6: only the user who started it completes it.
    assert_eq!(
        relay.complete(&registry, &id, Some(&UserId::new("mallory"))),
        Err(RouteError::Refused(CompletionError::UserMismatch))
    );
    let user = UserId::new("local-user");
    assert_eq!(
        relay.complete(&registry, &id, Some(&user)),
        Ok(Delivery::Delivered),
        "A listens"
    );
    // U5: A sends it on the connection that got the -32042, with the same id, once.
    eventually("the routed completion through a", || {
        handler_a.completed().contains(&id)
    })
    .await;
    assert_eq!(
        relay.complete(&registry, &id, Some(&user)),
        Err(RouteError::Refused(CompletionError::AlreadyCompleted))
    );
    assert_eq!(handler_a.completed(), std::slice::from_ref(&id));
    assert_eq!(fleet.proxy_a.wire.completions(), std::slice::from_ref(&id));
    // The -32042 error and the completion.
    assert_eq!(fleet.proxy_a.wire.assert_valid(), 2);
    relay.close();
}

// covers: U5, S6
#[tokio::test]
async fn b_killed_right_after_a_submission_shows_nothing_false() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    let mut fleet = Fleet::start(&redis, 60).await;
    let handler = consenting();
    let client = connect(&fleet.proxy_a.mcp_url(), handler.clone()).await;
    let (text, done, path, cookie, id) = save_key_via(&fleet, &client, fleet.b.addr).await;
    // B said "Received" because A had the answer: B's death changes nothing of it.
    assert_eq!(done.status, 200, "{}", done.body);
    assert!(done.body.contains("Received"), "{}", done.body);
    fleet.b.kill().await;
    assert!(
        text.contains(&format!("API key of {} characters", KEY.len())),
        "{text:?}"
    );
    eventually("the notification through a", || {
        handler.completed().contains(&id)
    })
    .await;
    assert_eq!(handler.completed(), std::slice::from_ref(&id));
    // The browser, sent to C now, cannot use the page again.
    let replay = fleet
        .browser
        .submit(fleet.c.addr, &path, &cookie, &key_form())
        .await;
    assert_eq!(replay.status, 410, "{replay:?}");
    assert!(!replay.body.contains("Received"), "{}", replay.body);
    // A and C serve on: the next key, its page on C.
    fleet.listening(&redis, 2).await;
    fleet.proxy_a.wire.0.lock().unwrap().messages.clear();
    let (text, done, _, _, second) = save_key_via(&fleet, &client, fleet.c.addr).await;
    assert_eq!(done.status, 200, "{}", done.body);
    assert!(text.contains("characters"), "{text:?}");
    eventually("the second notification", || {
        handler.completed().contains(&second)
    })
    .await;
    assert_eq!(fleet.proxy_a.wire.assert_valid(), 3);
}

// covers: U5, S6
#[tokio::test]
async fn a_killed_while_pending_a_submission_on_b_is_refused_and_nothing_is_left() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    const TTL: u64 = 2;
    let mut fleet = Fleet::start(&redis, TTL).await;
    let client = connect_giving_up(&fleet.proxy_a.mcp_url(), consenting()).await;
    let call = tokio::spawn(async move {
        let result = bounded(
            "save_api_key on a",
            client.call_tool(CallToolRequestParams::new("save_api_key")),
        )
        .await;
        (result, client)
    });
    let url = requested_url(&fleet.proxy_a.wire).await;
    let path = fleet.browser.path_of(&url);
    // The browser reaches B while A waits; B shows the page (the ticket is shared).
    let (shown, cookie) = fleet.browser.open(fleet.b.addr, &path).await;
    assert_eq!(shown.status, 200, "{}", shown.body);
    assert!(!cookie.is_empty(), "{shown:?}");
    let pending = stored(&redis);
    assert!(
        pending
            .iter()
            .any(|(key, _)| key.starts_with(&format!("{KEYS}url:"))),
        "{pending:?}"
    );
    // A records the client's consent first (the page takes no answer before it, and
    // would hold this one until the 2-second ticket expired); then A dies.
    let ticket = format!(
        "{KEYS}page:{}",
        elicit::axum::PageTicket::store_key(path.trim_start_matches("/elicit/"))
    );
    eventually("a records the consent", || {
        let value = redis.cli(&["GET", &ticket]);
        !value.is_empty() && !value.contains("\"p\":true")
    })
    .await;
    fleet.a.kill().await;
    fleet.listening(&redis, 2).await;
    let done = fleet
        .browser
        .submit(fleet.b.addr, &path, &cookie, &key_form())
        .await;
    assert_eq!(done.status, 503, "{done:?}");
    assert!(
        !done.body.contains("Received"),
        "never Received: {}",
        done.body
    );
    assert!(
        done.body.contains("Not delivered") && done.body.contains("no longer running"),
        "says why: {}",
        done.body
    );
    let left = stored(&redis);
    assert!(
        left.iter().all(|(_, value)| !value.contains(KEY)),
        "the key is not in Redis: {left:?}"
    );
    for (key, _) in &left {
        let ttl = redis.pttl(key);
        assert!(
            ttl > 0 && ttl <= i64::try_from(TTL * 1000).unwrap(),
            "{key} expires within the TTL: {ttl} ms"
        );
    }
    // After the TTL, nothing of A's elicitation is left.
    eventually("Redis empty after the TTL", || stored(&redis).is_empty()).await;
    // What the client sees: its transport gives up reaching A again, and the call
    // fails; never a result.
    let (result, _client) = call.await.expect("the call's task");
    let error = result.expect_err("A is gone: no result");
    assert!(
        matches!(
            error,
            ServiceError::TransportClosed | ServiceError::TransportSend(_)
        ),
        "the transport failed: {error:?}"
    );
    eprintln!("the client, its instance killed mid-call: {error}");
}

// covers: U5, S6
#[tokio::test]
async fn redis_restarted_mid_flight_errors_clearly_then_service_recovers() {
    let Some(mut redis) = RedisServer::start() else {
        return;
    };
    const TTL: u64 = 3;
    let fleet = Fleet::start(&redis, TTL).await;
    let handler = consenting();
    let client = connect(&fleet.proxy_a.mcp_url(), handler.clone()).await;
    // In flight: A waits for a page shown on B when Redis goes away.
    let in_flight = call_tool(&client, "save_api_key", json!({}));
    let (result, ()) = tokio::join!(in_flight, async {
        let url = requested_url(&fleet.proxy_a.wire).await;
        let path = fleet.browser.path_of(&url);
        let (shown, cookie) = fleet.browser.open(fleet.b.addr, &path).await;
        assert_eq!(shown.status, 200, "{}", shown.body);
        // A recorded the client's consent: it waits for the page alone.
        eventually("the consent in Redis", || {
            stored(&redis).iter().any(|(key, value)| {
                key.starts_with(&format!("{KEYS}url:")) && value.contains("\"Consented\"")
            })
        })
        .await;
        redis.stop();
        let done = fleet
            .browser
            .submit(fleet.b.addr, &path, &cookie, &key_form())
            .await;
        assert_eq!(done.status, 503, "{done:?}");
        assert!(!done.body.contains("Received"), "{}", done.body);
        assert!(done.body.contains("Try again later"), "{}", done.body);
        // New calls while Redis is down: each says the store failed.
        let text = tool_error(&call_tool(&client, "save_api_key", json!({})).await);
        eprintln!("save_api_key without Redis: {text}");
        assert!(
            text.contains("Asking failed")
                && text.contains("store failed: redis:")
                && text.contains("nothing was done"),
            "says what failed and why: {text:?}"
        );
        let error = bounded(
            "link_repository without Redis",
            client.call_tool(CallToolRequestParams::new("link_repository")),
        )
        .await
        .expect_err("the store failed");
        eprintln!("link_repository without Redis: {error}");
        assert!(
            error.to_string().contains("the server's store failed")
                && error.to_string().contains("redis:"),
            "says what failed and why: {error}"
        );
    });
    // The page never reached A: after the link's TTL A gives up, and says so.
    let text = text_of(&result);
    assert!(
        text.contains("cancelled") && text.contains("nothing was done"),
        "{text:?}"
    );
    // Redis back, empty, on the same port: the same instances serve again.
    redis.restart();
    fleet.listening(&redis, 3).await;
    fleet.proxy_a.wire.0.lock().unwrap().messages.clear();
    let (text, done, _, _, id) = save_key_via(&fleet, &client, fleet.b.addr).await;
    assert_eq!(done.status, 200, "{}", done.body);
    assert!(done.body.contains("Received"), "{}", done.body);
    assert!(
        text.contains(&format!("API key of {} characters", KEY.len())),
        "{text:?}"
    );
    eventually("the notification after the restart", || {
        handler.completed().contains(&id)
    })
    .await;
    assert_eq!(fleet.proxy_a.wire.assert_valid(), 3);
}

// covers: S1, S6
#[tokio::test]
async fn a_page_token_replayed_on_another_instance_is_refused() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    let fleet = Fleet::start(&redis, 60).await;
    let client = connect(&fleet.proxy_a.mcp_url(), consenting()).await;
    let (text, done, path, cookie, _) = save_key_via(&fleet, &client, fleet.b.addr).await;
    assert_eq!(done.status, 200, "{}", done.body);
    assert!(
        text.contains(&format!("{} characters", KEY.len())),
        "{text:?}"
    );
    for instance in [fleet.c.addr, fleet.a.addr, fleet.b.addr] {
        let replay = fleet
            .browser
            .submit(instance, &path, &cookie, &key_form())
            .await;
        assert_eq!(replay.status, 410, "{replay:?}");
        assert!(replay.body.contains("already used"), "{}", replay.body);
        let (reopened, _) = fleet.browser.open(instance, &path).await;
        assert_eq!(reopened.status, 410, "{reopened:?}");
    }
    // One submission, one answer: A's client saw one request and one completion.
    eventually("the completion through a", || {
        fleet.proxy_a.wire.completions().len() == 1
    })
    .await;
    assert_eq!(fleet.proxy_a.wire.creates().len(), 1);
    assert_eq!(fleet.proxy_a.wire.assert_valid(), 3);
}

// covers: M6, S6
#[tokio::test]
async fn a_request_state_answered_on_a_is_refused_when_replayed_on_b() {
    use ::rmcp::model::ErrorCode;
    let Some(redis) = RedisServer::start() else {
        return;
    };
    let fleet = Fleet::start(&redis, 60).await;
    const PLAN: &str = r#"{"strategy":"Balanced","passes":2,"run_tests":false}"#;
    let answering = TestClient::new(Some(json!({})), |_| {
        Ok(ElicitResult::new(ElicitationAction::Accept)
            .with_content(serde_json::from_str(PLAN).unwrap()))
    });
    let client_a = connect_2026(&fleet.proxy_a.mcp_url(), answering).await;
    let text = text_of(&call_tool(&client_a, "plan_task", json!({ "task": "Ship it" })).await);
    assert!(text.contains("strategy Balanced"), "{text:?}");
    // The retry that carried the answer, as it crossed to A: its requestState and
    // inputResponses.
    let retries: Vec<_> = fleet
        .proxy_a
        .wire
        .messages()
        .into_iter()
        .map(|(_, message)| message)
        .filter(|m| m["method"] == "tools/call" && m["params"]["requestState"].is_string())
        .collect();
    assert_eq!(retries.len(), 1, "{retries:?}");
    let retry = &retries[0]["params"];
    assert!(retry["inputResponses"].is_object(), "{retry}");
    crate::protocol_support::assert_mcp("2026-07-28", "CallToolRequest", &retries[0]);
    // One used round in Redis, under its random id (not the state), with a TTL.
    let state = retry["requestState"].as_str().unwrap();
    let used: Vec<_> = stored(&redis)
        .into_iter()
        .filter(|(key, _)| key.starts_with(&format!("{KEYS}round:")))
        .collect();
    assert_eq!(used.len(), 1, "{used:?}");
    let (key, value) = &used[0];
    assert!(
        !key.contains(state) && !value.contains(state),
        "{key} {value}"
    );
    let ttl = redis.pttl(key);
    assert!(ttl > 0 && ttl <= 11 * 60 * 1000, "{key}: {ttl} ms");

    // The same requestState and answers, replayed on B by another session of the same
    // (single, local) user: refused as used, with nothing asked and no result.
    let client_b = connect_2026(
        &format!("http://{}/mcp", fleet.b.addr),
        TestClient::new(Some(json!({})), |_| panic!("a replay asks nothing")),
    )
    .await;
    let replay: CallToolRequestParams =
        serde_json::from_value(retry.clone()).expect("the retry's params");
    let error = bounded("the replay on b", client_b.call_tool(replay))
        .await
        .expect_err("a used round is refused");
    let ServiceError::McpError(error) = error else {
        panic!("a JSON-RPC error, not {error:?}");
    };
    eprintln!("the requestState of a, replayed on b: {}", error.message);
    assert_eq!(error.code, ErrorCode::INVALID_PARAMS, "{error:?}");
    assert!(
        error.message.contains("already answered once"),
        "{}",
        error.message
    );
    assert_eq!(
        error.data,
        Some(json!({ "requestState": "rejected" })),
        "{error:?}"
    );
    // Still one used round: the refused replay recorded nothing.
    let rounds = stored(&redis)
        .into_iter()
        .filter(|(key, _)| key.starts_with(&format!("{KEYS}round:")))
        .count();
    assert_eq!(rounds, 1);
}

/// rmcp's client over Streamable HTTP at `url` speaking MCP 2026-07-28: no
/// `initialize`, `server/discover` first (M6).
async fn connect_2026(
    url: &str,
    handler: TestClient,
) -> ::rmcp::service::RunningService<::rmcp::service::RoleClient, TestClient> {
    use ::rmcp::model::ProtocolVersion;
    use ::rmcp::transport::StreamableHttpClientTransport;
    let handler = handler.speaking(ProtocolVersion::V_2026_07_28);
    let lifecycle = ::rmcp::ClientLifecycleMode::Discover {
        preferred_versions: vec![ProtocolVersion::V_2026_07_28],
    };
    bounded(
        "server/discover",
        ::rmcp::ClientServiceExt::serve_with_lifecycle(
            handler,
            StreamableHttpClientTransport::from_uri(url),
            lifecycle,
        ),
    )
    .await
    .expect("the client discovers the server over Streamable HTTP")
}

/// rmcp's client over Streamable HTTP at `url`, trying a dropped stream again twice,
/// 100 ms apart, then giving up (its default tries forever).
async fn connect_giving_up(
    url: &str,
    handler: TestClient,
) -> ::rmcp::service::RunningService<::rmcp::service::RoleClient, TestClient> {
    use ::rmcp::transport::common::client_side_sse::FixedInterval;
    use ::rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
    use ::rmcp::transport::StreamableHttpClientTransport;
    use ::rmcp::ServiceExt;
    let mut retry = FixedInterval::default();
    retry.max_times = Some(2);
    retry.duration = std::time::Duration::from_millis(100);
    let mut config = StreamableHttpClientTransportConfig::with_uri(url);
    config.retry_config = std::sync::Arc::new(retry);
    bounded(
        "initialize",
        handler.serve(StreamableHttpClientTransport::from_config(config)),
    )
    .await
    .expect("the client initializes over Streamable HTTP")
}

/// The text of a tool result that is an error.
#[track_caller]
fn tool_error(result: &::rmcp::model::CallToolResult) -> String {
    assert_eq!(result.is_error, Some(true), "an error: {result:?}");
    crate::protocol_support::rmcp_wire::tool_text(result)
}

/// The browser tests' WebDriver harness: a headless Chromium, one test at a time.
#[path = "../browser/harness.rs"]
mod harness;

/// A load balancer at the public origin, on loopback: every TCP connection passed to
/// `upstream` as it is (the browser's own `Host`, `Origin` and cookies reach the
/// instance). Stopped when dropped.
struct Balancer(tokio::task::JoinHandle<()>);

impl Drop for Balancer {
    fn drop(&mut self) {
        self.0.abort();
    }
}

impl Balancer {
    fn start(listener: tokio::net::TcpListener, upstream: SocketAddr) -> Balancer {
        Balancer(tokio::spawn(async move {
            while let Ok((mut inbound, _)) = listener.accept().await {
                tokio::spawn(async move {
                    if let Ok(mut outbound) = tokio::net::TcpStream::connect(upstream).await {
                        let _ = tokio::io::copy_bidirectional(&mut inbound, &mut outbound).await;
                    }
                });
            }
        }))
    }
}

// covers: U1, U2, U3, U5, M3, S1, S6
#[test]
fn in_chromium_the_page_of_a_is_filled_on_b_behind_a_load_balancer() {
    harness::run(std::time::Duration::from_secs(120), || async {
        let Some(redis) = RedisServer::start() else {
            return Ok(());
        };
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0)).await?;
        let origin = format!("http://{}", listener.local_addr()?);
        let fleet = Fleet::start_at(&redis, 60, &origin).await;
        // Every browser request goes to B.
        let _balancer = Balancer::start(listener, fleet.b.addr);
        let Some(chromium) = harness::Browser::start().await? else {
            return Ok(());
        };
        let handler = consenting();
        let client = connect(&fleet.proxy_a.mcp_url(), handler.clone()).await;
        let (result, page) = tokio::join!(call_tool(&client, "save_api_key", json!({})), async {
            let url = requested_url(&fleet.proxy_a.wire).await;
            assert!(url.starts_with(&format!("{origin}/elicit/")), "{url}");
            chromium.goto(&url).await?;
            chromium.fill("input[name='f.api_key']", KEY).await?;
            chromium.click("button[value=accept]").await?;
            let deadline = std::time::Instant::now() + harness::WAIT_TIMEOUT;
            loop {
                let body = chromium.text("body").await.unwrap_or_default();
                if body.contains("Received") || std::time::Instant::now() > deadline {
                    return Ok::<_, harness::Error>(body);
                }
                tokio::time::sleep(std::time::Duration::from_millis(20)).await;
            }
        });
        let page = page?;
        assert!(page.contains("Received"), "the page on B: {page}");
        let text = text_of(&result);
        assert!(
            text.contains(&format!("API key of {} characters", KEY.len())),
            "{text:?}"
        );
        assert!(text.contains("instance a"), "{text:?}");
        let id = elicitation_id(&fleet.proxy_a.wire);
        eventually("the notification through a", || {
            handler.completed().contains(&id)
        })
        .await;
        assert_eq!(handler.completed(), std::slice::from_ref(&id));
        assert!(
            stored(&redis).iter().all(|(_, value)| !value.contains(KEY)),
            "the key is not in Redis"
        );
        assert_eq!(fleet.proxy_a.wire.assert_valid(), 3);
        chromium.close().await?;
        Ok(())
    });
}
