//! URL-safety primitives shared by the agent's check before sending a URL-mode
//! elicitation ([S1](crate::rules#s1), [U3](crate::rules#u3)) and the client's review before opening one ([S2](crate::rules#s2)–[S5](crate::rules#s5), [K3](crate::rules#k3)).
//!
//! Everything here is a pure function of the text of a URL: nothing is resolved or
//! fetched ([S2](crate::rules#s2)). The module is nearly a leaf: it depends on `url`, `idna`, `psl`,
//! `percent-encoding` and `unicode-security`, and of the other elicit modules only on
//! [`vocab`](crate::vocab), whose word splitter it reads parameter names with, so both
//! sides apply the very same vocabulary and the form and URL checks see the same words.
//!
//! Detection here is deliberately heuristic and biased towards names and values that
//! are *unambiguous* signs of a credential or of personal data: a refusal on the agent
//! side must be rare enough that nobody learns to switch it off, and a warning on the
//! client side must mean something when it appears.

use std::borrow::Cow;
use std::fmt;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use percent_encoding::percent_decode_str;
use unicode_security::{
    GeneralSecurityProfile, MixedScript, RestrictionLevel, RestrictionLevelDetection,
};
use url::{Host, Url};

use crate::vocab::split_words;

/// The length, in characters of the serialized URL, above which a URL is too long for
/// a person to read before consenting ([S2](crate::rules#s2)): the client warns above it and the agent's
/// default policy refuses above it. 2048 is the long-standing interoperable limit
/// (sitemaps, older browsers, most CDNs), far above any authorization URL.
pub(crate) const LONG_URL: usize = 2048;

/// How deep [`find_sensitive`] follows URLs nested in parameter values
/// (`return_to=https://…?session=…`): enough for a redirect inside a redirect, and
/// bounded so that crafted input cannot make the scan quadratic.
const MAX_NESTING: usize = 2;

/// The part of a URL where something sensitive was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum UrlPart {
    /// The path, including `;name=value` matrix parameters of a segment.
    Path,
    /// The query string after `?`.
    Query,
    /// The fragment after `#`, which browsers keep out of requests but scripts of the
    /// page (and anyone the URL is shown to) can still read.
    Fragment,
}

impl fmt::Display for UrlPart {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            UrlPart::Path => "path",
            UrlPart::Query => "query",
            UrlPart::Fragment => "fragment",
        })
    }
}

// ---------------------------------------------------------------------------------
// Schemes
// ---------------------------------------------------------------------------------

/// What a URL's scheme is, as far as reviewing it is concerned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SchemeKind {
    /// `http:`: web, unencrypted.
    Http,
    /// `https:`.
    Https,
    /// `javascript:` or `vbscript:`: runs code in whatever page opens it.
    Script,
    /// `data:`: content inlined in the URL, with no origin to show the user.
    Data,
    /// `file:`: the user's own files.
    File,
    /// `blob:`: an in-memory object of some page, meaningless outside it.
    Blob,
    /// Anything else (`mailto:`, `ftp:`, `ws:`, custom app schemes, …).
    Other,
}

/// Classifies a scheme as the `url` crate serializes it (ASCII lowercase).
pub(crate) fn scheme_kind(scheme: &str) -> SchemeKind {
    match scheme {
        "http" => SchemeKind::Http,
        "https" => SchemeKind::Https,
        "javascript" | "vbscript" => SchemeKind::Script,
        "data" => SchemeKind::Data,
        "file" => SchemeKind::File,
        "blob" => SchemeKind::Blob,
        _ => SchemeKind::Other,
    }
}

// ---------------------------------------------------------------------------------
// Characters that hide or rearrange text
// ---------------------------------------------------------------------------------

/// The characters that change the display order of text (bidirectional controls) and
/// those that render as nothing: one list, shared with what a terminal client shows of
/// agent text (`client::terminal_text`), so that what the URL review warns about is
/// what a client never prints as itself.
pub(crate) use crate::hidden_chars::{is_bidi_control, is_invisible};

/// C0 and [C1](crate::rules#c1) control characters and DEL. The URL parser silently drops tabs and
/// newlines anywhere and trims controls at both ends, so what was sent is not what
/// would be opened (`java\nscript:` is `javascript:`).
pub(crate) fn is_control(c: char) -> bool {
    c.is_control()
}

/// The first character of each hiding kind found in a URL, in the raw text or once
/// its percent-escapes are decoded (a browser's address bar decodes them for display).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct HiddenCharacters {
    /// First bidirectional control.
    pub(crate) bidi: Option<char>,
    /// First invisible character.
    pub(crate) invisible: Option<char>,
    /// First control character of the raw text. Controls that only appear once
    /// decoded (`%0A` in a query) are ordinary data and are not reported.
    pub(crate) control: Option<char>,
}

impl HiddenCharacters {
    /// The first character found, whatever its kind.
    pub(crate) fn first(&self) -> Option<char> {
        self.bidi.or(self.invisible).or(self.control)
    }
}

/// Scans `raw` (the URL exactly as received) for characters that hide or rearrange
/// text ([S4](crate::rules#s4)). The raw text is what matters: the parser removes some of them
/// (zero-width characters in a host are mapped away by IDNA) and percent-encodes
/// others, so the parsed URL would look clean.
pub(crate) fn find_hidden_characters(raw: &str) -> HiddenCharacters {
    fn note(c: char, found: &mut HiddenCharacters) {
        if found.bidi.is_none() && is_bidi_control(c) {
            found.bidi = Some(c);
        }
        if found.invisible.is_none() && is_invisible(c) {
            found.invisible = Some(c);
        }
    }
    let mut found = HiddenCharacters::default();
    for c in raw.chars() {
        note(c, &mut found);
        if found.control.is_none() && is_control(c) {
            found.control = Some(c);
        }
    }
    // Percent-escapes only matter if there are any; decoding is lossy so that
    // invalid UTF-8 cannot hide what follows it.
    if raw.contains('%') {
        for c in percent_decode_str(raw).decode_utf8_lossy().chars() {
            note(c, &mut found);
        }
    }
    found
}

