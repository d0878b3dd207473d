//! [`RedisRelay`]: how the instances of an agent hand each other what happened on the
//! wrong one (feature `redis`). The guide is on the type.

use std::fmt;
use std::future::Future;
use std::pin::pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, Weak};
use std::time::Duration;

use crypto_box::aead::rand_core::{CryptoRng, RngCore};
use crypto_box::{PublicKey, SecretKey};
use futures::future::{select, Either};
use futures::StreamExt;
use redis::IntoConnectionInfo;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::sync::oneshot;

use super::ids::UserId;
use super::redis::{backoff, failed, transient, Cause, Connection, Failed, RedisConfig, Target};
use super::registry::{CompletionError, RoutedCompletion, UrlRegistry};
use super::route::Route;
use super::store::StoreError;

/// The first byte of every message on a channel: the format, so that a later one can
/// be told apart. What follows is one sealed box.
const FORMAT: u8 = 1;

/// Attempts at one `PUBLISH` on transient errors (a connection that dropped and is
/// being reconnected). Sending one again whose answer was lost may deliver it twice,
/// which is harmless: a page's task and a completion are taken once.
const PUBLISH_ATTEMPTS: u32 = 3;

/// How a [`RedisRelay`] connects and listens: the key prefix its channels share, the
/// timeouts, and the bound on the pause between two attempts to subscribe again.
#[derive(Debug, Clone, PartialEq, Eq)]
#[must_use]
pub struct RelayConfig {
    prefix: String,
    response_timeout: Duration,
    connection_timeout: Duration,
    max_backoff: Duration,
}

impl RelayConfig {
    /// Prefix [`RedisConfig::DEFAULT_PREFIX`] (`elicit:`), 2 s to answer, 2 s to
    /// connect, at most 1 s between two attempts to subscribe again.
    pub fn new() -> Self {
        RelayConfig {
            prefix: RedisConfig::DEFAULT_PREFIX.to_owned(),
            response_timeout: Duration::from_secs(2),
            connection_timeout: Duration::from_secs(2),
            max_backoff: Duration::from_secs(1),
        }
    }

    /// What every channel name starts with (default `elicit:`): an instance listens on
    /// `{prefix}inst:{instance id}`. The instances of one agent use one prefix.
    pub fn prefix(mut self, prefix: impl Into<String>) -> Self {
        self.prefix = prefix.into();
        self
    }

    /// How long one command may wait for Redis's answer (default 2 s).
    pub fn response_timeout(mut self, timeout: Duration) -> Self {
        self.response_timeout = timeout;
        self
    }

    /// How long one connection attempt may take (default 2 s).
    pub fn connection_timeout(mut self, timeout: Duration) -> Self {
        self.connection_timeout = timeout;
        self
    }

    /// The longest pause between two attempts to subscribe again after the
    /// subscriber's connection dropped (default 1 s; the pauses start at 25 ms and
    /// double).
    pub fn max_backoff(mut self, max: Duration) -> Self {
        self.max_backoff = max;
        self
    }

    fn store_config(&self) -> RedisConfig {
        RedisConfig::new()
            .prefix(self.prefix.clone())
            .attempts(PUBLISH_ATTEMPTS)
            .response_timeout(self.response_timeout)
            .connection_timeout(self.connection_timeout)
    }

    fn backoff(&self, failures: u32) -> Duration {
        let millis = 25u64.saturating_mul(1u64 << failures.saturating_sub(1).min(16));
        Duration::from_millis(millis).min(self.max_backoff)
    }
}

impl Default for RelayConfig {
    fn default() -> Self {
        Self::new()
    }
}

/// Whether what a [`RedisRelay`] sent reached the instance it was for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Delivery {
    /// The owning instance listens: it got the message (this instance, or another one
    /// that Redis counted as a receiver).
    Delivered,
    /// Nobody listens on the owner's channel: the instance is gone (stopped, crashed)
    /// or disconnected from Redis at that moment. Pub/sub keeps nothing, so the
    /// message is lost; what the store holds stays true.
    NoListener,
}

