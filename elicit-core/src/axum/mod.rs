//! The agent's own secure page for a URL-mode elicitation, served with
//! [axum](https://docs.rs/axum) on a loopback address of its own, or nested into the
//! server's own axum application behind its public `https://` origin (feature `axum`).
//!
//! Anything sensitive (an API key, a password, a payment detail) goes through URL mode:
//! the client shows the user a link to a page of the agent's, and what the user types
//! there never passes through the client or reaches a model ([F5](crate::rules#f5),
//! [F6](crate::rules#f6), [U3](crate::rules#u3)). [`SecurePage`] is that page for a form
//! derived with `#[elicit(url_mode)]`:
//!
//! 1. [`SecurePage::bind`] starts the server on a loopback address the agent chooses.
//! 2. [`SecurePage::link`] mints a one-time token: 256 bits from the operating system's
//!    random source, the only thing in the link ([S1](crate::rules#s1)).
//! 3. [`PageLink::open_pending_consent`] binds the token to the `elicitationId` and to
//!    the user who started it ([S6](crate::rules#s6)), with an expiry, and the agent
//!    sends the URL in a URL-mode request (`Elicitor::url`; or all of this in one call
//!    with the SDK integrations, e.g. `agent_client_protocol::ask_secret`).
//! 4. When the client answers `accept`, [`PageWait::record_consent`] lets the page take
//!    a submission ([U2](crate::rules#u2)); on decline or cancel, dropping the wait
//!    closes the page.
//! 5. [`PageWait::answer`] waits for the user's submission and returns the typed value,
//!    validated exactly as [`Elicit::from_content`], with the user the page verified;
//!    the agent then completes the elicitation in its registry with that user
//!    ([S6](crate::rules#s6)) and sends `elicitation/complete` ([U5](crate::rules#u5)).
//!
//! # Who fills the page
//!
//! A link travels (forwarded, shared, unfurled by a chat), so the page verifies who is
//! at the browser with the agent's own login ([`SecurePageBuilder::authenticate`]) and
//! a submission carries the user it verified; a page for a public origin cannot be
//! built without it, unless a single-user deployment says in so many words that it
//! gives that up ([`SecurePageBuilder::unauthenticated_single_user`]). A page that
//! authenticates nobody (on loopback only) opens only for elicitations started without
//! a user. See [who fills the page](SecurePageBuilder#who-fills-the-page-s6).
//!
//! # What binds the page
//!
//! Looking at the page changes nothing: a `GET` or `HEAD` shows the form (or its
//! headers) and writes nothing, so a link previewer, a mail scanner or a chat's
//! unfurler that fetches the link (headless browsers included, which send the same
//! headers as a person's) cannot lock the person out. What binds the page is the
//! first submission, which only a person makes on the page itself (same-origin,
//! after consent): the page is then bound to that browser with a `SameSite=Strict`,
//! `HttpOnly` cookie the page set when it showed the form, and only that browser can
//! send a corrected answer; any other is refused.
//!
//! What the page refuses, changing nothing: an unknown, expired or used token (the
//! page is submitted once); a submission before the client's consent is recorded
//! (the form is shown again, saying to confirm in the client first); another browser
//! once a browser submitted; with [`SecurePageBuilder::authenticate`], a person the
//! agent's own authentication does not recognise as the user who started the
//! elicitation ([S6](crate::rules#s6)); a `POST` without the page's cookie or that is
//! not same-origin (`Origin`, `Sec-Fetch-Site`); a `Host` other than
//! the page's origin's (DNS rebinding); a body that is not a urlencoded form or
//! is larger than 64 KiB; any other path or method. Every page is sent with a content
//! security policy that forbids scripts, frames and foreign form targets, and with
//! `Cache-Control: no-store` and `Referrer-Policy: same-origin`, so the token does not
//! leak into caches or into the `Referer` of another site. (Not `no-referrer`: under
//! it a browser sends `Origin: null` with the page's own form, which then could not be
//! told from a sandboxed page's post.)
//!
//! The state of each token (its bindings, expiry, used-once mark) lives in a
//! [`Store`], the storage interface of the [`UrlRegistry`](crate::agent::UrlRegistry)
//! too; [`MemoryStore`] is the default. The value itself is
//! handed to the waiting task in memory and never stored.
//!
//! # Several instances
//!
//! Behind a load balancer, the browser's `GET` and `POST` may reach another instance
//! than the one whose task waits. Give every instance the same store (a
//! `RedisStore`) and its own relay (`SecurePageBuilder::relay` with a `RedisRelay`,
//! feature `redis`): each ticket then also holds the form's schema and message and the
//! waiting instance's public key, so any instance shows the page, checks the answer
//! against the schema and hands it, sealed for the waiting instance, through Redis
//! pub/sub. Each routed ticket is tagged under the deployment's `RelayKey`, which
//! Redis never holds, so a ticket whose route or form someone rewrote in Redis is
//! refused; tickets are stored under a digest of their token
//! ([`PageTicket::store_key`]), never the token. The person sees "Received" only when
//! the waiting instance acknowledged that its task took the answer; else a page
//! saying the answer was not delivered. A page whose waiting instance is gone is
//! refused as soon as it is opened.
//!
//! ```no_run
//! use elicit::agent::{ConnectionId, Elicitor, UrlOutcome, UrlPolicy, UserId};
//! use elicit::axum::SecurePage;
//! use elicit::protocol::ElicitationResponse;
//! use elicit::{Elicit, ElicitationCapabilities, Elicited, Scope};
//!
//! // `ApiKey` is a form derived with `#[derive(Elicit)] #[elicit(url_mode)]`.
//! async fn run<ApiKey: Elicit + Send + 'static>(
//!     capabilities: ElicitationCapabilities,
//!     send: impl AsyncFnOnce(&elicit::CreateElicitation) -> ElicitationResponse,
//! ) -> Result<(), Box<dyn std::error::Error>> {
//!     // One person's own agent on their machine: no login, one user (S6 given up).
//!     let alice = UserId::new("alice");
//!     let page = SecurePage::builder()
//!         .unauthenticated_single_user(alice.clone())
//!         .bind(([127, 0, 0, 1], 0))
//!         .await?;
//!     let elicitor = Elicitor::new(capabilities, ConnectionId::new())
//!         .with_user(alice)
//!         .with_url_policy(UrlPolicy::new().allow_loopback_http(true));
//!
//!     let link = page.link::<ApiKey>("Paste the API key of your deploy account")?;
//!     let pending = elicitor.url(Scope::session("s1"), "Connect your deploy account", link.url())?;
//!     let mut wait = link.open_pending_consent(pending.elicitation_id(), elicitor.user())?;
//!     let response = send(pending.request()).await;
//!     match elicitor.record_response(pending.elicitation_id(), &response)? {
//!         // U2: consent; the page takes the submission from now on.
//!         UrlOutcome::Consented => wait.record_consent()?,
//!         // Dropping the wait closes the page.
//!         UrlOutcome::Declined | UrlOutcome::Cancelled => return Ok(()),
//!     }
//!     match wait.answer().await? {
//!         Elicited::Accepted(submitted) => {
//!             let done = elicitor.complete(pending.elicitation_id(), submitted.user())?;
//!             // … send `done` as `elicitation/complete`, then use the key:
//!             let _key: ApiKey = submitted.into_value();
//!         }
//!         Elicited::Declined | Elicited::Cancelled => { /* the user refused on the page */ }
//!     }
//!     Ok(())
//! }
//! ```
//!
//! # In the server's own application
//!
//! A remote server (an MCP server over Streamable HTTP, say) already has an axum
//! application and a public origin, with TLS at a reverse proxy in front. Instead of
//! binding a listener, [`SecurePageBuilder::mounted`] makes the page for that origin
//! and a mount path, and [`SecurePage::router`] gives its routes to
//! [`nest`](axum::Router::nest) there, beside the application's own. Its links are
//! then `https://agent.example.com/elicit/<token>`, and everything above holds the same
//! way, by the same handlers: each request must name the configured origin in `Host`
//! (DNS rebinding), each `POST` must come from it (`Origin`, `Sec-Fetch-Site`), the
//! cookie gets `Secure`. The origin comes from the configuration, never from a
//! request. Behind a proxy that does not pass the browser's `Host` on, say so with
//! [`trust_forwarded`](SecurePageBuilder::trust_forwarded): the host and scheme are
//! then read from the proxy's `Forwarded` or `X-Forwarded-Host`/`X-Forwarded-Proto`
//! headers, which are otherwise ignored, since anyone can send them. Plain `http` is
//! refused for a public origin unless its host is loopback ([S1](crate::rules#s1)).
//!
//! The form posts to the page's own URL (its markup holds no path), so a proxy that
//! maps the public path to another one inside the application breaks nothing: nest the
//! router where the requests arrive, and give `mounted` the path the browser sees.
//!
//! ```no_run
//! use axum::routing::get;
//! use axum::Router;
//! use elicit::agent::UserId;
//! use elicit::axum::SecurePage;
//!
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! let page = SecurePage::builder()
//!     // The proxy in front terminates TLS and sets `X-Forwarded-Host`/`-Proto`.
//!     .trust_forwarded(true)
//!     // S6: the application's own login session says who is at the browser.
//!     .authenticate(|headers| {
//!         headers.get("x-authenticated-user")?.to_str().ok().map(UserId::new)
//!     })
//!     .mounted("https://agent.example.com", "/elicit")?;
//!
//! // The application's own routes, of its own state, and the page beside them.
//! let app: Router = Router::new()
//!     .route("/", get(|| async { "the agent" }))
//!     .route("/health", get(|| async { "ok" }))
//!     .nest(page.mount_path(), page.router())
//!     .with_state(());
//!
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:8080").await?;
//! // … hand `page` to what asks for secrets: its links are
//! // `https://agent.example.com/elicit/<token>` …
//! axum::serve(listener, app).await?;
//! # Ok(())
//! # }
//! ```
//!
//! # Importing it
//!
//! This module is named after the crate it integrates, so `use elicit::axum;` would
//! hide the `axum` crate itself in that file (`axum::Router` would then be looked
//! for here). Import it under a name of its own, or name the items:
//!
//! ```text
//! use elicit::axum as elicit_axum;
//! use elicit::axum::SecurePage;
//! use axum::Router; // still the web framework
//! ```

