//! Shared fixtures: a small synthetic image data set written as an MNIST bundle, task
//! specs over it, and runs of honest and dishonest solvers.
#![allow(dead_code)]

use gensyn_primitives::{order::SplitMix64, TaskSpec};
use gensyn_workers::checkpoint::{self, TrainState};
use gensyn_workers::dataset::{self, idx, Dataset};
use gensyn_workers::hash;
use gensyn_workers::order::DataOrder;
use gensyn_workers::proof_store::{CheckpointEntry, Journal, ProofStore};
use gensyn_workers::reference::{self, RepopsEngine};
use gensyn_workers::tch_backend::TchTrainer;
use gensyn_workers::train::{self, Backend, RunOptions, RunResult};
use std::path::Path;
use std::sync::Arc;

/// Samples in the synthetic set.
pub const SAMPLES: usize = 240;
/// Classes of the synthetic set.
pub const CLASSES: usize = 4;

/// 8x8 one-channel images: class `c` lights quadrant `c`, plus noise; as a bundle.
pub fn synthetic_bundle() -> Vec<u8> {
	let mut rng = SplitMix64(12345);
	let mut pixels = Vec::with_capacity(SAMPLES * 64);
	let mut labels = Vec::with_capacity(SAMPLES);
	for i in 0..SAMPLES {
		let c = i % CLASSES;
		labels.push(c as u8);
		for y in 0..8 {
			for x in 0..8 {
				let quadrant = (y / 4) * 2 + x / 4;
				let base = if quadrant == c { 160 } else { 20 };
				pixels.push(base + (rng.next_u64() % 80) as u8);
			}
		}
	}
	let mut out = idx::encode(&idx::IdxArray { dims: vec![SAMPLES, 8, 8], data: pixels });
	out.extend(idx::encode(&idx::IdxArray { dims: vec![SAMPLES], data: labels }));
	out
}

/// Writes the synthetic set into `dir` and returns a spec over it: `model` is "mlp"
/// or "cnn", `optimizer` a JSON optimizer object, `mode` "threshold" or "exact".
pub fn spec(dir: &Path, model: &str, optimizer: &str, mode: &str) -> TaskSpec {
	let path = dir.join("synthetic.idx");
	let bytes = synthetic_bundle();
	std::fs::write(&path, &bytes).unwrap();
	let file_hash = hash::to_hex(&hash::blake2_256(&bytes));
	let chunk_root = hash::to_hex(&dataset::chunk_root(&bytes));
	let layers = match model {
		"mlp" => {
			r#"[{"type":"flatten"},{"type":"linear","in_features":64,"out_features":16},
                    {"type":"relu"},{"type":"linear","in_features":16,"out_features":4}]"#
		}
		_ => {
			r#"[{"type":"conv2d","in_channels":1,"out_channels":4,"kernel":3,"stride":1,"padding":1},
                 {"type":"relu"},{"type":"max_pool2d","kernel":2,"stride":2},{"type":"flatten"},
                 {"type":"linear","in_features":64,"out_features":4}]"#
		}
	};
	let json = format!(
		r#"{{
        "model": {{"input": {{"channels":1,"height":8,"width":8}}, "layers": {layers}}},
        "data": {{"uri": "file://{}", "file_hash": "0x{file_hash}", "chunk_root": "0x{chunk_root}",
                 "format": "mnist_idx", "samples": {SAMPLES},
                 "input": {{"channels":1,"height":8,"width":8}}, "classes": {CLASSES}}},
        "training": {{"epochs": 2, "batch_size": 16, "seed": 9, "checkpoint_interval": 5,
                     "optimizer": {optimizer}, "lr_schedule": {{"type":"cosine","total_steps":30,"min_lr":0.001}}}},
        "verification": {{"mode": "{mode}", "audit_fraction": 500000}}
        }}"#,
		path.display()
	);
	let spec: TaskSpec = serde_json::from_str(&json).unwrap();
	spec.validate().unwrap();
	spec
}

/// SGD with momentum.
pub const SGD: &str = r#"{"type":"sgd","lr":0.05,"momentum":0.9}"#;
/// Adam.
pub const ADAM: &str = r#"{"type":"adam","lr":0.01,"beta1":0.9,"beta2":0.999,"eps":1e-8}"#;

