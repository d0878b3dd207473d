//! The agent's own page for URL-mode elicitations (`elicit::axum::SecurePage`) in a real
//! browser, end to end: `examples/url_secret_agent.rs` runs as a child over stdio, this
//! file is its ACP client (consenting to the URL-mode request as a user would), and a
//! headless Chromium opens the link, fills the page with a user's keys and clicks, and
//! submits. The agent must then complete the elicitation and say that a key arrived,
//! never the key (U3, U5). The browser's own behaviour is part of what is tested: the
//! cookie that binds the page to the browser that first submitted it, the headers it sends on a
//! form submission from another page, its history.
//!
//! The ACP client is small: one JSON line per message, every read bounded, the child
//! killed on drop. Its messages are checked against the official ACP schemas.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use axum::response::Html;
use axum::routing::get;
use axum::Router;
use fantoccini::Locator;
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

use crate::common;
use crate::harness::{self, bounded, serve, Browser, Result, COMMAND_TIMEOUT, WAIT_TIMEOUT};

/// A whole test may take this long (Chromium's start and the agent's included; the
/// example is built before the clock starts).
const LIMIT: Duration = Duration::from_secs(180);
/// How long to wait for any one message from the agent.
const READ_TIMEOUT: Duration = Duration::from_secs(20);
/// How long the agent must stay silent after a refused request.
const QUIET: Duration = Duration::from_secs(1);

/// The key the user types: 24 characters, valid (16 to 200).
const KEY: &str = "sk-live-4f9a0c1d2e3b4a5f";
/// A key the page must refuse: shorter than 16 characters.
const SHORT_KEY: &str = "sk-short-9x7";
/// The key a hostile page posts: 23 characters, a length no test's user types.
const ATTACKER_KEY: &str = "attacker-key-0123456789";

/// The page's titles, as the secure page writes them.
const FORM_TITLE: &str = "Answer the agent";
const RECEIVED_TITLE: &str = "Received";
const REFUSED_TITLE: &str = "This page cannot be used";

/// The page's fields.
const KEY_INPUT: &str = "input[name='f.api_key']";
const ACCEPT: &str = "button[value=accept]";
const US_EAST: &str = "US East (Virginia)";

fn screenshot_path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("target")
        .join("screenshots")
        .join(name)
}

/// The example, built once for this binary (a no-op when fresh).
fn binary() -> &'static Path {
    static BINARY: OnceLock<PathBuf> = OnceLock::new();
    BINARY.get_or_init(|| common::build_example("url_secret_agent"))
}

/// The example agent as a child, seen from its ACP client: newline-delimited JSON-RPC on
/// its stdin and stdout. Killed when dropped.
struct Agent {
    child: Child,
    stdin: ChildStdin,
    stdout: Lines<BufReader<ChildStdout>>,
    next_id: i64,
}

