//! [`List`]: the option lists of a schema, borrowed from the program for derived
//! schemas, and owned or shared between the lists of one parse for parsed schemas.
//!
//! A parsed select owning its options as a `Vec` costs one allocation and one free per
//! select. A form with a few selects gets those blocks from the allocator's per-thread
//! cache; past it (a form with dozens of selects), each costs some hundreds of
//! instructions. So the parse gives its first lists a `Vec` of their own and appends the
//! rest to one buffer for their kind of item, handing out pending spans of it
//! ([`List::pending`]). When the parse has read everything, the buffer is frozen
//! ([`freeze`]) and given to each pending list ([`List::share`]) before anything reads
//! them, as [`Text`](super::Text)'s long texts are. Which lists share, and the walk that
//! hands out the buffer, are the parse's (`schema::parse::lists`).

use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

use super::text::Attach;

/// A list of a schema: a select's option values or titled options.
///
/// It reads as a slice (it derefs to one) and compares as one. A derived schema's lists
/// are `&'static` constants ([`List::from_static`], usable in a `static`); a parsed
/// schema's are a `Vec` of their own, or, past a parse's first few, spans of one buffer
/// the parse's lists share (one allocation for all of them, cloned by a reference
/// count).
///
/// ```
/// use elicit::schema::{List, Text};
///
/// static ITEMS: [Text; 2] = [Text::from_static("red"), Text::from_static("green")];
/// static COLOURS: List<Text> = List::from_static(&ITEMS);
/// let owned: List<Text> = vec![Text::from("red"), Text::from("green")].into();
/// assert_eq!(COLOURS, owned);
/// assert_eq!(owned.len(), 2); // a slice method, through `Deref`
/// assert_eq!(owned[1], "green");
/// ```
pub struct List<T: 'static>(Repr<T>);

enum Repr<T: 'static> {
    /// Compile-time items.
    Static(&'static [T]),
    /// Items of this list only.
    Owned(Vec<T>),
    /// A span of a parse's shared buffer.
    Span {
        buffer: Arc<Vec<T>>,
        start: u32,
        len: u32,
    },
    /// A span of the buffer of a parse still running: only [`List::pending`] makes
    /// these, and the parse shares the buffer with each before it returns or reads one.
    Pending { start: u32, len: u32 },
}

impl<T: 'static> List<T> {
    /// A list from compile-time items (usable in a `const` or `static`).
    pub const fn from_static(items: &'static [T]) -> Self {
        List(Repr::Static(items))
    }

    /// The items as a slice.
    #[inline]
    pub fn as_slice(&self) -> &[T] {
        match &self.0 {
            Repr::Static(items) => items,
            Repr::Owned(items) => items,
            Repr::Span { buffer, start, len } => {
                let start = *start as usize;
                let items = buffer.get(start..start + *len as usize);
                debug_assert!(items.is_some(), "a span outside its buffer");
                items.unwrap_or_default()
            }
            Repr::Pending { .. } => {
                debug_assert!(false, "a schema list was read before its parse attached it");
                &[]
            }
        }
    }
}

impl<T: Clone + 'static> List<T> {
    /// The items as a `Vec` of their own (copied unless the list owns them alone).
    pub fn into_vec(self) -> Vec<T> {
        match self.0 {
            Repr::Owned(items) => items,
            _ => self.as_slice().to_vec(),
        }
    }
}

impl<T: 'static> Deref for List<T> {
    type Target = [T];

    #[inline]
    fn deref(&self) -> &[T] {
        self.as_slice()
    }
}

impl<T: 'static> AsRef<[T]> for List<T> {
    fn as_ref(&self) -> &[T] {
        self.as_slice()
    }
}

impl<'a, T: 'static> IntoIterator for &'a List<T> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;

    fn into_iter(self) -> Self::IntoIter {
        self.as_slice().iter()
    }
}

impl<T: Clone + 'static> Clone for List<T> {
    fn clone(&self) -> Self {
        List(match &self.0 {
            Repr::Static(items) => Repr::Static(items),
            Repr::Owned(items) => Repr::Owned(items.clone()),
            Repr::Span { buffer, start, len } => Repr::Span {
                buffer: Arc::clone(buffer),
                start: *start,
                len: *len,
            },
            Repr::Pending { start, len } => Repr::Pending {
                start: *start,
                len: *len,
            },
        })
    }
}

