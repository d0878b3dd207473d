//! The form widget for full-screen terminal applications (`elicit::client::tui`,
//! feature `ratatui`), drawn with ratatui's `TestBackend`: the screen a person sees,
//! line by line, for every kind of field, an error, the review, decline, cancel, URL
//! consent under a look-alike host, and hostile agent text; and `TuiAsker` answering
//! the engine.
#![cfg(feature = "ratatui")]

use std::time::Duration;

use elicit::client::tui::{FormState, FormView, Key, Question, QuestionView, Theme, TuiAsker};
use elicit::client::{AgentIdentity, ClientEngine, FormAnswer, FormEngine};
use elicit::RequestedSchema;
use ratatui::backend::TestBackend;
use ratatui::style::{Color, Modifier};
use ratatui::Terminal;
use serde_json::{json, Map, Value};

/// The lines of the test terminal as a person reads them: each wide character once
/// (ratatui's own view of the buffer), trailing blanks dropped.
fn lines_of(backend: &TestBackend) -> Vec<String> {
    const HIDDEN: &str = "\" Hidden by multi-width symbols: ";
    backend
        .to_string()
        .lines()
        .map(|row| {
            let row = row.strip_prefix('"').expect("a quoted row");
            let row = match row.rfind(HIDDEN) {
                Some(end) => &row[..end],
                None => row.strip_suffix('"').expect("a quoted row"),
            };
            row.trim_end().to_owned()
        })
        .collect()
}

/// Draws `state` on a `width`×`height` screen and returns its lines.
fn screen(state: &mut FormState, width: u16, height: u16) -> Vec<String> {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).expect("a test terminal");
    terminal
        .draw(|frame| frame.render_stateful_widget(FormView::new(), frame.area(), state))
        .expect("drawn");
    lines_of(terminal.backend())
}

fn kitchen_sink() -> FormEngine {
    let schema = RequestedSchema::from_json_lenient(&json!({
        "type": "object",
        "title": "Release settings",
        "properties": {
            "name": { "type": "string", "title": "Release name",
                      "minLength": 3, "maxLength": 20, "default": "spring-cleanup" },
            "notify": { "type": "string", "title": "Notify", "format": "email" },
            "notes": { "type": "string", "title": "Release notes", "format": "uri",
                       "description": "A page about it" },
            "retries": { "type": "integer", "title": "Retries", "minimum": 0, "maximum": 5, "default": 1 },
            "rollout": { "type": "number", "title": "Rollout share", "minimum": 0, "maximum": 1, "default": 0.25 },
            "announce": { "type": "boolean", "title": "Announce it", "default": true },
            "region": { "type": "string", "enum": ["eu", "us", "apac"] },
            "channel": { "type": "string", "title": "Channel", "oneOf": [
                { "const": "stable", "title": "Stable" },
                { "const": "beta", "title": "Beta", "description": "early adopters" }
            ], "default": "stable" },
            "platforms": { "type": "array",
                           "items": { "type": "string", "enum": ["linux", "macos", "windows"] },
                           "minItems": 1, "maxItems": 2, "default": ["linux"] },
            "reviewers": { "type": "array", "title": "Reviewers", "items": { "anyOf": [
                { "const": "ada", "title": "Ada Lovelace" },
                { "const": "grace", "title": "Grace Hopper" }
            ] }, "minItems": 2 }
        },
        "required": ["name", "notify", "retries", "channel", "platforms", "reviewers"]
    }))
    .expect("a valid schema");
    FormEngine::new(
        &schema,
        AgentIdentity::new("release-bot").with_version("1.2"),
        "Before I cut the release, a few details.",
    )
    .expect("renderable")
}

fn press(state: &mut FormState, keys: &[Key]) -> Option<FormAnswer> {
    let mut outcome = None;
    for key in keys {
        if let Some(answer) = state.handle_key(*key) {
            outcome = Some(answer);
        }
    }
    outcome
}

fn typed(state: &mut FormState, text: &str) {
    for c in text.chars() {
        state.handle_key(Key::Char(c));
    }
}

/// The screen of the kitchen-sink form as it opens: every kind of field, defaults shown.
const OPENING: &[&str] = &[
    "release-bot 1.2 asks:",
    "  Before I cut the release, a few details.",
    "",
    "Form: Release settings",
    "",
    "▶ Release name *",
    "    text, from 3 to 20 characters",
    "    [spring-cleanup                          ]",
    "",
    "  Notify *",
    "    an email address",
    "    [                                        ]",
    "",
    "  Release notes",
    "    A page about it",
    "    an absolute URI, such as https://example.com/",
    "    [                                        ]",
    "",
    "  Retries *",
    "    a whole number from 0 to 5",
    "    [1                                       ]",
    "",
    "  Rollout share",
    "    a number from 0 to 1",
    "    [0.25                                    ]",
    "",
    "  Announce it",
    "    yes or no",
    "    (•) Yes",
    "    ( ) No",
    "    ( ) (leave empty)",
    "",
    "  region",
    "    one option",
    "    ( ) eu",
    "    ( ) us",
    "    ( ) apac",
    "    (•) (leave empty)",
    "",
    "  Channel *",
    "    one option",
    "    (•) Stable",
    "    ( ) Beta — early adopters",
    "",
    "  platforms *",
    "    any of the options, from 1 to 2 of them",
    "    [x] linux",
    "    [ ] macos",
    "    [ ] windows",
    "",
    "  Reviewers *",
    "    any of the options, at least 2 of them",
    "    [ ] Ada Lovelace",
    "    [ ] Grace Hopper",
];

