//! The one matrix-multiply kernel every dot-product op runs on.
//!
//! `out[i][j] = init(i, j) + a[i][0] * b[0][j] + a[i][1] * b[1][j] + ...`, accumulated
//! left to right in f32, one multiply then one add per term. Tiles of `MR x NR` outputs
//! keep their accumulators in registers and walk `t` in order for every output at once,
//! so the compiler vectorises across outputs, never inside one output's sum.

use crate::{par, ReproError, Result};
use alloc::vec::Vec;

/// Where an output's accumulator starts.
#[derive(Clone, Copy, Debug)]
pub enum Init<'a> {
	/// At `+0.0`.
	Zero,
	/// At `v[j]` (a bias per output column).
	Col(&'a [f32]),
	/// At `v[i]` (a bias per output row).
	Row(&'a [f32]),
}

impl Init<'_> {
	#[inline(always)]
	fn at(&self, i: usize, j: usize) -> f32 {
		match self {
			Init::Zero => 0.0,
			Init::Col(v) => v.get(j).copied().unwrap_or(0.0),
			Init::Row(v) => v.get(i).copied().unwrap_or(0.0),
		}
	}
}

const MR: usize = 4;
const NR: usize = 8;

/// `out (m x n) = init + a (m x k, row-major) * b (k x n, row-major)` on `threads` threads.
#[allow(clippy::too_many_arguments)]
pub fn matmul(
	a: &[f32],
	b: &[f32],
	m: usize,
	k: usize,
	n: usize,
	init: Init,
	out: &mut [f32],
	threads: usize,
) -> Result<()> {
	if a.len() != m * k || b.len() != k * n || out.len() != m * n {
		return Err(ReproError::ShapeMismatch);
	}
	match init {
		Init::Col(v) if v.len() != n => return Err(ReproError::ShapeMismatch),
		Init::Row(v) if v.len() != m => return Err(ReproError::ShapeMismatch),
		_ => {}
	}
	if n == 0 || m == 0 {
		return Ok(());
	}
	// Rows per thread are a multiple of MR so that tiles stay whole (bits do not depend
	// on this: each element's arithmetic is the same in any tile).
	let rows_per_task = MR;
	let row_len = n * rows_per_task;
	let full = (m / rows_per_task) * row_len;
	let (head, tail) = out.split_at_mut(full);
	par::for_rows(head, row_len, threads, |first, chunk| {
		let rows = chunk.len() / n;
		block(a, b, k, n, first * rows_per_task, rows, init, chunk);
	});
	let rows = tail.len() / n;
	block(a, b, k, n, m - rows, rows, init, tail);
	Ok(())
}

/// Computes rows `i0 .. i0 + rows` of the product into `out` (those rows only).
#[allow(clippy::too_many_arguments)]
fn block(
	a: &[f32],
	b: &[f32],
	k: usize,
	n: usize,
	i0: usize,
	rows: usize,
	init: Init,
	out: &mut [f32],
) {
	let mut pack: Vec<f32> = Vec::with_capacity(k * MR);
	let mut r = 0;
	while r + MR <= rows {
		pack_a::<MR>(a, k, i0 + r, &mut pack);
		tile_row::<MR>(
			&pack,
			b,
			k,
			n,
			i0 + r,
			init,
			out.get_mut(r * n..(r + MR) * n).unwrap_or(&mut []),
		);
		r += MR;
	}
	while r < rows {
		pack_a::<1>(a, k, i0 + r, &mut pack);
		tile_row::<1>(
			&pack,
			b,
			k,
			n,
			i0 + r,
			init,
			out.get_mut(r * n..(r + 1) * n).unwrap_or(&mut []),
		);
		r += 1;
	}
}

/// Packs rows `i .. i + R` of `a` as `pack[t * R + r] = a[i + r][t]`.
fn pack_a<const R: usize>(a: &[f32], k: usize, i: usize, pack: &mut Vec<f32>) {
	pack.clear();
	pack.resize(k * R, 0.0);
	for r in 0..R {
		if let Some(row) = a.get((i + r) * k..(i + r + 1) * k) {
			for (t, x) in row.iter().enumerate() {
				if let Some(p) = pack.get_mut(t * R + r) {
					*p = *x;
				}
			}
		}
	}
}

/// All columns of `R` rows: full `NR` tiles, then single columns.
fn tile_row<const R: usize>(
	pack: &[f32],
	b: &[f32],
	k: usize,
	n: usize,
	i: usize,
	init: Init,
	out: &mut [f32],
) {
	let mut j = 0;
	while j + NR <= n {
		tile::<R, NR>(pack, b, k, n, i, j, init, out);
		j += NR;
	}
	while j < n {
		tile::<R, 1>(pack, b, k, n, i, j, init, out);
		j += 1;
	}
}

#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn tile<const R: usize, const C: usize>(
	pack: &[f32],
	b: &[f32],
	k: usize,
	n: usize,
	i: usize,
	j: usize,
	init: Init,
	out: &mut [f32],
) {
	let mut acc = [[0.0f32; C]; R];
	for (r, row) in acc.iter_mut().enumerate() {
		for (c, x) in row.iter_mut().enumerate() {
			*x = init.at(i + r, j + c);
		}
	}
	for (ap, brow) in pack.chunks_exact(R).zip(b.chunks_exact(n)).take(k) {
		let Some(bs) = brow.get(j..j + C) else { return };
		let Ok(bv) = <&[f32; C]>::try_from(bs) else { return };
		for r in 0..R {
			let av = ap[r];
			let row = &mut acc[r];
			for c in 0..C {
				let p = av * bv[c];
				row[c] = row[c] + p;
			}
		}
	}
	for (r, row) in acc.iter().enumerate() {
		if let Some(dst) = out.get_mut(r * n + j..r * n + j + C) {
			dst.copy_from_slice(row);
		}
	}
}

/// Transposes `x (rows x cols)` into `out (cols x rows)`.
pub fn transpose(x: &[f32], rows: usize, cols: usize, out: &mut Vec<f32>) {
	out.clear();
	out.resize(rows * cols, 0.0);
	for (r, row) in x.chunks_exact(cols.max(1)).take(rows).enumerate() {
		for (c, v) in row.iter().enumerate() {
			if let Some(o) = out.get_mut(c * rows + r) {
				*o = *v;
			}
		}
	}
}
