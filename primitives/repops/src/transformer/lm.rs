//! A decoder-only language model (GPT-2's shape, its head untied from the token
//! embedding and with a bias) over `batch` sequences of `t` tokens, and its token-level
//! cross-entropy:
//!
//! - `x = tok[token] + pos[position]` ([`embedding`] lookups, the sum rounded once);
//! - `layers` [`block`]s in order, then a final [`layernorm`] to `z`;
//! - `logits = z Wh^T + bh` (`vocab` features, a [`linear`] over all rows, which starts
//!   each sum at the bias);
//! - `loss = (sum_r l_r) / (batch * t)` with `l_r = (m_r + log s_r) - logits[r, y_r]`,
//!   each row's max `m_r` and shifted exponential sum `s_r` as [`loss`] computes them
//!   for image classes, the target `y_r` the next token.
//!
//! Backward: `dlogits[r, c] = (exp(logits[r, c] - m_r) / s_r - [c = y_r]) / (batch *
//! t)` ([`loss::grad`]), then each operator's backward pass in reverse order; the two
//! embeddings' gradients are summed over the rows in order. The parameters are listed
//! in one state order ([`Params::tensors`]), the order a training step walks them in.

use super::{block, embedding, layernorm};
use crate::{linear, loss, ReproError, Result};
use alloc::{vec, vec::Vec};

/// The model's sizes.
#[derive(Clone, Copy, PartialEq, Debug)]
pub struct Config {
	/// Tokens in the vocabulary.
	pub vocab: usize,
	/// Positions per sequence (the context).
	pub t: usize,
	/// Features of the residual stream.
	pub d: usize,
	/// Attention heads per block.
	pub heads: usize,
	/// Blocks.
	pub layers: usize,
	/// Features of each block's MLP.
	pub hidden: usize,
	/// The LayerNorms' `eps`.
	pub eps: f32,
}

impl Config {
	/// One block's sizes over `batch` sequences.
	pub fn block(&self, batch: usize) -> block::Dims {
		block::Dims {
			batch,
			t: self.t,
			d: self.d,
			heads: self.heads,
			hidden: self.hidden,
			eps: self.eps,
		}
	}
}

/// The model's parameters (or their gradients, in the same layout).
#[derive(Clone, PartialEq, Debug)]
pub struct Params {
	/// Token embedding, `vocab x d`.
	pub tok: Vec<f32>,
	/// Position embedding, `t x d`.
	pub pos: Vec<f32>,
	/// The blocks, in order.
	pub blocks: Vec<block::Params>,
	/// Final LayerNorm's scale, `d`.
	pub lnf_gamma: Vec<f32>,
	/// Final LayerNorm's shift, `d`.
	pub lnf_beta: Vec<f32>,
	/// The head's weight, `vocab x d`.
	pub head: Vec<f32>,
	/// The head's bias, `vocab`.
	pub head_bias: Vec<f32>,
}

impl Params {
	/// Every tensor in state order: the embeddings, each block's (first LayerNorm,
	/// attention's projections and biases, second LayerNorm, the MLP's), the final
	/// LayerNorm and the head.
	pub fn tensors(&self) -> Vec<&Vec<f32>> {
		let mut out = vec![&self.tok, &self.pos];
		for b in &self.blocks {
			let a = &b.attn;
			out.extend([&b.ln1_gamma, &b.ln1_beta, &a.wq, &a.bq, &a.wk, &a.bk, &a.wv, &a.bv]);
			out.extend([&a.wo, &a.bo, &b.ln2_gamma, &b.ln2_beta, &b.w1, &b.b1, &b.w2, &b.b2]);
		}
		out.extend([&self.lnf_gamma, &self.lnf_beta, &self.head, &self.head_bias]);
		out
	}

