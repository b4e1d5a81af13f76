//! A binary Merkle tree over blake2-256, usable in `no_std`.
//!
//! * Leaf hash: `blake2_256(0x00 ++ leaf bytes)`; inner node: `blake2_256(0x01 ++ left
//!   ++ right)`; the two tags keep leaves and nodes apart.
//! * Levels pair nodes left to right; a lone last node of a level is promoted
//!   unchanged to the next level.
//! * The root of zero leaves is `blake2_256(0x02)`.
//!
//! A proof carries the leaf index, the leaf count and the sibling hashes from the
//! bottom up (a promoted level has no sibling). The verifier must know the leaf count
//! independently (from the data set's size or the tensor's shape) and check it.

use alloc::vec::Vec;
use codec::{Decode, DecodeWithMemTracking, Encode};
use scale_info::TypeInfo;
pub use sp_crypto_hashing::blake2_256;

/// A 32-byte blake2-256 hash.
pub type Hash = [u8; 32];

/// Bytes per chunk when committing a data file (the last chunk may be shorter).
pub const DATA_CHUNK_SIZE: usize = 1024;

/// f32 elements per chunk when committing a tensor (little-endian bits, 256 bytes; the
/// last chunk may be shorter).
pub const TENSOR_CHUNK_ELEMENTS: usize = 64;

const LEAF_TAG: u8 = 0x00;
const NODE_TAG: u8 = 0x01;
const EMPTY_TAG: u8 = 0x02;

/// The hash of one leaf's bytes.
pub fn hash_leaf(data: &[u8]) -> Hash {
	let mut buf = [0u8; 1 + 4 * TENSOR_CHUNK_ELEMENTS];
	if let Some(dst) = buf.get_mut(1..1 + data.len()) {
		dst.copy_from_slice(data);
		return blake2_256(buf.get(..1 + data.len()).unwrap_or(&[]));
	}
	let mut v = Vec::with_capacity(1 + data.len());
	v.push(LEAF_TAG);
	v.extend_from_slice(data);
	blake2_256(&v)
}

/// The hash of an inner node.
pub fn hash_node(left: &Hash, right: &Hash) -> Hash {
	let mut buf = [0u8; 65];
	buf[0] = NODE_TAG;
	buf[1..33].copy_from_slice(left);
	buf[33..65].copy_from_slice(right);
	blake2_256(&buf)
}

/// The root of a tree with no leaf.
pub fn empty_root() -> Hash {
	blake2_256(&[EMPTY_TAG])
}

/// The root over leaf hashes.
pub fn root(leaves: &[Hash]) -> Hash {
	let mut b = MerkleBuilder::default();
	for l in leaves {
		b.push(*l);
	}
	b.finish()
}

/// The root over `data` cut into `chunk`-byte leaves (the last may be shorter);
/// `chunk == 0` is treated as 1.
pub fn root_of_chunks(data: &[u8], chunk: usize) -> Hash {
	let mut b = MerkleBuilder::default();
	for c in data.chunks(chunk.max(1)) {
		b.push(hash_leaf(c));
	}
	b.finish()
}

/// The root of an f32 tensor: leaves are [`TENSOR_CHUNK_ELEMENTS`]-element chunks of
/// its little-endian bits.
pub fn tensor_root(values: &[f32]) -> Hash {
	let mut b = MerkleBuilder::default();
	for c in values.chunks(TENSOR_CHUNK_ELEMENTS) {
		b.push(tensor_leaf(c));
	}
	b.finish()
}

/// The leaf hash of one tensor chunk (at most [`TENSOR_CHUNK_ELEMENTS`] values).
pub fn tensor_leaf(chunk: &[f32]) -> Hash {
	let mut buf = [0u8; 4 * TENSOR_CHUNK_ELEMENTS];
	let n = chunk.len().min(TENSOR_CHUNK_ELEMENTS);
	for (dst, x) in buf.chunks_exact_mut(4).zip(chunk.iter()) {
		dst.copy_from_slice(&x.to_bits().to_le_bytes());
	}
	hash_leaf(buf.get(..4 * n).unwrap_or(&[]))
}

/// Builds a root from leaf hashes pushed one at a time, in `O(log n)` memory; gives the
/// same root as [`root`].
#[derive(Clone, Debug, Default)]
pub struct MerkleBuilder {
	/// Roots of perfect subtrees with their heights, heights strictly decreasing.
	stack: Vec<(u32, Hash)>,
	count: u64,
}

impl MerkleBuilder {
	/// Adds the next leaf hash.
	pub fn push(&mut self, leaf: Hash) {
		self.count += 1;
		let mut node = (0u32, leaf);
		while let Some(top) = self.stack.last() {
			if top.0 != node.0 {
				break;
			}
			let h = hash_node(&top.1, &node.1);
			node = (node.0 + 1, h);
			self.stack.pop();
		}
		self.stack.push(node);
	}

	/// Leaves pushed so far.
	pub fn count(&self) -> u64 {
		self.count
	}

	/// The root over every pushed leaf.
	pub fn finish(mut self) -> Hash {
		let Some((_, mut acc)) = self.stack.pop() else {
			return empty_root();
		};
		while let Some((_, left)) = self.stack.pop() {
			acc = hash_node(&left, &acc);
		}
		acc
	}
}

