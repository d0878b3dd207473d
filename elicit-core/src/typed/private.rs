//! What `#[derive(Elicit)]` expands to. Not a public API: names and signatures change
//! without notice. Generated code reaches it as `::elicit::__private`.
//!
//! The schema half is `const fn`: a field's property kind is computed at compile time
//! from its type's [`Shape`] and the literal attributes, and an attribute the type
//! cannot take stops compilation with a message (a `const` panic) when no marker trait
//! caught it earlier.

use std::sync::OnceLock;

use serde_json::{Map, Value};

pub use serde_json::Value as JsonValue;
pub use std::option::Option::{self, None, Some};
pub use std::result::Result::{self, Err, Ok};

pub use super::{
    BooleanField, Elicit, Field, MultiSelectField, NonOptional, NumericField, OptionList,
    SelectOption, Shape, StringDefaultField, TextField,
};
pub use crate::content::{ValidationError, ValidationErrorKind, ValidationErrors};
pub use crate::format::Format;
pub use crate::schema::{
    BooleanSchema, EnumOption, IntegerSchema, MultiSelectSchema, NumberSchema, Options, Property,
    PropertyKind, PropertySchema, RequestedSchema, SingleSelectSchema, StringSchema, Text,
};

use crate::content::check::check_value;
use crate::content::json_type_name;
use crate::store::key::{same, Key, KeyTable};

/// A numeric literal from an attribute.
#[derive(Debug, Clone, Copy)]
pub enum Num {
    /// An integer literal.
    Int(i64),
    /// A float literal.
    Float(f64),
}

