//! Strict and lenient schema parse on arbitrary JSON. Invariants: a schema that parses
//! re-emits and re-parses to the same value; what the strict parse accepts, the lenient
//! one accepts identically; the cached wire form equals a fresh one.
#![no_main]

use elicit::RequestedSchema;
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

fuzz_target!(|data: &[u8]| {
    let Ok(json) = serde_json::from_slice::<Value>(data) else {
        return;
    };
    let strict = RequestedSchema::from_json(&json);
    let lenient = RequestedSchema::from_json_lenient(&json);
    if let Ok(schema) = &strict {
        let emitted = schema.to_json();
        let again = RequestedSchema::from_json(&emitted)
            .expect("an emitted strict schema re-parses strictly");
        assert_eq!(&again, schema, "strict round trip changed the schema");
        assert_eq!(
            again.to_json(),
            emitted,
            "re-emitting changed the wire form"
        );
        assert!(
            schema.unenforced().is_empty(),
            "a strict schema enforces everything"
        );
        let lenient = lenient
            .as_ref()
            .expect("the lenient parse accepts what the strict one does");
        assert_eq!(
            lenient, schema,
            "strict and lenient read a valid schema differently"
        );
        let _ = schema.lint();
    }
    if let Ok(schema) = &lenient {
        let emitted = schema.to_json();
        let again = RequestedSchema::from_json_lenient(&emitted)
            .expect("an emitted lenient schema re-parses");
        assert_eq!(&again, schema, "lenient round trip changed the schema");
        assert_eq!(again.to_json(), emitted);
        let _ = schema.unenforced();
    }
    if let Err(e) = &strict {
        // Every error names a place and says something.
        assert!(e.iter().next().is_some());
        assert!(!e.to_string().is_empty());
    }
});
