//! Rules between attributes, between fields and against the spec, checked on the model
//! before anything is generated. Each `check_*` records its errors and returns, so all of
//! them run and every mistake is reported at once.
//!
//! The macro does not know field types (it never matches type names), so rules that
//! depend on the type are left to the field traits and `const` assertions the expansion
//! emits. What is checked here is what the literals alone decide: that the attributes of
//! one field agree with each other and with its `default`, that names are unique, and
//! that no field asks for a secret.

use std::cmp::Ordering;
use std::collections::HashMap;

use proc_macro2::TokenStream;
use quote::ToTokens;
use syn::ext::IdentExt;

use elicit_core::__private::find_secret;
use elicit_core::rules;
use elicit_core::schema::Limits;

use crate::ast::{Container, Data, Field, Variant, WireName};
use crate::attr::{DefaultLit, Num, Setting};
use crate::ctxt::Ctxt;

/// Every rule below, on the whole model; the mistakes are recorded in `cx`.
pub fn check(cx: &Ctxt, cont: &Container) {
    let limits = Limits::default();
    check_rename_all_agrees_with_serde(cx, cont);
    check_text_size(
        cx,
        &limits,
        cont.attrs.title.as_ref().map(|t| (&t.value, &t.tokens)),
    );
    let description = cont
        .attrs
        .description
        .as_ref()
        .map(|t| (&t.value, &t.tokens));
    check_text_size(
        cx,
        &limits,
        description.or(cont.attrs.doc.as_ref().map(|d| (&d.value, &d.tokens))),
    );
    match &cont.data {
        Data::Struct(fields) => {
            check_form_size(cx, &limits, cont, fields);
            for field in fields {
                check_field(cx, &limits, cont, field);
            }
            check_unique_wire_names(
                cx,
                fields.iter().filter(|f| !f.is_skipped()).map(|f| &f.wire),
                "property",
            );
        }
        Data::Enum(variants) => {
            check_option_count(cx, &limits, cont, variants);
            let titled = variants.iter().any(|v| v.attrs.title.is_some());
            for variant in variants {
                check_variant(cx, &limits, cont, variant, titled);
            }
            check_unique_wire_names(cx, variants.iter().map(|v| &v.wire), "option value");
        }
    }
}

fn check_field(cx: &Ctxt, limits: &Limits, cont: &Container, field: &Field) {
    if field.is_skipped() {
        check_skipped_field_has_no_form_attributes(cx, field);
        return;
    }
    let a = &field.attrs;
    check_rename_agrees_with_serde(
        cx,
        cont,
        &field.ident.unraw().to_string(),
        a.rename.as_ref(),
        a.serde_rename.as_ref(),
        false,
    );
    check_text_size(cx, limits, a.title.as_ref().map(|t| (&t.value, &t.tokens)));
    let description = a.description.as_ref().map(|t| (&t.value, &t.tokens));
    check_text_size(
        cx,
        limits,
        description.or(a.doc.as_ref().map(|d| (&d.value, &d.tokens))),
    );
    let kind = check_one_kind(cx, field);
    check_min_not_above_max(cx, field);
    check_default_fits(cx, field, kind);
    // A `url_mode` form is shown only on the agent's own page, never sent as a form
    // (F6): it may ask for secrets, and `Elicitor::form` refuses it.
    if cont.attrs.url_mode.is_none() {
        check_no_secret(cx, field);
    }
}

