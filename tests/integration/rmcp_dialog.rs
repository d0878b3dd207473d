//! `elicit::rmcp::Dialog`: one tool body, written with rmcp's `#[tool_router]`/`#[tool]`
//! macros, served to a client on MCP 2025-11-25 (the server pushes
//! `elicitation/create`) and to one on MCP 2026-07-28 (the tool answers with an
//! `InputRequiredResult` and runs again on the retry), with the same questions, the same
//! answers and the same result. rmcp's own client drives both, fulfilling input
//! requests through the same handler; every message is checked against the official
//! schema of its version.
#![cfg(all(feature = "rmcp_3", feature = "url"))]

use std::collections::VecDeque;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use ::rmcp::handler::server::wrapper::Parameters;
use ::rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ElicitRequestParams,
    ElicitResult, ElicitationAction, InputResponses, ProtocolVersion,
};
use ::rmcp::service::{serve_directly, RoleClient, RoleServer, RunningService};
use ::rmcp::{tool, tool_router, ErrorData, ServerHandler};
use elicit::rmcp::input::{RoundKey, Rounds};
use elicit::rmcp::{Dialog, Problems};
use elicit::{Elicit, Elicited};
use serde::Deserialize;
use serde_json::{json, Value};

use crate::protocol_support::assert_mcp;
use crate::protocol_support::rmcp_wire::{
    bounded, in_memory, parse, tool_text, Relay, Side, TestClient, Wire,
};

/// Book a table.
#[derive(Elicit, Debug)]
struct Booking {
    #[elicit(title = "Party size", minimum = 1, maximum = 12)]
    party_size: u8,
    /// How the restaurant reaches you.
    #[elicit(title = "Phone", pattern = "^\\+?[0-9 ]{7,15}$")]
    phone: String,
}

/// Large parties pay a deposit.
#[derive(Elicit, Debug)]
struct Deposit {
    #[elicit(title = "Pay the deposit")]
    pay: bool,
}

/// Which day?
#[derive(Elicit, Debug)]
struct Day {
    #[elicit(format = "date")]
    day: String,
}

#[derive(Deserialize, ::rmcp::schemars::JsonSchema)]
#[schemars(crate = "::rmcp::schemars")]
struct BookArgs {
    restaurant: String,
}

#[derive(Clone)]
struct Restaurant {
    rounds: Rounds,
    /// How many times `connect`'s remembered id was made.
    minted: Arc<AtomicUsize>,
}

fn text(text: impl Into<String>) -> CallToolResult {
    CallToolResult::success(vec![ContentBlock::text(text.into())])
}

#[tool_router(server_handler)]
impl Restaurant {
    /// The tool body of the docs: ask, look at the answer, perhaps ask again.
    #[tool(description = "Book a table")]
    async fn book(
        &self,
        dialog: Dialog,
        Parameters(args): Parameters<BookArgs>,
    ) -> Result<CallToolResponse, ErrorData> {
        dialog
            .run(&self.rounds, async {
                let message = format!("Book a table at {}?", args.restaurant);
                let Elicited::Accepted(booking) = dialog.form::<Booking>(message).await? else {
                    return Ok(text("no booking"));
                };
                if booking.party_size > 8 {
                    let deposit = dialog.form::<Deposit>("A deposit is due.").await?;
                    if !matches!(deposit, Elicited::Accepted(Deposit { pay: true })) {
                        return Ok(text("no booking: no deposit"));
                    }
                }
                Ok(text(format!(
                    "booked {} for {}, phone {}",
                    args.restaurant, booking.party_size, booking.phone
                )))
            })
            .await
    }

    /// A rule of the server's own, checked on the typed answer.
    #[tool(description = "Pick a day")]
    async fn pick_day(&self, dialog: Dialog) -> Result<CallToolResponse, ErrorData> {
        dialog
            .run(&self.rounds, async {
                let future = |day: &Day| match day.day.as_str() > "2026-12-31" {
                    true => Ok(()),
                    false => Err(Problems::new().field("day", "must be in 2027 or later")),
                };
                match dialog.form_checked::<Day>("Which day?", future).await? {
                    Elicited::Accepted(day) => Ok(text(format!("day {}", day.day))),
                    _ => Ok(text("no day")),
                }
            })
            .await
    }

