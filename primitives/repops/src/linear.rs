//! `Linear` forward and backward (fast path). Definitions: [`crate::graph::OpKind`].

use crate::{
	kernel::{matmul, transpose, Init},
	ReproError, Result,
};
use alloc::vec::Vec;

/// `y[b,o] = bias[o] + sum_i x[b,i] * w[o,i]`.
#[allow(clippy::too_many_arguments)]
pub fn forward(
	x: &[f32],
	w: &[f32],
	bias: &[f32],
	batch: usize,
	fin: usize,
	fout: usize,
	out: &mut [f32],
	threads: usize,
) -> Result<()> {
	let mut wt = Vec::new();
	if w.len() != fin * fout {
		return Err(ReproError::ShapeMismatch);
	}
	transpose(w, fout, fin, &mut wt);
	matmul(x, &wt, batch, fin, fout, Init::Col(bias), out, threads)
}

/// `dx[b,i] = sum_o dy[b,o] * w[o,i]`.
#[allow(clippy::too_many_arguments)]
pub fn backward_input(
	dy: &[f32],
	w: &[f32],
	batch: usize,
	fin: usize,
	fout: usize,
	out: &mut [f32],
	threads: usize,
) -> Result<()> {
	matmul(dy, w, batch, fout, fin, Init::Zero, out, threads)
}

/// `dw[o,i] = sum_b dy[b,o] * x[b,i]`.
#[allow(clippy::too_many_arguments)]
pub fn backward_weight(
	dy: &[f32],
	x: &[f32],
	batch: usize,
	fin: usize,
	fout: usize,
	out: &mut [f32],
	threads: usize,
) -> Result<()> {
	if dy.len() != batch * fout {
		return Err(ReproError::ShapeMismatch);
	}
	let mut dyt = Vec::new();
	transpose(dy, batch, fout, &mut dyt);
	matmul(&dyt, x, fout, batch, fin, Init::Zero, out, threads)
}

/// `db[o] = sum_b dy[b,o]` (from +0, in batch order).
pub fn backward_bias(dy: &[f32], batch: usize, fout: usize, out: &mut [f32]) -> Result<()> {
	if dy.len() != batch * fout || out.len() != fout {
		return Err(ReproError::ShapeMismatch);
	}
	out.fill(0.0);
	for row in dy.chunks_exact(fout.max(1)) {
		for (o, d) in out.iter_mut().zip(row) {
			*o = *o + *d;
		}
	}
	Ok(())
}
