//! Reading an MCP server's `requestedSchema` before it is asked over ACP.

use serde_json::Value;

use crate::schema::{RequestedSchema, SchemaError, SchemaErrorKind};

/// Reads an MCP server's `requestedSchema` for the bridge: the strict parse, except
/// that MCP's legacy `enum` + `enumNames` ([M5](crate::rules#m5)) reads as a titled
/// select, which the bridge sends to ACP as `oneOf`.
///
/// Every other problem refuses the schema, with each problem's JSON pointer: the
/// bridge answers the MCP server with it and never forwards the schema.
///
/// ```
/// use elicit::bridge::read_mcp_schema;
/// use serde_json::json;
///
/// let schema = read_mcp_schema(&json!({
///     "type": "object",
///     "properties": { "size": {
///         "type": "string", "enum": ["s", "l"], "enumNames": ["Small", "Large"]
///     } }
/// }))
/// .unwrap();
/// assert_eq!(
///     schema.to_json()["properties"]["size"]["oneOf"],
///     json!([{ "const": "s", "title": "Small" }, { "const": "l", "title": "Large" }])
/// );
/// let refused = read_mcp_schema(&json!({
///     "type": "object",
///     "properties": { "n": { "type": "integer", "minimum": 5, "maximum": 1 } }
/// }));
/// assert_eq!(refused.unwrap_err().pointer(), "/properties/n/minimum");
/// ```
pub fn read_mcp_schema(json: &Value) -> Result<RequestedSchema, SchemaError> {
    match RequestedSchema::from_json(json) {
        Ok(schema) => Ok(schema),
        Err(error) => {
            let only_legacy_names = error
                .iter()
                .all(|(_, kind)| matches!(kind, SchemaErrorKind::LegacyEnumNames));
            if !only_legacy_names {
                return Err(error);
            }
            // M5: the lenient parse pairs the names with the values. The strict parse
            // found nothing else wrong; what the lenient parse read is checked strictly
            // again (as `oneOf`), in case a problem sat behind the names it stopped at.
            let schema = RequestedSchema::from_json_lenient(json)?;
            schema.check()?;
            Ok(schema)
        }
    }
}
