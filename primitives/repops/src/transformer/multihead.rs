//! Multi-head causal self-attention over one sequence of `t` positions of `d` features,
//! `heads` heads of `dh = d / heads` features each (PyTorch's layout of
//! `MultiheadAttention` with separate projections):
//!
//! - forward: `q = x Wq^T + bq`, `k = x Wk^T + bk`, `v = x Wv^T + bv` (each a
//!   [`linear::forward`] over the `t` rows), head `h` an [`attention`] head over columns
//!   `h * dh .. (h + 1) * dh` of `q`, `k` and `v`, the heads' outputs side by side in
//!   `o`, and `y = o Wo^T + bo`;
//! - backward, from `dy`: `do = dy Wo`, each head's [`attention::backward`] on its
//!   columns of `do`, giving `dq`, `dk` and `dv` column block by column block, and
//!   `dx = (dq Wq + dk Wk) + dv Wv`, the three products rounded each and added in that
//!   order; each weight's gradient is `d(.)^T` times its input, summed over positions
//!   in order, and each bias's the column sums of `d(.)`, as [`linear`]'s.
//!
//! Every sum is one of those operators' fixed-order sums, so the bits do not depend on
//! the thread count.

use super::attention;
use crate::{linear, ReproError, Result};
use alloc::{vec, vec::Vec};

/// The layer's parameters (or their gradients, in the same layout): four `d x d`
/// projections, row-major with one row per output feature as [`linear`] reads them,
/// and their biases.
#[derive(Clone, PartialEq, Debug)]
pub struct Params {
	/// Query projection.
	pub wq: Vec<f32>,
	/// Query bias.
	pub bq: Vec<f32>,
	/// Key projection.
	pub wk: Vec<f32>,
	/// Key bias.
	pub bk: Vec<f32>,
	/// Value projection.
	pub wv: Vec<f32>,
	/// Value bias.
	pub bv: Vec<f32>,
	/// Output projection.
	pub wo: Vec<f32>,
	/// Output bias.
	pub bo: Vec<f32>,
}

/// What the forward pass keeps for the backward pass, and its output.
#[derive(Clone, PartialEq, Debug)]
pub struct Forward {
	/// The projections, `t x d` each.
	pub q: Vec<f32>,
	/// Keys.
	pub k: Vec<f32>,
	/// Values.
	pub v: Vec<f32>,
	/// Each head's attention weights, `t x t`.
	pub p: Vec<Vec<f32>>,
	/// The heads' outputs side by side, `t x d`.
	pub o: Vec<f32>,
	/// The layer's output, `t x d`.
	pub y: Vec<f32>,
}

/// The gradients of the layer's input and parameters.
#[derive(Clone, PartialEq, Debug)]
pub struct Grads {
	/// Of the input, `t x d`.
	pub dx: Vec<f32>,
	/// Of the parameters.
	pub params: Params,
}

/// The width of one head, once the shapes are checked.
fn head_width(x: &[f32], p: &Params, t: usize, d: usize, heads: usize) -> Result<usize> {
	if heads == 0 || d == 0 || !d.is_multiple_of(heads) {
		return Err(ReproError::ShapeMismatch);
	}
	let n = t.checked_mul(d).filter(|n| *n > 0).ok_or(ReproError::ShapeMismatch)?;
	let weights = [&p.wq, &p.wk, &p.wv, &p.wo];
	let biases = [&p.bq, &p.bk, &p.bv, &p.bo];
	if x.len() != n
		|| weights.iter().any(|w| w.len() != d * d)
		|| biases.iter().any(|b| b.len() != d)
	{
		return Err(ReproError::ShapeMismatch);
	}
	Ok(d / heads)
}

/// `x W^T + b` over `t` rows of `d`.
fn project(
	x: &[f32],
	w: &[f32],
	b: &[f32],
	t: usize,
	d: usize,
	threads: usize,
) -> Result<Vec<f32>> {
	let mut out = vec![0.0f32; t * d];
	linear::forward(x, w, b, t, d, d, &mut out, threads)?;
	Ok(out)
}

/// Columns `h * dh .. (h + 1) * dh` of `x` (`t x d`), as a `t x dh` matrix.
fn columns(x: &[f32], d: usize, h: usize, dh: usize) -> Vec<f32> {
	x.chunks_exact(d).flat_map(|row| row.iter().skip(h * dh).take(dh).copied()).collect()
}

/// Writes `block` (`t x dh`) into columns `h * dh .. (h + 1) * dh` of `x` (`t x d`).
fn put_columns(x: &mut [f32], d: usize, h: usize, dh: usize, block: &[f32]) {
	for (row, part) in x.chunks_exact_mut(d).zip(block.chunks_exact(dh)) {
		for (dst, src) in row.iter_mut().skip(h * dh).zip(part) {
			*dst = *src;
		}
	}
}

