//! [`RedisStore`]: the [`Store`] of an agent that runs as several instances, in Redis
//! (feature `redis`). The guide is on the type.

use std::error::Error;
use std::fmt;
use std::future::Future;
use std::marker::PhantomData;
use std::pin::Pin;
use std::sync::mpsc as std_mpsc;
use std::sync::{Arc, LazyLock};
use std::time::Duration;

use redis::aio::{ConnectionLike, ConnectionManager, ConnectionManagerConfig};
use redis::cluster::ClusterClient;
use redis::cluster_async::ClusterConnection;
use redis::{
    Cmd, IntoConnectionInfo, Pipeline, RedisError, RedisFuture, RetryMethod, Script, Value,
};
use serde::de::DeserializeOwned;
use serde::Serialize;
use tokio::sync::mpsc;

use super::store::{Store, StoreError};

/// Characters of the write token in front of every stored record.
const TOKEN_LEN: usize = 32;

/// The compare-and-swap, run by Redis as one step. `KEYS[1]`: the key; `ARGV[1]`: the
/// expected record (JSON, after the write token); `ARGV[2]`: the new value (token and
/// JSON), empty to delete; `ARGV[3]`: the TTL in milliseconds. Returns 1 when it
/// swapped, 0 when the key is absent, and the stored value when it differs.
const CAS_LUA: &str = r"
local stored = redis.call('GET', KEYS[1])
if not stored then
  return 0
end
if string.sub(stored, 33) ~= ARGV[1] then
  return stored
end
if ARGV[2] == '' then
  redis.call('DEL', KEYS[1])
else
  redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
end
return 1
";

/// The script, hashed once; `invoke_async` sends `EVALSHA` and loads it on `NOSCRIPT`.
static CAS_SCRIPT: LazyLock<Script> = LazyLock::new(|| Script::new(CAS_LUA));

/// How a [`RedisStore`] names, keeps and retries: the key prefix, the records' time to
/// live, the bounded number of attempts and the timeouts of one attempt.
#[derive(Debug, Clone, PartialEq, Eq)]
#[must_use]
pub struct RedisConfig {
    prefix: String,
    ttl: Duration,
    attempts: u32,
    response_timeout: Duration,
    connection_timeout: Duration,
}

impl RedisConfig {
    /// The key prefix unless set otherwise.
    pub const DEFAULT_PREFIX: &str = "elicit:";

    /// The time to live of a record unless set otherwise: one day.
    pub const DEFAULT_TTL: Duration = Duration::from_secs(24 * 60 * 60);

    /// Prefix [`RedisConfig::DEFAULT_PREFIX`], TTL [`RedisConfig::DEFAULT_TTL`], 3 attempts, 2 s to answer and
    /// 2 s to connect.
    pub fn new() -> Self {
        RedisConfig {
            prefix: Self::DEFAULT_PREFIX.to_owned(),
            ttl: Self::DEFAULT_TTL,
            attempts: 3,
            response_timeout: Duration::from_secs(2),
            connection_timeout: Duration::from_secs(2),
        }
    }

    /// What every key starts with, to keep this agent's records apart from everything
    /// else in the database (default [`RedisConfig::DEFAULT_PREFIX`]). Use a prefix of its own per
    /// kind of record ([`RedisStore::with_prefix`]) and per agent sharing one Redis.
    pub fn prefix(mut self, prefix: impl Into<String>) -> Self {
        self.prefix = prefix.into();
        self
    }

    /// How long a record lives after its last write (default [`RedisConfig::DEFAULT_TTL`]); Redis
    /// removes it then. Rounded up to whole milliseconds, at least one.
    pub fn ttl(mut self, ttl: Duration) -> Self {
        self.ttl = ttl;
        self
    }

