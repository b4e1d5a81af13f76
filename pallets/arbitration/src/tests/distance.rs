//! Games over a Threshold-mode distance, played to the end against real repops runs:
//! an honest defendant beats a false challenger; a defendant that posts a faked
//! checkpoint's true replay root with distance 0 (a lazy solver's partner) loses to
//! the honest challenger; a challenger that finds the root wrong plays the replay game.

use super::*;
use gensyn_repops::{state::TrainState, threshold};

/// A game over the distance of `claimed` (the solver's checkpoint at the end of
/// segment `SEG`) from the honest replay.
struct DistanceGame {
	/// The honest replay of the segment alone.
	replay: Run,
	/// The solver's checkpoint at the segment's end.
	claimed: TrainState,
	/// The solver's checkpoint roots (`claimed` at leaf `SEG + 1`).
	leaves: Vec<Hash32>,
	/// The distance the verdict posts (f32 bits).
	posted: u32,
}

/// The honest distance of `claimed` from the segment's replay.
fn true_distance(replay: &Run, claimed: &TrainState) -> u32 {
	let (start, end) = replay.segment_ends(SEG).unwrap();
	let d = threshold::relative_distance(&replay.spec, start, end, claimed).unwrap();
	gensyn_primitives::verdict::posted_distance(d).to_bits()
}

/// Sets up the game; `posted` is the verdict's distance (the true one when `None`).
fn setup_distance(claimed: impl Fn(&Run) -> TrainState, posted: Option<u32>) -> DistanceGame {
	let whole = honest_run();
	let first = u64::from(SEG) * u64::from(K);
	let start = whole.states[first as usize].clone();
	let replay = Run::replay(
		whole.spec.clone(),
		whole.file.clone(),
		None,
		randomness(),
		start,
		u64::from(K),
		None,
	)
	.unwrap();
	let claimed = claimed(&replay);
	let mut leaves = whole.checkpoint_leaves().unwrap();
	leaves[SEG as usize + 1] = claimed.root();
	let posted = posted.unwrap_or_else(|| true_distance(&replay, &claimed));
	let ctx = pallet_gensyn_tasks::DisputeContext {
		spec: whole.spec.clone(),
		order_randomness: randomness(),
		first_step: first,
		steps: u64::from(K),
		checkpoint_root: gensyn_primitives::merkle::root(&leaves),
		checkpoints: leaves.len() as u32,
		claimed_root: replay.segment_ends(SEG).unwrap().1.root(),
		claimed_distance: Some(posted),
	};
	CONTEXTS.with(|c| c.borrow_mut().insert(KEY, ctx));
	DistanceGame { replay, claimed, leaves, posted }
}

/// An honest solver's checkpoint: the replay as another engine rounds it (every
/// value a few ulps off).
fn rounded(replay: &Run) -> TrainState {
	rounded_at(replay, SEG)
}

/// A lazy solver's checkpoint: the segment's start carried by the optimizer alone.
fn lazy(replay: &Run) -> TrainState {
	let (start, end) = replay.segment_ends(SEG).unwrap();
	threshold::carry_forward(&replay.spec.training, start, end.step - start.step)
}

fn distance_table(g: &DistanceGame, state: &Dispute<Test>) -> Table<'static> {
	claimed_table(&g.claimed, g.posted, state)
}

/// The table of a Threshold game whose verdict posted `distance` against `claimed`.
fn claimed_table(claimed: &TrainState, distance: u32, state: &Dispute<Test>) -> Table<'static> {
	let mut t = table(state);
	t.verdict = (state.claimed_root, distance);
	t.claimed = Some(Box::leak(Box::new(claimed.clone())));
	t
}

/// How the defendant of a distance plays.
#[derive(Clone, Copy, PartialEq)]
enum Liar {
	/// `prover::defend`.
	Honest,
	/// Posts every off sum (and its accumulators) as zero: distance 0.
	ZeroOff,
}

