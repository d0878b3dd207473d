//! Attacks on `elicit::agent::RedisRelay` by whoever can read or write the agent's
//! Redis without the deployment's `RelayKey` (features `axum` and `redis`), each
//! against a real `redis-server` (or a three-primary Redis Cluster) that the test
//! starts on 127.0.0.1 and stops, with instances of their own relay, stores and page:
//!
//! - finding 1: a Redis writer rewrites a ticket's route (to its own key) and form
//!   text: the page refuses the ticket, nothing is sealed for the attacker;
//! - finding 2: a Redis reader publishes a forged answer sealed for the waiting
//!   instance: dropped, and the person's real submission later works;
//! - "Received" only on the waiting instance's acknowledgement: a ticket whose
//!   consent mark a writer cleared is not taken, and the page says not delivered;
//! - a genuine routed answer a Redis reader recorded and publishes again: never taken
//!   a second time, nor late (after the waiting instance refused it once);
//! - finding 11: a `SCAN` of Redis during a live link finds the token nowhere;
//! - Redis Cluster: delivered, acknowledged and completed once across nodes;
//! - a subscriber connection that silently stops answering is replaced.
#![cfg(all(feature = "axum", feature = "redis"))]

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crypto_box::aead::rand_core::{CryptoRng, RngCore};
use crypto_box::PublicKey;
use elicit::agent::{
    CompletionError, ConnectionId, Delivery, Elicitor, RedisConfig, RedisRelay, RedisStore,
    RegistryLimits, RelayConfig, RelayKey, UrlEntry, UrlOutcome, UrlPolicy, UrlRegistry, UserId,
};
use elicit::axum::{PageTicket, SecurePage};
use elicit::{ElicitationCapabilities, ElicitationResponse, Elicited, Scope};
use serde_json::{json, Value};

use super::redis_route::redis_server::{RedisCluster, RedisServer};
use super::redis_route::{
    contains, every_value, good_body, instance, relay_key, until, Listener, SECRET,
};
use super::url_page::{http, run, DeployKey};

/// The ticket's JSON as stored (after the store's 32-character write token).
fn stored_ticket(server: &RedisServer, token: &str) -> (String, String, Value) {
    let key = format!("elicit:page:{}", PageTicket::store_key(token));
    let raw = server.cli(&["GET", &key]);
    let raw = raw.trim_end_matches('\n');
    let (write_token, json) = raw.split_at(32);
    (
        key,
        write_token.to_owned(),
        serde_json::from_str(json).unwrap(),
    )
}

/// What a Redis writer does: rewrites the stored ticket, keeping its TTL.
fn rewrite_ticket(server: &RedisServer, token: &str, change: impl FnOnce(&mut Value)) {
    let (key, write_token, mut ticket) = stored_ticket(server, token);
    change(&mut ticket);
    let value = format!("{write_token}{ticket}");
    assert_eq!(server.cli(&["SET", &key, &value, "KEEPTTL"]).trim(), "OK");
}

/// The attacker's randomness for the ephemeral key of a sealed box: any will do.
struct AttackerRandom(u64);

impl RngCore for AttackerRandom {
    fn next_u32(&mut self) -> u32 {
        self.next_u64() as u32
    }
    fn next_u64(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0
    }
    fn fill_bytes(&mut self, dest: &mut [u8]) {
        for byte in dest {
            *byte = self.next_u64().to_le_bytes()[7];
        }
    }
    fn try_fill_bytes(
        &mut self,
        dest: &mut [u8],
    ) -> Result<(), crypto_box::aead::rand_core::Error> {
        self.fill_bytes(dest);
        Ok(())
    }
}

impl CryptoRng for AttackerRandom {}

fn unhex(text: &str) -> [u8; 32] {
    let bytes: Vec<u8> = (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&text[i..i + 2], 16).unwrap())
        .collect();
    bytes.try_into().unwrap()
}

