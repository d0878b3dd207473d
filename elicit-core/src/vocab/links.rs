//! URLs ([F7](crate::rules#f7)): what a renderer may turn into a link.

/// Top-level domains that make a bare `name.tld` a link even without a path: they are not
/// file extensions.
static STRONG_TLDS: &[&str] = &["com", "edu", "gov", "net", "org"];

/// Top-level domains that make `name.tld` a link only with a path, port, query or
/// fragment: alone they could be a file or library name (`socket.io`, `logo.ai`).
static PATH_TLDS: &[&str] = &[
    "ai", "app", "ar", "at", "au", "be", "biz", "blog", "br", "ca", "ch", "cloud", "cn", "co",
    "cz", "de", "dev", "dk", "es", "eu", "fi", "fm", "fr", "gg", "hk", "ie", "in", "info", "int",
    "io", "it", "jp", "kr", "link", "ly", "me", "mil", "mx", "news", "nl", "no", "nz", "online",
    "page", "pl", "pt", "ru", "se", "sg", "shop", "site", "so", "store", "tech", "to", "tv", "tw",
    "ua", "uk", "us", "xyz", "za",
];

/// A URL starts a word: not inside a host, a path, an identifier or an e-mail address.
pub(super) fn url_can_start_after(bytes: &[u8], start: usize) -> bool {
    match start.checked_sub(1).and_then(|i| bytes.get(i)) {
        None => true,
        Some(b) => {
            !(b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'@' | b'/' | b'+'))
        }
    }
}

/// Schemes that make a link without `//`. `data:` is left out: "data:" followed by text is
/// too common in prose and renderers do not make it clickable.
static OPAQUE_SCHEMES: &[&str] = &["javascript", "mailto", "sms", "tel"];

/// `scheme://rest` (scheme of two or more chars), or `mailto:address` and the other
/// [`OPAQUE_SCHEMES`].
pub(super) fn scheme_url(text: &str, start: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    if !bytes.get(start)?.is_ascii_alphabetic() {
        return None;
    }
    let scheme_end = start
        + bytes[start..]
            .iter()
            .take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.'))
            .count();
    let scheme = &text[start..scheme_end];
    let rest = &text[scheme_end..];
    let body = if scheme.len() >= 2 && rest.starts_with("://") {
        scheme_end + 3
    } else if rest.starts_with(':')
        && OPAQUE_SCHEMES
            .iter()
            .any(|known| scheme.eq_ignore_ascii_case(known))
    {
        scheme_end + 1
    } else {
        return None;
    };
    let end = url_extent(text, body);
    (end > body).then_some(end)
}

/// `www.` followed by a host.
pub(super) fn www_url(text: &str, start: usize) -> Option<usize> {
    let head = text.get(start..start + 4)?;
    let host = *text.as_bytes().get(start + 4)?;
    if head.eq_ignore_ascii_case("www.") && host.is_ascii_alphanumeric() {
        Some(url_extent(text, start))
    } else {
        None
    }
}

/// `name.tld` with a path, port, query or fragment, or alone for a strong TLD.
pub(super) fn bare_domain_url(text: &str, start: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut at = start;
    let mut labels = 0usize;
    let mut last_label;
    loop {
        let label_end = at
            + bytes[at..]
                .iter()
                .take_while(|b| b.is_ascii_alphanumeric() || **b == b'-')
                .count();
        let label = &bytes[at..label_end];
        if label.is_empty() || label.starts_with(b"-") || label.ends_with(b"-") {
            return None;
        }
        labels += 1;
        last_label = at..label_end;
        at = label_end;
        let more = bytes.get(at) == Some(&b'.')
            && bytes.get(at + 1).is_some_and(u8::is_ascii_alphanumeric);
        if !more {
            break;
        }
        at += 1;
    }
    let tld = &text[last_label];
    if labels < 2 || !tld.bytes().all(|b| b.is_ascii_lowercase()) {
        return None;
    }
    let strong = STRONG_TLDS.contains(&tld);
    if !strong && !PATH_TLDS.contains(&tld) {
        return None;
    }
    match bytes.get(at) {
        Some(b'/' | b'?' | b'#') => Some(url_extent(text, start)),
        Some(b':') if bytes.get(at + 1).is_some_and(u8::is_ascii_digit) => {
            Some(url_extent(text, start))
        }
        // `example.com_old` or `example.com@host` are not this domain.
        Some(b'_' | b'@') => None,
        _ if strong => Some(at),
        _ => None,
    }
}

/// Where a URL starting at `start` ends: at white space, quotes or angle brackets, or
/// non-ASCII punctuation (`。`), without trailing sentence punctuation or an unbalanced
/// closing bracket (`(see https://x.org/a)`).
fn url_extent(text: &str, start: usize) -> usize {
    let tail = text.get(start..).unwrap_or_default();
    let mut end = start;
    for (offset, c) in tail.char_indices() {
        let stops = c.is_whitespace()
            || c.is_control()
            || matches!(c, '<' | '>' | '"' | '`')
            || (!c.is_ascii() && !c.is_alphanumeric());
        if stops {
            break;
        }
        end = start + offset + c.len_utf8();
    }
    // Count brackets once, then trim from the end, so a long run of `)` stays linear.
    let url = &text[start..end];
    let open = [
        url.matches('(').count(),
        url.matches('[').count(),
        url.matches('{').count(),
    ];
    let mut close = [
        url.matches(')').count(),
        url.matches(']').count(),
        url.matches('}').count(),
    ];
    while let Some(last) = text[start..end].chars().next_back() {
        let trim = match last {
            '.' | ',' | ':' | ';' | '!' | '?' | '\'' | '*' | '_' | '~' => true,
            ')' | ']' | '}' => {
                let i = match last {
                    ')' => 0,
                    ']' => 1,
                    _ => 2,
                };
                let unbalanced = open[i] < close[i];
                if unbalanced {
                    close[i] -= 1;
                }
                unbalanced
            }
            _ => false,
        };
        if !trim {
            break;
        }
        end -= last.len_utf8();
    }
    end
}

