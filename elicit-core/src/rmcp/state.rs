//! The sealed `requestState` of an MCP 2026-07-28 round (see [`input`](super::input)):
//! what a round asked, sealed under a key the deployment's instances share, so that
//! whichever instance the retry reaches can check it exactly, with no shared store.
//!
//! Two bindings close what a stateless state leaves open (issue 28, finding 9):
//!
//! - **The user, by default.** [`Rounds::new`] seals a round for the request's
//!   authenticated user ([`RoundRequest::for_user`]; a [`Dialog`](super::dialog::Dialog)
//!   takes the user from its elicitor or from the request's extensions) and opens it only
//!   for that user: another user's retry is [`RoundError::Unbound`]. A request that names
//!   no user is refused as [`RoundError::Unbound`] too, saying what to do, unless the
//!   rounds are explicitly [`Rounds::anonymous`] (a server that authenticates nobody, such
//!   as a local single-user tool or a conformance suite). Anonymous rounds still bind a
//!   user when the request names one.
//! - **At most once, on request.** [`Rounds::at_most_once`] records each opened round's
//!   random id in a [`Store`](crate::agent::Store) the instances share (a
//!   [`MemoryStore`](crate::agent::MemoryStore) in one process, Redis across instances
//!   with `Rounds::at_most_once_in_redis`) until the round expires: a replayed
//!   `requestState` is [`RoundError::Used`] on every instance, whatever answers it
//!   carries.
//!
//! # What travels in the clear
//!
//! A state is `elicit1.` and base64url of: the key's id (8 bytes), a random nonce
//! (24 bytes), and the ciphertext with its tag. Everything the round holds (the asked
//! inputs, the request's digest, the user's digest, the expiry, the round id, the
//! carried data) is inside the ciphertext. The key id stays in the clear on purpose: it
//! only selects which of the keys in rotation ([`Rounds::also_opening`]) opens the
//! state, so that a state from a retired or foreign key is told apart from a tampered
//! one. It is a truncated SHA-256 of the key under a domain of its own, so it reveals
//! nothing of the key (finding it is a preimage search on 256 random bits), and it is
//! authenticated with the ciphertext (changing it fails as an unknown key or as
//! tampering). What it does tell an observer, that two states were sealed under the
//! same key, is what any observer of one deployment already knows.

use std::fmt;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use ::rmcp::model::{
    CallToolRequestParams, ErrorCode, GetPromptRequestParams, InputRequest, InputRequests,
    InputRequiredResult, InputResponses, ReadResourceRequestParams,
};
use ::rmcp::service::{RequestContext, RoleServer};
use ::rmcp::ErrorData;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use chacha20poly1305::aead::{Aead, Payload};
use chacha20poly1305::{KeyInit, XChaCha20Poly1305, XNonce};
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};
use sha2::{Digest, Sha256};

use crate::agent::{AskError, UserId};
#[cfg(feature = "url")]
use crate::agent::{Store, StoreError};
use crate::protocol::ElicitationResponse;
use crate::schema::RequestedSchema;
use crate::typed::{Elicit, Elicited};

/// What every sealed state starts with: the format and its version.
const PREFIX: &str = "elicit1.";
/// Authenticated with every state (with the key id): a state sealed for another
/// purpose or another format version never opens as this one.
const DOMAIN: &[u8] = b"elicit/rmcp/requestState/v1";
const KEY_ID_LEN: usize = 8;
const NONCE_LEN: usize = 24;
const TAG_LEN: usize = 16;
/// The longest `requestState` read (D12): a larger one is refused before decoding.
pub const MAX_REQUEST_STATE_LEN: usize = 64 * 1024;
/// How long a round stays open unless [`Rounds::with_ttl`] says otherwise.
pub const DEFAULT_TTL: Duration = Duration::from_secs(10 * 60);
/// How much longer than a round a used-round record lives in Redis
/// ([`Rounds::at_most_once_in_redis`]): the instance that sealed a round and the one
/// that checks a replay read different clocks, and the record must outlive the round
/// on both.
#[cfg(feature = "redis")]
pub const USED_ROUND_MARGIN: Duration = Duration::from_secs(60);

/// The key that seals and opens round states: 256 bits every instance of the
/// deployment holds (from its secret store), so that any of them continues a round
/// another began.
///
/// Its [`id`](Self::id), a digest of the key, travels in the clear in each state, so a
/// state from another key is told apart from a tampered one. `Debug` never shows the
/// key.
///
/// The id stays in the clear on purpose: it only selects which of the keys in rotation
/// ([`Rounds::also_opening`]) opens a state. It is a truncated SHA-256 of the key under
/// a domain of its own, so it reveals nothing of the key (finding the key from it is a
/// preimage search on 256 random bits), and it is authenticated with the ciphertext.
/// What it tells an observer, that two states were sealed under the same key, any
/// observer of one deployment knows already. Everything else a state holds (the asked
/// inputs, the request's and the user's digests, the expiry, the round id, the carried
/// data) is inside the ciphertext.
#[derive(Clone)]
pub struct RoundKey {
    bytes: [u8; 32],
    id: [u8; KEY_ID_LEN],
}

// Here, not in `agent::relay_key`: the agent layer never names the rmcp layer above it
// (`layers::no_module_names_one_above_it`); an inherent impl may live in any module.
#[cfg(feature = "redis")]
#[cfg_attr(docsrs, doc(cfg(all(feature = "rmcp_3", feature = "redis"))))]
impl crate::agent::RelayKey {
    /// The relay key of a deployment whose instances share `round_key` for MCP's
    /// `requestState` (feature `rmcp_3`): derived from it with the label
    /// `elicit.relay.v1`, as [`derived_from_secret`](crate::agent::RelayKey::derived_from_secret) does.
    pub fn derived_from(round_key: &RoundKey) -> Self {
        let mut secret = round_key.to_bytes();
        let key = crate::agent::RelayKey::derived_from_secret(&secret);
        secret.fill(0);
        key.expect("invariant: a 32-byte secret is a valid BLAKE2b key")
    }
}

impl RoundKey {
    /// The key made of these 32 bytes (read them from the deployment's secret store;
    /// every instance uses the same).
    pub fn from_bytes(bytes: [u8; 32]) -> Self {
        let digest = Sha256::new()
            .chain_update(b"elicit/rmcp/round-key-id")
            .chain_update(bytes)
            .finalize();
        let mut id = [0; KEY_ID_LEN];
        id.copy_from_slice(&digest[..KEY_ID_LEN]);
        RoundKey { bytes, id }
    }

    /// A fresh key from the operating system's CSPRNG: for a single instance, or to
    /// print once and store.
    pub fn generate() -> Result<Self, RoundError> {
        let mut bytes = [0; 32];
        getrandom::fill(&mut bytes).map_err(RoundError::Random)?;
        Ok(RoundKey::from_bytes(bytes))
    }

    /// The key's public identifier (hex): a digest, not the key.
    pub fn id(&self) -> String {
        hex(&self.id)
    }

    /// The key's 32 bytes, to store it.
    pub fn to_bytes(&self) -> [u8; 32] {
        self.bytes
    }

    fn cipher(&self) -> XChaCha20Poly1305 {
        XChaCha20Poly1305::new(&self.bytes.into())
    }
}

impl fmt::Debug for RoundKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RoundKey")
            .field("id", &self.id())
            .field("key", &"<redacted>")
            .finish()
    }
}

/// The originating request a round belongs to: its method, what names it (the tool,
/// the prompt, the resource), its arguments and, when the server knows one, the
/// authenticated user. A state is only opened for the same request: it cannot be
/// replayed against another tool, other arguments, or by another user.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RoundRequest {
    digest: [u8; 32],
    /// The digest of the authenticated user, when the server knows one.
    user: Option<[u8; 32]>,
}

impl RoundRequest {
    /// Any request: the method, its name (tool, prompt or resource URI) and its
    /// arguments. Arguments are compared by value (member order does not matter).
    pub fn new(method: &str, name: &str, arguments: Option<&Map<String, Value>>) -> Self {
        let arguments = arguments.map(|a| canonical(&Value::Object(a.clone())));
        let digest = Sha256::new()
            .chain_update(b"elicit/rmcp/round-request")
            .chain_update(json!([method, name, arguments]).to_string())
            .finalize();
        RoundRequest {
            digest: digest.into(),
            user: None,
        }
    }

