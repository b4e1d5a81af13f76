//! One output element of one op, and one step of its reduction: the last two levels of
//! the pinpoint game. These are the reference definitions; the fast kernels produce the
//! same bits (checked by tests).
//!
//! Values are read through a `fetch(tensor_id, flat_index) -> Option<f32>` callback, so
//! the chain can serve them from Merkle-proven openings. An op is either a *reduction*
//! (an accumulator from an initial value, then one term per step, then an optional
//! final division) or *element-wise* (evaluated whole from a few inputs).
//!
//! Reduction steps: `Dot`: `acc + a * b`; `Max`: `a > acc ? a : acc`;
//! `ExpSum`: `acc + expf(a - b)`; `SquareDev`: `acc + (a - b) * (a - b)`.

use crate::{
	graph::{Graph, Op, OpKind},
	loss, optim,
	transformer::{layernorm, ops},
	ReproError, Result,
};
use alloc::vec::Vec;

/// Where a value comes from.
#[derive(Clone, Copy, PartialEq, Debug)]
pub enum Operand {
	/// Element `index` (flat, row-major) of tensor `tensor`.
	Tensor {
		/// Tensor id in the graph.
		tensor: u32,
		/// Flat index.
		index: u64,
	},
	/// A constant (zero padding, or 1 in a plain sum).
	Const(f32),
}

/// The step function of a reduction.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum ReductionKind {
	/// `acc + a * b`.
	Dot,
	/// `a > acc ? a : acc` (`b` unused).
	Max,
	/// `acc + expf(a - b)`.
	ExpSum,
	/// `acc + (a - b) * (a - b)` (a variance's sum about the mean `b`).
	SquareDev,
	/// `acc + a` where `b` is token `.0`, else `acc` (an embedding's gradient: the rows
	/// that picked it).
	TokenSum(u32),
}

/// What a reduction's accumulator becomes once every term is in.
#[derive(Clone, Copy, PartialEq, Debug)]
pub enum Finish {
	/// It is the result.
	None,
	/// `acc / divisor` (a mean).
	Divide(f32),
	/// `acc * scale` (attention's `1 / sqrt(dh)`).
	Scale(f32),
	/// `1 / sqrt(acc / d + eps)` (LayerNorm's, from the variance's sum).
	Rstd {
		/// Features a row.
		d: u32,
		/// LayerNorm's `eps`.
		eps: f32,
	},
}

/// The shape of one element's reduction.
#[derive(Clone, Copy, PartialEq, Debug)]
pub struct Reduction {
	/// Step function.
	pub kind: ReductionKind,
	/// Number of terms.
	pub len: u64,
	/// The accumulator's initial value.
	pub init: Operand,
	/// What the accumulator becomes at the end.
	pub finish: Finish,
}

fn op_of(g: &Graph, op: usize) -> Result<&Op> {
	g.ops.get(op).ok_or(ReproError::OutOfRange)
}

fn input(op: &Op, k: usize) -> Result<u32> {
	op.inputs.get(k).copied().ok_or(ReproError::OutOfRange)
}

fn t(tensor: u32, index: usize) -> Operand {
	Operand::Tensor { tensor, index: index as u64 }
}

/// The element counts of `op`'s inputs, by position.
fn input_lens<'a>(g: &'a Graph, op: &'a Op) -> impl Fn(usize) -> Option<usize> + 'a {
	move |k| g.tensors.get(*op.inputs.get(k)? as usize).map(|t| t.numel())
}

fn check_elem(g: &Graph, op: &Op, elem: u64) -> Result<usize> {
	let n = g.tensors.get(op.output as usize).ok_or(ReproError::OutOfRange)?.numel();
	if elem >= n as u64 {
		return Err(ReproError::OutOfRange);
	}
	Ok(elem as usize)
}