/// `PUBLISH channel payload` as a Redis client would, with the payload's raw bytes.
fn publish_raw(server: &RedisServer, channel: &str, payload: &[u8]) -> i64 {
    let port: u16 = server
        .url()
        .trim_end_matches('/')
        .rsplit(':')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    let mut command = Vec::new();
    for part in [b"PUBLISH".as_slice(), channel.as_bytes(), payload] {
        command.extend_from_slice(format!("${}\r\n", part.len()).as_bytes());
        command.extend_from_slice(part);
        command.extend_from_slice(b"\r\n");
    }
    let mut request = b"*3\r\n".to_vec();
    request.extend_from_slice(&command);
    stream.write_all(&request).unwrap();
    let mut reply = [0u8; 64];
    let n = stream.read(&mut reply).unwrap();
    let reply = std::str::from_utf8(&reply[..n]).unwrap();
    reply
        .trim()
        .trim_start_matches(':')
        .parse()
        .unwrap_or_else(|_| panic!("PUBLISH answered {reply}"))
}

// covers: S1, S6, U3
#[test]
fn a_ticket_whose_route_and_form_a_redis_writer_rewrote_is_refused() {
    let Some(server) = RedisServer::start() else {
        return;
    };
    run(async {
        let a = instance(&server, RedisConfig::DEFAULT_TTL).await;
        let b = instance(&server, RedisConfig::DEFAULT_TTL).await;
        // The attacker's own relay, under a key of its own: what is sealed for it, it
        // can open. A listener hears everything published under the prefix.
        let attacker = RedisRelay::connect(
            server.url().as_str(),
            RelayKey::from_bytes([0xa7; 32]),
            RelayConfig::new(),
        )
        .unwrap();
        let listener = Listener::start(&server);
        let elicitor = a.elicitor();
        let (_, path, wait) = a.ask(&elicitor);
        let token = path.trim_start_matches("/elicit/").to_owned();

        // Untouched, B shows the agent's own form.
        let shown = http::open(b.page.local_addr(), &path, None).await;
        assert_eq!(shown.status, 200, "{}", shown.body);
        let cookie = shown.cookie().unwrap();

        rewrite_ticket(&server, &token, |ticket| {
            ticket["r"] = json!(attacker.instance_id());
            ticket["f"]["m"] = json!("Security check: paste your API key again here");
        });
        let (_, _, rewritten) = stored_ticket(&server, &token);
        assert_eq!(rewritten["r"], json!(attacker.instance_id()));

        // On every instance: refused, the attacker's text never shown.
        for addr in [b.page.local_addr(), a.page.local_addr()] {
            let opened = http::open(addr, &path, Some(&cookie)).await;
            assert_eq!(opened.status, 503, "{}", opened.body);
            assert!(!opened.body.contains("Security check"), "{}", opened.body);
            assert!(opened.body.contains("changed by"), "{}", opened.body);
        }
        // B's submission starts from the copy it kept when it showed the untouched
        // ticket; the swap to used compares that copy with what Redis holds, fails,
        // and the ticket read again is refused: nothing is sealed for anyone.
        let refused = http::submit(b.page.local_addr(), &path, &cookie, &good_body()).await;
        assert_eq!(refused.status, 503, "{}", refused.body);
        assert!(!refused.body.contains("Received"), "{}", refused.body);

        // Only the form's text rewritten (the route left alone): refused too.
        rewrite_ticket(&server, &token, |ticket| {
            ticket["r"] = json!(a.relay.instance_id());
        });
        let opened = http::open(b.page.local_addr(), &path, Some(&cookie)).await;
        assert_eq!(opened.status, 503, "{}", opened.body);

        // Nothing was published at all: nothing sealed for the attacker, nor for A.
        tokio::time::sleep(Duration::from_millis(300)).await;
        let heard = listener.heard();
        assert!(
            !contains(&heard, attacker.channel().as_bytes()),
            "something was published to the attacker"
        );
        assert!(!contains(&heard, a.relay.channel().as_bytes()));
        // A's task got nothing.
        assert_eq!(a.page.waiting(), 1);
        drop(wait);
        attacker.close();
        a.page.shutdown();
        b.page.shutdown();
    });
}