    /// A `tools/call`.
    pub fn tool_call(request: &CallToolRequestParams) -> Self {
        RoundRequest::new("tools/call", &request.name, request.arguments.as_ref())
    }

    /// A `prompts/get`.
    pub fn prompt(request: &GetPromptRequestParams) -> Self {
        RoundRequest::new("prompts/get", &request.name, request.arguments.as_ref())
    }

    /// A `resources/read`.
    pub fn resource(request: &ReadResourceRequestParams) -> Self {
        RoundRequest::new("resources/read", &request.uri, None)
    }

    /// Binds the round to the authenticated user too: another user's retry is refused
    /// with [`RoundError::Unbound`] ([S6](crate::rules#s6)). The state holds a digest of
    /// the user, not the id.
    #[must_use]
    pub fn for_user(mut self, user: &UserId) -> Self {
        let digest = Sha256::new()
            .chain_update(b"elicit/rmcp/round-user")
            .chain_update(user.as_str())
            .finalize();
        self.user = Some(digest.into());
        self
    }

    /// Whether a user is bound ([`for_user`](Self::for_user)).
    pub fn has_user(&self) -> bool {
        self.user.is_some()
    }
}

/// The record [`Rounds::at_most_once`] keeps of an opened round, under its round id:
/// when the round expires (after which its state no longer opens anyway, so the record
/// can go). Serializable so that a shared store (`RedisStore`) can hold it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct UsedRound {
    /// Unix milliseconds.
    expires: u64,
}

impl UsedRound {
    /// When the round it records expires.
    pub fn expires_at(&self) -> SystemTime {
        UNIX_EPOCH + Duration::from_millis(self.expires)
    }
}

/// The used round ids of [`Rounds::at_most_once`]: a [`Store`] the instances share, and
/// the ids this instance recorded, to remove them from the store once expired.
///
/// A [`MemoryStore`](crate::agent::MemoryStore) never expires anything, so each record
/// is removed by the instance that wrote it on a later call, once the round has
/// expired: the store holds at most the rounds opened within one TTL. `RedisStore`
/// expires keys itself: [`Rounds::at_most_once_in_redis`] (feature `redis`) gives its
/// records the rounds' lifetime and a margin, and keeps no list. A `RedisStore` passed to
/// [`Rounds::at_most_once`] needs a TTL (`RedisConfig::ttl`) at least as long as the
/// rounds' ([`Rounds::with_ttl`]), else a record could vanish while its state still
/// opens.
#[cfg(feature = "url")]
pub struct UsedRounds {
    store: Box<dyn Store<UsedRound>>,
    /// What this instance recorded, oldest first: (expiry, round id). Empty for a
    /// store that expires its records itself.
    recorded: std::sync::Mutex<std::collections::VecDeque<(u64, String)>>,
    /// The store removes each record itself once its round has expired (Redis, with
    /// the rounds' TTL): nothing to sweep.
    expires_itself: bool,
}

#[cfg(feature = "url")]
impl UsedRounds {
    /// The used rounds kept in `store` (under the round ids, 32 hex digits: give a
    /// shared store a prefix of its own).
    pub fn new(store: impl Store<UsedRound> + 'static) -> Self {
        UsedRounds {
            store: Box::new(store),
            recorded: std::sync::Mutex::new(std::collections::VecDeque::new()),
            expires_itself: false,
        }
    }

    /// The used rounds kept in `store`, which removes each record itself once its round
    /// has expired (a `RedisStore` whose TTL covers a round's lifetime): this instance
    /// keeps no list of what to remove.
    #[cfg(feature = "redis")]
    fn expiring(store: impl Store<UsedRound> + 'static) -> Self {
        UsedRounds {
            expires_itself: true,
            ..UsedRounds::new(store)
        }
    }

    /// Records the round `id`, open until `expires` (Unix ms): `Ok(false)` when it was
    /// recorded already (a replay).
    fn record(&self, id: &str, expires: u64, now: u64) -> Result<bool, StoreError> {
        self.sweep(now);
        let fresh = self.store.insert_new(id, UsedRound { expires })?;
        if fresh && !self.expires_itself {
            self.recorded().push_back((expires, id.to_owned()));
        }
        Ok(fresh)
    }

    /// Removes the records of this instance whose rounds have expired. A store that
    /// fails keeps them (the next call tries again); a record already gone (a store
    /// with its own expiry) is simply forgotten.
    fn sweep(&self, now: u64) {
        loop {
            let mut recorded = self.recorded();
            let Some((expires, _)) = recorded.front() else {
                return;
            };
            if *expires > now {
                return;
            }
            let Some((expires, id)) = recorded.pop_front() else {
                return;
            };
            drop(recorded);
            let removed = self
                .store
                .compare_and_swap(&id, &UsedRound { expires }, None);
            if removed.is_err() {
                self.recorded().push_front((expires, id));
                return;
            }
        }
    }

    fn recorded(&self) -> std::sync::MutexGuard<'_, std::collections::VecDeque<(u64, String)>> {
        self.recorded
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

#[cfg(feature = "url")]
impl fmt::Debug for UsedRounds {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("UsedRounds")
            .field("store", &self.store)
            .field("recorded", &self.recorded().len())
            .field("expires_itself", &self.expires_itself)
            .finish()
    }
}

/// Whether rounds must name a user: see [`Rounds::anonymous`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Binding {
    User,
    Anonymous,
}

/// The rounds of one deployment: the key that seals, older keys that still open
/// (rotation), how long a round stays open, whether a round must name a user, and
/// (optionally) where used rounds are recorded.
#[derive(Debug, Clone)]
pub struct Rounds {
    key: RoundKey,
    older: Vec<RoundKey>,
    ttl: Duration,
    binding: Binding,
    #[cfg(feature = "url")]
    used: Option<std::sync::Arc<UsedRounds>>,
}

impl Rounds {
    /// Rounds sealed under `key`, open for [`DEFAULT_TTL`], bound to the request's
    /// user: a request that names none ([`RoundRequest::for_user`]) is refused with
    /// [`RoundError::Unbound`] until the rounds are made [`anonymous`](Self::anonymous).
    pub fn new(key: RoundKey) -> Self {
        Rounds {
            key,
            older: Vec::new(),
            ttl: DEFAULT_TTL,
            binding: Binding::User,
            #[cfg(feature = "url")]
            used: None,
        }
    }

    /// Lets rounds go without a user, for a server that authenticates nobody (a local
    /// single-user tool, a test suite): anyone holding a state can answer it within its
    /// lifetime. A request that names a user is still bound to them.
    #[must_use]
    pub fn anonymous(mut self) -> Self {
        self.binding = Binding::Anonymous;
        self
    }

    /// Each round opens at most once: its random id is recorded in `store` when a retry
    /// opens it, until it expires, and a second opening, on this instance or any other
    /// sharing the store, is [`RoundError::Used`]. The store failing is
    /// [`RoundError::Store`]: the round is refused, never let through.
    ///
    /// A retry whose response was lost cannot be sent again with the same state: the
    /// client starts the request over. See [`UsedRounds`] for the store's TTL.
    #[cfg(feature = "url")]
    #[must_use]
    pub fn at_most_once(mut self, store: impl Store<UsedRound> + 'static) -> Self {
        self.used = Some(std::sync::Arc::new(UsedRounds::new(store)));
        self
    }

    /// [`at_most_once`](Self::at_most_once) with the used rounds in Redis, shared by
    /// every instance on it (features `rmcp_3` and `redis`): on `store`'s connection,
    /// under `prefix` (a prefix of their own, such as `myagent:round:`), each record
    /// living as long as a round ([`with_ttl`](Self::with_ttl): set it before this
    /// call) plus [`USED_ROUND_MARGIN`] for clocks that differ between instances, and
    /// then removed by Redis itself.
    ///
    /// A record's key is the round's random id (128 bits, in hex), which travels only
    /// inside the sealed state: never the state, nor anything the client sends in
    /// clear. Whoever reads Redis learns that some round was answered and when, nothing
    /// that opens or answers one. A replayed `requestState` is [`RoundError::Used`] on
    /// every instance; Redis failing is [`RoundError::Store`] (refused, never let
    /// through).
    #[cfg(feature = "redis")]
    #[cfg_attr(docsrs, doc(cfg(all(feature = "rmcp_3", feature = "redis"))))]
    #[must_use]
    pub fn at_most_once_in_redis<V>(
        mut self,
        store: &crate::agent::RedisStore<V>,
        prefix: impl Into<String>,
    ) -> Self {
        let store = store
            .with_prefix::<UsedRound>(prefix)
            .with_ttl(self.ttl.saturating_add(USED_ROUND_MARGIN));
        self.used = Some(std::sync::Arc::new(UsedRounds::expiring(store)));
        self
    }

