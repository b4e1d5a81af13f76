//! Audits: verdicts and reports of an unavailable store, and how a posted verdict is
//! judged once its verifier's forced-error secret is known.

use crate::*;

impl<T: Config> Pallet<T> {
	/// `submit_verification`: the drawn verifier's verdict on `segment`, with a proof of
	/// the solver's checkpoint at the segment's end; the window opens once every audit is
	/// done.
	pub(crate) fn do_submit_verification(
		who: T::AccountId,
		id: TaskId,
		segment: u32,
		distance: u32,
		replay_hash: Hash32,
		proof: CheckpointProof,
	) -> DispatchResult {
		let (mut task, mut audits, i) = Self::owed_audit(id, segment, &who)?;
		let audit = audits.get_mut(i).ok_or(Error::<T>::UnknownSegment)?;
		let result = task.result.as_ref().ok_or(Error::<T>::WrongPhase)?;
		let mp = merkle::MerkleProof {
			leaf_index: segment.saturating_add(1),
			leaf_count: result.checkpoints,
			siblings: proof.siblings.into_inner(),
		};
		ensure!(
			merkle::verify_proof(&result.checkpoint_root, &proof.checkpoint_hash, &mp),
			Error::<T>::BadCheckpointProof
		);
		let pass = match Self::judging_threshold(id, &task) {
			Some(limit) => gensyn_primitives::verdict::threshold_passes_bits(distance, limit),
			None => replay_hash == proof.checkpoint_hash,
		};
		audit.verdict = Some(Verdict { distance, replay_hash, pass });
		Self::note_done(id, &mut task, audits)?;
		Self::deposit_event(Event::VerdictPosted { id, segment, pass });
		Ok(())
	}

	/// `report_unavailable`: the drawn verifier reports that the solver's store does not
	/// serve `segment`; the audit is done, unpaid and unslashed, and the checkpoints the
	/// segment's replay needs are demanded on chain for nothing
	/// ([`Self::demand_for_report`]): the solver publishes them or its proof is rejected
	/// as withheld, so a report alone never decides.
	pub(crate) fn do_report_unavailable(
		who: T::AccountId,
		id: TaskId,
		segment: u32,
	) -> DispatchResult {
		let (mut task, mut audits, i) = Self::owed_audit(id, segment, &who)?;
		let audit = audits.get_mut(i).ok_or(Error::<T>::UnknownSegment)?;
		audit.unavailable = true;
		Self::demand_for_report(id, segment, &who);
		Self::note_done(id, &mut task, audits)?;
		Self::deposit_event(Event::StoreUnavailable { id, segment, verifier: who });
		Ok(())
	}

	/// The live task `id` in its Verifying phase, its audits and the index of the audit
	/// of `segment`, which `who` was drawn for and still owes a verdict on.
	pub(crate) fn owed_audit(
		id: TaskId,
		segment: u32,
		who: &T::AccountId,
	) -> Result<(Task<T>, AuditsOf<T>, usize), DispatchError> {
		let task = Tasks::<T>::get(id).ok_or(Error::<T>::UnknownTask)?;
		ensure!(task.phase == Phase::Verifying, Error::<T>::WrongPhase);
		let audits = Audits::<T>::get(id);
		let (i, audit) = audits
			.iter()
			.enumerate()
			.find(|(_, a)| a.segment == segment)
			.ok_or(Error::<T>::UnknownSegment)?;
		ensure!(audit.verifier == *who, Error::<T>::NotVerifier);
		ensure!(audit.awaits_verdict(), Error::<T>::AlreadyVerified);
		ensure!(Self::in_time(&task), Error::<T>::DeadlinePassed);
		Ok((task, audits, i))
	}

	/// Stores `audits` after one of them was done, opening the challenge window when
	/// none awaits a verdict any more, and stores the task.
	pub(crate) fn note_done(id: TaskId, task: &mut Task<T>, audits: AuditsOf<T>) -> DispatchResult {
		let all_in = !audits.iter().any(Audit::awaits_verdict);
		Audits::<T>::insert(id, audits);
		if all_in {
			let now = frame_system::Pallet::<T>::block_number();
			Self::open_window(id, task, now)?;
		}
		Tasks::<T>::insert(id, task);
		Ok(())
	}

	/// Opens the challenge window, and fixes the block from which its verifiers reveal.
	pub(crate) fn open_window(
		id: TaskId,
		task: &mut Task<T>,
		now: BlockNumberFor<T>,
	) -> DispatchResult {
		let mut end = now.saturating_add(T::ChallengePeriod::get());
		if let Some(from) = RevealsFrom::<T>::get(id) {
			// A period shortened since the round's first window opened must not close a
			// later one sooner than the window it replaces, nor before its verifiers could
			// reveal: they would be slashed for a reveal the chain never allowed.
			end = end.max(task.window_end).max(from.saturating_add(MIN_REVEAL_BLOCKS.into()));
		}
		task.window_end = end;
		Self::file_settlement(id, task, Some(now));
		let end = task.window_end;
		task.phase = Phase::Challenge;
		// Fixed by the round's first window: re-audits are never forced, so only its
		// first verifiers' reveals matter to catches, and a later window never closes
		// reveals that were open.
		if !RevealsFrom::<T>::contains_key(id) {
			RevealsFrom::<T>::insert(id, Self::reveal_point(end));
		}
		// Each verdict or report is judged first in this window: its verifier reveals by
		// its end, whatever later windows open.
		for a in Audits::<T>::get(id).iter().filter(|a| !a.awaits_verdict()) {
			if !RevealBy::<T>::contains_key(id, &a.verifier) {
				RevealBy::<T>::insert(id, &a.verifier, end);
			}
		}
		Ok(())
	}

