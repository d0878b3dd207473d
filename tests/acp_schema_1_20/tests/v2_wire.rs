//! elicit's ACP wire code against `agent-client-protocol-schema` 1.20.0, the authority
//! for ACP v2 here: the JSON Schema oracle in `../shared/oracles/acp-schema/` is an
//! older v2 snapshot that still has `pattern`, so these checks read the 1.20.0 crate's
//! own serde types (its `unstable_protocol_v2` feature) instead.
//!
//! What 1.20.0 changed in v2, read in its `src/v2/elicitation.rs` and `src/v2/rpc.rs`:
//! `StringPropertySchema` has no `pattern`; `properties`, unknown members and accepted
//! `content` are `IndexMap`s (order kept); `ElicitationScope` refuses `sessionId` with
//! `requestId` and `toolCallId` without `sessionId`; `RequestId` has no `null`.

use agent_client_protocol_schema::{v1, v2};
use elicit_core::protocol::{
    AcpVersion, CreateElicitation, ElicitationResponse, ParamsErrorKind, Scope, INVALID_PARAMS,
};
use elicit_core::schema::ParseOptions;
use elicit_core::RequestedSchema;
use serde_json::{json, Value};

/// A form whose property order is not alphabetical, with a `pattern` (with and
/// without a description) and every other kind of property.
fn schema() -> RequestedSchema {
    RequestedSchema::from_json(&json!({
        "type": "object",
        "title": "Trip",
        "properties": {
            "zebra": { "type": "string", "title": "Airport", "pattern": "^[A-Z]{3}$", "minLength": 3 },
            "middle": { "type": "string", "description": "Your booking code", "pattern": "^[0-9]+$" },
            "apple": { "type": "integer", "minimum": 1, "maximum": 9, "default": 2 },
            "size": { "type": "string", "oneOf": [
                { "const": "s", "title": "Small" }, { "const": "l", "title": "Large" } ] },
            "tags": { "type": "array", "items": { "type": "string", "enum": ["x", "y"] }, "minItems": 1 },
            "ok": { "type": "boolean", "default": true },
            "email": { "type": "string", "format": "email" }
        },
        "required": ["zebra", "apple"]
    }))
    .expect("the test's schema is valid")
}

fn keys(json: &Value) -> Vec<&str> {
    json.as_object()
        .expect("an object")
        .keys()
        .map(String::as_str)
        .collect()
}

fn form(scope: Scope) -> CreateElicitation {
    CreateElicitation::form(scope, "Where to?", schema())
}

fn v2_request(json: &Value) -> Result<v2::CreateElicitationRequest, serde_json::Error> {
    serde_json::from_value(json.clone())
}

// covers: F1, F2, M7, D13
#[test]
fn v2_forms_carry_no_pattern_and_the_crate_keeps_everything_else_in_order() {
    for scope in [
        Scope::session("s1"),
        Scope::tool_call("s1", "call-1"),
        Scope::request(7),
        Scope::request("auth-1"),
    ] {
        let ours = form(scope).to_json_for(AcpVersion::V2).expect("v2 form");
        let schema = &ours["requestedSchema"];
        for property in schema["properties"]
            .as_object()
            .expect("properties")
            .values()
        {
            assert!(
                property.get("pattern").is_none(),
                "v2 has no pattern: {property}"
            );
        }
        let official = v2_request(&ours).expect("1.20.0 reads elicit's v2 request");
        let written = serde_json::to_value(&official).expect("1.20.0 writes it");
        // Nothing elicit wrote is dropped or changed by the official v2 type...
        assert_eq!(written, ours);
        // ... and the properties stay in declaration order on both sides (IndexMap).
        assert_eq!(
            keys(&written["requestedSchema"]["properties"]),
            ["zebra", "middle", "apple", "size", "tags", "ok", "email"]
        );
        assert_eq!(
            keys(&schema["properties"]["zebra"]),
            ["type", "title", "description", "minLength"]
        );
    }
}

// covers: M7, F2
#[test]
fn the_pattern_is_said_in_words_in_v2_and_sent_as_is_in_v1() {
    let request = form(Scope::session("s1"));
    let v2 = request.to_json_for(AcpVersion::V2).expect("v2 form");
    let properties = &v2["requestedSchema"]["properties"];
    assert_eq!(
        properties["zebra"]["description"],
        "must match the pattern ^[A-Z]{3}$"
    );
    assert_eq!(
        properties["middle"]["description"],
        "Your booking code (must match the pattern ^[0-9]+$)"
    );

    let v1 = request.to_json_for(AcpVersion::V1).expect("v1 form");
    assert_eq!(v1, request.to_json());
    assert_eq!(
        v1["requestedSchema"]["properties"]["zebra"]["pattern"],
        "^[A-Z]{3}$"
    );
    // The v1 type of 1.20.0 holds the pattern...
    let official_v1: v1::CreateElicitationRequest =
        serde_json::from_value(v1.clone()).expect("1.20.0 reads elicit's v1 request");
    let written_v1 = serde_json::to_value(&official_v1).expect("written");
    assert_eq!(
        written_v1["requestedSchema"]["properties"]["zebra"]["pattern"],
        "^[A-Z]{3}$"
    );
    // ... and its v2 type has no place for one: a v1 form through the v2 type loses it,
    // which is why elicit never sends it in v2.
    let through_v2 = serde_json::to_value(v2_request(&v1).expect("read as v2")).expect("written");
    assert!(through_v2["requestedSchema"]["properties"]["zebra"]
        .get("pattern")
        .is_none());
}