	/// [`Self::tensors`], to write.
	pub fn tensors_mut(&mut self) -> Vec<&mut Vec<f32>> {
		let mut out = vec![&mut self.tok, &mut self.pos];
		for b in &mut self.blocks {
			let a = &mut b.attn;
			out.extend([&mut b.ln1_gamma, &mut b.ln1_beta]);
			out.extend([&mut a.wq, &mut a.bq, &mut a.wk, &mut a.bk]);
			out.extend([&mut a.wv, &mut a.bv, &mut a.wo, &mut a.bo]);
			out.extend([&mut b.ln2_gamma, &mut b.ln2_beta, &mut b.w1, &mut b.b1]);
			out.extend([&mut b.w2, &mut b.b2]);
		}
		out.extend([&mut self.lnf_gamma, &mut self.lnf_beta, &mut self.head, &mut self.head_bias]);
		out
	}

	/// Fresh parameters under `seed`, each tensor as [`Config::start`] says, a drawn
	/// tensor from the stream of its index in state order ([`crate::init`]).
	pub fn init(c: &Config, seed: u64) -> Params {
		let mut index = 0u32;
		Params::assemble(c, || {
			let (n, start) = c.start(index as usize).unwrap_or((0, Start::Fill(0.0)));
			index = index.saturating_add(1);
			match start {
				Start::Uniform(bound) => crate::init::uniform_tensor(seed, index - 1, n, bound),
				Start::Fill(x) => vec![x; n],
			}
		})
	}

	/// Parameters from `tensors` in state order ([`Self::tensors`]), each of its length
	/// under `c`; a list of another count or length is a [`ReproError::StateMismatch`].
	pub fn from_tensors(c: &Config, tensors: Vec<Vec<f32>>) -> Result<Params> {
		let fits = tensors.len() == c.tensor_count()
			&& tensors
				.iter()
				.enumerate()
				.all(|(i, t)| c.start(i).is_some_and(|(n, _)| n == t.len()));
		if !fits {
			return Err(ReproError::StateMismatch);
		}
		let mut each = tensors.into_iter();
		Ok(Params::assemble(c, || each.next().unwrap_or_default()))
	}

	/// Every tensor in state order, moved out.
	pub fn into_tensors(mut self) -> Vec<Vec<f32>> {
		self.tensors_mut().into_iter().map(core::mem::take).collect()
	}

	/// Parameters of `c`'s structure, each tensor the next `next` gives in state order.
	fn assemble(c: &Config, mut next: impl FnMut() -> Vec<f32>) -> Params {
		let (tok, pos) = (next(), next());
		let blocks = (0..c.layers)
			.map(|_| block::Params {
				ln1_gamma: next(),
				ln1_beta: next(),
				attn: super::multihead::Params {
					wq: next(),
					bq: next(),
					wk: next(),
					bk: next(),
					wv: next(),
					bv: next(),
					wo: next(),
					bo: next(),
				},
				ln2_gamma: next(),
				ln2_beta: next(),
				w1: next(),
				b1: next(),
				w2: next(),
				b2: next(),
			})
			.collect();
		let (lnf_gamma, lnf_beta, head, head_bias) = (next(), next(), next(), next());
		Params { tok, pos, blocks, lnf_gamma, lnf_beta, head, head_bias }
	}
}

/// How a parameter tensor starts.
#[derive(Clone, Copy, PartialEq, Debug)]
pub enum Start {
	/// Uniform in `[-bound, bound)`.
	Uniform(f32),
	/// Every element this value.
	Fill(f32),
}

/// Tensors of one block in state order.
pub const BLOCK_TENSORS: usize = 16;

impl Config {
	/// Parameter tensors in state order: the two embeddings, each block's, the final
	/// LayerNorm's two and the head's two.
	pub fn tensor_count(&self) -> usize {
		self.layers.saturating_mul(BLOCK_TENSORS).saturating_add(6)
	}

