//! Settlement once the challenge window ends with no open dispute: verdicts are judged
//! against their verifiers' revealed secrets, then the task completes (solver paid),
//! goes to another solver (proof rejected) or fails (refunded).

use crate::*;

/// Who reported a rejected proof, and so shares its solver's slash.
pub(crate) enum Reporter<AccountId, Balance> {
	/// The verifier whose failing verdict caught the fault: its share of the slash.
	Verifier(AccountId),
	/// Whoever proved the run off its task, or first demanded a checkpoint nobody
	/// published: at most [`Config::OffTaskBounty`] a bond unit of its share, and the
	/// fees its answered demands of the round paid (it may have needed several
	/// checkpoints to find the one that shows the fault). Anyone may prove, the solver's
	/// own second account as soon as it sees the run will be caught: a share of the
	/// slash would hand half of it back.
	Prover(AccountId, Balance),
}

/// How a settled round ends.
enum RoundEnd<AccountId, Balance> {
	/// Every counted verdict passed: the solver is paid.
	Completed(AccountId),
	/// A counted verdict failed, or the proof was withheld: the solver is slashed and the
	/// task goes to another; `reporter` (the verifier that caught it) shares the slash.
	Rejected { solver: AccountId, reporter: Option<Reporter<AccountId, Balance>> },
	/// A drawn segment was never checked (a report no re-audit checked, or a verdict
	/// voided or never posted with no re-audit left): the solver is neither paid nor
	/// slashed; the owner is refunded.
	Unverified,
	/// A failing round with no solver to reject.
	NoSolver,
}

impl<T: Config> Pallet<T> {
	/// Whether task `id` is judged in Threshold mode (by distance, not replay hash).
	pub(crate) fn is_threshold(id: TaskId) -> bool {
		Specs::<T>::get(id).is_some_and(|s| s.verification.mode == VerificationMode::Threshold)
	}

	/// What one training round costs at most: `unpaid` (the solver's pay and the cuts)
	/// and `audits` segments' verification at `segment_pay`; `None` on overflow. A
	/// submission holds it (and the profiles), and a rejected proof starts another round
	/// only while the escrow covers one.
	pub(crate) fn round_price(
		audits: u32,
		segment_pay: BalanceOf<T>,
		unpaid: BalanceOf<T>,
	) -> Option<BalanceOf<T>> {
		segment_pay.checked_mul(&audits.into())?.checked_add(&unpaid)
	}

	/// [`Self::round_price`] of `task`.
	pub(crate) fn round_cost(task: &Task<T>) -> BalanceOf<T> {
		let unpaid =
			task.solver_pay.saturating_add(task.jackpot_cut).saturating_add(task.treasury_cut);
		Self::round_price(task.audits, task.segment_pay, unpaid)
			.unwrap_or_else(sp_runtime::traits::Bounded::max_value)
	}