/// The spec's data set, loaded and checked as a worker does.
pub fn data(spec: &TaskSpec, dir: &Path) -> Arc<Dataset> {
	Arc::new(
		dataset::load_data_ref(
			&spec.data,
			&dataset::DataSource::with_local_files(dir.join("cache")),
		)
		.unwrap(),
	)
}

/// The randomness used by honest runs in tests.
pub const RANDOMNESS: [u8; 32] = [7; 32];

/// An engine of `kind` ("tch" on the CPU, or "repops") at `state`.
pub fn engine(
	kind: &str,
	spec: &TaskSpec,
	state: &TrainState,
	data: &Arc<Dataset>,
) -> Box<dyn Backend> {
	match kind {
		"tch" => Box::new(TchTrainer::with_data(spec, state, tch::Device::Cpu, data).unwrap()),
		_ => Box::new(RepopsEngine::new(spec, state, data.clone(), 2)),
	}
}

/// An honest run with `kind` into `store`, optionally stopping early.
pub fn honest_run(
	kind: &str,
	spec: &TaskSpec,
	data: &Arc<Dataset>,
	store: &ProofStore,
	stop_after: Option<u64>,
) -> RunResult {
	let id = train::run_id(spec, &RANDOMNESS, kind);
	let initial = reference::initial_state(spec).unwrap();
	let (state, journal) =
		train::resume_point(store, &id, kind, spec.total_steps(), || initial).unwrap();
	let mut e = engine(kind, spec, &state, data);
	let mut order = DataOrder::new(spec, RANDOMNESS);
	train::run(spec, &mut order, e.as_mut(), store, journal, &RunOptions { stop_after }).unwrap()
}

/// How a dishonest solver deviates.
#[derive(Clone, Copy, Debug)]
pub enum Cheat {
	/// Leaves out the update of this step (but claims it).
	SkipStep(u64),
	/// Trains this step on another step's batch.
	ReorderBatch(u64),
	/// Computes no gradient in the steps of this segment: applies only the optimizer's
	/// momentum carried in (which decays, and moves the parameters).
	MomentumOnly(u64),
	/// As `MomentumOnly`, after committing the segment's first checkpoint with its
	/// optimizer state a thousand times larger (so that the carry dominates the step).
	InflatedMomentum(u64),
}

/// A dishonest run that commits honestly-formed checkpoints of a deviating training.
pub fn dishonest_run(
	kind: &str,
	spec: &TaskSpec,
	data: &Arc<Dataset>,
	store: &ProofStore,
	cheat: Cheat,
) -> Journal {
	let total = spec.total_steps();
	let k = spec.training.checkpoint_interval as u64;
	let mut order = DataOrder::new(spec, RANDOMNESS);
	let initial = reference::initial_state(spec).unwrap();
	let mut e = engine(kind, spec, &initial, data);
	let mut journal = Journal {
		run_id: format!("cheat-{kind}-{cheat:?}"),
		backend: kind.into(),
		total_steps: total,
		checkpoints: Vec::new(),
		complete: true,
		data: None,
	};
	let commit = |journal: &mut Journal, mut state: TrainState, step: u64| {
		state.step = step;
		let blob = store.put(&checkpoint::to_safetensors(spec, &state).unwrap()).unwrap();
		journal.checkpoints.push(CheckpointEntry {
			step,
			blob: hash::to_hex(&blob),
			state_hash: hash::to_hex(&checkpoint::state_hash(&state)),
		});
	};
	commit(&mut journal, e.state().unwrap(), 0);
	for step in 0..total {
		match cheat {
			Cheat::SkipStep(s) if s == step => {}
			Cheat::ReorderBatch(s) if s == step => {
				let other = order.batch((step + 1) % total).unwrap().to_vec();
				e.step(&other).unwrap();
			}
			Cheat::MomentumOnly(segment) | Cheat::InflatedMomentum(segment)
				if step / k == segment =>
			{
				let state = e.state().unwrap();
				let carried = gensyn_repops::threshold::carry_forward(&spec.training, &state, 1);
				e = engine(kind, spec, &carried, data);
			}
			_ => {
				let batch = order.batch(step).unwrap().to_vec();
				e.step(&batch).unwrap();
			}
		}
		if (step + 1) % k == 0 || step + 1 == total {
			let mut state = e.state().unwrap();
			if matches!(cheat, Cheat::InflatedMomentum(s) if (s * k) == step + 1) {
				state.opt.iter_mut().flatten().for_each(|x| *x *= 1024.0);
				e = engine(kind, spec, &state, data);
			}
			commit(&mut journal, state, step + 1);
		}
	}
	store.save_journal(&journal).unwrap();
	journal
}

