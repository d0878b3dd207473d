//! Single- and multi-select kinds and their options: `enum`, `oneOf`, `anyOf`, the
//! legacy `enumNames` ([M5](crate::rules#m5)), and duplicate values ([D4](crate::rules#d4)).

use std::collections::HashSet;

use serde_json::Value;

use super::property::{Kw, PropBuilder};
use super::{is_annotation_keyword, json_type, Parser, Ptr};
use crate::schema::error::SchemaErrorKind as K;
use crate::schema::{
    EnumOption, List, MultiSelectSchema, Options, PropertyKind, SingleSelectSchema, Text,
};
use crate::store::key::same;

/// Option values seen so far ([D4](crate::rules#d4)): a linear scan of a stack array for the short lists
/// forms have (no allocation), a hash set past that, so a list at the option limit
/// stays linear.
struct Seen<'a> {
    // `Option`, so that the empty list is zeroed memory.
    list: [Option<&'a str>; Seen::LINEAR],
    len: usize,
    set: Option<HashSet<&'a str>>,
}

impl<'a> Seen<'a> {
    const LINEAR: usize = 32;

    fn new(len: usize) -> Self {
        Seen {
            list: [None; Self::LINEAR],
            len: 0,
            set: (len > Self::LINEAR).then(|| HashSet::with_capacity(len)),
        }
    }

    /// `false` when `value` was seen before.
    #[inline]
    fn insert(&mut self, value: &'a str) -> bool {
        match &mut self.set {
            Some(set) => set.insert(value),
            // Lengths first, short values a word at a time (no `memcmp` call each).
            None if self.list[..self.len]
                .iter()
                .flatten()
                .any(|seen| same(seen.as_bytes(), value.as_bytes())) =>
            {
                false
            }
            None if self.len == Self::LINEAR => {
                // More values than `new` was told of: move on to the set.
                let mut set: HashSet<&'a str> = self.list.iter().flatten().copied().collect();
                set.insert(value);
                self.set = Some(set);
                true
            }
            None => {
                self.list[self.len] = Some(value);
                self.len += 1;
                true
            }
        }
    }
}

