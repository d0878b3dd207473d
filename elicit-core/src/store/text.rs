//! [`Text`]: the strings of a schema, borrowed from the program for derived schemas,
//! and held inline or shared between the long strings of one parse for parsed schemas.
//!
//! Owning every name, title and option as its own `String` cost about two allocations
//! per property, a third of a strict parse. A parsed text of up to 22 bytes (most
//! names, option values and titles) is held in the `Text` itself, which is 24 bytes
//! whatever it holds: no allocation, no reference count, nothing to free. The parse
//! copies each longer text it keeps into one buffer, and each such [`Text`] is a span of
//! it holding a reference count: a parse allocates for its long texts once (plus the
//! buffer's growth), and dropping the schema frees them once.
//!
//! While the parse runs, its long texts are spans without a buffer ([`TextPool`]); when
//! every text is read, the buffer is frozen and attached to each of them in one walk over
//! the schema ([`Attach`]), before anything reads them. A `Text` is immutable afterwards
//! (no interior mutability: it can key a `HashMap`).

use std::borrow::{Borrow, Cow};
use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::Deref;
use std::sync::Arc;

/// A string of a schema: a name, title, description, option value, default or pattern.
///
/// It reads as a `&str` (it derefs to one) and is cheap to clone (24 bytes, no
/// allocation). A derived schema's texts are `&'static str` constants
/// ([`Text::from_static`], usable in a `static`); a parsed schema holds each text of up
/// to 22 bytes in the `Text` itself, and shares one buffer per parse among the longer
/// ones. Reading an inline text as a `str` checks it as UTF-8 (about two instructions a
/// byte); comparisons read its bytes and cost nothing more.
///
/// ```
/// use elicit::schema::Text;
///
/// const NAME: Text = Text::from_static("email");
/// let owned = Text::from(String::from("email"));
/// assert_eq!(NAME, owned);
/// assert_eq!(owned.len(), 5);
/// assert!(owned.starts_with("em")); // a `str` method, through `Deref`
/// assert_eq!(NAME.as_str(), "email");
/// ```
#[derive(Clone)]
pub struct Text(Repr);

#[derive(Clone)]
enum Repr {
    /// Compile-time text.
    Static(&'static str),
    /// Text owned on its own (built from a `String` outside a parse).
    Owned(Arc<str>),
    /// A span of a parse's shared buffer.
    Span {
        buffer: Arc<String>,
        start: u32,
        len: u32,
    },
    /// A span of the buffer of a parse still running: only [`TextPool`] makes these, and
    /// the parse attaches the buffer to each before it returns or reads one.
    Pending { start: u32, len: u32 },
    /// A text of at most [`INLINE`] bytes, held in the value itself: what most names,
    /// option values and titles are. Copied from a `str` ([`inline`]), so always UTF-8.
    Inline { len: u8, bytes: [u8; INLINE] },
}

/// The longest text a [`Text`] holds in itself: as many bytes as fit beside the tag and
/// the length in the 24 bytes the other representations take.
const INLINE: usize = 22;

/// `text` held inline, if it is short enough: read as a few words from either end
/// (overlapping in the middle) merged in registers, so that neither a `memcpy` call nor
/// a byte-by-byte copy through memory is made for a text of a few bytes.
#[inline(always)]
fn inline(text: &str) -> Option<Repr> {
    let from = text.as_bytes();
    let n = from.len();
    // Bytes 0..16 and 16..22 of the text, little-endian.
    let (head, tail): (u128, u64) = match n {
        0 => (0, 0),
        1..=3 => {
            let at = |i: usize| u128::from(from[i]) << (8 * i);
            (at(0) | at(n / 2) | at(n - 1), 0)
        }
        // The last word shifted over the first: their common bytes are the same.
        4..=7 => {
            let both = word::<4>(from, 0) | word::<4>(from, n - 4) << (8 * (n - 4));
            (u128::from(both), 0)
        }
        8..=16 => {
            let last = u128::from(word::<8>(from, n - 8)) << (8 * (n - 8));
            (u128::from(word::<8>(from, 0)) | last, 0)
        }
        17..=INLINE => {
            let head = u128::from(word::<8>(from, 0)) | u128::from(word::<8>(from, 8)) << 64;
            // The last word holds bytes n - 8 .. n; bytes 16 .. n are its top n - 16.
            (head, word::<8>(from, n - 8) >> (8 * (24 - n)))
        }
        _ => return None,
    };
    let mut bytes = [0; INLINE];
    bytes[..16].copy_from_slice(&head.to_le_bytes());
    bytes[16..].copy_from_slice(&tail.to_le_bytes()[..INLINE - 16]);
    Some(Repr::Inline {
        len: n as u8,
        bytes,
    })
}

/// The `W` bytes of `bytes` from `at` as a little-endian number (`W` is 4 or 8).
#[inline(always)]
fn word<const W: usize>(bytes: &[u8], at: usize) -> u64 {
    let mut w = [0; 8];
    w[..W].copy_from_slice(&bytes[at..at + W]);
    u64::from_le_bytes(w)
}

impl Text {
    /// Text from a compile-time string (usable in a `const` or `static`).
    pub const fn from_static(text: &'static str) -> Self {
        Text(Repr::Static(text))
    }

