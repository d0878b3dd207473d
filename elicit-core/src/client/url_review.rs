//! What a client shows before opening the URL of a URL-mode elicitation ([S2](crate::rules#s2)–[S5](crate::rules#s5), [K3](crate::rules#k3)).
//!
//! [`UrlReview::new`] takes the `url` of an `elicitation/create` request exactly as
//! received and either refuses it ([`UrlError`]: only `http` and `https` URLs can be
//! reviewed) or returns what the consent dialog needs: the full URL to display ([S2](crate::rules#s2)),
//! the host in Unicode and ASCII with the registrable domain to highlight ([S4](crate::rules#s4), [K3](crate::rules#k3)),
//! and the [`UrlWarning`]s about anything suspicious or ambiguous ([S4](crate::rules#s4)).
//!
//! Nothing is fetched or resolved, here or anywhere in this crate ([S2](crate::rules#s2)): the review is
//! a function of the text alone. Opening the URL after consent, in a context that
//! keeps the language models away from the page ([S3](crate::rules#s3)), is the client's job, and so is
//! rendering only this URL as clickable ([S5](crate::rules#s5)).
//!
//! ```
//! use elicit::client::{UrlReview, UrlWarning};
//! let review = UrlReview::new("https://раураl.com/login").unwrap();
//! assert_eq!(review.full_url(), "https://xn--l-7sba6dbr.com/login");
//! assert_eq!(review.host_unicode(), "раураl.com");
//! assert_eq!(review.registrable_domain(), Some("раураl.com"));
//! let lookalike = UrlWarning::ConfusableHost {
//!     looks_like: "paypal.com".to_owned(),
//! };
//! assert!(review.warnings().contains(&lookalike));
//! println!("{lookalike}"); // the site name looks like `paypal.com` but is a different site
//! ```

use std::fmt;
use std::net::{IpAddr, Ipv4Addr};

use url::{Host, Url};

use crate::url_error::InvalidUrl;
pub use crate::url_safety::UrlPart;
use crate::url_safety::{self, SchemeKind};

/// The longest input, in bytes, that [`UrlReview::new`] accepts. Longer than this, a
/// URL cannot be shown in full for a person to read ([S2](crate::rules#s2)), and refusing early bounds
/// the work done on hostile input ([D12](crate::rules#d12)). Above 2048 characters a reviewable URL
/// already gets [`UrlWarning::VeryLong`].
pub const MAX_REVIEWABLE_LENGTH: usize = 16 * 1024;

/// A URL-mode elicitation's URL, checked and taken apart for the consent dialog
/// ([S2](crate::rules#s2), [S4](crate::rules#s4), [K3](crate::rules#k3)).
///
/// Show [`full_url`](Self::full_url) in full, the host with its
/// [`registrable_domain`](Self::registrable_domain) highlighted, and every warning,
/// before asking the user whether to open it; open that URL only after an
/// explicit yes ([S2](crate::rules#s2)).
///
/// ```
/// use elicit::client::{UrlReview, UrlWarning};
///
/// // A look-alike of paypal.com, with Cyrillic letters.
/// let review = UrlReview::new("https://раураl.com/login")?;
/// assert_eq!(review.host_unicode(), "раураl.com");
/// assert!(review.full_url().starts_with("https://xn--")); // what really opens
/// assert!(review
///     .warnings()
///     .iter()
///     .any(|w| matches!(w, UrlWarning::MixedScriptHost { .. })));
///
/// // What cannot be reviewed is refused outright.
/// assert!(UrlReview::new("javascript:alert(1)").is_err());
/// # Ok::<(), elicit::client::UrlError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UrlReview {
    url: Url,
    host_unicode: String,
    registrable_ascii_start: Option<usize>,
    registrable_unicode_start: Option<usize>,
    warnings: Vec<UrlWarning>,
}

