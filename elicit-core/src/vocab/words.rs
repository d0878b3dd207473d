//! Cutting text into folded words, the same for the form vocabulary ([F5](crate::rules#f5)) and the URL
//! check's parameter names ([S1](crate::rules#s1)); [the module documentation](super) says how.

use std::ops::Range;

/// One word: its folded spelling in [`Words::folded`], and how it was written.
pub(super) struct Word {
    range: Range<usize>,
    /// Written in capitals (`PIN`), at least two letters.
    pub(super) caps: bool,
    /// Written in capitals with a plural `s` (`PINs`).
    pub(super) caps_plural: bool,
    /// Which byte values the folded spelling contains, to rule out most `*word`
    /// patterns without a substring search.
    pub(super) bytes: ByteSet,
    /// Follows the previous word with only spaces, one joiner (`-_.'`) or a case or
    /// script change between them, so the two may form a phrase.
    pub(super) joined: bool,
}

/// A text cut into folded words.
pub(super) struct Words {
    pub(super) folded: String,
    pub(super) list: Vec<Word>,
    /// The text has no white space: a property name or a one-word title.
    pub(super) identifier: bool,
}

/// Which script family a word char belongs to; a change splits the word (`API密钥`).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Script {
    Latin,
    Other,
}

/// A word being read.
struct Current {
    word: Word,
    script: Option<Script>,
    uppercase: usize,
    lowercase: usize,
    last: char,
}

impl Words {
    pub(super) fn new(text: &str) -> Self {
        let chars: Vec<char> = text.chars().map(narrow).collect();
        let mut words = Words {
            folded: String::with_capacity(text.len()),
            list: Vec::new(),
            identifier: !chars.is_empty() && !chars.iter().any(|c| c.is_whitespace()),
        };
        let mut current: Option<Current> = None;
        // The separator since the last word: its length and whether it can join a phrase.
        let mut sep_len = 0usize;
        let mut sep_spaces_only = true;
        let mut sep_joiner = false;

        for (i, &c) in chars.iter().enumerate() {
            if !is_word_char(c) {
                if let Some(done) = current.take() {
                    words.finish(done);
                    sep_len = 0;
                    sep_spaces_only = true;
                }
                sep_len += 1;
                sep_spaces_only &= c.is_whitespace();
                sep_joiner = sep_len == 1 && matches!(c, '-' | '_' | '.' | '\'' | '\u{2019}');
                continue;
            }
            let script = script_of(c);
            let split = current.as_ref().is_some_and(|cur| {
                let next = chars.get(i + 1).copied();
                let after = chars.get(i + 2).copied();
                splits_before(cur, c, script, next, after)
            });
            if split {
                if let Some(done) = current.take() {
                    words.finish(done);
                }
            }
            let cur = current.get_or_insert_with(|| {
                let joined = split
                    || (!words.list.is_empty() && sep_len > 0 && (sep_spaces_only || sep_joiner));
                let at = words.folded.len();
                Current {
                    word: Word {
                        range: at..at,
                        caps: false,
                        caps_plural: false,
                        bytes: ByteSet([0; 4]),
                        joined,
                    },
                    script: None,
                    uppercase: 0,
                    lowercase: 0,
                    last: c,
                }
            });
            if cur.script.is_none() {
                cur.script = script;
            }
            if c.is_uppercase() {
                cur.uppercase += 1;
            } else if c.is_lowercase() {
                cur.lowercase += 1;
            }
            cur.last = c;
            fold_into(c, &mut words.folded);
        }
        if let Some(done) = current.take() {
            words.finish(done);
        }
        words
    }

    fn finish(&mut self, mut cur: Current) {
        cur.word.range.end = self.folded.len();
        cur.word.caps = cur.uppercase >= 2 && cur.lowercase == 0;
        cur.word.caps_plural = cur.uppercase >= 2 && cur.lowercase == 1 && cur.last == 's';
        for &b in self
            .folded
            .as_bytes()
            .get(cur.word.range.clone())
            .unwrap_or_default()
        {
            cur.word.bytes.insert(b);
        }
        if !cur.word.range.is_empty() {
            self.list.push(cur.word);
        }
    }

    pub(super) fn text(&self, word: &Word) -> &str {
        self.folded.get(word.range.clone()).unwrap_or_default()
    }

    /// The folded words, in order.
    fn iter(&self) -> impl Iterator<Item = &str> {
        self.list.iter().map(|word| self.text(word))
    }
}

