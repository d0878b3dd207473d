//! What values a property admits: the V rules applied to one value, and to a whole
//! answer.
//!
//! One set of rules, three users: [`RequestedSchema::validate`] applies them to every
//! property of an answer, the strict parse to each `default` against its own property
//! ([D11](crate::rules#d11), through [`schema::Validation`](crate::schema::Validation)),
//! and the typed parsers of `#[derive(Elicit)]` field by field, so all three agree by
//! construction.

use std::cmp::Ordering;

use serde_json::{Map, Number, Value};

use super::error::{json_type_name, ValidationError, ValidationErrorKind};
use super::index::NameIndex;
use crate::schema::{
    FormatSpec, IntegerSchema, MultiSelectSchema, NumberSchema, Options, PropertyKind,
    RequestedSchema, StringSchema, Validation, Validator,
};

/// What the model needs of validation: the tables a schema keeps for it, and the check
/// of a `default` by the same rules as an answer's value ([D11](crate::rules#d11)).
impl Validation for Validator {
    type Tables = NameIndex;
    const NO_TABLES: NameIndex = NameIndex::new();

    fn default_violation(kind: &PropertyKind, value: &Value) -> Option<String> {
        let mut first = None;
        check_value(kind, value, &mut |v| {
            first.get_or_insert_with(|| v.to_string());
        });
        first
    }
}

/// Checks one value against a property kind, reporting each broken rule to `sink`.
/// Returns whether the value was valid.
pub(crate) fn check_value(
    kind: &PropertyKind,
    value: &Value,
    sink: &mut dyn FnMut(ValidationErrorKind),
) -> bool {
    if value.is_null() {
        // D10, for every kind (an unknown type too: null is never a value).
        sink(ValidationErrorKind::Null);
        return false;
    }
    match kind {
        PropertyKind::String(s) => match value {
            Value::String(v) => check_string(s, v, sink),
            other => wrong_type("a string", other, sink),
        },
        PropertyKind::SingleSelect(s) => match value {
            Value::String(v) => check_option(&s.options, v, sink),
            other => wrong_type("a string (one of the options)", other, sink),
        },
        PropertyKind::Number(n) => match value {
            Value::Number(v) => check_bounds(
                v,
                n.minimum.and_then(Number::from_f64).as_ref(),
                n.maximum.and_then(Number::from_f64).as_ref(),
                sink,
            ),
            other => wrong_type("a number", other, sink),
        },
        PropertyKind::Integer(n) => match value {
            // V2: any number with a zero fractional part is an integer.
            Value::Number(v) if is_integer(v) => check_bounds(
                v,
                n.minimum.map(Number::from).as_ref(),
                n.maximum.map(Number::from).as_ref(),
                sink,
            ),
            other => wrong_type("an integer", other, sink),
        },
        PropertyKind::Boolean(_) => match value {
            Value::Bool(_) => true,
            other => wrong_type("a boolean", other, sink),
        },
        PropertyKind::MultiSelect(m) => match value {
            Value::Array(items) => check_items(m, items, sink),
            other => wrong_type("an array of options", other, sink),
        },
        // E6: nothing is known of an unknown type beyond "null is not a value".
        PropertyKind::Unknown(_) => true,
    }
}

fn wrong_type(
    expected: &'static str,
    found: &Value,
    sink: &mut dyn FnMut(ValidationErrorKind),
) -> bool {
    sink(ValidationErrorKind::WrongType {
        expected,
        found: json_type_name(found),
    });
    false
}

/// Whether a JSON number is an integer in JSON Schema's sense ([V2](crate::rules#v2)).
pub(crate) fn is_integer(n: &Number) -> bool {
    n.is_i64()
        || n.is_u64()
        || n.as_f64()
            .is_some_and(|f| f.is_finite() && f.fract() == 0.0)
}

