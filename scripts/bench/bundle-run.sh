#!/usr/bin/env bash
# The runner of a folder made by scripts/bench/bundle.sh (it is run.sh there):
#   run.sh PYTHON OUT [PHASE...]      phases: tests train p2 p3 (all by default)
# PYTHON is a python with torch 2.11, whose lib folder the binaries link against. Every
# result goes to OUT as JSON or a log; a summary goes to stdout. The exit status is 1
# when a step failed, including a replay past the threshold, and 2 for an unknown phase.
set -uo pipefail
usage="usage: run.sh PYTHON OUT [tests|train|p2|p3 ...]"
PY="${1:?$usage}"
OUT="${2:?$usage}"
shift 2
PHASES="${*:-tests train p2 p3}"
# Paths the caller gave are relative to where it stands, not to the bundle.
[[ "$PY" == */* && "$PY" != /* ]] && PY="$PWD/$PY"
mkdir -p "$OUT"
OUT="$(cd "$OUT" && pwd)"
cd "$(dirname "${BASH_SOURCE[0]}")"
TORCH_LIB="$("$PY" -W ignore -c '
import os, sys, torch
if not torch.__version__.startswith("2.11."):
    sys.exit(f"torch {torch.__version__}; the binaries were built against 2.11")
print(os.path.join(os.path.dirname(torch.__file__), "lib"))')" ||
    { echo "run.sh: $PY has no usable torch (see above)" >&2; exit 1; }
export LD_LIBRARY_PATH="$TORCH_LIB${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
CORES="$(nproc)"
status=0
fail() { ((status = status > $1 ? status : $1)); }

"$PY" -W ignore - >"$OUT/machine.json" <<'PYEOF'
import json, platform, torch
cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
flags = next((l.split(":", 1)[1].split() for l in open("/proc/cpuinfo") if l.startswith("flags")), [])
cuda = torch.cuda.is_available()
print(json.dumps({
    "torch": torch.__version__, "cpu": cpu, "torch_threads": torch.get_num_threads(),
    "avx512f": "avx512f" in flags, "cuda": cuda,
    "gpu": torch.cuda.get_device_name(0) if cuda else None,
}))
PYEOF
echo "machine: $(cat "$OUT/machine.json")"
echo "phases: $PHASES"

# Variants of the examples: longer MLP runs (8 epochs, 1,000 steps) with k = 50 and
# k = 1,000 to split fixed from per-checkpoint costs; the CNN in Threshold mode (tch
# trains only Threshold-mode specs).
"$PY" - <<'PYEOF'
import copy, json
mlp, cnn = (json.load(open(f"examples/mnist-{m}.json")) for m in ("mlp", "cnn"))
def save(name, spec, mode=None, **training):
    spec = copy.deepcopy(spec)
    spec["training"].update(training)
    if mode:
        spec["verification"]["mode"] = mode
    json.dump(spec, open(f"examples/{name}.json", "w"), indent=1)
save("mlp-long-k50", mlp, epochs=8, checkpoint_interval=50)
save("mlp-long-k1000", mlp, epochs=8, checkpoint_interval=1000)
save("cnn-threshold", cnn, mode="threshold")
PYEOF
[[ -f examples/cnn-threshold.json ]] || fail 1

run_test() { # NAME (bin/test-NAME; repops-* belong to primitives/repops, the rest to offchain-workers)
    local log="$OUT/test-$1.log" crate=offchain-workers
    [[ "$1" == repops* ]] && crate=primitives/repops
    CARGO_MANIFEST_DIR="$PWD/$crate" "bin/test-$1" >"$log" 2>&1 || fail 1
    echo "test $1: $(grep -E '^test result' "$log" | tail -n 1)"
}

for phase in $PHASES; do
    echo "== $phase"
    case "$phase" in
    tests)
        for exe in bin/test-*; do run_test "${exe#bin/test-}"; done
        ;;
    train)
        # Trained with tch on the best device, replayed with repops on the CPU.
        for spec in mnist-mlp cnn-threshold; do
            echo "   $spec"
            log="$OUT/train-$spec.log"
            rm -rf "$OUT/store-$spec" # a fresh run, not a resumed one
            bin/gensyn-ml train --spec "examples/$spec.json" --store "$OUT/store-$spec" \
                --test-data .data/mnist/test.idx >"$OUT/train-$spec.json" 2>"$log" || fail 1
            bin/gensyn-ml verify --spec "examples/$spec.json" --store "$OUT/store-$spec" \
                --segments 0,1,2,3 --repops-only --threads "$CORES" \
                >"$OUT/verify-$spec.json" 2>>"$log" || fail 1
        done
        ;;
    p2)
        for spec in mnist-mlp mnist-cnn mlp-long-k50 mlp-long-k1000; do
            steps=250
            [[ "$spec" == mlp-long-* ]] && steps=1000
            echo "   $spec ($steps steps)"
            bin/bench "examples/$spec.json" --threads "$CORES" --steps "$steps" --reps 5 \
                --replay-threads 1 >"$OUT/bench-$spec.json" 2>"$OUT/bench-$spec.log" || fail 1
            "$PY" -W ignore pytorch_baseline.py "examples/$spec.json" --threads "$CORES" \
                --steps "$steps" >"$OUT/torch-$spec.json" 2>>"$OUT/bench-$spec.log" || fail 1
        done
        ;;
    p3)
        threads="$(printf '%s\n' 1 2 4 "$CORES" | sort -nu | paste -sd,)"
        for spec in mnist-mlp mnist-cnn; do
            for work in 8388608 2097152 524288 avx2; do
                echo "   $spec, threshold $work, threads $threads"
                if [[ "$work" == avx2 ]]; then
                    args=(--min-parallel-work 8388608)
                    export REPOPS_MAX_ISA=avx2
                else
                    args=(--min-parallel-work "$work")
                    unset REPOPS_MAX_ISA
                fi
                bin/bench "examples/$spec.json" --cpu --threads 1 --steps 5 --reps 5 \
                    --replay-threads "$threads" "${args[@]}" >"$OUT/p3-$spec-$work.json" \
                    2>"$OUT/p3-$spec-$work.log" || fail 1
            done
        done
        unset REPOPS_MAX_ISA
        ;;
    *) echo "run.sh: unknown phase $phase ($usage)" >&2; fail 2 ;;
    esac
done

# The summary: one line per result found in OUT.
"$PY" -W ignore - "$OUT" <<'PYEOF'
import glob, json, os, sys
out = sys.argv[1]
def load(name):
    try:
        return json.load(open(os.path.join(out, name)))
    except (OSError, ValueError):
        return None
def specs(prefix):
    return sorted(p[len(prefix):-5] for p in map(os.path.basename, glob.glob(f"{out}/{prefix}*.json")))
for spec in specs("train-"):
    t, v = load(f"train-{spec}.json"), load(f"verify-{spec}.json")
    if not (t and v):
        print(f"train {spec}: no result; see train-{spec}.log")
        continue
    segs = v.get("segments", [])
    l2 = ", ".join(f"{s.get('distances', {}).get('l2', float('nan')):.2e}" for s in segs)
    print(f"train {spec}: test accuracy {t.get('test_accuracy')}, {t.get('steps_per_second', 0):.0f} steps/s; "
          f"repops replay L2 per segment [{l2}], all passed: {all(s.get('passed') for s in segs)}")
for spec in specs("bench-"):
    r, p = load(f"bench-{spec}.json"), load(f"torch-{spec}.json")
    try:
        tch, torch = r["tch_steps_per_s"], p["pytorch_steps_per_s"]
        print(f"P2 {spec} on {r['device']}: {tch / torch:.2f} ({tch:.0f} / {torch:.0f} steps/s); checkpoint "
              f"overhead {r['checkpoint_overhead_pct']:.1f}% (blocked {r['checkpoint_blocked_pct']:.1f}%, "
              f"CPU {r['checkpoint_cpu_overhead_pct']:+.1f}%)")
    except (TypeError, KeyError, ZeroDivisionError):
        print(f"P2 {spec}: no result; see bench-{spec}.log")
for run in specs("p3-"):
    r = load(f"p3-{run}.json")
    try:
        cells = ", ".join(f"{x['threads']}t {x['ratio_repops_over_libtorch']:.2f}" for x in r["replay"])
    except (TypeError, KeyError):
        cells = f"no result; see p3-{run}.log"
    print(f"P3 {run}: {cells}")
PYEOF
exit "$status"
