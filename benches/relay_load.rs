//! Load on the secure page across instances (features `axum` and `redis`): many
//! URL-mode elicitations pending at once, each page submitted on another instance
//! than the one that waits, through one real `redis-server` that this program
//! starts on 127.0.0.1 and stops.
//!
//! ```text
//! cargo bench --bench relay_load --features axum,redis [-- --count N --rate PER_SECOND]
//! ```
//!
//! Three set-ups, measured in one run: one instance on `MemoryStore` (no Redis at all:
//! the floor), one instance on `RedisStore`, and three instances on `RedisStore` routed
//! by `RedisRelay`, where the page of an elicitation that instance *i* waits for is
//! opened and submitted on instance *i + 1*. For each elicitation the clock starts when
//! the browser's `POST` is about to be written and stops when the waiting instance has
//! its typed answer and has recorded the completion in its registry, which is the
//! moment it sends `notifications/elicitation/complete` on its client's connection
//! (built by `Elicitor::complete`; sending it is the SDK's write). Every answer is
//! checked: the right value, for the right elicitation, on the right instance, once.
//! Nothing lost, nothing mixed up, or the program fails.
//!
//! Every set-up runs twice over all its elicitations pending at once: submitted as
//! fast as 64 browsers at a time can (the throughput), then paced at `--rate` per
//! second (default 1000: the latency at that load). Printed: completions per second
//! (from the first `POST` to the last completion), p50 and p99 of the latency above,
//! the Redis commands per completion (`INFO commandstats`, as sent by the instances: the compare-and-swap
//! script's own `GET` and `SET` inside Redis are not counted again), and the memory of
//! one pending elicitation with its page (`MEMORY USAGE` of its keys).
//!
//! This is a benchmark, not a test: nothing here asserts a time. `benches/PERF.md`
//! quotes its figures.
use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use elicit::agent::{
    ConnectionId, Elicitor, RedisConfig, RedisRelay, RedisStore, RegistryLimits, RelayConfig,
    RelayKey, UrlEntry, UrlOutcome, UrlPolicy, UrlRegistry,
};
use elicit::axum::{PageTicket, PageWait, SecurePage};
use elicit::{Elicit, ElicitationCapabilities, ElicitationResponse, Elicited, Scope};
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

#[path = "../elicit-core/tests/security/redis_server.rs"]
mod redis_server;
use redis_server::RedisServer;

/// What the page asks for.
#[derive(Elicit, Debug)]
#[elicit(url_mode)]
struct ApiKey {
    /// The API key
    #[elicit(min_length = 8)]
    api_key: String,
}

/// How long any one exchange may take before the run is called broken.
const WAIT: Duration = Duration::from_secs(60);

/// One instance of the agent: its registry and its page, and the relay when it shares
/// Redis with others.
struct Instance {
    registry: UrlRegistry,
    page: SecurePage,
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
    // Enough room for every elicitation of the run on one connection each, and for
    // the finished ones.
    let limits = RegistryLimits {
        max_outstanding_per_connection: 4,
        max_finished: 1 << 16,
    };
    match setup {
        Setup::Memory => {
            let registry = UrlRegistry::with_limits(limits);
            let page = SecurePage::builder()
                .remember_used(1 << 16)
                .bind(([127, 0, 0, 1], 0))
                .await
                .expect("the page binds");
            Instance {
                registry,
                page,
                relay: None,
            }
        }
        Setup::Redis(_) => {
            let relay = RedisRelay::connect(
                server.url().as_str(),
                RelayKey::from_bytes([0x5e; 32]),
                RelayConfig::new(),
            )
            .expect("the relay connects");
            let urls: RedisStore<UrlEntry> = RedisStore::connect(
                server.url().as_str(),
                RedisConfig::new().prefix("elicit:url:"),
            )
            .expect("the store connects");
            let tickets = urls.with_prefix::<PageTicket>("elicit:page:");
            let registry = UrlRegistry::with_store(urls, limits).routed_by(&relay);
            let page = SecurePage::builder()
                .store(tickets)
                .relay(&relay)
                .bind(([127, 0, 0, 1], 0))
                .await
                .expect("the page binds");
            Instance {
                registry,
                page,
                relay: Some(relay),
            }
        }
    }
}

/// One elicitation ready for its submission: on the waiting instance `owner`, its page
/// opened by the browser on instance `shown`.
struct Pending {
    owner: usize,
    shown: SocketAddr,
    elicitor: Elicitor,
    id: String,
    path: String,
    cookie: String,
    secret: String,
    wait: PageWait<ApiKey>,
}

