//! The string formats elicitation allows ([F2](crate::rules#f2)) and their assertion ([V7](crate::rules#v7)).
//!
//! Content is valid exactly when a JSON Schema 2020-12 validator with format assertion on
//! says so (V), and the reference validator is the `jsonschema` crate: each check below
//! gives its answers, quirks included, and the scratch oracle tests compare the two.
//!
//! Which crate does what, and why:
//! - `email`: [`email_address`] parses the RFC 5321 mailbox with its default options, the
//!   parser and options `jsonschema` uses (so a display form `Name <a@b.c>` passes, as it
//!   does there). The domain is then checked here the way `jsonschema` checks it: an IPv4
//!   or `IPv6:` literal through `std::net`, or an RFC 1123 host name whose `xn--` labels
//!   must decode (RFC 3492 Punycode, written here: the `idna` crate would bring the whole
//!   ICU4X tree for one small function) to a label RFC 5892 permits. The Unicode general
//!   categories come from [`regex_syntax`], whose tables `regex` already carries.
//! - `uri`: [`fluent_uri`], the RFC 3986 parser behind `jsonschema`'s own `uri` check.
//! - `date`, `date-time`: small parsers of the RFC 3339 grammar written here; they are a
//!   few lines and no date crate applies `jsonschema`'s exact leap-second rule (second 60
//!   only when the time in UTC is 23:59).

use std::net::{Ipv4Addr, Ipv6Addr};
use std::str::FromStr;
use std::sync::OnceLock;

use email_address::EmailAddress;
use regex_syntax::hir::{Class, ClassUnicode, HirKind};

/// One of the four string formats elicitation allows ([F2](crate::rules#f2)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Format {
    /// `email`: an RFC 5321 mailbox ([V7](crate::rules#v7)).
    Email,
    /// `uri`: an absolute RFC 3986 URI ([V7](crate::rules#v7)).
    Uri,
    /// `date`: an RFC 3339 `full-date` ([V7](crate::rules#v7)).
    Date,
    /// `date-time`: an RFC 3339 `date-time` ([V7](crate::rules#v7)).
    DateTime,
}

impl Format {
    /// Every format, in the order the spec lists them ([F2](crate::rules#f2)).
    pub const ALL: [Format; 4] = [Format::Email, Format::Uri, Format::Date, Format::DateTime];

    /// The format a schema's `format` keyword names, or `None` for any other name ([D7](crate::rules#d7)
    /// leaves unknown names to the caller).
    #[must_use]
    pub fn from_name(name: &str) -> Option<Format> {
        Format::ALL.into_iter().find(|format| format.name() == name)
    }

    /// The name the `format` keyword uses for this format.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Format::Email => "email",
            Format::Uri => "uri",
            Format::Date => "date",
            Format::DateTime => "date-time",
        }
    }

    /// Whether `value` is in this format ([V7](crate::rules#v7)), as a JSON Schema 2020-12 validator with
    /// format assertion on decides it.
    #[must_use]
    pub fn is_valid(self, value: &str) -> bool {
        // V7: each format's grammar, with `jsonschema`'s reading of it.
        match self {
            Format::Email => is_email(value),
            Format::Uri => fluent_uri::Uri::parse(value).is_ok(),
            Format::Date => is_full_date(value),
            Format::DateTime => is_date_time(value),
        }
    }
}

// ---------------------------------------------------------------------------------------
// date, date-time (RFC 3339 section 5.6)

/// `full-date = date-fullyear "-" date-month "-" date-mday`, with the day checked against
/// the month and the Gregorian leap-year rule.
fn is_full_date(value: &str) -> bool {
    let bytes = value.as_bytes();
    if bytes.len() != 10 || bytes[4] != b'-' || bytes[7] != b'-' {
        return false;
    }
    let (Some(year), Some(month), Some(day)) = (
        digits(&bytes[0..4]),
        digits(&bytes[5..7]),
        digits(&bytes[8..10]),
    ) else {
        return false;
    };
    let is_leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    let last_day = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if is_leap => 29,
        2 => 28,
        _ => return false,
    };
    (1..=last_day).contains(&day)
}

/// `date-time = full-date "T" full-time`; RFC 3339 lets the `T` be lower case. Out of
/// line, so that [`Format::is_valid`] stays small enough to inline for the other formats.
#[inline(never)]
fn is_date_time(value: &str) -> bool {
    let bytes = value.as_bytes();
    match (value.get(..10), bytes.get(10), value.get(11..)) {
        (Some(date), Some(b'T' | b't'), Some(time)) => is_full_date(date) && is_full_time(time),
        _ => false,
    }
}

