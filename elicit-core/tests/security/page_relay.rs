//! `axum/handlers.rs` with a relay (features `axum` and `redis`): a page opened on one
//! instance is shown and submitted on another, which checks the answer against the form
//! in the ticket and hands it to the waiting instance through the relay, sealed. An
//! instance acts only on a ticket tagged under the deployment's relay key: a route or
//! form rewritten by whoever can write to Redis is refused on every instance, and a
//! page whose waiting instance is gone says so instead of taking a secret.
//!
//! Two "instances" here: each its own relay, ticket store and page on one real
//! `redis-server` (`redis_server`) that the test starts and stops.

use std::time::Duration;

use elicit_core::agent::UserId;
use elicit_core::agent::{RedisConfig, RedisRelay, RedisStore, RelayConfig, RelayKey};
use elicit_core::axum::{PageTicket, PageWait, SecurePage};
use elicit_core::Elicited;

use super::page::{open, rewrite, run, submit, ApiKey, GOOD};
use crate::redis_server::RedisServer;

struct Instance {
    relay: RedisRelay,
    tickets: RedisStore<PageTicket>,
    page: SecurePage,
}

async fn instance(server: &RedisServer) -> Instance {
    let relay = RedisRelay::connect(
        server.url().as_str(),
        RelayKey::from_bytes([0x5e; 32]),
        RelayConfig::new(),
    )
    .expect("the relay connects and subscribes");
    let tickets: RedisStore<PageTicket> = RedisStore::connect(
        server.url().as_str(),
        RedisConfig::new()
            .prefix("elicit:page:")
            .ttl(Duration::from_secs(60)),
    )
    .expect("the store connects");
    let page = SecurePage::builder()
        .unauthenticated_single_user(UserId::new("alice"))
        .store(tickets.clone())
        .relay(&relay)
        .bind(([127, 0, 0, 1], 0))
        .await
        .expect("the page binds");
    Instance {
        relay,
        tickets,
        page,
    }
}

/// A link opened on `on` for alice: its path (the same on every instance), its token
/// and the wait.
fn opened(on: &Instance) -> (String, String, PageWait<ApiKey>) {
    let link = on
        .page
        .link::<ApiKey>("Paste the API key of your deploy account")
        .expect("a link");
    let path = link
        .url()
        .strip_prefix(on.page.origin())
        .expect("the link is on the page's origin")
        .to_owned();
    let token = path.rsplit('/').next().expect("a token").to_owned();
    let wait = link
        .open("e-1", Some(&UserId::new("alice")))
        .expect("the link opens");
    (path, token, wait)
}

// covers: S6, E5, U5
#[test]
fn a_page_opened_on_one_instance_is_answered_on_another() {
    let Some(server) = RedisServer::start() else {
        return;
    };
    run(async {
        let a = instance(&server).await;
        let b = instance(&server).await;
        let (path, _, wait) = opened(&a);
        let addr = b.page.local_addr();

        let shown = open(addr, &path, None).await;
        assert_eq!(shown.status, 200, "{}", shown.body);
        assert!(shown.body.contains("Paste the API key"), "{}", shown.body);
        let cookie = shown.cookie().expect("a cookie");
        // Checked on B against the form in the ticket.
        let wrong = submit(addr, &path, &cookie, "f.api_key=short&elicit-action=accept").await;
        assert_eq!(wrong.status, 422, "{}", wrong.body);
        let done = submit(addr, &path, &cookie, GOOD).await;
        assert_eq!(done.status, 200, "{}", done.body);
        assert!(
            done.body.contains("<title>Received</title>"),
            "{}",
            done.body
        );
        let Elicited::Accepted(submitted) = wait.answer().await.expect("answered") else {
            panic!("accepted")
        };
        assert_eq!(submitted.value().api_key, "sk-live-0123456789");
        assert_eq!(submitted.user(), Some(&UserId::new("alice")));
        // Used, on every instance.
        assert_eq!(submit(addr, &path, &cookie, GOOD).await.status, 410);
        let on_a = open(a.page.local_addr(), &path, Some(&cookie)).await;
        assert_eq!(on_a.status, 410);

        // Declined on B reaches A as a decline.
        let (path, _, wait) = opened(&a);
        let cookie = open(addr, &path, None).await.cookie().expect("a cookie");
        let declined = submit(addr, &path, &cookie, "elicit-action=decline").await;
        assert_eq!(declined.status, 200, "{}", declined.body);
        assert!(declined.body.contains("You declined"), "{}", declined.body);
        assert!(matches!(wait.answer().await, Ok(Elicited::Declined)));
        a.page.shutdown();
        b.page.shutdown();
    });
}

/// Whoever can write to Redis rewrites a ticket's form (to ask for something else)
/// or its route (to have the secret sealed for another key): no instance shows it,
/// not even the waiting one.
// covers: S6, E5
#[test]
fn a_rewritten_ticket_is_refused_on_every_instance() {
    let Some(server) = RedisServer::start() else {
        return;
    };
    run(async {
        let a = instance(&server).await;
        let b = instance(&server).await;
        for (what, change) in [("form", "f"), ("route", "r")] {
            let (path, token, _wait) = opened(&a);
            rewrite(&b.tickets, &token, |json| match change {
                "f" => json["f"]["m"] = "Type your bank password".into(),
                _ => json["r"] = "ab".repeat(32).into(),
            });
            for at in [a.page.local_addr(), b.page.local_addr()] {
                let reply = open(at, &path, None).await;
                assert_eq!(reply.status, 503, "{what}: {}", reply.body);
                assert!(
                    reply.body.contains("changed by someone else"),
                    "{}",
                    reply.body
                );
                assert!(!reply.body.contains("bank password"));
            }
        }
        a.page.shutdown();
        b.page.shutdown();
    });
}

