//! The client's record of URL elicitations awaiting `elicitation/complete` ([U5](crate::rules#u5), [U6](crate::rules#u6)).

use std::collections::VecDeque;

use serde_json::Value;

use crate::protocol::{CompleteElicitation, CreateElicitation};

/// What to do with an `elicitation/complete` notification.
#[derive(Debug, Clone, PartialEq, Eq)]
#[must_use]
pub enum Completion {
    /// A URL elicitation received on this connection finished: update the UI (close
    /// the waiting indicator, retry what waited on it). Reported once per id.
    Completed(String),
    /// Nothing to do ([U6](crate::rules#u6)).
    Ignored(Ignored),
}

impl Completion {
    /// Whether this is a completion to act on.
    pub fn is_completed(&self) -> bool {
        matches!(self, Completion::Completed(_))
    }
}

/// Why a notification is ignored ([U6](crate::rules#u6)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Ignored {
    /// No URL elicitation with this id was received on this connection (or it was
    /// forgotten).
    Unknown,
    /// This id already completed.
    AlreadyCompleted,
    /// The params are not a valid `elicitation/complete`.
    Malformed,
}

/// The ids of the URL elicitations received on one connection, to report each
/// completion once and only for a known id ([U6](crate::rules#u6)). Ids are opaque strings, compared
/// exactly ([U4](crate::rules#u4)).
///
/// Memory is bounded: at most [`capacity`](Self::capacity) ids awaiting completion
/// and as many completed ones are kept, the oldest forgotten first. A completion for
/// a forgotten id is ignored as unknown; for a pending one, the user moved on long
/// ago, and a forgotten completed id is ignored anyway. The default,
/// [`DEFAULT_CAPACITY`](Self::DEFAULT_CAPACITY), is far more than a user follows at
/// once.
///
/// One tracker per connection, owned by whatever handles that connection's messages,
/// hence `&mut self`: there is nothing to share between connections ([U5](crate::rules#u5): a
/// completion only concerns the connection that received the request).
///
/// ```
/// use elicit::client::{Completion, CompletionTracker, Ignored};
/// use elicit::protocol::CompleteElicitation;
///
/// let mut tracker = CompletionTracker::new();
/// tracker.track_id("el-1");
/// let done = CompleteElicitation::new("el-1");
/// assert_eq!(tracker.complete(&done), Completion::Completed("el-1".into()));
/// assert_eq!(tracker.complete(&done), Completion::Ignored(Ignored::AlreadyCompleted));
/// let stranger = CompleteElicitation::new("el-2");
/// assert_eq!(tracker.complete(&stranger), Completion::Ignored(Ignored::Unknown));
/// ```
#[derive(Debug, Clone)]
pub struct CompletionTracker {
    capacity: usize,
    /// Oldest first.
    pending: VecDeque<String>,
    /// Oldest first.
    completed: VecDeque<String>,
}

impl Default for CompletionTracker {
    fn default() -> Self {
        Self::new()
    }
}

impl CompletionTracker {
    /// Ids kept awaiting completion, and completed ids kept, by default.
    pub const DEFAULT_CAPACITY: usize = 256;

    /// A tracker with [`DEFAULT_CAPACITY`](Self::DEFAULT_CAPACITY).
    pub fn new() -> Self {
        Self::with_capacity(Self::DEFAULT_CAPACITY)
    }

    /// A tracker keeping at most `capacity` pending and `capacity` completed ids (at
    /// least one of each).
    pub fn with_capacity(capacity: usize) -> Self {
        CompletionTracker {
            capacity: capacity.max(1),
            pending: VecDeque::new(),
            completed: VecDeque::new(),
        }
    }

    /// The most ids kept in each of the pending and completed lists.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// Remembers the id of a URL-mode request received on this connection. Returns
    /// whether it is newly awaited: `false` for another mode, and for an id already
    /// awaited (an agent must not reuse an outstanding id, [U4](crate::rules#u4)).
    pub fn track(&mut self, request: &CreateElicitation) -> bool {
        match request.elicitation_id() {
            Some(id) => self.track_id(id),
            None => false,
        }
    }

    /// Remembers an id. An id that completed before may be awaited again: [U4](crate::rules#u4) only
    /// keeps ids unique among the outstanding ones.
    pub fn track_id(&mut self, elicitation_id: impl Into<String>) -> bool {
        let id = elicitation_id.into();
        if self.pending.contains(&id) {
            return false;
        }
        self.completed.retain(|c| *c != id);
        if self.pending.len() >= self.capacity {
            self.pending.pop_front();
        }
        self.pending.push_back(id);
        true
    }

    /// Whether this id awaits completion.
    pub fn is_pending(&self, elicitation_id: &str) -> bool {
        self.pending.iter().any(|p| p == elicitation_id)
    }

    /// How many ids await completion.
    pub fn pending_len(&self) -> usize {
        self.pending.len()
    }

    /// Stops awaiting an id (e.g. the user declined to open the URL). Returns whether
    /// it was awaited. A later completion for it is ignored as unknown.
    pub fn forget(&mut self, elicitation_id: &str) -> bool {
        let before = self.pending.len();
        self.pending.retain(|p| p != elicitation_id);
        self.pending.len() != before
    }

    /// Handles an `elicitation/complete` notification: reported once for an awaited
    /// id, ignored otherwise ([U6](crate::rules#u6)).
    pub fn complete(&mut self, notification: &CompleteElicitation) -> Completion {
        let id = notification.elicitation_id();
        if let Some(at) = self.pending.iter().position(|p| p == id) {
            self.pending.remove(at);
            if self.completed.len() >= self.capacity {
                self.completed.pop_front();
            }
            self.completed.push_back(id.to_owned());
            return Completion::Completed(id.to_owned());
        }
        if self.completed.iter().any(|c| c == id) {
            Completion::Ignored(Ignored::AlreadyCompleted)
        } else {
            Completion::Ignored(Ignored::Unknown)
        }
    }

    /// Handles the raw params of an `elicitation/complete` notification. A
    /// notification has no response, so malformed params are ignored too ([U6](crate::rules#u6)).
    pub fn complete_params(&mut self, params: &Value) -> Completion {
        match CompleteElicitation::from_json(params) {
            Ok(notification) => self.complete(&notification),
            Err(_) => Completion::Ignored(Ignored::Malformed),
        }
    }
}
