//! Attacks played against the pallet: each test plays one deviation and asserts that the
//! attackers' net balance (free and held) falls and no honest party's does.

use super::*;

/// `who` posts a failing verdict on `segment` of task `id`.
pub(super) fn fail(id: TaskId, who: u64, segment: u32) {
	let p = proof_for(task(id).checkpoints, segment);
	assert_ok!(TaskPallet::submit_verification(
		RuntimeOrigin::signed(who),
		id,
		segment,
		0x4000_0000,
		[0xee; 32],
		p
	));
}

/// The game over `segment` of task `id` runs past the window's end and its challenger
/// loses it: the window is open again a whole period from the ruling.
fn lost_past_the_window(id: TaskId, segment: u32) {
	let end = task(id).window_end;
	run_to(end + 2);
	rule(id, segment, false);
	let period: u64 = <<T as Config>::ChallengePeriod as Get<u64>>::get();
	assert_eq!(task(id).window_end, end + 2 + period, "a whole period from the ruling");
	run_to(end + 3);
	assert_eq!(task(id).phase, Phase::Challenge, "not settled");
}

/// A4(a): a verifier and its own whistleblower account concede a game over the
/// verifier's honest Exact-mode pass, hoping to fail the honest solver (who is not a
/// party to the game). The segment is audited again instead; the solver is paid and the
/// coalition loses the verifier's slash less the reporter's share.
#[test]
fn a_conceded_game_over_an_honest_pass_never_fails_the_solver() {
	new_test_ext().execute_with(|| {
		let id = verifying_with(spec_with(|s| s.verification.mode = VerificationMode::Exact));
		let a = Audits::<T>::get(id)[0].clone();
		let other = if a.verifier == 11 { 12 } else { 11 };
		reg(13, Role::Whistleblower);
		let (coalition, solver) = (worth_of(&[a.verifier, 13]), worth(10));
		pass(id, a.verifier, a.segment);
		assert_ok!(TaskPallet::challenge(RuntimeOrigin::signed(13), id, a.segment));
		// The verifier concedes: the arbiter reports the challenger won.
		rule(id, a.segment, true);
		pass(id, other, a.segment);
		run_to(task(id).deadline);
		assert!(events().iter().any(|e| matches!(e, Event::TaskCompleted { .. })));
		assert!(worth_of(&[a.verifier, 13]) < coalition, "the coalition loses");
		assert!(worth(10) > solver, "the honest solver is paid");
	});
}

/// A6: a solver that faked its training and a verifier that passes the fake stall the
/// game a whistleblower opened until the dispute times out. The disputed pass does not
/// stand: another verifier audits the segment, fails it, and the solver is rejected.
#[test]
fn a_stalled_game_never_lets_a_challenged_pass_stand() {
	new_test_ext().execute_with(|| {
		let id = verifying_with(exact());
		let a = Audits::<T>::get(id)[0].clone();
		let other = if a.verifier == 11 { 12 } else { 11 };
		reg(13, Role::Whistleblower);
		let (coalition, whistleblower) = (worth_of(&[10, a.verifier]), worth(13));
		pass(id, a.verifier, a.segment);
		assert_ok!(TaskPallet::challenge(RuntimeOrigin::signed(13), id, a.segment));
		// The arbiter never rules.
		run_to(task(id).deadline);
		let again = Audits::<T>::get(id)[0].clone();
		assert_eq!((again.verifier, again.verdict), (other, None), "audited again");
		fail(id, other, a.segment);
		run_to(task(id).deadline);
		assert!(events().iter().any(|e| matches!(e, Event::ProofRejected { solver: 10, .. })));
		assert!(worth_of(&[10, a.verifier]) < coalition, "the coalition loses");
		assert!(worth(13) >= whistleblower, "the whistleblower loses nothing");
	});
}

