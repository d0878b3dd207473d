//! The attacks an adversarial review made on the agent's secure page (issue 28,
//! findings 3, 7, 8 and 13), each performed again against a real page server on
//! 127.0.0.1 with real HTTP requests, and each now refused. Every server is started by
//! its test and stopped by it; every wait is bounded.
//!
//! - A link forwarded to another person ("please re-enter your key") is refused to
//!   them; a submission nobody authenticated carries no user and fails the
//!   completion's user check; a page for a public origin is not built without a way to
//!   tell who fills it (S6).
//! - A submission made before the client's consent is never told "Received" and then
//!   dropped (U2).
//! - A link previewer that sends `HEAD` or `GET` first locks nobody out.
//! - `Debug` never shows a page token, nor a link that carries one.
#![cfg(feature = "axum")]

use std::time::{Duration, Instant};

use elicit::agent::{
    CompletionError, ConnectionId, Elicitor, MemoryStore, Store, UrlPolicy, UrlState, UserId,
};
use elicit::axum::{MountError, PageError, PageTicket, SecurePage};
use elicit::{ElicitationCapabilities, ElicitationResponse, Elicited, Scope};
use serde_json::json;

use super::url_page::http;
use super::url_page::{opened, run, DeployKey};

const GOOD: &str = "f.api_key=sk-live-0123456789&f.region=eu&elicit-action=accept";
const SHORT: &str = "f.api_key=short&f.region=eu&elicit-action=accept";

/// An agent's connection whose client declared URL mode, started by `user`, allowed
/// to send the page's loopback `http` link.
fn elicitor(user: Option<&str>) -> Elicitor {
    let caps = ElicitationCapabilities::from_json(Some(&json!({ "url": {} })));
    let elicitor = Elicitor::new(caps, ConnectionId::new())
        .with_url_policy(UrlPolicy::new().allow_loopback_http(true));
    match user {
        Some(user) => elicitor.with_user(UserId::new(user)),
        None => elicitor,
    }
}

/// The path of a link on `page`.
fn path_of(page: &SecurePage, url: &str) -> String {
    url.strip_prefix(page.origin())
        .unwrap_or_else(|| panic!("the link is on the page's origin: {url}"))
        .to_owned()
}

// ---------------------------------------------------------------------------------------
// Finding 3: S6 asserted, not verified

/// A page for a public origin is not built unless it can tell who fills it, or the
/// deployment says in so many words that it gives that up.
// covers: S6, S1
#[test]
fn a_public_page_that_authenticates_nobody_is_not_built() {
    for origin in [
        "https://agent.example.com",
        "https://agent.example.com:8443",
        "https://203.0.113.9",
    ] {
        let error = SecurePage::builder()
            .trust_forwarded(true)
            .mounted(origin, "/elicit")
            .unwrap_err();
        assert!(
            matches!(&error, MountError::Unauthenticated { origin: o } if o == origin),
            "{origin}: {error:?}"
        );
        let text = error.to_string();
        for said in [
            origin,
            "S6",
            "`authenticate`",
            "`unauthenticated_single_user`",
        ] {
            assert!(text.contains(said), "{said} in {text}");
        }
        // Either way of saying who fills it builds the page.
        let authenticated = SecurePage::builder()
            .authenticate(|_| None)
            .mounted(origin, "/elicit");
        assert!(authenticated.is_ok(), "{origin}");
        let single = SecurePage::builder()
            .unauthenticated_single_user(UserId::new("alice"))
            .mounted(origin, "/elicit");
        assert!(single.is_ok(), "{origin}");
    }
    // A loopback origin is one machine's: a page there may authenticate nobody.
    for origin in [
        "http://127.0.0.1:8080",
        "https://localhost",
        "http://[::1]:9",
    ] {
        assert!(
            SecurePage::builder().mounted(origin, "/elicit").is_ok(),
            "{origin}"
        );
    }
}

