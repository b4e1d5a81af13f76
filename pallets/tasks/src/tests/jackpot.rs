//! Forced errors with the real jackpot: commitments, reveals, catches and what an
//! unrevealed verdict costs.

use super::*;

/// A verifier that sees a task's draw coming commits a secret ground against it (the
/// task's id and segments are public) just before the draw, for a partner whistleblower
/// to catch each forced segment from the pot. A commitment younger than the draws' delay
/// is not drawn for a round whose segments may be forced; an older one is bound with
/// the draw's randomness, made after it, which decides the forced segments with it.
#[test]
fn a_commitment_made_just_before_a_draw_is_not_drawn() {
	for salt in 0..8 {
		ExtBuilder::default().salt(salt).build().execute_with(|| {
			with_jackpot(sp_runtime::Perbill::from_percent(50));
			DELAY.with(|d| *d.borrow_mut() = 4);
			let two = spec_with(|s| s.verification.audit_fraction = SpecPermill(200_000));
			let id = committed_with(two);
			commit(11);
			run_to(task(id).deadline - 1);
			commit(12);
			while task(id).phase == Phase::Drawing {
				run_to(task(id).deadline);
			}
			let audits = Audits::<T>::get(id);
			assert_eq!(audits.len(), 2);
			assert!(audits.iter().all(|a| a.verifier == 11), "12 is too young: {audits:?}");
			let bound = pallet_gensyn_jackpot::Bindings::<T>::get(11, id).expect("11 is bound");
			assert!(bound.seed.is_some_and(|s| s != [0; 32]), "with the draw's randomness");
			assert!(
				<JackpotPallet as pallet_gensyn_jackpot::ForcedErrors<u64, u64>>::has_commitment(
					&12
				)
			);
		});
	}
}

#[test]
fn verifiers_without_a_commitment_are_not_drawn_and_a_draw_consumes_it() {
	new_test_ext().execute_with(|| {
		with_jackpot(sp_runtime::Perbill::zero());
		let id = committed();
		commit(12);
		run_to(3);
		let a = Audits::<T>::get(id)[0].clone();
		assert_eq!(a.verifier, 12, "11 has no commitment");
		assert!(!<JackpotPallet as pallet_gensyn_jackpot::ForcedErrors<u64, u64>>::has_commitment(
			&12
		));
		assert!(pallet_gensyn_jackpot::Bindings::<T>::contains_key(12, id));
	});
}

#[test]
fn a_caught_forced_error_pays_the_whistleblower_and_never_fails_the_solver() {
	new_test_ext().execute_with(|| {
		let id = verifying_with_jackpot(sp_runtime::Perbill::one());
		let a = Audits::<T>::get(id)[0].clone();
		// Forced: the verifier posts a wrong replay, failing the segment.
		verify_all(id, false);
		reg(13, Role::Whistleblower);
		// The challenge comes before the chain opens reveals (a later one would pay
		// nothing: see the copycat tests below).
		assert_ok!(watch_challenge(13, id, a.segment));
		reveal(a.verifier, id);
		let vb = Stake::bond(&a.verifier, Role::Verifier);
		rule(id, a.segment, true);
		assert_eq!(Stake::bond(&a.verifier, Role::Verifier), vb, "forced: not slashed");
		let w = Balances::free_balance(13);
		let sb = Stake::bond(&10, Role::Solver);
		let (pot, vfree) = (Balances::free_balance(JACKPOT), Balances::free_balance(a.verifier));
		let end = task(id).deadline;
		run_to(end);
		// 10% of the pot's spendable balance, at once; nobody checked the forced segment,
		// so another verifier audits it (a re-audit is never forced) before the solver is
		// paid.
		assert_eq!(Balances::free_balance(13), w + (pot - 1) / 10);
		reaudits_pass(id);
		assert!(events().iter().any(|e| matches!(e, Event::TaskCompleted { .. })));
		assert_eq!(Stake::bond(&10, Role::Solver), sb, "the solver is not failed");
		assert_eq!(Balances::free_balance(a.verifier), vfree, "a forced error is not paid");
		assert!(pallet_gensyn_jackpot::Bindings::<T>::iter().next().is_none());
	});
}

/// A copycat reads a verifier's reveal from the transaction pool, computes its forced
/// segments without replaying anything, and tips a challenge into the reveal's own block
/// ahead of it; the verifier cannot defend a forced error and concedes. The copycat earns
/// no catch (the pot keeps it), and a challenge after the reveal is refused outright.
#[test]
fn a_copycat_of_a_reveal_earns_no_catch() {
	copycat_earns_nothing(|id, a| {
		// Same block: the challenge lands first, then the reveal it copied.
		run_to(RevealsFrom::<T>::get(id).expect("the window is open"));
		assert_ok!(TaskPallet::challenge(RuntimeOrigin::signed(13), id, a.segment));
		reveal(a.verifier, id);
	});
}

