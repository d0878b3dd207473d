//! The client's first look at an `elicitation/create`: the exact `-32602` error objects
//! it answers with (C8, D1, E2, E4, F1, U1), the lenient schema parse (C6, D7, D8), and
//! unknown modes kept for forwarding, never rendered (E6).

use crate::common;

use elicit::client::{check_request, AgentIdentity, FormEngine, FormError, Incoming};
use elicit::protocol::{ElicitationCapabilities, JsonRpcError, Mode, RequestId, INVALID_PARAMS};
use serde_json::{json, Value};

fn caps(json: Value) -> ElicitationCapabilities {
    ElicitationCapabilities::from_json(Some(&json))
}

fn both() -> ElicitationCapabilities {
    caps(json!({ "form": {}, "url": {} }))
}

fn form_params() -> Value {
    json!({
        "mode": "form",
        "sessionId": "s1",
        "message": "How many passes?",
        "requestedSchema": {
            "type": "object",
            "properties": { "passes": { "type": "integer", "minimum": 1, "maximum": 5 } },
            "required": ["passes"]
        }
    })
}

fn url_params() -> Value {
    json!({
        "mode": "url",
        "requestId": 12,
        "message": "Sign in",
        "elicitationId": "el-1",
        "url": "https://auth.example.com/authorize?state=abc"
    })
}

/// The error, checked to be a valid ACP `Error` in both schema versions.
fn refusal(capabilities: &ElicitationCapabilities, params: &Value) -> Value {
    let error = check_request(capabilities, params).unwrap_err();
    assert_eq!(error.code(), INVALID_PARAMS);
    let json = error.to_json();
    common::assert_valid_acp("Error", &json);
    json
}

// covers: C8, C7, C2, C4
#[test]
fn undeclared_modes_are_answered_with_invalid_params() {
    let undeclared_form = json!({
        "code": -32602,
        "message": "Invalid params: the client did not declare the `form` elicitation mode in its capabilities",
        "data": {
            "reason": "undeclared_mode",
            "message": "the client did not declare the `form` elicitation mode in its capabilities",
            "pointer": "/mode",
            "mode": "form"
        }
    });
    let undeclared_url = json!({
        "code": -32602,
        "message": "Invalid params: the client did not declare the `url` elicitation mode in its capabilities",
        "data": {
            "reason": "undeclared_mode",
            "message": "the client did not declare the `url` elicitation mode in its capabilities",
            "pointer": "/mode",
            "mode": "url"
        }
    });
    assert_eq!(
        refusal(&caps(json!({ "url": {} })), &form_params()),
        undeclared_form
    );
    assert_eq!(
        refusal(&caps(json!({ "form": {} })), &url_params()),
        undeclared_url
    );
    for none in [
        ElicitationCapabilities::from_json(None),
        caps(json!({})),
        caps(json!({ "form": null, "url": null })),
    ] {
        assert_eq!(refusal(&none, &form_params()), undeclared_form);
        assert_eq!(refusal(&none, &url_params()), undeclared_url);
    }
    // The answer as a whole JSON-RPC response.
    let error = check_request(&caps(json!({})), &form_params()).unwrap_err();
    assert_eq!(
        error.to_response(&RequestId::number(4)),
        json!({ "jsonrpc": "2.0", "id": 4, "error": undeclared_form })
    );
}

// covers: C8, D1
#[test]
fn an_undeclared_mode_is_refused_before_the_rest_is_read() {
    let mut params = url_params();
    params["sessionId"] = json!("s1"); // two scopes, and a mode this client refuses
    let error = refusal(&caps(json!({ "form": {} })), &params);
    assert_eq!(error["data"]["reason"], "undeclared_mode");
}

// covers: D1, E3
#[test]
fn bad_scopes_are_answered_with_invalid_params() {
    let both_scopes = {
        let mut p = form_params();
        p["requestId"] = json!(3);
        p
    };
    assert_eq!(
        refusal(&both(), &both_scopes),
        json!({
            "code": -32602,
            "message": "Invalid params: both `sessionId` and `requestId` are present: an elicitation has exactly one scope",
            "data": {
                "reason": "bad_scope",
                "message": "both `sessionId` and `requestId` are present: an elicitation has exactly one scope"
            }
        })
    );
    let no_scope = {
        let mut p = form_params();
        p.as_object_mut().unwrap().remove("sessionId");
        p
    };
    assert_eq!(
        refusal(&both(), &no_scope),
        json!({
            "code": -32602,
            "message": "Invalid params: neither `sessionId` nor `requestId` is present: an elicitation has exactly one scope",
            "data": {
                "reason": "bad_scope",
                "message": "neither `sessionId` nor `requestId` is present: an elicitation has exactly one scope"
            }
        })
    );
    let tool_call_without_session = {
        let mut p = url_params();
        p["toolCallId"] = json!("call-1");
        p
    };
    assert_eq!(
        refusal(&both(), &tool_call_without_session),
        json!({
            "code": -32602,
            "message": "Invalid params: `toolCallId` is only allowed with `sessionId`",
            "data": {
                "reason": "bad_scope",
                "message": "`toolCallId` is only allowed with `sessionId`",
                "pointer": "/toolCallId"
            }
        })
    );
    let session_not_a_string = {
        let mut p = form_params();
        p["sessionId"] = json!(5);
        p
    };
    assert_eq!(
        refusal(&both(), &session_not_a_string),
        json!({
            "code": -32602,
            "message": "Invalid params: `sessionId` must be a string",
            "data": { "reason": "bad_scope", "message": "`sessionId` must be a string", "pointer": "/sessionId" }
        })
    );
}

