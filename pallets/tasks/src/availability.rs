//! Checkpoints served to partners alone. A verdict replays a segment from the solver's
//! checkpoint, fetched from the solver's store; a solver could serve it to its partner
//! verifiers only, and whistleblowers could then never check their verdicts. Anyone who
//! cannot fetch such a checkpoint demands it on chain; the solver publishes it in pages
//! proved against the run's checkpoint root, for free (past the period's first half, the
//! verifier named as its standby, which read it, may too); a checkpoint not published in
//! time rejects the proof, with its demander as reporter, and slashes its silent standby.
//! No one's word decides: the data answers a demand.

use crate::*;
use gensyn_primitives::publish::{self, PageAt, PageProof};

impl<T: Config> Pallet<T> {
	/// `demand_checkpoint`: `who`'s fee for the checkpoint's size is held until its pages
	/// come (then the treasury's) or its round ends without them (then returned); a
	/// settlement before they are due waits for them ([`Self::pages_due`]).
	pub(crate) fn do_demand_checkpoint(
		who: T::AccountId,
		id: TaskId,
		checkpoint: u32,
	) -> DispatchResult {
		let task = Tasks::<T>::get(id).ok_or(Error::<T>::UnknownTask)?;
		// A re-audit under way (a game voided a verdict) does not stop the clock of the
		// verdict's first window: the demand is taken then too.
		let judged = matches!(task.phase, Phase::Challenge | Phase::Disputed | Phase::Verifying);
		ensure!(judged && task.result.is_some(), Error::<T>::WrongPhase);
		let now = frame_system::Pallet::<T>::block_number();
		ensure!(Self::demandable(id, checkpoint, now), Error::<T>::NotDemandable);
		let mut demands = Demands::<T>::get(id);
		ensure!(!demands.iter().any(|d| d.checkpoint == checkpoint), Error::<T>::AlreadyDemanded);
		let bytes = Self::demandable_bytes(id)?;
		let fee = Self::demand_fee(bytes);
		let (demand, pages) = Self::new_demand(id, checkpoint, who.clone(), fee, now)?;
		let (due, standby) = (demand.due, demand.standby.clone());
		// Bounded by the round's audits: each of their checkpoints once.
		demands.try_push(demand).map_err(|_| Error::<T>::NotDemandable)?;
		T::Currency::hold(&HoldReason::Demand.into(), &who, fee)?;
		Demands::<T>::insert(id, demands);
		let event = Event::CheckpointDemanded { id, checkpoint, by: who, fee, pages, due, standby };
		Self::deposit_event(event);
		Ok(())
	}

	/// The bytes of task `id`'s state, if a demand may ask for it: a task submitted
	/// before the bound (or under a larger one) is not put to a demand its solver could
	/// not answer.
	fn demandable_bytes(id: TaskId) -> Result<u64, DispatchError> {
		let spec = Specs::<T>::get(id).ok_or(Error::<T>::UnknownTask)?;
		let bytes = publish::state_bytes(&publish::tensor_lengths(&spec));
		ensure!(bytes <= T::MaxPublishBytes::get(), Error::<T>::SpecStateTooLarge);
		Ok(bytes)
	}

	/// A demand of `checkpoint` of task `id` by `by` for `fee`, made at `now`, with the
	/// number of its pages.
	fn new_demand(
		id: TaskId,
		checkpoint: u32,
		by: T::AccountId,
		fee: BalanceOf<T>,
		now: BlockNumberFor<T>,
	) -> Result<(DemandOf<T>, u32), DispatchError> {
		let spec = Specs::<T>::get(id).ok_or(Error::<T>::UnknownTask)?;
		let lengths = publish::tensor_lengths(&spec);
		let pages = u32::try_from(publish::page_count(&lengths))
			.map_err(|_| Error::<T>::SpecStateTooLarge)?;
		// Two blocks a page for each half, whatever governance set: pages go one a call
		// and in order, so a shorter period could not be answered.
		let floor = BlockNumberFor::<T>::from(pages.saturating_mul(4));
		let period = T::PublishPeriod::get().max(floor);
		// Within a period of a runtime upgrade the nodes may still be stopped for it: the
		// period starts when that grace ends.
		let start = now.max(LastUpgrade::<T>::get().saturating_add(period));
		let due = start.saturating_add(period);
		// Named now: a later verdict does not hand the duty to a verifier that learns of
		// it too late to answer (only a re-audit that lets this one go in the solver's
		// turn does: `replace_standbys`).
		let standby = Self::standby(id, checkpoint);
		let next = Some((0, 0));
		Ok((Demand { checkpoint, by, fee, at: now, due, next, standby }, pages))
	}