    /// How long a sealed round can be answered (a short expiry bounds replays). Set it
    /// before [`at_most_once_in_redis`](Self::at_most_once_in_redis), which sizes the
    /// lifetime of its records from it.
    #[must_use]
    pub fn with_ttl(mut self, ttl: Duration) -> Self {
        self.ttl = ttl;
        self
    }

    /// Also opens rounds sealed under `key` (not used to seal): during a key
    /// rotation, until every state it sealed has expired.
    #[must_use]
    pub fn also_opening(mut self, key: RoundKey) -> Self {
        self.older.push(key);
        self
    }

    /// A new round of input requests for `request`.
    pub fn begin(&self, request: RoundRequest) -> Round<'_> {
        Round {
            rounds: self,
            request,
            requests: InputRequests::new(),
            asked: Vec::new(),
            data: Value::Null,
        }
    }

    /// Opens the round a retry continues: `None` when the request carries no
    /// `requestState` (a first call), else the verified round with the retry's
    /// answers.
    ///
    /// Refused with a [`RoundError`]: a state that is malformed, sealed under a key
    /// these rounds do not hold, changed in any byte, expired, or sealed for another
    /// request; sealed for another user, or a request without user on rounds that are
    /// not [`anonymous`](Self::anonymous) (even without state: a first call is refused
    /// before it asks anything); with [`at_most_once`](Self::at_most_once), a round
    /// opened before. A round is recorded as used only once every other check passed,
    /// so another user's retry cannot use up someone's round.
    pub fn open<'r>(
        &self,
        request: &RoundRequest,
        state: Option<&str>,
        responses: Option<&'r InputResponses>,
    ) -> Result<Option<Answers<'r>>, RoundError> {
        self.check_user(request)?;
        let Some(state) = state else {
            return Ok(None);
        };
        let now = SystemTime::now();
        let answers = self.open_at(request, state, responses, now)?;
        self.record(&answers, now)?;
        Ok(Some(answers))
    }

    /// Refuses a request without user on rounds bound to the user.
    fn check_user(&self, request: &RoundRequest) -> Result<(), RoundError> {
        if self.binding == Binding::User && request.user.is_none() {
            return Err(RoundError::Unbound(Unbound::NoUser));
        }
        Ok(())
    }

    #[cfg(feature = "url")]
    fn record(&self, answers: &Answers<'_>, now: SystemTime) -> Result<(), RoundError> {
        let Some(used) = &self.used else {
            return Ok(());
        };
        let fresh = used
            .record(&answers.sealed.id, answers.sealed.expires, unix_ms(now))
            .map_err(RoundError::Store)?;
        if fresh {
            Ok(())
        } else {
            Err(RoundError::Used)
        }
    }

    #[cfg(not(feature = "url"))]
    #[allow(clippy::unused_self, clippy::unnecessary_wraps)]
    fn record(&self, _: &Answers<'_>, _: SystemTime) -> Result<(), RoundError> {
        Ok(())
    }

    fn open_at<'r>(
        &self,
        request: &RoundRequest,
        state: &str,
        responses: Option<&'r InputResponses>,
        now: SystemTime,
    ) -> Result<Answers<'r>, RoundError> {
        if state.len() > MAX_REQUEST_STATE_LEN {
            return Err(RoundError::Malformed("longer than the limit"));
        }
        let encoded = state
            .strip_prefix(PREFIX)
            .ok_or(RoundError::Malformed("not a state elicit sealed"))?;
        let bytes = URL_SAFE_NO_PAD
            .decode(encoded)
            .map_err(|_| RoundError::Malformed("not base64url"))?;
        if bytes.len() < KEY_ID_LEN + NONCE_LEN + TAG_LEN {
            return Err(RoundError::Malformed("too short"));
        }
        let (key_id, rest) = bytes.split_at(KEY_ID_LEN);
        let (nonce, sealed) = rest.split_at(NONCE_LEN);
        let key = std::iter::once(&self.key)
            .chain(&self.older)
            .find(|key| key.id[..] == *key_id)
            .ok_or_else(|| RoundError::UnknownKey { id: hex(key_id) })?;
        let nonce = XNonce::try_from(nonce).map_err(|_| RoundError::Malformed("too short"))?;
        let aad = [DOMAIN, key_id].concat();
        let plain = key
            .cipher()
            .decrypt(
                &nonce,
                Payload {
                    msg: sealed,
                    aad: &aad,
                },
            )
            .map_err(|_| RoundError::Tampered)?;
        // Authentic from here on: only a holder of the key sealed these bytes.
        let sealed: Sealed =
            serde_json::from_slice(&plain).map_err(|_| RoundError::Malformed("unreadable"))?;
        if unix_ms(now) >= sealed.expires {
            return Err(RoundError::Expired {
                at: UNIX_EPOCH + Duration::from_millis(sealed.expires),
            });
        }
        if sealed.request != hex(&request.digest) {
            return Err(RoundError::OtherRequest);
        }
        if sealed.user != request.user.as_ref().map(|user| hex(user)) {
            return Err(RoundError::Unbound(match sealed.user {
                Some(_) => Unbound::OtherUser,
                None => Unbound::SealedWithoutUser,
            }));
        }
        Ok(Answers { sealed, responses })
    }

    fn seal_at(&self, sealed: &Sealed) -> Result<String, RoundError> {
        let plain = serde_json::to_vec(sealed).map_err(|_| RoundError::Malformed("unsealable"))?;
        let mut nonce = [0; NONCE_LEN];
        getrandom::fill(&mut nonce).map_err(RoundError::Random)?;
        let aad = [DOMAIN, &self.key.id[..]].concat();
        let ciphertext = self
            .key
            .cipher()
            .encrypt(
                &XNonce::from(nonce),
                Payload {
                    msg: &plain,
                    aad: &aad,
                },
            )
            .map_err(|_| RoundError::Malformed("unsealable"))?;
        let bytes = [&self.key.id[..], &nonce[..], &ciphertext].concat();
        Ok(format!("{PREFIX}{}", URL_SAFE_NO_PAD.encode(bytes)))
    }
}

/// One round being built: the input requests to send and what the state records of
/// them. [`seal`](Self::seal) makes the `InputRequiredResult`.
#[derive(Debug)]
pub struct Round<'k> {
    rounds: &'k Rounds,
    request: RoundRequest,
    requests: InputRequests,
    asked: Vec<Asked>,
    data: Value,
}

impl Round<'_> {
    /// Asks for the form `T` under `key`, as [`input::form`](super::input::form) does
    /// (the capability the request declares, [C7](crate::rules#c7); no link,
    /// [F7](crate::rules#f7)); the state records the key and a digest of `T`'s full
    /// schema, `pattern` included ([M7](crate::rules#m7)).
    pub fn form<T: Elicit>(
        &mut self,
        context: &RequestContext<RoleServer>,
        key: impl Into<String>,
        message: impl Into<String>,
    ) -> Result<&mut Self, AskError> {
        let request = super::input::form::<T>(context, message)?;
        Ok(self.push(
            key.into(),
            request,
            Some(schema_digest(T::requested_schema())),
        ))
    }

    /// Asks for anything else a client can be asked in a round (`sampling/createMessage`,
    /// `roots/list`, or an elicitation built by hand) under `key`: the state records the
    /// key and the method. Ask only what the client declared: the server's duty here.
    pub fn request(&mut self, key: impl Into<String>, request: InputRequest) -> &mut Self {
        self.push(key.into(), request, None)
    }

    /// Data of the server's own, carried to the next round sealed (the client can
    /// neither read nor change it): earlier answers, a step number.
    pub fn carry(&mut self, data: Value) -> &mut Self {
        self.data = data;
        self
    }

    /// The `InputRequiredResult` with the input requests and the sealed state.
    ///
    /// Refused with [`RoundError::Unbound`] when the rounds are bound to the user and
    /// the request names none.
    pub fn seal(&mut self) -> Result<InputRequiredResult, RoundError> {
        self.rounds.check_user(&self.request)?;
        let mut id = [0; 16];
        getrandom::fill(&mut id).map_err(RoundError::Random)?;
        let expires = unix_ms(SystemTime::now())
            .saturating_add(u64::try_from(self.rounds.ttl.as_millis()).unwrap_or(u64::MAX));
        let sealed = Sealed {
            id: hex(&id),
            expires,
            request: hex(&self.request.digest),
            user: self.request.user.as_ref().map(|user| hex(user)),
            asked: self.asked.clone(),
            data: self.data.clone(),
        };
        let state = self.rounds.seal_at(&sealed)?;
        let requests = (!self.requests.is_empty()).then(|| self.requests.clone());
        Ok(InputRequiredResult::new(requests, Some(state)))
    }

    fn push(&mut self, key: String, request: InputRequest, schema: Option<String>) -> &mut Self {
        let method = match &request {
            InputRequest::Elicitation(_) => "elicitation/create",
            InputRequest::CreateMessage(_) => "sampling/createMessage",
            InputRequest::ListRoots(_) => "roots/list",
            _ => "unknown",
        };
        self.asked.retain(|asked| asked.key != key);
        self.asked.push(Asked {
            key: key.clone(),
            method: method.to_owned(),
            schema,
        });
        self.requests.insert(key, request);
        self
    }
}