// covers: E2, E4
#[test]
fn missing_members_are_answered_with_invalid_params() {
    let no_mode = {
        let mut p = form_params();
        p.as_object_mut().unwrap().remove("mode");
        p
    };
    // E2: no default mode in ACP.
    assert_eq!(
        refusal(&both(), &no_mode),
        json!({
            "code": -32602,
            "message": "Invalid params: `mode` is required",
            "data": { "reason": "invalid_mode", "message": "`mode` is required", "pointer": "/mode" }
        })
    );
    let no_message = {
        let mut p = form_params();
        p.as_object_mut().unwrap().remove("message");
        p
    };
    assert_eq!(
        refusal(&both(), &no_message),
        json!({
            "code": -32602,
            "message": "Invalid params: `message` is required",
            "data": { "reason": "invalid_message", "message": "`message` is required", "pointer": "/message" }
        })
    );
    assert_eq!(
        refusal(&both(), &json!([1, 2])),
        json!({
            "code": -32602,
            "message": "Invalid params: the params must be a JSON object",
            "data": { "reason": "params_not_an_object", "message": "the params must be a JSON object" }
        })
    );
    let relative_url = {
        let mut p = url_params();
        p["url"] = json!("/login");
        p
    };
    assert_eq!(
        refusal(&both(), &relative_url),
        json!({
            "code": -32602,
            "message": "Invalid params: `url` must be an absolute URI",
            "data": { "reason": "invalid_url_params", "message": "`url` must be an absolute URI", "pointer": "/url" }
        })
    );
}

// covers: F1, F2, D2, C8
#[test]
fn malformed_schemas_are_answered_with_invalid_params() {
    let mut params = form_params();
    params["requestedSchema"] = json!({
        "type": "object",
        "properties": { "passes": { "type": "integer", "minimum": 5, "maximum": 1 } },
        "required": ["passes", "ghost"]
    });
    let error = refusal(&both(), &params);
    assert_eq!(
        error,
        json!({
            "code": -32602,
            "message": "Invalid params: invalid `requestedSchema`, 2 problems:\n  - at /requestedSchema/properties/passes/minimum: `minimum` is greater than `maximum`, so no value can be valid\n  - at /requestedSchema/required/1: `required` names `ghost`, which is not in `properties`",
            "data": {
                "reason": "malformed_schema",
                "message": "invalid `requestedSchema`, 2 problems:\n  - at /requestedSchema/properties/passes/minimum: `minimum` is greater than `maximum`, so no value can be valid\n  - at /requestedSchema/required/1: `required` names `ghost`, which is not in `properties`",
                "pointer": "/requestedSchema",
                "issues": [
                    {
                        "pointer": "/requestedSchema/properties/passes/minimum",
                        "message": "`minimum` is greater than `maximum`, so no value can be valid"
                    },
                    {
                        "pointer": "/requestedSchema/required/1",
                        "message": "`required` names `ghost`, which is not in `properties`"
                    }
                ]
            }
        })
    );
    let mut nested = form_params();
    nested["requestedSchema"]["properties"]["passes"] =
        json!({ "type": "object", "properties": {} });
    assert_eq!(
        refusal(&both(), &nested)["data"]["reason"],
        "malformed_schema"
    );
}

// covers: C6, D7, D8, E6, F1
#[test]
fn form_schemas_are_read_leniently() {
    let mut params = form_params();
    params["requestedSchema"] = json!({
        "type": "object",
        "title": 42,
        "properties": {
            "color": { "type": "string", "format": "color" },
            "code": { "type": "string", "pattern": "^(?=x)x$" },
            "where": { "type": "geo-point" }
        }
    });
    let Ok(Incoming::Form(request)) = check_request(&both(), &params) else {
        panic!("a lenient parse accepts unknown formats, patterns and types");
    };
    let schema = request.requested_schema().unwrap();
    assert_eq!(schema.title(), None); // C6: a malformed cosmetic member reads as absent
    assert_eq!(schema.unenforced().len(), 3);
    // E6: accepted, but a form with an unknown type is never rendered.
    assert!(matches!(
        FormEngine::from_request(&request, AgentIdentity::new("a")),
        Err(FormError::Unrenderable { .. })
    ));
}

