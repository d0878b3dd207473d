//! How a schema's data is held, below the model that is built of it: its texts
//! ([`Text`], with the [`TextPool`] a parse copies them into), its option lists
//! ([`List`]), and the comparison of names and option values ([`key`]).
//!
//! Nothing here knows what a property is. The model (`schema`) is made of these pieces
//! and re-exports the public ones (`elicit::schema::Text`, `elicit::schema::List`);
//! validation (`content`) and the typed readers (`typed`) compare names with [`key`].

pub(crate) mod key;
pub(crate) mod list;
pub(crate) mod text;

pub use list::List;
pub use text::Text;
pub(crate) use text::{Attach, TextPool};
