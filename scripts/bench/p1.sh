#!/usr/bin/env bash
# P1: the compute time all roles spend on one verified task, divided by plain local tch
# training of the same task, both measured in this run on this machine (CPU, 1 thread):
#
#   roles:    a dev node with the solver, verifier and whistleblower embedded trains,
#             profiles, replays and re-checks a task (examples/mnist-mlp.json unless
#             P1_SPEC names another, an image model's or a language model's) submitted through
#             polkadot.js; the node's gensyn_worker_job_seconds_total (per role and duty)
#             is summed once the task completes;
#   baseline: the bench example's tch training speed without checkpoints (best of 3
#             runs of up to P1_BASELINE_STEPS steps, default 1000), times the task's
#             steps; `train_s_over_plain` in the report checks that rate against the
#             solver's own full training.
#
# It also prints the audit the task used and the probability that it catches a solver
# faking at least 10% of the segments, and the smallest audit reaching 99% with the
# ratio it would cost at the measured per-segment costs.
#
#   scripts/bench/p1.sh        (results in $BENCH_OUT, default out/bench/p1.json)
#   P1_PREBUILT=1 scripts/bench/p1.sh   (use the binaries `scripts/test.sh` built)
#   P1_KEEP=1 ...                       (keep the node log and metrics in the temp dir)
#   P1_WATCH_PERCENT=25 ...             (the whistleblower replays a random 25% of the
#                                        verdicts; default 100)
#   P1_SPEC=scripts/bench/p1-cnn-1008-segments.json ...
#                                       (the task; default examples/mnist-mlp.json, 6
#                                        segments; this one has 1,008 segments of 10
#                                        CNN steps and 43 audits, ~2 min of training;
#                                        scripts/bench/p1-lm-430-segments.json: the
#                                        small language model, 430 segments of 2 steps,
#                                        43 audits)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
OUT="${BENCH_OUT:-$ROOT/out/bench}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/gensyn-node/target}"
T="$CARGO_TARGET_DIR/release"
say() { printf '\033[1;34m[p1]\033[0m %s\n' "$*" >&2; }

scripts/setup.sh
scripts/fetch-mnist.sh
# shellcheck source=../env.sh
source scripts/env.sh
if [[ -z "${P1_PREBUILT:-}" ]]; then
	cargo build --release -p gensyn-node -p gensyn-workers --bin gensyn-node --bin gensyn-ml
	cargo build --release -p gensyn-workers --example bench
fi
WATCH="${P1_WATCH_PERCENT:-100}"
[[ "$WATCH" =~ ^[0-9]+$ ]] && ((WATCH >= 1 && WATCH <= 100)) || {
	echo "P1_WATCH_PERCENT must be 1 to 100, got '$WATCH'" >&2
	exit 2
}
TASK="${P1_SPEC:-examples/mnist-mlp.json}"
[[ -f "$TASK" ]] || {
	echo "P1_SPEC: no such task spec '$TASK'" >&2
	exit 2
}
BASE_STEPS="${P1_BASELINE_STEPS:-1000}"
[[ "$BASE_STEPS" =~ ^[1-9][0-9]*$ ]] || {
	echo "P1_BASELINE_STEPS must be a positive number, got '$BASE_STEPS'" >&2
	exit 2
}
mkdir -p "$OUT"
WORK="$(mktemp -d)"
SPEC="$WORK/task.json"
if [[ "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["data"]["format"])' "$TASK")" == tokens ]]; then
	# A language model's: the token file its spec commits to, cut from the Bible.
	scripts/kjv-tokens.sh "$TASK"
	cp "$TASK" "$SPEC"
	DATA=$(python3 -c 'import json,os,sys; print(os.path.abspath(json.load(open(sys.argv[1]))["data"]["uri"][7:]))' "$TASK")
else
	"$T/gensyn-ml" data-ref --file .data/mnist/train.idx --spec "$TASK" --out "$SPEC" >/dev/null
	DATA="$ROOT/.data/mnist/train.idx"
