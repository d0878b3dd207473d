//! What the store keeps of one page token.

use std::fmt;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use crate::agent::{Route, UserId};

/// The state of one page token, as a [`Store`](crate::agent::Store) keeps it under a
/// digest of the token ([`store_key`](Self::store_key)), never the token itself: the
/// elicitation and the user it is bound to ([S6](crate::rules#s6)), when it
/// expires, whether it still waits for the client's consent, the browser that first
/// submitted it, and whether it was used. Serializable, for a store shared by several
/// instances of an agent; every change is a compare-and-set, so two instances cannot
/// both accept one submission.
///
/// `Debug` does not show the browser binding (the value of the browser's cookie).
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
// Short member names, empty members left out (and read as empty when absent): every
// pending page is a record in a shared store, and its memory counts. The long names of
// earlier versions are still read.
pub struct PageTicket {
    #[serde(rename = "e", alias = "elicitation_id")]
    elicitation_id: String,
    #[serde(
        rename = "u",
        alias = "user",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    user: Option<String>,
    /// Milliseconds since the Unix epoch.
    #[serde(rename = "x", alias = "expires_at")]
    expires_at: u64,
    /// The cookie that binds the page to the first browser that submitted it.
    #[serde(
        rename = "b",
        alias = "browser",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    browser: Option<String>,
    #[serde(
        rename = "d",
        alias = "used",
        default,
        skip_serializing_if = "std::ops::Not::not"
    )]
    used: bool,
    /// Submissions are refused until the client's consent is recorded
    /// ([`PageWait::record_consent`](super::PageWait::record_consent)).
    #[serde(rename = "p", default, skip_serializing_if = "std::ops::Not::not")]
    awaits_consent: bool,
    /// The instance whose task waits for the submission, when a relay routes
    /// submissions that land elsewhere (feature `redis`).
    #[serde(rename = "r", default, skip_serializing_if = "Option::is_none")]
    route: Option<Route>,
    /// What another instance needs to show the form and check the answer: the schema
    /// (wire JSON) and the message. Neither is secret; the answer is never stored.
    #[serde(rename = "f", default, skip_serializing_if = "Option::is_none")]
    form: Option<RoutedForm>,
    /// The tag of a routed ticket under the deployment's relay key (feature `redis`),
    /// in hex: over the token's digest, the elicitation, the user, the expiry, the
    /// route and the form, which never change after the ticket is written.
    #[serde(rename = "a", default, skip_serializing_if = "Option::is_none")]
    tag: Option<String>,
}

/// The form of a routed page, for the instance that serves it without waiting for it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct RoutedForm {
    #[serde(rename = "s")]
    pub(super) schema: serde_json::Value,
    #[serde(rename = "m")]
    pub(super) message: String,
}

impl PageTicket {
    pub(super) fn new(elicitation_id: &str, user: Option<&UserId>, expires_at: SystemTime) -> Self {
        PageTicket {
            elicitation_id: elicitation_id.to_owned(),
            user: user.map(|u| u.as_str().to_owned()),
            expires_at: millis(expires_at),
            browser: None,
            used: false,
            awaits_consent: false,
            route: None,
            form: None,
            tag: None,
        }
    }

    /// The key a store keeps the ticket of `token` under: a digest of the token
    /// (BLAKE2b-128 personalised `elicit.store.v2`, 32 hex digits), so that whoever
    /// reads the store's key names (a Redis `SCAN`) learns no live link, while every
    /// instance holding the link's token finds its ticket. 128 bits, as an
    /// `elicitationId` ([U4](crate::rules#u4)): finding a token from its key means
    /// inverting the digest over 256-bit random tokens, and two live tokens share a
    /// key with odds about n² / 2¹²⁹ (a fresh token whose key is taken is refused,
    /// [`PageError::TokenInUse`](super::PageError::TokenInUse)). Shorter than the
    /// 64 digits of `elicit.store.v1`, whose keys the instances of an earlier version
    /// wrote: a link they issued is not found by this version.
    pub fn store_key(token: &str) -> String {
        use blake2::digest::consts::U16;
        use blake2::digest::Mac;
        let mut digest =
            blake2::Blake2bMac::<U16>::new_with_salt_and_personal(b"", b"", b"elicit.store.v2")
                .expect("invariant: an empty key and a 15-byte label fit BLAKE2b");
        digest.update(token.as_bytes());
        let bytes = digest.finalize().into_bytes();
        let mut out = String::with_capacity(32);
        for byte in bytes {
            out.push_str(&format!("{byte:02x}"));
        }
        out
    }

