//! `elicit::axum::SecurePage` mounted in a server's own axum application: the page's
//! router nested under `/elicit` beside the application's own routes (with a state of
//! its own), for the public origin `https://agent.example.com`, served on 127.0.0.1 by
//! each test and stopped by it. The requests name `Host: agent.example.com` as a
//! browser behind the server's TLS proxy would, so every guarantee of the loopback page
//! is checked against the public origin: the link, one-time use, expiry, cross-site and
//! misaddressed requests, forwarded headers (ignored unless trusted), S6 with
//! `authenticate`, and the headers on every page. The requests are written by hand
//! (`url_page::http`) so that each header is exactly what the test says.
#![cfg(feature = "axum")]

use std::net::SocketAddr;
use std::time::Duration;

use axum::extract::State;
use axum::routing::get;
use axum::Router;
use elicit::agent::UserId;
use elicit::axum::{MountError, PageError, PageWait, SecurePage, SecurePageBuilder};
use elicit::Elicited;

use super::url_page::http::{self, Reply};
use super::url_page::{run, DeployKey};

const HOST: &str = "agent.example.com";
const ORIGIN: &str = "https://agent.example.com";
const GOOD: &str = "f.api_key=sk-live-0123456789&f.region=eu&elicit-action=accept";
const FORM: (&str, &str) = ("Content-Type", "application/x-www-form-urlencoded");

/// The application's own state: the page's router fits an app of any state.
#[derive(Clone)]
struct AppState {
    name: &'static str,
}

/// The server's application, serving on 127.0.0.1 until dropped.
struct App {
    addr: SocketAddr,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for App {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// The application: its own routes and fallback, and the page nested at `nest`.
fn app(page: &SecurePage, nest: &str) -> Router {
    Router::new()
        .route(
            "/",
            get(|State(state): State<AppState>| async move { state.name }),
        )
        .route("/health", get(|| async { "ok" }))
        .nest(nest, page.router())
        .fallback(|| async { (axum::http::StatusCode::NOT_FOUND, "the app's own 404") })
        .with_state(AppState { name: "the agent" })
}

async fn serve_on(listener: tokio::net::TcpListener, router: Router) -> App {
    let addr = listener.local_addr().unwrap();
    let task = tokio::spawn(async move {
        let _ = axum::serve(listener, router).await;
    });
    App { addr, task }
}

/// `page` nested at its own mount path in the application, on 127.0.0.1:0.
async fn serve(page: &SecurePage) -> App {
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0))
        .await
        .unwrap();
    serve_on(listener, app(page, page.mount_path())).await
}

fn public(builder: SecurePageBuilder) -> SecurePage {
    builder.mounted(ORIGIN, "/elicit").expect("an https origin")
}

/// The options of a page for alice's own deployment, without a login: a public origin
/// needs a way to tell who fills the page, and this one gives it up in so many words.
fn alices() -> SecurePageBuilder {
    SecurePage::builder().unauthenticated_single_user(UserId::new("alice"))
}

/// One open link for `DeployKey`, bound to elicitation `e-1` and alice: the link's
/// path under the public origin, and the wait.
fn opened(page: &SecurePage) -> (String, PageWait<DeployKey>) {
    let link = page
        .link::<DeployKey>("Paste the API key of your deploy account")
        .expect("a link");
    let url = link.url().to_owned();
    let wait = link
        .open("e-1", Some(&UserId::new("alice")))
        .expect("the link opens");
    let path = url
        .strip_prefix(ORIGIN)
        .unwrap_or_else(|| panic!("the link is on the public origin: {url}"))
        .to_owned();
    (path, wait)
}

/// A browser opening the link at the public origin.
async fn open(addr: SocketAddr, path: &str, cookie: Option<&str>) -> Reply {
    let mut headers = vec![("Host", HOST), ("Sec-Fetch-Site", "none")];
    if let Some(cookie) = cookie {
        headers.push(("Cookie", cookie));
    }
    http::request(addr, "GET", path, &headers, b"").await
}

