//! `agent/elicitor.rs`: the `Elicitor` refuses, before anything is sent, every request
//! the spec forbids: a mode the client did not declare (C7), a form that asks for a
//! secret (F5, F6) or carries a link (F7), an unsafe URL (S1), a `null` request id
//! (E3); and it binds URL elicitations to its connection and user (E5, S6).

use std::collections::HashSet;
use std::error::Error as _;
use std::sync::OnceLock;

use elicit_core::agent::{ConnectionId, Elicitor, RefusedError, UserId};
use elicit_core::protocol::{CreateElicitation, ElicitationCapabilities, Mode, RequestId, Scope};
use elicit_core::schema::{Finding, FindingKind, RequestedSchema};
use elicit_core::{Elicit, ValidationErrors};
use serde_json::{json, Value};
#[cfg(feature = "url")]
use {
    elicit_core::agent::{CompletionError, UrlOutcome, UrlRegistry, UrlState},
    elicit_core::agent::{UnsafeUrlError, UrlPolicy},
    elicit_core::protocol::{CompleteElicitation, ElicitationResponse},
};

fn caps(json: Value) -> ElicitationCapabilities {
    ElicitationCapabilities::from_json(Some(&json))
}

fn both() -> ElicitationCapabilities {
    caps(json!({ "form": {}, "url": {} }))
}

fn form_only() -> ElicitationCapabilities {
    caps(json!({ "form": {} }))
}

fn url_only() -> ElicitationCapabilities {
    caps(json!({ "url": {} }))
}

/// Capabilities that declare no mode at all, in every way a client can say so.
fn no_mode() -> [ElicitationCapabilities; 4] {
    [
        ElicitationCapabilities::from_json(None), // C2: omitted
        ElicitationCapabilities::from_json(Some(&Value::Null)), // C2: null
        caps(json!({})),                          // C4: present, no mode
        caps(json!({ "form": null, "url": null })), // C4
    ]
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

fn null_request_scope() -> Scope {
    let null: RequestId = serde_json::from_value(json!(null)).unwrap();
    Scope::Request { request_id: null }
}

/// A typed form written by hand, as `#[derive(Elicit)]` would write it.
struct Deploy {
    confirm: bool,
}

impl Elicit for Deploy {
    fn requested_schema() -> &'static RequestedSchema {
        static SCHEMA: OnceLock<RequestedSchema> = OnceLock::new();
        SCHEMA.get_or_init(|| {
            schema(json!({
                "type": "object",
                "properties": { "confirm": { "type": "boolean", "title": "Deploy now" } },
                "required": ["confirm"]
            }))
        })
    }

    fn from_content(content: &Value) -> Result<Self, ValidationErrors> {
        Self::requested_schema().validate(content)?;
        Ok(Deploy {
            confirm: content["confirm"] == json!(true),
        })
    }

    fn to_content(&self) -> Value {
        json!({ "confirm": self.confirm })
    }
}

/// A typed form whose field description carries a link (F7).
struct WithLink;

impl Elicit for WithLink {
    fn requested_schema() -> &'static RequestedSchema {
        static SCHEMA: OnceLock<RequestedSchema> = OnceLock::new();
        SCHEMA.get_or_init(|| {
            schema(json!({
                "type": "object",
                "properties": {
                    "agree": {
                        "type": "boolean",
                        "description": "Read https://docs.example.com/terms first"
                    }
                }
            }))
        })
    }

    fn from_content(content: &Value) -> Result<Self, ValidationErrors> {
        Self::requested_schema().validate(content)?;
        Ok(WithLink)
    }

    fn to_content(&self) -> Value {
        json!({})
    }
}

// covers: E5
#[test]
fn connection_ids_are_unique_and_printable() {
    let ids: HashSet<ConnectionId> = (0..1000).map(|_| ConnectionId::new()).collect();
    assert_eq!(ids.len(), 1000);
    let names: HashSet<String> = ids.iter().map(ToString::to_string).collect();
    assert_eq!(names.len(), 1000);
    assert!(names.iter().all(|name| !name.is_empty()));
    let connection = ConnectionId::new();
    let elicitor = Elicitor::new(both(), connection);
    assert_eq!(elicitor.connection(), connection);
}

