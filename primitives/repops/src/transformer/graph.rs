//! A language model's training step as an op graph ([`step_graph`]), in the tensor
//! numbering every step graph uses (the batch's token ids, the targets, the parameters
//! and the optimizer state in [`crate::state::TrainState`] order, then one tensor per
//! op): the forward pass and the token loss, the backward pass, the gradients' clipping
//! and AdamW.
//!
//! Its ops are the image models' where the computation is theirs (each projection and
//! its gradients `Linear*` ops over all `batch * t` rows, the loss's ops over rows for
//! samples and the vocabulary for classes, Adam's moments) and [`super::ops`]'
//! elsewhere. Running them in order gives [`super::task::train_step`]'s state and loss
//! bit for bit.

use super::{
	lm::{Config, BLOCK_TENSORS},
	ops::{Heads, LmOp},
	task,
	train::AdamW,
};
use crate::{
	graph::{Graph, OpKind, TensorKind, INPUT, LABELS},
	optim, ReproError, Result,
};
use alloc::{vec, vec::Vec};
use gensyn_primitives::TaskSpec;

/// The graph of training step `step` (0-based) of the language model `spec` names
/// ([`task::config`]) over `batch` sequences: `INPUT` holds their `batch x t` token
/// ids, `LABELS` the `batch * t` next tokens, both as `f32`.
pub fn step_graph(spec: &TaskSpec, batch: u32, step: u64) -> Result<Graph> {
	spec.validate()?;
	let c = task::config(spec).ok_or(ReproError::Unsupported)?;
	if batch == 0 || batch > spec.training.batch_size {
		return Err(ReproError::BadBatch);
	}
	let mut b = Builder::new(spec, &c, batch)?;
	let f = b.forward()?;
	let grads = b.backward(&f)?;
	let h = task::adamw(spec, step)?;
	b.adamw(&grads, &h, step)?;
	Ok(b.g)
}

/// The number of tensors in a step graph of the language model `c`, counted without
/// building it (a submission checks it against what one move of a game opens): per
/// block 16 parameters, their 32 moments and 129 op outputs (22 of the forward pass, 43
/// of the backward pass, 4 a parameter of the optimizer's); around the blocks the
/// batch's two tensors, the other 6 parameters and their 12 moments, and 51 op outputs.
/// A test holds it to [`step_graph`].
pub fn tensor_count(c: &Config) -> usize {
	c.layers.saturating_mul(177).saturating_add(69)
}

/// The sizes every op of the graph is built from.
#[derive(Clone, Copy)]
struct Sizes {
	rows: u32,
	t: u32,
	d: u32,
	vocab: u32,
	hidden: u32,
	heads: Heads,
	eps: f32,
	layers: usize,
}

/// A graph under construction.
struct Builder {
	g: Graph,
	n: Sizes,
}

/// What one block's forward pass keeps for its backward pass (tensor ids).
struct BlockIds {
	ln1: Norm,
	a: u32,
	q: u32,
	k: u32,
	v: u32,
	w: u32,
	o: u32,
	ln2: Norm,
	b: u32,
	u: u32,
	gelu: u32,
}

/// A LayerNorm's normalised input and its rows' `rstd` (tensor ids).
#[derive(Clone, Copy)]
struct Norm {
	xhat: u32,
	rstd: u32,
}

/// What the forward pass keeps (tensor ids).
struct Forward {
	blocks: Vec<BlockIds>,
	last: Norm,
	z: u32,
	logits: u32,
	max: u32,
	sum: u32,
}

