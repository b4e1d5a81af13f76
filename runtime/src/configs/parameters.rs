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

		/// The lowest distance threshold (f32 bits) a Threshold task of a dense model
		/// (linear layers only) is judged by, whatever its profilers agree on. Default:
		/// 0.01 (`0x3C23D70A`). Honest runs of the MNIST MLP replayed with repops lie at
		/// most 8.3e-3 from the solver's checkpoints (180 segments measured by
		/// `scripts/bench/threshold-tail.sh`), while profiles lie near 1.5e-5: two
		/// profilers in league with an owner could otherwise post a threshold that
		/// fails honest solvers.
		#[codec(index = 3)]
		pub static DenseMinThreshold: u32 = 0x3C23_D70A;

		/// The highest distance threshold (f32 bits) of a dense model. Default: 0.1
		/// (`0x3DCCCCCD`). A lazy MLP run that copies its checkpoints forward lies 1.49
		/// or more from the replay over whole segments, and 0.13 over the last, two-step
		/// segment: two profilers in league with a solver could otherwise post a
		/// threshold that passes its copies. Where set below the floor, the floor wins.
		#[codec(index = 4)]
		pub static DenseMaxThreshold: u32 = 0x3DCC_CCCD;

		/// The lowest distance threshold (f32 bits) of a convolutional model (any
		/// `Conv2d` layer). Default: 0.001 (`0x3A83126F`). Honest runs of the MNIST CNN
		/// (in Threshold mode) replayed with repops lie at most 6.9e-4 from the solver's
		/// checkpoints (180 segments), while profiles lie near 2.3e-6. Its segments move
		/// the parameters far less than the MLP's, so its copies lie closer and its
		/// bounds lower.
		#[codec(index = 5)]
		pub static ConvMinThreshold: u32 = 0x3A83_126F;

		/// The highest distance threshold (f32 bits) of a convolutional model. Default:
		/// 0.01 (`0x3C23D70A`). A lazy CNN run that copies its checkpoints forward lies
		/// 0.093 or more from the replay over whole (25-step) segments; over its last
		/// segment, of one step, 2.8e-3, which only profilers in league pushing the
		/// threshold past it would pass.
		#[codec(index = 6)]
		pub static ConvMaxThreshold: u32 = 0x3C23_D70A;
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
/// How long a forced-error commitment stands before it is drawn: the randomness delay,
/// at most [`MAX_COMMITMENT_AGE`]. A verifier bound to a task commits afresh and waits
/// this long before its next first-round draw, and a verifier draw that finds only such
/// commitments spends one of the task's draws at each retry: a longer age could spend
/// them all on a trained task.
pub type CommitmentAge = Clamped<dynamic_params::tasks::RandomnessDelay, 2, MAX_COMMITMENT_AGE>;
/// The longest [`CommitmentAge`]: four retry periods, a quarter of a task's draws.
pub const MAX_COMMITMENT_AGE: BlockNumber = 4 * MINUTES;

/// The threshold bounds the tasks pallet reads, by model family, as governance set them.
pub struct ThresholdBounds;

impl pallet_gensyn_tasks::ThresholdBounds for ThresholdBounds {
	fn bounds(family: pallet_gensyn_tasks::ModelFamily) -> (u32, u32) {
		use dynamic_params::tasks as p;
		match family {
			pallet_gensyn_tasks::ModelFamily::Dense => {
				(p::DenseMinThreshold::get(), p::DenseMaxThreshold::get())
			}
			pallet_gensyn_tasks::ModelFamily::Convolutional => {
				(p::ConvMinThreshold::get(), p::ConvMaxThreshold::get())
			}
		}
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
				)
			};
			assert_eq!(read(), (2 * HOURS, 30 * MINUTES, MINUTES), "the defaults");
			for (stored, expected) in [(0, (9, 10, 2)), (u32::MAX, (7 * DAYS, DAYS, HOURS))] {
				set(tasks::Parameters::ChallengePeriod(tasks::ChallengePeriod, Some(stored)));
				set(tasks::Parameters::MinTrainingPeriod(tasks::MinTrainingPeriod, Some(stored)));
				set(tasks::Parameters::RandomnessDelay(tasks::RandomnessDelay, Some(stored)));
				assert_eq!(read(), expected, "stored {stored}");
			}
		});
	}

	/// The threshold bounds bracket what was measured on each family's example (honest
	/// replays and copies, `scripts/bench/threshold-tail.sh`), and root moves them; where
	/// it sets a ceiling under its floor, the floor wins.
	#[test]
	fn the_threshold_bounds_are_governance_parameters_per_family() {
		use pallet_gensyn_tasks::ModelFamily::{Convolutional, Dense};
		sp_io::TestExternalities::new(Default::default()).execute_with(|| {
			let bounded = |family, t: f32| {
				let bits =
					pallet_gensyn_tasks::Pallet::<Runtime>::bounded_threshold(family, t.to_bits());
				f32::from_bits(bits)
			};
			// The MLP: honest at most 8.3e-3, profiles 1.5e-5; copies at least 0.13.
			assert_eq!((bounded(Dense, 1.45e-5), bounded(Dense, 8.3e-3)), (0.01, 0.01));
			assert_eq!((bounded(Dense, 0.13), bounded(Dense, 1.49)), (0.1, 0.1));
			// The CNN: honest at most 6.9e-4, profiles 2.3e-6; whole-segment copies at
			// least 0.093.
			assert_eq!(
				(bounded(Convolutional, 2.3e-6), bounded(Convolutional, 6.9e-4)),
				(1e-3, 1e-3)
			);
			assert_eq!(bounded(Convolutional, 0.093), 0.01);
			let set = |p: tasks::Parameters| {
				Parameters::set_parameter(RuntimeOrigin::root(), RuntimeParameters::Tasks(p))
					.expect("root sets it");
			};
			set(tasks::Parameters::DenseMinThreshold(
				tasks::DenseMinThreshold,
				Some(1e-3f32.to_bits()),
			));
			set(tasks::Parameters::DenseMaxThreshold(
				tasks::DenseMaxThreshold,
				Some(2.0f32.to_bits()),
			));
			assert_eq!(
				(bounded(Dense, 1.45e-5), bounded(Dense, 1.49), bounded(Dense, 3.0)),
				(1e-3, 1.49, 2.0)
			);
			set(tasks::Parameters::DenseMaxThreshold(
				tasks::DenseMaxThreshold,
				Some(1e-4f32.to_bits()),
			));
			assert_eq!(bounded(Dense, 1.0), 1e-3, "the floor wins");
			assert_eq!(bounded(Convolutional, 1.0), 0.01, "each family its own");
		});
	}
}