// covers: E5, S6
#[test]
fn user_ids_are_exact_identifiers() {
    let alice = UserId::new("alice");
    assert_eq!(alice.as_str(), "alice");
    assert_eq!(alice.to_string(), "alice");
    assert_eq!(UserId::from("alice"), alice);
    assert_eq!(UserId::from(String::from("alice")), alice);
    assert_ne!(UserId::from("bob"), alice);
    assert_ne!(UserId::from(String::from("Alice")), alice);
    assert_eq!(UserId::from("bob").as_str(), "bob");
}

// covers: E5, S6
#[test]
fn the_authenticated_user_can_be_set_and_changed() {
    let mut elicitor = elicitor(both());
    assert_eq!(elicitor.user(), None);
    elicitor.set_user(Some(UserId::new("alice")));
    assert_eq!(elicitor.user(), Some(&UserId::new("alice")));
    elicitor.set_user(Some(UserId::new("bob")));
    assert_eq!(elicitor.user(), Some(&UserId::new("bob")));
    elicitor.set_user(None);
    assert_eq!(elicitor.user(), None);
    let elicitor = elicitor.with_user(UserId::new("carol"));
    assert_eq!(elicitor.user(), Some(&UserId::new("carol")));
}

// covers: C3, C7
#[test]
fn supports_reports_exactly_the_declared_modes() {
    let cases = [
        (both(), true, true),
        (form_only(), true, false),
        (url_only(), false, true),
        (caps(json!({ "form": 5 })), false, false), // C6: malformed reads as absent
    ];
    for (capabilities, form, url) in cases {
        let elicitor = elicitor(capabilities.clone());
        assert_eq!(elicitor.capabilities(), &capabilities);
        assert_eq!(elicitor.supports(Mode::Form), form, "{capabilities:?}");
        assert_eq!(elicitor.supports(Mode::Url), url, "{capabilities:?}");
    }
    for capabilities in no_mode() {
        let elicitor = elicitor(capabilities.clone());
        assert_eq!(elicitor.capabilities(), &capabilities);
        assert!(!elicitor.supports(Mode::Form));
        assert!(!elicitor.supports(Mode::Url));
    }
}

// covers: E1, E2, E3, E4, F1, C7
#[test]
fn form_requests_carry_the_schema_scope_and_message() {
    let elicitor = elicitor(form_only());
    for scope in [
        Scope::session("sess-1"),
        Scope::tool_call("sess-1", "call-2"),
        Scope::request(7),
        Scope::request("req-a"),
    ] {
        let typed = elicitor
            .form::<Deploy>(scope.clone(), "Deploy the release?")
            .unwrap();
        assert_eq!(typed.mode(), Some(Mode::Form));
        assert_eq!(typed.message(), "Deploy the release?");
        assert_eq!(typed.scope(), &scope);
        assert_eq!(typed.requested_schema(), Some(Deploy::requested_schema()));
        assert_eq!(typed.to_json()["mode"], "form");

        let dynamic = elicitor
            .form_schema(scope.clone(), "Who are you?", &profile_schema())
            .unwrap();
        assert_eq!(dynamic.mode(), Some(Mode::Form));
        assert_eq!(dynamic.message(), "Who are you?");
        assert_eq!(dynamic.scope(), &scope);
        assert_eq!(dynamic.requested_schema(), Some(&profile_schema()));
        assert_eq!(
            &dynamic.to_json()["requestedSchema"],
            profile_schema().as_json()
        );
    }
}

// covers: C7, C2, C3, C4, C6
#[test]
fn form_is_refused_when_the_client_did_not_declare_it() {
    let mut without_form = no_mode().to_vec();
    without_form.push(url_only());
    without_form.push(caps(json!({ "form": 5 })));
    for capabilities in without_form {
        let elicitor = elicitor(capabilities.clone());
        let typed = elicitor
            .form::<Deploy>(Scope::session("s"), "m")
            .unwrap_err();
        assert_eq!(
            typed,
            RefusedError::ModeNotSupported(Mode::Form),
            "{capabilities:?}"
        );
        let dynamic = elicitor
            .form_schema(Scope::session("s"), "m", &profile_schema())
            .unwrap_err();
        assert_eq!(dynamic, RefusedError::ModeNotSupported(Mode::Form));
    }
}

