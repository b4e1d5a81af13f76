//! A checkpoint published on chain in pages, each proved against a run's checkpoint
//! root, so that a solver cannot serve a checkpoint to its partners alone.
//!
//! A checkpoint's hash is the root over its *items*: item 0 is the step (its 8 bytes,
//! little-endian), then every tensor of the training state in state order (per
//! trainable layer its weight then bias, then per parameter tensor its optimizer
//! tensors: SGD's momentum, Adam's two moments). A page is one item's slice of at most
//! [`PAGE_ELEMENTS`] values as little-endian f32 bits (the step is one page of 8 bytes).
//!
//! A tensor's root is over 64-value chunks ([`crate::merkle::tensor_root`]). A page
//! holds a whole number of aligned chunks, a power of two of them, so its root is a
//! node of the tensor's tree and the tensor root is the root over its pages' roots (a
//! last, shorter page is promoted like any lone node). A page's proof therefore climbs
//! three trees: the page among its tensor's pages, the item among the checkpoint's
//! items, and the checkpoint among the run's checkpoints.

use crate::merkle::{self, Hash, MerkleProof};
use crate::{TaskSpec, TENSOR_CHUNK_ELEMENTS};
use alloc::vec::Vec;
use codec::{Decode, DecodeWithMemTracking, Encode};
use scale_info::TypeInfo;

/// Values in a full page: 64 KiB of f32 bits, 256 chunks.
pub const PAGE_ELEMENTS: usize = 256 * TENSOR_CHUNK_ELEMENTS;

/// Bytes in a full page.
pub const PAGE_BYTES: usize = 4 * PAGE_ELEMENTS;

/// Bytes of the step item.
pub const STEP_BYTES: usize = 8;

/// A page's proof: its root among its tensor's pages (`page`), the tensor's root among
/// the checkpoint's items (`item`), and the checkpoint among the run's (`checkpoint`).
#[derive(Clone, PartialEq, Eq, Debug, Encode, Decode, DecodeWithMemTracking, TypeInfo)]
pub struct PageProof {
	/// Page index and count within the item, and the sibling pages' roots.
	pub page: MerkleProof,
	/// Item index and count within the checkpoint.
	pub item: MerkleProof,
	/// Checkpoint index and count within the run.
	pub checkpoint: MerkleProof,
}

/// The length of every tensor of `spec`'s training state, in state order.
pub fn tensor_lengths(spec: &TaskSpec) -> Vec<u64> {
	let sizes = crate::layout::param_shapes(spec)
		.into_iter()
		.map(|s| s.iter().fold(1u64, |n, d| n.saturating_mul(u64::from(*d))));
	let mut params: Vec<u64> = sizes.collect();
	let slots = crate::layout::opt_slots(&spec.training.optimizer);
	let opt: Vec<u64> = params.iter().flat_map(|n| core::iter::repeat_n(*n, slots)).collect();
	params.extend(opt);
	params
}

/// Pages of a tensor of `len` values (an empty tensor is one empty page).
pub fn pages_of(len: u64) -> u64 {
	len.div_ceil(PAGE_ELEMENTS as u64).max(1)
}

/// Pages of a whole checkpoint with tensors of `lengths`, the step's included.
pub fn page_count(lengths: &[u64]) -> u64 {
	lengths.iter().fold(1u64, |n, l| n.saturating_add(pages_of(*l)))
}

/// Pages from page `page` of item `item` (itself included) to a checkpoint's last, in
/// the order they are published.
pub fn pages_from(lengths: &[u64], item: u32, page: u32) -> u64 {
	let before = (0..item).filter_map(|i| item_pages(lengths, i)).sum::<u64>();
	page_count(lengths).saturating_sub(before.saturating_add(page.into()))
}

/// Bytes of a whole checkpoint's pages.
pub fn state_bytes(lengths: &[u64]) -> u64 {
	lengths.iter().fold(STEP_BYTES as u64, |n, l| n.saturating_add(l.saturating_mul(4)))
}

/// Pages of item `item` (0: the step), or `None` past the last.
pub fn item_pages(lengths: &[u64], item: u32) -> Option<u64> {
	match item.checked_sub(1) {
		None => Some(1),
		Some(t) => lengths.get(t as usize).map(|l| pages_of(*l)),
	}
}

/// The bytes page `page` of item `item` holds, or `None` past its item's last page.
pub fn page_len(lengths: &[u64], item: u32, page: u32) -> Option<u64> {
	let Some(t) = item.checked_sub(1) else {
		return (page == 0).then_some(STEP_BYTES as u64);
	};
	let len = *lengths.get(t as usize)?;
	let start = u64::from(page).checked_mul(PAGE_ELEMENTS as u64)?;
	if u64::from(page) >= pages_of(len) {
		return None;
	}
	Some(len.saturating_sub(start).min(PAGE_ELEMENTS as u64).saturating_mul(4))
}