fn distance_move(g: &DistanceGame, honest_challenger: bool, liar: Liar) -> DispatchResult {
	let state = game();
	let t = distance_table(g, &state);
	let call = match (state.turn, liar) {
		(Party::Challenger, _) if honest_challenger => challenge::<Test>(&g.replay, &t).unwrap(),
		(Party::Challenger, _) => match state.stage {
			Stage::Choose => Call::choose { task: TASK, segment: SEG, subject: Subject::Distance },
			// The parameters' off sum, then always the first interval.
			Stage::Sums => Call::pick { task: TASK, segment: SEG, index: 1 },
			_ => Call::pick { task: TASK, segment: SEG, index: 0 },
		},
		(Party::Defendant, Liar::ZeroOff) if !matches!(state.stage, Stage::Sum { lo, hi, .. } if hi == lo + 1) =>
		{
			let order = threshold::sums_of(&g.replay.spec);
			let (start, end) = g.replay.segment_ends(SEG).unwrap();
			let m = threshold::Measured::new(&g.replay.spec, start, end, &g.claimed).unwrap();
			let values: Vec<u64> = match state.stage {
				Stage::Sums => order
					.iter()
					.zip(m.sums())
					.map(|(s, v)| if matches!(s, threshold::Sum::Off(_)) { 0 } else { v.to_bits() })
					.collect(),
				Stage::Sum { sum, lo, hi, .. } => {
					let points = gensyn_repops::dispute::dissection_points(lo, hi, MAX_POINTS);
					match order[sum as usize] {
						threshold::Sum::Off(_) => vec![0f64.to_bits(); points.len()],
						s => m.partials(s, &points).iter().map(|v| v.to_bits()).collect(),
					}
				}
				other => panic!("no lie at {other:?}"),
			};
			Call::post_sums { task: TASK, segment: SEG, values: BoundedVec::truncate_from(values) }
		}
		(Party::Defendant, _) => defend::<Test>(&g.replay, &g.leaves, &t).unwrap(),
	};
	let who = if state.turn == Party::Challenger { C } else { D };
	call.dispatch_bypass_filter(origin(who)).map(|_| ()).map_err(|e| e.error)
}

fn play_distance(g: &DistanceGame, honest_challenger: bool, liar: Liar) -> (bool, Ruling, u32) {
	let issuance = Balances::total_issuance();
	open();
	assert_eq!(game().stage, Stage::Choose);
	assert_eq!(game().turn, Party::Challenger);
	for _ in 0..200 {
		if Disputes::<Test>::get(KEY).is_none() {
			break;
		}
		Arbitration::do_try_state().unwrap();
		if distance_move(g, honest_challenger, liar).is_err() {
			time_out();
		}
	}
	assert!(Disputes::<Test>::get(KEY).is_none(), "game did not end");
	let resolved = resolved();
	check_funds(resolved.0, issuance);
	resolved
}

#[test]
fn an_honest_distance_beats_a_false_challenger() {
	new_test_ext().execute_with(|| {
		let g = setup_distance(rounded, None);
		assert!(f32::from_bits(g.posted) > 0.0, "the rounded checkpoint lies off the replay");
		let (challenger_won, ruling, moves) = play_distance(&g, false, Liar::Honest);
		assert!(!challenger_won);
		assert_eq!(ruling, Ruling::SumComputed);
		assert!(moves > 4, "{moves}");
	});
}

#[test]
fn a_faked_checkpoint_passed_at_distance_zero_loses_its_game() {
	new_test_ext().execute_with(|| {
		// The lazy checkpoint lies at 1; its partner posts the true replay root with
		// distance 0, which would pass it.
		let g = setup_distance(lazy, Some(0f32.to_bits()));
		assert_eq!(f32::from_bits(true_distance(&g.replay, &g.claimed)), 1.0);
		let (challenger_won, ruling, _) = play_distance(&g, true, Liar::ZeroOff);
		assert!(challenger_won);
		assert_eq!(ruling, Ruling::SumComputed);
	});
}

#[test]
fn a_defendant_whose_distance_is_not_its_own_concedes() {
	new_test_ext().execute_with(|| {
		// An honest player holding a verdict it cannot back (an inflated distance on an
		// honest checkpoint) gives up at once rather than post sums that disagree.
		let g = setup_distance(rounded, Some(2f32.to_bits()));
		let (challenger_won, ruling, _) = play_distance(&g, true, Liar::Honest);
		assert!(challenger_won);
		assert_eq!(ruling, Ruling::Conceded(Party::Defendant));
	});
}

