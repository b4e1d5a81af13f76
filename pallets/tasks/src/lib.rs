//! # Tasks pallet
//!
//! The life of a training task on chain, from escrow to settlement.
//!
//! 1. **Submit** (`submit_task`): the spec is decoded, validated and its work estimated
//!    with `gensyn-primitives`; a bad spec is refused with its named error
//!    (`Spec...`) and nothing is held. The escrow (solver pay + verification budget +
//!    jackpot and treasury cuts) is held from the submitter.
//! 2. **Assign**: an active solver whose claimed memory fits is drawn with
//!    [`Config::Randomness`] (BABE in the runtime). It must `accept_task` before
//!    [`Config::AcceptPeriod`] ends, or it is slashed a little and the draw moves on.
//!    With no fitting solver the task waits ([`Phase::Queued`]) and is re-drawn every
//!    [`Config::RetryPeriod`]. After [`Config::MaxDraws`] draws the task fails and is
//!    refunded. `cancel_task` refunds in full before a solver accepts.
//! 3. **Train**: on accept, the data-order randomness is fixed; the solver has until a
//!    deadline derived from the work estimate and its claimed speed to `submit_result`
//!    (final hash, checkpoint Merkle root, checkpoint count, proof-store location).
//! 4. **Verify**: [`Config::RandomnessDelay`] blocks after the commit, randomness that
//!    did not exist at the commit (checked with the randomness' `known_since` block)
//!    draws the audited segments and the verifiers. Each verifier posts, per segment,
//!    the distance and its replayed-state hash with a Merkle proof of the solver's
//!    checkpoint at the segment's end (`submit_verification`), or reports that the
//!    solver's proof store does not serve what the segment needs (`report_unavailable`:
//!    not paid, not slashed). A reported segment is audited again at settlement by a
//!    verifier never bound to the task; a second report means two verifiers drawn
//!    independently could not fetch the proof, and it is rejected as a failing audit
//!    would be (step 6). A verifier can dodge a forced error by reporting, at the price
//!    of that audit's pay; a re-audit of a report is never forced. A re-auditor that
//!    stays silent, or posts a verdict that does not hold, is slashed and the report
//!    stands: another verifier re-audits it, up to [`Config::MaxReaudits`] per segment.
//!    A report still unchecked after them (or with no verifier left to draw) leaves its
//!    segment unverified: the task fails unpaid and unslashed, the owner is refunded.
//! 5. **Challenge window**: an active whistleblower may challenge any verdict, the
//!    solver any failing one; the dispute goes to [`Config::Arbiter`] (the pinpoint
//!    game), which reports back through [`DisputeOutcome`]. A verdict whose replay the
//!    game refutes slashes its verifier and pays the challenger from the slash; the
//!    verdict is then void, except an Exact-mode pass, which becomes a fail (the replay
//!    does not reach the solver's checkpoint). A voided segment is audited again (up to
//!    [`Config::MaxReaudits`] times) by a verifier never bound to the task ([`Replaced`]
//!    remembers those a re-audit took off, and those dropped for a missed verdict), so a
//!    solver cannot buy a pass from one verifier and have its segment go unaudited; with
//!    none to draw it counts as not audited. The window opens again
//!    once the new verdicts are in.
//!    A refuted forced error instead pays a whistleblower from the jackpot. A verdict
//!    whose verifier never reveals its forced-error secret is void at settlement and
//!    its segment is audited again the same way (its verifier slashed once).
//! 6. **Settle** when the window ends with no open dispute: all audits pass → solver
//!    and verifiers paid, jackpot and treasury cuts taken, the rest refunded; a failing
//!    audit → verifiers paid, the solver slashed, and of its slash first what the
//!    verification cost goes back into the escrow (so the owner never pays for a
//!    cheater's audit); the task then goes back to step 2 with another solver (up to
//!    [`Config::MaxRounds`] rounds, while one fits and the escrow covers a round), or
//!    fails and the rest is refunded.
//!
//! Every live task has exactly one deadline, indexed by block in [`Deadlines`] and
//! handled in `on_initialize`; so no task can be stuck and no escrow stranded. The
//! invariants (escrow equals holds, every live task scheduled in the future) are
//! checked by [`Pallet::do_try_state`].
//!
//! Threshold tasks are profiled first (a drawn verifier proposes the distance threshold);
//! a task never profiled is judged against [`Config::DefaultThreshold`].

#![cfg_attr(not(feature = "std"), no_std)]
#![deny(missing_docs)]

extern crate alloc;

pub use pallet::*;

#[cfg(feature = "runtime-benchmarks")]
mod benchmarking;
#[cfg(test)]
mod mock;
#[cfg(test)]
mod tests;
pub mod weights;

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
use gensyn_primitives::{
	merkle, validate::infer_shapes, Optimizer, SpecError, TaskSpec, VerificationMode,
};
use pallet_gensyn_jackpot::ForcedErrors;
use pallet_gensyn_stake::{Role, StakeInterface};
use scale_info::TypeInfo;
use sp_runtime::{
	traits::{CheckedAdd, CheckedMul, Saturating, Zero},
	DispatchResult, Perbill, SaturatedConversion,
};

/// A task's id.
pub type TaskId = u64;

/// A 32-byte hash.
pub type Hash32 = [u8; 32];

/// Most sibling hashes in a checkpoint proof (trees of up to 2^32 leaves).
pub const MAX_PROOF_DEPTH: u32 = 32;

/// The balance type of the pallet's currency.
pub type BalanceOf<T> =
	<<T as Config>::Currency as Inspect<<T as frame_system::Config>::AccountId>>::Balance;

/// A task's audits, as stored.
pub type AuditsOf<T> =
	BoundedVec<Audit<<T as frame_system::Config>::AccountId>, <T as Config>::MaxAuditSegments>;

/// Where a task is in its life. Every phase has a deadline.
#[derive(
	Clone,
	Copy,
	PartialEq,
	Eq,
	Debug,
	Encode,
	Decode,
	DecodeWithMemTracking,
	MaxEncodedLen,
	TypeInfo,
)]
pub enum Phase {
	/// Threshold mode: a drawn profiler must post the distance threshold by the
	/// deadline (with no profiler yet, one is drawn at the deadline).
	Profiling,
	/// No fitting solver yet; re-drawn at the deadline.
	Queued,
	/// Offered to the solver; it must accept by the deadline.
	Offered,
	/// Accepted; the result is due by the deadline.
	Training,
	/// Result committed; verifiers and segments are drawn at the deadline.
	Drawing,
	/// Verifiers replay their segments until the deadline.
	Verifying,
	/// Challenge window; settled at the deadline when no dispute is open.
	Challenge,
	/// At least one dispute is open; the deadline is a safety timeout.
	Disputed,
}

/// Why a task failed.
#[derive(
	Clone,
	Copy,
	PartialEq,
	Eq,
	Debug,
	Encode,
	Decode,
	DecodeWithMemTracking,
	MaxEncodedLen,
	TypeInfo,
)]
pub enum FailReason {
	/// No solver accepted within the allowed draws.
	NoSolver,
	/// No verifier could be drawn within the allowed draws.
	NoVerifier,
	/// An audit failed: the proof of learning is wrong.
	ProofRejected,
	/// A deadline could not be scheduled (every block's deadline list full).
	Unschedulable,
	/// A segment could not be verified: the solver's store was reported unavailable
	/// and no verifier checked it again.
	Unverified,
}

/// A solver's committed result.
#[derive(
	CloneNoBound,
	PartialEqNoBound,
	EqNoBound,
	DebugNoBound,
	Encode,
	Decode,
	DecodeWithMemTracking,
	MaxEncodedLen,
	TypeInfo,
)]
#[scale_info(skip_type_params(MaxLoc))]
// The no-bound derives need `BlockNumber`'s bounds on the struct itself.
#[allow(clippy::multiple_bound_locations)]
pub struct TaskResult<BlockNumber: core::fmt::Debug + Clone + PartialEq, MaxLoc: Get<u32>> {
	/// Hash of the final checkpoint.
	pub final_hash: Hash32,
	/// Merkle root over the checkpoint state hashes (initial state first).
	pub checkpoint_root: Hash32,
	/// Number of checkpoints, initial state included.
	pub checkpoints: u32,
	/// Where the proof store serves this run (appended to the solver's endpoint).
	pub location: BoundedVec<u8, MaxLoc>,
	/// Block of the commit.
	pub committed_at: BlockNumber,
}

/// A verifier's verdict on one segment.
#[derive(
	Clone,
	Copy,
	PartialEq,
	Eq,
	Debug,
	Encode,
	Decode,
	DecodeWithMemTracking,
	MaxEncodedLen,
	TypeInfo,
)]
pub struct Verdict {
	/// Distance between the replayed state and the solver's checkpoint (f32 bits).
	pub distance: u32,
	/// Hash of the verifier's replayed state.
	pub replay_hash: Hash32,
	/// Whether the segment passed.
	pub pass: bool,
}

/// One audited segment.
#[derive(
	Clone, PartialEq, Eq, Debug, Encode, Decode, DecodeWithMemTracking, MaxEncodedLen, TypeInfo,
)]
pub struct Audit<AccountId> {
	/// Segment index: from checkpoint `segment` to checkpoint `segment + 1`.
	pub segment: u32,
	/// The verifier drawn for it.
	pub verifier: AccountId,
	/// Its verdict, once posted.
	pub verdict: Option<Verdict>,
	/// Who challenges the verdict, while a dispute is open.
	pub challenger: Option<AccountId>,
	/// The verdict was overturned in a dispute: its verifier is not paid, and the verdict
	/// is void (gone), except an Exact-mode pass, which becomes a fail.
	pub overturned: bool,
	/// Who won a dispute over this verdict. While the verifier's forced-error secret is
	/// unrevealed, what the win means (a caught forced error or a wrong verdict) waits
	/// for the settlement; a whistleblower that caught a forced error is paid from the
	/// jackpot then.
	pub refuted_by: Option<AccountId>,
	/// How many times the segment was given to a new verifier: after a verdict a dispute
	/// voided, a report of an unavailable store, or a re-auditor that left such a report
	/// unchecked (at most [`Config::MaxReaudits`]).
	pub reaudits: u32,
	/// The segment stands reported unavailable: its verifier reported that the solver's
	/// proof store did not serve what the segment needs (journal or checkpoints, as
	/// committed) instead of a verdict, or, after such a report, the re-auditor named
	/// here posted nothing or a verdict that does not hold (it is slashed, and the
	/// report stands unchecked until another re-audit checks it).
	pub unavailable: bool,
	/// This audit re-audits a segment whose previous verifier reported the store
	/// unavailable: a second report rejects the proof.
	pub reported_before: bool,
}

impl<AccountId> Audit<AccountId> {
	/// Whether its verifier still owes a verdict: none posted, none overturned (a verdict
	/// a game overturned is final, even when it was voided) and no unavailable store
	/// reported.
	pub fn awaits_verdict(&self) -> bool {
		self.verdict.is_none() && !self.overturned && !self.unavailable
	}
}

/// A Merkle proof of one checkpoint hash under a result's checkpoint root.
#[derive(
	Clone, PartialEq, Eq, Debug, Encode, Decode, DecodeWithMemTracking, MaxEncodedLen, TypeInfo,
)]
pub struct CheckpointProof {
	/// The solver's checkpoint state hash at the segment's end.
	pub checkpoint_hash: Hash32,
	/// Sibling hashes from the leaf level up.
	pub siblings: BoundedVec<Hash32, ConstU32<MAX_PROOF_DEPTH>>,
}

