//! Defaults ([D11](crate::rules#d11)): read, and checked against their own property.

use std::borrow::Cow;

use serde_json::Value;

use super::numbers::{exact_f64, value_to_i64};
use super::{Parser, Ptr};
use crate::schema::check::check_value;
use crate::schema::error::SchemaErrorKind as K;
use crate::schema::{PropertyKind, PropertySchema};

impl Parser<'_> {
    /// Reads `default` and checks it against its own property. In the lenient parse a
    /// malformed or invalid default reads as absent (ACP marks it
    /// `x-deserialize-default-on-error`, [C6](crate::rules#c6)).
    pub(super) fn default(
        &mut self,
        value: Option<&Value>,
        at: &Ptr<'_>,
        schema: &mut PropertySchema,
    ) {
        let Some(value) = value.filter(|v| !v.is_null()) else {
            return;
        };
        let mut reasons = Vec::new();
        check_value(&schema.kind, value, &mut |v| reasons.push(v.to_string()));
        if let Some(reason) = reasons.into_iter().next() {
            if self.strict {
                self.err(at, K::InvalidDefault { reason });
            }
            return;
        }
        if let Some(s) = value.as_str() {
            if !self.text_limit(s, at) {
                return;
            }
        }
        match &mut schema.kind {
            PropertyKind::String(s) => s.default = value.as_str().map(|d| Cow::Owned(d.to_owned())),
            PropertyKind::SingleSelect(s) => {
                s.default = value.as_str().map(|d| Cow::Owned(d.to_owned()))
            }
            PropertyKind::Number(n) => match value.as_number().and_then(exact_f64) {
                Some(f) => n.default = Some(f),
                None if self.strict => self.err(
                    at,
                    K::InvalidDefault {
                        reason: "the number is not exactly representable as a double".to_owned(),
                    },
                ),
                None => {}
            },
            PropertyKind::Integer(n) => {
                n.default = value.as_number().and_then(|n| value_to_i64(n).ok());
            }
            PropertyKind::Boolean(b) => b.default = value.as_bool(),
            PropertyKind::MultiSelect(m) => {
                m.default = value.as_array().map(|items| {
                    Cow::Owned(
                        items
                            .iter()
                            .filter_map(Value::as_str)
                            .map(|s| Cow::Owned(s.to_owned()))
                            .collect(),
                    )
                })
            }
            PropertyKind::Unknown(_) => {}
        }
    }
}