/// `full-time = partial-time time-offset`, where `partial-time = HH:MM:SS[.frac]` and
/// `time-offset = Z / (+|-)HH:MM` (`z` too).
fn is_full_time(value: &str) -> bool {
    let bytes = value.as_bytes();
    if bytes.len() < 9 || bytes[2] != b':' || bytes[5] != b':' {
        return false;
    }
    let (Some(hour), Some(minute), Some(second)) = (
        digits(&bytes[0..2]),
        digits(&bytes[3..5]),
        digits(&bytes[6..8]),
    ) else {
        return false;
    };
    if hour > 23 || minute > 59 || second > 60 {
        return false;
    }
    let mut rest = &bytes[8..];
    if let Some(fraction) = rest.strip_prefix(b".") {
        let count = fraction.iter().take_while(|b| b.is_ascii_digit()).count();
        if count == 0 {
            return false;
        }
        rest = &fraction[count..];
    }
    let local = i32::from(hour) * 60 + i32::from(minute);
    let offset = match rest {
        [b'Z' | b'z'] => 0,
        [sign @ (b'+' | b'-'), hh_mm @ ..] => {
            let [h1, h2, b':', m1, m2] = hh_mm else {
                return false;
            };
            let (Some(offset_hour), Some(offset_minute)) =
                (digits(&[*h1, *h2]), digits(&[*m1, *m2]))
            else {
                return false;
            };
            if offset_hour > 23 || offset_minute > 59 {
                return false;
            }
            let offset = i32::from(offset_hour) * 60 + i32::from(offset_minute);
            if *sign == b'+' {
                offset
            } else {
                -offset
            }
        }
        _ => return false,
    };
    // RFC 3339 5.7: a leap second is the last second of a UTC day, so second 60 is valid
    // only where the local time minus its offset is 23:59.
    second != 60 || (local - offset).rem_euclid(24 * 60) == 23 * 60 + 59
}

/// The value of a run of ASCII digits, or `None` if any byte is not one.
fn digits(bytes: &[u8]) -> Option<u16> {
    bytes.iter().try_fold(0u16, |value, &byte| {
        byte.is_ascii_digit()
            .then(|| value * 10 + u16::from(byte - b'0'))
    })
}

// ---------------------------------------------------------------------------------------
// email (RFC 5321 mailbox, domain as jsonschema checks it)

/// An RFC 5321 mailbox: `email_address` checks the whole address, then the domain must be
/// an address literal or a host name.
#[inline]
fn is_email(value: &str) -> bool {
    is_plain_email(value) || is_email_full(value)
}

/// The full mailbox check (see [`is_email`]). Out of line: inlined, its frame (the
/// parsed address, the punycode buffers) was set up for every address, plain ones too.
#[cold]
#[inline(never)]
fn is_email_full(value: &str) -> bool {
    // RFC 5321 allows the empty quoted local part `""`, which `email_address` refuses;
    // any one-character quoted string stands in for it.
    let substituted;
    let value = match value.strip_prefix("\"\"@") {
        Some(domain) => {
            substituted = format!("\"a\"@{domain}");
            substituted.as_str()
        }
        None => value,
    };
    let Ok(address) = EmailAddress::from_str(value) else {
        return false;
    };
    // Non-ASCII local parts belong to `idn-email`, not `email`.
    if !address.local_part().is_ascii() {
        return false;
    }
    let domain = address.domain();
    match domain.strip_prefix('[').and_then(|d| d.strip_suffix(']')) {
        Some(literal) => is_address_literal(literal),
        None => is_host_name(domain),
    }
}

/// The common shape of an address, checked in one pass without allocating: a local part
/// of letters, digits, `.`, `_`, `+` and `-` (dots neither first, last nor doubled, at
/// most 64 bytes) and a domain of LDH labels (1 to 63 bytes, no `-` at either end, no
/// `--` in the third and fourth places, at most 253 bytes). Every such address is valid
/// under the full check below, so `true` is final; `false` only means "not this shape"
/// and the full check decides. It exists because the full parse costs about 15 times
/// more and this shape is what nearly every answer looks like.
///
/// The shape is a regular language, so it is checked by a DFA over the bytes ([`PLAIN`]):
/// one table lookup per byte and no branch inside the loop, about half the instructions
/// of a loop that tests each byte's class. Only the lengths are left to count, and an
/// address of at most 64 bytes cannot break them.
#[inline]
fn is_plain_email(value: &str) -> bool {
    let bytes = value.as_bytes();
    let mut state = Plain::LocalStart;
    for &b in bytes {
        state = PLAIN[state as usize][usize::from(b)];
    }
    if !state.accepts() {
        return false;
    }
    // With at most 64 bytes in all, the local part (before the `@`) has at most 63 and
    // every label at most 62; longer addresses have their lengths counted.
    bytes.len() <= 64 || plain_lengths(bytes)
}

