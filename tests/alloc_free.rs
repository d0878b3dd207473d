//! Obtaining a derived schema and its wire JSON allocates nothing after first use: the
//! schema is a `static` built at compile time and the JSON is computed once.
//!
//! A counting global allocator (the only `unsafe` in the project, confined to this test)
//! counts the allocations made by this thread while measuring.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::hint::black_box;
use std::sync::atomic::{AtomicUsize, Ordering};

use elicit::Elicit;

struct Counting;

static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    static MEASURING: Cell<bool> = const { Cell::new(false) };
}

fn note() {
    // `try_with`: the thread-local may be gone while a thread shuts down.
    if MEASURING.try_with(Cell::get).unwrap_or(false) {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
    }
}

// SAFETY: every call is forwarded unchanged to the system allocator; counting touches
// only an atomic and a const-initialised thread-local, neither of which allocates.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note();
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        note();
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note();
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// A form with every kind of field, patterns and options included.
#[derive(Elicit)]
#[allow(dead_code)]
struct Everything {
    /// Name
    #[elicit(min_length = 1, pattern = "^[A-Z]")]
    name: String,
    #[elicit(format = "email")]
    email: Option<String>,
    #[elicit(minimum = 1, maximum = 5, default = 2)]
    passes: u8,
    ratio: f64,
    agree: bool,
    level: Level,
    tags: Vec<Level>,
}

#[derive(Elicit)]
enum Level {
    #[elicit(title = "Low")]
    Low,
    #[elicit(title = "High")]
    High,
}

fn allocations_during(f: impl FnOnce()) -> usize {
    let before = ALLOCATIONS.load(Ordering::Relaxed);
    MEASURING.with(|m| m.set(true));
    f();
    MEASURING.with(|m| m.set(false));
    ALLOCATIONS.load(Ordering::Relaxed) - before
}

#[test]
fn derived_schema_and_wire_json_allocate_nothing_after_first_use() {
    // The counter works: a first use builds the wire JSON.
    let first = allocations_during(|| {
        black_box(Everything::requested_schema().as_json());
    });
    assert!(first > 0, "the first use builds the JSON once");
    let after = allocations_during(|| {
        for _ in 0..1000 {
            let schema = black_box(Everything::requested_schema());
            black_box(schema.as_json());
            black_box(schema.properties().len());
        }
    });
    assert_eq!(
        after, 0,
        "obtaining the schema and its JSON allocated {after} times after first use"
    );
}
