//! What both sides of the pinpoint game compute the same way: where a bisection move
//! posts its values, how a state root is formed from tensor roots, how one tensor chunk
//! is opened against its root, and where one value of the batch lies in the data file.
//!
//! The chain (`pallet-gensyn-arbitration`) checks moves with these functions; the
//! workers build honest moves with them, so the two can never disagree on geometry.

use crate::{
	graph::{Graph, INPUT, LABELS},
	ReproError, Result,
};
use alloc::vec::Vec;
use gensyn_primitives::{
	merkle::{self, Hash, MerkleProof, DATA_CHUNK_SIZE, TENSOR_CHUNK_ELEMENTS},
	order, DataFormat, TaskSpec,
};

/// The points strictly inside `(lo, hi)` at which a bisection move posts a value: at
/// most `max`, spread evenly, strictly increasing. Empty when `hi - lo < 2`.
pub fn dissection_points(lo: u64, hi: u64, max: u32) -> Vec<u64> {
	let gap = hi.saturating_sub(lo);
	if gap < 2 || max == 0 {
		return Vec::new();
	}
	let m = u64::from(max).min(gap - 1);
	(1..=m).map(|i| lo + ((u128::from(gap) * u128::from(i)) / (u128::from(m) + 1)) as u64).collect()
}

/// The interval a challenger names by `pick` among `points` (as returned by
/// [`dissection_points`]): `0` is `(lo, points[0])`, `points.len()` is
/// `(points[last], hi)`. `None` when `pick` is out of range.
pub fn picked_interval(lo: u64, hi: u64, points: &[u64], pick: u32) -> Option<(u64, u64)> {
	let i = pick as usize;
	if i > points.len() {
		return None;
	}
	let a = if i == 0 { lo } else { *points.get(i - 1)? };
	let b = if i == points.len() { hi } else { *points.get(i)? };
	Some((a, b))
}

/// The state root of a training state after `step` steps, from its tensor roots in
/// state order (parameters, then optimizer state): the same value as
/// [`crate::state::TrainState::root`].
pub fn state_root(step: u64, tensor_roots: impl IntoIterator<Item = Hash>) -> Hash {
	let mut b = merkle::MerkleBuilder::default();
	b.push(merkle::hash_leaf(&step.to_le_bytes()));
	for r in tensor_roots {
		b.push(r);
	}
	b.finish()
}

/// The roots of the state a step starts from (tensor roots of the graph's parameters and
/// optimizer state, taken from `roots` indexed by tensor id).
pub fn start_state_root(g: &Graph, step: u64, roots: &[Hash]) -> Option<Hash> {
	let ids = g.params.iter().chain(&g.opt_state);
	let picked: Option<Vec<Hash>> = ids.map(|id| roots.get(*id as usize).copied()).collect();
	Some(state_root(step, picked?))
}

/// The root of the state a step ends in (the updated parameters and optimizer state).
pub fn end_state_root(g: &Graph, step: u64, roots: &[Hash]) -> Option<Hash> {
	let ids = g.new_params.iter().chain(&g.new_opt_state);
	let picked: Option<Vec<Hash>> = ids.map(|id| roots.get(*id as usize).copied()).collect();
	Some(state_root(step.checked_add(1)?, picked?))
}

/// Number of chunks (Merkle leaves) of a tensor of `numel` elements.
pub fn tensor_chunks(numel: u64) -> u64 {
	numel.div_ceil(TENSOR_CHUNK_ELEMENTS as u64)
}

/// The chunk holding element `index` of a tensor, and the position inside it.
pub fn chunk_of(index: u64) -> (u64, usize) {
	let n = TENSOR_CHUNK_ELEMENTS as u64;
	(index / n, (index % n) as usize)
}

/// An opening of chunk `chunk` of `values`: the chunk and its Merkle proof.
pub fn open_tensor(values: &[f32], chunk: u64) -> Option<(Vec<f32>, MerkleProof)> {
	let leaves: Vec<Hash> = values.chunks(TENSOR_CHUNK_ELEMENTS).map(merkle::tensor_leaf).collect();
	let proof = merkle::proof(&leaves, usize::try_from(chunk).ok()?)?;
	let start = usize::try_from(chunk).ok()?.checked_mul(TENSOR_CHUNK_ELEMENTS)?;
	let end = start.saturating_add(TENSOR_CHUNK_ELEMENTS).min(values.len());
	Some((values.get(start..end)?.to_vec(), proof))
}

