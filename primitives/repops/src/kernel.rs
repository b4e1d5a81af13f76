//! The matrix-multiply kernels every dot-product op runs on.
//!
//! `out[i][j] = init(i, j) + a[i][0] * b[0][j] + a[i][1] * b[1][j] + ...`, accumulated
//! left to right in f32, one multiply then one add per term. A tile of `MR x NR`
//! outputs keeps its accumulators in registers and walks `t` in order for every output
//! at once, so the compiler vectorises across outputs (`NR` lanes), never inside one
//! output's sum. Zero-padded rows and columns of a tile are computed and thrown away;
//! they never touch the lanes that are kept.
//!
//! On x86-64 with `std`, the same generic code is also compiled with AVX2, and with
//! AVX-512, enabled and picked at run time when the CPU has it (wider tiles, same
//! operations: IEEE multiplies and adds give the same bits in any vector width, and
//! Rust never fuses a multiply and an add).

use crate::{
	par::{self, scratch},
	ReproError, Result,
};
use alloc::{vec, vec::Vec};

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

/// The instruction set the tiles are compiled for (chosen at run time), each one a
/// superset of the ones before it.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
#[cfg_attr(not(all(feature = "std", target_arch = "x86_64")), allow(dead_code))]
pub(crate) enum Isa {
	/// The target's baseline (SSE2 on x86-64, scalar or simd128 on wasm32).
	Portable,
	/// x86-64 with AVX2.
	Avx2,
	/// x86-64 with AVX-512 (foundation instructions).
	Avx512,
}

/// The best instruction set this CPU runs, capped by the environment variable
/// `REPOPS_MAX_ISA` (`portable` or `avx2`) when it is set.
pub(crate) fn isa() -> Isa {
	#[cfg(all(feature = "std", target_arch = "x86_64"))]
	{
		use core::sync::atomic::{AtomicU8, Ordering};
		static CACHED: AtomicU8 = AtomicU8::new(0);
		let v = match CACHED.load(Ordering::Relaxed) {
			0 => {
				// AVX-512 CPUs run the AVX2 build of the shapes with no AVX-512 loop.
				let avx2 = std::is_x86_feature_detected!("avx2");
				let cpu = if avx2 && std::is_x86_feature_detected!("avx512f") {
					3
				} else if avx2 {
					2
				} else {
					1
				};
				// A cap for comparing the builds on one machine (speed only: the bits
				// are the same on every instruction set).
				let cap = match std::env::var("REPOPS_MAX_ISA").as_deref() {
					Ok("portable") => 1,
					Ok("avx2") => 2,
					_ => 3,
				};
				let v = cpu.min(cap);
				CACHED.store(v, Ordering::Relaxed);
				v
			}
			v => v,
		};
		match v {
			3 => return Isa::Avx512,
			2 => return Isa::Avx2,
			_ => {}
		}
	}
	Isa::Portable
}

/// Whether this CPU runs tiles compiled for `isa`.
pub(crate) fn runs(isa: Isa) -> bool {
	isa <= self::isa()
}

/// The shape of a tile, in vectors of the instruction set's width (4 or 8 f32, 16
/// with AVX-512).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Shape {
	/// Matrix products' widest rows: two 16-lane vectors with AVX-512 (`8 x 32`, one
	/// hand-written loop); elsewhere as [`Shape::Wide`].
	Widest,
	/// Rows of 16 lanes (`6 x 16`), `4 x 8` portable.
	Wide,
	/// Many rows of 8 lanes (`12 x 8`), `6 x 4` portable.
	Narrow,
	/// Fewer rows of 8 lanes (`8 x 8`), `4 x 4` portable.
	Square,
}

/// A tile shape on an instruction set.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) struct Tiles {
	/// Instruction set.
	pub isa: Isa,
	/// Shape.
	pub shape: Shape,
}