/// The page's form submitted from the page at the public origin.
async fn submit(addr: SocketAddr, path: &str, cookie: &str, body: &str) -> Reply {
    http::request(
        addr,
        "POST",
        path,
        &[
            ("Host", HOST),
            ("Origin", ORIGIN),
            ("Sec-Fetch-Site", "same-origin"),
            FORM,
            ("Cookie", cookie),
        ],
        body.as_bytes(),
    )
    .await
}

/// The headers every page of the secure page carries, refusals included.
fn assert_page_headers(reply: &Reply) {
    let csp = reply
        .header("content-security-policy")
        .unwrap_or_else(|| panic!("a CSP on {reply:?}"));
    for directive in [
        "default-src 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
        "base-uri 'none'",
    ] {
        assert!(csp.contains(directive), "{csp}");
    }
    assert!(!csp.contains("script-src"), "{csp}");
    assert_eq!(reply.header("cache-control"), Some("no-store"));
    assert_eq!(reply.header("referrer-policy"), Some("same-origin"));
    assert_eq!(reply.header("x-frame-options"), Some("DENY"));
    assert_eq!(reply.header("x-content-type-options"), Some("nosniff"));
    assert_eq!(
        reply.header("content-type"),
        Some("text/html; charset=utf-8")
    );
}

/// The link the agent sends is the public origin, the mount and a 256-bit token, and
/// the application's own routes are untouched by the page beside them.
// covers: S1
#[test]
fn the_link_is_the_public_origin_the_mount_and_a_token() {
    run(async {
        let page = public(alices());
        assert_eq!(page.origin(), ORIGIN);
        assert_eq!(page.mount_path(), "/elicit");
        assert_eq!(page.listen_addr(), None);
        let a = page.link::<DeployKey>("m").unwrap();
        let b = page.link::<DeployKey>("m").unwrap();
        let token = a
            .url()
            .strip_prefix("https://agent.example.com/elicit/")
            .unwrap_or_else(|| panic!("{}", a.url()));
        assert_eq!(token.len(), 64);
        assert!(token
            .bytes()
            .all(|c| matches!(c, b'0'..=b'9' | b'a'..=b'f')));
        assert!(!a.url().contains('?') && !a.url().contains('#'));
        assert_ne!(a.url(), b.url());

        let app = serve(&page).await;
        let home = http::request(app.addr, "GET", "/", &[("Host", HOST)], b"").await;
        assert_eq!((home.status, home.body.as_str()), (200, "the agent"));
        let health = http::request(app.addr, "GET", "/health", &[], b"").await;
        assert_eq!((health.status, health.body.as_str()), (200, "ok"));
        // Paths under the mount that are no page are the application's.
        for other in ["/elicit", "/elicit/", "/elicit/t/x", "/nowhere"] {
            let reply = open(app.addr, other, None).await;
            assert_eq!(reply.status, 404, "{other}");
            assert_eq!(reply.body, "the app's own 404", "{other}");
        }
        // An unknown token is the page's own refusal, with its headers.
        let unknown = open(app.addr, &format!("/elicit/{}", "0".repeat(64)), None).await;
        assert_eq!(unknown.status, 404);
        assert!(unknown.body.contains("not valid"), "{}", unknown.body);
        assert_page_headers(&unknown);
        let put = http::request(
            app.addr,
            "PUT",
            &a.url()[ORIGIN.len()..],
            &[("Host", HOST)],
            b"",
        )
        .await;
        assert_eq!(put.status, 405);
    });
}

