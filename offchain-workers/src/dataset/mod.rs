//! Training data: MNIST IDX (plain or gzip), safetensors and token-sequence files
//! ([`tokens`]), fetched from
//! `http(s)://` (or `file://` where the [`DataSource`] allows it), never read past the
//! size the spec implies, checked against the spec's file hash and chunk root before
//! use, and checked against the shape the task spec declares.
//!
//! Pixels become `f32` in one fixed way for every backend: a byte `b` is `b as f32 / 255.0`
//! (an exactly rounded IEEE division), and `f32` data is taken as it is.

pub mod fetch;
pub mod hosts;
pub mod idx;
pub mod safetensors;
pub mod tokens;

use crate::hash::{self, Hash};
use gensyn_primitives::merkle;
use std::path::{Path, PathBuf};

pub use fetch::{fetch_verified, local_path, DataSource};

/// Everything that can go wrong while getting or reading a data set.
#[derive(Debug, thiserror::Error)]
pub enum DatasetError {
	/// A local file could not be read or written.
	#[error("{path}: {source}")]
	Io {
		/// The file.
		path: PathBuf,
		/// What the OS said.
		source: std::io::Error,
	},
	/// The URI's scheme is neither `file://` nor `http(s)://`.
	#[error("unsupported data URI {0:?} (expected file://, http:// or https://)")]
	UnsupportedUri(String),
	/// A `file://` URI (or a bare path) where the [`DataSource`] reads only downloads:
	/// a task's submitter must not name files on a worker's disk.
	#[error("data URI {0:?} names a local file, which this worker does not read")]
	LocalFileRefused(String),
	/// The file (or its decompressed contents) is larger than the spec's sample count
	/// and shape allow; nothing past that was kept.
	#[error("{what} is larger than the {limit} bytes its spec allows")]
	TooLarge {
		/// The URI or file.
		what: String,
		/// The most bytes allowed.
		limit: u64,
		/// Whether the oversized bytes are the ones the spec commits to: their hash was
		/// read to the end and matched (or they inflated from such bytes). Otherwise the
		/// bytes were cut off unchecked (an endless body, a device file) or missed the
		/// hash, and may be served right yet.
		committed: bool,
	},
	/// The HTTP request failed or the connection broke off.
	#[error("download of {uri} failed: {reason}")]
	Http {
		/// The URI.
		uri: String,
		/// What went wrong.
		reason: String,
	},
	/// The file's blake2-256 hash is not the one the spec commits to.
	#[error("hash mismatch for {uri}: expected {expected}, got {actual}")]
	HashMismatch {
		/// The URI.
		uri: String,
		/// The committed hash, hex.
		expected: String,
		/// The hash of what was read, hex.
		actual: String,
	},
	/// The file's hash matches but the Merkle root over its chunks ([`chunk_root`]) is
	/// not the spec's `chunk_root`: a dispute that reaches a data value could not be
	/// answered, since no chunk of the file can be proven under the committed root.
	#[error(
		"chunk root mismatch for {uri}: the spec commits to {expected}, the data's is {actual}"
	)]
	ChunkRootMismatch {
		/// The URI.
		uri: String,
		/// The spec's chunk root, hex.
		expected: String,
		/// The root over the bytes read, hex.
		actual: String,
	},
	/// The file ends before the data its header announces.
	#[error("{what} is truncated: needs {expected} bytes, has {actual}")]
	Truncated {
		/// The file.
		what: String,
		/// Bytes the header announces.
		expected: usize,
		/// Bytes present.
		actual: usize,
	},
	/// The file is not in the format it claims (bad magic, bad header, trailing bytes).
	#[error("{what} is not valid: {reason}")]
	Corrupt {
		/// The file.
		what: String,
		/// What is wrong.
		reason: String,
	},
	/// A named tensor is missing from a safetensors file.
	#[error("{what} has no tensor named {name:?}")]
	MissingTensor {
		/// The file.
		what: String,
		/// The missing tensor.
		name: String,
	},
	/// A tensor has an element type this loader does not take.
	#[error("{what}: tensor {name:?} has unsupported dtype {dtype}")]
	UnsupportedDtype {
		/// The file.
		what: String,
		/// The tensor.
		name: String,
		/// Its dtype.
		dtype: String,
	},
	/// The samples' shape is not the one the spec declares.
	#[error("sample shape mismatch: spec says {expected:?}, data has {actual:?}")]
	ShapeMismatch {
		/// The declared shape of one sample.
		expected: Vec<usize>,
		/// The shape found.
		actual: Vec<usize>,
	},
	/// The number of samples is not the one the spec declares, or images and labels disagree.
	#[error("sample count mismatch: expected {expected}, found {actual}")]
	CountMismatch {
		/// The expected count.
		expected: usize,
		/// The count found.
		actual: usize,
	},
	/// A label is not below the number of classes.
	#[error("label {label} of sample {index} is not below the {classes} classes")]
	LabelOutOfRange {
		/// The sample.
		index: usize,
		/// Its label.
		label: u32,
		/// The number of classes.
		classes: usize,
	},
	/// A token id is not below the vocabulary's size.
	#[error("token {token} of sequence {index} is not below the vocabulary's {vocab}")]
	TokenOutOfRange {
		/// The sequence.
		index: usize,
		/// The id.
		token: u32,
		/// The vocabulary's size.
		vocab: usize,
	},
}

