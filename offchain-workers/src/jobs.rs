//! The solver's and the verifier's work on one task as library calls: what the node's
//! worker services run (and the `gensyn-ml` command line, on one machine).

use crate::checkpoint::{self, CheckpointError, TrainState};
use crate::dataset::{Dataset, DatasetError};
use crate::hash;
use crate::order::DataOrder;
use crate::proof_store::{remote, Journal, ProofStore, StoreError};
use crate::reference::{self, RepopsEngine};
use crate::replay::{self, ReplayError, SegmentReport};
use crate::tch_backend::{self, describe, TchTrainer};
use crate::tch_lm::TchLmTrainer;
use crate::train::{self, Backend, RunOptions, RunResult, TrainError};
use gensyn_primitives::{TaskSpec, VerificationMode};
use gensyn_repops::transformer::task;
use std::sync::Arc;

/// Which engine trains.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum BackendKind {
	/// libtorch through tch (GPU when present): the fast path, Threshold mode.
	Tch,
	/// repops: bitwise reproducible, needed for Exact mode.
	Repops,
}

impl BackendKind {
	/// The name recorded in journals and run ids.
	pub fn name(self) -> &'static str {
		match self {
			BackendKind::Tch => "tch",
			BackendKind::Repops => "repops",
		}
	}
}