/// Positions of the small language model's sequences.
pub const LM_CONTEXT: usize = 8;
/// Its vocabulary.
pub const LM_VOCAB: usize = 5;

/// A small language model's task over 48 token sequences written into `dir` (noisy
/// cycles a model can learn): the example spec's shape (`examples/charlm-transformer.json`),
/// one block of width 8, 12 steps of 4 sequences, a checkpoint every 3, in `mode`.
/// [`lm_held_out`] writes held-out sequences of the same cycles.
pub fn lm_spec(dir: &Path, mode: &str) -> TaskSpec {
	let (t, vocab, samples) = (LM_CONTEXT, LM_VOCAB, 48usize);
	let mut rng = SplitMix64(17);
	let mut bytes = Vec::with_capacity(samples * (t + 1));
	for i in 0..samples {
		for j in 0..=t {
			let noise = rng.next_u64().is_multiple_of(6);
			let id = if noise { rng.next_u64() as usize } else { i + 2 * j };
			bytes.push((id % vocab) as u8);
		}
	}
	let data = dir.join("cycles.tokens");
	std::fs::write(&data, &bytes).unwrap();
	// This checkout's, read at run time: a test built for another checkout keeps its path.
	let root =
		std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| env!("CARGO_MANIFEST_DIR").into());
	let example = Path::new(&root).join("../examples/charlm-transformer.json");
	let mut spec: serde_json::Value =
		serde_json::from_str(&std::fs::read_to_string(example).unwrap()).unwrap();
	spec["model"]["input"]["width"] = t.into();
	spec["model"]["layers"] = serde_json::json!([
		{ "type": "embedding", "vocab": vocab, "dim": 8 },
		{ "type": "decoder_block", "heads": 2, "hidden": 16 },
		{ "type": "layer_norm" },
		{ "type": "linear", "in_features": 8, "out_features": vocab }
	]);
	let d = &mut spec["data"];
	d["uri"] = format!("file://{}", data.display()).into();
	d["file_hash"] = format!("0x{}", hash::to_hex(&hash::blake2_256(&bytes))).into();
	d["chunk_root"] = format!("0x{}", hash::to_hex(&dataset::chunk_root(&bytes))).into();
	d["samples"] = samples.into();
	d["input"]["width"] = t.into();
	d["classes"] = vocab.into();
	spec["training"]["batch_size"] = 4.into();
	spec["training"]["checkpoint_interval"] = 3.into();
	spec["training"]["lr_schedule"]["total_steps"] = 12.into();
	// A rate that learns the cycles within the run's 12 steps.
	spec["training"]["optimizer"]["lr"] = 0.01.into();
	spec["verification"]["mode"] = mode.into();
	let spec: TaskSpec = serde_json::from_value(spec).unwrap();
	spec.validate().unwrap();
	spec
}

/// The token sequences `lm_spec` wrote, read as a worker reads them.
pub fn lm_data(spec: &TaskSpec) -> Arc<Dataset> {
	let path = spec.data.uri.as_str().unwrap().trim_start_matches("file://").to_string();
	let bytes = std::fs::read(path).unwrap();
	Arc::new(dataset::parse_data_ref(&spec.data, &bytes).unwrap())
}

/// `n` held-out sequences of `lm_spec`'s cycles (without its noise) written into `dir`.
pub fn lm_held_out(dir: &Path, n: usize) -> std::path::PathBuf {
	let bytes: Vec<u8> = (0..n)
		.flat_map(|i| (0..=LM_CONTEXT).map(move |j| ((1000 + i + 2 * j) % LM_VOCAB) as u8))
		.collect();
	let path = dir.join("held-out.tokens");
	std::fs::write(&path, bytes).unwrap();
	path
}
