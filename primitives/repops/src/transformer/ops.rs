//! A language model's step as op-graph operators ([`crate::graph::OpKind::Lm`]):
//! each op writes one tensor, is either a reduction (one accumulator per output element,
//! walked in a fixed order) or element-wise, and has the same definition three ways:
//! the whole op ([`run`]), the shape and terms of one element's reduction
//! ([`reduction`], [`terms`]) and one element-wise value ([`element`]). They
//! call the per-element functions the transformer's modules call, so a graph of these
//! ops gives the bits [`super::task::train_step`] gives (tests check it), and the
//! pinpoint game can rule on any one of its values. The projections, the loss and
//! Adam's moments are the image models' ops.
//!
//! Layouts: activations are `rows x d` (a batch's sequences one after another, one row
//! per position); attention's scores and weights are `batch x heads x t x t`, its
//! per-row statistics `batch x heads x t`. Token ids are read from the batch input as
//! `f32` (exact below 2^24) and must be whole and below the vocabulary.

use super::{attention, causal_softmax, clip, gelu, layernorm};
use crate::{
	element::{self, Finish, Operand, Reduction, ReductionKind},
	ReproError, Result,
};

/// The sizes of a batch's attention: `batch` sequences of `t` positions, `heads` heads of
/// `dh` features each (`d = heads * dh` features a row).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Heads {
	/// Sequences.
	pub batch: u32,
	/// Positions per sequence.
	pub t: u32,
	/// Heads.
	pub heads: u32,
	/// Features per head.
	pub dh: u32,
}

impl Heads {
	fn d(&self) -> usize {
		(self.heads as usize).saturating_mul(self.dh as usize)
	}

	/// The sequence, head and query position of statistics row `e` (`batch x heads x t`).
	fn row(&self, e: usize) -> (usize, usize, usize) {
		let (t, h) = (self.t as usize, self.heads as usize);
		(quot(e, h * t), rem(quot(e, t), h), rem(e, t))
	}

	/// Flat index of column `c` of head `h` at position `i` of sequence `b` in a
	/// `rows x d` buffer.
	fn at(&self, b: usize, i: usize, h: usize, c: usize) -> usize {
		(b * self.t as usize + i) * self.d() + h * self.dh as usize + c
	}
}