	/// Tensor `i`'s element count and start, in state order (`None` past the last): the
	/// embeddings uniform in `[-1, 1)`, each weight uniform in `±1 / sqrt(fan_in)`
	/// (PyTorch's `Linear` bound), LayerNorm scales 1, shifts and biases 0. The one rule
	/// for a language model's initial state, and for any value of it on its own.
	pub fn start(&self, i: usize) -> Option<(usize, Start)> {
		let (d, h, v) = (self.d, self.hidden, self.vocab);
		let fan = |n: usize| Start::Uniform(1.0 / libm::sqrtf(n as f32));
		let (one, zero) = (Start::Fill(1.0), Start::Fill(0.0));
		let blocks_end = self.tensor_count().saturating_sub(4);
		Some(match i {
			0 => (v.saturating_mul(d), Start::Uniform(1.0)),
			1 => (self.t.saturating_mul(d), Start::Uniform(1.0)),
			i if i < blocks_end => match (i - 2) % BLOCK_TENSORS {
				0 | 10 => (d, one),
				2 | 4 | 6 | 8 => (d.saturating_mul(d), fan(d)),
				12 => (h.saturating_mul(d), fan(d)),
				13 => (h, zero),
				14 => (d.saturating_mul(h), fan(h)),
				_ => (d, zero),
			},
			i if i == blocks_end => (d, one),
			i if i == blocks_end + 1 => (d, zero),
			i if i == blocks_end + 2 => (v.saturating_mul(d), fan(d)),
			i if i == blocks_end + 3 => (v, zero),
			_ => return None,
		})
	}
}

/// What the forward pass keeps for the backward pass, and the loss.
#[derive(Clone, PartialEq, Debug)]
pub struct Forward {
	/// Each block's input, and the last block's output, `batch * t x d` each.
	pub stream: Vec<Vec<f32>>,
	/// Each block's pass.
	pub blocks: Vec<block::Forward>,
	/// The final LayerNorm's output.
	pub z: Vec<f32>,
	/// Its row statistics.
	pub lnf: layernorm::RowStats,
	/// The logits, `batch * t x vocab`.
	pub logits: Vec<f32>,
	/// Each row's max logit.
	pub max: Vec<f32>,
	/// Each row's sum of `exp(logit - max)`.
	pub sum: Vec<f32>,
	/// The mean token loss.
	pub loss: f32,
}

/// Checks the batch and the parameters against `c`; returns the number of rows.
fn rows_of(c: &Config, p: &Params, tokens: &[u32], targets: &[u32], batch: usize) -> Result<usize> {
	let rows = batch.checked_mul(c.t).filter(|r| *r > 0).ok_or(ReproError::BadBatch)?;
	let d = c.d;
	let table = c.vocab.checked_mul(d).ok_or(ReproError::ShapeMismatch)?;
	let positions = c.t.checked_mul(d).ok_or(ReproError::ShapeMismatch)?;
	rows.checked_mul(d.max(c.vocab).max(c.hidden)).ok_or(ReproError::ShapeMismatch)?;
	let fits = tokens.len() == rows
		&& targets.len() == rows
		&& p.tok.len() == table
		&& p.pos.len() == positions
		&& p.blocks.len() == c.layers
		&& p.lnf_gamma.len() == d
		&& p.lnf_beta.len() == d
		&& p.head.len() == table
		&& p.head_bias.len() == c.vocab;
	if !fits {
		return Err(ReproError::ShapeMismatch);
	}
	if targets.iter().any(|y| *y as usize >= c.vocab) {
		return Err(ReproError::TokenOutOfRange);
	}
	Ok(rows)
}

/// Each row's position in its sequence, as the position embedding's tokens.
fn positions(rows: usize, t: usize) -> Vec<u32> {
	(0..rows).map(|r| (r % t) as u32).collect()
}