    /// What the tag covers, in order, for the ticket stored under `key`.
    #[cfg(feature = "redis")]
    fn tagged_parts(&self, key: &str) -> Option<Vec<Vec<u8>>> {
        let route = self.route.as_ref()?;
        let form = self.form.as_ref()?;
        Some(vec![
            key.as_bytes().to_vec(),
            self.elicitation_id.as_bytes().to_vec(),
            self.user.as_deref().unwrap_or("").as_bytes().to_vec(),
            vec![u8::from(self.user.is_some())],
            self.expires_at.to_le_bytes().to_vec(),
            route.instance.as_bytes().to_vec(),
            serde_json::to_vec(&form.schema).ok()?,
            form.message.as_bytes().to_vec(),
        ])
    }

    /// The same routed ticket, tagged under the relay's current key for the store key
    /// `key`.
    #[cfg(feature = "redis")]
    pub(super) fn tagged(mut self, keys: &crate::agent::RelayKeys, key: &str) -> Self {
        self.tag = self.tagged_parts(key).map(|parts| {
            let parts: Vec<&[u8]> = parts.iter().map(Vec::as_slice).collect();
            let tag = keys.tag(crate::agent::TagPurpose::Ticket, &parts);
            tag.iter().map(|byte| format!("{byte:02x}")).collect()
        });
        self
    }

    /// Whether the ticket stored under `key` carries a tag that passes under the
    /// relay's keys: a routed ticket nobody with the key wrote (or rewrote) fails.
    #[cfg(feature = "redis")]
    pub(super) fn is_authentic(&self, keys: &crate::agent::RelayKeys, key: &str) -> bool {
        let (Some(parts), Some(tag)) = (self.tagged_parts(key), self.tag.as_deref()) else {
            return false;
        };
        let Some(tag) = unhex(tag) else {
            return false;
        };
        let parts: Vec<&[u8]> = parts.iter().map(Vec::as_slice).collect();
        keys.verify(crate::agent::TagPurpose::Ticket, &parts, &tag)
    }

    /// The tag (hex) of a routed ticket, as written with it: what a submission routed
    /// to the waiting instance names, so that it compares it with the tag it wrote.
    #[cfg(feature = "redis")]
    pub(super) fn tag(&self) -> Option<&str> {
        self.tag.as_deref()
    }

    /// The same ticket, served by every instance and answered through the relay to
    /// `route`'s.
    #[cfg(feature = "redis")]
    pub(super) fn routed(mut self, route: Route, form: RoutedForm) -> Self {
        self.route = Some(route);
        self.form = Some(form);
        self
    }

    /// The waiting instance, for a routed page.
    #[cfg(feature = "redis")]
    pub(super) fn route(&self) -> Option<&Route> {
        self.route.as_ref()
    }

    /// The form, for a routed page.
    #[cfg(feature = "redis")]
    pub(super) fn form(&self) -> Option<&RoutedForm> {
        self.form.as_ref()
    }

    /// The id of the instance waiting for the submission, when the page is routed
    /// (feature `redis`).
    pub fn instance(&self) -> Option<&str> {
        self.route.as_ref().map(|route| route.instance.as_str())
    }

    /// The `elicitationId` of the URL-mode request that carries the link.
    pub fn elicitation_id(&self) -> &str {
        &self.elicitation_id
    }

    /// The user who started that elicitation, if the agent has authentication.
    pub fn user(&self) -> Option<UserId> {
        self.user.as_deref().map(UserId::new)
    }

