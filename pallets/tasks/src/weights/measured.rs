//! Measured weights of `pallet_gensyn_tasks`: written by `scripts/bench/weights.sh`
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
	/// `submit_task`.
	// Storage: `System::Account` (r:1 w:1)
	// Proof: `System::Account` (`max_values`: None, `max_size`: Some(128), added: 2603, mode: `MaxEncodedLen`)
	// Storage: `Balances::Holds` (r:1 w:1)
	// Proof: `Balances::Holds` (`max_values`: None, `max_size`: Some(193), added: 2668, mode: `MaxEncodedLen`)
	// Storage: `Tasks::NextTaskId` (r:1 w:1)
	// Proof: `Tasks::NextTaskId` (`max_values`: Some(1), `max_size`: Some(8), added: 503, mode: `MaxEncodedLen`)
	// Storage: `Stake::Active` (r:2 w:0)
	// Proof: `Stake::Active` (`max_values`: None, `max_size`: Some(58379), added: 60854, mode: `MaxEncodedLen`)
	// Storage: `Tasks::Beacon` (r:1 w:0)
	// Proof: `Tasks::Beacon` (`max_values`: Some(1), `max_size`: Some(68), added: 563, mode: `MaxEncodedLen`)
	// Storage: `Tasks::BondUnits` (r:1 w:0)
	// Proof: `Tasks::BondUnits` (`max_values`: None, `max_size`: Some(20), added: 2495, mode: `MaxEncodedLen`)
	// Storage: `Stake::Engagements` (r:1 w:1)
	// Proof: `Stake::Engagements` (`max_values`: None, `max_size`: Some(56), added: 2531, mode: `MaxEncodedLen`)
	// Storage: `Stake::Bonds` (r:1 w:0)
	// Proof: `Stake::Bonds` (`max_values`: None, `max_size`: Some(110), added: 2585, mode: `MaxEncodedLen`)
	// Storage: `Tasks::DeadlineCounts` (r:1 w:1)
	// Proof: `Tasks::DeadlineCounts` (`max_values`: None, `max_size`: Some(16), added: 2491, mode: `MaxEncodedLen`)
	// Storage: `Tasks::WorkerTasks` (r:1 w:1)
	// Proof: `Tasks::WorkerTasks` (`max_values`: None, `max_size`: Some(68), added: 2543, mode: `MaxEncodedLen`)
	// Storage: `Tasks::Specs` (r:0 w:1)
	// Proof: `Tasks::Specs` (`max_values`: None, `max_size`: Some(1103), added: 3578, mode: `MaxEncodedLen`)
	// Storage: `Tasks::Tasks` (r:0 w:1)
	// Proof: `Tasks::Tasks` (`max_values`: None, `max_size`: Some(5289), added: 7764, mode: `MaxEncodedLen`)
	// Storage: `Tasks::DeadlinePages` (r:0 w:1)
	// Proof: `Tasks::DeadlinePages` (`max_values`: None, `max_size`: Some(153), added: 2628, mode: `MaxEncodedLen`)
	pub fn submit_task(&self) -> Weight {
		// Fastest run: 267_399 ns.
		// Proof size: what the run recorded (the hand counts bound the worst case; the
		// estimate from the storage items' bounds, 122698 bytes,
		// carries a fit's intercept into every block where the call has a component).
		let recorded = Weight::from_parts(0, 120186)
			;
		Weight::from_parts(288_841_000, 0)
			.saturating_add(recorded)
			.saturating_add(self.0.reads(11))
			.saturating_add(self.0.writes(9))
	}
	/// `cancel_task`.
	// Storage: `Tasks::Tasks` (r:1 w:1)
	// Proof: `Tasks::Tasks` (`max_values`: None, `max_size`: Some(5289), added: 7764, mode: `MaxEncodedLen`)
	// Storage: `System::Account` (r:1 w:1)
	// Proof: `System::Account` (`max_values`: None, `max_size`: Some(128), added: 2603, mode: `MaxEncodedLen`)
	// Storage: `Balances::Holds` (r:1 w:1)
	// Proof: `Balances::Holds` (`max_values`: None, `max_size`: Some(193), added: 2668, mode: `MaxEncodedLen`)
	// Storage: `Tasks::Audits` (r:1 w:0)
	// Proof: `Tasks::Audits` (`max_values`: None, `max_size`: Some(8657), added: 11132, mode: `MaxEncodedLen`)
	// Storage: `Tasks::Demands` (r:1 w:0)
	// Proof: `Tasks::Demands` (`max_values`: None, `max_size`: Some(9912), added: 12387, mode: `MaxEncodedLen`)
	// Storage: `Tasks::BondUnits` (r:1 w:1)
	// Proof: `Tasks::BondUnits` (`max_values`: None, `max_size`: Some(20), added: 2495, mode: `MaxEncodedLen`)
	// Storage: `Tasks::WorkerTasks` (r:1 w:1)
	// Proof: `Tasks::WorkerTasks` (`max_values`: None, `max_size`: Some(68), added: 2543, mode: `MaxEncodedLen`)
	// Storage: `Stake::Engagements` (r:1 w:1)
	// Proof: `Stake::Engagements` (`max_values`: None, `max_size`: Some(56), added: 2531, mode: `MaxEncodedLen`)
	// Storage: `Tasks::Specs` (r:0 w:1)
	// Proof: `Tasks::Specs` (`max_values`: None, `max_size`: Some(1103), added: 3578, mode: `MaxEncodedLen`)
	// Storage: `Tasks::OffTask` (r:0 w:1)
	// Proof: `Tasks::OffTask` (`max_values`: None, `max_size`: Some(48), added: 2523, mode: `MaxEncodedLen`)
	// Storage: `Tasks::MovedDraw` (r:0 w:1)
	// Proof: `Tasks::MovedDraw` (`max_values`: None, `max_size`: Some(24), added: 2499, mode: `MaxEncodedLen`)
	// Storage: `Tasks::Watches` (r:0 w:1)
	// Proof: `Tasks::Watches` (`max_values`: None, `max_size`: Some(60), added: 2535, mode: `MaxEncodedLen`)
	// Storage: `Tasks::RevealsFrom` (r:0 w:1)
	// Proof: `Tasks::RevealsFrom` (`max_values`: None, `max_size`: Some(20), added: 2495, mode: `MaxEncodedLen`)
	// Storage: `Tasks::Replaced` (r:0 w:1)
	// Proof: `Tasks::Replaced` (`max_values`: None, `max_size`: Some(4626), added: 7101, mode: `MaxEncodedLen`)
	// Storage: `Tasks::ProfileCommitments` (r:0 w:1)
	// Proof: `Tasks::ProfileCommitments` (`max_values`: None, `max_size`: Some(209), added: 2684, mode: `MaxEncodedLen`)
	pub fn cancel_task(&self) -> Weight {
		// Fastest run: 153_609 ns.
		// Proof size: what the run recorded (the hand counts bound the worst case; the
		// estimate from the storage items' bounds, 13377 bytes,
		// carries a fit's intercept into every block where the call has a component).
		let recorded = Weight::from_parts(0, 2806)
			;
		Weight::from_parts(165_096_000, 0)
			.saturating_add(recorded)
			.saturating_add(self.0.reads(8))
			.saturating_add(self.0.writes(13))
	}
	/// `accept_task`.
	// Storage: `Tasks::Tasks` (r:1 w:1)
	// Proof: `Tasks::Tasks` (`max_values`: None, `max_size`: Some(5289), added: 7764, mode: `MaxEncodedLen`)
	// Storage: `Tasks::Beacon` (r:1 w:0)
	// Proof: `Tasks::Beacon` (`max_values`: Some(1), `max_size`: Some(68), added: 563, mode: `MaxEncodedLen`)
	// Storage: `Stake::Profiles` (r:1 w:0)
	// Proof: `Stake::Profiles` (`max_values`: None, `max_size`: Some(315), added: 2790, mode: `MaxEncodedLen`)
	// Storage: `Parameters::Parameters` (r:1 w:0)
	// Proof: `Parameters::Parameters` (`max_values`: None, `max_size`: Some(24), added: 2499, mode: `MaxEncodedLen`)
	// Storage: `Tasks::DeadlineCounts` (r:1 w:1)
	// Proof: `Tasks::DeadlineCounts` (`max_values`: None, `max_size`: Some(16), added: 2491, mode: `MaxEncodedLen`)
	// Storage: `Tasks::DeadlinePages` (r:0 w:1)
	// Proof: `Tasks::DeadlinePages` (`max_values`: None, `max_size`: Some(153), added: 2628, mode: `MaxEncodedLen`)
	pub fn accept_task(&self) -> Weight {
		// Fastest run: 92_398 ns.
		// Proof size: what the run recorded (the hand counts bound the worst case; the
		// estimate from the storage items' bounds, 8754 bytes,
		// carries a fit's intercept into every block where the call has a component).
		let recorded = Weight::from_parts(0, 1841)
			;
		Weight::from_parts(100_741_000, 0)
			.saturating_add(recorded)
			.saturating_add(self.0.reads(5))
			.saturating_add(self.0.writes(3))
	}
	/// `decline_task`.
	// Storage: `Tasks::Tasks` (r:1 w:1)
	// Proof: `Tasks::Tasks` (`max_values`: None, `max_size`: Some(5289), added: 7764, mode: `MaxEncodedLen`)
	// Storage: `Tasks::WorkerTasks` (r:1 w:1)
	// Proof: `Tasks::WorkerTasks` (`max_values`: None, `max_size`: Some(68), added: 2543, mode: `MaxEncodedLen`)
	// Storage: `Tasks::BondUnits` (r:1 w:0)
	// Proof: `Tasks::BondUnits` (`max_values`: None, `max_size`: Some(20), added: 2495, mode: `MaxEncodedLen`)
	// Storage: `Stake::Engagements` (r:1 w:1)
	// Proof: `Stake::Engagements` (`max_values`: None, `max_size`: Some(56), added: 2531, mode: `MaxEncodedLen`)
	// Storage: `Parameters::Parameters` (r:1 w:0)
	// Proof: `Parameters::Parameters` (`max_values`: None, `max_size`: Some(24), added: 2499, mode: `MaxEncodedLen`)
	// Storage: `Tasks::DeadlineCounts` (r:1 w:1)
	// Proof: `Tasks::DeadlineCounts` (`max_values`: None, `max_size`: Some(16), added: 2491, mode: `MaxEncodedLen`)
	// Storage: `Tasks::MovedDraw` (r:0 w:1)
	// Proof: `Tasks::MovedDraw` (`max_values`: None, `max_size`: Some(24), added: 2499, mode: `MaxEncodedLen`)
	// Storage: `Tasks::DeadlinePages` (r:0 w:1)
	// Proof: `Tasks::DeadlinePages` (`max_values`: None, `max_size`: Some(153), added: 2628, mode: `MaxEncodedLen`)
	pub fn decline_task(&self) -> Weight {
		// Fastest run: 84_165 ns.
		// Proof size: what the run recorded (the hand counts bound the worst case; the
		// estimate from the storage items' bounds, 8754 bytes,
		// carries a fit's intercept into every block where the call has a component).
		let recorded = Weight::from_parts(0, 745)
			;
		Weight::from_parts(93_399_000, 0)
			.saturating_add(recorded)
			.saturating_add(self.0.reads(6))
			.saturating_add(self.0.writes(6))
	}
	/// `submit_result`.
	// Storage: `Tasks::Tasks` (r:1 w:1)
	// Proof: `Tasks::Tasks` (`max_values`: None, `max_size`: Some(5289), added: 7764, mode: `MaxEncodedLen`)
	// Storage: `Parameters::Parameters` (r:1 w:0)
	// Proof: `Parameters::Parameters` (`max_values`: None, `max_size`: Some(24), added: 2499, mode: `MaxEncodedLen`)
	// Storage: `Tasks::DeadlineCounts` (r:1 w:1)
	// Proof: `Tasks::DeadlineCounts` (`max_values`: None, `max_size`: Some(16), added: 2491, mode: `MaxEncodedLen`)
	// Storage: `Tasks::DeadlinePages` (r:0 w:1)
	// Proof: `Tasks::DeadlinePages` (`max_values`: None, `max_size`: Some(153), added: 2628, mode: `MaxEncodedLen`)
	pub fn submit_result(&self) -> Weight {
		// Fastest run: 70_555 ns.
		// Proof size: what the run recorded (the hand counts bound the worst case; the
		// estimate from the storage items' bounds, 8754 bytes,
		// carries a fit's intercept into every block where the call has a component).
		let recorded = Weight::from_parts(0, 456)
			;
		Weight::from_parts(77_325_000, 0)
			.saturating_add(recorded)
			.saturating_add(self.0.reads(3))
			.saturating_add(self.0.writes(3))
	}
	/// `submit_verification`.
	// Storage: `Tasks::Tasks` (r:1 w:1)
	// Proof: `Tasks::Tasks` (`max_values`: None, `max_size`: Some(5289), added: 7764, mode: `MaxEncodedLen`)
	// Storage: `Tasks::Audits` (r:1 w:1)
	// Proof: `Tasks::Audits` (`max_values`: None, `max_size`: Some(8657), added: 11132, mode: `MaxEncodedLen`)
	// Storage: `Tasks::Specs` (r:1 w:0)
	// Proof: `Tasks::Specs` (`max_values`: None, `max_size`: Some(1103), added: 3578, mode: `MaxEncodedLen`)
	// Storage: `Parameters::Parameters` (r:1 w:0)
	// Proof: `Parameters::Parameters` (`max_values`: None, `max_size`: Some(24), added: 2499, mode: `MaxEncodedLen`)
	// Storage: `Tasks::RevealsFrom` (r:1 w:1)
	// Proof: `Tasks::RevealsFrom` (`max_values`: None, `max_size`: Some(20), added: 2495, mode: `MaxEncodedLen`)
	// Storage: `Tasks::DeadlineCounts` (r:1 w:0)
	// Proof: `Tasks::DeadlineCounts` (`max_values`: None, `max_size`: Some(16), added: 2491, mode: `MaxEncodedLen`)
	// Storage: `Tasks::DeadlinePages` (r:1 w:1)
	// Proof: `Tasks::DeadlinePages` (`max_values`: None, `max_size`: Some(153), added: 2628, mode: `MaxEncodedLen`)
	// Storage: `Tasks::RevealBy` (r:2 w:2)
	// Proof: `Tasks::RevealBy` (`max_values`: None, `max_size`: Some(68), added: 2543, mode: `MaxEncodedLen`)
	// Storage: `Tasks::MovedDraw` (r:0 w:1)
	// Proof: `Tasks::MovedDraw` (`max_values`: None, `max_size`: Some(24), added: 2499, mode: `MaxEncodedLen`)
	pub fn submit_verification(&self) -> Weight {
		// Fastest run: 204_665 ns.
		// Proof size: what the run recorded (the hand counts bound the worst case; the
		// estimate from the storage items' bounds, 12122 bytes,
		// carries a fit's intercept into every block where the call has a component).
		let recorded = Weight::from_parts(0, 5009)
			;
		Weight::from_parts(213_469_000, 0)
			.saturating_add(recorded)
			.saturating_add(self.0.reads(9))
			.saturating_add(self.0.writes(7))
	}
	/// `report_unavailable`.
	// Storage: `Tasks::Tasks` (r:1 w:1)
	// Proof: `Tasks::Tasks` (`max_values`: None, `max_size`: Some(5289), added: 7764, mode: `MaxEncodedLen`)
	// Storage: `Tasks::Audits` (r:1 w:1)
	// Proof: `Tasks::Audits` (`max_values`: None, `max_size`: Some(8657), added: 11132, mode: `MaxEncodedLen`)
	// Storage: `Parameters::Parameters` (r:1 w:0)
	// Proof: `Parameters::Parameters` (`max_values`: None, `max_size`: Some(24), added: 2499, mode: `MaxEncodedLen`)
	// Storage: `Tasks::RevealsFrom` (r:1 w:1)
	// Proof: `Tasks::RevealsFrom` (`max_values`: None, `max_size`: Some(20), added: 2495, mode: `MaxEncodedLen`)
	// Storage: `Tasks::DeadlineCounts` (r:1 w:0)
	// Proof: `Tasks::DeadlineCounts` (`max_values`: None, `max_size`: Some(16), added: 2491, mode: `MaxEncodedLen`)
	// Storage: `Tasks::DeadlinePages` (r:1 w:1)
	// Proof: `Tasks::DeadlinePages` (`max_values`: None, `max_size`: Some(153), added: 2628, mode: `MaxEncodedLen`)
	// Storage: `Tasks::RevealBy` (r:2 w:2)
	// Proof: `Tasks::RevealBy` (`max_values`: None, `max_size`: Some(68), added: 2543, mode: `MaxEncodedLen`)
	// Storage: `Tasks::MovedDraw` (r:0 w:1)
	// Proof: `Tasks::MovedDraw` (`max_values`: None, `max_size`: Some(24), added: 2499, mode: `MaxEncodedLen`)
	pub fn report_unavailable(&self) -> Weight {
		// Fastest run: 169_032 ns.
		// Proof size: what the run recorded (the hand counts bound the worst case; the
		// estimate from the storage items' bounds, 12122 bytes,
		// carries a fit's intercept into every block where the call has a component).
		let recorded = Weight::from_parts(0, 3072)
			;
		Weight::from_parts(177_274_000, 0)
			.saturating_add(recorded)
			.saturating_add(self.0.reads(8))
			.saturating_add(self.0.writes(7))
	}
	/// `commit_profile`.
	// Storage: `Tasks::Tasks` (r:1 w:1)
	// Proof: `Tasks::Tasks` (`max_values`: None, `max_size`: Some(5289), added: 7764, mode: `MaxEncodedLen`)
	// Storage: `Tasks::ProfileCommitments` (r:1 w:1)
	// Proof: `Tasks::ProfileCommitments` (`max_values`: None, `max_size`: Some(209), added: 2684, mode: `MaxEncodedLen`)
	// Storage: `Tasks::DeadlineCounts` (r:1 w:0)
	// Proof: `Tasks::DeadlineCounts` (`max_values`: None, `max_size`: Some(16), added: 2491, mode: `MaxEncodedLen`)
	// Storage: `Tasks::DeadlinePages` (r:1 w:1)
	// Proof: `Tasks::DeadlinePages` (`max_values`: None, `max_size`: Some(153), added: 2628, mode: `MaxEncodedLen`)
	pub fn commit_profile(&self) -> Weight {
		// Fastest run: 77_335 ns.
		// Proof size: what the run recorded (the hand counts bound the worst case; the
		// estimate from the storage items' bounds, 8754 bytes,
		// carries a fit's intercept into every block where the call has a component).
		let recorded = Weight::from_parts(0, 786)
			;
		Weight::from_parts(86_209_000, 0)
			.saturating_add(recorded)
			.saturating_add(self.0.reads(4))
			.saturating_add(self.0.writes(3))
	}
	/// `reveal_profile`.
	// Storage: `Tasks::Tasks` (r:1 w:1)
	// Proof: `Tasks::Tasks` (`max_values`: None, `max_size`: Some(5289), added: 7764, mode: `MaxEncodedLen`)
	// Storage: `Tasks::ProfileCommitments` (r:1 w:1)
	// Proof: `Tasks::ProfileCommitments` (`max_values`: None, `max_size`: Some(209), added: 2684, mode: `MaxEncodedLen`)
	// Storage: `Tasks::WorkerTasks` (r:1 w:1)
	// Proof: `Tasks::WorkerTasks` (`max_values`: None, `max_size`: Some(68), added: 2543, mode: `MaxEncodedLen`)
	// Storage: `Tasks::BondUnits` (r:1 w:0)
	// Proof: `Tasks::BondUnits` (`max_values`: None, `max_size`: Some(20), added: 2495, mode: `MaxEncodedLen`)
	// Storage: `Stake::Engagements` (r:1 w:1)
	// Proof: `Stake::Engagements` (`max_values`: None, `max_size`: Some(56), added: 2531, mode: `MaxEncodedLen`)
	// Storage: `Balances::Holds` (r:1 w:1)
	// Proof: `Balances::Holds` (`max_values`: None, `max_size`: Some(193), added: 2668, mode: `MaxEncodedLen`)
	// Storage: `System::Account` (r:4 w:4)
	// Proof: `System::Account` (`max_values`: None, `max_size`: Some(128), added: 2603, mode: `MaxEncodedLen`)
	// Storage: `Stake::Bonds` (r:3 w:3)
	// Proof: `Stake::Bonds` (`max_values`: None, `max_size`: Some(110), added: 2585, mode: `MaxEncodedLen`)
	// Storage: `Parameters::Parameters` (r:3 w:0)
	// Proof: `Parameters::Parameters` (`max_values`: None, `max_size`: Some(24), added: 2499, mode: `MaxEncodedLen`)
	// Storage: `Tasks::DeadlineCounts` (r:1 w:1)
	// Proof: `Tasks::DeadlineCounts` (`max_values`: None, `max_size`: Some(16), added: 2491, mode: `MaxEncodedLen`)
	// Storage: `Tasks::MovedDraw` (r:0 w:1)
	// Proof: `Tasks::MovedDraw` (`max_values`: None, `max_size`: Some(24), added: 2499, mode: `MaxEncodedLen`)
	// Storage: `Tasks::DeadlinePages` (r:0 w:1)
	// Proof: `Tasks::DeadlinePages` (`max_values`: None, `max_size`: Some(153), added: 2628, mode: `MaxEncodedLen`)
	pub fn reveal_profile(&self) -> Weight {
		// Fastest run: 299_277 ns.
		// Proof size: what the run recorded (the hand counts bound the worst case; the
		// estimate from the storage items' bounds, 11402 bytes,
		// carries a fit's intercept into every block where the call has a component).
		let recorded = Weight::from_parts(0, 8025)
			;
		Weight::from_parts(314_619_000, 0)
			.saturating_add(recorded)
			.saturating_add(self.0.reads(17))
			.saturating_add(self.0.writes(15))
	}
	/// `decline_profile`.
	// Storage: `Tasks::Tasks` (r:1 w:1)
	// Proof: `Tasks::Tasks` (`max_values`: None, `max_size`: Some(5289), added: 7764, mode: `MaxEncodedLen`)
	// Storage: `Tasks::ProfileCommitments` (r:1 w:0)
	// Proof: `Tasks::ProfileCommitments` (`max_values`: None, `max_size`: Some(209), added: 2684, mode: `MaxEncodedLen`)
	// Storage: `Tasks::WorkerTasks` (r:1 w:1)
	// Proof: `Tasks::WorkerTasks` (`max_values`: None, `max_size`: Some(68), added: 2543, mode: `MaxEncodedLen`)
	// Storage: `Tasks::BondUnits` (r:1 w:0)
	// Proof: `Tasks::BondUnits` (`max_values`: None, `max_size`: Some(20), added: 2495, mode: `MaxEncodedLen`)
	// Storage: `Stake::Engagements` (r:1 w:1)
	// Proof: `Stake::Engagements` (`max_values`: None, `max_size`: Some(56), added: 2531, mode: `MaxEncodedLen`)
	// Storage: `Balances::Holds` (r:1 w:1)
	// Proof: `Balances::Holds` (`max_values`: None, `max_size`: Some(193), added: 2668, mode: `MaxEncodedLen`)
	// Storage: `System::Account` (r:2 w:2)
	// Proof: `System::Account` (`max_values`: None, `max_size`: Some(128), added: 2603, mode: `MaxEncodedLen`)
	// Storage: `Tasks::DeadlineCounts` (r:1 w:0)
	// Proof: `Tasks::DeadlineCounts` (`max_values`: None, `max_size`: Some(16), added: 2491, mode: `MaxEncodedLen`)
	// Storage: `Tasks::DeadlinePages` (r:1 w:1)
	// Proof: `Tasks::DeadlinePages` (`max_values`: None, `max_size`: Some(153), added: 2628, mode: `MaxEncodedLen`)
	pub fn decline_profile(&self) -> Weight {
		// Fastest run: 157_055 ns.
		// Proof size: what the run recorded (the hand counts bound the worst case; the
		// estimate from the storage items' bounds, 8754 bytes,
		// carries a fit's intercept into every block where the call has a component).
		let recorded = Weight::from_parts(0, 4110)
			;
		Weight::from_parts(167_290_000, 0)
			.saturating_add(recorded)
			.saturating_add(self.0.reads(10))
			.saturating_add(self.0.writes(7))
	}
	/// `challenge`.
	// Storage: `Tasks::Tasks` (r:1 w:1)
	// Proof: `Tasks::Tasks` (`max_values`: None, `max_size`: Some(5289), added: 7764, mode: `MaxEncodedLen`)
	// Storage: `Tasks::Audits` (r:1 w:1)
	// Proof: `Tasks::Audits` (`max_values`: None, `max_size`: Some(8657), added: 11132, mode: `MaxEncodedLen`)
	// Storage: `Stake::Bonds` (r:1 w:0)
	// Proof: `Stake::Bonds` (`max_values`: None, `max_size`: Some(110), added: 2585, mode: `MaxEncodedLen`)
	// Storage: `Tasks::Survived` (r:1 w:0)
	// Proof: `Tasks::Survived` (`max_values`: None, `max_size`: Some(64), added: 2539, mode: `MaxEncodedLen`)
	// Storage: `Tasks::OpenChallenges` (r:1 w:1)
	// Proof: `Tasks::OpenChallenges` (`max_values`: None, `max_size`: Some(52), added: 2527, mode: `MaxEncodedLen`)
	// Storage: `Jackpot::Bindings` (r:1 w:0)
	// Proof: `Jackpot::Bindings` (`max_values`: None, `max_size`: Some(166), added: 2641, mode: `MaxEncodedLen`)
	// Storage: `Tasks::RevealsFrom` (r:1 w:0)
	// Proof: `Tasks::RevealsFrom` (`max_values`: None, `max_size`: Some(20), added: 2495, mode: `MaxEncodedLen`)
	// Storage: `Arbitration::Disputes` (r:1 w:1)
	// Proof: `Arbitration::Disputes` (`max_values`: None, `max_size`: Some(820), added: 3295, mode: `MaxEncodedLen`)
	// Storage: `Tasks::Specs` (r:1 w:0)
	// Proof: `Tasks::Specs` (`max_values`: None, `max_size`: Some(1103), added: 3578, mode: `MaxEncodedLen`)
	// Storage: `System::Account` (r:1 w:1)
	// Proof: `System::Account` (`max_values`: None, `max_size`: Some(128), added: 2603, mode: `MaxEncodedLen`)
	// Storage: `Balances::Holds` (r:1 w:1)
	// Proof: `Balances::Holds` (`max_values`: None, `max_size`: Some(193), added: 2668, mode: `MaxEncodedLen`)
	// Storage: `Arbitration::DeadlineCounts` (r:1 w:0)
	// Proof: `Arbitration::DeadlineCounts` (`max_values`: None, `max_size`: Some(16), added: 2491, mode: `MaxEncodedLen`)
	// Storage: `Arbitration::DeadlinePages` (r:1 w:1)
	// Proof: `Arbitration::DeadlinePages` (`max_values`: None, `max_size`: Some(409), added: 2884, mode: `MaxEncodedLen`)
	// Storage: `Tasks::WorkerTasks` (r:1 w:1)
	// Proof: `Tasks::WorkerTasks` (`max_values`: None, `max_size`: Some(68), added: 2543, mode: `MaxEncodedLen`)
	// Storage: `Tasks::BondUnits` (r:1 w:0)
	// Proof: `Tasks::BondUnits` (`max_values`: None, `max_size`: Some(20), added: 2495, mode: `MaxEncodedLen`)
	// Storage: `Stake::Engagements` (r:1 w:1)
	// Proof: `Stake::Engagements` (`max_values`: None, `max_size`: Some(56), added: 2531, mode: `MaxEncodedLen`)
	// Storage: `Tasks::DeadlineCounts` (r:1 w:1)
	// Proof: `Tasks::DeadlineCounts` (`max_values`: None, `max_size`: Some(16), added: 2491, mode: `MaxEncodedLen`)
	// Storage: `Tasks::MovedDraw` (r:0 w:1)
	// Proof: `Tasks::MovedDraw` (`max_values`: None, `max_size`: Some(24), added: 2499, mode: `MaxEncodedLen`)
	// Storage: `Tasks::ChallengedAt` (r:0 w:1)
	// Proof: `Tasks::ChallengedAt` (`max_values`: None, `max_size`: Some(32), added: 2507, mode: `MaxEncodedLen`)
	// Storage: `Tasks::DeadlinePages` (r:0 w:1)
	// Proof: `Tasks::DeadlinePages` (`max_values`: None, `max_size`: Some(153), added: 2628, mode: `MaxEncodedLen`)
	pub fn challenge(&self) -> Weight {
		// Fastest run: 259_327 ns.
		// Proof size: what the run recorded (the hand counts bound the worst case; the
		// estimate from the storage items' bounds, 12122 bytes,
		// carries a fit's intercept into every block where the call has a component).
		let recorded = Weight::from_parts(0, 9299)
			;
		Weight::from_parts(269_412_000, 0)
			.saturating_add(recorded)
			.saturating_add(self.0.reads(17))
			.saturating_add(self.0.writes(13))
	}
	/// `watch_challenge`.
	// Storage: `Tasks::Tasks` (r:1 w:1)
	// Proof: `Tasks::Tasks` (`max_values`: None, `max_size`: Some(5289), added: 7764, mode: `MaxEncodedLen`)
	// Storage: `Tasks::Audits` (r:1 w:1)
	// Proof: `Tasks::Audits` (`max_values`: None, `max_size`: Some(8657), added: 11132, mode: `MaxEncodedLen`)
	// Storage: `Stake::Bonds` (r:1 w:0)
	// Proof: `Stake::Bonds` (`max_values`: None, `max_size`: Some(110), added: 2585, mode: `MaxEncodedLen`)
	// Storage: `Tasks::Survived` (r:1 w:0)
	// Proof: `Tasks::Survived` (`max_values`: None, `max_size`: Some(64), added: 2539, mode: `MaxEncodedLen`)
	// Storage: `Tasks::OpenChallenges` (r:1 w:1)
	// Proof: `Tasks::OpenChallenges` (`max_values`: None, `max_size`: Some(52), added: 2527, mode: `MaxEncodedLen`)
	// Storage: `Jackpot::Bindings` (r:1 w:0)
	// Proof: `Jackpot::Bindings` (`max_values`: None, `max_size`: Some(166), added: 2641, mode: `MaxEncodedLen`)
	// Storage: `Tasks::Watches` (r:1 w:0)
	// Proof: `Tasks::Watches` (`max_values`: None, `max_size`: Some(60), added: 2535, mode: `MaxEncodedLen`)
	// Storage: `Stake::Joined` (r:1 w:0)
	// Proof: `Stake::Joined` (`max_values`: None, `max_size`: Some(36875), added: 39350, mode: `MaxEncodedLen`)
	// Storage: `Tasks::RevealsFrom` (r:1 w:0)
	// Proof: `Tasks::RevealsFrom` (`max_values`: None, `max_size`: Some(20), added: 2495, mode: `MaxEncodedLen`)
	// Storage: `Arbitration::Disputes` (r:1 w:1)
	// Proof: `Arbitration::Disputes` (`max_values`: None, `max_size`: Some(820), added: 3295, mode: `MaxEncodedLen`)
	// Storage: `Tasks::Specs` (r:1 w:0)
	// Proof: `Tasks::Specs` (`max_values`: None, `max_size`: Some(1103), added: 3578, mode: `MaxEncodedLen`)
	// Storage: `System::Account` (r:1 w:1)
	// Proof: `System::Account` (`max_values`: None, `max_size`: Some(128), added: 2603, mode: `MaxEncodedLen`)
	// Storage: `Balances::Holds` (r:1 w:1)
	// Proof: `Balances::Holds` (`max_values`: None, `max_size`: Some(193), added: 2668, mode: `MaxEncodedLen`)
	// Storage: `Arbitration::DeadlineCounts` (r:1 w:0)
	// Proof: `Arbitration::DeadlineCounts` (`max_values`: None, `max_size`: Some(16), added: 2491, mode: `MaxEncodedLen`)
	// Storage: `Arbitration::DeadlinePages` (r:1 w:1)
	// Proof: `Arbitration::DeadlinePages` (`max_values`: None, `max_size`: Some(409), added: 2884, mode: `MaxEncodedLen`)
	// Storage: `Tasks::WorkerTasks` (r:1 w:1)
	// Proof: `Tasks::WorkerTasks` (`max_values`: None, `max_size`: Some(68), added: 2543, mode: `MaxEncodedLen`)
	// Storage: `Tasks::BondUnits` (r:1 w:0)
	// Proof: `Tasks::BondUnits` (`max_values`: None, `max_size`: Some(20), added: 2495, mode: `MaxEncodedLen`)
	// Storage: `Stake::Engagements` (r:1 w:1)
	// Proof: `Stake::Engagements` (`max_values`: None, `max_size`: Some(56), added: 2531, mode: `MaxEncodedLen`)
	// Storage: `Tasks::DeadlineCounts` (r:1 w:1)
	// Proof: `Tasks::DeadlineCounts` (`max_values`: None, `max_size`: Some(16), added: 2491, mode: `MaxEncodedLen`)
	// Storage: `Tasks::MovedDraw` (r:0 w:1)
	// Proof: `Tasks::MovedDraw` (`max_values`: None, `max_size`: Some(24), added: 2499, mode: `MaxEncodedLen`)
	// Storage: `Tasks::ChallengedAt` (r:0 w:1)
	// Proof: `Tasks::ChallengedAt` (`max_values`: None, `max_size`: Some(32), added: 2507, mode: `MaxEncodedLen`)
	// Storage: `Tasks::DeadlinePages` (r:0 w:1)
	// Proof: `Tasks::DeadlinePages` (`max_values`: None, `max_size`: Some(153), added: 2628, mode: `MaxEncodedLen`)
	pub fn watch_challenge(&self) -> Weight {
		// Fastest run: 615_178 ns.
		// Proof size: what the run recorded (the hand counts bound the worst case; the
		// estimate from the storage items' bounds, 40340 bytes,
		// carries a fit's intercept into every block where the call has a component).
		let recorded = Weight::from_parts(0, 9182)
			;
		Weight::from_parts(647_726_000, 0)
			.saturating_add(recorded)
			.saturating_add(self.0.reads(19))
			.saturating_add(self.0.writes(13))
	}
	/// `prove_off_task`.
	// Storage: `Tasks::Tasks` (r:1 w:0)
	// Proof: `Tasks::Tasks` (`max_values`: None, `max_size`: Some(5289), added: 7764, mode: `MaxEncodedLen`)
	// Storage: `Tasks::OffTask` (r:1 w:1)
	// Proof: `Tasks::OffTask` (`max_values`: None, `max_size`: Some(48), added: 2523, mode: `MaxEncodedLen`)
	// Storage: `Tasks::Specs` (r:1 w:0)
	// Proof: `Tasks::Specs` (`max_values`: None, `max_size`: Some(1103), added: 3578, mode: `MaxEncodedLen`)
	// Storage: `Tasks::Demands` (r:1 w:0)
	// Proof: `Tasks::Demands` (`max_values`: None, `max_size`: Some(9912), added: 12387, mode: `MaxEncodedLen`)
	pub fn prove_off_task(&self) -> Weight {
		// Fastest run: 132_097 ns.
		// Proof size: what the run recorded (the hand counts bound the worst case; the
		// estimate from the storage items' bounds, 13377 bytes,
		// carries a fit's intercept into every block where the call has a component).
		let recorded = Weight::from_parts(0, 873)
			;
		Weight::from_parts(136_684_000, 0)
			.saturating_add(recorded)
			.saturating_add(self.0.reads(4))
			.saturating_add(self.0.writes(1))
	}
	/// `demand_checkpoint`.
	// Storage: `Tasks::Tasks` (r:1 w:0)
	// Proof: `Tasks::Tasks` (`max_values`: None, `max_size`: Some(5289), added: 7764, mode: `MaxEncodedLen`)
	// Storage: `Tasks::Specs` (r:1 w:0)
	// Proof: `Tasks::Specs` (`max_values`: None, `max_size`: Some(1103), added: 3578, mode: `MaxEncodedLen`)
	// Storage: `Tasks::Audits` (r:1 w:0)
	// Proof: `Tasks::Audits` (`max_values`: None, `max_size`: Some(8657), added: 11132, mode: `MaxEncodedLen`)
	// Storage: `Tasks::RevealBy` (r:1 w:0)
	// Proof: `Tasks::RevealBy` (`max_values`: None, `max_size`: Some(68), added: 2543, mode: `MaxEncodedLen`)
	// Storage: `Tasks::Demands` (r:1 w:1)
	// Proof: `Tasks::Demands` (`max_values`: None, `max_size`: Some(9912), added: 12387, mode: `MaxEncodedLen`)
	// Storage: `Parameters::Parameters` (r:1 w:0)
	// Proof: `Parameters::Parameters` (`max_values`: None, `max_size`: Some(24), added: 2499, mode: `MaxEncodedLen`)
	// Storage: `Tasks::LastUpgrade` (r:1 w:0)
	// Proof: `Tasks::LastUpgrade` (`max_values`: Some(1), `max_size`: Some(4), added: 499, mode: `MaxEncodedLen`)
	// Storage: `System::Account` (r:1 w:1)
	// Proof: `System::Account` (`max_values`: None, `max_size`: Some(128), added: 2603, mode: `MaxEncodedLen`)
	// Storage: `Balances::Holds` (r:1 w:1)
	// Proof: `Balances::Holds` (`max_values`: None, `max_size`: Some(193), added: 2668, mode: `MaxEncodedLen`)
	pub fn demand_checkpoint(&self) -> Weight {
		// Fastest run: 158_507 ns.
		// Proof size: what the run recorded (the hand counts bound the worst case; the
		// estimate from the storage items' bounds, 13377 bytes,
		// carries a fit's intercept into every block where the call has a component).
		let recorded = Weight::from_parts(0, 7225)
			;
		Weight::from_parts(183_214_000, 0)
			.saturating_add(recorded)
			.saturating_add(self.0.reads(9))
			.saturating_add(self.0.writes(3))
	}
	/// `publish_page`.
	// Storage: `Tasks::Demands` (r:1 w:1)
	// Proof: `Tasks::Demands` (`max_values`: None, `max_size`: Some(9912), added: 12387, mode: `MaxEncodedLen`)
	// Storage: `Tasks::Tasks` (r:1 w:0)
	// Proof: `Tasks::Tasks` (`max_values`: None, `max_size`: Some(5289), added: 7764, mode: `MaxEncodedLen`)
	// Storage: `Tasks::Specs` (r:1 w:0)
	// Proof: `Tasks::Specs` (`max_values`: None, `max_size`: Some(1103), added: 3578, mode: `MaxEncodedLen`)
	pub fn publish_page(&self) -> Weight {
		// Fastest run: 975_435 ns.
		// Proof size: what the run recorded (the hand counts bound the worst case; the
		// estimate from the storage items' bounds, 13377 bytes,
		// carries a fit's intercept into every block where the call has a component).
		let recorded = Weight::from_parts(0, 1004)
			;
		Weight::from_parts(1_015_966_000, 0)
			.saturating_add(recorded)
			.saturating_add(self.0.reads(3))
			.saturating_add(self.0.writes(1))
	}
	/// `on_initialize`, `n` in `[0, 16]`.
	// Storage: `Babe::AuthorVrfRandomness` (r:1 w:0)
	// Proof: `Babe::AuthorVrfRandomness` (`max_values`: Some(1), `max_size`: Some(33), added: 528, mode: `MaxEncodedLen`)
	// Storage: `Tasks::Beacon` (r:1 w:0)
	// Proof: `Tasks::Beacon` (`max_values`: Some(1), `max_size`: Some(68), added: 563, mode: `MaxEncodedLen`)
	// Storage: `Tasks::DeadlineBacklog` (r:1 w:1)
	// Proof: `Tasks::DeadlineBacklog` (`max_values`: Some(1), `max_size`: Some(4), added: 499, mode: `MaxEncodedLen`)
	// Storage: `Tasks::DeadlineCounts` (r:2 w:2)
	// Proof: `Tasks::DeadlineCounts` (`max_values`: None, `max_size`: Some(16), added: 2491, mode: `MaxEncodedLen`)
	// Storage: `Tasks::DeadlinePages` (r:1 w:2)
	// Proof: `Tasks::DeadlinePages` (`max_values`: None, `max_size`: Some(153), added: 2628, mode: `MaxEncodedLen`)
	// Storage: `Tasks::Tasks` (r:16 w:16)
	// Proof: `Tasks::Tasks` (`max_values`: None, `max_size`: Some(5289), added: 7764, mode: `MaxEncodedLen`)
	// Storage: `Tasks::MovedDraw` (r:16 w:16)
	// Proof: `Tasks::MovedDraw` (`max_values`: None, `max_size`: Some(24), added: 2499, mode: `MaxEncodedLen`)
	// Storage: `Tasks::Demands` (r:16 w:0)
	// Proof: `Tasks::Demands` (`max_values`: None, `max_size`: Some(9912), added: 12387, mode: `MaxEncodedLen`)
	// Storage: `Tasks::OffTask` (r:16 w:8)
	// Proof: `Tasks::OffTask` (`max_values`: None, `max_size`: Some(48), added: 2523, mode: `MaxEncodedLen`)
	// Storage: `Tasks::Audits` (r:16 w:16)
	// Proof: `Tasks::Audits` (`max_values`: None, `max_size`: Some(8657), added: 11132, mode: `MaxEncodedLen`)
	// Storage: `Jackpot::Bindings` (r:32 w:26)
	// Proof: `Jackpot::Bindings` (`max_values`: None, `max_size`: Some(166), added: 2641, mode: `MaxEncodedLen`)
	// Storage: `Stake::Bonds` (r:32 w:32)
	// Proof: `Stake::Bonds` (`max_values`: None, `max_size`: Some(110), added: 2585, mode: `MaxEncodedLen`)
	// Storage: `Balances::Holds` (r:16 w:16)
	// Proof: `Balances::Holds` (`max_values`: None, `max_size`: Some(193), added: 2668, mode: `MaxEncodedLen`)
	// Storage: `System::Account` (r:42 w:42)
	// Proof: `System::Account` (`max_values`: None, `max_size`: Some(128), added: 2603, mode: `MaxEncodedLen`)
	// Storage: `Stake::Active` (r:1 w:1)
	// Proof: `Stake::Active` (`max_values`: None, `max_size`: Some(58379), added: 60854, mode: `MaxEncodedLen`)
	// Storage: `Stake::Joined` (r:1 w:1)
	// Proof: `Stake::Joined` (`max_values`: None, `max_size`: Some(36875), added: 39350, mode: `MaxEncodedLen`)
	// Storage: `Tasks::Specs` (r:16 w:8)
	// Proof: `Tasks::Specs` (`max_values`: None, `max_size`: Some(1103), added: 3578, mode: `MaxEncodedLen`)
	// Storage: `Tasks::Replaced` (r:8 w:16)
	// Proof: `Tasks::Replaced` (`max_values`: None, `max_size`: Some(4626), added: 7101, mode: `MaxEncodedLen`)
	// Storage: `Jackpot::Commitments` (r:1023 w:10)
	// Proof: `Jackpot::Commitments` (`max_values`: None, `max_size`: Some(84), added: 2559, mode: `MaxEncodedLen`)
	// Storage: `Tasks::BondUnits` (r:16 w:8)
	// Proof: `Tasks::BondUnits` (`max_values`: None, `max_size`: Some(20), added: 2495, mode: `MaxEncodedLen`)
	// Storage: `Stake::Engagements` (r:34 w:34)
	// Proof: `Stake::Engagements` (`max_values`: None, `max_size`: Some(56), added: 2531, mode: `MaxEncodedLen`)
	// Storage: `Tasks::WorkerTasks` (r:34 w:34)
	// Proof: `Tasks::WorkerTasks` (`max_values`: None, `max_size`: Some(68), added: 2543, mode: `MaxEncodedLen`)
	// Storage: `Parameters::Parameters` (r:1 w:0)
	// Proof: `Parameters::Parameters` (`max_values`: None, `max_size`: Some(24), added: 2499, mode: `MaxEncodedLen`)
	// Storage: `Stake::Profiles` (r:8 w:0)
	// Proof: `Stake::Profiles` (`max_values`: None, `max_size`: Some(315), added: 2790, mode: `MaxEncodedLen`)
	// Storage: `Tasks::RevealBy` (r:0 w:16)
	// Proof: `Tasks::RevealBy` (`max_values`: None, `max_size`: Some(68), added: 2543, mode: `MaxEncodedLen`)
	// Storage: `Tasks::Watches` (r:0 w:8)
	// Proof: `Tasks::Watches` (`max_values`: None, `max_size`: Some(60), added: 2535, mode: `MaxEncodedLen`)
	// Storage: `Tasks::RevealsFrom` (r:0 w:8)
	// Proof: `Tasks::RevealsFrom` (`max_values`: None, `max_size`: Some(20), added: 2495, mode: `MaxEncodedLen`)
	// Storage: `Tasks::ProfileCommitments` (r:0 w:8)
	// Proof: `Tasks::ProfileCommitments` (`max_values`: None, `max_size`: Some(209), added: 2684, mode: `MaxEncodedLen`)
	pub fn on_initialize(&self, n: u32) -> Weight {
		// Fastest run: 38_677 ns.
		// Proof size: what the run recorded (the hand counts bound the worst case; the
		// estimate from the storage items' bounds, 2618847 bytes + n * 12387,
		// carries a fit's intercept into every block where the call has a component).
		let recorded = Weight::from_parts(0, 184291)
			.saturating_add(Weight::from_parts(0, 8306).saturating_mul(n.into()))
			;
		Weight::from_parts(987_738_533, 0)
			.saturating_add(Weight::from_parts(2_114_925_650, 0).saturating_mul(n.into()))
			.saturating_add(recorded)
			.saturating_add(self.0.reads(410))
			.saturating_add(self.0.reads((72_u64).saturating_mul(n.into())))
			.saturating_add(self.0.writes(2))
			.saturating_add(self.0.writes((20_u64).saturating_mul(n.into())))
	}
}
