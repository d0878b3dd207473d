//! The strict and lenient parses of `requestedSchema`: one test per refusal, each
//! checking the reason and the JSON pointer, plus what the lenient parse keeps.

use elicit::schema::{FormatSpec, Limits, Options, ParseOptions};
use elicit::schema::{PropertyKind, SchemaErrorKind as K};
use elicit::RequestedSchema;
use serde_json::{json, Value};

/// The issues of a strict parse that must fail, as `(pointer, kind)`.
fn refused(schema: Value) -> Vec<(String, K)> {
    match RequestedSchema::from_json(&schema) {
        Ok(_) => panic!("strict parse accepted {schema}"),
        Err(e) => e
            .iter()
            .map(|(pointer, kind)| (pointer.to_owned(), kind.clone()))
            .collect(),
    }
}

/// A schema with one property `p`.
fn one(property: Value) -> Value {
    json!({ "type": "object", "properties": { "p": property } })
}

fn assert_one(schema: Value, pointer: &str, kind: K) {
    let issues = refused(schema);
    assert_eq!(issues, vec![(pointer.to_owned(), kind)]);
}

// covers: F1
#[test]
fn root_must_be_an_object_schema() {
    assert_one(json!([]), "", K::NotAnObject { found: "an array" });
    assert_one(json!({ "properties": {} }), "", K::RootNotObjectType);
    assert_one(
        json!({ "type": "array", "properties": {} }),
        "/type",
        K::RootNotObjectType,
    );
    assert_one(json!({ "type": "object" }), "", K::MissingProperties);
    assert_one(
        json!({ "type": "object", "properties": [] }),
        "/properties",
        K::WrongJsonType {
            keyword: "properties",
            expected: "an object of property schemas",
        },
    );
}

// covers: F1
#[test]
fn nesting_refs_null_and_untyped_properties_are_refused() {
    assert_one(
        one(json!({ "type": "object", "properties": {} })),
        "/properties/p/type",
        K::NestedObject,
    );
    assert_one(
        one(json!({ "$ref": "#/$defs/x" })),
        "/properties/p/$ref",
        K::Ref,
    );
    assert_one(
        one(json!({ "type": "null" })),
        "/properties/p/type",
        K::NullType,
    );
    assert_one(
        one(json!({ "title": "x" })),
        "/properties/p",
        K::MissingType,
    );
    assert_one(
        one(json!({ "type": ["string", "null"] })),
        "/properties/p/type",
        K::TypeNotAString,
    );
    assert_one(
        one(json!(true)),
        "/properties/p",
        K::NotAnObject { found: "a boolean" },
    );
    assert_one(
        one(json!({ "type": "date" })),
        "/properties/p/type",
        K::UnknownType {
            found: "date".into(),
        },
    );
}

// covers: F1, F2
#[test]
fn arrays_must_be_multi_selects_of_strings() {
    assert_one(
        one(json!({ "type": "array" })),
        "/properties/p",
        K::ArrayNotMultiSelect {
            reason: "`items` is missing",
        },
    );
    assert_one(
        one(json!({ "type": "array", "items": { "type": "integer", "enum": [1] } })),
        "/properties/p/items/type",
        K::ArrayNotMultiSelect {
            reason: "items must be strings",
        },
    );
    assert_one(
        one(json!({ "type": "array", "items": { "type": "string" } })),
        "/properties/p/items",
        K::ArrayNotMultiSelect {
            reason: "`items` has neither `enum` nor `anyOf`",
        },
    );
    assert_one(
        one(json!({ "type": "array", "items": [] })),
        "/properties/p/items",
        K::ArrayNotMultiSelect {
            reason: "`items` is not an object",
        },
    );
}

