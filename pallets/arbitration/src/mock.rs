//! A mock runtime: System, Balances, Arbitration, with the tasks pallet replaced by a
//! table of dispute contexts and a log of outcomes.

use crate as pallet_gensyn_arbitration;
use core::cell::RefCell;
use frame_support::{
	derive_impl,
	traits::{ConstU32, ConstU64},
};
use pallet_gensyn_tasks::{DisputeContext, DisputeOutcome, DisputeSubjects, TaskId};
use sp_runtime::{BuildStorage, DispatchResult};
use std::collections::BTreeMap;

type Block = frame_system::mocking::MockBlock<Test>;

frame_support::construct_runtime!(
	pub enum Test {
		System: frame_system,
		Balances: pallet_balances,
		Arbitration: pallet_gensyn_arbitration,
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

thread_local! {
	/// Dispute contexts the fake tasks pallet serves.
	pub static CONTEXTS: RefCell<BTreeMap<(TaskId, u32), DisputeContext>> =
		const { RefCell::new(BTreeMap::new()) };
	/// Outcomes the fake tasks pallet heard: (task, segment, challenger won).
	pub static OUTCOMES: RefCell<Vec<(TaskId, u32, bool)>> = const { RefCell::new(Vec::new()) };
	/// Whether the fake tasks pallet refuses outcomes after writing (it burns
	/// [`REFUSED_BURN`] from account 4 first, as a slash would be written).
	pub static REFUSE_OUTCOME: RefCell<bool> = const { RefCell::new(false) };
}

/// What a refusing fake tasks pallet burns before it refuses.
pub const REFUSED_BURN: u64 = 7;

/// Serves [`CONTEXTS`].
pub struct Subjects;
impl DisputeSubjects for Subjects {
	fn context(task: TaskId, segment: u32) -> Option<DisputeContext> {
		CONTEXTS.with(|c| c.borrow().get(&(task, segment)).cloned())
	}
}

/// Records into [`OUTCOMES`].
pub struct Outcomes;
impl DisputeOutcome for Outcomes {
	fn resolve(task: TaskId, segment: u32, challenger_won: bool) -> DispatchResult {
		if REFUSE_OUTCOME.with(|r| *r.borrow()) {
			use frame_support::traits::fungible::Mutate;
			let _ = Balances::burn_from(
				&4,
				REFUSED_BURN,
				frame_support::traits::tokens::Preservation::Expendable,
				frame_support::traits::tokens::Precision::Exact,
				frame_support::traits::tokens::Fortitude::Force,
			);
			return Err(sp_runtime::DispatchError::Other("refused"));
		}
		OUTCOMES.with(|o| o.borrow_mut().push((task, segment, challenger_won)));
		Ok(())
	}
}

/// Blocks per move.
pub const TIMEOUT: u64 = 10;
/// The game bond.
pub const BOND: u64 = 50;

impl pallet_gensyn_arbitration::Config for Test {
	type Currency = Balances;
	type RuntimeHoldReason = RuntimeHoldReason;
	type Subjects = Subjects;
	type Outcome = Outcomes;
	type MoveTimeout = ConstU64<TIMEOUT>;
	type GameBond = ConstU64<BOND>;
	type MaxTensors = ConstU32<256>;
	type MaxDataSamples = ConstU32<100_000>;
	type MaxSegmentGas = ConstU64<10_000_000_000>;
	type MaxSegmentBytes = ConstU64<{ 1 << 30 }>;
	type MaxDeadlinesPerBlock = ConstU32<4>;
	type WeightInfo = ();
	#[cfg(feature = "runtime-benchmarks")]
	type BenchmarkHelper = Subjects;
}

#[cfg(feature = "runtime-benchmarks")]
impl pallet_gensyn_arbitration::BenchmarkHelper for Subjects {
	fn install(task: TaskId, segment: u32, ctx: DisputeContext) {
		CONTEXTS.with(|c| c.borrow_mut().insert((task, segment), ctx));
	}
}

/// Accounts 1..=4 hold 1_000 each.
pub fn new_test_ext() -> sp_io::TestExternalities {
	CONTEXTS.with(|c| c.borrow_mut().clear());
	OUTCOMES.with(|o| o.borrow_mut().clear());
	REFUSE_OUTCOME.with(|r| *r.borrow_mut() = false);
	let mut t = frame_system::GenesisConfig::<Test>::default().build_storage().unwrap();
	pallet_balances::GenesisConfig::<Test> {
		balances: (1..=4).map(|a| (a, 1_000)).collect(),
		..Default::default()
	}
	.assimilate_storage(&mut t)
	.unwrap();
	let mut ext = sp_io::TestExternalities::new(t);
	ext.execute_with(|| System::set_block_number(1));
	ext
}
