//! The IDX format of MNIST (plain or gzip-compressed): a magic number saying the
//! element type and the number of dimensions, the dimensions as big-endian `u32`, then
//! the elements. Only unsigned bytes (type 0x08), the type of every MNIST file, are read.
//!
//! An IDX array knows its own length, so a *bundle* — the images file immediately
//! followed by the labels file — is one file that a task's data reference (one URI, one
//! hash) can name; `scripts/fetch-mnist.sh` writes `train.idx` and `test.idx` that way.

use super::DatasetError;
use flate2::read::MultiGzDecoder;
use std::borrow::Cow;
use std::io::Read;

/// One IDX array of unsigned bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IdxArray {
	/// The dimensions, outermost first.
	pub dims: Vec<usize>,
	/// The elements in row-major order.
	pub data: Vec<u8>,
}

/// Element type code of unsigned bytes.
const UBYTE: u8 = 0x08;

/// The first two bytes of a gzip stream.
pub const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];

/// Decompresses `bytes` when they are gzip (magic `1f 8b`, any number of members);
/// returns them unchanged (borrowed) otherwise. `what` names the file in errors.
/// Decompression stops past `limit` bytes ([`DatasetError::TooLarge`], a fault of the
/// bytes given, which callers have hash-checked): a few KiB of gzip can claim gigabytes.
pub fn gunzip_if_needed<'a>(
	bytes: &'a [u8],
	what: &str,
	limit: u64,
) -> Result<Cow<'a, [u8]>, DatasetError> {
	if !bytes.starts_with(&GZIP_MAGIC) {
		return Ok(Cow::Borrowed(bytes));
	}
	let mut plain = Vec::new();
	MultiGzDecoder::new(bytes).take(limit.saturating_add(1)).read_to_end(&mut plain).map_err(
		|e| DatasetError::Corrupt { what: what.to_string(), reason: format!("gzip: {e}") },
	)?;
	if plain.len() as u64 > limit {
		return Err(DatasetError::TooLarge { what: what.to_string(), limit, committed: true });
	}
	Ok(Cow::Owned(plain))
}

/// Parses one whole IDX file's bytes (plain, not gzip); `what` names it in errors.
pub fn parse(bytes: &[u8], what: &str) -> Result<IdxArray, DatasetError> {
	let (array, rest) = parse_prefix(bytes, what)?;
	if !rest.is_empty() {
		return Err(DatasetError::Corrupt {
			what: what.to_string(),
			reason: format!("{} bytes after the last element", rest.len()),
		});
	}
	Ok(array)
}

/// Parses the IDX array at the start of `bytes` and returns it with the bytes after it.
pub fn parse_prefix<'a>(bytes: &'a [u8], what: &str) -> Result<(IdxArray, &'a [u8]), DatasetError> {
	let truncated = |expected: usize| DatasetError::Truncated {
		what: what.to_string(),
		expected,
		actual: bytes.len(),
	};
	if bytes.len() < 4 {
		return Err(truncated(4));
	}
	if bytes[0] != 0 || bytes[1] != 0 || bytes[2] != UBYTE {
		return Err(DatasetError::Corrupt {
			what: what.to_string(),
			reason: format!(
				"bad IDX magic {:02x}{:02x}{:02x}{:02x} (expected 000008NN)",
				bytes[0], bytes[1], bytes[2], bytes[3]
			),
		});
	}
	let ndims = bytes[3] as usize;
	let header = 4 + 4 * ndims;
	if bytes.len() < header {
		return Err(truncated(header));
	}
	let dims: Vec<usize> = bytes[4..header]
		.chunks_exact(4)
		.map(|c| u32::from_be_bytes([c[0], c[1], c[2], c[3]]) as usize)
		.collect();
	let count = dims.iter().try_fold(1usize, |acc, &d| acc.checked_mul(d)).ok_or_else(|| {
		DatasetError::Corrupt {
			what: what.to_string(),
			reason: format!("dimensions {dims:?} overflow"),
		}
	})?;
	let end = header.checked_add(count).ok_or_else(|| truncated(usize::MAX))?;
	if bytes.len() < end {
		return Err(truncated(end));
	}
	let array = IdxArray { dims, data: bytes[header..end].to_vec() };
	Ok((array, &bytes[end..]))
}

/// Writes `array` as plain IDX bytes (used by tests and tools).
pub fn encode(array: &IdxArray) -> Vec<u8> {
	let mut out = vec![0, 0, UBYTE, array.dims.len() as u8];
	for &d in &array.dims {
		out.extend_from_slice(&(d as u32).to_be_bytes());
	}
	out.extend_from_slice(&array.data);
	out
}