    /// When the token stops being accepted.
    pub fn expires_at(&self) -> SystemTime {
        UNIX_EPOCH + Duration::from_millis(self.expires_at)
    }

    /// Whether it has expired at `now`.
    pub fn is_expired(&self, now: SystemTime) -> bool {
        millis(now) >= self.expires_at
    }

    /// Whether the page was submitted (or closed): a used token is refused.
    pub fn is_used(&self) -> bool {
        self.used
    }

    /// Whether the page still refuses submissions because the client's consent to open
    /// it has not been recorded yet.
    pub fn awaits_consent(&self) -> bool {
        self.awaits_consent
    }

    /// Whether a browser submitted the page already (an answer the form refused
    /// included): only that browser can submit it again.
    pub fn is_bound_to_a_browser(&self) -> bool {
        self.browser.is_some()
    }

    /// The same ticket, refusing submissions until [`consented`](Self::consented).
    pub(super) fn awaiting_consent(mut self) -> Self {
        self.awaits_consent = true;
        self
    }

    /// The same ticket, the client's consent recorded.
    pub(super) fn consented(&self) -> Self {
        PageTicket {
            awaits_consent: false,
            ..self.clone()
        }
    }

    /// The browser binding, once a browser submitted the page.
    pub(super) fn browser(&self) -> Option<&str> {
        self.browser.as_deref()
    }

    pub(super) fn with_browser(&self, browser: String) -> Self {
        PageTicket {
            browser: Some(browser),
            ..self.clone()
        }
    }

    pub(super) fn used(&self) -> Self {
        PageTicket {
            used: true,
            ..self.clone()
        }
    }
}

impl fmt::Debug for PageTicket {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PageTicket")
            .field("elicitation_id", &self.elicitation_id)
            .field("user", &self.user)
            .field("expires_at", &self.expires_at)
            // The binding is the browser's cookie: whoever holds it submits the page.
            .field("bound_to_a_browser", &self.browser.is_some())
            .field("used", &self.used)
            .field("awaits_consent", &self.awaits_consent)
            .field("route", &self.route)
            .field("form", &self.form)
            .field("tagged", &self.tag.is_some())
            .finish()
    }
}

/// Not a public API (hidden; it changes without notice): a routed page ticket as Redis
/// holds it, for the fuzz target `store_ticket` in `fuzz/`. It writes a genuine ticket
/// as an instance does (routed, tagged under the relay key, stored as `RedisStore`
/// stores it) and reads stored bytes as an instance with a relay does before it acts
/// on them: `RedisStore`'s decoding, then the tag check of the page's `live_ticket`.
#[cfg(feature = "redis")]
#[doc(hidden)]
#[derive(Debug)]
pub struct StoredTicket {
    keys: crate::agent::RelayKeys,
}

#[cfg(feature = "redis")]
impl StoredTicket {
    /// Tickets tagged with `key`, and also accepted under `older` keys (a rotation).
    pub fn new(key: crate::agent::RelayKey, older: Vec<crate::agent::RelayKey>) -> Self {
        StoredTicket {
            keys: crate::agent::RelayKeys {
                current: key,
                older,
            },
        }
    }

    /// The bytes Redis holds for the page of `token` that `instance` waits for, opened
    /// for the URL elicitation `elicitation_id` of `user` with the form `schema` (wire
    /// JSON) and `message`, until `expires_at`.
    #[allow(clippy::too_many_arguments)]
    pub fn genuine(
        &self,
        token: &str,
        elicitation_id: &str,
        user: Option<&UserId>,
        expires_at: SystemTime,
        instance: &str,
        schema: serde_json::Value,
        message: &str,
    ) -> Option<Vec<u8>> {
        let ticket = PageTicket::new(elicitation_id, user, expires_at)
            .routed(
                Route {
                    instance: instance.to_owned(),
                },
                RoutedForm {
                    schema,
                    message: message.to_owned(),
                },
            )
            .tagged(&self.keys, &PageTicket::store_key(token));
        crate::agent::record_bytes(&ticket)
    }

