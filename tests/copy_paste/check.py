#!/usr/bin/env python3
"""The copy-paste check: the programs of README.md and the guide (src/guide/*.md), built
as a user who copies them builds them.

Each program is marked in the Markdown with an HTML comment (invisible when rendered),
followed by the `Cargo.toml` lines the page tells the user to write (a ```toml block)
and the program (a ```rust block):

    <!-- copy-paste: NAME -->
    ```toml
    [dependencies]
    elicit-acp = { version = "0.1", features = [...] }
    ...
    ```
    ...
    ```rust
    fn main() { ... }
    ```

For each, a crate of its own is written under target/copy_paste/NAME (outside the
workspace: its Cargo.toml has an empty `[workspace]`) with exactly those dependency
lines, `elicit-acp` pointed at this checkout by path instead of crates.io, and the
program as the page shows it (rustdoc's hidden `# ` lines dropped: a reader never sees
them). Then `cargo check` builds it; all crates share one target directory
(target/copy_paste/target) so the dependencies they have in common build once. The
workspace's Cargo.lock is the starting lockfile, so the versions are the ones the
workspace is tested with. If the docs drift (a feature missing from the lines, a name
renamed, a dependency not listed), the build fails and so does this script.

Some programs are also run, the way their page says a person uses them (RUNS below):
the guide's MCP server is built and answered by the `mcp_client` example on MCP
2026-07-28 and on 2025-11-25, typing what a person types, and the tool's result must be
what the page says. A program that builds but fails its user fails the check.

    python3 tests/copy_paste/check.py [--list] [NAME...]
"""
import os
import re
import shutil
import subprocess
import sys
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
OUT = os.path.join(ROOT, "target", "copy_paste")
MARKER = re.compile(r"<!--\s*copy-paste:\s*([A-Za-z0-9_-]+)\s*-->")
FENCE = re.compile(r"^\s*```([^`]*)$")


def sources():
    files = [os.path.join(ROOT, "README.md")]
    guide = os.path.join(ROOT, "src", "guide")
    files += sorted(os.path.join(guide, f) for f in os.listdir(guide) if f.endswith(".md"))
    return files


def blocks(text):
    """(line number, info string, body) of each fenced block, and the markers between."""
    out, lines, i = [], text.splitlines(), 0
    while i < len(lines):
        m = MARKER.search(lines[i])
        if m:
            out.append((i + 1, "marker", m.group(1)))
        f = FENCE.match(lines[i])
        if f:
            info, start, body = f.group(1).strip(), i + 1, []
            i += 1
            while i < len(lines) and not FENCE.match(lines[i]):
                body.append(lines[i])
                i += 1
            out.append((start, info, "\n".join(body) + "\n"))
        i += 1
    return out


def is_rust(info):
    tags = [t.strip() for t in info.split(",") if t.strip()]
    return tags and tags[0] in ("rust", "no_run", "should_panic", "edition2021", "edition2024")


def visible(rust):
    """The program as rendered: rustdoc's hidden lines (`# …`, `#`) dropped, `##` unescaped."""
    out = []
    for line in rust.splitlines():
        s = line.lstrip()
        if s == "#" or s.startswith("# "):
            continue
        if s.startswith("##"):
            line = line.replace("##", "#", 1)
        out.append(line)
    return "\n".join(out) + "\n"


def programs():
    found, errors = {}, []
    for path in sources():
        rel = os.path.relpath(path, ROOT)
        items = blocks(open(path, encoding="utf-8").read())
        for k, (line, info, body) in enumerate(items):
            if info != "marker":
                continue
            name, toml, rust = body, None, None
            for line2, info2, body2 in items[k + 1:]:
                if info2 == "marker":
                    break
                if toml is None and info2.split(",")[0].strip() == "toml":
                    toml = body2
                elif rust is None and is_rust(info2):
                    rust = body2
                if toml is not None and rust is not None:
                    break
            where = f"{rel}:{line}"
            if toml is None or rust is None:
                errors.append(f"{where}: `copy-paste: {name}` needs a ```toml block and a ```rust block after it")
            elif name in found:
                errors.append(f"{where}: `copy-paste: {name}` is also at {found[name][0]}")
            else:
                found[name] = (where, toml, visible(rust))
    return found, errors


def manifest(name, toml):
    """The user's Cargo.toml: a package, no workspace, the page's lines, elicit-acp by path."""
    if "elicit-acp" not in toml:
        raise ValueError("the lines do not depend on elicit-acp")
    path = ROOT.replace("\\", "/")
    lines = []
    for line in toml.splitlines():
        m = re.match(r'^(\s*elicit-acp\s*=\s*)(.*)$', line)
        if m:
            value = re.sub(r"\s+#.*$", "", m.group(2)).strip()
            if value.startswith('"'):
                line = f'{m.group(1)}{{ path = "{path}" }}'
            else:
                new = re.sub(r'version\s*=\s*"[^"]*"', f'path = "{path}"', value, count=1)
                if new == value:
                    raise ValueError(f"cannot point `{line.strip()}` at the checkout")
                line = m.group(1) + new
        lines.append(line)
    return (
        f'[package]\nname = "copy-paste-{name}"\nversion = "0.0.0"\nedition = "2024"\n'
        "publish = false\n\n# Outside the elicit workspace, as a user's crate is.\n[workspace]\n\n"
        + "\n".join(lines) + "\n"
    )


