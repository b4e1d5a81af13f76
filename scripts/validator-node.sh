#!/usr/bin/env bash
# Builds the validator-only node (no `workers` feature) and checks what an operator
# relies on: libtorch is neither in its dependency graph nor linked, it starts from a
# shell without LD_LIBRARY_PATH, refuses the worker flags, and authors blocks on a
# development chain.
#
#   scripts/validator-node.sh
#
# It builds with gensyn-workers beside it (as scripts/run-dev.sh does) so that the
# shared dependencies keep the features of the default build and only the node crate
# is compiled again. The binary it leaves in the target dir is the validator-only one;
# the next default build puts the full one back.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
say() { printf '\033[1;34m[validator-node]\033[0m %s\n' "$*" >&2; }
fail() { printf '\033[1;31m[validator-node]\033[0m %s\n' "$*" >&2; exit 1; }
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/gensyn-node/target}"

if tree=$(cargo tree --locked -p gensyn-node --no-default-features -e normal,build \
	-i torch-sys 2>&1); then
	fail "torch-sys is in the validator-only node's dependency graph: $tree"
fi
grep -q "did not match any packages" <<<"$tree" || fail "cargo tree failed: $tree"

say "building gensyn-node --no-default-features"
built=$(mktemp)
cargo build --release --locked -p gensyn-node -p gensyn-workers --no-default-features \
	--bin gensyn-node 2>&1 | tee "$built" >&2
# Its own code (the paths without workers) is held to the same no-warnings rule as
# clippy holds the default build to.
if grep -q "warning: \`gensyn-node\`" "$built"; then
	rm -f "$built"
	fail "the validator-only build has warnings"
fi
rm -f "$built"
bin="$CARGO_TARGET_DIR/release/gensyn-node"
if ldd "$bin" | grep -i torch; then
	fail "the validator-only node links libtorch"
fi

# From a shell with none of scripts/env.sh's settings.
if out=$(env -u LD_LIBRARY_PATH "$bin" --dev --tmp --solver 2>&1); then
	fail "--solver was accepted by a node without workers"
fi
grep -q -- "--solver" <<<"$out" || fail "no word on the refused flag: $out"

log=$(mktemp)
env -u LD_LIBRARY_PATH "$bin" --dev --tmp --rpc-port 0 --port 0 --no-prometheus \
	--no-telemetry >"$log" 2>&1 &
pid=$!
trap 'kill "$pid" 2>/dev/null || true; rm -f "$log"' EXIT
for _ in $(seq 60); do
	if grep -q "Imported #3" "$log"; then
		say "it authored blocks: $(grep -c 'Imported #' "$log") imported"
		exit 0
	fi
	kill -0 "$pid" 2>/dev/null || break
	sleep 1
done
tail -20 "$log" >&2
fail "the validator-only node authored no third block within 60 s"
