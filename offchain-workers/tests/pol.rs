//! Proof of learning: tch and repops agree within tolerance from the same initial
//! weights and batches; honest runs pass replay (Threshold with tch, Exact with
//! repops); a tampered checkpoint, skipped steps and a reordered batch are caught in
//! both modes; an interrupted run resumes to the same commitment.

mod common;

use common::{Cheat, ADAM, RANDOMNESS, SGD};
use gensyn_primitives::{TaskSpec, VerificationMode};
use gensyn_repops::state::distances;
use gensyn_workers::checkpoint::{self, TrainState};
use gensyn_workers::dataset::Dataset;
use gensyn_workers::hash;
use gensyn_workers::order::DataOrder;
use gensyn_workers::proof_store::{Journal, ProofStore};
use gensyn_workers::reference;
use gensyn_workers::replay::{self, ReplayError, SegmentReport};
use gensyn_workers::tch_backend::{self, TchTrainer};
use gensyn_workers::train::Backend;
use std::sync::Arc;

/// Largest accepted |w_tch - w_repops| after 30 steps (measured: about 7e-8; both f32, different reduction
/// orders round differently, nothing more).
const TCH_REPOPS_LINF: f64 = 1e-5;
/// Threshold-mode bound on the distance of a replayed segment (5 steps) to the committed
/// checkpoint, relative to the replay's step; honest tch segments measure far less.
const THRESHOLD: f64 = 1e-2;

fn verify_all(
	spec: &TaskSpec,
	data: &Arc<Dataset>,
	store: &ProofStore,
	journal: &Journal,
	mode: VerificationMode,
) -> Vec<Result<SegmentReport, ReplayError>> {
	let mut order = DataOrder::new(spec, RANDOMNESS);
	let mut make = |s: &TrainState| Ok(common::engine("repops", spec, s, data));
	(0..journal.checkpoints.len() - 1)
		.map(|i| {
			replay::verify_segment(
				store,
				journal,
				&mut order,
				i,
				(mode, THRESHOLD),
				&mut make,
				None,
			)
		})
		.collect()
}

fn passed(r: &Result<SegmentReport, ReplayError>) -> bool {
	matches!(r, Ok(rep) if rep.passed)
}

#[test]
fn tch_and_repops_agree_from_the_same_init() {
	for (model, opt) in [("mlp", SGD), ("mlp", ADAM), ("cnn", SGD), ("cnn", ADAM)] {
		let dir = tempfile::tempdir().unwrap();
		let spec = common::spec(dir.path(), model, opt, "threshold");
		let data = common::data(&spec, dir.path());
		let init = reference::initial_state(&spec).unwrap();
		let mut t = common::engine("tch", &spec, &init, &data);
		let mut r = common::engine("repops", &spec, &init, &data);
		assert_eq!(t.state().unwrap(), init, "tch must start from repops' initial weights exactly");
		let mut order = DataOrder::new(&spec, RANDOMNESS);
		for step in 0..spec.total_steps() {
			let batch = order.batch(step).unwrap().to_vec();
			t.step(&batch).unwrap();
			r.step(&batch).unwrap();
		}
		let d = distances(&t.state().unwrap(), &r.state().unwrap()).unwrap();
		eprintln!("{model} {opt}: {d:?}");
		assert!(d.linf <= TCH_REPOPS_LINF, "{model} {opt}: {d:?}");
		assert!(d.l2 > 0.0 || model == "mlp", "distinct engines, distinct roundings");
		assert!((t.last_loss() - r.last_loss()).abs() < 1e-3);
	}
}

#[test]
fn a_snapshot_keeps_the_state_of_its_step_while_training_goes_on() {
	// The checkpoint writer turns a snapshot into a state later, after more steps ran:
	// it must still hold the values of the step it was taken at (a copy, not a view).
	for kind in ["tch", "repops"] {
		let dir = tempfile::tempdir().unwrap();
		let spec = common::spec(dir.path(), "mlp", ADAM, "threshold");
		let data = common::data(&spec, dir.path());
		let init = reference::initial_state(&spec).unwrap();
		let mut engine = common::engine(kind, &spec, &init, &data);
		let mut order = DataOrder::new(&spec, RANDOMNESS);
		engine.step(order.batch(0).unwrap()).unwrap();
		let (before, snapshot) = (engine.state().unwrap(), engine.snapshot().unwrap());
		engine.step(order.batch(1).unwrap()).unwrap();
		assert_eq!(engine.steps_done(), 2, "{kind}");
		assert_ne!(
			engine.state().unwrap().params,
			before.params,
			"{kind}: the step changed the weights"
		);
		let taken = snapshot().unwrap();
		assert_eq!(taken.step, 1, "{kind}");
		assert_eq!(taken, before, "{kind}: the snapshot holds step 1's weights and slots");
	}
}