mod handlers;
mod public;
mod ticket;

use std::any::Any;
use std::collections::{HashMap, VecDeque};
use std::fmt;
use std::io;
use std::marker::PhantomData;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, SystemTime};

use serde_json::Value;
use tokio::sync::oneshot;

use crate::agent::{random_hex, MemoryStore, Store, StoreError, UserId};
use crate::client::AgentIdentity;
use crate::content::ValidationErrors;
use crate::schema::RequestedSchema;
use crate::typed::{Elicit, Elicited};

pub use public::MountError;
pub use ticket::PageTicket;
// Not a public API: a ticket as Redis holds it, for the fuzz target `store_ticket`.
#[cfg(feature = "redis")]
#[doc(hidden)]
pub use ticket::StoredTicket;

use public::Public;

/// How long a link stays valid by default: long enough to find a key in a password
/// manager, short enough that a forgotten link is dead.
pub const DEFAULT_TTL: Duration = Duration::from_secs(10 * 60);

/// Used or expired tokens remembered by default, so that a replay is told "already
/// used" rather than "not valid"; older ones are removed from the store.
pub const DEFAULT_REMEMBER_USED: usize = 1024;

/// Bytes of randomness in a token: 256 bits, twice what guessing needs ([S1](crate::rules#s1)).
const TOKEN_BYTES: usize = 32;

/// The agent's secure page for URL-mode elicitations: an axum server on a loopback
/// address, or routes in the server's own application, serving one form per one-time
/// link. Cheap to clone: clones share one server. See the [module documentation](self)
/// for the flow and what is refused.
///
/// Three rules hold for every page:
///
/// - **Who fills it is verified, or nobody is named** ([S6](crate::rules#s6)): with
///   [`SecurePageBuilder::authenticate`] the page serves and accepts only the user who
///   started the elicitation, and the [`Submitted`] value carries that user; a page
///   that authenticates nobody carries no user, and is built for a public origin only
///   with the explicit [`SecurePageBuilder::unauthenticated_single_user`].
/// - **Consent first** ([U2](crate::rules#u2)): a page opened with
///   [`PageLink::open_pending_consent`] (as `ask_secret` does) takes no submission
///   until [`PageWait::record_consent`], and says so to the person.
/// - **Looking changes nothing**: `GET` and `HEAD` show the page and write nothing, so
///   a link previewer cannot lock the person out; the first submission binds the page
///   to its browser.
#[derive(Clone)]
pub struct SecurePage {
    shared: Arc<Shared>,
}