/// The footer while an edit box has the focus.
const BOX_FOOTER: [&str; 2] = [
    "  [ Review ]  [ Decline ]  [ Cancel ]",
    "Enter next · Tab/Shift-Tab fields · Ctrl-U empty · Ctrl-D decline · Esc cancel",
];

// covers: K1, K4, D13, F2, F4, R1
#[test]
fn every_kind_of_field_is_drawn_with_its_default_after_who_asks() {
    let mut state = FormState::new(kitchen_sink());
    let lines = screen(&mut state, 80, 60);
    let mut expected: Vec<&str> = OPENING.to_vec();
    expected.resize(58, "");
    expected.extend(BOX_FOOTER);
    assert_eq!(lines, expected);
    // Decline and cancel are buttons, never an entry of a list.
    assert!(!lines[..58]
        .iter()
        .any(|l| l.contains("ecline") || l.contains("ancel")));
}

// covers: F3, F4, K2, D13, V1, V4, V7
#[test]
fn each_kind_is_typed_refused_when_wrong_corrected_reviewed_and_sent() {
    let mut state = FormState::new(kitchen_sink());
    // F4: the default kept.
    press(&mut state, &[Key::Enter]);
    assert_eq!(state.focused_field(), Some("notify"));

    // F3, V7: a wrong address refused when the person leaves the box, beside it.
    typed(&mut state, "not an address");
    press(&mut state, &[Key::Enter]);
    assert_eq!(
        state.focused_field(),
        Some("notify"),
        "refused: the focus stays"
    );
    let lines = screen(&mut state, 80, 16);
    assert_eq!(
        lines,
        [
            "release-bot 1.2 asks:",
            "  Before I cut the release, a few details.",
            "",
            "Form: Release settings",
            "",
            "  Release name *",
            "    text, from 3 to 20 characters",
            "    [spring-cleanup                          ]",
            "",
            "▶ Notify *",
            "    an email address",
            "    [not an address                          ]",
            "    ! is not a valid email address",
            "                                                                               ▼",
            BOX_FOOTER[0],
            BOX_FOOTER[1],
        ],
        "the error beside its field, the focused field scrolled into view under who asks"
    );
    press(&mut state, &[Key::Ctrl('u')]);
    typed(&mut state, "ada@example.com");
    press(&mut state, &[Key::Enter]);
    assert_eq!(state.problem("notify"), None);

    // An optional field left empty.
    press(&mut state, &[Key::Enter]);

    // F3, V4: out of bounds, refused, then corrected.
    press(&mut state, &[Key::Backspace]);
    typed(&mut state, "9");
    press(&mut state, &[Key::Enter]);
    assert_eq!(state.problem("retries"), Some("must be at most 5"));
    assert_eq!(state.focused_field(), Some("retries"));
    press(&mut state, &[Key::Backspace]);
    typed(&mut state, "3");
    press(&mut state, &[Key::Enter]);

    // A number's default kept; not a number refused first.
    press(&mut state, &[Key::End]);
    typed(&mut state, "x");
    press(&mut state, &[Key::Enter]);
    assert_eq!(state.problem("rollout"), Some("\"0.25x\" is not a number"));
    press(&mut state, &[Key::Backspace, Key::Enter]);

    // A boolean: the cursor starts on the default, Yes.
    press(&mut state, &[Key::Down, Key::Enter]);
    // An untitled optional select without a default: the cursor on "(leave empty)".
    press(&mut state, &[Key::Up, Key::Up, Key::Enter]);
    // A titled select: titles shown, the value sent.
    press(&mut state, &[Key::Down, Key::Enter]);

    // A multi select: a third item refused (maxItems), then two.
    press(
        &mut state,
        &[Key::Down, Key::Char(' '), Key::Down, Key::Char(' ')],
    );
    assert_eq!(
        state.problem("platforms"),
        Some("has 3 items; choose at most 2")
    );
    press(&mut state, &[Key::Up, Key::Up, Key::Char(' ')]);
    press(
        &mut state,
        &[Key::Down, Key::Down, Key::Char(' '), Key::Enter],
    );
    assert_eq!(state.problem("platforms"), None);

    // A titled multi select: one of at least two refused when leaving it, then two.
    press(&mut state, &[Key::Char(' '), Key::Enter]);
    assert_eq!(
        state.problem("reviewers"),
        Some("has 1 item; choose at least 2")
    );
    assert_eq!(state.focused_field(), Some("reviewers"));
    press(&mut state, &[Key::Down, Key::Char(' '), Key::Enter]);
    assert_eq!(state.focused_field(), None, "on the buttons");

    // K2: the review, every answer as it will be sent.
    assert_eq!(press(&mut state, &[Key::Enter]), None);
    assert!(state.is_reviewing());
    let lines = screen(&mut state, 80, 24);
    assert_eq!(
        lines,
        [
            "release-bot 1.2 asks:",
            "  Before I cut the release, a few details.",
            "",
            "Review: nothing is sent until you press Send",
            "    Release name *: spring-cleanup",
            "    Notify *: ada@example.com",
            "    Release notes: (no answer)",
            "    Retries *: 3",
            "    Rollout share: 0.25",
            "    Announce it: no",
            "    region: us",
            "    Channel *: Beta",
            "    platforms *: macos, windows",
            "    Reviewers *: Ada Lovelace, Grace Hopper",
            "",
            "Ready to send.",
            "",
            "",
            "",
            "",
            "",
            "",
            " ▶[ Send ]  [ Edit ]  [ Decline ]  [ Cancel ]",
            "←→ buttons · Enter press · ↑↓ scroll · Ctrl-D decline · Esc cancel",
        ]
    );

    // K2: back to the fields from the review, an answer changed, reviewed again.
    press(&mut state, &[Key::Right, Key::Enter]);
    assert!(!state.is_reviewing());
    // From the Review button, Shift-Tab goes back through the fields.
    for _ in 0..5 {
        press(&mut state, &[Key::BackTab]);
    }
    assert_eq!(state.focused_field(), Some("announce"));
    press(&mut state, &[Key::Up, Key::Enter]);
    press(
        &mut state,
        &[Key::Tab, Key::Tab, Key::Tab, Key::Tab, Key::Enter],
    );
    assert!(state.is_reviewing());

    let Some(FormAnswer::Submit(content)) = press(&mut state, &[Key::Enter]) else {
        panic!("sent");
    };
    let expected = json!({
        "name": "spring-cleanup",
        "notify": "ada@example.com",
        "retries": 3,
        "rollout": 0.25,
        "announce": true,
        "region": "us",
        "channel": "beta",
        "platforms": ["macos", "windows"],
        "reviewers": ["ada", "grace"]
    });
    assert_eq!(Value::Object(content.clone()), expected);
    // D13: in the agent's order.
    let keys: Vec<&String> = content.keys().collect();
    let expected_keys: Vec<&String> = expected.as_object().expect("an object").keys().collect();
    assert_eq!(keys, expected_keys);
    // Nothing more after the outcome.
    assert_eq!(press(&mut state, &[Key::Esc]), None);
    assert!(matches!(state.outcome(), Some(FormAnswer::Submit(_))));
}