    /// URL mode, with an id made once and carried through the rounds.
    #[tool(description = "Connect an account")]
    async fn connect(&self, dialog: Dialog) -> Result<CallToolResponse, ErrorData> {
        dialog
            .run(&self.rounds, async {
                let id = dialog.remember(|| {
                    let n = self.minted.fetch_add(1, Ordering::SeqCst);
                    format!("c{n}")
                })?;
                let url = format!("https://accounts.example.com/connect?c={id}");
                match dialog.url("Sign in to connect your account", &url).await? {
                    Elicited::Accepted(consent) => {
                        let pushed = consent.elicitation_id().is_some();
                        consent
                            .complete(None)
                            .await
                            .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
                        Ok(text(format!("connected {id} (pushed: {pushed})")))
                    }
                    Elicited::Declined => Ok(text("declined")),
                    Elicited::Cancelled => Ok(text("cancelled")),
                }
            })
            .await
    }

    /// The one call of the version before, on whatever the connection negotiated.
    #[tool(description = "Ask the old way")]
    async fn old_ask(&self, dialog: Dialog) -> Result<CallToolResult, ErrorData> {
        match elicit::rmcp::ask::<Deposit>(&dialog.context().peer, "Pay?").await {
            Ok(answer) => Ok(text(format!("{answer:?}"))),
            Err(error) => Ok(text(error.to_string())),
        }
    }
}

/// A client speaking `version` to its own `Restaurant`, answering each elicitation
/// with the next of `answers`.
struct Setup {
    client: RunningService<RoleClient, TestClient>,
    handler: TestClient,
    wire: Wire,
    minted: Arc<AtomicUsize>,
    version: &'static str,
}

fn setup(version: ProtocolVersion, answers: Vec<Result<ElicitResult, ErrorData>>) -> Setup {
    let answers = Arc::new(Mutex::new(VecDeque::from(answers)));
    let handler = TestClient::new(
        Some(json!({ "form": {}, "url": {} })),
        move |_: &ElicitRequestParams| {
            answers
                .lock()
                .unwrap()
                .pop_front()
                .expect("the test gave fewer answers than the tool asked")
        },
    );
    let minted = Arc::new(AtomicUsize::new(0));
    let server = Restaurant {
        // The test clients are not authenticated: rounds without a user (the binding
        // is tested in `rmcp_rounds`).
        rounds: Rounds::new(RoundKey::from_bytes([7; 32])).anonymous(),
        minted: minted.clone(),
    };
    let (server_io, client_io, wire) = in_memory(Relay::default());
    let mut client_info = ::rmcp::ClientHandler::get_info(&handler);
    client_info.protocol_version = version.clone();
    let mut server_info = server.get_info();
    server_info.protocol_version = version.clone();
    let running = serve_directly::<RoleServer, _, _, _, _>(server, server_io, Some(client_info));
    tokio::spawn(async move { running.waiting().await });
    let client = serve_directly::<RoleClient, _, _, _, _>(
        handler.clone(),
        client_io,
        Some(server_info.into()),
    );
    let version = if version >= ProtocolVersion::V_2026_07_28 {
        "2026-07-28"
    } else {
        "2025-11-25"
    };
    Setup {
        client,
        handler,
        wire,
        minted,
        version,
    }
}

const BOTH: [fn() -> ProtocolVersion; 2] = [
    || ProtocolVersion::V_2025_11_25,
    || ProtocolVersion::V_2026_07_28,
];

fn accept(content: Value) -> Result<ElicitResult, ErrorData> {
    Ok(ElicitResult::new(ElicitationAction::Accept).with_content(content))
}

fn action(action: ElicitationAction) -> Result<ElicitResult, ErrorData> {
    Ok(ElicitResult::new(action))
}

impl Setup {
    async fn call(&self, tool: &str, arguments: Value) -> Result<CallToolResult, ErrorData> {
        let mut request = CallToolRequestParams::new(tool.to_owned());
        if let Value::Object(arguments) = arguments {
            request = request.with_arguments(arguments);
        }
        match bounded(tool, self.client.call_tool(request)).await {
            Ok(result) => Ok(result),
            Err(::rmcp::ServiceError::McpError(error)) => Err(error),
            Err(other) => panic!("{tool} failed in transport: {other}"),
        }
    }

    /// The elicitation params the client was asked, as JSON, in order.
    fn asked(&self) -> Vec<Value> {
        self.handler
            .asked
            .lock()
            .unwrap()
            .iter()
            .map(|params| serde_json::to_value(params).unwrap())
            .collect()
    }

    /// Every message of the exchange checked against the MCP schema of the version:
    /// on 2025-11-25 the pushed requests and their answers; on 2026-07-28 each
    /// `InputRequiredResult`, each retried `tools/call`, and no pushed request at all.
    /// Returns how many were checked.
    fn assert_wire_valid(&self) -> usize {
        if self.version == "2025-11-25" {
            return self.wire.assert_valid();
        }
        let mut checked = 0;
        for (side, line) in self.wire.lines() {
            let message = parse(&line);
            assert_ne!(
                message["method"], "elicitation/create",
                "M6: nothing pushed on 2026-07-28: {line}"
            );
            if side == Side::Server && message["result"]["resultType"] == "input_required" {
                assert_mcp("2026-07-28", "InputRequiredResult", &message["result"]);
                checked += 1;
            }
            if side == Side::Client && message["method"] == "tools/call" {
                assert_mcp("2026-07-28", "CallToolRequest", &message);
                checked += 1;
            }
        }
        checked
    }
}

