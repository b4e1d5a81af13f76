//! One pre-norm decoder block (GPT-2's order) over `batch` sequences of `t` positions
//! of `d` features (one row per position, the sequences one after another):
//!
//! - `a = LayerNorm1(x)`, `h = x + attn(a)` ([`multihead`] causal self-attention);
//! - `b = LayerNorm2(h)`, `u = b W1^T + b1` (`hidden` features), `g = gelu(u)`,
//!   `y = h + (g W2^T + b2)` (each product a [`linear`], its sums started at the bias).
//!
//! Each residual sum adds the branch to the stream, rounded once per element. Backward,
//! from `dy`: the MLP branch gives `dh_mlp` through `W2`, [`gelu`], `W1` and
//! `LayerNorm2`, and `dh = dy + dh_mlp`; the attention branch gives `dx_attn` through
//! the attention layer and `LayerNorm1`, and `dx = dh + dx_attn`. Every other sum is the
//! fixed-order sum of the operator it belongs to, so the bits do not depend on the
//! thread count.

use super::{gelu, layernorm, multihead};
use crate::{linear, ReproError, Result};
use alloc::{vec, vec::Vec};

/// The block's sizes.
#[derive(Clone, Copy, PartialEq, Debug)]
pub struct Dims {
	/// Sequences.
	pub batch: usize,
	/// Positions per sequence.
	pub t: usize,
	/// Features of the residual stream.
	pub d: usize,
	/// Attention heads (`d` a multiple of it).
	pub heads: usize,
	/// Features of the MLP's hidden layer (four times `d` in GPT-2).
	pub hidden: usize,
	/// The LayerNorms' `eps`.
	pub eps: f32,
}

impl Dims {
	/// Every position of the batch: the rows of each stream buffer.
	pub fn rows(&self) -> usize {
		self.batch.saturating_mul(self.t)
	}

	/// The attention layer's shape.
	pub fn attention(&self) -> multihead::Shape {
		multihead::Shape { batch: self.batch, t: self.t, d: self.d, heads: self.heads }
	}
}

/// The block's parameters (or their gradients, in the same layout).
#[derive(Clone, PartialEq, Debug)]
pub struct Params {
	/// First LayerNorm's scale, `d`.
	pub ln1_gamma: Vec<f32>,
	/// First LayerNorm's shift, `d`.
	pub ln1_beta: Vec<f32>,
	/// The attention layer.
	pub attn: multihead::Params,
	/// Second LayerNorm's scale, `d`.
	pub ln2_gamma: Vec<f32>,
	/// Second LayerNorm's shift, `d`.
	pub ln2_beta: Vec<f32>,
	/// MLP input projection, `hidden x d`.
	pub w1: Vec<f32>,
	/// Its bias, `hidden`.
	pub b1: Vec<f32>,
	/// MLP output projection, `d x hidden`.
	pub w2: Vec<f32>,
	/// Its bias, `d`.
	pub b2: Vec<f32>,
}

/// What the forward pass keeps for the backward pass, and its output.
#[derive(Clone, PartialEq, Debug)]
pub struct Forward {
	/// `LayerNorm1(x)`.
	pub a: Vec<f32>,
	/// First LayerNorm's row statistics.
	pub ln1: layernorm::RowStats,
	/// The attention layer's pass.
	pub attn: multihead::Forward,
	/// The stream after attention, `x + attn(a)`.
	pub h: Vec<f32>,
	/// `LayerNorm2(h)`.
	pub b: Vec<f32>,
	/// Second LayerNorm's row statistics.
	pub ln2: layernorm::RowStats,
	/// The MLP's pre-activation, `batch * t x hidden`.
	pub u: Vec<f32>,
	/// `gelu(u)`.
	pub g: Vec<f32>,
	/// GELU's tanh at each element of `u`, kept for the backward pass.
	pub gelu_tanh: Vec<f32>,
	/// The block's output, `batch * t x d`.
	pub y: Vec<f32>,
}

