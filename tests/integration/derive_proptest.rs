//! Property tests of the code `#[derive(Elicit)]` generates.
//!
//! 1. Round trip: for arbitrary valid values of several derived types,
//!    `from_content(to_content(x)) == x`, and both `RequestedSchema::validate` and the
//!    `jsonschema` crate accept `to_content(x)`.
//! 2. Agreement: for arbitrary content (valid and adversarial: wrong types, `null`,
//!    lengths on the bounds with multi-byte, combining and astral characters, integers
//!    written as `3.0`, huge and tiny numbers, option titles instead of values, repeated
//!    choices, extra and missing keys, non-objects), `T::from_content` succeeds exactly
//!    when the `jsonschema` crate (JSON Schema 2020-12, format assertion on) accepts the
//!    content against `T`'s schema, and exactly when `requested_schema().validate` does;
//!    when it fails, it reports the very errors `validate` reports.
//!
//! Cases per property: `ELICIT_PROPTEST_CASES`, else 4,000 (round trip) and 6,000
//! (agreement) per type.

use crate::common;
use crate::forms;

use std::collections::{BTreeSet, HashSet};
use std::fmt::Debug;

use elicit::content::{ValidationError, ValidationErrorKind};
use elicit::schema::Format;
use elicit::schema::{
    FormatSpec, IntegerSchema, NumberSchema, Options, PropertyKind, StringSchema,
};
use elicit::typed::MAX_SAFE_INTEGER;
use elicit::{Elicit, RequestedSchema};
use forms::{
    Choices, Color, Level, Numbers, Profile, Refactor, Settings, Strategy as Approach, Strict,
};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use serde_json::{json, Map, Value};

fn runner(default_cases: u32) -> TestRunner {
    TestRunner::new(Config {
        cases: common::gen::cases(default_cases),
        failure_persistence: None,
        ..Config::default()
    })
}

/// The reference validator for a derived schema; `deny_unknown` adds what
/// `deny_unknown_fields` means in JSON Schema.
fn reference(schema: &RequestedSchema, deny_unknown: bool) -> jsonschema::Validator {
    let mut json = schema.to_json();
    if deny_unknown {
        json["additionalProperties"] = json!(false);
    }
    jsonschema::draft202012::options()
        .should_validate_formats(true)
        .build(&json)
        .expect("a derived schema compiles in the reference validator")
}

// ---- round trip -----------------------------------------------------------------------

fn check_round_trip<T, S>(name: &str, strategy: S)
where
    T: Elicit + PartialEq + Debug,
    S: Strategy<Value = T>,
{
    let reference = reference(T::requested_schema(), false);
    let mut runner = runner(4_000);
    runner
        .run(&strategy, |value| {
            let content = value.to_content();
            prop_assert_eq!(
                T::requested_schema().validate(&content),
                Ok(()),
                "{}",
                content
            );
            prop_assert!(
                reference.is_valid(&content),
                "jsonschema refuses {}",
                content
            );
            prop_assert_eq!(T::from_content(&content), Ok(value));
            Ok(())
        })
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    println!("round trip `{name}`: {} cases", runner.config().cases);
}

// `Strategy` is also proptest's trait: the form's enum is imported as `Approach`.
fn approach() -> impl Strategy<Value = Approach> {
    prop::sample::select(
        &[
            Approach::Conservative,
            Approach::Balanced,
            Approach::Aggressive,
        ][..],
    )
}

fn color() -> impl Strategy<Value = Color> {
    prop::sample::select(&[Color::Red, Color::Green, Color::SkyBlue][..])
}

fn level() -> impl Strategy<Value = Level> {
    prop::sample::select(&[Level::VeryLow, Level::High, Level::Maximum][..])
}

/// Any text: ASCII, multi-byte, combining and astral characters.
fn text(len: std::ops::RangeInclusive<usize>) -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            4 => prop::char::range('a', 'z'),
            1 => Just('é'),
            1 => Just('\u{301}'),
            1 => Just('😀'),
            1 => Just('日'),
            1 => Just(' '),
            1 => any::<char>(),
        ],
        len,
    )
    .prop_map(|chars| chars.into_iter().collect())
}

