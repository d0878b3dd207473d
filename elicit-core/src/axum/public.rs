//! Where the browser finds the page: its public origin and mount path, checked once when
//! the page is made, and the `Host` (or, when the deployment says so, the forwarded
//! host and scheme) that each request must carry.
//!
//! The origin is configured, never read from a request: a request's `Host` and
//! forwarded headers are the client's to write, so they are only ever compared with
//! it. `Forwarded` and `X-Forwarded-*` are read only when the deployment declares a
//! proxy in front that sets them (axum-extra dropped its `Host` extractor for trusting
//! them unasked). A request that carries both `Forwarded` and an `X-Forwarded-Host` or
//! `X-Forwarded-Proto` is refused: a proxy sets one family, so the other was written by
//! the client, and neither can be told to be the proxy's (a client-written `Forwarded`
//! must not beat the proxy's `X-Forwarded-*`, nor the reverse).

use std::fmt;

use axum::http::{header, HeaderMap, Uri};
use url::{Host, Url};

use crate::url_safety::is_loopback;

/// The page's address as the browser sees it.
#[derive(Debug, Clone)]
pub(super) struct Public {
    /// `https://agent.example.com`: the ASCII serialization of the origin, as a
    /// browser writes it in `Origin`.
    pub(super) origin: String,
    /// `https` or `http`.
    pub(super) scheme: &'static str,
    /// The authority a request names: host, and the port when it is not the scheme's
    /// default (`agent.example.com`, `127.0.0.1:8080`), lowercase.
    pub(super) host: String,
    /// The scheme's default port, which a `Host` may also spell out.
    default_port: u16,
    /// Where the page's routes sit under the origin, `/elicit`: no trailing slash.
    pub(super) mount: String,
    /// Whether forwarded headers say where the browser connected.
    pub(super) trust_forwarded: bool,
    /// Whether the host is loopback (`localhost`, `127.0.0.0/8`, `[::1]`): a page only
    /// this machine reaches.
    pub(super) loopback: bool,
}

impl Public {
    /// A loopback origin the page's own listener serves, `http://127.0.0.1:PORT`.
    pub(super) fn loopback(addr: std::net::SocketAddr, mount: &str, trust_forwarded: bool) -> Self {
        Public {
            origin: format!("http://{addr}"),
            scheme: "http",
            host: addr.to_string(),
            default_port: 80,
            mount: mount.to_owned(),
            trust_forwarded,
            loopback: true,
        }
    }

