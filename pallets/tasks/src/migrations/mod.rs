//! Storage migrations, one per storage version.

use crate::*;
use frame_support::migrations::VersionedMigration;

mod audits;
mod demands;
pub use audits::*;
pub use demands::*;

/// Version 0's storage that later versions replaced.
pub(crate) mod v0 {
	use super::*;

	/// Tasks whose deadline fires at a block, one bounded list per block.
	#[frame_support::storage_alias]
	pub type Deadlines<T: Config> = StorageMap<
		Pallet<T>,
		Twox64Concat,
		BlockNumberFor<T>,
		BoundedVec<TaskId, <T as Config>::MaxDeadlinesPerBlock>,
		ValueQuery,
	>;
}

/// The tasks pallet's migration from storage version 0 to 1 (runs once).
/// Each block's deadline list becomes the first pages of that block in the paged queue.
pub type V0ToV1<T> =
	VersionedMigration<0, 1, PageDeadlines<T>, Pallet<T>, <T as frame_system::Config>::DbWeight>;

/// Version 0 to 1's step, unversioned.
pub type PageDeadlines<T> = crate::queue::PageLists<
	v0::Deadlines<T>,
	<T as Config>::MaxDeadlinesPerBlock,
	Deadlines<T>,
	<T as frame_system::Config>::DbWeight,
>;

/// Version 1's task record, whose `excluded` held one worker (upgraded to version 3's,
/// which the next migrations carry on).
pub(crate) mod v1 {
	use super::*;

	/// Live tasks as version 1 stored them.
	#[frame_support::storage_alias]
	pub type Tasks<T: Config> = StorageMap<Pallet<T>, Twox64Concat, TaskId, Task<T>>;

	/// A live task as version 1 stored it: [`crate::Task`] with one excluded worker.
	#[derive(Encode, Decode)]
	pub struct Task<T: Config> {
		pub owner: T::AccountId,
		pub escrow: BalanceOf<T>,
		pub solver_pay: BalanceOf<T>,
		pub segment_pay: BalanceOf<T>,
		pub jackpot_cut: BalanceOf<T>,
		pub treasury_cut: BalanceOf<T>,
		pub gas: u64,
		pub memory_mib: u32,
		pub checkpoints: u32,
		pub audits: u32,
		pub phase: Phase,
		pub deadline: BlockNumberFor<T>,
		pub draws: u32,
		pub solver: Option<T::AccountId>,
		pub excluded: Option<T::AccountId>,
		pub rounds: u32,
		pub order_randomness: Hash32,
		pub result: Option<TaskResult<BlockNumberFor<T>, T::MaxLocationLen>>,
		pub window_end: BlockNumberFor<T>,
		pub engaged: BoundedVec<T::AccountId, T::MaxEngaged>,
		pub profiler: Option<T::AccountId>,
		pub threshold: Option<u32>,
	}

	impl<T: Config> Task<T> {
		/// The same task as versions 2 and 3 store it: its one excluded worker, if any, is
		/// the first of the list.
		pub fn upgrade(self) -> super::v3::Task<T> {
			super::v3::Task {
				owner: self.owner,
				escrow: self.escrow,
				solver_pay: self.solver_pay,
				segment_pay: self.segment_pay,
				jackpot_cut: self.jackpot_cut,
				treasury_cut: self.treasury_cut,
				gas: self.gas,
				memory_mib: self.memory_mib,
				checkpoints: self.checkpoints,
				audits: self.audits,
				phase: self.phase,
				deadline: self.deadline,
				draws: self.draws,
				solver: self.solver,
				excluded: BoundedVec::truncate_from(self.excluded.into_iter().collect()),
				rounds: self.rounds,
				order_randomness: self.order_randomness,
				result: self.result,
				window_end: self.window_end,
				engaged: self.engaged,
				profiler: self.profiler,
				threshold: self.threshold,
			}
		}
	}
}