/// The root of one page's bytes: the step's leaf hash for item 0, otherwise the root
/// over the page's 64-value chunks.
pub fn page_root(item: u32, bytes: &[u8]) -> Hash {
	if item == 0 {
		merkle::hash_leaf(bytes)
	} else {
		merkle::root_of_chunks(bytes, 4 * TENSOR_CHUNK_ELEMENTS)
	}
}

/// Where the chain expects a page: which checkpoint of how many, and which page.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct PageAt {
	/// The checkpoint's index (0: the initial state).
	pub checkpoint: u32,
	/// The run's checkpoints, the initial state included.
	pub checkpoints: u32,
	/// The item (0: the step; `1 + t`: tensor `t`).
	pub item: u32,
	/// The page within the item.
	pub page: u32,
}

/// Whether `bytes` are page `at` of the checkpoint committed under `root`, for a state
/// whose tensors have `lengths`: the length is the page's, and `proof` climbs from its
/// root to `root` at exactly the expected indices and counts.
pub fn verify_page(
	root: &Hash,
	lengths: &[u64],
	at: PageAt,
	bytes: &[u8],
	proof: &PageProof,
) -> bool {
	let (Some(len), Some(pages)) =
		(page_len(lengths, at.item, at.page), item_pages(lengths, at.item))
	else {
		return false;
	};
	let items = (lengths.len() as u64).saturating_add(1);
	let shape = |p: &MerkleProof, index: u32, count: u64| {
		p.leaf_index == index && u64::from(p.leaf_count) == count
	};
	if bytes.len() as u64 != len
		|| !shape(&proof.page, at.page, pages)
		|| !shape(&proof.item, at.item, items)
		|| !shape(&proof.checkpoint, at.checkpoint, at.checkpoints.into())
	{
		return false;
	}
	merkle::root_from_proof(&page_root(at.item, bytes), &proof.page)
		.and_then(|tensor| merkle::root_from_proof(&tensor, &proof.item))
		.is_some_and(|state| merkle::verify_proof(root, &state, &proof.checkpoint))
}

/// One page to publish, with its proof.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Page {
	/// The item (0: the step).
	pub item: u32,
	/// The page within the item.
	pub page: u32,
	/// Its bytes.
	pub bytes: Vec<u8>,
	/// Its proof.
	pub proof: PageProof,
}

/// Every page of a checkpoint at `step` with `tensors`, in publishing order, each
/// proved against the root over `checkpoint_leaves` (the run's checkpoint hashes) at
/// index `checkpoint`; `None` when `checkpoint` is out of range.
pub fn pages(
	step: u64,
	tensors: &[&[f32]],
	checkpoint_leaves: &[Hash],
	checkpoint: u32,
) -> Option<Vec<Page>> {
	let checkpoint_proof = merkle::proof(checkpoint_leaves, checkpoint as usize)?;
	let mut item_leaves = Vec::with_capacity(tensors.len() + 1);
	let step_bytes = step.to_le_bytes().to_vec();
	item_leaves.push(page_root(0, &step_bytes));
	let mut page_roots: Vec<Vec<Hash>> = Vec::with_capacity(tensors.len());
	for t in tensors {
		let roots: Vec<Hash> = if t.is_empty() {
			alloc::vec![merkle::empty_root()]
		} else {
			t.chunks(PAGE_ELEMENTS).map(|p| page_root(1, &le_bytes(p))).collect()
		};
		item_leaves.push(merkle::root(&roots));
		page_roots.push(roots);
	}
	let prove = |item: u32, page: u32, bytes: Vec<u8>, roots: &[Hash]| {
		Some(Page {
			item,
			page,
			bytes,
			proof: PageProof {
				page: merkle::proof(roots, page as usize)?,
				item: merkle::proof(&item_leaves, item as usize)?,
				checkpoint: checkpoint_proof.clone(),
			},
		})
	};
	let mut out = Vec::new();
	out.push(prove(0, 0, step_bytes.clone(), &[page_root(0, &step_bytes)])?);
	for (t, (values, roots)) in tensors.iter().zip(&page_roots).enumerate() {
		let item = u32::try_from(t + 1).ok()?;
		if values.is_empty() {
			out.push(prove(item, 0, Vec::new(), roots)?);
		}
		for (p, chunk) in values.chunks(PAGE_ELEMENTS).enumerate() {
			out.push(prove(item, u32::try_from(p).ok()?, le_bytes(chunk), roots)?);
		}
	}
	Some(out)
}