	/// Demands, for nothing, the checkpoints a replay of `segment` of task `id` and its
	/// defence in a game need (its start, which a game's first move proves even where it
	/// is the seeded state, and its end) for `who`, which reported the
	/// solver's store unavailable for it: the data answers the report. A checkpoint
	/// already demanded keeps its demand; a state too large to publish, or no room left,
	/// leaves the report to the re-audit alone. Free, because a report is a drawn
	/// verifier's duty, bounded by its audits, and an honest one pays nothing for it.
	pub(crate) fn demand_for_report(id: TaskId, segment: u32, who: &T::AccountId) {
		if Self::demandable_bytes(id).is_err() {
			return;
		}
		let now = frame_system::Pallet::<T>::block_number();
		let mut demands = Demands::<T>::get(id);
		for checkpoint in [segment, segment.saturating_add(1)] {
			if demands.iter().any(|d| d.checkpoint == checkpoint) {
				continue;
			}
			let Ok((demand, pages)) =
				Self::new_demand(id, checkpoint, who.clone(), Zero::zero(), now)
			else {
				break;
			};
			let (due, standby) = (demand.due, demand.standby.clone());
			if demands.try_push(demand).is_err() {
				break;
			}
			let by = who.clone();
			let fee = Zero::zero();
			Self::deposit_event(Event::CheckpointDemanded {
				id,
				checkpoint,
				by,
				fee,
				pages,
				due,
				standby,
			});
		}
		Demands::<T>::insert(id, demands);
	}

	/// Whether the checkpoints a replay of `segment` needs (its start and its end) were
	/// published on a demand of the round's `demands`: a report on it is then no proof
	/// that the solver withholds them, and a verifier replays from their pages.
	pub fn published_for(demands: &[DemandOf<T>], segment: u32) -> bool {
		let answered = |c: u32| demands.iter().any(|d| d.checkpoint == c && d.next.is_none());
		answered(segment) && answered(segment.saturating_add(1))
	}

	/// What a demand of a checkpoint of `bytes` costs: [`Config::DemandFeePerMiB`] a
	/// started MiB. By bytes, not pages: a model of many small tensors does not cost
	/// more to demand than its state is large.
	pub fn demand_fee(bytes: u64) -> BalanceOf<T> {
		let mib = u32::try_from(bytes.div_ceil(1 << 20)).unwrap_or(u32::MAX);
		T::DemandFeePerMiB::get().saturating_mul(mib.into())
	}

	/// Whether `checkpoint` may be demanded now: a verdict of the round replayed from it
	/// (or, in Threshold mode, measured its distance to it), and the first window that
	/// judged the verdict is open ([`RevealBy`]): a later window is no new chance, so a
	/// demand holds a task at most a publish period and a window past its first. The
	/// run's first checkpoint goes with any verdict: no replay starts from it (segment 0
	/// starts from the task's seeded state), but a proof that the run is not the task's
	/// opens it (`prove_off_task`), and without the solver's journal only its pages
	/// give its place under the root.
	fn demandable(id: TaskId, checkpoint: u32, now: BlockNumberFor<T>) -> bool {
		let threshold = Self::is_threshold(id);
		Audits::<T>::get(id).iter().any(|a| {
			let own = checkpoint == 0
				|| a.segment == checkpoint
				|| (threshold && a.segment.checked_add(1) == Some(checkpoint));
			own && a.verdict.is_some()
				&& RevealBy::<T>::get(id, &a.verifier).is_some_and(|by| now < by)
		})
	}

