#!/usr/bin/env bash
# The main job: sets everything up, builds gensyn-node and runs a development chain on
# 127.0.0.1 with every role embedded in one node (Alice authors with BABE and finalizes
# with GRANDPA; the node's solver is Bob, its verifier Charlie, its whistleblower Dave),
# then trains a real task end to end through polkadot.js:
#
#   1. shortens the challenge window and the draws' wait (sudo) and registers Bob,
#      Charlie and Dave (bonds held);
#   2. Alice submits examples/mnist-mlp.json (real MNIST digits), escrowing its fee, or
#      the spec `--task SPEC` names (an MNIST model's or a language model's on the King
#      James Bible, e.g. examples/charlm-small.json);
#   3. Charlie profiles it, Bob accepts and trains it with libtorch, checkpointing every
#      k steps into his proof store, and commits the checkpoint root;
#   4. Charlie fetches the drawn segments from Bob's proof store, replays them with
#      repops, posts verdicts and reveals his forced-error secret;
#   5. Dave replays the verdicts in their challenge window (and would challenge a wrong
#      one and play the pinpoint game);
#   6. the task completes: payouts are printed, and the final model's test accuracy; for
#      a language model, the held-out loss and perplexity before and after training and
#      text sampled from the untrained and the trained model.
#
# Every task event is printed as its block is finalized. Then the chain keeps running
# until Ctrl-C (GENSYN_DEV_EXIT=1: stop once the task is done). Options after `--task
# SPEC` go to the node.
#
#   scripts/run-dev.sh [--task SPEC] [NODE OPTIONS]
#
# RPC (polkadot.js, apps UI): ws://127.0.0.1:9944; Bob's proof store: http://127.0.0.1:8700
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
say() { printf '\033[1;34m[dev]\033[0m %s\n' "$*" >&2; }
SPEC="$ROOT/examples/mnist-mlp.json"
if [[ "${1:-}" == --task ]]; then
	[[ -f "${2:-}" ]] || { say "error: --task needs a spec file (usage: run-dev.sh [--task SPEC] [NODE OPTIONS])"; exit 1; }
	SPEC="$(realpath "$2")"
	shift 2
fi
cd "$ROOT"
"$ROOT/scripts/setup.sh"
# shellcheck source=/dev/null
source "$ROOT/scripts/env.sh"
"$ROOT/scripts/fetch-mnist.sh"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/gensyn-node/target}"
say "building gensyn-node and gensyn-ml (release; the first build takes a while)"
cargo build --release -p gensyn-node -p gensyn-workers --bin gensyn-node --bin gensyn-ml
NODE="$CARGO_TARGET_DIR/release/gensyn-node"
ML="$CARGO_TARGET_DIR/release/gensyn-ml"
WS=ws://127.0.0.1:9944
STORE=127.0.0.1:8700
WORK="$(mktemp -d "${TMPDIR:-/tmp}/gensyn-dev.XXXXXX")"

