//! Settlement: payouts of a passing round, rejection of a failing one, rounds.

use super::*;

#[test]
fn all_pass_settles_paying_solver_verifier_jackpot_treasury() {
	new_test_ext().execute_with(|| {
		let id = verifying();
		let t = task(id);
		let verifier = Audits::<T>::get(id)[0].verifier;
		let before_v = Balances::free_balance(verifier);
		let before_s = Balances::free_balance(10);
		verify_all(id, true);
		assert_eq!(task(id).phase, Phase::Challenge);
		let end = task(id).deadline;
		run_to(end);
		assert!(Tasks::<T>::get(id).is_none());
		assert_eq!(Balances::free_balance(10), before_s + t.solver_pay);
		assert_eq!(Balances::free_balance(verifier), before_v + t.segment_pay);
		assert_eq!(Balances::free_balance(JACKPOT), 1 + t.jackpot_cut);
		assert_eq!(Balances::free_balance(TREASURY), 1 + t.treasury_cut);
		assert_eq!(escrow_held(1), 0);
		assert_eq!(Balances::free_balance(1), START - t.escrow);
		assert_eq!(
			pallet_gensyn_stake::Bonds::<T>::get(10, Role::Solver).unwrap().earned,
			t.solver_pay
		);
		assert!(WorkerTasks::<T>::iter().next().is_none());
		assert!(pallet_gensyn_stake::Engagements::<T>::iter().next().is_none());
	});
}

#[test]
fn a_failing_audit_slashes_the_solver_pays_verifiers_and_refunds() {
	new_test_ext().execute_with(|| {
		let id = verifying_with(exact());
		let t = task(id);
		let verifier = Audits::<T>::get(id)[0].verifier;
		let vfree = Balances::free_balance(verifier);
		let bond = Stake::bond(&10, Role::Solver);
		verify_all(id, false);
		let end = task(id).deadline;
		run_to(end);
		// No other solver: the task fails.
		assert!(Tasks::<T>::get(id).is_none());
		assert_eq!(Stake::bond(&10, Role::Solver), bond - 100);
		assert_eq!(escrow_held(1), 0);
		// The verifier was paid from the escrow, and the solver's slash paid that back
		// first: the owner is whole.
		// (Here the verdict costs more than the 100 slashed: the owner gets the slash.)
		let wasted = t.segment_pay * u64::from(t.audits);
		let back = wasted.min(100);
		assert_eq!(Balances::free_balance(1), START - (wasted - back));
		// The verifier got its pay plus the reporter's half of the rest of the slash.
		assert_eq!(Balances::free_balance(verifier), vfree + t.segment_pay + (100 - back) / 2);
		let ev = events();
		assert!(ev.contains(&Event::ProofRejected { id, solver: 10, compensated: back }));
		assert!(ev.contains(&Event::VerifiersPaid { id, paid: wasted }));
		assert!(ev
			.iter()
			.any(|e| matches!(e, Event::TaskFailed { reason: FailReason::ProofRejected, .. })));
	});
}

/// Rejects the proof of the task's current solver once its audits fail.
fn reject_current(id: TaskId) {
	verify_all(id, false);
	let end = task(id).deadline;
	run_to(end);
}

/// An Exact-mode task whose one audited segment costs less to verify than the
/// rejected-proof slash (2-step segments, one audit).
fn cheap_audit_spec() -> TaskSpec {
	spec_with(|s| {
		s.training.checkpoint_interval = 2;
		s.verification.audit_fraction = SpecPermill(1);
		s.verification.mode = VerificationMode::Exact;
	})
}

#[test]
fn a_rejected_proof_goes_to_another_solver_and_the_owner_pays_one_round() {
	new_test_ext().execute_with(|| {
		let id = verifying_with(cheap_audit_spec());
		reg(14, Role::Solver);
		let t = task(id);
		assert_eq!(t.audits, 1);
		assert!(t.segment_pay < 100, "the slash covers the audit");
		let round = t.solver_pay + t.jackpot_cut + t.treasury_cut + t.segment_pay;
		assert_eq!(t.escrow, round);
		reject_current(id);
		// Offered to the other solver with the escrow of a whole round held again.
		let t2 = task(id);
		assert_eq!(
			(t2.phase, t2.solver, t2.excluded.to_vec(), t2.rounds),
			(Phase::Offered, Some(14), vec![10], 2)
		);
		assert_eq!((t2.escrow, escrow_held(1)), (round, round));
		assert!(t2.result.is_none());
		assert!(Audits::<T>::get(id).is_empty());
		assert!(WorkerTasks::<T>::get(10, id).is_none(), "the rejected solver is let go");
		assert_eq!(Stake::bond(&10, Role::Solver), 900);
		assert!(events().contains(&Event::SolverDrawn { id, solver: 14, until: t2.deadline }));
		// The rejected solver cannot come back to it.
		assert_noop!(TaskPallet::accept_task(RuntimeOrigin::signed(10), id), Error::<T>::NotSolver);
		// The second solver's proof passes: the owner paid one round in all.
		assert_eq!(train_as_solver(id), 14);
		verify_all(id, true);
		run_to(task(id).deadline);
		assert!(Tasks::<T>::get(id).is_none());
		// The event accounts for every planck of the round's escrow.
		let parts = events().into_iter().find_map(|e| match e {
			Event::TaskCompleted {
				id: i,
				solver_paid,
				verifiers_paid,
				jackpot_paid,
				treasury_paid,
				refunded,
				..
			} if i == id => Some((solver_paid, verifiers_paid, jackpot_paid, treasury_paid, refunded)),
			_ => None,
		});
		let (solver, verifiers, jackpot, treasury, refunded) = parts.expect("TaskCompleted");
		assert_eq!((solver, jackpot, treasury), (t2.solver_pay, t2.jackpot_cut, t2.treasury_cut));
		assert_eq!(solver + verifiers + jackpot + treasury + refunded, round);
		assert_eq!(Balances::free_balance(1), START - round);
		assert_eq!(escrow_held(1), 0);
		assert_eq!(Stake::bond(&14, Role::Solver), 1_000);
	});
}

