//! Behavioural tests of elicit-core's security-critical code, one module per source
//! file, written against the public API only (no derive, no facade helpers) so that
//! `cargo mutants -p elicit-core` finds them without help:
//!
//! - `registry`: the agent's record of URL elicitations (`agent/registry.rs`): bound
//!   to connection and user, completed once, bounded (E5, S6, U2, U4, U5, D12), also
//!   across instances sharing one `Store`, and refused when the store fails.
//! - `elicitor`: what an agent asks through (`agent/elicitor.rs`): undeclared modes,
//!   secrets, links, unsafe URLs and null request ids are refused (C7, F5–F7, S1, E3).
//! - `url_check`: the agent's URL policy (`agent/url_check.rs`, S1, U3).
//! - `url_review`: what a client shows before opening a URL (`client/url_review.rs`,
//!   S2–S5, K3).
//! - `tracker`: the client's record of completions (`client/tracker.rs`, U5, U6).
//! - `page`: the agent's secure page over HTTP (`axum/handlers.rs`): shown and taken
//!   only under its own address, from its own page, by the user who started the
//!   elicitation and the browser that submitted first, after the client's consent,
//!   once (S1, S3, S6, U2, F3).
//! - `page_relay`: the same page across instances with a relay (features `axum` and
//!   `redis`): answered on another instance, refused when what Redis holds for it was
//!   rewritten, and saying so when the waiting instance is gone; the relay's channel
//!   named from its configured prefix and instance id (S6, E5, R5).
//! - `relay`: the relay itself (`agent/relay.rs`, feature `redis`): a completion
//!   reaches the instance that issued it, once; a `PUBLISH` that fails is an error
//!   after bounded, paced, time-limited attempts; every box sealed afresh (U5, E5, S6,
//!   R5, S1).
//! - `respond`: the client engine (`client/respond.rs`): what a person is asked and
//!   shown, what is refused, and what goes back (F3, F4, K1–K3, C8, E6, S2, U6, D13).
//! - `store_contract`: one contract for every `Store` (`agent/store.rs`,
//!   `agent/redis.rs`), on `MemoryStore` and, with feature `redis`, on `RedisStore`
//!   against a real `redis-server` (`redis_server`) each test starts and stops.
//! - `redis_store`: what a `RedisStore` (`agent/redis.rs`) does beyond that contract:
//!   with Redis stopped, restarted, refusing, hanging, losing an answer or answering
//!   garbage (a stand-in that misbehaves on cue), and with the settings it is given.
//! - `rounds`: with features `rmcp_3` and `redis`, the used rounds of MCP 2026-07-28
//!   in Redis (`rmcp/state.rs`): a `requestState` answered on one instance is refused
//!   on every other sharing the Redis (M6, S6).
//!
//! Every test names the SPEC ids it covers (`// covers: …`).

mod elicitor;
#[cfg(feature = "axum")]
mod page;
#[cfg(all(feature = "axum", feature = "redis"))]
mod page_relay;
#[cfg(feature = "redis")]
mod redis_server;
#[cfg(feature = "redis")]
mod redis_store;
#[cfg(feature = "url")]
mod registry;
#[cfg(feature = "redis")]
mod relay;
#[cfg(feature = "url")]
mod respond;
#[cfg(all(feature = "rmcp_3", feature = "redis"))]
mod rounds;
#[cfg(feature = "url")]
mod store_contract;
mod tracker;
#[cfg(feature = "url")]
mod url_check;
#[cfg(feature = "url")]
mod url_review;