/// Why [`RedisRelay::complete`] did not complete an elicitation.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum RouteError {
    /// The registry refused (unknown id, another user, already completed, closed), or
    /// its store failed: nothing was completed or sent.
    Refused(CompletionError),
    /// Completed in the store, but the message to the owning instance could not be
    /// published (Redis failed at that moment): the owner's client is not notified,
    /// and a retried tool call sees the elicitation complete.
    Publish(StoreError),
}

impl fmt::Display for RouteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RouteError::Refused(error) => error.fmt(f),
            RouteError::Publish(_) => f.write_str(
                "the elicitation was completed, but its owning instance could not be told",
            ),
        }
    }
}

impl std::error::Error for RouteError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            RouteError::Refused(_) => None,
            RouteError::Publish(error) => Some(error),
        }
    }
}

/// What a page submission routed to its waiting instance carries (sealed).
#[derive(Serialize, Deserialize)]
pub(crate) struct PageMessage {
    pub(crate) token: String,
    pub(crate) action: RoutedAction,
    /// The validated content, on accept.
    pub(crate) content: Option<Value>,
}

/// Neither the page token (the link's secret) nor what the person typed (a secret, on
/// the secure page) is ever printed: logs and panics see the action only.
impl std::fmt::Debug for PageMessage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PageMessage")
            .field("token", &"<hidden>")
            .field("action", &self.action)
            .field("content", &self.content.as_ref().map(|_| "<hidden>"))
            .finish()
    }
}

/// The button the user pressed on the page.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) enum RoutedAction {
    Accept,
    Decline,
    Cancel,
}

/// One message on an instance's channel, before sealing.
#[derive(Debug, Serialize, Deserialize)]
enum Message {
    /// A page was submitted on another instance.
    Page(PageMessage),
    /// An elicitation of this instance's was completed on another one.
    Complete { id: String },
}

/// A page of this instance that takes routed submissions: `true` when it had the
/// token waiting.
pub(crate) type PageInbox = Arc<PageInboxFn>;

type PageInboxFn = dyn Fn(&PageMessage) -> bool + Send + Sync;

type CompletionHook = Arc<dyn Fn(RoutedCompletion) + Send + Sync>;