/// The tasks pallet's migration from storage version 1 to 2 (runs once): every task's
/// one excluded worker becomes a list of them.
pub type V1ToV2<T> =
	VersionedMigration<1, 2, ExcludeMany<T>, Pallet<T>, <T as frame_system::Config>::DbWeight>;

/// Version 1 to 2's step, unversioned: rewrites every live task (one read and one write
/// each; live tasks are few next to a block's weight, since each holds an escrow).
pub struct ExcludeMany<T>(core::marker::PhantomData<T>);

impl<T: Config> frame_support::traits::UncheckedOnRuntimeUpgrade for ExcludeMany<T> {
	fn on_runtime_upgrade() -> Weight {
		let mut tasks = 0u64;
		v3::Tasks::<T>::translate::<v1::Task<T>, _>(|_, old| {
			tasks = tasks.saturating_add(1);
			Some(old.upgrade())
		});
		T::DbWeight::get().reads_writes(tasks, tasks)
	}

	#[cfg(feature = "try-runtime")]
	fn pre_upgrade() -> Result<Vec<u8>, sp_runtime::TryRuntimeError> {
		Ok((v3::Tasks::<T>::iter_keys().count() as u64).encode())
	}

	#[cfg(feature = "try-runtime")]
	fn post_upgrade(state: Vec<u8>) -> Result<(), sp_runtime::TryRuntimeError> {
		let before = u64::decode(&mut &state[..]).map_err(|_| "undecodable count")?;
		ensure!(v3::Tasks::<T>::iter().count() as u64 == before, "a task was lost");
		Ok(())
	}
}

/// Version 2's audit, which named no re-checked verifier.
pub(crate) mod v2 {
	use super::*;

	/// A task's audits as version 2 stored them.
	pub type AuditsOf<T> =
		BoundedVec<Audit<<T as frame_system::Config>::AccountId>, <T as Config>::MaxAuditSegments>;

	/// Audits of live tasks as version 2 stored them.
	#[frame_support::storage_alias]
	pub type Audits<T: Config> = StorageMap<Pallet<T>, Twox64Concat, TaskId, AuditsOf<T>>;

	/// An audit as version 2 stored it: version 22's without `rechecks`, as version 23
	/// stores it again.
	#[derive(Encode, Decode)]
	pub struct Audit<AccountId> {
		pub segment: u32,
		pub verifier: AccountId,
		pub verdict: Option<Verdict>,
		pub challenger: Option<AccountId>,
		pub overturned: bool,
		pub refuted_by: Option<AccountId>,
		pub reaudits: u32,
		pub unavailable: bool,
		pub reported_before: bool,
	}

	impl<AccountId> Audit<AccountId> {
		/// The same audit as versions 3 to 22 store it, less the re-checked verifier
		/// that version 23 dropped again: version 2's audit is version 23's.
		pub fn upgrade(self) -> crate::Audit<AccountId> {
			crate::Audit {
				segment: self.segment,
				verifier: self.verifier,
				verdict: self.verdict,
				challenger: self.challenger,
				overturned: self.overturned,
				refuted_by: self.refuted_by,
				reaudits: self.reaudits,
				unavailable: self.unavailable,
				reported_before: self.reported_before,
			}
		}
	}
}

/// The tasks pallet's migration from storage version 2 to 3 (runs once): every audit
/// gained the verifier whose Threshold fail it re-checks (none), which version 23
/// dropped again; the later steps read audits as version 23 writes them, so this one
/// writes them so too.
pub type V2ToV3<T> = VersionedMigration<
	2,
	3,
	AuditsRecheckNone<T>,
	Pallet<T>,
	<T as frame_system::Config>::DbWeight,
>;

/// Version 2 to 3's step, unversioned: rewrites every live task's audits (one read and
/// one write each).
pub struct AuditsRecheckNone<T>(core::marker::PhantomData<T>);

