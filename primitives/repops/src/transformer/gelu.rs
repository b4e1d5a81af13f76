//! GELU in its tanh form (GPT-2's, and PyTorch's `gelu(approximate="tanh")`), element by
//! element. With `c = sqrt(2 / pi)` and `k = 0.044715`, each step rounded in this order:
//!
//! - forward: `t = tanh(c * (x + k * ((x * x) * x)))`, `y = (0.5 * x) * (1 + t)`;
//! - backward: `dx = dy * (0.5 * (1 + t) + ((0.5 * x) * (1 - t * t)) * (c * (1 + (3 * k) * (x * x))))`.
//!
//! The tanh form needs one transcendental, `libm::tanhf`, where the erf form needs
//! `erff` and `expf` in its gradient.

use crate::{pointwise, Result};

/// `sqrt(2 / pi)`, rounded to f32.
pub const C: f32 = 0.797_884_6;
/// The cubic term's weight.
pub const K: f32 = 0.044_715;
/// Work per element, in [`crate::par::threads_for`] units: a tanh and a dozen roundings.
const WORK_PER_ELEM: usize = 16;
/// The same with the tanh already computed: the roundings alone.
const WORK_WITH_TANH: usize = 4;

/// `tanh(c * (x + k * x^3))`: the value both directions share.
#[inline(always)]
pub fn tanh_at(x: f32) -> f32 {
	let cube = (x * x) * x;
	let inner = x + K * cube;
	libm::tanhf(C * inner)
}

/// The forward value at `x`.
#[inline(always)]
pub fn forward_at(x: f32) -> f32 {
	forward_with(x, tanh_at(x))
}

/// The forward value at `x` whose [`tanh_at`] is `t`.
#[inline(always)]
fn forward_with(x: f32, t: f32) -> f32 {
	(0.5 * x) * (1.0 + t)
}

/// The gradient at `x` given the output gradient `dy`.
#[inline(always)]
pub fn backward_at(x: f32, dy: f32) -> f32 {
	backward_with(x, tanh_at(x), dy)
}

/// The gradient at `x` whose [`tanh_at`] is `t`, given the output gradient `dy`.
#[inline(always)]
fn backward_with(x: f32, t: f32, dy: f32) -> f32 {
	let left = 0.5 * (1.0 + t);
	let sech2 = 1.0 - t * t;
	let slope = C * (1.0 + (3.0 * K) * (x * x));
	let right = ((0.5 * x) * sech2) * slope;
	dy * (left + right)
}

/// `out[i] = gelu(x[i])`.
pub fn forward(x: &[f32], out: &mut [f32], threads: usize) -> Result<()> {
	pointwise::map1(x, out, WORK_PER_ELEM, threads, forward_at)
}

/// `out[i] = dy[i] * gelu'(x[i])`.
pub fn backward(x: &[f32], dy: &[f32], out: &mut [f32], threads: usize) -> Result<()> {
	pointwise::map2(x, dy, out, WORK_PER_ELEM, threads, backward_at)
}

/// [`forward`], keeping each element's tanh in `t` for [`backward_kept`]: the tanh is
/// most of the work, and the backward pass needs the same value.
pub fn forward_keeping(x: &[f32], out: &mut [f32], t: &mut [f32], threads: usize) -> Result<()> {
	pointwise::map1(x, t, WORK_PER_ELEM, threads, tanh_at)?;
	pointwise::map2(x, t, out, WORK_WITH_TANH, threads, forward_with)
}

/// [`backward`] with the tanh values [`forward_keeping`] kept: the same bits.
pub fn backward_kept(
	x: &[f32],
	t: &[f32],
	dy: &[f32],
	out: &mut [f32],
	threads: usize,
) -> Result<()> {
	pointwise::map3((x, t, dy), out, WORK_WITH_TANH, threads, backward_with)
}

#[cfg(test)]
mod tests {
	use super::*;
	use crate::transformer::check;
	use crate::{par, ReproError};
	use alloc::{vec, vec::Vec};

	#[test]
	fn both_directions_are_the_element_functions_on_any_thread_count() {
		par::set_min_parallel_work(0);
		let n = 2_000;
		let x = check::values(n, 1, 6.0);
		let dy = check::values(n, 2, 1.0);
		for threads in [1, 2, 3] {
			let (mut y, mut dx) = (vec![7.0; n], vec![7.0; n]);
			forward(&x, &mut y, threads).unwrap();
			backward(&x, &dy, &mut dx, threads).unwrap();
			// With the tanh kept from the forward pass: the same bits.
			let (mut yk, mut t, mut dxk) = (vec![7.0; n], vec![7.0; n], vec![7.0; n]);
			forward_keeping(&x, &mut yk, &mut t, threads).unwrap();
			backward_kept(&x, &t, &dy, &mut dxk, threads).unwrap();
			for i in 0..n {
				assert_eq!(y[i].to_bits(), forward_at(x[i]).to_bits(), "forward {i}");
				assert_eq!(dx[i].to_bits(), backward_at(x[i], dy[i]).to_bits(), "backward {i}");
				assert_eq!(yk[i].to_bits(), y[i].to_bits(), "kept forward {i}");
				assert_eq!(dxk[i].to_bits(), dx[i].to_bits(), "kept backward {i}");
			}
		}
		assert_eq!(forward(&x, &mut [0.0; 3], 1), Err(ReproError::ShapeMismatch));
		assert_eq!(backward(&x, &dy[..3], &mut vec![0.0; n], 1), Err(ReproError::ShapeMismatch));
	}

	#[test]
	fn it_is_gelu_and_its_gradient() {
		// Known values of the tanh form (PyTorch, float64): gelu(1) and gelu(-2).
		assert!((forward_at(1.0) - 0.841_192).abs() < 1e-6);
		assert!((forward_at(-2.0) - -0.045_402_3).abs() < 1e-6);
		assert_eq!(forward_at(0.0).to_bits(), 0.0f32.to_bits());
		// Far out it is the identity and zero.
		assert_eq!(forward_at(20.0), 20.0);
		assert_eq!(forward_at(-20.0), 0.0);
		let x: Vec<f32> = check::values(64, 3, 4.0);
		let dy = check::values(64, 4, 1.0);
		let mut dx = vec![0.0; 64];
		backward(&x, &dy, &mut dx, 1).unwrap();
		check::finite_differences(&x, &dy, &dx, 1e-2, 2e-3, |x| {
			let mut y = vec![0.0; x.len()];
			forward(x, &mut y, 1).unwrap();
			y
		});
	}
}