// covers: F3, K2
#[test]
fn a_required_field_left_empty_stops_the_review_and_is_shown_beside_its_field() {
    let mut state = FormState::new(kitchen_sink());
    // Leave every field as it opened and go straight to the buttons.
    press(&mut state, &[Key::Enter, Key::Enter]);
    assert_eq!(state.problem("notify"), Some("an answer is required"));
    for _ in 0..8 {
        press(&mut state, &[Key::Tab]);
    }
    assert_eq!(state.focused_field(), None);
    press(&mut state, &[Key::Enter]);
    let lines = screen(&mut state, 80, 24);
    let at = lines
        .iter()
        .position(|l| l == "Not ready:")
        .expect("not ready");
    assert_eq!(
        lines[at..at + 3],
        [
            "Not ready:",
            "  ! `notify` is required but missing",
            "  ! `reviewers` is required but missing",
        ]
    );
    // Send is refused: back to the fields, the focus on the first problem.
    assert_eq!(press(&mut state, &[Key::Enter]), None);
    assert!(!state.is_reviewing());
    assert_eq!(state.focused_field(), Some("notify"));
    assert_eq!(state.problem("notify"), Some("is required but missing"));
    assert_eq!(state.problem("reviewers"), Some("is required but missing"));
    // The focused field scrolled just into view, its problem beside it.
    let lines = screen(&mut state, 80, 12);
    assert_eq!(
        lines,
        [
            "release-bot 1.2 asks:",
            "                                                                               ▲",
            "  Release name *",
            "    text, from 3 to 20 characters",
            "    [spring-cleanup                          ]",
            "",
            "▶ Notify *",
            "    an email address",
            "    [                                        ]",
            "    ! is required but missing                                                  ▼",
            "  [ Review ]  [ Decline ]  [ Cancel ]",
            "Enter next · Tab/Shift-Tab fields · Ctrl-U empty · Ctrl-D decline · Esc cancel",
        ]
    );
}

