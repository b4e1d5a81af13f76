//! Gradient-norm clipping (PyTorch's `clip_grad_norm_` with the L2 norm):
//!
//! - `sq = sum g * g` over every gradient tensor in state order, each in element order,
//!   one sequential accumulator from `+0` (never split per tensor, so that the order is
//!   one list of terms the pinpoint game can walk);
//! - `scale = min(1, max_norm / (sqrt(sq) + 1e-6))`, and each gradient becomes
//!   `g * scale` (a scale of 1 leaves every bit: `g * 1 = g`).
//!
//! A `NaN` `sq` (a diverged step) gives a `NaN` scale, as PyTorch's clamp does, so the
//! divergence shows in the next state; an infinite one (squares that overflow f32)
//! gives the scale the formula gives, `0`.

/// PyTorch's guard against a zero norm.
pub const NORM_EPS: f32 = 1e-6;

/// One term of the squared norm: `acc + g * g`.
#[inline(always)]
pub fn square_step(acc: f32, g: f32) -> f32 {
	acc + g * g
}

/// The squared L2 norm over `grads`, in order.
pub fn squared_norm<'a>(grads: impl IntoIterator<Item = &'a [f32]>) -> f32 {
	let mut acc = 0.0f32;
	for g in grads {
		for v in g {
			acc = square_step(acc, *v);
		}
	}
	acc
}

/// The factor every gradient is multiplied by: `min(1, max_norm / (sqrt(sq) + 1e-6))`.
pub fn scale(squared_norm: f32, max_norm: f32) -> f32 {
	let c = max_norm / (libm::sqrtf(squared_norm) + NORM_EPS);
	if c.is_nan() || c < 1.0 {
		c
	} else {
		1.0
	}
}

/// Multiplies every element of `grads` by `scale`.
pub fn apply(grads: &mut [f32], scale: f32) {
	for g in grads {
		*g = *g * scale;
	}
}

#[cfg(test)]
mod tests {
	use super::*;

	#[test]
	fn large_gradients_are_scaled_to_the_bound_and_small_ones_kept_bit_for_bit() {
		let a = [3.0f32, 0.0];
		let b = [4.0f32];
		let sq = squared_norm([&a[..], &b[..]]);
		assert_eq!(sq, 25.0);
		let s = scale(sq, 1.0);
		let mut g = [3.0f32, 0.0, 4.0];
		apply(&mut g, s);
		let norm = libm::sqrtf(squared_norm([&g[..]]));
		assert!((norm - 1.0).abs() < 1e-6, "clipped norm {norm}");
		let small = [1e-3f32, -2e-3, 5e-4];
		assert_eq!(scale(squared_norm([&small[..]]), 1.0), 1.0);
		let mut kept = small;
		apply(&mut kept, 1.0);
		assert_eq!(kept.map(f32::to_bits), small.map(f32::to_bits));
		assert!(scale(f32::NAN, 1.0).is_nan());
		assert!(scale(f32::INFINITY, 1.0) == 0.0);
	}

	#[test]
	fn the_sum_runs_in_state_order() {
		// Reordering the tensors rounds differently: the order is part of the definition.
		let big = [1.0e4f32];
		let small = [1.0f32; 16];
		let forward = squared_norm([&big[..], &small[..]]);
		let mut want = 0.0f32;
		for v in big.iter().chain(small.iter()) {
			want = want + v * v;
		}
		assert_eq!(forward.to_bits(), want.to_bits());
		assert_ne!(forward.to_bits(), squared_norm([&small[..], &big[..]]).to_bits());
	}
}