/// A live task.
#[derive(
	Encode, Decode, MaxEncodedLen, TypeInfo, CloneNoBound, PartialEqNoBound, EqNoBound, DebugNoBound,
)]
#[scale_info(skip_type_params(T))]
#[codec(mel_bound())]
pub struct Task<T: Config> {
	/// The submitter.
	pub owner: T::AccountId,
	/// What is still held from the owner for this task.
	pub escrow: BalanceOf<T>,
	/// The solver's pay on success.
	pub solver_pay: BalanceOf<T>,
	/// A verifier's pay per verified segment.
	pub segment_pay: BalanceOf<T>,
	/// The jackpot's cut on success.
	pub jackpot_cut: BalanceOf<T>,
	/// The treasury's cut on success.
	pub treasury_cut: BalanceOf<T>,
	/// Total work in gas.
	pub gas: u64,
	/// Memory a worker needs, in MiB.
	pub memory_mib: u32,
	/// Checkpoints the result must have (initial state included).
	pub checkpoints: u32,
	/// Segments to audit.
	pub audits: u32,
	/// Where the task is.
	pub phase: Phase,
	/// The block at which the current phase's deadline fires.
	pub deadline: BlockNumberFor<T>,
	/// Draws made so far (solver draws, then verifier draws).
	pub draws: u32,
	/// The solver offered or assigned.
	pub solver: Option<T::AccountId>,
	/// A solver that failed this task and is not drawn again for it.
	pub excluded: Option<T::AccountId>,
	/// Training rounds started: a rejected proof starts another with a new solver.
	pub rounds: u32,
	/// Data-order randomness fixed when the solver accepted.
	pub order_randomness: Hash32,
	/// The solver's committed result.
	pub result: Option<TaskResult<BlockNumberFor<T>, T::MaxLocationLen>>,
	/// End of the challenge window (settlement waits for it after disputes).
	pub window_end: BlockNumberFor<T>,
	/// Workers this task counts on (see `StakeInterface::note_engaged`).
	pub engaged: BoundedVec<T::AccountId, T::MaxEngaged>,
	/// The profiler drawn for a Threshold task, while profiling.
	pub profiler: Option<T::AccountId>,
	/// The profiled distance threshold (f32 bits), once posted.
	pub threshold: Option<u32>,
}

/// What a worker must do now, for the runtime API.
#[derive(Clone, PartialEq, Eq, Debug, Encode, Decode, TypeInfo)]
pub enum Duty<BlockNumber> {
	/// Profile the Threshold task and post its distance threshold by `by`.
	Profile {
		/// The task.
		task: TaskId,
		/// Deadline.
		by: BlockNumber,
	},
	/// Accept (or let lapse) the offered task by `by`.
	Accept {
		/// The task.
		task: TaskId,
		/// Deadline.
		by: BlockNumber,
	},
	/// Train the task and submit its result by `by`.
	Train {
		/// The task.
		task: TaskId,
		/// Data-order randomness fixed at assignment.
		order_randomness: Hash32,
		/// Deadline.
		by: BlockNumber,
	},
	/// Replay `segment` of the task and post a verdict by `by`.
	Verify {
		/// The task.
		task: TaskId,
		/// The segment.
		segment: u32,
		/// Deadline.
		by: BlockNumber,
		/// Whether the verifier's forced-error secret applies to this verdict (not on a
		/// re-audit of a reported segment, whose verdict must check the report).
		forcible: bool,
	},
	/// A dispute on `segment` of the task is open with this worker as a party.
	Dispute {
		/// The task.
		task: TaskId,
		/// The segment.
		segment: u32,
	},
	/// The verifier has no standing forced-error commitment: it cannot be drawn until
	/// it commits one (`jackpot.commit`).
	Commit,
	/// Reveal the forced-error secret bound to the task (`jackpot.reveal`) before its
	/// challenge window ends.
	Reveal {
		/// The task.
		task: TaskId,
		/// Deadline: the end of the challenge window.
		by: BlockNumber,
	},
	/// An active whistleblower may check the verdict on `segment` of the task (replay
	/// it) and challenge it before the window ends; so may the task's solver, for a
	/// failing verdict on its own work.
	Watch {
		/// The task.
		task: TaskId,
		/// The segment.
		segment: u32,
		/// Deadline: the end of the challenge window.
		by: BlockNumber,
	},
}

/// Most `Duty::Watch` one whistleblower is shown at once.
pub const MAX_WATCHED: usize = 256;

/// A task's committed result, for the runtime API.
#[derive(Clone, PartialEq, Eq, Debug, Encode, Decode, TypeInfo)]
pub struct ResultView {
	/// Hash of the final checkpoint.
	pub final_hash: Hash32,
	/// Merkle root over the checkpoint state hashes (initial state first).
	pub checkpoint_root: Hash32,
	/// Number of checkpoints, initial state included.
	pub checkpoints: u32,
	/// Where the run's proof store answers: the solver's endpoint followed by the
	/// location it committed.
	pub url: Vec<u8>,
}

/// What a task looks like to a client, for the runtime API.
#[derive(Clone, PartialEq, Eq, Debug, Encode, Decode, TypeInfo)]
pub struct TaskView<AccountId, Balance, BlockNumber> {
	/// The submitter.
	pub owner: AccountId,
	/// The phase.
	pub phase: Phase,
	/// Its deadline.
	pub deadline: BlockNumber,
	/// Escrow still held.
	pub escrow: Balance,
	/// The solver, if any.
	pub solver: Option<AccountId>,
	/// The audits with their verdicts.
	pub audits: Vec<Audit<AccountId>>,
	/// The SCALE-encoded spec.
	pub spec: Vec<u8>,
	/// Data-order randomness (zero until the solver accepts).
	pub order_randomness: Hash32,
	/// The profiled distance threshold (f32 bits), once posted.
	pub threshold: Option<u32>,
	/// The committed result, once submitted.
	pub result: Option<ResultView>,
}

sp_api::decl_runtime_apis! {
	/// Questions workers and clients ask the tasks pallet.
	pub trait TasksApi<AccountId, Balance, BlockNumber> where
		AccountId: codec::Codec,
		Balance: codec::Codec,
		BlockNumber: codec::Codec,
	{
		/// What `who` must do now.
		fn duties(who: AccountId) -> Vec<Duty<BlockNumber>>;
		/// A live task.
		fn task(id: TaskId) -> Option<TaskView<AccountId, Balance, BlockNumber>>;
		/// Tasks in their challenge window, with its end (what whistleblowers watch).
		fn challengeable() -> Vec<(TaskId, BlockNumber)>;
	}
}

/// The arbiter of disputes over verdicts (the pinpoint game of `pallet-arbitration`).
pub trait DisputeArbiter<AccountId> {
	/// Opens a dispute over `segment` of `task`; `Err` when it cannot be opened.
	fn open(
		task: TaskId,
		segment: u32,
		challenger: &AccountId,
		defendant: &AccountId,
	) -> DispatchResult;
	/// The tasks pallet gave up waiting for the dispute (safety timeout).
	fn cancel(task: TaskId, segment: u32);
}

/// No arbiter: challenges are refused.
impl<AccountId> DisputeArbiter<AccountId> for () {
	fn open(_: TaskId, _: u32, _: &AccountId, _: &AccountId) -> DispatchResult {
		Err(DispatchError::Other("no arbiter configured"))
	}
	fn cancel(_: TaskId, _: u32) {}
}

/// How an arbiter reports a dispute's outcome to the tasks pallet.
pub trait DisputeOutcome {
	/// The dispute over `segment` of `task` ended; `challenger_won` says who won.
	fn resolve(task: TaskId, segment: u32, challenger_won: bool) -> DispatchResult;
}

/// What is disputed: a verifier's replay of one segment, from the solver's checkpoint
/// `segment` (its root is a leaf of `checkpoint_root`) over `steps` training steps
/// starting at step `first_step`, which the verifier claims ends in `claimed_root`.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct DisputeContext {
	/// The task's spec (model, data, training).
	pub spec: TaskSpec,
	/// The data-order randomness fixed when the solver accepted.
	pub order_randomness: Hash32,
	/// Global index of the segment's first step.
	pub first_step: u64,
	/// Steps in the segment (the last segment may be shorter than `k`).
	pub steps: u64,
	/// The solver's checkpoint Merkle root.
	pub checkpoint_root: Hash32,
	/// Leaves of that root (checkpoints, initial state included).
	pub checkpoints: u32,
	/// The verifier's replayed-state root at the segment's end.
	pub claimed_root: Hash32,
}

/// Where an arbiter reads what a dispute is about.
pub trait DisputeSubjects {
	/// The context of the dispute over `segment` of `task`; `None` when there is no
	/// result or no verdict on that segment.
	fn context(task: TaskId, segment: u32) -> Option<DisputeContext>;
}

/// Adapts a randomness source whose output is optional (like BABE's
/// `ParentBlockRandomness`) to one that always returns a hash (the default hash when
/// there is none yet, which only happens in the first blocks).
pub struct FromOptional<R>(core::marker::PhantomData<R>);
impl<H: Default, B, R: Randomness<Option<H>, B>> Randomness<H, B> for FromOptional<R> {
	fn random(subject: &[u8]) -> (H, B) {
		let (h, b) = R::random(subject);
		(h.unwrap_or_default(), b)
	}
}

/// The most verifiers [`Replaced`] keeps for one task: one per re-audit, at most
/// [`Config::MaxReaudits`] for each of [`Config::MaxAuditSegments`] segments (verifiers
/// dropped for a missed verdict only take room no re-audit still to come can need).
pub struct ReplacedBound<T>(core::marker::PhantomData<T>);
impl<T: Config> Get<u32> for ReplacedBound<T> {
	fn get() -> u32 {
		T::MaxAuditSegments::get().saturating_mul(T::MaxReaudits::get())
	}
}

#[frame_support::pallet]
pub mod pallet {
	use super::*;
	use frame_system::pallet_prelude::*;

	/// The pallet.
	#[pallet::pallet]
	pub struct Pallet<T>(_);

	/// Reasons this pallet holds funds.
	#[pallet::composite_enum]
	pub enum HoldReason {
		/// A submitter's task escrow.
		Escrow,
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
		/// Blocks a drawn profiler has to post a Threshold task's threshold; zero turns
		/// profiling off (Threshold tasks then use [`Config::DefaultThreshold`]).
		#[pallet::constant]
		type ProfilePeriod: Get<BlockNumberFor<Self>>;
		/// Most draws of a task (solver and verifier draws together).
		#[pallet::constant]
		type MaxDraws: Get<u32>;
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
		#[pallet::constant]
		type MinTrainingPeriod: Get<BlockNumberFor<Self>>;
		/// Longest training deadline.
		#[pallet::constant]
		type MaxTrainingPeriod: Get<BlockNumberFor<Self>>;
		/// Blocks between the result commit and the verifier draw (at least 2, so the
		/// randomness cannot be known at the commit).
		#[pallet::constant]
		type RandomnessDelay: Get<BlockNumberFor<Self>>;
		/// Blocks verifiers have to post verdicts.
		#[pallet::constant]
		type VerifyPeriod: Get<BlockNumberFor<Self>>;
		/// Length of the challenge window.
		#[pallet::constant]
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
		/// Most workers one task counts on (solver, verifiers, challengers).
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
		/// Slash of a solver whose proof fails an audit.
		#[pallet::constant]
		type RejectedProofSlash: Get<BalanceOf<Self>>;
		/// Slash of a verifier that posts no verdict in time.
		#[pallet::constant]
		type MissedVerdictSlash: Get<BalanceOf<Self>>;
		/// Slash of a verifier whose verdict is overturned.
		#[pallet::constant]
		type WrongVerdictSlash: Get<BalanceOf<Self>>;
		/// Slash of a verifier that does not reveal its forced-error secret by the end
		/// of the challenge window, or that did not apply a forced error.
		#[pallet::constant]
		type MissedRevealSlash: Get<BalanceOf<Self>>;
		/// Slash of a challenger that loses its dispute.
		#[pallet::constant]
		type FalseChallengeSlash: Get<BalanceOf<Self>>;
		/// Distance threshold (f32 bits) of Threshold-mode tasks until profiling lands.
		#[pallet::constant]
		type DefaultThreshold: Get<u32>;
		/// Weights.
		type WeightInfo: WeightInfo;
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

	/// Tasks whose deadline fires at a block.
	#[pallet::storage]
	pub type Deadlines<T: Config> = StorageMap<
		_,
		Twox64Concat,
		BlockNumberFor<T>,
		BoundedVec<TaskId, T::MaxDeadlinesPerBlock>,
		ValueQuery,
	>;

	/// Live tasks each worker takes part in (how many roles in it), for the runtime API.
	#[pallet::storage]
	pub type WorkerTasks<T: Config> =
		StorageDoubleMap<_, Blake2_128Concat, T::AccountId, Twox64Concat, TaskId, u32>;

