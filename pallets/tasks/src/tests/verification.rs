//! Verification: the verifier draw, verdicts and their errors, missed verdicts.

use super::*;

#[test]
fn verifiers_are_drawn_after_the_commit_never_the_solver() {
	new_test_ext().execute_with(|| {
		let id = committed();
		// The solver is also a verifier: it must never audit itself.
		reg(10, Role::Verifier);
		run_to(3);
		let audits = Audits::<T>::get(id);
		assert_eq!(audits.len(), 1);
		assert!(audits.iter().all(|a| a.verifier != 10 && a.segment < 7));
		assert_eq!(task(id).phase, Phase::Verifying);
		assert_eq!(task(id).deadline, 13);
		check();
	});
}

/// The only verifier leaves once the solver has committed: the draw waits, and after
/// `MaxDraws` draws the task fails `NoVerifier`, the solver neither paid nor slashed and
/// the escrow refunded.
#[test]
fn verifier_draw_waits_while_no_verifier_then_fails_without_slashing() {
	new_test_ext().execute_with(|| {
		let id = submitted();
		assert_ok!(TaskPallet::accept_task(RuntimeOrigin::signed(10), id));
		let n = task(id).checkpoints;
		assert_ok!(TaskPallet::submit_result(
			RuntimeOrigin::signed(10),
			id,
			[0; 32],
			[0; 32],
			n,
			BoundedVec::default()
		));
		assert_ok!(Stake::unbond(RuntimeOrigin::signed(11), Role::Verifier));
		let bond = Stake::bond(&10, Role::Solver);
		run_to(30);
		assert!(Tasks::<T>::get(id).is_none());
		assert!(events()
			.iter()
			.any(|e| matches!(e, Event::TaskFailed { reason: FailReason::NoVerifier, .. })));
		assert_eq!(Stake::bond(&10, Role::Solver), bond);
		assert_eq!(escrow_held(1), 0);
		check();
	});
}

/// No solver is drawn while no verifier other than itself could check its result: the
/// task waits, and fails `NoVerifier` after `MaxDraws` draws with nobody having trained
/// and the escrow refunded in full. A verifier registering in time lets it go on.
#[test]
fn no_solver_is_drawn_while_no_other_verifier_could_check_it() {
	new_test_ext().execute_with(|| {
		// The solver is the only verifier: it cannot check its own result.
		reg(10, Role::Solver);
		reg(10, Role::Verifier);
		let before = Balances::total_balance(&1);
		assert_ok!(TaskPallet::submit_task(RuntimeOrigin::signed(1), spec()));
		let id = last_task();
		assert_eq!(task(id).phase, Phase::Queued);
		assert_noop!(
			TaskPallet::accept_task(RuntimeOrigin::signed(10), id),
			Error::<T>::WrongPhase
		);
		run_to(30);
		assert!(Tasks::<T>::get(id).is_none());
		let evs = events();
		assert!(!evs.iter().any(|e| matches!(e, Event::SolverDrawn { .. })));
		assert!(evs
			.iter()
			.any(|e| matches!(e, Event::TaskFailed { reason: FailReason::NoVerifier, .. })));
		assert_eq!(Balances::total_balance(&1), before, "refunded in full");

		assert_ok!(TaskPallet::submit_task(RuntimeOrigin::signed(1), spec()));
		let id = last_task();
		assert_eq!(task(id).phase, Phase::Queued);
		reg(11, Role::Verifier);
		let d = task(id).deadline;
		run_to(d);
		assert_eq!(task(id).phase, Phase::Offered);
		assert_eq!(task(id).solver, Some(10));
		check();
	});
}

#[test]
fn submit_verification_errors() {
	new_test_ext().execute_with(|| {
		let id = committed();
		let p = proof_for(8, 0);
		assert_noop!(
			TaskPallet::submit_verification(
				RuntimeOrigin::signed(11),
				id,
				0,
				0,
				[0; 32],
				p.clone()
			),
			Error::<T>::WrongPhase
		);
		run_to(3);
		let a = Audits::<T>::get(id)[0].clone();
		let other = if a.verifier == 11 { 12 } else { 11 };
		let p = proof_for(8, a.segment);
		assert_noop!(
			TaskPallet::submit_verification(
				RuntimeOrigin::signed(other),
				id,
				a.segment,
				0,
				[0; 32],
				p.clone()
			),
			Error::<T>::NotVerifier
		);
		let wrong = (a.segment + 1) % 7;
		assert_noop!(
			TaskPallet::submit_verification(
				RuntimeOrigin::signed(a.verifier),
				id,
				wrong,
				0,
				[0; 32],
				p.clone()
			),
			Error::<T>::UnknownSegment
		);
		let mut bad = p.clone();
		bad.checkpoint_hash = [0x55; 32];
		assert_noop!(
			TaskPallet::submit_verification(
				RuntimeOrigin::signed(a.verifier),
				id,
				a.segment,
				0,
				[0; 32],
				bad
			),
			Error::<T>::BadCheckpointProof
		);
		assert_noop!(
			TaskPallet::submit_verification(
				RuntimeOrigin::none(),
				id,
				a.segment,
				0,
				[0; 32],
				p.clone()
			),
			sp_runtime::DispatchError::BadOrigin
		);
		assert_noop!(
			TaskPallet::submit_verification(
				RuntimeOrigin::signed(a.verifier),
				42,
				a.segment,
				0,
				[0; 32],
				p.clone()
			),
			Error::<T>::UnknownTask
		);
		// Threshold mode: a distance of 0 passes even with a different replay hash.
		assert_ok!(TaskPallet::submit_verification(
			RuntimeOrigin::signed(a.verifier),
			id,
			a.segment,
			0,
			[0; 32],
			p.clone()
		));
		assert!(Audits::<T>::get(id)[0].verdict.unwrap().pass);
		assert_noop!(
			TaskPallet::submit_verification(
				RuntimeOrigin::signed(a.verifier),
				id,
				a.segment,
				0,
				[0; 32],
				p
			),
			Error::<T>::WrongPhase
		);
	});
}

