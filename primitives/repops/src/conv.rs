//! `Conv2d` forward and backward (fast path). Definitions: [`crate::graph::OpKind`].
//!
//! All three dot-product ops run on register tiles ([`crate::kernel`]) that read the
//! (zero-padded) image in place instead of building an im2col matrix: a tile is `MR`
//! output positions (or taps) by `NR` channels, and term `t` of row `r` reads the
//! padded image at `row_offset[r] + term_offset[t]`, so each output walks its terms
//! in the definition's order:
//!
//! - forward: rows are output positions, lanes output channels, terms `(ic, kh, kw)`
//!   (padding reads +0 and is summed like any tap);
//! - weight gradient: rows are taps `(ic, kh, kw)`, lanes output channels, terms the
//!   positions `(b, oy, ox)`;
//! - input gradient (stride 1): rows are input positions, lanes input channels, terms
//!   `(kh, kw, oc)` over `dy` zero-padded by `k - 1 - pad`. The definition sums only the
//!   valid taps; the extra terms are `(+0) * w`, which is `+-0` when `w` is finite, and
//!   adding `+-0` to an accumulator that started at `+0` (so is never `-0`) changes no
//!   bit. With a non-finite weight, another stride or `pad >= k`, the input gradient
//!   takes the plain per-element path.

use crate::{
	graph::ConvGeom,
	kernel::{exec_rows, tile_gather, tile_lanes, tile_rows, Job, Offsets, Shape, Tiles},
	par::{self, scratch},
	ReproError, Result,
};
use alloc::{vec, vec::Vec};
use core::sync::atomic::{AtomicBool, Ordering};

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

fn check(g: &ConvGeom, x: Option<&[f32]>, w: Option<&[f32]>, dy: Option<&[f32]>) -> Result<Dims> {
	let d = dims(g);
	let ok = x.is_none_or(|x| x.len() == d.b * d.ic * d.ih * d.iw)
		&& w.is_none_or(|w| w.len() == d.oc * d.ic * d.k * d.k)
		&& dy.is_none_or(|y| y.len() == d.b * d.oc * d.oh * d.ow);
	let fits = d.s > 0
		&& d.oh.saturating_sub(1) * d.s + d.k <= d.ih + 2 * d.p
		&& (d.ow.saturating_sub(1)) * d.s + d.k <= d.iw + 2 * d.p;
	if ok && d.ow > 0 && d.oh > 0 && fits {
		Ok(d)
	} else {
		Err(ReproError::ShapeMismatch)
	}
}

/// An error if a job found a read outside its buffers (a bug: the ops size them).
fn ok(failed: &AtomicBool) -> Result<()> {
	if failed.load(Ordering::Relaxed) {
		Err(ReproError::ShapeMismatch)
	} else {
		Ok(())
	}
}

/// `planes` planes of `h x w` with `pad` zeros around each, then `slack` zeros.
fn pad_planes(x: &[f32], planes: usize, h: usize, w: usize, pad: usize, slack: usize) -> Vec<f32> {
	if pad == 0 {
		let mut out = scratch::take_dirty(x.len() + slack);
		let at = x.len().min(out.len());
		let (d, rest) = out.split_at_mut(at);
		d.copy_from_slice(x.get(..d.len()).unwrap_or(&[]));
		rest.fill(0.0);
		return out;
	}
	let (ph, pw) = (h + 2 * pad, w + 2 * pad);
	let mut out = scratch::take(planes * ph * pw + slack);
	for (src, dst) in x.chunks_exact((h * w).max(1)).zip(out.chunks_exact_mut(ph * pw)) {
		for (row, drow) in src.chunks_exact(w.max(1)).zip(dst.chunks_exact_mut(pw).skip(pad)) {
			if let Some(d) = drow.get_mut(pad..pad + w) {
				d.copy_from_slice(row);
			}
		}
	}
	out
}

/// `kt` rows of `NR` lanes: `b[t][c] = w[(col0 + c) * wc + wt[t]]` (0 past `cols`).
fn pack_weights<const NR: usize>(
	w: &[f32],
	wt: &[usize],
	wc: usize,
	cols: usize,
	col0: usize,
) -> Vec<[f32; NR]> {
	let mut b = vec![[0.0f32; NR]; wt.len()];
	for (row, o) in b.iter_mut().zip(wt) {
		for (c, v) in row.iter_mut().enumerate().take(cols.saturating_sub(col0)) {
			*v = w.get((col0 + c) * wc + o).copied().unwrap_or(0.0);
		}
	}
	b
}

