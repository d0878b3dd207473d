//! The response to `elicitation/create` (R1–R4, E6) and the `elicitation/complete`
//! notification (U5): what we build validates against both ACP schemas; what we read
//! follows R2 and keeps unknown actions.

use crate::protocol_support;

use elicit::protocol::{
    Action, CompleteElicitation, ElicitationResponse, InvalidParamsReason, ParamsErrorKind,
    RequestId, ResponseError,
};
use protocol_support::assert_acp;
use serde_json::{json, Map, Value};

fn content() -> Map<String, Value> {
    json!({
        "name": "Ada",
        "passes": 3,
        "ratio": 88.5,
        "dry": false,
        "tags": ["a", "b"],
        "big": i64::MIN
    })
    .as_object()
    .unwrap()
    .clone()
}

fn meta() -> Option<Map<String, Value>> {
    Some(json!({ "client": { "v": 1 } }).as_object().unwrap().clone())
}

fn built() -> Vec<ElicitationResponse> {
    let mut out = Vec::new();
    for m in [None, meta()] {
        out.push(ElicitationResponse::accept(content()).with_meta(m.clone()));
        out.push(ElicitationResponse::accept(Map::new()).with_meta(m.clone()));
        out.push(ElicitationResponse::accept_without_content().with_meta(m.clone()));
        out.push(ElicitationResponse::decline().with_meta(m.clone()));
        out.push(ElicitationResponse::cancel().with_meta(m));
    }
    out
}

// covers: R1, R3, R4, E7
#[test]
fn every_built_response_validates_against_acp_v1_and_v2() {
    for response in built() {
        let json = response.to_json();
        assert_acp("CreateElicitationResponse", &json);
        let parsed = ElicitationResponse::from_json(&json).unwrap();
        assert_eq!(parsed, response);
        assert_eq!(parsed.to_json(), json);
        let envelope = response.to_response(&RequestId::number(3));
        assert_eq!(
            (envelope["jsonrpc"].clone(), envelope["id"].clone()),
            (json!("2.0"), json!(3))
        );
        assert_eq!(envelope["result"], json);
    }
}

// covers: R2
#[test]
fn absent_and_null_content_are_the_same() {
    let absent = ElicitationResponse::from_json(&json!({ "action": "accept" })).unwrap();
    let null =
        ElicitationResponse::from_json(&json!({ "action": "accept", "content": null })).unwrap();
    assert_eq!(absent, null);
    assert_eq!(absent.content(), None);
    assert_eq!(null.to_json(), json!({ "action": "accept" }));
    assert_eq!(absent, ElicitationResponse::accept_without_content());
}

// covers: R2
#[test]
fn content_on_decline_and_cancel_is_ignored() {
    for action in ["decline", "cancel"] {
        for content in [json!({ "name": "x" }), json!(5), json!(null), json!("junk")] {
            let response =
                ElicitationResponse::from_json(&json!({ "action": action, "content": content }))
                    .unwrap();
            assert_eq!(response.content(), None);
            assert_eq!(response.content_value(), None);
            // And it is not written back.
            assert_eq!(response.to_json(), json!({ "action": action }));
        }
    }
    let declined =
        ElicitationResponse::from_json(&json!({ "action": "decline", "content": { "x": 1 } }))
            .unwrap();
    assert_eq!(declined.action(), &Action::Decline);
    let cancelled =
        ElicitationResponse::from_json(&json!({ "action": "cancel", "content": [] })).unwrap();
    assert_eq!(cancelled.action(), &Action::Cancel);
}

// covers: R1, R2, R3
#[test]
fn refusals() {
    let cases = [
        (json!([]), ResponseError::NotAnObject),
        (json!({}), ResponseError::MissingAction),
        (json!({ "action": 1 }), ResponseError::ActionNotAString),
        (
            json!({ "action": "accept", "content": [1] }),
            ResponseError::ContentNotAnObject,
        ),
        (
            json!({ "action": "accept", "content": "x" }),
            ResponseError::ContentNotAnObject,
        ),
    ];
    for (json, expected) in cases {
        assert_eq!(
            ElicitationResponse::from_json(&json).unwrap_err(),
            expected,
            "{json}"
        );
        assert!(serde_json::from_value::<ElicitationResponse>(json).is_err());
    }
}

