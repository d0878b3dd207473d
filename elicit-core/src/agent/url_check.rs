//! What an agent checks before sending a URL-mode elicitation ([S1](crate::rules#s1), [U3](crate::rules#u3)).
//!
//! A URL-mode elicitation sends the user to a page outside ACP, for instance to sign
//! in to a third-party service. The URL travels through the client, is shown to the
//! user in full ([S2](crate::rules#s2)), and may be logged or read by a language model on the way, so it
//! must carry nothing that grants access or identifies the user ([S1](crate::rules#s1)): no credentials,
//! no tokens, no pre-signed links, no personal data, and, outside development, it must
//! use HTTPS. [`UrlPolicy::check`] refuses URLs that break these rules, with the
//! reason, before they are sent.
//!
//! ```
//! use elicit::agent::{UnsafeUrlError, UrlPolicy};
//!
//! let policy = UrlPolicy::new();
//! let url = policy
//!     .check("https://auth.example.com/authorize?response_type=code&client_id=abc&state=x1")
//!     .unwrap();
//! assert_eq!(url, "https://auth.example.com/authorize?response_type=code&client_id=abc&state=x1");
//! assert!(matches!(
//!     policy.check("https://example.com/welcome?access_token=abc123"),
//!     Err(UnsafeUrlError::CredentialParameter { .. })
//! ));
//! ```

use std::fmt;

use url::Url;

use crate::url_error::InvalidUrl;
pub use crate::url_safety::UrlPart;
use crate::url_safety::{self, Finding, SchemeKind, Sensitive};

/// What an agent accepts as the `url` of a URL-mode elicitation ([S1](crate::rules#s1)).
///
/// The default ([`UrlPolicy::new`]) requires `https`, except for plain `http` to
/// loopback hosts during development (`localhost`, `*.localhost`, `127.0.0.0/8`,
/// `[::1]`); limits the serialized URL to [`UrlPolicy::DEFAULT_MAX_LENGTH`]
/// characters; and exempts no parameter names from the credential and personal-data
/// rules.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UrlPolicy {
    allow_loopback_http: bool,
    max_length: usize,
    allowed_parameters: Vec<String>,
}

impl Default for UrlPolicy {
    fn default() -> Self {
        Self::new()
    }
}

impl UrlPolicy {
    /// The default limit on the length of the serialized URL, in characters: the
    /// length above which the client warns that no one can read the URL before
    /// consenting ([S2](crate::rules#s2)), and far above any authorization URL.
    pub const DEFAULT_MAX_LENGTH: usize = url_safety::LONG_URL;

    /// The default policy: `https`, or `http` to a loopback host; at most
    /// [`DEFAULT_MAX_LENGTH`](Self::DEFAULT_MAX_LENGTH) characters; no exempt
    /// parameter names.
    pub const fn new() -> Self {
        UrlPolicy {
            allow_loopback_http: true,
            max_length: Self::DEFAULT_MAX_LENGTH,
            allowed_parameters: Vec::new(),
        }
    }

    /// Whether plain `http` is accepted for loopback hosts (development, [S1](crate::rules#s1)). On by
    /// default; turn it off in production builds to require `https` everywhere.
    #[must_use]
    pub fn allow_loopback_http(mut self, allow: bool) -> Self {
        self.allow_loopback_http = allow;
        self
    }

    /// Sets the longest serialized URL accepted, in characters.
    #[must_use]
    pub fn with_max_length(mut self, max_length: usize) -> Self {
        self.max_length = max_length;
        self
    }

    /// Exempts a query, fragment or matrix parameter name (compared
    /// ASCII-case-insensitively) from the *name* rules: for a parameter that your
    /// page needs and that you know carries no secret and no personal data, such as
    /// `session` holding a non-secret, single-use correlation id.
    ///
    /// The *value* rules still apply to it: a JSON Web Token, a vendor API key or an
    /// email address is refused whatever the parameter is called.
    #[must_use]
    pub fn allow_parameter(mut self, name: impl Into<String>) -> Self {
        self.allowed_parameters.push(name.into());
        self
    }