/// Which positions of a padded image the rows of a [`PosJob`] are.
enum Rows<'a> {
	/// Row `q` is padded offset `q` (stride 1), for `q < qn`; it is an output when
	/// `q % pw < ow`, the output position `(q / pw) * ow + q % pw`. Consecutive rows
	/// are consecutive in memory, so a tile reads its `a` values as one slice.
	Flat { pw: usize, ow: usize, qn: usize },
	/// Row `p` is output position `p`, at padded offset `pos[p]`.
	List(&'a [usize]),
}

/// Rows are positions of one image, lanes `cols` channels, terms `t` reading the
/// padded image at `row + cb[t]` times `w[c * wc + wt[t]]`; the output of an image is
/// `[cols][npos]`, started at `bias[c]` (or +0).
struct PosJob<'a> {
	failed: AtomicBool,
	x: &'a [f32],
	img_len: usize,
	rows: Rows<'a>,
	npos: usize,
	cb: &'a Offsets,
	w: &'a [f32],
	wt: &'a [usize],
	wc: usize,
	cols: usize,
	bias: Option<&'a [f32]>,
}

impl PosJob<'_> {
	#[inline(always)]
	fn init<const MR: usize, const NR: usize>(&self, c0: usize, nc: usize) -> [[f32; NR]; MR] {
		let mut acc = [[0.0f32; NR]; MR];
		if let Some(bias) = self.bias.and_then(|b| b.get(c0..c0 + nc)) {
			for row in acc.iter_mut() {
				row[..nc].copy_from_slice(bias);
			}
		}
		acc
	}
}

impl Job for PosJob<'_> {
	#[inline(always)]
	fn run<const MR: usize, const NR: usize>(&self, first: usize, out: &mut [f32]) {
		let npos = self.npos;
		let panels: Vec<Vec<[f32; NR]>> = (0..self.cols.div_ceil(NR))
			.map(|p| pack_weights::<NR>(self.w, self.wt, self.wc, self.cols, p * NR))
			.collect();
		for (ii, img) in out.chunks_exact_mut((self.cols * npos).max(1)).enumerate() {
			let base = (first + ii) * self.img_len;
			match self.rows {
				Rows::Flat { pw, ow, qn } => {
					for q0 in (0..qn).step_by(MR) {
						// Output position of each row, or none.
						let mut dst = [usize::MAX; MR];
						for (r, d) in dst.iter_mut().enumerate() {
							let q = q0 + r;
							if q < qn && q % pw < ow {
								*d = (q / pw) * ow + q % pw;
							}
						}
						for (pi, bp) in panels.iter().enumerate() {
							let c0 = pi * NR;
							let nc = (self.cols - c0).min(NR);
							let mut acc = self.init::<MR, NR>(c0, nc);
							if !tile_rows::<MR, NR, false>(&mut acc, self.x, base + q0, self.cb, bp)
							{
								self.failed.store(true, Ordering::Relaxed);
							}
							for (r, p) in dst.iter().enumerate() {
								if *p == usize::MAX {
									continue;
								}
								for (c, v) in acc[r].iter().enumerate().take(nc) {
									if let Some(o) = img.get_mut((c0 + c) * npos + p) {
										*o = *v;
									}
								}
							}
						}
					}
				}
				Rows::List(pos) => {
					let Some(&last) = pos.last() else { return };
					for p0 in (0..npos).step_by(MR) {
						let rows = (npos - p0).min(MR);
						let mut rb = [0usize; MR];
						for (r, v) in rb.iter_mut().enumerate() {
							*v = base + pos.get(p0 + r).copied().unwrap_or(last);
						}
						for (pi, bp) in panels.iter().enumerate() {
							let c0 = pi * NR;
							let nc = (self.cols - c0).min(NR);
							let mut acc = self.init::<MR, NR>(c0, nc);
							if !tile_gather::<MR, NR, false>(&mut acc, self.x, &rb, self.cb, bp) {
								self.failed.store(true, Ordering::Relaxed);
							}
							for c in 0..nc {
								let row = (c0 + c) * npos + p0;
								if let Some(dst) = img.get_mut(row..row + rows) {
									for (o, a) in dst.iter_mut().zip(&acc) {
										*o = a[c];
									}
								}
							}
						}
					}
				}
			}
		}
	}
}

