//! blake2-256 (BLAKE2b with a 32-byte digest), the one hash of the project, with a
//! streaming form for files and downloads, and hex encoding for people and JSON.
//!
//! The bytes are the same as `sp_crypto_hashing::blake2_256`, which the runtime uses.
//! [`tensor_root`] is `gensyn_primitives::merkle::tensor_root` computed several hashes
//! at a time (a checkpoint writer hashes thousands of leaves per state).

use blake2::digest::{consts::U32, Digest};
use blake2b_simd::many::HashManyJob;
use gensyn_primitives::merkle::{self, TENSOR_CHUNK_ELEMENTS};
use std::io::{self, Read};

/// The tag before a Merkle leaf's bytes (as in `gensyn_primitives::merkle`).
const LEAF_TAG: u8 = 0x00;
/// The tag before a Merkle node's two children.
const NODE_TAG: u8 = 0x01;

/// A 32-byte blake2-256 digest.
pub type Hash = [u8; 32];

/// Incremental blake2-256.
#[derive(Clone, Default)]
pub struct Hasher(blake2::Blake2b<U32>);

impl Hasher {
	/// A hasher with nothing fed yet.
	pub fn new() -> Self {
		Self::default()
	}

	/// Feeds `data`.
	pub fn update(&mut self, data: &[u8]) {
		self.0.update(data);
	}

	/// The digest of everything fed.
	pub fn finish(self) -> Hash {
		self.0.finalize().into()
	}
}

/// blake2-256 of `data`.
pub fn blake2_256(data: &[u8]) -> Hash {
	sp_crypto_hashing::blake2_256(data)
}

/// blake2-256 of everything `reader` yields, read in 1 MiB pieces.
pub fn blake2_256_reader(mut reader: impl Read) -> io::Result<Hash> {
	let mut hasher = Hasher::new();
	let mut buf = vec![0u8; 1 << 20];
	loop {
		match reader.read(&mut buf) {
			Ok(0) => return Ok(hasher.finish()),
			Ok(n) => hasher.update(&buf[..n]),
			Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
			Err(e) => return Err(e),
		}
	}
}

/// blake2-256 of each input, several at a time in SIMD lanes (`blake2b_simd`'s
/// `hash_many`): the same digests as [`blake2_256`] one by one, a few times faster
/// for many short inputs.
fn blake2_256_many<'a>(inputs: impl Iterator<Item = &'a [u8]>) -> Vec<Hash> {
	let mut params = blake2b_simd::Params::new();
	params.hash_length(32);
	let mut jobs: Vec<HashManyJob> = inputs.map(|i| HashManyJob::new(&params, i)).collect();
	blake2b_simd::many::hash_many(jobs.iter_mut());
	jobs.iter()
		.map(|j| {
			let mut h = [0u8; 32];
			h.copy_from_slice(j.to_hash().as_bytes());
			h
		})
		.collect()
}

/// The Merkle root of an f32 tensor, equal to `gensyn_primitives::merkle::tensor_root`
/// (leaves: tagged chunks of [`TENSOR_CHUNK_ELEMENTS`] little-endian values; levels
/// paired left to right, a lone last node promoted), with each level's hashes computed
/// together.
pub fn tensor_root(values: &[f32]) -> Hash {
	if values.is_empty() {
		return merkle::root(&[]);
	}
	// Leaves in batches (each leaf's input: the tag, then its values' bytes), so their
	// inputs take a fixed amount of memory; the first node level's inputs take about
	// half the tensor's size.
	const BATCH: usize = 1024;
	let mut level = Vec::with_capacity(values.len().div_ceil(TENSOR_CHUNK_ELEMENTS));
	let mut buf = Vec::with_capacity(BATCH * (1 + 4 * TENSOR_CHUNK_ELEMENTS));
	let mut ends = Vec::with_capacity(BATCH);
	for batch in values.chunks(BATCH * TENSOR_CHUNK_ELEMENTS) {
		buf.clear();
		ends.clear();
		for chunk in batch.chunks(TENSOR_CHUNK_ELEMENTS) {
			buf.push(LEAF_TAG);
			buf.extend(chunk.iter().flat_map(|x| x.to_bits().to_le_bytes()));
			ends.push(buf.len());
		}
		let starts = core::iter::once(0).chain(ends.iter().copied());
		level.extend(blake2_256_many(starts.zip(&ends).map(|(s, &e)| &buf[s..e])));
	}
	let mut node = Vec::with_capacity(65 * level.len() / 2);
	while level.len() > 1 {
		node.clear();
		let pairs = level.chunks_exact(2);
		let lone = pairs.remainder().first().copied();
		for pair in pairs {
			node.push(NODE_TAG);
			node.extend_from_slice(&pair[0]);
			node.extend_from_slice(&pair[1]);
		}
		level = blake2_256_many(node.chunks_exact(65));
		level.extend(lone);
	}
	level[0]
}

/// Lower-case hex of `bytes`.
pub fn to_hex(bytes: &[u8]) -> String {
	bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Parses 64 hex digits (an optional `0x` prefix allowed) into a hash.
pub fn from_hex(text: &str) -> Option<Hash> {
	let text = text.strip_prefix("0x").unwrap_or(text);
	if text.len() != 64 || !text.is_ascii() {
		return None;
	}
	let mut out = [0u8; 32];
	for (i, byte) in out.iter_mut().enumerate() {
		*byte = u8::from_str_radix(&text[2 * i..2 * i + 2], 16).ok()?;
	}
	Some(out)
}

#[cfg(test)]
mod tests {
	use super::*;

	#[test]
	fn streaming_equals_one_shot_and_known_vector() {
		let data: Vec<u8> = (0..3_000_000u32).map(|i| (i * 7) as u8).collect();
		let one_shot = blake2_256(&data);
		assert_eq!(blake2_256_reader(&data[..]).unwrap(), one_shot);
		// BLAKE2b-256 of the empty string.
		assert_eq!(
			to_hex(&blake2_256(b"")),
			"0e5751c026e543b2e8ab2eb06099daa1d1e5df47778f7787faab45cdf12fe3a8"
		);
		assert_eq!(from_hex(&to_hex(&one_shot)), Some(one_shot));
		assert_eq!(from_hex("0x12"), None);
	}

	#[test]
	fn tensor_root_equals_the_primitive_definition() {
		// Lengths around chunk and level boundaries: a short last chunk, a lone node
		// promoted at one level or several, a single leaf, no leaf.
		let n = TENSOR_CHUNK_ELEMENTS;
		for len in
			[0, 1, n - 1, n, n + 1, 2 * n, 3 * n, 5 * n + 7, 64 * n, 100 * n + 3, 2500 * n + 1]
		{
			let v: Vec<f32> = (0..len).map(|i| (i as f32 * 0.37).sin() - 0.25).collect();
			assert_eq!(tensor_root(&v), merkle::tensor_root(&v), "{len} values");
		}
		let mut v = vec![1.0f32; 3 * n];
		let before = tensor_root(&v);
		v[2 * n] = -1.0;
		assert_ne!(tensor_root(&v), before);
	}
}