/// The instances of an agent telling each other what happened elsewhere, through Redis
/// pub/sub (feature `redis`): a page submitted on instance B reaches the
/// [`PageWait`](crate::axum::PageWait) on instance A that waits for it, and a URL
/// elicitation completed on B (the OAuth callback landed there) reaches A, which holds
/// the client's connection and sends `notifications/elicitation/complete` on it
/// ([U5](crate::rules#u5)). Cheap to clone: clones are one instance.
///
/// Make one per instance at start, on the Redis its [`RedisStore`](super::RedisStore)s
/// use, and give it to the registry ([`UrlRegistry::routed_by`]) and the secure page
/// (`SecurePageBuilder::relay`, feature `axum`):
///
/// ```no_run
/// use elicit::agent::{
///     RedisConfig, RedisRelay, RedisStore, RegistryLimits, RelayConfig, UrlEntry, UrlRegistry,
/// };
///
/// let relay = RedisRelay::connect("redis://127.0.0.1:6379/", RelayConfig::new())?;
/// let store: RedisStore<UrlEntry> =
///     RedisStore::connect("redis://127.0.0.1:6379/", RedisConfig::new().prefix("elicit:url:"))?;
/// let registry = UrlRegistry::with_store(store, RegistryLimits::DEFAULT).routed_by(&relay);
/// // A completion routed here from another instance: send it on its connection, e.g.
/// // with rmcp's `PeerElicitor::send_completion` (found by `done.connection()`).
/// relay.on_completion(&registry, |done| {
///     let _ = (done.connection(), done.elicitation_id());
/// });
/// // Where the callback of the external interaction lands, on any instance:
/// // `relay.complete(&registry, elicitation_id, Some(&user))`.
/// # Ok::<(), elicit::agent::StoreError>(())
/// ```
///
/// # Channels, and why pub/sub
///
/// Each instance is named by its public key (below) and listens on one channel of its own,
/// `{prefix}inst:{id}`, on a dedicated subscriber connection (redis-rs's async
/// `PubSub`), which it subscribes again after a drop, pausing 25 ms, then twice as
/// long each time up to [`RelayConfig::max_backoff`]. The registry's entries and the
/// page's tickets record the owner's id and public key, so whichever instance a
/// request lands on knows where to send.
///
/// Pub/sub, not streams: what is routed is useful only to an instance that is
/// listening now (a page's waiting task, a live client connection), and a stream would
/// keep messages nobody reads after the instance died, with a consumer group and
/// trimming to manage. `PUBLISH` answers with the number of receivers, so the sender
/// knows at once whether the owner heard: the page then says "Received" only when it
/// did, and otherwise tells the person that their answer was not delivered
/// ([`Delivery::NoListener`]). Pub/sub being at most once, the keys are the truth: a
/// completion is recorded in the store before it is announced, so a retried tool call
/// on any instance sees it complete whatever happened to the message.
///
/// # Sealed
///
/// Every message is one sealed box (libsodium's `crypto_box_seal`, from `crypto_box`:
/// an ephemeral X25519 key agreed with the owner's public key, XSalsa20-Poly1305) for
/// the instance it goes to, behind one format byte. Each instance makes its X25519 key
/// pair when it starts; only the public key is written to Redis (in the records it
/// owns), and the private key stays in this process's memory, erased when the relay is
/// dropped. So the token, the content of a submitted page and a secret typed on it
/// never sit in Redis, nor cross it, in clear; only the instance that asked can open
/// them. A sealed box authenticates nobody: as for the store's records, who may write
/// to this Redis may act as an instance, so protect it (`requirepass`, ACLs, a private
/// network).
///
/// # Failures
///
/// [`connect`](Self::connect) fails, with the cause, when Redis cannot be reached or
/// the first subscription fails. Afterwards a dropped subscriber connection is
/// retried in the background ([`is_listening`](Self::is_listening) says whether it
/// listens now); what was published to it meanwhile is lost, and its senders were told
/// [`Delivery::NoListener`]. A `PUBLISH` that fails is an error, never a delivery.
///
/// Single Redis servers only: on Redis Cluster, `PUBLISH` counts only the receivers of
/// the node it reached.
#[derive(Clone)]
pub struct RedisRelay {
    inner: Arc<Inner>,
}

struct Inner {
    instance: String,
    channel: String,
    prefix: String,
    secret: SecretKey,
    commands: Connection,
    wait: Duration,
    listening: Arc<AtomicBool>,
    pages: Mutex<Vec<Weak<PageInboxFn>>>,
    completions: Mutex<Vec<(UrlRegistry, CompletionHook)>>,
    /// Taken by `close`, or dropped with the last clone: the subscriber's thread then
    /// ends.
    stop: Mutex<Option<oneshot::Sender<()>>>,
}