	/// Settles a task whose challenge window ended, in passes (first, a window with a fail
	/// the solver may contest stays open a period past a recent runtime upgrade:
	/// [`Self::upgrade_grace`]): verdicts whose secret is unrevealed are judged and voided
	/// ([`Self::judge_unrevealed`]), and so are forced errors ([`Self::judge_forced`]);
	/// a voided segment with re-audits left goes to a new verifier first (so a verifier
	/// cannot buy a solver an unaudited segment for the price of a slash, and no segment
	/// is passed unchecked because it was forced); otherwise the verifiers are paid for
	/// what counts and the round ends as one [`RoundEnd`]. Returns whether the task is
	/// still live.
	pub(crate) fn settle(
		id: TaskId,
		task: &mut Task<T>,
		now: BlockNumberFor<T>,
	) -> Result<bool, DispatchError> {
		if Self::upgrade_grace(id, task, now) {
			return Ok(true);
		}
		// Read once for the pages due, a withheld checkpoint and its reporter's fees.
		let demands = Demands::<T>::get(id);
		if let Some(due) = Self::pages_due(&demands, now) {
			// A demanded checkpoint may still come: whether it does decides the round.
			// (After a dispute's timeout, its games are dropped: the task is back in
			// its window's phase.)
			task.phase = Phase::Challenge;
			// The demander chose when the pages are due: moved, as every settlement is.
			Self::file_moved_draw(id, task, due, now);
			return Ok(true);
		}
		if !OffTask::<T>::contains_key(id) {
			if let Some(d) = Self::withheld(&demands).filter(|d| d.standby.is_some()) {
				// The withheld checkpoint's silent standby answers for it first, in a
				// deadline of its own (a slash the settlement's weight leaves no room
				// for); the settlement follows a block later.
				Self::silent_standby(id, task, d, now);
				return Ok(true);
			}
		}
		let mut audits = Audits::<T>::get(id);
		// Each verifier's revealed forced flag for its segment, read once.
		let forced_of: Vec<Option<bool>> = audits.iter().map(|a| Self::forced(id, a)).collect();
		let mut slashed: Vec<T::AccountId> = Vec::new();
		Self::judge_unrevealed(id, &mut audits, &forced_of, &mut slashed);
		Self::judge_forced(id, task, &mut audits, &forced_of, &mut slashed);
		// A report's demand, which cost its verifier nothing, yields to a counted fail:
		// the fail's verifier reports the fault, and the verdicts that stand are paid (a
		// partner's early report must not turn a caught fake into its own bounty). A
		// demand paid for keeps its place.
		let failed = audits.iter().any(|a| a.verdict.is_some_and(|v| !v.pass));
		let prover = OffTask::<T>::take(id).or_else(|| {
			let d = Self::withheld_before(&demands, failed)?;
			let (checkpoint, by) = (d.checkpoint, d.by.clone());
			Self::deposit_event(Event::CheckpointWithheld { id, checkpoint, by: by.clone() });
			Some(by)
		});
		let prover = prover.map(|p| {
			let fees = Self::answered_fees(&demands, &p);
			Reporter::Prover(p, fees)
		});
		if let Some(prover) = prover {
			// The run is not the task's, or a checkpoint it replays from was withheld,
			// whatever its verdicts say: nothing is audited again, and the prover (or
			// demander) reports the solver. No verdict is paid: an honest verifier checks
			// the whole run first and reports such a run, and one that replayed from the
			// withheld checkpoint held it and could have published it.
			let Some(solver) = task.solver.clone() else {
				Self::fail(id, task, FailReason::ProofRejected);
				return Ok(false);
			};
			return Self::reject(id, task, solver, Some(prover), Zero::zero(), now);
		}
		if Self::audit_again(id, task, &mut audits, now)? {
			// A verdict voided just now is audited again first.
			return Ok(true);
		}
		let verifiers_paid = Self::pay_verifiers(task, &audits);
		if !verifiers_paid.is_zero() {
			// Whatever the round's end, so that every payout is in an event.
			Self::deposit_event(Event::VerifiersPaid { id, paid: verifiers_paid });
		}
		match Self::round_end(task, &audits, &demands) {
			RoundEnd::Unverified => {
				Self::fail(id, task, FailReason::Unverified);
				Ok(false)
			}
			RoundEnd::Completed(solver) => {
				Self::complete(id, task, solver, verifiers_paid);
				Ok(false)
			}
			RoundEnd::Rejected { solver, reporter } => {
				Self::reject(id, task, solver, reporter, verifiers_paid, now)
			}
			RoundEnd::NoSolver => {
				Self::fail(id, task, FailReason::ProofRejected);
				Ok(false)
			}
		}
	}

	/// The settlement pass over verdicts whose verifier has not revealed its secret:
	/// refutations that waited for it are decided (unless the verdict was a forced
	/// error, it was wrong), a re-audit verdict on a reported segment leaves the report
	/// standing, and every other such verdict is void, like a refuted one. Each such
	/// verifier is slashed for the missed reveal once; its verdicts are never judged
	/// again, so no later settlement slashes for them.
	fn judge_unrevealed(
		id: TaskId,
		audits: &mut AuditsOf<T>,
		forced_of: &[Option<bool>],
		slashed: &mut Vec<T::AccountId>,
	) {
		// Verifiers whose verdicts are judged now (a refutation waiting for the secret,
		// or any other verdict) with their secret unrevealed.
		let mut unrevealed: Vec<T::AccountId> = Vec::new();
		for (a, forced) in audits.iter().zip(forced_of) {
			let judged = !a.overturned && (a.verdict.is_some() || a.refuted_by.is_some());
			if forced.is_none() && judged && !unrevealed.contains(&a.verifier) {
				unrevealed.push(a.verifier.clone());
			}
		}
		for (a, &forced) in audits.iter_mut().zip(forced_of) {
			if a.overturned {
				continue;
			}
			let Some(winner) = a.refuted_by.clone() else { continue };
			if Self::was_wrong(forced, a) == Some(false) {
				continue;
			}
			Self::overturn(id, a, &winner);
		}
		// A re-audit verdict on a reported segment whose secret is unrevealed cannot be
		// trusted and does not check the report (a re-audit is never forced).
		for (a, &forced) in audits.iter_mut().zip(forced_of) {
			let untrusted = forced.is_none() && a.verdict.is_some();
			if a.reported_before && !a.overturned && untrusted {
				Self::slash_untrusted(&a.verifier, slashed);
				a.verdict = None;
				a.challenger = None;
				a.refuted_by = None;
				a.unavailable = true;
				a.reported_before = false;
				Self::deposit_event(Event::ReportStands { id, segment: a.segment });
			}
		}
		for (a, &forced) in audits.iter_mut().zip(forced_of) {
			if forced.is_none() && a.verdict.is_some() && !a.overturned {
				a.verdict = None;
				a.overturned = true;
			}
		}
		for v in &unrevealed {
			Self::slash_untrusted(v, slashed);
		}
	}