#[test]
fn sums_that_do_not_give_the_posted_distance_are_refused() {
	new_test_ext().execute_with(|| {
		let g = setup_distance(rounded, Some(0f32.to_bits()));
		open();
		assert_ok!(Arbitration::choose(origin(C), TASK, SEG, Subject::Distance));
		let (start, end) = g.replay.segment_ends(SEG).unwrap();
		let m = threshold::Measured::new(&g.replay.spec, start, end, &g.claimed).unwrap();
		let sums: Vec<u64> = m.sums().iter().map(|v| v.to_bits()).collect();
		assert_noop!(
			Arbitration::post_sums(origin(D), TASK, SEG, BoundedVec::truncate_from(sums.clone())),
			Error::<Test>::SumsDisagree
		);
		assert_noop!(
			Arbitration::post_sums(
				origin(D),
				TASK,
				SEG,
				BoundedVec::truncate_from(sums[1..].to_vec())
			),
			Error::<Test>::WrongPointCount
		);
		assert_noop!(
			Arbitration::choose(origin(C), TASK, SEG, Subject::Replay),
			Error::<Test>::NotYourTurn
		);
		// A NaN other than the canonical one is refused: it would differ from the
		// challenger's NaN at a pick and equal it at the ruling.
		let mut odd = sums.clone();
		odd[1] = f64::NAN.to_bits() ^ 1;
		assert_noop!(
			Arbitration::post_sums(origin(D), TASK, SEG, BoundedVec::truncate_from(odd)),
			Error::<Test>::NotCanonical
		);
	});
}

#[test]
fn a_wrong_replay_root_is_disputed_by_the_replay_game() {
	new_test_ext().execute_with(|| {
		// The defendant's replay went wrong inside the segment; its verdict's distance
		// is whatever it measured from that wrong end. The honest challenger finds the
		// root wrong and plays the game over the steps.
		let (linear, _, _) = targets();
		let fault = Fault { step: FAULT_STEP, tensor: linear, elem: 3, value: 0.5 };
		let g = setup(Some(fault));
		let mut ctx = CONTEXTS.with(|c| c.borrow().get(&KEY).cloned()).unwrap();
		ctx.claimed_distance = Some(0);
		CONTEXTS.with(|c| c.borrow_mut().insert(KEY, ctx));
		open();
		assert_eq!(game().stage, Stage::Choose);
		let (challenger_won, _, _) = play(&g, Challenger::Honest, Defendant::FromRun);
		assert!(challenger_won);
		let chose = System::events().into_iter().any(|r| {
			matches!(
				r.event,
				RuntimeEvent::Arbitration(Event::Moved {
					by: Party::Challenger,
					stage: Stage::Start,
					..
				})
			)
		});
		assert!(chose, "the challenger chose the replay");
	});
}

/// In the task's first segment the work is measured from the task's seeded initial
/// state, which the chain computes, not from the solver's first checkpoint: a partner
/// who measured a fake's distance from a first checkpoint of the solver's own (far from
/// the seed, so that the work looks huge and the distance tiny) loses at the term.
#[test]
fn the_first_segment_is_measured_from_the_seeded_start() {
	for lie in [false, true] {
		new_test_ext().execute_with(|| {
			let key = (TASK, 0);
			let run = honest_run();
			let (seeded, end) = run.segment_ends(0).unwrap();
			let claimed = rounded_at(&run, 0);
			let mut own = seeded.clone();
			own.params.iter_mut().flatten().for_each(|x| *x *= 4.0);
			let mut leaves = run.checkpoint_leaves().unwrap();
			leaves[0] = own.root();
			leaves[1] = claimed.root();
			let ctx = pallet_gensyn_tasks::DisputeContext {
				spec: run.spec.clone(),
				order_randomness: randomness(),
				first_step: 0,
				steps: u64::from(K),
				checkpoint_root: gensyn_primitives::merkle::root(&leaves),
				checkpoints: leaves.len() as u32,
				claimed_root: end.root(),
				claimed_distance: Some(0),
			};
			CONTEXTS.with(|c| c.borrow_mut().insert(key, ctx));
			assert_ok!(<Arbitration as DisputeArbiter<u64>>::open(TASK, 0, &C, &D));
			let from = if lie { &own } else { seeded };
			let m = threshold::Measured::new(&run.spec, from, end, &claimed).unwrap();
			let order = threshold::sums_of(&run.spec);
			let work = order.iter().position(|s| *s == threshold::Sum::Work(0)).unwrap();
			let j = 5;
			let p = m.partials(order[work], &[j, j + 1]);
			let stage = Stage::Sum {
				sum: work as u32,
				lo: j,
				hi: j + 1,
				lo_acc: p[0].to_bits(),
				hi_acc: p[1].to_bits(),
			};
			Disputes::<Test>::mutate(key, |g| {
				let g = g.as_mut().unwrap();
				(g.stage, g.turn) = (stage, Party::Defendant);
			});
			let mut t = claimed_table(&claimed, 0, &game_of(key));
			t.segment = 0;
			t.first_step = 0;
			let call = defend::<Test>(&run, &leaves, &t).unwrap();
			assert_ok!(call.dispatch_bypass_filter(origin(D)));
			assert_eq!(resolved().0, lie, "a lie measured from the solver's own start loses");
		});
	}
}