impl<T: 'static> Default for List<T> {
    fn default() -> Self {
        List::from_static(&[])
    }
}

impl<T: fmt::Debug + 'static> fmt::Debug for List<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_slice(), f)
    }
}

impl<T: PartialEq + 'static> PartialEq for List<T> {
    fn eq(&self, other: &Self) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl<T: Eq + 'static> Eq for List<T> {}

impl<T: PartialEq + 'static> PartialEq<[T]> for List<T> {
    fn eq(&self, other: &[T]) -> bool {
        self.as_slice() == other
    }
}

impl<T: 'static> From<Vec<T>> for List<T> {
    fn from(items: Vec<T>) -> Self {
        List(Repr::Owned(items))
    }
}

impl<T: 'static> From<&'static [T]> for List<T> {
    fn from(items: &'static [T]) -> Self {
        List::from_static(items)
    }
}

impl<T: serde::Serialize + 'static> serde::Serialize for List<T> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.as_slice().serialize(serializer)
    }
}

/// A parse's pending long texts inside a list: only a list of its own holds items the
/// text walk reaches; the parse attaches those of the shared ones in their buffer, and
/// static lists hold none.
impl<T: Attach + 'static> Attach for List<T> {
    fn attach(&mut self, buffer: &Arc<String>) {
        if let Repr::Owned(items) = &mut self.0 {
            items.attach(buffer);
        }
    }
}

/// A shared buffer as its lists hold it; `None` when no list went into it. The schema
/// keeps the buffer, so when the first reservation's estimate left more than half of it
/// unused, that room is given back (the `Vec`'s own doubling never leaves as much).
pub(crate) fn freeze<T>(mut items: Vec<T>) -> Option<Arc<Vec<T>>> {
    if items.is_empty() {
        return None;
    }
    if items.capacity() - items.len() > items.len() {
        items.shrink_to_fit();
    }
    Some(Arc::new(items))
}

impl<T: 'static> List<T> {
    /// A span of `start..start + len` of a buffer still being filled, to be given the
    /// buffer by [`List::share`] before anything reads it.
    #[inline]
    pub(crate) const fn pending(start: u32, len: u32) -> Self {
        List(Repr::Pending { start, len })
    }

    /// Whether this list still waits for its buffer ([`List::pending`]).
    #[cfg(test)]
    pub(crate) fn is_pending(&self) -> bool {
        matches!(self.0, Repr::Pending { .. })
    }

    /// Gives a pending list its frozen buffer.
    #[inline]
    pub(crate) fn share(&mut self, buffer: &Option<Arc<Vec<T>>>) {
        if let (&Repr::Pending { start, len }, Some(buffer)) = (&self.0, buffer) {
            let span = Repr::Span {
                buffer: Arc::clone(buffer),
                start,
                len,
            };
            // What is replaced is the pending span, which owns nothing: forgotten, not
            // dropped, so that no drop glue runs for each list.
            std::mem::forget(std::mem::replace(&mut self.0, span));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{freeze, List};

    #[test]
    fn a_frozen_buffer_gives_back_what_the_estimate_left_unused() {
        assert!(freeze(Vec::<u32>::with_capacity(64)).is_none());
        let mut overshot = Vec::with_capacity(256);
        overshot.extend(0..3u32);
        let frozen = freeze(overshot).expect("items");
        assert!(frozen.capacity() <= 6, "{}", frozen.capacity());
        let mut doubled = Vec::with_capacity(16);
        doubled.extend(0..9u32);
        assert_eq!(freeze(doubled).expect("items").capacity(), 16);
    }

    #[test]
    fn static_and_owned_lists_compare_as_their_slices() {
        static ITEMS: [u32; 2] = [1, 2];
        let a = List::from_static(&ITEMS);
        let b = List::from(vec![1, 2]);
        assert_eq!(a, b);
        assert_eq!(a.clone().into_vec(), [1, 2]);
        assert_eq!(format!("{a:?}"), "[1, 2]");
        assert!(List::<u32>::default().is_empty());
        assert_eq!((&b).into_iter().sum::<u32>(), 3);
    }
}
