//! Weights of the jackpot pallet: each call is charged the larger of what its benchmark
//! measured ([`measured`], written by `scripts/bench/weights.sh`) and its hand count
//! ([`counted`]). `reveal` is charged its count alone: in the runtime only the tasks
//! pallet opens a reveal, in a task's reveal window, which this pallet's benchmark
//! cannot set up.

pub mod counted;
pub mod measured;

use core::marker::PhantomData;
use counted::Counted;
use frame_support::{
	traits::Get,
	weights::{constants::RocksDbWeight, RuntimeDbWeight, Weight},
};
use measured::Measured;

/// Weight functions of the jackpot pallet.
pub trait WeightInfo {
	/// `commit`.
	fn commit() -> Weight;
	/// `reveal`.
	fn reveal() -> Weight;
}

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
	fn commit() -> Weight {
		larger(T::DbWeight::get(), Measured::commit, Counted::commit)
	}
	// The benchmark cannot open a reveal in the runtime (the tasks pallet decides when).
	fn reveal() -> Weight {
		Counted(T::DbWeight::get()).reveal()
	}
}

/// The same with RocksDB database weights, for tests.
impl WeightInfo for () {
	fn commit() -> Weight {
		larger(RocksDbWeight::get(), Measured::commit, Counted::commit)
	}
	fn reveal() -> Weight {
		Counted(RocksDbWeight::get()).reveal()
	}
}

#[cfg(test)]
mod tests {
	use super::*;

	/// `commit` is charged the larger of its two figures, `reveal` its count.
	#[test]
	fn each_call_is_charged_its_figures() {
		let db = RocksDbWeight::get();
		assert_eq!(<()>::commit(), Measured(db).commit().max(Counted(db).commit()));
		assert_eq!(<()>::reveal(), Counted(db).reveal());
	}
}
