//! The error collector: every stage records its mistakes here and goes on, so one build
//! reports every mistake in the derive input at once instead of one per build.

use std::cell::RefCell;
use std::fmt::Display;

use quote::ToTokens;

/// Collects the errors of one derive invocation.
///
/// Checked exactly once, by [`Ctxt::check`], which consumes it: forgetting to look at the
/// errors is a type error in this crate rather than a panic in a user's build.
#[must_use = "the collected errors must be reported with `Ctxt::check`"]
#[derive(Default)]
pub struct Ctxt {
    errors: RefCell<Vec<syn::Error>>,
}

impl Ctxt {
    pub fn new() -> Self {
        Ctxt::default()
    }

    /// An error spanning the tokens of `node` (a key, a literal, a type, a variant).
    pub fn error_spanned_by<T: ToTokens>(&self, node: T, message: impl Display) {
        self.errors
            .borrow_mut()
            .push(syn::Error::new_spanned(node.into_token_stream(), message));
    }

    /// A parse error from `syn`, kept as it is.
    pub fn syn_error(&self, error: syn::Error) {
        self.errors.borrow_mut().push(error);
    }

    /// All errors recorded, combined into one (each keeps its own span).
    pub fn check(self) -> Result<(), syn::Error> {
        let mut errors = self.errors.into_inner().into_iter();
        let Some(mut combined) = errors.next() else {
            return Ok(());
        };
        for e in errors {
            combined.combine(e);
        }
        Err(combined)
    }
}
