//! The sealed `requestState` of an MCP 2026-07-28 round (see [`input`](super::input)):
//! what a round asked, sealed under a key the deployment's instances share, so that
//! whichever instance the retry reaches can check it exactly, with no shared store.

use std::fmt;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use ::rmcp::model::{
    CallToolRequestParams, ErrorCode, GetPromptRequestParams, InputRequest, InputRequests,
    InputRequiredResult, InputResponses, ReadResourceRequestParams,
};
use ::rmcp::service::{RequestContext, RoleServer};
use ::rmcp::ErrorData;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use chacha20poly1305::aead::{Aead, Payload};
use chacha20poly1305::{KeyInit, XChaCha20Poly1305, XNonce};
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};
use sha2::{Digest, Sha256};

use crate::agent::{AskError, UserId};
use crate::protocol::ElicitationResponse;
use crate::schema::RequestedSchema;
use crate::typed::{Elicit, Elicited};

/// What every sealed state starts with: the format and its version.
const PREFIX: &str = "elicit1.";
/// Authenticated with every state (with the key id): a state sealed for another
/// purpose or another format version never opens as this one.
const DOMAIN: &[u8] = b"elicit/rmcp/requestState/v1";
const KEY_ID_LEN: usize = 8;
const NONCE_LEN: usize = 24;
const TAG_LEN: usize = 16;
/// The longest `requestState` read (D12): a larger one is refused before decoding.
pub const MAX_REQUEST_STATE_LEN: usize = 64 * 1024;
/// How long a round stays open unless [`Rounds::with_ttl`] says otherwise.
pub const DEFAULT_TTL: Duration = Duration::from_secs(10 * 60);

/// The key that seals and opens round states: 256 bits every instance of the
/// deployment holds (from its secret store), so that any of them continues a round
/// another began.
///
/// Its [`id`](Self::id), a digest of the key, travels in the clear in each state, so a
/// state from another key is told apart from a tampered one. `Debug` never shows the
/// key.
#[derive(Clone)]
pub struct RoundKey {
    bytes: [u8; 32],
    id: [u8; KEY_ID_LEN],
}

impl RoundKey {
    /// The key made of these 32 bytes (read them from the deployment's secret store;
    /// every instance uses the same).
    pub fn from_bytes(bytes: [u8; 32]) -> Self {
        let digest = Sha256::new()
            .chain_update(b"elicit/rmcp/round-key-id")
            .chain_update(bytes)
            .finalize();
        let mut id = [0; KEY_ID_LEN];
        id.copy_from_slice(&digest[..KEY_ID_LEN]);
        RoundKey { bytes, id }
    }

    /// A fresh key from the operating system's CSPRNG: for a single instance, or to
    /// print once and store.
    pub fn generate() -> Result<Self, RoundError> {
        let mut bytes = [0; 32];
        getrandom::fill(&mut bytes).map_err(RoundError::Random)?;
        Ok(RoundKey::from_bytes(bytes))
    }

    /// The key's public identifier (hex): a digest, not the key.
    pub fn id(&self) -> String {
        hex(&self.id)
    }

    /// The key's 32 bytes, to store it.
    pub fn to_bytes(&self) -> [u8; 32] {
        self.bytes
    }

    fn cipher(&self) -> XChaCha20Poly1305 {
        XChaCha20Poly1305::new(&self.bytes.into())
    }
}

impl fmt::Debug for RoundKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RoundKey")
            .field("id", &self.id())
            .field("key", &"<redacted>")
            .finish()
    }
}

/// The originating request a round belongs to: its method, what names it (the tool,
/// the prompt, the resource), its arguments and, when the server knows one, the
/// authenticated user. A state is only opened for the same request: it cannot be
/// replayed against another tool, other arguments, or by another user.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RoundRequest {
    digest: [u8; 32],
}

impl RoundRequest {
    /// Any request: the method, its name (tool, prompt or resource URI) and its
    /// arguments. Arguments are compared by value (member order does not matter).
    pub fn new(method: &str, name: &str, arguments: Option<&Map<String, Value>>) -> Self {
        let arguments = arguments.map(|a| canonical(&Value::Object(a.clone())));
        let digest = Sha256::new()
            .chain_update(b"elicit/rmcp/round-request")
            .chain_update(json!([method, name, arguments]).to_string())
            .finalize();
        RoundRequest {
            digest: digest.into(),
        }
    }

