//! The data order of training: which samples each step uses.
//!
//! Epoch `e` visits a permutation of `0..samples`, cut into batches of `batch_size`
//! (the last batch of an epoch may be smaller). The permutation is a Fisher–Yates
//! shuffle (`i` from `n-1` down to 1, `j = (r * (i + 1)) >> 64` with `r` the next
//! [`SplitMix64`] output) seeded with the first 8 bytes (little-endian) of
//! `blake2_256("gensyn/order" ++ seed_le8 ++ randomness ++ epoch_le4)`. `randomness` is
//! fixed at assignment (the chain's), so the solver cannot choose the order.

use crate::spec::TaskSpec;
use alloc::vec::Vec;
use sp_crypto_hashing::blake2_256;

/// The SplitMix64 generator (Steele, Lea, Flood 2014): `state += 0x9E3779B97F4A7C15`,
/// then the output is the state mixed by two xor-shift-multiply rounds.
#[derive(Clone, Debug)]
pub struct SplitMix64(pub u64);

impl SplitMix64 {
	/// Golden-ratio increment.
	pub const GAMMA: u64 = 0x9E37_79B9_7F4A_7C15;

	/// The SplitMix64 output function applied to `z`.
	pub fn mix(mut z: u64) -> u64 {
		z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
		z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
		z ^ (z >> 31)
	}

	/// The next output.
	pub fn next_u64(&mut self) -> u64 {
		self.0 = self.0.wrapping_add(Self::GAMMA);
		Self::mix(self.0)
	}
}

/// The shuffle seed of one epoch.
pub fn epoch_seed(seed: u64, randomness: &[u8; 32], epoch: u32) -> u64 {
	let mut buf = [0u8; 12 + 8 + 32 + 4];
	buf[..12].copy_from_slice(b"gensyn/order");
	buf[12..20].copy_from_slice(&seed.to_le_bytes());
	buf[20..52].copy_from_slice(randomness);
	buf[52..56].copy_from_slice(&epoch.to_le_bytes());
	let h = blake2_256(&buf);
	let mut s = [0u8; 8];
	s.copy_from_slice(&h[..8]);
	u64::from_le_bytes(s)
}

/// The sample order of one epoch.
pub fn epoch_permutation(seed: u64, randomness: &[u8; 32], epoch: u32, samples: u32) -> Vec<u32> {
	let mut p: Vec<u32> = (0..samples).collect();
	let mut rng = SplitMix64(epoch_seed(seed, randomness, epoch));
	let mut i = p.len();
	while i > 1 {
		i -= 1;
		let j = ((rng.next_u64() as u128 * (i as u128 + 1)) >> 64) as usize;
		p.swap(i, j);
	}
	p
}

/// Where step `step` (0-based) reads: `(epoch, start, end)`, a range of positions in
/// that epoch's permutation; `None` past the last step.
pub fn step_range(spec: &TaskSpec, step: u64) -> Option<(u32, usize, usize)> {
	let per_epoch = spec.steps_per_epoch();
	if per_epoch == 0 || step >= spec.total_steps() {
		return None;
	}
	let epoch = u32::try_from(step / per_epoch).ok()?;
	let b = spec.training.batch_size as u64;
	let start = (step % per_epoch) * b;
	let end = (start + b).min(spec.data.samples as u64);
	Some((epoch, start as usize, end as usize))
}

/// The sample indices of step `step` (recomputes the epoch's permutation; cache
/// [`epoch_permutation`] when walking many steps).
pub fn step_batch(spec: &TaskSpec, randomness: &[u8; 32], step: u64) -> Option<Vec<u32>> {
	let (epoch, start, end) = step_range(spec, step)?;
	let p = epoch_permutation(spec.training.seed, randomness, epoch, spec.data.samples);
	p.get(start..end).map(|s| s.to_vec())
}
