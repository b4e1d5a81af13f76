//! Training and replay speed on one task spec, an image model's or a language model's
//! (run by `scripts/bench/run.sh`, which compares with PyTorch, and by
//! `scripts/bench/p1.sh`). Every figure is the best of `--reps` repetitions, so that
//! other load on the machine disturbs it least. Prints one JSON object:
//!
//! - `tch_steps_per_s`: tch training steps per second without checkpoints (P2);
//! - `fresh_steps_per_s`, `checkpointed_steps_per_s`: the two runs compared next;
//! - `checkpoint_overhead_pct`: how much longer the same steps take, from a fresh
//!   trainer, in the run loop with checkpoints every `k` steps (written and hashed on a
//!   writer thread) than alone (P2); `checkpoint_blocked_pct`: the share of that run training waited for
//!   checkpoints (state copies and the final flush);
//! - `tch_steps_per_cpu_s`, `checkpoint_cpu_overhead_pct`: the same in process CPU
//!   time (all threads), which other load on the machine barely changes;
//! - `replay`: per thread count, one segment of `k` steps replayed with repops and with
//!   libtorch on the CPU, and the ratio repops / libtorch (P3).
//!
//! Usage: `bench SPEC [--threads N] [--steps N] [--reps N] [--cpu] [--replay-threads 1,2]
//! [--min-parallel-work N]`
//! (`--replay-threads`: the thread counts of the P3 comparison;
//! `--min-parallel-work N`: repops' threshold below which an op stays on one thread).

use gensyn_primitives::TaskSpec;
use gensyn_workers::checkpoint::TrainState;
use gensyn_workers::dataset::{load_data_ref, DataSource, Dataset};
use gensyn_workers::order::DataOrder;
use gensyn_workers::proof_store::ProofStore;
use gensyn_workers::reference::{initial_state, RepopsEngine};
use gensyn_workers::tch_backend;
use gensyn_workers::train::{self, Backend, RunOptions};
use serde_json::json;
use std::sync::Arc;
use std::time::Instant;

/// The word after the option `name`, if given.
fn value<'a>(args: &'a [String], name: &str) -> Option<&'a str> {
	args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).map(String::as_str)
}

fn arg(args: &[String], name: &str, default: usize) -> usize {
	value(args, name).map_or(default, |v| v.parse().expect("a number"))
}

/// Seconds for steps `from..from + steps` of `engine` (wrapping around the run).
fn time_steps(engine: &mut dyn Backend, spec: &TaskSpec, from: u64, steps: u64) -> f64 {
	let mut order = DataOrder::new(spec, [0; 32]);
	let total = spec.total_steps();
	let t = Instant::now();
	for s in from..from + steps {
		engine.step(order.batch(s % total).expect("inside the run")).expect("a step");
	}
	let _ = engine.last_loss(); // waits for the device
	t.elapsed().as_secs_f64()
}

/// CPU time of the whole process so far in seconds (all threads, those that have
/// ended too, such as a run's checkpoint writer): unlike wall time, other load on the
/// machine barely changes it.
fn process_cpu_s() -> f64 {
	// SAFETY: `getrusage` writes one `rusage` into the zeroed value it is given.
	let usage = unsafe {
		let mut usage: libc::rusage = std::mem::zeroed();
		libc::getrusage(libc::RUSAGE_SELF, &mut usage);
		usage
	};
	let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
	secs(usage.ru_utime) + secs(usage.ru_stime)
}

/// Wall seconds and process CPU seconds of `f`.
fn timed(f: impl FnOnce() -> f64) -> (f64, f64) {
	let cpu = process_cpu_s();
	let wall = f();
	(wall, process_cpu_s() - cpu)
}

fn best(reps: usize, mut f: impl FnMut() -> f64) -> f64 {
	(0..reps).map(|_| f()).fold(f64::INFINITY, f64::min)
}

/// The spec's libtorch trainer: an image model's, or a language model's.
fn tch(
	spec: &TaskSpec,
	state: &TrainState,
	data: &Arc<Dataset>,
	device: tch::Device,
) -> Box<dyn Backend> {
	tch_backend::trainer(spec, state, device, data).expect("model and data fit the device")
}

