//! The words a form-mode request must not ask for ([F5](crate::rules#f5)) and the URLs it should not show
//! ([F7](crate::rules#f7)).
//!
//! Both checks run twice: at run time in the schema lint, and at compile time in
//! `#[derive(Elicit)]`, which refuses a field that asks for a secret. So they are plain
//! code over a table and an index both built at compile time: no regex, no lazy statics,
//! no dependency, deterministic, linear in the length of the text, and they never panic.
//!
//! # How `find_secret` reads text
//!
//! The text is cut into words the same way whatever it is: a property name in any casing
//! convention (`apiKey`, `api_key`, `API-KEY`, `ApiKey`, `x_api_key`), a title or a
//! sentence. Words break at anything that is not a letter, digit or combining mark, at
//! camel-case humps (`APIKey` → `api key`, `OAUTH2Token` → `oauth2 token`, but `PINs` and
//! `2FA` stay one word), and where Latin script meets another script (`API密钥` →
//! `api 密钥`). Each word is lowercased and its Latin, Greek and Vietnamese accents are
//! dropped, so the table is written once in plain lowercase (`contraseña`, `Schlüssel`,
//! `mật khẩu` match `contrasena`, `schlussel`, `mat khau`). Words of a phrase must be
//! adjacent, separated only by spaces or by one `-`, `_`, `.` or apostrophe:
//! `password, length` is two thoughts, `password length` one. The URL check reads the
//! parameter names of a URL with the same words ([S1](crate::rules#s1)).
//!
//! The first position in the text where some vocabulary entry matches wins; among entries
//! matching there, the longest phrase wins (`personal access token` over `token`).
//!
//! # Borderline decisions
//!
//! A false positive is costly: the derive refuses the field and the user must rename it. A
//! false negative is a lint that stays quiet. Where a word is usually harmless it is
//! matched only in the phrases that make it a credential.
//!
//! - `key` alone is not a secret (sort key, primary key, map key, keyboard key, musical
//!   key). Qualified keys are: API, access, secret, private, signing, encryption, master,
//!   licence/product, developer and subscription keys, and glued `apikey`, `secretkey`…
//!   `public key` and `ssh key` are not flagged: an SSH key pasted into a form is almost
//!   always the public half.
//! - `token` alone is a credential ("Enter your token"), except next to a word that makes
//!   it a language-model or cryptocurrency unit: `max_tokens`, "token budget", "token
//!   count", "tokens per minute", "token symbol", "page token". Plural `tokens` alone is
//!   never flagged; `access tokens` is.
//! - A match directly followed by a word that talks *about* the secret is not a request
//!   for it: "password length", "password policy", "password manager", "API key name",
//!   "credit card type", "token expiry", "private key file" (a path).
//! - `pin` and `pat` are ordinary English words ("pin this tab", "a pat on the back"), so
//!   alone they count only when written in capitals (`PIN`, `PATs`) or as the last word of
//!   a property name (`pin`, `card_pin`, `githubPat`, and so `auto_pin` too); in prose,
//!   "PIN code", "card pin", "enter your pin" still count. Indian English "PIN code" (a
//!   postal code) is flagged too: call that field `postal_code`.
//! - `secretary`, `secretion` are not secrets; `secret` anywhere else in a word is
//!   (`clientSecret`, `topsecret`, `secreto`).
//! - `passwordless`, `bypass`, `compass`, `passenger`, `passport`, `pinned`, `ping`,
//!   `pinyin`, `spinach`, `opinion`, `keyword`, `keyboard`, `tokenizer` are not secrets.
//! - Identity data that is not a credential stays allowed: name, email, username, login
//!   name, phone, address, date of birth, passport and driving-licence numbers, a customer
//!   account number, `session id`, `client id`, a random `seed`, "2FA"/"MFA" alone (the
//!   name of a feature: "Enable 2FA?"). National identifiers that are used to prove
//!   identity (SSN, national insurance, tax id, Aadhaar, CPF…) are flagged.
//! - Card expiry counts only as "card expiry/expiration"; a bare "expiry date" may be a
//!   document's. "Credit card" counts in the singular only: "Which credit cards do you
//!   accept?" asks for a policy, not a card.
//! - "Sort code" is always the bank number, even in a coding context: prefer "sort imports".
//!
//! # What `find_url` calls a URL
//!
//! What a renderer may turn into a link ([F7](crate::rules#f7), [S5](crate::rules#s5)):
//! - any `scheme://…` with a scheme of at least two characters (`https://`, `ftp://`, and
//!   custom schemes such as `vscode://` that open applications), and `mailto:`, `tel:`,
//!   `sms:`, `javascript:` directly followed by their content (`Tel: 555` is prose);
//! - `www.` followed by a host;
//! - a bare domain whose last label is a common top-level domain in lowercase, when a path,
//!   port, query or fragment follows (`example.com/reset`, `docs.example.io:8443`); for
//!   `.com`, `.org`, `.net`, `.edu` and `.gov`, which are not file extensions, the bare
//!   domain alone (`example.com`) counts too.
//!
//! Not URLs: "e.g.", "i.e.", version numbers (`v1.2.3`), file names (`config.json`,
//! `main.rs`, `setup.py`), library names (`Node.js`, `ASP.NET`, `socket.io`), e-mail
//! addresses without `mailto:`, `localhost:8080` and bare IP addresses, times (`10:30`).
//! Top-level domains that are also common file extensions (`.rs`, `.py`, `.md`, `.sh`,
//! `.json`) are not recognised without a scheme or `www.`, so `docs.rs/regex` passes:
//! missing it is cheaper than flagging `src/main.rs`. Hosts are ASCII (an IDN written in
//! Unicode is found only after a scheme or `www.`).