impl<T: Config> frame_support::traits::UncheckedOnRuntimeUpgrade for AuditsRecheckNone<T> {
	fn on_runtime_upgrade() -> Weight {
		let mut tasks = 0u64;
		Audits::<T>::translate::<v2::AuditsOf<T>, _>(|_, old| {
			tasks = tasks.saturating_add(1);
			let audits: Vec<Audit<T::AccountId>> =
				old.into_iter().map(v2::Audit::upgrade).collect();
			// As many audits as before: within the same bound.
			Some(BoundedVec::truncate_from(audits))
		});
		T::DbWeight::get().reads_writes(tasks, tasks)
	}

	#[cfg(feature = "try-runtime")]
	fn pre_upgrade() -> Result<Vec<u8>, sp_runtime::TryRuntimeError> {
		let audits: u64 = v2::Audits::<T>::iter_values().map(|a| a.len() as u64).sum();
		Ok(audits.encode())
	}

	#[cfg(feature = "try-runtime")]
	fn post_upgrade(state: Vec<u8>) -> Result<(), sp_runtime::TryRuntimeError> {
		let before = u64::decode(&mut &state[..]).map_err(|_| "undecodable count")?;
		let after: u64 = Audits::<T>::iter_values().map(|a| a.len() as u64).sum();
		ensure!(after == before, "an audit was lost");
		Ok(())
	}
}

/// Version 3's task record, which named one profiler.
pub(crate) mod v3 {
	use super::*;

	/// Live tasks as version 3 stored them.
	#[frame_support::storage_alias]
	pub type Tasks<T: Config> = StorageMap<Pallet<T>, Twox64Concat, TaskId, Task<T>>;

	/// A live task as version 3 stored it: [`crate::Task`] with one profiler.
	#[derive(Encode, Decode)]
	pub struct Task<T: Config> {
		pub owner: T::AccountId,
		pub escrow: BalanceOf<T>,
		pub solver_pay: BalanceOf<T>,
		pub segment_pay: BalanceOf<T>,
		pub jackpot_cut: BalanceOf<T>,
		pub treasury_cut: BalanceOf<T>,
		pub gas: u64,
		pub memory_mib: u32,
		pub checkpoints: u32,
		pub audits: u32,
		pub phase: Phase,
		pub deadline: BlockNumberFor<T>,
		pub draws: u32,
		pub solver: Option<T::AccountId>,
		pub excluded: BoundedVec<T::AccountId, T::MaxExcluded>,
		pub rounds: u32,
		pub order_randomness: Hash32,
		pub result: Option<TaskResult<BlockNumberFor<T>, T::MaxLocationLen>>,
		pub window_end: BlockNumberFor<T>,
		pub engaged: BoundedVec<T::AccountId, T::MaxEngaged>,
		pub profiler: Option<T::AccountId>,
		pub threshold: Option<u32>,
	}

	impl<T: Config> Task<T> {
		/// The same task as version 4 stores it: its profiler, if any, is the first of
		/// the list, still to post (a task being profiled was funded for one profile
		/// only, so no other is drawn for it; one that posted was already paid).
		pub fn upgrade(self) -> crate::Task<T> {
			let profilers = self.profiler.map(|who| Profile { who, threshold: None });
			crate::Task {
				owner: self.owner,
				escrow: self.escrow,
				solver_pay: self.solver_pay,
				segment_pay: self.segment_pay,
				jackpot_cut: self.jackpot_cut,
				treasury_cut: self.treasury_cut,
				gas: self.gas,
				memory_mib: self.memory_mib,
				checkpoints: self.checkpoints,
				audits: self.audits,
				phase: self.phase,
				deadline: self.deadline,
				draws: self.draws,
				solver: self.solver,
				excluded: self.excluded,
				rounds: self.rounds,
				order_randomness: self.order_randomness,
				result: self.result,
				window_end: self.window_end,
				engaged: self.engaged,
				profilers: BoundedVec::truncate_from(profilers.into_iter().collect()),
				threshold: self.threshold,
			}
		}
	}
}

/// The tasks pallet's migration from storage version 3 to 4 (runs once): every task's
/// one profiler becomes a list of them.
pub type V3ToV4<T> =
	VersionedMigration<3, 4, ProfileMany<T>, Pallet<T>, <T as frame_system::Config>::DbWeight>;