#[test]
fn a_libtorch_failure_is_an_error_not_a_panic() {
	let dir = tempfile::tempdir().unwrap();
	let spec = common::spec(dir.path(), "mlp", SGD, "threshold");
	let data = common::data(&spec, dir.path());
	let init = reference::initial_state(&spec).unwrap();
	// A state that does not fit the model (its first parameter one value short).
	let mut short = init.clone();
	short.params[0].pop();
	let e = TchTrainer::new(&spec, &short, tch::Device::Cpu).err().expect("a bad state fails");
	let message = tch_backend::describe(&e);
	assert!(message.contains("exceeds") && !message.contains("frame #"), "{message}");
	// No data set loaded.
	let mut bare = TchTrainer::new(&spec, &init, tch::Device::Cpu).unwrap();
	let e = Backend::step(&mut bare, &[0]).unwrap_err();
	assert!(e.contains("no data set loaded"), "{e}");
	// A sample past the end of the data set (checked before the gather, which on a GPU
	// would fail only inside a kernel).
	let mut t = common::engine("tch", &spec, &init, &data);
	let past = data.len() as u32;
	let e = t.step(&[0, past]).unwrap_err();
	assert_eq!(e, format!("tch step 0: sample {past} is past the data set ({past} samples)"));
	assert_eq!(t.steps_done(), 0, "a failed step is not counted");
	assert_eq!(t.state().unwrap(), init, "nor does it change the state");
}

#[test]
fn honest_tch_run_passes_threshold_and_honest_repops_run_passes_exact() {
	let dir = tempfile::tempdir().unwrap();
	let store = ProofStore::open(dir.path().join("store")).unwrap();
	let spec = common::spec(dir.path(), "cnn", ADAM, "threshold");
	let data = common::data(&spec, dir.path());
	let run = common::honest_run("tch", &spec, &data, &store, None);
	assert_eq!(run.checkpoints, 7);
	let reports = verify_all(&spec, &data, &store, &run.journal, VerificationMode::Threshold);
	for r in &reports {
		let r = r.as_ref().unwrap();
		assert!(r.passed, "{r:?}");
		assert!(!r.hashes_equal, "tch and repops round differently");
	}

	let exact = common::spec(dir.path(), "cnn", ADAM, "exact");
	let run = common::honest_run("repops", &exact, &data, &store, None);
	for r in verify_all(&exact, &data, &store, &run.journal, VerificationMode::Exact) {
		let r = r.unwrap();
		assert!(r.passed && r.hashes_equal && r.distances.l2 == 0.0, "{r:?}");
	}
}

#[test]
fn tampered_checkpoints_are_caught() {
	let dir = tempfile::tempdir().unwrap();
	let store = ProofStore::open(dir.path().join("store")).unwrap();
	let spec = common::spec(dir.path(), "mlp", SGD, "exact");
	let data = common::data(&spec, dir.path());
	let run = common::honest_run("repops", &spec, &data, &store, None);

	// 1. Bytes changed on disk under the same name: the blob no longer hashes to it.
	let entry = &run.journal.checkpoints[3];
	let blob = hash::from_hex(&entry.blob).unwrap();
	let original = std::fs::read(store.blob_path(&blob)).unwrap();
	let mut state = checkpoint::from_safetensors(&original).unwrap();
	state.params[0][5] += 0.01;
	std::fs::write(store.blob_path(&blob), checkpoint::to_safetensors(&spec, &state).unwrap())
		.unwrap();
	let r = verify_all(&spec, &data, &store, &run.journal, VerificationMode::Exact);
	assert!(matches!(r[2], Err(ReplayError::Store(_))), "{:?}", r[2]);
	assert!(matches!(r[3], Err(ReplayError::Store(_))), "{:?}", r[3]);
	std::fs::write(store.blob_path(&blob), &original).unwrap();

	// 2. A tampered checkpoint stored and committed to: replay disagrees, both modes.
	let mut journal = run.journal.clone();
	let new_blob = store.put(&checkpoint::to_safetensors(&spec, &state).unwrap()).unwrap();
	journal.checkpoints[3].blob = hash::to_hex(&new_blob);
	journal.checkpoints[3].state_hash = hash::to_hex(&checkpoint::state_hash(&state));
	for mode in [VerificationMode::Exact, VerificationMode::Threshold] {
		let r = verify_all(&spec, &data, &store, &journal, mode);
		assert!(passed(&r[0]) && passed(&r[1]), "{mode:?}: untouched segments pass");
		assert!(!passed(&r[2]), "{mode:?}: segment into the tampered checkpoint fails: {:?}", r[2]);
		let r2 = r[2].as_ref().unwrap();
		assert!(r2.distances.linf > 0.005, "{r2:?}");
	}

	// 3. A committed hash that does not match the stored checkpoint.
	let mut journal = run.journal.clone();
	journal.checkpoints[4].state_hash = hash::to_hex(&[3; 32]);
	let r = verify_all(&spec, &data, &store, &journal, VerificationMode::Exact);
	assert!(matches!(r[3], Err(ReplayError::CommitmentMismatch { index: 4, .. })), "{:?}", r[3]);
}

