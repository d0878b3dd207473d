//! A real browser for tests: a headless Chromium driven over WebDriver (`chromedriver`,
//! through `fantoccini`), and a small HTTP server on loopback for it to load pages from.
//!
//! - [`run`] runs one browser test: one at a time in this binary (each starts its own
//!   Chromium, and the machine's cores are few), on a fresh tokio runtime, the whole test
//!   bounded by a time limit.
//! - [`Browser::start`] starts `chromedriver --port=<free port>` (killed on drop, with
//!   the browser it started) and opens a headless Chromium session with a fresh profile.
//!   When Chromium or ChromeDriver is missing it returns `None` after saying the test was
//!   skipped, or panics when the `CI` environment variable is set: on CI the browser
//!   tests must run.
//! - [`serve`] serves an axum `Router` on `127.0.0.1:0` until [`TestServer::stop`] (or
//!   drop).
//!
//! Every wait is bounded: the driver's start, the session's creation, each WebDriver
//! command, each wait for an element.
#![allow(dead_code)] // each test module uses its own subset

use std::future::Future;
use std::io::Write as _;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use fantoccini::elements::Element;
use fantoccini::wd::TimeoutConfiguration;
use fantoccini::{Client, ClientBuilder, Locator};
use serde_json::{json, Value};

/// The error of a harness step: what was done, and why it failed.
pub type Error = Box<dyn std::error::Error + Send + Sync>;
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// How long one WebDriver command may take (a navigation included).
pub const COMMAND_TIMEOUT: Duration = Duration::from_secs(30);
/// How long [`Browser::wait_for`] waits for an element to appear.
pub const WAIT_TIMEOUT: Duration = Duration::from_secs(15);
/// How long chromedriver may take to listen, and the session to open.
const START_TIMEOUT: Duration = Duration::from_secs(60);
/// The window: wide enough for a form, tall enough for most of it.
pub const WINDOW: (u32, u32) = (1000, 1200);

/// The flags a headless Chromium needs here: as root it cannot use its sandbox, and this
/// machine's closed network refuses the connections its background services open.
const CHROMIUM_FLAGS: &[&str] = &[
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-extensions",
    "--disable-dev-shm-usage",
    "--hide-scrollbars",
    "--lang=en-US",
];

static SERIAL: Mutex<()> = Mutex::new(());

/// Runs one browser test: alone (a lock shared by this binary's tests), on a fresh
/// current-thread tokio runtime, and failing when it takes longer than `limit`.
pub fn run<F, Fut>(limit: Duration, test: F)
where
    F: FnOnce() -> Fut,
    Fut: Future<Output = Result<()>>,
{
    // A test that failed under the lock poisons it; the next one still runs.
    let _alone = SERIAL.lock().unwrap_or_else(PoisonError::into_inner);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime");
    runtime.block_on(async {
        match tokio::time::timeout(limit, test()).await {
            Ok(Ok(())) => {}
            Ok(Err(e)) => panic!("browser test failed: {e}"),
            Err(_) => panic!("browser test took longer than {limit:?}"),
        }
    });
}

/// Bounds one step: `what` names it in the error.
pub async fn bounded<T, E>(
    what: &str,
    limit: Duration,
    step: impl Future<Output = Result<T, E>>,
) -> Result<T>
where
    E: std::fmt::Display,
{
    match tokio::time::timeout(limit, step).await {
        Ok(Ok(t)) => Ok(t),
        Ok(Err(e)) => Err(format!("{what}: {e}").into()),
        Err(_) => Err(format!("{what}: no answer in {limit:?}").into()),
    }
}

/// The executable `name` (or the path in environment variable `env`), if it exists.
fn find_program(env: &str, names: &[&str]) -> Option<PathBuf> {
    if let Some(path) = std::env::var_os(env) {
        let path = PathBuf::from(path);
        return path.is_file().then_some(path);
    }
    let dirs = std::env::var_os("PATH")?;
    names.iter().find_map(|name| {
        std::env::split_paths(&dirs)
            .map(|dir| dir.join(name))
            .find(|p| p.is_file())
    })
}

