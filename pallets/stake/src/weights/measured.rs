//! Measured weights of `pallet_gensyn_stake`: written by `scripts/bench/weights.sh`
//! (`gensyn-node benchmark pallet`, version 64.0.0), do not edit.
//!
//! Measured on 2026-11-30, CPU `AMD EPYC`, 5 steps, 3 repeats,
//! wasm execution `Compiled`. Each figure is the time the benchmark's path
//! took (a linear fit over its components) and the storage it read and wrote; the
//! pallet charges the larger of this and its hand count (`counted.rs`).

#![cfg_attr(rustfmt, rustfmt_skip)]
#![allow(unused_parens, unused_imports, unused_variables, clippy::all)]

use frame_support::weights::{RuntimeDbWeight, Weight};

/// The measured weights, given database weights.
pub struct Measured(pub RuntimeDbWeight);

impl Measured {
	/// `register`.
	// Storage: `Stake::Bonds` (r:1 w:1)
	// Proof: `Stake::Bonds` (`max_values`: None, `max_size`: Some(110), added: 2585, mode: `MaxEncodedLen`)
	// Storage: `System::Account` (r:1 w:1)
	// Proof: `System::Account` (`max_values`: None, `max_size`: Some(128), added: 2603, mode: `MaxEncodedLen`)
	// Storage: `Balances::Holds` (r:1 w:1)
	// Proof: `Balances::Holds` (`max_values`: None, `max_size`: Some(193), added: 2668, mode: `MaxEncodedLen`)
	// Storage: `Stake::Active` (r:3 w:3)
	// Proof: `Stake::Active` (`max_values`: None, `max_size`: Some(58379), added: 60854, mode: `MaxEncodedLen`)
	// Storage: `Stake::Joined` (r:1 w:1)
	// Proof: `Stake::Joined` (`max_values`: None, `max_size`: Some(36875), added: 39350, mode: `MaxEncodedLen`)
	// Storage: `Stake::Profiles` (r:0 w:1)
	// Proof: `Stake::Profiles` (`max_values`: None, `max_size`: Some(315), added: 2790, mode: `MaxEncodedLen`)
	pub fn register(&self) -> Weight {
		// Fastest run: 226_788 ns.
		// Proof size: what the run recorded (the hand counts bound the worst case; the
		// estimate from the storage items' bounds, 183552 bytes,
		// carries a fit's intercept into every block where the call has a component).
		let recorded = Weight::from_parts(0, 98395)
			;
		Weight::from_parts(237_334_000, 0)
			.saturating_add(recorded)
			.saturating_add(self.0.reads(7))
			.saturating_add(self.0.writes(8))
	}
	/// `update_profile`.
	// Storage: `Stake::Profiles` (r:1 w:1)
	// Proof: `Stake::Profiles` (`max_values`: None, `max_size`: Some(315), added: 2790, mode: `MaxEncodedLen`)
	// Storage: `Stake::Active` (r:3 w:3)
	// Proof: `Stake::Active` (`max_values`: None, `max_size`: Some(58379), added: 60854, mode: `MaxEncodedLen`)
	pub fn update_profile(&self) -> Weight {
		// Fastest run: 97_886 ns.
		// Proof size: what the run recorded (the hand counts bound the worst case; the
		// estimate from the storage items' bounds, 183552 bytes,
		// carries a fit's intercept into every block where the call has a component).
		let recorded = Weight::from_parts(0, 59749)
			;
		Weight::from_parts(108_342_000, 0)
			.saturating_add(recorded)
			.saturating_add(self.0.reads(4))
			.saturating_add(self.0.writes(4))
	}
	/// `bond_extra`.
	// Storage: `Stake::Bonds` (r:1 w:1)
	// Proof: `Stake::Bonds` (`max_values`: None, `max_size`: Some(110), added: 2585, mode: `MaxEncodedLen`)
	// Storage: `System::Account` (r:1 w:1)
	// Proof: `System::Account` (`max_values`: None, `max_size`: Some(128), added: 2603, mode: `MaxEncodedLen`)
	// Storage: `Balances::Holds` (r:1 w:1)
	// Proof: `Balances::Holds` (`max_values`: None, `max_size`: Some(193), added: 2668, mode: `MaxEncodedLen`)
	// Storage: `Stake::Profiles` (r:1 w:0)
	// Proof: `Stake::Profiles` (`max_values`: None, `max_size`: Some(315), added: 2790, mode: `MaxEncodedLen`)
	// Storage: `Stake::Active` (r:1 w:1)
	// Proof: `Stake::Active` (`max_values`: None, `max_size`: Some(58379), added: 60854, mode: `MaxEncodedLen`)
	pub fn bond_extra(&self) -> Weight {
		// Fastest run: 162_703 ns.
		// Proof size: what the run recorded (the hand counts bound the worst case; the
		// estimate from the storage items' bounds, 61844 bytes,
		// carries a fit's intercept into every block where the call has a component).
		let recorded = Weight::from_parts(0, 63157)
			;
		Weight::from_parts(178_507_000, 0)
			.saturating_add(recorded)
			.saturating_add(self.0.reads(5))
			.saturating_add(self.0.writes(4))
	}
	/// `unbond`.
	// Storage: `Stake::Bonds` (r:1 w:1)
	// Proof: `Stake::Bonds` (`max_values`: None, `max_size`: Some(110), added: 2585, mode: `MaxEncodedLen`)
	// Storage: `Stake::Active` (r:1 w:1)
	// Proof: `Stake::Active` (`max_values`: None, `max_size`: Some(58379), added: 60854, mode: `MaxEncodedLen`)
	// Storage: `Stake::Joined` (r:1 w:1)
	// Proof: `Stake::Joined` (`max_values`: None, `max_size`: Some(36875), added: 39350, mode: `MaxEncodedLen`)
	pub fn unbond(&self) -> Weight {
		// Fastest run: 116_523 ns.
		// Proof size: what the run recorded (the hand counts bound the worst case; the
		// estimate from the storage items' bounds, 61844 bytes,
		// carries a fit's intercept into every block where the call has a component).
		let recorded = Weight::from_parts(0, 96644)
			;
		Weight::from_parts(125_527_000, 0)
			.saturating_add(recorded)
			.saturating_add(self.0.reads(3))
			.saturating_add(self.0.writes(3))
	}
	/// `withdraw`.
	// Storage: `Stake::Bonds` (r:3 w:1)
	// Proof: `Stake::Bonds` (`max_values`: None, `max_size`: Some(110), added: 2585, mode: `MaxEncodedLen`)
	// Storage: `Stake::Engagements` (r:1 w:0)
	// Proof: `Stake::Engagements` (`max_values`: None, `max_size`: Some(56), added: 2531, mode: `MaxEncodedLen`)
	// Storage: `System::Account` (r:1 w:1)
	// Proof: `System::Account` (`max_values`: None, `max_size`: Some(128), added: 2603, mode: `MaxEncodedLen`)
	// Storage: `Balances::Holds` (r:1 w:1)
	// Proof: `Balances::Holds` (`max_values`: None, `max_size`: Some(193), added: 2668, mode: `MaxEncodedLen`)
	// Storage: `Stake::Profiles` (r:0 w:1)
	// Proof: `Stake::Profiles` (`max_values`: None, `max_size`: Some(315), added: 2790, mode: `MaxEncodedLen`)
	pub fn withdraw(&self) -> Weight {
		// Fastest run: 113_910 ns.
		// Proof size: what the run recorded (the hand counts bound the worst case; the
		// estimate from the storage items' bounds, 8745 bytes,
		// carries a fit's intercept into every block where the call has a component).
		let recorded = Weight::from_parts(0, 3314)
			;
		Weight::from_parts(124_105_000, 0)
			.saturating_add(recorded)
			.saturating_add(self.0.reads(6))
			.saturating_add(self.0.writes(4))
	}
	/// `slash`.
	// Storage: `Stake::Bonds` (r:1 w:1)
	// Proof: `Stake::Bonds` (`max_values`: None, `max_size`: Some(110), added: 2585, mode: `MaxEncodedLen`)
	// Storage: `Balances::Holds` (r:1 w:1)
	// Proof: `Balances::Holds` (`max_values`: None, `max_size`: Some(193), added: 2668, mode: `MaxEncodedLen`)
	// Storage: `System::Account` (r:4 w:4)
	// Proof: `System::Account` (`max_values`: None, `max_size`: Some(128), added: 2603, mode: `MaxEncodedLen`)
	// Storage: `Stake::Active` (r:1 w:1)
	// Proof: `Stake::Active` (`max_values`: None, `max_size`: Some(58379), added: 60854, mode: `MaxEncodedLen`)
	// Storage: `Stake::Joined` (r:1 w:1)
	// Proof: `Stake::Joined` (`max_values`: None, `max_size`: Some(36875), added: 39350, mode: `MaxEncodedLen`)
	pub fn slash(&self) -> Weight {
		// Fastest run: 270_293 ns.
		// Proof size: what the run recorded (the hand counts bound the worst case; the
		// estimate from the storage items' bounds, 61844 bytes,
		// carries a fit's intercept into every block where the call has a component).
		let recorded = Weight::from_parts(0, 100760)
			;
		Weight::from_parts(288_229_000, 0)
			.saturating_add(recorded)
			.saturating_add(self.0.reads(8))
			.saturating_add(self.0.writes(8))
	}
}