impl Agent {
    fn start() -> Result<Agent> {
        let mut child = Command::new(binary())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| format!("cannot start the example: {e}"))?;
        let stdin = child.stdin.take().ok_or("no stdin")?;
        let stdout = BufReader::new(child.stdout.take().ok_or("no stdout")?).lines();
        Ok(Agent {
            child,
            stdin,
            stdout,
            next_id: 0,
        })
    }

    async fn send(&mut self, message: Value) -> Result<()> {
        let line = format!("{message}\n");
        bounded("writing to the agent", READ_TIMEOUT, async {
            self.stdin.write_all(line.as_bytes()).await?;
            self.stdin.flush().await
        })
        .await
    }

    /// The agent's next message within `limit`, or `None` when it sent none.
    async fn recv_within(&mut self, limit: Duration) -> Result<Option<Value>> {
        match tokio::time::timeout(limit, self.stdout.next_line()).await {
            Err(_) => Ok(None),
            Ok(Err(e)) => Err(format!("reading from the agent: {e}").into()),
            Ok(Ok(None)) => Err("the agent closed its stdout".into()),
            Ok(Ok(Some(line))) => Ok(Some(
                serde_json::from_str(&line).map_err(|e| format!("not JSON ({e}): {line}"))?,
            )),
        }
    }

    async fn recv(&mut self) -> Result<Value> {
        self.recv_within(READ_TIMEOUT)
            .await?
            .ok_or_else(|| format!("no message from the agent within {READ_TIMEOUT:?}").into())
    }

    /// Fails when the agent sends anything within [`QUIET`].
    async fn assert_quiet(&mut self, after: &str) -> Result<()> {
        match self.recv_within(QUIET).await? {
            None => Ok(()),
            Some(message) => {
                Err(format!("the agent sent a message after {after}: {message}").into())
            }
        }
    }

    async fn request(&mut self, method: &str, params: Value) -> Result<i64> {
        let id = self.next_id;
        self.next_id += 1;
        self.send(json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }))
            .await?;
        Ok(id)
    }

    async fn call(&mut self, method: &str, params: Value) -> Result<Value> {
        let id = self.request(method, params).await?;
        let response = self.recv().await?;
        if response["id"] != id || response.get("error").is_some() {
            return Err(format!("`{method}` answered {response}").into());
        }
        Ok(response["result"].clone())
    }

    /// `initialize` with URL mode, `session/new`, `session/prompt`; the agent's
    /// `elicitation/create`, answered `accept` (the user consents to open the link, U2).
    async fn consent(&mut self) -> Result<Turn> {
        self.call(
            "initialize",
            json!({
                "protocolVersion": 1,
                "clientCapabilities": { "elicitation": { "url": {} } },
                "clientInfo": { "name": "elicit-browser-test", "version": "0.0.0" }
            }),
        )
        .await?;
        let session = self
            .call("session/new", json!({ "cwd": "/tmp", "mcpServers": [] }))
            .await?["sessionId"]
            .as_str()
            .ok_or("no session id")?
            .to_owned();
        let prompt = self
            .request(
                "session/prompt",
                json!({
                    "sessionId": session,
                    "prompt": [{ "type": "text", "text": "Connect my deploy account" }]
                }),
            )
            .await?;
        let create = self.recv().await?;
        assert_eq!(create["method"], "elicitation/create", "{create}");
        let params = create["params"].clone();
        common::assert_valid_acp("CreateElicitationRequest", &params);
        assert_eq!(params["mode"], "url", "{params}");
        assert_eq!(params["sessionId"], session.as_str(), "{params}");
        let url = params["url"].as_str().ok_or("no url")?.to_owned();
        // S1: the loopback page and a 256-bit token, nothing else.
        let token = url
            .strip_prefix("http://127.0.0.1:")
            .and_then(|rest| rest.split_once("/elicit/"))
            .map(|(_, token)| token)
            .ok_or_else(|| format!("not the agent's page: {url}"))?;
        assert!(
            token.len() == 64 && token.bytes().all(|c| c.is_ascii_hexdigit()),
            "{url}"
        );
        let answer = json!({ "action": "accept" });
        common::assert_valid_acp("CreateElicitationResponse", &answer);
        self.send(json!({ "jsonrpc": "2.0", "id": create["id"], "result": answer }))
            .await?;
        Ok(Turn {
            session,
            prompt,
            url,
            elicitation_id: params["elicitationId"].clone(),
        })
    }

    /// After the page was submitted: `elicitation/complete` with the request's id
    /// (U5), the turn's agent message, the prompt's `end_turn`. Returns the message.
    async fn completed(&mut self, turn: &Turn) -> Result<String> {
        let complete = self.recv().await?;
        assert_eq!(complete["method"], "elicitation/complete", "{complete}");
        assert!(complete.get("id").is_none(), "a notification: {complete}");
        assert_eq!(complete["params"]["elicitationId"], turn.elicitation_id);
        common::assert_valid_acp("CompleteElicitationNotification", &complete["params"]);
        let update = self.recv().await?;
        assert_eq!(update["method"], "session/update", "{update}");
        assert_eq!(update["params"]["sessionId"], turn.session.as_str());
        let text = update["params"]["update"]["content"]["text"]
            .as_str()
            .ok_or_else(|| format!("no agent message: {update}"))?
            .to_owned();
        let end = self.recv().await?;
        assert_eq!(end["id"], turn.prompt, "{end}");
        assert_eq!(end["result"]["stopReason"], "end_turn", "{end}");
        Ok(text)
    }
}

impl Drop for Agent {
    fn drop(&mut self) {
        let _ = self.child.start_kill();
    }
}

