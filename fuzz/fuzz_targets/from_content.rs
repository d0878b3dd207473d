//! `from_content` of derived types on arbitrary JSON content. Invariants: the typed
//! parser accepts exactly what `requested_schema().validate` accepts, with the same
//! errors; what it builds writes back content that parses to the same value.
#![no_main]

use std::collections::BTreeSet;

use elicit::Elicit;
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

#[derive(Elicit, Debug, PartialEq)]
struct Profile {
    #[elicit(min_length = 1, max_length = 8, pattern = "^[a-z]")]
    name: String,
    #[elicit(format = "email")]
    email: Option<String>,
    #[elicit(minimum = -3, maximum = 300)]
    age: i16,
    small: u8,
    big: Option<u64>,
    ratio: Option<f32>,
    flag: bool,
    level: Level,
    #[elicit(min_items = 1, max_items = 3)]
    tags: Vec<Level>,
    set: Option<BTreeSet<Level>>,
    #[elicit(format = "date")]
    day: Option<String>,
}

#[derive(Elicit, Debug, PartialEq, Eq, PartialOrd, Ord, Clone, Copy)]
#[elicit(rename_all = "snake_case")]
enum Level {
    #[elicit(title = "Low level")]
    LowLevel,
    High,
}

#[derive(Elicit, Debug, PartialEq)]
#[elicit(deny_unknown_fields)]
struct Strict {
    n: Option<i64>,
    s: Option<String>,
}

fn check<T: Elicit + PartialEq + std::fmt::Debug>(content: &Value, denies_unknown: bool) {
    let typed = T::from_content(content);
    let validated = T::requested_schema().validate(content);
    if denies_unknown {
        // Stricter by request (D9): never accepts what validation refuses.
        if typed.is_ok() {
            assert!(validated.is_ok());
        }
    } else {
        match (&typed, &validated) {
            (Ok(_), Ok(())) => {}
            (Err(a), Err(b)) => assert_eq!(a, b, "typed and dynamic errors differ"),
            _ => panic!("typed {typed:?} but validate {validated:?} for {content}"),
        }
    }
    if let Ok(value) = typed {
        let written = value.to_content();
        assert!(
            T::requested_schema().validate(&written).is_ok(),
            "to_content wrote invalid content"
        );
        let again = T::from_content(&written).expect("what to_content writes parses");
        assert_eq!(again, value);
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(content) = serde_json::from_slice::<Value>(data) else {
        return;
    };
    check::<Profile>(&content, false);
    check::<Strict>(&content, true);
});
