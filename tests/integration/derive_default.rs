//! What `#[elicit(default = …)]` does for the answer: it pre-fills the form, and the
//! field stays required. An answer without it is refused with an error that says it had
//! a default and how to make the field optional (issue 29's decision on `default`).

use elicit::content::ValidationErrorKind;
use elicit::{Elicit, RequestedSchema};
use serde_json::json;

#[derive(Elicit, Debug, PartialEq)]
struct Booking {
    /// How many people
    #[elicit(minimum = 1, maximum = 12, default = 2)]
    party_size: u8,
    /// Any wishes
    #[elicit(default = "none")]
    wishes: Option<String>,
}

// covers: V5, F3
#[test]
fn a_field_with_a_default_stays_required_and_the_error_says_why() {
    let schema = Booking::requested_schema().as_json();
    // On the wire: the default is a hint for the form, the field is still in `required`.
    assert_eq!(schema["properties"]["party_size"]["default"], json!(2));
    assert_eq!(schema["required"], json!(["party_size"]));

    let errors = Booking::from_content(&json!({})).unwrap_err();
    assert_eq!(errors.len(), 1, "{errors}");
    let error = &errors.errors()[0];
    assert_eq!(error.pointer(), "/party_size");
    assert_eq!(
        error.kind,
        ValidationErrorKind::MissingWithDefault { default: json!(2) }
    );
    let said = errors.to_string();
    assert!(said.contains("party_size"), "{said}");
    assert!(
        said.contains("its default (2) only pre-fills the form"),
        "{said}"
    );
    assert!(said.contains("`Option<T>`"), "{said}");

    // The runtime validation of the same schema says the same.
    let runtime = RequestedSchema::from_json(schema).unwrap();
    let errors = runtime.validate(&json!({})).unwrap_err();
    assert_eq!(errors.errors()[0].kind, error.kind);
}

// covers: V5
#[test]
fn an_optional_field_with_a_default_may_be_left_out_and_one_without_is_plainly_missing() {
    // `Option<T>` with a default: pre-filled, and absent is `None`.
    let booking = Booking::from_content(&json!({ "party_size": 3 })).unwrap();
    assert_eq!(
        booking,
        Booking {
            party_size: 3,
            wishes: None
        }
    );
    // A required field without a default keeps the plain message.
    let plain = RequestedSchema::from_json(&json!({
        "type": "object",
        "properties": { "name": { "type": "string" } },
        "required": ["name"]
    }))
    .unwrap();
    let errors = plain.validate(&json!({})).unwrap_err();
    assert_eq!(errors.errors()[0].kind, ValidationErrorKind::Missing);
    assert!(!errors.to_string().contains("default"), "{errors}");
}
