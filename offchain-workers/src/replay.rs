//! The verifier's check of one proof-of-learning segment: start from the solver's
//! checkpoint `i`, run the segment's steps again (with repops, the deterministic
//! engine) on the batches the data order prescribes, and compare the result with the
//! solver's checkpoint `i + 1`.
//!
//! Two verdicts: *Threshold* mode passes when the committed weights lie within a
//! threshold (profiled; training with tch is close to repops, not equal) of the
//! replayed ones, measured as a share of the work the segment does
//! ([`relative_distance`]), *Exact* mode only when the replayed state's hash equals
//! the committed one (training done with repops). Before replaying, each checkpoint
//! read from the proof store is checked against the hash the run committed to.
//!
//! Threshold mode has a second opinion. Two engines that round differently now and then
//! disagree on a discontinuity: a ReLU input (or a max-pool tie) within rounding of the
//! boundary goes one way in libtorch and the other in repops, and one sample's gradient
//! through one unit changes. On the MNIST MLP about 2% of 50-step segments end 40 to
//! 10,000 times farther apart than is typical (`scripts/bench/threshold-tail.sh`),
//! past any threshold profiled from a few segments. So a segment whose repops replay
//! lands past the threshold is replayed once more with libtorch, the solver's engine,
//! and passes when that replay is within the threshold: an honest solver's libtorch
//! run is reached again (exactly, on the same device kind), a cheat is far from both.
//! The chain's verifiers do not ask for it: a verdict's distance is disputable in the
//! pinpoint game, which recomputes the repops one, so it is the only one they post;
//! the `verify` command and the threshold-tail benchmark use it to study the tail.

use crate::checkpoint::{self, CheckpointError, TrainState};
use crate::hash::{self, Hash};
use crate::order::DataOrder;
use crate::proof_store::{Journal, ProofStore, StoreError};
use crate::train::Backend;
use gensyn_primitives::{verdict, TaskSpec, VerificationMode};
pub use gensyn_repops::state::Distances;
pub use gensyn_repops::threshold::relative_distance;
use serde::Serialize;

/// The verdict on one segment.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SegmentReport {
	/// Segment index `i` (checkpoint `i` to checkpoint `i + 1`).
	pub segment: usize,
	/// Step of checkpoint `i`.
	pub from_step: u64,
	/// Step of checkpoint `i + 1`.
	pub to_step: u64,
	/// Replayed weights against the committed checkpoint `i + 1`.
	#[serde(serialize_with = "ser_distances")]
	pub distances: Distances,
	/// Threshold mode's distance of checkpoint `i + 1` from the replay
	/// ([`relative_distance`]).
	pub distance: f64,
	/// Hash of the replayed state (hex).
	pub replayed_hash: String,
	/// Committed hash of checkpoint `i + 1` (hex).
	pub committed_hash: String,
	/// Whether the two hashes are equal.
	pub hashes_equal: bool,
	/// Threshold mode, when the repops replay lands past the threshold and a second
	/// opinion was asked for: the distance of checkpoint `i + 1` from the libtorch
	/// replay ([`relative_distance`]).
	pub libtorch_distance: Option<f64>,
	/// The verdict under the task's mode.
	pub passed: bool,
}

