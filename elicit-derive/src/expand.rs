//! Code generation from the checked model. Nothing here can fail: every mistake the
//! macro can see was reported by `attr.rs` and `check.rs`, and what depends on a field's
//! type is left to the traits and `const` functions of `__private`, called with spans
//! that put their errors on the user's attribute or type.
//!
//! The generated code names everything by absolute path through the hidden `__private`
//! module (imported once as `__elicit_private` inside the block), sits in
//! `const _: () = { .. };`, and uses local names starting with `__`, so a user's
//! `Result`, `Option`, `String`, `Vec`, `Ok` or `Some` cannot change its meaning.

use proc_macro2::{Group, Span, TokenStream, TokenTree};
use quote::{format_ident, quote, quote_spanned, ToTokens};
use syn::spanned::Spanned;

use elicit_core::schema::Format;

use crate::ast::{Container, Data, Field, Variant};
use crate::attr::{DefaultLit, Num, Setting};
use crate::check::{constraint_keys, KindHint};

/// The path generated code reaches `elicit` by: `::elicit` unless `crate = "..."` says
/// otherwise (for crates that re-export `elicit`).
pub fn crate_path(cont: Option<&Container>) -> TokenStream {
    match cont.and_then(|c| c.attrs.krate.as_ref()) {
        Some(path) => path.value.to_token_stream(),
        None => quote!(::elicit),
    }
}

pub fn expand(cont: &Container) -> TokenStream {
    let krate = crate_path(Some(cont));
    // One import of the absolute path, inside the `const _` block, where no name of the
    // user's can shadow it; the code then names `__elicit_private::…`. Spelling out
    // `::elicit::__private` at each of the ~80 uses of a form made the macro's output,
    // and the compiler's work on it, half as large again.
    let private = quote!(__elicit_private);
    let body = match &cont.data {
        Data::Struct(fields) => expand_form(cont, fields, &private),
        Data::Enum(variants) => expand_select(cont, variants, &private),
    };
    wrap(quote! {
        use #krate::__private as __elicit_private;
        #body
    })
}

/// What is emitted beside the errors when the input was refused: an empty impl, so the
/// rest of the user's code still type-checks and only the real mistakes are reported
/// (not one error per use of the type).
pub fn fallback(input: &syn::DeriveInput, krate: TokenStream) -> TokenStream {
    let private = quote!(#krate::__private);
    let ident = &input.ident;
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    let body = match &input.data {
        syn::Data::Enum(_) => quote! {
            #[automatically_derived]
            impl #impl_generics #private::SelectOption for #ident #ty_generics #where_clause {
                const OPTIONS: #private::OptionList = #private::OptionList::Untitled(&[]);
                fn from_option(_: &str) -> #private::Option<Self> {
                    #private::derive_failed()
                }
                fn as_option(&self) -> &'static str {
                    #private::derive_failed()
                }
            }
            #[automatically_derived]
            impl #impl_generics #private::Field for #ident #ty_generics #where_clause {
                const SHAPE: #private::Shape = #private::Shape::SingleSelect(#private::OptionList::Untitled(&[]));
                const RUST_TYPE: &'static str = "";
                fn from_json(_: &#private::JsonValue) -> #private::Result<Self, #private::ValidationErrorKind> {
                    #private::derive_failed()
                }
                fn to_json(&self) -> #private::Option<#private::JsonValue> {
                    #private::derive_failed()
                }
            }
            #[automatically_derived]
            impl #impl_generics #private::NonOptional for #ident #ty_generics #where_clause {}
            #[automatically_derived]
            impl #impl_generics #private::StringDefaultField for #ident #ty_generics #where_clause {}
        },
        syn::Data::Struct(_) | syn::Data::Union(_) => quote! {
            #[automatically_derived]
            impl #impl_generics #private::Elicit for #ident #ty_generics #where_clause {
                fn requested_schema() -> &'static #private::RequestedSchema {
                    #private::derive_failed()
                }
                fn from_content(_: &#private::JsonValue) -> #private::Result<Self, #private::ValidationErrors> {
                    #private::derive_failed()
                }
                fn to_content(&self) -> #private::JsonValue {
                    #private::derive_failed()
                }
            }
        },
    };
    wrap(body)
}

fn wrap(body: TokenStream) -> TokenStream {
    quote! {
        #[doc(hidden)]
        #[allow(
            non_upper_case_globals,
            unused_qualifications,
            unused_attributes,
            deprecated,
            clippy::declare_interior_mutable_const
        )]
        const _: () = {
            #body
        };
    }
}

// ---- forms ------------------------------------------------------------------------------

