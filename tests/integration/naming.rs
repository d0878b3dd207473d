//! One naming scheme (issue 29): the renamed items still answer to their old names, as
//! the very same types; both SDK integrations build their `ElicitClient` the same way;
//! messages cite rules with words; and nothing in the repository imports an
//! integration module under the name of the SDK crate it integrates.

use std::any::TypeId;
use std::path::{Path, PathBuf};

use elicit::agent::ConnectionId;
use elicit::{rules, ElicitationCapabilities, Elicitor, RefusedError, RequestedSchema, Scope};
use serde_json::json;

/// The old names are deprecated aliases of the new ones: the same types, so code
/// written against either compiles and mixes with the other.
#[test]
#[allow(deprecated)]
fn old_names_still_resolve_and_are_the_same_types() {
    assert_eq!(
        TypeId::of::<elicit::ElicitError>(),
        TypeId::of::<elicit::RefusedError>()
    );
    assert_eq!(
        TypeId::of::<elicit::agent::ElicitError>(),
        TypeId::of::<elicit::agent::RefusedError>()
    );
    assert_eq!(
        TypeId::of::<elicit::client::Responder>(),
        TypeId::of::<elicit::client::ClientEngine>()
    );
    assert_eq!(
        TypeId::of::<elicit::client::Notice>(),
        TypeId::of::<elicit::client::AskerNotice>()
    );
    #[cfg(all(feature = "rmcp_3", feature = "url"))]
    {
        assert_eq!(
            TypeId::of::<elicit::rmcp::Consent>(),
            TypeId::of::<elicit::rmcp::DialogConsent>()
        );
        assert_eq!(
            TypeId::of::<elicit::rmcp::dialog::Consent>(),
            TypeId::of::<elicit::rmcp::DialogConsent>()
        );
    }
    #[cfg(feature = "agent-client-protocol")]
    {
        use elicit::agent_client_protocol::client::{ElicitClient, ElicitHandler};
        use elicit::client::ScriptedAsker;
        assert_eq!(
            TypeId::of::<ElicitHandler<ScriptedAsker>>(),
            TypeId::of::<ElicitClient<ScriptedAsker>>()
        );
    }

    // A value made under the new name is matched under the old one, variants included.
    let refused: RefusedError = refused_form();
    let old: elicit::ElicitError = refused;
    assert!(matches!(
        old,
        elicit::ElicitError::ModeNotSupported(elicit::Mode::Form)
    ));
    let notice = elicit::client::AskerNotice::TimedOut {
        agent: "deploy-bot".to_owned(),
    };
    assert!(matches!(notice, elicit::client::Notice::TimedOut { .. }));
}

/// A form asked of a client that declared URL mode only: refused before sending.
fn refused_form() -> RefusedError {
    let caps = ElicitationCapabilities::from_json(Some(&json!({ "url": {} })));
    let schema = RequestedSchema::from_json(&json!({
        "type": "object",
        "properties": { "passes": { "type": "integer" } }
    }))
    .expect("a valid schema");
    Elicitor::new(caps, ConnectionId::new())
        .form_schema(Scope::session("s1"), "How many passes?", &schema)
        .expect_err("the client declared no form mode")
}

/// rmcp's `ElicitClient`: `new(asker)`, then `with_policy(policy)`; `policy()` reads it.
#[cfg(feature = "rmcp_3")]
#[test]
fn the_rmcp_elicit_client_is_built_from_an_asker_then_a_policy() {
    use elicit::client::{ClientPolicy, ScriptedAsker};
    use elicit::rmcp::client::ElicitClient;
    use std::time::Duration;

    let fresh = ElicitClient::new(ScriptedAsker::accept_defaults());
    assert_eq!(fresh.policy(), &ClientPolicy::new());
    let policy = ClientPolicy::new().with_deadline(Duration::from_secs(90));
    let client = ElicitClient::new(ScriptedAsker::accept_defaults()).with_policy(policy.clone());
    assert_eq!(client.policy(), &policy);
    assert_eq!(
        client.modes(),
        &ElicitationCapabilities::from_json(Some(&json!({ "form": {}, "url": {} })))
    );
}