/// The forward pass.
pub fn forward(
	x: &[f32],
	p: &Params,
	t: usize,
	d: usize,
	heads: usize,
	threads: usize,
) -> Result<Forward> {
	let dh = head_width(x, p, t, d, heads)?;
	let q = project(x, &p.wq, &p.bq, t, d, threads)?;
	let k = project(x, &p.wk, &p.bk, t, d, threads)?;
	let v = project(x, &p.wv, &p.bv, t, d, threads)?;
	let mut o = vec![0.0f32; t * d];
	let mut weights = Vec::with_capacity(heads);
	for h in 0..heads {
		let (qh, kh, vh) = (columns(&q, d, h, dh), columns(&k, d, h, dh), columns(&v, d, h, dh));
		let f = attention::forward(&qh, &kh, &vh, t, dh, threads)?;
		put_columns(&mut o, d, h, dh, &f.o);
		weights.push(f.p);
	}
	let y = project(&o, &p.wo, &p.bo, t, d, threads)?;
	Ok(Forward { q, k, v, p: weights, o, y })
}

/// The gradients of one projection `y = x W^T + b` from `dy`: `(dx, dW, db)`.
fn project_back(
	x: &[f32],
	w: &[f32],
	dy: &[f32],
	t: usize,
	d: usize,
	threads: usize,
) -> Result<(Vec<f32>, Vec<f32>, Vec<f32>)> {
	let (mut dx, mut dw, mut db) = (vec![0.0f32; t * d], vec![0.0f32; d * d], vec![0.0f32; d]);
	linear::backward_input(dy, w, t, d, d, &mut dx, threads)?;
	linear::backward_weight(dy, x, t, d, d, &mut dw, threads)?;
	linear::backward_bias(dy, t, d, &mut db)?;
	Ok((dx, dw, db))
}

/// The backward pass from the output's gradient `dy`, with the forward pass `f` of `x`.
#[allow(clippy::too_many_arguments)]
pub fn backward(
	x: &[f32],
	p: &Params,
	f: &Forward,
	dy: &[f32],
	t: usize,
	d: usize,
	heads: usize,
	threads: usize,
) -> Result<Grads> {
	let dh = head_width(x, p, t, d, heads)?;
	let n = t * d;
	let kept = [&f.q, &f.k, &f.v, &f.o];
	if dy.len() != n || kept.iter().any(|m| m.len() != n) || f.p.len() != heads {
		return Err(ReproError::ShapeMismatch);
	}
	let (d_o, dwo, dbo) = project_back(&f.o, &p.wo, dy, t, d, threads)?;
	let (mut dq, mut dk, mut dv) = (vec![0.0f32; n], vec![0.0f32; n], vec![0.0f32; n]);
	for (h, weights) in f.p.iter().enumerate() {
		let (qh, kh, vh) =
			(columns(&f.q, d, h, dh), columns(&f.k, d, h, dh), columns(&f.v, d, h, dh));
		let g =
			attention::backward(&qh, &kh, &vh, weights, &columns(&d_o, d, h, dh), t, dh, threads)?;
		put_columns(&mut dq, d, h, dh, &g.dq);
		put_columns(&mut dk, d, h, dh, &g.dk);
		put_columns(&mut dv, d, h, dh, &g.dv);
	}
	let (dx_q, dwq, dbq) = project_back(x, &p.wq, &dq, t, d, threads)?;
	let (dx_k, dwk, dbk) = project_back(x, &p.wk, &dk, t, d, threads)?;
	let (dx_v, dwv, dbv) = project_back(x, &p.wv, &dv, t, d, threads)?;
	let dx = dx_q.iter().zip(&dx_k).zip(&dx_v).map(|((a, b), c)| (*a + *b) + *c).collect();
	let params = Params { wq: dwq, bq: dbq, wk: dwk, bk: dbk, wv: dwv, bv: dbv, wo: dwo, bo: dbo };
	Ok(Grads { dx, params })
}

#[cfg(test)]
mod tests {
	use super::*;
	use crate::{
		par,
		transformer::check::{self, bits},
	};

	const T: usize = 5;
	const D: usize = 8;
	const HEADS: usize = 2;

	fn params(seed: u64) -> Params {
		let w = |s: u64| check::values(D * D, seed + s, 0.4);
		let b = |s: u64| check::values(D, seed + s, 0.2);
		Params { wq: w(1), bq: b(2), wk: w(3), bk: b(4), wv: w(5), bv: b(6), wo: w(7), bo: b(8) }
	}

