#!/usr/bin/env bash
# The main job: sets everything up, builds gensyn-node and runs a development chain
# (Alice authors with BABE and finalizes with GRANDPA alone) on 127.0.0.1, printing
# each block as it is produced and finalized. Ctrl-C stops it.
#
#   scripts/run-dev.sh                 # run until Ctrl-C
#   GENSYN_DEV_BLOCKS=10 scripts/run-dev.sh   # stop once block #10 is finalized
#
# RPC (polkadot.js, apps UI): ws://127.0.0.1:9944
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
say() { printf '\033[1;34m[dev]\033[0m %s\n' "$*" >&2; }

"$ROOT/scripts/setup.sh"
if [[ -f "$ROOT/scripts/env.sh" ]]; then
	# shellcheck source=/dev/null
	source "$ROOT/scripts/env.sh"
fi
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/gensyn-node/target}"
say "building gensyn-node (release; the first build takes a while)"
cargo build --release -p gensyn-node
NODE="$CARGO_TARGET_DIR/release/gensyn-node"

say "starting the dev chain; RPC at ws://127.0.0.1:9944"
"$NODE" --dev --tmp --rpc-port 9944 --no-prometheus "$@" &
NODE_PID=$!
trap 'kill "$NODE_PID" 2>/dev/null; wait "$NODE_PID" 2>/dev/null' EXIT INT TERM

if [[ -n "${GENSYN_DEV_BLOCKS:-}" ]]; then
	# Answers nothing (rather than failing) while the RPC server is still starting.
	rpc() {
		curl -s -H 'Content-Type: application/json' \
			-d "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"$1\",\"params\":[$2]}" \
			http://127.0.0.1:9944 || true
	}
	while kill -0 "$NODE_PID" 2>/dev/null; do
		head=$(rpc chain_getFinalizedHead "" | sed -n 's/.*"result":"\(0x[0-9a-f]*\)".*/\1/p')
		if [[ -n "$head" ]]; then
			num=$(rpc chain_getHeader "\"$head\"" | sed -n 's/.*"number":"\(0x[0-9a-f]*\)".*/\1/p')
			if [[ -n "$num" ]] && ((num >= GENSYN_DEV_BLOCKS)); then
				say "block #$((num)) finalized; stopping"
				exit 0
			fi
		fi
		sleep 2
	done
	say "error: the node stopped"
	exit 1
fi
wait "$NODE_PID"
