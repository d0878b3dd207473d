//! The check plan: what `validate` needs of each property, laid out for the walk over an
//! answer, built from a schema the second time it validates.
//!
//! A schema's properties are built for the wire and for forms: a name is a [`Text`](crate::schema::Text) whose
//! bytes sit behind a reference-counted buffer, bounds are `Option`s, and options are
//! texts too. Validating an answer against them reads all of that for every key. The
//! plan keeps, per property, its name as a length and two words (for names of up to 16
//! bytes these decide equality without reading the name), its bounds with the absent
//! ones already made infinite, and its options as words too, sorted for a binary search
//! when a select has many. A value the plan does not cover (a pattern, a format, a number
//! beyond `i64`) is checked by [`admits`](super::check::admits) itself, so the plan
//! cannot disagree with the rules.
//!
//! Building the plan costs about as much as one validation, and most schemas a client
//! parses are validated once, so the first validation walks the schema directly and the
//! second builds the plan (a tiered design, as compilers of hot code do).

use std::ops::Range;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;

use serde_json::{Map, Value};

use super::check::{admits, exact_f64, length_within};
use crate::format::Format;
use crate::schema::{FormatSpec, Options, Property, PropertyKind, RequestedSchema};
#[cfg(test)]
use crate::schema::{PropertySchema, Text};
use crate::store::key::{Key, KeyTable, EXACT_KEY};

/// Up to this many options, a select's options are scanned; above it, binary searched.
const SCAN_OPTIONS: usize = 16;

/// The plan of one schema, once it has validated twice.
pub(crate) struct PlanCell {
    plan: OnceLock<Plan>,
    validated: AtomicBool,
}

impl PlanCell {
    /// No plan yet (usable in a `static`).
    pub(crate) const fn new() -> Self {
        PlanCell {
            plan: OnceLock::new(),
            validated: AtomicBool::new(false),
        }
    }

    /// The plan, built now if the schema has validated before; `None` the first time.
    #[inline]
    pub(crate) fn get(&self, properties: &[Property]) -> Option<&Plan> {
        if let Some(plan) = self.plan.get() {
            return Some(plan);
        }
        if !self.validated.swap(true, Ordering::Relaxed) {
            return None;
        }
        Some(self.plan.get_or_init(|| Plan::new(properties)))
    }
}

/// The plan: one step per property, in declaration order.
pub(crate) struct Plan {
    steps: Box<[Step]>,
    /// The option keys of every select, each select's in one range (`Rule::Options`).
    options: Box<[Key]>,
    /// The steps by name key, for keys out of order; each key once, at its first step.
    slots: KeyTable,
    required: usize,
    /// One past the last required step: an answer whose members are the first `n`
    /// properties in order holds every required one when `n` reaches it.
    required_end: usize,
}

struct Step {
    name: Key,
    required: bool,
    rule: Rule,
}

/// What a value must be, with absent bounds made infinite. A plain tag (`repr(u8)`): with
/// the tag in a niche of a variant's fields, each dispatch first decoded it (a
/// subtraction and a conditional move).
#[repr(u8)]
enum Rule {
    Bool,
    Integer {
        min: i64,
        max: i64,
    },
    Number {
        min: f64,
        max: f64,
    },
    /// A string with at most length bounds (in Unicode scalar values).
    Text(Lengths),
    /// A string with a format, and perhaps length bounds.
    Format {
        lengths: Lengths,
        format: Format,
    },
    /// A single select whose options are `options[range]`.
    Select {
        options: OptionRange,
    },
    /// A multi-select.
    Multi {
        options: OptionRange,
        min: u64,
        max: u64,
    },
    /// Anything else (a pattern, a format, an unknown type): [`admits`] decides.
    Other,
}

/// A string's length bounds, in Unicode scalar values, and the byte lengths that settle
/// them without counting (V1, D6: `n` bytes hold between `ceil(n / 4)` and `n` scalar
/// values): from `4 * min - 3` bytes a text has at least `min` of them, and up to `max`
/// bytes at most `max`.
struct Lengths {
    min: Option<u32>,
    max: Option<u32>,
    settled: std::ops::RangeInclusive<usize>,
}

