//! `client/url_review.rs`: before asking the user, a client shows the full URL (S2),
//! the host with its registrable domain highlighted (S4, K3) and every warning about
//! something suspicious or ambiguous (S4); what cannot be opened safely is refused.

use std::collections::HashSet;
use std::error::Error as _;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use elicit_core::client::{UrlError, UrlPart, UrlReview, UrlWarning, MAX_REVIEWABLE_LENGTH};

fn review(url: &str) -> UrlReview {
    match UrlReview::new(url) {
        Ok(review) => review,
        Err(error) => panic!("{url:?} should be reviewable: {error}"),
    }
}

fn warnings(url: &str) -> Vec<UrlWarning> {
    review(url).warnings().to_vec()
}

// covers: S2, S4, K3
#[test]
fn an_ordinary_https_url_is_shown_as_is_without_warnings() {
    let url = "https://accounts.example.com/oauth/authorize?client_id=abc&state=xyz";
    let r = review(url);
    assert_eq!(r.full_url(), url);
    assert_eq!(r.scheme(), "https");
    assert_eq!(r.host_unicode(), "accounts.example.com");
    assert_eq!(r.host_ascii(), "accounts.example.com");
    assert_eq!(r.registrable_domain(), Some("example.com"));
    assert_eq!(r.registrable_domain_ascii(), Some("example.com"));
    assert_eq!(r.port(), None);
    assert!(r.warnings().is_empty(), "{:?}", r.warnings());
    // The default port is not a port to mention.
    let r = review("https://example.com:443/");
    assert_eq!(r.port(), None);
    assert!(r.warnings().is_empty());
    assert_eq!(r.full_url(), "https://example.com/");
}

// covers: S4, K3
#[test]
fn the_registrable_domain_ends_the_host_in_both_forms() {
    let cases = [
        ("https://example.com/", "example.com", "example.com"),
        ("https://foo.bar.co.uk/", "bar.co.uk", "bar.co.uk"),
        (
            "https://a.b.example.com.au/",
            "example.com.au",
            "example.com.au",
        ),
        (
            "https://alice.github.io/x",
            "alice.github.io",
            "alice.github.io",
        ),
        ("https://münchen.de/", "münchen.de", "xn--mnchen-3ya.de"),
        (
            "https://shop.münchen.de/",
            "münchen.de",
            "xn--mnchen-3ya.de",
        ),
        (
            "https://a.b.shop.münchen.de/",
            "münchen.de",
            "xn--mnchen-3ya.de",
        ),
        ("https://www.bücher.example.ch/", "example.ch", "example.ch"),
        (
            "https://x.straße.co.uk/",
            "straße.co.uk",
            "xn--strae-oqa.co.uk",
        ),
    ];
    for (url, unicode, ascii) in cases {
        let r = review(url);
        assert_eq!(r.registrable_domain(), Some(unicode), "{url}");
        assert_eq!(r.registrable_domain_ascii(), Some(ascii), "{url}");
        assert!(r.host_unicode().ends_with(unicode), "{url}");
        assert!(r.host_ascii().ends_with(ascii), "{url}");
    }
    let r = review("https://a.b.shop.münchen.de/");
    assert_eq!(r.host_unicode(), "a.b.shop.münchen.de");
    assert_eq!(r.host_ascii(), "a.b.shop.xn--mnchen-3ya.de");
    // Nothing to highlight for addresses and names outside the public suffix list.
    for url in [
        "https://co.uk/",
        "https://intranet/",
        "https://192.168.1.1/",
        "https://[2001:db8::1]/",
    ] {
        let r = review(url);
        assert_eq!(r.registrable_domain(), None, "{url}");
        assert_eq!(r.registrable_domain_ascii(), None, "{url}");
    }
}

