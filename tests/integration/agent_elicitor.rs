//! The agent's `Elicitor`: the requests it builds are valid ACP, and it refuses, before
//! anything is sent, every request the spec forbids: an undeclared mode (C7), a form
//! asking for a secret (F5, F6) or carrying a link (F7), an unsafe URL (S1).
// The `Elicitor`'s URL mode and the registry need the `url` feature (on by default).
#![cfg(feature = "url")]

use crate::common;
use crate::forms;

use elicit::agent::{
    ConnectionId, Elicitor, RefusedError, RegistryLimits, UrlOutcome, UrlRegistry,
};
use elicit::agent::{UnsafeUrlError, UrlPolicy};
use elicit::protocol::{ElicitationCapabilities, ElicitationResponse, Mode, RequestId, Scope};
use elicit::schema::FindingKind;
use elicit::{Elicit, Elicited, RequestedSchema};
use forms::{Refactor, Strategy};
use serde_json::{json, Value};

/// A form whose field description carries a link.
#[derive(Elicit, Debug)]
struct WithLink {
    /// Read https://docs.example.com/terms first
    agree: bool,
}

fn caps(json: Value) -> ElicitationCapabilities {
    ElicitationCapabilities::from_json(Some(&json))
}

fn both() -> ElicitationCapabilities {
    caps(json!({ "form": {}, "url": {} }))
}

fn elicitor(capabilities: ElicitationCapabilities) -> Elicitor {
    Elicitor::new(capabilities, ConnectionId::new())
}

fn schema(json: Value) -> RequestedSchema {
    RequestedSchema::from_json(&json).unwrap()
}

fn profile_schema() -> RequestedSchema {
    schema(json!({
        "type": "object",
        "properties": {
            "name": { "type": "string", "title": "Full name" },
            "email": { "type": "string", "format": "email", "title": "Email address" },
            "username": { "type": "string" }
        },
        "required": ["name"]
    }))
}

// covers: E1, E2, E3, E4, F1, F2, C7
#[test]
fn typed_form_requests_are_valid_acp() {
    let elicitor = elicitor(caps(json!({ "form": {} })));
    for scope in [
        Scope::session("sess-1"),
        Scope::tool_call("sess-1", "call-2"),
        Scope::request(7),
        Scope::request("req-a"),
    ] {
        let request = elicitor
            .form::<Refactor>(scope.clone(), "How should I approach this refactor?")
            .unwrap();
        let wire = request.to_json();
        assert_eq!(wire["mode"], "form");
        assert_eq!(wire["message"], "How should I approach this refactor?");
        assert_eq!(
            &wire["requestedSchema"],
            Refactor::requested_schema().as_json()
        );
        assert_eq!(request.scope(), &scope);
        common::assert_valid_acp("CreateElicitationRequest", &wire);
    }
}

// covers: F1, F2, E1
#[test]
fn dynamic_form_requests_are_valid_acp() {
    let elicitor = elicitor(both());
    let request = elicitor
        .form_schema(Scope::session("s"), "Who are you?", &profile_schema())
        .unwrap();
    assert_eq!(
        &request.to_json()["requestedSchema"],
        profile_schema().as_json()
    );
    common::assert_valid_acp("CreateElicitationRequest", &request.to_json());
}

// covers: C7, C2, C4, C3
#[test]
fn form_is_refused_when_the_client_did_not_declare_it() {
    let no_form = [
        ElicitationCapabilities::from_json(None), // C2: omitted
        ElicitationCapabilities::from_json(Some(&Value::Null)), // C2: null
        caps(json!({})),                          // C4: present, no mode
        caps(json!({ "form": null, "url": null })), // C4
        caps(json!({ "url": {} })),               // C3: URL only
        caps(json!({ "form": 5 })),               // C6: malformed reads as absent
    ];
    for capabilities in no_form {
        let elicitor = elicitor(capabilities.clone());
        let typed = elicitor
            .form::<Refactor>(Scope::session("s"), "m")
            .unwrap_err();
        assert_eq!(
            typed,
            RefusedError::ModeNotSupported(Mode::Form),
            "{capabilities:?}"
        );
        assert!(typed.is_unsupported_mode());
        assert_eq!(typed.unsupported_mode(), Some(Mode::Form));
        let dynamic = elicitor
            .form_schema(Scope::session("s"), "m", &profile_schema())
            .unwrap_err();
        assert_eq!(dynamic.unsupported_mode(), Some(Mode::Form));
    }
}

