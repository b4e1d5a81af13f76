//! Deadlines: every live task has exactly one, indexed by block in `Deadlines`;
//! `on_initialize` moves each task due past it, one function per phase.

use crate::*;

/// The deadline queue over the pallet's storage.
pub(crate) type Deadlines<T> = queue::PagedQueue<
	BlockNumberFor<T>,
	TaskId,
	<T as Config>::MaxDeadlinesPerBlock,
	DeadlinePages<T>,
	DeadlineCounts<T>,
	DeadlineBacklog<T>,
>;

impl<T: Config> Pallet<T> {
	/// Files `id`'s deadline at block `at` (the next block at the earliest); returns
	/// the block. Never fails: the queue is paged (see [`crate::queue`]).
	pub(crate) fn schedule(id: TaskId, at: BlockNumberFor<T>) -> BlockNumberFor<T> {
		// Never at or before the current block: its deadlines were already drained.
		let next = frame_system::Pallet::<T>::block_number().saturating_add(1u32.into());
		let at = at.max(next);
		Deadlines::<T>::push(at, id);
		at
	}

	/// Whether an act due by `task`'s deadline is still in time. A flood of deadlines at
	/// one block carries some over to later blocks: until then a late act would find its
	/// phase unchanged and escape the lapse it owes, so the block decides, not the queue.
	pub(crate) fn in_time(task: &Task<T>) -> bool {
		frame_system::Pallet::<T>::block_number() < task.deadline
	}

	/// Handles the deadline of task `id` filed at block `filed`, at block `now` (later
	/// when the queue carried it over); returns whether it was live (not a stale entry).
	pub(crate) fn on_deadline(
		id: TaskId,
		filed: BlockNumberFor<T>,
		now: BlockNumberFor<T>,
	) -> bool {
		let Some(mut task) = Tasks::<T>::get(id) else { return false };
		if task.deadline != filed {
			// Stale entry: the task moved on before this deadline.
			return false;
		}
		let res = frame_support::storage::with_storage_layer(|| {
			let alive = Self::handle_deadline(id, &mut task, now)?;
			if alive {
				Tasks::<T>::insert(id, &task);
			}
			Ok::<(), DispatchError>(())
		});
		if res.is_err() {
			// A bound was hit (the workers a task counts on): fail the task so that its
			// escrow is never stranded.
			if let Some(mut t) = Tasks::<T>::get(id) {
				Self::fail(id, &mut t, FailReason::Unschedulable);
			}
		}
		true
	}

	/// Moves the task past its deadline, one function per phase; returns whether it is
	/// still live.
	pub(crate) fn handle_deadline(
		id: TaskId,
		task: &mut Task<T>,
		now: BlockNumberFor<T>,
	) -> Result<bool, DispatchError> {
		// A draw whose time a party chose moves itself once first.
		if Self::move_draw(id, task, now) {
			return Ok(true);
		}
		match task.phase {
			Phase::Profiling => Self::profile_lapsed(id, task, now),
			Phase::ProfileReveal => Self::reveal_lapsed(id, task, now),
			Phase::Queued => Self::draw_solver(id, task, now),
			Phase::Offered => Self::solver_lapsed(id, task, T::MissedAcceptSlash::get(), now),
			Phase::Training => Self::solver_lapsed(id, task, T::MissedResultSlash::get(), now),
			Phase::Drawing => Self::draw_verifiers(id, task, now),
			Phase::Verifying => Self::verify_period_ended(id, task, now),
			// Before the window's end, only a game's end files a deadline: a re-audit.
			Phase::Challenge if now < task.window_end => Self::reaudit_after_game(id, task, now),
			Phase::Challenge => Self::settle(id, task, now),
			Phase::Disputed => Self::dispute_timed_out(id, task, now),
		}
	}

	/// The solver did not accept, or did not commit a result, in time: slashed `slash`,
	/// not drawn again for the task, and another solver is drawn.
	fn solver_lapsed(
		id: TaskId,
		task: &mut Task<T>,
		slash: BalanceOf<T>,
		now: BlockNumberFor<T>,
	) -> Result<bool, DispatchError> {
		if let Some(s) = task.solver.take() {
			T::Stake::slash(&s, Role::Solver, slash, None);
			Self::disengage(id, task, &s);
			task.exclude(s);
		}
		Self::draw_solver(id, task, now)
	}

