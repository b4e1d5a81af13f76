//! pallet-gensyn-tasks: the task lifecycle, escrow, deadlines and settlement.
//!
//! Periods are in 3-second blocks. Challenges go to the pinpoint game
//! (`Arbiter = Arbitration`); `DisputeTimeout` (one day) outlasts the longest game
//! (see configs/arbitration.rs).

use super::stake::JackpotAccount;
use crate::{
	AccountId, Jackpot, Runtime, RuntimeHoldReason, Stake, DAYS, HOURS, MILLI_UNIT, MINUTES, UNIT,
};
use frame_support::{
	parameter_types,
	traits::{ConstU128, ConstU32, ConstU64},
	PalletId,
};
use sp_runtime::{traits::AccountIdConversion, Perbill};

parameter_types! {
	/// Receives the treasury cut of every task fee.
	pub TreasuryAccount: AccountId = PalletId(*b"gsn/trsy").into_account_truncating();
	/// Cut of the solver's pay, on top, that funds the jackpot.
	pub const JackpotCut: Perbill = Perbill::from_percent(5);
	/// Cut of the solver's pay, on top, for the treasury.
	pub const TreasuryCut: Perbill = Perbill::from_percent(2);
}

impl pallet_gensyn_tasks::Config for Runtime {
	type Currency = crate::Balances;
	type RuntimeHoldReason = RuntimeHoldReason;
	type Stake = Stake;
	type Randomness =
		pallet_gensyn_tasks::FromOptional<pallet_babe::ParentBlockRandomness<Runtime>>;
	type Arbiter = crate::Arbitration;
	type ForcedErrors = Jackpot;
	type Lottery = crate::watch::VrfLottery;
	// One watcher a round on average, as the one drawn in public before: with many
	// whistleblowers a round has none about a third of the time (e^-1), which its
	// verifiers cannot tell from one it has.
	type WatchersPerRound = ConstU32<1>;
	// The MNIST MLP example (3,436 megagas) costs about 3.4 tokens to train; with replay
	// pay and cuts its escrow is 6.40 tokens (Threshold mode) or 5.04 (Exact).
	type PricePerMegagas = ConstU128<MILLI_UNIT>;
	// A CPU replay costs more per gas than GPU training.
	type VerifyPricePerMegagas = ConstU128<{ 2 * MILLI_UNIT }>;
	type JackpotCut = JackpotCut;
	type TreasuryCut = TreasuryCut;
	type JackpotAccount = JackpotAccount;
	type TreasuryAccount = TreasuryAccount;
	type AcceptPeriod = ConstU32<{ 10 * MINUTES }>;
	type RetryPeriod = ConstU32<MINUTES>;
	type ProfilePeriod = ConstU32<HOURS>;
	// A reveal is one small call, due once the last profiler commits (which may be hours
	// after a profiler's own commitment); an hour leaves an operator time to restart or
	// upgrade a node before a missed reveal is slashed.
	type ProfileRevealPeriod = ConstU32<HOURS>;
	type MaxDraws = ConstU32<16>;
	/// As many as a round's draws, three profilers each: every worker that failed or
	/// declined stays out.
	type MaxExcluded = ConstU32<48>;
	type MaxRounds = ConstU32<3>;
	type BlockSeconds = ConstU32<3>;
	type TrainingSlack = ConstU32<3>;
	type MinTrainingPeriod = super::parameters::MinTrainingPeriod;
	type MaxTrainingPeriod = ConstU32<{ 7 * DAYS }>;
	type RandomnessDelay = super::parameters::RandomnessDelay;
	type VerifyPeriod = ConstU32<{ 2 * HOURS }>;
	type ChallengePeriod = super::parameters::ChallengePeriod;
	type DisputeTimeout = ConstU32<DAYS>;
	type VerifiersPerTask = ConstU32<2>;
	// A solver faking 10% of a task's segments is caught with probability at least
	// 1 - 0.9^44 > 99% by 44 audited segments (sampled without replacement it is more):
	// 48 lets a task reach that.
	type MaxAuditSegments = ConstU32<48>;
	// A report of an unavailable store is checked by up to three verifiers in turn before
	// its segment counts as unverified: a silent or untrusted re-auditor costs its bond
	// and the owner gains nothing unless every re-auditor drawn is on its side.
	type MaxReaudits = ConstU32<3>;
	// The solver, three profilers, and a verifier and a challenger for each of 48 audited
	// segments: no draw and no challenge is ever refused for room (junk challenges cannot
	// crowd out a real one).
	type MaxEngaged = ConstU32<100>;
	type MaxDeadlinesPerBlock = ConstU32<16>;
	type MaxLocationLen = ConstU32<128>;
	type MissedAcceptSlash = ConstU128<UNIT>;
	type MissedResultSlash = ConstU128<{ 20 * UNIT }>;
	type RejectedProofSlash = ConstU128<{ 100 * UNIT }>;
	// A prover of a run off its task is paid 10 GSN a bond unit of the slash (the
	// reporter's share would be 50): checking a commitment costs one checkpoint's
	// download, and a solver proving its own run takes back no more than this.
	type OffTaskBounty = ConstU128<{ 10 * UNIT }>;
	// Silence must cost what a wrong verdict costs: a verifier bribed to pass a fake
	// would otherwise stay silent instead, and its segment would go unchecked for less.
	type MissedVerdictSlash = ConstU128<{ 50 * UNIT }>;
	type WrongVerdictSlash = ConstU128<{ 50 * UNIT }>;
	// Each started 25 GSN of a task's solver pay is one bond unit: a rejected proof
	// costs at least four times the pay it would have taken, a wrong verdict at least
	// twice (the MNIST MLP example, 3.4 GSN, counts one unit).
	type PayPerBondUnit = ConstU128<{ 25 * UNIT }>;
	type FalseChallengeSlash = ConstU128<{ 10 * UNIT }>;
	type MissedRevealSlash = ConstU128<{ 10 * UNIT }>;
	// 0.05 as f32 bits, the default floor: tasks never profiled are judged by it within
	// the bounds.
	type DefaultThreshold = ConstU32<0x3D4C_CCCD>;
	type ThresholdBounds = super::parameters::ThresholdBounds;
	type PublishPeriod = super::parameters::PublishPeriod;
	// 2 GSN a started MiB of block space: the MNIST MLP's checkpoint (795 KiB) costs
	// 2 GSN to demand, and the largest state 8 GSN, below the 10 GSN a withheld one pays
	// its demander.
	type DemandFeePerMiB = ConstU128<{ 2 * UNIT }>;
	// A state of up to 4 MiB (about 350,000 parameters with Adam) can be demanded.
	type MaxPublishBytes = ConstU64<{ 4 << 20 }>;
	type WeightInfo = pallet_gensyn_tasks::weights::SubstrateWeight<Runtime>;
	#[cfg(feature = "runtime-benchmarks")]
	type BenchmarkHelper = crate::benchmarks::TasksHelper;
}