    /// Whether plain `http` is accepted for loopback hosts.
    pub fn allows_loopback_http(&self) -> bool {
        self.allow_loopback_http
    }

    /// The longest serialized URL accepted, in characters.
    pub fn max_length(&self) -> usize {
        self.max_length
    }

    /// The parameter names exempt from the name rules.
    pub fn allowed_parameters(&self) -> &[String] {
        &self.allowed_parameters
    }

    /// Checks the URL of a URL-mode elicitation before it is sent ([S1](crate::rules#s1), [U3](crate::rules#u3)), and
    /// returns its serialization by the WHATWG rules: send that text, which is what
    /// was checked.
    ///
    /// Refuses, in this order and reporting the first problem: text that is not an
    /// absolute URL, any scheme but `https` and `http`, characters that hide or
    /// reorder text, a URL longer than the limit, plain `http` outside loopback
    /// hosts, user-info; then, going through the path, the query and the fragment in
    /// that order, a parameter whose name says it is a credential or personal data,
    /// a value shaped like a credential, an email address. No error repeats a value
    /// it refused: errors end up in logs and in a model's context ([U3](crate::rules#u3)).
    pub fn check(&self, url: &str) -> Result<String, UnsafeUrlError> {
        let parsed = Url::parse(url).map_err(|error| match error {
            url::ParseError::RelativeUrlWithoutBase => UnsafeUrlError::Relative,
            other => UnsafeUrlError::Unparseable(InvalidUrl(other)),
        })?;

        let kind = url_safety::scheme_kind(parsed.scheme());
        if !matches!(kind, SchemeKind::Http | SchemeKind::Https) {
            return Err(UnsafeUrlError::NonWebScheme {
                scheme: parsed.scheme().to_owned(),
            });
        }

        // S4 on the other side: the client would warn; a URL built by the agent has
        // no reason to contain them, so they point at injected input.
        if let Some(character) = url_safety::find_hidden_characters(url).first() {
            return Err(UnsafeUrlError::HiddenCharacter { character });
        }

        let length = parsed.as_str().chars().count();
        if length > self.max_length {
            return Err(UnsafeUrlError::TooLong {
                length,
                limit: self.max_length,
            });
        }

        // S1: HTTPS outside development; development means a loopback host.
        if kind == SchemeKind::Http {
            let loopback = parsed.host().is_some_and(|h| url_safety::is_loopback(&h));
            if !(self.allow_loopback_http && loopback) {
                return Err(UnsafeUrlError::NotHttps {
                    host: parsed.host_str().unwrap_or_default().to_owned(),
                });
            }
        }

        // S1: user-info is either a credential (`user:password@`) or a trick
        // (`bank.example@evil.example`); an elicitation URL has use for neither.
        if !parsed.username().is_empty() || parsed.password().is_some() {
            return Err(UnsafeUrlError::UserInfo);
        }

        // S1, U3: no credentials, pre-authenticated access or personal data.
        if let Some(finding) = url_safety::find_sensitive(&parsed, &self.allowed_parameters) {
            return Err(UnsafeUrlError::from_finding(finding));
        }
        Ok(parsed.into())
    }
}

