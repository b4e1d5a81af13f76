//! Disputes: challenges, rulings, overturned verdicts, re-audits and timeouts.

use super::*;

#[test]
fn a_verdict_a_game_refuted_is_not_tried_again() {
	new_test_ext().execute_with(|| {
		// An Exact-mode pass refuted by a whistleblower is void (no verifier is left to
		// audit it again).
		let (id, _) = overturned_pass(VerificationMode::Exact, false);
		let a = Audits::<T>::get(id)[0].clone();
		assert!(a.overturned && a.verdict.is_none());
		let watches = |who: u64| {
			TaskPallet::duties(&who).iter().filter(|d| matches!(d, Duty::Watch { .. })).count()
		};
		assert_eq!((watches(10), watches(13)), (0, 0), "neither solver nor whistleblower");
		for who in [10, 13] {
			assert_noop!(
				TaskPallet::challenge(RuntimeOrigin::signed(who), id, a.segment),
				Error::<T>::NoVerdict
			);
		}
	});
}

#[test]
fn challenge_errors() {
	new_test_ext().execute_with(|| {
		let id = verifying();
		let a = Audits::<T>::get(id)[0].clone();
		reg(13, Role::Whistleblower);
		assert_noop!(
			TaskPallet::challenge(RuntimeOrigin::signed(13), id, a.segment),
			Error::<T>::WrongPhase
		);
		verify_all(id, true);
		assert_noop!(
			TaskPallet::challenge(RuntimeOrigin::signed(13), id, 99),
			Error::<T>::UnknownSegment
		);
		// Not a whistleblower; the solver may not challenge a passing verdict; the
		// verifier may not challenge itself.
		assert_noop!(
			TaskPallet::challenge(RuntimeOrigin::signed(14), id, a.segment),
			Error::<T>::NotAllowedToChallenge
		);
		assert_noop!(
			TaskPallet::challenge(RuntimeOrigin::signed(10), id, a.segment),
			Error::<T>::NotAllowedToChallenge
		);
		reg(a.verifier, Role::Whistleblower);
		assert_noop!(
			TaskPallet::challenge(RuntimeOrigin::signed(a.verifier), id, a.segment),
			Error::<T>::NotAllowedToChallenge
		);
		assert_noop!(
			TaskPallet::challenge(RuntimeOrigin::none(), id, a.segment),
			sp_runtime::DispatchError::BadOrigin
		);
		REFUSE.with(|r| *r.borrow_mut() = true);
		assert_noop!(
			TaskPallet::challenge(RuntimeOrigin::signed(13), id, a.segment),
			sp_runtime::DispatchError::Other("refused")
		);
		REFUSE.with(|r| *r.borrow_mut() = false);
		assert_ok!(TaskPallet::challenge(RuntimeOrigin::signed(13), id, a.segment));
		assert_eq!(task(id).phase, Phase::Disputed);
		assert_noop!(
			TaskPallet::challenge(RuntimeOrigin::signed(13), id, a.segment),
			Error::<T>::AlreadyDisputed
		);
		assert_eq!(DISPUTES.with(|d| d.borrow().clone()), vec![(id, a.segment, 13, a.verifier)]);
		check();
	});
}

#[test]
fn an_overturned_threshold_verdict_is_void_and_its_verifier_slashed_and_unpaid() {
	new_test_ext().execute_with(|| {
		let (id, verifier) = overturned_pass(VerificationMode::Threshold, false);
		// The refuted replay says nothing about the solver's checkpoint: void; with no
		// verifier left to audit it again, the window runs on.
		let a = Audits::<T>::get(id)[0].clone();
		assert_eq!((a.verdict, a.overturned, a.reaudits), (None, true, 0));
		assert_eq!(task(id).phase, Phase::Challenge);
		let sb = Stake::bond(&10, Role::Solver);
		let vfree = Balances::free_balance(verifier);
		let kept =
			Audits::<T>::get(id).iter().filter(|a| a.verifier == verifier && !a.overturned).count()
				as u64;
		let pay = task(id).segment_pay;
		let end = task(id).deadline;
		run_to(end);
		// The segment went unchecked: the solver is neither paid nor failed.
		assert!(unverified(id));
		assert_eq!(Stake::bond(&10, Role::Solver), sb, "the solver is not failed");
		assert_eq!(
			Balances::free_balance(verifier) - vfree,
			kept * pay,
			"the overturned verdict is not paid, the verifier's others are"
		);
	});
}

