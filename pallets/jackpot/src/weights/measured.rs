//! Measured weights of `pallet_gensyn_jackpot`: written by `scripts/bench/weights.sh`
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
	/// `commit`.
	// Storage: `Stake::Bonds` (r:1 w:0)
	// Proof: `Stake::Bonds` (`max_values`: None, `max_size`: Some(110), added: 2585, mode: `MaxEncodedLen`)
	// Storage: `Jackpot::Commitments` (r:0 w:1)
	// Proof: `Jackpot::Commitments` (`max_values`: None, `max_size`: Some(84), added: 2559, mode: `MaxEncodedLen`)
	pub fn commit(&self) -> Weight {
		// Fastest run: 9_545 ns.
		// Proof size: what the run recorded (the hand counts bound the worst case; the
		// estimate from the storage items' bounds, 3575 bytes,
		// carries a fit's intercept into every block where the call has a component).
		let recorded = Weight::from_parts(0, 237)
			;
		Weight::from_parts(10_666_000, 0)
			.saturating_add(recorded)
			.saturating_add(self.0.reads(1))
			.saturating_add(self.0.writes(1))
	}
}