/// The attack: alice's page is mounted at the public origin with the application's
/// login; she forwards the link ("please re-enter your key"). Bob, signed in as
/// himself, and a visitor signed in as nobody, open it and post to it: refused,
/// nothing taken. Alice's own submission carries her, verified.
// covers: S6, E5, U5
#[test]
fn a_forwarded_link_is_refused_to_whoever_it_reaches() {
    run(async {
        let page = SecurePage::builder()
            // The application's own login: a session cookie naming the user.
            .authenticate(|headers| {
                let cookies = headers.get("cookie")?.to_str().ok()?;
                cookies
                    .split(';')
                    .find_map(|pair| pair.trim().strip_prefix("session="))
                    .map(UserId::new)
            })
            .mounted("https://agent.example.com", "/elicit")
            .unwrap();
        let app = axum::Router::new().nest(page.mount_path(), page.router());
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0))
            .await
            .unwrap();
        let addr = listener.local_addr().unwrap();
        let server = tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });

        let alice = elicitor(Some("alice"));
        let link = page.link::<DeployKey>("Re-enter your deploy key").unwrap();
        let pending = alice
            .url(Scope::session("s1"), "Re-enter your key", link.url())
            .unwrap();
        let id = pending.elicitation_id().to_owned();
        let path = link
            .url()
            .strip_prefix("https://agent.example.com")
            .unwrap()
            .to_owned();
        let wait = link.open(&id, alice.user()).unwrap();
        let consent = alice
            .record_response(&id, &ElicitationResponse::accept_without_content())
            .unwrap();
        assert!(consent.is_consented());

        let host = ("Host", "agent.example.com");
        let get = |session: Option<&'static str>| {
            let path = path.clone();
            async move {
                let cookie = session.map(|s| format!("session={s}"));
                let mut headers = vec![host, ("Sec-Fetch-Site", "none")];
                if let Some(cookie) = &cookie {
                    headers.push(("Cookie", cookie));
                }
                http::request(addr, "GET", &path, &headers, b"").await
            }
        };
        let post = |cookies: String| {
            let path = path.clone();
            async move {
                http::request(
                    addr,
                    "POST",
                    &path,
                    &[
                        host,
                        ("Origin", "https://agent.example.com"),
                        ("Sec-Fetch-Site", "same-origin"),
                        ("Content-Type", "application/x-www-form-urlencoded"),
                        ("Cookie", &cookies),
                    ],
                    GOOD.as_bytes(),
                )
                .await
            }
        };

        // Bob, signed in, holding alice's link: neither shown nor taken.
        let bob = get(Some("bob")).await;
        assert_eq!(bob.status, 403, "{}", bob.body);
        assert!(bob.body.contains("opened for another user"), "{}", bob.body);
        assert!(!bob.body.contains("api_key"), "no form for bob");
        let forged = format!("session=bob; elicit_page={}", "ab".repeat(16));
        assert_eq!(post(forged).await.status, 403);
        // Signed in as nobody.
        let nobody = get(None).await;
        assert_eq!(nobody.status, 401, "{}", nobody.body);
        assert_eq!(
            post(format!("elicit_page={}", "ab".repeat(16)))
                .await
                .status,
            401
        );
        assert_eq!(page.waiting(), 1, "nothing was taken");
        assert_eq!(alice.url_state(&id), Some(UrlState::Consented));

        // Alice herself.
        let shown = get(Some("alice")).await;
        assert_eq!(shown.status, 200, "{}", shown.body);
        let cookie = shown.cookie().unwrap();
        let done = post(format!("session=alice; {cookie}")).await;
        assert_eq!(done.status, 200, "{}", done.body);
        let Elicited::Accepted(submitted) = wait.answer().await.unwrap() else {
            panic!("accepted")
        };
        assert_eq!(submitted.user(), Some(&UserId::new("alice")));
        alice.complete(&id, submitted.user()).unwrap();
        server.abort();
    });
}

