//! Every move's checks: who may open, turn, stage, proofs, data answers, deadlines.

use super::*;

#[test]
fn open_refuses_duplicates_unknown_subjects_and_poor_challengers() {
	new_test_ext().execute_with(|| {
		assert_noop!(
			<Arbitration as DisputeArbiter<u64>>::open(TASK, SEG, &C, &D),
			Error::<Test>::NoSubject
		);
		let _g = setup(None);
		open();
		assert_noop!(
			<Arbitration as DisputeArbiter<u64>>::open(TASK, SEG, &C, &D),
			Error::<Test>::AlreadyOpen
		);
		// Account 9 has no funds for the bond.
		let ctx = CONTEXTS.with(|c| c.borrow().get(&KEY).cloned().unwrap());
		CONTEXTS.with(|c| c.borrow_mut().insert((TASK, 0), ctx));
		assert!(<Arbitration as DisputeArbiter<u64>>::open(TASK, 0, &9, &D).is_err());
		assert!(Disputes::<Test>::get((TASK, 0)).is_none());
	});
}

/// A game its challenger's task stake backs (the solver contesting a fail) opens for an
/// account with no free funds, holds nothing, and a loss there moves nothing: the tasks
/// pallet slashes the stake.
#[test]
fn a_staked_game_opens_without_a_bond_and_its_loss_moves_no_funds() {
	new_test_ext().execute_with(|| {
		let _g = setup(None);
		let ctx = CONTEXTS.with(|c| c.borrow().get(&KEY).cloned().unwrap());
		CONTEXTS.with(|c| c.borrow_mut().insert((TASK, 0), ctx));
		let issuance = Balances::total_issuance();
		// Account 9 has no funds: a bonded game is refused, a staked one opens.
		assert!(<Arbitration as DisputeArbiter<u64>>::open(TASK, 0, &9, &D).is_err());
		assert_ok!(<Arbitration as DisputeArbiter<u64>>::open_staked(TASK, 0, &9, &D));
		assert_eq!(Disputes::<Test>::get((TASK, 0)).map(|d| d.bond), Some(0));
		assert_eq!(Balances::total_balance_on_hold(&9), 0);
		assert_ok!(Arbitration::do_try_state());
		assert_ok!(Arbitration::concede(origin(9), TASK, 0));
		assert!(Disputes::<Test>::get((TASK, 0)).is_none());
		assert_eq!(OUTCOMES.with(|o| o.borrow().clone()), vec![(TASK, 0, false)]);
		assert_eq!((Balances::free_balance(9), Balances::free_balance(D)), (0, 1_000));
		assert_eq!(Balances::total_issuance(), issuance);
	});
}