/// Options of a [`SecurePage`]; [`SecurePage::bind`] uses the defaults.
///
/// # Who fills the page ([S6](crate::rules#s6))
///
/// The agent must verify that the person who completes the interaction is the user who
/// started it. A link travels: a person forwards it ("please re-enter your key"), a
/// screen is shared, a chat unfurls it. So the page says who is at the browser in one
/// of three ways, and a page is opened only for an elicitation whose user it can
/// verify that way ([`PageLink::open`] refuses the others with
/// [`PageError::UserNotVerifiable`]):
///
/// - [`authenticate`](Self::authenticate): the agent's own authentication, on every
///   request; the page is shown and accepted only for the user who started the
///   elicitation, and the [`Submitted`] value carries that verified user.
/// - [`unauthenticated_single_user`](Self::unauthenticated_single_user): a deployment
///   with one user and no login declares that whoever holds the link is that user.
///   Nothing is verified; it gives up S6 for a deployment where there is nobody else to
///   tell apart.
/// - neither (the default): nobody is authenticated, and a submission carries no user.
///   Only a page on a loopback origin may be built so ([`bind`](Self::bind), or
///   [`mounted`](Self::mounted) on `localhost`), and it opens only for elicitations
///   started without a user: for one started by a user, the completion's user check
///   would fail, so the page is not opened at all rather than take an answer that
///   would then be dropped.
///
/// A page for a public origin needs one of the first two: [`mounted`](Self::mounted)
/// refuses it otherwise ([`MountError::Unauthenticated`]).
#[must_use]
pub struct SecurePageBuilder {
    who: Who,
    ttl: Duration,
    remember_used: usize,
    store: Arc<dyn Store<PageTicket>>,
    agent: Option<AgentIdentity>,
    trust_forwarded: bool,
    #[cfg(feature = "redis")]
    relay: Option<crate::agent::RedisRelay>,
}

/// Who the person at the browser is, from the request's headers (a session cookie,
/// a proxy's identity header), by the agent's own authentication.
pub type Authenticate = Arc<dyn Fn(&axum::http::HeaderMap) -> Option<UserId> + Send + Sync>;

/// How the page tells who is at the browser (see [`SecurePageBuilder`]).
#[derive(Clone)]
enum Who {
    /// Nobody is authenticated: a submission carries no user.
    Nobody,
    /// The agent's own authentication, on every request.
    Authenticate(Authenticate),
    /// One user, not authenticated: whoever holds the link counts as them.
    SingleUser(UserId),
}

impl Who {
    /// Why a page cannot be opened for an elicitation started by `user`, if it cannot.
    fn cannot_verify(&self, user: Option<&UserId>) -> Option<&'static str> {
        match (self, user) {
            (Who::Nobody, None) | (Who::Authenticate(_), Some(_)) => None,
            (Who::SingleUser(single), Some(user)) if single == user => None,
            (Who::Nobody, Some(_)) => Some(
                "the page authenticates nobody, so a submission carries no user and could \
                 not complete an elicitation started by one; give the page \
                 `SecurePageBuilder::authenticate`, or `unauthenticated_single_user` for a \
                 deployment with one user and no login",
            ),
            (Who::Authenticate(_), None) => Some(
                "the page authenticates every visitor, but the elicitation was started by no \
                 user to compare them with; open it for the elicitor's authenticated user",
            ),
            (Who::SingleUser(_), _) => Some(
                "the page takes everyone as its single user, and this elicitation was \
                 started by no user or by another one",
            ),
        }
    }
}

pub(crate) struct Shared {
    who: Who,
    /// Where the browser finds the page, and what each request must be addressed to.
    public: Public,
    /// The page's own listener, when it was started with `bind`.
    addr: Option<SocketAddr>,
    ttl: Duration,
    remember_used: usize,
    store: Arc<dyn Store<PageTicket>>,
    agent: Option<AgentIdentity>,
    /// Tokens of this process's closed pages, oldest first, for removal from the store.
    closed: Mutex<VecDeque<String>>,
    /// Forms waiting for a submission in this process, by token.
    waiting: Mutex<HashMap<String, Waiting>>,
    /// The tickets of the pages this process showed last, which their submissions
    /// start from.
    shown: Mutex<handlers::Shown>,
    shutdown: Mutex<Option<oneshot::Sender<()>>>,
    /// Hands submissions made on other instances over, and takes theirs.
    #[cfg(feature = "redis")]
    relay: Option<crate::agent::RedisRelay>,
    /// What the relay hands this page's routed submissions to; held here, so that it
    /// lives as long as the page.
    #[cfg(feature = "redis")]
    inbox: Option<crate::agent::PageInbox>,
}

/// What a page needs to show its form and hand the answer over.
struct Waiting {
    schema: &'static RequestedSchema,
    message: String,
    /// `T::from_content`, with `T` erased.
    parse: fn(&Value) -> Result<Box<dyn Any + Send>, ValidationErrors>,
    answer: Option<oneshot::Sender<Answer>>,
    /// Who started the elicitation: whom an answer routed from another instance is for.
    #[cfg_attr(not(feature = "redis"), allow(dead_code))]
    user: Option<UserId>,
    /// Whether this process recorded the client's consent (or needs none): an answer
    /// routed from another instance is taken only then, whatever the store says.
    #[cfg_attr(not(feature = "redis"), allow(dead_code))]
    consented: bool,
    /// The tag (hex) of the routed ticket this page wrote: an answer routed from
    /// another instance must name it.
    #[cfg(feature = "redis")]
    tag: Option<String>,
    /// A routed answer for this token came (sent only after its ticket was marked
    /// used, so no other genuine one can follow) and was not taken: none is taken
    /// from then on, a replay of it included.
    #[cfg(feature = "redis")]
    spent: bool,
}

/// What the page hands the waiting task.
enum Answer {
    Accepted(Box<dyn Any + Send>, Option<UserId>),
    Declined,
    Cancelled,
}

impl SecurePageBuilder {
    /// How long a link stays valid after [`PageLink::open`] (default [`DEFAULT_TTL`]).
    pub fn ttl(mut self, ttl: Duration) -> Self {
        self.ttl = ttl;
        self
    }

    /// Checks on every request who the person at the browser is, with the agent's own
    /// authentication (a session cookie it set at login, the identity header of an
    /// authenticating proxy in front): the page is shown and accepted only for the user
    /// the link was opened for ([S6](crate::rules#s6)), anyone else is refused (`403`,
    /// or `401` when `authenticate` returns `None`), and the [`Submitted`] value
    /// carries the user it verified. A link forwarded to another person is then
    /// refused to them. Replaces
    /// [`unauthenticated_single_user`](Self::unauthenticated_single_user).
    pub fn authenticate(
        mut self,
        authenticate: impl Fn(&axum::http::HeaderMap) -> Option<UserId> + Send + Sync + 'static,
    ) -> Self {
        self.who = Who::Authenticate(Arc::new(authenticate));
        self
    }

