//! `gensyn-ml train` and `gensyn-ml verify`: the solver's and the verifier's work on
//! one task, end to end on one machine.

use crate::cli::{read_spec, CliError, ProfileArgs, RunArgs, TrainArgs, VerifyArgs};
use crate::dataset::{self, DataSource, Dataset};
use crate::jobs::{self, BackendKind};
use crate::proof_store::{remote, Journal, ProofStore};
use crate::{hash, train};
use gensyn_primitives::TaskSpec;
use serde_json::{json, Value};
use std::sync::Arc;

struct Loaded {
	spec: TaskSpec,
	randomness: [u8; 32],
	data: Arc<Dataset>,
	store: ProofStore,
	threads: usize,
}

fn load(a: &RunArgs) -> Result<Loaded, CliError> {
	if a.threads > 0 {
		tch::set_num_threads(a.threads as i32);
	}
	let spec = read_spec(&a.spec)?;
	let data = dataset::load_data_ref(&spec.data, &DataSource::with_local_files(&a.cache))?;
	let store = ProofStore::open(&a.store)?;
	Ok(Loaded {
		spec,
		randomness: a.randomness.unwrap_or([0; 32]),
		data: Arc::new(data),
		store,
		threads: a.threads,
	})
}

/// `train`: trains (or resumes) the run and prints its commitment.
pub fn train(a: TrainArgs) -> Result<Value, CliError> {
	let lm = gensyn_repops::transformer::task::config(&read_spec(&a.run.spec)?).is_some();
	if lm && a.test_data.is_some() {
		let why = "--test-data: a language model has no test accuracy; `gensyn-ml evaluate` \
		           gives its held-out loss";
		return Err(why.into());
	}
	let mut l = load(&a.run)?;
	if l.threads == 0 {
		l.threads = crate::train::default_threads();
		tch::set_num_threads(l.threads as i32);
	}
	let test = a.test_data.as_deref().map(dataset::load_local).transpose()?;
	let device = match (a.backend, a.cpu) {
		(BackendKind::Repops, _) | (_, true) => tch::Device::Cpu,
		_ => crate::tch_backend::best_device(),
	};
	let job = jobs::TrainJob {
		spec: &l.spec,
		randomness: l.randomness,
		data: l.data.clone(),
		store: &l.store,
		backend: a.backend,
		device,
		threads: l.threads,
		stop_after: a.stop_after,
	};
	let done = jobs::train(&job, test.as_ref())?;
	let result = &done.result;
	let steps_done = result.journal.checkpoints.last().map_or(0, |c| c.step) - done.resumed_from;
	let secs = result.total_time.as_secs_f64();
	Ok(json!({
		"run_id": result.run_id,
		"backend": a.backend.name(),
		"device": format!("{device:?}"),
		"complete": result.journal.complete,
		"resumed_from_step": done.resumed_from,
		"final_hash": format!("0x{}", hash::to_hex(&result.final_hash)),
		"checkpoint_root": format!("0x{}", hash::to_hex(&result.checkpoint_root)),
		"checkpoints": result.checkpoints,
		"seconds": secs,
		"steps_per_second": if secs > 0.0 { steps_done as f64 / secs } else { 0.0 },
		"checkpoint_seconds": result.checkpoint_time.as_secs_f64(),
		"test_accuracy": done.accuracy,
	}))
}

pub(crate) fn find_journal(store: &ProofStore, run_id: Option<&str>) -> Result<Journal, CliError> {
	if let Some(id) = run_id {
		return store
			.journal(id)?
			.ok_or_else(|| format!("no run {id} in {}", store.root().display()).into());
	}
	let runs = store.runs()?;
	match &runs[..] {
		[one] => Ok(store.journal(one)?.expect("listed")),
		[] => Err(format!("no run in {}", store.root().display()).into()),
		_ => Err(format!("{} runs in the store: pick one with --run-id", runs.len()).into()),
	}
}