impl Builder {
	fn new(spec: &TaskSpec, c: &Config, batch: u32) -> Result<Self> {
		let size = |n: usize| u32::try_from(n).map_err(|_| ReproError::ShapeMismatch);
		let (t, d, heads) = (size(c.t)?, size(c.d)?, size(c.heads)?);
		let rows = batch.checked_mul(t).ok_or(ReproError::BadBatch)?;
		let dh = d.checked_div(heads).ok_or(ReproError::ShapeMismatch)?;
		let n = Sizes {
			rows,
			t,
			d,
			vocab: size(c.vocab)?,
			hidden: size(c.hidden)?,
			heads: Heads { batch, t, heads, dh },
			eps: c.eps,
			layers: c.layers,
		};
		let g = Graph::inputs(spec, batch, vec![batch, t], vec![rows]);
		if g.params.len() != c.tensor_count() || g.opt_state.len() != 2 * g.params.len() {
			return Err(ReproError::StateMismatch);
		}
		Ok(Builder { g, n })
	}

	/// Parameter `i` (state order).
	fn p(&self, i: usize) -> Result<u32> {
		self.g.params.get(i).copied().ok_or(ReproError::StateMismatch)
	}

	/// Adds a language-model op.
	fn lm(&mut self, kind: LmOp, inputs: Vec<u32>, shape: Vec<u32>) -> u32 {
		self.g.op(OpKind::Lm(kind), inputs, shape)
	}

	/// Adds `x W^T + b` from `fin` to `fout` features over every row.
	fn linear(&mut self, x: u32, (w, b): (u32, u32), fin: u32, fout: u32) -> u32 {
		let rows = self.n.rows;
		self.g.op(OpKind::LinearFwd { batch: rows, fin, fout }, vec![x, w, b], vec![rows, fout])
	}

	/// Adds a linear layer's three gradients from `dy`, its input `x` and weight `w`:
	/// `(dx, dw, db)`.
	fn linear_back(&mut self, (dy, x, w): (u32, u32, u32), fin: u32, fout: u32) -> [u32; 3] {
		let batch = self.n.rows;
		let dw =
			self.g.op(OpKind::LinearBwdWeight { batch, fin, fout }, vec![dy, x], vec![fout, fin]);
		let db = self.g.op(OpKind::LinearBwdBias { batch, fout }, vec![dy], vec![fout]);
		let dx =
			self.g.op(OpKind::LinearBwdInput { batch, fin, fout }, vec![dy, w], vec![batch, fin]);
		[dx, dw, db]
	}

	/// Adds the LayerNorm of `x` with scale and shift `(gamma, beta)`; returns its
	/// statistics and output.
	fn norm(&mut self, x: u32, (gamma, beta): (u32, u32)) -> (Norm, u32) {
		let Sizes { rows, d, eps, .. } = self.n;
		let mean = self.lm(LmOp::RowMean { rows, d }, vec![x], vec![rows]);
		let rstd = self.lm(LmOp::RowRstd { rows, d, eps }, vec![x, mean], vec![rows]);
		let xhat = self.lm(LmOp::Xhat { rows, d }, vec![x, mean, rstd], vec![rows, d]);
		let y = self.lm(LmOp::Affine { rows, d }, vec![xhat, gamma, beta], vec![rows, d]);
		(Norm { xhat, rstd }, y)
	}

	/// Adds a LayerNorm's gradients from `dy`: `(dx, dgamma, dbeta)`.
	fn norm_back(&mut self, s: Norm, gamma: u32, dy: u32) -> [u32; 3] {
		let Sizes { rows, d, .. } = self.n;
		let shape = vec![rows, d];
		let g = self.lm(LmOp::ScaledGrad { rows, d }, vec![dy, gamma], shape.clone());
		let xhat = s.xhat;
		let a = self.lm(LmOp::RowMean { rows, d }, vec![g], vec![rows]);
		let b = self.lm(LmOp::RowDot { rows, d }, vec![g, xhat], vec![rows]);
		let c = self.lm(LmOp::CentredGrad { rows, d }, vec![g, a, xhat, b], shape.clone());
		let dx = self.lm(LmOp::RowScaled { rows, d }, vec![s.rstd, c], shape);
		let dgamma = self.lm(LmOp::ColDot { rows, d }, vec![dy, xhat], vec![d]);
		let dbeta = self.g.op(OpKind::LinearBwdBias { batch: rows, fout: d }, vec![dy], vec![d]);
		[dx, dgamma, dbeta]
	}