fn expand_form(cont: &Container, fields: &[Field], p: &TokenStream) -> TokenStream {
    let ident = cont.ident;
    let asked: Vec<&Field> = fields.iter().filter(|f| !f.is_skipped()).collect();
    let count = asked.len();

    let kinds = asked.iter().enumerate().map(|(i, f)| {
        let ty = f.ty;
        // A list passed to a `const fn` is a temporary that does not live long enough;
        // a constant of its own is `'static`.
        let default_list = format_ident!("__DEFAULT_{}", i);
        let list = match &f.attrs.default {
            Some(Setting {
                value: DefaultLit::List(items),
                ..
            }) => Some(quote! {
                const #default_list: &[#p::Text] = &[#(#p::option_text(#items)),*];
            }),
            _ => None,
        };
        let assertions = attribute_assertions(f, p);
        let shape = quote_spanned!(f.ty.span()=> <#ty as #p::Field>::SHAPE);
        let required = quote_spanned!(f.ty.span()=> <#ty as #p::Field>::REQUIRED);
        // Evaluated at compile time, inside the property table's initializer (a `const`
        // item per field cost about 15% of a derived crate's build). The marker
        // assertions come first, so an attribute the type cannot take is reported on
        // the attribute and `kind` is not evaluated; what they cannot see (a bound
        // outside the type's range, a default that is not an option) panics in `kind`,
        // reported at the field's name. A field without attributes has nothing to
        // check: its kind is its type's shape.
        let kind = if has_attrs(f) {
            let attrs = attrs_literal(f, &default_list, p);
            let kind_fn = respan(quote!(#p::kind), f.ident.span());
            quote_spanned!(f.ident.span()=> #kind_fn(#shape, #attrs))
        } else {
            quote!(#p::Kind::Plain(#shape))
        };
        let name = &f.wire.value;
        let title = option_str(f.attrs.title.as_ref().map(|t| t.value.as_str()), p);
        let description = option_str(field_description(f), p);
        let decl = quote! {
            #p::FieldDecl {
                name: #name,
                required: #required,
                title: #title,
                description: #description,
                kind: { #assertions #kind },
            }
        };
        (list, decl)
    });
    let (lists, properties): (Vec<_>, Vec<_>) = kinds.unzip();
    let title = option_str(cont.attrs.title.as_ref().map(|t| t.value.as_str()), p);
    let description = option_str(
        cont.attrs
            .description
            .as_ref()
            .map(|d| d.value.as_str())
            .or(cont.attrs.doc.as_ref().map(|d| d.value.as_str())),
        p,
    );

    // from_content: `Reader::new` sorts the content's members into a slot per property
    // (in elicit-core, so the generated code stays small), then each property is read in
    // property order (D13), so the errors come out in the order
    // `RequestedSchema::validate` reports them.
    let values: Vec<_> = (0..count).map(|i| format_ident!("__value_{}", i)).collect();
    // The slots and the properties are destructured once: no bounds check per field.
    let slots: Vec<_> = (0..count).map(|i| format_ident!("__slot_{}", i)).collect();
    let property_refs: Vec<_> = (0..count)
        .map(|i| format_ident!("__property_{}", i))
        .collect();
    let reads = asked
        .iter()
        .zip(&values)
        .zip(slots.iter().zip(&property_refs))
        .map(|((f, value), (slot, property))| {
            let ty = f.ty;
            quote_spanned! {f.ty.span()=>
                let #value = <#ty as #p::Field>::__read(#slot, #property, &mut __reader.errors);
            }
        });
    let deny_unknown = cont
        .attrs
        .deny_unknown_fields
        .as_ref()
        .map(|_| quote!(__reader.deny_unknown(__content, &__NAMES);));
    // The names in property order (`Names` finds a key out of order by a hash table it
    // builds on first need).
    let names: Vec<&str> = asked.iter().map(|f| f.wire.value.as_str()).collect();
    let reader_mut = (count > 0 || deny_unknown.is_some()).then(|| quote!(mut));
    let mut asked_index = 0;
    let inits = fields.iter().map(|f| {
        let member = f.ident;
        if f.is_skipped() {
            let ty = f.ty;
            quote_spanned!(f.ty.span()=> #member: #p::skipped::<#ty>())
        } else {
            let value = &values[asked_index];
            asked_index += 1;
            quote!(#member: #value)
        }
    });

    // to_content: one expression, each field's write taking the content from the one
    // before, in property order.
    let content = asked.iter().fold(quote!(#p::new_content(#count)), |content, f| {
        let member = f.ident;
        let name = &f.wire.value;
        let ty = f.ty;
        quote_spanned!(f.ty.span()=> <#ty as #p::Field>::__write(&self.#member, #content, #name))
    });

    let url_mode = cont.attrs.url_mode.as_ref().map(|_| {
        quote!(
            const URL_MODE: bool = true;
        )
    });

    quote! {
        #(#lists)*
        static __PROPERTIES: [#p::Property; #count] = #p::properties([#(#properties),*]);
        static __NAMES: #p::Names = #p::Names::new(&[#(#names),*]);
        static __SCHEMA: #p::RequestedSchema = #p::RequestedSchema::from_static(#title, #description, &__PROPERTIES);

        #[automatically_derived]
        impl #p::Elicit for #ident {
            #url_mode

            fn requested_schema() -> &'static #p::RequestedSchema {
                &__SCHEMA
            }

            fn from_content(
                __content: &#p::JsonValue,
            ) -> #p::Result<Self, #p::ValidationErrors> {
                let mut __slots = [#p::None; #count];
                let #reader_mut __reader = #p::Reader::new(__content, &__NAMES, &mut __slots);
                let [#(#slots),*] = __slots;
                let [#(#property_refs),*] = &__PROPERTIES;
                #(#reads)*
                #deny_unknown
                // Nothing refused and every field read: the value. Otherwise every
                // violation (a field is unread only after one was recorded). A pattern,
                // not a guard: a guard on moved bindings cost the compiler more.
                match (__reader.errors.is_empty(), #(#values,)*) {
                    (true, #(#p::Some(#values),)*) => #p::Ok(#ident { #(#inits),* }),
                    _ => #p::Err(__reader.errors.into_errors()),
                }
            }

            fn to_content(&self) -> #p::JsonValue {
                #p::JsonValue::Object(#content)
            }
        }
    }
}

fn field_description<'a>(f: &'a Field) -> Option<&'a str> {
    f.attrs.description.as_ref().map(|d| d.value.as_str()).or(f
        .attrs
        .doc
        .as_ref()
        .map(|d| d.value.as_str()))
}

/// Whether the field has any attribute that `__private::kind` checks.
fn has_attrs(f: &Field) -> bool {
    let a = &f.attrs;
    a.min_length.is_some()
        || a.max_length.is_some()
        || a.pattern.is_some()
        || a.format.is_some()
        || a.minimum.is_some()
        || a.maximum.is_some()
        || a.min_items.is_some()
        || a.max_items.is_some()
        || a.default.is_some()
}

/// The literal attributes as a `__private::Attrs` value for `__private::kind`.
fn attrs_literal(f: &Field, default_list: &syn::Ident, p: &TokenStream) -> TokenStream {
    let a = &f.attrs;
    let mut members = Vec::new();
    if let Some(s) = &a.min_length {
        let v = s.value;
        members.push(quote!(min_length: #p::Some(#v)));
    }
    if let Some(s) = &a.max_length {
        let v = s.value;
        members.push(quote!(max_length: #p::Some(#v)));
    }
    if let Some(s) = &a.pattern {
        let v = &s.value.source;
        members.push(quote!(pattern: #p::Some(#v)));
    }
    if let Some(s) = &a.format {
        let variant = match s.value {
            Format::Email => quote!(Email),
            Format::Uri => quote!(Uri),
            Format::Date => quote!(Date),
            Format::DateTime => quote!(DateTime),
        };
        members.push(quote!(format: #p::Some(#p::Format::#variant)));
    }
    if let Some(s) = &a.minimum {
        let v = num(s.value, p);
        members.push(quote!(minimum: #p::Some(#v)));
    }
    if let Some(s) = &a.maximum {
        let v = num(s.value, p);
        members.push(quote!(maximum: #p::Some(#v)));
    }
    if let Some(s) = &a.min_items {
        let v = s.value;
        members.push(quote!(min_items: #p::Some(#v)));
    }
    if let Some(s) = &a.max_items {
        let v = s.value;
        members.push(quote!(max_items: #p::Some(#v)));
    }
    if let Some(s) = &a.default {
        let v = match &s.value {
            DefaultLit::Str(v) => quote!(#p::DefaultLit::Str(#v)),
            DefaultLit::Int(v) => quote!(#p::DefaultLit::Int(#v)),
            DefaultLit::Float(v) => {
                let v = float(*v);
                quote!(#p::DefaultLit::Float(#v))
            }
            DefaultLit::Bool(v) => quote!(#p::DefaultLit::Bool(#v)),
            DefaultLit::List(_) => quote!(#p::DefaultLit::Strs(#default_list)),
        };
        members.push(quote!(default: #p::Some(#v)));
    }
    quote!(#p::Attrs { #(#members,)* ..#p::Attrs::NONE })
}

fn num(n: Num, p: &TokenStream) -> TokenStream {
    match n {
        Num::Int(i) => quote!(#p::Num::Int(#i)),
        Num::Float(f) => {
            let f = float(f);
            quote!(#p::Num::Float(#f))
        }
    }
}

/// A double as an `f64` literal that reads back to the same value.
fn float(f: f64) -> TokenStream {
    proc_macro2::Literal::f64_suffixed(f).into_token_stream()
}

fn option_str(s: Option<&str>, p: &TokenStream) -> TokenStream {
    match s {
        Some(s) => quote!(#p::Some(#s)),
        None => quote!(#p::None),
    }
}

/// For each kind of constraint a field has, a marker-trait assertion on the field's
/// type, spanned on the attribute key: `min_length` on a `u8` is reported on
/// `min_length` with a message saying what it applies to.
fn attribute_assertions(f: &Field, p: &TokenStream) -> TokenStream {
    let mut out = TokenStream::new();
    let mut seen: Vec<&'static str> = Vec::new();
    let mut assert = |function: &'static str, key: &syn::Ident| {
        if seen.contains(&function) {
            return;
        }
        seen.push(function);
        let function = format_ident!("{}", function, span = key.span());
        let ty = respan(f.ty.to_token_stream(), key.span());
        let p = respan(p.clone(), key.span());
        out.extend(quote_spanned! {key.span()=>
            #p::#function::<#ty>();
        });
    };
    for (kind, key) in constraint_keys(f) {
        let function = match kind {
            KindHint::Text => "assert_text_field",
            KindHint::Number => "assert_numeric_field",
            KindHint::MultiSelect => "assert_multi_select_field",
        };
        assert(function, key);
    }
    if let Some(Setting { key, value, .. }) = &f.attrs.default {
        let function = match value {
            DefaultLit::Str(_) => "assert_string_default_field",
            DefaultLit::Int(_) | DefaultLit::Float(_) => "assert_numeric_field",
            DefaultLit::Bool(_) => "assert_boolean_field",
            DefaultLit::List(_) => "assert_multi_select_field",
        };
        assert(function, key);
    }
    out
}

/// The same tokens with every span set to `span`, so a type error about them is
/// reported there.
fn respan(tokens: TokenStream, span: Span) -> TokenStream {
    tokens
        .into_iter()
        .map(|tt| match tt {
            TokenTree::Group(g) => {
                let mut group = Group::new(g.delimiter(), respan(g.stream(), span));
                group.set_span(span);
                TokenTree::Group(group)
            }
            mut other => {
                other.set_span(span);
                other
            }
        })
        .collect()
}

// ---- selects ----------------------------------------------------------------------------

fn expand_select(cont: &Container, variants: &[Variant], p: &TokenStream) -> TokenStream {
    let ident = cont.ident;
    let rust_type = ident.to_string();
    let values: Vec<&String> = variants.iter().map(|v| &v.wire.value).collect();
    let idents: Vec<&syn::Ident> = variants.iter().map(|v| v.ident).collect();
    let titled = variants.iter().any(|v| v.attrs.title.is_some());
    let options = if titled {
        // Any title makes the whole select titled (F2: `oneOf` of `{const, title}`); an
        // untitled option is labelled with its value.
        let options = variants.iter().map(|v| {
            let value = &v.wire.value;
            let title = v.attrs.title.as_ref().map_or(value, |t| &t.value);
            let description = option_str(
                v.attrs.description.as_ref().map(|d| d.value.as_str()).or(v
                    .attrs
                    .doc
                    .as_ref()
                    .map(|d| d.value.as_str())),
                p,
            );
            quote!(#p::EnumOption::from_static(#value, #title, #description))
        });
        quote!(#p::OptionList::Titled(&[#(#options),*]))
    } else {
        quote!(#p::OptionList::Untitled(&[#(#p::option_text(#values)),*]))
    };
    quote! {
        #[automatically_derived]
        impl #p::SelectOption for #ident {
            const OPTIONS: #p::OptionList = #options;

            fn from_option(__value: &str) -> #p::Option<Self> {
                match __value {
                    #(#values => #p::Some(#ident::#idents),)*
                    _ => #p::None,
                }
            }

            fn as_option(&self) -> &'static str {
                match self {
                    #(#ident::#idents => #values,)*
                }
            }
        }

        #[automatically_derived]
        impl #p::Field for #ident {
            const SHAPE: #p::Shape = #p::Shape::SingleSelect(<Self as #p::SelectOption>::OPTIONS);
            const RUST_TYPE: &'static str = #rust_type;

            fn from_json(__value: &#p::JsonValue) -> #p::Result<Self, #p::ValidationErrorKind> {
                #p::select_from_json(__value)
            }

            #[inline]
            fn __read_valid(__value: &#p::JsonValue, __kind: &#p::PropertyKind) -> #p::Option<Self> {
                #p::select_read_valid(__value, __kind)
            }

            fn to_json(&self) -> #p::Option<#p::JsonValue> {
                #p::select_to_json(self)
            }
        }

        #[automatically_derived]
        impl #p::NonOptional for #ident {}

        #[automatically_derived]
        impl #p::StringDefaultField for #ident {}
    }
}
