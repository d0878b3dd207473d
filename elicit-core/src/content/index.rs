//! Finding a content key's property: the next property in declaration order first (what
//! clients nearly always send), then a search that is never a scan of a large form.
//!
//! A content key that is not the expected next property is looked up by a linear scan
//! on small forms ([`SCAN_LIMIT`] properties or fewer, a bounded cost) and otherwise by
//! a binary search in the property names sorted once, on first need, by length then
//! bytes: a lookup compares lengths first and the bytes of equal-length names only, and
//! any order of keys costs O(n log n) in all, without hashing.

use std::cmp::Ordering;
use std::fmt;
use std::sync::OnceLock;

use super::plan::{Plan, PlanCell};
use crate::schema::Property;
use crate::store::key::same_text;

/// Up to this many properties, an out-of-order key is found by a scan (at most this
/// many length comparisons); above it, by the sorted name table.
const SCAN_LIMIT: usize = 8;

/// The property indices sorted by name (length, then bytes; equal names by index),
/// built on the first lookup that needs it. Kept by [`RequestedSchema`](crate::schema::RequestedSchema)
/// beside its properties, which never change after construction, in the slot the model
/// keeps for validation (`schema::Validation::Tables`).
///
/// It also keeps the schema's check plan ([`Plan`]), the other table `validate` builds
/// on need.
pub(crate) struct NameIndex(OnceLock<Table>, PlanCell);

/// The sorted names, and whether they are all different (always, for a parsed schema).
struct Table {
    sorted: Box<[Entry]>,
    distinct: bool,
}

impl NameIndex {
    /// An index not built yet (usable in a `static`).
    pub(crate) const fn new() -> Self {
        NameIndex(OnceLock::new(), PlanCell::new())
    }

    /// The check plan of a schema with these `properties`, from its second validation
    /// on ([`PlanCell::get`]).
    #[inline]
    pub(crate) fn plan(&self, properties: &[Property]) -> Option<&Plan> {
        self.1.get(properties)
    }

    /// The index of the property named `key`, trying `next` first; the first such
    /// property in declaration order when several share the name.
    #[inline(always)]
    pub(crate) fn find(&self, properties: &[Property], key: &str, next: usize) -> Option<usize> {
        if let Some(p) = properties.get(next) {
            if same_text(&p.name, key) {
                return Some(next);
            }
        }
        self.search(properties, key, next)
    }

    /// [`NameIndex::find`] after a wrong guess: the first property with that name.
    #[inline(never)]
    pub(crate) fn search(&self, properties: &[Property], key: &str, next: usize) -> Option<usize> {
        if properties.len() <= SCAN_LIMIT {
            return properties.iter().position(|p| same_text(&p.name, key));
        }
        let table = self.0.get_or_init(|| {
            let mut sorted: Vec<Entry> = properties
                .iter()
                .enumerate()
                .map(|(index, p)| Entry::new(p.name(), index))
                .collect();
            // Stable: properties with the same name stay in declaration order.
            sorted.sort_by(|a, b| a.cmp(b, properties));
            let distinct = sorted
                .windows(2)
                .all(|w| w[0].cmp(&w[1], properties) != Ordering::Equal);
            Table {
                sorted: sorted.into_boxed_slice(),
                distinct,
            }
        });
        // The property before the last one matched (answers in reverse order): taken
        // only when names are distinct, so that it is the first with its name.
        if table.distinct {
            if let Some(p) = next.checked_sub(2).and_then(|i| properties.get(i)) {
                if same_text(&p.name, key) {
                    return Some(next - 2);
                }
            }
        }
        let sorted = &table.sorted;
        let wanted = Entry::new(key, usize::MAX).key();
        // The first entry not below `key`: its length and prefix decide most steps
        // without reading a name.
        let (mut low, mut size) = (0, sorted.len());
        while size > 0 {
            let half = size / 2;
            let e = &sorted[low + half];
            let below = match e.key().cmp(&wanted) {
                Ordering::Less => true,
                Ordering::Greater => false,
                Ordering::Equal => properties[e.index].name().as_bytes() < key.as_bytes(),
            };
            if below {
                low += half + 1;
                size -= half + 1;
            } else {
                size = half;
            }
        }
        sorted
            .get(low)
            .filter(|e| e.key() == wanted && properties[e.index].name() == key)
            .map(|e| e.index)
    }
}

/// One name of the sorted table: its length and first eight bytes (big-endian, so that
/// integer order is byte order) decide most comparisons without reading the name.
struct Entry {
    len: usize,
    prefix: u64,
    index: usize,
}

impl Entry {
    fn new(name: &str, index: usize) -> Self {
        let bytes = name.as_bytes();
        let mut word = [0; 8];
        for (w, &b) in word.iter_mut().zip(bytes) {
            *w = b;
        }
        Entry {
            len: bytes.len(),
            prefix: u64::from_be_bytes(word),
            index,
        }
    }

    fn key(&self) -> (usize, u64) {
        (self.len, self.prefix)
    }

    /// Length, then bytes: the order of the table.
    fn cmp(&self, other: &Entry, properties: &[Property]) -> Ordering {
        self.key().cmp(&other.key()).then_with(|| {
            properties[self.index]
                .name()
                .as_bytes()
                .cmp(properties[other.index].name().as_bytes())
        })
    }
}

impl fmt::Debug for NameIndex {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("NameIndex")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::{BooleanSchema, PropertyKind, PropertySchema};

    fn props(names: &[&str]) -> Vec<Property> {
        names
            .iter()
            .map(|n| {
                Property::new(
                    n.to_string(),
                    false,
                    PropertySchema::new(PropertyKind::Boolean(BooleanSchema::default())),
                )
            })
            .collect()
    }

    #[test]
    fn every_key_is_found_from_any_guess_small_and_large() {
        for size in [1, 3, SCAN_LIMIT, SCAN_LIMIT + 1, 40, 300] {
            let names: Vec<String> = (0..size).map(|i| format!("p{}", i * 7919 % size)).collect();
            let names: Vec<&str> = names.iter().map(String::as_str).collect();
            let properties = props(&names);
            let index = NameIndex::new();
            for (i, name) in names.iter().enumerate() {
                for next in [0, i, i + 1, size, size + 5] {
                    assert_eq!(index.find(&properties, name, next), Some(i), "{name}");
                }
            }
            for missing in ["", "q", "p", "p1000", "zzzzzzzzzzzzzzzzzzzzzz"] {
                assert_eq!(index.find(&properties, missing, 0), None);
            }
        }
    }

    #[test]
    fn reversed_keys_find_their_property() {
        let names: Vec<String> = (0..40).map(|i| format!("name{i}")).collect();
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        let properties = props(&names);
        let index = NameIndex::new();
        let mut next = 0;
        for (i, name) in names.iter().enumerate().rev() {
            assert_eq!(index.find(&properties, name, next), Some(i));
            next = i + 1;
        }
    }

    #[test]
    fn a_shared_name_finds_its_first_property_unless_the_guess_is_another() {
        for size in [4, 40] {
            let mut names: Vec<String> = (0..size).map(|i| format!("n{i}")).collect();
            names[size - 1] = "n1".to_owned();
            let names: Vec<&str> = names.iter().map(String::as_str).collect();
            let properties = props(&names);
            let index = NameIndex::new();
            assert_eq!(index.find(&properties, "n1", 0), Some(1));
            assert_eq!(index.find(&properties, "n1", size - 1), Some(size - 1));
            // Right after the duplicate's neighbour: not the later duplicate.
            assert_eq!(index.find(&properties, "n1", size + 1), Some(1));
        }
    }
}