// covers: F3, M7
#[test]
fn the_agent_still_enforces_the_pattern_a_v2_form_leaves_out() {
    let request = form(Scope::session("s1"));
    let asked = request.requested_schema().expect("a form");
    let v2_schema = RequestedSchema::from_json(
        &request.to_json_for(AcpVersion::V2).expect("v2 form")["requestedSchema"],
    )
    .expect("the v2 form is a valid schema");
    let answer = json!({ "zebra": "call me", "apple": 2 });
    // The client, holding only the v2 form, cannot see the rule...
    assert!(v2_schema.validate(&answer).is_ok());
    // ... the agent validates against what it asked, pattern included.
    let errors = asked
        .validate(&answer)
        .expect_err("the pattern is enforced");
    assert!(errors.to_string().contains("zebra"), "{errors}");
}

/// A v2 scope case: the params, and whether 1.20.0 and elicit accept them.
fn scope_cases() -> Vec<(&'static str, Value, bool)> {
    let base = |scope: Value| {
        let mut params = json!({
            "mode": "form", "message": "m",
            "requestedSchema": { "type": "object", "properties": {} }
        });
        for (k, v) in scope.as_object().expect("scope").iter() {
            params[k] = v.clone();
        }
        params
    };
    vec![
        ("session", base(json!({ "sessionId": "s" })), true),
        (
            "tool call",
            base(json!({ "sessionId": "s", "toolCallId": "t" })),
            true,
        ),
        ("request (int)", base(json!({ "requestId": 3 })), true),
        ("request (string)", base(json!({ "requestId": "r" })), true),
        (
            "both scopes",
            base(json!({ "sessionId": "s", "requestId": 3 })),
            false,
        ),
        ("no scope", base(json!({})), false),
        (
            "tool call beside request",
            base(json!({ "requestId": 3, "toolCallId": "t" })),
            false,
        ),
        (
            "null tool call beside request",
            base(json!({ "requestId": 3, "toolCallId": null })),
            false,
        ),
        ("tool call alone", base(json!({ "toolCallId": "t" })), false),
        ("null request", base(json!({ "requestId": null })), false),
        (
            "fractional request",
            base(json!({ "requestId": 1.5 })),
            false,
        ),
    ]
}

// covers: E3, D1
#[test]
fn the_v2_scope_is_refused_exactly_where_the_official_type_refuses_it() {
    for (case, params, valid) in scope_cases() {
        let official = v2_request(&params);
        assert_eq!(official.is_ok(), valid, "1.20.0 on {case}: {official:?}");
        let ours = CreateElicitation::parse_for(&params, &ParseOptions::strict(), AcpVersion::V2);
        assert_eq!(ours.is_ok(), valid, "elicit v2 on {case}: {ours:?}");
        if let Err(error) = ours {
            // The answer a client sends: -32602, reason `bad_scope`, at the member.
            let rpc = error.to_jsonrpc_error().to_json();
            assert_eq!(rpc["code"], INVALID_PARAMS, "{case}");
            assert_eq!(rpc["data"]["reason"], "bad_scope", "{case}: {rpc}");
        }
    }
}

// covers: E3, D1
#[test]
fn each_refused_v2_scope_says_what_is_wrong() {
    let read = |params: Value| {
        CreateElicitation::parse_for(&params, &ParseOptions::strict(), AcpVersion::V2)
            .expect_err("refused")
    };
    let schema = json!({ "type": "object", "properties": {} });
    let both = read(
        json!({ "mode": "form", "message": "m", "requestedSchema": schema,
        "sessionId": "s", "requestId": 1 }),
    );
    assert_eq!(both.kind(), &ParamsErrorKind::BothScopes);
    let tool = read(
        json!({ "mode": "form", "message": "m", "requestedSchema": schema,
        "requestId": 1, "toolCallId": null }),
    );
    assert_eq!(tool.kind(), &ParamsErrorKind::ToolCallWithoutSession);
    assert_eq!(tool.pointer(), "/toolCallId");
    let null = read(json!({ "mode": "url", "message": "m", "elicitationId": "e",
        "url": "https://example.com/", "requestId": null }));
    assert_eq!(null.kind(), &ParamsErrorKind::NullRequestId);
    assert_eq!(null.pointer(), "/requestId");
    assert!(null.to_string().contains("never `null`"), "{null}");
}

