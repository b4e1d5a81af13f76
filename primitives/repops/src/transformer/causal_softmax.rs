//! Softmax over attention scores under a causal mask: `n` independent `t x t` score
//! matrices (a batch's heads), where the query at position `i` sees the keys at
//! positions `0..=i` only.
//!
//! Row `i` of a matrix, `z` its scores, each sum one sequential accumulator over
//! `j = 0..=i` in order:
//!
//! - `m = max_j z_j` (from `-inf`, [`max_step`]), `s = sum_j exp(z_j - m)` (from `+0`);
//! - `p_j = exp(z_j - m) / s` for `j <= i`, and `+0` for the masked `j > i`.
//!
//! Backward, with `dp` the gradient of `p` and `dot = sum_{j <= i} p_j * dp_j`:
//! `dz_j = p_j * (dp_j - dot)` for `j <= i`, and `+0` for `j > i`. Masked scores never
//! enter a sum, so a masked `-inf`, `NaN` or huge score changes no bit.

use crate::{
	loss::{max_step, shifted_exp},
	par, ReproError, Result,
};

/// Work per element, in [`par::threads_for`] units: an exp and three passes.
const WORK_PER_ELEM: usize = 16;

/// The probability of one unmasked score: `exp(z - m) / s`.
#[inline(always)]
pub fn probability_at(z: f32, m: f32, s: f32) -> f32 {
	shifted_exp(z, m) / s
}

/// The gradient of one unmasked score: `p * (dp - dot)`.
#[inline(always)]
pub fn score_grad_at(p: f32, dp: f32, dot: f32) -> f32 {
	p * (dp - dot)
}

/// The sequence length of `n` matrices of `t x t` in `len` values.
fn matrices(len: usize, t: usize) -> Result<()> {
	if t == 0 || !len.is_multiple_of(t.saturating_mul(t)) {
		return Err(ReproError::ShapeMismatch);
	}
	Ok(())
}

/// `out = causal_softmax(z)` over matrices of `t x t`.
pub fn forward(z: &[f32], t: usize, out: &mut [f32], threads: usize) -> Result<()> {
	matrices(z.len(), t)?;
	if out.len() != z.len() {
		return Err(ReproError::ShapeMismatch);
	}
	let threads = par::threads_for(out.len().saturating_mul(WORK_PER_ELEM), threads);
	par::for_rows(out, t, threads, |first, piece| {
		for (k, orow) in piece.chunks_exact_mut(t).enumerate() {
			let r = first + k;
			let Some(row) = z.get(r * t..(r + 1) * t) else { return };
			let seen = r % t + 1;
			let (visible, _) = row.split_at(seen);
			let m = visible.iter().fold(f32::NEG_INFINITY, |a, v| max_step(a, *v));
			let mut s = 0.0f32;
			for v in visible {
				s = s + shifted_exp(*v, m);
			}
			let (shown, masked) = orow.split_at_mut(seen);
			for (o, v) in shown.iter_mut().zip(visible) {
				*o = probability_at(*v, m, s);
			}
			masked.fill(0.0);
		}
	});
	Ok(())
}

/// `out = dz` from the forward pass's output `p` and its gradient `dp`.
pub fn backward(p: &[f32], dp: &[f32], t: usize, out: &mut [f32], threads: usize) -> Result<()> {
	matrices(p.len(), t)?;
	if dp.len() != p.len() || out.len() != p.len() {
		return Err(ReproError::ShapeMismatch);
	}
	let threads = par::threads_for(out.len().saturating_mul(WORK_PER_ELEM), threads);
	par::for_rows(out, t, threads, |first, piece| {
		for (k, orow) in piece.chunks_exact_mut(t).enumerate() {
			let r = first + k;
			let (Some(prow), Some(drow)) = (p.get(r * t..(r + 1) * t), dp.get(r * t..(r + 1) * t))
			else {
				return;
			};
			let seen = r % t + 1;
			let (pv, dv) = (&prow[..seen], &drow[..seen]);
			let mut dot = 0.0f32;
			for (a, b) in pv.iter().zip(dv) {
				dot = dot + *a * *b;
			}
			let (shown, masked) = orow.split_at_mut(seen);
			for ((o, a), b) in shown.iter_mut().zip(pv).zip(dv) {
				*o = score_grad_at(*a, *b, dot);
			}
			masked.fill(0.0);
		}
	});
	Ok(())
}

