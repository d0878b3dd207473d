//! The secure page on its own, with no MCP or ACP connection and no `Elicitor`: a web
//! application asks for a secret on it (`PageLink::open_standalone`), the page mints
//! the `elicitationId`, and the value comes back typed. Over real HTTP on loopback;
//! each test starts its own server on 127.0.0.1:0 and stops it, every wait bounded.
#![cfg(feature = "axum")]

use std::collections::HashSet;

use elicit::agent::UserId;
use elicit::axum::{PageError, SecurePage};
use elicit::Elicited;

use super::url_page::{http, run, DeployKey};

const GOOD: &str = "f.api_key=sk-live-0123456789&f.region=eu&elicit-action=accept";

/// The path of a link, on the page's origin.
fn path_of(page: &SecurePage, url: &str) -> String {
    url.strip_prefix(page.origin())
        .expect("the link is on the page's origin")
        .to_owned()
}

/// One person's own tool: the page takes its single user, the id is minted by the
/// page, the form is filled in a browser (a wrong value refused first), and the value
/// comes back typed with that user; the link is dead after.
// covers: F3, S6, U4
#[test]
fn a_standalone_page_is_filled_in_without_an_elicitor() {
    run(async {
        let alice = UserId::new("alice");
        let page = SecurePage::builder()
            .unauthenticated_single_user(alice.clone())
            .bind(([127, 0, 0, 1], 0))
            .await
            .unwrap();
        let addr = page.local_addr();
        let link = page
            .link::<DeployKey>("Paste the API key of your deploy account")
            .unwrap();
        let path = path_of(&page, link.url());
        let wait = link.open_standalone(Some(&alice)).expect("the page opens");

        // U4: 128 bits from the system's random source, hex.
        let id = wait.elicitation_id().to_owned();
        assert_eq!(id.len(), 32, "{id}");
        assert!(id.bytes().all(|c| matches!(c, b'0'..=b'9' | b'a'..=b'f')));
        assert!(!path.contains(&id), "the id is not in the link");

        let shown = http::open(addr, &path, None).await;
        assert_eq!(shown.status, 200, "{}", shown.body);
        assert!(shown
            .body
            .contains("Paste the API key of your deploy account"));
        let cookie = shown
            .cookie()
            .expect("the page gives the browser its cookie");

        let wrong = http::submit(
            addr,
            &path,
            &cookie,
            "f.api_key=short&f.region=eu&elicit-action=accept",
        )
        .await;
        assert_eq!(wrong.status, 422, "{}", wrong.body);
        assert!(wrong.body.contains("at least 8"), "{}", wrong.body);

        let done = http::submit(addr, &path, &cookie, GOOD).await;
        assert_eq!(done.status, 200, "{}", done.body);
        let Elicited::Accepted(submitted) = wait.answer().await.unwrap() else {
            panic!("accepted")
        };
        assert_eq!(submitted.user(), Some(&alice));
        assert_eq!(
            submitted.into_value(),
            DeployKey {
                api_key: "sk-live-0123456789".into(),
                region: "eu".into()
            }
        );
        assert_eq!(http::submit(addr, &path, &cookie, GOOD).await.status, 410);
        assert_eq!(page.waiting(), 0);
        page.shutdown();
    });
}

/// A web application with its own login: only the user it opened the page for can
/// submit it; each standalone page gets an id of its own.
// covers: S6, U4
#[test]
fn a_standalone_page_behind_a_login_takes_only_its_user() {
    run(async {
        let page = SecurePage::builder()
            .authenticate(|headers| {
                headers
                    .get("x-user")
                    .and_then(|v| v.to_str().ok())
                    .map(UserId::new)
            })
            .bind(([127, 0, 0, 1], 0))
            .await
            .unwrap();
        let addr = page.local_addr();
        let alice = UserId::new("alice");

        let mut ids = HashSet::new();
        for _ in 0..16 {
            let wait = page
                .link::<DeployKey>("m")
                .unwrap()
                .open_standalone(Some(&alice))
                .unwrap();
            assert!(ids.insert(wait.elicitation_id().to_owned()));
        }

        let link = page.link::<DeployKey>("Your deploy key").unwrap();
        let path = path_of(&page, link.url());
        let wait = link.open_standalone(Some(&alice)).unwrap();
        assert!(!ids.contains(wait.elicitation_id()));

        let mallory = http::request(addr, "GET", &path, &[("X-User", "mallory")], b"").await;
        assert_eq!(mallory.status, 403);
        let shown = http::request(addr, "GET", &path, &[("X-User", "alice")], b"").await;
        assert_eq!(shown.status, 200, "{}", shown.body);
        let cookie = shown.cookie().unwrap();
        let origin = format!("http://{addr}");
        let post = |user: &'static str| {
            let (origin, cookie, path) = (origin.clone(), cookie.clone(), path.clone());
            async move {
                http::request(
                    addr,
                    "POST",
                    &path,
                    &[
                        ("Origin", &origin),
                        ("Sec-Fetch-Site", "same-origin"),
                        ("Content-Type", "application/x-www-form-urlencoded"),
                        ("Cookie", &cookie),
                        ("X-User", user),
                    ],
                    GOOD.as_bytes(),
                )
                .await
            }
        };
        assert_eq!(post("mallory").await.status, 403);
        assert_eq!(post("alice").await.status, 200);
        let Elicited::Accepted(submitted) = wait.answer().await.unwrap() else {
            panic!("accepted")
        };
        assert_eq!(submitted.user(), Some(&alice));
        page.shutdown();
    });
}

/// What the page cannot verify it does not open, standalone or not; the id given to
/// `open` is the one the wait reports; decline on a standalone page is an answer.
// covers: S6, R1
#[test]
fn a_standalone_page_refuses_a_user_it_cannot_verify_and_reports_decline() {
    run(async {
        let page = SecurePage::bind(([127, 0, 0, 1], 0)).await.unwrap();
        let addr = page.local_addr();
        let refused = page
            .link::<DeployKey>("m")
            .unwrap()
            .open_standalone(Some(&UserId::new("alice")))
            .unwrap_err();
        assert!(
            matches!(refused, PageError::UserNotVerifiable(_)),
            "{refused}"
        );
        assert!(refused.to_string().contains("see S6 ("), "{refused}");
        assert_eq!(page.waiting(), 0);

        let given = page
            .link::<DeployKey>("m")
            .unwrap()
            .open("e-7", None)
            .unwrap();
        assert_eq!(given.elicitation_id(), "e-7");
        drop(given);

        let link = page.link::<DeployKey>("m").unwrap();
        let path = path_of(&page, link.url());
        let wait = link.open_standalone(None).unwrap();
        let cookie = http::open(addr, &path, None).await.cookie().unwrap();
        let reply = http::submit(addr, &path, &cookie, "f.api_key=&elicit-action=decline").await;
        assert_eq!(reply.status, 200, "{}", reply.body);
        assert!(matches!(wait.answer().await.unwrap(), Elicited::Declined));
        page.shutdown();
    });
}