/// The reduction of element `elem` of op `op`, or `None` for an element-wise op.
pub fn reduction(g: &Graph, op: usize, elem: u64) -> Result<Option<Reduction>> {
	let o = op_of(g, op)?;
	let e = check_elem(g, o, elem)?;
	let dot = |len: usize, init: Operand| {
		Some(Reduction { kind: ReductionKind::Dot, len: len as u64, init, finish: Finish::None })
	};
	Ok(match o.kind {
		OpKind::LinearFwd { fin, fout, .. } => {
			dot(fin as usize, t(input(o, 2)?, e % fout as usize))
		}
		OpKind::LinearBwdInput { fout, .. } => dot(fout as usize, Operand::Const(0.0)),
		OpKind::LinearBwdWeight { batch, .. } | OpKind::LinearBwdBias { batch, .. } => {
			dot(batch as usize, Operand::Const(0.0))
		}
		OpKind::ConvFwd(c) => {
			let oc = (e / (c.oh * c.ow) as usize) % c.oc as usize;
			dot((c.ic * c.k * c.k) as usize, t(input(o, 2)?, oc))
		}
		OpKind::ConvBwdWeight(c) | OpKind::ConvBwdBias(c) => {
			dot((c.batch * c.oh * c.ow) as usize, Operand::Const(0.0))
		}
		OpKind::ConvBwdInput(c) => {
			let taps = conv_input_taps(&c, e).len();
			dot(taps * c.oc as usize, Operand::Const(0.0))
		}
		OpKind::RowMax { classes, .. } => Some(Reduction {
			kind: ReductionKind::Max,
			len: classes as u64,
			init: Operand::Const(f32::NEG_INFINITY),
			finish: Finish::None,
		}),
		OpKind::PoolFwd(p) => Some(Reduction {
			kind: ReductionKind::Max,
			len: (p.k * p.k) as u64,
			init: Operand::Const(f32::NEG_INFINITY),
			finish: Finish::None,
		}),
		OpKind::ExpSum { classes, .. } => Some(Reduction {
			kind: ReductionKind::ExpSum,
			len: classes as u64,
			init: Operand::Const(0.0),
			finish: Finish::None,
		}),
		OpKind::MeanLoss { batch } => Some(Reduction {
			kind: ReductionKind::Dot,
			len: batch as u64,
			init: Operand::Const(0.0),
			finish: Finish::Divide(batch as f32),
		}),
		OpKind::Lm(kind) => ops::reduction(kind, e, &input_lens(g, o)),
		_ => None,
	})
}

/// Valid `(kh, kw, oy, ox)` taps of a convolution's input-gradient element, in order.
fn conv_input_taps(c: &crate::graph::ConvGeom, e: usize) -> Vec<(usize, usize, usize, usize)> {
	let (iw, ih, k, s, p) =
		(c.iw as usize, c.ih as usize, c.k as usize, c.stride as usize, c.pad as usize);
	let ix = e % iw;
	let iy = (e / iw) % ih;
	let mut v = Vec::new();
	for kh in 0..k {
		let ty = (iy + p) as isize - kh as isize;
		if ty < 0 || !(ty as usize).is_multiple_of(s) || (ty as usize) / s >= c.oh as usize {
			continue;
		}
		for kw in 0..k {
			let tx = (ix + p) as isize - kw as isize;
			if tx < 0 || !(tx as usize).is_multiple_of(s) || (tx as usize) / s >= c.ow as usize {
				continue;
			}
			v.push((kh, kw, (ty as usize) / s, (tx as usize) / s));
		}
	}
	v
}