fn check_variant(cx: &Ctxt, limits: &Limits, cont: &Container, variant: &Variant, titled: bool) {
    let a = &variant.attrs;
    check_rename_agrees_with_serde(
        cx,
        cont,
        &variant.ident.unraw().to_string(),
        a.rename.as_ref(),
        a.serde_rename.as_ref(),
        true,
    );
    check_text_size(cx, limits, a.title.as_ref().map(|t| (&t.value, &t.tokens)));
    let description = a.description.as_ref().map(|t| (&t.value, &t.tokens));
    check_text_size(
        cx,
        limits,
        description.or(a.doc.as_ref().map(|d| (&d.value, &d.tokens))),
    );
    // Every variant is an option; one serde cannot read or write would be an option the
    // agent could not parse.
    if let Some(skip) = &a.serde_skip {
        cx.error_spanned_by(
            skip,
            "`#[serde(skip)]` on a variant of an enum deriving `Elicit`: every variant is an option of the select, so it must have a wire name",
        );
    }
    // Only titled options (`oneOf`) carry a description (F2); dropping a written one
    // silently would lose it.
    if let (Some(description), false) = (&a.description, titled) {
        cx.error_spanned_by(
            &description.key,
            format!(
                "an option `description` needs a titled enum: give this variant (or another one) a `title`, which makes every option `{{const, title, description}}`; {}",
                rules::cite("F2")
            ),
        );
    }
}

/// A property kind as far as the attributes tell it.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum KindHint {
    Text,
    Number,
    MultiSelect,
}

impl KindHint {
    fn noun(self) -> &'static str {
        match self {
            KindHint::Text => "a string field",
            KindHint::Number => "a number field",
            KindHint::MultiSelect => "a multi-select field",
        }
    }
}