/// The ACP `ElicitClient` has the same shape, and is the SDK handler itself: what was
/// `handler()` is a clone sharing the connection's state.
#[cfg(feature = "agent-client-protocol")]
#[test]
fn the_acp_elicit_client_is_built_the_same_way_and_is_the_handler() {
    use agent_client_protocol::v1::schema::{Implementation, InitializeResponse};
    use agent_client_protocol::{Agent, HandleDispatchFrom};
    use elicit::agent_client_protocol::client::ElicitClient;
    use elicit::client::{ClientPolicy, ScriptedAsker};
    use std::time::Duration;

    fn installable<H: HandleDispatchFrom<Agent>>(_: &H) {}

    let fresh = ElicitClient::new(ScriptedAsker::accept_defaults());
    assert_eq!(fresh.policy(), &ClientPolicy::new());
    let policy = ClientPolicy::new().with_deadline(Duration::from_secs(90));
    let client = ElicitClient::new(ScriptedAsker::accept_defaults()).with_policy(policy.clone());
    assert_eq!(client.policy(), &policy);
    installable(&client);

    #[allow(deprecated)]
    let handler = client.handler();
    installable(&handler);
    assert_eq!(handler.policy(), &policy);
    // One connection's state: the agent learnt through one is known to the other.
    assert!(handler.agent().is_none());
    client.agent_initialized(
        &InitializeResponse::new(agent_client_protocol::schema::ProtocolVersion::V1)
            .agent_info(Implementation::new("plan-bot", "1.0.0")),
    );
    let agent = handler
        .agent()
        .expect("the clone shares the connection's state");
    assert_eq!(agent.name(), "plan-bot");
}

/// The policy belongs to the state the clones share, set once: setting it on a client
/// already cloned is a mistake said at once, not a policy silently half applied.
#[cfg(feature = "agent-client-protocol")]
#[test]
#[should_panic(expected = "set the policy before cloning it")]
fn the_acp_elicit_client_refuses_a_policy_once_cloned() {
    use elicit::agent_client_protocol::client::ElicitClient;
    use elicit::client::{ClientPolicy, ScriptedAsker};

    let client = ElicitClient::new(ScriptedAsker::accept_defaults());
    let _installed = client.clone();
    let _ = client.with_policy(ClientPolicy::never_ask());
}

// covers: C7, F5, F6, F7
/// Messages cite a rule with its words, not a bare id.
#[test]
fn rule_citations_in_messages_come_with_words() {
    let message = refused_form().to_string();
    assert!(
        message.ends_with("; see C7 (an agent asks only in a mode the client declared)"),
        "{message}"
    );
    assert!(message.contains(&rules::cite("C7")), "{message}");

    let caps = ElicitationCapabilities::from_json(Some(&json!({ "form": {} })));
    let elicitor = Elicitor::new(caps, ConnectionId::new());
    let secret = RequestedSchema::from_json(&json!({
        "type": "object",
        "properties": { "api_key": { "type": "string", "title": "Your API key" } }
    }))
    .expect("a valid schema");
    let message = elicitor
        .form_schema(Scope::session("s1"), "Connect", &secret)
        .expect_err("a secret in a form")
        .to_string();
    assert!(
        message.starts_with("form mode must not ask for secrets"),
        "{message}"
    );
    assert!(
        message.ends_with(
            "; see F5 (form mode never asks for a secret) and F6 (secrets go through URL mode)"
        ),
        "{message}"
    );

    let link = RequestedSchema::from_json(&json!({
        "type": "object",
        "properties": { "name": { "type": "string" } }
    }))
    .expect("a valid schema");
    let message = elicitor
        .form_schema(
            Scope::session("s1"),
            "Read https://evil.example/terms first",
            &link,
        )
        .expect_err("a link in a form")
        .to_string();
    assert!(
        message.ends_with(&format!("; {}", rules::cite("F7"))),
        "{message}"
    );

    // Every rule has words, and a citation of each reads "see ID (words)".
    assert!(rules::all().len() >= 60);
    for rule in rules::all() {
        assert_eq!(
            rules::cite(rule.id()),
            format!("see {} ({})", rule.id(), rule.title())
        );
    }
}