	/// The forward pass and the mean token loss.
	fn forward(&mut self) -> Result<Forward> {
		let Sizes { rows, t, d, vocab, hidden, heads: n, .. } = self.n;
		let embed = LmOp::Embed { rows, t, d, vocab };
		let mut x = self.lm(embed, vec![INPUT, self.p(0)?, self.p(1)?], vec![rows, d]);
		let mut blocks = Vec::with_capacity(self.n.layers);
		for layer in 0..self.n.layers {
			let at = |k: usize| self.p(2 + layer * BLOCK_TENSORS + k);
			let (p0, p1, p2, p3, p4, p5) = (at(0)?, at(1)?, at(2)?, at(3)?, at(4)?, at(5)?);
			let (p6, p7, p8, p9, p10, p11) = (at(6)?, at(7)?, at(8)?, at(9)?, at(10)?, at(11)?);
			let (p12, p13, p14, p15) = (at(12)?, at(13)?, at(14)?, at(15)?);
			let (ln1, a) = self.norm(x, (p0, p1));
			let q = self.linear(a, (p2, p3), d, d);
			let k = self.linear(a, (p4, p5), d, d);
			let v = self.linear(a, (p6, p7), d, d);
			let (square, stats) = (vec![n.batch, n.heads, t, t], vec![n.batch, n.heads, t]);
			let s = self.lm(LmOp::Scores(n), vec![q, k], square.clone());
			let m = self.lm(LmOp::CausalMax(n), vec![s], stats.clone());
			let z = self.lm(LmOp::CausalExpSum(n), vec![s, m], stats);
			let w = self.lm(LmOp::CausalProb(n), vec![s, m, z], square);
			let o = self.lm(LmOp::Context(n), vec![w, v], vec![rows, d]);
			let y = self.linear(o, (p8, p9), d, d);
			let h = self.lm(LmOp::Add, vec![x, y], vec![rows, d]);
			let (ln2, b) = self.norm(h, (p10, p11));
			let u = self.linear(b, (p12, p13), d, hidden);
			let gelu = self.lm(LmOp::Gelu, vec![u], vec![rows, hidden]);
			let mlp = self.linear(gelu, (p14, p15), hidden, d);
			blocks.push(BlockIds { ln1, a, q, k, v, w, o, ln2, b, u, gelu });
			x = self.lm(LmOp::Add, vec![h, mlp], vec![rows, d]);
		}
		let f = 2 + self.n.layers * BLOCK_TENSORS;
		let (last, z) = self.norm(x, (self.p(f)?, self.p(f + 1)?));
		let logits = self.linear(z, (self.p(f + 2)?, self.p(f + 3)?), d, vocab);
		let (batch, classes) = (rows, vocab);
		let g = &mut self.g;
		let max = g.op(OpKind::RowMax { batch, classes }, vec![logits], vec![rows]);
		let sum = g.op(OpKind::ExpSum { batch, classes }, vec![logits, max], vec![rows]);
		let sample = OpKind::SampleLoss { batch, classes };
		let l = g.op(sample, vec![logits, max, sum, LABELS], vec![rows]);
		g.loss = g.op(OpKind::MeanLoss { batch }, vec![l], vec![1]);
		Ok(Forward { blocks, last, z, logits, max, sum })
	}

