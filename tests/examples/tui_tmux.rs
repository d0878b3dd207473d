//! `examples/tui_client.rs` in a real terminal: against `examples/mcp_server.rs` over
//! stdio (every kind its form has, protocol 2025-11-25, the version `mcp_server` serves
//! over stdio) and against `examples/conformance_server.rs` over Streamable HTTP (every
//! select form, a default on every type, a 2026-07-28 input round). The client runs
//! full-screen in a tmux pane, keys are sent with `tmux send-keys` as a person types
//! them, and the screen is read back with `tmux capture-pane`: the proof that the form
//! widget (`elicit::client::tui`) works in a real ratatui application on a real
//! terminal, not only on ratatui's test backend.
//!
//! Each run gets a tmux server of its own (`-L`, a socket unique to the process and
//! run, no configuration file), killed when the run ends ([`Tmux`]'s `Drop`). Every
//! wait polls the screen and gives up after [`WAIT`], printing it. The client's stdout
//! (one line per tool result) goes to a file, so the pane shows only the application.
//!
//! The screens a person saw are printed in the test output and saved under
//! `target/screens/` (`tui_form_error.txt`, `tui_review.txt`, `tui_consent.txt`,
//! `tui_multi_select.txt`).
//!
//! tmux comes from `.ci/tmux` on CI; with `CI` set a missing tmux fails these tests,
//! without it they are skipped with a message.
#![cfg(all(feature = "ratatui", feature = "rmcp_3", feature = "url"))]

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use serde_json::Value;

/// How long to wait for one expected screen. Generous: the machine is shared.
const WAIT: Duration = Duration::from_secs(30);

/// How often the screen is read while waiting.
const POLL: Duration = Duration::from_millis(50);

/// `tui_client`, `mcp_server` and `conformance_server`, built once.
fn binaries() -> &'static (PathBuf, PathBuf, PathBuf) {
    static BINARIES: OnceLock<(PathBuf, PathBuf, PathBuf)> = OnceLock::new();
    BINARIES.get_or_init(|| {
        (
            common::build_example("tui_client"),
            common::build_example("mcp_server"),
            common::build_example("conformance_server"),
        )
    })
}

/// `conformance_server` on a loopback port it picks, killed on drop.
struct ConformanceServer {
    child: std::process::Child,
    url: String,
}

impl ConformanceServer {
    fn start() -> ConformanceServer {
        use std::io::BufRead;
        let mut child = Command::new(&binaries().2)
            .arg("0")
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("conformance_server starts");
        let stdout = child.stdout.take().expect("piped stdout");
        // Its first line is its URL; read on a thread so that the wait is bounded.
        let (sender, receiver) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut line = String::new();
            let _ = std::io::BufReader::new(stdout).read_line(&mut line);
            let _ = sender.send(line);
        });
        let url = match receiver.recv_timeout(WAIT) {
            Ok(line) if line.starts_with("http://") => line.trim().to_owned(),
            outcome => {
                let _ = child.kill();
                panic!("conformance_server printed no URL within {WAIT:?}: {outcome:?}");
            }
        };
        ConformanceServer { child, url }
    }
}

impl Drop for ConformanceServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Whether tmux can be run: `false` (with a note) outside CI when it is missing; a
/// failure on CI, where `.ci/tmux` installs it.
fn tmux_available() -> bool {
    match Command::new("tmux").arg("-V").output() {
        Ok(output) if output.status.success() => true,
        outcome => {
            let why = match outcome {
                Ok(output) => format!("`tmux -V` failed ({})", output.status),
                Err(error) => format!("tmux cannot be run ({error})"),
            };
            if std::env::var_os("CI").is_some() {
                panic!("{why}; on CI the real-terminal tests must run (.ci/tmux installs tmux)");
            }
            eprintln!("skipped: {why}; install tmux to run the real-terminal tests");
            false
        }
    }
}

/// One tmux server with one 100×40 pane running `tui_client` against `mcp_server`;
/// killed on drop.
struct Tmux {
    socket: String,
    results: PathBuf,
    name: String,
}

