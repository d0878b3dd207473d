//! Derived types shared by the derive tests: together they use every field kind and
//! every attribute, so the schema snapshots, the parsing tests and the property tests
//! all run over the same set.
#![allow(dead_code)] // each test crate uses its own subset

use std::borrow::Cow;
use std::collections::{BTreeSet, HashSet};

use elicit::{Elicit, RequestedSchema};

// The example of DESIGN.md and of the crate docs.
/// How should I approach this refactor?
#[derive(Elicit, Debug, Clone, PartialEq)]
pub struct Refactor {
    /// Strategy to follow
    pub strategy: Strategy,
    #[elicit(title = "Passes", minimum = 1, maximum = 5, default = 2)]
    pub passes: u8,
    #[elicit(format = "email")]
    pub notify: Option<String>,
}

/// A titled select: one titled variant makes every option `{const, title}`.
#[derive(Elicit, Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Strategy {
    /// Small steps, each one reviewed
    #[elicit(title = "Conservative")]
    Conservative,
    Balanced,
    #[elicit(title = "Aggressive", description = "Rewrite what needs rewriting")]
    Aggressive,
}

/// An untitled select, renamed by rule.
#[derive(Elicit, Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[elicit(rename_all = "lowercase")]
pub enum Color {
    Red,
    Green,
    #[elicit(rename = "sky-blue")]
    SkyBlue,
}

/// Every string constraint and format, renamed by rule, with a doc-comment
/// description that spans
/// two lines.
#[derive(Elicit, Debug, Clone, PartialEq)]
#[elicit(title = "Profile", rename_all = "camelCase")]
pub struct Profile {
    #[elicit(title = "Full name", min_length = 1, max_length = 64, default = "Ada")]
    pub full_name: String,
    #[elicit(pattern = "^[a-z][a-z0-9_]*$", max_length = 16)]
    pub handle: Cow<'static, str>,
    #[elicit(format = "email", description = "Where we write to")]
    pub email: String,
    #[elicit(format = "uri")]
    pub homepage: Option<String>,
    #[elicit(format = "date", default = "2024-02-29")]
    pub birthday: Option<String>,
    #[elicit(format = "date-time", rename = "from")]
    pub available_from: Option<String>,
    /// Anything else we should know?
    #[elicit(min_length = 2)]
    pub notes: Option<String>,
    #[elicit(skip)]
    pub internal_id: u64,
}

/// Every number type: integer ranges come from the Rust type (clamped to ±(2^53 - 1), the
/// integers every client reads exactly), and narrower literal bounds replace them.
#[derive(Elicit, Debug, Clone, PartialEq)]
pub struct Numbers {
    pub tiny: i8,
    #[elicit(minimum = 1, maximum = 5, default = 2)]
    pub small: u8,
    pub short: i16,
    pub ushort: u16,
    pub int: i32,
    pub uint: u32,
    pub long: i64,
    pub ulong: u64,
    pub size: isize,
    pub usize_: usize,
    #[elicit(minimum = 0.5, maximum = 2.0, default = 1.25)]
    pub ratio: f64,
    pub single: f32,
    #[elicit(minimum = -1.5, default = -1)]
    pub offset: Option<f64>,
    #[elicit(minimum = -10, maximum = 10)]
    pub delta: Option<i32>,
}

/// Selects, multi-selects and booleans.
#[derive(Elicit, Debug, Clone, PartialEq)]
#[elicit(title = "Choices", description = "Pick what applies")]
pub struct Choices {
    #[elicit(title = "Color", default = "green")]
    pub color: Color,
    pub strategy: Strategy,
    #[elicit(default = "Balanced")]
    pub fallback: Option<Strategy>,
    #[elicit(title = "Tags", min_items = 1, max_items = 2, default = ["red"])]
    pub tags: Vec<Color>,
    #[elicit(default = ["Conservative", "Aggressive"])]
    pub strategies: BTreeSet<Strategy>,
    #[elicit(max_items = 3)]
    pub palette: HashSet<Color>,
    pub extras: Option<Vec<Strategy>>,
    #[elicit(title = "I agree", default = false)]
    pub agree: bool,
    pub subscribe: Option<bool>,
}

/// Wire names agree with serde's: `rename_all`, `rename` and `skip` are read from the
/// serde attributes, and elicit's may repeat them.
#[derive(Elicit, serde::Serialize, serde::Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "kebab-case")]
pub struct Settings {
    pub max_passes: u8,
    #[serde(rename = "lang")]
    pub language: String,
    #[elicit(rename = "dry-run")]
    pub dry_run: bool,
    #[serde(skip)]
    pub cache: Vec<u8>,
    pub r#type: Level,
    /// The marker shown on the map.
    #[elicit(allow_secret = "the pin of a map marker, not a credential")]
    pub map_pin: Option<String>,
}

#[derive(Elicit, serde::Serialize, serde::Deserialize, Debug, Clone, Copy, PartialEq)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Level {
    VeryLow,
    High,
    #[serde(rename = "MAX")]
    Maximum,
}

/// Unknown keys are errors (D9).
#[derive(Elicit, Debug, Clone, PartialEq)]
#[elicit(deny_unknown_fields)]
pub struct Strict {
    pub name: String,
    pub count: Option<u16>,
}

/// No property at all: every field is left out.
#[derive(Elicit, Debug, Clone, PartialEq, Default)]
pub struct Empty {
    #[elicit(skip)]
    pub state: Option<String>,
}

/// Every derived form with its name, for tests that treat them alike.
pub fn all_schemas() -> Vec<(&'static str, &'static RequestedSchema)> {
    vec![
        ("refactor", Refactor::requested_schema()),
        ("profile", Profile::requested_schema()),
        ("numbers", Numbers::requested_schema()),
        ("choices", Choices::requested_schema()),
        ("settings", Settings::requested_schema()),
        ("strict", Strict::requested_schema()),
        ("empty", Empty::requested_schema()),
    ]
}
