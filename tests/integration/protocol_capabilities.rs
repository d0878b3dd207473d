//! The `elicitation` client capability: the ACP reading (C1–C6) as a table, what we
//! write back, the MCP reading (M2) and the conversions between the two.

use crate::common;
use crate::protocol_support;

use elicit::protocol::mcp::McpElicitationCapabilities;
use elicit::protocol::{ElicitationCapabilities, Mode, ModeCapability};
use protocol_support::{assert_acp, assert_mcp};
use serde_json::{json, Map, Value};

/// (input of the `elicitation` member, present?, form?, url?)
fn acp_table() -> Vec<(Option<Value>, bool, bool, bool)> {
    vec![
        // C2: omitted or null: no elicitation at all.
        (None, false, false, false),
        (Some(json!(null)), false, false, false),
        // C4: present, no mode.
        (Some(json!({})), true, false, false),
        (
            Some(json!({ "form": null, "url": null })),
            true,
            false,
            false,
        ),
        (Some(json!({ "form": null })), true, false, false),
        (Some(json!({ "_meta": { "x": 1 } })), true, false, false),
        // C3: a mode only when its member is present and not null.
        (Some(json!({ "form": {} })), true, true, false),
        (Some(json!({ "url": {} })), true, false, true),
        (Some(json!({ "form": {}, "url": {} })), true, true, true),
        (Some(json!({ "form": {}, "url": null })), true, true, false),
        (
            Some(json!({ "form": { "_meta": { "a": [1] } } })),
            true,
            true,
            false,
        ),
        // C6: a malformed member reads as absent instead of failing the message.
        (Some(json!({ "form": 5 })), true, false, false),
        (Some(json!({ "form": "yes", "url": {} })), true, false, true),
        (Some(json!({ "form": [], "url": true })), true, false, false),
        (Some(json!({ "form": { "_meta": 5 } })), true, true, false),
        (
            Some(json!({ "_meta": "nope", "url": {} })),
            true,
            false,
            true,
        ),
        // C6 at the member itself (the schema marks `elicitation` default-on-error).
        (Some(json!(5)), false, false, false),
        (Some(json!("form")), false, false, false),
        (Some(json!([{ "form": {} }])), false, false, false),
    ]
}

// covers: C2, C3, C4, C6
#[test]
fn acp_capability_table() {
    for (input, present, form, url) in acp_table() {
        let caps = ElicitationCapabilities::from_json(input.as_ref());
        assert_eq!(caps.is_present(), present, "present for {input:?}");
        assert_eq!(caps.supports(Mode::Form), form, "form for {input:?}");
        assert_eq!(caps.supports(Mode::Url), url, "url for {input:?}");
        let modes: Vec<Mode> = caps.modes().collect();
        let expected: Vec<Mode> = [(form, Mode::Form), (url, Mode::Url)]
            .into_iter()
            .filter_map(|(on, m)| on.then_some(m))
            .collect();
        assert_eq!(modes, expected);
        // serde reads the same.
        if let Some(input) = &input {
            let via_serde: ElicitationCapabilities = serde_json::from_value(input.clone()).unwrap();
            assert_eq!(via_serde, caps);
        }
    }
}

// covers: C2, C4, C5
#[test]
fn no_capability_differs_from_capability_without_modes() {
    let none = ElicitationCapabilities::from_json(None);
    let empty = ElicitationCapabilities::from_json(Some(&json!({})));
    assert_ne!(none, empty);
    assert_eq!(none.to_json(), None);
    assert_eq!(empty.to_json(), Some(json!({})));
    assert_eq!(none, ElicitationCapabilities::absent());
    assert_eq!(none, ElicitationCapabilities::default());
    assert_eq!(empty, ElicitationCapabilities::new());
    // serde: an absent capability writes `null`, which reads back as absent (C2).
    assert_eq!(serde_json::to_value(&none).unwrap(), Value::Null);
    assert_eq!(
        serde_json::from_value::<ElicitationCapabilities>(Value::Null).unwrap(),
        none
    );
}

// covers: C3, E7
#[test]
fn meta_is_kept_on_the_capability_and_each_mode() {
    let input = json!({
        "form": { "_meta": { "f": 1 } },
        "url": { "_meta": { "u": [true] } },
        "_meta": { "top": "x" }
    });
    let caps = ElicitationCapabilities::from_json(Some(&input));
    assert_eq!(caps.meta().unwrap()["top"], "x");
    assert_eq!(caps.mode(Mode::Form).unwrap().meta().unwrap()["f"], 1);
    assert_eq!(
        caps.mode(Mode::Url).unwrap().meta().unwrap()["u"],
        json!([true])
    );
    assert_eq!(caps.to_json(), Some(input.clone()));
    assert_acp("ElicitationCapabilities", &input);
}

// covers: C1, C4, C5, C6
#[test]
fn what_we_write_never_uses_empty_object_for_form() {
    for (input, present, form, url) in acp_table() {
        let caps = ElicitationCapabilities::from_json(input.as_ref());
        let Some(written) = caps.to_json() else {
            assert!(!present);
            continue;
        };
        // A declared mode is its own member; `{}` only ever means "no mode" (C4).
        assert_eq!(written.get("form").is_some(), form, "{written}");
        assert_eq!(written.get("url").is_some(), url, "{written}");
        assert!(!written.get("form").is_some_and(Value::is_null));
        // Reading it back gives the same capability (malformed members normalized away).
        assert_eq!(ElicitationCapabilities::from_json(Some(&written)), caps);
        assert_acp("ElicitationCapabilities", &written);
        assert_acp("ClientCapabilities", &json!({ "elicitation": written }));
    }
    // The absent capability: the member is left out or null (C2).
    assert_acp("ClientCapabilities", &json!({}));
    assert_acp("ClientCapabilities", &json!({ "elicitation": null }));
}