/// The waiting instance is gone: the other instance says so when the page is opened,
/// rather than have a secret typed that nobody waits for.
// covers: R5, U2
#[test]
fn a_page_whose_instance_is_gone_says_so() {
    let Some(server) = RedisServer::start() else {
        return;
    };
    run(async {
        let a = instance(&server).await;
        let b = instance(&server).await;
        let (path, _, _wait) = opened(&a);
        let addr = b.page.local_addr();
        let cookie = open(addr, &path, None).await.cookie().expect("a cookie");
        a.relay.close();
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        let reply = loop {
            let reply = open(addr, &path, Some(&cookie)).await;
            if reply.status != 200 || std::time::Instant::now() > deadline {
                break reply;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        };
        assert_eq!(reply.status, 503, "{}", reply.body);
        assert!(reply.body.contains("no longer running"), "{}", reply.body);
        let submitted = submit(addr, &path, &cookie, GOOD).await;
        assert_eq!(submitted.status, 503, "{}", submitted.body);
        assert!(
            submitted.body.contains("Not delivered"),
            "{}",
            submitted.body
        );
        assert!(!submitted.body.contains("Received"));
        a.page.shutdown();
        b.page.shutdown();
    });
}

/// An instance without the relay, sharing the store, neither shows a routed page nor
/// says more about it than that it is gone.
// covers: S6
#[test]
fn an_instance_without_the_relay_says_only_that_a_routed_page_is_gone() {
    let Some(server) = RedisServer::start() else {
        return;
    };
    run(async {
        let a = instance(&server).await;
        let b = instance(&server).await;
        let plain = SecurePage::builder()
            .unauthenticated_single_user(UserId::new("alice"))
            .store(b.tickets.clone())
            .bind(([127, 0, 0, 1], 0))
            .await
            .expect("the page binds");
        let (path, _, _wait) = opened(&a);
        let addr = b.page.local_addr();
        let cookie = open(addr, &path, None).await.cookie().expect("a cookie");
        let wrong = submit(addr, &path, &cookie, "f.api_key=short&elicit-action=accept").await;
        assert_eq!(wrong.status, 422, "{}", wrong.body);
        for cookie in [None, Some(cookie.as_str())] {
            let reply = open(plain.local_addr(), &path, cookie).await;
            assert_eq!(reply.status, 410, "{}", reply.body);
            assert!(!reply.body.contains("another browser"), "{}", reply.body);
        }
        plain.shutdown();
        a.page.shutdown();
        b.page.shutdown();
    });
}

/// A relay names its channel from its configured prefix and its instance id (its
/// public key): each setting of the configuration is kept by the ones after it.
// covers: E5
#[test]
fn a_relay_listens_on_its_prefix_and_instance_id() {
    let Some(server) = RedisServer::start() else {
        return;
    };
    run(async {
        let config = RelayConfig::new()
            .prefix("t28:")
            .response_timeout(Duration::from_secs(3))
            .connection_timeout(Duration::from_secs(3))
            .max_backoff(Duration::from_millis(500))
            .ping_every(Duration::from_secs(4))
            .ack_timeout(Duration::from_secs(2))
            .also_accepting(RelayKey::from_bytes([0x11; 32]));
        let relay = RedisRelay::connect(
            server.url().as_str(),
            RelayKey::from_bytes([0x5e; 32]),
            config,
        )
        .expect("the relay connects and subscribes");
        assert_eq!(relay.prefix(), "t28:");
        let id = relay.instance_id();
        assert_eq!(id.len(), 64, "{id}");
        assert!(
            id.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')),
            "{id}"
        );
        assert_eq!(relay.channel(), format!("t28:inst:{id}"));
        assert!(relay.is_listening());
        let other = RedisRelay::connect(
            server.url().as_str(),
            RelayKey::from_bytes([0x5e; 32]),
            RelayConfig::new(),
        )
        .expect("the relay connects and subscribes");
        assert_ne!(other.instance_id(), id);
        assert_eq!(other.prefix(), "elicit:");
        // Closed: no longer listening, once its subscriber has stopped.
        relay.close();
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while relay.is_listening() && std::time::Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        assert!(!relay.is_listening());
        other.close();
    });
}

/// Two pages of one instance share its relay (say, one per listener): a page opened on
/// the first is still answered through the relay after the second was added, and one
/// opened on the second too.
// covers: E5, U5
#[test]
fn every_page_of_an_instance_takes_its_routed_answers() {
    let Some(server) = RedisServer::start() else {
        return;
    };
    run(async {
        let a = instance(&server).await;
        let b = instance(&server).await;
        let second = Instance {
            relay: a.relay.clone(),
            tickets: a.tickets.clone(),
            page: SecurePage::builder()
                .unauthenticated_single_user(UserId::new("alice"))
                .store(a.tickets.clone())
                .relay(&a.relay)
                .bind(([127, 0, 0, 1], 0))
                .await
                .expect("the page binds"),
        };
        let addr = b.page.local_addr();
        for on in [&a, &second] {
            let (path, _, wait) = opened(on);
            let cookie = open(addr, &path, None).await.cookie().expect("a cookie");
            let done = submit(addr, &path, &cookie, GOOD).await;
            assert_eq!(done.status, 200, "{}", done.body);
            assert!(
                done.body.contains("<title>Received</title>"),
                "{}",
                done.body
            );
            let Elicited::Accepted(submitted) = wait.answer().await.expect("answered") else {
                panic!("accepted")
            };
            assert_eq!(submitted.value().api_key, "sk-live-0123456789");
        }
        second.page.shutdown();
        a.page.shutdown();
        b.page.shutdown();
    });
}