fn phone_property(asked: &Value) -> &Value {
    &asked["requestedSchema"]["properties"]["phone"]
}

// covers: M6, M7, F3, R5, D13
#[tokio::test]
async fn one_body_asks_again_then_twice_on_both_versions() {
    for version in BOTH {
        let setup = setup(
            version(),
            vec![
                accept(json!({ "party_size": 10, "phone": "call me" })),
                accept(json!({ "party_size": 10, "phone": "+44 20 7946 0000" })),
                accept(json!({ "pay": true })),
            ],
        );
        let result = setup
            .call("book", json!({ "restaurant": "Chez Elicit" }))
            .await
            .unwrap();
        let v = setup.version;
        assert_eq!(
            tool_text(&result),
            "booked Chez Elicit for 10, phone +44 20 7946 0000",
            "{v}"
        );
        let asked = setup.asked();
        assert_eq!(asked.len(), 3, "{v}: asked, asked again, then the deposit");
        // M7: no `pattern` on the wire, said in words beside the field instead.
        let first = phone_property(&asked[0]);
        assert!(first.get("pattern").is_none(), "{v}: {first}");
        assert_eq!(
            first["description"],
            "How the restaurant reaches you. (must match the pattern ^\\+?[0-9 ]{7,15}$)",
            "{v}"
        );
        // Asked again: the problem beside its field, in the message, and what was
        // right offered again as the default.
        let again = &asked[1];
        let description = phone_property(again)["description"].as_str().unwrap();
        assert!(
            description.starts_with("⚠ does not match the pattern"),
            "{v}: {description}"
        );
        assert!(
            again["message"]
                .as_str()
                .unwrap()
                .contains("Some answers need another look:\n- Phone: does not match"),
            "{v}: {again}"
        );
        assert_eq!(
            again["requestedSchema"]["properties"]["party_size"]["default"],
            10
        );
        assert!(phone_property(again).get("default").is_none(), "{v}");
        assert_eq!(asked[2]["message"], "A deposit is due.", "{v}");
        assert!(setup.assert_wire_valid() >= 6, "{v}");
    }
}

// covers: F3, M7
#[tokio::test]
async fn an_answer_still_wrong_after_the_last_attempt_is_invalid_params() {
    for version in BOTH {
        let wrong = || accept(json!({ "party_size": 2, "phone": "call me" }));
        let setup = setup(version(), vec![wrong(), wrong(), wrong()]);
        let error = setup
            .call("book", json!({ "restaurant": "Chez Elicit" }))
            .await
            .expect_err("three wrong answers end the call");
        let v = setup.version;
        assert_eq!(error.code.0, -32602, "{v}: {error:?}");
        assert!(
            error.message.contains("`phone` does not match"),
            "{v}: {}",
            error.message
        );
        assert_eq!(setup.asked().len(), 3, "{v}: the default is 3 attempts");
    }
}

// covers: R5
#[tokio::test]
async fn a_decline_or_cancel_ends_the_body_with_its_answer() {
    for version in BOTH {
        for (answer, said) in [
            (ElicitationAction::Decline, "no booking"),
            (ElicitationAction::Cancel, "no booking"),
        ] {
            let setup = setup(version(), vec![action(answer)]);
            let result = setup
                .call("book", json!({ "restaurant": "Chez Elicit" }))
                .await
                .unwrap();
            assert_eq!(tool_text(&result), said, "{}", setup.version);
            let big = setup_deposit_declined(version()).await;
            assert_eq!(big, "no booking: no deposit");
        }
    }
}

async fn setup_deposit_declined(version: ProtocolVersion) -> String {
    let setup = setup(
        version,
        vec![
            accept(json!({ "party_size": 9, "phone": "0123456789" })),
            action(ElicitationAction::Decline),
        ],
    );
    let result = setup
        .call("book", json!({ "restaurant": "X" }))
        .await
        .unwrap();
    tool_text(&result)
}

