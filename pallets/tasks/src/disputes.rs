//! Disputes: challenges of verdicts in the challenge window, what the arbiter needs to
//! know about one, and what its ruling does to the verdict, the verifier and the
//! challenger.

use crate::*;

impl<T: Config> Pallet<T> {
	/// `challenge`: a bonded whistleblower challenges any verdict, the solver a failing
	/// one (a failing verdict, before reveals open, only a watcher: one whose `ticket`
	/// wins the round's lottery); the arbiter opens the game and the task waits in
	/// `Phase::Disputed`.
	pub(crate) fn do_challenge(
		who: T::AccountId,
		id: TaskId,
		segment: u32,
		ticket: Option<<T::Lottery as WatchLottery<T::AccountId>>::Ticket>,
	) -> DispatchResult {
		let mut task = Tasks::<T>::get(id).ok_or(Error::<T>::UnknownTask)?;
		ensure!(matches!(task.phase, Phase::Challenge | Phase::Disputed), Error::<T>::WrongPhase);
		let now = frame_system::Pallet::<T>::block_number();
		// Past the window a task stays open only for games already under way: a challenge
		// then would ride their timeout and void a verdict that no game tried.
		ensure!(now < task.window_end, Error::<T>::WindowClosed);
		let mut audits = Audits::<T>::get(id);
		let is_solver = task.solver.as_ref() == Some(&who);
		let staked = is_solver && Self::stake_backs_contest(id, &who, &audits);
		let audit =
			audits.iter_mut().find(|a| a.segment == segment).ok_or(Error::<T>::UnknownSegment)?;
		let verdict = audit.verdict.ok_or(Error::<T>::NoVerdict)?;
		ensure!(audit.challenger.is_none(), Error::<T>::AlreadyDisputed);
		// A verdict a game already refuted is not tried twice.
		ensure!(audit.refuted_by.is_none(), Error::<T>::NotAllowedToChallenge);
		let allowed = who != audit.verifier
			&& ((is_solver && !verdict.pass)
				|| (!is_solver && T::Stake::is_bonded(&who, Role::Whistleblower)));
		ensure!(allowed, Error::<T>::NotAllowedToChallenge);
		// The solver contests only fails on its own task, each slash covered by its bond.
		let units = Self::false_challenge_units(id, audit);
		ensure!(
			is_solver || Self::covers_another_game(&who, units),
			Error::<T>::ChallengesExceedBond
		);
		ensure!(!(is_solver && Self::contested(id, audit)), Error::<T>::AlreadyContested);
		ensure!(Self::forced(id, audit) != Some(true), Error::<T>::ForcedErrorRevealed);
		// A ticket that does not win the round's lottery counts for nothing.
		let watcher = ticket.is_some_and(|t| Self::won_watch(id, &task, &who, &t));
		ensure!(Self::open_to(id, verdict.pass, watcher), Error::<T>::NotWatcher);
		let before_reveals = !Self::reveals_open(id);
		if staked {
			T::Arbiter::open_staked(id, segment, &who, &audit.verifier)?;
		} else {
			T::Arbiter::open(id, segment, &who, &audit.verifier)?;
		}
		audit.challenger = Some(who.clone());
		let audit_verifier = audit.verifier.clone();
		Audits::<T>::insert(id, audits);
		Self::engage(id, &mut task, &who)?;
		Self::note_challenge(&task, &who, units, true);
		if is_solver {
			SolverContested::<T>::insert(id, segment, (who.clone(), audit_verifier));
		}
		// Only a watcher's challenge opened before any reveal could be seen may earn a
		// catch (and a later challenger never inherits an earlier, lost one's claim).
		if before_reveals && watcher {
			ChallengedAt::<T>::insert(id, segment, now);
		} else {
			ChallengedAt::<T>::remove(id, segment);
		}
		// Every game has a whole timeout to play out: one opened late in the window is not
		// voided, unplayed, at the timeout an earlier game set.
		let until = now.saturating_add(T::DisputeTimeout::get());
		if task.phase == Phase::Challenge {
			task.deadline = Self::schedule(id, until);
			task.phase = Phase::Disputed;
		} else if task.deadline < until {
			task.deadline = Self::schedule(id, until);
		}
		// A draw that was due is put off until the games end, which file it again: its
		// entry must not move an unrelated deadline that falls on its block.
		MovedDraw::<T>::remove(id);
		Tasks::<T>::insert(id, task);
		Self::deposit_event(Event::Challenged { id, segment, challenger: who });
		Ok(())
	}

