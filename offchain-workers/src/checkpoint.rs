//! Checkpoints: the training state after some step (repops' `TrainState`: parameters,
//! optimizer state, step) as a safetensors file, and the hash a run commits to.
//!
//! Tensor names: `param.NN` (per trainable layer the weight, then the bias, with their
//! model shapes), `opt.NN` (repops' order: per parameter SGD's momentum buffer, or
//! Adam's `m` then `v`; each with its parameter's shape), and `step` (one `u64`). Reals
//! are `f32` little-endian. The bytes are a pure function of the state (safetensors
//! orders tensors by dtype, then name), so equal states give equal blobs.
//!
//! The checkpoint hash is the state's Merkle root (`TrainState::root`): the same value
//! the pinpoint game's step level starts from, and equal only for equal states.

use blake2b_simd::many::HashManyJob;
use gensyn_primitives::merkle::{self, Hash};
use gensyn_primitives::TaskSpec;
use gensyn_repops::graph::{opt_slots, param_shapes};
pub use gensyn_repops::state::TrainState;
use safetensors::{tensor::TensorView, Dtype, SafeTensors};

/// Errors reading a checkpoint file.
#[derive(Debug, thiserror::Error)]
pub enum CheckpointError {
	/// Not a valid safetensors file.
	#[error("not a valid safetensors checkpoint: {0}")]
	Format(String),
	/// A tensor the checkpoint needs is missing.
	#[error("checkpoint has no tensor {0:?}")]
	Missing(String),
	/// A tensor has the wrong dtype.
	#[error("checkpoint tensor {name:?} is malformed: {reason}")]
	Malformed {
		/// The tensor.
		name: String,
		/// What is wrong.
		reason: String,
	},
	/// The checkpoint does not fit the task's model and optimizer.
	#[error("checkpoint does not fit the task's model and optimizer")]
	ModelMismatch,
}

/// The shape of every tensor of `spec`'s state: parameters, then optimizer slots.
pub fn state_shapes(spec: &TaskSpec) -> (Vec<Vec<usize>>, Vec<Vec<usize>>) {
	let params: Vec<Vec<usize>> = param_shapes(spec)
		.into_iter()
		.map(|s| s.into_iter().map(|d| d as usize).collect())
		.collect();
	let slots = opt_slots(&spec.training.optimizer);
	let opt = params.iter().flat_map(|s| std::iter::repeat_n(s.clone(), slots)).collect();
	(params, opt)
}

/// Checks that `state` fits `spec`'s model and optimizer.
pub fn check(spec: &TaskSpec, state: &TrainState) -> Result<(), CheckpointError> {
	gensyn_repops::model::check_state(spec, state).map_err(|_| CheckpointError::ModelMismatch)
}

/// The checkpoint hash of `state` (its Merkle root, [`TrainState::root`]).
///
/// Computed level by level with `blake2b_simd::many`, which hashes independent inputs
/// (the tensors' chunk leaves, then the node pairs of each level) several at a time in
/// SIMD lanes: the same hashes as `TrainState::root`, about three times faster.
pub fn state_hash(state: &TrainState) -> [u8; 32] {
	let tensors: Vec<&[f32]> = state.params.iter().chain(&state.opt).map(Vec::as_slice).collect();
	let mut b = merkle::MerkleBuilder::default();
	b.push(merkle::hash_leaf(&state.step.to_le_bytes()));
	for root in tensor_roots(&tensors) {
		b.push(root);
	}
	b.finish()
}

/// blake2-256 of every input, several at a time.
fn hash_many<'a>(inputs: impl Iterator<Item = &'a [u8]>) -> Vec<Hash> {
	let mut params = blake2b_simd::Params::new();
	params.hash_length(32);
	let mut jobs: Vec<HashManyJob> = inputs.map(|i| HashManyJob::new(&params, i)).collect();
	blake2b_simd::many::hash_many(jobs.iter_mut());
	jobs.iter().map(|j| j.to_hash().as_bytes().try_into().expect("a 32-byte hash")).collect()
}

/// `merkle::tensor_root` of each of `tensors`.
pub fn tensor_roots(tensors: &[&[f32]]) -> Vec<Hash> {
	const CHUNK: usize = merkle::TENSOR_CHUNK_ELEMENTS;
	// Every leaf's input (`0x00` then the chunk's little-endian bits) in one buffer.
	let leaves: usize = tensors.iter().map(|t| t.len().div_ceil(CHUNK)).sum();
	let values: usize = tensors.iter().map(|t| t.len()).sum();
	let mut buf = Vec::with_capacity(leaves + 4 * values);
	let mut ends = Vec::with_capacity(leaves);
	for t in tensors {
		for chunk in t.chunks(CHUNK) {
			buf.push(0x00);
			let start = buf.len();
			buf.resize(start + 4 * chunk.len(), 0);
			for (dst, x) in buf[start..].chunks_exact_mut(4).zip(chunk) {
				dst.copy_from_slice(&x.to_le_bytes());
			}
			ends.push(buf.len());
		}
	}
	let starts = std::iter::once(0).chain(ends.iter().copied());
	let leaf_hashes = hash_many(starts.zip(&ends).map(|(s, &e)| &buf[s..e]));
	// Then each tensor's levels: pairs left to right, a lone last node promoted.
	let mut levels = Vec::with_capacity(tensors.len());
	let mut first = 0;
	for t in tensors {
		let n = t.len().div_ceil(CHUNK);
		levels.push(leaf_hashes[first..first + n].to_vec());
		first += n;
	}
	while levels.iter().any(|l| l.len() > 1) {
		let mut nodes = Vec::new();
		for level in &levels {
			for pair in level.chunks_exact(2) {
				let mut input = [0u8; 65];
				input[0] = 0x01;
				input[1..33].copy_from_slice(&pair[0]);
				input[33..].copy_from_slice(&pair[1]);
				nodes.push(input);
			}
		}
		let mut hashes = hash_many(nodes.iter().map(|n| &n[..])).into_iter();
		for level in &mut levels {
			let lone = (level.len() % 2 == 1 && level.len() > 1).then(|| level[level.len() - 1]);
			let pairs = level.len() / 2;
			if pairs == 0 {
				continue;
			}
			level.clear();
			level.extend(hashes.by_ref().take(pairs));
			level.extend(lone);
		}
	}
	levels.into_iter().map(|l| l.first().copied().unwrap_or_else(merkle::empty_root)).collect()
}

