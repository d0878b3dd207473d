//! `elicitation/create`: what we build validates against both ACP schemas; what we
//! read is refused for each rule it breaks, with the `-32602` a client answers; unknown
//! modes are kept as received.

use crate::common;
use crate::protocol_support;

use elicit::protocol::{
    AcpVersion, CreateElicitation, InvalidParamsReason as Reason, JsonRpcError, Mode, ModeParams,
    ParamsErrorKind, RequestId, Scope, INVALID_PARAMS,
};
use elicit::schema::ParseOptions;
use elicit::RequestedSchema;
use protocol_support::{acp_accepts, assert_acp};
use serde_json::{json, Map, Value};

fn schema() -> RequestedSchema {
    RequestedSchema::from_json(&json!({
        "type": "object",
        "title": "Refactor",
        "properties": {
            "strategy": { "type": "string", "oneOf": [
                { "const": "conservative", "title": "Conservative" },
                { "const": "aggressive", "title": "Aggressive" }
            ] },
            "passes": { "type": "integer", "minimum": 1, "maximum": 5, "default": 2 },
            "ticket": { "type": "string", "pattern": "^[A-Z]+-[0-9]+$", "maxLength": 20 },
            "notify": { "type": "string", "format": "email" },
            "tags": { "type": "array", "items": { "type": "string", "enum": ["a", "b"] }, "maxItems": 2 },
            "ratio": { "type": "number", "minimum": 0.5 },
            "dry": { "type": "boolean", "default": true }
        },
        "required": ["strategy", "passes"]
    }))
    .unwrap()
}

fn scopes() -> Vec<Scope> {
    vec![
        Scope::session("sess-1"),
        Scope::tool_call("sess-1", "call-7"),
        Scope::request(42),
        Scope::request(-1),
        Scope::request(i64::MAX),
        Scope::request("req-abc"),
    ]
}

fn meta() -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("trace".into(), json!({ "id": "t-1", "n": [1, 2.5, null] }));
    m
}

/// Every request shape we can build: form and URL, every scope, with and without
/// `_meta`.
fn built() -> Vec<CreateElicitation> {
    let mut out = Vec::new();
    for scope in scopes() {
        for with_meta in [false, true] {
            let m = with_meta.then(meta);
            out.push(
                CreateElicitation::form(scope.clone(), "How should I refactor?", schema())
                    .with_meta(m.clone()),
            );
            out.push(
                CreateElicitation::url(
                    scope.clone(),
                    "Sign in to continue",
                    "el-1",
                    "https://auth.example.com/start?flow=abc",
                )
                .unwrap()
                .with_meta(m),
            );
        }
    }
    out
}

// covers: E1, E2, E3, E4, E7, F1, U1, D1
#[test]
fn every_built_request_validates_against_acp_v1_and_v2() {
    for request in built() {
        let json = request.to_json();
        assert_acp("CreateElicitationRequest", &json);
        // The JSON-RPC envelope carries the right method (v1.meta.json).
        let envelope = request.to_request(&RequestId::number(9));
        assert_eq!(envelope["method"], "elicitation/create");
        assert_eq!(envelope["params"], json);
        // serialize -> parse -> serialize is the identity.
        let parsed = CreateElicitation::from_json(&json).unwrap();
        assert_eq!(parsed, request);
        assert_eq!(parsed.to_json(), json);
        assert_eq!(
            serde_json::to_string(&parsed).unwrap(),
            serde_json::to_string(&request).unwrap()
        );
    }
}

// covers: E1, U5
#[test]
fn method_names_match_the_acp_method_table() {
    let Some(meta) = common::load_json("acp-schema/v1.meta.json") else {
        return;
    };
    assert_eq!(
        meta["clientMethods"]["elicitation_create"],
        CreateElicitation::METHOD
    );
    assert_eq!(
        meta["clientMethods"]["elicitation_create"],
        elicit::protocol::ELICITATION_CREATE
    );
    assert_eq!(
        meta["clientMethods"]["elicitation_complete"],
        elicit::protocol::ELICITATION_COMPLETE
    );
    assert_eq!(
        meta["clientMethods"]["elicitation_complete"],
        elicit::protocol::CompleteElicitation::METHOD
    );
}

