//! The order of a content's keys does not change what `from_content` returns: the same
//! value, or the same errors in the same order (property order, D13) as
//! `RequestedSchema::validate`, for content in declaration order, reversed, rotated and
//! shuffled; on forms of more than 64 and of 256 fields, and on names of equal length
//! that differ in one byte (what the derive's name lookup compares).

#[path = "../../benches/common/mixed.rs"]
#[allow(dead_code)]
mod mixed;

use elicit::Elicit;
use mixed::{mixed_content, Mixed200, Mixed256};
use serde_json::{json, Map, Value};

/// Names of equal length that differ in their first, middle or last byte, across the
/// 4- and 8-byte chunks the lookup compares, and names that are prefixes of others.
#[derive(Elicit, Debug, PartialEq)]
#[allow(dead_code)]
struct LookAlike {
    a: bool,
    b: bool,
    ab: bool,
    ba: bool,
    abc: bool,
    abd: bool,
    #[elicit(min_length = 2)]
    abcd: String,
    abce: Option<String>,
    bbcd: bool,
    abcdefg: bool,
    abcdefh: bool,
    #[elicit(minimum = 1, maximum = 9)]
    abcdefgh: u8,
    abcdefgi: bool,
    bbcdefgh: bool,
    abcdefghi: bool,
    abcdefghj: bool,
    abcdefgh_abcdefgh: bool,
    abcdefgh_abcdefgi: bool,
    abcdefgi_abcdefgh: bool,
    #[elicit(rename = "é")]
    e_acute: bool,
    #[elicit(rename = "è")]
    e_grave: bool,
}

fn look_alike_content() -> Value {
    json!({
        "a": true, "b": false, "ab": true, "ba": false, "abc": true, "abd": false,
        "abcd": "four", "abce": "five", "bbcd": true, "abcdefg": false, "abcdefh": true,
        "abcdefgh": 3, "abcdefgi": false, "bbcdefgh": true, "abcdefghi": false,
        "abcdefghj": true, "abcdefgh_abcdefgh": false, "abcdefgh_abcdefgi": true,
        "abcdefgi_abcdefgh": false, "é": true, "è": false
    })
}

/// The content's members in the order `order` gives their positions.
fn permuted(content: &Value, order: &[usize]) -> Value {
    let members: Vec<(&String, &Value)> = content.as_object().expect("an object").iter().collect();
    Value::Object(
        order
            .iter()
            .map(|&i| (members[i].0.clone(), members[i].1.clone()))
            .collect::<Map<String, Value>>(),
    )
}

/// Declaration order, reversed, rotated by a third, interleaved from both ends, and a
/// fixed pseudo-random shuffle.
fn orders(n: usize) -> Vec<Vec<usize>> {
    let forward: Vec<usize> = (0..n).collect();
    let reversed: Vec<usize> = (0..n).rev().collect();
    let rotated: Vec<usize> = (0..n).map(|i| (i + n / 3) % n).collect();
    let interleaved: Vec<usize> = (0..n)
        .map(|i| if i % 2 == 0 { i / 2 } else { n - 1 - i / 2 })
        .collect();
    let mut shuffled = forward.clone();
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    for i in (1..n).rev() {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        shuffled.swap(i, (state % (i as u64 + 1)) as usize);
    }
    vec![forward, reversed, rotated, interleaved, shuffled]
}

/// `T::from_content` on every order of `content` gives what it gives in declaration
/// order, which is what `validate` says.
fn same_in_every_order<T: Elicit>(content: &Value) {
    let n = content.as_object().expect("an object").len();
    let expected = T::from_content(content).map(|t| t.to_content());
    match (&expected, T::requested_schema().validate(content)) {
        (Ok(_), Ok(())) => {}
        (Err(typed), Err(dynamic)) => assert_eq!(typed, &dynamic),
        (typed, dynamic) => panic!("from_content {typed:?} but validate {dynamic:?}"),
    }
    for order in orders(n) {
        let content = permuted(content, &order);
        let got = T::from_content(&content).map(|t| t.to_content());
        assert_eq!(got, expected, "keys in the order {order:?}");
    }
}

/// Every member changed to a value of the wrong type, one removed, and a key that is
/// no property: errors for every property, in property order.
fn broken(content: &Value, drop: &str) -> Value {
    let mut m = content.as_object().expect("an object").clone();
    for v in m.values_mut() {
        *v = match v {
            Value::String(_) => json!(7),
            _ => json!("x"),
        };
    }
    m.shift_remove(drop);
    m.insert("not_a_property".into(), json!(1));
    Value::Object(m)
}

// covers: D9, D10, D13, V5
#[test]
fn look_alike_names_read_the_same_in_every_order() {
    let content = look_alike_content();
    same_in_every_order::<LookAlike>(&content);
    same_in_every_order::<LookAlike>(&broken(&content, "abcdefgh"));
    let mut partial = content.as_object().unwrap().clone();
    partial["abcdefgh_abcdefgi"] = Value::Null;
    partial["abcd"] = json!("x");
    partial.shift_remove("abce");
    same_in_every_order::<LookAlike>(&Value::Object(partial));
    // A key that differs from a property's name only in its last byte is no property.
    let mut near = content.as_object().unwrap().clone();
    near.insert("abcdefgh_abcdefgj".into(), json!(true));
    near.insert("abcz".into(), json!(true));
    near.insert("".into(), json!(true));
    let near = Value::Object(near);
    same_in_every_order::<LookAlike>(&near);
    assert_eq!(
        LookAlike::from_content(&near).expect("unknown keys are ignored"),
        LookAlike::from_content(&content).expect("valid")
    );
}

// covers: D9, D13, V5
#[test]
fn forms_of_more_than_64_and_256_fields_read_the_same_in_every_order() {
    for content in [mixed_content(200), broken(&mixed_content(200), "text_100")] {
        same_in_every_order::<Mixed200>(&content);
    }
    for content in [mixed_content(256), broken(&mixed_content(256), "flag_255")] {
        same_in_every_order::<Mixed256>(&content);
    }
}

/// Look-alike names with unknown keys refused.
#[derive(Elicit, Debug, PartialEq)]
#[elicit(deny_unknown_fields)]
#[allow(dead_code)]
struct StrictLookAlike {
    abcdefgh: bool,
    abcdefgi: Option<bool>,
    ab: bool,
}

// covers: D9, D13
#[test]
fn unknown_keys_are_refused_in_every_order() {
    let content = json!({
        "abcdefgh": true, "abcdefgj": true, "abcdefgi": false, "ac": true, "ab": false
    });
    let errors = StrictLookAlike::from_content(&content).expect_err("two unknown keys");
    let unknown: Vec<_> = errors
        .errors()
        .iter()
        .map(|e| e.property.as_deref().map(str::to_owned))
        .collect();
    assert_eq!(
        unknown,
        [Some("abcdefgj".to_owned()), Some("ac".to_owned())]
    );
    for order in orders(5) {
        let content = permuted(&content, &order);
        let got = StrictLookAlike::from_content(&content).expect_err("two unknown keys");
        assert_eq!(got.len(), 2, "keys in the order {order:?}");
    }
    let known = json!({ "ab": true, "abcdefgh": false });
    assert_eq!(
        StrictLookAlike::from_content(&known).expect("only known keys"),
        StrictLookAlike {
            abcdefgh: false,
            abcdefgi: None,
            ab: true
        }
    );
}