/// A `default = …` literal.
#[derive(Debug, Clone, Copy)]
pub enum DefaultLit {
    /// A string literal (text, or an enum option value).
    Str(&'static str),
    /// An integer literal.
    Int(i64),
    /// A float literal.
    Float(f64),
    /// `true` / `false`.
    Bool(bool),
    /// A list of option values (multi-select).
    Strs(&'static [Text]),
}

/// The literal attributes of one field.
#[derive(Debug, Clone, Copy)]
pub struct Attrs {
    /// `min_length`.
    pub min_length: Option<u32>,
    /// `max_length`.
    pub max_length: Option<u32>,
    /// `pattern` (already compiled once by the macro).
    pub pattern: Option<&'static str>,
    /// `format`.
    pub format: Option<Format>,
    /// `minimum`.
    pub minimum: Option<Num>,
    /// `maximum`.
    pub maximum: Option<Num>,
    /// `min_items`.
    pub min_items: Option<u64>,
    /// `max_items`.
    pub max_items: Option<u64>,
    /// `default`.
    pub default: Option<DefaultLit>,
}

impl Attrs {
    /// No attributes.
    pub const NONE: Attrs = Attrs {
        min_length: None,
        max_length: None,
        pattern: None,
        format: None,
        minimum: None,
        maximum: None,
        min_items: None,
        max_items: None,
        default: None,
    };
}

const fn text(s: &'static str) -> Text {
    Text::from_static(s)
}

const fn str_eq(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// Unicode scalar values in a string ([D6](crate::rules#d6)), at compile time.
const fn char_count(s: &str) -> usize {
    let b = s.as_bytes();
    let mut i = 0;
    let mut n = 0;
    while i < b.len() {
        // Every byte that is not a continuation byte starts a scalar value.
        if b[i] & 0xC0 != 0x80 {
            n += 1;
        }
        i += 1;
    }
    n
}

const fn options_contain(options: OptionList, value: &str) -> bool {
    match options {
        OptionList::Untitled(values) => {
            let mut i = 0;
            while i < values.len() {
                if let Some(v) = values[i].as_static() {
                    if str_eq(v, value) {
                        return true;
                    }
                }
                i += 1;
            }
            false
        }
        OptionList::Titled(options) => {
            let mut i = 0;
            while i < options.len() {
                if let Some(v) = options[i].value.as_static() {
                    if str_eq(v, value) {
                        return true;
                    }
                }
                i += 1;
            }
            false
        }
    }
}

const fn to_options(options: OptionList) -> Options {
    match options {
        OptionList::Untitled(v) => Options::untitled(v),
        OptionList::Titled(v) => Options::titled(v),
    }
}

const fn no_text_attrs(a: &Attrs) {
    if a.min_length.is_some() || a.max_length.is_some() || a.pattern.is_some() || a.format.is_some()
    {
        panic!("`min_length`, `max_length`, `pattern` and `format` apply only to string fields");
    }
}

const fn no_numeric_attrs(a: &Attrs) {
    if a.minimum.is_some() || a.maximum.is_some() {
        panic!("`minimum` and `maximum` apply only to number fields");
    }
}

const fn no_item_attrs(a: &Attrs) {
    if a.min_items.is_some() || a.max_items.is_some() {
        panic!("`min_items` and `max_items` apply only to multi-select fields");
    }
}

const fn int_bound(n: Option<Num>, type_min: i64, type_max: i64, fallback: i64) -> i64 {
    match n {
        None => fallback,
        Some(Num::Int(i)) => {
            if i < type_min || i > type_max {
                panic!("`minimum`/`maximum` is outside the range of the field's integer type");
            }
            i
        }
        Some(Num::Float(_)) => {
            panic!("an integer field needs integer `minimum`/`maximum` literals")
        }
    }
}

const fn float_of(n: Num) -> f64 {
    match n {
        Num::Int(i) => i as f64,
        Num::Float(f) => f,
    }
}

/// The property kind of a field: its type's shape constrained by its attributes.
/// Evaluated at compile time, once per field that has attributes, where the derive
/// calls it (spanned on the field's name); an attribute the shape cannot take is a
/// compile error. A field without attributes needs no check: it is [`Kind::Plain`].
pub const fn kind(shape: Shape, a: Attrs) -> Kind {
    match shape {
        Shape::Text => {
            no_numeric_attrs(&a);
            no_item_attrs(&a);
            let default = match a.default {
                None => None,
                Some(DefaultLit::Str(s)) => {
                    let n = char_count(s);
                    if let Some(min) = a.min_length {
                        if n < min as usize {
                            panic!("the `default` is shorter than `min_length`");
                        }
                    }
                    if let Some(max) = a.max_length {
                        if n > max as usize {
                            panic!("the `default` is longer than `max_length`");
                        }
                    }
                    Some(s)
                }
                Some(_) => panic!("a string field needs a string `default`"),
            };
            Kind::String {
                min_length: a.min_length,
                max_length: a.max_length,
                pattern: a.pattern,
                format: a.format,
                default,
            }
        }
        Shape::Integer { min, max } => {
            no_text_attrs(&a);
            no_item_attrs(&a);
            let lo = int_bound(a.minimum, min, max, min);
            let hi = int_bound(a.maximum, min, max, max);
            if lo > hi {
                panic!("`minimum` is greater than `maximum`");
            }
            let default = match a.default {
                None => None,
                Some(DefaultLit::Int(d)) => {
                    if d < lo || d > hi {
                        panic!("the `default` is outside `minimum..=maximum` or the field type's range");
                    }
                    Some(d)
                }
                Some(_) => panic!("an integer field needs an integer `default`"),
            };
            Kind::Integer { lo, hi, default }
        }
        Shape::Number { min, max } => {
            no_text_attrs(&a);
            no_item_attrs(&a);
            let lo = match a.minimum {
                Some(n) => Some(float_of(n)),
                None => min,
            };
            let hi = match a.maximum {
                Some(n) => Some(float_of(n)),
                None => max,
            };
            if let (Some(l), Some(tl)) = (lo, min) {
                if l < tl {
                    panic!("`minimum` is below the range of the field's float type");
                }
            }
            if let (Some(h), Some(th)) = (hi, max) {
                if h > th {
                    panic!("`maximum` is above the range of the field's float type");
                }
            }
            if let (Some(l), Some(h)) = (lo, hi) {
                if l > h {
                    panic!("`minimum` is greater than `maximum`");
                }
            }
            let default = match a.default {
                None => None,
                Some(DefaultLit::Int(i)) => Some(i as f64),
                Some(DefaultLit::Float(f)) => Some(f),
                Some(_) => panic!("a number field needs a numeric `default`"),
            };
            if let Some(d) = default {
                if let Some(l) = lo {
                    if d < l {
                        panic!("the `default` is below `minimum`");
                    }
                }
                if let Some(h) = hi {
                    if d > h {
                        panic!("the `default` is above `maximum`");
                    }
                }
            }
            Kind::Number { lo, hi, default }
        }
        Shape::Boolean => {
            no_text_attrs(&a);
            no_numeric_attrs(&a);
            no_item_attrs(&a);
            let default = match a.default {
                None => None,
                Some(DefaultLit::Bool(b)) => Some(b),
                Some(_) => panic!("a boolean field needs `default = true` or `default = false`"),
            };
            Kind::Boolean { default }
        }
        Shape::SingleSelect(options) => {
            no_text_attrs(&a);
            no_numeric_attrs(&a);
            no_item_attrs(&a);
            let default = match a.default {
                None => None,
                Some(DefaultLit::Str(s)) => {
                    if !options_contain(options, s) {
                        panic!("the `default` is not one of the enum's option values");
                    }
                    Some(s)
                }
                Some(_) => panic!("a select field needs the option value as a string `default`"),
            };
            Kind::SingleSelect { options, default }
        }
        Shape::MultiSelect(options) => {
            no_text_attrs(&a);
            no_numeric_attrs(&a);
            if let (Some(l), Some(h)) = (a.min_items, a.max_items) {
                if l > h {
                    panic!("`min_items` is greater than `max_items`");
                }
            }
            let default = match a.default {
                None => None,
                Some(DefaultLit::Strs(values)) => {
                    let mut i = 0;
                    while i < values.len() {
                        let ok = match values[i].as_static() {
                            Some(v) => options_contain(options, v),
                            None => false,
                        };
                        if !ok {
                            panic!("a `default` item is not one of the enum's option values");
                        }
                        i += 1;
                    }
                    if let Some(l) = a.min_items {
                        if (values.len() as u64) < l {
                            panic!("the `default` has fewer items than `min_items`");
                        }
                    }
                    if let Some(h) = a.max_items {
                        if values.len() as u64 > h {
                            panic!("the `default` has more items than `max_items`");
                        }
                    }
                    Some(values)
                }
                Some(_) => {
                    panic!("a multi-select field needs a list of option values as `default`")
                }
            };
            Kind::MultiSelect {
                options,
                min_items: a.min_items,
                max_items: a.max_items,
                default,
            }
        }
    }
}

/// A field's property kind as checked compile-time data: what [`kind`] returns, `Copy`
/// and without anything to drop, so that the `static` table's initializer holds no value
/// whose destructor the compiler must check (each such value cost a trait query).
/// [`properties`] turns it into a [`PropertyKind`].
#[derive(Debug, Clone, Copy)]
pub enum Kind {
    /// The type's own shape, without attributes (nothing to check).
    Plain(Shape),
    /// A string with its attributes.
    String {
        /// `minLength`.
        min_length: Option<u32>,
        /// `maxLength`.
        max_length: Option<u32>,
        /// `pattern`.
        pattern: Option<&'static str>,
        /// `format`.
        format: Option<Format>,
        /// `default`.
        default: Option<&'static str>,
    },
    /// An integer with its bounds (the type's range where no attribute narrows it).
    Integer {
        /// `minimum`.
        lo: i64,
        /// `maximum`.
        hi: i64,
        /// `default`.
        default: Option<i64>,
    },
    /// A number with its bounds.
    Number {
        /// `minimum`.
        lo: Option<f64>,
        /// `maximum`.
        hi: Option<f64>,
        /// `default`.
        default: Option<f64>,
    },
    /// A boolean.
    Boolean {
        /// `default`.
        default: Option<bool>,
    },
    /// A single select.
    SingleSelect {
        /// The options.
        options: OptionList,
        /// `default`.
        default: Option<&'static str>,
    },
    /// A multi-select.
    MultiSelect {
        /// The options.
        options: OptionList,
        /// `minItems`.
        min_items: Option<u64>,
        /// `maxItems`.
        max_items: Option<u64>,
        /// `default`.
        default: Option<&'static [Text]>,
    },
}

impl Kind {
    const fn build(self) -> PropertyKind {
        match self {
            Kind::Plain(shape) => match shape {
                Shape::Text => {
                    PropertyKind::String(StringSchema::from_static(None, None, None, None, None))
                }
                Shape::Integer { min, max } => {
                    PropertyKind::Integer(IntegerSchema::from_static(Some(min), Some(max), None))
                }
                Shape::Number { min, max } => {
                    PropertyKind::Number(NumberSchema::from_static(min, max, None))
                }
                Shape::Boolean => PropertyKind::Boolean(BooleanSchema::from_static(None)),
                Shape::SingleSelect(options) => PropertyKind::SingleSelect(
                    SingleSelectSchema::from_static(to_options(options), None),
                ),
                Shape::MultiSelect(options) => PropertyKind::MultiSelect(
                    MultiSelectSchema::from_static(to_options(options), None, None, None),
                ),
            },
            Kind::String {
                min_length,
                max_length,
                pattern,
                format,
                default,
            } => PropertyKind::String(StringSchema::from_static(
                min_length, max_length, pattern, format, default,
            )),
            Kind::Integer { lo, hi, default } => {
                PropertyKind::Integer(IntegerSchema::from_static(Some(lo), Some(hi), default))
            }
            Kind::Number { lo, hi, default } => {
                PropertyKind::Number(NumberSchema::from_static(lo, hi, default))
            }
            Kind::Boolean { default } => PropertyKind::Boolean(BooleanSchema::from_static(default)),
            Kind::SingleSelect { options, default } => PropertyKind::SingleSelect(
                SingleSelectSchema::from_static(to_options(options), default),
            ),
            Kind::MultiSelect {
                options,
                min_items,
                max_items,
                default,
            } => PropertyKind::MultiSelect(MultiSelectSchema::from_static(
                to_options(options),
                min_items,
                max_items,
                default,
            )),
        }
    }
}

/// The [`PropertyKind`] of a field of this shape with these attributes (what the
/// derive's table holds for it).
pub const fn property_kind(shape: Shape, a: Attrs) -> PropertyKind {
    kind(shape, a).build()
}

/// One field as the derive declares it, for [`properties`].
#[derive(Debug, Clone, Copy)]
pub struct FieldDecl {
    /// The wire name.
    pub name: &'static str,
    /// Whether the field must be present.
    pub required: bool,
    /// `title`.
    pub title: Option<&'static str>,
    /// `description`, or the doc comment.
    pub description: Option<&'static str>,
    /// The checked kind.
    pub kind: Kind,
}

const fn static_text(s: Option<&'static str>) -> Option<Text> {
    match s {
        Some(s) => Some(Text::from_static(s)),
        None => None,
    }
}

/// A form's property table from its fields: one `const` call per form, evaluated at
/// compile time, instead of a chain of constructors per field (const evaluation of those
/// chains was about a third of a derived crate's build).
pub const fn properties<const N: usize>(fields: [FieldDecl; N]) -> [Property; N] {
    let mut out = [const { Property::placeholder() }; N];
    let mut i = 0;
    while i < N {
        let f = fields[i];
        let property = Property {
            name: Text::from_static(f.name),
            required: f.required,
            schema: PropertySchema {
                title: static_text(f.title),
                description: static_text(f.description),
                kind: f.kind.build(),
                meta: None,
                extra: None,
            },
        };
        // A `Property` has a destructor, which a `const fn` may not run: the placeholder
        // (which owns nothing) is taken out and forgotten.
        std::mem::forget(std::mem::replace(&mut out[i], property));
        i += 1;
    }
    out
}

/// A text for a `static` slice of option values.
pub const fn option_text(s: &'static str) -> Text {
    text(s)
}

/// Marker assertions the derive emits, spanned on the attribute, so that an attribute
/// the field's type cannot take is reported on that attribute with a clear message.
pub const fn assert_text_field<T: TextField + ?Sized>() {}
/// See [`assert_text_field`].
pub const fn assert_numeric_field<T: NumericField + ?Sized>() {}
/// See [`assert_text_field`].
pub const fn assert_multi_select_field<T: MultiSelectField + ?Sized>() {}
/// See [`assert_text_field`].
pub const fn assert_string_default_field<T: StringDefaultField + ?Sized>() {}
/// See [`assert_text_field`].
pub const fn assert_boolean_field<T: BooleanField + ?Sized>() {}
/// See [`assert_text_field`].
pub const fn assert_field<T: Field>() {}
/// See [`assert_text_field`].
pub const fn assert_select_option<T: SelectOption>() {}

/// A form's wire names, for sorting a content's members into slots, in property order.
/// A key is first compared with the name after the previous key's (content usually comes
/// in property order); any other key is found through a hash table of the names, built
/// on the first such key (once per form type), so that no order of the members costs
/// more than a constant per key: reversed, or sorted by name as `serde_json`'s map
/// without `preserve_order` writes them.
pub struct Names {
    in_order: &'static [&'static str],
    table: OnceLock<KeyTable>,
}

impl Names {
    /// The names in property order.
    pub const fn new(in_order: &'static [&'static str]) -> Self {
        Names {
            in_order,
            table: OnceLock::new(),
        }
    }

    /// The index of the property named `key`.
    #[cold]
    #[inline(never)]
    fn find(&self, key: &[u8]) -> Option<usize> {
        let names = self.in_order;
        let table = self.table.get_or_init(|| {
            KeyTable::new(
                names.len(),
                |i| Key::of(names[i].as_bytes()).hash(),
                |a, b| names[a] == names[b],
            )
        });
        table.find(Key::of(key).hash(), |i| {
            names.get(i).is_some_and(|name| same(name.as_bytes(), key))
        })
    }
}

/// A form's content being read by a derived `from_content`: the violations found so
/// far. Its members are sorted into the form's slots by [`Reader::new`]. The work that
/// does not depend on the field types is done here, once in this crate, rather than in
/// code generated for every form.
pub struct Reader {
    /// The violations found so far.
    pub errors: Errors,
    /// Whether every member named a property.
    all_known: bool,
}

impl Reader {
    /// Sorts the members of `content` into `slots`, one per property. Content that is
    /// not an object leaves every slot empty and records the one error `from_content`
    /// then reports ([`Errors::into_errors`] drops what the reads of the empty slots add).
    ///
    /// The slots are the derived `from_content`'s own local, filled where they stay: in
    /// the reader, they were copied on the way to the fields' reads. The reader itself is
    /// returned, not a `Result`, so the derive has no early return to generate.
    #[inline]
    pub fn new<'a, const N: usize>(
        content: &'a Value,
        names: &Names,
        slots: &mut [Option<&'a Value>; N],
    ) -> Self {
        match content.as_object() {
            Some(object) => Reader {
                all_known: fill_slots(object, names, slots),
                errors: Errors::new(),
            },
            None => Reader {
                all_known: true,
                errors: Errors::not_an_object(content),
            },
        }
    }