	/// The verify period ended: silent verifiers are slashed, and a report whose
	/// re-auditor stayed silent stands again. When nobody posted anything on a first draw
	/// the verifiers are drawn again; otherwise a silent verifier's segment is void, like a refuted
	/// verdict, and audited again by a new verifier (the task stays in Verifying), or,
	/// with none to draw, left unverified: the window opens and the settlement never pays
	/// the solver for a segment nobody checked.
	fn verify_period_ended(
		id: TaskId,
		task: &mut Task<T>,
		now: BlockNumberFor<T>,
	) -> Result<bool, DispatchError> {
		let mut audits = Audits::<T>::get(id);
		let mut missing: Vec<T::AccountId> = Vec::new();
		for a in audits.iter().filter(|a| a.awaits_verdict()) {
			if !missing.contains(&a.verifier) {
				missing.push(a.verifier.clone());
			}
		}
		for v in &missing {
			T::Stake::slash(
				v,
				Role::Verifier,
				Self::per_unit(id, T::MissedVerdictSlash::get()),
				None,
			);
		}
		let unchecked =
			|a: &Audit<T::AccountId>| a.reported_before && a.verdict.is_none() && !a.unavailable;
		for a in audits.iter_mut().filter(|a| unchecked(a)) {
			// A silent re-auditor, or one whose verdict a game voided, does not erase the
			// report it was to check: the report stands, unchecked, and is re-audited
			// again while the segment has re-audits left.
			a.unavailable = true;
			a.reported_before = false;
			Self::deposit_event(Event::ReportStands { id, segment: a.segment });
		}
		// Nobody posted anything on a first draw: draw again. A silent re-audit never
		// redraws (fresh segments would drop the one it was to check: a voided verdict or
		// a report).
		if audits.iter().all(|a| a.awaits_verdict() && a.reaudits == 0) {
			return Self::nobody_verified(id, task, &missing, now);
		}
		for a in audits.iter_mut().filter(|a| a.awaits_verdict()) {
			// Silence is no verdict: void, so the segment is audited again.
			a.overturned = true;
		}
		if Self::audit_again(id, task, &mut audits, now)? {
			return Ok(true);
		}
		Audits::<T>::insert(id, audits);
		Self::open_window(id, task, now)?;
		Ok(true)
	}

	/// No drawn verifier posted anything: every one of them is let go (and, while there
	/// is room a re-audit cannot need, not drawn to re-audit the task), and the verifiers
	/// are drawn again.
	fn nobody_verified(
		id: TaskId,
		task: &mut Task<T>,
		missing: &[T::AccountId],
		now: BlockNumberFor<T>,
	) -> Result<bool, DispatchError> {
		let mut replaced = Replaced::<T>::get(id);
		let known = replaced.len();
		// Room the re-audits of a fresh draw may need, which a silent verifier must not
		// take.
		let reserved = (task.audits as usize).saturating_mul(T::MaxReaudits::get() as usize);
		let room = (ReplacedBound::<T>::get() as usize).saturating_sub(reserved);
		for v in missing {
			Self::disengage_auditor(id, task, v);
			Self::release_binding(v, id);
			// A verifier that went silent is not drawn to re-audit this task (it would
			// likely stay silent and use up a re-audit).
			if !replaced.contains(v) && replaced.len() < room {
				let _ = replaced.try_push(v.clone());
			}
		}
		if replaced.len() != known {
			Replaced::<T>::insert(id, replaced);
		}
		Audits::<T>::remove(id);
		task.phase = Phase::Drawing;
		Self::draw_verifiers(id, task, now)
	}

	/// The arbiter did not rule in time: open disputes are dropped and no one is slashed,
	/// but a disputed verdict was not upheld either: it is void (unpaid) and its segment
	/// audited again, so stalling a game never lets a challenged verdict stand. Then the
	/// task settles at its window's end ([`Self::file_settlement`]), or at once when that
	/// has passed: the timeout outlasts every game, so it fires only where the arbiter
	/// failed to rule, which no party can bring about.
	fn dispute_timed_out(
		id: TaskId,
		task: &mut Task<T>,
		now: BlockNumberFor<T>,
	) -> Result<bool, DispatchError> {
		let mut audits = Audits::<T>::get(id);
		let mut dropped: Vec<(T::AccountId, u32)> = Vec::new();
		for a in audits.iter_mut() {
			if let Some(c) = a.challenger.take() {
				T::Arbiter::cancel(id, a.segment);
				dropped.push((c, Self::false_challenge_units(id, a)));
				a.verdict = None;
				a.overturned = true;
			}
		}
		Audits::<T>::insert(id, audits);
		for (c, units) in &dropped {
			Self::disengage(id, task, c);
			Self::note_challenge(task, c, *units, false);
		}
		if task.window_end > now {
			// The window is still open (a late reveal kept it open for the solver).
			Self::file_settlement(id, task, None);
			task.phase = Phase::Challenge;
			return Ok(true);
		}
		Self::settle(id, task, now)
	}
}