impl UrlReview {
    /// Reviews `url`, the `url` member of a URL-mode request, exactly as received.
    ///
    /// Refuses what cannot be reviewed: empty or overlong text, relative URLs,
    /// unparseable text, and every scheme but `http` and `https` (see [`UrlError`]).
    /// Everything else is accepted, with warnings.
    pub fn new(url: &str) -> Result<UrlReview, UrlError> {
        if url
            .trim_matches(|c: char| c <= ' ' || c.is_whitespace())
            .is_empty()
        {
            return Err(UrlError::Empty);
        }
        if url.len() > MAX_REVIEWABLE_LENGTH {
            return Err(UrlError::TooLong {
                length: url.len(),
                limit: MAX_REVIEWABLE_LENGTH,
            });
        }
        let parsed = Url::parse(url).map_err(|error| match error {
            url::ParseError::RelativeUrlWithoutBase => UrlError::Relative,
            other => UrlError::Invalid(InvalidUrl(other)),
        })?;
        match url_safety::scheme_kind(parsed.scheme()) {
            SchemeKind::Http | SchemeKind::Https => {}
            SchemeKind::Script => {
                return Err(UrlError::Script {
                    scheme: parsed.scheme().to_owned(),
                })
            }
            SchemeKind::Data => return Err(UrlError::Data),
            SchemeKind::File => return Err(UrlError::File),
            SchemeKind::Blob => return Err(UrlError::Blob),
            SchemeKind::Other => {
                return Err(UrlError::NotWeb {
                    scheme: parsed.scheme().to_owned(),
                })
            }
        }

        let host_ascii = parsed.host_str().unwrap_or_default().to_owned();
        let is_domain = matches!(parsed.host(), Some(Host::Domain(_)));
        let host_unicode = if is_domain {
            url_safety::host_to_unicode(&host_ascii)
        } else {
            host_ascii.clone()
        };
        let registrable_ascii_start = if is_domain {
            url_safety::registrable_domain_start(&host_ascii)
        } else {
            None
        };
        // IDNA converts label by label, so the registrable domain is the same number
        // of trailing labels in both forms.
        let registrable_unicode_start = registrable_ascii_start.and_then(|start| {
            let skipped = host_ascii.get(..start)?.matches('.').count();
            nth_label_start(&host_unicode, skipped)
        });

        let mut review = UrlReview {
            url: parsed,
            host_unicode,
            registrable_ascii_start,
            registrable_unicode_start,
            warnings: Vec::new(),
        };
        review.warnings = review.collect_warnings(url);
        Ok(review)
    }

    /// Every warning, in a fixed order: characters hiding in the text, the scheme,
    /// user-info, the host, the port, sensitive data, the length.
    fn collect_warnings(&self, raw: &str) -> Vec<UrlWarning> {
        let mut warnings = Vec::new();

        // S4: characters that hide or reorder text, looked for in the raw text
        // because parsing removes or escapes them.
        let hidden = url_safety::find_hidden_characters(raw);
        if let Some(character) = hidden.bidi {
            warnings.push(UrlWarning::BidiControl { character });
        }
        if let Some(character) = hidden.invisible {
            warnings.push(UrlWarning::InvisibleCharacter { character });
        }
        if let Some(character) = hidden.control {
            warnings.push(UrlWarning::ControlCharacter { character });
        }

        // S1 asks agents for https; the user should know when it is missing.
        if self.url.scheme() == "http" {
            warnings.push(UrlWarning::NotHttps);
        }

        // S4: `https://bank.example@evil.example/` goes to evil.example.
        if !self.url.username().is_empty() || self.url.password().is_some() {
            warnings.push(UrlWarning::UserInfo {
                user: self.url.username().to_owned(),
                has_password: self.url.password().is_some(),
                host: self.host_unicode.clone(),
            });
        }

        if let Some(host) = self.url.host() {
            self.host_warnings(&host, raw, &mut warnings);
        }

        if let Some(port) = self.url.port() {
            warnings.push(UrlWarning::UnusualPort { port });
        }

        // S1 is the agent's duty, but a link that carries a secret or personal data is
        // worth a word to the user before it is opened (U3).
        if let Some(finding) = url_safety::find_sensitive(&self.url, &[]) {
            let part = finding.part;
            let what = finding.describe();
            warnings.push(if finding.is_personal() {
                UrlWarning::PersonalData { part, what }
            } else {
                UrlWarning::CredentialLike { part, what }
            });
        }

        let length = self.url.as_str().chars().count();
        if length > url_safety::LONG_URL {
            warnings.push(UrlWarning::VeryLong { length });
        }
        warnings
    }

    /// [S4](crate::rules#s4): warnings about the host.
    fn host_warnings(&self, host: &Host<&str>, raw: &str, warnings: &mut Vec<UrlWarning>) {
        let host_ascii = self.host_ascii();
        if let Some(address) = url_safety::ip_address(host) {
            warnings.push(UrlWarning::IpAddressHost { address });
            if let IpAddr::V4(v4) = address {
                let written = url_safety::raw_host(raw).unwrap_or_default();
                if written != v4.to_string() {
                    warnings.push(UrlWarning::EncodedIpAddress {
                        written: url_safety::visible(&written),
                        address: v4,
                    });
                }
            }
        }
        let local = url_safety::is_local_network(host);
        if local {
            warnings.push(UrlWarning::LocalNetworkHost {
                host: self.host_unicode.clone(),
            });
        }
        if !matches!(host, Host::Domain(_)) {
            return;
        }
        if url_safety::is_internationalized(host_ascii) {
            warnings.push(UrlWarning::InternationalizedHost {
                unicode: self.host_unicode.clone(),
                ascii: host_ascii.to_owned(),
            });
        }
        if let Some(label) = url_safety::mixed_script_label(&self.host_unicode) {
            warnings.push(UrlWarning::MixedScriptHost {
                label: label.to_owned(),
            });
        }
        if let Some(label) = url_safety::restricted_label(&self.host_unicode) {
            warnings.push(UrlWarning::UnusualHostCharacters {
                label: label.to_owned(),
            });
        }
        if let Some(looks_like) = url_safety::ascii_lookalike(&self.host_unicode) {
            warnings.push(UrlWarning::ConfusableHost { looks_like });
        }
        if self.registrable_ascii_start.is_none() && !local {
            warnings.push(UrlWarning::NoRegistrableDomain {
                host: self.host_unicode.clone(),
            });
        }
    }

