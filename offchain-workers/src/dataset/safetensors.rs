//! Data sets stored as safetensors: a tensor `inputs` of shape `[N, ...sample]` (`U8`
//! pixels, turned into `f32` as everywhere, or `F32` values taken as they are) and a
//! tensor `labels` of shape `[N]` (`U8`, `U16`, `U32` or `I64`).

use super::{pixel_to_f32, Dataset, DatasetError};
use safetensors::{tensor::TensorView, Dtype, SafeTensors};
use std::path::Path;

/// Name of the inputs tensor.
pub const INPUTS: &str = "inputs";
/// Name of the labels tensor.
pub const LABELS: &str = "labels";

/// Reads a data set from a safetensors file.
pub fn load(path: &Path) -> Result<Dataset, DatasetError> {
	let bytes = std::fs::read(path).map_err(|e| DatasetError::io(path, e))?;
	parse(&bytes, &path.display().to_string())
}

/// Reads a data set from safetensors bytes; `what` names them in errors.
pub fn parse(bytes: &[u8], what: &str) -> Result<Dataset, DatasetError> {
	let tensors = SafeTensors::deserialize(bytes).map_err(|e| match e {
		safetensors::SafeTensorError::MetadataIncompleteBuffer
		| safetensors::SafeTensorError::HeaderTooSmall => {
			DatasetError::Truncated { what: what.to_string(), expected: 0, actual: bytes.len() }
		}
		other => DatasetError::Corrupt { what: what.to_string(), reason: other.to_string() },
	})?;
	let get = |name: &str| {
		tensors.tensor(name).map_err(|_| DatasetError::MissingTensor {
			what: what.to_string(),
			name: name.to_string(),
		})
	};
	let unsupported = |name: &str, t: &TensorView| DatasetError::UnsupportedDtype {
		what: what.to_string(),
		name: name.to_string(),
		dtype: format!("{:?}", t.dtype()),
	};
	let inputs_view = get(INPUTS)?;
	let labels_view = get(LABELS)?;
	let shape = inputs_view.shape();
	if shape.is_empty() {
		return Err(DatasetError::Corrupt {
			what: what.to_string(),
			reason: "inputs tensor is a scalar".into(),
		});
	}
	let data = inputs_view.data();
	let inputs: Vec<f32> = match inputs_view.dtype() {
		Dtype::U8 => data.iter().copied().map(pixel_to_f32).collect(),
		Dtype::F32 => {
			data.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
		}
		_ => return Err(unsupported(INPUTS, &inputs_view)),
	};
	let raw = labels_view.data();
	let labels: Vec<u32> = match labels_view.dtype() {
		Dtype::U8 => raw.iter().map(|&b| b as u32).collect(),
		Dtype::U16 => {
			raw.chunks_exact(2).map(|c| u16::from_le_bytes([c[0], c[1]]) as u32).collect()
		}
		Dtype::U32 => {
			raw.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
		}
		Dtype::I64 => raw
			.chunks_exact(8)
			.map(|c| {
				let v = i64::from_le_bytes(c.try_into().expect("8 bytes"));
				u32::try_from(v).unwrap_or(u32::MAX)
			})
			.collect(),
		_ => return Err(unsupported(LABELS, &labels_view)),
	};
	if labels_view.shape().len() != 1 || labels_view.shape()[0] != shape[0] {
		return Err(DatasetError::CountMismatch {
			expected: shape[0],
			actual: labels_view.shape().first().copied().unwrap_or(0),
		});
	}
	Dataset::new(shape[1..].to_vec(), inputs, labels)
}