fi
STEPS=$(python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); t=s["training"]; d=s["data"]; print(t["epochs"]*(-(-d["samples"]//t["batch_size"])))' "$SPEC")

say "baseline: plain tch training speed ($TASK, $STEPS steps in the task), 1 thread"
"$T/examples/bench" "$SPEC" --threads 1 --steps "$((STEPS < BASE_STEPS ? STEPS : BASE_STEPS))" --reps 3 --cpu >"$WORK/plain.json"

RPC=$((20000 + RANDOM % 20000))
PROM=$((RPC + 1))
STORE="127.0.0.1:$((RPC + 2))"
WS="ws://127.0.0.1:$RPC"
say "roles: dev node with every worker (log $WORK/node.log)"
"$T/gensyn-node" --dev --tmp --solver --verifier --whistleblower --worker-threads 1 --worker-cpu \
	--watch-percent "$WATCH" --allow-file-data \
	--proof-store-listen "$STORE" --rpc-port "$RPC" --prometheus-port "$PROM" --port 0 \
	--no-mdns >"$WORK/node.log" 2>&1 &
NODE_PID=$!
trap 'kill $NODE_PID 2>/dev/null || true; wait $NODE_PID 2>/dev/null || true; [[ -n "${P1_KEEP:-}" ]] || rm -rf "$WORK"' EXIT
js() { node "$ROOT/scripts/js/$1" "${@:2}"; }
for _ in $(seq 1 60); do
	js dev-timing.js --ws "$WS" --challenge-period 12 --randomness-delay 2 >/dev/null 2>&1 && break
	sleep 2
done
for who in "//Bob solver" "//Charlie verifier" "//Dave whistleblower"; do
	read -r seed role <<<"$who"
	js register.js --ws "$WS" --seed "$seed" --role "$role" --bond 100 --endpoint "http://$STORE" >/dev/null
done
jq_uri() { python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); s["data"]["uri"]="file://"+sys.argv[2]; json.dump(s,open(sys.argv[1],"w"))' "$@"; }
jq_uri "$SPEC" "$DATA"
say "task: $STEPS steps submitted through polkadot.js; following it to settlement"
js submit-task.js --ws "$WS" --seed //Alice --spec "$SPEC" --follow --timeout 3600000 | tee "$WORK/submit.log" >&2
curl -fsS "http://127.0.0.1:$PROM/metrics" >"$WORK/metrics.txt"

python3 - "$WORK" "$OUT/p1.json" "$WATCH" <<'PYEOF'
import json, math, re, sys
work, out, watch = sys.argv[1], sys.argv[2], int(sys.argv[3])
plain = json.load(open(f"{work}/plain.json"))
spec = json.load(open(f"{work}/task.json"))
k = spec["training"]["checkpoint_interval"]
steps = spec["training"]["epochs"] * -(-spec["data"]["samples"] // spec["training"]["batch_size"])
plain_s = steps / plain["tch_steps_per_s"]
jobs = {}
for line in open(f"{work}/metrics.txt"):
    m = re.match(r'gensyn_worker_job_seconds_total\{([^}]*)\} ([0-9.e+-]+)', line)
    if m:
        labels = dict(re.findall(r'(\w+)="([^"]*)"', m.group(1)))
        jobs[f"{labels['role']}/{labels['duty']}"] = float(m.group(2))
result = next(json.loads(l[7:]) for l in open(f"{work}/submit.log") if l.startswith("RESULT "))
audits = int(result.get("audits", 0))
segments = math.ceil(steps / k)
def catch(n, m, fake_frac=0.10):
    f = max(1, math.ceil(fake_frac * n))
    if m >= n: return 1.0
    return 1.0 - math.comb(n - f, m) / math.comb(n, m)
total = sum(jobs.values())
train = jobs.get("solver/train", 0.0)
# Per audited segment: the verifier's replay, and the whistleblower's share of one.
replay_per_segment = (jobs.get("verifier/verify", 0.0) + jobs.get("whistleblower/watch", 0.0)) / max(1, audits)
need = next((m for m in range(1, segments + 1) if catch(segments, m) >= 0.99), segments)
report = {
    "steps": steps, "segments": segments, "audits": audits, "watch_percent": watch,
    "plain_tch_s": plain_s, "roles_s": total, "jobs_s": jobs,
    "p1_ratio": total / plain_s,
    "catch_probability_fake_10pct": catch(segments, audits),
    "audits_for_99pct": need,
    "p1_ratio_at_99pct_estimate": (total + (need - audits) * replay_per_segment) / plain_s,
    "train_s_over_plain": train / plain_s,
}
json.dump(report, open(out, "w"), indent=2)
print(json.dumps(report, indent=2))
print(f"P1 = {report['p1_ratio']:.2f} (goal <= 1.10) with {audits} of {segments} segments audited: "
      f"catches a solver faking >= 10% of segments with probability {report['catch_probability_fake_10pct']:.3f} "
      f"(goal >= 0.99; {need} audits reach it, estimated P1 {report['p1_ratio_at_99pct_estimate']:.2f})")
PYEOF
