//! The URL parser's refusal, as this crate reports it.

use std::fmt;

/// Why text could not be parsed as a URL, by the WHATWG URL rules browsers follow.
///
/// It wraps the parser's own error without exposing the parser's type, so that the
/// URL parser this crate uses can change without breaking yours. `Display` gives the
/// parser's reason ("empty host", "invalid port number"…).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InvalidUrl(pub(crate) url::ParseError);

impl fmt::Display for InvalidUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl std::error::Error for InvalidUrl {}