    /// A `tools/call`.
    pub fn tool_call(request: &CallToolRequestParams) -> Self {
        RoundRequest::new("tools/call", &request.name, request.arguments.as_ref())
    }

    /// A `prompts/get`.
    pub fn prompt(request: &GetPromptRequestParams) -> Self {
        RoundRequest::new("prompts/get", &request.name, request.arguments.as_ref())
    }

    /// A `resources/read`.
    pub fn resource(request: &ReadResourceRequestParams) -> Self {
        RoundRequest::new("resources/read", &request.uri, None)
    }

    /// Binds the round to the authenticated user too: another user's retry is refused
    /// ([S6](crate::rules#s6)).
    #[must_use]
    pub fn for_user(self, user: &UserId) -> Self {
        let digest = Sha256::new()
            .chain_update(self.digest)
            .chain_update(b"/user/")
            .chain_update(user.as_str())
            .finalize();
        RoundRequest {
            digest: digest.into(),
        }
    }
}

/// The rounds of one deployment: the key that seals, older keys that still open
/// (rotation), and how long a round stays open.
#[derive(Debug, Clone)]
pub struct Rounds {
    key: RoundKey,
    older: Vec<RoundKey>,
    ttl: Duration,
}

impl Rounds {
    /// Rounds sealed under `key`, open for [`DEFAULT_TTL`].
    pub fn new(key: RoundKey) -> Self {
        Rounds {
            key,
            older: Vec::new(),
            ttl: DEFAULT_TTL,
        }
    }

    /// How long a sealed round can be answered (a short expiry bounds replays).
    #[must_use]
    pub fn with_ttl(mut self, ttl: Duration) -> Self {
        self.ttl = ttl;
        self
    }

    /// Also opens rounds sealed under `key` (not used to seal): during a key
    /// rotation, until every state it sealed has expired.
    #[must_use]
    pub fn also_opening(mut self, key: RoundKey) -> Self {
        self.older.push(key);
        self
    }

    /// A new round of input requests for `request`.
    pub fn begin(&self, request: RoundRequest) -> Round<'_> {
        Round {
            rounds: self,
            request,
            requests: InputRequests::new(),
            asked: Vec::new(),
            data: Value::Null,
        }
    }

    /// Opens the round a retry continues: `None` when the request carries no
    /// `requestState` (a first call), else the verified round with the retry's
    /// answers.
    ///
    /// Refused with a [`RoundError`]: a state that is malformed, sealed under a key
    /// these rounds do not hold, changed in any byte, expired, or sealed for another
    /// request or user.
    pub fn open<'r>(
        &self,
        request: &RoundRequest,
        state: Option<&str>,
        responses: Option<&'r InputResponses>,
    ) -> Result<Option<Answers<'r>>, RoundError> {
        let Some(state) = state else {
            return Ok(None);
        };
        self.open_at(request, state, responses, SystemTime::now())
            .map(Some)
    }

    fn open_at<'r>(
        &self,
        request: &RoundRequest,
        state: &str,
        responses: Option<&'r InputResponses>,
        now: SystemTime,
    ) -> Result<Answers<'r>, RoundError> {
        if state.len() > MAX_REQUEST_STATE_LEN {
            return Err(RoundError::Malformed("longer than the limit"));
        }
        let encoded = state
            .strip_prefix(PREFIX)
            .ok_or(RoundError::Malformed("not a state elicit sealed"))?;
        let bytes = URL_SAFE_NO_PAD
            .decode(encoded)
            .map_err(|_| RoundError::Malformed("not base64url"))?;
        if bytes.len() < KEY_ID_LEN + NONCE_LEN + TAG_LEN {
            return Err(RoundError::Malformed("too short"));
        }
        let (key_id, rest) = bytes.split_at(KEY_ID_LEN);
        let (nonce, sealed) = rest.split_at(NONCE_LEN);
        let key = std::iter::once(&self.key)
            .chain(&self.older)
            .find(|key| key.id[..] == *key_id)
            .ok_or_else(|| RoundError::UnknownKey { id: hex(key_id) })?;
        let nonce = XNonce::try_from(nonce).map_err(|_| RoundError::Malformed("too short"))?;
        let aad = [DOMAIN, key_id].concat();
        let plain = key
            .cipher()
            .decrypt(
                &nonce,
                Payload {
                    msg: sealed,
                    aad: &aad,
                },
            )
            .map_err(|_| RoundError::Tampered)?;
        // Authentic from here on: only a holder of the key sealed these bytes.
        let sealed: Sealed =
            serde_json::from_slice(&plain).map_err(|_| RoundError::Malformed("unreadable"))?;
        if unix_ms(now) >= sealed.expires {
            return Err(RoundError::Expired {
                at: UNIX_EPOCH + Duration::from_millis(sealed.expires),
            });
        }
        if sealed.request != hex(&request.digest) {
            return Err(RoundError::OtherRequest);
        }
        Ok(Answers { sealed, responses })
    }

    fn seal_at(&self, sealed: &Sealed) -> Result<String, RoundError> {
        let plain = serde_json::to_vec(sealed).map_err(|_| RoundError::Malformed("unsealable"))?;
        let mut nonce = [0; NONCE_LEN];
        getrandom::fill(&mut nonce).map_err(RoundError::Random)?;
        let aad = [DOMAIN, &self.key.id[..]].concat();
        let ciphertext = self
            .key
            .cipher()
            .encrypt(
                &XNonce::from(nonce),
                Payload {
                    msg: &plain,
                    aad: &aad,
                },
            )
            .map_err(|_| RoundError::Malformed("unsealable"))?;
        let bytes = [&self.key.id[..], &nonce[..], &ciphertext].concat();
        Ok(format!("{PREFIX}{}", URL_SAFE_NO_PAD.encode(bytes)))
    }
}