/// Why a URL must not be sent in a URL-mode elicitation ([S1](crate::rules#s1), [U3](crate::rules#u3)). `Display` says what
/// is wrong and never repeats the refused value.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum UnsafeUrlError {
    /// The URL is relative; a URL-mode elicitation needs an absolute URL ([U1](crate::rules#u1)).
    Relative,
    /// The text is not a valid URL.
    Unparseable(InvalidUrl),
    /// The scheme is not `https` or `http`: `javascript:`, `data:`, `file:`, `blob:`,
    /// `mailto:`, custom schemes… Clients refuse to open them.
    NonWebScheme {
        /// The scheme, lowercase.
        scheme: String,
    },
    /// The text contains a bidirectional control or an invisible character (raw or
    /// percent-encoded) or a raw control character, which a client flags as
    /// deceptive ([S4](crate::rules#s4)).
    HiddenCharacter {
        /// The character (a bidirectional control is reported before an invisible
        /// character, and that before a control character).
        character: char,
    },
    /// The serialized URL is longer than the policy allows.
    TooLong {
        /// Its length in characters.
        length: usize,
        /// The policy's limit.
        limit: usize,
    },
    /// Plain `http` to a host that is not loopback: outside development the URL must
    /// use `https` ([S1](crate::rules#s1)).
    NotHttps {
        /// The host.
        host: String,
    },
    /// The URL has user-info (`user@` or `user:password@` before the host): a
    /// credential, or a way to disguise the host ([S1](crate::rules#s1)).
    UserInfo,
    /// A parameter whose name says it carries a credential or grants access:
    /// `access_token`, `code`, `password`, `api_key`, `client_secret`, `session_id`,
    /// `X-Amz-Signature`… ([S1](crate::rules#s1), [U3](crate::rules#u3)). See the module documentation for the exact
    /// vocabulary and what is deliberately allowed (`state`, `client_id`,
    /// `redirect_uri`, `code_challenge`, `user_code`, …).
    CredentialParameter {
        /// Where the parameter is.
        part: UrlPart,
        /// The parameter's name, decoded, with hidden characters written `<U+XXXX>`
        /// and cut after 64 characters (as every quoted name here).
        name: String,
        /// The parameter holding the nested URL it is in, if it is in one
        /// (`return_to=https://…?token=…`).
        within: Option<String>,
    },
    /// A value shaped like a credential, whatever it is called: a JSON Web Token, a
    /// `Bearer` value, a vendor key with a well-known prefix (`ghp_`, `sk-`, `AKIA`,
    /// …) ([S1](crate::rules#s1), [U3](crate::rules#u3)).
    CredentialValue {
        /// Where the value is.
        part: UrlPart,
        /// What it looks like, e.g. "a JSON Web Token".
        looks_like: &'static str,
        /// The parameter holding the nested URL it is in, if it is in one.
        within: Option<String>,
    },
    /// A parameter whose name says it carries personal data: `email`, `phone`,
    /// `first_name`, `date_of_birth`, `ssn`, `iban`… ([S1](crate::rules#s1)).
    PersonalDataParameter {
        /// Where the parameter is.
        part: UrlPart,
        /// The parameter's name.
        name: String,
        /// The parameter holding the nested URL it is in, if it is in one.
        within: Option<String>,
    },
    /// An email address, anywhere in the path, query or fragment, whatever the
    /// parameter is called (`login_hint=alice@example.com` included) ([S1](crate::rules#s1)).
    EmailAddress {
        /// Where the address is.
        part: UrlPart,
        /// The parameter holding the nested URL it is in, if it is in one.
        within: Option<String>,
    },
}

impl UnsafeUrlError {
    fn from_finding(finding: Finding) -> Self {
        let Finding { part, within, what } = finding;
        match what {
            Sensitive::CredentialName(name) => {
                UnsafeUrlError::CredentialParameter { part, name, within }
            }
            Sensitive::CredentialValue(looks_like) => UnsafeUrlError::CredentialValue {
                part,
                looks_like,
                within,
            },
            Sensitive::PersonalName(name) => {
                UnsafeUrlError::PersonalDataParameter { part, name, within }
            }
            Sensitive::EmailAddress => UnsafeUrlError::EmailAddress { part, within },
        }
    }
}

/// Writes " (inside the URL in `outer`)" when there is an outer parameter.
struct Within<'a>(&'a Option<String>);

impl fmt::Display for Within<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(outer) => write!(f, " (inside the URL in `{outer}`)"),
            None => Ok(()),
        }
    }
}