/// A solver that faked its training and a verifier that passes the fake hold the pass in
/// a game of their own whistleblower account, played at each move's deadline past the
/// window's end (a second challenge of a held verdict is refused), and concede it then,
/// hoping that the pass stands unchallenged. The lost game keeps the window open a whole
/// period from the ruling: an honest whistleblower challenges and wins, the segment is
/// audited again and failed, and the solver is rejected.
#[test]
fn a_stalling_challenge_never_lets_a_wrong_pass_stand() {
	new_test_ext().execute_with(|| {
		let id = verifying_with(exact());
		let a = Audits::<T>::get(id)[0].clone();
		let other = if a.verifier == 11 { 12 } else { 11 };
		reg(13, Role::Whistleblower);
		reg(15, Role::Whistleblower);
		let coalition = [10, a.verifier, 13];
		let (before, honest) = (worth_of(&coalition), worth(15));
		pass(id, a.verifier, a.segment);
		assert_ok!(TaskPallet::challenge(RuntimeOrigin::signed(13), id, a.segment));
		assert!(TaskPallet::challenge(RuntimeOrigin::signed(15), id, a.segment).is_err());
		// The coalition's account concedes past the window's end.
		lost_past_the_window(id, a.segment);
		assert_ok!(TaskPallet::challenge(RuntimeOrigin::signed(15), id, a.segment));
		rule(id, a.segment, true);
		let again = Audits::<T>::get(id)[0].clone();
		assert_eq!(again.verifier, other, "audited again");
		fail(id, other, a.segment);
		run_to(task(id).deadline);
		assert!(events().iter().any(|e| matches!(e, Event::ProofRejected { solver: 10, .. })));
		assert!(worth_of(&coalition) < before, "the coalition loses");
		assert!(worth(15) > honest, "the honest whistleblower is paid");
		check();
	});
}

/// A solver whose fake was failed contests the fail, loses the game, and contests it
/// again as soon as the lost game has reopened the window, and so on, to keep its task
/// from ever settling. A solver contests a verdict once: the second contest is refused,
/// the task settles when the reopened window ends, and the solver is rejected.
#[test]
fn a_solver_contests_a_fail_once_and_cannot_hold_its_task_open() {
	new_test_ext().execute_with(|| {
		let id = verifying_with(exact());
		let a = Audits::<T>::get(id)[0].clone();
		let before = worth(10);
		verify_all(id, false);
		run_to_reveals(id);
		assert_ok!(TaskPallet::challenge(RuntimeOrigin::signed(10), id, a.segment));
		rule(id, a.segment, false);
		assert_eq!(task(id).phase, Phase::Challenge, "the window is open again");
		let shown =
			|d: &Duty<u64>| matches!(d, Duty::Watch { segment, .. } if *segment == a.segment);
		assert!(!TaskPallet::duties(&10).iter().any(shown), "not shown to the solver again");
		assert_noop!(
			TaskPallet::challenge(RuntimeOrigin::signed(10), id, a.segment),
			Error::<T>::AlreadyContested
		);
		run_to(task(id).deadline);
		assert!(events().iter().any(|e| matches!(e, Event::ProofRejected { solver: 10, .. })));
		assert!(worth(10) < before, "the solver loses");
		assert!(SolverContested::<T>::iter_prefix(id).next().is_none(), "forgotten at the end");
		check();
	});
}

/// A2: a verifier drawn on a faked segment stays silent (once cheaper than a wrong
/// verdict) so that the solver is paid on the segment the other verifier checked. The
/// silent segment is void, nobody is left to audit it again, and the round ends
/// unverified: the solver is not paid and the silent verifier is slashed.
#[test]
fn a_silent_verifier_cannot_get_a_solver_paid_for_an_unchecked_segment() {
	new_test_ext().execute_with(|| {
		let two = spec_with(|s| s.verification.audit_fraction = SpecPermill(200_000));
		let id = verifying_with(two);
		let audits = Audits::<T>::get(id);
		assert_eq!(audits.len(), 2);
		let (checked, silent) = (audits[0].clone(), audits[1].clone());
		assert_ne!(checked.verifier, silent.verifier, "two verifiers are drawn");
		let coalition = [10, silent.verifier];
		let before = worth_of(&coalition);
		pass(id, checked.verifier, checked.segment);
		run_to(task(id).deadline);
		run_to(task(id).deadline);
		assert!(unverified(id));
		assert!(worth_of(&coalition) < before, "the coalition loses");
	});
}

/// A5: a verifier posts a wrong fail on an honest solver's segment and reveals its
/// secret in the window's last block. The solver is shown a failing verdict only once the
/// reveal proves it no forced error, so it would be left no time to contest. The window
/// stays open a whole challenge period from the reveal: the solver contests and wins, the
/// segment is audited again and passes, the solver is paid and the verifier slashed.
#[test]
fn a_late_reveal_never_leaves_the_solver_without_time_to_contest() {
	new_test_ext().execute_with(|| {
		let id = verifying_by(sp_runtime::Perbill::zero(), spec(), &[11, 12, 14]);
		let audits = Audits::<T>::get(id);
		assert_eq!(audits.len(), 1);
		let a = audits[0].clone();
		let (attacker, solver) = (worth(a.verifier), worth(10));
		fail(id, a.verifier, a.segment);
		let end = task(id).window_end;
		run_to(end - 1);
		let contest =
			|d: &Duty<u64>| matches!(d, Duty::Watch { segment, .. } if *segment == a.segment);
		assert!(!TaskPallet::duties(&10).iter().any(contest), "not shown before the reveal");
		reveal(a.verifier, id);
		let period: u64 = <<T as Config>::ChallengePeriod as Get<u64>>::get();
		assert_eq!(task(id).window_end, end - 1 + period, "a whole period from the reveal");
		run_to(end);
		assert_eq!(task(id).phase, Phase::Challenge, "not settled at the old end");
		assert!(TaskPallet::duties(&10).iter().any(contest), "the solver is told to check it");
		assert_ok!(TaskPallet::challenge(RuntimeOrigin::signed(10), id, a.segment));
		// The solver's honest work wins the game.
		rule(id, a.segment, true);
		let again = Audits::<T>::get(id)[0].clone();
		assert_ne!(again.verifier, a.verifier, "audited again");
		reaudits_pass(id);
		assert!(events().iter().any(|e| matches!(e, Event::TaskCompleted { .. })));
		assert!(worth(a.verifier) < attacker, "the late revealer loses");
		assert!(worth(10) > solver, "the honest solver is paid");
	});
}

