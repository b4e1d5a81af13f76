#!/usr/bin/env bash
# Threshold mode's false rejections: how often an honest libtorch run fails a segment
# replayed with repops against the profiled threshold, with and without the libtorch
# second opinion (offchain-workers/src/replay.rs).
#
# For N data orders (task randomness 1..N) it trains the task honestly with tch on the
# CPU, profiles the threshold as a verifier would, and verifies every segment twice:
# `--repops-only`, and with the second opinion. It prints the spread (median and
# largest) of the repops distances, which are shares of the work each segment does (a
# checkpoint that skips a segment's gradients lies at 1), and the failed segments of
# each way.
#
#   scripts/bench/threshold-tail.sh [N]   (default 40; the MNIST MLP, 6 segments each)
#   TAIL_SPEC=examples/mnist-cnn.json scripts/bench/threshold-tail.sh 10
#   TAIL_SPEC=examples/charlm-small.json scripts/bench/threshold-tail.sh 10
#     (a language model: its token file is cut from the King James Bible,
#     scripts/kjv-tokens.sh)
#   TAIL_PREBUILT=1 ...   (use the gensyn-ml binary `scripts/test.sh` built)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
N="${1:-40}"
TARGET="${CARGO_TARGET_DIR:-$ROOT/target}"
SPEC="${TAIL_SPEC:-examples/mnist-mlp.json}"
scripts/setup-torch.sh >/dev/null
# shellcheck source=../env.sh
source scripts/env.sh
if [[ -z "${TAIL_PREBUILT:-}" ]]; then
    cargo build --release --locked -p gensyn-workers --bin gensyn-ml
fi
ML="$TARGET/release/gensyn-ml"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
if grep -q '"format": *"tokens"' "$SPEC"; then
    # A language model's spec names its token file, cut from the Bible.
    scripts/kjv-tokens.sh "$SPEC"
    cp "$SPEC" "$WORK/spec.json"
else
    scripts/fetch-mnist.sh
    "$ML" data-ref --file .data/mnist/train.idx --spec "$SPEC" --out "$WORK/spec.json" >/dev/null
fi
# Judged by distance whatever the example's mode (the CNN example is in Exact mode).
python3 - "$WORK/spec.json" <<'PYEOF'
import json, sys
spec = json.load(open(sys.argv[1]))
spec["verification"]["mode"] = "threshold"
json.dump(spec, open(sys.argv[1], "w"))
PYEOF
THRESHOLD="$("$ML" profile --spec "$WORK/spec.json" --threads 1 --cpu 2>/dev/null |
    python3 -c 'import json, sys; print(json.load(sys.stdin)["suggested_threshold"])')"
echo "profiled threshold: $THRESHOLD; $N honest runs" >&2
for i in $(seq 1 "$N"); do
    R="$(printf '%064x' "$i")"
    rm -rf "$WORK/store"
    common=(--spec "$WORK/spec.json" --randomness "$R" --store "$WORK/store" --threads 1)
    "$ML" train "${common[@]}" --cpu >/dev/null 2>&1
    "$ML" verify "${common[@]}" --threshold "$THRESHOLD" --repops-only 2>/dev/null \
        >"$WORK/alone-$i.json" || true
    "$ML" verify "${common[@]}" --threshold "$THRESHOLD" --cpu 2>/dev/null \
        >"$WORK/checked-$i.json" || true
    printf '.' >&2
done
echo >&2
python3 - "$WORK" "$N" <<'PYEOF'
import json, os, statistics, sys
work, n = sys.argv[1], int(sys.argv[2])
load = lambda name: json.load(open(os.path.join(work, name)))["segments"]
dist, l2, alone, checked, second = [], [], 0, 0, []
for i in range(1, n + 1):
    for a, c in zip(load(f"alone-{i}.json"), load(f"checked-{i}.json")):
        dist.append(a["distance"])
        l2.append(a["distances"]["l2"])
        alone += not a["passed"]
        checked += not c["passed"]
        if c.get("libtorch_distance") is not None:
            second.append(c["libtorch_distance"])
print(json.dumps({
    "segments": len(dist),
    "repops_distance_median": statistics.median(dist),
    "repops_distance_max": max(dist),
    "repops_l2_max": max(l2),
    "failed_repops_only": alone,
    "failed_with_second_opinion": checked,
    "second_opinions": len(second),
    "second_opinion_distance_max": max(second, default=None),
}, indent=2))
PYEOF