// covers: S6, U3, U5
#[test]
fn a_forged_answer_published_by_a_redis_reader_is_dropped_and_the_real_one_works() {
    let Some(server) = RedisServer::start() else {
        return;
    };
    run(async {
        let a = instance(&server, RedisConfig::DEFAULT_TTL).await;
        let b = instance(&server, RedisConfig::DEFAULT_TTL).await;
        let elicitor = a.elicitor();
        let (id, path, wait) = a.ask(&elicitor);
        // The worst case: the attacker knows the token too (a leaked link).
        let token = path.trim_start_matches("/elicit/").to_owned();
        let owner = PublicKey::from(unhex(a.relay.instance_id()));
        let forged_page = json!({
            "token": token,
            "action": "Accept",
            "content": { "api_key": "sk-attacker-0000000000", "region": "eu" },
        });
        let mut rng = AttackerRandom(7);
        // As the relay sealed them before it was authenticated: format 1, no tag.
        let old = json!({ "Page": forged_page });
        let mut forged = vec![1u8];
        forged.extend(
            owner
                .seal(&mut rng, &serde_json::to_vec(&old).unwrap())
                .unwrap(),
        );
        // In today's format, with a tag the attacker cannot make (no relay key), from
        // an instance id it names (B's).
        let envelope = json!({
            "f": b.relay.instance_id(),
            "m": { "Page": { "ack": 1, "page": forged_page } },
        });
        let mut plain = vec![0u8; 16];
        rng.fill_bytes(&mut plain);
        plain.extend(serde_json::to_vec(&envelope).unwrap());
        let mut tagged = vec![2u8];
        tagged.extend(owner.seal(&mut rng, &plain).unwrap());
        for payload in [&forged, &tagged] {
            // A listens: Redis counts it as a receiver.
            assert_eq!(publish_raw(&server, a.relay.channel(), payload), 1);
        }
        tokio::time::sleep(Duration::from_millis(300)).await;
        assert_eq!(a.page.waiting(), 1, "a forged answer was taken");

        // The person's real submission on B: received, and A takes their value.
        let shown = http::open(b.page.local_addr(), &path, None).await;
        assert_eq!(shown.status, 200, "{}", shown.body);
        let cookie = shown.cookie().unwrap();
        let done = http::submit(b.page.local_addr(), &path, &cookie, &good_body()).await;
        assert_eq!(done.status, 200, "{}", done.body);
        assert!(done.body.contains("Received"), "{}", done.body);
        let answer = tokio::time::timeout(Duration::from_secs(10), wait.answer())
            .await
            .unwrap();
        let Ok(Elicited::Accepted(submitted)) = answer else {
            panic!("accepted on A: {answer:?}")
        };
        assert_eq!(submitted.value().api_key, SECRET);
        elicitor.complete(&id, submitted.user()).unwrap();

        // An attacker who can also write marks a second page's ticket bound and used,
        // as a real submission would, before publishing: only the tag stops it now.
        let (_, path, wait) = a.ask(&elicitor);
        let token = path.trim_start_matches("/elicit/").to_owned();
        rewrite_ticket(&server, &token, |ticket| {
            ticket["b"] = json!("0".repeat(32));
            ticket["d"] = json!(true);
        });
        let envelope = json!({
            "f": b.relay.instance_id(),
            "m": { "Page": { "ack": 2, "page": {
                "token": token,
                "action": "Accept",
                "content": { "api_key": "sk-attacker-0000000000", "region": "eu" },
            } } },
        });
        let mut plain = vec![0u8; 16];
        rng.fill_bytes(&mut plain);
        plain.extend(serde_json::to_vec(&envelope).unwrap());
        let mut tagged = vec![2u8];
        tagged.extend(owner.seal(&mut rng, &plain).unwrap());
        assert_eq!(publish_raw(&server, a.relay.channel(), &tagged), 1);
        tokio::time::sleep(Duration::from_millis(300)).await;
        assert_eq!(
            a.page.waiting(),
            1,
            "a forged answer with a made-up tag was taken"
        );
        drop(wait);
        a.page.shutdown();
        b.page.shutdown();
    });
}