// covers: E3, D1
#[test]
fn scope_members_on_the_wire() {
    let form = |scope| CreateElicitation::form(scope, "m", schema()).to_json();
    let session = form(Scope::session("s"));
    assert_eq!(session["sessionId"], "s");
    assert!(session.get("toolCallId").is_none() && session.get("requestId").is_none());
    let tool = form(Scope::tool_call("s", "t"));
    assert_eq!(
        (tool["sessionId"].clone(), tool["toolCallId"].clone()),
        (json!("s"), json!("t"))
    );
    let int = form(Scope::request(7));
    assert_eq!(int["requestId"], 7);
    assert!(int.get("sessionId").is_none());
    let string = form(Scope::request("r"));
    assert_eq!(string["requestId"], "r");
    // Member order: mode, scope, message, mode params.
    let keys: Vec<&String> = tool.as_object().unwrap().keys().collect();
    assert_eq!(
        keys,
        [
            "mode",
            "sessionId",
            "toolCallId",
            "message",
            "requestedSchema"
        ]
    );
}

// covers: E3
#[test]
fn null_request_id_is_read_never_built() {
    let json = json!({ "mode": "url", "requestId": null, "message": "m", "elicitationId": "e", "url": "https://a.example/" });
    let request = CreateElicitation::from_json(&json).unwrap();
    let id = request.scope().request_id().unwrap();
    assert!(id.is_null());
    // Kept for forwarding, and v1 (only) accepts it.
    assert_eq!(request.to_json(), json);
    assert_eq!(
        acp_accepts("v1", "CreateElicitationRequest", &json),
        acp_accepts("v1", "RequestId", &json!(null))
    );
    if let Some(v2) = acp_accepts("v2", "CreateElicitationRequest", &json) {
        assert!(!v2, "v2 forbids a null request id");
    }
    // No constructor makes one: every built id is a string or an integer.
    for scope in scopes() {
        if let Some(id) = scope.request_id() {
            assert!(!id.is_null() && (id.as_str().is_some() || id.as_i64().is_some()));
        }
    }
}

/// Reads `json` expecting a refusal; returns the error's pointer, kind and the
/// `-32602` built from it, after checking the error object's shape.
fn refused(json: Value) -> (String, ParamsErrorKind, JsonRpcError) {
    let error = match CreateElicitation::from_json(&json) {
        Ok(r) => panic!("accepted {json}: {r:?}"),
        Err(e) => e,
    };
    let rpc = error.to_jsonrpc_error();
    assert_eq!(rpc.code(), INVALID_PARAMS);
    let data = rpc.data().unwrap();
    assert_eq!(data["reason"], error.reason().as_str());
    assert_eq!(data["message"], error.to_string());
    assert!(rpc.message().contains(&error.to_string()));
    if !error.pointer().is_empty() {
        assert_eq!(data["pointer"], error.pointer());
    }
    assert_eq!(rpc.reason(), Some(error.reason()));
    (error.pointer().to_owned(), error.kind().clone(), rpc)
}

fn base(mode: &str) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("mode".into(), json!(mode));
    m.insert("sessionId".into(), json!("s"));
    m.insert("message".into(), json!("m"));
    match mode {
        "form" => {
            m.insert(
                "requestedSchema".into(),
                json!({ "type": "object", "properties": {} }),
            );
        }
        "url" => {
            m.insert("elicitationId".into(), json!("e"));
            m.insert("url".into(), json!("https://a.example/"));
        }
        _ => {}
    }
    m
}

fn with(mode: &str, edit: impl FnOnce(&mut Map<String, Value>)) -> Value {
    let mut m = base(mode);
    edit(&mut m);
    Value::Object(m)
}

