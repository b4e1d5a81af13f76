//! Reports of an unavailable proof store and their re-audits, on tasks whose state a
//! demand can no longer ask for (submitted under a larger bound than the chain's now):
//! nothing is demanded, and the re-audits alone check a report, a second report
//! rejecting the proof. `reports.rs` plays reports whose checkpoints the chain demands.

use super::*;

/// Lowers the bound on a demanded state under every task submitted so far.
pub(super) fn unpublishable() {
	PUBLISH_BYTES.with(|b| *b.borrow_mut() = 0);
}

#[test]
fn report_unavailable_errors() {
	new_test_ext().execute_with(|| {
		let id = verifying();
		let a = Audits::<T>::get(id)[0].clone();
		let other = if a.verifier == 11 { 12 } else { 11 };
		let report = |who: u64, id: TaskId, segment: u32| {
			TaskPallet::report_unavailable(RuntimeOrigin::signed(who), id, segment)
		};
		assert_noop!(
			TaskPallet::report_unavailable(RuntimeOrigin::none(), id, a.segment),
			sp_runtime::DispatchError::BadOrigin
		);
		assert_noop!(report(a.verifier, id + 1, a.segment), Error::<T>::UnknownTask);
		assert_noop!(report(a.verifier, id, 999), Error::<T>::UnknownSegment);
		assert_noop!(report(other, id, a.segment), Error::<T>::NotVerifier);
		assert_ok!(report(a.verifier, id, a.segment));
		// Reported: the window is open, the segment neither reportable nor verifiable now.
		assert_noop!(report(a.verifier, id, a.segment), Error::<T>::WrongPhase);
		assert_noop!(
			TaskPallet::challenge(RuntimeOrigin::signed(10), id, a.segment),
			Error::<T>::NoVerdict
		);
		assert!(!Audits::<T>::get(id)[0].awaits_verdict());
		check();
	});
	new_test_ext().execute_with(|| {
		// Two audits: one verdict posted, then its verifier cannot take it back.
		let two = spec_with(|s| s.verification.audit_fraction = SpecPermill(200_000));
		let id = verifying_with(two);
		let a = Audits::<T>::get(id)[0].clone();
		let p = proof_for(task(id).checkpoints, a.segment);
		let h = p.checkpoint_hash;
		let v = RuntimeOrigin::signed(a.verifier);
		assert_ok!(TaskPallet::submit_verification(v.clone(), id, a.segment, 0, h, p));
		assert_noop!(TaskPallet::report_unavailable(v, id, a.segment), Error::<T>::AlreadyVerified);
	});
}

/// A task of two audits (by 11 and 12, the only verifiers) in its Verifying phase, and
/// the two audits.
fn verifying_two() -> (TaskId, Audit<u64>, Audit<u64>) {
	let two = spec_with(|s| s.verification.audit_fraction = SpecPermill(200_000));
	let id = verifying_with(two);
	unpublishable();
	let audits = Audits::<T>::get(id);
	assert_eq!(audits.len(), 2);
	(id, audits[0].clone(), audits[1].clone())
}

/// A task with one audit whose verifier reports the solver's store unavailable; with
/// `spare` the verifier that was not drawn stays active (a possible re-auditor), else it
/// unbonds first. Returns the task, the reporter and the other verifier.
fn reported_unavailable(spare: bool) -> (TaskId, u64, u64) {
	let id = verifying();
	unpublishable();
	let a = Audits::<T>::get(id)[0].clone();
	assert_eq!(Audits::<T>::get(id).len(), 1);
	let other = if a.verifier == 11 { 12 } else { 11 };
	if !spare {
		assert_ok!(Stake::unbond(RuntimeOrigin::signed(other), Role::Verifier));
	}
	unpublishable();
	assert_ok!(TaskPallet::report_unavailable(RuntimeOrigin::signed(a.verifier), id, a.segment));
	assert!(events().contains(&Event::StoreUnavailable {
		id,
		segment: a.segment,
		verifier: a.verifier
	}));
	assert_eq!(task(id).phase, Phase::Challenge, "the only audit is done: the window opens");
	assert!(!TaskPallet::duties(&a.verifier).iter().any(|d| matches!(d, Duty::Verify { .. })));
	(id, a.verifier, other)
}