impl Parser<'_> {
    pub(super) fn single_select_kind(
        &mut self,
        b: &mut PropBuilder<'_>,
        has_enum: bool,
        has_one_of: bool,
        out: &mut PropertyKind,
    ) -> Option<()> {
        b.misplace_many(
            &[Kw::MinLength, Kw::MaxLength, Kw::Pattern, Kw::Format],
            "single-select",
        );
        if has_enum && has_one_of {
            self.err(&b.at.key("oneOf"), K::EnumWithOneOf);
            b.allow(&[Kw::Enum, Kw::OneOf, Kw::EnumNames]);
            return None;
        }
        let names = b.take(Kw::EnumNames);
        let options = if has_one_of {
            b.allow(&[Kw::Enum]);
            if names.is_some() {
                self.legacy_names_misplaced(b);
            }
            let v = b.take(Kw::OneOf)?;
            self.titled_options(v, &b.at.key("oneOf"), "oneOf")?
        } else {
            b.allow(&[Kw::OneOf]);
            let v = b.take(Kw::Enum)?;
            let at = &b.at.key("enum");
            // Legacy names pair up with the values, which then stay a list of their own.
            let legacy = names.filter(|n| !n.is_null());
            let values = self.untitled_options(v, at, legacy.is_none())?;
            match legacy {
                None => Options::Untitled(values),
                Some(names) => {
                    self.legacy_enum_names(values.into_vec(), names, &b.at.key("enumNames"))?
                }
            }
        };
        super::place(
            out,
            PropertyKind::SingleSelect(SingleSelectSchema {
                options,
                default: None,
            }),
        );
        Some(())
    }

    fn legacy_names_misplaced(&mut self, b: &PropBuilder<'_>) {
        if self.strict {
            self.err(&b.at.key("enumNames"), K::LegacyEnumNames);
        }
    }

    /// [M5](crate::rules#m5): MCP's legacy `enum` + `enumNames` reads as titled options in the lenient
    /// parse; the strict parse refuses it. Names that do not line up with the values
    /// are cosmetic and read as absent.
    fn legacy_enum_names(
        &mut self,
        values: Vec<Text>,
        names: &Value,
        at: &Ptr<'_>,
    ) -> Option<Options> {
        if self.strict {
            self.err(at, K::LegacyEnumNames);
            return None;
        }
        let names: Option<Vec<&str>> = names
            .as_array()
            .filter(|n| n.len() == values.len())
            .and_then(|n| n.iter().map(Value::as_str).collect());
        Some(match names {
            Some(names) => Options::Titled(List::from(
                values
                    .into_iter()
                    .zip(names)
                    .map(|(value, title)| EnumOption {
                        value,
                        title: self.pool.text(title),
                        description: None,
                        meta: None,
                    })
                    .collect::<Vec<_>>(),
            )),
            None => Options::Untitled(List::from(values)),
        })
    }

    fn options_array<'v>(
        &mut self,
        v: &'v Value,
        at: &Ptr<'_>,
        keyword: &'static str,
    ) -> Option<&'v Vec<Value>> {
        let Some(list) = v.as_array() else {
            self.err(
                at,
                K::WrongJsonType {
                    keyword,
                    expected: "an array of options",
                },
            );
            return None;
        };
        if list.is_empty() {
            self.err(at, K::EmptyOptions);
            return None;
        }
        if list.len() > self.limits.max_options {
            self.err(
                at,
                K::LimitExceeded {
                    what: "options",
                    limit: self.limits.max_options,
                },
            );
            return None;
        }
        Some(list)
    }

    /// An `enum` list's values; `may_share`: the list may be a span of the parse's
    /// shared buffer ([`Lists`](super::lists::Lists)).
    fn untitled_options(&mut self, v: &Value, at: &Ptr<'_>, may_share: bool) -> Option<List<Text>> {
        let list = self.options_array(v, at, "enum")?;
        // Short lists are checked for duplicates against the items before (no set to
        // build); long ones with a set, so that the limit's 1,024 options stay linear.
        let mut seen = (list.len() > Seen::LINEAR).then(|| Seen::new(list.len()));
        let mut out = self.lists.lend(list.len(), may_share);
        let before = self.issues.len();
        for (i, item) in list.iter().enumerate() {
            let iat = at.index(i);
            match item.as_str() {
                None => self.err(&iat, K::OptionNotAString),
                Some(s) => {
                    let duplicate = match &mut seen {
                        Some(seen) => !seen.insert(s),
                        None => list[..i]
                            .iter()
                            .any(|v| v.as_str().is_some_and(|v| same(v.as_bytes(), s.as_bytes()))),
                    };
                    if duplicate {
                        self.err(
                            &iat,
                            K::DuplicateOption {
                                value: s.to_owned(),
                            },
                        );
                    } else if self.text_limit(s, &iat) {
                        out.items.push(self.pool.text(s));
                    }
                }
            }
        }
        if self.issues.len() != before {
            self.lists.discard(out);
            return None;
        }
        Some(self.lists.list(out))
    }

    fn titled_options(
        &mut self,
        v: &Value,
        at: &Ptr<'_>,
        keyword: &'static str,
    ) -> Option<Options> {
        let list = self.options_array(v, at, keyword)?;
        let mut seen = Seen::new(list.len());
        let mut out = self.lists.lend(list.len(), true);
        let before = self.issues.len();
        for (i, item) in list.iter().enumerate() {
            let iat = at.index(i);
            let Some(obj) = item.as_object() else {
                self.err(
                    &iat,
                    K::NotAnObject {
                        found: json_type(item),
                    },
                );
                continue;
            };
            let mut value = None;
            let mut title = None;
            let mut description = None;
            let mut meta = None;
            let (mut has_const, mut has_title) = (false, false);
            for (key, member) in obj {
                let kat = iat.key(key);
                match key.as_str() {
                    "const" => {
                        has_const = true;
                        match member.as_str() {
                            Some(s) => value = Some(s),
                            None => self.err(&kat, K::OptionNotAString),
                        }
                    }
                    "title" => match member.as_str() {
                        Some(s) => {
                            title = Some(s);
                            has_title = true;
                        }
                        None => {
                            has_title = true;
                            self.err(
                                &kat,
                                K::WrongJsonType {
                                    keyword: "title",
                                    expected: "a string",
                                },
                            );
                        }
                    },
                    "description" => description = self.cosmetic_text(member, &kat, "description"),
                    "_meta" => meta = self.meta(member, &kat).map(Box::new),
                    k if is_annotation_keyword(k) => {}
                    _ if self.strict => self.err(
                        &kat,
                        K::UnsupportedKeyword {
                            keyword: key.clone(),
                        },
                    ),
                    // Lenient: an option's unknown member is cosmetic.
                    _ => {}
                }
            }
            match (value, has_const) {
                (None, false) => self.err(&iat, K::OptionMissingConst),
                (Some(v), _) if !seen.insert(v) => self.err(
                    &iat.key("const"),
                    K::DuplicateOption {
                        value: v.to_owned(),
                    },
                ),
                _ => {}
            }
            if !has_title {
                self.err(&iat, K::OptionMissingTitle);
            }
            if let (Some(value), Some(title)) = (value, title) {
                if self.text_limit(value, &iat) && self.text_limit(title, &iat) {
                    out.items.push(EnumOption {
                        value: self.pool.text(value),
                        title: self.pool.text(title),
                        description,
                        meta,
                    });
                }
            }
        }
        if self.issues.len() != before {
            self.lists.discard(out);
            return None;
        }
        Some(Options::Titled(self.lists.list(out)))
    }

    pub(super) fn multi_select_kind(
        &mut self,
        b: &mut PropBuilder<'_>,
        out: &mut PropertyKind,
    ) -> Option<()> {
        b.misplace_many(
            &[
                Kw::MinLength,
                Kw::MaxLength,
                Kw::Pattern,
                Kw::Format,
                Kw::Minimum,
                Kw::Maximum,
                Kw::Enum,
                Kw::OneOf,
            ],
            "multi-select",
        );
        let min_items = self.count(b, Kw::MinItems, u64::MAX);
        let max_items = self.count(b, Kw::MaxItems, u64::MAX);
        self.min_max(b.at, &min_items, &max_items, ("minItems", "maxItems"));
        let items_at = &b.at.key("items");
        let Some(items) = b.take(Kw::Items) else {
            self.err(
                b.at,
                K::ArrayNotMultiSelect {
                    reason: "`items` is missing",
                },
            );
            return None;
        };
        let Some(items) = items.as_object() else {
            self.err(
                items_at,
                K::ArrayNotMultiSelect {
                    reason: "`items` is not an object",
                },
            );
            return None;
        };
        // The members that decide the shape, in one pass (no hashed look-ups).
        let (mut has_ref, mut has_enum, mut has_any_of, mut items_type) =
            (false, false, false, None);
        for (key, value) in items {
            match key.as_str() {
                "$ref" => has_ref = true,
                "enum" => has_enum = !value.is_null(),
                "anyOf" => has_any_of = !value.is_null(),
                "type" => items_type = Some(value),
                _ => {}
            }
        }
        if has_ref {
            self.err(&items_at.key("$ref"), K::Ref);
            return None;
        }
        match items_type {
            None if has_any_of => {}
            Some(Value::String(t)) if t == "string" => {}
            None => {
                self.err(
                    items_at,
                    K::ArrayNotMultiSelect {
                        reason: "`items` has neither `enum` nor `anyOf`",
                    },
                );
                return None;
            }
            Some(_) => {
                self.err(
                    &items_at.key("type"),
                    K::ArrayNotMultiSelect {
                        reason: "items must be strings",
                    },
                );
                return None;
            }
        }
        let mut options = None;
        let mut ok = true;
        for (key, value) in items {
            let kat = items_at.key(key);
            match key.as_str() {
                "type" | "_meta" | "title" | "description" => {}
                "enum" | "anyOf" if value.is_null() => {}
                "enum" if has_any_of => {
                    self.err(&kat, K::EnumWithOneOf);
                    ok = false;
                }
                "enum" => {
                    options = self
                        .untitled_options(value, &kat, true)
                        .map(Options::Untitled);
                    ok &= options.is_some();
                }
                "anyOf" => {
                    options = self.titled_options(value, &kat, "anyOf");
                    ok &= options.is_some();
                }
                k if is_annotation_keyword(k) => {}
                _ if self.strict => {
                    self.err(
                        &kat,
                        K::UnsupportedKeyword {
                            keyword: key.clone(),
                        },
                    );
                    ok = false;
                }
                _ => {}
            }
        }
        if !has_enum && !has_any_of {
            self.err(
                items_at,
                K::ArrayNotMultiSelect {
                    reason: "`items` has neither `enum` nor `anyOf`",
                },
            );
            return None;
        }
        let options = options.filter(|_| ok)?;
        super::place(
            out,
            PropertyKind::MultiSelect(MultiSelectSchema {
                options,
                min_items,
                max_items,
                default: None,
            }),
        );
        Some(())
    }
}

#[cfg(test)]
mod tests {
    use super::Seen;

    #[test]
    fn seen_finds_repeats_past_the_stack_array() {
        let values: Vec<String> = (0..40).map(|i| i.to_string()).collect();
        for hint in [0, 40] {
            let mut seen = Seen::new(hint);
            assert!(values.iter().all(|v| seen.insert(v)));
            assert!(values.iter().all(|v| !seen.insert(v)));
        }
    }
}