// covers: K1, R1
#[test]
fn decline_and_cancel_are_reachable_from_everywhere() {
    // Keys, from a field, a list and the review.
    let mut state = FormState::new(kitchen_sink());
    assert_eq!(
        press(&mut state, &[Key::Ctrl('d')]),
        Some(FormAnswer::Decline)
    );
    let mut state = FormState::new(kitchen_sink());
    assert_eq!(press(&mut state, &[Key::Esc]), Some(FormAnswer::Cancel));
    let mut state = FormState::new(kitchen_sink());
    typed(&mut state, "x");
    assert_eq!(
        press(&mut state, &[Key::Ctrl('c')]),
        Some(FormAnswer::Cancel)
    );
    let mut state = FormState::new(kitchen_sink());
    press(&mut state, &[Key::Enter]);
    typed(&mut state, "not an address");
    press(&mut state, &[Key::Enter]);
    // Even with an answer refused and the focus held on it.
    assert_eq!(state.focused_field(), Some("notify"));
    assert_eq!(
        press(&mut state, &[Key::Ctrl('d')]),
        Some(FormAnswer::Decline)
    );

    // The buttons under the fields.
    let mut state = FormState::new(kitchen_sink());
    press(&mut state, &[Key::Ctrl('u')]);
    typed(&mut state, "abc");
    press(&mut state, &[Key::Enter]);
    typed(&mut state, "ada@example.com");
    for _ in 0..9 {
        press(&mut state, &[Key::Tab]);
    }
    assert_eq!(state.focused_field(), None);
    press(&mut state, &[Key::Right]);
    let lines = screen(&mut state, 80, 10);
    assert_eq!(
        lines[8..],
        [
            "  [ Review ] ▶[ Decline ]  [ Cancel ]",
            "←→ buttons · Enter press · Shift-Tab fields · Ctrl-D decline · Esc cancel",
        ]
    );
    assert_eq!(press(&mut state, &[Key::Enter]), Some(FormAnswer::Decline));
    let mut state = FormState::new(kitchen_sink());
    press(&mut state, &[Key::Enter, Key::Tab]);
    for _ in 0..8 {
        press(&mut state, &[Key::Tab]);
    }
    assert_eq!(
        press(&mut state, &[Key::Right, Key::Right, Key::Enter]),
        Some(FormAnswer::Cancel)
    );

    // The review's buttons and keys.
    for (keys, outcome) in [
        (
            vec![Key::Right, Key::Right, Key::Enter],
            FormAnswer::Decline,
        ),
        (
            vec![Key::Tab, Key::Tab, Key::Tab, Key::Enter],
            FormAnswer::Cancel,
        ),
        (vec![Key::Esc], FormAnswer::Cancel),
        (vec![Key::Ctrl('d')], FormAnswer::Decline),
    ] {
        let mut state = FormState::new(kitchen_sink());
        press(&mut state, &[Key::BackTab]);
        // From the first field, Shift-Tab stays; Tab through to the buttons.
        for _ in 0..10 {
            press(&mut state, &[Key::Tab]);
        }
        press(&mut state, &[Key::Enter]);
        assert!(state.is_reviewing());
        assert_eq!(press(&mut state, &keys), Some(outcome));
    }
}

/// An intro for a consent.
fn consent_state(url: &str) -> elicit::client::tui::ConsentState {
    use elicit::client::tui::ConsentState;
    use elicit::client::{Intro, UrlReview};
    let agent = AgentIdentity::new("sign-in-bot");
    let intro = Intro {
        agent: &agent,
        message: "Sign in to connect your account.",
        scope: None,
    };
    ConsentState::new(&intro, UrlReview::new(url).expect("reviewable"))
}

fn consent_screen(
    state: &mut elicit::client::tui::ConsentState,
    width: u16,
    height: u16,
) -> TestBackend {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).expect("a test terminal");
    terminal
        .draw(|frame| {
            frame.render_stateful_widget(
                elicit::client::tui::ConsentView::new(),
                frame.area(),
                state,
            )
        })
        .expect("drawn");
    terminal.backend().clone()
}

