//! The client's form engine: fields in order with what a dialog shows (K1, K4, D13),
//! defaults pre-filled (F4), answers from typed values and from text checked as they
//! are set (F3), review before sending (K2), submit, decline and cancel (R1), and forms
//! it must not render (E6).

use crate::common;
use crate::forms;

use elicit::client::{
    AgentIdentity, Choice, FieldErrorKind, FieldKind, FormEngine, FormError, UnknownField,
};
use elicit::content::ValidationErrorKind;
use elicit::protocol::{Action, CreateElicitation, InvalidParamsReason, Scope};
use elicit::{Elicit, Elicited, RequestedSchema};
use forms::{Refactor, Strategy};
use serde_json::{json, Value};

fn agent() -> AgentIdentity {
    AgentIdentity::new("refactor-bot")
        .with_title("Refactor Bot")
        .with_version("1.2.0")
}

/// Every kind, with titles, descriptions, defaults and constraints.
fn schema() -> RequestedSchema {
    RequestedSchema::from_json_lenient(&json!({
        "type": "object",
        "title": "Refactor",
        "description": "Settings for this run",
        "properties": {
            "strategy": {
                "type": "string", "title": "Strategy", "description": "How bold to be",
                "oneOf": [
                    { "const": "safe", "title": "Conservative", "description": "Small steps" },
                    { "const": "fast", "title": "Aggressive" },
                    { "const": "Mixed", "title": "Balanced" }
                ]
            },
            "passes": { "type": "integer", "title": "Passes", "minimum": 1, "maximum": 5, "default": 2 },
            "ratio": { "type": "number", "minimum": 0.5, "maximum": 100 },
            "dry": { "type": "boolean", "title": "Dry run", "default": true },
            "ticket": { "type": "string", "pattern": "^[A-Z]+-[0-9]+$", "maxLength": 12 },
            "notify": { "type": "string", "format": "email", "title": "Notify" },
            "tags": {
                "type": "array", "title": "Tags", "minItems": 1, "maxItems": 2,
                "items": { "anyOf": [
                    { "const": "ui", "title": "User interface" },
                    { "const": "db", "title": "Database" },
                    { "const": "api", "title": "API, public" }
                ] },
                "default": ["db"]
            },
            "langs": { "type": "array", "items": { "type": "string", "enum": ["rust", "go"] } },
            "level": { "type": "string", "enum": ["low", "high"], "default": "low" }
        },
        "required": ["strategy", "passes", "tags"]
    }))
    .unwrap()
}

fn engine() -> FormEngine {
    FormEngine::new(&schema(), agent(), "How should I approach this refactor?").unwrap()
}

// covers: K1, K4, D13
#[test]
fn fields_come_in_order_with_what_a_dialog_shows() {
    let form = engine();
    assert_eq!(form.agent().display_name(), "Refactor Bot");
    assert_eq!(
        form.agent().to_string(),
        "Refactor Bot (refactor-bot 1.2.0)"
    );
    assert_eq!(form.message(), "How should I approach this refactor?");
    assert_eq!(form.title(), Some("Refactor"));
    assert_eq!(form.description(), Some("Settings for this run"));
    let names: Vec<&str> = form.fields().map(|f| f.name()).collect();
    assert_eq!(
        names,
        ["strategy", "passes", "ratio", "dry", "ticket", "notify", "tags", "langs", "level"]
    );
    let labels: Vec<&str> = form.fields().map(|f| f.label()).collect();
    assert_eq!(
        labels,
        ["Strategy", "Passes", "ratio", "Dry run", "ticket", "Notify", "Tags", "langs", "level"]
    );
    let kinds: Vec<FieldKind> = form.fields().map(|f| f.kind()).collect();
    use FieldKind::*;
    assert_eq!(
        kinds,
        [
            SingleSelect,
            Integer,
            Number,
            Boolean,
            Text,
            Text,
            MultiSelect,
            MultiSelect,
            SingleSelect
        ]
    );
    let required: Vec<bool> = form.fields().map(|f| f.is_required()).collect();
    assert_eq!(
        required,
        [true, true, false, false, false, false, true, false, false]
    );

    let strategy = form.field("strategy").unwrap();
    assert_eq!(strategy.description(), Some("How bold to be"));
    assert_eq!(
        strategy.options(),
        [
            Choice {
                value: "safe",
                label: "Conservative",
                description: Some("Small steps"),
                selected: false
            },
            Choice {
                value: "fast",
                label: "Aggressive",
                description: None,
                selected: false
            },
            Choice {
                value: "Mixed",
                label: "Balanced",
                description: None,
                selected: false
            },
        ]
    );
    let langs: Vec<(&str, &str)> = form
        .field("langs")
        .unwrap()
        .options()
        .iter()
        .map(|c| (c.value, c.label))
        .collect();
    assert_eq!(langs, [("rust", "rust"), ("go", "go")]);
    assert_eq!(form.field("notify").unwrap().format(), Some("email"));
    assert!(form.field("passes").unwrap().options().is_empty());
    assert!(form.field("nope").is_none());
}

