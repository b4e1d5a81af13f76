#!/usr/bin/env bash
# Prints what a client and a chain see of a node build, to compare two builds of a change
# that must not touch the chain: the runtime's metadata (from a throw-away dev node over
# RPC on 127.0.0.1) and the development chain spec's genesis storage without the runtime
# code (`:code`), each with its blake2-256.
#
#   scripts/chain-fingerprint.sh [NODE_BINARY] > fingerprint.txt
#   diff before.txt after.txt     # no output: same metadata, same genesis
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
NODE="${1:-${CARGO_TARGET_DIR:-$HOME/.cache/gensyn-node/target}/release/gensyn-node}"
if [[ -f "$ROOT/scripts/env.sh" ]]; then
	# shellcheck source=/dev/null
	source "$ROOT/scripts/env.sh"
fi
[[ -x "$NODE" ]] || { echo "no node binary at $NODE" >&2; exit 1; }

port=$((20000 + RANDOM % 20000))
log="$(mktemp)"
"$NODE" --dev --tmp --rpc-port "$port" --port 0 --no-prometheus >"$log" 2>&1 &
pid=$!

meta="$(mktemp)"
spec="$(mktemp)"
trap 'kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; rm -f "$log" "$meta" "$spec"' EXIT
for _ in $(seq 1 120); do
	curl -s -H 'Content-Type: application/json' \
		-d '{"id":1,"jsonrpc":"2.0","method":"state_getMetadata","params":[]}' \
		"http://127.0.0.1:$port" >"$meta" 2>/dev/null || true
	grep -q '"result"' "$meta" && break
	sleep 1
done
grep -q '"result"' "$meta" || { echo "the dev node did not answer; its log:" >&2; cat "$log" >&2; exit 1; }

"$NODE" build-spec --chain dev --raw >"$spec" 2>/dev/null
python3 - "$meta" "$spec" <<'PY'
import hashlib, json, sys
meta = json.load(open(sys.argv[1]))["result"]
print("metadata", hashlib.blake2b(bytes.fromhex(meta[2:]), digest_size=32).hexdigest(), len(meta) // 2 - 1, "bytes")
top = json.load(open(sys.argv[2]))["genesis"]["raw"]["top"]
code_key = "0x" + b":code".hex()
rest = {k: v for k, v in sorted(top.items()) if k != code_key}
blob = json.dumps(rest, sort_keys=True).encode()
print("genesis-without-code", hashlib.blake2b(blob, digest_size=32).hexdigest(), len(rest), "keys")
PY