#[test]
fn every_move_checks_turn_stage_and_proofs() {
	new_test_ext().execute_with(|| {
		let g = setup(None);
		open();
		let first = u64::from(SEG) * u64::from(K);
		let leaves = g.truth.checkpoint_leaves().unwrap();
		let proof = gensyn_primitives::merkle::proof(&leaves, SEG as usize).unwrap();
		let sibs = || BoundedVec::truncate_from(proof.siblings.clone());
		// Outsider, wrong party, wrong stage, bad proof.
		assert_noop!(
			Arbitration::prove_start(origin(3), TASK, SEG, leaves[1], sibs()),
			Error::<Test>::NotAParty
		);
		assert_noop!(Arbitration::pick(origin(C), TASK, SEG, 0), Error::<Test>::NotYourTurn);
		assert_noop!(
			Arbitration::bisect_steps(origin(D), TASK, SEG, BoundedVec::new()),
			Error::<Test>::WrongStage
		);
		assert_noop!(
			Arbitration::prove_start(origin(D), TASK, SEG, leaves[0], sibs()),
			Error::<Test>::BadStartProof
		);
		assert_noop!(
			Arbitration::prove_start(origin(D), TASK + 1, SEG, leaves[1], sibs()),
			Error::<Test>::NoDispute
		);
		assert_ok!(Arbitration::prove_start(origin(D), TASK, SEG, leaves[1], sibs()));
		// Steps: the point count must match.
		assert_noop!(
			Arbitration::bisect_steps(
				origin(D),
				TASK,
				SEG,
				BoundedVec::truncate_from(vec![[0u8; 32]])
			),
			Error::<Test>::WrongPointCount
		);
		assert_ok!(step_once(&g, game()));
		assert_noop!(Arbitration::pick(origin(C), TASK, SEG, 17), Error::<Test>::BadPick);
		assert_noop!(Arbitration::pick(origin(D), TASK, SEG, 0), Error::<Test>::NotAParty);
		// Walk to the step opening by always picking the first interval.
		while !matches!(game().stage, Stage::OpenStep { .. }) {
			match game().turn {
				Party::Challenger => {
					assert_ok!(Arbitration::pick(origin(C), TASK, SEG, 0));
				}
				Party::Defendant => {
					assert_ok!(step_once(&g, game()));
				}
			}
		}
		let Stage::OpenStep { step, .. } = game().stage else { unreachable!() };
		let mut roots = g.truth.tensor_roots(first + step).unwrap();
		assert_noop!(
			Arbitration::open_step(
				origin(D),
				TASK,
				SEG,
				BoundedVec::truncate_from(roots[1..].to_vec())
			),
			Error::<Test>::WrongTensorCount
		);
		let param =
			*g.truth.step_trace(first + step).unwrap().graph.params.first().unwrap() as usize;
		let saved = roots[param];
		roots[param] = [1u8; 32];
		assert_noop!(
			Arbitration::open_step(origin(D), TASK, SEG, BoundedVec::truncate_from(roots.clone())),
			Error::<Test>::StartRootMismatch
		);
		roots[param] = saved;
		let new_param =
			*g.truth.step_trace(first + step).unwrap().graph.new_params.first().unwrap() as usize;
		roots[new_param] = [1u8; 32];
		assert_noop!(
			Arbitration::open_step(origin(D), TASK, SEG, BoundedVec::truncate_from(roots)),
			Error::<Test>::EndRootMismatch
		);
		assert_ok!(step_once(&g, game()));
		// Tensor picks: state tensors and unknown ids are not disputable.
		assert_noop!(
			Arbitration::pick_tensor(origin(C), TASK, SEG, param as u32),
			Error::<Test>::NotDisputable
		);
		assert_noop!(
			Arbitration::pick_tensor(origin(C), TASK, SEG, 10_000),
			Error::<Test>::NotDisputable
		);
		let (linear, _, _) = targets();
		assert_ok!(Arbitration::pick_tensor(origin(C), TASK, SEG, linear));
		// Descent: the node count and the fold must match.
		let Stage::Descend { height, index, .. } = game().stage else { unreachable!() };
		let mut nodes = g.truth.descent(first + step, linear, height, index).unwrap();
		assert_noop!(
			Arbitration::descend(
				origin(D),
				TASK,
				SEG,
				BoundedVec::truncate_from(nodes[1..].to_vec())
			),
			Error::<Test>::WrongPointCount
		);
		nodes[0] = [3u8; 32];
		assert_noop!(
			Arbitration::descend(origin(D), TASK, SEG, BoundedVec::truncate_from(nodes)),
			Error::<Test>::BadOpening
		);
		assert_noop!(
			Arbitration::open_chunk(origin(D), TASK, SEG, BoundedVec::new()),
			Error::<Test>::WrongStage
		);
		while !matches!(game().stage, Stage::PickElement { .. }) {
			let s = game();
			match (s.stage, s.turn) {
				(Stage::Descend { height: 0, index, .. }, Party::Defendant) => {
					let mut v = g.truth.chunk(first + step, linear, index).unwrap();
					v[0] ^= 1;
					assert_noop!(
						Arbitration::open_chunk(
							origin(D),
							TASK,
							SEG,
							BoundedVec::truncate_from(v.clone())
						),
						Error::<Test>::BadOpening
					);
					v[0] ^= 1;
					assert_ok!(Arbitration::open_chunk(
						origin(D),
						TASK,
						SEG,
						BoundedVec::truncate_from(v)
					));
				}
				(Stage::Descend { height, index, .. }, Party::Defendant) => {
					let n = g.truth.descent(first + step, linear, height, index).unwrap();
					assert_ok!(Arbitration::descend(
						origin(D),
						TASK,
						SEG,
						BoundedVec::truncate_from(n)
					));
				}
				(_, Party::Challenger) => {
					assert_ok!(Arbitration::pick(origin(C), TASK, SEG, 0));
				}
				other => panic!("{other:?}"),
			}
		}
		assert_noop!(
			Arbitration::pick_element(origin(C), TASK, SEG, 64),
			Error::<Test>::ElementOutOfRange
		);
		assert_ok!(Arbitration::pick_element(origin(C), TASK, SEG, 0));
		// A reduction needs its accumulator, and it must finish to the value.
		let Stage::Element { elem, value, .. } = game().stage else { unreachable!() };
		assert_noop!(
			Arbitration::answer_element(
				origin(D),
				TASK,
				SEG,
				ElementAnswer::Operands(BoundedVec::new()),
				SAMPLES
			),
			Error::<Test>::WrongAnswer
		);
		assert_noop!(
			Arbitration::answer_element(
				origin(D),
				TASK,
				SEG,
				ElementAnswer::Reduction(value ^ 1),
				SAMPLES
			),
			Error::<Test>::AccumulatorMismatch
		);
		let answer = g.truth.answer(first + step, linear, elem).unwrap();
		assert_ok!(Arbitration::answer_element(origin(D), TASK, SEG, answer, SAMPLES));
		assert_noop!(
			Arbitration::open_term(origin(D), TASK, SEG, BoundedVec::new()),
			Error::<Test>::WrongStage
		);
		Arbitration::do_try_state().unwrap();
	});
}