    /// A copy of `text`: inline when it is short, a block of its own otherwise.
    pub(crate) fn copied(text: &str) -> Self {
        Text(inline(text).unwrap_or_else(|| Repr::Owned(Arc::from(text))))
    }

    /// The text when it is a compile-time constant (what the derive's compile-time
    /// checks read).
    pub(crate) const fn as_static(&self) -> Option<&'static str> {
        match &self.0 {
            Repr::Static(s) => Some(s),
            _ => None,
        }
    }

    /// The length in bytes (without reading a shared buffer).
    #[inline]
    pub fn len(&self) -> usize {
        match &self.0 {
            Repr::Static(s) => s.len(),
            Repr::Owned(s) => s.len(),
            Repr::Span { len, .. } | Repr::Pending { len, .. } => *len as usize,
            Repr::Inline { len, .. } => *len as usize,
        }
    }

    /// Whether the text is empty.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The text's bytes (for a span, without the `str` slicing checks).
    #[inline]
    pub fn as_bytes(&self) -> &[u8] {
        match &self.0 {
            Repr::Span { buffer, start, len } => {
                let start = *start as usize;
                let bytes = buffer.as_bytes().get(start..start + *len as usize);
                debug_assert!(bytes.is_some(), "a span outside its buffer");
                bytes.unwrap_or_default()
            }
            Repr::Static(s) => s.as_bytes(),
            Repr::Owned(s) => s.as_bytes(),
            Repr::Inline { len, bytes } => bytes.get(..*len as usize).unwrap_or_default(),
            Repr::Pending { .. } => self.as_str().as_bytes(),
        }
    }

    /// The text's bytes if it is `len` bytes long: the length test reads no buffer, so
    /// comparing a name or an option with text of another length costs one comparison.
    #[inline(always)]
    pub(crate) fn bytes_of_len(&self, len: usize) -> Option<&[u8]> {
        // A parsed text is nearly always inline: tested first, before the jump on the
        // other representations.
        if let Repr::Inline { len: l, bytes } = &self.0 {
            return if *l as usize == len {
                bytes.get(..len)
            } else {
                None
            };
        }
        match &self.0 {
            Repr::Static(s) => (s.len() == len).then_some(s.as_bytes()),
            Repr::Owned(s) => (s.len() == len).then_some(s.as_bytes()),
            Repr::Span {
                buffer,
                start,
                len: l,
            } => {
                if *l as usize != len {
                    return None;
                }
                let start = *start as usize;
                buffer.as_bytes().get(start..start + len)
            }
            // Taken above; read as the pending span is, should that test go.
            Repr::Inline { .. } | Repr::Pending { .. } => {
                Some(self.as_bytes()).filter(|b| b.len() == len)
            }
        }
    }