/// A forced segment used to be void and checked by nobody, so a cheating solver whose
/// fake lands on a segment forced for the verifier drawn on it was paid for the fake. The
/// forced error is void and the segment audited again by another verifier (a re-audit is
/// never forced), whose replay fails the fake: the solver is rejected.
#[test]
fn a_forced_segment_is_audited_again_so_a_fake_on_it_is_caught() {
	new_test_ext().execute_with(|| {
		let id = verifying_by(sp_runtime::Perbill::one(), exact(), &[11, 12, 14]);
		let a = Audits::<T>::get(id)[0].clone();
		let (coalition, before) = ([10, a.verifier], worth_of(&[10, a.verifier]));
		// Forced: the verifier posts the failing verdict it must, and reveals.
		fail(id, a.verifier, a.segment);
		reveal(a.verifier, id);
		run_to(task(id).deadline);
		let again = Audits::<T>::get(id)[0].clone();
		assert!(again.reaudits == 1 && again.verifier != a.verifier, "audited again");
		fail(id, again.verifier, a.segment);
		reveal(again.verifier, id);
		run_to(task(id).deadline);
		assert!(events().iter().any(|e| matches!(e, Event::ProofRejected { solver: 10, .. })));
		assert!(worth_of(&coalition) < before, "the coalition loses");
	});
}

/// A5 by proxy: a verifier posts a wrong fail on an honest solver's segment and its own
/// whistleblower account challenges it at once, so that the solver is never shown the
/// verdict while the game is open; the account loses the game on purpose after the window
/// has closed, hoping the fail is counted at once. The solver gets a whole period from
/// the ruling, contests and wins; the coalition loses.
#[test]
fn a_shielding_challenge_never_leaves_the_solver_without_time_to_contest() {
	new_test_ext().execute_with(|| {
		let id = verifying_by(sp_runtime::Perbill::zero(), spec(), &[11, 12, 14]);
		let a = Audits::<T>::get(id)[0].clone();
		reg(13, Role::Whistleblower);
		let (coalition, solver) = (worth_of(&[a.verifier, 13]), worth(10));
		fail(id, a.verifier, a.segment);
		assert_ok!(watch_challenge(13, id, a.segment));
		reveal(a.verifier, id);
		// The shield falls past the window's end: the challenger lost.
		lost_past_the_window(id, a.segment);
		assert_ok!(TaskPallet::challenge(RuntimeOrigin::signed(10), id, a.segment));
		rule(id, a.segment, true);
		let again = Audits::<T>::get(id)[0].clone();
		assert_ne!(again.verifier, a.verifier, "audited again");
		reaudits_pass(id);
		assert!(events().iter().any(|e| matches!(e, Event::TaskCompleted { .. })));
		assert!(worth_of(&[a.verifier, 13]) < coalition, "the coalition loses");
		assert!(worth(10) > solver, "the honest solver is paid");
	});
}