impl Tiles {
	/// The shape for this CPU whose lanes suit `cols` output columns: narrow when one
	/// vector of 8 covers them.
	pub(crate) fn for_cols(cols: usize) -> Self {
		let t = Tiles { isa: isa(), shape: Shape::Narrow };
		if cols <= t.nr() {
			t
		} else {
			Tiles { shape: Shape::Wide, ..t }
		}
	}

	/// [`Tiles::for_cols`] for a matrix product, which also has the widest tiles when
	/// the columns fill more than 16 lanes.
	pub(crate) fn for_gemm(cols: usize) -> Self {
		let t = Self::for_cols(cols);
		if cols > (Tiles { shape: Shape::Wide, ..t }).nr() {
			Tiles { shape: Shape::Widest, ..t }
		} else {
			t
		}
	}

	/// `shape` on this CPU.
	pub(crate) fn new(shape: Shape) -> Self {
		Tiles { isa: isa(), shape }
	}

	/// Rows of a tile.
	pub(crate) fn mr(self) -> usize {
		match (self.isa, self.shape) {
			(Isa::Portable, Shape::Wide | Shape::Widest) => 4,
			(Isa::Portable, Shape::Narrow) => 6,
			(Isa::Portable, Shape::Square) => 4,
			(Isa::Avx512, Shape::Widest) => 8,
			(Isa::Avx2 | Isa::Avx512, Shape::Wide | Shape::Widest) => 6,
			(Isa::Avx2 | Isa::Avx512, Shape::Narrow) => 12,
			(Isa::Avx2 | Isa::Avx512, Shape::Square) => 8,
		}
	}

	/// Columns (vector lanes) of a tile.
	pub(crate) fn nr(self) -> usize {
		match (self.isa, self.shape) {
			(Isa::Portable, Shape::Wide | Shape::Widest) => 8,
			(Isa::Portable, _) => 4,
			(Isa::Avx512, Shape::Widest) => 32,
			(Isa::Avx2 | Isa::Avx512, Shape::Wide | Shape::Widest) => 16,
			(Isa::Avx2 | Isa::Avx512, _) => 8,
		}
	}
}

/// A piece of work over disjoint output rows, run with one tile shape.
pub(crate) trait Job: Sync {
	/// Computes the output rows that start at row `first` into `out` (whole rows) with
	/// `MR x NR` tiles.
	fn run<const MR: usize, const NR: usize>(&self, first: usize, out: &mut [f32]);
}

/// Runs `job` on `out` with the tiles `t` (an AVX build only where the CPU has it).
pub(crate) fn exec<J: Job>(job: &J, t: Tiles, first: usize, out: &mut [f32]) {
	let isa = if runs(t.isa) { t.isa } else { Isa::Portable };
	match (isa, t.shape) {
		#[cfg(all(feature = "std", target_arch = "x86_64"))]
		// SAFETY: `isa()` checked that the CPU has AVX-512F.
		(Isa::Avx512, Shape::Widest) => unsafe { exec_avx512::<J, 8, 32>(job, first, out) },
		// The other shapes run their AVX2 build on an AVX-512 CPU: the compiler's own
		// AVX-512 code for the generic tiles scatters and spills (20x slower).
		#[cfg(all(feature = "std", target_arch = "x86_64"))]
		// SAFETY: `isa()` checked that the CPU has AVX2 (AVX-512 includes it).
		(Isa::Avx2 | Isa::Avx512, Shape::Wide | Shape::Widest) => unsafe {
			exec_avx2::<J, 6, 16>(job, first, out)
		},
		#[cfg(all(feature = "std", target_arch = "x86_64"))]
		// SAFETY: as above.
		(Isa::Avx2 | Isa::Avx512, Shape::Narrow) => unsafe { exec_avx2::<J, 12, 8>(job, first, out) },
		#[cfg(all(feature = "std", target_arch = "x86_64"))]
		// SAFETY: as above.
		(Isa::Avx2 | Isa::Avx512, Shape::Square) => unsafe { exec_avx2::<J, 8, 8>(job, first, out) },
		(_, Shape::Narrow) => job.run::<6, 4>(first, out),
		(_, Shape::Square) => job.run::<4, 4>(first, out),
		_ => job.run::<4, 8>(first, out),
	}
}