/// Rows are `rows` channels, lanes `NR` consecutive output columns of one output row
/// (stride 1), terms `t` reading the padded image at `cb[t]` past the lanes' first
/// position, times `w[row * wc + wt[t]]`; the output of an image is `[rows][oh][ow]`,
/// started at `bias[row]` (or +0).
struct LaneJob<'a> {
	failed: AtomicBool,
	x: &'a [f32],
	img_len: usize,
	pw: usize,
	oh: usize,
	ow: usize,
	cb: &'a Offsets,
	w: &'a [f32],
	wt: &'a [usize],
	wc: usize,
	rows: usize,
	bias: Option<&'a [f32]>,
}

impl Job for LaneJob<'_> {
	#[inline(always)]
	fn run<const MR: usize, const NR: usize>(&self, first: usize, out: &mut [f32]) {
		let (ow, npos) = (self.ow, self.oh * self.ow);
		// A panels: `[t][MR]` rows of weights (0 past `rows`).
		let panels: Vec<Vec<[f32; MR]>> = (0..self.rows.div_ceil(MR))
			.map(|p| {
				self.wt
					.iter()
					.map(|o| {
						let mut col = [0.0f32; MR];
						for (r, v) in col.iter_mut().enumerate() {
							let row = p * MR + r;
							if row < self.rows {
								*v = self.w.get(row * self.wc + o).copied().unwrap_or(0.0);
							}
						}
						col
					})
					.collect()
			})
			.collect();
		for (ii, img) in out.chunks_exact_mut((self.rows * npos).max(1)).enumerate() {
			let base = (first + ii) * self.img_len;
			for oy in 0..self.oh {
				for ox0 in (0..ow).step_by(NR) {
					let nv = (ow - ox0).min(NR);
					let b0 = base + oy * self.pw + ox0;
					for (pi, pa) in panels.iter().enumerate() {
						let r0 = pi * MR;
						let mut acc = [[0.0f32; NR]; MR];
						if let Some(bias) = self.bias {
							for (r, row) in acc.iter_mut().enumerate() {
								*row = [bias.get(r0 + r).copied().unwrap_or(0.0); NR];
							}
						}
						if !tile_lanes::<MR, NR, true>(&mut acc, pa, self.x, b0, self.cb) {
							self.failed.store(true, Ordering::Relaxed);
						}
						for (r, row) in acc.iter().enumerate().take(self.rows - r0) {
							let o = (r0 + r) * npos + oy * ow + ox0;
							if let Some(dst) = img.get_mut(o..o + nv) {
								dst.copy_from_slice(&row[..nv]);
							}
						}
					}
				}
			}
		}
	}
}

/// Offsets in a padded image (row length `pw`) of the positions `(oy * s, ox * s)`.
fn positions(oh: usize, ow: usize, s: usize, pw: usize) -> Vec<usize> {
	(0..oh).flat_map(|oy| (0..ow).map(move |ox| oy * s * pw + ox * s)).collect()
}

/// Offsets in a padded image (`ph x pw` planes) of the taps `(ic, kh, kw)` in order.
fn taps(ic: usize, k: usize, ph: usize, pw: usize) -> Vec<usize> {
	let mut v = Vec::with_capacity(ic * k * k);
	for c in 0..ic {
		for kh in 0..k {
			for kw in 0..k {
				v.push(c * ph * pw + kh * pw + kw);
			}
		}
	}
	v
}