fn assert_cheat_caught(kind: &str, mode: VerificationMode, cheat: Cheat, bad_segment: usize) {
	let dir = tempfile::tempdir().unwrap();
	let store = ProofStore::open(dir.path().join("store")).unwrap();
	let spec = common::spec(dir.path(), "mlp", SGD, "threshold");
	let data = common::data(&spec, dir.path());
	let journal = common::dishonest_run(kind, &spec, &data, &store, cheat);
	let r = verify_all(&spec, &data, &store, &journal, mode);
	for (i, rep) in r.iter().enumerate() {
		let rep = rep.as_ref().unwrap();
		if i < bad_segment {
			assert!(
				rep.passed,
				"{kind} {mode:?} {cheat:?}: segment {i} before the cheat passes: {rep:?}"
			);
		} else if i == bad_segment {
			assert!(!rep.passed, "{kind} {mode:?} {cheat:?}: segment {i} must fail: {rep:?}");
			assert!(rep.distance > 3.0 * THRESHOLD || mode == VerificationMode::Exact, "{rep:?}");
		}
	}
}

#[test]
fn skipped_steps_are_caught_in_both_modes() {
	assert_cheat_caught("tch", VerificationMode::Threshold, Cheat::SkipStep(12), 2);
	assert_cheat_caught("repops", VerificationMode::Exact, Cheat::SkipStep(12), 2);
	assert_cheat_caught("repops", VerificationMode::Threshold, Cheat::SkipStep(0), 0);
}

#[test]
fn reordered_batches_are_caught_in_both_modes() {
	assert_cheat_caught("tch", VerificationMode::Threshold, Cheat::ReorderBatch(21), 4);
	assert_cheat_caught("repops", VerificationMode::Exact, Cheat::ReorderBatch(21), 4);
}

#[test]
fn an_interrupted_run_resumes_to_the_same_commitment() {
	let dir = tempfile::tempdir().unwrap();
	let spec = common::spec(dir.path(), "mlp", ADAM, "exact");
	let data = common::data(&spec, dir.path());
	let full_store = ProofStore::open(dir.path().join("full")).unwrap();
	let full = common::honest_run("repops", &spec, &data, &full_store, None);

	let store = ProofStore::open(dir.path().join("crashy")).unwrap();
	let part = common::honest_run("repops", &spec, &data, &store, Some(13));
	assert!(!part.journal.complete);
	assert_eq!(part.journal.checkpoints.last().unwrap().step, 10);
	let resumed = common::honest_run("repops", &spec, &data, &store, None);
	assert!(resumed.journal.complete);
	assert_eq!(resumed.checkpoint_root, full.checkpoint_root);
	assert_eq!(resumed.final_hash, full.final_hash);
	assert_eq!(resumed.journal.checkpoints, full.journal.checkpoints);

	// A lost newest blob (power failure before it reached the disk): resume walks back.
	let last = &resumed.journal.checkpoints[6];
	std::fs::remove_file(store.blob_path(&hash::from_hex(&last.blob).unwrap())).unwrap();
	let again = common::honest_run("repops", &spec, &data, &store, None);
	assert_eq!(again.checkpoint_root, full.checkpoint_root);

	// tch resumes too (its checkpoints carry the optimizer state) and completes.
	let tch_store = ProofStore::open(dir.path().join("tch")).unwrap();
	common::honest_run("tch", &spec, &data, &tch_store, Some(7));
	let done = common::honest_run("tch", &spec, &data, &tch_store, None);
	assert!(done.journal.complete);
	assert_eq!(done.checkpoints, 7);
}