// covers: C7, R5
#[test]
fn an_undeclared_mode_is_an_error_to_degrade_on() {
    let form = RefusedError::ModeNotSupported(Mode::Form);
    assert!(form.is_unsupported_mode());
    assert_eq!(form.unsupported_mode(), Some(Mode::Form));
    let url = RefusedError::ModeNotSupported(Mode::Url);
    assert!(url.is_unsupported_mode());
    assert_eq!(url.unsupported_mode(), Some(Mode::Url));
    // Other refusals are not to be degraded around: the request itself is wrong.
    for other in [
        RefusedError::NullRequestId,
        RefusedError::LinkInForm(Vec::new()),
        RefusedError::SecretInForm(Vec::new()),
    ] {
        assert!(!other.is_unsupported_mode(), "{other:?}");
        assert_eq!(other.unsupported_mode(), None, "{other:?}");
    }
    // What an agent does: branch on the error and take another path.
    let error = elicitor(url_only())
        .form::<Deploy>(Scope::session("s"), "Deploy?")
        .unwrap_err();
    let fallback = match error.unsupported_mode() {
        Some(Mode::Form) => "ask in the chat",
        _ => panic!("{error:?}"),
    };
    assert_eq!(fallback, "ask in the chat");
    let text = error.to_string();
    assert!(text.contains("`form`"), "{text}");
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
        // Refused whatever the client supports, so that the bug shows with every
        // client; and never turned into a "mode not supported" to degrade around.
        let mut all = vec![both(), form_only(), url_only()];
        all.extend(no_mode());
        for capabilities in all {
            let error = elicitor(capabilities)
                .allow_links_in_forms(true)
                .form_schema(Scope::session("s"), "Set up the integration", &schema)
                .unwrap_err();
            let RefusedError::SecretInForm(findings) = &error else {
                panic!("expected a secret refusal for {properties}, got {error:?}");
            };
            assert!(!findings.is_empty());
            assert!(findings.iter().all(Finding::is_secret));
            assert!(!error.is_unsupported_mode());
            let text = error.to_string();
            assert!(text.contains("URL mode"), "{text}");
            assert!(text.contains(&findings[0].to_string()), "{text}");
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
        "properties": {
            "agree": { "type": "boolean", "description": "See https://example.com/terms" }
        }
    }));
    let strict = elicitor(both());
    let error = strict
        .form_schema(Scope::session("s"), "Agree?", &link_in_description)
        .unwrap_err();
    let RefusedError::LinkInForm(findings) = &error else {
        panic!("{error:?}")
    };
    assert_eq!(findings.len(), 1);
    assert_eq!(findings[0].property.as_deref(), Some("agree"));
    assert!(!findings[0].is_secret());
    assert!(!error.is_unsupported_mode());

    // The message is a field of the request too (F7: "any field").
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
    assert_eq!(findings.len(), 1);
    assert_eq!(findings[0].property, None);
    assert_eq!(findings[0].field, "message");
    assert!(matches!(
        &findings[0].kind,
        FindingKind::Url { text } if text == "https://evil.example/login"
    ));

    // Both at once: every link is reported, the message's last.
    let error = strict
        .form_schema(
            Scope::session("s"),
            "Open https://evil.example/login first",
            &link_in_description,
        )
        .unwrap_err();
    let RefusedError::LinkInForm(findings) = &error else {
        panic!("{error:?}")
    };
    assert_eq!(findings.len(), 2);
    assert_eq!(findings[1].field, "message");

    // Typed forms too.
    assert!(matches!(
        strict.form::<WithLink>(Scope::session("s"), "Agree?"),
        Err(RefusedError::LinkInForm(_))
    ));
    assert!(matches!(
        strict.form::<Deploy>(Scope::session("s"), "See https://example.com/notes"),
        Err(RefusedError::LinkInForm(_))
    ));

    let relaxed = elicitor(both()).allow_links_in_forms(true);
    assert!(relaxed
        .form_schema(Scope::session("s"), "Agree?", &link_in_description)
        .is_ok());
    assert!(relaxed
        .form_schema(
            Scope::session("s"),
            "Open https://evil.example/login first",
            &profile_schema()
        )
        .is_ok());
    assert!(relaxed
        .form::<WithLink>(Scope::session("s"), "Agree?")
        .is_ok());
    // Allowing links allows nothing else: still no form mode means no form.
    assert_eq!(
        elicitor(url_only())
            .allow_links_in_forms(true)
            .form::<WithLink>(Scope::session("s"), "Agree?")
            .unwrap_err(),
        RefusedError::ModeNotSupported(Mode::Form)
    );
    // And it can be turned off again.
    assert!(matches!(
        relaxed
            .allow_links_in_forms(false)
            .form::<WithLink>(Scope::session("s"), "Agree?"),
        Err(RefusedError::LinkInForm(_))
    ));
}