/// A block author sees a verifier's reveal in the pool as soon as the chain opens
/// reveals, leaves it out of its block and puts its own challenge there instead; the
/// reveal lands a block later. Its challenge still came after reveals opened: no catch.
#[test]
fn a_block_author_holding_a_reveal_back_earns_no_catch() {
	copycat_earns_nothing(|id, a| {
		challenge_ahead_of_a_held_back_reveal(id, a);
	});
}

/// Reveals are the chain's to open: refused while the task is verified and in the first
/// two thirds of its window, so that nobody can see a forced segment before
/// whistleblowers have had their time to replay it.
#[test]
fn a_reveal_before_the_chain_opens_reveals_is_refused() {
	new_test_ext().execute_with(|| {
		let id = verifying_with_jackpot(sp_runtime::Perbill::one());
		let a = Audits::<T>::get(id)[0].clone();
		let early =
			|who: u64| JackpotPallet::reveal(RuntimeOrigin::signed(who), id, [who as u8; 32]);
		assert_noop!(early(a.verifier), pallet_gensyn_jackpot::Error::<T>::RevealNotOpen);
		verify_all(id, false);
		let from = RevealsFrom::<T>::get(id).expect("the window is open");
		let end = task(id).window_end;
		let period: u64 = <<T as Config>::ChallengePeriod as Get<u64>>::get();
		assert_eq!(from, end - (period / 3).max(MIN_REVEAL_BLOCKS.into()), "the last third");
		assert!(from > end - period, "whistleblowers have blocks to challenge in first");
		run_to(from - 1);
		assert_noop!(early(a.verifier), pallet_gensyn_jackpot::Error::<T>::RevealNotOpen);
		run_to(from);
		assert_ok!(early(a.verifier));
	});
}

/// The window's end is a reveal's deadline. The settlement moves itself a few blocks
/// past it; a verifier that missed its reveal may not reveal in between, which would
/// escape the missed reveal's slash (or, for a fail, reopen a closed window).
#[test]
fn a_reveal_after_the_window_is_refused_while_the_settlement_moves() {
	let mut moved = 0;
	for salt in 0..8 {
		ExtBuilder::default().salt(salt).build().execute_with(|| {
			let id = verifying_with_jackpot(sp_runtime::Perbill::zero());
			let a = Audits::<T>::get(id)[0].clone();
			verify_all(id, false);
			DELAY.with(|d| *d.borrow_mut() = 10);
			let end = task(id).window_end;
			run_to(end);
			if task(id).phase != Phase::Challenge {
				return;
			}
			moved += 1;
			let late = JackpotPallet::reveal(
				RuntimeOrigin::signed(a.verifier),
				id,
				[a.verifier as u8; 32],
			);
			assert_noop!(late, pallet_gensyn_jackpot::Error::<T>::RevealNotOpen);
			let duty = |d: &Duty<u64>| matches!(d, Duty::Reveal { .. });
			assert!(!TaskPallet::duties(&a.verifier).iter().any(duty), "no reveal duty");
			let vb = Stake::bond(&a.verifier, Role::Verifier);
			run_to(task(id).deadline);
			let reveal_slash: u64 = <<T as Config>::MissedRevealSlash as Get<u64>>::get();
			assert_eq!(Stake::bond(&a.verifier, Role::Verifier), vb - reveal_slash);
			check();
		});
	}
	assert!(moved > 0, "some settlement moved past the window's end");
}