/// A verified round and the retry's answers to it.
///
/// What was asked comes from the sealed state, what was answered from the retry's
/// `inputResponses`: an answer to a key that was not asked is ignored (the spec's
/// SHOULD; [`unrequested`](Self::unrequested) names them), an asked key left without
/// answer reads as `None` (ask again, as the spec recommends over an error).
#[derive(Debug)]
pub struct Answers<'r> {
    sealed: Sealed,
    responses: Option<&'r InputResponses>,
}

impl Answers<'_> {
    /// The answer to the form `T` asked under `key`: `None` when the retry has none,
    /// else the validated answer or the user's decline or cancel ([F3](crate::rules#f3),
    /// [R5](crate::rules#r5)).
    ///
    /// Refused: `key` was not asked as a form in this round ([`RoundError::NotAsked`]),
    /// or with another schema than `T`'s ([`RoundError::OtherSchema`]); the answer is no
    /// elicitation result, or breaks the schema ([`RoundError::Answer`]).
    pub fn form<T: Elicit>(&self, key: &str) -> Result<Option<Elicited<T>>, RoundError> {
        let Some(json) = self.form_response(key, T::requested_schema())? else {
            return Ok(None);
        };
        let response =
            ElicitationResponse::from_json(json).map_err(|error| RoundError::Answer {
                key: key.to_owned(),
                error: Box::new(AskError::MalformedResponse(error)),
            })?;
        T::from_response(&response)
            .map(Some)
            .map_err(|errors| RoundError::Answer {
                key: key.to_owned(),
                error: Box::new(AskError::Invalid(errors)),
            })
    }

    /// The raw response to any input asked under `key` (`None` when the retry has
    /// none); refused when `key` was not asked in this round.
    pub fn response(&self, key: &str) -> Result<Option<&Value>, RoundError> {
        self.asked(key)?;
        Ok(self.responses.and_then(|responses| responses.get(key)))
    }

    /// The asked keys the retry did not answer, in the order they were asked.
    pub fn missing(&self) -> Vec<&str> {
        self.sealed
            .asked
            .iter()
            .map(|asked| asked.key.as_str())
            .filter(|key| !self.responses.is_some_and(|r| r.contains_key(*key)))
            .collect()
    }

    /// The keys the retry answered that this round never asked (ignored).
    pub fn unrequested(&self) -> Vec<&str> {
        self.responses
            .into_iter()
            .flat_map(|responses| responses.keys())
            .map(String::as_str)
            .filter(|key| !self.sealed.asked.iter().any(|asked| asked.key == *key))
            .collect()
    }

    /// The data the round [carried](Round::carry) (`null` when none).
    pub fn data(&self) -> &Value {
        &self.sealed.data
    }

    /// The round's random id (hex, 128 bits). [`Rounds::at_most_once`] records it;
    /// without that, record it where a round must be answered at most once (the state
    /// alone cannot say it was already used).
    pub fn round_id(&self) -> &str {
        &self.sealed.id
    }

    /// When the round stops opening.
    pub fn expires_at(&self) -> SystemTime {
        UNIX_EPOCH + Duration::from_millis(self.sealed.expires)
    }

    fn asked(&self, key: &str) -> Result<&Asked, RoundError> {
        self.sealed
            .asked
            .iter()
            .find(|asked| asked.key == key)
            .ok_or_else(|| RoundError::NotAsked {
                key: key.to_owned(),
            })
    }

    fn form_response(
        &self,
        key: &str,
        schema: &RequestedSchema,
    ) -> Result<Option<&Value>, RoundError> {
        let asked = self.asked(key)?;
        match &asked.schema {
            Some(digest) if *digest == schema_digest(schema) => {}
            Some(_) => {
                return Err(RoundError::OtherSchema {
                    key: key.to_owned(),
                })
            }
            None => {
                return Err(RoundError::NotAsked {
                    key: key.to_owned(),
                })
            }
        }
        Ok(self.responses.and_then(|responses| responses.get(key)))
    }
}

/// What went wrong with a round: its state, or an answer in it. Every one but
/// [`Random`](Self::Random) is the client's doing and becomes a JSON-RPC `-32602`
/// (invalid params) through `ErrorData::from`.
#[derive(Debug)]
#[non_exhaustive]
pub enum RoundError {
    /// The `requestState` is not one elicit sealed: what is wrong with it.
    Malformed(&'static str),
    /// Sealed under a key these rounds do not hold (another deployment, or a key
    /// retired too early); the id is the key's public id.
    UnknownKey {
        /// The key id the state names.
        id: String,
    },
    /// Changed: it fails authentication under the key it names.
    Tampered,
    /// Authentic, but past its expiry: start the request again.
    Expired {
        /// When it expired.
        at: SystemTime,
    },
    /// Authentic, but sealed for another request (method, name, arguments).
    OtherRequest,
    /// The user does not match: the state was sealed for another user (or for none),
    /// or the rounds are bound to the user and the request names none.
    Unbound(Unbound),
    /// Authentic, but already opened once ([`Rounds::at_most_once`]): a replay.
    Used,
    /// The store of used rounds could not answer ([`Rounds::at_most_once`]): the round
    /// is refused, not let through.
    #[cfg(feature = "url")]
    Store(StoreError),
    /// The server reads a key this round did not ask (or not as a form).
    NotAsked {
        /// The key.
        key: String,
    },
    /// The round asked `key` with another schema than the one the server reads it with
    /// (the form changed between the rounds, say by a new release).
    OtherSchema {
        /// The key.
        key: String,
    },
    /// The answer under `key` is no elicitation result, or breaks the schema.
    Answer {
        /// The key.
        key: String,
        /// [`AskError::MalformedResponse`] or [`AskError::Invalid`].
        error: Box<AskError>,
    },
    /// The operating system's random source failed (sealing needs a fresh nonce).
    Random(getrandom::Error),
}

impl fmt::Display for RoundError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RoundError::Malformed(what) => write!(f, "requestState is malformed: {what}"),
            RoundError::UnknownKey { id } => write!(
                f,
                "requestState was sealed under a key this server does not hold (key id {id})"
            ),
            RoundError::Tampered => f.write_str("requestState failed integrity verification"),
            RoundError::Expired { at } => {
                let ms = at.duration_since(UNIX_EPOCH).unwrap_or_default().as_millis();
                write!(
                    f,
                    "requestState expired (at {ms} ms since the Unix epoch); send the request again without it"
                )
            }
            RoundError::OtherRequest => f.write_str(
                "requestState belongs to another request (tool, prompt or resource, or other arguments); send this request again without it",
            ),
            RoundError::Unbound(Unbound::OtherUser) => f.write_str(
                "requestState was sealed for another user; only the user who started this request can answer it (send the request again without requestState to start your own)",
            ),
            RoundError::Unbound(Unbound::SealedWithoutUser) => f.write_str(
                "requestState was sealed for no user and this request names one; send the request again without requestState",
            ),
            RoundError::Unbound(Unbound::NoUser) => f.write_str(
                "this server binds rounds to the authenticated user and the request names none: authenticate the request (the server puts a UserId in the request's extensions, or gives one to the Dialog), or make the rounds Rounds::anonymous() if the server authenticates nobody",
            ),
            RoundError::Used => f.write_str(
                "requestState was already answered once and cannot be used again; send the request again without requestState to start over",
            ),
            #[cfg(feature = "url")]
            RoundError::Store(error) => write!(
                f,
                "the store of used rounds failed, so the round was refused; try again later: {error}"
            ),
            RoundError::NotAsked { key } => {
                write!(f, "input {key:?} was not asked in this round")
            }
            RoundError::OtherSchema { key } => write!(
                f,
                "input {key:?} was asked with another schema; send the request again without requestState"
            ),
            RoundError::Answer { key, error } => write!(f, "inputResponses[{key:?}]: {error}"),
            RoundError::Random(error) => write!(f, "the random source failed: {error}"),
        }
    }
}