/// No message in the sources cites a bare rule id ("(F5)") any more, and every
/// citation written out by hand (a `#[must_use]` text, which must be a literal) has
/// the rule's exact words.
#[test]
fn no_message_cites_a_bare_rule_id() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let bare = regex::Regex::new(r#""[^"]*\(([CEFUSRKVMD][0-9]{1,2})\)"#).unwrap();
    let written = regex::Regex::new(r"see ([CEFUSRKVMD][0-9]{1,2}) \(([^)]*)\)").unwrap();
    let mut bad = Vec::new();
    let mut checked = 0;
    for dir in ["elicit-core/src", "elicit-derive/src", "src", "examples"] {
        for file in rust_files(&root.join(dir)) {
            let text = std::fs::read_to_string(&file).unwrap();
            for (n, line) in text.lines().enumerate() {
                let code = line.trim_start();
                if code.starts_with("//") {
                    continue;
                }
                if bare.is_match(line) {
                    bad.push(format!("{}:{}: {}", file.display(), n + 1, code));
                }
                for cited in written.captures_iter(line) {
                    checked += 1;
                    if rules::title(&cited[1]) != Some(&cited[2]) {
                        bad.push(format!(
                            "{}:{}: `{}` is not the title of {}",
                            file.display(),
                            n + 1,
                            &cited[2],
                            &cited[1]
                        ));
                    }
                }
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    assert!(checked >= 2, "the `#[must_use]` citations were not found");
}

/// `elicit::rmcp`, `elicit::axum` and `elicit::agent_client_protocol` keep the names
/// of what they integrate; imported as such they would hide the SDK crate in that
/// file. No example, test, doc comment or document of the repository does that.
#[test]
fn nothing_imports_an_integration_module_over_its_sdk_crate() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    // `use elicit::rmcp;`, `use elicit::rmcp as rmcp;`, `use elicit::{rmcp, …};`, in
    // code or in a doc comment's example (`pub use` is the facade's own re-export).
    let shadowing = regex::Regex::new(
        r"^\s*(?://[/!]\s*)?use\s+(?:::)?elicit(?:_core)?::(?:(rmcp|axum|agent_client_protocol)\s*(?:as\s+(rmcp|axum|agent_client_protocol)\s*)?;|\{[^}]*\b(rmcp|axum|agent_client_protocol)\s*[,}])",
    )
    .unwrap();
    let mut files = Vec::new();
    for dir in [
        "src",
        "elicit-core/src",
        "examples",
        "tests",
        "benches",
        "fuzz",
    ] {
        files.extend(rust_files(&root.join(dir)));
    }
    for doc in ["README.md", "CHANGELOG.md", "fuzz/README.md"] {
        files.push(root.join(doc));
    }
    let mut found = Vec::new();
    for file in &files {
        let Ok(text) = std::fs::read_to_string(file) else {
            continue;
        };
        for (n, line) in text.lines().enumerate() {
            if shadowing.is_match(line) {
                found.push(format!("{}:{}: {}", file.display(), n + 1, line.trim()));
            }
        }
    }
    assert!(files.len() > 50, "the sources were not found");
    assert!(found.is_empty(), "{}", found.join("\n"));
    // The pattern does catch what it is for.
    assert!(shadowing.is_match("use elicit::rmcp;"));
    assert!(shadowing.is_match("//! use elicit::{agent_client_protocol, Elicit};"));
    assert!(!shadowing.is_match("use elicit::rmcp as elicit_rmcp;"));
    assert!(!shadowing.is_match("use elicit::rmcp::client::ElicitClient;"));
}

/// The guide's way to import an integration module beside its SDK compiles, and
/// both names then reach what they should.
#[cfg(feature = "rmcp_3")]
#[test]
fn an_integration_module_imported_under_its_own_name_leaves_the_sdk_visible() {
    use elicit::client::ScriptedAsker;
    use elicit::rmcp as elicit_rmcp;
    use rmcp::model::ProtocolVersion;

    let client = elicit_rmcp::client::ElicitClient::new(ScriptedAsker::accept_defaults())
        .with_protocol_version(ProtocolVersion::V_2025_11_25);
    assert_eq!(
        client.protocol_version(),
        Some(&ProtocolVersion::V_2025_11_25)
    );
}

fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return out;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            if path.file_name().is_some_and(|n| n == "target") {
                continue;
            }
            out.extend(rust_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    out
}
