//! Compile-time behaviour of `#[derive(Elicit)]`: each input the derive refuses has a
//! case under `tests/ui/<topic>/` with the exact errors it must produce, one case has
//! many mistakes to show they are all reported at once, and `ui/pass/` compiles cleanly
//! under `#![deny(warnings)]` with the prelude's names shadowed.
//!
//! The `.stderr` files are pinned to rustc 1.95, the only toolchain of this project's
//! machines and CI: another compiler words or places some messages differently.
//! Regenerate them with `TRYBUILD=overwrite cargo test --test ui` and review the diff.
//!
//! All cases share one `TestCases`, so trybuild checks the dependency graph once.

// covers: F1, F2, F5, F6, D4, D11, D12
#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/shape/*.rs");
    t.compile_fail("tests/ui/attr/*.rs");
    t.compile_fail("tests/ui/check/*.rs");
    t.compile_fail("tests/ui/secret/*.rs");
    t.compile_fail("tests/ui/serde/*.rs");
    t.compile_fail("tests/ui/types/*.rs");
    t.compile_fail("tests/ui/many/*.rs");
    t.pass("tests/ui/pass/*.rs");
}