// covers: F7, F5, C7
#[test]
fn content_rules_come_before_the_capability() {
    // A form that must never be sent is found even against a client without forms.
    let secret = schema(json!({ "type": "object", "properties": {
        "password": { "type": "string" }
    } }));
    let link = schema(json!({ "type": "object", "properties": {
        "ok": { "type": "boolean", "description": "See https://example.com/" }
    } }));
    for capabilities in no_mode() {
        let elicitor = elicitor(capabilities);
        assert!(matches!(
            elicitor.form_schema(Scope::session("s"), "m", &secret),
            Err(RefusedError::SecretInForm(_))
        ));
        assert!(matches!(
            elicitor.form_schema(Scope::session("s"), "m", &link),
            Err(RefusedError::LinkInForm(_))
        ));
        assert!(matches!(
            elicitor.form::<WithLink>(Scope::session("s"), "m"),
            Err(RefusedError::LinkInForm(_))
        ));
    }
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
    let RefusedError::InvalidSchema(reason) = &error else {
        panic!("{error:?}")
    };
    // The schema error is the cause, reported once: as the source, not in `Display`.
    let source = error.source().expect("the schema error is the source");
    assert_eq!(source.to_string(), reason.to_string());
    assert_eq!(error.to_string(), "the form's schema is invalid");
}

// covers: E3, D1
#[test]
fn a_null_request_id_is_never_sent() {
    let elicitor = elicitor(both());
    assert_eq!(
        elicitor
            .form::<Deploy>(null_request_scope(), "m")
            .unwrap_err(),
        RefusedError::NullRequestId
    );
    assert_eq!(
        elicitor
            .form_schema(null_request_scope(), "m", &profile_schema())
            .unwrap_err(),
        RefusedError::NullRequestId
    );
    // Checked before anything else, with every client.
    for capabilities in no_mode() {
        assert_eq!(
            Elicitor::new(capabilities, ConnectionId::new())
                .form::<Deploy>(null_request_scope(), "m")
                .unwrap_err(),
            RefusedError::NullRequestId
        );
    }
    // A string or integer request id is fine.
    assert!(elicitor.form::<Deploy>(Scope::request(0), "m").is_ok());
    assert!(elicitor.form::<Deploy>(Scope::request(""), "m").is_ok());
    assert!(!RefusedError::NullRequestId.to_string().is_empty());
}

