//! `axum/handlers.rs`: the agent's own page for a URL-mode elicitation, over real HTTP
//! on loopback. It shows the form only under its own address, to the user the
//! elicitation was started by (S6), takes one submission from its own page, in the
//! browser that submitted first, after the client's consent (U2), once; and it refuses
//! everything else saying why, with headers that keep the page to itself.
//!
//! Each test starts its own page on 127.0.0.1:0. The requests are written by hand
//! ([`request`]) so that every header a browser sends is set exactly.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::OnceLock;
use std::time::Duration;

use elicit_core::agent::{MemoryStore, Store, UserId};
use elicit_core::axum::{PageTicket, PageWait, SecurePage};
use elicit_core::schema::RequestedSchema;
use elicit_core::{Elicit, Elicited, ValidationErrors};
use serde_json::{json, Value};

/// The bound on any one wait.
const WAIT: Duration = Duration::from_secs(30);

/// A secret only URL mode may ask for, written by hand as `#[derive(Elicit)]` would.
#[derive(Debug, PartialEq)]
pub(crate) struct ApiKey {
    pub(crate) api_key: String,
}

impl Elicit for ApiKey {
    fn requested_schema() -> &'static RequestedSchema {
        static SCHEMA: OnceLock<RequestedSchema> = OnceLock::new();
        SCHEMA.get_or_init(|| {
            RequestedSchema::from_json(&json!({
                "type": "object",
                "properties": {
                    "api_key": { "type": "string", "title": "API key", "minLength": 8 }
                },
                "required": ["api_key"]
            }))
            .expect("a schema")
        })
    }

    fn from_content(content: &Value) -> Result<Self, ValidationErrors> {
        Self::requested_schema().validate(content)?;
        Ok(ApiKey {
            api_key: content["api_key"].as_str().unwrap_or_default().to_owned(),
        })
    }

    fn to_content(&self) -> Value {
        json!({ "api_key": self.api_key })
    }
}

pub(crate) const GOOD: &str = "f.api_key=sk-live-0123456789&elicit-action=accept";
const SHORT: &str = "f.api_key=short&elicit-action=accept";
const MESSAGE: &str = "Paste the API key <of> your deploy account";

pub(crate) fn run<F: std::future::Future<Output = ()>>(test: F) {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime")
        .block_on(async {
            tokio::time::timeout(WAIT * 2, test)
                .await
                .expect("the test finished in time")
        });
}

#[derive(Debug)]
pub(crate) struct Reply {
    pub(crate) status: u16,
    headers: Vec<(String, String)>,
    pub(crate) body: String,
}

impl Reply {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The `name=value` of the `Set-Cookie` header, if any.
    pub(crate) fn cookie(&self) -> Option<String> {
        self.header("set-cookie")
            .and_then(|c| c.split(';').next())
            .map(str::to_owned)
    }
}

/// Sends `method path` with these headers (a `Host` of the server unless given) and
/// this body, on a blocking socket off the runtime's thread; returns the reply.
pub(crate) async fn request(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> Reply {
    let mut text = format!("{method} {path} HTTP/1.1\r\nConnection: close\r\n");
    if !headers.iter().any(|(n, _)| n.eq_ignore_ascii_case("host")) {
        text.push_str(&format!("Host: {addr}\r\n"));
    }
    for (name, value) in headers {
        text.push_str(&format!("{name}: {value}\r\n"));
    }
    text.push_str(&format!("Content-Length: {}\r\n\r\n", body.len()));
    let mut bytes = text.into_bytes();
    bytes.extend_from_slice(body);
    let raw = tokio::task::spawn_blocking(move || {
        let mut stream = TcpStream::connect(addr).expect("the page listens");
        stream.set_read_timeout(Some(WAIT)).expect("a timeout");
        // The server may refuse (and close) before reading all of a large body.
        let _ = stream.write_all(&bytes);
        let mut raw = Vec::new();
        let _ = stream.read_to_end(&mut raw);
        raw
    })
    .await
    .expect("the request ran");
    let raw = String::from_utf8_lossy(&raw).into_owned();
    let (head, body) = raw.split_once("\r\n\r\n").unwrap_or((&raw, ""));
    let mut lines = head.split("\r\n");
    let status = lines
        .next()
        .and_then(|l| l.split(' ').nth(1))
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("not an HTTP reply: {raw:?}"));
    let headers = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_owned(), v.trim().to_owned()))
        .collect();
    Reply {
        status,
        headers,
        body: body.to_owned(),
    }
}

