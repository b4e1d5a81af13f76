//! Holding a verdict: a challenger loses games over it on purpose, each loss reopening
//! the window with the holder first to challenge again. A held verdict's games cost the
//! holder a minimum bond each, and no count it raises keeps an honest challenger out.

use super::{attacks::fail, *};

/// The holder of `a_stalling_challenge_never_lets_a_wrong_pass_stand` (tests/attacks.rs)
/// plays on: each lost game reopens the window, and it challenges again first, in the
/// ruling's block. A whistleblower's false challenge of a verdict that survived a game
/// risks a minimum bond (two slashes here), the verifier's reporter share from the first
/// slash only, and admission counts what each open game risks: three games cost the
/// holder five slashes, a fresh minimum bond with another game open is refused, and one
/// with none pays its whole bond. The coalition then stops; a minimum bond with no game
/// open may always challenge, so an honest one challenges, wins and is paid, and the
/// verdict audited again counts its games afresh.
#[test]
fn holding_a_verdict_game_after_game_costs_a_minimum_bond_a_game() {
	new_test_ext().execute_with(|| {
		let id = verifying_with(spec_with(|s| {
			s.verification.mode = VerificationMode::Exact;
			s.verification.audit_fraction = SpecPermill(1_000_000);
		}));
		let audits = Audits::<T>::get(id);
		let (a, b) = (audits[0].clone(), audits[1].clone());
		let slash: u64 = <<T as Config>::FalseChallengeSlash as Get<u64>>::get();
		let share: u64 =
			<<T as pallet_gensyn_stake::Config>::ReporterShare as Get<Perbill>>::get() * slash;
		let min: u64 =
			<<T as pallet_gensyn_stake::Config>::MinWhistleblowerBond as Get<u64>>::get();
		assert_eq!(min, 2 * slash, "a minimum bond covers two slashes");
		reg(19, Role::Verifier);
		reg_bonded(16, Role::Whistleblower, 20 * slash);
		reg_bonded(17, Role::Whistleblower, min);
		reg_bonded(18, Role::Whistleblower, min);
		let coalition = [10, a.verifier, 16, 17];
		// 19 audits the held segment again; 18's other game is over `b`, whose verifier
		// is not in the coalition.
		assert_ne!(a.verifier, b.verifier);
		let (before, holder) = (worth_of(&coalition), worth(16));
		verify_all(id, true);
		for (k, paid) in [(1u32, 1u64), (2, 3), (3, 5)] {
			assert_ok!(TaskPallet::challenge(RuntimeOrigin::signed(16), id, a.segment));
			assert_eq!(OpenChallenges::<T>::get(16), k.min(2), "what its game risks");
			rule(id, a.segment, false);
			assert_eq!(worth(16), holder - paid * slash);
			assert_eq!(Survived::<T>::get(id, a.segment), Some((a.verifier, k)));
		}
		// A minimum bond with a game open on another verdict covers no held one.
		assert_ok!(TaskPallet::challenge(RuntimeOrigin::signed(18), id, b.segment));
		assert_noop!(
			TaskPallet::challenge(RuntimeOrigin::signed(18), id, a.segment),
			Error::<T>::ChallengesExceedBond
		);
		rule(id, b.segment, false);
		let sybil = worth(17);
		assert_ok!(TaskPallet::challenge(RuntimeOrigin::signed(17), id, a.segment));
		rule(id, a.segment, false);
		assert_eq!(worth(17), sybil - min, "its whole bond");
		assert_eq!(worth_of(&coalition), before - 7 * slash + 4 * share);
		check();
		reg_bonded(15, Role::Whistleblower, min);
		let honest = worth(15);
		assert_ok!(TaskPallet::challenge(RuntimeOrigin::signed(15), id, a.segment));
		rule(id, a.segment, true);
		let again = Audits::<T>::get(id).into_iter().find(|x| x.segment == a.segment).unwrap();
		assert_ne!(again.verifier, a.verifier, "audited again");
		assert_eq!(TaskPallet::false_challenge_units(id, &again), 1, "a new verdict");
		fail(id, again.verifier, a.segment);
		run_to(task(id).deadline);
		assert!(events().iter().any(|e| matches!(e, Event::ProofRejected { solver: 10, .. })));
		assert!(worth(15) > honest, "the honest whistleblower is paid");
		assert!(Survived::<T>::iter_prefix(id).next().is_none(), "forgotten at the end");
		check();
	});
}

/// A verifier's own whistleblower account loses games over the verifier's fail to raise
/// its count before the solver contests it: a solver contests a verdict once and cannot
/// hold it, so its lost contest costs one slash whatever the count.
#[test]
fn a_raised_count_never_raises_a_solvers_slash() {
	new_test_ext().execute_with(|| {
		let id = verifying_with(exact());
		let a = Audits::<T>::get(id)[0].clone();
		verify_all(id, false);
		run_to_reveals(id);
		for _ in 0..2 {
			assert_ok!(TaskPallet::challenge(RuntimeOrigin::signed(13), id, a.segment));
			rule(id, a.segment, false);
		}
		let (slash, before): (u64, u64) =
			(<<T as Config>::FalseChallengeSlash as Get<u64>>::get(), worth(10));
		assert_ok!(TaskPallet::challenge(RuntimeOrigin::signed(10), id, a.segment));
		rule(id, a.segment, false);
		assert_eq!(worth(10), before - slash, "one slash");
		assert_eq!(Survived::<T>::get(id, a.segment), Some((a.verifier, 3)));
		check();
	});
}

/// A game over a held verdict that nobody rules on times out: the verdict is void and
/// audited again, and its challenger's count gives back the two slashes the game risked.
#[test]
fn a_held_verdicts_game_that_times_out_gives_back_what_it_risked() {
	new_test_ext().execute_with(|| {
		let id = verifying_with(exact());
		let a = Audits::<T>::get(id)[0].clone();
		pass(id, a.verifier, a.segment);
		assert_ok!(TaskPallet::challenge(RuntimeOrigin::signed(13), id, a.segment));
		rule(id, a.segment, false);
		assert_ok!(TaskPallet::challenge(RuntimeOrigin::signed(13), id, a.segment));
		assert_eq!(OpenChallenges::<T>::get(13), 2, "a held verdict's game risks two");
		check();
		// The arbiter never rules.
		run_to(task(id).deadline);
		assert_eq!(OpenChallenges::<T>::get(13), 0);
		let again = Audits::<T>::get(id)[0].clone();
		assert_ne!(again.verifier, a.verifier, "audited again");
		assert_eq!(TaskPallet::false_challenge_units(id, &again), 1, "a new verdict");
		check();
	});
}