/// [`rounded`] for segment `segment` of a whole run.
fn rounded_at(run: &Run, segment: u32) -> TrainState {
	let mut s = run.segment_ends(segment).unwrap().1.clone();
	for (i, x) in s.params.iter_mut().chain(s.opt.iter_mut()).flatten().enumerate() {
		*x = f32::from_bits(x.to_bits().wrapping_add((i % 5) as u32));
	}
	s
}

fn game_of(key: DisputeKey) -> Dispute<Test> {
	Disputes::<Test>::get(key).expect("game open")
}

/// A work sum's term carries the optimizer over the segment's steps, which its move's
/// witness must cover; an off sum's term carries nothing and needs none.
#[test]
fn only_a_work_term_needs_the_segments_steps() {
	let order = threshold::sums_of(&honest_run().spec);
	for (sum, short_ok) in [(threshold::Sum::Work(0), false), (threshold::Sum::Off(0), true)] {
		new_test_ext().execute_with(|| {
			let g = setup_distance(rounded, None);
			open();
			let index = order.iter().position(|s| *s == sum).unwrap() as u32;
			let stage = Stage::Sum { sum: index, lo: 0, hi: 1, lo_acc: 0, hi_acc: 0 };
			Disputes::<Test>::mutate(KEY, |d| {
				let d = d.as_mut().unwrap();
				(d.stage, d.turn) = (stage, Party::Defendant);
			});
			let t = distance_table(&g, &game());
			let Ok(Call::open_sum_term { proof, .. }) = defend::<Test>(&g.replay, &g.leaves, &t)
			else {
				panic!("the prover opens the term");
			};
			let short = Arbitration::open_sum_term(origin(D), TASK, SEG, proof.clone(), K - 1);
			if short_ok {
				assert_ok!(short);
			} else {
				assert_noop!(short, Error::<Test>::TooManySteps);
				assert_ok!(Arbitration::open_sum_term(origin(D), TASK, SEG, proof, K));
			}
		});
	}
}

/// A defendant that read only its segment's checkpoints from their pages on chain (each
/// leaf with the siblings its pages proved), without the run's journal, moves exactly as
/// one that holds every leaf: at the start and at both kinds of sum term. Without them
/// it has no move.
#[test]
fn a_defendant_with_only_its_segments_checkpoints_moves_as_with_every_leaf() {
	let order = threshold::sums_of(&honest_run().spec);
	let term = |sum| {
		let index = order.iter().position(|s| *s == sum).unwrap() as u32;
		Stage::Sum { sum: index, lo: 0, hi: 1, lo_acc: 0, hi_acc: 0 }
	};
	for stage in [Stage::Start, term(threshold::Sum::Work(0)), term(threshold::Sum::Off(0))] {
		new_test_ext().execute_with(|| {
			let g = setup_distance(rounded, None);
			open();
			Disputes::<Test>::mutate(KEY, |d| {
				let d = d.as_mut().unwrap();
				(d.stage, d.turn) = (stage, Party::Defendant);
			});
			let t = distance_table(&g, &game());
			let proved = |indices: &[u32]| {
				let leaf = |i: u32| g.leaves[i as usize];
				let siblings = |i: u32| {
					gensyn_primitives::merkle::proof(&g.leaves, i as usize).unwrap().siblings
				};
				ProvedLeaves(indices.iter().map(|&i| (i, leaf(i), siblings(i))).collect())
			};
			let all = defend::<Test>(&g.replay, &g.leaves, &t).unwrap();
			let own = defend::<Test>(&g.replay, &proved(&[SEG, SEG + 1]), &t).unwrap();
			assert_eq!(own, all, "{stage:?}");
			assert!(defend::<Test>(&g.replay, &proved(&[]), &t).is_err(), "{stage:?}");
		});
	}
}