/// What a browser sends when it opens the link.
pub(crate) async fn open(addr: SocketAddr, path: &str, cookie: Option<&str>) -> Reply {
    let mut headers = vec![("Sec-Fetch-Site", "none")];
    if let Some(cookie) = cookie {
        headers.push(("Cookie", cookie));
    }
    request(addr, "GET", path, &headers, b"").await
}

/// What a browser sends when the page's form is submitted from the page.
pub(crate) async fn submit(addr: SocketAddr, path: &str, cookie: &str, body: &str) -> Reply {
    let origin = format!("http://{addr}");
    request(
        addr,
        "POST",
        path,
        &[
            ("Origin", &origin),
            ("Sec-Fetch-Site", "same-origin"),
            ("Content-Type", "application/x-www-form-urlencoded"),
            ("Cookie", cookie),
        ],
        body.as_bytes(),
    )
    .await
}

/// A link for `ApiKey` opened for elicitation `e-1` started by `user`: the link's path,
/// its token and the wait.
fn opened(
    page: &SecurePage,
    user: Option<&UserId>,
    pending_consent: bool,
) -> (String, String, PageWait<ApiKey>) {
    let link = page.link::<ApiKey>(MESSAGE).expect("a link");
    let path = link
        .url()
        .strip_prefix(page.origin())
        .expect("the link is on the page's origin")
        .to_owned();
    let token = path.rsplit('/').next().expect("a token").to_owned();
    let wait = if pending_consent {
        link.open_pending_consent("e-1", user)
    } else {
        link.open("e-1", user)
    }
    .expect("the link opens");
    (path, token, wait)
}

async fn bound() -> SecurePage {
    SecurePage::bind(([127, 0, 0, 1], 0))
        .await
        .expect("a page on loopback")
}

/// The whole flow, and the headers of every page: shown, a wrong answer shown back,
/// the right one handed over once, and the token dead after.
// covers: S1, S3, S6, U5, F3, K1
#[test]
fn a_page_is_shown_corrected_and_answered_once() {
    run(async {
        let store = MemoryStore::new();
        let page = SecurePage::builder()
            .store(store.clone())
            .bind(([127, 0, 0, 1], 0))
            .await
            .expect("a page");
        let addr = page.local_addr();
        let (path, token, wait) = opened(&page, None, false);

        let shown = open(addr, &path, None).await;
        assert_eq!(shown.status, 200, "{}", shown.body);
        let set_cookie = shown.header("set-cookie").expect("a cookie").to_owned();
        let cookie = shown.cookie().expect("a cookie");
        let value = cookie
            .strip_prefix("elicit_page=")
            .expect("the page's cookie");
        assert_eq!(value.len(), 32, "{cookie}");
        assert!(value.bytes().all(|b| b.is_ascii_hexdigit()), "{cookie}");
        assert!(
            set_cookie.contains(&format!("; Path={path};")),
            "{set_cookie}"
        );
        assert!(set_cookie.contains("; HttpOnly") && set_cookie.contains("SameSite=Strict"));
        assert!(!set_cookie.contains("Secure"), "an http page: {set_cookie}");
        assert_headers(&shown);
        assert!(shown.body.contains("<title>Answer the agent</title>"));
        // The agent's message is shown, escaped.
        assert!(shown.body.contains("&lt;of&gt;"), "{}", shown.body);
        assert!(shown.body.contains("type=\"password\""), "{}", shown.body);

        // F3: too short, the same form with the error; the secret is not echoed.
        let wrong = submit(addr, &path, &cookie, SHORT).await;
        assert_eq!(wrong.status, 422, "{}", wrong.body);
        assert!(wrong.body.contains("at least 8"), "{}", wrong.body);
        assert!(!wrong.body.contains("short"));
        assert_headers(&wrong);

        let done = submit(addr, &path, &cookie, GOOD).await;
        assert_eq!(done.status, 200, "{}", done.body);
        assert!(
            done.body.contains("<title>Received</title>"),
            "{}",
            done.body
        );
        assert!(done.body.contains("return to the agent"), "{}", done.body);
        assert_headers(&done);
        let Elicited::Accepted(submitted) = wait.answer().await.expect("answered") else {
            panic!("accepted")
        };
        assert_eq!(submitted.user(), None);
        assert_eq!(submitted.value().api_key, "sk-live-0123456789");

        // The store says it was used, by this browser: every instance sharing it refuses.
        let ticket = store
            .get(&PageTicket::store_key(&token))
            .expect("the store answers")
            .expect("the ticket is remembered");
        assert!(ticket.is_used() && ticket.is_bound_to_a_browser());

        // Replayed, or opened again: gone, saying it was used.
        let replay = submit(addr, &path, &cookie, GOOD).await;
        assert_eq!(replay.status, 410);
        assert!(replay.body.contains("already used"), "{}", replay.body);
        assert_headers(&replay);
        assert_eq!(open(addr, &path, Some(&cookie)).await.status, 410);
        assert_eq!(page.waiting(), 0);
        page.shutdown();
    });
}

