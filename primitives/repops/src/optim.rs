//! Optimizers and learning-rate schedules, element by element.
//!
//! The fast path and the per-element evaluation call the same functions, so their bits
//! agree by construction. Scalars are computed once per step with `libm`.

use gensyn_primitives::{LrSchedule, TrainingSpec};

/// The learning rate at step `step` (0-based), in f32:
/// * constant: `lr`;
/// * step: `lr * powf(gamma, floor(step / every_steps))`;
/// * cosine: `min + (lr - min) * ((1 + cosf(pi * (min(step, total) / total))) * 0.5)`.
pub fn lr_at(t: &TrainingSpec, step: u64) -> f32 {
	let lr = t.optimizer.lr().to_f32();
	match t.lr_schedule {
		LrSchedule::Constant => lr,
		LrSchedule::Step { every_steps, gamma } => {
			let e = step / (every_steps.max(1) as u64);
			lr * libm::powf(gamma.to_f32(), e as f32)
		}
		LrSchedule::Cosine { total_steps, min_lr } => {
			let total = total_steps.max(1) as u64;
			let frac = (step.min(total) as f32) / (total as f32);
			let c = libm::cosf(core::f32::consts::PI * frac);
			let min = min_lr.to_f32();
			min + (lr - min) * ((1.0 + c) * 0.5)
		}
	}
}

/// Per-step scalars of Adam.
#[derive(Clone, Copy, PartialEq, Debug)]
pub struct AdamScalars {
	/// `lr / (1 - beta1^t)` with `t = step + 1`.
	pub step_size: f32,
	/// `sqrt(1 - beta2^t)`.
	pub bc2_sqrt: f32,
	/// eps.
	pub eps: f32,
}

/// Adam's scalars at step `step` (0-based; PyTorch's `t = step + 1`).
pub fn adam_scalars(lr: f32, beta1: f32, beta2: f32, eps: f32, step: u64) -> AdamScalars {
	let t = (step + 1) as f32;
	let bc1 = 1.0 - libm::powf(beta1, t);
	let bc2 = 1.0 - libm::powf(beta2, t);
	AdamScalars { step_size: lr / bc1, bc2_sqrt: libm::sqrtf(bc2), eps }
}

/// `momentum * buf + g`.
#[inline(always)]
pub fn sgd_momentum(momentum: f32, buf: f32, g: f32) -> f32 {
	let a = momentum * buf;
	a + g
}

/// `p - lr * buf`.
#[inline(always)]
pub fn sgd_param(lr: f32, p: f32, buf: f32) -> f32 {
	let d = lr * buf;
	p - d
}

/// `beta1 * m + (1 - beta1) * g`.
#[inline(always)]
pub fn adam_m(beta1: f32, m: f32, g: f32) -> f32 {
	let a = beta1 * m;
	let b = (1.0 - beta1) * g;
	a + b
}

/// `beta2 * v + (1 - beta2) * (g * g)`.
#[inline(always)]
pub fn adam_v(beta2: f32, v: f32, g: f32) -> f32 {
	let a = beta2 * v;
	let gg = g * g;
	let b = (1.0 - beta2) * gg;
	a + b
}

/// `p - step_size * (m / (sqrt(v) / bc2_sqrt + eps))`.
#[inline(always)]
pub fn adam_param(s: &AdamScalars, p: f32, m: f32, v: f32) -> f32 {
	let denom = libm::sqrtf(v) / s.bc2_sqrt + s.eps;
	let u = m / denom;
	let d = s.step_size * u;
	p - d
}

/// AdamW's decoupled weight decay, computed once per step: `1 - lr * weight_decay`.
pub fn adamw_decay_factor(lr: f32, weight_decay: f32) -> f32 {
	1.0 - lr * weight_decay
}

/// `p * factor`: AdamW shrinks a parameter before its Adam update (PyTorch's
/// `param.mul_(1 - lr * weight_decay)`), so the decay does not pass through `m` and `v`.
#[inline(always)]
pub fn adamw_decay(factor: f32, p: f32) -> f32 {
	p * factor
}

#[cfg(test)]
mod tests {
	use super::*;

	#[test]
	fn adamw_decays_the_parameter_before_adams_step() {
		let (lr, wd) = (0.01f32, 0.1f32);
		let s = adam_scalars(lr, 0.9, 0.999, 1e-8, 0);
		let (p, g) = (2.0f32, 0.5f32);
		let (m, v) = (adam_m(0.9, 0.0, g), adam_v(0.999, 0.0, g));
		let decayed = adamw_decay(adamw_decay_factor(lr, wd), p);
		assert_eq!(decayed, 2.0 * (1.0 - 0.001));
		// The first step moves by about lr against the gradient's sign, from the decayed value.
		let next = adam_param(&s, decayed, m, v);
		assert!((next - (decayed - lr)).abs() < 1e-6, "{next}");
		// No decay is plain Adam, bit for bit.
		assert_eq!(adamw_decay(adamw_decay_factor(lr, 0.0), p).to_bits(), p.to_bits());
	}
}