# The spec's data format and context (a language model's sequence length).
read -r FORMAT WIDTH < <(python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(d["data"]["format"], d["model"]["input"]["width"])' "$SPEC") || { say "error: $SPEC is not a task spec"; exit 1; }
# The task as submitted: its data named by an absolute path, ready before the chain starts.
TASK="$WORK/task.json"
if [[ "$FORMAT" == tokens ]]; then
	# The token file the spec commits to, cut from the corpus.
	scripts/kjv-tokens.sh "$SPEC"
	python3 - "$SPEC" "$TASK" <<'PYEOF'
import json, os, sys
spec = json.load(open(sys.argv[1]))
path = spec["data"]["uri"][len("file://"):]
spec["data"]["uri"] = "file://" + os.path.abspath(path)
json.dump(spec, open(sys.argv[2], "w"), indent=2)
PYEOF
	# Held-out sequences at the spec's context, from the verses training never sees.
	python3 scripts/py/gensyn_data.py tokens --text "${KJV_DIR:-.data/kjv}/test.txt" \
		--manifest "${KJV_DIR:-.data/kjv}/manifest.json" --context "$WIDTH" \
		--sequences 512 --out "$WORK/held-out.tokens" >/dev/null
else
	"$ML" data-ref --file .data/mnist/train.idx --spec "$SPEC" --out "$TASK" >/dev/null
fi

say "starting the dev chain with the solver, the verifier and the whistleblower; log in $WORK/node.log"
"$NODE" --dev --base-path "$WORK/chain" --rpc-port 9944 --no-prometheus \
	--solver --verifier --whistleblower --allow-file-data --worker-dir "$WORK/workers" \
	--proof-store-listen "$STORE" --detailed-log-output "$@" \
	>"$WORK/node.log" 2>&1 &
NODE_PID=$!
trap 'kill "$NODE_PID" 2>/dev/null; wait "$NODE_PID" 2>/dev/null' EXIT INT TERM
# The workers' lines of the node log (and every tenth block), as they come, with the
# time and the message only. The detailed log names each line's target, which is how
# the workers' lines are told apart; tail ends with the node.
tail -n +1 -F --pid="$NODE_PID" "$WORK/node.log" 2>/dev/null \
	| grep --line-buffered -E " gensyn-worker: | substrate: .*Imported #[0-9]*0 " \
	| sed -uE 's/^[0-9-]+ ([0-9:]+)\.[0-9]+ +[A-Z]+ +[^ ]+ +[^ ]+: /\1 /' &
TAIL_PID=$!
trap 'kill "$TAIL_PID" "$NODE_PID" 2>/dev/null; wait "$NODE_PID" 2>/dev/null' EXIT INT TERM

js() { (cd "$ROOT/scripts/js" && node "$@"); }
for _ in $(seq 1 60); do
	js list-tasks.js --ws "$WS" >/dev/null 2>&1 && break
	kill -0 "$NODE_PID" 2>/dev/null || { say "error: the node stopped; see $WORK/node.log"; exit 1; }
	sleep 2
done

say "shortening the challenge window to 10 blocks (sudo)"
js dev-timing.js --ws "$WS" --challenge-period 10 --randomness-delay 2
say "registering Bob (solver), Charlie (verifier) and Dave (whistleblower); proof store http://$STORE"
js register.js --ws "$WS" --seed //Bob --role solver --bond 100 --endpoint "http://$STORE"
js register.js --ws "$WS" --seed //Charlie --role verifier --bond 100 --endpoint "http://$STORE"
js register.js --ws "$WS" --seed //Dave --role whistleblower --bond 100 --endpoint "http://$STORE"

say "Alice submits ${SPEC#"$ROOT"/}; following it block by block"
js submit-task.js --ws "$WS" --seed //Alice --spec "$TASK" --follow --timeout 1800000 \
	| tee "$WORK/task.log"
grep -q '"end":"TaskCompleted"' "$WORK/task.log" || { say "error: the task did not complete"; exit 1; }

RUN=$(ls "$WORK/workers/proof-store/runs" 2>/dev/null | head -n 1 | sed 's/\.jsonl$//' || true)
STORED=(--spec "$TASK" --store "$WORK/workers/proof-store" --run-id "$RUN")
if [[ -n "$RUN" && "$FORMAT" == tokens ]]; then
	say "the trained model (Bob's proof store, run $RUN) on 512 held-out sequences:"
	{ "$ML" evaluate "${STORED[@]}" --test-data "$WORK/held-out.tokens" >"$WORK/held-out.json" &&
		python3 - "$WORK/held-out.json" <<'PYEOF' >&2; } || say "warning: the held-out evaluation failed"
import json, sys
r = json.load(open(sys.argv[1]))
for name, p in (("before training", r["first"]), ("after training", r["final"])):
    print(f"  {name} (step {p['step']}): loss {p['loss']:.4f} a character, perplexity {p['perplexity']:.2f}")
PYEOF
	for at in 0 ""; do
		what=$([[ -z "$at" ]] && echo "the trained model" || echo "the untrained model")
		say "text from $what, after \"And God said\":"
		# Its own log line repeats the text: warnings only.
		RUST_LOG=warn "$ML" sample "${STORED[@]}" ${at:+--checkpoint "$at"} --manifest "${KJV_DIR:-.data/kjv}/manifest.json" \
			--prompt "And God said" --length 160 --seed 7 \
			| python3 -c 'import json, sys, textwrap; print(textwrap.indent(json.load(sys.stdin)["text"], "  "))' >&2 \
			|| say "warning: sampling failed"
	done
elif [[ -n "$RUN" ]]; then
	say "the trained model (Bob's proof store, run $RUN) on the MNIST test digits:"
	"$ML" evaluate "${STORED[@]}" --test-data .data/mnist/test.idx --svg "$WORK/learning-curve.svg" || true
	say "learning curve: $WORK/learning-curve.svg"
fi
say "task done; the chain keeps running (Ctrl-C stops it)"
[[ -n "${GENSYN_DEV_EXIT:-}" ]] && exit 0
wait "$NODE_PID"