	/// The settlement pass over forced segments (revealed): a forced segment must carry a
	/// failing verdict, else its verifier lied and is slashed; a whistleblower that caught
	/// a forced error with a challenge opened before the reveal's block is paid from the
	/// jackpot (a solver contesting its own task is not, nor a copycat of the reveal).
	/// Either way the verdict is void, unpaid (its verifier need not replay a forced
	/// segment), and the segment is audited again: a forced error never fails a solver,
	/// and nobody checked the segment.
	fn judge_forced(
		id: TaskId,
		task: &Task<T>,
		audits: &mut AuditsOf<T>,
		forced_of: &[Option<bool>],
		slashed: &mut Vec<T::AccountId>,
	) {
		for (a, &forced) in audits.iter_mut().zip(forced_of) {
			// An overturned verdict was judged by its game.
			if forced != Some(true) || a.overturned {
				continue;
			}
			let Some(v) = a.verdict else { continue };
			if v.pass {
				Self::slash_untrusted(&a.verifier, slashed);
			} else if let Some(w) = a.refuted_by.clone().filter(|w| task.solver.as_ref() != Some(w))
			{
				if ChallengedAt::<T>::contains_key(id, a.segment) {
					T::ForcedErrors::pay_catch(&w);
				}
			}
			a.verdict = None;
			a.refuted_by = None;
			a.overturned = true;
		}
	}

	/// Pays each verifier whose verdict stands one segment's verification pay; returns
	/// what was paid.
	fn pay_verifiers(task: &mut Task<T>, audits: &AuditsOf<T>) -> BalanceOf<T> {
		let segment_pay = task.segment_pay;
		let mut verifiers_paid: BalanceOf<T> = Zero::zero();
		let standing = audits.iter().filter(|a| a.verdict.is_some() && !a.overturned);
		for who in standing.map(|a| &a.verifier) {
			let paid = Self::pay(task, who, segment_pay);
			if !paid.is_zero() {
				T::Stake::note_earned(who, Role::Verifier, paid);
			}
			verifiers_paid = verifiers_paid.saturating_add(paid);
		}
		verifiers_paid
	}

	/// How the round ends, from the verdicts that count (posted, trusted, not void).
	fn round_end(
		task: &Task<T>,
		audits: &AuditsOf<T>,
		demands: &[DemandOf<T>],
	) -> RoundEnd<T::AccountId, BalanceOf<T>> {
		let counted: Vec<&Audit<T::AccountId>> =
			audits.iter().filter(|a| a.verdict.is_some()).collect();
		let failed = counted.iter().any(|a| a.verdict.is_some_and(|v| !v.pass));
		// A re-audit reported unavailable too: two verifiers drawn independently could not
		// fetch the solver's proof, and the chain could not ask it for the checkpoints (a
		// state too large to publish). Where they were published, the reports prove
		// nothing: the segment is unchecked.
		let withheld = audits.iter().any(|a| {
			a.unavailable && a.reported_before && !Self::published_for(demands, a.segment)
		});
		// A report no verifier checked again: none was left to draw, the one drawn stayed
		// silent, or its verdict does not count (untrusted, voided).
		let unchecked =
			audits.iter().any(|a| a.unavailable || (a.reported_before && a.verdict.is_none()));
		// A drawn segment with no verdict that counts: its verdict was voided (refuted,
		// unrevealed, a stalled game, a forced error or a lie about one) or never posted,
		// and no re-audit was left to check it.
		let unaudited = audits.iter().any(|a| a.verdict.is_none() && !a.unavailable);
		if !failed && !withheld && (unchecked || unaudited) {
			// A segment was not verified: the solver is not paid, nor slashed on one
			// verifier's word; the owner gets the rest back.
			return RoundEnd::Unverified;
		}
		let Some(solver) = task.solver.clone() else { return RoundEnd::NoSolver };
		if !failed && !withheld {
			return RoundEnd::Completed(solver);
		}
		// The verifier that caught the fault reports it, in either mode: a fail that stood
		// through the window was open to a game over its replay hash or its distance,
		// which the solver could contest. A withheld proof has no reporter (nothing was
		// proven).
		let reporter = counted
			.iter()
			.find(|a| a.verdict.is_some_and(|v| !v.pass))
			.map(|a| Reporter::Verifier(a.verifier.clone()));
		RoundEnd::Rejected { solver, reporter }
	}

