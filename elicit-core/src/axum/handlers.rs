//! The two requests the page answers, `GET` and `POST {mount}/{token}`, and the
//! refusals of everything else. A bound page and a mounted one run these same
//! handlers; only the [`Public`](super::Public) they check requests against differs.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, Path, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;

use super::{Answer, PageTicket, Shared, Who};
use crate::agent::random_hex;
use crate::agent::UserId;
use crate::client::html::{HtmlForm, Submission, SubmitAction};

/// The largest body read: far above any form's answer (D12 bounds the form), small
/// enough that nobody can make the agent buffer much.
const BODY_LIMIT: usize = 64 * 1024;

/// The cookie binding a page to the browser that opened it first.
const COOKIE: &str = "elicit_page";

/// No script, no frame, no plugin, no foreign form target, no outside resource; the
/// page's own style sheet inline.
const CSP: &str = "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; \
                   frame-ancestors 'none'; base-uri 'none'";

/// The page around the form (which brings its own style sheet): a centred card.
const STYLE: &str = "body{margin:0;background:#f4f5f7;font:16px/1.5 system-ui,sans-serif;color:#1b1d21}\
main{max-width:46rem;margin:2rem auto;padding:1.5rem 2rem;background:#fff;border:1px solid #d5d8dd;border-radius:8px}";

/// How many shown pages' tickets a process keeps for their submissions.
const SHOWN_TICKETS: usize = 1024;

/// The tickets of the last [`SHOWN_TICKETS`] pages this process showed (or bound to a
/// browser), by token: the submission that follows the page it showed, on the same
/// instance, starts from this copy instead of reading the store again (one Redis
/// command fewer per completion).
///
/// A copy is never trusted for what may have changed since: the compare-and-swap that
/// marks the ticket used compares the copy with what the store holds, so a ticket
/// bound by another browser, used on another instance, closed or rewritten since
/// fails it, and the submission reads the ticket again and checks everything. What the
/// copy is used for before that swap (the form, the user, the route, the expiry) is
/// what never changes in a ticket, covered by its tag, which was verified when it was
/// read. A copy taken while the page awaited the client's consent is not kept: that
/// always changes.
#[derive(Default)]
pub(super) struct Shown {
    tickets: HashMap<String, (u64, PageTicket)>,
    /// Tokens in the order they were kept, each with the number it was kept under
    /// (a token kept again is dropped only by its newest number).
    order: VecDeque<(u64, String)>,
    next: u64,
}

impl Shown {
    pub(super) fn keep(&mut self, token: &str, ticket: PageTicket) {
        if ticket.awaits_consent() {
            return;
        }
        let number = self.next;
        self.next += 1;
        self.tickets.insert(token.to_owned(), (number, ticket));
        self.order.push_back((number, token.to_owned()));
        while self.order.len() > SHOWN_TICKETS {
            if let Some((number, token)) = self.order.pop_front() {
                if self
                    .tickets
                    .get(&token)
                    .is_some_and(|(kept, _)| *kept == number)
                {
                    self.tickets.remove(&token);
                }
            }
        }
    }

    pub(super) fn take(&mut self, token: &str) -> Option<PageTicket> {
        self.tickets.remove(token).map(|(_, ticket)| ticket)
    }
}

/// The page's routes relative to its mount, with its state applied: what
/// [`SecurePage::router`](super::SecurePage::router) hands out.
pub(super) fn routes<S>(shared: Arc<Shared>) -> Router<S>
where
    S: Clone + Send + Sync + 'static,
{
    Router::new()
        .route("/{token}", get(show).post(submit))
        .layer(DefaultBodyLimit::max(BODY_LIMIT))
        .with_state(shared)
}

/// A bound page's whole server: the routes at the mount, and a refusal for every
/// other path.
pub(super) fn server(shared: Arc<Shared>) -> Router {
    let mount = shared.public.mount.clone();
    Router::new()
        .nest(&mount, routes(shared))
        .fallback(not_found)
}

