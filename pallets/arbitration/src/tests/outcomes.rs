//! How games end: the truth wins at every level, silence and concession lose, a refused ruling writes nothing, cancellation.

use super::*;

#[test]
fn honest_defendant_beats_a_false_challenger_at_every_level() {
	let (linear, relu, update) = targets();
	let cases = [
		(linear, Ruling::StepComputed),
		(relu, Ruling::ElementComputed),
		(update, Ruling::ElementComputed),
		(gensyn_repops::graph::INPUT, Ruling::DataChecked),
		(gensyn_repops::graph::LABELS, Ruling::DataChecked),
	];
	for (target, ruling) in cases {
		new_test_ext().execute_with(|| {
			let (won, r, moves) = run_game(None, Challenger::False { target }, Defendant::FromRun);
			assert!(!won, "tensor {target}: the false challenger must lose");
			assert_eq!(r, ruling, "tensor {target}");
			assert!(moves >= 4, "tensor {target}: {moves} moves");
		});
	}
}

#[test]
fn lying_defendant_loses_at_every_level() {
	let (linear, relu, update) = targets();
	let cases = [
		(linear, 5, Ruling::StepComputed),
		(relu, 3, Ruling::ElementComputed),
		(update, 100, Ruling::ElementComputed),
		(gensyn_repops::graph::INPUT, 70, Ruling::DataChecked),
		(gensyn_repops::graph::LABELS, 2, Ruling::DataChecked),
	];
	for (tensor, elem, ruling) in cases {
		new_test_ext().execute_with(|| {
			let fault = Fault { step: FAULT_STEP, tensor, elem, value: 0.123 };
			let (won, r, _) = run_game(Some(fault), Challenger::Honest, Defendant::FromRun);
			assert!(won, "tensor {tensor}: the liar must lose");
			assert_eq!(r, ruling, "tensor {tensor}");
		});
	}
}

#[test]
fn lying_about_step_roots_loses_by_timeout() {
	new_test_ext().execute_with(|| {
		let (won, r, _) = run_game(None, Challenger::Honest, Defendant::GarbageRoots);
		assert!(won);
		assert_eq!(r, Ruling::Timeout(Party::Defendant));
	});
}

#[test]
fn honest_challenger_pinpoints_the_faulty_step_and_op() {
	new_test_ext().execute_with(|| {
		let (linear, _, _) = targets();
		let g = setup(Some(Fault { step: FAULT_STEP, tensor: linear, elem: 5, value: 0.5 }));
		open();
		// Drive until the tensor is picked, then check it is the faulty one.
		let first = u64::from(SEG) * u64::from(K);
		let mut seen = None;
		for _ in 0..40 {
			let s = game();
			if let Stage::Descend { step, tensor, .. } = s.stage {
				seen = Some((first + step, tensor));
				break;
			}
			let _ = step_once(&g, s);
		}
		assert_eq!(seen, Some((FAULT_STEP, linear)));
	});
}

#[test]
fn silent_defendant_loses_and_silent_challenger_loses() {
	new_test_ext().execute_with(|| {
		let _g = setup(None);
		let issuance = Balances::total_issuance();
		open();
		time_out();
		assert!(Disputes::<Test>::get(KEY).is_none());
		assert_eq!(OUTCOMES.with(|o| o.borrow().clone()), vec![(TASK, SEG, true)]);
		System::assert_has_event(
			Event::Resolved {
				task: TASK,
				segment: SEG,
				challenger_won: true,
				ruling: Ruling::Timeout(Party::Defendant),
				moves: 0,
			}
			.into(),
		);
		check_funds(true, issuance);
	});
	new_test_ext().execute_with(|| {
		let g = setup(None);
		let issuance = Balances::total_issuance();
		open();
		assert_ok!(step_once(&g, game()));
		assert_ok!(step_once(&g, game()));
		assert_eq!(game().turn, Party::Challenger);
		time_out();
		assert_eq!(OUTCOMES.with(|o| o.borrow().clone()), vec![(TASK, SEG, false)]);
		check_funds(false, issuance);
	});
}

#[test]
fn concede_ends_the_game_for_either_party() {
	for (who, challenger_won) in [(D, true), (C, false)] {
		new_test_ext().execute_with(|| {
			let _g = setup(None);
			let issuance = Balances::total_issuance();
			open();
			assert_noop!(Arbitration::concede(origin(3), TASK, SEG), Error::<Test>::NotAParty);
			assert_ok!(Arbitration::concede(origin(who), TASK, SEG));
			assert_eq!(OUTCOMES.with(|o| o.borrow().clone()), vec![(TASK, SEG, challenger_won)]);
			check_funds(challenger_won, issuance);
			assert_noop!(Arbitration::concede(origin(who), TASK, SEG), Error::<Test>::NoDispute);
		});
	}
}

/// A ruling the tasks pallet refuses writes nothing: the bond stays held, what the
/// tasks pallet wrote before refusing is undone, and the game stays open (a refused
/// concession is an error; a refused timeout is ruled again a move timeout later).
#[test]
fn a_refused_ruling_writes_nothing_and_the_game_stays_open() {
	new_test_ext().execute_with(|| {
		let _g = setup(None);
		open();
		let before = (Balances::total_balance_on_hold(&C), Balances::free_balance(4));
		REFUSE_OUTCOME.with(|r| *r.borrow_mut() = true);
		assert!(Arbitration::concede(origin(D), TASK, SEG).is_err());
		assert_eq!((Balances::total_balance_on_hold(&C), Balances::free_balance(4)), before);
		let deadline = game().deadline;
		time_out();
		assert_eq!((Balances::total_balance_on_hold(&C), Balances::free_balance(4)), before);
		assert!(game().deadline > deadline, "the timeout is ruled again later");
		assert!(OUTCOMES.with(|o| o.borrow().is_empty()));
		// Once the tasks pallet takes the outcome, the game ends as usual.
		REFUSE_OUTCOME.with(|r| *r.borrow_mut() = false);
		let silent = game().turn;
		time_out();
		assert!(Disputes::<Test>::get(KEY).is_none());
		let won = silent == Party::Defendant;
		assert_eq!(OUTCOMES.with(|o| o.borrow().clone()), vec![(TASK, SEG, won)]);
	});
}

#[test]
fn cancel_releases_the_bond_and_forgets_the_game() {
	new_test_ext().execute_with(|| {
		let _g = setup(None);
		open();
		<Arbitration as DisputeArbiter<u64>>::cancel(TASK, SEG);
		assert!(Disputes::<Test>::get(KEY).is_none());
		assert_eq!(Balances::total_balance_on_hold(&C), 0);
		assert_eq!(Balances::free_balance(C), 1_000);
		assert!(OUTCOMES.with(|o| o.borrow().is_empty()));
		// Its deadline fires into nothing.
		time_out_blocks(TIMEOUT + 1);
		assert!(OUTCOMES.with(|o| o.borrow().is_empty()));
	});
}