/// The folded words of a name or text: the one word splitter of the secret-word checks,
/// which the URL check reads parameter names with ([S1](crate::rules#s1)) as
/// [`find_secret`](super::find_secret) reads form text ([F5](crate::rules#f5)), so both see the same words
/// (`APIKey` → `api key`, `PINs` → `pins`).
#[cfg_attr(not(feature = "url"), allow(dead_code))]
pub(crate) fn split_words(text: &str) -> Vec<String> {
    Words::new(text).iter().map(str::to_owned).collect()
}

/// Should a new word start before `c`? Camel-case humps (`apiKey`, `APIKey`,
/// `oauth2Token`, `OAUTH2Token`) and script changes (`API密钥`); not `PINs`, `URLs`, `2FA`.
fn splits_before(
    cur: &Current,
    c: char,
    script: Option<Script>,
    next: Option<char>,
    after: Option<char>,
) -> bool {
    if let (Some(a), Some(b)) = (cur.script, script) {
        if a != b {
            return true;
        }
    }
    if !c.is_uppercase() {
        return false;
    }
    let prev = cur.last;
    if prev.is_lowercase() || (prev.is_numeric() && cur.lowercase > 0) {
        return true;
    }
    // A capital after a capital or a digit starts a word when a lowercase letter follows
    // it (`APIKey` → `API` + `Key`, `PINNo` → `PIN` + `No`, `OAUTH2Token` → `OAUTH2` +
    // `Token`), except a lone plural `s`: `PINs` and `URLsToCheck` keep it, and `2FA`
    // stays whole.
    let plural_s = next == Some('s') && !after.is_some_and(char::is_lowercase);
    (prev.is_uppercase() || prev.is_numeric()) && next.is_some_and(char::is_lowercase) && !plural_s
}

/// Letters, digits and combining marks make words; everything else separates them.
fn is_word_char(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_alphanumeric();
    }
    // Outside ASCII, keep every char that is not space or punctuation, so that the
    // combining vowel signs of Devanagari or Thai stay inside their word.
    !(c.is_whitespace()
        || c.is_control()
        || matches!(
            c,
            '\u{A0}'..='\u{BF}'
                | '\u{D7}'
                | '\u{F7}'
                | '\u{2000}'..='\u{206F}'
                | '\u{2190}'..='\u{2BFF}'
                | '\u{3000}'..='\u{303F}'
                | '\u{30FB}'
                | '\u{FE10}'..='\u{FE6F}'
                | '\u{FF00}'..='\u{FF0F}'
                | '\u{FF1A}'..='\u{FF20}'
                | '\u{FF3B}'..='\u{FF40}'
                | '\u{FF5B}'..='\u{FF65}'
                | '\u{FFF0}'..='\u{FFFF}'
        ))
}

/// Combining marks belong to whatever script they follow.
fn script_of(c: char) -> Option<Script> {
    match c {
        '\u{300}'..='\u{36F}' => None,
        c if c.is_ascii_alphanumeric() => Some(Script::Latin),
        '\u{C0}'..='\u{24F}' | '\u{1E00}'..='\u{1EFF}' => Some(Script::Latin),
        _ => Some(Script::Other),
    }
}

/// Fullwidth ASCII (`ＰＡＳＳＷＯＲＤ`) reads as ASCII.
fn narrow(c: char) -> char {
    match c {
        '\u{FF01}'..='\u{FF5E}' => char::from_u32(u32::from(c) - 0xFEE0).unwrap_or(c),
        _ => c,
    }
}

/// Lowercase `c` and drop its accents, so the table needs one spelling per word.
fn fold_into(c: char, out: &mut String) {
    for l in c.to_lowercase() {
        match l {
            '\u{300}'..='\u{36F}' => {}
            'à'..='å' | 'ā' | 'ă' | 'ą' => out.push('a'),
            'æ' => out.push_str("ae"),
            'ç' | 'ć' | 'č' => out.push('c'),
            'ď' | 'đ' => out.push('d'),
            'è'..='ë' | 'ē' | 'ė' | 'ę' | 'ě' => out.push('e'),
            'ğ' => out.push('g'),
            'ì'..='ï' | 'ī' | 'į' | 'ı' => out.push('i'),
            'ł' | 'ľ' => out.push('l'),
            'ñ' | 'ń' | 'ň' => out.push('n'),
            'ò'..='ö' | 'ø' | 'ō' | 'ő' | 'ơ' => out.push('o'),
            'œ' => out.push_str("oe"),
            'ř' => out.push('r'),
            'ś' | 'š' | 'ş' | 'ș' => out.push('s'),
            'ß' => out.push_str("ss"),
            'ť' | 'ţ' | 'ț' => out.push('t'),
            'ù'..='ü' | 'ū' | 'ů' | 'ű' | 'ư' => out.push('u'),
            'ý' | 'ÿ' => out.push('y'),
            'ź' | 'ż' | 'ž' => out.push('z'),
            // Vietnamese letters with two diacritics, by block of base letter.
            '\u{1EA0}'..='\u{1EB7}' => out.push('a'),
            '\u{1EB8}'..='\u{1EC7}' => out.push('e'),
            '\u{1EC8}'..='\u{1ECB}' => out.push('i'),
            '\u{1ECC}'..='\u{1EE3}' => out.push('o'),
            '\u{1EE4}'..='\u{1EF1}' => out.push('u'),
            '\u{1EF2}'..='\u{1EF9}' => out.push('y'),
            'ё' => out.push('е'),
            'ά' => out.push('α'),
            'έ' => out.push('ε'),
            'ή' => out.push('η'),
            'ί' | 'ϊ' | 'ΐ' => out.push('ι'),
            'ό' => out.push('ο'),
            'ύ' | 'ϋ' | 'ΰ' => out.push('υ'),
            'ώ' => out.push('ω'),
            'ς' => out.push('σ'),
            _ => out.push(l),
        }
    }
}

