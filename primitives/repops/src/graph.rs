//! The op graph of one training step: a pure function of the spec, the batch size
//! and the step number (which fixes the learning rate and Adam's bias correction).
//!
//! Tensors are numbered; inputs come first (`INPUT`, `LABELS`, then the parameters and
//! the optimizer state, in [`crate::state::TrainState`] order). Each op reads some
//! tensors and writes exactly one new tensor; ops are in topological order: forward,
//! loss, backward, optimizer. The pinpoint game bisects over this list.

use crate::{optim, ReproError, Result};
use alloc::{vec, vec::Vec};
use gensyn_primitives::{
	validate::{infer_shapes, Activation},
	Layer, Loss, Optimizer, TaskSpec,
};

/// Tensor id of the batch input `[B, C, H, W]`.
pub const INPUT: u32 = 0;
/// Tensor id of the labels `[B]` (class index as an f32).
pub const LABELS: u32 = 1;

/// What a tensor is.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum TensorKind {
	/// The batch input.
	Input,
	/// The labels.
	Labels,
	/// Parameter `index` of the state (weights and biases in layer order).
	Param(u32),
	/// Optimizer-state tensor `index` of the state.
	OptState(u32),
	/// An intermediate value (activation, loss, gradient).
	Value,
	/// The updated parameter `index`.
	NewParam(u32),
	/// The updated optimizer-state tensor `index`.
	NewOptState(u32),
}

/// One tensor of the graph.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct TensorInfo {
	/// What it is.
	pub kind: TensorKind,
	/// Its dimensions (row-major).
	pub shape: Vec<u32>,
}

impl TensorInfo {
	/// Number of elements.
	pub fn numel(&self) -> usize {
		self.shape.iter().map(|d| *d as usize).product()
	}
}

/// Geometry of a convolution over a batch.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct ConvGeom {
	/// Batch size.
	pub batch: u32,
	/// Input channels.
	pub ic: u32,
	/// Input height.
	pub ih: u32,
	/// Input width.
	pub iw: u32,
	/// Output channels.
	pub oc: u32,
	/// Kernel side.
	pub k: u32,
	/// Stride.
	pub stride: u32,
	/// Zero padding.
	pub pad: u32,
	/// Output height.
	pub oh: u32,
	/// Output width.
	pub ow: u32,
}

/// Geometry of a max-pool over a batch.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct PoolGeom {
	/// Batch size.
	pub batch: u32,
	/// Channels.
	pub c: u32,
	/// Input height.
	pub ih: u32,
	/// Input width.
	pub iw: u32,
	/// Window side.
	pub k: u32,
	/// Stride.
	pub stride: u32,
	/// Output height.
	pub oh: u32,
	/// Output width.
	pub ow: u32,
}

