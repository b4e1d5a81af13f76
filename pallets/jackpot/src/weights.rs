//! Weights of the jackpot pallet.
//!
//! HAND-ESTIMATED: the benchmarks (`benchmarking.rs`) run both calls as tests, but the
//! node has no `benchmark` subcommand yet to time them into this file. Storage reads and
//! writes are counted per call plus a compute allowance (one blake2 hash, one event).

#![allow(missing_docs)]

use core::marker::PhantomData;
use frame_support::{
	traits::Get,
	weights::{constants::RocksDbWeight, Weight},
};

/// Weight functions of the jackpot pallet.
pub trait WeightInfo {
	/// `commit`.
	fn commit() -> Weight;
	/// `reveal`.
	fn reveal() -> Weight;
}

/// Hand-estimated weights for a runtime with database weights `T::DbWeight`.
pub struct SubstrateWeight<T>(PhantomData<T>);

impl<T: frame_system::Config> WeightInfo for SubstrateWeight<T> {
	fn commit() -> Weight {
		// r: stake Bonds; w: Commitments.
		Weight::from_parts(20_000_000, 3_000).saturating_add(T::DbWeight::get().reads_writes(1, 1))
	}
	fn reveal() -> Weight {
		// r/w: Bindings; one blake2 hash.
		Weight::from_parts(25_000_000, 3_000).saturating_add(T::DbWeight::get().reads_writes(1, 1))
	}
}

/// The same estimates with RocksDB database weights, for tests.
impl WeightInfo for () {
	fn commit() -> Weight {
		Weight::from_parts(20_000_000, 3_000)
			.saturating_add(RocksDbWeight::get().reads_writes(1, 1))
	}
	fn reveal() -> Weight {
		Weight::from_parts(25_000_000, 3_000)
			.saturating_add(RocksDbWeight::get().reads_writes(1, 1))
	}
}