/// Version 3 to 4's step, unversioned: rewrites every live task (one read and one write
/// each).
pub struct ProfileMany<T>(core::marker::PhantomData<T>);

impl<T: Config> frame_support::traits::UncheckedOnRuntimeUpgrade for ProfileMany<T> {
	fn on_runtime_upgrade() -> Weight {
		let mut tasks = 0u64;
		Tasks::<T>::translate::<v3::Task<T>, _>(|_, old| {
			tasks = tasks.saturating_add(1);
			Some(old.upgrade())
		});
		T::DbWeight::get().reads_writes(tasks, tasks)
	}

	#[cfg(feature = "try-runtime")]
	fn pre_upgrade() -> Result<Vec<u8>, sp_runtime::TryRuntimeError> {
		Ok((v3::Tasks::<T>::iter_keys().count() as u64).encode())
	}

	#[cfg(feature = "try-runtime")]
	fn post_upgrade(state: Vec<u8>) -> Result<(), sp_runtime::TryRuntimeError> {
		let before = u64::decode(&mut &state[..]).map_err(|_| "undecodable count")?;
		ensure!(Tasks::<T>::iter().count() as u64 == before, "a task was lost");
		Ok(())
	}
}

/// The tasks pallet's migration from storage version 4 to 5 (runs once): every open or
/// won challenge counts as opened before any reveal ([`ChallengedAt`] at block zero), so
/// a catch in flight at the upgrade is paid as it would have been.
pub type V4ToV5<T> = VersionedMigration<
	4,
	5,
	ChallengesBeforeReveals<T>,
	Pallet<T>,
	<T as frame_system::Config>::DbWeight,
>;

/// Version 4 to 5's step, unversioned: reads every live task's audits and writes one
/// entry per challenged segment.
pub struct ChallengesBeforeReveals<T>(core::marker::PhantomData<T>);

impl<T: Config> frame_support::traits::UncheckedOnRuntimeUpgrade for ChallengesBeforeReveals<T> {
	fn on_runtime_upgrade() -> Weight {
		let (mut reads, mut writes) = (0u64, 0u64);
		for (id, audits) in Audits::<T>::iter() {
			reads = reads.saturating_add(1);
			for a in audits.iter().filter(|a| a.challenger.is_some() || a.refuted_by.is_some()) {
				ChallengedAt::<T>::insert(id, a.segment, BlockNumberFor::<T>::zero());
				writes = writes.saturating_add(1);
			}
		}
		T::DbWeight::get().reads_writes(reads, writes)
	}

	#[cfg(feature = "try-runtime")]
	fn pre_upgrade() -> Result<Vec<u8>, sp_runtime::TryRuntimeError> {
		let challenged = Audits::<T>::iter_values()
			.map(|a| a.iter().filter(|a| a.challenger.is_some() || a.refuted_by.is_some()).count())
			.sum::<usize>() as u64;
		Ok(challenged.encode())
	}

	#[cfg(feature = "try-runtime")]
	fn post_upgrade(state: Vec<u8>) -> Result<(), sp_runtime::TryRuntimeError> {
		let before = u64::decode(&mut &state[..]).map_err(|_| "undecodable count")?;
		ensure!(ChallengedAt::<T>::iter().count() as u64 == before, "a challenge was missed");
		Ok(())
	}
}

/// The tasks pallet's migration from storage version 5 to 6 (runs once): every task in
/// its challenge window gets the block from which its reveals open, where a window opened
/// now would have it ([`Pallet::reveal_point`] of its end). A verifier that revealed
/// before the upgrade keeps its reveal; a task being audited again at the upgrade gets
/// its point when its next window opens. Tasks drawn before the upgrade have no watcher
/// (`Watchers`, then): a catch claimed before it is paid, none claimed after.
pub type V5ToV6<T> =
	VersionedMigration<5, 6, RevealPoints<T>, Pallet<T>, <T as frame_system::Config>::DbWeight>;