#[test]
fn threshold_mode_fails_far_or_nan_distances_exact_mode_compares_hashes() {
	new_test_ext().execute_with(|| {
		reg(10, Role::Solver);
		reg(11, Role::Verifier);
		let exact = spec_with(|s| {
			s.verification.mode = VerificationMode::Exact;
			s.verification.audit_fraction = SpecPermill(1_000_000);
		});
		assert_ok!(TaskPallet::submit_task(RuntimeOrigin::signed(1), exact));
		let id = last_task();
		assert_ok!(TaskPallet::accept_task(RuntimeOrigin::signed(10), id));
		let root = merkle::root(&leaves(8));
		assert_ok!(TaskPallet::submit_result(
			RuntimeOrigin::signed(10),
			id,
			[0; 32],
			root,
			8,
			BoundedVec::default()
		));
		run_to(3);
		let audits = Audits::<T>::get(id);
		assert_eq!(audits.len(), 4, "all 7 segments wanted, capped at 4");
		let mut segs: Vec<u32> = audits.iter().map(|a| a.segment).collect();
		segs.sort();
		segs.dedup();
		assert_eq!(segs.len(), 4, "distinct segments");
		// Exact: equal hashes pass whatever the distance; a different hash fails.
		let a0 = audits[0].segment;
		let p0 = proof_for(8, a0);
		assert_ok!(TaskPallet::submit_verification(
			RuntimeOrigin::signed(11),
			id,
			a0,
			0x7fc0_0000,
			p0.checkpoint_hash,
			p0
		));
		let a1 = audits[1].segment;
		assert_ok!(TaskPallet::submit_verification(
			RuntimeOrigin::signed(11),
			id,
			a1,
			0,
			[1; 32],
			proof_for(8, a1)
		));
		let v = Audits::<T>::get(id);
		assert!(v[0].verdict.unwrap().pass);
		assert!(!v[1].verdict.unwrap().pass);
	});
}

#[test]
fn missed_verdicts_are_slashed_and_redrawn() {
	new_test_ext().execute_with(|| {
		let id = verifying();
		let v = Audits::<T>::get(id)[0].verifier;
		let bond = Stake::bond(&v, Role::Verifier);
		run_to(13);
		assert_eq!(Stake::bond(&v, Role::Verifier), bond - 20);
		// Nobody verified: a new draw.
		assert_eq!(task(id).phase, Phase::Verifying);
		assert_eq!(task(id).deadline, 23);
		// Again nobody: eventually the draws run out and the task fails, solver unslashed.
		let sb = Stake::bond(&10, Role::Solver);
		run_to(60);
		assert!(Tasks::<T>::get(id).is_none());
		assert_eq!(Stake::bond(&10, Role::Solver), sb);
		assert_eq!(escrow_held(1), 0);
	});
}

#[test]
fn partial_verdicts_leave_the_silent_segments_unverified_and_the_solver_unpaid() {
	new_test_ext().execute_with(|| {
		reg(10, Role::Solver);
		reg(11, Role::Verifier);
		reg(12, Role::Verifier);
		let s = spec_with(|s| s.verification.audit_fraction = SpecPermill(1_000_000));
		assert_ok!(TaskPallet::submit_task(RuntimeOrigin::signed(1), s));
		let id = last_task();
		assert_ok!(TaskPallet::accept_task(RuntimeOrigin::signed(10), id));
		assert_ok!(TaskPallet::submit_result(
			RuntimeOrigin::signed(10),
			id,
			[0; 32],
			merkle::root(&leaves(8)),
			8,
			BoundedVec::default()
		));
		run_to(3);
		let audits = Audits::<T>::get(id);
		let first = audits[0].clone();
		assert_ok!(TaskPallet::submit_verification(
			RuntimeOrigin::signed(first.verifier),
			id,
			first.segment,
			0,
			[0; 32],
			proof_for(8, first.segment)
		));
		run_to(13);
		// The silent segments are void, and both verifiers are already on the task, so
		// nobody is left to audit them again: the window opens.
		assert_eq!(task(id).phase, Phase::Challenge);
		let after = Audits::<T>::get(id);
		assert_eq!(after.len(), audits.len());
		assert_eq!(after.iter().filter(|a| a.verdict.is_some()).count(), 1);
		assert!(after.iter().filter(|a| a.verdict.is_none()).all(|a| a.overturned));
		let (t, solver) = (task(id), Balances::free_balance(10));
		run_to(t.deadline);
		// The one verdict is paid; the solver is not paid for segments nobody checked,
		// and the owner gets the rest back.
		assert!(unverified(id));
		assert_eq!(Balances::free_balance(10), solver);
		assert_eq!(Balances::free_balance(1), START - t.segment_pay);
		assert_eq!(escrow_held(1), 0);
	});
}