impl std::error::Error for RoundError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            RoundError::Answer { error, .. } => Some(error.as_ref()),
            #[cfg(feature = "url")]
            RoundError::Store(error) => Some(error),
            _ => None,
        }
    }
}

impl From<RoundError> for ErrorData {
    /// `-32602` (invalid params) for what the client sent, with the input's key in
    /// `data` when there is one; `-32603` (internal) for a failed random source or
    /// store of used rounds.
    fn from(error: RoundError) -> Self {
        let data = match &error {
            RoundError::NotAsked { key }
            | RoundError::OtherSchema { key }
            | RoundError::Answer { key, .. } => Some(json!({ "inputResponse": key })),
            _ => Some(json!({ "requestState": "rejected" })),
        };
        let code = match error {
            RoundError::Random(_) => ErrorCode::INTERNAL_ERROR,
            #[cfg(feature = "url")]
            RoundError::Store(_) => ErrorCode::INTERNAL_ERROR,
            _ => ErrorCode::INVALID_PARAMS,
        };
        ErrorData::new(code, error.to_string(), data)
    }
}

/// How a round's user did not match: see [`RoundError::Unbound`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Unbound {
    /// The state was sealed for another user.
    OtherUser,
    /// The state was sealed for no user, and the request names one.
    SealedWithoutUser,
    /// The rounds are bound to the user ([`Rounds::new`]) and the request names none.
    NoUser,
}

/// What the sealed bytes hold.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Sealed {
    /// 128 random bits: the round's identity.
    id: String,
    /// Unix milliseconds.
    expires: u64,
    /// The originating request's digest (hex).
    request: String,
    /// The user's digest (hex), when the round is bound to one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    user: Option<String>,
    asked: Vec<Asked>,
    #[serde(default)]
    data: Value,
}

/// One asked input: its key, its method and, for a form, the digest of its schema.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Asked {
    key: String,
    method: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    schema: Option<String>,
}

/// The digest of a form's full schema (as elicit emits it, `pattern` included).
fn schema_digest(schema: &RequestedSchema) -> String {
    let digest = Sha256::new()
        .chain_update(b"elicit/rmcp/schema")
        .chain_update(schema.to_json().to_string())
        .finalize();
    hex(&digest)
}

/// The JSON with every object's members sorted, so that equal values digest equally.
fn canonical(value: &Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            Value::Object(
                keys.into_iter()
                    .map(|key| (key.clone(), canonical(&map[key])))
                    .collect(),
            )
        }
        Value::Array(items) => Value::Array(items.iter().map(canonical).collect()),
        other => other.clone(),
    }
}

