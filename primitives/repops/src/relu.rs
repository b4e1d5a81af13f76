//! `ReLU` forward and backward (fast path). Definitions: [`crate::graph::OpKind`].

use crate::{pointwise, Result};

/// Work (in [`crate::par::threads_for`] units) per element: both loops stream memory.
const WORK_PER_ELEM: usize = 2;

/// `y = x if x > 0 else +0`.
pub fn forward(x: &[f32], out: &mut [f32], threads: usize) -> Result<()> {
	pointwise::map1(x, out, WORK_PER_ELEM, threads, |v| if v > 0.0 { v } else { 0.0 })
}

/// `dx = dy if x > 0 else +0`, written without a branch on the values (a mask on the
/// bits of `dy`: all ones keeps them, all zeros gives `+0`).
pub fn backward(x: &[f32], dy: &[f32], out: &mut [f32], threads: usize) -> Result<()> {
	pointwise::map2(x, dy, out, WORK_PER_ELEM, threads, |v, d| {
		let keep = u32::from(v > 0.0).wrapping_neg();
		f32::from_bits(d.to_bits() & keep)
	})
}

#[cfg(test)]
mod tests {
	use super::*;
	use crate::ReproError;
	use alloc::{vec, vec::Vec};

	#[test]
	fn both_directions_match_the_definition_bitwise_on_any_thread_count() {
		crate::par::set_min_parallel_work(0);
		let n = 3_000;
		let special = [f32::NAN, -0.0, 0.0, f32::INFINITY, f32::NEG_INFINITY, f32::MIN_POSITIVE];
		let x: Vec<f32> = (0..n)
			.map(|i| special.get(i % 97).copied().unwrap_or(((i * 7919) % 201) as f32 - 100.0))
			.collect();
		let dy: Vec<f32> = (0..n)
			.map(|i| special.get(i % 89).copied().unwrap_or(((i * 31) % 77) as f32 * -0.25))
			.collect();
		for threads in [1, 2, 3] {
			let mut y = vec![7.0f32; n];
			forward(&x, &mut y, threads).unwrap();
			let mut dx = vec![7.0f32; n];
			backward(&x, &dy, &mut dx, threads).unwrap();
			for i in 0..n {
				let want_y = if x[i] > 0.0 { x[i] } else { 0.0 };
				let want_dx = if x[i] > 0.0 { dy[i] } else { 0.0 };
				assert_eq!(y[i].to_bits(), want_y.to_bits(), "forward {i}");
				assert_eq!(dx[i].to_bits(), want_dx.to_bits(), "backward {i}");
			}
		}
		assert_eq!(forward(&x, &mut [0.0; 3], 1), Err(ReproError::ShapeMismatch));
	}
}
