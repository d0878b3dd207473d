//! Load on the secure page across instances (features `axum`, `redis` and `rmcp_3`):
//! many URL-mode elicitations pending at once, each page submitted on another instance
//! than the one that waits, through one real `redis-server` that this program starts on
//! 127.0.0.1 and stops.
//!
//! ```text
//! cargo bench --bench relay_load --features axum,redis,rmcp_3 [-- --count N --rate PER_SECOND]
//! ```
//!
//! The path measured is the one the `save_api_key` tool of `examples/mcp_server.rs`
//! takes: `PeerElicitor::ask_secret` with its form (`examples/common/api_key.rs`, the
//! example's own `ApiKey` and message, included here), on a page for the example's
//! single local user, the example's key prefixes and limits. Each elicitation is its
//! own rmcp connection over in-memory pipes, whose client accepts the URL-mode request;
//! the waiting side is the `ask_secret` call itself, guard and all: it records the
//! consent, waits for the page, completes in the registry, sends
//! `notifications/elicitation/complete` and drops its guard.
//!
//! Three set-ups, measured in one run: one instance on `MemoryStore` (no Redis at all:
//! the floor), one instance on `RedisStore`, and three instances on `RedisStore` routed
//! by `RedisRelay`, where the page of an elicitation that instance *i* waits for is
//! opened and submitted on instance *i + 1*. For each elicitation the clock starts when
//! the browser's `POST` is about to be written and stops when `ask_secret` returns the
//! typed answer: the completion recorded in the registry and
//! `notifications/elicitation/complete` written on its client's connection. Every
//! answer is checked: the right value, for the right elicitation, on the right
//! instance, once. Nothing lost, nothing mixed up, or the program fails.
//!
//! Every set-up runs twice over all its elicitations pending at once: submitted as
//! fast as 64 browsers at a time can (the throughput), then paced at `--rate` per
//! second (default 1000: the latency at that load). Printed: completions per second
//! (from the first `POST` to the last completion), p50 and p99 of the latency above,
//! the Redis commands per completion (`INFO commandstats` from before the first `POST`
//! until every `ask_secret` returned, as sent by the instances: the compare-and-swap
//! script's own `GET` and `SET` inside Redis are not counted again), and the memory of
//! one pending elicitation with its page (`MEMORY USAGE` of its keys).
//!
//! This is a benchmark, not a test: nothing here asserts a time. `benches/PERF.md`
//! quotes its figures.
use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use elicit::agent::{
    AskError, MemoryStore, RedisConfig, RedisRelay, RedisStore, RegistryLimits, RelayConfig,
    RelayKey, Store, UrlEntry, UrlPolicy, UrlRegistry, UserId,
};
use elicit::axum::{PageTicket, SecurePage};
use elicit::rmcp::PeerElicitor;
use elicit::Elicited;
use rmcp::model::{
    ClientCapabilities, ClientConfig, ElicitRequestParams, ElicitResult, ElicitationAction,
    Implementation, InitializeRequestParams,
};
use rmcp::service::{RequestContext, RoleClient, RoleServer, RunningService};
use rmcp::{ClientHandler, ErrorData, ServerHandler, ServiceExt};
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

#[path = "../elicit-core/tests/security/redis_server.rs"]
mod redis_server;
use redis_server::RedisServer;

#[path = "../examples/common/api_key.rs"]
mod api_key;
use api_key::{ApiKey, API_KEY_MESSAGE};

/// The example's one user (`LOCAL_USER` in examples/mcp_server.rs): its page takes
/// everyone as this user, and every connection's elicitor names them.
const LOCAL_USER: &str = "local-user";

/// The example's key prefixes in Redis (`PREFIXES` and `CHANNEL_PREFIX` there).
const URL_PREFIX: &str = "elicit-mcp-server:url:";
const PAGE_PREFIX: &str = "elicit-mcp-server:page:";
const CHANNEL_PREFIX: &str = "elicit-mcp-server:";

/// How long any one exchange may take before the run is called broken.
const WAIT: Duration = Duration::from_secs(60);