pub(crate) fn check_string(
    s: &StringSchema,
    v: &str,
    sink: &mut dyn FnMut(ValidationErrorKind),
) -> bool {
    let mut ok = true;
    // V1, D6: lengths count Unicode scalar values. A string of `n` bytes holds between
    // `ceil(n / 4)` and `n` of them, so the count is needed only when those bounds do
    // not already settle both limits.
    let settled = s.max_length.is_none_or(|max| v.len() <= max as usize)
        && s.min_length
            .is_none_or(|min| v.len().div_ceil(4) >= min as usize);
    if !settled {
        let len = char_count(v);
        if let Some(min) = s.min_length {
            if len < min as usize {
                sink(ValidationErrorKind::TooShort { min, len });
                ok = false;
            }
        }
        if let Some(max) = s.max_length {
            if len > max as usize {
                sink(ValidationErrorKind::TooLong { max, len });
                ok = false;
            }
        }
    }
    if let Some(p) = &s.pattern {
        // V4: a search, not a full match. An unusable pattern (lenient parse only) is
        // not enforced (D8) and is reported by `RequestedSchema::unenforced`.
        if let Ok(re) = p.regex() {
            if !re.is_match(v) {
                sink(ValidationErrorKind::PatternMismatch {
                    pattern: p.source().to_owned(),
                });
                ok = false;
            }
        }
    }
    if let Some(FormatSpec::Known(format)) = &s.format {
        if !format.is_valid(v) {
            sink(ValidationErrorKind::InvalidFormat { format: *format });
            ok = false;
        }
    }
    ok
}

pub(crate) fn check_option(
    options: &Options,
    v: &str,
    sink: &mut dyn FnMut(ValidationErrorKind),
) -> bool {
    if options.contains(v) {
        return true;
    }
    let did_you_mean = options
        .titled_options()
        .and_then(|o| o.iter().find(|o| o.title() == v))
        .map(|o| o.value().to_owned());
    sink(ValidationErrorKind::NotAnOption {
        value: v.to_owned(),
        did_you_mean,
    });
    false
}

fn check_items(
    m: &MultiSelectSchema,
    items: &[Value],
    sink: &mut dyn FnMut(ValidationErrorKind),
) -> bool {
    let mut ok = true;
    for (index, item) in items.iter().enumerate() {
        match item {
            Value::String(s) if m.options.contains(s) => {}
            Value::String(s) => {
                sink(ValidationErrorKind::ItemNotAnOption {
                    index,
                    value: s.clone(),
                });
                ok = false;
            }
            other => {
                sink(ValidationErrorKind::ItemWrongType {
                    index,
                    found: json_type_name(other),
                });
                ok = false;
            }
        }
    }
    ok & check_item_count(m, items.len(), sink)
}

pub(crate) fn check_item_count(
    m: &MultiSelectSchema,
    len: usize,
    sink: &mut dyn FnMut(ValidationErrorKind),
) -> bool {
    let mut ok = true;
    if let Some(min) = m.min_items {
        if (len as u64) < min {
            sink(ValidationErrorKind::TooFewItems { min, len });
            ok = false;
        }
    }
    if let Some(max) = m.max_items {
        if len as u64 > max {
            sink(ValidationErrorKind::TooManyItems { max, len });
            ok = false;
        }
    }
    ok
}

pub(crate) fn check_bounds(
    v: &Number,
    minimum: Option<&Number>,
    maximum: Option<&Number>,
    sink: &mut dyn FnMut(ValidationErrorKind),
) -> bool {
    let mut ok = true;
    if let Some(min) = minimum {
        if compare_numbers(v, min) == Ordering::Less {
            sink(ValidationErrorKind::BelowMinimum {
                minimum: min.clone(),
            });
            ok = false;
        }
    }
    if let Some(max) = maximum {
        if compare_numbers(v, max) == Ordering::Greater {
            sink(ValidationErrorKind::AboveMaximum {
                maximum: max.clone(),
            });
            ok = false;
        }
    }
    ok
}