/// Why a job could not run.
#[derive(Debug, thiserror::Error)]
pub enum JobError {
	/// The data set could not be had.
	#[error(transparent)]
	Data(#[from] DatasetError),
	/// The proof store failed.
	#[error(transparent)]
	Store(#[from] StoreError),
	/// A checkpoint does not fit.
	#[error(transparent)]
	Checkpoint(#[from] CheckpointError),
	/// Training failed.
	#[error(transparent)]
	Train(#[from] TrainError),
	/// The job asks for something that cannot work.
	#[error("{0}")]
	Invalid(String),
}

/// A training job.
pub struct TrainJob<'a> {
	/// The task.
	pub spec: &'a TaskSpec,
	/// Randomness fixed at assignment (the data order depends on it).
	pub randomness: [u8; 32],
	/// The task's data set, loaded and checked (`dataset::load_data_ref`).
	pub data: Arc<Dataset>,
	/// Where checkpoints go.
	pub store: &'a ProofStore,
	/// The engine.
	pub backend: BackendKind,
	/// The libtorch device (tch only).
	pub device: tch::Device,
	/// CPU threads for repops (0: all cores).
	pub threads: usize,
	/// Stop after this many steps in total (resumable later).
	pub stop_after: Option<u64>,
}

/// What a training job did.
pub struct Trained {
	/// The run's commitment and journal.
	pub result: RunResult,
	/// The step it resumed from (0 for a fresh run).
	pub resumed_from: u64,
	/// Accuracy on the test set, when one was given.
	pub accuracy: Option<f64>,
}

/// Trains (or resumes) `job`'s run, and measures accuracy on `test` when given.
pub fn train(job: &TrainJob, test: Option<&Dataset>) -> Result<Trained, JobError> {
	let spec = job.spec;
	if job.backend == BackendKind::Tch && spec.verification.mode == VerificationMode::Exact {
		return Err(JobError::Invalid(
			"the spec's verification mode is exact: only a repops run can pass it; train with \
			 the repops backend"
				.into(),
		));
	}
	let name = job.backend.name();
	let run_id = train::run_id(spec, &job.randomness, name);
	let initial = reference::initial_state(spec)
		.map_err(|e| JobError::Invalid(format!("initial state: {e}")))?;
	let (state, mut journal) =
		train::resume_point(job.store, &run_id, name, spec.total_steps(), || initial)?;
	// The run keeps its data file (when the store holds it) for as long as itself.
	journal.data = Some(hash::to_hex(&spec.data.file_hash.0));
	checkpoint::check(spec, &state)?;
	let resumed_from = state.step;
	let mut order = DataOrder::new(spec, job.randomness);
	let options = RunOptions { stop_after: job.stop_after };
	let (result, accuracy) = match job.backend {
		// A language model's: no accuracy to measure (its data is not labelled).
		BackendKind::Tch if task::config(spec).is_some() => {
			let mut t = TchLmTrainer::new(spec, &state, job.device, job.data.clone())
				.map_err(TrainError::Backend)?;
			(train::run(spec, &mut order, &mut t, job.store, journal, &options)?, None)
		}
		BackendKind::Tch => {
			let mut t = TchTrainer::with_data(spec, &state, job.device, &job.data)
				.map_err(TrainError::Backend)?;
			let r = train::run(spec, &mut order, &mut t, job.store, journal, &options)?;
			(r, test.map(|d| t.accuracy(d)))
		}
		BackendKind::Repops => {
			let mut e = RepopsEngine::new(spec, &state, job.data.clone(), job.threads);
			let r = train::run(spec, &mut order, &mut e, job.store, journal, &options)?;
			(r, test.map(|d| e.accuracy(d)))
		}
	};
	// The run is done and stored whatever happens here: a failed evaluation is only
	// reported.
	let accuracy = accuracy.and_then(|a| {
		a.inspect_err(
			|e| tracing::warn!(target: "gensyn_ml", "test accuracy not measured: {}", describe(e)),
		)
		.ok()
	});
	Ok(Trained { result, resumed_from, accuracy })
}

/// Copies the checkpoints that `segments` of `journal` need from the proof-store
/// server at `base` into `store` (each hash-checked); `private`: a loopback or
/// private-network server may be asked.
pub fn fetch_segments(
	base: &str,
	journal: &Journal,
	segments: &[usize],
	store: &ProofStore,
	private: bool,
) -> Result<(), StoreError> {
	for &i in segments {
		for entry in journal.checkpoints.iter().skip(i).take(2) {
			let name = hash::from_hex(&entry.blob).ok_or_else(|| StoreError::Remote {
				url: base.to_string(),
				reason: format!("bad blob name {}", entry.blob),
			})?;
			remote::fetch_blob(base, &name, store, private)?;
		}
	}
	Ok(())
}

/// A verification job: segments of one run, replayed with repops.
pub struct VerifyJob<'a> {
	/// The task.
	pub spec: &'a TaskSpec,
	/// Randomness fixed at assignment.
	pub randomness: [u8; 32],
	/// The task's data set.
	pub data: &'a Arc<Dataset>,
	/// Where the run's checkpoints are (see [`fetch_segments`]).
	pub store: &'a ProofStore,
	/// The run's journal, checked against the committed root by the caller.
	pub journal: &'a Journal,
	/// Threshold mode: the largest accepted distance (`replay::relative_distance`).
	pub threshold: f64,
	/// CPU threads for repops (0: all cores; the bits do not depend on it) and for
	/// libtorch (0: its default).
	pub threads: usize,
	/// Threshold mode: the libtorch device of the second opinion on a segment the repops
	/// replay fails (`replay::verify_segment`); `None` judges by repops alone.
	pub second_opinion: Option<tch::Device>,
}

/// Replays `segments` of the job's run and judges each under the spec's mode.
pub fn verify(job: &VerifyJob, segments: &[usize]) -> Vec<Result<SegmentReport, ReplayError>> {
	let spec = job.spec;
	let mut order = DataOrder::new(spec, job.randomness);
	let mut make = |s: &TrainState| -> Result<Box<dyn Backend>, String> {
		Ok(Box::new(RepopsEngine::new(spec, s, job.data.clone(), job.threads)))
	};
	let mut libtorch = |s: &TrainState| -> Result<Box<dyn Backend>, String> {
		if job.threads > 0 {
			tch::set_num_threads(job.threads as i32);
		}
		let device = job.second_opinion.unwrap_or(tch::Device::Cpu);
		tch_backend::trainer(spec, s, device, job.data)
	};
	let judge = (spec.verification.mode, job.threshold);
	segments
		.iter()
		.map(|&i| {
			let second: Option<replay::MakeEngine> =
				if job.second_opinion.is_some() { Some(&mut libtorch) } else { None };
			replay::verify_segment(job.store, job.journal, &mut order, i, judge, &mut make, second)
		})
		.collect()
}