#[test]
fn a_store_reported_unavailable_twice_rejects_the_solver_and_nobody_else_pays() {
	new_test_ext().execute_with(|| {
		let (id, reporter, other) = reported_unavailable(true);
		let balances = |w: &[u64]| -> Vec<(u64, u64)> {
			w.iter().map(|a| (Balances::free_balance(a), Stake::bond(a, Role::Verifier))).collect()
		};
		let before = balances(&[reporter, other]);
		let (sb, owner) = (Stake::bond(&10, Role::Solver), Balances::free_balance(1));
		let escrow = task(id).escrow;
		run_to(task(id).deadline);
		// The segment goes to the verifier never bound to the task; the reporter is let go.
		let a = Audits::<T>::get(id)[0].clone();
		assert_eq!(
			(a.verifier, a.reaudits, a.unavailable, a.reported_before),
			(other, 1, false, true)
		);
		assert_eq!(task(id).phase, Phase::Verifying);
		assert_eq!(Replaced::<T>::get(id).into_inner(), vec![reporter]);
		assert!(WorkerTasks::<T>::get(reporter, id).is_none());
		// A spare verifier is never drawn after the second report: it is final.
		reg(14, Role::Verifier);
		unpublishable();
		assert_ok!(TaskPallet::report_unavailable(RuntimeOrigin::signed(other), id, a.segment));
		run_to(task(id).deadline);
		// Two verifiers drawn independently could not fetch the proof: rejected, and with
		// no other solver the task fails and the escrow comes back whole.
		assert!(events().iter().any(|e| matches!(e, Event::ProofRejected { .. })));
		assert!(events().contains(&Event::TaskFailed {
			id,
			reason: FailReason::ProofRejected,
			refunded: escrow
		}));
		assert_eq!(Stake::bond(&10, Role::Solver), sb - 100);
		assert_eq!(Balances::free_balance(1), owner + escrow);
		assert_eq!(balances(&[reporter, other]), before, "reporters neither paid nor slashed");
		assert_eq!(events().iter().filter(|e| matches!(e, Event::Reaudited { .. })).count(), 1);
		assert!(Tasks::<T>::get(id).is_none() && Replaced::<T>::get(id).is_empty());
	});
}

#[test]
fn a_report_no_verifier_can_check_again_fails_the_task_unpaid_unslashed_and_refunded() {
	new_test_ext().execute_with(|| {
		let (id, reporter, _) = reported_unavailable(false);
		let (sb, vb, vfree) = (
			Stake::bond(&10, Role::Solver),
			Stake::bond(&reporter, Role::Verifier),
			Balances::free_balance(reporter),
		);
		let t = task(id);
		let (solver, owner) = (Balances::free_balance(10), Balances::free_balance(1));
		run_to(t.deadline);
		assert!(!events().iter().any(|e| matches!(e, Event::Reaudited { .. })));
		assert!(events().contains(&Event::TaskFailed {
			id,
			reason: FailReason::Unverified,
			refunded: t.escrow
		}));
		assert_eq!(Balances::free_balance(1), owner + t.escrow);
		assert_eq!((Balances::free_balance(10), Stake::bond(&10, Role::Solver)), (solver, sb));
		assert_eq!(
			(Stake::bond(&reporter, Role::Verifier), Balances::free_balance(reporter)),
			(vb, vfree),
			"the report is neither paid nor slashed"
		);
	});
}

#[test]
fn a_report_on_the_reaudit_of_a_voided_verdict_is_a_first_report_not_a_rejection() {
	new_test_ext().execute_with(|| {
		// The first verifier fetched the proof (it posted a verdict, since refuted); the
		// re-auditor's report is one verifier's word: the solver is not rejected.
		let (id, _) = overturned_pass(VerificationMode::Threshold, true);
		unpublishable();
		let a = Audits::<T>::get(id)[0].clone();
		assert!(a.reaudits == 1 && !a.reported_before);
		let sb = Stake::bond(&10, Role::Solver);
		unpublishable();
		assert_ok!(TaskPallet::report_unavailable(
			RuntimeOrigin::signed(a.verifier),
			id,
			a.segment
		));
		run_to(task(id).deadline);
		assert!(!events().iter().any(|e| matches!(e, Event::ProofRejected { .. })));
		assert!(events()
			.iter()
			.any(|e| matches!(e, Event::TaskFailed { reason: FailReason::Unverified, .. })));
		assert_eq!(Stake::bond(&10, Role::Solver), sb);
	});
}

