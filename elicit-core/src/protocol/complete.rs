//! The params of the `elicitation/complete` notification ([U5](crate::rules#u5)): `{"elicitationId",
//! "_meta"?}`.

use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{json, Value};

use super::capabilities::read_meta;
use super::error::{ParamsError, ParamsErrorKind};
use super::ELICITATION_COMPLETE;
use crate::schema::Meta;

/// The agent's notice that the external interaction of a URL elicitation finished
/// ([U5](crate::rules#u5)). The client ignores unknown or already-completed ids ([U6](crate::rules#u6)).
///
/// ```
/// use elicit::protocol::CompleteElicitation;
/// use serde_json::json;
///
/// let done = CompleteElicitation::new("el-42");
/// assert_eq!(done.to_json(), json!({ "elicitationId": "el-42" }));
/// assert_eq!(CompleteElicitation::from_json(&done.to_json())?, done);
/// # Ok::<(), elicit::protocol::ParamsError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompleteElicitation {
    elicitation_id: String,
    meta: Option<Meta>,
}

impl CompleteElicitation {
    /// The JSON-RPC method of the notification: `elicitation/complete` ([U5](crate::rules#u5)).
    pub const METHOD: &'static str = ELICITATION_COMPLETE;

    /// The notification for this elicitation id.
    pub fn new(elicitation_id: impl Into<String>) -> Self {
        CompleteElicitation {
            elicitation_id: elicitation_id.into(),
            meta: None,
        }
    }

    /// Sets `_meta` ([E7](crate::rules#e7)).
    pub fn with_meta(mut self, meta: Option<Meta>) -> Self {
        self.meta = meta;
        self
    }

    /// The id of the URL elicitation that completed ([U5](crate::rules#u5)).
    pub fn elicitation_id(&self) -> &str {
        &self.elicitation_id
    }

    /// `_meta` ([E7](crate::rules#e7)).
    pub fn meta(&self) -> Option<&Meta> {
        self.meta.as_ref()
    }

    /// Reads the params. A malformed `_meta` reads as absent ([C6](crate::rules#c6)).
    pub fn from_json(json: &Value) -> Result<Self, ParamsError> {
        let obj = json
            .as_object()
            .ok_or_else(|| ParamsError::new("", ParamsErrorKind::NotAnObject).in_complete())?;
        let elicitation_id = match obj.get("elicitationId") {
            Some(Value::String(id)) => id.clone(),
            None => return Err(ParamsError::missing("elicitationId").in_complete()),
            Some(_) => {
                return Err(ParamsError::wrong_type("elicitationId", "a string").in_complete())
            }
        };
        Ok(CompleteElicitation {
            elicitation_id,
            meta: read_meta(obj),
        })
    }

    /// The wire JSON of the params.
    pub fn to_json(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }

    /// The whole JSON-RPC notification: `{"jsonrpc": "2.0", "method", "params"}`.
    pub fn to_notification(&self) -> Value {
        json!({ "jsonrpc": "2.0", "method": Self::METHOD, "params": self.to_json() })
    }
}

impl Serialize for CompleteElicitation {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("elicitationId", &self.elicitation_id)?;
        if let Some(meta) = &self.meta {
            map.serialize_entry("_meta", meta)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for CompleteElicitation {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let json = Value::deserialize(deserializer)?;
        CompleteElicitation::from_json(&json).map_err(serde::de::Error::custom)
    }
}