    /// Checks a configured public origin and mount path ([S1](crate::rules#s1)).
    pub(super) fn parse(
        origin: &str,
        mount: &str,
        trust_forwarded: bool,
    ) -> Result<Self, MountError> {
        let not_origin = |reason: &'static str| MountError::NotAnOrigin {
            origin: origin.to_owned(),
            reason,
        };
        let url = Url::parse(origin).map_err(|_| not_origin("it is not an absolute URL"))?;
        let (scheme, default_port) = match url.scheme() {
            "https" => ("https", 443),
            "http" => ("http", 80),
            _ => return Err(not_origin("its scheme is neither `https` nor `http`")),
        };
        if !url.username().is_empty() || url.password().is_some() {
            return Err(not_origin("it carries a user name or password"));
        }
        // `Url` writes an empty path as `/`: an origin, with or without its slash.
        if url.path() != "/" || url.query().is_some() || url.fragment().is_some() {
            return Err(not_origin(
                "it has a path, query or fragment; give the path as the mount path",
            ));
        }
        let Some(host) = url.host() else {
            return Err(not_origin("it has no host"));
        };
        let loopback = is_loopback(&host);
        // S1: a page that asks for secrets is served over https outside development.
        if scheme == "http" && !loopback {
            return Err(MountError::PlainHttp {
                origin: origin.to_owned(),
            });
        }
        let host = match (&host, url.port()) {
            (Host::Ipv6(address), None) => format!("[{address}]"),
            (Host::Ipv6(address), Some(port)) => format!("[{address}]:{port}"),
            (host, None) => host.to_string(),
            (host, Some(port)) => format!("{host}:{port}"),
        };
        Ok(Public {
            origin: url.origin().ascii_serialization(),
            scheme,
            host,
            default_port,
            mount: check_mount(mount)?,
            trust_forwarded,
            loopback,
        })
    }

    /// Whether the request was addressed to this origin: its `Host` (or, for HTTP/2,
    /// the request's authority), or with trusted forwarding the proxy's
    /// `Forwarded: host=` / `X-Forwarded-Host` and scheme (refused when both families
    /// are present). DNS rebinding: a page of another site, resolved to this server,
    /// sends its own host name.
    pub(super) fn addressed(&self, headers: &HeaderMap, uri: &Uri) -> bool {
        let forwarded = if self.trust_forwarded {
            match Forwarded::read(headers) {
                Some(forwarded) => forwarded,
                None => return false,
            }
        } else {
            Forwarded::default()
        };
        if let Some(proto) = &forwarded.proto {
            // The browser reached the proxy over another scheme (plain http for an
            // https page): not the origin in the link.
            if !proto.eq_ignore_ascii_case(self.scheme) {
                return false;
            }
        }
        let host = match &forwarded.host {
            Some(host) => Some(host.as_str()),
            None => headers
                .get(header::HOST)
                .and_then(|v| v.to_str().ok())
                .or_else(|| uri.authority().map(|a| a.as_str())),
        };
        host.is_some_and(|host| self.is_host(host))
    }

    fn is_host(&self, host: &str) -> bool {
        if host.eq_ignore_ascii_case(&self.host) {
            return true;
        }
        // `agent.example.com:443` names the same origin as `agent.example.com`.
        host.rsplit_once(':').is_some_and(|(name, port)| {
            port.parse::<u16>() == Ok(self.default_port) && name.eq_ignore_ascii_case(&self.host)
        })
    }

    /// The URL path of the page of `token`, as the browser sees it.
    pub(super) fn path_of(&self, token: &str) -> String {
        format!("{}/{token}", self.mount)
    }

    /// The link to the page of `token`.
    pub(super) fn link_of(&self, token: &str) -> String {
        format!("{}{}", self.origin, self.path_of(token))
    }
}

/// A mount path: `/` and then segments of URL-safe characters, without a trailing
/// slash; not the root (the page gets a path of its own beside the app's routes).
fn check_mount(mount: &str) -> Result<String, MountError> {
    let bad = |reason: &'static str| MountError::MountPath {
        path: mount.to_owned(),
        reason,
    };
    let Some(rest) = mount.strip_prefix('/') else {
        return Err(bad("it does not start with `/`"));
    };
    let rest = rest.strip_suffix('/').unwrap_or(rest);
    if rest.is_empty() {
        return Err(bad(
            "it is the root; give the page a path of its own, such as `/elicit`",
        ));
    }
    for segment in rest.split('/') {
        if segment.is_empty() || segment == "." || segment == ".." {
            return Err(bad("it has an empty, `.` or `..` segment"));
        }
        // Unreserved characters only: nothing to percent-encode, nothing axum reads
        // as a route parameter (`{`, `}`, `*`).
        if !segment
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~'))
        {
            return Err(bad(
                "it has a character other than letters, digits, `-`, `.`, `_`, `~` and `/`",
            ));
        }
    }
    Ok(format!("/{rest}"))
}

/// What the proxy in front says of the browser's request: RFC 7239 `Forwarded`, or
/// else `X-Forwarded-Host` and `X-Forwarded-Proto`. Of a list, the last value counts:
/// the proxy next to the app appends its own after whatever the client sent.
#[derive(Debug, Default)]
struct Forwarded {
    host: Option<String>,
    proto: Option<String>,
}

impl Forwarded {
    /// `None` when the request carries both `Forwarded` and `X-Forwarded-Host` or
    /// `X-Forwarded-Proto`: one of them is the client's, and which is unknowable.
    fn read(headers: &HeaderMap) -> Option<Self> {
        let x_forwarded =
            headers.contains_key("x-forwarded-host") || headers.contains_key("x-forwarded-proto");
        if headers.contains_key("forwarded") && x_forwarded {
            return None;
        }
        Some(Self::read_one(headers))
    }

    fn read_one(headers: &HeaderMap) -> Self {
        if let Some(last) = last_element(headers, "forwarded") {
            let mut forwarded = Forwarded::default();
            for pair in last.split(';') {
                let Some((name, value)) = pair.split_once('=') else {
                    continue;
                };
                let value = value.trim().trim_matches('"').to_owned();
                match name.trim().to_ascii_lowercase().as_str() {
                    "host" => forwarded.host = Some(value),
                    "proto" => forwarded.proto = Some(value),
                    _ => {}
                }
            }
            return forwarded;
        }
        Forwarded {
            host: last_element(headers, "x-forwarded-host"),
            proto: last_element(headers, "x-forwarded-proto"),
        }
    }
}