/// The lengths [`is_plain_email`]'s DFA cannot count, for an address it accepted: a local
/// part of at most 64 bytes, a domain of at most 253 and labels of at most 63.
#[cold]
fn plain_lengths(bytes: &[u8]) -> bool {
    let Some(at) = bytes.iter().position(|&b| b == b'@') else {
        return false;
    };
    let domain = &bytes[at + 1..];
    at <= 64 && domain.len() <= 253 && domain.split(|&b| b == b'.').all(|l| l.len() <= 63)
}

/// The states of [`is_plain_email`]'s DFA. In a domain label, the state counts the bytes
/// read so far (up to four, far enough to see the `--` of the third and fourth places)
/// and whether the last one was `-` (a label cannot end with it).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
#[repr(u8)]
enum Plain {
    /// Not this shape; no byte leaves it.
    Refused,
    /// The local part's first byte, or the byte after a dot in it.
    LocalStart,
    /// In the local part, after a byte that is not a dot.
    Local,
    /// The first byte of a domain label (after the `@` or a dot).
    LabelStart,
    /// One byte of the label read, a letter or digit.
    Label1,
    /// Two bytes read, the last a letter or digit.
    Label2,
    /// Two bytes read, the last `-`.
    Label2Hyphen,
    /// Three bytes read, the last a letter or digit.
    Label3,
    /// Three bytes read, the third `-` (a fourth `-` would make `--` there).
    Label3Hyphen,
    /// Four or more bytes read, the last a letter or digit.
    Label4,
    /// Four or more bytes read, the last `-`.
    Label4Hyphen,
}

impl Plain {
    /// Every state, in declaration order (the DFA's table is indexed by discriminant;
    /// [`plain_table`] checks that each sits at its own).
    const ALL: [Plain; 11] = [
        Plain::Refused,
        Plain::LocalStart,
        Plain::Local,
        Plain::LabelStart,
        Plain::Label1,
        Plain::Label2,
        Plain::Label2Hyphen,
        Plain::Label3,
        Plain::Label3Hyphen,
        Plain::Label4,
        Plain::Label4Hyphen,
    ];
    const COUNT: usize = Plain::ALL.len();

    /// Whether a whole address may end in this state: in a domain label that has a byte
    /// and does not end with `-`.
    #[inline]
    fn accepts(self) -> bool {
        matches!(
            self,
            Plain::Label1 | Plain::Label2 | Plain::Label3 | Plain::Label4
        )
    }

    /// The state after `byte`.
    const fn next(self, byte: u8) -> Plain {
        let ldh = byte.is_ascii_alphanumeric();
        let local = ldh || byte == b'-' || byte == b'+' || byte == b'_';
        match self {
            Plain::Refused => Plain::Refused,
            Plain::LocalStart => {
                if local {
                    Plain::Local
                } else {
                    Plain::Refused
                }
            }
            Plain::Local => match byte {
                b'.' => Plain::LocalStart,
                b'@' => Plain::LabelStart,
                _ if local => Plain::Local,
                _ => Plain::Refused,
            },
            Plain::LabelStart => {
                if ldh {
                    Plain::Label1
                } else {
                    Plain::Refused
                }
            }
            // After a letter or digit: a dot ends the label.
            Plain::Label1 | Plain::Label2 | Plain::Label3 | Plain::Label4 => match byte {
                b'.' => Plain::LabelStart,
                b'-' => match self {
                    Plain::Label1 => Plain::Label2Hyphen,
                    Plain::Label2 => Plain::Label3Hyphen,
                    _ => Plain::Label4Hyphen,
                },
                _ if ldh => match self {
                    Plain::Label1 => Plain::Label2,
                    Plain::Label2 => Plain::Label3,
                    _ => Plain::Label4,
                },
                _ => Plain::Refused,
            },
            // After a `-`: neither a dot nor the end may follow.
            Plain::Label2Hyphen => match byte {
                b'-' => Plain::Label3Hyphen,
                _ if ldh => Plain::Label3,
                _ => Plain::Refused,
            },
            Plain::Label3Hyphen => {
                if ldh {
                    Plain::Label4
                } else {
                    Plain::Refused
                }
            }
            Plain::Label4Hyphen => match byte {
                b'-' => Plain::Label4Hyphen,
                _ if ldh => Plain::Label4,
                _ => Plain::Refused,
            },
        }
    }
}

