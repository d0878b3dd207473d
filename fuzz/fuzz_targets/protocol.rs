//! Every protocol message parser, ACP and both MCP versions, on arbitrary JSON.
//! Invariant: a message that parses writes back JSON that parses to the same message
//! and writes back identically.
#![no_main]

use elicit::protocol::mcp::{self, v2025_11_25, v2026_07_28};
use elicit::protocol::{
    CompleteElicitation, CreateElicitation, ElicitationCapabilities, ElicitationResponse,
};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

/// Parse, write, parse again: the same value, the same JSON and the same member order.
/// With `lossy` (an MCP message whose input had a `pattern`, which the MCP form leaves
/// out, M7) the value may lose it on the first trip; the written JSON must still be a
/// fixed point.
macro_rules! round_trip {
    ($json:expr, $parse:expr) => {
        round_trip!($json, $parse, false)
    };
    ($json:expr, $parse:expr, $lossy:expr) => {
        if let Ok(first) = $parse($json) {
            let written = first.to_json();
            let second = $parse(&written).expect("what we write parses");
            if !$lossy {
                assert_eq!(second, first, "round trip changed the message");
            }
            assert_eq!(second.to_json(), written, "round trip changed the JSON");
            assert_eq!(
                serde_json::to_string(&second.to_json()).unwrap(),
                serde_json::to_string(&written).unwrap(),
                "round trip changed the member order"
            );
        }
    };
}

/// Whether any object in `json`, at any depth, has the member `key`.
fn has_key(json: &Value, key: &str) -> bool {
    match json {
        Value::Object(m) => m.contains_key(key) || m.values().any(|v| has_key(v, key)),
        Value::Array(a) => a.iter().any(|v| has_key(v, key)),
        _ => false,
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(json) = serde_json::from_slice::<Value>(data) else {
        return;
    };
    // ACP.
    round_trip!(&json, CreateElicitation::from_json);
    round_trip!(&json, CreateElicitation::from_json_lenient);
    round_trip!(&json, ElicitationResponse::from_json);
    round_trip!(&json, CompleteElicitation::from_json);
    let caps = ElicitationCapabilities::from_json(Some(&json));
    assert_eq!(
        ElicitationCapabilities::from_json(caps.to_json().as_ref()),
        caps
    );
    // MCP (M1-M7).
    let has_pattern = has_key(&json, "pattern");
    let mcp_caps = mcp::McpElicitationCapabilities::from_json(Some(&json));
    assert_eq!(
        mcp::McpElicitationCapabilities::from_json(mcp_caps.to_json().as_ref()),
        mcp_caps
    );
    round_trip!(&json, mcp::ElicitResult::from_json, has_pattern);
    round_trip!(
        &json,
        v2025_11_25::ElicitRequestParams::from_json,
        has_pattern
    );
    round_trip!(&json, v2025_11_25::ElicitRequest::from_json, has_pattern);
    round_trip!(
        &json,
        v2026_07_28::ElicitRequestParams::from_json,
        has_pattern
    );
    round_trip!(&json, v2026_07_28::ElicitRequest::from_json, has_pattern);
    round_trip!(&json, v2026_07_28::InputRequests::from_json, has_pattern);
});