// covers: E6, R1
#[test]
fn unknown_action_is_kept_byte_for_byte() {
    let text = r#"{"content":{"x":[1,{"y":null}]},"action":"_snooze","until":"2026-09-01","_meta":{"b":2,"a":1}}"#;
    let json: Value = serde_json::from_str(text).unwrap();
    let response = ElicitationResponse::from_json(&json).unwrap();
    assert_eq!(response.action(), &Action::Other("_snooze".to_owned()));
    // Never taken for accept: no content is offered.
    assert_eq!(response.content(), None);
    assert_eq!(serde_json::to_string(&response).unwrap(), text);
    assert_eq!(response.raw().unwrap(), json.as_object().unwrap());
    assert_eq!(response.meta().unwrap()["b"], 2);
    assert_acp("CreateElicitationResponse", &json);
    // Removing `_meta` leaves the other members in the order received.
    let early = r#"{"_meta":{"b":2},"action":"_snooze","until":"2026-09-01","why":"later"}"#;
    let snoozed = ElicitationResponse::from_json(&serde_json::from_str(early).unwrap()).unwrap();
    let written = serde_json::to_string(&snoozed.with_meta(None)).unwrap();
    assert_eq!(written, early.replace(r#""_meta":{"b":2},"#, ""));
    // A future action without the prefix too.
    let future = json!({ "action": "defer" });
    assert_eq!(
        ElicitationResponse::from_json(&future).unwrap().to_json(),
        future
    );
}

// covers: E7, C6
#[test]
fn meta_is_kept_and_malformed_meta_ignored() {
    let response =
        ElicitationResponse::from_json(&json!({ "action": "cancel", "_meta": { "k": [1] } }))
            .unwrap();
    assert_eq!(response.meta().unwrap()["k"], json!([1]));
    let response =
        ElicitationResponse::from_json(&json!({ "action": "cancel", "_meta": 7 })).unwrap();
    assert!(response.meta().is_none());
}

// covers: U5, E7
#[test]
fn complete_validates_against_acp_v1_and_v2() {
    for complete in [
        CompleteElicitation::new("el-1"),
        CompleteElicitation::new("").with_meta(meta()),
        CompleteElicitation::new("ünïcødé/id?x=1"),
    ] {
        let json = complete.to_json();
        assert_acp("CompleteElicitationNotification", &json);
        let parsed = CompleteElicitation::from_json(&json).unwrap();
        assert_eq!(parsed, complete);
        assert_eq!(
            serde_json::from_value::<CompleteElicitation>(json.clone()).unwrap(),
            complete
        );
        let notification = complete.to_notification();
        assert_eq!(notification["method"], "elicitation/complete");
        assert_eq!(notification["params"], json);
        assert!(notification.get("id").is_none(), "a notification has no id");
    }
    assert_eq!(
        CompleteElicitation::new("x").to_json(),
        json!({ "elicitationId": "x" })
    );
}

// covers: U5, U6
#[test]
fn complete_refusals() {
    for (json, pointer) in [
        (json!({}), "/elicitationId"),
        (json!({ "elicitationId": 5 }), "/elicitationId"),
        (json!({ "elicitationId": null }), "/elicitationId"),
        (json!("el-1"), ""),
    ] {
        let e = CompleteElicitation::from_json(&json).unwrap_err();
        assert_eq!(e.pointer(), pointer, "{json}");
        let rpc = e.to_jsonrpc_error();
        assert_eq!(rpc.code(), -32602);
        let expected = if pointer.is_empty() {
            InvalidParamsReason::NotAnObject
        } else {
            InvalidParamsReason::InvalidElicitationId
        };
        assert_eq!(rpc.reason(), Some(expected), "{json}");
    }
    let e = CompleteElicitation::from_json(&json!({})).unwrap_err();
    assert_eq!(
        e.kind(),
        &ParamsErrorKind::Missing {
            member: "elicitationId"
        }
    );
    assert_eq!(e.to_string(), "`elicitationId` is required");
    // `_meta` that is not an object reads as absent (C6).
    let c = CompleteElicitation::from_json(&json!({ "elicitationId": "a", "_meta": [] })).unwrap();
    assert!(c.meta().is_none());
}
