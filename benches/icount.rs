//! Deterministic instruction counts: each case runs one operation `n` times on inputs
//! prepared beforehand, inside `measure`, the only function callgrind collects
//! (`--toggle-collect='icount::measure*'`), so the count is that of the measured loop
//! alone, whatever the load of the machine and the layout of the code.
//!
//! ```sh
//! bash benches/icount.sh              # every group, tables on stdout
//! bash benches/icount.sh compare      # one group: compare, growth or worst
//! ```
//!
//! The binary itself:
//! - `icount --list [group]`: the cases, one `name n` per line;
//! - `icount <case> [n]`: prepare the inputs, check the result once, run `n` times;
//! - `icount --report <file>`: the markdown tables from `name<TAB>instructions<TAB>n`
//!   lines (what `benches/icount.sh` collects from callgrind).
//!
//! The forms are those of `benches/elicit.rs` (`benches/common/forms.rs`) and the
//! generated format-free mixed forms of the growth table (`benches/common/mixed.rs`).

use std::collections::BTreeMap;
use std::hint::black_box;

use elicit::{Elicit, RequestedSchema};
use serde::Deserialize;
use serde_json::{json, Value};

#[path = "common/forms.rs"]
#[allow(dead_code)]
mod forms;
#[path = "common/mixed.rs"]
#[allow(dead_code)]
mod mixed;

use forms::{content40, content8, Form40, Form8};
use mixed::{mixed_content, Mixed200, Mixed256, Mixed40, Mixed8};

/// The measured region: callgrind counts only what runs inside this function.
#[inline(never)]
fn measure<R>(n: usize, mut op: impl FnMut() -> R) {
    for _ in 0..n {
        black_box(op());
    }
}

/// One unmeasured run first (lazily built statics, first-use caches, the allocator's
/// first growth), then `n` measured ones: the count is that of the steady state.
fn bench<R>(n: usize, mut op: impl FnMut() -> R) {
    black_box(op());
    measure(n, op)
}

/// `jsonschema` as `benches/elicit.rs` builds it.
fn reference(schema: &Value) -> jsonschema::Validator {
    jsonschema::draft202012::options()
        .should_validate_formats(true)
        .build(schema)
        .expect("the schema compiles in jsonschema")
}

fn parse(schema: &Value) -> RequestedSchema {
    RequestedSchema::from_json(schema).expect("the schema parses")
}

type Run = Box<dyn Fn(usize)>;

/// One measured operation.
struct Case {
    name: String,
    group: &'static str,
    /// Default number of operations under callgrind (a few seconds each).
    n: usize,
    run: Run,
}

fn case(cases: &mut Vec<Case>, group: &'static str, name: String, n: usize, run: Run) {
    cases.push(Case {
        name,
        group,
        n,
        run,
    });
}

/// The paths over one schema and one valid answer, on elicit and on `jsonschema`.
#[derive(Clone, Copy, PartialEq)]
enum Path {
    Parse,
    Validate,
    ParseValidate,
    JsBuild,
    JsIsValid,
    JsBuildValidate,
}

/// `validate` and its `jsonschema` peer, for the cases that measure only validation.
const VALIDATE_PATHS: [(Path, &str); 2] = [
    (Path::Validate, "validate"),
    (Path::JsIsValid, "js_is_valid"),
];

const PATHS: [(Path, &str); 6] = [
    (Path::Parse, "parse"),
    (Path::Validate, "validate"),
    (Path::ParseValidate, "parse_validate"),
    (Path::JsBuild, "js_build"),
    (Path::JsIsValid, "js_is_valid"),
    (Path::JsBuildValidate, "js_build_validate"),
];