impl RedisRelay {
    /// Starts this instance's relay on the Redis at `address` (as for
    /// [`RedisStore::connect`](super::RedisStore::connect)): draws the instance id and
    /// the key pair, opens the connection it publishes on and subscribes to its
    /// channel. Fails with the cause when either cannot be done within the timeouts.
    pub fn connect(
        address: impl IntoConnectionInfo,
        config: RelayConfig,
    ) -> Result<RedisRelay, StoreError> {
        let client = redis::Client::open(address)
            .map_err(|error| failed("connecting", 1, Cause::Redis(error)))?;
        let mut key = [0u8; 32];
        getrandom::fill(&mut key).map_err(|error| {
            failed(
                "starting the relay",
                0,
                Cause::Reply(format!("no randomness: {error}")),
            )
        })?;
        let secret = SecretKey::from(key);
        key.fill(0);
        // The public key is the instance's id: it names the channel.
        let instance = hex(secret.public_key().as_bytes());
        let store_config = config.store_config();
        let commands = Connection::start(Target::Server(client.clone()), &store_config)?;
        let channel = format!("{}inst:{instance}", config.prefix);
        let (stop, stopped) = oneshot::channel();
        let listening = Arc::new(AtomicBool::new(false));
        let inner = Arc::new(Inner {
            instance,
            channel: channel.clone(),
            prefix: config.prefix.clone(),
            secret,
            commands,
            wait: store_config.wait(),
            listening: Arc::clone(&listening),
            pages: Mutex::new(Vec::new()),
            completions: Mutex::new(Vec::new()),
            stop: Mutex::new(Some(stop)),
        });
        let (ready, first) = std::sync::mpsc::sync_channel::<Result<(), Failed>>(1);
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|error| failed("starting the relay", 1, Cause::Thread(error)))?;
        let weak = Arc::downgrade(&inner);
        std::thread::Builder::new()
            .name("elicit-relay".to_owned())
            .spawn(move || {
                runtime.block_on(listen(
                    weak, client, channel, config, listening, stopped, ready,
                ));
            })
            .map_err(|error| failed("starting the relay", 1, Cause::Thread(error)))?;
        match first.recv_timeout(inner.wait) {
            Ok(Ok(())) => Ok(RedisRelay { inner }),
            Ok(Err(failure)) => Err(StoreError::new(failure)),
            Err(_) => Err(failed("subscribing", 1, Cause::NoAnswer)),
        }
    }

    /// This instance's id, which is also its X25519 public key in hex (64 characters):
    /// its channel is `{prefix}inst:{id}`.
    pub fn instance_id(&self) -> &str {
        &self.inner.instance
    }

    /// The channel this instance listens on.
    pub fn channel(&self) -> &str {
        &self.inner.channel
    }

    /// The prefix of the channels.
    pub fn prefix(&self) -> &str {
        &self.inner.prefix
    }

    /// Whether the subscriber listens on this instance's channel at this moment: `false`
    /// while it reconnects after a drop.
    pub fn is_listening(&self) -> bool {
        self.inner.listening.load(Ordering::SeqCst)
    }

    /// Stops listening: this instance's channel has no subscriber from then on, so
    /// the other instances are told [`Delivery::NoListener`] and refuse what they
    /// would have routed here (a page then says the answer was not delivered). For a
    /// graceful shutdown; dropping every clone does the same.
    pub fn close(&self) {
        drop(lock(&self.inner.stop).take());
    }

    /// Hands the completions routed here for `registry`'s elicitations to `hook`, on
    /// the relay's thread: each comes once, as a [`RoutedCompletion`] naming the
    /// connection to send `notifications/elicitation/complete` on ([U5](crate::rules#u5)).
    /// Keep the hook short (send on the connection, or hand it to a task).
    pub fn on_completion(
        &self,
        registry: &UrlRegistry,
        hook: impl Fn(RoutedCompletion) + Send + Sync + 'static,
    ) {
        lock(&self.inner.completions).push((registry.clone(), Arc::new(hook)));
    }

    /// Completes, from this instance, a URL elicitation of any instance sharing the
    /// registry's store: wherever the external interaction's callback lands. `user` is
    /// who this instance's authentication says finished it: the user who started it
    /// ([S6](crate::rules#s6)). The entry becomes `Completed` in the store first (a
    /// compare-and-swap: of two completions racing, one wins, [U5](crate::rules#u5)),
    /// then the owning instance is told, sealed for it, and hands a
    /// [`RoutedCompletion`] to its [hook](Self::on_completion), which notifies the
    /// client on the connection that received the request.
    ///
    /// [`Delivery::NoListener`] when the owner is gone: completed in the store all the
    /// same (a retried tool call sees it), but no client hears of it.
    pub fn complete(
        &self,
        registry: &UrlRegistry,
        elicitation_id: &str,
        user: Option<&UserId>,
    ) -> Result<Delivery, RouteError> {
        let route = registry
            .complete_routed(elicitation_id, user)
            .map_err(RouteError::Refused)?;
        let message = Message::Complete {
            id: elicitation_id.to_owned(),
        };
        match route {
            Some(route) => self.send(&route, &message).map_err(RouteError::Publish),
            // Not routed: issued by an instance without a relay, which only this one
            // can be if it holds it.
            None => Ok(if self.inner.dispatch(message) {
                Delivery::Delivered
            } else {
                Delivery::NoListener
            }),
        }
    }

    /// Where the other instances reach this one, for the records it owns.
    pub(crate) fn route(&self) -> Route {
        Route {
            instance: self.inner.instance.clone(),
        }
    }

    /// Takes routed page submissions for this inbox until it is dropped.
    #[cfg_attr(not(feature = "axum"), allow(dead_code))] // the page's, feature `axum`
    pub(crate) fn on_page(&self, inbox: &PageInbox) {
        let mut pages = lock(&self.inner.pages);
        pages.retain(|page| page.strong_count() > 0);
        pages.push(Arc::downgrade(inbox));
    }

    /// Hands a page submission to the instance waiting for it.
    #[cfg_attr(not(feature = "axum"), allow(dead_code))] // the page's, feature `axum`
    pub(crate) fn send_page(
        &self,
        route: &Route,
        message: PageMessage,
    ) -> Result<Delivery, StoreError> {
        self.send(route, &Message::Page(message))
    }

    /// Seals `message` for `route`'s instance and publishes it on its channel; to this
    /// instance itself, hands it over in memory.
    fn send(&self, route: &Route, message: &Message) -> Result<Delivery, StoreError> {
        let plain = serde_json::to_vec(message)
            .map_err(|error| failed("sealing a message", 0, Cause::Encode(error)))?;
        let key = unhex32(&route.instance).ok_or_else(|| {
            failed(
                "sealing a message",
                0,
                Cause::Reply("the record names no valid public key".to_owned()),
            )
        })?;
        let sealed = PublicKey::from(key)
            .seal(&mut OsRandom, &plain)
            .map_err(|_| {
                failed(
                    "sealing a message",
                    0,
                    Cause::Reply("sealing failed".into()),
                )
            })?;
        let mut payload = Vec::with_capacity(1 + sealed.len());
        payload.push(FORMAT);
        payload.extend_from_slice(&sealed);
        let channel = format!("{}inst:{}", self.inner.prefix, route.instance);
        let receivers: i64 =
            self.inner
                .commands
                .run(self.inner.wait, move |mut connection| async move {
                    let mut tries = 0;
                    loop {
                        if tries > 0 {
                            tokio::time::sleep(backoff(tries)).await;
                        }
                        tries += 1;
                        let reply = redis::cmd("PUBLISH")
                            .arg(&channel)
                            .arg(&payload)
                            .query_async(&mut connection)
                            .await;
                        match reply {
                            Ok(receivers) => return Ok(receivers),
                            Err(error) if transient(&error) && tries < PUBLISH_ATTEMPTS => {}
                            Err(error) => {
                                return Err(Failed::new("publishing", tries, Cause::Redis(error)))
                            }
                        }
                    }
                })?;
        Ok(if receivers > 0 {
            Delivery::Delivered
        } else {
            Delivery::NoListener
        })
    }
}

