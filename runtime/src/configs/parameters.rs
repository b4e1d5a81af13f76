//! pallet-parameters: the protocol parameters that governance may change without a
//! runtime upgrade. Root sets one with `parameters.set_parameter`, which emits
//! `parameters.Updated` (old and new value); a key never set reads its default, below.
//! The pallets read them through `Get`, so none is a metadata constant.

use crate::{AccountId, BlockNumber, Runtime, RuntimeEvent, HOURS, MINUTES};
use frame_support::{
	dynamic_params::{dynamic_pallet_params, dynamic_params},
	traits::AsEnsureOriginWithArg,
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

impl pallet_parameters::Config for Runtime {
	type RuntimeEvent = RuntimeEvent;
	type RuntimeParameters = RuntimeParameters;
	// Root only: on a production chain, the origin governance dispatches from.
	type AdminOrigin = AsEnsureOriginWithArg<EnsureRoot<AccountId>>;
	// The pallet's own weights, measured upstream on reference hardware.
	type WeightInfo = ();
}