	/// The backward pass: every parameter's gradient, in state order.
	fn backward(&mut self, f: &Forward) -> Result<Vec<u32>> {
		let Sizes { rows, t, d, vocab, hidden, heads: n, .. } = self.n;
		let mut grads = vec![0u32; self.g.params.len()];
		let mut set = |i: usize, id: u32| -> Result<()> {
			*grads.get_mut(i).ok_or(ReproError::StateMismatch)? = id;
			Ok(())
		};
		let (batch, classes) = (rows, vocab);
		let loss = OpKind::LossGrad { batch, classes };
		let inputs = vec![f.logits, f.max, f.sum, LABELS];
		let dlogits = self.g.op(loss, inputs, vec![rows, vocab]);
		let last = 2 + self.n.layers * BLOCK_TENSORS;
		let [dz, dhead, dhead_bias] = self.linear_back((dlogits, f.z, self.p(last + 2)?), d, vocab);
		set(last + 2, dhead)?;
		set(last + 3, dhead_bias)?;
		let [mut dx, dgamma, dbeta] = self.norm_back(f.last, self.p(last)?, dz);
		set(last, dgamma)?;
		set(last + 1, dbeta)?;
		let (square, stats) = (vec![n.batch, n.heads, t, t], vec![n.batch, n.heads, t]);
		for (layer, s) in f.blocks.iter().enumerate().rev() {
			let base = 2 + layer * BLOCK_TENSORS;
			let at = |k: usize| self.p(base + k);
			let (w1, w2, wo) = (at(12)?, at(14)?, at(8)?);
			let (wq, wk, wv, gamma1, gamma2) = (at(2)?, at(4)?, at(6)?, at(0)?, at(10)?);
			let dy = dx;
			let [dg, dw2, db2] = self.linear_back((dy, s.gelu, w2), hidden, d);
			let du = self.lm(LmOp::GeluGrad, vec![s.u, dg], vec![rows, hidden]);
			let [d_b, dw1, db1] = self.linear_back((du, s.b, w1), d, hidden);
			let [dh_mlp, dgamma2, dbeta2] = self.norm_back(s.ln2, gamma2, d_b);
			let dh = self.lm(LmOp::Add, vec![dy, dh_mlp], vec![rows, d]);
			let [d_o, dwo, dbo] = self.linear_back((dh, s.o, wo), d, d);
			let dp = self.lm(LmOp::ProbGrad(n), vec![d_o, s.v], square.clone());
			let dv = self.lm(LmOp::ValueGrad(n), vec![s.w, d_o], vec![rows, d]);
			let dot = self.lm(LmOp::CausalDot(n), vec![s.w, dp], stats.clone());
			let ds = self.lm(LmOp::ScoreGrad(n), vec![s.w, dp, dot], square.clone());
			let dq = self.lm(LmOp::Context(n), vec![ds, s.k], vec![rows, d]);
			let dk = self.lm(LmOp::ValueGrad(n), vec![ds, s.q], vec![rows, d]);
			let [dx_q, dwq, dbq] = self.linear_back((dq, s.a, wq), d, d);
			let [dx_k, dwk, dbk] = self.linear_back((dk, s.a, wk), d, d);
			let [dx_v, dwv, dbv] = self.linear_back((dv, s.a, wv), d, d);
			let qk = self.lm(LmOp::Add, vec![dx_q, dx_k], vec![rows, d]);
			let da = self.lm(LmOp::Add, vec![qk, dx_v], vec![rows, d]);
			let [dx_attn, dgamma1, dbeta1] = self.norm_back(s.ln1, gamma1, da);
			dx = self.lm(LmOp::Add, vec![dh, dx_attn], vec![rows, d]);
			let ids = [dgamma1, dbeta1, dwq, dbq, dwk, dbk, dwv, dbv, dwo, dbo, dgamma2, dbeta2];
			for (k, id) in ids.into_iter().chain([dw1, db1, dw2, db2]).enumerate() {
				set(base + k, id)?;
			}
		}
		let tok = self.lm(LmOp::TokGrad { rows, d, vocab }, vec![INPUT, dx], vec![vocab, d]);
		let pos = self.lm(LmOp::PosGrad { rows, t, d }, vec![dx], vec![t, d]);
		set(0, tok)?;
		set(1, pos)?;
		Ok(grads)
	}