/// A page that authenticates nobody is not opened for an elicitation a user started:
/// its submission could not be that user's. An agent that opens it without the user
/// anyway gets a submission that carries no user, and the completion's user check
/// refuses it instead of passing it.
// covers: S6, U5
#[test]
fn a_submission_nobody_authenticated_carries_no_user_and_fails_the_user_check() {
    run(async {
        let page = SecurePage::bind(([127, 0, 0, 1], 0)).await.unwrap();
        let addr = page.local_addr();
        let alice = elicitor(Some("alice"));

        let link = page.link::<DeployKey>("Re-enter your deploy key").unwrap();
        let path = path_of(&page, link.url());
        let pending = alice
            .url(Scope::session("s1"), "Re-enter your key", link.url())
            .unwrap();
        let id = pending.elicitation_id().to_owned();
        let refused = link.open(&id, alice.user()).unwrap_err();
        assert!(
            matches!(refused, PageError::UserNotVerifiable(_)),
            "{refused:?}"
        );
        let text = refused.to_string();
        assert!(
            text.contains("S6") && text.contains("authenticate"),
            "{text}"
        );
        // Nothing is served under the link.
        assert_eq!(page.waiting(), 0);
        assert_eq!(http::open(addr, &path, None).await.status, 404);

        // Opened anyway for no user: whoever the link reaches submits…
        let link = page.link::<DeployKey>("Re-enter your deploy key").unwrap();
        let path = path_of(&page, link.url());
        let pending = alice
            .url(Scope::session("s1"), "Re-enter your key", link.url())
            .unwrap();
        let id = pending.elicitation_id().to_owned();
        let wait = link.open(&id, None).unwrap();
        let consent = alice
            .record_response(&id, &ElicitationResponse::accept_without_content())
            .unwrap();
        assert!(consent.is_consented());
        let cookie = http::open(addr, &path, None).await.cookie().unwrap();
        assert_eq!(http::submit(addr, &path, &cookie, GOOD).await.status, 200);
        let Elicited::Accepted(submitted) = wait.answer().await.unwrap() else {
            panic!("accepted")
        };
        // …but the submission vouches for nobody, and alice's elicitation is not
        // completed in her name.
        assert_eq!(submitted.user(), None);
        assert_eq!(
            alice.complete(&id, submitted.user()),
            Err(CompletionError::UserMismatch)
        );
        assert_eq!(alice.url_state(&id), Some(UrlState::Consented));
        page.shutdown();
    });
}

/// The single-user opt-out: whoever fills the page is the deployment's one user, and
/// the page opens only for that user's elicitations.
// covers: S6
#[test]
fn the_single_user_opt_out_opens_only_for_that_user() {
    run(async {
        let alice = UserId::new("alice");
        let page = SecurePage::builder()
            .unauthenticated_single_user(alice.clone())
            .bind(([127, 0, 0, 1], 0))
            .await
            .unwrap();
        let addr = page.local_addr();
        for other in [None, Some(UserId::new("bob"))] {
            let link = page.link::<DeployKey>("m").unwrap();
            let error = link.open("e-0", other.as_ref()).unwrap_err();
            assert!(
                matches!(error, PageError::UserNotVerifiable(_)),
                "{other:?}: {error:?}"
            );
        }
        assert_eq!(page.waiting(), 0);
        let link = page.link::<DeployKey>("m").unwrap();
        let path = path_of(&page, link.url());
        let wait = link.open("e-1", Some(&alice)).unwrap();
        let cookie = http::open(addr, &path, None).await.cookie().unwrap();
        assert_eq!(http::submit(addr, &path, &cookie, GOOD).await.status, 200);
        let Elicited::Accepted(submitted) = wait.answer().await.unwrap() else {
            panic!("accepted")
        };
        assert_eq!(submitted.user(), Some(&alice));
        page.shutdown();
    });
}

// ---------------------------------------------------------------------------------------
// Finding 7: the page before the client's consent

/// A submission that arrives before the client's consent is recorded is held a moment,
/// then refused with the form shown again and the reason; nothing is taken, nothing
/// bound. Once the consent is recorded, the same submission goes through.
// covers: U2, S2, R5
#[test]
fn a_submission_before_the_clients_consent_is_refused_saying_why() {
    run(async {
        let store = MemoryStore::<PageTicket>::new();
        let page = SecurePage::builder()
            .store(store.clone())
            .bind(([127, 0, 0, 1], 0))
            .await
            .unwrap();
        let addr = page.local_addr();
        let link = page.link::<DeployKey>("Paste your deploy key").unwrap();
        let path = path_of(&page, link.url());
        let token = path.trim_start_matches("/elicit/").to_owned();
        let mut wait = link.open_pending_consent("e-1", None).unwrap();
        let before = store.get(&PageTicket::store_key(&token)).unwrap().unwrap();
        assert!(before.awaits_consent());

        // The page shows at once: the client may open the browser as it accepts.
        let shown = http::open(addr, &path, None).await;
        assert_eq!(shown.status, 200, "{}", shown.body);
        let cookie = shown.cookie().unwrap();
        let began = Instant::now();
        let early = http::submit(addr, &path, &cookie, GOOD).await;
        assert_eq!(early.status, 409, "{}", early.body);
        assert!(
            began.elapsed() >= Duration::from_secs(1),
            "held for the consent first"
        );
        assert!(
            early.body.contains("Confirm in your client first"),
            "{}",
            early.body
        );
        assert!(!early.body.contains("Received"), "{}", early.body);
        // The form again, to send once confirmed; the key is not written back.
        assert!(early.body.contains("f.api_key"), "{}", early.body);
        assert!(!early.body.contains("sk-live"), "{}", early.body);
        assert_eq!(
            store.get(&PageTicket::store_key(&token)).unwrap().unwrap(),
            before,
            "nothing changed"
        );
        assert_eq!(page.waiting(), 1);

        wait.record_consent().unwrap();
        assert!(!store
            .get(&PageTicket::store_key(&token))
            .unwrap()
            .unwrap()
            .awaits_consent());
        let done = http::submit(addr, &path, &cookie, GOOD).await;
        assert_eq!(done.status, 200, "{}", done.body);
        assert!(done.body.contains("Received"));
        assert!(matches!(wait.answer().await, Ok(Elicited::Accepted(_))));
        page.shutdown();
    });
}