fn le_bytes(values: &[f32]) -> Vec<u8> {
	let mut out = vec![0u8; 4 * values.len()];
	for (dst, x) in out.chunks_exact_mut(4).zip(values) {
		dst.copy_from_slice(&x.to_le_bytes());
	}
	out
}

/// `state` (which must fit `spec`) as safetensors bytes.
pub fn to_safetensors(spec: &TaskSpec, state: &TrainState) -> Result<Vec<u8>, CheckpointError> {
	check(spec, state)?;
	let (param_shapes, opt_shapes) = state_shapes(spec);
	let named = |prefix: &str, values: &[Vec<f32>], shapes: &[Vec<usize>]| {
		values
			.iter()
			.zip(shapes)
			.enumerate()
			.map(|(i, (v, s))| (format!("{prefix}.{i:02}"), s.clone(), le_bytes(v)))
			.collect::<Vec<_>>()
	};
	let mut tensors = named("param", &state.params, &param_shapes);
	tensors.extend(named("opt", &state.opt, &opt_shapes));
	let step = state.step.to_le_bytes();
	let mut views = Vec::with_capacity(tensors.len() + 1);
	for (name, shape, bytes) in &tensors {
		let view = TensorView::new(Dtype::F32, shape.clone(), bytes)
			.map_err(|e| CheckpointError::Format(e.to_string()))?;
		views.push((name.clone(), view));
	}
	views.push((
		"step".to_string(),
		TensorView::new(Dtype::U64, vec![1], &step)
			.map_err(|e| CheckpointError::Format(e.to_string()))?,
	));
	safetensors::serialize(views, None).map_err(|e| CheckpointError::Format(e.to_string()))
}

/// Reads a state from safetensors bytes (any model; check it with [`check`]).
pub fn from_safetensors(bytes: &[u8]) -> Result<TrainState, CheckpointError> {
	let st = SafeTensors::deserialize(bytes).map_err(|e| CheckpointError::Format(e.to_string()))?;
	let step_view = st.tensor("step").map_err(|_| CheckpointError::Missing("step".into()))?;
	let step = match (step_view.dtype(), step_view.data()) {
		(Dtype::U64, d) if d.len() == 8 => u64::from_le_bytes(d.try_into().expect("8 bytes")),
		_ => {
			return Err(CheckpointError::Malformed {
				name: "step".into(),
				reason: "expected one u64".into(),
			})
		}
	};
	let read = |prefix: &str| -> Result<Vec<Vec<f32>>, CheckpointError> {
		let mut out = Vec::new();
		loop {
			let name = format!("{prefix}.{:02}", out.len());
			let Ok(view) = st.tensor(&name) else {
				return Ok(out);
			};
			if view.dtype() != Dtype::F32 {
				return Err(CheckpointError::Malformed {
					name,
					reason: format!("dtype {:?}, expected F32", view.dtype()),
				});
			}
			out.push(
				view.data()
					.chunks_exact(4)
					.map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
					.collect(),
			);
		}
	};
	let params = read("param")?;
	if params.is_empty() {
		return Err(CheckpointError::Missing("param.00".into()));
	}
	Ok(TrainState { step, params, opt: read("opt")? })
}

#[cfg(test)]
mod tests {
	use super::*;

	fn values(n: usize, seed: u32) -> Vec<f32> {
		(0..n as u32).map(|i| (i.wrapping_mul(2_654_435_761) ^ seed) as f32 * 1e-9 - 0.5).collect()
	}

	#[test]
	fn tensor_roots_equal_merkle_tensor_root() {
		let sizes: Vec<usize> = (0..300).chain([511, 1024, 4095, 4097, 100_352, 100_353]).collect();
		let tensors: Vec<Vec<f32>> =
			sizes.iter().enumerate().map(|(i, &n)| values(n, i as u32)).collect();
		let refs: Vec<&[f32]> = tensors.iter().map(Vec::as_slice).collect();
		let roots = tensor_roots(&refs);
		for (t, root) in tensors.iter().zip(&roots) {
			assert_eq!(*root, merkle::tensor_root(t), "{} values", t.len());
		}
	}

	#[test]
	fn state_hash_is_the_state_root() {
		let state = TrainState {
			step: 1234,
			params: vec![values(100_352, 1), values(128, 2), values(1280, 3), values(10, 4)],
			opt: vec![values(100_352, 5), values(128, 6), values(1280, 7), values(0, 8)],
		};
		assert_eq!(state_hash(&state), state.root());
		assert_eq!(state_hash(&TrainState::default()), TrainState::default().root());
	}
}
