//! `gensyn-ml train` and `gensyn-ml verify`: the solver's and the verifier's work on
//! one task, end to end on one machine.

use crate::cli::{read_spec, BackendKind, CliError, ProfileArgs, RunArgs, TrainArgs, VerifyArgs};
use crate::dataset::{self, Dataset};
use crate::order::DataOrder;
use crate::proof_store::{remote, Journal, ProofStore};
use crate::reference::{self, RepopsEngine};
use crate::replay;
use crate::tch_backend::TchTrainer;
use crate::train::{self, Backend, RunOptions};
use crate::{checkpoint, hash};
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
	let data = dataset::load_data_ref(&spec.data, &a.cache)?;
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
	let l = load(&a.run)?;
	let name = match a.backend {
		BackendKind::Tch => "tch",
		BackendKind::Repops => "repops",
	};
	if a.backend == BackendKind::Tch
		&& l.spec.verification.mode == gensyn_primitives::VerificationMode::Exact
	{
		return Err("the spec's verification mode is exact: only a repops run can pass it; \
		            train with --backend repops"
			.into());
	}
	let run_id = train::run_id(&l.spec, &l.randomness, name);
	let total = l.spec.total_steps();
	let initial = reference::initial_state(&l.spec).map_err(|e| format!("initial state: {e}"))?;
	let (state, journal) = train::resume_point(&l.store, &run_id, name, total, || initial)?;
	checkpoint::check(&l.spec, &state)?;
	let resumed_from = state.step;
	let mut order = DataOrder::new(&l.spec, l.randomness);
	let options = RunOptions { stop_after: a.stop_after };
	let test = a.test_data.as_deref().map(dataset::load_local).transpose()?;
	let (result, accuracy, device) = match a.backend {
		BackendKind::Tch => {
			let device = if a.cpu { tch::Device::Cpu } else { tch::Device::cuda_if_available() };
			let mut t = TchTrainer::new(&l.spec, &state, device);
			t.load_data(&l.data);
			let r = train::run(&l.spec, &mut order, &mut t, &l.store, journal, &options)?;
			let acc = test.as_ref().map(|d| t.accuracy(d));
			(r, acc, format!("{device:?}"))
		}
		BackendKind::Repops => {
			let mut e = RepopsEngine::new(&l.spec, &state, l.data.clone(), l.threads);
			let r = train::run(&l.spec, &mut order, &mut e, &l.store, journal, &options)?;
			let acc = test.as_ref().map(|d| e.accuracy(d));
			(r, acc, "cpu".into())
		}
	};
	let steps_done = result.journal.checkpoints.last().map_or(0, |c| c.step) - resumed_from;
	let secs = result.total_time.as_secs_f64();
	Ok(json!({
		"run_id": result.run_id,
		"backend": name,
		"device": device,
		"complete": result.journal.complete,
		"resumed_from_step": resumed_from,
		"final_hash": format!("0x{}", hash::to_hex(&result.final_hash)),
		"checkpoint_root": format!("0x{}", hash::to_hex(&result.checkpoint_root)),
		"checkpoints": result.checkpoints,
		"seconds": secs,
		"steps_per_second": if secs > 0.0 { steps_done as f64 / secs } else { 0.0 },
		"checkpoint_seconds": result.checkpoint_time.as_secs_f64(),
		"test_accuracy": accuracy,
	}))
}

fn find_journal(store: &ProofStore, run_id: Option<&str>) -> Result<Journal, CliError> {
	if let Some(id) = run_id {
		return store
			.journal(id)?
			.ok_or_else(|| format!("no run {id} in {}", store.root().display()).into());
	}
	let runs: Vec<_> = std::fs::read_dir(store.root().join("runs"))?
		.filter_map(|e| e.ok())
		.filter_map(|e| e.file_name().to_str()?.strip_suffix(".json").map(String::from))
		.collect();
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
			remote::fetch_journal(base, id)?
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
	if let Some(base) = &a.remote {
		for &i in &segments {
			for entry in journal.checkpoints.iter().skip(i).take(2) {
				let name = hash::from_hex(&entry.blob).ok_or("bad blob name in the journal")?;
				remote::fetch_blob(base, &name, &l.store)?;
			}
		}
	}
	let mode = l.spec.verification.mode;
	let mut order = DataOrder::new(&l.spec, l.randomness);
	let mut make = |s: &crate::checkpoint::TrainState| -> Box<dyn Backend> {
		Box::new(RepopsEngine::new(&l.spec, s, l.data.clone(), l.threads))
	};
	let mut reports = Vec::new();
	let mut all_passed = true;
	for segment in segments {
		let value = match replay::verify_segment(
			&l.store,
			&journal,
			&mut order,
			segment,
			mode,
			a.threshold,
			&mut make,
		) {
			Ok(r) => {
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
	let device = if a.cpu { tch::Device::Cpu } else { tch::Device::cuda_if_available() };
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
		})).collect::<Vec<_>>(),
		"suggested_threshold": crate::profile::suggest_threshold(&profiles),
	}))
}
