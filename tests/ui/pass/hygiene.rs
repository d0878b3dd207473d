// The generated code names everything by absolute path: it compiles without a warning
// even when the user's crate shadows the prelude's names, or the generated code's own.
#![deny(warnings)]
#![allow(dead_code, non_snake_case)]

use elicit::Elicit;

struct Result;
struct Option;
struct String;
struct Vec;
struct Box;
fn Ok() {}
fn Some() {}
fn None() {}
fn Err() {}
// The name the generated code imports `elicit`'s hidden module as, inside its own block.
mod __elicit_private {}

/// A form.
#[derive(Elicit)]
#[elicit(title = "Everything", deny_unknown_fields)]
struct Everything {
    /// Text.
    #[elicit(min_length = 1, max_length = 9, pattern = "^a", default = "abc")]
    text: std::string::String,
    #[elicit(format = "email")]
    email: std::option::Option<std::string::String>,
    #[elicit(minimum = 1, maximum = 3, default = 2)]
    count: u8,
    #[elicit(minimum = -0.5)]
    ratio: f64,
    #[elicit(default = true)]
    flag: bool,
    #[elicit(default = "b")]
    choice: Choice,
    #[elicit(min_items = 1, default = ["a"])]
    choices: std::vec::Vec<Choice>,
    #[elicit(skip)]
    skipped: std::vec::Vec<u8>,
}

#[derive(Elicit, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[elicit(rename_all = "lowercase")]
enum Choice {
    #[elicit(title = "The A")]
    A,
    B,
}

/// A form with no property.
#[derive(Elicit)]
struct Nothing {}

#[derive(Elicit)]
#[deprecated = "the generated code does not use the type in a way that warns"]
struct Old {
    #[deprecated]
    name: std::string::String,
}

#[derive(Elicit)]
#[elicit(crate = "::elicit")]
struct WithCratePath {
    name: std::string::String,
}

fn main() {
    let _ = Everything::requested_schema();
    let _ = Nothing::from_content(&serde_json::json!({}));
}
