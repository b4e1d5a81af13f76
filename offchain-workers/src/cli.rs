//! The `gensyn-ml` command line: what a user or a test runs on a task spec without a
//! chain. Each subcommand prints one JSON object on stdout; logs and progress go to
//! stderr.

use crate::checkpoint;
use crate::dataset::{self, Dataset};
use crate::hash::{self, Hash};
use crate::jobs::BackendKind;
use clap::{Args, Parser, Subcommand};
use gensyn_primitives::{DataFormat, Hash32, TaskSpec, Uri};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

/// Train, verify, estimate and inspect gensyn training tasks.
#[derive(Parser, Debug)]
#[command(name = "gensyn-ml", version, about)]
pub struct Cli {
	/// What to do.
	#[command(subcommand)]
	pub command: Command,
}

/// The subcommands.
#[derive(Subcommand, Debug)]
pub enum Command {
	/// Train a task with checkpoints into a proof store (resumes an interrupted run).
	Train(TrainArgs),
	/// Replay checkpoint segments of a run with repops and judge them.
	#[command(alias = "replay")]
	Verify(VerifyArgs),
	/// Threshold mode: run the first segments with libtorch and repops and propose a
	/// distance threshold.
	Profile(ProfileArgs),
	/// Serve a proof store over HTTP (read-only) until stopped.
	Serve(ServeArgs),
	/// Validate a spec and print its work estimate.
	Estimate(SpecArg),
	/// Describe a spec, a checkpoint file or a data file.
	Inspect(InspectArgs),
	/// Compute the data reference of a data file (hash, chunk root, counts), optionally
	/// writing it into a spec.
	DataRef(DataRefArgs),
	/// Test accuracy of every checkpoint of a run (the learning curve), optionally drawn
	/// as an SVG picture; for a language model, the held-out loss and perplexity.
	Evaluate(EvaluateArgs),
	/// Text drawn from a language model's checkpoint after a prompt.
	Sample(SampleArgs),
}

/// `sample` options.
#[derive(Args, Debug)]
pub struct SampleArgs {
	/// Spec (a language model's), store, run.
	#[command(flatten)]
	pub run: StoredRun,
	/// The checkpoint (0-based); the run's last when not given.
	#[arg(long)]
	pub checkpoint: Option<usize>,
	/// The vocabulary: its characters in id order.
	#[arg(long)]
	pub characters: Option<String>,
	/// A manifest whose `characters` are the vocabulary (as `fetch-kjv.sh` writes).
	#[arg(long)]
	pub manifest: Option<PathBuf>,
	/// The text to continue.
	#[arg(long)]
	pub prompt: String,
	/// Characters to draw.
	#[arg(long, default_value_t = 200)]
	pub length: usize,
	/// Sharpens (below 1) or flattens the model's distribution; 0 picks the most likely.
	#[arg(long, default_value_t = 0.8)]
	pub temperature: f64,
	/// Seed of the draws.
	#[arg(long, default_value_t = 1)]
	pub seed: u64,
}

/// `evaluate` options.
#[derive(Args, Debug)]
pub struct EvaluateArgs {
	/// Spec, store, run.
	#[command(flatten)]
	pub run: StoredRun,
	/// Test data: an MNIST bundle or safetensors file; for a language model, a token
	/// file at the spec's context (held-out sequences).
	#[arg(long)]
	pub test_data: PathBuf,
	/// Write the learning curve (accuracy against step) as an SVG file here.
	#[arg(long)]
	pub svg: Option<PathBuf>,
}

/// A run in a proof store, and its task's spec.
#[derive(Args, Debug)]
pub struct StoredRun {
	/// Task spec (JSON).
	#[arg(long)]
	pub spec: PathBuf,
	/// Proof store directory holding the run.
	#[arg(long, default_value = "proof-store")]
	pub store: PathBuf,
	/// The run (hex id); the only run in the store when not given.
	#[arg(long)]
	pub run_id: Option<String>,
}