/// The gradients of the block's input and parameters.
#[derive(Clone, PartialEq, Debug)]
pub struct Grads {
	/// Of the input, `batch * t x d`.
	pub dx: Vec<f32>,
	/// Of the parameters.
	pub params: Params,
}

/// Checks the MLP's and LayerNorms' buffers (the attention layer checks its own).
fn check_sizes(x: &[f32], p: &Params, n: &Dims) -> Result<()> {
	let d_sized = [&p.ln1_gamma, &p.ln1_beta, &p.ln2_gamma, &p.ln2_beta, &p.b2];
	let hd = n.hidden.checked_mul(n.d).filter(|m| *m > 0).ok_or(ReproError::ShapeMismatch)?;
	let fits = x.len() == n.rows().saturating_mul(n.d)
		&& d_sized.iter().all(|v| v.len() == n.d)
		&& p.w1.len() == hd
		&& p.w2.len() == hd
		&& p.b1.len() == n.hidden;
	if !fits {
		return Err(ReproError::ShapeMismatch);
	}
	Ok(())
}

/// `a + b`, element by element.
fn added(a: &[f32], b: &[f32]) -> Vec<f32> {
	a.iter().zip(b).map(|(x, y)| *x + *y).collect()
}

/// The forward pass.
pub fn forward(x: &[f32], p: &Params, n: &Dims, threads: usize) -> Result<Forward> {
	check_sizes(x, p, n)?;
	let (rows, d) = (n.rows(), n.d);
	let mut a = vec![0.0f32; x.len()];
	let ln1 = layernorm::forward(x, d, &p.ln1_gamma, &p.ln1_beta, n.eps, &mut a, threads)?;
	let attn = multihead::forward(&a, &p.attn, &n.attention(), threads)?;
	let h = added(x, &attn.y);
	let mut b = vec![0.0f32; h.len()];
	let ln2 = layernorm::forward(&h, d, &p.ln2_gamma, &p.ln2_beta, n.eps, &mut b, threads)?;
	let mut u = vec![0.0f32; rows * n.hidden];
	linear::forward(&b, &p.w1, &p.b1, rows, d, n.hidden, &mut u, threads)?;
	let (mut g, mut gelu_tanh) = (vec![0.0f32; u.len()], vec![0.0f32; u.len()]);
	gelu::forward_keeping(&u, &mut g, &mut gelu_tanh, threads)?;
	let mut m = vec![0.0f32; rows * d];
	linear::forward(&g, &p.w2, &p.b2, rows, n.hidden, d, &mut m, threads)?;
	let y = added(&h, &m);
	Ok(Forward { a, ln1, attn, h, b, ln2, u, g, gelu_tanh, y })
}

/// The backward pass from the output's gradient `dy`, with the forward pass `f` of `x`.
pub fn backward(
	x: &[f32],
	p: &Params,
	f: &Forward,
	dy: &[f32],
	n: &Dims,
	threads: usize,
) -> Result<Grads> {
	check_sizes(x, p, n)?;
	let (rows, d, hidden) = (n.rows(), n.d, n.hidden);
	let stream = [&f.a, &f.h, &f.b];
	if dy.len() != x.len()
		|| stream.iter().any(|s| s.len() != x.len())
		|| f.g.len() != rows * hidden
	{
		return Err(ReproError::ShapeMismatch);
	}
	// The MLP branch.
	let (mut dg, mut dw2, mut db2) =
		(vec![0.0f32; rows * hidden], vec![0.0f32; d * hidden], vec![0.0f32; d]);
	linear::backward_input(dy, &p.w2, rows, hidden, d, &mut dg, threads)?;
	linear::backward_weight(dy, &f.g, rows, hidden, d, &mut dw2, threads)?;
	linear::backward_bias(dy, rows, d, &mut db2)?;
	let mut du = vec![0.0f32; dg.len()];
	gelu::backward_kept(&f.u, &f.gelu_tanh, &dg, &mut du, threads)?;
	let (mut d_b, mut dw1, mut db1) =
		(vec![0.0f32; rows * d], vec![0.0f32; hidden * d], vec![0.0f32; hidden]);
	linear::backward_input(&du, &p.w1, rows, d, hidden, &mut d_b, threads)?;
	linear::backward_weight(&du, &f.b, rows, d, hidden, &mut dw1, threads)?;
	linear::backward_bias(&du, rows, hidden, &mut db1)?;
	let (dh_mlp, dgamma2, dbeta2) =
		layernorm::backward(&f.h, d, &p.ln2_gamma, &f.ln2, &d_b, threads)?;
	let dh = added(dy, &dh_mlp);
	// The attention branch.
	let attn = multihead::backward(&f.a, &p.attn, &f.attn, &dh, &n.attention(), threads)?;
	let (dx_attn, dgamma1, dbeta1) =
		layernorm::backward(x, d, &p.ln1_gamma, &f.ln1, &attn.dx, threads)?;
	let dx = added(&dh, &dx_attn);
	let params = Params {
		ln1_gamma: dgamma1,
		ln1_beta: dbeta1,
		attn: attn.params,
		ln2_gamma: dgamma2,
		ln2_beta: dbeta2,
		w1: dw1,
		b1: db1,
		w2: dw2,
		b2: db2,
	};
	Ok(Grads { dx, params })
}