// covers: F4
#[test]
fn defaults_are_pre_filled() {
    let form = engine();
    assert_eq!(form.value("passes"), Some(&json!(2)));
    assert_eq!(form.value("dry"), Some(&json!(true)));
    assert_eq!(form.value("tags"), Some(&json!(["db"])));
    assert_eq!(form.value("level"), Some(&json!("low")));
    assert_eq!(form.value("strategy"), None);
    let tags = form.field("tags").unwrap();
    assert_eq!(tags.default_value(), Some(json!(["db"])));
    assert_eq!(tags.display_value().as_deref(), Some("Database"));
    assert!(tags.options().iter().any(|c| c.value == "db" && c.selected));
    // Only what the user leaves as is gets sent.
    assert_eq!(
        Value::Object(form.content()),
        json!({ "passes": 2, "dry": true, "tags": ["db"], "level": "low" })
    );
    // A derived form's defaults too.
    let derived = FormEngine::new(Refactor::requested_schema(), agent(), "m").unwrap();
    assert_eq!(derived.value("passes"), Some(&json!(2)));
}

// covers: F3, V2, V3
#[test]
fn numbers_are_read_from_text() {
    let mut form = engine();
    form.set_text("passes", "3").unwrap();
    assert_eq!(form.value("passes"), Some(&json!(3)));
    form.set_text("passes", " 4.0 ").unwrap(); // V2: an integer with a zero fraction
    assert_eq!(form.value("passes"), Some(&json!(4)));
    form.set_text("passes", "+5").unwrap();
    assert_eq!(form.value("passes"), Some(&json!(5)));
    for not_an_integer in ["3.5", "three", "inf", "NaN", "1e400", "", " "] {
        let before = form.value("passes").cloned();
        match form.set_text("passes", not_an_integer) {
            // Empty text is "no answer".
            Ok(()) if not_an_integer.trim().is_empty() => {
                assert_eq!(form.value("passes"), None);
                form.set("passes", 5).unwrap();
            }
            Ok(()) => panic!("{not_an_integer:?} accepted"),
            Err(error) => {
                assert_eq!(error.field, "passes");
                assert!(
                    matches!(
                        error.kind,
                        FieldErrorKind::NotUnderstood {
                            expected: "a whole number",
                            ..
                        }
                    ),
                    "{not_an_integer:?}: {error:?}"
                );
                assert_eq!(
                    form.value("passes").cloned(),
                    before,
                    "a refused answer keeps the previous one"
                );
            }
        }
    }
    form.set_text("ratio", "2.5").unwrap();
    assert_eq!(form.value("ratio"), Some(&json!(2.5)));
    form.set_text("ratio", "1e2").unwrap();
    assert_eq!(form.value("ratio"), Some(&json!(100.0)));
    form.set_text("ratio", "7").unwrap(); // V3: an integer is a number
    assert_eq!(form.value("ratio"), Some(&json!(7)));
    assert!(form.set_text("ratio", "infinity").is_err());
}