#[cfg(all(feature = "std", target_arch = "x86_64"))]
#[target_feature(enable = "avx2")]
fn exec_avx2<J: Job, const MR: usize, const NR: usize>(job: &J, first: usize, out: &mut [f32]) {
	job.run::<MR, NR>(first, out)
}

#[cfg(all(feature = "std", target_arch = "x86_64"))]
#[target_feature(enable = "avx512f")]
fn exec_avx512<J: Job, const MR: usize, const NR: usize>(job: &J, first: usize, out: &mut [f32]) {
	job.run::<MR, NR>(first, out)
}

/// Splits `out` (rows of `row_len`) into contiguous pieces of whole multiples of
/// `group` rows, one per thread, and runs `job` on each with tiles `t`. Small problems
/// (`work` multiply-adds) stay on the calling thread.
pub(crate) fn exec_rows<J: Job>(
	job: &J,
	t: Tiles,
	out: &mut [f32],
	row_len: usize,
	group: usize,
	work: usize,
	threads: usize,
) {
	let threads = par::threads_for(work, threads);
	par::for_groups(out, row_len, group, threads, |first, chunk| exec(job, t, first, chunk));
}

/// One tile: `acc[r][c] = acc[r][c] + a(t, r) * b(t, c)` for `t` in order, where
/// `a` holds `MR` values per `t` and `b` holds `NR` values per `t` (both packed).
/// `SWAP` multiplies as `b * a` (the operand order of the op's definition).
#[inline(always)]
pub(crate) fn tile_packed<const MR: usize, const NR: usize, const SWAP: bool>(
	acc: &mut [[f32; NR]; MR],
	a: &[[f32; MR]],
	b: &[[f32; NR]],
) {
	let mut c = *acc;
	for (av, bv) in a.iter().zip(b) {
		fma_step::<MR, NR, SWAP>(&mut c, av, bv);
	}
	*acc = c;
}

/// [`tile_packed`], by the hand-written AVX-512 loop for `8 x 32` tiles on a CPU that
/// runs it.
#[inline(always)]
fn tile_packed_any<const MR: usize, const NR: usize, const SWAP: bool>(
	acc: &mut [[f32; NR]; MR],
	a: &[[f32; MR]],
	b: &[[f32; NR]],
) {
	#[cfg(all(feature = "std", target_arch = "x86_64"))]
	if MR == 8 && NR == 32 && runs(Isa::Avx512) {
		// SAFETY: with MR = 8 and NR = 32 (checked above) the cast is to the same type.
		let acc8 = unsafe { &mut *(acc as *mut [[f32; NR]; MR]).cast::<[[f32; 32]; 8]>() };
		let (a8, _) = a.as_flattened().as_chunks::<8>();
		let (b32, _) = b.as_flattened().as_chunks::<32>();
		// SAFETY: the CPU runs AVX-512F (checked above).
		unsafe { tile_8x32_avx512::<SWAP>(acc8, a8, b32) };
		return;
	}
	tile_packed::<MR, NR, SWAP>(acc, a, b)
}