/// A language model's operator; inputs listed per variant as `[..]`.
#[derive(Clone, Copy, PartialEq, Debug)]
pub enum LmOp {
	/// `[ids, tok, pos] -> x[r, j] = tok[ids[r], j] + pos[r % t, j]` (the two lookups
	/// added once).
	Embed {
		/// Rows (`batch * t`).
		rows: u32,
		/// Positions per sequence.
		t: u32,
		/// Features.
		d: u32,
		/// Tokens in the vocabulary.
		vocab: u32,
	},
	/// `[x] -> mean[r] = (sum_j x[r, j]) / d`, from `+0`.
	RowMean {
		/// Rows.
		rows: u32,
		/// Features.
		d: u32,
	},
	/// `[x, mean] -> rstd[r] = 1 / sqrt((sum_j (x[r, j] - mean[r])^2) / d + eps)`.
	RowRstd {
		/// Rows.
		rows: u32,
		/// Features.
		d: u32,
		/// LayerNorm's `eps`.
		eps: f32,
	},
	/// `[xhat, gamma, beta] -> xhat * gamma[j] + beta[j]` (LayerNorm's output, from
	/// [`LmOp::Xhat`]).
	Affine {
		/// Rows.
		rows: u32,
		/// Features.
		d: u32,
	},
	/// `[q, k] -> s[b, h, i, j] = (sum_c q[b, i, h, c] * k[b, j, h, c]) * (1 /
	/// sqrt(dh))`, every `(i, j)` (masked ones too: never read).
	Scores(Heads),
	/// `[s] -> m[b, h, i] = max_{j <= i} s[b, h, i, j]`, from `-inf`.
	CausalMax(Heads),
	/// `[s, m] -> z[b, h, i] = sum_{j <= i} exp(s[b, h, i, j] - m[b, h, i])`, from `+0`.
	CausalExpSum(Heads),
	/// `[s, m, z] -> p[b, h, i, j] = exp(s - m) / z` for `j <= i`, else `+0`.
	CausalProb(Heads),
	/// `[p, v] -> o[b, i, h, c] = sum_j p[b, h, i, j] * v[b, j, h, c]` over all `t` keys
	/// (a masked one adds `+0 * v`).
	Context(Heads),
	/// `[a, b] -> a + b` (the residual stream).
	Add,
	/// `[u] -> gelu(u)` (its tanh form).
	Gelu,
	/// `[u, dy] -> gelu'(u) * dy`.
	GeluGrad,
	/// `[dy, gamma] -> g[r, j] = dy[r, j] * gamma[j]` (LayerNorm's backward).
	ScaledGrad {
		/// Rows.
		rows: u32,
		/// Features.
		d: u32,
	},
	/// `[x, mean, rstd] -> xhat = (x - mean[r]) * rstd[r]`.
	Xhat {
		/// Rows.
		rows: u32,
		/// Features.
		d: u32,
	},
	/// `[a, b] -> (sum_j a[r, j] * b[r, j]) / d`, from `+0`.
	RowDot {
		/// Rows.
		rows: u32,
		/// Features.
		d: u32,
	},
	/// `[g, a, xhat, b] -> (g - a[r]) - xhat * b[r]`.
	CentredGrad {
		/// Rows.
		rows: u32,
		/// Features.
		d: u32,
	},
	/// `[rstd, c] -> rstd[r] * c` (LayerNorm's input gradient, from
	/// [`LmOp::CentredGrad`]).
	RowScaled {
		/// Rows.
		rows: u32,
		/// Features.
		d: u32,
	},
	/// `[a, b] -> out[j] = sum_r a[r, j] * b[r, j]`, from `+0` in row order.
	ColDot {
		/// Rows.
		rows: u32,
		/// Features.
		d: u32,
	},
	/// `[do, v] -> dp[b, h, i, j] = sum_c do[b, i, h, c] * v[b, j, h, c]`.
	ProbGrad(Heads),
	/// `[w, dy] -> out[b, j, h, c] = sum_i w[b, h, i, j] * dy[b, i, h, c]` over all `t`
	/// queries (`dv` from the weights, `dk` from the scores' gradient).
	ValueGrad(Heads),
	/// `[p, dp] -> dot[b, h, i] = sum_{j <= i} p * dp`, from `+0`.
	CausalDot(Heads),
	/// `[p, dp, dot] -> (p * (dp - dot)) * (1 / sqrt(dh))` for `j <= i`, else `+0`.
	ScoreGrad(Heads),
	/// `[ids, dy] -> dtok[v, j] = sum_{r : ids[r] = v} dy[r, j]`, from `+0` in row order.
	TokGrad {
		/// Rows.
		rows: u32,
		/// Features.
		d: u32,
		/// Tokens in the vocabulary.
		vocab: u32,
	},
	/// `[dy] -> dpos[i, j] = sum_b dy[b t + i, j]`, from `+0` in sequence order.
	PosGrad {
		/// Rows.
		rows: u32,
		/// Positions per sequence.
		t: u32,
		/// Features.
		d: u32,
	},
	/// `[g_0, g_1, ..] -> sum g * g` over every input in order, each in element order,
	/// from `+0` (the gradients' squared norm).
	NormSq,
	/// `[sq] -> min(1, max_norm / (sqrt(sq) + 1e-6))` (`NaN` stays `NaN`).
	ClipScale {
		/// The gradients' largest norm.
		max_norm: f32,
	},
	/// `[g, scale] -> g * scale[0]`.
	Scaled,
}

/// Where a term's value comes from: element `index` of the op's input `k`, or a
/// constant.
#[derive(Clone, Copy, PartialEq, Debug)]
pub enum Term {
	/// Element `.1` of input `.0`.
	In(usize, usize),
	/// A constant (1 in a plain sum, unused in a max).
	Const(f32),
}

/// `a / b`, and `0` for a zero `b` (no size of a validated spec is zero; a division
/// here never panics all the same).
fn quot(a: usize, b: usize) -> usize {
	a.checked_div(b).unwrap_or(0)
}

/// `a % b`, and `0` for a zero `b`.
fn rem(a: usize, b: usize) -> usize {
	a.checked_rem(b).unwrap_or(0)
}

