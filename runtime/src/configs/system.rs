//! frame-system: accounts, block limits, the extrinsic format.

use crate::{
	AccountId, Block, Hash, Nonce, PalletInfo, Runtime, RuntimeCall, RuntimeEvent, RuntimeOrigin,
	RuntimeTask, RuntimeVersion, VERSION,
};
use frame_support::{
	derive_impl, parameter_types,
	traits::ConstU32,
	weights::{constants::ParityDbWeight, Weight},
};
use sp_runtime::Perbill;

/// Share of a block that normal (non-operational) extrinsics may fill.
const NORMAL_DISPATCH_RATIO: Perbill = Perbill::from_percent(75);
/// Largest block, in bytes.
const MAX_BLOCK_LENGTH: u32 = 5 * 1024 * 1024;

parameter_types! {
	/// Block hashes kept for mortal-transaction checks (two hours of blocks).
	pub const BlockHashCount: u32 = 2 * crate::HOURS;
	/// The runtime version.
	pub const Version: RuntimeVersion = VERSION;
	/// One second of compute per 3-second block.
	pub BlockWeights: frame_system::limits::BlockWeights =
		frame_system::limits::BlockWeights::with_sensible_defaults(
			Weight::from_parts(frame_support::weights::constants::WEIGHT_REF_TIME_PER_SECOND, 5 * 1024 * 1024),
			NORMAL_DISPATCH_RATIO,
		);
	/// At most 5 MiB of extrinsics per block; normal extrinsics may fill 75% of it.
	pub BlockLength: frame_system::limits::BlockLength = frame_system::limits::BlockLength::builder()
		.max_length(MAX_BLOCK_LENGTH)
		.modify_max_length_for_class(frame_support::dispatch::DispatchClass::Normal, |max| {
			*max = NORMAL_DISPATCH_RATIO * MAX_BLOCK_LENGTH
		})
		.build();
	/// The generic Substrate SS58 prefix, so addresses read the same in polkadot.js.
	pub const SS58Prefix: u8 = 42;
}

#[derive_impl(frame_system::config_preludes::SolochainDefaultConfig)]
impl frame_system::Config for Runtime {
	type Block = Block;
	type BlockWeights = BlockWeights;
	type BlockLength = BlockLength;
	type AccountId = AccountId;
	type Nonce = Nonce;
	type Hash = Hash;
	type BlockHashCount = BlockHashCount;
	type DbWeight = ParityDbWeight;
	type Version = Version;
	type AccountData = pallet_balances::AccountData<crate::Balance>;
	type SS58Prefix = SS58Prefix;
	type MaxConsumers = ConstU32<16>;
}

impl<C> frame_system::offchain::CreateTransactionBase<C> for Runtime
where
	crate::RuntimeCall: From<C>,
{
	type Extrinsic = crate::UncheckedExtrinsic;
	type RuntimeCall = crate::RuntimeCall;
}

impl<C> frame_system::offchain::CreateBare<C> for Runtime
where
	crate::RuntimeCall: From<C>,
{
	fn create_bare(call: crate::RuntimeCall) -> crate::UncheckedExtrinsic {
		crate::UncheckedExtrinsic::new_bare(call)
	}
}
