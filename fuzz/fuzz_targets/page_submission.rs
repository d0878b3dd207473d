//! The secure page's submission (`POST {mount}/{token}`), as a browser or anyone else
//! sends it: the input's first byte picks the form and the request's headers (its
//! `Origin` and `Sec-Fetch-Site`, the page's defence against cross-site posts; its
//! `Content-Type`; the page's cookie), the rest is the body, any bytes. Each request goes
//! through the page's real router (axum, in process, no socket) to a page opened for
//! the form and waiting for its answer.
//!
//! Invariants:
//! - never a panic, and every reply is one of the page's own, with its security headers
//!   (CSP, `no-store`, `nosniff`, `DENY`);
//! - a post from another origin, or another site, or without either header, is
//!   refused with 403, one that is not a form with 415, one without the page's cookie
//!   with 403: nothing reaches the waiting task;
//! - otherwise decline and cancel reach the task as such, with no content (R2); an
//!   answer is taken (200, "Received") exactly when the form's content validates and
//!   parses into the form's type, and the task then gets a value whose content
//!   validates (F3) and is what was sent; an invalid answer is refused with 422, the
//!   form shown again, nothing taken, and a secret typed into it is never written back
//!   into the page;
//! - the page takes one answer: a second post of the same body is refused (410) and
//!   delivers nothing more.
#![no_main]

use std::sync::OnceLock;
use std::time::Duration;

use axum::body::Body;
use axum::http::{header, Request, StatusCode};
use axum::response::Response;
use axum::Router;
use elicit::axum::{PageWait, SecurePage};
use elicit::client::html::{Submission, SubmitAction};
use elicit::{Elicit, Elicited};
use libfuzzer_sys::fuzz_target;
use tower::ServiceExt;

/// The `mcp_server` example's secret: a masked field with length bounds.
#[derive(Elicit, Debug, PartialEq)]
#[elicit(url_mode, title = "Your API key")]
struct ApiKey {
    /// The API key of your account, from its settings page
    #[elicit(title = "API key", min_length = 16, max_length = 200)]
    api_key: String,
}

/// A form of every kind a page shows.
#[derive(Elicit, Debug, PartialEq)]
#[elicit(url_mode, title = "Grant access")]
struct Grant {
    /// Access token
    #[elicit(pattern = "^[A-Za-z0-9_-]{16,64}$")]
    token: String,
    /// Scope
    scope: Scope,
    /// Days
    #[elicit(minimum = 1, maximum = 365)]
    days: Option<u16>,
    /// Ratio
    #[elicit(minimum = 0.0, maximum = 1.0)]
    ratio: Option<f64>,
    /// Remember this device
    remember: bool,
    /// Tags
    #[elicit(max_items = 2)]
    tags: Vec<Tag>,
}

#[derive(Elicit, Debug, PartialEq, Clone, Copy)]
enum Scope {
    Read,
    Write,
}

#[derive(Elicit, Debug, PartialEq, Clone, Copy)]
enum Tag {
    A,
    B,
    C,
}

const ORIGIN: &str = "http://127.0.0.1:8080";
const COOKIE: &str = "elicit_page=0123456789abcdef0123456789abcdef";

fn runtime() -> &'static tokio::runtime::Runtime {
    static RUNTIME: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RUNTIME.get_or_init(|| {
        tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .expect("a runtime")
    })
}

/// How the request is dressed, from the input's first byte.
struct Dress {
    origin: Option<&'static str>,
    site: Option<&'static str>,
    content_type: Option<&'static str>,
    cookie: Option<&'static str>,
    again: bool,
}

impl Dress {
    fn of(byte: u8) -> Dress {
        let (origin, site) = match (byte >> 1) & 3 {
            0 => (Some(ORIGIN), None),
            1 => (None, Some("same-origin")),
            2 => (Some("http://evil.example"), None),
            _ => (Some(ORIGIN), Some("cross-site")),
        };
        let content_type = match (byte >> 3) & 3 {
            0 => Some("application/x-www-form-urlencoded"),
            1 => Some("Application/X-WWW-Form-Urlencoded; charset=UTF-8"),
            2 => Some("text/plain"),
            _ => None,
        };
        let cookie = match (byte >> 5) & 3 {
            0 | 1 => Some(COOKIE),
            2 => None,
            _ => Some("elicit_page=not-a-cookie-the-page-set"),
        };
        Dress {
            origin,
            site,
            content_type,
            cookie,
            again: byte & 0x80 != 0,
        }
    }

    /// The refusal the page owes this request before it reads the body, if any.
    fn refusal(&self) -> Option<StatusCode> {
        let same_origin = match (self.origin, self.site) {
            (_, Some(site)) if site != "same-origin" => false,
            (Some(origin), _) => origin == ORIGIN,
            (None, Some(_)) => true,
            (None, None) => false,
        };
        if !same_origin {
            return Some(StatusCode::FORBIDDEN);
        }
        if self.content_type.is_none() || self.content_type == Some("text/plain") {
            return Some(StatusCode::UNSUPPORTED_MEDIA_TYPE);
        }
        if self.cookie != Some(COOKIE) {
            return Some(StatusCode::FORBIDDEN);
        }
        None
    }