/// A submission held for the consent while the agent records it goes through: a
/// client that opens the browser as it sends `accept` loses nothing.
// covers: U2
#[test]
fn a_submission_held_for_the_consent_goes_through_once_it_is_recorded() {
    run(async {
        let page = SecurePage::bind(([127, 0, 0, 1], 0)).await.unwrap();
        let addr = page.local_addr();
        let link = page.link::<DeployKey>("Paste your deploy key").unwrap();
        let path = path_of(&page, link.url());
        let mut wait = link.open_pending_consent("e-1", None).unwrap();
        let cookie = http::open(addr, &path, None).await.cookie().unwrap();
        let submitting = tokio::spawn({
            let (path, cookie) = (path.clone(), cookie.clone());
            async move { http::submit(addr, &path, &cookie, GOOD).await }
        });
        tokio::time::sleep(Duration::from_millis(300)).await;
        wait.record_consent().unwrap();
        let done = submitting.await.unwrap();
        assert_eq!(done.status, 200, "{}", done.body);
        assert!(done.body.contains("Received"));
        assert!(matches!(wait.answer().await, Ok(Elicited::Accepted(_))));
        page.shutdown();
    });
}

/// A submission in flight when the client declines: the agent drops the wait, and the
/// person is told their answer was not taken, never "Received".
// covers: U2, R1, R5
#[test]
fn a_submission_before_the_client_declines_is_never_received() {
    run(async {
        let page = SecurePage::bind(([127, 0, 0, 1], 0)).await.unwrap();
        let addr = page.local_addr();
        let link = page.link::<DeployKey>("Paste your deploy key").unwrap();
        let path = path_of(&page, link.url());
        let wait = link.open_pending_consent("e-1", None).unwrap();
        let cookie = http::open(addr, &path, None).await.cookie().unwrap();
        let submitting = tokio::spawn({
            let (path, cookie) = (path.clone(), cookie.clone());
            async move { http::submit(addr, &path, &cookie, GOOD).await }
        });
        tokio::time::sleep(Duration::from_millis(300)).await;
        // The client declined: the agent drops the wait.
        drop(wait);
        let refused = submitting.await.unwrap();
        assert_eq!(refused.status, 410, "{}", refused.body);
        assert!(
            refused
                .body
                .contains("declined or cancelled in your client"),
            "{}",
            refused.body
        );
        assert!(!refused.body.contains("Received"), "{}", refused.body);
        assert_eq!(page.waiting(), 0);
        page.shutdown();
    });
}

/// A wait opened pending consent whose consent is never recorded cannot be awaited.
#[test]
fn answering_without_the_consent_recorded_is_an_error_at_once() {
    run(async {
        let page = SecurePage::bind(([127, 0, 0, 1], 0)).await.unwrap();
        let link = page.link::<DeployKey>("m").unwrap();
        let wait = link.open_pending_consent("e-1", None).unwrap();
        let error = tokio::time::timeout(Duration::from_secs(5), wait.answer())
            .await
            .expect("at once")
            .unwrap_err();
        assert_eq!(error, PageError::ConsentNotRecorded);
        assert!(error.to_string().contains("record_consent"), "{error}");
        // A page opened with `open` needs no consent: recording it is a no-op.
        let (_, mut wait) = opened(&page).await;
        wait.record_consent().unwrap();
        page.shutdown();
    });
}

