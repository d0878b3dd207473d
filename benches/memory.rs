//! Memory of the strict parse, by a counting global allocator: bytes and allocations per
//! `RequestedSchema::from_json` (everything allocated while parsing, freed or not), and
//! the bytes a parsed schema keeps (live heap after the parse, plus the value itself),
//! per property, on the forms of `benches/elicit.rs` and the generated format-free mixed
//! forms at 8, 40, 200 and 256 (D12's limit) properties. Deterministic: no timing.
//!
//! ```sh
//! cargo bench --bench memory
//! ```

use std::alloc::{GlobalAlloc, Layout, System};
use std::hint::black_box;
use std::sync::atomic::{AtomicUsize, Ordering};

use elicit::{Elicit, RequestedSchema};
use serde_json::Value;

#[path = "common/forms.rs"]
#[allow(dead_code)]
mod forms;
#[path = "common/mixed.rs"]
#[allow(dead_code)]
mod mixed;

struct Counting;

static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);
static ALLOCATED: AtomicUsize = AtomicUsize::new(0);
static LIVE: AtomicUsize = AtomicUsize::new(0);

fn grew(by: usize) {
    ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
    ALLOCATED.fetch_add(by, Ordering::Relaxed);
    LIVE.fetch_add(by, Ordering::Relaxed);
}

// SAFETY: every call is forwarded unchanged to the system allocator; counting touches
// only atomics, which do not allocate. The benchmark is single-threaded.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        grew(layout.size());
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        grew(layout.size());
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // A reallocation counts as one allocation of the new size; the old block is
        // released.
        grew(new_size);
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

struct Usage {
    allocations: usize,
    allocated: usize,
    retained: usize,
}

/// One run of `build` on `schema`: what it allocates, and what the result keeps.
fn usage<T>(schema: &Value, build: impl Fn(&Value) -> T) -> Usage {
    // Once before measuring, so that lazily built statics do not count.
    drop(build(schema));
    let (a0, b0, l0) = (
        ALLOCATIONS.load(Ordering::Relaxed),
        ALLOCATED.load(Ordering::Relaxed),
        LIVE.load(Ordering::Relaxed),
    );
    let parsed = black_box(build(black_box(schema)));
    let usage = Usage {
        allocations: ALLOCATIONS.load(Ordering::Relaxed) - a0,
        allocated: ALLOCATED.load(Ordering::Relaxed) - b0,
        retained: LIVE.load(Ordering::Relaxed) - l0 + std::mem::size_of_val(&parsed),
    };
    drop(parsed);
    usage
}

/// Allocations of one `validate` of a valid answer (its success path), in the steady
/// state: the second validation of a schema builds its check plan once (three blocks at
/// most), the first and every later one allocate nothing.
fn validate_allocations(schema: &Value, content: &Value) -> usize {
    let parsed = RequestedSchema::from_json(schema).expect("parses");
    for _ in 0..2 {
        assert!(parsed.validate(content).is_ok());
    }
    let a0 = ALLOCATIONS.load(Ordering::Relaxed);
    let _ = black_box(parsed.validate(black_box(content)));
    ALLOCATIONS.load(Ordering::Relaxed) - a0
}

fn row(label: &str, properties: usize, schema: &Value, content: &Value) {
    let u = usage(schema, |s| RequestedSchema::from_json(s).expect("parses"));
    let js = usage(schema, |s| {
        jsonschema::draft202012::options()
            .should_validate_formats(true)
            .build(s)
            .expect("compiles")
    });
    let json_bytes = serde_json::to_vec(schema).expect("serializes").len();
    println!(
        "| {label} | {properties} | {json_bytes} | {} | {} | {:.1} | {} | {:.0} | {} | {} / {} / {} |",
        u.allocations,
        u.allocated,
        u.allocations as f64 / properties as f64,
        u.retained,
        u.retained as f64 / properties as f64,
        validate_allocations(schema, content),
        js.allocations,
        js.allocated,
        js.retained,
    );
}

fn main() {
    println!("| form | properties | schema JSON bytes | allocations per parse | bytes allocated per parse | allocations per property | bytes retained | retained bytes per property | allocations per validate | `jsonschema` build: allocations / bytes / retained |");
    println!("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |");
    row(
        "benches/elicit.rs 8-field",
        8,
        &forms::Form8::requested_schema().to_json(),
        &forms::content8(),
    );
    row(
        "benches/elicit.rs 40-field",
        40,
        &forms::Form40::requested_schema().to_json(),
        &forms::content40(),
    );
    let c = mixed::mixed_content;
    row(
        "mixed",
        8,
        &mixed::Mixed8::requested_schema().to_json(),
        &c(8),
    );
    row(
        "mixed",
        40,
        &mixed::Mixed40::requested_schema().to_json(),
        &c(40),
    );
    row(
        "mixed",
        200,
        &mixed::Mixed200::requested_schema().to_json(),
        &c(200),
    );
    row(
        "mixed",
        256,
        &mixed::Mixed256::requested_schema().to_json(),
        &c(256),
    );
}