    /// Attempts per operation on transient errors, at least 1 (default 3).
    pub fn attempts(mut self, attempts: u32) -> Self {
        self.attempts = attempts.max(1);
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

    /// The key prefix.
    pub fn key_prefix(&self) -> &str {
        &self.prefix
    }

    /// The records' time to live.
    pub fn time_to_live(&self) -> Duration {
        self.ttl
    }

    fn ttl_millis(&self) -> u64 {
        let millis = self.ttl.as_nanos().div_ceil(1_000_000);
        u64::try_from(millis).unwrap_or(u64::MAX).max(1)
    }

    /// The longest a caller waits for one operation: every attempt timing out on
    /// connecting and answering, the backoffs, and a margin.
    pub(super) fn wait(&self) -> Duration {
        let per_attempt = self.response_timeout + self.connection_timeout + MAX_BACKOFF;
        per_attempt * self.attempts * 2 + Duration::from_secs(1)
    }
}

impl Default for RedisConfig {
    fn default() -> Self {
        Self::new()
    }
}

/// A [`Store`] in Redis, for an agent that runs as several instances (feature `redis`).
/// Cheap to clone: clones share one connection (and its thread).
///
/// An agent behind a load balancer serves one user's URL elicitation on whichever
/// instance the next request lands on: the `elicitation/create` goes out from one, the
/// browser's callback or the secure page's submission reaches another. The
/// [`UrlRegistry`](super::UrlRegistry) and the secure page
/// (`elicit::axum::SecurePage`, feature `axum`) keep their state in a [`Store`];
/// give every instance a `RedisStore` on the same Redis and they share it.
///
/// ```no_run
/// use elicit::agent::{RedisConfig, RedisStore, RegistryLimits, UrlEntry, UrlRegistry};
/// use std::time::Duration;
///
/// let config = RedisConfig::new()
///     .prefix("myagent:url:")
///     .ttl(Duration::from_secs(6 * 60 * 60));
/// let store: RedisStore<UrlEntry> = RedisStore::connect("redis://127.0.0.1:6379/", config)?;
/// let registry = UrlRegistry::with_store(store.clone(), RegistryLimits::DEFAULT);
/// // The secure page's tokens on the same connection, under a prefix of their own:
/// // `SecurePage::builder().store(store.with_prefix::<PageTicket>("myagent:page:"))`.
/// # let _ = registry;
/// # Ok::<(), elicit::agent::StoreError>(())
/// ```
///
/// # What is in Redis
///
/// One string key per record: the configured prefix (default [`RedisConfig::DEFAULT_PREFIX`],
/// `elicit:`) and the id the crate minted (an `elicitationId`; for a page, a digest of
/// its token, `PageTicket::store_key`, so that no live link is a key name). The value
/// is a 32-character write token, fresh for every write, followed by the record as
/// JSON. **Every key has a time to live**, set by Redis itself on each write
/// (`SET … PX`), so nothing outlives [`RedisConfig::ttl`] (default one day) even if
/// every instance of the agent crashed: a record that expires reads as absent, and the
/// elicitation or page it belonged to is refused as unknown, never accepted. Choose a
/// TTL longer than an elicitation may stay open. The store never lists keys (no `KEYS`,
/// no `SCAN`).
///
/// # The three operations
///
/// - [`insert_new`](Store::insert_new) is `SET key value NX PX ttl`: one command, so of
///   two instances inserting one key exactly one is told `true`.
/// - [`get`](Store::get) is `GET`.
/// - [`compare_and_swap`](Store::compare_and_swap) is a Lua script (held in a static
///   [`redis::Script`](::redis::Script), sent as `EVALSHA` and loaded again when Redis answers
///   `NOSCRIPT`, after a restart) that reads the key, compares the stored record with
///   the expected one and replaces (`SET … PX`, renewing the TTL) or deletes it, all
///   inside Redis, where no other command runs in between. It touches one key only, as
///   Redis Cluster requires of a script.
///
/// # Failures
///
/// A Redis that cannot answer is always an error ([`StoreError`], whose
/// [`source`](std::error::Error::source) chain ends at the [`redis::RedisError`](::redis::RedisError)), never
/// a success; the registry and the page then refuse what was asked. Transient errors
/// (a dropped connection, a timeout, `LOADING`, `TRYAGAIN`) are retried a bounded number
/// of times ([`RedisConfig::attempts`], default 3) with a short backoff, while the
/// connection, a redis-rs [`ConnectionManager`](redis::aio::ConnectionManager) (on a
/// cluster, its cluster connection), reconnects in the background. A write whose answer was lost may or may not have
/// happened, so it is never simply sent again blind:
///
/// - an `insert_new` is followed by a `GET`: the record carries this call's write token
///   if the lost `SET` happened (`true`), another's if someone else got there (`false`);
///   only an absent key is written again.
/// - a `compare_and_swap` runs the script again, which reads before it writes: the
///   record carrying this call's write token means the lost attempt won (`true`). The
///   one case that cannot be told apart is a removal (`new` = `None`) whose answer was
///   lost and whose key is gone (removed by this call, or by another writer): that is an
///   error saying the outcome is unknown, not a success.
///
/// Records are compared as the JSON this store writes. Should a record written by
/// another version of the agent differ in bytes but be equal as a value, the swap is
/// tried again against the stored bytes, so it is not lost to a formatting change.
///
/// # Calls block
///
/// [`Store`] is a synchronous interface (the registry's and the page's operations are
/// synchronous), so each call waits for Redis's answer: a round trip on a local
/// network, and at most about `attempts × (response timeout + connection timeout)` when
/// Redis is unreachable. The connection itself lives on a thread of its own with a
/// small tokio runtime, so calls work alike from plain threads and from inside any
/// tokio runtime (on a multi-threaded runtime such a call occupies its worker thread
/// for that time, as any short blocking call does). Calls from many threads share the
/// one multiplexed connection and are pipelined on it.
///
/// # Versions and deployments
///
/// Tested against Redis 7.0.15 (Debian's `redis-server`), a single server and a Redis
/// Cluster of three primaries; the commands used exist since Redis 2.6.12
/// (`SET … NX PX`, `EVALSHA`). [`connect`](Self::connect) takes one address (a single
/// server, or a primary with replicas behind one address); on a cluster,
/// [`connect_cluster`](Self::connect_cluster) routes every command and script to the
/// node of its key's slot. Each touches exactly one key, so none can span slots.
pub struct RedisStore<V> {
    connection: Arc<Connection>,
    config: Arc<RedisConfig>,
    values: PhantomData<fn(V) -> V>,
}

impl<V> RedisStore<V> {
    /// Connects to the Redis at `address` (`redis://[user:password@]host:port/db`, or
    /// anything else redis-rs accepts) and checks that it answers. Fails with the
    /// cause when the address is invalid or the server cannot be reached within the
    /// connection timeout.
    pub fn connect(
        address: impl IntoConnectionInfo,
        config: RedisConfig,
    ) -> Result<Self, StoreError> {
        let client = redis::Client::open(address)
            .map_err(|error| failed("connecting", 1, Cause::Redis(error)))?;
        Self::start(Target::Server(client), config)
    }

