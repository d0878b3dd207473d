//! Property: any message we build survives serialize → parse → serialize unchanged, as
//! text, and validates against the published schemas (ACP v1 and v2; MCP 2025-11-25 and
//! 2026-07-28 for the MCP forms).

use crate::protocol_support;

use elicit::protocol::mcp::v2025_11_25 as v1125;
use elicit::protocol::mcp::v2026_07_28 as v0728;
use elicit::protocol::mcp::{ElicitResult, McpElicitationCapabilities};
use elicit::protocol::{
    CompleteElicitation, CreateElicitation, ElicitationCapabilities, ElicitationResponse,
};
use proptest::prelude::*;
use protocol_support::strategies::{capabilities, config, create, meta, response, text};
use protocol_support::{assert_acp, assert_mcp};
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;

/// serialize → parse → serialize, as text, is the identity; returns the JSON.
fn survives<T: Serialize + DeserializeOwned>(message: &T) -> Value {
    let text = serde_json::to_string(message).unwrap();
    let parsed: T = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
    assert_eq!(serde_json::to_string(&parsed).unwrap(), text);
    serde_json::from_str(&text).unwrap()
}

proptest! {
    #![proptest_config(config())]

    // covers: E1, E2, E3, E4, E7, F1, U1, D1, D13
    #[test]
    fn create_round_trips_and_validates(request in create()) {
        let json = survives(&request);
        prop_assert_eq!(&CreateElicitation::from_json(&json).unwrap(), &request);
        // The lenient parse a client uses reads what we build the same way.
        prop_assert_eq!(&CreateElicitation::from_json_lenient(&json).unwrap().to_json(), &json);
        assert_acp("CreateElicitationRequest", &json);
    }

    // covers: R1, R2, R3, E7
    #[test]
    fn response_round_trips_and_validates(response in response()) {
        let json = survives(&response);
        prop_assert_eq!(&ElicitationResponse::from_json(&json).unwrap(), &response);
        assert_acp("CreateElicitationResponse", &json);
    }

    // covers: U5, E7
    #[test]
    fn complete_round_trips_and_validates(id in text(), meta in meta()) {
        let complete = CompleteElicitation::new(id).with_meta(meta);
        let json = survives(&complete);
        assert_acp("CompleteElicitationNotification", &json);
    }

    // covers: C1, C2, C3, C4
    #[test]
    fn capabilities_round_trip_and_validate(caps in capabilities()) {
        let json = survives(&caps);
        prop_assert_eq!(json.is_null(), !caps.is_present());
        if caps.is_present() {
            prop_assert_eq!(Some(json.clone()), caps.to_json());
            assert_acp("ElicitationCapabilities", &json);
        }
        prop_assert_eq!(ElicitationCapabilities::from_json(Some(&json)), caps.clone());
        // Through MCP and back keeps the modes (an ACP capability without modes has no
        // MCP form and comes back absent, C5).
        let back = ElicitationCapabilities::from(&McpElicitationCapabilities::from(&caps));
        prop_assert_eq!(back.modes().collect::<Vec<_>>(), caps.modes().collect::<Vec<_>>());
    }

    // covers: M1, M3, M6, M7
    #[test]
    fn mcp_forms_round_trip_and_validate(request in create(), response in response()) {
        let p1125 = v1125::ElicitRequestParams::try_from(&request).unwrap();
        let json = survives(&p1125);
        assert_mcp("2025-11-25", "ElicitRequestParams", &json);
        prop_assert!(json.get("sessionId").is_none() && json.get("requestId").is_none());
        let p0728 = v0728::ElicitRequestParams::try_from(&request).unwrap();
        let json = survives(&p0728);
        assert_mcp("2026-07-28", "ElicitRequestParams", &json);
        prop_assert!(json.get("elicitationId").is_none());
        let result = ElicitResult::try_from(&response).unwrap();
        let json = survives(&result);
        assert_mcp("2025-11-25", "ElicitResult", &json);
        assert_mcp("2026-07-28", "ElicitResult", &json);
        prop_assert_eq!(ElicitationResponse::from(&result), response);
    }
}
