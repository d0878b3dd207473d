//! Drives `examples/mcp_server.rs` over Streamable HTTP (`--http`): the built example
//! runs as child processes on free loopback ports, and rmcp's own client (its reqwest
//! Streamable HTTP transport) talks to them. Between a client and an instance sits a
//! recording proxy on loopback, which passes every request and response through as it
//! is (only `Host` is set to the instance's, as a reverse proxy does) and keeps the JSON-RPC messages as they crossed (the POST bodies, and the `data`
//! of each SSE event) and the `Mcp-Session-Id` headers: every elicitation message is
//! checked against the official MCP 2025-11-25 schema.
//!
//! The secure page mounted in each instance is driven the way a browser would (one
//! request per connection, every header written by hand): open the link, keep the
//! cookie, submit the form from the page's own origin.
//!
//! With feature `redis`, two instances share one real `redis-server` (started by the
//! test on loopback, without persistence, stopped by it; skipped with a message
//! without `CI`, failing with it): a `-32042` flow whose retried call lands on the other
//! instance, and a page token replayed on the other instance.
//!
//! Every wait is bounded (`rmcp_wire::LIMIT`); every child is killed when dropped.
#![cfg(all(feature = "rmcp_3", feature = "url", feature = "axum"))]

use std::net::SocketAddr;

use ::rmcp::model::{ElicitResult, ElicitationAction};
#[cfg(feature = "redis")]
use elicit::protocol::mcp::URL_ELICITATION_REQUIRED;
use serde_json::json;

use crate::mcp_http::*;
use crate::protocol_support::rmcp_wire::{bounded, call_tool, eventually, TestClient};

const PLAN: &str =
    r#"{"strategy":"Balanced","passes":3,"notify":"ada@example.com","run_tests":false}"#;

// covers: E1, M1, M2, F1, F4
#[tokio::test]
async fn a_form_elicitation_over_streamable_http_end_to_end() {
    let instance = Instance::start(&["--instance", "solo"]).await;
    let proxy = Proxy::start(instance.addr).await;
    let client = connect(
        &proxy.mcp_url(),
        TestClient::new(Some(json!({})), |_| {
            Ok(ElicitResult::new(ElicitationAction::Accept)
                .with_content(serde_json::from_str(PLAN).unwrap()))
        }),
    )
    .await;
    let tools = bounded("tools/list", client.list_all_tools())
        .await
        .expect("tools/list");
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    assert_eq!(
        names,
        [
            "plan_task",
            "book_table",
            "connect_account",
            "save_api_key",
            "link_repository"
        ]
    );
    let text = text_of(&call_tool(&client, "plan_task", json!({ "task": "Tidy up" })).await);
    for said in [
        "strategy Balanced",
        "3 review pass(es)",
        "notify ada@example.com",
        "run tests: false",
    ] {
        assert!(text.contains(said), "{said:?} in {text:?}");
    }
    let creates = proxy.wire.creates();
    assert_eq!(creates.len(), 1);
    let schema = &creates[0]["params"]["requestedSchema"]["properties"];
    let order: Vec<&String> = schema.as_object().expect("properties").keys().collect();
    assert_eq!(order, ["strategy", "passes", "notify", "run_tests"]);
    assert_eq!(proxy.wire.assert_valid(), 2);
    // rmcp's sessions: one id issued at `initialize`, carried by every later request.
    let recorded = proxy.wire.0.lock().unwrap();
    assert_eq!(
        recorded.issued_sessions.len(),
        1,
        "{:?}",
        recorded.issued_sessions
    );
    let session = &recorded.issued_sessions[0];
    assert!(
        session.len() >= 16,
        "an unguessable session id: {session:?}"
    );
    assert_eq!(recorded.sent_sessions[0], None, "initialize has none yet");
    assert!(
        recorded.sent_sessions[1..]
            .iter()
            .all(|sent| sent.as_ref() == Some(session)),
        "{:?}",
        recorded.sent_sessions
    );
}

// covers: U1, U2, U3, U5, F6, S1, S6, M3
#[tokio::test]
async fn save_api_key_goes_through_the_mounted_page_and_says_only_its_length() {
    let instance = Instance::start(&[]).await;
    let origin = format!("http://{}", instance.addr);
    let proxy = Proxy::start(instance.addr).await;
    let handler = consenting();
    let client = connect(&proxy.mcp_url(), handler.clone()).await;
    let browser = Browser::at(&origin);
    const KEY: &str = "sk-live-0123456789abcdefXYZ";
    let (result, (done, _, _)) =
        tokio::join!(call_tool(&client, "save_api_key", json!({})), async {
            let url = requested_url(&proxy.wire).await;
            browser
                .fill(
                    instance.addr,
                    &url,
                    &format!("f.api_key={KEY}&elicit-action=accept"),
                )
                .await
        });
    assert_eq!(done.status, 200, "{}", done.body);
    assert!(done.body.contains("Received"), "{}", done.body);
    let text = text_of(&result);
    assert!(
        text.contains(&format!("API key of {} characters", KEY.len())),
        "{text:?}"
    );
    assert!(!text.contains(KEY), "never the key: {text:?}");
    let create = &proxy.wire.creates()[0];
    let id = create["params"]["elicitationId"]
        .as_str()
        .unwrap()
        .to_owned();
    // U3: the key never crossed the client's connection.
    assert!(
        proxy
            .wire
            .messages()
            .iter()
            .all(|(_, m)| !m.to_string().contains(KEY)),
        "the key is not on the MCP wire"
    );
    // rmcp's client hands the notification to its handler on a task of its own.
    eventually("the notification", || !handler.completed().is_empty()).await;
    assert_eq!(handler.completed(), std::slice::from_ref(&id));
    assert_eq!(proxy.wire.completions(), [id]);
    assert_eq!(proxy.wire.assert_valid(), 3);
}