    /// Connects to a Redis Cluster through any of its `nodes` (each an address as for
    /// [`connect`](Self::connect)), and checks that it answers. Each command and script
    /// goes to the node that holds its key, following `MOVED` and `ASK` redirections.
    pub fn connect_cluster<A: IntoConnectionInfo>(
        nodes: impl IntoIterator<Item = A>,
        config: RedisConfig,
    ) -> Result<Self, StoreError> {
        let client = ClusterClient::builder(nodes)
            .retries(CLUSTER_RETRIES)
            .response_timeout(config.response_timeout)
            .connection_timeout(config.connection_timeout)
            .build()
            .map_err(|error| failed("connecting", 1, Cause::Redis(error)))?;
        Self::start(Target::Cluster(Box::new(client)), config)
    }

    fn start(target: Target, config: RedisConfig) -> Result<Self, StoreError> {
        let connection = Connection::start(target, &config)?;
        Ok(RedisStore {
            connection: Arc::new(connection),
            config: Arc::new(config),
            values: PhantomData,
        })
    }

    /// A store of other records on the same connection, with the same settings but
    /// its own key prefix: one connection serves both the registry and the secure page.
    pub fn with_prefix<W>(&self, prefix: impl Into<String>) -> RedisStore<W> {
        RedisStore {
            connection: Arc::clone(&self.connection),
            config: Arc::new(RedisConfig::clone(&self.config).prefix(prefix)),
            values: PhantomData,
        }
    }

    /// The same store (same connection, same prefix) whose records live `ttl` after
    /// their last write, for a kind of record with a lifetime of its own (the used rounds
    /// of `Rounds::at_most_once_in_redis`, feature `rmcp_3`). Rounded up to whole
    /// milliseconds, at least one, as [`RedisConfig::ttl`].
    #[must_use]
    pub fn with_ttl(&self, ttl: Duration) -> RedisStore<V> {
        RedisStore {
            connection: Arc::clone(&self.connection),
            config: Arc::new(RedisConfig::clone(&self.config).ttl(ttl)),
            values: PhantomData,
        }
    }

