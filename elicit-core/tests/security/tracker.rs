//! `client/tracker.rs`: a client reports an `elicitation/complete` once, only for a URL
//! elicitation it received on this connection, and ignores unknown, already
//! completed and malformed ones (U5, U6), with bounded memory (D12).

use elicit_core::client::{Completion, CompletionTracker, Ignored};
use elicit_core::protocol::{CompleteElicitation, CreateElicitation, Scope};
use elicit_core::schema::RequestedSchema;
use serde_json::json;

fn url_request(id: &str) -> CreateElicitation {
    CreateElicitation::url(
        Scope::session("s"),
        "Sign in",
        id,
        "https://auth.example.com/",
    )
    .unwrap()
}

fn done(id: &str) -> CompleteElicitation {
    CompleteElicitation::new(id)
}

fn completed(id: &str) -> Completion {
    Completion::Completed(id.to_owned())
}

const UNKNOWN: Completion = Completion::Ignored(Ignored::Unknown);
const ALREADY: Completion = Completion::Ignored(Ignored::AlreadyCompleted);
const MALFORMED: Completion = Completion::Ignored(Ignored::Malformed);

// covers: U6
#[test]
fn only_a_completion_is_acted_on() {
    assert!(completed("el-1").is_completed());
    assert!(!UNKNOWN.is_completed());
    assert!(!ALREADY.is_completed());
    assert!(!MALFORMED.is_completed());
}

// covers: U6, U5
#[test]
fn a_completion_is_reported_once_for_a_known_id() {
    let mut tracker = CompletionTracker::new();
    assert!(tracker.track(&url_request("el-1")));
    assert!(tracker.is_pending("el-1"));
    assert_eq!(tracker.pending_len(), 1);
    let completion = tracker.complete(&done("el-1"));
    assert!(completion.is_completed());
    assert_eq!(completion, completed("el-1"));
    assert!(!tracker.is_pending("el-1"));
    assert_eq!(tracker.pending_len(), 0);
    assert_eq!(tracker.complete(&done("el-1")), ALREADY);
    assert_eq!(tracker.complete(&done("el-1")), ALREADY);
}

// covers: U6, U4
#[test]
fn unknown_ids_are_ignored_and_ids_compare_exactly() {
    let mut tracker = CompletionTracker::new();
    assert!(!tracker.is_pending("el-1"));
    assert_eq!(tracker.complete(&done("el-1")), UNKNOWN);
    tracker.track_id("el-1");
    assert!(tracker.is_pending("el-1"));
    assert!(!tracker.is_pending("el-2"));
    assert!(!tracker.is_pending("EL-1"));
    assert_eq!(tracker.complete(&done("el-2")), UNKNOWN);
    assert_eq!(tracker.complete(&done("EL-1")), UNKNOWN);
    assert_eq!(tracker.complete(&done("el-1 ")), UNKNOWN);
    assert_eq!(tracker.complete(&done("")), UNKNOWN);
    assert!(tracker.is_pending("el-1"));
    assert_eq!(tracker.pending_len(), 1);
}

// covers: U6, U5
#[test]
fn each_pending_id_completes_on_its_own() {
    let mut tracker = CompletionTracker::new();
    for id in ["el-1", "el-2", "el-3"] {
        assert!(tracker.track_id(id));
    }
    assert_eq!(tracker.pending_len(), 3);
    assert_eq!(tracker.complete(&done("el-2")), completed("el-2"));
    assert!(tracker.is_pending("el-1"));
    assert!(!tracker.is_pending("el-2"));
    assert!(tracker.is_pending("el-3"));
    assert_eq!(tracker.pending_len(), 2);
    assert_eq!(tracker.complete(&done("el-3")), completed("el-3"));
    assert_eq!(tracker.complete(&done("el-1")), completed("el-1"));
    for id in ["el-1", "el-2", "el-3"] {
        assert_eq!(tracker.complete(&done(id)), ALREADY, "{id}");
    }
}

// covers: U6, E6
#[test]
fn only_url_requests_are_tracked_and_malformed_notifications_are_ignored() {
    let mut tracker = CompletionTracker::new();
    let schema =
        RequestedSchema::from_json(&json!({ "type": "object", "properties": {} })).unwrap();
    assert!(!tracker.track(&CreateElicitation::form(Scope::session("s"), "m", schema)));
    assert_eq!(tracker.pending_len(), 0);
    assert!(tracker.track(&url_request("el-1")));
    // The same request again is not newly awaited (U4).
    assert!(!tracker.track(&url_request("el-1")));
    assert_eq!(tracker.pending_len(), 1);
    for params in [
        json!(null),
        json!({}),
        json!({ "elicitationId": 1 }),
        json!("el-1"),
    ] {
        assert_eq!(tracker.complete_params(&params), MALFORMED, "{params}");
    }
    assert!(tracker.is_pending("el-1"));
    assert_eq!(
        tracker.complete_params(&json!({ "elicitationId": "el-2" })),
        UNKNOWN
    );
    assert_eq!(
        tracker.complete_params(&json!({ "elicitationId": "el-1", "_meta": { "x": 1 } })),
        completed("el-1")
    );
    assert_eq!(
        tracker.complete_params(&json!({ "elicitationId": "el-1" })),
        ALREADY
    );
}