#[test]
fn a_task_fails_once_its_rounds_are_spent() {
	new_test_ext().execute_with(|| {
		let id = verifying_with(cheap_audit_spec());
		reg(14, Role::Solver);
		reject_current(id);
		// Round 2 (the mock's last) is rejected too: failed, the owner whole again.
		assert_eq!(train_as_solver(id), 14);
		reject_current(id);
		assert!(Tasks::<T>::get(id).is_none());
		assert_eq!(Balances::free_balance(1), START);
		assert_eq!(escrow_held(1), 0);
		assert_eq!((Stake::bond(&10, Role::Solver), Stake::bond(&14, Role::Solver)), (900, 900));
		let rejected = events().iter().filter(|e| matches!(e, Event::ProofRejected { .. })).count();
		assert_eq!(rejected, 2);
		assert!(events()
			.iter()
			.any(|e| matches!(e, Event::TaskFailed { reason: FailReason::ProofRejected, .. })));
	});
}

/// A Threshold fail that stands through the window rejects the proof as an Exact one
/// does: nothing is audited again, the solver is slashed, and the verifier is paid its
/// verdict and, as the reporter, its share of what the slash leaves once the owner is
/// made whole.
#[test]
fn a_threshold_fail_that_stands_rejects_the_proof_and_pays_its_reporter() {
	new_test_ext().execute_with(|| {
		// Short segments: a verdict's pay is below the slash, so a reporter's share is left.
		let id = verifying_with(spec_with(|s| {
			s.training.checkpoint_interval = 2;
			s.verification.audit_fraction = SpecPermill(1);
		}));
		assert!(TaskPallet::is_threshold(id));
		let t = task(id);
		let verifier = Audits::<T>::get(id)[0].verifier;
		let (v, sb) = (worth(verifier), Stake::bond(&10, Role::Solver));
		verify_all(id, false);
		run_to(task(id).deadline);
		assert!(events().iter().any(|e| matches!(e, Event::ProofRejected { solver: 10, .. })));
		assert!(!events().iter().any(|e| matches!(e, Event::Reaudited { .. })), "no second look");
		assert_eq!(Stake::bond(&10, Role::Solver), sb - 100);
		let wasted = t.segment_pay * u64::from(t.audits);
		let back = wasted.min(100);
		assert!(back < 100, "a share is left for the reporter");
		assert_eq!(worth(verifier), v + wasted + (100 - back) / 2, "its pay and its share");
		check();
	});
}

/// A Threshold task's escrow is one round (the solver's pay, the cuts, a verdict per
/// audit) and its profiles: a fail that stands is never audited again, so nothing is
/// held for a second verdict, even where every segment is audited.
#[test]
fn a_threshold_task_holds_one_round_and_its_profiles() {
	new_test_ext().execute_with(|| {
		let all = spec_with(|s| {
			s.verification.audit_fraction = SpecPermill(1_000_000);
			s.training.checkpoint_interval = 100;
		});
		reg(10, Role::Solver);
		let q = TaskPallet::quote(&all).unwrap();
		let unpaid = q.solver_pay + q.jackpot_cut + q.treasury_cut;
		let verdicts = q.segment_pay * u64::from(q.audits);
		assert!(verdicts > unpaid, "a second verdict on each would not fit in the pay");
		assert_eq!(q.escrow, unpaid + verdicts + q.segment_pay * u64::from(q.profiles));
		let id = verifying_with(all);
		assert_eq!(task(id).escrow, q.escrow);
		verify_all(id, false);
		run_to(task(id).deadline);
		assert!(events().contains(&Event::VerifiersPaid { id, paid: verdicts }));
		assert!(events().iter().any(|e| matches!(e, Event::ProofRejected { solver: 10, .. })));
		check();
	});
}