    /// The URL to display in full before asking for consent ([S2](crate::rules#s2)), and the exact text
    /// that will be opened.
    ///
    /// It is the URL's standard (WHATWG) serialization, which is pure ASCII: the host
    /// is in Punycode and every other non-ASCII, invisible, bidirectional or control
    /// character is percent-escaped, so nothing in it can hide or reorder text. Show
    /// the Unicode host beside it with [`host_unicode`](Self::host_unicode).
    pub fn full_url(&self) -> &str {
        self.url.as_str()
    }

    /// The scheme: `https` or `http`.
    pub fn scheme(&self) -> &str {
        self.url.scheme()
    }

    /// The host as the user should read it ([K3](crate::rules#k3)): internationalized names in Unicode
    /// (`раураl.com`), IP addresses as written in the URL's serialization
    /// (`192.168.1.1`, `[::1]`).
    pub fn host_unicode(&self) -> &str {
        &self.host_unicode
    }

    /// The host as it travels on the network: internationalized names in Punycode
    /// (`xn--l-7sba6dbr.com`), lowercase.
    pub fn host_ascii(&self) -> &str {
        self.url.host_str().unwrap_or_default()
    }

    /// The part of [`host_unicode`](Self::host_unicode) to highlight ([S4](crate::rules#s4)): the
    /// registrable domain by the public suffix list, the name someone registered
    /// (`foo.bar.co.uk` → `bar.co.uk`, `alice.github.io` → `alice.github.io`). It
    /// always ends `host_unicode`, so the highlight starts at
    /// `host_unicode().len() - registrable_domain().len()`.
    ///
    /// `None` for IP addresses and for names outside the public suffix list
    /// (`localhost`, `intranet`, `corp.internal`, `co.uk` itself), which come with a
    /// warning.
    pub fn registrable_domain(&self) -> Option<&str> {
        self.host_unicode.get(self.registrable_unicode_start?..)
    }

    /// [`registrable_domain`](Self::registrable_domain) in ASCII; it always ends
    /// [`host_ascii`](Self::host_ascii).
    pub fn registrable_domain_ascii(&self) -> Option<&str> {
        self.host_ascii().get(self.registrable_ascii_start?..)
    }

    /// The explicit port, if it is not the scheme's default (an explicit `:443` on
    /// `https` is dropped by parsing and reads as `None`).
    pub fn port(&self) -> Option<u16> {
        self.url.port()
    }

    /// Everything suspicious or ambiguous about the URL ([S4](crate::rules#s4)), to show with it. Empty
    /// for an ordinary `https` URL on a public domain.
    pub fn warnings(&self) -> &[UrlWarning] {
        &self.warnings
    }
}

/// Byte offset of the label after the `n`th dot of `host`.
fn nth_label_start(host: &str, n: usize) -> Option<usize> {
    if n == 0 {
        return Some(0);
    }
    host.match_indices('.').nth(n - 1).map(|(i, _)| i + 1)
}