    /// Gives up verifying who fills the page ([S6](crate::rules#s6)), for a deployment
    /// with a single user and no login: whoever holds a link counts as `user`, the
    /// [`Submitted`] value carries `user`, and the page opens only for elicitations
    /// started by `user` (the elicitor's own). Anyone a link reaches (a forwarded
    /// message, a shared screen, a chat that shows it) can answer in that user's name:
    /// choose it only where nobody else can reach the page or would be told apart
    /// anyway, such as one person's own agent. With several users, use
    /// [`authenticate`](Self::authenticate), which this replaces.
    pub fn unauthenticated_single_user(mut self, user: UserId) -> Self {
        self.who = Who::SingleUser(user);
        self
    }

    /// How many closed pages' tokens stay in the store, marked used (default
    /// [`DEFAULT_REMEMBER_USED`]): a replay of one of them is told the page was already
    /// used; an older one is removed, and its link is then simply not valid. Either way
    /// it is refused; the bound keeps the store's memory bounded.
    pub fn remember_used(mut self, count: usize) -> Self {
        self.remember_used = count;
        self
    }

    /// Keeps the tokens' state in this store instead of a [`MemoryStore`] of its own.
    pub fn store(mut self, store: impl Store<PageTicket> + 'static) -> Self {
        self.store = Arc::new(store);
        self
    }

    /// Names the agent on the page, as the client names it ([K1](crate::rules#k1)).
    pub fn agent(mut self, agent: AgentIdentity) -> Self {
        self.agent = Some(agent);
        self
    }

    /// Routes through `relay` (feature `redis`): a submission of this page's links that
    /// reaches another instance (sharing the [store](Self::store), in Redis) is sealed
    /// for this one and handed to the [`PageWait`] waiting here, and this page serves
    /// and hands over the links other instances opened. Each ticket then also holds the
    /// form's schema and message (to show it anywhere) and this instance's id and
    /// public key, never an answer. A submission whose waiting instance is gone is
    /// refused with a page saying it was not delivered, never "Received".
    #[cfg(feature = "redis")]
    #[cfg_attr(docsrs, doc(cfg(feature = "redis")))]
    pub fn relay(mut self, relay: &crate::agent::RedisRelay) -> Self {
        self.relay = Some(relay.clone());
        self
    }

    /// Reads the host and scheme the browser used from the `Forwarded` header (RFC
    /// 7239), or else from `X-Forwarded-Host` and `X-Forwarded-Proto`, instead of the
    /// request's own `Host` (default: off). Turn it on only when every request reaches
    /// the page through a proxy of the deployment that sets (or overwrites) these
    /// headers: anyone can write them, so without such a proxy they are ignored. When
    /// on, the last value of each counts (the one the proxy next to the app adds), and
    /// it must name the [public origin](Self::mounted): its host, and its scheme, so a
    /// browser that reached the proxy over plain `http` for an `https` page is
    /// refused too. A request without them is checked by its `Host`. A request with
    /// both `Forwarded` and `X-Forwarded-Host` or `X-Forwarded-Proto` is refused: a
    /// proxy sets one family, so the other is the client's, and a client-written
    /// `Forwarded` must not beat the proxy's `X-Forwarded-*` (nor the reverse).
    pub fn trust_forwarded(mut self, trust: bool) -> Self {
        self.trust_forwarded = trust;
        self
    }

    /// Makes a page to be served by the application's own server, under
    /// `public_origin` (where browsers reach it, e.g. `https://agent.example.com`) at
    /// `mount_path` (e.g. `/elicit`): its links are
    /// `https://agent.example.com/elicit/<token>`. Serve it by nesting
    /// [`SecurePage::router`] into the application at that path (see the [module
    /// documentation](self)); nothing is listened on here.
    ///
    /// Every request must then be addressed to that origin (`Host`, or with
    /// [`trust_forwarded`](Self::trust_forwarded) the proxy's headers), and every
    /// `POST` must come from it (`Origin`, `Sec-Fetch-Site`). Refused with a
    /// [`MountError`] saying why: a `public_origin` that is not just a scheme, host and
    /// optional port; plain `http` on a host that is not loopback (the page asks for
    /// secrets: [S1](crate::rules#s1) asks for HTTPS outside development, so `http`
    /// is accepted only for `localhost`, `127.0.0.0/8` and `[::1]`); a `mount_path`
    /// that is the root or not a plain path; a public origin (a host that is not
    /// loopback) without [`authenticate`](Self::authenticate) or
    /// [`unauthenticated_single_user`](Self::unauthenticated_single_user)
    /// ([S6](crate::rules#s6): see [Who fills the page](Self#who-fills-the-page-s6)).
    pub fn mounted(self, public_origin: &str, mount_path: &str) -> Result<SecurePage, MountError> {
        let public = Public::parse(public_origin, mount_path, self.trust_forwarded)?;
        if !public.loopback && matches!(self.who, Who::Nobody) {
            return Err(MountError::Unauthenticated {
                origin: public_origin.to_owned(),
            });
        }
        Ok(self.build(public, None, None))
    }

    fn build(
        self,
        public: Public,
        addr: Option<SocketAddr>,
        stop: Option<oneshot::Sender<()>>,
    ) -> SecurePage {
        let shared = Arc::new_cyclic(|_weak| Shared {
            who: self.who,
            public,
            addr,
            ttl: self.ttl,
            remember_used: self.remember_used,
            store: self.store,
            closed: Mutex::new(VecDeque::new()),
            agent: self.agent,
            waiting: Mutex::new(HashMap::new()),
            shown: Mutex::new(handlers::Shown::default()),
            shutdown: Mutex::new(stop),
            #[cfg(feature = "redis")]
            inbox: self.relay.as_ref().map(|_| inbox(_weak.clone())),
            #[cfg(feature = "redis")]
            relay: self.relay,
        });
        #[cfg(feature = "redis")]
        if let (Some(relay), Some(inbox)) = (&shared.relay, &shared.inbox) {
            relay.on_page(inbox);
        }
        SecurePage { shared }
    }