/// A verifier that missed its reveal waits for a game ruled past the window's end: the
/// lost game reopens the window for a whole period, and a reveal then would escape the
/// missed reveal's slash. A verifier reveals by the end of the first window that judged
/// its verdict: the late reveal is refused, it is told of no reveal, and it is slashed,
/// while the verifier that revealed in time is not. The re-auditor drawn for its segment
/// reveals in its own window, after the first one's end.
#[test]
fn a_reveal_in_a_window_a_lost_game_reopened_is_refused() {
	new_test_ext().execute_with(|| {
		let (id, late, held) = two_passes();
		let end = task(id).window_end;
		reveal(held.verifier, id);
		assert_ok!(TaskPallet::challenge(RuntimeOrigin::signed(13), id, held.segment));
		run_to(end + 2);
		rule(id, held.segment, false);
		assert_eq!(task(id).phase, Phase::Challenge, "the window is open again");
		assert!(task(id).window_end > end + 2);
		let (lb, hb) = (
			Stake::bond(&late.verifier, Role::Verifier),
			Stake::bond(&held.verifier, Role::Verifier),
		);
		let secret = [late.verifier as u8; 32];
		assert_noop!(
			JackpotPallet::reveal(RuntimeOrigin::signed(late.verifier), id, secret),
			pallet_gensyn_jackpot::Error::<T>::RevealNotOpen
		);
		let duty = |d: &Duty<u64>| matches!(d, Duty::Reveal { .. });
		assert!(!TaskPallet::duties(&late.verifier).iter().any(duty), "no reveal duty");
		run_to(task(id).deadline);
		let reveal_slash: u64 = <<T as Config>::MissedRevealSlash as Get<u64>>::get();
		assert_eq!(Stake::bond(&late.verifier, Role::Verifier), lb - reveal_slash);
		assert_eq!(Stake::bond(&held.verifier, Role::Verifier), hb, "revealed in time");
		reaudits_pass(id);
		assert!(events().iter().any(|e| matches!(e, Event::TaskCompleted { .. })));
		check();
	});
}

/// A game ruled in the window sends the task back to be audited again, and a first
/// verifier that has not revealed waits for the re-audit, whose window ends later.
/// Its deadline stays the first window's end: after it, in the re-audit, its reveal is
/// refused.
#[test]
fn a_reaudit_under_way_never_extends_a_first_verifiers_reveal() {
	new_test_ext().execute_with(|| {
		let (id, refuted, late) = two_passes();
		let end = task(id).window_end;
		assert_eq!(RevealBy::<T>::get(id, late.verifier), Some(end));
		reveal(refuted.verifier, id);
		assert_ok!(TaskPallet::challenge(RuntimeOrigin::signed(13), id, refuted.segment));
		rule(id, refuted.segment, true);
		assert_eq!(task(id).phase, Phase::Verifying, "audited again");
		run_to(end);
		assert_eq!(task(id).phase, Phase::Verifying, "still audited again");
		let secret = [late.verifier as u8; 32];
		assert_noop!(
			JackpotPallet::reveal(RuntimeOrigin::signed(late.verifier), id, secret),
			pallet_gensyn_jackpot::Error::<T>::RevealNotOpen
		);
		check();
	});
}

/// The watcher stakes a cheap claim with a challenge before reveals open and loses it
/// (concedes), then challenges the same segment again once reveals opened, ahead of a
/// reveal held back a block. The second challenge does not inherit the first's claim.
#[test]
fn a_lost_early_challenge_leaves_no_claim_to_a_later_one() {
	copycat_earns_nothing(|id, a| {
		assert_ok!(watch_challenge(13, id, a.segment));
		assert!(ChallengedAt::<T>::contains_key(id, a.segment), "early: a claim");
		rule(id, a.segment, false);
		challenge_ahead_of_a_held_back_reveal(id, a);
	});
}

/// A game settled after reveals opened sends the task back to be audited again before
/// every verifier revealed: the others may still reveal (and are told to), the point
/// stays where the first window fixed it, and nobody honest is slashed for a missed
/// reveal.
#[test]
fn reveals_stay_open_when_a_game_sends_the_task_back_to_be_audited() {
	new_test_ext().execute_with(|| {
		let (id, refuted, other) = two_passes();
		let from = RevealsFrom::<T>::get(id).expect("the window is open");
		reveal(refuted.verifier, id);
		reg(13, Role::Whistleblower);
		assert_ok!(TaskPallet::challenge(RuntimeOrigin::signed(13), id, refuted.segment));
		rule(id, refuted.segment, true);
		assert_eq!(task(id).phase, Phase::Verifying, "audited again");
		let told = TaskPallet::duties(&other.verifier)
			.into_iter()
			.any(|d| matches!(d, Duty::Reveal { task, from: f, .. } if task == id && f == from));
		assert!(told, "still told to reveal");
		let ob = Stake::bond(&other.verifier, Role::Verifier);
		reveal(other.verifier, id);
		reaudits_pass(id);
		assert_eq!(RevealsFrom::<T>::get(id), None, "settled: forgotten");
		assert!(events().iter().any(|e| matches!(e, Event::TaskCompleted { .. })));
		assert_eq!(Stake::bond(&other.verifier, Role::Verifier), ob, "no missed reveal");
		check();
	});
}