#[cfg(test)]
mod tests {
	use super::*;
	use frame_support::traits::Get;
	use pallet_gensyn_tasks::weights::{SubstrateWeight, WeightInfo, DEADLINE_LEGS};

	/// The deadline weight is counted for at least as many audits as a task may have,
	/// and a block's most deadlines take under half of a block.
	#[test]
	fn the_deadline_weight_covers_every_audit_and_fits_in_a_block() {
		type Audits = <Runtime as pallet_gensyn_tasks::Config>::MaxAuditSegments;
		let audits: u32 = Audits::get();
		assert!(u64::from(audits) <= DEADLINE_LEGS);
		let n = <Runtime as pallet_gensyn_tasks::Config>::MaxDeadlinesPerBlock::get();
		let worst = SubstrateWeight::<Runtime>::on_initialize(n);
		let block = crate::configs::BlockWeights::get().max_block;
		assert!(worst.all_lt(block / 2), "{worst:?} of {block:?}");
	}

	/// The runtime's own migrations take a chain at the tasks pallet's storage version
	/// 19 to 23: a demand unanswered at the upgrade (whose fee version 19 paid to the
	/// treasury) has the fee moved back and held under the runtime's balances; an
	/// answered one keeps its fee; a second run changes nothing.
	#[test]
	fn a_demand_unanswered_at_the_upgrade_is_held_by_the_runtimes_migrations() {
		use frame_support::traits::{
			fungible::{InspectHold, Mutate},
			GetStorageVersion, StorageVersion,
		};
		use pallet_gensyn_tasks::{migrations::v20::Demand, Demands, HoldReason};
		let mut ext = sp_io::TestExternalities::new(Default::default());
		ext.execute_with(|| {
			let (who, fee) = (crate::AccountId::from([7; 32]), 2 * crate::UNIT);
			let treasury = crate::configs::TreasuryAccount::get();
			let ed = crate::EXISTENTIAL_DEPOSIT;
			frame_support::assert_ok!(crate::Balances::mint_into(&who, ed));
			frame_support::assert_ok!(crate::Balances::mint_into(&treasury, ed + 2 * fee));
			let demand =
				|checkpoint, next| Demand { checkpoint, by: who.clone(), fee, at: 1, due: 9, next };
			let stored = vec![demand(1, None), demand(2, Some((1, 0)))];
			// Stored in version 19's shape, which has no standby.
			let key = Demands::<Runtime>::hashed_key_for(0);
			frame_support::storage::unhashed::put(&key, &stored);
			StorageVersion::new(19).put::<crate::Tasks>();
			<crate::Migrations as frame_support::traits::OnRuntimeUpgrade>::on_runtime_upgrade();
			assert_eq!(crate::Tasks::on_chain_storage_version(), 24);
			let reason = crate::RuntimeHoldReason::Tasks(HoldReason::Demand);
			assert_eq!(crate::Balances::balance_on_hold(&reason, &who), fee);
			assert_eq!(crate::Balances::free_balance(&treasury), ed + fee);
			// Version 21 names the standby: nobody here, where no audit read them.
			let demands = Demands::<Runtime>::get(0);
			assert!(demands.iter().all(|d| d.standby.is_none()));
			let fees: Vec<_> = demands.iter().map(|d| d.fee).collect();
			assert_eq!(fees, vec![fee, fee]);
			<crate::Migrations as frame_support::traits::OnRuntimeUpgrade>::on_runtime_upgrade();
			assert_eq!(crate::Balances::balance_on_hold(&reason, &who), fee);
		});
	}

