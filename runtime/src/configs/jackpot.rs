//! pallet-gensyn-jackpot: the pot and Truebit-style forced errors.

use super::stake::JackpotAccount;
use crate::{Balances, Runtime, Stake, Tasks, UNIT};
use frame_support::{parameter_types, traits::ConstU128};
use sp_runtime::Perbill;

parameter_types! {
	/// Share of audited segments a verifier must deliberately get wrong: 1% by default,
	/// kept under the well-known key `twox_128(":ForcedErrorRate:")` so that a
	/// development or test chain can raise it through sudo (scripts/js/dev-timing.js)
	/// and see forced errors caught. Verifiers read it when they replay and the chain
	/// when it judges, so change it only while no task is being verified.
	pub storage ForcedErrorRate: Perbill = Perbill::from_percent(1);
	/// Share of the pot paid for catching a forced error (capped by `MaxCatch`).
	pub const CatchShare: Perbill = Perbill::from_percent(10);
}

impl pallet_gensyn_jackpot::Config for Runtime {
	type Currency = Balances;
	type Stake = Stake;
	type PotAccount = JackpotAccount;
	type ForcedErrorRate = ForcedErrorRate;
	type CatchShare = CatchShare;
	type MaxCatch = ConstU128<{ 100 * UNIT }>;
	type OnReveal = Tasks;
	type WeightInfo = pallet_gensyn_jackpot::weights::SubstrateWeight<Runtime>;
}