/// A token id read as `f32`: whole and below `vocab`.
fn token(v: f32, vocab: u32) -> Result<usize> {
	let whole = v >= 0.0 && v < vocab as f32 && (v as u32) as f32 == v;
	if whole {
		Ok(v as usize)
	} else {
		Err(ReproError::TokenOutOfRange)
	}
}

/// The lengths of an op's inputs, by position (`None` past the last).
pub type Lens<'a> = &'a dyn Fn(usize) -> Option<usize>;

/// The reduction of element `e` of an op of `kind` with inputs of lengths `lens`, or
/// `None` for an element-wise op. Every one starts from a constant.
pub fn reduction(kind: LmOp, e: usize, lens: Lens) -> Option<Reduction> {
	let zero = Operand::Const(0.0);
	let of = |kind, len: usize, init, finish| Reduction { kind, len: len as u64, init, finish };
	Some(match kind {
		LmOp::RowMean { d, .. } => {
			of(ReductionKind::Dot, d as usize, zero, Finish::Divide(d as f32))
		}
		LmOp::RowRstd { d, eps, .. } => {
			of(ReductionKind::SquareDev, d as usize, zero, Finish::Rstd { d, eps })
		}
		LmOp::Scores(n) => {
			let scale = attention::scale(n.dh as usize);
			of(ReductionKind::Dot, n.dh as usize, zero, Finish::Scale(scale))
		}
		LmOp::CausalMax(n) => {
			let (_, _, i) = n.row(e);
			of(ReductionKind::Max, i + 1, Operand::Const(f32::NEG_INFINITY), Finish::None)
		}
		LmOp::CausalExpSum(n) => {
			let (_, _, i) = n.row(e);
			of(ReductionKind::ExpSum, i + 1, zero, Finish::None)
		}
		LmOp::Context(n) | LmOp::ValueGrad(n) => {
			of(ReductionKind::Dot, n.t as usize, zero, Finish::None)
		}
		LmOp::RowDot { d, .. } => {
			of(ReductionKind::Dot, d as usize, zero, Finish::Divide(d as f32))
		}
		LmOp::ColDot { rows, .. } => of(ReductionKind::Dot, rows as usize, zero, Finish::None),
		LmOp::ProbGrad(n) => of(ReductionKind::Dot, n.dh as usize, zero, Finish::None),
		LmOp::CausalDot(n) => {
			let (_, _, i) = n.row(e);
			of(ReductionKind::Dot, i + 1, zero, Finish::None)
		}
		LmOp::TokGrad { rows, d, .. } => {
			let token = u32::try_from(quot(e, d as usize)).unwrap_or(u32::MAX);
			of(ReductionKind::TokenSum(token), rows as usize, zero, Finish::None)
		}
		LmOp::PosGrad { rows, t, .. } => {
			of(ReductionKind::Dot, quot(rows as usize, t as usize), zero, Finish::None)
		}
		LmOp::NormSq => {
			let total = (0..).map_while(lens).fold(0usize, usize::saturating_add);
			of(ReductionKind::Dot, total, zero, Finish::None)
		}
		LmOp::Embed { .. }
		| LmOp::Affine { .. }
		| LmOp::CausalProb(_)
		| LmOp::Add
		| LmOp::Gelu
		| LmOp::GeluGrad
		| LmOp::ScaledGrad { .. }
		| LmOp::Xhat { .. }
		| LmOp::CentredGrad { .. }
		| LmOp::RowScaled { .. }
		| LmOp::ScoreGrad(_)
		| LmOp::ClipScale { .. }
		| LmOp::Scaled => return None,
	})
}

/// Where term `j` of the gradients' squared norm lies: its input and index there.
fn norm_term(j: usize, lens: Lens) -> Result<Term> {
	let mut rest = j;
	for k in 0.. {
		let len = lens(k).ok_or(ReproError::OutOfRange)?;
		if rest < len {
			return Ok(Term::In(k, rest));
		}
		rest -= len;
	}
	Err(ReproError::OutOfRange)
}