	/// Forgets `who`'s binding to task `id` and its reveal deadline: it no longer audits
	/// the task.
	pub(crate) fn release_binding(who: &T::AccountId, id: TaskId) {
		T::ForcedErrors::release(who, id);
		RevealBy::<T>::remove(id, who);
	}

	/// The block from which `who` may no longer reveal its secret bound to task `id`
	/// (of `task`), if one is fixed: its own deadline once a window judged its verdict
	/// ([`RevealBy`]), and the end of the window the task is in (Challenge and Disputed
	/// phases; a re-audit under way opens a later window, which keeps a re-auditor's
	/// reveal open). The settlement moves itself past a window's end, and a reveal in
	/// between would escape the missed reveal's slash, or reopen a closed window.
	pub(crate) fn reveal_deadline(
		id: TaskId,
		task: &Task<T>,
		who: &T::AccountId,
	) -> Option<BlockNumberFor<T>> {
		let window =
			matches!(task.phase, Phase::Challenge | Phase::Disputed).then_some(task.window_end);
		match (RevealBy::<T>::get(id, who), window) {
			(Some(own), Some(end)) => Some(own.min(end)),
			(own, end) => own.or(end),
		}
	}

	/// Whether `who` may reveal its secret bound to task `id` now: reveals are open
	/// ([`Self::reveals_open`]) and its deadline ([`Self::reveal_deadline`]) has not come.
	pub(crate) fn may_reveal_now(id: TaskId, who: &T::AccountId) -> bool {
		let now = frame_system::Pallet::<T>::block_number();
		Self::reveals_open(id)
			&& Tasks::<T>::get(id)
				.is_some_and(|t| Self::reveal_deadline(id, &t, who).is_none_or(|by| now < by))
	}

	/// Where a window ending at `end` opens to reveals: its last third, and never fewer
	/// than [`MIN_REVEAL_BLOCKS`] before `end` (when the deadline fires, before any call
	/// of that block), so that whistleblowers have the first two thirds to replay and
	/// challenge for a catch, and verifiers the rest to reveal (a reveal showing the
	/// solver a failing verdict keeps the window open a whole period for it).
	pub fn reveal_point(end: BlockNumberFor<T>) -> BlockNumberFor<T> {
		let third = T::ChallengePeriod::get() / 3u32.into();
		end.saturating_sub(third.max(MIN_REVEAL_BLOCKS.into()))
	}

	/// Whether the verifiers of task `id` may reveal now: from the block the chain fixed
	/// when the round's first window opened, in whatever phase the task is since.
	pub(crate) fn reveals_open(id: TaskId) -> bool {
		let now = frame_system::Pallet::<T>::block_number();
		RevealsFrom::<T>::get(id).is_some_and(|from| now >= from)
	}

	/// Whether `audit`'s verdict is a forced error: `None` until its verifier revealed
	/// the secret bound to the task. A re-audit is never forced: its verdict is what
	/// checks a segment the first verdict left unchecked (void, forced or reported), and
	/// a forced one would leave it unchecked again through no one's fault.
	pub(crate) fn forced(id: TaskId, audit: &Audit<T::AccountId>) -> Option<bool> {
		T::ForcedErrors::forced(&audit.verifier, id, audit.segment)
			.map(|forced| forced && audit.reaudits == 0)
	}

	/// Whether a refuted verdict was wrong, given its verifier's revealed `forced` flag:
	/// `Some(false)` for a forced error (a failing verdict on a forced segment: the
	/// verifier did what it had to), `Some(true)` for any other revealed verdict,
	/// `None` while the verifier's secret is unrevealed.
	pub(crate) fn was_wrong(forced: Option<bool>, audit: &Audit<T::AccountId>) -> Option<bool> {
		Some(!(forced? && audit.verdict.is_some_and(|v| !v.pass)))
	}

	/// Slashes `who` once per settlement for a verdict it cannot be trusted on (no
	/// reveal, or a forced error it did not apply).
	pub(crate) fn slash_untrusted(who: &T::AccountId, slashed: &mut Vec<T::AccountId>) {
		if !slashed.contains(who) {
			T::Stake::slash(who, Role::Verifier, T::MissedRevealSlash::get(), None);
			slashed.push(who.clone());
		}
	}
}
