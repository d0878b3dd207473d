//! Benchmarks: elicit against the no-validation floor and the validating peer path, on
//! the same inputs (a realistic 8-field form and a 40-field form), measured in one run
//! and printed as ratios at the end.
//!
//! ```sh
//! cargo bench --bench elicit -- --warm-up-time 1 --measurement-time 2
//! ```
//!
//! - typed parse: `T::from_content` vs `T::deserialize(&value)` (serde derive, no
//!   validation: the floor) vs `jsonschema`'s compiled `is_valid` + serde (the peer path),
//!   and building a `jsonschema` validator per request;
//! - dynamic validation: `RequestedSchema::validate` vs `jsonschema`'s compiled `is_valid`;
//! - one-shot: strict parse + validate vs `jsonschema` build + validate;
//! - the derived schema and its wire JSON, after first use.

use std::hint::black_box;
use std::path::PathBuf;

use criterion::{BenchmarkId, Criterion};
use elicit::{Elicit, RequestedSchema};
use serde::Deserialize;
use serde_json::Value;

#[path = "common/forms.rs"]
mod forms;
use forms::{content40, content8, Form40, Form8};

fn reference(schema: &Value) -> jsonschema::Validator {
    jsonschema::draft202012::options()
        .should_validate_formats(true)
        .build(schema)
        .expect("the derived schema compiles in jsonschema")
}

fn typed<T: Elicit + for<'de> Deserialize<'de>>(c: &mut Criterion, group: &str, content: &Value) {
    let schema_json = T::requested_schema().to_json();
    let validator = reference(&schema_json);
    assert!(
        T::from_content(content).is_ok(),
        "{group}: the benchmark content must be valid"
    );
    assert!(validator.is_valid(content));
    let mut g = c.benchmark_group(group);
    g.bench_function("floor_serde_deserialize", |b| {
        b.iter(|| T::deserialize(black_box(content)).expect("valid"))
    });
    g.bench_function("elicit_from_content", |b| {
        b.iter(|| T::from_content(black_box(content)).expect("valid"))
    });
    g.bench_function("peer_jsonschema_then_serde", |b| {
        b.iter(|| {
            assert!(validator.is_valid(black_box(content)));
            T::deserialize(content).expect("valid")
        })
    });
    g.bench_function("peer_build_validator_per_request", |b| {
        b.iter(|| {
            let v = reference(black_box(&schema_json));
            assert!(v.is_valid(content));
            T::deserialize(content).expect("valid")
        })
    });
    g.finish();
}

fn dynamic(c: &mut Criterion, name: &str, schema_json: &Value, content: &Value) {
    let schema = RequestedSchema::from_json(schema_json).expect("valid schema");
    let validator = reference(schema_json);
    let mut g = c.benchmark_group(format!("dynamic_{name}"));
    g.bench_function("elicit_validate", |b| {
        b.iter(|| schema.validate(black_box(content)).is_ok())
    });
    g.bench_function("jsonschema_is_valid", |b| {
        b.iter(|| validator.is_valid(black_box(content)))
    });
    g.finish();
    let mut g = c.benchmark_group(format!("oneshot_{name}"));
    g.bench_function("elicit_parse_and_validate", |b| {
        b.iter(|| {
            RequestedSchema::from_json(black_box(schema_json))
                .expect("valid")
                .validate(content)
                .is_ok()
        })
    });
    g.bench_function("jsonschema_build_and_validate", |b| {
        b.iter(|| reference(black_box(schema_json)).is_valid(content))
    });
    g.finish();
}

fn schema_access(c: &mut Criterion) {
    let mut g = c.benchmark_group("derived_schema");
    let _ = Form8::requested_schema().as_json();
    g.bench_function(BenchmarkId::new("requested_schema_as_json", 8), |b| {
        b.iter(|| black_box(Form8::requested_schema().as_json()))
    });
    g.finish();
}

/// Mean time of one benchmark from criterion's own records, in nanoseconds.
fn mean_ns(group: &str, id: &str) -> Option<f64> {
    let dir = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target"));
    let path = dir
        .join("criterion")
        .join(group)
        .join(id)
        .join("new/estimates.json");
    let json: Value = serde_json::from_str(&std::fs::read_to_string(path).ok()?).ok()?;
    json["mean"]["point_estimate"].as_f64()
}

fn print_ratios() {
    println!("\n== ratios (mean times of this run) ==");
    println!("| measure | 8 fields | 40 fields |");
    println!("| --- | --- | --- |");
    let row = |label: &str, f: &dyn Fn(&str) -> Option<f64>| {
        let cell = |g: &str| f(g).map_or("n/a".to_owned(), |r| format!("{r:.2}x"));
        println!("| {label} | {} | {} |", cell("8"), cell("40"));
    };
    let ratio = |group: String, a: &str, b: &str| Some(mean_ns(&group, a)? / mean_ns(&group, b)?);
    row("from_content / serde floor (goal <= 1.0)", &|n| {
        ratio(
            format!("typed_{n}"),
            "elicit_from_content",
            "floor_serde_deserialize",
        )
    });
    row("peer path / serde floor", &|n| {
        ratio(
            format!("typed_{n}"),
            "peer_jsonschema_then_serde",
            "floor_serde_deserialize",
        )
    });
    row("peer path / from_content", &|n| {
        ratio(
            format!("typed_{n}"),
            "peer_jsonschema_then_serde",
            "elicit_from_content",
        )
    });
    row("validator per request / serde floor", &|n| {
        ratio(
            format!("typed_{n}"),
            "peer_build_validator_per_request",
            "floor_serde_deserialize",
        )
    });
    row("jsonschema is_valid / validate (goal >= 4)", &|n| {
        ratio(
            format!("dynamic_{n}"),
            "jsonschema_is_valid",
            "elicit_validate",
        )
    });
    row(
        "jsonschema build+validate / parse+validate (goal >= 20)",
        &|n| {
            ratio(
                format!("oneshot_{n}"),
                "jsonschema_build_and_validate",
                "elicit_parse_and_validate",
            )
        },
    );
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    let (c8, c40) = (content8(), content40());
    typed::<Form8>(&mut c, "typed_8", &c8);
    typed::<Form40>(&mut c, "typed_40", &c40);
    dynamic(&mut c, "8", &Form8::requested_schema().to_json(), &c8);
    dynamic(&mut c, "40", &Form40::requested_schema().to_json(), &c40);
    schema_access(&mut c);
    c.final_summary();
    print_ratios();
}