	/// The round passed: pays the solver and the cuts, refunds the rest, closes the task.
	fn complete(
		id: TaskId,
		task: &mut Task<T>,
		solver: T::AccountId,
		verifiers_paid: BalanceOf<T>,
	) {
		let (solver_pay, jackpot_cut, treasury_cut) =
			(task.solver_pay, task.jackpot_cut, task.treasury_cut);
		let solver_paid = Self::pay(task, &solver, solver_pay);
		if !solver_paid.is_zero() {
			T::Stake::note_earned(&solver, Role::Solver, solver_paid);
		}
		let jackpot_paid = Self::pay(task, &T::JackpotAccount::get(), jackpot_cut);
		let treasury_paid = Self::pay(task, &T::TreasuryAccount::get(), treasury_cut);
		let refunded = Self::release_rest(task);
		let result = Self::result_view(task);
		Self::close(id, task);
		Self::deposit_event(Event::TaskCompleted {
			id,
			solver_paid,
			verifiers_paid,
			jackpot_paid,
			treasury_paid,
			refunded,
			solver,
			result,
		});
	}

	/// Rejects the solver's proof: slashes it, first paying back into the escrow what
	/// this round's verification cost the owner, then offers the task to another
	/// solver when rounds remain, another solver fits now and the escrow covers a
	/// round; otherwise fails the task (refunding the rest). Returns whether the task is
	/// still live.
	pub(crate) fn reject(
		id: TaskId,
		task: &mut Task<T>,
		solver: T::AccountId,
		reporter: Option<Reporter<T::AccountId, BalanceOf<T>>>,
		wasted: BalanceOf<T>,
		now: BlockNumberFor<T>,
	) -> Result<bool, DispatchError> {
		let (reporter, cap) = match reporter {
			Some(Reporter::Verifier(v)) => (Some(v), None),
			Some(Reporter::Prover(p, fees)) => {
				(Some(p), Some(Self::per_unit(id, T::OffTaskBounty::get()).saturating_add(fees)))
			}
			None => (None, None),
		};
		let outcome = T::Stake::slash_compensating(
			&solver,
			Role::Solver,
			Self::per_unit(id, T::RejectedProofSlash::get()),
			&task.owner,
			wasted,
			reporter.as_ref(),
			cap,
		);
		let compensated = if outcome.to_victim.is_zero() {
			Zero::zero()
		} else {
			// Back into the escrow; should the hold fail, the owner keeps it free.
			frame_support::storage::with_storage_layer(|| {
				T::Currency::hold(&HoldReason::Escrow.into(), &task.owner, outcome.to_victim)
			})
			.map(|_| outcome.to_victim)
			.unwrap_or_else(|_| Zero::zero())
		};
		task.escrow = task.escrow.saturating_add(compensated);
		Self::deposit_event(Event::ProofRejected { id, solver: solver.clone(), compensated });
		let another = T::Stake::active(Role::Solver)
			.iter()
			.any(|(a, c, _)| c.memory_mib >= task.memory_mib && *a != task.owner && *a != solver);
		let short = task.escrow < Self::round_cost(task);
		if task.rounds >= T::MaxRounds::get() || !another || short {
			Self::fail(id, task, FailReason::ProofRejected);
			return Ok(false);
		}
		Self::release_workers(id, task);
		task.rounds = task.rounds.saturating_add(1);
		// A new round, a new watch lottery (drawn with its verifiers).
		Watches::<T>::remove(id);
		task.solver = None;
		task.exclude(solver);
		task.result = None;
		task.draws = 0;
		task.phase = Phase::Queued;
		Self::draw_solver(id, task, now)
	}

	/// Fails the task: refunds what is left and removes it.
	pub(crate) fn fail(id: TaskId, task: &mut Task<T>, reason: FailReason) {
		let refunded = Self::release_rest(task);
		Self::close(id, task);
		Self::deposit_event(Event::TaskFailed { id, reason, refunded });
	}
}
