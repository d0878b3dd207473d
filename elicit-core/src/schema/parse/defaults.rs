//! Defaults ([D11](crate::rules#d11)): read, and checked against their own property.

use std::borrow::Cow;
use std::sync::Arc;

use serde_json::Value;

use super::numbers::{exact_f64, value_to_i64};
use super::{Parser, Ptr};
use crate::schema::error::SchemaErrorKind as K;
use crate::schema::{PropertyKind, PropertySchema, Text, Validation, Validator};
use crate::store::Attach;

/// A `default` waiting for its check, and where its problems go.
pub(super) struct PendingDefault<'v> {
    /// Index in the properties read.
    pub(super) property: usize,
    pub(super) name: &'v str,
    pub(super) default: DefaultValue<'v>,
    /// How many problems were found before it.
    pub(super) issues_before: usize,
}

/// A property's `default`, read with the property; checked once every property is read.
pub(super) struct DefaultValue<'v> {
    value: &'v Value,
    /// Its text, copied while the parse's text buffer is open.
    texts: DefaultTexts,
}

enum DefaultTexts {
    None,
    One(Text),
    Many(Vec<Text>),
}

impl Attach for DefaultValue<'_> {
    fn attach(&mut self, buffer: &Arc<String>) {
        match &mut self.texts {
            DefaultTexts::None => {}
            DefaultTexts::One(text) => text.attach(buffer),
            DefaultTexts::Many(texts) => texts.attach(buffer),
        }
    }
}

impl Parser<'_> {
    /// Copies the text of a `default` while the parse's text buffer is open. What is
    /// over the text limit is not copied: [`Parser::default`] refuses it.
    pub(super) fn default_value<'v>(&mut self, value: &'v Value) -> DefaultValue<'v> {
        let max = self.limits.max_text_bytes;
        let texts = match value {
            Value::String(s) if s.len() <= max => DefaultTexts::One(self.pool.text(s)),
            Value::Array(items) => DefaultTexts::Many(
                items
                    .iter()
                    .filter_map(Value::as_str)
                    .filter(|s| s.len() <= max)
                    .map(|s| self.pool.text(s))
                    .collect(),
            ),
            _ => DefaultTexts::None,
        };
        DefaultValue { value, texts }
    }

    /// Checks a `default` against its own property and keeps it. In the lenient parse a
    /// malformed or invalid default reads as absent (ACP marks it
    /// `x-deserialize-default-on-error`, [C6](crate::rules#c6)).
    pub(super) fn default(
        &mut self,
        default: DefaultValue<'_>,
        at: &Ptr<'_>,
        schema: &mut PropertySchema,
    ) {
        let DefaultValue { value, texts } = default;
        if let Some(reason) = Validator::default_violation(&schema.kind, value) {
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
        match (&mut schema.kind, texts) {
            (PropertyKind::String(s), DefaultTexts::One(d)) => s.default = Some(d),
            (PropertyKind::SingleSelect(s), DefaultTexts::One(d)) => s.default = Some(d),
            (PropertyKind::Number(n), _) => match value.as_number().and_then(exact_f64) {
                Some(f) => n.default = Some(f),
                None if self.strict => self.err(
                    at,
                    K::InvalidDefault {
                        reason: "the number is not exactly representable as a double".to_owned(),
                    },
                ),
                None => {}
            },
            (PropertyKind::Integer(n), _) => {
                n.default = value.as_number().and_then(|n| value_to_i64(n).ok());
            }
            (PropertyKind::Boolean(b), _) => b.default = value.as_bool(),
            (PropertyKind::MultiSelect(m), DefaultTexts::Many(d)) => {
                m.default = Some(Cow::Owned(d))
            }
            // A valid default always has the text its kind needs.
            _ => {}
        }
    }
}