#[cfg(test)]
mod tests {
	use super::*;
	use crate::transformer::check::{self, bits};
	use alloc::{vec, vec::Vec};

	/// The definition, one element at a time.
	fn reference(z: &[f32], dp: &[f32], t: usize) -> (Vec<f32>, Vec<f32>) {
		let (mut p, mut dz) = (vec![0.0f32; z.len()], vec![0.0f32; z.len()]);
		for r in 0..z.len() / t {
			let i = r % t;
			let mut m = f32::NEG_INFINITY;
			for j in 0..=i {
				m = max_step(m, z[r * t + j]);
			}
			let mut s = 0.0f32;
			for j in 0..=i {
				s = s + shifted_exp(z[r * t + j], m);
			}
			for j in 0..=i {
				p[r * t + j] = probability_at(z[r * t + j], m, s);
			}
			let mut dot = 0.0f32;
			for j in 0..=i {
				dot = dot + p[r * t + j] * dp[r * t + j];
			}
			for j in 0..=i {
				dz[r * t + j] = score_grad_at(p[r * t + j], dp[r * t + j], dot);
			}
		}
		(p, dz)
	}

	#[test]
	fn both_directions_follow_the_definition_on_any_thread_count() {
		par::set_min_parallel_work(0);
		let (n, t) = (6, 11);
		let mut z = check::values(n * t * t, 1, 8.0);
		// Masked scores must not matter: poison them.
		for (e, v) in z.iter_mut().enumerate() {
			if e % t > (e / t) % t {
				*v = if e % 2 == 0 { f32::NAN } else { f32::INFINITY };
			}
		}
		let dp = check::values(n * t * t, 2, 1.0);
		let (p0, dz0) = reference(&z, &dp, t);
		for threads in [1, 2, 3] {
			let (mut p, mut dz) = (vec![7.0; z.len()], vec![7.0; z.len()]);
			forward(&z, t, &mut p, threads).unwrap();
			backward(&p, &dp, t, &mut dz, threads).unwrap();
			assert_eq!(bits(&p), bits(&p0), "forward, {threads} threads");
			assert_eq!(bits(&dz), bits(&dz0), "backward, {threads} threads");
		}
		for row in p0.chunks_exact(t) {
			let sum: f32 = row.iter().sum();
			assert!((sum - 1.0).abs() < 1e-5, "a row sums to {sum}");
		}
		let mut p = vec![0.0; z.len()];
		assert_eq!(forward(&z, 10, &mut p, 1), Err(ReproError::ShapeMismatch));
		assert_eq!(forward(&z, 0, &mut p, 1), Err(ReproError::ShapeMismatch));
		assert_eq!(
			backward(&p, &dp[1..], t, &mut vec![0.0; z.len()], 1),
			Err(ReproError::ShapeMismatch)
		);
	}

	#[test]
	fn the_gradient_matches_finite_differences_and_skips_masked_scores() {
		let (n, t) = (2, 7);
		let z = check::values(n * t * t, 3, 3.0);
		let dp = check::values(n * t * t, 4, 1.0);
		let mut p = vec![0.0; z.len()];
		forward(&z, t, &mut p, 1).unwrap();
		let mut dz = vec![0.0; z.len()];
		backward(&p, &dp, t, &mut dz, 1).unwrap();
		check::finite_differences(&z, &dp, &dz, 1e-2, 2e-3, |z| {
			let mut p = vec![0.0; z.len()];
			forward(z, t, &mut p, 1).unwrap();
			p
		});
		for (e, g) in dz.iter().enumerate() {
			if e % t > (e / t) % t {
				assert_eq!(g.to_bits(), 0.0f32.to_bits(), "masked score {e}");
			}
		}
	}
}