/// The forward pass over `batch` sequences of `tokens`, scored against `targets`.
pub fn forward(
	c: &Config,
	p: &Params,
	tokens: &[u32],
	targets: &[u32],
	batch: usize,
	threads: usize,
) -> Result<Forward> {
	let rows = rows_of(c, p, tokens, targets, batch)?;
	let d = c.d;
	let (mut tok, mut pos) = (vec![0.0f32; rows * d], vec![0.0f32; rows * d]);
	embedding::forward(&p.tok, d, tokens, &mut tok, threads)?;
	embedding::forward(&p.pos, d, &positions(rows, c.t), &mut pos, threads)?;
	let mut stream = vec![tok.iter().zip(&pos).map(|(a, b)| *a + *b).collect::<Vec<f32>>()];
	let mut blocks = Vec::with_capacity(c.layers);
	for bp in &p.blocks {
		let x = stream.last().ok_or(ReproError::StateMismatch)?;
		let f = block::forward(x, bp, &c.block(batch), threads)?;
		stream.push(f.y.clone());
		blocks.push(f);
	}
	let last = stream.last().ok_or(ReproError::StateMismatch)?;
	let mut z = vec![0.0f32; rows * d];
	let lnf = layernorm::forward(last, d, &p.lnf_gamma, &p.lnf_beta, c.eps, &mut z, threads)?;
	let mut logits = vec![0.0f32; rows * c.vocab];
	linear::forward(&z, &p.head, &p.head_bias, rows, d, c.vocab, &mut logits, threads)?;
	let (mut max, mut sum) = (vec![0.0f32; rows], vec![0.0f32; rows]);
	loss::row_max(&logits, c.vocab, &mut max)?;
	loss::exp_sum(&logits, &max, c.vocab, &mut sum)?;
	// Each row's loss at its target, read as an index (not through an f32 label).
	let losses: Vec<f32> = (0..rows)
		.map(|r| {
			let at = r * c.vocab + targets[r] as usize;
			logits.get(at).map(|z| loss::sample_loss(max[r], sum[r], *z))
		})
		.collect::<Option<_>>()
		.ok_or(ReproError::ShapeMismatch)?;
	let loss = loss::mean(&losses);
	Ok(Forward { stream, blocks, z, lnf, logits, max, sum, loss })
}

/// The logits of the token after `context` (its last `t` ids, at least one): the
/// forward pass over one sequence of them, padded after its end, which no position
/// before the padding attends to.
pub fn next_logits(c: &Config, p: &Params, context: &[u32], threads: usize) -> Result<Vec<f32>> {
	let window = context.get(context.len().saturating_sub(c.t)..).unwrap_or_default();
	let filled = window.len();
	if filled == 0 {
		return Err(ReproError::BadBatch);
	}
	let mut tokens = window.to_vec();
	tokens.resize(c.t, 0);
	let f = forward(c, p, &tokens, &vec![0; c.t], 1, threads)?;
	let row = f.logits.get((filled - 1) * c.vocab..filled * c.vocab);
	row.map(<[f32]>::to_vec).ok_or(ReproError::ShapeMismatch)
}

/// The gradients of the mean token loss, from the forward pass `f`.
pub fn backward(
	c: &Config,
	p: &Params,
	f: &Forward,
	tokens: &[u32],
	targets: &[u32],
	batch: usize,
	threads: usize,
) -> Result<Params> {
	let rows = rows_of(c, p, tokens, targets, batch)?;
	let (d, vocab) = (c.d, c.vocab);
	let kept = f.max.len() == rows
		&& f.sum.len() == rows
		&& f.logits.len() == rows * vocab
		&& f.stream.len() == c.layers + 1
		&& f.blocks.len() == c.layers;
	if !kept {
		return Err(ReproError::ShapeMismatch);
	}
	let n = rows as f32;
	let mut dlogits = vec![0.0f32; rows * vocab];
	for (r, row) in dlogits.chunks_exact_mut(vocab).enumerate() {
		let (m, s, y) = (f.max[r], f.sum[r], targets[r] as usize);
		for (col, g) in row.iter_mut().enumerate() {
			*g = loss::grad(f.logits[r * vocab + col], m, s, col == y, n);
		}
	}
	let (mut dz, mut head, mut head_bias) =
		(vec![0.0f32; rows * d], vec![0.0f32; vocab * d], vec![0.0f32; vocab]);
	linear::backward_input(&dlogits, &p.head, rows, d, vocab, &mut dz, threads)?;
	linear::backward_weight(&dlogits, &f.z, rows, d, vocab, &mut head, threads)?;
	linear::backward_bias(&dlogits, rows, vocab, &mut head_bias)?;
	let last = &f.stream[c.layers];
	let (mut dx, lnf_gamma, lnf_beta) =
		layernorm::backward(last, d, &p.lnf_gamma, &f.lnf, &dz, threads)?;
	let mut blocks = Vec::with_capacity(c.layers);
	for i in (0..c.layers).rev() {
		let g = block::backward(
			&f.stream[i],
			&p.blocks[i],
			&f.blocks[i],
			&dx,
			&c.block(batch),
			threads,
		)?;
		dx = g.dx;
		blocks.push(g.params);
	}
	blocks.reverse();
	let tok = embedding::backward(vocab, d, tokens, &dx, threads)?;
	let pos = embedding::backward(c.t, d, &positions(rows, c.t), &dx, threads)?;
	Ok(Params { tok, pos, blocks, lnf_gamma, lnf_beta, head, head_bias })
}

