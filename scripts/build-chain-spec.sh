#!/usr/bin/env bash
# Regenerates the committed chain specs of the local testnet from the runtime's
# `local_testnet` genesis preset: chain-spec/local.json (plain) and local-raw.json (raw).
# The test `chain_spec` fails when they no longer match the runtime.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/gensyn-node/target}"
cargo build --release -p gensyn-node
NODE="$CARGO_TARGET_DIR/release/gensyn-node"
"$NODE" build-spec --chain local --disable-default-bootnode >chain-spec/local.json
"$NODE" build-spec --chain local --disable-default-bootnode --raw >chain-spec/local-raw.json
echo "wrote chain-spec/local.json and chain-spec/local-raw.json"
