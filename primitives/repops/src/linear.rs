//! `Linear` forward and backward (fast path). Definitions: [`crate::graph::OpKind`].

use crate::{
	kernel::{gemm, Init, View},
	ReproError, Result,
};

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
	if x.len() != batch * fin || w.len() != fin * fout {
		return Err(ReproError::ShapeMismatch);
	}
	// b[i][o] = w[o][i]
	let xv = View { d: x, rs: fin, cs: 1 };
	let wv = View { d: w, rs: 1, cs: fin };
	gemm(xv, wv, batch, fin, fout, Init::Col(bias), false, out, threads)
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
	if dy.len() != batch * fout || w.len() != fin * fout {
		return Err(ReproError::ShapeMismatch);
	}
	let dyv = View { d: dy, rs: fout, cs: 1 };
	let wv = View { d: w, rs: fin, cs: 1 };
	gemm(dyv, wv, batch, fout, fin, Init::Zero, false, out, threads)
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
	if dy.len() != batch * fout || x.len() != batch * fin {
		return Err(ReproError::ShapeMismatch);
	}
	// a[o][b] = dy[b][o]
	let dyv = View { d: dy, rs: 1, cs: fout };
	let xv = View { d: x, rs: fin, cs: 1 };
	gemm(dyv, xv, fout, batch, fin, Init::Zero, false, out, threads)
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
