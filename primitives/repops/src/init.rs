//! Deterministic initial parameters.
//!
//! Parameter tensor `t` (state order) element `i` is `(2u - 1) * bound`, with
//! `bound = 1 / sqrt(fan_in)` (PyTorch's default range for `Linear` and `Conv2d`,
//! weights and biases alike; `fan_in = in_features` or `in_channels * kernel^2`) and
//! `u = (x >> 40) * 2^-24` in `[0, 1)`, where `x = SplitMix64::mix(key + (i + 1) * GAMMA)`
//! and `key = SplitMix64::mix(seed ^ ((t + 1) * 0xD1B54A32D192ED03))`: the `i`-th output of
//! a SplitMix64 stream keyed per tensor, so any element can be computed on its own.
//! Every operation is exact or IEEE-rounded, so the values are the same everywhere.

use alloc::vec::Vec;
use gensyn_primitives::order::SplitMix64;

/// The per-tensor key.
pub fn tensor_key(seed: u64, tensor: u32) -> u64 {
	SplitMix64::mix(seed ^ ((tensor as u64) + 1).wrapping_mul(0xD1B5_4A32_D192_ED03))
}

/// A uniform f32 in `[0, 1)` from the `i`-th output of stream `key`.
pub fn uniform(key: u64, i: u64) -> f32 {
	let x = SplitMix64::mix(key.wrapping_add((i + 1).wrapping_mul(SplitMix64::GAMMA)));
	((x >> 40) as f32) * (1.0 / 16_777_216.0)
}

/// `n` values uniform in `[-bound, bound)` for tensor `tensor` under `seed`.
pub fn uniform_tensor(seed: u64, tensor: u32, n: usize, bound: f32) -> Vec<f32> {
	let key = tensor_key(seed, tensor);
	(0..n as u64).map(|i| scaled(uniform(key, i), bound)).collect()
}

/// Element `i` of [`uniform_tensor`], on its own.
pub fn uniform_value(seed: u64, tensor: u32, i: u64, bound: f32) -> f32 {
	scaled(uniform(tensor_key(seed, tensor), i), bound)
}

/// `u` in `[0, 1)` moved to `[-bound, bound)`.
fn scaled(u: f32, bound: f32) -> f32 {
	(u * 2.0 - 1.0) * bound
}
