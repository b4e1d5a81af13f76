#![doc = include_str!("../README.md")]
#![cfg_attr(not(feature = "std"), no_std)]
#![deny(missing_docs)]

extern crate alloc;

pub use pallet::*;

mod audit;
mod availability;
#[cfg(feature = "runtime-benchmarks")]
mod benchmarking;
mod collateral;
mod deadlines;
mod disputes;
mod draw;
mod errors;
mod escrow;
mod events;
mod invariants;
pub mod migrations;
#[cfg(test)]
mod mock;
mod off_task;
pub mod profiling;
pub mod queue;
mod settlement;
mod submission;
#[cfg(test)]
mod tests;
mod training;
mod traits;
mod views;
pub mod weights;

use deadlines::Deadlines;
use training::Commitment;
pub use traits::*;
pub use weights::WeightInfo;

use alloc::vec::Vec;
use codec::{Decode, DecodeWithMemTracking, Encode, MaxEncodedLen};
use frame_support::{
	pallet_prelude::*,
	traits::{
		fungible::{Inspect, InspectHold, Mutate, MutateHold},
		tokens::{Fortitude, Precision, Restriction},
		Randomness,
	},
	CloneNoBound, DebugNoBound, EqNoBound, PartialEqNoBound,
};
use frame_system::pallet_prelude::BlockNumberFor;
/// The spec a task is submitted with (what `submit_task` and the quote take).
pub use gensyn_primitives::TaskSpec;
use gensyn_primitives::{merkle, SpecError, VerificationMode};
use pallet_gensyn_jackpot::ForcedErrors;
use pallet_gensyn_stake::{Role, StakeInterface};
use scale_info::TypeInfo;
use sp_runtime::{
	traits::{CheckedAdd, CheckedMul, Saturating, Zero},
	DispatchResult, Perbill, SaturatedConversion,
};

include!("types.rs");

/// The storage layout's version (1: paged deadlines; 2: several excluded workers; 3: an
/// audit names the verifier whose fail it re-checks; 4: several profilers; 5: when each
/// challenge was opened; 6: when a round's reveals open; 7: the draw beacon; 8: a decline
/// marks the draws past `MaxDraws`; 9: a private watch lottery in place of one watcher; 10:
/// runs proven off their task; 11: the bond units of tasks that count more than one; 12:
/// profiles committed before they are revealed; 13: every draw a party times moves itself;
/// 14: each whistleblower's open games, which its bond must cover; 15: decided thresholds
/// within the bounds; 16: the verdicts each solver contested; 17: the games each verdict
/// survived; 18: each verifier's reveal deadline; 19: checkpoints demanded on chain; 20:
/// a demand's fee held until its pages come; 21: a demand names its standby verifier, and
/// the last upgrade's block is kept; 22: each verifier's audits counted in the stake
/// pallet; 23: an audit no longer names a fail it re-checks, since a Threshold fail that
/// stands rejects the proof as an Exact one does; 24: the last upgrades' blocks are kept,
/// and a demand's due is read past them rather than rewritten at an upgrade).
const STORAGE_VERSION: StorageVersion = StorageVersion::new(24);

/// How many runtime upgrades [`Upgrades`] keeps: more than ever fall within one
/// demand's life (a publish period of at most a day, and the graces upgrades add). A
/// demand held open by an upgrade the list has since dropped would read its due without
/// that upgrade's grace.
pub const UPGRADES_KEPT: u32 = 16;

#[frame_support::pallet_macros::import_section(errors::errors)]
#[frame_support::pallet_macros::import_section(events::events)]
#[frame_support::pallet]
pub mod pallet {
	use super::*;
	use frame_system::pallet_prelude::*;

	/// The pallet.
	#[pallet::pallet]
	#[pallet::storage_version(STORAGE_VERSION)]
	pub struct Pallet<T>(_);

	/// Reasons this pallet holds funds.
	#[pallet::composite_enum]
	pub enum HoldReason {
		/// A submitter's task escrow.
		Escrow,
		/// A demander's fee for a checkpoint: paid to the treasury once the checkpoint is
		/// published, returned if its pages never come.
		Demand,
	}

