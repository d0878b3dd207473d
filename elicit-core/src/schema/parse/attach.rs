//! [`Attach`] for the schema's own types: every text field of each, so that the buffer
//! of a parse's long texts reaches them all.

use std::sync::Arc;

use crate::schema::{
    EnumOption, FormatSpec, MultiSelectSchema, Options, Pattern, Property, PropertyKind,
    PropertySchema, SingleSelectSchema, StringSchema,
};
use crate::store::Attach;

impl Attach for Property {
    #[inline]
    fn attach(&mut self, buffer: &Arc<String>) {
        let Property {
            name,
            required: _,
            schema,
        } = self;
        name.attach(buffer);
        schema.attach(buffer);
    }
}

impl Attach for PropertySchema {
    #[inline]
    fn attach(&mut self, buffer: &Arc<String>) {
        let PropertySchema {
            title,
            description,
            kind,
            meta: _,
            extra: _,
        } = self;
        title.attach(buffer);
        description.attach(buffer);
        match kind {
            PropertyKind::String(s) => {
                let StringSchema {
                    min_length: _,
                    max_length: _,
                    pattern,
                    format,
                    default,
                } = s;
                if let Some(Pattern { source, .. }) = pattern {
                    source.attach(buffer);
                }
                if let Some(FormatSpec::Unknown(name)) = format {
                    name.attach(buffer);
                }
                default.attach(buffer);
            }
            PropertyKind::SingleSelect(s) => {
                let SingleSelectSchema { options, default } = s;
                options.attach(buffer);
                default.attach(buffer);
            }
            PropertyKind::MultiSelect(m) => {
                let MultiSelectSchema {
                    options,
                    min_items: _,
                    max_items: _,
                    default,
                } = m;
                options.attach(buffer);
                default.attach(buffer);
            }
            PropertyKind::Number(_)
            | PropertyKind::Integer(_)
            | PropertyKind::Boolean(_)
            | PropertyKind::Unknown(_) => {}
        }
    }
}

impl Attach for Options {
    fn attach(&mut self, buffer: &Arc<String>) {
        match self {
            Options::Untitled(values) => values.attach(buffer),
            Options::Titled(options) => options.attach(buffer),
        }
    }
}

impl Attach for EnumOption {
    fn attach(&mut self, buffer: &Arc<String>) {
        let EnumOption {
            value,
            title,
            description,
            meta: _,
        } = self;
        value.attach(buffer);
        title.attach(buffer);
        description.attach(buffer);
    }
}