// covers: F2
#[test]
fn constraints_of_the_wrong_json_type_are_refused() {
    assert_one(
        one(json!({ "type": "string", "minLength": "3" })),
        "/properties/p/minLength",
        K::WrongJsonType {
            keyword: "minLength",
            expected: "a non-negative integer",
        },
    );
    assert_one(
        one(json!({ "type": "integer", "minimum": "0" })),
        "/properties/p/minimum",
        K::WrongJsonType {
            keyword: "minimum",
            expected: "an integer",
        },
    );
    assert_one(
        one(json!({ "type": "number", "maximum": true })),
        "/properties/p/maximum",
        K::WrongJsonType {
            keyword: "maximum",
            expected: "a number",
        },
    );
    assert_one(
        one(json!({ "type": "string", "pattern": 5 })),
        "/properties/p/pattern",
        K::WrongJsonType {
            keyword: "pattern",
            expected: "a string (an ECMA-262 regular expression)",
        },
    );
    assert_one(
        one(json!({ "type": "string", "format": 5 })),
        "/properties/p/format",
        K::WrongJsonType {
            keyword: "format",
            expected: "a string",
        },
    );
    assert_one(
        json!({ "type": "object", "properties": {}, "required": "p" }),
        "/required",
        K::WrongJsonType {
            keyword: "required",
            expected: "an array of property names",
        },
    );
}

// covers: F2, D12
#[test]
fn lengths_and_counts_must_be_in_range() {
    assert_one(
        one(json!({ "type": "string", "minLength": -1 })),
        "/properties/p/minLength",
        K::Negative {
            keyword: "minLength",
        },
    );
    assert_one(
        one(json!({ "type": "string", "maxLength": 2.5 })),
        "/properties/p/maxLength",
        K::NotAnInteger {
            keyword: "maxLength",
        },
    );
    assert_one(
        one(json!({ "type": "string", "maxLength": 4294967296u64 })),
        "/properties/p/maxLength",
        K::OutOfRange {
            keyword: "maxLength",
            range: "at most 4294967295 (uint32)",
        },
    );
    assert_one(
        one(
            json!({ "type": "array", "items": { "type": "string", "enum": ["a"] }, "maxItems": 1e20 }),
        ),
        "/properties/p/maxItems",
        K::OutOfRange {
            keyword: "maxItems",
            range: "at most 18446744073709551615 (uint64)",
        },
    );
    assert_one(
        one(
            json!({ "type": "array", "items": { "type": "string", "enum": ["a"] }, "minItems": -2 }),
        ),
        "/properties/p/minItems",
        K::Negative {
            keyword: "minItems",
        },
    );
    assert_one(
        one(json!({ "type": "integer", "maximum": 9223372036854775808u64 })),
        "/properties/p/maximum",
        K::OutOfRange {
            keyword: "maximum",
            range: "a 64-bit signed integer (int64)",
        },
    );
    assert_one(
        one(json!({ "type": "integer", "minimum": 0.5 })),
        "/properties/p/minimum",
        K::NotAnInteger { keyword: "minimum" },
    );
    // A whole number written as a float is an integer (V2).
    let s =
        RequestedSchema::from_json(&one(json!({ "type": "string", "minLength": 2.0 }))).unwrap();
    let PropertyKind::String(string) = s.properties()[0].schema().kind() else {
        panic!("string")
    };
    assert_eq!(string.min_length, Some(2));
}

// covers: F2
#[test]
fn min_above_max_is_refused_for_lengths_values_and_items() {
    let min_above_max = |min: &'static str, max: &'static str| K::MinAboveMax { min, max };
    assert_one(
        one(json!({ "type": "string", "minLength": 3, "maxLength": 2 })),
        "/properties/p/minLength",
        min_above_max("minLength", "maxLength"),
    );
    assert_one(
        one(json!({ "type": "integer", "minimum": 3, "maximum": 2 })),
        "/properties/p/minimum",
        min_above_max("minimum", "maximum"),
    );
    assert_one(
        one(json!({ "type": "number", "minimum": 0.5, "maximum": 0.25 })),
        "/properties/p/minimum",
        min_above_max("minimum", "maximum"),
    );
    assert_one(
        one(
            json!({ "type": "array", "items": { "type": "string", "enum": ["a"] }, "minItems": 2, "maxItems": 1 }),
        ),
        "/properties/p/minItems",
        min_above_max("minItems", "maxItems"),
    );
}