    /// The text as a `&str`.
    #[inline]
    pub fn as_str(&self) -> &str {
        match &self.0 {
            Repr::Static(s) => s,
            Repr::Owned(s) => s,
            Repr::Span { buffer, start, len } => {
                let start = *start as usize;
                let text = buffer.get(start..start + *len as usize);
                debug_assert!(text.is_some(), "a span outside its buffer");
                text.unwrap_or_default()
            }
            // Copied from a `str` whole, so the check cannot fail; it is what reading
            // inline bytes as text costs without `unsafe` (about two instructions a
            // byte). What compares texts reads their bytes instead.
            Repr::Inline { len, bytes } => {
                let text = bytes
                    .get(..*len as usize)
                    .and_then(|b| std::str::from_utf8(b).ok());
                debug_assert!(text.is_some(), "inline text that is not UTF-8");
                text.unwrap_or_default()
            }
            Repr::Pending { .. } => {
                debug_assert!(false, "a schema text was read before its parse attached it");
                ""
            }
        }
    }
}

impl Deref for Text {
    type Target = str;

    #[inline]
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for Text {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl Borrow<str> for Text {
    fn borrow(&self) -> &str {
        self.as_str()
    }
}

impl Default for Text {
    fn default() -> Self {
        Text::from_static("")
    }
}

impl fmt::Debug for Text {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl fmt::Display for Text {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self.as_str(), f)
    }
}

impl PartialEq for Text {
    #[inline]
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.as_bytes() == other.as_bytes()
    }
}

impl Eq for Text {}

impl PartialEq<str> for Text {
    /// Compares lengths first: a span knows its length without reading its buffer, so
    /// most unequal texts (a content key against a name, a value against an option)
    /// are told apart without a memory access.
    #[inline]
    fn eq(&self, other: &str) -> bool {
        match &self.0 {
            Repr::Static(s) => *s == other,
            Repr::Owned(s) => **s == *other,
            Repr::Span { buffer, start, len } => {
                *len as usize == other.len() && {
                    let start = *start as usize;
                    buffer.as_bytes().get(start..start + other.len()) == Some(other.as_bytes())
                }
            }
            Repr::Inline { .. } => self.as_bytes() == other.as_bytes(),
            Repr::Pending { .. } => self.as_str() == other,
        }
    }
}

impl PartialEq<&str> for Text {
    #[inline]
    fn eq(&self, other: &&str) -> bool {
        *self == **other
    }
}

impl PartialEq<String> for Text {
    fn eq(&self, other: &String) -> bool {
        *self == **other
    }
}

impl PartialEq<Text> for str {
    #[inline]
    fn eq(&self, other: &Text) -> bool {
        *other == *self
    }
}

impl PartialEq<Text> for &str {
    #[inline]
    fn eq(&self, other: &Text) -> bool {
        *other == **self
    }
}

impl PartialOrd for Text {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Text {
    fn cmp(&self, other: &Self) -> Ordering {
        // Byte order is `str` order.
        self.as_bytes().cmp(other.as_bytes())
    }
}

impl Hash for Text {
    fn hash<H: Hasher>(&self, state: &mut H) {
        // As `str` hashes, so that `Borrow<str>` look-ups agree.
        self.as_str().hash(state)
    }
}

impl serde::Serialize for Text {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl From<&'static str> for Text {
    fn from(text: &'static str) -> Self {
        Text::from_static(text)
    }
}

// `Arc<str>` is a block of its own either way: from a `String` too, its bytes are copied.
impl From<String> for Text {
    fn from(text: String) -> Self {
        Text::copied(&text)
    }
}

impl From<Box<str>> for Text {
    fn from(text: Box<str>) -> Self {
        Text::copied(&text)
    }
}

impl From<Arc<str>> for Text {
    fn from(text: Arc<str>) -> Self {
        Text(Repr::Owned(text))
    }
}

impl From<Cow<'static, str>> for Text {
    fn from(text: Cow<'static, str>) -> Self {
        match text {
            Cow::Borrowed(s) => Text::from_static(s),
            Cow::Owned(s) => Text::from(s),
        }
    }
}

impl From<Text> for String {
    fn from(text: Text) -> Self {
        text.as_str().to_owned()
    }
}

