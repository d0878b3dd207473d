//! The root object ([F1](crate::rules#f1)): its members, `properties`, and `required` ([D2](crate::rules#d2)).

use std::borrow::Cow;
use std::sync::OnceLock;

use serde_json::{Map, Value};

use super::{json_type, Parser, Ptr, ROOT};
use crate::schema::error::SchemaErrorKind as K;
use crate::schema::{Property, RequestedSchema};

impl Parser<'_> {
    pub(super) fn root(&mut self, json: &Value) -> Option<RequestedSchema> {
        let Some(obj) = json.as_object() else {
            self.err(
                &ROOT,
                K::NotAnObject {
                    found: json_type(json),
                },
            );
            return None;
        };
        let mut title = None;
        let mut description = None;
        let mut meta = None;
        let mut extra = Map::new();
        let mut properties_json = None;
        let mut required_json = None;
        let mut saw_type = false;
        for (key, value) in obj {
            let at = ROOT.key(key);
            match key.as_str() {
                "type" => {
                    saw_type = true;
                    if value.as_str() != Some("object") {
                        self.err(&at, K::RootNotObjectType);
                    }
                }
                "title" => title = self.cosmetic_text(value, &at, "title"),
                "description" => description = self.cosmetic_text(value, &at, "description"),
                "_meta" => meta = self.meta(value, &at),
                "properties" => properties_json = Some(value),
                "required" => required_json = Some(value),
                "$schema" => {
                    extra.insert(key.clone(), value.clone());
                }
                _ => self.other_keyword(key, value, &at, &mut extra),
            }
        }
        if !saw_type {
            self.err(&ROOT, K::RootNotObjectType);
        }
        let mut properties = Vec::new();
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
                            if let Some(schema) = self.property(schema, &pat) {
                                properties.push(Property {
                                    name: Cow::Owned(name.clone()),
                                    required: false,
                                    schema,
                                });
                            }
                        }
                    }
                }
            },
        }
        if let Some(value) = required_json {
            self.required(
                value,
                &ROOT.key("required"),
                properties_json,
                &mut properties,
            );
        }
        Some(RequestedSchema {
            title,
            description,
            properties: Cow::Owned(properties),
            meta,
            extra: (!extra.is_empty()).then_some(extra),
            wire: OnceLock::new(),
            names: crate::schema::index::NameIndex::new(),
        })
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
            let found = (cursor..properties.len())
                .chain(0..cursor)
                .find(|&j| properties[j].name == name);
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