/// A task spec file.
#[derive(Args, Debug)]
pub struct SpecArg {
	/// Task spec (JSON).
	#[arg(long)]
	pub spec: PathBuf,
}

/// Options shared by `train` and `verify`.
#[derive(Args, Debug)]
pub struct RunArgs {
	/// Task spec (JSON).
	#[arg(long)]
	pub spec: PathBuf,
	/// Randomness fixed at assignment (64 hex digits); zeros when not given.
	#[arg(long, value_parser = parse_hash)]
	pub randomness: Option<Hash>,
	/// Proof store directory.
	#[arg(long, default_value = "proof-store")]
	pub store: PathBuf,
	/// Where downloaded data files are cached.
	#[arg(long, default_value = ".data/cache")]
	pub cache: PathBuf,
	/// CPU threads for the backend (0: for training all cores but one, which the
	/// checkpoint writer uses; for replay the library's default).
	#[arg(long, default_value_t = 0)]
	pub threads: usize,
}

/// `train` options.
#[derive(Args, Debug)]
pub struct TrainArgs {
	#[command(flatten)]
	/// Spec, randomness, store.
	pub run: RunArgs,
	/// Training engine.
	#[arg(long, value_enum, default_value_t = BackendKind::Tch)]
	pub backend: BackendKind,
	/// Force the CPU even when a GPU is present (tch only).
	#[arg(long)]
	pub cpu: bool,
	/// An MNIST bundle or safetensors file to report test accuracy on.
	#[arg(long)]
	pub test_data: Option<PathBuf>,
	/// Stop after this many steps in total (the run can be resumed later).
	#[arg(long)]
	pub stop_after: Option<u64>,
}

/// `verify` options.
#[derive(Args, Debug)]
pub struct VerifyArgs {
	#[command(flatten)]
	/// Spec, randomness, store.
	pub run: RunArgs,
	/// The run to verify (hex id printed by `train`); the only run in the store when
	/// not given.
	#[arg(long)]
	pub run_id: Option<String>,
	/// Segments to replay (0-based, comma separated); all when not given.
	#[arg(long, value_delimiter = ',')]
	pub segments: Vec<usize>,
	/// Threshold mode: the largest accepted distance of the committed state from the
	/// replayed one, as a share of the segment's work (the chain's default threshold).
	#[arg(long, default_value_t = 5e-2)]
	pub threshold: f64,
	/// Fetch the run's journal and checkpoints from this proof-store server (e.g.
	/// `http://127.0.0.1:9955`) into the local store first; needs `--run-id`.
	#[arg(long)]
	pub remote: Option<String>,
	/// The checkpoint Merkle root the run committed to (on chain); verification fails
	/// when the journal does not match it.
	#[arg(long, value_parser = parse_hash)]
	pub expect_root: Option<Hash>,
	/// Judge Threshold segments by the repops replay alone: no libtorch second opinion on
	/// a segment the replay fails.
	#[arg(long)]
	pub repops_only: bool,
	/// Run the libtorch second opinion on the CPU even when a GPU is present.
	#[arg(long)]
	pub cpu: bool,
}

/// `serve` options.
#[derive(Args, Debug)]
pub struct ServeArgs {
	/// Proof store directory.
	#[arg(long, default_value = "proof-store")]
	pub store: PathBuf,
	/// Address to listen on.
	#[arg(long, default_value = "127.0.0.1:9955")]
	pub addr: String,
}

/// `profile` options.
#[derive(Args, Debug)]
pub struct ProfileArgs {
	#[command(flatten)]
	/// Spec, randomness, store (unused), threads.
	pub run: RunArgs,
	/// Segments to profile from the start of the run.
	#[arg(long, default_value_t = 2)]
	pub segments: usize,
	/// Run libtorch on the CPU even when a GPU is present.
	#[arg(long)]
	pub cpu: bool,
	/// The chain's ceiling on thresholds, which the suggestion is lowered to where the
	/// measured distances leave room (as a profiling worker does).
	#[arg(long)]
	pub ceiling: Option<f64>,
}

