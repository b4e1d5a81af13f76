//! Multi-head causal self-attention over `batch` sequences of `t` positions of `d`
//! features (one row per position, the sequences one after another), `heads` heads of
//! `dh = d / heads` features each (PyTorch's layout of `MultiheadAttention` with
//! separate projections):
//!
//! - forward: `q = x Wq^T + bq`, `k = x Wk^T + bk`, `v = x Wv^T + bv` (each a
//!   [`linear::forward`] over all `batch * t` rows, each sum started at the bias), head
//!   `h` of sequence `s` an [`attention`] head over that sequence's rows and columns
//!   `h * dh .. (h + 1) * dh` of `q`, `k` and `v`, the heads' outputs side by side in
//!   `o`, and `y = o Wo^T + bo`;
//! - backward, from `dy`: `do = dy Wo`, each head's [`attention::backward`] on its block
//!   of `do`, giving `dq`, `dk` and `dv` block by block, and `dx = (dq Wq + dk Wk) +
//!   dv Wv`, the three products rounded each and added in that order; each weight's
//!   gradient is `d(.)^T` times its input, summed over all rows in order, and each
//!   bias's the column sums of `d(.)`, as [`linear`]'s.
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

/// The sizes of the layer's input: `batch` sequences of `t` positions of `d` features.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Shape {
	/// Sequences.
	pub batch: usize,
	/// Positions per sequence.
	pub t: usize,
	/// Features per position.
	pub d: usize,
	/// Heads (`d` a multiple of it).
	pub heads: usize,
}

impl Shape {
	/// Every position of the batch: the rows of each `batch * t x d` buffer.
	pub fn rows(&self) -> usize {
		self.batch.saturating_mul(self.t)
	}
}

/// What the forward pass keeps for the backward pass, and its output.
#[derive(Clone, PartialEq, Debug)]
pub struct Forward {
	/// The queries, `batch * t x d`.
	pub q: Vec<f32>,
	/// The keys, `batch * t x d`.
	pub k: Vec<f32>,
	/// The values, `batch * t x d`.
	pub v: Vec<f32>,
	/// The attention weights of each head, sequence by sequence and head by head within
	/// one, `t x t` each.
	pub p: Vec<Vec<f32>>,
	/// The heads' outputs side by side, `batch * t x d`.
	pub o: Vec<f32>,
	/// The layer's output, `batch * t x d`.
	pub y: Vec<f32>,
}

/// The gradients of the layer's input and parameters.
#[derive(Clone, PartialEq, Debug)]
pub struct Grads {
	/// Of the input, `batch * t x d`.
	pub dx: Vec<f32>,
	/// Of the parameters.
	pub params: Params,
}

/// The width of one head, once the shapes are checked.
fn head_width(x: &[f32], p: &Params, n: &Shape) -> Result<usize> {
	let d = n.d;
	if n.heads == 0 || d == 0 || !d.is_multiple_of(n.heads) {
		return Err(ReproError::ShapeMismatch);
	}
	let len = n.rows().checked_mul(d).filter(|l| *l > 0).ok_or(ReproError::ShapeMismatch)?;
	let weights = [&p.wq, &p.wk, &p.wv, &p.wo];
	let biases = [&p.bq, &p.bk, &p.bv, &p.bo];
	if x.len() != len
		|| weights.iter().any(|w| w.len() != d * d)
		|| biases.iter().any(|b| b.len() != d)
	{
		return Err(ReproError::ShapeMismatch);
	}
	Ok(d / n.heads)
}

/// `x W^T + b` over `rows` rows of `d`.
fn project(
	x: &[f32],
	w: &[f32],
	b: &[f32],
	rows: usize,
	d: usize,
	threads: usize,
) -> Result<Vec<f32>> {
	let mut out = vec![0.0f32; rows * d];
	linear::forward(x, w, b, rows, d, d, &mut out, threads)?;
	Ok(out)
}

/// Where one head of one sequence reads and writes in a `batch * t x d` buffer.
#[derive(Clone)]
struct Head {
	/// Its sequence's rows.
	rows: core::ops::Range<usize>,
	/// Its first column.
	col: usize,
	/// Its width.
	dh: usize,
	/// The buffer's row length.
	d: usize,
}

