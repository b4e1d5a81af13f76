//! Whole games: the examples' longest disputes, the runtime API, random games, and the node's own players.

use super::*;

/// The longest game over a segment of each example (the MNIST MLP and CNN, the small
/// language model): moves per level from the real step graph, and the step opening's
/// payload (the largest move).
#[test]
fn longest_disputes_of_the_examples() {
	let examples = [
		("MNIST MLP", include_str!("../../../../examples/mnist-mlp.json")),
		("MNIST CNN", include_str!("../../../../examples/mnist-cnn.json")),
		("small language model", include_str!("../../../../examples/charlm-small.json")),
	];
	for (name, text) in examples {
		let spec: gensyn_primitives::TaskSpec = serde_json::from_str(text).unwrap();
		let (moves, tensors) = longest_dispute(&spec);
		let open_step_bytes = tensors * 32;
		// A Threshold-mode verdict's game starts with the challenger's choice; over the
		// distance it is the choice, the sums, the pick of one, its bisection and the term.
		let longest_sum = gensyn_repops::threshold::sums_of(&spec)
			.iter()
			.map(|s| gensyn_repops::threshold::sum_len(&spec, *s))
			.max()
			.unwrap();
		let distance = 3 + 2 * rounds(longest_sum) + 1;
		let term_bytes = <SumTerm as codec::MaxEncodedLen>::max_encoded_len();
		println!(
			"{name} k={}: {tensors} tensors, open_step {open_step_bytes} bytes, longest \
			 dispute {moves} moves ({} in Threshold mode); over the distance {distance} \
			 moves ({longest_sum} terms), the last bounded by {term_bytes} bytes",
			spec.training.checkpoint_interval,
			moves + 1
		);
		assert!(moves < 52, "{name}: {moves} moves, past the runtime's MAX_MOVES");
		assert!(distance <= 52, "{name}: {distance} moves over the distance");
		assert!(term_bytes <= 32 * 1024, "{term_bytes}");
		assert!(open_step_bytes <= 64 * 1024);
		// The runtime's `MaxTensors`.
		assert!(tensors as u32 <= 1_024, "{name}: {tensors} tensors");
	}
}

/// Bisection rounds that narrow `len` items to one.
fn rounds(mut len: u64) -> u32 {
	let mut r = 0u32;
	while len > 1 {
		let pts = gensyn_repops::dispute::dissection_points(0, len, MAX_POINTS);
		len = len.div_ceil(pts.len() as u64 + 1);
		r += 1;
	}
	r
}

/// The most moves a game over one segment of `spec` takes, and the tensors of its step.
fn longest_dispute(spec: &gensyn_primitives::TaskSpec) -> (u32, usize) {
	let g = step_graph(spec, spec.training.batch_size, 0).unwrap();
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
	(1 + 2 * steps + 2 + worst, g.tensors.len())
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
						if let Err(e) = make_move(&g, challenger, Defendant::FromRun, state) {
							// Only a liar may be left without a valid move: the chain
							// refusing an honest party's move is a failure, not giving up.
							let honest = match turn {
								Party::Defendant => fault.is_none(),
								Party::Challenger => challenger == Challenger::Honest,
							};
							assert!(
								!honest,
								"seed {seed}: an honest {turn:?}'s move refused: {e:?}"
							);
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

/// The slowest move a defendant makes, at a bound on a segment's gas (the runtime's
/// `MaxSegmentGas`, passed in `MOVE_TIME_GAS` by `scripts/bench/move-time.sh`): its first
/// bisection replays the whole segment on one core, as the node's player does, and roots
/// the states at the dissection points. Two op mixes: a wide MLP (large products, which
/// the gas table prices well) and a small CNN with Adam (small convolutions, pooling and
/// many ops a step, where fixed costs weigh more). A measurement: it prints the times and
/// checks only that each replay was the bound's size.
#[test]
#[ignore = "a measurement of minutes: scripts/bench/move-time.sh"]
fn worst_case_first_move() {
	use gensyn_primitives::{fixtures, segment_work, Layer, Shape3};
	let bound: u64 = std::env::var("MOVE_TIME_GAS")
		.ok()
		.and_then(|v| v.parse().ok())
		.expect("MOVE_TIME_GAS: the gas bound to measure at");
	// 25,600 samples of 8x8 (100 steps an epoch at batch 256), 4 classes.
	let samples = 25_600;
	let file = fixture_file_of(samples);
	let base = fixture_spec_of(&file, samples, 1);
	let input = Shape3 { channels: 1, height: SIDE, width: SIDE };
	let on_data = |mut s: gensyn_primitives::TaskSpec| {
		s.data = base.data.clone();
		s.training.batch_size = 256;
		s.training.epochs = 1_000;
		s.training.seed = base.training.seed;
		s
	};
	let mlp = on_data(fixtures::mlp(input, 2_048, 4));
	let cnn = on_data(fixtures::with(fixtures::tiny_cnn(), |s| {
		s.model.input = input;
		let mut layers = s.model.layers.clone().into_inner();
		if let Some(Layer::Linear { out_features, .. }) = layers.last_mut() {
			*out_features = 4;
		}
		s.model.layers = gensyn_primitives::BoundedVec::try_from_vec(layers).unwrap();
		s.training.lr_schedule = gensyn_primitives::LrSchedule::Constant;
	}));
	for (name, mut spec) in [("wide MLP", mlp), ("small CNN, Adam", cnn)] {
		let per_step = gensyn_primitives::estimate(&spec).unwrap().per_step;
		spec.training.checkpoint_interval = (bound / per_step) as u32;
		let work = segment_work(&spec).unwrap();
		assert!(work.gas <= bound && work.gas + per_step > bound, "{work:?}");
		let start = gensyn_repops::model::init_state(&spec).unwrap();
		let began = std::time::Instant::now();
		let run =
			Run::replay(spec, file.clone(), None, randomness(), start, work.steps, None).unwrap();
		let replayed = began.elapsed();
		for p in gensyn_repops::dispute::dissection_points(0, work.steps, MAX_POINTS) {
			run.root(p).unwrap();
		}
		let total = began.elapsed();
		println!(
			"MOVE_TIME {name}: gas={} steps={} state_bytes={} replay_s={:.1} move_s={:.1} \
			 ns_per_gas={:.3}",
			work.gas,
			work.steps,
			work.state_bytes,
			replayed.as_secs_f64(),
			total.as_secs_f64(),
			replayed.as_nanos() as f64 / work.gas as f64
		);
	}
}
