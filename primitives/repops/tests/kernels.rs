//! The fast kernels against the per-element reference definitions (`element`), bit for
//! bit, on one-op graphs with odd sizes, strides, paddings and thread counts.

use gensyn_repops::{
	element,
	graph::{ConvGeom, Graph, Op, OpKind, PoolGeom, TensorInfo, TensorKind},
	model::run_op,
};

/// Mixed magnitudes and signs, with some exact `+0` and `-0`.
fn values(n: usize, seed: u64) -> Vec<f32> {
	let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15).wrapping_add(7);
	(0..n)
		.map(|_| {
			s ^= s << 13;
			s ^= s >> 7;
			s ^= s << 17;
			match s % 16 {
				0 => 0.0,
				1 => -0.0,
				_ => {
					let m = ((s >> 20) & 0xFF_FFFF) as f32 / 16_777_216.0 - 0.5;
					m * [1.0f32, 1e-3, 37.0, 1e3][((s >> 8) % 4) as usize]
				}
			}
		})
		.collect()
}

/// Runs `kind` on `inputs` with 1, 2 and 3 threads and checks every output element
/// against `element::eval_element`.
fn check(kind: OpKind, inputs: Vec<Vec<f32>>, out_len: usize) {
	check_with(kind, inputs, out_len, |a, b| a.to_bits() == b.to_bits())
}

/// [`check`] with the equality `same`.
fn check_with(kind: OpKind, inputs: Vec<Vec<f32>>, out_len: usize, same: fn(f32, f32) -> bool) {
	// Split every op across the threads asked for, however small.
	gensyn_repops::par::set_min_parallel_work(0);
	let mut tensors: Vec<TensorInfo> = inputs
		.iter()
		.map(|v| TensorInfo { kind: TensorKind::Value, shape: vec![v.len() as u32] })
		.collect();
	tensors.push(TensorInfo { kind: TensorKind::Value, shape: vec![out_len as u32] });
	let n_in = inputs.len() as u32;
	let g = Graph {
		tensors,
		ops: vec![Op { kind, inputs: (0..n_in).collect(), output: n_in }],
		batch: 1,
		loss: n_in,
		params: vec![],
		opt_state: vec![],
		new_params: vec![],
		new_opt_state: vec![],
	};
	let mut vals = inputs;
	vals.push(vec![]);
	// Reused buffers hold old values: poison them so that an element a kernel forgets
	// to write shows. Besides the output's size, buffers of every power of two from the
	// scratch pool's smallest, so that any working buffer (a padded image, packed
	// panels) can be handed a poisoned one.
	let poison = || {
		gensyn_repops::par::scratch::clear();
		for _ in 0..4 {
			gensyn_repops::par::scratch::give(vec![f32::NAN; out_len]);
		}
		for shift in 12..19 {
			for _ in 0..2 {
				gensyn_repops::par::scratch::give(vec![f32::NAN; 1 << shift]);
			}
		}
	};
	poison();
	let first = run_op(&g, 0, &vals, 1).unwrap();
	assert_eq!(first.len(), out_len);
	for threads in [2, 3] {
		poison();
		let other = run_op(&g, 0, &vals, threads).unwrap();
		let all = first.iter().zip(&other).all(|(a, b)| same(*a, *b));
		assert!(all, "{kind:?}: threads {threads} differ");
	}
	vals[n_in as usize] = first.clone();
	let fetch = |t: u32, i: u64| vals.get(t as usize).and_then(|v| v.get(i as usize)).copied();
	for (e, want) in first.iter().enumerate() {
		let got = element::eval_element(&g, 0, e as u64, &fetch).unwrap();
		assert!(same(got, *want), "{kind:?} element {e}: {got} vs {want}");
	}
}

#[allow(clippy::too_many_arguments)]
fn geom(batch: u32, ic: u32, ih: u32, iw: u32, oc: u32, k: u32, stride: u32, pad: u32) -> ConvGeom {
	let oh = (ih + 2 * pad - k) / stride + 1;
	let ow = (iw + 2 * pad - k) / stride + 1;
	ConvGeom { batch, ic, ih, iw, oc, k, stride, pad, oh, ow }
}