	/// Events.
	#[pallet::event]
	#[pallet::generate_deposit(pub(super) fn deposit_event)]
	pub enum Event<T: Config> {
		/// A task was submitted with `escrow` held.
		TaskSubmitted {
			/// The task.
			id: TaskId,
			/// The submitter.
			owner: T::AccountId,
			/// Held.
			escrow: BalanceOf<T>,
			/// Work estimate in gas.
			gas: u64,
		},
		/// The owner cancelled the task and was refunded.
		TaskCancelled {
			/// The task.
			id: TaskId,
		},
		/// The task was offered to `solver` until `until`.
		SolverDrawn {
			/// The task.
			id: TaskId,
			/// The solver.
			solver: T::AccountId,
			/// Accept deadline.
			until: BlockNumberFor<T>,
		},
		/// No solver fits; the task waits.
		Queued {
			/// The task.
			id: TaskId,
		},
		/// The solver accepted; the result is due at `due`.
		TaskAccepted {
			/// The task.
			id: TaskId,
			/// The solver.
			solver: T::AccountId,
			/// Result deadline.
			due: BlockNumberFor<T>,
		},
		/// The solver committed its result.
		ResultSubmitted {
			/// The task.
			id: TaskId,
		},
		/// Verifiers and segments were drawn.
		VerifiersDrawn {
			/// The task.
			id: TaskId,
			/// `(segment, verifier)` pairs.
			audits: Vec<(u32, T::AccountId)>,
		},
		/// A profiler was drawn for a Threshold task.
		ProfilerDrawn {
			/// The task.
			id: TaskId,
			/// The profiler.
			profiler: T::AccountId,
			/// Deadline.
			until: BlockNumberFor<T>,
		},
		/// The task's distance threshold was posted.
		Profiled {
			/// The task.
			id: TaskId,
			/// Threshold (f32 bits).
			threshold: u32,
		},
		/// A verdict was posted.
		VerdictPosted {
			/// The task.
			id: TaskId,
			/// The segment.
			segment: u32,
			/// Whether it passed.
			pass: bool,
		},
		/// The re-auditor of a segment reported unavailable posted nothing by the verify
		/// deadline: the first report stands, unchecked.
		ReportStands {
			/// The task.
			id: TaskId,
			/// The segment.
			segment: u32,
		},
		/// A verifier reported that the solver's proof store did not serve a segment.
		StoreUnavailable {
			/// The task.
			id: TaskId,
			/// The segment.
			segment: u32,
			/// The verifier.
			verifier: T::AccountId,
		},
		/// A verdict was challenged.
		Challenged {
			/// The task.
			id: TaskId,
			/// The segment.
			segment: u32,
			/// The challenger.
			challenger: T::AccountId,
		},
		/// A segment whose verdict a dispute voided was given to another verifier.
		Reaudited {
			/// The task.
			id: TaskId,
			/// The segment.
			segment: u32,
			/// The new verifier.
			verifier: T::AccountId,
		},
		/// A dispute ended.
		DisputeResolved {
			/// The task.
			id: TaskId,
			/// The segment.
			segment: u32,
			/// Whether the challenger won.
			challenger_won: bool,
		},
		/// The task was settled: the solver and verifiers were paid.
		TaskCompleted {
			/// The task.
			id: TaskId,
			/// Paid to the solver.
			solver_paid: BalanceOf<T>,
			/// Paid to verifiers in all.
			verifiers_paid: BalanceOf<T>,
			/// Refunded to the owner.
			refunded: BalanceOf<T>,
		},
		/// An audit rejected `solver`'s proof: it was slashed, and `compensated` of the
		/// slash went back into the task's escrow for the verification it wasted. A
		/// `SolverDrawn` (or `Queued`) follows when the task goes on with another solver,
		/// a `TaskFailed` when it cannot.
		ProofRejected {
			/// The task.
			id: TaskId,
			/// The rejected solver.
			solver: T::AccountId,
			/// Paid back into the escrow from the solver's slash.
			compensated: BalanceOf<T>,
		},
		/// The task failed; the owner was refunded what was not paid out.
		TaskFailed {
			/// The task.
			id: TaskId,
			/// Why.
			reason: FailReason,
			/// Refunded to the owner.
			refunded: BalanceOf<T>,
		},
	}

	/// Errors.
	#[pallet::error]
	pub enum Error<T> {
		/// No such live task.
		UnknownTask,
		/// The signer is not the task's owner.
		NotOwner,
		/// The signer is not the task's solver.
		NotSolver,
		/// The signer is not the segment's verifier.
		NotVerifier,
		/// The signer is not the task's profiler.
		NotProfiler,
		/// The threshold is not a finite, non-negative number.
		InvalidThreshold,
		/// The task is not in the phase this call needs.
		WrongPhase,
		/// The result's checkpoint count differs from what the spec implies.
		WrongCheckpointCount,
		/// No audit of this segment.
		UnknownSegment,
		/// The verdict of this segment was already posted.
		AlreadyVerified,
		/// The segment has no verdict to challenge.
		NoVerdict,
		/// The verdict is already disputed.
		AlreadyDisputed,
		/// The signer may not challenge this verdict.
		NotAllowedToChallenge,
		/// The checkpoint proof does not match the result's checkpoint root.
		BadCheckpointProof,
		/// No dispute is open on this segment.
		NoDispute,
		/// Every block's deadline list in reach is full.
		DeadlineQueueFull,
		/// The task counts on too many workers.
		TooManyEngaged,
		/// The escrow overflows the balance type.
		EscrowOverflow,
		// One error per way a spec can be wrong (`gensyn_primitives::SpecError`).
		/// Bad spec: The model has no layer.
		SpecNoLayers,
		/// Bad spec: The model has more than `MAX_LAYERS` layers.
		SpecTooManyLayers,
		/// Bad spec: A dimension of the input shape is zero.
		SpecInputZero,
		/// Bad spec: The input shape exceeds `MAX_CHANNELS` / `MAX_SPATIAL` / `MAX_ACTIVATION`.
		SpecInputTooLarge,
		/// Bad spec: A size of this layer is zero (features, channels, kernel or stride).
		SpecZeroSize,
		/// Bad spec: A size of this layer exceeds its documented bound.
		SpecSizeOverBound,
		/// Bad spec: A `Linear` layer gets an image; put a `Flatten` before it.
		SpecLinearNeedsFlatInput,
		/// Bad spec: A `Linear` layer's `in_features` differs from its input's size.
		SpecLinearInputMismatch,
		/// Bad spec: A `Conv2d`, `MaxPool2d` or `Flatten` layer gets a flat input.
		SpecNeedsImageInput,
		/// Bad spec: A `Conv2d` layer's `in_channels` differs from its input's channels.
		SpecConvChannelMismatch,
		/// Bad spec: A `Conv2d` layer's padding is not smaller than its kernel.
		SpecPaddingNotBelowKernel,
		/// Bad spec: The (padded) input of a `Conv2d` / `MaxPool2d` layer is smaller than its kernel.
		SpecKernelLargerThanInput,
		/// Bad spec: This layer's output per sample exceeds `MAX_ACTIVATION` elements.
		SpecActivationTooLarge,
		/// Bad spec: The model has more than `MAX_PARAMETERS` parameters.
		SpecTooManyParameters,
		/// Bad spec: The model has no `Linear` or `Conv2d` layer.
		SpecNoTrainableLayer,
		/// Bad spec: The last layer's output is an image, not a vector of logits.
		SpecOutputNotFlat,
		/// Bad spec: The last layer's output size differs from the number of classes.
		SpecOutputClassMismatch,
		/// Bad spec: The model's input shape differs from the data's sample shape.
		SpecInputShapeMismatch,
		/// Bad spec: `data.classes` is below 2.
		SpecTooFewClasses,
		/// Bad spec: `data.classes` exceeds `MAX_CLASSES`.
		SpecTooManyClasses,
		/// Bad spec: `data.samples` is zero.
		SpecSamplesZero,
		/// Bad spec: `data.samples` exceeds `MAX_SAMPLES`.
		SpecTooManySamples,
		/// Bad spec: The data URI is empty.
		SpecUriEmpty,
		/// Bad spec: The data URI is not UTF-8.
		SpecUriNotUtf8,
		/// Bad spec: The data URI is not `file://`, `http://` or `https://`.
		SpecUnsupportedUriScheme,
		/// Bad spec: MNIST IDX data has one channel.
		SpecFormatNeedsOneChannel,
		/// Bad spec: MNIST IDX labels are bytes: at most 256 classes.
		SpecFormatTooManyClasses,
		/// Bad spec: `epochs` is zero.
		SpecEpochsZero,
		/// Bad spec: `epochs` exceeds `MAX_EPOCHS`.
		SpecTooManyEpochs,
		/// Bad spec: `batch_size` is zero.
		SpecBatchZero,
		/// Bad spec: `batch_size` exceeds `MAX_BATCH`.
		SpecBatchTooLarge,
		/// Bad spec: The run has more than `MAX_STEPS` steps.
		SpecTooManySteps,
		/// Bad spec: The checkpoint interval `k` is zero.
		SpecCheckpointIntervalZero,
		/// Bad spec: The checkpoint interval `k` exceeds the run's total steps.
		SpecCheckpointIntervalOverSteps,
		/// Bad spec: The learning rate is not finite and positive.
		SpecLrInvalid,
		/// Bad spec: SGD momentum is not in `[0, 1)`.
		SpecMomentumInvalid,
		/// Bad spec: Adam `beta1` is not in `[0, 1)`.
		SpecBeta1Invalid,
		/// Bad spec: Adam `beta2` is not in `[0, 1)`.
		SpecBeta2Invalid,
		/// Bad spec: Adam `eps` is not finite and positive.
		SpecEpsInvalid,
		/// Bad spec: A step schedule's `every_steps` is zero.
		SpecStepEveryZero,
		/// Bad spec: A step schedule's `gamma` is not in `(0, 1]`.
		SpecGammaInvalid,
		/// Bad spec: A cosine schedule's `total_steps` is zero.
		SpecCosineTotalZero,
		/// Bad spec: A cosine schedule's `min_lr` is not finite and in `[0, lr]`.
		SpecMinLrInvalid,
		/// Bad spec: The audit fraction is zero.
		SpecAuditFractionZero,
		/// Bad spec: The audit fraction exceeds 1_000_000 parts per million.
		SpecAuditFractionOverOne,
		/// Bad spec: The work estimate overflows a `u64`.
		SpecEstimateOverflow,
	}