	/// The gradients' clipping and one AdamW step at `step`: the updated parameters and
	/// moments, retagged as the graph's outputs.
	fn adamw(&mut self, grads: &[u32], h: &AdamW, step: u64) -> Result<()> {
		let sq = self.lm(LmOp::NormSq, grads.to_vec(), vec![1]);
		let scale = self.lm(LmOp::ClipScale { max_norm: h.max_norm }, vec![sq], vec![1]);
		let sc = optim::adam_scalars(h.lr, h.beta1, h.beta2, h.eps, step);
		let decay = optim::adamw_decay_factor(h.lr, h.weight_decay);
		for (i, g) in grads.iter().enumerate() {
			let p = self.p(i)?;
			let shape = self.g.shape(p)?.to_vec();
			let moment = |j: usize| self.g.opt_state.get(2 * i + j).copied();
			let (m0, v0) = moment(0).zip(moment(1)).ok_or(ReproError::StateMismatch)?;
			let gc = self.lm(LmOp::Scaled, vec![*g, scale], shape.clone());
			let m = self.g.op(OpKind::AdamM { beta1: h.beta1 }, vec![m0, gc], shape.clone());
			let v = self.g.op(OpKind::AdamV { beta2: h.beta2 }, vec![v0, gc], shape.clone());
			let np = self.g.op(OpKind::AdamWParam { sc, decay }, vec![p, m, v], shape);
			let i = i as u32;
			for (id, kind) in [
				(np, TensorKind::NewParam(i)),
				(m, TensorKind::NewOptState(2 * i)),
				(v, TensorKind::NewOptState(2 * i + 1)),
			] {
				if let Some(t) = self.g.tensors.get_mut(id as usize) {
					t.kind = kind;
				}
			}
			self.g.new_params.push(np);
			self.g.new_opt_state.extend([m, v]);
		}
		Ok(())
	}
}

#[cfg(test)]
mod tests {
	use super::*;
	use crate::{element, model::run_op, state::TrainState, transformer::lm};
	use gensyn_primitives::{fixtures, F32Bits, Layer, Optimizer};

	/// `tiny_lm` with `blocks` decoder blocks and gradients clipped to `max_norm`.
	fn spec_of(blocks: usize, max_norm: f32) -> TaskSpec {
		let mut spec = fixtures::tiny_lm();
		let mut layers: Vec<Layer> = spec.model.layers.to_vec();
		let block = layers[1];
		for _ in 1..blocks {
			layers.insert(1, block);
		}
		spec.model.layers = layers.try_into().expect("within the bound");
		if let Optimizer::AdamW { max_grad_norm, .. } = &mut spec.training.optimizer {
			*max_grad_norm = F32Bits::from_f32(max_norm);
		}
		spec
	}

	/// `batch` sequences of `t + 1` ids spread over the vocabulary (some repeated).
	fn sequences(c: &Config, batch: usize, seed: usize) -> Vec<u32> {
		let id = |r: usize| ((r * 7 + seed * 3 + r / 5) % c.vocab) as u32;
		(0..batch).flat_map(|b| (0..=c.t).map(move |i| id(b * c.t + i + seed))).collect()
	}

	/// The task's state after `steps` steps on batches of `batch`.
	fn state_after(spec: &TaskSpec, steps: usize, batch: usize) -> TrainState {
		let c = task::config(spec).unwrap();
		let mut state = task::init_state(spec).unwrap();
		for s in 0..steps {
			task::train_step(spec, &mut state, &sequences(&c, batch, 10 + s), 1).unwrap();
		}
		state
	}