/// One prompt's URL-mode elicitation, consented to.
struct Turn {
    session: String,
    prompt: i64,
    url: String,
    elicitation_id: Value,
}

/// Waits until the page's title is `title` (the next page has loaded).
async fn wait_title(browser: &Browser, title: &str) -> Result<()> {
    let deadline = Instant::now() + WAIT_TIMEOUT;
    loop {
        let now = browser.title().await?;
        if now == title {
            return Ok(());
        }
        if Instant::now() > deadline {
            let text = browser.text("body").await.unwrap_or_default();
            return Err(format!("the page is {now:?}, not {title:?}: {text}").into());
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Waits until a page other than the one titled `before` has loaded; returns its title.
async fn wait_title_change(browser: &Browser, before: &str) -> Result<String> {
    let deadline = Instant::now() + WAIT_TIMEOUT;
    loop {
        let now = browser.title().await?;
        if now != before {
            return Ok(now);
        }
        if Instant::now() > deadline {
            return Err(format!("the page stayed {before:?}").into());
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The refusal page's sentence, after checking that the page is one.
async fn refusal(browser: &Browser) -> Result<String> {
    let title = browser.title().await?;
    let text = browser.text("main").await?;
    assert_eq!(title, REFUSED_TITLE, "{text}");
    assert!(!text.contains("Received"), "{text}");
    Ok(text)
}

/// Fills the key, chooses US East by clicking its label, as a user does.
async fn fill_key(browser: &Browser, key: &str) -> Result<()> {
    browser.fill(KEY_INPUT, key).await?;
    let label = bounded(
        "finding the label of US East",
        COMMAND_TIMEOUT,
        browser.client().find(Locator::XPath(&format!(
            "//label[normalize-space(.)='{US_EAST}']"
        ))),
    )
    .await?;
    bounded("clicking US East", COMMAND_TIMEOUT, label.click()).await?;
    let checked = browser
        .execute(
            "const r = document.querySelector(\"input[type=radio][value='us-east']\");
             return r ? r.checked : null;",
            vec![],
        )
        .await?;
    assert_eq!(checked, json!(true), "US East is chosen");
    Ok(())
}

/// Fills the page with the valid key, submits it and checks the turn that follows.
async fn submit_and_complete(browser: &Browser, agent: &mut Agent, turn: &Turn) -> Result<String> {
    fill_key(browser, KEY).await?;
    accept_and_complete(browser, agent, turn).await
}

/// Presses Accept on the filled page and checks the turn that follows: the completion,
/// and a message that tells the key's length and region, never the key.
async fn accept_and_complete(browser: &Browser, agent: &mut Agent, turn: &Turn) -> Result<String> {
    browser.click(ACCEPT).await?;
    wait_title(browser, RECEIVED_TITLE).await?;
    let text = agent.completed(turn).await?;
    assert!(
        text.contains(&format!("API key of {} characters", KEY.chars().count())),
        "{text}"
    );
    assert!(text.contains("UsEast"), "{text}");
    // U3: the key never goes back over ACP.
    assert!(!text.contains(KEY), "{text}");
    Ok(text)
}

// covers: U1, U2, U3, U5, S1, S6, F3, F5, F6
#[test]
fn a_key_typed_in_a_browser_reaches_the_agent_and_a_replay_is_refused() {
    binary();
    harness::run(LIMIT, || async {
        let Some(browser) = Browser::start().await? else {
            return Ok(());
        };
        let mut agent = Agent::start()?;
        let turn = agent.consent().await?;

        browser.goto(&turn.url).await?;
        wait_title(&browser, FORM_TITLE).await?;
        let main = browser.text("main").await?;
        assert!(main.contains("Connect your deploy account"), "{main}");
        // F5: the key is asked for in a password field, on the agent's page.
        assert_eq!(
            browser.attr(KEY_INPUT, "type").await?.as_deref(),
            Some("password")
        );

        // Too short: the page comes back with the error beside the field (F3).
        browser.fill(KEY_INPUT, SHORT_KEY).await?;
        browser.click(ACCEPT).await?;
        if let Err(e) = browser.wait_for(".elicit-error").await {
            let page = browser.text("body").await.unwrap_or_default();
            return Err(format!("{e}; the page says: {page}").into());
        }
        let error = browser
            .execute(
                r#"
                const input = document.querySelector(arguments[0]);
                const ids = (input.getAttribute('aria-describedby') || '').split(' ');
                const error = ids.map(id => document.getElementById(id))
                    .find(e => e && e.classList.contains('elicit-error'));
                if (!error) return null;
                const a = input.getBoundingClientRect();
                const e = error.getBoundingClientRect();
                return {
                    text: error.textContent,
                    inField: input.closest('.elicit-field').contains(error),
                    invalid: input.getAttribute('aria-invalid'),
                    value: input.value,
                    gap: Math.round(e.top - a.bottom),
                };
                "#,
                vec![json!(KEY_INPUT)],
            )
            .await?;
        assert!(
            error["text"]
                .as_str()
                .is_some_and(|t| t.contains("at least 16")),
            "{error}"
        );
        assert_eq!(error["inField"], true, "{error}");
        assert_eq!(error["invalid"], "true", "{error}");
        // Under the input, below its description and length hint: near, never above.
        assert!(
            (0..=80).contains(&error["gap"].as_i64().unwrap_or(-1)),
            "{error}"
        );
        // The typed secret is not written back into the page.
        assert_eq!(error["value"], "", "{error}");
        let source = browser.page_source().await?;
        assert!(!source.contains(SHORT_KEY), "the key is in the page");
        browser
            .screenshot(&screenshot_path("url_page_errors.png"))
            .await?;
        agent.assert_quiet("a refused answer").await?;

        // The valid key, a region chosen, and the turn that reports it.
        fill_key(&browser, KEY).await?;
        browser.screenshot(&screenshot_path("url_page.png")).await?;
        accept_and_complete(&browser, &mut agent, &turn).await?;

        // Replay. Reloading "Received" makes the browser post the accepted answer again.
        bounded("reloading", COMMAND_TIMEOUT, browser.client().refresh()).await?;
        wait_title(&browser, REFUSED_TITLE).await?;
        let text = refusal(&browser).await?;
        assert!(text.contains("already used"), "{text}");
        // Back in history: the page before was the answer with errors, a POST the page
        // forbade to cache (`no-store`), so Chromium asks to send it again; reloading
        // sends it. Should a browser show the form from its cache instead, Accept on it.
        bounded("going back", COMMAND_TIMEOUT, browser.client().back()).await?;
        let title = wait_title_change(&browser, REFUSED_TITLE).await?;
        if title == FORM_TITLE {
            browser.fill(KEY_INPUT, KEY).await?;
            browser.click(ACCEPT).await?;
        } else {
            let body = browser.text("body").await?;
            assert!(body.contains("ERR_CACHE_MISS"), "{title}: {body}");
            bounded("resending", COMMAND_TIMEOUT, browser.client().refresh()).await?;
        }
        wait_title(&browser, REFUSED_TITLE).await?;
        let text = refusal(&browser).await?;
        assert!(text.contains("already used"), "{text}");
        // The link itself.
        browser.goto(&turn.url).await?;
        let text = refusal(&browser).await?;
        assert!(text.contains("already used"), "{text}");
        assert!(!browser.page_source().await?.contains(KEY));
        agent.assert_quiet("a replay").await?;

        browser.close().await?;
        Ok(())
    });
}

// covers: S6, U3, U5
#[test]
fn a_form_posted_from_another_page_is_refused_and_the_real_page_still_works() {
    binary();
    harness::run(LIMIT, || async {
        let Some(browser) = Browser::start().await? else {
            return Ok(());
        };
        let mut agent = Agent::start()?;
        let turn = agent.consent().await?;

        // The victim opens the real link: the browser now holds the page's cookie.
        browser.goto(&turn.url).await?;
        wait_title(&browser, FORM_TITLE).await?;

        // A page on another loopback port posts a form of its own to the link.
        let attacker = format!(
            "<!doctype html><html lang=en><meta charset=utf-8><title>Win a prize</title>\
             <form method=post action=\"{}\">\
             <input type=hidden name=f.api_key value={ATTACKER_KEY}>\
             <input type=hidden name=f.region value=eu-west>\
             <input type=hidden name=elicit-action value=accept>\
             <button id=claim>Claim</button></form>",
            turn.url
        );
        let server = serve(Router::new().route(
            "/",
            get(move || {
                let page = attacker.clone();
                async move { Html(page) }
            }),
        ))
        .await?;
        browser.goto(&server.url("/")).await?;
        wait_title(&browser, "Win a prize").await?;
        browser.click("#claim").await?;
        wait_title_change(&browser, "Win a prize").await?;
        // Refused: the same-origin check (the cookie is sent: another port of the same
        // host is the same site), or the cookie's SameSite=Strict where it is not.
        let text = refusal(&browser).await?;
        assert!(
            text.contains("only be sent from its own page")
                || text.contains("not opened in this browser"),
            "{text}"
        );
        agent.assert_quiet("a cross-site post").await?;
        server.stop().await;

        // The real page still takes the real key; the attacker's never arrived.
        browser.goto(&turn.url).await?;
        wait_title(&browser, FORM_TITLE).await?;
        let text = submit_and_complete(&browser, &mut agent, &turn).await?;
        assert!(
            !text.contains(&format!("of {} characters", ATTACKER_KEY.len())),
            "{text}"
        );

        browser.close().await?;
        Ok(())
    });
}

// covers: S6, U5
#[test]
fn a_page_submitted_in_one_browser_is_refused_in_another() {
    binary();
    harness::run(LIMIT, || async {
        let Some(first) = Browser::start().await? else {
            return Ok(());
        };
        let mut agent = Agent::start()?;
        let turn = agent.consent().await?;
        first.goto(&turn.url).await?;
        wait_title(&first, FORM_TITLE).await?;

        // Another browser, a fresh profile (a link previewer, another device): looking
        // binds nothing, so it is shown the form too.
        let second = Browser::start().await?.ok_or("the second browser")?;
        second.goto(&turn.url).await?;
        wait_title(&second, FORM_TITLE).await?;

        // The first browser submits (a key too short): that binds the page to it.
        first.fill(KEY_INPUT, SHORT_KEY).await?;
        first.click(ACCEPT).await?;
        first.wait_for(".elicit-error").await?;

        // The second browser is refused from then on, sending or looking.
        second.fill(KEY_INPUT, ATTACKER_KEY).await?;
        second.click(ACCEPT).await?;
        wait_title(&second, REFUSED_TITLE).await?;
        let text = refusal(&second).await?;
        assert!(text.contains("answered in another browser"), "{text}");
        second.goto(&turn.url).await?;
        let text = refusal(&second).await?;
        assert!(text.contains("answered in another browser"), "{text}");
        assert!(second.find_all(KEY_INPUT).await?.is_empty());
        second.close().await?;
        agent.assert_quiet("a second browser").await?;

        // The first browser still submits, its own key.
        let text = submit_and_complete(&first, &mut agent, &turn).await?;
        assert!(
            !text.contains(&format!("of {} characters", ATTACKER_KEY.len())),
            "{text}"
        );
        first.close().await?;
        Ok(())
    });
}

/// Connect your deploy account
#[derive(elicit::Elicit, Debug)]
#[elicit(url_mode)]
struct MountedKey {
    /// The API key of your deploy account
    #[elicit(title = "API key", min_length = 16, max_length = 200)]
    api_key: String,
}

/// The server's own application, on 127.0.0.1, with the secure page nested at `/elicit`
/// beside a route of its own.
struct MountedApp {
    task: tokio::task::JoinHandle<()>,
}

impl Drop for MountedApp {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// The page mounted in a server's own axum application (`SecurePageBuilder::mounted` and
/// `SecurePage::router`, nested at `/elicit`), in Chromium, at the public origin
/// `http://agent.localhost:PORT`: a name, not the listener's address, so the `Host`
/// check is the router mode's. Not `https://agent.example.com`: that needs TLS, which
/// these tests do not build, and `mounted` refuses plain http outside loopback (S1);
/// `*.localhost` is loopback, so plain http is accepted for it, as for development.
/// Chromium is told to resolve the name to 127.0.0.1 (`--host-resolver-rules`).
// covers: S1, S6, F5, U3
#[test]
fn the_page_nested_in_an_app_works_at_its_public_origin_and_nowhere_else() {
    use elicit::agent::UserId;
    use elicit::axum::SecurePage;
    use elicit::Elicited;

    harness::run(LIMIT, || async {
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0)).await?;
        let port = listener.local_addr()?.port();
        let origin = format!("http://agent.localhost:{port}");
        // Alice's own deployment, without a login: the page takes whoever fills it as
        // alice (S6 given up in so many words).
        let page = SecurePage::builder()
            .unauthenticated_single_user(UserId::new("alice"))
            .mounted(&origin, "/elicit")?;
        let app = Router::new()
            .route(
                "/",
                get(|| async {
                    Html("<!doctype html><html lang=en><title>The agent</title><p>home</p>")
                }),
            )
            .nest(page.mount_path(), page.router());
        let _app = MountedApp {
            task: tokio::spawn(async move {
                let _ = axum::serve(listener, app).await;
            }),
        };
        let rule = "--host-resolver-rules=MAP agent.localhost 127.0.0.1";
        let Some(browser) = Browser::start_with(&[rule]).await? else {
            return Ok(());
        };

        let link = page.link::<MountedKey>("Paste the API key of your deploy account")?;
        let url = link.url().to_owned();
        let path = url
            .strip_prefix(&origin)
            .ok_or_else(|| format!("the link is not on the public origin: {url}"))?
            .to_owned();
        assert!(path.starts_with("/elicit/"), "{url}");
        let wait = link.open("e-1", Some(&UserId::new("alice")))?;

        // The application's own route answers beside the page.
        browser.goto(&format!("{origin}/")).await?;
        wait_title(&browser, "The agent").await?;

        // The same page under the listener's own address is another host: refused,
        // and that visit binds no browser.
        browser
            .goto(&format!("http://127.0.0.1:{port}{path}"))
            .await?;
        let text = refusal(&browser).await?;
        assert!(text.contains("only under the address"), "{text}");

        browser.goto(&url).await?;
        wait_title(&browser, FORM_TITLE).await?;
        assert_eq!(
            browser.attr(KEY_INPUT, "type").await?.as_deref(),
            Some("password")
        );
        // A page of another origin posts its own key to the link: refused.
        let attacker = format!(
            "<!doctype html><html lang=en><meta charset=utf-8><title>Win a prize</title>\
             <form method=post action=\"{url}\">\
             <input type=hidden name=f.api_key value={ATTACKER_KEY}>\
             <input type=hidden name=elicit-action value=accept>\
             <button id=claim>Claim</button></form>"
        );
        let server = serve(Router::new().route(
            "/",
            get(move || {
                let page = attacker.clone();
                async move { Html(page) }
            }),
        ))
        .await?;
        browser.goto(&server.url("/")).await?;
        wait_title(&browser, "Win a prize").await?;
        browser.click("#claim").await?;
        wait_title_change(&browser, "Win a prize").await?;
        let text = refusal(&browser).await?;
        assert!(
            text.contains("only be sent from its own page")
                || text.contains("not opened in this browser"),
            "{text}"
        );
        server.stop().await;
        assert_eq!(page.waiting(), 1, "the attacker's key was not taken");

        // The real page takes the real key, typed as a user does.
        browser.goto(&url).await?;
        wait_title(&browser, FORM_TITLE).await?;
        browser.fill(KEY_INPUT, KEY).await?;
        browser
            .screenshot(&screenshot_path("url_page_mounted.png"))
            .await?;
        browser.click(ACCEPT).await?;
        wait_title(&browser, RECEIVED_TITLE).await?;
        let answer = bounded("the page's answer", READ_TIMEOUT, async {
            wait.answer().await
        })
        .await?;
        let Elicited::Accepted(submitted) = answer else {
            return Err(format!("not accepted: {answer:?}").into());
        };
        assert_eq!(submitted.user(), Some(&UserId::new("alice")));
        assert_eq!(submitted.value().api_key, KEY);

        // Reloading "Received" posts the answer again: refused as used.
        bounded("reloading", COMMAND_TIMEOUT, browser.client().refresh()).await?;
        wait_title(&browser, REFUSED_TITLE).await?;
        let text = refusal(&browser).await?;
        assert!(text.contains("already used"), "{text}");
        browser.goto(&url).await?;
        let text = refusal(&browser).await?;
        assert!(text.contains("already used"), "{text}");
        assert!(!browser.page_source().await?.contains(KEY));

        browser.close().await?;
        Ok(())
    });
}