// covers: D11
#[test]
fn defaults_must_be_valid_for_their_own_property() {
    let invalid = |schema: Value| {
        let issues = refused(schema);
        assert_eq!(issues.len(), 1, "{issues:?}");
        assert_eq!(issues[0].0, "/properties/p/default");
        let K::InvalidDefault { reason } = &issues[0].1 else {
            panic!("expected InvalidDefault, got {:?}", issues[0].1)
        };
        reason.clone()
    };
    assert_eq!(
        invalid(one(json!({ "type": "string", "default": 3 }))),
        "must be a string, found an integer"
    );
    assert!(invalid(one(
        json!({ "type": "string", "maxLength": 2, "default": "abc" })
    ))
    .contains("at most 2"));
    assert!(invalid(one(
        json!({ "type": "string", "format": "email", "default": "nope" })
    ))
    .contains("email"));
    assert!(invalid(one(
        json!({ "type": "integer", "maximum": 5, "default": 6 })
    ))
    .contains("at most 5"));
    assert!(invalid(one(json!({ "type": "integer", "default": 1.5 }))).contains("integer"));
    assert!(invalid(one(json!({ "type": "boolean", "default": "yes" }))).contains("boolean"));
    assert!(invalid(one(
        json!({ "type": "string", "enum": ["a"], "default": "b" })
    ))
    .contains("`b`"));
    assert!(invalid(one(json!({
        "type": "string",
        "oneOf": [{ "const": "a", "title": "A" }],
        "default": "A"
    })))
    .contains("send its value `a`"));
    assert!(invalid(one(json!({
        "type": "array",
        "items": { "type": "string", "enum": ["a", "b"] },
        "maxItems": 1,
        "default": ["a", "b"]
    })))
    .contains("at most 1"));
    assert!(invalid(one(json!({
        "type": "array",
        "items": { "type": "string", "enum": ["a"] },
        "default": ["z"]
    })))
    .contains("`z`"));
    // The lenient parse reads an invalid default as absent (C6).
    let s = RequestedSchema::from_json_lenient(&one(
        json!({ "type": "integer", "maximum": 5, "default": 6 }),
    ))
    .unwrap();
    assert_eq!(s.properties()[0].schema().default_value(), None);
}

// covers: D11, D2
#[test]
fn default_problems_are_reported_in_document_order_among_the_others() {
    // Defaults are checked once every property is read (their options must be
    // readable); their problems still come where the document has them.
    let issues = refused(json!({
        "type": "object",
        "properties": {
            "a": { "type": "string", "x-a": 1 },
            "b": { "type": "string", "enum": ["x", "y"], "default": "z" },
            "c": { "type": "integer", "x-c": 1 },
            "d": { "type": "array", "items": { "type": "string", "enum": ["p"] }, "default": ["q"] },
            "e": { "type": "boolean", "x-e": 1 }
        },
        "required": ["nope"]
    }));
    let pointers: Vec<&str> = issues.iter().map(|(p, _)| p.as_str()).collect();
    assert_eq!(
        pointers,
        [
            "/properties/a/x-a",
            "/properties/b/default",
            "/properties/c/x-c",
            "/properties/d/default",
            "/properties/e/x-e",
            "/required/0"
        ]
    );
}

// covers: D11, F4
#[test]
fn valid_defaults_of_every_text_kind_are_kept_exactly() {
    let schema = json!({
        "type": "object",
        "properties": {
            "s": { "type": "string", "default": "héllo wörld" },
            "one": { "type": "string", "oneOf": [
                { "const": "a", "title": "A" }, { "const": "ü", "title": "Ü" }
            ], "default": "ü" },
            "many": { "type": "array", "items": { "type": "string", "enum": ["x", "yy", "z"] },
                "default": ["yy", "z"] },
            "n": { "type": "integer", "default": 3 }
        }
    });
    let parsed = RequestedSchema::from_json(&schema).unwrap();
    let defaults: Vec<Option<Value>> = parsed
        .properties()
        .iter()
        .map(|p| p.schema().default_value())
        .collect();
    assert_eq!(
        defaults,
        [
            Some(json!("héllo wörld")),
            Some(json!("ü")),
            Some(json!(["yy", "z"])),
            Some(json!(3))
        ]
    );
    assert_eq!(parsed.to_json(), schema);
    // A clone outlives the schema it was cloned from (the texts share one buffer).
    let name = parsed.properties()[1].clone();
    drop(parsed);
    assert_eq!((name.name(), name.label()), ("one", "one"));
}

