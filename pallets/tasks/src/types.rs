// The on-chain types: what storage, events, calls and the runtime API carry.
//
// This file is `include!`d at the crate root, not a module: scale-info names each type
// by its module path, and clients know these as `pallet_gensyn_tasks::Phase` and so on
// (polkadot.js: `PalletGensynTasksPhase`); a module would rename them in the metadata.

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
	/// Threshold mode: each drawn profiler must commit to its distance threshold (a
	/// hash) by the deadline (with no profiler yet, one is drawn at the deadline).
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
	/// Threshold mode: every profiler has committed; each reveals its threshold by the
	/// deadline, and the threshold is decided from the reveals (last, so that stored
	/// phases keep their encoding).
	ProfileReveal,
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
	/// No verifier could be drawn within the allowed draws: before a solver was drawn
	/// (none fitted the task: nobody trained), or after its commit (the solver is
	/// neither paid nor slashed).
	NoVerifier,
	/// An audit failed: the proof of learning is wrong.
	ProofRejected,
	/// Handling a deadline hit a bound it must not (the workers a task counts on): the
	/// task fails and is refunded rather than left stuck. Deadline queues are never full.
	Unschedulable,
	/// A drawn segment was not verified: the solver's store was reported unavailable,
	/// or the segment's verdict was voided or never posted, and no verifier checked it
	/// again. The solver is neither paid nor slashed.
	Unverified,
	/// Threshold mode: no threshold was decided (two proposals far apart, one left alone
	/// after others lapsed, or a profiler could not use the data and declined). Nobody
	/// trained; refunded but for the profiles paid.
	NoThreshold,
	/// Threshold mode: the profiles agree on a threshold past the ceiling, so the model's
	/// honest replays stray too far for the bounds (or profilers in league posted a huge
	/// one). Nobody trained; refunded but for the profiles paid.
	ThresholdAboveBound,
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
	/// is void (gone); the segment is audited again.
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
	/// A first audit of `segment` by `verifier`, with nothing posted yet.
	pub fn new(segment: u32, verifier: AccountId) -> Self {
		Audit {
			segment,
			verifier,
			verdict: None,
			challenger: None,
			overturned: false,
			refuted_by: None,
			reaudits: 0,
			unavailable: false,
			reported_before: false,
		}
	}

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

/// Most tensors a training state holds: a weight and a bias for each of a spec's (at
/// most 32) layers, and two optimizer-state tensors for each of those (Adam's).
pub const MAX_STATE_TENSORS: u32 = 192;

/// Values in one leaf chunk of a tensor's Merkle tree.
pub const TENSOR_CHUNK_VALUES: u32 = 64;

/// A proof that a committed run is not one of its task (see `prove_off_task`):
/// checkpoint `index`, opened from the result's checkpoint root down to the step it is
/// stamped with and the roots of its tensors (as many as the spec's state has), and for
/// the first checkpoint one chunk of one of them. The chain checks it against the spec
/// alone.
#[derive(
	Clone, PartialEq, Eq, Debug, Encode, Decode, DecodeWithMemTracking, MaxEncodedLen, TypeInfo,
)]
pub struct OffTaskProof {
	/// The checkpoint opened (0: the run's initial state).
	pub index: u32,
	/// Sibling hashes of its state root under the checkpoint root, leaf level first.
	pub siblings: BoundedVec<Hash32, ConstU32<MAX_PROOF_DEPTH>>,
	/// The step its state is stamped with.
	pub step: u64,
	/// The roots of its tensors: parameters, then optimizer state.
	pub tensor_roots: BoundedVec<Hash32, ConstU32<MAX_STATE_TENSORS>>,
	/// For the first checkpoint: a chunk holding a value that is not the task's
	/// initial value.
	pub chunk: Option<StateChunk>,
}

/// One leaf chunk of a state tensor with its Merkle proof under the tensor's root.
#[derive(
	Clone, PartialEq, Eq, Debug, Encode, Decode, DecodeWithMemTracking, MaxEncodedLen, TypeInfo,
)]
pub struct StateChunk {
	/// The tensor (its place in the state: parameters, then optimizer state).
	pub tensor: u32,
	/// The chunk's index in the tensor.
	pub chunk: u32,
	/// Its values (f32 bits).
	pub values: BoundedVec<u32, ConstU32<TENSOR_CHUNK_VALUES>>,
	/// Sibling hashes under the tensor's root, leaf level first.
	pub siblings: BoundedVec<Hash32, ConstU32<MAX_PROOF_DEPTH>>,
}

