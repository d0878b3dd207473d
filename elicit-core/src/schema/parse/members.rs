//! Members any object of the schema may carry, and where the strict and lenient parses
//! part over them: keywords outside the subset (kept or refused), `title` and
//! `description` ([C6](crate::rules#c6), [D14](crate::rules#d14)), `_meta` ([E7](crate::rules#e7)), and the length of a text ([D12](crate::rules#d12)).

use serde_json::Value;

use super::{depth_exceeds, is_annotation_keyword, Parser, Ptr};
use crate::schema::error::SchemaErrorKind as K;
use crate::schema::{Meta, Text};

impl Parser<'_> {
    /// A member outside the subset: refused by the strict parse, kept (and reported as
    /// unenforced) by the lenient one. Annotation keywords are kept by both.
    pub(super) fn other_keyword(
        &mut self,
        key: &str,
        value: &Value,
        at: &Ptr<'_>,
        extra: &mut Option<Meta>,
    ) {
        if key == "$ref" {
            return self.err(at, K::Ref);
        }
        if is_annotation_keyword(key) || !self.strict {
            if depth_exceeds(value, self.limits.max_depth) {
                return self.err(
                    at,
                    K::LimitExceeded {
                        what: "levels of nesting",
                        limit: self.limits.max_depth,
                    },
                );
            }
            // Created on first need: an empty map costs a hasher's set-up, and nearly
            // every object has no such member.
            extra
                .get_or_insert_with(Meta::new)
                .insert(key.to_owned(), value.clone());
        } else {
            self.err(
                at,
                K::UnsupportedKeyword {
                    keyword: key.to_owned(),
                },
            );
        }
    }

    pub(super) fn text_limit(&mut self, text: &str, at: &Ptr<'_>) -> bool {
        if text.len() > self.limits.max_text_bytes {
            self.err(
                at,
                K::LimitExceeded {
                    what: "bytes in one text",
                    limit: self.limits.max_text_bytes,
                },
            );
            return false;
        }
        true
    }

    /// `title` / `description`: null is absent; malformed is an error in the strict
    /// parse and absent in the lenient one ([C6](crate::rules#c6), [D14](crate::rules#d14)).
    pub(super) fn cosmetic_text(
        &mut self,
        value: &Value,
        at: &Ptr<'_>,
        keyword: &'static str,
    ) -> Option<Text> {
        self.cosmetic_str(value, at, keyword)
            .map(|s| self.pool.text(s))
    }

    /// The root's `title` / `description`, as [`Parser::cosmetic_text`] reads them, but
    /// each a text of its own rather than a span of the pool: then a form whose
    /// properties' texts are all short needs no shared buffer, and no walk attaching it.
    pub(super) fn root_text(
        &mut self,
        value: &Value,
        at: &Ptr<'_>,
        keyword: &'static str,
    ) -> Option<Text> {
        self.cosmetic_str(value, at, keyword).map(Text::copied)
    }

    fn cosmetic_str<'v>(
        &mut self,
        value: &'v Value,
        at: &Ptr<'_>,
        keyword: &'static str,
    ) -> Option<&'v str> {
        match value {
            Value::Null => None,
            Value::String(s) => self.text_limit(s, at).then_some(s.as_str()),
            _ if self.strict => {
                self.err(
                    at,
                    K::WrongJsonType {
                        keyword,
                        expected: "a string",
                    },
                );
                None
            }
            _ => None,
        }
    }

    /// `_meta` ([E7](crate::rules#e7)): kept as received; null is absent; malformed as for cosmetic text.
    pub(super) fn meta(&mut self, value: &Value, at: &Ptr<'_>) -> Option<Meta> {
        match value {
            Value::Null => None,
            Value::Object(m) => {
                if depth_exceeds(value, self.limits.max_depth) {
                    self.err(
                        at,
                        K::LimitExceeded {
                            what: "levels of nesting",
                            limit: self.limits.max_depth,
                        },
                    );
                    return None;
                }
                Some(m.clone())
            }
            _ if self.strict => {
                self.err(
                    at,
                    K::WrongJsonType {
                        keyword: "_meta",
                        expected: "an object",
                    },
                );
                None
            }
            _ => None,
        }
    }
}
