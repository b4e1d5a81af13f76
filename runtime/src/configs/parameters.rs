//! pallet-parameters: the protocol parameters that governance may change without a
//! runtime upgrade. Root sets one with `parameters.set_parameter`, which emits
//! `parameters.Updated` (old and new value); a key never set reads its default, below.
//! The pallets read them through `Get`, so none is a metadata constant.

use crate::{AccountId, BlockNumber, Runtime, RuntimeEvent, DAYS, HOURS, MINUTES};
use core::marker::PhantomData;
use frame_support::{
	dynamic_params::{dynamic_pallet_params, dynamic_params},
	traits::{AsEnsureOriginWithArg, Get},
};
use frame_system::EnsureRoot;
use sp_runtime::Perbill;

/// Every governable parameter, by pallet; the codec indices are part of the chain's
/// storage keys and calls, so they never change.
#[dynamic_params(RuntimeParameters, pallet_parameters::Parameters::<Runtime>)]
pub mod dynamic_params {
	use super::*;

	/// Periods of the task lifecycle, in 3-second blocks.
	#[dynamic_pallet_params]
	#[codec(index = 0)]
	pub mod tasks {
		/// How long a task's verdicts stay open to challenges. Default: two hours (2,400
		/// blocks). A development chain shortens it so that a task settles in minutes.
		#[codec(index = 0)]
		pub static ChallengePeriod: BlockNumber = 2 * HOURS;

		/// Blocks added to every training deadline (start-up, data download). Default:
		/// half an hour (600 blocks).
		#[codec(index = 1)]
		pub static MinTrainingPeriod: BlockNumber = 30 * MINUTES;

		/// Blocks between a commitment and the draw it waits for: the draw reads
		/// randomness folded from every block in between, which no single author knows
		/// at the commitment unless it authors all of them. Default: a minute (20 blocks);
		/// a validator with half the slots authors a run of 20 about once in 1,750 hours.
		/// The chain never draws sooner than 2 blocks after, whatever is set.
		#[codec(index = 2)]
		pub static RandomnessDelay: BlockNumber = MINUTES;

		// Codec indices 3 to 6 held bounds per model family on an absolute scale of
		// distance, retired with it (`migrations::RetiredThresholdBounds`); never reused.

		/// The lowest distance threshold (f32 bits) a Threshold task is judged by,
		/// whatever its profilers agree on; a distance is a share of the segment's work.
		/// Default: 0.05 (`0x3D4CCCCD`), above every honest repops replay measured on the
		/// MNIST MLP and CNN (180 segments each, `scripts/bench/threshold-tail.sh`; the
		/// figures are in docs/chain.md): two profilers in league with an owner could
		/// otherwise post a threshold that fails honest solvers.
		#[codec(index = 7)]
		pub static MinThreshold: u32 = 0x3D4C_CCCD;

		/// The highest distance threshold (f32 bits). Default: 0.1 (`0x3DCCCCCD`). A
		/// checkpoint that skips a segment's gradients lies at 1 for any model, and one
		/// that skips a share of them at about that share: two profilers in league with a
		/// solver could otherwise post a threshold that passes its fakes. Profiles agreeing
		/// past it fail the task before anyone trains; where set below the floor, the floor
		/// wins.
		#[codec(index = 8)]
		pub static MaxThreshold: u32 = 0x3DCC_CCCD;

		/// Blocks in which a demanded checkpoint must be published in full (the chain
		/// gives at least four a page); in the second half a verifier that read the
		/// checkpoint may answer for a solver whose node is down. Default: two hours
		/// (2,400 blocks), which cover a restart and a full state (4 MiB, 65 pages or
		/// more) in blocks others fill too. A development chain shortens it so that a
		/// verifier's answer can be watched in minutes.
		#[codec(index = 9)]
		pub static PublishPeriod: BlockNumber = 2 * HOURS;
	}

	/// The jackpot's forced errors.
	#[dynamic_pallet_params]
	#[codec(index = 1)]
	pub mod jackpot {
		/// Share of audited segments a verifier must deliberately get wrong. Default: 1%.
		/// Each verifier's binding to a task keeps the rate it was bound at, which its
		/// replay and the chain's judgment both use: a change applies to later bindings.
		#[codec(index = 0)]
		pub static ForcedErrorRate: Perbill = Perbill::from_percent(1);
	}
}

/// The parameter `P`, read within `[MIN, MAX]` blocks. Root may store any number, but a
/// period outside its bounds would break the protocol rather than tune it (a window too
/// short for any verifier to reveal in, deadlines too short to start training, a draw or
/// a window so far off that escrow stays locked for ages); the pallets read the nearest
/// bound instead.
pub struct Clamped<P, const MIN: BlockNumber, const MAX: BlockNumber>(PhantomData<P>);

impl<P: Get<BlockNumber>, const MIN: BlockNumber, const MAX: BlockNumber> Get<BlockNumber>
	for Clamped<P, MIN, MAX>
{
	fn get() -> BlockNumber {
		P::get().clamp(MIN, MAX)
	}
}

