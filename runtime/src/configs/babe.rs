//! pallet-babe: slots, epochs, VRF randomness, equivocation reports.

use crate::{
	Historical, Offences, Runtime, Session, EPOCH_DURATION_IN_SLOTS, MILLI_SECS_PER_BLOCK,
};
use frame_support::{parameter_types, traits::ConstU32};

parameter_types! {
	/// Slots per epoch (= per session).
	pub const EpochDuration: u64 = EPOCH_DURATION_IN_SLOTS;
	/// Expected milliseconds between blocks.
	pub const ExpectedBlockTime: u64 = MILLI_SECS_PER_BLOCK;
	/// Equivocation reports are accepted while the offender's stake can still be slashed.
	pub ReportLongevity: u64 = super::BondingDuration::get() as u64 *
		super::SessionsPerEra::get() as u64 * EpochDuration::get();
}

impl pallet_babe::Config for Runtime {
	type EpochDuration = EpochDuration;
	type ExpectedBlockTime = ExpectedBlockTime;
	type EpochChangeTrigger = pallet_babe::ExternalTrigger;
	type DisabledValidators = Session;
	type WeightInfo = ();
	type MaxAuthorities = ConstU32<{ super::staking::MAX_VALIDATORS }>;
	type MaxNominators = ConstU32<{ super::staking::MAX_NOMINATORS_PER_VALIDATOR }>;
	type KeyOwnerProof = sp_session::MembershipProof;
	type EquivocationReportSystem =
		pallet_babe::EquivocationReportSystem<Self, Offences, Historical, ReportLongevity>;
}