/// Writes a character as `U+XXXX` so that it is visible whatever it is.
pub(crate) fn code_point(c: char) -> String {
    format!("U+{:04X}", u32::from(c))
}

/// The longest piece of URL text (a parameter name, a host as written) quoted in a
/// message, in characters: enough to recognise it, not enough for crafted input to
/// flood a dialog or a log line.
const MAX_QUOTED: usize = 64;

/// Makes a piece of the URL safe to quote in a message: bidirectional, invisible and
/// control characters are written as `<U+XXXX>` (otherwise the warning about a
/// deceptive URL would itself be deceptive), and long text is cut with `…`.
pub(crate) fn visible(text: &str) -> String {
    let mut out = String::with_capacity(text.len().min(MAX_QUOTED * 4));
    for (count, c) in text.chars().enumerate() {
        if count == MAX_QUOTED {
            out.push('…');
            break;
        }
        if is_bidi_control(c) || is_invisible(c) || is_control(c) {
            out.push('<');
            out.push_str(&code_point(c));
            out.push('>');
        } else {
            out.push(c);
        }
    }
    out
}

// ---------------------------------------------------------------------------------
// Hosts
// ---------------------------------------------------------------------------------

/// Loopback hosts, where plain `http` is acceptable for development ([S1](crate::rules#s1)):
/// `localhost` and names under `.localhost` (RFC 6761 §6.3 reserves them for
/// loopback and browsers resolve them without DNS), `127.0.0.0/8` and `[::1]`.
/// `0.0.0.0` and IPv4-mapped addresses are deliberately not included: they are
/// loopback only on some systems.
pub(crate) fn is_loopback(host: &Host<&str>) -> bool {
    match host {
        Host::Domain(name) => {
            let name = name.strip_suffix('.').unwrap_or(name);
            name == "localhost" || name.ends_with(".localhost")
        }
        Host::Ipv4(address) => address.is_loopback(),
        Host::Ipv6(address) => *address == Ipv6Addr::LOCALHOST,
    }
}

/// Hosts on the user's own machine or local network: a page there can reach devices
/// (routers, printers, development servers) that the public web cannot.
pub(crate) fn is_local_network(host: &Host<&str>) -> bool {
    if is_loopback(host) {
        return true;
    }
    match host {
        Host::Domain(name) => {
            let name = name.strip_suffix('.').unwrap_or(name);
            // mDNS names (RFC 6762) only resolve on the local link.
            name.ends_with(".local")
        }
        Host::Ipv4(address) => is_local_ipv4(*address),
        Host::Ipv6(address) => {
            address.is_unspecified()
                || address.is_unique_local()
                || address.is_unicast_link_local()
                || address.to_ipv4_mapped().is_some_and(is_local_ipv4)
        }
    }
}

fn is_local_ipv4(address: Ipv4Addr) -> bool {
    let [first, second, ..] = address.octets();
    address.is_loopback()
        || address.is_private()
        || address.is_link_local()
        || address.is_unspecified()
        || address.is_broadcast()
        // 100.64.0.0/10, carrier-grade NAT (RFC 6598): private to the provider.
        || (first == 100 && (64..128).contains(&second))
}

/// The IP address of a host that is one.
pub(crate) fn ip_address(host: &Host<&str>) -> Option<IpAddr> {
    match host {
        Host::Domain(_) => None,
        Host::Ipv4(address) => Some(IpAddr::V4(*address)),
        Host::Ipv6(address) => Some(IpAddr::V6(*address)),
    }
}

/// The host as written in `raw`, before the parser normalized it: used to notice an
/// IPv4 address written in decimal, hex or octal (`http://3232235777/` is
/// `192.168.1.1`). Follows the WHATWG parser for special schemes closely enough for
/// that purpose: leading/trailing controls and spaces trimmed, tabs and newlines
/// removed, any run of `/` or `\` after the scheme skipped, user-info and port cut.
pub(crate) fn raw_host(raw: &str) -> Option<String> {
    let cleaned: String = raw
        .trim_matches(|c: char| c <= ' ')
        .chars()
        .filter(|c| !matches!(c, '\t' | '\n' | '\r'))
        .collect();
    let (_, rest) = cleaned.split_once(':')?;
    let rest = rest.trim_start_matches(['/', '\\']);
    let authority_end = rest.find(['/', '\\', '?', '#']).unwrap_or(rest.len());
    let authority = rest.get(..authority_end)?;
    let host_and_port = match authority.rfind('@') {
        Some(at) => authority.get(at + 1..)?,
        None => authority,
    };
    let host = if host_and_port.starts_with('[') {
        match host_and_port.find(']') {
            Some(end) => host_and_port.get(..=end)?,
            None => host_and_port,
        }
    } else {
        match host_and_port.rfind(':') {
            Some(colon) => host_and_port.get(..colon)?,
            None => host_and_port,
        }
    };
    Some(host.to_ascii_lowercase())
}