    /// Refuses the members that are not properties, for `deny_unknown_fields` ([D9](crate::rules#d9)).
    /// `content` and `names` are those given to [`Reader::new`].
    pub fn deny_unknown(&mut self, content: &Value, names: &Names) {
        let Some(object) = content.as_object().filter(|_| !self.all_known) else {
            return;
        };
        for key in object.keys() {
            if names.find(key.as_bytes()).is_none() {
                self.errors.0.push(ValidationError::new(
                    key.as_str(),
                    ValidationErrorKind::UnknownField,
                ));
            }
        }
    }
}

/// Puts each member of `object` in the slot of the property it names; whether every
/// member named one. A JSON object's keys are unique, so no slot is written twice.
///
/// Answers nearly always list their members in property order, so the members and the
/// names are walked in step while each member is the next name: one comparison a
/// member, no index to keep or check. The first member out of step hands over to
/// [`fill_slots_in_any_order`].
#[inline]
fn fill_slots<'a>(
    object: &'a Map<String, Value>,
    names: &Names,
    slots: &mut [Option<&'a Value>],
) -> bool {
    let mut members = object.iter();
    for (next, (name, slot)) in names.in_order.iter().zip(slots.iter_mut()).enumerate() {
        let Some((key, member)) = members.next() else {
            return true;
        };
        if same(name.as_bytes(), key.as_bytes()) {
            *slot = Some(member);
        } else {
            return fill_slots_in_any_order((key, member), members, next, names, slots);
        }
    }
    // Every property was matched in order; a member left over names none of them.
    members.next().is_none()
}

/// [`fill_slots`] from the first member that is not the property at `next`: each
/// member is tried against the name after the previous one's, and found through the
/// names' hash table otherwise.
#[cold]
#[inline(never)]
fn fill_slots_in_any_order<'a>(
    first: (&'a String, &'a Value),
    rest: serde_json::map::Iter<'a>,
    mut next: usize,
    names: &Names,
    slots: &mut [Option<&'a Value>],
) -> bool {
    let mut all_known = true;
    for (key, member) in std::iter::once(first).chain(rest) {
        let key = key.as_bytes();
        let i = match names.in_order.get(next) {
            Some(name) if same(name.as_bytes(), key) => next,
            _ => match names.find(key) {
                Some(i) => i,
                None => {
                    all_known = false;
                    continue;
                }
            },
        };
        if let Some(slot) = slots.get_mut(i) {
            *slot = Some(member);
        }
        next = i + 1;
    }
    all_known
}

/// Where `from_content` collects violations: no allocation until the first one.
#[derive(Debug, Default)]
pub struct Errors(Vec<ValidationError>, NotAnObject);

/// Whether the content was not an object: then its one error is the whole answer.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
struct NotAnObject(bool);

impl Errors {
    /// No violations yet.
    pub const fn new() -> Self {
        Errors(Vec::new(), NotAnObject(false))
    }