/// Why a request was refused: a status and one sentence for the person at the browser.
struct Refusal(StatusCode, &'static str);

impl IntoResponse for Refusal {
    fn into_response(self) -> Response {
        let Refusal(status, sentence) = self;
        page(status, "This page cannot be used", &plain(sentence))
    }
}

async fn not_found() -> Refusal {
    Refusal(StatusCode::NOT_FOUND, "There is nothing here.")
}

async fn show(
    State(shared): State<Arc<Shared>>,
    Path(token): Path<String>,
    uri: Uri,
    headers: HeaderMap,
) -> Response {
    match show_page(&shared, &token, &uri, &headers) {
        Ok(response) => response,
        Err(refusal) => refusal.into_response(),
    }
}

fn show_page(
    shared: &Shared,
    token: &str,
    uri: &Uri,
    headers: &HeaderMap,
) -> Result<Response, Refusal> {
    check_host(shared, uri, headers)?;
    let ticket = live_ticket(shared, token)?;
    check_user(shared, headers, &ticket)?;
    if !can_show(shared, token, &ticket) {
        return Err(gone());
    }
    // Showing the page changes nothing in the store: a link previewer, a mail
    // scanner or a `HEAD` sees the form and binds no one. The page is bound to the
    // browser that first submits it (see `submit_page`); until then each browser gets
    // a cookie of its own, which its submission then names.
    let cookie = browser_cookie(headers);
    if let Some(bound) = ticket.browser() {
        if !cookie.is_some_and(|cookie| constant_time_eq(cookie.as_bytes(), bound.as_bytes())) {
            return Err(in_another_browser());
        }
    }
    let set_cookie = match cookie {
        Some(_) => None,
        None => Some(random_hex::<16>().map_err(|_| unavailable())?),
    };
    let waiting = shared.lock_waiting();
    let mut response = match waiting.get(token) {
        Some(form) => form_page(shared, form.schema, &form.message, None),
        // Opened by another instance, whose task waits for it.
        #[cfg(feature = "redis")]
        None if shared.relay.is_some() => {
            drop(waiting);
            let form = ticket.form().ok_or_else(gone)?;
            // Refused now, not only at submission: the person is not asked to type a
            // secret that nobody waits for.
            if let (Some(relay), Some(route)) = (&shared.relay, ticket.route()) {
                match relay.is_listening_at(route) {
                    Ok(true) => {}
                    Ok(false) => return Err(owner_gone()),
                    Err(_) => return Err(unavailable()),
                }
            }
            let schema = crate::schema::RequestedSchema::from_json(&form.schema)
                .map_err(|_| unavailable())?;
            form_page(shared, &schema, &form.message, None)
        }
        None => return Err(gone()),
    };
    // Its submission here starts from this copy (see `Shown`).
    shared.lock_shown().keep(token, ticket);
    if let Some(browser) = set_cookie {
        // The page's own path as the browser sees it (the public mount), so two pages
        // open in one browser keep their cookies apart; `Secure` on an https origin.
        let secure = if shared.public.scheme == "https" {
            "; Secure"
        } else {
            ""
        };
        let cookie = format!(
            "{COOKIE}={browser}; Path={}; HttpOnly; SameSite=Strict{secure}",
            shared.public.path_of(token)
        );
        if let Ok(value) = HeaderValue::from_str(&cookie) {
            response.headers_mut().insert(header::SET_COOKIE, value);
        }
    }
    Ok(response)
}

async fn submit(
    State(shared): State<Arc<Shared>>,
    Path(token): Path<String>,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    // A submission that arrives while the page waits for the client's consent is held
    // a moment: a client may open the browser as it sends `accept`, before the agent
    // has read it. Once the consent is recorded it goes through; if the page is closed
    // meanwhile (the client declined), or the consent never comes, it is refused.
    let deadline = Instant::now() + CONSENT_GRACE;
    let mut held = false;
    loop {
        match submit_page(&shared, &token, &uri, &headers, &body) {
            Ok(Submit::Done(response)) => return response,
            #[cfg(feature = "redis")]
            Ok(Submit::Routed(routed)) => return routed.deliver(&shared).await,
            Ok(Submit::AwaitsConsent(refused)) => {
                if Instant::now() >= deadline {
                    return refused;
                }
                held = true;
                tokio::time::sleep(CONSENT_POLL).await;
            }
            // Closed while this submission waited for the consent: the agent gave up
            // the page, because the client declined or cancelled.
            Err(Refusal(StatusCode::GONE, GONE)) if held => {
                return Refusal(
                    StatusCode::GONE,
                    "Not sent: the request was declined or cancelled in your client, so the \
                     agent closed this page and your answer was not taken.",
                )
                .into_response()
            }
            Err(refusal) => return refusal.into_response(),
        }
    }
}

/// How long a submission made before the client's consent was recorded is held for it.
const CONSENT_GRACE: Duration = Duration::from_secs(2);

/// How often a held submission reads the ticket again.
const CONSENT_POLL: Duration = Duration::from_millis(50);

/// What a submission came to: a page to send, or the page refusing it because the
/// client's consent is not recorded yet (sent only once the grace is over).
enum Submit {
    Done(Response),
    AwaitsConsent(Response),
    /// Marked used here, to be handed to the waiting instance.
    #[cfg(feature = "redis")]
    Routed(Routed),
}

/// A submission for another instance's waiting task, checked and marked used here.
#[cfg(feature = "redis")]
struct Routed {
    relay: crate::agent::RedisRelay,
    route: crate::agent::Route,
    message: crate::agent::PageMessage,
    action: Option<SubmitAction>,
}

#[cfg(feature = "redis")]
impl Routed {
    /// Seals the submission for the waiting instance, publishes it and waits for its
    /// acknowledgement: "Received" only once it says its task took the answer.
    async fn deliver(self, shared: &Shared) -> Response {
        use crate::agent::Delivery;
        match self.relay.send_page(&self.route, self.message).await {
            Ok(Delivery::Delivered) => done_page(shared, self.action),
            Ok(Delivery::NoListener) => Refusal(
                StatusCode::SERVICE_UNAVAILABLE,
                "Not delivered: the part of the agent that asked for this is no longer \
                 running, so your answer was not received and nothing was kept. Ask the \
                 agent again.",
            )
            .into_response(),
            Ok(Delivery::NotAcknowledged) => Refusal(
                StatusCode::SERVICE_UNAVAILABLE,
                "Not delivered: the part of the agent that asked for this did not confirm \
                 that it took your answer, so treat it as not received. Ask the agent again.",
            )
            .into_response(),
            Err(_) => Refusal(
                StatusCode::SERVICE_UNAVAILABLE,
                "Not delivered: your answer could not be passed on to the agent, and nothing \
                 was kept. Ask the agent again.",
            )
            .into_response(),
        }
    }
}

/// What a page whose waiting instance is gone says, when it is opened or submitted.
#[cfg(feature = "redis")]
fn owner_gone() -> Refusal {
    Refusal(
        StatusCode::SERVICE_UNAVAILABLE,
        "Not available: the part of the agent that asked for this is no longer running, \
                 so an answer here would not be received and nothing is kept. Ask the agent again.",
    )
}

fn submit_page(
    shared: &Shared,
    token: &str,
    uri: &Uri,
    headers: &HeaderMap,
    body: &[u8],
) -> Result<Submit, Refusal> {
    check_host(shared, uri, headers)?;
    check_same_origin(shared, headers)?;
    let urlencoded = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|v| {
            v.trim()
                .eq_ignore_ascii_case("application/x-www-form-urlencoded")
        });
    if !urlencoded {
        return Err(Refusal(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "The page sends a form; nothing else is read here.",
        ));
    }
    let ticket = ticket_to_submit(shared, token)?;
    let user = check_user(shared, headers, &ticket)?;
    // The cookie the page gave this browser when it showed the form.
    let Some(browser) = browser_cookie(headers) else {
        return Err(Refusal(
            StatusCode::FORBIDDEN,
            "This page was not opened in this browser. Open the link the agent sent first.",
        ));
    };
    check_browser(&ticket, browser)?;
    let mut waiting = shared.lock_waiting();
    let Some(form) = waiting.get_mut(token) else {
        drop(waiting);
        // Opened by another instance, whose task waits for it.
        #[cfg(feature = "redis")]
        if shared.relay.is_some() {
            return submit_routed(shared, token, ticket, browser, body);
        }
        return Err(gone());
    };
    let submission = Submission::parse(form.schema, body);
    // U2: nothing is taken before the client's consent is recorded, so nothing is
    // told "Received" and then dropped when the client declines. Recorded in the
    // store and in this process: a store writer cannot clear it.
    if ticket.awaits_consent() || !form.consented {
        return Ok(Submit::AwaitsConsent(consent_first(
            shared,
            form.schema,
            &form.message,
            &submission,
        )));
    }
    let answer = match submission.action() {
        Some(SubmitAction::Decline) => Answer::Declined,
        Some(SubmitAction::Cancel) => Answer::Cancelled,
        // A body without a known button is the browser's implicit submission.
        Some(SubmitAction::Accept) | None => {
            let parsed = submission
                .content()
                .and_then(|content| (form.parse)(&content));
            match parsed {
                Ok(value) => Answer::Accepted(value, user),
                Err(_) => {
                    // The first submission binds the page to this browser, so that
                    // only it sends the corrected answer.
                    bind(shared, token, ticket, browser)?;
                    // F3: the same page, each error beside its field; the token stays
                    // open for the corrected answer.
                    let mut response =
                        form_page(shared, form.schema, &form.message, Some(&submission));
                    *response.status_mut() = StatusCode::UNPROCESSABLE_ENTITY;
                    return Ok(Submit::Done(response));
                }
            }
        }
    };
    // Used once: only the request that moves the ticket from unused to used hands an
    // answer over, whichever instance it reached.
    if !mark_used(shared, token, ticket, browser)? {
        return Ok(Submit::AwaitsConsent(consent_first(
            shared,
            form.schema,
            &form.message,
            &submission,
        )));
    }
    let sender = form.answer.take();
    waiting.remove(token);
    drop(waiting);
    let delivered = sender.is_some_and(|sender| sender.send(answer).is_ok());
    if !delivered {
        return Err(gone());
    }
    Ok(Submit::Done(done_page(shared, submission.action())))
}

