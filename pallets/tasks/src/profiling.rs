//! Profiling of Threshold tasks: a drawn verifier proposes the distance threshold that
//! verdicts are judged against, and is paid one segment's verification pay for it.

use crate::*;

impl<T: Config> Pallet<T> {
	/// Draws a profiler for a Threshold task among active verifiers whose memory
	/// fits (never the owner nor a profiler that let it lapse). With none, waits a
	/// retry period; after `MaxDraws` draws, fails the task. Returns whether the task
	/// is still live.
	pub(crate) fn draw_profiler(
		id: TaskId,
		task: &mut Task<T>,
		now: BlockNumberFor<T>,
	) -> Result<bool, DispatchError> {
		if task.draws >= T::MaxDraws::get() {
			Self::fail(id, task, FailReason::NoVerifier);
			return Ok(false);
		}
		task.draws = task.draws.saturating_add(1);
		let subject = (b"gensyn/profiler", id, task.draws).encode();
		let pick = Self::draw_one(Role::Verifier, task, &subject, |_| true);
		task.phase = Phase::Profiling;
		match pick {
			Some(p) => {
				let until = Self::schedule(id, now.saturating_add(T::ProfilePeriod::get()));
				Self::engage(id, task, &p)?;
				task.profiler = Some(p.clone());
				task.deadline = until;
				Self::deposit_event(Event::ProfilerDrawn { id, profiler: p, until });
			}
			None => {
				task.deadline = Self::schedule(id, now.saturating_add(T::RetryPeriod::get()));
			}
		}
		Ok(true)
	}

	/// `submit_profile`: the drawn profiler posts the threshold (f32 bits, finite and not
	/// negative), is paid, and the task moves on to the solver draw.
	pub(crate) fn do_submit_profile(
		who: T::AccountId,
		id: TaskId,
		threshold: u32,
	) -> DispatchResult {
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
		// Lapsed profilers may still solve it.
		task.excluded = Default::default();
		task.draws = 0;
		let now = frame_system::Pallet::<T>::block_number();
		if Self::draw_solver(id, &mut task, now)? {
			Tasks::<T>::insert(id, task);
		}
		Self::deposit_event(Event::Profiled { id, threshold, paid });
		Ok(())
	}

	/// `decline_profile`: the drawn profiler lets the task go before its deadline,
	/// unslashed (its data could not be had or checked, which is the submitter's doing).
	/// It is kept from the task's draws, and the next profiler is drawn
	/// `RandomnessDelay` blocks later, from randomness that did not exist at the decline,
	/// so that a profiler cannot hand the threshold to a partner.
	pub(crate) fn do_decline_profile(who: T::AccountId, id: TaskId) -> DispatchResult {
		let mut task = Tasks::<T>::get(id).ok_or(Error::<T>::UnknownTask)?;
		ensure!(task.phase == Phase::Profiling, Error::<T>::WrongPhase);
		ensure!(task.profiler.as_ref() == Some(&who), Error::<T>::NotProfiler);
		let now = frame_system::Pallet::<T>::block_number();
		ensure!(now < task.deadline, Error::<T>::OfferExpired);
		task.profiler = None;
		Self::let_go(id, &mut task, &who, now);
		Tasks::<T>::insert(id, task);
		Self::deposit_event(Event::ProfileDeclined { id, profiler: who });
		Ok(())
	}
}