/// The two operands of term `j` of element `elem`'s reduction (`b` is `Const(1)` in a
/// plain sum and unused in a max).
pub fn term_operands(g: &Graph, op: usize, elem: u64, j: u64) -> Result<[Operand; 2]> {
	let o = op_of(g, op)?;
	let e = check_elem(g, o, elem)?;
	let red = reduction(g, op, elem)?.ok_or(ReproError::OutOfRange)?;
	if j >= red.len {
		return Err(ReproError::OutOfRange);
	}
	let j = j as usize;
	let one = Operand::Const(1.0);
	let unused = Operand::Const(0.0);
	Ok(match o.kind {
		OpKind::LinearFwd { fin, fout, .. } => {
			let (b, oo, fin) = (e / fout as usize, e % fout as usize, fin as usize);
			[t(input(o, 0)?, b * fin + j), t(input(o, 1)?, oo * fin + j)]
		}
		OpKind::LinearBwdInput { fin, fout, .. } => {
			let (b, i, fin) = (e / fin as usize, e % fin as usize, fin as usize);
			[t(input(o, 0)?, b * fout as usize + j), t(input(o, 1)?, j * fin + i)]
		}
		OpKind::LinearBwdWeight { fin, fout, .. } => {
			let (oo, i) = (e / fin as usize, e % fin as usize);
			[t(input(o, 0)?, j * fout as usize + oo), t(input(o, 1)?, j * fin as usize + i)]
		}
		OpKind::LinearBwdBias { fout, .. } => [t(input(o, 0)?, j * fout as usize + e), one],
		OpKind::ConvFwd(c) => {
			let (ow, oh, k) = (c.ow as usize, c.oh as usize, c.k as usize);
			let (ox, oy) = (e % ow, (e / ow) % oh);
			let oc = (e / (ow * oh)) % c.oc as usize;
			let b = e / (ow * oh * c.oc as usize);
			let (ic, kh, kw) = (j / (k * k), (j / k) % k, j % k);
			let x = padded(input(o, 0)?, &c, b, ic, oy, ox, kh, kw);
			[x, t(input(o, 1)?, ((oc * c.ic as usize + ic) * k + kh) * k + kw)]
		}
		OpKind::ConvBwdWeight(c) => {
			let k = c.k as usize;
			let (kw, kh) = (e % k, (e / k) % k);
			let ic = (e / (k * k)) % c.ic as usize;
			let oc = e / (k * k * c.ic as usize);
			let pos = (c.oh * c.ow) as usize;
			let (b, p) = (j / pos, j % pos);
			let (oy, ox) = (p / c.ow as usize, p % c.ow as usize);
			let dy = t(input(o, 0)?, (b * c.oc as usize + oc) * pos + p);
			[dy, padded(input(o, 1)?, &c, b, ic, oy, ox, kh, kw)]
		}
		OpKind::ConvBwdBias(c) => {
			let pos = (c.oh * c.ow) as usize;
			let (b, p) = (j / pos, j % pos);
			[t(input(o, 0)?, (b * c.oc as usize + e) * pos + p), one]
		}
		OpKind::ConvBwdInput(c) => {
			let taps = conv_input_taps(&c, e);
			let ocn = c.oc as usize;
			let (kh, kw, oy, ox) = *taps.get(j / ocn).ok_or(ReproError::OutOfRange)?;
			let oc = j % ocn;
			let plane = (c.ih * c.iw) as usize;
			let ic = (e / plane) % c.ic as usize;
			let b = e / (plane * c.ic as usize);
			let k = c.k as usize;
			let dy = t(input(o, 0)?, ((b * ocn + oc) * c.oh as usize + oy) * c.ow as usize + ox);
			[dy, t(input(o, 1)?, ((oc * c.ic as usize + ic) * k + kh) * k + kw)]
		}
		OpKind::RowMax { classes, .. } => [t(input(o, 0)?, e * classes as usize + j), unused],
		OpKind::ExpSum { classes, .. } => {
			[t(input(o, 0)?, e * classes as usize + j), t(input(o, 1)?, e)]
		}
		OpKind::MeanLoss { .. } => [t(input(o, 0)?, j), one],
		OpKind::Lm(kind) => {
			let [a, b] = ops::terms(kind, e, j, &input_lens(g, o))?;
			let operand = |term: ops::Term| -> Result<Operand> {
				Ok(match term {
					ops::Term::In(k, i) => t(input(o, k)?, i),
					ops::Term::Const(c) => Operand::Const(c),
				})
			};
			[operand(a)?, operand(b)?]
		}
		OpKind::PoolFwd(p) => {
			let (ow, oh, k, s) = (p.ow as usize, p.oh as usize, p.k as usize, p.stride as usize);
			let (ox, oy, plane) = (e % ow, (e / ow) % oh, e / (ow * oh));
			let (kh, kw) = (j / k, j % k);
			[
				t(
					input(o, 0)?,
					plane * (p.ih * p.iw) as usize + (oy * s + kh) * p.iw as usize + ox * s + kw,
				),
				unused,
			]
		}
		_ => return Err(ReproError::OutOfRange),
	})
}