#[cfg(test)]
mod tests {
	use super::*;
	use crate::{par, transformer::check::bits};

	const C: Config = Config { vocab: 7, t: 4, d: 8, heads: 2, layers: 2, hidden: 16, eps: 1e-5 };

	fn batch() -> (Vec<u32>, Vec<u32>) {
		let tokens = [1u32, 4, 2, 6, 0, 3, 5, 1];
		let targets = [4u32, 2, 6, 0, 3, 5, 1, 2];
		(tokens.to_vec(), targets.to_vec())
	}

	/// The spec language's layout of a language model's state (what the chain pages and
	/// proves) is this model's tensors, in this order.
	#[test]
	fn the_specs_state_layout_is_the_models() {
		let mut spec = gensyn_primitives::fixtures::tiny_lm();
		let block = gensyn_primitives::Layer::DecoderBlock { heads: 2, hidden: 16 };
		let mut layers = spec.model.layers.clone().into_inner();
		layers.insert(1, block);
		spec.model.layers = gensyn_primitives::BoundedVec::try_from_vec(layers).unwrap();
		spec.validate().unwrap();
		let c = Config { vocab: 5, t: 8, d: 8, heads: 2, layers: 2, hidden: 16, eps: 1e-5 };
		let lengths: Vec<u64> =
			Params::init(&c, 1).tensors().iter().map(|t| t.len() as u64).collect();
		let shapes = gensyn_primitives::layout::param_shapes(&spec);
		let from_spec: Vec<u64> =
			shapes.iter().map(|s| s.iter().map(|d| *d as u64).product()).collect();
		assert_eq!(from_spec, lengths);
		// A LayerNorm's scale and a bias have the same length: the shapes tell them apart.
		let p = Params::init(&c, 1);
		assert_eq!(shapes[0], vec![5, 8]);
		assert_eq!(shapes[2..4], [vec![8], vec![8]]);
		assert_eq!(shapes[14], vec![16, 8]);
		assert_eq!(p.blocks[0].w1.len(), 16 * 8);
	}

	/// The next token's logits are the last filled position's, whatever pads the rest,
	/// and only the last `t` ids of a longer context count.
	#[test]
	fn the_next_tokens_logits_see_only_the_context() {
		let p = Params::init(&C, 5);
		let (x, y) = batch();
		let f = forward(&C, &p, &x[..C.t], &y[..C.t], 1, 1).unwrap();
		let last = next_logits(&C, &p, &x[..C.t], 1).unwrap();
		assert_eq!(bits(&last), bits(&f.logits[(C.t - 1) * C.vocab..]));
		let second = next_logits(&C, &p, &x[..2], 1).unwrap();
		assert_eq!(bits(&second), bits(&f.logits[C.vocab..2 * C.vocab]));
		let longer: Vec<u32> = [3u32, 1].iter().chain(&x[..C.t]).copied().collect();
		assert_eq!(bits(&next_logits(&C, &p, &longer, 1).unwrap()), bits(&last));
		assert_eq!(next_logits(&C, &p, &[], 1), Err(ReproError::BadBatch));
		assert_eq!(next_logits(&C, &p, &[7], 1), Err(ReproError::TokenOutOfRange));
	}