#[cfg(test)]
mod tests {
	use super::*;
	use crate::{
		par,
		transformer::check::{self, bits},
	};

	const DIMS: Dims = Dims { batch: 2, t: 4, d: 8, heads: 2, hidden: 16, eps: 1e-5 };

	fn params() -> Params {
		let (d, hidden) = (DIMS.d, DIMS.hidden);
		let v = |n: usize, seed: u64, scale: f32| check::values(n, seed, scale);
		let ones = |seed: u64| v(d, seed, 0.3).iter().map(|x| 1.0 + *x).collect();
		let w = |seed: u64| v(d * d, seed, 0.4);
		let attn = multihead::Params {
			wq: w(3),
			bq: v(d, 4, 0.1),
			wk: w(5),
			bk: v(d, 6, 0.1),
			wv: w(7),
			bv: v(d, 8, 0.1),
			wo: w(9),
			bo: v(d, 10, 0.1),
		};
		Params {
			ln1_gamma: ones(1),
			ln1_beta: v(d, 2, 0.1),
			attn,
			ln2_gamma: ones(11),
			ln2_beta: v(d, 12, 0.1),
			w1: v(hidden * d, 13, 0.4),
			b1: v(hidden, 14, 0.1),
			w2: v(d * hidden, 15, 0.3),
			b2: v(d, 16, 0.1),
		}
	}

	fn inputs() -> (Vec<f32>, Params, Vec<f32>) {
		let n = DIMS.rows() * DIMS.d;
		(check::values(n, 50, 1.0), params(), check::values(n, 60, 1.0))
	}

	fn all(p: &Params) -> Vec<&Vec<f32>> {
		let a = &p.attn;
		vec![
			&p.ln1_gamma,
			&p.ln1_beta,
			&a.wq,
			&a.bq,
			&a.wk,
			&a.bk,
			&a.wv,
			&a.bv,
			&a.wo,
			&a.bo,
			&p.ln2_gamma,
			&p.ln2_beta,
			&p.w1,
			&p.b1,
			&p.w2,
			&p.b2,
		]
	}

	#[test]
	fn the_bits_do_not_depend_on_the_thread_count() {
		par::set_min_parallel_work(0);
		let (x, p, dy) = inputs();
		let one = forward(&x, &p, &DIMS, 1).unwrap();
		let g1 = backward(&x, &p, &one, &dy, &DIMS, 1).unwrap();
		for threads in [2, 3] {
			let f = forward(&x, &p, &DIMS, threads).unwrap();
			let g = backward(&x, &p, &f, &dy, &DIMS, threads).unwrap();
			assert_eq!(bits(&f.y), bits(&one.y), "{threads} threads");
			assert_eq!(bits(&g.dx), bits(&g1.dx), "{threads} threads");
			for (a, b) in all(&g.params).into_iter().zip(all(&g1.params)) {
				assert_eq!(bits(a), bits(b), "{threads} threads");
			}
		}
	}