    /// The settings, prefix and TTL included.
    pub fn config(&self) -> &RedisConfig {
        &self.config
    }

    fn key(&self, key: &str) -> String {
        let mut full = String::with_capacity(self.config.prefix.len() + key.len());
        full.push_str(&self.config.prefix);
        full.push_str(key);
        full
    }
}

impl<V> Clone for RedisStore<V> {
    fn clone(&self) -> Self {
        RedisStore {
            connection: Arc::clone(&self.connection),
            config: Arc::clone(&self.config),
            values: PhantomData,
        }
    }
}

impl<V> fmt::Debug for RedisStore<V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Not the address: it may carry a password.
        f.debug_struct("RedisStore")
            .field("prefix", &self.config.prefix)
            .field("ttl", &self.config.ttl)
            .field("attempts", &self.config.attempts)
            .finish_non_exhaustive()
    }
}

impl<V> Store<V> for RedisStore<V>
where
    V: Serialize + DeserializeOwned + Clone + PartialEq + Send + 'static,
{
    fn insert_new(&self, key: &str, value: V) -> Result<bool, StoreError> {
        let token = write_token()?;
        let payload = encode(&token, &value)?;
        let key = self.key(key);
        let (ttl, attempts) = (self.config.ttl_millis(), self.config.attempts);
        self.connection
            .run(self.config.wait(), move |connection| async move {
                insert(connection, key, token, payload, ttl, attempts).await
            })
    }

    fn get(&self, key: &str) -> Result<Option<V>, StoreError> {
        let key = self.key(key);
        let attempts = self.config.attempts;
        self.connection
            .run(self.config.wait(), move |connection| async move {
                let stored = get(connection, key, attempts).await?;
                stored.map(|stored| decode::<V>(&stored)).transpose()
            })
    }

    fn compare_and_swap(&self, key: &str, current: &V, new: Option<V>) -> Result<bool, StoreError> {
        let token = write_token()?;
        let expected = serde_json::to_vec(current)
            .map_err(|error| failed("compare-and-swap", 0, Cause::Encode(error)))?;
        let new = new.map(|new| encode(&token, &new)).transpose()?;
        let swap = Swap {
            key: self.key(key),
            token,
            expected,
            current: current.clone(),
            new,
            ttl: self.config.ttl_millis(),
            attempts: self.config.attempts,
        };
        self.connection
            .run(self.config.wait(), move |connection| swap.run(connection))
    }
}

/// The longest pause between two attempts.
const MAX_BACKOFF: Duration = Duration::from_millis(200);

/// The pause before attempt `attempt` (1-based retries): 25 ms, 50 ms, 100 ms, ...
pub(super) fn backoff(attempt: u32) -> Duration {
    let millis = 25u64.saturating_mul(1u64 << attempt.saturating_sub(1).min(16));
    Duration::from_millis(millis).min(MAX_BACKOFF)
}

/// Whether an error may pass if the command is sent again: a dropped or refused
/// connection, a timeout, a server that is loading, failing over or asks to try again.
pub(super) fn transient(error: &RedisError) -> bool {
    error.is_timeout()
        || matches!(
            error.retry_method(),
            RetryMethod::Reconnect | RetryMethod::RetryImmediately | RetryMethod::WaitAndRetry
        )
}

/// `GET`, repeated on transient errors: a read can be sent again as it is.
async fn get(mut connection: Conn, key: String, attempts: u32) -> Result<Option<Vec<u8>>, Failed> {
    let mut tries = 0;
    loop {
        if tries > 0 {
            tokio::time::sleep(backoff(tries)).await;
        }
        tries += 1;
        match get_raw(&mut connection, &key).await {
            Ok(stored) => return Ok(stored),
            Err(error) if transient(&error) && tries < attempts => {}
            Err(error) => return Err(Failed::new("reading a record", tries, Cause::Redis(error))),
        }
    }
}

async fn get_raw(connection: &mut Conn, key: &str) -> Result<Option<Vec<u8>>, RedisError> {
    redis::cmd("GET").arg(key).query_async(connection).await
}