/// Version 5 to 6's step, unversioned: reads every live task and writes one entry for
/// each in its window.
pub struct RevealPoints<T>(core::marker::PhantomData<T>);

impl<T: Config> RevealPoints<T> {
	fn in_window(task: &Task<T>) -> bool {
		matches!(task.phase, Phase::Challenge | Phase::Disputed)
	}
}

impl<T: Config> frame_support::traits::UncheckedOnRuntimeUpgrade for RevealPoints<T> {
	fn on_runtime_upgrade() -> Weight {
		let (mut reads, mut writes) = (0u64, 0u64);
		for (id, task) in Tasks::<T>::iter() {
			reads = reads.saturating_add(1);
			if Self::in_window(&task) {
				RevealsFrom::<T>::insert(id, Pallet::<T>::reveal_point(task.window_end));
				writes = writes.saturating_add(1);
			}
		}
		T::DbWeight::get().reads_writes(reads, writes)
	}

	#[cfg(feature = "try-runtime")]
	fn pre_upgrade() -> Result<Vec<u8>, sp_runtime::TryRuntimeError> {
		let in_window = Tasks::<T>::iter_values().filter(Self::in_window).count() as u64;
		Ok(in_window.encode())
	}

	#[cfg(feature = "try-runtime")]
	fn post_upgrade(state: Vec<u8>) -> Result<(), sp_runtime::TryRuntimeError> {
		let before = u64::decode(&mut &state[..]).map_err(|_| "undecodable count")?;
		ensure!(RevealsFrom::<T>::iter().count() as u64 == before, "a window was missed");
		Ok(())
	}
}

/// The tasks pallet's migration from storage version 6 to 7 (runs once): draws now read
/// the [`Beacon`], which every block folds from the upgrade's block on
/// ([`Pallet::fold_beacon`]). Nothing stored before changes meaning, so the step writes
/// nothing. A result committed shortly before the upgrade is drawn from the blocks folded
/// since it, fewer than `RandomnessDelay` (and an audit draw first waits until a block
/// after its commit is folded).
pub type V6ToV7<T> =
	VersionedMigration<6, 7, StartBeacon<T>, Pallet<T>, <T as frame_system::Config>::DbWeight>;

/// Version 6 to 7's step, unversioned: nothing to translate.
pub struct StartBeacon<T>(core::marker::PhantomData<T>);

impl<T: Config> frame_support::traits::UncheckedOnRuntimeUpgrade for StartBeacon<T> {
	fn on_runtime_upgrade() -> Weight {
		Weight::zero()
	}
}

/// The tasks pallet's migration from storage version 7 to 8 (runs once): a profiler's
/// decline now marks a task's draws one past `MaxDraws` (draws spent on retries are no
/// decline), where it marked them `MaxDraws`. A task still profiling whose draws were
/// spent keeps the meaning version 7 gave it: declined (version 7 could not tell a
/// decline from draws spent on retries; the runtimes that wrote the new marker under
/// version 7 never ran on a live chain).
pub type V7ToV8<T> =
	VersionedMigration<7, 8, MarkDeclines<T>, Pallet<T>, <T as frame_system::Config>::DbWeight>;

/// Version 7 to 8's step, unversioned: one read per live task, one write per task it
/// marks.
pub struct MarkDeclines<T>(core::marker::PhantomData<T>);

impl<T: Config> frame_support::traits::UncheckedOnRuntimeUpgrade for MarkDeclines<T> {
	fn on_runtime_upgrade() -> Weight {
		let (mut reads, mut writes) = (0u64, 0u64);
		let spent = T::MaxDraws::get();
		for (id, mut task) in Tasks::<T>::iter() {
			reads = reads.saturating_add(1);
			if task.phase == Phase::Profiling && task.draws == spent {
				task.draws = spent.saturating_add(1);
				Tasks::<T>::insert(id, task);
				writes = writes.saturating_add(1);
			}
		}
		T::DbWeight::get().reads_writes(reads, writes)
	}
}

/// Version 8's storage that version 9 replaced.
pub(crate) mod v8 {
	use super::*;

