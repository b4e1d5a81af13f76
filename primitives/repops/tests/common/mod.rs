#![allow(dead_code)]
use gensyn_primitives::*;
use gensyn_repops::model::Dataset;

pub fn base_spec() -> TaskSpec {
	let path = format!("{}/../../examples/mnist-mlp.json", manifest_dir());
	serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

pub fn layers(v: Vec<Layer>) -> BoundedVec<Layer, 32> {
	BoundedVec::try_from_vec(v).unwrap()
}

/// A tiny MLP on 1x6x6 inputs, 3 classes, SGD with momentum.
pub fn tiny_mlp() -> TaskSpec {
	fixtures::tiny_mlp()
}

/// A tiny CNN on 1x8x8 inputs (padding, stride 2, pooling), 3 classes, Adam, cosine.
pub fn tiny_cnn() -> TaskSpec {
	fixtures::tiny_cnn()
}

/// Generated data: class c lights up a band of rows, plus deterministic noise.
pub struct Synthetic {
	pub shape: Shape3,
	pub classes: u32,
}

impl Dataset for Synthetic {
	fn sample(&self, index: u32, input: &mut [f32]) -> gensyn_repops::Result<u32> {
		let label = index % self.classes;
		let (h, w) = (self.shape.height as usize, self.shape.width as usize);
		let band = h / self.classes as usize;
		let mut rng = order::SplitMix64(index as u64 * 7919 + 1);
		for (i, v) in input.iter_mut().enumerate() {
			let row = (i / w) % h;
			let on = row / band.max(1) == label as usize;
			let noise = (rng.next_u64() >> 40) as f32 / 16_777_216.0 - 0.5;
			*v = if on { 1.0 } else { 0.0 } + 0.3 * noise;
		}
		Ok(label)
	}
}

pub fn data_for(spec: &TaskSpec) -> Synthetic {
	Synthetic { shape: spec.data.input, classes: spec.data.classes }
}

/// The package directory of this checkout: cargo's variable at run time (a build reused
/// from another checkout through a shared target directory keeps the old compile-time
/// path), the compile-time one otherwise.
fn manifest_dir() -> String {
	std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| env!("CARGO_MANIFEST_DIR").to_string())
}