fn email() -> impl Strategy<Value = String> {
    (
        "[a-z][a-z0-9+]{0,8}(\\.[a-z0-9]{1,4})?",
        "[a-z]{1,10}",
        prop::sample::select(&["com", "org", "example"][..]),
    )
        .prop_map(|(local, host, tld)| format!("{local}@{host}.{tld}"))
}

fn date() -> impl Strategy<Value = String> {
    (1000u32..=9999, 1u32..=12, 1u32..=28).prop_map(|(y, m, d)| format!("{y:04}-{m:02}-{d:02}"))
}

fn date_time() -> impl Strategy<Value = String> {
    (
        date(),
        0u32..24,
        0u32..60,
        0u32..60,
        prop::sample::select(&["Z", "+01:00", "-05:30", ".5Z"][..]),
    )
        .prop_map(|(d, h, m, s, zone)| format!("{d}T{h:02}:{m:02}:{s:02}{zone}"))
}

// covers: D5, D13, V1, V2, V3, V6, V7, R3
#[test]
fn round_trip_refactor() {
    check_round_trip(
        "Refactor",
        (approach(), 1u8..=5, proptest::option::of(email())).prop_map(
            |(strategy, passes, notify)| Refactor {
                strategy,
                passes,
                notify,
            },
        ),
    );
}

// covers: V1, V4, V7, D6
#[test]
fn round_trip_profile() {
    check_round_trip(
        "Profile",
        (
            text(1..=64),
            "[a-z][a-z0-9_]{0,15}",
            email(),
            proptest::option::of("https://[a-z]{1,10}\\.example/[a-z0-9]{0,8}"),
            proptest::option::of(date()),
            proptest::option::of(date_time()),
            proptest::option::of(text(2..=40)),
        )
            .prop_map(
                |(full_name, handle, email, homepage, birthday, available_from, notes)| Profile {
                    full_name,
                    handle: handle.into(),
                    email,
                    homepage,
                    birthday,
                    available_from,
                    notes,
                    internal_id: 0,
                },
            ),
    );
}

fn finite_f64() -> impl Strategy<Value = f64> {
    prop_oneof![
        any::<f64>().prop_filter("finite", |f| f.is_finite()),
        Just(f64::MAX),
        Just(f64::MIN),
        Just(f64::MIN_POSITIVE),
        Just(5e-324),
        Just(-0.0),
    ]
}

// covers: D5, V2, V3
#[test]
fn round_trip_numbers() {
    let integers = (
        any::<i8>(),
        1u8..=5,
        any::<i16>(),
        any::<u16>(),
        any::<i32>(),
        any::<u32>(),
        -MAX_SAFE_INTEGER..=MAX_SAFE_INTEGER,
        0..=MAX_SAFE_INTEGER as u64,
        -(MAX_SAFE_INTEGER as isize)..=MAX_SAFE_INTEGER as isize,
        0..=MAX_SAFE_INTEGER as usize,
    );
    let floats = (
        0.5f64..=2.0,
        any::<f32>().prop_filter("finite", |f| f.is_finite()),
        proptest::option::of(finite_f64().prop_map(|f| if f < -1.5 { -f } else { f })),
        proptest::option::of(-10i32..=10),
    );
    check_round_trip(
        "Numbers",
        (integers, floats).prop_map(
            |(
                (tiny, small, short, ushort, int, uint, long, ulong, size, usize_),
                (ratio, single, offset, delta),
            )| {
                Numbers {
                    tiny,
                    small,
                    short,
                    ushort,
                    int,
                    uint,
                    long,
                    ulong,
                    size,
                    usize_,
                    ratio,
                    single,
                    offset,
                    delta,
                }
            },
        ),
    );
}