/// One round being built: the input requests to send and what the state records of
/// them. [`seal`](Self::seal) makes the `InputRequiredResult`.
#[derive(Debug)]
pub struct Round<'k> {
    rounds: &'k Rounds,
    request: RoundRequest,
    requests: InputRequests,
    asked: Vec<Asked>,
    data: Value,
}

impl Round<'_> {
    /// Asks for the form `T` under `key`, as [`input::form`](super::input::form) does
    /// (the capability the request declares, [C7](crate::rules#c7); no link,
    /// [F7](crate::rules#f7)); the state records the key and a digest of `T`'s full
    /// schema, `pattern` included ([M7](crate::rules#m7)).
    pub fn form<T: Elicit>(
        &mut self,
        context: &RequestContext<RoleServer>,
        key: impl Into<String>,
        message: impl Into<String>,
    ) -> Result<&mut Self, AskError> {
        let request = super::input::form::<T>(context, message)?;
        Ok(self.push(
            key.into(),
            request,
            Some(schema_digest(T::requested_schema())),
        ))
    }

    /// Asks for anything else a client can be asked in a round (`sampling/createMessage`,
    /// `roots/list`, or an elicitation built by hand) under `key`: the state records the
    /// key and the method. Ask only what the client declared: the server's duty here.
    pub fn request(&mut self, key: impl Into<String>, request: InputRequest) -> &mut Self {
        self.push(key.into(), request, None)
    }

    /// Data of the server's own, carried to the next round sealed (the client can
    /// neither read nor change it): earlier answers, a step number.
    pub fn carry(&mut self, data: Value) -> &mut Self {
        self.data = data;
        self
    }

    /// The `InputRequiredResult` with the input requests and the sealed state.
    pub fn seal(&mut self) -> Result<InputRequiredResult, RoundError> {
        let mut id = [0; 16];
        getrandom::fill(&mut id).map_err(RoundError::Random)?;
        let expires = unix_ms(SystemTime::now())
            .saturating_add(u64::try_from(self.rounds.ttl.as_millis()).unwrap_or(u64::MAX));
        let sealed = Sealed {
            id: hex(&id),
            expires,
            request: hex(&self.request.digest),
            asked: self.asked.clone(),
            data: self.data.clone(),
        };
        let state = self.rounds.seal_at(&sealed)?;
        let requests = (!self.requests.is_empty()).then(|| self.requests.clone());
        Ok(InputRequiredResult::new(requests, Some(state)))
    }

    fn push(&mut self, key: String, request: InputRequest, schema: Option<String>) -> &mut Self {
        let method = match &request {
            InputRequest::Elicitation(_) => "elicitation/create",
            InputRequest::CreateMessage(_) => "sampling/createMessage",
            InputRequest::ListRoots(_) => "roots/list",
            _ => "unknown",
        };
        self.asked.retain(|asked| asked.key != key);
        self.asked.push(Asked {
            key: key.clone(),
            method: method.to_owned(),
            schema,
        });
        self.requests.insert(key, request);
        self
    }
}