#[test]
fn a_report_survives_a_missed_verdict_whose_silent_verifier_is_not_drawn_to_recheck_it() {
	new_test_ext().execute_with(|| {
		// Two audits by 11 and 12: one reports, the other posts nothing.
		let (id, r, m) = verifying_two();
		assert_ne!(r.verifier, m.verifier);
		unpublishable();
		assert_ok!(TaskPallet::report_unavailable(
			RuntimeOrigin::signed(r.verifier),
			id,
			r.segment
		));
		assert_eq!(task(id).phase, Phase::Verifying, "one audit still awaits its verdict");
		let (rb, mb) =
			(Stake::bond(&r.verifier, Role::Verifier), Stake::bond(&m.verifier, Role::Verifier));
		run_to(task(id).deadline);
		assert_eq!(Stake::bond(&m.verifier, Role::Verifier), mb - 20, "missed verdict");
		assert_eq!(Stake::bond(&r.verifier, Role::Verifier), rb, "a report is not a miss");
		let left = Audits::<T>::get(id);
		assert_eq!(left.len(), 2, "the silent verifier's segment stays, void");
		let report = left.iter().find(|a| a.segment == r.segment).expect("the report");
		assert!(report.unavailable && report.verifier == r.verifier);
		let silent = left.iter().find(|a| a.segment == m.segment).expect("the silent one");
		assert!(silent.overturned && silent.verdict.is_none());
		assert_eq!(task(id).phase, Phase::Challenge);
		// The silent verifier is the only other one, yet it is not drawn to re-audit
		// the report: the report stays unchecked and the task fails unverified.
		let escrow = task(id).escrow;
		run_to(task(id).deadline);
		assert!(!events().iter().any(|e| matches!(e, Event::Reaudited { .. })));
		assert!(events().contains(&Event::TaskFailed {
			id,
			reason: FailReason::Unverified,
			refunded: escrow
		}));
		check();
	});
}

#[test]
fn a_silent_verifier_never_takes_the_room_a_reaudit_needs_in_replaced() {
	new_test_ext().execute_with(|| {
		let (id, r, m) = verifying_two();
		// Replaced one short of full (8 in the mock): the report's two re-audits may
		// still need room.
		let filler: Vec<u64> = (100..107).collect();
		Replaced::<T>::insert(id, BoundedVec::try_from(filler).unwrap());
		unpublishable();
		assert_ok!(TaskPallet::report_unavailable(
			RuntimeOrigin::signed(r.verifier),
			id,
			r.segment
		));
		run_to(task(id).deadline);
		assert!(!Replaced::<T>::get(id).contains(&m.verifier), "no room left to spare");
		assert_eq!(Replaced::<T>::get(id).len(), 7);
		reg(14, Role::Verifier);
		run_to(task(id).deadline);
		assert!(events().iter().any(|e| matches!(e, Event::Reaudited { .. })));
		assert!(Replaced::<T>::get(id).contains(&r.verifier), "the reporter is taken off");
		check();
	});
}

#[test]
fn a_silent_reauditor_of_a_reported_segment_is_slashed_and_the_report_stands() {
	new_test_ext().execute_with(|| {
		let (id, _, other) = reported_unavailable(true);
		let t = task(id);
		let (sb, solver, owner) =
			(Stake::bond(&10, Role::Solver), Balances::free_balance(10), Balances::free_balance(1));
		run_to(t.deadline);
		let a = Audits::<T>::get(id)[0].clone();
		assert_eq!((a.verifier, a.reported_before), (other, true), "re-audited by the spare");
		let ob = Stake::bond(&other, Role::Verifier);
		// The re-auditor posts nothing: it is slashed, and the first report is not lost.
		run_to(task(id).deadline);
		assert_eq!(Stake::bond(&other, Role::Verifier), ob - 20, "missed verdict");
		let a = Audits::<T>::get(id)[0].clone();
		assert_eq!((a.unavailable, a.reported_before, a.reaudits), (true, false, 1));
		assert!(events().contains(&Event::ReportStands { id, segment: a.segment }));
		assert_eq!(task(id).phase, Phase::Challenge);
		// A verifier registered since is drawn to check the report at settlement; it is
		// silent too, and the segment has no re-audit left (two in the mock).
		reg(14, Role::Verifier);
		run_to(task(id).deadline);
		let a = Audits::<T>::get(id)[0].clone();
		assert_eq!((a.verifier, a.reaudits, a.reported_before), (14, 2, true));
		assert_eq!(task(id).phase, Phase::Verifying);
		reg(15, Role::Verifier);
		run_to(task(id).deadline);
		assert_eq!(Stake::bond(&14, Role::Verifier), 500 - 20, "missed verdict");
		run_to(task(id).deadline);
		assert_eq!(events().iter().filter(|e| matches!(e, Event::Reaudited { .. })).count(), 2);
		assert!(!events().contains(&Event::Reaudited { id, segment: a.segment, verifier: 15 }));
		assert!(events().contains(&Event::TaskFailed {
			id,
			reason: FailReason::Unverified,
			refunded: t.escrow
		}));
		assert_eq!((Balances::free_balance(10), Stake::bond(&10, Role::Solver)), (solver, sb));
		assert_eq!(Balances::free_balance(1), owner + t.escrow);
		assert!(WorkerTasks::<T>::iter().next().is_none());
		check();
	});
}