/// `SET NX PX`; after a lost answer, a `GET` tells whether that write happened.
async fn insert(
    mut connection: Conn,
    key: String,
    token: String,
    payload: Vec<u8>,
    ttl: u64,
    attempts: u32,
) -> Result<bool, Failed> {
    const WHAT: &str = "inserting a record";
    let mut uncertain = false;
    let mut tries = 0;
    loop {
        if tries > 0 {
            tokio::time::sleep(backoff(tries)).await;
        }
        tries += 1;
        if uncertain {
            match get_raw(&mut connection, &key).await {
                Ok(Some(stored)) => return Ok(stored.starts_with(token.as_bytes())),
                Ok(None) => {}
                Err(error) if transient(&error) && tries < attempts => continue,
                Err(error) => return Err(Failed::new(WHAT, tries, Cause::Redis(error))),
            }
        }
        let reply: Result<Value, RedisError> = redis::cmd("SET")
            .arg(&key)
            .arg(&payload)
            .arg("NX")
            .arg("PX")
            .arg(ttl)
            .query_async(&mut connection)
            .await;
        match reply {
            // redis-rs reads the `+OK` of RESP2 and RESP3 alike as `Value::Okay`.
            Ok(Value::Okay) => return Ok(true),
            // Refused: the key exists. After a lost answer it may hold this call's
            // own earlier write, landed late: its token tells.
            Ok(Value::Nil) if uncertain => {
                return match get_raw(&mut connection, &key).await {
                    Ok(stored) => {
                        Ok(stored.is_some_and(|stored| stored.starts_with(token.as_bytes())))
                    }
                    Err(error) => Err(Failed::new(WHAT, tries, Cause::Redis(error))),
                };
            }
            Ok(Value::Nil) => return Ok(false),
            Ok(other) => return Err(Failed::new(WHAT, tries, Cause::Reply(format!("{other:?}")))),
            Err(error) if transient(&error) && tries < attempts => uncertain = true,
            Err(error) => return Err(Failed::new(WHAT, tries, Cause::Redis(error))),
        }
    }
}

/// One compare-and-swap, with what it needs to retry and to read its own outcome.
struct Swap<V> {
    key: String,
    token: String,
    /// The JSON the stored record must equal (after its write token).
    expected: Vec<u8>,
    current: V,
    /// The new stored value (token and JSON); `None` deletes.
    new: Option<Vec<u8>>,
    ttl: u64,
    attempts: u32,
}

impl<V: DeserializeOwned + PartialEq> Swap<V> {
    async fn run(mut self, mut connection: Conn) -> Result<bool, Failed> {
        const WHAT: &str = "compare-and-swap";
        let mut uncertain = false;
        let mut tries = 0;
        loop {
            // Once an attempt has failed (which is what sets `uncertain`, so `tries` is
            // at least 1); until then a re-swap against another writer's bytes goes at once.
            if uncertain {
                tokio::time::sleep(backoff(tries)).await;
            }
            tries += 1;
            let reply: Result<Value, RedisError> = CAS_SCRIPT
                .key(&self.key)
                .arg(&self.expected)
                .arg(self.new.as_deref().unwrap_or_default())
                .arg(self.ttl)
                .invoke_async(&mut connection)
                .await;
            match reply {
                Ok(Value::Int(1)) => return Ok(true),
                Ok(Value::Int(0)) if uncertain && self.new.is_none() => {
                    return Err(Failed::new(WHAT, tries, Cause::UnknownOutcome));
                }
                Ok(Value::Int(0)) => return Ok(false),
                Ok(Value::BulkString(stored)) => {
                    // An earlier attempt whose answer was lost did swap.
                    if stored.starts_with(self.token.as_bytes()) {
                        return Ok(true);
                    }
                    let record = &stored[TOKEN_LEN.min(stored.len())..];
                    // Equal as a value, different as bytes (another writer's JSON):
                    // swap against the stored bytes.
                    if decode::<V>(&stored)? == self.current && tries < self.attempts {
                        self.expected = record.to_vec();
                        continue;
                    }
                    return Ok(false);
                }
                Ok(other) => {
                    return Err(Failed::new(WHAT, tries, Cause::Reply(format!("{other:?}"))))
                }
                Err(error) if transient(&error) && tries < self.attempts => uncertain = true,
                Err(error) => return Err(Failed::new(WHAT, tries, Cause::Redis(error))),
            }
        }
    }
}

