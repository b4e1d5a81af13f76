#!/usr/bin/env bash
# The profit table: a population of strategies (honest parties, lazy and faking solvers,
# lazy, silent and bribed verifiers, coalitions, copycat and spam whistleblowers, a
# griefing submitter) plays TASKS tasks against the native runtime with its default
# economic parameters, and each deviation's profit per task is printed against honest
# play, with a 95% interval. The last line says whether every deviation loses.
#
#   scripts/economics.sh [TASKS (default 10000)] [SEED (default 1)]
#
# See docs/economics.md for the model and the parameters.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
"$ROOT/scripts/setup.sh" >&2
# The same environment as scripts/test.sh, so that both share one build.
# shellcheck source=/dev/null
source "$ROOT/scripts/env.sh"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/gensyn-node/target}"
# The test suite's own build (workspace, same features, linted as it compiles), so that
# nothing is built twice.
# shellcheck source=lint-env.sh
source "$ROOT/scripts/lint-env.sh"
ECONOMICS_TASKS="${1:-10000}" ECONOMICS_SEED="${2:-1}" \
	cargo test --release --workspace --locked --features gensyn-node/test-faults \
	--test economics -- --nocapture --test-threads 1 --ignored --exact table
