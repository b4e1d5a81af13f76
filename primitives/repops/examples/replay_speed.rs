//! Prints repops training steps per second for the example MNIST MLP and CNN specs
//! (batch 64, generated inputs) at 1 and 2 threads:
//! `cargo run -p gensyn-repops --release --example replay_speed`.

use gensyn_primitives::TaskSpec;
use gensyn_repops::model::{init_state, train_step};
use std::time::Instant;

fn main() {
	let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples");
	for name in ["mnist-mlp.json", "mnist-cnn.json"] {
		let text = std::fs::read_to_string(format!("{root}/{name}")).expect("example spec");
		let spec: TaskSpec = serde_json::from_str(&text).expect("spec parses");
		let b = spec.training.batch_size as usize;
		let per = spec.data.input.numel() as usize;
		let x: Vec<f32> = (0..b * per).map(|i| ((i * 7919) % 255) as f32 / 255.0).collect();
		let y: Vec<u32> = (0..b as u32).map(|i| i % spec.data.classes).collect();
		for threads in [1, 2] {
			let mut st = init_state(&spec).expect("init");
			train_step(&spec, &mut st, &x, &y, threads).expect("warm-up");
			let steps = 20;
			let t = Instant::now();
			for _ in 0..steps {
				train_step(&spec, &mut st, &x, &y, threads).expect("step");
			}
			let s = t.elapsed().as_secs_f64();
			println!(
				"{name}: threads {threads}: {:.1} steps/s ({:.2} ms/step)",
				steps as f64 / s,
				1e3 * s / steps as f64
			);
		}
	}
}
