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
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// A training engine that the run loop drives.
pub trait Backend {
	/// Short name recorded in the journal (`tch`, `repops`).
	fn name(&self) -> &'static str;
	/// Runs one training step on the samples `batch`.
	fn step(&mut self, batch: &[u32]) -> Result<(), String>;
	/// The mean loss of the last step (may wait for the device).
	fn last_loss(&self) -> f32;
	/// The current training state in host memory (or the device's error).
	fn state(&self) -> Result<TrainState, String>;
	/// Steps done so far (the state's step), without copying the state.
	fn steps_done(&self) -> u64;
	/// The current state, captured without waiting for the device where the backend
	/// can (a copy queued on the device); the checkpoint writer's thread makes it a
	/// [`TrainState`] in host memory. By default, [`Backend::state`] taken at once.
	fn snapshot(&self) -> Result<Snapshot, String> {
		let state = self.state()?;
		Ok(Box::new(move || Ok(state)))
	}
}

/// A training state captured after some step (perhaps still in device memory) that
/// yields the host-memory [`TrainState`] when called (or the device's error): see
/// [`Backend::snapshot`].
pub type Snapshot = Box<dyn FnOnce() -> Result<TrainState, String> + Send>;

/// Errors of a training run.
#[derive(Debug, thiserror::Error)]
pub enum TrainError {
	/// The proof store failed.
	#[error(transparent)]
	Store(#[from] StoreError),
	/// A stored checkpoint could not be read.
	#[error(transparent)]
	Checkpoint(#[from] CheckpointError),
	/// The backend failed: building the model, loading the data, a step or a copy of
	/// the state.
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
	/// Time training waited for checkpoints (snapshots, a full queue, final flush).
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

/// The checkpoint hashes of journal entries (stored as hex; an unreadable one is zero,
/// which no honest root contains): the leaves of the checkpoint Merkle tree.
pub fn checkpoint_leaves(entries: &[CheckpointEntry]) -> Vec<Hash> {
	entries.iter().map(|e| hash::from_hex(&e.state_hash).unwrap_or([0; 32])).collect()
}

/// Merkle root over checkpoint hashes given as hex (as the journal stores them).
pub fn checkpoint_root(entries: &[CheckpointEntry]) -> Hash {
	merkle::root(&checkpoint_leaves(entries))
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
		// The newest checkpoint that reads back whole and holds the step the journal
		// says; newer entries (lost in a power failure, say) are dropped and redone.
		let mut journal = journal;
		while let Some(last) = journal.checkpoints.last() {
			let state = hash::from_hex(&last.blob)
				.and_then(|blob| store.get(&blob).ok())
				.and_then(|bytes| checkpoint::from_safetensors(&bytes).ok())
				.filter(|s| s.step == last.step);
			match state {
				Some(state) => {
					tracing::info!(target: "gensyn_ml", "resuming run {run_id} from step {}", state.step);
					journal.complete = state.step == total_steps;
					return Ok((state, journal));
				}
				None => {
					tracing::warn!(target: "gensyn_ml", "run {run_id}: checkpoint at step {} is unreadable; dropped", last.step);
					journal.checkpoints.pop();
				}
			}
		}
		if journal.checkpoints.is_empty() {
			return Ok((initial(), journal));
		}
	}
	let journal = Journal {
		run_id: run_id.to_string(),
		backend: backend.to_string(),
		total_steps,
		checkpoints: Vec::new(),
		complete: false,
		data: None,
	};
	Ok((initial(), journal))
}

/// CPU threads for training when none are asked for: all cores but one, which the
/// checkpoint writer uses. (A writer sharing every core with libtorch's threads stalls
/// them all: they wait for each other at every parallel op; on 2 cores that made the
/// MLP example's run 20-50% slower, against 1-3% with a core left free.) A replay has
/// no writer and uses every core (`gensyn_repops::par::default_threads`).
pub fn default_threads() -> usize {
	std::thread::available_parallelism().map_or(1, |n| n.get().saturating_sub(1)).max(1)
}

/// Options of a run.
#[derive(Clone, Debug, Default)]
pub struct RunOptions {
	/// Stop after this many steps in total (to simulate a crash in tests); `None` runs
	/// to the end.
	pub stop_after: Option<u64>,
}

/// Writes checkpoints on a thread of its own, in order: copying each snapshot to host
/// memory, serializing, hashing, the blob write and the journal update overlap with
/// training. The journal lists a checkpoint only once its blob is on disk, so a crash
/// at any point resumes correctly.
fn write_checkpoints(
	spec: &TaskSpec,
	store: &ProofStore,
	mut journal: Journal,
	states: mpsc::Receiver<Snapshot>,
) -> Result<Journal, TrainError> {
	let total = spec.total_steps();
	// The first write replaces the file (a fresh run, or one whose unreadable last
	// checkpoints were dropped); later ones append a line.
	let mut rewrite = true;
	for snapshot in states {
		let state = snapshot().map_err(TrainError::Backend)?;
		let blob = store.put(&checkpoint::to_safetensors(spec, &state)?)?;
		let entry = CheckpointEntry {
			step: state.step,
			blob: hash::to_hex(&blob),
			state_hash: hash::to_hex(&checkpoint::state_hash(&state)),
		};
		journal.checkpoints.push(entry.clone());
		journal.complete = state.step == total;
		if rewrite {
			store.save_journal(&journal)?;
			rewrite = false;
		} else {
			store.append_checkpoint(&journal.run_id, &entry)?;
		}
	}
	Ok(journal)
}

/// Trains `backend` (already holding the state `resume_point` returned) to the end of
/// `spec`'s run, checkpointing into `store` every `k` steps and after the last.
///
/// `RunResult::checkpoint_time` is the time training waited for checkpoints: taking
/// snapshots (and waiting for the writer when one is already queued), plus the wait
/// for the writer thread at the end.
pub fn run(
	spec: &TaskSpec,
	order: &mut DataOrder,
	backend: &mut dyn Backend,
	store: &ProofStore,
	journal: Journal,
	options: &RunOptions,
) -> Result<RunResult, TrainError> {
	let started = Instant::now();
	let total = spec.total_steps();
	let k = spec.training.checkpoint_interval.max(1) as u64;
	let fresh = journal.checkpoints.is_empty();
	// At most three snapshots exist at once: one the writer works on, one queued and
	// one waiting to be queued (a device backend holds them in device memory until the
	// writer copies them out).
	let (tx, rx) = mpsc::sync_channel::<Snapshot>(1);
	let (journal, checkpoint_time) = std::thread::scope(|scope| {
		let writer = scope.spawn(move || write_checkpoints(spec, store, journal, rx));
		let mut waited = Duration::ZERO;
		let mut step_error = None;
		// Snapshots the state and queues it; false when the snapshot failed (its error
		// kept in `step_error`) or the writer stopped (its error comes from `join`).
		let checkpoint = move |backend: &dyn Backend,
		                       waited: &mut Duration,
		                       step_error: &mut Option<TrainError>| {
			let t = Instant::now();
			let sent = match backend.snapshot() {
				Ok(snapshot) => tx.send(snapshot).is_ok(),
				Err(e) => {
					*step_error = Some(TrainError::Backend(e));
					false
				}
			};
			*waited += t.elapsed();
			sent
		};
		let mut step = backend.steps_done();
		let mut failed = fresh && !checkpoint(backend, &mut waited, &mut step_error);
		let mut progress = Progress::new("train", total, step);
		let mut last_show = Instant::now();
		while step < total && !failed && options.stop_after.is_none_or(|s| step < s) {
			let batch = order.batch(step).expect("step < total has a batch");
			if let Err(e) = backend.step(batch) {
				step_error = Some(TrainError::Backend(e));
				break;
			}
			step += 1;
			if step.is_multiple_of(k) || step == total {
				failed = !checkpoint(backend, &mut waited, &mut step_error);
			}
			if last_show.elapsed() >= Duration::from_millis(250) || step == total {
				last_show = Instant::now();
				progress.update(step, backend.last_loss());
			}
		}
		drop(checkpoint);
		let t = Instant::now();
		// The writer does not panic; if it did, its panic goes on here with its own
		// message.
		let journal = writer.join().unwrap_or_else(|e| std::panic::resume_unwind(e));
		progress.finish(step);
		let journal = match (journal, step_error) {
			(Err(e), _) | (Ok(_), Some(e)) => Err(e),
			(Ok(j), None) => Ok(j),
		};
		(journal, waited + t.elapsed())
	});
	let journal = journal?;
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
