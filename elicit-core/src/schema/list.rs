//! [`List`]: the option lists of a schema, borrowed from the program for derived
//! schemas, and owned or shared between the lists of one parse for parsed schemas.
//!
//! A parsed select owning its options as a `Vec` costs one allocation and one free per
//! select. A form with a few selects gets those blocks from the allocator's per-thread
//! cache; past it (a form with dozens of selects), each costs some hundreds of
//! instructions. So a parse gives its first [`OWN_LISTS`] lists a `Vec` of their own
//! and appends the rest to one buffer for their kind of item ([`Lists`]), handing out
//! pending spans of it. When the parse has read everything, the buffer is frozen and attached
//! to each pending list in one walk over the properties ([`Lists::attach_to`]), before
//! anything reads them, as [`Text`](super::Text)'s long texts are.

use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

use super::text::Attach;
use super::{EnumOption, Options, Property, PropertyKind, Text};

/// How many lists a parse gives a `Vec` of their own before the rest share a buffer: as
/// many as a form with a few selects has, whose blocks the allocator serves from its
/// cache, so that such a form pays nothing for a buffer it does not need.
pub(crate) const OWN_LISTS: usize = 16;

/// A list of a schema: a select's option values or titled options.
///
/// It reads as a slice (it derefs to one) and compares as one. A derived schema's lists
/// are `&'static` constants ([`List::from_static`], usable in a `static`); a parsed
/// schema's are a `Vec` of their own, or, past a parse's first few, spans of one buffer
/// the parse's lists share (one allocation for all of them, cloned by a reference
/// count).
///
/// ```
/// use elicit_core::schema::{List, Text};
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
    /// A span of the buffer of a parse still running: only [`Lists`] makes these,
    /// and the parse attaches the buffer to each before it returns or reads one.
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
/// text walk reaches; the shared ones are attached in their buffer
/// ([`Lists::attach_texts`]), and static lists hold none.
impl<T: Attach + 'static> Attach for List<T> {
    fn attach(&mut self, buffer: &Arc<String>) {
        if let Repr::Owned(items) = &mut self.0 {
            items.attach(buffer);
        }
    }
}

/// The lists of one parse: the first [`OWN_LISTS`] get a `Vec` of their own; the rest
/// are built in one buffer of their kind, made when the first of them comes (so a form
/// with a few selects neither allocates nor frees one), handed out as pending spans,
/// and given the buffer by [`Lists::attach_to`] when the parse ends.
pub(crate) struct Lists {
    /// How many lists got a `Vec` of their own.
    own: usize,
    /// How many items a shared buffer makes room for when it is made.
    expected: usize,
    shared: Option<Box<Shared>>,
}

/// The shared buffers, one a kind of item.
#[derive(Default)]
pub(crate) struct Shared {
    untitled: Vec<Text>,
    titled: Vec<EnumOption>,
}

/// The kinds of item a parsed list holds, each with its buffer in [`Shared`].
pub(crate) trait Item: Sized + 'static {
    fn buffer(shared: &mut Shared) -> &mut Vec<Self>;
}

impl Item for Text {
    #[inline]
    fn buffer(shared: &mut Shared) -> &mut Vec<Self> {
        &mut shared.untitled
    }
}

impl Item for EnumOption {
    #[inline]
    fn buffer(shared: &mut Shared) -> &mut Vec<Self> {
        &mut shared.titled
    }
}

/// Where a list's items are pushed ([`Lists::lend`]): a `Vec` of the list's own, or its
/// kind's shared buffer, lent until [`Lists::list`] or [`Lists::discard`] takes it back.
pub(crate) struct Lent<T> {
    pub(crate) items: Vec<T>,
    /// Where the list starts in the shared buffer, when `items` is it.
    from: Option<usize>,
}

impl Lists {
    pub(crate) fn new() -> Self {
        Lists {
            own: 0,
            expected: 0,
            shared: None,
        }
    }

    /// How many items a shared buffer should make room for, once one is needed.
    pub(crate) fn expect(&mut self, items: usize) {
        self.expected = items;
    }