// covers: D4
#[test]
fn options_must_be_non_empty_and_unique() {
    assert_one(
        one(json!({ "type": "string", "enum": [] })),
        "/properties/p/enum",
        K::EmptyOptions,
    );
    assert_one(
        one(json!({ "type": "string", "oneOf": [] })),
        "/properties/p/oneOf",
        K::EmptyOptions,
    );
    assert_one(
        one(json!({ "type": "array", "items": { "type": "string", "enum": [] } })),
        "/properties/p/items/enum",
        K::EmptyOptions,
    );
    assert_one(
        one(json!({ "type": "array", "items": { "anyOf": [] } })),
        "/properties/p/items/anyOf",
        K::EmptyOptions,
    );
    assert_one(
        one(json!({ "type": "string", "enum": ["a", "b", "a"] })),
        "/properties/p/enum/2",
        K::DuplicateOption { value: "a".into() },
    );
    assert_one(
        one(
            json!({ "type": "string", "oneOf": [{ "const": "a", "title": "A" }, { "const": "a", "title": "B" }] }),
        ),
        "/properties/p/oneOf/1/const",
        K::DuplicateOption { value: "a".into() },
    );
    assert_one(
        one(json!({ "type": "string", "enum": ["a", 1] })),
        "/properties/p/enum/1",
        K::OptionNotAString,
    );
    // Values of every length class the comparison has (short, word, two words, longer),
    // differing only inside: only the repeated one is a duplicate.
    for (first, second) in [
        ("ab", "ax"),
        ("abcde", "abxde"),
        ("abcdefghijk", "abcdexghijk"),
        ("abcdefgh_middle_stuvwxyz", "abcdefgh_muddle_stuvwxyz"),
    ] {
        assert_one(
            one(json!({ "type": "string", "enum": [first, second, first] })),
            "/properties/p/enum/2",
            K::DuplicateOption {
                value: first.into(),
            },
        );
        assert_one(
            one(json!({ "type": "string", "oneOf": [
                { "const": first, "title": "A" },
                { "const": second, "title": "B" },
                { "const": second, "title": "C" }
            ] })),
            "/properties/p/oneOf/2/const",
            K::DuplicateOption {
                value: second.into(),
            },
        );
        assert!(RequestedSchema::from_json(
            &json!({ "type": "object", "properties": { "p": { "type": "string", "enum": [first, second] } } })
        )
        .is_ok());
    }
}

// covers: D3, F2
#[test]
fn enum_with_one_of_and_incomplete_titled_options_are_refused() {
    assert_one(
        one(json!({ "type": "string", "enum": ["a"], "oneOf": [{ "const": "a", "title": "A" }] })),
        "/properties/p/oneOf",
        K::EnumWithOneOf,
    );
    assert_one(
        one(json!({ "type": "string", "oneOf": [{ "title": "A" }] })),
        "/properties/p/oneOf/0",
        K::OptionMissingConst,
    );
    assert_one(
        one(json!({ "type": "string", "oneOf": [{ "const": "a" }] })),
        "/properties/p/oneOf/0",
        K::OptionMissingTitle,
    );
    assert_one(
        one(json!({ "type": "array", "items": { "anyOf": [{ "const": "a" }] } })),
        "/properties/p/items/anyOf/0",
        K::OptionMissingTitle,
    );
}