impl From<&Text> for serde_json::Value {
    fn from(text: &Text) -> Self {
        serde_json::Value::String(text.as_str().to_owned())
    }
}

/// The texts of one parse: a short one is held inline; a longer one is appended to the
/// shared buffer and handed out as a pending span, and [`TextPool::freeze`] then gives
/// the buffer that [`Attach`] gives each of them. No text is read in between. A parse
/// whose texts are all short allocates nothing for them.
pub(crate) struct TextPool {
    text: String,
    /// What to reserve when the first long text comes ([`TextPool::reserve`]).
    expected: usize,
}

impl TextPool {
    /// An empty pool (it allocates on its first long text).
    pub(crate) fn new() -> Self {
        TextPool {
            text: String::new(),
            expected: 0,
        }
    }

    /// How many bytes of long text to make room for, once there is one.
    pub(crate) fn reserve(&mut self, bytes: usize) {
        self.expected = bytes;
    }

    /// Copies `text` into a [`Text`]: inline when it is short, into the pool otherwise.
    #[inline]
    pub(crate) fn text(&mut self, text: &str) -> Text {
        if let Some(short) = inline(text) {
            return Text(short);
        }
        self.long(text)
    }

    /// [`TextPool::text`] for a text too long to hold inline.
    #[inline(never)]
    fn long(&mut self, text: &str) -> Text {
        if self.text.capacity() == 0 {
            self.text.reserve(self.expected.max(text.len()));
        }
        match (
            u32::try_from(text.len()),
            u32::try_from(self.text.len() + text.len()),
        ) {
            (Ok(len), Ok(_)) => {
                let start = self.text.len() as u32;
                self.text.push_str(text);
                Text(Repr::Pending { start, len })
            }
            // Past what a span can say (4 GiB of text in one parse): a text of its own.
            _ => Text::copied(text),
        }
    }

    /// The buffer, to attach to every pending text the pool made; `None` when every
    /// text was short (nothing is pending).
    pub(crate) fn freeze(&mut self) -> Option<Arc<String>> {
        (!self.text.is_empty()).then(|| Arc::new(std::mem::take(&mut self.text)))
    }
}

/// Attaching a frozen [`TextPool`] buffer to every pending text of a value. Each
/// implementation names every text field of its type (the destructuring is exhaustive,
/// so a new field cannot be forgotten); those of the schema's types are the parse's
/// (`schema::parse::attach`).
pub(crate) trait Attach {
    fn attach(&mut self, buffer: &Arc<String>);
}

impl Attach for Text {
    #[inline]
    fn attach(&mut self, buffer: &Arc<String>) {
        if let Repr::Pending { start, len } = self.0 {
            self.0 = Repr::Span {
                buffer: Arc::clone(buffer),
                start,
                len,
            };
        }
    }
}

impl<T: Attach> Attach for Option<T> {
    #[inline]
    fn attach(&mut self, buffer: &Arc<String>) {
        if let Some(t) = self {
            t.attach(buffer);
        }
    }
}

impl<T: Attach + Clone> Attach for Cow<'static, [T]> {
    fn attach(&mut self, buffer: &Arc<String>) {
        // Borrowed slices are compile-time data: nothing is pending in them.
        if let Cow::Owned(items) = self {
            for item in items {
                item.attach(buffer);
            }
        }
    }
}