/// Exact comparison of two JSON numbers, whatever their representation: converting a
/// large integer to a double would round and let values just past a bound through.
pub(crate) fn compare_numbers(a: &Number, b: &Number) -> Ordering {
    match (exact(a), exact(b)) {
        (Exact::Int(x), Exact::Int(y)) => x.cmp(&y),
        (Exact::Float(x), Exact::Float(y)) => x.partial_cmp(&y).unwrap_or(Ordering::Equal),
        (Exact::Int(x), Exact::Float(y)) => compare_int_float(x, y),
        (Exact::Float(x), Exact::Int(y)) => compare_int_float(y, x).reverse(),
    }
}

enum Exact {
    Int(i128),
    Float(f64),
}

fn exact(n: &Number) -> Exact {
    if let Some(i) = n.as_i64() {
        Exact::Int(i128::from(i))
    } else if let Some(u) = n.as_u64() {
        Exact::Int(i128::from(u))
    } else {
        Exact::Float(n.as_f64().unwrap_or(0.0))
    }
}

fn compare_int_float(i: i128, f: f64) -> Ordering {
    // Every i128 that comes from an i64 or u64 lies within ±2^64.
    const LIMIT: f64 = 18_446_744_073_709_551_616.0 * 2.0;
    if f.is_nan() {
        return Ordering::Equal;
    }
    if f >= LIMIT {
        return Ordering::Less;
    }
    if f <= -LIMIT {
        return Ordering::Greater;
    }
    let floor = f.floor();
    // Exact: |floor| < 2^65 fits an i128, and a float's floor is an integer.
    let fi = floor as i128;
    match i.cmp(&fi) {
        Ordering::Equal if f > floor => Ordering::Less,
        other => other,
    }
}

// ---------------------------------------------------------------------------------------
// Whole answers. Two passes: `admits_content` decides validity on the lean path (no sink,
// bounds compared in their own type, the first failure ends it); only an invalid answer
// is walked again by `content_violations`, which reports every error as before.

impl RequestedSchema {
    /// Whether every property's value in `content` is valid and every required property
    /// is present: the answer of [`RequestedSchema::content_violations`] being empty.
    #[inline(always)]
    pub(crate) fn admits_content(&self, content: &Map<String, Value>) -> bool {
        match self.tables.plan(self.properties()) {
            Some(plan) => plan.admits(self, content),
            None => self.admits_content_directly(content),
        }
    }

    /// [`RequestedSchema::admits_content`] reading the properties themselves, without
    /// the plan (`content::plan`) that later validations build.
    pub(crate) fn admits_content_directly(&self, content: &Map<String, Value>) -> bool {
        let properties = self.properties();
        let mut next = 0;
        let mut matched = 0;
        let mut matched_required = 0;
        for (key, value) in content {
            let Some(i) = self.tables.find(properties, key, next) else {
                // V5, D9: keys the schema does not declare are allowed.
                continue;
            };
            let p = &properties[i];
            if !admits(p.schema().kind(), value) {
                return false;
            }
            // Keys are unique, so each match is a different property.
            matched += 1;
            matched_required += usize::from(p.is_required());
            next = i + 1;
        }
        matched == properties.len()
            || matched_required == properties.iter().filter(|p| p.is_required()).count()
    }

    /// Every violation in `content`, in property order (and, within a property, in the
    /// order `check_value` finds them); `Missing` for each absent required property.
    pub(crate) fn content_violations(&self, content: &Map<String, Value>) -> Vec<ValidationError> {
        let properties = self.properties();
        let mut seen = vec![false; properties.len()];
        let mut found: Vec<(usize, ValidationError)> = Vec::new();
        let mut next = 0;
        for (key, value) in content {
            let Some(i) = self.tables.find(properties, key, next) else {
                continue;
            };
            seen[i] = true;
            next = i + 1;
            let p = &properties[i];
            check_value(p.schema().kind(), value, &mut |v| {
                found.push((i, ValidationError::new(p.name(), v)));
            });
        }
        for (i, p) in properties.iter().enumerate() {
            if p.is_required() && !seen[i] {
                found.push((
                    i,
                    ValidationError::new(p.name(), ValidationErrorKind::missing(p.schema())),
                ));
            }
        }
        // Stable: a property's own errors keep their order.
        found.sort_by_key(|(i, _)| *i);
        found.into_iter().map(|(_, e)| e).collect()
    }
}