/// [`is_plain_email`]'s DFA: the next state for each state and byte, built at compile
/// time from [`Plain::next`].
static PLAIN: [[Plain; 256]; Plain::COUNT] = plain_table();

const fn plain_table() -> [[Plain; 256]; Plain::COUNT] {
    let mut table = [[Plain::Refused; 256]; Plain::COUNT];
    let mut s = 0;
    while s < Plain::COUNT {
        // The table is indexed by discriminant: each state must sit at its own.
        assert!(Plain::ALL[s] as usize == s);
        let mut b = 0;
        while b < 256 {
            table[s][b] = Plain::ALL[s].next(b as u8);
            b += 1;
        }
        s += 1;
    }
    table
}

/// RFC 5321 4.1.3: `[1.2.3.4]` or `[IPv6:…]` (the tag is case-insensitive).
fn is_address_literal(literal: &str) -> bool {
    match literal.get(..5) {
        Some(tag) if tag.eq_ignore_ascii_case("IPv6:") => literal[5..].parse::<Ipv6Addr>().is_ok(),
        _ => literal.parse::<Ipv4Addr>().is_ok(),
    }
}

/// An RFC 1123 host name whose labels also follow IDNA2008 (RFC 5891 4.2.3.1): a label
/// with `--` in its third and fourth places must be an A-label (`xn--` and valid
/// Punycode of a permitted U-label).
fn is_host_name(name: &str) -> bool {
    if name.is_empty() || name.len() > 253 || name.ends_with('.') {
        return false;
    }
    name.split('.').all(|label| {
        let bytes = label.as_bytes();
        let ldh = !bytes.is_empty()
            && bytes.len() <= 63
            && bytes.first() != Some(&b'-')
            && bytes.last() != Some(&b'-')
            && bytes
                .iter()
                .all(|b| b.is_ascii_alphanumeric() || *b == b'-');
        if !ldh {
            return false;
        }
        // Only a lower-case `xn--` marks an A-label here, as in `jsonschema`; `XN--` falls
        // to the `--` rule and fails.
        match label.strip_prefix("xn--") {
            Some(encoded) => decode_punycode(encoded).is_some_and(|u_label| is_u_label(&u_label)),
            None => bytes.get(2..4) != Some(b"--"),
        }
    })
}

// RFC 3492 section 5: the Punycode parameters IDNA uses.
const BASE: u32 = 36;
const T_MIN: u32 = 1;
const T_MAX: u32 = 26;
const SKEW: u32 = 38;
const DAMP: u32 = 700;
const INITIAL_BIAS: u32 = 72;
const INITIAL_N: u32 = 128;

/// RFC 3492 6.2 decoding of the part of an A-label after `xn--`; `None` when the input
/// is not valid Punycode (bad digit, overflow, a code point that is not a scalar value).
fn decode_punycode(encoded: &str) -> Option<Vec<char>> {
    let bytes = encoded.as_bytes();
    // The basic code points come before the last `-`; a `-` in first place delimits
    // nothing and is then read (and refused) as a digit.
    let (basic, deltas) = match bytes.iter().rposition(|&b| b == b'-') {
        Some(at) if at > 0 => (&bytes[..at], &bytes[at + 1..]),
        _ => (&bytes[..0], bytes),
    };
    if !basic.is_ascii() {
        return None;
    }
    let mut output: Vec<char> = basic.iter().map(|&b| char::from(b)).collect();
    let mut code_point = INITIAL_N;
    let mut bias = INITIAL_BIAS;
    let mut index: u32 = 0;
    let mut digits = deltas.iter();
    while digits.len() > 0 {
        let previous_index = index;
        let mut weight: u32 = 1;
        let mut k = BASE;
        loop {
            let digit = match *digits.next()? {
                byte @ b'a'..=b'z' => u32::from(byte - b'a'),
                byte @ b'A'..=b'Z' => u32::from(byte - b'A'),
                byte @ b'0'..=b'9' => u32::from(byte - b'0') + 26,
                _ => return None,
            };
            index = index.checked_add(digit.checked_mul(weight)?)?;
            let threshold = k.saturating_sub(bias).clamp(T_MIN, T_MAX);
            if digit < threshold {
                break;
            }
            weight = weight.checked_mul(BASE - threshold)?;
            k = k.checked_add(BASE)?;
        }
        let length = u32::try_from(output.len()).ok()?.checked_add(1)?;
        bias = punycode_adapt(index - previous_index, length, previous_index == 0);
        code_point = code_point.checked_add(index / length)?;
        index %= length;
        output.insert(usize::try_from(index).ok()?, char::from_u32(code_point)?);
        index += 1;
    }
    Some(output)
}