#[test]
fn a_voided_segment_is_audited_again_by_another_verifier() {
	new_test_ext().execute_with(|| {
		let (id, voided) = overturned_pass(VerificationMode::Threshold, true);
		let other = if voided == 11 { 12 } else { 11 };
		let t = task(id);
		// The segment goes to the verifier not bound to the task; the voided one is let go.
		let a = Audits::<T>::get(id)[0].clone();
		assert_eq!((a.verifier, a.verdict, a.reaudits), (other, None, 1));
		assert_eq!(t.phase, Phase::Verifying);
		assert!(events().contains(&Event::Reaudited { id, segment: a.segment, verifier: other }));
		assert!(WorkerTasks::<T>::get(voided, id).is_none());
		// A re-audit is never forced: it checks what the voided verdict did not.
		assert!(TaskPallet::duties(&other).contains(&Duty::Verify {
			task: id,
			segment: a.segment,
			by: t.deadline,
			forcible: false
		}));
		let p = proof_for(t.checkpoints, a.segment);
		assert_ok!(TaskPallet::submit_verification(
			RuntimeOrigin::signed(other),
			id,
			a.segment,
			0,
			p.checkpoint_hash,
			p
		));
		assert_eq!(task(id).phase, Phase::Challenge, "the window opens again");
		// Overturned again: no verifier is left to draw (11 and 12 were both taken off), so
		// the segment stays void.
		assert_ok!(TaskPallet::challenge(RuntimeOrigin::signed(13), id, a.segment));
		rule(id, a.segment, true);
		let a = Audits::<T>::get(id)[0].clone();
		assert_eq!((a.verifier, a.verdict, a.overturned), (other, None, true));
		assert_eq!(task(id).phase, Phase::Challenge);
		let (vfree, ofree) = (Balances::free_balance(voided), Balances::free_balance(other));
		run_to(task(id).deadline);
		// Nobody checked the segment: the solver is not paid, neither refuted verdict is,
		// and the owner gets everything back.
		assert!(unverified(id));
		assert_eq!((Balances::free_balance(voided), Balances::free_balance(other)), (vfree, ofree));
		assert_eq!(Balances::free_balance(1), START);
	});
}

#[test]
fn an_overturned_exact_pass_is_void_and_audited_again_never_failing_the_solver() {
	new_test_ext().execute_with(|| {
		let (id, voided) = overturned_pass(VerificationMode::Exact, true);
		let other = if voided == 11 { 12 } else { 11 };
		let a = Audits::<T>::get(id)[0].clone();
		assert_eq!((a.verifier, a.verdict, a.reaudits), (other, None, 1), "void, re-audited");
		assert_eq!(task(id).phase, Phase::Verifying);
		let (sb, sfree) = (Stake::bond(&10, Role::Solver), Balances::free_balance(10));
		pass(id, other, a.segment);
		let t = task(id);
		run_to(t.deadline);
		assert!(events().iter().any(|e| matches!(e, Event::TaskCompleted { .. })));
		assert_eq!(Stake::bond(&10, Role::Solver), sb, "the solver is not slashed");
		assert_eq!(Balances::free_balance(10), sfree + t.solver_pay, "and is paid");
	});
}

