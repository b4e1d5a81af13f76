//! Profiling of Threshold tasks: up to [`PROFILERS`] drawn verifiers each propose a
//! distance threshold; verdicts are judged against their median, and each profiler whose
//! proposal lies within [`PROFILE_BAND`] of it is paid one segment's verification pay.

use crate::*;
use sp_runtime::traits::UniqueSaturatedInto;

/// A profile is paid when it lies within this factor of the median: honest profilers on
/// different hardware differ by a few times, while a profiler that posts zero or a huge
/// value to steer the threshold (or a guess instead of a replay) is not paid for it.
pub const PROFILE_BAND: f32 = 100.0;

/// The threshold the posted ones (f32 bits, finite and not negative) decide: their
/// median, the lower of the middle two when they are even in number (a threshold too
/// low is one an honest solver sees before it accepts, and may decline; one too high
/// would pass fakes unseen). `None` when nothing was posted.
pub fn median_threshold(posted: &[u32]) -> Option<u32> {
	let mut sorted = posted.to_vec();
	// For finite, non-negative f32 values the bit patterns sort as the numbers do.
	sorted.sort_unstable();
	sorted.get(sorted.len().saturating_sub(1) / 2).copied()
}

/// Whether a proposed threshold lies within [`PROFILE_BAND`] of the decided one.
pub fn within_band(proposed: u32, decided: u32) -> bool {
	let (p, d) = (f32::from_bits(proposed), f32::from_bits(decided));
	p <= d * PROFILE_BAND && p * PROFILE_BAND >= d
}

impl<T: Config> Pallet<T> {
	/// Draws profilers for a Threshold task among active verifiers whose memory fits
	/// (never the owner, a profiler that let it lapse, or one already drawn) until it has
	/// [`PROFILERS`], or as many as fit. With none drawn and none posted, waits a retry
	/// period; with none drawn but some posted (those that lapsed cannot be replaced),
	/// decides the threshold from those. After `MaxDraws` draws, fails the task when
	/// nothing was posted. Returns whether the task is still live.
	pub(crate) fn draw_profilers(
		id: TaskId,
		task: &mut Task<T>,
		now: BlockNumberFor<T>,
	) -> Result<bool, DispatchError> {
		let posted = task.profilers.iter().any(|p| p.threshold.is_some());
		if task.draws >= T::MaxDraws::get() {
			if posted {
				return Self::decide_threshold(id, task, now);
			}
			Self::fail(id, task, FailReason::NoVerifier);
			return Ok(false);
		}
		task.draws = task.draws.saturating_add(1);
		task.phase = Phase::Profiling;
		let mut drawn: Vec<T::AccountId> = Vec::new();
		let room = Self::profiles_funded(task);
		for slot in 0..PROFILERS {
			if task.profilers.len() as u32 >= room {
				break;
			}
			let subject = (b"gensyn/profiler", id, task.draws, slot).encode();
			let taken: Vec<T::AccountId> = task.profilers.iter().map(|p| p.who.clone()).collect();
			let Some(p) = Self::draw_one(Role::Verifier, task, &subject, |a| !taken.contains(a))
			else {
				break;
			};
			Self::engage(id, task, &p)?;
			if task.profilers.try_push(Profile { who: p.clone(), threshold: None }).is_err() {
				break;
			}
			drawn.push(p);
		}
		if drawn.is_empty() {
			if posted {
				return Self::decide_threshold(id, task, now);
			}
			task.deadline = Self::schedule(id, now.saturating_add(T::RetryPeriod::get()));
			return Ok(true);
		}
		let until = Self::schedule(id, now.saturating_add(T::ProfilePeriod::get()));
		task.deadline = until;
		for profiler in drawn {
			Self::deposit_event(Event::ProfilerDrawn { id, profiler, until });
		}
		Ok(true)
	}

	/// How many profiles the task's escrow pays for beyond what a training round costs:
	/// [`PROFILERS`] for a task submitted since several are drawn, one for a task
	/// submitted before (never fewer).
	fn profiles_funded(task: &Task<T>) -> u32 {
		let spare = task.escrow.saturating_sub(Self::round_cost(task, true));
		let funded: u32 = match spare.checked_div(&task.segment_pay) {
			Some(n) => n.unique_saturated_into(),
			None => PROFILERS,
		};
		funded.clamp(1, PROFILERS)
	}

	/// The profile deadline: profilers that posted nothing are slashed and not drawn for
	/// the task again, and others are drawn in their place.
	pub(crate) fn profile_lapsed(
		id: TaskId,
		task: &mut Task<T>,
		now: BlockNumberFor<T>,
	) -> Result<bool, DispatchError> {
		let (late, kept): (Vec<_>, Vec<_>) =
			core::mem::take(&mut task.profilers).into_iter().partition(|p| p.threshold.is_none());
		// As many as before: within the same bound.
		task.profilers = BoundedVec::truncate_from(kept);
		for p in late {
			T::Stake::slash(&p.who, Role::Verifier, T::MissedVerdictSlash::get(), None);
			Self::disengage(id, task, &p.who);
			task.exclude(p.who);
		}
		Self::draw_profilers(id, task, now)
	}