// covers: C1, C3
#[test]
fn builders() {
    let both = ElicitationCapabilities::with_modes([Mode::Form, Mode::Url]);
    assert_eq!(both.to_json(), Some(json!({ "form": {}, "url": {} })));
    let url_only = both.clone().without_mode(Mode::Form);
    assert_eq!(url_only.to_json(), Some(json!({ "url": {} })));
    let none_declared = url_only.without_mode(Mode::Url);
    assert!(none_declared.is_present());
    assert_eq!(none_declared.to_json(), Some(json!({})));
    let mut meta = Map::new();
    meta.insert("k".into(), json!("v"));
    let with_meta = ElicitationCapabilities::absent()
        .with_mode(
            Mode::Url,
            ModeCapability::new().with_meta(Some(meta.clone())),
        )
        .with_meta(Some(meta));
    assert_eq!(
        with_meta.to_json(),
        Some(json!({ "url": { "_meta": { "k": "v" } }, "_meta": { "k": "v" } }))
    );
    for caps in [both, with_meta] {
        assert_acp("ElicitationCapabilities", &caps.to_json().unwrap());
    }
    // From the whole clientCapabilities object.
    let caps = ElicitationCapabilities::from_client_capabilities(&json!({
        "fs": { "readTextFile": true }, "elicitation": { "url": {} }
    }));
    assert!(caps.supports(Mode::Url) && !caps.supports(Mode::Form));
    assert!(!ElicitationCapabilities::from_client_capabilities(&json!({ "fs": {} })).is_present());
}

// covers: M2, C5
#[test]
fn mcp_reads_empty_capability_as_form() {
    let table: Vec<(Option<Value>, bool, bool, bool)> = vec![
        (None, false, false, false),
        (Some(json!(null)), false, false, false),
        // M2: `{}` is form only, unlike ACP (C5).
        (Some(json!({})), true, true, false),
        (Some(json!({ "form": {} })), true, true, false),
        (Some(json!({ "url": {} })), true, false, true),
        (Some(json!({ "form": {}, "url": {} })), true, true, true),
        (Some(json!({ "form": { "x": 1 } })), true, true, false),
        // A mode member present but malformed declares nothing, and is not `{}`; MCP
        // cannot say "no mode", so nothing usable is declared at all.
        (Some(json!({ "form": 5 })), false, false, false),
        (Some(json!({ "form": 5, "url": {} })), true, false, true),
    ];
    for (input, present, form, url) in table {
        let caps = McpElicitationCapabilities::from_json(input.as_ref());
        assert_eq!(caps.is_present(), present, "{input:?}");
        assert_eq!(caps.supports(Mode::Form), form, "{input:?}");
        assert_eq!(caps.supports(Mode::Url), url, "{input:?}");
        // Written back, modes are explicit, and read the same by ACP (C5).
        if let Some(written) = caps.to_json() {
            if form {
                assert!(written.get("form").is_some_and(Value::is_object));
            }
            assert_eq!(McpElicitationCapabilities::from_json(Some(&written)), caps);
            for version in ["2025-11-25", "2026-07-28"] {
                assert_mcp(
                    version,
                    "ClientCapabilities",
                    &json!({ "elicitation": written }),
                );
            }
        }
    }
}

// covers: M2, C5
#[test]
fn acp_and_mcp_capabilities_convert() {
    // MCP `{}` is ACP `{"form": {}}`.
    let mcp = McpElicitationCapabilities::from_json(Some(&json!({})));
    let acp = ElicitationCapabilities::from(&mcp);
    assert_eq!(acp.to_json(), Some(json!({ "form": {} })));
    // ACP `{}` (no mode) has no MCP form but "no capability": MCP would read `{}` as form.
    let acp_empty = ElicitationCapabilities::new();
    let mcp_empty = McpElicitationCapabilities::from(&acp_empty);
    assert!(!mcp_empty.is_present() && !mcp_empty.supports(Mode::Form));
    // Modes and their `_meta` survive both ways.
    let acp = ElicitationCapabilities::from_json(Some(&json!({
        "form": { "_meta": { "a": 1 } }, "url": {}
    })));
    let mcp = McpElicitationCapabilities::from(&acp);
    assert_eq!(
        mcp.to_json(),
        Some(json!({ "form": { "_meta": { "a": 1 } }, "url": {} }))
    );
    assert_eq!(ElicitationCapabilities::from(&mcp), acp);
    // Absent stays absent.
    assert!(!McpElicitationCapabilities::from(&ElicitationCapabilities::absent()).is_present());
    assert!(!ElicitationCapabilities::from(&McpElicitationCapabilities::absent()).is_present());
}

// covers: M2, M6
#[test]
fn mcp_capability_examples_parse() {
    let Some(both) =
        common::load_json("mcp-schema/2026-07-28/examples/ClientCapabilities/elicitation-form-and-url-mode-support.json")
    else {
        return;
    };
    let caps = McpElicitationCapabilities::from_client_capabilities(&both);
    assert!(caps.supports(Mode::Form) && caps.supports(Mode::Url));
    let implicit = common::load_json(
        "mcp-schema/2026-07-28/examples/ClientCapabilities/elicitation-form-only-implicit.json",
    )
    .unwrap();
    let caps = McpElicitationCapabilities::from_client_capabilities(&implicit);
    assert!(caps.supports(Mode::Form) && !caps.supports(Mode::Url));
    // The same JSON read the ACP way declares no mode (C4, C5).
    let acp = ElicitationCapabilities::from_client_capabilities(&implicit);
    assert!(acp.is_present() && acp.modes().next().is_none());
}