#[test]
fn a_losing_challenger_is_slashed_and_the_task_settles() {
	new_test_ext().execute_with(|| {
		let id = verifying();
		let a = Audits::<T>::get(id)[0].clone();
		reg(13, Role::Whistleblower);
		verify_all(id, true);
		assert_ok!(TaskPallet::challenge(RuntimeOrigin::signed(13), id, a.segment));
		// A whistleblower's game holds its game bond.
		assert!(STAKED.with(|s| s.borrow().is_empty()));
		assert_noop!(
			<TaskPallet as DisputeOutcome>::resolve(id, 99, false),
			Error::<T>::UnknownSegment
		);
		assert_noop!(
			<TaskPallet as DisputeOutcome>::resolve(77, 0, false),
			Error::<T>::UnknownTask
		);
		rule(id, a.segment, false);
		let slash: u64 = <<T as Config>::FalseChallengeSlash as Get<u64>>::get();
		assert_eq!(Stake::bond(&13, Role::Whistleblower), 200 - slash);
		let end = task(id).deadline;
		run_to(end);
		assert!(events().iter().any(|e| matches!(e, Event::TaskCompleted { .. })));
	});
}

#[test]
fn the_solver_may_dispute_a_failing_verdict_and_win() {
	new_test_ext().execute_with(|| {
		let id = verifying();
		let a = Audits::<T>::get(id)[0].clone();
		verify_all(id, false);
		// A failing verdict is the watcher's to challenge until reveals open.
		assert_noop!(
			TaskPallet::challenge(RuntimeOrigin::signed(10), id, a.segment),
			Error::<T>::NotWatcher
		);
		run_to_reveals(id);
		assert_ok!(TaskPallet::challenge(RuntimeOrigin::signed(10), id, a.segment));
		// Its stake on the task backs the contest: the game holds no bond of its.
		assert_eq!(STAKED.with(|s| s.borrow().clone()), vec![(id, a.segment)]);
		rule(id, a.segment, true);
		// The voided segment goes to the other verifier, whose replay passes it.
		assert_eq!(task(id).phase, Phase::Verifying);
		let r = Audits::<T>::get(id)[0].clone();
		assert!(r.reaudits == 1 && r.verifier != a.verifier);
		let p = proof_for(task(id).checkpoints, r.segment);
		assert_ok!(TaskPallet::submit_verification(
			RuntimeOrigin::signed(r.verifier),
			id,
			r.segment,
			0,
			p.checkpoint_hash,
			p
		));
		let end = task(id).deadline;
		let sb = Stake::bond(&10, Role::Solver);
		run_to(end);
		assert!(events().iter().any(|e| matches!(e, Event::TaskCompleted { .. })));
		assert_eq!(Stake::bond(&10, Role::Solver), sb);
	});
}

/// A solver contests on its stake only where its bond, past what its engagements could
/// be slashed, covers each open contest's slash (an open contest counts at its slash, not
/// as another engagement of the task): a bond its rejection would take whole backs
/// nothing more, so a faker's game holds a game bond as anyone's does.
#[test]
fn a_solver_contests_on_its_stake_only_where_the_stake_covers_the_contests() {
	use pallet_gensyn_stake::StakeInterface;
	// Bonded for its engagement and `contests` false contests' slashes, no more: the
	// segments whose games hold no bond of its.
	let staked = |contests: u64| {
		STAKED.with(|s| s.borrow_mut().clear());
		new_test_ext().execute_with(|| {
			let two = spec_with(|s| s.verification.audit_fraction = SpecPermill(200_000));
			let id = verifying_with(two);
			let audits = Audits::<T>::get(id);
			assert_eq!(audits.len(), 2, "two fails to contest");
			verify_all(id, false);
			run_to_reveals(id);
			let slash: u64 = <<T as Config>::FalseChallengeSlash as Get<u64>>::get();
			let per_unit: u64 = <<T as Config>::RejectedProofSlash as Get<u64>>::get();
			let engaged = per_unit * u64::from(Stake::engaged_units(&10));
			let spare = Stake::bond(&10, Role::Solver) - engaged - contests * slash;
			Stake::slash(&10, Role::Solver, spare, None);
			for a in &audits {
				assert_ok!(TaskPallet::challenge(RuntimeOrigin::signed(10), id, a.segment));
			}
			let segments = audits.iter().map(|a| a.segment).collect::<Vec<_>>();
			STAKED.with(|s| {
				s.borrow()
					.iter()
					.map(|(_, seg)| segments.iter().position(|x| x == seg))
					.collect::<Vec<_>>()
			})
		})
	};
	assert_eq!(staked(2), vec![Some(0), Some(1)], "both slashes covered");
	assert_eq!(staked(1), vec![Some(0)], "the first only");
	assert_eq!(staked(0), vec![], "the rejection takes it whole");
}

