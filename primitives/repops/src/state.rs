//! The training state (weights, optimizer state, step), its canonical encoding, hash,
//! Merkle root, and distances between states.

use crate::{ReproError, Result};
use alloc::vec::Vec;
use gensyn_primitives::merkle::{self, blake2_256, Hash};

/// Magic prefix of the canonical encoding (version 1).
pub const STATE_MAGIC: &[u8; 8] = b"GSTATE01";

/// Weights, optimizer state and the number of steps taken.
///
/// `params`: per trainable layer in order, weight (`[out, in]` or `[oc, ic, k, k]`)
/// then bias. `opt`: per parameter, SGD's momentum buffer, or Adam's `m` then `v`.
#[derive(Clone, PartialEq, Debug, Default)]
pub struct TrainState {
	/// Steps taken (the next step's 0-based number).
	pub step: u64,
	/// Parameter tensors.
	pub params: Vec<Vec<f32>>,
	/// Optimizer-state tensors.
	pub opt: Vec<Vec<f32>>,
}

fn push_tensor(out: &mut Vec<u8>, t: &[f32]) {
	out.extend_from_slice(&(t.len() as u32).to_le_bytes());
	for x in t {
		out.extend_from_slice(&x.to_bits().to_le_bytes());
	}
}

struct Reader<'a>(&'a [u8]);
impl Reader<'_> {
	fn take<const N: usize>(&mut self) -> Result<[u8; N]> {
		let (h, t) = self.0.split_at_checked(N).ok_or(ReproError::StateMismatch)?;
		self.0 = t;
		<[u8; N]>::try_from(h).map_err(|_| ReproError::StateMismatch)
	}
	fn u32(&mut self) -> Result<u32> {
		Ok(u32::from_le_bytes(self.take::<4>()?))
	}
	fn tensor(&mut self) -> Result<Vec<f32>> {
		let n = self.u32()? as usize;
		if self.0.len() / 4 < n {
			return Err(ReproError::StateMismatch);
		}
		(0..n).map(|_| Ok(f32::from_bits(self.u32()?))).collect()
	}
}

impl TrainState {
	/// Canonical bytes: `"GSTATE01" ++ step (u64 LE) ++ #params (u32 LE) ++ #opt (u32 LE)`
	/// then every tensor (params, then opt) as `len (u32 LE) ++ f32 bits (LE)`.
	pub fn encode(&self) -> Vec<u8> {
		let n: usize = self.params.iter().chain(&self.opt).map(|t| 4 + 4 * t.len()).sum();
		let mut out = Vec::with_capacity(24 + n);
		out.extend_from_slice(STATE_MAGIC);
		out.extend_from_slice(&self.step.to_le_bytes());
		out.extend_from_slice(&(self.params.len() as u32).to_le_bytes());
		out.extend_from_slice(&(self.opt.len() as u32).to_le_bytes());
		for t in self.params.iter().chain(&self.opt) {
			push_tensor(&mut out, t);
		}
		out
	}

	/// Parses [`TrainState::encode`]'s bytes (refusing trailing bytes).
	pub fn decode(bytes: &[u8]) -> Result<Self> {
		let mut r = Reader(bytes);
		if &r.take::<8>()? != STATE_MAGIC {
			return Err(ReproError::StateMismatch);
		}
		let step = u64::from_le_bytes(r.take::<8>()?);
		let np = r.u32()? as usize;
		let no = r.u32()? as usize;
		let mut params = Vec::new();
		for _ in 0..np {
			params.push(r.tensor()?);
		}
		let mut opt = Vec::new();
		for _ in 0..no {
			opt.push(r.tensor()?);
		}
		if !r.0.is_empty() {
			return Err(ReproError::StateMismatch);
		}
		Ok(Self { step, params, opt })
	}

	/// `blake2_256` of the canonical encoding (Exact mode compares these).
	pub fn hash(&self) -> Hash {
		blake2_256(&self.encode())
	}

	/// Merkle root over `[hash_leaf(step LE), tensor_root(p_0), …, tensor_root(opt_n)]`
	/// (the pinpoint game's per-step state root).
	pub fn root(&self) -> Hash {
		self.root_with(merkle::tensor_root)
	}

	/// [`TrainState::root`] with each tensor's root computed by `tensor_root`, which
	/// must equal [`merkle::tensor_root`]: a host can hash the leaves faster (several
	/// at a time) and still commit to the same root.
	pub fn root_with(&self, tensor_root: impl Fn(&[f32]) -> Hash) -> Hash {
		let mut b = merkle::MerkleBuilder::default();
		b.push(merkle::hash_leaf(&self.step.to_le_bytes()));
		for t in self.params.iter().chain(&self.opt) {
			b.push(tensor_root(t));
		}
		b.finish()
	}
}

/// Distances between two states' parameters (all parameter tensors as one vector),
/// accumulated in f64 in order.
#[derive(Clone, Copy, PartialEq, Debug, Default)]
pub struct Distances {
	/// Sum of absolute differences.
	pub l1: f64,
	/// Euclidean distance.
	pub l2: f64,
	/// Largest absolute difference.
	pub linf: f64,
	/// `1 - cos(angle)` between the two parameter vectors (0 when equal).
	pub cosine: f64,
}

/// Distances between the parameters of `a` and `b`.
pub fn distances(a: &TrainState, b: &TrainState) -> Result<Distances> {
	if a.params.len() != b.params.len() {
		return Err(ReproError::StateMismatch);
	}
	let (mut l1, mut l2, mut linf, mut dot, mut na, mut nb) = (0f64, 0f64, 0f64, 0f64, 0f64, 0f64);
	for (ta, tb) in a.params.iter().zip(&b.params) {
		if ta.len() != tb.len() {
			return Err(ReproError::StateMismatch);
		}
		for (x, y) in ta.iter().zip(tb) {
			let (x, y) = (*x as f64, *y as f64);
			let d = libm::fabs(x - y);
			l1 += d;
			l2 += d * d;
			if d > linf || d.is_nan() {
				linf = d;
			}
			dot += x * y;
			na += x * x;
			nb += y * y;
		}
	}
	let denom = libm::sqrt(na) * libm::sqrt(nb);
	let cosine = if denom > 0.0 {
		1.0 - dot / denom
	} else if na == nb {
		0.0
	} else {
		1.0
	};
	Ok(Distances { l1, l2: libm::sqrt(l2), linf, cosine })
}

#[cfg(test)]
mod tests {
	use super::*;
	use alloc::vec;

	/// The chain checks a published checkpoint's pages against the root over its items:
	/// the same root as the game's state root, for tensors across pages and empty ones.
	#[test]
	fn the_published_state_root_is_the_state_root() {
		let params = vec![vec![0.5; 70_000], vec![1.0; 3]];
		let opt = vec![vec![-2.0; 70_000], Vec::new()];
		let state = TrainState { step: 7, params, opt };
		let tensors: Vec<&[f32]> =
			state.params.iter().chain(&state.opt).map(|t| t.as_slice()).collect();
		assert_eq!(gensyn_primitives::publish::state_root(state.step, &tensors), state.root());
	}
}
