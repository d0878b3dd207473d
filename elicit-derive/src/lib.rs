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

/// In short: derives `elicit::Elicit` for a struct with named fields (a form), or the
/// select-field traits for an enum whose variants are all units. Use it through the
/// `elicit-acp` package, whose page of this derive is its reference.
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