/// RFC 3492 6.1 bias adaptation.
fn punycode_adapt(delta: u32, length: u32, first: bool) -> u32 {
    let mut delta = if first { delta / DAMP } else { delta / 2 };
    delta += delta / length;
    let mut k = 0;
    while delta > ((BASE - T_MIN) * T_MAX) / 2 {
        delta /= BASE - T_MIN;
        k += BASE;
    }
    k + ((BASE - T_MIN + 1) * delta) / (delta + SKEW)
}

/// The RFC 5892 rules `jsonschema` applies to a decoded label: code points must be
/// PVALID (letters, marks, decimal digits, a few listed exceptions), the label must not
/// start with a combining mark, and the CONTEXTJ/CONTEXTO rules of appendix A hold.
fn is_u_label(label: &[char]) -> bool {
    let categories = idna_categories();
    if label
        .first()
        .is_some_and(|&c| contains(&categories.marks, c))
    {
        return false;
    }
    let mut has_katakana_middle_dot = false;
    let mut has_japanese = false;
    let mut has_arabic_indic = false;
    let mut has_extended_arabic_indic = false;
    for (at, &c) in label.iter().enumerate() {
        let before = at
            .checked_sub(1)
            .and_then(|before| label.get(before))
            .copied();
        let after = label.get(at + 1).copied();
        let permitted = match c {
            // A.1 ZERO WIDTH NON-JOINER: allowed as written, without its context rule.
            '\u{200C}' => true,
            // A.2 ZERO WIDTH JOINER: only after a virama.
            '\u{200D}' => before.is_some_and(is_virama),
            // A.3 MIDDLE DOT: only between two `l` (Catalan `l·l`).
            '\u{00B7}' => before == Some('l') && after == Some('l'),
            // A.4 GREEK LOWER NUMERAL SIGN: only before a Greek character.
            '\u{0375}' => after.is_some_and(|c| ('\u{0370}'..='\u{03FF}').contains(&c)),
            // A.5, A.6 HEBREW GERESH and GERSHAYIM: only after a Hebrew character.
            '\u{05F3}' | '\u{05F4}' => {
                before.is_some_and(|c| ('\u{0590}'..='\u{05FF}').contains(&c))
            }
            // A.7 KATAKANA MIDDLE DOT: needs Hiragana, Katakana or Han somewhere.
            '\u{30FB}' => {
                has_katakana_middle_dot = true;
                true
            }
            '\u{3040}'..='\u{30FF}' | '\u{4E00}'..='\u{9FFF}' => {
                has_japanese = true;
                true
            }
            // A.8, A.9: the two kinds of Arabic-Indic digits must not mix.
            '\u{0660}'..='\u{0669}' => {
                has_arabic_indic = true;
                true
            }
            '\u{06F0}'..='\u{06F9}' => {
                has_extended_arabic_indic = true;
                true
            }
            // RFC 5892 2.6 exceptions: DISALLOWED despite their category ...
            '\u{0640}'
            | '\u{07FA}'
            | '\u{302E}'
            | '\u{302F}'
            | '\u{3031}'..='\u{3035}'
            | '\u{303B}' => false,
            // ... and PVALID despite it.
            '\u{06FD}' | '\u{06FE}' | '\u{0F0B}' | '\u{3007}' => true,
            c => c.is_ascii() || contains(&categories.pvalid, c),
        };
        if !permitted {
            return false;
        }
    }
    // A.7 needs a Japanese character beside the dot; A.8 and A.9 forbid mixing digits.
    let dot_alone = has_katakana_middle_dot && !has_japanese;
    let digits_mixed = has_arabic_indic && has_extended_arabic_indic;
    !dot_alone && !digits_mixed
}

/// Code points whose canonical combining class is Virama (9), which RFC 5892 A.2 asks
/// for before a ZERO WIDTH JOINER.
fn is_virama(c: char) -> bool {
    matches!(
        c,
        '\u{094D}'
            | '\u{09CD}'
            | '\u{0A4D}'
            | '\u{0ACD}'
            | '\u{0B4D}'
            | '\u{0BCD}'
            | '\u{0C4D}'
            | '\u{0CCD}'
            | '\u{0D4D}'
            | '\u{0DCA}'
            | '\u{0E3A}'
            | '\u{0F84}'
            | '\u{1039}'
            | '\u{1714}'
            | '\u{1734}'
            | '\u{17D2}'
            | '\u{1A60}'
            | '\u{1B44}'
            | '\u{1BAA}'
            | '\u{1BF2}'
            | '\u{1BF3}'
            | '\u{2D7F}'
            | '\u{A806}'
            | '\u{A8C4}'
            | '\u{A953}'
            | '\u{ABED}'
            | '\u{10A3F}'
            | '\u{11046}'
            | '\u{1107F}'
            | '\u{110B9}'
            | '\u{11133}'
            | '\u{111C0}'
            | '\u{11235}'
            | '\u{112EA}'
            | '\u{1134D}'
            | '\u{11442}'
            | '\u{114C2}'
            | '\u{115BF}'
            | '\u{1163F}'
            | '\u{116B6}'
            | '\u{1172B}'
            | '\u{11839}'
            | '\u{119E0}'
            | '\u{11A34}'
            | '\u{11A47}'
            | '\u{11A99}'
            | '\u{11C3F}'
            | '\u{11D44}'
            | '\u{11D45}'
            | '\u{11D97}'
    )
}