    /// Where to push the items of the next list, of `len` items: a `Vec` of its own, or
    /// (when `may_share` and the parse's first lists have had theirs) the shared buffer.
    #[inline]
    pub(crate) fn lend<T: Item>(&mut self, len: usize, may_share: bool) -> Lent<T> {
        if self.own < OWN_LISTS || !may_share {
            self.own += 1;
            return Lent {
                items: Vec::with_capacity(len),
                from: None,
            };
        }
        self.lend_shared(len)
    }

    #[inline]
    fn lend_shared<T: Item>(&mut self, len: usize) -> Lent<T> {
        let buffer = T::buffer(self.shared.get_or_insert_with(Box::default));
        let mut items = std::mem::take(buffer);
        items.reserve(if items.capacity() == 0 {
            self.expected.max(len)
        } else {
            len
        });
        let from = Some(items.len());
        Lent { items, from }
    }

    /// The list of the items pushed onto what [`Lists::lend`] gave.
    #[inline]
    pub(crate) fn list<T: Item>(&mut self, lent: Lent<T>) -> List<T> {
        match lent.from {
            None => List::from(lent.items),
            Some(from) => self.pend(lent.items, from),
        }
    }

    #[inline]
    fn pend<T: Item>(&mut self, mut items: Vec<T>, from: usize) -> List<T> {
        let list = match (u32::try_from(from), u32::try_from(items.len() - from)) {
            (Ok(start), Ok(len)) => List(Repr::Pending { start, len }),
            // Past what a span can say (with limits raised that far): a list of its own.
            _ => List::from(items.split_off(from)),
        };
        self.give_back(items);
        list
    }

    /// Takes back what [`Lists::lend`] gave, without the items pushed since: the list
    /// was refused.
    pub(crate) fn discard<T: Item>(&mut self, lent: Lent<T>) {
        if let Some(from) = lent.from {
            let mut items = lent.items;
            items.truncate(from);
            self.give_back(items);
        }
    }

    #[inline]
    fn give_back<T: Item>(&mut self, items: Vec<T>) {
        if let Some(shared) = &mut self.shared {
            *T::buffer(shared) = items;
        }
    }

    /// Attaches the text buffer to the pending texts of the shared lists' items.
    pub(crate) fn attach_texts(&mut self, buffer: &Arc<String>) {
        if let Some(shared) = &mut self.shared {
            shared.untitled.attach(buffer);
            shared.titled.attach(buffer);
        }
    }

    /// Freezes the shared buffers and attaches them to every pending list of
    /// `properties`: one walk, and none when every list had its own.
    #[inline]
    pub(crate) fn attach_to(&mut self, properties: &mut [Property]) {
        if let Some(shared) = self.shared.take() {
            share(*shared, properties);
        }
    }
}

#[inline(never)]
fn share(shared: Shared, properties: &mut [Property]) {
    let untitled = freeze(shared.untitled);
    let titled = freeze(shared.titled);
    for property in properties {
        let options = match &mut property.schema.kind {
            PropertyKind::SingleSelect(s) => &mut s.options,
            PropertyKind::MultiSelect(m) => &mut m.options,
            PropertyKind::String(_)
            | PropertyKind::Number(_)
            | PropertyKind::Integer(_)
            | PropertyKind::Boolean(_)
            | PropertyKind::Unknown(_) => continue,
        };
        match options {
            Options::Untitled(list) => list.share(&untitled),
            Options::Titled(list) => list.share(&titled),
        }
    }
}

/// A shared buffer as its lists hold it; `None` when no list went into it. The schema
/// keeps the buffer, so when the first reservation's estimate left more than half of it
/// unused, that room is given back (the `Vec`'s own doubling never leaves as much).
fn freeze<T>(mut items: Vec<T>) -> Option<Arc<Vec<T>>> {
    if items.is_empty() {
        return None;
    }
    if items.capacity() - items.len() > items.len() {
        items.shrink_to_fit();
    }
    Some(Arc::new(items))
}