	/// The verifier to name as the standby of a demand of `checkpoint` of task `id`: it
	/// answers for a silent solver once the solver's turn is over
	/// ([`Self::solvers_turn_end`]), and is slashed if nobody does. Only a verifier whose
	/// verdict read the checkpoint, so that it holds a checked copy: the one that replayed
	/// from it, else (Threshold mode, which measures a segment's end against it) the one
	/// whose segment ended there; for the run's first, the task's seeded start, the first
	/// in the round's audits with a verdict, not a re-audit of a report. A verdict a game
	/// refuted names nobody. One verifier only: several would race each other, and every
	/// page that lost a race would fail and pay its fee.
	pub fn standby(id: TaskId, checkpoint: u32) -> Option<T::AccountId> {
		let demands = Demands::<T>::get(id);
		let audits = Audits::<T>::get(id);
		Self::standby_among((&audits, &demands), || Self::is_threshold(id), checkpoint)
	}

	/// [`Self::standby`] among `audits`, the task's in Threshold mode where `threshold`
	/// says so (asked only when no verifier replayed from the checkpoint).
	fn standby_among(
		(audits, demands): (&[Audit<T::AccountId>], &[DemandOf<T>]),
		threshold: impl FnOnce() -> bool,
		checkpoint: u32,
	) -> Option<T::AccountId> {
		let judged = || audits.iter().filter(|a| a.verdict.is_some() && a.refuted_by.is_none());
		let c = checkpoint;
		// For the first, not a verdict replayed from its segment's published pages (its
		// verifier holds no journal to prove another checkpoint by).
		let paged =
			|a: &Audit<T::AccountId>| a.reported_before || Self::published_for(demands, a.segment);
		let from = judged().find(|a| a.segment == c || (c == 0 && !paged(a)));
		// An Exact-mode verdict compares a replay's end with the checkpoint's hash only:
		// nothing holds its verifier to keeping the state, so it is not slashed for it.
		let to = || {
			let threshold = threshold();
			judged().find(|a| threshold && a.segment.checked_add(1) == Some(c))
		};
		from.or_else(to).map(|a| a.verifier.clone())
	}

	/// Names a new standby for each demand of task `id` whose standby a re-audit let go
	/// (`gone`: it audits nothing of the task any more, and is not slashed for silence),
	/// among the round's `audits` as they now stand, while the solver's turn lasts: the
	/// new one then has the other half of the period, as the first had. With no other
	/// verifier whose verdict read the checkpoint the demand keeps none; let go later, the
	/// one named stays named but is shown no duty and not slashed. Either way its solver
	/// answers alone.
	pub(crate) fn replace_standbys(
		id: TaskId,
		audits: &[Audit<T::AccountId>],
		gone: &[T::AccountId],
		now: BlockNumberFor<T>,
	) {
		if gone.is_empty() {
			return;
		}
		let mut demands = Demands::<T>::get(id);
		// What was published, read before the standbys change (they do not change it).
		let before = demands.clone().into_inner();
		let upgrades = Upgrades::<T>::get();
		let mut changed = false;
		for d in demands.iter_mut() {
			let let_go = d.standby.as_ref().is_some_and(|s| gone.contains(s));
			if !let_go || d.next.is_none() || now >= d.solvers_turn_end(&upgrades) {
				continue;
			}
			let (c, among) = (d.checkpoint, (audits, before.as_slice()));
			d.standby = Self::standby_among(among, || Self::is_threshold(id), c);
			changed = true;
			Self::deposit_event(Event::StandbyReplaced {
				id,
				checkpoint: d.checkpoint,
				standby: d.standby.clone(),
			});
		}
		if changed {
			Demands::<T>::insert(id, demands);
		}
	}

	/// Whether `who` may publish the next page of demand `d` of task `task` at `now`,
	/// given the block its solver's turn ends (`turn_end`: [`Self::solvers_turn_end`]):
	/// the solver throughout the period, and the demand's standby verifier once the
	/// solver's turn is over. Nobody else: no third party can put a copy of a
	/// publisher's page in a block ahead of it and make the publisher's own fail and
	/// pay its fee.
	pub fn may_publish(
		task: &Task<T>,
		(d, turn_end): (&DemandOf<T>, BlockNumberFor<T>),
		who: &T::AccountId,
		now: BlockNumberFor<T>,
	) -> bool {
		task.solver.as_ref() == Some(who) || (now >= turn_end && d.standby.as_ref() == Some(who))
	}