/// A submission of a page whose task waits on another instance: checked here against
/// the form in the ticket, the ticket marked used, then sealed for that instance and
/// published to it. "Received" only when it acknowledges that its task took it.
#[cfg(feature = "redis")]
fn submit_routed(
    shared: &Shared,
    token: &str,
    ticket: PageTicket,
    browser: &str,
    body: &[u8],
) -> Result<Submit, Refusal> {
    use crate::agent::{PageMessage, RoutedAction};
    let (Some(relay), Some(route), Some(form)) = (&shared.relay, ticket.route(), ticket.form())
    else {
        return Err(gone());
    };
    let (route, form) = (route.clone(), form.clone());
    // The ticket's tag, which `live_ticket` checked: the waiting instance compares it
    // with the one it wrote. It covers what never changes, so every read of this
    // ticket has it.
    let tag = ticket.tag().map(str::to_owned);
    let schema =
        crate::schema::RequestedSchema::from_json(&form.schema).map_err(|_| unavailable())?;
    let submission = Submission::parse(&schema, body);
    if ticket.awaits_consent() {
        return Ok(Submit::AwaitsConsent(consent_first(
            shared,
            &schema,
            &form.message,
            &submission,
        )));
    }
    let (action, content) = match submission.action() {
        Some(SubmitAction::Decline) => (RoutedAction::Decline, None),
        Some(SubmitAction::Cancel) => (RoutedAction::Cancel, None),
        Some(SubmitAction::Accept) | None => match submission.content() {
            Ok(content) => (RoutedAction::Accept, Some(content)),
            Err(_) => {
                bind(shared, token, ticket, browser)?;
                let mut response = form_page(shared, &schema, &form.message, Some(&submission));
                *response.status_mut() = StatusCode::UNPROCESSABLE_ENTITY;
                return Ok(Submit::Done(response));
            }
        },
    };
    if !mark_used(shared, token, ticket, browser)? {
        return Ok(Submit::AwaitsConsent(consent_first(
            shared,
            &schema,
            &form.message,
            &submission,
        )));
    }
    // Sent only from here, after this request's compare-and-swap marked the ticket
    // used: the waiting instance trusts a message tagged under the relay key to say so.
    let message = PageMessage {
        token: token.to_owned(),
        action,
        content,
        ticket: tag,
    };
    Ok(Submit::Routed(Routed {
        relay: relay.clone(),
        route,
        message,
        action: submission.action(),
    }))
}