/// The constraint attributes a field has, with the kind each implies, in the order the
/// grammar lists them.
pub fn constraint_keys<'f>(field: &'f Field<'_>) -> Vec<(KindHint, &'f syn::Ident)> {
    let a = &field.attrs;
    let keys: [(KindHint, Option<&'f syn::Ident>); 8] = [
        (KindHint::Text, a.min_length.as_ref().map(|s| &s.key)),
        (KindHint::Text, a.max_length.as_ref().map(|s| &s.key)),
        (KindHint::Text, a.pattern.as_ref().map(|s| &s.key)),
        (KindHint::Text, a.format.as_ref().map(|s| &s.key)),
        (KindHint::Number, a.minimum.as_ref().map(|s| &s.key)),
        (KindHint::Number, a.maximum.as_ref().map(|s| &s.key)),
        (KindHint::MultiSelect, a.min_items.as_ref().map(|s| &s.key)),
        (KindHint::MultiSelect, a.max_items.as_ref().map(|s| &s.key)),
    ];
    keys.into_iter()
        .filter_map(|(hint, key)| key.map(|k| (hint, k)))
        .collect()
}

/// A property has one kind, so its constraints must all be of that kind: `min_length`
/// and `minimum` together cannot both apply, whatever the field's type.
fn check_one_kind(cx: &Ctxt, field: &Field) -> Option<KindHint> {
    let keys = constraint_keys(field);
    let (first_kind, first_key) = *keys.first()?;
    for (kind, key) in &keys[1..] {
        if *kind != first_kind {
            cx.error_spanned_by(
                key,
                format!(
                    "`{key}` does not fit a field that has `{first_key}`: `{first_key}` is for {}, `{key}` for {}",
                    first_kind.noun(),
                    kind.noun()
                ),
            );
        }
    }
    Some(first_kind)
}

/// A lower bound above the upper one admits no value: nobody could answer the form, and
/// the strict parse a client runs refuses such a schema.
fn check_min_not_above_max(cx: &Ctxt, field: &Field) {
    let a = &field.attrs;
    if let (Some(min), Some(max)) = (&a.min_length, &a.max_length) {
        report_min_above_max(cx, min, max, min.value > max.value);
    }
    if let (Some(min), Some(max)) = (&a.minimum, &a.maximum) {
        report_min_above_max(
            cx,
            min,
            max,
            compare(min.value, max.value) == Ordering::Greater,
        );
    }
    if let (Some(min), Some(max)) = (&a.min_items, &a.max_items) {
        report_min_above_max(cx, min, max, min.value > max.value);
    }
}

fn report_min_above_max<T: std::fmt::Display>(
    cx: &Ctxt,
    min: &Setting<T>,
    max: &Setting<T>,
    above: bool,
) {
    if above {
        cx.error_spanned_by(
            &min.tokens,
            format!(
                "`{}` ({}) is greater than `{}` ({}): no value could be valid",
                min.key, min.value, max.key, max.value
            ),
        );
    }
}

/// Exact enough for literals: two integers compare exactly, anything else as doubles.
fn compare(a: Num, b: Num) -> Ordering {
    match (a, b) {
        (Num::Int(x), Num::Int(y)) => x.cmp(&y),
        _ => a
            .as_f64()
            .partial_cmp(&b.as_f64())
            .unwrap_or(Ordering::Equal),
    }
}

/// D11: a `default` must itself be a valid value of its property. Checked here against
/// every literal constraint; against the field's type and an enum's options it is
/// checked when the schema constant is evaluated.
fn check_default_fits(cx: &Ctxt, field: &Field, kind: Option<KindHint>) {
    let a = &field.attrs;
    let Some(default) = &a.default else { return };
    let tokens = &default.tokens;
    let literal_kind = match &default.value {
        DefaultLit::Str(_) => "a string",
        DefaultLit::Int(_) | DefaultLit::Float(_) => "a number",
        DefaultLit::Bool(_) => "a boolean",
        DefaultLit::List(_) => "a list of option values",
    };
    let fits = matches!(
        (&default.value, kind),
        (_, None)
            | (DefaultLit::Str(_), Some(KindHint::Text))
            | (
                DefaultLit::Int(_) | DefaultLit::Float(_),
                Some(KindHint::Number)
            )
            | (DefaultLit::List(_), Some(KindHint::MultiSelect))
    );
    if let (false, Some(kind)) = (fits, kind) {
        let key = constraint_keys(field)
            .first()
            .map(|(_, k)| k.to_string())
            .unwrap_or_default();
        cx.error_spanned_by(
            tokens,
            format!(
                "the `default` is {literal_kind}, but `{key}` makes this {}",
                kind.noun()
            ),
        );
        return;
    }
    match &default.value {
        DefaultLit::Str(s) => {
            let len = s.chars().count(); // D6: Unicode scalar values
            if let Some(min) = &a.min_length {
                if len < min.value as usize {
                    cx.error_spanned_by(
                        tokens,
                        format!("the `default` is {len} characters long, shorter than `min_length` ({})", min.value),
                    );
                }
            }
            if let Some(max) = &a.max_length {
                if len > max.value as usize {
                    cx.error_spanned_by(
                        tokens,
                        format!(
                            "the `default` is {len} characters long, longer than `max_length` ({})",
                            max.value
                        ),
                    );
                }
            }
            if let Some(pattern) = &a.pattern {
                // V4: a search, not a full match, as validation does it.
                if let Ok(matched) = pattern.value.compiled.is_match(s) {
                    if !matched {
                        cx.error_spanned_by(
                            tokens,
                            format!(
                                "the `default` does not match the `pattern` `{}`",
                                pattern.value.source
                            ),
                        );
                    }
                }
            }
            if let Some(format) = &a.format {
                if !format.value.is_valid(s) {
                    cx.error_spanned_by(
                        tokens,
                        format!(
                            "the `default` is not a valid `{}`; {}",
                            format.value.name(),
                            rules::cite("V7")
                        ),
                    );
                }
            }
        }
        DefaultLit::Int(_) | DefaultLit::Float(_) => {
            let d = match default.value {
                DefaultLit::Int(i) => Num::Int(i),
                DefaultLit::Float(f) => Num::Float(f),
                _ => return,
            };
            if let Some(min) = &a.minimum {
                if compare(d, min.value) == Ordering::Less {
                    cx.error_spanned_by(
                        tokens,
                        format!("the `default` ({d}) is below `minimum` ({})", min.value),
                    );
                }
            }
            if let Some(max) = &a.maximum {
                if compare(d, max.value) == Ordering::Greater {
                    cx.error_spanned_by(
                        tokens,
                        format!("the `default` ({d}) is above `maximum` ({})", max.value),
                    );
                }
            }
        }
        DefaultLit::List(items) => {
            let len = items.len() as u64;
            if let Some(min) = &a.min_items {
                if len < min.value {
                    cx.error_spanned_by(
                        tokens,
                        format!(
                            "the `default` has {len} item{}, fewer than `min_items` ({})",
                            plural(len),
                            min.value
                        ),
                    );
                }
            }
            if let Some(max) = &a.max_items {
                if len > max.value {
                    cx.error_spanned_by(
                        tokens,
                        format!(
                            "the `default` has {len} item{}, more than `max_items` ({})",
                            plural(len),
                            max.value
                        ),
                    );
                }
            }
        }
        DefaultLit::Bool(_) => {}
    }
}

fn plural(n: u64) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// F5: form mode must not ask for a secret. What the client shows (the property name,
/// its title and its description) is read with the same vocabulary as the run-time
/// lint; a field that only looks like a secret opts out with `allow_secret`, which
/// keeps every exception greppable and explained.
fn check_no_secret(cx: &Ctxt, field: &Field) {
    let a = &field.attrs;
    if a.allow_secret.is_some() {
        return;
    }
    let description = a
        .description
        .as_ref()
        .map(|d| (&d.value, &d.tokens))
        .or(a.doc.as_ref().map(|d| (&d.value, &d.tokens)));
    let texts: [(&str, Option<(&String, &TokenStream)>); 3] = [
        ("name", Some((&field.wire.value, &field.wire.tokens))),
        ("title", a.title.as_ref().map(|t| (&t.value, &t.tokens))),
        ("description", description),
    ];
    for (which, text) in texts {
        let Some((text, tokens)) = text else { continue };
        if let Some(hit) = find_secret(text) {
            let subject = match which {
                "name" => format!("the field `{}`", field.wire.value),
                other => format!("the {other} of `{}`", field.wire.value),
            };
            cx.error_spanned_by(
                tokens,
                format!(
                    "{subject} asks for {} (`{}`): form mode must not collect secrets or credentials; request it with a URL-mode elicitation instead, on the agent's own page with `#[elicit(url_mode)]` on the struct, or, if it is not a secret, say why with `#[elicit(allow_secret = \"...\")]`; {}",
                    hit.kind.describe(),
                    hit.term,
                    rules::cite_each(&["F5", "F6"])
                ),
            );
            // One finding per field: the rest would repeat it.
            return;
        }
    }
}

/// A skipped field is not in the form, so form attributes on it would do nothing; a
/// silent no-op hides a mistake.
fn check_skipped_field_has_no_form_attributes(cx: &Ctxt, field: &Field) {
    let a = &field.attrs;
    let keys: [Option<&syn::Ident>; 14] = [
        a.rename.as_ref().map(|s| &s.key),
        a.title.as_ref().map(|s| &s.key),
        a.description.as_ref().map(|s| &s.key),
        a.default.as_ref().map(|s| &s.key),
        a.min_length.as_ref().map(|s| &s.key),
        a.max_length.as_ref().map(|s| &s.key),
        a.pattern.as_ref().map(|s| &s.key),
        a.format.as_ref().map(|s| &s.key),
        a.minimum.as_ref().map(|s| &s.key),
        a.maximum.as_ref().map(|s| &s.key),
        a.min_items.as_ref().map(|s| &s.key),
        a.max_items.as_ref().map(|s| &s.key),
        a.allow_secret.as_ref().map(|s| &s.key),
        None,
    ];
    let why = if a.skip.is_some() {
        "#[elicit(skip)]"
    } else {
        "#[serde(skip)]"
    };
    for key in keys.into_iter().flatten() {
        cx.error_spanned_by(
            key,
            format!("`{key}` has no effect: the field is left out of the form by `{why}`"),
        );
    }
}

/// Wire names must agree with a serde derive on the same type: the content is the same
/// JSON either way.
fn check_rename_all_agrees_with_serde(cx: &Ctxt, cont: &Container) {
    if let (Some(ours), Some(serde)) = (&cont.attrs.rename_all, &cont.attrs.serde_rename_all) {
        if ours.value != serde.value {
            cx.error_spanned_by(
                &ours.tokens,
                format!(
                    "`rename_all = \"{}\"` contradicts `#[serde(rename_all = \"{}\")]`: the wire names must agree with serde's; remove one of them",
                    ours.value.name(),
                    serde.value.name()
                ),
            );
        }
    }
}

fn check_rename_agrees_with_serde(
    cx: &Ctxt,
    cont: &Container,
    name: &str,
    rename: Option<&Setting<String>>,
    serde_rename: Option<&Setting<String>>,
    variant: bool,
) {
    let Some(ours) = rename else { return };
    let serde_name = match (serde_rename, &cont.attrs.serde_rename_all) {
        (Some(r), _) => (
            r.value.clone(),
            format!("#[serde(rename = \"{}\")]", r.value),
        ),
        (None, Some(rule)) => {
            let renamed = if variant {
                rule.value.apply_to_variant(name)
            } else {
                rule.value.apply_to_field(name)
            };
            (
                renamed,
                format!("#[serde(rename_all = \"{}\")]", rule.value.name()),
            )
        }
        (None, None) => return,
    };
    if ours.value != serde_name.0 {
        cx.error_spanned_by(
            &ours.tokens,
            format!(
                "`rename = \"{}\"` contradicts `{}`, which names it `{}`: the wire names must agree with serde's",
                ours.value, serde_name.1, serde_name.0
            ),
        );
    }
}

/// Property names are the keys of `properties` and option values the members of an
/// enum (D4); two of the same would make one unreachable.
fn check_unique_wire_names<'a>(cx: &Ctxt, names: impl Iterator<Item = &'a WireName>, what: &str) {
    let mut seen: HashMap<&str, &WireName> = HashMap::new();
    for name in names {
        if let Some(first) = seen.get(name.value.as_str()) {
            let first_tokens = first.tokens.to_string();
            cx.error_spanned_by(
                &name.tokens,
                format!(
                    "duplicate {what} `{}`: `{first_tokens}` already uses this wire name",
                    name.value
                ),
            );
        } else {
            seen.insert(&name.value, name);
        }
    }
}