/// Whistleblower 13 challenges `a` in the first block reveals are open, and `a`'s
/// verifier's reveal, held back from that block, lands in the next.
fn challenge_ahead_of_a_held_back_reveal(id: TaskId, a: &Audit<u64>) {
	let from = RevealsFrom::<T>::get(id).expect("the window is open");
	run_to(from);
	assert_ok!(TaskPallet::challenge(RuntimeOrigin::signed(13), id, a.segment));
	run_to(from + 1);
	reveal(a.verifier, id);
}

/// Plays a copycat whistleblower 13 (the task's watcher) by `copy` (a challenge of the first forced error and
/// its verifier's reveal, in some order) and checks that it gained nothing, that the pot
/// paid no catch, and that a challenge of a revealed forced error is refused.
fn copycat_earns_nothing(copy: impl FnOnce(TaskId, &Audit<u64>)) {
	new_test_ext().execute_with(|| {
		let half = spec_with(|s| s.verification.audit_fraction = SpecPermill(500_000));
		let id = verifying_with_jackpot_for(sp_runtime::Perbill::one(), half);
		verify_all(id, false);
		let audits = Audits::<T>::get(id);
		assert!(audits.len() > 1, "{audits:?}");
		let (a, b) = (audits[0].clone(), audits[1].clone());
		reg(13, Role::Whistleblower);
		let worth = |w: u64| Balances::total_balance(&w) + Stake::bond(&w, Role::Whistleblower);
		let (copycat, pot) = (worth(13), Balances::free_balance(JACKPOT));
		assert_eq!(watchers(id), vec![13], "the copycat is the task's watcher");
		copy(id, &a);
		assert!(!ChallengedAt::<T>::contains_key(id, a.segment), "no claim to a catch");
		rule(id, a.segment, true);
		// Any later challenge of a revealed forced error is refused.
		if b.verifier != a.verifier {
			reveal(b.verifier, id);
		}
		let watched =
			|d: &Duty<u64>| matches!(d, Duty::Watch { segment, .. } if *segment == b.segment);
		assert!(!TaskPallet::duties(&13).iter().any(watched), "no longer shown to watch");
		assert_noop!(
			TaskPallet::challenge(RuntimeOrigin::signed(13), id, b.segment),
			Error::<T>::ForcedErrorRevealed
		);
		let end = task(id).deadline;
		run_to(end);
		assert!(worth(13) <= copycat, "the copycat gained nothing");
		assert!(Balances::free_balance(JACKPOT) >= pot, "the pot paid no catch");
		let caught = System::events().into_iter().any(|r| {
			matches!(
				r.event,
				RuntimeEvent::JackpotPallet(pallet_gensyn_jackpot::Event::CatchPaid { .. })
			)
		});
		assert!(!caught, "no catch paid");
		check();
	});
}

#[test]
fn an_unrevealed_verdict_is_void_and_its_segment_audited_again() {
	new_test_ext().execute_with(|| {
		let id = verifying_with_jackpot(sp_runtime::Perbill::zero());
		let a = Audits::<T>::get(id)[0].clone();
		// A failing verdict whose verifier never reveals its secret.
		verify_all(id, false);
		let vb = Stake::bond(&a.verifier, Role::Verifier);
		let sb = Stake::bond(&10, Role::Solver);
		let (vfree, solver) = (Balances::free_balance(a.verifier), Balances::free_balance(10));
		let t = task(id);
		run_to(t.deadline);
		let reveal_slash: u64 = <<T as Config>::MissedRevealSlash as Get<u64>>::get();
		assert_eq!(Stake::bond(&a.verifier, Role::Verifier), vb - reveal_slash);
		let b = Audits::<T>::get(id)[0].clone();
		assert_eq!((b.reaudits, b.verdict, b.overturned), (1, None, false));
		assert!(b.verifier != a.verifier);
		assert!(events().contains(&Event::Reaudited {
			id,
			segment: a.segment,
			verifier: b.verifier
		}));
		assert_eq!(task(id).phase, Phase::Verifying);
		// The re-auditor passes the segment and reveals: the solver is paid in full; the
		// first verifier is not paid, nor slashed again.
		verify_all(id, true);
		reveal(b.verifier, id);
		run_to(task(id).deadline);
		assert!(events().iter().any(|e| matches!(
			e,
			Event::TaskCompleted { id: i, solver_paid, .. } if *i == id && *solver_paid == t.solver_pay
		)));
		assert_eq!(Balances::free_balance(10), solver + t.solver_pay);
		assert_eq!(Stake::bond(&10, Role::Solver), sb);
		assert_eq!(Stake::bond(&a.verifier, Role::Verifier), vb - reveal_slash, "slashed once");
		assert_eq!(Balances::free_balance(a.verifier), vfree, "not paid");
		check();
	});
}