/// The general-category sets RFC 5892 needs, built once from the Unicode tables in
/// `regex-syntax`.
struct IdnaCategories {
    /// Letters, combining marks and decimal digits: what RFC 5892 2.1 derives PVALID from.
    pvalid: ClassUnicode,
    /// Combining marks, which RFC 5891 4.2.3.2 forbids at the start of a label.
    marks: ClassUnicode,
}

fn idna_categories() -> &'static IdnaCategories {
    static CATEGORIES: OnceLock<IdnaCategories> = OnceLock::new();
    CATEGORIES.get_or_init(|| IdnaCategories {
        pvalid: unicode_class(r"[\p{Lu}\p{Ll}\p{Lt}\p{Lm}\p{Lo}\p{Mn}\p{Mc}\p{Nd}]"),
        marks: unicode_class(r"\p{M}"),
    })
}

/// The set of code points a constant class expression stands for.
fn unicode_class(expression: &str) -> ClassUnicode {
    let hir = regex_syntax::parse(expression)
        .expect("invariant: the general-category class expressions in format.rs parse");
    match hir.into_kind() {
        HirKind::Class(Class::Unicode(class)) => class,
        _ => unreachable!("invariant: a general-category class expression is a Unicode class"),
    }
}

fn contains(class: &ClassUnicode, c: char) -> bool {
    class
        .ranges()
        .binary_search_by(|range| {
            if range.end() < c {
                std::cmp::Ordering::Less
            } else if range.start() > c {
                std::cmp::Ordering::Greater
            } else {
                std::cmp::Ordering::Equal
            }
        })
        .is_ok()
}

#[cfg(test)]
mod tests {
    use super::Format;

    fn valid(format: Format, value: &str) -> bool {
        format.is_valid(value)
    }

    #[test]
    fn names_round_trip() {
        // covers: F2, D7
        for format in Format::ALL {
            assert_eq!(Format::from_name(format.name()), Some(format));
        }
        assert_eq!(Format::from_name("date-time"), Some(Format::DateTime));
        assert_eq!(Format::from_name("Email"), None);
        assert_eq!(Format::from_name("hostname"), None);
        assert_eq!(Format::from_name(""), None);
    }

    #[test]
    fn date_follows_rfc_3339_full_date() {
        // covers: V7
        for ok in [
            "2024-02-29",
            "2000-02-29",
            "1999-12-31",
            "0000-01-01",
            "2023-04-30",
        ] {
            assert!(valid(Format::Date, ok), "{ok}");
        }
        for bad in [
            "2023-02-29",  // not a leap year
            "1900-02-29",  // centuries are leap years only every 400 years
            "2023-04-31",  // April has 30 days
            "2023-13-01",  // month out of range
            "2023-00-10",  // month zero
            "2023-01-00",  // day zero
            "2023-1-01",   // one-digit month
            "20230101",    // no separators
            "2023/01/01",  // wrong separators
            "2023-01-01 ", // trailing space
            "２023-01-01", // non-ASCII digit
            "",
        ] {
            assert!(!valid(Format::Date, bad), "{bad}");
        }
    }