/// The headers every page carries: HTML, no script or frame, not cached, no referrer.
fn assert_headers(reply: &Reply) {
    assert_eq!(
        reply.header("content-type"),
        Some("text/html; charset=utf-8")
    );
    let csp = reply.header("content-security-policy").unwrap_or_default();
    assert!(csp.contains("default-src 'none'"), "{csp}");
    assert!(csp.contains("form-action 'self'"), "{csp}");
    assert!(csp.contains("frame-ancestors 'none'"), "{csp}");
    assert_eq!(reply.header("cache-control"), Some("no-store"));
    assert_eq!(reply.header("referrer-policy"), Some("same-origin"));
    assert_eq!(reply.header("x-frame-options"), Some("DENY"));
    assert_eq!(reply.header("x-content-type-options"), Some("nosniff"));
    assert!(reply.body.starts_with("<!doctype html>"), "{}", reply.body);
}

// covers: R1
#[test]
fn decline_and_cancel_on_the_page_reach_the_agent_and_say_so() {
    run(async {
        let page = bound().await;
        let addr = page.local_addr();
        for (action, title, said) in [
            ("decline", "Declined", "You declined. Nothing was sent."),
            ("cancel", "Cancelled", "You cancelled. Nothing was sent."),
        ] {
            let (path, _, wait) = opened(&page, None, false);
            let cookie = open(addr, &path, None).await.cookie().expect("a cookie");
            let body = format!("f.api_key=&elicit-action={action}");
            let reply = submit(addr, &path, &cookie, &body).await;
            assert_eq!(reply.status, 200, "{}", reply.body);
            assert!(reply.body.contains(&format!("<title>{title}</title>")));
            assert!(reply.body.contains(said), "{}", reply.body);
            let answer = wait.answer().await.expect("answered");
            assert_eq!(format!("{answer:?}"), title);
        }
        page.shutdown();
    });
}