#[test]
fn unrevealed_verdicts_a_short_pool_cannot_all_reaudit_are_slashed_once_and_let_go() {
	new_test_ext().execute_with(|| {
		// Two segments audited, by 11 and 12; both pass and neither reveals; one spare
		// verifier (14) to audit them again.
		let two = spec_with(|s| s.verification.audit_fraction = SpecPermill(200_000));
		let id = verifying_with_jackpot_for(sp_runtime::Perbill::zero(), two);
		let audits = Audits::<T>::get(id);
		assert_eq!(audits.len(), 2);
		verify_all(id, true);
		reg(14, Role::Verifier);
		commit(14);
		let bonds: Vec<u64> =
			audits.iter().map(|a| Stake::bond(&a.verifier, Role::Verifier)).collect();
		let reveal_slash: u64 = <<T as Config>::MissedRevealSlash as Get<u64>>::get();
		run_to(task(id).deadline);
		// Both judged and slashed now, whether a re-audit takes their segment or not.
		for (a, vb) in audits.iter().zip(&bonds) {
			assert_eq!(Stake::bond(&a.verifier, Role::Verifier), vb - reveal_slash);
		}
		let now = Audits::<T>::get(id);
		let again = now.iter().find(|a| a.reaudits > 0).expect("one re-audit").clone();
		assert_eq!(again.verifier, 14);
		let kept = now.iter().find(|a| a.reaudits == 0).expect("the other audit").clone();
		assert!(kept.overturned && kept.verdict.is_none());
		// 14 stays silent too: slashed, and its segment is void. Nobody is left to audit
		// either segment again, so the window opens and the task fails unverified (the
		// solver unpaid), every binding released, each unrevealed verifier slashed once.
		let b14 = Stake::bond(&14, Role::Verifier);
		run_to(task(id).deadline);
		assert_eq!(task(id).phase, Phase::Challenge);
		assert!(Stake::bond(&14, Role::Verifier) < b14, "silence is slashed");
		run_to(task(id).deadline);
		assert!(unverified(id));
		assert!(!pallet_gensyn_jackpot::Bindings::<T>::contains_key(kept.verifier, id));
		for (a, vb) in audits.iter().zip(&bonds) {
			let bond = Stake::bond(&a.verifier, Role::Verifier);
			assert_eq!(bond, vb - reveal_slash, "slashed once");
		}
		check();
	});
}

#[test]
fn an_unrevealed_verdict_with_no_verifier_left_to_draw_is_ignored_and_slashed() {
	new_test_ext().execute_with(|| {
		let id = verifying_by(sp_runtime::Perbill::zero(), spec(), &[11]);
		let a = Audits::<T>::get(id)[0].clone();
		verify_all(id, false);
		let vb = Stake::bond(&a.verifier, Role::Verifier);
		let sb = Stake::bond(&10, Role::Solver);
		let vfree = Balances::free_balance(a.verifier);
		let end = task(id).deadline;
		run_to(end);
		let reveal_slash: u64 = <<T as Config>::MissedRevealSlash as Get<u64>>::get();
		assert_eq!(Stake::bond(&a.verifier, Role::Verifier), vb - reveal_slash);
		assert_eq!(Balances::free_balance(a.verifier), vfree, "not paid");
		assert_eq!(Stake::bond(&10, Role::Solver), sb, "an untrusted verdict fails nobody");
		assert!(!events().iter().any(|e| matches!(e, Event::Reaudited { .. })));
		assert!(unverified(id), "nor pays the solver for a segment nobody checked");
		check();
	});
}

#[test]
fn a_forced_segment_with_a_passing_verdict_is_a_lie() {
	new_test_ext().execute_with(|| {
		let id = verifying_with_jackpot(sp_runtime::Perbill::one());
		let a = Audits::<T>::get(id)[0].clone();
		verify_all(id, true);
		reveal(a.verifier, id);
		let vb = Stake::bond(&a.verifier, Role::Verifier);
		let end = task(id).deadline;
		run_to(end);
		assert_eq!(Stake::bond(&a.verifier, Role::Verifier), vb - 40);
		// The lie is void and the segment audited again, never passed unchecked.
		reaudits_pass(id);
		assert!(events().iter().any(|e| matches!(e, Event::TaskCompleted { .. })));
	});
}

#[test]
fn a_revealed_unforced_failing_verdict_fails_the_solver() {
	new_test_ext().execute_with(|| {
		let id = verifying_with_jackpot_for(sp_runtime::Perbill::zero(), exact());
		let a = Audits::<T>::get(id)[0].clone();
		verify_all(id, false);
		reveal(a.verifier, id);
		let sb = Stake::bond(&10, Role::Solver);
		let end = task(id).deadline;
		run_to(end);
		assert_eq!(Stake::bond(&10, Role::Solver), sb - 100);
		assert!(events()
			.iter()
			.any(|e| matches!(e, Event::TaskFailed { reason: FailReason::ProofRejected, .. })));
	});
}

