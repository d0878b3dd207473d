//! `elicit::agent::RedisRelay`: completions and page submissions across the instances
//! of an agent (features `axum` and `redis`), each "instance" here its own relay,
//! stores, registry and page, on its own connections to one real `redis-server` that
//! the test starts on 127.0.0.1 and stops. What is checked: a submission on B reaches
//! the wait on A, sealed (no trace of the secret in any key or any published
//! message); a completion on B is sent by A on its connection, once, and a retry on C
//! sees it complete; a gone instance is refused with a clear page, never "Received",
//! and leaves nothing after the TTL; a Redis restart errors clearly and the relay
//! subscribes again. Each test prints the Redis commands it counted and the memory of
//! a pending elicitation.
#![cfg(all(feature = "axum", feature = "redis"))]

use std::collections::BTreeMap;
use std::io::Read;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use elicit::agent::{
    ConnectionId, Delivery, Elicitor, RedisConfig, RedisRelay, RedisStore, RegistryLimits,
    RelayConfig, RelayKey, RouteError, Store, UrlEntry, UrlPolicy, UrlRegistry, UrlState, UserId,
};
use elicit::axum::{PageError, PageTicket, PageWait, SecurePage};
use elicit::{ElicitationCapabilities, Elicited, Scope};
use serde_json::json;

use super::url_page::{http, run, DeployKey};

// The same server helper as redis_page.rs, which keeps its copy private.
#[allow(clippy::duplicate_mod)]
#[path = "../../elicit-core/tests/security/redis_server.rs"]
pub(super) mod redis_server;
use redis_server::RedisServer;

/// The secret typed on the page: nothing in Redis may hold it.
pub(super) const SECRET: &str = "sk-live-route-7f3a9c2e51";

/// The deployment's relay key, the same on every instance of these tests.
pub(super) fn relay_key() -> RelayKey {
    RelayKey::from_bytes([0x5e; 32])
}

pub(super) fn good_body() -> String {
    format!("f.api_key={SECRET}&f.region=eu&elicit-action=accept")
}

/// One instance of the agent: its relay, its registry and page on stores of its own
/// connection, all on one Redis.
pub(super) struct Instance {
    pub(super) relay: RedisRelay,
    pub(super) registry: UrlRegistry,
    pub(super) page: SecurePage,
    pub(super) tickets: RedisStore<PageTicket>,
}

fn stores(server: &RedisServer, ttl: Duration) -> (RedisStore<UrlEntry>, RedisStore<PageTicket>) {
    let urls: RedisStore<UrlEntry> = RedisStore::connect(
        server.url().as_str(),
        RedisConfig::new().prefix("elicit:url:").ttl(ttl),
    )
    .expect("the store connects");
    let tickets = urls.with_prefix::<PageTicket>("elicit:page:");
    (urls, tickets)
}

pub(super) async fn instance(server: &RedisServer, ttl: Duration) -> Instance {
    let relay = RedisRelay::connect(server.url().as_str(), relay_key(), RelayConfig::new())
        .expect("the relay connects and subscribes");
    let (urls, tickets) = stores(server, ttl);
    let registry = UrlRegistry::with_store(urls, RegistryLimits::DEFAULT).routed_by(&relay);
    // Alice's own deployment, without a login (S6 given up in so many words).
    let page = SecurePage::builder()
        .unauthenticated_single_user(UserId::new("alice"))
        .store(tickets.clone())
        .relay(&relay)
        .bind(([127, 0, 0, 1], 0))
        .await
        .expect("the page binds");
    Instance {
        relay,
        registry,
        page,
        tickets,
    }
}

impl Instance {
    /// A connection's elicitor on this instance, for `alice`.
    pub(super) fn elicitor(&self) -> Elicitor {
        let caps = ElicitationCapabilities::from_json(Some(&json!({ "url": {} })));
        Elicitor::new(caps, ConnectionId::new())
            .with_user(UserId::new("alice"))
            .with_url_policy(UrlPolicy::new().allow_loopback_http(true))
            .with_registry(&self.registry)
    }