#[test]
fn a_reaudit_verdict_left_unrevealed_is_slashed_once_and_another_verifier_checks_the_report() {
	new_test_ext().execute_with(|| {
		let id = verifying_by(sp_runtime::Perbill::zero(), spec(), &[11, 12, 14]);
		let first = Audits::<T>::get(id)[0].clone();
		unpublishable();
		assert_ok!(TaskPallet::report_unavailable(
			RuntimeOrigin::signed(first.verifier),
			id,
			first.segment
		));
		let t = task(id);
		let (solver, sb) = (Balances::free_balance(10), Stake::bond(&10, Role::Solver));
		run_to(t.deadline);
		let b = Audits::<T>::get(id)[0].clone();
		assert_eq!((b.reaudits, b.reported_before), (1, true));
		// The re-auditor passes the segment but never reveals its secret: its verdict
		// cannot be trusted, so it does not check the report.
		verify_all(id, true);
		let bb = Stake::bond(&b.verifier, Role::Verifier);
		run_to(task(id).deadline);
		let reveal_slash: u64 = <<T as Config>::MissedRevealSlash as Get<u64>>::get();
		assert_eq!(Stake::bond(&b.verifier, Role::Verifier), bb - reveal_slash);
		assert!(events().contains(&Event::ReportStands { id, segment: b.segment }));
		let c = Audits::<T>::get(id)[0].clone();
		assert_eq!((c.reaudits, c.reported_before, c.verdict), (2, true, None));
		assert!(c.verifier != first.verifier && c.verifier != b.verifier);
		assert_eq!(task(id).phase, Phase::Verifying);
		// The third verifier checks it honestly: the solver is paid in full.
		verify_all(id, true);
		reveal(c.verifier, id);
		run_to(task(id).deadline);
		assert!(events().iter().any(|e| matches!(
			e,
			Event::TaskCompleted { id: i, solver_paid, .. } if *i == id && *solver_paid == t.solver_pay
		)));
		assert_eq!(Balances::free_balance(10), solver + t.solver_pay);
		assert_eq!(Stake::bond(&10, Role::Solver), sb);
		assert_eq!(Stake::bond(&b.verifier, Role::Verifier), bb - reveal_slash, "slashed once");
		check();
	});
}