/// A solver's challenge of a forced error on its work could only take the watcher's catch
/// away (before reveals open only the watcher may challenge a failing verdict) or copy
/// the reveal (refused once the forced error is revealed); the forced error never fails
/// the solver either way.
#[test]
fn a_solver_may_not_challenge_a_forced_error_and_is_not_failed_by_it() {
	new_test_ext().execute_with(|| {
		let id = verifying_with_jackpot(sp_runtime::Perbill::one());
		let a = Audits::<T>::get(id)[0].clone();
		verify_all(id, false);
		let contest = || TaskPallet::challenge(RuntimeOrigin::signed(10), id, a.segment);
		assert_noop!(contest(), Error::<T>::NotWatcher);
		reveal_all(id);
		assert_noop!(contest(), Error::<T>::ForcedErrorRevealed);
		let vb = Stake::bond(&a.verifier, Role::Verifier);
		let (sb, free, pot) = (
			Stake::bond(&10, Role::Solver),
			Balances::free_balance(10),
			Balances::free_balance(JACKPOT),
		);
		let t = task(id);
		run_to(t.deadline);
		reaudits_pass(id);
		assert!(events().iter().any(|e| matches!(e, Event::TaskCompleted { .. })));
		assert_eq!(Stake::bond(&a.verifier, Role::Verifier), vb, "forced: not slashed");
		assert_eq!(Stake::bond(&10, Role::Solver), sb, "the solver is not failed");
		// Its pay and nothing from the jackpot, which only gains the task's cut.
		assert_eq!(Balances::free_balance(10), free + t.solver_pay);
		assert_eq!(Balances::free_balance(JACKPOT), pot + t.jackpot_cut);
	});
}

#[test]
fn a_reaudit_pool_that_runs_out_leaves_the_rest_unaudited_and_never_redraws_a_refuted_verifier() {
	new_test_ext().execute_with(|| {
		// Two segments audited, by 11 and 12; both passes refuted before any reveal, and
		// one spare verifier (14) to audit them again.
		let two = spec_with(|s| s.verification.audit_fraction = SpecPermill(200_000));
		let id = verifying_with_jackpot_for(sp_runtime::Perbill::zero(), two);
		let audits = Audits::<T>::get(id);
		assert_eq!(audits.len(), 2);
		assert_ne!(audits[0].verifier, audits[1].verifier);
		verify_all(id, true);
		reg(13, Role::Whistleblower);
		reg(14, Role::Verifier);
		commit(14);
		let bonds: Vec<u64> =
			audits.iter().map(|a| Stake::bond(&a.verifier, Role::Verifier)).collect();
		for a in &audits {
			assert_ok!(TaskPallet::challenge(RuntimeOrigin::signed(13), id, a.segment));
			rule(id, a.segment, true);
		}
		reveal_all(id);
		let (w, sb, issuance) = (
			Balances::free_balance(13),
			Stake::bond(&10, Role::Solver),
			Balances::total_issuance(),
		);
		run_to(task(id).deadline);
		// Both overturned (the wrong-verdict slash, half to 13); only one re-audited.
		for (a, vb) in audits.iter().zip(&bonds) {
			assert_eq!(Stake::bond(&a.verifier, Role::Verifier), vb - 30);
		}
		assert_eq!(Balances::free_balance(13), w + 30);
		let now = Audits::<T>::get(id);
		let again: Vec<_> = now.iter().filter(|a| a.reaudits > 0).collect();
		assert_eq!(again.len(), 1);
		assert_eq!(again[0].verifier, 14);
		assert_eq!(task(id).phase, Phase::Verifying);
		// The refuted verifier kept on the segment no one audits again owes nothing now.
		let kept = now.iter().find(|a| a.reaudits == 0).expect("the other audit");
		assert!(
			!TaskPallet::duties(&kept.verifier)
				.iter()
				.any(|d| matches!(d, Duty::Verify { task, .. } if *task == id)),
			"an overturned verdict is final: no Verify duty"
		);
		// The verifier let go commits again: it is still not drawn for the other segment.
		let gone = audits.iter().find(|a| a.segment == again[0].segment).expect("audit");
		assert!(!now.iter().any(|a| a.verifier == gone.verifier));
		commit(gone.verifier);
		let p = proof_for(task(id).checkpoints, again[0].segment);
		let pass = p.checkpoint_hash;
		assert_ok!(TaskPallet::submit_verification(
			RuntimeOrigin::signed(14),
			id,
			again[0].segment,
			0,
			pass,
			p
		));
		reveal(14, id);
		run_to(task(id).deadline);
		assert_eq!(
			events().iter().filter(|e| matches!(e, Event::Reaudited { .. })).count(),
			1,
			"the second segment stays unaudited"
		);
		assert!(unverified(id), "so the solver is not paid for it");
		assert_eq!(Stake::bond(&10, Role::Solver), sb, "the solver is not failed");
		for (a, vb) in audits.iter().zip(&bonds) {
			assert_eq!(Stake::bond(&a.verifier, Role::Verifier), vb - 30, "slashed once");
		}
		assert!(Replaced::<T>::get(id).is_empty(), "cleared with the task");
		assert!(Balances::total_issuance() <= issuance, "slashes burn, nothing is minted");
	});
}