// covers: C7, R5
#[test]
fn a_caller_degrades_on_an_undeclared_mode() {
    // What an agent does: branch on the error and take another path, here a default.
    fn passes_or_default(elicitor: &Elicitor) -> u8 {
        match elicitor.form::<Refactor>(Scope::session("s"), "How many passes?") {
            Ok(_request) => unreachable!("this client declared no form mode"),
            Err(e) if e.is_unsupported_mode() => 2,
            Err(e) => panic!("not a degradable error: {e}"),
        }
    }
    assert_eq!(passes_or_default(&elicitor(caps(json!({ "url": {} })))), 2);
    let error = elicitor(caps(json!({})))
        .form::<Refactor>(Scope::session("s"), "m")
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        "the client did not declare the `form` elicitation mode; degrade to another flow or fail \
         the operation; see C7 (an agent asks only in a mode the client declared)"
    );
}

// covers: C7, F6
#[test]
fn url_is_refused_when_the_client_did_not_declare_it_and_never_becomes_a_form() {
    let registry = UrlRegistry::new();
    let connection = ConnectionId::new();
    let form_only = Elicitor::new(caps(json!({ "form": {} })), connection).with_registry(&registry);
    let error = form_only
        .url(
            Scope::session("s"),
            "Sign in to GitHub",
            "https://github.com/login/oauth/authorize",
        )
        .unwrap_err();
    assert_eq!(error, RefusedError::ModeNotSupported(Mode::Url));
    assert!(error.is_unsupported_mode());
    // F6: nothing was recorded, nothing was built; the only way forward is another
    // secure flow or failure. (No API turns a URL request into a form.)
    assert_eq!(registry.outstanding(connection), 0);

    for capabilities in [
        ElicitationCapabilities::from_json(None),
        caps(json!({})),
        caps(json!({ "url": null })),
    ] {
        let error = elicitor(capabilities)
            .url(Scope::session("s"), "m", "https://example.com/")
            .unwrap_err();
        assert_eq!(error.unsupported_mode(), Some(Mode::Url));
    }
}

// covers: F5, F6
#[test]
fn forms_asking_for_secrets_are_refused_and_point_to_url_mode() {
    let secrets = [
        json!({ "password": { "type": "string" } }),
        json!({ "key": { "type": "string", "title": "API key" } }),
        json!({ "answer": { "type": "string", "description": "Paste your refresh token" } }),
        json!({ "recovery_codes": { "type": "string" } }),
        json!({ "card": { "type": "string", "title": "Card number" } }),
        json!({ "pk": { "type": "string", "title": "Private key" } }),
    ];
    for properties in secrets {
        let schema = schema(json!({ "type": "object", "properties": properties }));
        // Refused whatever the client supports: with both modes, with URL only, and
        // with none, so that the bug shows with every client.
        for capabilities in [both(), caps(json!({ "url": {} })), caps(json!({}))] {
            let error = elicitor(capabilities)
                .form_schema(Scope::session("s"), "Set up the integration", &schema)
                .unwrap_err();
            let RefusedError::SecretInForm(findings) = &error else {
                panic!("expected a secret refusal for {properties}, got {error:?}");
            };
            assert!(!findings.is_empty());
            assert!(findings
                .iter()
                .all(|f| matches!(f.kind, FindingKind::Secret(_))));
            assert!(!error.is_unsupported_mode());
            let text = error.to_string();
            assert!(text.contains("use URL mode"), "{text}");
        }
    }
}

// covers: F5
#[test]
fn ordinary_profile_data_is_not_a_secret() {
    let elicitor = elicitor(both());
    assert!(elicitor
        .form_schema(Scope::session("s"), "Tell us about you", &profile_schema())
        .is_ok());
    // A form *about* a password reset may say so in its own title.
    let reset = schema(json!({
        "type": "object", "title": "Reset your password",
        "properties": { "email": { "type": "string", "format": "email" } }
    }));
    assert!(elicitor
        .form_schema(Scope::session("s"), "Where should we write?", &reset)
        .is_ok());
}

