//! `Conv2d` forward and backward (fast path). Definitions: [`crate::graph::OpKind`].
//!
//! Forward and weight gradient run on the matmul kernel over an im2col matrix whose
//! rows are output positions `(b, oy, ox)` and columns taps `(ic, kh, kw)` (padding
//! reads +0 and is summed like any tap). The input gradient sums, for each input
//! element, the valid taps in `(kh, kw, oc)` order.

use crate::{
	graph::ConvGeom,
	kernel::{matmul, transpose, Init},
	par, ReproError, Result,
};
use alloc::{vec, vec::Vec};

struct Dims {
	b: usize,
	ic: usize,
	ih: usize,
	iw: usize,
	oc: usize,
	k: usize,
	s: usize,
	p: usize,
	oh: usize,
	ow: usize,
}

fn dims(g: &ConvGeom) -> Dims {
	Dims {
		b: g.batch as usize,
		ic: g.ic as usize,
		ih: g.ih as usize,
		iw: g.iw as usize,
		oc: g.oc as usize,
		k: g.k as usize,
		s: g.stride as usize,
		p: g.pad as usize,
		oh: g.oh as usize,
		ow: g.ow as usize,
	}
}

/// The padded input value at signed coordinates (0 outside).
#[inline(always)]
pub(crate) fn xpad(x: &[f32], ih: usize, iw: usize, plane: usize, y: isize, xx: isize) -> f32 {
	if y < 0 || xx < 0 || y as usize >= ih || xx as usize >= iw {
		return 0.0;
	}
	x.get(plane * ih * iw + (y as usize) * iw + xx as usize).copied().unwrap_or(0.0)
}

/// im2col: `cols[(b*oh + oy)*ow + ox][(ic*k + kh)*k + kw]`.
fn im2col(x: &[f32], d: &Dims) -> Vec<f32> {
	let r = d.ic * d.k * d.k;
	let mut cols = vec![0.0f32; d.b * d.oh * d.ow * r];
	for (row, dst) in cols.chunks_exact_mut(r.max(1)).enumerate() {
		let ox = row % d.ow;
		let oy = (row / d.ow) % d.oh;
		let b = row / (d.ow * d.oh);
		let mut t = 0;
		for ic in 0..d.ic {
			for kh in 0..d.k {
				for kw in 0..d.k {
					let y = (oy * d.s + kh) as isize - d.p as isize;
					let xx = (ox * d.s + kw) as isize - d.p as isize;
					if let Some(o) = dst.get_mut(t) {
						*o = xpad(x, d.ih, d.iw, b * d.ic + ic, y, xx);
					}
					t += 1;
				}
			}
		}
	}
	cols
}

fn check(g: &ConvGeom, x: Option<&[f32]>, w: Option<&[f32]>, dy: Option<&[f32]>) -> Result<Dims> {
	let d = dims(g);
	let ok = x.is_none_or(|x| x.len() == d.b * d.ic * d.ih * d.iw)
		&& w.is_none_or(|w| w.len() == d.oc * d.ic * d.k * d.k)
		&& dy.is_none_or(|y| y.len() == d.b * d.oc * d.oh * d.ow);
	if ok && d.ow > 0 && d.oh > 0 {
		Ok(d)
	} else {
		Err(ReproError::ShapeMismatch)
	}
}

/// `y[b,oc,oy,ox] = bias[oc] + sum_(ic,kh,kw) xpad * w`.
pub fn forward(
	x: &[f32],
	w: &[f32],
	bias: &[f32],
	g: &ConvGeom,
	out: &mut [f32],
	threads: usize,
) -> Result<()> {
	let d = check(g, Some(x), Some(w), None)?;
	if out.len() != d.b * d.oc * d.oh * d.ow {
		return Err(ReproError::ShapeMismatch);
	}
	let r = d.ic * d.k * d.k;
	let pos = d.oh * d.ow;
	let cols = im2col(x, &d);
	let mut wt = Vec::new();
	transpose(w, d.oc, r, &mut wt);
	let mut tmp = vec![0.0f32; d.b * pos * d.oc];
	matmul(&cols, &wt, d.b * pos, r, d.oc, Init::Col(bias), &mut tmp, threads)?;
	// [b, pos, oc] -> [b, oc, pos]
	for (b, (src, dst)) in
		tmp.chunks_exact(pos * d.oc).zip(out.chunks_exact_mut(pos * d.oc)).enumerate()
	{
		let _ = b;
		for (p, row) in src.chunks_exact(d.oc).enumerate() {
			for (c, v) in row.iter().enumerate() {
				if let Some(o) = dst.get_mut(c * pos + p) {
					*o = *v;
				}
			}
		}
	}
	Ok(())
}