    #[test]
    fn date_time_follows_rfc_3339() {
        // covers: V7
        for ok in [
            "1963-06-19T08:30:06.283185Z",
            "1963-06-19t08:30:06z",
            "1963-06-19T08:30:06+01:30",
            "1963-06-19T08:30:06-08:00",
            "1998-12-31T23:59:60Z",
            "1998-12-31T15:59:60-08:00",
            "1998-12-31T23:59:60.5+00:00",
        ] {
            assert!(valid(Format::DateTime, ok), "{ok}");
        }
        for bad in [
            "1963-06-19T08:30:06",        // no offset
            "1963-06-19 08:30:06Z",       // space separator
            "1963-06-19T08:30:06.Z",      // empty fraction
            "1963-06-19T24:00:00Z",       // hour out of range
            "1963-06-19T08:60:00Z",       // minute out of range
            "1963-06-19T08:30:61Z",       // second out of range
            "1998-12-31T22:59:60Z",       // leap second not at 23:59 UTC
            "1998-12-31T23:59:60+01:00",  // 22:59 UTC
            "1963-06-19T08:30:06+24:00",  // offset hour out of range
            "1963-06-19T08:30:06+01:60",  // offset minute out of range
            "1963-06-19T08:30:06+0100",   // offset without colon
            "1963-06-19T08:30:06+01:00Z", // trailing text
            "1963-06-19T08:30Z",          // no seconds
            "1963-02-30T08:30:06Z",       // bad date
            "1963-06-19T08:30:06Zé",      // non-ASCII tail
            "1963-06-1é08:30:06Z",        // non-ASCII where the separator goes
        ] {
            assert!(!valid(Format::DateTime, bad), "{bad}");
        }
    }

    #[test]
    fn uri_must_be_absolute_rfc_3986() {
        // covers: V7
        for ok in [
            "https://example.com/a?b=c#d",
            "mailto:someone@example.com",
            "urn:isbn:0451450523",
            "http://[::1]:8080/",
            "http://user:pass@host:1/%41",
            "a:",
        ] {
            assert!(valid(Format::Uri, ok), "{ok}");
        }
        for bad in [
            "/relative/path",
            "//example.com",
            "example.com",
            "http://exa mple.com",
            "http://example.com/%zz",
            "http://[::1/",
            "1http://example.com",
            "",
        ] {
            assert!(!valid(Format::Uri, bad), "{bad}");
        }
    }

    #[test]
    fn email_is_an_rfc_5321_mailbox() {
        // covers: V7, F5
        for ok in [
            "joe.bloggs@example.com",
            "\"joe bloggs\"@example.com",
            "\"\"@example.com",
            "te~st@example.com",
            "joe@[127.0.0.1]",
            "joe@[IPv6:::1]",
            "joe@[ipv6:::1]",
            "joe@localhost",
            "joe@xn--bcher-kva.example",
        ] {
            assert!(valid(Format::Email, ok), "{ok}");
        }
        for bad in [
            "2962",
            "@example.com",
            "joe@",
            ".joe@example.com",
            "joe.@example.com",
            "jo..e@example.com",
            "joe@-example.com",
            "joe@example-.com",
            "joe@example..com",
            "joe@example.com.",
            "joe@exa_mple.com",
            "joe@[127.0.0.300]",
            "joe@[IPv6:::g]",
            "joe@[example]",
            "jöe@example.com",
            "joe@ab--cd.example",
            "joe@XN--bcher-kva.example",
            "joe@xn--X.example",
            "joe@xn---abc.example",
        ] {
            assert!(!valid(Format::Email, bad), "{bad}");
        }
    }

    #[test]
    fn email_domain_labels_follow_rfc_5892() {
        // covers: V7
        use super::{decode_punycode, is_u_label};
        let label = |text: &str| text.chars().collect::<Vec<_>>();
        assert_eq!(decode_punycode("bcher-kva"), Some(label("bücher")));
        assert_eq!(decode_punycode(""), Some(vec![]));
        assert_eq!(decode_punycode("-abc"), None);
        assert_eq!(decode_punycode("99999999999"), None);
        assert!(is_u_label(&label("bücher")));
        assert!(is_u_label(&label("l·l")));
        assert!(!is_u_label(&label("a·l")));
        assert!(
            !is_u_label(&label("\u{0301}a")),
            "starts with a combining mark"
        );
        assert!(!is_u_label(&label("a\u{200D}")), "joiner without a virama");
        assert!(is_u_label(&label("\u{0915}\u{094D}\u{200D}")));
        assert!(
            !is_u_label(&label("\u{0375}a")),
            "keraia before a non-Greek letter"
        );
        assert!(is_u_label(&label("\u{0375}\u{03B1}")));
        assert!(
            !is_u_label(&label("a\u{05F3}")),
            "geresh after a non-Hebrew letter"
        );
        assert!(is_u_label(&label("\u{05D0}\u{05F3}")));
        assert!(
            !is_u_label(&label("a\u{30FB}")),
            "katakana middle dot alone"
        );
        assert!(is_u_label(&label("\u{30A2}\u{30FB}")));
        assert!(
            !is_u_label(&label("\u{0660}\u{06F0}")),
            "mixed Arabic-Indic digits"
        );
        assert!(!is_u_label(&label("a\u{0640}")), "tatweel is disallowed");
        assert!(is_u_label(&label("\u{3007}")));
        assert!(!is_u_label(&label("a\u{2603}")), "a symbol is not PVALID");
    }

