//! A real MCP server, on rmcp (the official Rust MCP SDK), whose tools ask their user
//! for input through `elicit::rmcp` and get the answer back typed and validated. It
//! speaks stdio by default:
//!
//! ```text
//! cargo run --example mcp_server --features rmcp_3
//! ```
//!
//! and connect any MCP client to its stdin and stdout, on MCP 2025-11-25 (the server
//! sends `elicitation/create` while a tool runs) or 2026-07-28 (the tool answers with an
//! `InputRequiredResult` and continues on the client's retry): each tool is written
//! once, with `elicit::rmcp::Dialog`, for both. `tests/examples/mcp_server.rs` drives it
//! with rmcp's own client on both versions. The answers of earlier rounds travel sealed
//! in `requestState` under `ELICIT_ROUND_KEY` (64 hex digits; give every instance of a
//! deployment the same one), or a key made at start. Each sealed round is bound to the
//! connection's user and opens at most once (`Rounds::at_most_once`): a replayed
//! `requestState` is refused, so a booking is never made twice. Three tools:
//!
//! - **`plan_task`** `{"task": string}`: asks for a [`TaskPlan`] in form mode. Accepted
//!   and valid: the result states the values received. Declined or cancelled: nothing
//!   is done (R5). An invalid answer is reported with every problem and none of it is
//!   used (F3). A client without form mode gets no request at all (C7); the result
//!   says why.
//! - **`book_table`** `{"restaurant": string}`: asks for a `Booking` (party size, and a
//!   phone number with a `pattern` MCP cannot carry, said in words in its description
//!   instead). An answer that breaks the pattern is asked again with the problem
//!   beside the field (3 attempts). A party over 8 is asked a second question, the
//!   deposit.
//! - **`connect_account`**: sends the user to a consent page on a loopback address in
//!   URL mode (nothing serves it: this is a demonstration). After the user's consent
//!   the external step is simulated as finished and the server sends
//!   `notifications/elicitation/complete` with the same `elicitationId` (U2, U5, M3).
//!   Decline, cancel and a client without URL mode are handled as above.
//!
//! Every tool result is text a model can read, and never an error for an answer the
//! user gave.
//!
//! # Over Streamable HTTP, as a remote server (features `axum`, and `redis`)
//!
//! ```text
//! cargo run --example mcp_server --features rmcp_3,axum -- --http 127.0.0.1:8080
//! cargo run --example mcp_server --features rmcp_3,axum,redis -- --http 127.0.0.1:8081 \
//!     --redis redis://127.0.0.1:6379/ --public-origin https://agent.example.com --instance b
//! ```
//!
//! - `--http ADDR` serves MCP with rmcp's Streamable HTTP transport at `/mcp` of an axum
//!   application listening on `ADDR` (port 0 picks a free one), and prints
//!   `http://ADDR/mcp` on one stdout line once it accepts connections. rmcp's session
//!   manager gives each client its session (`Mcp-Session-Id`) and a server of its own.
//!   A request body over `remote::MAX_REQUEST_BODY` (256 KiB) is refused with `413`. A
//!   request whose `Origin` is present and is neither the public origin nor one that
//!   `--allow-origin` names, exactly (scheme, host and port: not any port of
//!   `localhost`), is refused with `403` (the MCP transport's rule against DNS
//!   rebinding), and so is a `Host` that is neither; a request without `Origin` (any
//!   non-browser client) is served.
//! - It is served as a remote server should be, by its own accept loop on hyper
//!   (`axum::serve` has no read timeouts), with these limits:
//!   - `--max-sessions N` (256): MCP sessions at once; one more `initialize` is refused
//!     with `503` and a JSON-RPC error saying so, before anything is allocated;
//!   - `--idle-timeout SECS` (300): a session without traffic for that long is dropped
//!     (and its place freed);
//!   - `--header-timeout SECS` (10): a request's headers must arrive within that time,
//!     else the connection is closed;
//!   - `--body-timeout SECS` (30): a request's body must arrive within that time, else
//!     `408` and the connection is closed;
//!   - `--max-waits N` (4): page waits (outstanding URL elicitations) one session may
//!     hold at once;
//!   - `--allow-origin ORIGIN` (repeatable): a browser origin allowed besides the
//!     public one, such as `http://localhost:5173` for a local web client.
//!
//!   A library user serving `elicit::axum::SecurePage` (or any MCP server) in their own
//!   application sets the same: read timeouts in their server, a bound on sessions and
//!   on idle time, bounded waits per session, an exact `Origin` allow-list, and
//!   `authenticate` (see `SecurePage::router`).
//! - The server's own secure page (`elicit::axum::SecurePage`) is mounted on the same
//!   listener under `/elicit/`, for what must not pass through the client.
//! - `--public-origin ORIGIN` is where browsers reach the page (and this server): its
//!   links are `ORIGIN/elicit/<token>`, and the page accepts only requests addressed to
//!   it. Default `http://ADDR`. Every instance of one deployment behind a load balancer
//!   is given the same one; plain `http` is accepted only for a loopback host (S1).
//! - `--redis URL` keeps the URL elicitations' registry, the page's one-time tickets,
//!   the repository links and the used rounds of MCP 2026-07-28
//!   (`Rounds::at_most_once_in_redis`) in Redis (`elicit::agent::RedisStore`), so that
//!   the instances that share one Redis share them: a `requestState` answered on one
//!   instance is refused on every other. Without it they live in this process.
//!   With it the instances also hand each other what happened on the wrong one, through
//!   Redis pub/sub (`elicit::agent::RedisRelay`, sealed for the instance it is for): a
//!   page opened and submitted on instance B reaches the tool call waiting on instance
//!   A, and an elicitation of A's completed on B is announced by A on its client's
//!   connection (`notifications/elicitation/complete`). A page whose instance is gone
//!   is refused with a page that says so. `--redis` needs `ELICIT_ROUND_KEY`: the
//!   relay's key (`elicit::agent::RelayKey::derived_from`) comes from it, and tags
//!   the pages' tickets and every relayed message, so that whoever can write to Redis
//!   cannot route a page or an answer.
//! - `--page-ttl SECS` is how long a page link, and every record in Redis, lives
//!   (default 10 minutes for a link, a day for a record).
//! - `--instance NAME` names this instance on stderr and in the page tools' results
//!   (default: its listening address).
//!
//! Over HTTP, where the page is served, two more tools use it:
//!
//! - **`save_api_key`** (no arguments): asks for an `ApiKey` (at least 16 characters) on the secure page
//!   (`PeerElicitor::ask_secret`); the key never passes through the client, and the
//!   result says how many characters it had, never the key. Declined or cancelled (in
//!   the client or on the page) says so.
//! - **`link_repository`** (no arguments): needs an access token of the user's
//!   repository, given on the secure page. Until it has one, the call fails with
//!   `-32042` (URL elicitation required, M4) naming the page; when the page is
//!   submitted the instance that sent the error records the link (the token's length,
//!   never the token) and sends `notifications/elicitation/complete` (U5). The retried
//!   call, on whichever instance shares the store, finds the link and the elicitation
//!   completed, and says so.
//!
//! This example has no login, over HTTP either: every client is the one local user
//! (`LOCAL_USER`), and the page is bound to the first browser that opens its link. A
//! remote server for several people binds each session to the user its authorization
//! names (`PeerElicitor::with_user`) and checks the same user on the page
//! (`SecurePageBuilder::authenticate`), so that only that user completes (E5, S6).

