//! A mock runtime: System, Balances, Stake, Jackpot.

use crate as pallet_gensyn_jackpot;
use core::cell::RefCell;
use frame_support::{
	derive_impl, parameter_types,
	traits::{ConstU32, ConstU64},
};
use sp_runtime::{BuildStorage, Perbill};

type Block = frame_system::mocking::MockBlock<Test>;

frame_support::construct_runtime!(
	pub enum Test {
		System: frame_system,
		Balances: pallet_balances,
		Stake: pallet_gensyn_stake,
		Jackpot: pallet_gensyn_jackpot,
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
	type ExistentialDeposit = ConstU64<1>;
	type RuntimeHoldReason = RuntimeHoldReason;
}

/// The pot.
pub const POT: u64 = 99;

thread_local! {
	/// The forced-error rate, settable per test.
	pub static RATE: RefCell<Perbill> = const { RefCell::new(Perbill::from_percent(50)) };
}

/// Reads [`RATE`].
pub struct Rate;
impl frame_support::traits::Get<Perbill> for Rate {
	fn get() -> Perbill {
		RATE.with(|r| *r.borrow())
	}
}

parameter_types! {
	pub const Pot: u64 = POT;
	pub const Half: Perbill = Perbill::from_percent(50);
	pub const CatchShare: Perbill = Perbill::from_percent(10);
}

impl pallet_gensyn_stake::Config for Test {
	type Currency = Balances;
	type RuntimeHoldReason = RuntimeHoldReason;
	type MinSolverBond = ConstU64<100>;
	type MinVerifierBond = ConstU64<50>;
	type MinWhistleblowerBond = ConstU64<20>;
	type UnbondingDelay = ConstU64<10>;
	type MaxEndpointLen = ConstU32<64>;
	type MaxActivePerRole = ConstU32<8>;
	type ReporterShare = Half;
	type JackpotShare = Half;
	type JackpotAccount = Pot;
	type WeightInfo = ();
}

impl pallet_gensyn_jackpot::Config for Test {
	type Currency = Balances;
	type Stake = Stake;
	type PotAccount = Pot;
	type ForcedErrorRate = Rate;
	type CatchShare = CatchShare;
	type MaxCatch = ConstU64<500>;
	type OnReveal = ();
	type CommitmentAge = ConstU64<AGE>;
	type WeightInfo = ();
}

/// Blocks a commitment stands before it may be drawn.
pub const AGE: u64 = 3;

/// Accounts 1..=8 hold 1_000; the pot holds 10_001.
pub fn new_test_ext() -> sp_io::TestExternalities {
	RATE.with(|r| *r.borrow_mut() = Perbill::from_percent(50));
	let mut t = frame_system::GenesisConfig::<Test>::default().build_storage().unwrap();
	let mut balances: Vec<(u64, u64)> = (1..=8).map(|a| (a, 1_000)).collect();
	balances.push((POT, 10_001));
	pallet_balances::GenesisConfig::<Test> { balances, ..Default::default() }
		.assimilate_storage(&mut t)
		.unwrap();
	let mut ext = sp_io::TestExternalities::new(t);
	ext.execute_with(|| System::set_block_number(1));
	ext
}
