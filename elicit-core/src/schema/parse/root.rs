//! The root object ([F1](crate::rules#f1)): its members, `properties`, and `required` ([D2](crate::rules#d2)).

use std::borrow::Cow;
use std::sync::OnceLock;

use serde_json::{Map, Value};

use super::defaults::PendingDefault;
use super::{json_type, Parser, Ptr, ROOT};
use crate::schema::error::{SchemaError, SchemaErrorKind as K};
use crate::schema::{Property, RequestedSchema, Validation, Validator};
use crate::store::key::same_text;
use crate::store::Attach;

impl Parser<'_> {
    /// The schema, or every problem found.
    pub(super) fn root(&mut self, json: &Value) -> Result<RequestedSchema, SchemaError> {
        let Some(obj) = json.as_object() else {
            self.err(
                &ROOT,
                K::NotAnObject {
                    found: json_type(json),
                },
            );
            return Err(self.error());
        };
        let mut title = None;
        let mut description = None;
        let mut meta = None;
        let mut extra: Option<Map<String, Value>> = None;
        let mut properties_json = None;
        let mut required_json = None;
        let mut saw_type = false;
        // The properties' long texts (past what a `Text` holds inline: descriptions,
        // long titles): room for most forms' without the buffer growing, reserved by
        // the pool when the first one comes, so a form without any allocates nothing.
        let declared = obj
            .iter()
            .find(|(key, _)| key.as_str() == "properties")
            .and_then(|(_, value)| value.as_object())
            .map_or(0, Map::len)
            .min(self.limits.max_properties);
        self.pool.reserve(64 + declared * 40);
        // Lists past the first few share a buffer: room for an option a property (what
        // forms with many selects have), made when the first shared list comes.
        self.lists.expect(declared);
        for (key, value) in obj {
            let at = ROOT.key(key);
            match key.as_str() {
                "type" => {
                    saw_type = true;
                    if value.as_str() != Some("object") {
                        self.err(&at, K::RootNotObjectType);
                    }
                }
                "title" => title = self.root_text(value, &at, "title"),
                "description" => description = self.root_text(value, &at, "description"),
                "_meta" => meta = self.meta(value, &at),
                "properties" => properties_json = Some(value),
                "required" => required_json = Some(value),
                "$schema" => {
                    extra
                        .get_or_insert_with(Map::new)
                        .insert(key.clone(), value.clone());
                }
                _ => self.other_keyword(key, value, &at, &mut extra),
            }
        }
        if !saw_type {
            self.err(&ROOT, K::RootNotObjectType);
        }
        let mut properties = Vec::new();
        let mut defaults = Vec::new();
        let at = ROOT.key("properties");
        match properties_json {
            None => self.err(&ROOT, K::MissingProperties),
            Some(value) => match value.as_object() {
                None => self.err(
                    &at,
                    K::WrongJsonType {
                        keyword: "properties",
                        expected: "an object of property schemas",
                    },
                ),
                Some(props) => {
                    if props.len() > self.limits.max_properties {
                        self.err(
                            &at,
                            K::LimitExceeded {
                                what: "properties",
                                limit: self.limits.max_properties,
                            },
                        );
                    } else {
                        properties.reserve_exact(props.len());
                        for (name, schema) in props {
                            let pat = at.key(name);
                            self.text_limit(name, &pat);
                            self.property(name, schema, &pat, &mut properties, &mut defaults);
                        }
                    }
                }
            },
        }
        // Every text is read: attach the buffer to each long one, after which the parse
        // may read what it made. When every text was short, none is pending.
        if let Some(buffer) = self.pool.freeze() {
            properties.attach(&buffer);
            self.lists.attach_texts(&buffer);
            for pending in &mut defaults {
                pending.default.attach(&buffer);
            }
        }
        // Then the shared lists' buffers (their items now complete) to their lists.
        self.lists.attach_to(&mut properties);
        self.defaults(defaults, &mut properties);
        if let Some(value) = required_json {
            self.required(
                value,
                &ROOT.key("required"),
                properties_json,
                &mut properties,
            );
        }
        if !self.issues.is_empty() {
            return Err(self.error());
        }
        Ok(RequestedSchema {
            title,
            description,
            properties: Cow::Owned(properties),
            meta: meta.map(Box::new),
            extra: extra.map(Box::new),
            wire: OnceLock::new(),
            tables: Validator::NO_TABLES,
        })
    }

    /// Checks the defaults read with the properties ([D11](crate::rules#d11)), now that the
    /// options they are checked against can be read. Their problems are reported where
    /// they were found, among the properties' own.
    fn defaults(&mut self, defaults: Vec<PendingDefault<'_>>, properties: &mut [Property]) {
        if defaults.is_empty() {
            return;
        }
        let mut later = std::mem::take(&mut self.issues).into_iter();
        let at = ROOT.key("properties");
        let mut moved = 0;
        for pending in defaults {
            self.issues
                .extend(later.by_ref().take(pending.issues_before - moved));
            moved = pending.issues_before;
            let pat = at.key(pending.name);
            let schema = &mut properties[pending.property].schema;
            self.default(pending.default, &pat.key("default"), schema);
        }
        self.issues.extend(later);
    }

    fn required(
        &mut self,
        value: &Value,
        at: &Ptr<'_>,
        declared: Option<&Value>,
        properties: &mut [Property],
    ) {
        let list = match value {
            Value::Null => return,
            Value::Array(list) => list,
            _ => {
                return self.err(
                    at,
                    K::WrongJsonType {
                        keyword: "required",
                        expected: "an array of property names",
                    },
                )
            }
        };
        let declared = declared.and_then(Value::as_object);
        // Names that are required but not (validly) declared: rare, so a list.
        let mut seen_elsewhere: Vec<&str> = Vec::new();
        // `required` nearly always follows the declaration order, so each search starts
        // after the last property found and the whole list costs one pass.
        let mut cursor = 0;
        for (i, name) in list.iter().enumerate() {
            let iat = at.index(i);
            let Some(name) = name.as_str() else {
                self.err(
                    &iat,
                    K::WrongJsonType {
                        keyword: "required",
                        expected: "an array of property names (strings)",
                    },
                );
                continue;
            };
            // The property at the cursor first, without the search's iterators.
            let found = if properties
                .get(cursor)
                .is_some_and(|p| same_text(&p.name, name))
            {
                Some(cursor)
            } else {
                // The cursor's own property was just compared.
                (cursor + 1..properties.len())
                    .chain(0..cursor)
                    .find(|&j| same_text(&properties[j].name, name))
            };
            let duplicate = match found {
                Some(j) => {
                    cursor = j + 1;
                    std::mem::replace(&mut properties[j].required, true)
                }
                None if seen_elsewhere.contains(&name) => true,
                None => {
                    seen_elsewhere.push(name);
                    false
                }
            };
            if duplicate {
                self.err(
                    &iat,
                    K::RequiredDuplicate {
                        name: name.to_owned(),
                    },
                );
                continue;
            }
            if found.is_some() {
                continue;
            }
            // D2: a required name with no property can never be satisfied by a form; a
            // property that failed to parse is reported on its own.
            if !declared.is_some_and(|d| d.contains_key(name)) {
                self.err(
                    &iat,
                    K::RequiredUnknown {
                        name: name.to_owned(),
                    },
                );
            }
        }
    }
}