impl Lengths {
    fn new(min: Option<u32>, max: Option<u32>) -> Lengths {
        let low = min.map_or(0, |m| (m as usize * 4).saturating_sub(3));
        let high = max.map_or(usize::MAX, |m| m as usize);
        Lengths {
            min,
            max,
            settled: low..=high,
        }
    }

    /// Whether `s` is within the bounds: by its byte length alone nearly always.
    #[inline(always)]
    fn admit(&self, s: &str) -> bool {
        self.settled.contains(&s.len()) || length_within(s, self.min, self.max)
    }
}

struct OptionRange {
    range: Range<u32>,
    /// Sorted by key (for a binary search), or in declaration order (for a scan).
    sorted: bool,
}

impl Plan {
    fn new(properties: &[Property]) -> Plan {
        let mut options = Vec::new();
        let steps: Box<[Step]> = properties
            .iter()
            .map(|p| Step {
                name: Key::of(p.name().as_bytes()),
                required: p.is_required(),
                rule: Rule::of(p.schema().kind(), &mut options),
            })
            .collect();
        let slots = KeyTable::new(
            steps.len(),
            |i| steps[i].name.hash(),
            |a, b| steps[a].name == steps[b].name,
        );
        Plan {
            steps,
            options: options.into_boxed_slice(),
            slots,
            required: properties.iter().filter(|p| p.is_required()).count(),
            required_end: properties
                .iter()
                .rposition(Property::is_required)
                .map_or(0, |last| last + 1),
        }
    }

    /// [`RequestedSchema::admits_content`], by the plan.
    ///
    /// Answers nearly always list their members in property order, so the members and
    /// the steps are walked in step while each member is the next step's short name:
    /// no index to keep, no count to make. The first member out of step hands the rest
    /// over to [`Plan::admits_in_any_order`].
    pub(crate) fn admits(&self, schema: &RequestedSchema, content: &Map<String, Value>) -> bool {
        let mut members = content.iter();
        for (i, step) in self.steps.iter().enumerate() {
            let Some((key, value)) = members.next() else {
                // The answer ended: the properties after it must all be optional.
                return i >= self.required_end;
            };
            if !step.name.is_short(key.as_bytes()) {
                return self.admits_in_any_order(schema, i, (key, value), members);
            }
            if !self.admits_value(schema, i, &step.rule, value) {
                return false;
            }
        }
        // Every property, in order; a member left over names none of them (V5, D9:
        // allowed), since an object's keys are unique.
        true
    }

    /// Whether the plan admits `value` for step `i`, asking [`admits`] where it cannot
    /// tell.
    #[inline(always)]
    fn admits_value(&self, schema: &RequestedSchema, i: usize, rule: &Rule, value: &Value) -> bool {
        match self.verdict(rule, value) {
            Verdict::Valid => true,
            Verdict::Invalid => false,
            Verdict::Ask => ask(schema, i, value),
        }
    }

