//! The tasks pallet's events, one per step of a task a client follows, imported into
//! the pallet as a section.

use frame_support::pallet_macros::pallet_section;

/// The events section of the pallet.
#[pallet_section]
mod events {
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
			/// Refunded to the owner: the whole escrow still held (a Threshold task's
			/// profiler was paid its share before).
			refunded: BalanceOf<T>,
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
		/// The offered solver declined the task (unslashed); another solver is drawn.
		TaskDeclined {
			/// The task.
			id: TaskId,
			/// The solver that declined.
			solver: T::AccountId,
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
		/// The watch lottery of the task's round was drawn with its verifiers: a
		/// whistleblower whose score for `seed` is at most `odds` watches the round.
		WatchDrawn {
			/// The task.
			id: TaskId,
			/// The lottery's seed (a whistleblower's VRF input).
			seed: Hash32,
			/// The highest winning score.
			odds: u64,
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
		/// A drawn profiler declined the task (unslashed); its seat stays empty and the
		/// seat's pay goes out of the escrow to the jackpot pot.
		ProfileDeclined {
			/// The task.
			id: TaskId,
			/// The profiler that declined.
			profiler: T::AccountId,
			/// Paid out of the escrow to the jackpot pot.
			forfeited: BalanceOf<T>,
		},
		/// The task's distance threshold was decided: what the profiles agree on.
		Profiled {
			/// The task.
			id: TaskId,
			/// Threshold (f32 bits).
			threshold: u32,
			/// Paid out of the escrow to each profiler within `PROFILE_BAND` of it.
			paid: Vec<(T::AccountId, BalanceOf<T>)>,
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
		/// The solver may contest a failing verdict only from now on (its verifier revealed
		/// late, or a game over it ended with its challenger losing), or could not while a
		/// runtime upgrade stopped the nodes: the challenge window now ends at `until`.
		WindowExtended {
			/// The task.
			id: TaskId,
			/// The window's new end.
			until: BlockNumberFor<T>,
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
			/// The jackpot's cut, paid to the jackpot account.
			jackpot_paid: BalanceOf<T>,
			/// The treasury's cut, paid to the treasury account.
			treasury_paid: BalanceOf<T>,
			/// Refunded to the owner.
			refunded: BalanceOf<T>,
			/// The solver paid.
			solver: T::AccountId,
			/// The trained run: where the solver's store serves it and its roots (the
			/// settled task leaves storage).
			result: Option<ResultView>,
		},
		/// The round's verifiers whose verdicts stand were paid `paid` in all, out of the
		/// escrow (deposited at every settlement that pays one, before its outcome).
		VerifiersPaid {
			/// The task.
			id: TaskId,
			/// Paid to verifiers in all.
			paid: BalanceOf<T>,
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
		/// `by` proved that the task's committed run is not one of the task; the proof
		/// is rejected at settlement, whatever its verdicts.
		RunOffTask {
			/// The task.
			id: TaskId,
			/// Who proved it (the reporter of the solver's slash).
			by: T::AccountId,
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
		/// A drawn profiler committed to its threshold (its hash).
		ProfileCommitted {
			/// The task.
			id: TaskId,
			/// The profiler.
			profiler: T::AccountId,
		},
		/// Every profiler of the task has committed: each reveals by `until`.
		ProfileRevealsOpen {
			/// The task.
			id: TaskId,
			/// Deadline of the reveals.
			until: BlockNumberFor<T>,
		},
		/// A drawn profiler revealed its committed threshold.
		ProfilePosted {
			/// The task.
			id: TaskId,
			/// The profiler.
			profiler: T::AccountId,
			/// Its threshold (f32 bits).
			threshold: u32,
		},
		/// Profiles posted for a task that ended undecided (a post left alone, a cancel)
		/// were paid.
		ProfilesPaid {
			/// The task.
			id: TaskId,
			/// Each profiler paid, and what.
			paid: Vec<(T::AccountId, BalanceOf<T>)>,
		},
		/// Profiles posted for a task that a decline left undecided: their pay went out of
		/// the escrow to the jackpot pot, not to them.
		ProfilesForfeited {
			/// The task.
			id: TaskId,
			/// The profilers whose posts were not paid.
			profilers: Vec<T::AccountId>,
			/// Paid out of the escrow to the jackpot pot, in all.
			forfeited: BalanceOf<T>,
		},
		/// `by` demanded checkpoint `checkpoint` of the round's run, for `fee` (paid to
		/// the treasury): its `pages` pages are due before block `due`.
		CheckpointDemanded {
			/// The task.
			id: TaskId,
			/// The checkpoint (0: the initial state).
			checkpoint: u32,
			/// Who demanded it.
			by: T::AccountId,
			/// What it paid.
			fee: BalanceOf<T>,
			/// Pages to publish.
			pages: u32,
			/// The block by which (exclusive) the last page is due.
			due: BlockNumberFor<T>,
			/// The verifier that may publish it past the solver's turn, and is slashed if
			/// nobody does ([`Pallet::standby`]).
			standby: Option<T::AccountId>,
		},
		/// A page of a demanded checkpoint was published (its bytes are the call's).
		PagePublished {
			/// The task.
			id: TaskId,
			/// The checkpoint.
			checkpoint: u32,
			/// The item (0: the step; `1 + t`: tensor `t`).
			item: u32,
			/// The page within the item.
			page: u32,
			/// Who published it: the solver, or past the solver's turn the demand's
			/// standby verifier.
			by: T::AccountId,
		},
		/// Every page of a demanded checkpoint is published: anyone may replay from it,
		/// and its demander's fee goes to the treasury.
		CheckpointPublished {
			/// The task.
			id: TaskId,
			/// The checkpoint.
			checkpoint: u32,
			/// The fee the treasury received.
			fee: BalanceOf<T>,
		},
		/// A demand's round ended without its pages: its fee is returned to its demander.
		DemandFeeReturned {
			/// The task.
			id: TaskId,
			/// The checkpoint.
			checkpoint: u32,
			/// Who demanded it.
			by: T::AccountId,
			/// The fee returned.
			fee: BalanceOf<T>,
		},
		/// Nobody published a demanded checkpoint in time: the proof is rejected with
		/// `by`, its demander, as reporter.
		CheckpointWithheld {
			/// The task.
			id: TaskId,
			/// The checkpoint.
			checkpoint: u32,
			/// Who demanded it.
			by: T::AccountId,
		},
		/// Nobody published demanded checkpoint `checkpoint` in time, and `verifier`, its
		/// standby, held it: it is slashed `amount`, as for a missed verdict.
		StandbySlashed {
			/// The task.
			id: TaskId,
			/// The checkpoint.
			checkpoint: u32,
			/// The standby verifier.
			verifier: T::AccountId,
			/// Taken from its bond.
			amount: BalanceOf<T>,
		},
		/// A re-audit let the standby of demanded checkpoint `checkpoint` go, and `standby`
		/// stands by in its place (nobody: no other verifier's verdict read it).
		StandbyReplaced {
			/// The task.
			id: TaskId,
			/// The checkpoint.
			checkpoint: u32,
			/// The new standby verifier, if any.
			standby: Option<T::AccountId>,
		},
	}
}
