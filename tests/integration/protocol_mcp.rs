//! The MCP dialect (M1–M7): every MCP message we build validates against the MCP schema
//! of its version (erratum 1 patched, see `protocol_support`), every published example
//! parses, and the conversions to and from ACP drop exactly what the dialects differ on.

use crate::common;
use crate::protocol_support;

use elicit::protocol::mcp::v2025_11_25 as v1125;
use elicit::protocol::mcp::v2026_07_28 as v0728;
use elicit::protocol::mcp::{
    ConversionError, ElicitResult, FormParams, McpAction, McpElicitationCapabilities, McpSchema,
};
use elicit::protocol::{
    Action, CompleteElicitation, CreateElicitation, ElicitationResponse, InvalidParamsReason, Mode,
    ModeParams, ParamsErrorKind, RequestId, Scope,
};
use elicit::schema::PropertyKind;
use elicit::RequestedSchema;
use protocol_support::{assert_acp, assert_mcp, mcp_accepts};
use serde_json::{json, Map, Value};

const V1125: &str = "2025-11-25";
const V0728: &str = "2026-07-28";

fn schema() -> RequestedSchema {
    RequestedSchema::from_json(&json!({
        "type": "object",
        "properties": {
            "login": { "type": "string", "title": "GitHub login", "pattern": "^[a-z0-9-]+$", "minLength": 1 },
            "email": { "type": "string", "format": "email" },
            "age": { "type": "integer", "minimum": 18 },
            "ratio": { "type": "number", "maximum": 1.5 },
            "color": { "type": "string", "oneOf": [{ "const": "#f00", "title": "Red" }, { "const": "#0f0", "title": "Green" }] },
            "size": { "type": "string", "enum": ["s", "m"] },
            "tags": { "type": "array", "items": { "anyOf": [{ "const": "a", "title": "A" }] }, "minItems": 1 },
            "news": { "type": "boolean", "default": false }
        },
        "required": ["login"]
    }))
    .unwrap()
}

fn acp_form() -> CreateElicitation {
    CreateElicitation::form(Scope::tool_call("s", "call-1"), "Who are you?", schema())
}

fn acp_url() -> CreateElicitation {
    CreateElicitation::url(
        Scope::session("s"),
        "Connect your account",
        "el-9",
        "https://mcp.example.com/connect",
    )
    .unwrap()
}

fn content() -> Map<String, Value> {
    // 88.5 is a valid number answer that only the patched MCP schema accepts (erratum 1).
    json!({ "login": "octocat", "age": 30, "ratio": 88.5, "tags": ["a"], "news": true })
        .as_object()
        .unwrap()
        .clone()
}

fn results() -> Vec<ElicitResult> {
    let meta = json!({ "m": 1 }).as_object().cloned();
    vec![
        ElicitResult::accept(content()),
        ElicitResult::accept_without_content(),
        ElicitResult::decline(),
        ElicitResult::cancel().with_meta(meta),
    ]
}