// covers: S4, K3
#[test]
fn ports_and_schemes_are_reported() {
    let r = review("https://example.com:8443/");
    assert_eq!(r.port(), Some(8443));
    assert_eq!(r.warnings(), [UrlWarning::UnusualPort { port: 8443 }]);
    let r = review("http://example.com/");
    assert_eq!(r.scheme(), "http");
    assert_eq!(r.port(), None);
    assert_eq!(r.warnings(), [UrlWarning::NotHttps]);
    let r = review("http://example.com:443/");
    assert_eq!(r.port(), Some(443));
    assert_eq!(
        r.warnings(),
        [UrlWarning::NotHttps, UrlWarning::UnusualPort { port: 443 }]
    );
}

// covers: S4
#[test]
fn user_info_is_a_warning_however_it_is_written() {
    assert_eq!(
        warnings("https://www.mybank.com@evil.net/"),
        [UrlWarning::UserInfo {
            user: "www.mybank.com".into(),
            has_password: false,
            host: "evil.net".into(),
        }]
    );
    assert_eq!(
        warnings("https://www.mybank.com:secret@evil.net/"),
        [UrlWarning::UserInfo {
            user: "www.mybank.com".into(),
            has_password: true,
            host: "evil.net".into(),
        }]
    );
    // A password alone is user-info too.
    assert_eq!(
        warnings("https://:secret@evil.net/"),
        [UrlWarning::UserInfo {
            user: String::new(),
            has_password: true,
            host: "evil.net".into(),
        }]
    );
    let r = review("https://bank.example@evil.net/");
    assert_eq!(r.host_unicode(), "evil.net");
    assert_eq!(r.registrable_domain(), Some("evil.net"));
}

// covers: S4
#[test]
fn ip_address_hosts_are_named_and_decoded() {
    let public = Ipv4Addr::new(203, 0, 113, 7);
    assert_eq!(
        warnings("https://203.0.113.7/login"),
        [UrlWarning::IpAddressHost {
            address: IpAddr::V4(public)
        }]
    );
    // The same address in disguise.
    assert_eq!(
        warnings("https://3405803783/login"),
        [
            UrlWarning::IpAddressHost {
                address: IpAddr::V4(public)
            },
            UrlWarning::EncodedIpAddress {
                written: "3405803783".into(),
                address: public,
            },
        ]
    );
    assert_eq!(
        warnings("https://0x7f.1/"),
        [
            UrlWarning::IpAddressHost {
                address: IpAddr::V4(Ipv4Addr::LOCALHOST)
            },
            UrlWarning::EncodedIpAddress {
                written: "0x7f.1".into(),
                address: Ipv4Addr::LOCALHOST,
            },
            UrlWarning::LocalNetworkHost {
                host: "127.0.0.1".into()
            },
        ]
    );
    assert_eq!(
        warnings("https://[2001:db8::1]/"),
        [UrlWarning::IpAddressHost {
            address: IpAddr::V6(Ipv6Addr::new(0x2001, 0xdb8, 0, 0, 0, 0, 0, 1))
        }]
    );
    assert_eq!(review("https://[::1]/").host_unicode(), "[::1]");
}

// covers: S4
#[test]
fn local_and_unregistrable_hosts_are_warned_about() {
    assert_eq!(
        warnings("https://localhost/"),
        [UrlWarning::LocalNetworkHost {
            host: "localhost".into()
        }]
    );
    assert_eq!(
        warnings("https://printer.local/"),
        [UrlWarning::LocalNetworkHost {
            host: "printer.local".into()
        }]
    );
    assert_eq!(
        warnings("https://intranet/"),
        [UrlWarning::NoRegistrableDomain {
            host: "intranet".into()
        }]
    );
    assert_eq!(
        warnings("https://portal.corp.internal/"),
        [UrlWarning::NoRegistrableDomain {
            host: "portal.corp.internal".into()
        }]
    );
    assert_eq!(
        warnings("https://co.uk/"),
        [UrlWarning::NoRegistrableDomain {
            host: "co.uk".into()
        }]
    );
}