	/// Every drawn profiler posted (or those that lapsed could not be replaced): the
	/// threshold is the median of the posted ones, each profiler within [`PROFILE_BAND`]
	/// of it is paid one segment's verification pay (the rest of the profiling escrow is
	/// refunded with the task), and the task moves on to the solver draw.
	fn decide_threshold(
		id: TaskId,
		task: &mut Task<T>,
		now: BlockNumberFor<T>,
	) -> Result<bool, DispatchError> {
		let profiles = core::mem::take(&mut task.profilers);
		let posted: Vec<u32> = profiles.iter().filter_map(|p| p.threshold).collect();
		let Some(threshold) = median_threshold(&posted) else {
			// Nobody posted: callers never get here so, but the task then waits for
			// profilers rather than being judged by a threshold nobody measured.
			task.deadline = Self::schedule(id, now.saturating_add(T::RetryPeriod::get()));
			return Ok(true);
		};
		let pay = task.segment_pay;
		let mut paid = Vec::new();
		for p in profiles {
			if !p.threshold.is_some_and(|t| within_band(t, threshold)) {
				continue;
			}
			let amount = Self::pay(task, &p.who, pay);
			if !amount.is_zero() {
				T::Stake::note_earned(&p.who, Role::Verifier, amount);
			}
			paid.push((p.who, amount));
		}
		task.threshold = Some(threshold);
		// Lapsed profilers may still solve it.
		task.excluded = Default::default();
		task.draws = 0;
		Self::deposit_event(Event::Profiled { id, threshold, paid });
		Self::draw_solver(id, task, now)
	}

	/// `submit_profile`: a drawn profiler posts its threshold (f32 bits, finite and not
	/// negative); once every drawn profiler has, the task's threshold is decided.
	pub(crate) fn do_submit_profile(
		who: T::AccountId,
		id: TaskId,
		threshold: u32,
	) -> DispatchResult {
		let mut task = Tasks::<T>::get(id).ok_or(Error::<T>::UnknownTask)?;
		ensure!(task.phase == Phase::Profiling, Error::<T>::WrongPhase);
		let slot =
			task.profilers.iter_mut().find(|p| p.who == who).ok_or(Error::<T>::NotProfiler)?;
		ensure!(slot.threshold.is_none(), Error::<T>::ProfileAlreadyPosted);
		let t = f32::from_bits(threshold);
		ensure!(t.is_finite() && t >= 0.0, Error::<T>::InvalidThreshold);
		slot.threshold = Some(threshold);
		Self::disengage(id, &mut task, &who);
		Self::deposit_event(Event::ProfilePosted { id, profiler: who, threshold });
		let live = if task.profilers.iter().all(|p| p.threshold.is_some()) {
			let now = frame_system::Pallet::<T>::block_number();
			Self::decide_threshold(id, &mut task, now)?
		} else {
			true
		};
		if live {
			Tasks::<T>::insert(id, task);
		}
		Ok(())
	}

	/// `decline_profile`: a drawn profiler that has not posted lets the task go before
	/// its deadline, unslashed (its data could not be had or checked, which is the
	/// submitter's doing). It is kept from the task's draws; another profiler is drawn
	/// at the deadline, from randomness that did not exist at the decline, so that a
	/// profiler cannot hand its place to a partner. When it was the last one still to
	/// post, the deadline comes `RandomnessDelay` blocks later (the others' deadline never
	/// moves closer).
	pub(crate) fn do_decline_profile(who: T::AccountId, id: TaskId) -> DispatchResult {
		let mut task = Tasks::<T>::get(id).ok_or(Error::<T>::UnknownTask)?;
		ensure!(task.phase == Phase::Profiling, Error::<T>::WrongPhase);
		let at = task
			.profilers
			.iter()
			.position(|p| p.who == who && p.threshold.is_none())
			.ok_or(Error::<T>::NotProfiler)?;
		let now = frame_system::Pallet::<T>::block_number();
		ensure!(now < task.deadline, Error::<T>::OfferExpired);
		task.profilers.remove(at);
		if task.profilers.iter().any(|p| p.threshold.is_none()) {
			Self::disengage(id, &mut task, &who);
			task.exclude(who.clone());
		} else {
			Self::let_go(id, &mut task, &who, now);
		}
		Tasks::<T>::insert(id, task);
		Self::deposit_event(Event::ProfileDeclined { id, profiler: who });
		Ok(())
	}
}