/// A request the page cannot be sure comes from its own page, in a browser it showed
/// the form to, is refused with its reason; none of them changes anything.
// covers: S1, S3, S6
#[test]
fn requests_from_elsewhere_are_refused_and_change_nothing() {
    run(async {
        let page = bound().await;
        let addr = page.local_addr();
        let (path, _, wait) = opened(&page, None, false);
        let origin = format!("http://{addr}");
        let form = ("Content-Type", "application/x-www-form-urlencoded");

        // Not the page, or no such token.
        let nothing = open(addr, "/", None).await;
        assert_eq!(nothing.status, 404);
        assert!(
            nothing.body.contains("There is nothing here."),
            "{}",
            nothing.body
        );
        assert_headers(&nothing);
        let unknown = open(addr, &format!("/elicit/{}", "0".repeat(64)), None).await;
        assert_eq!(unknown.status, 404);
        assert!(unknown.body.contains("not valid"), "{}", unknown.body);

        // DNS rebinding: the right path under another host name.
        let rebound = request(addr, "GET", &path, &[("Host", "evil.example")], b"").await;
        assert_eq!(rebound.status, 421, "{}", rebound.body);

        // A cookie the page could not have set is no cookie: a fresh one is set.
        for forged in [
            "elicit_page=00",
            "elicit_page=0123456789abcdef0123456789ABCDEF",
            "elicit_page=0123456789abcdef0123456789abcdeg",
            "elicit_page=0123456789abcdef0123456789abcdef0",
        ] {
            let reply = open(addr, &path, Some(forged)).await;
            assert_eq!(reply.status, 200, "{forged}");
            assert!(reply.cookie().is_some(), "{forged}");
        }
        let shown = open(addr, &path, Some("theme=dark")).await;
        let cookie = shown.cookie().expect("a cookie");
        // Its own cookie is kept, among others, and none is set again.
        let both = format!("theme=dark; {cookie}");
        let again = open(addr, &path, Some(&both)).await;
        assert_eq!(again.status, 200);
        assert_eq!(again.cookie(), None);

        // Another site's form, or a request that names no site at all.
        for headers in [
            vec![("Origin", "http://evil.example"), ("Cookie", &cookie), form],
            vec![
                ("Origin", "http://evil.example"),
                ("Sec-Fetch-Site", "same-origin"),
                ("Cookie", &cookie),
                form,
            ],
            vec![
                ("Origin", &origin),
                ("Sec-Fetch-Site", "cross-site"),
                ("Cookie", &cookie),
                form,
            ],
            vec![("Sec-Fetch-Site", "same-site"), ("Cookie", &cookie), form],
            vec![("Cookie", &cookie), form],
        ] {
            let reply = request(addr, "POST", &path, &headers, GOOD.as_bytes()).await;
            assert_eq!(reply.status, 403, "{headers:?}");
            assert!(reply.body.contains("only be sent from its own page"));
        }
        // Another host name, even with the right origin.
        let misdirected = request(
            addr,
            "POST",
            &path,
            &[
                ("Host", "evil.example"),
                ("Origin", &origin),
                ("Cookie", &cookie),
                form,
            ],
            GOOD.as_bytes(),
        )
        .await;
        assert_eq!(misdirected.status, 421);
        // Not a form.
        let json = request(
            addr,
            "POST",
            &path,
            &[
                ("Origin", &origin),
                ("Content-Type", "application/json"),
                ("Cookie", &cookie),
            ],
            b"{}",
        )
        .await;
        assert_eq!(json.status, 415, "{}", json.body);
        // Without the page's cookie: not opened in this browser.
        let stranger = request(
            addr,
            "POST",
            &path,
            &[("Origin", &origin), form],
            GOOD.as_bytes(),
        )
        .await;
        assert_eq!(stranger.status, 403);
        assert!(stranger.body.contains("not opened in this browser"));
        // Larger than any form's answer.
        let huge = format!("{GOOD}&f.pad={}", "x".repeat(65 * 1024));
        let reply = submit(addr, &path, &cookie, &huge).await;
        assert_eq!(reply.status, 413, "{}", reply.body);

        // Still open: the real answer from the page, without `Origin` (a browser that
        // sends only `Sec-Fetch-Site`), with a charset, goes through.
        assert_eq!(page.waiting(), 1);
        let reply = request(
            addr,
            "POST",
            &path,
            &[
                ("Sec-Fetch-Site", "same-origin"),
                (
                    "Content-Type",
                    "Application/X-WWW-Form-Urlencoded; charset=UTF-8",
                ),
                ("Cookie", &cookie),
            ],
            GOOD.as_bytes(),
        )
        .await;
        assert_eq!(reply.status, 200, "{}", reply.body);
        assert!(matches!(wait.answer().await, Ok(Elicited::Accepted(_))));
        page.shutdown();
    });
}

/// An answer with a long field the form ignores is read: the body limit is far above
/// any form's answer.
// covers: D12
#[test]
fn a_body_within_the_limit_is_read() {
    run(async {
        let page = bound().await;
        let addr = page.local_addr();
        let (path, _, wait) = opened(&page, None, false);
        let cookie = open(addr, &path, None).await.cookie().expect("a cookie");
        let long = format!("{GOOD}&f.note={}", "x".repeat(60 * 1024));
        let reply = submit(addr, &path, &cookie, &long).await;
        assert_eq!(reply.status, 200, "{}", reply.body);
        assert!(matches!(wait.answer().await, Ok(Elicited::Accepted(_))));
        page.shutdown();
    });
}

/// The first browser to submit owns the page: another is refused, when it submits and
/// when it opens the page, and the first one's answer goes through.
// covers: S6
#[test]
fn the_first_submission_binds_the_page_to_its_browser() {
    run(async {
        let page = bound().await;
        let addr = page.local_addr();
        let (path, _, wait) = opened(&page, None, false);
        let first = open(addr, &path, None).await.cookie().expect("a cookie");
        let second = open(addr, &path, None).await.cookie().expect("a cookie");
        assert_ne!(first, second);

        assert_eq!(submit(addr, &path, &first, SHORT).await.status, 422);
        for body in [GOOD, SHORT] {
            let refused = submit(addr, &path, &second, body).await;
            assert_eq!(refused.status, 403, "{}", refused.body);
            assert!(refused.body.contains("answered in another browser"));
        }
        let looked = open(addr, &path, Some(&second)).await;
        assert_eq!(looked.status, 403);
        assert_eq!(open(addr, &path, None).await.status, 403);
        // The first browser sees the form again, and its corrected answer is taken.
        assert_eq!(open(addr, &path, Some(&first)).await.status, 200);
        assert_eq!(submit(addr, &path, &first, SHORT).await.status, 422);
        let done = submit(addr, &path, &first, GOOD).await;
        assert_eq!(done.status, 200, "{}", done.body);
        assert!(matches!(wait.answer().await, Ok(Elicited::Accepted(_))));
        page.shutdown();
    });
}