use std::ops::Range;

mod links;
mod table;
mod words;

use links::{bare_domain_url, scheme_url, url_can_start_after, www_url};
use table::{Entry, INDEX, VOCABULARY};
#[cfg(feature = "url")]
pub(crate) use words::split_words;
use words::Words;

/// What a piece of form text asks for that form mode must not ([F5](crate::rules#f5)).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SecretHit {
    /// The vocabulary entry that matched, in its usual spelling, e.g. `"api key"` for
    /// `x_api_key`, `"contraseña"` for `Contraseña`.
    pub term: &'static str,
    /// The kind of secret the entry names.
    pub kind: SecretKind,
}

/// The kinds of secret or credential form mode must not ask for ([F5](crate::rules#f5)).
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SecretKind {
    /// A password, passphrase, passcode or access code.
    Password,
    /// A personal identification number.
    Pin,
    /// An API key or access key.
    ApiKey,
    /// An access, refresh, bearer, session or personal access token, or a session cookie.
    Token,
    /// A client secret, secret key, licence key, security answer or other credential.
    Secret,
    /// A private or signing key.
    PrivateKey,
    /// A wallet seed or mnemonic phrase.
    SeedPhrase,
    /// A recovery or backup code.
    RecoveryCode,
    /// A one-time or verification code (OTP, 2FA).
    OneTimeCode,
    /// A payment card number, security code (CVV) or expiry.
    PaymentCard,
    /// A bank account number, IBAN, routing number or sort code.
    BankAccount,
    /// A social security, national insurance, tax or other national identification number.
    NationalId,
}

impl SecretKind {
    /// What the kind is, as a noun phrase to put in a message: "form mode must not ask for
    /// {describe}".
    #[must_use]
    pub fn describe(self) -> &'static str {
        match self {
            SecretKind::Password => "a password",
            SecretKind::Pin => "a PIN",
            SecretKind::ApiKey => "an API key",
            SecretKind::Token => "an access token",
            SecretKind::Secret => "a secret credential",
            SecretKind::PrivateKey => "a private key",
            SecretKind::SeedPhrase => "a wallet seed phrase",
            SecretKind::RecoveryCode => "a recovery code",
            SecretKind::OneTimeCode => "a one-time code",
            SecretKind::PaymentCard => "payment card details",
            SecretKind::BankAccount => "bank account details",
            SecretKind::NationalId => "a national identification number",
        }
    }
}

/// Does this property name, title or description ask for a secret? ([F5](crate::rules#f5))
///
/// Returns the first vocabulary entry found, reading from the start of the text. See the
/// module documentation for how words are cut and which borderline words count.
#[must_use]
pub fn find_secret(text: &str) -> Option<SecretHit> {
    let words = Words::new(text);
    for (start, word) in words.list.iter().enumerate() {
        let Some(&first) = words.text(word).as_bytes().first() else {
            continue;
        };
        // Longest phrase wins; among equals, the earlier table entry.
        let mut best: Option<(usize, &Entry)> = None;
        let folded_bytes = word.bytes.fold();
        for range in [INDEX.bucket(first), INDEX.bucket(b'*')] {
            let (Some(order), Some(needs)) =
                (INDEX.order.get(range.clone()), INDEX.needs.get(range))
            else {
                continue;
            };
            for (&index, &need) in order.iter().zip(needs) {
                if need & !folded_bytes != 0 {
                    continue;
                }
                let index = usize::from(index);
                let Some(entry) = VOCABULARY.get(index) else {
                    continue;
                };
                let better = best.is_none_or(|(best_index, best)| {
                    entry.words.len() > best.words.len()
                        || (entry.words.len() == best.words.len() && index < best_index)
                });
                if better
                    && entry.needs.is_subset_of(&word.bytes)
                    && entry.matches_at(&words, start)
                {
                    best = Some((index, entry));
                }
            }
        }
        if let Some((_, entry)) = best {
            return Some(SecretHit {
                term: entry.term,
                kind: entry.kind,
            });
        }
    }
    None
}

