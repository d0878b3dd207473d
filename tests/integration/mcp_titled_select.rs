//! MCP's legacy titled select (`enum` + `enumNames`, M5) on the wire: what elicit emits
//! for a client of 2025-06-18 (the version's only titled form) and for a property a
//! server names explicitly validates against that version's MCP `schema.json`, and the
//! ACP form of the same request never carries it.

use elicit::protocol::mcp::{v2025_11_25 as v1125, FormParams, McpSchema, TitledSelect};
use elicit::protocol::{CreateElicitation, RequestId, Scope};
use elicit::RequestedSchema;
use serde_json::{json, Value};

use crate::protocol_support::{assert_acp, assert_mcp};

/// A form of every select kind (2025-11-25 has them all).
fn selects() -> RequestedSchema {
    RequestedSchema::from_json(&json!({ "type": "object", "properties": {
        "untitledSingle": { "type": "string", "enum": ["option1", "option2"] },
        "titledSingle": { "type": "string", "title": "Titled", "default": "value2", "oneOf": [
            { "const": "value1", "title": "First Option", "description": "The first" },
            { "const": "value2", "title": "Second Option" } ] },
        "legacyEnum": { "type": "string", "oneOf": [
            { "const": "opt1", "title": "Option One" }, { "const": "opt2", "title": "Option Two" } ] },
        "untitledMulti": { "type": "array", "items": { "type": "string", "enum": ["a", "b"] } },
        "titledMulti": { "type": "array", "items": { "anyOf": [
            { "const": "x", "title": "X" } ] } } },
        "required": ["legacyEnum"] }))
    .expect("a valid schema")
}

/// The `elicitation/create` request with these params, as a JSON-RPC request.
fn request(params: v1125::ElicitRequestParams) -> Value {
    v1125::ElicitRequest {
        id: RequestId::number(7),
        params,
    }
    .to_json()
}

/// Validates against `definitions/<def>` of MCP 2025-06-18's schema.json (draft-07,
/// `definitions` where later versions have `$defs`); `false` when the oracles are
/// missing (then `load_json` has said why, or failed under `CI`).
fn assert_mcp_2025_06_18(def: &str, json: &Value) -> bool {
    let Some(root) = crate::common::load_json("mcp-schema/2025-06-18/schema.json") else {
        return false;
    };
    assert!(
        root["definitions"].get(def).is_some(),
        "2025-06-18 has no {def}"
    );
    let wrapped = json!({
        "$schema": root["$schema"],
        "definitions": root["definitions"],
        "$ref": format!("#/definitions/{def}"),
    });
    let validator = jsonschema::options()
        .should_validate_formats(true)
        .build(&wrapped)
        .expect("the 2025-06-18 schema compiles");
    let errors: Vec<String> = validator.iter_errors(json).map(|e| e.to_string()).collect();
    assert!(
        errors.is_empty(),
        "not a valid 2025-06-18 {def}: {errors:?}\n{json:#}"
    );
    true
}

// covers: M5, M1
#[test]
fn a_named_legacy_property_validates_against_mcp_2025_11_25() {
    let form = FormParams::new("Choose", McpSchema::new(selects()))
        .with_legacy_titled("legacyEnum")
        .unwrap();
    let params = v1125::ElicitRequestParams::Form(form);
    let json = request(params);
    let properties = &json["params"]["requestedSchema"]["properties"];
    assert_eq!(
        properties["legacyEnum"],
        json!({ "type": "string", "enum": ["opt1", "opt2"], "enumNames": ["Option One", "Option Two"] })
    );
    assert!(properties["titledSingle"].get("oneOf").is_some());
    assert_mcp("2025-11-25", "ElicitRequest", &json);
    assert_mcp(
        "2025-11-25",
        "LegacyTitledEnumSchema",
        &properties["legacyEnum"],
    );
    // Every titled single-select in the legacy form is still valid 2025-11-25.
    let all = v1125::ElicitRequestParams::Form(
        FormParams::new("Choose", McpSchema::new(selects()))
            .with_titled_select(TitledSelect::LegacyEnumNames),
    );
    let json = request(all);
    assert_mcp("2025-11-25", "ElicitRequest", &json);
    assert_mcp(
        "2025-11-25",
        "LegacyTitledEnumSchema",
        &json["params"]["requestedSchema"]["properties"]["titledSingle"],
    );
}

// covers: M5
#[test]
fn a_2025_06_18_client_gets_enum_names_valid_in_its_schema() {
    // 2025-06-18 has no multi-select: the form of that version is single values only.
    let schema = RequestedSchema::from_json(&json!({ "type": "object", "properties": {
        "size": { "type": "string", "title": "Size", "oneOf": [
            { "const": "s", "title": "Small" }, { "const": "l", "title": "Large" } ] },
        "plain": { "type": "string", "enum": ["a", "b"] },
        "name": { "type": "string", "minLength": 1 } },
        "required": ["size"] }))
    .unwrap();
    let acp = CreateElicitation::form(Scope::request(1), "Pick a size", schema);
    let params = v1125::ElicitRequestParams::try_from(&acp)
        .unwrap()
        .with_titled_select(TitledSelect::for_protocol_version("2025-06-18"));
    let json = request(params);
    assert_eq!(
        json["params"]["requestedSchema"]["properties"]["size"],
        json!({ "type": "string", "title": "Size", "enum": ["s", "l"], "enumNames": ["Small", "Large"] })
    );
    assert_mcp_2025_06_18("ElicitRequest", &json);
    // The same request for a 2025-11-25 client keeps `oneOf`.
    let newer = v1125::ElicitRequestParams::try_from(&acp)
        .unwrap()
        .with_titled_select(TitledSelect::for_protocol_version("2025-11-25"));
    let json = request(newer);
    assert!(json["params"]["requestedSchema"]["properties"]["size"]
        .get("oneOf")
        .is_some());
    assert_mcp("2025-11-25", "ElicitRequest", &json);
    // M5: the ACP request itself has no `enumNames`, and is valid ACP.
    let acp_json = acp.to_json();
    assert!(!acp_json.to_string().contains("enumNames"));
    assert_acp("CreateElicitationRequest", &acp_json);
}