/// [`tile_packed`] for `8 x 32` tiles in AVX-512 registers (16 accumulators of 16
/// lanes): the same multiplies and adds in the same order, written out because the
/// compiler's vectorisation of the generic loop for AVX-512 spills.
#[cfg(all(feature = "std", target_arch = "x86_64"))]
#[target_feature(enable = "avx512f")]
fn tile_8x32_avx512<const SWAP: bool>(acc: &mut [[f32; 32]; 8], a: &[[f32; 8]], b: &[[f32; 32]]) {
	use core::arch::x86_64::{__m512, _mm512_add_ps, _mm512_loadu_ps, _mm512_mul_ps};
	use core::arch::x86_64::{_mm512_set1_ps, _mm512_storeu_ps};
	// SAFETY (every load and store below): each pointer is to 16 in-bounds f32 of a
	// `[f32; 32]` (at offset 0 or 16); the unaligned forms need no alignment.
	let load = |p: &[f32; 32], h: usize| unsafe { _mm512_loadu_ps(p.as_ptr().add(16 * h)) };
	let mut c: [[__m512; 2]; 8] = core::array::from_fn(|r| [load(&acc[r], 0), load(&acc[r], 1)]);
	for (av, bv) in a.iter().zip(b) {
		let (b0, b1) = (load(bv, 0), load(bv, 1));
		for (row, &x) in c.iter_mut().zip(av) {
			let x = _mm512_set1_ps(x);
			let (p0, p1) = if SWAP {
				(_mm512_mul_ps(b0, x), _mm512_mul_ps(b1, x))
			} else {
				(_mm512_mul_ps(x, b0), _mm512_mul_ps(x, b1))
			};
			row[0] = _mm512_add_ps(row[0], p0);
			row[1] = _mm512_add_ps(row[1], p1);
		}
	}
	for (dst, row) in acc.iter_mut().zip(&c) {
		for (h, v) in row.iter().enumerate() {
			// SAFETY: as above.
			unsafe { _mm512_storeu_ps(dst.as_mut_ptr().add(16 * h), *v) };
		}
	}
}

/// One term for a whole tile (a multiply, then an add; never fused).
// Both arms of `if SWAP` are kept: the operands stay in the definition's order.
#[allow(clippy::if_same_then_else)]
#[inline(always)]
pub(crate) fn fma_step<const MR: usize, const NR: usize, const SWAP: bool>(
	c: &mut [[f32; NR]; MR],
	av: &[f32; MR],
	bv: &[f32; NR],
) {
	for r in 0..MR {
		let x = av[r];
		let row = &mut c[r];
		for j in 0..NR {
			let p = if SWAP { bv[j] * x } else { x * bv[j] };
			row[j] = row[j] + p;
		}
	}
}

/// Term offsets of a gathered operand, with their maximum (so that a tile checks its
/// reads once, before its loop).
pub(crate) struct Offsets {
	v: Vec<usize>,
	max: usize,
}

impl Offsets {
	/// The offsets `v`, in term order.
	pub(crate) fn new(v: Vec<usize>) -> Self {
		let max = v.iter().copied().max().unwrap_or(0);
		Offsets { v, max }
	}

	/// Number of terms.
	pub(crate) fn len(&self) -> usize {
		self.v.len()
	}
}

/// One tile whose `a` values are gathered: term `t` uses `a(t, r) = x[rb[r] + cb[t]]`
/// and `b(t, c) = b[t][c]`, for `t` in order. `SWAP` multiplies as `b * a`. Returns
/// false, leaving `acc` alone, if some read would fall outside `x`.
#[allow(clippy::if_same_then_else)]
#[inline(always)]
pub(crate) fn tile_gather<const MR: usize, const NR: usize, const SWAP: bool>(
	acc: &mut [[f32; NR]; MR],
	x: &[f32],
	rb: &[usize; MR],
	cb: &Offsets,
	b: &[[f32; NR]],
) -> bool {
	let top = rb.iter().copied().max().unwrap_or(0).checked_add(cb.max);
	if top.is_none_or(|e| e >= x.len()) || cb.v.is_empty() {
		return cb.v.is_empty();
	}
	let mut c = *acc;
	for (o, bv) in cb.v.iter().zip(b) {
		if MR > 8 {
			// Tall tiles: gather the column first, then one multiply-add step (used at
			// once, the values made the compiler spill a 12 x 8 tile: 4.7x slower).
			let mut av = [0.0f32; MR];
			for (a, r) in av.iter_mut().zip(rb) {
				// SAFETY: r + o <= max(rb) + max(cb) < x.len(), checked above.
				*a = unsafe { *x.get_unchecked(r + o) };
			}
			fma_step::<MR, NR, SWAP>(&mut c, &av, bv);
			continue;
		}
		// One row at a time, each value used as soon as it is read (fewer live registers).
		for r in 0..MR {
			// SAFETY: rb[r] + o <= max(rb) + max(cb) < x.len(), checked above.
			let v = unsafe { *x.get_unchecked(rb[r] + o) };
			let row = &mut c[r];
			for j in 0..NR {
				let p = if SWAP { bv[j] * v } else { v * bv[j] };
				row[j] = row[j] + p;
			}
		}
	}
	*acc = c;
	true
}