    /// [`Plan::admits`] from member `first`, the first that is not the short name of
    /// step `next`, every step before it matched in order.
    #[cold]
    #[inline(never)]
    fn admits_in_any_order<'a>(
        &self,
        schema: &RequestedSchema,
        mut next: usize,
        first: (&'a String, &'a Value),
        rest: serde_json::map::Iter<'a>,
    ) -> bool {
        let steps = &self.steps;
        let mut matched = next;
        let mut matched_required = steps
            .get(..next)
            .map_or(0, |done| done.iter().filter(|step| step.required).count());
        for (key, value) in std::iter::once(first).chain(rest) {
            let i = match steps.get(next) {
                Some(step) if step.name.is_short(key.as_bytes()) => next,
                _ => match self.find(schema, key, next) {
                    Some(i) => i,
                    // V5, D9: keys the schema does not declare are allowed.
                    None => continue,
                },
            };
            let Some(step) = steps.get(i) else {
                continue;
            };
            if !self.admits_value(schema, i, &step.rule, value) {
                return false;
            }
            matched += 1;
            matched_required += usize::from(step.required);
            next = i + 1;
        }
        matched == steps.len() || matched_required == self.required
    }

    /// The property named `key` when it is not the short name of property `next`: a
    /// short key by the hash table of name keys (about 20 instructions, whatever the
    /// order of the answer), a long one by the schema's name index.
    #[cold]
    #[inline(never)]
    fn find(&self, schema: &RequestedSchema, key: &str, next: usize) -> Option<usize> {
        let bytes = key.as_bytes();
        if bytes.len() <= EXACT_KEY {
            return self.slot_of(Key::of(bytes));
        }
        let properties = schema.properties();
        match (self.steps.get(next), properties.get(next)) {
            (Some(step), Some(p)) if step.name.matches(bytes, || p.name().as_bytes()) => Some(next),
            _ => schema.tables.search(properties, key, next),
        }
    }

    /// The first step whose name key is `wanted` (exact for keys of up to
    /// [`EXACT_KEY`] bytes).
    #[inline]
    fn slot_of(&self, wanted: Key) -> Option<usize> {
        self.slots.find(wanted.hash(), |i| {
            self.steps.get(i).is_some_and(|step| step.name == wanted)
        })
    }

    /// What the plan alone says of `value`.
    #[inline(always)]
    fn verdict(&self, rule: &Rule, value: &Value) -> Verdict {
        match rule {
            Rule::Bool => Verdict::from(matches!(value, Value::Bool(_))),
            Rule::Integer { min, max } => match value {
                Value::Number(n) => match n.as_i64() {
                    Some(x) => Verdict::from(*min <= x && x <= *max),
                    None => Verdict::Ask,
                },
                _ => Verdict::Invalid,
            },
            Rule::Text(lengths) => match value {
                Value::String(s) => Verdict::from(lengths.admit(s)),
                _ => Verdict::Invalid,
            },
            Rule::Format { lengths, format } => match value {
                Value::String(s) => Verdict::from(lengths.admit(s) && format.is_valid(s)),
                _ => Verdict::Invalid,
            },
            Rule::Select { options } => match value {
                Value::String(s) => self.contains(options, s),
                _ => Verdict::Invalid,
            },
            Rule::Multi { options, min, max } => match value {
                Value::Array(items) => {
                    let len = items.len() as u64;
                    if len < *min || len > *max {
                        return Verdict::Invalid;
                    }
                    let mut verdict = Verdict::Valid;
                    for item in items {
                        match item {
                            Value::String(s) => match self.contains(options, s) {
                                Verdict::Valid => {}
                                Verdict::Invalid => return Verdict::Invalid,
                                Verdict::Ask => verdict = Verdict::Ask,
                            },
                            _ => return Verdict::Invalid,
                        }
                    }
                    verdict
                }
                _ => Verdict::Invalid,
            },
            Rule::Number { min, max } => match value {
                Value::Number(n) => match exact_f64(n) {
                    Some(x) => Verdict::from(*min <= x && x <= *max),
                    None => Verdict::Ask,
                },
                _ => Verdict::Invalid,
            },
            Rule::Other => Verdict::Ask,
        }
    }

    /// Whether `value` is one of the options in `range`: [`Verdict::Ask`] when only an
    /// option longer than a key decides could be it. Inlined into the walk: a call per
    /// select cost as much as its scan of a few options.
    #[inline(always)]
    fn contains(&self, range: &OptionRange, value: &str) -> Verdict {
        let Some(keys) = self
            .options
            .get(range.range.start as usize..range.range.end as usize)
        else {
            return Verdict::Ask;
        };
        let wanted = Key::of(value.as_bytes());
        let found = if range.sorted {
            let first = keys.partition_point(|o| *o < wanted);
            keys.get(first) == Some(&wanted)
        } else {
            keys.contains(&wanted)
        };
        match found {
            false => Verdict::Invalid,
            true if wanted.is_exact() => Verdict::Valid,
            true => Verdict::Ask,
        }
    }
}

/// What the plan says of a value: valid, invalid, or "ask [`admits`]" (patterns,
/// numbers beyond the plan's representations, unknown types, counts the byte length
/// does not settle, texts longer than a key decides).
enum Verdict {
    Valid,
    Invalid,
    Ask,
}