impl Head {
	/// Every head of every sequence, sequence by sequence.
	fn all(n: Shape, dh: usize) -> impl Iterator<Item = Head> {
		(0..n.batch).flat_map(move |s| {
			(0..n.heads).map(move |h| Head {
				rows: s * n.t..(s + 1) * n.t,
				col: h * dh,
				dh,
				d: n.d,
			})
		})
	}

	/// Its block of `x`, as a `t x dh` matrix.
	fn of(&self, x: &[f32]) -> Vec<f32> {
		let rows = x.chunks_exact(self.d).skip(self.rows.start).take(self.rows.len());
		rows.flat_map(|row| row.iter().skip(self.col).take(self.dh).copied()).collect()
	}

	/// Writes `block` (`t x dh`) into its block of `x`.
	fn put(&self, x: &mut [f32], block: &[f32]) {
		let rows = x.chunks_exact_mut(self.d).skip(self.rows.start).take(self.rows.len());
		for (row, part) in rows.zip(block.chunks_exact(self.dh)) {
			for (dst, src) in row.iter_mut().skip(self.col).zip(part) {
				*dst = *src;
			}
		}
	}
}

/// The forward pass.
pub fn forward(x: &[f32], p: &Params, n: &Shape, threads: usize) -> Result<Forward> {
	let dh = head_width(x, p, n)?;
	let (rows, d) = (n.rows(), n.d);
	let q = project(x, &p.wq, &p.bq, rows, d, threads)?;
	let k = project(x, &p.wk, &p.bk, rows, d, threads)?;
	let v = project(x, &p.wv, &p.bv, rows, d, threads)?;
	let mut o = vec![0.0f32; rows * d];
	let mut weights = Vec::with_capacity(n.batch.saturating_mul(n.heads));
	for head in Head::all(*n, dh) {
		let f = attention::forward(&head.of(&q), &head.of(&k), &head.of(&v), n.t, dh, threads)?;
		head.put(&mut o, &f.o);
		weights.push(f.p);
	}
	let y = project(&o, &p.wo, &p.bo, rows, d, threads)?;
	Ok(Forward { q, k, v, p: weights, o, y })
}

/// The gradients of one projection `y = x W^T + b` from `dy`: `(dx, dW, db)`.
fn project_back(
	x: &[f32],
	w: &[f32],
	dy: &[f32],
	rows: usize,
	d: usize,
	threads: usize,
) -> Result<(Vec<f32>, Vec<f32>, Vec<f32>)> {
	let (mut dx, mut dw, mut db) = (vec![0.0f32; rows * d], vec![0.0f32; d * d], vec![0.0f32; d]);
	linear::backward_input(dy, w, rows, d, d, &mut dx, threads)?;
	linear::backward_weight(dy, x, rows, d, d, &mut dw, threads)?;
	linear::backward_bias(dy, rows, d, &mut db)?;
	Ok((dx, dw, db))
}

