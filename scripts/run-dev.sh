#!/usr/bin/env bash
# The main job: sets everything up, builds gensyn-node and runs a development chain on
# 127.0.0.1 with every role embedded in one node (Alice authors with BABE and finalizes
# with GRANDPA; the node's solver is Bob, its verifier Charlie, its whistleblower Dave),
# then trains a real task end to end through polkadot.js:
#
#   1. shortens the challenge window and the draws' wait (sudo) and registers Bob,
#      Charlie and Dave (bonds held);
#   2. Alice submits examples/mnist-mlp.json (real MNIST digits), escrowing its fee;
#   3. Charlie profiles it, Bob accepts and trains it with libtorch, checkpointing every
#      k steps into his proof store, and commits the checkpoint root;
#   4. Charlie fetches the drawn segments from Bob's proof store, replays them with
#      repops, posts verdicts and reveals his forced-error secret;
#   5. Dave replays the verdicts in their challenge window (and would challenge a wrong
#      one and play the pinpoint game);
#   6. the task completes: payouts are printed, and the final model's test accuracy.
#
# Every task event is printed as its block is finalized. Then the chain keeps running
# until Ctrl-C (GENSYN_DEV_EXIT=1: stop once the task is done).
#
# RPC (polkadot.js, apps UI): ws://127.0.0.1:9944; Bob's proof store: http://127.0.0.1:8700
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
say() { printf '\033[1;34m[dev]\033[0m %s\n' "$*" >&2; }

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

"$ML" data-ref --file .data/mnist/train.idx --spec examples/mnist-mlp.json --out "$WORK/mnist-mlp.json" >/dev/null
say "Alice submits the MNIST MLP task; following it block by block"
js submit-task.js --ws "$WS" --seed //Alice --spec "$WORK/mnist-mlp.json" --follow --timeout 1800000 \
	| tee "$WORK/task.log"
grep -q '"end":"TaskCompleted"' "$WORK/task.log" || { say "error: the task did not complete"; exit 1; }

RUN=$(ls "$WORK/workers/proof-store/runs" 2>/dev/null | head -n 1 | sed 's/\.jsonl$//')
if [[ -n "$RUN" ]]; then
	say "the trained model (Bob's proof store, run $RUN) on the MNIST test digits:"
	"$ML" evaluate --spec "$WORK/mnist-mlp.json" --store "$WORK/workers/proof-store" \
		--run-id "$RUN" --test-data .data/mnist/test.idx --svg "$WORK/learning-curve.svg" || true
	say "learning curve: $WORK/learning-curve.svg"
fi
say "task done; the chain keeps running (Ctrl-C stops it)"
[[ -n "${GENSYN_DEV_EXIT:-}" ]] && exit 0
wait "$NODE_PID"