impl Tmux {
    /// `tui_client` against `mcp_server` over stdio.
    fn start(name: &str) -> Tmux {
        let server = binaries().1.to_str().expect("a UTF-8 path").to_owned();
        Tmux::start_with(name, &["--protocol", "2025-11-25", "--", &server])
    }

    /// `tui_client` with these arguments.
    fn start_with(name: &str, args: &[&str]) -> Tmux {
        static RUNS: AtomicUsize = AtomicUsize::new(0);
        let run = RUNS.fetch_add(1, Ordering::SeqCst);
        let socket = format!("elicit-tui-test-{}-{run}", std::process::id());
        let results =
            PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("tui_tmux_{name}.txt"));
        let _ = std::fs::remove_file(&results);
        let mut command = quote(binaries().0.to_str().expect("a UTF-8 path"));
        for arg in args {
            command.push(' ');
            command.push_str(&quote(arg));
        }
        // The pane stays after the client exits, so its last screen can be read.
        let pane = format!(
            "{command} > {}; echo \"[exit $?]\"; sleep 600",
            quote(results.to_str().expect("a UTF-8 path"))
        );
        let tmux = Tmux {
            socket,
            results,
            name: name.to_owned(),
        };
        let started = tmux.run(&[
            "new-session",
            "-d",
            "-s",
            "T",
            "-x",
            "100",
            "-y",
            "40",
            &pane,
        ]);
        assert!(
            started.status.success(),
            "tmux did not start: {}",
            String::from_utf8_lossy(&started.stderr)
        );
        tmux
    }

    /// `tmux -L SOCKET -f /dev/null -u ARGS`: this run's server, no user configuration,
    /// UTF-8 whatever the locale says.
    fn run(&self, args: &[&str]) -> Output {
        Command::new("tmux")
            .args(["-L", &self.socket, "-f", "/dev/null", "-u"])
            .args(args)
            .env("LC_ALL", "C.UTF-8")
            .output()
            .expect("tmux runs")
    }

    /// Sends keys by tmux name (`Enter`, `Down`, `BSpace`, `Escape`, `C-d`).
    fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", "T"];
        args.extend_from_slice(keys);
        let sent = self.run(&args);
        assert!(sent.status.success(), "send-keys {keys:?} failed");
    }

    /// Types `text` literally, as a person would.
    fn type_text(&self, text: &str) {
        let sent = self.run(&["send-keys", "-t", "T", "-l", text]);
        assert!(sent.status.success(), "send-keys -l {text:?} failed");
    }

    /// The visible screen (a full-screen application has no scrollback).
    fn screen(&self) -> String {
        let output = self.run(&["capture-pane", "-p", "-t", "T"]);
        String::from_utf8_lossy(&output.stdout).into_owned()
    }

    /// Waits until the screen shows every one of `texts` at once; returns it then.
    fn wait_for(&self, texts: &[&str]) -> String {
        let start = Instant::now();
        loop {
            let screen = self.screen();
            // The texts shown, on a screen that has stopped changing: a capture taken
            // while the app is still writing a frame shows half of it.
            if texts.iter().all(|text| screen.contains(text)) {
                std::thread::sleep(POLL);
                let again = self.screen();
                if again == screen {
                    return screen;
                }
            }
            if start.elapsed() > WAIT {
                let missing: Vec<&str> = texts
                    .iter()
                    .copied()
                    .filter(|text| !screen.contains(text))
                    .collect();
                panic!(
                    "[{}] {missing:?} not shown within {WAIT:?}; the screen:\n{screen}",
                    self.name
                );
            }
            std::thread::sleep(POLL);
        }
    }

    /// Picks the tool at `index` of the list, and for `plan_task` types its task.
    fn call(&self, index: usize, task: Option<&str>) {
        self.wait_for(&["Pick a tool", "> plan_task", "connect_account"]);
        for _ in 0..index {
            self.keys(&["Down"]);
        }
        self.keys(&["Enter"]);
        if let Some(task) = task {
            self.wait_for(&["tui_client asks:", "Arguments for plan_task", "▶ task *"]);
            self.type_text(task);
            self.keys(&["Enter"]);
        } else {
            self.wait_for(&["tui_client asks:", "▶[ Review ]"]);
        }
        // The Review button, then Send.
        self.keys(&["Enter"]);
        self.wait_for(&["Review: nothing is sent", "▶[ Send ]"]);
        self.keys(&["Enter"]);
    }

    /// Waits for the client to exit and returns the tool's result text.
    fn result(&self, tool: &str) -> String {
        let screen = self.wait_for(&["[exit "]);
        assert!(
            screen.contains("[exit 0]"),
            "[{}] the client failed:\n{screen}",
            self.name
        );
        let out = std::fs::read_to_string(&self.results).expect("the results file exists");
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(
            lines.len(),
            1,
            "stdout must be exactly the one result:\n{out}"
        );
        let json = lines[0]
            .strip_prefix(&format!("{tool}: "))
            .unwrap_or_else(|| panic!("a result of {tool}: {out}"));
        let result: Value = serde_json::from_str(json).expect("the result is JSON");
        assert_eq!(result["isError"], false, "{result}");
        result["content"][0]["text"]
            .as_str()
            .expect("a text result")
            .to_owned()
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let socket = self.run(&["display-message", "-p", "#{socket_path}"]);
        let _ = self.run(&["kill-server"]);
        let socket = String::from_utf8_lossy(&socket.stdout).trim().to_owned();
        if socket.contains(&self.socket) {
            let _ = std::fs::remove_file(socket);
        }
    }
}