/// The binding compares the whole cookie, position by position: a cookie made of the
/// same characters in another order is another browser's.
// covers: S6
#[test]
fn a_cookie_of_the_same_characters_in_another_order_is_another_browser() {
    run(async {
        let page = bound().await;
        let addr = page.local_addr();
        let (path, _, wait) = opened(&page, None, false);
        // A browser may bring a cookie of the page's form that it made itself: the
        // page keeps it rather than set one.
        let first = "elicit_page=0123456789abcdef0123456789abcdef";
        let swapped = "elicit_page=1023456789abcdef0123456789abcdef";
        let shown = open(addr, &path, Some(first)).await;
        assert_eq!(shown.status, 200);
        assert_eq!(shown.cookie(), None);
        assert_eq!(submit(addr, &path, first, SHORT).await.status, 422);
        let refused = submit(addr, &path, swapped, GOOD).await;
        assert_eq!(refused.status, 403, "{}", refused.body);
        assert_eq!(open(addr, &path, Some(swapped)).await.status, 403);
        assert_eq!(submit(addr, &path, first, GOOD).await.status, 200);
        assert!(matches!(wait.answer().await, Ok(Elicited::Accepted(_))));
        page.shutdown();
    });
}

/// An instance that neither waits for a page nor routes its answer says the page is
/// gone, and nothing more about it: not that a browser is answering it elsewhere.
// covers: S6
#[test]
fn an_instance_that_cannot_take_the_answer_says_only_that_the_page_is_gone() {
    run(async {
        let store = MemoryStore::new();
        let holder = SecurePage::builder()
            .store(store.clone())
            .bind(([127, 0, 0, 1], 0))
            .await
            .expect("a page");
        let other = SecurePage::builder()
            .store(store.clone())
            .bind(([127, 0, 0, 1], 0))
            .await
            .expect("a page");
        let (path, _, _wait) = opened(&holder, None, false);
        let addr = holder.local_addr();
        let cookie = open(addr, &path, None).await.cookie().expect("a cookie");
        assert_eq!(submit(addr, &path, &cookie, SHORT).await.status, 422);
        for cookie in [None, Some(cookie.as_str())] {
            let reply = open(other.local_addr(), &path, cookie).await;
            assert_eq!(reply.status, 410, "{}", reply.body);
            assert!(!reply.body.contains("another browser"), "{}", reply.body);
        }
        holder.shutdown();
        other.shutdown();
    });
}

/// U2: a submission made before the client's consent is held for it: taken once the
/// consent comes, refused saying why when it does not, and told the page was closed
/// when the client declines meanwhile. A store writer cannot record the consent.
// covers: U2
#[test]
fn a_submission_waits_for_the_clients_consent() {
    run(async {
        let store = MemoryStore::new();
        let page = SecurePage::builder()
            .store(store.clone())
            .bind(([127, 0, 0, 1], 0))
            .await
            .expect("a page");
        let addr = page.local_addr();

        // Held, then taken once the consent is recorded.
        let (path, _, mut wait) = opened(&page, None, true);
        let cookie = open(addr, &path, None).await.cookie().expect("a cookie");
        let held = {
            let (path, cookie) = (path.clone(), cookie.clone());
            tokio::spawn(async move { submit(addr, &path, &cookie, GOOD).await })
        };
        tokio::time::sleep(Duration::from_millis(300)).await;
        wait.record_consent().expect("recorded");
        let reply = held.await.expect("the submission ran");
        assert_eq!(reply.status, 200, "{}", reply.body);
        assert!(matches!(wait.answer().await, Ok(Elicited::Accepted(_))));

        // Never recorded: refused after the grace, the form shown again saying why.
        let (path, token, wait) = opened(&page, None, true);
        let cookie = open(addr, &path, None).await.cookie().expect("a cookie");
        // Someone who can write to the store clears the flag: the page still waits
        // for the consent recorded in this process.
        let (ticket, forged) = rewrite(&store, &token, |ticket| {
            ticket.as_object_mut().expect("an object").remove("p");
        });
        assert!(ticket.awaits_consent());
        assert!(!forged.awaits_consent());
        let refused = submit(addr, &path, &cookie, GOOD).await;
        assert_eq!(refused.status, 409, "{}", refused.body);
        assert!(refused.body.contains("Confirm in your client first"));
        assert!(refused.body.contains("<form"), "{}", refused.body);
        assert!(
            !refused.body.contains("sk-live"),
            "the secret is not echoed"
        );
        assert_headers(&refused);
        assert_eq!(page.waiting(), 1, "still open for the consent");

        // The client declines while the submission is held: closed, and it says so.
        let (path2, _, declined) = opened(&page, None, true);
        let cookie2 = open(addr, &path2, None).await.cookie().expect("a cookie");
        let held = tokio::spawn(async move { submit(addr, &path2, &cookie2, GOOD).await });
        tokio::time::sleep(Duration::from_millis(300)).await;
        drop(declined);
        let reply = held.await.expect("the submission ran");
        assert_eq!(reply.status, 410, "{}", reply.body);
        assert!(
            reply.body.contains("declined or cancelled"),
            "{}",
            reply.body
        );
        drop(wait);
        page.shutdown();
    });
}