impl fmt::Display for UnsafeUrlError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            UnsafeUrlError::Relative => f.write_str(
                "the URL is relative: a URL-mode elicitation needs an absolute `https` URL",
            ),
            UnsafeUrlError::Unparseable(_) => f.write_str("the URL is not valid"),
            UnsafeUrlError::NonWebScheme { scheme } => write!(
                f,
                "the URL's scheme is `{scheme}`: only `https` (or `http` to a loopback host \
                 during development) can be sent"
            ),
            UnsafeUrlError::HiddenCharacter { character } => write!(
                f,
                "the URL contains the control, invisible or direction-changing character {}, \
                 which clients flag as deceptive",
                url_safety::code_point(*character)
            ),
            UnsafeUrlError::TooLong { length, limit } => write!(
                f,
                "the URL is {length} characters long, more than the {limit} allowed"
            ),
            UnsafeUrlError::NotHttps { host } => write!(
                f,
                "the URL uses plain `http` to `{host}`: only loopback hosts (localhost, \
                 127.0.0.0/8, [::1]) may use `http`; use `https`"
            ),
            UnsafeUrlError::UserInfo => {
                f.write_str("the URL has a user name or password before the host: remove it")
            }
            UnsafeUrlError::CredentialParameter { part, name, within } => write!(
                f,
                "the {part} parameter `{name}`{} looks like a credential: a URL-mode \
                 elicitation must not carry credentials or pre-authenticated access",
                Within(within)
            ),
            UnsafeUrlError::CredentialValue {
                part,
                looks_like,
                within,
            } => write!(
                f,
                "the {part}{} contains what looks like {looks_like}: a URL-mode elicitation \
                 must not carry credentials or pre-authenticated access",
                Within(within)
            ),
            UnsafeUrlError::PersonalDataParameter { part, name, within } => write!(
                f,
                "the {part} parameter `{name}`{} looks like personal data, which must not be \
                 put in a URL-mode elicitation",
                Within(within)
            ),
            UnsafeUrlError::EmailAddress { part, within } => write!(
                f,
                "the {part}{} contains an email address, which must not be put in a URL-mode \
                 elicitation",
                Within(within)
            ),
        }
    }
}