/// Single-quoted for the pane's `sh -c`.
fn quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

/// Prints a screen under a header and saves it under `target/screens/`.
fn keep_screen(file: &str, title: &str, screen: &str) {
    eprintln!(
        "===== {title} (100x40, tmux capture-pane) =====\n{screen}===== end of {title} ====="
    );
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("target")
        .join("screens");
    std::fs::create_dir_all(&dir).expect("target/ is writable");
    std::fs::write(dir.join(file), screen).expect("target/screens is writable");
}

/// The lines of `screen` from the one that starts with `first`, `count` of them,
/// trailing blanks dropped.
fn lines_from(screen: &str, first: &str, count: usize) -> Vec<String> {
    screen
        .lines()
        .skip_while(|line| !line.starts_with(first))
        .take(count)
        .map(|line| line.trim_end().to_owned())
        .collect()
}

// covers: K1, K2, K4, F2, F3, F4, D13, R1, V4, V7
#[test]
fn plan_task_typed_refused_corrected_reviewed_and_sent_in_a_real_terminal() {
    if !tmux_available() {
        return;
    }
    let tmux = Tmux::start("plan_task");
    tmux.call(0, Some("refactor the parser"));

    // K1, K4: the server and its message first; every field with its default (F4).
    let screen = tmux.wait_for(&[
        "elicit-mcp-server 0.1.0 asks:",
        "▶ strategy *",
        "  > ( ) Conservative — Small steps, each one reviewed",
    ]);
    let lines: Vec<&str> = screen.lines().collect();
    assert!(
        lines[0].contains("tui_client"),
        "the app's own title bar:\n{screen}"
    );
    assert_eq!(lines[1], "elicit-mcp-server 0.1.0 asks:", "{screen}");
    assert_eq!(
        lines[2],
        "  Before I start, tell me how to go about this task."
    );
    assert!(screen.contains("    [2                                       ]"));
    assert!(screen.contains("    (•) Yes"));
    assert!(screen.contains("  [ Review ]  [ Decline ]  [ Cancel ]"));
    assert!(
        !screen.contains("decline this request"),
        "decline is a button, not an option:\n{screen}"
    );

    // A titled single select: the second option, sent as its value.
    tmux.keys(&["Down", "Enter"]);
    tmux.wait_for(&["▶ Review passes *"]);
    // F3, V4: out of bounds, refused beside the field; the focus stays.
    tmux.keys(&["BSpace"]);
    tmux.type_text("9");
    tmux.keys(&["Enter"]);
    let refused = tmux.wait_for(&["! must be at most 5"]);
    assert_eq!(
        lines_from(&refused, "▶ Review passes *", 5),
        [
            "▶ Review passes *",
            "    How many times to go over the changes before reporting back",
            "    a whole number from 1 to 5",
            "    [9                                       ]",
            "    ! must be at most 5",
        ],
        "{refused}"
    );
    tmux.keys(&["BSpace"]);
    tmux.type_text("3");
    tmux.keys(&["Enter"]);
    // F3, V7: not an email address, refused, then corrected.
    tmux.wait_for(&["▶ Notify"]);
    tmux.type_text("ada@");
    tmux.keys(&["Enter"]);
    let refused = tmux.wait_for(&["! is not a valid email address"]);
    keep_screen(
        "tui_form_error.txt",
        "tui_client: plan_task with a wrong email refused",
        &refused,
    );
    assert_eq!(
        lines_from(&refused, "▶ Notify", 5),
        [
            "▶ Notify",
            "    Where to send a summary when done; leave empty for none",
            "    an email address",
            "    [ada@                                    ]",
            "    ! is not a valid email address",
        ],
        "{refused}"
    );
    assert!(refused.contains("    [3                                       ]"));
    tmux.keys(&["C-u"]);
    tmux.type_text("ada@example.com");
    tmux.keys(&["Enter"]);
    // A boolean whose default (yes) is where the cursor starts: No.
    tmux.wait_for(&["▶ Run tests *", "  > (•) Yes"]);
    tmux.keys(&["Down", "Enter"]);
    tmux.wait_for(&["▶[ Review ]"]);
    tmux.keys(&["Enter"]);

    // K2: the review, every answer as it will be sent.
    let review = tmux.wait_for(&["Ready to send.", "▶[ Send ]"]);
    keep_screen(
        "tui_review.txt",
        "tui_client: the review of plan_task",
        &review,
    );
    assert_eq!(
        lines_from(&review, "elicit-mcp-server 0.1.0 asks:", 10),
        [
            "elicit-mcp-server 0.1.0 asks:",
            "  Before I start, tell me how to go about this task.",
            "",
            "Review: nothing is sent until you press Send",
            "    strategy *: Balanced",
            "    Review passes *: 3",
            "    Notify: ada@example.com",
            "    Run tests *: no",
            "",
            "Ready to send.",
        ]
    );
    tmux.keys(&["Enter"]);
    assert_eq!(
        tmux.result("plan_task"),
        "Plan for \"refactor the parser\": strategy Balanced, 3 review pass(es), \
         notify ada@example.com, run tests: false."
    );
}