    /// A URL elicitation carrying a page link of this instance, consented, and the
    /// page's wait: the `ask_secret` flow up to the submission. Returns the id, the
    /// link's path and the wait.
    pub(super) fn ask(&self, elicitor: &Elicitor) -> (String, String, PageWait<DeployKey>) {
        let link = self
            .page
            .link::<DeployKey>("Paste the API key of your deploy account")
            .unwrap();
        let path = link
            .url()
            .strip_prefix(self.page.origin())
            .unwrap()
            .to_owned();
        let pending = elicitor
            .url(
                Scope::session("s1"),
                "Connect your deploy account",
                link.url(),
            )
            .unwrap();
        let id = pending.elicitation_id().to_owned();
        let wait = link.open(&id, elicitor.user()).unwrap();
        let outcome = elicitor
            .record_response(&id, &elicit::ElicitationResponse::accept_without_content())
            .unwrap();
        assert_eq!(outcome, elicit::agent::UrlOutcome::Consented);
        (id, path, wait)
    }
}

/// The commands run between two counts, by name.
fn commands_between(
    before: &BTreeMap<String, u64>,
    after: &BTreeMap<String, u64>,
) -> BTreeMap<String, u64> {
    after
        .iter()
        .filter_map(|(name, &calls)| {
            let ran = calls - before.get(name).copied().unwrap_or(0);
            (ran > 0).then(|| (name.clone(), ran))
        })
        .collect()
}

fn port_of(server: &RedisServer) -> String {
    server
        .url()
        .trim_end_matches('/')
        .rsplit(':')
        .next()
        .unwrap()
        .to_owned()
}

/// A `redis-cli PSUBSCRIBE` of every channel under the prefix, recording the raw bytes
/// it prints: what crossed Redis.
pub(super) struct Listener {
    child: Child,
    heard: Arc<Mutex<Vec<u8>>>,
}