/// Whether `chunk_values` are chunk `chunk` of a tensor of `numel` elements with root
/// `root`, by the sibling hashes `siblings`.
pub fn verify_tensor_chunk(
	root: &Hash,
	numel: u64,
	chunk: u64,
	chunk_values: &[f32],
	siblings: &[Hash],
) -> bool {
	let leaves = tensor_chunks(numel);
	let expected = numel.saturating_sub(chunk.saturating_mul(TENSOR_CHUNK_ELEMENTS as u64));
	let expected = expected.min(TENSOR_CHUNK_ELEMENTS as u64);
	let (Ok(leaf_index), Ok(leaf_count)) = (u32::try_from(chunk), u32::try_from(leaves)) else {
		return false;
	};
	if chunk >= leaves || chunk_values.len() as u64 != expected {
		return false;
	}
	let proof = MerkleProof { leaf_index, leaf_count, siblings: siblings.to_vec() };
	merkle::verify_proof(root, &merkle::tensor_leaf(chunk_values), &proof)
}

/// Height of a Merkle tree over `leaves` leaves (`0` for one leaf): levels above the
/// leaves, each pairing nodes left to right and promoting an odd last node.
pub fn tree_height(leaves: u64) -> u32 {
	let mut h = 0;
	while (1u64 << h.min(63)) < leaves && h < 64 {
		h += 1;
	}
	h
}

/// Nodes at height `level` of a tree over `leaves` leaves.
pub fn level_count(leaves: u64, level: u32) -> u64 {
	if level >= 64 {
		return u64::from(leaves > 0);
	}
	leaves.div_ceil(1u64 << level)
}

/// The node hashes `span` levels below node `index` at height `height` that a descent
/// move reveals: `(first index, count)` at height `height - span`.
pub fn descent_children(leaves: u64, height: u32, index: u64, span: u32) -> Option<(u64, u64)> {
	let below = height.checked_sub(span)?;
	let first = index.checked_shl(span)?;
	let total = level_count(leaves, below);
	if first >= total {
		return None;
	}
	Some((first, (1u64 << span).min(total - first)))
}

/// Levels a descent move goes down from height `height` (at most 4: 16 nodes a move).
pub fn descent_span(height: u32) -> u32 {
	height.min(4)
}

/// Folds consecutive nodes (aligned to a power of two, as [`descent_children`] gives
/// them) up to their common ancestor, pairing left to right and promoting odd nodes.
pub fn fold_nodes(nodes: &[Hash]) -> Option<Hash> {
	let mut level: Vec<Hash> = nodes.to_vec();
	while level.len() > 1 {
		level = level
			.chunks(2)
			.map(|p| match p {
				[l, r] => merkle::hash_node(l, r),
				[l] => *l,
				_ => [0u8; 32],
			})
			.collect();
	}
	level.first().copied()
}

/// Every level of the tree over `leaves` (leaf hashes first, the root last).
pub fn tree_levels(leaves: Vec<Hash>) -> Vec<Vec<Hash>> {
	let mut levels = alloc::vec![leaves];
	while levels.last().is_some_and(|l| l.len() > 1) {
		let next = levels
			.last()
			.map(|l| {
				l.chunks(2)
					.map(|p| match p {
						[a, b] => merkle::hash_node(a, b),
						[a] => *a,
						_ => [0u8; 32],
					})
					.collect()
			})
			.unwrap_or_default();
		levels.push(next);
	}
	levels
}

/// The leaf hashes of a tensor's Merkle tree (one per chunk).
pub fn tensor_leaves(values: &[f32]) -> Vec<Hash> {
	values.chunks(TENSOR_CHUNK_ELEMENTS).map(merkle::tensor_leaf).collect()
}

/// Elements in chunk `chunk` of a tensor of `numel` elements.
pub fn chunk_len(numel: u64, chunk: u64) -> u64 {
	numel
		.saturating_sub(chunk.saturating_mul(TENSOR_CHUNK_ELEMENTS as u64))
		.min(TENSOR_CHUNK_ELEMENTS as u64)
}

/// Where one value of a step's batch lies in the task's data file.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct DataLocation {
	/// Byte offset in the file.
	pub offset: u64,
	/// The file's length in bytes.
	pub file_len: u64,
	/// Whether the byte is an id (a class label, or a token of a sequence) rather than a
	/// pixel.
	pub label: bool,
}

