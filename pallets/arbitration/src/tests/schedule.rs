//! Games over runs that are not the task's: a first checkpoint other than the task's
//! seeded initial state, or checkpoints stamped with steps of the solver's choosing. A
//! colluding verifier's pass replays such a run to its own checkpoints; the node's
//! challenger, replaying the task's own steps from the task's own start, must still win,
//! and a challenger disputing an honest first checkpoint must lose.

use super::*;
use gensyn_repops::state::TrainState;

/// One game over `segment`, the defendant playing `defendant` (whose first checkpoints
/// are `leaves`) with `prover::defend`, the challenger `challenger` with
/// `prover::challenge`. Returns whether the challenger won.
fn play_out(segment: u32, leaves: &[Hash32], defendant: &Run, challenger: &Run) -> bool {
	let key = (TASK, segment);
	let first = u64::from(segment) * u64::from(K);
	let ctx = pallet_gensyn_tasks::DisputeContext {
		spec: defendant.spec.clone(),
		order_randomness: randomness(),
		first_step: first,
		steps: u64::from(K),
		checkpoint_root: gensyn_primitives::merkle::root(leaves),
		checkpoints: leaves.len() as u32,
		claimed_root: leaves[segment as usize + 1],
		claimed_distance: None,
	};
	CONTEXTS.with(|c| c.borrow_mut().insert(key, ctx));
	let issuance = Balances::total_issuance();
	assert_ok!(<Arbitration as DisputeArbiter<u64>>::open(TASK, segment, &C, &D));
	let mut moves = 0;
	while let Some(state) = Disputes::<Test>::get(key) {
		let roots: &'static [Hash32] = StepRoots::<Test>::get(key).into_inner().leak();
		let opened: &'static [u32] = OpenedChunks::<Test>::get(key).into_inner().leak();
		let posted: &'static Posted = Box::leak(Box::new(state.posted.clone()));
		let t = Table {
			task: TASK,
			segment,
			first_step: first,
			stage: state.stage,
			posted,
			step_roots: roots,
			opened,
			verdict: (leaves[segment as usize + 1], 0),
			claimed: None,
		};
		let (call, who) = match state.turn {
			Party::Defendant => (defend::<Test>(defendant, leaves, &t), D),
			Party::Challenger => (challenge::<Test>(challenger, &t), C),
		};
		// A player whose replay cannot answer the question stays silent.
		let done = call.map(|c| c.dispatch_bypass_filter(origin(who)).is_ok());
		if !done.unwrap_or(false) {
			let deadline = state.deadline;
			while System::block_number() < deadline {
				let b = System::block_number() + 1;
				System::set_block_number(b);
				Arbitration::on_initialize(b);
			}
		}
		Arbitration::do_try_state().unwrap();
		moves += 1;
		assert!(moves < 80, "the game did not end");
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
	check_funds(won, issuance);
	won
}

/// Whether the game ended with the chain computing the disputed element, for the
/// challenger when `won`.
fn computed(won: bool) -> bool {
	System::events().into_iter().any(|r| {
		matches!(
			r.event,
			RuntimeEvent::Arbitration(Event::Resolved {
				challenger_won,
				ruling: Ruling::ElementComputed,
				..
			}) if challenger_won == won
		)
	})
}

/// A whole run of the task trained honestly from `start` instead of its initial state.
fn run_from(start: TrainState) -> Run {
	let truth = honest_run();
	let steps = truth.spec.total_steps();
	Run::replay(truth.spec.clone(), truth.file.clone(), None, randomness(), start, steps, None)
		.unwrap()
}

/// The task's initial state with one value of `tensor` (a parameter, or an optimizer
/// state past the parameters) moved.
fn moved_start(tensor: usize) -> TrainState {
	let mut s = gensyn_repops::model::init_state(&honest_run().spec).unwrap();
	let params = s.params.len();
	let slot =
		if tensor < params { &mut s.params[tensor][5] } else { &mut s.opt[tensor - params][5] };
	*slot += 0.25;
	s
}

#[test]
fn a_pass_on_a_first_checkpoint_that_is_not_the_tasks_initial_state_loses() {
	let truth = honest_run();
	let params = truth.states[0].params.len();
	// A moved weight, a moved bias, and a momentum buffer that does not start at zero.
	for tensor in [0, 1, params] {
		new_test_ext().execute_with(|| {
			let faked = run_from(moved_start(tensor));
			let leaves = faked.checkpoint_leaves().unwrap();
			// The partner's pass: the faked run reaches its own second checkpoint.
			assert_eq!(leaves[1], faked.root(u64::from(K)).unwrap());
			assert!(play_out(0, &leaves, &faked, &truth), "tensor {tensor}: the fake stood");
			assert!(computed(true), "tensor {tensor}: the chain computed the initial value");
		});
	}
}

#[test]
fn a_challenger_disputing_the_tasks_own_initial_state_loses() {
	new_test_ext().execute_with(|| {
		let honest = honest_run();
		let leaves = honest.checkpoint_leaves().unwrap();
		// A challenger that believes in another start disputes a weight of the first step.
		let mistaken = run_from(moved_start(0));
		assert!(!play_out(0, &leaves, &honest, &mistaken));
		assert!(computed(false), "the chain computed the initial value for the defendant");
	});
}

#[test]
fn a_start_is_disputable_only_in_the_tasks_first_step() {
	new_test_ext().execute_with(|| {
		let honest = honest_run();
		let leaves = honest.checkpoint_leaves().unwrap();
		// Segment 1, opened at its first step: its parameters are the end of segment 0.
		let g = setup(None);
		open();
		let first = u64::from(SEG) * u64::from(K);
		for _ in 0..40 {
			let s = game();
			if matches!(s.stage, Stage::PickTensor { .. }) {
				break;
			}
			let pick_first = matches!((s.stage, s.turn), (Stage::Steps { .. }, Party::Challenger));
			if pick_first {
				assert_ok!(Arbitration::pick(origin(C), TASK, SEG, 0));
			} else {
				let t = table(&s);
				let call = defend::<Test>(&g.defendant, &leaves, &t).unwrap();
				assert_ok!(call.dispatch_bypass_filter(origin(D)));
			}
		}
		let Stage::PickTensor { step } = game().stage else { panic!("not at a step") };
		assert_eq!(first + step, first, "the segment's first step");
		let param = step_graph(&honest.spec, 8, first).unwrap().params[0];
		assert_noop!(
			Arbitration::pick_tensor(origin(C), TASK, SEG, param),
			Error::<Test>::NotDisputable
		);
	});
}

/// A solver that stamps checkpoint `i` with step `i` (one training step a segment) and a
/// partner verifier that passes segment 1 from it: the node's challenger, replaying the
/// task's own steps from that checkpoint, wins, whatever roots the defendant posts.
#[test]
fn a_pass_on_a_checkpoint_stamped_with_another_step_loses() {
	new_test_ext().execute_with(|| {
		let honest = honest_run();
		let n = honest.checkpoint_leaves().unwrap().len() as u64;
		let lazy: Vec<Hash32> = (0..n).map(|i| honest.root(i).unwrap()).collect();
		let first = u64::from(SEG) * u64::from(K);
		// The challenger's replay: checkpoint 1's state taken as the state after `K` steps.
		let mut start = honest.states[SEG as usize].clone();
		start.step = first;
		let spec = honest.spec.clone();
		let challenger =
			Run::replay(spec, honest.file.clone(), None, randomness(), start, K.into(), None)
				.unwrap();
		// The defendant answers from the challenger's own replay (the roots it would
		// agree with), so only the stamped start and end are in dispute.
		assert!(play_out(SEG, &lazy, &challenger, &challenger), "stamped start and end");
	});
	new_test_ext().execute_with(|| {
		// Only the start is stamped wrong: the pass claims what the task's steps reach,
		// and every root the defendant posts agrees with the challenger's.
		let honest = honest_run();
		let first = u64::from(SEG) * u64::from(K);
		let mut leaves = honest.checkpoint_leaves().unwrap();
		let mut stamped = honest.states[first as usize].clone();
		stamped.step = 1;
		leaves[SEG as usize] = stamped.root();
		assert!(play_out(SEG, &leaves, &honest, &honest), "a stamped start alone");
	});
}

/// The off-task proof of checkpoint `index` of `leaves`, whose state is `state`, with the
/// chunk of `chunk` (tensor, chunk) when given.
fn off_task_proof(
	leaves: &[Hash32],
	index: usize,
	state: &TrainState,
	chunk: Option<(usize, u64)>,
) -> pallet_gensyn_tasks::OffTaskProof {
	let tensors: Vec<&Vec<f32>> = state.params.iter().chain(&state.opt).collect();
	let roots: Vec<Hash32> =
		tensors.iter().map(|t| gensyn_primitives::merkle::tensor_root(t)).collect();
	let chunk = chunk.map(|(t, c)| {
		let (values, proof) = gensyn_repops::dispute::open_tensor(tensors[t], c).unwrap();
		pallet_gensyn_tasks::StateChunk {
			tensor: t as u32,
			chunk: c as u32,
			values: BoundedVec::truncate_from(values.iter().map(|v| v.to_bits()).collect()),
			siblings: BoundedVec::truncate_from(proof.siblings),
		}
	});
	pallet_gensyn_tasks::OffTaskProof {
		index: index as u32,
		siblings: BoundedVec::truncate_from(
			gensyn_primitives::merkle::proof(leaves, index).unwrap().siblings,
		),
		step: state.step,
		tensor_roots: BoundedVec::truncate_from(roots),
		chunk,
	}
}

fn shows_off_task(leaves: &[Hash32], proof: &pallet_gensyn_tasks::OffTaskProof) -> bool {
	let spec = honest_run().spec;
	let root = gensyn_primitives::merkle::root(leaves);
	<Arbitration as DisputeArbiter<u64>>::off_task(&spec, &root, leaves.len() as u32, proof)
}

#[test]
fn no_proof_shows_an_honest_run_off_its_task() {
	let honest = honest_run();
	let leaves = honest.checkpoint_leaves().unwrap();
	let k = u64::from(K);
	for (i, _) in leaves.iter().enumerate() {
		let state = honest.states[(i as u64 * k).min(honest.spec.total_steps()) as usize].clone();
		assert!(!shows_off_task(&leaves, &off_task_proof(&leaves, i, &state, None)), "{i}");
	}
	let start = &honest.states[0];
	let tensors = start.params.len() + start.opt.len();
	for t in 0..tensors {
		let proof = off_task_proof(&leaves, 0, start, Some((t, 0)));
		assert!(!shows_off_task(&leaves, &proof), "tensor {t}: the task's own initial values");
	}
}

#[test]
fn a_commitment_off_its_task_is_shown_from_one_checkpoint() {
	let honest = honest_run();
	// Another start: the moved value's chunk shows it; another chunk, or none, does not.
	for tensor in [0, 1, honest.states[0].params.len()] {
		let faked = run_from(moved_start(tensor));
		let leaves = faked.checkpoint_leaves().unwrap();
		let start = &faked.states[0];
		assert!(shows_off_task(&leaves, &off_task_proof(&leaves, 0, start, Some((tensor, 0)))));
		let other = if tensor == 0 { 1 } else { 0 };
		assert!(!shows_off_task(&leaves, &off_task_proof(&leaves, 0, start, Some((other, 0)))));
		assert!(!shows_off_task(&leaves, &off_task_proof(&leaves, 0, start, None)));
		// A proof of a state that is not the committed leaf shows nothing.
		let honest_leaves = honest.checkpoint_leaves().unwrap();
		let proof = off_task_proof(&honest_leaves, 0, start, Some((tensor, 0)));
		assert!(!shows_off_task(&honest_leaves, &proof), "not the committed checkpoint");
	}
	// Checkpoint `i` stamped with step `i` (one training step a segment).
	let n = honest.checkpoint_leaves().unwrap().len();
	let lazy: Vec<Hash32> = (0..n as u64).map(|i| honest.root(i).unwrap()).collect();
	assert!(shows_off_task(&lazy, &off_task_proof(&lazy, 1, &honest.states[1], None)));
	assert!(!shows_off_task(&lazy, &off_task_proof(&lazy, 0, &honest.states[0], None)));
}

/// A state root does not commit to its leaf count: with Adam the fixture's state has 12
/// tensors (13 leaves: 8 + 4 + 1), and the root of tensors 7..=10 in their place opens
/// the same root with 9 tensors. Such an opening of an honest first checkpoint shows
/// nothing (a count other than the spec's is never taken as proof).
#[test]
fn an_opening_with_another_tensor_count_shows_nothing() {
	use gensyn_primitives::{merkle, F32Bits, Optimizer};
	let mut spec = honest_run().spec;
	spec.training.optimizer = Optimizer::Adam {
		lr: F32Bits::from_f32(0.01),
		beta1: F32Bits::from_f32(0.9),
		beta2: F32Bits::from_f32(0.999),
		eps: F32Bits::from_f32(1e-8),
	};
	let start = gensyn_repops::model::init_state(&spec).unwrap();
	let leaves = [start.root(), [1; 32], [2; 32]];
	let check = |proof: &pallet_gensyn_tasks::OffTaskProof| {
		let root = merkle::root(&leaves);
		<Arbitration as DisputeArbiter<u64>>::off_task(&spec, &root, 3, proof)
	};
	let honest = off_task_proof(&leaves, 0, &start, None);
	assert_eq!(honest.tensor_roots.len(), 12);
	assert!(!check(&honest));
	let mut roots = honest.tensor_roots.to_vec();
	let tail = roots.split_off(7);
	let collapsed = [merkle::root(&tail[..4]), tail[4]];
	roots.extend(collapsed);
	let forged = pallet_gensyn_tasks::OffTaskProof {
		tensor_roots: BoundedVec::truncate_from(roots),
		..honest
	};
	let opened = gensyn_repops::dispute::state_root(0, forged.tensor_roots.iter().copied());
	assert_eq!(opened, leaves[0], "a valid opening of the committed leaf");
	assert!(!check(&forged), "another count is no proof");
}