/// Draws nobody can steer: a solver that is also a validator knows the VRF output of
/// each of its own future slots, so it could commit just before a block it authors and
/// whose randomness alone decided its audits. The audit draw reads the beacon folded over
/// every block since the commit: with the draw's block authored the same way, the
/// outputs of the blocks between (other authors') still change which segments are
/// audited and by whom, so the committer cannot know its audits at the commit.
#[test]
fn the_author_of_the_draw_block_alone_cannot_choose_the_audits() {
	let audits_with = |others: u8| {
		new_test_ext().execute_with(|| {
			let id = committed();
			let from = task(id).result.as_ref().map(|r| r.committed_at).unwrap();
			let draw = task(id).deadline;
			assert!(draw > from + 1, "a block lies between the commit and the draw");
			AUTHORED.with(|a| {
				let mut a = a.borrow_mut();
				a.push((draw, [100; 32]));
				a.extend((from + 1..draw).map(|b| (b, [others; 32])));
			});
			run_to(draw);
			assert_eq!(task(id).phase, Phase::Verifying);
			Audits::<T>::get(id).iter().map(|a| (a.segment, a.verifier)).collect::<Vec<_>>()
		})
	};
	let outcomes: std::collections::BTreeSet<_> = (1..=8).map(audits_with).collect();
	assert!(outcomes.len() > 1, "the draw's author alone decided it: {outcomes:?}");
}

/// Blocks without randomness are not read as zeros: the audit draw waits until a block
/// after the commit has randomness, then draws.
#[test]
fn an_audit_draw_waits_for_randomness_made_after_the_commit() {
	new_test_ext().execute_with(|| {
		let id = committed();
		let draw = task(id).deadline;
		AUTHORED.with(|a| a.borrow_mut().extend((2..=draw).map(|b| (b, [0; 32]))));
		run_to(draw);
		assert_eq!(task(id).phase, Phase::Drawing);
		assert!(Audits::<T>::get(id).is_empty());
		run_to(task(id).deadline);
		assert_eq!(task(id).phase, Phase::Verifying);
	});
}

/// The author of the block before a draw knows the draw and could withhold its block for
/// another roll, so a solver that is also a validator would commit where that block is
/// its own. An audit draw moves itself at its first deadline by a number of blocks read
/// from the beacon then: with every block up to that deadline fixed (the most a committer
/// could know), the blocks after it, other authors', still decide the audits.
#[test]
fn no_block_a_committer_can_line_up_decides_its_audits() {
	let audits_with = |later: u8| {
		new_test_ext().execute_with(|| {
			DELAY.with(|d| *d.borrow_mut() = 10);
			let id = committed();
			let first = task(id).deadline;
			line_up(1, first, later);
			run_to(first);
			assert_eq!(task(id).phase, Phase::Drawing, "the draw moved past its deadline");
			run_to(first + 8);
			assert_eq!(task(id).phase, Phase::Verifying);
			Audits::<T>::get(id).iter().map(|a| (a.segment, a.verifier)).collect::<Vec<_>>()
		})
	};
	let outcomes: std::collections::BTreeSet<_> = (1..=8).map(audits_with).collect();
	assert!(outcomes.len() > 1, "the blocks up to the deadline decided it: {outcomes:?}");
}

/// A block without a VRF output leaves BABE's last value in place: read again, it adds
/// nothing anyone did not know, so it is not folded and the audit draw waits for a block
/// that brings new randomness.
#[test]
fn repeated_randomness_is_not_new_and_the_audit_draw_waits() {
	new_test_ext().execute_with(|| {
		let id = committed();
		let draw = task(id).deadline;
		AUTHORED.with(|a| a.borrow_mut().extend((2..=draw + 2).map(|b| (b, [5; 32]))));
		run_to(draw);
		assert_eq!(task(id).phase, Phase::Drawing);
		assert_eq!(Beacon::<T>::get().map(|(_, at, _)| at), Some(2), "folded once");
		run_to(task(id).deadline);
		assert_eq!(task(id).phase, Phase::Verifying);
	});
}
