//! `mcp_server --http` as a remote server should be (issue 28, findings 5 and 6, and the
//! `Origin` of any port of `localhost`): each attack performed against the built example,
//! a child process on a free loopback port, with short limits given by its flags, and
//! now refused.
//!
//! - 1,500 `initialize` POSTs: sessions capped at `--max-sessions`, the rest refused with
//!   `503` and a JSON-RPC error, the process's resident memory bounded; an idle session
//!   dropped after `--idle-timeout`, which frees its place.
//! - A slow header and a slow body: the connection cut at `--header-timeout`, the body
//!   answered `408` at `--body-timeout`.
//! - A foreign `Origin`, and `http://localhost` on a port `--allow-origin` does not name:
//!   `403`.
//!
//! Every wait is bounded; every child is killed when dropped.
#![cfg(all(feature = "rmcp_3", feature = "url", feature = "axum"))]

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::mcp_http::*;
use crate::protocol_support::rmcp_wire::bounded;

fn initialize_body() -> Vec<u8> {
    json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {
            "protocolVersion": MCP, "capabilities": {},
            "clientInfo": { "name": "elicit-tests", "version": "1" }
        }
    })
    .to_string()
    .into_bytes()
}

async fn initialize(addr: SocketAddr, extra: &[(&str, &str)]) -> Reply {
    let mut headers = vec![
        ("Content-Type", "application/json"),
        ("Accept", "application/json, text/event-stream"),
    ];
    headers.extend_from_slice(extra);
    request(addr, "POST", "/mcp", &headers, &initialize_body()).await
}

/// The resident memory of process `pid`, in KiB (Linux).
fn rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("/proc");
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmRSS")
}

// Finding 5: 1,500 unauthenticated `initialize` made 1,500 sessions (+92 MB), each kept
// five minutes.
#[tokio::test]
async fn a_flood_of_initialize_is_capped_and_memory_stays_bounded() {
    const CAP: usize = 32;
    const FLOOD: usize = 1_500;
    // Sessions live longer than the flood lasts: the cap is all that bounds them.
    let instance = Instance::start(&["--max-sessions", "32", "--idle-timeout", "600"]).await;
    let pid = instance.child.id().expect("the instance runs");
    let first = initialize(instance.addr, &[]).await;
    assert_eq!(first.status, 200, "{first:?}");
    let before = rss_kib(pid);

    let addr = instance.addr;
    let next = Arc::new(std::sync::atomic::AtomicUsize::new(1));
    let mut workers = Vec::new();
    for _ in 0..16 {
        let next = Arc::clone(&next);
        workers.push(tokio::spawn(async move {
            let mut replies = Vec::new();
            while next.fetch_add(1, std::sync::atomic::Ordering::SeqCst) < FLOOD {
                replies.push(initialize(addr, &[]).await);
            }
            replies
        }));
    }
    let mut replies = Vec::new();
    for worker in workers {
        replies.extend(worker.await.expect("a worker"));
    }
    let after = rss_kib(pid);
    assert_eq!(replies.len() + 1, FLOOD);
    let served = replies.iter().filter(|r| r.status == 200).count();
    let refused: Vec<&Reply> = replies.iter().filter(|r| r.status == 503).collect();
    assert_eq!(served + 1, CAP, "sessions beyond the cap were made");
    let other: Vec<&Reply> = replies
        .iter()
        .filter(|r| r.status != 200 && r.status != 503)
        .collect();
    assert!(other.is_empty(), "every other reply is a 503: {other:?}");
    for reply in &refused {
        let error: Value = serde_json::from_str(&reply.body).expect("a JSON-RPC error");
        assert_eq!(error["error"]["code"], -32000, "{reply:?}");
        let message = error["error"]["message"].as_str().unwrap_or_default();
        assert!(message.contains("sessions"), "says why: {reply:?}");
        assert_eq!(reply.header("retry-after"), Some("30"), "{reply:?}");
    }
    let grown = after.saturating_sub(before);
    eprintln!(
        "mcp_server --max-sessions {CAP}: {FLOOD} initialize, {} served, {} refused; \
         resident memory {before} KiB -> {after} KiB (+{grown} KiB)",
        served + 1,
        refused.len()
    );
    // Unbounded, the flood made ~60 KiB per session (+92 MB for 1,500): capped, the
    // growth is that of 32 sessions and the refused requests' transient buffers.
    assert!(grown < 24 * 1024, "+{grown} KiB for a capped flood");
}

// Finding 5: each session was kept five minutes idle.
#[tokio::test]
async fn an_idle_session_is_dropped_and_frees_its_place() {
    let instance = Instance::start(&["--max-sessions", "2", "--idle-timeout", "2"]).await;
    for _ in 0..2 {
        assert_eq!(initialize(instance.addr, &[]).await.status, 200);
    }
    let full = initialize(instance.addr, &[]).await;
    assert_eq!(full.status, 503, "{full:?}");
    tokio::time::sleep(Duration::from_millis(3_500)).await;
    for _ in 0..2 {
        let again = initialize(instance.addr, &[]).await;
        assert_eq!(
            again.status, 200,
            "an idle session's place is free: {again:?}"
        );
    }
    assert_eq!(initialize(instance.addr, &[]).await.status, 503);
}