/// Something suspicious or ambiguous about a URL that the user should see before
/// agreeing to open it ([S4](crate::rules#s4)). `Display` writes one sentence for that person.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum UrlWarning {
    /// The text holds a character that changes the direction of the text around it
    /// (U+202E RIGHT-TO-LEFT OVERRIDE and the like), so part of the URL can read
    /// backwards: `…/` then U+202E then `gpj.exe` displays as `…/exe.jpg`.
    BidiControl {
        /// The first such character.
        character: char,
    },
    /// The text holds a character that does not show (zero-width space, soft hyphen,
    /// …): two URLs that look identical may differ.
    InvisibleCharacter {
        /// The first such character.
        character: char,
    },
    /// The text holds a control character (a tab, a newline, …). Parsing drops or
    /// escapes them, so what would be opened is not what was sent.
    ControlCharacter {
        /// The first such character.
        character: char,
    },
    /// The URL uses `http`, not `https`: the page and what the user types into it
    /// travel unencrypted ([S1](crate::rules#s1)).
    NotHttps,
    /// The URL has user-info before `@`: in `https://bank.example@evil.example/` the
    /// site is `evil.example`, and `bank.example` is only a user name.
    UserInfo {
        /// The user name, as it appears (percent-encoded) in the URL.
        user: String,
        /// Whether a password follows the user name.
        has_password: bool,
        /// The host the URL actually leads to.
        host: String,
    },
    /// The host is an IP address, not a name: nothing tells who runs it.
    IpAddressHost {
        /// The address.
        address: IpAddr,
    },
    /// The IPv4 address was written in an unusual form (one decimal number, hex,
    /// octal, shortened) that hides which address it is: `http://3232235777/` is
    /// `192.168.1.1`.
    EncodedIpAddress {
        /// The host as written, lowercased, with hidden characters made visible
        /// (`<U+200B>`) and cut after 64 characters.
        written: String,
        /// The address it means.
        address: Ipv4Addr,
    },
    /// The host is on the user's own machine or local network (`localhost`,
    /// `127.0.0.1`, `192.168.…`, `*.local`): a page from elsewhere has no business
    /// sending the user there.
    LocalNetworkHost {
        /// The host.
        host: String,
    },
    /// The host is an internationalized domain name, travelling in Punycode (`xn--`):
    /// its letters may come from any alphabet, so check it is the site you expect.
    InternationalizedHost {
        /// The name in Unicode.
        unicode: String,
        /// The name in ASCII (Punycode).
        ascii: String,
    },
    /// A label of the host mixes alphabets in a way real names do not, as in
    /// `раураl.com` (Cyrillic with one Latin `l`), by Unicode's UTS #39 restriction
    /// levels. Japanese names mixing Kanji, Kana and Latin are not reported.
    MixedScriptHost {
        /// The label, in Unicode.
        label: String,
    },
    /// A label of the host holds symbols or other characters that do not belong in
    /// names (UTS #39 identifier profile), such as U+2044 FRACTION SLASH, which makes
    /// `google.com⁄login.evil.com` a host of `evil.com`.
    UnusualHostCharacters {
        /// The label, in Unicode.
        label: String,
    },
    /// The host can be mistaken for another, plain-ASCII name by Unicode's
    /// confusables data (UTS #39): `аррӏе.com`, all Cyrillic, reads as `apple.com`.
    ConfusableHost {
        /// The name it can be mistaken for.
        looks_like: String,
    },
    /// The host has no registrable domain under the public suffix list: a made-up or
    /// private top-level domain (`corp.internal`), a single name (`intranet`), or a
    /// public suffix itself (`co.uk`), so there is no owner to highlight.
    NoRegistrableDomain {
        /// The host.
        host: String,
    },
    /// The URL names a port other than the scheme's usual one.
    UnusualPort {
        /// The port.
        port: u16,
    },
    /// The URL seems to carry a credential (a token, a key, a password, a session id,
    /// a pre-signed signature): anyone who sees it may be able to use it, and an
    /// agent must not send one ([S1](crate::rules#s1), [U3](crate::rules#u3)).
    CredentialLike {
        /// Where it is.
        part: UrlPart,
        /// What it is, without its value (e.g. "a parameter named `access_token`").
        what: String,
    },
    /// The URL seems to carry personal data (an email address, a phone number, a
    /// name), which an agent must not put in a URL ([S1](crate::rules#s1)).
    PersonalData {
        /// Where it is.
        part: UrlPart,
        /// What it is, without its value.
        what: String,
    },
    /// The URL is longer than anyone can read before agreeing (over 2048 characters).
    VeryLong {
        /// Its length in characters.
        length: usize,
    },
}

impl fmt::Display for UrlWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            UrlWarning::BidiControl { character } => write!(
                f,
                "the link contains an invisible character ({}) that reverses the direction \
                 of text, so part of it may read backwards",
                url_safety::code_point(*character)
            ),
            UrlWarning::InvisibleCharacter { character } => write!(
                f,
                "the link contains an invisible character ({}): it may not be the link \
                 it looks like",
                url_safety::code_point(*character)
            ),
            UrlWarning::ControlCharacter { character } => write!(
                f,
                "the link contains a control character ({}) that is removed when it is \
                 opened: it may not be the link it looks like",
                url_safety::code_point(*character)
            ),
            UrlWarning::NotHttps => f.write_str(
                "the link is not secure (http, not https): the page and anything you type \
                 into it travel unencrypted",
            ),
            UrlWarning::UserInfo {
                user,
                has_password,
                host,
            } => {
                write!(f, "the link starts with `{user}")?;
                if *has_password {
                    f.write_str(":…")?;
                }
                write!(
                    f,
                    "@`, but that is only a user name: the site it opens is `{host}`"
                )
            }
            UrlWarning::IpAddressHost { address } => write!(
                f,
                "the link leads to the bare IP address {address}, not to a named site"
            ),
            UrlWarning::EncodedIpAddress { written, address } => write!(
                f,
                "the site `{written}` is the IP address {address} written in a disguised form"
            ),
            UrlWarning::LocalNetworkHost { host } => write!(
                f,
                "the link leads to `{host}`, on your own computer or local network"
            ),
            UrlWarning::InternationalizedHost { unicode, ascii } => write!(
                f,
                "the site name `{unicode}` uses non-Latin or accented letters (written \
                 `{ascii}`): make sure it is the site you expect"
            ),
            UrlWarning::MixedScriptHost { label } => write!(
                f,
                "the site name part `{label}` mixes letters from different alphabets, \
                 a common trick to imitate another site"
            ),
            UrlWarning::UnusualHostCharacters { label } => write!(
                f,
                "the site name part `{label}` contains symbols that do not belong in a \
                 site name and may imitate punctuation"
            ),
            UrlWarning::ConfusableHost { looks_like } => write!(
                f,
                "the site name looks like `{looks_like}` but is a different site"
            ),
            UrlWarning::NoRegistrableDomain { host } => write!(
                f,
                "`{host}` is not a public site name registered under a known domain \
                 ending, so its owner cannot be shown"
            ),
            UrlWarning::UnusualPort { port } => write!(
                f,
                "the link uses the unusual port {port} instead of the standard one"
            ),
            UrlWarning::CredentialLike { part, what } => write!(
                f,
                "the link's {part} seems to contain a password, key or token ({what}): \
                 anyone who sees the link may be able to use it"
            ),
            UrlWarning::PersonalData { part, what } => write!(
                f,
                "the link's {part} seems to contain personal information ({what})"
            ),
            UrlWarning::VeryLong { length } => write!(
                f,
                "the link is {length} characters long, too long to check by reading it"
            ),
        }
    }
}