#[test]
fn an_unresolved_dispute_times_out_and_its_verdict_is_void_and_audited_again() {
	new_test_ext().execute_with(|| {
		let id = verifying();
		let a = Audits::<T>::get(id)[0].clone();
		let other = if a.verifier == 11 { 12 } else { 11 };
		reg(13, Role::Whistleblower);
		verify_all(id, true);
		assert_ok!(TaskPallet::challenge(RuntimeOrigin::signed(13), id, a.segment));
		let vb = Stake::bond(&a.verifier, Role::Verifier);
		let vfree = Balances::free_balance(a.verifier);
		let d = task(id).deadline;
		run_to(d);
		assert!(DISPUTES.with(|x| x.borrow().is_empty()), "arbiter told to cancel");
		// Nobody is slashed, but the disputed verdict does not stand: another verifier
		// audits the segment.
		assert_eq!(Stake::bond(&13, Role::Whistleblower), 200);
		assert_eq!(Stake::bond(&a.verifier, Role::Verifier), vb);
		let again = Audits::<T>::get(id)[0].clone();
		assert_eq!((again.verifier, again.verdict, again.reaudits), (other, None, 1));
		assert_eq!(task(id).phase, Phase::Verifying);
		pass(id, other, a.segment);
		run_to(task(id).deadline);
		assert!(events().iter().any(|e| matches!(e, Event::TaskCompleted { .. })));
		assert_eq!(Balances::free_balance(a.verifier), vfree, "the void verdict is unpaid");
	});
}

/// A challenge after the window is refused, even while an earlier game keeps the task
/// disputed: it would ride that game's timeout and void an honest verdict no game tried.
#[test]
fn a_challenge_after_the_window_is_refused_while_another_game_runs() {
	new_test_ext().execute_with(|| {
		let two = spec_with(|s| s.verification.audit_fraction = SpecPermill(200_000));
		let id = verifying_with(two);
		let audits = Audits::<T>::get(id);
		assert_eq!(audits.len(), 2, "{audits:?}");
		reg(13, Role::Whistleblower);
		verify_all(id, true);
		let end = task(id).window_end;
		assert_ok!(TaskPallet::challenge(RuntimeOrigin::signed(13), id, audits[0].segment));
		let watches =
			|| TaskPallet::duties(&13).iter().filter(|d| matches!(d, Duty::Watch { .. })).count();
		assert_eq!(watches(), 1, "the other verdict is shown while the window is open");
		run_to(end);
		assert_eq!(task(id).phase, Phase::Disputed);
		assert_eq!(watches(), 0, "and not past it");
		assert!(TaskPallet::challengeable().is_empty());
		assert_noop!(
			TaskPallet::challenge(RuntimeOrigin::signed(13), id, audits[1].segment),
			Error::<T>::WindowClosed
		);
	});
}

/// A game opened in the window's last block has a whole dispute timeout to play out:
/// the earlier game's timeout does not cancel it unplayed (voiding its verdict unpaid).
#[test]
fn a_game_opened_late_in_the_window_gets_its_whole_timeout() {
	new_test_ext().execute_with(|| {
		let two = spec_with(|s| s.verification.audit_fraction = SpecPermill(200_000));
		let id = verifying_with(two);
		let audits = Audits::<T>::get(id);
		reg(13, Role::Whistleblower);
		verify_all(id, true);
		let end = task(id).window_end;
		assert_ok!(TaskPallet::challenge(RuntimeOrigin::signed(13), id, audits[0].segment));
		let first = task(id).deadline;
		run_to(end - 1);
		assert_ok!(TaskPallet::challenge(RuntimeOrigin::signed(13), id, audits[1].segment));
		assert_eq!(task(id).deadline, end - 1 + 20, "a whole timeout from the late challenge");
		assert!(first < task(id).deadline);
		run_to(first);
		assert_eq!(task(id).phase, Phase::Disputed);
		assert_eq!(
			DISPUTES.with(|d| d.borrow().len()),
			2,
			"no game cancelled at the first timeout"
		);
		assert!(Audits::<T>::get(id).iter().all(|a| a.verdict.is_some()), "no verdict voided");
	});
}