// covers: F2, V6
#[test]
fn round_trip_choices() {
    check_round_trip(
        "Choices",
        (
            color(),
            approach(),
            proptest::option::of(approach()),
            prop::collection::vec(color(), 1..=2),
            prop::collection::btree_set(approach(), 0..=3),
            prop::collection::hash_set(color(), 0..=3),
            proptest::option::of(prop::collection::vec(approach(), 0..=5)),
            any::<bool>(),
            proptest::option::of(any::<bool>()),
        )
            .prop_map(
                |(
                    color,
                    strategy,
                    fallback,
                    tags,
                    strategies,
                    palette,
                    extras,
                    agree,
                    subscribe,
                )| Choices {
                    color,
                    strategy,
                    fallback,
                    tags,
                    strategies: strategies.into_iter().collect::<BTreeSet<_>>(),
                    palette: palette.into_iter().collect::<HashSet<_>>(),
                    extras,
                    agree,
                    subscribe,
                },
            ),
    );
}

#[test]
fn round_trip_settings() {
    check_round_trip(
        "Settings",
        (
            any::<u8>(),
            text(0..=20),
            any::<bool>(),
            level(),
            proptest::option::of(text(0..=10)),
        )
            .prop_map(
                |(max_passes, language, dry_run, r#type, map_pin)| Settings {
                    max_passes,
                    language,
                    dry_run,
                    cache: Vec::new(),
                    r#type,
                    map_pin,
                },
            ),
    );
}

// ---- agreement on arbitrary content -----------------------------------------------------

/// Content for a schema: each property valid (most often, so that whole answers are
/// valid often enough), absent, `null`, a value near its rules' edges, or a value of
/// another type; sometimes extra keys, sometimes not an object at all.
fn content(schema: &'static RequestedSchema) -> BoxedStrategy<Value> {
    // With n properties, each valid with weight 4n against 6 for the rest, about a
    // quarter of the answers are entirely valid whatever n is.
    let weight = 4 * schema.properties().len().max(1) as u32;
    let properties: Vec<BoxedStrategy<Option<(String, Value)>>> = schema
        .properties()
        .iter()
        .map(|p| {
            let name = p.name().to_owned();
            let label = p.label().to_owned();
            let keyed = |name: String| move |v| Some((name.clone(), v));
            prop_oneof![
                weight => valid_value(p.schema().kind()).prop_map(keyed(name.clone())),
                1 => Just(None),
                1 => Just(Some((name.clone(), Value::Null))),
                2 => edge_value(p.schema().kind()).prop_map(keyed(name.clone())),
                1 => other_type().prop_map(keyed(name.clone())),
                // A key that looks like the property but is not it: its title.
                1 => other_type().prop_map(keyed(label)),
            ]
            .boxed()
        })
        .collect();
    let object = (
        properties,
        proptest::option::weighted(0.2, ("[a-z]{1,6}", other_type())),
    )
        .prop_map(|(entries, extra)| {
            let mut map = Map::new();
            for (k, v) in entries.into_iter().flatten().chain(extra) {
                map.insert(k, v);
            }
            Value::Object(map)
        });
    prop_oneof![30 => object, 1 => other_type()].boxed()
}

/// A value the property accepts, built from its schema alone.
fn valid_value(kind: &PropertyKind) -> BoxedStrategy<Value> {
    match kind {
        PropertyKind::String(s) => {
            let min = s.min_length.unwrap_or(0) as usize;
            let max = s.max_length.map_or(min + 20, |m| m as usize);
            let base: BoxedStrategy<String> = match &s.format {
                Some(FormatSpec::Known(Format::Email)) => email().boxed(),
                Some(FormatSpec::Known(Format::Uri)) => {
                    "https://[a-z]{1,10}\\.example/[a-z0-9]{0,8}".boxed()
                }
                Some(FormatSpec::Known(Format::Date)) => date().boxed(),
                Some(FormatSpec::Known(Format::DateTime)) => date_time().boxed(),
                _ => match &s.pattern {
                    // The patterns of the test forms are anchored character classes,
                    // which proptest generates without the anchors.
                    Some(p) => proptest::string::string_regex(
                        p.source().trim_start_matches('^').trim_end_matches('$'),
                    )
                    .expect("a pattern proptest can generate from")
                    .boxed(),
                    None => text(min..=max).boxed(),
                },
            };
            // Cut to `maxLength`: a prefix still matches the test forms' patterns. The
            // value need not be valid (agreement is the property), only often valid.
            base.prop_map(move |v| Value::String(v.chars().take(max).collect()))
                .boxed()
        }
        PropertyKind::Integer(n) => (n.minimum.unwrap_or(i64::MIN)..=n.maximum.unwrap_or(i64::MAX))
            .prop_map(|i| json!(i))
            .boxed(),
        PropertyKind::Number(n) => (n.minimum.unwrap_or(-1e12)..=n.maximum.unwrap_or(1e12))
            .prop_map(|f| json!(f))
            .boxed(),
        PropertyKind::Boolean(_) => any::<bool>().prop_map(Value::Bool).boxed(),
        PropertyKind::SingleSelect(s) => {
            let values: Vec<Value> = s.options.values().map(|v| json!(v)).collect();
            prop::sample::select(values).boxed()
        }
        PropertyKind::MultiSelect(m) => {
            let values: Vec<Value> = m.options.values().map(|v| json!(v)).collect();
            let min = m.min_items.unwrap_or(0) as usize;
            let max = m.max_items.map_or(min + 4, |m| m as usize);
            prop::collection::vec(prop::sample::select(values), min..=max)
                .prop_map(Value::Array)
                .boxed()
        }
        other => panic!("a derived schema has no {other:?}"),
    }
}