// covers: F4, K1, R1, R5
#[test]
fn decline_cancel_and_an_optional_field_left_empty_in_a_real_terminal() {
    if !tmux_available() {
        return;
    }
    // Ctrl-D declines from a field.
    let decline = Tmux::start("decline");
    decline.call(0, Some("a"));
    decline.wait_for(&["▶ strategy *"]);
    decline.keys(&["C-d"]);
    assert_eq!(
        decline.result("plan_task"),
        "You declined the plan; nothing was done."
    );
    drop(decline);

    // Esc cancels, from the review.
    let cancel = Tmux::start("cancel");
    cancel.call(0, Some("b"));
    cancel.wait_for(&["▶ strategy *"]);
    cancel.keys(&["Enter"]);
    for _ in 0..3 {
        cancel.keys(&["Tab"]);
    }
    cancel.wait_for(&["▶[ Review ]"]);
    cancel.keys(&["Enter"]);
    cancel.wait_for(&["Ready to send."]);
    cancel.keys(&["Escape"]);
    assert_eq!(
        cancel.result("plan_task"),
        "You cancelled the plan; nothing was done."
    );
    drop(cancel);

    // The Decline button; then every default kept and the optional field left empty.
    let button = Tmux::start("decline_button");
    button.call(0, Some("c"));
    button.wait_for(&["▶ strategy *"]);
    button.keys(&["Tab", "Tab", "Tab", "Tab", "Right"]);
    button.wait_for(&["▶[ Decline ]"]);
    button.keys(&["Enter"]);
    assert_eq!(
        button.result("plan_task"),
        "You declined the plan; nothing was done."
    );
    drop(button);

    let defaults = Tmux::start("defaults");
    defaults.call(0, Some("d"));
    defaults.wait_for(&["▶ strategy *"]);
    defaults.keys(&["Space", "Tab", "Tab", "Tab", "Tab", "Enter"]);
    defaults.wait_for(&["Notify: (no answer)", "Ready to send."]);
    defaults.keys(&["Enter"]);
    assert_eq!(
        defaults.result("plan_task"),
        "Plan for \"d\": strategy Conservative, 2 review pass(es), notify nobody, run tests: true."
    );
}