	/// Whether a verdict of task `id` that passes (`pass`) or fails may be challenged,
	/// as far as reveals go, by a `watcher` of its round or another: a pass at any time;
	/// a fail, before reveals open, only by a watcher, since it may be a forced error and
	/// no one else (a verifier's own account) may take a watcher's catch away by challenging
	/// it first.
	pub(crate) fn open_to(id: TaskId, pass: bool, watcher: bool) -> bool {
		pass || watcher || Self::reveals_open(id)
	}

	/// Whether the solver may contest `audit` now (and is shown it): a failing verdict its
	/// verifier's reveal proved no forced error, neither disputed nor refuted nor
	/// contested by it before, once the task's reveals are open (before, only the watcher
	/// may challenge a failing verdict).
	pub(crate) fn contestable_by_solver(id: TaskId, audit: &Audit<T::AccountId>) -> bool {
		audit.challenger.is_none()
			&& audit.refuted_by.is_none()
			&& !Self::contested(id, audit)
			&& audit.verdict.is_some_and(|v| !v.pass)
			&& Self::forced(id, audit) == Some(false)
			&& Self::reveals_open(id)
	}

	/// Whether the task's solver contested `audit`'s verdict already (the same solver,
	/// the same verifier: a re-audit's verdict, or another round's, is a new one).
	pub(crate) fn contested(id: TaskId, audit: &Audit<T::AccountId>) -> bool {
		let Some((solver, verifier)) = SolverContested::<T>::get(id, audit.segment) else {
			return false;
		};
		verifier == audit.verifier
			&& Tasks::<T>::get(id).and_then(|t| t.solver).as_ref() == Some(&solver)
	}

	/// Keeps the task's challenge window open a whole challenge period from now, for a
	/// verdict someone may challenge only from now on (a failing verdict the solver may
	/// contest, or one a lost game held); returns whether the window moved. (A dispute's
	/// ruling and timeout settle no earlier than its end.)
	pub(crate) fn keep_window_open(id: TaskId, task: &mut Task<T>) -> bool {
		let now = frame_system::Pallet::<T>::block_number();
		let until = now.saturating_add(T::ChallengePeriod::get());
		if task.window_end >= until {
			return false;
		}
		// A deadline before the window's end is a re-audit due (after a game): kept.
		let settles_at_end = task.phase == Phase::Challenge && task.deadline >= task.window_end;
		task.window_end = until;
		if settles_at_end {
			Self::file_settlement(id, task, Some(now));
		}
		Self::deposit_event(Event::WindowExtended { id, until });
		true
	}

	/// Keeps the task's challenge window open until a whole challenge period after the
	/// last runtime upgrade while its solver may contest a failing verdict; returns whether
	/// the window moved (the settlement then waits for its new end). An upgrade stops
	/// every node's workers until its operator runs the new version: a solver shown a fail
	/// shortly before one (a liar could time its reveal so) would otherwise be rejected
	/// before its node could contest, and the liar paid as its reporter.
	pub(crate) fn upgrade_grace(id: TaskId, task: &mut Task<T>, now: BlockNumberFor<T>) -> bool {
		let last = LastUpgrade::<T>::get();
		let until = last.saturating_add(T::ChallengePeriod::get());
		// A chain never upgraded (or upgraded before version 21) records none.
		if last.is_zero() || now >= until || task.window_end >= until {
			return false;
		}
		if !Audits::<T>::get(id).iter().any(|a| Self::contestable_by_solver(id, a)) {
			return false;
		}
		task.window_end = until;
		task.phase = Phase::Challenge;
		Self::file_settlement(id, task, Some(now));
		Self::deposit_event(Event::WindowExtended { id, until });
		true
	}