#[allow(clippy::too_many_arguments)]
fn padded(
	x: u32,
	c: &crate::graph::ConvGeom,
	b: usize,
	ic: usize,
	oy: usize,
	ox: usize,
	kh: usize,
	kw: usize,
) -> Operand {
	let y = (oy * c.stride as usize + kh) as isize - c.pad as isize;
	let xx = (ox * c.stride as usize + kw) as isize - c.pad as isize;
	if y < 0 || xx < 0 || y as usize >= c.ih as usize || xx as usize >= c.iw as usize {
		return Operand::Const(0.0);
	}
	t(x, ((b * c.ic as usize + ic) * c.ih as usize + y as usize) * c.iw as usize + xx as usize)
}

/// Reads an operand.
pub fn value(o: Operand, fetch: &dyn Fn(u32, u64) -> Option<f32>) -> Result<f32> {
	match o {
		Operand::Const(c) => Ok(c),
		Operand::Tensor { tensor, index } => fetch(tensor, index).ok_or(ReproError::MissingOperand),
	}
}

/// One reduction step: the accumulator after a term with operand values `a`, `b`.
pub fn apply(kind: ReductionKind, acc: f32, a: f32, b: f32) -> f32 {
	match kind {
		ReductionKind::Dot => {
			let p = a * b;
			acc + p
		}
		ReductionKind::Max => loss::max_step(acc, a),
		ReductionKind::ExpSum => acc + loss::shifted_exp(a, b),
		ReductionKind::SquareDev => layernorm::square_step(acc, a, b),
		ReductionKind::TokenSum(token) => {
			if b == token as f32 {
				acc + a
			} else {
				acc
			}
		}
	}
}

/// The accumulator after step `j` of element `elem`'s reduction, from `acc` (the value
/// after `j` terms): what the chain recomputes at the pinpoint game's last move.
pub fn reduction_step(
	g: &Graph,
	op: usize,
	elem: u64,
	j: u64,
	acc: f32,
	fetch: &dyn Fn(u32, u64) -> Option<f32>,
) -> Result<f32> {
	let red = reduction(g, op, elem)?.ok_or(ReproError::OutOfRange)?;
	let [a, b] = term_operands(g, op, elem, j)?;
	Ok(apply(red.kind, acc, value(a, fetch)?, value(b, fetch)?))
}

/// The accumulator after the first `j` terms (`j = 0`: the initial value).
pub fn partial(
	g: &Graph,
	op: usize,
	elem: u64,
	j: u64,
	fetch: &dyn Fn(u32, u64) -> Option<f32>,
) -> Result<f32> {
	let red = reduction(g, op, elem)?.ok_or(ReproError::OutOfRange)?;
	if j > red.len {
		return Err(ReproError::OutOfRange);
	}
	let mut acc = value(red.init, fetch)?;
	for s in 0..j {
		acc = reduction_step(g, op, elem, s, acc, fetch)?;
	}
	Ok(acc)
}

/// The final value from the accumulator after every term.
pub fn finish(red: &Reduction, acc: f32) -> f32 {
	match red.finish {
		Finish::None => acc,
		Finish::Divide(d) => acc / d,
		Finish::Scale(s) => acc * s,
		Finish::Rstd { d, eps } => layernorm::rstd_of(acc, d as usize, eps),
	}
}