/// Tries at changing a ticket that other requests keep changing; each change is a step
/// forward (consented, bound, used), so a few are enough.
const CAS_ATTEMPTS: usize = 8;

/// Binds the page to `browser`, the first to submit it, unless it already is. Refused
/// when another browser got there first, or the page was used meanwhile.
fn bind(
    shared: &Shared,
    token: &str,
    mut ticket: PageTicket,
    browser: &str,
) -> Result<(), Refusal> {
    for _ in 0..CAS_ATTEMPTS {
        if ticket.browser().is_some() {
            return check_browser(&ticket, browser);
        }
        let bound = ticket.with_browser(browser.to_owned());
        match shared.store.compare_and_swap(
            &PageTicket::store_key(token),
            &ticket,
            Some(bound.clone()),
        ) {
            Ok(true) => {
                // The corrected answer starts from what this request wrote.
                shared.lock_shown().keep(token, bound);
                return Ok(());
            }
            // Another request changed it first: read it again.
            Ok(false) => ticket = live_ticket(shared, token)?,
            Err(_) => return Err(unavailable()),
        }
    }
    Err(unavailable())
}

/// Marks the ticket used by `browser` (binding it if no browser submitted it before):
/// the one step that lets an answer through, once. `false` when the page waits for
/// the client's consent (the caller shows the form again, saying so); every other
/// refusal is an `Err`.
fn mark_used(
    shared: &Shared,
    token: &str,
    mut ticket: PageTicket,
    browser: &str,
) -> Result<bool, Refusal> {
    for _ in 0..CAS_ATTEMPTS {
        check_browser(&ticket, browser)?;
        if ticket.awaits_consent() {
            return Ok(false);
        }
        let used = ticket.with_browser(browser.to_owned()).used();
        match shared
            .store
            .compare_and_swap(&PageTicket::store_key(token), &ticket, Some(used))
        {
            Ok(true) => return Ok(true),
            // Changed meanwhile (used by a concurrent submission, bound by another
            // browser, consent recorded): read it again and check everything.
            Ok(false) => ticket = live_ticket(shared, token)?,
            Err(_) => return Err(unavailable()),
        }
    }
    Err(unavailable())
}