// covers: F3
#[tokio::test]
async fn a_check_of_the_servers_own_asks_again_with_its_words() {
    for version in BOTH {
        let setup = setup(
            version(),
            vec![
                accept(json!({ "day": "2026-05-01" })),
                accept(json!({ "day": "2027-05-01" })),
            ],
        );
        let result = setup.call("pick_day", json!({})).await.unwrap();
        let v = setup.version;
        assert_eq!(tool_text(&result), "day 2027-05-01", "{v}");
        let asked = setup.asked();
        assert_eq!(asked.len(), 2, "{v}");
        assert_eq!(
            asked[1]["requestedSchema"]["properties"]["day"]["description"],
            "⚠ must be in 2027 or later.",
            "{v}"
        );
        // An answer that is never good enough ends in `Unaccepted`'s words.
        let again = || accept(json!({ "day": "2026-05-01" }));
        let setup = crate::rmcp_dialog::setup(version(), vec![again(), again(), again()]);
        let error = setup.call("pick_day", json!({})).await.unwrap_err();
        assert_eq!(error.code.0, -32602);
        assert!(
            error.message.contains("`day`: must be in 2027 or later"),
            "{}",
            error.message
        );
    }
}

// covers: U1, U2, U5, M3, M6
#[tokio::test]
async fn url_mode_on_both_versions_with_a_value_made_once() {
    for version in BOTH {
        let setup = setup(version(), vec![action(ElicitationAction::Accept)]);
        let result = setup.call("connect", json!({})).await.unwrap();
        let v = setup.version;
        let asked = setup.asked();
        assert_eq!(asked.len(), 1, "{v}");
        assert_eq!(asked[0]["mode"], "url", "{v}");
        assert_eq!(
            asked[0]["url"], "https://accounts.example.com/connect?c=c0",
            "{v}"
        );
        // The body ran twice on 2026-07-28; the id was made once and carried sealed.
        assert_eq!(setup.minted.load(Ordering::SeqCst), 1, "{v}");
        if v == "2025-11-25" {
            assert_eq!(tool_text(&result), "connected c0 (pushed: true)");
            let id = asked[0]["elicitationId"].as_str().unwrap().to_owned();
            crate::protocol_support::rmcp_wire::eventually("the completion", || {
                setup.handler.completed() == vec![id.clone()]
            })
            .await;
        } else {
            // M6: no `elicitationId` (rmcp's model writes an empty one, which reads as
            // none), no completion notification.
            assert_eq!(tool_text(&result), "connected c0 (pushed: false)");
            let no_id = |request: &Value| {
                request
                    .get("elicitationId")
                    .is_none_or(|id| id.as_str() == Some(""))
            };
            assert!(no_id(&asked[0]), "{}", asked[0]);
            let sent: Vec<Value> = setup
                .wire
                .lines()
                .iter()
                .map(|(_, line)| parse(line))
                .filter(|m| m["result"]["resultType"] == "input_required")
                .collect();
            let request = &sent[0]["result"]["inputRequests"]["ask-1"]["params"];
            assert_eq!(request["mode"], "url", "{request}");
            assert!(no_id(request), "{request}");
            assert!(setup.wire.completions().is_empty());
        }
        assert!(setup.assert_wire_valid() >= 2, "{v}");
    }
}

// covers: M6, C7
#[tokio::test]
async fn the_old_call_on_2026_says_what_the_version_forbids() {
    let setup = setup(ProtocolVersion::V_2026_07_28, vec![]);
    let result = setup.call("old_ask", json!({})).await.unwrap();
    let said = tool_text(&result);
    assert!(
        said.starts_with("this connection negotiated MCP 2026-07-28, in which a server cannot send `elicitation/create`"),
        "{said}"
    );
    assert!(!said.contains("did not declare"), "{said}");
    assert!(setup.asked().is_empty());
}

// covers: M6
#[tokio::test]
async fn a_state_is_bound_to_the_arguments_of_the_call_that_got_it() {
    let setup = setup(ProtocolVersion::V_2026_07_28, vec![]);
    let first = CallToolRequestParams::new("book")
        .with_arguments(json!({ "restaurant": "A" }).as_object().unwrap().clone());
    let state = match bounded("book", setup.client.call_tool_once(first))
        .await
        .unwrap()
    {
        CallToolResponse::InputRequired(result) => result.request_state.unwrap(),
        other => panic!("expected input required, got {other:?}"),
    };
    // The state of a booking at A, with an answer, replayed onto a booking at B.
    let mut replay = CallToolRequestParams::new("book")
        .with_arguments(json!({ "restaurant": "B" }).as_object().unwrap().clone());
    replay.request_state = Some(state);
    replay.input_responses = Some(InputResponses::from([(
        "ask-1".to_owned(),
        json!({ "action": "accept", "content": { "party_size": 2, "phone": "0123456789" } }),
    )]));
    let error = bounded("replay", setup.client.call_tool_once(replay))
        .await
        .unwrap_err();
    let ::rmcp::ServiceError::McpError(error) = error else {
        panic!("{error}")
    };
    assert_eq!(error.code.0, -32602, "{error:?}");
}