/// A set of byte values.
#[derive(Clone, Copy)]
pub(super) struct ByteSet([u64; 4]);

impl ByteSet {
    /// The bytes of a pattern, without its `*` and `~` markers.
    pub(super) const fn of_pattern(pattern: &str) -> ByteSet {
        let bytes = pattern.as_bytes();
        let mut set = [0u64; 4];
        let mut i = 0;
        while i < bytes.len() {
            let b = bytes[i];
            if b != b'*' && b != b'~' {
                set[(b >> 6) as usize] |= 1 << (b & 63);
            }
            i += 1;
        }
        ByteSet(set)
    }

    fn insert(&mut self, b: u8) {
        self.0[usize::from(b >> 6)] |= 1 << (b & 63);
    }

    pub(super) fn contains(&self, b: u8) -> bool {
        self.0[usize::from(b >> 6)] & (1 << (b & 63)) != 0
    }

    pub(super) fn is_subset_of(&self, other: &ByteSet) -> bool {
        self.0.iter().zip(&other.0).all(|(a, b)| a & !b == 0)
    }

    /// The set folded onto 64 bits (byte `b` → bit `b % 64`): a coarser set that fits in a
    /// register, for the first test.
    pub(super) const fn fold(&self) -> u64 {
        self.0[0] | self.0[1] | self.0[2] | self.0[3]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // covers: F5, S1
    #[test]
    fn form_and_url_checks_see_the_same_words() {
        let cases: &[(&str, &[&str])] = &[
            // camelCase, PascalCase, snake_case, kebab-case, dotted
            ("apiKey", &["api", "key"]),
            ("nextPageToken", &["next", "page", "token"]),
            ("ClientSecret", &["client", "secret"]),
            ("access_token", &["access", "token"]),
            ("NEW_PASSWORD", &["new", "password"]),
            ("X-Amz-Security-Token", &["x", "amz", "security", "token"]),
            ("x-api-key", &["x", "api", "key"]),
            ("client.secret[0]", &["client", "secret", "0"]),
            ("jsessionid", &["jsessionid"]),
            // acronyms, and their plural `s`
            ("APIKey", &["api", "key"]),
            ("SAMLResponse", &["saml", "response"]),
            ("PINs", &["pins"]),
            ("cardPINs", &["card", "pins"]),
            ("SSNs", &["ssns"]),
            ("URLsToCheck", &["urls", "to", "check"]),
            ("PINNo", &["pin", "no"]),
            // digits
            ("oauth2Token", &["oauth2", "token"]),
            ("OAUTH2Token", &["oauth2", "token"]),
            ("2FA", &["2fa"]),
            ("2FACode", &["2fa", "code"]),
            ("ipv6Address", &["ipv6", "address"]),
            ("otp_6_digits", &["otp", "6", "digits"]),
            // letters outside ASCII, and scripts that meet
            ("Contraseña", &["contrasena"]),
            ("neuesPaßwort", &["neues", "passwort"]),
            ("pa\u{301}ssword", &["password"]),
            ("ＰＡＳＳＷＯＲＤ", &["password"]),
            ("API密钥", &["api", "密钥"]),
            ("пин-код", &["пин", "код"]),
            ("", &[]),
            ("__", &[]),
        ];
        for &(text, expected) in cases {
            // What `find_secret` reads (F5), and what the URL check reads (S1).
            let words = Words::new(text);
            let form: Vec<&str> = words.iter().collect();
            assert_eq!(form, expected, "{text:?}: form vocabulary");
            assert_eq!(split_words(text), expected, "{text:?}: URL check");
        }
    }
}