/// An operation; inputs listed per variant as `[..]` tensor operands of [`Op::inputs`].
#[derive(Clone, Copy, PartialEq, Debug)]
pub enum OpKind {
	/// `[x, w, b] -> y[b,o] = b[o] + sum_i x[b,i] * w[o,i]`.
	LinearFwd {
		/// Batch.
		batch: u32,
		/// In features.
		fin: u32,
		/// Out features.
		fout: u32,
	},
	/// `[dy, w] -> dx[b,i] = sum_o dy[b,o] * w[o,i]`.
	LinearBwdInput {
		/// Batch.
		batch: u32,
		/// In features.
		fin: u32,
		/// Out features.
		fout: u32,
	},
	/// `[dy, x] -> dw[o,i] = sum_b dy[b,o] * x[b,i]`.
	LinearBwdWeight {
		/// Batch.
		batch: u32,
		/// In features.
		fin: u32,
		/// Out features.
		fout: u32,
	},
	/// `[dy] -> db[o] = sum_b dy[b,o]`.
	LinearBwdBias {
		/// Batch.
		batch: u32,
		/// Out features.
		fout: u32,
	},
	/// `[x, w, b] -> y[b,oc,y,x] = b[oc] + sum_(ic,kh,kw) xpad * w` (padding reads 0).
	ConvFwd(ConvGeom),
	/// `[dy, w] -> dx[b,ic,y,x] = sum_(kh,kw,oc) over valid taps of dy * w`.
	ConvBwdInput(ConvGeom),
	/// `[dy, x] -> dw[oc,ic,kh,kw] = sum_(b,oy,ox) dy * xpad`.
	ConvBwdWeight(ConvGeom),
	/// `[dy] -> db[oc] = sum_(b,oy,ox) dy`.
	ConvBwdBias(ConvGeom),
	/// `[x] -> max(x, 0)` (`x > 0 ? x : 0`).
	ReluFwd,
	/// `[x, dy] -> x > 0 ? dy : 0`.
	ReluBwd,
	/// `[x] -> y = max over the window, in (kh, kw) order, from -inf`.
	PoolFwd(PoolGeom),
	/// `[x, dy] -> dx`: each window's `dy` goes to its first maximal position.
	PoolBwd(PoolGeom),
	/// `[x] -> x` reshaped to `[B, n]`.
	Flatten,
	/// `[dy] -> dy` reshaped back to an image.
	FlattenBwd,
	/// `[z] -> m[b] = max_c z[b,c]`, from -inf.
	RowMax {
		/// Batch.
		batch: u32,
		/// Classes.
		classes: u32,
	},
	/// `[z, m] -> s[b] = sum_c exp(z[b,c] - m[b])`.
	ExpSum {
		/// Batch.
		batch: u32,
		/// Classes.
		classes: u32,
	},
	/// `[z, m, s, labels] -> l[b] = (m[b] + log(s[b])) - z[b, y_b]`.
	SampleLoss {
		/// Batch.
		batch: u32,
		/// Classes.
		classes: u32,
	},
	/// `[l] -> (sum_b l[b]) / B`.
	MeanLoss {
		/// Batch.
		batch: u32,
	},
	/// `[z, m, s, labels] -> dz = ((exp(z - m) / s) - [c == y]) / B`.
	LossGrad {
		/// Batch.
		batch: u32,
		/// Classes.
		classes: u32,
	},
	/// `[buf, g] -> momentum * buf + g`.
	SgdMomentum {
		/// Momentum.
		momentum: f32,
	},
	/// `[p, buf] -> p - lr * buf`.
	SgdParam {
		/// Learning rate of this step.
		lr: f32,
	},
	/// `[m, g] -> beta1 * m + (1 - beta1) * g`.
	AdamM {
		/// beta1.
		beta1: f32,
	},
	/// `[v, g] -> beta2 * v + (1 - beta2) * (g * g)`.
	AdamV {
		/// beta2.
		beta2: f32,
	},
	/// `[p, m, v] -> p - step_size * (m / (sqrt(v) / sqrt(bc2) + eps))`.
	AdamParam(optim::AdamScalars),
	/// `[p, m, v] -> AdamParam(p * decay, m, v)`: AdamW, its decoupled decay first.
	AdamWParam {
		/// Adam's scalars of this step.
		sc: optim::AdamScalars,
		/// `1 - lr * weight_decay`.
		decay: f32,
	},
	/// A language model's operator ([`crate::transformer::ops`]).
	Lm(crate::transformer::ops::LmOp),
}

/// One op: its kind, input tensor ids and output tensor id.
#[derive(Clone, PartialEq, Debug)]
pub struct Op {
	/// What it computes.
	pub kind: OpKind,
	/// Input tensor ids, in the order listed on [`OpKind`].
	pub inputs: Vec<u32>,
	/// Output tensor id.
	pub output: u32,
}

/// The graph of one training step.
#[derive(Clone, PartialEq, Debug)]
pub struct Graph {
	/// Every tensor, by id.
	pub tensors: Vec<TensorInfo>,
	/// The ops, in execution order.
	pub ops: Vec<Op>,
	/// Batch size of this step.
	pub batch: u32,
	/// Tensor id of the mean loss.
	pub loss: u32,
	/// Parameter tensor ids (state order).
	pub params: Vec<u32>,
	/// Optimizer-state tensor ids (state order).
	pub opt_state: Vec<u32>,
	/// Updated parameter tensor ids.
	pub new_params: Vec<u32>,
	/// Updated optimizer-state tensor ids.
	pub new_opt_state: Vec<u32>,
}

impl Graph {
	pub(crate) fn add(&mut self, kind: TensorKind, shape: Vec<u32>) -> u32 {
		self.tensors.push(TensorInfo { kind, shape });
		(self.tensors.len() - 1) as u32
	}

	pub(crate) fn op(&mut self, kind: OpKind, inputs: Vec<u32>, shape: Vec<u32>) -> u32 {
		let out = self.add(TensorKind::Value, shape);
		self.ops.push(Op { kind, inputs, output: out });
		out
	}

