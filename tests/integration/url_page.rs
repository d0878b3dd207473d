//! `elicit::axum::SecurePage`, the agent's own page for URL-mode elicitations, over
//! real HTTP on loopback: what it serves, what it refuses, and that a refusal changes
//! nothing. Each test starts its own server on 127.0.0.1:0 and stops it; every wait is
//! bounded. The requests are written by hand ([`http`]) so that each header a browser
//! would send (`Host`, `Origin`, `Sec-Fetch-Site`, `Cookie`) is set exactly.
#![cfg(feature = "axum")]

use std::future::Future;
use std::time::Duration;

use elicit::agent::{MemoryStore, Store, StoreError, UserId};
use elicit::axum::{PageError, PageTicket, PageWait, SecurePage};
use elicit::{Elicit, Elicited};

/// The bound on any one wait.
const WAIT: Duration = Duration::from_secs(30);

/// A form for the agent's own page: it asks for a secret, which only URL mode may.
#[derive(Elicit, Debug, PartialEq)]
#[elicit(url_mode)]
pub(crate) struct DeployKey {
    /// The API key of your deploy account
    #[elicit(min_length = 8)]
    pub(crate) api_key: String,
    /// Region
    #[elicit(min_length = 2, max_length = 10)]
    pub(crate) region: String,
}

