//! pallet-gensyn-stake: role bonds (solver, verifier, whistleblower), capability claims,
//! unbonding and slashing.

use crate::{AccountId, Balances, Runtime, RuntimeHoldReason, DAYS, UNIT};
use frame_support::{
	parameter_types,
	traits::{ConstU128, ConstU32},
	PalletId,
};
use sp_runtime::{traits::AccountIdConversion, Perbill};

parameter_types! {
	/// The jackpot's pot: funded by fee cuts and slash shares, pays caught forced errors.
	pub JackpotAccount: AccountId = PalletId(*b"gsn/jkpt").into_account_truncating();
	/// Share of a slash paid to whoever proved the fault.
	pub const ReporterShare: Perbill = Perbill::from_percent(50);
	/// Share of a slash sent to the jackpot; the rest is burnt.
	pub const JackpotShare: Perbill = Perbill::from_percent(30);
}

impl pallet_gensyn_stake::Config for Runtime {
	type Currency = Balances;
	type RuntimeHoldReason = RuntimeHoldReason;
	// A solver's bond must cover the slash for a rejected proof.
	type MinSolverBond = ConstU128<{ 100 * UNIT }>;
	type MinVerifierBond = ConstU128<{ 50 * UNIT }>;
	type MinWhistleblowerBond = ConstU128<{ 20 * UNIT }>;
	type UnbondingDelay = ConstU32<DAYS>;
	type MaxEndpointLen = ConstU32<256>;
	type MaxActivePerRole = ConstU32<1024>;
	type ReporterShare = ReporterShare;
	type JackpotShare = JackpotShare;
	type JackpotAccount = JackpotAccount;
	type WeightInfo = pallet_gensyn_stake::weights::SubstrateWeight<Runtime>;
}

#[cfg(test)]
mod tests {
	use super::*;
	use frame_support::traits::Get;

	/// The weights count an active list as long as the runtime lets it grow.
	#[test]
	fn the_weights_cover_a_full_active_list() {
		let most: u32 = <Runtime as pallet_gensyn_stake::Config>::MaxActivePerRole::get();
		assert!(u64::from(most) <= pallet_gensyn_stake::weights::WEIGHED_ACTIVE);
	}
}