use std::process::ExitCode;
use std::sync::OnceLock;

use elicit::agent::{AskError, MemoryStore, UrlRegistry, UserId};
use elicit::rmcp::input::{RoundKey, Rounds, UsedRound};
use elicit::rmcp::{Dialog, PeerElicitor};
use elicit::{Elicit, Elicited, Mode};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{ErrorData, ServerHandler, ServiceExt};
use serde_json::{json, Map, Value};

/// Before I start, how should I go about it?
#[derive(Elicit, Debug)]
#[elicit(title = "Task plan")]
struct TaskPlan {
    /// How bold the changes may be
    strategy: Strategy,
    /// How many times to go over the changes before reporting back
    #[elicit(title = "Review passes", minimum = 1, maximum = 5, default = 2)]
    passes: u8,
    /// Where to send a summary when done; leave empty for none
    #[elicit(title = "Notify", format = "email")]
    notify: Option<String>,
    /// Run the test suite after each pass
    #[elicit(title = "Run tests", default = true)]
    run_tests: bool,
}

/// How bold the changes may be.
#[derive(Elicit, Debug, Clone, Copy)]
enum Strategy {
    /// Small steps, each one reviewed
    #[elicit(title = "Conservative")]
    Conservative,
    #[elicit(title = "Balanced")]
    Balanced,
    /// Rewrite what needs rewriting
    #[elicit(title = "Aggressive")]
    Aggressive,
}

/// Book a table.
#[derive(Elicit, Debug)]
#[elicit(title = "Booking")]
struct Booking {
    #[elicit(title = "Party size", minimum = 1, maximum = 12, default = 2)]
    party_size: u8,
    /// How the restaurant reaches you: digits and spaces, an optional leading +
    #[elicit(title = "Phone", pattern = "^\\+?[0-9 ]{7,15}$")]
    phone: String,
}

/// Large parties pay a deposit.
#[derive(Elicit, Debug)]
#[elicit(title = "Deposit")]
struct Deposit {
    #[elicit(title = "Pay the deposit")]
    pay: bool,
}

/// The second question of `book_table`.
const DEPOSIT_MESSAGE: &str = "Parties over 8 pay a deposit of 50 EUR. Pay it?";

/// The message of the form. No link in it: F7.
const FORM_MESSAGE: &str = "Before I start, tell me how to go about this task.";

/// The message of the URL-mode request.
const URL_MESSAGE: &str = "Connect your account in your browser.";

/// Where the URL-mode request sends the user: loopback `http`, which the default
/// `UrlPolicy` allows outside `https` (S1: development only); no credential and no
/// personal data in it. Nothing listens there.
const CONNECT_URL: &str = "http://127.0.0.1:47616/connect";

/// The one person this server serves: a stdio server is started by its user and has
/// no login of its own (nor has this example over HTTP). A server with real authentication binds the authenticated
/// identity instead, so that only that user can complete a URL elicitation (E5, S6).
const LOCAL_USER: &str = "local-user";

/// The server of one connection: the stdio one, or one Streamable HTTP session.
#[derive(Default)]
struct PlanServer {
    /// Made at the first tool call, after `initialize`, when rmcp knows what the
    /// client declared.
    connection: OnceLock<PeerElicitor>,
    registry: UrlRegistry,
    /// Over HTTP: the secure page and the state the instances share.
    #[cfg(feature = "axum")]
    remote: Option<remote::Deployment>,
    /// Over HTTP: this session's place among `--max-sessions`.
    #[cfg(feature = "axum")]
    #[allow(dead_code)]
    session: Option<tokio::sync::OwnedSemaphorePermit>,
}

impl PlanServer {
    fn connection(&self, context: &RequestContext<RoleServer>) -> &PeerElicitor {
        self.connection.get_or_init(|| {
            let connection = PeerElicitor::new(&context.peer)
                .with_user(UserId::new(LOCAL_USER))
                .with_registry(&self.registry);
            // Over HTTP: where a completion routed from another instance is sent.
            #[cfg(feature = "axum")]
            if let Some(remote) = &self.remote {
                remote.connected(&connection);
            }
            connection
        })
    }

    /// `plan_task`: one form, read as a [`TaskPlan`].
    async fn plan_task(&self, dialog: &Dialog, task: &str) -> Result<CallToolResult, ErrorData> {
        Ok(match dialog.form::<TaskPlan>(FORM_MESSAGE).await {
            Ok(Elicited::Accepted(plan)) => text(format!(
                "Plan for {task:?}: strategy {:?}, {} review pass(es), notify {}, run tests: {}.",
                plan.strategy,
                plan.passes,
                plan.notify.as_deref().unwrap_or("nobody"),
                plan.run_tests
            )),
            Ok(Elicited::Declined) => text("You declined the plan; nothing was done."),
            Ok(Elicited::Cancelled) => text("You cancelled the plan; nothing was done."),
            Err(error) => not_asked_or_failed(error),
        })
    }

    /// `book_table`: a form with a `pattern` MCP cannot carry (asked again with the
    /// problem beside the field when the answer breaks it), and a second question
    /// only for large parties.
    async fn book_table(
        &self,
        dialog: &Dialog,
        restaurant: &str,
    ) -> Result<CallToolResult, ErrorData> {
        let message = format!("Book a table at {restaurant}?");
        let booking = match dialog.form::<Booking>(message).await {
            Ok(Elicited::Accepted(booking)) => booking,
            Ok(_) => return Ok(text("You did not book; nothing was done.")),
            Err(error) => return Ok(not_asked_or_failed(error)),
        };
        if booking.party_size > 8 {
            match dialog.form::<Deposit>(DEPOSIT_MESSAGE).await {
                Ok(Elicited::Accepted(Deposit { pay: true })) => {}
                Ok(_) => return Ok(text("No deposit, so no booking; nothing was done.")),
                Err(error) => return Ok(not_asked_or_failed(error)),
            }
        }
        // The booking itself happens here, after the last question: on 2026-07-28 the
        // body runs again on each retry up to the question it stopped at.
        Ok(text(format!(
            "Booked a table for {} at {restaurant}; the restaurant will call {}.",
            booking.party_size, booking.phone
        )))
    }