/// The registrable domain ("eTLD+1") of an ASCII host, by the public suffix list,
/// as the byte offset where it starts in `host_ascii`. `None` when the host has no
/// registrable domain under a *known* suffix: a single label (`intranet`), a made-up
/// top level (`corp.internal`), or a public suffix itself (`co.uk`, `github.io`).
///
/// Private-section suffixes count (`github.io`, `appspot.com`): under them every
/// name has its own owner, which is exactly what the user must be shown ([S4](crate::rules#s4)).
pub(crate) fn registrable_domain_start(host_ascii: &str) -> Option<usize> {
    let domain = psl::domain(host_ascii.as_bytes())?;
    if !domain.suffix().is_known() {
        return None;
    }
    host_ascii.len().checked_sub(domain.as_bytes().len())
}

/// Converts an ASCII (Punycode) host to Unicode for display. The `url` crate has
/// already validated the host, so a failure here is not expected; should it happen,
/// the ASCII form is shown, which is never misleading.
pub(crate) fn host_to_unicode(host_ascii: &str) -> String {
    let (unicode, result) = idna::domain_to_unicode(host_ascii);
    match result {
        Ok(()) => unicode,
        Err(_) => host_ascii.to_owned(),
    }
}

/// Whether any label of an ASCII host is Punycode (an internationalized name).
pub(crate) fn is_internationalized(host_ascii: &str) -> bool {
    host_ascii.split('.').any(|label| {
        label
            .get(..4)
            .is_some_and(|p| p.eq_ignore_ascii_case("xn--"))
    })
}

/// The first label of a Unicode host that mixes writing systems in a way that
/// UTS #39 does not consider safe: anything looser than "highly restrictive", so
/// Latin with Cyrillic (`раураl`) is reported while Latin with Han and Kana, as
/// Japanese names are written, is not.
pub(crate) fn mixed_script_label(host_unicode: &str) -> Option<&str> {
    host_unicode.split('.').find(|label| {
        !label.is_ascii()
            && !label.is_single_script()
            && label.detect_restriction_level() > RestrictionLevel::HighlyRestrictive
            // Labels with characters outside the identifier profile are reported by
            // `restricted_label` instead; the restriction level says nothing more.
            && label.chars().all(|c| c.is_ascii() || c.identifier_allowed())
    })
}

/// The first label of a Unicode host that holds a character outside the UTS #39
/// identifier profile: symbols, emoji, look-alikes of punctuation such as U+2044
/// FRACTION SLASH, which makes `google.com⁄login.evil.com` a host of `evil.com`.
pub(crate) fn restricted_label(host_unicode: &str) -> Option<&str> {
    host_unicode.split('.').find(|label| {
        label
            .chars()
            .any(|c| !c.is_ascii() && !c.identifier_allowed())
    })
}

/// The all-ASCII host that a non-ASCII host can be mistaken for, by the UTS #39
/// confusables data: `раураl.com` (Cyrillic) reads as `paypal.com`. A label whose
/// every non-ASCII character has an ASCII prototype is such a look-alike; ASCII
/// characters are kept as written, so that the name shown is the one the user
/// would recognise (the skeleton of `m` is `rn`, which nobody types).
///
/// Only look-alikes of wholly ASCII hosts are reported: that is the spoofing [S4](crate::rules#s4) is
/// about, and `сосо.рф` imitates no name anyone can register (`coco.рф` would mix
/// scripts in one name).
pub(crate) fn ascii_lookalike(host_unicode: &str) -> Option<String> {
    if host_unicode.is_ascii() {
        return None;
    }
    let mut any = false;
    let mut labels = Vec::new();
    for label in host_unicode.split('.') {
        if label.is_ascii() {
            labels.push(Cow::Borrowed(label));
            continue;
        }
        match ascii_prototype(label) {
            Some(prototype) => {
                any = true;
                labels.push(Cow::Owned(prototype));
            }
            None => labels.push(Cow::Borrowed(label)),
        }
    }
    let lookalike = labels.join(".");
    (any && lookalike.is_ascii()).then_some(lookalike)
}

fn ascii_prototype(label: &str) -> Option<String> {
    let mut out = String::with_capacity(label.len());
    let mut buffer = [0u8; 4];
    for c in label.chars() {
        if c.is_ascii() {
            out.push(c);
            continue;
        }
        let single: &str = c.encode_utf8(&mut buffer);
        for p in unicode_security::skeleton(single) {
            // Only letters, digits and `-` make a believable host label.
            if !(p.is_ascii_alphanumeric() || p == '-') {
                return None;
            }
            out.push(p.to_ascii_lowercase());
        }
    }
    Some(out)
}

// ---------------------------------------------------------------------------------
// Credentials and personal data (S1, U3)
// ---------------------------------------------------------------------------------

/// What [`find_sensitive`] found. Values are never kept: an error or a warning that
/// repeats a secret would leak it into logs and model context ([U3](crate::rules#u3)).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Sensitive {
    /// A parameter whose name says it carries a credential, with that name.
    CredentialName(String),
    /// A value shaped like a credential whatever its name, with what it looks like.
    CredentialValue(&'static str),
    /// A parameter whose name says it carries personal data, with that name.
    PersonalName(String),
    /// An email address.
    EmailAddress,
}

/// One finding: what, where, and the name of the parameter holding the nested URL it
/// was found in, if any. Names are passed through [`visible`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Finding {
    pub(crate) part: UrlPart,
    pub(crate) within: Option<String>,
    pub(crate) what: Sensitive,
}

impl Finding {
    /// A description without the value, e.g. "a parameter named `access_token`".
    pub(crate) fn describe(&self) -> String {
        let what = match &self.what {
            Sensitive::CredentialName(name) | Sensitive::PersonalName(name) => {
                format!("a parameter named `{name}`")
            }
            Sensitive::CredentialValue(looks_like) => (*looks_like).to_owned(),
            Sensitive::EmailAddress => "an email address".to_owned(),
        };
        match &self.within {
            Some(outer) => format!("{what} (inside the URL in `{outer}`)"),
            None => what,
        }
    }