	/// The one public watcher drawn with a round's verifiers.
	#[frame_support::storage_alias]
	pub type Watchers<T: Config> =
		StorageMap<Pallet<T>, Twox64Concat, TaskId, <T as frame_system::Config>::AccountId>;
}

/// The tasks pallet's migration from storage version 8 to 9 (runs once): a round's one
/// public watcher gives way to a private lottery ([`Watches`]). The watchers drawn
/// before the upgrade are forgotten: their rounds have no lottery, so a failing verdict
/// waits for reveals to be challenged; a catch claimed before the upgrade is paid, none
/// is claimed after. The next round (or a new draw of the round's silent verifiers)
/// draws a lottery.
pub type V8ToV9<T> =
	VersionedMigration<8, 9, ForgetWatchers<T>, Pallet<T>, <T as frame_system::Config>::DbWeight>;

/// Version 8 to 9's step, unversioned: one write per watcher (at most one per live task).
pub struct ForgetWatchers<T>(core::marker::PhantomData<T>);

impl<T: Config> frame_support::traits::UncheckedOnRuntimeUpgrade for ForgetWatchers<T> {
	fn on_runtime_upgrade() -> Weight {
		let removed = v8::Watchers::<T>::drain().count() as u64;
		T::DbWeight::get().reads_writes(removed, removed)
	}
}

/// The tasks pallet's migration from storage version 9 to 10 (runs once): version 10
/// adds [`crate::OffTask`], empty at the upgrade; nothing stored before changes.
pub type V9ToV10<T> =
	VersionedMigration<9, 10, NothingToMove, Pallet<T>, <T as frame_system::Config>::DbWeight>;

/// The tasks pallet's migration from storage version 18 to 19 (runs once): version 19
/// adds [`crate::Demands`], empty at the upgrade; nothing stored before changes.
pub type V18ToV19<T> =
	VersionedMigration<18, 19, NothingToMove, Pallet<T>, <T as frame_system::Config>::DbWeight>;

/// A step with no data to move (a version that only adds storage).
pub struct NothingToMove;

impl frame_support::traits::UncheckedOnRuntimeUpgrade for NothingToMove {
	fn on_runtime_upgrade() -> Weight {
		Weight::zero()
	}
}

/// The tasks pallet's migration from storage version 10 to 11 (runs once): version 11
/// adds [`crate::BondUnits`]. A task live at the upgrade has no entry and counts one
/// unit, as every engagement in it was counted: nothing stored before changes.
pub type V10ToV11<T> =
	VersionedMigration<10, 11, NothingToMove, Pallet<T>, <T as frame_system::Config>::DbWeight>;

/// The tasks pallet's migration from storage version 11 to 12 (runs once): version 12
/// adds [`crate::ProfileCommitments`] and the last phase, `ProfileReveal`, after every
/// stored one. A profile posted before the upgrade counts as committed and revealed, so a
/// task profiling at the upgrade goes on with the profiles it has: nothing moves.
/// It also adds the map that version 13 renames ([`v12::GameReaudit`]): a re-audit a
/// game's end set before the upgrade has no entry and is drawn at its deadline unmoved,
/// as it would have been.
pub type V11ToV12<T> =
	VersionedMigration<11, 12, NothingToMove, Pallet<T>, <T as frame_system::Config>::DbWeight>;

/// Version 12's storage that version 13 renamed.
pub(crate) mod v12 {
	use super::*;

	/// A game's re-audit point: its deadline and the block the game ended in.
	#[frame_support::storage_alias]
	pub type GameReaudit<T: Config> =
		StorageMap<Pallet<T>, Twox64Concat, TaskId, (BlockNumberFor<T>, BlockNumberFor<T>)>;
}

/// The tasks pallet's migration from storage version 12 to 13 (runs once): a game's
/// re-audit point becomes one case of [`crate::MovedDraw`], which also moves the
/// settlement a ruling or a reveal timed and the solver draw after a threshold. The
/// points stored are carried over as they are; a deadline filed before the upgrade
/// without one is drawn unmoved, as it would have been.
pub type V12ToV13<T> = VersionedMigration<
	12,
	13,
	RenameMovedDraws<T>,
	Pallet<T>,
	<T as frame_system::Config>::DbWeight,