	/// Configuration.
	#[pallet::config]
	pub trait Config: frame_system::Config {
		/// The currency of escrows.
		type Currency: MutateHold<Self::AccountId, Reason = Self::RuntimeHoldReason>
			+ Mutate<Self::AccountId>
			+ InspectHold<Self::AccountId>;
		/// The runtime's hold reason.
		type RuntimeHoldReason: From<HoldReason>;
		/// Bonds, slashes and the active worker lists.
		type Stake: StakeInterface<Self::AccountId, BalanceOf<Self>>;
		/// Randomness for draws (BABE in the runtime; see [`FromOptional`]).
		type Randomness: Randomness<Self::Hash, BlockNumberFor<Self>>;
		/// The dispute arbiter.
		type Arbiter: DisputeArbiter<Self::AccountId>;
		/// Forced errors and the jackpot (`pallet-gensyn-jackpot`; `()` for none).
		type ForcedErrors: ForcedErrors<Self::AccountId, BalanceOf<Self>>;
		/// The private lottery that picks each round's watchers ([`Watches`]).
		type Lottery: WatchLottery<Self::AccountId>;
		/// How many watchers a round has on average: a whistleblower that may watch wins
		/// the lottery with this many chances in the number of them at the draw.
		#[pallet::constant]
		type WatchersPerRound: Get<u32>;
		/// Price of one million gas of training.
		#[pallet::constant]
		type PricePerMegagas: Get<BalanceOf<Self>>;
		/// Pay of one million gas of verification replay.
		#[pallet::constant]
		type VerifyPricePerMegagas: Get<BalanceOf<Self>>;
		/// Jackpot cut, a share of the solver pay, held on top of it.
		#[pallet::constant]
		type JackpotCut: Get<Perbill>;
		/// Treasury cut, a share of the solver pay, held on top of it.
		#[pallet::constant]
		type TreasuryCut: Get<Perbill>;
		/// The jackpot's account.
		#[pallet::constant]
		type JackpotAccount: Get<Self::AccountId>;
		/// The treasury's account.
		#[pallet::constant]
		type TreasuryAccount: Get<Self::AccountId>;
		/// Blocks a drawn solver has to accept.
		#[pallet::constant]
		type AcceptPeriod: Get<BlockNumberFor<Self>>;
		/// Blocks between draws while no solver fits.
		#[pallet::constant]
		type RetryPeriod: Get<BlockNumberFor<Self>>;
		/// Blocks a drawn profiler has to commit to a Threshold task's threshold; zero turns
		/// profiling off (Threshold tasks then use [`Config::DefaultThreshold`]).
		#[pallet::constant]
		type ProfilePeriod: Get<BlockNumberFor<Self>>;
		/// Blocks the profilers of a Threshold task have to reveal their committed
		/// thresholds once every one has committed (a reveal is one small call).
		#[pallet::constant]
		type ProfileRevealPeriod: Get<BlockNumberFor<Self>>;
		/// Most draws of a task (solver and verifier draws together).
		#[pallet::constant]
		type MaxDraws: Get<u32>;
		/// Most workers a task keeps from being drawn for it again (those that failed or
		/// declined it); the one excluded longest ago gives way to a newer one.
		#[pallet::constant]
		type MaxExcluded: Get<u32>;
		/// Most training rounds of a task: after a rejected proof, the task is offered to
		/// another solver while fewer rounds than this ran.
		#[pallet::constant]
		type MaxRounds: Get<u32>;
		/// Seconds per block, to turn a claimed speed into a training deadline.
		#[pallet::constant]
		type BlockSeconds: Get<u32>;
		/// Factor of slack on the training time the solver's claimed speed implies.
		#[pallet::constant]
		type TrainingSlack: Get<u32>;
		/// Blocks added to every training deadline (start-up, data download).
		/// Not a metadata constant: a runtime may let governance change it (the gensyn
		/// runtime does, through its parameters pallet).
		type MinTrainingPeriod: Get<BlockNumberFor<Self>>;
		/// Longest training deadline.
		#[pallet::constant]
		type MaxTrainingPeriod: Get<BlockNumberFor<Self>>;
		/// Blocks between a commitment and the draw that waits for it (the verifier draw
		/// after a commit, the profilers after a submission, the next solver after a
		/// decline; at least 2): the draw reads the [`Beacon`] folded over them, which no
		/// single author knows at the commitment.
		/// Not a metadata constant: a runtime may let governance change it (the gensyn
		/// runtime does, through its parameters pallet).
		type RandomnessDelay: Get<BlockNumberFor<Self>>;
		/// Blocks verifiers have to post verdicts.
		#[pallet::constant]
		type VerifyPeriod: Get<BlockNumberFor<Self>>;
		/// Length of the challenge window.
		/// Not a metadata constant: a runtime may let governance change it (the gensyn
		/// runtime does, through its parameters pallet).
		type ChallengePeriod: Get<BlockNumberFor<Self>>;
		/// Safety timeout of an open dispute.
		#[pallet::constant]
		type DisputeTimeout: Get<BlockNumberFor<Self>>;
		/// Verifiers drawn per task (segments are dealt among them).
		#[pallet::constant]
		type VerifiersPerTask: Get<u32>;
		/// Most audited segments of a task.
		#[pallet::constant]
		type MaxAuditSegments: Get<u32>;
		/// Most times one segment is given to a new verifier (a re-audit): a report that
		/// re-auditor after re-auditor leaves unchecked leaves the segment unverified.
		#[pallet::constant]
		type MaxReaudits: Get<u32>;
		/// Most workers one task counts on (solver, verifiers, challengers). It must hold
		/// every engagement a task can need, so that no draw and no challenge is ever
		/// refused for room: the solver, the profilers, one verifier and one challenger per
		/// audited segment (checked by `integrity_test`).
		#[pallet::constant]
		type MaxEngaged: Get<u32>;
		/// Most deadlines in one block.
		#[pallet::constant]
		type MaxDeadlinesPerBlock: Get<u32>;
		/// Longest proof-store location of a result.
		#[pallet::constant]
		type MaxLocationLen: Get<u32>;
		/// Slash of a solver that lets an offer lapse.
		#[pallet::constant]
		type MissedAcceptSlash: Get<BalanceOf<Self>>;
		/// Slash of a solver that misses its result deadline.
		#[pallet::constant]
		type MissedResultSlash: Get<BalanceOf<Self>>;
		/// Slash of a solver whose proof fails an audit, per bond unit of the task.
		#[pallet::constant]
		type RejectedProofSlash: Get<BalanceOf<Self>>;
		/// The most a prover of a run off its task is paid of the solver's slash, per bond
		/// unit (its reporter's share otherwise): anyone may prove, the solver's own second
		/// account included, so the bounty is what a self-report takes back.
		#[pallet::constant]
		type OffTaskBounty: Get<BalanceOf<Self>>;
		/// Slash of a verifier that posts no verdict (or profile) in time, per bond unit
		/// of the task.
		#[pallet::constant]
		type MissedVerdictSlash: Get<BalanceOf<Self>>;
		/// Slash of a verifier whose verdict is overturned, per bond unit of the task.
		#[pallet::constant]
		type WrongVerdictSlash: Get<BalanceOf<Self>>;
		/// The solver pay that one bond unit stands for. A task counts one unit per
		/// started `PayPerBondUnit` of its solver's pay (at least one): its solver needs
		/// room for that many minimum bonds, its verifiers bonds of that many minimum
		/// bonds, and a rejected proof, a wrong verdict or a missed one is slashed per
		/// unit, so that what a cheat risks grows with the pay it could take.
		#[pallet::constant]
		type PayPerBondUnit: Get<BalanceOf<Self>>;
		/// Slash of a verifier that does not reveal its forced-error secret by the end
		/// of the challenge window, or that did not apply a forced error.
		#[pallet::constant]
		type MissedRevealSlash: Get<BalanceOf<Self>>;
		/// Slash of a challenger that loses its dispute; a whistleblower's is taken once
		/// more for each game its verdict survived before, up to a minimum bond (the
		/// reporter's share only from the first). A runtime that changes its ratio to
		/// the minimum whistleblower bond while games are open recounts them
		/// (`migrations::CountOpenChallenges`).
		#[pallet::constant]
		type FalseChallengeSlash: Get<BalanceOf<Self>>;
		/// Distance threshold (f32 bits) of Threshold-mode tasks until profiling lands.
		#[pallet::constant]
		type DefaultThreshold: Get<u32>;
		/// The bounds every threshold is judged within.
		type ThresholdBounds: ThresholdBounds;
		/// Blocks in which a demanded checkpoint must be published in full
		/// ([`Pallet::demand_checkpoint`]), at least four blocks a page; past the first
		/// half a verifier may answer for the solver ([`Pallet::may_publish`]).
		/// Not a metadata constant: a runtime may let governance change it (the gensyn
		/// runtime does, through its parameters pallet).
		type PublishPeriod: Get<BlockNumberFor<Self>>;
		/// What a demand costs per started MiB of the checkpoint, paid to the treasury:
		/// block space is what a spammer would take. A demand of the largest state
		/// ([`Config::MaxPublishBytes`]) must cost less than [`Config::OffTaskBounty`], or
		/// a demander proved right would lose by it (checked by `integrity_test`).
		#[pallet::constant]
		type DemandFeePerMiB: Get<BalanceOf<Self>>;
		/// Most bytes a task's training state may take: any checkpoint can be demanded
		/// and must fit on chain, so a spec with a larger state is refused.
		#[pallet::constant]
		type MaxPublishBytes: Get<u64>;
		/// Weights.
		type WeightInfo: WeightInfo;
		/// Watch tickets and off-task proofs for the benchmarks.
		#[cfg(feature = "runtime-benchmarks")]
		type BenchmarkHelper: BenchmarkHelper<
			Self::AccountId,
			<Self::Lottery as WatchLottery<Self::AccountId>>::Ticket,
		>;
	}