fn main() {
	let args: Vec<String> = std::env::args().collect();
	let spec_path = args.get(1).expect("usage: bench SPEC [--threads N] [--steps N] [--reps N]");
	let threads = arg(&args, "--threads", 2);
	let steps = arg(&args, "--steps", 100) as u64;
	let reps = arg(&args, "--reps", 5);
	let cpu = args.iter().any(|a| a == "--cpu");
	let replay_threads: Vec<usize> = value(&args, "--replay-threads")
		.map_or(vec![1, 2], |v| v.split(',').map(|n| n.parse().expect("a thread count")).collect());
	if let Some(work) = value(&args, "--min-parallel-work") {
		gensyn_repops::par::set_min_parallel_work(work.parse().expect("a number of terms"));
	}
	let spec: TaskSpec =
		serde_json::from_str(&std::fs::read_to_string(spec_path).expect("spec file"))
			.expect("a task spec");
	spec.validate().expect("a valid spec");
	let steps = steps.min(spec.total_steps());
	let tmp = std::env::temp_dir().join(format!("gensyn-bench-{}", std::process::id()));
	let data = Arc::new(
		load_data_ref(&spec.data, &DataSource::with_local_files(tmp.join("cache"))).expect("data"),
	);
	let init = initial_state(&spec).expect("initial state");
	let device = if cpu { tch::Device::Cpu } else { gensyn_workers::tch_backend::best_device() };
	tch::set_num_threads(threads as i32);

	// P2: training steps/s without checkpoints, after 5 warm-up steps.
	let mut t = tch(&spec, &init, &data, device);
	time_steps(t.as_mut(), &spec, 0, 5);
	let plain = best(reps, || time_steps(t.as_mut(), &spec, 5, steps));
	let mut plain_cpu = f64::INFINITY;
	for _ in 0..reps {
		plain_cpu = plain_cpu.min(timed(|| time_steps(t.as_mut(), &spec, 5, steps)).1);
	}

	// P2: checkpoint overhead: from a fresh trainer, the steps alone, then the same
	// steps in the run loop, checkpointing every k.
	let mut fresh_cpu = f64::INFINITY;
	let fresh = best(reps, || {
		let mut t = tch(&spec, &init, &data, device);
		let (wall, cpu) = timed(|| time_steps(t.as_mut(), &spec, 0, steps));
		fresh_cpu = fresh_cpu.min(cpu);
		wall
	});
	let mut checkpointed_cpu = f64::INFINITY;
	let mut blocked = 0.0;
	let mut rep = 0;
	let checkpointed = best(reps, || {
		rep += 1;
		let store = ProofStore::open(tmp.join(format!("store{rep}"))).expect("store");
		let id = train::run_id(&spec, &[0; 32], "tch");
		let (state, journal) =
			train::resume_point(&store, &id, "tch", spec.total_steps(), || init.clone())
				.expect("fresh run");
		let mut t = tch(&spec, &state, &data, device);
		let mut order = DataOrder::new(&spec, [0; 32]);
		let options = RunOptions { stop_after: Some(steps) };
		let cpu = process_cpu_s();
		let run =
			train::run(&spec, &mut order, t.as_mut(), &store, journal, &options).expect("run");
		checkpointed_cpu = checkpointed_cpu.min(process_cpu_s() - cpu);
		let secs = run.total_time.as_secs_f64();
		blocked = 100.0 * run.checkpoint_time.as_secs_f64() / secs;
		secs
	});

	// The writer thread's work per checkpoint, piece by piece.
	let store = ProofStore::open(tmp.join("pieces")).expect("store");
	let t0 = Instant::now();
	let bytes = gensyn_workers::checkpoint::to_safetensors(&spec, &init).expect("bytes");
	let t1 = Instant::now();
	let _ = gensyn_workers::checkpoint::state_hash(&init);
	let t2 = Instant::now();
	store.put(&bytes).expect("put");
	let t3 = Instant::now();
	let pieces = json!({
		"safetensors_ms": (t1 - t0).as_secs_f64() * 1e3,
		"state_root_ms": (t2 - t1).as_secs_f64() * 1e3,
		"blob_write_ms": (t3 - t2).as_secs_f64() * 1e3,
		"bytes": bytes.len(),
	});

	// P3: one segment of k steps from the initial state, repops vs libtorch CPU.
	let k = spec.training.checkpoint_interval as u64;
	let mut replay = Vec::new();
	for n in replay_threads {
		tch::set_num_threads(n as i32);
		// Alternating runs, best of each: a slow spell of the machine then hits both.
		let (mut torch_s, mut repops_s) = (f64::INFINITY, f64::INFINITY);
		for _ in 0..reps {
			let mut t = tch(&spec, &init, &data, tch::Device::Cpu);
			torch_s = torch_s.min(time_steps(t.as_mut(), &spec, 0, k));
			let mut r = RepopsEngine::new(&spec, &init, data.clone(), n);
			repops_s = repops_s.min(time_steps(&mut r, &spec, 0, k));
		}
		replay.push(json!({
			"threads": n,
			"segment_steps": k,
			"repops_s": repops_s,
			"libtorch_cpu_s": torch_s,
			"ratio_repops_over_libtorch": repops_s / torch_s,
		}));
	}
	let _ = std::fs::remove_dir_all(&tmp);
	let out = json!({
		"spec": spec_path,
		"device": format!("{device:?}"),
		"tf32_allowed": gensyn_workers::tch_backend::tf32_allowed(),
		"threads": threads,
		"steps": steps,
		"reps": reps,
		"tch_steps_per_s": steps as f64 / plain,
		"fresh_steps_per_s": steps as f64 / fresh,
		"checkpointed_steps_per_s": steps as f64 / checkpointed,
		"checkpoint_overhead_pct": 100.0 * (checkpointed - fresh) / fresh,
		"checkpoint_blocked_pct": blocked,
		"tch_steps_per_cpu_s": steps as f64 / plain_cpu,
		"checkpoint_cpu_overhead_pct": 100.0 * (checkpointed_cpu - fresh_cpu) / fresh_cpu,
		"checkpoint_pieces": pieces,
		"replay": replay,
	});
	println!("{}", serde_json::to_string_pretty(&out).expect("JSON"));
}