/// The attack through rmcp's `ask_secret`, with rmcp's own client: the browser submits
/// the page while the client is still asking the person, who then declines. Before,
/// the page said "Received" and the answer was dropped; now it is held, then refused.
// covers: U2, R1, R5, F6
#[cfg(feature = "rmcp_3")]
#[tokio::test]
async fn ask_secret_takes_no_answer_the_client_then_declines() {
    use rmcp_client::{ask_with, Browser};

    let page = SecurePage::bind(([127, 0, 0, 1], 0)).await.unwrap();
    for (decline, expected) in [(true, 410), (false, 200)] {
        let browser = Browser::new(&page, decline);
        let answer = ask_with(browser.clone(), &page).await;
        let reply = browser.submitted().await;
        if decline {
            assert!(matches!(answer, Ok(Elicited::Declined)), "{answer:?}");
            assert!(
                reply.body.contains("declined or cancelled in your client"),
                "{}",
                reply.body
            );
        } else {
            // The same early submission, and the client accepts: held, then taken.
            assert!(matches!(answer, Ok(Elicited::Accepted(_))), "{answer:?}");
            assert!(reply.body.contains("Received"), "{}", reply.body);
        }
        assert_eq!(reply.status, expected, "{}", reply.body);
        assert_eq!(page.waiting(), 0);
    }
    page.shutdown();
}

/// rmcp's client whose person submits the page in the browser before answering in the
/// client.
#[cfg(feature = "rmcp_3")]
mod rmcp_client {
    use std::sync::{Arc, Mutex};
    use std::time::Duration;

    use ::rmcp::model::{
        ClientCapabilities, ClientConfig, ElicitRequestParams, ElicitResult, ElicitationAction,
        Implementation, InitializeRequestParams, ProtocolVersion, ServerCapabilities, ServerConfig,
    };
    use ::rmcp::service::{RequestContext, RoleClient};
    use ::rmcp::{ClientHandler, ErrorData, ServerHandler, ServiceExt};
    use elicit::agent::AskError;
    use elicit::axum::SecurePage;
    use elicit::rmcp::PeerElicitor;
    use elicit::Elicited;
    use serde_json::json;
    use tokio::task::JoinHandle;

    use super::GOOD;
    use crate::protocol_support::rmcp_wire::{bounded, in_memory, Relay};
    use crate::url_page::http::{self, Reply};
    use crate::url_page::DeployKey;

    #[derive(Clone)]
    pub(super) struct Browser {
        origin: String,
        addr: std::net::SocketAddr,
        decline: bool,
        submission: Arc<Mutex<Option<JoinHandle<Reply>>>>,
    }

    impl Browser {
        pub(super) fn new(page: &SecurePage, decline: bool) -> Browser {
            Browser {
                origin: page.origin().to_owned(),
                addr: page.local_addr(),
                decline,
                submission: Arc::default(),
            }
        }

        /// The reply to the submission made while the client was asking.
        pub(super) async fn submitted(&self) -> Reply {
            let task = self.submission.lock().unwrap().take();
            bounded("the submission", task.expect("a submission was made"))
                .await
                .expect("the submission's task")
        }
    }

    impl ClientHandler for Browser {
        async fn create_elicitation(
            &self,
            request: ElicitRequestParams,
            _context: RequestContext<RoleClient>,
        ) -> Result<ElicitResult, ErrorData> {
            let params = serde_json::to_value(&request).expect("params");
            let url = params["url"].as_str().expect("a URL-mode request");
            let path = url.strip_prefix(&self.origin).expect("the page").to_owned();
            let addr = self.addr;
            let cookie = http::open(addr, &path, None).await.cookie().unwrap();
            // The person submits in the browser before choosing in the client.
            let submission =
                tokio::spawn(async move { http::submit(addr, &path, &cookie, GOOD).await });
            *self.submission.lock().unwrap() = Some(submission);
            tokio::time::sleep(Duration::from_millis(300)).await;
            Ok(ElicitResult::new(if self.decline {
                ElicitationAction::Decline
            } else {
                ElicitationAction::Accept
            }))
        }

        fn get_info(&self) -> ClientConfig {
            let capabilities: ClientCapabilities =
                serde_json::from_value(json!({ "elicitation": { "url": {} } }))
                    .expect("a client capability");
            let mut info =
                InitializeRequestParams::new(capabilities, Implementation::new("browser", "1"));
            info.protocol_version = ProtocolVersion::V_2025_11_25;
            info
        }
    }