/// S6: the page is shown and answered only for the user the elicitation was started
/// by, as the agent's authentication tells; the answer carries that user.
// covers: S6, U3
#[test]
fn only_the_user_who_started_it_opens_the_page() {
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
            .expect("a page");
        let addr = page.local_addr();
        let alice = UserId::new("alice");
        let (path, _, wait) = opened(&page, Some(&alice), false);
        let as_bob = request(addr, "GET", &path, &[("x-user", "bob")], b"").await;
        assert_eq!(as_bob.status, 403, "{}", as_bob.body);
        assert!(as_bob.body.contains("opened for another user"));
        let nobody = request(addr, "GET", &path, &[], b"").await;
        assert_eq!(nobody.status, 401, "{}", nobody.body);
        assert!(nobody.body.contains("Sign in first"));

        let shown = request(addr, "GET", &path, &[("x-user", "alice")], b"").await;
        assert_eq!(shown.status, 200, "{}", shown.body);
        let cookie = shown.cookie().expect("a cookie");
        let origin = format!("http://{addr}");
        let headers = |user| {
            [
                ("Origin", origin.clone()),
                ("Content-Type", "application/x-www-form-urlencoded".into()),
                ("Cookie", cookie.clone()),
                ("x-user", user),
            ]
        };
        let bob = headers("bob".into());
        let bob: Vec<(&str, &str)> = bob.iter().map(|(n, v)| (*n, v.as_str())).collect();
        let refused = request(addr, "POST", &path, &bob, GOOD.as_bytes()).await;
        assert_eq!(refused.status, 403, "{}", refused.body);
        let alice_headers = headers("alice".into());
        let alice_headers: Vec<(&str, &str)> = alice_headers
            .iter()
            .map(|(n, v)| (*n, v.as_str()))
            .collect();
        let done = request(addr, "POST", &path, &alice_headers, GOOD.as_bytes()).await;
        assert_eq!(done.status, 200, "{}", done.body);
        let Elicited::Accepted(submitted) = wait.answer().await.expect("answered") else {
            panic!("accepted")
        };
        assert_eq!(submitted.user(), Some(&alice));
        page.shutdown();
    });
}

/// A page that cannot recognise users opens only the tickets it could have written:
/// the single user's page only that user's, the page of nobody only those of nobody,
/// whatever another instance sharing the store wrote.
// covers: S6
#[test]
fn a_ticket_of_another_user_is_refused_by_a_page_that_cannot_tell_users_apart() {
    run(async {
        let store = MemoryStore::new();
        let alice = UserId::new("alice");
        let single = SecurePage::builder()
            .store(store.clone())
            .unauthenticated_single_user(alice.clone())
            .bind(([127, 0, 0, 1], 0))
            .await
            .expect("a page");
        let nobody = SecurePage::builder()
            .store(store.clone())
            .bind(([127, 0, 0, 1], 0))
            .await
            .expect("a page");

        // Each page's own ticket is shown; the other's, read from the shared store,
        // is refused as another user's.
        let (alices, _, alices_wait) = opened(&single, Some(&alice), false);
        let (anyones, _, anyones_wait) = opened(&nobody, None, false);
        let at = |page: &SecurePage, path: &str| {
            let (addr, path) = (page.local_addr(), path.to_owned());
            async move { open(addr, &path, None).await }
        };
        assert_eq!(at(&single, &alices).await.status, 200);
        assert_eq!(at(&nobody, &anyones).await.status, 200);
        for reply in [at(&single, &anyones).await, at(&nobody, &alices).await] {
            assert_eq!(reply.status, 403, "{}", reply.body);
            assert!(reply.body.contains("opened for another user"));
        }

        // The single user's answer carries that user.
        let addr = single.local_addr();
        let cookie = open(addr, &alices, None).await.cookie().expect("a cookie");
        assert_eq!(submit(addr, &alices, &cookie, GOOD).await.status, 200);
        let Elicited::Accepted(submitted) = alices_wait.answer().await.expect("answered") else {
            panic!("accepted")
        };
        assert_eq!(submitted.user(), Some(&alice));
        drop(anyones_wait);
        single.shutdown();
        nobody.shutdown();
    });
}