// covers: D2
#[test]
fn required_must_name_existing_properties_once() {
    assert_one(
        json!({ "type": "object", "properties": {}, "required": ["ghost"] }),
        "/required/0",
        K::RequiredUnknown {
            name: "ghost".into(),
        },
    );
    assert_one(
        json!({ "type": "object", "properties": { "a": { "type": "string" } }, "required": ["a", "a"] }),
        "/required/1",
        K::RequiredDuplicate { name: "a".into() },
    );
    // In any order: the look-up starts after the last name found and wraps around.
    let abc =
        json!({ "a": { "type": "string" }, "b": { "type": "string" }, "c": { "type": "string" } });
    for order in [["c", "a", "b"], ["a", "c", "b"], ["b", "a", "c"]] {
        // A miss at the cursor searches on from the property after it, then wraps.
        let schema = RequestedSchema::from_json(
            &json!({ "type": "object", "properties": abc, "required": order }),
        )
        .unwrap();
        assert!(
            schema.properties().iter().all(|p| p.is_required()),
            "{order:?}"
        );
    }
    assert_one(
        json!({ "type": "object", "properties": abc, "required": ["b", "c", "b"] }),
        "/required/2",
        K::RequiredDuplicate { name: "b".into() },
    );
    assert_one(
        json!({ "type": "object", "properties": abc, "required": ["c", "ghost", "a"] }),
        "/required/1",
        K::RequiredUnknown {
            name: "ghost".into(),
        },
    );
    // Names that agree on their first and last bytes: each is found, a near miss is not.
    let near = json!({
        "account_name": { "type": "string" },
        "account_home": { "type": "string" },
        "a_very_long_property_name_one": { "type": "string" },
        "a_very_long_property_name_two": { "type": "string" }
    });
    let schema = RequestedSchema::from_json(&json!({ "type": "object", "properties": near,
        "required": ["a_very_long_property_name_two", "account_home", "account_name"] }))
    .unwrap();
    let required: Vec<&str> = schema
        .properties()
        .iter()
        .filter(|p| p.is_required())
        .map(|p| p.name())
        .collect();
    assert_eq!(
        required,
        [
            "account_name",
            "account_home",
            "a_very_long_property_name_two"
        ]
    );
    assert_one(
        json!({ "type": "object", "properties": near, "required": ["account_nome"] }),
        "/required/0",
        K::RequiredUnknown {
            name: "account_nome".into(),
        },
    );
}

// covers: D7
#[test]
fn unknown_formats_are_refused_strictly_and_kept_leniently() {
    let schema = one(json!({ "type": "string", "format": "ipv4" }));
    assert_one(
        schema.clone(),
        "/properties/p/format",
        K::UnknownFormat {
            found: "ipv4".into(),
        },
    );
    let lenient = RequestedSchema::from_json_lenient(&schema).unwrap();
    let PropertyKind::String(s) = lenient.properties()[0].schema().kind() else {
        panic!("string")
    };
    assert_eq!(s.format, Some(FormatSpec::Unknown("ipv4".into())));
    assert_eq!(lenient.unenforced().len(), 1);
    // Not asserted: any string passes.
    assert!(lenient.validate(&json!({ "p": "not an address" })).is_ok());
    // And it is written back as received.
    assert_eq!(lenient.to_json(), schema);
}

// covers: D8
#[test]
fn patterns_that_cannot_run_are_refused_strictly_and_kept_leniently() {
    let schema = one(json!({ "type": "string", "pattern": "^(?=a)b" }));
    let issues = refused(schema.clone());
    assert_eq!(issues.len(), 1);
    assert_eq!(issues[0].0, "/properties/p/pattern");
    assert!(matches!(issues[0].1, K::InvalidPattern { .. }));
    let lenient = RequestedSchema::from_json_lenient(&schema).unwrap();
    let unenforced = lenient.unenforced();
    assert_eq!(unenforced.len(), 1);
    assert!(
        unenforced[0].reason.contains("not enforced"),
        "{unenforced:?}"
    );
    assert!(lenient.validate(&json!({ "p": "zzz" })).is_ok());
    assert_eq!(lenient.to_json(), schema);
    // A syntax error is refused by both parses' strict half.
    let broken = one(json!({ "type": "string", "pattern": "(" }));
    assert!(matches!(refused(broken)[0].1, K::InvalidPattern { .. }));
}