/// Connects and writes `bytes`, then sends nothing more; returns how long the server
/// took to close the connection, and what it sent before.
async fn stall_after(addr: SocketAddr, bytes: &[u8]) -> (Duration, String) {
    let mut stream = tokio::net::TcpStream::connect(addr)
        .await
        .expect("the instance listens");
    stream.write_all(bytes).await.expect("written");
    let started = Instant::now();
    let mut received = Vec::new();
    bounded("the server closes a stalled connection", async {
        let mut buffer = [0u8; 4096];
        loop {
            match stream.read(&mut buffer).await {
                Ok(0) | Err(_) => break,
                Ok(n) => received.extend_from_slice(&buffer[..n]),
            }
        }
    })
    .await;
    (
        started.elapsed(),
        String::from_utf8_lossy(&received).into_owned(),
    )
}

// Finding 6: a slow header held a connection for 45 s and more.
#[tokio::test]
async fn a_slow_header_is_cut_at_the_header_timeout() {
    let instance = Instance::start(&["--header-timeout", "1"]).await;
    let partial = format!(
        "POST /mcp HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\n",
        instance.addr
    );
    let (held, sent) = stall_after(instance.addr, partial.as_bytes()).await;
    assert!(
        held >= Duration::from_millis(900) && held < Duration::from_secs(4),
        "held {held:?}"
    );
    assert!(!sent.starts_with("HTTP/1.1 200"), "{sent:?}");
    // An idle connection that sends nothing is cut the same way.
    let (held, _) = stall_after(instance.addr, b"").await;
    assert!(held < Duration::from_secs(4), "idle held {held:?}");
    // A prompt request is still served.
    assert_eq!(initialize(instance.addr, &[]).await.status, 200);
}

// Finding 6: a slow body held a connection for 45 s and more.
#[tokio::test]
async fn a_slow_body_is_answered_408_at_the_body_timeout() {
    let instance = Instance::start(&["--body-timeout", "1", "--header-timeout", "10"]).await;
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nContent-Length: 4000\r\n\r\n{{\"jsonrpc\"",
        instance.addr
    );
    let (held, sent) = stall_after(instance.addr, head.as_bytes()).await;
    assert!(
        held >= Duration::from_millis(900) && held < Duration::from_secs(4),
        "held {held:?}"
    );
    assert!(sent.starts_with("HTTP/1.1 408"), "{sent:?}");
    assert!(
        sent.contains("did not arrive within 1 s"),
        "says why: {sent:?}"
    );
    // The page's routes are behind the same bound.
    let page = format!(
        "POST /elicit/abc HTTP/1.1\r\nHost: {}\r\nContent-Type: application/x-www-form-urlencoded\r\n\
         Content-Length: 100\r\n\r\na=",
        instance.addr
    );
    let (held, sent) = stall_after(instance.addr, page.as_bytes()).await;
    assert!(held < Duration::from_secs(4), "held {held:?}");
    assert!(sent.starts_with("HTTP/1.1 408"), "{sent:?}");
    assert_eq!(initialize(instance.addr, &[]).await.status, 200);
}

// The MCP transport's rule against DNS rebinding, exactly: `http://localhost` on any
// port was trusted, and any local program can listen on one.
#[tokio::test]
async fn only_the_origins_named_exactly_are_allowed() {
    let instance = Instance::start(&["--allow-origin", "http://localhost:5173"]).await;
    let own = format!("http://{}", instance.addr);
    let own_port_on_localhost = format!("http://localhost:{}", instance.addr.port());
    let other_port = format!("http://localhost:{}", free_port());
    for (origin, expected) in [
        (own.as_str(), 200),
        ("http://localhost:5173", 200),
        ("http://LOCALHOST:5173", 200),
        ("http://localhost:5174", 403),
        (other_port.as_str(), 403),
        (own_port_on_localhost.as_str(), 403),
        ("http://127.0.0.1:5173", 403),
        ("https://localhost:5173", 403),
        ("http://localhost", 403),
        ("https://evil.example", 403),
        ("null", 403),
    ] {
        let reply = initialize(instance.addr, &[("Origin", origin)]).await;
        assert_eq!(reply.status, expected, "{origin}: {reply:?}");
        if expected == 403 {
            assert!(reply.body.contains("Origin"), "names the header: {reply:?}");
        }
    }
    // Without `--allow-origin`, no port of localhost but the server's own origin.
    let strict = Instance::start(&[]).await;
    let reply = initialize(strict.addr, &[("Origin", "http://localhost:5173")]).await;
    assert_eq!(reply.status, 403, "{reply:?}");

    // An `--allow-origin` that is no exact origin is refused at start.
    for bad in [
        "http://localhost:*",
        "localhost:5173",
        "http://a.example/path",
    ] {
        let output = std::process::Command::new(example())
            .args(["--http", "127.0.0.1:0", "--allow-origin", bad])
            .stdin(std::process::Stdio::null())
            .output()
            .expect("the example runs");
        assert!(!output.status.success(), "{bad} was accepted");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains("--allow-origin"), "{bad}: {stderr}");
    }
}