/// GET shows the form, POST hands the typed value over once; a replay is refused.
// covers: S1, S6, F3, F5, U3
#[test]
fn the_nested_page_takes_one_answer_and_refuses_a_replay() {
    run(async {
        let page = public(alices());
        let app = serve(&page).await;
        let (path, wait) = opened(&page);

        let shown = open(app.addr, &path, None).await;
        assert_eq!(shown.status, 200, "{}", shown.body);
        assert_page_headers(&shown);
        assert!(shown
            .body
            .contains("Paste the API key of your deploy account"));
        assert!(shown.body.contains(r#"type="password""#), "{}", shown.body);
        assert!(!shown.body.contains("<script"));
        // The form posts to the page's own URL: no path in the markup for a proxy to
        // break.
        assert!(!shown.body.contains("action="), "{}", shown.body);
        let set_cookie = shown.header("set-cookie").expect("the browser is bound");
        for part in [
            &format!("Path={path}"),
            "HttpOnly",
            "SameSite=Strict",
            "Secure",
        ] {
            assert!(set_cookie.contains(part), "{set_cookie}");
        }
        let cookie = shown.cookie().unwrap();

        let wrong = submit(
            app.addr,
            &path,
            &cookie,
            "f.api_key=short&f.region=eu&elicit-action=accept",
        )
        .await;
        assert_eq!(wrong.status, 422);
        assert!(wrong.body.contains("at least 8"), "{}", wrong.body);
        assert!(!wrong.body.contains("short"), "the secret is not echoed");
        assert_page_headers(&wrong);

        let done = submit(app.addr, &path, &cookie, GOOD).await;
        assert_eq!(done.status, 200, "{}", done.body);
        assert!(done.body.contains("Received"));
        assert_page_headers(&done);
        let Elicited::Accepted(submitted) = wait.answer().await.unwrap() else {
            panic!("accepted")
        };
        assert_eq!(submitted.user(), Some(&UserId::new("alice")));
        assert_eq!(
            submitted.into_value(),
            DeployKey {
                api_key: "sk-live-0123456789".into(),
                region: "eu".into()
            }
        );

        // Replayed: the same post, the link opened again.
        let replay = submit(app.addr, &path, &cookie, GOOD).await;
        assert_eq!(replay.status, 410);
        assert!(replay.body.contains("already used"), "{}", replay.body);
        assert_page_headers(&replay);
        assert_eq!(open(app.addr, &path, Some(&cookie)).await.status, 410);
        assert_eq!(page.waiting(), 0);
    });
}

/// A link past its expiry is refused, and the agent's wait ends.
// covers: S1
#[test]
fn an_expired_nested_link_is_refused() {
    run(async {
        let page = public(alices().ttl(Duration::from_millis(200)));
        let app = serve(&page).await;
        let (path, wait) = opened(&page);
        let cookie = open(app.addr, &path, None).await.cookie().unwrap();
        assert_eq!(wait.answer().await.unwrap_err(), PageError::Expired);
        assert_eq!(submit(app.addr, &path, &cookie, GOOD).await.status, 410);
        let reopened = open(app.addr, &path, Some(&cookie)).await;
        assert_eq!(reopened.status, 410);
    });
}

/// Posts from anywhere but the public origin's own page, a request addressed to
/// another host (or to the server's internal address), a second browser, a body that
/// is not a small form: all refused, and the real answer still goes through.
// covers: S1, S6
#[test]
fn cross_site_and_misaddressed_requests_are_refused() {
    run(async {
        let page = public(alices());
        let app = serve(&page).await;
        let (path, wait) = opened(&page);
        let internal = app.addr.to_string();
        let internal_origin = format!("http://{internal}");

        // DNS rebinding, and the server's own address instead of the public origin.
        for host in [
            "evil.example",
            internal.as_str(),
            "agent.example.com.evil.example",
        ] {
            let get = http::request(app.addr, "GET", &path, &[("Host", host)], b"").await;
            assert_eq!(get.status, 421, "{host}");
            assert_page_headers(&get);
        }
        // Refusals bound no browser, and neither does looking: another browser sees the
        // page too, until one submits it.
        let cookie = open(app.addr, &path, None).await.cookie().unwrap();
        assert_eq!(open(app.addr, &path, None).await.status, 200);

        let with = |extra: &[(&str, &str)]| {
            let mut headers = owned(&[("Host", HOST), FORM, ("Cookie", &cookie)]);
            headers.extend(owned(extra));
            headers
        };
        let refused = [
            // A page of another site posting to the link.
            with(&[("Origin", "https://evil.example")]),
            with(&[("Sec-Fetch-Site", "cross-site")]),
            with(&[
                ("Origin", "https://evil.example"),
                ("Sec-Fetch-Site", "cross-site"),
            ]),
            // The public host over plain http is another origin.
            with(&[("Origin", "http://agent.example.com")]),
            // A sibling subdomain is same-site, not same-origin.
            with(&[("Origin", ORIGIN), ("Sec-Fetch-Site", "same-site")]),
            // Neither header, or a `null` origin.
            with(&[]),
            with(&[("Origin", "null")]),
        ];
        for headers in &refused {
            let reply = send(app.addr, "POST", &path, headers, GOOD).await;
            assert_eq!(reply.status, 403, "{headers:?}: {}", reply.body);
            assert_page_headers(&reply);
        }
        // The internal origin, even with the internal `Host`: not the public origin.
        let internal_post = http::request(
            app.addr,
            "POST",
            &path,
            &[
                ("Host", &internal),
                ("Origin", &internal_origin),
                ("Sec-Fetch-Site", "same-origin"),
                FORM,
                ("Cookie", &cookie),
            ],
            GOOD.as_bytes(),
        )
        .await;
        assert_eq!(internal_post.status, 421);
        let internal_origin_post = http::request(
            app.addr,
            "POST",
            &path,
            &[
                ("Host", HOST),
                ("Origin", &internal_origin),
                FORM,
                ("Cookie", &cookie),
            ],
            GOOD.as_bytes(),
        )
        .await;
        assert_eq!(internal_origin_post.status, 403);
        // Another browser's cookie, and no cookie.
        assert_eq!(
            submit(app.addr, &path, "elicit_page=00", GOOD).await.status,
            403
        );
        // Not a form; too large for the page, whatever the application allows.
        let json = http::request(
            app.addr,
            "POST",
            &path,
            &[
                ("Host", HOST),
                ("Origin", ORIGIN),
                ("Content-Type", "application/json"),
                ("Cookie", &cookie),
            ],
            br#"{"api_key":"x"}"#,
        )
        .await;
        assert_eq!(json.status, 415);
        let big = format!("f.api_key={}", "a".repeat(70_000));
        assert_eq!(submit(app.addr, &path, &cookie, &big).await.status, 413);

        assert_eq!(page.waiting(), 1);
        assert_eq!(submit(app.addr, &path, &cookie, GOOD).await.status, 200);
        assert!(matches!(wait.answer().await, Ok(Elicited::Accepted(_))));
    });
}

/// Headers as owned pairs, for requests built from parts.
type Headers = Vec<(String, String)>;

fn owned(pairs: &[(&str, &str)]) -> Headers {
    pairs
        .iter()
        .map(|(n, v)| ((*n).to_owned(), (*v).to_owned()))
        .collect()
}

/// What a proxy in front sends on: the server's internal `Host`, and where the browser
/// connected in `X-Forwarded-Host` and `X-Forwarded-Proto`; then `extra`.
fn proxied(internal: &str, host: &str, proto: &str, extra: &[(&str, &str)]) -> Headers {
    let mut headers = owned(&[
        ("Host", internal),
        ("X-Forwarded-Host", host),
        ("X-Forwarded-Proto", proto),
    ]);
    headers.extend(owned(extra));
    headers
}

async fn send(addr: SocketAddr, method: &str, path: &str, headers: &Headers, body: &str) -> Reply {
    let headers: Vec<(&str, &str)> = headers
        .iter()
        .map(|(n, v)| (n.as_str(), v.as_str()))
        .collect();
    http::request(addr, method, path, &headers, body.as_bytes()).await
}

/// A proxy that passes on the server's internal `Host` and says where the browser
/// connected in `X-Forwarded-*` or `Forwarded`: ignored unless the page is told to
/// trust it, and then honoured, host and scheme both.
// covers: S1
#[test]
fn forwarded_headers_count_only_when_trusted() {
    run(async {
        let untrusted = public(alices());
        let app = serve(&untrusted).await;
        let internal = app.addr.to_string();
        let (path, wait) = opened(&untrusted);
        // Untrusted: the forwarded host does not stand in for `Host`...
        let as_proxy = proxied(&internal, HOST, "https", &[("Sec-Fetch-Site", "none")]);
        let ignored = send(app.addr, "GET", &path, &as_proxy, "").await;
        assert_eq!(ignored.status, 421, "{}", ignored.body);
        let rfc = owned(&[
            ("Host", &internal),
            (
                "Forwarded",
                "for=192.0.2.1;host=agent.example.com;proto=https",
            ),
        ]);
        assert_eq!(send(app.addr, "GET", &path, &rfc, "").await.status, 421);
        // ...nor does a forwarded lie override the right `Host`.
        let lie = owned(&[
            ("Host", HOST),
            ("X-Forwarded-Host", "evil.example"),
            ("X-Forwarded-Proto", "http"),
            ("Sec-Fetch-Site", "none"),
        ]);
        let shown = send(app.addr, "GET", &path, &lie, "").await;
        assert_eq!(shown.status, 200, "{}", shown.body);
        drop(wait);
        drop(app);

        // Trusted: the proxy's headers say where the browser was.
        let trusted = public(alices().trust_forwarded(true));
        let app = serve(&trusted).await;
        let internal = app.addr.to_string();
        let (path, wait) = opened(&trusted);
        // The browser came over plain http, or to another host: refused.
        for (host, proto) in [(HOST, "http"), ("evil.example", "https")] {
            let reply = send(
                app.addr,
                "GET",
                &path,
                &proxied(&internal, host, proto, &[]),
                "",
            )
            .await;
            assert_eq!(reply.status, 421, "{host} {proto}");
            assert_page_headers(&reply);
        }
        // The client's own `X-Forwarded-Host` before the proxy's: the last one counts.
        let prepended = proxied(&internal, "agent.example.com, evil.example", "https", &[]);
        assert_eq!(
            send(app.addr, "GET", &path, &prepended, "").await.status,
            421
        );
        let appended = proxied(&internal, "evil.example, agent.example.com", "https", &[]);
        let shown = send(app.addr, "GET", &path, &appended, "").await;
        assert_eq!(shown.status, 200, "{}", shown.body);
        let cookie = shown.cookie().unwrap();
        let post = |host: &str, proto: &str| {
            proxied(
                &internal,
                host,
                proto,
                &[
                    ("Origin", ORIGIN),
                    ("Sec-Fetch-Site", "same-origin"),
                    FORM,
                    ("Cookie", &cookie),
                ],
            )
        };
        for (host, proto) in [(HOST, "http"), ("evil.example", "https")] {
            let reply = send(app.addr, "POST", &path, &post(host, proto), GOOD).await;
            assert_eq!(reply.status, 421, "{host} {proto}");
        }
        assert_eq!(trusted.waiting(), 1);
        let done = send(app.addr, "POST", &path, &post(HOST, "https"), GOOD).await;
        assert_eq!(done.status, 200, "{}", done.body);
        assert!(matches!(wait.answer().await, Ok(Elicited::Accepted(_))));

        // RFC 7239 `Forwarded`, with its quoted values.
        let (path, wait) = opened(&trusted);
        let rfc_http = owned(&[
            ("Host", &internal),
            ("Forwarded", "host=agent.example.com;proto=http"),
        ]);
        assert_eq!(
            send(app.addr, "GET", &path, &rfc_http, "").await.status,
            421
        );
        let rfc = owned(&[
            ("Host", &internal),
            (
                "Forwarded",
                "for=\"[2001:db8::1]:4711\";host=\"agent.example.com\";proto=https",
            ),
            ("Sec-Fetch-Site", "none"),
        ]);
        let shown = send(app.addr, "GET", &path, &rfc, "").await;
        assert_eq!(shown.status, 200, "{}", shown.body);
        let cookie = shown.cookie().unwrap();
        let mut post = rfc.clone();
        post.extend(owned(&[
            ("Origin", ORIGIN),
            ("Sec-Fetch-Site", "same-origin"),
            FORM,
            ("Cookie", &cookie),
        ]));
        post.retain(|(n, v)| !(n == "Sec-Fetch-Site" && v == "none"));
        assert_eq!(send(app.addr, "POST", &path, &post, GOOD).await.status, 200);
        assert!(matches!(wait.answer().await, Ok(Elicited::Accepted(_))));
    });
}

/// With the application's own authentication, only the user who started the
/// elicitation sees and submits the nested page, even holding the link and the cookie.
// covers: S6
#[test]
fn the_nested_page_is_for_the_authenticated_user_only() {
    run(async {
        let page = public(SecurePage::builder().authenticate(|headers| {
            headers
                .get("x-user")
                .and_then(|v| v.to_str().ok())
                .map(UserId::new)
        }));
        let app = serve(&page).await;
        let (path, wait) = opened(&page); // for alice
        let get_as = |user: Option<&'static str>| {
            let path = path.clone();
            async move {
                let mut headers = vec![("Host", HOST), ("Sec-Fetch-Site", "none")];
                if let Some(user) = user {
                    headers.push(("X-User", user));
                }
                http::request(app.addr, "GET", &path, &headers, b"").await
            }
        };
        let anonymous = get_as(None).await;
        assert_eq!(anonymous.status, 401, "{}", anonymous.body);
        assert_page_headers(&anonymous);
        assert_eq!(get_as(Some("mallory")).await.status, 403);
        let alice = get_as(Some("alice")).await;
        assert_eq!(alice.status, 200, "{}", alice.body);
        let cookie = alice.cookie().unwrap();

        let post_as = |user: &'static str| {
            let path = path.clone();
            let cookie = cookie.clone();
            async move {
                http::request(
                    app.addr,
                    "POST",
                    &path,
                    &[
                        ("Host", HOST),
                        ("Origin", ORIGIN),
                        ("Sec-Fetch-Site", "same-origin"),
                        FORM,
                        ("Cookie", &cookie),
                        ("X-User", user),
                    ],
                    GOOD.as_bytes(),
                )
                .await
            }
        };
        assert_eq!(post_as("mallory").await.status, 403);
        assert_eq!(submit(app.addr, &path, &cookie, GOOD).await.status, 401);
        assert_eq!(page.waiting(), 1);
        assert_eq!(post_as("alice").await.status, 200);
        let Elicited::Accepted(submitted) = wait.answer().await.unwrap() else {
            panic!("accepted")
        };
        assert_eq!(submitted.user(), Some(&UserId::new("alice")));
    });
}

