//! Comparing names: a content key against a property's name, a value against an
//! option's. Every such comparison in the crate goes through here: [`same`] (bytes,
//! lengths first, short texts a word at a time), [`same_text`] (the same against a
//! schema [`Text`], whose length is read without its buffer), and [`Key`], a text's
//! length and two words, which decides equality of texts of up to 16 bytes without
//! reading them again, and indexes [`KeyTable`], the hash table of names the check plan
//! and a derived form's reader look keys up in.

use super::Text;

/// [`same`] for a schema text: its length is known without reading its buffer.
#[inline(always)]
pub(crate) fn same_text(text: &Text, s: &str) -> bool {
    match text.bytes_of_len(s.len()) {
        Some(bytes) => same(bytes, s.as_bytes()),
        None => false,
    }
}

/// Byte equality, lengths first; short texts (names, option values) are compared a word
/// at a time instead of through a `memcmp` call.
#[inline(always)]
pub(crate) fn same(a: &[u8], b: &[u8]) -> bool {
    let n = a.len();
    if n != b.len() {
        return false;
    }
    match n {
        0 => true,
        1..=3 => a[0] == b[0] && a[n / 2] == b[n / 2] && a[n - 1] == b[n - 1],
        4..=7 => word4(a, 0) == word4(b, 0) && word4(a, n - 4) == word4(b, n - 4),
        8..=16 => word8(a, 0) == word8(b, 0) && word8(a, n - 8) == word8(b, n - 8),
        _ => a == b,
    }
}

/// The four bytes of `bytes` from `at` as one word (also [`Key`]'s words).
#[inline(always)]
pub(crate) fn word4(bytes: &[u8], at: usize) -> u32 {
    let mut w = [0; 4];
    w.copy_from_slice(&bytes[at..at + 4]);
    u32::from_ne_bytes(w)
}

/// The eight bytes of `bytes` from `at` as one word (also [`Key`]'s words).
#[inline(always)]
pub(crate) fn word8(bytes: &[u8], at: usize) -> u64 {
    let mut w = [0; 8];
    w.copy_from_slice(&bytes[at..at + 8]);
    u64::from_ne_bytes(w)
}

/// A text as its length and two words that, for texts of up to 16 bytes, determine its
/// bytes: two keys of equal length are equal exactly when their texts are.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Key {
    len: usize,
    head: u64,
    tail: u64,
}

/// Beyond this length two keys can be equal while their texts differ.
pub(crate) const EXACT_KEY: usize = 16;

impl Key {
    /// Whether the key alone decides equality with another text (at most
    /// [`EXACT_KEY`] bytes long).
    #[inline(always)]
    pub(crate) fn is_exact(&self) -> bool {
        self.len <= EXACT_KEY
    }

    #[inline(always)]
    pub(crate) fn of(bytes: &[u8]) -> Key {
        let n = bytes.len();
        let (head, tail) = match n {
            0 => (0, 0),
            // Bytes 0, n / 2 and n - 1 are every byte of a text this short.
            1..=3 => (
                u64::from(bytes[0]) | u64::from(bytes[n / 2]) << 8 | u64::from(bytes[n - 1]) << 16,
                0,
            ),
            4..=7 => (
                u64::from(word4(bytes, 0)) | u64::from(word4(bytes, n - 4)) << 32,
                0,
            ),
            _ => (word8(bytes, 0), word8(bytes, n - 8)),
        };
        Key { len: n, head, tail }
    }

    /// A slot in the check plan's table (`content::plan`) to start probing at. A product's bit depends only on
    /// the factor's bits at or below it, and names often differ in their last bytes
    /// only (the high bits of `head`), so the word is folded onto its low half before
    /// the multiplication, whose upper half is kept.
    #[inline(always)]
    pub(crate) fn hash(&self) -> usize {
        let mut x = self.head ^ self.tail.rotate_left(29) ^ self.len as u64;
        x ^= x >> 32;
        (x.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32) as usize
    }

    /// Whether `bytes` are this key's text, when it is at most [`EXACT_KEY`] bytes long.
    /// The words of `bytes` are read as [`Key::of`] reads them, longest texts first (the
    /// usual names), and only those that can differ: a text of under 8 bytes has no
    /// `tail`.
    #[inline(always)]
    pub(crate) fn is_short(&self, bytes: &[u8]) -> bool {
        let n = bytes.len();
        if n != self.len {
            return false;
        }
        if n >= 8 {
            return n <= EXACT_KEY
                && word8(bytes, 0) == self.head
                && word8(bytes, n - 8) == self.tail;
        }
        if n >= 4 {
            return u64::from(word4(bytes, 0)) | u64::from(word4(bytes, n - 4)) << 32 == self.head;
        }
        Key::of(bytes).head == self.head
    }

    /// Whether `bytes` are this key's text (`text` reads it, for long texts only).
    #[inline(always)]
    pub(crate) fn matches<'a>(&self, bytes: &[u8], text: impl FnOnce() -> &'a [u8]) -> bool {
        self.len == bytes.len()
            && Key::of(bytes) == *self
            && (self.len <= EXACT_KEY || text() == bytes)
    }
}

/// Indices of `n` entries by hash: an open-addressing table of `index + 1` (0 for an
/// empty slot), a power of two at least twice `n` long, so that an empty slot ends every
/// probe. Each distinct entry is in it once, at its first index. The plan finds its steps
/// with it, and a derived form its fields (`typed::private::Names`), when a key comes out
/// of order.
pub(crate) struct KeyTable(Box<[u32]>);

impl KeyTable {
    /// The table of entries `0..n`, by `hash_of`; `same` says whether two entries are
    /// equal (the later one is left out).
    pub(crate) fn new(
        n: usize,
        hash_of: impl Fn(usize) -> usize,
        same: impl Fn(usize, usize) -> bool,
    ) -> KeyTable {
        let mut slots = vec![0_u32; (n * 2).next_power_of_two()];
        let mask = slots.len() - 1;
        for index in 0..n {
            let mut at = hash_of(index);
            loop {
                let slot = &mut slots[at & mask];
                match (*slot as usize).checked_sub(1) {
                    // D12 bounds a schema to 256 properties, far from `u32`'s limit.
                    None => {
                        *slot = index as u32 + 1;
                        break;
                    }
                    Some(first) if same(first, index) => break,
                    Some(_) => at = at.wrapping_add(1),
                }
            }
        }
        KeyTable(slots.into_boxed_slice())
    }

    /// How many slots the table has.
    #[cfg(test)]
    pub(crate) fn slots(&self) -> usize {
        self.0.len()
    }

    /// The first entry with this `hash` for which `is` holds.
    #[inline]
    pub(crate) fn find(&self, hash: usize, is: impl Fn(usize) -> bool) -> Option<usize> {
        let mask = self.0.len().checked_sub(1)?;
        let mut at = hash;
        for _ in 0..self.0.len() {
            let index = (*self.0.get(at & mask)? as usize).checked_sub(1)?;
            if is(index) {
                return Some(index);
            }
            at = at.wrapping_add(1);
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_agrees_with_equality_at_every_length() {
        let base: Vec<u8> = (0..40u8).map(|i| b'a' + i % 26).collect();
        for n in 0..=base.len() {
            let a = &base[..n];
            assert!(same(a, a));
            for at in 0..n {
                let mut b = a.to_vec();
                b[at] ^= 1;
                assert!(!same(a, &b), "{n} bytes, differing at {at}");
            }
            assert!(!same(a, &base[..n.saturating_sub(1)]) || n == 0);
        }
    }
}