	/// The deadline a game's end set for the re-audit of the verdicts it voided, before
	/// the challenge window ends (moved once first: [`Self::move_draw`]): the
	/// new verifiers are drawn and post within a verify period, and the window then
	/// opens again for every verdict. With none to draw, the task waits for the window's
	/// end, where settlement tries again, moved as every settlement is
	/// ([`Self::file_settlement`]).
	pub(crate) fn reaudit_after_game(
		id: TaskId,
		task: &mut Task<T>,
		now: BlockNumberFor<T>,
	) -> Result<bool, DispatchError> {
		let mut audits = Audits::<T>::get(id);
		if !Self::audit_again(id, task, &mut audits, now)? {
			Self::file_settlement(id, task, None);
		}
		Ok(true)
	}

	/// A game refuted `audit`'s replay root and the verdict was not a forced error: its
	/// verifier is slashed (the winner reports it) and the verdict is void, so the
	/// segment is audited again. A game is between the verifier and its challenger: a
	/// concession or a timeout between them says nothing about the solver's work, so it
	/// never turns a pass into a fail (a verifier and its own whistleblower account could
	/// otherwise reject an honest solver).
	pub(crate) fn overturn(id: TaskId, audit: &mut Audit<T::AccountId>, winner: &T::AccountId) {
		let slash = Self::per_unit(id, T::WrongVerdictSlash::get());
		T::Stake::slash(&audit.verifier, Role::Verifier, slash, Some(winner));
		audit.verdict = None;
		audit.overturned = true;
	}
}

/// Reveals open at a point of the challenge window that the chain fixes (see
/// [`RevealsFrom`]). A reveal can show a failing verdict to be no forced error, and only
/// then is the solver shown it to contest (before, it would race whistleblowers for
/// forced errors). A verifier that posts a wrong fail and reveals in the window's last
/// block would leave the solver no time: so such a reveal keeps the window open for a
/// whole challenge period from the reveal on. A verifier reveals by the end of the first
/// window that judged its verdict ([`RevealBy`]): a later one, opened by a lost game or
/// a re-audit, would let it escape the missed reveal's slash.
impl<T: Config> pallet_gensyn_jackpot::OnReveal<T::AccountId> for Pallet<T> {
	fn may_reveal(who: &T::AccountId, id: TaskId) -> bool {
		Self::may_reveal_now(id, who)
	}

	fn revealed(who: &T::AccountId, id: TaskId) {
		let Some(mut task) = Tasks::<T>::get(id) else { return };
		if !matches!(task.phase, Phase::Challenge | Phase::Disputed) {
			return;
		}
		let audits = Audits::<T>::get(id);
		let shown = audits.iter().any(|a| a.verifier == *who && Self::contestable_by_solver(id, a));
		if shown && Self::keep_window_open(id, &mut task) {
			Tasks::<T>::insert(id, task);
		}
	}

	fn weight() -> Weight {
		T::WeightInfo::reopen_window()
	}
}

impl<T: Config> DisputeSubjects for Pallet<T> {
	fn context(id: TaskId, segment: u32) -> Option<DisputeContext> {
		let task = Tasks::<T>::get(id)?;
		let spec = Specs::<T>::get(id)?;
		let result = task.result.as_ref()?;
		let verdict = Audits::<T>::get(id).iter().find(|a| a.segment == segment)?.verdict?;
		let k = u64::from(spec.training.checkpoint_interval.max(1));
		let first_step = u64::from(segment).checked_mul(k)?;
		let steps = spec.total_steps().checked_sub(first_step)?.min(k);
		Some(DisputeContext {
			order_randomness: task.order_randomness,
			first_step,
			steps,
			checkpoint_root: result.checkpoint_root,
			checkpoints: result.checkpoints,
			claimed_root: verdict.replay_hash,
			claimed_distance: (spec.verification.mode == VerificationMode::Threshold)
				.then_some(verdict.distance),
			spec,
		})
	}
}