/// D12: a form larger than clients accept by default would be refused on arrival.
fn check_form_size(cx: &Ctxt, limits: &Limits, cont: &Container, fields: &[Field]) {
    let count = fields.iter().filter(|f| !f.is_skipped()).count();
    if count > limits.max_properties {
        cx.error_spanned_by(
            cont.ident,
            format!(
                "the form has {count} properties; clients refuse more than {} by default: split it into several elicitations; {}",
                limits.max_properties,
                rules::cite("D12")
            ),
        );
    }
}

fn check_option_count(cx: &Ctxt, limits: &Limits, cont: &Container, variants: &[Variant]) {
    if variants.len() > limits.max_options {
        cx.error_spanned_by(
            cont.ident,
            format!(
                "the select has {} options; clients refuse more than {} by default; {}",
                variants.len(),
                limits.max_options,
                rules::cite("D12")
            ),
        );
    }
}

fn check_text_size(cx: &Ctxt, limits: &Limits, text: Option<(&String, &TokenStream)>) {
    let Some((text, tokens)) = text else { return };
    if text.len() > limits.max_text_bytes {
        cx.error_spanned_by(
            tokens.to_token_stream(),
            format!(
                "this text is {} bytes long; clients refuse texts over {} bytes by default; {}",
                text.len(),
                limits.max_text_bytes,
                rules::cite("D12")
            ),
        );
    }
}