impl fmt::Debug for RedisRelay {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Not the key, not the address.
        f.debug_struct("RedisRelay")
            .field("instance", &self.inner.instance)
            .field("listening", &self.is_listening())
            .finish_non_exhaustive()
    }
}

impl Inner {
    /// Opens one message from the channel and hands it to whom it is for.
    fn receive(&self, payload: &[u8]) {
        let Some((&FORMAT, sealed)) = payload.split_first() else {
            return;
        };
        // Not sealed for this key (or changed on the way): nothing to read.
        let Ok(plain) = self.secret.unseal(sealed) else {
            return;
        };
        if let Ok(message) = serde_json::from_slice::<Message>(&plain) {
            self.dispatch(message);
        }
    }

    /// Hands a message to this instance's page or completion hook; `true` when one
    /// took it.
    fn dispatch(&self, message: Message) -> bool {
        match message {
            Message::Page(page) => {
                let inboxes: Vec<PageInbox> =
                    lock(&self.pages).iter().filter_map(Weak::upgrade).collect();
                inboxes.iter().any(|inbox| inbox(&page))
            }
            Message::Complete { id } => {
                let hooks = lock(&self.completions).clone();
                for (registry, hook) in hooks {
                    if let Some(done) = registry.take_routed(&id) {
                        hook(done);
                        return true;
                    }
                }
                false
            }
        }
    }
}