/// `inspect` options: exactly one of them.
#[derive(Args, Debug)]
pub struct InspectArgs {
	/// A task spec (JSON).
	#[arg(long)]
	pub spec: Option<PathBuf>,
	/// A checkpoint (safetensors) file.
	#[arg(long)]
	pub checkpoint: Option<PathBuf>,
	/// A data file (MNIST bundle, plain or gzip, or safetensors).
	#[arg(long)]
	pub data: Option<PathBuf>,
}

/// `data-ref` options.
#[derive(Args, Debug)]
pub struct DataRefArgs {
	/// The data file.
	#[arg(long)]
	pub file: PathBuf,
	/// URI to record (default: `file://` and the file's absolute path).
	#[arg(long)]
	pub uri: Option<String>,
	/// A spec whose `data` part to replace.
	#[arg(long)]
	pub spec: Option<PathBuf>,
	/// Where to write the patched spec (stdout when not given).
	#[arg(long)]
	pub out: Option<PathBuf>,
}

fn parse_hash(s: &str) -> Result<Hash, String> {
	hash::from_hex(s).ok_or_else(|| "expected 64 hex digits".to_string())
}

/// Errors of the command line, with a message for the user.
pub type CliError = Box<dyn std::error::Error>;

/// Reads and validates a task spec file.
pub fn read_spec(path: &Path) -> Result<TaskSpec, CliError> {
	let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
	let spec: TaskSpec =
		serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
	spec.validate().map_err(|e| format!("{}: invalid spec: {e}", path.display()))?;
	Ok(spec)
}

/// Runs one parsed command line and returns what to print.
pub fn run(cli: Cli) -> Result<Value, CliError> {
	match cli.command {
		Command::Train(a) => crate::cli_run::train(a),
		Command::Verify(a) => crate::cli_run::verify(a),
		Command::Profile(a) => crate::cli_run::profile(a),
		Command::Serve(a) => serve(a),
		Command::Estimate(a) => estimate(&a.spec),
		Command::Inspect(a) => inspect(a),
		Command::DataRef(a) => data_ref(a),
		Command::Evaluate(a) => crate::evaluate::run(a),
		Command::Sample(a) => crate::sample::run(a),
	}
}

fn serve(a: ServeArgs) -> Result<Value, CliError> {
	let store = crate::proof_store::ProofStore::open(&a.store)?;
	let server = crate::proof_store::serve::serve(store, &a.addr)?;
	tracing::info!(target: "gensyn_ml", "serving {} at {}", a.store.display(), server.url());
	loop {
		std::thread::park();
	}
}

fn estimate(path: &Path) -> Result<Value, CliError> {
	let spec = read_spec(path)?;
	let e = gensyn_primitives::estimate(&spec).map_err(|e| format!("estimate: {e}"))?;
	let memory = gensyn_primitives::memory_mib(&spec).map_err(|e| format!("memory: {e}"))?;
	Ok(json!({
		"steps": e.steps,
		"parameters": e.parameters,
		"memory_mib": memory,
		"ops_per_step": e.ops,
		"gas": {
			"forward": e.forward, "loss": e.loss, "backward": e.backward,
			"optimizer": e.optimizer, "per_step": e.per_step, "total": e.total,
		},
	}))
}