/// A proof that a leaf hash is at `leaf_index` of a tree of `leaf_count` leaves.
#[derive(Clone, PartialEq, Eq, Debug, Encode, Decode, DecodeWithMemTracking, TypeInfo)]
pub struct MerkleProof {
	/// 0-based position of the leaf.
	pub leaf_index: u32,
	/// Leaves in the tree.
	pub leaf_count: u32,
	/// Sibling hashes from the leaf level up (levels where the node is promoted have none).
	pub siblings: Vec<Hash>,
}

/// A proof for leaf `index` of `leaves`, or `None` when out of range.
pub fn proof(leaves: &[Hash], index: usize) -> Option<MerkleProof> {
	if index >= leaves.len() || leaves.len() > u32::MAX as usize {
		return None;
	}
	let mut level: Vec<Hash> = leaves.to_vec();
	let mut idx = index;
	let mut siblings = Vec::new();
	while level.len() > 1 {
		let sib = idx ^ 1;
		if let Some(s) = level.get(sib) {
			siblings.push(*s);
		}
		let mut next = Vec::with_capacity(level.len().div_ceil(2));
		for pair in level.chunks(2) {
			match pair {
				[l, r] => next.push(hash_node(l, r)),
				[l] => next.push(*l),
				_ => {}
			}
		}
		level = next;
		idx /= 2;
	}
	Some(MerkleProof { leaf_index: index as u32, leaf_count: leaves.len() as u32, siblings })
}

/// Whether `proof` shows `leaf` (a leaf hash) under `root`. The caller checks that
/// `proof.leaf_count` is the count it expects.
pub fn verify_proof(root: &Hash, leaf: &Hash, proof: &MerkleProof) -> bool {
	root_from_proof(leaf, proof).is_some_and(|r| r == *root)
}

/// The root that `proof` climbs to from `leaf` (a leaf hash, or the root of an aligned
/// subtree); `None` when the proof's shape does not fit its index and count.
pub fn root_from_proof(leaf: &Hash, proof: &MerkleProof) -> Option<Hash> {
	if proof.leaf_index >= proof.leaf_count {
		return None;
	}
	let mut idx = proof.leaf_index as u64;
	let mut n = proof.leaf_count as u64;
	let mut acc = *leaf;
	let mut sibs = proof.siblings.iter();
	while n > 1 {
		if idx % 2 == 1 {
			acc = hash_node(sibs.next()?, &acc);
		} else if idx + 1 < n {
			acc = hash_node(&acc, sibs.next()?);
		}
		idx /= 2;
		n = n.div_ceil(2);
	}
	sibs.next().is_none().then_some(acc)
}

#[cfg(test)]
mod tests {
	use super::*;

	fn level_root(leaves: &[Hash]) -> Hash {
		if leaves.is_empty() {
			return empty_root();
		}
		let mut level = leaves.to_vec();
		while level.len() > 1 {
			level = level
				.chunks(2)
				.map(|p| if p.len() == 2 { hash_node(&p[0], &p[1]) } else { p[0] })
				.collect();
		}
		level[0]
	}

	#[test]
	fn builder_matches_levels_and_proofs_verify() {
		for n in 0..40usize {
			let leaves: Vec<Hash> = (0..n).map(|i| hash_leaf(&(i as u32).to_le_bytes())).collect();
			let r = root(&leaves);
			assert_eq!(r, level_root(&leaves), "n = {n}");
			for i in 0..n {
				let p = proof(&leaves, i).unwrap();
				assert!(verify_proof(&r, &leaves[i], &p), "n = {n}, i = {i}");
				// A wrong leaf, index or count fails.
				let other = hash_leaf(b"other");
				assert!(!verify_proof(&r, &other, &p));
				if n > 1 {
					let mut q = p.clone();
					q.leaf_index = ((i + 1) % n) as u32;
					assert!(!verify_proof(&r, &leaves[i], &q) || leaves[i] == leaves[(i + 1) % n]);
				}
				let mut q = p.clone();
				q.siblings.push([0u8; 32]);
				assert!(!verify_proof(&r, &leaves[i], &q));
			}
			assert!(proof(&leaves, n).is_none());
		}
	}

	#[test]
	fn leaves_and_nodes_are_domain_separated() {
		let a = hash_leaf(b"a");
		let b = hash_leaf(b"b");
		let mut cat = Vec::new();
		cat.extend_from_slice(&a);
		cat.extend_from_slice(&b);
		assert_ne!(hash_leaf(&cat), hash_node(&a, &b));
		assert_eq!(root(&[a]), a);
	}

	#[test]
	fn tensor_root_is_chunked_bits() {
		let v: Vec<f32> = (0..200).map(|i| i as f32 * 0.5).collect();
		let mut bytes = Vec::new();
		for x in &v {
			bytes.extend_from_slice(&x.to_le_bytes());
		}
		assert_eq!(tensor_root(&v), root_of_chunks(&bytes, 4 * TENSOR_CHUNK_ELEMENTS));
		let mut w = v.clone();
		w[0] = -0.0; // +0 and -0 differ in bits
		assert_ne!(tensor_root(&v), tensor_root(&w));
	}
}