/// Two solver accounts of one owner take turns declining a task (a decline is free, so
/// that no solver pays for a submitter's bad data), hoping to hold it forever. Neither
/// is offered it again once it declined, and every draw is spent: the task fails and is
/// refunded in full after `MaxDraws`, nobody is slashed, and the submitter loses nothing
/// but time. (Each next
/// solver is drawn from randomness that did not exist at the decline, so with an honest
/// solver among those that fit, the pair cannot steer the task between them.)
#[test]
fn solvers_taking_turns_declining_cannot_hold_a_task() {
	new_test_ext().execute_with(|| {
		reg(11, Role::Solver);
		reg(12, Role::Verifier);
		let id = submitted();
		let (submitter, solvers) = (worth(1), worth_of(&[10, 11]));
		let draws: u32 = <<T as Config>::MaxDraws as Get<u32>>::get();
		for _ in 0..draws {
			let Some(t) = Tasks::<T>::get(id) else { break };
			// Once both declined, neither is offered it again: it waits for another.
			if let (Phase::Offered, Some(solver)) = (t.phase, t.solver) {
				assert_ok!(TaskPallet::decline_task(RuntimeOrigin::signed(solver), id));
			}
			let Some(t) = Tasks::<T>::get(id) else { break };
			run_to(t.deadline);
		}
		assert!(Tasks::<T>::get(id).is_none(), "the task ended");
		assert!(events().iter().any(
			|e| matches!(e, Event::TaskFailed { id: i, reason: FailReason::NoSolver, .. } if *i == id)
		));
		assert_eq!(escrow_held(1), 0);
		assert_eq!(worth(1), submitter, "refunded in full");
		assert_eq!(worth_of(&[10, 11]), solvers, "nobody slashed, nobody paid");
		check();
	});
}

/// A5 under a dispute: a verifier posts a wrong fail on one segment and means to reveal
/// it late, while a game over another segment holds the task in `Disputed` past the
/// window's end, hoping that the game's timeout settles the task before the solver can
/// contest. The window's end was the reveal's deadline: the late reveal is refused, the
/// unrevealed fail is void and its verifier slashed, and the solver is paid once both
/// segments are audited again.
#[test]
fn a_reveal_during_a_dispute_after_the_window_is_refused_and_the_solver_paid() {
	new_test_ext().execute_with(|| {
		let two = spec_with(|s| s.verification.audit_fraction = SpecPermill(200_000));
		let id = verifying_by(sp_runtime::Perbill::zero(), two, &[11, 12, 14, 15]);
		let audits = Audits::<T>::get(id);
		assert_eq!(audits.len(), 2);
		let (honest, liar) = (audits[0].clone(), audits[1].clone());
		assert_ne!(honest.verifier, liar.verifier);
		reg(13, Role::Whistleblower);
		let (attacker, solver) = (worth(liar.verifier), worth(10));
		pass(id, honest.verifier, honest.segment);
		fail(id, liar.verifier, liar.segment);
		reveal(honest.verifier, id);
		assert_ok!(TaskPallet::challenge(RuntimeOrigin::signed(13), id, honest.segment));
		let timeout = task(id).deadline;
		// Late: the window has closed, and the game times out two blocks later.
		run_to(timeout - 2);
		assert!(task(id).window_end < timeout - 2, "the first window has closed");
		let late = JackpotPallet::reveal(
			RuntimeOrigin::signed(liar.verifier),
			id,
			[liar.verifier as u8; 32],
		);
		assert_noop!(late, pallet_gensyn_jackpot::Error::<T>::RevealNotOpen);
		run_to(timeout);
		assert_eq!(task(id).phase, Phase::Verifying, "both verdicts are audited again");
		assert!(Audits::<T>::get(id).iter().all(|a| a.verifier != liar.verifier));
		reaudits_pass(id);
		assert!(events().iter().any(|e| matches!(e, Event::TaskCompleted { .. })));
		assert!(worth(liar.verifier) < attacker, "the late revealer loses");
		assert!(worth(10) > solver, "the honest solver is paid");
	});
}

/// Two solver accounts of one owner decline a task in turn, so that it bounces between
/// them until its draws are spent, and no solver that registers meanwhile gets it. Every
/// decliner is kept out, not the last one only: once both declined the task waits
/// instead of going back to the first, and the honest solver that registers later is
/// offered it. The declines cost the pair nothing and won them nothing.
#[test]
fn colluding_decliners_are_each_excluded_so_an_honest_solver_gets_the_task() {
	new_test_ext().execute_with(|| {
		reg(11, Role::Solver);
		reg(12, Role::Verifier);
		let id = submitted();
		let colluders = [10u64, 11];
		let before = worth_of(&colluders);
		let first = task(id).solver.unwrap();
		assert_ok!(TaskPallet::decline_task(RuntimeOrigin::signed(first), id));
		run_to(task(id).deadline);
		let second = task(id).solver.unwrap();
		assert_ne!(second, first);
		assert_ok!(TaskPallet::decline_task(RuntimeOrigin::signed(second), id));
		run_to(task(id).deadline);
		let t = task(id);
		assert_eq!((t.phase, t.solver), (Phase::Queued, None), "never offered to a decliner again");
		reg(12, Role::Solver);
		run_to(task(id).deadline);
		assert_eq!(task(id).solver, Some(12));
		assert_ok!(TaskPallet::accept_task(RuntimeOrigin::signed(12), id));
		assert_eq!(worth_of(&colluders), before, "declines are free");
		check();
	});
}