impl std::error::Error for UnsafeUrlError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            UnsafeUrlError::Unparseable(error) => Some(error),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refusal(policy: &UrlPolicy, url: &str) -> UnsafeUrlError {
        match policy.check(url) {
            Ok(checked) => panic!("{url:?} should be refused, got {checked}"),
            Err(error) => error,
        }
    }

    // covers: S1, U1, U3
    #[test]
    fn legitimate_oauth_urls_pass() {
        let policy = UrlPolicy::new();
        let urls = [
            // Authorization code flow with PKCE and OpenID Connect parameters
            "https://accounts.google.com/o/oauth2/v2/auth?response_type=code\
             &client_id=1234.apps.googleusercontent.com\
             &redirect_uri=https%3A%2F%2Fagent.example%2Fcallback\
             &scope=openid%20email&state=af0ifjsldkj&nonce=n-0S6_WzA2Mj\
             &code_challenge=E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM\
             &code_challenge_method=S256&prompt=consent&access_type=offline",
            "https://github.com/login/oauth/authorize?client_id=Iv1.8a61f9b3a7aba766\
             &redirect_uri=http%3A%2F%2F127.0.0.1%3A8765%2Fcallback&scope=repo&state=xyz",
            "https://login.microsoftonline.com/common/oauth2/v2.0/authorize?client_id=6731de76\
             &response_type=code&response_mode=query&scope=User.Read&state=12345",
            "https://example.auth0.com/authorize?audience=https%3A%2F%2Fapi.example.com\
             &response_type=code&client_id=abc&redirect_uri=https%3A%2F%2Fapp.example%2Fcb\
             &login_hint=opaque-hint-1234&max_age=3600&ui_locales=en",
            // Pushed authorization request (RFC 9126)
            "https://as.example.com/authorize?client_id=s6BhdRkqt3\
             &request_uri=urn%3Aietf%3Aparams%3Aoauth%3Arequest_uri%3A6esc_11ACC5bwc014ltc14eY22c",
            // Device flow: verification_uri_complete carries the user_code on purpose
            "https://example.com/device?user_code=WDJB-MJHT",
            // Ordinary pages
            "https://example.com/",
            "https://example.com/settings/connect#section-2",
            "https://docs.example.com/search?q=token+rotation&page_token=CAESBggBEAEYAQ&sort_key=date",
            "https://npmjs.com/package/@scope/name",
            "https://cdn.example.com/img/icon@2x.png",
            // Development over plain http on loopback hosts
            "http://localhost:8080/callback?state=abc",
            "http://app.localhost:3000/",
            "http://127.0.0.1:8765/",
            "http://127.1.2.3/",
            "http://[::1]:8080/",
            // IDN hosts are not the agent's problem (the client warns)
            "https://münchen.de/anmelden",
        ];
        for url in urls {
            if let Err(error) = policy.check(url) {
                panic!("{url:?} should pass: {error}");
            }
        }
        let checked = policy
            .check("HTTPS://Example.COM:443/a b")
            .expect("valid URL passes");
        assert_eq!(checked.as_str(), "https://example.com/a%20b");
    }

    // covers: S1, U1
    #[test]
    fn refuses_non_web_and_invalid_urls() {
        let policy = UrlPolicy::new();
        assert_eq!(refusal(&policy, "/callback"), UnsafeUrlError::Relative);
        assert_eq!(refusal(&policy, ""), UnsafeUrlError::Relative);
        assert_eq!(
            refusal(&policy, "https://"),
            UnsafeUrlError::Unparseable(InvalidUrl(url::ParseError::EmptyHost))
        );
        assert_eq!(
            refusal(&policy, "https://exa mple.com"),
            UnsafeUrlError::Unparseable(InvalidUrl(url::ParseError::IdnaError))
        );
        for (url, scheme) in [
            ("javascript:alert(1)", "javascript"),
            ("data:text/html,hi", "data"),
            ("file:///etc/passwd", "file"),
            ("blob:https://example.com/uuid", "blob"),
            ("mailto:alice@example.com", "mailto"),
            ("ftp://example.com/", "ftp"),
            ("myapp://callback", "myapp"),
        ] {
            assert_eq!(
                refusal(&policy, url),
                UnsafeUrlError::NonWebScheme {
                    scheme: scheme.into()
                },
                "{url}"
            );
        }
    }

    // covers: S1
    #[test]
    fn requires_https_outside_loopback() {
        let policy = UrlPolicy::new();
        for (url, host) in [
            ("http://example.com/", "example.com"),
            ("http://192.168.1.10:8080/", "192.168.1.10"),
            ("http://0.0.0.0:8080/", "0.0.0.0"),
            ("http://localhost.example.com/", "localhost.example.com"),
            ("http://[::ffff:7f00:1]/", "[::ffff:7f00:1]"),
        ] {
            assert_eq!(
                refusal(&policy, url),
                UnsafeUrlError::NotHttps { host: host.into() },
                "{url}"
            );
        }
        let production = UrlPolicy::new().allow_loopback_http(false);
        assert!(!production.allows_loopback_http());
        assert_eq!(
            refusal(&production, "http://localhost:8080/"),
            UnsafeUrlError::NotHttps {
                host: "localhost".into()
            }
        );
        assert!(production.check("https://localhost:8443/").is_ok());
    }

    // covers: S1
    #[test]
    fn refuses_user_info() {
        let policy = UrlPolicy::new();
        for url in [
            "https://user:hunter2@example.com/",
            "https://bank.example@evil.example/",
            "https://:secret@example.com/",
        ] {
            assert_eq!(refusal(&policy, url), UnsafeUrlError::UserInfo, "{url}");
        }
    }

    // covers: S4
    #[test]
    fn refuses_hidden_characters() {
        let policy = UrlPolicy::new();
        for (url, character) in [
            ("https://example.com/\u{202E}gpj.exe", '\u{202E}'),
            ("https://example.com/%E2%80%8Fx", '\u{200F}'),
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

    // covers: S1, S2
    #[test]
    fn limits_the_length() {
        let url = format!("https://example.com/?q={}", "a".repeat(2025));
        assert_eq!(url.len(), UrlPolicy::DEFAULT_MAX_LENGTH);
        assert!(UrlPolicy::new().check(&url).is_ok());
        let longer = format!("{url}a");
        assert_eq!(
            refusal(&UrlPolicy::new(), &longer),
            UnsafeUrlError::TooLong {
                length: 2049,
                limit: 2048
            }
        );
        let short = UrlPolicy::new().with_max_length(30);
        assert_eq!(short.max_length(), 30);
        assert_eq!(
            refusal(&short, "https://example.com/a/long/path"),
            UnsafeUrlError::TooLong {
                length: 31,
                limit: 30
            }
        );
    }

    // covers: S1, U3
    #[test]
    fn refuses_credentials_in_parameters() {
        let policy = UrlPolicy::new();
        let query = |name: &str| UnsafeUrlError::CredentialParameter {
            part: UrlPart::Query,
            name: name.into(),
            within: None,
        };
        let cases = [
            (
                "https://example.com/welcome?access_token=abc",
                query("access_token"),
            ),
            ("https://example.com/?token=abc", query("token")),
            (
                "https://example.com/?refresh_token=abc",
                query("refresh_token"),
            ),
            (
                "https://example.com/?id_token_hint=abc",
                query("id_token_hint"),
            ),
            (
                "https://example.com/cb?code=SplxlOBeZQQYbYS6WxSbIA&state=x",
                query("code"),
            ),
            ("https://example.com/?password=hunter2", query("password")),
            ("https://example.com/?api_key=abc", query("api_key")),
            ("https://maps.example.com/?key=abc", query("key")),
            (
                "https://example.com/?client_secret=abc",
                query("client_secret"),
            ),
            ("https://example.com/?secret=abc", query("secret")),
            ("https://example.com/?session=abc", query("session")),
            ("https://example.com/?sessionId=abc", query("sessionId")),
            ("https://example.com/?auth=abc", query("auth")),
            (
                "https://example.com/?verification_code=123456",
                query("verification_code"),
            ),
            (
                "https://bucket.s3.amazonaws.com/report.pdf?X-Amz-Algorithm=AWS4-HMAC-SHA256\
                 &X-Amz-Credential=AKID%2F20240101&X-Amz-Signature=abcdef",
                query("X-Amz-Credential"),
            ),
            (
                "https://acct.blob.core.windows.net/c/b?sv=2022-11-02&sp=r&sig=abc%3D",
                query("sig"),
            ),
            (
                "https://example.com/app#access_token=abc&token_type=bearer&state=x",
                UnsafeUrlError::CredentialParameter {
                    part: UrlPart::Fragment,
                    name: "access_token".into(),
                    within: None,
                },
            ),
            (
                "https://example.com/#/callback?token=abc",
                UnsafeUrlError::CredentialParameter {
                    part: UrlPart::Fragment,
                    name: "token".into(),
                    within: None,
                },
            ),
            (
                "https://example.com/shop;jsessionid=0123456789ABCDEF",
                UnsafeUrlError::CredentialParameter {
                    part: UrlPart::Path,
                    name: "jsessionid".into(),
                    within: None,
                },
            ),
            (
                "https://as.example/authorize?client_id=a\
                 &redirect_uri=https%3A%2F%2Fapp.example%2Fcb%3Fsession%3Dabc",
                UnsafeUrlError::CredentialParameter {
                    part: UrlPart::Query,
                    name: "session".into(),
                    within: Some("redirect_uri".into()),
                },
            ),
        ];
        for (url, expected) in cases {
            assert_eq!(refusal(&policy, url), expected, "{url}");
        }
    }

    // covers: S1, U3
    #[test]
    fn refuses_credential_values_whatever_their_name() {
        let policy = UrlPolicy::new();
        let jwt = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.c2lnbmF0dXJl";
        let cases = [
            (
                format!("https://example.com/?x={jwt}"),
                UrlPart::Query,
                "a JSON Web Token",
            ),
            (
                format!("https://example.com/magic/{jwt}"),
                UrlPart::Path,
                "a JSON Web Token",
            ),
            (
                format!("https://example.com/#{jwt}"),
                UrlPart::Fragment,
                "a JSON Web Token",
            ),
            (
                "https://example.com/?h=Bearer%20abc".to_owned(),
                UrlPart::Query,
                "a bearer token",
            ),
            (
                "https://example.com/setup/ghp_aB3dE5fG7hI9jK1lM3nO5pQ7rS9tU1vW3xY5".to_owned(),
                UrlPart::Path,
                "a GitHub token",
            ),
        ];
        for (url, part, looks_like) in cases {
            assert_eq!(
                refusal(&policy, &url),
                UnsafeUrlError::CredentialValue {
                    part,
                    looks_like,
                    within: None
                },
                "{url}"
            );
        }
    }

    // covers: S1
    #[test]
    fn refuses_personal_data() {
        let policy = UrlPolicy::new();
        let cases = [
            (
                "https://example.com/signup?email=alice%40example.com",
                UnsafeUrlError::PersonalDataParameter {
                    part: UrlPart::Query,
                    name: "email".into(),
                    within: None,
                },
            ),
            (
                "https://example.com/?phone_number=5551234",
                UnsafeUrlError::PersonalDataParameter {
                    part: UrlPart::Query,
                    name: "phone_number".into(),
                    within: None,
                },
            ),
            (
                "https://example.com/?firstName=Alice",
                UnsafeUrlError::PersonalDataParameter {
                    part: UrlPart::Query,
                    name: "firstName".into(),
                    within: None,
                },
            ),
            (
                "https://as.example/authorize?client_id=a&login_hint=alice%40example.com",
                UnsafeUrlError::EmailAddress {
                    part: UrlPart::Query,
                    within: None,
                },
            ),
            (
                "https://example.com/users/alice@example.com/settings",
                UnsafeUrlError::EmailAddress {
                    part: UrlPart::Path,
                    within: None,
                },
            ),
            (
                "https://example.com/invite#to=bob%40example.org",
                UnsafeUrlError::EmailAddress {
                    part: UrlPart::Fragment,
                    within: None,
                },
            ),
            (
                "https://example.com/go?next=https%3A%2F%2Fapp.example%2F%3Fu%3Dalice%2540example.com",
                UnsafeUrlError::EmailAddress {
                    part: UrlPart::Query,
                    within: Some("next".into()),
                },
            ),
        ];
        for (url, expected) in cases {
            assert_eq!(refusal(&policy, url), expected, "{url}");
        }
    }

    // covers: S1
    #[test]
    fn allow_list_exempts_names_not_values() {
        let policy = UrlPolicy::new()
            .allow_parameter("Session")
            .allow_parameter("oauth_token");
        assert_eq!(policy.allowed_parameters(), ["Session", "oauth_token"]);
        assert!(policy
            .check("https://example.com/?session=corr-1234")
            .is_ok());
        assert!(policy
            .check("https://api.example.com/oauth/authorize?oauth_token=Z6eEdO8MOmk394WozF5oKyuAv855l4Mlqo7hhlSLik")
            .is_ok());
        assert_eq!(
            refusal(&policy, "https://example.com/?session=alice%40example.com"),
            UnsafeUrlError::EmailAddress {
                part: UrlPart::Query,
                within: None
            }
        );
        assert!(UrlPolicy::new()
            .check("https://example.com/?session=corr-1234")
            .is_err());
    }

    // covers: U3
    #[test]
    fn messages_never_repeat_the_refused_value() {
        let policy = UrlPolicy::new();
        let secret = "s3cr3t-VALUE-9876";
        for url in [
            format!("https://example.com/?access_token={secret}"),
            format!("https://example.com/?u={secret}@example.com"),
            format!("https://user:{secret}@example.com/"),
            format!("https://example.com/?email={secret}"),
        ] {
            let message = refusal(&policy, &url).to_string();
            assert!(!message.contains(secret), "{message}");
            assert!(!message.is_empty());
        }
        assert_eq!(
            UnsafeUrlError::CredentialParameter {
                part: UrlPart::Query,
                name: "session".into(),
                within: Some("redirect_uri".into())
            }
            .to_string(),
            "the query parameter `session` (inside the URL in `redirect_uri`) looks like a \
             credential: a URL-mode elicitation must not carry credentials or \
             pre-authenticated access"
        );
        let error = UnsafeUrlError::Unparseable(InvalidUrl(url::ParseError::EmptyHost));
        assert!(std::error::Error::source(&error).is_some());
    }

    // covers: S1
    #[test]
    fn default_policy() {
        let policy = UrlPolicy::default();
        assert_eq!(policy, UrlPolicy::new());
        assert!(policy.allows_loopback_http());
        assert_eq!(policy.max_length(), 2048);
        assert!(policy.allowed_parameters().is_empty());
    }
}