	fn inputs() -> (Vec<f32>, Params, Vec<f32>) {
		(check::values(T * D, 20, 1.0), params(30), check::values(T * D, 40, 1.0))
	}

	fn all(p: &Params) -> [&Vec<f32>; 8] {
		[&p.wq, &p.bq, &p.wk, &p.bk, &p.wv, &p.bv, &p.wo, &p.bo]
	}

	#[test]
	fn the_bits_do_not_depend_on_the_thread_count() {
		par::set_min_parallel_work(0);
		let (x, p, dy) = inputs();
		let one = forward(&x, &p, T, D, HEADS, 1).unwrap();
		let g1 = backward(&x, &p, &one, &dy, T, D, HEADS, 1).unwrap();
		for threads in [2, 3] {
			let f = forward(&x, &p, T, D, HEADS, threads).unwrap();
			let g = backward(&x, &p, &f, &dy, T, D, HEADS, threads).unwrap();
			assert_eq!(bits(&f.y), bits(&one.y), "{threads} threads");
			assert_eq!(bits(&g.dx), bits(&g1.dx), "{threads} threads");
			for (a, b) in all(&g.params).iter().zip(all(&g1.params)) {
				assert_eq!(bits(a), bits(b), "{threads} threads");
			}
		}
	}

	#[test]
	fn heads_must_divide_the_width_and_buffers_fit() {
		let (x, p, _) = inputs();
		assert_eq!(forward(&x, &p, T, D, 3, 1), Err(ReproError::ShapeMismatch));
		assert_eq!(forward(&x, &p, T, D, 0, 1), Err(ReproError::ShapeMismatch));
		assert_eq!(forward(&x[1..], &p, T, D, HEADS, 1), Err(ReproError::ShapeMismatch));
		let short = Params { bo: vec![0.0; D - 1], ..p };
		assert_eq!(forward(&x, &short, T, D, HEADS, 1), Err(ReproError::ShapeMismatch));
	}

	/// Each head is the single head of [`attention`] over its own columns, and the output
	/// projection reads the heads side by side.
	#[test]
	fn each_head_attends_over_its_own_columns() {
		let (x, p, _) = inputs();
		let f = forward(&x, &p, T, D, HEADS, 1).unwrap();
		let dh = D / HEADS;
		for h in 0..HEADS {
			let head = attention::forward(
				&columns(&f.q, D, h, dh),
				&columns(&f.k, D, h, dh),
				&columns(&f.v, D, h, dh),
				T,
				dh,
				1,
			)
			.unwrap();
			assert_eq!(bits(&columns(&f.o, D, h, dh)), bits(&head.o), "head {h}");
		}
		assert_eq!(bits(&f.y), bits(&project(&f.o, &p.wo, &p.bo, T, D, 1).unwrap()));
	}

	#[test]
	fn a_position_never_sees_a_later_one() {
		let (mut x, p, _) = inputs();
		let first = forward(&x, &p, T, D, HEADS, 1).unwrap();
		for v in x[(T - 1) * D..].iter_mut() {
			*v = *v + 3.0;
		}
		let changed = forward(&x, &p, T, D, HEADS, 1).unwrap();
		assert_eq!(bits(&first.y[..(T - 1) * D]), bits(&changed.y[..(T - 1) * D]));
		assert_ne!(bits(&first.y[(T - 1) * D..]), bits(&changed.y[(T - 1) * D..]));
	}

	#[test]
	fn the_gradients_match_finite_differences() {
		let (x, p, dy) = inputs();
		let f = forward(&x, &p, T, D, HEADS, 1).unwrap();
		let g = backward(&x, &p, &f, &dy, T, D, HEADS, 1).unwrap();
		let out = |x: &[f32], p: &Params| forward(x, p, T, D, HEADS, 1).unwrap().y;
		check::finite_differences(&x, &dy, &g.dx, 1e-2, 5e-3, |x| out(x, &p));
		let fields: [fn(&mut Params) -> &mut Vec<f32>; 8] = [
			|p| &mut p.wq,
			|p| &mut p.bq,
			|p| &mut p.wk,
			|p| &mut p.bk,
			|p| &mut p.wv,
			|p| &mut p.bv,
			|p| &mut p.wo,
			|p| &mut p.bo,
		];
		let mut grads = g.params.clone();
		for field in fields {
			let base = field(&mut p.clone()).clone();
			let analytic = field(&mut grads).clone();
			check::finite_differences(&base, &dy, &analytic, 1e-2, 5e-3, |w| {
				let mut moved = p.clone();
				*field(&mut moved) = w.to_vec();
				out(&x, &moved)
			});
		}
	}
}
