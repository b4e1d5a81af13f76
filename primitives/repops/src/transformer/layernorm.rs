//! LayerNorm over the last dimension: rows of `d` features, each normalised on its own
//! and then scaled and shifted per feature (PyTorch's `LayerNorm(d)`, biased variance).
//!
//! Every sum is one sequential accumulator from `+0`, in feature order within a row and
//! in row order across rows. Per row `x`:
//!
//! - `mean = (sum_j x_j) / d`, `var = (sum_j (x_j - mean) * (x_j - mean)) / d`;
//! - `rstd = 1 / sqrt(var + eps)`, `xhat_j = (x_j - mean) * rstd`;
//! - `y_j = xhat_j * gamma_j + beta_j` (the product rounded, then the sum).
//!
//! Backward, with `g_j = dy_j * gamma_j`, `a = (sum_j g_j) / d` and
//! `b = (sum_j g_j * xhat_j) / d` per row:
//!
//! - `dx_j = rstd * ((g_j - a) - xhat_j * b)`;
//! - `dgamma_j = sum_rows dy_j * xhat_j`, `dbeta_j = sum_rows dy_j`.
//!
//! The backward pass recomputes `xhat` from `x` and the row's saved `mean` and `rstd`
//! with [`normalized_at`], the function the forward pass used, so it reads the same bits.

use crate::{par, ReproError, Result};
use alloc::vec::Vec;

/// Work per element, in [`par::threads_for`] units: a few passes over each row.
const WORK_PER_ELEM: usize = 8;

/// The per-row statistics the forward pass keeps for the backward pass.
#[derive(Clone, PartialEq, Debug, Default)]
pub struct RowStats {
	/// Each row's mean.
	pub mean: Vec<f32>,
	/// Each row's `1 / sqrt(var + eps)`.
	pub rstd: Vec<f32>,
}

/// `(x - mean) * rstd`.
#[inline(always)]
pub fn normalized_at(x: f32, mean: f32, rstd: f32) -> f32 {
	(x - mean) * rstd
}

/// `(x - mean) * (x - mean)`: one term of the variance's sum.
#[inline(always)]
pub fn square_step(acc: f32, x: f32, mean: f32) -> f32 {
	let c = x - mean;
	acc + c * c
}

/// `1 / sqrt(sum / d + eps)`, from the variance's sum.
#[inline(always)]
pub fn rstd_of(square_sum: f32, d: usize, eps: f32) -> f32 {
	let var = square_sum / d as f32;
	1.0 / libm::sqrtf(var + eps)
}

/// `xhat * gamma + beta`.
#[inline(always)]
pub fn affine_at(xhat: f32, gamma: f32, beta: f32) -> f32 {
	xhat * gamma + beta
}

/// `rstd * ((g - a) - xhat * b)`.
#[inline(always)]
pub fn input_grad_at(rstd: f32, g: f32, a: f32, xhat: f32, b: f32) -> f32 {
	rstd * centred_grad_at(g, a, xhat, b)
}

/// `(g - a) - xhat * b`: [`input_grad_at`] before its row's `rstd`.
#[inline(always)]
pub fn centred_grad_at(g: f32, a: f32, xhat: f32, b: f32) -> f32 {
	(g - a) - xhat * b
}

/// The mean and `rstd` of one row.
fn row_stats(row: &[f32], eps: f32) -> (f32, f32) {
	let d = row.len();
	let mut sum = 0.0f32;
	for v in row {
		sum = sum + *v;
	}
	let mean = sum / d as f32;
	let mut squares = 0.0f32;
	for v in row {
		squares = square_step(squares, *v, mean);
	}
	(mean, rstd_of(squares, d, eps))
}

/// Checks that `x` is whole rows of `d` and that `gamma` has `d` features.
fn rows_of(x: &[f32], d: usize, gamma: &[f32]) -> Result<usize> {
	if d == 0 || !x.len().is_multiple_of(d) || gamma.len() != d {
		return Err(ReproError::ShapeMismatch);
	}
	Ok(x.len() / d)
}