>;

/// Version 12 to 13's step, unversioned: one read and two writes per point (at most one
/// per live task).
pub struct RenameMovedDraws<T>(core::marker::PhantomData<T>);

impl<T: Config> frame_support::traits::UncheckedOnRuntimeUpgrade for RenameMovedDraws<T> {
	fn on_runtime_upgrade() -> Weight {
		let mut moved = 0u64;
		for (id, point) in v12::GameReaudit::<T>::drain() {
			crate::MovedDraw::<T>::insert(id, point);
			moved = moved.saturating_add(1);
		}
		T::DbWeight::get().reads_writes(moved, moved.saturating_mul(2))
	}
}

/// The tasks pallet's migration from storage version 13 to 14 (runs once): version 14
/// adds [`crate::OpenChallenges`], filled from the games under way at the upgrade. A
/// whistleblower already past its bond keeps its games; it opens no other until enough
/// of them end.
pub type V13ToV14<T> = VersionedMigration<
	13,
	14,
	CountOpenChallenges<T>,
	Pallet<T>,
	<T as frame_system::Config>::DbWeight,
>;

/// Version 13 to 14's step, unversioned: reads every live task's audits and record, and
/// writes one count per challenger (what its open games risk), clearing any other. A
/// runtime that changes what a game risks (the ratio of `MinWhistleblowerBond` to
/// `FalseChallengeSlash`) while games are open runs it again, or the counts drift.
pub struct CountOpenChallenges<T>(core::marker::PhantomData<T>);

impl<T: Config> frame_support::traits::UncheckedOnRuntimeUpgrade for CountOpenChallenges<T> {
	fn on_runtime_upgrade() -> Weight {
		let tasks = crate::Audits::<T>::iter_keys().count() as u64;
		let counted = Pallet::<T>::challengers();
		let stale = crate::OpenChallenges::<T>::clear(u32::MAX, None).unique as u64;
		let writes = (counted.len() as u64).saturating_add(stale);
		for (who, n) in counted {
			crate::OpenChallenges::<T>::insert(who, n);
		}
		T::DbWeight::get().reads_writes(tasks.saturating_mul(3), writes)
	}
}

/// The tasks pallet's migration from storage version 14 to 15 (runs once): from version
/// 15 a Threshold task's distance is a share of the work a segment does, so a threshold
/// decided on the old absolute scale is brought within the bounds of the new one: raised
/// to the floor, which honest replays lie under, or lowered to the ceiling, which fakes
/// lie past. A task decided on the old scale is then judged safely on the new.
pub type V14ToV15<T> = VersionedMigration<
	14,
	15,
	BoundDecidedThresholds<T>,
	Pallet<T>,
	<T as frame_system::Config>::DbWeight,
>;

/// The tasks pallet's migration from storage version 15 to 16 (runs once): version 16
/// adds [`crate::SolverContested`]. A verdict contested before the upgrade has no entry,
/// so its solver may contest it once more; nothing stored before changes.
pub type V15ToV16<T> =
	VersionedMigration<15, 16, NothingToMove, Pallet<T>, <T as frame_system::Config>::DbWeight>;

/// The tasks pallet's migration from storage version 16 to 17 (runs once): version 17
/// adds [`crate::Survived`] and counts [`crate::OpenChallenges`] in slashes rather than
/// games. No verdict survived a game before the upgrade as far as the new map knows, so
/// each open game risks one slash and the old counts read the same: nothing moves.
pub type V16ToV17<T> =
	VersionedMigration<16, 17, NothingToMove, Pallet<T>, <T as frame_system::Config>::DbWeight>;

/// Version 14 to 15's step, unversioned: reads every live task and writes those whose
/// threshold moves.
pub struct BoundDecidedThresholds<T>(core::marker::PhantomData<T>);