/// The two terms of step `j` of element `e`'s reduction, its inputs of lengths `lens`.
pub fn terms(kind: LmOp, e: usize, j: usize, lens: Lens) -> Result<[Term; 2]> {
	let (one, unused) = (Term::Const(1.0), Term::Const(0.0));
	Ok(match kind {
		LmOp::RowMean { d, .. } => [Term::In(0, e * d as usize + j), one],
		LmOp::RowRstd { d, .. } => [Term::In(0, e * d as usize + j), Term::In(1, e)],
		LmOp::Scores(n) | LmOp::ProbGrad(n) => {
			let tt = n.t as usize;
			let (b, h, i) = n.row(quot(e, tt));
			[Term::In(0, n.at(b, i, h, j)), Term::In(1, n.at(b, rem(e, tt), h, j))]
		}
		LmOp::CausalMax(n) => [Term::In(0, e * n.t as usize + j), unused],
		LmOp::CausalExpSum(n) => [Term::In(0, e * n.t as usize + j), Term::In(1, e)],
		LmOp::Context(n) => {
			let (dh, tt, d) = (n.dh as usize, n.t as usize, n.d());
			let (r, col) = (quot(e, d), rem(e, d));
			let (b, i, h, c) = (quot(r, tt), rem(r, tt), quot(col, dh), rem(col, dh));
			let p = ((b * n.heads as usize + h) * tt + i) * tt + j;
			[Term::In(0, p), Term::In(1, n.at(b, j, h, c))]
		}
		LmOp::ValueGrad(n) => {
			let (dh, tt, d) = (n.dh as usize, n.t as usize, n.d());
			let (r, col) = (quot(e, d), rem(e, d));
			let (b, key, h, c) = (quot(r, tt), rem(r, tt), quot(col, dh), rem(col, dh));
			let w = ((b * n.heads as usize + h) * tt + j) * tt + key;
			[Term::In(0, w), Term::In(1, n.at(b, j, h, c))]
		}
		LmOp::RowDot { d, .. } => {
			let at = e * d as usize + j;
			[Term::In(0, at), Term::In(1, at)]
		}
		LmOp::ColDot { d, .. } => {
			let at = j * d as usize + e;
			[Term::In(0, at), Term::In(1, at)]
		}
		LmOp::CausalDot(n) => {
			let at = e * n.t as usize + j;
			[Term::In(0, at), Term::In(1, at)]
		}
		LmOp::TokGrad { d, .. } => {
			let d = d as usize;
			[Term::In(1, j * d + rem(e, d)), Term::In(0, j)]
		}
		LmOp::PosGrad { t, d, .. } => {
			let (t, d) = (t as usize, d as usize);
			let (i, f) = (quot(e, d), rem(e, d));
			[Term::In(0, (j * t + i) * d + f), one]
		}
		LmOp::NormSq => {
			let term = norm_term(j, lens)?;
			[term, term]
		}
		_ => return Err(ReproError::OutOfRange),
	})
}

/// Element `e` of an element-wise op, its inputs read through `v(input, index)`.
pub fn element(kind: LmOp, e: usize, v: &dyn Fn(usize, usize) -> Result<f32>) -> Result<f32> {
	Ok(match kind {
		LmOp::Embed { t, d, vocab, .. } => {
			let (r, j, d) = (quot(e, d as usize), rem(e, d as usize), d as usize);
			let id = token(v(0, r)?, vocab)?;
			v(1, id * d + j)? + v(2, rem(r, t as usize) * d + j)?
		}
		LmOp::Affine { d, .. } => {
			let j = rem(e, d as usize);
			layernorm::affine_at(v(0, e)?, v(1, j)?, v(2, j)?)
		}
		LmOp::CausalProb(n) => {
			let tt = n.t as usize;
			let (row, key) = (quot(e, tt), rem(e, tt));
			if key > rem(row, tt) {
				0.0
			} else {
				causal_softmax::probability_at(v(0, e)?, v(1, row)?, v(2, row)?)
			}
		}
		LmOp::Add => v(0, e)? + v(1, e)?,
		LmOp::Gelu => gelu::forward_at(v(0, e)?),
		LmOp::GeluGrad => gelu::backward_at(v(0, e)?, v(1, e)?),
		LmOp::ScaledGrad { d, .. } => v(0, e)? * v(1, rem(e, d as usize))?,
		LmOp::Xhat { d, .. } => {
			let r = quot(e, d as usize);
			layernorm::normalized_at(v(0, e)?, v(1, r)?, v(2, r)?)
		}
		LmOp::CentredGrad { d, .. } => {
			let r = quot(e, d as usize);
			layernorm::centred_grad_at(v(0, e)?, v(1, r)?, v(2, e)?, v(3, r)?)
		}
		LmOp::RowScaled { d, .. } => v(0, quot(e, d as usize))? * v(1, e)?,
		LmOp::ScoreGrad(n) => {
			let tt = n.t as usize;
			let (row, key) = (quot(e, tt), rem(e, tt));
			let scale = attention::scale(n.dh as usize);
			if key > rem(row, tt) {
				0.0 * scale
			} else {
				causal_softmax::score_grad_at(v(0, e)?, v(1, e)?, v(2, row)?) * scale
			}
		}
		LmOp::ClipScale { max_norm } => clip::scale(v(0, 0)?, max_norm),
		LmOp::Scaled => v(0, e)? * v(1, 0)?,
		_ => return Err(ReproError::OutOfRange),
	})
}

