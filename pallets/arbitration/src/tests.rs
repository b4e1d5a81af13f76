//! Games played to the end against real repops runs: an honest defendant against a
//! false challenger, a lying defendant against an honest challenger, at every level;
//! silent parties; every error of every move; bonds and issuance.

use crate::{mock::*, prover::*, *};
use frame_support::{
	assert_noop, assert_ok,
	traits::{fungible::InspectHold, Hooks, UnfilteredDispatchable},
};
use gensyn_repops::graph::{step_graph, OpKind};
use pallet_gensyn_tasks::DisputeArbiter;

const C: u64 = 1;
const D: u64 = 2;
const TASK: u64 = 7;
const SEG: u32 = 1;
const K: u32 = 20;
const KEY: DisputeKey = (TASK, SEG);
/// The fault's step: inside segment 1 (steps 20..40).
const FAULT_STEP: u64 = 27;

/// The honest run and the defendant's (maybe faulty) run.
struct Game {
	truth: Run,
	defendant: Run,
}

fn randomness() -> [u8; 32] {
	[9u8; 32]
}

fn honest_run() -> Run {
	let file = fixture_file();
	Run::new(fixture_spec(&file, K), file, randomness(), None)
}

/// Tensor ids of the fixture's step graph: (first LinearFwd output, first ReluFwd
/// output, an optimizer update output).
fn targets() -> (u32, u32, u32) {
	let file = fixture_file();
	let g = step_graph(&fixture_spec(&file, K), 8, FAULT_STEP).unwrap();
	let find = |f: fn(&OpKind) -> bool| g.ops.iter().find(|o| f(&o.kind)).unwrap().output;
	(
		find(|k| matches!(k, OpKind::LinearFwd { .. })),
		find(|k| matches!(k, OpKind::ReluFwd)),
		*g.new_params.first().unwrap(),
	)
}

/// Sets up a game over segment `SEG`; `fault` makes the defendant lie.
fn setup(fault: Option<Fault>) -> Game {
	let truth = honest_run();
	let defendant = match fault {
		None => honest_run(),
		Some(f) => Run::new(truth.spec.clone(), truth.file.clone(), randomness(), Some(f)),
	};
	let leaves = truth.checkpoint_leaves().unwrap();
	let end = u64::from(SEG + 1) * u64::from(K);
	let ctx = pallet_gensyn_tasks::DisputeContext {
		spec: truth.spec.clone(),
		order_randomness: randomness(),
		first_step: u64::from(SEG) * u64::from(K),
		steps: u64::from(K),
		checkpoint_root: gensyn_primitives::merkle::root(&leaves),
		checkpoints: leaves.len() as u32,
		claimed_root: defendant.root(end).unwrap(),
	};
	CONTEXTS.with(|c| c.borrow_mut().insert(KEY, ctx));
	Game { truth, defendant }
}

fn open() {
	assert_ok!(<Arbitration as DisputeArbiter<u64>>::open(TASK, SEG, &C, &D));
}

fn game() -> Dispute<Test> {
	Disputes::<Test>::get(KEY).expect("game open")
}

/// How the challenger plays.
#[derive(Clone, Copy, PartialEq)]
enum Challenger {
	/// Names the first value that differs from the truth.
	Honest,
	/// Disputes an honest defendant: picks the first interval, tensor `target`, the
	/// first node and element of it.
	False { target: u32 },
	/// Picks at random (valid picks only), from `seed`.
	Random { seed: u64 },
}

/// A small deterministic generator (SplitMix64).
fn mix(mut z: u64) -> u64 {
	z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
	z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
	z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
	z ^ (z >> 31)
}

/// A random pick below `n` for the move `moves` of a game played with `seed`.
fn random_below(seed: u64, moves: u32, n: u64) -> u64 {
	mix(seed ^ (u64::from(moves) << 32)) % n.max(1)
}

/// How the defendant plays at the steps level.
#[derive(Clone, Copy, PartialEq)]
enum Defendant {
	/// Answers from its run.
	FromRun,
	/// Posts garbage state roots at the first step bisection.
	GarbageRoots,
}

/// Lets the party to move miss its deadline.
fn time_out() {
	let deadline = game().deadline;
	let mut b = System::block_number();
	while b < deadline {
		b += 1;
		System::set_block_number(b);
		Arbitration::on_initialize(b);
	}
}

fn origin(who: u64) -> RuntimeOrigin {
	RuntimeOrigin::signed(who)
}