    /// `connect_account`: URL mode; the consent page's link carries an id made once for
    /// the whole dialog.
    async fn connect_account(&self, dialog: &Dialog) -> Result<CallToolResult, ErrorData> {
        let id = dialog.remember(random_id)?;
        let url = format!("{CONNECT_URL}?ref={id}");
        Ok(match dialog.url(URL_MESSAGE, &url).await {
            // U2: consent only. The page would report back when the user is done; here
            // the external step is simulated as finished at once, for the same user (S6).
            Ok(Elicited::Accepted(consent)) => {
                let elicitation_id = consent.elicitation_id().map(str::to_owned);
                let user = UserId::new(LOCAL_USER);
                match (consent.complete(Some(&user)).await, elicitation_id) {
                    (Ok(()), Some(id)) => text(format!(
                        "You consented; the account is connected and the client was notified \
                         that elicitation {id} is complete."
                    )),
                    // M6: no elicitationId and no completion notification in 2026-07-28.
                    (Ok(()), None) => text(format!(
                        "You consented; the account is connected (ref {id})."
                    )),
                    (Err(error), _) => CallToolResult::error(vec![ContentBlock::text(format!(
                        "You consented, but the completion could not be sent: {error}."
                    ))]),
                }
            }
            Ok(Elicited::Declined) => {
                text("You declined to connect the account; nothing was done.")
            }
            Ok(Elicited::Cancelled) => {
                text("You cancelled connecting the account; nothing was done.")
            }
            Err(error) => not_asked_or_failed(error),
        })
    }
}

/// 64 random bits, hex: the id in `connect_account`'s link.
fn random_id() -> String {
    use std::collections::hash_map::RandomState;
    use std::hash::{BuildHasher, Hasher};
    let mut hasher = RandomState::new().build_hasher();
    hasher.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos()),
    );
    format!("{:016x}", hasher.finish())
}

/// The key that seals each round's answers into `requestState` (MCP 2026-07-28), the
/// same for every instance of a deployment: `ELICIT_ROUND_KEY` (64 hex digits) when
/// set, else one made for this process (a retry must then come back to it).
fn rounds() -> &'static Rounds {
    // Bound to the user (each connection's elicitor names `LOCAL_USER`), and at most
    // once: a booking must not be made twice by a replayed `requestState`. The used
    // rounds are kept in this process, unless `--redis` put them in Redis first
    // ([`share_rounds`]): the instances of a deployment share the key, so they must share
    // the used rounds too, or a replay on another instance would open.
    ROUNDS.get_or_init(|| unrecorded_rounds().at_most_once(MemoryStore::<UsedRound>::new()))
}

/// The rounds of this process, once made.
static ROUNDS: OnceLock<Rounds> = OnceLock::new();

/// The rounds under the deployment's key, before saying where used rounds are kept.
fn unrecorded_rounds() -> Rounds {
    let key = round_key_from_env()
        .unwrap_or_else(|| RoundKey::generate().expect("the OS random generator"));
    Rounds::new(key)
}

/// Makes `rounds` this process's rounds: at start, before any tool runs.
#[cfg(feature = "redis")]
fn share_rounds(rounds: Rounds) -> Result<(), &'static str> {
    ROUNDS
        .set(rounds)
        .map_err(|_| "the rounds were made before --redis could share them")
}

/// `ELICIT_ROUND_KEY` (64 hex digits), when it is set and valid: the deployment's
/// shared key, from which `--redis` also derives the relay's key.
fn round_key_from_env() -> Option<RoundKey> {
    let hex = std::env::var("ELICIT_ROUND_KEY").ok()?;
    let bytes: Option<Vec<u8>> = (0..hex.len())
        .step_by(2)
        .map(|i| {
            hex.get(i..i + 2)
                .and_then(|b| u8::from_str_radix(b, 16).ok())
        })
        .collect();
    <[u8; 32]>::try_from(bytes?).ok().map(RoundKey::from_bytes)
}

/// A tool result that is not an error.
fn text(message: impl Into<String>) -> CallToolResult {
    CallToolResult::success(vec![ContentBlock::text(message.into())])
}

/// What the tool says when it could not ask or the answer is unusable. What the user
/// or their client chose is not an error of the tool; a lost connection is.
fn not_asked_or_failed(error: AskError) -> CallToolResult {
    match error {
        // C7: nothing was sent. F6: a URL-mode interaction never falls back to a form.
        AskError::ModeNotSupported(mode) => text(format!(
            "I could not ask: your client did not declare the {} elicitation mode, so no \
             request was sent and nothing was done.",
            match mode {
                Mode::Form => "form",
                Mode::Url => "URL",
            }
        )),
        // F3: every problem, and none of the answer used.
        AskError::Invalid(errors) => text(format!(
            "Your answer was not valid, so none of it was used and nothing was done: {errors}"
        )),
        AskError::Rejected(rejected) => text(format!(
            "Your client refused the request ({}: {}); nothing was done.",
            rejected.code(),
            rejected.message()
        )),
        other => CallToolResult::error(vec![ContentBlock::text(format!(
            "Asking failed: {}; nothing was done.",
            with_causes(&other)
        ))]),
    }
}

/// An error and its causes, on one line: what failed, then why (a store's error names
/// the operation, redis-rs's the reason).
fn with_causes(error: &dyn std::error::Error) -> String {
    let mut line = error.to_string();
    let mut cause = error.source();
    while let Some(error) = cause {
        line.push_str(": ");
        line.push_str(&error.to_string());
        cause = error.source();
    }
    line
}

/// The tools of every connection; over HTTP, also those of the secure page.
fn tools(with_page: bool) -> Vec<Tool> {
    let object = |json: Value| -> Map<String, Value> {
        match json {
            Value::Object(map) => map,
            _ => Map::new(),
        }
    };
    let mut tools = vec![
        Tool::new(
            "plan_task",
            "Plan a task: asks you how to go about it (form mode).",
            object(json!({
                "type": "object",
                "properties": { "task": { "type": "string", "description": "The task to plan" } },
                "required": ["task"]
            })),
        ),
        Tool::new(
            "book_table",
            "Book a table: asks for the party size and a phone number, and for a deposit \
             when the party is large (form mode, asked again when an answer is wrong).",
            object(json!({
                "type": "object",
                "properties": { "restaurant": { "type": "string", "description": "Where to book" } },
                "required": ["restaurant"]
            })),
        ),
        Tool::new(
            "connect_account",
            "Connect your account: sends you to a consent page (URL mode).",
            object(json!({ "type": "object", "properties": {} })),
        ),
    ];
    if with_page {
        tools.push(Tool::new(
            "save_api_key",
            "Save your API key: asks for it on the server's secure page (URL mode).",
            object(json!({ "type": "object", "properties": {} })),
        ));
        tools.push(Tool::new(
            "link_repository",
            "Link your repository: needs its access token, given on the server's secure \
             page first (URL elicitation required, then retry).",
            object(json!({ "type": "object", "properties": {} })),
        ));
    }
    tools
}