async fn prepare(instances: &[Instance], n: usize) -> Vec<Pending> {
    let caps = ElicitationCapabilities::from_json(Some(&json!({ "url": {} })));
    let mut pending = Vec::with_capacity(n);
    for i in 0..n {
        let owner = i % instances.len();
        let at = &instances[owner];
        let shown = instances[(i + 1) % instances.len()].page.local_addr();
        // One client connection per elicitation. No user: the bench's pages
        // authenticate nobody, and a page opens only for an elicitation whose user it
        // can verify (S6).
        let elicitor = Elicitor::new(caps.clone(), ConnectionId::new())
            .with_url_policy(UrlPolicy::new().allow_loopback_http(true))
            .with_registry(&at.registry);
        let link = at
            .page
            .link::<ApiKey>("Paste your API key")
            .expect("a link");
        let path = link
            .url()
            .strip_prefix(at.page.origin())
            .expect("a link of the page")
            .to_owned();
        let request = elicitor
            .url(Scope::session("load"), "Connect your account", link.url())
            .expect("the elicitation is made");
        let id = request.elicitation_id().to_owned();
        let wait = link.open(&id, elicitor.user()).expect("the link opens");
        let consent = elicitor
            .record_response(&id, &ElicitationResponse::accept_without_content())
            .expect("the consent is recorded");
        assert_eq!(consent, UrlOutcome::Consented);
        let opened = request_http(shown, "GET", &path, &[("Sec-Fetch-Site", "none")], "").await;
        assert_eq!(opened.0, 200, "the page opens on instance {}", i + 1);
        let cookie = opened.1.expect("the page sets its cookie");
        pending.push(Pending {
            owner,
            shown,
            elicitor,
            id,
            path,
            cookie,
            secret: format!("sk-load-{i:06}-{}", "x".repeat(8)),
            wait,
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
    let browsers = std::sync::Arc::new(tokio::sync::Semaphore::new(BROWSERS));
    let start = Instant::now();
    let tasks: Vec<_> = pending
        .into_iter()
        .enumerate()
        .map(|(i, p)| {
            let browsers = std::sync::Arc::clone(&browsers);
            tokio::spawn(async move {
                // Paced, each submission at its time; otherwise one of the browsers.
                let _browser = match pace {
                    Some(pace) => {
                        tokio::time::sleep_until((start + pace * i as u32).into()).await;
                        None
                    }
                    None => Some(browsers.acquire_owned().await.expect("never closed")),
                };
                let origin = format!("http://{}", p.shown);
                let body = format!("f.api_key={}&elicit-action=accept", p.secret);
                let headers = [
                    ("Origin", origin.as_str()),
                    ("Sec-Fetch-Site", "same-origin"),
                    ("Content-Type", "application/x-www-form-urlencoded"),
                    ("Cookie", p.cookie.as_str()),
                ];
                let began = Instant::now();
                let post = request_http(p.shown, "POST", &p.path, &headers, &body);
                let waiting = async {
                    let answer = tokio::time::timeout(WAIT, p.wait.answer())
                        .await
                        .expect("the answer reaches the waiting instance in time");
                    let Ok(Elicited::Accepted(submitted)) = answer else {
                        panic!("elicitation {} on instance {}: {answer:?}", p.id, p.owner);
                    };
                    // Not mixed up: this elicitation's own secret.
                    assert_eq!(submitted.value().api_key, p.secret, "answer of {}", p.id);
                    let completion = p
                        .elicitor
                        .complete(&p.id, submitted.user())
                        .expect("completed once, on the instance that holds it");
                    assert_eq!(completion.elicitation_id(), p.id);
                    began.elapsed()
                };
                let ((status, _, page), latency) = tokio::join!(post, waiting);
                assert_eq!(status, 200, "{page}");
                assert!(page.contains("Received"), "{page}");
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
    let memory = matches!(setup, Setup::Redis(_)).then(|| {
        // One pending elicitation's keys: its registry entry and its page's ticket.
        let first = &pending[0];
        let token = first.path.rsplit('/').next().expect("a token");
        [
            format!("elicit:url:{}", first.id),
            format!("elicit:page:{}", PageTicket::store_key(token)),
        ]
        .iter()
        .map(|key| {
            server
                .cli(&["MEMORY", "USAGE", key])
                .trim()
                .parse::<u64>()
                .unwrap_or_else(|_| panic!("{key} is in Redis"))
        })
        .sum()
    });
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
}