// covers: F7
#[test]
fn links_in_forms_are_refused_unless_allowed() {
    let link_in_description = schema(json!({
        "type": "object",
        "properties": { "agree": { "type": "boolean", "description": "See https://example.com/terms" } }
    }));
    let strict = elicitor(both());
    let error = strict
        .form_schema(Scope::session("s"), "Agree?", &link_in_description)
        .unwrap_err();
    let RefusedError::LinkInForm(findings) = &error else {
        panic!("{error:?}")
    };
    assert_eq!(findings[0].property.as_deref(), Some("agree"));
    assert!(error.to_string().contains("clickable URLs"));

    // The message is a field of the request too.
    let error = strict
        .form_schema(
            Scope::session("s"),
            "Open https://evil.example/login first",
            &profile_schema(),
        )
        .unwrap_err();
    let RefusedError::LinkInForm(findings) = &error else {
        panic!("{error:?}")
    };
    assert_eq!(findings[0].field, "message");
    assert!(
        matches!(&findings[0].kind, FindingKind::Url { text } if text == "https://evil.example/login")
    );

    // Typed forms too.
    assert!(matches!(
        strict.form::<WithLink>(Scope::session("s"), "Agree?"),
        Err(RefusedError::LinkInForm(_))
    ));

    let relaxed = elicitor(both()).allow_links_in_forms(true);
    assert!(relaxed
        .form_schema(Scope::session("s"), "Agree?", &link_in_description)
        .is_ok());
    assert!(relaxed
        .form::<WithLink>(Scope::session("s"), "Agree?")
        .is_ok());
}

// covers: E6, F1
#[test]
fn schemas_a_client_may_not_read_are_refused() {
    let lenient = RequestedSchema::from_json_lenient(&json!({
        "type": "object",
        "properties": { "where": { "type": "geo-point" } }
    }))
    .unwrap();
    let error = elicitor(both())
        .form_schema(Scope::session("s"), "Where?", &lenient)
        .unwrap_err();
    assert!(matches!(error, RefusedError::InvalidSchema(_)), "{error:?}");
}

// covers: E3, D1
#[test]
fn a_null_request_id_is_never_sent() {
    let null: RequestId = serde_json::from_value(json!(null)).unwrap();
    let scope = Scope::Request { request_id: null };
    let elicitor = elicitor(both());
    assert_eq!(
        elicitor.form::<Refactor>(scope.clone(), "m").unwrap_err(),
        RefusedError::NullRequestId
    );
    assert_eq!(
        elicitor
            .url(scope, "m", "https://example.com/")
            .unwrap_err(),
        RefusedError::NullRequestId
    );
}

// covers: U1, U4, E1, S1
#[test]
fn url_requests_are_valid_acp_with_unguessable_ids() {
    let elicitor = elicitor(caps(json!({ "url": {} })));
    let mut seen = std::collections::HashSet::new();
    for scope in [
        Scope::session("s"),
        Scope::tool_call("s", "c"),
        Scope::request(3),
    ] {
        let pending = elicitor
            .url(
                scope,
                "Connect your calendar",
                "https://auth.example.com/connect?state=x1",
            )
            .unwrap();
        let id = pending.elicitation_id().to_owned();
        // 128 bits, hex.
        assert_eq!(id.len(), 32);
        assert!(id.bytes().all(|b| b.is_ascii_hexdigit()));
        assert!(seen.insert(id.clone()));
        let wire = pending.request().to_json();
        assert_eq!(wire["mode"], "url");
        assert_eq!(wire["elicitationId"], id.as_str());
        assert_eq!(wire["url"], "https://auth.example.com/connect?state=x1");
        common::assert_valid_acp("CreateElicitationRequest", &wire);
    }
    // The URL sent is the one checked, as the policy serialized it.
    let pending = elicitor
        .url(Scope::session("s"), "m", "HTTPS://Auth.Example.COM/a b")
        .unwrap();
    assert_eq!(
        pending.request().target_url(),
        Some("https://auth.example.com/a%20b")
    );
}

// covers: U4
#[test]
fn ids_are_unique_among_many() {
    let elicitor = Elicitor::new(both(), ConnectionId::new()).with_registry(
        &UrlRegistry::with_limits(RegistryLimits {
            max_outstanding_per_connection: 5000,
            max_finished: 16,
        }),
    );
    let mut seen = std::collections::HashSet::new();
    for _ in 0..2000 {
        let pending = elicitor
            .url(Scope::session("s"), "m", "https://example.com/")
            .unwrap();
        assert!(seen.insert(pending.elicitation_id().to_owned()));
    }
}