/// Errors that keep a segment from being judged at all (a missing or unreadable
/// checkpoint is itself a failed proof, reported as such by the caller).
#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
	/// No such segment in the run.
	#[error("segment {segment} does not exist: the run has {checkpoints} checkpoints")]
	NoSegment {
		/// The segment asked for.
		segment: usize,
		/// Checkpoints in the run.
		checkpoints: usize,
	},
	/// A checkpoint blob is missing or corrupt in the proof store.
	#[error(transparent)]
	Store(#[from] StoreError),
	/// A checkpoint blob is not a valid checkpoint.
	#[error(transparent)]
	Checkpoint(#[from] CheckpointError),
	/// The replay engine failed.
	#[error("replay failed: {0}")]
	Engine(String),
	/// The run is not one of its task as the protocol defines it (checkpoint `i` after
	/// `min(i·k, total)` steps, the first the task's seeded initial state).
	#[error("the run is not one of this task: {0}")]
	NotThisTask(String),
	/// A checkpoint's content does not hash to what the run committed to.
	#[error("checkpoint {index} hashes to {actual}, but the run committed to {committed}")]
	CommitmentMismatch {
		/// Checkpoint index.
		index: usize,
		/// Hash of its content (hex).
		actual: String,
		/// Committed hash (hex).
		committed: String,
	},
}

/// Checks that `journal` is a run of `spec`: as many checkpoints as the task has,
/// checkpoint `i` taken after `min(i·k, total)` steps, and the first one the task's
/// seeded initial state. Each segment's replay runs from one checkpoint's step to the
/// next one's, so a run stamped with steps of the solver's choosing (one step per
/// segment, or none) would replay to its own checkpoints and pass, and one from a
/// start of its choosing would train another model; neither is a run of the task.
pub fn check_schedule(spec: &TaskSpec, journal: &Journal) -> Result<(), ReplayError> {
	let total = spec.total_steps();
	let k = u64::from(spec.training.checkpoint_interval.max(1));
	let expected = total.div_ceil(k).saturating_add(1);
	let found = journal.checkpoints.len() as u64;
	if found != expected {
		let why = format!("{found} checkpoints where the task has {expected}");
		return Err(ReplayError::NotThisTask(why));
	}
	for (i, entry) in journal.checkpoints.iter().enumerate() {
		let step = spec.checkpoint_step(i as u64);
		if entry.step != step {
			let why =
				format!("checkpoint {i} is at step {}, the task's at step {step}", entry.step);
			return Err(ReplayError::NotThisTask(why));
		}
	}
	let initial =
		crate::reference::initial_state(spec).map_err(|e| ReplayError::Engine(e.to_string()))?;
	let initial = hash::to_hex(&checkpoint::state_hash(&initial));
	if journal.checkpoints.first().map(|e| &e.state_hash) != Some(&initial) {
		let why = "the first checkpoint is not the task's seeded initial state".to_string();
		return Err(ReplayError::NotThisTask(why));
	}
	Ok(())
}

/// Where a replay of `segment` starts and how many steps it runs, as the protocol (and
/// the pinpoint game) defines the segment: from the task's seeded initial state for
/// segment 0, else from the solver's checkpoint `segment` (which `load` reads, from the
/// solver's store or from its pages on chain) taken as the state after `segment·k`
/// steps, for `min(k, total - segment·k)` steps. A whistleblower replays
/// this, not the journal's own steps, so that a partner verifier's pass on a run off
/// the task's schedule (or from another start) is one its replay does not reach, and
/// the game, which fixes the same steps, rules for it.
pub fn segment_start<E: From<ReplayError>>(
	spec: &TaskSpec,
	segment: usize,
	load: impl FnOnce() -> Result<TrainState, E>,
) -> Result<(TrainState, u64), E> {
	let first = spec.checkpoint_step(segment as u64);
	let last = spec.checkpoint_step((segment as u64).saturating_add(1));
	if first >= last {
		let k = u64::from(spec.training.checkpoint_interval.max(1));
		let checkpoints = spec.total_steps().div_ceil(k).saturating_add(1) as usize;
		return Err(ReplayError::NoSegment { segment, checkpoints }.into());
	}
	let start = if segment == 0 {
		crate::reference::initial_state(spec).map_err(|e| ReplayError::Engine(e.to_string()))?
	} else {
		let mut state = load()?;
		state.step = first;
		state
	};
	Ok((start, last - first))
}

/// Reads checkpoint `index` of `journal` from `store`, checking its blob hash and its
/// committed state hash.
pub fn load_checkpoint(
	store: &ProofStore,
	journal: &Journal,
	index: usize,
) -> Result<TrainState, ReplayError> {
	let entry = journal
		.checkpoints
		.get(index)
		.ok_or(ReplayError::NoSegment { segment: index, checkpoints: journal.checkpoints.len() })?;
	let blob: Hash = hash::from_hex(&entry.blob).unwrap_or_default();
	let state = checkpoint::from_safetensors(&store.get(&blob)?)?;
	let actual = hash::to_hex(&checkpoint::state_hash(&state));
	if actual != entry.state_hash || state.step != entry.step {
		return Err(ReplayError::CommitmentMismatch {
			index,
			actual,
			committed: entry.state_hash.clone(),
		});
	}
	Ok(state)
}

/// Replays steps `from..to` with `engine` (which starts at step `from`) on the batches
/// of `order`, returning the state reached.
pub fn replay_steps(
	engine: &mut dyn Backend,
	order: &mut DataOrder,
	from: u64,
	to: u64,
) -> Result<TrainState, ReplayError> {
	for step in from..to {
		let batch = order
			.batch(step)
			.ok_or(ReplayError::Engine(format!("step {step} is past the end of the run")))?;
		engine.step(batch).map_err(ReplayError::Engine)?;
	}
	engine.state().map_err(ReplayError::Engine)
}

/// Builds a replay engine at a checkpoint's state (or says why it cannot).
pub type MakeEngine<'a> = &'a mut dyn FnMut(&TrainState) -> Result<Box<dyn Backend>, String>;

/// Judges segment `segment` of the run in `journal`: replays it with the engine
/// `make_engine` builds from checkpoint `segment`, and compares with checkpoint
/// `segment + 1` under `mode` (`threshold` is the largest accepted
/// [`relative_distance`], an f32 as the chain stores it, judged by
/// `gensyn_primitives::verdict`). In
/// Threshold mode a segment the replay fails is replayed again with `second_opinion`
/// when given, and passes when that replay is within the threshold (see the module
/// documentation).
pub fn verify_segment(
	store: &ProofStore,
	journal: &Journal,
	order: &mut DataOrder,
	segment: usize,
	(mode, threshold): (VerificationMode, f64),
	make_engine: MakeEngine,
	second_opinion: Option<MakeEngine>,
) -> Result<SegmentReport, ReplayError> {
	if segment + 1 >= journal.checkpoints.len() {
		return Err(ReplayError::NoSegment { segment, checkpoints: journal.checkpoints.len() });
	}
	let start = load_checkpoint(store, journal, segment)?;
	let end = load_checkpoint(store, journal, segment + 1)?;
	let mut engine = make_engine(&start).map_err(ReplayError::Engine)?;
	let replayed = replay_steps(engine.as_mut(), order, start.step, end.step)?;
	let distances = gensyn_repops::state::distances(&replayed, &end)
		.map_err(|_| CheckpointError::ModelMismatch)?;
	let spec = order.spec().clone();
	let distance = relative_distance(&spec, &start, &replayed, &end)
		.map_err(|_| CheckpointError::ModelMismatch)?;
	let replayed_hash = hash::to_hex(&checkpoint::state_hash(&replayed));
	let committed_hash = journal.checkpoints[segment + 1].state_hash.clone();
	let hashes_equal = replayed_hash == committed_hash;
	// The chain's rule on what the verifier would post (the f32 nearest each distance).
	let within = |d: f64| verdict::threshold_passes(verdict::posted_distance(d), threshold as f32);
	let mut libtorch_distance = None;
	let passed = match mode {
		VerificationMode::Exact => hashes_equal,
		VerificationMode::Threshold if within(distance) => true,
		VerificationMode::Threshold => match second_opinion {
			Some(make) => {
				let mut engine = make(&start).map_err(ReplayError::Engine)?;
				let again = replay_steps(engine.as_mut(), order, start.step, end.step)?;
				let d = relative_distance(&spec, &start, &again, &end)
					.map_err(|_| CheckpointError::ModelMismatch)?;
				libtorch_distance = Some(d);
				within(d)
			}
			None => false,
		},
	};
	Ok(SegmentReport {
		segment,
		from_step: start.step,
		to_step: end.step,
		distances,
		distance,
		replayed_hash,
		committed_hash,
		hashes_equal,
		libtorch_distance,
		passed,
	})
}

fn ser_distances<S: serde::Serializer>(d: &Distances, s: S) -> Result<S::Ok, S::Error> {
	use serde::ser::SerializeStruct;
	let mut st = s.serialize_struct("Distances", 4)?;
	st.serialize_field("l1", &d.l1)?;
	st.serialize_field("l2", &d.l2)?;
	st.serialize_field("linf", &d.linf)?;
	st.serialize_field("cosine", &d.cosine)?;
	st.end()
}