/// The challenge period the tasks pallet reads: from 9 blocks (a third of the window for
/// reveals, at least 3 blocks, after 6 for whistleblowers) to a week.
pub type ChallengePeriod = Clamped<dynamic_params::tasks::ChallengePeriod, 9, { 7 * DAYS }>;
/// The minimum training period the tasks pallet reads: from 10 blocks (30 s) to a day.
pub type MinTrainingPeriod = Clamped<dynamic_params::tasks::MinTrainingPeriod, 10, DAYS>;
/// The randomness delay the tasks pallet reads: from 2 blocks to an hour.
pub type RandomnessDelay = Clamped<dynamic_params::tasks::RandomnessDelay, 2, HOURS>;
/// The publish period the tasks pallet reads: from 20 blocks to a day (the pallet
/// stretches a demand's to four blocks a page of its checkpoint).
pub type PublishPeriod = Clamped<dynamic_params::tasks::PublishPeriod, 20, DAYS>;
/// How long a forced-error commitment stands before it is drawn: the randomness delay,
/// at most [`MAX_COMMITMENT_AGE`]. A verifier bound to a task commits afresh and waits
/// this long before its next first-round draw, and a verifier draw that finds only such
/// commitments spends one of the task's draws at each retry: a longer age could spend
/// them all on a trained task.
pub type CommitmentAge = Clamped<dynamic_params::tasks::RandomnessDelay, 2, MAX_COMMITMENT_AGE>;
/// The longest [`CommitmentAge`]: four retry periods, a quarter of a task's draws.
pub const MAX_COMMITMENT_AGE: BlockNumber = 4 * MINUTES;

/// The threshold bounds the tasks pallet reads, as governance set them.
pub struct ThresholdBounds;

impl pallet_gensyn_tasks::ThresholdBounds for ThresholdBounds {
	fn bounds() -> (u32, u32) {
		(dynamic_params::tasks::MinThreshold::get(), dynamic_params::tasks::MaxThreshold::get())
	}
}

impl pallet_parameters::Config for Runtime {
	type RuntimeEvent = RuntimeEvent;
	type RuntimeParameters = RuntimeParameters;
	// Root only: on a production chain, the origin governance dispatches from.
	type AdminOrigin = AsEnsureOriginWithArg<EnsureRoot<AccountId>>;
	// The pallet's own weights, measured upstream on reference hardware.
	type WeightInfo = ();
}

#[cfg(test)]
mod tests {
	use super::*;
	use crate::{configs::RuntimeParameters, Parameters, RuntimeOrigin};
	use dynamic_params::tasks;

	/// Whatever root stores, the pallets read each period within its bounds.
	#[test]
	fn periods_outside_their_bounds_read_as_the_nearest_bound() {
		sp_io::TestExternalities::new(Default::default()).execute_with(|| {
			let set = |p: tasks::Parameters| {
				Parameters::set_parameter(RuntimeOrigin::root(), RuntimeParameters::Tasks(p))
					.expect("root sets it");
			};
			let read = || {
				(
					<Runtime as pallet_gensyn_tasks::Config>::ChallengePeriod::get(),
					<Runtime as pallet_gensyn_tasks::Config>::MinTrainingPeriod::get(),
					<Runtime as pallet_gensyn_tasks::Config>::RandomnessDelay::get(),
					<Runtime as pallet_gensyn_tasks::Config>::PublishPeriod::get(),
				)
			};
			assert_eq!(read(), (2 * HOURS, 30 * MINUTES, MINUTES, 2 * HOURS), "the defaults");
			let bounds = [(0, (9, 10, 2, 20)), (u32::MAX, (7 * DAYS, DAYS, HOURS, DAYS))];
			for (stored, expected) in bounds {
				set(tasks::Parameters::ChallengePeriod(tasks::ChallengePeriod, Some(stored)));
				set(tasks::Parameters::MinTrainingPeriod(tasks::MinTrainingPeriod, Some(stored)));
				set(tasks::Parameters::RandomnessDelay(tasks::RandomnessDelay, Some(stored)));
				set(tasks::Parameters::PublishPeriod(tasks::PublishPeriod, Some(stored)));
				assert_eq!(read(), expected, "stored {stored}");
			}
		});
	}

	/// The threshold bounds bracket what was measured (honest replays,
	/// `scripts/bench/threshold-tail.sh`; a fake that skips the gradients lies at 1), and
	/// root moves them; where it sets a ceiling under its floor, the floor wins.
	#[test]
	fn the_threshold_bounds_are_governance_parameters() {
		sp_io::TestExternalities::new(Default::default()).execute_with(|| {
			let bounded = |t: f32| {
				let bits = pallet_gensyn_tasks::Pallet::<Runtime>::bounded_threshold(t.to_bits());
				f32::from_bits(bits)
			};
			let (floor, ceiling) = (0.05, 0.1);
			// Honest distances and profiles read as the floor; a fake that skips the
			// gradients, or half of them, as the ceiling.
			for honest in [0.024, 6.2e-4, 1e-5] {
				assert_eq!(bounded(honest), floor, "{honest}");
			}
			assert_eq!((bounded(1.0), bounded(0.5)), (ceiling, ceiling));
			let set = |p: tasks::Parameters| {
				Parameters::set_parameter(RuntimeOrigin::root(), RuntimeParameters::Tasks(p))
					.expect("root sets it");
			};
			set(tasks::Parameters::MinThreshold(tasks::MinThreshold, Some(1e-3f32.to_bits())));
			set(tasks::Parameters::MaxThreshold(tasks::MaxThreshold, Some(0.6f32.to_bits())));
			assert_eq!((bounded(1e-5), bounded(0.5), bounded(1.0)), (1e-3, 0.5, 0.6));
			set(tasks::Parameters::MaxThreshold(tasks::MaxThreshold, Some(1e-4f32.to_bits())));
			assert_eq!(bounded(1.0), 1e-3, "the floor wins");
		});
	}
}