// covers: U2, U3
#[test]
fn received_only_when_the_waiting_instance_took_it_not_when_publish_counted_it() {
    let Some(server) = RedisServer::start() else {
        return;
    };
    run(async {
        let a = instance(&server, RedisConfig::DEFAULT_TTL).await;
        let b = instance(&server, RedisConfig::DEFAULT_TTL).await;
        let elicitor = a.elicitor();
        // Opened pending the client's consent, which never comes.
        let link = a
            .page
            .link::<DeployKey>("Paste the API key of your deploy account")
            .unwrap();
        let path = link.url().strip_prefix(a.page.origin()).unwrap().to_owned();
        let token = path.trim_start_matches("/elicit/").to_owned();
        let pending = elicitor
            .url(Scope::session("s1"), "Connect", link.url())
            .unwrap();
        let wait = link
            .open_pending_consent(pending.elicitation_id(), elicitor.user())
            .unwrap();
        let shown = http::open(b.page.local_addr(), &path, None).await;
        let cookie = shown.cookie().unwrap();
        // The page says to confirm in the client first.
        let early = http::submit(b.page.local_addr(), &path, &cookie, &good_body()).await;
        assert_eq!(early.status, 409, "{}", early.body);

        // A Redis writer clears the consent mark: B now marks it used and sends it,
        // and A, which never recorded the consent, does not take it.
        rewrite_ticket(&server, &token, |ticket| {
            ticket.as_object_mut().unwrap().remove("p");
        });
        // B's submission starts from the copy it kept when it showed the untouched
        // ticket; the swap to used compares that copy with what Redis holds, fails,
        // and the ticket read again is refused: nothing is sealed for anyone.
        let refused = http::submit(b.page.local_addr(), &path, &cookie, &good_body()).await;
        assert_eq!(refused.status, 503, "{}", refused.body);
        assert!(refused.body.contains("Not delivered"), "{}", refused.body);
        assert!(!refused.body.contains("Received"), "{}", refused.body);
        assert_eq!(a.page.waiting(), 1, "A took an answer before the consent");
        drop(wait);
        a.page.shutdown();
        b.page.shutdown();
    });
}

/// What a Redis reader records: every payload published on one channel, as raw bytes,
/// from a `SUBSCRIBE` of its own (RESP read by hand: a payload is binary).
struct Capture {
    payloads: Arc<Mutex<Vec<Vec<u8>>>>,
    stream: TcpStream,
}

impl Capture {
    fn start(server: &RedisServer, channel: &str) -> Capture {
        use std::io::BufRead;
        let port: u16 = server
            .url()
            .trim_end_matches('/')
            .rsplit(':')
            .next()
            .unwrap()
            .parse()
            .unwrap();
        let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
        let mut command = b"*2\r\n$9\r\nSUBSCRIBE\r\n".to_vec();
        command.extend_from_slice(format!("${}\r\n{channel}\r\n", channel.len()).as_bytes());
        stream.write_all(&command).unwrap();
        let mut reader = std::io::BufReader::new(stream.try_clone().unwrap());
        // One RESP array of bulk strings and integers; `None` when the connection ends.
        fn array(reader: &mut impl BufRead) -> Option<Vec<Vec<u8>>> {
            let mut line = String::new();
            reader.read_line(&mut line).ok().filter(|&n| n > 0)?;
            let count: usize = line.trim().strip_prefix('*')?.parse().ok()?;
            let mut items = Vec::with_capacity(count);
            for _ in 0..count {
                line.clear();
                reader.read_line(&mut line).ok().filter(|&n| n > 0)?;
                let line = line.trim_end();
                if let Some(length) = line.strip_prefix('$') {
                    let mut item = vec![0u8; length.parse::<usize>().ok()? + 2];
                    reader.read_exact(&mut item).ok()?;
                    item.truncate(item.len() - 2);
                    items.push(item);
                } else {
                    items.push(line.as_bytes().to_vec());
                }
            }
            Some(items)
        }
        let subscribed = array(&mut reader).expect("SUBSCRIBE answered");
        assert_eq!(subscribed[0], b"subscribe");
        let payloads = Arc::new(Mutex::new(Vec::new()));
        let into = Arc::clone(&payloads);
        std::thread::spawn(move || {
            while let Some(message) = array(&mut reader) {
                if message.len() == 3 && message[0] == b"message" {
                    into.lock().unwrap().push(message[2].clone());
                }
            }
        });
        Capture { payloads, stream }
    }

