#!/usr/bin/env bash
# The slowest move of the pinpoint game at the runtime's bound on a segment's gas: a
# defendant's first bisection replays the whole segment on one core (repops, as the
# node's player does) and roots the states at the dissection points. Prints the gas, the
# steps, the bytes of states kept, the replay and move times and the nanoseconds a gas
# took, to compare with the ten-minute move deadline.
#
#   scripts/bench/move-time.sh [GAS]   (default: the runtime's MAX_SEGMENT_GAS)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
CONFIG=runtime/src/configs/arbitration.rs
DEFAULT="$(sed -n 's/^pub const MAX_SEGMENT_GAS: u64 = \([0-9_]*\);/\1/p' "$CONFIG" | tr -d _)"
GAS="${1:-$DEFAULT}"
[[ -n "$GAS" ]] || { echo "no MAX_SEGMENT_GAS in $CONFIG" >&2; exit 1; }
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/gensyn-node/target}"
echo "measuring the first move at $GAS gas (one core)" >&2
MOVE_TIME_GAS="$GAS" cargo test --release --locked -p pallet-gensyn-arbitration --lib \
	worst_case_first_move -- --ignored --nocapture 2>&1 | grep -E '^MOVE_TIME|test result|panicked'
