//! `elicit::axum::SecurePage` on `elicit::agent::RedisStore` (features `axum` and
//! `redis`): two instances of an agent sharing one real `redis-server`, which the test
//! starts on 127.0.0.1 and stops. A token used on one instance is used for both, each
//! token's key has the prefix and a TTL, and a Redis that is down opens no page.
#![cfg(all(feature = "axum", feature = "redis"))]

use elicit::agent::{RedisConfig, RedisStore, Store, UserId};
use elicit::axum::{PageError, PageTicket, SecurePage};
use elicit::Elicited;

use super::url_page::{http, run, DeployKey};

#[path = "../../elicit-core/tests/security/redis_server.rs"]
pub(crate) mod redis_server;
use redis_server::RedisServer;

const GOOD: &str = "f.api_key=sk-live-0123456789&f.region=eu&elicit-action=accept";

/// One instance's page, on a connection of its own to `server`.
async fn instance(server: &RedisServer) -> (SecurePage, RedisStore<PageTicket>) {
    let store: RedisStore<PageTicket> = RedisStore::connect(
        server.url().as_str(),
        RedisConfig::new().prefix("elicit:page:"),
    )
    .expect("the store connects");
    let page = SecurePage::builder()
        .unauthenticated_single_user(UserId::new("alice"))
        .store(store.clone())
        .bind(([127, 0, 0, 1], 0))
        .await
        .expect("the page binds");
    (page, store)
}

// covers: S1, S6
#[test]
fn two_instances_share_the_page_tokens_in_redis() {
    let Some(mut server) = RedisServer::start() else {
        return;
    };
    run(async {
        let (first, store) = instance(&server).await;
        let (second, _) = instance(&server).await;
        let link = first
            .link::<DeployKey>("Paste the API key of your deploy account")
            .unwrap();
        let path = link.url().strip_prefix(first.origin()).unwrap().to_owned();
        let token = path.trim_start_matches("/elicit/").to_owned();
        let wait = link.open("e-1", Some(&UserId::new("alice"))).unwrap();
        let key = format!("elicit:page:{}", PageTicket::store_key(&token));
        assert_eq!(server.keys(), vec![key.clone()]);
        assert!(server.pttl(&key) > 0, "the token's key has a TTL");
        let bytes = server.cli(&["MEMORY", "USAGE", &key]);
        eprintln!(
            "redis memory: one open secure page: 1 key, {} bytes (MEMORY USAGE)",
            bytes.trim()
        );

        // Opened first on the instance that cannot show it (no relay): refused without
        // binding the browser, so the link still opens where the form waits.
        let elsewhere = http::open(second.local_addr(), &path, None).await;
        assert_eq!(elsewhere.status, 410, "{}", elsewhere.body);
        assert_eq!(elsewhere.cookie(), None, "no browser bound by a refusal");
        let shown = http::open(first.local_addr(), &path, None).await;
        assert_eq!(shown.status, 200, "{}", shown.body);
        let cookie = shown.cookie().unwrap();
        // The second instance knows the token but has no form waiting: refused.
        let other = http::submit(second.local_addr(), &path, &cookie, GOOD).await;
        assert_ne!(other.status, 200);
        let done = http::submit(first.local_addr(), &path, &cookie, GOOD).await;
        assert_eq!(done.status, 200, "{}", done.body);
        assert!(matches!(wait.answer().await, Ok(Elicited::Accepted(_))));
        // Used in Redis, so used for every instance.
        let ticket = store.get(&PageTicket::store_key(&token)).unwrap().unwrap();
        assert!(ticket.is_used());
        assert_eq!(ticket.user(), Some(UserId::new("alice")));
        for addr in [first.local_addr(), second.local_addr()] {
            assert_eq!(http::submit(addr, &path, &cookie, GOOD).await.status, 410);
        }
        for key in server.keys() {
            assert!(
                key.starts_with("elicit:page:") && server.pttl(&key) > 0,
                "{key}"
            );
        }

        // Redis down: no page opens, and an open link is not served.
        let link = first.link::<DeployKey>("m").unwrap();
        let path = link.url().strip_prefix(first.origin()).unwrap().to_owned();
        server.stop();
        assert!(matches!(
            link.open("e-2", Some(&UserId::new("alice"))),
            Err(PageError::Store(_))
        ));
        assert_eq!(
            http::open(first.local_addr(), &path, None).await.status,
            503
        );
        first.shutdown();
        second.shutdown();
    });
}