/// What a player sees of the game in `state` (for `prover::challenge` / `defend`).
fn table(state: &Dispute<Test>) -> Table<'static> {
	let roots: &'static [Hash32] = StepRoots::<Test>::get(KEY).into_inner().leak();
	let opened: &'static [u32] = OpenedChunks::<Test>::get(KEY).into_inner().leak();
	let posted: &'static Posted = Box::leak(Box::new(state.posted.clone()));
	Table {
		task: TASK,
		segment: SEG,
		first_step: u64::from(SEG) * u64::from(K),
		stage: state.stage,
		posted,
		step_roots: roots,
		opened,
	}
}

/// One move of the party to move, played by the given strategies (the honest
/// challenger is `prover::challenge`; the match below plays the others).
fn make_move(g: &Game, c: Challenger, d: Defendant, state: Dispute<Test>) -> DispatchResult {
	let first = u64::from(SEG) * u64::from(K);
	if c == Challenger::Honest && state.turn == Party::Challenger {
		let call = challenge::<Test>(&g.truth, &table(&state)).unwrap();
		return call.dispatch_bypass_filter(origin(C)).map(|_| ()).map_err(|e| e.error);
	}
	match (state.stage, state.turn, &state.posted) {
		(Stage::Start, Party::Defendant, _) => {
			let leaves = g.truth.checkpoint_leaves().unwrap();
			let proof = gensyn_primitives::merkle::proof(&leaves, SEG as usize).unwrap();
			Arbitration::prove_start(
				origin(D),
				TASK,
				SEG,
				leaves[SEG as usize],
				BoundedVec::truncate_from(proof.siblings),
			)
		}
		(Stage::Steps { lo, hi, .. }, Party::Defendant, Posted::Nothing) => {
			let points = gensyn_repops::dispute::dissection_points(lo, hi, MAX_POINTS);
			let roots: Vec<Hash32> = if d == Defendant::GarbageRoots {
				points.iter().map(|p| [*p as u8; 32]).collect()
			} else {
				points.iter().map(|p| g.defendant.root(first + p).unwrap()).collect()
			};
			Arbitration::bisect_steps(origin(D), TASK, SEG, BoundedVec::truncate_from(roots))
		}
		(Stage::Steps { .. }, Party::Challenger, Posted::Roots(posted)) => {
			let pick = match c {
				Challenger::Honest | Challenger::False { .. } => 0,
				Challenger::Random { seed } => {
					random_below(seed, state.moves, posted.len() as u64 + 1) as u32
				}
			};
			Arbitration::pick(origin(C), TASK, SEG, pick)
		}
		(Stage::OpenStep { step, .. }, Party::Defendant, _) => {
			let roots = g.defendant.tensor_roots(first + step).unwrap();
			Arbitration::open_step(origin(D), TASK, SEG, BoundedVec::truncate_from(roots))
		}
		(Stage::PickTensor { step }, Party::Challenger, _) => {
			let tensor = match c {
				Challenger::False { target } => target,
				Challenger::Random { seed } => {
					let trace = g.truth.step_trace(first + step).unwrap();
					let mut options =
						vec![gensyn_repops::graph::INPUT, gensyn_repops::graph::LABELS];
					options.extend(trace.graph.ops.iter().map(|o| o.output));
					options[random_below(seed, state.moves, options.len() as u64) as usize]
				}
				Challenger::Honest => unreachable!("played above"),
			};
			Arbitration::pick_tensor(origin(C), TASK, SEG, tensor)
		}
		(Stage::Descend { step, tensor, height, index, .. }, Party::Defendant, Posted::Nothing) => {
			if height == 0 {
				let values = g.defendant.chunk(first + step, tensor, index).unwrap();
				Arbitration::open_chunk(origin(D), TASK, SEG, BoundedVec::truncate_from(values))
			} else {
				let nodes = g.defendant.descent(first + step, tensor, height, index).unwrap();
				Arbitration::descend(origin(D), TASK, SEG, BoundedVec::truncate_from(nodes))
			}
		}
		(Stage::Descend { .. }, Party::Challenger, Posted::Roots(kids)) => {
			let pick = match c {
				Challenger::Honest | Challenger::False { .. } => 0,
				Challenger::Random { seed } => {
					random_below(seed, state.moves, kids.len() as u64) as u32
				}
			};
			Arbitration::pick(origin(C), TASK, SEG, pick)
		}
		(Stage::PickElement { .. }, Party::Challenger, _) => {
			let opened = OpenedChunks::<Test>::get(KEY);
			let within = match c {
				Challenger::Honest | Challenger::False { .. } => 0,
				Challenger::Random { seed } => {
					random_below(seed, state.moves, opened.len() as u64) as u32
				}
			};
			Arbitration::pick_element(origin(C), TASK, SEG, within)
		}
		(Stage::Element { step, tensor, elem, .. }, Party::Defendant, _) => {
			let answer = g.defendant.answer(first + step, tensor, elem).unwrap();
			Arbitration::answer_element(origin(D), TASK, SEG, answer, SAMPLES)
		}
		(
			Stage::Reduction { step, tensor, elem, lo, hi, .. },
			Party::Defendant,
			Posted::Nothing,
		) => {
			if hi == lo + 1 {
				let ops = g.defendant.term(first + step, tensor, elem, lo).unwrap();
				Arbitration::open_term(origin(D), TASK, SEG, ops)
			} else {
				let accs = g.defendant.partials(first + step, tensor, elem, lo, hi).unwrap();
				Arbitration::bisect_reduction(origin(D), TASK, SEG, BoundedVec::truncate_from(accs))
			}
		}
		(Stage::Reduction { .. }, Party::Challenger, Posted::Accs(posted)) => {
			let pick = match c {
				Challenger::Honest | Challenger::False { .. } => posted.len() as u32,
				Challenger::Random { seed } => {
					random_below(seed, state.moves, posted.len() as u64 + 1) as u32
				}
			};
			Arbitration::pick(origin(C), TASK, SEG, pick)
		}
		other => panic!("no move for {other:?}"),
	}
}