    /// A server that only asks.
    #[derive(Clone)]
    struct Server;

    impl ServerHandler for Server {
        fn get_info(&self) -> ServerConfig {
            ServerConfig::new(ServerCapabilities::builder().build())
        }
    }

    /// `ask_secret` from a server connected to `browser`'s client over in-memory pipes.
    pub(super) async fn ask_with(
        browser: Browser,
        page: &SecurePage,
    ) -> Result<Elicited<DeployKey>, AskError> {
        let (server_io, client_io, _wire) = in_memory(Relay::default());
        let server = tokio::spawn(Server.serve(server_io));
        let client = bounded("the client's initialize", browser.serve(client_io))
            .await
            .expect("the client initializes");
        let server = bounded("the server's initialize", server)
            .await
            .expect("the server task")
            .expect("the server initializes");
        let connection = PeerElicitor::new(server.peer());
        let answer = bounded(
            "ask_secret",
            connection.ask_secret::<DeployKey>(page, "Paste your deploy key"),
        )
        .await;
        drop(client);
        answer
    }
}

// ---------------------------------------------------------------------------------------
// Finding 8: HEAD and link previewers

/// A chat or mail client that previews the link sends `HEAD` and `GET` before the
/// person opens it, and again while they fill it: the store does not change, and the
/// person's own browser still submits.
// covers: S2, S6
#[test]
fn a_link_previewer_locks_nobody_out() {
    run(async {
        let store = MemoryStore::<PageTicket>::new();
        let page = SecurePage::builder()
            .store(store.clone())
            .bind(([127, 0, 0, 1], 0))
            .await
            .unwrap();
        let addr = page.local_addr();
        let (path, wait) = opened(&page).await;
        let token = path.trim_start_matches("/elicit/").to_owned();
        let before = store.get(&PageTicket::store_key(&token)).unwrap().unwrap();

        let head = http::request(addr, "HEAD", &path, &[], b"").await;
        assert_eq!(head.status, 200);
        assert!(head.body.is_empty(), "{}", head.body);
        // A previewer that is a headless browser sends what a browser sends.
        let previewer = [
            ("User-Agent", "Slackbot-LinkExpanding 1.0"),
            ("Sec-Fetch-Site", "none"),
            ("Sec-Fetch-Mode", "navigate"),
            ("Sec-Fetch-Dest", "document"),
            ("Sec-Fetch-User", "?1"),
        ];
        let preview = http::request(addr, "GET", &path, &previewer, b"").await;
        assert_eq!(preview.status, 200, "{}", preview.body);
        assert_eq!(
            store.get(&PageTicket::store_key(&token)).unwrap().unwrap(),
            before,
            "nothing bound"
        );

        let person = http::open(addr, &path, None).await;
        assert_eq!(person.status, 200, "{}", person.body);
        let cookie = person.cookie().unwrap();
        // Previewed again while the person fills the page.
        assert_eq!(
            http::request(addr, "HEAD", &path, &[], b"").await.status,
            200
        );
        assert_eq!(
            http::request(addr, "GET", &path, &previewer, b"")
                .await
                .status,
            200
        );
        assert_eq!(
            store.get(&PageTicket::store_key(&token)).unwrap().unwrap(),
            before,
            "nothing bound"
        );

        let done = http::submit(addr, &path, &cookie, GOOD).await;
        assert_eq!(done.status, 200, "{}", done.body);
        assert!(done.body.contains("Received"));
        assert!(matches!(wait.answer().await, Ok(Elicited::Accepted(_))));
        page.shutdown();
    });
}

