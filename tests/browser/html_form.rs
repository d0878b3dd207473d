//! The HTML form (`elicit::client::html`) in a real browser: a headless Chromium loads
//! the page from a small server, a user's keys and clicks fill it, and the server reads
//! what the browser posted. Every kind of field round-trips into the exact content and
//! into a derived type (F3, F4, D13); wrong answers come back beside their fields (F3,
//! V1); decline and cancel work with required fields empty, with and without the
//! browser's own checks (K1, R1); a hostile schema runs no script and shows no link (S5,
//! F7). Screenshots of the filled form and of the errors go to `target/screenshots/`.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::Bytes;
use axum::response::Html;
use axum::routing::{get, post};
use axum::Router;
use elicit::client::html::{HtmlForm, Submission};
use elicit::{Elicit, ElicitationResponse, Elicited, RequestedSchema};
use serde_json::{json, Value};

use crate::harness::{self, serve, Browser, Result, TestServer};

/// A whole browser test may take this long (Chromium's start included).
const LIMIT: Duration = Duration::from_secs(180);

/// Where the screenshots go: `target/screenshots/` of the workspace.
fn screenshot_path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("target")
        .join("screenshots")
        .join(name)
}

/// What the server received: the body as posted, and the response read from it.
#[derive(Debug, Clone)]
struct Received {
    body: Vec<u8>,
    response: ElicitationResponse,
}

/// The page server: GET `/` is the form, POST `/submit` reads the answer.
struct FormApp {
    schema: RequestedSchema,
    title: &'static str,
    browser_checks: bool,
    received: Mutex<Vec<Received>>,
}

impl FormApp {
    fn page(&self, body: &str) -> String {
        // The title is the test's own text, never the agent's.
        format!(
            "<!doctype html><html lang=en><meta charset=utf-8><title>{}</title><body>{body}",
            self.title
        )
    }

    fn form(&self) -> HtmlForm<'_> {
        HtmlForm::new(&self.schema)
            .action_url("/submit")
            .browser_checks(self.browser_checks)
    }

    fn submit(&self, body: &[u8]) -> String {
        let submission = Submission::parse(&self.schema, body);
        match submission.response() {
            Ok(response) => {
                let action = response.to_json()["action"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned();
                self.received
                    .lock()
                    .expect("the list of answers")
                    .push(Received {
                        body: body.to_vec(),
                        response,
                    });
                self.page(&format!("<p id=received>Received: {action}</p>"))
            }
            Err(_) => self.page(&self.form().refill(&submission).render()),
        }
    }

    fn received(&self) -> Vec<Received> {
        self.received.lock().expect("the list of answers").clone()
    }
}

async fn start_app(
    schema: RequestedSchema,
    title: &'static str,
    browser_checks: bool,
) -> Result<(Arc<FormApp>, TestServer)> {
    let app = Arc::new(FormApp {
        schema,
        title,
        browser_checks,
        received: Mutex::new(Vec::new()),
    });
    let router = Router::new()
        .route(
            "/",
            get({
                let app = Arc::clone(&app);
                move || async move { Html(app.page(&app.form().render())) }
            }),
        )
        .route(
            "/submit",
            post({
                let app = Arc::clone(&app);
                move |body: Bytes| async move { Html(app.submit(&body)) }
            }),
        );
    let server = serve(router).await?;
    Ok((app, server))
}

/// The kitchen sink: every kind of field the renderer has, as a derived type.
#[derive(Elicit, Debug, PartialEq)]
#[elicit(title = "Deploy", description = "Deploy settings")]
struct KitchenSink {
    /// Who deploys
    #[elicit(title = "Name", min_length = 2, max_length = 20)]
    name: String,
    #[elicit(title = "Email", format = "email")]
    email: String,
    #[elicit(title = "Website", format = "uri")]
    site: Option<String>,
    #[elicit(title = "Start day", format = "date")]
    day: Option<String>,
    #[elicit(title = "Start at", format = "date-time")]
    at: Option<String>,
    #[elicit(title = "Passes", minimum = 1, maximum = 5, default = 2)]
    passes: u8,
    #[elicit(title = "Ratio", minimum = 0.5, maximum = 100.0)]
    ratio: Option<f64>,
    #[elicit(title = "Confirm")]
    confirm: bool,
    #[elicit(title = "Strategy", default = "fast")]
    strategy: Strategy,
    #[elicit(title = "Color")]
    color: Option<Color>,
    #[elicit(title = "Tags", min_items = 1, max_items = 2, default = ["b"])]
    tags: Vec<Tag>,
    #[elicit(title = "Note")]
    note: Option<String>,
    #[elicit(title = "Region", default = "eu-west")]
    region: Option<String>,
}