/// The rows of a [`PosJob`] over `oh x ow` outputs of stride `s` in padded images with
/// rows of `pw` (`pos` from [`positions`]), and the slack the rows need after the
/// last image.
fn pos_rows(oh: usize, ow: usize, s: usize, pw: usize, pos: &[usize]) -> (Rows<'_>, usize) {
	if s == 1 {
		let qn = (oh - 1) * pw + ow;
		// A tile's last rows may run past the last image by less than a tile.
		(Rows::Flat { pw, ow, qn }, 16)
	} else {
		(Rows::List(pos), 0)
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
	if out.len() != d.b * d.oc * d.oh * d.ow || bias.len() != d.oc {
		return Err(ReproError::ShapeMismatch);
	}
	let (ph, pw) = (d.ih + 2 * d.p, d.iw + 2 * d.p);
	let img_len = d.ic * ph * pw;
	let pos = positions(d.oh, d.ow, d.s, pw);
	let (rows, slack) = pos_rows(d.oh, d.ow, d.s, pw, &pos);
	let xp = pad_planes(x, d.b * d.ic, d.ih, d.iw, d.p, slack);
	let cb = Offsets::new(taps(d.ic, d.k, ph, pw));
	let r = d.ic * d.k * d.k;
	let wt: Vec<usize> = (0..r).collect();
	let (row_len, work) = (d.oc * d.oh * d.ow, out.len() * r);
	if d.s == 1 && r < 32 {
		// Few terms per output: lanes along output rows keep the stores whole vectors.
		let job = LaneJob {
			failed: AtomicBool::new(false),
			x: &xp,
			img_len,
			pw,
			oh: d.oh,
			ow: d.ow,
			cb: &cb,
			w,
			wt: &wt,
			wc: r,
			rows: d.oc,
			bias: Some(bias),
		};
		exec_rows(&job, Tiles::new(Shape::Square), out, row_len, 1, work, threads);
		let r = ok(&job.failed);
		scratch::give(xp);
		return r;
	}
	let job = PosJob {
		failed: AtomicBool::new(false),
		x: &xp,
		img_len,
		rows,
		npos: pos.len(),
		cb: &cb,
		w,
		wt: &wt,
		wc: r,
		cols: d.oc,
		bias: Some(bias),
	};
	exec_rows(&job, Tiles::for_cols(d.oc), out, row_len, 1, work, threads);
	let r = ok(&job.failed);
	scratch::give(xp);
	r
}

/// Rows are taps (offsets `taps[r]` in a padded image of `img_len` floats), lanes
/// `cols` output channels, terms the positions of every image in order (offsets `cb[t]`
/// in one image) times `dy` packed by [`pack_dy`]; the output is `[tap][cols]` and must
/// start at +0. Images are the outer loop, so that one image's `dy` stays in cache
/// while every tap uses it: each output's accumulator goes to memory between images
/// and comes back unchanged.
struct TapJob<'a> {
	failed: AtomicBool,
	x: &'a [f32],
	img_len: usize,
	images: usize,
	taps: &'a [usize],
	cb: &'a Offsets,
	dyp: &'a [f32],
	nr: usize,
	cols: usize,
}

impl Job for TapJob<'_> {
	#[inline(always)]
	fn run<const MR: usize, const NR: usize>(&self, first: usize, out: &mut [f32]) {
		if NR != self.nr || self.cols == 0 {
			return;
		}
		let rows = out.len() / self.cols;
		let Some(&last) = self.taps.last() else { return };
		let (dyp, _) = self.dyp.as_chunks::<NR>();
		let (npos, panels) = (self.cb.len(), self.cols.div_ceil(NR));
		for b in 0..self.images {
			for r0 in (0..rows).step_by(MR) {
				let nrow = (rows - r0).min(MR);
				let mut rb = [0usize; MR];
				for (r, v) in rb.iter_mut().enumerate() {
					*v = self.taps.get(first + r0 + r).copied().unwrap_or(last) + b * self.img_len;
				}
				for pi in 0..panels {
					let start = (b * panels + pi) * npos;
					let Some(bp) = dyp.get(start..start + npos) else {
						self.failed.store(true, Ordering::Relaxed);
						return;
					};
					let c0 = pi * NR;
					let nc = (self.cols - c0).min(NR);
					let mut acc = [[0.0f32; NR]; MR];
					for (r, row) in acc.iter_mut().enumerate().take(nrow) {
						let o = (r0 + r) * self.cols + c0;
						if let Some(src) = out.get(o..o + nc) {
							row[..nc].copy_from_slice(src);
						}
					}
					if !tile_gather::<MR, NR, true>(&mut acc, self.x, &rb, self.cb, bp) {
						self.failed.store(true, Ordering::Relaxed);
					}
					for (r, row) in acc.iter().enumerate().take(nrow) {
						let o = (r0 + r) * self.cols + c0;
						if let Some(dst) = out.get_mut(o..o + nc) {
							dst.copy_from_slice(&row[..nc]);
						}
					}
				}
			}
		}
	}
}