/// A runner for `path` over the schema and answer `make` builds (called in the run,
/// so that only the selected case prepares its inputs).
fn dynamic(path: Path, make: impl Fn() -> (Value, Value) + 'static) -> Run {
    Box::new(move |n| {
        let (schema_json, content) = make();
        let schema = parse(&schema_json);
        assert!(
            schema.validate(&content).is_ok(),
            "the content must be valid"
        );
        match path {
            Path::Parse => bench(n, || RequestedSchema::from_json(black_box(&schema_json))),
            Path::Validate => bench(n, || schema.validate(black_box(&content)).is_ok()),
            Path::ParseValidate => bench(n, || {
                RequestedSchema::from_json(black_box(&schema_json))
                    .expect("valid")
                    .validate(&content)
                    .is_ok()
            }),
            Path::JsBuild => bench(n, || reference(black_box(&schema_json))),
            Path::JsIsValid => {
                let v = reference(&schema_json);
                assert!(v.is_valid(&content));
                bench(n, || v.is_valid(black_box(&content)))
            }
            Path::JsBuildValidate => {
                assert!(reference(&schema_json).is_valid(&content));
                bench(n, || reference(black_box(&schema_json)).is_valid(&content))
            }
        }
    })
}

/// The typed paths: serde's floor, `from_content`, and the peer path.
fn typed<T: Elicit + for<'de> Deserialize<'de> + 'static>(
    cases: &mut Vec<Case>,
    group: &'static str,
    prefix: &str,
    content: fn() -> Value,
    n: usize,
) {
    let floor: Run = Box::new(move |n| {
        let c = content();
        T::deserialize(&c).expect("valid");
        bench(n, || T::deserialize(black_box(&c)).expect("valid"))
    });
    let from_content: Run = Box::new(move |n| {
        let c = content();
        T::from_content(&c).expect("valid");
        bench(n, || T::from_content(black_box(&c)).expect("valid"))
    });
    let peer: Run = Box::new(move |n| {
        let c = content();
        let v = reference(&T::requested_schema().to_json());
        assert!(v.is_valid(&c));
        bench(n, || {
            assert!(v.is_valid(black_box(&c)));
            T::deserialize(&c).expect("valid")
        })
    });
    case(cases, group, format!("{prefix}_serde_floor"), n, floor);
    case(
        cases,
        group,
        format!("{prefix}_from_content"),
        n,
        from_content,
    );
    case(cases, group, format!("{prefix}_js_then_serde"), n, peer);
}

fn typed_schema<T: Elicit>(content: fn() -> Value) -> impl Fn() -> (Value, Value) {
    move || (T::requested_schema().to_json(), content())
}

/// The same object with its keys in reverse order.
fn reversed(v: Value) -> Value {
    let Value::Object(m) = v else { return v };
    Value::Object(m.into_iter().rev().collect())
}

/// A titled single select (`oneOf`) or multi select (`items.anyOf`) with `k` options;
/// the answer picks the last option(s), the worst place for a linear search.
fn select(k: usize, multi: bool) -> (Value, Value) {
    let options: Vec<Value> = (0..k)
        .map(|i| json!({ "const": format!("option-{i}"), "title": format!("Option {i}") }))
        .collect();
    let last = |j: usize| json!(format!("option-{}", k - 1 - j));
    if multi {
        (
            json!({ "type": "object", "properties": {
                "pick": { "type": "array", "items": { "anyOf": options }, "maxItems": 3 }
            }, "required": ["pick"] }),
            json!({ "pick": [last(2), last(1), last(0)] }),
        )
    } else {
        (
            json!({ "type": "object", "properties": {
                "pick": { "type": "string", "oneOf": options }
            }, "required": ["pick"] }),
            json!({ "pick": last(0) }),
        )
    }
}

/// A string of `len` bytes, two of every twelve characters outside ASCII.
fn text(len: usize) -> String {
    let mut s = String::with_capacity(len);
    for c in "héllo wörld ".chars().cycle() {
        if s.len() + c.len_utf8() > len {
            break;
        }
        s.push(c);
    }
    while s.len() < len {
        s.push('.');
    }
    s
}

/// D12's text limit (`Limits::max_text_bytes`): the longest option value, title or
/// default; also the longest answer string measured.
const TEXT_LIMIT: usize = 64 * 1024;
/// D12's limits on properties and options (`Limits::default()`).
const MAX_PROPERTIES: usize = 256;
const MAX_OPTIONS: usize = 1024;
/// D12's nesting limit, for `_meta` and any other kept JSON.
const MAX_DEPTH: usize = 64;