/// The last comma-separated element of the last `name` header, trimmed. A value that
/// is not visible ASCII counts as present and matches nothing.
fn last_element(headers: &HeaderMap, name: &str) -> Option<String> {
    let value = headers.get_all(name).iter().next_back()?;
    let Ok(text) = value.to_str() else {
        return Some(String::from("\u{fffd}"));
    };
    text.rsplit(',').next().map(|s| s.trim().to_owned())
}

/// Why a public origin or mount path was refused for a [mounted](super::SecurePageBuilder::mounted)
/// page.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum MountError {
    /// Not an origin: `https://host[:port]` and nothing else.
    NotAnOrigin {
        /// The origin as given.
        origin: String,
        /// Why not.
        reason: &'static str,
    },
    /// Plain `http` on a host that is not loopback: the page asks for secrets, and
    /// outside development it is served over `https` ([S1](crate::rules#s1)).
    PlainHttp {
        /// The origin as given.
        origin: String,
    },
    /// Not a path the page can be mounted at.
    MountPath {
        /// The path as given.
        path: String,
        /// Why not.
        reason: &'static str,
    },
    /// A public origin (a host that is not loopback) for a page that authenticates
    /// nobody: anyone a link reaches could answer for the user who asked
    /// ([S6](crate::rules#s6)). Give the builder
    /// [`authenticate`](super::SecurePageBuilder::authenticate), or
    /// [`unauthenticated_single_user`](super::SecurePageBuilder::unauthenticated_single_user)
    /// for a deployment with one user and no login.
    Unauthenticated {
        /// The origin as given.
        origin: String,
    },
}

impl fmt::Display for MountError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MountError::NotAnOrigin { origin, reason } => write!(
                f,
                "`{origin}` is not a public origin (`https://host` or `https://host:port`): {reason}"
            ),
            MountError::PlainHttp { origin } => write!(
                f,
                "the public origin `{origin}` uses plain `http` on a host that is not loopback: \
                 the secure page must be reached over `https` outside development: use \
                 `https://`, with TLS at the proxy in front, or `http` only on \
                 `localhost`, `127.0.0.1` or `[::1]`; {}",
                crate::rules::cite("S1")
            ),
            MountError::MountPath { path, reason } => {
                write!(f, "`{path}` is not a mount path for the secure page: {reason}")
            }
            MountError::Unauthenticated { origin } => write!(
                f,
                "the secure page at the public origin `{origin}` has no way to tell who fills \
                 it: anyone a link reaches (a forwarded message, a shared screen) could answer \
                 for the user who asked; give the builder `authenticate` with the \
                 application's own login, or, for a deployment with one user and no login, \
                 `unauthenticated_single_user`; {}",
                crate::rules::cite("S6")
            ),
        }
    }
}

