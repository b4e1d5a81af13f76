#!/usr/bin/env bash
# Bundles the ML binaries (stripped), their tests, the example specs, the MNIST files
# and a runner into one folder, to run the ML tests and benchmarks on a machine that
# has PyTorch 2.11 but no Rust toolchain (a GPU machine, say):
#   scripts/bench/bundle.sh DIR        # here: builds and fills DIR (about 32 MB)
#   DIR/run.sh PYTHON OUT [PHASE...]   # there: PYTHON has torch; results land in OUT
# Phases: tests, train (CUDA training replayed with repops, a Threshold-mode CNN too),
# p2 (tch vs PyTorch, checkpoint overhead on short and long runs), p3 (repops vs
# libtorch CPU at 1, 2, 4 and all threads, three parallel thresholds); all by default.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
DIR="${1:?usage: scripts/bench/bundle.sh DIR}"
mkdir -p "$DIR"
DIR="$(cd "$DIR" && pwd)"
# DIR is emptied first: refuse anything but an empty folder or an earlier bundle, and
# the checkout or a folder holding it.
if [[ -n "$(ls -A "$DIR")" && ! ( -x "$DIR/run.sh" && -d "$DIR/bin" ) ]] || [[ "$ROOT/" == "$DIR/"* ]]; then
    echo "bundle.sh: $DIR is neither empty nor an earlier bundle; give a new folder" >&2
    exit 1
fi
TARGET="${CARGO_TARGET_DIR:-$ROOT/target}"
cd "$ROOT"
# shellcheck source=prepare.sh
source scripts/bench/prepare.sh
# The test executables, named by their targets (cargo's progress stays on stderr;
# compiler errors, which come as JSON, are printed there too).
tests="$(cargo test --release --locked --no-run -p gensyn-repops -p gensyn-workers \
    --message-format=json | python3 -c '
import json, sys
want = {("repops", "gensyn_repops"): "repops-unit", ("repops", "kernels"): "repops-kernels",
        ("repops", "repops"): "repops", ("offchain-workers", "mnist"): "workers-mnist",
        ("offchain-workers", "pol"): "workers-pol", ("offchain-workers", "tf32"): "workers-tf32"}
found = set()
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-message":
        print(m["message"].get("rendered", ""), end="", file=sys.stderr)
    if m.get("reason") != "compiler-artifact" or not m.get("executable") or not m["profile"]["test"]:
        continue
    crate_dir = m["manifest_path"].rsplit("/", 2)[-2]
    name = want.get((crate_dir, m["target"]["name"]))
    if name:
        found.add(name)
        print(name, m["executable"])
missing = set(want.values()) - found
if missing:
    sys.exit(f"bundle.sh: no test executable for {sorted(missing)}")
')" || { echo "bundle.sh: building the test executables failed" >&2; exit 1; }
rm -rf "${DIR:?}"/* "$DIR"/.data
mkdir -p "$DIR/bin" "$DIR/examples" "$DIR/.data/mnist" "$DIR/primitives/repops" "$DIR/offchain-workers"
cp "$TARGET/release/gensyn-ml" "$TARGET/release/examples/bench" "$DIR/bin/"
while read -r name exe; do cp "$exe" "$DIR/bin/test-$name"; done <<<"$tests"
strip "$DIR"/bin/*
cp examples/*.json "$DIR/examples/"
cp .data/mnist/{train.idx,test.idx,test.idx.gz} "$DIR/.data/mnist/"
cp scripts/bench/pytorch_baseline.py "$DIR/"
cp scripts/bench/bundle-run.sh "$DIR/run.sh"
du -sh "$DIR"