// covers: S2, S3, S4, K1, K3
#[test]
fn url_consent_under_a_lookalike_host_shows_the_url_the_domain_and_the_warnings_first() {
    use elicit::client::Consent;
    let mut state = consent_state("https://login.xn--pypal-4ve.com/connect?next=/home");
    let backend = consent_screen(&mut state, 80, 20);
    assert_eq!(
        lines_of(&backend),
        [
            "sign-in-bot asks:",
            "  Sign in to connect your account.",
            "",
            "The agent asks you to open a web page.",
            "  Address: https://login.xn--pypal-4ve.com/connect?next=/home",
            "  Site:    login.[pаypal.com] (written login.xn--pypal-4ve.com)",
            "  Warnings:",
            "  ! the site name `login.pаypal.com` uses non-Latin or accented letters (written",
            "    `login.xn--pypal-4ve.com`): make sure it is the site you expect",
            "  ! the site name part `pаypal` mixes letters from different alphabets, a common",
            "    trick to imitate another site",
            "  ! the site name looks like `login.paypal.com` but is a different site",
            "",
            "This client does not open the page itself: if you agree, open the address above",
            "in your own browser. Nothing you do there comes back through this client.",
            "",
            "",
            "",
            "Open this page?  [ Open ]  [ Decline ]  [ Cancel ]",
            "y open · n decline · Esc cancel · ←→ buttons, Enter press · ↑↓ scroll",
        ]
    );
    // S4, K3: the registrable domain emphasised (bold, underlined), the subdomain not.
    let buffer = backend.buffer();
    let domain_start = "  Site:    login.".chars().count() as u16;
    for x in domain_start..domain_start + "[pаypal.com]".chars().count() as u16 {
        let style = buffer[(x, 5)].style();
        assert!(
            style
                .add_modifier
                .contains(Modifier::BOLD | Modifier::UNDERLINED),
            "column {x} of the domain is emphasised"
        );
    }
    assert!(!buffer[(domain_start - 2, 5)]
        .style()
        .add_modifier
        .contains(Modifier::UNDERLINED));
    // The warnings in the warning colour.
    assert_eq!(buffer[(2, 7)].style().fg, Some(Color::Yellow));

    // S2: Enter alone is not consent; it says what to do.
    assert_eq!(state.handle_key(Key::Enter), None);
    let lines = lines_of(&consent_screen(&mut state, 80, 20));
    assert_eq!(
        lines[19],
        "Enter alone opens nothing: type y to open, n to decline, Esc to cancel"
    );
    assert_eq!(state.handle_key(Key::Char('y')), Some(Consent::Open));

    for (keys, outcome) in [
        (vec![Key::Char('n')], Consent::Decline),
        (vec![Key::Esc], Consent::Cancel),
        (vec![Key::Ctrl('d')], Consent::Decline),
        (vec![Key::Right, Key::Enter], Consent::Open),
        (vec![Key::Right, Key::Right, Key::Enter], Consent::Decline),
        (
            vec![Key::Left, Key::Tab, Key::Tab, Key::Tab, Key::Enter],
            Consent::Cancel,
        ),
    ] {
        let mut state = consent_state("https://paypa1.com/login");
        let lines = lines_of(&consent_screen(&mut state, 80, 12));
        assert_eq!(lines[5], "  Site:    [paypa1.com]");
        let outcome_seen = keys.iter().filter_map(|key| state.handle_key(*key)).last();
        assert_eq!(outcome_seen, Some(outcome), "{keys:?}");
    }
}

// covers: S2, S4
#[test]
fn consent_waits_until_everything_was_on_screen() {
    use elicit::client::Consent;
    let long = format!("https://example.com/{}", "a".repeat(400));
    let mut state = consent_state(&long);
    let lines = lines_of(&consent_screen(&mut state, 60, 10));
    assert_eq!(lines[0], "sign-in-bot asks:");
    assert!(lines[8].starts_with("Open this page?"));
    assert!(lines[7].ends_with('▼'), "more below: {lines:?}");
    // Not everything was shown: consent refused with the reason.
    assert_eq!(state.handle_key(Key::Char('y')), None);
    let lines = lines_of(&consent_screen(&mut state, 60, 10));
    assert_eq!(
        lines[9],
        "Read it all first: scroll down with ↓ or Page Down"
    );
    state.handle_key(Key::PageDown);
    let lines = lines_of(&consent_screen(&mut state, 60, 10));
    assert!(lines[1].ends_with('▲'), "{lines:?}");
    assert!(lines[7].ends_with('▼'), "still more below: {lines:?}");
    assert_eq!(state.handle_key(Key::Char('y')), None);
    state.handle_key(Key::PageDown);
    let lines = lines_of(&consent_screen(&mut state, 60, 10));
    assert!(!lines[7].ends_with('▼'), "the end: {lines:?}");
    assert_eq!(state.handle_key(Key::Char('y')), Some(Consent::Open));
}