    /// The error for content that is not an object, and nothing after it.
    #[cold]
    fn not_an_object(content: &Value) -> Self {
        let error = ValidationError {
            property: None,
            kind: ValidationErrorKind::NotAnObject {
                found: json_type_name(content),
            },
        };
        Errors(vec![error], NotAnObject(true))
    }

    /// Whether no violation was recorded.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The violations recorded. The derive calls it when some field was not read or a
    /// violation was recorded; [`field`] leaves a field unread only after recording why,
    /// so there is always at least one. For content that is not an object, that error
    /// alone: the fields read from its empty slots report nothing of use.
    pub fn into_errors(mut self) -> ValidationErrors {
        if self.1 == NotAnObject(true) {
            self.0.truncate(1);
        }
        match ValidationErrors::from_vec(self.0) {
            Some(errors) => errors,
            None => {
                unreachable!("`__private::field` returns `None` only after recording a violation")
            }
        }
    }
}

/// Reads one field: the same checks `RequestedSchema::validate` makes for this
/// property, then the conversion into the field's type. Returns `None` only after
/// recording at least one violation (what [`Errors::into_errors`] relies on).
///
/// Only the common case is inlined into the derived `from_content`: a valid value, or
/// an absent optional field. Everything that reports goes through `field_checked`.
#[inline]
pub fn field<T: Field>(
    value: Option<&Value>,
    property: &Property,
    errors: &mut Errors,
) -> Option<T> {
    match value {
        Some(value) => {
            if let Some(t) = T::__read_valid(value, property.schema().kind()) {
                return Some(t);
            }
        }
        None => {
            if let Some(absent) = T::absent() {
                return Some(absent);
            }
        }
    }
    field_checked(value, property, errors)
}

/// [`field`] for a value the fast path did not take: the checked path, which records
/// every violation.
#[inline(never)]
fn field_checked<T: Field>(
    value: Option<&Value>,
    property: &Property,
    errors: &mut Errors,
) -> Option<T> {
    let name = property.name();
    let Some(value) = value else {
        let absent = T::absent();
        if absent.is_none() {
            errors.0.push(ValidationError::new(
                name,
                ValidationErrorKind::missing(property.schema()),
            ));
        }
        return absent;
    };
    let before = errors.0.len();
    check_value(property.schema().kind(), value, &mut |v| {
        errors.0.push(ValidationError::new(name, v))
    });
    if errors.0.len() != before {
        return None;
    }
    // D5: a value the property admits but the type cannot hold is a violation of its
    // own, never a wrap or a panic.
    match T::from_json(value) {
        Ok(t) => Some(t),
        Err(v) => {
            errors.0.push(ValidationError::new(name, v));
            None
        }
    }
}

/// A field left out of the form (`skip`): its `Default`.
pub fn skipped<T: Default>() -> T {
    T::default()
}

/// Refuses keys the form does not declare, for `deny_unknown_fields` ([D9](crate::rules#d9)). `known`
/// is a `match` on the property names, generated by the derive.
pub fn deny_unknown(
    content: &Map<String, Value>,
    known: impl Fn(&str) -> bool,
    errors: &mut Errors,
) {
    for key in content.keys() {
        if !known(key) {
            errors.0.push(ValidationError::new(
                key.as_str(),
                ValidationErrorKind::UnknownField,
            ));
        }
    }
}

/// Writes one field into the content being built.
pub fn put<T: Field>(content: &mut Map<String, Value>, name: &str, value: &T) {
    if let Some(v) = value.to_json() {
        content.insert(name.to_owned(), v);
    }
}

/// A new content object with room for `properties` members.
pub fn new_content(properties: usize) -> Map<String, Value> {
    Map::with_capacity(properties)
}

/// `Field::from_json` of a derived select: the variant whose value is the string. The
/// derive's `from_content` has checked the value against the options already; this is
/// also right for a caller that has not.
pub fn select_from_json<T: SelectOption>(value: &Value) -> Result<T, ValidationErrorKind> {
    match value {
        Value::String(s) => T::from_option(s).ok_or_else(|| ValidationErrorKind::NotAnOption {
            value: s.clone(),
            did_you_mean: None,
        }),
        other => Err(ValidationErrorKind::WrongType {
            expected: "a string (one of the options)",
            found: json_type_name(other),
        }),
    }
}

/// `Field::__read_valid` of a derived select: the variant whose value is the string.
/// A derived select's kind lists exactly its variants' values, so this is the check
/// and the conversion at once.
#[inline]
pub fn select_read_valid<T: SelectOption>(value: &Value, kind: &PropertyKind) -> Option<T> {
    match (value, kind) {
        (Value::String(s), PropertyKind::SingleSelect(_)) => T::from_option(s),
        _ => None,
    }
}

/// `Field::to_json` of a derived select: its option value.
pub fn select_to_json<T: SelectOption>(value: &T) -> Option<Value> {
    Some(Value::String(value.as_option().to_owned()))
}

/// The body of every method of the stub impl emitted beside a derive's compile errors:
/// that build fails, so this never runs.
#[cold]
pub fn derive_failed() -> ! {
    unreachable!("`#[derive(Elicit)]` reported errors; this impl is a placeholder that never runs")
}