/// [`tile_gather`] for rows that are consecutive in `x`: `a(t, r) = x[r0 + r + cb[t]]`.
#[inline(always)]
pub(crate) fn tile_rows<const MR: usize, const NR: usize, const SWAP: bool>(
	acc: &mut [[f32; NR]; MR],
	x: &[f32],
	r0: usize,
	cb: &Offsets,
	b: &[[f32; NR]],
) -> bool {
	let top = (r0 + MR).checked_add(cb.max);
	if top.is_none_or(|e| e > x.len()) || cb.v.is_empty() {
		return cb.v.is_empty();
	}
	let mut c = *acc;
	for (o, bv) in cb.v.iter().zip(b) {
		let s = r0 + o;
		// SAFETY: s + MR <= r0 + MR + max(cb) <= x.len(), checked above.
		let a = unsafe { x.get_unchecked(s..s + MR) };
		let Ok(av) = <&[f32; MR]>::try_from(a) else { return false };
		fma_step::<MR, NR, SWAP>(&mut c, av, bv);
	}
	*acc = c;
	true
}

/// One tile whose `b` values are consecutive in `x`: term `t` uses `a(t, r) = a[t][r]`
/// and `b(t, c) = x[b0 + cb[t] + c]`. `SWAP` multiplies as `b * a`. Returns false,
/// leaving `acc` alone, if some read would fall outside `x`.
#[inline(always)]
pub(crate) fn tile_lanes<const MR: usize, const NR: usize, const SWAP: bool>(
	acc: &mut [[f32; NR]; MR],
	a: &[[f32; MR]],
	x: &[f32],
	b0: usize,
	cb: &Offsets,
) -> bool {
	let top = (b0 + NR).checked_add(cb.max);
	if top.is_none_or(|e| e > x.len()) || cb.v.is_empty() {
		return cb.v.is_empty();
	}
	let mut c = *acc;
	for (av, o) in a.iter().zip(&cb.v) {
		let s = b0 + o;
		// SAFETY: s + NR <= b0 + NR + max(cb) <= x.len(), checked above.
		let b = unsafe { x.get_unchecked(s..s + NR) };
		let Ok(bv) = <&[f32; NR]>::try_from(b) else { return false };
		fma_step::<MR, NR, SWAP>(&mut c, av, bv);
	}
	*acc = c;
	true
}

/// A read-only matrix: element `(i, j)` is `d[i * rs + j * cs]`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct View<'a> {
	/// The values.
	pub d: &'a [f32],
	/// Row stride.
	pub rs: usize,
	/// Column stride.
	pub cs: usize,
}

impl View<'_> {
	/// Whether every element of a `rows x cols` matrix is inside `d`.
	fn fits(&self, rows: usize, cols: usize) -> bool {
		rows == 0
			|| cols == 0
			|| (rows - 1)
				.checked_mul(self.rs)
				.zip((cols - 1).checked_mul(self.cs))
				.and_then(|(x, y)| x.checked_add(y))
				.is_some_and(|last| last < self.d.len())
	}

	#[inline(always)]
	fn at(&self, i: usize, j: usize) -> f32 {
		self.d.get(i * self.rs + j * self.cs).copied().unwrap_or(0.0)
	}
}