	/// Every tensor of `g` from `state` and `sequences`, the op outputs computed in
	/// order on `threads` threads.
	fn values(
		g: &Graph,
		state: &TrainState,
		spec: &TaskSpec,
		seqs: &[u32],
		threads: usize,
	) -> Vec<Vec<f32>> {
		let (tokens, targets, _) = task::split(spec, seqs).unwrap();
		let mut values = vec![Vec::new(); g.tensors.len()];
		values[INPUT as usize] = tokens.iter().map(|v| *v as f32).collect();
		values[LABELS as usize] = targets.iter().map(|v| *v as f32).collect();
		for (id, p) in g.params.iter().zip(&state.params) {
			values[*id as usize] = p.clone();
		}
		for (id, o) in g.opt_state.iter().zip(&state.opt) {
			values[*id as usize] = o.clone();
		}
		for (i, op) in g.ops.iter().enumerate() {
			values[op.output as usize] = run_op(g, i, &values, threads).expect("an op runs");
		}
		values
	}

	fn bits(v: &[f32]) -> Vec<u32> {
		v.iter().map(|x| x.to_bits()).collect()
	}

	/// Bits of the tensors `ids` of `values`.
	fn tensors(values: &[Vec<f32>], ids: &[u32]) -> Vec<Vec<u32>> {
		ids.iter().map(|id| bits(&values[*id as usize])).collect()
	}

	#[test]
	fn the_step_graph_gives_the_tasks_step_bit_for_bit() {
		// Clipped and not, one and two blocks, from the first step and a later one.
		for (blocks, batch, steps, max_norm) in
			[(1, 1, 0, 1.0e-3), (1, 4, 2, 1.0), (2, 3, 1, 1.0e-3), (2, 2, 3, 1.0e6)]
		{
			let spec = spec_of(blocks, max_norm);
			let c = task::config(&spec).unwrap();
			let before = state_after(&spec, steps, 2);
			let seqs = sequences(&c, batch, blocks);
			let g = step_graph(&spec, batch as u32, before.step).expect("a graph");
			let mut after = before.clone();
			let loss = task::train_step(&spec, &mut after, &seqs, 1).unwrap();
			let case = alloc::format!("{blocks} blocks, batch {batch}, step {steps}, {max_norm}");
			for threads in [1, 3] {
				let values = values(&g, &before, &spec, &seqs, threads);
				assert_eq!(values[g.loss as usize][0].to_bits(), loss.to_bits(), "{case}");
				let want: Vec<Vec<u32>> = after.params.iter().map(|p| bits(p)).collect();
				assert_eq!(tensors(&values, &g.new_params), want, "{case}");
				let want: Vec<Vec<u32>> = after.opt.iter().map(|p| bits(p)).collect();
				assert_eq!(tensors(&values, &g.new_opt_state), want, "{case}");
				// The forward pass is the model's.
				let (tokens, targets, _) = task::split(&spec, &seqs).unwrap();
				let params = lm::Params::from_tensors(&c, before.params.clone()).unwrap();
				let f = lm::forward(&c, &params, &tokens, &targets, batch, 1).unwrap();
				let head = g.ops.iter().find(|o| matches!(o.kind, OpKind::RowMax { .. }));
				let logits = head.unwrap().inputs[0] as usize;
				assert_eq!(bits(&values[logits]), bits(&f.logits), "{case}");
			}
			// Clipping took part where the bound is tight, and not where it is loose.
			let values = values(&g, &before, &spec, &seqs, 1);
			let clip = g.ops.iter().find(|o| matches!(o.kind, OpKind::Lm(LmOp::ClipScale { .. })));
			let scale = values[clip.unwrap().output as usize][0];
			if max_norm != 1.0 {
				assert_eq!(scale < 1.0, max_norm < 1.0, "{case}: scale {scale}");
			}
		}
	}