/// A fresh write token: 128 bits from the operating system, as 32 hex digits.
fn write_token() -> Result<String, StoreError> {
    let mut bytes = [0u8; TOKEN_LEN / 2];
    getrandom::fill(&mut bytes).map_err(|error| {
        failed(
            "making a write token",
            0,
            Cause::Reply(format!("no randomness: {error}")),
        )
    })?;
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut token = String::with_capacity(TOKEN_LEN);
    for byte in bytes {
        token.push(char::from(HEX[usize::from(byte >> 4)]));
        token.push(char::from(HEX[usize::from(byte & 0x0f)]));
    }
    Ok(token)
}

fn encode<V: Serialize>(token: &str, value: &V) -> Result<Vec<u8>, StoreError> {
    let mut payload = token.as_bytes().to_vec();
    serde_json::to_writer(&mut payload, value)
        .map_err(|error| failed("writing a record", 0, Cause::Encode(error)))?;
    Ok(payload)
}

/// A stored value: the write token, then the record's JSON.
fn decode<V: DeserializeOwned>(stored: &[u8]) -> Result<V, Failed> {
    const WHAT: &str = "reading a record";
    let well_formed =
        stored.len() > TOKEN_LEN && stored[..TOKEN_LEN].iter().all(u8::is_ascii_hexdigit);
    if !well_formed {
        return Err(Failed::new(WHAT, 1, Cause::Malformed(None)));
    }
    serde_json::from_slice(&stored[TOKEN_LEN..])
        .map_err(|error| Failed::new(WHAT, 1, Cause::Malformed(Some(error))))
}

/// A record as [`RedisStore`] writes it (a fresh write token, then the JSON): for the
/// page's fuzz hook (`axum::StoredTicket`), which has no Redis.
#[cfg(feature = "axum")]
pub(crate) fn record_bytes<V: Serialize>(value: &V) -> Option<Vec<u8>> {
    encode(&write_token().ok()?, value).ok()
}

/// A record read from the bytes Redis holds, as [`RedisStore`]'s `get` reads it.
#[cfg(feature = "axum")]
pub(crate) fn read_record<V: DeserializeOwned>(stored: &[u8]) -> Option<V> {
    decode(stored).ok()
}

/// Retries of the cluster client itself (redirections, a node that moved): the store's
/// own bounded attempts come on top.
const CLUSTER_RETRIES: u32 = 3;

/// What to connect to.
pub(super) enum Target {
    Server(redis::Client),
    Cluster(Box<ClusterClient>),
}

/// The connection the operations run on: a [`ConnectionManager`] to one server, or a
/// cluster connection that routes each command by its key. Both multiplex and are
/// cheap to clone.
#[derive(Clone)]
pub(super) enum Conn {
    Server(ConnectionManager),
    Cluster(ClusterConnection),
}

impl ConnectionLike for Conn {
    fn req_packed_command<'a>(&'a mut self, cmd: &'a Cmd) -> RedisFuture<'a, Value> {
        match self {
            Conn::Server(connection) => connection.req_packed_command(cmd),
            Conn::Cluster(connection) => connection.req_packed_command(cmd),
        }
    }

    fn req_packed_commands<'a>(
        &'a mut self,
        pipeline: &'a Pipeline,
        offset: usize,
        count: usize,
    ) -> RedisFuture<'a, Vec<Value>> {
        match self {
            Conn::Server(connection) => connection.req_packed_commands(pipeline, offset, count),
            Conn::Cluster(connection) => connection.req_packed_commands(pipeline, offset, count),
        }
    }

    fn get_db(&self) -> i64 {
        match self {
            Conn::Server(connection) => connection.get_db(),
            Conn::Cluster(connection) => connection.get_db(),
        }
    }
}

/// The connection's own thread: a current-thread tokio runtime holding the
/// connection, running each operation as a task of its own.
pub(super) struct Connection {
    jobs: mpsc::UnboundedSender<Job>,
}

type Job = Box<dyn FnOnce(Conn) -> Pin<Box<dyn Future<Output = ()> + Send>> + Send>;