	/// The next task id.
	#[pallet::storage]
	pub type NextTaskId<T> = StorageValue<_, TaskId, ValueQuery>;

	/// Live tasks.
	#[pallet::storage]
	pub type Tasks<T: Config> = StorageMap<_, Twox64Concat, TaskId, Task<T>>;

	/// Specs of live tasks.
	#[pallet::storage]
	pub type Specs<T: Config> = StorageMap<_, Twox64Concat, TaskId, TaskSpec>;

	/// Audits of live tasks.
	#[pallet::storage]
	pub type Audits<T: Config> = StorageMap<
		_,
		Twox64Concat,
		TaskId,
		BoundedVec<Audit<T::AccountId>, T::MaxAuditSegments>,
		ValueQuery,
	>;

	/// Verifiers a re-audit took off a live task's audits (their verdicts were refuted,
	/// or they reported or left a report unchecked), and, while there is room, those
	/// dropped for a missed verdict: never drawn again to re-audit that task.
	#[pallet::storage]
	pub type Replaced<T: Config> =
		StorageMap<_, Twox64Concat, TaskId, BoundedVec<T::AccountId, ReplacedBound<T>>, ValueQuery>;

	/// The block of each segment's current challenge, kept only for a watcher's
	/// ([`Watches`]) before reveals opened ([`RevealsFrom`]): only it may earn a catch.
	#[pallet::storage]
	pub type ChallengedAt<T: Config> =
		StorageDoubleMap<_, Twox64Concat, TaskId, Twox64Concat, u32, BlockNumberFor<T>>;

