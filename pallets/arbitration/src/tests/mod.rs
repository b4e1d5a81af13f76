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

/// The task a game is played over.
#[derive(Clone, Copy, PartialEq)]
enum Fixture {
	/// The MNIST-like MLP.
	Mlp,
	/// The small language model.
	Lm,
}

fn honest_run() -> Run {
	honest_run_of(Fixture::Mlp)
}

fn honest_run_of(fixture: Fixture) -> Run {
	let (file, spec) = match fixture {
		Fixture::Mlp => {
			let file = fixture_file();
			let spec = fixture_spec(&file, K);
			(file, spec)
		}
		Fixture::Lm => {
			let file = lm_fixture_file();
			let spec = lm_fixture_spec(&file, K);
			(file, spec)
		}
	};
	Run::new(spec, file, randomness(), None)
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
	setup_of(Fixture::Mlp, fault)
}

/// [`setup`] over the task of `fixture`.
fn setup_of(fixture: Fixture, fault: Option<Fault>) -> Game {
	let truth = honest_run_of(fixture);
	let defendant = match fault {
		None => honest_run_of(fixture),
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
		claimed_distance: None,
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
		verdict: (state.claimed_root, 0),
		claimed: None,
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
	let resolved = resolved();
	let heard = OUTCOMES.with(|o| o.borrow().clone());
	assert_eq!(heard, vec![(TASK, SEG, resolved.0)], "the tasks pallet hears the outcome once");
	resolved
}

/// The ruling's event fields: (challenger won, ruling, moves).
fn resolved() -> (bool, Ruling, u32) {
	System::events()
		.into_iter()
		.find_map(|r| match r.event {
			RuntimeEvent::Arbitration(Event::Resolved {
				challenger_won, ruling, moves, ..
			}) => Some((challenger_won, ruling, moves)),
			_ => None,
		})
		.expect("resolved event")
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
	run_game_of(Fixture::Mlp, fault, c, d)
}

/// [`run_game`] over the task of `fixture`.
fn run_game_of(
	fixture: Fixture,
	fault: Option<Fault>,
	c: Challenger,
	d: Defendant,
) -> (bool, Ruling, u32) {
	let g = setup_of(fixture, fault);
	let issuance = Balances::total_issuance();
	open();
	assert_eq!(Balances::balance_on_hold(&HoldReason::GameBond.into(), &C), BOND);
	let result = play(&g, c, d);
	check_funds(result.0, issuance);
	result
}

/// One honest move (for tests that stop midway).
fn step_once(g: &Game, s: Dispute<Test>) -> DispatchResult {
	make_move(g, Challenger::Honest, Defendant::FromRun, s)
}

fn time_out_blocks(n: u64) {
	for _ in 0..n {
		let b = System::block_number() + 1;
		System::set_block_number(b);
		Arbitration::on_initialize(b);
	}
}

mod distance;
mod language;
mod moves;
mod outcomes;
mod schedule;
mod whole_games;