impl Connection {
    pub(super) fn start(target: Target, config: &RedisConfig) -> Result<Self, StoreError> {
        // The manager's own reconnection is kept short (one retry, short delays): the
        // store's bounded attempts do the retrying, and a down Redis must fail fast.
        let manager_config = ConnectionManagerConfig::new()
            .set_number_of_retries(1)
            .set_min_delay(Duration::from_millis(25))
            .set_max_delay(MAX_BACKOFF)
            .set_response_timeout(Some(config.response_timeout))
            .set_connection_timeout(Some(config.connection_timeout));
        let (jobs, mut incoming) = mpsc::unbounded_channel::<Job>();
        let (ready, started) = std_mpsc::sync_channel::<Result<(), Failed>>(1);
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|error| failed("connecting", 1, Cause::Thread(error)))?;
        std::thread::Builder::new()
            .name("elicit-redis".to_owned())
            .spawn(move || {
                runtime.block_on(async move {
                    let opened = match target {
                        Target::Server(client) => {
                            ConnectionManager::new_with_config(client, manager_config)
                                .await
                                .map(Conn::Server)
                        }
                        Target::Cluster(client) => {
                            client.get_async_connection().await.map(Conn::Cluster)
                        }
                    };
                    let manager = match opened {
                        Ok(manager) => manager,
                        Err(error) => {
                            let _ =
                                ready.send(Err(Failed::new("connecting", 1, Cause::Redis(error))));
                            return;
                        }
                    };
                    let _ = ready.send(Ok(()));
                    // Ends when every store sharing this connection is dropped.
                    while let Some(job) = incoming.recv().await {
                        tokio::spawn(job(manager.clone()));
                    }
                });
            })
            .map_err(|error| failed("connecting", 1, Cause::Thread(error)))?;
        match started.recv_timeout(config.wait()) {
            Ok(Ok(())) => Ok(Connection { jobs }),
            Ok(Err(failure)) => Err(StoreError::new(failure)),
            Err(_) => Err(failed("connecting", 1, Cause::NoAnswer)),
        }
    }

    /// Runs `operation` on the connection's thread and waits at most `wait` for it.
    pub(super) fn run<T, F, Fut>(&self, wait: Duration, operation: F) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: FnOnce(Conn) -> Fut + Send + 'static,
        Fut: Future<Output = Result<T, Failed>> + Send + 'static,
    {
        let (reply, answer) = std_mpsc::sync_channel(1);
        let job: Job = Box::new(move |manager| {
            Box::pin(async move {
                let _ = reply.send(operation(manager).await);
            })
        });
        if self.jobs.send(job).is_err() {
            return Err(failed("sending a command", 0, Cause::NoAnswer));
        }
        match answer.recv_timeout(wait) {
            Ok(result) => result.map_err(StoreError::new),
            Err(_) => Err(failed("waiting for Redis", 0, Cause::NoAnswer)),
        }
    }
}

pub(super) fn failed(what: &'static str, tries: u32, cause: Cause) -> StoreError {
    StoreError::new(Failed::new(what, tries, cause))
}

/// Why an operation of a [`RedisStore`] failed: the [`StoreError`]'s source.
#[derive(Debug)]
pub(super) struct Failed {
    what: &'static str,
    tries: u32,
    cause: Cause,
}

#[derive(Debug)]
pub(super) enum Cause {
    /// Redis answered with an error, or could not be reached.
    Redis(RedisError),
    /// Redis answered something these commands never return.
    Reply(String),
    /// A stored value that is not a write token and a record of the expected type.
    Malformed(Option<serde_json::Error>),
    /// The record could not be serialized.
    Encode(serde_json::Error),
    /// A removal's answer was lost and the key is gone: by this call or another.
    UnknownOutcome,
    /// The connection's thread did not answer in time, or is gone.
    NoAnswer,
    /// The connection's thread or runtime could not be started.
    Thread(std::io::Error),
}

impl Failed {
    pub(super) fn new(what: &'static str, tries: u32, cause: Cause) -> Self {
        Failed { what, tries, cause }
    }
}