// covers: F5, F7, C7, E3, S1, U4
#[test]
// Without `url` the URL-mode refusals are not pushed, so the list is not extended.
#[cfg_attr(not(feature = "url"), allow(unused_mut, clippy::useless_vec))]
fn every_refusal_explains_itself() {
    let secret = schema(json!({ "type": "object", "properties": {
        "password": { "type": "string", "title": "Private key" }
    } }))
    .lint();
    assert_eq!(secret.len(), 2);
    let links = schema(json!({ "type": "object", "properties": {
        "a": { "type": "boolean", "description": "See https://a.example/" },
        "b": { "type": "boolean", "description": "See https://b.example/" }
    } }))
    .lint();
    assert_eq!(links.len(), 2);
    let params = CreateElicitation::from_json(&json!({})).unwrap_err();
    let mut errors = vec![
        RefusedError::ModeNotSupported(Mode::Form),
        RefusedError::ModeNotSupported(Mode::Url),
        RefusedError::SecretInForm(secret.clone()),
        RefusedError::LinkInForm(links.clone()),
        RefusedError::NullRequestId,
        RefusedError::InvalidParams(params.clone()),
    ];
    #[cfg(feature = "url")]
    errors.extend([
        RefusedError::TooManyOutstanding { limit: 7 },
        RefusedError::RandomnessUnavailable("no entropy".to_owned()),
    ]);
    let messages: HashSet<String> = errors.iter().map(ToString::to_string).collect();
    assert_eq!(messages.len(), errors.len());
    assert!(messages.iter().all(|m| !m.is_empty()));

    // The findings are listed after the reason, in order, and the rules they break
    // are cited last, each with its title.
    for (error, findings) in [(&errors[2], &secret), (&errors[3], &links)] {
        let text = error.to_string();
        let list = format!(": {}; {}; see ", findings[0], findings[1]);
        assert!(text.contains(&list), "{text}");
        let citation = &text[text.find(&list).unwrap() + list.len() - "see ".len()..];
        assert!(
            citation.starts_with("see F") && citation.ends_with(')'),
            "{text}"
        );
        assert_eq!(text.matches(&findings[0].to_string()).count(), 1, "{text}");
    }
    // The wire error is transparent: its text is the error's, and not repeated as a
    // source (a params error has none of its own).
    let error = RefusedError::InvalidParams(params.clone());
    assert_eq!(error.to_string(), params.to_string());
    assert!(error.source().is_none());
    for error in &errors[..5] {
        assert!(error.source().is_none(), "{error:?}");
    }
    #[cfg(feature = "url")]
    {
        let limit = RefusedError::TooManyOutstanding { limit: 7 }.to_string();
        assert!(limit.contains('7'), "{limit}");
        let entropy = RefusedError::RandomnessUnavailable("no entropy".to_owned()).to_string();
        assert!(entropy.contains("no entropy"), "{entropy}");
    }
}

// covers: C7, F6
#[cfg(feature = "url")]
#[test]
fn url_is_refused_when_the_client_did_not_declare_it_and_never_becomes_a_form() {
    let registry = UrlRegistry::new();
    let connection = ConnectionId::new();
    let form_only = Elicitor::new(form_only(), connection).with_registry(&registry);
    let error = form_only
        .url(
            Scope::session("s"),
            "Sign in to GitHub",
            "https://github.com/login/oauth/authorize",
        )
        .unwrap_err();
    assert_eq!(error, RefusedError::ModeNotSupported(Mode::Url));
    assert_eq!(error.unsupported_mode(), Some(Mode::Url));
    let text = error.to_string();
    assert!(text.contains("`url`"), "{text}");
    // F6: nothing was recorded, nothing was built.
    assert_eq!(registry.outstanding(connection), 0);
    for capabilities in no_mode() {
        let error = elicitor(capabilities)
            .url(Scope::session("s"), "m", "https://example.com/")
            .unwrap_err();
        assert_eq!(error, RefusedError::ModeNotSupported(Mode::Url));
    }
    assert!(elicitor(url_only())
        .url(Scope::session("s"), "m", "https://example.com/")
        .is_ok());
}

// covers: U1, U4, E1, E3, S1
#[cfg(feature = "url")]
#[test]
fn url_requests_carry_the_checked_url_and_a_fresh_id() {
    let elicitor = elicitor(url_only());
    let mut seen = HashSet::new();
    for scope in [
        Scope::session("s"),
        Scope::tool_call("s", "c"),
        Scope::request(3),
        Scope::request("r"),
    ] {
        let pending = elicitor
            .url(
                scope.clone(),
                "Connect your calendar",
                "https://auth.example.com/connect?state=x1",
            )
            .unwrap();
        let id = pending.elicitation_id().to_owned();
        assert!(seen.insert(id.clone()));
        let request = pending.request();
        assert_eq!(request.mode(), Some(Mode::Url));
        assert_eq!(request.scope(), &scope);
        assert_eq!(request.message(), "Connect your calendar");
        assert_eq!(request.elicitation_id(), Some(id.as_str()));
        assert_eq!(
            request.target_url(),
            Some("https://auth.example.com/connect?state=x1")
        );
        assert_eq!(elicitor.url_state(&id), Some(UrlState::AwaitingResponse));
    }
    // The URL sent is the one checked, as the policy serialized it.
    let pending = elicitor
        .url(Scope::session("s"), "m", "HTTPS://Auth.Example.COM/a b")
        .unwrap();
    assert_eq!(
        pending.request().target_url(),
        Some("https://auth.example.com/a%20b")
    );
    assert_eq!(
        elicitor
            .url(null_request_scope(), "m", "https://example.com/")
            .unwrap_err(),
        RefusedError::NullRequestId
    );
}

