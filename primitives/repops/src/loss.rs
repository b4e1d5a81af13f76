//! Softmax cross-entropy, split into ops with one simple reduction each
//! (definitions on [`crate::graph::OpKind`]). `exp` and `log` are libm's `expf`/`logf`.

use crate::{ReproError, Result};

/// The max step: `v > acc ? v : acc`.
#[inline(always)]
pub fn max_step(acc: f32, v: f32) -> f32 {
	if v > acc {
		v
	} else {
		acc
	}
}

/// `exp(z - m)`.
#[inline(always)]
pub fn shifted_exp(z: f32, m: f32) -> f32 {
	libm::expf(z - m)
}

/// `(m + log(s)) - z_y`.
#[inline(always)]
pub fn sample_loss(m: f32, s: f32, zy: f32) -> f32 {
	let lse = m + libm::logf(s);
	lse - zy
}

/// `((exp(z - m) / s) - onehot) / batch`.
#[inline(always)]
pub fn grad(z: f32, m: f32, s: f32, is_label: bool, batch: f32) -> f32 {
	let p = shifted_exp(z, m) / s;
	let q = if is_label { p - 1.0 } else { p };
	q / batch
}

/// The label of sample `b` as a class index.
pub(crate) fn label(labels: &[f32], b: usize, classes: usize) -> Result<usize> {
	let y = *labels.get(b).ok_or(ReproError::ShapeMismatch)?;
	if !(y >= 0.0 && y < classes as f32) {
		return Err(ReproError::LabelOutOfRange);
	}
	Ok(y as usize)
}

/// `m[b] = max_c z[b,c]`.
pub fn row_max(z: &[f32], classes: usize, out: &mut [f32]) -> Result<()> {
	if z.len() != out.len() * classes {
		return Err(ReproError::ShapeMismatch);
	}
	for (o, row) in out.iter_mut().zip(z.chunks_exact(classes.max(1))) {
		*o = row.iter().fold(f32::NEG_INFINITY, |a, v| max_step(a, *v));
	}
	Ok(())
}

/// `s[b] = sum_c exp(z[b,c] - m[b])`.
pub fn exp_sum(z: &[f32], m: &[f32], classes: usize, out: &mut [f32]) -> Result<()> {
	if z.len() != out.len() * classes || m.len() != out.len() {
		return Err(ReproError::ShapeMismatch);
	}
	for ((o, row), mb) in out.iter_mut().zip(z.chunks_exact(classes.max(1))).zip(m) {
		let mut acc = 0.0f32;
		for v in row {
			acc = acc + shifted_exp(*v, *mb);
		}
		*o = acc;
	}
	Ok(())
}

/// `l[b] = (m[b] + log(s[b])) - z[b, y_b]`.
pub fn sample_losses(
	z: &[f32],
	m: &[f32],
	s: &[f32],
	labels: &[f32],
	classes: usize,
	out: &mut [f32],
) -> Result<()> {
	if z.len() != out.len() * classes || m.len() != out.len() || s.len() != out.len() {
		return Err(ReproError::ShapeMismatch);
	}
	for (b, o) in out.iter_mut().enumerate() {
		let y = label(labels, b, classes)?;
		let zy = *z.get(b * classes + y).ok_or(ReproError::ShapeMismatch)?;
		let (mb, sb) = (m.get(b).copied().unwrap_or(0.0), s.get(b).copied().unwrap_or(0.0));
		*o = sample_loss(mb, sb, zy);
	}
	Ok(())
}

/// `(sum_b l[b]) / B`.
pub fn mean(l: &[f32]) -> f32 {
	let mut acc = 0.0f32;
	for v in l {
		acc = acc + *v;
	}
	acc / l.len() as f32
}

/// `dz[b,c]`.
pub fn loss_grad(
	z: &[f32],
	m: &[f32],
	s: &[f32],
	labels: &[f32],
	classes: usize,
	out: &mut [f32],
) -> Result<()> {
	let batch = m.len();
	if z.len() != batch * classes || s.len() != batch || out.len() != z.len() {
		return Err(ReproError::ShapeMismatch);
	}
	let bf = batch as f32;
	for (b, (orow, zrow)) in
		out.chunks_exact_mut(classes.max(1)).zip(z.chunks_exact(classes.max(1))).enumerate()
	{
		let y = label(labels, b, classes)?;
		let (mb, sb) = (m.get(b).copied().unwrap_or(0.0), s.get(b).copied().unwrap_or(0.0));
		for (c, (o, zv)) in orow.iter_mut().zip(zrow).enumerate() {
			*o = grad(*zv, mb, sb, c == y, bf);
		}
	}
	Ok(())
}
