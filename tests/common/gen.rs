//! Proptest strategies shared by the tests: schemas inside the elicitation subset
//! (every kind and constraint, titled and untitled options) and content, valid and
//! adversarial.

use proptest::prelude::*;
use serde_json::{json, Map, Value};

/// Proptest cases: `ELICIT_PROPTEST_CASES`, else `default`.
pub fn cases(default: u32) -> u32 {
    std::env::var("ELICIT_PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Strings chosen to sit on every edge the rules have: empty, multi-byte, astral and
/// combining characters (V1), formats and near-misses (V7), option values and titles.
pub const STRINGS: &[&str] = &[
    "",
    "a",
    "ab",
    "abc",
    "é",
    "e\u{301}",
    "😀",
    "😀😀",
    "日本語",
    "a\nb",
    "Red",
    "red",
    "green",
    "A B",
    "x@example.com",
    "first.last@sub.example.org",
    "not an email",
    "a@b",
    "@example.com",
    "https://example.com/a?b=c#d",
    "mailto:x@example.com",
    "urn:isbn:0451450523",
    "relative/path",
    "//example.com",
    "http://[::1]:80/",
    "2024-02-29",
    "2023-02-29",
    "2024-13-01",
    "2024-1-01",
    "2024-01-01T00:00:00Z",
    "2024-01-01t00:00:00z",
    "2024-01-01T23:59:60Z",
    "2024-01-01T00:00:00+05:30",
    "2024-01-01T00:00:00.123-08:00",
    "2024-01-01 00:00:00Z",
    "2024-01-01T25:00:00Z",
    "123",
    "a1b2",
    "ABC",
];

/// Patterns whose ECMA-262 meaning the two engines are expected to share (V4).
pub const PATTERNS: &[&str] = &[
    "^a",
    "b$",
    "[0-9]+",
    "^[a-z]*$",
    "é",
    "\\d",
    "^\\w+$",
    "^.{2}$",
    "x|y",
    "^[^@]+@",
    "\\s",
    "^(a|b)c?",
    "[A-Z]{2,}",
];

pub const OPTIONS: &[&str] = &["a", "b", "Red", "red", "green", "é", "😀", "A B"];
pub const TITLES: &[&str] = &["Alpha", "Beta", "Red", "Green", "Ünïcode", "red"];

pub fn pick<T: Clone + std::fmt::Debug + 'static>(pool: &'static [T]) -> impl Strategy<Value = T> {
    proptest::sample::select(pool)
}

pub fn opt<T: std::fmt::Debug>(s: impl Strategy<Value = T>) -> impl Strategy<Value = Option<T>> {
    proptest::option::weighted(0.4, s)
}

pub fn number_literal() -> impl Strategy<Value = Value> {
    prop_oneof![
        (-3i64..10).prop_map(Value::from),
        Just(json!(i64::MAX)),
        Just(json!(i64::MIN)),
        Just(json!(u64::MAX)),
        Just(json!(9_007_199_254_740_993u64)),
        Just(json!(3.0)),
        Just(json!(2.5)),
        Just(json!(-0.5)),
        Just(json!(-0.0)),
        Just(json!(1e300)),
        Just(json!(-1e300)),
        Just(json!(1e-300)),
        Just(json!(9_007_199_254_740_992.0)),
        (-5.0f64..5.0).prop_map(|f| json!(f)),
    ]
}

fn options(titled: bool) -> impl Strategy<Value = (Vec<&'static str>, Value)> {
    proptest::sample::subsequence(OPTIONS, 1..=4).prop_flat_map(move |values| {
        let n = values.len();
        proptest::collection::vec(pick(TITLES), n).prop_map(move |titles| {
            let json = if titled {
                Value::Array(
                    values
                        .iter()
                        .zip(&titles)
                        .map(|(v, t)| json!({ "const": v, "title": t }))
                        .collect(),
                )
            } else {
                json!(values)
            };
            (values.clone(), json)
        })
    })
}

/// One property schema inside the subset (F2), as JSON.
pub fn property() -> impl Strategy<Value = Value> {
    let string = (
        opt(0u32..4),
        opt(0u32..6),
        opt(pick(PATTERNS)),
        opt(pick(&["email", "uri", "date", "date-time"])),
    )
        .prop_map(|(min, extra, pattern, format)| {
            let mut m = Map::new();
            m.insert("type".into(), json!("string"));
            if let Some(min) = min {
                m.insert("minLength".into(), json!(min));
            }
            if let Some(extra) = extra {
                m.insert("maxLength".into(), json!(min.unwrap_or(0) + extra));
            }
            if let Some(p) = pattern {
                m.insert("pattern".into(), json!(p));
            }
            if let Some(f) = format {
                m.insert("format".into(), json!(f));
            }
            Value::Object(m)
        });
    let integer = (opt(-5i64..5), opt(0i64..10), any::<bool>()).prop_map(|(min, span, extreme)| {
        let mut m = Map::new();
        m.insert("type".into(), json!("integer"));
        if extreme {
            m.insert("minimum".into(), json!(i64::MIN));
            m.insert("maximum".into(), json!(i64::MAX));
        } else {
            if let Some(min) = min {
                m.insert("minimum".into(), json!(min));
            }
            if let Some(span) = span {
                m.insert("maximum".into(), json!(min.unwrap_or(0) + span));
            }
        }
        Value::Object(m)
    });
    let number =
        (opt(-5.0f64..5.0), opt(0.0f64..10.0), any::<bool>()).prop_map(|(min, span, integral)| {
            let mut m = Map::new();
            m.insert("type".into(), json!("number"));
            let fix = |f: f64| {
                if integral {
                    json!(f.round() as i64)
                } else {
                    json!(f)
                }
            };
            if let Some(min) = min {
                m.insert("minimum".into(), fix(min));
            }
            if let Some(span) = span {
                m.insert(
                    "maximum".into(),
                    fix(min.unwrap_or(0.0).max(0.0) + span + 5.0),
                );
            }
            Value::Object(m)
        });
    let boolean = Just(json!({ "type": "boolean" }));
    let single = any::<bool>().prop_flat_map(options).prop_map(|(_, opts)| {
        if opts
            .as_array()
            .is_some_and(|a| a.first().is_some_and(Value::is_object))
        {
            json!({ "type": "string", "oneOf": opts })
        } else {
            json!({ "type": "string", "enum": opts })
        }
    });
    let multi = (
        any::<bool>().prop_flat_map(options),
        opt(0u64..3),
        opt(0u64..3),
    )
        .prop_map(|((_, opts), min, extra)| {
            let items = if opts
                .as_array()
                .is_some_and(|a| a.first().is_some_and(Value::is_object))
            {
                json!({ "anyOf": opts })
            } else {
                json!({ "type": "string", "enum": opts })
            };
            let mut m = Map::new();
            m.insert("type".into(), json!("array"));
            m.insert("items".into(), items);
            if let Some(min) = min {
                m.insert("minItems".into(), json!(min));
            }
            if let Some(extra) = extra {
                m.insert("maxItems".into(), json!(min.unwrap_or(0) + extra));
            }
            Value::Object(m)
        });
    prop_oneof![string, integer, number, boolean, single, multi]
}

pub fn schema() -> impl Strategy<Value = Value> {
    proptest::collection::vec((property(), any::<bool>()), 1..5).prop_map(|props| {
        let mut properties = Map::new();
        let mut required = Vec::new();
        for (i, (p, req)) in props.into_iter().enumerate() {
            let name = format!("p{i}");
            if req {
                required.push(json!(name));
            }
            properties.insert(name, p);
        }
        json!({ "type": "object", "properties": properties, "required": required })
    })
}

/// Any value a client might send for a property: every JSON type, edge strings and
/// numbers, option values and titles, arrays with duplicates and strays.
pub fn value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        3 => pick(STRINGS).prop_map(Value::from),
        3 => pick(OPTIONS).prop_map(Value::from),
        1 => pick(TITLES).prop_map(Value::from),
        3 => number_literal(),
        1 => any::<bool>().prop_map(Value::from),
        1 => Just(Value::Null),
    ];
    prop_oneof![
        6 => leaf.clone(),
        2 => proptest::collection::vec(
            prop_oneof![4 => pick(OPTIONS).prop_map(Value::from), 1 => leaf.clone()],
            0..5
        )
        .prop_map(Value::Array),
        1 => Just(json!({ "nested": 1 })),
    ]
}

/// Content: a value (or nothing) for each of the first properties, plus strays.
pub fn content() -> impl Strategy<Value = Value> {
    prop_oneof![
        12 => (proptest::collection::vec(opt(value()), 5), any::<bool>()).prop_map(|(values, extra)| {
            let mut m = Map::new();
            for (i, v) in values.into_iter().enumerate() {
                if let Some(v) = v {
                    m.insert(format!("p{i}"), v);
                }
            }
            if extra {
                // V5, D9: keys the schema does not declare are allowed.
                m.insert("extra".into(), json!({ "anything": [1, null] }));
            }
            Value::Object(m)
        }),
        1 => value(),
    ]
}