impl fmt::Display for Failed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "redis: {} failed", self.what)?;
        if self.tries > 1 {
            write!(f, " after {} attempts", self.tries)?;
        }
        match &self.cause {
            Cause::Redis(_) => f.write_str(": the server could not answer or refused"),
            Cause::Reply(reply) => write!(f, ": unexpected reply {reply}"),
            Cause::Malformed(_) => f.write_str(": the stored value is not a record of this store"),
            Cause::Encode(_) => f.write_str(": the record could not be serialized"),
            Cause::UnknownOutcome => f.write_str(
                ": the answer was lost and the key is gone, so whether this removal did it is unknown",
            ),
            Cause::NoAnswer => f.write_str(": the connection's thread did not answer"),
            Cause::Thread(_) => f.write_str(": the connection's thread could not start"),
        }
    }
}

impl Error for Failed {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        match &self.cause {
            Cause::Redis(error) => Some(error),
            Cause::Malformed(Some(error)) | Cause::Encode(error) => Some(error),
            Cause::Thread(error) => Some(error),
            Cause::Malformed(None) | Cause::Reply(_) | Cause::UnknownOutcome | Cause::NoAnswer => {
                None
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_grows_and_is_bounded() {
        assert_eq!(backoff(1), Duration::from_millis(25));
        assert_eq!(backoff(2), Duration::from_millis(50));
        assert_eq!(backoff(3), Duration::from_millis(100));
        assert_eq!(backoff(40), MAX_BACKOFF);
    }

    #[test]
    fn ttl_rounds_up_to_a_millisecond() {
        assert_eq!(
            RedisConfig::new()
                .ttl(Duration::from_micros(1))
                .ttl_millis(),
            1
        );
        assert_eq!(RedisConfig::new().ttl(Duration::ZERO).ttl_millis(), 1);
        assert_eq!(
            RedisConfig::new()
                .ttl(Duration::from_micros(1500))
                .ttl_millis(),
            2
        );
        assert_eq!(RedisConfig::new().ttl_millis(), 86_400_000);
        assert_eq!(RedisConfig::new().attempts(0).attempts, 1);
    }

    #[test]
    fn records_round_trip_and_malformed_values_are_errors() {
        let token = write_token().unwrap();
        assert_eq!(token.len(), TOKEN_LEN);
        let stored = encode(&token, &vec![1u32, 2]).unwrap();
        assert_eq!(decode::<Vec<u32>>(&stored).unwrap(), vec![1, 2]);
        assert!(decode::<Vec<u32>>(b"short").is_err());
        let mut wrong = stored.clone();
        wrong[0] = b'z';
        assert!(decode::<Vec<u32>>(&wrong).is_err());
        let mut bad_json = token.into_bytes();
        bad_json.extend_from_slice(b"{nope");
        assert!(decode::<Vec<u32>>(&bad_json)
            .unwrap_err()
            .source()
            .is_some());
    }

    // covers: R5
    #[test]
    fn a_write_token_alone_is_not_a_record() {
        // Exactly a token and nothing after it: malformed before any JSON is parsed.
        let token = write_token().unwrap();
        let error = decode::<Vec<u32>>(token.as_bytes()).unwrap_err();
        assert!(matches!(error.cause, Cause::Malformed(None)), "{error:?}");
        let mut longer = token.into_bytes();
        longer.push(b'x');
        let error = decode::<Vec<u32>>(&longer).unwrap_err();
        assert!(
            matches!(error.cause, Cause::Malformed(Some(_))),
            "{error:?}"
        );
    }

    // covers: S6
    #[cfg(feature = "axum")]
    #[test]
    fn the_page_reads_records_as_the_store_writes_them() {
        let stored = record_bytes(&vec![3u32, 4]).unwrap();
        assert!(stored.len() > TOKEN_LEN);
        assert!(stored[..TOKEN_LEN].iter().all(u8::is_ascii_hexdigit));
        assert_eq!(&stored[TOKEN_LEN..], b"[3,4]");
        assert_eq!(read_record::<Vec<u32>>(&stored), Some(vec![3, 4]));
        assert_eq!(read_record::<Vec<u32>>(b"[3,4]"), None);
    }

    #[test]
    fn the_script_compares_after_the_token() {
        // `string.sub(stored, 33)`: Lua is 1-based, the record starts after the token.
        assert!(CAS_LUA.contains(&format!("string.sub(stored, {})", TOKEN_LEN + 1)));
    }
}