/// `verify`: replays segments with repops and prints one report per segment; fails
/// when any segment fails.
pub fn verify(a: VerifyArgs) -> Result<Value, CliError> {
	let l = load(&a.run)?;
	let journal = match &a.remote {
		Some(base) => {
			let id = a.run_id.as_deref().ok_or("--remote needs --run-id")?;
			// The tool asks whatever store its user names.
			remote::fetch_journal(base, id, true)?
		}
		None => find_journal(&l.store, a.run_id.as_deref())?,
	};
	let root = train::checkpoint_root(&journal.checkpoints);
	if let Some(expected) = a.expect_root {
		if expected != root {
			return Err(format!(
				"the journal's checkpoint root 0x{} is not the committed 0x{}",
				hash::to_hex(&root),
				hash::to_hex(&expected)
			)
			.into());
		}
	}
	let segments: Vec<usize> = if a.segments.is_empty() {
		(0..journal.checkpoints.len().saturating_sub(1)).collect()
	} else {
		a.segments.clone()
	};
	let available = journal.checkpoints.len().saturating_sub(1);
	if let Some(bad) = segments.iter().find(|s| **s >= available) {
		return Err(format!(
			"--segments {bad}: the run has {available} segment(s), numbered 0 to {}",
			available.saturating_sub(1)
		)
		.into());
	}
	if let Some(base) = &a.remote {
		jobs::fetch_segments(base, &journal, &segments, &l.store, true)?;
	}
	let mode = l.spec.verification.mode;
	let job = jobs::VerifyJob {
		spec: &l.spec,
		randomness: l.randomness,
		data: &l.data,
		store: &l.store,
		journal: &journal,
		threshold: a.threshold,
		threads: l.threads,
		second_opinion: (!a.repops_only).then(|| crate::tch_backend::device(a.cpu)),
	};
	let results = jobs::verify(&job, &segments);
	let mut reports = Vec::new();
	let mut all_passed = true;
	for (segment, result) in segments.iter().zip(results) {
		let value = match result {
			Ok(r) => {
				let second =
					r.libtorch_distance.map(|t| format!(" (libtorch {t:.3e})")).unwrap_or_default();
				tracing::info!(
					target: "gensyn_ml",
					"segment {segment} (steps {}..{}): distance {:.3e}{second}, {}",
					r.from_step,
					r.to_step,
					r.distance,
					if r.passed { "passed" } else { "FAILED" }
				);
				all_passed &= r.passed;
				serde_json::to_value(&r)?
			}
			Err(e) => {
				all_passed = false;
				json!({"segment": segment, "passed": false, "error": e.to_string()})
			}
		};
		reports.push(value);
	}
	let out = json!({
		"run_id": journal.run_id,
		"mode": format!("{mode:?}"),
		"threshold": a.threshold,
		"checkpoint_root": format!("0x{}", hash::to_hex(&root)),
		"passed": all_passed,
		"segments": reports,
	});
	if !all_passed {
		println!("{}", serde_json::to_string_pretty(&out)?);
		return Err("verification failed".into());
	}
	Ok(out)
}

/// `profile`: distances between libtorch and repops over the first segments, and the
/// threshold they suggest.
pub fn profile(a: ProfileArgs) -> Result<Value, CliError> {
	let l = load(&a.run)?;
	let device = crate::tch_backend::device(a.cpu);
	let profiles =
		crate::profile::profile(&l.spec, &l.data, l.randomness, a.segments, l.threads, device)?;
	Ok(json!({
		"device": format!("{device:?}"),
		"segments": profiles.iter().map(|p| json!({
			"segment": p.segment,
			"from_step": p.from_step,
			"to_step": p.to_step,
			"l1": p.distances.l1,
			"l2": p.distances.l2,
			"linf": p.distances.linf,
			"cosine": p.distances.cosine,
			"distance": p.distance,
		})).collect::<Vec<_>>(),
		"suggested_threshold": crate::profile::suggest_threshold(&profiles, a.ceiling),
	}))
}