/// Plain http is refused for a public origin outside loopback, and accepted on
/// loopback for development, where the whole flow works over it.
// covers: S1
#[test]
fn plain_http_is_refused_outside_loopback() {
    run(async {
        for origin in [
            "http://agent.example.com",
            "http://agent.example.com:8080",
            "http://192.0.2.7",
            "http://0.0.0.0:8080",
        ] {
            let error = SecurePage::builder()
                .mounted(origin, "/elicit")
                .unwrap_err();
            assert!(
                matches!(error, MountError::PlainHttp { .. }),
                "{origin}: {error:?}"
            );
            let text = error.to_string();
            assert!(
                text.contains(origin) && text.contains("https") && text.contains("S1"),
                "{text}"
            );
        }
        for (origin, mount) in [
            ("https://agent.example.com/elicit", "/elicit"),
            ("agent.example.com", "/elicit"),
            ("https://agent.example.com", "/"),
            ("https://agent.example.com", "elicit"),
        ] {
            let error = SecurePage::builder().mounted(origin, mount).unwrap_err();
            assert!(
                matches!(
                    error,
                    MountError::NotAnOrigin { .. } | MountError::MountPath { .. }
                ),
                "{origin} {mount}: {error:?}"
            );
        }

        // Loopback over http: the origin is the listener's own address.
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0))
            .await
            .unwrap();
        let addr = listener.local_addr().unwrap();
        let origin = format!("http://{addr}");
        let page = SecurePage::builder().mounted(&origin, "/elicit").unwrap();
        assert_eq!(page.origin(), origin);
        let app = serve_on(listener, app(&page, page.mount_path())).await;
        let link = page.link::<DeployKey>("m").unwrap();
        let path = link.url().strip_prefix(&origin).unwrap().to_owned();
        let wait = link.open("e-1", None).unwrap();
        let shown = http::open(app.addr, &path, None).await;
        assert_eq!(shown.status, 200, "{}", shown.body);
        // No `Secure` cookie over plain http: the browser would drop it.
        assert!(!shown.header("set-cookie").unwrap().contains("Secure"));
        let cookie = shown.cookie().unwrap();
        assert_eq!(
            http::submit(app.addr, &path, &cookie, GOOD).await.status,
            200
        );
        assert!(matches!(wait.answer().await, Ok(Elicited::Accepted(_))));
    });
}