/// The state root over a checkpoint's items (its hash in the checkpoint tree).
pub fn state_root(step: u64, tensors: &[&[f32]]) -> Hash {
	let roots: Vec<Hash> = tensors.iter().map(|t| merkle::tensor_root(t)).collect();
	state_root_of(step, &roots)
}

/// [`state_root`] from the tensors' roots.
pub fn state_root_of(step: u64, tensor_roots: &[Hash]) -> Hash {
	let mut b = merkle::MerkleBuilder::default();
	b.push(page_root(0, &step.to_le_bytes()));
	for r in tensor_roots {
		b.push(*r);
	}
	b.finish()
}

fn le_bytes(values: &[f32]) -> Vec<u8> {
	values.iter().flat_map(|x| x.to_bits().to_le_bytes()).collect()
}

#[cfg(test)]
mod tests {
	use super::*;

	fn tensor(n: usize, seed: u32) -> Vec<f32> {
		(0..n).map(|i| (i as u32 ^ seed) as f32 * 0.5).collect()
	}

	/// Tensors around page and chunk edges, and an empty one.
	fn sample() -> Vec<Vec<f32>> {
		[
			0,
			1,
			63,
			64,
			65,
			PAGE_ELEMENTS - 1,
			PAGE_ELEMENTS,
			PAGE_ELEMENTS + 1,
			3 * PAGE_ELEMENTS + 70,
		]
		.iter()
		.enumerate()
		.map(|(i, n)| tensor(*n, i as u32))
		.collect()
	}

	#[test]
	fn a_tensor_root_is_the_root_over_its_page_roots() {
		for t in sample() {
			let roots: Vec<Hash> = if t.is_empty() {
				alloc::vec![merkle::empty_root()]
			} else {
				t.chunks(PAGE_ELEMENTS).map(|p| page_root(1, &le_bytes(p))).collect()
			};
			assert_eq!(merkle::root(&roots), merkle::tensor_root(&t), "{} values", t.len());
		}
	}

	#[test]
	fn every_page_verifies_at_its_place_and_nowhere_else() {
		let tensors = sample();
		let refs: Vec<&[f32]> = tensors.iter().map(|t| t.as_slice()).collect();
		let lengths: Vec<u64> = tensors.iter().map(|t| t.len() as u64).collect();
		let mut leaves: Vec<Hash> =
			(0..5u32).map(|i| merkle::hash_leaf(&i.to_le_bytes())).collect();
		leaves[3] = state_root(42, &refs);
		let root = merkle::root(&leaves);
		let pages = pages(42, &refs, &leaves, 3).unwrap();
		assert_eq!(pages.len() as u64, page_count(&lengths));
		for (k, p) in pages.iter().enumerate() {
			assert_eq!(pages_from(&lengths, p.item, p.page), (pages.len() - k) as u64, "{p:?}");
		}
		let at = |p: &Page| PageAt { checkpoint: 3, checkpoints: 5, item: p.item, page: p.page };
		for p in &pages {
			assert!(verify_page(&root, &lengths, at(p), &p.bytes, &p.proof), "{p:?}");
			// Another place, other bytes, a shorter page, another run: refused.
			let moved = PageAt { page: p.page + 1, ..at(p) };
			assert!(!verify_page(&root, &lengths, moved, &p.bytes, &p.proof));
			let other = PageAt { checkpoint: 2, ..at(p) };
			assert!(!verify_page(&root, &lengths, other, &p.bytes, &p.proof));
			if let Some(b) = p.bytes.first() {
				let mut bytes = p.bytes.clone();
				bytes[0] = b ^ 1;
				assert!(!verify_page(&root, &lengths, at(p), &bytes, &p.proof));
				let short = &p.bytes[..p.bytes.len() - 1];
				assert!(!verify_page(&root, &lengths, at(p), short, &p.proof));
			}
			assert!(!verify_page(&merkle::root(&leaves[..4]), &lengths, at(p), &p.bytes, &p.proof));
		}
		// The pages hold the state, nothing more.
		let bytes: usize = pages.iter().map(|p| p.bytes.len()).sum();
		assert_eq!(bytes as u64, state_bytes(&lengths));
	}

	#[test]
	fn a_state_has_its_spec_tensors() {
		for spec in [crate::fixtures::mnist_mlp(), crate::fixtures::tiny_cnn()] {
			let lengths = tensor_lengths(&spec);
			let est = crate::estimate(&spec).unwrap();
			let slots = crate::estimate::state_tensors_per_param(&spec.training.optimizer);
			assert_eq!(lengths.iter().sum::<u64>(), est.parameters * slots);
		}
	}
}