    /// Whether this is personal data rather than a credential.
    pub(crate) fn is_personal(&self) -> bool {
        matches!(
            self.what,
            Sensitive::PersonalName(_) | Sensitive::EmailAddress
        )
    }
}

/// Looks for credentials and personal data in the path, query and fragment of a URL
/// ([S1](crate::rules#s1)). User-info is left to the caller, which treats it on its own.
///
/// `allowed` exempts parameter names (compared ASCII-case-insensitively) from the
/// *name* rules only: a value that is a JSON Web Token or an email address is
/// refused whatever the parameter is called, because no name makes it safe.
///
/// Checks, in this order, and reports the first hit:
/// path segments (values, then `;name=value` matrix parameters, such as
/// `;jsessionid=`), query parameters (name, then value, then a URL nested in the
/// value), fragment parameters (`#access_token=…` of the OAuth implicit flow, also
/// after a `?` in an SPA route such as `#/cb?token=…`), then the fragment as a whole.
pub(crate) fn find_sensitive(url: &Url, allowed: &[String]) -> Option<Finding> {
    find_sensitive_nested(url, allowed, 0)
}

fn find_sensitive_nested(url: &Url, allowed: &[String], depth: usize) -> Option<Finding> {
    let found = |part: UrlPart, what: Sensitive| Finding {
        part,
        within: None,
        what,
    };

    if let Some(segments) = url.path_segments() {
        for segment in segments {
            let mut pieces = segment.split(';');
            if let Some(value) = pieces.next() {
                if let Some(what) = check_value(&percent_decode_str(value).decode_utf8_lossy()) {
                    return Some(found(UrlPart::Path, what));
                }
            }
            for parameter in pieces {
                let (name, value) = parameter.split_once('=').unwrap_or((parameter, ""));
                let name = percent_decode_str(name).decode_utf8_lossy();
                let value = percent_decode_str(value).decode_utf8_lossy();
                if let Some(finding) = check_parameter(UrlPart::Path, &name, &value, allowed, depth)
                {
                    return Some(finding);
                }
            }
        }
    }

    for (name, value) in url.query_pairs() {
        if let Some(finding) = check_parameter(UrlPart::Query, &name, &value, allowed, depth) {
            return Some(finding);
        }
    }

    if let Some(fragment) = url.fragment() {
        let parameters = match fragment.split_once('?') {
            Some((_, after)) => after,
            None => fragment,
        };
        if parameters.contains('=') {
            for (name, value) in url::form_urlencoded::parse(parameters.as_bytes()) {
                if let Some(finding) =
                    check_parameter(UrlPart::Fragment, &name, &value, allowed, depth)
                {
                    return Some(finding);
                }
            }
        }
        if let Some(what) = check_value(&percent_decode_str(fragment).decode_utf8_lossy()) {
            return Some(found(UrlPart::Fragment, what));
        }
    }
    None
}

fn check_parameter(
    part: UrlPart,
    name: &str,
    value: &str,
    allowed: &[String],
    depth: usize,
) -> Option<Finding> {
    let found = |what: Sensitive| Finding {
        part,
        within: None,
        what,
    };
    // A name with no value carries nothing: `?token` alone is a flag, not a leak.
    let is_allowed = allowed.iter().any(|a| a.eq_ignore_ascii_case(name));
    if !value.is_empty() && !is_allowed {
        match classify_parameter_name(name, value) {
            Some(NameClass::Credential) => {
                return Some(found(Sensitive::CredentialName(visible(name))))
            }
            Some(NameClass::Personal) => {
                return Some(found(Sensitive::PersonalName(visible(name))))
            }
            None => {}
        }
    }
    // The name may hold the data too (`?alice@example.com`).
    if let Some(what) = check_value(name).or_else(|| check_value(value)) {
        return Some(found(what));
    }
    if depth < MAX_NESTING && value.contains("://") {
        if let Ok(nested) = Url::parse(value.trim()) {
            if matches!(
                scheme_kind(nested.scheme()),
                SchemeKind::Http | SchemeKind::Https
            ) {
                if let Some(mut finding) = find_sensitive_nested(&nested, allowed, depth + 1) {
                    finding.part = part;
                    finding.within.get_or_insert_with(|| visible(name));
                    return Some(finding);
                }
            }
        }
    }
    None
}

/// Value rules, whatever the parameter is called.
fn check_value(text: &str) -> Option<Sensitive> {
    if let Some(looks_like) = credential_value(text) {
        return Some(Sensitive::CredentialValue(looks_like));
    }
    contains_email_address(text).then_some(Sensitive::EmailAddress)
}

/// Which rule a parameter name falls under.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum NameClass {
    /// The name says the value is a credential or grants access.
    Credential,
    /// The name says the value is personal data.
    Personal,
}