/// Plays the game to its end; returns the ruling's event fields.
fn play(g: &Game, c: Challenger, d: Defendant) -> (bool, Ruling, u32) {
	for _ in 0..200 {
		let Some(state) = Disputes::<Test>::get(KEY) else { break };
		Arbitration::do_try_state().unwrap();
		if make_move(g, c, d, state).is_err() {
			// The party cannot make a valid move: it stays silent.
			time_out();
		}
	}
	assert!(Disputes::<Test>::get(KEY).is_none(), "game did not end");
	let resolved = System::events()
		.into_iter()
		.find_map(|r| match r.event {
			RuntimeEvent::Arbitration(Event::Resolved {
				challenger_won, ruling, moves, ..
			}) => Some((challenger_won, ruling, moves)),
			_ => None,
		})
		.expect("resolved event");
	let heard = OUTCOMES.with(|o| o.borrow().clone());
	assert_eq!(heard, vec![(TASK, SEG, resolved.0)], "the tasks pallet hears the outcome once");
	resolved
}

/// Checks the bond went to the right party and nothing was minted or burnt.
fn check_funds(challenger_won: bool, issuance: u64) {
	assert_eq!(Balances::total_balance_on_hold(&C), 0);
	assert!(StepRoots::<Test>::get(KEY).is_empty() && OpenedChunks::<Test>::get(KEY).is_empty());
	if challenger_won {
		assert_eq!(Balances::free_balance(C), 1_000);
		assert_eq!(Balances::free_balance(D), 1_000);
	} else {
		assert_eq!(Balances::free_balance(C), 1_000 - BOND);
		assert_eq!(Balances::free_balance(D), 1_000 + BOND);
	}
	assert_eq!(Balances::total_issuance(), issuance);
}

fn run_game(fault: Option<Fault>, c: Challenger, d: Defendant) -> (bool, Ruling, u32) {
	let g = setup(fault);
	let issuance = Balances::total_issuance();
	open();
	assert_eq!(Balances::balance_on_hold(&HoldReason::GameBond.into(), &C), BOND);
	let result = play(&g, c, d);
	check_funds(result.0, issuance);
	result
}

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