// covers: S1, U3
#[cfg(feature = "url")]
#[test]
fn unsafe_urls_are_refused_with_the_reason() {
    let elicitor = elicitor(both());
    let unsafe_url = |url: &str| match elicitor.url(Scope::session("s"), "Sign in", url) {
        Err(RefusedError::UnsafeUrl(reason)) => reason,
        other => panic!("{url}: {other:?}"),
    };
    assert!(matches!(
        unsafe_url("http://example.com/login"),
        UnsafeUrlError::NotHttps { .. }
    ));
    assert!(matches!(
        unsafe_url("https://bank.example@evil.example/"),
        UnsafeUrlError::UserInfo
    ));
    assert!(matches!(
        unsafe_url("https://example.com/welcome?access_token=abc123"),
        UnsafeUrlError::CredentialParameter { .. }
    ));
    assert!(matches!(
        unsafe_url("https://example.com/hi?login_hint=alice@example.com"),
        UnsafeUrlError::EmailAddress { .. }
    ));
    assert!(matches!(
        unsafe_url("https://example.com/u?phone=5551234"),
        UnsafeUrlError::PersonalDataParameter { .. }
    ));
    assert!(matches!(
        unsafe_url("javascript:alert(1)"),
        UnsafeUrlError::NonWebScheme { .. }
    ));
    assert!(matches!(
        unsafe_url("/relative/path"),
        UnsafeUrlError::Relative
    ));

    // The reason is said, and is the cause; the refused value is not repeated (U3).
    let error = elicitor
        .url(
            Scope::session("s"),
            "Sign in",
            "https://example.com/cb?access_token=sekrit-value-123",
        )
        .unwrap_err();
    let RefusedError::UnsafeUrl(reason) = &error else {
        panic!("{error:?}")
    };
    // The broken rule is the source, said once, and never repeats the value (U3).
    assert_eq!(error.to_string(), "refusing to send the URL");
    let source = error.source().expect("the URL rule is the source");
    assert_eq!(source.to_string(), reason.to_string());
    let source = source.to_string();
    assert!(
        source.contains("access_token") && !source.contains("sekrit"),
        "{source}"
    );
    // Nothing refused was recorded.
    assert_eq!(elicitor.registry().outstanding(elicitor.connection()), 0);
}

// covers: S1
#[cfg(feature = "url")]
#[test]
fn the_url_policy_is_the_one_given() {
    let dev = elicitor(both());
    assert_eq!(dev.url_policy(), &UrlPolicy::new());
    assert!(dev
        .url(Scope::session("s"), "m", "http://localhost:8080/callback")
        .is_ok());
    let production_policy = UrlPolicy::new()
        .allow_loopback_http(false)
        .with_max_length(100);
    let production = elicitor(both()).with_url_policy(production_policy.clone());
    assert_eq!(production.url_policy(), &production_policy);
    assert!(matches!(
        production.url(Scope::session("s"), "m", "http://localhost:8080/callback"),
        Err(RefusedError::UnsafeUrl(UnsafeUrlError::NotHttps { .. }))
    ));
    let long = format!("https://example.com/{}", "a".repeat(100));
    assert!(dev.url(Scope::session("s"), "m", &long).is_ok());
    assert!(matches!(
        production.url(Scope::session("s"), "m", &long),
        Err(RefusedError::UnsafeUrl(UnsafeUrlError::TooLong { .. }))
    ));
}

