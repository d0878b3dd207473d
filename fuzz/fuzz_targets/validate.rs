//! `validate` of arbitrary content against arbitrary schemas, both taken from the input
//! (`[schema, content]`). Invariants: no panic; `validate` and `is_valid` agree; every
//! error names its property (or the content as a whole) and a rule.
#![no_main]

use elicit::RequestedSchema;
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

fuzz_target!(|data: &[u8]| {
    let Ok(Value::Array(pair)) = serde_json::from_slice::<Value>(data) else {
        return;
    };
    let [schema, content] = pair.as_slice() else {
        return;
    };
    let Ok(schema) = RequestedSchema::from_json_lenient(schema) else {
        return;
    };
    let result = schema.validate(content);
    assert_eq!(
        result.is_ok(),
        schema.is_valid(content),
        "validate and is_valid disagree"
    );
    if let Err(errors) = result {
        assert!(!errors.is_empty());
        for e in &errors {
            if let Some(p) = &e.property {
                assert!(content.get(p).is_some() || schema.property(p).is_some());
            }
            assert!(!e.to_string().is_empty());
        }
    }
});