/// A party to a game that is also a block author could end the game (concede, or let it
/// be ruled) so that the block before the re-audit draw is its own, and withhold that
/// block for another roll. The draw a game's end sets moves itself once, by a number of
/// blocks read from the beacon at its deadline: with every block up to that deadline
/// fixed (the most the party could line up), the blocks after it still decide who
/// re-audits. So it does when the game ends late, and the settlement draws instead.
#[test]
fn no_block_a_party_to_a_game_can_line_up_decides_the_reaudit() {
	let reauditor_with = |period: u64, later: u8| {
		new_test_ext().execute_with(|| {
			PERIOD.with(|p| *p.borrow_mut() = period);
			let id = verifying();
			for v in 14..=19 {
				reg(v, Role::Verifier);
			}
			verify_all(id, true);
			let segment = Audits::<T>::get(id)[0].segment;
			assert_ok!(TaskPallet::challenge(RuntimeOrigin::signed(13), id, segment));
			DELAY.with(|d| *d.borrow_mut() = 10);
			let end = System::block_number();
			let due = end + 10;
			line_up(end, due, later);
			assert_ok!(<TaskPallet as DisputeOutcome>::resolve(id, segment, true));
			let t = task(id);
			assert_eq!(t.deadline, due);
			assert_eq!(due < t.window_end, period > 10, "a re-audit, or the settlement, draws");
			run_to(due);
			assert_eq!(task(id).phase, Phase::Challenge, "the draw moved past its deadline");
			assert!(MovedDraw::<T>::get(id).is_none(), "it moves once");
			run_to(task(id).deadline);
			assert_eq!(task(id).phase, Phase::Verifying, "drawn at the moved deadline");
			let audits = Audits::<T>::get(id);
			audits.iter().find(|a| a.segment == segment).map(|a| a.verifier).unwrap()
		})
	};
	for period in [60, 5] {
		let outcomes: std::collections::BTreeSet<_> =
			(1..=8).map(|later| reauditor_with(period, later)).collect();
		assert!(outcomes.len() > 1, "the blocks up to the deadline decided it: {outcomes:?}");
	}
}

/// Blocks that bring no new randomness leave the beacon as the game's parties knew it
/// when the game ended: the re-audit draw waits for a block made after the game before it
/// reads the beacon, as the audit draw waits for one after the commit.
#[test]
fn a_games_reaudit_draw_waits_for_randomness_made_after_the_game() {
	new_test_ext().execute_with(|| {
		PERIOD.with(|p| *p.borrow_mut() = 60);
		let id = verifying();
		reg(14, Role::Verifier);
		verify_all(id, true);
		let segment = Audits::<T>::get(id)[0].segment;
		assert_ok!(TaskPallet::challenge(RuntimeOrigin::signed(13), id, segment));
		let end = System::block_number();
		let due = end + 2;
		AUTHORED.with(|a| a.borrow_mut().extend((end + 1..=due + 3).map(|b| (b, [0; 32]))));
		assert_ok!(<TaskPallet as DisputeOutcome>::resolve(id, segment, true));
		run_to(due);
		assert_eq!(task(id).phase, Phase::Challenge, "no new randomness: the draw waits");
		assert!(!events().iter().any(|e| matches!(e, Event::Reaudited { .. })));
		run_to(due + 3);
		assert_eq!(task(id).phase, Phase::Challenge, "still none");
		run_to(task(id).deadline.max(due + 4));
		if task(id).phase == Phase::Challenge {
			run_to(task(id).deadline);
		}
		assert_eq!(task(id).phase, Phase::Verifying, "drawn once a new block was folded");
	});
}