impl std::error::Error for MountError {}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.append(*name, value.parse().unwrap());
        }
        map
    }

    // covers: S1
    #[test]
    fn origins_are_checked() {
        let public = Public::parse("https://Agent.Example.com/", "/elicit/", false).unwrap();
        assert_eq!(public.origin, "https://agent.example.com");
        assert_eq!(public.host, "agent.example.com");
        assert_eq!(public.mount, "/elicit");
        assert_eq!(public.link_of("t"), "https://agent.example.com/elicit/t");
        let port = Public::parse("https://agent.example.com:8443", "/a/b", false).unwrap();
        assert_eq!(port.host, "agent.example.com:8443");
        assert_eq!(port.link_of("t"), "https://agent.example.com:8443/a/b/t");
        let v6 = Public::parse("http://[::1]:9000", "/e", false).unwrap();
        assert_eq!(v6.host, "[::1]:9000");
        for loopback in [
            "http://127.0.0.1:8080",
            "http://localhost:1",
            "http://a.localhost",
        ] {
            assert!(Public::parse(loopback, "/e", false).is_ok(), "{loopback}");
        }
        for plain in [
            "http://agent.example.com",
            "http://10.0.0.1:80",
            "http://0.0.0.0:8080",
        ] {
            let error = Public::parse(plain, "/e", false).unwrap_err();
            assert!(matches!(error, MountError::PlainHttp { .. }), "{plain}");
            assert!(error.to_string().contains("https"), "{error}");
        }
        for not in [
            "agent.example.com",
            "ftp://agent.example.com",
            "https://u:p@agent.example.com",
            "https://agent.example.com/elicit",
            "https://agent.example.com/?q",
            "https://agent.example.com/#f",
        ] {
            let error = Public::parse(not, "/e", false).unwrap_err();
            assert!(
                matches!(error, MountError::NotAnOrigin { .. }),
                "{not}: {error}"
            );
        }
        for bad in [
            "elicit", "/", "//", "/a//b", "/a/../b", "/{x}", "/a b", "/*",
        ] {
            let error = Public::parse("https://a.example", bad, false).unwrap_err();
            assert!(
                matches!(error, MountError::MountPath { .. }),
                "{bad}: {error}"
            );
        }
    }

    #[test]
    fn the_host_is_compared_and_forwarding_read_only_when_trusted() {
        let uri = Uri::from_static("/elicit/t");
        let direct = Public::parse("https://agent.example.com", "/elicit", false).unwrap();
        assert!(direct.addressed(&headers(&[("host", "agent.example.com")]), &uri));
        assert!(direct.addressed(&headers(&[("host", "AGENT.example.com:443")]), &uri));
        assert!(!direct.addressed(&headers(&[("host", "agent.example.com:80")]), &uri));
        assert!(!direct.addressed(&headers(&[("host", "evil.example")]), &uri));
        assert!(!direct.addressed(&headers(&[]), &uri));
        // Untrusted: forwarded headers change nothing either way.
        let spoofed = headers(&[
            ("host", "127.0.0.1:8080"),
            ("x-forwarded-host", "agent.example.com"),
            ("forwarded", "host=agent.example.com;proto=https"),
        ]);
        assert!(!direct.addressed(&spoofed, &uri));
        let plain = headers(&[("host", "agent.example.com"), ("x-forwarded-proto", "http")]);
        assert!(direct.addressed(&plain, &uri));
        // HTTP/2: the authority of the request.
        let h2 = Uri::from_static("https://agent.example.com/elicit/t");
        assert!(direct.addressed(&headers(&[]), &h2));

        let proxied = Public::parse("https://agent.example.com", "/elicit", true).unwrap();
        // Both families: one is the client's; refused whichever names the origin.
        assert!(!proxied.addressed(&spoofed, &uri));
        for (forwarded, x) in [
            (
                "host=agent.example.com;proto=https",
                ("x-forwarded-host", "evil.example"),
            ),
            (
                "host=evil.example;proto=https",
                ("x-forwarded-host", "agent.example.com"),
            ),
            (
                "host=agent.example.com;proto=https",
                ("x-forwarded-proto", "https"),
            ),
        ] {
            let both = headers(&[("host", "127.0.0.1:8080"), ("forwarded", forwarded), x]);
            assert!(!proxied.addressed(&both, &uri), "{forwarded} {x:?}");
        }
        let only_forwarded = headers(&[
            ("host", "127.0.0.1:8080"),
            ("forwarded", "host=agent.example.com;proto=https"),
        ]);
        assert!(proxied.addressed(&only_forwarded, &uri));
        assert!(!proxied.addressed(&plain, &uri));
        let x = headers(&[
            ("host", "127.0.0.1:8080"),
            ("x-forwarded-host", "evil.example, agent.example.com"),
            ("x-forwarded-proto", "https"),
        ]);
        assert!(proxied.addressed(&x, &uri));
        let appended = headers(&[
            ("host", "agent.example.com"),
            ("x-forwarded-host", "agent.example.com, evil.example"),
        ]);
        assert!(!proxied.addressed(&appended, &uri));
        let quoted = headers(&[
            ("host", "127.0.0.1:8080"),
            ("forwarded", "for=1.2.3.4;host=evil.example"),
            (
                "forwarded",
                "for=\"[2001:db8::1]\";host=\"agent.example.com\";proto=https",
            ),
        ]);
        assert!(proxied.addressed(&quoted, &uri));
        // Without forwarded headers, the `Host` itself.
        assert!(proxied.addressed(&headers(&[("host", "agent.example.com")]), &uri));
    }
}
