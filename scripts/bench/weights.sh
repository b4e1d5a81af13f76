#!/usr/bin/env bash
# Measures the weights of the protocol pallets on this machine and writes each one's
# `src/weights/measured.rs`: builds the node with the `runtime-benchmarks` feature (no
# ML workers), then runs `gensyn-node benchmark pallet` over the dev chain's runtime.
# The pallets charge the larger of these figures and their hand counts, so a run on a
# faster machine never lowers a weight below what the counts allow.
#
#   scripts/bench/weights.sh [PALLET...]   (default: stake, tasks, jackpot)
#
# STEPS and REPEAT (default 5 and 3) set how many component values are measured and
# how often each. The first build takes long (the feature rebuilds the runtime's
# dependencies); the node it builds is kept as release/gensyn-node-benchmarks in the
# target dir, and release/gensyn-node is removed, so the next plain build relinks it.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
say() { printf '\033[1;34m[weights]\033[0m %s\n' "$*" >&2; }
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/gensyn-node/target}"
STEPS="${STEPS:-5}"
REPEAT="${REPEAT:-3}"
PALLETS=("$@")
[[ ${#PALLETS[@]} -gt 0 ]] || PALLETS=(stake tasks jackpot)

say "building gensyn-node --features runtime-benchmarks"
# The benchmark CLI's own test runtime (for `benchmark storage`, which this node does not
# offer) cannot be built from the registry.
SKIP_FRAME_STORAGE_ACCESS_TEST_RUNTIME_WASM_BUILD=1 cargo build --release --locked -p gensyn-node --no-default-features \
	--features runtime-benchmarks --bin gensyn-node
bin="$CARGO_TARGET_DIR/release/gensyn-node-benchmarks"
cp "$CARGO_TARGET_DIR/release/gensyn-node" "$bin"
wasm="$CARGO_TARGET_DIR/release/wbuild/gensyn-runtime/gensyn_runtime.compact.compressed.wasm"

for p in "${PALLETS[@]}"; do
	dir="pallets/$p/src/weights"
	[[ -d "$dir" ]] || { echo "no $dir" >&2; exit 1; }
	say "pallet_gensyn_$p: $STEPS steps, $REPEAT repeats"
	"$bin" benchmark pallet --runtime "$wasm" --genesis-builder runtime \
		--genesis-builder-preset development --pallet "pallet_gensyn_$p" --extrinsic '*' \
		--steps "$STEPS" --repeat "$REPEAT" --wasm-execution compiled \
		--template scripts/bench/weights.hbs --output "$dir/measured.rs"
done
# The benchmark node must not pass for a release one: the next plain build relinks it.
rm -f "$CARGO_TARGET_DIR/release/gensyn-node"
say "wrote ${PALLETS[*]}; run cargo test to check the runtime's bounds against them"