/// A verified round and the retry's answers to it.
///
/// What was asked comes from the sealed state, what was answered from the retry's
/// `inputResponses`: an answer to a key that was not asked is ignored (the spec's
/// SHOULD; [`unrequested`](Self::unrequested) names them), an asked key left without
/// answer reads as `None` (ask again, as the spec recommends over an error).
#[derive(Debug)]
pub struct Answers<'r> {
    sealed: Sealed,
    responses: Option<&'r InputResponses>,
}

impl Answers<'_> {
    /// The answer to the form `T` asked under `key`: `None` when the retry has none,
    /// else the validated answer or the user's decline or cancel ([F3](crate::rules#f3),
    /// [R5](crate::rules#r5)).
    ///
    /// Refused: `key` was not asked as a form in this round ([`RoundError::NotAsked`]),
    /// or with another schema than `T`'s ([`RoundError::OtherSchema`]); the answer is no
    /// elicitation result, or breaks the schema ([`RoundError::Answer`]).
    pub fn form<T: Elicit>(&self, key: &str) -> Result<Option<Elicited<T>>, RoundError> {
        let Some(json) = self.form_response(key, T::requested_schema())? else {
            return Ok(None);
        };
        let response =
            ElicitationResponse::from_json(json).map_err(|error| RoundError::Answer {
                key: key.to_owned(),
                error: Box::new(AskError::MalformedResponse(error)),
            })?;
        T::from_response(&response)
            .map(Some)
            .map_err(|errors| RoundError::Answer {
                key: key.to_owned(),
                error: Box::new(AskError::Invalid(errors)),
            })
    }

    /// The raw response to any input asked under `key` (`None` when the retry has
    /// none); refused when `key` was not asked in this round.
    pub fn response(&self, key: &str) -> Result<Option<&Value>, RoundError> {
        self.asked(key)?;
        Ok(self.responses.and_then(|responses| responses.get(key)))
    }

    /// The asked keys the retry did not answer, in the order they were asked.
    pub fn missing(&self) -> Vec<&str> {
        self.sealed
            .asked
            .iter()
            .map(|asked| asked.key.as_str())
            .filter(|key| !self.responses.is_some_and(|r| r.contains_key(*key)))
            .collect()
    }

    /// The keys the retry answered that this round never asked (ignored).
    pub fn unrequested(&self) -> Vec<&str> {
        self.responses
            .into_iter()
            .flat_map(|responses| responses.keys())
            .map(String::as_str)
            .filter(|key| !self.sealed.asked.iter().any(|asked| asked.key == *key))
            .collect()
    }

    /// The data the round [carried](Round::carry) (`null` when none).
    pub fn data(&self) -> &Value {
        &self.sealed.data
    }

    /// The round's random id (hex, 128 bits): record it where a round must be
    /// answered at most once (the state alone cannot say it was already used).
    pub fn round_id(&self) -> &str {
        &self.sealed.id
    }

    /// When the round stops opening.
    pub fn expires_at(&self) -> SystemTime {
        UNIX_EPOCH + Duration::from_millis(self.sealed.expires)
    }

    fn asked(&self, key: &str) -> Result<&Asked, RoundError> {
        self.sealed
            .asked
            .iter()
            .find(|asked| asked.key == key)
            .ok_or_else(|| RoundError::NotAsked {
                key: key.to_owned(),
            })
    }

    fn form_response(
        &self,
        key: &str,
        schema: &RequestedSchema,
    ) -> Result<Option<&Value>, RoundError> {
        let asked = self.asked(key)?;
        match &asked.schema {
            Some(digest) if *digest == schema_digest(schema) => {}
            Some(_) => {
                return Err(RoundError::OtherSchema {
                    key: key.to_owned(),
                })
            }
            None => {
                return Err(RoundError::NotAsked {
                    key: key.to_owned(),
                })
            }
        }
        Ok(self.responses.and_then(|responses| responses.get(key)))
    }
}