#[derive(Elicit, Debug, Clone, Copy, PartialEq)]
enum Strategy {
    /// Small steps
    #[elicit(rename = "safe", title = "Conservative")]
    Safe,
    #[elicit(rename = "fast", title = "Aggressive")]
    Fast,
}

#[derive(Elicit, Debug, Clone, Copy, PartialEq)]
#[elicit(rename_all = "lowercase")]
enum Color {
    Red,
    Green,
    Blue,
}

#[derive(Elicit, Debug, Clone, Copy, PartialEq)]
enum Tag {
    #[elicit(rename = "a", title = "Alpha")]
    A,
    #[elicit(rename = "b", title = "Beta")]
    B,
    #[elicit(rename = "c", title = "Gamma")]
    C,
}

/// The schema the kitchen sink's page shows, as an agent would send it.
fn kitchen_schema() -> RequestedSchema {
    RequestedSchema::from_json(&json!({
        "type": "object",
        "title": "Deploy",
        "description": "Deploy settings",
        "properties": {
            "name": { "type": "string", "title": "Name", "description": "Who deploys",
                      "minLength": 2, "maxLength": 20 },
            "email": { "type": "string", "title": "Email", "format": "email" },
            "site": { "type": "string", "title": "Website", "format": "uri" },
            "day": { "type": "string", "title": "Start day", "format": "date" },
            "at": { "type": "string", "title": "Start at", "format": "date-time" },
            "passes": { "type": "integer", "title": "Passes", "minimum": 1, "maximum": 5,
                        "default": 2 },
            "ratio": { "type": "number", "title": "Ratio", "minimum": 0.5, "maximum": 100.0 },
            "confirm": { "type": "boolean", "title": "Confirm" },
            "strategy": { "type": "string", "title": "Strategy", "oneOf": [
                { "const": "safe", "title": "Conservative", "description": "Small steps" },
                { "const": "fast", "title": "Aggressive" }
            ], "default": "fast" },
            "color": { "type": "string", "title": "Color", "enum": ["red", "green", "blue"] },
            "tags": { "type": "array", "title": "Tags", "items": { "anyOf": [
                { "const": "a", "title": "Alpha" },
                { "const": "b", "title": "Beta" },
                { "const": "c", "title": "Gamma" }
            ] }, "minItems": 1, "maxItems": 2, "default": ["b"] },
            "note": { "type": "string", "title": "Note" },
            "region": { "type": "string", "title": "Region", "default": "eu-west" }
        },
        "required": ["name", "email", "passes", "confirm", "strategy", "tags"]
    }))
    .expect("a valid schema")
}

/// The id of property `i`'s input (of option `o` for a select), as render.rs writes it.
fn input(i: usize) -> String {
    format!("#elicit-f{i}")
}

fn option(i: usize, o: usize) -> String {
    format!("#elicit-f{i}-o{o}")
}

/// The property indexes of the kitchen sink, in the agent's order (D13).
const NAME: usize = 0;
const EMAIL: usize = 1;
const SITE: usize = 2;
const DAY: usize = 3;
const AT: usize = 4;
const PASSES: usize = 5;
const RATIO: usize = 6;
const CONFIRM: usize = 7;
const STRATEGY: usize = 8;
const COLOR: usize = 9;
const TAGS: usize = 10;
const NOTE: usize = 11;
const REGION: usize = 12;

async fn checked(browser: &Browser, css: &str) -> Result<bool> {
    Ok(browser.prop(css, "checked").await?.as_deref() == Some("true"))
}

/// Types a date into a `type="date"` input as a user does: Chromium's date field takes
/// the digits of its segments in the order of the browser's locale (en-US: month, day,
/// year; asked from the page), then holds the ISO date as its value.
async fn fill_date(browser: &Browser, css: &str, iso: &str) -> Result<()> {
    let order = browser
        .execute(
            "return new Intl.DateTimeFormat(navigator.language)
                .formatToParts(new Date(2026, 2, 14))
                .map(p => p.type)
                .filter(t => t === 'year' || t === 'month' || t === 'day');",
            vec![],
        )
        .await?;
    let keys: String = order
        .as_array()
        .ok_or("no date order")?
        .iter()
        .map(|part| match part.as_str() {
            Some("year") => &iso[0..4],
            Some("month") => &iso[5..7],
            _ => &iso[8..10],
        })
        .collect();
    // No click first: it would put the caret in whichever segment is under the mouse.
    browser.type_into(css, &keys).await?;
    let value = browser.prop(css, "value").await?;
    if value.as_deref() != Some(iso) {
        return Err(format!("the date field holds {value:?} after typing {keys} ({order})").into());
    }
    Ok(())
}

