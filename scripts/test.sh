#!/usr/bin/env bash
# Runs the whole test suite on a fresh machine: installs what is missing (setup.sh),
# fetches the MNIST digits and the text corpus, checks formatting, builds the
# validator-only node (no libtorch) and lets it author blocks, then builds every test of
# the workspace in the one release profile, linted by clippy as it compiles, and runs
# them (unit, runtime, ML, and end-to-end tests that start real nodes on 127.0.0.1 and
# drive them with polkadot.js), then the pallets' benchmarks as tests and a bounded fuzz
# run of the task spec.
#
#   scripts/test.sh [extra cargo test arguments]
#
# CARGO_TARGET_DIR defaults to ~/.cache/gensyn-node/target so that every clone on this
# machine shares one incremental build.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
say() { printf '\033[1;34m[test]\033[0m %s\n' "$*" >&2; }

"$ROOT/scripts/setup.sh"
# libtorch for the ML crate (tch): LIBTORCH_USE_PYTORCH, PATH and LD_LIBRARY_PATH.
if [[ -f "$ROOT/scripts/env.sh" ]]; then
	# shellcheck source=/dev/null
	source "$ROOT/scripts/env.sh"
fi
if [[ -x "$ROOT/scripts/fetch-mnist.sh" ]]; then
	"$ROOT/scripts/fetch-mnist.sh" >&2
fi
if [[ -x "$ROOT/scripts/fetch-kjv.sh" ]]; then
	"$ROOT/scripts/fetch-kjv.sh" >&2
fi

export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/gensyn-node/target}"
export CARGO_TERM_COLOR="${CARGO_TERM_COLOR:-never}"

say "cargo fmt --check"
cargo fmt --all --check

start=$(date +%s)
# Clippy rides on the builds below instead of a check build of its own: as the compiler
# of the workspace's own crates it lints them while it compiles them, so polkadot-sdk is
# compiled once, by rustc, for both (`cargo clippy` checked all of it again, 14 to 20
# minutes of a cold run on two cores), in the test build's profile and features.
# shellcheck source=lint-env.sh
source "$ROOT/scripts/lint-env.sh"

# Before the test build, which then puts the full node binary back in the target dir.
"$ROOT/scripts/validator-node.sh"

# The node as released, without the test-only faults: code reached only from a fault
# path would otherwise hide an unused warning or a broken build.
say "building and linting the node as released"
cargo build --release --locked -p gensyn-node -p gensyn-workers --bin gensyn-node
say "validator node and released node built and linted in $(($(date +%s) - start)) s"

say "building, linting and running the tests (target dir: $CARGO_TARGET_DIR)"
# The node is built with its test-only fault injection (the workers tests need it).
cargo test --release --workspace --locked --features gensyn-node/test-faults "$@"
unset RUSTC_WORKSPACE_WRAPPER CLIPPY_ARGS

# The pallets' benchmarks, run once each as tests against their mock runtimes (they need
# the runtime-benchmarks feature, which the workspace build above does not turn on).
say "running the pallet benchmarks as tests"
bench_features="pallet-gensyn-stake/runtime-benchmarks pallet-gensyn-tasks/runtime-benchmarks"
bench_features+=" pallet-gensyn-jackpot/runtime-benchmarks pallet-gensyn-arbitration/runtime-benchmarks"
cargo test --release --locked --lib -p pallet-gensyn-stake -p pallet-gensyn-tasks \
	-p pallet-gensyn-jackpot -p pallet-gensyn-arbitration --features "$bench_features" -- bench

# A million task specs' SCALE bytes, mutated, through decoding, validation and the work
# estimate, built with overflow checks (the `fuzz` profile) so that a wrapped sum fails.
say "fuzzing the spec's decoding, validation and estimate"
SPEC_FUZZ_RUNS=1000000 cargo test --profile fuzz --locked -p gensyn-primitives \
	--test fuzz_spec -- --nocapture
say "tests finished in $(($(date +%s) - start)) s"