// covers: E6
#[test]
fn unknown_modes_are_kept_for_forwarding_and_never_rendered() {
    let params = json!({
        "mode": "_oauth",
        "requestId": "r-1",
        "message": "Sign in with Example",
        "provider": { "name": "example", "scopes": ["a", "b"] },
        "requestedSchema": { "type": "object", "properties": { "x": { "type": "string" } } },
        "_meta": { "trace": 1 }
    });
    // Even a client with no mode at all keeps it: it may forward it.
    for capabilities in [both(), caps(json!({}))] {
        let incoming = check_request(&capabilities, &params).unwrap();
        let Incoming::Unknown(request) = &incoming else {
            panic!("{incoming:?}")
        };
        assert_eq!(request.mode(), None);
        assert_eq!(request.mode_name(), "_oauth");
        assert_eq!(request.requested_schema(), None); // never read as a form
                                                      // Forwarded byte for byte, member order included.
        assert_eq!(
            serde_json::to_string(&request.to_json()).unwrap(),
            serde_json::to_string(&params).unwrap()
        );
        assert!(matches!(
            FormEngine::from_request(request, AgentIdentity::new("a")),
            Err(FormError::NotAForm { .. })
        ));
        let error = incoming.unsupported_error().unwrap();
        assert_eq!(
            error.to_json(),
            json!({
                "code": -32602,
                "message": "Invalid params: the client does not support the elicitation mode \"_oauth\"",
                "data": {
                    "reason": "unsupported_mode",
                    "message": "the client does not support the elicitation mode \"_oauth\"",
                    "pointer": "/mode",
                    "mode": "_oauth"
                }
            })
        );
        common::assert_valid_acp("Error", &error.to_json());
    }
}

// covers: C3, E1, U1, K3
#[test]
fn declared_modes_are_accepted() {
    let Incoming::Form(form) = check_request(&caps(json!({ "form": {} })), &form_params()).unwrap()
    else {
        panic!("form")
    };
    assert_eq!(form.mode(), Some(Mode::Form));
    assert_eq!(form.message(), "How many passes?");
    assert!(check_request(&caps(json!({ "form": {} })), &form_params())
        .unwrap()
        .unsupported_error()
        .is_none());

    let incoming = check_request(
        &caps(json!({ "url": { "_meta": { "x": 1 } } })),
        &url_params(),
    )
    .unwrap();
    let Incoming::Url(url) = &incoming else {
        panic!("{incoming:?}")
    };
    assert_eq!(url.elicitation_id(), Some("el-1"));
    #[cfg(feature = "url")]
    {
        let review = incoming.url_review().unwrap().unwrap();
        assert_eq!(review.host_unicode(), "auth.example.com");
    }
    assert_eq!(incoming.clone().into_request(), *url);
}

// covers: S2, K3, U1
#[cfg(feature = "url")]
#[test]
fn urls_that_cannot_be_offered_are_caught_by_the_review() {
    let mut params = url_params();
    params["url"] = json!("javascript:alert(1)");
    // An absolute URI, so well formed on the wire…
    let incoming = check_request(&both(), &params).unwrap();
    // …but never offered to the user.
    assert!(incoming.url_review().unwrap().is_err());
    assert!(check_request(&both(), &form_params())
        .unwrap()
        .url_review()
        .is_none());
}

// covers: C8
#[test]
fn every_refusal_is_a_json_rpc_error_object() {
    let samples = [
        json!(null),
        json!("form"),
        json!({}),
        json!({ "mode": 1 }),
        json!({ "mode": "form", "sessionId": "s" }),
        json!({ "mode": "form", "sessionId": "s", "message": "m" }),
        json!({ "mode": "form", "sessionId": "s", "message": "m", "requestedSchema": [] }),
        json!({ "mode": "url", "sessionId": "s", "message": "m", "url": "https://a.example" }),
        json!({ "mode": "url", "sessionId": "s", "message": "m", "elicitationId": 1, "url": "https://a.example" }),
    ];
    for params in samples {
        let error: JsonRpcError = check_request(&both(), &params).unwrap_err();
        assert_eq!(error.code(), INVALID_PARAMS, "{params}");
        assert!(error.reason().is_some(), "{params}");
        common::assert_valid_acp("Error", &error.to_json());
    }
}
