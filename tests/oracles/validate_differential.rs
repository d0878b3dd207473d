//! Differential test: `RequestedSchema::validate` accepts exactly what a JSON Schema
//! 2020-12 validator with format assertion on (the `jsonschema` crate) accepts, for
//! random schemas inside the elicitation subset and random content, valid and
//! adversarial.
//!
//! Cases: `ELICIT_PROPTEST_CASES` (default 10,000), each one schema checked against
//! several contents.

use crate::common;

use common::gen::{cases, content, schema};
use elicit::RequestedSchema;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};

// covers: V1, V2, V3, V4, V5, V6, V7, D6, D9, D10, F2
#[test]
fn validate_agrees_with_a_json_schema_validator() {
    let mut runner = TestRunner::new(Config {
        cases: cases(10_000),
        failure_persistence: None,
        ..Config::default()
    });
    let checked = std::cell::Cell::new(0u64);
    let accepted = std::cell::Cell::new(0u64);
    runner
        .run(
            &(schema(), proptest::collection::vec(content(), 4)),
            |(schema_json, contents)| {
                let ours = RequestedSchema::from_json(&schema_json).map_err(|e| {
                    TestCaseError::fail(format!("generated schema refused: {e}\n{schema_json:#}"))
                })?;
                let reference = jsonschema::draft202012::options()
                    .should_validate_formats(true)
                    .build(&schema_json)
                    .map_err(|e| {
                        TestCaseError::fail(format!("jsonschema refused the schema: {e}"))
                    })?;
                for content in &contents {
                    let expected = reference.is_valid(content);
                    let got = ours.validate(content);
                    prop_assert_eq!(
                        got.is_ok(),
                        expected,
                        "schema {:#}\ncontent {}\nours: {:?}",
                        schema_json,
                        content,
                        got
                    );
                    // The quick check agrees with the full one.
                    prop_assert_eq!(ours.is_valid(content), expected);
                    checked.set(checked.get() + 1);
                    accepted.set(accepted.get() + u64::from(expected));
                }
                Ok(())
            },
        )
        .unwrap();
    println!(
        "differential: {} (schema, content) pairs checked, {} valid and {} invalid, all agreeing with jsonschema",
        checked.get(),
        accepted.get(),
        checked.get() - accepted.get()
    );
    // The generators must exercise both outcomes, or the test proves little.
    assert!(
        accepted.get() * 20 > checked.get(),
        "too few valid contents generated"
    );
    assert!(
        (checked.get() - accepted.get()) * 20 > checked.get(),
        "too few invalid contents generated"
    );
}