	/// The solver and the verifier of the last failing verdict on each segment that its
	/// solver contested: a solver contests a verdict once (each lost game would otherwise
	/// reopen the window for it, and it could hold its task unsettled game after game).
	#[pallet::storage]
	pub type SolverContested<T: Config> =
		StorageDoubleMap<_, Twox64Concat, TaskId, Twox64Concat, u32, (T::AccountId, T::AccountId)>;

	/// The verifier of each segment's verdict and how many games that verdict survived
	/// (each lost by its challenger). A whistleblower's next false challenge of it is
	/// slashed once more per game survived, up to a minimum bond
	/// ([`Pallet::false_challenge_units`]): holding a verdict game after game, each loss
	/// reopening the window for the holder first, costs more than one slash a game.
	#[pallet::storage]
	pub type Survived<T: Config> =
		StorageDoubleMap<_, Twox64Concat, TaskId, Twox64Concat, u32, (T::AccountId, u32)>;

	/// The block from which a training round's verifiers may reveal, fixed when its first
	/// window opens ([`Pallet::reveal_point`]): by the chain, so that no block author can
	/// put its challenge ahead of a reveal it saw in the pool.
	#[pallet::storage]
	pub type RevealsFrom<T: Config> = StorageMap<_, Twox64Concat, TaskId, BlockNumberFor<T>>;

	/// The last block (exclusive) in which each verifier of a live task may reveal: the
	/// end of the first window that judged its verdict or report, fixed when that window
	/// opens. A later window (a lost game reopening it, a re-audit's) never moves it, so
	/// that a verifier that missed its reveal cannot escape the slash by revealing then.
	/// Dropped with the verifier's binding.
	#[pallet::storage]
	pub type RevealBy<T: Config> = StorageDoubleMap<
		_,
		Twox64Concat,
		TaskId,
		Blake2_128Concat,
		T::AccountId,
		BlockNumberFor<T>,
	>;

	/// The checkpoints of a live task's round demanded on chain, by whom and until when,
	/// and how far each is published ([`Pallet::demand_checkpoint`]). Dropped as the
	/// round ends.
	#[pallet::storage]
	pub type Demands<T: Config> = StorageMap<
		_,
		Twox64Concat,
		TaskId,
		BoundedVec<Demand<T::AccountId, BalanceOf<T>, BlockNumberFor<T>>, DemandsBound<T>>,
		ValueQuery,
	>;

