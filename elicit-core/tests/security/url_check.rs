//! `agent/url_check.rs`: the URL of a URL-mode elicitation carries no credentials,
//! pre-authenticated access or personal data, and uses HTTPS outside development (S1);
//! refusals say why without repeating the refused value (U3).

use std::collections::HashSet;
use std::error::Error as _;

use elicit_core::agent::{UnsafeUrlError, UrlPart, UrlPolicy};

fn refusal(policy: &UrlPolicy, url: &str) -> UnsafeUrlError {
    match policy.check(url) {
        Ok(checked) => panic!("{url:?} should be refused, got {checked}"),
        Err(error) => error,
    }
}

fn passes(policy: &UrlPolicy, url: &str) -> String {
    match policy.check(url) {
        Ok(checked) => checked.as_str().to_owned(),
        Err(error) => panic!("{url:?} should pass: {error}"),
    }
}

// covers: S1, U1
#[test]
fn ordinary_https_urls_pass_as_serialized() {
    let policy = UrlPolicy::new();
    for url in [
        "https://auth.example.com/authorize?response_type=code&client_id=abc&state=x1",
        "https://example.com/",
        "https://example.com/settings/connect#section-2",
        "https://example.com/device?user_code=WDJB-MJHT",
    ] {
        assert_eq!(passes(&policy, url), url);
    }
    // What passes is the URL's serialization: send that, which is what was checked.
    let checked = policy.check("HTTPS://Example.COM:443/a b").unwrap();
    assert_eq!(checked, "https://example.com/a%20b");
}

// covers: S1
#[test]
fn plain_http_only_to_loopback_and_only_when_allowed() {
    let dev = UrlPolicy::new();
    assert!(dev.allows_loopback_http());
    for url in [
        "http://localhost:8080/callback?state=abc",
        "http://app.localhost:3000/",
        "http://127.0.0.1:8765/",
        "http://[::1]:8080/",
    ] {
        passes(&dev, url);
    }
    // Non-loopback hosts, and loopback when not allowed, are refused by the unit test
    // `requires_https_outside_loopback` beside the policy.
    let production = UrlPolicy::new().allow_loopback_http(false);
    assert_eq!(
        refusal(&production, "http://example.com/"),
        UnsafeUrlError::NotHttps {
            host: "example.com".into()
        }
    );
    // HTTPS is fine everywhere, loopback included.
    passes(&production, "https://localhost:8443/");
    passes(&production, "https://example.com/");
    // And the switch can be turned back on.
    assert!(production.allow_loopback_http(true).allows_loopback_http());
}

// covers: S1, S2
#[test]
fn the_length_limit_is_inclusive() {
    let policy = UrlPolicy::new();
    assert_eq!(policy.max_length(), UrlPolicy::DEFAULT_MAX_LENGTH);
    assert_eq!(UrlPolicy::DEFAULT_MAX_LENGTH, 2048);
    let at_limit = format!("https://example.com/?q={}", "a".repeat(2048 - 23));
    assert_eq!(at_limit.len(), 2048);
    passes(&policy, &at_limit);
    assert_eq!(
        refusal(&policy, &format!("{at_limit}a")),
        UnsafeUrlError::TooLong {
            length: 2049,
            limit: 2048
        }
    );
    let short = UrlPolicy::new().with_max_length(30);
    assert_eq!(short.max_length(), 30);
    // 30 characters pass, 31 do not, whatever the default says.
    passes(&short, "https://example.com/a/long/pat");
    assert_eq!(
        refusal(&short, "https://example.com/a/long/path"),
        UnsafeUrlError::TooLong {
            length: 31,
            limit: 30
        }
    );
    // Characters, not bytes: the serialization is ASCII anyway.
    passes(&short, "https://münchen.de/");
}

// covers: S1, S4
#[test]
fn user_info_and_hidden_characters_are_refused() {
    let policy = UrlPolicy::new();
    for url in [
        "https://user:hunter2@example.com/",
        "https://bank.example@evil.example/",
        "https://:secret@example.com/",
    ] {
        assert_eq!(refusal(&policy, url), UnsafeUrlError::UserInfo, "{url}");
    }
    for (url, character) in [
        ("https://example.com/\u{202E}gpj.exe", '\u{202E}'),
        ("https://exa\u{200B}mple.com/", '\u{200B}'),
        ("https://exa\nmple.com/", '\n'),
    ] {
        assert_eq!(
            refusal(&policy, url),
            UnsafeUrlError::HiddenCharacter { character },
            "{url:?}"
        );
    }
}

// covers: S1, U3
#[test]
fn credentials_and_personal_data_are_refused() {
    let policy = UrlPolicy::new();
    assert_eq!(
        refusal(&policy, "https://example.com/welcome?access_token=abc"),
        UnsafeUrlError::CredentialParameter {
            part: UrlPart::Query,
            name: "access_token".into(),
            within: None
        }
    );
    assert_eq!(
        refusal(
            &policy,
            "https://example.com/x/eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.c2lnbmF0dXJl"
        ),
        UnsafeUrlError::CredentialValue {
            part: UrlPart::Path,
            looks_like: "a JSON Web Token",
            within: None
        }
    );
    assert_eq!(
        refusal(&policy, "https://example.com/?phone_number=5551234"),
        UnsafeUrlError::PersonalDataParameter {
            part: UrlPart::Query,
            name: "phone_number".into(),
            within: None
        }
    );
    assert_eq!(
        refusal(&policy, "https://example.com/invite#to=bob%40example.org"),
        UnsafeUrlError::EmailAddress {
            part: UrlPart::Fragment,
            within: None
        }
    );
    assert_eq!(
        refusal(
            &policy,
            "https://as.example/authorize?client_id=a\
             &redirect_uri=https%3A%2F%2Fapp.example%2Fcb%3Fsession%3Dabc"
        ),
        UnsafeUrlError::CredentialParameter {
            part: UrlPart::Query,
            name: "session".into(),
            within: Some("redirect_uri".into())
        }
    );
}