	#[pallet::hooks]
	impl<T: Config> Hooks<BlockNumberFor<T>> for Pallet<T> {
		fn on_initialize(now: BlockNumberFor<T>) -> Weight {
			let due = Deadlines::<T>::take(now);
			let n = due.len() as u32;
			for id in due {
				Self::on_deadline(id, now);
			}
			T::WeightInfo::on_initialize(n)
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
			let est = gensyn_primitives::estimate(&spec).map_err(Self::spec_error)?;
			let memory_mib = Self::memory_mib(&spec).map_err(Self::spec_error)?;
			let steps = est.steps;
			let k = u64::from(spec.training.checkpoint_interval.max(1));
			let segments = steps.div_ceil(k);
			let checkpoints: u32 =
				segments.saturating_add(1).try_into().map_err(|_| Error::<T>::SpecTooManySteps)?;
			let segments = checkpoints.saturating_sub(1);
			let fraction = u64::from(spec.verification.audit_fraction.0);
			let wanted = u64::from(segments).saturating_mul(fraction).div_ceil(1_000_000).max(1);
			let audits = (wanted.min(u64::from(T::MaxAuditSegments::get())) as u32).min(segments);
			let segment_gas = est.per_step.saturating_mul(k.min(steps));
			let solver_pay = Self::price(est.total, T::PricePerMegagas::get())?;
			let segment_pay = Self::price(segment_gas, T::VerifyPricePerMegagas::get())?;
			let jackpot_cut = T::JackpotCut::get() * solver_pay;
			let treasury_cut = T::TreasuryCut::get() * solver_pay;
			let profiling = spec.verification.mode == VerificationMode::Threshold
				&& !T::ProfilePeriod::get().is_zero();
			// The profiler replays one segment's worth of work.
			let paid_segments = audits.saturating_add(u32::from(profiling));
			let escrow = segment_pay
				.checked_mul(&paid_segments.into())
				.and_then(|v| v.checked_add(&solver_pay))
				.and_then(|v| v.checked_add(&jackpot_cut))
				.and_then(|v| v.checked_add(&treasury_cut))
				.ok_or(Error::<T>::EscrowOverflow)?;
			T::Currency::hold(&HoldReason::Escrow.into(), &owner, escrow)?;
			let id = NextTaskId::<T>::get();
			NextTaskId::<T>::put(id.saturating_add(1));
			let now = frame_system::Pallet::<T>::block_number();
			let mut task = Task::<T> {
				owner: owner.clone(),
				escrow,
				solver_pay,
				segment_pay,
				jackpot_cut,
				treasury_cut,
				gas: est.total,
				memory_mib,
				checkpoints,
				audits,
				phase: Phase::Queued,
				deadline: now,
				draws: 0,
				solver: None,
				excluded: None,
				rounds: 1,
				order_randomness: [0; 32],
				result: None,
				window_end: now,
				engaged: BoundedVec::default(),
				profiler: None,
				threshold: None,
			};
			Specs::<T>::insert(id, spec);
			Self::deposit_event(Event::TaskSubmitted { id, owner, escrow, gas: est.total });
			let alive = if profiling {
				Self::draw_profiler(id, &mut task, now)?
			} else {
				Self::draw_solver(id, &mut task, now)?
			};
			if alive {
				Tasks::<T>::insert(id, task);
			}
			Ok(())
		}

		/// Cancels a task no solver has accepted yet; the escrow is refunded in full.
		#[pallet::call_index(1)]
		#[pallet::weight(T::WeightInfo::cancel_task())]
		pub fn cancel_task(origin: OriginFor<T>, id: TaskId) -> DispatchResult {
			let who = ensure_signed(origin)?;
			let mut task = Tasks::<T>::get(id).ok_or(Error::<T>::UnknownTask)?;
			ensure!(task.owner == who, Error::<T>::NotOwner);
			ensure!(
				matches!(task.phase, Phase::Profiling | Phase::Queued | Phase::Offered),
				Error::<T>::WrongPhase
			);
			Self::release_rest(&mut task);
			Self::close(id, &mut task);
			Self::deposit_event(Event::TaskCancelled { id });
			Ok(())
		}

		/// The drawn solver accepts the task; the data-order randomness is fixed now.
		#[pallet::call_index(2)]
		#[pallet::weight(T::WeightInfo::accept_task())]
		pub fn accept_task(origin: OriginFor<T>, id: TaskId) -> DispatchResult {
			let who = ensure_signed(origin)?;
			let mut task = Tasks::<T>::get(id).ok_or(Error::<T>::UnknownTask)?;
			ensure!(task.phase == Phase::Offered, Error::<T>::WrongPhase);
			ensure!(task.solver.as_ref() == Some(&who), Error::<T>::NotSolver);
			let now = frame_system::Pallet::<T>::block_number();
			let (r, _) = T::Randomness::random(&(b"gensyn/order", id).encode());
			task.order_randomness = sp_crypto_hashing::blake2_256(&(id, r).encode());
			let speed = T::Stake::capability(&who).map(|c| c.mgas_per_sec).unwrap_or(1);
			let due =
				Self::schedule(id, now.saturating_add(Self::training_period(task.gas, speed)))?;
			task.phase = Phase::Training;
			task.deadline = due;
			Tasks::<T>::insert(id, task);
			Self::deposit_event(Event::TaskAccepted { id, solver: who, due });
			Ok(())
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
			let mut task = Tasks::<T>::get(id).ok_or(Error::<T>::UnknownTask)?;
			ensure!(task.phase == Phase::Training, Error::<T>::WrongPhase);
			ensure!(task.solver.as_ref() == Some(&who), Error::<T>::NotSolver);
			ensure!(checkpoints == task.checkpoints, Error::<T>::WrongCheckpointCount);
			let now = frame_system::Pallet::<T>::block_number();
			let delay = T::RandomnessDelay::get().max(2u32.into());
			task.deadline = Self::schedule(id, now.saturating_add(delay))?;
			task.phase = Phase::Drawing;
			task.draws = 0;
			task.result = Some(TaskResult {
				final_hash,
				checkpoint_root,
				checkpoints,
				location,
				committed_at: now,
			});
			Tasks::<T>::insert(id, task);
			Self::deposit_event(Event::ResultSubmitted { id });
			Ok(())
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
			let (mut task, mut audits, i) = Self::owed_audit(id, segment, &who)?;
			let audit = audits.get_mut(i).ok_or(Error::<T>::UnknownSegment)?;
			let result = task.result.as_ref().ok_or(Error::<T>::WrongPhase)?;
			let mp = merkle::MerkleProof {
				leaf_index: segment.saturating_add(1),
				leaf_count: result.checkpoints,
				siblings: proof.siblings.into_inner(),
			};
			ensure!(
				merkle::verify_proof(&result.checkpoint_root, &proof.checkpoint_hash, &mp),
				Error::<T>::BadCheckpointProof
			);
			let mode =
				Specs::<T>::get(id).map(|s| s.verification.mode).unwrap_or(VerificationMode::Exact);
			let pass = match mode {
				VerificationMode::Exact => replay_hash == proof.checkpoint_hash,
				VerificationMode::Threshold => {
					let d = f32::from_bits(distance);
					let limit = task.threshold.unwrap_or_else(T::DefaultThreshold::get);
					d.is_finite() && d >= 0.0 && d <= f32::from_bits(limit)
				}
			};
			audit.verdict = Some(Verdict { distance, replay_hash, pass });
			Self::note_done(id, &mut task, audits)?;
			Self::deposit_event(Event::VerdictPosted { id, segment, pass });
			Ok(())
		}

		/// A drawn verifier reports that the solver's proof store does not serve what
		/// `segment` needs (the journal, or the checkpoints as committed), instead of a
		/// verdict. The audit counts as done, unpaid and unslashed. At settlement the
		/// segment goes to a new verifier, as a voided verdict does; when the new verifier
		/// reports it unavailable too, two verifiers drawn independently could not fetch
		/// the solver's proof and it is rejected. A report no verifier checks again within
		/// the segment's re-audits ([`Config::MaxReaudits`], shared with voided verdicts)
		/// fails the task unpaid and unslashed (`FailReason::Unverified`).
		#[pallet::call_index(7)]
		#[pallet::weight(T::WeightInfo::report_unavailable())]
		pub fn report_unavailable(
			origin: OriginFor<T>,
			id: TaskId,
			segment: u32,
		) -> DispatchResult {
			let who = ensure_signed(origin)?;
			let (mut task, mut audits, i) = Self::owed_audit(id, segment, &who)?;
			let audit = audits.get_mut(i).ok_or(Error::<T>::UnknownSegment)?;
			audit.unavailable = true;
			Self::note_done(id, &mut task, audits)?;
			Self::deposit_event(Event::StoreUnavailable { id, segment, verifier: who });
			Ok(())
		}

		/// The drawn profiler of a Threshold task posts its distance threshold (f32
		/// bits; finite and not negative). It is paid one segment's verification pay and
		/// the task moves on to the solver draw.
		#[pallet::call_index(6)]
		#[pallet::weight(T::WeightInfo::submit_profile())]
		pub fn submit_profile(origin: OriginFor<T>, id: TaskId, threshold: u32) -> DispatchResult {
			let who = ensure_signed(origin)?;
			let mut task = Tasks::<T>::get(id).ok_or(Error::<T>::UnknownTask)?;
			ensure!(task.phase == Phase::Profiling, Error::<T>::WrongPhase);
			ensure!(task.profiler.as_ref() == Some(&who), Error::<T>::NotProfiler);
			let t = f32::from_bits(threshold);
			ensure!(t.is_finite() && t >= 0.0, Error::<T>::InvalidThreshold);
			task.threshold = Some(threshold);
			let pay = task.segment_pay;
			let paid = Self::pay(&mut task, &who, pay);
			if !paid.is_zero() {
				T::Stake::note_earned(&who, Role::Verifier, paid);
			}
			Self::disengage(id, &mut task, &who);
			task.profiler = None;
			task.excluded = None;
			task.draws = 0;
			let now = frame_system::Pallet::<T>::block_number();
			if Self::draw_solver(id, &mut task, now)? {
				Tasks::<T>::insert(id, task);
			}
			Self::deposit_event(Event::Profiled { id, threshold });
			Ok(())
		}

		/// Challenges the verdict on `segment`: any active whistleblower may, and the
		/// solver may challenge a failing verdict. Opens a dispute with the arbiter.
		#[pallet::call_index(5)]
		#[pallet::weight(T::WeightInfo::challenge())]
		pub fn challenge(origin: OriginFor<T>, id: TaskId, segment: u32) -> DispatchResult {
			let who = ensure_signed(origin)?;
			let mut task = Tasks::<T>::get(id).ok_or(Error::<T>::UnknownTask)?;
			ensure!(
				matches!(task.phase, Phase::Challenge | Phase::Disputed),
				Error::<T>::WrongPhase
			);
			let mut audits = Audits::<T>::get(id);
			let audit = audits
				.iter_mut()
				.find(|a| a.segment == segment)
				.ok_or(Error::<T>::UnknownSegment)?;
			let verdict = audit.verdict.ok_or(Error::<T>::NoVerdict)?;
			ensure!(audit.challenger.is_none(), Error::<T>::AlreadyDisputed);
			// A verdict a game already refuted is not tried twice.
			ensure!(audit.refuted_by.is_none(), Error::<T>::NotAllowedToChallenge);
			let is_solver = task.solver.as_ref() == Some(&who);
			let allowed = who != audit.verifier
				&& ((is_solver && !verdict.pass)
					|| (!is_solver && T::Stake::is_active(&who, Role::Whistleblower)));
			ensure!(allowed, Error::<T>::NotAllowedToChallenge);
			T::Arbiter::open(id, segment, &who, &audit.verifier)?;
			audit.challenger = Some(who.clone());
			Audits::<T>::insert(id, audits);
			Self::engage(id, &mut task, &who)?;
			if task.phase == Phase::Challenge {
				let now = frame_system::Pallet::<T>::block_number();
				task.deadline = Self::schedule(id, now.saturating_add(T::DisputeTimeout::get()))?;
				task.phase = Phase::Disputed;
			}
			Tasks::<T>::insert(id, task);
			Self::deposit_event(Event::Challenged { id, segment, challenger: who });
			Ok(())
		}
	}

	impl<T: Config> DisputeSubjects for Pallet<T> {
		fn context(id: TaskId, segment: u32) -> Option<DisputeContext> {
			let task = Tasks::<T>::get(id)?;
			let spec = Specs::<T>::get(id)?;
			let result = task.result.as_ref()?;
			let verdict = Audits::<T>::get(id).iter().find(|a| a.segment == segment)?.verdict?;
			let k = u64::from(spec.training.checkpoint_interval.max(1));
			let first_step = u64::from(segment).checked_mul(k)?;
			let steps = spec.total_steps().checked_sub(first_step)?.min(k);
			Some(DisputeContext {
				order_randomness: task.order_randomness,
				first_step,
				steps,
				checkpoint_root: result.checkpoint_root,
				checkpoints: result.checkpoints,
				claimed_root: verdict.replay_hash,
				spec,
			})
		}
	}