/// One instance of the agent: its registry, its page, the page's ticket store (read
/// here to see when a page takes submissions), and the relay when it shares Redis with
/// others.
struct Instance {
    registry: UrlRegistry,
    page: SecurePage,
    tickets: Arc<dyn Store<PageTicket>>,
    relay: Option<RedisRelay>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Setup {
    Memory,
    Redis(usize),
}

impl Setup {
    fn name(self) -> String {
        match self {
            Setup::Memory => "1 instance, `MemoryStore`".to_owned(),
            Setup::Redis(1) => "1 instance, `RedisStore` + `RedisRelay`".to_owned(),
            Setup::Redis(n) => format!("{n} instances, `RedisStore` + `RedisRelay`"),
        }
    }

    fn instances(self) -> usize {
        match self {
            Setup::Memory => 1,
            Setup::Redis(n) => n,
        }
    }
}

async fn instance(setup: Setup, server: &RedisServer) -> Instance {
    // The example's limits: 4 waits per session (`--max-waits`), the default number
    // of finished elicitations remembered.
    let limits = RegistryLimits {
        max_outstanding_per_connection: 4,
        ..RegistryLimits::DEFAULT
    };
    // The example's page: its single local user (it has no login), default TTL.
    let builder = SecurePage::builder().unauthenticated_single_user(UserId::new(LOCAL_USER));
    match setup {
        Setup::Memory => {
            let registry = UrlRegistry::with_limits(limits);
            let tickets: MemoryStore<PageTicket> = MemoryStore::new();
            let page = builder
                .store(tickets.clone())
                .bind(([127, 0, 0, 1], 0))
                .await
                .expect("the page binds");
            Instance {
                registry,
                page,
                tickets: Arc::new(tickets),
                relay: None,
            }
        }
        Setup::Redis(_) => {
            let relay = RedisRelay::connect(
                server.url().as_str(),
                RelayKey::from_bytes([0x5e; 32]),
                RelayConfig::new().prefix(CHANNEL_PREFIX),
            )
            .expect("the relay connects");
            let urls: RedisStore<UrlEntry> =
                RedisStore::connect(server.url().as_str(), RedisConfig::new().prefix(URL_PREFIX))
                    .expect("the store connects");
            let tickets = urls.with_prefix::<PageTicket>(PAGE_PREFIX);
            let registry = UrlRegistry::with_store(urls, limits).routed_by(&relay);
            let page = builder
                .store(tickets.clone())
                .relay(&relay)
                .bind(([127, 0, 0, 1], 0))
                .await
                .expect("the page binds");
            Instance {
                registry,
                page,
                tickets: Arc::new(tickets),
                relay: Some(relay),
            }
        }
    }
}

/// The server side of one client connection: nothing but the peer that
/// `PeerElicitor` asks through.
#[derive(Clone, Default)]
struct Server;

impl ServerHandler for Server {}

/// The client of one connection: declares URL mode, accepts the URL-mode request (the
/// user's consent to open the page) and hands the URL and `elicitationId` over.
#[derive(Clone)]
struct Client {
    asked: mpsc::UnboundedSender<(String, String)>,
}

impl ClientHandler for Client {
    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        let ElicitRequestParams::UrlElicitationParams {
            url,
            elicitation_id,
            ..
        } = request
        else {
            return Err(ErrorData::invalid_params("only URL mode here", None));
        };
        let _ = self.asked.send((url, elicitation_id));
        Ok(ElicitResult::new(ElicitationAction::Accept))
    }

    fn get_info(&self) -> ClientConfig {
        let capabilities: ClientCapabilities =
            serde_json::from_value(json!({ "elicitation": { "url": {} } }))
                .expect("a client capability");
        InitializeRequestParams::new(capabilities, Implementation::new("relay-load", "1"))
    }
}

/// What `ask_secret` ended with, and when.
type Asked = (Result<Elicited<ApiKey>, AskError>, Instant);