#[test]
fn a_reaudit_of_a_report_is_never_forced_so_its_honest_pass_checks_the_report() {
	new_test_ext().execute_with(|| {
		let id = verifying_by(sp_runtime::Perbill::zero(), spec(), &[11, 12, 14]);
		let first = Audits::<T>::get(id)[0].clone();
		unpublishable();
		assert_ok!(TaskPallet::report_unavailable(
			RuntimeOrigin::signed(first.verifier),
			id,
			first.segment
		));
		// Every secret bound from now on forces every segment.
		use_jackpot(sp_runtime::Perbill::one());
		let t = task(id);
		let (solver, sb) = (Balances::free_balance(10), Stake::bond(&10, Role::Solver));
		run_to(t.deadline);
		let b = Audits::<T>::get(id)[0].clone();
		assert_eq!((b.reaudits, b.reported_before), (1, true));
		let by = task(id).deadline;
		let duty = Duty::Verify { task: id, segment: b.segment, by, forcible: false };
		assert!(TaskPallet::duties(&b.verifier).contains(&duty));
		// The re-auditor checks the report honestly (a pass), though its secret would
		// force the segment anywhere else.
		verify_all(id, true);
		reveal(b.verifier, id);
		assert_eq!(
			<JackpotPallet as pallet_gensyn_jackpot::ForcedErrors<u64, u64>>::forced(
				&b.verifier,
				id,
				b.segment
			),
			Some(true)
		);
		let (bb, vb) =
			(Stake::bond(&b.verifier, Role::Verifier), Balances::free_balance(b.verifier));
		run_to(task(id).deadline);
		assert!(!events().iter().any(|e| matches!(e, Event::ReportStands { .. })));
		assert!(events().iter().any(|e| matches!(
			e,
			Event::TaskCompleted { id: i, solver_paid, .. } if *i == id && *solver_paid == t.solver_pay
		)));
		assert_eq!(
			(Balances::free_balance(10), Stake::bond(&10, Role::Solver)),
			(solver + t.solver_pay, sb)
		);
		assert_eq!(
			Stake::bond(&b.verifier, Role::Verifier),
			bb,
			"an honest re-audit is not slashed"
		);
		assert_eq!(Balances::free_balance(b.verifier), vb + t.segment_pay);
		check();
	});
}

#[test]
fn an_unchecked_report_beside_a_passing_verdict_leaves_the_solver_unpaid() {
	new_test_ext().execute_with(|| {
		// Two audits by 11 and 12, the only verifiers: no one is left to re-audit.
		let (id, r, p) = verifying_two();
		let t = task(id);
		let (solver, pb) = (Balances::free_balance(10), Balances::free_balance(p.verifier));
		unpublishable();
		assert_ok!(TaskPallet::report_unavailable(
			RuntimeOrigin::signed(r.verifier),
			id,
			r.segment
		));
		let proof = proof_for(t.checkpoints, p.segment);
		let h = proof.checkpoint_hash;
		assert_ok!(TaskPallet::submit_verification(
			RuntimeOrigin::signed(p.verifier),
			id,
			p.segment,
			0,
			h,
			proof
		));
		run_to(task(id).deadline);
		assert!(!events().iter().any(|e| matches!(e, Event::Reaudited { .. })));
		let failed = events().into_iter().find_map(|e| match e {
			Event::TaskFailed { id: i, reason, refunded } if i == id => Some((reason, refunded)),
			_ => None,
		});
		// The passing verdict is paid; the solver is not: one segment went unverified.
		assert_eq!(failed, Some((FailReason::Unverified, t.escrow - t.segment_pay)));
		assert_eq!(Balances::free_balance(p.verifier), pb + t.segment_pay);
		assert_eq!(Balances::free_balance(10), solver);
		check();
	});
}

#[test]
fn a_reaudit_verdict_that_does_not_hold_leaves_the_report_unchecked() {
	new_test_ext().execute_with(|| {
		let (id, _, other) = reported_unavailable(true);
		Specs::<T>::mutate(id, |s| {
			if let Some(s) = s {
				s.verification.mode = VerificationMode::Threshold;
			}
		});
		let t = task(id);
		let (sb, solver) = (Stake::bond(&10, Role::Solver), Balances::free_balance(10));
		run_to(t.deadline);
		let a = Audits::<T>::get(id)[0].clone();
		assert_eq!((a.verifier, a.reported_before), (other, true));
		// The re-auditor passes the segment and a whistleblower refutes its replay: the
		// verdict is void, so the first report was never checked.
		reg(13, Role::Whistleblower);
		verify_all(id, true);
		assert_ok!(TaskPallet::challenge(RuntimeOrigin::signed(13), id, a.segment));
		rule(id, a.segment, true);
		let a = Audits::<T>::get(id)[0].clone();
		assert_eq!((a.verdict, a.overturned), (None, true));
		run_to(task(id).deadline);
		assert!(events().contains(&Event::TaskFailed {
			id,
			reason: FailReason::Unverified,
			refunded: t.escrow
		}));
		assert!(!events().iter().any(|e| matches!(e, Event::TaskCompleted { .. })));
		assert_eq!((Balances::free_balance(10), Stake::bond(&10, Role::Solver)), (solver, sb));
		check();
	});
}