/// Whether `browser` may submit this ticket: any browser before the first submission,
/// only that one's after.
fn check_browser(ticket: &PageTicket, browser: &str) -> Result<(), Refusal> {
    match ticket.browser() {
        Some(bound) if !constant_time_eq(bound.as_bytes(), browser.as_bytes()) => {
            Err(in_another_browser())
        }
        _ => Ok(()),
    }
}

/// A submission made before the client's consent was recorded: refused, and the form
/// shown again (secrets left out, as after an invalid answer) under a notice saying why.
fn consent_first(
    shared: &Shared,
    schema: &crate::schema::RequestedSchema,
    message: &str,
    submission: &Submission<'_>,
) -> Response {
    let mut form = HtmlForm::new(schema).message(message).mask_secrets(true);
    if let Some(agent) = &shared.agent {
        form = form.agent(agent.clone());
    }
    let body = format!(
        "{}{}",
        plain(
            "Confirm in your client first: it has not yet told the agent that you agreed \
             to open this page, so your answer was not sent. Accept the request in your \
             client, then send the form again."
        ),
        form.refill(submission).render()
    );
    page(StatusCode::CONFLICT, "Confirm in your client first", &body)
}

/// The page after a submission was handed over.
fn done_page(shared: &Shared, action: Option<SubmitAction>) -> Response {
    let agent = shared
        .agent
        .as_ref()
        .map_or("the agent", |agent| agent.display_name());
    let (title, body) = match action {
        Some(SubmitAction::Decline) => ("Declined", plain("You declined. Nothing was sent.")),
        Some(SubmitAction::Cancel) => ("Cancelled", plain("You cancelled. Nothing was sent.")),
        _ => (
            "Received",
            plain(&format!(
                "Received. You can close this tab and return to {agent}."
            )),
        ),
    };
    page(StatusCode::OK, title, &body)
}