	/// A step's graph over `batch` samples before its ops: the batch input and labels
	/// of these shapes (`INPUT`, `LABELS`), then `spec`'s parameters and optimizer state
	/// in state order.
	pub(crate) fn inputs(spec: &TaskSpec, batch: u32, input: Vec<u32>, labels: Vec<u32>) -> Graph {
		let mut g = Graph {
			tensors: Vec::new(),
			ops: Vec::new(),
			batch,
			loss: 0,
			params: Vec::new(),
			opt_state: Vec::new(),
			new_params: Vec::new(),
			new_opt_state: Vec::new(),
		};
		g.add(TensorKind::Input, input);
		g.add(TensorKind::Labels, labels);
		let shapes = param_shapes(spec);
		let slots = opt_slots(&spec.training.optimizer);
		for (i, s) in shapes.iter().enumerate() {
			let id = g.add(TensorKind::Param(i as u32), s.clone());
			g.params.push(id);
		}
		for (i, s) in shapes.iter().enumerate() {
			for j in 0..slots {
				let id = g.add(TensorKind::OptState((i * slots + j) as u32), s.clone());
				g.opt_state.push(id);
			}
		}
		g
	}

	/// The shape of tensor `id`.
	pub fn shape(&self, id: u32) -> Result<&[u32]> {
		self.tensors.get(id as usize).map(|t| t.shape.as_slice()).ok_or(ReproError::OutOfRange)
	}
}

pub use gensyn_primitives::layout::{opt_slots, param_shapes};

/// Whether a step of `spec` has a graph here: every layer, the loss and the optimizer
/// are ones whose ops the pinpoint game can evaluate one element at a time. An image
/// model of the five image layers with the softmax loss and SGD or Adam, or the
/// language model [`crate::transformer::task`] reads ([`crate::transformer::graph`]);
/// no other arrangement (the chain refuses such a task: [`covers`] is part of what the
/// arbiter rules on).
pub fn covers(spec: &TaskSpec) -> bool {
	if crate::transformer::task::config(spec).is_some() {
		return true;
	}
	let layers = spec.model.layers.iter().all(|l| {
		matches!(
			l,
			Layer::Linear { .. }
				| Layer::Conv2d { .. }
				| Layer::Relu
				| Layer::MaxPool2d { .. }
				| Layer::Flatten
		)
	});
	layers
		&& spec.model.loss == Loss::SoftmaxCrossEntropy
		&& matches!(spec.training.optimizer, Optimizer::Sgd { .. } | Optimizer::Adam { .. })
}

fn act_shape(batch: u32, a: &Activation) -> Vec<u32> {
	match a {
		Activation::Image(s) => vec![batch, s.channels, s.height, s.width],
		Activation::Flat(n) | Activation::Tokens(n) => vec![batch, *n],
		Activation::Seq { t, d } => vec![batch, *t, *d],
	}
}