/// A game that outlives the challenge window leaves the task to settle when it ends, and
/// the settlement draws: here the next solver, once the fail that stood rejects the
/// proof. Drawn in the block after the game's end, from a beacon the game's parties
/// knew, a challenger could give its game up in the block whose beacon offers the task
/// to its partner. The settlement waits `RandomnessDelay` blocks and moves itself once,
/// so blocks the party cannot line up decide the next solver.
#[test]
fn no_block_a_party_to_a_late_game_can_line_up_decides_the_settlements_draw() {
	let solver_with = |later: u8| {
		new_test_ext().execute_with(|| {
			let id = verifying_with(cheap_threshold());
			spare_solvers();
			verify_all(id, false);
			let failed = Audits::<T>::get(id)[0].segment;
			run_to_reveals(id);
			assert_ok!(TaskPallet::challenge(RuntimeOrigin::signed(13), id, failed));
			run_to(task(id).window_end + 2);
			assert_eq!(task(id).phase, Phase::Disputed, "the game outlived the window");
			DELAY.with(|d| *d.borrow_mut() = 10);
			let end = System::block_number();
			let due = end + 10;
			line_up(end, due, later);
			// The challenger gives up: nothing is voided by the game itself.
			assert_ok!(<TaskPallet as DisputeOutcome>::resolve(id, failed, false));
			assert_eq!(task(id).deadline, due, "the settlement waits for later randomness");
			run_to(due);
			if task(id).phase == Phase::Challenge {
				run_to(task(id).deadline);
			}
			assert_eq!(task(id).phase, Phase::Offered, "rejected, and offered to another");
			task(id).solver.unwrap()
		})
	};
	varies_with_later_blocks(solver_with);
}

/// A verifier that reveals late keeps the window open a whole period for the solver, so
/// the reveal's timing sets the settlement's block, and the settlement draws (here the
/// re-audit of the other verifier's verdicts, never revealed). The settlement moves
/// itself once from there, as a game's does.
#[test]
fn a_late_reveal_does_not_line_up_the_block_that_draws_the_reaudit() {
	let reauditor_with = |later: u8| {
		new_test_ext().execute_with(|| {
			let half = spec_with(|s| s.verification.audit_fraction = SpecPermill(500_000));
			let id = verifying_by(sp_runtime::Perbill::zero(), half, &[11, 12]);
			for v in 14..=19 {
				reg(v, Role::Verifier);
				commit(v);
			}
			verify_all(id, false);
			let last = task(id).window_end - 1;
			run_to(last);
			DELAY.with(|d| *d.borrow_mut() = 10);
			let verifier = Audits::<T>::get(id)[0].verifier;
			assert!(Audits::<T>::get(id).iter().any(|a| a.verifier != verifier), "two verifiers");
			reveal(verifier, id);
			let until = last + PERIOD.with(|p| *p.borrow());
			assert_eq!((task(id).window_end, task(id).deadline), (until, until));
			assert_eq!(MovedDraw::<T>::get(id), Some((until, last)), "the settlement moves");
			line_up(last, until, later);
			// The other verifier never reveals: its verdicts are void and audited again.
			run_to_settlement(id, until);
			assert_eq!(task(id).phase, Phase::Verifying, "audited again");
			Audits::<T>::get(id).iter().map(|a| a.verifier).collect::<Vec<_>>()
		})
	};
	varies_with_later_blocks(reauditor_with);
}