impl DatasetError {
	pub(crate) fn io(path: &Path, source: std::io::Error) -> Self {
		Self::Io { path: path.to_path_buf(), source }
	}

	/// Whether this is a fault of the bytes the spec commits to (their file hash
	/// matched): their chunk root or content is not what the spec says. Every worker that
	/// reads them finds the same, unlike a download that failed or bytes that do not
	/// match the hash (retried: the submitter may serve them yet).
	pub fn is_committed_data_fault(&self) -> bool {
		matches!(
			self,
			Self::TooLarge { committed: true, .. }
				| Self::ChunkRootMismatch { .. }
				| Self::Truncated { .. }
				| Self::Corrupt { .. }
				| Self::MissingTensor { .. }
				| Self::UnsupportedDtype { .. }
				| Self::ShapeMismatch { .. }
				| Self::CountMismatch { .. }
				| Self::LabelOutOfRange { .. }
				| Self::TokenOutOfRange { .. }
		)
	}
}

/// A data set in memory: labelled inputs, or a language model's token sequences.
#[derive(Clone, Debug, PartialEq)]
pub struct Dataset {
	/// Shape of one sample, e.g. `[1, 28, 28]`; a token sequence's `[t + 1]`.
	pub sample_shape: Vec<usize>,
	/// All samples, row-major, one after another (token ids as `f32`, exact).
	pub inputs: Vec<f32>,
	/// One class index per sample; none for token sequences.
	pub labels: Vec<u32>,
	/// Whether each sample is a token sequence (its first `t` ids the input, its last
	/// `t` the targets) rather than a labelled input.
	pub sequences: bool,
}

impl Dataset {
	/// Builds a data set, checking that inputs and labels agree in count.
	pub fn new(
		sample_shape: Vec<usize>,
		inputs: Vec<f32>,
		labels: Vec<u32>,
	) -> Result<Self, DatasetError> {
		let per = sample_shape.iter().product::<usize>().max(1);
		if inputs.len() != per * labels.len() {
			return Err(DatasetError::CountMismatch {
				expected: labels.len(),
				actual: inputs.len() / per,
			});
		}
		Ok(Self { sample_shape, inputs, labels, sequences: false })
	}

	/// Number of samples.
	pub fn len(&self) -> usize {
		if self.sequences {
			self.inputs.len() / self.sample_len().max(1)
		} else {
			self.labels.len()
		}
	}

	/// Whether there are no samples.
	pub fn is_empty(&self) -> bool {
		self.len() == 0
	}

	/// Number of `f32` values in one sample.
	pub fn sample_len(&self) -> usize {
		self.sample_shape.iter().product()
	}

	/// The inputs of sample `i`.
	pub fn sample(&self, i: usize) -> &[f32] {
		let n = self.sample_len();
		&self.inputs[i * n..(i + 1) * n]
	}

	/// Gathers the token sequences `indices` into one batch, back to back; `None` where
	/// the data holds no sequences or an index is past the last.
	pub fn sequence_batch(&self, indices: &[usize]) -> Option<Vec<u32>> {
		if !self.sequences {
			return None;
		}
		let n = self.sample_len();
		let mut ids = Vec::with_capacity(indices.len().saturating_mul(n));
		for &i in indices {
			let start = i.checked_mul(n)?;
			let seq = self.inputs.get(start..start.checked_add(n)?)?;
			ids.extend(seq.iter().map(|x| *x as u32));
		}
		Some(ids)
	}

	/// Gathers the samples `indices` into one batch: inputs back to back, and labels.
	pub fn batch(&self, indices: &[usize]) -> (Vec<f32>, Vec<u32>) {
		let mut inputs = Vec::with_capacity(indices.len() * self.sample_len());
		let mut labels = Vec::with_capacity(indices.len());
		for &i in indices {
			inputs.extend_from_slice(self.sample(i));
			labels.push(self.labels[i]);
		}
		(inputs, labels)
	}