#[test]
fn data_answers_need_a_valid_chunk_and_a_sample_witness() {
	new_test_ext().execute_with(|| {
		let g = setup(None);
		open();
		let first = u64::from(SEG) * u64::from(K);
		let input = gensyn_repops::graph::INPUT;
		while !matches!(game().stage, Stage::PickTensor { .. }) {
			match game().turn {
				Party::Challenger => {
					assert_ok!(Arbitration::pick(origin(C), TASK, SEG, 0));
				}
				Party::Defendant => {
					assert_ok!(step_once(&g, game()));
				}
			}
		}
		assert_ok!(Arbitration::pick_tensor(origin(C), TASK, SEG, input));
		while !matches!(game().stage, Stage::Element { .. }) {
			let s = game();
			match (s.stage, s.turn) {
				(Stage::Descend { step, height: 0, index, .. }, Party::Defendant) => {
					let v = g.truth.chunk(first + step, input, index).unwrap();
					assert_ok!(Arbitration::open_chunk(
						origin(D),
						TASK,
						SEG,
						BoundedVec::truncate_from(v)
					));
				}
				(Stage::Descend { step, height, index, .. }, Party::Defendant) => {
					let n = g.truth.descent(first + step, input, height, index).unwrap();
					assert_ok!(Arbitration::descend(
						origin(D),
						TASK,
						SEG,
						BoundedVec::truncate_from(n)
					));
				}
				(Stage::PickElement { .. }, _) => {
					assert_ok!(Arbitration::pick_element(origin(C), TASK, SEG, 3));
				}
				(_, Party::Challenger) => {
					assert_ok!(Arbitration::pick(origin(C), TASK, SEG, 0));
				}
				other => panic!("{other:?}"),
			}
		}
		let Stage::Element { step, elem, .. } = game().stage else { unreachable!() };
		let ElementAnswer::Data(mut data) = g.truth.answer(first + step, input, elem).unwrap()
		else {
			panic!("data answer")
		};
		assert_noop!(
			Arbitration::answer_element(origin(D), TASK, SEG, ElementAnswer::Data(data.clone()), 1),
			Error::<Test>::TooManySamples
		);
		data.bytes[0] ^= 1;
		assert_noop!(
			Arbitration::answer_element(
				origin(D),
				TASK,
				SEG,
				ElementAnswer::Data(data.clone()),
				SAMPLES
			),
			Error::<Test>::BadDataProof
		);
		data.bytes[0] ^= 1;
		assert_ok!(Arbitration::answer_element(
			origin(D),
			TASK,
			SEG,
			ElementAnswer::Data(data),
			SAMPLES
		));
		assert_eq!(OUTCOMES.with(|o| o.borrow().clone()), vec![(TASK, SEG, false)]);
	});
}