/// The last verifier to post chooses the block that opens the window, and so the block
/// of the settlement a challenge period later, which draws (the re-audit of an unrevealed
/// verdict, the next solver after a rejected proof). A verifier that is also a block author
/// could line that block up with its own slot: the settlement moves itself once, as every
/// draw a party timed does.
#[test]
fn the_last_verdict_does_not_line_up_the_block_that_draws_the_reaudit() {
	let reauditor_with = |later: u8| {
		new_test_ext().execute_with(|| {
			let id = verifying_with_spares();
			let posted = frame_system::Pallet::<T>::block_number();
			verify_all(id, false);
			DELAY.with(|d| *d.borrow_mut() = 10);
			let end = task(id).window_end;
			assert_eq!(end, posted + PERIOD.with(|p| *p.borrow()));
			assert_eq!(MovedDraw::<T>::get(id), Some((end, posted)), "the settlement moves");
			line_up(posted, end, later);
			// Nobody reveals (a reveal would keep the window open for the solver): the
			// settlement audits the unrevealed verdicts again.
			run_to_settlement(id, end);
			assert_eq!(task(id).phase, Phase::Verifying, "the verdicts are audited again");
			Audits::<T>::get(id).iter().map(|a| a.verifier).collect::<Vec<_>>()
		})
	};
	varies_with_later_blocks(reauditor_with);
}

/// A game's re-audit that finds no verifier leaves the task to settle at the window's
/// end, whose block the last verdict chose; the settlement there draws the re-audit, and
/// moves itself once first, as it would have without the game.
#[test]
fn a_reaudit_that_found_nobody_leaves_a_settlement_that_moves() {
	let reauditor_with = |later: u8| {
		new_test_ext().execute_with(|| {
			PERIOD.with(|p| *p.borrow_mut() = 60);
			let id = verifying_by(sp_runtime::Perbill::zero(), spec(), &[11]);
			verify_all(id, true);
			let end = task(id).window_end;
			let segment = Audits::<T>::get(id)[0].segment;
			// Revealed, the verdict a game refutes is void at once and audited again.
			reveal(11, id);
			assert_ok!(TaskPallet::challenge(RuntimeOrigin::signed(13), id, segment));
			DELAY.with(|d| *d.borrow_mut() = 10);
			rule(id, segment, true);
			let t = task(id);
			assert_eq!((t.phase, t.deadline), (Phase::Challenge, end), "nobody to re-audit");
			assert_eq!(MovedDraw::<T>::get(id), Some((end, end - 60)), "the settlement moves");
			for v in 14..=19 {
				reg(v, Role::Verifier);
				commit(v);
			}
			line_up(System::block_number(), end, later);
			run_to_settlement(id, end);
			assert_eq!(task(id).phase, Phase::Verifying, "the void verdict is audited again");
			let audits = Audits::<T>::get(id);
			audits.iter().find(|a| a.segment == segment).map(|a| a.verifier).unwrap()
		})
	};
	varies_with_later_blocks(reauditor_with);
}

/// A task audited by verifiers 11 and 12 (with the real jackpot, nothing forced), and six
/// more verifiers, committed, to re-audit its segments.
fn verifying_with_spares() -> TaskId {
	let id = verifying_by(sp_runtime::Perbill::zero(), spec(), &[11, 12]);
	for v in 14..=19 {
		reg(v, Role::Verifier);
		commit(v);
	}
	id
}

/// A Threshold task of one audit of a 2-step segment: a rejected proof's slash pays its
/// verdict back into the escrow, which then covers another round.
fn cheap_threshold() -> TaskSpec {
	spec_with(|s| {
		s.training.checkpoint_interval = 2;
		s.verification.audit_fraction = SpecPermill(1);
	})
}

/// Registers solvers 2 to 7, once the task's solver is drawn: a rejected proof offers the
/// task to one of them.
fn spare_solvers() {
	for s in 2..=7 {
		reg(s, Role::Solver);
	}
}

/// Runs to task `id`'s settlement filed at the window's `end`, and to where it moved
/// itself.
fn run_to_settlement(id: TaskId, end: u64) {
	run_to(end);
	let t = task(id);
	if t.phase == Phase::Challenge {
		run_to(t.deadline);
	}
}

/// Asserts that what `outcome` draws, with the blocks up to its deadline fixed and those
/// after varied by `later`, is not the same for every `later`.
fn varies_with_later_blocks<O: Ord + core::fmt::Debug>(outcome: impl Fn(u8) -> O) {
	let outcomes: std::collections::BTreeSet<_> = (1..=8).map(outcome).collect();
	assert!(outcomes.len() > 1, "the blocks up to the deadline decided it: {outcomes:?}");
}