// covers: F3, F4, D13, R1, V7
#[test]
fn every_kind_of_field_filled_in_a_browser_reads_back_exactly() {
    harness::run(LIMIT, || async {
        let schema = kitchen_schema();
        // The derived type asks for exactly this schema, so its parse applies to it.
        assert_eq!(
            KitchenSink::requested_schema().as_json(),
            schema.as_json(),
            "the derived schema is the page's schema"
        );
        let Some(browser) = Browser::start().await? else {
            return Ok(());
        };
        let (app, server) = start_app(schema, "Kitchen sink", false).await?;
        browser.goto(&server.url("/")).await?;
        assert_eq!(browser.title().await?, "Kitchen sink");

        // F4: the declared defaults are filled in; nothing else is.
        assert_eq!(
            browser.prop(&input(PASSES), "value").await?.as_deref(),
            Some("2")
        );
        assert_eq!(
            browser.prop(&input(REGION), "value").await?.as_deref(),
            Some("eu-west")
        );
        assert!(checked(&browser, &option(STRATEGY, 1)).await?, "fast");
        assert!(!checked(&browser, &option(STRATEGY, 0)).await?);
        assert!(checked(&browser, &option(TAGS, 1)).await?, "b");
        assert!(!checked(&browser, &option(TAGS, 0)).await?);
        assert!(!checked(&browser, &input(CONFIRM)).await?);
        // An optional select starts on "No answer" (its last option).
        assert!(checked(&browser, &option(COLOR, 3)).await?);
        assert_eq!(
            browser.prop(&input(NAME), "value").await?.as_deref(),
            Some("")
        );

        // A user's keys and clicks.
        browser.fill(&input(NAME), "Ada Lovelace").await?;
        browser.fill(&input(EMAIL), "ada@example.com").await?;
        browser
            .fill(&input(SITE), "https://example.com/docs?x=1&y=2")
            .await?;
        fill_date(&browser, &input(DAY), "2026-03-14").await?;
        browser.fill(&input(AT), "2026-03-14T09:30:00Z").await?;
        browser.fill(&input(PASSES), "4").await?;
        browser.fill(&input(RATIO), "2.5").await?;
        browser.click(&input(CONFIRM)).await?;
        browser.click(&option(STRATEGY, 0)).await?; // Conservative
        browser.click(&option(COLOR, 2)).await?; // blue
        browser.click(&option(TAGS, 0)).await?; // Alpha, beside the default Beta
                                                // The note is left empty, the region as its default.
        assert!(checked(&browser, &input(CONFIRM)).await?);
        assert!(!checked(&browser, &option(STRATEGY, 1)).await?);

        browser
            .screenshot(&screenshot_path("kitchen_sink.png"))
            .await?;

        browser.click("button[value=accept]").await?;
        let received = browser.wait_for("#received").await?;
        assert_eq!(received.text().await?, "Received: accept");

        let expected = json!({
            "name": "Ada Lovelace",
            "email": "ada@example.com",
            "site": "https://example.com/docs?x=1&y=2",
            "day": "2026-03-14",
            "at": "2026-03-14T09:30:00Z",
            "passes": 4,
            "ratio": 2.5,
            "confirm": true,
            "strategy": "safe",
            "color": "blue",
            "tags": ["a", "b"],
            "region": "eu-west"
        });
        let all = app.received();
        assert_eq!(all.len(), 1, "one answer");
        let response = &all[0].response;
        assert_eq!(
            response.to_json(),
            json!({ "action": "accept", "content": expected })
        );
        // The same body through the one-call parse.
        assert_eq!(
            elicit::client::html::parse_submission(&app.schema, &all[0].body)
                .expect("a valid answer"),
            expected
        );
        // D13: the content's keys come in the agent's order.
        let keys: Vec<&String> = response.content().expect("content").keys().collect();
        assert_eq!(
            keys,
            [
                "name", "email", "site", "day", "at", "passes", "ratio", "confirm", "strategy",
                "color", "tags", "region"
            ]
        );
        // The typed parse of the browser's answer.
        let typed = KitchenSink::from_response(response).expect("a typed answer");
        assert_eq!(
            typed,
            Elicited::Accepted(KitchenSink {
                name: "Ada Lovelace".into(),
                email: "ada@example.com".into(),
                site: Some("https://example.com/docs?x=1&y=2".into()),
                day: Some("2026-03-14".into()),
                at: Some("2026-03-14T09:30:00Z".into()),
                passes: 4,
                ratio: Some(2.5),
                confirm: true,
                strategy: Strategy::Safe,
                color: Some(Color::Blue),
                tags: vec![Tag::A, Tag::B],
                note: None,
                region: Some("eu-west".into()),
            })
        );

        browser.close().await?;
        server.stop().await;
        Ok(())
    });
}