/// The ticket a submission starts from: the copy this process kept when it showed the
/// page (or bound it), taken, unless it has expired since; otherwise the store's. The
/// compare-and-swap that marks it used checks the copy against the store (see
/// `Shown`).
fn ticket_to_submit(shared: &Shared, token: &str) -> Result<PageTicket, Refusal> {
    match shared.lock_shown().take(token) {
        Some(ticket) if !ticket.is_expired(SystemTime::now()) => Ok(ticket),
        _ => live_ticket(shared, token),
    }
}

/// The ticket of `token`, if it can still be used: with a relay, only a ticket whose
/// tag passes under the relay key (nobody without the key wrote its route and form).
fn live_ticket(shared: &Shared, token: &str) -> Result<PageTicket, Refusal> {
    let key = PageTicket::store_key(token);
    let ticket = match shared.store.get(&key) {
        #[cfg(feature = "redis")]
        Ok(Some(ticket))
            if shared
                .relay
                .as_ref()
                .is_some_and(|relay| !ticket.is_authentic(relay.keys(), &key)) =>
        {
            return Err(Refusal(
                StatusCode::SERVICE_UNAVAILABLE,
                "This link cannot be used: what the agent stored for it was changed by \
                 someone else. Nothing you type here would be sent. Tell the agent's operator.",
            ))
        }
        Ok(Some(ticket)) => ticket,
        Ok(None) => {
            return Err(Refusal(
                StatusCode::NOT_FOUND,
                "This link is not valid. Ask the agent for a new one.",
            ))
        }
        Err(_) => return Err(unavailable()),
    };
    if ticket.is_used() {
        return Err(gone());
    }
    if ticket.is_expired(SystemTime::now()) {
        return Err(Refusal(
            StatusCode::GONE,
            "This link has expired. Ask the agent for a new one.",
        ));
    }
    Ok(ticket)
}

/// S6: who is at the browser, as the page can tell: the user `authenticate` verified
/// (who must be the one who started the elicitation), the deployment's single user, or
/// nobody. What a submission then carries as its user.
fn check_user(
    shared: &Shared,
    headers: &HeaderMap,
    ticket: &PageTicket,
) -> Result<Option<UserId>, Refusal> {
    let other_user = || {
        Refusal(
            StatusCode::FORBIDDEN,
            "This page was opened for another user. Sign in as the user who asked the agent.",
        )
    };
    match &shared.who {
        Who::Authenticate(authenticate) => match authenticate(headers) {
            Some(user) if Some(&user) == ticket.user().as_ref() => Ok(Some(user)),
            Some(_) => Err(other_user()),
            None => Err(Refusal(
                StatusCode::UNAUTHORIZED,
                "Sign in first: this page is for the user who asked the agent.",
            )),
        },
        // The page opens only for that user's elicitations; a ticket of another (an
        // instance configured otherwise) is refused.
        Who::SingleUser(single) if Some(single) == ticket.user().as_ref() => {
            Ok(Some(single.clone()))
        }
        Who::SingleUser(_) => Err(other_user()),
        Who::Nobody if ticket.user().is_none() => Ok(None),
        // Started by a user this page cannot recognise.
        Who::Nobody => Err(other_user()),
    }
}

/// DNS rebinding: a page of another site, resolved to this address, sends its own
/// host name; behind a trusted proxy, the host and scheme the browser used.
fn check_host(shared: &Shared, uri: &Uri, headers: &HeaderMap) -> Result<(), Refusal> {
    if shared.public.addressed(headers, uri) {
        Ok(())
    } else {
        Err(Refusal(
            StatusCode::MISDIRECTED_REQUEST,
            "This page is served only under the address in the agent's link.",
        ))
    }
}