/// Through rmcp: the titled select a `PeerElicitor` sends follows the protocol version
/// the client negotiated in `initialize`.
#[cfg(feature = "rmcp_3")]
mod negotiated {
    use ::rmcp::model::{
        ClientCapabilities, ClientConfig, ElicitRequestParams, ElicitResult, Implementation,
        InitializeRequestParams, ProtocolVersion, ServerCapabilities, ServerConfig,
    };
    use ::rmcp::service::{RequestContext, RoleClient, RoleServer, RunningService};
    use ::rmcp::{ClientHandler, ErrorData, ServerHandler, ServiceExt};
    use elicit::protocol::mcp::TitledSelect;
    use elicit::rmcp::PeerElicitor;
    use elicit::{Elicit, Elicited};
    use serde_json::{json, Value};

    use super::assert_mcp_2025_06_18;
    use crate::protocol_support::assert_mcp;
    use crate::protocol_support::rmcp_wire::{accept, bounded, in_memory, parse, Relay, Wire};

    #[derive(Elicit, Debug, PartialEq)]
    struct Pick {
        #[elicit(title = "Size")]
        size: Size,
    }

    #[derive(Elicit, Debug, Clone, Copy, PartialEq)]
    #[elicit(rename_all = "lowercase")]
    enum Size {
        #[elicit(title = "Small")]
        Small,
        #[elicit(title = "Large")]
        Large,
    }

    #[derive(Clone)]
    struct Server;

    impl ServerHandler for Server {
        fn get_info(&self) -> ServerConfig {
            ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
        }
    }

    /// A client of `version` that declares form mode and picks "large".
    #[derive(Clone)]
    struct Client(ProtocolVersion);

    impl ClientHandler for Client {
        async fn create_elicitation(
            &self,
            _request: ElicitRequestParams,
            _context: RequestContext<RoleClient>,
        ) -> Result<ElicitResult, ErrorData> {
            accept(json!({ "size": "large" }))
        }

        fn get_info(&self) -> ClientConfig {
            let capabilities: ClientCapabilities =
                serde_json::from_value(json!({ "elicitation": {} })).unwrap();
            let mut info = InitializeRequestParams::new(
                capabilities,
                Implementation::new("elicit-tests", "1"),
            );
            info.protocol_version = self.0.clone();
            info
        }
    }

    /// Connects, asks for a [`Pick`] and returns the `elicitation/create` as sent.
    async fn ask_as(version: ProtocolVersion) -> (TitledSelect, Value) {
        let (server_io, client_io, wire): (_, _, Wire) = in_memory(Relay::default());
        let server = tokio::spawn(Server.serve(server_io));
        let client: RunningService<RoleClient, Client> =
            bounded("initialize", Client(version).serve(client_io))
                .await
                .expect("the client initializes");
        let server: RunningService<RoleServer, Server> = bounded("server", server)
            .await
            .unwrap()
            .expect("the server initializes");
        let elicitor = PeerElicitor::new(server.peer());
        let answer = bounded("ask", elicitor.ask::<Pick>("Which size?")).await;
        assert_eq!(
            answer.unwrap(),
            Elicited::Accepted(Pick { size: Size::Large })
        );
        let creates = wire.creates();
        assert_eq!(creates.len(), 1, "{creates:?}");
        let _ = client.cancel().await;
        (elicitor.titled_select(), parse(&creates[0]))
    }

    // covers: M5, F3
    #[tokio::test]
    async fn a_2025_06_18_client_gets_enum_names_and_a_2025_11_25_client_one_of() {
        let (titled, old) = ask_as(ProtocolVersion::V_2025_06_18).await;
        assert_eq!(titled, TitledSelect::LegacyEnumNames);
        assert_eq!(
            old["params"]["requestedSchema"]["properties"]["size"],
            json!({ "type": "string", "title": "Size", "enum": ["small", "large"],
                    "enumNames": ["Small", "Large"] })
        );
        assert_mcp_2025_06_18("ElicitRequest", &old);

        let (titled, new) = ask_as(ProtocolVersion::V_2025_11_25).await;
        assert_eq!(titled, TitledSelect::OneOf);
        let size = &new["params"]["requestedSchema"]["properties"]["size"];
        assert!(size.get("enumNames").is_none(), "{size}");
        assert_eq!(
            size["oneOf"][1],
            json!({ "const": "large", "title": "Large" })
        );
        assert_mcp("2025-11-25", "ElicitRequest", &new);
    }
}
