//! `MaxPool2d` forward and backward (fast path). Definitions: [`crate::graph::OpKind`].

use crate::{graph::PoolGeom, ReproError, Result};

/// The max of a window in `(kh, kw)` order from `-inf` (`v > acc` replaces) and the
/// flat input index of its first maximal position (`None` if nothing beat `-inf`).
#[inline(always)]
pub(crate) fn window_max(
	x: &[f32],
	g: &PoolGeom,
	plane: usize,
	oy: usize,
	ox: usize,
) -> (f32, Option<usize>) {
	let (ih, iw, k, s) = (g.ih as usize, g.iw as usize, g.k as usize, g.stride as usize);
	let mut best = f32::NEG_INFINITY;
	let mut arg = None;
	for kh in 0..k {
		for kw in 0..k {
			let idx = plane * ih * iw + (oy * s + kh) * iw + ox * s + kw;
			let v = x.get(idx).copied().unwrap_or(f32::NEG_INFINITY);
			if v > best {
				best = v;
				arg = Some(idx);
			}
		}
	}
	(best, arg)
}

fn check(g: &PoolGeom, x: &[f32], y_len: usize) -> Result<()> {
	let n_in = (g.batch * g.c * g.ih * g.iw) as usize;
	let n_out = (g.batch * g.c * g.oh * g.ow) as usize;
	if x.len() != n_in || y_len != n_out {
		return Err(ReproError::ShapeMismatch);
	}
	Ok(())
}

/// `y = window max`.
pub fn forward(x: &[f32], g: &PoolGeom, out: &mut [f32]) -> Result<()> {
	check(g, x, out.len())?;
	let (oh, ow) = (g.oh as usize, g.ow as usize);
	for (i, o) in out.iter_mut().enumerate() {
		*o = window_max(x, g, i / (oh * ow), (i / ow) % oh, i % ow).0;
	}
	Ok(())
}

/// `dx[i] = sum, over windows in (oy, ox) order whose first maximum is i, of dy` (from +0).
pub fn backward(x: &[f32], dy: &[f32], g: &PoolGeom, out: &mut [f32]) -> Result<()> {
	check(g, x, dy.len())?;
	if out.len() != x.len() {
		return Err(ReproError::ShapeMismatch);
	}
	out.fill(0.0);
	let (oh, ow) = (g.oh as usize, g.ow as usize);
	for (i, d) in dy.iter().enumerate() {
		if let (_, Some(a)) = window_max(x, g, i / (oh * ow), (i / ow) % oh, i % ow) {
			if let Some(o) = out.get_mut(a) {
				*o = *o + *d;
			}
		}
	}
	Ok(())
}