impl<T: Attach> Attach for [T] {
    #[inline]
    fn attach(&mut self, buffer: &Arc<String>) {
        for item in self {
            item.attach(buffer);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Attach, Repr, Text, TextPool, INLINE};
    use std::collections::hash_map::DefaultHasher;
    use std::collections::HashSet;
    use std::hash::{Hash, Hasher};
    use std::sync::Arc;

    const LONG: &str = "a title longer than twenty-two bytes, with ü";

    #[test]
    fn pending_spans_read_once_attached() {
        let mut pool = TextPool::new();
        pool.reserve(4);
        let mut texts = [
            pool.text(LONG),
            pool.text(""),
            pool.text("wörld"),
            pool.text(LONG),
        ];
        assert!(matches!(texts[0].0, Repr::Pending { .. }));
        assert!(matches!(texts[2].0, Repr::Inline { .. }));
        assert_eq!(texts[0].len(), LONG.len());
        let buffer = pool.freeze().expect("long texts are pending");
        texts.attach(&buffer);
        drop(buffer);
        assert_eq!(
            texts.each_ref().map(Text::as_str),
            [LONG, "", "wörld", LONG]
        );
        let clone = texts[3].clone();
        drop(texts);
        assert_eq!(clone, LONG);
        // Attaching twice changes nothing.
        let mut again = clone.clone();
        again.attach(&Arc::new("x".repeat(200)));
        assert_eq!(again, LONG);
    }

    #[test]
    fn a_pool_of_short_texts_has_no_buffer() {
        let mut pool = TextPool::new();
        pool.reserve(1024);
        let texts = [pool.text("name"), pool.text(""), pool.text(&"é".repeat(11))];
        assert!(pool.freeze().is_none());
        assert_eq!(texts[2], "é".repeat(11));
        assert_eq!(std::mem::size_of::<Text>(), 24);
    }

    fn hash(t: &impl Hash) -> u64 {
        let mut h = DefaultHasher::new();
        t.hash(&mut h);
        h.finish()
    }

    /// Every length around the inline limit and each of its word copies, with one-,
    /// two-, three- and four-byte characters at the seams: the text reads back as
    /// itself, and compares, orders and hashes as its `str`.
    #[test]
    fn inline_texts_are_their_strings_at_every_length() {
        let pieces = ["a", "é", "€", "𝄞", "-", "Z"];
        let mut texts = Vec::new();
        for n in 0..=INLINE + 6 {
            for (i, first) in pieces.iter().enumerate() {
                let mut s = String::new();
                let mut k = i;
                while s.len() < n {
                    s.push_str(if s.is_empty() {
                        first
                    } else {
                        pieces[k % pieces.len()]
                    });
                    k += 1;
                }
                texts.push(s);
            }
        }
        for s in &texts {
            let mut pool = TextPool::new();
            let mut pooled = pool.text(s);
            assert_eq!(
                matches!(pooled.0, Repr::Inline { .. }),
                s.len() <= INLINE,
                "{s:?}"
            );
            if let Some(buffer) = pool.freeze() {
                pooled.attach(&buffer);
            }
            for t in [
                pooled,
                Text::from(s.clone()),
                Text::from(s.clone().into_boxed_str()),
            ] {
                assert_eq!(t.as_str(), s);
                assert_eq!(t.as_bytes(), s.as_bytes());
                assert_eq!(t.len(), s.len());
                assert_eq!(t.bytes_of_len(s.len()), Some(s.as_bytes()));
                assert_eq!(t.bytes_of_len(s.len() + 1), None);
                assert_eq!(t, *s.as_str());
                assert_eq!(hash(&t), hash(&s.as_str()));
                for other in &texts {
                    let o = Text::from(other.clone());
                    assert_eq!(t.cmp(&o), s.as_str().cmp(other), "{s:?} {other:?}");
                    assert_eq!(t == o, s == other);
                    assert_eq!(t == *other.as_str(), s == other);
                }
            }
        }
    }

    #[test]
    fn equality_ordering_and_hashing_are_the_strings() {
        for text in ["name", LONG] {
            let mut pool = TextPool::new();
            let mut pooled = pool.text(text);
            if let Some(buffer) = pool.freeze() {
                pooled.attach(&buffer);
            }
            let all = [
                pooled,
                Text::from_static(text),
                Text::from(String::from(text)),
                Text::from(Arc::<str>::from(text)),
                Text::from(std::borrow::Cow::Borrowed(text)),
            ];
            for t in &all {
                assert_eq!(t, &all[0]);
                assert_eq!(t, text);
                assert_eq!(t.cmp(&Text::from_static("nam")), text.cmp("nam"));
                assert_eq!(format!("{t} {t:?}"), format!("{text} {text:?}"));
            }
            let set: HashSet<Text> = all.into_iter().collect();
            assert_eq!(set.len(), 1);
            assert!(set.contains(text));
        }
    }
}