fn other_type() -> BoxedStrategy<Value> {
    prop_oneof![
        Just(Value::Null),
        Just(json!(true)),
        Just(json!(0)),
        Just(json!(-1.5)),
        Just(json!("")),
        Just(json!("x")),
        Just(json!([])),
        Just(json!(["red"])),
        Just(json!({})),
        Just(json!({ "a": [1, null] })),
    ]
    .boxed()
}

/// A value near the edges of the property's rules, valid or not.
fn edge_value(kind: &PropertyKind) -> BoxedStrategy<Value> {
    match kind {
        PropertyKind::String(s) => string_value(s),
        PropertyKind::Integer(n) => integer_value(n),
        PropertyKind::Number(n) => number_value(n),
        PropertyKind::Boolean(_) => prop_oneof![
            4 => any::<bool>().prop_map(Value::Bool),
            1 => prop::sample::select(vec![json!("true"), json!(1), json!(0)]),
        ]
        .boxed(),
        PropertyKind::SingleSelect(s) => option_value(&s.options),
        PropertyKind::MultiSelect(m) => {
            let item = option_value(&m.options);
            prop_oneof![
                8 => prop::collection::vec(item, 0..=4).prop_map(Value::Array),
                1 => option_value(&m.options),
            ]
            .boxed()
        }
        other => panic!("a derived schema has no {other:?}"),
    }
}

/// Strings whose length in Unicode scalar values sits on and around the bounds (V1, D6),
/// built from characters of 1 to 4 UTF-8 bytes and combining marks; values valid and
/// not for the format (V7) and the pattern (V4); the default.
fn string_value(s: &StringSchema) -> BoxedStrategy<Value> {
    let mut lengths: Vec<usize> = vec![0, 1, 2, 3, 5];
    for bound in [s.min_length, s.max_length].into_iter().flatten() {
        let b = bound as usize;
        lengths.extend([b.saturating_sub(1), b, b + 1]);
    }
    let sized = prop::sample::select(lengths).prop_flat_map(|len| {
        prop::collection::vec(
            prop::sample::select(
                &[
                    "a", "Z", "0", "_", "é", "\u{301}", "😀", "日", " ", "@", "-",
                ][..],
            ),
            len,
        )
        .prop_map(|pieces| pieces.concat())
    });
    let mut pool: Vec<String> = Vec::new();
    match &s.format {
        Some(FormatSpec::Known(Format::Email)) => pool.extend(
            [
                "ada@example.com",
                "a.b+c@sub.example.org",
                "Ada <ada@example.com>",
                "ada@[127.0.0.1]",
                "ünï@example.com",
                "a@xn--bcher-kva.example",
                "not an address",
                "@example.com",
                "a@",
                "a@-bad-.com",
                "a@b",
            ]
            .map(String::from),
        ),
        Some(FormatSpec::Known(Format::Uri)) => pool.extend(
            [
                "https://example.com/x?y#z",
                "urn:isbn:0451450523",
                "mailto:a@b.c",
                "http://[::1]:80/",
                "example.com",
                "/relative",
                "http://ex ample.com",
                "https://例え.jp",
                "a:b",
            ]
            .map(String::from),
        ),
        Some(FormatSpec::Known(Format::Date)) => pool.extend(
            [
                "2024-02-29",
                "2023-02-29",
                "2024-13-01",
                "2024-1-01",
                "0000-01-01",
                "9999-12-31",
                "2024-02-29T00:00:00Z",
            ]
            .map(String::from),
        ),
        Some(FormatSpec::Known(Format::DateTime)) => pool.extend(
            [
                "2024-01-01T00:00:00Z",
                "2024-01-01t00:00:00z",
                "2016-12-31T23:59:60Z",
                "2024-01-01T12:00:60Z",
                "2024-01-01T00:00:00+01:00",
                "2024-01-01 00:00:00Z",
                "2024-01-01T00:00:00",
                "2024-01-01T00:00:00.123456789Z",
            ]
            .map(String::from),
        ),
        _ => {}
    }
    pool.extend(s.default.iter().map(|d| d.to_string()));
    pool.push(String::new());
    prop_oneof![
        4 => sized,
        2 => "[a-z][a-z0-9_]{0,17}",
        1 => "[A-Za-z0-9_ ]{0,20}",
        3 => prop::sample::select(pool),
    ]
    .prop_map(Value::String)
    .boxed()
}