/// Behind a proxy that maps the public `/pages/elicit` to the application's
/// `/elicit`: the link and the cookie use the public path, the form posts to the page's
/// own URL, and the application serves the page where the requests arrive.
#[test]
fn a_path_rewriting_proxy_breaks_nothing() {
    run(async {
        let page = alices().mounted(ORIGIN, "/pages/elicit").unwrap();
        assert_eq!(page.mount_path(), "/pages/elicit");
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0))
            .await
            .unwrap();
        let app = serve_on(listener, app(&page, "/elicit")).await;
        let (public_path, wait) = opened(&page);
        let token = public_path
            .strip_prefix("/pages/elicit/")
            .unwrap_or_else(|| panic!("{public_path}"));
        // What the proxy forwards.
        let inner = format!("/elicit/{token}");
        let shown = open(app.addr, &inner, None).await;
        assert_eq!(shown.status, 200, "{}", shown.body);
        assert!(!shown.body.contains("action="), "{}", shown.body);
        let set_cookie = shown.header("set-cookie").unwrap();
        assert!(
            set_cookie.contains(&format!("Path={public_path};")),
            "{set_cookie}"
        );
        let cookie = shown.cookie().unwrap();
        assert_eq!(submit(app.addr, &inner, &cookie, GOOD).await.status, 200);
        assert!(matches!(wait.answer().await, Ok(Elicited::Accepted(_))));
    });
}

/// Stopping a mounted page ends its waits; its routes stay and refuse its links.
#[test]
fn a_shutdown_ends_a_mounted_pages_waits() {
    run(async {
        let page = public(alices());
        let app = serve(&page).await;
        let (path, wait) = opened(&page);
        let cookie = open(app.addr, &path, None).await.cookie().unwrap();
        page.shutdown();
        assert_eq!(wait.answer().await.unwrap_err(), PageError::Closed);
        assert_eq!(submit(app.addr, &path, &cookie, GOOD).await.status, 410);
        let health = http::request(app.addr, "GET", "/health", &[], b"").await;
        assert_eq!(health.status, 200);
    });
}