	/// The first block at which demand `d`'s pages may come from the solver's standby
	/// verifier too ([`Demand::solvers_turn_end`], past the kept upgrades).
	pub fn solvers_turn_end(d: &DemandOf<T>) -> BlockNumberFor<T> {
		d.solvers_turn_end(&Upgrades::<T>::get())
	}

	/// The last block (exclusive) a page of demand `d` may be published in
	/// ([`Demand::due_since`], past the kept upgrades).
	pub fn demand_due(d: &DemandOf<T>) -> BlockNumberFor<T> {
		d.due_since(&Upgrades::<T>::get())
	}

	/// `publish_page`: checks the page against the run's checkpoint root and moves the
	/// demand on; the last page answers it and keeps the window open a whole period.
	pub(crate) fn do_publish_page(
		who: T::AccountId,
		id: TaskId,
		checkpoint: u32,
		(item, page): (u32, u32),
		bytes: &[u8],
		proof: &PageProof,
	) -> DispatchResult {
		let mut demands = Demands::<T>::get(id);
		let d = demands
			.iter_mut()
			.find(|d| d.checkpoint == checkpoint)
			.ok_or(Error::<T>::NotDemanded)?;
		let next = d.next.ok_or(Error::<T>::NotDemanded)?;
		let now = frame_system::Pallet::<T>::block_number();
		// Read once for the due and the solver's turn.
		let upgrades = Upgrades::<T>::get();
		ensure!(now < d.due_since(&upgrades), Error::<T>::DemandLapsed);
		ensure!(next == (item, page), Error::<T>::NotNextPage);
		let mut task = Tasks::<T>::get(id).ok_or(Error::<T>::UnknownTask)?;
		let turn_end = d.solvers_turn_end(&upgrades);
		ensure!(Self::may_publish(&task, (d, turn_end), &who, now), Error::<T>::NotPublisher);
		let result = task.result.as_ref().ok_or(Error::<T>::WrongPhase)?;
		let spec = Specs::<T>::get(id).ok_or(Error::<T>::UnknownTask)?;
		let lengths = publish::tensor_lengths(&spec);
		let at = PageAt { checkpoint, checkpoints: result.checkpoints, item, page };
		ensure!(
			publish::verify_page(&result.checkpoint_root, &lengths, at, bytes, proof),
			Error::<T>::PageNotProved
		);
		let pages = publish::item_pages(&lengths, item).unwrap_or(1);
		d.next = if u64::from(page).saturating_add(1) < pages {
			Some((item, page.saturating_add(1)))
		} else if (item as usize) < lengths.len() {
			Some((item.saturating_add(1), 0))
		} else {
			None
		};
		let answered = d.next.is_none();
		if answered {
			// What it paid is what a withheld proof's reporter gets back.
			d.fee = Self::pay_demand_fee(&d.by, d.fee);
		}
		let fee = d.fee;
		Demands::<T>::insert(id, demands);
		Self::deposit_event(Event::PagePublished { id, checkpoint, item, page, by: who });
		if answered {
			// Replaying from it takes a while: the window gives anyone a whole period.
			Self::keep_window_open(id, &mut task);
			Tasks::<T>::insert(id, task);
			Self::deposit_event(Event::CheckpointPublished { id, checkpoint, fee });
		}
		Ok(())
	}

	/// Pays an answered demand's held fee to the treasury; returns what it received. A
	/// transfer the treasury cannot take returns the fee instead: an answer is never
	/// refused for it.
	fn pay_demand_fee(by: &T::AccountId, fee: BalanceOf<T>) -> BalanceOf<T> {
		let reason = HoldReason::Demand.into();
		let paid = frame_support::storage::with_storage_layer(|| {
			T::Currency::transfer_on_hold(
				&reason,
				by,
				&T::TreasuryAccount::get(),
				fee,
				Precision::Exact,
				Restriction::Free,
				// Held funds are the fee's whatever else the account has frozen.
				Fortitude::Force,
			)
		});
		paid.unwrap_or_else(|_| {
			let _ = T::Currency::release(&reason, by, fee, Precision::BestEffort);
			Zero::zero()
		})
	}