/// Words that, anywhere in a parameter name, mean the value is a credential:
/// `access_token`, `X-Amz-Security-Token`, `client_secret`, `X-Amz-Credential`,
/// `X-Goog-Signature` (pre-signed URLs are pre-authenticated access, [S1](crate::rules#s1)),
/// `client_assertion`, `session_id`, `sessionId`, …
///
/// `session` is refused although an ACP session id is not a secret by itself: a page
/// that accepts a session identifier from its URL is exactly the "pre-authenticated
/// access" [S1](crate::rules#s1) forbids (and invites session fixation). An agent whose page takes a
/// non-secret id can allow-list the name.
const CREDENTIAL_WORDS: &[&str] = &[
    "token",
    "tokens",
    "accesstoken",
    "refreshtoken",
    "idtoken",
    "authtoken",
    "apitoken",
    "password",
    "passwords",
    "passwd",
    "pwd",
    "passphrase",
    "passcode",
    "secret",
    "secrets",
    "credential",
    "credentials",
    "creds",
    "apikey",
    "apikeys",
    "jwt",
    "bearer",
    "otp",
    "totp",
    "hotp",
    "session",
    "sessionid",
    "sessid",
    "jsessionid",
    "phpsessid",
    "signature",
    "assertion",
    "authorization",
    "authcode",
];

/// Whole names (separators removed, lowercased) that are credentials although their
/// words are too common to refuse anywhere: `auth=`, `key=` (Google Maps and many
/// other APIs take their key as `key`), `sig=` (Azure shared access signatures),
/// `sid=` (a session id), `cookie=`, `pass=`, `pin=`; and the SAML parameters that
/// carry an assertion (`SAMLResponse`) or a reference to one (`SAMLart`), which
/// camelCase splitting would cut apart. `SAMLRequest` is only a request, and allowed.
const CREDENTIAL_NAMES: &[&str] = &[
    "auth",
    "key",
    "sig",
    "sid",
    "cookie",
    "cookies",
    "pass",
    "pin",
    "samlresponse",
    "samlart",
];

/// Fragments of a name without separators that mean a credential even when the name
/// is written as one word (`userpassword`, `xapikey`, `myaccesstoken`). Only long,
/// unambiguous fragments: short ones such as `pwd` or `sid` occur inside innocent
/// words.
const CREDENTIAL_SUBSTRINGS: &[&str] = &[
    "password",
    "passwd",
    "passphrase",
    "passcode",
    "secret",
    "apikey",
    "accesstoken",
    "refreshtoken",
    "idtoken",
    "authtoken",
    "sessionid",
    "credential",
];

/// Words that, followed by `key`, make it a secret key: `api_key`, `access_key`,
/// `private_key`, `subscription-key` (Azure API Management), `license_key`, … A `key`
/// after anything else is usually an identifier (`sort_key`, `public_key`, `key_id`).
const KEY_QUALIFIERS: &[&str] = &[
    "api",
    "access",
    "secret",
    "private",
    "signing",
    "auth",
    "session",
    "license",
    "licence",
    "subscription",
    "encryption",
    "master",
    "account",
    "client",
    "app",
    "developer",
];

/// Words that, followed by `code`, make it a credential: an OAuth authorization code
/// is exchangeable for tokens, and an emailed verification, reset or one-time code
/// logs the user in.
///
/// A bare `code` is refused for the same reason (it is the authorization code of an
/// OAuth redirect: an authorization URL never carries one). Every other `code` stays
/// allowed: `code_challenge` and `code_challenge_method` (PKCE sends a hash, not a
/// secret), `user_code` of the device flow (RFC 8628 §3.3.1 designs it to be shown to
/// the user in `verification_uri_complete`; it grants nothing without the user
/// logging in and approving), `country_code`, `error_code`, `promo_code`.
const CODE_QUALIFIERS: &[&str] = &[
    "auth",
    "authorization",
    "oauth",
    "access",
    "login",
    "signin",
    "verification",
    "verify",
    "confirmation",
    "confirm",
    "reset",
    "otp",
    "mfa",
    "totp",
    "2fa",
    "security",
    "recovery",
    "magic",
    "onetime",
];

/// Words that, anywhere in a name, mean personal data.
const PERSONAL_WORDS: &[&str] = &[
    "email",
    "emails",
    "emailaddress",
    "phone",
    "phonenumber",
    "telephone",
    "msisdn",
    "ssn",
    "passport",
    "dob",
    "birthdate",
    "birthday",
    "dateofbirth",
    "iban",
    "cvv",
    "cvc",
    "creditcard",
    "cardnumber",
    "firstname",
    "lastname",
    "givenname",
    "familyname",
    "surname",
    "fullname",
    "middlename",
];

/// Whole names that mean personal data though their words are too generic to refuse
/// anywhere (`mobile_app`, `tel_prefix`, `address_family`).
const PERSONAL_NAMES: &[&str] = &["mail", "tel", "mobile", "address", "street"];

/// Fragments of a separator-free name that mean personal data (`useremail`,
/// `customerphonenumber`). Long enough not to occur inside innocent words.
const PERSONAL_SUBSTRINGS: &[&str] = &[
    "email",
    "phonenumber",
    "telephone",
    "dateofbirth",
    "birthdate",
    "creditcard",
    "cardnumber",
    "firstname",
    "lastname",
    "givenname",
    "familyname",
    "fullname",
    "socialsecurity",
    "nationalid",
    "streetaddress",
    "homeaddress",
    "postaladdress",
];