/// One elicitation ready for its submission: `ask_secret` running on the waiting
/// instance `owner`, its page taking submissions, opened by the browser on instance
/// `shown`.
struct Pending {
    owner: usize,
    shown: SocketAddr,
    id: String,
    path: String,
    cookie: String,
    secret: String,
    asking: JoinHandle<Asked>,
    /// Both ends of the connection, kept open until the ask returned.
    _connection: (
        RunningService<RoleServer, Server>,
        RunningService<RoleClient, Client>,
    ),
}

async fn prepare(instances: &[Instance], n: usize) -> Vec<Pending> {
    let mut pending = Vec::with_capacity(n);
    for i in 0..n {
        let owner = i % instances.len();
        let at = &instances[owner];
        let shown = instances[(i + 1) % instances.len()].page.local_addr();
        // One client connection per elicitation, as the example's sessions.
        let (server_io, client_io) = tokio::io::duplex(1 << 16);
        let (asked, mut urls) = mpsc::unbounded_channel();
        let server = tokio::spawn(Server.serve(server_io));
        let client = Client { asked }
            .serve(client_io)
            .await
            .expect("the client initializes");
        let server = server
            .await
            .expect("the server task")
            .expect("the server initializes");
        // The example's elicitor: its user, its registry; the bench's page is on
        // loopback `http`.
        let connection = PeerElicitor::new(server.peer())
            .with_user(UserId::new(LOCAL_USER))
            .with_url_policy(UrlPolicy::new().allow_loopback_http(true))
            .with_registry(&at.registry);
        let page = at.page.clone();
        let asking = tokio::spawn(async move {
            let answer = connection
                .ask_secret::<ApiKey>(&page, API_KEY_MESSAGE)
                .await;
            (answer, Instant::now())
        });
        let (url, id) = tokio::time::timeout(WAIT, urls.recv())
            .await
            .expect("the request reaches the client in time")
            .expect("the client saw the request");
        let path = url
            .strip_prefix(at.page.origin())
            .expect("a link of the page")
            .to_owned();
        let token = path.rsplit('/').next().expect("a token").to_owned();
        // The client accepted: once `ask_secret` recorded the consent, the page takes
        // the submission (before that it would hold the `POST` and read the ticket
        // again, which is not what is measured here).
        let key = PageTicket::store_key(&token);
        let deadline = Instant::now() + WAIT;
        loop {
            let ticket = at.tickets.get(&key).expect("the store answers");
            if ticket.is_some_and(|ticket| !ticket.awaits_consent()) {
                break;
            }
            assert!(Instant::now() < deadline, "the consent is recorded in time");
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
        let opened = request_http(shown, "GET", &path, &[("Sec-Fetch-Site", "none")], "").await;
        assert_eq!(opened.0, 200, "the page opens on instance {}", i + 1);
        let cookie = opened.1.expect("the page sets its cookie");
        pending.push(Pending {
            owner,
            shown,
            id,
            path,
            cookie,
            secret: format!("sk-load-{i:06}-{}", "x".repeat(8)),
            asking,
            _connection: (server, client),
        });
    }
    pending
}

/// A minimal HTTP/1.1 exchange: the status and the `name=value` of a `Set-Cookie`.
async fn request_http(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> (u16, Option<String>, String) {
    let mut head = format!("{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n");
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str(&format!("Content-Length: {}\r\n\r\n{body}", body.len()));
    let exchange = async {
        let mut stream = TcpStream::connect(addr).await.expect("the page listens");
        stream.write_all(head.as_bytes()).await.expect("written");
        let mut raw = Vec::new();
        let _ = stream.read_to_end(&mut raw).await;
        raw
    };
    let raw = tokio::time::timeout(WAIT, exchange)
        .await
        .expect("the page answers in time");
    let raw = String::from_utf8_lossy(&raw).into_owned();
    let (head, body) = raw.split_once("\r\n\r\n").unwrap_or((&raw, ""));
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("not an HTTP reply: {raw:?}"));
    let cookie = head
        .split("\r\n")
        .filter_map(|line| line.split_once(':'))
        .find(|(name, _)| name.trim().eq_ignore_ascii_case("set-cookie"))
        .and_then(|(_, value)| value.trim().split(';').next().map(str::to_owned));
    (status, cookie, body.to_owned())
}

/// How many browsers submit at the same time in the runs without a pace: more than
/// the page's listen backlog takes at once would measure the kernel's SYN retries
/// (a second each), not the page.
const BROWSERS: usize = 64;

/// Submits every page, as fast as [`BROWSERS`] browsers can (`pace` none), or the
/// i-th at i × `pace` after the start; returns each latency and the time from the
/// first submission to the last completion.
async fn submit_all(pending: Vec<Pending>, pace: Option<Duration>) -> (Vec<Duration>, Duration) {
    let browsers = Arc::new(tokio::sync::Semaphore::new(BROWSERS));
    let start = Instant::now();
    let tasks: Vec<_> = pending
        .into_iter()
        .enumerate()
        .map(|(i, p)| {
            let browsers = Arc::clone(&browsers);
            let Pending {
                owner,
                shown,
                id,
                path,
                cookie,
                secret,
                asking,
                _connection: connection,
            } = p;
            tokio::spawn(async move {
                // Paced, each submission at its time; otherwise one of the browsers.
                let _browser = match pace {
                    Some(pace) => {
                        tokio::time::sleep_until((start + pace * i as u32).into()).await;
                        None
                    }
                    None => Some(browsers.acquire_owned().await.expect("never closed")),
                };
                let origin = format!("http://{}", shown);
                let body = format!("f.api_key={}&elicit-action=accept", secret);
                let headers = [
                    ("Origin", origin.as_str()),
                    ("Sec-Fetch-Site", "same-origin"),
                    ("Content-Type", "application/x-www-form-urlencoded"),
                    ("Cookie", cookie.as_str()),
                ];
                let began = Instant::now();
                let post = request_http(shown, "POST", &path, &headers, &body);
                let waiting = async {
                    let (answer, done) = tokio::time::timeout(WAIT, asking)
                        .await
                        .expect("ask_secret returns in time")
                        .expect("the ask did not panic");
                    let Ok(Elicited::Accepted(key)) = answer else {
                        panic!(
                            "elicitation {} on instance {}: not accepted ({:?})",
                            id,
                            owner,
                            answer.err()
                        );
                    };
                    // Not mixed up: this elicitation's own secret.
                    assert_eq!(key.api_key, secret, "answer of {}", id);
                    done - began
                };
                let ((status, _, page), latency) = tokio::join!(post, waiting);
                assert_eq!(status, 200, "{page}");
                assert!(page.contains("Received"), "{page}");
                drop(connection);
                latency
            })
        })
        .collect();
    let mut latencies = Vec::with_capacity(tasks.len());
    for task in tasks {
        latencies.push(task.await.expect("no elicitation task panicked"));
    }
    (latencies, start.elapsed())
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let rank = ((sorted.len() as f64 * p).ceil() as usize).clamp(1, sorted.len());
    sorted[rank - 1]
}

/// The commands the instances sent between two counts: every command Redis ran, less
/// the `GET` and `SET` that each compare-and-swap script runs inside Redis and that
/// `INFO commandstats` counts under their own names (the instances sent one `EVALSHA`).
fn sent_between(before: &BTreeMap<String, u64>, after: &BTreeMap<String, u64>) -> u64 {
    let ran =
        |name: &str| after.get(name).copied().unwrap_or(0) - before.get(name).copied().unwrap_or(0);
    let all: u64 = after.keys().map(|name| ran(name)).sum();
    all - 2 * ran("evalsha")
}

struct Report {
    setup: Setup,
    pace: Option<Duration>,
    count: usize,
    per_second: f64,
    p50: Duration,
    p99: Duration,
    commands: Option<f64>,
    memory: Option<u64>,
    /// Each key of one pending elicitation: its name, `MEMORY USAGE`, `STRLEN`.
    keys: Option<[(String, u64, u64); 2]>,
}

async fn measure(
    setup: Setup,
    server: &RedisServer,
    count: usize,
    pace: Option<Duration>,
) -> Report {
    let mut instances = Vec::new();
    for _ in 0..setup.instances() {
        instances.push(instance(setup, server).await);
    }
    let pending = prepare(&instances, count).await;
    // One pending elicitation's keys: its registry entry and its page's ticket, each
    // with `MEMORY USAGE` and the length of its value (`STRLEN`).
    let keys = matches!(setup, Setup::Redis(_)).then(|| {
        let first = &pending[0];
        let token = first.path.rsplit('/').next().expect("a token");
        [
            format!("{URL_PREFIX}{}", first.id),
            format!("{PAGE_PREFIX}{}", PageTicket::store_key(token)),
        ]
        .map(|key| {
            let number = |reply: String| {
                reply
                    .trim()
                    .parse::<u64>()
                    .unwrap_or_else(|_| panic!("{key} is in Redis"))
            };
            let bytes = number(server.cli(&["MEMORY", "USAGE", &key]));
            let length = number(server.cli(&["STRLEN", &key]));
            (key, bytes, length)
        })
    });
    let memory = keys
        .as_ref()
        .map(|keys| keys.iter().map(|(_, bytes, _)| bytes).sum());
    let before = server.command_counts();
    let (mut latencies, elapsed) = submit_all(pending, pace).await;
    let after = server.command_counts();
    assert_eq!(latencies.len(), count, "nothing lost");
    for at in &instances {
        assert_eq!(at.page.waiting(), 0, "every wait was answered");
        at.page.shutdown();
        if let Some(relay) = &at.relay {
            relay.close();
        }
    }
    latencies.sort();
    Report {
        setup,
        pace,
        count,
        per_second: count as f64 / elapsed.as_secs_f64(),
        p50: percentile(&latencies, 0.50),
        p99: percentile(&latencies, 0.99),
        commands: matches!(setup, Setup::Redis(_))
            .then(|| sent_between(&before, &after) as f64 / count as f64),
        memory,
        keys,
    }
}

fn main() {
    let mut count = 1000;
    // The paced runs: one submission every `1 / rate` seconds.
    let mut rate = 1000u32;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--count" => {
                count = args
                    .next()
                    .and_then(|n| n.parse().ok())
                    .expect("--count takes a number")
            }
            "--rate" => {
                rate = args
                    .next()
                    .and_then(|n| n.parse().ok())
                    .filter(|&n| n > 0)
                    .expect("--rate takes a number of submissions per second above 0")
            }
            // What `cargo bench` passes to every bench binary.
            "--bench" => {}
            other => panic!("unknown argument {other:?} (use --count N, --rate PER_SECOND)"),
        }
    }
    let Some(server) = RedisServer::start() else {
        return;
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime");
    let mut reports = Vec::new();
    let paced = Duration::from_secs(1) / rate;
    for pace in [None, Some(paced)] {
        for setup in [Setup::Memory, Setup::Redis(1), Setup::Redis(3)] {
            reports.push(runtime.block_on(measure(setup, &server, count, pace)));
            // A run leaves nothing that the next one would count.
            server.cli(&["FLUSHALL"]);
        }
    }
    println!("| set-up | submissions | elicitations | completions/s | p50 | p99 | Redis commands / completion | Redis bytes / pending |");
    println!("| --- | --- | --- | --- | --- | --- | --- | --- |");
    for r in &reports {
        println!(
            "| {} | {} | {} | {:.0} | {:.2} ms | {:.2} ms | {} | {} |",
            r.setup.name(),
            r.pace
                .map_or(format!("{BROWSERS} browsers at once"), |_| format!(
                    "{rate}/s"
                )),
            r.count,
            r.per_second,
            r.p50.as_secs_f64() * 1e3,
            r.p99.as_secs_f64() * 1e3,
            r.commands.map_or("–".to_owned(), |c| format!("{c:.2}")),
            r.memory.map_or("–".to_owned(), |m| m.to_string()),
        );
    }
    if let Some(keys) = reports.iter().find_map(|r| r.keys.as_ref()) {
        println!();
        for (key, bytes, length) in keys {
            println!("one pending: {key}: {bytes} bytes (MEMORY USAGE), value {length} bytes");
        }
    }
}
