//! blake2-256 (BLAKE2b with a 32-byte digest), the one hash of the project, with a
//! streaming form for files and downloads, and hex encoding for people and JSON.
//!
//! The bytes are the same as `sp_crypto_hashing::blake2_256`, which the runtime uses.

use blake2::digest::{consts::U32, Digest};
use std::io::{self, Read};

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
}