// covers: E5, U4
#[cfg(feature = "url")]
#[test]
fn url_elicitations_are_recorded_in_the_registry_given() {
    let registry = UrlRegistry::new();
    let elicitor = elicitor(url_only()).with_registry(&registry);
    let id = elicitor
        .url(Scope::session("s"), "m", "https://example.com/")
        .unwrap()
        .elicitation_id()
        .to_owned();
    assert_eq!(registry.outstanding(elicitor.connection()), 1);
    assert_eq!(elicitor.registry().outstanding(elicitor.connection()), 1);
    // Without one, each elicitor has its own.
    let own = self::elicitor(url_only());
    own.url(Scope::session("s"), "m", "https://example.com/")
        .unwrap();
    assert_eq!(own.registry().outstanding(own.connection()), 1);
    assert_eq!(registry.outstanding(own.connection()), 0);
    assert!(elicitor.complete(&id, None).is_ok());
    assert_eq!(registry.outstanding(elicitor.connection()), 0);
}

// covers: E5, S6, U2, U5
#[cfg(feature = "url")]
#[test]
fn url_elicitations_complete_on_this_connection_for_this_user() {
    let alice = UserId::new("alice");
    let mut elicitor = elicitor(url_only()).with_user(alice.clone());
    let send = |elicitor: &Elicitor| {
        elicitor
            .url(Scope::session("s"), "Connect", "https://auth.example.com/")
            .unwrap()
            .elicitation_id()
            .to_owned()
    };
    let id = send(&elicitor);
    assert_eq!(elicitor.url_state(&id), Some(UrlState::AwaitingResponse));
    assert_eq!(
        elicitor.record_response(&id, &ElicitationResponse::accept_without_content()),
        Ok(UrlOutcome::Consented)
    );
    assert_eq!(elicitor.url_state(&id), Some(UrlState::Consented));
    assert_eq!(
        elicitor.complete(&id, Some(&UserId::new("mallory"))),
        Err(CompletionError::UserMismatch)
    );
    assert_eq!(
        elicitor.complete(&id, Some(&alice)),
        Ok(CompleteElicitation::new(id.clone()))
    );
    assert_eq!(elicitor.url_state(&id), Some(UrlState::Completed));

    // S6: the user current when it is sent is the one bound to it.
    let bob = UserId::new("bob");
    elicitor.set_user(Some(bob.clone()));
    let bobs = send(&elicitor);
    assert_eq!(
        elicitor.complete(&bobs, Some(&alice)),
        Err(CompletionError::UserMismatch)
    );
    assert!(elicitor.complete(&bobs, Some(&bob)).is_ok());
    elicitor.set_user(None);
    let anonymous = send(&elicitor);
    assert_eq!(
        elicitor.complete(&anonymous, Some(&bob)),
        Err(CompletionError::UserMismatch)
    );
    assert!(elicitor.complete(&anonymous, None).is_ok());
}

// covers: E5, U4
#[cfg(feature = "url")]
#[test]
fn forget_and_disconnect_end_this_connections_elicitations() {
    let registry = UrlRegistry::new();
    let a = elicitor(url_only()).with_registry(&registry);
    let b = elicitor(url_only()).with_registry(&registry);
    let send = |elicitor: &Elicitor| {
        elicitor
            .url(Scope::session("s"), "m", "https://example.com/")
            .unwrap()
            .elicitation_id()
            .to_owned()
    };
    let first = send(&a);
    assert!(!b.forget(&first));
    assert!(a.forget(&first));
    assert!(!a.forget(&first));
    assert_eq!(a.url_state(&first), None);
    assert_eq!(a.complete(&first, None), Err(CompletionError::Unknown));

    let open = send(&a);
    let other = send(&b);
    a.disconnect();
    assert_eq!(a.url_state(&open), None);
    assert_eq!(registry.outstanding(a.connection()), 0);
    assert_eq!(a.complete(&open, None), Err(CompletionError::Unknown));
    assert_eq!(b.url_state(&other), Some(UrlState::AwaitingResponse));
    assert!(b.complete(&other, None).is_ok());
}