impl<T: Config> frame_support::traits::UncheckedOnRuntimeUpgrade for BoundDecidedThresholds<T> {
	fn on_runtime_upgrade() -> Weight {
		let moved: Vec<(TaskId, Task<T>)> = crate::Tasks::<T>::iter()
			.filter_map(|(id, mut t)| {
				let old = t.threshold?;
				let new = Pallet::<T>::bounded_threshold(old);
				(new != old).then(|| {
					t.threshold = Some(new);
					(id, t)
				})
			})
			.collect();
		let reads = crate::Tasks::<T>::iter_keys().count() as u64;
		let writes = moved.len() as u64;
		for (id, t) in moved {
			crate::Tasks::<T>::insert(id, t);
		}
		T::DbWeight::get().reads_writes(reads.saturating_add(2), writes)
	}
}

/// The tasks pallet's migration from storage version 17 to 18 (runs once): version 18
/// adds [`crate::RevealBy`], each verifier's reveal deadline. A task whose round opened a
/// window gives each verifier a window judged the window's end as it stands, the
/// deadline it had: in a window, every verifier with a verdict or report; being
/// audited again, the round's first verifiers (a re-auditor's deadline comes with its
/// window). A verifier that missed its reveal before the upgrade may still reveal in a
/// window a lost game reopened; none after.
pub type V17ToV18<T> = VersionedMigration<
	17,
	18,
	RevealDeadlines<T>,
	Pallet<T>,
	<T as frame_system::Config>::DbWeight,
>;

/// Version 17 to 18's step, unversioned: reads every live task, and the audits of each
/// whose round opened a window, and writes one entry for each verifier a window judged.
pub struct RevealDeadlines<T>(core::marker::PhantomData<T>);

impl<T: Config> RevealDeadlines<T> {
	/// The verifiers of task `id` that a window judged, and the end they reveal by.
	fn judged(id: TaskId, task: &Task<T>) -> Option<(Vec<T::AccountId>, BlockNumberFor<T>)> {
		if !RevealsFrom::<T>::contains_key(id) {
			return None;
		}
		let in_window = match task.phase {
			Phase::Challenge | Phase::Disputed => true,
			Phase::Verifying => false,
			_ => return None,
		};
		let mut who: Vec<T::AccountId> = Vec::new();
		let judged =
			|a: &&Audit<T::AccountId>| !a.awaits_verdict() && (in_window || a.reaudits == 0);
		for a in Audits::<T>::get(id).iter().filter(judged) {
			if !who.contains(&a.verifier) {
				who.push(a.verifier.clone());
			}
		}
		Some((who, task.window_end))
	}
}

impl<T: Config> frame_support::traits::UncheckedOnRuntimeUpgrade for RevealDeadlines<T> {
	fn on_runtime_upgrade() -> Weight {
		let (mut reads, mut writes) = (0u64, 0u64);
		for (id, task) in Tasks::<T>::iter() {
			reads = reads.saturating_add(3);
			let Some((judged, end)) = Self::judged(id, &task) else { continue };
			for who in judged {
				RevealBy::<T>::insert(id, who, end);
				writes = writes.saturating_add(1);
			}
		}
		T::DbWeight::get().reads_writes(reads, writes)
	}

	#[cfg(feature = "try-runtime")]
	fn pre_upgrade() -> Result<Vec<u8>, sp_runtime::TryRuntimeError> {
		let n: u64 = Tasks::<T>::iter()
			.filter_map(|(id, t)| Self::judged(id, &t))
			.map(|(who, _)| who.len() as u64)
			.sum();
		Ok(n.encode())
	}

	#[cfg(feature = "try-runtime")]
	fn post_upgrade(state: Vec<u8>) -> Result<(), sp_runtime::TryRuntimeError> {
		let before = u64::decode(&mut &state[..]).map_err(|_| "undecodable count")?;
		ensure!(RevealBy::<T>::iter().count() as u64 == before, "a verifier was missed");
		Ok(())
	}
}