// covers: R5, U2
#[tokio::test]
async fn save_api_key_declined_on_the_page_does_nothing() {
    let instance = Instance::start(&[]).await;
    let proxy = Proxy::start(instance.addr).await;
    let client = connect(&proxy.mcp_url(), consenting()).await;
    let browser = Browser::at(&format!("http://{}", instance.addr));
    let (result, (done, _, _)) =
        tokio::join!(call_tool(&client, "save_api_key", json!({})), async {
            let url = requested_url(&proxy.wire).await;
            browser
                .fill(instance.addr, &url, "f.api_key=&elicit-action=decline")
                .await
        });
    assert_eq!(done.status, 200, "{}", done.body);
    let text = text_of(&result);
    assert!(
        text.contains("declined") && text.contains("nothing was done"),
        "{text:?}"
    );
}

/// An `initialize` POST, as rmcp's client sends it, with `extra` headers.
async fn initialize(addr: SocketAddr, extra: &[(&str, &str)], body: &[u8]) -> Reply {
    let mut headers = vec![
        ("Content-Type", "application/json"),
        ("Accept", "application/json, text/event-stream"),
    ];
    headers.extend_from_slice(extra);
    request(addr, "POST", "/mcp", &headers, body).await
}

fn initialize_body(padding: usize) -> Vec<u8> {
    json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {
            "protocolVersion": MCP, "capabilities": {},
            "clientInfo": { "name": "elicit-tests", "version": "1" },
            "_meta": { "padding": "x".repeat(padding) }
        }
    })
    .to_string()
    .into_bytes()
}

// The MCP transport's rule for local servers (its "Security Warning"; no SPEC rule
// names it): a present `Origin` that is not the server's own (or one allowed) is refused,
// against DNS rebinding; so is a foreign `Host`.
#[tokio::test]
async fn a_cross_site_origin_or_a_foreign_host_is_refused_with_403() {
    let lb = free_port();
    let origin = format!("http://127.0.0.1:{lb}");
    let instance = Instance::start(&["--public-origin", &origin]).await;
    let body = initialize_body(0);
    for (headers, expected) in [
        (vec![], 200),
        (vec![("Origin", origin.as_str())], 200),
        // Not any port of localhost: only the origins named exactly
        // (`mcp_server_limits` tests `--allow-origin`).
        (vec![("Origin", "http://localhost:5173")], 403),
        (vec![("Origin", "https://evil.example")], 403),
        (vec![("Origin", "http://127.0.0.1.evil.example")], 403),
        (vec![("Origin", "null")], 403),
        (vec![("Host", "evil.example")], 403),
    ] {
        let reply = initialize(instance.addr, &headers, &body).await;
        assert_eq!(reply.status, expected, "{headers:?}: {reply:?}");
        if expected == 403 {
            assert!(reply.body.starts_with("Forbidden:"), "says why: {reply:?}");
            let header = if headers[0].0 == "Host" {
                "Host"
            } else {
                "Origin"
            };
            assert!(reply.body.contains(header), "names the header: {reply:?}");
        }
    }
}

// The bound on what a client can make the server buffer (D12's spirit for the
// transport; no SPEC rule names it): rmcp counts the body as it streams in.
#[tokio::test]
async fn a_body_over_the_bound_is_refused_with_413() {
    let instance = Instance::start(&[]).await;
    // The bound is 256 KiB: an `initialize` just under it is served, one over is not.
    let under = initialize_body(255 * 1024);
    assert_eq!(initialize(instance.addr, &[], &under).await.status, 200);
    let over = initialize_body(300 * 1024);
    let reply = initialize(instance.addr, &[], &over).await;
    assert_eq!(reply.status, 413, "{reply:?}");
}

#[cfg(feature = "redis")]
mod shared {
    //! Two instances of one deployment on one `redis-server`.

    use super::*;
    use ::rmcp::model::CallToolRequestParams;
    use ::rmcp::service::ServiceError;

    use crate::mcp_http::redis_server::RedisServer;

