//! One head of causal self-attention over one sequence, composed of fixed-order
//! operators: `q`, `k`, `v` are `t x dh` (row-major, one row per position) and
//! `scale = 1 / sqrt(dh)`.
//!
//! - forward: `s = (q k^T) * scale` (each product one [`kernel::matmul`] sum over the
//!   head's features, then scaled), `p = causal_softmax(s)`, `o = p v` (a sum over all
//!   `t` keys in order, masked ones adding `+0 * v`);
//! - backward, from `do`: `dp = do v^T`, `dv = p^T do`, `ds = causal_softmax'(p, dp) *
//!   scale`, `dq = ds k`, `dk = ds^T q`.
//!
//! Scores of masked positions are computed and never read, so the work is the plain
//! `t x t` product's; the bits do not depend on it. The products are plain ones: a
//! masked key adds `+0 * v` to an earlier position's output (and `+0 * k` to its `dq`),
//! which changes no bit while `v` and `k` are finite; a non-finite value at a later
//! position (a diverged state) makes those outputs `NaN`, as in PyTorch.

use super::causal_softmax;
use crate::{
	kernel::{self, Init},
	ReproError, Result,
};
use alloc::{vec, vec::Vec};

/// What the forward pass keeps for the backward pass, and its output.
#[derive(Clone, PartialEq, Debug)]
pub struct Forward {
	/// The attention weights, `t x t`, `+0` above the diagonal.
	pub p: Vec<f32>,
	/// The head's output, `t x dh`.
	pub o: Vec<f32>,
}

/// The gradients of the head's inputs.
#[derive(Clone, PartialEq, Debug)]
pub struct Grads {
	/// Of `q`.
	pub dq: Vec<f32>,
	/// Of `k`.
	pub dk: Vec<f32>,
	/// Of `v`.
	pub dv: Vec<f32>,
}

/// `1 / sqrt(dh)`.
pub fn scale(dh: usize) -> f32 {
	1.0 / libm::sqrtf(dh as f32)
}

fn shapes(t: usize, dh: usize, tensors: &[&[f32]]) -> Result<()> {
	t.checked_mul(t).ok_or(ReproError::ShapeMismatch)?;
	let n = t.checked_mul(dh).filter(|n| *n > 0).ok_or(ReproError::ShapeMismatch)?;
	if tensors.iter().any(|x| x.len() != n) {
		return Err(ReproError::ShapeMismatch);
	}
	Ok(())
}

fn transposed(x: &[f32], rows: usize, cols: usize) -> Vec<f32> {
	let mut out = Vec::new();
	kernel::transpose(x, rows, cols, &mut out);
	out
}

/// `x * s`, element by element.
fn scaled(mut x: Vec<f32>, s: f32) -> Vec<f32> {
	for v in x.iter_mut() {
		*v = *v * s;
	}
	x
}

/// The forward pass.
pub fn forward(
	q: &[f32],
	k: &[f32],
	v: &[f32],
	t: usize,
	dh: usize,
	threads: usize,
) -> Result<Forward> {
	shapes(t, dh, &[q, k, v])?;
	let mut raw = vec![0.0f32; t * t];
	kernel::matmul(q, &transposed(k, t, dh), t, dh, t, Init::Zero, &mut raw, threads)?;
	let s = scaled(raw, scale(dh));
	let mut p = vec![0.0f32; t * t];
	causal_softmax::forward(&s, t, &mut p, threads)?;
	let mut o = vec![0.0f32; t * dh];
	kernel::matmul(&p, v, t, t, dh, Init::Zero, &mut o, threads)?;
	Ok(Forward { p, o })
}

/// The backward pass from the output's gradient `d_o`.
#[allow(clippy::too_many_arguments)]
pub fn backward(
	q: &[f32],
	k: &[f32],
	v: &[f32],
	p: &[f32],
	d_o: &[f32],
	t: usize,
	dh: usize,
	threads: usize,
) -> Result<Grads> {
	shapes(t, dh, &[q, k, v, d_o])?;
	if p.len() != t * t {
		return Err(ReproError::ShapeMismatch);
	}
	let mut dp = vec![0.0f32; t * t];
	kernel::matmul(d_o, &transposed(v, t, dh), t, dh, t, Init::Zero, &mut dp, threads)?;
	let mut dv = vec![0.0f32; t * dh];
	kernel::matmul(&transposed(p, t, t), d_o, t, t, dh, Init::Zero, &mut dv, threads)?;
	let mut ds = vec![0.0f32; t * t];
	causal_softmax::backward(p, &dp, t, &mut ds, threads)?;
	let ds = scaled(ds, scale(dh));
	let mut dq = vec![0.0f32; t * dh];
	kernel::matmul(&ds, k, t, t, dh, Init::Zero, &mut dq, threads)?;
	let mut dk = vec![0.0f32; t * dh];
	kernel::matmul(&transposed(&ds, t, t), q, t, t, dh, Init::Zero, &mut dk, threads)?;
	Ok(Grads { dq, dk, dv })
}

