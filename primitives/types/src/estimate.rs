//! The work estimate of a task: the model unrolled into the operations of one
//! training step (forward, loss, backward, optimizer), each weighted by the gas table
//! [`GAS`], times the number of steps.
//!
//! Every step is priced at a full batch (the last, smaller batch of an epoch is
//! priced as full), and no gradient flows below the first trainable layer (nothing
//! consumes it), matching repops' step graph. All arithmetic is checked: an
//! overflow is [`SpecError::EstimateOverflow`].

use crate::{
	spec::{Layer, Optimizer, TaskSpec},
	validate::{infer_shapes, validate, Activation, SpecError},
};
use codec::{Decode, DecodeWithMemTracking, Encode, MaxEncodedLen};
use scale_info::TypeInfo;

/// Gas weights of the basic operations.
///
/// Unit: one gas is one f32 multiply-then-add of a sequential reduction on one
/// reference CPU core, about one nanosecond (repops replays an MNIST MLP step at
/// roughly that rate). Other entries are that cost relative to it.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct GasTable {
	/// One multiply-accumulate of a dot product (linear, convolution, their gradients).
	pub mac: u64,
	/// One element-wise operation (add, copy, ReLU, bias add, gradient mask).
	pub elementwise: u64,
	/// One comparison (max-pool window, softmax max).
	pub compare: u64,
	/// One `exp` (libm `expf`).
	pub exp: u64,
	/// One `log` (libm `logf`).
	pub log: u64,
	/// Updating one parameter with SGD with momentum.
	pub sgd_param: u64,
	/// Updating one parameter with Adam (two moments, sqrt, division).
	pub adam_param: u64,
	/// Fixed cost of launching one operation of the step graph.
	pub op_overhead: u64,
}

/// The gas table the runtime charges by.
pub const GAS: GasTable = GasTable {
	mac: 1,
	elementwise: 1,
	compare: 1,
	exp: 20,
	log: 20,
	sgd_param: 4,
	adam_param: 16,
	op_overhead: 1_000,
};

/// The estimated work of a task, in gas.
#[derive(
	Clone,
	Copy,
	PartialEq,
	Eq,
	Debug,
	Default,
	Encode,
	Decode,
	DecodeWithMemTracking,
	MaxEncodedLen,
	TypeInfo,
)]
pub struct WorkEstimate {
	/// Forward pass of one step.
	pub forward: u64,
	/// Loss and its gradient, one step.
	pub loss: u64,
	/// Backward pass of one step.
	pub backward: u64,
	/// Optimizer update of one step.
	pub optimizer: u64,
	/// Operations in one step's graph.
	pub ops: u64,
	/// Sum of the above plus `ops * op_overhead`.
	pub per_step: u64,
	/// Steps of the whole run.
	pub steps: u64,
	/// `per_step * steps`.
	pub total: u64,
	/// Trainable parameters of the model.
	pub parameters: u64,
}

struct Acc(u64);
impl Acc {
	fn add(&mut self, terms: &[u64]) -> Result<(), SpecError> {
		let mut p: u64 = 1;
		for t in terms {
			p = p.checked_mul(*t).ok_or(SpecError::EstimateOverflow)?;
		}
		self.0 = self.0.checked_add(p).ok_or(SpecError::EstimateOverflow)?;
		Ok(())
	}
}

/// Tensors of the training state per parameter tensor: the parameter and its optimizer
/// state (SGD's momentum; Adam's two moments).
pub fn state_tensors_per_param(optimizer: &Optimizer) -> u64 {
	match optimizer {
		Optimizer::Sgd { .. } => 2,
		Optimizer::Adam { .. } => 3,
	}
}

/// What a game's defendant replays for one segment of a task: the segment's steps (the
/// checkpoint interval, or the whole run when shorter), their gas, and the bytes of the
/// training states it keeps while it plays (the start and one after each step: its
/// answers are read from them).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct SegmentWork {
	/// Steps in the longest segment.
	pub steps: u64,
	/// Their gas.
	pub gas: u64,
	/// Bytes of the states kept (f32 values).
	pub state_bytes: u64,
}

/// The work of the longest segment of `spec` (validated like [`estimate`]).
pub fn segment_work(spec: &TaskSpec) -> Result<SegmentWork, SpecError> {
	let e = estimate(spec)?;
	let steps = u64::from(spec.training.checkpoint_interval).min(e.steps);
	let gas = e.per_step.checked_mul(steps).ok_or(SpecError::EstimateOverflow)?;
	let state_bytes = e
		.parameters
		.checked_mul(state_tensors_per_param(&spec.training.optimizer) * 4)
		.and_then(|b| b.checked_mul(steps.saturating_add(1)))
		.ok_or(SpecError::EstimateOverflow)?;
	Ok(SegmentWork { steps, gas, state_bytes })
}

