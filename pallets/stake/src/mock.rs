//! A mock runtime: System, Balances, Stake.

use crate as pallet_gensyn_stake;
use frame_support::{derive_impl, parameter_types, traits::ConstU32};
use sp_runtime::{BuildStorage, Perbill};

type Block = frame_system::mocking::MockBlock<Test>;

frame_support::construct_runtime!(
	pub enum Test {
		System: frame_system,
		Balances: pallet_balances,
		Stake: pallet_gensyn_stake,
	}
);

#[derive_impl(frame_system::config_preludes::TestDefaultConfig)]
impl frame_system::Config for Test {
	type Block = Block;
	type AccountData = pallet_balances::AccountData<u64>;
}

#[derive_impl(pallet_balances::config_preludes::TestDefaultConfig)]
impl pallet_balances::Config for Test {
	type AccountStore = System;
	type ExistentialDeposit = frame_support::traits::ConstU64<1>;
	type RuntimeHoldReason = RuntimeHoldReason;
}

/// The jackpot account of the mock.
pub const JACKPOT: u64 = 99;
/// An account with no funds.
pub const POOR: u64 = 50;

parameter_types! {
	pub const Jackpot: u64 = JACKPOT;
	pub const ReporterShare: Perbill = Perbill::from_percent(50);
	pub const JackpotShare: Perbill = Perbill::from_percent(30);
}

impl pallet_gensyn_stake::Config for Test {
	type Currency = Balances;
	type RuntimeHoldReason = RuntimeHoldReason;
	type MinSolverBond = frame_support::traits::ConstU64<100>;
	type MinVerifierBond = frame_support::traits::ConstU64<50>;
	type MinWhistleblowerBond = frame_support::traits::ConstU64<20>;
	type UnbondingDelay = frame_support::traits::ConstU64<10>;
	type MaxEndpointLen = ConstU32<64>;
	type MaxActivePerRole = ConstU32<4>;
	type ReporterShare = ReporterShare;
	type JackpotShare = JackpotShare;
	type JackpotAccount = Jackpot;
	type WeightInfo = ();
}

/// Accounts 1..=8 hold 1_000 each; the jackpot holds 1 (its existential deposit).
pub fn new_test_ext() -> sp_io::TestExternalities {
	let mut t = frame_system::GenesisConfig::<Test>::default().build_storage().unwrap();
	let mut balances: Vec<(u64, u64)> = (1..=8).map(|a| (a, 1_000)).collect();
	balances.push((JACKPOT, 1));
	pallet_balances::GenesisConfig::<Test> { balances, ..Default::default() }
		.assimilate_storage(&mut t)
		.unwrap();
	let mut ext = sp_io::TestExternalities::new(t);
	ext.execute_with(|| System::set_block_number(1));
	ext
}