    /// Instances `a` and `b` on `redis`, behind one public origin.
    async fn deployment(redis: &RedisServer) -> (Instance, Instance, Browser) {
        let origin = format!("http://127.0.0.1:{}", free_port());
        let url = redis.url();
        let start = |name: &'static str| {
            let (url, origin) = (url.clone(), origin.clone());
            async move {
                Instance::start(&[
                    "--redis",
                    &url,
                    "--public-origin",
                    &origin,
                    "--instance",
                    name,
                ])
                .await
            }
        };
        (start("a").await, start("b").await, Browser::at(&origin))
    }

    /// Every value in Redis, for what must not be there.
    fn values(redis: &RedisServer) -> Vec<(String, String)> {
        redis
            .keys()
            .into_iter()
            .map(|key| {
                let value = redis.cli(&["GET", &key]);
                (key, value)
            })
            .collect()
    }

    // covers: M4, U1, U5, S6
    #[tokio::test]
    async fn a_url_required_retry_on_the_other_instance_sees_the_completion() {
        let Some(redis) = RedisServer::start() else {
            return;
        };
        let (a, b, browser) = deployment(&redis).await;
        let proxy_a = Proxy::start(a.addr).await;
        let handler_a = TestClient::new(Some(json!({ "url": {} })), |_| {
            panic!("-32042 carries the URL: no elicitation/create")
        });
        let client_a = connect(&proxy_a.mcp_url(), handler_a.clone()).await;
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
        assert_eq!(elicitation["mode"], "url");
        let id = elicitation["elicitationId"].as_str().unwrap().to_owned();
        let url = elicitation["url"].as_str().unwrap().to_owned();
        // The page, on the instance that holds the ask.
        const TOKEN: &str = "ghp_0123456789abcdefXYZ";
        let (done, _, _) = browser
            .fill(
                a.addr,
                &url,
                &format!("f.token={TOKEN}&elicit-action=accept"),
            )
            .await;
        assert_eq!(done.status, 200, "{}", done.body);
        eventually("the completion through a", || {
            handler_a.completed().contains(&id)
        })
        .await;
        assert_eq!(proxy_a.wire.completions(), std::slice::from_ref(&id));
        // The client retries; the load balancer sends it to b, a session of its own.
        let client_b = connect(
            &format!("http://{}/mcp", b.addr),
            TestClient::new(Some(json!({ "url": {} })), |_| {
                panic!("nothing more to ask")
            }),
        )
        .await;
        let text = text_of(&call_tool(&client_b, "link_repository", json!({})).await);
        for said in [
            "linked",
            &format!("{} characters", TOKEN.len()),
            &id,
            "instance b",
        ] {
            assert!(text.contains(said), "{said:?} in {text:?}");
        }
        // What b read is in Redis, under the example's prefixes; never the token.
        let stored = values(&redis);
        assert!(
            stored
                .iter()
                .any(|(key, _)| key.starts_with("elicit-mcp-server:link:")),
            "{stored:?}"
        );
        assert!(
            stored.iter().all(|(_, value)| !value.contains(TOKEN)),
            "the token is not in Redis: {stored:?}"
        );
        for (key, _) in &stored {
            assert!(redis.pttl(key) > 0, "{key} has a TTL");
        }
        // The -32042 error and the completion, on a's wire.
        assert_eq!(proxy_a.wire.assert_valid(), 2);
    }

    // covers: S1, S6
    #[tokio::test]
    async fn a_page_token_replayed_on_the_other_instance_is_refused() {
        let Some(redis) = RedisServer::start() else {
            return;
        };
        let (a, b, browser) = deployment(&redis).await;
        let proxy_a = Proxy::start(a.addr).await;
        let client_a = connect(&proxy_a.mcp_url(), consenting()).await;
        const KEY: &str = "sk-live-0123456789abcdef";
        let form = format!("f.api_key={KEY}&elicit-action=accept");
        let (result, (done, path, cookie)) =
            tokio::join!(call_tool(&client_a, "save_api_key", json!({})), async {
                let url = requested_url(&proxy_a.wire).await;
                browser.fill(a.addr, &url, &form).await
            });
        assert_eq!(done.status, 200, "{}", done.body);
        assert!(text_of(&result).contains(&format!("{} characters", KEY.len())));
        // The same submission again, on b and on a: the ticket in Redis is used. (An
        // instance with a store of its own would not know the token: 404, not 410.)
        for instance in [b.addr, a.addr] {
            let replay = browser.submit(instance, &path, &cookie, &form).await;
            assert_eq!(replay.status, 410, "{replay:?}");
            assert!(replay.body.contains("already used"), "{}", replay.body);
            let (reopened, _) = browser.open(instance, &path).await;
            assert_eq!(reopened.status, 410, "{reopened:?}");
        }
        let token = path.trim_start_matches("/elicit/");
        let ticket = format!(
            "elicit-mcp-server:page:{}",
            elicit::axum::PageTicket::store_key(token)
        );
        let stored = values(&redis);
        assert!(stored.iter().any(|(key, _)| *key == ticket), "{stored:?}");
        assert!(redis.pttl(&ticket) > 0, "the ticket has a TTL");
        assert!(
            stored.iter().all(|(_, value)| !value.contains(KEY)),
            "the key is not in Redis: {stored:?}"
        );
    }
}