// covers: S1
#[test]
fn plain_http_is_for_loopback_development_only() {
    let dev = elicitor(both());
    assert!(dev
        .url(Scope::session("s"), "m", "http://localhost:8080/callback")
        .is_ok());
    assert!(dev
        .url(Scope::session("s"), "m", "http://127.0.0.1/cb")
        .is_ok());
    let production = elicitor(both()).with_url_policy(UrlPolicy::new().allow_loopback_http(false));
    assert!(matches!(
        production.url(Scope::session("s"), "m", "http://localhost:8080/callback"),
        Err(RefusedError::UnsafeUrl(UnsafeUrlError::NotHttps { .. }))
    ));
}

// covers: D12, U4
#[test]
fn outstanding_url_elicitations_are_bounded_per_connection() {
    let registry = UrlRegistry::with_limits(RegistryLimits {
        max_outstanding_per_connection: 2,
        max_finished: 8,
    });
    let a = Elicitor::new(both(), ConnectionId::new()).with_registry(&registry);
    let b = Elicitor::new(both(), ConnectionId::new()).with_registry(&registry);
    let first = a
        .url(Scope::session("s"), "m", "https://example.com/")
        .unwrap();
    a.url(Scope::session("s"), "m", "https://example.com/")
        .unwrap();
    let error = a
        .url(Scope::session("s"), "m", "https://example.com/")
        .unwrap_err();
    assert_eq!(error, RefusedError::TooManyOutstanding { limit: 2 });
    // Another connection has its own allowance.
    assert!(b
        .url(Scope::session("s"), "m", "https://example.com/")
        .is_ok());
    // Finishing one frees a place.
    a.complete(first.elicitation_id(), None).unwrap();
    assert!(a
        .url(Scope::session("s"), "m", "https://example.com/")
        .is_ok());
}

// covers: F3, R1, R2, R5
#[test]
fn typed_answers_are_validated_again() {
    let ok = ElicitationResponse::from_json(&json!({
        "action": "accept", "content": { "strategy": "Balanced", "passes": 3.0 }
    }))
    .unwrap();
    assert_eq!(
        Refactor::from_response(&ok).unwrap(),
        Elicited::Accepted(Refactor {
            strategy: Strategy::Balanced,
            passes: 3,
            notify: None
        })
    );
    // F3: the client's word is not taken for it.
    let out_of_range = ElicitationResponse::from_json(&json!({
        "action": "accept", "content": { "strategy": "Balanced", "passes": 9 }
    }))
    .unwrap();
    assert!(Refactor::from_response(&out_of_range).is_err());
    assert_eq!(
        Refactor::from_response(&ElicitationResponse::decline()).unwrap(),
        Elicited::Declined
    );
    assert_eq!(
        Refactor::from_response(&ElicitationResponse::cancel()).unwrap(),
        Elicited::Cancelled
    );
}

// covers: U2, U3, R4, R5, E6
#[test]
fn url_outcomes_never_read_content() {
    let accept_with_token = ElicitationResponse::from_json(&json!({
        "action": "accept", "content": { "access_token": "leaked" }
    }))
    .unwrap();
    assert_eq!(
        UrlOutcome::from_response(&accept_with_token).unwrap(),
        UrlOutcome::Consented
    );
    assert!(UrlOutcome::Consented.is_consented());
    assert_eq!(
        UrlOutcome::from_response(&ElicitationResponse::accept_without_content()).unwrap(),
        UrlOutcome::Consented
    );
    assert_eq!(
        UrlOutcome::from_response(&ElicitationResponse::decline()).unwrap(),
        UrlOutcome::Declined
    );
    assert_eq!(
        UrlOutcome::from_response(&ElicitationResponse::cancel()).unwrap(),
        UrlOutcome::Cancelled
    );
    let unknown = ElicitationResponse::from_json(&json!({ "action": "_later" })).unwrap();
    let error = UrlOutcome::from_response(&unknown).unwrap_err();
    assert_eq!(error.action, "_later");
    assert!(error.to_string().contains("not as consent"));
}

// covers: E5
#[test]
fn connection_ids_are_unique() {
    let ids: std::collections::HashSet<_> = (0..1000).map(|_| ConnectionId::new()).collect();
    assert_eq!(ids.len(), 1000);
}