impl<T: 'static> List<T> {
    /// Gives a pending list its frozen buffer.
    #[inline]
    fn share(&mut self, buffer: &Option<Arc<Vec<T>>>) {
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
    use super::{List, Lists, Repr, OWN_LISTS};
    use crate::schema::{Options, Property, PropertyKind, SingleSelectSchema, Text};

    fn build(lists: &mut Lists, items: &[&str], may_share: bool) -> List<Text> {
        let mut lent = lists.lend(items.len(), may_share);
        lent.items
            .extend(items.iter().map(|s| Text::from(s.to_string())));
        lists.list(lent)
    }

    fn select(list: List<Text>) -> Property {
        let mut p = Property::placeholder();
        p.schema.kind = PropertyKind::SingleSelect(SingleSelectSchema {
            options: Options::Untitled(list),
            default: None,
        });
        p
    }

    fn values(p: &Property) -> Vec<String> {
        match &p.schema.kind {
            PropertyKind::SingleSelect(s) => s.options.values().map(String::from).collect(),
            _ => unreachable!(),
        }
    }

    #[test]
    fn the_first_lists_own_their_items_and_the_rest_share_one_buffer() {
        let mut lists = Lists::new();
        let names: Vec<String> = (0..OWN_LISTS + 3).map(|i| format!("o{i}")).collect();
        let mut made: Vec<List<Text>> = names
            .iter()
            .map(|n| build(&mut lists, &[n, "x"], true))
            .collect();
        // A list that must own its items (the legacy `enumNames` pairs with them) does.
        made.push(build(&mut lists, &["p", "q", "r"], false));
        // A refused list leaves nothing in the buffer.
        let mut refused = lists.lend::<Text>(2, true);
        refused.items.push(Text::from("refused".to_string()));
        lists.discard(refused);
        made.push(build(&mut lists, &["last"], true));
        for (i, list) in made.iter().enumerate() {
            let pending = matches!(list.0, Repr::Pending { .. });
            assert_eq!(pending, i >= OWN_LISTS && i != OWN_LISTS + 3, "list {i}");
        }
        let mut properties: Vec<Property> = made.into_iter().map(select).collect();
        lists.attach_to(&mut properties);
        for (i, p) in properties.iter().take(OWN_LISTS + 3).enumerate() {
            assert_eq!(values(p), [names[i].as_str(), "x"]);
        }
        assert_eq!(values(&properties[OWN_LISTS + 3]), ["p", "q", "r"]);
        assert_eq!(values(&properties[OWN_LISTS + 4]), ["last"]);
        let kept = properties[OWN_LISTS + 1].clone();
        drop(properties);
        assert_eq!(values(&kept), [names[OWN_LISTS + 1].as_str(), "x"]);
    }

    #[test]
    fn a_parse_whose_lists_all_own_their_items_has_no_buffer() {
        let mut lists = Lists::new();
        for i in 0..OWN_LISTS {
            build(&mut lists, &[&i.to_string()], true);
        }
        assert!(lists.shared.is_none());
    }

    #[test]
    fn a_frozen_buffer_gives_back_what_the_estimate_left_unused() {
        assert!(super::freeze(Vec::<u32>::with_capacity(64)).is_none());
        let mut overshot = Vec::with_capacity(256);
        overshot.extend(0..3u32);
        let frozen = super::freeze(overshot).expect("items");
        assert!(frozen.capacity() <= 6, "{}", frozen.capacity());
        let mut doubled = Vec::with_capacity(16);
        doubled.extend(0..9u32);
        assert_eq!(super::freeze(doubled).expect("items").capacity(), 16);
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
#[cfg(test)]
mod size_probe {
    #[test]
    fn probe() {
        use crate::schema::*;
        eprintln!("PROBE List<Text>={} Options={} PropertyKind={} PropertySchema={} Property={} Single={}",
            std::mem::size_of::<List<Text>>(), std::mem::size_of::<Options>(), std::mem::size_of::<PropertyKind>(),
            std::mem::size_of::<PropertySchema>(), std::mem::size_of::<Property>(), std::mem::size_of::<SingleSelectSchema>());
    }
}
