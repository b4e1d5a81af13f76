//! Profiling of Threshold tasks: up to [`PROFILERS`] drawn verifiers each propose a
//! distance threshold; verdicts are judged against the threshold their proposals agree
//! on ([`agreed_threshold`]), and each profiler whose proposal lies within
//! [`PROFILE_BAND`] of it is paid one segment's verification pay.
//!
//! A proposal is committed (a hash, [`profile_commitment`]) before any is revealed:
//! once every seated profiler has committed, no seat is filled again and reveals open
//! for [`Config::ProfileRevealPeriod`]. A profiler that waits for another's profile to
//! copy it instead of replaying finds nothing to copy.

use crate::*;
use sp_runtime::traits::UniqueSaturatedInto;

/// A profile is paid when it lies within this factor of the decided threshold, and two
/// profiles agree when they lie within it of each other: honest profilers on different
/// hardware differ by a few times, while a profiler that posts a tiny or a huge value to
/// steer the threshold (or a guess instead of a replay) is not paid for it.
pub const PROFILE_BAND: f32 = 100.0;

/// The threshold the posted ones (f32 bits, finite and positive) agree on, if any:
/// - three or more: their median, so that no lone profiler sets it;
/// - two: the higher, when they lie within [`PROFILE_BAND`] of each other (a lone
///   liar then moves the threshold at most that far, and never below an honest
///   profile, which would fail honest solvers); none when they do not agree;
/// - one: it, only when `lone` (no other profiler was drawn and left); none when
///   others lapsed, so that one profiler is never left to set the threshold alone.
///
/// With none agreed the task fails before anyone trains, refunded but for the profiles'
/// pay ([`Pallet::decide_threshold`] says who gets it).
pub fn agreed_threshold(posted: &[u32], lone: bool) -> Option<u32> {
	let mut sorted = posted.to_vec();
	// For finite, positive f32 values the bit patterns sort as the numbers do.
	sorted.sort_unstable();
	match sorted[..] {
		[] => None,
		[only] => lone.then_some(only),
		[low, high] => within_band(low, high).then_some(high),
		_ => sorted.get((sorted.len() - 1) / 2).copied(),
	}
}

/// Whether two thresholds (f32 bits) lie within [`PROFILE_BAND`] of each other.
pub fn within_band(a: u32, b: u32) -> bool {
	let (a, b) = (f32::from_bits(a), f32::from_bits(b));
	a <= b * PROFILE_BAND && b <= a * PROFILE_BAND
}

impl<T: Config> Pallet<T> {
	/// `threshold` (f32 bits) within [`Config::ThresholdBounds`]: the threshold a
	/// Threshold task is judged by. Two of three profilers in league can set the median;
	/// the bounds keep it from failing every honest replay or passing every copied
	/// checkpoint. A bound that is not a finite positive value bounds nothing; the floor
	/// is applied last, so that where governance crosses the two, honest solvers are the
	/// ones protected.
	pub fn bounded_threshold(threshold: u32) -> u32 {
		let bound = |bits: u32| Some(f32::from_bits(bits)).filter(|b| b.is_finite() && *b > 0.0);
		let (floor, ceiling) = T::ThresholdBounds::bounds();
		let mut t = f32::from_bits(threshold);
		// `min` and `max` take the bound over a NaN.
		if let Some(hi) = bound(ceiling) {
			t = t.min(hi);
		}
		if let Some(lo) = bound(floor) {
			t = t.max(lo);
		}
		t.to_bits()
	}

	/// The threshold (f32 bits) task `id`'s verdicts are judged by now: the decided one,
	/// or until then the bounded default; none for an Exact task.
	pub(crate) fn judging_threshold(id: TaskId, task: &Task<T>) -> Option<u32> {
		Self::is_threshold(id).then(|| {
			task.threshold.unwrap_or_else(|| Self::bounded_threshold(T::DefaultThreshold::get()))
		})
	}