/// Packs rows `i0 .. i0 + MR` of `a (m x k)` as `k` columns of `MR` (0 past `m`).
#[inline(never)]
fn pack_rows<const MR: usize>(a: View, m: usize, k: usize, i0: usize, dst: &mut Vec<[f32; MR]>) {
	dst.clear();
	dst.resize(k, [0.0; MR]);
	for r in 0..m.saturating_sub(i0).min(MR) {
		let i = i0 + r;
		if a.cs == 1 {
			if let Some(src) = a.d.get(i * a.rs..i * a.rs + k) {
				for (col, v) in dst.iter_mut().zip(src) {
					col[r] = *v;
				}
			}
		} else {
			for (t, col) in dst.iter_mut().enumerate() {
				col[r] = a.at(i, t);
			}
		}
	}
}

struct Gemm<'a> {
	a: View<'a>,
	/// `b` packed in column panels of `nr`, `k` rows each (`[f32; nr]` flattened).
	pb: &'a [f32],
	nr: usize,
	m: usize,
	k: usize,
	n: usize,
	init: Init<'a>,
	swap: bool,
}

impl Job for Gemm<'_> {
	#[inline(always)]
	fn run<const MR: usize, const NR: usize>(&self, first: usize, out: &mut [f32]) {
		if self.nr != NR || self.n == 0 {
			return;
		}
		let (k, n) = (self.k, self.n);
		let rows = out.len() / n;
		let (panels, _) = self.pb.as_chunks::<NR>();
		let mut pa = Vec::new();
		let mut r = 0;
		while r < rows {
			let i0 = first + r;
			pack_rows::<MR>(self.a, self.m, k, i0, &mut pa);
			let mr = (rows - r).min(MR);
			for p in 0..n.div_ceil(NR) {
				let bp = panels.get(p * k..(p + 1) * k).unwrap_or(&[]);
				let j0 = p * NR;
				let nc = n.saturating_sub(j0).min(NR);
				let mut acc = [[0.0f32; NR]; MR];
				for (ri, row) in acc.iter_mut().enumerate().take(mr) {
					for (c, x) in row.iter_mut().enumerate().take(nc) {
						*x = self.init.at(i0 + ri, j0 + c);
					}
				}
				if k > 0 {
					if self.swap {
						tile_packed_any::<MR, NR, true>(&mut acc, &pa, bp);
					} else {
						tile_packed_any::<MR, NR, false>(&mut acc, &pa, bp);
					}
				}
				for (ri, row) in acc.iter().enumerate().take(mr) {
					let o = (r + ri) * n + j0;
					if let Some(dst) = out.get_mut(o..o + nc) {
						dst.copy_from_slice(&row[..nc]);
					}
				}
			}
			r += MR;
		}
	}
}