#[test]
fn a_report_outlives_a_refuted_reaudit_so_the_next_report_rejects_the_proof() {
	new_test_ext().execute_with(|| {
		let (id, _, other) = reported_unavailable(true);
		Specs::<T>::mutate(id, |s| {
			if let Some(s) = s {
				s.verification.mode = VerificationMode::Threshold;
			}
		});
		let sb = Stake::bond(&10, Role::Solver);
		run_to(task(id).deadline);
		let a = Audits::<T>::get(id)[0].clone();
		assert_eq!((a.verifier, a.reported_before), (other, true));
		// The re-auditor's pass is refuted; the next verifier drawn still checks the
		// first report, so its own report is the second one.
		reg(13, Role::Whistleblower);
		reg(14, Role::Verifier);
		verify_all(id, true);
		assert_ok!(TaskPallet::challenge(RuntimeOrigin::signed(13), id, a.segment));
		rule(id, a.segment, true);
		let a = Audits::<T>::get(id)[0].clone();
		assert_eq!((a.verifier, a.reaudits, a.reported_before), (14, 2, true));
		unpublishable();
		assert_ok!(TaskPallet::report_unavailable(RuntimeOrigin::signed(14), id, a.segment));
		run_to(task(id).deadline);
		assert!(events().iter().any(|e| matches!(e, Event::ProofRejected { .. })));
		assert_eq!(Stake::bond(&10, Role::Solver), sb - 100);
		check();
	});
}

#[test]
fn a_report_whose_reaudit_a_game_voided_survives_a_later_verifying_deadline() {
	new_test_ext().execute_with(|| {
		// Three audits: 11 and 12 dealt in turn.
		let three = spec_with(|s| {
			s.verification.audit_fraction = SpecPermill(300_000);
			s.verification.mode = VerificationMode::Threshold;
		});
		let id = verifying_with(three);
		unpublishable();
		let audits = Audits::<T>::get(id);
		assert_eq!(audits.len(), 3);
		let (s0, s1, s2) = (audits[0].clone(), audits[1].clone(), audits[2].clone());
		assert_eq!(s0.verifier, s2.verifier);
		unpublishable();
		assert_ok!(TaskPallet::report_unavailable(
			RuntimeOrigin::signed(s1.verifier),
			id,
			s1.segment
		));
		pass(id, s0.verifier, s0.segment);
		pass(id, s2.verifier, s2.segment);
		reg(14, Role::Verifier);
		run_to(task(id).deadline);
		assert_eq!(Audits::<T>::get(id)[1].verifier, 14, "the report goes to the spare");
		pass(id, 14, s1.segment);
		// Both the re-audit of the report and the first pass are refuted; one new verifier
		// comes, and the first voided segment in order takes it.
		reg(13, Role::Whistleblower);
		reg(16, Role::Whistleblower);
		assert_ok!(TaskPallet::challenge(RuntimeOrigin::signed(13), id, s1.segment));
		assert_ok!(TaskPallet::challenge(RuntimeOrigin::signed(16), id, s0.segment));
		rule(id, s1.segment, true);
		reg(15, Role::Verifier);
		rule(id, s0.segment, true);
		let now = Audits::<T>::get(id);
		assert_eq!((now[0].verifier, now[0].reaudits), (15, 1));
		assert!(now[1].overturned && now[1].reported_before && now[1].verdict.is_none());
		assert_eq!(task(id).phase, Phase::Verifying);
		// 15 stays silent: its audit is dropped, but the report on s1 is not.
		run_to(task(id).deadline);
		assert!(events().contains(&Event::ReportStands { id, segment: s1.segment }));
		let left = Audits::<T>::get(id);
		assert!(left.iter().any(|a| a.segment == s1.segment && a.unavailable));
		let solver = Balances::free_balance(10);
		// The report is re-audited while a verifier and a re-audit are left (15 again,
		// silent again), then settles unverified.
		for _ in 0..6 {
			if let Some(t) = Tasks::<T>::get(id) {
				run_to(t.deadline);
			}
		}
		assert!(Tasks::<T>::get(id).is_none());
		assert!(events()
			.iter()
			.any(|e| matches!(e, Event::TaskFailed { reason: FailReason::Unverified, .. })));
		assert_eq!(Balances::free_balance(10), solver, "the solver is not paid");
		check();
	});
}