/// Classifies a parameter name ([S1](crate::rules#s1)). Names not listed are allowed, and so are these
/// on purpose, because OAuth 2.0 / OpenID Connect authorization URLs need them and
/// none is a secret: `state` (an opaque anti-CSRF value bound to the user's browser),
/// `nonce`, `client_id` (public by definition, RFC 6749 §2.2), `redirect_uri`,
/// `scope`, `response_type`, `response_mode`, `code_challenge`,
/// `code_challenge_method`, `prompt`, `login_hint` (but an email address as its value
/// is refused by the value rules), `request_uri` (a one-time reference to a pushed
/// request, RFC 9126), `audience`, `resource`, `user_code`.
///
/// Deliberately refused although sometimes part of a protocol: `id_token_hint` (the
/// value is an ID token, full of personal data), `oauth_token` (OAuth 1.0a request
/// token; allow-list it if you must), `ticket` only with a CAS ticket value.
pub(crate) fn classify_parameter_name(name: &str, value: &str) -> Option<NameClass> {
    // The words the form vocabulary sees (F5): `X-Amz-Security-Token` →
    // `x amz security token`, `nextPageToken` → `next page token`, `APIKey` → `api key`.
    let words = split_words(name);
    let compact: String = words.concat();

    for (i, word) in words.iter().enumerate() {
        let word = word.as_str();
        let previous = i
            .checked_sub(1)
            .and_then(|p| words.get(p))
            .map(String::as_str);
        let next = words.get(i + 1).map(String::as_str);
        if CREDENTIAL_WORDS.contains(&word) {
            // `token_type`, `token_type_hint` describe a token without being one;
            // `page_token`/`nextPageToken` are pagination cursors.
            let describes_token =
                word == "token" && (next == Some("type") || previous == Some("page"));
            if !describes_token {
                return Some(NameClass::Credential);
            }
        }
        if word == "key" && previous.is_some_and(|p| KEY_QUALIFIERS.contains(&p)) {
            return Some(NameClass::Credential);
        }
        if word == "code" && previous.is_some_and(|p| CODE_QUALIFIERS.contains(&p)) {
            return Some(NameClass::Credential);
        }
    }
    if compact == "code" || CREDENTIAL_NAMES.contains(&compact.as_str()) {
        return Some(NameClass::Credential);
    }
    if CREDENTIAL_SUBSTRINGS.iter().any(|s| compact.contains(s)) {
        return Some(NameClass::Credential);
    }
    // CAS service and proxy tickets log the user in once presented.
    if compact == "ticket" && ["ST-", "PT-", "TGT-"].iter().any(|p| value.starts_with(p)) {
        return Some(NameClass::Credential);
    }

    if words.iter().any(|w| PERSONAL_WORDS.contains(&w.as_str()))
        || PERSONAL_NAMES.contains(&compact.as_str())
        || PERSONAL_SUBSTRINGS.iter().any(|s| compact.contains(s))
    {
        return Some(NameClass::Personal);
    }
    None
}

/// Well-known shapes of secrets, by prefix: the prefix, the minimum length of what
/// follows, and what to call it. Vendors chose these prefixes precisely so that
/// scanners can find leaked keys.
const SECRET_PREFIXES: &[(&str, usize, &str)] = &[
    ("github_pat_", 20, "a GitHub token"),
    ("ghp_", 30, "a GitHub token"),
    ("gho_", 30, "a GitHub token"),
    ("ghu_", 30, "a GitHub token"),
    ("ghs_", 30, "a GitHub token"),
    ("ghr_", 30, "a GitHub token"),
    ("glpat-", 20, "a GitLab token"),
    ("xoxb-", 20, "a Slack token"),
    ("xoxp-", 20, "a Slack token"),
    ("xoxa-", 20, "a Slack token"),
    ("xoxr-", 20, "a Slack token"),
    ("xoxs-", 20, "a Slack token"),
    ("sk_live_", 16, "a Stripe secret key"),
    ("sk_test_", 16, "a Stripe secret key"),
    ("rk_live_", 16, "a Stripe secret key"),
    ("sk-", 20, "an API secret key"),
    ("AIza", 30, "a Google API key"),
    ("ya29.", 20, "a Google OAuth access token"),
    ("npm_", 30, "an npm token"),
    ("pypi-", 50, "a PyPI token"),
    ("hf_", 30, "a Hugging Face token"),
];

/// What a value looks like if it is shaped like a credential: a JSON Web Token, a
/// bearer header value, a vendor key with a well-known prefix, an AWS access key id.
/// The value is split into runs of token characters so that a secret embedded in
/// text (`/reset/ghp_…`) is found too.
pub(crate) fn credential_value(text: &str) -> Option<&'static str> {
    let trimmed = text.trim_start();
    let is_bearer = trimmed
        .get(..7)
        .is_some_and(|p| p.eq_ignore_ascii_case("bearer "));
    if is_bearer && trimmed.len() > 7 {
        return Some("a bearer token");
    }
    text.split(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')))
        .find_map(credential_piece)
}

fn credential_piece(piece: &str) -> Option<&'static str> {
    if is_json_web_token(piece) {
        return Some("a JSON Web Token");
    }
    for (prefix, min_rest, looks_like) in SECRET_PREFIXES {
        if let Some(rest) = piece.strip_prefix(prefix) {
            // Demand the mixed case and digits of a random key, so that slugs such as
            // `sk-learn-tutorial-for-beginners` stay legitimate.
            if rest.len() >= *min_rest && looks_random(rest) {
                return Some(looks_like);
            }
        }
    }
    // AWS access key ids: AKIA (long-term) or ASIA (temporary) and 16 more
    // uppercase letters or digits.
    if piece.len() == 20
        && (piece.starts_with("AKIA") || piece.starts_with("ASIA"))
        && piece
            .bytes()
            .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit())
        && piece.bytes().skip(4).any(|b| b.is_ascii_digit())
    {
        return Some("an AWS access key");
    }
    None
}

/// A compact JWS (3 parts) or JWE (5 parts) whose header is base64url JSON: it starts
/// with `eyJ`, the encoding of `{"`.
fn is_json_web_token(piece: &str) -> bool {
    let parts: Vec<&str> = piece.split('.').collect();
    let base64url = |part: &&str| {
        part.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
    };
    matches!(parts.len(), 3 | 5)
        && parts
            .first()
            .is_some_and(|h| h.starts_with("eyJ") && h.len() >= 10)
        && parts.get(1).is_some_and(|p| p.len() >= 2)
        && parts.iter().all(base64url)
}