// covers: M1, M7
#[test]
fn built_2025_11_25_messages_validate() {
    let form = v1125::ElicitRequestParams::try_from(&acp_form()).unwrap();
    let url = v1125::ElicitRequestParams::try_from(&acp_url()).unwrap();
    assert_mcp(V1125, "ElicitRequestFormParams", &form.to_json());
    assert_mcp(V1125, "ElicitRequestURLParams", &url.to_json());
    for params in [form, url] {
        assert_mcp(V1125, "ElicitRequestParams", &params.to_json());
        let request = v1125::ElicitRequest {
            id: RequestId::number(5),
            params: params.clone(),
        };
        let json = request.to_json();
        assert_mcp(V1125, "ElicitRequest", &json);
        assert_mcp(V1125, "JSONRPCRequest", &json);
        // Round trip (on the wire: the parsed value no longer holds the `pattern` the
        // MCP form leaves out, M7).
        assert_eq!(
            v1125::ElicitRequest::from_json(&json).unwrap().to_json(),
            json
        );
        assert_eq!(
            v1125::ElicitRequestParams::from_json(&params.to_json())
                .unwrap()
                .to_json(),
            params.to_json()
        );
    }
    for result in results() {
        assert_mcp(V1125, "ElicitResult", &result.to_json());
        assert_mcp(
            V1125,
            "JSONRPCResultResponse",
            &result.to_response(&RequestId::string("r")),
        );
        assert_eq!(ElicitResult::from_json(&result.to_json()).unwrap(), result);
    }
    let complete = v1125::ElicitationCompleteNotification::new("el-9");
    assert_mcp(
        V1125,
        "ElicitationCompleteNotification",
        &complete.to_notification(),
    );
    assert_eq!(
        complete.to_notification()["method"],
        "notifications/elicitation/complete"
    );
    let caps = McpElicitationCapabilities::with_modes([Mode::Form, Mode::Url]);
    assert_mcp(
        V1125,
        "ClientCapabilities",
        &json!({ "elicitation": caps.to_json() }),
    );
}

// covers: M4
#[test]
fn url_elicitation_required_error() {
    let needed = vec![
        v1125::UrlParams::new("Authorize access", "el-1", "https://auth.example.com/a").unwrap(),
        v1125::UrlParams::new("Pay", "el-2", "https://pay.example.com/p?x=1").unwrap(),
    ];
    let error = v1125::url_elicitation_required("This request requires more information.", &needed);
    assert_eq!(error.code(), -32042);
    let response = error.to_response(&RequestId::number(2));
    assert_mcp(V1125, "URLElicitationRequiredError", &response);
    assert_mcp(V1125, "JSONRPCErrorResponse", &response);
    let back = v1125::required_url_elicitations(&error).unwrap().unwrap();
    assert_eq!(back, needed);
    // Other errors are not it; a malformed list says where.
    assert!(
        v1125::required_url_elicitations(&elicit::protocol::JsonRpcError::undeclared_mode(
            Mode::Url
        ))
        .is_none()
    );
    let bad = elicit::protocol::JsonRpcError::new(
        -32042,
        "x",
        Some(json!({ "elicitations": [{ "mode": "url" }] })),
    );
    let e = v1125::required_url_elicitations(&bad).unwrap().unwrap_err();
    assert_eq!(e.pointer(), "/elicitations/0/message");
}