	#[test]
	fn buffers_must_fit_the_dims() {
		let (x, p, _) = inputs();
		assert_eq!(forward(&x[1..], &p, &DIMS, 1), Err(ReproError::ShapeMismatch));
		let short = Params { b1: vec![0.0; DIMS.hidden - 1], ..p.clone() };
		assert_eq!(forward(&x, &short, &DIMS, 1), Err(ReproError::ShapeMismatch));
		let odd = Dims { heads: 3, ..DIMS };
		assert_eq!(forward(&x, &p, &odd, 1), Err(ReproError::ShapeMismatch));
	}

	/// The block is its parts in the order the module doc gives: each residual sum is
	/// the stream plus the branch, rounded once.
	#[test]
	fn the_forward_pass_is_its_parts_in_order() {
		let (x, p, _) = inputs();
		let f = forward(&x, &p, &DIMS, 1).unwrap();
		let attn = multihead::forward(&f.a, &p.attn, &DIMS.attention(), 1).unwrap();
		for (i, ((h, x), o)) in f.h.iter().zip(&x).zip(&attn.y).enumerate() {
			assert_eq!(h.to_bits(), (*x + *o).to_bits(), "h[{i}]");
		}
		let mut m = vec![0.0f32; DIMS.rows() * DIMS.d];
		linear::forward(&f.g, &p.w2, &p.b2, DIMS.rows(), DIMS.hidden, DIMS.d, &mut m, 1).unwrap();
		for (i, ((y, h), m)) in f.y.iter().zip(&f.h).zip(&m).enumerate() {
			assert_eq!(y.to_bits(), (*h + *m).to_bits(), "y[{i}]");
		}
	}

	/// A position sees neither a later position of its sequence nor another sequence.
	#[test]
	fn a_position_sees_only_its_own_sequence_up_to_itself() {
		let (mut x, p, _) = inputs();
		let first = forward(&x, &p, &DIMS, 1).unwrap();
		let (last, end) = ((DIMS.t - 1) * DIMS.d, DIMS.t * DIMS.d);
		for v in x[last..end].iter_mut() {
			*v = *v + 2.0;
		}
		let changed = forward(&x, &p, &DIMS, 1).unwrap();
		assert_eq!(bits(&first.y[..last]), bits(&changed.y[..last]));
		assert_ne!(bits(&first.y[last..end]), bits(&changed.y[last..end]));
		assert_eq!(bits(&first.y[end..]), bits(&changed.y[end..]), "the second sequence");
	}

	#[test]
	fn the_gradients_match_finite_differences() {
		let (x, p, dy) = inputs();
		let f = forward(&x, &p, &DIMS, 1).unwrap();
		let g = backward(&x, &p, &f, &dy, &DIMS, 1).unwrap();
		let out = |x: &[f32], p: &Params| forward(x, p, &DIMS, 1).unwrap().y;
		check::finite_differences(&x, &dy, &g.dx, 1e-2, 1e-2, |x| out(x, &p));
		let fields: [fn(&mut Params) -> &mut Vec<f32>; 8] = [
			|p| &mut p.ln1_gamma,
			|p| &mut p.ln1_beta,
			|p| &mut p.attn.wq,
			|p| &mut p.attn.wv,
			|p| &mut p.ln2_gamma,
			|p| &mut p.w1,
			|p| &mut p.b1,
			|p| &mut p.w2,
		];
		let mut grads = g.params.clone();
		for field in fields {
			let base = field(&mut p.clone()).clone();
			let analytic = field(&mut grads).clone();
			check::finite_differences(&base, &dy, &analytic, 1e-2, 1e-2, |w| {
				let mut moved = p.clone();
				*field(&mut moved) = w.to_vec();
				out(&x, &moved)
			});
		}
	}
}