// covers: S4
#[test]
fn internationalized_and_look_alike_hosts_are_warned_about() {
    assert_eq!(
        warnings("https://münchen.de/"),
        [UrlWarning::InternationalizedHost {
            unicode: "münchen.de".into(),
            ascii: "xn--mnchen-3ya.de".into(),
        }]
    );
    let r = review("https://раураl.com/login");
    assert_eq!(r.full_url(), "https://xn--l-7sba6dbr.com/login");
    assert_eq!(r.host_unicode(), "раураl.com");
    assert_eq!(r.host_ascii(), "xn--l-7sba6dbr.com");
    assert_eq!(
        r.warnings(),
        [
            UrlWarning::InternationalizedHost {
                unicode: "раураl.com".into(),
                ascii: "xn--l-7sba6dbr.com".into(),
            },
            UrlWarning::MixedScriptHost {
                label: "раураl".into()
            },
            UrlWarning::ConfusableHost {
                looks_like: "paypal.com".into()
            },
        ]
    );
    assert_eq!(
        warnings("https://google.com\u{2044}login.evil.com/"),
        [
            UrlWarning::InternationalizedHost {
                unicode: "google.com\u{2044}login.evil.com".into(),
                ascii: "google.xn--comlogin-g03d.evil.com".into(),
            },
            UrlWarning::UnusualHostCharacters {
                label: "com\u{2044}login".into()
            },
        ]
    );
}

// covers: S2, S4
#[test]
fn hidden_characters_are_warned_about_and_never_shown() {
    let cases = [
        (
            "https://example.com/files/\u{202E}gpj.exe",
            UrlWarning::BidiControl {
                character: '\u{202E}',
            },
        ),
        (
            "https://example.com/files/%E2%80%AEgpj.exe",
            UrlWarning::BidiControl {
                character: '\u{202E}',
            },
        ),
        (
            "https://pay\u{200B}pal.com/",
            UrlWarning::InvisibleCharacter {
                character: '\u{200B}',
            },
        ),
        (
            "https://exa\tmple.com/",
            UrlWarning::ControlCharacter { character: '\t' },
        ),
    ];
    for (url, warning) in cases {
        let r = review(url);
        assert_eq!(r.warnings(), [warning], "{url:?}");
        assert!(r.full_url().is_ascii(), "{url:?}");
    }
    assert_eq!(
        review("https://example.com/files/\u{202E}gpj.exe").full_url(),
        "https://example.com/files/%E2%80%AEgpj.exe"
    );
}

// covers: S1, S4, U3
#[test]
fn secrets_and_personal_data_in_the_url_are_warned_about() {
    assert_eq!(
        warnings("https://example.com/cb?access_token=abc"),
        [UrlWarning::CredentialLike {
            part: UrlPart::Query,
            what: "a parameter named `access_token`".into(),
        }]
    );
    assert_eq!(
        warnings("https://example.com/u/alice@example.org"),
        [UrlWarning::PersonalData {
            part: UrlPart::Path,
            what: "an email address".into(),
        }]
    );
}

// covers: S2, S4
#[test]
fn very_long_urls_are_reviewable_with_a_warning() {
    let at_limit = format!("https://example.com/?q={}", "a".repeat(2048 - 23));
    assert_eq!(at_limit.len(), 2048);
    assert!(review(&at_limit).warnings().is_empty());
    let over = format!("{at_limit}a");
    assert_eq!(
        review(&over).warnings(),
        [UrlWarning::VeryLong { length: 2049 }]
    );
    // Far longer URLs can still be reviewed; they just cannot be read.
    let long = format!("https://example.com/?q={}", "a".repeat(10_000));
    assert_eq!(
        review(&long).warnings(),
        [UrlWarning::VeryLong { length: 10_023 }]
    );
}