/// A6: a flood of move deadlines at one block never refuses a move: they are filed on
/// as many pages as it takes and carry over to the next blocks, late but never lost.
#[test]
fn a_flood_of_move_deadlines_carries_over_and_refuses_no_game() {
	new_test_ext().execute_with(|| {
		let _g = setup(None);
		let ctx = CONTEXTS.with(|c| c.borrow().get(&KEY).cloned().unwrap());
		// Four a page: 18 games opened in one block fill five pages (the old bounded
		// lists spilled at most 64 blocks, then refused the move).
		for s in 0..18u32 {
			CONTEXTS.with(|c| c.borrow_mut().insert((TASK + 1, s), ctx.clone()));
			assert_ok!(<Arbitration as DisputeArbiter<u64>>::open(TASK + 1, s, &C, &D));
		}
		let at = 1 + TIMEOUT;
		let pages = |b: u64| -> Vec<usize> {
			let n = DeadlineCounts::<Test>::get(b);
			(0..n).map(|p| DeadlinePages::<Test>::get(b, p).len()).collect()
		};
		assert_eq!(pages(at), vec![4, 4, 4, 4, 2]);
		Arbitration::do_try_state().unwrap();
		time_out_blocks(TIMEOUT);
		// A page's worth (four) a block: the rest waits, and its games still stand.
		assert_eq!(DeadlineBacklog::<Test>::get(), Some(at));
		assert_eq!(pages(at).iter().sum::<usize>(), 14);
		Arbitration::do_try_state().unwrap();
		time_out_blocks(4);
		assert_eq!(DeadlineBacklog::<Test>::get(), None);
		assert_eq!(OUTCOMES.with(|o| o.borrow().len()), 18, "every game timed out");
		assert_eq!(Balances::total_balance_on_hold(&C), 0);
		Arbitration::do_try_state().unwrap();
	});
}

/// A flood carries a move's timeout over to later blocks; until the chain rules, the
/// game still waits on the late party. The block decides, not the queue: its move is
/// refused, and it loses on time when the timeout's turn comes.
#[test]
fn a_move_after_its_deadline_is_refused_while_the_flood_carries_the_timeout() {
	new_test_ext().execute_with(|| {
		let g = setup(None);
		let ctx = CONTEXTS.with(|c| c.borrow().get(&KEY).cloned().unwrap());
		for s in 0..18u32 {
			CONTEXTS.with(|c| c.borrow_mut().insert((TASK + 1, s), ctx.clone()));
			assert_ok!(<Arbitration as DisputeArbiter<u64>>::open(TASK + 1, s, &C, &D));
		}
		time_out_blocks(TIMEOUT);
		let (key, late) = Disputes::<Test>::iter()
			.find(|(_, d)| d.deadline <= System::block_number())
			.expect("a page of timeouts is carried over");
		assert_eq!(late.turn, Party::Defendant);
		let leaves = g.truth.checkpoint_leaves().unwrap();
		let proof = gensyn_primitives::merkle::proof(&leaves, SEG as usize).unwrap();
		let sibs = BoundedVec::truncate_from(proof.siblings.clone());
		assert_noop!(
			Arbitration::prove_start(origin(D), key.0, key.1, leaves[1], sibs),
			Error::<Test>::MoveTooLate
		);
		time_out_blocks(4);
		assert!(Disputes::<Test>::get(key).is_none(), "timed out");
		let lost = OUTCOMES.with(|o| o.borrow().contains(&(key.0, key.1, true)));
		assert!(lost, "the late defendant loses on time");
		assert_eq!(OUTCOMES.with(|o| o.borrow().len()), 18, "every game timed out");
		Arbitration::do_try_state().unwrap();
	});
}
