//! `MaxPool2d` forward and backward (fast path). Definitions: [`crate::graph::OpKind`].

use crate::{graph::PoolGeom, par, ReproError, Result};
use core::ops::Range;

/// The max of a window in `(kh, kw)` order from `-inf` (`v > acc` replaces) and the
/// flat input index of its first maximal position (`None` if nothing beat `-inf`):
/// the plain definition the fast loops are tested against.
#[cfg(test)]
fn window_max(x: &[f32], g: &PoolGeom, plane: usize, oy: usize, ox: usize) -> (f32, Option<usize>) {
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

/// `if take { new } else { old }` without a branch: the compiler may otherwise turn the
/// choice into a branch, which random data mispredicts about half the time.
#[inline(always)]
fn pick<T>(take: bool, new: T, old: T) -> T {
	core::hint::select_unpredictable(take, new, old)
}

/// The max of the window at flat offset `base` (`(kh, kw)` order from `-inf`, `v > acc`
/// replaces; out-of-range reads are `-inf`) and the flat index of its first maximal
/// position (`usize::MAX` if nothing beat `-inf`). Written without branches on the
/// values so that random data does not stall the CPU.
#[inline(always)]
fn window_at(x: &[f32], base: usize, iw: usize, k: usize) -> (f32, usize) {
	let mut best = f32::NEG_INFINITY;
	let mut arg = usize::MAX;
	for kh in 0..k {
		let row = base + kh * iw;
		match x.get(row..row + k) {
			Some(vals) => {
				for (kw, v) in vals.iter().enumerate() {
					let gt = *v > best;
					best = pick(gt, *v, best);
					arg = pick(gt, row + kw, arg);
				}
			}
			None => {
				for kw in 0..k {
					let v = x.get(row + kw).copied().unwrap_or(f32::NEG_INFINITY);
					let gt = v > best;
					best = pick(gt, v, best);
					arg = pick(gt, row + kw, arg);
				}
			}
		}
	}
	(best, arg)
}

/// Calls `f(output index counted from the first window of plane planes.start, window
/// max, flat index of its first maximum or usize::MAX)` for every window of `planes`
/// in output order.
#[inline(always)]
fn windows(x: &[f32], g: &PoolGeom, planes: Range<usize>, mut f: impl FnMut(usize, f32, usize)) {
	let (ih, iw, k, s) = (g.ih as usize, g.iw as usize, g.k as usize, g.stride as usize);
	let (oh, ow) = (g.oh as usize, g.ow as usize);
	let mut i = 0;
	for plane in planes {
		for oy in 0..oh {
			let row = plane * ih * iw + oy * s * iw;
			match k {
				2 => windows_row::<2>(x, row, iw, s, ow, &mut i, &mut f),
				3 => windows_row::<3>(x, row, iw, s, ow, &mut i, &mut f),
				_ => {
					for ox in 0..ow {
						let (v, a) = window_at(x, row + ox * s, iw, k);
						f(i, v, a);
						i += 1;
					}
				}
			}
		}
	}
}

/// One row of windows of side `K` whose top-left corners are `row + ox * s`.
#[inline(always)]
fn windows_row<const K: usize>(
	x: &[f32],
	row: usize,
	iw: usize,
	s: usize,
	ow: usize,
	i: &mut usize,
	f: &mut impl FnMut(usize, f32, usize),
) {
	let span = (K - 1) * iw + ow.saturating_sub(1) * s + K;
	let Some(win) = x.get(row..row + span) else {
		for ox in 0..ow {
			let (v, a) = window_at(x, row + ox * s, iw, K);
			f(*i, v, a);
			*i += 1;
		}
		return;
	};
	for ox in 0..ow {
		let mut best = f32::NEG_INFINITY;
		let mut arg = usize::MAX;
		for kh in 0..K {
			let o = kh * iw + ox * s;
			if let Some(vals) = win.get(o..o + K) {
				for (kw, v) in vals.iter().enumerate() {
					let gt = *v > best;
					best = pick(gt, *v, best);
					arg = pick(gt, row + o + kw, arg);
				}
			}
		}
		f(*i, best, arg);
		*i += 1;
	}
}

/// The work (in [`par::threads_for`] units) of `windows` windows of side `k`: each
/// read of a window element counts 4.
fn work(windows: usize, k: usize) -> usize {
	windows.saturating_mul(k).saturating_mul(k).saturating_mul(4)
}

/// `y = window max`. Threads take whole planes.
pub fn forward(x: &[f32], g: &PoolGeom, out: &mut [f32], threads: usize) -> Result<()> {
	check(g, x, out.len())?;
	let (plane, k) = ((g.oh * g.ow) as usize, g.k as usize);
	let threads = par::threads_for(work(out.len(), k), threads);
	par::for_rows(out, plane, threads, |p0, piece| {
		windows(x, g, p0..p0 + piece.len() / plane.max(1), |i, v, _| {
			if let Some(o) = piece.get_mut(i) {
				*o = v;
			}
		});
	});
	Ok(())
}

/// `dx[i] = sum, over windows in (oy, ox) order whose first maximum is i, of dy` (from
/// +0). A window reads and writes only its own plane, so threads take whole planes.
pub fn backward(
	x: &[f32],
	dy: &[f32],
	g: &PoolGeom,
	out: &mut [f32],
	threads: usize,
) -> Result<()> {
	check(g, x, dy.len())?;
	if out.len() != x.len() {
		return Err(ReproError::ShapeMismatch);
	}
	let (in_plane, out_plane, k) = ((g.ih * g.iw) as usize, (g.oh * g.ow) as usize, g.k as usize);
	let threads = par::threads_for(work(dy.len(), k), threads);
	par::for_rows(out, in_plane, threads, |p0, piece| {
		piece.fill(0.0);
		let (base, dy) = (p0 * in_plane, dy.get(p0 * out_plane..).unwrap_or(&[]));
		windows(x, g, p0..p0 + piece.len() / in_plane.max(1), |i, _, a| {
			if let (Some(d), Some(o)) = (dy.get(i), piece.get_mut(a.wrapping_sub(base))) {
				*o = *o + *d;
			}
		});
	});
	Ok(())
}

#[cfg(test)]
mod tests {
	use super::*;
	use alloc::{vec, vec::Vec};

	#[test]
	fn fast_loops_match_the_definition_bitwise() {
		crate::par::set_min_parallel_work(0);
		for &(c, ih, iw, k, s) in
			&[(3, 7, 9, 2, 2), (2, 9, 8, 3, 2), (1, 6, 6, 3, 1), (2, 5, 7, 1, 1)]
		{
			let (oh, ow) = ((ih - k) / s + 1, (iw - k) / s + 1);
			let g = PoolGeom { batch: 2, c, ih, iw, k, stride: s, oh, ow };
			let n = (2 * c * ih * iw) as usize;
			// Few distinct values (ties), a NaN and infinities.
			let mut x: Vec<f32> = (0..n).map(|i| ((i * 37) % 11) as f32 - 5.0).collect();
			x[3] = f32::NAN;
			x[10] = f32::INFINITY;
			x[n - 1] = f32::NEG_INFINITY;
			let m = (2 * c * oh * ow) as usize;
			let dy: Vec<f32> = (0..m).map(|i| 0.1 + i as f32 * 0.37).collect();
			let (ohu, owu) = (oh as usize, ow as usize);
			let mut want_y = vec![0.0f32; m];
			let mut want_dx = vec![0.0f32; n];
			for i in 0..m {
				let (v, a) = window_max(&x, &g, i / (ohu * owu), (i / owu) % ohu, i % owu);
				want_y[i] = v;
				if let Some(a) = a {
					want_dx[a] = want_dx[a] + dy[i];
				}
			}
			for threads in [1, 2, 3] {
				let mut y = vec![1.0f32; m];
				forward(&x, &g, &mut y, threads).unwrap();
				let mut dx = vec![1.0f32; n];
				backward(&x, &dy, &g, &mut dx, threads).unwrap();
				assert!(y.iter().zip(&want_y).all(|(a, b)| a.to_bits() == b.to_bits()));
				assert!(dx.iter().zip(&want_dx).all(|(a, b)| a.to_bits() == b.to_bits()));
			}
		}
	}
}