#[cfg(test)]
mod tests {
	use super::*;
	use crate::{
		par,
		transformer::check::{self, bits},
	};

	const T: usize = 9;
	const DH: usize = 4;

	fn inputs() -> [Vec<f32>; 4] {
		[1, 2, 3, 4].map(|seed| check::values(T * DH, seed, 1.5))
	}

	#[test]
	fn the_bits_do_not_depend_on_the_thread_count() {
		par::set_min_parallel_work(0);
		let [q, k, v, d_o] = inputs();
		let one = forward(&q, &k, &v, T, DH, 1).unwrap();
		let g1 = backward(&q, &k, &v, &one.p, &d_o, T, DH, 1).unwrap();
		for threads in [2, 3] {
			let f = forward(&q, &k, &v, T, DH, threads).unwrap();
			let g = backward(&q, &k, &v, &f.p, &d_o, T, DH, threads).unwrap();
			assert_eq!((bits(&f.p), bits(&f.o)), (bits(&one.p), bits(&one.o)), "{threads} threads");
			for (a, b) in [(&g.dq, &g1.dq), (&g.dk, &g1.dk), (&g.dv, &g1.dv)] {
				assert_eq!(bits(a), bits(b), "{threads} threads");
			}
		}
		assert_eq!(forward(&q, &k, &v[1..], T, DH, 1), Err(ReproError::ShapeMismatch));
		assert_eq!(forward(&q, &k, &v, T, 0, 1), Err(ReproError::ShapeMismatch));
	}

	/// The definition, one element at a time: each product's sum over features, then
	/// the scale; the softmax's own definition is checked in its module.
	#[test]
	fn the_forward_pass_follows_the_definition() {
		let [q, k, v, _] = inputs();
		let f = forward(&q, &k, &v, T, DH, 1).unwrap();
		let mut s = vec![0.0f32; T * T];
		for i in 0..T {
			for j in 0..T {
				let mut acc = 0.0f32;
				for c in 0..DH {
					acc = acc + q[i * DH + c] * k[j * DH + c];
				}
				s[i * T + j] = acc * scale(DH);
			}
		}
		let mut p = vec![0.0f32; T * T];
		causal_softmax::forward(&s, T, &mut p, 1).unwrap();
		assert_eq!(bits(&p), bits(&f.p));
		for i in 0..T {
			for c in 0..DH {
				let mut acc = 0.0f32;
				for j in 0..T {
					acc = acc + p[i * T + j] * v[j * DH + c];
				}
				assert_eq!(acc.to_bits(), f.o[i * DH + c].to_bits(), "output {i}, {c}");
			}
		}
	}

	#[test]
	fn a_position_attends_to_itself_and_earlier_ones_only() {
		let [q, k, mut v, _] = inputs();
		let first = forward(&q, &k, &v, T, DH, 1).unwrap();
		// Changing the last position's value changes no earlier output.
		for x in v[(T - 1) * DH..].iter_mut() {
			*x = *x + 10.0;
		}
		let changed = forward(&q, &k, &v, T, DH, 1).unwrap();
		assert_eq!(first.o[..(T - 1) * DH], changed.o[..(T - 1) * DH]);
		assert_ne!(first.o[(T - 1) * DH..], changed.o[(T - 1) * DH..]);
		// The first position sees only itself, with all its weight.
		assert_eq!(first.p[0], 1.0);
	}

	#[test]
	fn the_gradients_match_finite_differences() {
		let [q, k, v, d_o] = inputs();
		let f = forward(&q, &k, &v, T, DH, 1).unwrap();
		let g = backward(&q, &k, &v, &f.p, &d_o, T, DH, 1).unwrap();
		let out = |q: &[f32], k: &[f32], v: &[f32]| forward(q, k, v, T, DH, 1).unwrap().o;
		check::finite_differences(&q, &d_o, &g.dq, 1e-2, 5e-3, |x| out(x, &k, &v));
		check::finite_differences(&k, &d_o, &g.dk, 1e-2, 5e-3, |x| out(&q, x, &v));
		check::finite_differences(&v, &d_o, &g.dv, 1e-2, 5e-3, |x| out(&q, &k, x));
	}
}