/// A `MemoryStore` that counts the reads the page makes.
#[derive(Debug, Clone, Default)]
struct CountingStore {
    inner: MemoryStore<PageTicket>,
    reads: std::sync::Arc<std::sync::atomic::AtomicUsize>,
}

impl CountingStore {
    fn reads(&self) -> usize {
        self.reads.load(std::sync::atomic::Ordering::SeqCst)
    }
}

impl Store<PageTicket> for CountingStore {
    fn insert_new(
        &self,
        key: &str,
        value: PageTicket,
    ) -> Result<bool, elicit_core::agent::StoreError> {
        self.inner.insert_new(key, value)
    }

    fn get(&self, key: &str) -> Result<Option<PageTicket>, elicit_core::agent::StoreError> {
        self.reads.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        self.inner.get(key)
    }

    fn compare_and_swap(
        &self,
        key: &str,
        current: &PageTicket,
        new: Option<PageTicket>,
    ) -> Result<bool, elicit_core::agent::StoreError> {
        self.inner.compare_and_swap(key, current, new)
    }
}

/// Reads of the store while `step` runs.
async fn reads_during<T>(
    store: &CountingStore,
    step: impl std::future::Future<Output = T>,
) -> (T, usize) {
    let before = store.reads();
    let out = step.await;
    (out, store.reads() - before)
}

/// Rewrites the ticket of `token` in `store` as someone who can write to the store
/// would (`change` edits its JSON): the ticket before and after.
pub(crate) fn rewrite(
    store: &dyn Store<PageTicket>,
    token: &str,
    change: impl FnOnce(&mut Value),
) -> (PageTicket, PageTicket) {
    let key = PageTicket::store_key(token);
    let ticket = store.get(&key).expect("the store").expect("the ticket");
    let mut json = serde_json::to_value(&ticket).expect("serializable");
    change(&mut json);
    let changed: PageTicket = serde_json::from_value(json).expect("a ticket");
    assert!(store
        .compare_and_swap(&key, &ticket, Some(changed.clone()))
        .expect("swapped"));
    (ticket, changed)
}