#[cfg(test)]
mod tests {
    use crate::vocab::find_url;

    // covers: F7
    #[test]
    fn urls_are_found() {
        let cases: &[(&str, &str)] = &[
            ("https://example.com", "https://example.com"),
            ("http://example.com", "http://example.com"),
            ("HTTPS://EXAMPLE.COM/A", "HTTPS://EXAMPLE.COM/A"),
            (
                "Reset it at https://example.com/reset?x=1.",
                "https://example.com/reset?x=1",
            ),
            ("(see https://x.org/a_(b))", "https://x.org/a_(b)"),
            ("(see https://x.org/a)", "https://x.org/a"),
            (
                "[here](https://example.com/reset).",
                "https://example.com/reset",
            ),
            ("<https://example.com>", "https://example.com"),
            ("\"https://example.com\"", "https://example.com"),
            ("Go to https://例子.测试/路径 now", "https://例子.测试/路径"),
            ("请访问https://example.com。谢谢", "https://example.com"),
            ("http://127.0.0.1:8080/admin", "http://127.0.0.1:8080/admin"),
            ("http://localhost:3000", "http://localhost:3000"),
            ("ftp://files.example.org/pub", "ftp://files.example.org/pub"),
            ("vscode://file/home/me/x.rs", "vscode://file/home/me/x.rs"),
            ("git+ssh://git@host/repo", "git+ssh://git@host/repo"),
            ("mailto:support@example.com", "mailto:support@example.com"),
            ("Call tel:+15551234567.", "tel:+15551234567"),
            ("javascript:alert(1)", "javascript:alert(1)"),
            ("www.example.com", "www.example.com"),
            ("Visit www.example.rs today", "www.example.rs"),
            ("WWW.EXAMPLE.COM", "WWW.EXAMPLE.COM"),
            ("example.com", "example.com"),
            ("Sign up on example.com.", "example.com"),
            ("example.org", "example.org"),
            ("github.com/settings/tokens", "github.com/settings/tokens"),
            (
                "Create one at github.com/settings/tokens, then paste it",
                "github.com/settings/tokens",
            ),
            ("example.io/reset", "example.io/reset"),
            ("socket.io/docs", "socket.io/docs"),
            ("docs.example.dev:8443", "docs.example.dev:8443"),
            ("app.example.co.uk/login", "app.example.co.uk/login"),
            ("shop.example.de?ref=1", "shop.example.de?ref=1"),
            ("example.ai#pricing", "example.ai#pricing"),
            ("my-site.net", "my-site.net"),
            ("xn--bcher-kva.com", "xn--bcher-kva.com"),
            ("see:https://example.com", "https://example.com"),
            ("v1.2.3 at https://example.com", "https://example.com"),
        ];
        let mut wrong = Vec::new();
        for &(text, url) in cases {
            let found = find_url(text).map(|r| &text[r]);
            if found != Some(url) {
                wrong.push(format!("{text:?}: expected {url:?}, got {found:?}"));
            }
        }
        assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    }

    // covers: F7
    #[test]
    fn non_urls_are_not_found() {
        let cases: &[&str] = &[
            "",
            "Plain text with no link",
            "e.g. this",
            "i.e. that",
            "a.m. or p.m.",
            "U.S. only",
            "v1.2.3",
            "version 1.2.3-beta.4",
            "3.14159",
            "config.json",
            "Edit config.json/settings",
            "README.md",
            "src/main.rs",
            "setup.py",
            "archive.tar.gz",
            "index.html",
            "Node.js",
            "Vue.js or Next.js",
            "ASP.NET",
            "VB.NET Core",
            "socket.io",
            "logo.ai",
            "Safari.app",
            "com.example.app",
            "org.apache.commons",
            "example.com.txt",
            "user@example.com",
            "Mail support@example.com for help",
            "localhost:8080",
            "192.168.1.1",
            "Meet at 10:30",
            "Ratio 16:9",
            r"C:\Users\me",
            "http:",
            "https://",
            "https:// then",
            "http:/example.com",
            "c://drive",
            "www",
            "www.",
            "wwwexample.com.txt",
            "end.Start of sentence",
            "Mr.Smith",
            "example.com_backup",
            "The domain is example.COM?",
            "passwords.txt",
            "The file name is foo.sh",
            "See docs.rs/regex",
            "Tel: 555 1234",
            "JavaScript: the good parts",
            "data:image/png;base64,AAAA",
            "Note: mailto: is not enough",
        ];
        let wrong: Vec<String> = cases
            .iter()
            .filter_map(|text| find_url(text).map(|r| format!("{text:?}: {:?}", &text[r])))
            .collect();
        assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    }
}