/// The number of elements an op of `kind` writes (`None`: as many as its input has).
pub fn out_len(kind: LmOp) -> Option<usize> {
	let stats = |n: Heads| (n.batch as usize) * (n.heads as usize) * (n.t as usize);
	Some(match kind {
		LmOp::Embed { rows, d, .. } | LmOp::Affine { rows, d } => rows as usize * d as usize,
		LmOp::RowMean { rows, .. } | LmOp::RowRstd { rows, .. } => rows as usize,
		LmOp::Scores(n) | LmOp::CausalProb(n) => stats(n) * n.t as usize,
		LmOp::CausalMax(n) | LmOp::CausalExpSum(n) => stats(n),
		LmOp::Context(n) | LmOp::ValueGrad(n) => (n.batch as usize) * (n.t as usize) * n.d(),
		LmOp::ScaledGrad { rows, d }
		| LmOp::Xhat { rows, d }
		| LmOp::CentredGrad { rows, d }
		| LmOp::RowScaled { rows, d } => rows as usize * d as usize,
		LmOp::RowDot { rows, .. } => rows as usize,
		LmOp::ColDot { d, .. } => d as usize,
		LmOp::ProbGrad(n) | LmOp::ScoreGrad(n) => stats(n) * n.t as usize,
		LmOp::CausalDot(n) => stats(n),
		LmOp::TokGrad { d, vocab, .. } => vocab as usize * d as usize,
		LmOp::PosGrad { t, d, .. } => t as usize * d as usize,
		LmOp::NormSq | LmOp::ClipScale { .. } => 1,
		LmOp::Add | LmOp::Gelu | LmOp::GeluGrad | LmOp::Scaled => return None,
	})
}

/// Runs the whole op into `out`, writing every element, input `k` read from
/// `inputs[k]`: each element is its definition above, a reduction walked in order, so
/// the bits are the element evaluation's.
pub fn run(kind: LmOp, inputs: &[&[f32]], out: &mut [f32]) -> Result<()> {
	let fits = match out_len(kind) {
		Some(n) => n == out.len(),
		// `Scaled`'s second input is its one scale.
		None => {
			inputs.iter().take(2 - usize::from(kind == LmOp::Scaled)).all(|x| x.len() == out.len())
		}
	};
	if !fits {
		return Err(ReproError::ShapeMismatch);
	}
	let read = |k: usize, i: usize| -> Result<f32> {
		inputs.get(k).and_then(|x| x.get(i)).copied().ok_or(ReproError::ShapeMismatch)
	};
	let value = |term: Term| match term {
		Term::Const(c) => Ok(c),
		Term::In(k, i) => read(k, i),
	};
	let lens = |k: usize| inputs.get(k).map(|x| x.len());
	for (e, o) in out.iter_mut().enumerate() {
		*o = match reduction(kind, e, &lens) {
			Some(red) => {
				let Operand::Const(mut acc) = red.init else { return Err(ReproError::OutOfRange) };
				for j in 0..red.len as usize {
					let [a, b] = terms(kind, e, j, &lens)?;
					acc = element::apply(red.kind, acc, value(a)?, value(b)?);
				}
				element::finish(&red, acc)
			}
			None => self::element(kind, e, &read)?,
		};
	}
	Ok(())
}