fn geometries() -> Vec<ConvGeom> {
	vec![
		geom(2, 1, 28, 28, 8, 3, 1, 0),
		geom(8, 8, 13, 13, 16, 3, 1, 1),
		geom(2, 3, 9, 7, 5, 3, 2, 1),
		geom(2, 2, 8, 8, 3, 1, 1, 0),
		geom(2, 3, 7, 9, 20, 5, 1, 2),
		geom(1, 5, 6, 6, 9, 3, 1, 2),
		geom(2, 2, 7, 7, 4, 2, 1, 1),
		geom(2, 4, 10, 11, 6, 3, 3, 0),
		geom(2, 17, 5, 5, 3, 3, 1, 1),
		geom(1, 2, 4, 5, 3, 3, 1, 3),
	]
}

#[test]
fn conv_kernels_match_the_definitions() {
	for (i, c) in geometries().into_iter().enumerate() {
		let s = i as u64 * 10;
		let x = values((c.batch * c.ic * c.ih * c.iw) as usize, s + 1);
		let w = values((c.oc * c.ic * c.k * c.k) as usize, s + 2);
		let bias = values(c.oc as usize, s + 3);
		let dy = values((c.batch * c.oc * c.oh * c.ow) as usize, s + 4);
		let (n_x, n_y) = (x.len(), dy.len());
		check(OpKind::ConvFwd(c), vec![x.clone(), w.clone(), bias], n_y);
		check(OpKind::ConvBwdWeight(c), vec![dy.clone(), x], w.len());
		check(OpKind::ConvBwdBias(c), vec![dy.clone()], c.oc as usize);
		check(OpKind::ConvBwdInput(c), vec![dy.clone(), w.clone()], n_x);
		// Non-finite weights take the plain input-gradient path. (Which NaN comes out
		// of an add of two NaNs is the compiler's choice, so NaNs only match as NaNs.)
		let mut bad = w.clone();
		bad[0] = f32::NAN;
		if bad.len() > 2 {
			bad[2] = f32::INFINITY;
		}
		let same = |a: f32, b: f32| a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan());
		check_with(OpKind::ConvBwdInput(c), vec![dy, bad], n_x, same);
	}
}

#[test]
fn linear_kernels_match_the_definitions() {
	for (i, &(batch, fin, fout)) in
		[(1, 1, 1), (7, 13, 19), (33, 70, 40), (64, 300, 50), (5, 9, 3), (64, 784, 128)]
			.iter()
			.enumerate()
	{
		let s = i as u64 * 10 + 500;
		let (b, fi, fo) = (batch as usize, fin as usize, fout as usize);
		let x = values(b * fi, s + 1);
		let w = values(fo * fi, s + 2);
		let bias = values(fo, s + 3);
		let dy = values(b * fo, s + 4);
		check(OpKind::LinearFwd { batch, fin, fout }, vec![x.clone(), w.clone(), bias], b * fo);
		check(OpKind::LinearBwdInput { batch, fin, fout }, vec![dy.clone(), w], b * fi);
		check(OpKind::LinearBwdWeight { batch, fin, fout }, vec![dy.clone(), x], fo * fi);
		check(OpKind::LinearBwdBias { batch, fout }, vec![dy], fo);
	}
}

#[test]
fn pool_and_relu_kernels_match_the_definitions() {
	for (i, &(batch, c, ih, iw, k, stride)) in
		[(4, 8, 26, 26, 2, 2), (3, 2, 13, 13, 2, 2), (2, 2, 9, 28, 3, 2), (1, 3, 7, 8, 3, 1)]
			.iter()
			.enumerate()
	{
		let (oh, ow) = ((ih - k) / stride + 1, (iw - k) / stride + 1);
		let g = PoolGeom { batch, c, ih, iw, k, stride, oh, ow };
		let s = i as u64 * 10 + 900;
		let x = values((batch * c * ih * iw) as usize, s + 1);
		let dy = values((batch * c * oh * ow) as usize, s + 2);
		check(OpKind::PoolFwd(g), vec![x.clone()], dy.len());
		check(OpKind::PoolBwd(g), vec![x.clone(), dy], x.len());
		check(OpKind::ReluFwd, vec![x.clone()], x.len());
		check(OpKind::ReluBwd, vec![x.clone(), values(x.len(), s + 3)], x.len());
	}
}