/// Most profilers drawn for a Threshold task. Its threshold is the median of theirs, so
/// that no lone profiler sets it: one that posts zero (every honest solver fails) or a
/// huge value (every fake passes) is outvoted by the other two.
pub const PROFILERS: u32 = 3;

/// A profiler drawn for a Threshold task, and the threshold it revealed.
#[derive(
	Clone, PartialEq, Eq, Debug, Encode, Decode, DecodeWithMemTracking, MaxEncodedLen, TypeInfo,
)]
pub struct Profile<AccountId> {
	/// The profiler.
	pub who: AccountId,
	/// Its threshold (f32 bits), once revealed.
	pub threshold: Option<u32>,
}

/// What a profiler commits to before any profile is revealed: the hash of its
/// threshold with the task, its own account and a secret salt. The account and task are
/// in it so that no profiler can commit another's hash and then copy its reveal.
pub fn profile_commitment<AccountId: Encode>(
	id: TaskId,
	who: &AccountId,
	threshold: u32,
	salt: &Hash32,
) -> Hash32 {
	sp_crypto_hashing::blake2_256(&(b"gensyn/profile", id, who, threshold, salt).encode())
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
	/// Workers that failed or declined this task and are not drawn again for it (the
	/// profilers that lapsed while it is profiled, then its solvers); past
	/// [`Config::MaxExcluded`], the one excluded longest ago gives way.
	pub excluded: BoundedVec<T::AccountId, T::MaxExcluded>,
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
	/// The profilers drawn for a Threshold task and what each posted, while profiling.
	pub profilers: BoundedVec<Profile<T::AccountId>, ConstU32<PROFILERS>>,
	/// The profiled distance threshold (f32 bits), once decided.
	pub threshold: Option<u32>,
}

impl<T: Config> Task<T> {
	/// Keeps `who` from being drawn for this task again. Every worker that failed or
	/// declined it is kept out, not the last one only: two accounts of one owner could
	/// otherwise pass the task between them.
	pub(crate) fn exclude(&mut self, who: T::AccountId) {
		if self.excluded.contains(&who) {
			return;
		}
		if self.excluded.is_full() {
			self.excluded.remove(0);
		}
		let _ = self.excluded.try_push(who);
	}
}

/// What a worker must do now, for the runtime API.
#[derive(Clone, PartialEq, Eq, Debug, Encode, Decode, TypeInfo)]
pub enum Duty<BlockNumber> {
	/// Profile the Threshold task and commit to its distance threshold by `by`
	/// ([`profile_commitment`]).
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
		/// re-audit, whose verdict must check what the first one left unchecked).
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
		/// The first block at which the chain accepts the reveal (the window's last
		/// third): a reveal before it is refused.
		from: BlockNumber,
		/// Deadline: the end of the first challenge window that judged the verifier's
		/// verdict, or of the window under way.
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
	/// Every profiler of the Threshold task has committed: reveal the committed
	/// threshold by `by` (since version 7; a lapse is slashed as a missed profile).
	RevealProfile {
		/// The task.
		task: TaskId,
		/// Deadline.
		by: BlockNumber,
	},
	/// A checkpoint of the solver's run is demanded: publish its next page
	/// (`publish_page`) before `by`, or the proof is rejected (since version 9).
	Publish {
		/// The task.
		task: TaskId,
		/// The checkpoint.
		checkpoint: u32,
		/// The next page's item (0: the step).
		item: u32,
		/// The next page within the item.
		page: u32,
		/// Deadline (exclusive) of the last page.
		by: BlockNumber,
	},
}

/// Most `Duty::Watch` one whistleblower is shown at once of each kind: verdicts open to
/// anyone, and failing verdicts open only to the watchers of their rounds.
pub const MAX_WATCHED: usize = 256;

/// A task's committed result, for the runtime API and the completion event.
#[derive(Clone, PartialEq, Eq, Debug, Encode, Decode, DecodeWithMemTracking, TypeInfo)]
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
	/// Threshold mode: the distance threshold (f32 bits) verdicts are judged by now (the
	/// decided one, or until then the default within the bounds; since version 8).
	pub threshold: Option<u32>,
	/// The committed result, once submitted.
	pub result: Option<ResultView>,
	/// The bounds every threshold is judged within, `(floor, ceiling)` as f32 bits (since
	/// version 8): a profiler proposes no more than the ceiling where it can.
	pub threshold_bounds: (u32, u32),
}