/// The backward pass from the output's gradient `dy`, with the forward pass `f` of `x`.
pub fn backward(
	x: &[f32],
	p: &Params,
	f: &Forward,
	dy: &[f32],
	n: &Shape,
	threads: usize,
) -> Result<Grads> {
	let dh = head_width(x, p, n)?;
	let (rows, d) = (n.rows(), n.d);
	let len = rows * d;
	let kept = [&f.q, &f.k, &f.v, &f.o];
	if dy.len() != len
		|| kept.iter().any(|m| m.len() != len)
		|| f.p.len() != n.batch.saturating_mul(n.heads)
	{
		return Err(ReproError::ShapeMismatch);
	}
	let (d_o, dwo, dbo) = project_back(&f.o, &p.wo, dy, rows, d, threads)?;
	let (mut dq, mut dk, mut dv) = (vec![0.0f32; len], vec![0.0f32; len], vec![0.0f32; len]);
	for (head, weights) in Head::all(*n, dh).zip(&f.p) {
		let (qh, kh, vh) = (head.of(&f.q), head.of(&f.k), head.of(&f.v));
		let g = attention::backward(&qh, &kh, &vh, weights, &head.of(&d_o), n.t, dh, threads)?;
		head.put(&mut dq, &g.dq);
		head.put(&mut dk, &g.dk);
		head.put(&mut dv, &g.dv);
	}
	let (dx_q, dwq, dbq) = project_back(x, &p.wq, &dq, rows, d, threads)?;
	let (dx_k, dwk, dbk) = project_back(x, &p.wk, &dk, rows, d, threads)?;
	let (dx_v, dwv, dbv) = project_back(x, &p.wv, &dv, rows, d, threads)?;
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

	const N: Shape = Shape { batch: 2, t: 5, d: 8, heads: 2 };

	fn params(seed: u64) -> Params {
		let w = |s: u64| check::values(N.d * N.d, seed + s, 0.4);
		let b = |s: u64| check::values(N.d, seed + s, 0.2);
		Params { wq: w(1), bq: b(2), wk: w(3), bk: b(4), wv: w(5), bv: b(6), wo: w(7), bo: b(8) }
	}

	fn inputs() -> (Vec<f32>, Params, Vec<f32>) {
		let len = N.rows() * N.d;
		(check::values(len, 20, 1.0), params(30), check::values(len, 40, 1.0))
	}

	fn all(p: &Params) -> [&Vec<f32>; 8] {
		[&p.wq, &p.bq, &p.wk, &p.bk, &p.wv, &p.bv, &p.wo, &p.bo]
	}

	#[test]
	fn the_bits_do_not_depend_on_the_thread_count() {
		par::set_min_parallel_work(0);
		let (x, p, dy) = inputs();
		let one = forward(&x, &p, &N, 1).unwrap();
		let g1 = backward(&x, &p, &one, &dy, &N, 1).unwrap();
		for threads in [2, 3] {
			let f = forward(&x, &p, &N, threads).unwrap();
			let g = backward(&x, &p, &f, &dy, &N, threads).unwrap();
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
		assert_eq!(forward(&x, &p, &Shape { heads: 3, ..N }, 1), Err(ReproError::ShapeMismatch));
		assert_eq!(forward(&x, &p, &Shape { heads: 0, ..N }, 1), Err(ReproError::ShapeMismatch));
		assert_eq!(forward(&x[1..], &p, &N, 1), Err(ReproError::ShapeMismatch));
		let short = Params { bo: vec![0.0; N.d - 1], ..p };
		assert_eq!(forward(&x, &short, &N, 1), Err(ReproError::ShapeMismatch));
	}

	/// Each head of each sequence is the single head of [`attention`] over its own rows
	/// and columns, and the output projection reads the heads side by side.
	#[test]
	fn each_head_attends_over_its_own_sequence_and_columns() {
		let (x, p, _) = inputs();
		let f = forward(&x, &p, &N, 1).unwrap();
		let dh = N.d / N.heads;
		for head in Head::all(N, dh) {
			let (q, k, v) = (head.of(&f.q), head.of(&f.k), head.of(&f.v));
			let alone = attention::forward(&q, &k, &v, N.t, dh, 1).unwrap();
			assert_eq!(bits(&head.of(&f.o)), bits(&alone.o), "{:?}, {}", head.rows, head.col);
		}
		let y = project(&f.o, &p.wo, &p.bo, N.rows(), N.d, 1).unwrap();
		assert_eq!(bits(&f.y), bits(&y));
	}

	/// A position sees neither a later position of its sequence nor another sequence.
	#[test]
	fn a_position_sees_only_its_own_sequence_up_to_itself() {
		let (mut x, p, _) = inputs();
		let first = forward(&x, &p, &N, 1).unwrap();
		let last = (N.t - 1) * N.d;
		for v in x[last..N.t * N.d].iter_mut() {
			*v = *v + 3.0;
		}
		let changed = forward(&x, &p, &N, 1).unwrap();
		assert_eq!(bits(&first.y[..last]), bits(&changed.y[..last]));
		assert_ne!(bits(&first.y[last..N.t * N.d]), bits(&changed.y[last..N.t * N.d]));
		assert_eq!(bits(&first.y[N.t * N.d..]), bits(&changed.y[N.t * N.d..]), "the second");
	}

	#[test]
	fn the_gradients_match_finite_differences() {
		let (x, p, dy) = inputs();
		let f = forward(&x, &p, &N, 1).unwrap();
		let g = backward(&x, &p, &f, &dy, &N, 1).unwrap();
		let out = |x: &[f32], p: &Params| forward(x, p, &N, 1).unwrap().y;
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
