//! Proptest strategies for the messages of `elicit::protocol`: every shape we can
//! build, with awkward text, every scope and arbitrary `_meta`.

use proptest::prelude::*;
use serde_json::{json, Map, Value};

use crate::common::gen;
use elicit::protocol::{
    CreateElicitation, ElicitationCapabilities, ElicitationResponse, Mode, ModeCapability, Scope,
};
use elicit::RequestedSchema;

pub fn config() -> ProptestConfig {
    ProptestConfig {
        cases: gen::cases(256),
        ..ProptestConfig::default()
    }
}

/// Text, including the awkward: empty, quotes, escapes, astral characters.
pub fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => any::<String>(),
        1 => gen::pick(gen::STRINGS).prop_map(str::to_owned),
        1 => Just("\"quoted\" \\ back\u{0}slash\n".to_owned()),
    ]
}

/// JSON for `_meta` values; numbers are exact in binary so text parsing is exact too.
pub fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        (-1000i32..1000).prop_map(|n| json!(f64::from(n) / 4.0)),
        text().prop_map(Value::from),
    ];
    leaf.prop_recursive(3, 16, 4, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            proptest::collection::vec((text(), inner), 0..4)
                .prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
}

pub fn meta() -> impl Strategy<Value = Option<Map<String, Value>>> {
    gen::opt(
        proptest::collection::vec((text(), json_value()), 0..4)
            .prop_map(|kv| kv.into_iter().collect()),
    )
}

pub fn scope() -> impl Strategy<Value = Scope> {
    prop_oneof![
        text().prop_map(Scope::session),
        (text(), text()).prop_map(|(s, t)| Scope::tool_call(s, t)),
        any::<i64>().prop_map(Scope::request),
        text().prop_map(Scope::request),
    ]
}

pub fn url() -> impl Strategy<Value = String> {
    prop_oneof![
        gen::pick(&[
            "https://example.com/",
            "https://auth.example.com/start?flow=abc&x=%20y#frag",
            "http://localhost:8080/cb",
            "https://[::1]/",
            "urn:isbn:0451450523",
            "https://xn--bcher-kva.example/p",
        ])
        .prop_map(str::to_owned),
        "[a-z]{1,10}(\\.[a-z]{1,5}){1,2}".prop_map(|host| format!("https://{host}/path")),
    ]
}

pub fn schema() -> impl Strategy<Value = RequestedSchema> {
    gen::schema().prop_filter_map("inside the strict subset", |json| {
        RequestedSchema::from_json(&json).ok()
    })
}

pub fn create() -> impl Strategy<Value = CreateElicitation> {
    let form = (scope(), text(), schema(), meta()).prop_map(|(scope, message, schema, meta)| {
        CreateElicitation::form(scope, message, schema).with_meta(meta)
    });
    let url =
        (scope(), text(), text(), url(), meta()).prop_map(|(scope, message, id, url, meta)| {
            CreateElicitation::url(scope, message, id, url)
                .expect("the URL pool is absolute")
                .with_meta(meta)
        });
    prop_oneof![form, url]
}

/// Content values of the five kinds R3 allows.
pub fn content() -> impl Strategy<Value = Map<String, Value>> {
    let value = prop_oneof![
        text().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        (-4000i32..4000).prop_map(|n| json!(f64::from(n) / 8.0 + 0.125)),
        any::<bool>().prop_map(Value::from),
        proptest::collection::vec(text().prop_map(Value::from), 0..3).prop_map(Value::Array),
    ];
    proptest::collection::vec((text(), value), 0..5).prop_map(|kv| kv.into_iter().collect())
}

pub fn response() -> impl Strategy<Value = ElicitationResponse> {
    (0..4u8, content(), meta()).prop_map(|(which, content, meta)| {
        match which {
            0 => ElicitationResponse::accept(content),
            1 => ElicitationResponse::accept_without_content(),
            2 => ElicitationResponse::decline(),
            _ => ElicitationResponse::cancel(),
        }
        .with_meta(meta)
    })
}

pub fn capabilities() -> impl Strategy<Value = ElicitationCapabilities> {
    (any::<bool>(), gen::opt(meta()), gen::opt(meta()), meta()).prop_map(
        |(present, form, url, meta)| {
            if !present {
                return ElicitationCapabilities::absent();
            }
            let mut caps = ElicitationCapabilities::new().with_meta(meta);
            if let Some(m) = form {
                caps = caps.with_mode(Mode::Form, ModeCapability::new().with_meta(m));
            }
            if let Some(m) = url {
                caps = caps.with_mode(Mode::Url, ModeCapability::new().with_meta(m));
            }
            caps
        },
    )
}
