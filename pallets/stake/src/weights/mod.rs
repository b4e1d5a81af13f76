//! Weights of the stake pallet: each call is charged the larger of what its benchmark
//! measured ([`measured`], written by `scripts/bench/weights.sh`) and its hand count
//! ([`counted`]), which covers paths the benchmark's one run does not take.
//!
//! Proof sizes: a full active list is [`ACTIVE_LIST_PROOF`] bytes per role.

pub mod counted;
pub mod measured;

use core::marker::PhantomData;
use counted::Counted;
use frame_support::{
	traits::Get,
	weights::{constants::RocksDbWeight, RuntimeDbWeight, Weight},
};
use measured::Measured;

/// Weight functions of the stake pallet.
pub trait WeightInfo {
	/// `register`.
	fn register() -> Weight;
	/// `update_profile`.
	fn update_profile() -> Weight;
	/// `bond_extra`.
	fn bond_extra() -> Weight;
	/// `unbond`.
	fn unbond() -> Weight;
	/// `withdraw`.
	fn withdraw() -> Weight;
	/// One `StakeInterface::slash` or `slash_compensating` (victim, reporter, jackpot and
	/// burn legs), for callers.
	fn slash() -> Weight;
}

/// The most entries per active list the weights are counted for: a runtime's
/// `MaxActivePerRole` must not exceed it (the runtime checks this in a test).
pub const WEIGHED_ACTIVE: u64 = 1_024;

/// Proof size of one full active list: [`WEIGHED_ACTIVE`] entries of a 32-byte account,
/// a 9-byte capability and a 16-byte bond, a length prefix and the trie nodes above the
/// value.
pub const ACTIVE_LIST_PROOF: u64 = WEIGHED_ACTIVE * 57 + 3 + 1_000;

/// Proof size of one full [`crate::Joined`] list: [`WEIGHED_ACTIVE`] entries of a
/// 32-byte account and a 4-byte block, a length prefix and the trie nodes above it.
pub const JOINED_LIST_PROOF: u64 = WEIGHED_ACTIVE * 36 + 3 + 1_000;

/// The larger of the measured and the counted weights, given database weights.
fn larger(
	db: RuntimeDbWeight,
	measured: fn(&Measured) -> Weight,
	counted: fn(&Counted) -> Weight,
) -> Weight {
	measured(&Measured(db)).max(counted(&Counted(db)))
}

/// The charged weights for a runtime with database weights `T::DbWeight`.
pub struct SubstrateWeight<T>(PhantomData<T>);

impl<T: frame_system::Config> WeightInfo for SubstrateWeight<T> {
	fn register() -> Weight {
		larger(T::DbWeight::get(), Measured::register, Counted::register)
	}
	fn update_profile() -> Weight {
		larger(T::DbWeight::get(), Measured::update_profile, Counted::update_profile)
	}
	fn bond_extra() -> Weight {
		larger(T::DbWeight::get(), Measured::bond_extra, Counted::bond_extra)
	}
	fn unbond() -> Weight {
		larger(T::DbWeight::get(), Measured::unbond, Counted::unbond)
	}
	fn withdraw() -> Weight {
		larger(T::DbWeight::get(), Measured::withdraw, Counted::withdraw)
	}
	fn slash() -> Weight {
		larger(T::DbWeight::get(), Measured::slash, Counted::slash)
	}
}

/// The same with RocksDB database weights, for tests.
impl WeightInfo for () {
	fn register() -> Weight {
		larger(RocksDbWeight::get(), Measured::register, Counted::register)
	}
	fn update_profile() -> Weight {
		larger(RocksDbWeight::get(), Measured::update_profile, Counted::update_profile)
	}
	fn bond_extra() -> Weight {
		larger(RocksDbWeight::get(), Measured::bond_extra, Counted::bond_extra)
	}
	fn unbond() -> Weight {
		larger(RocksDbWeight::get(), Measured::unbond, Counted::unbond)
	}
	fn withdraw() -> Weight {
		larger(RocksDbWeight::get(), Measured::withdraw, Counted::withdraw)
	}
	fn slash() -> Weight {
		larger(RocksDbWeight::get(), Measured::slash, Counted::slash)
	}
}

#[cfg(test)]
mod tests {
	use super::*;

	/// Every call is charged the larger of its measured and counted figures in each
	/// dimension (a call wired to one figure alone, or to another call's, fails this).
	#[test]
	fn each_call_is_charged_the_larger_of_its_two_figures() {
		let db = RocksDbWeight::get();
		let (m, c) = (Measured(db), Counted(db));
		let calls: [(&str, Weight, Weight, Weight); 6] = [
			("register", <()>::register(), m.register(), c.register()),
			("update_profile", <()>::update_profile(), m.update_profile(), c.update_profile()),
			("bond_extra", <()>::bond_extra(), m.bond_extra(), c.bond_extra()),
			("unbond", <()>::unbond(), m.unbond(), c.unbond()),
			("withdraw", <()>::withdraw(), m.withdraw(), c.withdraw()),
			("slash", <()>::slash(), m.slash(), c.slash()),
		];
		for (name, charged, measured, counted) in calls {
			assert_eq!(charged, measured.max(counted), "{name}");
		}
	}
}