/// A JSON number for an integer, in the narrowest form serde_json has for it.
fn int_json(i: i128) -> Value {
    if let Ok(i) = i64::try_from(i) {
        json!(i)
    } else if let Ok(u) = u64::try_from(i) {
        json!(u)
    } else {
        json!(i as f64)
    }
}

/// Integers on and around the bounds, the same written as `x.0` (V2, D5), fractions,
/// values past int64 and uint64, huge and tiny doubles.
fn integer_value(n: &IntegerSchema) -> BoxedStrategy<Value> {
    let min = i128::from(n.minimum.unwrap_or(i64::MIN));
    let max = i128::from(n.maximum.unwrap_or(i64::MAX));
    let edges: Vec<i128> = vec![min - 1, min, min + 1, max - 1, max, max + 1, 0, -1, 3];
    let edges_float = edges.clone();
    prop_oneof![
        4 => prop::sample::select(edges).prop_map(int_json),
        2 => (min..=max).prop_map(int_json),
        // Written as a double: `3.0` is the integer 3 (V2); large ones round.
        2 => prop::sample::select(edges_float).prop_map(|i| json!(i as f64)),
        1 => (-1000i64..1000).prop_map(|i| json!(i as f64 + 0.5)),
        1 => prop::sample::select(vec![
            json!(1e300),
            json!(-1e300),
            json!(1e-300),
            json!(9_223_372_036_854_775_808.0),
            json!(-9_223_372_036_854_775_808.0),
            json!(18_446_744_073_709_551_616.0),
            json!(u64::MAX),
            json!(i64::MIN),
            json!("3"),
        ]),
    ]
    .boxed()
}

/// Numbers on and just past the bounds (the next double), integers, extremes.
fn number_value(n: &NumberSchema) -> BoxedStrategy<Value> {
    let mut edges = vec![0.0, -0.0, 1.0, -1.0, 0.5, f64::MAX, f64::MIN, 5e-324, 1e308];
    for bound in [n.minimum, n.maximum].into_iter().flatten() {
        edges.extend([bound, next_up(bound), next_down(bound)]);
    }
    let lo = n.minimum.unwrap_or(-1e6);
    let hi = n.maximum.unwrap_or(1e6);
    prop_oneof![
        4 => prop::sample::select(edges).prop_map(|f| json!(f)),
        3 => (lo..=hi).prop_map(|f| json!(f)),
        2 => any::<i64>().prop_map(|i| json!(i)),
        1 => prop::sample::select(vec![json!(u64::MAX), json!(i64::MIN), json!("1.5")]),
    ]
    .boxed()
}

