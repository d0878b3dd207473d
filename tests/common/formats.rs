//! Helpers for the format and pattern oracle tests: the JSON Schema Test Suite read in
//! place, the `jsonschema` crate as reference validator, and a small deterministic
//! generator.

use std::path::PathBuf;

use serde_json::{json, Value};

/// The draft 2020-12 directory of the JSON Schema Test Suite in the shared oracles
/// (`None`, or a panic under CI, as [`super::oracles_dir`] says).
pub fn suite_dir() -> Option<PathBuf> {
    Some(super::oracles_dir()?.join("json-schema-test-suite/draft2020-12"))
}

/// One suite file, as the list of its test groups (none when the oracles are missing
/// outside CI).
pub fn suite_file(relative: &str) -> Vec<Value> {
    let Some(dir) = suite_dir() else {
        return Vec::new();
    };
    let path = dir.join(relative);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|error| panic!("cannot read {}: {error}", path.display()));
    match serde_json::from_str(&text) {
        Ok(Value::Array(groups)) => groups,
        _ => panic!("{} is not a list of test groups", path.display()),
    }
}

/// A `jsonschema` validator for `schema` with format assertion on, or `None` if the crate
/// refuses the schema.
pub fn reference(schema: &Value) -> Option<jsonschema::Validator> {
    jsonschema::draft202012::options()
        .should_validate_formats(true)
        .build(schema)
        .ok()
}

/// `jsonschema`'s verdict on `value` against `{"format": format}`.
pub fn reference_format(validator: &jsonschema::Validator, value: &str) -> bool {
    validator.is_valid(&json!(value))
}

/// splitmix64: deterministic, so every run checks the same inputs.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }

    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }

    /// A random string of `min..=max` characters drawn from `alphabet`.
    pub fn string(&mut self, alphabet: &[char], min: usize, max: usize) -> String {
        let length = min + self.below(max - min + 1);
        (0..length).map(|_| *self.pick(alphabet)).collect()
    }

    /// `seed` with one to three random edits (insert, delete, replace) from `alphabet`.
    pub fn mutate(&mut self, seed: &str, alphabet: &[char]) -> String {
        let mut chars: Vec<char> = seed.chars().collect();
        for _ in 0..=self.below(3) {
            let at = self.below(chars.len() + 1);
            match self.below(3) {
                0 => chars.insert(at, *self.pick(alphabet)),
                1 if at < chars.len() => {
                    chars.remove(at);
                }
                _ if at < chars.len() => chars[at] = *self.pick(alphabet),
                _ => chars.push(*self.pick(alphabet)),
            }
        }
        chars.into_iter().collect()
    }
}