// covers: D12
#[test]
fn limits_are_enforced_with_a_clear_error() {
    let mut limits = Limits::default();
    limits.max_properties = 2;
    limits.max_options = 2;
    limits.max_text_bytes = 8;
    limits.max_pattern_len = 4;
    limits.max_depth = 3;
    let opts = ParseOptions::strict().with_limits(limits);
    let parse = |v: Value| {
        RequestedSchema::parse(&v, &opts)
            .unwrap_err()
            .kind()
            .clone()
    };
    let limit = |what: &'static str, limit: usize| K::LimitExceeded { what, limit };
    assert_eq!(
        parse(
            json!({ "type": "object", "properties": { "a": { "type": "string" }, "b": { "type": "string" }, "c": { "type": "string" } } })
        ),
        limit("properties", 2)
    );
    assert_eq!(
        parse(one(json!({ "type": "string", "enum": ["a", "b", "c"] }))),
        limit("options", 2)
    );
    assert_eq!(
        parse(one(
            json!({ "type": "string", "title": "a very long title" })
        )),
        limit("bytes in one text", 8)
    );
    assert_eq!(
        parse(one(json!({ "type": "string", "pattern": "abcde" }))),
        limit("characters in a pattern", 4)
    );
    assert_eq!(
        parse(one(
            json!({ "type": "string", "_meta": { "a": { "b": { "c": { "d": 1 } } } } })
        )),
        limit("levels of nesting", 3)
    );
    // The defaults are generous enough for any real form.
    let ok = json!({ "type": "object", "properties": { "a": { "type": "string", "pattern": "^[a-z]+$" } } });
    assert!(RequestedSchema::from_json(&ok).is_ok());
}

// covers: F1, F2
#[test]
fn keywords_outside_the_subset_are_refused_strictly() {
    assert_one(
        one(json!({ "type": "integer", "exclusiveMinimum": 0 })),
        "/properties/p/exclusiveMinimum",
        K::UnsupportedKeyword {
            keyword: "exclusiveMinimum".into(),
        },
    );
    assert_one(
        json!({ "type": "object", "properties": {}, "additionalProperties": false }),
        "/additionalProperties",
        K::UnsupportedKeyword {
            keyword: "additionalProperties".into(),
        },
    );
    assert_one(
        one(json!({ "type": "integer", "minLength": 1 })),
        "/properties/p/minLength",
        K::KeywordNotForKind {
            keyword: "minLength",
            kind: "integer",
        },
    );
    assert_one(
        one(json!({ "type": "string", "enum": ["a"], "maxLength": 3 })),
        "/properties/p/maxLength",
        K::KeywordNotForKind {
            keyword: "maxLength",
            kind: "single-select",
        },
    );
    assert_one(
        one(json!({ "type": "string", "title": 5 })),
        "/properties/p/title",
        K::WrongJsonType {
            keyword: "title",
            expected: "a string",
        },
    );
    // Annotations are accepted and written back.
    let annotated = one(json!({ "type": "string", "$comment": "why", "examples": ["x"] }));
    assert_eq!(
        RequestedSchema::from_json(&annotated).unwrap().to_json(),
        annotated
    );
}

// covers: M5
#[test]
fn legacy_enum_names_are_read_leniently_as_titled_options() {
    let schema =
        one(json!({ "type": "string", "enum": ["r", "g"], "enumNames": ["Red", "Green"] }));
    assert_one(
        schema.clone(),
        "/properties/p/enumNames",
        K::LegacyEnumNames,
    );
    let lenient = RequestedSchema::from_json_lenient(&schema).unwrap();
    let PropertyKind::SingleSelect(s) = lenient.properties()[0].schema().kind() else {
        panic!("select")
    };
    assert!(s.options.is_titled());
    assert_eq!(s.options.label(1), Some("Green"));
    // Never emitted for ACP: it becomes `oneOf`.
    assert_eq!(
        lenient.to_json()["properties"]["p"],
        json!({ "type": "string", "oneOf": [{ "const": "r", "title": "Red" }, { "const": "g", "title": "Green" }] })
    );
}

// covers: C6, D14
#[test]
fn lenient_parse_reads_malformed_cosmetics_as_absent() {
    let schema = json!({
        "type": "object",
        "title": 5,
        "description": ["x"],
        "_meta": "nope",
        "properties": { "p": { "type": "string", "title": false, "description": 1, "_meta": 3 } }
    });
    assert_eq!(refused(schema.clone()).len(), 6);
    let lenient = RequestedSchema::from_json_lenient(&schema).unwrap();
    assert_eq!(lenient.title(), None);
    assert_eq!(lenient.meta(), None);
    assert_eq!(lenient.properties()[0].schema().title(), None);
    // Malformed constraints stay errors in the lenient parse (D14).
    let bad = one(json!({ "type": "string", "minLength": "x" }));
    assert!(RequestedSchema::from_json_lenient(&bad).is_err());
}