# What a person types into `mcp_client` (its line asker, stdin piped) to book a table
# with the guide's server: the tool, its arguments, then the form's fields (party size
# kept at its default, a time that breaks the pattern, the email left empty), the review;
# the server asks again for the pattern (the problem beside the field), the time is
# corrected and the form sent; then an empty line ends the client.
BOOKING = "\n".join([
    "book", '{"restaurant": "Chez Ada"}',
    "", "call me", "", "send",
    "", "19:30", "", "send",
    "",
]) + "\n"

# Programs run after they build: (what the person types, what the output must hold).
RUNS = {
    "mcp_server": [
        ("2026-07-28", BOOKING, "booked Chez Ada for 2 at 19:30"),
        ("2025-11-25", BOOKING, "booked Chez Ada for 2 at 19:30"),
    ],
}


def mcp_client(env):
    """The `mcp_client` example of this checkout (built with `rmcp_3` if missing)."""
    exe = os.path.join(ROOT, "target", "debug", "examples", "mcp_client")
    if not os.path.exists(exe):
        subprocess.run(
            ["cargo", "build", "--quiet", "--example", "mcp_client", "--features", "rmcp_3"],
            cwd=ROOT, check=True,
            env={k: v for k, v in env.items() if k != "CARGO_TARGET_DIR"},
        )
    return exe


def run_program(name, crate, env):
    """Builds the program and plays each of its RUNS; returns the failures."""
    build = subprocess.run(
        ["cargo", "build", "--quiet", "--manifest-path", os.path.join(crate, "Cargo.toml")],
        env=env,
    )
    if build.returncode != 0:
        return [f"{name}: does not build as a binary"]
    exe = os.path.join(env["CARGO_TARGET_DIR"], "debug", f"copy-paste-{name}")
    client = mcp_client(env)
    failures = []
    for protocol, typed, expected in RUNS[name]:
        try:
            run = subprocess.run(
                [client, "--protocol", protocol, "--", exe],
                input=typed, capture_output=True, text=True, timeout=120,
            )
        except subprocess.TimeoutExpired:
            failures.append(f"{name} on {protocol}: no answer within 120 s")
            continue
        if expected not in run.stdout:
            failures.append(
                f"{name} on {protocol}: expected {expected!r} in the tool's result; "
                f"exit {run.returncode}\n--- stdout\n{run.stdout}\n--- stderr\n{run.stderr[-3000:]}"
            )
        else:
            print(f"   ran on MCP {protocol}: {expected!r}", flush=True)
    return failures


def main(argv):
    found, errors = programs()
    for e in errors:
        print(f"!! {e}", file=sys.stderr)
    if errors:
        return 1
    if not found:
        print("!! no `<!-- copy-paste: NAME -->` program in README.md or src/guide", file=sys.stderr)
        return 1
    if argv[:1] == ["--list"]:
        for name, (where, _, _) in found.items():
            print(f"{name}\t{where}")
        return 0
    wanted = argv or list(found)
    unknown = [n for n in wanted if n not in found]
    if unknown:
        print(f"!! unknown: {', '.join(unknown)}; known: {', '.join(found)}", file=sys.stderr)
        return 1
    env = dict(os.environ)
    env["CARGO_TARGET_DIR"] = os.path.join(OUT, "target")
    # Debug info is not what is checked; it would only fill the disk.
    env.setdefault("CARGO_PROFILE_DEV_DEBUG", "false")
    env.setdefault("CARGO_TERM_COLOR", "never")
    failed, started = [], time.monotonic()
    for name in wanted:
        where, toml, rust = found[name]
        crate = os.path.join(OUT, name)
        shutil.rmtree(os.path.join(crate, "src"), ignore_errors=True)
        os.makedirs(os.path.join(crate, "src"), exist_ok=True)
        try:
            text = manifest(name, toml)
        except ValueError as e:
            print(f"!! {where} ({name}): {e}", file=sys.stderr)
            failed.append(name)
            continue
        with open(os.path.join(crate, "Cargo.toml"), "w", encoding="utf-8") as f:
            f.write(text)
        with open(os.path.join(crate, "src", "main.rs"), "w", encoding="utf-8") as f:
            f.write(rust)
        lock = os.path.join(crate, "Cargo.lock")
        if not os.path.exists(lock):
            shutil.copy(os.path.join(ROOT, "Cargo.lock"), lock)
        t = time.monotonic()
        print(f"-- {name} ({where}): cargo check in {os.path.relpath(crate, ROOT)}", flush=True)
        run = subprocess.run(
            ["cargo", "check", "--quiet", "--manifest-path", os.path.join(crate, "Cargo.toml")],
            env=env,
        )
        if run.returncode != 0:
            print(f"!! {name}: the program of {where} does not build with the lines the page "
                  "gives; fix the page (or the code it documents)", file=sys.stderr)
            failed.append(name)
        else:
            print(f"   ok in {time.monotonic() - t:.0f}s", flush=True)
            if name in RUNS:
                failures = run_program(name, crate, env)
                for failure in failures:
                    print(f"!! {failure}", file=sys.stderr)
                if failures:
                    failed.append(name)
    print(f"-- {len(wanted) - len(failed)} of {len(wanted)} programs built (and run, where RUNS says) "
          f"in {time.monotonic() - started:.0f}s")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