// covers: S2, D12
#[test]
fn the_reviewable_length_is_bounded_in_bytes() {
    let prefix = "https://example.com/?q=";
    let at_limit = format!(
        "{prefix}{}",
        "a".repeat(MAX_REVIEWABLE_LENGTH - prefix.len())
    );
    assert_eq!(at_limit.len(), MAX_REVIEWABLE_LENGTH);
    assert!(UrlReview::new(&at_limit).is_ok());
    let over = format!("{at_limit}a");
    assert_eq!(
        UrlReview::new(&over),
        Err(UrlError::TooLong {
            length: MAX_REVIEWABLE_LENGTH + 1,
            limit: MAX_REVIEWABLE_LENGTH,
        })
    );
    const { assert!(MAX_REVIEWABLE_LENGTH > 10_023) };
}

// covers: S4, K3
#[test]
fn every_warning_and_refusal_reads_as_its_own_sentence() {
    let all_warnings = [
        UrlWarning::BidiControl {
            character: '\u{202E}',
        },
        UrlWarning::InvisibleCharacter {
            character: '\u{200B}',
        },
        UrlWarning::ControlCharacter { character: '\t' },
        UrlWarning::NotHttps,
        UrlWarning::UserInfo {
            user: "bank.example".into(),
            has_password: false,
            host: "evil.example".into(),
        },
        UrlWarning::UserInfo {
            user: "bank.example".into(),
            has_password: true,
            host: "evil.example".into(),
        },
        UrlWarning::IpAddressHost {
            address: IpAddr::V4(Ipv4Addr::LOCALHOST),
        },
        UrlWarning::EncodedIpAddress {
            written: "0x7f.1".into(),
            address: Ipv4Addr::LOCALHOST,
        },
        UrlWarning::LocalNetworkHost {
            host: "localhost".into(),
        },
        UrlWarning::InternationalizedHost {
            unicode: "münchen.de".into(),
            ascii: "xn--mnchen-3ya.de".into(),
        },
        UrlWarning::MixedScriptHost {
            label: "раураl".into(),
        },
        UrlWarning::UnusualHostCharacters {
            label: "com\u{2044}login".into(),
        },
        UrlWarning::ConfusableHost {
            looks_like: "paypal.com".into(),
        },
        UrlWarning::NoRegistrableDomain {
            host: "intranet".into(),
        },
        UrlWarning::UnusualPort { port: 8443 },
        UrlWarning::CredentialLike {
            part: UrlPart::Query,
            what: "a parameter named `token`".into(),
        },
        UrlWarning::PersonalData {
            part: UrlPart::Path,
            what: "an email address".into(),
        },
        UrlWarning::VeryLong { length: 3000 },
    ];
    let texts: HashSet<String> = all_warnings.iter().map(ToString::to_string).collect();
    assert_eq!(texts.len(), all_warnings.len());
    assert!(texts.iter().all(|text| !text.is_empty()));
    // The warning names what the user must look at.
    let user_info = all_warnings[4].to_string();
    assert!(user_info.contains("bank.example") && user_info.contains("evil.example"));
    assert!(all_warnings[12].to_string().contains("paypal.com"));

    let all_errors = [
        UrlError::Empty,
        UrlError::TooLong {
            length: 20_000,
            limit: MAX_REVIEWABLE_LENGTH,
        },
        UrlError::Relative,
        UrlReview::new("https://").unwrap_err(),
        UrlError::Script {
            scheme: "javascript".into(),
        },
        UrlError::Data,
        UrlError::File,
        UrlError::Blob,
        UrlError::NotWeb {
            scheme: "mailto".into(),
        },
    ];
    let texts: HashSet<String> = all_errors.iter().map(ToString::to_string).collect();
    assert_eq!(texts.len(), all_errors.len());
    assert!(texts.iter().all(|text| !text.is_empty()));
    // An invalid URL keeps the parser's reason as its cause.
    let UrlError::Invalid(cause) = &all_errors[3] else {
        panic!("{:?}", all_errors[3])
    };
    let source = all_errors[3]
        .source()
        .expect("the parse error is the source");
    assert_eq!(source.to_string(), cause.to_string());
    assert!(all_errors
        .iter()
        .filter(|e| !matches!(e, UrlError::Invalid(_)))
        .all(|e| e.source().is_none()));
}