    /// The first payload published on the channel, once there is one.
    fn first(&self) -> Vec<u8> {
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        loop {
            if let Some(first) = self.payloads.lock().unwrap().first() {
                return first.clone();
            }
            assert!(
                std::time::Instant::now() < deadline,
                "nothing published within 10 s"
            );
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

impl Drop for Capture {
    fn drop(&mut self) {
        let _ = self.stream.shutdown(std::net::Shutdown::Both);
    }
}

// The waiting instance does not read the ticket again when a routed answer comes: it
// trusts the message's tag under the relay key (only a key-holding instance, right
// after its compare-and-swap marked the ticket used, sends one) and checks the ticket's
// tag the message names against the one it wrote. What that leaves to a Redis reader
// who records a genuine message and publishes it again:
// covers: U2, U3, U5, S6
#[test]
fn a_genuine_routed_answer_replayed_by_a_redis_reader_is_never_taken_twice_nor_late() {
    let Some(server) = RedisServer::start() else {
        return;
    };
    run(async {
        let a = instance(&server, RedisConfig::DEFAULT_TTL).await;
        let b = instance(&server, RedisConfig::DEFAULT_TTL).await;
        let elicitor = a.elicitor();

        // 1. Taken once: the person's submission on B completes on A; the recorded
        // message published again, even after a writer made the ticket look unused
        // and unbound, finds nothing waiting, and the elicitation completed once.
        let capture = Capture::start(&server, a.relay.channel());
        let (id, path, wait) = a.ask(&elicitor);
        let token = path.trim_start_matches("/elicit/").to_owned();
        let shown = http::open(b.page.local_addr(), &path, None).await;
        let cookie = shown.cookie().unwrap();
        let done = http::submit(b.page.local_addr(), &path, &cookie, &good_body()).await;
        assert!(done.body.contains("Received"), "{}", done.body);
        let answer = tokio::time::timeout(Duration::from_secs(10), wait.answer())
            .await
            .unwrap();
        let Ok(Elicited::Accepted(submitted)) = answer else {
            panic!("accepted on A: {answer:?}")
        };
        elicitor.complete(&id, submitted.user()).unwrap();
        let genuine = capture.first();
        drop(capture);
        rewrite_ticket(&server, &token, |ticket| {
            let ticket = ticket.as_object_mut().unwrap();
            ticket.remove("d");
            ticket.remove("b");
        });
        assert_eq!(publish_raw(&server, a.relay.channel(), &genuine), 1);
        tokio::time::sleep(Duration::from_millis(300)).await;
        assert_eq!(a.page.waiting(), 0);
        assert_eq!(
            elicitor.complete(&id, submitted.user()).unwrap_err(),
            CompletionError::AlreadyCompleted
        );

        // 2. Refused, then never taken late: a writer clears a page's consent mark, the
        // person submits on B before consenting in the client, B marks the ticket used
        // and sends, A (no consent recorded here) refuses. The client's consent then
        // arrives and A records it; the recorded message published again is still
        // refused: the first routed answer for a token spends it, taken or not. (A
        // check of the ticket in the store would pass here: it is bound, used and
        // tagged.)
        let capture = Capture::start(&server, a.relay.channel());
        let link = a
            .page
            .link::<DeployKey>("Paste the API key of your deploy account")
            .unwrap();
        let path = link.url().strip_prefix(a.page.origin()).unwrap().to_owned();
        let token = path.trim_start_matches("/elicit/").to_owned();
        let pending = elicitor
            .url(Scope::session("s2"), "Connect", link.url())
            .unwrap();
        let id = pending.elicitation_id().to_owned();
        let mut wait = link.open_pending_consent(&id, elicitor.user()).unwrap();
        let shown = http::open(b.page.local_addr(), &path, None).await;
        let cookie = shown.cookie().unwrap();
        rewrite_ticket(&server, &token, |ticket| {
            ticket.as_object_mut().unwrap().remove("p");
        });
        // B's submission starts from the copy it kept when it showed the untouched
        // ticket; the swap to used compares that copy with what Redis holds, fails,
        // and the ticket read again is refused: nothing is sealed for anyone.
        let refused = http::submit(b.page.local_addr(), &path, &cookie, &good_body()).await;
        assert_eq!(refused.status, 503, "{}", refused.body);
        assert!(refused.body.contains("Not delivered"), "{}", refused.body);
        let genuine = capture.first();
        drop(capture);
        let consent = elicitor
            .record_response(&id, &ElicitationResponse::accept_without_content())
            .unwrap();
        assert_eq!(consent, UrlOutcome::Consented);
        wait.record_consent().unwrap();
        let (_, _, stored) = stored_ticket(&server, &token);
        assert_eq!(
            (stored["d"].clone(), stored["b"].is_string()),
            (json!(true), true)
        );
        assert_eq!(publish_raw(&server, a.relay.channel(), &genuine), 1);
        let late = tokio::time::timeout(Duration::from_millis(500), wait.answer()).await;
        assert!(late.is_err(), "a replayed answer was taken: {late:?}");
        a.page.shutdown();
        b.page.shutdown();
    });
}

/// Every way the token could be written: clear (it is hex already), its bytes in
/// base64 (standard and URL-safe, padded or not), the text in base64.
fn spellings(token: &str) -> Vec<String> {
    const STANDARD: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    fn base64(bytes: &[u8], alphabet: &[u8; 64]) -> String {
        let mut out = String::new();
        for chunk in bytes.chunks(3) {
            let n = chunk
                .iter()
                .enumerate()
                .fold(0u32, |n, (i, b)| n | (u32::from(*b) << (16 - 8 * i)));
            for i in 0..=chunk.len() {
                out.push(char::from(alphabet[((n >> (18 - 6 * i)) & 63) as usize]));
            }
        }
        out
    }
    let mut url_safe = *STANDARD;
    url_safe[62] = b'-';
    url_safe[63] = b'_';
    let raw = unhex(token);
    vec![
        token.to_owned(),
        token.to_uppercase(),
        base64(&raw, STANDARD),
        base64(&raw, &url_safe),
        base64(token.as_bytes(), STANDARD),
    ]
}

// covers: S1
#[test]
fn a_scan_of_redis_during_a_live_link_finds_the_token_nowhere() {
    let Some(server) = RedisServer::start() else {
        return;
    };
    run(async {
        let a = instance(&server, RedisConfig::DEFAULT_TTL).await;
        let b = instance(&server, RedisConfig::DEFAULT_TTL).await;
        let listener = Listener::start(&server);
        let elicitor = a.elicitor();
        let (_, path, wait) = a.ask(&elicitor);
        let token = path.trim_start_matches("/elicit/").to_owned();
        let shown = http::open(b.page.local_addr(), &path, None).await;
        assert_eq!(shown.status, 200, "{}", shown.body);
        let cookie = shown.cookie().unwrap();
        // A first, invalid answer binds the page; the link stays live.
        let short = http::submit(
            b.page.local_addr(),
            &path,
            &cookie,
            "f.api_key=short&f.region=eu&elicit-action=accept",
        )
        .await;
        assert_eq!(short.status, 422, "{}", short.body);

        let keys = server.keys();
        assert!(keys.contains(&format!("elicit:page:{}", PageTicket::store_key(&token))));
        let values = every_value(&server);
        assert_eq!(values.len(), 2, "{values:?}");
        let heard = listener.heard();
        for spelling in spellings(&token) {
            let trimmed = spelling.trim_end_matches('=');
            for key in &keys {
                assert!(!key.contains(trimmed), "the token is a key name: {key}");
            }
            for (key, value) in &values {
                assert!(!value.contains(trimmed), "{key} holds the token");
            }
            assert!(
                !contains(&heard, trimmed.as_bytes()),
                "the token was published"
            );
        }
        drop(wait);
        a.page.shutdown();
        b.page.shutdown();
    });
}

/// One instance on a Redis Cluster: its relay, stores and page.
struct ClusterInstance {
    relay: RedisRelay,
    registry: UrlRegistry,
    page: SecurePage,
}

async fn cluster_instance(cluster: &RedisCluster) -> ClusterInstance {
    let relay =
        RedisRelay::connect_cluster(cluster.urls(), relay_key(), RelayConfig::new()).unwrap();
    let urls: RedisStore<UrlEntry> =
        RedisStore::connect_cluster(cluster.urls(), RedisConfig::new().prefix("elicit:url:"))
            .unwrap();
    let tickets = urls.with_prefix::<PageTicket>("elicit:page:");
    let registry = UrlRegistry::with_store(urls, RegistryLimits::DEFAULT).routed_by(&relay);
    let page = SecurePage::builder()
        .unauthenticated_single_user(UserId::new("alice"))
        .store(tickets)
        .relay(&relay)
        .bind(([127, 0, 0, 1], 0))
        .await
        .unwrap();
    ClusterInstance {
        relay,
        registry,
        page,
    }
}

/// The index of the node whose shard channels include `channel`.
fn node_of(cluster: &RedisCluster, channel: &str) -> Option<usize> {
    cluster.nodes.iter().position(|node| {
        node.cli(&["PUBSUB", "SHARDCHANNELS"])
            .lines()
            .any(|line| line == channel)
    })
}

fn elicitor_of(registry: &UrlRegistry) -> Elicitor {
    let caps = ElicitationCapabilities::from_json(Some(&json!({ "url": {} })));
    Elicitor::new(caps, ConnectionId::new())
        .with_user(UserId::new("alice"))
        .with_url_policy(UrlPolicy::new().allow_loopback_http(true))
        .with_registry(registry)
}

// covers: U3, U5, S6
#[test]
fn on_a_three_primary_cluster_a_page_of_a_submitted_on_b_is_delivered_acknowledged_and_completed_once(
) {
    let Some(cluster) = RedisCluster::start() else {
        return;
    };
    run(async {
        let a = cluster_instance(&cluster).await;
        let a_node = node_of(&cluster, a.relay.channel()).expect("A's channel is on a node");
        // B listens on another node than A.
        let mut b = cluster_instance(&cluster).await;
        for _ in 0..20 {
            if node_of(&cluster, b.relay.channel()) != Some(a_node) {
                break;
            }
            b.relay.close();
            b.page.shutdown();
            b = cluster_instance(&cluster).await;
        }
        let b_node = node_of(&cluster, b.relay.channel()).expect("B's channel is on a node");
        assert_ne!(a_node, b_node);
        eprintln!("cluster: A listens on node {a_node}, B on node {b_node}");

        let elicitor = elicitor_of(&a.registry);
        let link = a.page.link::<DeployKey>("Paste the key").unwrap();
        let path = link.url().strip_prefix(a.page.origin()).unwrap().to_owned();
        let pending = elicitor
            .url(Scope::session("s1"), "Connect", link.url())
            .unwrap();
        let id = pending.elicitation_id().to_owned();
        let mut wait = link.open_pending_consent(&id, elicitor.user()).unwrap();
        assert_eq!(
            elicitor
                .record_response(&id, &ElicitationResponse::accept_without_content())
                .unwrap(),
            UrlOutcome::Consented
        );
        wait.record_consent().unwrap();

        let shown = http::open(b.page.local_addr(), &path, None).await;
        assert_eq!(shown.status, 200, "{}", shown.body);
        let cookie = shown.cookie().unwrap();
        let done = http::submit(b.page.local_addr(), &path, &cookie, &good_body()).await;
        assert_eq!(done.status, 200, "{}", done.body);
        assert!(done.body.contains("Received"), "{}", done.body);
        let answer = tokio::time::timeout(Duration::from_secs(10), wait.answer())
            .await
            .unwrap();
        let Ok(Elicited::Accepted(submitted)) = answer else {
            panic!("accepted on A: {answer:?}")
        };
        assert_eq!(submitted.value().api_key, SECRET);
        elicitor.complete(&id, submitted.user()).unwrap();
        assert!(
            elicitor.complete(&id, submitted.user()).is_err(),
            "completed twice"
        );

        // A completion done on B reaches A's hook, once.
        let heard = Arc::new(Mutex::new(Vec::<String>::new()));
        let into = Arc::clone(&heard);
        a.relay.on_completion(&a.registry, move |done| {
            into.lock().unwrap().push(done.elicitation_id().to_owned());
        });
        let other = elicitor
            .url(
                Scope::session("s1"),
                "Connect",
                "https://auth.example.com/c",
            )
            .unwrap();
        let other_id = other.elicitation_id().to_owned();
        assert_eq!(
            elicitor
                .record_response(&other_id, &ElicitationResponse::accept_without_content())
                .unwrap(),
            UrlOutcome::Consented
        );
        assert_eq!(
            b.relay
                .complete(&b.registry, &other_id, Some(&UserId::new("alice"))),
            Ok(Delivery::Delivered)
        );
        until("A's hook hears the completion", || {
            heard.lock().unwrap().len() == 1
        })
        .await;
        assert!(b
            .relay
            .complete(&b.registry, &other_id, Some(&UserId::new("alice")))
            .is_err());
        tokio::time::sleep(Duration::from_millis(200)).await;
        assert_eq!(*heard.lock().unwrap(), vec![other_id]);
        a.page.shutdown();
        b.page.shutdown();
    });
}

/// A TCP proxy in front of Redis that can go silent: the connections it carries at
/// that moment stay open but nothing crosses them any more (a NAT or a firewall that
/// dropped them), while new connections go through.
struct SilentProxy {
    addr: SocketAddr,
    /// Connections numbered below this are silent.
    silenced_below: Arc<AtomicU64>,
    next: Arc<AtomicU64>,
}

impl SilentProxy {
    fn start(upstream: SocketAddr) -> SilentProxy {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let silenced_below = Arc::new(AtomicU64::new(0));
        let next = Arc::new(AtomicU64::new(0));
        let (cut, count) = (Arc::clone(&silenced_below), Arc::clone(&next));
        std::thread::spawn(move || {
            for client in listener.incoming() {
                let Ok(client) = client else { return };
                let Ok(server) = TcpStream::connect(upstream) else {
                    continue;
                };
                let number = count.fetch_add(1, Ordering::SeqCst);
                for (mut from, mut to) in [
                    (client.try_clone().unwrap(), server.try_clone().unwrap()),
                    (server, client),
                ] {
                    let cut = Arc::clone(&cut);
                    std::thread::spawn(move || {
                        let mut buf = [0u8; 8192];
                        while let Ok(n) = from.read(&mut buf) {
                            if n == 0 {
                                break;
                            }
                            if number < cut.load(Ordering::SeqCst) {
                                continue; // silent: read and dropped
                            }
                            if to.write_all(&buf[..n]).is_err() {
                                break;
                            }
                        }
                    });
                }
            }
        });
        SilentProxy {
            addr,
            silenced_below,
            next,
        }
    }

    /// Every connection open now goes silent.
    fn silence(&self) {
        self.silenced_below
            .store(self.next.load(Ordering::SeqCst), Ordering::SeqCst);
    }
}

// covers: U5
#[test]
fn a_subscriber_connection_that_silently_stops_answering_is_replaced() {
    let Some(server) = RedisServer::start() else {
        return;
    };
    let port: u16 = server
        .url()
        .trim_end_matches('/')
        .rsplit(':')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    let proxy = SilentProxy::start(SocketAddr::from(([127, 0, 0, 1], port)));
    run(async {
        // A's relay reaches Redis through the proxy; its store and B directly.
        let a_relay = RedisRelay::connect(
            format!("redis://{}/", proxy.addr).as_str(),
            relay_key(),
            RelayConfig::new()
                .ping_every(Duration::from_millis(200))
                .response_timeout(Duration::from_millis(500)),
        )
        .unwrap();
        let urls: RedisStore<UrlEntry> = RedisStore::connect(
            server.url().as_str(),
            RedisConfig::new().prefix("elicit:url:"),
        )
        .unwrap();
        let a_registry = UrlRegistry::with_store(urls, RegistryLimits::DEFAULT).routed_by(&a_relay);
        let b = instance(&server, RedisConfig::DEFAULT_TTL).await;
        let heard = Arc::new(Mutex::new(Vec::<String>::new()));
        let into = Arc::clone(&heard);
        a_relay.on_completion(&a_registry, move |done| {
            into.lock().unwrap().push(done.elicitation_id().to_owned());
        });
        let elicitor = elicitor_of(&a_registry);
        let mut ids = Vec::new();
        for _ in 0..2 {
            let pending = elicitor
                .url(
                    Scope::session("s1"),
                    "Connect",
                    "https://auth.example.com/c",
                )
                .unwrap();
            let id = pending.elicitation_id().to_owned();
            assert_eq!(
                elicitor
                    .record_response(&id, &ElicitationResponse::accept_without_content())
                    .unwrap(),
                UrlOutcome::Consented
            );
            ids.push(id);
        }

        // Before: heard.
        assert_eq!(
            b.relay
                .complete(&b.registry, &ids[0], Some(&UserId::new("alice"))),
            Ok(Delivery::Delivered)
        );
        until("A hears the first completion", || {
            heard.lock().unwrap().len() == 1
        })
        .await;

        // The subscriber's connection goes silent: Redis still counts it as a
        // subscriber, but nothing reaches A on it. The PING finds out, and A
        // subscribes again on a new connection.
        proxy.silence();
        tokio::time::sleep(Duration::from_millis(1500)).await;
        until("A listens again", || a_relay.is_listening()).await;
        assert_eq!(
            b.relay
                .complete(&b.registry, &ids[1], Some(&UserId::new("alice"))),
            Ok(Delivery::Delivered)
        );
        until("A hears the completion sent after the silence", || {
            heard.lock().unwrap().len() == 2
        })
        .await;
        assert_eq!(*heard.lock().unwrap(), ids);
        a_relay.close();
        b.page.shutdown();
    });
}
