#!/usr/bin/env bash
# The derive's compile cost: a generated crate of 200 structs with #[derive(Elicit)]
# against the same 200 structs with #[derive(schemars::JsonSchema)]. Dependencies are
# built first; then each generated crate alone is rebuilt (touched) and timed, best of
# RUNS interleaved rounds (default 3). Prints both times and the ratio (goal: <= 0.8);
# with ICOUNT=1 also rustc's instruction counts under callgrind.
#
# Incremental compilation is off: with it, a touched but unchanged file is mostly
# answered from the query cache, which measures the cache, not the derive.
#
#   bash benches/compile_cost.sh
set -euo pipefail
export CARGO_INCREMENTAL=0
root="$(cd "$(dirname "$0")/.." && pwd)"
work="${COMPILE_COST_DIR:-$(mktemp -d)}"
runs="${RUNS:-3}"
structs=200

mkdir -p "$work/elicit-gen/src" "$work/schemars-gen/src"
cat > "$work/Cargo.toml" <<TOML
[workspace]
members = ["elicit-gen", "schemars-gen"]
resolver = "2"
TOML
cat > "$work/elicit-gen/Cargo.toml" <<TOML
[package]
name = "elicit-gen"
version = "0.0.0"
edition = "2021"
publish = false
[dependencies]
elicit = { package = "elicit-acp", path = "$root", default-features = false }
TOML
cat > "$work/schemars-gen/Cargo.toml" <<TOML
[package]
name = "schemars-gen"
version = "0.0.0"
edition = "2021"
publish = false
[dependencies]
schemars = { version = "1", default-features = false, features = ["derive", "std"] }
TOML

# The same struct shapes for both: text with bounds, integers with bounds, a flag, an
# optional text and a select.
generate() {
  local derive="$1" attr="$2" use_line="$3"
  echo "#![allow(dead_code)]"
  echo "$use_line"
  echo "#[derive($derive)] pub enum Level { Low, Medium, High }"
  for i in $(seq 1 "$structs"); do
    cat <<RS
/// Form number $i.
#[derive($derive)]
pub struct Form$i {
    /// A name
    #[$attr(length(min = 1, max = 40))]
    pub name: String,
    /// A count
    #[$attr(range(min = 1, max = 9))]
    pub count: u8,
    /// A flag
    pub flag: bool,
    /// A note
    pub note: Option<String>,
    /// A level
    pub level: Level,
}
RS
  done
}
# elicit spells the bounds as flat keys; rewrite the schemars-style lines for it.
generate "Elicit" "elicit" "use elicit::Elicit;" \
  | sed -e 's/#\[elicit(length(min = \([0-9]*\), max = \([0-9]*\)))\]/#[elicit(min_length = \1, max_length = \2)]/' \
        -e 's/#\[elicit(range(min = \([0-9]*\), max = \([0-9]*\)))\]/#[elicit(minimum = \1, maximum = \2)]/' \
  > "$work/elicit-gen/src/lib.rs"
generate "schemars::JsonSchema" "schemars" "" > "$work/schemars-gen/src/lib.rs"

cd "$work"
cargo build -q -p elicit-gen -p schemars-gen
# One round builds each crate once, in turn, so both see the same machine; the best of
# RUNS rounds is kept for each.
time_build() {
  local crate="$1" start end
  touch "$crate/src/lib.rs"
  start=$(date +%s%N)
  cargo build -q -p "$crate"
  end=$(date +%s%N)
  echo $(( (end - start) / 1000000 ))
}
e="" s=""
for _ in $(seq 1 "$runs"); do
  ms=$(time_build elicit-gen); if [ -z "$e" ] || [ "$ms" -lt "$e" ]; then e=$ms; fi
  ms=$(time_build schemars-gen); if [ -z "$s" ] || [ "$ms" -lt "$s" ]; then s=$ms; fi
done
echo "200 structs, debug build of the generated crate alone, best of $runs interleaved rounds:"
echo "  #[derive(Elicit)]               ${e} ms"
echo "  #[derive(schemars::JsonSchema)] ${s} ms"
awk -v e="$e" -v s="$s" 'BEGIN { printf "  ratio elicit / schemars         %.2f (goal <= 0.8)\n", e / s }'

# Instructions (deterministic, whatever the load): ICOUNT=1 runs each crate's own rustc
# invocation once under callgrind (slow: minutes).
if [ "${ICOUNT:-0}" = 1 ]; then
  count() {
    local crate="$1" cmd
    touch "$crate/src/lib.rs"
    # The exact rustc command cargo runs for the crate, then the same under valgrind.
    local name=${crate//-/_}
    cmd=$(cargo build -v -p "$crate" 2>&1 | grep -F -- "--crate-name $name " | tail -1 |
      sed -e 's/^ *Running `//' -e 's/`$//')
    [ -n "$cmd" ] || { echo "compile_cost: no rustc command for $crate" >&2; return 1; }
    eval "valgrind --tool=callgrind --callgrind-out-file=$work/$crate.callgrind $cmd" >/dev/null 2>&1
    sed -n 's/^totals: \([0-9]*\).*/\1/p' "$work/$crate.callgrind"
  }
  ei=$(count elicit-gen)
  si=$(count schemars-gen)
  echo "Instructions of rustc for the crate alone (callgrind):"
  echo "  #[derive(Elicit)]               ${ei}"
  echo "  #[derive(schemars::JsonSchema)] ${si}"
  awk -v e="$ei" -v s="$si" 'BEGIN { printf "  ratio elicit / schemars         %.2f (goal <= 0.8)\n", e / s }'
fi