    /// Starts the server on `addr`, which must be a loopback address (port 0 picks a
    /// free port); its links are `http://ADDR/elicit/<token>`. Must be called within a tokio runtime; the server runs as a task
    /// of it until [`SecurePage::shutdown`].
    ///
    /// A non-loopback address is refused with [`io::ErrorKind::InvalidInput`]: the
    /// page is served over plain HTTP, which is safe only where nobody else can listen
    /// ([S1](crate::rules#s1) asks for HTTPS outside development). To serve the page
    /// to other machines, nest it in the server's own application behind its
    /// `https://` origin with [`mounted`](Self::mounted).
    pub async fn bind(self, addr: impl Into<SocketAddr>) -> io::Result<SecurePage> {
        let addr = addr.into();
        if !addr.ip().is_loopback() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "the secure page serves plain HTTP and binds only to a loopback address, not {}; \
                     use 127.0.0.1 or ::1, or nest `SecurePage::router` in your own server \
                     behind its https origin (`SecurePageBuilder::mounted`)",
                    addr.ip()
                ),
            ));
        }
        let listener = tokio::net::TcpListener::bind(addr).await?;
        let addr = listener.local_addr()?;
        let (stop, stopped) = oneshot::channel::<()>();
        let public = Public::loopback(addr, "/elicit", self.trust_forwarded);
        let page = self.build(public, Some(addr), Some(stop));
        let app = handlers::server(Arc::clone(&page.shared));
        tokio::spawn(async move {
            // A failed accept loop ends the server; the waiting asks then expire.
            let _ = axum::serve(listener, app)
                .with_graceful_shutdown(async {
                    let _ = stopped.await;
                })
                .await;
        });
        Ok(page)
    }
}

impl SecurePage {
    /// The options, starting from the defaults.
    pub fn builder() -> SecurePageBuilder {
        SecurePageBuilder {
            who: Who::Nobody,
            ttl: DEFAULT_TTL,
            remember_used: DEFAULT_REMEMBER_USED,
            store: Arc::new(MemoryStore::<PageTicket>::new()),
            agent: None,
            trust_forwarded: false,
            #[cfg(feature = "redis")]
            relay: None,
        }
    }

    /// Starts a server with the default options on a loopback `addr`; see
    /// [`SecurePageBuilder::bind`].
    pub async fn bind(addr: impl Into<SocketAddr>) -> io::Result<SecurePage> {
        Self::builder().bind(addr).await
    }

    /// The address the page's own server listens on, for a page started with
    /// [`bind`](SecurePageBuilder::bind). A [mounted](SecurePageBuilder::mounted) page
    /// has no listener of its own: this is then the unspecified address `0.0.0.0:0`;
    /// [`listen_addr`](Self::listen_addr) tells the two apart.
    pub fn local_addr(&self) -> SocketAddr {
        self.listen_addr()
            .unwrap_or_else(|| SocketAddr::from(([0, 0, 0, 0], 0)))
    }

    /// The address the page's own server listens on, or `None` for a
    /// [mounted](SecurePageBuilder::mounted) page, served by the application.
    pub fn listen_addr(&self) -> Option<SocketAddr> {
        self.shared.addr
    }

    /// The origin of its pages: `http://127.0.0.1:PORT` for a bound page, the public
    /// origin of a mounted one (`https://agent.example.com`).
    pub fn origin(&self) -> &str {
        &self.shared.public.origin
    }

    /// The path its pages sit under, `/elicit` by default: where to nest
    /// [`router`](Self::router) in an application that no proxy rewrites paths for.
    pub fn mount_path(&self) -> &str {
        &self.shared.public.mount
    }

    /// The page's routes, to nest into an application at [`mount_path`](Self::mount_path):
    /// `GET` and `POST /{token}`, with the page's own state applied, so they fit an
    /// application of any state `S`. The same handlers as a bound page's, with the same
    /// checks, against this page's [origin](Self::origin). Paths under the mount that
    /// are not a token are left to the application's fallback.
    ///
    /// Every router made from one page (or its clones) serves the same links.
    ///
    /// # What the application's server must do itself
    ///
    /// The page bounds what it reads itself (a body over 64 KiB is refused; each
    /// request is checked against the origin) but it runs inside the application's
    /// server, whose limits it cannot set. A server reachable by strangers configures:
    ///
    /// - **read timeouts**: a header read timeout (hyper's `http1::Builder::header_read_timeout`,
    ///   with a timer) and a bound on the time a request body may take, so that a
    ///   client sending a byte a minute cannot hold a connection (`axum::serve` sets
    ///   neither; the `mcp_server` example serves with its own hyper accept loop for
    ///   this);
    /// - **a bound on what one client can start**: sessions (MCP's Streamable HTTP
    ///   keeps one per `initialize`) with an idle timeout, and the page waits a session
    ///   may hold at once ([`RegistryLimits`](crate::agent::RegistryLimits));
    /// - **an exact `Origin` allow-list** for the application's own routes (scheme,
    ///   host and port; never any port of `localhost`, which any local program can
    ///   listen on): the page checks its own `POST`s, not the routes beside it;
    /// - **[`trust_forwarded`](SecurePageBuilder::trust_forwarded)** only behind a
    ///   proxy that sets the forwarded headers, and a proxy that strips the family it
    ///   does not set;
    /// - **[`authenticate`](SecurePageBuilder::authenticate)**, so that the person at
    ///   the browser is the user the elicitation is for ([S6](crate::rules#s6)).
    pub fn router<S>(&self) -> axum::Router<S>
    where
        S: Clone + Send + Sync + 'static,
    {
        handlers::routes(Arc::clone(&self.shared))
    }

    /// A new one-time link for the form `T`, with the text shown above it. Nothing is
    /// served until the link is [opened](PageLink::open) for an elicitation.
    ///
    /// Refused only when the operating system's random source fails.
    pub fn link<T: Elicit + Send + 'static>(
        &self,
        message: impl Into<String>,
    ) -> Result<PageLink<T>, PageError> {
        let token = mint_token()?;
        Ok(PageLink {
            url: self.shared.public.link_of(&token),
            token,
            message: message.into(),
            page: self.clone(),
            form: PhantomData,
        })
    }

    /// How many links are open and waiting for a submission in this process.
    pub fn waiting(&self) -> usize {
        self.shared.lock_waiting().len()
    }

    /// Stops the page. Links still open can no longer be submitted, and their waits
    /// end with [`PageError::Closed`]. A bound page's server stops; a mounted page's
    /// routes stay in the application and refuse every link.
    pub fn shutdown(&self) {
        // Dropping the senders ends every wait of this process.
        self.shared.lock_waiting().clear();
        if let Some(stop) = self
            .shared
            .shutdown
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
        {
            let _ = stop.send(());
        }
    }
}