	/// The runtime moves the stake pallet's entries to version 3 before the tasks
	/// pallet's version 22 counts the audits of live tasks in them: a verifier auditing a
	/// task at the upgrade has its bond count the task's units. The audits, stored as
	/// version 21 had them, are rewritten as version 23's first, so that the count reads
	/// them.
	#[test]
	fn audits_live_at_the_upgrade_are_counted_in_the_stake_pallet() {
		use frame_support::traits::{GetStorageVersion, OnRuntimeUpgrade, StorageVersion};
		use pallet_gensyn_stake::{Engaged, Engagements, StakeInterface};
		use pallet_gensyn_tasks::{migrations::v22, Audit, Audits};
		let mut ext = sp_io::TestExternalities::new(Default::default());
		ext.execute_with(|| {
			let (v, solver) = (crate::AccountId::from([7; 32]), crate::AccountId::from([8; 32]));
			let old = v22::Audit {
				segment: 0,
				verifier: v.clone(),
				verdict: None,
				challenger: None,
				overturned: false,
				refuted_by: None,
				reaudits: 1,
				unavailable: false,
				reported_before: false,
				rechecks: Some(solver.clone()),
			};
			// Stored in version 22's shape, which names the re-checked verifier.
			let key = Audits::<Runtime>::hashed_key_for(0);
			frame_support::storage::unhashed::put(&key, &vec![old]);
			// Version 2's entries: a bare count of units.
			for who in [&v, &solver] {
				let key = Engagements::<Runtime>::hashed_key_for(who);
				frame_support::storage::unhashed::put(&key, &1u32);
			}
			StorageVersion::new(2).put::<crate::Stake>();
			StorageVersion::new(21).put::<crate::Tasks>();
			<crate::Migrations as OnRuntimeUpgrade>::on_runtime_upgrade();
			assert_eq!(crate::Stake::on_chain_storage_version(), 3);
			assert_eq!(crate::Tasks::on_chain_storage_version(), 24);
			let mut audit = Audit::new(0, v.clone());
			audit.reaudits = 1;
			assert_eq!(Audits::<Runtime>::get(0).to_vec(), vec![audit]);
			assert_eq!(Engagements::<Runtime>::get(&v), Engaged { units: 1, audits: 1 });
			assert_eq!(Engagements::<Runtime>::get(&solver), Engaged { units: 1, audits: 0 });
			assert_eq!(<crate::Stake as StakeInterface<_, _>>::audit_units(&v), 1);
		});
	}
}