// covers: E3
#[test]
fn v1_reads_a_null_request_id_and_v2_will_not_write_it() {
    let params = json!({ "mode": "url", "message": "Sign in", "elicitationId": "e1",
        "url": "https://auth.example.com/", "requestId": null });
    // v1: read, and forwarded as received.
    let request = CreateElicitation::parse_for(&params, &ParseOptions::strict(), AcpVersion::V1)
        .expect("v1 allows a null request id");
    assert_eq!(request.to_json_for(AcpVersion::V1).expect("v1"), params);
    let official_v1: v1::CreateElicitationRequest =
        serde_json::from_value(params.clone()).expect("1.20.0's v1 reads it too");
    assert_eq!(serde_json::to_value(official_v1).expect("written"), params);
    // v2: no such scope, in the official type or in elicit's output.
    assert!(v2_request(&params).is_err());
    let error = request.to_json_for(AcpVersion::V2).expect_err("not in v2");
    assert_eq!(error.kind(), &ParamsErrorKind::NullRequestId);
}

// covers: R1, R3, D13
#[test]
fn accepted_content_keeps_its_order_in_v2() {
    let result = json!({ "action": "accept",
        "content": { "zebra": "LHR", "middle": "12", "apple": 2, "tags": ["y"], "ok": false } });
    let ours = ElicitationResponse::from_json(&result).expect("a response");
    assert_eq!(ours.to_json(), result);
    let official: v2::CreateElicitationResponse =
        serde_json::from_value(ours.to_json()).expect("1.20.0 reads elicit's response");
    let written = serde_json::to_value(&official).expect("written");
    assert_eq!(written, result);
    assert_eq!(
        keys(&written["content"]),
        ["zebra", "middle", "apple", "tags", "ok"]
    );
}

// covers: U1, E6
#[test]
fn url_and_custom_modes_are_the_same_in_both_versions() {
    let url = CreateElicitation::url(
        Scope::tool_call("s1", "c1"),
        "Sign in",
        "e-1",
        "https://auth.example.com/",
    )
    .expect("a URL request");
    let v2 = url.to_json_for(AcpVersion::V2).expect("v2");
    assert_eq!(v2, url.to_json_for(AcpVersion::V1).expect("v1"));
    assert_eq!(
        serde_json::to_value(v2_request(&v2).expect("1.20.0 reads it")).expect("written"),
        v2
    );

    // A custom mode is kept as received, a `pattern` in it included (E6).
    let custom = json!({ "mode": "_wizard", "sessionId": "s1", "message": "m",
        "steps": [{ "pattern": "x" }] });
    let request = CreateElicitation::parse_for(&custom, &ParseOptions::lenient(), AcpVersion::V2)
        .expect("a custom mode");
    assert_eq!(request.to_json_for(AcpVersion::V2).expect("v2"), custom);
}

// covers: M1, M5, M7, D13
#[test]
fn an_mcp_form_reaches_acp_v2_in_order_and_by_its_rules() {
    use elicit_core::protocol::mcp::v2025_11_25::ElicitRequestParams;

    // As an MCP server may send it: no mode, the legacy titled select, and a `pattern`
    // MCP has no place for but a server wrote anyway.
    let mcp = json!({ "message": "Ship it?", "requestedSchema": { "type": "object",
        "properties": {
            "zone": { "type": "string", "enum": ["eu", "us"], "enumNames": ["Europe", "America"] },
            "code": { "type": "string", "pattern": "^[a-z]+$" },
            "count": { "type": "integer" }
        } } });
    let ElicitRequestParams::Form(form) = ElicitRequestParams::from_json(&mcp).expect("MCP form")
    else {
        panic!("a form");
    };
    let acp = form.into_acp(Scope::tool_call("s1", "call-9"));
    let v1 = acp.to_json_for(AcpVersion::V1).expect("v1");
    let v2 = acp.to_json_for(AcpVersion::V2).expect("v2");
    for json in [&v1, &v2] {
        let properties = &json["requestedSchema"]["properties"];
        assert_eq!(keys(properties), ["zone", "code", "count"]);
        // M5: the legacy form is read as a titled select and never sent to ACP.
        assert!(properties["zone"].get("enumNames").is_none(), "{json}");
        assert_eq!(
            properties["zone"]["oneOf"][1],
            json!({ "const": "us", "title": "America" })
        );
    }
    assert_eq!(
        v1["requestedSchema"]["properties"]["code"]["pattern"],
        "^[a-z]+$"
    );
    assert_eq!(
        v2["requestedSchema"]["properties"]["code"],
        json!({ "type": "string", "description": "must match the pattern ^[a-z]+$" })
    );
    let official =
        serde_json::to_value(v2_request(&v2).expect("1.20.0 reads it")).expect("written");
    assert_eq!(official, v2);
    assert_eq!(
        keys(&official["requestedSchema"]["properties"]),
        ["zone", "code", "count"]
    );
}
