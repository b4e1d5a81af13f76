//! Proofs that a committed run is not one of its task. A verdict replays a segment from
//! the solver's own checkpoint, so a run stamped with steps of the solver's choosing, or
//! trained from weights of its choosing, replays to its own checkpoints: partner
//! verifiers could pass it. Its commitment gives it away, and anyone can show that from
//! the commitment alone (`prove_off_task`); the proof is rejected at settlement with the
//! prover as its reporter.

use crate::*;

impl<T: Config> Pallet<T> {
	/// `prove_off_task`: checks `proof` against the task's committed result and records
	/// its prover (the first one): `who`, unless the checkpoint it opens is being
	/// published on a paid demand (a page of it is on chain), whose demander pays to put
	/// it on chain and reports it (a proof copied from the pool, or made by the solver's own
	/// account from the pages, even before the last, takes nothing from it).
	pub(crate) fn do_prove_off_task(
		who: T::AccountId,
		id: TaskId,
		proof: OffTaskProof,
	) -> DispatchResult {
		let task = Tasks::<T>::get(id).ok_or(Error::<T>::UnknownTask)?;
		let result = task.result.as_ref().ok_or(Error::<T>::WrongPhase)?;
		ensure!(!OffTask::<T>::contains_key(id), Error::<T>::AlreadyProvenOffTask);
		let spec = Specs::<T>::get(id).ok_or(Error::<T>::UnknownTask)?;
		ensure!(
			T::Arbiter::off_task(&spec, &result.checkpoint_root, result.checkpoints, &proof),
			Error::<T>::NotOffTask
		);
		// Pages come in order: one on chain moved the next from the first. A report's
		// demand, free, put nothing on chain at its reporter's cost: the prover keeps it.
		let demanded = Demands::<T>::get(id)
			.into_iter()
			.find(|d| d.checkpoint == proof.index && d.next != Some((0, 0)) && !d.fee.is_zero())
			.map(|d| d.by);
		let by = demanded.unwrap_or(who);
		OffTask::<T>::insert(id, &by);
		Self::deposit_event(Event::RunOffTask { id, by });
		Ok(())
	}
}
