//! The solver's training run: walk the steps in the data order, write a checkpoint
//! into the proof store every `k` steps and after the last, keep the run's journal, and
//! resume from the last checkpoint after a crash.
//!
//! The run's commitment is the Merkle root (`gensyn_primitives::merkle`) over the
//! checkpoint hashes in step order, the initial state (step 0) included, so every
//! segment `i -> i + 1` can be audited, the first one too.

use crate::checkpoint::{self, CheckpointError, TrainState};
use crate::hash::{self, Hash};
use crate::order::DataOrder;
use crate::progress::Progress;
use crate::proof_store::{CheckpointEntry, Journal, ProofStore, StoreError};
use codec::Encode;
use gensyn_primitives::{merkle, TaskSpec};
use std::time::{Duration, Instant};

/// A training engine that the run loop drives.
pub trait Backend {
	/// Short name recorded in the journal (`tch`, `repops`).
	fn name(&self) -> &'static str;
	/// Runs one training step on the samples `batch`.
	fn step(&mut self, batch: &[u32]) -> Result<(), String>;
	/// The mean loss of the last step (may wait for the device).
	fn last_loss(&self) -> f32;
	/// The current training state in host memory.
	fn state(&self) -> TrainState;
}

/// Errors of a training run.
#[derive(Debug, thiserror::Error)]
pub enum TrainError {
	/// The proof store failed.
	#[error(transparent)]
	Store(#[from] StoreError),
	/// A stored checkpoint could not be read.
	#[error(transparent)]
	Checkpoint(#[from] CheckpointError),
	/// The backend failed a step.
	#[error("training failed: {0}")]
	Backend(String),
	/// The journal belongs to another backend or is inconsistent.
	#[error("cannot resume run {run_id}: {reason}")]
	Resume {
		/// The run.
		run_id: String,
		/// Why not.
		reason: String,
	},
}

/// What a finished run commits to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunResult {
	/// Hex id of the run.
	pub run_id: String,
	/// Hash of the final checkpoint.
	pub final_hash: Hash,
	/// Merkle root over all checkpoint hashes (initial state first).
	pub checkpoint_root: Hash,
	/// Number of checkpoints (initial state included).
	pub checkpoints: u64,
	/// The journal listing them.
	pub journal: Journal,
	/// Time spent writing and hashing checkpoints.
	pub checkpoint_time: Duration,
	/// Time of the whole run, checkpoints included.
	pub total_time: Duration,
}

/// The id of a run: blake2-256 of `"gensyn/run"`, the SCALE-encoded spec, the
/// data-order randomness and the backend name.
pub fn run_id(spec: &TaskSpec, randomness: &[u8; 32], backend: &str) -> String {
	let mut buf = b"gensyn/run".to_vec();
	buf.extend(spec.encode());
	buf.extend(randomness);
	buf.extend(backend.as_bytes());
	hash::to_hex(&hash::blake2_256(&buf))
}

/// Merkle root over checkpoint hashes given as hex (as the journal stores them).
pub fn checkpoint_root(entries: &[CheckpointEntry]) -> Hash {
	let leaves: Vec<Hash> =
		entries.iter().map(|e| hash::from_hex(&e.state_hash).unwrap_or([0; 32])).collect();
	merkle::root(&leaves)
}

/// Where a run starts: the state of its last stored checkpoint when its journal exists
/// (a resumed run), or `initial` otherwise. Returns the journal to extend too.
pub fn resume_point(
	store: &ProofStore,
	run_id: &str,
	backend: &str,
	total_steps: u64,
	initial: impl FnOnce() -> TrainState,
) -> Result<(TrainState, Journal), TrainError> {
	if let Some(journal) = store.journal(run_id)? {
		let resume_err = |reason: String| TrainError::Resume { run_id: run_id.to_string(), reason };
		if journal.backend != backend {
			return Err(resume_err(format!(
				"journal was written by backend {}, not {backend}",
				journal.backend
			)));
		}
		if let Some(last) = journal.checkpoints.last() {
			let blob = hash::from_hex(&last.blob)
				.ok_or_else(|| resume_err(format!("bad blob name {}", last.blob)))?;
			let state = checkpoint::from_safetensors(&store.get(&blob)?)?;
			if state.step != last.step {
				return Err(resume_err(format!(
					"checkpoint {} holds step {}, journal says {}",
					last.blob, state.step, last.step
				)));
			}
			tracing::info!(target: "gensyn_ml", "resuming run {run_id} from step {}", state.step);
			return Ok((state, journal));
		}
	}
	let journal = Journal {
		run_id: run_id.to_string(),
		backend: backend.to_string(),
		total_steps,
		checkpoints: Vec::new(),
		complete: false,
	};
	Ok((initial(), journal))
}

/// Options of a run.
#[derive(Clone, Debug, Default)]
pub struct RunOptions {
	/// Stop after this many steps in total (to simulate a crash in tests); `None` runs
	/// to the end.
	pub stop_after: Option<u64>,
}

/// Trains `backend` (already holding the state `resume_point` returned) to the end of
/// `spec`'s run, checkpointing into `store`.
pub fn run(
	spec: &TaskSpec,
	order: &mut DataOrder,
	backend: &mut dyn Backend,
	store: &ProofStore,
	mut journal: Journal,
	options: &RunOptions,
) -> Result<RunResult, TrainError> {
	let started = Instant::now();
	let mut checkpoint_time = Duration::ZERO;
	let total = spec.total_steps();
	let k = spec.training.checkpoint_interval.max(1) as u64;
	let mut save = |journal: &mut Journal, state: &TrainState| -> Result<(), TrainError> {
		let t = Instant::now();
		let blob = store.put(&checkpoint::to_safetensors(spec, state)?)?;
		journal.checkpoints.push(CheckpointEntry {
			step: state.step,
			blob: hash::to_hex(&blob),
			state_hash: hash::to_hex(&checkpoint::state_hash(state)),
		});
		journal.complete = state.step == total;
		store.save_journal(journal)?;
		checkpoint_time += t.elapsed();
		Ok(())
	};
	let mut step = backend.state().step;
	if journal.checkpoints.is_empty() {
		save(&mut journal, &backend.state())?;
	}
	let mut progress = Progress::new("train", total, step);
	let mut last_show = Instant::now();
	while step < total {
		if options.stop_after.is_some_and(|s| step >= s) {
			break;
		}
		let batch = order.batch(step).expect("step < total has a batch");
		backend.step(batch).map_err(TrainError::Backend)?;
		step += 1;
		if step.is_multiple_of(k) || step == total {
			save(&mut journal, &backend.state())?;
		}
		if last_show.elapsed() >= Duration::from_millis(250) || step == total {
			last_show = Instant::now();
			progress.update(step, backend.last_loss());
		}
	}
	progress.finish(step);
	let last = journal.checkpoints.last().expect("at least the initial checkpoint");
	Ok(RunResult {
		run_id: journal.run_id.clone(),
		final_hash: hash::from_hex(&last.state_hash).unwrap_or([0; 32]),
		checkpoint_root: checkpoint_root(&journal.checkpoints),
		checkpoints: journal.checkpoints.len() as u64,
		journal,
		checkpoint_time,
		total_time: started.elapsed(),
	})
}