// covers: E6
#[test]
fn unknown_property_types_are_kept_byte_for_byte_and_unrenderable() {
    let raw =
        json!({ "type": "_color", "title": "Pick", "palette": ["#fff"], "nested": { "x": 1 } });
    let schema = json!({ "type": "object", "properties": { "c": raw.clone(), "n": { "type": "string" } }, "required": ["c"] });
    assert!(RequestedSchema::from_json(&schema).is_err());
    let lenient = RequestedSchema::from_json_lenient(&schema).unwrap();
    assert!(!lenient.is_renderable());
    let PropertyKind::Unknown(u) = lenient.properties()[0].schema().kind() else {
        panic!("unknown")
    };
    assert_eq!(u.type_name(), "_color");
    assert_eq!(lenient.to_json(), schema);
    // Never mistaken for a known kind: the value is not checked against anything but null.
    assert!(lenient.validate(&json!({ "c": 5 })).is_ok());
    assert!(lenient.validate(&json!({ "c": null })).is_err());
}

// covers: F1, F2
#[test]
fn every_error_is_reported_in_one_pass() {
    let schema = json!({
        "type": "object",
        "properties": {
            "a": { "type": "object" },
            "b": { "type": "string", "minLength": 5, "maxLength": 1, "format": "phone" },
            "c": { "type": "string", "enum": [] },
            "d": { "type": "integer", "default": "x" }
        },
        "required": ["a", "zzz"]
    });
    let issues = refused(schema);
    let pointers: Vec<&str> = issues.iter().map(|(p, _)| p.as_str()).collect();
    assert_eq!(
        pointers,
        [
            "/properties/a/type",
            "/properties/b/minLength",
            "/properties/b/format",
            "/properties/c/enum",
            "/properties/d/default",
            "/required/1"
        ]
    );
    let err = RequestedSchema::from_json(
        &json!({ "type": "object", "properties": { "x~/y": { "type": "null" } } }),
    )
    .unwrap_err();
    assert_eq!(err.to_string(), "at /properties/x~0~1y/type: `type: \"null\"` is not allowed: leave an optional field out of `required` instead");
}

// covers: D13
#[test]
fn property_and_option_order_is_kept_end_to_end() {
    // Deliberately not alphabetical, so a sorted map would show.
    let schema = json!({
        "type": "object",
        "properties": {
            "zeta": { "type": "string" },
            "alpha": { "type": "string", "enum": ["z", "a", "m"] },
            "mid": { "type": "array", "items": { "anyOf": [
                { "const": "y", "title": "Y" }, { "const": "b", "title": "B" }
            ] } }
        },
        "required": ["mid", "zeta"]
    });
    let parsed = RequestedSchema::from_json(&schema).unwrap();
    let names: Vec<&str> = parsed.properties().iter().map(|p| p.name()).collect();
    assert_eq!(names, ["zeta", "alpha", "mid"]);
    let text = serde_json::to_string(&parsed).unwrap();
    assert!(text.find("zeta").unwrap() < text.find("alpha").unwrap());
    assert!(text.find("alpha").unwrap() < text.find("mid").unwrap());
    let PropertyKind::SingleSelect(s) = parsed.properties()[1].schema().kind() else {
        panic!("select")
    };
    assert_eq!(s.options.values().collect::<Vec<_>>(), ["z", "a", "m"]);
    // `required` is written in property order.
    assert_eq!(parsed.to_json()["required"], json!(["zeta", "mid"]));
    let again: RequestedSchema = serde_json::from_str(&text).unwrap();
    assert_eq!(again, parsed);
}