/// What the error beside a field says, and how it is tied to its input, read in the
/// page: the error element named by the input's `aria-describedby` (the fieldset's, for
/// a group of options), its text, whether it is inside the field's container, and the
/// gap in pixels between the (last) input's bottom and the error's top.
async fn error_beside(browser: &Browser, i: usize) -> Result<Value> {
    browser
        .execute(
            r#"
            const [i] = arguments;
            const field = document.querySelectorAll('.elicit-field')[i];
            const input = field.querySelector('input:not([type=hidden])');
            const owner = field.tagName === 'FIELDSET' ? field : input;
            const ids = (owner.getAttribute('aria-describedby') || '').split(' ');
            const errorId = ids.find(id => id.endsWith('-error'));
            const error = errorId ? document.getElementById(errorId) : null;
            if (!error) return { error: null };
            // The last of a group's options: the error comes after them all.
            const inputs = field.querySelectorAll('input:not([type=hidden])');
            const a = inputs[inputs.length - 1].getBoundingClientRect();
            const e = error.getBoundingClientRect();
            return {
                error: error.textContent,
                inField: field.contains(error),
                invalid: input.getAttribute('aria-invalid'),
                gap: Math.round(e.top - a.bottom),
                visible: e.width > 0 && e.height > 0,
            };
            "#,
            vec![json!(i)],
        )
        .await
}

// covers: F3, V1, V7, K2
#[test]
fn wrong_answers_past_the_browser_come_back_beside_their_fields() {
    harness::run(LIMIT, || async {
        let Some(browser) = Browser::start().await? else {
            return Ok(());
        };
        let (app, server) = start_app(kitchen_schema(), "Kitchen sink", false).await?;
        browser.goto(&server.url("/")).await?;
        // The form is `novalidate`: the browser posts what its own checks would refuse.
        assert_eq!(
            browser.attr("form", "novalidate").await?.as_deref(),
            Some("true")
        );
        // One character: the count is of code points (V1), an emoji is two UTF-16 units.
        browser.fill(&input(NAME), "🦀").await?;
        browser.fill(&input(EMAIL), "not-an-email").await?;
        browser.fill(&input(SITE), "no scheme here").await?;
        browser.fill(&input(AT), "2026-03-14 09:30").await?;
        browser.fill(&input(PASSES), "9").await?;
        browser.fill(&input(RATIO), "0.1").await?;
        browser.click(&option(TAGS, 1)).await?; // the default Beta off: none ticked
        browser.click("button[value=accept]").await?;
        browser.wait_for(".elicit-problems").await?;

        let expected = [
            (NAME, "This field is 1 character long; at least 2 required"),
            (EMAIL, "This field is not a valid email address"),
            (SITE, "This field is not a valid absolute URI"),
            (AT, "This field is not a valid RFC 3339 date-time"),
            (PASSES, "This field must be at most 5"),
            (RATIO, "This field must be at least 0.5"),
            (TAGS, "This field has 0 items; choose at least 1"),
        ];
        assert_eq!(
            browser.text(".elicit-problems").await?,
            format!(
                "The answer was not sent: {} problems to fix below.",
                expected.len()
            )
        );
        for (i, text) in expected {
            let found = error_beside(&browser, i).await?;
            // Marked as an error in words, so that it reads as one without styling.
            assert_eq!(
                found["error"],
                json!(format!("Error: {text}")),
                "the error of field {i}: {found}"
            );
            assert_eq!(found["inField"], json!(true), "field {i}: {found}");
            assert_eq!(found["invalid"], json!("true"), "field {i}: {found}");
            assert_eq!(found["visible"], json!(true), "field {i}: {found}");
            // Right under its input (or its options), before the help texts.
            let gap = found["gap"].as_i64().expect("a gap");
            assert!((0..=40).contains(&gap), "field {i}'s error is {gap}px away");
        }
        for i in [DAY, CONFIRM, STRATEGY, COLOR, NOTE, REGION] {
            assert_eq!(
                error_beside(&browser, i).await?["error"],
                Value::Null,
                "no error on field {i}"
            );
        }
        // What the user typed is shown again, not the defaults.
        assert_eq!(
            browser.prop(&input(NAME), "value").await?.as_deref(),
            Some("🦀")
        );
        assert_eq!(
            browser.prop(&input(PASSES), "value").await?.as_deref(),
            Some("9")
        );
        assert!(!checked(&browser, &option(TAGS, 1)).await?);
        assert!(app.received().is_empty(), "nothing was accepted");

        browser.screenshot(&screenshot_path("errors.png")).await?;

        // Fixed, the same page sends.
        browser.fill(&input(NAME), "Ada").await?;
        browser.fill(&input(EMAIL), "ada@example.com").await?;
        browser.fill(&input(SITE), "").await?;
        browser.fill(&input(AT), "").await?;
        browser.fill(&input(PASSES), "5").await?;
        browser.fill(&input(RATIO), "0.5").await?;
        browser.click(&option(TAGS, 2)).await?;
        browser.click("button[value=accept]").await?;
        browser.wait_for("#received").await?;
        let all = app.received();
        assert_eq!(all.len(), 1);
        assert_eq!(
            all[0].response.content_value(),
            Some(&json!({
                "name": "Ada", "email": "ada@example.com", "passes": 5, "ratio": 0.5,
                "confirm": false, "strategy": "fast", "tags": ["c"], "region": "eu-west"
            }))
        );

        browser.close().await?;
        server.stop().await;
        Ok(())
    });
}