/// What went wrong with a round: its state, or an answer in it. Every one but
/// [`Random`](Self::Random) is the client's doing and becomes a JSON-RPC `-32602`
/// (invalid params) through `ErrorData::from`.
#[derive(Debug)]
#[non_exhaustive]
pub enum RoundError {
    /// The `requestState` is not one elicit sealed: what is wrong with it.
    Malformed(&'static str),
    /// Sealed under a key these rounds do not hold (another deployment, or a key
    /// retired too early); the id is the key's public id.
    UnknownKey {
        /// The key id the state names.
        id: String,
    },
    /// Changed: it fails authentication under the key it names.
    Tampered,
    /// Authentic, but past its expiry: start the request again.
    Expired {
        /// When it expired.
        at: SystemTime,
    },
    /// Authentic, but sealed for another request (tool, arguments, user).
    OtherRequest,
    /// The server reads a key this round did not ask (or not as a form).
    NotAsked {
        /// The key.
        key: String,
    },
    /// The round asked `key` with another schema than the one the server reads it with
    /// (the form changed between the rounds, say by a new release).
    OtherSchema {
        /// The key.
        key: String,
    },
    /// The answer under `key` is no elicitation result, or breaks the schema.
    Answer {
        /// The key.
        key: String,
        /// [`AskError::MalformedResponse`] or [`AskError::Invalid`].
        error: Box<AskError>,
    },
    /// The operating system's random source failed (sealing needs a fresh nonce).
    Random(getrandom::Error),
}

impl fmt::Display for RoundError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RoundError::Malformed(what) => write!(f, "requestState is malformed: {what}"),
            RoundError::UnknownKey { id } => write!(
                f,
                "requestState was sealed under a key this server does not hold (key id {id})"
            ),
            RoundError::Tampered => f.write_str("requestState failed integrity verification"),
            RoundError::Expired { at } => {
                let ms = at.duration_since(UNIX_EPOCH).unwrap_or_default().as_millis();
                write!(
                    f,
                    "requestState expired (at {ms} ms since the Unix epoch); send the request again without it"
                )
            }
            RoundError::OtherRequest => {
                f.write_str("requestState belongs to another request or another user")
            }
            RoundError::NotAsked { key } => {
                write!(f, "input {key:?} was not asked in this round")
            }
            RoundError::OtherSchema { key } => write!(
                f,
                "input {key:?} was asked with another schema; send the request again without requestState"
            ),
            RoundError::Answer { key, error } => write!(f, "inputResponses[{key:?}]: {error}"),
            RoundError::Random(error) => write!(f, "the random source failed: {error}"),
        }
    }
}

impl std::error::Error for RoundError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            RoundError::Answer { error, .. } => Some(error.as_ref()),
            _ => None,
        }
    }
}

impl From<RoundError> for ErrorData {
    /// `-32602` (invalid params) for what the client sent, with the input's key in
    /// `data` when there is one; `-32603` (internal) for a failed random source.
    fn from(error: RoundError) -> Self {
        let data = match &error {
            RoundError::NotAsked { key }
            | RoundError::OtherSchema { key }
            | RoundError::Answer { key, .. } => Some(json!({ "inputResponse": key })),
            _ => Some(json!({ "requestState": "rejected" })),
        };
        let code = match error {
            RoundError::Random(_) => ErrorCode::INTERNAL_ERROR,
            _ => ErrorCode::INVALID_PARAMS,
        };
        ErrorData::new(code, error.to_string(), data)
    }
}

/// What the sealed bytes hold.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Sealed {
    /// 128 random bits: the round's identity.
    id: String,
    /// Unix milliseconds.
    expires: u64,
    /// The originating request's digest (hex).
    request: String,
    asked: Vec<Asked>,
    #[serde(default)]
    data: Value,
}

/// One asked input: its key, its method and, for a form, the digest of its schema.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Asked {
    key: String,
    method: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    schema: Option<String>,
}

/// The digest of a form's full schema (as elicit emits it, `pattern` included).
fn schema_digest(schema: &RequestedSchema) -> String {
    let digest = Sha256::new()
        .chain_update(b"elicit/rmcp/schema")
        .chain_update(schema.to_json().to_string())
        .finalize();
    hex(&digest)
}

/// The JSON with every object's members sorted, so that equal values digest equally.
fn canonical(value: &Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            Value::Object(
                keys.into_iter()
                    .map(|key| (key.clone(), canonical(&map[key])))
                    .collect(),
            )
        }
        Value::Array(items) => Value::Array(items.iter().map(canonical).collect()),
        other => other.clone(),
    }
}

