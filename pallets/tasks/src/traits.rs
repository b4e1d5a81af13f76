//! How the tasks pallet meets the pallets beside it: the arbiter of disputes, and an
//! adapter for optional randomness.

use crate::*;

/// The arbiter of disputes over verdicts (the pinpoint game of `pallet-arbitration`).
pub trait DisputeArbiter<AccountId> {
	/// Opens a dispute over `segment` of `task`, holding the challenger's game bond;
	/// `Err` when it cannot be opened.
	fn open(
		task: TaskId,
		segment: u32,
		challenger: &AccountId,
		defendant: &AccountId,
	) -> DispatchResult;
	/// Opens a dispute as [`Self::open`] does, but holds no game bond: the challenger's
	/// stake engaged on the task answers for a lost game (the solver contesting a fail
	/// on its own task), so a challenger whose free balance is spent still contests.
	fn open_staked(
		task: TaskId,
		segment: u32,
		challenger: &AccountId,
		defendant: &AccountId,
	) -> DispatchResult;
	/// The tasks pallet gave up waiting for the dispute (safety timeout), or ended its
	/// task with the game still open.
	fn cancel(task: TaskId, segment: u32);
	/// Whether a dispute over any value of a task of `spec` could be ruled on: a task the
	/// arbiter could not rule on (an op it cannot evaluate, a data format it cannot read,
	/// more samples than a game replays) would leave an honest defendant unable to
	/// answer, so it is refused.
	fn rules_on(spec: &TaskSpec) -> bool;
	/// Whether `proof` shows that the run committed under `checkpoint_root` (of
	/// `checkpoints` leaves) is not one of a task of `spec`: a checkpoint stamped with a
	/// step off the task's schedule, or a first checkpoint holding a value other than the
	/// task's seeded initial state.
	fn off_task(
		spec: &TaskSpec,
		checkpoint_root: &Hash32,
		checkpoints: u32,
		proof: &OffTaskProof,
	) -> bool;
}

/// No arbiter: challenges are refused (and so no spec is refused for the arbiter's sake).
impl<AccountId> DisputeArbiter<AccountId> for () {
	fn open(_: TaskId, _: u32, _: &AccountId, _: &AccountId) -> DispatchResult {
		Err(DispatchError::Other("no arbiter configured"))
	}
	fn open_staked(_: TaskId, _: u32, _: &AccountId, _: &AccountId) -> DispatchResult {
		Err(DispatchError::Other("no arbiter configured"))
	}
	fn cancel(_: TaskId, _: u32) {}
	fn rules_on(_: &TaskSpec) -> bool {
		true
	}
	fn off_task(_: &TaskSpec, _: &Hash32, _: u32, _: &OffTaskProof) -> bool {
		false
	}
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
	/// Threshold mode: the distance (f32 bits) the verifier posted, which a challenger
	/// may dispute instead of the root. `None` in Exact mode.
	pub claimed_distance: Option<u32>,
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

/// The private lottery that makes whistleblowers watchers of a training round: each
/// computes its own score from the round's public seed with a key only it holds, and
/// nobody else can tell whether it won until it proves it with a challenge, so no
/// verifier knows whom to sell its forced segments to.
pub trait WatchLottery<AccountId> {
	/// What a whistleblower shows to prove its score (a VRF output and proof).
	type Ticket: Parameter + MaxEncodedLen;
	/// `who`'s score for `seed` (uniform over `u64`) if `ticket` proves it, else `None`.
	fn score(who: &AccountId, seed: &Hash32, ticket: &Self::Ticket) -> Option<u64>;
}

/// No lottery: no ticket proves anything, so no round has a watcher.
impl<AccountId> WatchLottery<AccountId> for () {
	type Ticket = ();
	fn score(_: &AccountId, _: &Hash32, _: &()) -> Option<u64> {
		None
	}
}

/// The lowest and highest thresholds (f32 bits) a Threshold task is judged by, whatever
/// its profilers agree on. A distance is a share of the work the segment does (a
/// checkpoint that skips the gradients lies at 1 for any model), so one pair serves every
/// model: the floor above honest replays' distances, so that profilers in league with an
/// owner cannot fail an honest solver; the ceiling well below a fake's, so that profilers
/// in league with a solver cannot pass its fakes. A bound that is not a finite positive
/// value bounds nothing; the floor wins where the two cross.
pub trait ThresholdBounds {
	/// `(floor, ceiling)`.
	fn bounds() -> (u32, u32);
}

/// What the benchmarks of calls that carry a proof need from a runtime: the proof, or
/// its acceptance where a benchmark cannot make one.
#[cfg(feature = "runtime-benchmarks")]
pub trait BenchmarkHelper<AccountId, Ticket> {
	/// An account, a watch-lottery seed and the account's ticket for that seed, where the
	/// runtime's lottery lets a benchmark have one (a VRF output made ahead with the
	/// account's private key: a runtime cannot sign in wasm), else `None`.
	fn watch_ticket() -> Option<(AccountId, Hash32, Ticket)>;
	/// Makes the arbiter accept a proof that checkpoint `index` of a run is off its task,
	/// where the arbiter does not check the proof itself (a test arbiter).
	fn accept_off_task(index: u32);
}