impl ServerHandler for PlanServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build()).with_server_info(
            Implementation::new("elicit-mcp-server", env!("CARGO_PKG_VERSION")),
        )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(tools(self.has_page())))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let connection = self.connection(&context);
        // Over HTTP, the tools of the secure page first.
        #[cfg(feature = "axum")]
        if let Some(remote) = &self.remote {
            if let Some(result) = remote.call_tool(&request.name, connection).await {
                return result.map(Into::into);
            }
        }
        // One tool body for every protocol version: pushed requests up to 2025-11-25,
        // rounds (InputRequiredResult) from 2026-07-28 on.
        let dialog = Dialog::tool_call(context.clone(), &request).with_elicitor(connection.clone());
        let argument = |name: &str| {
            request
                .arguments
                .as_ref()
                .and_then(|arguments| arguments.get(name))
                .and_then(Value::as_str)
                .ok_or_else(|| {
                    ErrorData::invalid_params(
                        format!("{} needs {{\"{name}\": string}}", request.name),
                        None,
                    )
                })
        };
        match request.name.as_ref() {
            "plan_task" => {
                let task = argument("task")?;
                dialog.run(rounds(), self.plan_task(&dialog, task)).await
            }
            "book_table" => {
                let restaurant = argument("restaurant")?;
                dialog
                    .run(rounds(), self.book_table(&dialog, restaurant))
                    .await
            }
            "connect_account" => dialog.run(rounds(), self.connect_account(&dialog)).await,
            other => {
                let names: Vec<_> = tools(self.has_page()).into_iter().map(|t| t.name).collect();
                Err(ErrorData::invalid_params(
                    format!(
                        "no tool named {other:?}; the tools are {}",
                        names.join(", ")
                    ),
                    None,
                ))
            }
        }
    }
}

impl PlanServer {
    /// Whether this connection's tools include the secure page's.
    fn has_page(&self) -> bool {
        #[cfg(feature = "axum")]
        return self.remote.is_some();
        #[cfg(not(feature = "axum"))]
        false
    }
}

/// How to start it.
const USAGE: &str = "usage: mcp_server [--http ADDR [--redis URL] [--public-origin ORIGIN] \
                     [--page-ttl SECS] [--max-sessions N] [--idle-timeout SECS] \
                     [--header-timeout SECS] [--body-timeout SECS] [--max-waits N] \
                     [--allow-origin ORIGIN]...] [--instance NAME]\n  \
                     without --http it speaks MCP on stdin and stdout";

/// The command line.
#[derive(Debug, Default)]
struct Options {
    /// Serve Streamable HTTP here instead of stdio.
    http: Option<std::net::SocketAddr>,
    /// The shared store.
    redis: Option<String>,
    /// Where browsers reach this server; default `http://` and the listening address.
    public_origin: Option<String>,
    /// How long a page link and the records in Redis live.
    page_ttl: Option<std::time::Duration>,
    /// This instance's name on stderr and in the results.
    instance: Option<String>,
    /// The limits of the HTTP server.
    limits: Limits,
}

/// What one client of the HTTP server can hold, and for how long (`--max-sessions`,
/// `--idle-timeout`, `--header-timeout`, `--body-timeout`, `--max-waits`,
/// `--allow-origin`).
#[derive(Debug, Clone)]
#[cfg_attr(not(feature = "axum"), allow(dead_code))]
struct Limits {
    /// Most MCP sessions at once; an `initialize` beyond is refused with `503`.
    max_sessions: usize,
    /// A session without traffic for this long is dropped.
    idle_timeout: std::time::Duration,
    /// A request's headers must arrive within this time, else the connection closes.
    header_timeout: std::time::Duration,
    /// A request's body must arrive within this time, else `408` and the connection
    /// closes.
    body_timeout: std::time::Duration,
    /// Most page waits (outstanding URL elicitations) per session.
    max_waits: usize,
    /// Browser origins allowed besides the public origin, exactly (scheme, host, port).
    allow_origins: Vec<String>,
    /// Whether any limit was given on the command line (they need `--http`).
    given: bool,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_sessions: 256,
            idle_timeout: std::time::Duration::from_secs(300),
            header_timeout: std::time::Duration::from_secs(10),
            body_timeout: std::time::Duration::from_secs(30),
            max_waits: 4,
            allow_origins: Vec::new(),
            given: false,
        }
    }
}

/// A whole number above 0, for `flag`.
fn positive(flag: &str, value: &str) -> Result<u64, String> {
    value
        .parse::<u64>()
        .ok()
        .filter(|&n| n > 0)
        .ok_or_else(|| format!("{flag} {value:?} is not a whole number above 0"))
}

impl Options {
    fn parse(mut args: impl Iterator<Item = String>) -> Result<Options, String> {
        let mut options = Options::default();
        while let Some(flag) = args.next() {
            let mut value = || args.next().ok_or_else(|| format!("{flag} needs a value"));
            match flag.as_str() {
                "--http" => {
                    let addr = value()?;
                    let parsed = addr.parse().map_err(|e| {
                        format!("--http {addr:?} is not an address such as 127.0.0.1:8080 ({e})")
                    })?;
                    options.http = Some(parsed);
                }
                "--redis" => options.redis = Some(value()?),
                "--public-origin" => options.public_origin = Some(value()?),
                "--page-ttl" => {
                    let secs = value()?;
                    let parsed = secs.parse::<u64>().ok().filter(|&secs| secs > 0);
                    let secs = parsed.ok_or_else(|| {
                        format!("--page-ttl {secs:?} is not a whole number of seconds above 0")
                    })?;
                    options.page_ttl = Some(std::time::Duration::from_secs(secs));
                }
                "--instance" => options.instance = Some(value()?),
                "--max-sessions" | "--idle-timeout" | "--header-timeout" | "--body-timeout"
                | "--max-waits" | "--allow-origin" => {
                    let value = value()?;
                    let limits = &mut options.limits;
                    let secs = |v: &str| positive(&flag, v).map(std::time::Duration::from_secs);
                    match flag.as_str() {
                        "--max-sessions" => {
                            limits.max_sessions =
                                positive(&flag, &value)?.try_into().unwrap_or(usize::MAX);
                        }
                        "--idle-timeout" => limits.idle_timeout = secs(&value)?,
                        "--header-timeout" => limits.header_timeout = secs(&value)?,
                        "--body-timeout" => limits.body_timeout = secs(&value)?,
                        "--max-waits" => {
                            limits.max_waits =
                                positive(&flag, &value)?.try_into().unwrap_or(usize::MAX);
                        }
                        _ => limits.allow_origins.push(value),
                    }
                    limits.given = true;
                }
                other => return Err(format!("unknown argument {other:?}")),
            }
        }
        let remote_only = options.redis.is_some()
            || options.public_origin.is_some()
            || options.page_ttl.is_some()
            || options.limits.given;
        if options.http.is_none() && remote_only {
            return Err(
                "--redis, --public-origin, --page-ttl and the limits apply to the HTTP server: \
                 add --http ADDR"
                    .into(),
            );
        }
        Ok(options)
    }
}