// covers: F3
#[test]
fn booleans_and_text_are_read_from_text() {
    let mut form = engine();
    for (text, value) in [
        ("yes", true),
        ("No", false),
        ("TRUE", true),
        ("off", false),
        (" y ", true),
        ("0", false),
    ] {
        form.set_text("dry", text).unwrap();
        assert_eq!(form.value("dry"), Some(&json!(value)), "{text}");
    }
    let error = form.set_text("dry", "maybe").unwrap_err();
    assert_eq!(
        error.to_string(),
        "Dry run (`dry`): \"maybe\" is not yes or no"
    );
    // Free text is taken as typed, spaces included; only empty text clears it.
    form.set_text("ticket", "ENG-42").unwrap();
    assert_eq!(form.value("ticket"), Some(&json!("ENG-42")));
    form.set_text("notify", " ").unwrap_err(); // not an email address, not "no answer"
    form.set_text("ticket", "").unwrap();
    assert_eq!(form.value("ticket"), None);
    form.set_text("dry", "  ").unwrap();
    assert_eq!(form.value("dry"), None);
    form.set_text("dry", "no").unwrap();
    assert_eq!(
        form.field("dry").unwrap().display_value().as_deref(),
        Some("no")
    );
}

// covers: F2, V4, V7, F3
#[test]
fn each_answer_is_checked_as_it_is_set_and_errors_name_the_field() {
    let mut form = engine();
    let error = form.set_text("passes", "9").unwrap_err();
    assert_eq!(error.field, "passes");
    assert_eq!(error.label, "Passes");
    assert!(
        matches!(&error.kind, FieldErrorKind::Invalid(v) if matches!(v[..], [ValidationErrorKind::AboveMaximum { .. }]))
    );
    assert_eq!(error.to_string(), "Passes (`passes`): must be at most 5");
    assert_eq!(form.value("passes"), Some(&json!(2)));

    let error = form
        .set_text("ticket", "eng 42 but far too long")
        .unwrap_err();
    let FieldErrorKind::Invalid(violations) = &error.kind else {
        panic!("{error:?}")
    };
    assert_eq!(violations.len(), 2); // pattern and length, both reported
    assert!(error.to_string().starts_with("`ticket`: "), "{error}");

    let error = form.set_text("notify", "not an address").unwrap_err();
    assert_eq!(
        error.to_string(),
        "Notify (`notify`): is not a valid email address"
    );

    let error = form.set("ratio", 0.1).unwrap_err();
    assert_eq!(error.field, "ratio");

    let error = form.set_text("missing", "x").unwrap_err();
    assert_eq!(error.kind, FieldErrorKind::NoSuchField);
    assert_eq!(error.to_string(), "`missing`: the form has no such field");
}

// covers: F2, R3
#[test]
fn typed_values_are_set_exactly() {
    let mut form = engine();
    form.set("passes", 3).unwrap();
    form.set("passes", 4.0).unwrap(); // stored as the integer 4 (V2)
    assert_eq!(form.value("passes"), Some(&json!(4)));
    assert!(serde_json::to_string(form.value("passes").unwrap()).unwrap() == "4");
    // A typed value is not text: no conversion.
    let error = form.set("passes", "3").unwrap_err();
    assert!(
        matches!(&error.kind, FieldErrorKind::Invalid(v) if matches!(v[..], [ValidationErrorKind::WrongType { .. }]))
    );
    // A title is not a value when set exactly; the error says which value to send.
    let error = form.set("strategy", "Aggressive").unwrap_err();
    assert!(
        error.to_string().contains("send its value `fast`"),
        "{error}"
    );
    form.set("strategy", "fast").unwrap();
    form.set("tags", vec!["ui", "api"]).unwrap();
    assert_eq!(form.value("tags"), Some(&json!(["ui", "api"])));
    form.set("dry", false).unwrap();
    form.set("notify", "ada@example.com").unwrap();
    // null is not a value (D10); clearing is.
    assert!(form.set("notify", Value::Null).is_err());
}

// covers: F2, K2
#[test]
fn option_titles_map_to_their_values() {
    let mut form = engine();
    form.set_text("strategy", "Aggressive").unwrap();
    assert_eq!(form.value("strategy"), Some(&json!("fast")));
    form.set_text("strategy", "safe").unwrap(); // a value works too
    assert_eq!(form.value("strategy"), Some(&json!("safe")));
    form.set_text("strategy", "  conservative ").unwrap(); // ignoring case and spaces
    assert_eq!(form.value("strategy"), Some(&json!("safe")));
    // Values are matched before titles: "Mixed" is a value; "Balanced" its title.
    form.set_text("strategy", "Balanced").unwrap();
    assert_eq!(form.value("strategy"), Some(&json!("Mixed")));
    assert_eq!(
        form.field("strategy").unwrap().display_value().as_deref(),
        Some("Balanced")
    );
    let error = form.set_text("strategy", "Reckless").unwrap_err();
    assert_eq!(
        error.kind,
        FieldErrorKind::NoSuchOption {
            text: "Reckless".into()
        }
    );
    assert_eq!(
        error.to_string(),
        "Strategy (`strategy`): \"Reckless\" is not one of the options"
    );
    // Untitled options are their own labels.
    form.set_text("level", "HIGH").unwrap();
    assert_eq!(form.value("level"), Some(&json!("high")));
}

