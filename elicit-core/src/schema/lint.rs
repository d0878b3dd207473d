//! Content rules a schema can break while being well-formed: asking for a secret in
//! form mode ([F5](crate::rules#f5)) and putting URLs in form text ([F7](crate::rules#f7)).

use std::fmt;

use super::{Options, PropertyKind, RequestedSchema};
use crate::vocab::{find_secret, find_url, SecretHit};

/// One lint finding, with the place and the reason.
#[derive(Debug, Clone, PartialEq)]
pub struct Finding {
    /// The property it concerns (`None` for the form's own title or description).
    pub property: Option<String>,
    /// Which text: `name`, `title`, `description`, or `option title`.
    pub field: &'static str,
    /// What was found.
    pub kind: FindingKind,
}

/// What a lint finding is about.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum FindingKind {
    /// The text asks for a secret or a credential, which form mode must not ([F5](crate::rules#f5)). Use
    /// URL mode instead ([F6](crate::rules#f6)).
    Secret(SecretHit),
    /// The text contains a URL a user could click ([F7](crate::rules#f7)).
    Url {
        /// The URL-like text found.
        text: String,
    },
}

impl Finding {
    /// Whether this is a secret finding ([F5](crate::rules#f5)): a request carrying it must not be sent.
    pub fn is_secret(&self) -> bool {
        matches!(self.kind, FindingKind::Secret(_))
    }
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.property {
            Some(p) => write!(f, "property `{p}` ({}): ", self.field)?,
            None => write!(f, "form {}: ", self.field)?,
        }
        match &self.kind {
            FindingKind::Secret(hit) => write!(
                f,
                "asks for {} (`{}`); form mode must not collect secrets or credentials, use URL mode instead",
                hit.kind.describe(),
                hit.term
            ),
            FindingKind::Url { text } => write!(
                f,
                "contains the URL `{text}`; form text should not carry clickable links"
            ),
        }
    }
}

impl RequestedSchema {
    /// Lints the form's texts: every property name, title, description and option title
    /// that asks for a secret ([F5](crate::rules#f5)), and every URL in the form's text ([F7](crate::rules#f7)). Ordinary
    /// profile data (name, email address, username) is not flagged.
    pub fn lint(&self) -> Vec<Finding> {
        let mut out = Vec::new();
        let mut scan = |property: Option<&str>, field: &'static str, text: &str, secrets: bool| {
            if secrets {
                if let Some(hit) = find_secret(text) {
                    out.push(Finding {
                        property: property.map(str::to_owned),
                        field,
                        kind: FindingKind::Secret(hit),
                    });
                }
            }
            if let Some(range) = find_url(text) {
                out.push(Finding {
                    property: property.map(str::to_owned),
                    field,
                    kind: FindingKind::Url {
                        text: text.get(range).unwrap_or(text).to_owned(),
                    },
                });
            }
        };
        // The form's own title and description say what the form is for; a form titled
        // "Reset your password" that asks for an email address is fine, so only URLs
        // are looked for there.
        if let Some(t) = self.title() {
            scan(None, "title", t, false);
        }
        if let Some(d) = self.description() {
            scan(None, "description", d, false);
        }
        for p in self.properties() {
            let name = Some(p.name());
            scan(name, "name", p.name(), true);
            if let Some(t) = p.schema().title() {
                scan(name, "title", t, true);
            }
            if let Some(d) = p.schema().description() {
                scan(name, "description", d, true);
            }
            let options = match p.schema().kind() {
                PropertyKind::SingleSelect(s) => Some(&s.options),
                PropertyKind::MultiSelect(m) => Some(&m.options),
                _ => None,
            };
            if let Some(Options::Titled(options)) = options {
                for o in options.iter() {
                    scan(name, "option title", o.title(), false);
                    if let Some(d) = o.description() {
                        scan(name, "option description", d, false);
                    }
                }
            }
        }
        out
    }

    /// The secret findings of [`RequestedSchema::lint`] only ([F5](crate::rules#f5)).
    pub fn secret_findings(&self) -> Vec<Finding> {
        let mut all = self.lint();
        all.retain(Finding::is_secret);
        all
    }
}