	/// A training round's watch lottery, drawn with its verifiers: only the challenges of
	/// whistleblowers whose ticket wins it ([`WatchDraw::won`]) earn catches, so a
	/// verifier's own account (which knows the forced segments without replaying) earns
	/// one only where it won, and no verifier knows beforehand whom the lottery picked.
	#[pallet::storage]
	pub type Watches<T: Config> = StorageMap<_, Twox64Concat, TaskId, WatchDraw<BlockNumberFor<T>>>;

	/// Every block's randomness folded into one value, the block it was last folded at,
	/// and a hash of the randomness last folded: what draws read
	/// ([`Pallet::fold_beacon`]).
	#[pallet::storage]
	pub type Beacon<T: Config> = StorageValue<_, ([u8; 32], BlockNumberFor<T>, [u8; 32])>;

	/// Tasks whose deadline fires at a block, in pages of at most
	/// `MaxDeadlinesPerBlock` (see [`queue`]).
	#[pallet::storage]
	pub type DeadlinePages<T: Config> = StorageDoubleMap<
		_,
		Twox64Concat,
		BlockNumberFor<T>,
		Twox64Concat,
		u32,
		BoundedVec<TaskId, T::MaxDeadlinesPerBlock>,
		ValueQuery,
	>;

	/// Pages of deadlines filed at a block.
	#[pallet::storage]
	pub type DeadlineCounts<T: Config> =
		StorageMap<_, Twox64Concat, BlockNumberFor<T>, u32, ValueQuery>;

	/// The earliest block whose deadlines were not all handled yet (they carry over).
	#[pallet::storage]
	pub type DeadlineBacklog<T: Config> = StorageValue<_, BlockNumberFor<T>, OptionQuery>;

	/// The first block of the last runtime upgrade (version 21; nothing before): a demand
	/// made within a publish period of it gives the nodes, whose workers stop until their
	/// operators run the new version, that long before its period starts (one made before
	/// it is due a whole period after it: [`Upgrades`]); a settlement that
	/// finds a fail the solver may contest within a challenge period of it keeps the
	/// window open until a period after it.
	#[pallet::storage]
	pub type LastUpgrade<T: Config> = StorageValue<_, BlockNumberFor<T>, ValueQuery>;

	/// The first blocks of the last [`UPGRADES_KEPT`] runtime upgrades, oldest first
	/// (version 24; upgrades before are not kept: they moved the demands they found): a
	/// demand still due at one is due a whole period after it ([`Demand::due_since`]).
	/// Kept rather than written into every demand at the upgrade, which would visit every
	/// round's.
	#[pallet::storage]
	pub type Upgrades<T: Config> =
		StorageValue<_, BoundedVec<BlockNumberFor<T>, ConstU32<UPGRADES_KEPT>>, ValueQuery>;

	/// Tasks whose committed run was proven not one of the task (`prove_off_task`), and
	/// who proved it: at settlement the proof is rejected with the prover as reporter.
	#[pallet::storage]
	pub type OffTask<T: Config> = StorageMap<_, Twox64Concat, TaskId, T::AccountId>;

	/// Bond units of live tasks that count more than one ([`Config::PayPerBondUnit`]);
	/// a task without an entry counts one. Fixed at submission: an engagement is
	/// released with the units it was counted with.
	#[pallet::storage]
	pub type BondUnits<T: Config> = StorageMap<_, Twox64Concat, TaskId, u32>;

	/// The profiles committed for a Threshold task and not yet revealed: each profiler's
	/// [`profile_commitment`]. Kept apart from the task so that no profile is seen
	/// before every profiler has committed its own.
	#[pallet::storage]
	pub type ProfileCommitments<T: Config> = StorageMap<
		_,
		Twox64Concat,
		TaskId,
		BoundedVec<(T::AccountId, Hash32), ConstU32<PROFILERS>>,
		ValueQuery,
	>;

	/// A draw whose time a party chose by when it acted (a game's end: its re-audit or
	/// the settlement; a reveal that kept the window open; the threshold's decision: the
	/// solver draw): its deadline and the block of the act, until it is due. There it
	/// waits for randomness made after the act and moves itself once
	/// ([`Pallet::move_draw`]), so that the party cannot line the draw up with a block of
	/// its own.
	#[pallet::storage]
	pub type MovedDraw<T: Config> =
		StorageMap<_, Twox64Concat, TaskId, (BlockNumberFor<T>, BlockNumberFor<T>)>;