// covers: S1
#[test]
fn exempt_parameter_names_still_have_their_values_checked() {
    assert!(UrlPolicy::new().allowed_parameters().is_empty());
    let policy = UrlPolicy::new()
        .allow_parameter("Session")
        .allow_parameter("oauth_token");
    assert_eq!(policy.allowed_parameters(), ["Session", "oauth_token"]);
    passes(&policy, "https://example.com/?session=corr-1234");
    passes(&policy, "https://example.com/?oauth_token=Z6eEdO8MOmk394");
    assert!(UrlPolicy::new()
        .check("https://example.com/?session=corr-1234")
        .is_err());
    assert_eq!(
        refusal(&policy, "https://example.com/?session=alice%40example.com"),
        UnsafeUrlError::EmailAddress {
            part: UrlPart::Query,
            within: None
        }
    );
    // Other names are not exempt.
    assert!(matches!(
        refusal(&policy, "https://example.com/?token=abc"),
        UnsafeUrlError::CredentialParameter { .. }
    ));
}

// covers: S1, S4
#[test]
fn the_first_problem_is_reported() {
    let policy = UrlPolicy::new().with_max_length(40);
    // Scheme before hidden characters, hidden characters before length, length before
    // http, http before user-info, user-info before parameters.
    assert!(matches!(
        refusal(&policy, "ftp://exa\u{200B}mple.com/"),
        UnsafeUrlError::NonWebScheme { .. }
    ));
    assert!(matches!(
        refusal(
            &policy,
            &format!("http://exa\u{200B}mple.com/{}", "a".repeat(50))
        ),
        UnsafeUrlError::HiddenCharacter { .. }
    ));
    assert!(matches!(
        refusal(&policy, &format!("http://example.com/{}", "a".repeat(50))),
        UnsafeUrlError::TooLong { .. }
    ));
    assert!(matches!(
        refusal(&policy, "http://u@example.com/?token=x"),
        UnsafeUrlError::NotHttps { .. }
    ));
    assert!(matches!(
        refusal(&policy, "https://u@example.com/?token=x"),
        UnsafeUrlError::UserInfo
    ));
}

// covers: U3
#[test]
fn messages_say_why_and_never_repeat_the_refused_value() {
    let policy = UrlPolicy::new();
    let secret = "s3cr3t-VALUE-9876";
    let refusals = [
        "/relative".to_owned(),
        "https://".to_owned(),
        "javascript:alert(1)".to_owned(),
        "https://example.com/\u{202E}x".to_owned(),
        format!("https://example.com/?q={}", "a".repeat(2100)),
        "http://example.com/".to_owned(),
        format!("https://user:{secret}@example.com/"),
        format!("https://example.com/?access_token={secret}"),
        "https://example.com/x/eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.c2lnbmF0dXJl".to_owned(),
        format!("https://example.com/?email={secret}"),
        format!("https://example.com/?u={secret}@example.com"),
    ];
    let messages: HashSet<String> = refusals
        .iter()
        .map(|url| {
            let message = refusal(&policy, url).to_string();
            assert!(!message.is_empty(), "{url}");
            assert!(!message.contains(secret), "{message}");
            message
        })
        .collect();
    assert_eq!(messages.len(), refusals.len());
    // A parameter inside a nested URL says which outer parameter holds it.
    let nested = UnsafeUrlError::CredentialParameter {
        part: UrlPart::Query,
        name: "session".into(),
        within: Some("redirect_uri".into()),
    }
    .to_string();
    let flat = UnsafeUrlError::CredentialParameter {
        part: UrlPart::Query,
        name: "session".into(),
        within: None,
    }
    .to_string();
    assert!(
        nested.contains("`session`") && nested.contains("`redirect_uri`"),
        "{nested}"
    );
    assert!(!flat.contains("redirect_uri"), "{flat}");
    assert_ne!(nested, flat);
    let nested_email = UnsafeUrlError::EmailAddress {
        part: UrlPart::Query,
        within: Some("next".into()),
    }
    .to_string();
    assert!(nested_email.contains("`next`"), "{nested_email}");
}

// covers: S1
#[test]
fn a_parse_failure_keeps_its_cause() {
    let error = refusal(&UrlPolicy::new(), "https://");
    let UnsafeUrlError::Unparseable(cause) = &error else {
        panic!("{error:?}")
    };
    // The parser's reason is the source, reported once: not repeated in `Display`.
    let source = error.source().expect("the parse error is the source");
    assert_eq!(source.to_string(), cause.to_string());
    assert_eq!(error.to_string(), "the URL is not valid");
    assert!(UnsafeUrlError::Relative.source().is_none());
    assert!(UnsafeUrlError::UserInfo.source().is_none());
}

// covers: S1
#[test]
fn the_default_policy_is_new() {
    let policy = UrlPolicy::default();
    assert_eq!(policy, UrlPolicy::new());
    assert!(policy.allows_loopback_http());
    assert_eq!(policy.max_length(), 2048);
    assert!(policy.allowed_parameters().is_empty());
}
