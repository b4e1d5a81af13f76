//! Test helpers: generated inputs and a finite-difference check of a backward pass.

use alloc::vec::Vec;

/// `n` values uniform in `[-scale, scale)`, from stream `seed`.
pub fn values(n: usize, seed: u64, scale: f32) -> Vec<f32> {
	crate::init::uniform_tensor(seed, 7, n, scale)
}

/// The bit patterns of `v`, to compare results bit for bit.
pub fn bits(v: &[f32]) -> Vec<u32> {
	v.iter().map(|f| f.to_bits()).collect()
}

/// Checks `grad` (the backward pass's gradient of `sum_i dy_i * f(x)_i` with respect to
/// `x`) against central differences of `f` at every index of `x`: the loss is summed in
/// f64 so that only `f`'s own f32 rounding and the step's curvature remain.
pub fn finite_differences(
	x: &[f32],
	dy: &[f32],
	grad: &[f32],
	h: f32,
	tolerance: f64,
	f: impl Fn(&[f32]) -> Vec<f32>,
) {
	let loss = |x: &[f32]| -> f64 {
		f(x).iter().zip(dy).map(|(y, d)| f64::from(*y) * f64::from(*d)).sum()
	};
	for i in 0..x.len() {
		let (mut up, mut down) = (x.to_vec(), x.to_vec());
		up[i] += h;
		down[i] -= h;
		let step = f64::from(up[i]) - f64::from(down[i]);
		let numeric = (loss(&up) - loss(&down)) / step;
		let analytic = f64::from(grad[i]);
		assert!(
			(numeric - analytic).abs() <= tolerance * analytic.abs().max(1.0),
			"element {i}: finite differences give {numeric}, the backward pass {analytic}"
		);
	}
}