	/// The false-challenge slashes each whistleblower's open games risk, one a game, more
	/// for a game over a verdict that survived games ([`Pallet::false_challenge_units`]).
	/// Its bond must cover them all ([`Pallet::covers_another_game`]), so that each honest
	/// defender it drags into a game is paid its share of the slash.
	#[pallet::storage]
	pub type OpenChallenges<T: Config> =
		StorageMap<_, Blake2_128Concat, T::AccountId, u32, ValueQuery>;

	/// Live tasks each worker takes part in (how many roles in it), for the runtime API.
	#[pallet::storage]
	pub type WorkerTasks<T: Config> =
		StorageDoubleMap<_, Blake2_128Concat, T::AccountId, Twox64Concat, TaskId, u32>;

	#[pallet::hooks]
	impl<T: Config> Hooks<BlockNumberFor<T>> for Pallet<T> {
		fn on_initialize(now: BlockNumberFor<T>) -> Weight {
			Self::fold_beacon(now);
			// A page's worth of deadlines a block: a flood carries over, late but never
			// lost.
			let budget = queue::Budget::per_block(T::MaxDeadlinesPerBlock::get());
			let done =
				Deadlines::<T>::drain(now, budget, |filed, id| Self::on_deadline(id, filed, now));
			T::WeightInfo::on_initialize(done.live).saturating_add(done.weight::<T::DbWeight>())
		}

		fn on_runtime_upgrade() -> Weight {
			// Every upgrade, after the storage migrations (which run first), before the
			// system pallet moves the block number on to the upgrade's block. What an
			// upgrade moves (a demand's due, a fail's window) is read from it, not written.
			let now = frame_system::Pallet::<T>::block_number().saturating_add(One::one());
			LastUpgrade::<T>::put(now);
			Upgrades::<T>::mutate(|kept| {
				// Full, it holds an oldest to drop.
				if kept.is_full() {
					kept.remove(0);
				}
				let _ = kept.try_push(now);
			});
			T::DbWeight::get().reads_writes(1, 2)
		}

		fn integrity_test() {
			Self::check_bounds();
		}

		#[cfg(feature = "try-runtime")]
		fn try_state(_n: BlockNumberFor<T>) -> Result<(), sp_runtime::TryRuntimeError> {
			Self::do_try_state()
		}
	}

	#[pallet::call]
	impl<T: Config> Pallet<T> {
		/// Submits a training task: validates `spec`, estimates its work, holds the
		/// escrow and draws a solver.
		#[pallet::call_index(0)]
		#[pallet::weight(T::WeightInfo::submit_task())]
		pub fn submit_task(origin: OriginFor<T>, spec: TaskSpec) -> DispatchResult {
			let owner = ensure_signed(origin)?;
			Self::do_submit_task(owner, spec)
		}

		/// Cancels a task no solver has accepted yet; the escrow is refunded but for the
		/// profiles revealed (never while a drawn profiler is at work).
		#[pallet::call_index(1)]
		#[pallet::weight(T::WeightInfo::cancel_task())]
		pub fn cancel_task(origin: OriginFor<T>, id: TaskId) -> DispatchResult {
			let who = ensure_signed(origin)?;
			Self::do_cancel_task(who, id)
		}

		/// The drawn solver accepts the task; the data-order randomness is fixed now.
		#[pallet::call_index(2)]
		#[pallet::weight(T::WeightInfo::accept_task())]
		pub fn accept_task(origin: OriginFor<T>, id: TaskId) -> DispatchResult {
			let who = ensure_signed(origin)?;
			Self::do_accept_task(who, id)
		}

		/// The offered solver declines the task, unslashed, before its accept deadline: it
		/// is not drawn for the task again (nor is any earlier decliner), and the next
		/// solver is drawn [`Config::RandomnessDelay`] blocks later (the task fails and is
		/// refunded once [`Config::MaxDraws`] draws found no solver). A solver that cannot
		/// fetch or check the submitter's data declines instead of letting its offer lapse
		/// (which is slashed).
		#[pallet::call_index(8)]
		#[pallet::weight(T::WeightInfo::decline_task())]
		pub fn decline_task(origin: OriginFor<T>, id: TaskId) -> DispatchResult {
			let who = ensure_signed(origin)?;
			Self::do_decline_task(who, id)
		}