/// `out = LayerNorm(x)` over rows of `d` features; returns the rows' statistics.
pub fn forward(
	x: &[f32],
	d: usize,
	gamma: &[f32],
	beta: &[f32],
	eps: f32,
	out: &mut [f32],
	threads: usize,
) -> Result<RowStats> {
	let rows = rows_of(x, d, gamma)?;
	if beta.len() != d || out.len() != x.len() {
		return Err(ReproError::ShapeMismatch);
	}
	let threads = par::threads_for(x.len().saturating_mul(WORK_PER_ELEM), threads);
	// The statistics, a row each: computed per row whatever the cut.
	let stats: Vec<(f32, f32)> = par::map_ranges(rows, threads, |range| {
		range.filter_map(|r| x.get(r * d..(r + 1) * d)).map(|row| row_stats(row, eps)).collect()
	})
	.into_iter()
	.flat_map(|piece: Vec<(f32, f32)>| piece)
	.collect();
	par::for_rows(out, d, threads, |first, piece| {
		for (i, orow) in piece.chunks_exact_mut(d).enumerate() {
			let r = first + i;
			let (Some(row), Some(&(mean, rstd))) = (x.get(r * d..(r + 1) * d), stats.get(r)) else {
				return;
			};
			for (((o, v), g), b) in orow.iter_mut().zip(row).zip(gamma).zip(beta) {
				*o = affine_at(normalized_at(*v, mean, rstd), *g, *b);
			}
		}
	});
	Ok(RowStats {
		mean: stats.iter().map(|s| s.0).collect(),
		rstd: stats.iter().map(|s| s.1).collect(),
	})
}

/// The gradients of [`forward`]: `(dx, dgamma, dbeta)`, from the input `x`, the output
/// gradient `dy` and the forward pass's statistics.
pub fn backward(
	x: &[f32],
	d: usize,
	gamma: &[f32],
	stats: &RowStats,
	dy: &[f32],
	threads: usize,
) -> Result<(Vec<f32>, Vec<f32>, Vec<f32>)> {
	let rows = rows_of(x, d, gamma)?;
	if dy.len() != x.len() || stats.mean.len() != rows || stats.rstd.len() != rows {
		return Err(ReproError::ShapeMismatch);
	}
	let threads = par::threads_for(x.len().saturating_mul(WORK_PER_ELEM), threads);
	let at = |r: usize| -> Option<(&[f32], &[f32], f32, f32)> {
		Some((
			x.get(r * d..(r + 1) * d)?,
			dy.get(r * d..(r + 1) * d)?,
			*stats.mean.get(r)?,
			*stats.rstd.get(r)?,
		))
	};
	let mut dx = alloc::vec![0.0f32; x.len()];
	par::for_rows(&mut dx, d, threads, |first, piece| {
		for (i, orow) in piece.chunks_exact_mut(d).enumerate() {
			let Some((row, drow, mean, rstd)) = at(first + i) else { return };
			let (mut a, mut b) = (0.0f32, 0.0f32);
			for ((v, dv), g) in row.iter().zip(drow).zip(gamma) {
				let gj = *dv * *g;
				a = a + gj;
				b = b + gj * normalized_at(*v, mean, rstd);
			}
			let (a, b) = (a / d as f32, b / d as f32);
			for (((o, v), dv), g) in orow.iter_mut().zip(row).zip(drow).zip(gamma) {
				let xhat = normalized_at(*v, mean, rstd);
				*o = input_grad_at(rstd, *dv * *g, a, xhat, b);
			}
		}
	});
	// Per feature, sums over the rows in row order; threads split the features.
	let (mut dgamma, mut dbeta) = (alloc::vec![0.0f32; d], alloc::vec![0.0f32; d]);
	par::for_rows(&mut dgamma, 1, threads, |first, piece| {
		for (k, o) in piece.iter_mut().enumerate() {
			let j = first + k;
			let mut acc = 0.0f32;
			for r in 0..rows {
				let Some((row, drow, mean, rstd)) = at(r) else { return };
				let (Some(v), Some(dv)) = (row.get(j), drow.get(j)) else { return };
				acc = acc + *dv * normalized_at(*v, mean, rstd);
			}
			*o = acc;
		}
	});
	par::for_rows(&mut dbeta, 1, threads, |first, piece| {
		for (k, o) in piece.iter_mut().enumerate() {
			let j = first + k;
			let mut acc = 0.0f32;
			for r in 0..rows {
				acc = acc + dy.get(r * d + j).copied().unwrap_or(0.0);
			}
			*o = acc;
		}
	});
	Ok((dx, dgamma, dbeta))
}

#[cfg(test)]
mod tests {
	use super::*;
	use crate::transformer::check::{self, bits};
	use alloc::vec;

	const EPS: f32 = 1e-5;