/// One honest move (for tests that stop midway).
fn step_once(g: &Game, s: Dispute<Test>) -> DispatchResult {
	make_move(g, Challenger::Honest, Defendant::FromRun, s)
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

fn time_out_blocks(n: u64) {
	for _ in 0..n {
		let b = System::block_number() + 1;
		System::set_block_number(b);
		Arbitration::on_initialize(b);
	}
}

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

#[test]
fn deadlines_spill_to_the_next_block_when_one_is_full() {
	new_test_ext().execute_with(|| {
		let _g = setup(None);
		let ctx = CONTEXTS.with(|c| c.borrow().get(&KEY).cloned().unwrap());
		for s in 0..6u32 {
			CONTEXTS.with(|c| c.borrow_mut().insert((TASK + 1, s), ctx.clone()));
			assert_ok!(<Arbitration as DisputeArbiter<u64>>::open(TASK + 1, s, &C, &D));
		}
		let at = 1 + TIMEOUT;
		assert_eq!(Deadlines::<Test>::get(at).len(), 4);
		assert_eq!(Deadlines::<Test>::get(at + 1).len(), 2);
		Arbitration::do_try_state().unwrap();
		time_out_blocks(TIMEOUT + 1);
		assert_eq!(OUTCOMES.with(|o| o.borrow().len()), 6);
		assert_eq!(Balances::total_balance_on_hold(&C), 0);
	});
}

/// The longest game over a segment of the MNIST MLP example (k = 50, batch 64): moves
/// per level from the real step graph, and the largest move's payload.
#[test]
fn mnist_mlp_longest_dispute() {
	let text = include_str!("../../../examples/mnist-mlp.json");
	let spec: gensyn_primitives::TaskSpec = serde_json::from_str(text).unwrap();
	let g = step_graph(&spec, spec.training.batch_size, 0).unwrap();
	let rounds = |mut len: u64| {
		let mut r = 0u32;
		while len > 1 {
			let pts = gensyn_repops::dispute::dissection_points(0, len, MAX_POINTS);
			len = len.div_ceil(pts.len() as u64 + 1);
			r += 1;
		}
		r
	};
	let steps = rounds(u64::from(spec.training.checkpoint_interval));
	let mut worst = 0u32;
	for (i, op) in g.ops.iter().enumerate() {
		let numel = g.tensors[op.output as usize].numel() as u64;
		let height =
			gensyn_repops::dispute::tree_height(gensyn_repops::dispute::tensor_chunks(numel));
		let descents = height.div_ceil(4);
		let red = (0..numel.min(4))
			.filter_map(|e| gensyn_repops::element::reduction(&g, i, e).unwrap())
			.map(|r| r.len)
			.max()
			.unwrap_or(0);
		// descent: reveal + pick per round, open chunk, pick element, answer; reduction:
		// post + pick per round, open term.
		let moves = 2 * descents + 3 + if red > 0 { 2 * rounds(red) + 1 } else { 0 };
		worst = worst.max(moves);
	}
	// start proof, step rounds, open step, pick tensor, then the worst op.
	let total = 1 + 2 * steps + 2 + worst;
	let open_step_bytes = g.tensors.len() * 32;
	println!(
		"MNIST MLP k=50: {} tensors, open_step {} bytes, longest dispute {} moves",
		g.tensors.len(),
		open_step_bytes,
		total
	);
	assert!(total <= 40, "{total} moves");
	assert!(open_step_bytes <= 64 * 1024);
	assert!(g.tensors.len() as u32 <= 256);
}

#[test]
fn games_tell_each_player_when_to_move() {
	new_test_ext().execute_with(|| {
		let g = setup(None);
		open();
		let d = Arbitration::games(&D);
		assert_eq!(d.len(), 1);
		assert!(d[0].to_move && d[0].side == Party::Defendant && d[0].stage == Stage::Start);
		assert_eq!(d[0].moves, 0);
		assert!(!Arbitration::games(&C)[0].to_move);
		assert!(Arbitration::games(&3).is_empty());
		assert_ok!(step_once(&g, game()));
		assert_ok!(step_once(&g, game()));
		assert!(Arbitration::games(&C)[0].to_move);
		assert_eq!(Arbitration::games(&C)[0].moves, 2);
		assert!(matches!(Arbitration::games(&C)[0].posted, Posted::Roots(_)));
	});
}

/// Random games: random faults, a random or honest challenger, and at random moments the
/// party to move goes silent or concedes. Every game ends within the move bound, the
/// invariants hold after every move, funds are conserved, and the outcome is the truth's
/// unless a party gave up: an honest defendant never loses, a liar never beats an honest
/// challenger.
#[test]
fn random_games_end_in_time_conserve_funds_and_the_truth_wins() {
	let (linear, relu, update) = targets();
	for seed in 1..=16u64 {
		new_test_ext().execute_with(|| {
			let r = |k: u64| mix(seed.wrapping_mul(1_000) + k);
			let fault = match r(0) % 5 {
				0 | 1 => None,
				2 => Some((linear, (r(1) % 64) as usize)),
				3 => Some((relu, (r(1) % 64) as usize)),
				_ => Some((update, (r(1) % 500) as usize)),
			}
			.map(|(tensor, elem)| Fault { step: FAULT_STEP, tensor, elem, value: 0.25 });
			let challenger = if fault.is_some() && r(2) % 2 == 0 {
				Challenger::Honest
			} else {
				Challenger::Random { seed }
			};
			let g = setup(fault);
			let issuance = Balances::total_issuance();
			open();
			let mut gave_up = None;
			for i in 0..200u64 {
				let Some(state) = Disputes::<Test>::get(KEY) else { break };
				Arbitration::do_try_state().unwrap();
				assert!(state.moves <= 51, "seed {seed}: {} moves", state.moves);
				let turn = state.turn;
				let who = if turn == Party::Defendant { D } else { C };
				match r(100 + i) % 16 {
					0 => {
						gave_up = Some(turn);
						time_out();
					}
					1 => {
						gave_up = Some(turn);
						assert_ok!(Arbitration::concede(origin(who), TASK, SEG));
					}
					_ => {
						if make_move(&g, challenger, Defendant::FromRun, state).is_err() {
							gave_up = Some(turn);
							time_out();
						}
					}
				}
			}
			assert!(Disputes::<Test>::get(KEY).is_none(), "seed {seed}: game did not end");
			let won = OUTCOMES.with(|o| o.borrow().first().map(|x| x.2)).expect("an outcome");
			check_funds(won, issuance);
			match (gave_up, fault, challenger) {
				(Some(p), _, _) => assert_eq!(won, p == Party::Defendant, "seed {seed}"),
				(None, None, _) => assert!(!won, "seed {seed}: an honest defendant lost"),
				(None, Some(_), Challenger::Honest) => assert!(won, "seed {seed}: a liar won"),
				_ => {}
			}
		});
	}
}

/// The node's players (`prover::defend` and `prover::challenge`) against each other, on
/// replays of the segment alone (as workers have them): a defendant whose replay went
/// wrong concedes or is refuted, an honest defendant beats a challenger whose replay went
/// wrong, and a challenger that finds nothing to dispute concedes.
#[test]
fn node_players_play_whole_games_from_segment_replays() {
	let (linear, relu, _) = targets();
	let first = u64::from(SEG) * u64::from(K);
	let segment_run = |fault: Option<Fault>| {
		let full = honest_run();
		let start = full.states[first as usize].clone();
		Run::replay(
			full.spec.clone(),
			full.file.clone(),
			None,
			randomness(),
			start,
			K.into(),
			fault,
		)
		.unwrap()
	};
	let bad = |tensor| Fault { step: FAULT_STEP, tensor, elem: 3, value: 7.5 };
	// (defendant's fault, challenger's fault, whether the challenger should win)
	let cases = [
		(Some(bad(linear)), None, true),
		(Some(bad(relu)), None, true),
		(None, Some(bad(linear)), false),
		(None, None, false),
	];
	for (d_fault, c_fault, challenger_should_win) in cases {
		new_test_ext().execute_with(|| {
			let g = setup(d_fault);
			open();
			let defendant = segment_run(d_fault);
			let challenger = segment_run(c_fault);
			assert_eq!(
				defendant.root(first + u64::from(K)).unwrap(),
				g.defendant.root(first + u64::from(K)).unwrap()
			);
			let leaves = g.truth.checkpoint_leaves().unwrap();
			let mut moves = 0;
			while let Some(state) = Disputes::<Test>::get(KEY) {
				let t = table(&state);
				let (call, who) = match state.turn {
					Party::Defendant => (defend::<Test>(&defendant, &leaves, &t).unwrap(), D),
					Party::Challenger => (challenge::<Test>(&challenger, &t).unwrap(), C),
				};
				assert_ok!(call.dispatch_bypass_filter(origin(who)));
				Arbitration::do_try_state().unwrap();
				moves += 1;
				assert!(moves < 60, "the game did not end");
			}
			let won = System::events()
				.into_iter()
				.find_map(|r| match r.event {
					RuntimeEvent::Arbitration(Event::Resolved { challenger_won, .. }) => {
						Some(challenger_won)
					}
					_ => None,
				})
				.expect("resolved");
			assert_eq!(won, challenger_should_win, "case {d_fault:?} / {c_fault:?}");
		});
	}
}