/// `out (m x n, row-major) = init + a (m x k) * b (k x n)` on `threads` threads, each
/// term multiplied as `a * b`, or as `b * a` with `swap`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn gemm(
	a: View,
	b: View,
	m: usize,
	k: usize,
	n: usize,
	init: Init,
	swap: bool,
	out: &mut [f32],
	threads: usize,
) -> Result<()> {
	if !a.fits(m, k) || !b.fits(k, n) || out.len() != m * n {
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
	let t = Tiles::for_gemm(n);
	let work = m.saturating_mul(n).saturating_mul(k);
	let threads = par::threads_for(work, threads).max(1);
	// Threads take whole tiles: by rows or by column panels, whichever leaves the
	// busiest thread fewer tiles.
	let (row_tiles, panels) = (m.div_ceil(t.mr()), n.div_ceil(t.nr()));
	let fewer = panels.div_ceil(threads) * row_tiles < row_tiles.div_ceil(threads) * panels;
	if cfg!(feature = "parallel") && fewer {
		gemm_by_panels(a, b, m, k, n, init, swap, out, t, threads);
		return Ok(());
	}
	with_packed(b, k, n, t.nr(), |pb| {
		let job = Gemm { a, pb, nr: t.nr(), m, k, n, init, swap };
		exec_rows(&job, t, out, n, t.mr(), work, threads);
	});
	Ok(())
}

/// [`gemm`] (arguments checked) with threads taking contiguous column panels: each
/// packs only its own panels of `b` and computes them for every row into a buffer of
/// its own, copied into `out` afterwards. Every element sums the same terms in the
/// same order as with a split by rows.
#[allow(clippy::too_many_arguments)]
fn gemm_by_panels(
	a: View,
	b: View,
	m: usize,
	k: usize,
	n: usize,
	init: Init,
	swap: bool,
	out: &mut [f32],
	t: Tiles,
	threads: usize,
) {
	let nr = t.nr();
	let parts = par::map_ranges(n.div_ceil(nr), threads, |panels| {
		let (j0, j1) = (panels.start * nr, (panels.end * nr).min(n));
		let nc = j1.saturating_sub(j0);
		let b = View { d: b.d.get(j0 * b.cs..).unwrap_or(&[]), ..b };
		let init = match init {
			Init::Col(v) => Init::Col(v.get(j0..j1).unwrap_or(&[])),
			other => other,
		};
		let mut part = scratch::take_dirty(m * nc);
		with_packed(b, k, nc, nr, |pb| {
			exec(&Gemm { a, pb, nr, m, k, n: nc, init, swap }, t, 0, &mut part);
		});
		(j0, nc, part)
	});
	for (j0, nc, part) in parts {
		for (row, src) in out.chunks_exact_mut(n).zip(part.chunks_exact(nc.max(1))) {
			if let Some(dst) = row.get_mut(j0..j0 + nc) {
				dst.copy_from_slice(src);
			}
		}
		scratch::give(part);
	}
}

/// Calls `f` with `b (k x n)` packed in column panels of `nr` lanes (a tile width:
/// 4, 8, 16 or 32), flattened.
fn with_packed(b: View, k: usize, n: usize, nr: usize, f: impl FnOnce(&[f32])) {
	match nr {
		4 => f(pack_all::<4>(b, k, n).as_flattened()),
		8 => f(pack_all::<8>(b, k, n).as_flattened()),
		16 => f(pack_all::<16>(b, k, n).as_flattened()),
		_ => f(pack_all::<32>(b, k, n).as_flattened()),
	}
}

/// `b (k x n)` as column panels of `NR`: panel `p` holds `k` rows of columns
/// `p * NR .. p * NR + NR` (0 past `n`).
fn pack_all<const NR: usize>(b: View, k: usize, n: usize) -> Vec<[f32; NR]> {
	let panels = n.div_ceil(NR);
	let mut all = vec![[0.0f32; NR]; panels * k];
	for (p, panel) in all.chunks_exact_mut(k.max(1)).enumerate() {
		let j0 = p * NR;
		let cols = n.saturating_sub(j0).min(NR);
		if b.cs == 1 {
			for (t, row) in panel.iter_mut().enumerate() {
				if let Some(src) = b.d.get(t * b.rs + j0..t * b.rs + j0 + cols) {
					row[..cols].copy_from_slice(src);
				}
			}
		} else if b.rs == 1 && cols == NR {
			// Whole panel of column-contiguous `b`: build each row from NR streams.
			let mut src = [&b.d[..0]; NR];
			for (c, sc) in src.iter_mut().enumerate() {
				let s = (j0 + c) * b.cs;
				*sc = b.d.get(s..s + k).unwrap_or(&[]);
			}
			if src.iter().all(|sc| sc.len() == k) {
				for (t, row) in panel.iter_mut().enumerate() {
					for c in 0..NR {
						row[c] = src[c][t];
					}
				}
			}
		} else if b.rs == 1 {
			for c in 0..cols {
				let s = (j0 + c) * b.cs;
				if let Some(src) = b.d.get(s..s + k) {
					for (row, v) in panel.iter_mut().zip(src) {
						row[c] = *v;
					}
				}
			}
		} else {
			for c in 0..cols {
				for (t, row) in panel.iter_mut().enumerate() {
					row[c] = b.at(t, j0 + c);
				}
			}
		}
	}
	all
}

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
	if a.len() != m * k || b.len() != k * n {
		return Err(ReproError::ShapeMismatch);
	}
	let av = View { d: a, rs: k, cs: 1 };
	let bv = View { d: b, rs: n, cs: 1 };
	gemm(av, bv, m, k, n, init, false, out, threads)
}

