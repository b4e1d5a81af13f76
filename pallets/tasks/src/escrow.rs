//! The escrow and the workers a task counts on: payments out of the held escrow, the
//! refund of the rest, and the engagement index (`WorkerTasks`) that tells a worker which
//! tasks concern it.

use crate::*;

impl<T: Config> Pallet<T> {
	/// Pays `amount` of the task's escrow to `dest`; returns what moved (nothing
	/// when it cannot, e.g. below the existential deposit: it is refunded later).
	pub(crate) fn pay(
		task: &mut Task<T>,
		dest: &T::AccountId,
		amount: BalanceOf<T>,
	) -> BalanceOf<T> {
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
	pub(crate) fn release_rest(task: &mut Task<T>) -> BalanceOf<T> {
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

	/// Counts `who` as working on the task (with the task's bond units).
	pub(crate) fn engage(id: TaskId, task: &mut Task<T>, who: &T::AccountId) -> DispatchResult {
		task.engaged.try_push(who.clone()).map_err(|_| Error::<T>::TooManyEngaged)?;
		WorkerTasks::<T>::mutate(who, id, |n| *n = Some(n.unwrap_or(0).saturating_add(1)));
		T::Stake::note_engaged(who, Self::units(id), true);
		Ok(())
	}

	/// Stops counting `who` once (if it was counted); returns whether it was.
	pub(crate) fn disengage(id: TaskId, task: &mut Task<T>, who: &T::AccountId) -> bool {
		let Some(pos) = task.engaged.iter().position(|a| a == who) else { return false };
		task.engaged.remove(pos);
		WorkerTasks::<T>::mutate_exists(who, id, |n| {
			let v = n.unwrap_or(0).saturating_sub(1);
			*n = if v == 0 { None } else { Some(v) };
		});
		T::Stake::note_engaged(who, Self::units(id), false);
		true
	}

	/// Counts `who` as auditing the task: engaged, and its verifier bond backing the
	/// task's units on top of its other audits ([`StakeInterface::note_auditing`]).
	pub(crate) fn engage_auditor(
		id: TaskId,
		task: &mut Task<T>,
		who: &T::AccountId,
	) -> DispatchResult {
		Self::engage(id, task, who)?;
		T::Stake::note_auditing(who, Self::units(id), true);
		Ok(())
	}

	/// Stops counting `who`, a verifier that leaves the task's audits, as auditing it.
	pub(crate) fn disengage_auditor(id: TaskId, task: &mut Task<T>, who: &T::AccountId) {
		if Self::disengage(id, task, who) {
			T::Stake::note_auditing(who, Self::units(id), false);
		}
	}

	/// Lets a drawn worker that declined go, unslashed: stops counting on it, keeps it from
	/// the task's draws, and files the next draw `RandomnessDelay` blocks after `now`, from
	/// randomness that did not exist at the decline, moved from there
	/// ([`Self::file_moved_draw`]: the decliner chose its decline's block, so that it
	/// cannot hand the task to a partner).
	pub(crate) fn let_go(
		id: TaskId,
		task: &mut Task<T>,
		who: &T::AccountId,
		now: BlockNumberFor<T>,
	) {
		Self::disengage(id, task, who);
		task.exclude(who.clone());
		let delay = Self::randomness_delay();
		Self::file_moved_draw(id, task, now.saturating_add(delay), now);
	}

	/// Removes a finished task and stops counting on its workers.
	pub(crate) fn close(id: TaskId, task: &mut Task<T>) {
		Self::release_workers(id, task);
		Tasks::<T>::remove(id);
		Specs::<T>::remove(id);
		// Last: releasing the workers reads it.
		BondUnits::<T>::remove(id);
		ProfileCommitments::<T>::remove(id);
	}

	/// Drops the task's audits, frees its verifiers' forced-error bindings and stops
	/// counting on every worker engaged in it.
	pub(crate) fn release_workers(id: TaskId, task: &mut Task<T>) {
		// Each verifier left in the audits was engaged once as an auditor of the task.
		let mut auditors: Vec<T::AccountId> = Vec::new();
		for a in Audits::<T>::take(id) {
			if !auditors.contains(&a.verifier) {
				auditors.push(a.verifier.clone());
			}
			Self::release_binding(&a.verifier, id);
			// No path ends a task with a game open; should one ever, the game is not left
			// behind, nor its challenger's count.
			if let Some(c) = &a.challenger {
				T::Arbiter::cancel(id, a.segment);
				Self::note_challenge(task, c, Self::false_challenge_units(id, &a), false);
			}
		}
		Replaced::<T>::remove(id);
		// At most one entry per audited segment.
		let _ = ChallengedAt::<T>::clear_prefix(id, T::MaxAuditSegments::get(), None);
		// At most one entry per audited segment: a rejected proof ends its round here.
		let _ = SolverContested::<T>::clear_prefix(id, T::MaxAuditSegments::get(), None);
		// At most one entry per audited segment; read above for the open games' counts.
		let _ = Survived::<T>::clear_prefix(id, T::MaxAuditSegments::get(), None);
		RevealsFrom::<T>::remove(id);
		MovedDraw::<T>::remove(id);
		Watches::<T>::remove(id);
		OffTask::<T>::remove(id);
		Self::end_demands(id);
		let units = Self::units(id);
		for who in core::mem::take(&mut task.engaged) {
			WorkerTasks::<T>::mutate_exists(&who, id, |n| {
				let v = n.unwrap_or(0).saturating_sub(1);
				*n = if v == 0 { None } else { Some(v) };
			});
			T::Stake::note_engaged(&who, units, false);
			if let Some(i) = auditors.iter().position(|a| *a == who) {
				auditors.swap_remove(i);
				T::Stake::note_auditing(&who, units, false);
			}
		}
	}
}
