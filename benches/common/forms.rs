//! The benchmark forms shared by `benches/elicit.rs` (criterion), `benches/icount.rs`
//! (instruction counts) and `benches/memory.rs` (allocation counts), included by each
//! with `#[path]` so that every measurement uses the same definitions and inputs.

use elicit::Elicit;
use serde::Deserialize;
use serde_json::{json, Value};

/// A realistic sign-up style form.
#[derive(Elicit, Deserialize, Debug)]
#[allow(dead_code)]
pub struct Form8 {
    /// Full name
    #[elicit(min_length = 1, max_length = 100)]
    pub name: String,
    /// Contact address
    #[elicit(format = "email")]
    pub email: String,
    #[elicit(minimum = 13, maximum = 120)]
    pub age: u8,
    pub country: Country,
    #[elicit(default = false)]
    pub newsletter: bool,
    #[elicit(minimum = 0.0, maximum = 5.0)]
    pub rating: f64,
    #[elicit(min_items = 1, max_items = 3)]
    pub interests: Vec<Interest>,
    pub nickname: Option<String>,
}

#[derive(Elicit, Deserialize, Debug)]
pub enum Country {
    #[elicit(title = "France")]
    FR,
    #[elicit(title = "Germany")]
    DE,
    #[elicit(title = "Japan")]
    JP,
    #[elicit(title = "Kenya")]
    KE,
    #[elicit(title = "Peru")]
    PE,
}

#[derive(Elicit, Deserialize, Debug)]
#[elicit(rename_all = "lowercase")]
#[serde(rename_all = "lowercase")]
pub enum Interest {
    Rust,
    Music,
    Hiking,
    Chess,
}

/// A large form: every kind, five times.
#[derive(Elicit, Deserialize, Debug)]
#[allow(dead_code)]
pub struct Form40 {
    #[elicit(min_length = 1, max_length = 80)]
    pub text_0: String,
    #[elicit(minimum = 0, maximum = 1000)]
    pub count_1: u32,
    pub flag_2: bool,
    pub choice_3: Level,
    #[elicit(minimum = 0.0, maximum = 1.0)]
    pub ratio_4: f64,
    pub note_5: Option<String>,
    #[elicit(max_items = 3)]
    pub tags_6: Vec<Tag>,
    #[elicit(format = "date")]
    pub day_7: String,
    #[elicit(min_length = 1, max_length = 80)]
    pub text_8: String,
    #[elicit(minimum = 0, maximum = 1000)]
    pub count_9: u32,
    pub flag_10: bool,
    pub choice_11: Level,
    #[elicit(minimum = 0.0, maximum = 1.0)]
    pub ratio_12: f64,
    pub note_13: Option<String>,
    #[elicit(max_items = 3)]
    pub tags_14: Vec<Tag>,
    #[elicit(format = "date")]
    pub day_15: String,
    #[elicit(min_length = 1, max_length = 80)]
    pub text_16: String,
    #[elicit(minimum = 0, maximum = 1000)]
    pub count_17: u32,
    pub flag_18: bool,
    pub choice_19: Level,
    #[elicit(minimum = 0.0, maximum = 1.0)]
    pub ratio_20: f64,
    pub note_21: Option<String>,
    #[elicit(max_items = 3)]
    pub tags_22: Vec<Tag>,
    #[elicit(format = "date")]
    pub day_23: String,
    #[elicit(min_length = 1, max_length = 80)]
    pub text_24: String,
    #[elicit(minimum = 0, maximum = 1000)]
    pub count_25: u32,
    pub flag_26: bool,
    pub choice_27: Level,
    #[elicit(minimum = 0.0, maximum = 1.0)]
    pub ratio_28: f64,
    pub note_29: Option<String>,
    #[elicit(max_items = 3)]
    pub tags_30: Vec<Tag>,
    #[elicit(format = "date")]
    pub day_31: String,
    #[elicit(min_length = 1, max_length = 80)]
    pub text_32: String,
    #[elicit(minimum = 0, maximum = 1000)]
    pub count_33: u32,
    pub flag_34: bool,
    pub choice_35: Level,
    #[elicit(minimum = 0.0, maximum = 1.0)]
    pub ratio_36: f64,
    pub note_37: Option<String>,
    #[elicit(max_items = 3)]
    pub tags_38: Vec<Tag>,
    #[elicit(format = "date")]
    pub day_39: String,
}

#[derive(Elicit, Deserialize, Debug)]
#[elicit(rename_all = "lowercase")]
#[serde(rename_all = "lowercase")]
pub enum Level {
    Low,
    Medium,
    High,
}

#[derive(Elicit, Deserialize, Debug)]
#[elicit(rename_all = "lowercase")]
#[serde(rename_all = "lowercase")]
pub enum Tag {
    Red,
    Blue,
    Green,
}

pub fn content8() -> Value {
    json!({
        "name": "Ada Lovelace",
        "email": "ada@example.com",
        "age": 36,
        "country": "FR",
        "newsletter": true,
        "rating": 4.5,
        "interests": ["rust", "chess"],
        "nickname": "countess"
    })
}

pub fn content40() -> Value {
    let mut m = serde_json::Map::new();
    for i in 0..40 {
        let v = match i % 8 {
            0 => json!(format!("value number {i}")),
            1 => json!(i * 7),
            2 => json!(i % 3 == 0),
            3 => json!(["low", "medium", "high"][i % 3]),
            4 => json!(0.25),
            5 => json!("optional note"),
            6 => json!(["red", "blue"]),
            _ => json!("2026-11-29"),
        };
        let name = [
            "text", "count", "flag", "choice", "ratio", "note", "tags", "day",
        ][i % 8];
        m.insert(format!("{name}_{i}"), v);
    }
    Value::Object(m)
}
