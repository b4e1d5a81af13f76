//! Token sequences (`format: "tokens"`): a file of `N` sequences back to back, no
//! header, each `t + 1` one-byte token ids (`docs/data-format.md`). Every id must be
//! below the vocabulary (the spec's `classes`), which the chain cannot check: a file
//! that breaks it is the submitter's fault, found by every worker alike.

use super::{Dataset, DatasetError};
use gensyn_primitives::DataRef;

/// Reads `bytes` (`what` names them) as the token sequences `data` declares: exactly
/// `samples` sequences of `sequence_len` ids, each below `classes`.
pub fn parse(bytes: &[u8], what: &str, data: &DataRef) -> Result<Dataset, DatasetError> {
	let per = usize::try_from(data.sequence_len()).unwrap_or(usize::MAX);
	let expected = per.saturating_mul(data.samples as usize);
	if bytes.len() < expected {
		return Err(DatasetError::Truncated {
			what: what.to_string(),
			expected,
			actual: bytes.len(),
		});
	}
	if bytes.len() > expected {
		let reason = format!("{} bytes where the spec's sequences take {expected}", bytes.len());
		return Err(DatasetError::Corrupt { what: what.to_string(), reason });
	}
	read(bytes, what, per.saturating_sub(1), data.classes as usize)
}

/// Reads `bytes` as whole sequences of `context + 1` ids, each below `vocab`, as many as
/// they hold (a held-out file, which no spec counts).
pub fn read(
	bytes: &[u8],
	what: &str,
	context: usize,
	vocab: usize,
) -> Result<Dataset, DatasetError> {
	let per = context.saturating_add(1);
	if bytes.is_empty() || !bytes.len().is_multiple_of(per) {
		let reason = format!("{} bytes are not whole sequences of {per} tokens", bytes.len());
		return Err(DatasetError::Corrupt { what: what.to_string(), reason });
	}
	if let Some(at) = bytes.iter().position(|b| *b as usize >= vocab) {
		let index = at / per;
		return Err(DatasetError::TokenOutOfRange { index, token: bytes[at].into(), vocab });
	}
	Ok(Dataset {
		sample_shape: vec![per],
		inputs: bytes.iter().map(|b| f32::from(*b)).collect(),
		labels: Vec::new(),
		sequences: true,
	})
}