// covers: D1, E3, C8
#[test]
fn bad_scopes_are_refused() {
    for mode in ["form", "url", "_custom"] {
        // Both scopes.
        let (pointer, kind, rpc) = refused(with(mode, |m| {
            m.insert("requestId".into(), json!(1));
        }));
        assert_eq!((pointer.as_str(), kind), ("", ParamsErrorKind::BothScopes));
        assert_eq!(rpc.reason(), Some(Reason::BadScope));
        assert_eq!(rpc.data().unwrap()["reason"], "bad_scope");
        // Neither.
        let (_, kind, _) = refused(with(mode, |m| {
            m.remove("sessionId");
        }));
        assert_eq!(kind, ParamsErrorKind::NoScope);
        // toolCallId without sessionId, alone or with requestId.
        for request_id in [None, Some(json!(3))] {
            let (pointer, kind, rpc) = refused(with(mode, |m| {
                m.remove("sessionId");
                m.insert("toolCallId".into(), json!("t"));
                if let Some(id) = request_id {
                    m.insert("requestId".into(), id);
                }
            }));
            assert_eq!(
                (pointer.as_str(), kind),
                ("/toolCallId", ParamsErrorKind::ToolCallWithoutSession)
            );
            assert_eq!(rpc.reason(), Some(Reason::BadScope));
        }
        // Ill-typed scope members.
        for (member, value) in [
            ("sessionId", json!(5)),
            ("sessionId", json!(null)),
            ("requestId", json!(1.5)),
            ("requestId", json!(u64::MAX)),
            ("requestId", json!(true)),
            ("requestId", json!({})),
        ] {
            let (pointer, _, rpc) = refused(with(mode, |m| {
                m.remove("sessionId");
                m.insert(member.into(), value.clone());
            }));
            assert_eq!(pointer, format!("/{member}"), "{member}: {value}");
            assert_eq!(rpc.reason(), Some(Reason::BadScope));
        }
    }
}

// covers: C6, E3
#[test]
fn malformed_tool_call_id_reads_as_absent() {
    for value in [json!(null), json!(5), json!({})] {
        let request = CreateElicitation::from_json(&with("form", |m| {
            m.insert("toolCallId".into(), value.clone());
        }))
        .unwrap();
        assert_eq!(request.scope(), &Scope::session("s"));
        // And with a request scope it is not a tool call either.
        let request = CreateElicitation::from_json(&with("url", |m| {
            m.remove("sessionId");
            m.insert("requestId".into(), json!(1));
            m.insert("toolCallId".into(), value.clone());
        }))
        .unwrap();
        assert_eq!(request.scope(), &Scope::request(1));
    }
}

// covers: E2, E4, C8
#[test]
fn missing_or_ill_typed_mode_and_message_are_refused() {
    for mode in ["form", "url"] {
        // E2: no default mode in ACP, unlike MCP.
        let (pointer, kind, rpc) = refused(with(mode, |m| {
            m.remove("mode");
        }));
        assert_eq!(
            (pointer.as_str(), kind),
            ("/mode", ParamsErrorKind::Missing { member: "mode" })
        );
        assert_eq!(rpc.reason(), Some(Reason::InvalidMode));
        let (_, _, rpc) = refused(with(mode, |m| {
            m.insert("mode".into(), json!(1));
        }));
        assert_eq!(rpc.reason(), Some(Reason::InvalidMode));
        // E4: message required, a string.
        let (pointer, kind, rpc) = refused(with(mode, |m| {
            m.remove("message");
        }));
        assert_eq!(
            (pointer.as_str(), kind),
            ("/message", ParamsErrorKind::Missing { member: "message" })
        );
        assert_eq!(rpc.reason(), Some(Reason::InvalidMessage));
        let (_, _, rpc) = refused(with(mode, |m| {
            m.insert("message".into(), json!(["m"]));
        }));
        assert_eq!(rpc.reason(), Some(Reason::InvalidMessage));
    }
    let (pointer, kind, rpc) = refused(json!(["not", "an", "object"]));
    assert_eq!((pointer.as_str(), kind), ("", ParamsErrorKind::NotAnObject));
    assert_eq!(rpc.reason(), Some(Reason::NotAnObject));
}

