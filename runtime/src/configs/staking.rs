//! pallet-staking: NPoS with a bounded on-chain sequential-Phragmén election.

use crate::{
	Balance, Balances, Runtime, RuntimeEvent, RuntimeHoldReason, Session, Timestamp,
	BONDING_DURATION, SESSIONS_PER_ERA, SLASH_DEFER_DURATION,
};
use frame_election_provider_support::{
	bounds::{ElectionBounds, ElectionBoundsBuilder},
	onchain, SequentialPhragmen,
};
use frame_support::{
	parameter_types,
	traits::{ConstBool, ConstU32, Nothing},
};
use sp_runtime::{curve::PiecewiseLinear, Perbill};

/// Most validators an election may seat (and BABE/GRANDPA authority sets may hold).
pub const MAX_VALIDATORS: u32 = 100;
/// Most nominators paid per validator page, and the bound BABE/GRANDPA use for reports.
pub const MAX_NOMINATORS_PER_VALIDATOR: u32 = 512;
/// Most voters (nominators and validators) read into one election snapshot.
pub const MAX_ELECTING_VOTERS: u32 = 10_000;
/// Most validator candidates read into one election snapshot.
pub const MAX_ELECTABLE_TARGETS: u32 = 2_000;

// Yearly inflation: 2.5% with no stake, rising to 10% at 50% staked, then falling.
pallet_staking_reward_curve::build! {
	const REWARD_CURVE: PiecewiseLinear<'static> = curve!(
		min_inflation: 0_025_000,
		max_inflation: 0_100_000,
		ideal_stake: 0_500_000,
		falloff: 0_050_000,
		max_piece_count: 40,
		test_precision: 0_005_000,
	);
}

parameter_types! {
	/// Sessions in one era.
	pub const SessionsPerEra: sp_staking::SessionIndex = SESSIONS_PER_ERA;
	/// Eras an unbonding stake stays locked and slashable.
	pub const BondingDuration: sp_staking::EraIndex = BONDING_DURATION;
	/// Eras before a slash is applied.
	pub const SlashDeferDuration: sp_staking::EraIndex = SLASH_DEFER_DURATION;
	/// The inflation curve.
	pub const RewardCurve: &'static PiecewiseLinear<'static> = &REWARD_CURVE;
	/// Snapshot bounds: the election never reads more than this many voters and targets.
	pub ElectionBoundsOnChain: ElectionBounds = ElectionBoundsBuilder::default()
		.voters_count(MAX_ELECTING_VOTERS.into())
		.targets_count(MAX_ELECTABLE_TARGETS.into())
		.build();
}

/// The on-chain election: sequential Phragmén over the bounded snapshot.
pub struct OnChainSeqPhragmen;

impl onchain::Config for OnChainSeqPhragmen {
	type Sort = ConstBool<true>;
	type System = Runtime;
	type Solver = SequentialPhragmen<crate::AccountId, Perbill>;
	type DataProvider = crate::Staking;
	type WeightInfo = frame_election_provider_support::weights::SubstrateWeight<Runtime>;
	type MaxWinnersPerPage = ConstU32<MAX_VALIDATORS>;
	type MaxBackersPerWinner = ConstU32<MAX_NOMINATORS_PER_VALIDATOR>;
	type Bounds = ElectionBoundsOnChain;
}

/// Sizes staking's benchmarks use.
pub struct StakingBenchmarkingConfig;

impl pallet_staking::BenchmarkingConfig for StakingBenchmarkingConfig {
	type MaxNominators = ConstU32<1_000>;
	type MaxValidators = ConstU32<MAX_VALIDATORS>;
}

impl pallet_staking::Config for Runtime {
	type OldCurrency = Balances;
	type Currency = Balances;
	type CurrencyBalance = Balance;
	type RuntimeHoldReason = RuntimeHoldReason;
	type UnixTime = Timestamp;
	type CurrencyToVote = sp_staking::currency_to_vote::U128CurrencyToVote;
	type ElectionProvider = onchain::OnChainExecution<OnChainSeqPhragmen>;
	type GenesisElectionProvider = onchain::OnChainExecution<OnChainSeqPhragmen>;
	type NominationsQuota = pallet_staking::FixedNominationsQuota<16>;
	type HistoryDepth = ConstU32<84>;
	// Unminted remainder of the era payout, slashed funds and rewards have no treasury
	// yet: the remainder is never minted and slashes are burnt.
	type RewardRemainder = ();
	type RuntimeEvent = RuntimeEvent;
	type Slash = ();
	type Reward = ();
	type SessionsPerEra = SessionsPerEra;
	type BondingDuration = BondingDuration;
	type SlashDeferDuration = SlashDeferDuration;
	type AdminOrigin = frame_system::EnsureRoot<crate::AccountId>;
	type SessionInterface = Self;
	type EraPayout = pallet_staking::ConvertCurve<RewardCurve>;
	type NextNewSession = Session;
	type MaxExposurePageSize = ConstU32<MAX_NOMINATORS_PER_VALIDATOR>;
	type MaxValidatorSet = ConstU32<MAX_VALIDATORS>;
	type VoterList = pallet_staking::UseNominatorsAndValidatorsMap<Self>;
	type TargetList = pallet_staking::UseValidatorsMap<Self>;
	type MaxUnlockingChunks = ConstU32<32>;
	type MaxControllersInDeprecationBatch = ConstU32<512>;
	type EventListeners = ();
	type Filter = Nothing;
	type BenchmarkingConfig = StakingBenchmarkingConfig;
	type WeightInfo = pallet_staking::weights::SubstrateWeight<Runtime>;
}