/// Where the text contains a URL a user could click ([F7](crate::rules#f7)): the byte range of the first one.
///
/// See the module documentation for what counts. The range always lies on `char`
/// boundaries, so `&text[range]` is the URL without trailing sentence punctuation.
#[must_use]
pub fn find_url(text: &str) -> Option<Range<usize>> {
    let bytes = text.as_bytes();
    for start in 0..bytes.len() {
        // Only the start of an ASCII word can start a URL; positions inside a run of host
        // characters are skipped, which keeps the scan linear.
        if !bytes[start].is_ascii_alphanumeric() || !url_can_start_after(bytes, start) {
            continue;
        }
        if let Some(end) = scheme_url(text, start)
            .or_else(|| www_url(text, start))
            .or_else(|| bare_domain_url(text, start))
        {
            return Some(start..end);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use SecretKind as K;

    /// A small deterministic generator, so the test needs no dependency.
    struct XorShift(u64);

    impl XorShift {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }

        fn below(&mut self, n: usize) -> usize {
            usize::try_from(self.next() % n as u64).unwrap_or(0)
        }
    }

    fn arbitrary_text(rng: &mut XorShift) -> String {
        const PIECES: &[&str] = &[
            "http://",
            "https://",
            "www.",
            ".com",
            ".io/",
            "://",
            "mailto:",
            "@",
            "(",
            ")",
            "]",
            ".",
            "-",
            "_",
            " ",
            "PIN",
            "Pin",
            "pin",
            "token",
            "max",
            "API",
            "Key",
            "s",
            "密码",
            "令牌数",
            "ß",
            "İ",
            "ﬁ",
            "\u{301}",
            "\u{307}",
            "\u{FF30}",
            "Σ",
            "ς",
            "\u{200B}",
            "\u{FEFF}",
            "🔑",
            "\u{10FFFF}",
            "\0",
            "\r\n",
            "passwordless",
        ];
        let len = rng.below(40);
        let mut text = String::new();
        for _ in 0..len {
            match rng.below(4) {
                0 => text.push_str(PIECES[rng.below(PIECES.len())]),
                1 => text.push(char::from(b' ' + u8::try_from(rng.below(95)).unwrap_or(0))),
                _ => {
                    let raw = u32::try_from(rng.next() % 0x11_0000).unwrap_or(0);
                    text.push(char::from_u32(raw).unwrap_or('\u{FFFD}'));
                }
            }
        }
        text
    }

    fn check_url_range(text: &str) {
        if let Some(range) = find_url(text) {
            let url = text.get(range.clone());
            assert!(url.is_some_and(|u| !u.is_empty()), "{text:?}: {range:?}");
        }
    }

    // covers: F5, F7
    #[test]
    fn no_input_panics() {
        let mut rng = XorShift(0x9E37_79B9_7F4A_7C15);
        for _ in 0..10_000 {
            let text = arbitrary_text(&mut rng);
            let _ = find_secret(&text);
            check_url_range(&text);
        }
        // About 50 KB each: far longer than any title or description.
        let long = |piece: &str| piece.repeat(50_000 / piece.len());
        let parens = long("(") + "https://x.org/" + &long(")");
        let texts = [
            long("a"),
            long("A"),
            long("a."),
            long("www."),
            long("https://"),
            parens,
            long("max token "),
            long("密"),
            long("\u{301}"),
            long("Ａ"),
            long("pin "),
            long("Secretary "),
        ];
        for text in &texts {
            let _ = find_secret(text);
            check_url_range(text);
        }
        assert_eq!(find_secret(""), None);
        assert_eq!(find_url(""), None);
    }

    // covers: F5, F7
    #[test]
    fn results_are_deterministic() {
        let text = "Paste the API key from https://example.com/keys here";
        assert_eq!(find_secret(text), find_secret(text));
        assert_eq!(find_url(text), find_url(text));
        assert_eq!(
            find_secret(text),
            Some(SecretHit {
                term: "api key",
                kind: K::ApiKey
            })
        );
        assert_eq!(
            find_url(text).map(|r| &text[r]),
            Some("https://example.com/keys")
        );
    }
}
