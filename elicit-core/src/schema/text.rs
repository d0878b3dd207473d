//! [`Text`]: the strings of a schema, borrowed from the program for derived schemas and
//! shared between all the strings of one parse for parsed schemas.
//!
//! Owning every name, title and option as its own `String` cost about two allocations
//! per property, a third of a strict parse. The parse instead copies all the text it
//! keeps into one buffer, and each [`Text`] is a span of it holding a reference count:
//! a parse allocates for its text once (plus the buffer's growth), and dropping the
//! schema frees it once.
//!
//! While the parse runs, its texts are spans without a buffer ([`TextPool`]); when every
//! text is read, the buffer is frozen and attached to each of them in one walk over the
//! schema ([`Attach`]), before anything reads them. A `Text` is immutable afterwards (no
//! interior mutability: it can key a `HashMap`).

use std::borrow::{Borrow, Cow};
use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::Deref;
use std::sync::Arc;

use super::{EnumOption, FormatSpec, Options, Pattern, Property, PropertyKind, PropertySchema};

/// A string of a schema: a name, title, description, option value, default or pattern.
///
/// It reads as a `&str` (it derefs to one) and is cheap to clone (no copy of the text).
/// A derived schema's texts are `&'static str` constants ([`Text::from_static`], usable
/// in a `static`); a parsed schema's texts share one buffer per parse.
///
/// ```
/// use elicit_core::schema::Text;
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
}

impl Text {
    /// Text from a compile-time string (usable in a `const` or `static`).
    pub const fn from_static(text: &'static str) -> Self {
        Text(Repr::Static(text))
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
            Repr::Pending { .. } => self.as_str().as_bytes(),
        }
    }

    /// The text's bytes if it is `len` bytes long: the length test reads no buffer, so
    /// comparing a name or an option with text of another length costs one comparison.
    #[inline(always)]
    pub(crate) fn bytes_of_len(&self, len: usize) -> Option<&[u8]> {
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
            Repr::Pending { .. } => Some(self.as_bytes()).filter(|b| b.len() == len),
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
        self.len() == other.len() && *self == *other.as_str()
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
        self.as_str().cmp(other.as_str())
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

impl From<String> for Text {
    fn from(text: String) -> Self {
        Text(Repr::Owned(Arc::from(text)))
    }
}

impl From<Box<str>> for Text {
    fn from(text: Box<str>) -> Self {
        Text(Repr::Owned(Arc::from(text)))
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

/// The shared buffer of one parse: every text the parse keeps is appended to it and
/// handed out as a pending span; [`TextPool::freeze`] then gives the buffer that
/// [`Attach`] gives each of them. No text is read in between.
pub(crate) struct TextPool {
    text: String,
}

impl TextPool {
    /// An empty pool (it allocates on its first text).
    pub(crate) fn new() -> Self {
        TextPool {
            text: String::new(),
        }
    }

    /// Makes room for `bytes` more bytes of text.
    pub(crate) fn reserve(&mut self, bytes: usize) {
        self.text.reserve(bytes);
    }

    /// Copies `text` into the pool.
    #[inline]
    pub(crate) fn text(&mut self, text: &str) -> Text {
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
            _ => Text::from(text.to_owned()),
        }
    }

    /// The buffer, to attach to every text the pool made.
    pub(crate) fn freeze(&mut self) -> Arc<String> {
        Arc::new(std::mem::take(&mut self.text))
    }
}

/// Attaching a frozen [`TextPool`] buffer to every pending text of a value. Each
/// implementation names every text field of its type (the destructuring is exhaustive,
/// so a new field cannot be forgotten).
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

impl Attach for Property {
    #[inline]
    fn attach(&mut self, buffer: &Arc<String>) {
        let Property {
            name,
            required: _,
            schema,
        } = self;
        name.attach(buffer);
        schema.attach(buffer);
    }
}

impl Attach for PropertySchema {
    #[inline]
    fn attach(&mut self, buffer: &Arc<String>) {
        let PropertySchema {
            title,
            description,
            kind,
            meta: _,
            extra: _,
        } = self;
        title.attach(buffer);
        description.attach(buffer);
        match kind {
            PropertyKind::String(s) => {
                let super::StringSchema {
                    min_length: _,
                    max_length: _,
                    pattern,
                    format,
                    default,
                } = s;
                if let Some(Pattern { source, .. }) = pattern {
                    source.attach(buffer);
                }
                if let Some(FormatSpec::Unknown(name)) = format {
                    name.attach(buffer);
                }
                default.attach(buffer);
            }
            PropertyKind::SingleSelect(s) => {
                let super::SingleSelectSchema { options, default } = s;
                options.attach(buffer);
                default.attach(buffer);
            }
            PropertyKind::MultiSelect(m) => {
                let super::MultiSelectSchema {
                    options,
                    min_items: _,
                    max_items: _,
                    default,
                } = m;
                options.attach(buffer);
                default.attach(buffer);
            }
            PropertyKind::Number(_)
            | PropertyKind::Integer(_)
            | PropertyKind::Boolean(_)
            | PropertyKind::Unknown(_) => {}
        }
    }
}

impl Attach for Options {
    fn attach(&mut self, buffer: &Arc<String>) {
        match self {
            Options::Untitled(values) => values.attach(buffer),
            Options::Titled(options) => options.attach(buffer),
        }
    }
}

impl Attach for EnumOption {
    fn attach(&mut self, buffer: &Arc<String>) {
        let EnumOption {
            value,
            title,
            description,
            meta: _,
        } = self;
        value.attach(buffer);
        title.attach(buffer);
        description.attach(buffer);
    }
}

#[cfg(test)]
mod tests {
    use super::{Attach, Text, TextPool};
    use std::collections::HashSet;
    use std::sync::Arc;

    #[test]
    fn pending_spans_read_once_attached() {
        let mut pool = TextPool::new();
        pool.reserve(4);
        let mut texts = [pool.text("héllo"), pool.text(""), pool.text("wörld")];
        assert_eq!(texts[0].len(), "héllo".len());
        let buffer = pool.freeze();
        texts.attach(&buffer);
        drop(buffer);
        assert_eq!(texts.each_ref().map(Text::as_str), ["héllo", "", "wörld"]);
        let clone = texts[2].clone();
        drop(texts);
        assert_eq!(clone, "wörld");
        // Attaching twice changes nothing.
        let mut again = clone.clone();
        again.attach(&Arc::new(String::from("xxxxxxxxxxxxxxxxxxxx")));
        assert_eq!(again, "wörld");
    }

    #[test]
    fn equality_ordering_and_hashing_are_the_strings() {
        let mut pool = TextPool::new();
        let mut span = pool.text("name");
        span.attach(&pool.freeze());
        let all = [
            span,
            Text::from_static("name"),
            Text::from(String::from("name")),
            Text::from(std::borrow::Cow::Borrowed("name")),
        ];
        for t in &all {
            assert_eq!(t, &all[0]);
            assert_eq!(t, "name");
            assert_eq!(
                t.cmp(&Text::from_static("nam")),
                std::cmp::Ordering::Greater
            );
            assert_eq!(format!("{t} {t:?}"), "name \"name\"");
        }
        let set: HashSet<Text> = all.into_iter().collect();
        assert_eq!(set.len(), 1);
        assert!(set.contains("name"));
    }
}