	/// Draws profilers for a Threshold task among active verifiers whose memory fits
	/// (never the owner, a profiler that let it lapse or declined, or one already drawn)
	/// until it has [`PROFILERS`], or as many as fit. With none drawn and none committed,
	/// waits a retry period; with none drawn but some committed (those that left cannot
	/// be replaced), opens their reveals ([`Self::open_reveals`]). After `MaxDraws`
	/// draws, opens the reveals of what was committed, or fails the task when nothing
	/// was. Returns whether the task is still live.
	pub(crate) fn draw_profilers(
		id: TaskId,
		task: &mut Task<T>,
		now: BlockNumberFor<T>,
	) -> Result<bool, DispatchError> {
		let commitments = ProfileCommitments::<T>::get(id);
		let posted = task.profilers.iter().any(|p| committed(&commitments, p));
		if task.draws >= T::MaxDraws::get() {
			if posted {
				return Self::open_reveals(id, task, now);
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
			let Some(p) =
				Self::draw_one(id, Role::Verifier, task, &subject, |a| !taken.contains(a))
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
				return Self::open_reveals(id, task, now);
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
		let spare = task.escrow.saturating_sub(Self::round_cost(task));
		let funded: u32 = match spare.checked_div(&task.segment_pay) {
			Some(n) => n.unique_saturated_into(),
			None => PROFILERS,
		};
		funded.clamp(1, PROFILERS)
	}

	/// The profile deadline: profilers that committed nothing are slashed and not drawn
	/// for the task again, and others are drawn in their place.
	pub(crate) fn profile_lapsed(
		id: TaskId,
		task: &mut Task<T>,
		now: BlockNumberFor<T>,
	) -> Result<bool, DispatchError> {
		let commitments = ProfileCommitments::<T>::get(id);
		Self::drop_profilers(id, task, |p| !committed(&commitments, p));
		Self::draw_profilers(id, task, now)
	}

	/// The reveal deadline: profilers that committed and did not reveal are slashed as
	/// for a missed profile and not drawn for the task again; the threshold is decided
	/// from the reveals (no seat is filled again: the reveals are public now).
	pub(crate) fn reveal_lapsed(
		id: TaskId,
		task: &mut Task<T>,
		now: BlockNumberFor<T>,
	) -> Result<bool, DispatchError> {
		Self::drop_profilers(id, task, |p| p.threshold.is_none());
		ProfileCommitments::<T>::remove(id);
		Self::decide_threshold(id, task, now)
	}

	/// Slashes, lets go and excludes the profilers `late` picks: each failed the task at
	/// its deadline.
	fn drop_profilers(
		id: TaskId,
		task: &mut Task<T>,
		late: impl Fn(&Profile<T::AccountId>) -> bool,
	) {
		let (late, kept): (Vec<_>, Vec<_>) =
			core::mem::take(&mut task.profilers).into_iter().partition(late);
		// As many as before: within the same bound.
		task.profilers = BoundedVec::truncate_from(kept);
		for p in late {
			let slash = Self::per_unit(id, T::MissedVerdictSlash::get());
			T::Stake::slash(&p.who, Role::Verifier, slash, None);
			Self::disengage(id, task, &p.who);
			task.exclude(p.who);
		}
	}

	/// Every seated profiler has committed and no seat will be filled again: reveals
	/// open until the reveal deadline. With every profile already revealed (posted
	/// before profiles were committed), the threshold is decided at once.
	fn open_reveals(
		id: TaskId,
		task: &mut Task<T>,
		now: BlockNumberFor<T>,
	) -> Result<bool, DispatchError> {
		if task.profilers.iter().all(|p| p.threshold.is_some()) {
			ProfileCommitments::<T>::remove(id);
			return Self::decide_threshold(id, task, now);
		}
		task.phase = Phase::ProfileReveal;
		let until = Self::schedule(id, now.saturating_add(T::ProfileRevealPeriod::get()));
		task.deadline = until;
		Self::deposit_event(Event::ProfileRevealsOpen { id, until });
		Ok(true)
	}

	/// Every seat posted, or no more profilers can be drawn: the threshold is the one
	/// the posts agree on ([`agreed_threshold`]; a single post counts only when no other
	/// profiler was ever drawn and left, or the task funds one profile), each profiler
	/// within [`PROFILE_BAND`] of it is paid one segment's verification pay (the rest of
	/// the profiling escrow is refunded with the task), and the task is queued for the
	/// solver draw, from randomness made after the decision ([`Self::file_moved_draw`]). With no agreement the task fails (`NoThreshold`), refunded but for
	/// the profiles: a single post left alone by lapses is paid; posts that disagree, or
	/// any post after a decline, are not (the chain cannot tell which of them lied), and
	/// their pay goes to the jackpot pot, so that no submitter undoes a draw for less
	/// than its profiles cost.
	fn decide_threshold(
		id: TaskId,
		task: &mut Task<T>,
		now: BlockNumberFor<T>,
	) -> Result<bool, DispatchError> {
		// A decline spends the draws (one past the last: retries spend them too) and pays
		// its seat out of the escrow, which lowers what the escrow funds: a task left
		// funding one profile by declines is no task that only ever funded one.
		let declined = task.draws > T::MaxDraws::get();
		let lone = task.excluded.is_empty() || (Self::profiles_funded(task) == 1 && !declined);
		let profiles = core::mem::take(&mut task.profilers);
		let posted: Vec<u32> = profiles.iter().filter_map(|p| p.threshold).collect();
		let Some(threshold) = agreed_threshold(&posted, lone) else {
			task.profilers = profiles;
			if posted.len() == 1 && !declined {
				// Left alone by others that lapsed (and were slashed for it), nothing
				// contradicts it: its work is paid.
				Self::pay_posted_profiles(id, task);
			} else {
				// Posts that disagree, or left undecided by a decline: a submitter whose
				// partner posts far from the honest profiles (or alone, beside honest ones
				// it starved of data) would otherwise undo the draw for less than the
				// profiles of a draw it let stand. Their pay goes to the pot.
				Self::forfeit_posted_profiles(id, task);
			}
			Self::fail(id, task, FailReason::NoThreshold);
			return Ok(false);
		};
		// Profiles are paid for lying near what the profiles agree on; the task is
		// judged by that, raised to the floor.
		let paid = Self::pay_profiles(task, profiles, |t| within_band(t, threshold));
		let bounded = Self::bounded_threshold(threshold);
		if f32::from_bits(bounded) < f32::from_bits(threshold) {
			// Past the ceiling. Lowered to it, the threshold would fail every honest
			// replay of a model whose replays stray that far (a submitter picks the
			// model), and the fail would stand: the honest solver slashed. Not
			// lowered, partners of a lazy solver would pass its copies. Nobody trains.
			// The profiles are paid as they agreed: were they not, an honest profiler
			// would gain by posting no more than the ceiling whatever it measured, and
			// the task would run with a threshold its honest replays stray past.
			if !paid.is_empty() {
				Self::deposit_event(Event::ProfilesPaid { id, paid });
			}
			Self::fail(id, task, FailReason::ThresholdAboveBound);
			return Ok(false);
		}
		let threshold = bounded;
		task.threshold = Some(threshold);
		// Lapsed profilers may still solve it.
		task.excluded = Default::default();
		task.draws = 0;
		Self::deposit_event(Event::Profiled { id, threshold, paid });
		// The solver is drawn from randomness made after the threshold was decided: the
		// last reveal is sent when its profiler likes, and a draw in its block would read
		// a beacon it knew, letting it hand the task to a partner solver.
		task.phase = Phase::Queued;
		Self::file_moved_draw(id, task, now.saturating_add(Self::randomness_delay()), now);
		Ok(true)
	}

	/// `commit_profile`: a drawn profiler commits to its threshold. Once every drawn
	/// profiler has, reveals open at once when every seat is taken, none may be filled
	/// again (a decline spent the draws) or no other verifier could take an empty one;
	/// otherwise an empty seat is filled at the deadline, from randomness no profiler
	/// knows now. The profiler stays engaged until it reveals.
	pub(crate) fn do_commit_profile(
		who: T::AccountId,
		id: TaskId,
		commitment: Hash32,
	) -> DispatchResult {
		let mut task = Tasks::<T>::get(id).ok_or(Error::<T>::UnknownTask)?;
		ensure!(task.phase == Phase::Profiling, Error::<T>::WrongPhase);
		let slot = task.profilers.iter().find(|p| p.who == who).ok_or(Error::<T>::NotProfiler)?;
		ensure!(Self::in_time(&task), Error::<T>::DeadlinePassed);
		let mut commitments = ProfileCommitments::<T>::get(id);
		ensure!(!committed(&commitments, slot), Error::<T>::ProfileAlreadyPosted);
		// One entry per seat, and a seat commits once.
		commitments
			.try_push((who.clone(), commitment))
			.map_err(|_| Error::<T>::ProfileAlreadyPosted)?;
		ProfileCommitments::<T>::insert(id, &commitments);
		Self::deposit_event(Event::ProfileCommitted { id, profiler: who });
		// Whether an empty seat could still be filled is asked (a scan of the active
		// verifiers) only once every drawn profiler has committed.
		let all_committed = task.profilers.iter().all(|p| committed(&commitments, p));
		let seated = || {
			let taken: Vec<T::AccountId> = task.profilers.iter().map(|p| p.who.clone()).collect();
			task.profilers.len() as u32 >= Self::profiles_funded(&task)
				|| task.draws >= T::MaxDraws::get()
				|| Self::fitting(Role::Verifier, &task, |a| !taken.contains(a)).is_empty()
		};
		if all_committed && seated() {
			let now = frame_system::Pallet::<T>::block_number();
			if !Self::open_reveals(id, &mut task, now)? {
				return Ok(());
			}
		}
		Tasks::<T>::insert(id, task);
		Ok(())
	}

	/// `reveal_profile`: a profiler that committed reveals its threshold (f32 bits,
	/// finite and positive) once reveals are open; it must hash, with the salt, to its
	/// commitment. Once every committed profile is revealed, the threshold is decided.
	pub(crate) fn do_reveal_profile(
		who: T::AccountId,
		id: TaskId,
		threshold: u32,
		salt: Hash32,
	) -> DispatchResult {
		let mut task = Tasks::<T>::get(id).ok_or(Error::<T>::UnknownTask)?;
		ensure!(task.phase == Phase::ProfileReveal, Error::<T>::WrongPhase);
		ensure!(Self::in_time(&task), Error::<T>::DeadlinePassed);
		let mut commitments = ProfileCommitments::<T>::get(id);
		let slot = task
			.profilers
			.iter_mut()
			.find(|p| p.who == who && p.threshold.is_none())
			.ok_or(Error::<T>::NotProfiler)?;
		let commitment = commitments
			.iter()
			.find_map(|(w, c)| (*w == who).then_some(*c))
			.ok_or(Error::<T>::NotProfiler)?;
		ensure!(
			profile_commitment(id, &who, threshold, &salt) == commitment,
			Error::<T>::ProfileMismatch
		);
		let t = f32::from_bits(threshold);
		ensure!(t.is_finite() && t > 0.0, Error::<T>::InvalidThreshold);
		slot.threshold = Some(threshold);
		// Revealed: its commitment has done its work.
		commitments.retain(|(w, _)| *w != who);
		if commitments.is_empty() {
			ProfileCommitments::<T>::remove(id);
		} else {
			ProfileCommitments::<T>::insert(id, &commitments);
		}
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

	/// `decline_profile`: a drawn profiler that has not posted cannot use the task's data
	/// (the submitter's doing) and lets it go before its deadline, unslashed. Its seat
	/// stays empty and no seat is filled again (the task's draws are spent): replacing
	/// decliners would let a submitter that serves its data to its partner profilers only
	/// have the honest ones decline, one after another, until only partners post. The
	/// threshold is decided from the others' profiles (one alone decides nothing), so a
	/// decline never ends a task that its other profilers can profile, and the declined
	/// seat's pay goes to the jackpot pot. Should the profiles left decide nothing, their
	/// pay goes there too: a submitter whose partner is seated undoes the draw only at
	/// the price of every seat. With every seat declined the task fails (`NoThreshold`),
	/// refunded but for the seats' pay.
	pub(crate) fn do_decline_profile(who: T::AccountId, id: TaskId) -> DispatchResult {
		let mut task = Tasks::<T>::get(id).ok_or(Error::<T>::UnknownTask)?;
		ensure!(task.phase == Phase::Profiling, Error::<T>::WrongPhase);
		let commitments = ProfileCommitments::<T>::get(id);
		// A profiler that committed owes its reveal: a decline then would let it withdraw
		// a profile once it had seen that the others' would not be revealed first.
		ensure!(
			task.profilers.iter().any(|p| p.who == who && !committed(&commitments, p)),
			Error::<T>::NotProfiler
		);
		ensure!(Self::in_time(&task), Error::<T>::OfferExpired);
		task.profilers.retain(|p| p.who != who);
		Self::disengage(id, &mut task, &who);
		task.exclude(who.clone());
		// Spent, and one past the last draw, which says a decline spent them.
		task.draws = T::MaxDraws::get().saturating_add(1);
		// The seat's funding goes to the jackpot pot, never to the decliner: the data is
		// the submitter's doing, and declines must not undo a draw for free.
		let forfeited = Self::forfeit_seat(&mut task);
		Self::deposit_event(Event::ProfileDeclined { id, profiler: who, forfeited });
		let live = if task.profilers.is_empty() {
			Self::fail(id, &mut task, FailReason::NoThreshold);
			false
		} else if task.profilers.iter().all(|p| committed(&commitments, p)) {
			let now = frame_system::Pallet::<T>::block_number();
			Self::open_reveals(id, &mut task, now)?
		} else {
			true
		};
		if live {
			Tasks::<T>::insert(id, task);
		}
		Ok(())
	}

	/// Pays every profile posted so far one segment's verification pay, when the task
	/// ends before its threshold is decided through no fault of theirs (the owner's
	/// cancel).
	pub(crate) fn pay_posted_profiles(id: TaskId, task: &mut Task<T>) {
		let profiles = core::mem::take(&mut task.profilers);
		let paid = Self::pay_profiles(task, profiles, |_| true);
		if !paid.is_empty() {
			Self::deposit_event(Event::ProfilesPaid { id, paid });
		}
	}

	/// Pays one profiler seat's funding out of the escrow to the jackpot pot (never out of
	/// what a training round costs); returns what it paid.
	fn forfeit_seat(task: &mut Task<T>) -> BalanceOf<T> {
		let seat = task.segment_pay.min(task.escrow.saturating_sub(Self::round_cost(task)));
		Self::pay(task, &T::JackpotAccount::get(), seat)
	}

	/// Sends the pay of every profile posted so far to the jackpot pot, when posts that
	/// disagree or a decline left the threshold undecided: the chain cannot tell an
	/// honest post from the owner's partner's, and refunding or paying either would let
	/// a submitter undo the draw for less than its seats.
	fn forfeit_posted_profiles(id: TaskId, task: &mut Task<T>) {
		let mut profilers = Vec::new();
		let mut forfeited = BalanceOf::<T>::zero();
		for p in core::mem::take(&mut task.profilers) {
			if p.threshold.is_some() {
				forfeited = forfeited.saturating_add(Self::forfeit_seat(task));
				profilers.push(p.who);
			}
		}
		if !profilers.is_empty() {
			Self::deposit_event(Event::ProfilesForfeited { id, profilers, forfeited });
		}
	}

	/// Pays each of `profiles` that posted a threshold `earns` accepts one segment's
	/// verification pay out of the task's escrow; returns who was paid what.
	fn pay_profiles(
		task: &mut Task<T>,
		profiles: BoundedVec<Profile<T::AccountId>, ConstU32<PROFILERS>>,
		earns: impl Fn(u32) -> bool,
	) -> Vec<(T::AccountId, BalanceOf<T>)> {
		let pay = task.segment_pay;
		let mut paid = Vec::new();
		for p in profiles {
			if !p.threshold.is_some_and(&earns) {
				continue;
			}
			let amount = Self::pay(task, &p.who, pay);
			if !amount.is_zero() {
				T::Stake::note_earned(&p.who, Role::Verifier, amount);
			}
			paid.push((p.who, amount));
		}
		paid
	}
}

/// Whether profiler `p` has committed to its profile (in `commitments`, the task's); one
/// that posted its threshold before profiles were committed counts as committed and
/// revealed.
fn committed<A: PartialEq>(commitments: &[(A, Hash32)], p: &Profile<A>) -> bool {
	p.threshold.is_some() || commitments.iter().any(|(w, _)| *w == p.who)
}