impl<T: Config> DisputeOutcome for Pallet<T> {
	fn resolve(id: TaskId, segment: u32, challenger_won: bool) -> DispatchResult {
		let mut task = Tasks::<T>::get(id).ok_or(Error::<T>::UnknownTask)?;
		ensure!(task.phase == Phase::Disputed, Error::<T>::WrongPhase);
		let mut audits = Audits::<T>::get(id);
		let audit =
			audits.iter_mut().find(|a| a.segment == segment).ok_or(Error::<T>::UnknownSegment)?;
		let challenger = audit.challenger.take().ok_or(Error::<T>::NoDispute)?;
		let survived = Survived::<T>::get(id, segment);
		let games = Self::games_survived(survived.clone(), &audit.verifier);
		let units = Self::units_of(survived, &audit.verifier);
		let challenger_role = if task.solver.as_ref() == Some(&challenger) {
			Role::Solver
		} else {
			Role::Whistleblower
		};
		if challenger_won {
			audit.refuted_by = Some(challenger.clone());
			// A revealed honest verdict was wrong: overturned now. A caught forced
			// error (the verifier did what it had to) and a verdict whose secret is
			// not revealed yet are decided at settlement, once the secret is known.
			if Self::was_wrong(Self::forced(id, audit), audit) == Some(true) {
				Self::overturn(id, audit, &challenger);
			}
		} else {
			let slash = T::FalseChallengeSlash::get();
			T::Stake::slash(&challenger, challenger_role, slash, Some(&audit.verifier));
			// A solver contests a verdict once: it cannot hold one, and a coalition that
			// raised the count would only raise an honest solver's slash for a lost move.
			if challenger_role == Role::Whistleblower && units > 1 {
				// A held verdict's extra slashes pay no reporter: a verifier in league
				// with the holder would take back half of each.
				let more = slash.saturating_mul((units - 1).into());
				T::Stake::slash(&challenger, challenger_role, more, None);
			}
			Survived::<T>::insert(id, segment, (audit.verifier.clone(), games.saturating_add(1)));
			// While the game was open nobody else could challenge the verdict (nor the
			// solver see a fail): it gets a whole period for anyone now. Else a verifier's
			// own whistleblower account could hold a wrong pass, or a wrong fail, in a game
			// played at each move's deadline until the window closed, and lose it on
			// purpose so that the verdict stands unchallenged.
			Self::keep_window_open(id, &mut task);
		}
		let open = audits.iter().any(|a| a.challenger.is_some());
		Self::disengage(id, &mut task, &challenger);
		Self::note_challenge(&task, &challenger, units, false);
		if !open {
			let now = frame_system::Pallet::<T>::block_number();
			// A voided verdict's segment is audited again `RandomnessDelay` blocks from
			// now, and a few more ([`Self::reaudit_after_game`]); a settlement, at the
			// window's end but never sooner. Drawn at once, from a beacon the parties
			// know, a party could end the game (concede) in the block whose beacon draws
			// its partner to re-audit; so the draw waits and moves.
			let soon = now.saturating_add(Self::randomness_delay());
			let demands = Demands::<T>::get(id);
			let at = if audits.iter().any(|a| Self::due_reaudit(a, &demands)) {
				// Past the window's end the settlement draws instead.
				soon
			} else {
				task.window_end.max(soon)
			};
			Self::file_moved_draw(id, &mut task, at, now);
			task.phase = Phase::Challenge;
		}
		Audits::<T>::insert(id, audits);
		Tasks::<T>::insert(id, task);
		Self::deposit_event(Event::DisputeResolved { id, segment, challenger_won });
		Ok(())
	}
}
