//! A readable label for a field the agent gave no `title`.

use std::borrow::Cow;

/// The label to show for a field: `label` as the agent wrote it (its `title`), or, when
/// the label is the bare property name (no `title` was set), that name made readable
/// with [`readable_name`] (`party_size` → `Party size`). The name itself is still what
/// the answer is sent under; only what the person reads changes
/// ([K1](crate::rules#k1)).
///
/// ```
/// use elicit::client::readable_label;
/// assert_eq!(readable_label("party_size", "party_size"), "Party size");
/// assert_eq!(readable_label("party_size", "Guests"), "Guests");
/// ```
pub fn readable_label<'a>(name: &str, label: &'a str) -> Cow<'a, str> {
    if label == name {
        Cow::Owned(readable_name(name))
    } else {
        Cow::Borrowed(label)
    }
}

/// A property name as words a person reads: split at `_`, `-`, `.`, spaces and
/// camel-case humps, words in lower case except those written in capitals (`API`,
/// `URLs`), the first letter capitalised: `party_size` → `Party size`, `dateOfBirth` →
/// `Date of birth`, `APIKey` → `API key`, `userID` → `User ID`. A name with nothing to
/// split or capitalise (`名前`) comes back as it is, and so does a name of separators
/// only (`_`).
///
/// ```
/// use elicit::client::readable_name;
/// assert_eq!(readable_name("party_size"), "Party size");
/// assert_eq!(readable_name("dateOfBirth"), "Date of birth");
/// ```
pub fn readable_name(name: &str) -> String {
    let chars: Vec<char> = name.chars().collect();
    let mut words: Vec<String> = Vec::new();
    let mut word = String::new();
    for (i, &c) in chars.iter().enumerate() {
        if matches!(c, '_' | '-' | '.') || c.is_whitespace() {
            if !word.is_empty() {
                words.push(std::mem::take(&mut word));
            }
            continue;
        }
        if !word.is_empty() && starts_a_word(&word, chars[i - 1], c, chars.get(i + 1).copied()) {
            words.push(std::mem::take(&mut word));
        }
        word.push(c);
    }
    if !word.is_empty() {
        words.push(word);
    }
    if words.is_empty() {
        return name.to_owned();
    }
    let mut readable = String::with_capacity(name.len() + words.len());
    for (i, word) in words.iter().enumerate() {
        if i > 0 {
            readable.push(' ');
        }
        let capitals = word.chars().filter(|c| c.is_uppercase()).count();
        if capitals >= 2 {
            // An acronym (`API`, `URLs`, `ID`) stays as written.
            readable.push_str(word);
        } else if i == 0 {
            let mut letters = word.chars();
            if let Some(first) = letters.next() {
                readable.extend(first.to_uppercase());
                readable.extend(letters.flat_map(char::to_lowercase));
            }
        } else {
            readable.extend(word.chars().flat_map(char::to_lowercase));
        }
    }
    readable
}

/// Whether `c` (after `previous`, before `next`) starts a new word of `word`: a
/// capital after a small letter (`partySize`), after a digit in a word with small
/// letters (`oauth2Token`, not `2FA`), or a capital followed by a small letter after
/// capitals (`APIKey` → `API` + `Key`, but `URLs` stays whole).
fn starts_a_word(word: &str, previous: char, c: char, next: Option<char>) -> bool {
    if !c.is_uppercase() {
        return false;
    }
    if previous.is_lowercase() {
        return true;
    }
    if previous.is_numeric() {
        return word.chars().any(char::is_lowercase);
    }
    let plural = next == Some('s');
    previous.is_uppercase() && next.is_some_and(char::is_lowercase) && !plural
}

#[cfg(test)]
mod tests {
    use super::*;

    // covers: K1
    #[test]
    fn names_read_as_words() {
        let cases = [
            ("party_size", "Party size"),
            ("partySize", "Party size"),
            ("PartySize", "Party size"),
            ("date-of-birth", "Date of birth"),
            ("dateOfBirth", "Date of birth"),
            ("APIKey", "API key"),
            ("api_key", "Api key"),
            ("userID", "User ID"),
            ("URLs", "URLs"),
            ("checkURLs", "Check URLs"),
            ("oauth2Token", "Oauth2 token"),
            ("2FA", "2FA"),
            ("address2", "Address2"),
            ("email", "Email"),
            ("x", "X"),
            ("__private__", "Private"),
            ("a.b", "A b"),
            ("名前", "名前"),
            ("émigré_city", "Émigré city"),
            ("_", "_"),
            ("", ""),
        ];
        for (name, readable) in cases {
            assert_eq!(readable_name(name), readable, "{name}");
        }
    }

    // covers: K1
    #[test]
    fn a_title_is_kept_as_written() {
        assert_eq!(readable_label("region", "region"), "Region");
        assert_eq!(readable_label("region", "Where"), "Where");
        assert!(matches!(
            readable_label("a", "Title"),
            Cow::Borrowed("Title")
        ));
    }
}