// covers: U4, U6
#[test]
fn a_duplicate_outstanding_id_is_tracked_once_and_an_id_may_be_reused_after_completion() {
    let mut tracker = CompletionTracker::new();
    assert!(tracker.track_id("el-1"));
    assert!(!tracker.track_id("el-1"));
    assert_eq!(tracker.pending_len(), 1);
    assert!(tracker.complete(&done("el-1")).is_completed());
    // U4 asks for uniqueness among outstanding ids only.
    assert!(tracker.track_id("el-1"));
    assert!(tracker.is_pending("el-1"));
    assert!(tracker.complete(&done("el-1")).is_completed());
    assert_eq!(tracker.complete(&done("el-1")), ALREADY);
}

// covers: U6, U4
#[test]
fn reusing_one_id_leaves_the_other_completed_ids_alone() {
    let mut tracker = CompletionTracker::new();
    for id in ["el-1", "el-2", "el-3"] {
        tracker.track_id(id);
        assert!(tracker.complete(&done(id)).is_completed());
    }
    assert!(tracker.track_id("el-2"));
    // The others are still known as completed.
    assert_eq!(tracker.complete(&done("el-1")), ALREADY);
    assert_eq!(tracker.complete(&done("el-3")), ALREADY);
    assert_eq!(tracker.complete(&done("el-2")), completed("el-2"));
    assert_eq!(tracker.complete(&done("el-2")), ALREADY);
}

// covers: U6, R1
#[test]
fn a_forgotten_id_is_ignored() {
    let mut tracker = CompletionTracker::new();
    tracker.track_id("el-1");
    tracker.track_id("el-2");
    assert!(!tracker.forget("el-3"));
    assert_eq!(tracker.pending_len(), 2);
    assert!(tracker.forget("el-1")); // e.g. the user declined
    assert!(!tracker.forget("el-1"));
    assert!(!tracker.is_pending("el-1"));
    assert_eq!(tracker.pending_len(), 1);
    assert_eq!(tracker.complete(&done("el-1")), UNKNOWN);
    // Only that one.
    assert!(tracker.is_pending("el-2"));
    assert_eq!(tracker.complete(&done("el-2")), completed("el-2"));
    // A completed id is not pending: nothing to forget.
    assert!(!tracker.forget("el-2"));
    assert_eq!(tracker.complete(&done("el-2")), ALREADY);
}

// covers: U6, D12
#[test]
fn capacity_is_at_least_one() {
    assert_eq!(
        CompletionTracker::new().capacity(),
        CompletionTracker::DEFAULT_CAPACITY
    );
    assert_eq!(
        CompletionTracker::default().capacity(),
        CompletionTracker::DEFAULT_CAPACITY
    );
    assert_eq!(CompletionTracker::DEFAULT_CAPACITY, 256);
    assert_eq!(CompletionTracker::with_capacity(3).capacity(), 3);
    assert_eq!(CompletionTracker::with_capacity(1).capacity(), 1);
    assert_eq!(CompletionTracker::with_capacity(0).capacity(), 1);
    let mut tiny = CompletionTracker::with_capacity(0);
    assert!(tiny.track_id("el-1"));
    assert_eq!(tiny.complete(&done("el-1")), completed("el-1"));
    assert_eq!(tiny.complete(&done("el-1")), ALREADY);
}

// covers: U6, D12
#[test]
fn pending_ids_are_bounded_oldest_forgotten_first() {
    let mut tracker = CompletionTracker::with_capacity(3);
    for i in 0..3 {
        assert!(tracker.track_id(format!("el-{i}")));
    }
    assert_eq!(tracker.pending_len(), 3);
    for i in 0..3 {
        assert!(tracker.is_pending(&format!("el-{i}")));
    }
    // One more: the oldest goes.
    assert!(tracker.track_id("el-3"));
    assert_eq!(tracker.pending_len(), 3);
    assert!(!tracker.is_pending("el-0"));
    for i in 1..10 {
        tracker.track_id(format!("el-{i}"));
    }
    assert_eq!(tracker.pending_len(), 3);
    assert_eq!(tracker.complete(&done("el-0")), UNKNOWN);
    assert_eq!(tracker.complete(&done("el-6")), UNKNOWN);
    for i in 7..10 {
        assert_eq!(
            tracker.complete(&done(&format!("el-{i}"))),
            completed(&format!("el-{i}"))
        );
    }
}

// covers: U6, D12
#[test]
fn completed_ids_are_bounded_oldest_forgotten_first() {
    let mut tracker = CompletionTracker::with_capacity(3);
    for i in 0..3 {
        tracker.track_id(format!("el-{i}"));
        assert!(tracker.complete(&done(&format!("el-{i}"))).is_completed());
    }
    // Exactly `capacity` completed ids are remembered.
    for i in 0..3 {
        assert_eq!(
            tracker.complete(&done(&format!("el-{i}"))),
            ALREADY,
            "el-{i}"
        );
    }
    tracker.track_id("el-3");
    assert!(tracker.complete(&done("el-3")).is_completed());
    // The oldest was forgotten: a repeat of it is ignored anyway, as unknown.
    assert_eq!(tracker.complete(&done("el-0")), UNKNOWN);
    for i in 1..4 {
        assert_eq!(
            tracker.complete(&done(&format!("el-{i}"))),
            ALREADY,
            "el-{i}"
        );
    }
}