/// The graph of training step `step` (0-based) on a batch of `batch` samples (a
/// language model's: sequences).
pub fn step_graph(spec: &TaskSpec, batch: u32, step: u64) -> Result<Graph> {
	if crate::transformer::task::config(spec).is_some() {
		return crate::transformer::graph::step_graph(spec, batch, step);
	}
	spec.validate()?;
	if !covers(spec) {
		return Err(ReproError::Unsupported);
	}
	if batch == 0 || batch > spec.training.batch_size {
		return Err(ReproError::BadBatch);
	}
	let shapes = infer_shapes(&spec.model)?;
	let input_shape = shapes.first().ok_or(ReproError::OutOfRange)?;
	let mut g = Graph::inputs(spec, batch, act_shape(batch, input_shape), vec![batch]);
	let pshapes = param_shapes(spec);
	let slots = opt_slots(&spec.training.optimizer);

	// Forward. `saved[l]` = input tensor of layer l; `outs[l]` = its output.
	let mut cur = INPUT;
	let mut saved = Vec::new();
	let mut first_trainable = None;
	let mut pidx = 0usize;
	let mut layer_params = Vec::new();
	for (l, layer) in spec.model.layers.iter().enumerate() {
		let inp = shapes.get(l).ok_or(ReproError::OutOfRange)?;
		let out = shapes.get(l + 1).ok_or(ReproError::OutOfRange)?;
		let oshape = act_shape(batch, out);
		saved.push(cur);
		let p = |i: usize| g.params.get(i).copied().ok_or(ReproError::OutOfRange);
		cur = match *layer {
			Layer::Linear { in_features, out_features } => {
				let (w, b) = (p(pidx)?, p(pidx + 1)?);
				layer_params.push(Some((pidx, w)));
				pidx += 2;
				first_trainable.get_or_insert(l);
				let k = OpKind::LinearFwd { batch, fin: in_features, fout: out_features };
				g.op(k, vec![cur, w, b], oshape)
			}
			Layer::Conv2d { .. } => {
				let (w, b) = (p(pidx)?, p(pidx + 1)?);
				layer_params.push(Some((pidx, w)));
				pidx += 2;
				first_trainable.get_or_insert(l);
				let geom = conv_geom(batch, layer, inp, out)?;
				g.op(OpKind::ConvFwd(geom), vec![cur, w, b], oshape)
			}
			Layer::Relu => {
				layer_params.push(None);
				g.op(OpKind::ReluFwd, vec![cur], oshape)
			}
			Layer::MaxPool2d { .. } => {
				layer_params.push(None);
				let geom = pool_geom(batch, layer, inp, out)?;
				g.op(OpKind::PoolFwd(geom), vec![cur], oshape)
			}
			Layer::Flatten => {
				layer_params.push(None);
				g.op(OpKind::Flatten, vec![cur], oshape)
			}
			// Refused by `covers` above.
			Layer::Embedding { .. } | Layer::DecoderBlock { .. } | Layer::LayerNorm => {
				return Err(ReproError::Unsupported)
			}
		};
	}
	let classes = spec.data.classes;
	let z = cur;
	let m = g.op(OpKind::RowMax { batch, classes }, vec![z], vec![batch]);
	let s = g.op(OpKind::ExpSum { batch, classes }, vec![z, m], vec![batch]);
	let l = g.op(OpKind::SampleLoss { batch, classes }, vec![z, m, s, LABELS], vec![batch]);
	g.loss = g.op(OpKind::MeanLoss { batch }, vec![l], vec![1]);
	let mut dy =
		g.op(OpKind::LossGrad { batch, classes }, vec![z, m, s, LABELS], vec![batch, classes]);

	// Backward, down to the first trainable layer.
	let first =
		first_trainable.ok_or(ReproError::Spec(gensyn_primitives::SpecError::NoTrainableLayer))?;
	let mut grads: Vec<Option<u32>> = vec![None; pshapes.len()];
	for l in (first..spec.model.layers.len()).rev() {
		let layer = spec.model.layers.get(l).ok_or(ReproError::OutOfRange)?;
		let x = *saved.get(l).ok_or(ReproError::OutOfRange)?;
		let ishape = act_shape(batch, shapes.get(l).ok_or(ReproError::OutOfRange)?);
		let need_dx = l > first;
		match *layer {
			Layer::Linear { in_features, out_features } => {
				let (pi, w) =
					layer_params.get(l).copied().flatten().ok_or(ReproError::OutOfRange)?;
				let (fin, fout) = (in_features, out_features);
				let dw = g.op(
					OpKind::LinearBwdWeight { batch, fin, fout },
					vec![dy, x],
					vec![fout, fin],
				);
				let db = g.op(OpKind::LinearBwdBias { batch, fout }, vec![dy], vec![fout]);
				set(&mut grads, pi, dw)?;
				set(&mut grads, pi + 1, db)?;
				if need_dx {
					dy = g.op(OpKind::LinearBwdInput { batch, fin, fout }, vec![dy, w], ishape);
				}
			}
			Layer::Conv2d { .. } => {
				let (pi, w) =
					layer_params.get(l).copied().flatten().ok_or(ReproError::OutOfRange)?;
				let inp = shapes.get(l).ok_or(ReproError::OutOfRange)?;
				let out = shapes.get(l + 1).ok_or(ReproError::OutOfRange)?;
				let geom = conv_geom(batch, layer, inp, out)?;
				let wshape = g.shape(w)?.to_vec();
				let dw = g.op(OpKind::ConvBwdWeight(geom), vec![dy, x], wshape);
				let db = g.op(OpKind::ConvBwdBias(geom), vec![dy], vec![geom.oc]);
				set(&mut grads, pi, dw)?;
				set(&mut grads, pi + 1, db)?;
				if need_dx {
					dy = g.op(OpKind::ConvBwdInput(geom), vec![dy, w], ishape);
				}
			}
			Layer::Relu => {
				if need_dx {
					dy = g.op(OpKind::ReluBwd, vec![x, dy], ishape);
				}
			}
			Layer::MaxPool2d { .. } => {
				if need_dx {
					let inp = shapes.get(l).ok_or(ReproError::OutOfRange)?;
					let out = shapes.get(l + 1).ok_or(ReproError::OutOfRange)?;
					let geom = pool_geom(batch, layer, inp, out)?;
					dy = g.op(OpKind::PoolBwd(geom), vec![x, dy], ishape);
				}
			}
			Layer::Flatten => {
				if need_dx {
					dy = g.op(OpKind::FlattenBwd, vec![dy], ishape);
				}
			}
			// Refused by `covers` above.
			Layer::Embedding { .. } | Layer::DecoderBlock { .. } | Layer::LayerNorm => {
				return Err(ReproError::Unsupported)
			}
		}
	}

	// Optimizer.
	let lr = optim::lr_at(&spec.training, step);
	for (i, shape) in pshapes.iter().enumerate() {
		let p = *g.params.get(i).ok_or(ReproError::OutOfRange)?;
		let gr = grads.get(i).copied().flatten().ok_or(ReproError::OutOfRange)?;
		let st = |j: usize| g.opt_state.get(i * slots + j).copied().ok_or(ReproError::OutOfRange);
		match spec.training.optimizer {
			Optimizer::Sgd { momentum, .. } => {
				let buf = st(0)?;
				let nb = g.op(
					OpKind::SgdMomentum { momentum: momentum.to_f32() },
					vec![buf, gr],
					shape.clone(),
				);
				let np = g.op(OpKind::SgdParam { lr }, vec![p, nb], shape.clone());
				retag(&mut g, np, TensorKind::NewParam(i as u32));
				retag(&mut g, nb, TensorKind::NewOptState(i as u32));
				g.new_params.push(np);
				g.new_opt_state.push(nb);
			}
			Optimizer::Adam { beta1, beta2, eps, .. } => {
				let (m0, v0) = (st(0)?, st(1)?);
				let (b1, b2) = (beta1.to_f32(), beta2.to_f32());
				let nm = g.op(OpKind::AdamM { beta1: b1 }, vec![m0, gr], shape.clone());
				let nv = g.op(OpKind::AdamV { beta2: b2 }, vec![v0, gr], shape.clone());
				let sc = optim::adam_scalars(lr, b1, b2, eps.to_f32(), step);
				let np = g.op(OpKind::AdamParam(sc), vec![p, nm, nv], shape.clone());
				retag(&mut g, np, TensorKind::NewParam(i as u32));
				retag(&mut g, nm, TensorKind::NewOptState((2 * i) as u32));
				retag(&mut g, nv, TensorKind::NewOptState((2 * i + 1) as u32));
				g.new_params.push(np);
				g.new_opt_state.push(nm);
				g.new_opt_state.push(nv);
			}
			Optimizer::AdamW { .. } => return Err(ReproError::Unsupported),
		}
	}
	Ok(g)
}