/// The plain definition of [`matmul`], one element at a time (for tests).
#[cfg(test)]
#[allow(clippy::too_many_arguments)]
pub(crate) fn matmul_reference(
	a: &[f32],
	b: &[f32],
	m: usize,
	k: usize,
	n: usize,
	init: Init,
	out: &mut [f32],
) -> Result<()> {
	if a.len() != m * k || b.len() != k * n || out.len() != m * n {
		return Err(ReproError::ShapeMismatch);
	}
	for (e, o) in out.iter_mut().enumerate() {
		let (i, j) = (e / n, e % n);
		let mut acc = init.at(i, j);
		for t in 0..k {
			let p = a[i * k + t] * b[t * n + j];
			acc = acc + p;
		}
		*o = acc;
	}
	Ok(())
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

#[cfg(test)]
mod tests {
	use super::*;

	fn values(n: usize, seed: u32) -> Vec<f32> {
		let mut s = seed.wrapping_mul(2654435761).wrapping_add(1);
		(0..n)
			.map(|_| {
				s ^= s << 13;
				s ^= s >> 17;
				s ^= s << 5;
				// Mixed magnitudes and signs so that rounding depends on the order.
				let m = (s >> 8) as f32 / 16_777_216.0 - 0.5;
				let e = [1.0f32, 1e-3, 37.0, 1e4][(s & 3) as usize];
				m * e
			})
			.collect()
	}

	#[test]
	fn matmul_matches_the_reference_bitwise_on_odd_sizes() {
		for &(m, k, n) in &[
			(1, 1, 1),
			(3, 5, 7),
			(7, 13, 17),
			(13, 1, 33),
			(6, 0, 5),
			(65, 129, 31),
			(100, 37, 600),
		] {
			let a = values(m * k, 1 + m as u32);
			let b = values(k * n, 7 + n as u32);
			let bias_c = values(n, 3);
			let bias_r = values(m, 4);
			for init in [Init::Zero, Init::Col(&bias_c), Init::Row(&bias_r)] {
				let mut want = vec![0.0; m * n];
				matmul_reference(&a, &b, m, k, n, init, &mut want).unwrap();
				for threads in [1, 2, 3] {
					let mut got = vec![1.0; m * n];
					matmul(&a, &b, m, k, n, init, &mut got, threads).unwrap();
					let same = got.iter().zip(&want).all(|(x, y)| x.to_bits() == y.to_bits());
					assert!(same, "{m}x{k}x{n} {init:?} threads {threads}");
				}
			}
		}
	}

	#[test]
	fn every_tile_build_matches_the_reference() {
		// Each instruction set this CPU runs, each tile shape, forced.
		let (m, k, n) = (29, 67, 75);
		let a = values(m * k, 11);
		let b = values(k * n, 12);
		let bias = values(n, 13);
		let mut want = vec![0.0; m * n];
		matmul_reference(&a, &b, m, k, n, Init::Col(&bias), &mut want).unwrap();
		let isas = [Isa::Portable, Isa::Avx2, Isa::Avx512];
		for isa in isas.into_iter().filter(|&i| runs(i)) {
			for shape in [Shape::Widest, Shape::Wide, Shape::Narrow, Shape::Square] {
				let t = Tiles { isa, shape };
				let mut got = vec![f32::NAN; m * n];
				with_packed(View { d: &b, rs: n, cs: 1 }, k, n, t.nr(), |pb| {
					let a = View { d: &a, rs: k, cs: 1 };
					let job =
						Gemm { a, pb, nr: t.nr(), m, k, n, init: Init::Col(&bias), swap: false };
					exec(&job, t, 0, &mut got);
				});
				let same = got.iter().zip(&want).all(|(x, y)| x.to_bits() == y.to_bits());
				assert!(same, "{t:?}");
			}
		}
	}
}