/// A `POST` from this page only: the browser's `Origin` is this server's, or, where a
/// browser sends no `Origin`, `Sec-Fetch-Site` says `same-origin`. A request with
/// neither is refused: every browser sends one of them on a form submission.
fn check_same_origin(shared: &Shared, headers: &HeaderMap) -> Result<(), Refusal> {
    let origin = headers.get(header::ORIGIN).and_then(|v| v.to_str().ok());
    let site = headers.get("sec-fetch-site").and_then(|v| v.to_str().ok());
    let same = match (origin, site) {
        (_, Some(site)) if site != "same-origin" => false,
        (Some(origin), _) => origin == shared.public.origin,
        (None, Some(_)) => true,
        (None, None) => false,
    };
    if same {
        Ok(())
    } else {
        Err(Refusal(
            StatusCode::FORBIDDEN,
            "This form can only be sent from its own page.",
        ))
    }
}

/// The page's cookie in the request, if it is one the page could have set: 32
/// lowercase hex digits. The first such cookie counts.
fn browser_cookie(headers: &HeaderMap) -> Option<&str> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(name, _)| *name == COOKIE)
        .map(|(_, value)| value)
        .filter(|value| {
            value.len() == 32
                && value
                    .bytes()
                    .all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
        })
}

/// Whether this instance can show the form of `token`: its own task waits for it, or a
/// relay routes the answer to the instance whose task does (the ticket then carries
/// the form).
#[cfg_attr(not(feature = "redis"), allow(unused_variables))]
fn can_show(shared: &Shared, token: &str, ticket: &PageTicket) -> bool {
    if shared.lock_waiting().contains_key(token) {
        return true;
    }
    #[cfg(feature = "redis")]
    if shared.relay.is_some() && ticket.form().is_some() {
        return true;
    }
    false
}

pub(super) fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

fn in_another_browser() -> Refusal {
    Refusal(
        StatusCode::FORBIDDEN,
        "This page is being answered in another browser. Ask the agent for a new link if \
         that was not you.",
    )
}

/// What a used (or closed) page says.
const GONE: &str = "This page was already used. Ask the agent for a new link if you need one.";

fn gone() -> Refusal {
    Refusal(StatusCode::GONE, GONE)
}

fn unavailable() -> Refusal {
    Refusal(
        StatusCode::SERVICE_UNAVAILABLE,
        "The agent cannot take answers right now. Try again later.",
    )
}

/// The form's page.
fn form_page(
    shared: &Shared,
    schema: &crate::schema::RequestedSchema,
    message: &str,
    refill: Option<&Submission<'_>>,
) -> Response {
    // No `action`: the form posts to the page's own URL, whatever path a proxy in
    // front maps it to.
    let mut form = HtmlForm::new(schema).message(message).mask_secrets(true);
    if let Some(agent) = &shared.agent {
        form = form.agent(agent.clone());
    }
    if let Some(submission) = refill {
        form = form.refill(submission);
    }
    page(StatusCode::OK, "Answer the agent", &form.render())
}

/// A paragraph of text written in this crate.
fn plain(sentence: &str) -> String {
    let mut out = String::from("<p>");
    html_escape::encode_safe_to_string(sentence, &mut out);
    out.push_str("</p>");
    out
}

/// A whole HTML document around `body` (markup written or escaped by this crate),
/// with the headers every page of the server carries.
fn page(status: StatusCode, title: &'static str, body: &str) -> Response {
    let html = format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>{title}</title><style>{STYLE}</style></head><body><main>{body}</main></body></html>"
    );
    let mut response = (status, html).into_response();
    let headers = response.headers_mut();
    for (name, value) in [
        (header::CONTENT_TYPE, "text/html; charset=utf-8"),
        (header::CONTENT_SECURITY_POLICY, CSP),
        (header::CACHE_CONTROL, "no-store"),
        (header::REFERRER_POLICY, "same-origin"),
        (header::X_FRAME_OPTIONS, "DENY"),
        (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
    ] {
        headers.insert(name, HeaderValue::from_static(value));
    }
    response
}