/// Why a URL cannot be reviewed, and so must not be offered to the user at all. Only
/// absolute `http` and `https` URLs can be shown and opened safely; everything else
/// either runs code, carries its own content with no site behind it, reaches the
/// user's files or hands control to another program.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum UrlError {
    /// The URL is empty or blank.
    Empty,
    /// The text is longer than [`MAX_REVIEWABLE_LENGTH`] bytes.
    TooLong {
        /// Its length in bytes.
        length: usize,
        /// The limit.
        limit: usize,
    },
    /// The URL is relative (`/login`, `//evil.example/`, `example.com/login`): there
    /// is no site to show.
    Relative,
    /// The text is not a valid URL.
    Invalid(InvalidUrl),
    /// A `javascript:` or `vbscript:` URL, which runs code instead of opening a page.
    Script {
        /// The scheme, lowercase.
        scheme: String,
    },
    /// A `data:` URL, which carries its own content with no site behind it (a
    /// classic vehicle for fake login pages).
    Data,
    /// A `file:` URL, which opens files on the user's computer.
    File,
    /// A `blob:` URL, an in-memory object of some page, meaningless outside it.
    Blob,
    /// Any other scheme (`mailto:`, `ftp:`, `ws:`, an application's own scheme):
    /// not a web page, and it may start another program.
    NotWeb {
        /// The scheme, lowercase.
        scheme: String,
    },
}

impl fmt::Display for UrlError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            UrlError::Empty => f.write_str("the URL is empty"),
            UrlError::TooLong { length, limit } => write!(
                f,
                "the URL is {length} bytes long, more than the {limit} that can be reviewed"
            ),
            UrlError::Relative => f.write_str("the URL is relative: it must start with `https://`"),
            UrlError::Invalid(_) => f.write_str("the URL is not valid"),
            UrlError::Script { scheme } => write!(
                f,
                "`{scheme}:` URLs run code instead of opening a page, and are never opened"
            ),
            UrlError::Data => f.write_str(
                "`data:` URLs carry their own content with no website behind them, and are \
                 never opened",
            ),
            UrlError::File => {
                f.write_str("`file:` URLs open files on this computer, and are never opened")
            }
            UrlError::Blob => {
                f.write_str("`blob:` URLs point into another page's memory, and are never opened")
            }
            UrlError::NotWeb { scheme } => write!(
                f,
                "`{scheme}:` is not a web address: only `https` and `http` URLs can be opened"
            ),
        }
    }
}