/// A form with many selects of every kind: past a parse's first lists, the option lists
/// share one buffer, and options with texts too long to hold inline share the text
/// buffer too. Every option, title, default and `_meta` reads back exactly, a refused list
/// among them is reported where it is, and the legacy `enumNames` still pair up.
// covers: F2, D4, D11, M5
#[test]
fn many_selects_read_back_exactly_whichever_lists_share_a_buffer() {
    let long = |i: usize| format!("an option value longer than the inline texts, number {i}");
    let mut properties = serde_json::Map::new();
    let mut content = serde_json::Map::new();
    for i in 0..60 {
        let (schema, answer) = match i % 4 {
            0 => (
                json!({ "type": "string", "enum": ["north", long(i), "south"], "default": long(i) }),
                json!(long(i)),
            ),
            1 => (
                json!({ "type": "string", "title": format!("Pick {i}"), "oneOf": [
                    { "const": "a", "title": long(i) },
                    { "const": long(i), "title": "B", "description": long(i + 1), "_meta": { "i": i } }
                ] }),
                json!(long(i)),
            ),
            2 => (
                json!({ "type": "array", "items": { "type": "string", "enum": ["x", long(i)] },
                        "default": [long(i)], "maxItems": 2 }),
                json!(["x", long(i)]),
            ),
            _ => (
                json!({ "type": "array", "items": { "anyOf": [
                    { "const": long(i), "title": "L" }, { "const": "s", "title": "S" }
                ] } }),
                json!(["s"]),
            ),
        };
        properties.insert(format!("p{i}"), schema);
        content.insert(format!("p{i}"), answer);
    }
    let schema = json!({ "type": "object", "properties": properties });
    let parsed = RequestedSchema::from_json(&schema).unwrap();
    assert_eq!(parsed.to_json(), schema);
    assert_eq!(parsed.clone(), parsed);
    let content = Value::Object(content);
    // The first validation reads the lists themselves, the second its plan.
    for _ in 0..2 {
        assert!(parsed.validate(&content).is_ok());
    }
    let mut wrong = content.clone();
    wrong["p57"] = json!("not an option");
    assert!(parsed.validate(&wrong).is_err());

    // A repeated option in a late list is reported at its pointer, and only there.
    let mut repeated = schema.clone();
    repeated["properties"]["p52"]["enum"][2] = json!("north");
    assert_eq!(
        refused(repeated),
        vec![(
            "/properties/p52/enum/2".to_owned(),
            K::DuplicateOption {
                value: "north".into()
            }
        )]
    );

    // Legacy names past the first lists still pair up with their values.
    let mut legacy = schema.clone();
    legacy["properties"]["p56"] =
        json!({ "type": "string", "enum": [long(1), "g"], "enumNames": ["One", "G"] });
    let lenient = RequestedSchema::from_json_lenient(&legacy).unwrap();
    assert_eq!(
        lenient.to_json()["properties"]["p56"],
        json!({ "type": "string", "oneOf": [{ "const": long(1), "title": "One" }, { "const": "g", "title": "G" }] })
    );
    assert_eq!(
        lenient.to_json()["properties"]["p59"],
        schema["properties"]["p59"]
    );
}

// covers: E7
#[test]
fn meta_is_kept_everywhere() {
    let schema = json!({
        "type": "object",
        "properties": {
            "p": { "type": "string", "oneOf": [{ "const": "a", "title": "A", "_meta": { "o": 1 } }], "_meta": { "p": 2 } }
        },
        "_meta": { "s": { "deep": [1, 2] } }
    });
    let parsed = RequestedSchema::from_json(&schema).unwrap();
    assert_eq!(parsed.to_json(), schema);
    let PropertyKind::SingleSelect(select) = parsed.properties()[0].schema().kind() else {
        panic!("select")
    };
    let Options::Titled(options) = &select.options else {
        panic!("titled")
    };
    assert_eq!(options[0].meta().unwrap()["o"], 1);
}

// covers: F1
#[test]
fn emitted_schema_always_has_type_and_properties() {
    let empty = RequestedSchema::new(None, None, vec![]).unwrap();
    assert_eq!(
        empty.to_json(),
        json!({ "type": "object", "properties": {} })
    );
    // Null members read as absent and are not written back.
    let nulls = json!({ "type": "object", "title": null, "properties": { "p": { "type": "string", "minLength": null } }, "required": null });
    assert_eq!(
        RequestedSchema::from_json(&nulls).unwrap().to_json(),
        json!({ "type": "object", "properties": { "p": { "type": "string" } } })
    );
}

#[test]
fn deserialize_is_the_strict_parse() {
    let err = serde_json::from_str::<RequestedSchema>(
        r#"{"type":"object","properties":{"p":{"type":"object"}}}"#,
    )
    .unwrap_err();
    assert!(
        err.to_string().contains("nested objects are not allowed"),
        "{err}"
    );
}
