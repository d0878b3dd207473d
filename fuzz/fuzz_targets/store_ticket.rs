//! A page ticket read from the store (Redis, shared by the instances of an agent), as
//! an instance with a relay reads it before it shows a form or routes an answer:
//! `RedisStore`'s decoding of the stored bytes (write token, JSON), then the ticket's
//! tag under the deployment's `RelayKey` (`elicit::axum::StoredTicket`, the hidden
//! entry point of this target, runs the page's own functions). Whoever can write to
//! Redis controls these bytes; only a holder of the relay key can tag them.
//!
//! The input is read twice:
//! 1. as the stored value itself, under one fixed token: it is refused, unless it
//!    carries exactly the fields of the one ticket tagged under the key for that
//!    token (the fuzzer may rebuild that one; it can never change it);
//! 2. split at NUL bytes into the fields of a genuine routed ticket (elicitation id,
//!    message, user, schema, the waiting instance), written as an instance writes it,
//!    then changed by the rest of the input, byte by byte and member by member.
//!
//! Invariants: reading never panics; a ticket is accepted only with a tag under the key
//! (or an older key still accepted), for the token it is stored under, and an accepted
//! ticket has exactly the tagged fields of the genuine one (its elicitation, user,
//! expiry, waiting instance, form schema and message), whatever else was changed; the
//! genuine ticket itself is accepted with its fields as written, under the current key
//! and after a rotation, and refused under any other key or token.
#![no_main]

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use elicit::agent::{RelayKey, UserId};
use elicit::axum::{PageTicket, StoredTicket};
use elicit::RequestedSchema;
use libfuzzer_sys::fuzz_target;
use serde_json::{json, Value};

const TOKEN: &str = "Yt3v0wqJmC2bH8kPz6rN1sQd4fXa7eLg";

/// What the tag covers, as the page reads it back.
#[derive(Debug, PartialEq)]
struct Fields {
    elicitation_id: String,
    user: Option<UserId>,
    expires_at: SystemTime,
    instance: Option<String>,
    schema: Value,
    message: String,
}

fn fields(ticket: &PageTicket, schema: Value, message: String) -> Fields {
    Fields {
        elicitation_id: ticket.elicitation_id().to_owned(),
        user: ticket.user(),
        expires_at: ticket.expires_at(),
        instance: ticket.instance().map(str::to_owned),
        schema,
        message,
    }
}

/// Reads `stored` as an instance does, checking everything it may show on the way (the
/// state, the form), and the fields it carries.
fn read(keys: &StoredTicket, stored: &[u8], token: &str) -> Option<Fields> {
    let (ticket, schema, message) = keys.read(stored, token)?;
    let now = SystemTime::now();
    let _ = (
        ticket.is_expired(now),
        ticket.is_used(),
        ticket.awaits_consent(),
    );
    let _ = (ticket.is_bound_to_a_browser(), format!("{ticket:?}"));
    if let Ok(form) = RequestedSchema::from_json(&schema) {
        let _ = elicit::client::html::HtmlForm::new(&form)
            .mask_secrets(true)
            .message(message.clone())
            .render();
    }
    Some(fields(&ticket, schema, message))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fuzz_target!(|data: &[u8]| {
    let key = RelayKey::from_bytes([0x5e; 32]);
    let keys = StoredTicket::new(key.clone(), Vec::new());
    let expires_at = UNIX_EPOCH + Duration::from_millis(4_000_000_000_000);

    // 1. The input as the stored bytes.
    let schema = json!({ "type": "object", "properties": { "api_key": {
        "type": "string", "title": "API key", "minLength": 16 } }, "required": ["api_key"] });
    let owner = hex(&[0xa1; 32]);
    let alice = UserId::new("alice");
    let fixed = Fields {
        elicitation_id: "e1".to_owned(),
        user: Some(alice.clone()),
        expires_at,
        instance: Some(owner.clone()),
        schema: schema.clone(),
        message: "Enter your API key.".to_owned(),
    };
    if let Some(read) = read(&keys, data, TOKEN) {
        assert_eq!(read, fixed, "an untagged ticket was accepted");
    }
    let stranger = StoredTicket::new(RelayKey::from_bytes([0x77; 32]), Vec::new());
    assert!(
        stranger.read(data, TOKEN).is_none(),
        "accepted under a key that tagged nothing"
    );

    // 2. A genuine ticket with the input's fields, then changed.
    let mut parts = data.split(|&b| b == 0);
    let mut text = || String::from_utf8_lossy(parts.next().unwrap_or_default()).into_owned();
    let (elicitation_id, message, user) = (text(), text(), text());
    let schema: Value = serde_json::from_str(&text()).unwrap_or(schema);
    let instance = {
        let seed = text();
        hex(&seed
            .as_bytes()
            .iter()
            .copied()
            .chain([0; 32])
            .take(32)
            .collect::<Vec<_>>())
    };
    let changes = text();
    let user = (!user.is_empty()).then(|| UserId::new(user));
    let genuine = keys
        .genuine(
            TOKEN,
            &elicitation_id,
            user.as_ref(),
            expires_at,
            &instance,
            schema.clone(),
            &message,
        )
        .expect("a genuine ticket is written");
    let expected = Fields {
        elicitation_id,
        user,
        expires_at,
        instance: Some(instance),
        schema,
        message,
    };
    assert_eq!(
        read(&keys, &genuine, TOKEN).as_ref(),
        Some(&expected),
        "the genuine ticket"
    );
    let rotated = StoredTicket::new(RelayKey::from_bytes([0x33; 32]), vec![key.clone()]);
    assert_eq!(
        read(&rotated, &genuine, TOKEN).as_ref(),
        Some(&expected),
        "after a rotation"
    );
    assert!(
        stranger.read(&genuine, TOKEN).is_none(),
        "under another key"
    );
    assert!(
        keys.read(&genuine, "another-token").is_none(),
        "under another token"
    );

    // Byte by byte: (position, xor) pairs.
    let mut bytes = genuine.clone();
    for pair in changes.as_bytes().chunks(2) {
        if let [at, xor] = pair {
            let at = usize::from(*at) * 7 % bytes.len();
            bytes[at] ^= xor;
        }
    }
    if let Some(read) = read(&keys, &bytes, TOKEN) {
        assert_eq!(
            read, expected,
            "a changed ticket was accepted with other fields"
        );
    }

    // Member by member: each one set to a value of the input's.
    let Ok(Value::Object(record)) = serde_json::from_slice::<Value>(&genuine[32..]) else {
        panic!("a ticket is stored as a token and a JSON object");
    };
    let replacement: Value = serde_json::from_str(&changes).unwrap_or(Value::String(changes));
    for member in [
        "e",
        "u",
        "x",
        "r",
        "f",
        "a",
        "b",
        "d",
        "p",
        "elicitation_id",
        "used",
    ] {
        let mut changed = record.clone();
        changed.insert(member.to_owned(), replacement.clone());
        let stored = [&genuine[..32], &serde_json::to_vec(&changed).unwrap()[..]].concat();
        if let Some(read) = read(&keys, &stored, TOKEN) {
            assert_eq!(
                read, expected,
                "member {member} changed the fields it reads"
            );
        }
        let mut removed = record.clone();
        removed.remove(member);
        let stored = [&genuine[..32], &serde_json::to_vec(&removed).unwrap()[..]].concat();
        if let Some(read) = read(&keys, &stored, TOKEN) {
            assert_eq!(read, expected, "member {member} removed changed the fields");
        }
    }
});
