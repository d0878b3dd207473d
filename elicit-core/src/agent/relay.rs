//! [`RedisRelay`]: how the instances of an agent hand each other what happened on the
//! wrong one (feature `redis`). The guide is on the type.

use std::collections::HashMap;
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
use redis::cluster::ClusterClient;
use redis::IntoConnectionInfo;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::sync::oneshot;

use super::ids::UserId;
use super::redis::{backoff, failed, transient, Cause, Connection, Failed, RedisConfig, Target};
use super::registry::{CompletionError, RoutedCompletion, UrlRegistry};
use super::relay_key::{Keys, Purpose, RelayKey, TAG_LEN};
use super::route::Route;
use super::store::StoreError;

/// The first byte of a message that carries something: the format, so that a later one
/// can be told apart. What follows is one sealed box holding a tag and the message.
const FORMAT: u8 = 2;

/// The first (and only) byte of a heartbeat: what an instance publishes on its own
/// channel on Redis Cluster to check that its subscription still hears.
const HEARTBEAT: u8 = 0;

/// Attempts at one `PUBLISH` on transient errors (a connection that dropped and is
/// being reconnected). Sending one again whose answer was lost may deliver it twice,
/// which is harmless: a page's task and a completion are taken once.
const PUBLISH_ATTEMPTS: u32 = 3;

/// Retries of the cluster client itself (redirections, a node that moved).
const CLUSTER_RETRIES: u32 = 3;

/// How a [`RedisRelay`] connects and listens: the key prefix its channels share, the
/// timeouts, the bound on the pause between two attempts to subscribe again, how
/// often the subscription is checked, how long a sender waits for an
/// acknowledgement, and older [`RelayKey`]s still accepted during a rotation.
#[derive(Debug, Clone, PartialEq, Eq)]
#[must_use]
pub struct RelayConfig {
    prefix: String,
    response_timeout: Duration,
    connection_timeout: Duration,
    max_backoff: Duration,
    ping_every: Duration,
    ack_timeout: Duration,
    older_keys: Vec<RelayKey>,
}