// covers: F1, F2, E6, C8
#[test]
fn malformed_known_form_mode_is_an_error_not_unknown() {
    let (pointer, kind, rpc) = refused(with("form", |m| {
        m.remove("requestedSchema");
    }));
    assert_eq!(
        (pointer.as_str(), kind),
        (
            "/requestedSchema",
            ParamsErrorKind::Missing {
                member: "requestedSchema"
            }
        )
    );
    assert_eq!(rpc.reason(), Some(Reason::MalformedSchema));
    // A schema the strict parse refuses: the data lists every issue with its full pointer.
    let (pointer, kind, rpc) = refused(with("form", |m| {
        m.insert(
            "requestedSchema".into(),
            json!({ "type": "object", "properties": {
                "a": { "type": "object" },
                "b": { "type": "string", "minLength": 5, "maxLength": 2 }
            }, "required": ["zzz"] }),
        );
    }));
    assert_eq!(pointer, "/requestedSchema");
    let ParamsErrorKind::Schema(schema_error) = kind else {
        panic!("not a schema error");
    };
    let data = rpc.data().unwrap();
    assert_eq!(data["reason"], "malformed_schema");
    let issues = data["issues"].as_array().unwrap();
    assert_eq!(issues.len(), schema_error.iter().len());
    assert!(issues.len() >= 3, "{issues:?}");
    assert!(issues.iter().all(|i| i["pointer"]
        .as_str()
        .unwrap()
        .starts_with("/requestedSchema")));
    assert!(
        issues
            .iter()
            .any(|i| i["pointer"] == "/requestedSchema/properties/a/type"),
        "{issues:?}"
    );
    assert!(issues
        .iter()
        .any(|i| i["pointer"] == "/requestedSchema/required/0"));
    // Not an object at all.
    let (_, kind, _) = refused(with("form", |m| {
        m.insert("requestedSchema".into(), json!("schema"));
    }));
    assert!(matches!(kind, ParamsErrorKind::Schema(_)));
}

// covers: U1, C8
#[test]
fn bad_url_params_are_refused() {
    let cases: Vec<(Value, &str)> = vec![
        (
            with("url", |m| drop(m.remove("elicitationId"))),
            "/elicitationId",
        ),
        (
            with("url", |m| drop(m.insert("elicitationId".into(), json!(12)))),
            "/elicitationId",
        ),
        (with("url", |m| drop(m.remove("url"))), "/url"),
        (
            with("url", |m| drop(m.insert("url".into(), json!(null)))),
            "/url",
        ),
        (
            with("url", |m| {
                drop(m.insert("url".into(), json!("/relative/path")))
            }),
            "/url",
        ),
        (
            with("url", |m| drop(m.insert("url".into(), json!("not a url")))),
            "/url",
        ),
        (
            with("url", |m| drop(m.insert("url".into(), json!("")))),
            "/url",
        ),
    ];
    for (json, at) in cases {
        let (pointer, _, rpc) = refused(json.clone());
        assert_eq!(pointer, at, "{json}");
        assert_eq!(rpc.reason(), Some(Reason::InvalidUrlParams), "{json}");
    }
    // The builder refuses a URL that is not absolute.
    let e = CreateElicitation::url(Scope::session("s"), "m", "e", "example.com/login").unwrap_err();
    assert_eq!(e.kind(), &ParamsErrorKind::UrlNotAbsolute);
    assert_eq!(e.to_string(), "`url` must be an absolute URI");
}