#[test]
fn checkpoints_round_trip_and_refuse_other_models() {
	let dir = tempfile::tempdir().unwrap();
	let spec = common::spec(dir.path(), "cnn", ADAM, "exact");
	let other = common::spec(dir.path(), "mlp", ADAM, "exact");
	let mut state = reference::initial_state(&spec).unwrap();
	state.step = 17;
	state.opt[1][2] = 0.5;
	let bytes = checkpoint::to_safetensors(&spec, &state).unwrap();
	assert_eq!(bytes, checkpoint::to_safetensors(&spec, &state).unwrap(), "deterministic bytes");
	let back = checkpoint::from_safetensors(&bytes).unwrap();
	assert_eq!(back, state);
	assert_eq!(checkpoint::state_hash(&back), state.root());
	assert!(checkpoint::check(&other, &back).is_err());
	assert!(checkpoint::to_safetensors(&other, &state).is_err());
	assert!(checkpoint::from_safetensors(&bytes[..bytes.len() / 2]).is_err());
}

#[test]
fn a_profiled_threshold_passes_honest_runs_and_fails_cheats() {
	let dir = tempfile::tempdir().unwrap();
	let store = ProofStore::open(dir.path().join("store")).unwrap();
	let spec = common::spec(dir.path(), "cnn", SGD, "threshold");
	let data = common::data(&spec, dir.path());
	let profiles =
		gensyn_workers::profile::profile(&spec, &data, RANDOMNESS, 2, 2, tch::Device::Cpu).unwrap();
	assert_eq!(profiles.len(), 2);
	let threshold = gensyn_workers::profile::suggest_threshold(&profiles, None);
	assert!(threshold < 1e-2, "honest engines stay close: {threshold}");
	// Under a ceiling it leaves room below, the proposal is lowered to the ceiling; under
	// one too close, it is not (the task would then fail, as it should).
	let worst = profiles.iter().map(|p| p.distance).fold(0.0, f64::max);
	let room = worst * gensyn_workers::profile::CEILING_ROOM;
	assert_eq!(gensyn_workers::profile::suggest_threshold(&profiles, Some(room)), room);
	let close = worst * 1.5;
	assert_eq!(gensyn_workers::profile::suggest_threshold(&profiles, Some(close)), threshold);
	// The chain judges by a profiled threshold within its bounds. The runtime's default
	// floor (`MinThreshold`, a twentieth of a segment's work) lies far above the engines'
	// rounding, whose tail two profiled segments do not reach on every CPU: on an AVX-512
	// machine a later honest segment lay at 4.5e-6 against a proposal of 2.6e-6.
	const FLOOR: f64 = 0.05;
	assert!(threshold < FLOOR, "the profile proposes under the floor: {threshold}");
	let threshold = threshold.max(FLOOR);
	let judge = |journal: &Journal| -> Vec<bool> {
		let mut order = DataOrder::new(&spec, RANDOMNESS);
		let mut make = |s: &TrainState| Ok(common::engine("repops", &spec, s, &data));
		(0..journal.checkpoints.len() - 1)
			.map(|i| {
				replay::verify_segment(
					&store,
					journal,
					&mut order,
					i,
					(VerificationMode::Threshold, threshold),
					&mut make,
					None,
				)
				.unwrap()
				.passed
			})
			.collect()
	};
	let honest = common::honest_run("tch", &spec, &data, &store, None);
	assert!(judge(&honest.journal).iter().all(|&p| p));
	let cheat = common::dishonest_run("tch", &spec, &data, &store, Cheat::ReorderBatch(7));
	// Only the segment holding step 7 fails: each segment starts from the solver's own
	// checkpoint, so the later ones are consistent again.
	assert_eq!(judge(&cheat)[..3], [true, false, true]);
}