// covers: S2, S3, S4, K1, K3, U2, R4
#[test]
fn url_consent_in_a_real_terminal() {
    if !tmux_available() {
        return;
    }
    let tmux = Tmux::start("consent");
    tmux.call(2, None);
    let screen = tmux.wait_for(&["Open this page?", "Address: http://127.0.0.1:47616/connect"]);
    keep_screen(
        "tui_consent.txt",
        "tui_client: URL consent of connect_account",
        &screen,
    );
    // K1 first; S2 the full URL; S4 the site and every warning; then the question.
    let asks = screen
        .find("elicit-mcp-server 0.1.0 asks:")
        .expect("who asks");
    let address = screen
        .find("  Address: http://127.0.0.1:47616/connect")
        .expect("the URL");
    let site = screen.find("  Site:    [127.0.0.1]").expect("the site");
    let warnings = screen.find("  Warnings:").expect("warnings");
    let question = screen.find("Open this page?").expect("the question");
    assert!(
        asks < address && address < site && site < warnings && warnings < question,
        "{screen}"
    );
    assert!(screen.contains("  ! "), "{screen}");
    // S2: Enter alone is not consent.
    tmux.keys(&["Enter"]);
    tmux.wait_for(&["Enter alone opens nothing"]);
    tmux.type_text("y");
    assert!(
        tmux.result("connect_account").starts_with("You consented"),
        "consent reached the server"
    );
}