/// What binds the page is the first submission: from then on only that browser sends
/// the corrected answer, and every other one is refused, looking or sending.
// covers: S6, F3
#[test]
fn the_first_submission_binds_the_page_to_its_browser() {
    run(async {
        let store = MemoryStore::<PageTicket>::new();
        let page = SecurePage::builder()
            .store(store.clone())
            .bind(([127, 0, 0, 1], 0))
            .await
            .unwrap();
        let addr = page.local_addr();
        let (path, wait) = opened(&page).await;
        let token = path.trim_start_matches("/elicit/").to_owned();
        let person = http::open(addr, &path, None).await.cookie().unwrap();
        let other = http::open(addr, &path, None).await.cookie().unwrap();
        assert_ne!(person, other);
        assert!(!store
            .get(&PageTicket::store_key(&token))
            .unwrap()
            .unwrap()
            .is_bound_to_a_browser());

        // The person's first answer is refused by the form, and binds the page.
        assert_eq!(http::submit(addr, &path, &person, SHORT).await.status, 422);
        assert!(store
            .get(&PageTicket::store_key(&token))
            .unwrap()
            .unwrap()
            .is_bound_to_a_browser());
        for refused in [
            http::submit(addr, &path, &other, GOOD).await,
            http::open(addr, &path, Some(&other)).await,
            http::open(addr, &path, None).await,
        ] {
            assert_eq!(refused.status, 403, "{}", refused.body);
            assert!(refused.body.contains("another browser"), "{}", refused.body);
        }
        assert_eq!(page.waiting(), 1);
        assert_eq!(http::open(addr, &path, Some(&person)).await.status, 200);
        assert_eq!(http::submit(addr, &path, &person, GOOD).await.status, 200);
        assert!(matches!(wait.answer().await, Ok(Elicited::Accepted(_))));
        page.shutdown();
    });
}

// ---------------------------------------------------------------------------------------
// Finding 13: `Debug`

/// Everything that holds a page's link, or its token, or the browser's binding, is
/// printed with `Debug` as a log line would print it: no token, no binding.
// covers: S1, U3
#[test]
fn debug_never_shows_a_page_token_or_a_link_that_carries_one() {
    run(async {
        let store = MemoryStore::<PageTicket>::new();
        let page = SecurePage::builder()
            .store(store.clone())
            .bind(([127, 0, 0, 1], 0))
            .await
            .unwrap();
        let addr = page.local_addr();
        let link = page.link::<DeployKey>("Paste your deploy key").unwrap();
        let url = link.url().to_owned();
        let path = path_of(&page, &url);
        let token = path.trim_start_matches("/elicit/").to_owned();
        let agent = elicitor(None);
        let pending = agent.url(Scope::session("s1"), "Connect", &url).unwrap();
        let mut printed = vec![format!("{link:?}"), format!("{page:?}")];
        let wait = link.open(pending.elicitation_id(), None).unwrap();
        // Bound to a browser by a first submission, so that the ticket holds a binding.
        let cookie = http::open(addr, &path, None).await.cookie().unwrap();
        assert_eq!(http::submit(addr, &path, &cookie, SHORT).await.status, 422);
        let binding = cookie.trim_start_matches("elicit_page=").to_owned();
        let ticket = store.get(&PageTicket::store_key(&token)).unwrap().unwrap();
        assert!(ticket.is_bound_to_a_browser());

        let request = pending.request();
        let mcp = elicit::protocol::mcp::v2025_11_25::ElicitRequestParams::try_from(request)
            .expect("an MCP form of the request");
        let mcp_2026 =
            elicit::protocol::mcp::v2026_07_28::UrlParams::new("Connect", url.clone()).unwrap();
        printed.extend([
            format!("{pending:?}"),
            format!("{pending:#?}"),
            format!("{request:?}"),
            format!("{:?}", request.params()),
            format!("{mcp:?}"),
            format!("{mcp_2026:?}"),
            format!("{wait:?}"),
            format!("{ticket:?}"),
        ]);
        for text in &printed {
            assert!(!text.contains(&token), "the token in {text}");
            assert!(!text.contains(&binding), "the browser's binding in {text}");
        }
        // Where the link goes is still told: its origin.
        assert!(
            printed[2].contains(&format!("\"{}/…\"", page.origin())),
            "{}",
            printed[2]
        );
        // A link's user-info, path, query and fragment are never shown either.
        let other = elicit::CreateElicitation::url(
            Scope::session("s1"),
            "Sign in",
            "e-9",
            "https://user:hunter2@auth.example.com:8443/cb/t0k3n?state=s3cr3t#frag",
        )
        .unwrap();
        let text = format!("{other:?}");
        assert!(
            text.contains("\"https://auth.example.com:8443/…\""),
            "{text}"
        );
        for hidden in ["hunter2", "t0k3n", "s3cr3t", "frag"] {
            assert!(!text.contains(hidden), "{hidden} in {text}");
        }
        // The wire form is untouched.
        assert_eq!(request.to_json()["url"], url.as_str());
        drop(wait);
        page.shutdown();
    });
}