/// Below the engines' rounding distance every honest segment fails on the repops replay
/// alone; the libtorch second opinion reaches the solver's checkpoints exactly (same
/// engine, same device kind) and passes them, while a reordered batch fails both.
#[test]
fn the_libtorch_second_opinion_passes_honest_segments_and_not_cheats() {
	let dir = tempfile::tempdir().unwrap();
	let store = ProofStore::open(dir.path().join("store")).unwrap();
	let spec = common::spec(dir.path(), "mlp", SGD, "threshold");
	let data = common::data(&spec, dir.path());
	let threshold = 1e-12;
	let judge = |journal: &Journal, second: bool| -> Vec<SegmentReport> {
		let mut order = DataOrder::new(&spec, RANDOMNESS);
		let mut make = |s: &TrainState| Ok(common::engine("repops", &spec, s, &data));
		let mut libtorch = |s: &TrainState| Ok(common::engine("tch", &spec, s, &data));
		(0..journal.checkpoints.len() - 1)
			.map(|i| {
				let second: Option<replay::MakeEngine> =
					if second { Some(&mut libtorch) } else { None };
				let judge = (VerificationMode::Threshold, threshold);
				replay::verify_segment(&store, journal, &mut order, i, judge, &mut make, second)
					.unwrap()
			})
			.collect()
	};
	let honest = common::honest_run("tch", &spec, &data, &store, None);
	let alone = judge(&honest.journal, false);
	assert!(alone.iter().all(|r| !r.passed && r.distance > threshold), "{alone:?}");
	assert!(alone.iter().all(|r| r.libtorch_distance.is_none()));
	let checked = judge(&honest.journal, true);
	assert!(checked.iter().all(|r| r.passed && r.libtorch_distance == Some(0.0)), "{checked:?}");
	assert_eq!(
		checked.iter().map(|r| &r.replayed_hash).collect::<Vec<_>>(),
		alone.iter().map(|r| &r.replayed_hash).collect::<Vec<_>>(),
		"the verdict's replay hash stays the repops replay's"
	);

	let cheat = common::dishonest_run("tch", &spec, &data, &store, Cheat::ReorderBatch(7));
	let reports = judge(&cheat, true);
	assert!(!reports[1].passed, "{:?}", reports[1]);
	assert!(reports[1].libtorch_distance.is_some_and(|d| d > 1e-2), "{:?}", reports[1]);
	assert!(reports[0].passed && reports[2].passed, "{reports:?}");
}