// covers: F2, V6
#[test]
fn multi_selects_take_comma_lists_or_one_choice_at_a_time() {
    let mut form = engine();
    form.set_text("tags", "User interface, db").unwrap();
    assert_eq!(form.value("tags"), Some(&json!(["ui", "db"])));
    // A title with a comma in it is one option.
    form.set_text("tags", "API, public").unwrap();
    assert_eq!(form.value("tags"), Some(&json!(["api"])));
    // Repeats count once.
    form.set_text("tags", "ui, UI, ui").unwrap();
    assert_eq!(form.value("tags"), Some(&json!(["ui"])));
    // maxItems is checked when the list is set.
    let error = form.set_text("tags", "ui, db, api").unwrap_err();
    assert!(
        matches!(&error.kind, FieldErrorKind::Invalid(v) if matches!(v[..], [ValidationErrorKind::TooManyItems { .. }]))
    );
    let error = form.set_text("tags", "ui, cloud").unwrap_err();
    assert_eq!(
        error.kind,
        FieldErrorKind::NoSuchOption {
            text: "cloud".into()
        }
    );

    // One at a time: below minItems on the way is fine, submit checks it.
    form.clear("tags").unwrap();
    form.select_option("langs", "rust").unwrap();
    form.select_option("langs", "go").unwrap();
    form.select_option("langs", "go").unwrap();
    assert_eq!(form.value("langs"), Some(&json!(["rust", "go"])));
    form.deselect_option("langs", "rust").unwrap();
    assert_eq!(form.value("langs"), Some(&json!(["go"])));
    form.deselect_option("langs", "go").unwrap();
    assert_eq!(form.value("langs"), Some(&json!([])));
    assert_eq!(
        form.field("langs").unwrap().display_value().as_deref(),
        Some("(none)")
    );
    form.select_option("tags", "Database").unwrap();
    form.select_option("tags", "ui").unwrap();
    let error = form.select_option("tags", "api").unwrap_err();
    assert!(
        matches!(&error.kind, FieldErrorKind::Invalid(v) if matches!(v[..], [ValidationErrorKind::TooManyItems { .. }]))
    );
    assert_eq!(
        form.field("tags").unwrap().display_value().as_deref(),
        Some("Database, User interface")
    );
    // Selecting on a single-select sets it; on anything else it is an error.
    form.select_option("strategy", "Conservative").unwrap();
    assert_eq!(form.value("strategy"), Some(&json!("safe")));
    form.deselect_option("strategy", "safe").unwrap();
    assert_eq!(form.value("strategy"), None);
    assert_eq!(
        form.select_option("dry", "yes").unwrap_err().kind,
        FieldErrorKind::NotASelect
    );
}

// covers: F2, V6
#[test]
fn min_items_is_checked_on_submit_for_incremental_choices() {
    let schema = RequestedSchema::from_json(&json!({
        "type": "object",
        "properties": { "pick": {
            "type": "array", "minItems": 2,
            "items": { "type": "string", "enum": ["a", "b", "c"] }
        } }
    }))
    .unwrap();
    let mut form = FormEngine::new(&schema, agent(), "Pick two").unwrap();
    form.select_option("pick", "a").unwrap();
    let errors = form.submit().unwrap_err();
    assert!(matches!(
        errors.errors()[0].kind,
        ValidationErrorKind::TooFewItems { min: 2, len: 1 }
    ));
    // Setting the whole list is checked fully.
    assert!(form.set_text("pick", "a").is_err());
    form.select_option("pick", "c").unwrap();
    assert!(form.submit().is_ok());
}

