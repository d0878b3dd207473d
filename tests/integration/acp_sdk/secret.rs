//! `ask_secret`: a URL-mode elicitation whose page is the agent's own `SecurePage`,
//! against the real ACP SDK on the client side and real HTTP on the page's side.
#![cfg(feature = "axum")]

use elicit::agent::UrlPolicy;
use elicit::agent_client_protocol::ask_secret;
use elicit::axum::SecurePage;
use futures::StreamExt;

use super::*;
use crate::url_page::{http, run, DeployKey};

/// The `Elicitor` the harness made, saying explicitly that the page's loopback `http`
/// link is allowed (S1: development only; the default policy allows it too).
fn for_page(elicitor: &Elicitor) -> Elicitor {
    elicitor
        .clone()
        .with_url_policy(UrlPolicy::new().allow_loopback_http(true))
}

/// The page of alice's own agent, which has no login: it takes whoever fills it as
/// alice, the harness's user (S6 given up in so many words).
async fn alices_page() -> SecurePage {
    SecurePage::builder()
        .unauthenticated_single_user(UserId::new("alice"))
        .bind(([127, 0, 0, 1], 0))
        .await
        .unwrap()
}

/// The path of the link in an `elicitation/create`'s params, on `page`.
fn link_path(page: &SecurePage, params: &Value) -> String {
    params["url"]
        .as_str()
        .and_then(|url| url.strip_prefix(page.origin()))
        .unwrap_or_else(|| panic!("the link is on the page: {params}"))
        .to_owned()
}

const KEY: &str = "f.api_key=sk-live-0123456789&f.region=eu&elicit-action=accept";

// covers: F6, U1, U2, U3, U5, S1, S6
#[test]
fn the_value_typed_on_the_page_is_the_answer_and_the_elicitation_completes() {
    run(async {
        let page = alices_page().await;
        let script = always(|| Reply::Result(json!({ "action": "accept" })));
        let wire = connect(Setup::new(url_only(), script), async |mut s| {
            let elicitor = for_page(&s.elicitor);
            let asking = ask_secret::<DeployKey>(
                &s.cx,
                &elicitor,
                &page,
                Scope::session("s1"),
                "Paste your deploy key",
            );
            let addr = page.local_addr();
            let browser = async {
                let params = s.received.next().await.expect("the client got the request");
                let path = link_path(&page, &params);
                let cookie = http::open(addr, &path, None).await.cookie().unwrap();
                assert_eq!(http::submit(addr, &path, &cookie, KEY).await.status, 200);
                params
            };
            let (answer, params) = future::join(asking, browser).await;
            let Ok(Elicited::Accepted(key)) = answer else {
                panic!("{answer:?}")
            };
            assert_eq!(key.api_key, "sk-live-0123456789");
            let id = params["elicitationId"].as_str().unwrap();
            assert_eq!(
                elicitor.url_state(id),
                Some(elicit::agent::UrlState::Completed)
            );
            assert_eq!(outstanding(&elicitor), 0);
            assert_eq!(page.waiting(), 0);
        })
        .await;
        // U5: one completion, with the id of the request; U3: the key is nowhere on
        // the wire.
        let created = wire.sent("elicitation/create");
        let completed = wire.sent("elicitation/complete");
        assert_eq!(created.len(), 1);
        assert_eq!(completed.len(), 1);
        assert_eq!(completed[0]["elicitationId"], created[0]["elicitationId"]);
        assert!(wire
            .lines()
            .iter()
            .all(|(_, line)| !line.contains("sk-live")));
        wire.assert_valid_elicitation_messages(true);
        page.shutdown();
    });
}