/// `dy [b][c][p]` as, per image, `ceil(c / NR)` panels of `[p][NR]` (0 past `c`),
/// flattened.
fn pack_dy<const NR: usize>(dy: &[f32], b: usize, c: usize, p: usize) -> Vec<f32> {
	let panels = c.div_ceil(NR);
	// Every lane below `c` is written below; only a last panel's lanes past `c` need
	// zeros first.
	let mut out = if c.is_multiple_of(NR) {
		scratch::take_dirty(b * panels * p * NR)
	} else {
		scratch::take(b * panels * p * NR)
	};
	for (bi, img) in dy.chunks_exact((c * p).max(1)).enumerate().take(b) {
		for (ci, plane) in img.chunks_exact(p.max(1)).enumerate() {
			let (pi, lane) = (ci / NR, ci % NR);
			let start = (bi * panels + pi) * p * NR;
			if let Some(dst) = out.get_mut(start..start + p * NR) {
				for (d, v) in dst.as_chunks_mut::<NR>().0.iter_mut().zip(plane) {
					d[lane] = *v;
				}
			}
		}
	}
	out
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
	if out.len() != d.oc * r {
		return Err(ReproError::ShapeMismatch);
	}
	let (ph, pw) = (d.ih + 2 * d.p, d.iw + 2 * d.p);
	let xp = pad_planes(x, d.b * d.ic, d.ih, d.iw, d.p, 0);
	let img_len = d.ic * ph * pw;
	let pos = positions(d.oh, d.ow, d.s, pw);
	let cb = Offsets::new(pos);
	let tp = taps(d.ic, d.k, ph, pw);
	let t = Tiles::for_cols(d.oc);
	let npos = d.oh * d.ow;
	let dyp = match t.nr() {
		4 => pack_dy::<4>(dy, d.b, d.oc, npos),
		8 => pack_dy::<8>(dy, d.b, d.oc, npos),
		16 => pack_dy::<16>(dy, d.b, d.oc, npos),
		_ => pack_dy::<32>(dy, d.b, d.oc, npos),
	};
	let job = TapJob {
		failed: AtomicBool::new(false),
		x: &xp,
		img_len,
		images: d.b,
		taps: &tp,
		cb: &cb,
		dyp: &dyp,
		nr: t.nr(),
		cols: d.oc,
	};
	let mut tmp = vec![0.0f32; r * d.oc];
	let work = r * d.oc * d.b * cb.len();
	exec_rows(&job, t, &mut tmp, d.oc, t.mr(), work, threads);
	let done = ok(&job.failed);
	scratch::give(xp);
	scratch::give(dyp);
	done?;
	// [tap][oc] -> [oc][tap]
	for (tap, row) in tmp.chunks_exact(d.oc.max(1)).enumerate() {
		for (c, v) in row.iter().enumerate() {
			if let Some(o) = out.get_mut(c * r + tap) {
				*o = *v;
			}
		}
	}
	Ok(())
}

/// `db[oc] = sum_(b,oy,ox) dy` (from +0).
///
/// Each channel's sum is one chain of dependent adds in the definition's order, so
/// one chain runs no faster than the add latency allows: channels are summed eight at
/// a time (their chains interleave), and threads take whole groups of eight.
pub fn backward_bias(dy: &[f32], g: &ConvGeom, out: &mut [f32], threads: usize) -> Result<()> {
	let d = check(g, None, None, Some(dy))?;
	if out.len() != d.oc {
		return Err(ReproError::ShapeMismatch);
	}
	let pos = d.oh * d.ow;
	let threads = par::threads_for(dy.len().saturating_mul(2), threads);
	par::for_groups(out, 1, BIAS_LANES, threads, |c0, chans| {
		let mut c = 0;
		while let Some(rest) = chans.get_mut(c..).filter(|r| !r.is_empty()) {
			c += match rest.len() {
				n if n >= BIAS_LANES => sum_channels::<BIAS_LANES>(dy, d.oc, pos, c0 + c, rest),
				n if n >= 4 => sum_channels::<4>(dy, d.oc, pos, c0 + c, rest),
				_ => sum_channels::<1>(dy, d.oc, pos, c0 + c, rest),
			};
		}
	});
	Ok(())
}