	#[test]
	fn every_value_of_the_step_graph_is_its_element_evaluation() {
		let spec = spec_of(2, 1.0);
		let c = task::config(&spec).unwrap();
		let state = state_after(&spec, 1, 2);
		let g = step_graph(&spec, 2, state.step).unwrap();
		let seqs = sequences(&c, 2, 5);
		let values = values(&g, &state, &spec, &seqs, 2);
		let reads = core::cell::Cell::new(0usize);
		let fetch = |t: u32, i: u64| {
			reads.set(reads.get() + 1);
			values.get(t as usize)?.get(i as usize).copied()
		};
		let mut checked = 0;
		for (op, o) in g.ops.iter().enumerate() {
			let out = &values[o.output as usize];
			// Every element of the small ops; a spread of the larger ones'.
			let step = (out.len() / 37).max(1);
			for e in (0..out.len()).step_by(step).chain([out.len() - 1]) {
				reads.set(0);
				let value = element::eval_element(&g, op, e as u64, &fetch).expect("evaluates");
				assert_eq!(value.to_bits(), out[e].to_bits(), "op {op} ({:?}) element {e}", o.kind);
				let reduction = element::reduction(&g, op, e as u64).unwrap();
				// The game opens at most four values for an element-wise op's element.
				if reduction.is_none() {
					assert!(reads.get() <= 4, "op {op} ({:?}) reads {}", o.kind, reads.get());
				}
				if let Some(red) = reduction {
					let j = red.len / 2;
					let before = element::partial(&g, op, e as u64, j, &fetch).unwrap();
					let step = element::reduction_step(&g, op, e as u64, j, before, &fetch);
					let after = element::partial(&g, op, e as u64, j + 1, &fetch).unwrap();
					assert_eq!(step.unwrap().to_bits(), after.to_bits());
				}
				checked += 1;
			}
		}
		assert!(checked > 3000, "{checked} values checked");
		// Each of the language model's op kinds is among them.
		let mut kinds = Vec::new();
		for o in &g.ops {
			if let OpKind::Lm(kind) = o.kind {
				let kind = core::mem::discriminant(&kind);
				if !kinds.contains(&kind) {
					kinds.push(kind);
				}
			}
		}
		assert_eq!(kinds.len(), 27);
	}

	#[test]
	fn a_token_outside_the_vocabulary_or_not_whole_is_refused() {
		let spec = fixtures::tiny_lm();
		let c = task::config(&spec).unwrap();
		let state = task::init_state(&spec).unwrap();
		let g = step_graph(&spec, 1, 0).unwrap();
		let mut values = values(&g, &state, &spec, &sequences(&c, 1, 0), 1);
		for bad in [c.vocab as f32, 1.5, -1.0, f32::NAN] {
			values[INPUT as usize][3] = bad;
			let run = run_op(&g, 0, &values, 1);
			assert_eq!(run, Err(ReproError::TokenOutOfRange), "{bad}");
			let fetch = |t: u32, i: u64| values.get(t as usize)?.get(i as usize).copied();
			let row = 3 * c.d as u64;
			let one = element::eval_element(&g, 0, row, &fetch);
			assert_eq!(one, Err(ReproError::TokenOutOfRange), "{bad}");
			// Another row's value does not read the bad token.
			assert!(element::eval_element(&g, 0, 0, &fetch).is_ok());
		}
	}

	#[test]
	fn the_tensors_are_counted_without_building_the_graph() {
		for blocks in 1..=4 {
			let spec = spec_of(blocks, 1.0);
			let c = task::config(&spec).unwrap();
			for batch in [1, 4] {
				let built = step_graph(&spec, batch, 3).unwrap().tensors.len();
				assert_eq!(tensor_count(&c), built, "{blocks} blocks");
			}
		}
	}

	#[test]
	fn only_a_language_model_over_a_batch_it_takes_has_a_step_graph() {
		assert_eq!(step_graph(&fixtures::tiny_mlp(), 1, 0), Err(ReproError::Unsupported));
		let spec = fixtures::tiny_lm();
		assert_eq!(step_graph(&spec, 0, 0), Err(ReproError::BadBatch));
		let over = spec.training.batch_size + 1;
		assert_eq!(step_graph(&spec, over, 0), Err(ReproError::BadBatch));
	}
}