impl RelayConfig {
    /// Prefix [`RedisConfig::DEFAULT_PREFIX`] (`elicit:`), 2 s to answer, 2 s to
    /// connect, at most 1 s between two attempts to subscribe again, a check of the
    /// subscription every 5 s, 3 s for an acknowledgement, no older key.
    pub fn new() -> Self {
        RelayConfig {
            prefix: RedisConfig::DEFAULT_PREFIX.to_owned(),
            response_timeout: Duration::from_secs(2),
            connection_timeout: Duration::from_secs(2),
            max_backoff: Duration::from_secs(1),
            ping_every: Duration::from_secs(5),
            ack_timeout: Duration::from_secs(3),
            older_keys: Vec::new(),
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

    /// How often the subscriber checks that its connection still answers (default
    /// 5 s): a `PING` on a single server, a heartbeat published on its own sharded
    /// channel on Redis Cluster. A connection that does not answer within the
    /// [response timeout](Self::response_timeout) (one a firewall or a NAT silently
    /// dropped) is given up and the channel subscribed again on a new one. At least
    /// 10 ms.
    pub fn ping_every(mut self, every: Duration) -> Self {
        self.ping_every = every.max(Duration::from_millis(10));
        self
    }

    /// How long the instance a page was submitted on waits for the waiting instance's
    /// acknowledgement that it took the answer (default 3 s): the person is told
    /// "Received" only then, else that the answer was not delivered.
    pub fn ack_timeout(mut self, timeout: Duration) -> Self {
        self.ack_timeout = timeout;
        self
    }

    /// Also accepts tags made with `key`, an older [`RelayKey`], during a rotation:
    /// tickets and messages are tagged with the current key, and checked against it
    /// and every older key given here. Drop the older key once the records written
    /// under it have expired.
    pub fn also_accepting(mut self, key: RelayKey) -> Self {
        self.older_keys.push(key);
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
    /// The owning instance took it: for a completion, Redis counted it as a receiver
    /// of its channel; for a page submission, it acknowledged (sealed and tagged)
    /// that its waiting task took the answer.
    Delivered,
    /// Nobody listens on the owner's channel: the instance is gone (stopped, crashed)
    /// or disconnected from Redis at that moment. Pub/sub keeps nothing, so the
    /// message is lost; what the store holds stays true.
    NoListener,
    /// The owner's channel had a listener, but no acknowledgement that the answer was
    /// taken came within [`RelayConfig::ack_timeout`], or the owner refused it (its
    /// task no longer waits or already had a routed answer, or the client's consent is
    /// not recorded there): the answer was not taken.
    NotAcknowledged,
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
    /// The tag (hex) of the ticket the sender read, checked and marked used before it
    /// sent this: the waiting instance compares it with the tag it wrote, instead of
    /// reading the ticket again. Absent from what an earlier version sends, which the
    /// waiting instance refuses (such a version cannot find this one's tickets: the
    /// digest naming them changed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) ticket: Option<String>,
}

/// Neither the page token (the link's secret) nor what the person typed (a secret, on
/// the secure page) is ever printed: logs and panics see the action only.
impl std::fmt::Debug for PageMessage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PageMessage")
            .field("token", &"<hidden>")
            .field("action", &self.action)
            .field("content", &self.content.as_ref().map(|_| "<hidden>"))
            .field("ticket", &self.ticket)
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

/// One message on an instance's channel, before tagging and sealing.
#[derive(Debug, Serialize, Deserialize)]
enum Message {
    /// A page was submitted on another instance; `ack` names the acknowledgement the
    /// sender waits for.
    Page { ack: u64, page: PageMessage },
    /// An elicitation of this instance's was completed on another one.
    Complete { id: String },
    /// The answer to a `Page`: whether the waiting task took it.
    Ack { ack: u64, taken: bool },
}

/// A message and who sent it, as tagged: the tag covers the recipient's id and these
/// bytes, so the sender's id cannot be changed, nor the message moved to another
/// instance.
#[derive(Debug, Serialize, Deserialize)]
struct Envelope {
    #[serde(rename = "f")]
    from: String,
    #[serde(rename = "m")]
    message: Message,
}

/// A page of this instance that takes routed submissions: `true` when its task took
/// the answer (the token waited here and had no routed answer before, the message
/// names the ticket this page wrote, the client's consent was recorded here, the value
/// parsed).
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
/// use, with the deployment's [`RelayKey`] (the same on every instance, never in
/// Redis), and give it to the registry ([`UrlRegistry::routed_by`]) and the secure page
/// (`SecurePageBuilder::relay`, feature `axum`):
///
/// ```no_run
/// use elicit::agent::{
///     RedisConfig, RedisRelay, RedisStore, RegistryLimits, RelayConfig, RelayKey, UrlEntry,
///     UrlRegistry,
/// };
///
/// // 32 bytes from the deployment's secret store, the same on every instance (or
/// // `RelayKey::derived_from(&round_key)` with feature `rmcp_3`).
/// let key = RelayKey::from_bytes([7; 32]);
/// let relay = RedisRelay::connect("redis://127.0.0.1:6379/", key, RelayConfig::new())?;
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
/// Each instance is named by its public key (below) and listens on one channel of its
/// own, `{prefix}inst:{id}`, on a dedicated subscriber connection, which it subscribes
/// again after a drop, pausing 25 ms, then twice as long each time up to
/// [`RelayConfig::max_backoff`]. Every [`RelayConfig::ping_every`] it checks that the
/// connection still answers (a `PING`; on Redis Cluster a heartbeat on its own
/// channel), so a connection that silently stopped answering is given up too. The
/// registry's entries and the page's tickets record the owner's id and public key, so
/// whichever instance a request lands on knows where to send.
///
/// Pub/sub, not streams: what is routed is useful only to an instance that is
/// listening now (a page's waiting task, a live client connection), and a stream would
/// keep messages nobody reads after the instance died, with a consumer group and
/// trimming to manage. Pub/sub being at most once, the keys are the truth: a
/// completion is recorded in the store before it is announced, so a retried tool call
/// on any instance sees it complete whatever happened to the message. A page
/// submission is answered by the waiting instance with an acknowledgement (sealed and
/// tagged like every message): the page says "Received" only once it came, within
/// [`RelayConfig::ack_timeout`], never because `PUBLISH` counted a receiver.
///
/// # Authenticated and sealed
///
/// Every message is one sealed box (libsodium's `crypto_box_seal`, from `crypto_box`:
/// an ephemeral X25519 key agreed with the owner's public key, XSalsa20-Poly1305) for
/// the instance it goes to, behind one format byte; inside, a 128-bit keyed BLAKE2b
/// tag under the [`RelayKey`] covers the recipient's id, the sender's id and the
/// message. Each instance makes its X25519 key pair when it starts; only the public key
/// is written to Redis (in the records it owns, tagged with the relay key too), and the
/// private key stays in this process's memory, erased when the relay is dropped. So
/// the token, the content of a submitted page and a secret typed on it never sit in
/// Redis, nor cross it, in clear; only the instance that asked can open them; and a
/// message from anyone without the relay key (who can read Redis and `PUBLISH` on it)
/// is dropped unread. What such a writer can still do is deny service: delete or spoil
/// records, which are then refused.
///
/// # Failures
///
/// [`connect`](Self::connect) fails, with the cause, when Redis cannot be reached or
/// the first subscription fails. Afterwards a dropped or silent subscriber connection
/// is replaced in the background ([`is_listening`](Self::is_listening) says whether
/// it listens now); what was published to it meanwhile is lost, and its senders were
/// told [`Delivery::NoListener`] or [`Delivery::NotAcknowledged`]. A `PUBLISH` that
/// fails is an error, never a delivery.
///
/// # Redis Cluster
///
/// [`connect_cluster`](Self::connect_cluster) uses sharded pub/sub (`SSUBSCRIBE` and
/// `SPUBLISH`, Redis 7 or later, over RESP3): an instance's channel lives on the node
/// that holds its slot, so whichever node a sender's connection reaches, the message
/// goes to the node the owner listens on, and the count of receivers is that node's.
#[derive(Clone)]
pub struct RedisRelay {
    inner: Arc<Inner>,
}

struct Inner {
    instance: String,
    channel: String,
    prefix: String,
    secret: SecretKey,
    keys: Keys,
    commands: Connection,
    /// `SPUBLISH` and `PUBSUB SHARDNUMSUB` (Redis Cluster) rather than `PUBLISH` and
    /// `PUBSUB NUMSUB`.
    sharded: bool,
    wait: Duration,
    ack_timeout: Duration,
    listening: Arc<AtomicBool>,
    pages: Mutex<Vec<Weak<PageInboxFn>>>,
    completions: Mutex<Vec<(UrlRegistry, CompletionHook)>>,
    /// The acknowledgements this instance waits for: by id, the instance that must
    /// send it and where to hand it.
    acks: Mutex<HashMap<u64, (String, oneshot::Sender<bool>)>>,
    /// Taken by `close`, or dropped with the last clone: the subscriber's thread then
    /// ends.
    stop: Mutex<Option<oneshot::Sender<()>>>,
}

/// Where the subscriber connects.
#[derive(Clone)]
enum Subscriber {
    Server(redis::Client),
    Cluster(Vec<redis::ConnectionInfo>),
}

impl RedisRelay {
    /// Starts this instance's relay on the Redis at `address` (as for
    /// [`RedisStore::connect`](super::RedisStore::connect)), with the deployment's
    /// `key`: draws the instance id and the key pair, opens the connection it
    /// publishes on and subscribes to its channel. Fails with the cause when either
    /// cannot be done within the timeouts.
    pub fn connect(
        address: impl IntoConnectionInfo,
        key: RelayKey,
        config: RelayConfig,
    ) -> Result<RedisRelay, StoreError> {
        let client = redis::Client::open(address)
            .map_err(|error| failed("connecting", 1, Cause::Redis(error)))?;
        Self::start(
            Target::Server(client.clone()),
            Subscriber::Server(client),
            key,
            config,
        )
    }

    /// Starts this instance's relay on a Redis Cluster (Redis 7 or later) reached
    /// through any of its `nodes` (each an address as for [`connect`](Self::connect)),
    /// with sharded pub/sub: see [Redis Cluster](Self#redis-cluster).
    pub fn connect_cluster<A: IntoConnectionInfo>(
        nodes: impl IntoIterator<Item = A>,
        key: RelayKey,
        config: RelayConfig,
    ) -> Result<RedisRelay, StoreError> {
        let nodes = nodes
            .into_iter()
            .map(IntoConnectionInfo::into_connection_info)
            .collect::<Result<Vec<_>, _>>()
            .map_err(|error| failed("connecting", 1, Cause::Redis(error)))?;
        let client = ClusterClient::builder(nodes.clone())
            .retries(CLUSTER_RETRIES)
            .response_timeout(config.response_timeout)
            .connection_timeout(config.connection_timeout)
            .build()
            .map_err(|error| failed("connecting", 1, Cause::Redis(error)))?;
        Self::start(
            Target::Cluster(Box::new(client)),
            Subscriber::Cluster(nodes),
            key,
            config,
        )
    }

    fn start(
        target: Target,
        subscriber: Subscriber,
        key: RelayKey,
        config: RelayConfig,
    ) -> Result<RedisRelay, StoreError> {
        let mut seed = [0u8; 32];
        getrandom::fill(&mut seed).map_err(|error| {
            failed(
                "starting the relay",
                0,
                Cause::Reply(format!("no randomness: {error}")),
            )
        })?;
        let secret = SecretKey::from(seed);
        seed.fill(0);
        // The public key is the instance's id: it names the channel.
        let instance = hex(secret.public_key().as_bytes());
        let store_config = config.store_config();
        let sharded = matches!(subscriber, Subscriber::Cluster(_));
        let commands = Connection::start(target, &store_config)?;
        let channel = format!("{}inst:{instance}", config.prefix);
        let (stop, stopped) = oneshot::channel();
        let listening = Arc::new(AtomicBool::new(false));
        let inner = Arc::new(Inner {
            instance,
            channel: channel.clone(),
            prefix: config.prefix.clone(),
            secret,
            keys: Keys {
                current: key,
                older: config.older_keys.clone(),
            },
            commands,
            sharded,
            wait: store_config.wait(),
            ack_timeout: config.ack_timeout,
            listening: Arc::clone(&listening),
            pages: Mutex::new(Vec::new()),
            completions: Mutex::new(Vec::new()),
            acks: Mutex::new(HashMap::new()),
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
                    weak, subscriber, channel, config, listening, stopped, ready,
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
            Some(route) => self
                .inner
                .send(&route.instance, &message)
                .map_err(RouteError::Publish),
            // Not routed: issued by an instance without a relay, which only this one
            // can be if it holds it.
            None => Ok(if self.inner.dispatch(&self.inner.instance, message) {
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

    /// The keys that tag and check what this relay reads from Redis.
    #[cfg_attr(not(feature = "axum"), allow(dead_code))] // the page's, feature `axum`
    pub(crate) fn keys(&self) -> &Keys {
        &self.inner.keys
    }

    /// Takes routed page submissions for this inbox until it is dropped.
    #[cfg_attr(not(feature = "axum"), allow(dead_code))] // the page's, feature `axum`
    pub(crate) fn on_page(&self, inbox: &PageInbox) {
        let mut pages = lock(&self.inner.pages);
        pages.retain(|page| page.strong_count() > 0);
        pages.push(Arc::downgrade(inbox));
    }

    /// Whether `route`'s instance listens on its channel now (`PUBSUB NUMSUB`, or
    /// `SHARDNUMSUB` on Redis Cluster): a page whose owner is gone is refused when it is
    /// opened.
    #[cfg_attr(not(feature = "axum"), allow(dead_code))] // the page's, feature `axum`
    pub(crate) fn is_listening_at(&self, route: &Route) -> Result<bool, StoreError> {
        if route.instance == self.inner.instance {
            return Ok(self.is_listening());
        }
        let channel = format!("{}inst:{}", self.inner.prefix, route.instance);
        let sharded = self.inner.sharded;
        let mut command = redis::cmd("PUBSUB");
        command
            .arg(if sharded { "SHARDNUMSUB" } else { "NUMSUB" })
            .arg(&channel);
        let counts: Vec<(String, i64)> = self.inner.query("asking who listens", command)?;
        Ok(counts.iter().any(|(_, count)| *count > 0))
    }

    /// Hands a page submission to the instance waiting for it and waits (at most
    /// [`RelayConfig::ack_timeout`]) for its acknowledgement that its task took it.
    #[cfg_attr(not(feature = "axum"), allow(dead_code))] // the page's, feature `axum`
    pub(crate) async fn send_page(
        &self,
        route: &Route,
        page: PageMessage,
    ) -> Result<Delivery, StoreError> {
        let mut id = [0u8; 8];
        getrandom::fill(&mut id).map_err(|error| {
            failed(
                "sending a page",
                0,
                Cause::Reply(format!("no randomness: {error}")),
            )
        })?;
        let ack = u64::from_le_bytes(id);
        let (taken, answer) = oneshot::channel();
        lock(&self.inner.acks).insert(ack, (route.instance.clone(), taken));
        let sent = self
            .inner
            .send(&route.instance, &Message::Page { ack, page });
        let delivery = match sent {
            Ok(Delivery::Delivered) => {
                match tokio::time::timeout(self.inner.ack_timeout, answer).await {
                    Ok(Ok(true)) => Delivery::Delivered,
                    _ => Delivery::NotAcknowledged,
                }
            }
            Ok(other) => other,
            Err(error) => {
                lock(&self.inner.acks).remove(&ack);
                return Err(error);
            }
        };
        lock(&self.inner.acks).remove(&ack);
        Ok(delivery)
    }
}

impl fmt::Debug for RedisRelay {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Not the keys, not the address.
        f.debug_struct("RedisRelay")
            .field("instance", &self.inner.instance)
            .field("listening", &self.is_listening())
            .finish_non_exhaustive()
    }
}

impl Inner {
    /// Tags `message` for `to`, seals it for `to`'s key and publishes it on its
    /// channel. The count of receivers says whether `to` listens.
    fn send(&self, to: &str, message: &Message) -> Result<Delivery, StoreError> {
        let envelope = Envelope {
            from: self.instance.clone(),
            message: match message {
                // Only moved into the envelope by reference would need lifetimes;
                // a message is small.
                Message::Page { ack, page } => Message::Page {
                    ack: *ack,
                    page: PageMessage {
                        token: page.token.clone(),
                        action: page.action,
                        content: page.content.clone(),
                        ticket: page.ticket.clone(),
                    },
                },
                Message::Complete { id } => Message::Complete { id: id.clone() },
                Message::Ack { ack, taken } => Message::Ack {
                    ack: *ack,
                    taken: *taken,
                },
            },
        };
        let json = serde_json::to_vec(&envelope)
            .map_err(|error| failed("sealing a message", 0, Cause::Encode(error)))?;
        let payload = seal(&self.keys, to, to, &json)?;
        let receivers = self.publish(format!("{}inst:{to}", self.prefix), payload)?;
        Ok(if receivers > 0 {
            Delivery::Delivered
        } else {
            Delivery::NoListener
        })
    }

    /// `PUBLISH` (or `SPUBLISH`) with bounded retries on transient errors: the count
    /// of receivers.
    fn publish(&self, channel: String, payload: Vec<u8>) -> Result<i64, StoreError> {
        let mut command = redis::cmd(if self.sharded { "SPUBLISH" } else { "PUBLISH" });
        command.arg(&channel).arg(&payload);
        self.query("publishing", command)
    }

    /// Runs `command` with bounded retries on transient errors (a connection that
    /// dropped and is being reconnected).
    fn query<T: redis::FromRedisValue + Send + 'static>(
        &self,
        what: &'static str,
        command: redis::Cmd,
    ) -> Result<T, StoreError> {
        self.commands
            .run(self.wait, move |mut connection| async move {
                let mut tries = 0;
                loop {
                    tries += 1;
                    match command.query_async(&mut connection).await {
                        Ok(reply) => return Ok(reply),
                        // A pause after each failed attempt but the last.
                        Err(error) if transient(&error) && tries < PUBLISH_ATTEMPTS => {
                            tokio::time::sleep(backoff(tries)).await;
                        }
                        Err(error) => return Err(Failed::new(what, tries, Cause::Redis(error))),
                    }
                }
            })
    }

    /// Opens one message from the channel, checks its tag and hands it to whom it is
    /// for. Anything else (a heartbeat, another format, a box sealed for another key,
    /// a tag that fails) is dropped.
    fn receive(&self, payload: &[u8]) {
        if let Some(envelope) = self.open(payload) {
            self.dispatch(&envelope.from, envelope.message);
        }
    }

    /// The envelope in `payload`, if it is sealed for this instance and tagged with
    /// the relay key for it.
    fn open(&self, payload: &[u8]) -> Option<Envelope> {
        open(&self.secret, &self.instance, &self.keys, payload)
    }

    /// Hands a message from `from` to this instance's page or completion hook, or an
    /// acknowledgement to the submission waiting for it; `true` when one took it. A
    /// page submission is acknowledged to its sender either way.
    fn dispatch(&self, from: &str, message: Message) -> bool {
        match message {
            Message::Page { ack, page } => {
                let inboxes: Vec<PageInbox> =
                    lock(&self.pages).iter().filter_map(Weak::upgrade).collect();
                let taken = inboxes.iter().any(|inbox| inbox(&page));
                // The sender waits for this; if it is lost, the sender says the answer
                // was not delivered (while it was): the safe side of the two.
                let _ = self.send(from, &Message::Ack { ack, taken });
                taken
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
            Message::Ack { ack, taken } => {
                let mut acks = lock(&self.acks);
                // Only from the instance the submission was sent to.
                if acks.get(&ack).is_some_and(|(to, _)| to == from) {
                    if let Some((_, waiting)) = acks.remove(&ack) {
                        return waiting.send(taken).is_ok();
                    }
                }
                false
            }
        }
    }
}

/// The payload published on the channel of the instance `sealed_for` (its id, the hex of
/// its public key): the format byte, then one sealed box for that key holding the tag
/// of `json` for the instance `tagged_for` under the current key, then `json`. An
/// instance always seals for the one it tags for; the two are apart only for the fuzz
/// target's misaddressed messages ([`RelayEnd`]).
fn seal(
    keys: &Keys,
    tagged_for: &str,
    sealed_for: &str,
    json: &[u8],
) -> Result<Vec<u8>, StoreError> {
    let tag = keys.tag(Purpose::Message, &[tagged_for.as_bytes(), json]);
    let mut plain = Vec::with_capacity(TAG_LEN + json.len());
    plain.extend_from_slice(&tag);
    plain.extend_from_slice(json);
    let key = unhex32(sealed_for).ok_or_else(|| {
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
    plain.fill(0);
    let mut payload = Vec::with_capacity(1 + sealed.len());
    payload.push(FORMAT);
    payload.extend_from_slice(&sealed);
    Ok(payload)
}

/// The envelope in `payload`, if it is sealed for the instance `instance` (whose secret
/// key is `secret`) and tagged for it under one of `keys`: what an instance runs on
/// every payload of its channel before anything is acted on.
fn open(secret: &SecretKey, instance: &str, keys: &Keys, payload: &[u8]) -> Option<Envelope> {
    let (&FORMAT, sealed) = payload.split_first()? else {
        return None;
    };
    let plain = secret.unseal(sealed).ok()?;
    if plain.len() < TAG_LEN {
        return None;
    }
    let (tag, json) = plain.split_at(TAG_LEN);
    if !keys.verify(Purpose::Message, &[instance.as_bytes(), json], tag) {
        return None;
    }
    serde_json::from_slice::<Envelope>(json).ok()
}

/// Not a public API (hidden; it changes without notice): an instance's two ends of the
/// relay without Redis, for the fuzz target `relay_message` in `fuzz/`. It seals with
/// the function an instance publishes with and opens with the one an instance runs on
/// every payload arriving on its channel, so the target feeds hostile bytes to the
/// very check that stands between Redis and what an instance acts on.
#[doc(hidden)]
pub struct RelayEnd {
    secret: SecretKey,
    instance: String,
    keys: Keys,
}

impl RelayEnd {
    /// The instance whose X25519 secret key is `secret`, tagging with `key` and also
    /// accepting `older` keys (a rotation).
    pub fn new(secret: [u8; 32], key: RelayKey, older: Vec<RelayKey>) -> Self {
        let secret = SecretKey::from(secret);
        RelayEnd {
            instance: hex(secret.public_key().as_bytes()),
            secret,
            keys: Keys {
                current: key,
                older,
            },
        }
    }

    /// Its id: the hex of its public key, as [`RedisRelay::instance_id`].
    pub fn instance_id(&self) -> &str {
        &self.instance
    }

    /// What this instance publishes to the instance `to` for the envelope `json` (the
    /// bytes the relay tags: `{"f": sender id, "m": message}`): `None` when `to` is no
    /// public key.
    pub fn seal_for(&self, to: &str, json: &[u8]) -> Option<Vec<u8>> {
        seal(&self.keys, to, to, json).ok()
    }

    /// A payload no instance sends: tagged for `tagged_for` but sealed for `sealed_for`
    /// (a message moved from one instance's channel to another's).
    pub fn seal_misaddressed(
        &self,
        tagged_for: &str,
        sealed_for: &str,
        json: &[u8],
    ) -> Option<Vec<u8>> {
        seal(&self.keys, tagged_for, sealed_for, json).ok()
    }

    /// What this instance takes from `payload`: the sender's id and the message (as
    /// JSON), or `None` when it is dropped unread.
    pub fn open(&self, payload: &[u8]) -> Option<(String, Value)> {
        let envelope = open(&self.secret, &self.instance, &self.keys, payload)?;
        let message = serde_json::to_value(&envelope.message).ok()?;
        Some((envelope.from, message))
    }
}

impl fmt::Debug for RelayEnd {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RelayEnd")
            .field("instance", &self.instance)
            .finish_non_exhaustive()
    }
}

/// The subscriber: subscribes, reads, checks the connection every `ping_every`, and
/// after a drop (or a connection that stopped answering) subscribes again with a
/// bounded backoff, until the relay is dropped. The first outcome goes to `ready`.
async fn listen(
    relay: Weak<Inner>,
    subscriber: Subscriber,
    channel: String,
    config: RelayConfig,
    listening: Arc<AtomicBool>,
    mut stopped: oneshot::Receiver<()>,
    ready: std::sync::mpsc::SyncSender<Result<(), Failed>>,
) {
    let mut ready = Some(ready);
    let mut failures = 0u32;
    loop {
        let session = Session {
            relay: &relay,
            channel: &channel,
            config: &config,
            listening: &listening,
        };
        let outcome = match &subscriber {
            Subscriber::Server(client) => {
                session
                    .server(client, &mut stopped, &mut ready, &mut failures)
                    .await
            }
            Subscriber::Cluster(nodes) => {
                session
                    .cluster(nodes, &mut stopped, &mut ready, &mut failures)
                    .await
            }
        };
        listening.store(false, Ordering::SeqCst);
        match outcome {
            Ended::Stopped => return,
            Ended::Dropped => {}
            Ended::Failed(failure) => {
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

/// How one subscription ended.
enum Ended {
    /// The relay was closed or dropped.
    Stopped,
    /// The connection dropped, or stopped answering: subscribe again.
    Dropped,
    /// Subscribing failed.
    Failed(Failed),
}

/// One subscription, on one connection.
struct Session<'a> {
    relay: &'a Weak<Inner>,
    channel: &'a str,
    config: &'a RelayConfig,
    listening: &'a AtomicBool,
}

impl Session<'_> {
    /// Subscribed: says so, and to `ready` the first time.
    fn subscribed(
        &self,
        ready: &mut Option<std::sync::mpsc::SyncSender<Result<(), Failed>>>,
        failures: &mut u32,
    ) {
        *failures = 0;
        self.listening.store(true, Ordering::SeqCst);
        if let Some(ready) = ready.take() {
            let _ = ready.send(Ok(()));
        }
    }

    /// On one server: `SUBSCRIBE` on a RESP2 pub/sub connection, a `PING` on it every
    /// `ping_every`.
    async fn server(
        &self,
        client: &redis::Client,
        stopped: &mut oneshot::Receiver<()>,
        ready: &mut Option<std::sync::mpsc::SyncSender<Result<(), Failed>>>,
        failures: &mut u32,
    ) -> Ended {
        let config = self.config;
        let subscribe = async {
            let pubsub = tokio::time::timeout(config.connection_timeout, client.get_async_pubsub())
                .await
                .map_err(|_| Failed::new("subscribing", 1, Cause::NoAnswer))?
                .map_err(|error| Failed::new("subscribing", 1, Cause::Redis(error)))?;
            let (mut sink, stream) = pubsub.split();
            tokio::time::timeout(config.response_timeout, sink.subscribe(self.channel))
                .await
                .map_err(|_| Failed::new("subscribing", 1, Cause::NoAnswer))?
                .map_err(|error| Failed::new("subscribing", 1, Cause::Redis(error)))?;
            Ok::<_, Failed>((sink, stream))
        };
        let Some(subscribed) = or_stop(stopped, subscribe).await else {
            return Ended::Stopped;
        };
        let (mut sink, mut stream) = match subscribed {
            Ok(pair) => pair,
            Err(failure) => return Ended::Failed(failure),
        };
        self.subscribed(ready, failures);
        let mut ticks = tokio::time::interval(config.ping_every);
        ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        ticks.tick().await;
        loop {
            let event = {
                let next = stream.next();
                let tick = ticks.tick();
                futures::pin_mut!(next, tick);
                match or_stop(stopped, select(next, tick)).await {
                    None => return Ended::Stopped,
                    Some(Either::Left((message, _))) => Event::Item(message),
                    Some(Either::Right(_)) => Event::Tick,
                }
            };
            match event {
                // `None`: the connection dropped.
                Event::Item(None) => return Ended::Dropped,
                Event::Item(Some(message)) => {
                    let Some(relay) = self.relay.upgrade() else {
                        return Ended::Stopped;
                    };
                    relay.receive(message.get_payload_bytes());
                }
                Event::Tick => {
                    let ping = tokio::time::timeout(config.response_timeout, sink.ping::<()>());
                    match or_stop(stopped, ping).await {
                        None => return Ended::Stopped,
                        Some(Ok(Ok(()))) => {}
                        // No answer in time, or an error: this connection is given up.
                        Some(_) => return Ended::Dropped,
                    }
                }
            }
        }
    }

    /// On Redis Cluster: `SSUBSCRIBE` on a RESP3 cluster connection whose pushes come
    /// through a channel, and a heartbeat `SPUBLISH`ed on the instance's own channel
    /// every `ping_every`, which must come back before the next one.
    async fn cluster(
        &self,
        nodes: &[redis::ConnectionInfo],
        stopped: &mut oneshot::Receiver<()>,
        ready: &mut Option<std::sync::mpsc::SyncSender<Result<(), Failed>>>,
        failures: &mut u32,
    ) -> Ended {
        let config = self.config;
        let (pushes, mut incoming) = tokio::sync::mpsc::unbounded_channel::<redis::PushInfo>();
        let subscribe = async {
            let client = ClusterClient::builder(nodes.to_vec())
                .use_protocol(redis::ProtocolVersion::RESP3)
                .push_sender(pushes)
                .retries(CLUSTER_RETRIES)
                .response_timeout(config.response_timeout)
                .connection_timeout(config.connection_timeout)
                .build()
                .map_err(|error| Failed::new("subscribing", 1, Cause::Redis(error)))?;
            let mut connection =
                tokio::time::timeout(config.connection_timeout, client.get_async_connection())
                    .await
                    .map_err(|_| Failed::new("subscribing", 1, Cause::NoAnswer))?
                    .map_err(|error| Failed::new("subscribing", 1, Cause::Redis(error)))?;
            tokio::time::timeout(config.response_timeout, connection.ssubscribe(self.channel))
                .await
                .map_err(|_| Failed::new("subscribing", 1, Cause::NoAnswer))?
                .map_err(|error| Failed::new("subscribing", 1, Cause::Redis(error)))?;
            Ok::<_, Failed>(connection)
        };
        let Some(subscribed) = or_stop(stopped, subscribe).await else {
            return Ended::Stopped;
        };
        let mut connection = match subscribed {
            Ok(connection) => connection,
            Err(failure) => return Ended::Failed(failure),
        };
        self.subscribed(ready, failures);
        let mut ticks = tokio::time::interval(config.ping_every);
        ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        ticks.tick().await;
        // A heartbeat sent and not heard back yet.
        let mut awaited = false;
        loop {
            let event = {
                let next = incoming.recv();
                let tick = ticks.tick();
                futures::pin_mut!(next, tick);
                match or_stop(stopped, select(next, tick)).await {
                    None => return Ended::Stopped,
                    Some(Either::Left((push, _))) => Event::Item(push),
                    Some(Either::Right(_)) => Event::Tick,
                }
            };
            match event {
                Event::Item(None) => return Ended::Dropped,
                Event::Item(Some(push)) => {
                    if push.kind != redis::PushKind::SMessage {
                        continue;
                    }
                    let Some(redis::Value::BulkString(payload)) = push.data.get(1) else {
                        continue;
                    };
                    if payload.as_slice() == [HEARTBEAT] {
                        awaited = false;
                        continue;
                    }
                    let Some(relay) = self.relay.upgrade() else {
                        return Ended::Stopped;
                    };
                    relay.receive(payload);
                }
                Event::Tick => {
                    // The last heartbeat never came back: the subscription is deaf.
                    if awaited {
                        return Ended::Dropped;
                    }
                    let beat = redis::cmd("SPUBLISH")
                        .arg(self.channel)
                        .arg(&[HEARTBEAT][..])
                        .clone();
                    let sent = tokio::time::timeout(
                        config.response_timeout,
                        beat.query_async::<i64>(&mut connection),
                    );
                    match or_stop(stopped, sent).await {
                        None => return Ended::Stopped,
                        // Sent: it must come back before the next tick. (A count of
                        // 0, the channel's slot moved to a node this subscription is
                        // not on, means it will not: the next tick ends it.)
                        Some(Ok(Ok(_))) => awaited = true,
                        Some(_) => return Ended::Dropped,
                    }
                }
            }
        }
    }
}

/// What woke a subscription up.
enum Event<M> {
    /// The next message or push; `None` when the connection dropped.
    Item(Option<M>),
    /// Time to check the connection.
    Tick,
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

// The security tests' own `redis-server`, for the unit tests that need a relay.
#[cfg(test)]
#[path = "../../tests/security/redis_server.rs"]
mod redis_server;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_message_never_prints_its_token_or_what_was_typed() {
        let message = PageMessage {
            token: "tok-3f9a1c".to_owned(),
            action: RoutedAction::Accept,
            content: Some(serde_json::json!({ "api_key": "sk-live-secret" })),
            ticket: None,
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

    /// A page's inbox is held weakly: registering one forgets those of the pages that
    /// are gone (not one entry per page ever made, for the life of the instance) and
    /// keeps every live one.
    // covers: E5
    #[test]
    fn registering_a_page_forgets_the_pages_that_are_gone() {
        let Some(server) = redis_server::RedisServer::start() else {
            return;
        };
        let relay = RedisRelay::connect(
            server.url().as_str(),
            RelayKey::from_bytes([1; 32]),
            RelayConfig::new(),
        )
        .expect("the relay connects and subscribes");
        let inbox = || -> PageInbox { Arc::new(|_: &PageMessage| false) };
        let (first, second) = (inbox(), inbox());
        relay.on_page(&first);
        relay.on_page(&second);
        assert_eq!(lock(&relay.inner.pages).len(), 2);
        drop(first);
        let third = inbox();
        relay.on_page(&third);
        let pages = lock(&relay.inner.pages).clone();
        assert_eq!(pages.len(), 2);
        assert!(pages.iter().all(|page| page.strong_count() == 1));
        relay.close();
    }

    /// A sealed box for this instance that is too short to hold a tag is dropped,
    /// never read past its end.
    // covers: S6
    #[test]
    fn a_box_shorter_than_a_tag_is_dropped() {
        let secret = SecretKey::from([4u8; 32]);
        let instance = hex(secret.public_key().as_bytes());
        let keys = Keys {
            current: RelayKey::from_bytes([1; 32]),
            older: Vec::new(),
        };
        for plain in [&b""[..], &[7u8; TAG_LEN - 1][..]] {
            let sealed = secret.public_key().seal(&mut OsRandom, plain).unwrap();
            let mut payload = vec![FORMAT];
            payload.extend_from_slice(&sealed);
            assert!(open(&secret, &instance, &keys, &payload).is_none());
        }
        // What an instance seals for itself opens.
        let json = br#"{"f":"x","m":{"Complete":{"id":"e-1"}}}"#;
        let payload = seal(&keys, &instance, &instance, json).unwrap();
        assert!(open(&secret, &instance, &keys, &payload).is_some());
    }

    /// Every way `crypto_box` may draw from the operating system's random source gives
    /// fresh bytes.
    // covers: S1
    #[test]
    fn the_random_source_gives_fresh_bytes_through_every_method() {
        let mut random = OsRandom;
        let words: Vec<u64> = (0..4).map(|_| random.next_u64()).collect();
        assert!(words.windows(2).any(|pair| pair[0] != pair[1]), "{words:?}");
        let halves: Vec<u32> = (0..4).map(|_| random.next_u32()).collect();
        assert!(
            halves.windows(2).any(|pair| pair[0] != pair[1]),
            "{halves:?}"
        );
        let mut filled = [0u8; 32];
        random.fill_bytes(&mut filled);
        let mut tried = [0u8; 32];
        random.try_fill_bytes(&mut tried).unwrap();
        assert_ne!(filled, [0; 32]);
        assert_ne!(tried, [0; 32]);
        assert_ne!(filled, tried);
    }
}