/// One string property whose bounds are the answer's exact length in characters: with
/// looser bounds both validators settle them from the byte length alone (a UTF-8 text
/// of `b` bytes has between `b / 4` and `b` characters) and the cost does not depend on
/// the length at all.
fn string_schema(len: usize) -> (Value, Value) {
    let answer = text(len);
    let chars = answer.chars().count();
    (
        json!({ "type": "object", "properties": {
            "s": { "type": "string", "minLength": chars, "maxLength": chars }
        }, "required": ["s"] }),
        json!({ "s": answer }),
    )
}

/// A pattern of exactly D12's 1,024 characters: a counted repetition of a large Unicode
/// class (the NFA grows with the count times the class), alternatives filling the rest
/// of the length, all under `+`, and a tail no text here contains, so that an
/// unanchored search runs over the whole text and fails only at its end.
fn pattern_with(count: usize) -> String {
    let tail = r")+\u{1F600}!";
    let mut p = format!(r"(?:[\p{{L}}\p{{N}} '-]{{1,{count}}}");
    let mut i = 0;
    while p.chars().count() + tail.len() + 16 <= 1024 {
        p.push_str(&format!("|x{i}[a-z]{{2,5}}"));
        i += 1;
    }
    while p.chars().count() + tail.len() < 1024 {
        p.push('z');
    }
    p.push_str(tail);
    p
}

/// The count of the most complex such pattern D12 still accepts: the largest whose
/// program fits `Limits::pattern_size_limit`. `icount --sizes` finds it by bisection
/// on the strict parse and checks this value.
const WORST_PATTERN_COUNT: usize = 174;

fn worst_pattern() -> String {
    pattern_with(WORST_PATTERN_COUNT)
}