// covers: K2
#[test]
fn answers_are_reviewed_before_sending() {
    let mut form = engine();
    let review = form.review();
    assert!(!review.is_ready());
    let problems = review.problems().unwrap();
    assert_eq!(problems.len(), 1);
    assert_eq!(problems.errors()[0].property.as_deref(), Some("strategy"));
    assert_eq!(review.agent(), &agent());
    assert_eq!(review.message(), "How should I approach this refactor?");

    form.set_text("strategy", "Aggressive").unwrap();
    form.set_text("notify", "ada@example.com").unwrap();
    let review = form.review();
    assert!(review.is_ready());
    let strategy = &review.entries()[0];
    assert_eq!(strategy.name, "strategy");
    assert_eq!(strategy.label, "Strategy");
    assert!(strategy.required);
    assert_eq!(strategy.value, Some(json!("fast")));
    assert_eq!(strategy.shown.as_deref(), Some("Aggressive"));
    assert_eq!(review.entries()[2].shown, None); // ratio: unanswered
    assert_eq!(
        review.to_string(),
        "Refactor Bot (refactor-bot 1.2.0) asks: How should I approach this refactor?\n\
         \x20 Strategy *: Aggressive\n\
         \x20 Passes *: 2\n\
         \x20 ratio: (no answer)\n\
         \x20 Dry run: yes\n\
         \x20 ticket: (no answer)\n\
         \x20 Notify: ada@example.com\n\
         \x20 Tags *: Database\n\
         \x20 langs: (no answer)\n\
         \x20 level: low\n\
         Ready to send."
    );
    // The user modifies an answer after reviewing (K2).
    form.set_text("passes", "4").unwrap();
    assert_eq!(form.review().entries()[1].shown.as_deref(), Some("4"));
}

// covers: F3, R1, R2, R3, K2
#[test]
fn submit_sends_exactly_the_answers_that_validate() {
    let mut form = engine();
    // Nothing is sent while a required answer is missing.
    let errors = form.submit().unwrap_err();
    assert!(matches!(
        errors.errors()[0].kind,
        ValidationErrorKind::Missing
    ));
    form.set_text("strategy", "Conservative").unwrap();
    form.set_text("ratio", "0.75").unwrap();
    form.clear("level").unwrap();
    let response = form.submit().unwrap();
    assert_eq!(response.action(), &Action::Accept);
    let wire = response.to_json();
    assert_eq!(
        wire,
        json!({
            "action": "accept",
            "content": { "strategy": "safe", "passes": 2, "ratio": 0.75, "dry": true, "tags": ["db"] }
        })
    );
    // Re-checked as a whole, as the agent will (F3).
    schema().validate(&wire["content"]).unwrap();
    common::assert_valid_acp("CreateElicitationResponse", &wire);

    // Clearing a required answer blocks sending again.
    form.clear("passes").unwrap();
    let errors = form.submit().unwrap_err();
    assert_eq!(errors.errors()[0].property.as_deref(), Some("passes"));
}

// covers: K1, R1
#[test]
fn decline_and_cancel_are_always_available() {
    let form = engine(); // invalid as it stands: a required answer is missing
    assert!(form.submit().is_err());
    let decline = form.decline();
    assert_eq!(decline.to_json(), json!({ "action": "decline" }));
    let cancel = form.cancel();
    assert_eq!(cancel.to_json(), json!({ "action": "cancel" }));
    common::assert_valid_acp("CreateElicitationResponse", &decline.to_json());
    common::assert_valid_acp("CreateElicitationResponse", &cancel.to_json());
}

// covers: F3, R5, D13
#[test]
fn a_derived_form_round_trips_through_the_engine() {
    let request =
        CreateElicitation::form_static(Scope::session("s"), "How?", Refactor::requested_schema());
    let mut form = FormEngine::from_request(&request, agent()).unwrap();
    let names: Vec<&str> = form.fields().map(|f| f.name()).collect();
    assert_eq!(names, ["strategy", "passes", "notify"]);
    form.set_text("strategy", "Conservative").unwrap();
    form.set_text("passes", "5").unwrap();
    let response = form.submit().unwrap();
    assert_eq!(
        Refactor::from_response(&response).unwrap(),
        Elicited::Accepted(Refactor {
            strategy: Strategy::Conservative,
            passes: 5,
            notify: None
        })
    );
    assert_eq!(
        Refactor::from_response(&form.cancel()).unwrap(),
        Elicited::Cancelled
    );
}