    #[test]
    fn email_follows_the_reference_validator_quirks() {
        // covers: V7
        // `jsonschema` reads the address with `email_address`'s default options, which
        // accept a display name around the mailbox; V makes that validator the reference.
        assert!(valid(Format::Email, "Joe <joe@example.com>"));
    }

    /// The plain shape of [`super::is_plain_email`], written as the rules read: split at
    /// the first `@`, then the domain at its dots.
    fn plain_by_the_rules(text: &str) -> bool {
        let Some((local, domain)) = text.split_once('@') else {
            return false;
        };
        let local_ok = !local.is_empty()
            && local.len() <= 64
            && local.split('.').all(|part| {
                !part.is_empty()
                    && part
                        .bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b"-+_".contains(&b))
            });
        let domain_ok = !domain.is_empty()
            && domain.len() <= 253
            && domain.split('.').all(|label| {
                !label.is_empty()
                    && label.len() <= 63
                    && label
                        .bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b == b'-')
                    && !label.starts_with('-')
                    && !label.ends_with('-')
                    && label.get(2..4) != Some("--")
            });
        local_ok && domain_ok
    }

    // covers: V7
    #[test]
    fn the_plain_email_dfa_is_the_plain_shape() {
        use super::is_plain_email;
        // Every text of up to six bytes over an alphabet with each kind of byte the DFA
        // tells apart (letters, a digit, `-`, `.`, `@`, `+`, `_`, a space), then longer
        // random ones, and the length limits.
        let alphabet = b"a9-.@+_ ";
        let (mut count, mut accepted) = (0, 0);
        for len in 0..=6u32 {
            for mut n in 0..alphabet.len().pow(len) {
                let text: String = (0..len)
                    .map(|_| {
                        let c = alphabet[n % alphabet.len()] as char;
                        n /= alphabet.len();
                        c
                    })
                    .collect();
                let plain = is_plain_email(&text);
                assert_eq!(plain, plain_by_the_rules(&text), "{text:?}");
                count += 1;
                accepted += usize::from(plain);
            }
        }
        assert_eq!(count, (0..=6).map(|len| 8usize.pow(len)).sum::<usize>());
        assert!(
            accepted > 1000,
            "the alphabet must reach the accepting states ({accepted})"
        );
        let alphabet = "ab-.@+_9é".chars().collect::<Vec<_>>();
        let mut seed: u64 = 0xfeed;
        for _ in 0..100_000 {
            let len = 1 + (seed % 40) as usize;
            let text: String = (0..len)
                .map(|_| {
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    alphabet[(seed % alphabet.len() as u64) as usize]
                })
                .collect();
            assert_eq!(is_plain_email(&text), plain_by_the_rules(&text), "{text:?}");
        }
        for local in [63, 64, 65] {
            for label in [62, 63, 64] {
                let text = format!("{}@{}.io", "l".repeat(local), "d".repeat(label));
                assert_eq!(
                    is_plain_email(&text),
                    local <= 64 && label <= 63,
                    "{local} {label}"
                );
            }
        }
        let long_domain = |n: usize| format!("a@{}", vec!["d".repeat(49); n].join("."));
        assert!(is_plain_email(&long_domain(5)), "249 bytes");
        assert!(!is_plain_email(&long_domain(6)), "299 bytes");
    }

    // covers: V7
    #[test]
    fn the_plain_email_shortcut_never_accepts_what_the_full_check_refuses() {
        use super::{is_email_full, is_plain_email};
        let alphabet = b"ab.-_+9@xX-";
        let mut seed: u64 = 0x5eed;
        let mut plain = 0;
        for _ in 0..200_000 {
            let len = 1 + (seed % 14) as usize;
            let text: String = (0..len)
                .map(|_| {
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    alphabet[(seed % alphabet.len() as u64) as usize] as char
                })
                .collect();
            if is_plain_email(&text) {
                plain += 1;
                assert!(
                    is_email_full(&text),
                    "{text:?} passed the shortcut but not the full check"
                );
            }
        }
        assert!(
            plain > 1000,
            "the generator must exercise the shortcut ({plain})"
        );
        for long in ["a".repeat(64) + "@x.y", format!("a@{}.y", "b".repeat(63))] {
            assert!(is_plain_email(&long) && is_email_full(&long));
        }
        for not_plain in [
            "a".repeat(65) + "@x.y",
            format!("a@{}.y", "b".repeat(64)),
            "a@xn--zz.y".into(),
        ] {
            assert!(!is_plain_email(&not_plain));
        }
    }
}