/// Whether `value` is valid for `kind`: exactly `check_value(kind, value, …)`'s answer,
/// without reporting. Rare representations (integers beyond `i64`, numbers beyond
/// ±2^53, floats for integers) take `check_value` itself.
#[inline]
pub(crate) fn admits(kind: &PropertyKind, value: &Value) -> bool {
    match (kind, value) {
        (PropertyKind::String(s), Value::String(v)) => string_admits(s, v),
        (PropertyKind::SingleSelect(s), Value::String(v)) => s.options.contains(v),
        (PropertyKind::Integer(n), Value::Number(v)) => match v.as_i64() {
            Some(i) => integer_within(n, i),
            None => check_value(kind, value, &mut |_| {}),
        },
        (PropertyKind::Number(n), Value::Number(v)) => match exact_f64(v) {
            Some(x) => number_within(n, x),
            None => check_value(kind, value, &mut |_| {}),
        },
        (PropertyKind::Boolean(_), Value::Bool(_)) => true,
        (PropertyKind::MultiSelect(m), Value::Array(items)) => {
            items
                .iter()
                .all(|item| matches!(item, Value::String(s) if m.options.contains(s)))
                && m.min_items.is_none_or(|min| items.len() as u64 >= min)
                && m.max_items.is_none_or(|max| items.len() as u64 <= max)
        }
        // E6: only null is refused (D10).
        (PropertyKind::Unknown(_), v) => !v.is_null(),
        // Null (D10) or the wrong type.
        _ => false,
    }
}

fn integer_within(n: &IntegerSchema, i: i64) -> bool {
    n.minimum.is_none_or(|min| i >= min) && n.maximum.is_none_or(|max| i <= max)
}

/// A JSON number as a double when the conversion is exact and `compare_numbers` would
/// give the same order against any double: doubles themselves, and integers within
/// ±2^53.
#[inline]
pub(crate) fn exact_f64(v: &Number) -> Option<f64> {
    const EXACT: u64 = 1 << 53;
    if v.is_f64() {
        v.as_f64()
    } else if let Some(i) = v.as_i64() {
        (i.unsigned_abs() <= EXACT).then_some(i as f64)
    } else {
        None
    }
}

fn number_within(n: &NumberSchema, x: f64) -> bool {
    // A bound that is not a JSON number (infinite or NaN) bounds nothing, as in
    // `check_value` (`Number::from_f64` gives `None`).
    n.minimum.is_none_or(|min| !min.is_finite() || x >= min)
        && n.maximum.is_none_or(|max| !max.is_finite() || x <= max)
}

#[inline]
fn string_admits(s: &StringSchema, v: &str) -> bool {
    if !length_within(v, s.min_length, s.max_length) {
        return false;
    }
    if let Some(p) = &s.pattern {
        if let Ok(re) = p.regex() {
            if !re.is_match(v) {
                return false;
            }
        }
    }
    match &s.format {
        Some(FormatSpec::Known(format)) => format.is_valid(v),
        _ => true,
    }
}

/// Whether `v`'s length in Unicode scalar values is within the bounds ([V1](crate::rules#v1), [D6](crate::rules#d6)),
/// counted only when the byte length (`n` bytes hold between `ceil(n / 4)` and `n`
/// characters) does not decide it.
#[inline]
pub(crate) fn length_within(v: &str, min: Option<u32>, max: Option<u32>) -> bool {
    let bytes = v.len();
    let at_most = bytes;
    let at_least = bytes.div_ceil(4);
    let min_ok = min.is_none_or(|m| at_least >= m as usize);
    let max_ok = max.is_none_or(|m| at_most <= m as usize);
    if min_ok && max_ok {
        return true;
    }
    if min.is_some_and(|m| at_most < m as usize) || max.is_some_and(|m| at_least > m as usize) {
        return false;
    }
    let len = char_count(v);
    min.is_none_or(|m| len >= m as usize) && max.is_none_or(|m| len <= m as usize)
}

