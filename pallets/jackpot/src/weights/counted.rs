//! The jackpot pallet's weights counted by hand: each call's storage reads and writes
//! and a compute allowance (one blake2 hash, one event).

use frame_support::weights::{RuntimeDbWeight, Weight};

/// The counts, given database weights.
pub struct Counted(pub RuntimeDbWeight);

impl Counted {
	/// r: stake Bonds; w: Commitments.
	pub fn commit(&self) -> Weight {
		Weight::from_parts(20_000_000, 3_000).saturating_add(self.0.reads_writes(1, 1))
	}
	/// r/w: Bindings; one blake2 hash.
	pub fn reveal(&self) -> Weight {
		Weight::from_parts(25_000_000, 3_000).saturating_add(self.0.reads_writes(1, 1))
	}
}