		/// The solver commits its result.
		#[pallet::call_index(3)]
		#[pallet::weight(T::WeightInfo::submit_result())]
		pub fn submit_result(
			origin: OriginFor<T>,
			id: TaskId,
			final_hash: Hash32,
			checkpoint_root: Hash32,
			checkpoints: u32,
			location: BoundedVec<u8, T::MaxLocationLen>,
		) -> DispatchResult {
			let who = ensure_signed(origin)?;
			let committed = Commitment { final_hash, checkpoint_root, checkpoints, location };
			Self::do_submit_result(who, id, committed)
		}

		/// A drawn verifier posts its verdict on `segment`: the distance (f32 bits) and
		/// its replayed-state hash, with a proof of the solver's checkpoint at the
		/// segment's end.
		#[pallet::call_index(4)]
		#[pallet::weight(T::WeightInfo::submit_verification())]
		pub fn submit_verification(
			origin: OriginFor<T>,
			id: TaskId,
			segment: u32,
			distance: u32,
			replay_hash: Hash32,
			proof: CheckpointProof,
		) -> DispatchResult {
			let who = ensure_signed(origin)?;
			Self::do_submit_verification(who, id, segment, distance, replay_hash, proof)
		}

		/// A drawn verifier reports that the solver's proof store does not serve what
		/// `segment` needs (the journal, or the checkpoints as committed), or that the
		/// task's committed data cannot be replayed (its chunk root or content is not what
		/// the spec says, which a solver checks before it accepts), instead of a verdict.
		/// The audit counts as done, unpaid and unslashed, and the segment's start and end
		/// checkpoints are demanded on chain for nothing ([`Pallet::demand_checkpoint`]'s
		/// rules): unpublished by their due, the proof is rejected as withheld. At
		/// settlement the segment goes to a new verifier, as a voided verdict does, which
		/// may replay it from the pages; a second report rejects the proof only where the
		/// checkpoints could not be demanded (a state too large to publish). A report no
		/// verifier checks again within the segment's re-audits ([`Config::MaxReaudits`],
		/// shared with voided verdicts) fails the task unpaid and unslashed
		/// (`FailReason::Unverified`).
		#[pallet::call_index(7)]
		#[pallet::weight(T::WeightInfo::report_unavailable())]
		pub fn report_unavailable(
			origin: OriginFor<T>,
			id: TaskId,
			segment: u32,
		) -> DispatchResult {
			let who = ensure_signed(origin)?;
			Self::do_report_unavailable(who, id, segment)
		}

		/// A drawn profiler of a Threshold task commits to its distance threshold:
		/// `commitment` is [`profile_commitment`] of the task, its account, the threshold
		/// and a secret salt. Once every drawn profiler has committed, reveals open
		/// ([`Pallet::reveal_profile`]): no profile can be copied from another's.
		#[pallet::call_index(12)]
		#[pallet::weight(T::WeightInfo::commit_profile())]
		pub fn commit_profile(
			origin: OriginFor<T>,
			id: TaskId,
			commitment: Hash32,
		) -> DispatchResult {
			let who = ensure_signed(origin)?;
			Self::do_commit_profile(who, id, commitment)
		}

		/// A profiler that committed reveals its threshold (f32 bits; finite and positive)
		/// and salt once reveals open. Once every committed profile is revealed, or at the
		/// reveal deadline (an unrevealed one is slashed as a missed profile), the
		/// threshold is decided: each profile near it is paid one segment's verification
		/// pay and the task is queued for the solver draw, `RandomnessDelay` blocks later
		/// and moved from there (the last reveal's sender chose its block).
		#[pallet::call_index(13)]
		#[pallet::weight(T::WeightInfo::reveal_profile())]
		pub fn reveal_profile(
			origin: OriginFor<T>,
			id: TaskId,
			threshold: u32,
			salt: Hash32,
		) -> DispatchResult {
			let who = ensure_signed(origin)?;
			Self::do_reveal_profile(who, id, threshold, salt)
		}

		/// A drawn profiler that cannot fetch or check the submitter's data declines the
		/// task, unslashed, before its deadline (a lapse is slashed); the other profilers'
		/// profiles decide the threshold, and with none left the task fails.
		#[pallet::call_index(9)]
		#[pallet::weight(T::WeightInfo::decline_profile())]
		pub fn decline_profile(origin: OriginFor<T>, id: TaskId) -> DispatchResult {
			let who = ensure_signed(origin)?;
			Self::do_decline_profile(who, id)
		}

