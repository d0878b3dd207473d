#!/usr/bin/env bash
# Instruction counts of benches/icount.rs under callgrind: deterministic, whatever the
# load of the machine. Builds the bench in release, runs every case of the given groups
# (compare, growth, worst; all by default) in its own callgrind process collecting only
# `icount::measure`, and prints instructions per operation and the ratios as markdown.
#
#   bash benches/icount.sh [group...]
#
# Environment: ICOUNT_BIN (an already built icount binary: skips the build), JOBS (parallel callgrind runs, default 2), OUT (where the callgrind files
# and results.tsv go, default $CARGO_TARGET_DIR/icount), ONLY (a regular expression:
# run only the matching cases).
set -euo pipefail
cd "$(dirname "$0")/.."

target_dir=${CARGO_TARGET_DIR:-$PWD/target}
out=${OUT:-$target_dir/icount}
jobs=${JOBS:-2}
mkdir -p "$out"

bin=${ICOUNT_BIN:-}
[ -n "$bin" ] || bin=$(cargo build --release --bench icount --message-format=json 2>/dev/null |
    python3 -c '
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m["target"]["name"] == "icount" and m.get("executable"):
        print(m["executable"])
')
[ -x "$bin" ] || { echo "icount: build failed (run cargo build --release --bench icount)" >&2; exit 1; }

groups=("$@")
[ ${#groups[@]} -gt 0 ] || groups=(compare growth worst)

list=$(for g in "${groups[@]}"; do "$bin" --list "$g"; done)
if [ -n "${ONLY:-}" ]; then
    list=$(grep -E "${ONLY}" <<<"$list" || true)
fi

run_case() {
    local bin=$1 out=$2 name=$3 n=$4
    valgrind --tool=callgrind --toggle-collect='icount::measure*' \
        --callgrind-out-file="$out/$name.callgrind" "$bin" "$name" "$n" \
        >"$out/$name.log" 2>&1 || { echo "icount: $name failed, see $out/$name.log" >&2; return 1; }
    local ir
    ir=$(sed -n 's/^totals: \([0-9]*\).*/\1/p' "$out/$name.callgrind")
    printf '%s\t%s\t%s\n' "$name" "$ir" "$n" >"$out/$name.tsv"
}
export -f run_case

# Each case: `name n`; results to $out/<name>.tsv.
xargs -P "$jobs" -L 1 bash -c 'run_case "$0" "$1" "$2" "$3"' "$bin" "$out" <<<"$list"

results=$out/results.tsv
: >"$results"
while read -r name _; do
    cat "$out/$name.tsv" >>"$results"
done <<<"$list"
"$bin" --report "$results"
echo "Raw counts: $results; profiles: callgrind_annotate --inclusive=yes $out/<case>.callgrind"
