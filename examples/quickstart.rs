//! The elicit quickstart: an agent describes the input it needs as a Rust type, sends
//! the compile-time schema, and gets the answer back parsed and fully validated.
//!
//! Run it with `cargo run --example quickstart`.

use elicit::{Elicit, ElicitationResponse, Elicited};
use serde_json::json;

/// How should I approach this refactor?
#[derive(Elicit, Debug)]
#[elicit(title = "Refactor plan")]
struct Refactor {
    /// Strategy to follow
    strategy: Strategy,
    /// How many passes over the code
    #[elicit(title = "Passes", minimum = 1, maximum = 5, default = 2)]
    passes: u8,
    /// Where to send the summary, if anywhere
    #[elicit(format = "email")]
    notify: Option<String>,
    /// Areas the refactor may touch
    #[elicit(min_items = 1)]
    areas: Vec<Area>,
    /// Run the test suite after each pass
    #[elicit(default = true)]
    run_tests: bool,
}

/// How bold the changes may be.
#[derive(Elicit, Debug, Clone, Copy, PartialEq, Eq)]
enum Strategy {
    /// Small, safe steps
    #[elicit(title = "Conservative")]
    Conservative,
    #[elicit(title = "Balanced")]
    Balanced,
    /// Large structural changes
    #[elicit(title = "Aggressive")]
    Aggressive,
}

/// Parts of the code base.
#[derive(Elicit, Debug, Clone, Copy, PartialEq, Eq)]
#[elicit(rename_all = "kebab-case")]
enum Area {
    Parser,
    TypeChecker,
    CodeGen,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // 1. The schema to put in `elicitation/create`: a compile-time constant.
    let schema = Refactor::requested_schema();
    println!(
        "requestedSchema:\n{}\n",
        serde_json::to_string_pretty(schema.as_json())?
    );

    // 2. A client's answer: validated against the schema and parsed into the type.
    let response = ElicitationResponse::from_json(&json!({
        "action": "accept",
        "content": {
            "strategy": "Balanced",
            "passes": 3.0,
            "areas": ["parser", "code-gen"],
            "run_tests": true
        }
    }))?;
    match Refactor::from_response(&response)? {
        Elicited::Accepted(plan) => println!("accepted: {plan:?}\n"),
        Elicited::Declined => println!("the user declined"),
        Elicited::Cancelled => println!("the user dismissed the request"),
    }

    // 3. A bad answer: every problem is reported, each with its field and rule.
    let bad = json!({
        "strategy": "balanced",
        "passes": 9,
        "notify": "not an address",
        "areas": [],
        "run_tests": null
    });
    match Refactor::from_content(&bad) {
        Ok(plan) => println!("unexpectedly accepted: {plan:?}"),
        Err(errors) => println!("rejected, as it should be:\n{errors}"),
    }

    // 4. Declining is an answer too, and the type makes the agent handle it (R5).
    let declined = ElicitationResponse::from_json(&json!({ "action": "decline" }))?;
    if let Elicited::Declined = Refactor::from_response(&declined)? {
        println!("\na declined request is Elicited::Declined: fall back safely");
    }
    Ok(())
}
