//! P3 for the transformer (run by `scripts/bench/run.sh`): training steps of the
//! decoder-only language model (forward, backward, clipped AdamW) with repops and with
//! libtorch on the CPU, from the same parameters and batches, at each thread count.
//! Every figure is the best of `--reps` repetitions. Prints one JSON object whose
//! `replay` lists, per thread count, both engines' steps per second and the ratio of
//! their times, repops / libtorch.
//!
//! Usage: `lm_bench [--steps N] [--reps N] [--threads 1,2]`

use gensyn_primitives::order::SplitMix64;
use gensyn_repops::transformer::{
	lm::{self, Config, Params},
	train::{self, AdamW, Moments},
};
use gensyn_workers::tch_lm::TchLm;
use serde_json::json;
use std::time::Instant;

/// A character-level model of the size a small task would train: 0.1 M parameters.
const C: Config = Config { vocab: 64, t: 64, d: 64, heads: 4, layers: 2, hidden: 256, eps: 1e-5 };
/// Sequences per step.
const BATCH: usize = 8;
const H: AdamW =
	AdamW { lr: 1e-3, beta1: 0.9, beta2: 0.99, eps: 1e-8, weight_decay: 0.01, max_norm: 1.0 };

/// The word after the option `name`, if given.
fn value<'a>(args: &'a [String], name: &str) -> Option<&'a str> {
	args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).map(String::as_str)
}

/// `steps` batches of random tokens and their next tokens.
fn batches(steps: usize) -> Vec<(Vec<u32>, Vec<u32>)> {
	let mut rng = SplitMix64(5);
	let mut draw = || (rng.next_u64() % C.vocab as u64) as u32;
	(0..steps)
		.map(|_| {
			let text: Vec<u32> = (0..BATCH * (C.t + 1)).map(|_| draw()).collect();
			let windows = text.chunks_exact(C.t + 1);
			let tokens = windows.clone().flat_map(|w| w[..C.t].to_vec()).collect();
			let targets = windows.flat_map(|w| w[1..].to_vec()).collect();
			(tokens, targets)
		})
		.collect()
}

/// Seconds for `data`'s steps with repops at `threads`.
fn repops(p: &Params, data: &[(Vec<u32>, Vec<u32>)], threads: usize) -> f64 {
	let mut params = p.clone();
	let mut moments = Moments::zeros(params.tensors());
	let t = Instant::now();
	for (x, y) in data {
		let f = lm::forward(&C, &params, x, y, BATCH, threads).expect("a forward pass");
		let mut g = lm::backward(&C, &params, &f, x, y, BATCH, threads).expect("a backward pass");
		train::step(&mut params.tensors_mut(), &mut g.tensors_mut(), &mut moments, &H)
			.expect("a step");
	}
	t.elapsed().as_secs_f64()
}

/// Seconds for `data`'s steps with libtorch on the CPU at `threads`.
fn libtorch(p: &Params, data: &[(Vec<u32>, Vec<u32>)], threads: usize) -> f64 {
	tch::set_num_threads(threads as i32);
	let mut model = TchLm::new(C, p, tch::Device::Cpu).expect("the model");
	let t = Instant::now();
	for (x, y) in data {
		model.step(x, y, BATCH, &H).expect("a step");
	}
	t.elapsed().as_secs_f64()
}

fn main() {
	let args: Vec<String> = std::env::args().collect();
	let steps = value(&args, "--steps").map_or(10, |v| v.parse().expect("a number"));
	let reps: usize = value(&args, "--reps").map_or(3, |v| v.parse().expect("a number"));
	let threads: Vec<usize> = value(&args, "--threads")
		.unwrap_or("1,2")
		.split(',')
		.map(|t| t.parse().expect("a thread count"))
		.collect();
	let p = Params::init(&C, 1);
	let parameters: usize = p.tensors().iter().map(|t| t.len()).sum();
	let data = batches(steps);
	let best = |f: &dyn Fn() -> f64| (0..reps.max(1)).map(|_| f()).fold(f64::INFINITY, f64::min);
	let replay: Vec<serde_json::Value> = threads
		.iter()
		.map(|&n| {
			let (r, l) = (best(&|| repops(&p, &data, n)), best(&|| libtorch(&p, &data, n)));
			json!({
				"threads": n,
				"repops_steps_per_s": steps as f64 / r,
				"libtorch_steps_per_s": steps as f64 / l,
				"ratio_repops_over_libtorch": r / l,
			})
		})
		.collect();
	let out = json!({
		"model": { "vocab": C.vocab, "t": C.t, "d": C.d, "heads": C.heads, "layers": C.layers,
			"hidden": C.hidden, "batch": BATCH, "parameters": parameters },
		"steps": steps,
		"replay": replay,
	});
	println!("{out}");
}