    /// What an instance takes from `stored`, read under the store key of `token`: the
    /// ticket with its form's schema and message, or `None` when the page refuses it
    /// (unreadable, or its tag fails).
    pub fn read(
        &self,
        stored: &[u8],
        token: &str,
    ) -> Option<(PageTicket, serde_json::Value, String)> {
        let ticket: PageTicket = crate::agent::read_record(stored)?;
        if !ticket.is_authentic(&self.keys, &PageTicket::store_key(token)) {
            return None;
        }
        let form = ticket.form()?.clone();
        Some((ticket, form.schema, form.message))
    }
}

fn millis(time: SystemTime) -> u64 {
    time.duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

#[cfg(feature = "redis")]
fn unhex(text: &str) -> Option<Vec<u8>> {
    if text.len() % 2 != 0 {
        return None;
    }
    text.as_bytes()
        .chunks(2)
        .map(|pair| {
            let digit = |c: u8| char::from(c).to_digit(16);
            u8::try_from(digit(pair[0])? * 16 + digit(pair[1])?).ok()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 2023-11-14T22:13:20.123Z, to the millisecond a ticket keeps.
    fn at() -> SystemTime {
        UNIX_EPOCH + Duration::from_millis(1_700_000_000_123)
    }

    fn ticket() -> PageTicket {
        PageTicket::new("elicitation-1", Some(&UserId::new("alice")), at())
    }

    // covers: S6 (the store's key names reveal no live link)
    #[test]
    fn a_ticket_is_stored_under_a_digest_of_its_token_never_the_token() {
        let token = "0123456789abcdef0123456789abcdef";
        let key = PageTicket::store_key(token);
        assert_eq!(key.len(), 32, "{key}");
        assert!(
            key.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')),
            "{key}"
        );
        assert!(!key.contains(token));
        // Every instance holding the token finds the same ticket; another token another.
        assert_eq!(key, PageTicket::store_key(token));
        assert_ne!(
            key,
            PageTicket::store_key("0123456789abcdef0123456789abcdee")
        );
        assert_ne!(PageTicket::store_key(""), PageTicket::store_key("x"));
    }

    // covers: S6, U4, U5
    #[test]
    fn a_ticket_reads_back_its_elicitation_user_and_expiry() {
        let ticket = ticket();
        assert_eq!(ticket.elicitation_id(), "elicitation-1");
        assert_eq!(ticket.user(), Some(UserId::new("alice")));
        assert_eq!(
            PageTicket::new("e", None, at()).user(),
            None,
            "no user is not any user"
        );
        assert_eq!(ticket.expires_at(), at());
        // Accepted up to the millisecond before its expiry, refused from then on.
        assert!(!ticket.is_expired(at() - Duration::from_millis(1)));
        assert!(ticket.is_expired(at()));
        assert!(ticket.is_expired(at() + Duration::from_millis(1)));
        assert!(!ticket.is_expired(UNIX_EPOCH + Duration::from_secs(1)));
        assert_eq!(ticket.instance(), None);
    }

    // covers: U2, U5, S6
    #[test]
    fn each_step_changes_only_its_own_state() {
        let fresh = ticket();
        assert!(!fresh.is_used() && !fresh.awaits_consent() && !fresh.is_bound_to_a_browser());
        assert_eq!(fresh.browser(), None);

        let waiting = fresh.clone().awaiting_consent();
        assert!(waiting.awaits_consent() && !waiting.is_used());
        let consented = waiting.consented();
        assert!(!consented.awaits_consent());
        assert_eq!(consented, fresh);

        let bound = fresh.with_browser("cookie-a".to_owned());
        assert!(bound.is_bound_to_a_browser() && !bound.is_used());
        assert_eq!(bound.browser(), Some("cookie-a"));
        assert_eq!(bound.elicitation_id(), "elicitation-1");

        let used = bound.used();
        assert!(used.is_used());
        assert_eq!(used.browser(), Some("cookie-a"), "using keeps the binding");
        assert_eq!(used.user(), Some(UserId::new("alice")));
        assert_eq!(used.expires_at(), at());
    }

    // covers: S6 (the browser's cookie is the right to submit: never in a log)
    #[test]
    fn debug_shows_the_state_but_not_the_browser_cookie() {
        let ticket = ticket().with_browser("c0ffee00c0ffee00c0ffee00c0ffee00".to_owned());
        let shown = format!("{ticket:?}");
        assert!(shown.contains("elicitation-1"), "{shown}");
        assert!(shown.contains("bound_to_a_browser: true"), "{shown}");
        assert!(!shown.contains("c0ffee"), "{shown}");
    }

    // covers: S6 (a ticket as a shared store holds it reads back the same)
    #[test]
    fn a_ticket_survives_the_store_unchanged() {
        let ticket = ticket()
            .awaiting_consent()
            .with_browser("b".to_owned())
            .used();
        let json = serde_json::to_string(&ticket).expect("serializable");
        let back: PageTicket = serde_json::from_str(&json).expect("readable");
        assert_eq!(back, ticket);
        // The long member names of earlier versions are still read.
        let old: PageTicket = serde_json::from_value(serde_json::json!({
            "elicitation_id": "e", "user": "bob", "expires_at": 5, "used": true
        }))
        .expect("readable");
        assert_eq!(old.user(), Some(UserId::new("bob")));
        assert!(old.is_used());
    }

    #[cfg(feature = "redis")]
    mod routed {
        use super::*;
        use crate::agent::{RelayKey, RelayKeys};

        fn keys(byte: u8) -> RelayKeys {
            RelayKeys {
                current: RelayKey::from_bytes([byte; 32]),
                older: Vec::new(),
            }
        }

        fn route(instance: &str) -> Route {
            Route {
                instance: instance.to_owned(),
            }
        }

        fn form(message: &str) -> RoutedForm {
            RoutedForm {
                schema: serde_json::json!({ "type": "object", "properties": {} }),
                message: message.to_owned(),
            }
        }

        fn routed_ticket() -> PageTicket {
            ticket().routed(route("instance-a"), form("Your API key"))
        }

        const KEY: &str = "store-key-1";

        // covers: S6, E5 (the waiting instance and its form, read by another instance)
        #[test]
        fn a_routed_ticket_names_its_instance_and_form() {
            let ticket = routed_ticket();
            assert_eq!(ticket.instance(), Some("instance-a"));
            assert_eq!(ticket.route(), Some(&route("instance-a")));
            assert_eq!(ticket.form(), Some(&form("Your API key")));
            assert_eq!(PageTicket::new("e", None, at()).route(), None);
            assert_eq!(PageTicket::new("e", None, at()).form(), None);
        }

        // covers: S6, E5 (issue 28: whoever can write to Redis cannot make an
        // instance show an attacker's form or seal a secret for an attacker's key)
        #[test]
        fn only_a_ticket_tagged_under_the_relay_key_is_authentic() {
            let keys = keys(9);
            let tagged = routed_ticket().tagged(&keys, KEY);
            assert!(tagged.is_authentic(&keys, KEY));
            // Through the store and back (the tag travels as hex).
            let json = serde_json::to_string(&tagged).expect("serializable");
            let back: PageTicket = serde_json::from_str(&json).expect("readable");
            assert!(back.is_authentic(&keys, KEY));
            // Under another key, or moved to another token's key: refused.
            assert!(!tagged.is_authentic(&self::keys(8), KEY));
            assert!(!tagged.is_authentic(&keys, "store-key-2"));
            // Rotation: the old key still accepted while it is listed.
            let rotated = RelayKeys {
                current: RelayKey::from_bytes([1; 32]),
                older: vec![RelayKey::from_bytes([9; 32])],
            };
            assert!(tagged.is_authentic(&rotated, KEY));
            // Untagged, or not routed at all: refused.
            assert!(!routed_ticket().is_authentic(&keys, KEY));
            let plain = ticket().tagged(&keys, KEY);
            assert!(!plain.is_authentic(&keys, KEY));
        }

        /// A change to a ticket's stored JSON.
        type Rewrite = fn(&mut serde_json::Value);

        /// `tagged`, then the stored JSON rewritten by `change`.
        fn rewritten(change: impl FnOnce(&mut serde_json::Value)) -> PageTicket {
            let mut json =
                serde_json::to_value(routed_ticket().tagged(&keys(9), KEY)).expect("serializable");
            change(&mut json);
            serde_json::from_value(json).expect("still a ticket")
        }

        // covers: S6, E5
        #[test]
        fn a_rewritten_route_form_user_expiry_or_tag_is_refused() {
            let keys = keys(9);
            assert!(rewritten(|_| {}).is_authentic(&keys, KEY));
            let changes: [(&str, Rewrite); 9] = [
                ("route", |j| j["r"] = "instance-evil".into()),
                ("message", |j| j["f"]["m"] = "Paste your password".into()),
                ("schema", |j| j["f"]["s"]["title"] = "x".into()),
                ("elicitation", |j| j["e"] = "elicitation-2".into()),
                ("user", |j| j["u"] = "mallory".into()),
                ("no user", |j| {
                    j.as_object_mut().expect("an object").remove("u");
                }),
                ("expiry", |j| j["x"] = 1_800_000_000_000u64.into()),
                ("tag", |j| {
                    let tag = j["a"].as_str().expect("hex").to_owned();
                    let flipped = if tag.starts_with('0') { "1" } else { "0" };
                    j["a"] = format!("{flipped}{}", &tag[1..]).into();
                }),
                ("short tag", |j| {
                    let tag = j["a"].as_str().expect("hex").to_owned();
                    j["a"] = tag[..tag.len() - 1].to_owned().into();
                }),
            ];
            for (what, change) in changes {
                assert!(!rewritten(change).is_authentic(&keys, KEY), "{what}");
            }
            // Not hex at all, or the empty user against none.
            assert!(!rewritten(|j| j["a"] = "zz".repeat(16).into()).is_authentic(&keys, KEY));
            let empty_user = rewritten(|j| j["u"] = "".into());
            assert!(!empty_user.is_authentic(&keys, KEY));
        }

        // covers: S6
        #[test]
        fn the_tag_is_read_as_hex_in_either_case() {
            let keys = keys(9);
            let upper = rewritten(|j| {
                let tag = j["a"].as_str().expect("hex").to_ascii_uppercase();
                j["a"] = tag.into();
            });
            assert!(upper.is_authentic(&keys, KEY));
            assert_eq!(unhex("00ff10a9"), Some(vec![0x00, 0xff, 0x10, 0xa9]));
            assert_eq!(unhex("0"), None);
            assert_eq!(unhex("0g"), None);
            assert_eq!(unhex(""), Some(vec![]));
        }
    }
}

#[cfg(all(test, feature = "redis"))]
mod read_back {
    use super::*;
    use crate::agent::{RelayKey, RelayKeys};

    /// The expiry of the tickets below: 4,000,000,000 s after the Unix epoch.
    const EXPIRES_MILLIS: u64 = 4_000_000_000_000;

    /// A routed ticket as one instance writes it to Redis and another reads it back.
    fn stored_and_read(schema: serde_json::Value, keys: &RelayKeys, key: &str) -> PageTicket {
        let ticket = PageTicket::new("e1", None, UNIX_EPOCH + Duration::from_secs(4_000_000_000))
            .routed(
                Route {
                    instance: "a1".repeat(32),
                },
                RoutedForm {
                    schema,
                    message: "Enter it.".to_owned(),
                },
            )
            .tagged(keys, key);
        let stored = crate::agent::record_bytes(&ticket).expect("written");
        crate::agent::read_record(&stored).expect("read back")
    }

    // covers: S6
    /// The tag covers the form's schema as JSON written again from the value read: a
    /// number whose text does not survive a parse and a write (serde_json's default,
    /// fast float parsing is not exact) made every instance refuse a genuine page as
    /// tampered with (found by the fuzz target `store_ticket`).
    #[test]
    fn a_routed_ticket_reads_back_authentic_whatever_numbers_its_form_holds() {
        let keys = RelayKeys {
            current: RelayKey::from_bytes([5; 32]),
            older: Vec::new(),
        };
        let key = PageTicket::store_key("token");
        for number in [
            7.777_777_777_777_728e38,
            0.1,
            1e-7,
            f64::MAX,
            f64::MIN_POSITIVE,
            5e-324,
            123_456_789.123_456_79,
            2.225_073_858_507_201e-308,
        ] {
            let schema = serde_json::json!({ "type": "object", "properties": {
                "n": { "type": "number", "maximum": number } } });
            let read = stored_and_read(schema, &keys, &key);
            assert!(read.is_authentic(&keys, &key), "{number:e}");
        }
        // What the tag is for: another schema is refused.
        let mut read = stored_and_read(serde_json::json!({ "type": "object" }), &keys, &key);
        assert_eq!(millis(read.expires_at()), EXPIRES_MILLIS);
        if let Some(form) = read.form.as_mut() {
            form.schema = serde_json::json!({ "type": "object", "title": "Pay here" });
        }
        assert!(!read.is_authentic(&keys, &key));
    }

    // covers: U5, S6
    /// The tag a submission names to the waiting instance is the one Redis holds with
    /// the ticket, as written: the waiting instance compares it with the one it wrote.
    #[test]
    fn the_tag_a_submission_names_is_the_one_stored_with_the_ticket() {
        let keys = RelayKeys {
            current: RelayKey::from_bytes([6; 32]),
            older: Vec::new(),
        };
        let key = PageTicket::store_key("token");
        let read = stored_and_read(serde_json::json!({ "type": "object" }), &keys, &key);
        let stored = serde_json::to_value(&read).expect("serializable");
        let written = stored["a"].as_str().expect("a routed ticket is tagged");
        assert_eq!(written.len(), 32, "a 128-bit tag in hex: {written}");
        assert_eq!(read.tag(), Some(written));
        assert_eq!(PageTicket::new("e1", None, UNIX_EPOCH).tag(), None);
    }

    // covers: S6
    /// The fuzz target's entry point reads what the page reads: a genuine ticket with
    /// its form, and nothing once a byte of it, the token, or the key differs.
    #[test]
    fn a_stored_ticket_opens_only_genuine_under_its_token_and_key() {
        let stored = StoredTicket::new(RelayKey::from_bytes([7; 32]), Vec::new());
        let schema = serde_json::json!({ "type": "object", "properties": {
            "api_key": { "type": "string" } } });
        let expires = UNIX_EPOCH + Duration::from_secs(4_000_000_000);
        let alice = UserId::new("alice");
        let bytes = stored
            .genuine(
                "token",
                "e1",
                Some(&alice),
                expires,
                "a1",
                schema.clone(),
                "Paste it.",
            )
            .expect("written");
        let (ticket, read_schema, message) = stored.read(&bytes, "token").expect("genuine");
        assert_eq!(read_schema, schema);
        assert_eq!(message, "Paste it.");
        assert_eq!(ticket.elicitation_id(), "e1");
        assert_eq!(ticket.user(), Some(alice));
        assert_eq!(millis(ticket.expires_at()), EXPIRES_MILLIS);
        assert_eq!(ticket.instance(), Some("a1"));
        assert!(!ticket.is_used() && !ticket.awaits_consent());

        assert!(stored.read(&bytes, "another token").is_none());
        let other = StoredTicket::new(RelayKey::from_bytes([8; 32]), Vec::new());
        assert!(other.read(&bytes, "token").is_none());
        let text = String::from_utf8(bytes.clone()).expect("JSON");
        let rewritten = text.replace("Paste it.", "Paste it here");
        assert_ne!(rewritten, text);
        assert!(stored.read(rewritten.as_bytes(), "token").is_none());
        assert!(stored.read(b"not a ticket", "token").is_none());
        // Accepted under an older key during a rotation.
        let rotated = StoredTicket::new(
            RelayKey::from_bytes([9; 32]),
            vec![RelayKey::from_bytes([7; 32])],
        );
        assert!(rotated.read(&bytes, "token").is_some());
    }
}