/// The subscriber: subscribes, reads, and after a drop subscribes again with a bounded
/// backoff, until the relay is dropped. The first outcome goes to `ready`.
async fn listen(
    relay: Weak<Inner>,
    client: redis::Client,
    channel: String,
    config: RelayConfig,
    listening: Arc<AtomicBool>,
    mut stopped: oneshot::Receiver<()>,
    ready: std::sync::mpsc::SyncSender<Result<(), Failed>>,
) {
    let mut ready = Some(ready);
    let mut failures = 0u32;
    loop {
        let subscribe = async {
            let mut pubsub =
                tokio::time::timeout(config.connection_timeout, client.get_async_pubsub())
                    .await
                    .map_err(|_| Failed::new("subscribing", 1, Cause::NoAnswer))?
                    .map_err(|error| Failed::new("subscribing", 1, Cause::Redis(error)))?;
            tokio::time::timeout(config.response_timeout, pubsub.subscribe(&channel))
                .await
                .map_err(|_| Failed::new("subscribing", 1, Cause::NoAnswer))?
                .map_err(|error| Failed::new("subscribing", 1, Cause::Redis(error)))?;
            Ok::<_, Failed>(pubsub)
        };
        let Some(subscribed) = or_stop(&mut stopped, subscribe).await else {
            return;
        };
        match subscribed {
            Ok(pubsub) => {
                failures = 0;
                listening.store(true, Ordering::SeqCst);
                if let Some(ready) = ready.take() {
                    let _ = ready.send(Ok(()));
                }
                let mut messages = pubsub.into_on_message();
                loop {
                    let Some(next) = or_stop(&mut stopped, messages.next()).await else {
                        listening.store(false, Ordering::SeqCst);
                        return;
                    };
                    // `None`: the connection dropped.
                    let Some(message) = next else { break };
                    let Some(relay) = relay.upgrade() else { return };
                    relay.receive(message.get_payload_bytes());
                }
                listening.store(false, Ordering::SeqCst);
            }
            Err(failure) => {
                if let Some(ready) = ready.take() {
                    let _ = ready.send(Err(failure));
                    return;
                }
                failures = failures.saturating_add(1);
            }
        }
        let pause = tokio::time::sleep(config.backoff(failures.max(1)));
        if or_stop(&mut stopped, pause).await.is_none() {
            return;
        }
    }
}