/// The most tasks one page of [`TaskPage`] holds.
pub const TASK_PAGE: u32 = 100;
/// The most task ids one page looks at: settled tasks leave storage, so live ids have gaps.
pub const TASK_SCAN: TaskId = 1_000;

/// One page of the live tasks, for the runtime API (`TasksApi::tasks`).
#[derive(Clone, PartialEq, Eq, Debug, Encode, Decode, TypeInfo)]
pub struct TaskPage<AccountId, Balance, BlockNumber> {
	/// Live tasks in id order, each with its view.
	pub tasks: Vec<(TaskId, TaskView<AccountId, Balance, BlockNumber>)>,
	/// The id the next page starts from; none once every task id has been looked at.
	pub next: Option<TaskId>,
}

/// What a spec would cost and hold if submitted now, for the runtime API: the numbers
/// `submit_task` uses, from the same code.
#[derive(Clone, PartialEq, Eq, Debug, Encode, Decode, TypeInfo)]
pub struct Quote<Balance> {
	/// The work estimate of the whole run, in gas.
	pub gas: u64,
	/// The memory a worker must claim to be drawn for it, in MiB.
	pub memory_mib: u32,
	/// Checkpoints the solver commits, initial state included.
	pub checkpoints: u32,
	/// Segments audited.
	pub audits: u32,
	/// Profilers paid at most to set its threshold (Threshold mode; [`PROFILERS`]).
	pub profiles: u32,
	/// The solver's pay.
	pub solver_pay: Balance,
	/// One segment's verification pay (per audit, and each profiler's).
	pub segment_pay: Balance,
	/// The jackpot's cut.
	pub jackpot_cut: Balance,
	/// The treasury's cut.
	pub treasury_cut: Balance,
	/// The escrow held at submission: all of the above, the verification pay once per
	/// audit and per profile (what is not paid is refunded).
	pub escrow: Balance,
	/// The task's bond units (since version 7): its solver needs room for this many
	/// minimum solver bonds, its verifiers are drawn preferring a bond of this many
	/// minimum verifier bonds, and its slashes are multiplied by it.
	pub bond_units: u32,
}