// covers: S5
#[test]
fn hostile_agent_text_changes_nothing_on_screen_but_its_own_text() {
    // Escape sequences (clear the screen, move the cursor, a fake prompt), a bidi
    // override, zero-width and tag characters, a carriage return.
    let hostile = [
        "deploy\u{1b}[2J\u{1b}[H✔ Ready to send",
        "Approve \u{202e}exe.txt\u{202c} now",
        "pay\u{200b}pal\u{2060}\u{e0041}",
        "over\rwrite",
    ];
    let form = |texts: [&str; 4]| {
        let schema = RequestedSchema::from_json_lenient(&json!({
            "type": "object",
            "title": texts[1],
            "properties": {
                "a": { "type": "string", "title": texts[0], "description": texts[2] },
                "b": { "type": "string", "oneOf": [
                    { "const": "x", "title": texts[3], "description": texts[1] },
                    { "const": "y", "title": "plain" }
                ] }
            }
        }))
        .expect("a valid schema");
        FormEngine::new(
            &schema,
            AgentIdentity::new(texts[2]).with_title(texts[0]),
            format!("{} {}", texts[0], texts[1]),
        )
        .expect("renderable")
    };
    // What each text must look like: its characters, the hiding ones as code points.
    let visible = [
        "deploy<U+001B>[2J<U+001B>[H✔ Ready to send",
        "Approve <U+202E>exe.txt<U+202C> now",
        "pay<U+200B>pal<U+2060><U+E0041>",
        "over<U+000D>write",
    ];
    let mut attacked = FormState::new(form(hostile));
    let mut plain = FormState::new(form(visible));
    // Typed into and drawn, on both the fields page and the review.
    for state in [&mut attacked, &mut plain] {
        typed(state, "ok");
    }
    let seen = screen(&mut attacked, 70, 30);
    assert_eq!(seen, screen(&mut plain, 70, 30));
    assert!(seen.iter().any(|l| l.contains(visible[0])), "{seen:#?}");
    assert!(seen[0].starts_with("deploy<U+001B>[2J<U+001B>[H✔ Ready to send (pay<U+200B>"));
    for line in &seen {
        assert!(
            !line.chars().any(|c| c.is_control()
                || matches!(c, '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2060}'..='\u{2069}' | '\u{e0000}'..='\u{e007f}')),
            "a hiding character reached the screen: {line:?}"
        );
    }
    for state in [&mut attacked, &mut plain] {
        press(state, &[Key::Tab, Key::Tab, Key::Enter]);
        assert!(state.is_reviewing());
    }
    assert_eq!(screen(&mut attacked, 70, 30), screen(&mut plain, 70, 30));

    // The person cannot type them into a box either.
    let mut state = FormState::new(form(visible));
    for c in ['a', '\u{202e}', '\u{200b}', '\u{1b}', 'b'] {
        state.handle_key(Key::Char(c));
    }
    press(&mut state, &[Key::Enter]);
    assert_eq!(state.engine().value("a"), Some(&json!("ab")));
}

// covers: K1
#[test]
fn the_widget_draws_inside_its_area_only_and_keeps_the_focus_in_view() {
    let mut state = FormState::new(kitchen_sink());
    for _ in 0..9 {
        press(&mut state, &[Key::Tab]);
    }
    assert_eq!(state.focused_field(), Some("reviewers"));
    let mut terminal = Terminal::new(TestBackend::new(70, 20)).expect("a test terminal");
    terminal
        .draw(|frame| {
            // What the application drew before: `x` on blue everywhere.
            let whole = frame.area();
            for y in 0..whole.height {
                frame.buffer_mut().set_string(
                    0,
                    y,
                    "x".repeat(usize::from(whole.width)),
                    ratatui::style::Style::new().bg(Color::Blue),
                );
            }
            let area = ratatui::layout::Rect::new(5, 3, 60, 12);
            frame.render_stateful_widget(FormView::new().theme(Theme::plain()), area, &mut state);
        })
        .expect("drawn");
    let buffer = terminal.backend().buffer();
    for y in 0..20u16 {
        for x in 0..70u16 {
            let inside = (5..65).contains(&x) && (3..15).contains(&y);
            if !inside {
                assert_eq!(buffer[(x, y)].symbol(), "x", "({x}, {y}) outside the area");
                assert_eq!(
                    buffer[(x, y)].bg,
                    Color::Blue,
                    "({x}, {y}) outside the area"
                );
            }
        }
    }
    let lines = lines_of(terminal.backend());
    let inner: Vec<String> = lines[3..15]
        .iter()
        .map(|l| {
            let inside: String = l.chars().skip(5).take(60).collect();
            inside.trim_end().to_owned()
        })
        .collect();
    assert_eq!(
        inner,
        [
            "release-bot 1.2 asks:",
            "    any of the options, from 1 to 2 of them                ▲",
            "    [x] linux",
            "    [ ] macos",
            "    [ ] windows",
            "",
            "▶ Reviewers *",
            "    any of the options, at least 2 of them",
            "  > [ ] Ada Lovelace",
            "    [ ] Grace Hopper",
            "  [ Review ]  [ Decline ]  [ Cancel ]",
            // Cut at the area's edge, not past it.
            "↑↓ move · Space check · Enter next · Tab fields · Ctrl-D dec",
        ]
    );
}