// covers: K1, R1, R2
#[test]
fn decline_and_cancel_submit_with_required_fields_empty() {
    harness::run(LIMIT, || async {
        let Some(browser) = Browser::start().await? else {
            return Ok(());
        };
        // Without and with the browser's own checks: decline and cancel carry
        // `formnovalidate`, so the empty required fields never stop them.
        for browser_checks in [false, true] {
            let (app, server) = start_app(kitchen_schema(), "Refuse", browser_checks).await?;
            for (button, action, outcome) in [
                ("decline", "decline", Elicited::Declined),
                ("cancel", "cancel", Elicited::Cancelled),
            ] {
                browser.goto(&server.url("/")).await?;
                // Required fields emptied, a wrong answer typed.
                browser.fill(&input(NAME), "").await?;
                browser.fill(&input(PASSES), "").await?;
                browser.fill(&input(EMAIL), "nope").await?;
                browser.click(&option(TAGS, 1)).await?;
                browser.click(&format!("button[value={button}]")).await?;
                let received = browser.wait_for("#received").await?;
                assert_eq!(received.text().await?, format!("Received: {action}"));
                let last = app.received().pop().expect("an answer");
                assert_eq!(last.response.to_json(), json!({ "action": action }));
                assert_eq!(
                    KitchenSink::from_response(&last.response).expect("a typed outcome"),
                    outcome
                );
            }
            assert_eq!(app.received().len(), 2, "checks {browser_checks}");

            if browser_checks {
                // With the browser's checks on, accept with a required field empty is
                // stopped in the page: nothing is posted.
                browser.goto(&server.url("/")).await?;
                browser.fill(&input(NAME), "").await?;
                browser.click("button[value=accept]").await?;
                tokio::time::sleep(Duration::from_millis(500)).await;
                assert!(browser.find_all("#received").await?.is_empty());
                let valid = browser
                    .execute(
                        "return document.querySelector('form').checkValidity();",
                        vec![],
                    )
                    .await?;
                assert_eq!(valid, json!(false));
                assert_eq!(app.received().len(), 2, "the accept was not posted");
            }
            server.stop().await;
        }
        browser.close().await?;
        Ok(())
    });
}