#[tokio::main]
async fn main() -> ExitCode {
    let options = match Options::parse(std::env::args().skip(1)) {
        Ok(options) => options,
        Err(error) => {
            eprintln!("mcp_server: {error}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let served = match options.http {
        None => serve_stdio().await,
        Some(addr) => serve_http(addr, &options).await,
    };
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("mcp_server: {error}");
            ExitCode::FAILURE
        }
    }
}

/// One client, on stdin and stdout.
async fn serve_stdio() -> Result<(), Box<dyn std::error::Error>> {
    let service = PlanServer::default()
        .serve(rmcp::transport::stdio())
        .await?;
    service.waiting().await?;
    Ok(())
}

#[cfg(feature = "axum")]
async fn serve_http(
    addr: std::net::SocketAddr,
    options: &Options,
) -> Result<(), Box<dyn std::error::Error>> {
    remote::serve(addr, options).await
}

/// Without the page there is no HTTP server: it is mounted in the same application.
#[cfg(not(feature = "axum"))]
async fn serve_http(
    _addr: std::net::SocketAddr,
    _options: &Options,
) -> Result<(), Box<dyn std::error::Error>> {
    Err(
        "--http serves the secure page too, which needs feature `axum` (and `--redis` \
         feature `redis`): cargo run --example mcp_server --features rmcp_3,axum -- --http \
         127.0.0.1:8080"
            .into(),
    )
}

/// `save_api_key`'s form, shared with `benches/relay_load.rs`.
#[cfg(feature = "axum")]
#[path = "common/api_key.rs"]
mod api_key;

/// The Streamable HTTP server: rmcp's transport at `/mcp`, the secure page beside it,
/// and the state several instances share (feature `axum`; Redis with feature `redis`).
#[cfg(feature = "axum")]
mod remote {
    use std::collections::HashMap;
    use std::fmt;
    use std::net::SocketAddr;
    use std::sync::{Arc, Mutex};
    use std::time::Duration;

    use axum::extract::Request;
    use axum::http::Uri;
    use axum::middleware::Next;
    use axum::Router;
    use elicit::agent::{
        ConnectionId, MemoryStore, RegistryLimits, Store, StoreError, UrlEntry, UrlRegistry,
        UrlState,
    };
    use elicit::axum::{PageTicket, PageWait, SecurePage, SecurePageBuilder};
    use elicit::client::AgentIdentity;
    use elicit::rmcp::{url_elicitation_required, PeerElicitor};
    use elicit::{Elicit, Elicited};
    use rmcp::model::CallToolResult;
    use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
    use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
    use rmcp::ErrorData;
    use serde::{Deserialize, Serialize};

    use super::api_key::{ApiKey, API_KEY_MESSAGE};
    use super::{not_asked_or_failed, text, with_causes, Options, PlanServer, LOCAL_USER};

    /// The largest request body `/mcp` reads; a larger one is refused with `413`,
    /// counted while the body streams in, whatever `Content-Length` says. A tool call
    /// of this server is a few hundred bytes; 256 KiB leaves room for any client's
    /// metadata and bounds what a client can make the server buffer. (The page has its
    /// own bound, 64 KiB.)
    pub const MAX_REQUEST_BODY: usize = 256 * 1024;

    /// Where the page is mounted, under the public origin.
    const PAGE_PATH: &str = "/elicit";

    /// The key prefixes in Redis: one per kind of record.
    #[cfg(feature = "redis")]
    const PREFIXES: [&str; 4] = [
        "elicit-mcp-server:url:",
        "elicit-mcp-server:page:",
        "elicit-mcp-server:link:",
        "elicit-mcp-server:round:",
    ];

    /// The prefix of the relay's channels: instance `id` listens on
    /// `elicit-mcp-server:inst:{id}`.
    #[cfg(feature = "redis")]
    const CHANNEL_PREFIX: &str = "elicit-mcp-server:";

    /// The client connections this instance holds, by the id their elicitations carry
    /// in the registry: where a completion routed here from another instance is sent.
    type Connections = Arc<Mutex<HashMap<ConnectionId, PeerElicitor>>>;

    /// The access token `link_repository` needs, given on the secure page.
    #[derive(Elicit)]
    #[elicit(url_mode, title = "Link your repository")]
    pub struct RepositoryToken {
        /// An access token of your repository, with read access
        #[elicit(title = "Access token", min_length = 16, max_length = 200)]
        token: String,
    }

    /// The page's texts (no link in them: the client shows the URL itself).
    const LINK_MESSAGE: &str =
        "Link your repository: enter its access token on the server's secure page.";
    const LINK_REQUIRED: &str =
        "Linking the repository needs its access token first: open the page, then try again.";

    /// What the deployment knows of a user's repository link, shared by its instances:
    /// the URL elicitation that asks for the token, and once the page was submitted the
    /// token's length. Never the token.
    #[derive(Serialize, Deserialize, Clone, PartialEq, Debug)]
    pub struct RepositoryLink {
        elicitation_id: String,
        token_characters: Option<usize>,
    }

    /// Everything the sessions of this instance share: the page, the stores (which the
    /// instances of a deployment share through Redis) and the instance's name.
    #[derive(Clone)]
    pub struct Deployment {
        pub registry: UrlRegistry,
        page: SecurePage,
        /// The registry's records, read here to see an elicitation another instance
        /// completed.
        entries: Arc<dyn Store<UrlEntry>>,
        links: Arc<dyn Store<RepositoryLink>>,
        connections: Connections,
        instance: Arc<str>,
    }

    /// Serves Streamable HTTP and the page on `addr` until the process is stopped.
    pub async fn serve(
        addr: SocketAddr,
        options: &Options,
    ) -> Result<(), Box<dyn std::error::Error>> {
        let listener = tokio::net::TcpListener::bind(addr)
            .await
            .map_err(|error| format!("cannot listen on {addr}: {error}"))?;
        let addr = listener.local_addr()?;
        let instance = options.instance.clone().unwrap_or_else(|| addr.to_string());
        let public_origin = options
            .public_origin
            .clone()
            .unwrap_or_else(|| format!("http://{addr}"));
        let deployment = Deployment::new(
            &public_origin,
            options.redis.as_deref(),
            options.page_ttl,
            instance,
        )?;
        let limits = &options.limits;
        let _ = MAX_WAITS.set(limits.max_waits);
        let app = application(&deployment, limits)?;
        deployment.log(format_args!(
            "serving MCP at http://{addr}/mcp, the secure page at {}{PAGE_PATH}/, state in {}",
            deployment.page.origin(),
            if options.redis.is_some() {
                "Redis"
            } else {
                "memory"
            }
        ));
        // The one line a supervisor (or a test) waits for: the server accepts from now.
        println!("http://{addr}/mcp");
        accept(listener, app, limits).await
    }