	/// Ends task `id`'s demands with its round: each one unanswered returns its fee to
	/// its demander (a withheld checkpoint rejected the proof, or the round ended
	/// otherwise first).
	pub(crate) fn end_demands(id: TaskId) {
		for d in Demands::<T>::take(id).into_iter().filter(|d| d.next.is_some()) {
			let reason = HoldReason::Demand.into();
			let fee = T::Currency::release(&reason, &d.by, d.fee, Precision::BestEffort)
				.unwrap_or_else(|_| Zero::zero());
			let (checkpoint, by) = (d.checkpoint, d.by);
			Self::deposit_event(Event::DemandFeeReturned { id, checkpoint, by, fee });
		}
	}

	/// The settlement's first step where demand `d` of task `id` (`task`), the first left
	/// unanswered, still names its standby: the standby is slashed as for a missed
	/// verdict, it is struck from the demand, and the settlement moves a block on. It
	/// held the checkpoint and did not publish it for a silent solver, whose proof is
	/// rejected for it: without the slash a demander in league with the standby would be
	/// paid a bounty for an honest solver whose node was down. The first demand's standby
	/// is enough: the demander is paid for that one, so a partner standby whose demand
	/// came later gains the pair nothing the first one's silence did not already give. A
	/// standby no longer auditing the task (a game voided its verdict and its segment
	/// went to another) was shown no duty, and is not slashed.
	pub(crate) fn silent_standby(
		id: TaskId,
		task: &mut Task<T>,
		d: &DemandOf<T>,
		now: BlockNumberFor<T>,
	) {
		if let Some(verifier) = d.standby.clone() {
			if Audits::<T>::get(id).iter().any(|a| a.verifier == verifier) {
				let amount = Self::per_unit(id, T::MissedVerdictSlash::get());
				let amount = T::Stake::slash(&verifier, Role::Verifier, amount, None).total;
				let checkpoint = d.checkpoint;
				Self::deposit_event(Event::StandbySlashed { id, checkpoint, verifier, amount });
			}
		}
		let checkpoint = d.checkpoint;
		Demands::<T>::mutate(id, |demands| {
			for x in demands.iter_mut().filter(|x| x.checkpoint == checkpoint) {
				x.standby = None;
			}
		});
		// Games timed out were dropped: the task is back in its window's phase.
		task.phase = Phase::Challenge;
		task.deadline = Self::schedule(id, now.saturating_add(One::one()));
	}

	/// The last block a page of a round's `demands` is still due before, if one awaits
	/// pages at `now`: the settlement waits until then. The window itself does not move
	/// (challenges wait for the pages anyway); the last page reopens it a period.
	pub(crate) fn pages_due(
		demands: &[DemandOf<T>],
		now: BlockNumberFor<T>,
	) -> Option<BlockNumberFor<T>> {
		let upgrades = Upgrades::<T>::get();
		let pending = demands.iter().filter(|d| d.next.is_some());
		pending.map(|d| d.due_since(&upgrades)).filter(|due| now < *due).max()
	}

	/// The first of a round's `demands` that nobody answered: past [`Self::pages_due`],
	/// the solver withheld a checkpoint its partners replayed from. Every unanswered
	/// demand's fee is returned as the round ends ([`Self::end_demands`]).
	pub(crate) fn withheld(demands: &[DemandOf<T>]) -> Option<&DemandOf<T>> {
		demands.iter().find(|d| d.next.is_some())
	}

	/// The first of a round's `demands` nobody answered that decides the round ahead of a
	/// counted fail (`failed`): any, where no verdict failed; else only one its demander
	/// paid for (a report's, free, does not).
	pub(crate) fn withheld_before(demands: &[DemandOf<T>], failed: bool) -> Option<&DemandOf<T>> {
		demands.iter().find(|d| d.next.is_some() && !(failed && d.fee.is_zero()))
	}

	/// The fees `who`'s answered demands among a round's `demands` paid: a reporter of
	/// the round's fault gets them back with its bounty.
	pub(crate) fn answered_fees(demands: &[DemandOf<T>], who: &T::AccountId) -> BalanceOf<T> {
		demands
			.iter()
			.filter(|d| d.by == *who && d.next.is_none())
			.fold(Zero::zero(), |sum: BalanceOf<T>, d| sum.saturating_add(d.fee))
	}
}
