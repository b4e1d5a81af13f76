//! pallet-gensyn-arbitration: the pinpoint game over challenged verdicts.
//!
//! A game is at most about 52 moves: 6 step rounds (17-fold cuts cover 24 million
//! steps, above `MAX_STEPS`), 8 Merkle descents (trees of 2^32 chunks), 8 reduction
//! rounds (2^32 terms), two moves each, plus the choice of a Threshold verdict's
//! challenger, the start proof, the step opening, the tensor pick, the chunk opening,
//! the element pick, the answer and the last term (a game over a distance is shorter:
//! the choice, the sums, a pick, 8 rounds over 2^32 terms and the term). At ten
//! minutes a move that is under 9 hours, well inside the tasks pallet's one-day
//! `DisputeTimeout` (checked below).

use crate::{Balances, Runtime, RuntimeHoldReason, Tasks, DAYS, MINUTES, UNIT};
use frame_support::traits::{ConstU128, ConstU32, ConstU64};

/// Blocks a party has for each move.
pub const MOVE_TIMEOUT: u32 = 10 * MINUTES;
/// Most gas of one segment: about 1 ns a gas on one core (the gas table's unit).
pub const MAX_SEGMENT_GAS: u64 = 100_000_000_000;
/// Upper bound on the moves of one game (see the module docs).
pub const MAX_MOVES: u32 = 52;

const _: () = assert!(MAX_MOVES * MOVE_TIMEOUT < DAYS, "a game must end before DisputeTimeout");

impl pallet_gensyn_arbitration::Config for Runtime {
	type Currency = Balances;
	type RuntimeHoldReason = RuntimeHoldReason;
	type Subjects = Tasks;
	type Outcome = Tasks;
	type MoveTimeout = ConstU32<MOVE_TIMEOUT>;
	// Pays the defendant's fees for a game it had to play for nothing.
	type GameBond = ConstU128<{ 5 * UNIT }>;
	// 1,024 roots are 32 KiB, the largest move (guide: 64 KiB); the MNIST MLP has 33.
	type MaxTensors = ConstU32<1_024>;
	// Locating a batch value replays the epoch's shuffle: 1M samples is 4 MB and about
	// 30 ms of wasm.
	type MaxDataSamples = ConstU32<1_000_000>;
	// A defendant's first move replays the whole segment on one core; at this bound that
	// takes well under a move deadline (measured: docs/figures.md, "Move time").
	type MaxSegmentGas = ConstU64<MAX_SEGMENT_GAS>;
	// The states a defendant keeps while it plays one segment.
	type MaxSegmentBytes = ConstU64<{ 4 << 30 }>;
	type MaxDeadlinesPerBlock = ConstU32<32>;
	type WeightInfo = pallet_gensyn_arbitration::weights::SubstrateWeight<Runtime>;
}

#[cfg(test)]
mod tests {
	use super::*;
	use frame_support::traits::Get;
	use pallet_gensyn_arbitration::weights::{SubstrateWeight, WeightInfo};

	/// A block's most game deadlines, each a ruling at its worst, take under half of a
	/// block.
	#[test]
	fn a_blocks_rulings_fit_in_half_a_block() {
		let n = <Runtime as pallet_gensyn_arbitration::Config>::MaxDeadlinesPerBlock::get();
		let worst = SubstrateWeight::<Runtime>::on_initialize(n);
		let block = crate::configs::BlockWeights::get().max_block;
		assert!(worst.all_lt(block / 2), "{worst:?} of {block:?}");
	}
}