/// A submission on the instance that showed the page starts from the ticket it read
/// then, so it does not read the store again: only when that copy cannot be trusted
/// to be current (taken while the page awaited the client's consent, or the page
/// closed since). A copy is never trusted for what changed since: the page bound to
/// another browser, used, or expired after it was shown is refused as before.
// covers: U2, U5, S3
#[test]
fn a_submission_starts_from_the_ticket_read_when_the_page_was_shown_never_past_a_change() {
    run(async {
        let store = CountingStore::default();
        let page = SecurePage::builder()
            .store(store.clone())
            .ttl(Duration::from_secs(2))
            .bind(([127, 0, 0, 1], 0))
            .await
            .expect("a page");
        let addr = page.local_addr();

        // Shown, then answered: no read.
        let (path, _, wait) = opened(&page, None, false);
        let cookie = open(addr, &path, None).await.cookie().expect("a cookie");
        let (done, reads) = reads_during(&store, submit(addr, &path, &cookie, GOOD)).await;
        assert_eq!(done.status, 200, "{}", done.body);
        assert_eq!(reads, 0, "the copy from the page's GET");
        assert!(matches!(wait.answer().await, Ok(Elicited::Accepted(_))));

        // Corrected: the copy the binding wrote, no read either.
        let (path, _, wait) = opened(&page, None, false);
        let cookie = open(addr, &path, None).await.cookie().expect("a cookie");
        assert_eq!(submit(addr, &path, &cookie, SHORT).await.status, 422);
        let (done, reads) = reads_during(&store, submit(addr, &path, &cookie, GOOD)).await;
        assert_eq!(done.status, 200, "{}", done.body);
        assert_eq!(reads, 0, "the copy the binding wrote");
        assert!(matches!(wait.answer().await, Ok(Elicited::Accepted(_))));

        // Shown while the page awaited the consent: the submission reads the store.
        let (path, _, mut wait) = opened(&page, None, true);
        let cookie = open(addr, &path, None).await.cookie().expect("a cookie");
        wait.record_consent().expect("recorded");
        let (done, reads) = reads_during(&store, submit(addr, &path, &cookie, GOOD)).await;
        assert_eq!(done.status, 200, "{}", done.body);
        assert_eq!(reads, 1, "a copy awaiting the consent is not kept");
        assert!(matches!(wait.answer().await, Ok(Elicited::Accepted(_))));

        // Closed after it was shown: read, and gone.
        let (path, _, wait) = opened(&page, None, false);
        let cookie = open(addr, &path, None).await.cookie().expect("a cookie");
        drop(wait);
        let (gone, reads) = reads_during(&store, submit(addr, &path, &cookie, GOOD)).await;
        assert_eq!(gone.status, 410, "{}", gone.body);
        assert_eq!(reads, 1, "a closed page's copy is dropped");

        // Bound to another browser in the store after it was shown (as another
        // instance does): the swap to used fails on the copy, the ticket is read
        // again, and this browser is refused.
        let (path, token, wait) = opened(&page, None, false);
        let cookie = open(addr, &path, None).await.cookie().expect("a cookie");
        rewrite(&store, &token, |ticket| ticket["b"] = json!("0".repeat(32)));
        let refused = submit(addr, &path, &cookie, GOOD).await;
        assert_eq!(refused.status, 403, "{}", refused.body);
        assert!(refused.body.contains("another browser"), "{}", refused.body);
        assert_eq!(page.waiting(), 1, "nothing was taken");

        drop(wait);

        // Used in the store after it was shown (as another instance marks it): gone.
        let (path, token, wait) = opened(&page, None, false);
        let cookie = open(addr, &path, None).await.cookie().expect("a cookie");
        rewrite(&store, &token, |ticket| ticket["d"] = json!(true));
        let used = submit(addr, &path, &cookie, GOOD).await;
        assert_eq!(used.status, 410, "{}", used.body);
        assert!(used.body.contains("already used"), "{}", used.body);
        assert_eq!(page.waiting(), 1, "nothing was taken");
        drop(wait);

        // Expired after it was shown: refused as expired, although the copy is unused.
        let (path, _, wait) = opened(&page, None, false);
        let cookie = open(addr, &path, None).await.cookie().expect("a cookie");
        tokio::time::sleep(Duration::from_millis(2_200)).await;
        let expired = submit(addr, &path, &cookie, GOOD).await;
        assert_eq!(expired.status, 410, "{}", expired.body);
        assert!(expired.body.contains("expired"), "{}", expired.body);
        assert_eq!(page.waiting(), 1, "nothing was taken");
        drop(wait);
        page.shutdown();
    });
}

/// The copies are bounded: a process keeps the tickets of the last 1,024 pages it
/// showed, a page shown again counting as shown last; the submission of a page shown
/// before those reads the store, and is answered all the same.
// covers: D12
#[test]
fn the_tickets_kept_from_shown_pages_are_bounded() {
    const KEPT: usize = 1024;
    run(async {
        let store = CountingStore::default();
        let page = SecurePage::builder()
            .store(store.clone())
            .bind(([127, 0, 0, 1], 0))
            .await
            .expect("a page");
        let addr = page.local_addr();
        let mut pages = Vec::new();
        for _ in 0..KEPT {
            let (path, _, wait) = opened(&page, None, false);
            let cookie = open(addr, &path, None).await.cookie().expect("a cookie");
            pages.push((path, cookie, wait));
        }
        // The first page shown again: now the newest. One more page: the second,
        // now the oldest, is dropped.
        let (first, second, third) = (&pages[0], &pages[1], &pages[2]);
        assert_eq!(open(addr, &first.0, Some(&first.1)).await.status, 200);
        let (path, _, wait) = opened(&page, None, false);
        let cookie = open(addr, &path, None).await.cookie().expect("a cookie");
        for ((path, cookie), kept) in [
            ((&first.0, &first.1), true),
            ((&second.0, &second.1), false),
            ((&third.0, &third.1), true),
            ((&path, &cookie), true),
        ] {
            let (done, reads) = reads_during(&store, submit(addr, path, cookie, GOOD)).await;
            assert_eq!(done.status, 200, "{}", done.body);
            assert_eq!(reads, usize::from(!kept), "{path}: kept {kept}");
        }
        drop(wait);
        drop(pages);
        page.shutdown();
    });
}