// covers: M6, M7
#[test]
fn built_2026_07_28_messages_validate() {
    let form = v0728::ElicitRequestParams::try_from(&acp_form()).unwrap();
    let url = v0728::ElicitRequestParams::try_from(&acp_url()).unwrap();
    assert_mcp(V0728, "ElicitRequestFormParams", &form.to_json());
    assert_mcp(V0728, "ElicitRequestURLParams", &url.to_json());
    // M6: URL params have no elicitationId.
    assert!(url.to_json().get("elicitationId").is_none());
    assert_eq!(
        url.to_json(),
        json!({ "mode": "url", "message": "Connect your account", "url": "https://mcp.example.com/connect" })
    );
    let mut requests = v0728::InputRequests::new();
    requests.insert_elicitation("login", form.clone());
    requests.insert_elicitation("connect", url.clone());
    for (key, params) in [("login", &form), ("connect", &url)] {
        let request = v0728::ElicitRequest {
            params: params.clone(),
        };
        assert_mcp(V0728, "ElicitRequest", &request.to_json());
        assert_mcp(V0728, "InputRequest", &request.to_json());
        assert_eq!(
            requests.get(key),
            Some(&v0728::InputRequest::Elicitation(params.clone()))
        );
    }
    assert_mcp(V0728, "InputRequests", &requests.to_json());
    let result = v0728::InputRequiredResult {
        input_requests: Some(requests.clone()),
        request_state: Some("opaque".into()),
        meta: None,
    };
    assert_mcp(V0728, "InputRequiredResult", &result.to_json());
    assert_eq!(
        v0728::InputRequiredResult::from_json(&result.to_json())
            .unwrap()
            .to_json(),
        result.to_json()
    );
    let mut responses = v0728::InputResponses::new();
    for (i, r) in results().into_iter().enumerate() {
        assert_mcp(V0728, "ElicitResult", &r.to_json());
        assert_mcp(V0728, "InputResponse", &r.to_json());
        responses.insert_elicitation(format!("k{i}"), r);
    }
    assert_mcp(V0728, "InputResponses", &responses.to_json());
    assert_eq!(
        v0728::InputResponses::from_json(&responses.to_json()).unwrap(),
        responses
    );
    assert_eq!(
        responses.elicitation("k2").unwrap().action(),
        McpAction::Decline
    );
    // Capabilities with each request (M6), and -32021.
    let caps = McpElicitationCapabilities::with_modes([Mode::Url]);
    let error = v0728::missing_required_capability("Server requires URL elicitation", &caps);
    assert_eq!(error.code(), -32021);
    let response = error.to_response(&RequestId::number(1));
    assert_mcp(V0728, "MissingRequiredClientCapabilityError", &response);
    assert_eq!(v0728::required_capability(&error), Some(caps.clone()));
    let meta = json!({
        "io.modelcontextprotocol/clientCapabilities": { "elicitation": caps.to_json() },
        "io.modelcontextprotocol/protocolVersion": V0728
    });
    assert_mcp(V0728, "RequestMetaObject", &meta);
    assert_eq!(
        v0728::client_capabilities_from_meta(meta.as_object().unwrap()),
        caps
    );
    // No elicitation capability in the request meta: none.
    assert!(!v0728::client_capabilities_from_meta(&Map::new()).is_present());
}

/// A property schema example wrapped into a one-property form schema.
fn wrap_property(property: &Value) -> Value {
    json!({ "type": "object", "properties": { "p": property } })
}