	impl<T: Config> DisputeOutcome for Pallet<T> {
		fn resolve(id: TaskId, segment: u32, challenger_won: bool) -> DispatchResult {
			let mut task = Tasks::<T>::get(id).ok_or(Error::<T>::UnknownTask)?;
			ensure!(task.phase == Phase::Disputed, Error::<T>::WrongPhase);
			let mut audits = Audits::<T>::get(id);
			let audit = audits
				.iter_mut()
				.find(|a| a.segment == segment)
				.ok_or(Error::<T>::UnknownSegment)?;
			let challenger = audit.challenger.take().ok_or(Error::<T>::NoDispute)?;
			let challenger_role = if task.solver.as_ref() == Some(&challenger) {
				Role::Solver
			} else {
				Role::Whistleblower
			};
			if challenger_won {
				audit.refuted_by = Some(challenger.clone());
				// A revealed honest verdict was wrong: overturned now. A caught forced
				// error (the verifier did what it had to) and a verdict whose secret is
				// not revealed yet are decided at settlement, once the secret is known.
				if Self::was_wrong(Self::forced(id, audit), audit) == Some(true) {
					Self::overturn(id, audit, &challenger);
				}
			} else {
				T::Stake::slash(
					&challenger,
					challenger_role,
					T::FalseChallengeSlash::get(),
					Some(&audit.verifier),
				);
			}
			let open = audits.iter().any(|a| a.challenger.is_some());
			Self::disengage(id, &mut task, &challenger);
			if !open {
				let now = frame_system::Pallet::<T>::block_number();
				if Self::reaudit(id, &mut task, &mut audits)? {
					// The new verifiers post within a verify period; the window then
					// opens again for every verdict.
					task.deadline = Self::schedule(id, now.saturating_add(T::VerifyPeriod::get()))?;
					task.phase = Phase::Verifying;
				} else {
					let at = task.window_end.max(now.saturating_add(1u32.into()));
					task.deadline = Self::schedule(id, at)?;
					task.phase = Phase::Challenge;
				}
			}
			Audits::<T>::insert(id, audits);
			Tasks::<T>::insert(id, task);
			Self::deposit_event(Event::DisputeResolved { id, segment, challenger_won });
			Ok(())
		}
	}

	impl<T: Config> Pallet<T> {
		/// Maps a spec error to this pallet's error of the same name.
		pub fn spec_error(e: SpecError) -> Error<T> {
			match e {
				SpecError::NoLayers => Error::<T>::SpecNoLayers,
				SpecError::TooManyLayers => Error::<T>::SpecTooManyLayers,
				SpecError::InputZero => Error::<T>::SpecInputZero,
				SpecError::InputTooLarge => Error::<T>::SpecInputTooLarge,
				SpecError::ZeroSize { .. } => Error::<T>::SpecZeroSize,
				SpecError::SizeOverBound { .. } => Error::<T>::SpecSizeOverBound,
				SpecError::LinearNeedsFlatInput { .. } => Error::<T>::SpecLinearNeedsFlatInput,
				SpecError::LinearInputMismatch { .. } => Error::<T>::SpecLinearInputMismatch,
				SpecError::NeedsImageInput { .. } => Error::<T>::SpecNeedsImageInput,
				SpecError::ConvChannelMismatch { .. } => Error::<T>::SpecConvChannelMismatch,
				SpecError::PaddingNotBelowKernel { .. } => Error::<T>::SpecPaddingNotBelowKernel,
				SpecError::KernelLargerThanInput { .. } => Error::<T>::SpecKernelLargerThanInput,
				SpecError::ActivationTooLarge { .. } => Error::<T>::SpecActivationTooLarge,
				SpecError::TooManyParameters => Error::<T>::SpecTooManyParameters,
				SpecError::NoTrainableLayer => Error::<T>::SpecNoTrainableLayer,
				SpecError::OutputNotFlat => Error::<T>::SpecOutputNotFlat,
				SpecError::OutputClassMismatch { .. } => Error::<T>::SpecOutputClassMismatch,
				SpecError::InputShapeMismatch => Error::<T>::SpecInputShapeMismatch,
				SpecError::TooFewClasses => Error::<T>::SpecTooFewClasses,
				SpecError::TooManyClasses => Error::<T>::SpecTooManyClasses,
				SpecError::SamplesZero => Error::<T>::SpecSamplesZero,
				SpecError::TooManySamples => Error::<T>::SpecTooManySamples,
				SpecError::UriEmpty => Error::<T>::SpecUriEmpty,
				SpecError::UriNotUtf8 => Error::<T>::SpecUriNotUtf8,
				SpecError::UnsupportedUriScheme => Error::<T>::SpecUnsupportedUriScheme,
				SpecError::FormatNeedsOneChannel => Error::<T>::SpecFormatNeedsOneChannel,
				SpecError::FormatTooManyClasses => Error::<T>::SpecFormatTooManyClasses,
				SpecError::EpochsZero => Error::<T>::SpecEpochsZero,
				SpecError::TooManyEpochs => Error::<T>::SpecTooManyEpochs,
				SpecError::BatchZero => Error::<T>::SpecBatchZero,
				SpecError::BatchTooLarge => Error::<T>::SpecBatchTooLarge,
				SpecError::TooManySteps => Error::<T>::SpecTooManySteps,
				SpecError::CheckpointIntervalZero => Error::<T>::SpecCheckpointIntervalZero,
				SpecError::CheckpointIntervalOverSteps => {
					Error::<T>::SpecCheckpointIntervalOverSteps
				}
				SpecError::LrInvalid => Error::<T>::SpecLrInvalid,
				SpecError::MomentumInvalid => Error::<T>::SpecMomentumInvalid,
				SpecError::Beta1Invalid => Error::<T>::SpecBeta1Invalid,
				SpecError::Beta2Invalid => Error::<T>::SpecBeta2Invalid,
				SpecError::EpsInvalid => Error::<T>::SpecEpsInvalid,
				SpecError::StepEveryZero => Error::<T>::SpecStepEveryZero,
				SpecError::GammaInvalid => Error::<T>::SpecGammaInvalid,
				SpecError::CosineTotalZero => Error::<T>::SpecCosineTotalZero,
				SpecError::MinLrInvalid => Error::<T>::SpecMinLrInvalid,
				SpecError::AuditFractionZero => Error::<T>::SpecAuditFractionZero,
				SpecError::AuditFractionOverOne => Error::<T>::SpecAuditFractionOverOne,
				SpecError::EstimateOverflow => Error::<T>::SpecEstimateOverflow,
			}
		}

		/// `ceil(gas / 1e6) * price_per_megagas`.
		fn price(gas: u64, per_mgas: BalanceOf<T>) -> Result<BalanceOf<T>, Error<T>> {
			let mgas: BalanceOf<T> = gas.div_ceil(1_000_000).saturated_into();
			mgas.checked_mul(&per_mgas).ok_or(Error::<T>::EscrowOverflow)
		}

		/// Memory one worker needs for `spec`, in MiB: parameters with their gradient and
		/// optimizer state, plus a batch of activations and their gradients, as f32.
		/// (Not in `gensyn-primitives` yet, so it lives here.)
		pub fn memory_mib(spec: &TaskSpec) -> Result<u32, SpecError> {
			let shapes = infer_shapes(&spec.model)?;
			let activations = shapes.iter().fold(0u64, |acc, a| acc.saturating_add(a.numel()));
			let params = gensyn_primitives::estimate(spec)?.parameters;
			let states: u64 = match spec.training.optimizer {
				Optimizer::Sgd { .. } => 3,
				Optimizer::Adam { .. } => 4,
			};
			let floats = params.saturating_mul(states).saturating_add(
				activations.saturating_mul(u64::from(spec.training.batch_size)).saturating_mul(2),
			);
			let mib = floats.saturating_mul(4).div_ceil(1 << 20).max(1);
			Ok(mib.min(u64::from(u32::MAX)) as u32)
		}

		/// Blocks of training for `gas` at `mgas_per_sec`, with slack and the minimum.
		pub fn training_period(gas: u64, mgas_per_sec: u32) -> BlockNumberFor<T> {
			let per_block = u64::from(mgas_per_sec.max(1))
				.saturating_mul(1_000_000)
				.saturating_mul(u64::from(T::BlockSeconds::get().max(1)));
			let blocks = gas.div_ceil(per_block).saturating_mul(u64::from(T::TrainingSlack::get()));
			let blocks: BlockNumberFor<T> = blocks.saturated_into();
			T::MinTrainingPeriod::get().saturating_add(blocks).min(T::MaxTrainingPeriod::get())
		}

		/// A u64 from randomness and a subject.
		fn random_u64(subject: &[u8]) -> (u64, BlockNumberFor<T>) {
			let (r, known_since) = T::Randomness::random(subject);
			let h = sp_crypto_hashing::blake2_256(&(subject, r).encode());
			let mut b = [0u8; 8];
			for (d, s) in b.iter_mut().zip(h.iter()) {
				*d = *s;
			}
			(u64::from_le_bytes(b), known_since)
		}

		/// Puts `id` in the first block from `at` on whose deadline list has room (at
		/// most 64 blocks later); returns that block.
		fn schedule(id: TaskId, at: BlockNumberFor<T>) -> Result<BlockNumberFor<T>, Error<T>> {
			// Never at or before the current block: its deadlines were already drained.
			let next = frame_system::Pallet::<T>::block_number().saturating_add(1u32.into());
			let mut b = at.max(next);
			for _ in 0..64u32 {
				let ok = Deadlines::<T>::mutate(b, |list| list.try_push(id).is_ok());
				if ok {
					return Ok(b);
				}
				b = b.saturating_add(1u32.into());
			}
			Err(Error::<T>::DeadlineQueueFull)
		}

		/// Counts `who` as working on the task.
		fn engage(id: TaskId, task: &mut Task<T>, who: &T::AccountId) -> DispatchResult {
			task.engaged.try_push(who.clone()).map_err(|_| Error::<T>::TooManyEngaged)?;
			WorkerTasks::<T>::mutate(who, id, |n| *n = Some(n.unwrap_or(0).saturating_add(1)));
			T::Stake::note_engaged(who, true);
			Ok(())
		}

		/// Stops counting `who` once (if it was counted).
		fn disengage(id: TaskId, task: &mut Task<T>, who: &T::AccountId) {
			let Some(pos) = task.engaged.iter().position(|a| a == who) else { return };
			task.engaged.remove(pos);
			WorkerTasks::<T>::mutate_exists(who, id, |n| {
				let v = n.unwrap_or(0).saturating_sub(1);
				*n = if v == 0 { None } else { Some(v) };
			});
			T::Stake::note_engaged(who, false);
		}

		/// Draws a profiler for a Threshold task among active verifiers whose memory
		/// fits (never the owner nor a profiler that let it lapse). With none, waits a
		/// retry period; after `MaxDraws` draws, fails the task. Returns whether the task
		/// is still live.
		fn draw_profiler(
			id: TaskId,
			task: &mut Task<T>,
			now: BlockNumberFor<T>,
		) -> Result<bool, DispatchError> {
			if task.draws >= T::MaxDraws::get() {
				Self::fail(id, task, FailReason::NoVerifier);
				return Ok(false);
			}
			task.draws = task.draws.saturating_add(1);
			let pool: Vec<T::AccountId> = T::Stake::active(Role::Verifier)
				.into_iter()
				.filter(|(a, c)| {
					c.memory_mib >= task.memory_mib
						&& *a != task.owner
						&& task.excluded.as_ref() != Some(a)
				})
				.map(|(a, _)| a)
				.collect();
			let (x, _) = Self::random_u64(&(b"gensyn/profiler", id, task.draws).encode());
			let pick =
				if pool.is_empty() { None } else { pool.get((x % pool.len() as u64) as usize) };
			task.phase = Phase::Profiling;
			match pick.cloned() {
				Some(p) => {
					let until = Self::schedule(id, now.saturating_add(T::ProfilePeriod::get()))?;
					Self::engage(id, task, &p)?;
					task.profiler = Some(p.clone());
					task.deadline = until;
					Self::deposit_event(Event::ProfilerDrawn { id, profiler: p, until });
				}
				None => {
					task.deadline = Self::schedule(id, now.saturating_add(T::RetryPeriod::get()))?;
				}
			}
			Ok(true)
		}

