//! pallet-gensyn-jackpot: the pot and Truebit-style forced errors.

use super::stake::JackpotAccount;
use crate::{Balances, Runtime, Stake, Tasks, UNIT};
use frame_support::{parameter_types, traits::ConstU128};
use sp_runtime::Perbill;

parameter_types! {
	/// Share of the pot paid for catching a forced error (capped by `MaxCatch`).
	pub const CatchShare: Perbill = Perbill::from_percent(10);
}

impl pallet_gensyn_jackpot::Config for Runtime {
	type Currency = Balances;
	type Stake = Stake;
	type PotAccount = JackpotAccount;
	type ForcedErrorRate = super::dynamic_params::jackpot::ForcedErrorRate;
	type CatchShare = CatchShare;
	type MaxCatch = ConstU128<{ 100 * UNIT }>;
	type OnReveal = Tasks;
	// The draws' own delay (capped): the verifier draw's randomness then comes from
	// blocks made after every commitment it may bind.
	type CommitmentAge = super::parameters::CommitmentAge;
	type WeightInfo = pallet_gensyn_jackpot::weights::SubstrateWeight<Runtime>;
}

// A commitment's age spends at most a quarter of a task's verifier draws at their retries.
const _: () = assert!(
	4 * super::parameters::MAX_COMMITMENT_AGE <= 16 * crate::MINUTES,
	"a commitment must mature within a quarter of MaxDraws retry periods"
);