fn largest_accepted_count() -> usize {
    let accepted =
        |c: usize| RequestedSchema::from_json(&pattern_schema(&pattern_with(c), 0).0).is_ok();
    assert!(accepted(1), "the smallest pattern must parse");
    let (mut lo, mut hi) = (1usize, 4096usize);
    while lo + 1 < hi {
        let mid = (lo + hi) / 2;
        if accepted(mid) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lo
}

fn pattern_schema(pattern: &str, len: usize) -> (Value, Value) {
    (
        json!({ "type": "object", "properties": {
            "s": { "type": "string", "pattern": pattern }
        } }),
        // Absent: the schema parses; the answer is measured by `pattern_validate`.
        json!({ "other": text(len) }),
    )
}

/// `_meta` nested `depth` levels (objects inside one another).
fn deep_meta(depth: usize) -> Value {
    let mut v = json!("leaf");
    for i in 0..depth {
        v = json!({ format!("level{i}"): v });
    }
    v
}

fn meta_schema(depth: usize) -> (Value, Value) {
    (
        json!({ "type": "object", "_meta": deep_meta(depth), "properties": {
            "s": { "type": "string", "_meta": deep_meta(depth) }
        } }),
        json!({}),
    )
}

/// The deepest `_meta` the strict parse keeps (found by trying, from D12's limit down).
fn deepest_kept_meta() -> usize {
    (1..=MAX_DEPTH + 1)
        .rev()
        .find(|&d| RequestedSchema::from_json(&meta_schema(d).0).is_ok())
        .expect("some depth is kept")
}

/// The largest schema by structure: `p` titled single selects of D12's 1,024 options.
fn big_schema(p: usize) -> (Value, Value) {
    let mut props = serde_json::Map::new();
    let mut content = serde_json::Map::new();
    for j in 0..p {
        let options: Vec<Value> = (0..MAX_OPTIONS)
            .map(|i| json!({ "const": format!("p{j}-option-{i}"), "title": format!("Option {i} of {j}") }))
            .collect();
        props.insert(
            format!("pick_{j}"),
            json!({ "type": "string", "title": format!("Pick {j}"), "oneOf": options }),
        );
        content.insert(
            format!("pick_{j}"),
            json!(format!("p{j}-option-{}", MAX_OPTIONS - 1)),
        );
    }
    (
        json!({ "type": "object", "properties": props }),
        Value::Object(content),
    )
}

/// The largest schema by text: `p` string properties, each with a description of
/// D12's 64 KiB.
fn text_schema(p: usize) -> (Value, Value) {
    let mut props = serde_json::Map::new();
    for j in 0..p {
        props.insert(
            format!("s_{j}"),
            json!({ "type": "string", "title": text(TEXT_LIMIT), "description": text(TEXT_LIMIT) }),
        );
    }
    (json!({ "type": "object", "properties": props }), json!({}))
}

fn json_bytes(v: &Value) -> usize {
    serde_json::to_vec(v).expect("serializes").len()
}

const MIXED_SIZES: [usize; 4] = [8, 40, 200, MAX_PROPERTIES];
const OPTION_COUNTS: [usize; 3] = [10, 100, MAX_OPTIONS];
const STRING_LENGTHS: [usize; 5] = [10, 100, 1_000, 10_000, TEXT_LIMIT];
const PATTERN_LENGTHS: [usize; 3] = [1_024, 8_192, TEXT_LIMIT];
const BIG_SIZES: [usize; 3] = [16, 64, MAX_PROPERTIES];
const META_DEPTHS: [usize; 3] = [8, 16, 32];

/// Operations per case under callgrind, scaled down with the work per operation.
fn scaled(base: usize, per: usize) -> usize {
    (base / per.max(1)).max(1)
}

fn cases() -> Vec<Case> {
    let mut cs = Vec::new();

    // 1. The comparisons of benches/elicit.rs.
    typed::<Form8>(&mut cs, "compare", "form8", content8, 2_000);
    typed::<Form40>(&mut cs, "compare", "form40", content40, 400);
    for (path, label) in PATHS {
        let n = match path {
            Path::JsBuild | Path::JsBuildValidate => 40,
            _ => 400,
        };
        case(
            &mut cs,
            "compare",
            format!("form8_{label}"),
            n * 4,
            dynamic(path, typed_schema::<Form8>(content8)),
        );
        case(
            &mut cs,
            "compare",
            format!("form40_{label}"),
            n,
            dynamic(path, typed_schema::<Form40>(content40)),
        );
    }

    // 2. Growth: the mixed form by properties, selects by options, strings by length.
    macro_rules! mixed {
        ($t:ty, $size:expr) => {{
            let size: usize = $size;
            typed::<$t>(
                &mut cs,
                "growth",
                &format!("mixed{size}"),
                || mixed_content($size),
                scaled(8_000, size),
            );
            for (path, label) in PATHS {
                let base = match path {
                    Path::JsBuild | Path::JsBuildValidate => 800,
                    _ => 8_000,
                };
                case(
                    &mut cs,
                    "growth",
                    format!("mixed{size}_{label}"),
                    scaled(base, size),
                    dynamic(path, move || {
                        (<$t>::requested_schema().to_json(), mixed_content($size))
                    }),
                );
            }
        }};
    }
    mixed!(Mixed8, 8);
    mixed!(Mixed40, 40);
    mixed!(Mixed200, 200);
    mixed!(Mixed256, 256);
    // The same answers with their keys in reverse order: the worst order for the walks
    // that expect declaration order.
    typed::<Mixed40>(
        &mut cs,
        "growth",
        "reversed40",
        || reversed(mixed_content(40)),
        200,
    );
    // The largest form in reverse order: a lookup that scans the names would be
    // quadratic here.
    typed::<Mixed256>(
        &mut cs,
        "growth",
        "reversed256",
        || reversed(mixed_content(256)),
        scaled(8_000, 256),
    );
    // Every key out of order, for `validate` and for `jsonschema`: at 40 properties, above
    // 64 (the old slot array's limit) and at D12's limit.
    type SchemaJson = fn() -> Value;
    let reversed_forms: [(usize, usize, SchemaJson); 3] = [
        (40, 200, || Mixed40::requested_schema().to_json()),
        (200, 40, || Mixed200::requested_schema().to_json()),
        (256, 30, || Mixed256::requested_schema().to_json()),
    ];
    for (size, count, schema) in reversed_forms {
        for (path, label) in VALIDATE_PATHS {
            case(
                &mut cs,
                "growth",
                format!("reversed{size}_{label}"),
                count,
                dynamic(path, move || (schema(), reversed(mixed_content(size)))),
            );
        }
    }
    for k in OPTION_COUNTS {
        for (multi, kind) in [(false, "single"), (true, "multi")] {
            for (path, label) in PATHS {
                if matches!(path, Path::ParseValidate | Path::JsBuildValidate) {
                    continue;
                }
                let base = match path {
                    Path::JsBuild => 2_000,
                    _ => 40_000,
                };
                case(
                    &mut cs,
                    "growth",
                    format!("{kind}{k}_{label}"),
                    scaled(base, k),
                    dynamic(path, move || select(k, multi)),
                );
            }
        }
    }
    for len in STRING_LENGTHS {
        for (path, label) in VALIDATE_PATHS {
            case(
                &mut cs,
                "growth",
                format!("string{len}_{label}"),
                scaled(4_000_000, len + 100),
                dynamic(path, move || string_schema(len)),
            );
        }
    }

    // 3. Worst cases at D12's limits.
    for p in BIG_SIZES {
        for (path, label) in [
            (Path::Parse, "parse"),
            (Path::Validate, "validate"),
            (Path::JsBuild, "js_build"),
            (Path::JsIsValid, "js_is_valid"),
        ] {
            let n = match path {
                Path::Validate | Path::JsIsValid => scaled(2_000, p),
                _ => 1,
            };
            case(
                &mut cs,
                "worst",
                format!("bigschema{p}_{label}"),
                n,
                dynamic(path, move || big_schema(p)),
            );
        }
        case(
            &mut cs,
            "worst",
            format!("textschema{p}_parse"),
            scaled(64, p),
            dynamic(Path::Parse, move || text_schema(p)),
        );
        case(
            &mut cs,
            "worst",
            format!("textschema{p}_js_build"),
            scaled(64, p),
            dynamic(Path::JsBuild, move || text_schema(p)),
        );
    }
    for (path, label) in [(Path::Parse, "parse"), (Path::JsBuild, "js_build")] {
        case(
            &mut cs,
            "worst",
            format!("pattern_{label}"),
            2,
            dynamic(path, move || pattern_schema(&worst_pattern(), 10)),
        );
    }
    for len in PATTERN_LENGTHS {
        for (label, elicit) in [("validate", true), ("js_is_valid", false)] {
            let run: Run = Box::new(move |n| {
                let (schema_json, _) = pattern_schema(&worst_pattern(), len);
                let content = json!({ "s": text(len) });
                if elicit {
                    let schema = parse(&schema_json);
                    let _ = schema.validate(&content);
                    bench(n, || schema.validate(black_box(&content)).is_ok())
                } else {
                    let v = reference(&schema_json);
                    let _ = v.is_valid(&content);
                    bench(n, || v.is_valid(black_box(&content)))
                }
            });
            case(
                &mut cs,
                "worst",
                format!("pattern{len}_{label}"),
                scaled(32_768, len),
                run,
            );
        }
    }
    let mut depths = META_DEPTHS.to_vec();
    depths.push(MAX_DEPTH);
    for d in depths {
        for (path, label) in [(Path::Parse, "parse"), (Path::JsBuild, "js_build")] {
            let run: Run = Box::new(move |n| {
                // The last size is the deepest the parse keeps.
                let d = if d == MAX_DEPTH {
                    deepest_kept_meta()
                } else {
                    d
                };
                dynamic(path, move || meta_schema(d))(n)
            });
            let name = if d == MAX_DEPTH {
                format!("meta_max_{label}")
            } else {
                format!("meta{d}_{label}")
            };
            case(
                &mut cs,
                "worst",
                name,
                if path == Path::Parse { 2_000 } else { 100 },
                run,
            );
        }
    }
    cs
}

/// Least-squares slope of ln(y) on ln(x): the growth exponent.
fn exponent(points: &[(f64, f64)]) -> Option<f64> {
    if points.len() < 2 {
        return None;
    }
    let n = points.len() as f64;
    let (lx, ly): (Vec<f64>, Vec<f64>) = points.iter().map(|&(x, y)| (x.ln(), y.ln())).unzip();
    let mx = lx.iter().sum::<f64>() / n;
    let my = ly.iter().sum::<f64>() / n;
    let sxy: f64 = lx.iter().zip(&ly).map(|(x, y)| (x - mx) * (y - my)).sum();
    let sxx: f64 = lx.iter().map(|x| (x - mx).powi(2)).sum();
    Some(sxy / sxx)
}

fn fmt_count(v: Option<f64>) -> String {
    match v {
        None => "n/a".into(),
        Some(v) if v >= 1e7 => format!("{:.1} M", v / 1e6),
        Some(v) if v >= 1e4 => format!("{:.1} k", v / 1e3),
        Some(v) => format!("{v:.0}"),
    }
}

fn fmt_ratio(a: Option<f64>, b: Option<f64>) -> String {
    match (a, b) {
        (Some(a), Some(b)) => format!("{:.2}×", a / b),
        _ => "n/a".into(),
    }
}

fn fmt_exp(e: Option<f64>) -> String {
    e.map_or("n/a".into(), |e| format!("{e:.2}"))
}

fn report(path: &str) {
    let text = std::fs::read_to_string(path).expect("the results file");
    let mut per_op = BTreeMap::new();
    for line in text.lines() {
        let f: Vec<&str> = line.split('\t').collect();
        if let [name, ir, n] = f[..] {
            let (ir, n): (f64, f64) = (ir.parse().expect("count"), n.parse().expect("n"));
            per_op.insert(name.to_owned(), ir / n);
        }
    }
    // The deepest `_meta` case has its own name; it joins the depth series here.
    let deepest = deepest_kept_meta();
    for l in ["parse", "js_build"] {
        if let Some(&v) = per_op.get(&format!("meta_max_{l}")) {
            per_op.insert(format!("meta{deepest}_{l}"), v);
        }
    }
    let get = |name: &str| per_op.get(name).copied();

    if per_op.keys().any(|k| k.starts_with("form8_")) {
        println!("### Instructions per operation: the benches/elicit.rs comparisons\n");
        println!("| measure | 8 fields | 40 fields | goal |");
        println!("| --- | --- | --- | --- |");
        let rows: [(&str, &str); 10] = [
            ("serde `T::deserialize(&value)` (floor)", "serde_floor"),
            ("`T::from_content`", "from_content"),
            ("`jsonschema` `is_valid` + serde (peer)", "js_then_serde"),
            ("`RequestedSchema::validate`", "validate"),
            ("`jsonschema` compiled `is_valid`", "js_is_valid"),
            ("strict parse (`from_json`)", "parse"),
            ("strict parse + validate", "parse_validate"),
            ("`jsonschema` build", "js_build"),
            ("`jsonschema` build + validate", "js_build_validate"),
            ("", ""),
        ];
        for (label, key) in rows.iter().filter(|r| !r.1.is_empty()) {
            println!(
                "| {label} | {} | {} | |",
                fmt_count(get(&format!("form8_{key}"))),
                fmt_count(get(&format!("form40_{key}")))
            );
        }
        let ratio_row = |label: &str, a: &str, b: &str, goal: &str, met: &dyn Fn(f64) -> bool| {
            let cell = |f: &str| {
                let (x, y) = (get(&format!("{f}_{a}")), get(&format!("{f}_{b}")));
                let mark = match (x, y) {
                    _ if goal.is_empty() => "",
                    (Some(x), Some(y)) if met(x / y) => " met",
                    (Some(_), Some(_)) => " **missed**",
                    _ => "",
                };
                format!("{}{mark}", fmt_ratio(x, y))
            };
            println!(
                "| {label} | {} | {} | {goal} |",
                cell("form8"),
                cell("form40")
            );
        };
        ratio_row(
            "from_content ÷ serde floor",
            "from_content",
            "serde_floor",
            "≤ 1.0×",
            &|r| r <= 1.0,
        );
        ratio_row(
            "peer ÷ from_content",
            "js_then_serde",
            "from_content",
            "",
            &|_| true,
        );
        ratio_row(
            "`jsonschema` is_valid ÷ validate",
            "js_is_valid",
            "validate",
            "≥ 4×",
            &|r| r >= 4.0,
        );
        ratio_row(
            "`jsonschema` build+validate ÷ parse+validate",
            "js_build_validate",
            "parse_validate",
            "≥ 20×",
            &|r| r >= 20.0,
        );
        println!();
    }

    let series = |title: &str,
                  unit: &str,
                  sizes: &[usize],
                  rows: &[(String, String)],
                  ratios: &[(String, String, String)]| {
        if !sizes.iter().any(|s| {
            rows.iter()
                .any(|(_, pat)| per_op.contains_key(&pat.replace("{}", &s.to_string())))
        }) {
            return;
        }
        println!("### {title}\n");
        print!("| {unit} |");
        for s in sizes {
            print!(" {s} |");
        }
        println!(" exponent (fit) | exponent (last two) |");
        println!("|{}", " --- |".repeat(sizes.len() + 3));
        for (label, pat) in rows {
            let vals: Vec<Option<f64>> = sizes
                .iter()
                .map(|s| get(&pat.replace("{}", &s.to_string())))
                .collect();
            let pts: Vec<(f64, f64)> = sizes
                .iter()
                .zip(&vals)
                .filter_map(|(s, v)| Some((*s as f64, (*v)?)))
                .collect();
            print!("| {label} |");
            for v in &vals {
                print!(" {} |", fmt_count(*v));
            }
            println!(
                " {} | {} |",
                fmt_exp(exponent(&pts)),
                fmt_exp(exponent(&pts[pts.len().saturating_sub(2)..]))
            );
        }
        for (label, a, b) in ratios {
            print!("| {label} |");
            for s in sizes {
                let s = s.to_string();
                print!(
                    " {} |",
                    fmt_ratio(get(&a.replace("{}", &s)), get(&b.replace("{}", &s)))
                );
            }
            println!(" | |");
        }
        println!();
    };
    let r = |l: &str, p: &str| (l.to_owned(), p.to_owned());
    let q = |l: &str, a: &str, b: &str| (l.to_owned(), a.to_owned(), b.to_owned());

    let mut rows = vec![
        r("serde floor", "mixed{}_serde_floor"),
        r("`from_content`", "mixed{}_from_content"),
    ];
    for (_, label) in PATHS {
        rows.push(r(label, &format!("mixed{{}}_{label}")));
    }
    if get("reversed40_validate").is_some() {
        println!("### The 40-property mixed form, answer keys in declaration order and reversed\n");
        println!("| path | in order | reversed | reversed ÷ in order |");
        println!("| --- | --- | --- | --- |");
        for (label, a, b) in [
            ("`validate`", "mixed40_validate", "reversed40_validate"),
            (
                "`from_content`",
                "mixed40_from_content",
                "reversed40_from_content",
            ),
            (
                "serde floor",
                "mixed40_serde_floor",
                "reversed40_serde_floor",
            ),
        ] {
            println!(
                "| {label} | {} | {} | {} |",
                fmt_count(get(a)),
                fmt_count(get(b)),
                fmt_ratio(get(b), get(a))
            );
        }
        println!();
    }
    series(
        "Growth: the format-free mixed form, instructions per operation",
        "properties",
        &MIXED_SIZES,
        &rows,
        &[
            q(
                "from_content ÷ serde floor (goal ≤ 1.0×)",
                "mixed{}_from_content",
                "mixed{}_serde_floor",
            ),
            q(
                "js_is_valid ÷ validate (goal ≥ 4×)",
                "mixed{}_js_is_valid",
                "mixed{}_validate",
            ),
            q(
                "js_build_validate ÷ parse_validate (goal ≥ 20×)",
                "mixed{}_js_build_validate",
                "mixed{}_parse_validate",
            ),
        ],
    );
    for kind in ["single", "multi"] {
        let rows: Vec<_> = ["parse", "validate", "js_build", "js_is_valid"]
            .iter()
            .map(|l| r(l, &format!("{kind}{{}}_{l}")))
            .collect();
        series(
            &format!("Growth: a titled {kind} select, instructions per operation (answer: the last option{})", if kind == "multi" { "s, 3 items" } else { "" }),
            "options",
            &OPTION_COUNTS,
            &rows,
            &[
                q("js_is_valid ÷ validate", &format!("{kind}{{}}_js_is_valid"), &format!("{kind}{{}}_validate")),
                q("js_build ÷ parse", &format!("{kind}{{}}_js_build"), &format!("{kind}{{}}_parse")),
            ],
        );
    }
    series(
        "Growth: one string property, `minLength` = `maxLength` = its length in characters, instructions per validation",
        "bytes",
        &STRING_LENGTHS,
        &[
            r("validate", "string{}_validate"),
            r("js_is_valid", "string{}_js_is_valid"),
        ],
        &[q(
            "js_is_valid ÷ validate",
            "string{}_js_is_valid",
            "string{}_validate",
        )],
    );
    series(
        "Worst case: the largest schema by structure (n titled selects of 1,024 options)",
        "properties",
        &BIG_SIZES,
        &[
            r("parse", "bigschema{}_parse"),
            r("validate (last options)", "bigschema{}_validate"),
            r("js_build", "bigschema{}_js_build"),
            r("js_is_valid", "bigschema{}_js_is_valid"),
        ],
        &[],
    );
    series(
        "Worst case: the largest schema by text (n strings, 64 KiB title and description)",
        "properties",
        &BIG_SIZES,
        &[
            r("parse", "textschema{}_parse"),
            r("js_build", "textschema{}_js_build"),
        ],
        &[],
    );
    series(
        "Worst case: the 1,024-character pattern against a text that fails it",
        "text bytes",
        &PATTERN_LENGTHS,
        &[
            r("validate", "pattern{}_validate"),
            r("js_is_valid", "pattern{}_js_is_valid"),
        ],
        &[],
    );
    if get("pattern_parse").is_some() {
        println!(
            "Compiling that pattern: strict parse {}, `jsonschema` build {} instructions.\n",
            fmt_count(get("pattern_parse")),
            fmt_count(get("pattern_js_build"))
        );
    }
    let mut meta_names = BTreeMap::new();
    for d in META_DEPTHS {
        meta_names.insert(d, d.to_string());
    }
    meta_names.insert(deepest, "_max".to_owned());
    let depths: Vec<usize> = meta_names.keys().copied().collect();
    let rows: Vec<(String, String)> = ["parse", "js_build"]
        .iter()
        .map(|l| {
            // The series helper substitutes sizes; the deepest case has its own name.
            (l.to_string(), format!("meta{{}}_{l}"))
        })
        .collect();
    if get(&format!("meta{deepest}_parse")).is_some() {
        println!("### Worst case: `_meta` nested n levels, at the root and on the property (deepest kept: {deepest})\n");
        print!("| depth |");
        for d in &depths {
            print!(" {d} |");
        }
        println!(" exponent |");
        println!("|{}", " --- |".repeat(depths.len() + 2));
        for (label, pat) in &rows {
            let vals: Vec<Option<f64>> = depths
                .iter()
                .map(|d| get(&pat.replace("{}", &d.to_string())))
                .collect();
            let pts: Vec<(f64, f64)> = depths
                .iter()
                .zip(&vals)
                .filter_map(|(d, v)| Some((*d as f64, (*v)?)))
                .collect();
            print!("| {label} |");
            for v in &vals {
                print!(" {} |", fmt_count(*v));
            }
            println!(" {} |", fmt_exp(exponent(&pts)));
        }
        println!();
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let all = cases();
    match args.first().map(String::as_str) {
        Some("--list") => {
            for c in all
                .iter()
                .filter(|c| args.get(1).is_none_or(|g| g == c.group))
            {
                println!("{} {}", c.name, c.n);
            }
        }
        Some("--report") => report(args.get(1).expect("--report <file>")),
        Some("--sizes") => {
            for p in BIG_SIZES {
                println!("bigschema{p}: {} bytes", json_bytes(&big_schema(p).0));
                println!("textschema{p}: {} bytes", json_bytes(&text_schema(p).0));
            }
            let found = largest_accepted_count();
            println!(
                "pattern: {} chars: {}",
                worst_pattern().chars().count(),
                worst_pattern()
            );
            println!(
                "largest accepted count: {found} (WORST_PATTERN_COUNT = {WORST_PATTERN_COUNT})"
            );
            assert_eq!(found, WORST_PATTERN_COUNT, "update WORST_PATTERN_COUNT");
            println!("deepest kept _meta: {}", deepest_kept_meta());
        }
        Some(name) => {
            let c = all
                .iter()
                .find(|c| c.name == name)
                .unwrap_or_else(|| panic!("no case {name}; see --list"));
            let n = args.get(1).map_or(c.n, |n| n.parse().expect("n"));
            (c.run)(n)
        }
        None => eprintln!("usage: icount --list [group] | <case> [n] | --report <file> | --sizes"),
    }
}
