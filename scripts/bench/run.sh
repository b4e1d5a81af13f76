#!/usr/bin/env bash
# Benchmarks of the ML side, ratios measured in one run on this machine:
#   P2: tch training steps/s / PyTorch steps/s (same wheel, model, data, batch, threads),
#       for the example MLP and CNN, and the checkpoint + hashing overhead in %;
#   P3: repops replay of one segment / libtorch CPU for the same segment, 1 and 2 threads,
#       and the same for training steps of the decoder-only language model (lm_bench),
#       whose tch steps/s against PyTorch's (pytorch_lm_baseline.py) is its P2.
# Usage: scripts/bench/run.sh [STEPS]   (results also written to $BENCH_OUT, default out/bench)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
STEPS="${1:-100}"
OUT="${BENCH_OUT:-$ROOT/out/bench}"
TARGET="${CARGO_TARGET_DIR:-$ROOT/target}"
cd "$ROOT"
# shellcheck source=prepare.sh
source scripts/bench/prepare.sh
mkdir -p "$OUT"
ML="$TARGET/release/gensyn-ml"
BENCH="$TARGET/release/examples/bench"
CPU_FLAG="${BENCH_CPU:+--cpu}"

for model in mlp cnn; do
    "$ML" data-ref --file .data/mnist/train.idx --spec "examples/mnist-$model.json" \
        --out "$OUT/mnist-$model.json" >/dev/null
    for threads in 1 2; do
        "$BENCH" "$OUT/mnist-$model.json" --threads "$threads" --steps "$STEPS" $CPU_FLAG \
            >"$OUT/rust-$model-$threads.json"
        python -W ignore scripts/bench/pytorch_baseline.py "$OUT/mnist-$model.json" \
            --threads "$threads" --steps "$STEPS" $CPU_FLAG >"$OUT/torch-$model-$threads.json"
    done
done

python - "$OUT" <<'PYEOF'
import json, os, sys
out = sys.argv[1]
load = lambda n: json.load(open(os.path.join(out, n)))
print("wall time (best of reps):")
print(f"{'model':5} {'thr':>3} {'device':>7} {'tch st/s':>9} {'torch st/s':>10} {'P2 ratio':>8} {'ckpt %':>7}"
      f" {'P3 repops/libtorch (1t, 2t)':>28}")
for model in ("mlp", "cnn"):
    for t in (1, 2):
        r, p = load(f"rust-{model}-{t}.json"), load(f"torch-{model}-{t}.json")
        p3 = ", ".join(f"{x['ratio_repops_over_libtorch']:.2f}" for x in r["replay"])
        print(f"{model:5} {t:>3} {r['device']:>7} {r['tch_steps_per_s']:9.1f} {p['pytorch_steps_per_s']:10.1f}"
              f" {r['tch_steps_per_s'] / p['pytorch_steps_per_s']:8.3f} {r['checkpoint_overhead_pct']:7.2f} {p3:>28}")
print("process CPU time (barely moved by other load):")
print(f"{'model':5} {'thr':>3} {'tch st/cpu-s':>12} {'torch st/cpu-s':>14} {'P2 ratio':>8} {'ckpt cpu %':>10}")
for model in ("mlp", "cnn"):
    for t in (1, 2):
        r, p = load(f"rust-{model}-{t}.json"), load(f"torch-{model}-{t}.json")
        print(f"{model:5} {t:>3} {r['tch_steps_per_cpu_s']:12.1f} {p['pytorch_steps_per_cpu_s']:14.1f}"
              f" {r['tch_steps_per_cpu_s'] / p['pytorch_steps_per_cpu_s']:8.3f} {r['checkpoint_cpu_overhead_pct']:10.2f}")
PYEOF

"$TARGET/release/examples/lm_bench" --steps 20 >"$OUT/lm.json"
for threads in 1 2; do
    python -W ignore scripts/bench/pytorch_lm_baseline.py "$OUT/lm.json" --threads "$threads" \
        --steps 20 >"$OUT/torch-lm-$threads.json"
done
python - "$OUT" <<'PYEOF'
import json, os, sys
out = sys.argv[1]
r = json.load(open(os.path.join(out, "lm.json")))
m = r["model"]
print(f"transformer ({m['parameters']} parameters, {m['layers']} blocks of width {m['d']}, "
      f"context {m['t']}, batch {m['batch']}), training steps:")
print(f"{'thr':>3} {'repops st/s':>11} {'tch st/s':>9} {'torch st/s':>10} {'P2 tch/torch':>12} {'P3 repops/libtorch':>18}")
for x in r["replay"]:
    t = x["threads"]
    p = json.load(open(os.path.join(out, f"torch-lm-{t}.json")))
    if p["parameters"] != m["parameters"]:
        sys.exit(f"the PyTorch model has {p['parameters']} parameters, not {m['parameters']}")
    print(f"{t:>3} {x['repops_steps_per_s']:11.1f} {x['libtorch_steps_per_s']:9.1f} {p['pytorch_steps_per_s']:10.1f}"
          f" {x['libtorch_steps_per_s'] / p['pytorch_steps_per_s']:12.3f} {x['ratio_repops_over_libtorch']:18.2f}")
PYEOF