/// A run stamped with steps of the solver's choosing (one step per segment, as many
/// checkpoints as the task has) replays to its own checkpoints and passes segment by
/// segment: only its schedule gives it away. One from another start, or a checkpoint
/// short, is not the task's either; honest runs of both engines are.
#[test]
fn a_run_off_the_tasks_checkpoint_schedule_is_not_the_tasks() {
	use gensyn_workers::proof_store::CheckpointEntry;
	let dir = tempfile::tempdir().unwrap();
	let store = ProofStore::open(dir.path().join("store")).unwrap();
	let spec = common::spec(dir.path(), "mlp", SGD, "exact");
	let data = common::data(&spec, dir.path());
	for kind in ["tch", "repops"] {
		let honest = common::honest_run(kind, &spec, &data, &store, None);
		replay::check_schedule(&spec, &honest.journal).unwrap();
	}
	let honest = common::honest_run("repops", &spec, &data, &store, None).journal;
	let not_the_tasks =
		|j: &Journal| matches!(replay::check_schedule(&spec, j), Err(ReplayError::NotThisTask(_)));

	let initial = reference::initial_state(&spec).unwrap();
	let mut e = common::engine("repops", &spec, &initial, &data);
	let mut order = DataOrder::new(&spec, RANDOMNESS);
	let mut lazy =
		Journal { run_id: "one-step-a-segment".into(), checkpoints: vec![], ..honest.clone() };
	let commit = |journal: &mut Journal, state: TrainState| {
		let blob = store.put(&checkpoint::to_safetensors(&spec, &state).unwrap()).unwrap();
		journal.checkpoints.push(CheckpointEntry {
			step: state.step,
			blob: hash::to_hex(&blob),
			state_hash: hash::to_hex(&checkpoint::state_hash(&state)),
		});
	};
	commit(&mut lazy, initial);
	for step in 0..(honest.checkpoints.len() - 1) as u64 {
		let batch = order.batch(step).unwrap().to_vec();
		e.step(&batch).unwrap();
		commit(&mut lazy, e.state().unwrap());
	}
	let reports = verify_all(&spec, &data, &store, &lazy, VerificationMode::Exact);
	assert!(reports.iter().all(passed), "each segment replays to its own checkpoint");
	assert!(not_the_tasks(&lazy), "one step a segment");

	let mut elsewhere = honest.clone();
	elsewhere.checkpoints[0].state_hash = hash::to_hex(&[1; 32]);
	assert!(not_the_tasks(&elsewhere), "another start");
	let mut short = honest.clone();
	short.checkpoints.pop();
	assert!(not_the_tasks(&short), "a checkpoint short");

	// What a whistleblower replays (`segment_start`: the task's own steps, from the
	// task's own start) reaches every checkpoint of the honest run and none of the lazy
	// one, whose partner verifier's passes it therefore challenges.
	let reaches = |journal: &Journal, segment: usize| {
		let (start, steps) = replay::segment_start(&spec, segment, || {
			replay::load_checkpoint(&store, journal, segment)
		})
		.unwrap();
		let mut e = common::engine("repops", &spec, &start, &data);
		let mut order = DataOrder::new(&spec, RANDOMNESS);
		let end = replay::replay_steps(e.as_mut(), &mut order, start.step, start.step + steps);
		hash::to_hex(&checkpoint::state_hash(&end.unwrap()))
			== journal.checkpoints[segment + 1].state_hash
	};
	let segments = honest.checkpoints.len() - 1;
	assert!((0..segments).all(|s| reaches(&honest, s)), "the honest run");
	assert!((0..segments).all(|s| !reaches(&lazy, s)), "one step a segment");
	// A run trained on schedule from another start: its first segment is not reached.
	let mut moved = reference::initial_state(&spec).unwrap();
	moved.params[0][3] += 0.25;
	let mut e = common::engine("repops", &spec, &moved, &data);
	let mut order = DataOrder::new(&spec, RANDOMNESS);
	let k = u64::from(spec.training.checkpoint_interval);
	let mut other = Journal { run_id: "another-start".into(), checkpoints: vec![], ..honest };
	commit(&mut other, moved);
	for step in 0..spec.total_steps() {
		let batch = order.batch(step).unwrap().to_vec();
		e.step(&batch).unwrap();
		if (step + 1) % k == 0 || step + 1 == spec.total_steps() {
			commit(&mut other, e.state().unwrap());
		}
	}
	assert!(not_the_tasks(&other), "another start, on schedule");
	assert!(!reaches(&other, 0), "its first segment, replayed from the task's start");
	assert!(matches!(
		replay::segment_start(&spec, segments, || unreachable!("no segment to start")),
		Err(ReplayError::NoSegment { .. })
	));
}

/// A solver that computes no gradient in a segment and applies only the optimizer's
/// momentum carried in lies at 1 from the replay, with momentum 0.99 and a checkpoint a
/// step, where the carry is nearly all of the step; and so does one that first inflates
/// the optimizer state of the segment's start (its own checkpoint) a thousandfold, which
/// the audit of the segment before catches, the state being compared whole.
#[test]
fn a_checkpoint_carrying_only_the_momentum_lies_at_one() {
	let heavy = r#"{"type":"sgd","lr":0.05,"momentum":0.99}"#;
	for (optimizer, k, cheat) in [
		(heavy, 1u32, Cheat::MomentumOnly(20)),
		(SGD, 5, Cheat::MomentumOnly(4)),
		(ADAM, 5, Cheat::InflatedMomentum(4)),
		(SGD, 5, Cheat::InflatedMomentum(4)),
	] {
		let dir = tempfile::tempdir().unwrap();
		let store = ProofStore::open(dir.path().join("store")).unwrap();
		let mut spec = common::spec(dir.path(), "mlp", optimizer, "threshold");
		spec.training.checkpoint_interval = k;
		let data = common::data(&spec, dir.path());
		let journal = common::dishonest_run("repops", &spec, &data, &store, cheat);
		let r = verify_all(&spec, &data, &store, &journal, VerificationMode::Threshold);
		let (Cheat::MomentumOnly(segment) | Cheat::InflatedMomentum(segment)) = cheat else {
			unreachable!()
		};
		let faked = r[segment as usize].as_ref().unwrap();
		assert!(!faked.passed && (faked.distance - 1.0).abs() < 1e-3, "{cheat:?}: {faked:?}");
		let before = r[segment as usize - 1].as_ref().unwrap();
		let inflated = matches!(cheat, Cheat::InflatedMomentum(_));
		assert_eq!(before.passed, !inflated, "{cheat:?}: the segment before: {before:?}");
	}
}