fn looks_random(rest: &str) -> bool {
    rest.bytes().any(|b| b.is_ascii_uppercase())
        && rest.bytes().any(|b| b.is_ascii_lowercase())
        && rest.bytes().any(|b| b.is_ascii_digit())
}

/// Whether `text` contains an email address: a non-empty local part, `@`, and a
/// domain of at least two labels under a known public suffix. The suffix check keeps
/// asset names such as `icon@2x.png` and handles such as `/@alice` legitimate.
pub(crate) fn contains_email_address(text: &str) -> bool {
    // The characters people's addresses actually use; the rarer ones RFC 5322 allows
    // (`/`, `=`, `?`, …) would make every path before an `@` a local part.
    let is_local = |c: char| c.is_alphanumeric() || matches!(c, '.' | '_' | '%' | '+' | '-');
    let is_domain = |c: char| c.is_alphanumeric() || c == '.' || c == '-';
    for (at, _) in text.match_indices('@') {
        let (before, after) = (&text[..at], &text[at + 1..]);
        let local_start = before
            .char_indices()
            .rev()
            .take_while(|&(_, c)| is_local(c))
            .last()
            .map(|(i, _)| i);
        let Some(local_start) = local_start else {
            continue;
        };
        let local = &before[local_start..];
        if local.trim_matches('.').is_empty() {
            continue;
        }
        let domain_end = after
            .char_indices()
            .find(|&(_, c)| !is_domain(c))
            .map_or(after.len(), |(i, _)| i);
        let domain = after[..domain_end].trim_end_matches(['.', '-']);
        if domain.split('.').count() < 2 || domain.split('.').any(str::is_empty) {
            continue;
        }
        let ascii = if domain.is_ascii() {
            domain.to_ascii_lowercase()
        } else {
            match idna::domain_to_ascii(domain) {
                Ok(ascii) => ascii,
                Err(_) => continue,
            }
        };
        if psl::domain(ascii.as_bytes()).is_some_and(|d| d.suffix().is_known()) {
            return true;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    // covers: S1, U3
    #[test]
    fn classifies_parameter_names() {
        use NameClass::{Credential, Personal};
        let cases: &[(&str, Option<NameClass>)] = &[
            ("access_token", Some(Credential)),
            ("refresh_token", Some(Credential)),
            ("id_token", Some(Credential)),
            ("id_token_hint", Some(Credential)),
            ("token", Some(Credential)),
            ("Token", Some(Credential)),
            ("oauth_token", Some(Credential)),
            ("csrf_token", Some(Credential)),
            ("X-Amz-Security-Token", Some(Credential)),
            ("X-Amz-Credential", Some(Credential)),
            ("X-Amz-Signature", Some(Credential)),
            ("X-Goog-Signature", Some(Credential)),
            ("sig", Some(Credential)),
            ("password", Some(Credential)),
            ("userPassword", Some(Credential)),
            ("userpassword", Some(Credential)),
            ("pwd", Some(Credential)),
            ("pass", Some(Credential)),
            ("client_secret", Some(Credential)),
            ("api_key", Some(Credential)),
            ("apiKey", Some(Credential)),
            ("apikey", Some(Credential)),
            ("x-api-key", Some(Credential)),
            ("subscription-key", Some(Credential)),
            ("key", Some(Credential)),
            ("auth", Some(Credential)),
            ("authorization", Some(Credential)),
            ("code", Some(Credential)),
            ("auth_code", Some(Credential)),
            ("verification_code", Some(Credential)),
            ("reset_code", Some(Credential)),
            ("2FACode", Some(Credential)),
            ("OAUTH2Token", Some(Credential)),
            ("session", Some(Credential)),
            ("session_id", Some(Credential)),
            ("sessionId", Some(Credential)),
            ("JSESSIONID", Some(Credential)),
            ("PHPSESSID", Some(Credential)),
            ("sid", Some(Credential)),
            ("jwt", Some(Credential)),
            ("otp", Some(Credential)),
            ("SAMLResponse", Some(Credential)),
            ("SAMLart", Some(Credential)),
            ("SAMLRequest", None),
            ("client_assertion", Some(Credential)),
            ("email", Some(Personal)),
            ("userEmail", Some(Personal)),
            ("useremail", Some(Personal)),
            ("phone_number", Some(Personal)),
            ("first_name", Some(Personal)),
            ("lastName", Some(Personal)),
            ("dob", Some(Personal)),
            ("ssn", Some(Personal)),
            ("address", Some(Personal)),
            // legitimate
            ("state", None),
            ("nonce", None),
            ("client_id", None),
            ("redirect_uri", None),
            ("scope", None),
            ("response_type", None),
            ("response_mode", None),
            ("code_challenge", None),
            ("code_challenge_method", None),
            ("user_code", None),
            ("login_hint", None),
            ("prompt", None),
            ("request_uri", None),
            ("token_type", None),
            ("page_token", None),
            ("nextPageToken", None),
            ("country_code", None),
            ("public_key", None),
            ("key_id", None),
            ("sort_key", None),
            ("authuser", None),
            ("keyword", None),
            ("mobile_app", None),
            ("ticket", None),
            ("lessnotes", None),
            ("q", None),
        ];
        for (name, expected) in cases {
            assert_eq!(classify_parameter_name(name, "v"), *expected, "{name}");
        }
        assert_eq!(
            classify_parameter_name("ticket", "ST-1856339-aA5Yuvrxzpv8Tau1cYQ7"),
            Some(Credential)
        );
    }

    // covers: S1
    #[test]
    fn recognises_credential_values() {
        let jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.c2lnbmF0dXJlX2J5dGVz";
        assert_eq!(credential_value(jwt), Some("a JSON Web Token"));
        assert_eq!(
            credential_value(&format!("x {jwt} y")),
            Some("a JSON Web Token")
        );
        assert_eq!(credential_value("Bearer abc"), Some("a bearer token"));
        assert_eq!(
            credential_value("ghp_aB3dE5fG7hI9jK1lM3nO5pQ7rS9tU1vW3xY5"),
            Some("a GitHub token")
        );
        assert_eq!(
            credential_value("sk-proj-Ab12Cd34Ef56Gh78Ij90Kl12"),
            Some("an API secret key")
        );
        assert_eq!(
            credential_value("AKIAIOSFODNN7EXAMPLE"),
            Some("an AWS access key")
        );
        assert_eq!(credential_value("sk-learn-tutorial-for-beginners"), None);
        assert_eq!(credential_value("eyJ"), None);
        assert_eq!(credential_value("a.b.c"), None);
        assert_eq!(credential_value("AKIAIOSFODNNEXAMPLEX"), None);
        assert_eq!(credential_value(""), None);
    }

    // covers: S1
    #[test]
    fn recognises_email_addresses() {
        for text in [
            "alice@example.com",
            "mailto alice.smith+tag@mail.example.co.uk now",
            "bob@müller.de",
            "x@y.org.",
        ] {
            assert!(contains_email_address(text), "{text}");
        }
        for text in [
            "@alice",
            "/@scope/name",
            "icon@2x.png",
            "user@localhost",
            "a@b",
            "@@@",
            ".@example.com",
            "",
            "no at sign",
        ] {
            assert!(!contains_email_address(text), "{text}");
        }
    }

    // covers: S4
    #[test]
    fn finds_hidden_characters_raw_and_encoded() {
        let found = find_hidden_characters("https://example.com/\u{202E}gpj.exe");
        assert_eq!(found.bidi, Some('\u{202E}'));
        let found = find_hidden_characters("https://example.com/%E2%80%AEgpj.exe");
        assert_eq!(found.bidi, Some('\u{202E}'));
        let found = find_hidden_characters("https://exa\u{200B}mple.com/");
        assert_eq!(found.invisible, Some('\u{200B}'));
        let found = find_hidden_characters("https://exa\tmple.com/");
        assert_eq!(found.control, Some('\t'));
        assert_eq!(
            find_hidden_characters("https://example.com/a%0Ab").first(),
            None
        );
        assert_eq!(
            find_hidden_characters("https://example.com/%FF%FE").first(),
            None
        );
        assert_eq!(code_point('\u{202E}'), "U+202E");
        assert_eq!(visible("a\u{202E}b\tc"), "a<U+202E>b<U+0009>c");
        let long = "x".repeat(100);
        assert_eq!(visible(&long), format!("{}…", "x".repeat(64)));
    }

    // covers: S4
    #[test]
    fn ascii_lookalikes_only_imitate_ascii_hosts() {
        assert_eq!(ascii_lookalike("раураl.com").as_deref(), Some("paypal.com"));
        assert_eq!(ascii_lookalike("аррӏе.com").as_deref(), Some("apple.com"));
        assert_eq!(ascii_lookalike("ıntel.com").as_deref(), Some("intel.com"));
        assert_eq!(ascii_lookalike("сосо.рф"), None);
        assert_eq!(ascii_lookalike("café.fr"), None);
        assert_eq!(ascii_lookalike("example.com"), None);
        assert_eq!(ascii_lookalike("日本語.jp"), None);
    }

    // covers: S4
    #[test]
    fn extracts_the_raw_host() {
        let cases = [
            ("http://3232235777/", Some("3232235777")),
            ("  HTTP://user:pw@0x7F.1:8080/x", Some("0x7f.1")),
            (
                "https:\\\\evil.example\\@bank.example/",
                Some("evil.example"),
            ),
            ("https://[::1]:8080/", Some("[::1]")),
            ("https://a.example?x#y", Some("a.example")),
            ("no colon", None),
        ];
        for (raw, expected) in cases {
            assert_eq!(raw_host(raw).as_deref(), expected, "{raw}");
        }
    }

    // covers: S1
    #[test]
    fn classifies_loopback_and_local_hosts() {
        let host = |s: &str| Url::parse(s).expect("test URL parses");
        for s in [
            "http://localhost/",
            "http://app.localhost:3000/",
            "http://localhost./",
            "http://127.0.0.1/",
            "http://127.8.9.10/",
            "http://[::1]/",
        ] {
            let url = host(s);
            let h = url.host().expect("has a host");
            assert!(is_loopback(&h), "{s}");
            assert!(is_local_network(&h), "{s}");
        }
        for s in [
            "http://0.0.0.0/",
            "http://[::ffff:127.0.0.1]/",
            "http://example.com/",
        ] {
            let url = host(s);
            assert!(!is_loopback(&url.host().expect("has a host")), "{s}");
        }
        for s in [
            "http://10.1.2.3/",
            "http://192.168.0.1/",
            "http://172.16.0.1/",
            "http://169.254.1.1/",
            "http://100.64.0.1/",
            "http://[fd00::1]/",
            "http://[fe80::1]/",
            "http://printer.local/",
        ] {
            let url = host(s);
            assert!(is_local_network(&url.host().expect("has a host")), "{s}");
        }
        let url = host("http://8.8.8.8/");
        assert!(!is_local_network(&url.host().expect("has a host")));
    }
}