impl From<bool> for Verdict {
    #[inline(always)]
    fn from(valid: bool) -> Self {
        if valid {
            Verdict::Valid
        } else {
            Verdict::Invalid
        }
    }
}

/// [`admits`] for property `i` of `schema`.
#[cold]
#[inline(never)]
fn ask(schema: &RequestedSchema, i: usize, value: &Value) -> bool {
    schema
        .properties()
        .get(i)
        .is_some_and(|p| admits(p.schema().kind(), value))
}

impl Rule {
    fn of(kind: &PropertyKind, options: &mut Vec<Key>) -> Rule {
        match kind {
            PropertyKind::Boolean(_) => Rule::Bool,
            PropertyKind::Number(n) => Rule::Number {
                // A bound that is not a JSON number (infinite or NaN) bounds nothing, as
                // in `check_value`.
                min: n
                    .minimum
                    .filter(|m| m.is_finite())
                    .unwrap_or(f64::NEG_INFINITY),
                max: n.maximum.filter(|m| m.is_finite()).unwrap_or(f64::INFINITY),
            },
            PropertyKind::Integer(n) => Rule::Integer {
                min: n.minimum.unwrap_or(i64::MIN),
                max: n.maximum.unwrap_or(i64::MAX),
            },
            PropertyKind::String(s)
                if s.pattern.is_none() && !matches!(s.format, Some(FormatSpec::Known(_))) =>
            {
                Rule::Text(Lengths::new(s.min_length, s.max_length))
            }
            PropertyKind::String(s) if s.pattern.is_none() => match s.format {
                Some(FormatSpec::Known(format)) => Rule::Format {
                    lengths: Lengths::new(s.min_length, s.max_length),
                    format,
                },
                _ => Rule::Other,
            },
            PropertyKind::SingleSelect(s) => Rule::Select {
                options: OptionRange::push(&s.options, options),
            },
            PropertyKind::MultiSelect(m) => Rule::Multi {
                options: OptionRange::push(&m.options, options),
                min: m.min_items.unwrap_or(0),
                max: m.max_items.unwrap_or(u64::MAX),
            },
            _ => Rule::Other,
        }
    }
}