/// Channels whose bias-gradient sums interleave on one thread.
const BIAS_LANES: usize = 8;

/// Writes into `out[..G]` the sums over every image of `dy`'s planes `c0..c0 + G`
/// (each from +0, in position order, image after image) and returns `G`.
#[inline(always)]
fn sum_channels<const G: usize>(
	dy: &[f32],
	oc: usize,
	pos: usize,
	c0: usize,
	out: &mut [f32],
) -> usize {
	let mut acc = [0.0f32; G];
	for img in dy.chunks_exact((oc * pos).max(1)) {
		let Some(block) = img.get(c0 * pos..(c0 + G) * pos) else { break };
		let planes: [&[f32]; G] =
			core::array::from_fn(|j| block.get(j * pos..(j + 1) * pos).unwrap_or(&[]));
		let chunks: [&[[f32; 8]]; G] = core::array::from_fn(|j| planes[j].as_chunks::<8>().0);
		// Eight positions of each plane per load; each accumulator still adds its
		// plane's values one by one in order.
		for q in 0..pos / 8 {
			let vals: [[f32; 8]; G] =
				core::array::from_fn(|j| chunks[j].get(q).copied().unwrap_or([0.0; 8]));
			for t in 0..8 {
				for (a, v) in acc.iter_mut().zip(&vals) {
					*a = *a + v[t];
				}
			}
		}
		for p in pos / 8 * 8..pos {
			for (a, plane) in acc.iter_mut().zip(&planes) {
				*a = *a + plane.get(p).copied().unwrap_or(0.0);
			}
		}
	}
	for (o, a) in out.iter_mut().zip(acc) {
		*o = a;
	}
	G
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
	if d.s != 1 || d.p >= d.k || !w.iter().all(|v| v.is_finite()) {
		return backward_input_plain(dy, w, &d, out, threads);
	}
	// dy padded by q = k - 1 - pad: input (iy, ix) meets tap (kh, kw) at padded
	// (iy + k - 1 - kh, ix + k - 1 - kw).
	let q = d.k - 1 - d.p;
	let (ph, pw) = (d.oh + 2 * q, d.ow + 2 * q);
	if ph < d.ih + d.k - 1 || pw < d.iw + d.k - 1 {
		return backward_input_plain(dy, w, &d, out, threads);
	}
	let dyp = pad_planes(dy, d.b * d.oc, d.oh, d.ow, q, 16);
	let img_len = d.oc * ph * pw;
	let pos = positions(d.ih, d.iw, 1, pw);
	let (rows, _) = pos_rows(d.ih, d.iw, 1, pw, &pos);
	let kk = d.k * d.k;
	let mut cb = Vec::with_capacity(kk * d.oc);
	let mut wt = Vec::with_capacity(kk * d.oc);
	for kh in 0..d.k {
		for kw in 0..d.k {
			for oc in 0..d.oc {
				cb.push(oc * ph * pw + (d.k - 1 - kh) * pw + (d.k - 1 - kw));
				wt.push(oc * d.ic * kk + kh * d.k + kw);
			}
		}
	}
	let cb = Offsets::new(cb);
	let job = PosJob {
		failed: AtomicBool::new(false),
		x: &dyp,
		img_len,
		rows,
		npos: pos.len(),
		cb: &cb,
		w,
		wt: &wt,
		wc: kk,
		cols: d.ic,
		bias: None,
	};
	let t = Tiles::for_cols(d.ic);
	exec_rows(&job, t, out, d.ic * d.ih * d.iw, 1, out.len() * cb.len(), threads);
	let r = ok(&job.failed);
	scratch::give(dyp);
	r
}

/// The input gradient one element at a time, valid taps only (any stride or weights).
fn backward_input_plain(
	dy: &[f32],
	w: &[f32],
	d: &Dims,
	out: &mut [f32],
	threads: usize,
) -> Result<()> {
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
					if ty < 0 || !(ty as usize).is_multiple_of(d.s) || (ty as usize) / d.s >= d.oh {
						continue;
					}
					let oy = (ty as usize) / d.s;
					for kw in 0..d.k {
						let tx = (ix + d.p) as isize - kw as isize;
						if tx < 0
							|| !(tx as usize).is_multiple_of(d.s)
							|| (tx as usize) / d.s >= d.ow
						{
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