		/// Draws a solver for the task among active solvers whose memory fits (never
		/// the owner nor an excluded solver). With none, queues the task; after
		/// `MaxDraws` draws, fails it. Returns whether the task is still live.
		fn draw_solver(
			id: TaskId,
			task: &mut Task<T>,
			now: BlockNumberFor<T>,
		) -> Result<bool, DispatchError> {
			if task.draws >= T::MaxDraws::get() {
				Self::fail(id, task, FailReason::NoSolver);
				return Ok(false);
			}
			task.draws = task.draws.saturating_add(1);
			let fitting: Vec<T::AccountId> = T::Stake::active(Role::Solver)
				.into_iter()
				.filter(|(a, c)| {
					c.memory_mib >= task.memory_mib
						&& *a != task.owner
						&& task.excluded.as_ref() != Some(a)
				})
				.map(|(a, _)| a)
				.collect();
			let (x, _) = Self::random_u64(&(b"gensyn/solver", id, task.draws).encode());
			let pick = if fitting.is_empty() {
				None
			} else {
				fitting.get((x % fitting.len() as u64) as usize).cloned()
			};
			match pick {
				Some(solver) => {
					let until = Self::schedule(id, now.saturating_add(T::AcceptPeriod::get()))?;
					Self::engage(id, task, &solver)?;
					task.solver = Some(solver.clone());
					task.phase = Phase::Offered;
					task.deadline = until;
					Self::deposit_event(Event::SolverDrawn { id, solver, until });
				}
				None => {
					task.deadline = Self::schedule(id, now.saturating_add(T::RetryPeriod::get()))?;
					task.phase = Phase::Queued;
					task.solver = None;
					Self::deposit_event(Event::Queued { id });
				}
			}
			Ok(true)
		}

		/// Draws the audited segments and their verifiers from randomness that did not
		/// exist at the commit. Returns whether the task is still live.
		fn draw_verifiers(
			id: TaskId,
			task: &mut Task<T>,
			now: BlockNumberFor<T>,
		) -> Result<bool, DispatchError> {
			let committed_at =
				task.result.as_ref().map(|r| r.committed_at).unwrap_or_else(Zero::zero);
			if task.draws >= T::MaxDraws::get() {
				Self::fail(id, task, FailReason::NoVerifier);
				return Ok(false);
			}
			task.draws = task.draws.saturating_add(1);
			let (seed, known_since) =
				Self::random_u64(&(b"gensyn/verify", id, task.draws).encode());
			let solver = task.solver.clone();
			let mut pool: Vec<T::AccountId> = T::Stake::active(Role::Verifier)
				.into_iter()
				.filter(|(a, c)| {
					c.memory_mib >= task.memory_mib
						&& Some(a) != solver.as_ref()
						&& *a != task.owner
						&& T::ForcedErrors::has_commitment(a)
				})
				.map(|(a, _)| a)
				.collect();
			if known_since <= committed_at || pool.is_empty() {
				let wait = T::RetryPeriod::get().max(1u32.into());
				task.deadline = Self::schedule(id, now.saturating_add(wait))?;
				return Ok(true);
			}
			let mut rng = gensyn_primitives::order::SplitMix64(seed);
			let mut verifiers: Vec<T::AccountId> = Vec::new();
			for _ in 0..T::VerifiersPerTask::get().max(1) {
				if pool.is_empty() {
					break;
				}
				let i = (rng.next_u64() % pool.len() as u64) as usize;
				if i < pool.len() {
					verifiers.push(pool.swap_remove(i));
				}
			}
			let segments = task.checkpoints.saturating_sub(1).max(1);
			let mut audits: AuditsOf<T> = BoundedVec::default();
			let mut picked: Vec<(u32, T::AccountId)> = Vec::new();
			for j in 0..task.audits {
				let mut s = (rng.next_u64() % u64::from(segments)) as u32;
				// Linear probe to the next unused segment (audits <= segments).
				for _ in 0..task.audits {
					if !audits.iter().any(|a| a.segment == s) {
						break;
					}
					s = s.saturating_add(1) % segments;
				}
				let Some(v) = verifiers.get((j as usize) % verifiers.len().max(1)).cloned() else {
					break;
				};
				if audits
					.try_push(Audit {
						segment: s,
						verifier: v.clone(),
						verdict: None,
						challenger: None,
						overturned: false,
						refuted_by: None,
						reaudits: 0,
						unavailable: false,
						reported_before: false,
					})
					.is_err()
				{
					break;
				}
				picked.push((s, v));
			}
			for v in verifiers.iter().filter(|v| picked.iter().any(|(_, p)| p == *v)) {
				Self::engage(id, task, v)?;
				T::ForcedErrors::bind(v, id);
			}
			Audits::<T>::insert(id, audits);
			task.deadline = Self::schedule(id, now.saturating_add(T::VerifyPeriod::get()))?;
			task.phase = Phase::Verifying;
			Self::deposit_event(Event::VerifiersDrawn { id, audits: picked });
			Ok(true)
		}

		/// Whether `audit`'s verdict is a forced error: `None` until its verifier revealed
		/// the secret bound to the task. A re-audit of a reported segment is never forced:
		/// its verdict is what checks the report, and a forced one would leave the segment
		/// unverified (failing the task) through no one's fault.
		fn forced(id: TaskId, audit: &Audit<T::AccountId>) -> Option<bool> {
			T::ForcedErrors::forced(&audit.verifier, id, audit.segment)
				.map(|forced| forced && !audit.reported_before)
		}

		/// Whether a refuted verdict was wrong, given its verifier's revealed `forced` flag:
		/// `Some(false)` for a forced error (a failing verdict on a forced segment: the
		/// verifier did what it had to), `Some(true)` for any other revealed verdict,
		/// `None` while the verifier's secret is unrevealed.
		fn was_wrong(forced: Option<bool>, audit: &Audit<T::AccountId>) -> Option<bool> {
			Some(!(forced? && audit.verdict.is_some_and(|v| !v.pass)))
		}

		/// Slashes `who` once per settlement for a verdict it cannot be trusted on (no
		/// reveal, or a forced error it did not apply).
		fn slash_untrusted(who: &T::AccountId, slashed: &mut Vec<T::AccountId>) {
			if !slashed.contains(who) {
				T::Stake::slash(who, Role::Verifier, T::MissedRevealSlash::get(), None);
				slashed.push(who.clone());
			}
		}

		/// A game refuted `audit`'s replay root and the verdict was not a forced error: its
		/// verifier is slashed (the winner reports it). In Exact mode a pass claimed the
		/// replay reaches the solver's checkpoint, so the segment fails; any other verdict
		/// is void (the segment counts as not audited).
		fn overturn(id: TaskId, audit: &mut Audit<T::AccountId>, winner: &T::AccountId) {
			T::Stake::slash(
				&audit.verifier,
				Role::Verifier,
				T::WrongVerdictSlash::get(),
				Some(winner),
			);
			let exact =
				Specs::<T>::get(id).is_some_and(|s| s.verification.mode == VerificationMode::Exact);
			match audit.verdict.as_mut() {
				Some(v) if exact && v.pass => v.pass = false,
				_ => audit.verdict = None,
			}
			audit.overturned = true;
		}

		/// Gives every segment whose verdict a dispute voided, or whose report of an
		/// unavailable store stands unchecked, while it has re-audits left
		/// ([`Config::MaxReaudits`]), to a new verifier: an active one with a standing
		/// forced-error commitment, not bound to the task now or before, neither its
		/// solver nor its owner. A report carries over to the re-audit, so a second report
		/// rejects the proof. A voided verifier left with no audit of the task is let go.
		/// Returns whether any segment was given.
		fn reaudit(
			id: TaskId,
			task: &mut Task<T>,
			audits: &mut AuditsOf<T>,
		) -> Result<bool, DispatchError> {
			let voided: Vec<usize> = audits
				.iter()
				.enumerate()
				.filter(|(_, a)| {
					// A report on a re-audit of a report is the second one: final.
					let second_report = a.unavailable && a.reported_before;
					a.reaudits < T::MaxReaudits::get()
						&& !second_report && (a.unavailable || (a.overturned && a.verdict.is_none()))
				})
				.map(|(i, _)| i)
				.collect();
			if voided.is_empty() {
				return Ok(false);
			}
			let mut replaced = Replaced::<T>::get(id);
			let mut pool: Vec<T::AccountId> = T::Stake::active(Role::Verifier)
				.into_iter()
				.filter(|(a, c)| {
					c.memory_mib >= task.memory_mib
						&& Some(a) != task.solver.as_ref()
						&& *a != task.owner
						&& !audits.iter().any(|x| x.verifier == *a)
						&& !replaced.contains(a)
						&& T::ForcedErrors::has_commitment(a)
				})
				.map(|(a, _)| a)
				.collect();
			let (seed, _) = Self::random_u64(&(b"gensyn/reaudit", id).encode());
			let mut rng = gensyn_primitives::order::SplitMix64(seed);
			let mut given = false;
			for i in voided {
				if pool.is_empty() {
					break;
				}
				let v = pool.swap_remove((rng.next_u64() % pool.len() as u64) as usize);
				if Self::engage(id, task, &v).is_err() {
					// The task counts on as many workers as it may: no re-audit.
					break;
				}
				let Some(a) = audits.get_mut(i) else { continue };
				let old = core::mem::replace(&mut a.verifier, v.clone());
				let segment = a.segment;
				a.verdict = None;
				a.overturned = false;
				a.challenger = None;
				a.refuted_by = None;
				a.reaudits = a.reaudits.saturating_add(1);
				a.reported_before = a.unavailable || a.reported_before;
				a.unavailable = false;
				T::ForcedErrors::bind(&v, id);
				if !replaced.contains(&old) {
					// At most `MaxReaudits` re-audits per segment: the bound holds.
					let _ = replaced.try_push(old.clone());
				}
				if !audits.iter().any(|x| x.verifier == old) {
					Self::disengage(id, task, &old);
					T::ForcedErrors::release(&old, id);
				}
				Self::deposit_event(Event::Reaudited { id, segment, verifier: v });
				given = true;
			}
			if given {
				Replaced::<T>::insert(id, replaced);
			}
			Ok(given)
		}

		/// The live task `id` in its Verifying phase, its audits and the index of the audit
		/// of `segment`, which `who` was drawn for and still owes a verdict on.
		fn owed_audit(
			id: TaskId,
			segment: u32,
			who: &T::AccountId,
		) -> Result<(Task<T>, AuditsOf<T>, usize), DispatchError> {
			let task = Tasks::<T>::get(id).ok_or(Error::<T>::UnknownTask)?;
			ensure!(task.phase == Phase::Verifying, Error::<T>::WrongPhase);
			let audits = Audits::<T>::get(id);
			let (i, audit) = audits
				.iter()
				.enumerate()
				.find(|(_, a)| a.segment == segment)
				.ok_or(Error::<T>::UnknownSegment)?;
			ensure!(audit.verifier == *who, Error::<T>::NotVerifier);
			ensure!(audit.awaits_verdict(), Error::<T>::AlreadyVerified);
			Ok((task, audits, i))
		}

		/// Stores `audits` after one of them was done, opening the challenge window when
		/// none awaits a verdict any more, and stores the task.
		fn note_done(id: TaskId, task: &mut Task<T>, audits: AuditsOf<T>) -> DispatchResult {
			let all_in = !audits.iter().any(Audit::awaits_verdict);
			Audits::<T>::insert(id, audits);
			if all_in {
				let now = frame_system::Pallet::<T>::block_number();
				Self::open_window(id, task, now)?;
			}
			Tasks::<T>::insert(id, task);
			Ok(())
		}

		/// Opens the challenge window.
		fn open_window(id: TaskId, task: &mut Task<T>, now: BlockNumberFor<T>) -> DispatchResult {
			let end = Self::schedule(id, now.saturating_add(T::ChallengePeriod::get()))?;
			task.window_end = end;
			task.deadline = end;
			task.phase = Phase::Challenge;
			Ok(())
		}

		/// Pays `amount` of the task's escrow to `dest`; returns what moved (nothing
		/// when it cannot, e.g. below the existential deposit: it is refunded later).
		fn pay(task: &mut Task<T>, dest: &T::AccountId, amount: BalanceOf<T>) -> BalanceOf<T> {
			let amount = amount.min(task.escrow);
			if amount.is_zero() {
				return amount;
			}
			let moved = frame_support::storage::with_storage_layer(|| {
				T::Currency::transfer_on_hold(
					&HoldReason::Escrow.into(),
					&task.owner,
					dest,
					amount,
					Precision::Exact,
					Restriction::Free,
					Fortitude::Polite,
				)
			})
			.unwrap_or_else(|_| Zero::zero());
			task.escrow = task.escrow.saturating_sub(moved);
			moved
		}

