//! The lists of one parse ([`Lists`]): which get a `Vec` of their own, which share one
//! buffer of their kind, and the walk that gives the shared buffer to each of them when
//! the parse ends (the storage itself is [`List`]'s, in `store::list`).

use std::sync::Arc;

use crate::schema::{EnumOption, Options, Property, PropertyKind};
use crate::store::list::freeze;
use crate::store::{Attach, List, Text};

/// How many lists a parse gives a `Vec` of their own before the rest share a buffer: as
/// many as a form with a few selects has, whose blocks the allocator serves from its
/// cache, so that such a form pays nothing for a buffer it does not need.
pub(crate) const OWN_LISTS: usize = 16;

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
            (Ok(start), Ok(len)) => List::pending(start, len),
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

#[cfg(test)]
mod tests {
    use super::{List, Lists, OWN_LISTS};
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
            let pending = list.is_pending();
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
}