/// A submitter asks for more memory than any verifier claims (a solver with the room is
/// registered), hoping that the solver trains, nobody can check the result, and the task
/// fails refunded while the model sits in the solver's open store. No solver is drawn
/// while no verifier fits: the task fails `NoVerifier` before anyone trains, refunded in
/// full; the solver spends nothing and is not slashed.
#[test]
fn a_task_no_verifier_could_check_is_never_trained() {
	new_test_ext().execute_with(|| {
		assert_ok!(Stake::register(
			RuntimeOrigin::signed(10),
			Role::Solver,
			1_000,
			cap(1 << 30),
			BoundedVec::truncate_from(b"http://w".to_vec())
		));
		assert_ok!(Stake::register(
			RuntimeOrigin::signed(11),
			Role::Verifier,
			500,
			cap(1),
			BoundedVec::truncate_from(b"http://w".to_vec())
		));
		let (submitter, solver) = (worth(1), worth(10));
		assert_ok!(TaskPallet::submit_task(RuntimeOrigin::signed(1), spec()));
		let id = last_task();
		assert!(task(id).memory_mib > 1, "verifier 11 does not fit");
		run_to(40);
		assert!(Tasks::<T>::get(id).is_none());
		let evs = events();
		assert!(!evs.iter().any(|e| matches!(e, Event::SolverDrawn { .. })), "nobody trained");
		assert!(evs
			.iter()
			.any(|e| matches!(e, Event::TaskFailed { reason: FailReason::NoVerifier, .. })));
		assert_eq!(worth(1), submitter, "refunded in full, nothing gained");
		assert_eq!(worth(10), solver, "the solver spent nothing and lost nothing");
		check();
	});
}

/// Two reports: a verifier drawn on several segments of an honest solver's task reports
/// each of them unavailable, hoping that one of their re-auditors is its own account and
/// reports again (a second report rejects the proof, and the chain cannot tell a store
/// that does not serve from a false report). All segments one verifier reported go to
/// one re-auditor, so the reporter gets one draw of a colluder, not one per segment:
/// whenever the re-auditor drawn is honest, the solver is paid and the coalition gains
/// nothing.
#[test]
fn a_reporter_of_several_segments_gets_one_reauditor_not_one_per_segment() {
	let mut honest_drawn = 0;
	for salt in 0..8 {
		ExtBuilder::default().salt(salt).build().execute_with(|| {
			let half = spec_with(|s| s.verification.audit_fraction = SpecPermill(500_000));
			let id = verifying_with(half);
			let audits = Audits::<T>::get(id);
			assert_eq!(audits.len(), 4, "two segments for each of 11 and 12");
			let reporter = audits[0].verifier;
			let (mine, theirs): (Vec<_>, Vec<_>) =
				audits.iter().partition(|a| a.verifier == reporter);
			assert!(mine.len() >= 2, "the reporter holds several segments");
			// 13 is honest; 14 is the reporter's own account: the only possible re-auditors.
			reg(13, Role::Verifier);
			reg(14, Role::Verifier);
			let (coalition, solver) = (worth_of(&[reporter, 14]), worth(10));
			for a in &theirs {
				pass(id, a.verifier, a.segment);
			}
			for a in &mine {
				super::unavailable::unpublishable();
				assert_ok!(TaskPallet::report_unavailable(
					RuntimeOrigin::signed(reporter),
					id,
					a.segment
				));
			}
			run_to(task(id).deadline);
			let reauditors: Vec<u64> = Audits::<T>::get(id)
				.iter()
				.filter(|a| a.reported_before)
				.map(|a| a.verifier)
				.collect();
			assert_eq!(reauditors.len(), mine.len(), "every reported segment is audited again");
			assert!(
				reauditors.iter().all(|v| *v == reauditors[0]),
				"one re-auditor for all the reporter's segments, not {reauditors:?}"
			);
			if reauditors[0] == 14 {
				return;
			}
			honest_drawn += 1;
			for a in Audits::<T>::get(id).iter().filter(|a| a.awaits_verdict()) {
				pass(id, 13, a.segment);
			}
			run_to(task(id).deadline);
			assert!(events().iter().any(|e| matches!(e, Event::TaskCompleted { .. })));
			assert!(worth(10) > solver, "the honest solver is paid");
			assert_eq!(worth_of(&[reporter, 14]), coalition, "the coalition gains nothing");
			check();
		});
	}
	assert!(honest_drawn > 0, "some salt draws the honest re-auditor");
}