	#[test]
	fn the_bits_do_not_depend_on_the_thread_count() {
		par::set_min_parallel_work(0);
		let p = Params::init(&C, 9);
		let (x, y) = batch();
		let one = forward(&C, &p, &x, &y, 2, 1).unwrap();
		let g1 = backward(&C, &p, &one, &x, &y, 2, 1).unwrap();
		for threads in [2, 3] {
			let f = forward(&C, &p, &x, &y, 2, threads).unwrap();
			let g = backward(&C, &p, &f, &x, &y, 2, threads).unwrap();
			assert_eq!(f.loss.to_bits(), one.loss.to_bits(), "{threads} threads");
			for (a, b) in g.tensors().into_iter().zip(g1.tensors()) {
				assert_eq!(bits(a), bits(b), "{threads} threads");
			}
		}
	}

	#[test]
	fn bad_batches_are_refused_with_their_error() {
		let p = Params::init(&C, 9);
		let (x, mut y) = batch();
		assert_eq!(forward(&C, &p, &x, &y, 0, 1), Err(ReproError::BadBatch));
		assert_eq!(forward(&C, &p, &x[1..], &y, 2, 1), Err(ReproError::ShapeMismatch));
		y[3] = C.vocab as u32;
		assert_eq!(forward(&C, &p, &x, &y, 2, 1), Err(ReproError::TokenOutOfRange));
		let mut x = x;
		x[0] = C.vocab as u32;
		assert_eq!(forward(&C, &p, &x, &batch().1, 2, 1), Err(ReproError::TokenOutOfRange));
		// A forward pass cut short is refused, not read past its end.
		let (x, y) = batch();
		let mut f = forward(&C, &p, &x, &y, 2, 1).unwrap();
		f.max.pop();
		assert_eq!(backward(&C, &p, &f, &x, &y, 2, 1), Err(ReproError::ShapeMismatch));
		let huge = Config { vocab: usize::MAX / 2, ..C };
		assert_eq!(forward(&huge, &p, &x, &y, 2, 1), Err(ReproError::ShapeMismatch));
	}

	/// An untrained model's loss is near `ln(vocab)`, as for a uniform guess; the loss is
	/// the mean of the rows' losses.
	#[test]
	fn the_loss_is_the_mean_token_cross_entropy() {
		let p = Params::init(&C, 9);
		let (x, y) = batch();
		let f = forward(&C, &p, &x, &y, 2, 1).unwrap();
		let mut total = 0.0f64;
		for (r, target) in y.iter().enumerate() {
			let row = &f.logits[r * C.vocab..(r + 1) * C.vocab];
			let lse = row.iter().map(|v| f64::from(*v).exp()).sum::<f64>().ln();
			total += lse - f64::from(row[*target as usize]);
		}
		let mean = total / y.len() as f64;
		assert!((mean - f64::from(f.loss)).abs() < 1e-5, "{mean} vs {}", f.loss);
		assert!((f64::from(f.loss) - (C.vocab as f64).ln()).abs() < 1.0, "{}", f.loss);
	}

	#[test]
	fn the_gradients_match_finite_differences() {
		let p = Params::init(&C, 9);
		let (x, y) = batch();
		let f = forward(&C, &p, &x, &y, 2, 1).unwrap();
		let g = backward(&C, &p, &f, &x, &y, 2, 1).unwrap();
		let h = 1e-2f32;
		let count = p.tensors().len();
		for i in 0..count {
			let analytic = g.tensors()[i].clone();
			// Every tensor, at a few elements: a full sweep would replay the model
			// thousands of times.
			for e in [0, analytic.len() / 2, analytic.len() - 1] {
				let loss_at = |delta: f32| {
					let mut moved = p.clone();
					moved.tensors_mut()[i][e] += delta;
					f64::from(forward(&C, &moved, &x, &y, 2, 1).unwrap().loss)
				};
				let numeric = (loss_at(h) - loss_at(-h)) / f64::from(2.0 * h);
				let a = f64::from(analytic[e]);
				assert!(
					(numeric - a).abs() <= 2e-2 * a.abs().max(0.05),
					"tensor {i}, element {e}: finite differences {numeric}, backward {a}"
				);
			}
		}
	}
}