/// `dw[oc,ic,kh,kw] = sum_(b,oy,ox) dy * xpad`.
pub fn backward_weight(
	dy: &[f32],
	x: &[f32],
	g: &ConvGeom,
	out: &mut [f32],
	threads: usize,
) -> Result<()> {
	let d = check(g, Some(x), None, Some(dy))?;
	let r = d.ic * d.k * d.k;
	let pos = d.oh * d.ow;
	let cols = im2col(x, &d);
	// dy2[oc][b*pos + p] = dy[b][oc][p]
	let mut dy2 = vec![0.0f32; d.oc * d.b * pos];
	for (b, img) in dy.chunks_exact(d.oc * pos).enumerate() {
		for (c, plane) in img.chunks_exact(pos).enumerate() {
			if let Some(dst) = dy2.get_mut(c * d.b * pos + b * pos..c * d.b * pos + (b + 1) * pos) {
				dst.copy_from_slice(plane);
			}
		}
	}
	matmul(&dy2, &cols, d.oc, d.b * pos, r, Init::Zero, out, threads)
}

/// `db[oc] = sum_(b,oy,ox) dy` (from +0).
pub fn backward_bias(dy: &[f32], g: &ConvGeom, out: &mut [f32]) -> Result<()> {
	let d = check(g, None, None, Some(dy))?;
	if out.len() != d.oc {
		return Err(ReproError::ShapeMismatch);
	}
	let pos = d.oh * d.ow;
	out.fill(0.0);
	for img in dy.chunks_exact(d.oc * pos) {
		for (o, plane) in out.iter_mut().zip(img.chunks_exact(pos)) {
			for v in plane {
				*o = *o + *v;
			}
		}
	}
	Ok(())
}

/// `dx[b,ic,iy,ix] = sum over valid (kh, kw), then oc, of dy[b,oc,oy,ox] * w[oc,ic,kh,kw]`
/// where `oy * stride = iy + pad - kh` (and the same for x).
pub fn backward_input(
	dy: &[f32],
	w: &[f32],
	g: &ConvGeom,
	out: &mut [f32],
	threads: usize,
) -> Result<()> {
	let d = check(g, None, Some(w), Some(dy))?;
	if out.len() != d.b * d.ic * d.ih * d.iw {
		return Err(ReproError::ShapeMismatch);
	}
	// wt[ic][kh][kw][oc] and dyh[b][oy][ox][oc] make the oc loop contiguous.
	let kk = d.k * d.k;
	let mut wt = vec![0.0f32; w.len()];
	for oc in 0..d.oc {
		for ic in 0..d.ic {
			for t in 0..kk {
				if let (Some(dst), Some(src)) =
					(wt.get_mut((ic * kk + t) * d.oc + oc), w.get((oc * d.ic + ic) * kk + t))
				{
					*dst = *src;
				}
			}
		}
	}
	let pos = d.oh * d.ow;
	let mut dyh = vec![0.0f32; dy.len()];
	for b in 0..d.b {
		for oc in 0..d.oc {
			for p in 0..pos {
				if let (Some(dst), Some(src)) =
					(dyh.get_mut((b * pos + p) * d.oc + oc), dy.get((b * d.oc + oc) * pos + p))
				{
					*dst = *src;
				}
			}
		}
	}
	let img = d.ic * d.ih * d.iw;
	par::for_rows(out, img, threads, |b0, chunk| {
		for (bi, dst) in chunk.chunks_exact_mut(img).enumerate() {
			let b = b0 + bi;
			for (e, o) in dst.iter_mut().enumerate() {
				let ix = e % d.iw;
				let iy = (e / d.iw) % d.ih;
				let ic = e / (d.iw * d.ih);
				let mut acc = 0.0f32;
				for kh in 0..d.k {
					let ty = (iy + d.p) as isize - kh as isize;
					if ty < 0 || (ty as usize) % d.s != 0 || (ty as usize) / d.s >= d.oh {
						continue;
					}
					let oy = (ty as usize) / d.s;
					for kw in 0..d.k {
						let tx = (ix + d.p) as isize - kw as isize;
						if tx < 0 || (tx as usize) % d.s != 0 || (tx as usize) / d.s >= d.ow {
							continue;
						}
						let ox = (tx as usize) / d.s;
						let dyo = ((b * d.oh + oy) * d.ow + ox) * d.oc;
						let wo = ((ic * d.k + kh) * d.k + kw) * d.oc;
						if let (Some(dv), Some(wv)) =
							(dyh.get(dyo..dyo + d.oc), wt.get(wo..wo + d.oc))
						{
							for (a, c) in dv.iter().zip(wv) {
								let p = *a * *c;
								acc = acc + p;
							}
						}
					}
				}
				*o = acc;
			}
		}
	});
	Ok(())
}
