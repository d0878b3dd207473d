//! The derive input as this crate sees it: a form (a struct with named fields) or a
//! select (an enum of unit variants), with each field's or variant's attributes read and
//! its wire name resolved. Every node keeps the `syn` node it came from, for spans.
//!
//! The shape is checked here, first: anything that is neither a form nor a select gets
//! its own message and no model, since nothing else about it can be checked usefully.

use proc_macro2::TokenStream;
use quote::ToTokens;
use syn::ext::IdentExt;

use crate::attr::{self, Position};
use crate::ctxt::Ctxt;
use elicit_core::rules;

pub struct Container<'a> {
    pub ident: &'a syn::Ident,
    pub attrs: attr::Container,
    pub data: Data<'a>,
}

pub enum Data<'a> {
    /// A form: its fields in declaration order (D13).
    Struct(Vec<Field<'a>>),
    /// A select: its options in declaration order (D13).
    Enum(Vec<Variant<'a>>),
}

pub struct Field<'a> {
    pub ident: &'a syn::Ident,
    pub ty: &'a syn::Type,
    pub attrs: attr::Field,
    pub wire: WireName,
}

impl Field<'_> {
    /// Left out of the form and filled with `Default` (`#[elicit(skip)]` or `#[serde(skip)]`).
    pub fn is_skipped(&self) -> bool {
        self.attrs.skip.is_some() || self.attrs.serde_skip.is_some()
    }
}

pub struct Variant<'a> {
    pub ident: &'a syn::Ident,
    pub attrs: attr::Variant,
    pub wire: WireName,
}

/// A property name or option value, and the tokens that decided it (the `rename`
/// literal, or the field or variant name).
pub struct WireName {
    pub value: String,
    pub tokens: TokenStream,
}

impl<'a> Container<'a> {
    /// The model of a derive input, or `None` when it has no fields or variants to model
    /// (a tuple or unit struct, a union). A model is still built for an input whose
    /// shape is refused for another reason (generics, a data-carrying variant), so that
    /// the mistakes in its attributes are reported in the same build; the recorded
    /// shape error keeps it from being expanded.
    pub fn from_ast(cx: &Ctxt, input: &'a syn::DeriveInput) -> Option<Container<'a>> {
        check_no_generics(cx, input);
        let (position, data) = match &input.data {
            syn::Data::Struct(data) => (Position::Struct, struct_fields(cx, input, data)),
            syn::Data::Enum(data) => (Position::Enum, enum_variants(cx, input, data)),
            syn::Data::Union(data) => {
                cx.error_spanned_by(
                    data.union_token,
                    "`#[derive(Elicit)]` does not support unions; a form is a struct with named fields",
                );
                (Position::Struct, None)
            }
        };
        let attrs = attr::Container::from_ast(cx, &input.attrs, position);
        let data = match data? {
            Fields::Named(fields) => Data::Struct(
                fields
                    .into_iter()
                    .map(|f| {
                        let attrs = attr::Field::from_ast(cx, &f.attrs);
                        let ident = f.ident.as_ref()?;
                        let wire = wire_name(&attrs.rename, &attrs.serde_rename, ident);
                        Some(Field {
                            ident,
                            ty: &f.ty,
                            attrs,
                            wire,
                        })
                    })
                    .collect::<Option<Vec<_>>>()?,
            ),
            Fields::Units(variants) => Data::Enum(
                variants
                    .into_iter()
                    .map(|v| {
                        let attrs = attr::Variant::from_ast(cx, &v.attrs);
                        let wire = wire_name(&attrs.rename, &attrs.serde_rename, &v.ident);
                        Variant {
                            ident: &v.ident,
                            attrs,
                            wire,
                        }
                    })
                    .collect(),
            ),
        };
        let mut container = Container {
            ident: &input.ident,
            attrs,
            data,
        };
        container.apply_rename_all();
        Some(container)
    }

    /// The rule for names not renamed one by one: elicit's, else serde's, so a type
    /// deriving both has one set of wire names.
    fn apply_rename_all(&mut self) {
        let rule = self
            .attrs
            .rename_all
            .as_ref()
            .or(self.attrs.serde_rename_all.as_ref())
            .map(|s| s.value);
        let Some(rule) = rule else { return };
        match &mut self.data {
            Data::Struct(fields) => {
                for f in fields {
                    if f.attrs.rename.is_none() && f.attrs.serde_rename.is_none() {
                        f.wire.value = rule.apply_to_field(&f.ident.unraw().to_string());
                    }
                }
            }
            Data::Enum(variants) => {
                for v in variants {
                    if v.attrs.rename.is_none() && v.attrs.serde_rename.is_none() {
                        v.wire.value = rule.apply_to_variant(&v.ident.unraw().to_string());
                    }
                }
            }
        }
    }
}

/// The wire name before `rename_all`: elicit's `rename`, else serde's, else the name
/// (`r#type` is `type` on the wire, as serde has it).
fn wire_name(
    rename: &Option<attr::Setting<String>>,
    serde_rename: &Option<attr::Setting<String>>,
    ident: &syn::Ident,
) -> WireName {
    match rename.as_ref().or(serde_rename.as_ref()) {
        Some(r) => WireName {
            value: r.value.clone(),
            tokens: r.tokens.clone(),
        },
        None => WireName {
            value: ident.unraw().to_string(),
            tokens: ident.to_token_stream(),
        },
    }
}

enum Fields<'a> {
    Named(Vec<&'a syn::Field>),
    Units(Vec<&'a syn::Variant>),
}

fn struct_fields<'a>(
    cx: &Ctxt,
    input: &'a syn::DeriveInput,
    data: &'a syn::DataStruct,
) -> Option<Fields<'a>> {
    match &data.fields {
        syn::Fields::Named(named) => Some(Fields::Named(named.named.iter().collect())),
        syn::Fields::Unnamed(unnamed) => {
            cx.error_spanned_by(
                unnamed,
                "`#[derive(Elicit)]` needs named fields: each field is a property of the form, and its name is the property's name",
            );
            None
        }
        syn::Fields::Unit => {
            cx.error_spanned_by(
                &input.ident,
                "a unit struct has nothing to ask; a form is a struct with named fields",
            );
            None
        }
    }
}

fn enum_variants<'a>(
    cx: &Ctxt,
    input: &'a syn::DeriveInput,
    data: &'a syn::DataEnum,
) -> Option<Fields<'a>> {
    if data.variants.is_empty() {
        // D4: a select needs at least one option.
        cx.error_spanned_by(
            &input.ident,
            format!(
                "an enum with no variants cannot be a select: a select needs at least one option; {}",
                rules::cite("D4")
            ),
        );
        return None;
    }
    for v in &data.variants {
        if !matches!(v.fields, syn::Fields::Unit) {
            cx.error_spanned_by(
                &v.fields,
                format!(
                    "variant `{}` carries data; an enum deriving `Elicit` is a select, and each of its variants is one option: make it a unit variant",
                    v.ident
                ),
            );
        }
    }
    // The variants are read even when one carries data, so that mistakes in their
    // attributes are reported in the same build; `from_ast` refuses the enum after.
    Some(Fields::Units(data.variants.iter().collect()))
}

fn check_no_generics(cx: &Ctxt, input: &syn::DeriveInput) {
    if !input.generics.params.is_empty() {
        cx.error_spanned_by(
            &input.generics,
            "`#[derive(Elicit)]` does not support generic parameters: a form's schema is a single compile-time constant",
        );
    }
}