// covers: M1, M2, M5, M6
#[test]
fn every_2026_07_28_example_parses() {
    let Some(dir) = common::oracles_dir() else {
        return;
    };
    let root = dir.join("mcp-schema/2026-07-28/examples");
    let mut parsed = 0;
    let mut types: Vec<_> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    types.sort();
    for type_dir in types {
        let ty = type_dir.file_name().unwrap().to_str().unwrap().to_owned();
        let mut files: Vec<_> = std::fs::read_dir(&type_dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        files.sort();
        for file in files {
            let example: Value =
                serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
            let name = format!("{ty}/{}", file.file_name().unwrap().to_str().unwrap());
            // Each example is a valid instance of its type (upstream CI checks this too).
            assert_eq!(mcp_accepts(V0728, &ty, &example), Some(true), "{name}");
            let written = match ty.as_str() {
                "BooleanSchema"
                | "NumberSchema"
                | "StringSchema"
                | "TitledSingleSelectEnumSchema"
                | "UntitledSingleSelectEnumSchema"
                | "TitledMultiSelectEnumSchema"
                | "UntitledMultiSelectEnumSchema" => {
                    let schema = McpSchema::from_json(&wrap_property(&example))
                        .unwrap_or_else(|e| panic!("{name}: {e}"));
                    // Also inside the strict ACP subset.
                    RequestedSchema::from_json(&wrap_property(&example))
                        .unwrap_or_else(|e| panic!("{name}: {e}"));
                    schema.to_json()["properties"]["p"].clone()
                }
                "ClientCapabilities" => {
                    let caps = McpElicitationCapabilities::from_client_capabilities(&example);
                    assert!(caps.supports(Mode::Form), "{name}: M2");
                    json!({ "elicitation": caps.to_json() })
                }
                "ElicitRequest" => v0728::ElicitRequest::from_json(&example).unwrap().to_json(),
                "ElicitRequestFormParams" => {
                    let params = v0728::ElicitRequestParams::from_json(&example).unwrap();
                    assert_eq!(params.mode(), Mode::Form);
                    params.to_json()
                }
                "ElicitRequestURLParams" => {
                    let params = v0728::ElicitRequestParams::from_json(&example).unwrap();
                    assert_eq!(params.mode(), Mode::Url);
                    params.to_json()
                }
                "ElicitResult" => ElicitResult::from_json(&example).unwrap().to_json(),
                "InputRequests" => {
                    let requests = v0728::InputRequests::from_json(&example).unwrap();
                    assert_eq!(requests.elicitations().count(), 1, "{name}");
                    assert_eq!(requests.len(), 2, "{name}: sampling kept");
                    requests.to_json()
                }
                "InputRequiredResult" => {
                    let result = v0728::InputRequiredResult::from_json(&example).unwrap();
                    let requests = result.input_requests.as_ref().unwrap();
                    // M1: this example omits `mode`, which means form.
                    let (key, params) = requests.elicitations().next().unwrap();
                    assert_eq!((key, params.mode()), ("github_login", Mode::Form));
                    assert!(result.request_state.is_some());
                    result.to_json()
                }
                "InputResponses" => {
                    let responses = v0728::InputResponses::from_json(&example).unwrap();
                    let answer = responses.elicitation("github_login").unwrap();
                    assert_eq!(answer.content().unwrap()["name"], "octocat");
                    assert!(responses.elicitation("capital_of_france").is_none());
                    responses.to_json()
                }
                "MissingRequiredClientCapabilityError" => {
                    let error =
                        elicit::protocol::JsonRpcError::from_json(&example["error"]).unwrap();
                    let caps = v0728::required_capability(&error).unwrap();
                    assert!(caps.supports(Mode::Form), "M2: `elicitation: {{}}` is form");
                    error.to_response(&RequestId::number(1))
                }
                other => panic!("example type {other} has no parser in this test; add one"),
            };
            // What we write back is still a valid instance.
            assert_mcp(V0728, &ty, &written);
            parsed += 1;
        }
    }
    assert_eq!(parsed, 20, "SOURCES.md lists 20 examples");
}

// covers: M1
#[test]
fn ts_sdk_corpus_parses() {
    let Some(request) = common::load_json("ts-sdk-corpus/2025-11-25/ElicitRequest/form.json")
    else {
        return;
    };
    assert_eq!(request["method"], elicit::protocol::mcp::ELICITATION_CREATE);
    // No `jsonrpc`/`id` in this fixture (SOURCES.md): check its params.
    let params = v1125::ElicitRequestParams::from_json(&request["params"]).unwrap();
    assert_eq!(params.message(), "Please provide your GitHub username");
    assert_mcp(V1125, "ElicitRequestFormParams", &params.to_json());
    assert!(
        v1125::ElicitRequest::from_json(&request).is_err(),
        "a 2025-11-25 request has an id"
    );
    // The 2026-07-28 request shape is exactly `{method, params}`.
    let as_0728 = v0728::ElicitRequest::from_json(&request).unwrap();
    assert_mcp(V0728, "ElicitRequest", &as_0728.to_json());
    let result = common::load_json("ts-sdk-corpus/2025-11-25/ElicitResult/accept.json").unwrap();
    let parsed = ElicitResult::from_json(&result).unwrap();
    assert_eq!(parsed.to_json(), result);
    assert_mcp(V1125, "ElicitResult", &parsed.to_json());
}

// covers: M7, D13
#[test]
fn leaving_out_the_pattern_keeps_the_order_of_the_other_members() {
    // Found by the `protocol` fuzz target: the removal swapped the last member into the
    // pattern's place, so the MCP form reordered what the agent wrote.
    let schema = RequestedSchema::from_json_lenient(&json!({
        "type": "object",
        "properties": { "name": {
            "type": "string", "pattern": "^a", "x-first": 1, "x-second": 2, "x-third": 3
        } }
    }))
    .unwrap();
    let json = McpSchema::new(schema).to_json();
    let keys: Vec<&str> = json["properties"]["name"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys,
        ["type", "description", "x-first", "x-second", "x-third"]
    );
    assert_eq!(
        json["properties"]["name"]["description"],
        "must match the pattern ^a"
    );
}

// covers: M7
#[test]
fn mcp_schema_omits_pattern_and_the_agent_still_enforces_it() {
    let full = schema();
    let mcp = McpSchema::new(full.clone());
    assert!(mcp.omits_pattern());
    let json = mcp.to_json();
    assert!(json["properties"]["login"].get("pattern").is_none());
    // Everything else is kept.
    let mut expected = full.to_json();
    let login = expected["properties"]["login"].as_object_mut().unwrap();
    let pattern = login.remove("pattern").unwrap();
    // Said in words instead, beside what the description said (M7).
    assert!(login.get("description").is_none());
    let words = format!("must match the pattern {}", pattern.as_str().unwrap());
    login.insert("description".into(), json!(words));
    assert_eq!(json, expected);
    // The schema the agent keeps still has it.
    assert!(mcp
        .schema()
        .validate(&json!({ "login": "Not Valid!" }))
        .is_err());
    assert!(mcp
        .schema()
        .validate(&json!({ "login": "octocat" }))
        .is_ok());
    // A schema without pattern is written as in ACP.
    let plain = RequestedSchema::from_json(
        &json!({ "type": "object", "properties": { "a": { "type": "string" } } }),
    )
    .unwrap();
    assert!(!McpSchema::new(plain.clone()).omits_pattern());
    assert_eq!(McpSchema::new(plain.clone()).to_json(), plain.to_json());
    // The MCP form also validates against MCP's schema definitions.
    for version in [V1125, V0728] {
        let params = FormParams::new("m", mcp.clone());
        assert_mcp(
            version,
            "ElicitRequestFormParams",
            &v1125::ElicitRequestParams::Form(params).to_json(),
        );
    }
}

// covers: M5
#[test]
fn legacy_enum_names_are_read_and_never_written_for_acp() {
    let legacy = json!({ "type": "object", "properties": {
        "plan": { "type": "string", "enum": ["free", "pro"], "enumNames": ["Free plan", "Pro plan"] }
    } });
    assert_eq!(
        mcp_accepts(
            V1125,
            "ElicitRequestFormParams",
            &json!({ "message": "m", "requestedSchema": legacy })
        ),
        Some(true)
    );
    // The strict ACP parse refuses it.
    assert!(RequestedSchema::from_json(&legacy).is_err());
    // MCP reads it as a titled single-select.
    let params = v1125::ElicitRequestParams::from_json(
        &json!({ "message": "Plan?", "requestedSchema": legacy }),
    )
    .unwrap();
    let acp = params.into_acp(Scope::session("s"));
    let schema = acp.requested_schema().unwrap();
    let PropertyKind::SingleSelect(select) = schema.properties()[0].schema().kind() else {
        panic!("not a select");
    };
    assert!(select.options.is_titled());
    assert_eq!(select.options.label(1), Some("Pro plan"));
    // Written for ACP: `oneOf`, no `enumNames`, valid for both ACP schemas.
    let written = acp.to_json();
    let plan = &written["requestedSchema"]["properties"]["plan"];
    assert!(plan.get("enumNames").is_none() && plan.get("enum").is_none());
    assert_eq!(
        plan["oneOf"][0],
        json!({ "const": "free", "title": "Free plan" })
    );
    assert_acp("CreateElicitationRequest", &written);
    assert!(CreateElicitation::from_json(&written).is_ok());
}

// covers: M1, E3
#[test]
fn acp_to_mcp_drops_the_scope_and_back_needs_one() {
    let acp = acp_form();
    let mcp = v1125::ElicitRequestParams::try_from(&acp).unwrap();
    let json = mcp.to_json();
    for member in ["sessionId", "toolCallId", "requestId"] {
        assert!(json.get(member).is_none(), "{member}");
    }
    assert_eq!(json["mode"], "form");
    // Back in ACP, in the scope the caller gives: the same request but for pattern (M7).
    let back = mcp.into_acp(Scope::tool_call("s", "call-1"));
    assert_eq!(back.scope(), acp.scope());
    assert_eq!(back.message(), acp.message());
    assert_eq!(
        back.requested_schema(),
        acp.requested_schema(),
        "the MCP value keeps the full schema"
    );
    // Parsed from the MCP wire, pattern is gone (M7).
    let from_wire = v1125::ElicitRequestParams::from_json(&json)
        .unwrap()
        .into_acp(Scope::session("s"));
    let login = &from_wire.to_json()["requestedSchema"]["properties"]["login"];
    assert!(login.get("pattern").is_none());
    // URL: 2025-11-25 keeps the elicitationId; 2026-07-28 has none, the agent mints one.
    let url = v1125::ElicitRequestParams::try_from(&acp_url()).unwrap();
    assert_eq!(url.to_json()["elicitationId"], "el-9");
    assert_eq!(url.into_acp(Scope::session("s")), acp_url());
    let url = v0728::ElicitRequestParams::try_from(&acp_url()).unwrap();
    assert_eq!(
        url.clone().into_acp(Scope::session("s"), None),
        Err(ConversionError::MissingElicitationId)
    );
    assert_eq!(
        url.into_acp(Scope::session("s"), Some("el-9".into()))
            .unwrap(),
        acp_url()
    );
    // A custom ACP mode has no MCP form.
    let custom =
        CreateElicitation::from_json(&json!({ "mode": "_x", "sessionId": "s", "message": "m" }))
            .unwrap();
    assert_eq!(
        v1125::ElicitRequestParams::try_from(&custom),
        Err(ConversionError::UnknownMode("_x".into()))
    );
    assert_eq!(
        v0728::ElicitRequestParams::try_from(&custom),
        Err(ConversionError::UnknownMode("_x".into()))
    );
    // `_meta` travels with 2025-11-25 form params.
    let with_meta = acp_form().with_meta(json!({ "k": 1 }).as_object().cloned());
    let mcp = v1125::ElicitRequestParams::try_from(&with_meta).unwrap();
    assert_eq!(mcp.to_json()["_meta"], json!({ "k": 1 }));
    assert_eq!(mcp.into_acp(Scope::tool_call("s", "call-1")), with_meta);
}

// covers: M1, E2, E3
#[test]
fn the_dialects_do_not_read_each_other() {
    // An MCP request is not an ACP one: no scope, and `mode` may be missing (E2).
    let mcp = v1125::ElicitRequestParams::try_from(&acp_form())
        .unwrap()
        .to_json();
    let e = CreateElicitation::from_json(&mcp).unwrap_err();
    assert_eq!(e.kind(), &ParamsErrorKind::NoScope);
    let mut no_mode = mcp.clone();
    no_mode.as_object_mut().unwrap().remove("mode");
    assert!(
        v1125::ElicitRequestParams::from_json(&no_mode).is_ok(),
        "M1: form by default in MCP"
    );
    assert!(
        CreateElicitation::from_json(&no_mode).is_err(),
        "E2: no default in ACP"
    );
    // MCP has no custom modes.
    let custom = json!({ "mode": "_x", "message": "m" });
    let e = v1125::ElicitRequestParams::from_json(&custom).unwrap_err();
    assert_eq!(e.pointer(), "/mode");
    assert!(v0728::ElicitRequestParams::from_json(&custom).is_err());
    // A 2025-11-25 URL request without elicitationId is refused; 2026-07-28 needs none.
    let url = json!({ "mode": "url", "message": "m", "url": "https://a.example/" });
    assert_eq!(
        v1125::ElicitRequestParams::from_json(&url)
            .unwrap_err()
            .pointer(),
        "/elicitationId"
    );
    assert!(v0728::ElicitRequestParams::from_json(&url).is_ok());
    // Envelope and result members a client cannot read: `malformed_params`.
    for e in [
        v0728::ElicitRequest::from_json(&json!({ "params": {} })).unwrap_err(),
        v1125::ElicitRequest::from_json(&json!({ "method": "elicitation/create", "id": 1 }))
            .unwrap_err(),
        v1125::ElicitRequest::from_json(&json!({ "method": "x", "id": 1, "params": {} }))
            .unwrap_err(),
        ElicitResult::from_json(&json!({ "action": "_later" })).unwrap_err(),
    ] {
        assert_eq!(e.reason(), InvalidParamsReason::Malformed, "{e}");
        assert_eq!(
            e.to_jsonrpc_error().data().unwrap()["reason"],
            "malformed_params"
        );
    }
    // Bad URLs and missing messages, in both versions.
    for bad in [
        json!({ "mode": "url", "message": "m", "elicitationId": "e", "url": "relative" }),
        json!({ "mode": "url", "elicitationId": "e", "url": "https://a.example/" }),
        json!({ "message": "m" }),
        json!({ "mode": 1, "message": "m", "requestedSchema": { "type": "object", "properties": {} } }),
    ] {
        assert!(
            v1125::ElicitRequestParams::from_json(&bad).is_err(),
            "{bad}"
        );
        assert!(
            v0728::ElicitRequestParams::from_json(&bad).is_err(),
            "{bad}"
        );
    }
}

// covers: R1, R2, E6
#[test]
fn results_convert_between_dialects() {
    for result in results() {
        let acp = ElicitationResponse::from(&result);
        assert_acp("CreateElicitationResponse", &acp.to_json());
        assert_eq!(acp.to_json(), result.to_json());
        assert_eq!(ElicitResult::try_from(&acp).unwrap(), result);
    }
    // ACP's custom actions have no MCP form; MCP refuses unknown actions.
    let other = ElicitationResponse::from_json(&json!({ "action": "_later" })).unwrap();
    assert_eq!(
        ElicitResult::try_from(&other),
        Err(ConversionError::UnknownAction("_later".into()))
    );
    assert!(ElicitResult::from_json(&json!({ "action": "_later" })).is_err());
    // R2 in MCP too.
    let declined =
        ElicitResult::from_json(&json!({ "action": "decline", "content": { "x": 1 } })).unwrap();
    assert_eq!(declined.content(), None);
    let null = ElicitResult::from_json(&json!({ "action": "accept", "content": null })).unwrap();
    assert_eq!(null, ElicitResult::accept_without_content());
    assert_eq!(
        ElicitationResponse::from(&declined).action(),
        &Action::Decline
    );
}

// covers: M3, U5
#[test]
fn completion_converts_between_dialects() {
    let acp = CompleteElicitation::new("el-1").with_meta(json!({ "a": 1 }).as_object().cloned());
    let mcp = v1125::ElicitationCompleteNotification::from(&acp);
    assert_eq!(mcp.to_json(), acp.to_json());
    assert_ne!(
        acp.to_notification()["method"],
        mcp.to_notification()["method"]
    );
    assert_eq!(CompleteElicitation::from(&mcp), acp);
    assert_mcp(
        V1125,
        "ElicitationCompleteNotification",
        &mcp.to_notification(),
    );
    assert_acp("CompleteElicitationNotification", &acp.to_json());
    assert_eq!(
        v1125::ElicitationCompleteNotification::from_json(&mcp.to_json()).unwrap(),
        mcp
    );
}

// covers: M1
#[test]
fn form_params_built_directly() {
    let params = FormParams::new("Name?", schema());
    assert_eq!(params.message(), "Name?");
    let json = v0728::ElicitRequestParams::Form(params.clone()).to_json();
    assert_eq!(json["mode"], "form");
    assert_mcp(V0728, "ElicitRequestFormParams", &json);
    let acp = params.into_acp(Scope::request("auth-1"));
    assert!(matches!(acp.params(), ModeParams::Form { .. }));
    assert_acp("CreateElicitationRequest", &acp.to_json());
}
