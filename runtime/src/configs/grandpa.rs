//! pallet-grandpa: finality authorities and equivocation reports.

use crate::{Historical, Offences, Runtime, RuntimeEvent};
use frame_support::{parameter_types, traits::ConstU32};

parameter_types! {
	/// Set-id to session mappings kept for equivocation proofs.
	pub MaxSetIdSessionEntries: u64 =
		super::BondingDuration::get() as u64 * super::SessionsPerEra::get() as u64;
}

impl pallet_grandpa::Config for Runtime {
	type RuntimeEvent = RuntimeEvent;
	type WeightInfo = ();
	type MaxAuthorities = ConstU32<{ super::staking::MAX_VALIDATORS }>;
	type MaxNominators = ConstU32<{ super::staking::MAX_NOMINATORS_PER_VALIDATOR }>;
	type MaxSetIdSessionEntries = MaxSetIdSessionEntries;
	type KeyOwnerProof = sp_session::MembershipProof;
	type EquivocationReportSystem = pallet_grandpa::EquivocationReportSystem<
		Self,
		Offences,
		Historical,
		super::babe::ReportLongevity,
	>;
}