pub(crate) fn run<F: Future<Output = ()>>(test: F) {
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

/// A minimal HTTP/1.1 client: one request per connection, every header as given.
pub(crate) mod http {
    use std::net::SocketAddr;

    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    use tokio::net::TcpStream;

    use super::WAIT;

    #[derive(Debug)]
    pub(crate) struct Reply {
        pub(crate) status: u16,
        pub(crate) headers: Vec<(String, String)>,
        pub(crate) body: String,
    }

    impl Reply {
        pub(crate) fn header(&self, name: &str) -> Option<&str> {
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

    /// Sends `method path` with these headers (a `Host` of the server unless given)
    /// and this body; returns the reply.
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
        let exchange = async {
            let mut stream = TcpStream::connect(addr).await.expect("the page listens");
            stream.write_all(text.as_bytes()).await.expect("written");
            stream.write_all(body).await.expect("written");
            let mut raw = Vec::new();
            // The server may close before reading a refused body: what came is the reply.
            let _ = stream.read_to_end(&mut raw).await;
            raw
        };
        let raw = tokio::time::timeout(WAIT, exchange)
            .await
            .expect("the page answered in time");
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
}

/// A started page and one open link for `DeployKey`, bound to elicitation `e-1`,
/// started by no user (a page that authenticates nobody opens only for such): the
/// page, the link's path, and the wait.
pub(crate) async fn opened(page: &SecurePage) -> (String, PageWait<DeployKey>) {
    opened_for(page, None).await
}

/// The same, for an elicitation started by `user`.
pub(crate) async fn opened_for(
    page: &SecurePage,
    user: Option<&UserId>,
) -> (String, PageWait<DeployKey>) {
    let link = page
        .link::<DeployKey>("Paste the API key of your deploy account")
        .expect("a link");
    let url = link.url().to_owned();
    let wait = link.open("e-1", user).expect("the link opens");
    let path = url
        .strip_prefix(page.origin())
        .expect("the link is on the page's origin")
        .to_owned();
    (path, wait)
}

const GOOD: &str = "f.api_key=sk-live-0123456789&f.region=eu&elicit-action=accept";

/// The path's token is unguessable and the only data in the link.
// covers: S1
#[test]
fn the_link_carries_only_a_256_bit_token() {
    run(async {
        let page = SecurePage::bind(([127, 0, 0, 1], 0)).await.unwrap();
        let a = page.link::<DeployKey>("m").unwrap();
        let b = page.link::<DeployKey>("m").unwrap();
        let token = a
            .url()
            .strip_prefix(&format!("http://{}/elicit/", page.local_addr()))
            .expect("the link is the page's origin, /elicit/ and the token");
        assert_eq!(token.len(), 64);
        assert!(token
            .bytes()
            .all(|c| matches!(c, b'0'..=b'9' | b'a'..=b'f')));
        assert!(!a.url().contains('?') && !a.url().contains('#'));
        assert_ne!(a.url(), b.url());
        page.shutdown();
    });
}

#[test]
fn only_a_loopback_address_is_served() {
    run(async {
        let error = SecurePage::bind(([0, 0, 0, 0], 0)).await.unwrap_err();
        assert_eq!(error.kind(), std::io::ErrorKind::InvalidInput);
        assert!(error.to_string().contains("loopback"), "{error}");
    });
}

/// The whole flow: open, a wrong answer shown back with its errors, the right answer
/// handed over typed with the user the page was bound to, then the token is dead.
// covers: F3, F5, F6, S1, S6, U3
#[test]
fn a_submitted_page_hands_over_the_typed_value_once() {
    run(async {
        let page = SecurePage::bind(([127, 0, 0, 1], 0)).await.unwrap();
        let addr = page.local_addr();
        let (path, wait) = opened(&page).await;

        let shown = http::open(addr, &path, None).await;
        assert_eq!(shown.status, 200, "{}", shown.body);
        let cookie = shown
            .cookie()
            .expect("the page gives the browser its cookie");
        let set_cookie = shown.header("set-cookie").unwrap();
        for part in ["HttpOnly", "SameSite=Strict", &format!("Path={path}")] {
            assert!(set_cookie.contains(part), "{set_cookie}");
        }
        let csp = shown.header("content-security-policy").unwrap();
        assert!(csp.contains("default-src 'none'") && csp.contains("form-action 'self'"));
        assert_eq!(shown.header("cache-control"), Some("no-store"));
        assert_eq!(shown.header("referrer-policy"), Some("same-origin"));
        assert_eq!(shown.header("x-frame-options"), Some("DENY"));
        assert!(shown
            .body
            .contains("Paste the API key of your deploy account"));
        // The secret is typed into a password field.
        assert!(shown.body.contains(r#"type="password""#), "{}", shown.body);
        assert!(!shown.body.contains("<script"));

        // F3: too short, the same page with the error beside the field, and the key
        // the user typed is not written back into it.
        let wrong = http::submit(
            addr,
            &path,
            &cookie,
            "f.api_key=short&f.region=eu&elicit-action=accept",
        )
        .await;
        assert_eq!(wrong.status, 422);
        assert!(wrong.body.contains("at least 8"), "{}", wrong.body);
        assert!(!wrong.body.contains("short"), "the secret is not echoed");

        let done = http::submit(addr, &path, &cookie, GOOD).await;
        assert_eq!(done.status, 200, "{}", done.body);
        assert!(done.body.contains("Received"));
        let Elicited::Accepted(submitted) = wait.answer().await.unwrap() else {
            panic!("accepted")
        };
        // S6: the page authenticates nobody, so the submission carries no user.
        assert_eq!(submitted.user(), None);
        assert_eq!(
            submitted.into_value(),
            DeployKey {
                api_key: "sk-live-0123456789".into(),
                region: "eu".into()
            }
        );

        // Replayed, by the same browser or by opening the link again: refused.
        assert_eq!(http::submit(addr, &path, &cookie, GOOD).await.status, 410);
        assert_eq!(http::open(addr, &path, Some(&cookie)).await.status, 410);
        assert_eq!(page.waiting(), 0);
        page.shutdown();
    });
}

/// Decline and cancel on the page are answers too.
// covers: R1, K1
#[test]
fn decline_and_cancel_on_the_page_reach_the_agent() {
    run(async {
        let page = SecurePage::bind(([127, 0, 0, 1], 0)).await.unwrap();
        let addr = page.local_addr();
        for (action, expected) in [("decline", "Declined"), ("cancel", "Cancelled")] {
            let (path, wait) = opened(&page).await;
            let cookie = http::open(addr, &path, None).await.cookie().unwrap();
            let body = format!("f.api_key=&elicit-action={action}");
            let reply = http::submit(addr, &path, &cookie, &body).await;
            assert_eq!(reply.status, 200, "{}", reply.body);
            let answer = wait.answer().await.unwrap();
            assert_eq!(format!("{answer:?}"), expected);
        }
        page.shutdown();
    });
}

/// Every hostile request is refused, and the page still takes the real answer after.
// covers: S1, S6
#[test]
fn hostile_requests_change_nothing() {
    run(async {
        let page = SecurePage::bind(([127, 0, 0, 1], 0)).await.unwrap();
        let addr = page.local_addr();
        let (path, wait) = opened(&page).await;
        let origin = format!("http://{addr}");
        let form = ("Content-Type", "application/x-www-form-urlencoded");

        // Unknown token, another path, another method.
        let unknown = format!("/elicit/{}", "0".repeat(64));
        assert_eq!(http::open(addr, &unknown, None).await.status, 404);
        assert_eq!(http::open(addr, "/", None).await.status, 404);
        assert_eq!(
            http::open(addr, &format!("{path}/x"), None).await.status,
            404
        );
        let put = http::request(addr, "PUT", &path, &[], b"").await;
        assert_eq!(put.status, 405);

        // DNS rebinding: the right path under another host name.
        let rebound = http::request(addr, "GET", &path, &[("Host", "evil.example")], b"").await;
        assert_eq!(rebound.status, 421);

        let cookie = http::open(addr, &path, None).await.cookie().unwrap();
        // Looking binds nothing: another browser sees the page too, until one submits.
        let other = http::open(addr, &path, None).await;
        assert_eq!(other.status, 200, "{}", other.body);
        let other = other.cookie().expect("a cookie of its own");
        assert_ne!(other, cookie);
        // A cookie the page never set is no cookie: a fresh one is set.
        let forged = http::open(addr, &path, Some("elicit_page=00")).await;
        assert_eq!(forged.status, 200);
        assert!(forged.cookie().is_some());

        let cross_site: [&[(&str, &str)]; 5] = [
            // A page of another site posting to the link.
            &[("Origin", "http://evil.example"), form, ("Cookie", &cookie)],
            &[("Sec-Fetch-Site", "cross-site"), form, ("Cookie", &cookie)],
            // Same origin claimed, but the browser says it came from elsewhere.
            &[
                ("Origin", &origin),
                ("Sec-Fetch-Site", "same-site"),
                form,
                ("Cookie", &cookie),
            ],
            // Neither header: not a browser on this page.
            &[form, ("Cookie", &cookie)],
            // `null` origin (a sandboxed frame, a data: URL).
            &[("Origin", "null"), form, ("Cookie", &cookie)],
        ];
        for headers in cross_site {
            let reply = http::request(addr, "POST", &path, headers, GOOD.as_bytes()).await;
            assert_eq!(reply.status, 403, "{headers:?}: {}", reply.body);
        }
        // Same origin but without the browser's cookie, or with a wrong one.
        let no_cookie = http::request(
            addr,
            "POST",
            &path,
            &[("Origin", &origin), ("Sec-Fetch-Site", "same-origin"), form],
            GOOD.as_bytes(),
        )
        .await;
        assert_eq!(no_cookie.status, 403);
        let wrong_cookie = http::submit(addr, &path, "elicit_page=ab", GOOD).await;
        assert_eq!(wrong_cookie.status, 403);
        // Not a form.
        let json = http::request(
            addr,
            "POST",
            &path,
            &[
                ("Origin", &origin),
                ("Content-Type", "application/json"),
                ("Cookie", &cookie),
            ],
            br#"{"api_key":"x"}"#,
        )
        .await;
        assert_eq!(json.status, 415);
        // Too large.
        let big = format!("f.api_key={}", "a".repeat(70_000));
        assert_eq!(http::submit(addr, &path, &cookie, &big).await.status, 413);
        // A hostile body: markup in the fields is shown back escaped, never as markup.
        let markup = http::submit(
            addr,
            &path,
            &cookie,
            "f.api_key=x&f.region=%3Cscript%3Ealert(1)%3C%2Fscript%3E&elicit-action=accept",
        )
        .await;
        assert_eq!(markup.status, 422);
        assert!(!markup.body.contains("<script>alert(1)"), "{}", markup.body);
        // That first submission bound the page to its browser: the other one is
        // refused now, looking or submitting.
        assert_eq!(http::open(addr, &path, Some(&other)).await.status, 403);
        let late = http::submit(addr, &path, &other, GOOD).await;
        assert_eq!(late.status, 403, "{}", late.body);
        assert!(late.body.contains("another browser"), "{}", late.body);

        // Nothing was handed over, and the real answer still goes through.
        assert_eq!(page.waiting(), 1);
        assert_eq!(http::submit(addr, &path, &cookie, GOOD).await.status, 200);
        assert!(matches!(wait.answer().await, Ok(Elicited::Accepted(_))));
        page.shutdown();
    });
}

/// A link past its expiry is refused, and the agent's wait ends.
// covers: S1
#[test]
fn an_expired_link_is_refused_and_the_wait_ends() {
    run(async {
        let page = SecurePage::builder()
            .ttl(Duration::from_millis(200))
            .bind(([127, 0, 0, 1], 0))
            .await
            .unwrap();
        let addr = page.local_addr();
        let (path, wait) = opened(&page).await;
        let cookie = http::open(addr, &path, None).await.cookie().unwrap();
        assert_eq!(wait.answer().await.unwrap_err(), PageError::Expired);
        // The wait is gone with its page.
        assert_eq!(http::submit(addr, &path, &cookie, GOOD).await.status, 410);
        page.shutdown();
    });
}

/// A wait the agent drops closes its page.
#[test]
fn a_dropped_wait_closes_the_page() {
    run(async {
        let page = SecurePage::bind(([127, 0, 0, 1], 0)).await.unwrap();
        let addr = page.local_addr();
        let (path, wait) = opened(&page).await;
        let cookie = http::open(addr, &path, None).await.cookie().unwrap();
        drop(wait);
        assert_eq!(http::submit(addr, &path, &cookie, GOOD).await.status, 410);
        assert_eq!(http::open(addr, &path, Some(&cookie)).await.status, 410);
        page.shutdown();
    });
}

/// Two instances of an agent sharing one store: a token used on one is used for both.
#[test]
fn a_shared_store_keeps_a_token_used_once_across_instances() {
    run(async {
        let store = MemoryStore::<PageTicket>::new();
        let first = SecurePage::builder()
            .store(store.clone())
            .bind(([127, 0, 0, 1], 0))
            .await
            .unwrap();
        let second = SecurePage::builder()
            .store(store.clone())
            .bind(([127, 0, 0, 1], 0))
            .await
            .unwrap();
        let (path, wait) = opened(&first).await;
        let cookie = http::open(first.local_addr(), &path, None)
            .await
            .cookie()
            .unwrap();
        // The second instance knows the token (shared store) but has no form waiting
        // for it: refused, and the first still takes the answer.
        let other = http::submit(second.local_addr(), &path, &cookie, GOOD).await;
        assert_ne!(other.status, 200);
        assert_eq!(
            http::submit(first.local_addr(), &path, &cookie, GOOD)
                .await
                .status,
            200
        );
        assert!(matches!(wait.answer().await, Ok(Elicited::Accepted(_))));
        // Used in the store, so used for every instance.
        let ticket = store
            .get(path.trim_start_matches("/elicit/"))
            .unwrap()
            .unwrap();
        assert!(ticket.is_used());
        assert_eq!(ticket.elicitation_id(), "e-1");
        assert_eq!(ticket.user(), None);
        first.shutdown();
        second.shutdown();
    });
}

/// A store that fails: nothing is served, nothing passes.
#[derive(Debug)]
struct Broken;

impl Store<PageTicket> for Broken {
    fn insert_new(&self, _: &str, _: PageTicket) -> Result<bool, StoreError> {
        Err(StoreError::new("down"))
    }
    fn get(&self, _: &str) -> Result<Option<PageTicket>, StoreError> {
        Err(StoreError::new("down"))
    }
    fn compare_and_swap(
        &self,
        _: &str,
        _: &PageTicket,
        _: Option<PageTicket>,
    ) -> Result<bool, StoreError> {
        Err(StoreError::new("down"))
    }
}

#[test]
fn a_failing_store_opens_no_page() {
    run(async {
        let page = SecurePage::builder()
            .store(Broken)
            .bind(([127, 0, 0, 1], 0))
            .await
            .unwrap();
        let link = page.link::<DeployKey>("m").unwrap();
        let path = link.url().strip_prefix(page.origin()).unwrap().to_owned();
        assert!(matches!(link.open("e-1", None), Err(PageError::Store(_))));
        assert_eq!(page.waiting(), 0);
        assert_eq!(http::open(page.local_addr(), &path, None).await.status, 503);
        page.shutdown();
    });
}

/// The opt-in that lets a form ask for a secret also keeps it out of form mode.
// covers: F5, F6
#[test]
fn a_url_mode_form_is_never_sent_as_a_form() {
    use elicit::agent::{ConnectionId, RefusedError};
    use elicit::{ElicitationCapabilities, Elicitor, Scope};
    let caps = ElicitationCapabilities::from_json(Some(&serde_json::json!({ "form": {} })));
    let elicitor = Elicitor::new(caps, ConnectionId::new());
    let refused = elicitor
        .form::<DeployKey>(Scope::session("s"), "key?")
        .unwrap_err();
    let RefusedError::SecretInForm(findings) = &refused else {
        panic!("{refused:?}")
    };
    assert!(findings
        .iter()
        .any(|f| f.property.as_deref() == Some("api_key")));
    assert!(refused.to_string().contains("use URL mode"));
    const { assert!(DeployKey::URL_MODE) };
}

/// Closed pages are remembered within a bound, so the store does not grow forever; an
/// older link is still refused, as not valid.
#[test]
fn closed_pages_are_forgotten_beyond_the_bound() {
    run(async {
        let store = MemoryStore::<PageTicket>::new();
        let page = SecurePage::builder()
            .store(store.clone())
            .remember_used(2)
            .bind(([127, 0, 0, 1], 0))
            .await
            .unwrap();
        let mut paths = Vec::new();
        for _ in 0..5 {
            let (path, wait) = opened(&page).await;
            drop(wait);
            paths.push(path);
        }
        assert_eq!(store.len(), 2);
        let addr = page.local_addr();
        assert_eq!(http::open(addr, &paths[0], None).await.status, 404);
        assert_eq!(http::open(addr, &paths[4], None).await.status, 410);
        page.shutdown();
    });
}

/// Shutting the server down ends the waits at once.
#[test]
fn a_shutdown_ends_the_waits() {
    run(async {
        let page = SecurePage::bind(([127, 0, 0, 1], 0)).await.unwrap();
        let (_, wait) = opened(&page).await;
        page.shutdown();
        assert_eq!(wait.answer().await.unwrap_err(), PageError::Closed);
    });
}

/// With the agent's own authentication, only the user who started the elicitation can
/// see and submit the page, even holding the link and the browser's cookie.
// covers: S6
#[test]
fn with_authentication_only_the_user_who_asked_can_use_the_page() {
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
        let (path, wait) = opened_for(&page, Some(&UserId::new("alice"))).await;
        let as_user = |user: &'static str| ("X-User", user);

        let anonymous = http::open(addr, &path, None).await;
        assert_eq!(anonymous.status, 401, "{}", anonymous.body);
        let mallory = http::request(addr, "GET", &path, &[as_user("mallory")], b"").await;
        assert_eq!(mallory.status, 403);
        // Refusals bind nothing: alice is still the first browser.
        let alice = http::request(addr, "GET", &path, &[as_user("alice")], b"").await;
        assert_eq!(alice.status, 200, "{}", alice.body);
        let cookie = alice.cookie().unwrap();

        let origin = format!("http://{addr}");
        let post = |user: &'static str| {
            let origin = origin.clone();
            let cookie = cookie.clone();
            let path = path.clone();
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
                        as_user(user),
                    ],
                    GOOD.as_bytes(),
                )
                .await
            }
        };
        // Mallory with alice's link and alice's cookie: refused.
        assert_eq!(post("mallory").await.status, 403);
        assert_eq!(page.waiting(), 1);
        assert_eq!(post("alice").await.status, 200);
        let Elicited::Accepted(submitted) = wait.answer().await.unwrap() else {
            panic!("accepted")
        };
        assert_eq!(submitted.user(), Some(&UserId::new("alice")));
        page.shutdown();
    });
}
