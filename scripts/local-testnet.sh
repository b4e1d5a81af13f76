#!/usr/bin/env bash
# Starts the three-validator local network (Alice, Bob, Charlie) on 127.0.0.1, each with
# its own ports and base path under .data/local-testnet, and stops them all on Ctrl-C.
# With --workers it also starts three non-validating worker nodes, each with its role's
# key in its own keystore, and registers them on chain (bonds of 100 GSN):
#   Ferdie, solver        RPC 9947, proof store http://127.0.0.1:8701
#   Eve, verifier         RPC 9948
#   Dave, whistleblower   RPC 9949
#
#   scripts/local-testnet.sh                    # RPC: Alice 9944, Bob 9945, Charlie 9946
#   scripts/local-testnet.sh --purge --workers  # from empty databases, with the workers
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
WORKERS=0
for arg in "$@"; do
	case "$arg" in
	--purge) rm -rf "$DATA" ;;
	--workers) WORKERS=1 ;;
	*)
		echo "unknown argument $arg (expected --purge, --workers)" >&2
		exit 2
		;;
	esac
done
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

start_worker() { # name p2p-port rpc-port key-type seed role-flag extra-args...
	local name=$1 p2p=$2 rpc=$3 key_type=$4 seed=$5 flag=$6
	shift 6
	"$NODE" key insert --chain local --base-path "$DATA/$name" --key-type "$key_type" \
		--scheme sr25519 --suri "$seed"
	"$NODE" --chain local --name "$name" --base-path "$DATA/$name" "--$flag" --worker-threads 1 \
		--rpc-port "$rpc" --listen-addr "/ip4/127.0.0.1/tcp/$p2p" --bootnodes "$ALICE_ADDR" \
		--allow-private-ip --no-prometheus --no-mdns "$@" >"$DATA/$name.log" 2>&1 &
	pids+=($!)
	say "$name ($flag): p2p $p2p, rpc ws://127.0.0.1:$rpc, log $DATA/$name.log"
}

if [[ "$WORKERS" == 1 ]]; then
	start_worker ferdie 30336 9947 gsol //Ferdie solver --proof-store-listen 127.0.0.1:8701
	start_worker eve 30337 9948 gver //Eve verifier --proof-store-listen 127.0.0.1:8702
	start_worker dave 30338 9949 gwhb //Dave whistleblower --proof-store-listen 127.0.0.1:8703
	JS="$ROOT/scripts/js"
	[[ -d "$JS/node_modules" ]] || (cd "$JS" && npm ci --no-audit --no-fund)
	say "registering the workers once the chain finalizes"
	for entry in "//Ferdie solver 8701" "//Eve verifier 8702" "//Dave whistleblower 8703"; do
		read -r seed role port <<<"$entry"
		for _ in $(seq 1 20); do
			if node "$JS/register.js" --ws ws://127.0.0.1:9944 --seed "$seed" --role "$role" \
				--bond 100 --endpoint "http://127.0.0.1:$port" >>"$DATA/register.log" 2>&1; then
				say "$seed registered as $role"
				break
			fi
			sleep 6
		done
	done
fi

say "following Alice's log (Ctrl-C stops every node)"
tail -n +1 -F "$DATA/alice.log" | grep --line-buffered -E "Imported|finalized|Idle|error|Error" &
pids+=($!)
wait "${pids[0]}"
