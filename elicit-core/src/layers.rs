//! The direction of the crate's modules, checked on its sources: data flows one way
//! (DESIGN.md), from the internals through `schema`, `content`, `protocol` and `typed`
//! to the two sides and the integrations built on them, and a module never names one
//! above it (nor, for the two sides and the SDK integrations, its sibling).
//!
//! The check reads every `.rs` file under `src/` and every `crate::NAME` path outside
//! comments, grouped paths (`crate::{a, b}`) included. A top-level module missing from
//! [`LAYERS`] fails it too, so a new module has to say where it sits.

use std::fs;
use std::path::{Path, PathBuf};

/// Each top-level module and its layer, lowest first. A module may name its own
/// layer's modules only in layer 0 (the internals, which share helpers).
const LAYERS: &[(&str, u8)] = &[
    // Internals: no knowledge of a schema, an answer or a message.
    ("rules", 0),
    ("format", 0),
    ("pattern", 0),
    ("vocab", 0),
    ("store", 0),
    ("url_error", 0),
    ("url_safety", 0),
    ("hidden_chars", 0),
    // The model, then answers and validation, messages, typed forms.
    ("schema", 1),
    ("content", 2),
    ("protocol", 3),
    ("typed", 4),
    // The two sides.
    ("agent", 5),
    ("client", 5),
    // The URL-mode page server, and the SDK integrations that may serve it.
    ("axum", 6),
    ("rmcp", 7),
    ("agent_client_protocol", 7),
    // Between the two SDKs: an MCP client's elicitations asked over an ACP connection.
    ("bridge", 8),
];

fn layer(module: &str) -> Option<u8> {
    LAYERS
        .iter()
        .find(|(name, _)| *name == module)
        .map(|&(_, layer)| layer)
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let entries = fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    for entry in entries {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The top-level module a file of `src/` belongs to (`None` for `lib.rs`).
fn module_of(src: &Path, file: &Path) -> Option<String> {
    let relative = file.strip_prefix(src).ok()?;
    let first = relative.components().next()?.as_os_str().to_str()?;
    let name = first.strip_suffix(".rs").unwrap_or(first);
    (name != "lib").then(|| name.to_owned())
}

/// The top-level modules a line names through `crate::`, outside a comment. `group` is
/// the brace depth inside a `use crate::{…}` that spans lines (0 outside one).
fn named_modules(line: &str, group: &mut usize) -> Vec<String> {
    let code = line.split("//").next().unwrap_or("");
    let mut names = Vec::new();
    let mut rest = code;
    if *group == 1 {
        // A line inside the group starts an item (the comma ended the line before).
        names.push(ident(rest));
    }
    loop {
        if *group > 0 {
            rest = group_items(rest, group, &mut names);
        }
        let Some(at) = rest.find("crate::") else {
            break;
        };
        rest = &rest[at + "crate::".len()..];
        match rest.strip_prefix('{') {
            Some(inner) => {
                *group = 1;
                names.push(ident(inner));
                rest = inner;
            }
            None => names.push(ident(rest)),
        }
    }
    names.retain(|n| !n.is_empty() && n != "self" && n != "__private");
    names
}

/// The first segment of each item of a `crate::{…}` group at depth 1 in `text`, up to
/// where the group closes (what follows is returned) or the end of the line.
fn group_items<'a>(text: &'a str, depth: &mut usize, names: &mut Vec<String>) -> &'a str {
    for (at, c) in text.char_indices() {
        match c {
            '{' => *depth += 1,
            '}' => {
                *depth -= 1;
                if *depth == 0 {
                    return &text[at + 1..];
                }
            }
            ',' if *depth == 1 => names.push(ident(&text[at + 1..])),
            _ => {}
        }
    }
    ""
}

/// The identifier `text` starts with, after blanks.
fn ident(text: &str) -> String {
    text.trim_start()
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect()
}

// covers: the design's one-way data flow (DESIGN.md, "Inside elicit-core")
#[test]
fn no_module_names_one_above_it() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    let mut wrong = Vec::new();
    for file in &files {
        let Some(module) = module_of(&src, file) else {
            continue;
        };
        // This file names modules in its own tests.
        if module == "layers" {
            continue;
        }
        let Some(own) = layer(&module) else {
            wrong.push(format!(
                "{}: module `{module}` has no layer; add it to `LAYERS` in src/layers.rs",
                file.display()
            ));
            continue;
        };
        let text = fs::read_to_string(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let mut group = 0;
        for (number, line) in text.lines().enumerate() {
            for named in named_modules(line, &mut group) {
                let Some(theirs) = layer(&named) else {
                    continue;
                };
                let allowed = named == module || theirs < own || (theirs == 0 && own == 0);
                if !allowed {
                    wrong.push(format!(
                        "{}:{}: `{module}` (layer {own}) names `crate::{named}` (layer {theirs}): {}",
                        file.display(),
                        number + 1,
                        line.trim()
                    ));
                }
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "modules must only use modules below them:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn the_scan_sees_single_grouped_and_multi_line_paths() {
    let mut group = 0;
    assert_eq!(
        named_modules("use crate::content::ValidationError;", &mut group),
        ["content"]
    );
    assert_eq!(
        named_modules("    let x = crate::typed::f(crate::schema::G);", &mut group),
        ["typed", "schema"]
    );
    assert_eq!(
        named_modules("use crate::{content::A, protocol::{B, C}};", &mut group),
        ["content", "protocol"]
    );
    assert!(named_modules("/// see [`x`](crate::content::X)", &mut group).is_empty());
    assert!(named_modules("use crate::{", &mut group).is_empty());
    assert_eq!(group, 1);
    assert_eq!(
        named_modules("    agent::Elicitor, client::Form,", &mut group),
        ["agent", "client"]
    );
    assert_eq!(named_modules("};", &mut group), Vec::<String>::new());
    assert_eq!(group, 0);
}