/// Validates `spec` and estimates its work.
pub fn estimate(spec: &TaskSpec) -> Result<WorkEstimate, SpecError> {
	validate(spec)?;
	let shapes = infer_shapes(&spec.model)?;
	estimate_unchecked(spec, &shapes)
}

/// The estimate for already-inferred shapes (`shapes` from [`infer_shapes`]).
pub(crate) fn estimate_unchecked(
	spec: &TaskSpec,
	shapes: &[Activation],
) -> Result<WorkEstimate, SpecError> {
	let g = &GAS;
	let b = spec.training.batch_size as u64;
	let mut fwd = Acc(0);
	let mut bwd = Acc(0);
	let mut ops: u64 = 0;
	let mut params: u64 = 0;
	let mut seen_trainable = false;
	for (i, layer) in spec.model.layers.iter().enumerate() {
		let (Some(inp), Some(out)) = (shapes.get(i), shapes.get(i + 1)) else {
			return Err(SpecError::EstimateOverflow);
		};
		let (n_in, n_out) = (inp.numel(), out.numel());
		match *layer {
			Layer::Linear { in_features, out_features } => {
				let (fi, fo) = (in_features as u64, out_features as u64);
				fwd.add(&[b, fi, fo, g.mac])?;
				fwd.add(&[b, fo, g.elementwise])?;
				bwd.add(&[b, fi, fo, g.mac])?; // weight gradient
				bwd.add(&[b, fo, g.elementwise])?; // bias gradient
				ops += 3;
				if seen_trainable {
					bwd.add(&[b, fi, fo, g.mac])?; // input gradient
					ops += 1;
				}
				seen_trainable = true;
				params = params.saturating_add((fi + 1) * fo);
			}
			Layer::Conv2d { in_channels, out_channels, kernel, .. } => {
				let k2 = (kernel as u64) * (kernel as u64);
				let (ic, oc) = (in_channels as u64, out_channels as u64);
				let pos = n_out / oc.max(1);
				fwd.add(&[b, oc, pos, ic, k2, g.mac])?;
				fwd.add(&[b, ic, k2, pos, g.elementwise])?; // im2col
				bwd.add(&[b, oc, pos, ic, k2, g.mac])?;
				bwd.add(&[b, n_out, g.elementwise])?;
				ops += 3;
				if seen_trainable {
					bwd.add(&[b, oc, pos, ic, k2, g.mac])?;
					ops += 1;
				}
				seen_trainable = true;
				params = params.saturating_add((ic * k2 + 1) * oc);
			}
			Layer::Relu | Layer::Flatten => {
				fwd.add(&[b, n_in, g.elementwise])?;
				ops += 1;
				if seen_trainable {
					bwd.add(&[b, n_in, g.elementwise])?;
					ops += 1;
				}
			}
			Layer::MaxPool2d { kernel, .. } => {
				let k2 = (kernel as u64) * (kernel as u64);
				fwd.add(&[b, n_out, k2, g.compare])?;
				ops += 1;
				if seen_trainable {
					bwd.add(&[b, n_out, k2, g.compare])?;
					bwd.add(&[b, n_in, g.elementwise])?;
					ops += 1;
				}
			}
		}
	}
	let classes = spec.data.classes as u64;
	let mut loss = Acc(0);
	loss.add(&[b, classes, g.compare])?; // row max
	loss.add(&[b, classes, g.exp])?; // sum of exp
	loss.add(&[b, g.log])?; // per-sample loss
	loss.add(&[b, g.elementwise])?; // mean
	loss.add(&[b, classes, g.exp])?; // gradient
	ops += 5;
	let mut opt = Acc(0);
	let per_param = match spec.training.optimizer {
		Optimizer::Sgd { .. } => g.sgd_param,
		Optimizer::Adam { .. } => g.adam_param,
	};
	let tensors_per_param = state_tensors_per_param(&spec.training.optimizer);
	opt.add(&[params, per_param])?;
	let trainable_layers = spec
		.model
		.layers
		.iter()
		.filter(|l| matches!(l, Layer::Linear { .. } | Layer::Conv2d { .. }))
		.count() as u64;
	ops += trainable_layers * 2 * tensors_per_param;
	let mut step = Acc(0);
	step.add(&[fwd.0])?;
	step.add(&[loss.0])?;
	step.add(&[bwd.0])?;
	step.add(&[opt.0])?;
	step.add(&[ops, g.op_overhead])?;
	let steps = spec.total_steps();
	let total = step.0.checked_mul(steps).ok_or(SpecError::EstimateOverflow)?;
	Ok(WorkEstimate {
		forward: fwd.0,
		loss: loss.0,
		backward: bwd.0,
		optimizer: opt.0,
		ops,
		per_step: step.0,
		steps,
		total,
		parameters: params,
	})
}