/// A3: in Threshold mode a verifier posts an honest segment's true replay hash with a
/// distance past the threshold, to have the solver rejected and collect a reporter's
/// share of its slash. A fail that stands rejects the proof as in Exact mode, so the
/// solver contests it once the reveal shows it no forced error: the game over the
/// distance rules for the solver, the liar is slashed, the segment is audited again and
/// passes, and the solver is paid.
#[test]
fn a_threshold_fail_on_a_true_replay_loses_to_the_solvers_contest() {
	new_test_ext().execute_with(|| {
		let id = verifying_by(sp_runtime::Perbill::zero(), spec(), &[11, 12, 14]);
		assert!(TaskPallet::is_threshold(id));
		let a = Audits::<T>::get(id)[0].clone();
		let (liar, solver) = (worth(a.verifier), worth(10));
		let p = proof_for(task(id).checkpoints, a.segment);
		let (h, past) = (p.checkpoint_hash, f32::MAX.to_bits());
		let v = RuntimeOrigin::signed(a.verifier);
		assert_ok!(TaskPallet::submit_verification(v, id, a.segment, past, h, p));
		reveal(a.verifier, id);
		assert_ok!(TaskPallet::challenge(RuntimeOrigin::signed(10), id, a.segment));
		// The distance the liar posted is not the one its sums give: the solver wins.
		rule(id, a.segment, true);
		reaudits_pass(id);
		assert!(events().iter().any(|e| matches!(e, Event::TaskCompleted { .. })));
		assert!(!events().iter().any(|e| matches!(e, Event::ProofRejected { .. })));
		assert!(worth(a.verifier) < liar, "the liar loses");
		assert!(worth(10) > solver, "the honest solver is paid");
		check();
	});
}

/// A liar reveals its fail on an honest segment shortly before a runtime upgrade, which
/// stops every node's workers until its operator runs the new version, so that the
/// period the reveal gives the solver to contest passes while its node is stopped, and
/// the fail stands with the liar as reporter (in either mode; played here in Exact). A
/// window with a fail the solver may contest stays open a whole period from the upgrade:
/// the solver contests and wins.
#[test]
fn a_fail_revealed_before_an_upgrade_leaves_the_solver_a_period_after_it() {
	new_test_ext().execute_with(|| {
		let id = verifying_by(sp_runtime::Perbill::zero(), exact(), &[11, 12, 14]);
		let a = Audits::<T>::get(id)[0].clone();
		let (liar, solver) = (worth(a.verifier), worth(10));
		fail(id, a.verifier, a.segment);
		reveal(a.verifier, id);
		let period: u64 = <<T as Config>::ChallengePeriod as Get<u64>>::get();
		let end = task(id).window_end;
		// The upgrade's first block comes half a period before the window's end.
		run_to(end - period / 2 - 1);
		<TaskPallet as frame_support::traits::Hooks<u64>>::on_runtime_upgrade();
		let upgraded = LastUpgrade::<T>::get();
		assert_eq!(upgraded, end - period / 2);
		run_to(task(id).deadline);
		assert_eq!(task(id).phase, Phase::Challenge, "not settled at the old end");
		assert!(task(id).window_end >= upgraded + period, "a period from the upgrade");
		assert!(events().contains(&Event::WindowExtended { id, until: upgraded + period }));
		assert_ok!(TaskPallet::challenge(RuntimeOrigin::signed(10), id, a.segment));
		rule(id, a.segment, true);
		reaudits_pass(id);
		assert!(events().iter().any(|e| matches!(e, Event::TaskCompleted { .. })));
		assert!(worth(a.verifier) < liar, "the liar loses");
		assert!(worth(10) > solver, "the honest solver is paid");
		check();
	});
}

/// A solver fakes a Threshold segment and an honest verifier fails it. A fail that stood
/// used to count only once a second verifier, drawn among the active ones, failed the
/// segment too, and a pass from the faker's partner, drawn for it, left the task
/// unverified: the faker went unslashed. The fail that stands rejects the proof.
#[test]
fn a_threshold_fakers_partner_cannot_leave_its_caught_fake_unverified() {
	new_test_ext().execute_with(|| {
		let id = verifying();
		assert!(TaskPallet::is_threshold(id));
		let a = Audits::<T>::get(id)[0].clone();
		let partner = if a.verifier == 11 { 12 } else { 11 };
		let (coalition, honest) = (worth_of(&[10, partner]), worth(a.verifier));
		fail(id, a.verifier, a.segment);
		run_to(task(id).deadline);
		// Where a second verifier were drawn, the partner is the only one left.
		if Tasks::<T>::get(id).is_some_and(|t| t.phase == Phase::Verifying) {
			pass(id, partner, a.segment);
			run_to(task(id).deadline);
		}
		assert!(!unverified(id), "the caught fake is not left unverified");
		assert!(events().iter().any(|e| matches!(e, Event::ProofRejected { solver: 10, .. })));
		assert!(worth_of(&[10, partner]) < coalition, "the coalition loses");
		assert!(worth(a.verifier) > honest, "the honest verifier is paid");
		check();
	});
}

