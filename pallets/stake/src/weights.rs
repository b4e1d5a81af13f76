//! Weights of the stake pallet.
//!
//! HAND-ESTIMATED, NOT GENERATED. These numbers come from counting the storage reads
//! and writes of each call (balances' `Holds` and `Account` included) and adding a
//! compute allowance measured against comparable FRAME calls (a `hold` with its events
//! is about 40 µs of reference hardware; decoding and scanning a full active list of
//! [`WEIGHED_ACTIVE`] entries is a few µs more). Replace them with the output of
//! `frame-omni-bencher` over `benchmarking.rs` once the runtime is benchmarked.
//!
//! Proof sizes: a full active list is [`ACTIVE_LIST_PROOF`] bytes per role.

#![allow(unused_parens, unused_imports, missing_docs)]

use core::marker::PhantomData;
use frame_support::{
	traits::Get,
	weights::{constants::RocksDbWeight, Weight},
};

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

/// Hand-estimated weights for a runtime with database weights `T::DbWeight`.
pub struct SubstrateWeight<T>(PhantomData<T>);

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

impl<T: frame_system::Config> WeightInfo for SubstrateWeight<T> {
	fn register() -> Weight {
		// r: Bonds, Holds, Account, Active x3 (a full list's lowest bond read from the
		// list), Joined; w: Holds, Account, Profiles, Bonds, Active x3, Joined
		Weight::from_parts(60_000_000 + WEIGHED_ACTIVE * 2_000, 4 * ACTIVE_LIST_PROOF)
			.saturating_add(Weight::from_parts(0, JOINED_LIST_PROOF))
			.saturating_add(T::DbWeight::get().reads_writes(7, 8))
	}
	fn update_profile() -> Weight {
		// r: Profiles, Active x3; w: Profiles, Active x3
		Weight::from_parts(35_000_000, 3 * ACTIVE_LIST_PROOF)
			.saturating_add(T::DbWeight::get().reads_writes(4, 4))
	}
	fn bond_extra() -> Weight {
		// r: Bonds, Holds, Account, Profiles, Active (a full list's lowest bond read from
		// the list), Joined; w: Holds, Account, Bonds, Active, Joined
		Weight::from_parts(50_000_000 + WEIGHED_ACTIVE * 2_000, 2 * ACTIVE_LIST_PROOF)
			.saturating_add(Weight::from_parts(0, JOINED_LIST_PROOF))
			.saturating_add(T::DbWeight::get().reads_writes(6, 5))
	}
	fn unbond() -> Weight {
		// r: Bonds, Active, Joined; w: Bonds, Active, Joined
		Weight::from_parts(30_000_000, ACTIVE_LIST_PROOF + JOINED_LIST_PROOF)
			.saturating_add(T::DbWeight::get().reads_writes(3, 3))
	}
	fn withdraw() -> Weight {
		// r: Bonds, Engagements, Holds, Account, Bonds x3; w: Holds, Account, Bonds, Profiles
		Weight::from_parts(50_000_000, 4_000).saturating_add(T::DbWeight::get().reads_writes(7, 4))
	}
	fn slash() -> Weight {
		// r: Bonds, Holds x3, Account x4 (source, victim, reporter, jackpot), Active,
		// Joined; w: Holds, Account x4, Bonds, Active, Joined, TotalIssuance
		Weight::from_parts(110_000_000, ACTIVE_LIST_PROOF + JOINED_LIST_PROOF + 5_000)
			.saturating_add(T::DbWeight::get().reads_writes(10, 9))
	}
}

/// The same estimates with RocksDB database weights, for tests.
impl WeightInfo for () {
	fn register() -> Weight {
		Weight::from_parts(60_000_000 + WEIGHED_ACTIVE * 2_000, 4 * ACTIVE_LIST_PROOF)
			.saturating_add(Weight::from_parts(0, JOINED_LIST_PROOF))
			.saturating_add(RocksDbWeight::get().reads_writes(7, 8))
	}
	fn update_profile() -> Weight {
		Weight::from_parts(35_000_000, 3 * ACTIVE_LIST_PROOF)
			.saturating_add(RocksDbWeight::get().reads_writes(4, 4))
	}
	fn bond_extra() -> Weight {
		Weight::from_parts(50_000_000 + WEIGHED_ACTIVE * 2_000, 2 * ACTIVE_LIST_PROOF)
			.saturating_add(Weight::from_parts(0, JOINED_LIST_PROOF))
			.saturating_add(RocksDbWeight::get().reads_writes(6, 5))
	}
	fn unbond() -> Weight {
		Weight::from_parts(30_000_000, ACTIVE_LIST_PROOF + JOINED_LIST_PROOF)
			.saturating_add(RocksDbWeight::get().reads_writes(3, 3))
	}
	fn withdraw() -> Weight {
		Weight::from_parts(50_000_000, 4_000)
			.saturating_add(RocksDbWeight::get().reads_writes(7, 4))
	}
	fn slash() -> Weight {
		Weight::from_parts(110_000_000, ACTIVE_LIST_PROOF + JOINED_LIST_PROOF + 5_000)
			.saturating_add(RocksDbWeight::get().reads_writes(10, 9))
	}
}