fn inspect(a: InspectArgs) -> Result<Value, CliError> {
	match (a.spec, a.checkpoint, a.data) {
		(Some(p), None, None) => {
			let spec = read_spec(&p)?;
			let shapes = gensyn_primitives::validate::infer_shapes(&spec.model)
				.map_err(|e| format!("{e}"))?;
			Ok(json!({
				"layers": spec.model.layers.iter().zip(&shapes).map(|(l, s)| {
					json!({"layer": format!("{l:?}"), "input": format!("{s:?}")})
				}).collect::<Vec<_>>(),
				"output": format!("{:?}", shapes.last()),
				"parameter_shapes": checkpoint::state_shapes(&spec).0,
				"steps_per_epoch": spec.steps_per_epoch(),
				"total_steps": spec.total_steps(),
				"checkpoints": spec.total_steps().div_ceil(spec.training.checkpoint_interval as u64) + 1,
			}))
		}
		(None, Some(p), None) => {
			let bytes = std::fs::read(&p).map_err(|e| format!("{}: {e}", p.display()))?;
			let state = checkpoint::from_safetensors(&bytes)?;
			Ok(json!({
				"step": state.step,
				"blob": hash::to_hex(&hash::blake2_256(&bytes)),
				"state_hash": hash::to_hex(&checkpoint::state_hash(&state)),
				"encoding_hash": hash::to_hex(&state.hash()),
				"param_sizes": state.params.iter().map(Vec::len).collect::<Vec<_>>(),
				"opt_sizes": state.opt.iter().map(Vec::len).collect::<Vec<_>>(),
			}))
		}
		(None, None, Some(p)) => {
			let d = dataset::load_local(&p)?;
			let (file_hash, chunk_root) = file_commitments(&p)?;
			Ok(json!({
				"samples": d.len(),
				"sample_shape": d.sample_shape,
				"classes_seen": d.labels.iter().max().map_or(0, |m| m + 1),
				"file_hash": format!("0x{}", hash::to_hex(&file_hash)),
				"chunk_root": format!("0x{}", hash::to_hex(&chunk_root)),
			}))
		}
		_ => Err("inspect takes exactly one of --spec, --checkpoint, --data".into()),
	}
}

/// blake2-256 of a file and its chunk root ([`dataset::chunk_root`], what workers check).
pub fn file_commitments(path: &Path) -> Result<(Hash, Hash), CliError> {
	let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
	Ok((hash::blake2_256(&bytes), dataset::chunk_root(&bytes)))
}

fn data_ref(a: DataRefArgs) -> Result<Value, CliError> {
	let d: Dataset = dataset::load_local(&a.file)?;
	let (file_hash, chunk_root) = file_commitments(&a.file)?;
	let bytes = std::fs::read(&a.file)?;
	let format = if a.file.extension().is_some_and(|e| e == "safetensors") {
		DataFormat::Safetensors
	} else if bytes.starts_with(&[0x1f, 0x8b]) {
		DataFormat::MnistIdxGz
	} else {
		DataFormat::MnistIdx
	};
	let uri = match a.uri {
		Some(u) => u,
		None => format!("file://{}", std::fs::canonicalize(&a.file)?.display()),
	};
	let [c, h, w] = match d.sample_shape[..] {
		[c, h, w] => [c, h, w],
		[h, w] => [1, h, w],
		_ => return Err(format!("sample shape {:?} is not [C, H, W]", d.sample_shape).into()),
	};
	let data = gensyn_primitives::DataRef {
		uri: Uri::parse(&uri).ok_or("URI longer than 256 bytes")?,
		file_hash: Hash32(file_hash),
		chunk_root: Hash32(chunk_root),
		format,
		samples: d.len() as u32,
		input: gensyn_primitives::Shape3 { channels: c as u32, height: h as u32, width: w as u32 },
		classes: d.labels.iter().max().map_or(0, |m| m + 1),
	};
	let Some(spec_path) = a.spec else {
		return Ok(serde_json::to_value(&data)?);
	};
	let text = std::fs::read_to_string(&spec_path)?;
	let mut spec: TaskSpec = serde_json::from_str(&text)?;
	let classes = data.classes.max(spec.data.classes);
	spec.data = gensyn_primitives::DataRef { classes, ..data };
	spec.validate().map_err(|e| format!("patched spec is invalid: {e}"))?;
	let out = serde_json::to_string_pretty(&spec)?;
	match a.out {
		Some(p) => {
			std::fs::write(&p, out + "\n")?;
			Ok(json!({"written": p.display().to_string()}))
		}
		None => Ok(serde_json::to_value(&spec)?),
	}
}