impl fmt::Debug for SecurePage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SecurePage")
            .field("origin", &self.shared.public.origin)
            .field("mount_path", &self.shared.public.mount)
            .field("addr", &self.shared.addr)
            .field("ttl", &self.shared.ttl)
            .field("waiting", &self.waiting())
            .finish_non_exhaustive()
    }
}

impl Shared {
    fn lock_waiting(&self) -> MutexGuard<'_, HashMap<String, Waiting>> {
        self.waiting.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn lock_shown(&self) -> MutexGuard<'_, handlers::Shown> {
        self.shown.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// A one-time link to the page for the form `T`, not yet bound to an elicitation.
/// Send [`url`](Self::url) in a URL-mode request, then [`open`](Self::open) it.
#[must_use = "a link does nothing until it is opened for the elicitation that carries it"]
pub struct PageLink<T> {
    token: String,
    url: String,
    message: String,
    page: SecurePage,
    form: PhantomData<fn() -> T>,
}

impl<T> fmt::Debug for PageLink<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The URL carries the token: not for logs.
        f.debug_struct("PageLink").finish_non_exhaustive()
    }
}

impl<T: Elicit + Send + 'static> PageLink<T> {
    /// The URL to send: the page's origin, its mount path and the token, nothing else
    /// ([S1](crate::rules#s1)).
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Serves the page for the URL-mode elicitation `elicitation_id`, started by
    /// `user` ([S6](crate::rules#s6)), until the link expires or is submitted; it takes
    /// a submission at once. For a link the agent sends in a request whose answer it
    /// reads (`elicitation/create`), use
    /// [`open_pending_consent`](Self::open_pending_consent) instead; this one is for a
    /// link whose consent the agent never hears of, such as one in MCP's `-32042`
    /// error ([M4](crate::rules#m4)), which the client opens after asking the user.
    ///
    /// Refused with [`PageError::UserNotVerifiable`] when the page cannot verify that
    /// whoever fills it is `user` (see [who fills the
    /// page](SecurePageBuilder#who-fills-the-page-s6)): nothing is served then.
    pub fn open(
        self,
        elicitation_id: &str,
        user: Option<&UserId>,
    ) -> Result<PageWait<T>, PageError> {
        self.open_page(elicitation_id, user, false)
    }

    /// Serves the page as [`open`](Self::open) does, but refuses its submissions until
    /// [`PageWait::record_consent`] says the client answered `accept`
    /// ([U2](crate::rules#u2)): the page shows the form at once (the client may open
    /// the browser before the agent has read its answer), and a submission made before
    /// that is refused with a page saying to confirm in the client first. An answer is
    /// thus never taken, nor the person told "Received", for a request the client then
    /// declines. Open it before sending the request, so that the link works as soon
    /// as the user can follow it.
    pub fn open_pending_consent(
        self,
        elicitation_id: &str,
        user: Option<&UserId>,
    ) -> Result<PageWait<T>, PageError> {
        self.open_page(elicitation_id, user, true)
    }

    /// Serves the page on its own, for a secret asked outside any MCP or ACP
    /// elicitation (a web app's settings, a CLI that prints the link): the page mints
    /// the link's `elicitationId` itself, unguessable as the registry's
    /// ([U4](crate::rules#u4)), readable with [`PageWait::elicitation_id`], and takes a
    /// submission at once, as [`open`](Self::open) does. No [`Elicitor`] is needed.
    ///
    /// `user` is who must fill it ([S6](crate::rules#s6)); refused with
    /// [`PageError::UserNotVerifiable`] when the page cannot verify that, and with
    /// [`PageError::RandomnessUnavailable`] when no id can be made.
    ///
    /// [`Elicitor`]: crate::Elicitor
    pub fn open_standalone(self, user: Option<&UserId>) -> Result<PageWait<T>, PageError> {
        let elicitation_id = random_hex::<STANDALONE_ID_BYTES>()
            .map_err(|e| PageError::RandomnessUnavailable(e.to_string()))?;
        self.open_page(&elicitation_id, user, false)
    }

    fn open_page(
        self,
        elicitation_id: &str,
        user: Option<&UserId>,
        awaits_consent: bool,
    ) -> Result<PageWait<T>, PageError> {
        let shared = &self.page.shared;
        // S6: a page that cannot tell this user from anyone else is not served.
        if let Some(reason) = shared.who.cannot_verify(user) {
            return Err(PageError::UserNotVerifiable(reason));
        }
        let expires_at = SystemTime::now() + shared.ttl;
        let mut ticket = PageTicket::new(elicitation_id, user, expires_at);
        if awaits_consent {
            ticket = ticket.awaiting_consent();
        }
        let key = PageTicket::store_key(&self.token);
        #[cfg(feature = "redis")]
        let ticket = match &shared.relay {
            Some(relay) => ticket
                .routed(
                    relay.route(),
                    ticket::RoutedForm {
                        schema: T::requested_schema().to_json(),
                        message: self.message.clone(),
                    },
                )
                .tagged(relay.keys(), &key),
            None => ticket,
        };
        #[cfg(feature = "redis")]
        let tag = ticket.tag().map(str::to_owned);
        let (tx, rx) = oneshot::channel();
        shared.lock_waiting().insert(
            self.token.clone(),
            Waiting {
                schema: T::requested_schema(),
                message: self.message,
                parse: |content| {
                    T::from_content(content).map(|t| Box::new(t) as Box<dyn Any + Send>)
                },
                answer: Some(tx),
                user: user.cloned(),
                consented: !awaits_consent,
                #[cfg(feature = "redis")]
                tag,
                #[cfg(feature = "redis")]
                spent: false,
            },
        );
        // The token is fresh; a store that already has it is broken or shared with a
        // broken minter: refuse rather than serve a page bound to someone else.
        let written = awaits_consent.then(|| ticket.clone());
        match shared.store.insert_new(&key, ticket) {
            Ok(true) => {}
            Ok(false) => {
                shared.lock_waiting().remove(&self.token);
                return Err(PageError::TokenInUse);
            }
            Err(error) => {
                shared.lock_waiting().remove(&self.token);
                return Err(PageError::Store(error));
            }
        }
        Ok(PageWait {
            token: self.token,
            elicitation_id: elicitation_id.to_owned(),
            page: self.page.clone(),
            answer: rx,
            expires_at,
            settled: false,
            awaits_consent,
            written,
            form: PhantomData,
        })
    }
}