fn set(grads: &mut [Option<u32>], i: usize, id: u32) -> Result<()> {
	*grads.get_mut(i).ok_or(ReproError::OutOfRange)? = Some(id);
	Ok(())
}

fn retag(g: &mut Graph, id: u32, kind: TensorKind) {
	if let Some(t) = g.tensors.get_mut(id as usize) {
		t.kind = kind;
	}
}

fn conv_geom(batch: u32, layer: &Layer, inp: &Activation, out: &Activation) -> Result<ConvGeom> {
	match (*layer, inp, out) {
		(
			Layer::Conv2d { in_channels, out_channels, kernel, stride, padding },
			Activation::Image(i),
			Activation::Image(o),
		) => Ok(ConvGeom {
			batch,
			ic: in_channels,
			ih: i.height,
			iw: i.width,
			oc: out_channels,
			k: kernel,
			stride,
			pad: padding,
			oh: o.height,
			ow: o.width,
		}),
		_ => Err(ReproError::ShapeMismatch),
	}
}

fn pool_geom(batch: u32, layer: &Layer, inp: &Activation, out: &Activation) -> Result<PoolGeom> {
	match (*layer, inp, out) {
		(Layer::MaxPool2d { kernel, stride }, Activation::Image(i), Activation::Image(o)) => {
			Ok(PoolGeom {
				batch,
				c: i.channels,
				ih: i.height,
				iw: i.width,
				k: kernel,
				stride,
				oh: o.height,
				ow: o.width,
			})
		}
		_ => Err(ReproError::ShapeMismatch),
	}
}
