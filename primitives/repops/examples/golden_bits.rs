//! Prints, per example spec and thread count, every op's output root of a traced step
//! after a few training steps (a bit-for-bit fingerprint of all kernels):
//! `cargo run -p gensyn-repops --release --example golden_bits`.

use gensyn_primitives::TaskSpec;
use gensyn_repops::model::{init_state, trace_step, train_step};

fn main() {
	let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples");
	for name in ["mnist-mlp.json", "mnist-cnn.json"] {
		let text = std::fs::read_to_string(format!("{root}/{name}")).expect("example spec");
		let spec: TaskSpec = serde_json::from_str(&text).expect("spec parses");
		let b = spec.training.batch_size as usize;
		let per = spec.data.input.numel() as usize;
		for threads in [1, 2, 3] {
			let mut st = init_state(&spec).expect("init");
			for s in 0..3usize {
				let x: Vec<f32> = (0..b * per)
					.map(|i| (((i + 31 * s) * 7919) % 255) as f32 / 255.0 - 0.2)
					.collect();
				let y: Vec<u32> =
					(0..b as u32).map(|i| (i + s as u32) % spec.data.classes).collect();
				let tr = trace_step(&spec, &st, &x, &y, threads).expect("trace");
				for (i, r) in tr.op_roots.iter().enumerate() {
					let hex: String = r.iter().take(8).map(|b| format!("{b:02x}")).collect();
					println!("{name} t{threads} step{s} op{i} {hex}");
				}
				train_step(&spec, &mut st, &x, &y, threads).expect("step");
			}
			let hex: String = st.hash().iter().map(|b| format!("{b:02x}")).collect();
			println!("{name} t{threads} final {hex}");
		}
	}
}