/// Polls `future` on this thread, parked between wake-ups.
fn block_on<F: std::future::Future>(future: F) -> F::Output {
    use std::sync::Arc;
    use std::task::{Context, Poll, Wake, Waker};
    struct Unpark(std::thread::Thread);
    impl Wake for Unpark {
        fn wake(self: Arc<Self>) {
            self.0.unpark();
        }
    }
    let waker = Waker::from(Arc::new(Unpark(std::thread::current())));
    let mut cx = Context::from_waker(&waker);
    let mut future = std::pin::pin!(future);
    loop {
        if let Poll::Ready(output) = future.as_mut().poll(&mut cx) {
            return output;
        }
        std::thread::park_timeout(Duration::from_millis(50));
    }
}

fn request() -> Value {
    json!({
        "mode": "form", "sessionId": "s1", "toolCallId": "t7", "message": "How many passes?",
        "requestedSchema": { "type": "object", "required": ["passes"], "properties": {
            "passes": { "type": "integer", "title": "Passes", "minimum": 1, "maximum": 5, "default": 2 }
        } }
    })
}

// covers: C1, F3, K1, K2, R1
#[test]
fn the_tui_asker_hands_the_form_to_the_event_loop_and_its_answer_to_the_engine() {
    let (mut asker, questions) = TuiAsker::new();
    let responder = ClientEngine::new(AgentIdentity::new("plan-bot"));
    assert_eq!(
        responder.capabilities(&asker).to_json(),
        Some(json!({ "form": {}, "url": {} }))
    );
    let engine = std::thread::spawn(move || block_on(responder.respond(&mut asker, &request())));
    let mut question = questions
        .recv_timeout(Duration::from_secs(10))
        .expect("the form arrives");
    assert!(!question.is_withdrawn());
    let mut terminal = Terminal::new(TestBackend::new(60, 12)).expect("a test terminal");
    terminal
        .draw(|frame| {
            frame.render_stateful_widget(QuestionView::new(), frame.area(), &mut question)
        })
        .expect("drawn");
    let lines = lines_of(terminal.backend());
    assert_eq!(
        lines[..7],
        [
            "plan-bot asks:",
            "  How many passes?",
            "  (session s1, tool call t7)",
            "",
            "▶ Passes *",
            "    a whole number from 1 to 5",
            "    [2                                       ]",
        ]
    );
    for key in [Key::Backspace, Key::Char('4'), Key::Enter, Key::Enter] {
        assert!(!question.handle_key(key));
    }
    assert!(question.handle_key(Key::Enter), "sent from the review");
    let response = engine.join().expect("the engine ends").expect("answered");
    assert_eq!(
        response.to_json(),
        json!({ "action": "accept", "content": { "passes": 4 } })
    );
}

// covers: K1, R1
#[test]
fn a_question_the_engine_stops_waiting_for_is_withdrawn_and_a_dropped_one_cancels() {
    let (mut asker, questions) = TuiAsker::new();
    let responder = ClientEngine::new(AgentIdentity::new("plan-bot"));
    let (expire, expired) = futures::channel::oneshot::channel::<()>();
    let engine = std::thread::spawn(move || {
        block_on(responder.respond_until(&mut asker, &request(), async {
            let _ = expired.await;
        }))
    });
    let question = questions
        .recv_timeout(Duration::from_secs(10))
        .expect("the form arrives");
    expire.send(()).expect("the engine waits");
    let response = engine.join().expect("the engine ends").expect("answered");
    assert_eq!(response.to_json(), json!({ "action": "cancel" }));
    assert!(question.is_withdrawn());
    // The person is told, through the same loop.
    match questions.recv_timeout(Duration::from_secs(10)) {
        Some(Question::Notice(text)) => assert_eq!(
            text,
            "the request from plan-bot timed out and was cancelled; nothing was sent"
        ),
        other => panic!("a notice, not {other:?}"),
    }

    // A question the loop drops unanswered is `cancel`.
    let (mut asker, questions) = TuiAsker::new();
    let responder = ClientEngine::new(AgentIdentity::new("plan-bot"));
    let engine = std::thread::spawn(move || block_on(responder.respond(&mut asker, &request())));
    drop(
        questions
            .recv_timeout(Duration::from_secs(10))
            .expect("the form arrives"),
    );
    let response = engine.join().expect("the engine ends").expect("answered");
    assert_eq!(response.to_json(), json!({ "action": "cancel" }));
}