/// One bond behind many fakes: a solver bonded with the minimum (what one rejected proof
/// is slashed) takes two tasks at once and fakes both, so that once the first fake is
/// caught and slashed its bond is gone and the second fake costs it nothing. A bond covers
/// one task per minimum bond: the second task waits, spending no draw, for a solver with
/// room, and the faker pays a full slash for the one fake it could take.
#[test]
fn one_bond_cannot_back_two_fakes_at_once() {
	new_test_ext().execute_with(|| {
		let faker = 15;
		let before = worth(faker);
		reg_bonded(faker, Role::Solver, 100);
		reg(11, Role::Verifier);
		reg(12, Role::Verifier);
		assert_ok!(TaskPallet::submit_task(RuntimeOrigin::signed(1), exact()));
		let a = last_task();
		assert_ok!(TaskPallet::submit_task(RuntimeOrigin::signed(2), exact()));
		let b = last_task();
		assert_eq!(task(a).solver, Some(faker));
		// The faker trains nothing and commits a made-up result; its audits fail it.
		assert_ok!(TaskPallet::accept_task(RuntimeOrigin::signed(faker), a));
		let n = task(a).checkpoints;
		assert_ok!(TaskPallet::submit_result(
			RuntimeOrigin::signed(faker),
			a,
			[9; 32],
			merkle::root(&leaves(n)),
			n,
			BoundedVec::default()
		));
		run_to(task(a).deadline);
		assert_eq!(task(a).phase, Phase::Verifying);
		verify_all(a, false);
		run_to(task(a).deadline - 1);
		// All along, longer than its draws would last, b waited for a solver with room.
		let t = task(b);
		assert_eq!((t.phase, t.solver, t.draws), (Phase::Queued, None, 0), "b waits, unspent");
		run_to(task(a).deadline);
		assert!(events().iter().any(
			|e| matches!(e, Event::ProofRejected { id, solver, .. } if *id == a && *solver == faker)
		));
		// An honest solver with room gets the waiting task; the faker never held it.
		reg(10, Role::Solver);
		run_to(task(b).deadline);
		assert_eq!(task(b).solver, Some(10));
		assert_eq!(worth(faker), before - 100, "a full slash for its one fake");
		check();
	});
}

/// A submitter re-rolls its profilers: it submits a Threshold task and, unless its partner
/// verifiers hold two of the three seats (two set the threshold), cancels and submits
/// again, for fees. Profilers are drawn `RandomnessDelay` blocks after the submission,
/// from randomness it does not know when it submits, and a cancel waits until every
/// drawn profiler has posted or lapsed, each posted profile paid: every re-roll costs it
/// the honest profilers' pay.
#[test]
fn a_submitter_cannot_reroll_its_profilers_for_free() {
	ExtBuilder::default().profile(4).build().execute_with(|| {
		reg(10, Role::Solver);
		for v in [11, 12, 13, 14] {
			reg(v, Role::Verifier);
		}
		let before = worth(1);
		assert_ok!(TaskPallet::submit_task(RuntimeOrigin::signed(1), spec()));
		let id = last_task();
		assert!(task(id).profilers.is_empty(), "nothing drawn to look at yet");
		// The author of the block before the draw knows it: no cancel in that block.
		run_to(task(id).deadline - 1);
		assert_noop!(
			TaskPallet::cancel_task(RuntimeOrigin::signed(1), id),
			Error::<T>::ProfilersAtWork
		);
		run_to(task(id).deadline);
		let drawn: Vec<u64> = task(id).profilers.iter().map(|p| p.who).collect();
		assert_eq!(drawn.len(), 3);
		assert_noop!(
			TaskPallet::cancel_task(RuntimeOrigin::signed(1), id),
			Error::<T>::ProfilersAtWork
		);
		// The profilers (honest, say) post; only then may the submitter cancel.
		let pay = task(id).segment_pay;
		let posts: Vec<(u64, f32)> = drawn.into_iter().map(|p| (p, 1.0)).collect();
		post_profiles(id, &posts);
		assert_ok!(TaskPallet::cancel_task(RuntimeOrigin::signed(1), id));
		assert_eq!(worth(1), before - 3 * pay, "the re-roll cost it three profiles");
		check();
	});
}