fn unix_ms(time: SystemTime) -> u64 {
    let ms = time
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default()
        .as_millis();
    u64::try_from(ms).unwrap_or(u64::MAX)
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rounds() -> Rounds {
        Rounds::new(RoundKey::from_bytes([7; 32]))
    }

    fn sealed(asked: &[&str]) -> Sealed {
        Sealed {
            id: "00".into(),
            expires: unix_ms(SystemTime::now()) + 60_000,
            request: hex(&RoundRequest::new("tools/call", "t", None).digest),
            user: None,
            asked: asked
                .iter()
                .map(|key| Asked {
                    key: (*key).to_owned(),
                    method: "roots/list".into(),
                    schema: None,
                })
                .collect(),
            data: json!({ "step": 2 }),
        }
    }

    // covers: M6
    #[test]
    fn a_sealed_state_opens_on_another_instance_with_the_same_key_only() {
        let request = RoundRequest::new("tools/call", "t", None);
        let state = rounds().seal_at(&sealed(&["a"])).unwrap();
        let other_instance = rounds();
        let answers = other_instance
            .open_at(&request, &state, None, SystemTime::now())
            .unwrap();
        assert_eq!(answers.data(), &json!({ "step": 2 }));
        assert_eq!(answers.missing(), vec!["a"]);

        let stranger = Rounds::new(RoundKey::from_bytes([8; 32]));
        let refused = stranger.open_at(&request, &state, None, SystemTime::now());
        assert!(
            matches!(refused, Err(RoundError::UnknownKey { .. })),
            "{refused:?}"
        );
        // Rotation: the new key seals, the old one still opens.
        let rotated =
            Rounds::new(RoundKey::from_bytes([8; 32])).also_opening(RoundKey::from_bytes([7; 32]));
        assert!(rotated
            .open_at(&request, &state, None, SystemTime::now())
            .is_ok());
    }

    #[test]
    fn every_changed_byte_is_refused_and_nothing_panics() {
        let request = RoundRequest::new("tools/call", "t", None);
        let rounds = rounds();
        let state = rounds.seal_at(&sealed(&["a"])).unwrap();
        let bytes = URL_SAFE_NO_PAD.decode(&state[PREFIX.len()..]).unwrap();
        for index in 0..bytes.len() {
            let mut changed = bytes.clone();
            changed[index] ^= 0x01;
            let changed = format!("{PREFIX}{}", URL_SAFE_NO_PAD.encode(changed));
            let refused = rounds.open_at(&request, &changed, None, SystemTime::now());
            match (index < KEY_ID_LEN, refused) {
                (true, Err(RoundError::UnknownKey { .. })) => {}
                (false, Err(RoundError::Tampered)) => {}
                (_, other) => panic!("byte {index}: {other:?}"),
            }
        }
        for end in 0..state.len() {
            assert!(rounds
                .open_at(&request, &state[..end], None, SystemTime::now())
                .is_err());
        }
        let long = format!("{PREFIX}{}", "A".repeat(MAX_REQUEST_STATE_LEN));
        assert!(matches!(
            rounds.open_at(&request, &long, None, SystemTime::now()),
            Err(RoundError::Malformed(_))
        ));
    }

    #[test]
    fn expiry_and_the_originating_request_are_checked_after_authentication() {
        let rounds = rounds();
        let request = RoundRequest::new("tools/call", "t", None);
        let state = rounds.seal_at(&sealed(&[])).unwrap();
        let later = SystemTime::now() + Duration::from_secs(61);
        assert!(matches!(
            rounds.open_at(&request, &state, None, later),
            Err(RoundError::Expired { .. })
        ));
        let other = RoundRequest::new("tools/call", "t", Some(&Map::new()));
        assert!(matches!(
            rounds.open_at(&other, &state, None, SystemTime::now()),
            Err(RoundError::OtherRequest)
        ));
        let user = RoundRequest::new("tools/call", "t", None).for_user(&UserId::new("bob"));
        assert!(matches!(
            rounds.open_at(&user, &state, None, SystemTime::now()),
            Err(RoundError::Unbound(Unbound::SealedWithoutUser))
        ));
    }

    fn call(user: Option<&str>) -> RoundRequest {
        let request = RoundRequest::new("tools/call", "pay", json!({ "amount": 5 }).as_object());
        match user {
            Some(user) => request.for_user(&UserId::new(user)),
            None => request,
        }
    }

    fn state_for(rounds: &Rounds, request: &RoundRequest) -> String {
        let mut round = rounds.begin(request.clone());
        round.carry(json!({ "step": 1 }));
        round.seal().unwrap().request_state.unwrap()
    }

    // covers: S6
    #[test]
    fn a_round_opens_only_for_the_user_it_was_sealed_for() {
        let rounds = rounds();
        let alice = call(Some("alice"));
        let state = state_for(&rounds, &alice);
        let answers = rounds.open(&alice, Some(&state), None).unwrap().unwrap();
        assert_eq!(answers.data(), &json!({ "step": 1 }));

        let refused = rounds.open(&call(Some("bob")), Some(&state), None);
        assert!(
            matches!(refused, Err(RoundError::Unbound(Unbound::OtherUser))),
            "{refused:?}"
        );
        let message = refused.unwrap_err().to_string();
        assert!(message.contains("another user"), "{message}");
        // The user is sealed as a digest: the id is not in the state's plain text.
        let bytes = URL_SAFE_NO_PAD.decode(&state[PREFIX.len()..]).unwrap();
        let (_, rest) = bytes.split_at(KEY_ID_LEN);
        let (nonce, sealed) = rest.split_at(NONCE_LEN);
        let plain = rounds
            .key
            .cipher()
            .decrypt(
                &XNonce::try_from(nonce).unwrap(),
                Payload {
                    msg: sealed,
                    aad: &[DOMAIN, &rounds.key.id[..]].concat(),
                },
            )
            .unwrap();
        let plain = String::from_utf8(plain).unwrap();
        assert!(
            !plain.contains("alice") && plain.contains("\"user\""),
            "{plain}"
        );
    }

    // covers: S6
    #[test]
    fn rounds_bound_to_the_user_refuse_a_request_without_one_unless_anonymous() {
        let bound = rounds();
        let nobody = call(None);
        let refused = bound.open(&nobody, None, None);
        assert!(
            matches!(refused, Err(RoundError::Unbound(Unbound::NoUser))),
            "{refused:?}"
        );
        assert!(refused
            .unwrap_err()
            .to_string()
            .contains("Rounds::anonymous()"));
        let mut round = bound.begin(nobody.clone());
        assert!(matches!(
            round.seal(),
            Err(RoundError::Unbound(Unbound::NoUser))
        ));

        let anonymous = rounds().anonymous();
        assert!(anonymous.open(&nobody, None, None).unwrap().is_none());
        let state = state_for(&anonymous, &nobody);
        // Without at_most_once, anonymous rounds open as often as they are sent.
        for _ in 0..2 {
            let answers = anonymous
                .open(&nobody, Some(&state), None)
                .unwrap()
                .unwrap();
            assert_eq!(answers.data(), &json!({ "step": 1 }));
        }
        // Anonymous rounds still bind a user the request names.
        let alice = call(Some("alice"));
        let state = state_for(&anonymous, &alice);
        assert!(anonymous.open(&alice, Some(&state), None).is_ok());
        assert!(matches!(
            anonymous.open(&nobody, Some(&state), None),
            Err(RoundError::Unbound(Unbound::OtherUser))
        ));
    }

    #[cfg(feature = "url")]
    mod at_most_once {
        use super::*;
        use crate::agent::MemoryStore;

        // covers: M6
        #[test]
        fn a_replayed_state_is_refused_on_every_instance_sharing_the_store() {
            let store: MemoryStore<UsedRound> = MemoryStore::new();
            let first = rounds().at_most_once(store.clone());
            let second = rounds().at_most_once(store.clone());
            let alice = call(Some("alice"));
            let state = state_for(&first, &alice);

            // Another user's attempt is refused and does not use the round up.
            assert!(matches!(
                second.open(&call(Some("mallory")), Some(&state), None),
                Err(RoundError::Unbound(Unbound::OtherUser))
            ));
            assert!(store.is_empty());

            let answers = second.open(&alice, Some(&state), None).unwrap().unwrap();
            assert_eq!(
                store
                    .get(answers.round_id())
                    .unwrap()
                    .map(|u| u.expires_at()),
                Some(answers.expires_at())
            );
            for instance in [&first, &second] {
                let replay = instance.open(&alice, Some(&state), None);
                assert!(matches!(replay, Err(RoundError::Used)), "{replay:?}");
                let error = ErrorData::from(replay.unwrap_err());
                assert_eq!(error.code, ErrorCode::INVALID_PARAMS);
                assert!(
                    error.message.contains("already answered once"),
                    "{}",
                    error.message
                );
            }
            // A fresh round of the same request opens once too.
            let next = state_for(&first, &alice);
            assert!(first.open(&alice, Some(&next), None).is_ok());
            assert!(matches!(
                second.open(&alice, Some(&next), None),
                Err(RoundError::Used)
            ));
            assert_eq!(store.len(), 2);
            // Rounds without the store open the same state again: the option is what
            // refuses replays.
            assert!(rounds().open(&alice, Some(&state), None).is_ok());
        }

        #[test]
        fn records_go_once_their_rounds_expire_and_not_before() {
            let store: MemoryStore<UsedRound> = MemoryStore::new();
            let used = UsedRounds::new(store.clone());
            assert!(used.record("a", 1_000, 0).unwrap());
            assert!(!used.record("a", 1_000, 10).unwrap());
            assert!(used.record("b", 2_000, 999).unwrap());
            assert_eq!(store.len(), 2);
            // At 1 000 ms round "a" has expired (its state no longer opens): removed.
            assert!(used.record("c", 3_000, 1_000).unwrap());
            assert_eq!(store.get("a").unwrap(), None);
            assert!(store.get("b").unwrap().is_some());
            assert_eq!(store.len(), 2);
            assert!(used.record("d", 4_000, 5_000).unwrap());
            assert_eq!(store.len(), 1);
            assert!(format!("{used:?}").contains("recorded: 1"));
        }

        // covers: M6
        /// A store that expires its records itself (Redis, `at_most_once_in_redis`):
        /// the instance keeps no list and removes nothing, however late it is.
        #[cfg(feature = "redis")]
        #[test]
        fn a_store_that_expires_its_records_is_left_to_do_it() {
            let store: MemoryStore<UsedRound> = MemoryStore::new();
            let used = UsedRounds::expiring(store.clone());
            assert!(used.record("a", 1_000, 0).unwrap());
            assert!(!used.record("a", 1_000, 10).unwrap());
            assert!(used.record("b", 2_000, 999).unwrap());
            assert!(format!("{used:?}").contains("recorded: 0"), "{used:?}");
            // Long after both rounds expired: still there, for the store to remove.
            assert!(used.record("c", 3_000, 5_000).unwrap());
            assert_eq!(store.len(), 3);
            assert!(store.get("a").unwrap().is_some());
            assert!(format!("{used:?}").contains("recorded: 0"), "{used:?}");
        }

        #[derive(Debug)]
        struct Down;

        impl Store<UsedRound> for Down {
            fn insert_new(&self, _: &str, _: UsedRound) -> Result<bool, StoreError> {
                Err(StoreError::new("connection refused"))
            }
            fn get(&self, _: &str) -> Result<Option<UsedRound>, StoreError> {
                Err(StoreError::new("connection refused"))
            }
            fn compare_and_swap(
                &self,
                _: &str,
                _: &UsedRound,
                _: Option<UsedRound>,
            ) -> Result<bool, StoreError> {
                Err(StoreError::new("connection refused"))
            }
        }

        #[test]
        fn a_store_that_fails_refuses_the_round() {
            let rounds = rounds().at_most_once(Down);
            let alice = call(Some("alice"));
            let state = state_for(&rounds, &alice);
            let refused = rounds.open(&alice, Some(&state), None);
            assert!(matches!(refused, Err(RoundError::Store(_))), "{refused:?}");
            let refused = refused.unwrap_err();
            assert!(std::error::Error::source(&refused).is_some());
            let error = ErrorData::from(refused);
            assert_eq!(error.code, ErrorCode::INTERNAL_ERROR);
            assert!(error.message.contains("refused"), "{}", error.message);
        }
    }

    #[test]
    fn arguments_compare_by_value_and_the_key_never_prints() {
        let a = json!({ "x": 1, "y": { "b": 2, "a": 1 } });
        let b = json!({ "y": { "a": 1, "b": 2 }, "x": 1 });
        assert_eq!(
            RoundRequest::new("tools/call", "t", a.as_object()),
            RoundRequest::new("tools/call", "t", b.as_object())
        );
        let key = RoundKey::from_bytes([0xab; 32]);
        assert!(!format!("{key:?}").contains("ab, ab") && !format!("{key:?}").contains("171"));
        assert_eq!(RoundKey::from_bytes(key.to_bytes()).id(), key.id());
    }

    /// A form written by hand, as `#[derive(Elicit)]` would write it.
    #[derive(Debug, PartialEq)]
    struct Name {
        name: String,
    }

    impl Elicit for Name {
        fn requested_schema() -> &'static RequestedSchema {
            static SCHEMA: std::sync::OnceLock<RequestedSchema> = std::sync::OnceLock::new();
            SCHEMA.get_or_init(|| {
                RequestedSchema::from_json(&json!({
                    "type": "object",
                    "properties": { "name": { "type": "string", "minLength": 1 } },
                    "required": ["name"]
                }))
                .expect("a schema")
            })
        }

        fn from_content(content: &Value) -> Result<Self, crate::ValidationErrors> {
            Self::requested_schema().validate(content)?;
            Ok(Name {
                name: content["name"].as_str().unwrap_or_default().to_owned(),
            })
        }

        fn to_content(&self) -> Value {
            json!({ "name": self.name })
        }
    }

    /// Another form: the same key read with it is another schema.
    #[derive(Debug)]
    struct Colour;

    impl Elicit for Colour {
        fn requested_schema() -> &'static RequestedSchema {
            static SCHEMA: std::sync::OnceLock<RequestedSchema> = std::sync::OnceLock::new();
            SCHEMA.get_or_init(|| {
                RequestedSchema::from_json(&json!({
                    "type": "object",
                    "properties": { "colour": { "type": "string" } }
                }))
                .expect("a schema")
            })
        }

        fn from_content(content: &Value) -> Result<Self, crate::ValidationErrors> {
            Self::requested_schema().validate(content)?;
            Ok(Colour)
        }

        fn to_content(&self) -> Value {
            json!({})
        }
    }

    /// A round that asked the form `Name` under "name" and `roots/list` under "roots".
    fn asked_name_and_roots() -> (RoundRequest, String) {
        let request = RoundRequest::new("tools/call", "t", None);
        let mut sealed = sealed(&["roots"]);
        sealed.asked.insert(
            0,
            Asked {
                key: "name".into(),
                method: "elicitation/create".into(),
                schema: Some(schema_digest(Name::requested_schema())),
            },
        );
        (request, rounds().seal_at(&sealed).unwrap())
    }

    fn responses(pairs: &[(&str, Value)]) -> InputResponses {
        pairs
            .iter()
            .map(|(key, value)| ((*key).to_owned(), value.clone()))
            .collect()
    }

    // covers: M6, F3, R5 (what was asked comes from the sealed state, what was
    // answered from the retry; each answer is read with the form it was asked with)
    #[test]
    fn answers_are_read_only_as_they_were_asked() {
        let (request, state) = asked_name_and_roots();
        let retry = responses(&[
            (
                "name",
                json!({ "action": "accept", "content": { "name": "Ada" } }),
            ),
            ("extra", json!({ "roots": [] })),
        ]);
        let answers = rounds()
            .open_at(&request, &state, Some(&retry), SystemTime::now())
            .unwrap();
        assert!(matches!(
            answers.form::<Name>("name"),
            Ok(Some(Elicited::Accepted(Name { name }))) if name == "Ada"
        ));
        assert_eq!(answers.response("name").unwrap(), retry.get("name"));
        assert_eq!(answers.response("roots").unwrap(), None);
        assert_eq!(answers.missing(), vec!["roots"]);
        assert_eq!(answers.unrequested(), vec!["extra"]);
        // Read with another form, or a key asked as something else, or never asked.
        assert!(matches!(
            answers.form::<Colour>("name"),
            Err(RoundError::OtherSchema { key }) if key == "name"
        ));
        assert!(matches!(
            answers.form::<Name>("roots"),
            Err(RoundError::NotAsked { key }) if key == "roots"
        ));
        assert!(matches!(
            answers.form::<Name>("extra"),
            Err(RoundError::NotAsked { .. })
        ));
        assert!(matches!(
            answers.response("extra"),
            Err(RoundError::NotAsked { key }) if key == "extra"
        ));

        // A retry without answers: everything asked is missing, nothing read.
        let bare = rounds()
            .open_at(&request, &state, None, SystemTime::now())
            .unwrap();
        assert_eq!(bare.missing(), vec!["name", "roots"]);
        assert!(bare.unrequested().is_empty());
        assert!(matches!(bare.form::<Name>("name"), Ok(None)));

        // Decline and cancel are answers; a broken or invalid answer is refused.
        for (action, declined) in [("decline", true), ("cancel", false)] {
            let retry = responses(&[("name", json!({ "action": action }))]);
            let answers = rounds()
                .open_at(&request, &state, Some(&retry), SystemTime::now())
                .unwrap();
            let answer = answers.form::<Name>("name").unwrap().unwrap();
            assert_eq!(matches!(answer, Elicited::Declined), declined);
            assert_eq!(matches!(answer, Elicited::Cancelled), !declined);
        }
        for broken in [
            json!({ "action": "accept", "content": { "name": "" } }),
            json!({ "action": "maybe" }),
        ] {
            let retry = responses(&[("name", broken.clone())]);
            let answers = rounds()
                .open_at(&request, &state, Some(&retry), SystemTime::now())
                .unwrap();
            let refused = answers.form::<Name>("name").unwrap_err();
            assert!(
                matches!(&refused, RoundError::Answer { key, .. } if key == "name"),
                "{broken}: {refused:?}"
            );
            assert!(std::error::Error::source(&refused).is_some());
            assert!(refused
                .to_string()
                .starts_with("inputResponses[\"name\"]: "));
            let error = ErrorData::from(refused);
            assert_eq!(error.code, ErrorCode::INVALID_PARAMS);
            assert_eq!(error.data, Some(json!({ "inputResponse": "name" })));
        }
    }

    // covers: M6 (what the client is told: `-32602` for what it sent, naming the
    // input; `-32603` for the server's own failure)
    #[test]
    fn each_refusal_says_what_went_wrong_and_whose_doing_it_is() {
        let invalid = [
            RoundError::Malformed("too short"),
            RoundError::UnknownKey { id: "ab".into() },
            RoundError::Tampered,
            RoundError::Expired { at: UNIX_EPOCH },
            RoundError::OtherRequest,
            RoundError::Unbound(Unbound::OtherUser),
            RoundError::Unbound(Unbound::SealedWithoutUser),
            RoundError::Used,
        ];
        let mut messages = Vec::new();
        for error in invalid {
            assert!(std::error::Error::source(&error).is_none());
            let message = error.to_string();
            assert!(message.contains("requestState"), "{message}");
            let data = ErrorData::from(error);
            assert_eq!(data.code, ErrorCode::INVALID_PARAMS);
            assert_eq!(data.data, Some(json!({ "requestState": "rejected" })));
            assert_eq!(data.message, message);
            messages.push(message);
        }
        let mut distinct = messages.clone();
        distinct.sort();
        distinct.dedup();
        assert_eq!(distinct.len(), messages.len(), "{messages:?}");
        for error in [
            RoundError::NotAsked { key: "k".into() },
            RoundError::OtherSchema { key: "k".into() },
        ] {
            let message = error.to_string();
            assert!(message.contains("\"k\""), "{message}");
            let data = ErrorData::from(error);
            assert_eq!(data.code, ErrorCode::INVALID_PARAMS);
            assert_eq!(data.data, Some(json!({ "inputResponse": "k" })));
        }
        let random = RoundError::Random(getrandom::Error::UNSUPPORTED);
        assert!(random.to_string().contains("random source"));
        assert_eq!(ErrorData::from(random).code, ErrorCode::INTERNAL_ERROR);
    }

    fn list_roots() -> InputRequest {
        serde_json::from_value(json!({ "method": "roots/list" })).expect("a roots/list request")
    }

    // covers: M6
    #[test]
    fn a_round_sends_what_it_asks_once_per_key_and_carries_its_data() {
        let rounds = rounds().anonymous().with_ttl(Duration::from_secs(30));
        let request = RoundRequest::new("tools/call", "t", None);
        let mut round = rounds.begin(request.clone());
        round
            .request("roots", list_roots())
            .request("again", list_roots())
            .request("roots", list_roots())
            .carry(json!({ "step": 3 }));
        let before = SystemTime::now();
        let result = round.seal().unwrap();
        let asked = result.input_requests.expect("the input requests");
        assert_eq!(asked.keys().collect::<Vec<_>>(), ["again", "roots"]);
        let state = result.request_state.expect("a state");
        assert!(state.starts_with(PREFIX), "{state}");
        let answers = rounds.open(&request, Some(&state), None).unwrap().unwrap();
        // Asked once each, in the order last asked.
        assert_eq!(answers.missing(), vec!["again", "roots"]);
        assert_eq!(answers.data(), &json!({ "step": 3 }));
        assert_eq!(answers.round_id().len(), 32);
        assert!(answers.round_id().bytes().all(|b| b.is_ascii_hexdigit()));
        // The TTL from the moment it was sealed.
        let left = answers.expires_at().duration_since(before).unwrap();
        assert!(left <= Duration::from_secs(31), "{left:?}");
        assert!(left > Duration::from_secs(25), "{left:?}");

        // Nothing asked: no input requests, the state alone.
        let empty = rounds.begin(request.clone()).seal().unwrap();
        assert!(empty.input_requests.is_none());
        assert!(empty.request_state.is_some());

        // The default: ten minutes.
        let before = SystemTime::now();
        let state = Rounds::new(RoundKey::from_bytes([7; 32]))
            .anonymous()
            .begin(request.clone())
            .seal()
            .unwrap()
            .request_state
            .unwrap();
        let answers = rounds.open(&request, Some(&state), None).unwrap().unwrap();
        let left = answers.expires_at().duration_since(before).unwrap();
        assert!(left <= DEFAULT_TTL + Duration::from_secs(1), "{left:?}");
        assert!(left > DEFAULT_TTL - Duration::from_secs(5), "{left:?}");
        assert_eq!(DEFAULT_TTL, Duration::from_secs(600));
    }

    // covers: D12 (the longest requestState read is 64 KiB, and one of that length
    // is read)
    #[test]
    fn a_state_of_the_longest_length_read_opens_and_a_longer_one_is_refused() {
        assert_eq!(MAX_REQUEST_STATE_LEN, 65_536);
        let rounds = rounds();
        let request = RoundRequest::new("tools/call", "t", None);
        // The state is the prefix and base64url (4 characters per 3 bytes) of the key
        // id, the nonce, the sealed JSON and the tag: a JSON of exactly this length
        // makes a state of exactly the limit.
        let json_len =
            (MAX_REQUEST_STATE_LEN - PREFIX.len()) / 4 * 3 - (KEY_ID_LEN + NONCE_LEN + TAG_LEN);
        let mut sealed = sealed(&[]);
        sealed.data = json!("");
        let empty = serde_json::to_vec(&sealed).unwrap().len();
        sealed.data = json!("x".repeat(json_len - empty));
        let state = rounds.seal_at(&sealed).unwrap();
        assert_eq!(state.len(), MAX_REQUEST_STATE_LEN);
        assert!(rounds
            .open_at(&request, &state, None, SystemTime::now())
            .is_ok());
        let longer = format!("{state}A");
        assert!(matches!(
            rounds.open_at(&request, &longer, None, SystemTime::now()),
            Err(RoundError::Malformed("longer than the limit"))
        ));
    }

    // covers: M6 (an expired state says when it expired, to the millisecond)
    #[test]
    fn an_expired_state_says_when_it_expired() {
        let rounds = rounds();
        let request = RoundRequest::new("tools/call", "t", None);
        let mut old = sealed(&[]);
        old.expires = 1_700_000_000_123;
        let state = rounds.seal_at(&old).unwrap();
        let refused = rounds.open_at(&request, &state, None, SystemTime::now());
        let Err(RoundError::Expired { at }) = refused else {
            panic!("{refused:?}")
        };
        assert_eq!(at, UNIX_EPOCH + Duration::from_millis(1_700_000_000_123));
        let message = RoundError::Expired { at }.to_string();
        assert!(message.contains("at 1700000000123 ms"), "{message}");
    }

    // covers: M6 (too short to hold a key id, a nonce and a tag is malformed; long
    // enough under a known key id, it is a changed state)
    #[test]
    fn a_state_shorter_than_its_envelope_is_malformed_not_tampered() {
        let rounds = rounds();
        let request = RoundRequest::new("tools/call", "t", None);
        let key_id = rounds.key.id;
        for len in [0, KEY_ID_LEN, KEY_ID_LEN + NONCE_LEN, 47, 48, 49, 60] {
            let mut bytes = vec![0u8; len];
            let id_len = len.min(KEY_ID_LEN);
            bytes[..id_len].copy_from_slice(&key_id[..id_len]);
            let state = format!("{PREFIX}{}", URL_SAFE_NO_PAD.encode(&bytes));
            let refused = rounds.open_at(&request, &state, None, SystemTime::now());
            if len < KEY_ID_LEN + NONCE_LEN + TAG_LEN {
                assert!(
                    matches!(refused, Err(RoundError::Malformed("too short"))),
                    "{len}: {refused:?}"
                );
            } else {
                assert!(
                    matches!(refused, Err(RoundError::Tampered)),
                    "{len}: {refused:?}"
                );
            }
        }
        // The smallest round there is (nothing asked, nothing carried) opens.
        let mut smallest = sealed(&[]);
        smallest.data = Value::Null;
        let state = rounds.seal_at(&smallest).unwrap();
        assert!(rounds
            .open_at(&request, &state, None, SystemTime::now())
            .is_ok());
    }

    // covers: M6, S6 (a state opens only for the request it was sealed for)
    #[test]
    fn each_kind_of_request_is_its_own() {
        let arguments = json!({ "a": 1 });
        let tool: CallToolRequestParams =
            serde_json::from_value(json!({ "name": "t", "arguments": arguments })).unwrap();
        let prompt: GetPromptRequestParams =
            serde_json::from_value(json!({ "name": "t", "arguments": { "a": "1" } })).unwrap();
        let resource: ReadResourceRequestParams =
            serde_json::from_value(json!({ "uri": "t" })).unwrap();
        assert_eq!(
            RoundRequest::tool_call(&tool),
            RoundRequest::new("tools/call", "t", arguments.as_object())
        );
        assert_eq!(
            RoundRequest::prompt(&prompt),
            RoundRequest::new("prompts/get", "t", json!({ "a": "1" }).as_object())
        );
        assert_eq!(
            RoundRequest::resource(&resource),
            RoundRequest::new("resources/read", "t", None)
        );
        let kinds = [
            RoundRequest::tool_call(&tool),
            RoundRequest::prompt(&prompt),
            RoundRequest::resource(&resource),
            RoundRequest::new("tools/call", "t", json!({ "a": 2 }).as_object()),
            RoundRequest::new("tools/call", "t", None),
        ];
        for (i, a) in kinds.iter().enumerate() {
            for (j, b) in kinds.iter().enumerate() {
                assert_eq!(i == j, a == b, "{i} {j}");
            }
        }
        let alice = RoundRequest::new("tools/call", "t", None).for_user(&UserId::new("alice"));
        assert!(alice.has_user());
        assert!(!RoundRequest::new("tools/call", "t", None).has_user());
        assert_ne!(
            alice,
            RoundRequest::new("tools/call", "t", None).for_user(&UserId::new("bob"))
        );
    }

    // covers: M6 (a key's id names it without showing it)
    #[test]
    fn a_key_is_named_by_its_id_and_kept_whole() {
        let key = RoundKey::from_bytes([0x5a; 32]);
        let id = key.id();
        assert_eq!(id.len(), 2 * KEY_ID_LEN);
        assert!(id.bytes().all(|b| b.is_ascii_hexdigit()), "{id}");
        assert_ne!(id, RoundKey::from_bytes([0x5b; 32]).id());
        assert!(!id.contains("5a5a"), "{id}");
        assert_eq!(key.to_bytes(), [0x5a; 32]);
        assert!(format!("{key:?}").contains(&id));
        let generated = RoundKey::generate().unwrap();
        assert_ne!(
            generated.to_bytes(),
            RoundKey::generate().unwrap().to_bytes()
        );
        assert_ne!(generated.to_bytes(), [0; 32]);
        #[cfg(feature = "redis")]
        assert_eq!(
            crate::agent::RelayKey::derived_from(&key),
            crate::agent::RelayKey::derived_from_secret(&[0x5a; 32]).unwrap()
        );
    }
}
