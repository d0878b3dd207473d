//! Tests against independent oracles in `../shared/oracles`: the JSON-Schema-Test-Suite,
//! the `jsonschema` crate as a reference validator (formats asserted), and generated
//! patterns and formats. Kept apart from the other tests because they are the slow ones
//! and CI prints their counts.

#[path = "../common/mod.rs"]
mod common;

mod format_oracle;
mod json_schema_suite;
mod pattern_oracle;
mod pattern_syntax_oracle;
mod validate_differential;
