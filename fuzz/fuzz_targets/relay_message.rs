//! A message arriving on an instance's relay channel (Redis pub/sub): anyone who can
//! `PUBLISH` on the deployment's Redis chooses these bytes. The instance opens each
//! payload with the function every instance runs before it acts on anything
//! (`elicit::agent::RelayEnd`, the hidden entry point of this target): the format byte,
//! the sealed box for its own key, the tag under the deployment's `RelayKey` over its
//! id and the envelope, then the envelope (sender, message).
//!
//! The input is read twice:
//! 1. as a payload on the channel of instance A: it is dropped, unless it is one a
//!    holder of the key sealed for A (none is made from the input in this step);
//! 2. split at the first NUL byte into an envelope (any bytes, read as the JSON the
//!    relay tags) and changes: the envelope is sealed genuinely for A by instance B,
//!    and opened by A and by A after a key rotation; then, by the changes' length (each
//!    check costs X25519 operations, so one a run): a message the relay sends with the
//!    changes' text in it; the sealed payload changed byte by byte, cut or extended; the
//!    envelope tagged under another key, or tagged for C and moved to A's channel; or
//!    sealed for C.
//!
//! Invariants: opening never panics; what A takes was sealed for A and tagged for A
//! under the key (or an older key still accepted), and is exactly what was sealed: a
//! genuine envelope opens with its sender and message as written (and its JSON read
//! back is the envelope's, member for member), any changed byte drops it, and so do
//! another key's tag, a tag for B moved to A's channel, and a box for B.
#![no_main]

use elicit::agent::{RelayEnd, RelayKey};
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use serde_json::{json, Value};

/// A's secret key, B's and C's: fixed, so that every run opens alike.
const A: [u8; 32] = [0xa1; 32];
const B: [u8; 32] = [0xb2; 32];
const C: [u8; 32] = [0xc3; 32];

fn key() -> RelayKey {
    RelayKey::from_bytes([0x5e; 32])
}

/// The instances, made once: A and B (on the deployment's key), C (on it too), A after a
/// rotation (a new key, the old one accepted), and an outsider on a key of its own.
struct Ends {
    a: RelayEnd,
    b: RelayEnd,
    c: RelayEnd,
    rotated: RelayEnd,
    outsider: RelayEnd,
}

fn ends() -> &'static Ends {
    static ENDS: OnceLock<Ends> = OnceLock::new();
    ENDS.get_or_init(|| Ends {
        a: RelayEnd::new(A, key(), Vec::new()),
        b: RelayEnd::new(B, key(), Vec::new()),
        c: RelayEnd::new(C, key(), Vec::new()),
        rotated: RelayEnd::new(A, RelayKey::from_bytes([0x33; 32]), vec![key()]),
        outsider: RelayEnd::new(C, RelayKey::from_bytes([0x77; 32]), Vec::new()),
    })
}

fuzz_target!(|data: &[u8]| {
    let Ends {
        a,
        b,
        c,
        rotated,
        outsider,
    } = ends();

    // 1. Hostile bytes on A's channel.
    if let Some((from, message)) = a.open(data) {
        panic!("A took a payload nobody sealed for it: from {from}, {message}");
    }

    // 2. A genuine envelope from B to A, and its changes.
    let split = data.iter().position(|&b| b == 0).unwrap_or(data.len());
    let (envelope, changes) = data.split_at(split);
    // The envelope as the relay writes one, when the input is one a relay could write:
    // otherwise the input's bytes as they are (only a holder of the key tags them).
    let envelope = match serde_json::from_slice::<Value>(envelope) {
        Ok(Value::Object(mut m)) if !m.contains_key("f") => {
            m.insert("f".to_owned(), json!(b.instance_id()));
            serde_json::to_vec(&Value::Object(m)).expect("JSON")
        }
        _ => envelope.to_vec(),
    };
    let sealed = b
        .seal_for(a.instance_id(), &envelope)
        .expect("A's id is a public key");
    let opened = a.open(&sealed);
    // What opens is what was sealed: the sender as written, and the message read back
    // opens alike when sealed again.
    if let Some((from, message)) = &opened {
        if let Ok(Value::Object(sent)) = serde_json::from_slice::<Value>(&envelope) {
            if let Some(Value::String(f)) = sent.get("f") {
                assert_eq!(from, f, "another sender read back");
            }
        }
        let again = json!({ "f": from, "m": message }).to_string();
        let again = b
            .seal_for(a.instance_id(), again.as_bytes())
            .expect("sealed");
        assert_eq!(
            a.open(&again).as_ref(),
            Some(&(from.clone(), message.clone()))
        );
    }
    // After a rotation A still opens what B tagged under the older key.
    assert_eq!(rotated.open(&sealed), opened);

    // One more check per run (each costs a few X25519 operations), by the changes'
    // length.
    match changes.len() % 4 {
        0 => {
            // A message the relay sends, with the input's text in it: it opens as sent.
            let text = String::from_utf8_lossy(changes).into_owned();
            let content =
                serde_json::from_str::<Value>(&text).unwrap_or(Value::String(text.clone()));
            let message = match changes.len() % 3 {
                0 => json!({ "Complete": { "id": text } }),
                1 => json!({ "Page": { "ack": changes.len(), "page": {
                    "token": text, "action": "Accept", "content": content } } }),
                _ => json!({ "Ack": { "ack": u64::MAX, "taken": changes.len() > 4 } }),
            };
            let envelope = json!({ "f": b.instance_id(), "m": message }).to_string();
            let sealed = b
                .seal_for(a.instance_id(), envelope.as_bytes())
                .expect("sealed");
            assert_eq!(
                a.open(&sealed),
                Some((b.instance_id().to_owned(), message)),
                "a genuine message"
            );
        }
        1 => {
            // Changed byte by byte: (position, xor) pairs; cut short; longer.
            let mut bytes = sealed.clone();
            for pair in changes.chunks(2) {
                if let [at, xor] = pair {
                    let at = usize::from(*at) * 3 % bytes.len();
                    bytes[at] ^= xor;
                }
            }
            if bytes != sealed {
                assert!(a.open(&bytes).is_none(), "a changed payload was taken");
            }
            assert!(a.open(&sealed[..sealed.len() - 1]).is_none());
            assert!(a.open(&[&sealed[..], changes].concat()).is_none());
        }
        2 => {
            // Tagged under a key A does not hold: dropped.
            let forged = outsider
                .seal_for(a.instance_id(), &envelope)
                .expect("sealed");
            assert!(a.open(&forged).is_none(), "a tag under another key passed");
            // Tagged for C (a message of C's), moved to A's channel: dropped.
            let moved = b
                .seal_misaddressed(c.instance_id(), a.instance_id(), &envelope)
                .expect("sealed");
            assert!(
                a.open(&moved).is_none(),
                "a message tagged for C was taken by A"
            );
        }
        _ => {
            // Sealed for C: only C opens it, A never.
            let for_c = b.seal_for(c.instance_id(), &envelope).expect("sealed");
            assert!(a.open(&for_c).is_none(), "A opened a box sealed for C");
            assert_eq!(c.open(&for_c).is_some(), opened.is_some());
        }
    }
});
