//! The agent side: what an agent checks before it asks, and what it tracks after.
//!
//! - [`Elicitor`]: one per client connection. Builds `elicitation/create` requests
//!   and refuses those the spec forbids: a mode the client did not declare ([C7](crate::rules#c7)), a
//!   form asking for a secret ([F5](crate::rules#f5), [F6](crate::rules#f6)) or carrying a link ([F7](crate::rules#f7)), an unsafe URL ([S1](crate::rules#s1)).
//! - `UrlRegistry` (feature `url`): the outstanding URL elicitations, bound to their
//!   connection and user, with explicit states, so that `elicitation/complete` is
//!   produced once, for the right connection and user ([E5](crate::rules#e5), [S6](crate::rules#s6), [U2](crate::rules#u2), [U4](crate::rules#u4), [U5](crate::rules#u5)).
//!   It keeps them in a `Store` (feature `url`), in memory by default, which the
//!   instances of an agent can share: `RedisStore` (feature `redis`) keeps them in
//!   Redis.
//! - `RedisRelay` (feature `redis`): the instances of an agent hand each other, sealed,
//!   a page submission or a completion that landed on the wrong one.
//! - [`UrlOutcome`]: the user's choice on a URL elicitation, read without looking at
//!   any content ([R4](crate::rules#r4), [U3](crate::rules#u3)). Form answers are read with `Elicit::from_response` ([F3](crate::rules#f3), [R5](crate::rules#r5)).
//! - [`AskError`]: every way asking a client through an SDK integration can end without
//!   an answer to use, the same for every SDK.
//! - `UrlPolicy` (feature `url`): the URL rules an agent must follow before sending a
//!   URL-mode elicitation ([S1](crate::rules#s1), [U3](crate::rules#u3)).
//!
//! There is no way to turn a URL-mode request into a form-mode one: a sensitive
//! interaction refused for lack of URL mode must not fall back to a form ([F6](crate::rules#f6)).
//!
//! ```
//! # #[cfg(feature = "url")] {
//! use elicit::agent::{ConnectionId, Elicitor, UrlOutcome, UrlRegistry, UrlState, UserId};
//! use elicit::protocol::{ElicitationCapabilities, ElicitationResponse, Scope};
//! use serde_json::json;
//!
//! let registry = UrlRegistry::new(); // one per agent
//! let caps = ElicitationCapabilities::from_json(Some(&json!({ "url": {} })));
//! let alice = UserId::new("alice");
//! let elicitor = Elicitor::new(caps, ConnectionId::new())
//!     .with_user(alice.clone())
//!     .with_registry(&registry);
//!
//! let pending = elicitor
//!     .url(Scope::session("s1"), "Connect your calendar", "https://auth.example.com/connect")
//!     .unwrap();
//! let id = pending.elicitation_id().to_owned();
//! // … send `pending.request()`; the client answers `accept`: consent only (U2).
//! let outcome = elicitor
//!     .record_response(&id, &ElicitationResponse::accept_without_content())
//!     .unwrap();
//! assert_eq!(outcome, UrlOutcome::Consented);
//! assert_eq!(elicitor.url_state(&id), Some(UrlState::Consented));
//!
//! // The external interaction finished, for the same user (S6): notify once (U5).
//! let done = elicitor.complete(&id, Some(&alice)).unwrap();
//! assert_eq!(done.elicitation_id(), id);
//! assert!(elicitor.complete(&id, Some(&alice)).is_err());
//! # }
//! ```

mod ask;
mod elicitor;
mod ids;
mod outcome;
mod problems;
#[cfg(feature = "redis")]
mod redis;
#[cfg(feature = "url")]
mod registry;
#[cfg(feature = "redis")]
mod relay;
#[cfg(feature = "redis")]
mod relay_key;
#[cfg(feature = "url")]
mod route;
#[cfg(feature = "url")]
mod store;
#[cfg(feature = "url")]
mod url_check;

#[cfg(all(feature = "redis", feature = "axum"))]
pub(crate) use self::redis::{read_record, record_bytes};
#[cfg(feature = "redis")]
pub use self::redis::{RedisConfig, RedisStore};
#[cfg(feature = "redis")]
pub use self::relay::{Delivery, RedisRelay, RelayConfig, RouteError};
// Not a public API: the relay without Redis, for the fuzz target `relay_message`.
#[cfg(feature = "redis")]
#[doc(hidden)]
pub use self::relay::RelayEnd;
#[cfg(all(feature = "redis", feature = "axum"))]
pub(crate) use self::relay::{PageInbox, PageMessage, RoutedAction};
#[cfg(feature = "redis")]
pub use self::relay_key::RelayKey;
#[cfg(all(feature = "redis", feature = "axum"))]
pub(crate) use self::relay_key::{Keys as RelayKeys, Purpose as TagPurpose};
#[cfg(feature = "axum")]
pub(crate) use self::route::Route;
#[cfg(feature = "url")]
pub use crate::url_error::InvalidUrl;
#[cfg(any(feature = "agent-client-protocol", feature = "rmcp_3"))]
pub(crate) use ask::answer::schema_answer;
#[cfg(all(
    feature = "url",
    any(feature = "agent-client-protocol", feature = "rmcp_3")
))]
pub(crate) use ask::answer::unknown_action;
pub use ask::AskError;
#[allow(deprecated)]
pub use elicitor::ElicitError;
pub use elicitor::{Elicitor, RefusedError};
pub use ids::{ConnectionId, UserId};
pub use outcome::{UnknownActionError, UrlOutcome};
pub use problems::Problems;
// The page server mints its tokens as the registry mints ids.
#[cfg(feature = "axum")]
pub(crate) use registry::random_hex;
#[cfg(feature = "url")]
pub use registry::{
    CompletionError, PendingUrl, RegistryError, RegistryLimits, RoutedCompletion, UrlEntry,
    UrlRegistry, UrlState,
};
#[cfg(feature = "url")]
pub use store::{MemoryStore, Store, StoreError};
#[cfg(feature = "url")]
pub use url_check::{UnsafeUrlError, UrlPart, UrlPolicy};