fn unix_ms(time: SystemTime) -> u64 {
    let ms = time
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default()
        .as_millis();
    u64::try_from(ms).unwrap_or(u64::MAX)
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rounds() -> Rounds {
        Rounds::new(RoundKey::from_bytes([7; 32]))
    }

    fn sealed(asked: &[&str]) -> Sealed {
        Sealed {
            id: "00".into(),
            expires: unix_ms(SystemTime::now()) + 60_000,
            request: hex(&RoundRequest::new("tools/call", "t", None).digest),
            asked: asked
                .iter()
                .map(|key| Asked {
                    key: (*key).to_owned(),
                    method: "roots/list".into(),
                    schema: None,
                })
                .collect(),
            data: json!({ "step": 2 }),
        }
    }

    // covers: M6
    #[test]
    fn a_sealed_state_opens_on_another_instance_with_the_same_key_only() {
        let request = RoundRequest::new("tools/call", "t", None);
        let state = rounds().seal_at(&sealed(&["a"])).unwrap();
        let other_instance = rounds();
        let answers = other_instance
            .open_at(&request, &state, None, SystemTime::now())
            .unwrap();
        assert_eq!(answers.data(), &json!({ "step": 2 }));
        assert_eq!(answers.missing(), vec!["a"]);

        let stranger = Rounds::new(RoundKey::from_bytes([8; 32]));
        let refused = stranger.open_at(&request, &state, None, SystemTime::now());
        assert!(
            matches!(refused, Err(RoundError::UnknownKey { .. })),
            "{refused:?}"
        );
        // Rotation: the new key seals, the old one still opens.
        let rotated =
            Rounds::new(RoundKey::from_bytes([8; 32])).also_opening(RoundKey::from_bytes([7; 32]));
        assert!(rotated
            .open_at(&request, &state, None, SystemTime::now())
            .is_ok());
    }

    #[test]
    fn every_changed_byte_is_refused_and_nothing_panics() {
        let request = RoundRequest::new("tools/call", "t", None);
        let rounds = rounds();
        let state = rounds.seal_at(&sealed(&["a"])).unwrap();
        let bytes = URL_SAFE_NO_PAD.decode(&state[PREFIX.len()..]).unwrap();
        for index in 0..bytes.len() {
            let mut changed = bytes.clone();
            changed[index] ^= 0x01;
            let changed = format!("{PREFIX}{}", URL_SAFE_NO_PAD.encode(changed));
            let refused = rounds.open_at(&request, &changed, None, SystemTime::now());
            match (index < KEY_ID_LEN, refused) {
                (true, Err(RoundError::UnknownKey { .. })) => {}
                (false, Err(RoundError::Tampered)) => {}
                (_, other) => panic!("byte {index}: {other:?}"),
            }
        }
        for end in 0..state.len() {
            assert!(rounds
                .open_at(&request, &state[..end], None, SystemTime::now())
                .is_err());
        }
        let long = format!("{PREFIX}{}", "A".repeat(MAX_REQUEST_STATE_LEN));
        assert!(matches!(
            rounds.open_at(&request, &long, None, SystemTime::now()),
            Err(RoundError::Malformed(_))
        ));
    }

    #[test]
    fn expiry_and_the_originating_request_are_checked_after_authentication() {
        let rounds = rounds();
        let request = RoundRequest::new("tools/call", "t", None);
        let state = rounds.seal_at(&sealed(&[])).unwrap();
        let later = SystemTime::now() + Duration::from_secs(61);
        assert!(matches!(
            rounds.open_at(&request, &state, None, later),
            Err(RoundError::Expired { .. })
        ));
        let other = RoundRequest::new("tools/call", "t", Some(&Map::new()));
        assert!(matches!(
            rounds.open_at(&other, &state, None, SystemTime::now()),
            Err(RoundError::OtherRequest)
        ));
        let user = RoundRequest::new("tools/call", "t", None).for_user(&UserId::new("bob"));
        assert!(matches!(
            rounds.open_at(&user, &state, None, SystemTime::now()),
            Err(RoundError::OtherRequest)
        ));
    }

    #[test]
    fn arguments_compare_by_value_and_the_key_never_prints() {
        let a = json!({ "x": 1, "y": { "b": 2, "a": 1 } });
        let b = json!({ "y": { "a": 1, "b": 2 }, "x": 1 });
        assert_eq!(
            RoundRequest::new("tools/call", "t", a.as_object()),
            RoundRequest::new("tools/call", "t", b.as_object())
        );
        let key = RoundKey::from_bytes([0xab; 32]);
        assert!(!format!("{key:?}").contains("ab, ab") && !format!("{key:?}").contains("171"));
        assert_eq!(RoundKey::from_bytes(key.to_bytes()).id(), key.id());
    }
}