		/// Releases what is left of the task's escrow to its owner; returns it.
		fn release_rest(task: &mut Task<T>) -> BalanceOf<T> {
			let amount = task.escrow;
			if amount.is_zero() {
				return amount;
			}
			let released = T::Currency::release(
				&HoldReason::Escrow.into(),
				&task.owner,
				amount,
				Precision::BestEffort,
			)
			.unwrap_or_else(|_| Zero::zero());
			task.escrow = task.escrow.saturating_sub(released);
			released
		}

		/// Removes a finished task and stops counting on its workers.
		fn close(id: TaskId, task: &mut Task<T>) {
			Self::release_workers(id, task);
			Tasks::<T>::remove(id);
			Specs::<T>::remove(id);
		}

		/// Drops the task's audits, frees its verifiers' forced-error bindings and stops
		/// counting on every worker engaged in it.
		fn release_workers(id: TaskId, task: &mut Task<T>) {
			for a in Audits::<T>::take(id) {
				T::ForcedErrors::release(&a.verifier, id);
			}
			Replaced::<T>::remove(id);
			for who in core::mem::take(&mut task.engaged) {
				WorkerTasks::<T>::mutate_exists(&who, id, |n| {
					let v = n.unwrap_or(0).saturating_sub(1);
					*n = if v == 0 { None } else { Some(v) };
				});
				T::Stake::note_engaged(&who, false);
			}
		}

		/// What one training round costs at most: the solver's pay, the cuts and every
		/// audited segment's verification.
		fn round_cost(task: &Task<T>) -> BalanceOf<T> {
			task.segment_pay
				.saturating_mul(task.audits.into())
				.saturating_add(task.solver_pay)
				.saturating_add(task.jackpot_cut)
				.saturating_add(task.treasury_cut)
		}

		/// Rejects the solver's proof: slashes it, first paying back into the escrow what
		/// this round's verification cost the owner, then offers the task to another
		/// solver when rounds remain, another solver fits now and the escrow covers a
		/// round; otherwise fails the task (refunding the rest). Returns whether the
		/// task is still live.
		fn reject(
			id: TaskId,
			task: &mut Task<T>,
			solver: T::AccountId,
			reporter: Option<T::AccountId>,
			wasted: BalanceOf<T>,
			now: BlockNumberFor<T>,
		) -> Result<bool, DispatchError> {
			let outcome = T::Stake::slash_compensating(
				&solver,
				Role::Solver,
				T::RejectedProofSlash::get(),
				&task.owner,
				wasted,
				reporter.as_ref(),
			);
			let compensated = if outcome.to_victim.is_zero() {
				Zero::zero()
			} else {
				// Back into the escrow; should the hold fail, the owner keeps it free.
				frame_support::storage::with_storage_layer(|| {
					T::Currency::hold(&HoldReason::Escrow.into(), &task.owner, outcome.to_victim)
				})
				.map(|_| outcome.to_victim)
				.unwrap_or_else(|_| Zero::zero())
			};
			task.escrow = task.escrow.saturating_add(compensated);
			Self::deposit_event(Event::ProofRejected { id, solver: solver.clone(), compensated });
			let another = T::Stake::active(Role::Solver)
				.iter()
				.any(|(a, c)| c.memory_mib >= task.memory_mib && *a != task.owner && *a != solver);
			if task.rounds >= T::MaxRounds::get()
				|| !another || task.escrow < Self::round_cost(task)
			{
				Self::fail(id, task, FailReason::ProofRejected);
				return Ok(false);
			}
			Self::release_workers(id, task);
			task.rounds = task.rounds.saturating_add(1);
			task.solver = None;
			task.excluded = Some(solver);
			task.result = None;
			task.draws = 0;
			task.phase = Phase::Queued;
			Self::draw_solver(id, task, now)
		}

		/// Fails the task: refunds what is left and removes it.
		fn fail(id: TaskId, task: &mut Task<T>, reason: FailReason) {
			let refunded = Self::release_rest(task);
			Self::close(id, task);
			Self::deposit_event(Event::TaskFailed { id, reason, refunded });
		}

		/// Settles a task whose challenge window ended. Forced errors are voided (they
		/// never fail a solver) and pay the whistleblower that caught them; a verifier
		/// that did not reveal its secret, or did not apply a forced error, is slashed
		/// and its verdicts ignored. A verdict ignored for a missing reveal is void like
		/// a refuted one: its segment is audited again while it has re-audits left (so
		/// a verifier cannot buy a solver an unaudited segment for the price of the
		/// slash), and its verifier is slashed once, when its verdicts are judged.
		fn settle(
			id: TaskId,
			task: &mut Task<T>,
			now: BlockNumberFor<T>,
		) -> Result<bool, DispatchError> {
			let mut audits = Audits::<T>::get(id);
			let mut verifiers_paid: BalanceOf<T> = Zero::zero();
			let segment_pay = task.segment_pay;
			let solver_pay = task.solver_pay;
			let jackpot_cut = task.jackpot_cut;
			let treasury_cut = task.treasury_cut;
			let mut slashed: Vec<T::AccountId> = Vec::new();
			let mut void: Vec<u32> = Vec::new();
			// Each verifier's revealed forced flag for its segment, read once.
			let forced_of: Vec<Option<bool>> = audits.iter().map(|a| Self::forced(id, a)).collect();
			// Verifiers whose secret is unrevealed and whose verdicts are judged now (a
			// refutation waiting for the secret, or any other verdict): each is slashed
			// for the missed reveal once, below. Those verdicts are void from now on and
			// never judged again, so no later settlement slashes for them.
			let mut unrevealed: Vec<T::AccountId> = Vec::new();
			for (a, forced) in audits.iter().zip(&forced_of) {
				let judged = !a.overturned && (a.verdict.is_some() || a.refuted_by.is_some());
				if forced.is_none() && judged && !unrevealed.contains(&a.verifier) {
					unrevealed.push(a.verifier.clone());
				}
			}
			// Refutations that waited for the verifier's secret: unless the verdict was
			// a forced error, it was wrong.
			for (a, &forced) in audits.iter_mut().zip(&forced_of) {
				if a.overturned {
					continue;
				}
				let Some(winner) = a.refuted_by.clone() else { continue };
				if Self::was_wrong(forced, a) == Some(false) {
					continue;
				}
				Self::overturn(id, a, &winner);
			}
			// A re-audit verdict on a reported segment whose secret is unrevealed cannot be
			// trusted and does not check the report (a re-audit is never forced): its
			// verifier is slashed here, once, and the report stands again.
			for (a, &forced) in audits.iter_mut().zip(&forced_of) {
				let untrusted = forced.is_none() && a.verdict.is_some();
				if a.reported_before && !a.overturned && untrusted {
					Self::slash_untrusted(&a.verifier, &mut slashed);
					a.verdict = None;
					a.challenger = None;
					a.refuted_by = None;
					a.unavailable = true;
					a.reported_before = false;
					Self::deposit_event(Event::ReportStands { id, segment: a.segment });
				}
			}
			// Any other verdict whose secret is unrevealed cannot be trusted: void, like a
			// refuted one, so that its segment is audited again.
			for (a, &forced) in audits.iter_mut().zip(&forced_of) {
				if forced.is_none() && a.verdict.is_some() && !a.overturned {
					a.verdict = None;
					a.overturned = true;
				}
			}
			for v in &unrevealed {
				Self::slash_untrusted(v, &mut slashed);
			}
			if Self::reaudit(id, task, &mut audits)? {
				// A verdict voided just now is audited again first.
				Audits::<T>::insert(id, audits);
				task.deadline = Self::schedule(id, now.saturating_add(T::VerifyPeriod::get()))?;
				task.phase = Phase::Verifying;
				return Ok(true);
			}
			// No re-audit was given, so every audit keeps its verifier (and `forced_of`).
			for (a, &forced) in audits.iter_mut().zip(&forced_of) {
				if a.verdict.is_none() && !a.overturned {
					// Nothing posted to judge (an unavailability report included).
					continue;
				}
				let Some(forced) = forced else {
					// No reveal: judged, voided and slashed above, now or by an earlier
					// settlement (an overturned verdict stays: what its game established).
					continue;
				};
				let honest = match (forced, a.verdict) {
					// An overturned verdict is what its game established.
					_ if a.overturned => true,
					// A forced segment must carry a failing verdict.
					(true, Some(v)) => !v.pass,
					_ => true,
				};
				if !honest {
					Self::slash_untrusted(&a.verifier, &mut slashed);
					// An overturned verdict is what its game established, not the
					// verifier's word: it stays (an Exact pass turned into a fail).
					if !a.overturned {
						a.verdict = None;
					}
					continue;
				}
				if forced && !a.overturned {
					// A whistleblower that caught it is paid from the jackpot (a solver
					// contesting its own task is not).
					if let Some(w) = a.refuted_by.take().filter(|w| task.solver.as_ref() != Some(w))
					{
						T::ForcedErrors::pay_catch(&w);
					}
					void.push(a.segment);
				}
			}
			for a in audits.iter().filter(|a| a.verdict.is_some() && !a.overturned) {
				let paid = Self::pay(task, &a.verifier, segment_pay);
				if !paid.is_zero() {
					T::Stake::note_earned(&a.verifier, Role::Verifier, paid);
				}
				verifiers_paid = verifiers_paid.saturating_add(paid);
			}
			// Verdicts that count against or for the solver: posted, trusted, not void.
			let counted: Vec<&Audit<T::AccountId>> = audits
				.iter()
				.filter(|a| a.verdict.is_some() && !void.contains(&a.segment))
				.collect();
			let failed = counted.iter().find(|a| a.verdict.map(|v| !v.pass).unwrap_or(false));
			// A re-audit reported unavailable too: two verifiers drawn independently could
			// not fetch the solver's proof.
			let withheld = audits.iter().any(|a| a.unavailable && a.reported_before);
			// A report no verifier checked again: none was left to draw, the one drawn
			// stayed silent, or its verdict does not count (untrusted, voided).
			let unchecked = audits.iter().any(|a| {
				a.unavailable
					|| (a.reported_before && (a.verdict.is_none() || void.contains(&a.segment)))
			});
			if failed.is_none() && !withheld && unchecked {
				// The segment was not verified: the solver is not paid, nor slashed on one
				// verifier's word; the owner gets the rest back.
				Self::fail(id, task, FailReason::Unverified);
				return Ok(false);
			}
			let solver = task.solver.clone();
			match (failed.is_some() || withheld, solver) {
				(false, Some(solver)) => {
					let solver_paid = Self::pay(task, &solver, solver_pay);
					if !solver_paid.is_zero() {
						T::Stake::note_earned(&solver, Role::Solver, solver_paid);
					}
					Self::pay(task, &T::JackpotAccount::get(), jackpot_cut);
					Self::pay(task, &T::TreasuryAccount::get(), treasury_cut);
					let refunded = Self::release_rest(task);
					Self::close(id, task);
					Self::deposit_event(Event::TaskCompleted {
						id,
						solver_paid,
						verifiers_paid,
						refunded,
					});
					Ok(false)
				}
				(_, Some(solver)) => {
					// The verifier that caught the fault reports it; when the failing
					// verdict is an overturned pass, the verifier was wrong and the
					// whistleblower was already paid from its slash: no reporter. A
					// withheld proof has no reporter either (nothing was proven).
					let reporter = counted
						.iter()
						.find(|a| a.verdict.map(|v| !v.pass).unwrap_or(false) && !a.overturned)
						.map(|a| a.verifier.clone());
					Self::reject(id, task, solver, reporter, verifiers_paid, now)
				}
				(_, None) => {
					Self::fail(id, task, FailReason::ProofRejected);
					Ok(false)
				}
			}
		}