/// Element `elem` of op `op`'s output, computed on its own.
pub fn eval_element(
	g: &Graph,
	op: usize,
	elem: u64,
	fetch: &dyn Fn(u32, u64) -> Option<f32>,
) -> Result<f32> {
	if let Some(red) = reduction(g, op, elem)? {
		let acc = partial(g, op, elem, red.len, fetch)?;
		return Ok(finish(&red, acc));
	}
	let o = op_of(g, op)?;
	let e = check_elem(g, o, elem)?;
	let v = |k: usize, i: usize| -> Result<f32> { value(t(input(o, k)?, i), fetch) };
	Ok(match o.kind {
		OpKind::ReluFwd => {
			let x = v(0, e)?;
			if x > 0.0 {
				x
			} else {
				0.0
			}
		}
		OpKind::ReluBwd => {
			if v(0, e)? > 0.0 {
				v(1, e)?
			} else {
				0.0
			}
		}
		OpKind::Flatten | OpKind::FlattenBwd => v(0, e)?,
		OpKind::PoolBwd(p) => {
			let (ih, iw, k, s) = (p.ih as usize, p.iw as usize, p.k as usize, p.stride as usize);
			let (oh, ow) = (p.oh as usize, p.ow as usize);
			let (ix, iy, plane) = (e % iw, (e / iw) % ih, e / (iw * ih));
			let lo = |i: usize| if i + 1 >= k { (i + 1 - k).div_ceil(s) } else { 0 };
			let mut acc = 0.0f32;
			for oy in lo(iy)..=(iy / s).min(oh.saturating_sub(1)) {
				for ox in lo(ix)..=(ix / s).min(ow.saturating_sub(1)) {
					let mut best = f32::NEG_INFINITY;
					let mut arg = None;
					for kh in 0..k {
						for kw in 0..k {
							let idx = plane * ih * iw + (oy * s + kh) * iw + ox * s + kw;
							let x = v(0, idx)?;
							if x > best {
								best = x;
								arg = Some(idx);
							}
						}
					}
					if arg == Some(e) {
						acc = acc + v(1, plane * oh * ow + oy * ow + ox)?;
					}
				}
			}
			acc
		}
		OpKind::SampleLoss { classes, .. } => {
			let c = classes as usize;
			let y = v(3, e)?;
			if !(y >= 0.0 && y < classes as f32) {
				return Err(ReproError::LabelOutOfRange);
			}
			loss::sample_loss(v(1, e)?, v(2, e)?, v(0, e * c + y as usize)?)
		}
		OpKind::LossGrad { batch, classes } => {
			let c = classes as usize;
			let b = e / c;
			let y = v(3, b)?;
			if !(y >= 0.0 && y < classes as f32) {
				return Err(ReproError::LabelOutOfRange);
			}
			loss::grad(v(0, e)?, v(1, b)?, v(2, b)?, e % c == y as usize, batch as f32)
		}
		OpKind::SgdMomentum { momentum } => optim::sgd_momentum(momentum, v(0, e)?, v(1, e)?),
		OpKind::SgdParam { lr } => optim::sgd_param(lr, v(0, e)?, v(1, e)?),
		OpKind::AdamM { beta1 } => optim::adam_m(beta1, v(0, e)?, v(1, e)?),
		OpKind::AdamV { beta2 } => optim::adam_v(beta2, v(0, e)?, v(1, e)?),
		OpKind::AdamParam(sc) => optim::adam_param(&sc, v(0, e)?, v(1, e)?, v(2, e)?),
		OpKind::AdamWParam { sc, decay } => {
			optim::adam_param(&sc, optim::adamw_decay(decay, v(0, e)?), v(1, e)?, v(2, e)?)
		}
		OpKind::Lm(kind) => ops::element(kind, e, &v)?,
		_ => return Err(ReproError::OutOfRange),
	})
}
