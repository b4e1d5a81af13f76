//! Checkpoints: the training state after some step (repops' `TrainState`: parameters,
//! optimizer state, step) as a safetensors file, and the hash a run commits to.
//!
//! Tensor names: `param.NN` (in state order, `gensyn_primitives::layout::param_shapes`:
//! per trainable layer the weight, then the bias, with their model shapes; a language
//! model's tables, LayerNorms and projections as that layout lists them), `opt.NN`
//! (repops' order: per parameter SGD's momentum buffer, or Adam's or AdamW's `m` then
//! `v`; each with its parameter's shape), and `step` (one `u64`). Reals
//! are `f32` little-endian. The bytes are a pure function of the state (safetensors
//! orders tensors by dtype, then name), so equal states give equal blobs.
//!
//! The checkpoint hash is the state's Merkle root (`TrainState::root`): the same value
//! the pinpoint game's step level starts from, and equal only for equal states.

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

/// The checkpoint hash of `state`: its Merkle root (`TrainState::root`), with each
/// tensor's leaves hashed several at a time (`hash::tensor_root`).
pub fn state_hash(state: &TrainState) -> [u8; 32] {
	state.root_with(crate::hash::tensor_root)
}

fn le_bytes(values: &[f32]) -> Vec<u8> {
	values.iter().flat_map(|x| x.to_le_bytes()).collect()
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