impl OptionRange {
    /// Appends the keys of `options` to `keys`, sorted when there are many.
    fn push(options: &Options, keys: &mut Vec<Key>) -> OptionRange {
        let start = keys.len();
        keys.extend(options.values().map(|v| Key::of(v.as_bytes())));
        let sorted = options.len() > SCAN_OPTIONS;
        if sorted {
            keys[start..].sort_unstable();
        }
        OptionRange {
            range: start as u32..keys.len() as u32,
            sorted,
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// Long names and options that agree on their first and last eight bytes, so that
    /// only the text itself tells them apart.
    fn long(middle: &str) -> String {
        format!("abcdefgh_{middle}_stuvwxyz")
    }

    fn schemas() -> Vec<Value> {
        let many: Vec<String> = (0..40).map(|i| format!("opt{}", i * 7 % 40)).collect();
        let mut long_options: Vec<String> = (0..20).map(|i| long(&format!("o{i:02}"))).collect();
        long_options.push("x".into());
        json!([
            {"type": "object", "properties": {
                "s": {"type": "string", "minLength": 2, "maxLength": 3},
                "i": {"type": "integer", "minimum": -2, "maximum": 5},
                "n": {"type": "number", "minimum": -1.5, "maximum": 2.5},
                "b": {"type": "boolean"},
                "e": {"type": "string", "enum": ["a", "bb", "ccc", "dddd"]},
                "m": {"type": "array", "minItems": 1, "maxItems": 2,
                      "items": {"type": "string", "enum": ["x", "yy"]}},
                "f": {"type": "string", "format": "date", "maxLength": 10},
                "p": {"type": "string", "pattern": "^[a-z]+$"},
                "u": {"type": "integer"},
                "v": {"type": "number"}
            }, "required": ["s", "i", "e"]},
            {"type": "object", "properties": {
                (long("one")): {"type": "string", "enum": many},
                (long("two")): {"type": "array", "items": {"type": "string", "enum": long_options}},
                "": {"type": "boolean"},
                "é": {"type": "string", "maxLength": 1}
            }, "required": [long("two")]},
        ])
        .as_array()
        .unwrap()
        .clone()
    }

    fn values() -> Vec<Value> {
        let mut values = vec![
            json!(null),
            json!(true),
            json!(0),
            json!(-2),
            json!(-3),
            json!(5),
            json!(6),
            json!(3.0),
            json!(2.5),
            json!(-1.5),
            json!(-1.6),
            json!(1e300),
            json!(u64::MAX),
            json!(i64::MIN),
            json!(9_007_199_254_740_993_u64),
            json!(""),
            json!("a"),
            json!("bb"),
            json!("ccc"),
            json!("dddd"),
            json!("é"),
            json!("éé"),
            json!("éée"),
            json!("𝄞𝄞"),
            json!("x"),
            json!("yy"),
            json!("2024-02-29"),
            json!("2023-02-29"),
            json!("opt39"),
            json!("opt40"),
            json!(long("o07")),
            json!(long("o7_")),
            json!([]),
            json!(["x"]),
            json!(["x", "yy"]),
            json!(["x", "yy", "x"]),
            json!(["zz"]),
            json!([1]),
            json!([long("o19"), "x"]),
            json!([long("o20")]),
            json!({}),
        ];
        values.extend((0..40).map(|i| json!(format!("opt{i}"))));
        values
    }

    /// The plan agrees with the direct walk and with the full report, whatever the
    /// values, the keys' order, and the keys present.
    // covers: V1, V2, V3, V5, V6, D6, D9, D10
    #[test]
    fn the_plan_agrees_with_the_direct_walk() {
        let values = values();
        for schema_json in schemas() {
            let schema = RequestedSchema::from_json(&schema_json).unwrap();
            let plan = Plan::new(schema.properties());
            let names: Vec<String> = schema
                .properties()
                .iter()
                .map(|p| p.name().to_owned())
                .chain(["unknown".to_owned(), long("on_")])
                .collect();
            let mut checked = 0;
            // Each property in turn takes every value, the others a valid one or none.
            let base = valid_content(&schema);
            for name in &names {
                for value in &values {
                    // As declared, reversed, and sorted by name (serde_json's map
                    // without `preserve_order`).
                    for order in 0..3 {
                        for drop_others in [false, true] {
                            let mut entries: Vec<(String, Value)> = if drop_others {
                                Vec::new()
                            } else {
                                base.iter()
                                    .filter(|(k, _)| *k != name)
                                    .map(|(k, v)| (k.clone(), v.clone()))
                                    .collect()
                            };
                            entries.push((name.clone(), value.clone()));
                            match order {
                                1 => entries.reverse(),
                                2 => entries.sort_by(|a, b| a.0.cmp(&b.0)),
                                _ => {}
                            }
                            let content: Map<String, Value> = entries.into_iter().collect();
                            let expected = schema.content_violations(&content).is_empty();
                            assert_eq!(schema.admits_content_directly(&content), expected);
                            assert_eq!(
                                plan.admits(&schema, &content),
                                expected,
                                "{name} = {value} in {content:?}"
                            );
                            checked += usize::from(expected);
                        }
                    }
                }
            }
            assert!(checked > 50, "too few valid answers to compare: {checked}");
        }
    }

    // covers: V3, V5, D9
    #[test]
    fn answers_in_declaration_order_end_anywhere() {
        // The walk in step with the properties: an answer that is the first `k`
        // properties in order is complete only when no required property comes after,
        // and a member after them that names none is allowed.
        for schema_json in schemas() {
            let schema = RequestedSchema::from_json(&schema_json).unwrap();
            let plan = Plan::new(schema.properties());
            let base = valid_content(&schema);
            for k in 0..=base.len() {
                for extra in [None, Some("unknown"), Some("zz_not_declared_at_all")] {
                    let mut content: Map<String, Value> = base
                        .iter()
                        .take(k)
                        .map(|(n, v)| (n.clone(), v.clone()))
                        .collect();
                    if let Some(extra) = extra {
                        content.insert(extra.to_owned(), json!(true));
                    }
                    let expected = schema.content_violations(&content).is_empty();
                    assert_eq!(plan.admits(&schema, &content), expected, "{content:?}");
                }
            }
            let required_after = schema
                .properties()
                .iter()
                .rposition(|p| p.is_required())
                .map_or(0, |last| last + 1);
            assert_eq!(plan.required_end, required_after);
        }
    }

    /// A content every property of `schema` (as in `schemas`) accepts.
    fn valid_content(schema: &RequestedSchema) -> Map<String, Value> {
        let candidates = values();
        schema
            .properties()
            .iter()
            .map(|p| {
                let value = candidates
                    .iter()
                    .find(|v| admits(p.schema().kind(), v))
                    .expect("some value is valid");
                (p.name().to_owned(), value.clone())
            })
            .collect()
    }

    /// A schema validates directly the first time and by its plan afterwards, with the
    /// same answers.
    // covers: V5
    #[test]
    fn the_plan_is_built_by_the_second_validation() {
        let schema = RequestedSchema::from_json(&schemas()[0]).unwrap();
        let good = valid_content(&schema);
        let mut bad = good.clone();
        bad.insert("i".into(), json!(6));
        assert!(schema.tables.plan(schema.properties()).is_none());
        for _ in 0..3 {
            assert!(schema.validate(&Value::Object(good.clone())).is_ok());
            assert!(schema.validate(&Value::Object(bad.clone())).is_err());
        }
        assert!(schema.tables.plan(schema.properties()).is_some());
    }

    fn boolean() -> PropertySchema {
        PropertySchema::new(PropertyKind::Boolean(Default::default()))
    }

    /// Every short name is found by its key, at its first property when names repeat,
    /// and a name the schema lacks is not, at every table size up to D12's limit.
    // covers: V5, D9, D12
    #[test]
    fn names_out_of_order_are_found_by_their_key() {
        for n in [0, 1, 2, 8, 9, 40, 255, 256] {
            // Names of every key length class: 1-3, 4-7 and 8-16 bytes.
            let names: Vec<String> = (0..n)
                .map(|i| match i % 3 {
                    0 => format!("{}", i % 1000),
                    1 => format!("n{i:04}"),
                    _ => format!("name_{i:05}_x"),
                })
                .collect();
            let mut properties: Vec<Property> = names
                .iter()
                .map(|name| Property::new(name.clone(), false, boolean()))
                .collect();
            // A repeated name (only a schema built in code can have one).
            if n > 2 {
                properties.push(Property::new(names[1].clone(), false, boolean()));
            }
            let plan = Plan::new(&properties);
            assert!(plan.slots.slots() >= 2 * properties.len());
            assert!(plan.slots.slots().is_power_of_two());
            for (i, name) in names.iter().enumerate() {
                assert_eq!(
                    plan.slot_of(Key::of(name.as_bytes())),
                    Some(i),
                    "{name} of {n}"
                );
            }
            for missing in ["", "n", "n00000", "name_99999_x", "zzzzzzzzzzzzzzzz"] {
                assert_eq!(plan.slot_of(Key::of(missing.as_bytes())), None, "{missing}");
            }
        }
    }

    // covers: F7
    #[test]
    fn option_keys_sort_only_long_lists() {
        for n in [1, SCAN_OPTIONS, SCAN_OPTIONS + 1, 1024] {
            let values: Vec<Text> = (0..n).map(|i| Text::from(format!("v{}", n - i))).collect();
            let mut keys = Vec::new();
            let range = OptionRange::push(&Options::Untitled(values.clone().into()), &mut keys);
            assert_eq!(range.sorted, n > SCAN_OPTIONS);
            let plan = Plan {
                steps: Box::new([]),
                options: keys.into_boxed_slice(),
                slots: KeyTable::new(0, |_| 0, |_, _| true),
                required: 0,
                required_end: 0,
            };
            for v in &values {
                assert!(matches!(plan.contains(&range, v), Verdict::Valid), "{v}");
            }
            for missing in ["v0", "v", "", "w1"] {
                assert!(matches!(plan.contains(&range, missing), Verdict::Invalid));
            }
        }
    }
}