impl std::error::Error for UrlError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            UrlError::Invalid(error) => Some(error),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::Ipv6Addr;

    fn review(url: &str) -> UrlReview {
        match UrlReview::new(url) {
            Ok(review) => review,
            Err(error) => panic!("{url:?} should be reviewable: {error}"),
        }
    }

    // covers: S2, S4, K3
    #[test]
    fn ordinary_https_url_has_no_warnings() {
        let r = review("https://accounts.example.com/oauth/authorize?client_id=abc&state=xyz");
        assert_eq!(
            r.full_url(),
            "https://accounts.example.com/oauth/authorize?client_id=abc&state=xyz"
        );
        assert_eq!(r.scheme(), "https");
        assert_eq!(r.host_unicode(), "accounts.example.com");
        assert_eq!(r.host_ascii(), "accounts.example.com");
        assert_eq!(r.registrable_domain(), Some("example.com"));
        assert_eq!(r.port(), None);
        assert_eq!(r.warnings(), &[]);
        assert_eq!(r.url.as_str(), r.full_url());
    }

    // covers: S4, K3
    #[test]
    fn registrable_domain_follows_the_public_suffix_list() {
        let cases = [
            ("https://foo.bar.co.uk/", Some("bar.co.uk")),
            ("https://bar.co.uk/", Some("bar.co.uk")),
            ("https://a.b.example.com.au/", Some("example.com.au")),
            ("https://www.example.co.jp/", Some("example.co.jp")),
            ("https://alice.github.io/x", Some("alice.github.io")),
            ("https://EXAMPLE.COM./", Some("example.com.")),
            ("https://shop.münchen.de/", Some("münchen.de")),
            ("https://co.uk/", None),
            ("https://intranet/", None),
            ("https://192.168.1.1/", None),
        ];
        for (url, expected) in cases {
            let r = review(url);
            assert_eq!(r.registrable_domain(), expected, "{url}");
            if let Some(domain) = r.registrable_domain() {
                assert!(r.host_unicode().ends_with(domain), "{url}");
            }
        }
        let r = review("https://shop.münchen.de/");
        assert_eq!(r.registrable_domain_ascii(), Some("xn--mnchen-3ya.de"));
        assert_eq!(r.host_ascii(), "shop.xn--mnchen-3ya.de");
    }

    // covers: S4
    #[test]
    fn deceptive_urls_raise_exactly_their_warnings() {
        use UrlWarning as W;
        let table: Vec<(&str, Vec<UrlWarning>)> = vec![
            // user-info trick: the site is evil.example, a reserved name outside the
            // public suffix list
            (
                "https://bank.example@evil.example/",
                vec![
                    W::UserInfo {
                        user: "bank.example".into(),
                        has_password: false,
                        host: "evil.example".into(),
                    },
                    W::NoRegistrableDomain {
                        host: "evil.example".into(),
                    },
                ],
            ),
            (
                "https://www.mybank.com:secret@evil.net/",
                vec![W::UserInfo {
                    user: "www.mybank.com".into(),
                    has_password: true,
                    host: "evil.net".into(),
                }],
            ),
            // Cyrillic look-alike of paypal.com, with a Latin `l`
            (
                "https://раураl.com/",
                vec![
                    W::InternationalizedHost {
                        unicode: "раураl.com".into(),
                        ascii: "xn--l-7sba6dbr.com".into(),
                    },
                    W::MixedScriptHost {
                        label: "раураl".into(),
                    },
                    W::ConfusableHost {
                        looks_like: "paypal.com".into(),
                    },
                ],
            ),
            // all-Cyrillic apple.com, sent in Punycode: single script, still confusable
            (
                "https://xn--80ak6aa92e.com/",
                vec![
                    W::InternationalizedHost {
                        unicode: "аррӏе.com".into(),
                        ascii: "xn--80ak6aa92e.com".into(),
                    },
                    W::ConfusableHost {
                        looks_like: "apple.com".into(),
                    },
                ],
            ),
            // Latin with one Cyrillic `с`
            (
                "https://login.miсrosoft.com/",
                vec![
                    W::InternationalizedHost {
                        unicode: "login.miсrosoft.com".into(),
                        ascii: "login.xn--mirosoft-gch.com".into(),
                    },
                    W::MixedScriptHost {
                        label: "miсrosoft".into(),
                    },
                    W::ConfusableHost {
                        looks_like: "login.microsoft.com".into(),
                    },
                ],
            ),
            // a legitimate IDN: only the Punycode notice
            (
                "https://münchen.de/",
                vec![W::InternationalizedHost {
                    unicode: "münchen.de".into(),
                    ascii: "xn--mnchen-3ya.de".into(),
                }],
            ),
            // fraction slash imitating a path
            (
                "https://google.com\u{2044}login.evil.com/",
                vec![
                    W::InternationalizedHost {
                        unicode: "google.com\u{2044}login.evil.com".into(),
                        ascii: "google.xn--comlogin-g03d.evil.com".into(),
                    },
                    W::UnusualHostCharacters {
                        label: "com\u{2044}login".into(),
                    },
                ],
            ),
            // bidi override in the path: gpj.exe reads as exe.jpg
            (
                "https://example.com/files/\u{202E}gpj.exe",
                vec![W::BidiControl {
                    character: '\u{202E}',
                }],
            ),
            // the same, percent-encoded
            (
                "https://example.com/files/%E2%80%AEgpj.exe",
                vec![W::BidiControl {
                    character: '\u{202E}',
                }],
            ),
            // zero-width space inside the host, silently removed by IDNA
            (
                "https://pay\u{200B}pal.com/",
                vec![W::InvisibleCharacter {
                    character: '\u{200B}',
                }],
            ),
            // soft hyphen, also removed
            (
                "https://pay\u{AD}pal.com/",
                vec![W::InvisibleCharacter {
                    character: '\u{AD}',
                }],
            ),
            // a tab, dropped by the parser
            (
                "https://exa\tmple.com/",
                vec![W::ControlCharacter { character: '\t' }],
            ),
            // plain IPv4
            (
                "https://203.0.113.7/login",
                vec![W::IpAddressHost {
                    address: IpAddr::V4(Ipv4Addr::new(203, 0, 113, 7)),
                }],
            ),
            // decimal-encoded private address over http
            (
                "http://3232235777/",
                vec![
                    W::NotHttps,
                    W::IpAddressHost {
                        address: IpAddr::V4(Ipv4Addr::new(192, 168, 1, 1)),
                    },
                    W::EncodedIpAddress {
                        written: "3232235777".into(),
                        address: Ipv4Addr::new(192, 168, 1, 1),
                    },
                    W::LocalNetworkHost {
                        host: "192.168.1.1".into(),
                    },
                ],
            ),
            // hex and shortened forms
            (
                "https://0x7f.1/",
                vec![
                    W::IpAddressHost {
                        address: IpAddr::V4(Ipv4Addr::LOCALHOST),
                    },
                    W::EncodedIpAddress {
                        written: "0x7f.1".into(),
                        address: Ipv4Addr::LOCALHOST,
                    },
                    W::LocalNetworkHost {
                        host: "127.0.0.1".into(),
                    },
                ],
            ),
            // IPv6 with an unusual port
            (
                "https://[2001:db8::1]:8443/",
                vec![
                    W::IpAddressHost {
                        address: IpAddr::V6(Ipv6Addr::new(0x2001, 0xdb8, 0, 0, 0, 0, 0, 1)),
                    },
                    W::UnusualPort { port: 8443 },
                ],
            ),
            // loopback IPv6 over http
            (
                "http://[::1]/",
                vec![
                    W::NotHttps,
                    W::IpAddressHost {
                        address: IpAddr::V6(Ipv6Addr::LOCALHOST),
                    },
                    W::LocalNetworkHost {
                        host: "[::1]".into(),
                    },
                ],
            ),
            // the default port is not unusual
            ("https://example.com:443/", vec![]),
            (
                "https://example.com:8080/",
                vec![W::UnusualPort { port: 8080 }],
            ),
            ("http://example.com/", vec![W::NotHttps]),
            (
                "http://localhost:3000/callback",
                vec![
                    W::NotHttps,
                    W::LocalNetworkHost {
                        host: "localhost".into(),
                    },
                    W::UnusualPort { port: 3000 },
                ],
            ),
            (
                "https://intranet/",
                vec![W::NoRegistrableDomain {
                    host: "intranet".into(),
                }],
            ),
            (
                "https://portal.corp.internal/",
                vec![W::NoRegistrableDomain {
                    host: "portal.corp.internal".into(),
                }],
            ),
            // backslash trick: the host is evil.net, mybank.com is in the path
            ("https:\\\\evil.net\\@mybank.com/", vec![]),
            (
                "https://example.com/cb?access_token=abc",
                vec![W::CredentialLike {
                    part: UrlPart::Query,
                    what: "a parameter named `access_token`".into(),
                }],
            ),
            // a name disguised with a bidi control is quoted with it made visible
            (
                "https://example.com/cb?access_token%E2%80%AE=abc",
                vec![
                    W::BidiControl {
                        character: '\u{202E}',
                    },
                    W::CredentialLike {
                        part: UrlPart::Query,
                        what: "a parameter named `access_token<U+202E>`".into(),
                    },
                ],
            ),
            (
                "https://example.com/u/alice@example.org",
                vec![W::PersonalData {
                    part: UrlPart::Path,
                    what: "an email address".into(),
                }],
            ),
        ];
        for (url, expected) in &table {
            let r = review(url);
            assert_eq!(r.warnings(), expected.as_slice(), "{url:?}");
            // S2: what is displayed is pure ASCII, so nothing in it can hide.
            assert!(r.full_url().is_ascii(), "{url:?}");
            for warning in r.warnings() {
                assert!(!warning.to_string().is_empty());
            }
        }
    }

    // covers: S2, S4
    #[test]
    fn very_long_urls_are_reviewable_with_a_warning() {
        let at_limit = format!("https://example.com/?q={}", "a".repeat(2048 - 23));
        assert_eq!(review(&at_limit).warnings(), &[]);
        let over = format!("https://example.com/?q={}", "a".repeat(2100));
        assert_eq!(
            review(&over).warnings(),
            &[UrlWarning::VeryLong { length: 2123 }]
        );
    }

    // covers: S2, S4
    #[test]
    fn full_url_makes_hidden_characters_visible() {
        let r = review("https://example.com/files/\u{202E}gpj.exe");
        assert_eq!(r.full_url(), "https://example.com/files/%E2%80%AEgpj.exe");
        let r = review("https://bank.example@evil.example/");
        assert_eq!(r.full_url(), "https://bank.example@evil.example/");
        assert_eq!(r.host_unicode(), "evil.example");
        let r = review("https:\\\\evil.net\\@mybank.com/");
        assert_eq!(r.full_url(), "https://evil.net/@mybank.com/");
        assert_eq!(r.registrable_domain(), Some("evil.net"));
    }

    // covers: S2
    #[test]
    fn refuses_what_cannot_be_reviewed() {
        let cases: &[(&str, UrlError)] = &[
            ("", UrlError::Empty),
            ("  \t ", UrlError::Empty),
            ("/login", UrlError::Relative),
            ("//evil.example/x", UrlError::Relative),
            ("example.com/login", UrlError::Relative),
            (
                "https://",
                UrlError::Invalid(InvalidUrl(url::ParseError::EmptyHost)),
            ),
            (
                "https://exa mple.com/",
                UrlError::Invalid(InvalidUrl(url::ParseError::IdnaError)),
            ),
            (
                "https://ex\u{202E}ample.com/",
                UrlError::Invalid(InvalidUrl(url::ParseError::IdnaError)),
            ),
            (
                "https://example.com:99999/",
                UrlError::Invalid(InvalidUrl(url::ParseError::InvalidPort)),
            ),
            (
                "javascript:alert(1)",
                UrlError::Script {
                    scheme: "javascript".into(),
                },
            ),
            (
                "JaVaScRiPt:alert(1)",
                UrlError::Script {
                    scheme: "javascript".into(),
                },
            ),
            (
                "  java\nscript:alert(1)",
                UrlError::Script {
                    scheme: "javascript".into(),
                },
            ),
            (
                "vbscript:msgbox(1)",
                UrlError::Script {
                    scheme: "vbscript".into(),
                },
            ),
            ("data:text/html,<h1>Login</h1>", UrlError::Data),
            ("file:///etc/passwd", UrlError::File),
            (
                "blob:https://example.com/5c3e6a1e-0d7a-4f3e-8c11-2a9d4d1b7e10",
                UrlError::Blob,
            ),
            (
                "mailto:alice@example.com",
                UrlError::NotWeb {
                    scheme: "mailto".into(),
                },
            ),
            (
                "ftp://example.com/file",
                UrlError::NotWeb {
                    scheme: "ftp".into(),
                },
            ),
            (
                "wss://example.com/socket",
                UrlError::NotWeb {
                    scheme: "wss".into(),
                },
            ),
            (
                "about:blank",
                UrlError::NotWeb {
                    scheme: "about".into(),
                },
            ),
            (
                "view-source:https://example.com/",
                UrlError::NotWeb {
                    scheme: "view-source".into(),
                },
            ),
            (
                "intent://scan/#Intent;scheme=zxing;end",
                UrlError::NotWeb {
                    scheme: "intent".into(),
                },
            ),
            (
                "slack://open",
                UrlError::NotWeb {
                    scheme: "slack".into(),
                },
            ),
            (
                "localhost:8080",
                UrlError::NotWeb {
                    scheme: "localhost".into(),
                },
            ),
        ];
        for (url, expected) in cases {
            assert_eq!(UrlReview::new(url).as_ref(), Err(expected), "{url:?}");
            assert!(!expected.to_string().is_empty());
        }
        let long = format!("https://example.com/{}", "a".repeat(MAX_REVIEWABLE_LENGTH));
        assert_eq!(
            UrlReview::new(&long),
            Err(UrlError::TooLong {
                length: long.len(),
                limit: MAX_REVIEWABLE_LENGTH
            })
        );
    }

    // covers: S4
    #[test]
    fn messages_read_as_sentences() {
        assert_eq!(
            UrlWarning::UserInfo {
                user: "bank.example".into(),
                has_password: false,
                host: "evil.example".into()
            }
            .to_string(),
            "the link starts with `bank.example@`, but that is only a user name: the site \
             it opens is `evil.example`"
        );
        assert_eq!(
            UrlWarning::ConfusableHost {
                looks_like: "paypal.com".into()
            }
            .to_string(),
            "the site name looks like `paypal.com` but is a different site"
        );
        assert_eq!(
            UrlError::Data.to_string(),
            "`data:` URLs carry their own content with no website behind them, and are never \
             opened"
        );
        let invalid = UrlError::Invalid(InvalidUrl(url::ParseError::EmptyHost));
        assert!(std::error::Error::source(&invalid).is_some());
    }

    // covers: S2, D12
    #[test]
    fn never_panics_on_odd_input() {
        let odd = [
            "https://\u{0}",
            "https://%",
            "https://a.b@",
            "http://[",
            "http://[::1",
            "https://xn--/",
            "https://xn--abc.com/",
            "https://a..b/",
            "https://.../",
            "https://é/",
            "https://@/",
            "https://a@b@c/",
            "https://\u{FEFF}example.com/",
            "https://example.com/#%",
            "https://example.com/?%FF=%FE",
            "\u{202E}https://example.com/",
            "h:",
            ":",
            "@",
            "%",
        ];
        for url in odd {
            if let Ok(r) = UrlReview::new(url) {
                let _ = (r.registrable_domain(), r.registrable_domain_ascii());
                assert!(r.full_url().is_ascii());
            }
        }
    }
}