		/// What `who` must do now (runtime API).
		pub fn duties(who: &T::AccountId) -> Vec<Duty<BlockNumberFor<T>>> {
			let mut out = Vec::new();
			if !T::Stake::bond(who, Role::Verifier).is_zero()
				&& !T::ForcedErrors::has_commitment(who)
			{
				out.push(Duty::Commit);
			}
			for (id, _) in WorkerTasks::<T>::iter_prefix(who) {
				let Some(t) = Tasks::<T>::get(id) else { continue };
				let is_solver = t.solver.as_ref() == Some(who);
				match t.phase {
					Phase::Profiling if t.profiler.as_ref() == Some(who) => {
						out.push(Duty::Profile { task: id, by: t.deadline })
					}
					Phase::Offered if is_solver => {
						out.push(Duty::Accept { task: id, by: t.deadline })
					}
					Phase::Training if is_solver => out.push(Duty::Train {
						task: id,
						order_randomness: t.order_randomness,
						by: t.deadline,
					}),
					Phase::Verifying => {
						for a in Audits::<T>::get(id) {
							if a.verifier == *who && a.awaits_verdict() {
								out.push(Duty::Verify {
									task: id,
									segment: a.segment,
									by: t.deadline,
									forcible: !a.reported_before,
								});
							}
						}
					}
					Phase::Challenge | Phase::Disputed => {
						let audits = Audits::<T>::get(id);
						let unrevealed = audits.iter().any(|a| {
							a.verifier == *who
								&& T::ForcedErrors::forced(who, id, a.segment).is_none()
						});
						if unrevealed {
							out.push(Duty::Reveal { task: id, by: t.window_end });
						}
						for a in audits {
							if let Some(c) = &a.challenger {
								if c == who || a.verifier == *who {
									out.push(Duty::Dispute { task: id, segment: a.segment });
								}
							} else if is_solver
								&& a.refuted_by.is_none()
								&& a.verdict.is_some_and(|v| !v.pass)
								&& Self::forced(id, &a) == Some(false)
							{
								// The solver may check a failing verdict that would count
								// against its work (revealed, not a forced error).
								out.push(Duty::Watch {
									task: id,
									segment: a.segment,
									by: t.window_end,
								});
							}
						}
					}
					_ => {}
				}
			}
			if T::Stake::is_active(who, Role::Whistleblower) {
				Self::watch_duties(who, &mut out);
			}
			out
		}

		/// The unchallenged verdicts in challenge windows a whistleblower may check: not
		/// its own verdicts, not on its own tasks as solver; at most [`MAX_WATCHED`].
		fn watch_duties(who: &T::AccountId, out: &mut Vec<Duty<BlockNumberFor<T>>>) {
			let mut watched = 0usize;
			for (id, t) in Tasks::<T>::iter() {
				if !matches!(t.phase, Phase::Challenge | Phase::Disputed)
					|| t.solver.as_ref() == Some(who)
				{
					continue;
				}
				for a in Audits::<T>::get(id) {
					if watched >= MAX_WATCHED {
						return;
					}
					if a.verdict.is_some()
						&& a.challenger.is_none()
						&& a.refuted_by.is_none()
						&& a.verifier != *who
					{
						out.push(Duty::Watch { task: id, segment: a.segment, by: t.window_end });
						watched += 1;
					}
				}
			}
		}

		/// A live task as clients see it (runtime API).
		pub fn view(id: TaskId) -> Option<TaskView<T::AccountId, BalanceOf<T>, BlockNumberFor<T>>> {
			let t = Tasks::<T>::get(id)?;
			Some(TaskView {
				owner: t.owner,
				phase: t.phase,
				deadline: t.deadline,
				escrow: t.escrow,
				solver: t.solver.clone(),
				audits: Audits::<T>::get(id).into_inner(),
				spec: Specs::<T>::get(id).map(|s| s.encode()).unwrap_or_default(),
				order_randomness: t.order_randomness,
				threshold: t.threshold,
				result: t.result.map(|r| {
					let mut url = t.solver.as_ref().map(T::Stake::endpoint).unwrap_or_default();
					url.extend_from_slice(&r.location);
					ResultView {
						final_hash: r.final_hash,
						checkpoint_root: r.checkpoint_root,
						checkpoints: r.checkpoints,
						url,
					}
				}),
			})
		}

		/// Tasks in their challenge window with its end (runtime API; iterates all live
		/// tasks, so it is for off-chain use only).
		pub fn challengeable() -> Vec<(TaskId, BlockNumberFor<T>)> {
			Tasks::<T>::iter()
				.filter(|(_, t)| matches!(t.phase, Phase::Challenge | Phase::Disputed))
				.map(|(id, t)| (id, t.window_end))
				.collect()
		}

		/// Checks the invariants: each owner's escrow hold equals the sum of its live
		/// tasks' escrows; every live task's deadline is in the future and indexed;
		/// every engagement is counted in [`WorkerTasks`]; assigned phases have a solver.
		#[cfg(any(test, feature = "try-runtime", feature = "std"))]
		pub fn do_try_state() -> Result<(), sp_runtime::TryRuntimeError> {
			let now = frame_system::Pallet::<T>::block_number();
			let mut owners: Vec<(T::AccountId, BalanceOf<T>)> = Vec::new();
			for (id, t) in Tasks::<T>::iter() {
				match owners.iter_mut().find(|(o, _)| *o == t.owner) {
					Some((_, sum)) => *sum = sum.saturating_add(t.escrow),
					None => owners.push((t.owner.clone(), t.escrow)),
				}
				ensure!(t.deadline > now, "tasks: a live task is past its deadline");
				ensure!(
					Deadlines::<T>::get(t.deadline).contains(&id),
					"tasks: a deadline is not indexed"
				);
				if matches!(t.phase, Phase::Offered | Phase::Training | Phase::Drawing) {
					ensure!(t.solver.is_some(), "tasks: assigned phase without solver");
				}
				for who in t.engaged.iter() {
					let n = t.engaged.iter().filter(|a| *a == who).count() as u32;
					ensure!(
						WorkerTasks::<T>::get(who, id) == Some(n),
						"tasks: engagement not indexed"
					);
				}
				ensure!(Specs::<T>::contains_key(id), "tasks: live task without spec");
			}
			for (owner, sum) in owners {
				let held = T::Currency::balance_on_hold(&HoldReason::Escrow.into(), &owner);
				ensure!(held == sum, "tasks: escrow hold differs from live escrows");
			}
			for (who, id, _) in WorkerTasks::<T>::iter() {
				let t = Tasks::<T>::get(id).ok_or("tasks: worker index names a dead task")?;
				ensure!(t.engaged.contains(&who), "tasks: worker index without engagement");
			}
			for id in Replaced::<T>::iter_keys() {
				ensure!(Tasks::<T>::contains_key(id), "tasks: replaced verifiers of a dead task");
			}
			Ok(())
		}

		/// Handles the deadline of task `id` at block `now`.
		fn on_deadline(id: TaskId, now: BlockNumberFor<T>) {
			let Some(mut task) = Tasks::<T>::get(id) else { return };
			if task.deadline != now {
				// Stale entry: the task moved on before this deadline.
				return;
			}
			let res = frame_support::storage::with_storage_layer(|| {
				let alive = Self::handle_deadline(id, &mut task, now)?;
				if alive {
					Tasks::<T>::insert(id, &task);
				}
				Ok::<(), DispatchError>(())
			});
			if res.is_err() {
				// Scheduling failed (deadline lists full): fail the task so that its
				// escrow is never stranded.
				if let Some(mut t) = Tasks::<T>::get(id) {
					Self::fail(id, &mut t, FailReason::Unschedulable);
				}
			}
		}

		/// Moves the task past its deadline; returns whether it is still live.
		fn handle_deadline(
			id: TaskId,
			task: &mut Task<T>,
			now: BlockNumberFor<T>,
		) -> Result<bool, DispatchError> {
			match task.phase {
				Phase::Profiling => {
					if let Some(p) = task.profiler.take() {
						T::Stake::slash(&p, Role::Verifier, T::MissedVerdictSlash::get(), None);
						Self::disengage(id, task, &p);
						task.excluded = Some(p);
					}
					Self::draw_profiler(id, task, now)
				}
				Phase::Queued => Self::draw_solver(id, task, now),
				Phase::Offered | Phase::Training => {
					let slash = if task.phase == Phase::Offered {
						T::MissedAcceptSlash::get()
					} else {
						T::MissedResultSlash::get()
					};
					if let Some(s) = task.solver.take() {
						T::Stake::slash(&s, Role::Solver, slash, None);
						Self::disengage(id, task, &s);
						task.excluded = Some(s);
					}
					Self::draw_solver(id, task, now)
				}
				Phase::Drawing => Self::draw_verifiers(id, task, now),
				Phase::Verifying => {
					let mut audits = Audits::<T>::get(id);
					let mut missing: Vec<T::AccountId> = Vec::new();
					for a in audits.iter().filter(|a| a.awaits_verdict()) {
						if !missing.contains(&a.verifier) {
							missing.push(a.verifier.clone());
						}
					}
					for v in &missing {
						T::Stake::slash(v, Role::Verifier, T::MissedVerdictSlash::get(), None);
					}
					let unchecked = |a: &Audit<T::AccountId>| {
						a.reported_before && a.verdict.is_none() && !a.unavailable
					};
					for a in audits.iter_mut().filter(|a| unchecked(a)) {
						// A silent re-auditor, or one whose verdict a game voided, does not
						// erase the report it was to check: the report stands, unchecked,
						// and is re-audited again at settlement while the segment has
						// re-audits left.
						a.unavailable = true;
						a.reported_before = false;
						Self::deposit_event(Event::ReportStands { id, segment: a.segment });
					}
					// Verdicts and unavailability reports stay; the rest are not audits
					// (among them verdicts voided that no re-audit took: their verifiers
					// were judged already and are let go below).
					let mut voided: Vec<T::AccountId> = Vec::new();
					for a in audits.iter().filter(|a| a.overturned && a.verdict.is_none()) {
						if !a.unavailable && !voided.contains(&a.verifier) {
							voided.push(a.verifier.clone());
						}
					}
					audits.retain(|a| a.verdict.is_some() || a.unavailable);
					let still: Vec<T::AccountId> =
						audits.iter().map(|a| a.verifier.clone()).collect();
					let mut replaced = Replaced::<T>::get(id);
					let known = replaced.len();
					// Room the re-audits still to come may need (a fresh draw's audits
					// when nobody verified), which a silent verifier must not take.
					let max = T::MaxReaudits::get() as usize;
					let reserved: usize = if audits.is_empty() {
						(task.audits as usize).saturating_mul(max)
					} else {
						audits.iter().map(|a| max.saturating_sub(a.reaudits as usize)).sum()
					};
					let room = (ReplacedBound::<T>::get() as usize).saturating_sub(reserved);
					// A verifier whose verdict was voided and not re-audited (slashed
					// already) goes as one that went silent.
					let voided: Vec<T::AccountId> =
						voided.into_iter().filter(|v| !missing.contains(v)).collect();
					missing.extend(voided);
					for v in missing.iter().filter(|v| !still.contains(v)) {
						Self::disengage(id, task, v);
						T::ForcedErrors::release(v, id);
						// A verifier that went silent is not drawn to re-audit this task
						// (it would likely stay silent and use up a re-audit).
						if !replaced.contains(v) && replaced.len() < room {
							let _ = replaced.try_push(v.clone());
						}
					}
					if replaced.len() != known {
						Replaced::<T>::insert(id, replaced);
					}
					if audits.is_empty() {
						// Nobody verified: draw again.
						Audits::<T>::remove(id);
						task.phase = Phase::Drawing;
						Self::draw_verifiers(id, task, now)
					} else {
						Audits::<T>::insert(id, audits);
						Self::open_window(id, task, now)?;
						Ok(true)
					}
				}
				Phase::Challenge => Self::settle(id, task, now),
				Phase::Disputed => {
					// The arbiter did not rule in time: drop open disputes (no one is
					// slashed, verdicts stand) and settle.
					let mut audits = Audits::<T>::get(id);
					let mut dropped: Vec<T::AccountId> = Vec::new();
					for a in audits.iter_mut() {
						if let Some(c) = a.challenger.take() {
							T::Arbiter::cancel(id, a.segment);
							dropped.push(c);
						}
					}
					Audits::<T>::insert(id, audits);
					for c in &dropped {
						Self::disengage(id, task, c);
					}
					Self::settle(id, task, now)
				}
			}
		}
	}
}
