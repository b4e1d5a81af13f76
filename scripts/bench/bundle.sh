#!/usr/bin/env bash
# Bundles the ML binaries (stripped), their tests, the example specs, the MNIST files
# and a runner into one folder, to run the ML tests and benchmarks on a machine that
# has PyTorch 2.11 but no Rust toolchain (a GPU machine, say):
#   scripts/bench/bundle.sh DIR        # here: builds and fills DIR (about 25 MB)
#   DIR/run.sh PYTHON OUT [PHASE...]   # there: PYTHON has torch; results land in OUT
# Phases: tests, train (CUDA training replayed with repops, a Threshold-mode CNN too),
# p2 (tch vs PyTorch, checkpoint overhead on short and long runs), p3 (repops vs
# libtorch CPU at 1, 2, 4 and all threads, three parallel thresholds); all by default.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
DIR="${1:?usage: scripts/bench/bundle.sh DIR}"
TARGET="${CARGO_TARGET_DIR:-$ROOT/target}"
cd "$ROOT"
# shellcheck source=prepare.sh
source scripts/bench/prepare.sh
# The test executables, named by their targets.
tests="$(cargo test --release --locked --no-run -p gensyn-repops -p gensyn-workers \
    --message-format=json 2>/dev/null | python3 -c '
import json, sys
want = {("repops", "gensyn_repops"): "repops-unit", ("repops", "kernels"): "repops-kernels",
        ("repops", "repops"): "repops", ("offchain-workers", "mnist"): "workers-mnist",
        ("offchain-workers", "pol"): "workers-pol"}
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") != "compiler-artifact" or not m.get("executable") or not m["profile"]["test"]:
        continue
    crate_dir = m["manifest_path"].rsplit("/", 2)[-2]
    name = want.get((crate_dir, m["target"]["name"]))
    if name:
        print(name, m["executable"])
')"
[[ "$(wc -l <<<"$tests")" -eq 5 ]] || { echo "bundle.sh: expected 5 test executables, got: $tests" >&2; exit 1; }
rm -rf "$DIR"
mkdir -p "$DIR/bin" "$DIR/examples" "$DIR/.data/mnist" "$DIR/primitives/repops" "$DIR/offchain-workers"
cp "$TARGET/release/gensyn-ml" "$TARGET/release/examples/bench" "$DIR/bin/"
while read -r name exe; do cp "$exe" "$DIR/bin/test-$name"; done <<<"$tests"
strip "$DIR"/bin/*
cp examples/*.json "$DIR/examples/"
cp .data/mnist/{train.idx,test.idx,test.idx.gz} "$DIR/.data/mnist/"
cp scripts/bench/pytorch_baseline.py scripts/bench/bundle-run.sh "$DIR/"
mv "$DIR/bundle-run.sh" "$DIR/run.sh"
chmod +x "$DIR/run.sh"
du -sh "$DIR"
