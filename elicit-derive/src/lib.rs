//! `#[derive(Elicit)]` for the [`elicit-acp`](https://docs.rs/elicit-acp) package
//! (library `elicit`): a struct with named fields becomes a form whose `requestedSchema`
//! is a compile-time constant, and an enum of unit variants becomes a select. See that
//! package for the attributes and examples; use it rather than this crate directly.
//!
//! The macro reads the input into a model (`ast`, `attr`), checks it (`check`) while
//! collecting every mistake (`ctxt`), and generates code from the checked model
//! (`expand`). It never matches type names: what a field's type allows is decided by the
//! field traits of `elicit-core`, which the generated code calls.
#![forbid(unsafe_code)]

mod ast;
mod attr;
mod case;
mod check;
mod ctxt;
mod expand;

use proc_macro::TokenStream;
use syn::parse_macro_input;

/// Derives `elicit::Elicit` for a struct with named fields (a form), or the select-field
/// traits for an enum whose variants are all units.
///
/// Attributes (`#[elicit(..)]`):
/// - on the struct: `title`, `description` (else the doc comment), `rename_all`,
///   `deny_unknown_fields`, `url_mode`, `crate = "path"`;
/// - on a field: `rename`, `title`, `description` (else the doc comment),
///   `default = <literal>`, `min_length`, `max_length`, `pattern`, `format`, `minimum`,
///   `maximum`, `min_items`, `max_items`, `skip`, `allow_secret = "reason"`;
/// - on the enum: `rename_all`, `crate = "path"`; on a variant: `rename`, `title`,
///   `description` (else the doc comment, for titled enums).
///
/// `#[serde(rename)]`, `#[serde(rename_all)]` and `#[serde(skip)]` are honoured, so the
/// wire names agree with a serde derive on the same type.
///
/// A field's type decides its property kind through the field traits of `elicit-core`:
/// `String`, `Cow<'static, str>`, `bool`, the integer types (the type's range is the
/// default `minimum`/`maximum`, clamped to ±(2^53 − 1), the integers every client
/// reads exactly: `elicit_core::typed::MAX_SAFE_INTEGER`), `f32`/`f64`, unit-only enums deriving
/// `Elicit`, `Option` of these, and `Vec`/`BTreeSet`/`HashSet` of such an enum. Every
/// mistake the macro can see is a compile error on the offending token, all reported in
/// one build; a field whose name, title or description asks for a secret is refused
/// ([F5](elicit_core::rules#f5): use a URL-mode elicitation, [F6](elicit_core::rules#f6)) unless it says why it is not one with
/// `allow_secret = "..."`. A struct marked `url_mode` is a form for the agent's own
/// URL-mode page (feature `axum`): its fields may ask for secrets, and it can never be
/// sent as a form-mode request (`Elicitor::form` refuses it).
#[proc_macro_derive(Elicit, attributes(elicit))]
pub fn derive_elicit(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as syn::DeriveInput);
    derive(&input).into()
}

fn derive(input: &syn::DeriveInput) -> proc_macro2::TokenStream {
    let cx = ctxt::Ctxt::new();
    let container = ast::Container::from_ast(&cx, input);
    if let Some(container) = &container {
        check::check(&cx, container);
    }
    let krate = expand::crate_path(container.as_ref());
    match (cx.check(), container) {
        (Ok(()), Some(container)) => expand::expand(&container),
        (Err(errors), _) => {
            let mut out = errors.to_compile_error();
            out.extend(expand::fallback(input, krate));
            out
        }
        // `from_ast` returns nothing only after recording why; should that ever not hold,
        // the build must still fail rather than get an impl that does nothing.
        (Ok(()), None) => {
            let mut out = syn::Error::new(
                proc_macro2::Span::call_site(),
                "internal error in `elicit-derive`: the input was refused without a reason",
            )
            .to_compile_error();
            out.extend(expand::fallback(input, krate));
            out
        }
    }
}