#[test]
fn an_exact_verifier_refuted_on_one_of_its_two_audits_is_slashed_once_and_paid_for_the_other() {
	new_test_ext().execute_with(|| {
		// Verifier 11 alone holds both audits of an Exact task; its pass on the first is
		// refuted after its reveal, which voids it (a game never fails the solver); no
		// verifier is left to audit that segment again.
		let exact = spec_with(|s| {
			s.verification.mode = VerificationMode::Exact;
			s.verification.audit_fraction = SpecPermill(200_000);
		});
		let id = verifying_by(sp_runtime::Perbill::zero(), exact, &[11]);
		let audits = Audits::<T>::get(id);
		assert_eq!(audits.len(), 2);
		assert!(audits.iter().all(|a| a.verifier == 11));
		verify_all(id, true);
		reveal(11, id);
		reg(13, Role::Whistleblower);
		assert_ok!(TaskPallet::challenge(RuntimeOrigin::signed(13), id, audits[0].segment));
		let (vb, w) = (Stake::bond(&11, Role::Verifier), Balances::free_balance(13));
		rule(id, audits[0].segment, true);
		assert_eq!(Stake::bond(&11, Role::Verifier), vb - 30);
		assert_eq!(Balances::free_balance(13), w + 15);
		let refuted = Audits::<T>::get(id)[0].clone();
		assert!(refuted.overturned && refuted.verdict.is_none());
		let (free, sb, pay) =
			(Balances::free_balance(11), Stake::bond(&10, Role::Solver), task(id).segment_pay);
		run_to(task(id).deadline);
		assert_eq!(Stake::bond(&11, Role::Verifier), vb - 30, "slashed once, no missed reveal");
		assert_eq!(Balances::free_balance(11), free + pay, "paid for its other verdict only");
		assert_eq!(Balances::free_balance(13), w + 15, "no reporter's share at settlement");
		assert_eq!(Stake::bond(&10, Role::Solver), sb, "the solver is not failed");
		assert!(unverified(id), "nor paid for a segment nobody checked");
	});
}

/// A task with every verifier's forced-error rate at `rate`, every verdict posted as
/// `pass`, and the first audit's verdict refuted by whistleblower 13 before any reveal.
/// Returns the task, that audit and its verifier's bond before the ruling.
fn refuted_before_reveal(rate: sp_runtime::Perbill, pass: bool) -> (TaskId, Audit<u64>, u64) {
	let id = verifying_with_jackpot(rate);
	let a = Audits::<T>::get(id)[0].clone();
	verify_all(id, pass);
	reg(13, Role::Whistleblower);
	assert_ok!(watch_challenge(13, id, a.segment));
	let vb = Stake::bond(&a.verifier, Role::Verifier);
	rule(id, a.segment, true);
	(id, a, vb)
}

#[test]
fn a_forced_error_refuted_before_its_reveal_is_still_a_catch() {
	new_test_ext().execute_with(|| {
		let (id, a, vb) = refuted_before_reveal(sp_runtime::Perbill::one(), false);
		// The game ended before the verifier revealed: nothing is decided yet.
		assert_eq!(Stake::bond(&a.verifier, Role::Verifier), vb);
		let audit = Audits::<T>::get(id)[0].clone();
		assert_eq!((audit.refuted_by, audit.overturned), (Some(13), false));
		assert_noop!(
			TaskPallet::challenge(RuntimeOrigin::signed(13), id, a.segment),
			Error::<T>::NotAllowedToChallenge
		);
		reveal_all(id);
		let w = Balances::free_balance(13);
		let sb = Stake::bond(&10, Role::Solver);
		let pot = Balances::free_balance(JACKPOT);
		run_to(task(id).deadline);
		assert_eq!(Balances::free_balance(13), w + (pot - 1) / 10, "the catch is paid");
		reaudits_pass(id);
		assert!(events().iter().any(|e| matches!(e, Event::TaskCompleted { .. })));
		assert_eq!(Stake::bond(&a.verifier, Role::Verifier), vb, "forced: not slashed");
		assert_eq!(Stake::bond(&10, Role::Solver), sb, "the solver is not failed");
	});
}

