//! A mock runtime: System, Balances, Stake, Tasks, with a test randomness source and a
//! test arbiter that records opened disputes.

use crate as pallet_gensyn_tasks;
use codec::Encode;
use core::cell::RefCell;
use frame_support::{
	derive_impl, parameter_types,
	traits::{ConstU32, ConstU64, Randomness},
};
use sp_core::H256;
use sp_runtime::{BuildStorage, DispatchResult, Perbill};

type Block = frame_system::mocking::MockBlock<Test>;

frame_support::construct_runtime!(
	pub enum Test {
		System: frame_system,
		Balances: pallet_balances,
		Stake: pallet_gensyn_stake,
		TaskPallet: pallet_gensyn_tasks,
		JackpotPallet: pallet_gensyn_jackpot,
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

/// The jackpot account.
pub const JACKPOT: u64 = 99;
/// The treasury account.
pub const TREASURY: u64 = 98;
/// Funded accounts are `1..=ACCOUNTS`.
pub const ACCOUNTS: u64 = 20;
/// What each funded account starts with.
pub const START: u64 = 1_000_000;

parameter_types! {
	pub const Jackpot: u64 = JACKPOT;
	pub const Treasury: u64 = TREASURY;
	pub const ReporterShare: Perbill = Perbill::from_percent(50);
	pub const JackpotShare: Perbill = Perbill::from_percent(30);
	pub const JackpotCut: Perbill = Perbill::from_percent(5);
	pub const TreasuryCut: Perbill = Perbill::from_percent(2);
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
	type ReporterShare = ReporterShare;
	type JackpotShare = JackpotShare;
	type JackpotAccount = Jackpot;
	type WeightInfo = ();
}

thread_local! {
	/// Mixed into the randomness, so tests can steer draws.
	pub static SALT: RefCell<u64> = const { RefCell::new(0) };
	/// Blocks whose randomness a test sets: what their author's VRF output would make
	/// it (zero: a block without randomness).
	pub static AUTHORED: RefCell<Vec<(u64, [u8; 32])>> = const { RefCell::new(Vec::new()) };
	/// The randomness delay (2 unless a test sets it).
	pub static DELAY: RefCell<u64> = const { RefCell::new(2) };
	/// The challenge period [`ChallengePeriod`] reads (a test may shorten it mid-flight).
	pub static PERIOD: RefCell<u64> = const { RefCell::new(5) };
	/// The largest state a demand may ask for, which [`MaxPublishBytes`] reads (a test
	/// may lower it under a task submitted before, as an upgrade could).
	pub static PUBLISH_BYTES: RefCell<u64> = const { RefCell::new(1 << 20) };
	/// Disputes the test arbiter has open: `(task, segment, challenger, defendant)`.
	pub static DISPUTES: RefCell<Vec<(u64, u32, u64, u64)>> = const { RefCell::new(Vec::new()) };
	/// Disputes the test arbiter opened with no game bond: `(task, segment)`.
	pub static STAKED: RefCell<Vec<(u64, u32)>> = const { RefCell::new(Vec::new()) };
	/// Whether the test arbiter refuses to open disputes.
	pub static REFUSE: RefCell<bool> = const { RefCell::new(false) };
	/// The checkpoint whose off-task proof the test arbiter accepts (none: no proof).
	pub static OFF_TASK_INDEX: RefCell<Option<u32>> = const { RefCell::new(None) };
	/// Whether forced errors go through the real jackpot pallet (else: none).
	pub static REAL_JACKPOT: RefCell<bool> = const { RefCell::new(false) };
	/// The profiling period (0: profiling off).
	pub static PROFILE: RefCell<u64> = const { RefCell::new(0) };
	/// The forced-error rate of the jackpot.
	pub static RATE: RefCell<Perbill> = const { RefCell::new(Perbill::zero()) };
	/// The solver pay a bond unit stands for (so large that every task counts one
	/// unless a test lowers it).
	pub static UNIT_PAY: RefCell<u64> = const { RefCell::new(u64::MAX) };
}

/// [`UNIT_PAY`] as the pallet reads it.
pub struct PayPerBondUnit;
impl frame_support::traits::Get<u64> for PayPerBondUnit {
	fn get() -> u64 {
		UNIT_PAY.with(|u| *u.borrow())
	}
}

/// Has a task count one bond unit per `pay` of its solver's pay from now on.
pub fn set_pay_per_bond_unit(pay: u64) {
	UNIT_PAY.with(|u| *u.borrow_mut() = pay);
}

/// Randomness of the parent block: a hash of the subject, the block and [`SALT`],
/// known since the previous block; or a hash of the subject and what [`AUTHORED`] sets
/// for the block (none where that is zero).
pub struct TestRandomness;
impl Randomness<H256, u64> for TestRandomness {
	fn random(subject: &[u8]) -> (H256, u64) {
		let b = System::block_number();
		let salt = SALT.with(|s| *s.borrow());
		let authored = AUTHORED.with(|a| a.borrow().iter().find(|(at, _)| *at == b).map(|x| x.1));
		let h = match authored {
			Some(vrf) if vrf == [0; 32] => H256::zero(),
			Some(vrf) => H256(sp_io::hashing::blake2_256(&(subject, vrf).encode())),
			None => H256(sp_io::hashing::blake2_256(&(subject, b, salt).encode())),
		};
		(h, b.saturating_sub(1))
	}
}

/// Most samples the test arbiter rules on.
pub const MAX_DISPUTABLE_SAMPLES: u32 = 100_000;

/// A test arbiter: records disputes; tests rule with `Tasks::resolve`.
pub struct TestArbiter;
impl crate::DisputeArbiter<u64> for TestArbiter {
	fn open(task: u64, segment: u32, challenger: &u64, defendant: &u64) -> DispatchResult {
		if REFUSE.with(|r| *r.borrow()) {
			return Err(sp_runtime::DispatchError::Other("refused"));
		}
		DISPUTES.with(|d| d.borrow_mut().push((task, segment, *challenger, *defendant)));
		Ok(())
	}
	fn open_staked(task: u64, segment: u32, challenger: &u64, defendant: &u64) -> DispatchResult {
		STAKED.with(|s| s.borrow_mut().push((task, segment)));
		Self::open(task, segment, challenger, defendant)
	}
	fn cancel(task: u64, segment: u32) {
		DISPUTES.with(|d| d.borrow_mut().retain(|x| !(x.0 == task && x.1 == segment)));
	}
	fn rules_on(spec: &gensyn_primitives::TaskSpec) -> bool {
		spec.data.samples <= MAX_DISPUTABLE_SAMPLES
	}
	fn off_task(
		_: &gensyn_primitives::TaskSpec,
		_: &crate::Hash32,
		_: u32,
		proof: &crate::OffTaskProof,
	) -> bool {
		OFF_TASK_INDEX.with(|i| *i.borrow() == Some(proof.index))
	}
}

/// Reads [`PUBLISH_BYTES`].
pub struct MaxPublishBytes;
impl frame_support::traits::Get<u64> for MaxPublishBytes {
	fn get() -> u64 {
		PUBLISH_BYTES.with(|r| *r.borrow())
	}
}

/// Reads [`PERIOD`].
pub struct ChallengePeriod;
impl frame_support::traits::Get<u64> for ChallengePeriod {
	fn get() -> u64 {
		PERIOD.with(|r| *r.borrow())
	}
}

/// A test watch lottery: an account's score for a seed is a hash of both, and its
/// ticket is that score (a test knows every account's; a runtime's VRF keeps each one
/// secret to its key's holder).
pub struct TestLottery;
impl crate::WatchLottery<u64> for TestLottery {
	type Ticket = u64;
	fn score(who: &u64, seed: &crate::Hash32, ticket: &u64) -> Option<u64> {
		(*ticket == score(*who, seed)).then_some(*ticket)
	}
}

/// `who`'s test lottery score for `seed`.
pub fn score(who: u64, seed: &crate::Hash32) -> u64 {
	let h = sp_io::hashing::blake2_256(&(who, seed).encode());
	u64::from_le_bytes([h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7]])
}

/// `who`'s ticket for task `id`'s watch lottery (whether or not it wins).
pub fn ticket(who: u64, id: u64) -> u64 {
	crate::Watches::<Test>::get(id).map(|d| score(who, &d.seed)).unwrap_or_default()
}

/// Reads [`DELAY`].
pub struct RandomnessDelay;
impl frame_support::traits::Get<u64> for RandomnessDelay {
	fn get() -> u64 {
		DELAY.with(|r| *r.borrow())
	}
}

/// Reads [`PROFILE`].
pub struct ProfilePeriod;
impl frame_support::traits::Get<u64> for ProfilePeriod {
	fn get() -> u64 {
		PROFILE.with(|r| *r.borrow())
	}
}

/// Reads [`RATE`].
pub struct Rate;
impl frame_support::traits::Get<Perbill> for Rate {
	fn get() -> Perbill {
		RATE.with(|r| *r.borrow())
	}
}

impl pallet_gensyn_jackpot::Config for Test {
	type Currency = Balances;
	type Stake = Stake;
	type PotAccount = Jackpot;
	type ForcedErrorRate = Rate;
	type CatchShare = CatchShare;
	type MaxCatch = ConstU64<1_000>;
	type OnReveal = TaskPallet;
	type CommitmentAge = RandomnessDelay;
	type WeightInfo = ();
}

/// The real jackpot when [`REAL_JACKPOT`] is set, else no forced errors.
pub struct Switch;
impl pallet_gensyn_jackpot::ForcedErrors<u64, u64> for Switch {
	fn has_commitment(who: &u64) -> bool {
		if REAL_JACKPOT.with(|r| *r.borrow()) {
			<JackpotPallet as pallet_gensyn_jackpot::ForcedErrors<u64, u64>>::has_commitment(who)
		} else {
			true
		}
	}
	fn drawable(who: &u64) -> bool {
		if REAL_JACKPOT.with(|r| *r.borrow()) {
			<JackpotPallet as pallet_gensyn_jackpot::ForcedErrors<u64, u64>>::drawable(who)
		} else {
			true
		}
	}
	fn bind(who: &u64, task: u64, seed: [u8; 32]) -> bool {
		if REAL_JACKPOT.with(|r| *r.borrow()) {
			<JackpotPallet as pallet_gensyn_jackpot::ForcedErrors<u64, u64>>::bind(who, task, seed)
		} else {
			true
		}
	}
	fn forced(who: &u64, task: u64, segment: u32) -> Option<bool> {
		if REAL_JACKPOT.with(|r| *r.borrow()) {
			<JackpotPallet as pallet_gensyn_jackpot::ForcedErrors<u64, u64>>::forced(
				who, task, segment,
			)
		} else {
			Some(false)
		}
	}
	fn pay_catch(to: &u64) -> u64 {
		<JackpotPallet as pallet_gensyn_jackpot::ForcedErrors<u64, u64>>::pay_catch(to)
	}
	fn release(who: &u64, task: u64) {
		<JackpotPallet as pallet_gensyn_jackpot::ForcedErrors<u64, u64>>::release(who, task)
	}
}

impl pallet_gensyn_tasks::Config for Test {
	type Currency = Balances;
	type RuntimeHoldReason = RuntimeHoldReason;
	type Stake = Stake;
	type Randomness = TestRandomness;
	type Arbiter = TestArbiter;
	type ForcedErrors = Switch;
	type Lottery = TestLottery;
	type WatchersPerRound = ConstU32<1>;
	type PricePerMegagas = ConstU64<2>;
	type VerifyPricePerMegagas = ConstU64<3>;
	type JackpotCut = JackpotCut;
	type TreasuryCut = TreasuryCut;
	type JackpotAccount = Jackpot;
	type TreasuryAccount = Treasury;
	type AcceptPeriod = ConstU64<5>;
	type RetryPeriod = ConstU64<3>;
	type ProfilePeriod = ProfilePeriod;
	type ProfileRevealPeriod = ConstU64<3>;
	type MaxDraws = ConstU32<4>;
	type MaxExcluded = ConstU32<3>;
	type MaxRounds = ConstU32<2>;
	type BlockSeconds = ConstU32<6>;
	type TrainingSlack = ConstU32<2>;
	type MinTrainingPeriod = ConstU64<10>;
	type MaxTrainingPeriod = ConstU64<100>;
	type RandomnessDelay = RandomnessDelay;
	type VerifyPeriod = ConstU64<10>;
	type ChallengePeriod = ChallengePeriod;
	type DisputeTimeout = ConstU64<20>;
	type VerifiersPerTask = ConstU32<2>;
	type MaxAuditSegments = ConstU32<4>;
	type MaxReaudits = ConstU32<2>;
	type MaxEngaged = ConstU32<12>;
	type MaxDeadlinesPerBlock = ConstU32<3>;
	type MaxLocationLen = ConstU32<64>;
	type MissedAcceptSlash = ConstU64<10>;
	type MissedResultSlash = ConstU64<50>;
	type RejectedProofSlash = ConstU64<100>;
	type OffTaskBounty = ConstU64<10>;
	type MissedVerdictSlash = ConstU64<20>;
	type WrongVerdictSlash = ConstU64<30>;
	type PayPerBondUnit = PayPerBondUnit;
	type FalseChallengeSlash = ConstU64<10>;
	type MissedRevealSlash = ConstU64<40>;
	type DefaultThreshold = ConstU32<0x3f80_0000>;
	type ThresholdBounds = TestBounds;
	type PublishPeriod = ConstU64<8>;
	type DemandFeePerMiB = ConstU64<1>;
	type MaxPublishBytes = MaxPublishBytes;
	type WeightInfo = ();
	#[cfg(feature = "runtime-benchmarks")]
	type BenchmarkHelper = TestLottery;
}

/// The test lottery's tickets are scores anyone can compute, and the test arbiter takes
/// the off-task proof it is told to.
#[cfg(feature = "runtime-benchmarks")]
impl crate::BenchmarkHelper<u64, u64> for TestLottery {
	fn watch_ticket() -> Option<(u64, crate::Hash32, u64)> {
		let who: u64 = frame_benchmarking::account("watcher", 0, 0);
		Some((who, [5; 32], score(who, &[5; 32])))
	}
	fn accept_off_task(index: u32) {
		OFF_TASK_INDEX.with(|i| *i.borrow_mut() = Some(index));
	}
}

/// The mock's switches, set together when the externalities are built: a test states
/// what differs from the default (no salt, no profiling, no forced errors) and nothing
/// is left over from the test before on the same thread.
#[derive(Default)]
pub struct ExtBuilder {
	salt: u64,
	profile: u64,
	jackpot: Option<Perbill>,
}

impl ExtBuilder {
	/// Mixes `salt` into the randomness, steering draws.
	pub fn salt(mut self, salt: u64) -> Self {
		self.salt = salt;
		self
	}

	/// Turns Threshold-mode profiling on with a period of `blocks`.
	pub fn profile(mut self, blocks: u64) -> Self {
		self.profile = blocks;
		self
	}

	/// Routes forced errors through the real jackpot pallet at `rate`.
	pub fn jackpot(mut self, rate: Perbill) -> Self {
		self.jackpot = Some(rate);
		self
	}

	/// Accounts `1..=ACCOUNTS` hold `START`; jackpot and treasury hold their existential
	/// deposit; the chain is at block 1.
	pub fn build(self) -> sp_io::TestExternalities {
		SALT.with(|s| *s.borrow_mut() = self.salt);
		AUTHORED.with(|a| a.borrow_mut().clear());
		DELAY.with(|d| *d.borrow_mut() = 2);
		PERIOD.with(|d| *d.borrow_mut() = 5);
		PUBLISH_BYTES.with(|b| *b.borrow_mut() = 1 << 20);
		DISPUTES.with(|d| d.borrow_mut().clear());
		REFUSE.with(|r| *r.borrow_mut() = false);
		OFF_TASK_INDEX.with(|r| *r.borrow_mut() = None);
		REAL_JACKPOT.with(|r| *r.borrow_mut() = self.jackpot.is_some());
		PROFILE.with(|r| *r.borrow_mut() = self.profile);
		RATE.with(|r| *r.borrow_mut() = self.jackpot.unwrap_or_else(Perbill::zero));
		UNIT_PAY.with(|u| *u.borrow_mut() = u64::MAX);
		let mut t = frame_system::GenesisConfig::<Test>::default().build_storage().unwrap();
		let mut balances: Vec<(u64, u64)> = (1..=ACCOUNTS).map(|a| (a, START)).collect();
		balances.push((JACKPOT, 1));
		balances.push((TREASURY, 1));
		pallet_balances::GenesisConfig::<Test> { balances, ..Default::default() }
			.assimilate_storage(&mut t)
			.unwrap();
		let mut ext = sp_io::TestExternalities::new(t);
		ext.execute_with(|| System::set_block_number(1));
		ext
	}
}

/// The default externalities ([`ExtBuilder::build`]).
pub fn new_test_ext() -> sp_io::TestExternalities {
	ExtBuilder::default().build()
}

/// Routes forced errors through the real jackpot at `rate` from now on (for a test that
/// turns them on part-way).
pub fn use_jackpot(rate: Perbill) {
	REAL_JACKPOT.with(|r| *r.borrow_mut() = true);
	RATE.with(|r| *r.borrow_mut() = rate);
}

/// [`new_test_ext`] with Threshold-mode profiling on (100 blocks), for the benchmarks.
#[cfg(feature = "runtime-benchmarks")]
pub fn new_bench_ext() -> sp_io::TestExternalities {
	ExtBuilder::default().profile(100).build()
}

/// 0.1 to 10.0, around the thresholds the tests' profilers post.
pub struct TestBounds;

impl crate::ThresholdBounds for TestBounds {
	fn bounds() -> (u32, u32) {
		(0.1f32.to_bits(), 10.0f32.to_bits())
	}
}