/// `work`'s output, or `None` when the relay was dropped first.
async fn or_stop<F: Future>(stopped: &mut oneshot::Receiver<()>, work: F) -> Option<F::Output> {
    match select(stopped, pin!(work)).await {
        Either::Left(_) => None,
        Either::Right((output, _)) => Some(output),
    }
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

fn hex(bytes: &[u8]) -> String {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for byte in bytes {
        out.push(char::from(HEX[usize::from(byte >> 4)]));
        out.push(char::from(HEX[usize::from(byte & 0x0f)]));
    }
    out
}

fn unhex32(text: &str) -> Option<[u8; 32]> {
    let bytes = text.as_bytes();
    if bytes.len() != 64 {
        return None;
    }
    let mut out = [0u8; 32];
    for (i, pair) in bytes.chunks(2).enumerate() {
        let digit = |c: u8| char::from(c).to_digit(16);
        out[i] = u8::try_from(digit(pair[0])? * 16 + digit(pair[1])?).ok()?;
    }
    Some(out)
}

/// The operating system's random source (through `getrandom`, as every id of the
/// crate) in the shape `crypto_box` asks for its ephemeral keys.
struct OsRandom;

impl RngCore for OsRandom {
    fn next_u32(&mut self) -> u32 {
        let mut bytes = [0u8; 4];
        self.fill_bytes(&mut bytes);
        u32::from_le_bytes(bytes)
    }

    fn next_u64(&mut self) -> u64 {
        let mut bytes = [0u8; 8];
        self.fill_bytes(&mut bytes);
        u64::from_le_bytes(bytes)
    }

    fn fill_bytes(&mut self, dest: &mut [u8]) {
        // A failing OS random source cannot make a key; `seal` has no way to report it
        // but this one.
        getrandom::fill(dest).expect("invariant: the operating system's random source works");
    }

    fn try_fill_bytes(
        &mut self,
        dest: &mut [u8],
    ) -> Result<(), crypto_box::aead::rand_core::Error> {
        getrandom::fill(dest).map_err(|error| {
            crypto_box::aead::rand_core::Error::from(
                std::num::NonZeroU32::new(error.raw_os_error().map_or(1, |c| c.unsigned_abs()))
                    .unwrap_or(std::num::NonZeroU32::MIN),
            )
        })
    }
}

impl CryptoRng for OsRandom {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_message_never_prints_its_token_or_what_was_typed() {
        let message = PageMessage {
            token: "tok-3f9a1c".to_owned(),
            action: RoutedAction::Accept,
            content: Some(serde_json::json!({ "api_key": "sk-live-secret" })),
        };
        let printed = format!("{message:?}");
        assert!(
            !printed.contains("tok-3f9a1c") && !printed.contains("sk-live"),
            "{printed}"
        );
        assert!(printed.contains("Accept"), "{printed}");
    }

    #[test]
    fn keys_round_trip_through_hex() {
        let bytes: [u8; 32] = std::array::from_fn(|i| u8::try_from(i * 7).unwrap());
        assert_eq!(unhex32(&hex(&bytes)), Some(bytes));
        assert_eq!(unhex32("zz"), None);
        assert_eq!(unhex32(&"g".repeat(64)), None);
    }

    #[test]
    fn a_sealed_box_opens_only_with_its_key() {
        let mut key = [0u8; 32];
        getrandom::fill(&mut key).unwrap();
        let secret = SecretKey::from(key);
        let sealed = secret
            .public_key()
            .seal(&mut OsRandom, b"sk-live-secret")
            .unwrap();
        assert!(!sealed.windows(6).any(|w| w == b"sk-liv"));
        assert_eq!(secret.unseal(&sealed).unwrap(), b"sk-live-secret");
        let other = SecretKey::from([9u8; 32]);
        assert!(other.unseal(&sealed).is_err());
    }

    #[test]
    fn the_backoff_is_bounded() {
        let config = RelayConfig::new().max_backoff(Duration::from_millis(300));
        assert_eq!(config.backoff(1), Duration::from_millis(25));
        assert_eq!(config.backoff(2), Duration::from_millis(50));
        assert_eq!(config.backoff(40), Duration::from_millis(300));
    }
}
