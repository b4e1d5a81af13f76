//! Prints the time of each op of one training step of the example MNIST MLP and CNN
//! (batch 64, generated inputs), best of a few runs, at the given thread count:
//! `cargo run -p gensyn-repops --release --example op_profile -- [THREADS [MODEL OP]]`;
//! with `MODEL OP` (`mlp 13`), runs only that op 200 times (for `perf stat`).

use gensyn_primitives::TaskSpec;
use gensyn_repops::{
	graph::step_graph,
	model::{init_state, run_op, trace_step},
};
use std::time::Instant;

fn main() {
	let threads: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(1);
	let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples");
	let only: Option<(String, usize)> =
		std::env::args().nth(2).zip(std::env::args().nth(3).and_then(|a| a.parse().ok()));
	for name in ["mnist-mlp.json", "mnist-cnn.json"] {
		if only.as_ref().is_some_and(|(m, _)| !name.contains(m.as_str())) {
			continue;
		}
		let text = std::fs::read_to_string(format!("{root}/{name}")).expect("example spec");
		let spec: TaskSpec = serde_json::from_str(&text).expect("spec parses");
		let b = spec.training.batch_size as usize;
		let per = spec.data.input.numel() as usize;
		let x: Vec<f32> = (0..b * per).map(|i| ((i * 7919) % 255) as f32 / 255.0).collect();
		let y: Vec<u32> = (0..b as u32).map(|i| i % spec.data.classes).collect();
		let st = init_state(&spec).expect("init");
		let tr = trace_step(&spec, &st, &x, &y, threads).expect("trace");
		let g = step_graph(&spec, b as u32, 0).expect("graph");
		if let Some((_, op)) = only {
			for _ in 0..200 {
				std::hint::black_box(run_op(&g, op, &tr.values, threads).expect("op"));
			}
			println!("{:?}", g.ops[op].kind);
			continue;
		}
		println!("{name} ({threads} threads):");
		let mut total = 0.0;
		for (i, op) in g.ops.iter().enumerate() {
			let mut best = f64::MAX;
			for _ in 0..50 {
				let t = Instant::now();
				let out = run_op(&g, i, &tr.values, threads).expect("op");
				best = best.min(t.elapsed().as_secs_f64());
				// Back to the pool, as a training step does, so no run pays page faults.
				gensyn_repops::par::scratch::give(std::hint::black_box(out));
			}
			total += best;
			println!("  {i:3} {:8.1} us  {:?}", best * 1e6, op.kind);
		}
		println!("  total {:.1} us", total * 1e6);
	}
}