impl DataLocation {
	/// The data chunk (Merkle leaf over [`DATA_CHUNK_SIZE`]-byte chunks) holding the byte.
	pub fn chunk(&self) -> u64 {
		self.offset / DATA_CHUNK_SIZE as u64
	}

	/// Number of data chunks of the file.
	pub fn chunks(&self) -> u64 {
		self.file_len.div_ceil(DATA_CHUNK_SIZE as u64)
	}

	/// The value the byte stands for in the batch tensor: `pixel / 255`, or the id.
	pub fn value(&self, byte: u8) -> f32 {
		if self.label {
			f32::from(byte)
		} else {
			f32::from(byte) / 255.0
		}
	}
}

/// Whether disputes can reach into this data format (the file must hold the raw values
/// at fixed offsets: the uncompressed MNIST IDX bundle, and token sequences).
pub fn data_disputable(format: DataFormat) -> bool {
	matches!(format, DataFormat::MnistIdx | DataFormat::Tokens)
}

/// Where element `elem` of tensor `tensor` (`INPUT` or `LABELS`) of step `step`'s batch
/// lies in the data file: an MNIST IDX bundle (images IDX `[N, H, W]` then labels IDX
/// `[N]`), or `N` token sequences of `t + 1` one-byte ids (a sequence's input is its
/// first `t`, its labels its last `t`). Computes the epoch's sample order
/// (`O(samples)`).
pub fn data_location(
	spec: &TaskSpec,
	randomness: &[u8; 32],
	step: u64,
	tensor: u32,
	elem: u64,
) -> Result<DataLocation> {
	let tokens = spec.data.format == DataFormat::Tokens;
	if !data_disputable(spec.data.format) || spec.data.input.channels != 1 {
		return Err(ReproError::Data);
	}
	let (epoch, start, end) = order::step_range(spec, step).ok_or(ReproError::OutOfRange)?;
	let per_sample =
		u64::from(spec.data.input.height).saturating_mul(u64::from(spec.data.input.width));
	let n = u64::from(spec.data.samples);
	// Both of a sequence's tensors hold `t` values a sample; an image's labels one.
	let per_label = if tokens { per_sample } else { 1 };
	let (b, within) = match tensor {
		INPUT if per_sample > 0 => (elem / per_sample, elem % per_sample),
		LABELS if per_label > 0 => (elem / per_label, elem % per_label),
		_ => return Err(ReproError::OutOfRange),
	};
	let pos = (start as u64).checked_add(b).ok_or(ReproError::OutOfRange)?;
	if pos >= end as u64 {
		return Err(ReproError::OutOfRange);
	}
	let perm = order::epoch_permutation(spec.training.seed, randomness, epoch, spec.data.samples);
	let sample = u64::from(*perm.get(pos as usize).ok_or(ReproError::OutOfRange)?);
	if tokens {
		let per = per_sample.saturating_add(1);
		let next = u64::from(tensor == LABELS);
		let offset = sample.saturating_mul(per).saturating_add(within).saturating_add(next);
		return Ok(DataLocation { offset, file_len: n.saturating_mul(per), label: true });
	}
	let images_len = 16 + n * per_sample;
	let file_len = images_len + 8 + n;
	let (offset, label) = if tensor == INPUT {
		(16 + sample * per_sample + within, false)
	} else {
		(images_len + 8 + sample, true)
	};
	Ok(DataLocation { offset, file_len, label })
}

/// Whether `bytes` are data chunk `chunk` of a file of `file_len` bytes with chunk root
/// `root`, by the sibling hashes `siblings`.
pub fn verify_data_chunk(
	root: &Hash,
	file_len: u64,
	chunk: u64,
	bytes: &[u8],
	siblings: &[Hash],
) -> bool {
	let size = DATA_CHUNK_SIZE as u64;
	let leaves = file_len.div_ceil(size);
	let expected = file_len.saturating_sub(chunk.saturating_mul(size)).min(size);
	let (Ok(leaf_index), Ok(leaf_count)) = (u32::try_from(chunk), u32::try_from(leaves)) else {
		return false;
	};
	if chunk >= leaves || bytes.len() as u64 != expected {
		return false;
	}
	let proof = MerkleProof { leaf_index, leaf_count, siblings: siblings.to_vec() };
	merkle::verify_proof(root, &merkle::hash_leaf(bytes), &proof)
}

