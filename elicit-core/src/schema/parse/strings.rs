//! The `string` kind: lengths, `pattern` ([D8](crate::rules#d8)) and `format` ([D7](crate::rules#d7)).

use serde_json::Value;

use super::property::{Kw, PropBuilder};
use super::{Parser, Ptr};
use crate::format::Format;
use crate::pattern::compile_pattern;
use crate::schema::error::SchemaErrorKind as K;
use crate::schema::{FormatSpec, Pattern, PropertyKind, StringSchema};

impl Parser<'_> {
    pub(super) fn string_kind(
        &mut self,
        b: &mut PropBuilder<'_>,
        out: &mut PropertyKind,
    ) -> Option<()> {
        let has_enum = b.get(Kw::Enum).is_some_and(|v| !v.is_null());
        let has_one_of = b.get(Kw::OneOf).is_some_and(|v| !v.is_null());
        b.misplace_many(
            &[
                Kw::Items,
                Kw::MinItems,
                Kw::MaxItems,
                Kw::Minimum,
                Kw::Maximum,
            ],
            "string",
        );
        if has_enum || has_one_of || b.contains(Kw::EnumNames) {
            return self.single_select_kind(b, has_enum, has_one_of, out);
        }
        b.allow(&[Kw::Enum, Kw::OneOf]);
        let min_length = self
            .count(b, Kw::MinLength, u64::from(u32::MAX))
            .map(|v| v as u32);
        let max_length = self
            .count(b, Kw::MaxLength, u64::from(u32::MAX))
            .map(|v| v as u32);
        self.min_max(b.at, &min_length, &max_length, ("minLength", "maxLength"));
        let pattern = match b.take(Kw::Pattern) {
            None | Some(Value::Null) => None,
            Some(Value::String(src)) => self.pattern(src, &b.at.key("pattern")),
            Some(_) => {
                self.err(
                    &b.at.key("pattern"),
                    K::WrongJsonType {
                        keyword: "pattern",
                        expected: "a string (an ECMA-262 regular expression)",
                    },
                );
                None
            }
        };
        let format = match b.take(Kw::Format) {
            None | Some(Value::Null) => None,
            Some(Value::String(name)) => match Format::from_name(name) {
                Some(f) => Some(FormatSpec::Known(f)),
                None if self.strict => {
                    self.err(
                        &b.at.key("format"),
                        K::UnknownFormat {
                            found: name.clone(),
                        },
                    );
                    None
                }
                // D7: kept as an annotation, not asserted.
                None => Some(FormatSpec::Unknown(self.pool.text(name))),
            },
            Some(_) => {
                self.err(
                    &b.at.key("format"),
                    K::WrongJsonType {
                        keyword: "format",
                        expected: "a string",
                    },
                );
                None
            }
        };
        super::place(
            out,
            PropertyKind::String(StringSchema {
                min_length,
                max_length,
                pattern,
                format,
                default: None,
            }),
        );
        Some(())
    }

    fn pattern(&mut self, src: &str, at: &Ptr<'_>) -> Option<Pattern> {
        if src.chars().count() > self.limits.max_pattern_len {
            self.err(
                at,
                K::LimitExceeded {
                    what: "characters in a pattern",
                    limit: self.limits.max_pattern_len,
                },
            );
            return None;
        }
        match compile_pattern(src, self.limits.pattern_size_limit) {
            Ok(re) => Some(Pattern::compiled(self.pool.text(src), Ok(re))),
            Err(e) if self.strict => {
                self.err(
                    at,
                    K::InvalidPattern {
                        reason: e.to_string(),
                    },
                );
                None
            }
            // D8: kept, unenforced, and reported by `unenforced()`.
            Err(e) => Some(Pattern::unenforced(self.pool.text(src), e)),
        }
    }
}