/// The number of Unicode scalar values in `s` ([D6](crate::rules#d6)): its bytes that are
/// not UTF-8 continuation bytes. std's counter does that a word at a time (0.65
/// instructions per byte); from [`SIMD_COUNT`] bytes on, `bytecount` counts 32 bytes per
/// AVX2 step where the machine has it (SSE2 otherwise), as `jsonschema` does.
///
/// Out of line: it runs only when the byte length does not settle a bound, and inlined
/// it kept [`length_within`] from being inlined into `validate`'s loop (30 instructions
/// more on a small form).
#[inline(never)]
pub(crate) fn char_count(s: &str) -> usize {
    if s.len() >= SIMD_COUNT {
        bytecount::num_chars(s.as_bytes())
    } else {
        s.chars().count()
    }
}

/// Below this many bytes, std's count costs less than `bytecount`'s feature detection
/// and set-up.
const SIMD_COUNT: usize = 64;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::Format;

    // covers: V2, V3
    #[test]
    fn integer_and_float_compare_exactly() {
        let big = Number::from(9_007_199_254_740_993_u64);
        let bound = Number::from_f64(9_007_199_254_740_992.0).unwrap();
        assert_eq!(compare_numbers(&big, &bound), Ordering::Greater);
        assert_eq!(compare_numbers(&bound, &big), Ordering::Less);
        let half = Number::from_f64(2.5).unwrap();
        assert_eq!(compare_numbers(&Number::from(2), &half), Ordering::Less);
        assert_eq!(compare_numbers(&Number::from(3), &half), Ordering::Greater);
        assert_eq!(
            compare_numbers(&Number::from(-3), &Number::from_f64(-2.5).unwrap()),
            Ordering::Less
        );
        assert_eq!(
            compare_numbers(&Number::from(u64::MAX), &Number::from_f64(1e300).unwrap()),
            Ordering::Less
        );
        assert_eq!(
            compare_numbers(&Number::from(i64::MIN), &Number::from_f64(-1e300).unwrap()),
            Ordering::Greater
        );
        assert_eq!(
            compare_numbers(&Number::from(7), &Number::from_f64(7.0).unwrap()),
            Ordering::Equal
        );
    }

    // covers: V2
    #[test]
    fn integers_include_zero_fraction_floats() {
        assert!(is_integer(&Number::from_f64(3.0).unwrap()));
        assert!(is_integer(&Number::from_f64(1e300).unwrap()));
        assert!(!is_integer(&Number::from_f64(3.5).unwrap()));
        assert!(is_integer(&Number::from(u64::MAX)));
    }

    // covers: V1, D6
    #[test]
    fn lengths_skip_the_count_only_when_the_byte_length_settles_it() {
        let texts = [
            "",
            "a",
            "ab",
            "é",
            "éé",
            "€€€",
            "𝄞",
            "𝄞𝄞",
            "a𝄞é€",
            "abcdefgh",
            "𝄞𝄞𝄞𝄞𝄞",
        ];
        for text in texts {
            let len = text.chars().count() as u32;
            for min in (0..=9).map(Some).chain([None]) {
                for max in (0..=9).map(Some).chain([None]) {
                    let schema = StringSchema {
                        min_length: min,
                        max_length: max,
                        ..StringSchema::default()
                    };
                    let expected = min.is_none_or(|m| len >= m) && max.is_none_or(|m| len <= m);
                    let mut reported = Vec::new();
                    let ok = check_string(&schema, text, &mut |v| reported.push(v));
                    assert_eq!(ok, expected, "{text:?} with {min:?}..{max:?}");
                    assert_eq!(reported.is_empty(), expected);
                }
            }
        }
    }

    // covers: V1, D6
    #[test]
    fn char_count_agrees_with_chars_at_every_block_boundary() {
        let pieces = [
            "a",
            "é",
            "€",
            "𝄞",
            "ab",
            "\u{80}",
            "\u{7FF}",
            "\u{FFFF}",
            "\u{10FFFF}",
        ];
        let mut seed: u64 = 0x1234_5678;
        let mut text = String::new();
        // Past 255 blocks of 32 bytes, where the lanes are summed and reset.
        while text.len() < 32 * 255 * 2 + 100 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            text.push_str(pieces[(seed % pieces.len() as u64) as usize]);
        }
        let ends: Vec<usize> = (0..=text.len())
            .filter(|&i| text.is_char_boundary(i))
            .collect();
        for &end in ends
            .iter()
            .filter(|&&e| e < 300 || e % 97 == 0 || e + 40 > text.len())
        {
            for start in [0, 1, 2, 3, 4, 5, 7, 8, 31, 32, 33] {
                let Some(part) = text.get(start..end) else {
                    continue;
                };
                assert_eq!(char_count(part), part.chars().count(), "{start}..{end}");
            }
        }
        let four = "𝄞".repeat(32 * 255 + 3);
        assert_eq!(char_count(&four), 32 * 255 + 3);
        let ascii = "x".repeat(32 * 255 * 3 + 5);
        assert_eq!(char_count(&ascii), ascii.len());
    }

    fn kinds() -> Vec<PropertyKind> {
        use crate::schema::{BooleanSchema, EnumOption, Pattern, SingleSelectSchema};
        let untitled = || Options::Untitled(vec!["red".into(), "green".into(), "".into()].into());
        vec![
            PropertyKind::String(StringSchema::default()),
            PropertyKind::String(StringSchema {
                min_length: Some(2),
                max_length: Some(3),
                ..StringSchema::default()
            }),
            PropertyKind::String(StringSchema {
                min_length: Some(9),
                ..StringSchema::default()
            }),
            PropertyKind::String(StringSchema {
                pattern: Some(Pattern::new("^[a-z]+$").unwrap()),
                format: Some(FormatSpec::Known(Format::Email)),
                ..StringSchema::default()
            }),
            PropertyKind::String(StringSchema {
                format: Some(FormatSpec::Known(Format::Date)),
                ..StringSchema::default()
            }),
            PropertyKind::Integer(IntegerSchema {
                minimum: Some(-3),
                maximum: Some(1000),
                default: None,
            }),
            PropertyKind::Integer(IntegerSchema {
                minimum: Some(i64::MIN),
                maximum: None,
                default: None,
            }),
            PropertyKind::Number(NumberSchema {
                minimum: Some(-0.5),
                maximum: Some(9_007_199_254_740_992.0),
                default: None,
            }),
            PropertyKind::Number(NumberSchema {
                minimum: Some(f64::NEG_INFINITY),
                maximum: Some(1e300),
                default: None,
            }),
            PropertyKind::Boolean(BooleanSchema::default()),
            PropertyKind::SingleSelect(SingleSelectSchema {
                options: untitled(),
                default: None,
            }),
            PropertyKind::SingleSelect(SingleSelectSchema {
                options: Options::Titled(
                    vec![
                        EnumOption::new("a-long-option-value-1", "One"),
                        EnumOption::new("a-long-option-value-2", "Two"),
                    ]
                    .into(),
                ),
                default: None,
            }),
            PropertyKind::MultiSelect(MultiSelectSchema {
                options: untitled(),
                min_items: Some(1),
                max_items: Some(2),
                default: None,
            }),
            PropertyKind::Unknown(crate::schema::UnknownProperty { raw: Map::new() }),
        ]
    }

    fn values() -> Vec<Value> {
        use serde_json::json;
        vec![
            json!(null),
            json!(true),
            json!(""),
            json!("ab"),
            json!("abcd"),
            json!("é€𝄞"),
            json!("€€"),
            json!("abcdefghij"),
            json!("ada@example.com"),
            json!("a..b@example.com"),
            json!("2026-02-29"),
            json!("2024-02-29"),
            json!("red"),
            json!("Red"),
            json!("a-long-option-value-2"),
            json!("a-long-option-value-3"),
            json!("One"),
            json!(-4),
            json!(-3),
            json!(1000),
            json!(1001),
            json!(3.0),
            json!(3.5),
            json!(-0.5),
            json!(-0.0),
            json!(i64::MIN),
            json!(u64::MAX),
            json!(9_007_199_254_740_993_u64),
            json!(9_007_199_254_740_992_i64),
            json!(-9_007_199_254_740_993_i64),
            json!(1e300),
            json!(1e301),
            json!([]),
            json!(["red"]),
            json!(["red", "red", "green"]),
            json!(["red", 1]),
            json!(["blue"]),
            json!({}),
        ]
    }

    // covers: V1, V2, V3, V6, V7, D10
    #[test]
    fn admits_agrees_with_check_value() {
        for kind in kinds() {
            for value in values() {
                assert_eq!(
                    admits(&kind, &value),
                    check_value(&kind, &value, &mut |_| {}),
                    "{kind:?} with {value}"
                );
            }
        }
    }

    /// The validation of an answer as it was before the walk: each property in
    /// declaration order, its value looked up by name.
    fn reference(schema: &RequestedSchema, content: &Map<String, Value>) -> Vec<ValidationError> {
        let mut errors = Vec::new();
        for p in schema.properties() {
            match content.get(p.name()) {
                None if p.is_required() => errors.push(ValidationError::new(
                    p.name(),
                    ValidationErrorKind::missing(p.schema()),
                )),
                None => {}
                Some(v) => {
                    check_value(p.schema().kind(), v, &mut |e| {
                        errors.push(ValidationError::new(p.name(), e))
                    });
                }
            }
        }
        errors
    }

    // covers: V5, D9, D10
    #[test]
    fn any_key_order_gives_the_errors_of_declaration_order_at_every_size() {
        use crate::schema::{Property, PropertySchema};
        let kinds = kinds();
        let values = values();
        let mut seed: u64 = 0xfeed;
        let mut random = move |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        };
        for size in [1, 3, 8, 9, 40, 64, 65, 200, 300] {
            let properties: Vec<Property> = (0..size)
                .map(|i| {
                    Property::new(
                        format!("p{}_{}", i % 7, "x".repeat(i % 5)) + &i.to_string(),
                        i % 3 != 0,
                        PropertySchema::new(kinds[i % kinds.len()].clone()),
                    )
                })
                .collect();
            let schema = RequestedSchema::from_static(None, None, Vec::leak(properties));
            for round in 0..40 {
                // Some properties absent, some invalid, unknown keys in between.
                let mut entries: Vec<(String, Value)> = Vec::new();
                for p in schema.properties() {
                    if random(6) != 0 {
                        let value = if round % 4 == 0 {
                            values[random(values.len())].clone()
                        } else {
                            // Mostly valid answers: the first value the kind admits.
                            values
                                .iter()
                                .find(|v| admits(p.schema().kind(), v))
                                .cloned()
                                .unwrap_or(Value::Bool(true))
                        };
                        entries.push((p.name().to_owned(), value));
                    }
                    if random(10) == 0 {
                        entries.push((format!("unknown{}", random(1000)), Value::Null));
                    }
                }
                match round % 3 {
                    0 => {}
                    1 => entries.reverse(),
                    _ => {
                        for i in (1..entries.len()).rev() {
                            entries.swap(i, random(i + 1));
                        }
                    }
                }
                let content: Map<String, Value> = entries.into_iter().collect();
                let expected = reference(&schema, &content);
                let json = Value::Object(content.clone());
                assert_eq!(
                    schema.is_valid(&json),
                    expected.is_empty(),
                    "{size}/{round}"
                );
                match schema.validate(&json) {
                    Ok(()) => assert!(expected.is_empty(), "{size}/{round}: {expected:?}"),
                    Err(errors) => assert_eq!(errors.errors(), expected, "{size}/{round}"),
                }
            }
        }
    }
}