// covers: E6
#[test]
fn unknown_mode_is_kept_byte_for_byte() {
    let text = r#"{"message":"Pick a card","mode":"_cards","sessionId":"s-9","deck":{"cards":[1,2,3],"shuffle":true},"requestedSchema":{"type":"object","properties":{}},"_meta":{"z":1,"a":null},"url":"not even a url"}"#;
    let json: Value = serde_json::from_str(text).unwrap();
    let request = CreateElicitation::from_json(&json).unwrap();
    // Never read as form or URL, although it carries their members.
    assert_eq!(request.mode(), None);
    assert_eq!(request.mode_name(), "_cards");
    assert!(request.requested_schema().is_none());
    assert!(request.elicitation_id().is_none() && request.target_url().is_none());
    assert!(matches!(
        request.params(),
        ModeParams::Other { mode: "_cards", .. }
    ));
    // Written back exactly, member order included.
    assert_eq!(serde_json::to_string(&request).unwrap(), text);
    assert_eq!(request.raw().unwrap(), json.as_object().unwrap());
    // Scope and message are still read (a client routes it), and `_meta` too.
    assert_eq!(request.scope(), &Scope::session("s-9"));
    assert_eq!(request.message(), "Pick a card");
    assert_eq!(request.meta().unwrap()["z"], 1);
    // A future mode without the `_` prefix too, and the lenient parse agrees.
    let future = json!({ "mode": "oauth", "requestId": "r", "message": "m", "scopes": ["x"] });
    let request = CreateElicitation::from_json_lenient(&future).unwrap();
    assert_eq!(request.to_json(), future);
    assert_acp("CreateElicitationRequest", &future);
    // Changing `_meta` keeps the rest as received.
    let mut m = Map::new();
    m.insert("k".into(), json!(true));
    let changed = request.with_meta(Some(m));
    assert_eq!(changed.to_json()["scopes"], json!(["x"]));
    assert_eq!(changed.to_json()["_meta"], json!({ "k": true }));
    // Removing `_meta` leaves the other members in the order received.
    let early =
        r#"{"_meta":{"z":1},"message":"m","mode":"_cards","sessionId":"s","deck":1,"url":"u"}"#;
    let cards = CreateElicitation::from_json(&serde_json::from_str(early).unwrap()).unwrap();
    let written = serde_json::to_string(&cards.with_meta(None)).unwrap();
    assert_eq!(written, early.replace(r#""_meta":{"z":1},"#, ""));
    // A client that does not handle it answers -32602 unsupported_mode.
    let rpc = JsonRpcError::unsupported_mode(changed.mode_name());
    assert_eq!(rpc.code(), -32602);
    assert_eq!(rpc.data().unwrap()["reason"], "unsupported_mode");
    assert_eq!(rpc.data().unwrap()["mode"], "oauth");
    // Mode names are case-sensitive: "Form" is not form.
    let upper = CreateElicitation::from_json(&with("form", |m| {
        drop(m.insert("mode".into(), json!("Form")))
    }))
    .unwrap();
    assert_eq!(upper.mode(), None);
}

// covers: C7, C8
#[test]
fn undeclared_mode_error() {
    for mode in Mode::ALL {
        let rpc = JsonRpcError::undeclared_mode(mode);
        assert_eq!(rpc.code(), -32602);
        assert_eq!(rpc.reason(), Some(Reason::UndeclaredMode));
        let data = rpc.data().unwrap();
        assert_eq!(data["reason"], "undeclared_mode");
        assert_eq!(data["mode"], mode.as_str());
        assert_eq!(data["pointer"], "/mode");
        assert!(data["message"].as_str().unwrap().contains(mode.as_str()));
        // The full response envelope, and serde agrees with to_json.
        let response = rpc.to_response(&RequestId::string("q"));
        assert_eq!(response["jsonrpc"], "2.0");
        assert_eq!(response["id"], "q");
        assert_eq!(response["error"], rpc.to_json());
        assert_eq!(serde_json::to_value(&rpc).unwrap(), rpc.to_json());
        assert_eq!(JsonRpcError::from_json(&rpc.to_json()).unwrap(), rpc);
    }
    // Every reason has a distinct, stable name that reads back.
    let names: std::collections::HashSet<&str> = Reason::ALL.iter().map(|r| r.as_str()).collect();
    assert_eq!(names.len(), Reason::ALL.len());
    for reason in Reason::ALL {
        assert_eq!(Reason::from_wire(reason.as_str()), Some(reason));
    }
}

// covers: D7, D8, E6
#[test]
fn client_reads_schemas_leniently() {
    let json = with("form", |m| {
        m.insert(
            "requestedSchema".into(),
            json!({ "type": "object", "properties": {
                "when": { "type": "string", "format": "time" },
                "rating": { "type": "_stars", "max": 5 }
            } }),
        );
    });
    // Strict: refused (unknown format, unknown type).
    let (_, kind, _) = refused(json.clone());
    assert!(matches!(kind, ParamsErrorKind::Schema(_)));
    // Lenient: kept, unrenderable property flagged, written back as received.
    let request = CreateElicitation::from_json_lenient(&json).unwrap();
    let schema = request.requested_schema().unwrap();
    assert!(!schema.is_renderable());
    assert_eq!(
        request.to_json()["requestedSchema"]["properties"]["rating"],
        json!({ "type": "_stars", "max": 5 })
    );
    assert_eq!(
        request.to_json()["requestedSchema"]["properties"]["when"]["format"],
        "time"
    );
}

// covers: E7, C6
#[test]
fn malformed_meta_reads_as_absent() {
    for meta in [json!(5), json!("x"), json!(null), json!([1])] {
        let request = CreateElicitation::from_json(&with("form", |m| {
            drop(m.insert("_meta".into(), meta.clone()))
        }))
        .unwrap();
        assert!(request.meta().is_none());
        assert!(request.to_json().get("_meta").is_none());
    }
}

// covers: E1, F1
#[test]
fn static_schemas_are_borrowed_and_equal_to_owned() {
    static SCHEMA: std::sync::OnceLock<RequestedSchema> = std::sync::OnceLock::new();
    let schema: &'static RequestedSchema = SCHEMA.get_or_init(schema);
    let borrowed = CreateElicitation::form_static(Scope::session("s"), "m", schema);
    let owned = CreateElicitation::form(Scope::session("s"), "m", schema.clone());
    assert_eq!(borrowed, owned);
    assert_eq!(borrowed.to_json(), owned.to_json());
    assert!(std::ptr::eq(borrowed.requested_schema().unwrap(), schema));
    assert_acp("CreateElicitationRequest", &borrowed.to_json());
}

// covers: E1
#[test]
fn serde_uses_the_strict_parse() {
    let json = with("form", |m| {
        m.insert(
            "requestedSchema".into(),
            json!({ "type": "object", "properties": { "x": { "type": "_new" } } }),
        );
    });
    assert!(serde_json::from_value::<CreateElicitation>(json).is_err());
    let ok: CreateElicitation = serde_json::from_value(with("url", |_| {})).unwrap();
    assert_eq!(ok.mode(), Some(Mode::Url));
    assert_eq!(ok.elicitation_id(), Some("e"));
    assert_eq!(ok.target_url(), Some("https://a.example/"));
}

// ---------------------------------------------------------------------------------------
// ACP v1 and v2 (schema 1.20.0), each by its rules. The JSON Schema oracle's v2 is an
// older snapshot that still has `pattern`: it checks that each form is valid, and
// `tests/acp_schema_1_20` checks the same output against the 1.20.0 crate, the
// authority for what v2 leaves out and refuses.

fn by_version(
    json: &Value,
    version: AcpVersion,
) -> Result<CreateElicitation, elicit::protocol::ParamsError> {
    CreateElicitation::parse_for(json, &ParseOptions::strict(), version)
}

// covers: F1, F2, M7, D13
#[test]
fn v2_leaves_the_pattern_out_and_says_it_v1_keeps_it() {
    let request = CreateElicitation::form(Scope::tool_call("s1", "t1"), "Refactor?", schema());
    let v1 = request.to_json_for(AcpVersion::V1).expect("v1");
    let v2 = request.to_json_for(AcpVersion::V2).expect("v2");
    assert_acp("CreateElicitationRequest", &v1);
    assert_acp("CreateElicitationRequest", &v2);
    assert_eq!(v1, request.to_json());
    assert_eq!(
        v1["requestedSchema"]["properties"]["ticket"]["pattern"],
        "^[A-Z]+-[0-9]+$"
    );
    let ticket = &v2["requestedSchema"]["properties"]["ticket"];
    assert_eq!(
        ticket,
        &json!({ "type": "string", "description": "must match the pattern ^[A-Z]+-[0-9]+$", "maxLength": 20 })
    );
    // Only `pattern` differs, and the order of properties is the same (D13).
    let names = |json: &Value| -> Vec<String> {
        json["requestedSchema"]["properties"]
            .as_object()
            .expect("properties")
            .keys()
            .cloned()
            .collect()
    };
    assert_eq!(names(&v1), names(&v2));
    let mut without = v1.clone();
    without["requestedSchema"]["properties"]["ticket"] = ticket.clone();
    assert_eq!(without, v2);
    // The whole JSON-RPC request carries the same params.
    let rpc = request
        .to_request_for(&RequestId::number(4), AcpVersion::V2)
        .expect("v2 request");
    assert_eq!(rpc["params"], v2);
    assert_eq!(rpc["id"], 4);
}

// covers: E3, D1
#[test]
fn both_versions_refuse_two_scopes_and_a_tool_call_without_a_session() {
    let schema = json!({ "type": "object", "properties": {} });
    for version in [AcpVersion::V1, AcpVersion::V2] {
        let both = by_version(
            &json!({ "mode": "form", "message": "m", "requestedSchema": schema,
                "sessionId": "s", "requestId": 1 }),
            version,
        )
        .expect_err("two scopes");
        assert_eq!(both.kind(), &ParamsErrorKind::BothScopes, "{version}");
        assert_eq!(both.to_jsonrpc_error().code(), INVALID_PARAMS);
        assert_eq!(both.reason(), Reason::BadScope);
        let tool = by_version(
            &json!({ "mode": "form", "message": "m", "requestedSchema": schema,
                "requestId": 1, "toolCallId": "t" }),
            version,
        )
        .expect_err("a tool call outside a session");
        assert_eq!(
            tool.kind(),
            &ParamsErrorKind::ToolCallWithoutSession,
            "{version}"
        );
        assert_eq!(tool.pointer(), "/toolCallId");
    }
}

// covers: E3, C6
#[test]
fn a_null_request_id_and_a_null_tool_call_are_v1_only() {
    let url = json!({ "mode": "url", "message": "Sign in", "elicitationId": "e",
        "url": "https://auth.example.com/", "requestId": null });
    let read = by_version(&url, AcpVersion::V1).expect("v1 reads a null id");
    assert!(read.scope().request_id().is_some_and(RequestId::is_null));
    assert_eq!(
        read.to_json_for(AcpVersion::V1)
            .expect("forwarded as received"),
        url
    );
    let refused = by_version(&url, AcpVersion::V2).expect_err("v2 ids are never null");
    assert_eq!(refused.kind(), &ParamsErrorKind::NullRequestId);
    assert_eq!(refused.pointer(), "/requestId");
    assert_eq!(refused.reason(), Reason::BadScope);
    assert_eq!(
        read.to_json_for(AcpVersion::V2)
            .expect_err("not writable in v2")
            .kind(),
        &ParamsErrorKind::NullRequestId
    );
    // A `null` `toolCallId` beside `requestId`: absent in v1 (C6), refused in v2.
    let mut tool = url.clone();
    tool["requestId"] = json!(5);
    tool["toolCallId"] = Value::Null;
    assert!(by_version(&tool, AcpVersion::V1).is_ok());
    assert_eq!(
        by_version(&tool, AcpVersion::V2).expect_err("v2").kind(),
        &ParamsErrorKind::ToolCallWithoutSession
    );
}

// covers: E3
#[test]
fn protocol_versions_are_read_by_number() {
    assert_eq!(AcpVersion::from_number(1), Some(AcpVersion::V1));
    assert_eq!(AcpVersion::from_number(2), Some(AcpVersion::V2));
    assert_eq!(AcpVersion::from_number(0), None);
    assert_eq!(AcpVersion::from_number(3), None);
    assert_eq!(AcpVersion::V2.number(), 2);
    assert_eq!(AcpVersion::V2.to_string(), "ACP v2");
    assert!(AcpVersion::V1.carries_pattern() && !AcpVersion::V2.carries_pattern());
    assert!(AcpVersion::V2.must_cancel_abandoned_requests());
    assert!(!AcpVersion::V1.must_cancel_abandoned_requests());
}
