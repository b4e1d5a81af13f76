//! Element-wise ops over whole buffers: each output element is a function of the inputs
//! at its own index, so threads split the buffer anywhere without changing a bit.

use crate::{par, ReproError, Result};

/// `out[i] = f(x[i])`, on up to `threads` threads once the op's work (`work_per_elem`
/// per element, in [`par::threads_for`] units) is worth splitting.
pub fn map1(
	x: &[f32],
	out: &mut [f32],
	work_per_elem: usize,
	threads: usize,
	f: impl Fn(f32) -> f32 + Sync,
) -> Result<()> {
	if x.len() != out.len() {
		return Err(ReproError::ShapeMismatch);
	}
	let threads = par::threads_for(out.len().saturating_mul(work_per_elem), threads);
	par::for_rows(out, 1, threads, |first, piece| {
		let Some(x) = x.get(first..) else { return };
		for (o, v) in piece.iter_mut().zip(x) {
			*o = f(*v);
		}
	});
	Ok(())
}

/// `out[i] = f(a[i], b[i])`, split as [`map1`] is.
pub fn map2(
	a: &[f32],
	b: &[f32],
	out: &mut [f32],
	work_per_elem: usize,
	threads: usize,
	f: impl Fn(f32, f32) -> f32 + Sync,
) -> Result<()> {
	if a.len() != out.len() || b.len() != out.len() {
		return Err(ReproError::ShapeMismatch);
	}
	let threads = par::threads_for(out.len().saturating_mul(work_per_elem), threads);
	par::for_rows(out, 1, threads, |first, piece| {
		let (Some(a), Some(b)) = (a.get(first..), b.get(first..)) else { return };
		for ((o, x), y) in piece.iter_mut().zip(a).zip(b) {
			*o = f(*x, *y);
		}
	});
	Ok(())
}

/// `out[i] = f(a[i], b[i], c[i])`, split as [`map1`] is.
pub fn map3(
	(a, b, c): (&[f32], &[f32], &[f32]),
	out: &mut [f32],
	work_per_elem: usize,
	threads: usize,
	f: impl Fn(f32, f32, f32) -> f32 + Sync,
) -> Result<()> {
	if a.len() != out.len() || b.len() != out.len() || c.len() != out.len() {
		return Err(ReproError::ShapeMismatch);
	}
	let threads = par::threads_for(out.len().saturating_mul(work_per_elem), threads);
	par::for_rows(out, 1, threads, |first, piece| {
		let (Some(a), Some(b), Some(c)) = (a.get(first..), b.get(first..), c.get(first..)) else {
			return;
		};
		for (((o, x), y), z) in piece.iter_mut().zip(a).zip(b).zip(c) {
			*o = f(*x, *y, *z);
		}
	});
	Ok(())
}
