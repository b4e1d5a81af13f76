#!/usr/bin/env bash
# Threshold mode's false rejections: how often an honest libtorch run fails a segment
# replayed with repops against the profiled threshold, with and without the libtorch
# second opinion (offchain-workers/src/replay.rs).
#
# For N data orders (task randomness 1..N) it trains the task honestly with tch on the
# CPU, profiles the threshold as a verifier would, and verifies every segment twice:
# `--repops-only`, and with the second opinion. It prints the repops distances' spread
# (median and largest), the failed segments of each way, and the smallest distance of
# a lazy run that copies each checkpoint forward (what a threshold must stay below).
#
#   scripts/bench/threshold-tail.sh [N]   (default 40; the MNIST MLP, 6 segments each)
#   TAIL_SPEC=examples/mnist-cnn.json scripts/bench/threshold-tail.sh 10
#   TAIL_PREBUILT=1 ...   (use the gensyn-ml binary `scripts/test.sh` built)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
N="${1:-40}"
TARGET="${CARGO_TARGET_DIR:-$ROOT/target}"
scripts/setup-torch.sh >/dev/null
scripts/fetch-mnist.sh
# shellcheck source=../env.sh
source scripts/env.sh
if [[ -z "${TAIL_PREBUILT:-}" ]]; then
    cargo build --release --locked -p gensyn-workers --bin gensyn-ml
fi
ML="$TARGET/release/gensyn-ml"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
"$ML" data-ref --file .data/mnist/train.idx --spec "${TAIL_SPEC:-examples/mnist-mlp.json}" \
    --out "$WORK/spec.json" >/dev/null
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
    # A lazy run that copies each checkpoint forward: its distance is how far the honest
    # run moved the parameters in the segment.
    python3 - "$WORK/store" >"$WORK/copy-$i.json" <<'PYEOF'
import glob, json, math, os, struct, sys
store = sys.argv[1]
journal = glob.glob(os.path.join(store, "runs", "*.jsonl"))[0]
# The journal: a header line, then one line per checkpoint.
blobs = [r["blob"] for r in map(json.loads, open(journal)) if "blob" in r]
def params(blob):
    raw = open(os.path.join(store, "blobs", blob), "rb").read()
    n = struct.unpack("<Q", raw[:8])[0]
    header = json.loads(raw[8:8 + n])
    out = []
    for name in sorted(k for k in header if k.startswith("param.")):
        start, end = header[name]["data_offsets"]
        out.extend(struct.unpack(f"<{(end - start) // 4}f", raw[8 + n + start:8 + n + end]))
    return out
states = [params(b) for b in blobs]
print(json.dumps([math.sqrt(sum((x - y) ** 2 for x, y in zip(a, b)))
                  for a, b in zip(states, states[1:])]))
PYEOF
    printf '.' >&2
done
echo >&2
python3 - "$WORK" "$N" <<'PYEOF'
import json, os, statistics, sys
work, n = sys.argv[1], int(sys.argv[2])
load = lambda name: json.load(open(os.path.join(work, name)))["segments"]
l2, alone, checked, second, copied = [], 0, 0, [], []
for i in range(1, n + 1):
    for a, c in zip(load(f"alone-{i}.json"), load(f"checked-{i}.json")):
        l2.append(a["distances"]["l2"])
        alone += not a["passed"]
        checked += not c["passed"]
        if c.get("libtorch_l2") is not None:
            second.append(c["libtorch_l2"])
    copied.append(json.load(open(os.path.join(work, f"copy-{i}.json"))))
# A run's last segment may hold fewer steps than k (the epoch's remainder).
whole = [d for run in copied for d in run[:-1]]
print(json.dumps({
    "segments": len(l2),
    "repops_l2_median": statistics.median(l2),
    "repops_l2_max": max(l2),
    "failed_repops_only": alone,
    "failed_with_second_opinion": checked,
    "second_opinions": len(second),
    "second_opinion_l2_max": max(second, default=None),
    "copied_l2_min": min(d for run in copied for d in run),
    "copied_l2_min_whole_segments": min(whole, default=None),
}, indent=2))
PYEOF