/// An opening of data chunk `chunk` of `file`: its bytes and Merkle proof.
pub fn open_data(file: &[u8], chunk: u64) -> Option<(Vec<u8>, MerkleProof)> {
	let leaves: Vec<Hash> = file.chunks(DATA_CHUNK_SIZE).map(merkle::hash_leaf).collect();
	let proof = merkle::proof(&leaves, usize::try_from(chunk).ok()?)?;
	let start = usize::try_from(chunk).ok()?.checked_mul(DATA_CHUNK_SIZE)?;
	let end = start.saturating_add(DATA_CHUNK_SIZE).min(file.len());
	Some((file.get(start..end)?.to_vec(), proof))
}

#[cfg(test)]
mod tests {
	use super::*;

	#[test]
	fn dissection_points_are_inside_and_increasing() {
		for (lo, hi) in [(0u64, 2u64), (0, 50), (3, 20), (0, 1_000_000), (7, 9)] {
			let p = dissection_points(lo, hi, 16);
			assert!(p.len() <= 16);
			assert_eq!(p.len() as u64, (hi - lo - 1).min(16));
			let mut prev = lo;
			for x in &p {
				assert!(*x > prev && *x < hi, "{lo} {hi} {p:?}");
				prev = *x;
			}
			// Every pick gives a strictly smaller, non-empty interval.
			for pick in 0..=p.len() as u32 {
				let (a, b) = picked_interval(lo, hi, &p, pick).unwrap();
				assert!(a < b && b - a < hi - lo);
			}
			assert!(picked_interval(lo, hi, &p, p.len() as u32 + 1).is_none());
		}
		assert!(dissection_points(4, 5, 16).is_empty());
	}

	#[test]
	fn tensor_openings_verify_and_tampering_fails() {
		let values: Vec<f32> = (0..200).map(|i| i as f32 * 0.5).collect();
		let root = merkle::tensor_root(&values);
		for chunk in 0..tensor_chunks(200) {
			let (vals, proof) = open_tensor(&values, chunk).unwrap();
			assert!(verify_tensor_chunk(&root, 200, chunk, &vals, &proof.siblings));
			let mut bad = vals.clone();
			bad[0] += 1.0;
			assert!(!verify_tensor_chunk(&root, 200, chunk, &bad, &proof.siblings));
			assert!(!verify_tensor_chunk(&root, 264, chunk, &vals, &proof.siblings));
		}
		assert!(open_tensor(&values, 4).is_none());
	}

	#[test]
	fn descent_reaches_every_leaf_and_folds_to_the_root() {
		for n in [1usize, 2, 3, 5, 16, 17, 31, 100, 1568] {
			let leaves: Vec<Hash> =
				(0..n).map(|i| merkle::hash_leaf(&(i as u64).to_le_bytes())).collect();
			let root = merkle::root(&leaves);
			let levels = tree_levels(leaves.clone());
			let h = tree_height(n as u64);
			assert_eq!(levels.len() as u32, h + 1, "n={n}");
			assert_eq!(levels[h as usize], vec![root]);
			// Walk down to every leaf by descents of up to 4 levels.
			for target in 0..n as u64 {
				let (mut height, mut index, mut node) = (h, 0u64, root);
				while height > 0 {
					let span = descent_span(height);
					let (first, count) = descent_children(n as u64, height, index, span).unwrap();
					let below = &levels[(height - span) as usize];
					let kids = &below[first as usize..(first + count) as usize];
					assert_eq!(fold_nodes(kids), Some(node), "n={n} h={height} i={index}");
					let pick = (target >> (height - span)) - first;
					height -= span;
					index = first + pick;
					node = kids[pick as usize];
				}
				assert_eq!(node, leaves[target as usize]);
			}
		}
	}

	#[test]
	fn data_openings_verify() {
		let file: Vec<u8> = (0..3000u32).map(|i| (i % 251) as u8).collect();
		let root = merkle::root_of_chunks(&file, DATA_CHUNK_SIZE);
		for chunk in 0..3 {
			let (bytes, proof) = open_data(&file, chunk).unwrap();
			assert!(verify_data_chunk(&root, 3000, chunk, &bytes, &proof.siblings));
			assert!(!verify_data_chunk(&root, 4100, chunk, &bytes, &proof.siblings));
		}
	}
}