	/// The definition, one row and one feature at a time.
	fn reference(
		x: &[f32],
		d: usize,
		gamma: &[f32],
		beta: &[f32],
		dy: &[f32],
	) -> (Vec<f32>, Vec<f32>, Vec<f32>, Vec<f32>) {
		let rows = x.len() / d;
		let (mut y, mut dx) = (vec![0.0; x.len()], vec![0.0; x.len()]);
		let (mut dgamma, mut dbeta) = (vec![0.0f32; d], vec![0.0f32; d]);
		for r in 0..rows {
			let row = &x[r * d..(r + 1) * d];
			let (mean, rstd) = row_stats(row, EPS);
			let (mut a, mut b) = (0.0f32, 0.0f32);
			for j in 0..d {
				let xhat = normalized_at(row[j], mean, rstd);
				y[r * d + j] = affine_at(xhat, gamma[j], beta[j]);
				a = a + dy[r * d + j] * gamma[j];
				b = b + (dy[r * d + j] * gamma[j]) * xhat;
			}
			for j in 0..d {
				let xhat = normalized_at(row[j], mean, rstd);
				let g = dy[r * d + j] * gamma[j];
				dx[r * d + j] = input_grad_at(rstd, g, a / d as f32, xhat, b / d as f32);
			}
		}
		for j in 0..d {
			for r in 0..rows {
				let (mean, rstd) = row_stats(&x[r * d..(r + 1) * d], EPS);
				dgamma[j] = dgamma[j] + dy[r * d + j] * normalized_at(x[r * d + j], mean, rstd);
				dbeta[j] = dbeta[j] + dy[r * d + j];
			}
		}
		(y, dx, dgamma, dbeta)
	}

	#[test]
	fn both_directions_follow_the_definition_on_any_thread_count() {
		par::set_min_parallel_work(0);
		let (rows, d) = (37, 24);
		let x = check::values(rows * d, 1, 3.0);
		let dy = check::values(rows * d, 2, 1.0);
		let gamma = check::values(d, 3, 2.0);
		let beta = check::values(d, 4, 1.0);
		let (y0, dx0, dg0, db0) = reference(&x, d, &gamma, &beta, &dy);
		for threads in [1, 2, 3] {
			let mut y = vec![7.0; x.len()];
			let stats = forward(&x, d, &gamma, &beta, EPS, &mut y, threads).unwrap();
			let (dx, dg, db) = backward(&x, d, &gamma, &stats, &dy, threads).unwrap();
			assert_eq!(bits(&y), bits(&y0), "forward, {threads} threads");
			assert_eq!(bits(&dx), bits(&dx0), "dx, {threads} threads");
			assert_eq!(bits(&dg), bits(&dg0), "dgamma, {threads} threads");
			assert_eq!(bits(&db), bits(&db0), "dbeta, {threads} threads");
		}
		let mut y = vec![0.0; x.len()];
		assert_eq!(forward(&x, 25, &gamma, &beta, EPS, &mut y, 1), Err(ReproError::ShapeMismatch));
		assert_eq!(
			forward(&x, d, &gamma[1..], &beta, EPS, &mut y, 1),
			Err(ReproError::ShapeMismatch)
		);
		assert_eq!(forward(&x, 0, &[], &[], EPS, &mut y, 1), Err(ReproError::ShapeMismatch));
	}

	#[test]
	fn rows_come_out_normalised_and_the_gradients_match_finite_differences() {
		let (rows, d) = (5, 16);
		let x = check::values(rows * d, 5, 4.0);
		let (ones, zeros) = (vec![1.0; d], vec![0.0; d]);
		let mut y = vec![0.0; x.len()];
		forward(&x, d, &ones, &zeros, EPS, &mut y, 1).unwrap();
		for row in y.chunks_exact(d) {
			let mean: f32 = row.iter().sum::<f32>() / d as f32;
			let var: f32 = row.iter().map(|v| (v - mean) * (v - mean)).sum::<f32>() / d as f32;
			assert!(mean.abs() < 1e-5 && (var - 1.0).abs() < 1e-3, "mean {mean}, var {var}");
		}
		// eps sits inside the square root: a row of variance 1 comes out scaled by
		// 1 / sqrt(1 + eps), not by 1 / (1 + eps).
		let mut two = [0.0f32; 2];
		forward(&[1.0, 3.0], 2, &[1.0; 2], &[0.0; 2], 0.01, &mut two, 1).unwrap();
		assert!((two[1] - 1.0 / 1.01f32.sqrt()).abs() < 1e-6, "{}", two[1]);
		let gamma = check::values(d, 6, 2.0);
		let beta = check::values(d, 7, 1.0);
		let dy = check::values(rows * d, 8, 1.0);
		let stats = forward(&x, d, &gamma, &beta, EPS, &mut y, 1).unwrap();
		let (dx, dgamma, dbeta) = backward(&x, d, &gamma, &stats, &dy, 1).unwrap();
		let run = |x: &[f32], gamma: &[f32], beta: &[f32]| {
			let mut y = vec![0.0; x.len()];
			forward(x, d, gamma, beta, EPS, &mut y, 1).unwrap();
			y
		};
		check::finite_differences(&x, &dy, &dx, 1e-2, 5e-3, |x| run(x, &gamma, &beta));
		check::finite_differences(&gamma, &dy, &dgamma, 1e-2, 5e-3, |g| run(&x, g, &beta));
		check::finite_differences(&beta, &dy, &dbeta, 1e-2, 5e-3, |b| run(&x, &gamma, b));
	}
}