/// A verifier and its own whistleblower account end their game (a concession) in the
/// block whose beacon draws their partner to audit the voided segment again: a party
/// knows the beacon when it moves. The re-audit is drawn `RandomnessDelay` blocks after
/// the ruling: with every block up to the ruling's fixed (all a party could know), the
/// blocks after it, other authors', decide the re-auditor.
#[test]
fn no_party_to_a_game_chooses_who_audits_its_segment_again() {
	let reauditor_with = |later: u8| {
		new_test_ext().execute_with(|| {
			let id = verifying();
			for v in 14..=18 {
				reg(v, Role::Verifier);
			}
			reg(13, Role::Whistleblower);
			verify_all(id, true);
			let a = Audits::<T>::get(id)[0].clone();
			assert_ok!(TaskPallet::challenge(RuntimeOrigin::signed(13), id, a.segment));
			let ruled = System::block_number();
			// Each block brings its own randomness (a repeated value is no new randomness:
			// the draw would wait for one).
			let vrf = |b: u64| {
				let mut v = [later; 32];
				v[1] = b as u8;
				v
			};
			AUTHORED.with(|x| x.borrow_mut().extend((ruled + 1..ruled + 10).map(|b| (b, vrf(b)))));
			assert_ok!(<TaskPallet as DisputeOutcome>::resolve(id, a.segment, true));
			if task(id).phase == Phase::Challenge {
				run_to(task(id).deadline);
			}
			assert_eq!(task(id).phase, Phase::Verifying, "audited again");
			Audits::<T>::get(id).iter().find(|x| x.segment == a.segment).map(|x| x.verifier)
		})
	};
	let outcomes: std::collections::BTreeSet<_> = (1..=8).map(reauditor_with).collect();
	assert!(outcomes.len() > 1, "the ruling's block alone decided the re-auditor: {outcomes:?}");
}

/// Governance shortens the challenge period while a task's window is open; a game then
/// voids a verdict and the window reopens after its re-audit. Were the reopened window
/// as short as the new period, it would close before the block from which the round's
/// first verifiers may reveal, and each would be slashed for a reveal the chain never
/// allowed, and sooner than the window a solver or a revealing verifier was shown. It
/// ends no sooner than the window it replaces, and past that block.
#[test]
fn a_shortened_challenge_period_never_closes_a_window_before_its_reveals() {
	new_test_ext().execute_with(|| {
		// Long enough that reveals open more than `MIN_REVEAL_BLOCKS` before its end.
		PERIOD.with(|p| *p.borrow_mut() = 30);
		let id = verifying();
		verify_all(id, true);
		assert_eq!(task(id).phase, Phase::Challenge);
		let from = RevealsFrom::<T>::get(id).expect("fixed when the window opened");
		PERIOD.with(|p| *p.borrow_mut() = 1);
		let mut t = task(id);
		let shown = t.window_end;
		assert_ok!(TaskPallet::open_window(id, &mut t, System::block_number()));
		let end = t.window_end;
		assert!(
			end >= from + u64::from(MIN_REVEAL_BLOCKS),
			"the window ends at {end}, reveals from {from}"
		);
		assert!(end >= shown, "the window ends at {end}, sooner than the {shown} shown");
	});
}

/// A whistleblower keeps a task disputed with a game over an honest pass past the
/// window's end, to challenge the other honest verdict there and have the game's
/// timeout void it unplayed. The late challenge is refused; the first game is lost on
/// its merits: the griefer pays its slash, and the honest verifiers and solver are paid.
#[test]
fn a_griefer_cannot_challenge_past_the_window_under_an_earlier_games_cover() {
	new_test_ext().execute_with(|| {
		let two = spec_with(|s| s.verification.audit_fraction = SpecPermill(200_000));
		let id = verifying_with(two);
		let audits = Audits::<T>::get(id);
		assert_eq!(audits.len(), 2, "{audits:?}");
		reg(13, Role::Whistleblower);
		let honest = [10, audits[0].verifier, audits[1].verifier];
		let (griefer, others) = (worth(13), worth_of(&honest));
		verify_all(id, true);
		let end = task(id).window_end;
		assert_ok!(TaskPallet::challenge(RuntimeOrigin::signed(13), id, audits[0].segment));
		run_to(end);
		assert_eq!(task(id).phase, Phase::Disputed, "the game runs past the window");
		assert_noop!(
			TaskPallet::challenge(RuntimeOrigin::signed(13), id, audits[1].segment),
			Error::<T>::WindowClosed
		);
		rule(id, audits[0].segment, false);
		run_to(task(id).deadline);
		assert!(events().iter().any(|e| matches!(e, Event::TaskCompleted { .. })));
		assert!(worth(13) < griefer, "the griefer loses");
		assert!(worth_of(&honest) > others, "the honest parties are paid");
	});
}
