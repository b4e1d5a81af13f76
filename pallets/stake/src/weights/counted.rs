//! The stake pallet's weights counted by hand: each call's storage reads and writes in
//! its worst case (balances' `Holds` and `Account` included) and a compute allowance
//! (a `hold` with its events is about 40 µs of reference hardware; decoding and scanning
//! a full active list of [`WEIGHED_ACTIVE`] entries is a few µs more). They cover what a
//! benchmark's one path may miss.

use super::{ACTIVE_LIST_PROOF, JOINED_LIST_PROOF, WEIGHED_ACTIVE};
use frame_support::weights::{RuntimeDbWeight, Weight};

/// The counts, given database weights.
pub struct Counted(pub RuntimeDbWeight);

impl Counted {
	/// r: Bonds, Holds, Account, Active x3 (a full list's lowest bond read from the
	/// list), Joined; w: Holds, Account, Profiles, Bonds, Active x3, Joined.
	pub fn register(&self) -> Weight {
		Weight::from_parts(60_000_000 + WEIGHED_ACTIVE * 2_000, 4 * ACTIVE_LIST_PROOF)
			.saturating_add(Weight::from_parts(0, JOINED_LIST_PROOF))
			.saturating_add(self.0.reads_writes(7, 8))
	}
	/// r: Profiles, Active x3; w: Profiles, Active x3.
	pub fn update_profile(&self) -> Weight {
		Weight::from_parts(35_000_000, 3 * ACTIVE_LIST_PROOF)
			.saturating_add(self.0.reads_writes(4, 4))
	}
	/// r: Bonds, Holds, Account, Profiles, Active (a full list's lowest bond read from
	/// the list), Joined; w: Holds, Account, Bonds, Active, Joined.
	pub fn bond_extra(&self) -> Weight {
		Weight::from_parts(50_000_000 + WEIGHED_ACTIVE * 2_000, 2 * ACTIVE_LIST_PROOF)
			.saturating_add(Weight::from_parts(0, JOINED_LIST_PROOF))
			.saturating_add(self.0.reads_writes(6, 5))
	}
	/// r: Bonds, Active, Joined; w: Bonds, Active, Joined.
	pub fn unbond(&self) -> Weight {
		Weight::from_parts(30_000_000, ACTIVE_LIST_PROOF + JOINED_LIST_PROOF)
			.saturating_add(self.0.reads_writes(3, 3))
	}
	/// r: Bonds, Engagements, Holds, Account, Bonds x3; w: Holds, Account, Bonds,
	/// Profiles.
	pub fn withdraw(&self) -> Weight {
		Weight::from_parts(50_000_000, 4_000).saturating_add(self.0.reads_writes(7, 4))
	}
	/// r: Bonds, Holds x3, Account x4 (source, victim, reporter, jackpot), Active,
	/// Joined; w: Holds, Account x4, Bonds, Active, Joined, TotalIssuance.
	pub fn slash(&self) -> Weight {
		Weight::from_parts(110_000_000, ACTIVE_LIST_PROOF + JOINED_LIST_PROOF + 5_000)
			.saturating_add(self.0.reads_writes(10, 9))
	}
}