fn next_up(f: f64) -> f64 {
    let bits = f.to_bits();
    let next = if f == 0.0 {
        1
    } else if f > 0.0 {
        bits + 1
    } else {
        bits - 1
    };
    f64::from_bits(next)
}

fn next_down(f: f64) -> f64 {
    -next_up(-f)
}

/// Option values, their titles (not values, F2), case changes, near-misses.
fn option_value(options: &Options) -> BoxedStrategy<Value> {
    let values: Vec<String> = options.values().map(str::to_owned).collect();
    let mut wrong: Vec<String> = (0..options.len())
        .filter_map(|i| options.label(i).map(str::to_owned))
        .collect();
    wrong.extend(values.iter().map(|v| v.to_uppercase()));
    wrong.extend(["".to_owned(), "nope".to_owned(), "red ".to_owned()]);
    prop_oneof![
        6 => prop::sample::select(values).prop_map(Value::String),
        2 => prop::sample::select(wrong).prop_map(Value::String),
        1 => prop::sample::select(vec![json!(1), Value::Null, json!(true), json!(["red"])]),
    ]
    .boxed()
}

/// What `from_content` must report: `validate`'s errors and, when unknown keys are
/// denied, one per unknown key in content order (D9).
fn expected_errors(
    schema: &RequestedSchema,
    content: &Value,
    deny_unknown: bool,
) -> Vec<ValidationError> {
    let mut errors: Vec<ValidationError> = match schema.validate(content) {
        Ok(()) => Vec::new(),
        Err(e) => e.into_iter().collect(),
    };
    if let (true, Some(object)) = (deny_unknown, content.as_object()) {
        for key in object.keys().filter(|k| schema.property(k).is_none()) {
            errors.push(ValidationError::new(
                key.as_str(),
                ValidationErrorKind::UnknownField,
            ));
        }
    }
    errors
}

fn check_agreement<T: Elicit + Debug>(name: &str, deny_unknown: bool) {
    let schema = T::requested_schema();
    let reference = reference(schema, deny_unknown);
    let mut runner = runner(6_000);
    let (accepted, refused) = (std::cell::Cell::new(0u32), std::cell::Cell::new(0u32));
    runner
        .run(&content(schema), |content| {
            let ours = T::from_content(&content);
            let expected = reference.is_valid(&content);
            prop_assert_eq!(
                ours.is_ok(),
                expected,
                "content {}\nfrom_content: {:?}",
                content,
                ours
            );
            if !deny_unknown {
                prop_assert_eq!(
                    schema.validate(&content).is_ok(),
                    expected,
                    "content {}",
                    content
                );
            }
            let errors: Vec<ValidationError> = ours
                .err()
                .map(|e| e.into_iter().collect())
                .unwrap_or_default();
            prop_assert_eq!(
                errors,
                expected_errors(schema, &content, deny_unknown),
                "content {}",
                content
            );
            let outcome = if expected { &accepted } else { &refused };
            outcome.set(outcome.get() + 1);
            Ok(())
        })
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    let (accepted, refused) = (accepted.get(), refused.get());
    println!("agreement `{name}`: {accepted} accepted, {refused} refused");
    // Both outcomes must be common, or the property proves little.
    let total = accepted + refused;
    assert!(
        accepted * 50 >= total && refused * 50 >= total,
        "{name}: {accepted} accepted, {refused} refused"
    );
}

// covers: V1, V2, V4, V5, V7, D5, D9, D10
#[test]
fn from_content_agrees_refactor() {
    check_agreement::<Refactor>("Refactor", false);
}

// covers: V1, V4, V7, D6, D10
#[test]
fn from_content_agrees_profile() {
    check_agreement::<Profile>("Profile", false);
}

// covers: V2, V3, D5
#[test]
fn from_content_agrees_numbers() {
    check_agreement::<Numbers>("Numbers", false);
}

// covers: V6, F2
#[test]
fn from_content_agrees_choices() {
    check_agreement::<Choices>("Choices", false);
}

#[test]
fn from_content_agrees_settings() {
    check_agreement::<Settings>("Settings", false);
}

// covers: D9
#[test]
fn from_content_agrees_strict() {
    check_agreement::<Strict>("Strict", true);
}