sp_api::decl_runtime_apis! {
	/// Questions workers and clients ask the tasks pallet (version 3: an audit names the
	/// fail it re-checks; a quote shows the re-check reserve; version 4: a quote counts
	/// the profiles it pays; version 5: a reveal duty says from when the chain accepts it;
	/// version 6: the live tasks a page at a time; version 7: a profile is committed, then
	/// revealed, and `duties` may name `Duty::RevealProfile`; a quote shows the task's
	/// bond units; version 8: a task's view shows the threshold it is judged by and the
	/// bounds of thresholds; version 9: `duties` may name `Duty::Publish`; version 10: an
	/// audit names no re-checked fail, and a quote holds no re-check reserve).
	#[api_version(10)]
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
		/// What `spec` would cost if submitted now, or the error `submit_task` would
		/// refuse it with (since version 2).
		fn quote(spec: TaskSpec) -> Result<Quote<Balance>, sp_runtime::DispatchError>;
		/// The live tasks from id `from` on, at most `limit` of them, from 1 to 100 (since
		/// version 6: a client of an older runtime checks the API's version first); ask
		/// again from `next` for the following page.
		fn tasks(from: TaskId, limit: u32) -> TaskPage<AccountId, Balance, BlockNumber>;
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

/// The fewest blocks before a challenge window's end in which its verifiers may reveal
/// (a reveal dropped from the pool is sent again, and a short window's last third may be
/// a block or two).
pub const MIN_REVEAL_BLOCKS: u32 = 3;

/// A training round's watch lottery ([`Watches`]): the public seed every whistleblower
/// scores privately, the highest winning score, and the last block a whistleblower may
/// have joined the active list at to take part.
#[derive(Encode, Decode, Clone, Copy, PartialEq, Eq, Debug, TypeInfo, MaxEncodedLen)]
pub struct WatchDraw<BlockNumber> {
	/// The lottery's seed, drawn from the beacon with the round's verifiers.
	pub seed: Hash32,
	/// The highest winning score: `u64::MAX / whistleblowers * WatchersPerRound`, so
	/// that each of the whistleblowers on the active list at the draw wins with that
	/// share.
	pub odds: u64,
	/// Only whistleblowers on the active list since this block or earlier take part:
	/// `RandomnessDelay` blocks before the draw, when nobody knew the seed, so that no
	/// account can be made (its key searched for), or brought back onto the list, to win
	/// a lottery whose seed is known.
	pub bonded_by: BlockNumber,
}

impl<BlockNumber> WatchDraw<BlockNumber> {
	/// The lottery of a round that `pool` whistleblowers may watch, `per_round` of them
	/// on average; `None` for an empty pool.
	pub fn new(seed: Hash32, pool: u32, per_round: u32, bonded_by: BlockNumber) -> Option<Self> {
		if pool == 0 {
			return None;
		}
		let odds = if per_round >= pool {
			u64::MAX
		} else {
			(u64::MAX / u64::from(pool)).saturating_mul(u64::from(per_round))
		};
		Some(WatchDraw { seed, odds, bonded_by })
	}

	/// Whether a proven `score` wins.
	pub fn won(&self, score: u64) -> bool {
		score <= self.odds
	}
}

/// A whistleblower's demand that a checkpoint of the round's run be published on chain
/// ([`Demands`]).
#[derive(Encode, Decode, Clone, PartialEq, Eq, Debug, TypeInfo, MaxEncodedLen)]
pub struct Demand<AccountId, Balance, BlockNumber> {
	/// The checkpoint.
	pub checkpoint: u32,
	/// Who demanded it: the reporter of the proof if nobody publishes it in time.
	pub by: AccountId,
	/// Its fee, held from the demander until the pages come (version 20; a demand made
	/// before keeps none: its fee was paid at once).
	pub fee: Balance,
	/// The block of the demand (its pages are in blocks from there on).
	pub at: BlockNumber,
	/// The last block (exclusive) a page may be published in, as the demand was made (a
	/// later runtime upgrade moves it: [`Demand::due_since`]).
	pub due: BlockNumber,
	/// The next page expected, as (item, page); `None` once every page is published.
	pub next: Option<(u32, u32)>,
	/// The verifier that held the checkpoint when it was demanded and may publish it
	/// past the solver's turn, slashed as for a missed verdict if the pages never come
	/// and this is the round's first demand left unanswered (version 21; `None` where no
	/// verdict that read it stood, and once it was slashed).
	pub standby: Option<AccountId>,
}

impl<AccountId, Balance, BlockNumber: sp_runtime::traits::AtLeast32BitUnsigned + Copy>
	Demand<AccountId, Balance, BlockNumber>
{
	/// The last block (exclusive) a page may be published in, given the first blocks of
	/// the runtime upgrades since the demand (`upgrades`, oldest first; earlier ones are
	/// skipped): each upgrade the demand was still due at gives it a whole period of its
	/// after it, since an upgrade stops every node's workers until its operator runs the
	/// new version. One that lapsed before an upgrade stays lapsed. Its pages are read
	/// from its own block on.
	pub fn due_since(&self, upgrades: &[BlockNumber]) -> BlockNumber {
		let period = self.due.saturating_sub(self.at);
		upgrades.iter().fold(self.due, |due, &upgrade| {
			if self.at < upgrade && upgrade < due {
				due.max(upgrade.saturating_add(period))
			} else {
				due
			}
		})
	}

	/// The first block at which the demand's standby may publish too (given `upgrades`,
	/// as [`Self::due_since`]): half-way from the demand to its due. An online solver's
	/// node publishes within minutes.
	pub fn solvers_turn_end(&self, upgrades: &[BlockNumber]) -> BlockNumber {
		let period = self.due_since(upgrades).saturating_sub(self.at);
		self.at.saturating_add(period / 2u32.into())
	}
}

/// A demand as the pallet stores it.
pub type DemandOf<T> = Demand<
	<T as frame_system::Config>::AccountId,
	BalanceOf<T>,
	frame_system::pallet_prelude::BlockNumberFor<T>,
>;

/// Most demands of one round: the start and end checkpoints of every audited segment,
/// and the run's first checkpoint.
pub struct DemandsBound<T>(core::marker::PhantomData<T>);
impl<T: Config> Get<u32> for DemandsBound<T> {
	fn get() -> u32 {
		T::MaxAuditSegments::get().saturating_mul(2).saturating_add(1)
	}
}
