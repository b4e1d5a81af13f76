//! Attacks played against the pallet: each test plays one deviation and asserts that the
//! attackers' net balance (free and held) falls and no honest party's does.

use super::*;

/// What `who` holds in all: free, bonded and escrowed.
fn worth(who: u64) -> u64 {
	Balances::total_balance(&who)
}

/// The sum of [`worth`] over `who`.
fn worth_of(who: &[u64]) -> u64 {
	who.iter().map(|w| worth(*w)).sum()
}

/// `who` posts a failing verdict on `segment` of task `id`.
fn fail(id: TaskId, who: u64, segment: u32) {
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
		assert_ok!(<TaskPallet as DisputeOutcome>::resolve(id, a.segment, true));
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
		let id = verifying();
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