	/// Checks the data against what a spec declares: the shape of one sample (a leading
	/// 1 channel may be left out on either side), the sample count when `samples` is
	/// given, and every label below `classes`.
	pub fn check(
		&self,
		shape: &[usize],
		samples: Option<usize>,
		classes: usize,
	) -> Result<(), DatasetError> {
		let strip = |s: &[usize]| -> Vec<usize> {
			let mut v = s.to_vec();
			while v.len() > 1 && v[0] == 1 {
				v.remove(0);
			}
			v
		};
		if strip(shape) != strip(&self.sample_shape) {
			return Err(DatasetError::ShapeMismatch {
				expected: shape.to_vec(),
				actual: self.sample_shape.clone(),
			});
		}
		if let Some(expected) = samples {
			if expected != self.len() {
				return Err(DatasetError::CountMismatch { expected, actual: self.len() });
			}
		}
		if let Some((index, &label)) =
			self.labels.iter().enumerate().find(|(_, &l)| l as usize >= classes)
		{
			return Err(DatasetError::LabelOutOfRange { index, label, classes });
		}
		Ok(())
	}
}

/// Turns a pixel byte into the `f32` every backend sees.
pub fn pixel_to_f32(b: u8) -> f32 {
	b as f32 / 255.0
}

/// Reads MNIST from an IDX images file (`[N, H, W]`) and an IDX labels file (`[N]`),
/// each plain or gzip. Samples get the shape `[1, H, W]`.
pub fn load_mnist_idx(images: &Path, labels: &Path) -> Result<Dataset, DatasetError> {
	let images_name = images.display().to_string();
	let labels_name = labels.display().to_string();
	let (imgs, lbls) = (read(images)?, read(labels)?);
	let imgs = idx::gunzip_if_needed(&imgs, &images_name, u64::MAX)?;
	let lbls = idx::gunzip_if_needed(&lbls, &labels_name, u64::MAX)?;
	mnist_from_arrays(
		idx::parse(&imgs, &images_name)?,
		idx::parse(&lbls, &labels_name)?,
		&images_name,
	)
}

/// Reads an MNIST bundle (plain or gzip): the images IDX immediately followed by the
/// labels IDX, the one-file form a task's data reference names.
pub fn load_mnist_bundle(path: &Path) -> Result<Dataset, DatasetError> {
	parse_mnist_bundle(&read(path)?, &path.display().to_string(), u64::MAX)
}

/// Parses the bytes of an MNIST bundle, plain or gzip; `what` names them.
pub fn parse_mnist_bundle(
	bytes: &[u8],
	what: &str,
	max_plain: u64,
) -> Result<Dataset, DatasetError> {
	let bytes = idx::gunzip_if_needed(bytes, what, max_plain)?;
	let (images, rest) = idx::parse_prefix(&bytes, what)?;
	if rest.is_empty() {
		return Err(DatasetError::Truncated {
			what: what.to_string(),
			expected: bytes.len() + 8 + images.dims.first().copied().unwrap_or(0),
			actual: bytes.len(),
		});
	}
	let labels = idx::parse(rest, what)?;
	mnist_from_arrays(images, labels, what)
}

fn read(path: &Path) -> Result<Vec<u8>, DatasetError> {
	std::fs::read(path).map_err(|e| DatasetError::io(path, e))
}

fn mnist_from_arrays(
	images: idx::IdxArray,
	labels: idx::IdxArray,
	what: &str,
) -> Result<Dataset, DatasetError> {
	if images.dims.len() != 3 {
		return Err(DatasetError::Corrupt {
			what: what.to_string(),
			reason: format!("images: expected 3 dimensions [N, H, W], found {:?}", images.dims),
		});
	}
	if labels.dims.len() != 1 {
		return Err(DatasetError::Corrupt {
			what: what.to_string(),
			reason: format!("labels: expected 1 dimension [N], found {:?}", labels.dims),
		});
	}
	if images.dims[0] != labels.dims[0] {
		return Err(DatasetError::CountMismatch {
			expected: images.dims[0],
			actual: labels.dims[0],
		});
	}
	Dataset::new(
		vec![1, images.dims[1], images.dims[2]],
		images.data.into_iter().map(pixel_to_f32).collect(),
		labels.data.into_iter().map(u32::from).collect(),
	)
}

/// The Merkle root a spec's `data.chunk_root` commits to: over the file's
/// [`merkle::DATA_CHUNK_SIZE`]-byte chunks (the last may be shorter), the leaves a
/// dispute proves a data value under. The one definition for `gensyn-ml data-ref`, which
/// writes it, and the workers, which check it.
pub fn chunk_root(bytes: &[u8]) -> Hash {
	merkle::root_of_chunks(bytes, merkle::DATA_CHUNK_SIZE)
}