/// Texts an agent could send to run script in the client's page or to plant a link.
fn hostile_schema() -> RequestedSchema {
    RequestedSchema::from_json(&json!({
        "type": "object",
        "title": "<script>alert(1)</script>",
        "description": "Read javascript:window.__pwned='description' or https://evil.example/x",
        "properties": {
            "x\"><img src=x onerror=\"window.__pwned='name'\">": {
                "type": "string",
                "title": "<script>document.title='pwned';window.__pwned='title'</script>",
                "description": "<a href=\"javascript:window.__pwned='link'\">click me</a>",
                "default": "\"><img src=x onerror=\"window.__pwned='default'\">"
            },
            "mail": {
                "type": "string",
                "format": "email",
                "title": "\"><img src=x onerror=\"window.__pwned='label'\">",
                "description": "javascript:window.__pwned='text'"
            },
            "pick": {
                "type": "string",
                "oneOf": [
                    { "const": "\"><script>window.__pwned='value'</script>",
                      "title": "<svg onload=\"window.__pwned='option'\"></svg>" },
                    { "const": "plain", "title": "<iframe src=\"javascript:parent.__pwned='frame'\">" }
                ]
            }
        },
        "required": ["mail"]
    }))
    .expect("a hostile but valid schema")
}

/// Nothing of the agent's ran or became markup: no script set the global or the title,
/// and the form holds no link, image, script, frame or SVG, nor an event handler.
async fn assert_inert(browser: &Browser, title: &str) -> Result<()> {
    // An `onerror` of an image that failed to load would fire after the load: give it
    // the time.
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(browser.title().await?, title, "no script changed the title");
    let found = browser
        .execute(
            r#"
            const all = [...document.querySelectorAll('*')];
            return {
                pwned: window.__pwned === undefined ? null : String(window.__pwned),
                links: document.querySelectorAll('a, area, [href]').length,
                active: document.querySelectorAll('script, img, svg, iframe, object, embed')
                    .length,
                handlers: all.filter(e => [...e.attributes].some(a => a.name.startsWith('on')))
                    .length,
                forms: document.forms.length,
            };
            "#,
            vec![],
        )
        .await?;
    assert_eq!(
        found,
        json!({ "pwned": null, "links": 0, "active": 0, "handlers": 0, "forms": 1 })
    );
    // The DOM serialized: every `<` of the agent's is text (`&lt;`).
    let source = browser.page_source().await?;
    for tag in ["<script", "<img", "<svg", "<iframe", "<a "] {
        assert!(!source.contains(tag), "{tag} in {source}");
    }
    Ok(())
}

// covers: S5, F7, K1
#[test]
fn a_hostile_schema_runs_no_script_and_shows_no_link() {
    harness::run(LIMIT, || async {
        let Some(browser) = Browser::start().await? else {
            return Ok(());
        };
        let (app, server) = start_app(hostile_schema(), "Hostile form", false).await?;
        browser.goto(&server.url("/")).await?;
        assert_inert(&browser, "Hostile form").await?;
        // The texts are shown as text.
        assert_eq!(
            browser.text(".elicit-title").await?,
            "<script>alert(1)</script>"
        );
        assert_eq!(
            browser.text("label[for=elicit-f0]").await?,
            "<script>document.title='pwned';window.__pwned='title'</script>"
        );
        assert_eq!(
            browser.text("#elicit-f0-description").await?,
            "<a href=\"javascript:window.__pwned='link'\">click me</a>"
        );
        assert_eq!(
            browser.prop(&input(0), "value").await?.as_deref(),
            Some("\"><img src=x onerror=\"window.__pwned='default'\">")
        );

        // A hostile answer typed back, wrong, so that the page shows it again.
        let typed = "\"><script>window.__pwned='refill'</script>";
        browser.fill(&input(1), typed).await?;
        browser.click(&option(2, 0)).await?;
        browser.click("button[value=accept]").await?;
        browser.wait_for(".elicit-problems").await?;
        assert_inert(&browser, "Hostile form").await?;
        assert_eq!(
            browser.prop(&input(1), "value").await?.as_deref(),
            Some(typed)
        );
        assert!(checked(&browser, &option(2, 0)).await?);
        assert!(app.received().is_empty());

        // Valid, it is read back as sent, under the hostile names.
        browser.fill(&input(1), "ann@example.com").await?;
        browser.click("button[value=accept]").await?;
        browser.wait_for("#received").await?;
        assert_eq!(
            app.received()[0].response.to_json(),
            json!({ "action": "accept", "content": {
                "x\"><img src=x onerror=\"window.__pwned='name'\">":
                    "\"><img src=x onerror=\"window.__pwned='default'\">",
                "mail": "ann@example.com",
                "pick": "\"><script>window.__pwned='value'</script>"
            } })
        );

        browser.close().await?;
        server.stop().await;
        Ok(())
    });
}
