//! The work estimate of a task: the model unrolled into the operations of one
//! training step (forward, loss, backward, optimizer), each weighted by the gas table
//! [`GAS`], times the number of steps.
//!
//! Every step is priced at a full batch (the last, smaller batch of an epoch is
//! priced as full), and no gradient flows below the first trainable layer (nothing
//! consumes it), matching repops' step graph. All arithmetic is checked: an
//! overflow is [`SpecError::EstimateOverflow`]. The same walk sizes the memory a
//! worker needs ([`memory_mib`]).

use crate::{
	spec::{Layer, Optimizer, TaskSpec},
	validate::{decoder_block_params, infer_shapes, validate, Activation, SpecError},
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
	/// One `tanh` (libm `tanhf`, GELU's).
	pub tanh: u64,
	/// One square root and division (a LayerNorm row's scale).
	pub sqrt: u64,
	/// Updating one parameter with SGD with momentum.
	pub sgd_param: u64,
	/// Updating one parameter with Adam (two moments, sqrt, division).
	pub adam_param: u64,
	/// Updating one parameter with AdamW: Adam's update and the decay, plus its share
	/// of the gradient-norm clipping (a square summed, a scale applied).
	pub adamw_param: u64,
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
	tanh: 20,
	sqrt: 10,
	sgd_param: 4,
	adam_param: 16,
	adamw_param: 20,
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
/// state (SGD's momentum; Adam's and AdamW's two moments).
pub fn state_tensors_per_param(optimizer: &Optimizer) -> u64 {
	crate::layout::opt_slots(optimizer) as u64 + 1
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
		// A position-wise layer maps each of a sequence's positions as one sample.
		let r = inp.rows();
		match *layer {
			Layer::Linear { in_features, out_features } => {
				let (fi, fo) = (in_features as u64, out_features as u64);
				fwd.add(&[b, r, fi, fo, g.mac])?;
				fwd.add(&[b, r, fo, g.elementwise])?;
				bwd.add(&[b, r, fi, fo, g.mac])?; // weight gradient
				bwd.add(&[b, r, fo, g.elementwise])?; // bias gradient
				ops += 3;
				if seen_trainable {
					bwd.add(&[b, r, fi, fo, g.mac])?; // input gradient
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
			Layer::Embedding { vocab, dim } => {
				let (t, d) = (n_out / (dim as u64).max(1), dim as u64);
				fwd.add(&[b, t, d, g.elementwise])?; // two rows gathered and added
				bwd.add(&[b, t, d, 2, g.elementwise])?; // scattered to both tables
				ops += 3;
				seen_trainable = true;
				params = params.saturating_add((vocab as u64 + t).saturating_mul(d));
			}
			Layer::DecoderBlock { heads, hidden } => {
				let Activation::Seq { t, d } = *inp else {
					return Err(SpecError::EstimateOverflow);
				};
				let dims = BlockDims { b, t: t as u64, d: d as u64, heads: heads as u64 };
				ops += decoder_block_work(&mut fwd, &mut bwd, dims, hidden as u64)?;
				seen_trainable = true;
				params = params.saturating_add(decoder_block_params(d, hidden));
			}
			Layer::LayerNorm => {
				let d = n_in / r.max(1);
				ops += layer_norm_work(&mut fwd, &mut bwd, b.saturating_mul(r), d, seen_trainable)?;
				seen_trainable = true;
				params = params.saturating_add(2 * d);
			}
		}
	}
	// One row of logits a sample, or a sequence's positions each.
	let rows = shapes.last().map_or(1, |a| a.rows());
	let classes = spec.data.classes as u64;
	let mut loss = Acc(0);
	loss.add(&[b, rows, classes, g.compare])?; // row max
	loss.add(&[b, rows, classes, g.exp])?; // sum of exp
	loss.add(&[b, rows, g.log])?; // per-row loss
	loss.add(&[b, rows, g.elementwise])?; // mean
	loss.add(&[b, rows, classes, g.exp])?; // gradient
	ops += 5;
	let mut opt = Acc(0);
	let per_param = match spec.training.optimizer {
		Optimizer::Sgd { .. } => g.sgd_param,
		Optimizer::Adam { .. } => g.adam_param,
		Optimizer::AdamW { .. } => g.adamw_param,
	};
	let tensors_per_param = state_tensors_per_param(&spec.training.optimizer);
	opt.add(&[params, per_param])?;
	let param_tensors = crate::layout::param_shapes(spec).len() as u64;
	ops += param_tensors * tensors_per_param;
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

/// Memory one worker needs for `spec`, in MiB: the parameters with their gradients
/// and optimizer state, plus a batch of activations and their gradients, as f32. The
/// activations are every layer's output and, inside each `DecoderBlock`, what its
/// backward pass reads: its two LayerNorms' outputs, the queries, keys and values, every
/// head's scores and weights, the heads' joined output, the stream after attention and
/// the MLP's hidden layer before and after GELU.
pub fn memory_mib(spec: &TaskSpec) -> Result<u32, SpecError> {
	let shapes = infer_shapes(&spec.model)?;
	let mut activations = shapes.iter().fold(0u64, |acc, a| acc.saturating_add(a.numel()));
	for (layer, inp) in spec.model.layers.iter().zip(&shapes) {
		if let (Layer::DecoderBlock { heads, hidden }, Activation::Seq { t, d }) = (layer, inp) {
			let (t, d, heads, hidden) = (*t as u64, *d as u64, *heads as u64, *hidden as u64);
			let inner =
				(7 * t * d).saturating_add(2 * heads * t * t).saturating_add(2 * t * hidden);
			activations = activations.saturating_add(inner);
		}
	}
	let params = estimate(spec)?.parameters;
	let states = state_tensors_per_param(&spec.training.optimizer) + 1;
	let floats = params.saturating_mul(states).saturating_add(
		activations.saturating_mul(u64::from(spec.training.batch_size)).saturating_mul(2),
	);
	let mib = floats.saturating_mul(4).div_ceil(1 << 20).max(1);
	Ok(mib.min(u64::from(u32::MAX)) as u32)
}

/// A decoder block's sizes for its estimate: `b` sequences of `t` positions of `d`
/// features, `heads` heads.
#[derive(Clone, Copy)]
struct BlockDims {
	b: u64,
	t: u64,
	d: u64,
	heads: u64,
}

/// Adds a `DecoderBlock`'s work to `fwd` and `bwd`; returns its operations. Every
/// product of a projection, an attention matrix or the MLP is priced once forward and
/// twice backward (its weights' and its input's gradients: the block's attention needs
/// both for its own weights, so a block's backward is priced in full wherever it sits).
/// Attention prices every query against every key (`t * t`), as the causal mask zeroes
/// rather than skips.
fn decoder_block_work(
	fwd: &mut Acc,
	bwd: &mut Acc,
	s: BlockDims,
	hidden: u64,
) -> Result<u64, SpecError> {
	let g = &GAS;
	let BlockDims { b, t, d, heads } = s;
	let rows = b.saturating_mul(t);
	let mut ops = 0;
	for _ in 0..2 {
		ops += layer_norm_work(fwd, bwd, rows, d, true)?;
	}
	// The projections: query, key and value, the output, the MLP's two layers.
	let macs = [(d, 3 * d), (d, d), (d, hidden), (hidden, d)];
	for (fi, fo) in macs {
		fwd.add(&[rows, fi, fo, g.mac])?;
		fwd.add(&[rows, fo, g.elementwise])?; // bias
		bwd.add(&[rows, fi, fo, 2, g.mac])?;
		bwd.add(&[rows, fo, g.elementwise])?;
	}
	ops += 3 * macs.len() as u64;
	// Scores and the weighted values: `t * t * d` products each, over every head.
	fwd.add(&[b, t, t, d, 2, g.mac])?;
	bwd.add(&[b, t, t, d, 4, g.mac])?;
	// The softmax: scale and mask, row max, exp, normalise; backward two passes.
	fwd.add(&[b, heads, t, t, 3, g.elementwise])?;
	fwd.add(&[b, heads, t, t, g.exp])?;
	bwd.add(&[b, heads, t, t, 2, g.elementwise])?;
	// GELU each way, and the two residual sums.
	fwd.add(&[rows, hidden, g.tanh])?;
	bwd.add(&[rows, hidden, g.tanh])?;
	fwd.add(&[rows, d, 2, g.elementwise])?;
	bwd.add(&[rows, d, 2, g.elementwise])?;
	Ok(ops + 12)
}

/// Adds a LayerNorm's work over `rows` rows of `d` features to `fwd` and `bwd` (its
/// input's gradient only when `input_grad`); returns its operations.
fn layer_norm_work(
	fwd: &mut Acc,
	bwd: &mut Acc,
	rows: u64,
	d: u64,
	input_grad: bool,
) -> Result<u64, SpecError> {
	let g = &GAS;
	// Mean, variance, normalise, scale and shift; one square root a row.
	fwd.add(&[rows, d, 5, g.elementwise])?;
	fwd.add(&[rows, g.sqrt])?;
	// The scale's and shift's gradients.
	bwd.add(&[rows, d, 2, g.elementwise])?;
	if input_grad {
		bwd.add(&[rows, d, 6, g.elementwise])?;
		return Ok(3);
	}
	Ok(2)
}