impl Listener {
    pub(super) fn start(server: &RedisServer) -> Listener {
        let mut child = Command::new("redis-cli")
            .args(["-h", "127.0.0.1", "-p", &port_of(server), "--raw"])
            .args(["PSUBSCRIBE", "elicit:*"])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("redis-cli runs");
        let mut out = child.stdout.take().unwrap();
        let heard = Arc::new(Mutex::new(Vec::new()));
        let into = Arc::clone(&heard);
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = out.read(&mut buf) {
                if n == 0 {
                    break;
                }
                into.lock().unwrap().extend_from_slice(&buf[..n]);
            }
        });
        let listener = Listener { child, heard };
        listener.until("psubscribe", "the test's PSUBSCRIBE");
        listener
    }

    pub(super) fn until(&self, text: &str, what: &str) {
        let deadline = Instant::now() + Duration::from_secs(10);
        while !contains(&self.heard.lock().unwrap(), text.as_bytes()) {
            assert!(Instant::now() < deadline, "{what} did not show within 10 s");
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    pub(super) fn heard(&self) -> Vec<u8> {
        self.heard.lock().unwrap().clone()
    }
}

impl Drop for Listener {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub(super) fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

/// Every value under the prefix, read back with `redis-cli GET` (keys by `SCAN`).
pub(super) fn every_value(server: &RedisServer) -> Vec<(String, String)> {
    server
        .keys()
        .into_iter()
        .filter(|key| key.starts_with("elicit:"))
        .map(|key| {
            let value = server.cli(&["GET", &key]);
            (key, value)
        })
        .collect()
}

pub(super) async fn until(what: &str, done: impl Fn() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(15);
    while !done() {
        assert!(Instant::now() < deadline, "{what}: not within 15 s");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

// covers: S1, S6, U3, U5, F6
#[test]
fn a_page_submitted_on_b_reaches_the_wait_on_a_and_only_sealed_bytes_cross_redis() {
    let Some(server) = RedisServer::start() else {
        return;
    };
    run(async {
        let a = instance(&server, RedisConfig::DEFAULT_TTL).await;
        let b = instance(&server, RedisConfig::DEFAULT_TTL).await;
        let listener = Listener::start(&server);
        let elicitor = a.elicitor();
        let (id, path, wait) = a.ask(&elicitor);
        let token = path.trim_start_matches("/elicit/").to_owned();

        // What a pending elicitation holds in Redis: its entry and its page's ticket.
        let keys = server.keys();
        assert_eq!(
            keys,
            vec![
                format!("elicit:page:{}", PageTicket::store_key(&token)),
                format!("elicit:url:{id}")
            ]
        );
        // The ticket's key names a 128-bit digest of the token, never the token.
        let digest = PageTicket::store_key(&token);
        assert_eq!(digest.len(), 32);
        assert!(!digest.contains(&token) && !token.contains(&digest));
        let bytes: u64 = keys
            .iter()
            .map(|key| {
                let bytes = server
                    .cli(&["MEMORY", "USAGE", key])
                    .trim()
                    .parse::<u64>()
                    .unwrap();
                let length = server.cli(&["STRLEN", key]);
                eprintln!(
                    "redis memory: {key}: {bytes} bytes ({} bytes of value)",
                    length.trim()
                );
                bytes
            })
            .sum();
        eprintln!("redis memory: one pending URL elicitation with its page: 2 keys, {bytes} bytes (MEMORY USAGE)");
        assert!(bytes <= 1024, "a pending elicitation holds {bytes} bytes");
        for key in &keys {
            assert!(server.pttl(key) > 0, "{key} has a TTL");
        }
        // The ticket names A as the waiting instance; B has nothing waiting.
        let ticket = b
            .tickets
            .get(&PageTicket::store_key(&token))
            .unwrap()
            .unwrap();
        assert_eq!(ticket.instance(), Some(a.relay.instance_id()));
        assert_eq!(b.page.waiting(), 0);

        // The browser lands on B: B shows the form from the ticket.
        let shown = http::open(b.page.local_addr(), &path, None).await;
        assert_eq!(shown.status, 200, "{}", shown.body);
        assert!(shown.body.contains("api_key"), "{}", shown.body);
        let cookie = shown.cookie().unwrap();
        // An invalid answer is shown again by B, and nothing is routed.
        let short = http::submit(
            b.page.local_addr(),
            &path,
            &cookie,
            "f.api_key=short&f.region=eu&elicit-action=accept",
        )
        .await;
        assert_eq!(short.status, 422, "{}", short.body);

        let before = server.command_counts();
        let done = http::submit(b.page.local_addr(), &path, &cookie, &good_body()).await;
        assert_eq!(done.status, 200, "{}", done.body);
        assert!(done.body.contains("Received"), "{}", done.body);
        let answer = tokio::time::timeout(Duration::from_secs(10), wait.answer())
            .await
            .expect("the routed answer arrives in time");
        let Ok(Elicited::Accepted(submitted)) = answer else {
            panic!("accepted on A: {answer:?}")
        };
        assert_eq!(submitted.value().api_key, SECRET);
        assert_eq!(submitted.user(), Some(&UserId::new("alice")));
        // A completes in its registry and would now notify its client (U5).
        let completed = elicitor.complete(&id, submitted.user()).unwrap();
        assert_eq!(completed.elicitation_id(), id);
        let ran = commands_between(&before, &server.command_counts());
        let total: u64 = ran.values().sum();
        // Sent by the instances: on B the ticket's compare-and-swap to used (EVALSHA,
        // from the copy B kept when it bound the page after the invalid answer, so
        // without a GET) and the PUBLISH of the sealed answer; on A the PUBLISH of the
        // acknowledgement B waits for before it says "Received", and the registry's
        // compare-and-swap to Completed (EVALSHA, against the entry A wrote itself, so
        // without a GET). A does not read the ticket: the message's tag under the
        // relay key says a key holder marked it used, and it names the ticket's tag,
        // which A compares with the one it wrote. `INFO commandstats` also counts each
        // script's own GET and SET inside Redis.
        let inner = ran.get("evalsha").copied().unwrap_or(0) * 2;
        eprintln!(
            "redis commands: a page submitted on B to the completion on A: {} sent by the \
             instances ({total} in commandstats, the scripts' inner GET and SET included) {ran:?}",
            total - inner
        );
        assert_eq!(ran.get("evalsha"), Some(&2), "{ran:?}");
        assert_eq!(total - inner, 4, "{ran:?}");
        assert_eq!(ran.get("publish"), Some(&2), "{ran:?}");
        // Only the two scripts' own GETs: B does not read the ticket again.
        assert_eq!(ran.get("get"), Some(&2), "{ran:?}");
        // Replayed on either instance: used.
        for addr in [a.page.local_addr(), b.page.local_addr()] {
            assert_eq!(
                http::submit(addr, &path, &cookie, &good_body())
                    .await
                    .status,
                410
            );
        }

        // No trace of the secret in any key, nor in what was published.
        listener.until(a.relay.channel(), "the routed message");
        let heard = listener.heard();
        assert!(
            !contains(&heard, SECRET.as_bytes()),
            "the secret was published in clear"
        );
        assert!(
            !contains(&heard, b"api_key"),
            "the content was published in clear"
        );
        assert!(
            !contains(&heard, token.as_bytes()),
            "the token was published in clear"
        );
        let values = every_value(&server);
        assert!(!values.is_empty());
        for (key, value) in values {
            assert!(!value.contains(SECRET), "{key} holds the secret");
            assert!(!value.contains("sk-live"), "{key} holds part of the secret");
        }
        a.page.shutdown();
        b.page.shutdown();
    });
}

// covers: U5, E5, S6, M4
#[cfg(feature = "rmcp_3")]
#[tokio::test]
async fn a_completion_on_b_is_sent_by_a_on_its_connection_once_and_c_sees_it_complete() {
    use ::rmcp::model::{
        CallToolRequestParams, CallToolResponse, ServerCapabilities, ServerConfig,
    };
    use ::rmcp::service::{RequestContext, RoleServer};
    use ::rmcp::{ErrorData, ServerHandler, ServiceError, ServiceExt};
    use elicit::agent::CompletionError;
    use elicit::rmcp::{url_elicitation_required, PeerElicitor};
    use std::sync::OnceLock;

    use crate::protocol_support::rmcp_wire::{bounded, eventually, in_memory, Relay, TestClient};

    /// A tool that cannot proceed before a URL elicitation: `-32042`, on a registry
    /// routed by this instance's relay.
    #[derive(Clone)]
    struct NeedsUrl {
        registry: UrlRegistry,
        connection: Arc<OnceLock<PeerElicitor>>,
    }

    impl ServerHandler for NeedsUrl {
        fn get_info(&self) -> ServerConfig {
            ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
        }

        async fn call_tool(
            &self,
            _request: CallToolRequestParams,
            context: RequestContext<RoleServer>,
        ) -> Result<CallToolResponse, ErrorData> {
            let connection = self.connection.get_or_init(|| {
                PeerElicitor::new(&context.peer)
                    .with_user(UserId::new("alice"))
                    .with_registry(&self.registry)
            });
            let pending = connection
                .prepare_url("Connect your account", "https://auth.example.com/connect")
                .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
            Err(url_elicitation_required(
                "This tool needs your account",
                &[pending],
            ))
        }
    }

    let Some(server) = RedisServer::start() else {
        return;
    };
    let connect = |ttl| {
        let relay =
            RedisRelay::connect(server.url().as_str(), relay_key(), RelayConfig::new()).unwrap();
        let (urls, _) = stores(&server, ttl);
        let registry =
            UrlRegistry::with_store(urls.clone(), RegistryLimits::DEFAULT).routed_by(&relay);
        (relay, registry, urls)
    };
    let (relay_a, registry_a, _) = connect(RedisConfig::DEFAULT_TTL);
    let (relay_b, registry_b, _) = connect(RedisConfig::DEFAULT_TTL);
    let (_relay_c, registry_c, store_c) = connect(RedisConfig::DEFAULT_TTL);

    // The client's connection is held by A.
    let handler = TestClient::new(Some(json!({ "url": {} })), |_| {
        Err(ErrorData::internal_error("not asked", None))
    });
    let service = NeedsUrl {
        registry: registry_a.clone(),
        connection: Arc::default(),
    };
    let (server_io, client_io, wire) = in_memory(Relay::default());
    let served = tokio::spawn(service.clone().serve(server_io));
    let client = bounded("initialize", handler.clone().serve(client_io))
        .await
        .unwrap();
    let _served = bounded("initialize", served).await.unwrap().unwrap();
    let (routed, mut completions) = tokio::sync::mpsc::unbounded_channel();
    relay_a.on_completion(&registry_a, move |done| {
        let _ = routed.send(done);
    });

    let ask = |client: &::rmcp::service::RunningService<::rmcp::RoleClient, TestClient>| {
        let peer = client.peer().clone();
        async move {
            let error = peer
                .call_tool(CallToolRequestParams::new("needs_url"))
                .await;
            let Err(ServiceError::McpError(error)) = error else {
                panic!("-32042: {error:?}")
            };
            error.data.unwrap()["elicitations"][0]["elicitationId"]
                .as_str()
                .unwrap()
                .to_owned()
        }
    };
    let id = bounded("call_tool", ask(&client)).await;
    let entry = store_c.get(&id).unwrap().unwrap();
    assert_eq!(entry.instance(), Some(relay_a.instance_id()));
    assert_eq!(entry.state(), UrlState::AwaitingResponse);

    // The compare-and-swap script is loaded once per Redis (EVALSHA, NOSCRIPT,
    // SCRIPT LOAD): a warm-up round leaves only what every completion costs.
    let warm = bounded("call_tool", ask(&client)).await;
    assert_eq!(
        relay_b.complete(&registry_b, &warm, Some(&UserId::new("alice"))),
        Ok(Delivery::Delivered)
    );
    let warm = bounded("the routed completion", completions.recv())
        .await
        .unwrap();
    assert_eq!(
        warm.connection(),
        service.connection.get().unwrap().elicitor().connection()
    );

    // The external interaction's callback lands on B: completed there, sent by A.
    let id = bounded("call_tool", ask(&client)).await;
    let before = server.command_counts();
    let delivery = relay_b
        .complete(&registry_b, &id, Some(&UserId::new("alice")))
        .unwrap();
    assert_eq!(delivery, Delivery::Delivered);
    let done = bounded("the routed completion", completions.recv())
        .await
        .unwrap();
    let ran = commands_between(&before, &server.command_counts());
    let total: u64 = ran.values().sum();
    // Sent by the instances: GET and EVALSHA on B (the registry's read and
    // compare-and-swap), PUBLISH on B, GET on A (the state, before it notifies).
    // `INFO commandstats` also counts the script's own GET and SET inside Redis.
    let inner = ran.get("evalsha").copied().unwrap_or(0) * 2;
    eprintln!(
        "redis commands: a completion on B routed to A: {} sent by the instances \
         ({total} in commandstats, the script's inner GET and SET included) {ran:?}",
        total - inner
    );
    let expected: BTreeMap<String, u64> = [("evalsha", 1), ("get", 3), ("publish", 1), ("set", 1)]
        .into_iter()
        .map(|(name, calls)| (name.to_owned(), calls))
        .collect();
    assert_eq!(ran, expected);
    assert!(total - inner <= 4);
    assert_eq!(done.elicitation_id(), id);
    let connection = service.connection.get().unwrap();
    assert_eq!(done.connection(), connection.elicitor().connection());
    // E5: another connection's elicitor refuses it.
    let other = PeerElicitor::new(_served.peer()).with_registry(&registry_a);
    assert!(matches!(
        other.send_completion(done.clone()).await,
        Err(elicit::rmcp::CompleteError::Refused(
            CompletionError::ForeignConnection
        ))
    ));
    bounded("send_completion", connection.send_completion(done))
        .await
        .unwrap();
    eventually("the notification", || !handler.completed().is_empty()).await;
    assert_eq!(handler.completed(), std::slice::from_ref(&id));
    assert_eq!(wire.completions(), std::slice::from_ref(&id));
    // Three `-32042` errors and one notification, each valid MCP 2025-11-25.
    assert_eq!(wire.assert_valid(), 4);

    // U5, once: a second completion anywhere is refused, and nothing more is routed.
    assert_eq!(
        relay_b.complete(&registry_b, &id, Some(&UserId::new("alice"))),
        Err(RouteError::Refused(CompletionError::AlreadyCompleted))
    );
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(completions.try_recv().is_err());
    // The retried tool call on C: its registry reads it complete.
    assert_eq!(
        registry_c.entry(&id).unwrap().unwrap().state(),
        UrlState::Completed
    );
    assert_eq!(registry_c.entry("never-issued").unwrap(), None);

    // S6: another user cannot complete one, from any instance.
    let second = bounded("call_tool", ask(&client)).await;
    assert_eq!(
        relay_b.complete(&registry_b, &second, Some(&UserId::new("mallory"))),
        Err(RouteError::Refused(CompletionError::UserMismatch))
    );
    assert_eq!(
        store_c.get(&second).unwrap().unwrap().state(),
        UrlState::AwaitingResponse
    );
    let _ = client.cancel().await;
}

// covers: U5, R5
#[test]
fn a_gone_instance_is_refused_with_a_clear_page_and_leaves_nothing_after_the_ttl() {
    let Some(server) = RedisServer::start() else {
        return;
    };
    let ttl = Duration::from_millis(1500);
    run(async {
        let a = instance(&server, ttl).await;
        let b = instance(&server, ttl).await;
        let elicitor = a.elicitor();
        let (_, path, wait) = a.ask(&elicitor);
        let (other, _, other_wait) = a.ask(&elicitor);
        let pending = elicitor
            .url(
                Scope::session("s1"),
                "Connect",
                "https://auth.example.com/c",
            )
            .unwrap();
        assert_eq!(server.keys().len(), 5);
        // The person opened the page on B while A still ran.
        let shown = http::open(b.page.local_addr(), &path, None).await;
        assert_eq!(shown.status, 200, "{}", shown.body);
        let cookie = shown.cookie().unwrap();

        // A dies: nothing cleaned up, its channel has no listener any more.
        std::mem::forget(wait);
        std::mem::forget(other_wait);
        a.relay.close();
        until("A stops listening", || !a.relay.is_listening()).await;

        // Opened now, the page says at once that nobody waits for it: no form to fill.
        let reopened = http::open(b.page.local_addr(), &path, Some(&cookie)).await;
        assert_eq!(reopened.status, 503, "{}", reopened.body);
        assert!(
            reopened.body.contains("no longer running"),
            "{}",
            reopened.body
        );
        assert!(!reopened.body.contains("api_key"), "{}", reopened.body);
        // Submitted from the form shown before: not delivered, never "Received".
        let refused = http::submit(b.page.local_addr(), &path, &cookie, &good_body()).await;
        assert_eq!(refused.status, 503, "{}", refused.body);
        assert!(refused.body.contains("Not delivered"), "{}", refused.body);
        assert!(!refused.body.contains("Received"), "{}", refused.body);
        // A completion on B is recorded, and nobody hears of it.
        assert_eq!(
            b.relay
                .complete(&b.registry, &other, Some(&UserId::new("alice"))),
            Ok(Delivery::NoListener)
        );
        assert_eq!(
            b.relay.complete(
                &b.registry,
                pending.elicitation_id(),
                Some(&UserId::new("alice"))
            ),
            Ok(Delivery::NoListener)
        );

        // Nothing outlives its TTL.
        tokio::time::sleep(ttl + Duration::from_millis(700)).await;
        let left: Vec<String> = server
            .keys()
            .into_iter()
            .filter(|key| key.starts_with("elicit:"))
            .collect();
        assert!(left.is_empty(), "left in Redis after the TTL: {left:?}");
        b.page.shutdown();
    });
}

// covers: U5
#[test]
fn a_redis_restart_errors_clearly_and_the_relay_subscribes_again() {
    let Some(mut server) = RedisServer::start() else {
        return;
    };
    run(async {
        let a = instance(&server, RedisConfig::DEFAULT_TTL).await;
        let b = instance(&server, RedisConfig::DEFAULT_TTL).await;
        let elicitor = a.elicitor();
        let (id, path, _wait) = a.ask(&elicitor);
        let shown = http::open(b.page.local_addr(), &path, None).await;
        let cookie = shown.cookie().unwrap();

        server.stop();
        until("A's subscriber sees the drop", || !a.relay.is_listening()).await;
        // Every operation errors, saying so; nothing passes for a success.
        let link = a.page.link::<DeployKey>("m").unwrap();
        let Err(PageError::Store(error)) = link.open("e-2", Some(&UserId::new("alice"))) else {
            panic!("a page opens without Redis")
        };
        let cause = std::error::Error::source(&error).unwrap().to_string();
        assert!(cause.starts_with("redis:"), "{cause}");
        let refused = http::submit(b.page.local_addr(), &path, &cookie, &good_body()).await;
        assert_eq!(refused.status, 503, "{}", refused.body);
        assert!(!refused.body.contains("Received"));
        let Err(RouteError::Refused(failed)) =
            b.relay
                .complete(&b.registry, &id, Some(&UserId::new("alice")))
        else {
            panic!("a completion passes without Redis")
        };
        assert!(
            failed.to_string().contains("could not be read or changed"),
            "{failed}"
        );

        // Redis back on the same port (empty): both relays subscribe again by
        // themselves, and a new round across the instances goes through.
        server.restart();
        until("the relays listen again", || {
            a.relay.is_listening() && b.relay.is_listening()
        })
        .await;
        let (_, path, wait) = a.ask(&elicitor);
        let shown = http::open(b.page.local_addr(), &path, None).await;
        assert_eq!(shown.status, 200, "{}", shown.body);
        let cookie = shown.cookie().unwrap();
        let done = http::submit(b.page.local_addr(), &path, &cookie, &good_body()).await;
        assert_eq!(done.status, 200, "{}", done.body);
        let answer = tokio::time::timeout(Duration::from_secs(10), wait.answer())
            .await
            .unwrap();
        assert!(matches!(answer, Ok(Elicited::Accepted(_))), "{answer:?}");
        a.page.shutdown();
        b.page.shutdown();
    });
}