/// `chromedriver`, killed with what it started when dropped.
struct Driver {
    child: Child,
    port: u16,
    log: PathBuf,
}

impl Driver {
    fn start(program: &Path, dir: &Path) -> Result<Driver> {
        // A free port: bound, read, released; chromedriver binds it right after.
        let port = TcpListener::bind("127.0.0.1:0")?.local_addr()?.port();
        let log = dir.join("chromedriver.log");
        let mut command = Command::new(program);
        command
            .arg(format!("--port={port}"))
            .arg(format!("--log-path={}", log.display()))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        // Its own process group, so that drop ends the browser it started with it.
        #[cfg(unix)]
        std::os::unix::process::CommandExt::process_group(&mut command, 0);
        let child = command
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", program.display()))?;
        let mut driver = Driver { child, port, log };
        let deadline = Instant::now() + START_TIMEOUT;
        loop {
            if let Some(status) = driver.child.try_wait()? {
                return Err(format!(
                    "chromedriver exited with {status} before listening on port {port}:\n{}",
                    driver.log_tail()
                )
                .into());
            }
            let addr = SocketAddr::from(([127, 0, 0, 1], port));
            if TcpStream::connect_timeout(&addr, Duration::from_millis(200)).is_ok() {
                return Ok(driver);
            }
            if Instant::now() > deadline {
                return Err(format!(
                    "chromedriver did not listen on port {port} within {START_TIMEOUT:?}:\n{}",
                    driver.log_tail()
                )
                .into());
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// The end of chromedriver's log, for error messages.
    fn log_tail(&self) -> String {
        let log = std::fs::read_to_string(&self.log).unwrap_or_default();
        let lines: Vec<&str> = log.lines().collect();
        lines[lines.len().saturating_sub(20)..].join("\n")
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        // The whole group: chromedriver and any Chromium it left running.
        #[cfg(unix)]
        {
            let _ = Command::new("kill")
                .args(["-KILL", "--", &format!("-{}", self.child.id())])
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status();
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A directory removed when dropped (Chromium's profile, chromedriver's log).
struct TempDir(PathBuf);

impl TempDir {
    fn new() -> std::io::Result<TempDir> {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!(
            "elicit-browser-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir)?;
        Ok(TempDir(dir))
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A headless Chromium session. Call [`Browser::close`] at the end of a test; dropping
/// it (a failed test) kills chromedriver and its browser instead.
pub struct Browser {
    client: Client,
    // Dropped in this order: the driver (and its browser), then the profile.
    driver: Driver,
    dir: TempDir,
}

impl Browser {
    /// A new headless Chromium session, or `None` when Chromium or ChromeDriver is not
    /// installed and the `CI` environment variable is not set (the skip is printed).
    ///
    /// # Panics
    ///
    /// When either is missing and `CI` is set: on CI the browser tests must run.
    pub async fn start() -> Result<Option<Browser>> {
        Self::start_with(&[]).await
    }

    /// [`start`](Self::start), with more Chromium flags after the harness's own
    /// (`--host-resolver-rules=...`, say).
    pub async fn start_with(extra_flags: &[&str]) -> Result<Option<Browser>> {
        let chromium = find_program(
            "CHROMIUM",
            &["chromium", "chromium-browser", "google-chrome"],
        );
        let chromedriver = find_program("CHROMEDRIVER", &["chromedriver"]);
        let (Some(chromium), Some(chromedriver)) = (chromium, chromedriver) else {
            let why = "Chromium or ChromeDriver is not installed (`chromium` and \
                       `chromedriver` on PATH, or the CHROMIUM and CHROMEDRIVER variables)";
            if std::env::var_os("CI").is_some() {
                panic!("{why}; on CI the browser tests must run");
            }
            // Straight to stderr: the test harness captures `eprintln!` of a passing test.
            let line = format!("browser test skipped: {why}\n");
            let _ = std::io::stderr().lock().write_all(line.as_bytes());
            return Ok(None);
        };
        let dir = TempDir::new()?;
        let driver = Driver::start(&chromedriver, &dir.0)?;
        let profile = dir.0.join("profile");
        let mut args: Vec<String> = CHROMIUM_FLAGS.iter().map(|f| (*f).to_owned()).collect();
        args.push(format!("--window-size={},{}", WINDOW.0, WINDOW.1));
        args.push(format!("--user-data-dir={}", profile.display()));
        args.extend(extra_flags.iter().map(|f| (*f).to_owned()));
        let capabilities = json!({
            "browserName": "chrome",
            "pageLoadStrategy": "normal",
            "goog:chromeOptions": {
                "binary": chromium,
                "args": args,
            },
        });
        let Value::Object(capabilities) = capabilities else {
            unreachable!("an object")
        };
        let connector = hyper_util::client::legacy::connect::HttpConnector::new();
        let client = bounded(
            "opening a Chromium session",
            START_TIMEOUT,
            ClientBuilder::new(connector)
                .capabilities(capabilities)
                .connect(&driver.url()),
        )
        .await
        .map_err(|e| format!("{e}\nchromedriver's log:\n{}", driver.log_tail()))?;
        let browser = Browser {
            client,
            driver,
            dir,
        };
        bounded(
            "setting the session's timeouts",
            COMMAND_TIMEOUT,
            browser.client.update_timeouts(TimeoutConfiguration::new(
                Some(COMMAND_TIMEOUT),
                Some(COMMAND_TIMEOUT),
                Some(Duration::ZERO),
            )),
        )
        .await?;
        bounded(
            "sizing the window",
            COMMAND_TIMEOUT,
            browser.client.set_window_size(WINDOW.0, WINDOW.1),
        )
        .await?;
        Ok(Some(browser))
    }

    /// The fantoccini client, for what the helpers do not cover.
    pub fn client(&self) -> &Client {
        &self.client
    }

    /// Loads `url` and waits for it to load.
    pub async fn goto(&self, url: &str) -> Result<()> {
        bounded(
            &format!("loading {url}"),
            COMMAND_TIMEOUT,
            self.client.goto(url),
        )
        .await
    }

    /// The element `css` matches now.
    pub async fn find(&self, css: &str) -> Result<Element> {
        bounded(
            &format!("finding `{css}`"),
            COMMAND_TIMEOUT,
            self.client.find(Locator::Css(css)),
        )
        .await
    }

    /// Every element `css` matches now.
    pub async fn find_all(&self, css: &str) -> Result<Vec<Element>> {
        bounded(
            &format!("finding all `{css}`"),
            COMMAND_TIMEOUT,
            self.client.find_all(Locator::Css(css)),
        )
        .await
    }

    /// The element `css` matches, once it appears (at most [`WAIT_TIMEOUT`]).
    pub async fn wait_for(&self, css: &str) -> Result<Element> {
        bounded(
            &format!("waiting for `{css}`"),
            WAIT_TIMEOUT + Duration::from_secs(5),
            self.client
                .wait()
                .at_most(WAIT_TIMEOUT)
                .every(Duration::from_millis(50))
                .for_element(Locator::Css(css)),
        )
        .await
    }

    /// Clears the input `css` matches and types `text` into it, key by key.
    pub async fn fill(&self, css: &str, text: &str) -> Result<()> {
        let input = self.find(css).await?;
        bounded(&format!("clearing `{css}`"), COMMAND_TIMEOUT, input.clear()).await?;
        self.type_into(css, text).await
    }

    /// Types `text` into the element `css` matches, after what it holds.
    pub async fn type_into(&self, css: &str, text: &str) -> Result<()> {
        let input = self.find(css).await?;
        bounded(
            &format!("typing into `{css}`"),
            COMMAND_TIMEOUT,
            input.send_keys(text),
        )
        .await
    }

    /// Clicks the element `css` matches (a button's click waits for the navigation it
    /// starts to begin; wait for an element of the next page after it).
    pub async fn click(&self, css: &str) -> Result<()> {
        let element = self.find(css).await?;
        bounded(
            &format!("clicking `{css}`"),
            COMMAND_TIMEOUT,
            element.click(),
        )
        .await
    }

    /// The visible text of the element `css` matches.
    pub async fn text(&self, css: &str) -> Result<String> {
        let element = self.find(css).await?;
        bounded(
            &format!("reading the text of `{css}`"),
            COMMAND_TIMEOUT,
            element.text(),
        )
        .await
    }

    /// A DOM property of the element `css` matches (`value`, `checked`, ...), as the
    /// page holds it now (not the attribute the markup had).
    pub async fn prop(&self, css: &str, name: &str) -> Result<Option<String>> {
        let element = self.find(css).await?;
        bounded(
            &format!("reading `{name}` of `{css}`"),
            COMMAND_TIMEOUT,
            element.prop(name),
        )
        .await
    }

    /// An attribute of the element `css` matches.
    pub async fn attr(&self, css: &str, name: &str) -> Result<Option<String>> {
        let element = self.find(css).await?;
        bounded(
            &format!("reading attribute `{name}` of `{css}`"),
            COMMAND_TIMEOUT,
            element.attr(name),
        )
        .await
    }

    /// Runs `script` (a function body: `return` gives the value) with `args` in the page.
    pub async fn execute(&self, script: &str, args: Vec<Value>) -> Result<Value> {
        bounded(
            "running a script in the page",
            COMMAND_TIMEOUT,
            self.client.execute(script, args),
        )
        .await
    }

    /// The page's title.
    pub async fn title(&self) -> Result<String> {
        bounded("reading the title", COMMAND_TIMEOUT, self.client.title()).await
    }

    /// The page's markup as the browser holds it now (serialized from the DOM).
    pub async fn page_source(&self) -> Result<String> {
        bounded(
            "reading the page source",
            COMMAND_TIMEOUT,
            self.client.source(),
        )
        .await
    }

    /// A PNG of the whole page, written to `path` (its directory created): the window is
    /// made as tall as the page for the shot (WebDriver shoots the viewport only; the
    /// window's own frame, outer less inner height, is added), then set back.
    pub async fn screenshot(&self, path: &Path) -> Result<()> {
        let sizes = self
            .execute(
                "return [Math.ceil(Math.max(document.documentElement.scrollHeight, \
                 document.body ? document.body.scrollHeight : 0)), \
                 Math.max(0, window.outerHeight - window.innerHeight)];",
                vec![],
            )
            .await?;
        let page = sizes[0].as_u64().unwrap_or(u64::from(WINDOW.1));
        let frame = sizes[1].as_u64().unwrap_or(0);
        let tall = u32::try_from(page + frame)
            .unwrap_or(u32::MAX)
            .clamp(WINDOW.1, 10_000);
        bounded(
            "making the window as tall as the page",
            COMMAND_TIMEOUT,
            self.client.set_window_size(WINDOW.0, tall),
        )
        .await?;
        let png = bounded(
            "taking a screenshot",
            COMMAND_TIMEOUT,
            self.client.screenshot(),
        )
        .await;
        bounded(
            "setting the window back",
            COMMAND_TIMEOUT,
            self.client.set_window_size(WINDOW.0, WINDOW.1),
        )
        .await?;
        let png = png?;
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        std::fs::write(path, png).map_err(|e| format!("writing {}: {e}", path.display()))?;
        Ok(())
    }

    /// Ends the session (Chromium quits), then chromedriver.
    pub async fn close(self) -> Result<()> {
        let Browser {
            client,
            driver,
            dir,
        } = self;
        let closed = bounded("closing the session", COMMAND_TIMEOUT, client.close()).await;
        drop(driver);
        drop(dir);
        closed
    }
}

/// An HTTP server on `127.0.0.1:<free port>`, serving a router until stopped.
pub struct TestServer {
    addr: SocketAddr,
    task: tokio::task::JoinHandle<()>,
}

/// Serves `router` on loopback, on a port the system picks.
pub async fn serve(router: axum::Router) -> Result<TestServer> {
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0)).await?;
    let addr = listener.local_addr()?;
    let task = tokio::spawn(async move {
        axum::serve(listener, router)
            .await
            .expect("the test server runs");
    });
    Ok(TestServer { addr, task })
}

impl TestServer {
    /// The absolute URL of `path` on this server (`path` starts with `/`).
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// Stops the server (open connections are dropped).
    pub async fn stop(mut self) {
        self.task.abort();
        let _ = (&mut self.task).await;
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}