// covers: F2, F3, F4, D13, K2, M5
#[test]
fn every_select_and_every_default_of_the_conformance_server_in_a_real_terminal() {
    if !tmux_available() {
        return;
    }
    let server = ConformanceServer::start();
    // SEP-1330: untitled, titled and legacy titled single selects, untitled and titled
    // multi selects.
    let tmux = Tmux::start_with(
        "sep1330",
        &[
            "--protocol",
            "2025-11-25",
            "--call",
            "test_elicitation_sep1330_enums",
            &server.url,
        ],
    );
    let screen = tmux.wait_for(&["Please choose your options.", "▶ Untitled single-select *"]);
    assert!(screen.contains("  > ( ) option1"), "{screen}");
    tmux.keys(&["Down", "Enter"]);
    tmux.wait_for(&["▶ Titled single-select *", "  > ( ) First Option"]);
    tmux.keys(&["Enter"]);
    tmux.wait_for(&["▶ Legacy titled single-select *", "  > ( ) Option One"]);
    tmux.keys(&["Down", "Down", "Enter"]);
    let screen = tmux.wait_for(&["▶ Untitled multi-select *", "  > [ ] option1"]);
    assert!(screen.contains("    (•) Option Three"), "{screen}");
    tmux.keys(&["Space", "Down", "Down", "Space", "Enter"]);
    tmux.wait_for(&["▶ Titled multi-select *", "  > [ ] First Choice"]);
    tmux.keys(&["Down", "Space"]);
    let checked = tmux.wait_for(&["  > [x] Second Choice"]);
    keep_screen(
        "tui_multi_select.txt",
        "tui_client: the selects of SEP-1330",
        &checked,
    );
    tmux.keys(&["Enter"]);
    tmux.wait_for(&["▶[ Review ]"]);
    tmux.keys(&["Enter"]);
    let review = tmux.wait_for(&["Ready to send.", "▶[ Send ]"]);
    assert_eq!(
        lines_from(&review, "Review: nothing is sent", 6),
        [
            "Review: nothing is sent until you press Send",
            "    Untitled single-select *: option2",
            "    Titled single-select *: First Option",
            "    Legacy titled single-select *: Option Three",
            "    Untitled multi-select *: option1, option3",
            "    Titled multi-select *: Second Choice",
        ],
        "{review}"
    );
    tmux.keys(&["Enter"]);
    assert_eq!(
        tmux.result("test_elicitation_sep1330_enums"),
        "Elicitation completed: action=accept, content=Sep1330Enums { untitled_single: Option2, \
         titled_single: Value1, legacy_enum: Opt3, untitled_multi: [Option1, Option3], \
         titled_multi: [Value2] }"
    );
    drop(tmux);

    // SEP-1034: a default on every primitive type; a number typed wrong, then right.
    let tmux = Tmux::start_with(
        "sep1034",
        &[
            "--protocol",
            "2025-11-25",
            "--call",
            "test_elicitation_sep1034_defaults",
            &server.url,
        ],
    );
    let screen = tmux.wait_for(&["Please review the pre-filled values.", "▶ Name *"]);
    for shown in [
        "    [John Doe                                ]",
        "    [30                                      ]",
        "    [95.5                                    ]",
        "    (•) active",
        "    (•) Yes",
    ] {
        assert!(screen.contains(shown), "{shown:?} is shown:\n{screen}");
    }
    tmux.keys(&["Enter", "Enter"]);
    tmux.wait_for(&["▶ Score *"]);
    tmux.keys(&["C-u"]);
    tmux.type_text("ninety");
    tmux.keys(&["Enter"]);
    tmux.wait_for(&["! \"ninety\" is not a number"]);
    tmux.keys(&["C-u"]);
    tmux.type_text("87.25");
    tmux.keys(&["Enter", "Tab", "Tab"]);
    tmux.wait_for(&["▶[ Review ]"]);
    tmux.keys(&["Enter"]);
    tmux.wait_for(&["Score *: 87.25", "Ready to send."]);
    tmux.keys(&["Enter"]);
    assert_eq!(
        tmux.result("test_elicitation_sep1034_defaults"),
        "Elicitation completed: action=accept, content=Sep1034Defaults { name: \"John Doe\", \
         age: 30, score: 87.25, status: Active, verified: true }"
    );
}

// covers: M6, K2
#[test]
fn a_2026_07_28_input_round_in_a_real_terminal() {
    if !tmux_available() {
        return;
    }
    let server = ConformanceServer::start();
    // The default protocol: server/discover, then the tool's rounds of input requests,
    // each answered with the form widget.
    let tmux = Tmux::start_with(
        "multi_round",
        &[
            "--call",
            "test_input_required_result_multi_round",
            &server.url,
        ],
    );
    tmux.wait_for(&["▶ Name *"]);
    tmux.type_text("Ada");
    tmux.keys(&["Enter", "Enter"]);
    tmux.wait_for(&["Name *: Ada", "▶[ Send ]"]);
    tmux.keys(&["Enter"]);
    tmux.wait_for(&["▶ Color *"]);
    tmux.type_text("green");
    tmux.keys(&["Enter", "Enter"]);
    tmux.wait_for(&["Color *: green", "▶[ Send ]"]);
    tmux.keys(&["Enter"]);
    let text = tmux.result("test_input_required_result_multi_round");
    assert!(text.contains("Ada") && text.contains("green"), "{text}");
}