// covers: E6
#[test]
fn a_field_of_an_unknown_type_makes_the_form_unrenderable() {
    let schema = RequestedSchema::from_json_lenient(&json!({
        "type": "object",
        "properties": {
            "name": { "type": "string" },
            "where": { "type": "geo-point", "precision": 3 },
            "when": { "type": "duration" }
        }
    }))
    .unwrap();
    let error = FormEngine::new(&schema, agent(), "m").unwrap_err();
    assert_eq!(
        error,
        FormError::Unrenderable {
            fields: vec![
                UnknownField {
                    property: "where".into(),
                    type_name: "geo-point".into()
                },
                UnknownField {
                    property: "when".into(),
                    type_name: "duration".into()
                },
            ]
        }
    );
    assert_eq!(
        error.to_string(),
        "the form cannot be shown: `where` has the unknown type `geo-point`, `when` has the unknown type `duration`"
    );
    let answer = error.to_jsonrpc_error();
    assert_eq!(answer.reason(), Some(InvalidParamsReason::MalformedSchema));
    assert_eq!(
        answer.to_json(),
        json!({
            "code": -32602,
            "message": "Invalid params: the form cannot be shown: `where` has the unknown type `geo-point`, `when` has the unknown type `duration`",
            "data": {
                "reason": "malformed_schema",
                "message": "the form cannot be shown: `where` has the unknown type `geo-point`, `when` has the unknown type `duration`",
                "pointer": "/requestedSchema/properties/where"
            }
        })
    );
    common::assert_valid_acp("Error", &answer.to_json());
}

// covers: D7, D8, E6
#[test]
fn unenforced_constraints_are_surfaced() {
    let schema = RequestedSchema::from_json_lenient(&json!({
        "type": "object",
        "properties": {
            "color": { "type": "string", "format": "color" },
            "code": { "type": "string", "pattern": "^(?!x)" },
            "plain": { "type": "string" }
        }
    }))
    .unwrap();
    let mut form = FormEngine::new(&schema, agent(), "m").unwrap();
    let unenforced: Vec<&str> = form
        .unenforced()
        .iter()
        .map(|u| u.property.as_str())
        .collect();
    assert_eq!(unenforced, ["color", "code"]);
    assert_eq!(form.field("color").unwrap().unenforced().count(), 1);
    assert!(form
        .field("code")
        .unwrap()
        .unenforced()
        .next()
        .unwrap()
        .reason
        .contains("D8"));
    assert_eq!(form.field("plain").unwrap().unenforced().count(), 0);
    // Not enforced here means accepted here: the agent validates again (F3).
    form.set_text("color", "not a color").unwrap();
    form.set_text("code", "xyz").unwrap();
    assert!(form.submit().is_ok());
}

// covers: K1
#[test]
fn the_agent_is_identified_from_its_agent_info() {
    let info = json!({ "name": "deploy-bot", "title": "Deploy Bot", "version": "0.9" });
    let agent = AgentIdentity::from_agent_info(&info).unwrap();
    assert_eq!(agent.name(), "deploy-bot");
    assert_eq!(agent.title(), Some("Deploy Bot"));
    assert_eq!(agent.version(), Some("0.9"));
    assert_eq!(agent.to_string(), "Deploy Bot (deploy-bot 0.9)");
    let bare = AgentIdentity::from_agent_info(&json!({ "name": "x", "title": 5 })).unwrap();
    assert_eq!(bare.to_string(), "x");
    assert_eq!(
        AgentIdentity::from_agent_info(&json!({ "title": "No name" })),
        None
    );
}

mod any_text {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        // covers: F3, D12
        // Whatever the user types into whichever field, the engine neither panics nor
        // holds an answer the schema refuses, and what it submits validates.
        #[test]
        fn any_text_in_any_field_keeps_the_form_consistent(
            edits in proptest::collection::vec((0usize..9, ".{0,12}"), 0..12)
        ) {
            let mut form = engine();
            let names: Vec<String> = form.fields().map(|f| f.name().to_owned()).collect();
            for (field, text) in edits {
                let name = &names[field];
                let before = form.value(name).cloned();
                if form.set_text(name, &text).is_err() {
                    prop_assert_eq!(form.value(name).cloned(), before);
                }
                let _ = form.select_option(name, &text);
            }
            if let Ok(response) = form.submit() {
                prop_assert!(schema().validate(response.content_value().unwrap()).is_ok());
            }
            let _ = form.review().to_string();
        }
    }
}