// covers: R5, U5
#[test]
fn a_session_cancelled_while_the_user_is_on_the_page_ends_the_ask_and_the_page() {
    run(async {
        let page = alices_page().await;
        let script = always(|| Reply::Result(json!({ "action": "accept" })));
        let wire = connect(Setup::new(url_only(), script), async |mut s| {
            let elicitor = for_page(&s.elicitor);
            let addr = page.local_addr();
            let asking = ask_secret::<DeployKey>(
                &s.cx,
                &elicitor,
                &page,
                Scope::session("s1"),
                "Paste your deploy key",
            );
            let mut asking = std::pin::pin!(asking);
            let (params, mut asking) = until_received(asking.as_mut(), &mut s.received).await;
            let path = link_path(&page, &params);
            // The user opens the page; the client's consent is on its way.
            let opened = async { http::open(addr, &path, None).await.cookie().unwrap() };
            let cookie = match future::select(asking.as_mut(), std::pin::pin!(opened)).await {
                Either::Right((cookie, _)) => cookie,
                Either::Left((answer, _)) => panic!("ended early: {answer:?}"),
            };
            s.client_cancels("s1");
            let answer = asking.as_mut().await;
            assert!(matches!(answer, Ok(Elicited::Cancelled)), "{answer:?}");
            // The page is closed and the elicitation forgotten, not completed.
            assert_eq!(http::submit(addr, &path, &cookie, KEY).await.status, 410);
            assert_eq!(outstanding(&elicitor), 0);
            assert_eq!(page.waiting(), 0);
            assert_eq!(waiting_asks(&elicitor), 0);
        })
        .await;
        assert!(wire.sent("elicitation/complete").is_empty());
        page.shutdown();
    });
}

// covers: R1, R5
#[test]
fn a_declined_request_closes_the_page_unopened() {
    run(async {
        let page = alices_page().await;
        let script = always(|| Reply::Result(json!({ "action": "decline" })));
        connect(Setup::new(url_only(), script), async |mut s| {
            let elicitor = for_page(&s.elicitor);
            let answer =
                ask_secret::<DeployKey>(&s.cx, &elicitor, &page, Scope::session("s1"), "Key?")
                    .await;
            assert!(matches!(answer, Ok(Elicited::Declined)), "{answer:?}");
            let params = s.received.next().await.unwrap();
            let path = link_path(&page, &params);
            assert_eq!(http::open(page.local_addr(), &path, None).await.status, 410);
            assert_eq!(outstanding(&elicitor), 0);
        })
        .await
        .assert_valid_elicitation_messages(true);
        page.shutdown();
    });
}

// covers: C7, F6, S1
#[test]
fn refused_before_sending_opens_no_page() {
    run(async {
        let page = alices_page().await;
        let script = always(|| Reply::Result(json!({ "action": "accept" })));
        let wire = connect(Setup::new(form_only(), script), async |s| {
            // F6: no URL mode, and no form instead.
            let elicitor = for_page(&s.elicitor);
            let answer =
                ask_secret::<DeployKey>(&s.cx, &elicitor, &page, Scope::session("s1"), "Key?")
                    .await;
            assert!(
                matches!(answer, Err(AskError::ModeNotSupported(Mode::Url))),
                "{answer:?}"
            );
            assert_eq!(page.waiting(), 0);
            assert_eq!(page.waiting(), 0);
        })
        .await;
        assert!(wire.sent("elicitation/create").is_empty());
        page.shutdown();
    });
}

// covers: S1
#[test]
fn a_policy_that_wants_https_refuses_the_plain_http_page() {
    run(async {
        let page = alices_page().await;
        let script = always(|| Reply::Result(json!({ "action": "accept" })));
        let wire = connect(Setup::new(url_only(), script), async |s| {
            let strict = s
                .elicitor
                .clone()
                .with_url_policy(UrlPolicy::new().allow_loopback_http(false));
            let refused =
                ask_secret::<DeployKey>(&s.cx, &strict, &page, Scope::session("s1"), "Key?").await;
            assert!(
                matches!(
                    &refused,
                    Err(AskError::Refused(elicit::RefusedError::UnsafeUrl(_)))
                ),
                "{refused:?}"
            );
            assert_eq!(page.waiting(), 0);
        })
        .await;
        assert!(wire.sent("elicitation/create").is_empty());
        page.shutdown();
    });
}