		/// Challenges the verdict on `segment`: any active whistleblower may, and the
		/// solver may challenge a failing verdict; until the task's reveals open, a
		/// failing verdict only its watcher may. Opens a dispute with the arbiter.
		#[pallet::call_index(5)]
		#[pallet::weight(T::WeightInfo::challenge())]
		pub fn challenge(origin: OriginFor<T>, id: TaskId, segment: u32) -> DispatchResult {
			let who = ensure_signed(origin)?;
			Self::do_challenge(who, id, segment, None)
		}

		/// Challenges the verdict on `segment` as a watcher of the task's round: the
		/// `ticket` proves that `who` won the round's watch lottery ([`Watches`]). A
		/// watcher may challenge a failing verdict before reveals open, and only its
		/// challenges opened then earn a catch. Otherwise as [`Pallet::challenge`] (a
		/// ticket that does not win counts for nothing).
		#[pallet::call_index(10)]
		#[pallet::weight(T::WeightInfo::watch_challenge())]
		pub fn watch_challenge(
			origin: OriginFor<T>,
			id: TaskId,
			segment: u32,
			ticket: <T::Lottery as WatchLottery<T::AccountId>>::Ticket,
		) -> DispatchResult {
			let who = ensure_signed(origin)?;
			Self::do_challenge(who, id, segment, Some(ticket))
		}

		/// Anyone proves that the task's committed run is not one of the task
		/// ([`OffTaskProof`]: a checkpoint stamped off the task's schedule, or a first
		/// checkpoint that is not the task's seeded initial state). Verdicts replay a run
		/// from its own checkpoints, so partners of the solver could pass such a run; the
		/// chain checks this proof itself, and at settlement the solver's proof is
		/// rejected and slashed with the prover as its reporter.
		#[pallet::call_index(11)]
		#[pallet::weight(T::WeightInfo::prove_off_task())]
		pub fn prove_off_task(
			origin: OriginFor<T>,
			id: TaskId,
			proof: OffTaskProof,
		) -> DispatchResultWithPostInfo {
			let who = ensure_signed(origin)?;
			Self::do_prove_off_task(who, id, proof)?;
			// A proof the chain accepts is free; a refused one pays its fee.
			Ok(Pays::No.into())
		}

		/// Anyone who cannot fetch a checkpoint that a verdict replayed from (its
		/// segment's start, and in Threshold mode its end) demands it on chain, within the
		/// first challenge window that judged the verdict, for
		/// [`Config::DemandFeePerMiB`] a MiB. The solver then publishes it
		/// ([`Pallet::publish_page`]) within [`Config::PublishPeriod`]; the
		/// settlement waits for the pages until then, and the last one reopens the window
		/// a whole period. If nobody does, the solver served its checkpoint
		/// to its partners alone: at settlement its proof is rejected with the first
		/// such demander as reporter (paid as a prover of a run off its task).
		#[pallet::call_index(14)]
		#[pallet::weight(T::WeightInfo::demand_checkpoint())]
		pub fn demand_checkpoint(
			origin: OriginFor<T>,
			id: TaskId,
			checkpoint: u32,
		) -> DispatchResult {
			let who = ensure_signed(origin)?;
			Self::do_demand_checkpoint(who, id, checkpoint)
		}

		/// Publishes the next page of a demanded checkpoint of the task's run: `bytes` are
		/// page `page` of item `item` ([`gensyn_primitives::publish`]), proved by `proof`
		/// against the run's checkpoint root. The solver publishes, and past the first
		/// half of the publish period so may one verifier that read the checkpoint
		/// ([`Pallet::may_publish`]), so that a solver whose node is down is not
		/// rejected for it. Pages go in
		/// order; the last one answers the demand and keeps the window open a whole
		/// period, for anyone to replay from it. A page the chain accepts is free.
		#[pallet::call_index(15)]
		#[pallet::weight(T::WeightInfo::publish_page())]
		pub fn publish_page(
			origin: OriginFor<T>,
			id: TaskId,
			checkpoint: u32,
			item: u32,
			page: u32,
			bytes: BoundedVec<u8, ConstU32<{ gensyn_primitives::publish::PAGE_BYTES as u32 }>>,
			proof: gensyn_primitives::publish::PageProof,
		) -> DispatchResultWithPostInfo {
			let who = ensure_signed(origin)?;
			Self::do_publish_page(who, id, checkpoint, (item, page), &bytes, &proof)?;
			Ok(Pays::No.into())
		}
	}
}
