//! Training: the drawn solver accepts (the data order is fixed then) and commits its
//! result, which schedules the verifier draw.

use crate::*;

/// What a solver commits for its run (the arguments of `submit_result`).
pub(crate) struct Commitment<T: Config> {
	/// Hash of the final checkpoint.
	pub final_hash: Hash32,
	/// Merkle root over the checkpoint state hashes (initial state first).
	pub checkpoint_root: Hash32,
	/// Number of checkpoints, initial state included.
	pub checkpoints: u32,
	/// Where the proof store serves this run.
	pub location: BoundedVec<u8, T::MaxLocationLen>,
}

impl<T: Config> Pallet<T> {
	/// `accept_task`: the offered solver accepts; the data-order randomness is fixed and
	/// the result is due after the training period its claimed speed implies.
	pub(crate) fn do_accept_task(who: T::AccountId, id: TaskId) -> DispatchResult {
		let mut task = Tasks::<T>::get(id).ok_or(Error::<T>::UnknownTask)?;
		ensure!(task.phase == Phase::Offered, Error::<T>::WrongPhase);
		ensure!(task.solver.as_ref() == Some(&who), Error::<T>::NotSolver);
		ensure!(Self::in_time(&task), Error::<T>::DeadlinePassed);
		let now = frame_system::Pallet::<T>::block_number();
		let (r, _) = Self::random_hash(&(b"gensyn/order", id).encode());
		task.order_randomness = sp_crypto_hashing::blake2_256(&(id, r).encode());
		let speed = T::Stake::capability(&who).map(|c| c.mgas_per_sec).unwrap_or(1);
		let due = Self::schedule(id, now.saturating_add(Self::training_period(task.gas, speed)));
		task.phase = Phase::Training;
		task.deadline = due;
		Tasks::<T>::insert(id, task);
		Self::deposit_event(Event::TaskAccepted { id, solver: who, due });
		Ok(())
	}

	/// `decline_task`: the offered solver steps aside, unslashed, and the task waits for
	/// the next draw. Free, since a solver that cannot check the submitter's data must
	/// never be made to pay for it; bounded, since every draw spends one of the task's
	/// [`Config::MaxDraws`]. The next solver is drawn `RandomnessDelay` blocks later, from
	/// randomness that did not exist at the decline: drawn at once, from randomness
	/// already known, a solver could decline in the block whose draw picks its partner,
	/// and two accounts could pass a task between them until it fails.
	pub(crate) fn do_decline_task(who: T::AccountId, id: TaskId) -> DispatchResult {
		let mut task = Tasks::<T>::get(id).ok_or(Error::<T>::UnknownTask)?;
		ensure!(task.phase == Phase::Offered, Error::<T>::WrongPhase);
		ensure!(task.solver.as_ref() == Some(&who), Error::<T>::NotSolver);
		ensure!(Self::in_time(&task), Error::<T>::OfferExpired);
		let now = frame_system::Pallet::<T>::block_number();
		task.solver = None;
		task.phase = Phase::Queued;
		Self::let_go(id, &mut task, &who, now);
		Tasks::<T>::insert(id, task);
		Self::deposit_event(Event::TaskDeclined { id, solver: who });
		Ok(())
	}

	/// `submit_result`: the solver commits its result; verifiers are drawn
	/// `RandomnessDelay` blocks later, from randomness that did not exist now.
	pub(crate) fn do_submit_result(
		who: T::AccountId,
		id: TaskId,
		committed: Commitment<T>,
	) -> DispatchResult {
		let Commitment { final_hash, checkpoint_root, checkpoints, location } = committed;
		let mut task = Tasks::<T>::get(id).ok_or(Error::<T>::UnknownTask)?;
		ensure!(task.phase == Phase::Training, Error::<T>::WrongPhase);
		ensure!(task.solver.as_ref() == Some(&who), Error::<T>::NotSolver);
		ensure!(checkpoints == task.checkpoints, Error::<T>::WrongCheckpointCount);
		ensure!(Self::in_time(&task), Error::<T>::DeadlinePassed);
		let now = frame_system::Pallet::<T>::block_number();
		let delay = Self::randomness_delay();
		task.deadline = Self::schedule(id, now.saturating_add(delay));
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
}