/// Fetches the data a task's data reference names from `source` (checked against its
/// file hash and chunk root), reads it in its declared format and checks it against the
/// declared sample shape, count and classes.
pub fn load_data_ref(
	data: &gensyn_primitives::DataRef,
	source: &DataSource,
) -> Result<Dataset, DatasetError> {
	parse_data_ref(data, &fetch_data_ref(data, source)?)
}

/// The bytes of the file a task's data reference names, checked against its file hash
/// and then its chunk root (the same bytes both checks read: nothing is read twice).
/// Nothing past [`gensyn_primitives::DataRef::max_file_len`] is read.
///
/// The chunk root is checked here, on the bytes returned, rather than when a file is
/// fetched or cached, so that it holds whichever way the bytes came (a local file, the
/// cache, a download): a file can match its hash while the spec's chunk root is bogus,
/// and such a spec is the submitter's fault, not the file's.
pub fn fetch_data_ref(
	data: &gensyn_primitives::DataRef,
	source: &DataSource,
) -> Result<Vec<u8>, DatasetError> {
	let uri =
		data.uri.as_str().ok_or_else(|| DatasetError::UnsupportedUri("(not UTF-8)".into()))?;
	fetch_data_ref_at(data, uri, source)
}

/// [`fetch_data_ref`] from `uri` instead of the reference's own location: another copy
/// of the same file (a solver's store serves the data it trained on), held to the same
/// file hash, size and chunk root.
pub fn fetch_data_ref_at(
	data: &gensyn_primitives::DataRef,
	uri: &str,
	source: &DataSource,
) -> Result<Vec<u8>, DatasetError> {
	let bytes = fetch_verified(uri, &data.file_hash.0, data.max_file_len(), source)?;
	let actual = chunk_root(&bytes);
	if actual != data.chunk_root.0 {
		return Err(DatasetError::ChunkRootMismatch {
			uri: uri.to_string(),
			expected: hash::to_hex(&data.chunk_root.0),
			actual: hash::to_hex(&actual),
		});
	}
	Ok(bytes)
}

/// Reads `bytes` (the file a data reference names, already hash-checked) in the
/// reference's declared format and checks the declared sample shape, count and classes.
pub fn parse_data_ref(
	data: &gensyn_primitives::DataRef,
	bytes: &[u8],
) -> Result<Dataset, DatasetError> {
	use gensyn_primitives::DataFormat;
	let what = data.uri.as_str().unwrap_or("the data file");
	let dataset = match data.format {
		// Disputes read an uncompressed bundle's bytes at fixed offsets: gzip under the
		// plain format could not be ruled on, so it is the spec's fault, not inflated.
		DataFormat::MnistIdx if bytes.starts_with(&idx::GZIP_MAGIC) => {
			return Err(DatasetError::Corrupt {
				what: what.to_string(),
				reason: "gzip-compressed, but the spec says mnist_idx (uncompressed)".into(),
			})
		}
		DataFormat::MnistIdx | DataFormat::MnistIdxGz => {
			parse_mnist_bundle(bytes, what, data.idx_bundle_len())?
		}
		DataFormat::Safetensors => safetensors::parse(bytes, what)?,
		DataFormat::Tokens => return tokens::parse(bytes, what, data),
	};
	let s = data.input;
	dataset.check(
		&[s.channels as usize, s.height as usize, s.width as usize],
		Some(data.samples as usize),
		data.classes as usize,
	)?;
	Ok(dataset)
}

/// Loads a local data file for evaluation (no hash to check): an MNIST bundle, plain
/// or gzip, or a safetensors file (by the `.safetensors` extension).
pub fn load_local(path: &Path) -> Result<Dataset, DatasetError> {
	if path.extension().is_some_and(|e| e == "safetensors") {
		safetensors::load(path)
	} else {
		load_mnist_bundle(path)
	}
}

impl gensyn_repops::model::Dataset for Dataset {
	fn sample(&self, index: u32, input: &mut [f32]) -> gensyn_repops::Result<u32> {
		let i = index as usize;
		let label = *self.labels.get(i).ok_or(gensyn_repops::ReproError::Data)?;
		let n = self.sample_len();
		let src = self.inputs.get(i * n..(i + 1) * n).ok_or(gensyn_repops::ReproError::Data)?;
		if src.len() != input.len() {
			return Err(gensyn_repops::ReproError::ShapeMismatch);
		}
		input.copy_from_slice(src);
		Ok(label)
	}

	fn sequence(&self, index: u32, ids: &mut [u32]) -> gensyn_repops::Result<()> {
		if !self.sequences {
			return Err(gensyn_repops::ReproError::Unsupported);
		}
		let src = self.sequence_batch(&[index as usize]).ok_or(gensyn_repops::ReproError::Data)?;
		if src.len() != ids.len() {
			return Err(gensyn_repops::ReproError::ShapeMismatch);
		}
		ids.copy_from_slice(&src);
		Ok(())
	}
}
