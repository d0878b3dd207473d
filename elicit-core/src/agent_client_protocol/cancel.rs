//! Ending the asks of a cancelled session: the table of waiting asks and
//! [`cancel_session`].
//!
//! An ask waits for the client's answer; a `session/cancel` from the client ends the
//! turn, and the agent author's handler ends every ask of that session with one call.
//! The waiting asks are kept in a process-wide table keyed by the [`Elicitor`]'s
//! connection and the session id, so the handler needs nothing but the `Elicitor` it
//! already has, and a cancel on one connection never reaches another one's asks
//! ([E5](crate::rules#e5)). Each ask removes its own row when it ends, however it ends
//! (answer, error, cancellation or a dropped future), so the table holds exactly the
//! asks in flight.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};

use futures::channel::oneshot;

use crate::agent::{ConnectionId, Elicitor};
use crate::protocol::Scope;

/// One ask waiting for its answer in a session.
struct Waiter {
    connection: ConnectionId,
    session_id: String,
    /// Dropped to end the ask: its receiver then resolves.
    _cancel: oneshot::Sender<()>,
}

/// The asks in flight, by a key private to each ask. A `BTreeMap` because its `new` is
/// `const`; the table is small (the asks in flight) and a cancel scans it once.
static WAITING: Mutex<BTreeMap<u64, Waiter>> = Mutex::new(BTreeMap::new());

static NEXT_KEY: AtomicU64 = AtomicU64::new(0);

fn waiting() -> MutexGuard<'static, BTreeMap<u64, Waiter>> {
    // Every update is one insert or remove: a panic elsewhere cannot leave the table
    // half-changed, so a poisoned lock is still whole.
    WAITING.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Ends every ask waiting in this session of this `Elicitor`'s connection: each returns
/// `Ok(Elicited::Cancelled)` at once, and a URL-mode ask forgets its `elicitationId`.
/// Returns how many asks were ended.
///
/// Call it from the `session/cancel` handler. The SDK then tells the client that each
/// request is no longer wanted (`$/cancel_request`), as it does for any request whose
/// answer is dropped. Asks scoped to a request rather than a session
/// ([`Scope::request`]) belong to no session and are not ended here.
pub fn cancel_session(elicitor: &Elicitor, session_id: &str) -> usize {
    let connection = elicitor.connection();
    let mut table = waiting();
    let before = table.len();
    // Removing a row drops its sender, which wakes its ask.
    table.retain(|_, waiter| waiter.connection != connection || waiter.session_id != session_id);
    before - table.len()
}

/// How many asks are waiting on this `Elicitor`'s connection, in every session.
pub fn waiting_asks(elicitor: &Elicitor) -> usize {
    let connection = elicitor.connection();
    waiting()
        .values()
        .filter(|waiter| waiter.connection == connection)
        .count()
}

/// An ask's row in the table, removed when dropped.
pub(super) struct Watch {
    key: Option<u64>,
    cancelled: Option<oneshot::Receiver<()>>,
}

impl Watch {
    /// Watches for the cancellation of the scope's session; a scope without a session
    /// is never cancelled this way.
    pub(super) fn new(connection: ConnectionId, scope: &Scope) -> Watch {
        let Some(session_id) = scope.session_id() else {
            return Watch {
                key: None,
                cancelled: None,
            };
        };
        let (sender, receiver) = oneshot::channel();
        let key = NEXT_KEY.fetch_add(1, Ordering::Relaxed);
        waiting().insert(
            key,
            Waiter {
                connection,
                session_id: session_id.to_owned(),
                _cancel: sender,
            },
        );
        Watch {
            key: Some(key),
            cancelled: Some(receiver),
        }
    }

    /// Resolves when the session is cancelled; never for a scope without a session.
    pub(super) async fn cancelled(&mut self) {
        match self.cancelled.as_mut() {
            // The sender only goes away by being removed from the table: either way
            // the receiver resolving means the session was cancelled.
            Some(receiver) => {
                let _ = receiver.await;
            }
            None => futures::future::pending().await,
        }
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        if let Some(key) = self.key {
            waiting().remove(&key);
        }
    }
}
