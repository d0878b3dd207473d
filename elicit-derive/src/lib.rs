//! `#[derive(Elicit)]` for the `elicit` crate (to come).
