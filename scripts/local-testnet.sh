#!/usr/bin/env bash
# Starts the three-validator local network (Alice, Bob, Charlie) on 127.0.0.1, each with
# its own ports and base path under .data/local-testnet, and stops all three on Ctrl-C.
#
#   scripts/local-testnet.sh           # RPC: Alice 9944, Bob 9945, Charlie 9946
#   scripts/local-testnet.sh --purge   # start from empty databases
#
# Logs: .data/local-testnet/<name>.log
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
say() { printf '\033[1;34m[local]\033[0m %s\n' "$*" >&2; }

export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/gensyn-node/target}"
NODE="${GENSYN_NODE:-$CARGO_TARGET_DIR/release/gensyn-node}"
if [[ ! -x "$NODE" ]]; then
	"$ROOT/scripts/setup.sh"
	say "building gensyn-node"
	cargo build --release -p gensyn-node
fi
DATA="$ROOT/.data/local-testnet"
if [[ "${1:-}" == "--purge" ]]; then
	rm -rf "$DATA"
fi
mkdir -p "$DATA"

# Alice's libp2p key is fixed so the others can find her.
ALICE_KEY=0000000000000000000000000000000000000000000000000000000000000001
ALICE_PEER=$("$NODE" key inspect-node-key --file <(printf '%s' "$ALICE_KEY"))
ALICE_ADDR="/ip4/127.0.0.1/tcp/30333/p2p/$ALICE_PEER"

pids=()
stop() {
	say "stopping"
	for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
	for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
}
trap stop EXIT INT TERM

start() { # name p2p-port rpc-port extra-args...
	local name=$1 p2p=$2 rpc=$3
	shift 3
	"$NODE" --chain local --"$name" --base-path "$DATA/$name" \
		--rpc-port "$rpc" --listen-addr "/ip4/127.0.0.1/tcp/$p2p" \
		--allow-private-ip --unsafe-force-node-key-generation --no-prometheus --no-mdns "$@" >"$DATA/$name.log" 2>&1 &
	pids+=($!)
	say "$name: p2p $p2p, rpc ws://127.0.0.1:$rpc, log $DATA/$name.log"
}

start alice 30333 9944 --node-key "$ALICE_KEY"
start bob 30334 9945 --bootnodes "$ALICE_ADDR"
start charlie 30335 9946 --bootnodes "$ALICE_ADDR"

say "following Alice's log (Ctrl-C stops all three)"
tail -n +1 -F "$DATA/alice.log" | grep --line-buffered -E "Imported|finalized|Idle|error|Error" &
pids+=($!)
wait "${pids[0]}"