    /// The accept loop: hyper's HTTP/1.1 server per connection, with a header read
    /// timeout (`axum::serve` has none). A connection whose request headers do not
    /// arrive within `--header-timeout` is closed; the body's bound is
    /// [`read_body_within`]'s.
    async fn accept(
        listener: tokio::net::TcpListener,
        app: Router,
        limits: &super::Limits,
    ) -> Result<(), Box<dyn std::error::Error>> {
        use hyper_util::rt::{TokioIo, TokioTimer};
        use hyper_util::service::TowerToHyperService;
        let mut http = hyper::server::conn::http1::Builder::new();
        http.timer(TokioTimer::new())
            .header_read_timeout(limits.header_timeout);
        loop {
            let stream = match listener.accept().await {
                Ok((stream, _)) => stream,
                // Out of file descriptors and the like: wait, do not spin, go on.
                Err(error) => {
                    log("-", format_args!("accept failed: {error}"));
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
            };
            let connection = http
                .serve_connection(TokioIo::new(stream), TowerToHyperService::new(app.clone()))
                .with_upgrades();
            tokio::spawn(async move {
                // A closed or timed-out connection is the client's business.
                let _ = connection.await;
            });
        }
    }

    /// The page waits (outstanding URL elicitations) one session may hold:
    /// `--max-waits`, set once at start.
    static MAX_WAITS: std::sync::OnceLock<usize> = std::sync::OnceLock::new();

    /// The registry's limits with `--max-waits` as the waits per session.
    fn registry_limits() -> RegistryLimits {
        RegistryLimits {
            max_outstanding_per_connection: MAX_WAITS.get().copied().unwrap_or(4),
            ..RegistryLimits::DEFAULT
        }
    }

    /// Reads the request's body whole within `--body-timeout` (and at most
    /// [`MAX_REQUEST_BODY`] of it) before any handler sees it: a body that trickles in
    /// is answered `408` and its connection closed; one over the bound, `413`.
    async fn read_body_within(
        timeout: Duration,
        request: axum::extract::Request,
        next: axum::middleware::Next,
    ) -> axum::response::Response {
        use axum::http::{header, StatusCode};
        use axum::response::IntoResponse;
        let (parts, body) = request.into_parts();
        let read = axum::body::to_bytes(body, MAX_REQUEST_BODY);
        let bytes = match tokio::time::timeout(timeout, read).await {
            Ok(Ok(bytes)) => bytes,
            Ok(Err(_)) => {
                return (
                    StatusCode::PAYLOAD_TOO_LARGE,
                    [(header::CONNECTION, "close")],
                    "Payload Too Large: the request body is over the bound",
                )
                    .into_response()
            }
            Err(_) => {
                return (
                    StatusCode::REQUEST_TIMEOUT,
                    [(header::CONNECTION, "close")],
                    format!(
                        "Request Timeout: the body did not arrive within {} s",
                        timeout.as_secs()
                    ),
                )
                    .into_response()
            }
        };
        let request = axum::extract::Request::from_parts(parts, axum::body::Body::from(bytes));
        next.run(request).await
    }

    tokio::task_local! {
        /// The `--max-sessions` permit [`refuse_when_full`] reserved for the request
        /// being served, for rmcp's service factory to take (it runs inside the
        /// request's future and sees nothing of the request).
        static RESERVED: Mutex<Option<tokio::sync::OwnedSemaphorePermit>>;
    }

    /// A new session (a `POST` without `Mcp-Session-Id`) when `--max-sessions` are
    /// open: refused with `503` and a JSON-RPC error that says so, before rmcp makes
    /// anything. Otherwise one permit is taken here, atomically, and handed to the
    /// session rmcp makes for this request ([`PlanServer::remote`] holds it); checking
    /// the count here and taking the permit in the factory would let concurrent
    /// requests pass the check together and fail in rmcp with a `500`.
    async fn refuse_when_full(
        sessions: Arc<tokio::sync::Semaphore>,
        request: axum::extract::Request,
        next: axum::middleware::Next,
    ) -> axum::response::Response {
        use axum::http::{header, Method, StatusCode};
        use axum::response::IntoResponse;
        let new_session =
            request.method() == Method::POST && !request.headers().contains_key("mcp-session-id");
        if !new_session {
            return next.run(request).await;
        }
        let Ok(permit) = sessions.try_acquire_owned() else {
            let error = serde_json::json!({
                "jsonrpc": "2.0",
                "id": null,
                "error": {
                    "code": -32000,
                    "message": "this server holds as many sessions as it allows; \
                                try again later (an idle session is dropped after a while)"
                }
            });
            return (
                StatusCode::SERVICE_UNAVAILABLE,
                [
                    (header::CONTENT_TYPE, "application/json"),
                    (header::RETRY_AFTER, "30"),
                ],
                error.to_string(),
            )
                .into_response();
        };
        // Not taken (the request failed before rmcp made a server): dropped here.
        RESERVED
            .scope(Mutex::new(Some(permit)), next.run(request))
            .await
    }

    /// An `--allow-origin` value as an exact origin, port spelled out (rmcp reads an
    /// entry without a port as any port).
    fn exact_origin(origin: &str) -> Result<String, String> {
        let uri: Uri = origin
            .parse()
            .map_err(|e| format!("--allow-origin {origin:?} is not an origin ({e})"))?;
        let (Some(scheme), Some(host)) = (uri.scheme_str(), uri.host()) else {
            return Err(format!(
                "--allow-origin {origin:?} is not an origin such as https://app.example.com"
            ));
        };
        let bare = uri.path_and_query().is_none_or(|p| p.as_str() == "/");
        if !matches!(scheme, "http" | "https") || !bare || origin.ends_with('*') {
            return Err(format!(
                "--allow-origin {origin:?} is not an origin such as https://app.example.com \
                 (scheme http or https, a host, an optional port, nothing else)"
            ));
        }
        let port = uri
            .port_u16()
            .unwrap_or(if scheme == "https" { 443 } else { 80 });
        Ok(format!("{scheme}://{}:{port}", host.to_ascii_lowercase()))
    }

    /// rmcp's Streamable HTTP service at `/mcp`, one `PlanServer` per session, and the
    /// page's routes beside it, within the limits.
    fn application(
        deployment: &Deployment,
        limits: &super::Limits,
    ) -> Result<Router, Box<dyn std::error::Error>> {
        let public: Uri = deployment.page.origin().parse()?;
        let host = public.host().ok_or("the public origin has no host")?;
        let port = public
            .port_u16()
            .unwrap_or(if public.scheme_str() == Some("https") {
                443
            } else {
                80
            });
        let scheme = public.scheme_str().unwrap_or("http");
        // DNS rebinding (MCP transport, "Security Warning"): a request must be
        // addressed to this server (`Host`), and a browser's must come from a page of
        // its own origin or of one `--allow-origin` names, exactly: scheme, host and
        // port. Not any port of `localhost`: any local program (or a page a local dev
        // server serves) can listen there. rmcp answers anything else with `403`.
        // Requests without `Origin` are not a browser's and pass.
        let mut origins = vec![format!("{scheme}://{host}:{port}")];
        for origin in &limits.allow_origins {
            origins.push(exact_origin(origin)?);
        }
        let config = StreamableHttpServerConfig::default()
            .with_allowed_hosts(["localhost", "127.0.0.1", "::1", host])
            .with_allowed_origins(origins)
            .with_max_request_body_bytes(MAX_REQUEST_BODY);
        // An idle session is dropped after `--idle-timeout`; each session holds a permit
        // of `--max-sessions` for its lifetime.
        let mut manager = LocalSessionManager::default();
        manager.session_config.keep_alive = Some(limits.idle_timeout);
        let permits = Arc::new(tokio::sync::Semaphore::new(limits.max_sessions));
        let (sessions, held) = (deployment.clone(), Arc::clone(&permits));
        let mcp = StreamableHttpService::new(
            move || {
                let reserved = RESERVED.try_with(|slot| lock(slot).take()).ok().flatten();
                let permit = match reserved {
                    Some(permit) => permit,
                    None => Arc::clone(&held).try_acquire_owned().map_err(|_| {
                        std::io::Error::other("this server holds as many sessions as it allows")
                    })?,
                };
                Ok(PlanServer::remote(sessions.clone(), permit))
            },
            Arc::new(manager),
            config,
        );
        let page = &deployment.page;
        let body_timeout = limits.body_timeout;
        Ok(Router::new()
            .nest_service("/mcp", mcp)
            .layer(axum::middleware::from_fn(
                move |request: Request, next: Next| {
                    refuse_when_full(Arc::clone(&permits), request, next)
                },
            ))
            .nest(page.mount_path(), page.router())
            .layer(axum::middleware::from_fn(
                move |request: Request, next: Next| read_body_within(body_timeout, request, next),
            )))
    }

    /// A session that ends takes its connection out of the instance's map.
    impl Drop for PlanServer {
        fn drop(&mut self) {
            if let (Some(remote), Some(connection)) = (&self.remote, self.connection.get()) {
                lock(&remote.connections).remove(&connection.elicitor().connection());
            }
        }
    }

    fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
        mutex
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    impl PlanServer {
        /// The server of one Streamable HTTP session, holding one of the
        /// `--max-sessions` permits until the session ends (rmcp drops the server then:
        /// closed by the client, or idle for `--idle-timeout`).
        fn remote(deployment: Deployment, permit: tokio::sync::OwnedSemaphorePermit) -> Self {
            PlanServer {
                connection: Default::default(),
                registry: deployment.registry.clone(),
                remote: Some(deployment),
                session: Some(permit),
            }
        }
    }

    impl Deployment {
        /// The page at `public_origin`, and the stores: in Redis at `redis` (with the
        /// relay to the other instances), or in memory. `ttl`: the links' and records'.
        fn new(
            public_origin: &str,
            redis: Option<&str>,
            ttl: Option<Duration>,
            instance: String,
        ) -> Result<Deployment, Box<dyn std::error::Error>> {
            let mut page = SecurePage::builder()
                .unauthenticated_single_user(elicit::agent::UserId::new(LOCAL_USER))
                .agent(
                    AgentIdentity::new("elicit-mcp-server").with_title("elicit example MCP server"),
                );
            if let Some(ttl) = ttl {
                page = page.ttl(ttl);
            }
            let instance: Arc<str> = instance.into();
            let connections = Connections::default();
            let (registry, page, entries, links) = match redis {
                None => in_memory(page),
                Some(url) => in_redis(url, page, ttl, &connections, &instance)?,
            };
            let page = page.mounted(public_origin, PAGE_PATH)?;
            Ok(Deployment {
                registry,
                page,
                entries,
                links,
                connections,
                instance,
            })
        }

        /// Notes a session's connection, once it has one.
        pub fn connected(&self, connection: &PeerElicitor) {
            lock(&self.connections).insert(connection.elicitor().connection(), connection.clone());
        }

        /// One line on stderr, naming the instance.
        pub fn log(&self, line: fmt::Arguments<'_>) {
            log(&self.instance, line);
        }

        /// The page's tools; `None` for another name.
        pub async fn call_tool(
            &self,
            name: &str,
            connection: &PeerElicitor,
        ) -> Option<Result<CallToolResult, ErrorData>> {
            let result = match name {
                "save_api_key" => Ok(self.save_api_key(connection).await),
                "link_repository" => self.link_repository(connection).await,
                _ => return None,
            };
            self.log(format_args!(
                "tools/call {name}: {}",
                match &result {
                    Ok(_) => "answered",
                    Err(_) => "error",
                }
            ));
            Some(result)
        }

        /// `save_api_key`: the key on the page, its length in the result.
        async fn save_api_key(&self, connection: &PeerElicitor) -> CallToolResult {
            match connection
                .ask_secret::<ApiKey>(&self.page, API_KEY_MESSAGE)
                .await
            {
                Ok(Elicited::Accepted(key)) => text(format!(
                    "Saved an API key of {} characters (instance {}). It went from your \
                     browser to this server only; it is not shown here.",
                    key.api_key.chars().count(),
                    self.instance
                )),
                Ok(Elicited::Declined) => {
                    text("You declined to give the API key; nothing was done.")
                }
                Ok(Elicited::Cancelled) => text(
                    "You cancelled giving the API key (or the page expired); nothing was done.",
                ),
                Err(error) => not_asked_or_failed(error),
            }
        }

        /// `link_repository`: done if the shared store says the token was given on the
        /// page and the elicitation is completed; else `-32042` with a new page link.
        async fn link_repository(
            &self,
            connection: &PeerElicitor,
        ) -> Result<CallToolResult, ErrorData> {
            let known = self.links.get(LOCAL_USER).map_err(store_failed)?;
            if let Some(RepositoryLink {
                elicitation_id,
                token_characters: Some(characters),
            }) = &known
            {
                // Whichever instance sent the elicitation and completed it.
                let entry = self.entries.get(elicitation_id).map_err(store_failed)?;
                if entry.is_some_and(|entry| entry.state() == UrlState::Completed) {
                    return Ok(text(format!(
                        "The repository is linked with an access token of {characters} \
                         characters, given on the secure page for elicitation \
                         {elicitation_id} (instance {}).",
                        self.instance
                    )));
                }
            }
            let link = self
                .page
                .link::<RepositoryToken>(LINK_MESSAGE)
                .map_err(|error| ErrorData::internal_error(error.to_string(), None))?;
            let pending = match connection.prepare_url(LINK_MESSAGE, link.url()) {
                Ok(pending) => pending,
                // C7, F6: no URL mode, no elicitation.
                Err(error) => return Ok(not_asked_or_failed(error)),
            };
            let id = pending.elicitation_id().to_owned();
            let forget = |error: ErrorData| {
                connection.elicitor().forget(&id);
                error
            };
            let wait = link
                .open(&id, connection.elicitor().user())
                .map_err(|error| forget(ErrorData::internal_error(error.to_string(), None)))?;
            let record = RepositoryLink {
                elicitation_id: id.clone(),
                token_characters: None,
            };
            let recorded = match &known {
                None => self.links.insert_new(LOCAL_USER, record.clone()),
                Some(old) => self
                    .links
                    .compare_and_swap(LOCAL_USER, old, Some(record.clone())),
            };
            match recorded {
                Ok(true) => {}
                Ok(false) => {
                    return Err(forget(ErrorData::internal_error(
                        "another call is linking the repository at this moment; try again",
                        None,
                    )))
                }
                Err(error) => return Err(forget(store_failed(error))),
            }
            self.log(format_args!("link_repository: -32042 for elicitation {id}"));
            tokio::spawn(self.clone().finish_link(connection.clone(), record, wait));
            // M4: the client opens the page and retries the call.
            Err(url_elicitation_required(LINK_REQUIRED, &[pending]))
        }

        /// Waits for the page of `record`, then records the token's length and sends
        /// `notifications/elicitation/complete` on the connection that got `-32042`.
        async fn finish_link(
            self,
            connection: PeerElicitor,
            record: RepositoryLink,
            wait: PageWait<RepositoryToken>,
        ) {
            let id = record.elicitation_id.clone();
            let submitted = match wait.answer().await {
                Ok(Elicited::Accepted(submitted)) => submitted,
                Ok(Elicited::Declined | Elicited::Cancelled) | Err(_) => {
                    // Refused, expired or closed: nothing is linked.
                    connection.elicitor().forget(&id);
                    let _ = self.links.compare_and_swap(LOCAL_USER, &record, None);
                    self.log(format_args!(
                        "link_repository: elicitation {id} ended unlinked"
                    ));
                    return;
                }
            };
            // First what the retry reads, then the completion: a retry that sees the
            // elicitation completed also sees the link.
            let linked = RepositoryLink {
                token_characters: Some(submitted.value().token.chars().count()),
                ..record.clone()
            };
            match self
                .links
                .compare_and_swap(LOCAL_USER, &record, Some(linked))
            {
                Ok(true) => {}
                outcome => {
                    connection.elicitor().forget(&id);
                    self.log(format_args!(
                        "link_repository: elicitation {id} not recorded ({})",
                        match outcome {
                            Ok(_) => "a newer link replaced it".to_owned(),
                            Err(error) => error.to_string(),
                        }
                    ));
                    return;
                }
            }
            match connection.complete(&id, submitted.user()).await {
                Ok(()) => self.log(format_args!("link_repository: elicitation {id} completed")),
                Err(error) => self.log(format_args!(
                    "link_repository: elicitation {id} not completed: {error}"
                )),
            }
        }
    }

    fn log(instance: &str, line: fmt::Arguments<'_>) {
        eprintln!("[{instance}] {line}");
    }

    /// A store that failed: an error of the tool, never a success.
    fn store_failed(error: StoreError) -> ErrorData {
        ErrorData::internal_error(
            format!("the server's store failed: {}", with_causes(&error)),
            None,
        )
    }

    type Stores = (
        UrlRegistry,
        SecurePageBuilder,
        Arc<dyn Store<UrlEntry>>,
        Arc<dyn Store<RepositoryLink>>,
    );

    /// Everything in this process: one instance alone.
    fn in_memory(page: SecurePageBuilder) -> Stores {
        let entries = MemoryStore::<UrlEntry>::new();
        (
            UrlRegistry::with_store(entries.clone(), registry_limits()),
            page.store(MemoryStore::<PageTicket>::new()),
            Arc::new(entries),
            Arc::new(MemoryStore::<RepositoryLink>::new()),
        )
    }

    /// Everything in the Redis at `url`, on one connection, each kind under its prefix;
    /// the registry and the page routed by this instance's relay, whose completions
    /// (of this instance's elicitations, done on another one) go out on the
    /// connection in `connections` that received the request.
    #[cfg(feature = "redis")]
    fn in_redis(
        url: &str,
        page: SecurePageBuilder,
        ttl: Option<Duration>,
        connections: &Connections,
        instance: &Arc<str>,
    ) -> Result<Stores, Box<dyn std::error::Error>> {
        use elicit::agent::{RedisConfig, RedisRelay, RedisStore, RelayConfig, RelayKey};
        // What the instances act on from Redis (the page's route and form, each relayed
        // message's sender) is tagged under a key Redis never holds: derived from the
        // key they already share for `requestState`.
        let round_key = crate::round_key_from_env().ok_or(
            "--redis needs ELICIT_ROUND_KEY (64 hex digits, the same on every instance): \
             the relay's key is derived from it, so that nobody who can write to Redis \
             can route a page or an answer",
        )?;
        let relay_key = RelayKey::derived_from(&round_key);
        let cannot =
            |error: StoreError| format!("cannot use Redis at {url}: {}", with_causes(&error));
        let [url_prefix, page_prefix, link_prefix, round_prefix] = PREFIXES;
        let mut config = RedisConfig::new().prefix(url_prefix);
        if let Some(ttl) = ttl {
            config = config.ttl(ttl);
        }
        let entries: RedisStore<UrlEntry> = RedisStore::connect(url, config).map_err(cannot)?;
        // Each `requestState` opens once across the deployment: the used rounds in Redis
        // (under their random ids), each record living as long as its round.
        crate::share_rounds(
            crate::unrecorded_rounds().at_most_once_in_redis(&entries, round_prefix),
        )?;
        let relay = RedisRelay::connect(url, relay_key, RelayConfig::new().prefix(CHANNEL_PREFIX))
            .map_err(cannot)?;
        let registry =
            UrlRegistry::with_store(entries.clone(), registry_limits()).routed_by(&relay);
        // The hook runs on the relay's thread: the sending is a task of this runtime.
        let runtime = tokio::runtime::Handle::current();
        let (connections, instance) = (Arc::clone(connections), Arc::clone(instance));
        relay.on_completion(&registry, move |done| {
            let id = done.elicitation_id().to_owned();
            let Some(connection) = lock(&connections).get(&done.connection()).cloned() else {
                log(
                    &instance,
                    format_args!("completion of {id}: its session is gone"),
                );
                return;
            };
            let instance = Arc::clone(&instance);
            runtime.spawn(async move {
                match connection.send_completion(done).await {
                    Ok(()) => log(
                        &instance,
                        format_args!("completion of {id} routed here, sent"),
                    ),
                    Err(error) => log(
                        &instance,
                        format_args!("completion of {id} routed here, not sent: {error}"),
                    ),
                }
            });
        });
        Ok((
            registry,
            page.store(entries.with_prefix::<PageTicket>(page_prefix))
                .relay(&relay),
            Arc::new(entries.clone()),
            Arc::new(entries.with_prefix::<RepositoryLink>(link_prefix)),
        ))
    }

    #[cfg(not(feature = "redis"))]
    fn in_redis(
        _url: &str,
        _page: SecurePageBuilder,
        _ttl: Option<Duration>,
        _connections: &Connections,
        _instance: &Arc<str>,
    ) -> Result<Stores, Box<dyn std::error::Error>> {
        Err(
            "--redis needs feature `redis`: cargo run --example mcp_server \
             --features rmcp_3,axum,redis -- --http ADDR --redis URL"
                .into(),
        )
    }
}