/// An open page, waiting for the user. Dropping it closes the page: its link is
/// refused from then on.
#[must_use = "dropping the wait closes the page"]
pub struct PageWait<T> {
    token: String,
    elicitation_id: String,
    page: SecurePage,
    answer: oneshot::Receiver<Answer>,
    expires_at: SystemTime,
    /// An answer arrived: the ticket was marked used before it was handed over.
    settled: bool,
    /// Opened with `open_pending_consent`, and the consent not recorded yet.
    awaits_consent: bool,
    /// The ticket as `open_pending_consent` wrote it: what recording the consent
    /// swaps first, without reading the store.
    written: Option<PageTicket>,
    form: PhantomData<fn() -> T>,
}

/// Tries at recording the consent on a ticket that other requests keep changing; each
/// change is a step forward (bound, then used), so a few are enough.
const CAS_ATTEMPTS: usize = 8;

impl<T> fmt::Debug for PageWait<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PageWait")
            .field("expires_at", &self.expires_at)
            .finish_non_exhaustive()
    }
}

impl<T: Elicit + Send + 'static> PageWait<T> {
    /// The `elicitationId` the page was opened for: the one given to
    /// [`PageLink::open`], or the one [`PageLink::open_standalone`] minted.
    pub fn elicitation_id(&self) -> &str {
        &self.elicitation_id
    }

    /// When the link stops being accepted.
    pub fn expires_at(&self) -> SystemTime {
        self.expires_at
    }

    /// Records that the client answered `accept` to the request carrying the link
    /// ([U2](crate::rules#u2)): from now on the page takes a submission, on every
    /// instance that shares the store. For a page opened with
    /// [`PageLink::open_pending_consent`]; a no-op for one opened with
    /// [`PageLink::open`] or already consented. If the client declines or cancels,
    /// drop the wait instead: the page is closed.
    ///
    /// Fails with [`PageError::Store`] when the store fails, and
    /// [`PageError::Expired`] when the store no longer holds the page.
    pub fn record_consent(&mut self) -> Result<(), PageError> {
        if !self.awaits_consent {
            return Ok(());
        }
        let store = &self.page.shared.store;
        let key = PageTicket::store_key(&self.token);
        let mut known = self.written.take();
        for _ in 0..CAS_ATTEMPTS {
            let ticket = match known.take() {
                Some(ticket) => ticket,
                None => match store.get(&key) {
                    Ok(Some(ticket)) => ticket,
                    Ok(None) => return Err(PageError::Expired),
                    Err(error) => return Err(PageError::Store(error)),
                },
            };
            if !ticket.awaits_consent() {
                self.consent_recorded();
                return Ok(());
            }
            match store.compare_and_swap(&key, &ticket, Some(ticket.consented())) {
                Ok(true) => {
                    self.consent_recorded();
                    return Ok(());
                }
                // Another request changed it (a browser's first submission binding
                // it): read it again.
                Ok(false) => {}
                Err(error) => return Err(PageError::Store(error)),
            }
        }
        Err(PageError::Store(StoreError::new(
            "the page's ticket kept changing: every compare-and-swap was lost",
        )))
    }

    /// The consent is recorded: here, and for answers routed from other instances.
    fn consent_recorded(&mut self) {
        self.awaits_consent = false;
        if let Some(waiting) = self.page.shared.lock_waiting().get_mut(&self.token) {
            waiting.consented = true;
        }
    }

    /// Waits for the user's submission: `Accepted` with the value (validated as
    /// [`Elicit::from_content`]) and the user the page verified ([`Submitted::user`]), or `Declined` or
    /// `Cancelled` when the user pressed that button on the page. Ends with
    /// [`PageError::Expired`] when the link expires first, and
    /// [`PageError::Closed`] when the server stopped. Awaited within a tokio runtime
    /// (its timer bounds the wait).
    ///
    /// For a page opened with [`PageLink::open_pending_consent`], call
    /// [`record_consent`](Self::record_consent) first: without it the page takes no
    /// submission, and this ends at once with [`PageError::ConsentNotRecorded`].
    pub async fn answer(mut self) -> Result<Elicited<Submitted<T>>, PageError> {
        if self.awaits_consent {
            return Err(PageError::ConsentNotRecorded);
        }
        let left = self
            .expires_at
            .duration_since(SystemTime::now())
            .unwrap_or(Duration::ZERO);
        let answer = match tokio::time::timeout(left, &mut self.answer).await {
            Ok(Ok(answer)) => {
                self.settled = true;
                answer
            }
            Ok(Err(_)) => return Err(PageError::Closed),
            Err(_) => return Err(PageError::Expired),
        };
        Ok(match answer {
            Answer::Accepted(value, user) => match value.downcast::<T>() {
                Ok(value) => Elicited::Accepted(Submitted {
                    value: *value,
                    user,
                }),
                // The page parsed with `T::from_content`, stored with this token.
                Err(_) => return Err(PageError::Closed),
            },
            Answer::Declined => Elicited::Declined,
            Answer::Cancelled => Elicited::Cancelled,
        })
    }
}

impl<T> Drop for PageWait<T> {
    fn drop(&mut self) {
        let shared = &self.page.shared;
        shared.lock_waiting().remove(&self.token);
        shared.lock_shown().take(&self.token);
        // Close the page for every instance that shares the store: mark it used
        // unless it already is (an answer came only after it was). A failing store
        // leaves the expiry to end it.
        let key = PageTicket::store_key(&self.token);
        let open = if self.settled {
            None
        } else {
            shared.store.get(&key).ok().flatten()
        };
        if let Some(ticket) = open.filter(|ticket| !ticket.is_used()) {
            let _ = shared
                .store
                .compare_and_swap(&key, &ticket, Some(ticket.used()));
        }
        // Remember it within the bound; forget the oldest from the store.
        let oldest: Vec<String> = {
            let mut closed = shared.closed.lock().unwrap_or_else(PoisonError::into_inner);
            closed.push_back(self.token.clone());
            let excess = closed.len().saturating_sub(shared.remember_used);
            closed.drain(..excess).collect()
        };
        for token in oldest {
            let key = PageTicket::store_key(&token);
            if let Ok(Some(ticket)) = shared.store.get(&key) {
                let _ = shared.store.compare_and_swap(&key, &ticket, None);
            }
        }
    }
}

