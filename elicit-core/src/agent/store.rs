//! Where an agent keeps the state of its URL-mode elicitations: the [`Store`] trait and
//! its in-memory implementation, [`MemoryStore`] (feature `url`).
//!
//! Two parts of an agent keep such state: the [`UrlRegistry`](super::UrlRegistry)
//! (each `elicitationId`, its connection, user and state) and, with feature `axum`, the
//! secure URL-mode page (each one-time token, what it is bound to, its expiry and
//! whether it was used). Both go through this one small interface, so that an agent
//! running as several instances can give them a store they share; a single process
//! uses the default, a [`MemoryStore`]. With feature `redis`, `RedisStore` is that
//! shared store, in Redis (or a Redis Cluster).
//!
//! The interface is three atomic operations on one key, the ones a key-value database
//! offers as single commands (`SET NX`, `GET`, a compare-and-set): every state change
//! either happens whole or not at all, and two instances racing on one key cannot both
//! win. A used-once token is a compare-and-set from "unused" to "used".
//!
//! ```
//! use elicit::agent::{MemoryStore, Store};
//!
//! let store: MemoryStore<u32> = MemoryStore::new();
//! assert!(store.insert_new("k", 1)?);
//! assert!(!store.insert_new("k", 2)?); // already there: unchanged
//! assert!(store.compare_and_swap("k", &1, Some(3))?);
//! assert!(!store.compare_and_swap("k", &1, Some(4))?); // lost the race: unchanged
//! assert_eq!(store.get("k")?, Some(3));
//! assert!(store.compare_and_swap("k", &3, None)?); // removed
//! assert_eq!(store.get("k")?, None);
//! # Ok::<(), elicit::agent::StoreError>(())
//! ```

use std::collections::HashMap;
use std::error::Error;
use std::fmt;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

/// Atomic operations on values of type `V` kept under string keys: the storage
/// interface of the [`UrlRegistry`](super::UrlRegistry) and of the secure URL-mode
/// page.
///
/// Each method is atomic with respect to every other call on the same store. Keys are
/// unguessable ids minted by this crate (`elicitationId`s, page tokens); values are
/// small records with `Clone` and `PartialEq`, which a shared implementation
/// serializes (the records this crate stores implement `serde`'s traits).
///
/// An implementation returns [`StoreError`] when it cannot answer (a database that is
/// down); callers then refuse the operation, never treat it as a success.
pub trait Store<V>: Send + Sync + fmt::Debug {
    /// Stores `value` under `key` if the key is absent. Returns whether it was stored;
    /// an existing value is left as it is.
    fn insert_new(&self, key: &str, value: V) -> Result<bool, StoreError>;

    /// The value under `key`, if any.
    fn get(&self, key: &str) -> Result<Option<V>, StoreError>;

    /// Replaces the value under `key` with `new` (removes it when `new` is `None`) if
    /// the value stored there still equals `current`. Returns whether it did; when
    /// another writer got there first, nothing changes.
    fn compare_and_swap(&self, key: &str, current: &V, new: Option<V>) -> Result<bool, StoreError>;
}

/// The default [`Store`]: a map behind a mutex, in this process. Cheap to clone:
/// clones share one map.
///
/// Nothing in it expires and nothing sweeps it: its callers bound what they keep (the
/// registry's [`RegistryLimits`](super::RegistryLimits), the secure page's count of
/// used tokens) and remove their records themselves. A store shared by instances of
/// an agent cannot rely on that, since an instance may crash with records outstanding:
/// `RedisStore` (feature `redis`) gives every key a time to live.
///
/// A poisoned lock is recovered: every operation is one insert, lookup or replace, so
/// a panic elsewhere cannot leave the map half-changed.
pub struct MemoryStore<V> {
    map: Arc<Mutex<HashMap<String, V>>>,
}

impl<V> MemoryStore<V> {
    /// An empty store.
    pub fn new() -> Self {
        MemoryStore {
            map: Arc::new(Mutex::new(HashMap::new())),
        }
    }

    /// How many keys it holds.
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    /// Whether it holds no key.
    pub fn is_empty(&self) -> bool {
        self.lock().is_empty()
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<String, V>> {
        self.map.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl<V> Default for MemoryStore<V> {
    fn default() -> Self {
        Self::new()
    }
}

impl<V> Clone for MemoryStore<V> {
    fn clone(&self) -> Self {
        MemoryStore {
            map: Arc::clone(&self.map),
        }
    }
}

impl<V> fmt::Debug for MemoryStore<V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The keys are secrets (tokens, ids): only their number is shown.
        f.debug_struct("MemoryStore")
            .field("len", &self.len())
            .finish()
    }
}

impl<V: Clone + PartialEq + Send> Store<V> for MemoryStore<V> {
    fn insert_new(&self, key: &str, value: V) -> Result<bool, StoreError> {
        let mut map = self.lock();
        if map.contains_key(key) {
            return Ok(false);
        }
        map.insert(key.to_owned(), value);
        Ok(true)
    }

    fn get(&self, key: &str) -> Result<Option<V>, StoreError> {
        Ok(self.lock().get(key).cloned())
    }

    fn compare_and_swap(&self, key: &str, current: &V, new: Option<V>) -> Result<bool, StoreError> {
        let mut map = self.lock();
        match map.get_mut(key) {
            Some(stored) if stored == current => {
                match new {
                    Some(new) => *stored = new,
                    None => {
                        map.remove(key);
                    }
                }
                Ok(true)
            }
            _ => Ok(false),
        }
    }
}

/// A [`Store`] that could not answer. Whatever was asked is refused: a store that
/// fails never lets a token be used twice or an elicitation complete unchecked.
#[derive(Debug, Clone)]
pub struct StoreError {
    source: Arc<dyn Error + Send + Sync + 'static>,
}

impl StoreError {
    /// Wraps the cause, for implementations of [`Store`].
    pub fn new(source: impl Into<Box<dyn Error + Send + Sync + 'static>>) -> Self {
        StoreError {
            source: Arc::from(source.into()),
        }
    }
}

impl PartialEq for StoreError {
    /// Two store errors are equal when they share one cause (clones of one error).
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.source, &other.source)
    }
}

impl Eq for StoreError {}

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the elicitation store failed")
    }
}

impl Error for StoreError {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        Some(&*self.source)
    }
}