#[test]
fn an_honest_verdict_refuted_before_its_reveal_is_overturned_at_settlement() {
	new_test_ext().execute_with(|| {
		let (id, a, vb) = refuted_before_reveal(sp_runtime::Perbill::zero(), true);
		assert_eq!(Stake::bond(&a.verifier, Role::Verifier), vb, "waits for the reveal");
		reveal_all(id);
		let w = Balances::free_balance(13);
		let issuance = Balances::total_issuance();
		run_to(task(id).deadline);
		// Wrong, not forced: the wrong-verdict slash, half of it to the whistleblower.
		assert_eq!(Stake::bond(&a.verifier, Role::Verifier), vb - 30);
		assert_eq!(Balances::free_balance(13), w + 15);
		// Voided, so audited again by the spare verifier: the task goes on.
		let a = Audits::<T>::get(id).into_iter().find(|x| x.segment == a.segment).expect("audit");
		assert!(a.reaudits == 1 && a.verdict.is_none() && task(id).phase == Phase::Verifying);
		assert!(Balances::total_issuance() <= issuance, "slashes burn, nothing is minted");
	});
}

/// Every segment forced: a pass is a lie that anyone sees once the secret is revealed.
/// A challenge copying the reveal (for the reporter's share of the wrong-verdict slash)
/// is refused; the settlement slashes the lie anyway and audits the segment again.
#[test]
fn a_pass_on_a_revealed_forced_segment_is_slashed_without_a_copied_challenge() {
	new_test_ext().execute_with(|| {
		let id = verifying_with_jackpot(sp_runtime::Perbill::one());
		let a = Audits::<T>::get(id)[0].clone();
		verify_all(id, true);
		reveal_all(id);
		reg(13, Role::Whistleblower);
		let w = Balances::total_balance(&13) + Stake::bond(&13, Role::Whistleblower);
		assert_noop!(
			TaskPallet::challenge(RuntimeOrigin::signed(13), id, a.segment),
			Error::<T>::ForcedErrorRevealed
		);
		let vb = Stake::bond(&a.verifier, Role::Verifier);
		run_to(task(id).deadline);
		assert_eq!(Stake::bond(&a.verifier, Role::Verifier), vb - 40, "the lie is slashed");
		let after = Balances::total_balance(&13) + Stake::bond(&13, Role::Whistleblower);
		assert_eq!(after, w, "nothing for copying the reveal");
		let x = Audits::<T>::get(id).into_iter().find(|x| x.segment == a.segment);
		assert!(x.is_some_and(|x| x.overturned || x.reaudits > 0));
	});
}

#[test]
fn a_refuted_verdict_never_revealed_is_slashed_as_wrong_and_as_unrevealed() {
	new_test_ext().execute_with(|| {
		let (id, a, vb) = refuted_before_reveal(sp_runtime::Perbill::zero(), true);
		let w = Balances::free_balance(13);
		let sb = Stake::bond(&10, Role::Solver);
		run_to(task(id).deadline);
		assert_eq!(Stake::bond(&a.verifier, Role::Verifier), vb - 30 - 40);
		assert_eq!(Balances::free_balance(13), w + 15);
		let again = Audits::<T>::get(id).into_iter().find(|x| x.segment == a.segment);
		assert!(again.is_some_and(|x| x.reaudits == 1 && x.verifier != a.verifier), "re-audited");
		// The re-auditor posts a pass; at the end the first verifier is not slashed again.
		let n = task(id).checkpoints;
		for x in Audits::<T>::get(id).into_iter().filter(|x| x.verdict.is_none()) {
			let p = proof_for(n, x.segment);
			let pass = p.checkpoint_hash;
			let signed = RuntimeOrigin::signed(x.verifier);
			assert_ok!(TaskPallet::submit_verification(signed, id, x.segment, 0, pass, p));
		}
		reveal_all(id);
		run_to(task(id).deadline);
		assert_eq!(Stake::bond(&a.verifier, Role::Verifier), vb - 30 - 40, "slashed once");
		assert_eq!(Stake::bond(&10, Role::Solver), sb, "the solver is not failed");
		assert!(events().iter().any(|e| matches!(e, Event::TaskCompleted { .. })));
	});
}