/// What the relay calls with a submission made on another instance: hands it to the
/// task waiting here, parsed by the form's own type, and says whether it did.
///
/// The message was opened with this instance's key and its tag under the relay key
/// passed (the relay drops anything else): only a key-holding instance sent it, and
/// one sends a submission only after its compare-and-swap marked the ticket bound to a
/// browser and used. So the ticket is not read again here. What is checked instead:
/// the page waits here and has had no routed answer yet (the first one, taken or not,
/// spends the token: a replay is refused), the message names the ticket this page
/// wrote (its tag, over the token's digest, the elicitation, the user, the expiry, the
/// route and the form), and the client's consent was recorded here.
#[cfg(feature = "redis")]
fn inbox(shared: std::sync::Weak<Shared>) -> crate::agent::PageInbox {
    use crate::agent::RoutedAction;
    Arc::new(move |message: &crate::agent::PageMessage| {
        let Some(shared) = shared.upgrade() else {
            return false;
        };
        // A message without the ticket's tag comes from an earlier version, which
        // cannot have found this page's ticket (its key's digest changed): refused.
        let Some(named) = message.ticket.as_deref() else {
            return false;
        };
        let mut waiting = shared.lock_waiting();
        let Some(form) = waiting.get_mut(&message.token) else {
            return false;
        };
        if form.spent {
            return false;
        }
        // Taken or not, the only routed answer this token gets.
        form.spent = true;
        let wrote = form.tag.as_deref().unwrap_or("");
        if wrote.is_empty() || !handlers::constant_time_eq(wrote.as_bytes(), named.as_bytes()) {
            return false;
        }
        if !form.consented {
            return false;
        }
        let answer = match message.action {
            RoutedAction::Decline => Answer::Declined,
            RoutedAction::Cancel => Answer::Cancelled,
            // The other instance validated it against the same schema; a value the
            // type still refuses is not handed over (the sender is told it was not
            // taken), and the wait ends at its expiry.
            RoutedAction::Accept => match message.content.as_ref().map(|c| (form.parse)(c)) {
                Some(Ok(value)) => Answer::Accepted(value, form.user.clone()),
                _ => return false,
            },
        };
        let sender = form.answer.take();
        waiting.remove(&message.token);
        drop(waiting);
        sender.is_some_and(|sender| sender.send(answer).is_ok())
    })
}

/// A value submitted on the page, and the user who submitted it as the page verified
/// them: complete the elicitation with that user ([S6](crate::rules#s6)).
#[derive(Debug)]
pub struct Submitted<T> {
    value: T,
    user: Option<UserId>,
}

impl<T> Submitted<T> {
    /// The value.
    pub fn value(&self) -> &T {
        &self.value
    }

    /// The value, taken out.
    pub fn into_value(self) -> T {
        self.value
    }

    /// The user who submitted the page, as the page knows them: the user
    /// [`authenticate`](SecurePageBuilder::authenticate) verified, or the deployment's
    /// [single user](SecurePageBuilder::unauthenticated_single_user); `None` when the
    /// page authenticates nobody. Complete the elicitation with it: the registry then
    /// checks it against the user who started it ([S6](crate::rules#s6)), and a
    /// submission nobody vouched for never passes for that user.
    pub fn user(&self) -> Option<&UserId> {
        self.user.as_ref()
    }
}

/// The user to complete an elicitation with, and the ask's answer.
#[cfg(any(feature = "agent-client-protocol", feature = "rmcp_3"))]
pub(crate) type Settled<T> = (Option<UserId>, Elicited<T>);

/// How a page ended, for an SDK integration's `ask_secret` after the user's consent:
/// `None` when the link expired (nothing to complete: the ask is `Cancelled`), else the
/// user to complete the elicitation with (the page's binding for a value, the asker for
/// a refusal on the page) and the ask's answer.
#[cfg(any(feature = "agent-client-protocol", feature = "rmcp_3"))]
pub(crate) fn settle<T>(
    answer: Result<Elicited<Submitted<T>>, PageError>,
    asker: Option<&UserId>,
) -> Result<Option<Settled<T>>, crate::agent::AskError> {
    Ok(Some(match answer {
        Ok(Elicited::Accepted(submitted)) => {
            let user = submitted.user;
            (user, Elicited::Accepted(submitted.value))
        }
        Ok(Elicited::Declined) => (asker.cloned(), Elicited::Declined),
        Ok(Elicited::Cancelled) => (asker.cloned(), Elicited::Cancelled),
        Err(PageError::Expired) => return Ok(None),
        Err(error) => return Err(crate::agent::AskError::transport(error)),
    }))
}

/// Why a page could not be opened or answered.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum PageError {
    /// The operating system's random source failed: no unguessable token.
    RandomnessUnavailable(String),
    /// The store already holds this token.
    TokenInUse,
    /// The store failed; nothing was served.
    Store(StoreError),
    /// The link expired before the user submitted the page.
    Expired,
    /// The server stopped before the user submitted the page.
    Closed,
    /// The page cannot verify that whoever fills it is the user who started the
    /// elicitation ([S6](crate::rules#s6)), so it was not opened; the text says why
    /// and what to configure.
    UserNotVerifiable(&'static str),
    /// [`PageWait::answer`] on a page opened with
    /// [`PageLink::open_pending_consent`] whose consent was never recorded: it would
    /// take no submission.
    ConsentNotRecorded,
}

impl fmt::Display for PageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PageError::RandomnessUnavailable(reason) => write!(
                f,
                "no page token could be made: the system's random number generator failed ({reason})"
            ),
            PageError::TokenInUse => f.write_str("the store already holds this page token"),
            PageError::Store(_) => f.write_str("the page's store failed"),
            PageError::Expired => f.write_str("the page expired before the user submitted it"),
            PageError::Closed => f.write_str("the page's server stopped before the user submitted it"),
            PageError::UserNotVerifiable(reason) => write!(
                f,
                "the page cannot verify that whoever fills it is the user who started the \
                 elicitation, so it was not opened: {reason}; {}",
                crate::rules::cite("S6")
            ),
            PageError::ConsentNotRecorded => f.write_str(
                "the page waits for the client's consent, which was not recorded: call \
                 `PageWait::record_consent` once the client accepted, before `answer`",
            ),
        }
    }
}

impl std::error::Error for PageError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            PageError::Store(error) => Some(error),
            _ => None,
        }
    }
}

/// A fresh token: 256 bits from the operating system's random source, in lowercase hex.
/// The random bytes of an `elicitationId` a standalone page mints: 128 bits, as the
/// URL registry's ([U4](crate::rules#u4)).
const STANDALONE_ID_BYTES: usize = 16;

fn mint_token() -> Result<String, PageError> {
    random_hex::<TOKEN_BYTES>().map_err(|e| PageError::RandomnessUnavailable(e.to_string()))
}