// covers: S5
#[test]
fn hostile_text_in_a_url_request_changes_nothing_but_its_own_text() {
    use elicit::client::tui::{ConsentState, ConsentView};
    use elicit::client::{Intro, UrlReview};
    let draw = |agent: &str, message: &str| {
        let agent = AgentIdentity::new(agent);
        let intro = Intro {
            agent: &agent,
            message,
            scope: None,
        };
        let review = UrlReview::new("https://example.com/x").expect("reviewable");
        let mut state = ConsentState::new(&intro, review);
        let mut terminal = Terminal::new(TestBackend::new(70, 16)).expect("a test terminal");
        terminal
            .draw(|frame| {
                frame.render_stateful_widget(ConsentView::new(), frame.area(), &mut state)
            })
            .expect("drawn");
        lines_of(terminal.backend())
    };
    let attacked = draw(
        "bot\u{1b}]0;owned\u{7}",
        "Open \u{202e}moc.elpmaxe\u{202c}\u{200b}\u{1b}[1A\u{1b}[2KNo warnings.",
    );
    let plain = draw(
        "bot<U+001B>]0;owned<U+0007>",
        "Open <U+202E>moc.elpmaxe<U+202C><U+200B><U+001B>[1A<U+001B>[2KNo warnings.",
    );
    assert_eq!(attacked, plain);
    assert_eq!(attacked[0], "bot<U+001B>]0;owned<U+0007> asks:");
}

// Bad input never panics: any area, down to nothing.
#[test]
fn every_size_of_area_is_drawn_without_panicking() {
    let mut form = FormState::new(kitchen_sink());
    typed(&mut form, "東京都の長い名前");
    let mut consent = consent_state("https://login.xn--pypal-4ve.com/connect");
    for width in [0u16, 1, 2, 3, 5, 9, 17, 33] {
        for height in [0u16, 1, 2, 3, 4, 7] {
            let mut terminal =
                Terminal::new(TestBackend::new(width, height)).expect("a test terminal");
            terminal
                .draw(|frame| {
                    frame.render_stateful_widget(FormView::new(), frame.area(), &mut form);
                })
                .expect("drawn");
            terminal
                .draw(|frame| {
                    frame.render_stateful_widget(
                        elicit::client::tui::ConsentView::new(),
                        frame.area(),
                        &mut consent,
                    );
                })
                .expect("drawn");
        }
    }
    // Too small to show everything: consent is not given.
    assert_eq!(consent.handle_key(Key::Char('y')), None);
}

// covers: F3, F4, K1
#[test]
fn optional_choices_are_left_empty_and_a_refused_submission_shows_each_problem() {
    use elicit::client::{FormPrompt, Intro, StopSignal};
    let schema = RequestedSchema::from_json_lenient(&json!({
        "type": "object",
        "properties": {
            "ok": { "type": "boolean", "title": "OK", "default": true },
            "size": { "type": "string", "enum": ["s", "m"], "default": "m" },
            "code": { "type": "string", "title": "Code", "minLength": 2 }
        }
    }))
    .expect("a valid schema");
    let form =
        FormEngine::new(&schema, AgentIdentity::new("bot"), "Optional things").expect("renderable");
    // What the engine sends back when an answer it got did not validate: every
    // problem beside its field, the focus on the first.
    let problems = schema
        .validate(&json!({ "code": "x" }))
        .expect_err("too short");
    let stop = StopSignal::new();
    let prompt = FormPrompt {
        intro: Intro {
            agent: form.agent(),
            message: form.message(),
            scope: None,
        },
        form: &form,
        problems: Some(&problems),
        stop: &stop,
    };
    let mut state = FormState::from_prompt(&prompt);
    assert_eq!(state.focused_field(), Some("code"));
    assert_eq!(
        state.problem("code"),
        Some("is 1 character long; at least 2 required")
    );
    // The defaults taken back: "(leave empty)" on both optional lists.
    press(&mut state, &[Key::BackTab, Key::BackTab]);
    assert_eq!(state.focused_field(), Some("ok"));
    press(&mut state, &[Key::Down, Key::Down, Key::Enter]);
    press(&mut state, &[Key::Down, Key::Enter]);
    assert_eq!(state.focused_field(), Some("code"));
    let lines = screen(&mut state, 60, 24);
    assert!(
        lines.contains(&"    (•) (leave empty)".to_owned()),
        "{lines:#?}"
    );
    press(&mut state, &[Key::Enter, Key::Enter]);
    assert!(state.is_reviewing());
    assert_eq!(
        press(&mut state, &[Key::Enter]),
        Some(FormAnswer::Submit(Map::new())),
        "every optional field left empty: nothing in the content"
    );
}

// covers: K2
#[test]
fn a_form_without_fields_opens_on_its_buttons() {
    let schema = RequestedSchema::from_json_lenient(&json!({ "type": "object", "properties": {} }))
        .expect("a valid schema");
    let form =
        FormEngine::new(&schema, AgentIdentity::new("bot"), "Just confirm").expect("renderable");
    let mut state = FormState::new(form);
    let lines = screen(&mut state, 50, 6);
    assert_eq!(
        lines,
        [
            "bot asks:",
            "  Just confirm",
            "",
            "",
            " ▶[ Review ]  [ Decline ]  [ Cancel ]",
            "←→ buttons · Enter press · Shift-Tab fields · Ctrl",
        ]
    );
    press(&mut state, &[Key::Enter]);
    assert_eq!(
        press(&mut state, &[Key::Enter]),
        Some(FormAnswer::Submit(Map::new()))
    );
}