    fn request(&self, path: &str, body: &[u8]) -> Request<Body> {
        let mut request = Request::post(path).header(header::HOST, "127.0.0.1:8080");
        if let Some(origin) = self.origin {
            request = request.header(header::ORIGIN, origin);
        }
        if let Some(site) = self.site {
            request = request.header("sec-fetch-site", site);
        }
        if let Some(content_type) = self.content_type {
            request = request.header(header::CONTENT_TYPE, content_type);
        }
        if let Some(cookie) = self.cookie {
            request = request.header(header::COOKIE, cookie);
        }
        request.body(Body::from(body.to_vec())).expect("a request")
    }
}

async fn send(app: &Router, request: Request<Body>) -> (StatusCode, String) {
    let response: Response = app.clone().oneshot(request).await.expect("infallible");
    let headers = response.headers();
    for (name, value) in [
        (header::CONTENT_TYPE, "text/html; charset=utf-8"),
        (header::CACHE_CONTROL, "no-store"),
        (header::X_FRAME_OPTIONS, "DENY"),
        (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
    ] {
        assert_eq!(
            headers.get(&name).map(|v| v.as_bytes()),
            Some(value.as_bytes())
        );
    }
    let csp = headers
        .get(header::CONTENT_SECURITY_POLICY)
        .expect("every page has its CSP");
    assert!(csp.to_str().unwrap().starts_with("default-src 'none'"));
    let status = response.status();
    let body = axum::body::to_bytes(response.into_body(), 1 << 20)
        .await
        .expect("the page's body");
    (
        status,
        String::from_utf8(body.to_vec()).expect("UTF-8 pages"),
    )
}

/// Whether the wait has an answer now, and which.
async fn answered<T: Elicit + Send + 'static>(
    wait: PageWait<T>,
) -> Option<Elicited<elicit::axum::Submitted<T>>> {
    match tokio::time::timeout(Duration::ZERO, wait.answer()).await {
        Ok(answer) => Some(answer.expect("a page that answered gives the answer")),
        Err(_) => None,
    }
}

async fn post<T: Elicit + Send + PartialEq + std::fmt::Debug + 'static>(
    dress: &Dress,
    body: &[u8],
) {
    let page = SecurePage::builder()
        .mounted(ORIGIN, "/elicit")
        .expect("a loopback page");
    let app = Router::new().nest(page.mount_path(), page.router());
    let link = page.link::<T>("Answer here.").expect("a link");
    let path = link
        .url()
        .strip_prefix(ORIGIN)
        .expect("on the page's origin")
        .to_owned();
    let wait = link.open_standalone(None).expect("the page opens");

    let schema = T::requested_schema();
    let submission = Submission::parse(schema, body);
    let (status, page_text) = send(&app, dress.request(&path, body)).await;

    if let Some(refused) = dress.refusal() {
        assert_eq!(status, refused, "{page_text}");
        assert!(
            answered(wait).await.is_none(),
            "a refused post was answered"
        );
        return;
    }
    let accepted = match submission.action() {
        Some(SubmitAction::Decline | SubmitAction::Cancel) => true,
        Some(SubmitAction::Accept) | None => submission
            .content()
            .ok()
            .is_some_and(|content| T::from_content(&content).is_ok()),
    };
    if !accepted {
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{page_text}");
        // A secret typed into the form is never written back into the page.
        if let Some(at) = page_text.find("name=\"f.api_key\"") {
            let start = page_text[..at].rfind('<').expect("inside a tag");
            let end = at + page_text[at..].find('>').expect("a closed tag");
            assert!(
                !page_text[start..end].contains(" value="),
                "the secret refilled: {}",
                &page_text[start..=end]
            );
        }
        assert!(
            answered(wait).await.is_none(),
            "an invalid answer was taken"
        );
        return;
    }
    assert_eq!(status, StatusCode::OK, "{page_text}");
    if dress.again {
        let (again, _) = send(&app, dress.request(&path, body)).await;
        assert_eq!(again, StatusCode::GONE, "a used page took a second post");
    }
    match (submission.action(), answered(wait).await) {
        (Some(SubmitAction::Decline), Some(Elicited::Declined))
        | (Some(SubmitAction::Cancel), Some(Elicited::Cancelled)) => {
            assert!(page_text.contains("Nothing was sent"), "{page_text}");
        }
        (Some(SubmitAction::Accept) | None, Some(Elicited::Accepted(submitted))) => {
            assert!(page_text.contains("Received"), "{page_text}");
            let content = submitted.value().to_content();
            assert!(schema.validate(&content).is_ok(), "F3: {content:?}");
            let sent = submission.content().expect("validated above");
            assert_eq!(
                T::from_content(&sent).ok().as_ref(),
                Some(submitted.value()),
                "the task got what was sent"
            );
            assert_eq!(submitted.user(), None, "the page authenticates nobody");
        }
        (action, answer) => panic!("{action:?} answered as {answer:?}"),
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&first, body)) = data.split_first() else {
        return;
    };
    let dress = Dress::of(first);
    runtime().block_on(async {
        if first & 1 == 0 {
            post::<ApiKey>(&dress, body).await;
        } else {
            post::<Grant>(&dress, body).await;
        }
    });
});
