#!/usr/bin/env bash
# The derive's compile cost: a generated crate of 200 structs with #[derive(Elicit)]
# against the same 200 structs with #[derive(schemars::JsonSchema)]. Dependencies are
# built first; then each generated crate alone is rebuilt (touched) and timed, best of
# RUNS (default 3). Prints both times and the ratio (goal: <= 1.0).
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
elicit = { path = "$root", default-features = false }
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
best() {
  local crate="$1" best_ms=""
  for _ in $(seq 1 "$runs"); do
    touch "$crate/src/lib.rs"
    local start end ms
    start=$(date +%s%N)
    cargo build -q -p "$crate"
    end=$(date +%s%N)
    ms=$(( (end - start) / 1000000 ))
    if [ -z "$best_ms" ] || [ "$ms" -lt "$best_ms" ]; then best_ms=$ms; fi
  done
  echo "$best_ms"
}
e=$(best elicit-gen)
s=$(best schemars-gen)
echo "200 structs, debug build of the generated crate alone, best of $runs:"
echo "  #[derive(Elicit)]               ${e} ms"
echo "  #[derive(schemars::JsonSchema)] ${s} ms"
awk -v e="$e" -v s="$s" 'BEGIN { printf "  ratio elicit / schemars         %.2f (goal <= 1.0)\n", e / s }'
