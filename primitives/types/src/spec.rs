//! The training task spec and its parts, with their documented bounds.
//!
//! A spec is SCALE-encoded on chain and written as JSON by users (see
//! `examples/mnist-mlp.json` at the repository root). Every list and string in it is
//! bounded; [`crate::validate`] checks everything else.

use crate::bounded::BoundedVec;
use alloc::{format, string::String, vec::Vec};
use codec::{Decode, DecodeWithMemTracking, Encode, MaxEncodedLen};
use scale_info::TypeInfo;
use serde::{Deserialize, Serialize};

/// Most layers in a model.
pub const MAX_LAYERS: u32 = 32;
/// Most bytes in a data URI.
pub const MAX_URI_LEN: u32 = 256;
/// Most features on either side of a `Linear` layer.
pub const MAX_FEATURES: u32 = 65_536;
/// Most channels of an image tensor (input or `Conv2d` output).
pub const MAX_CHANNELS: u32 = 1_024;
/// Largest height or width of an image tensor.
pub const MAX_SPATIAL: u32 = 1_024;
/// Largest `Conv2d` / `MaxPool2d` kernel side.
pub const MAX_KERNEL: u32 = 15;
/// Most elements of one sample's activation after any layer.
pub const MAX_ACTIVATION: u64 = 1 << 22;
/// Most trainable parameters (weights and biases) of a model.
pub const MAX_PARAMETERS: u64 = 1 << 24;
/// Most output classes.
pub const MAX_CLASSES: u32 = 1_000;
/// Largest batch size.
pub const MAX_BATCH: u32 = 4_096;
/// Most epochs.
pub const MAX_EPOCHS: u32 = 1_000;
/// Most samples in a data set.
pub const MAX_SAMPLES: u32 = 10_000_000;
/// Most training steps of a task (`epochs * ceil(samples / batch)`).
pub const MAX_STEPS: u64 = 10_000_000;
/// Most token positions of a language model's sequence (its context).
pub const MAX_CONTEXT: u32 = 1_024;
/// Most attention heads of a `DecoderBlock`.
pub const MAX_HEADS: u32 = 64;
/// The `eps` of every `LayerNorm`, a `DecoderBlock`'s included (PyTorch's default).
pub const LAYER_NORM_EPS: f32 = 1e-5;

/// The IEEE-754 bits of an `f32`.
///
/// SCALE cannot encode floats, so reals are carried as their bits (SCALE: a `u32`);
/// in JSON they read and write as a plain number (`0.01`), rounded to the nearest
/// `f32` on reading.
#[derive(
	Clone,
	Copy,
	PartialEq,
	Eq,
	Debug,
	Default,
	Hash,
	Encode,
	Decode,
	DecodeWithMemTracking,
	MaxEncodedLen,
	TypeInfo,
)]
pub struct F32Bits(pub u32);

impl F32Bits {
	/// The bits of `x`.
	pub fn from_f32(x: f32) -> Self {
		Self(x.to_bits())
	}
	/// The `f32` these bits stand for.
	pub fn to_f32(self) -> f32 {
		f32::from_bits(self.0)
	}
}

impl From<f32> for F32Bits {
	fn from(x: f32) -> Self {
		Self::from_f32(x)
	}
}

impl Serialize for F32Bits {
	fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
		s.serialize_f32(self.to_f32())
	}
}

impl<'de> Deserialize<'de> for F32Bits {
	fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
		d.deserialize_any(F32BitsVisitor)
	}
}

/// Reads a real from a JSON number. Numbers arrive as f64 or integers and are rounded once
/// to f32. When serde_json's `arbitrary_precision` feature is on (FRAME's genesis builder
/// turns it on in every build that links FRAME) a number buffered inside a tagged enum
/// arrives as a one-entry map holding its decimal text; that form is accepted too.
struct F32BitsVisitor;

impl<'de> serde::de::Visitor<'de> for F32BitsVisitor {
	type Value = F32Bits;

	fn expecting(&self, f: &mut core::fmt::Formatter) -> core::fmt::Result {
		f.write_str("a number")
	}

	fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<F32Bits, E> {
		Ok(F32Bits::from_f32(v as f32))
	}

	fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<F32Bits, E> {
		Ok(F32Bits::from_f32(v as f32))
	}

	fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<F32Bits, E> {
		Ok(F32Bits::from_f32(v as f32))
	}

	fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<F32Bits, E> {
		v.trim()
			.parse::<f64>()
			.map(|x| F32Bits::from_f32(x as f32))
			.map_err(|_| E::invalid_value(serde::de::Unexpected::Str(v), &self))
	}

	fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<F32Bits, A::Error> {
		let Some((_key, text)) =
			map.next_entry::<alloc::string::String, alloc::string::String>()?
		else {
			return Err(serde::de::Error::invalid_length(0, &self));
		};
		self.visit_str(&text)
	}
}

/// A 32-byte hash (blake2-256). JSON: a `0x`-prefixed hex string.
#[derive(
	Clone,
	Copy,
	PartialEq,
	Eq,
	Debug,
	Default,
	Hash,
	Encode,
	Decode,
	DecodeWithMemTracking,
	MaxEncodedLen,
	TypeInfo,
)]
pub struct Hash32(pub [u8; 32]);

fn hex_nibble(c: u8) -> Option<u8> {
	match c {
		b'0'..=b'9' => Some(c - b'0'),
		b'a'..=b'f' => Some(c - b'a' + 10),
		b'A'..=b'F' => Some(c - b'A' + 10),
		_ => None,
	}
}

impl Hash32 {
	/// Lower-case hex with a `0x` prefix.
	pub fn to_hex(&self) -> String {
		let mut s = String::with_capacity(66);
		s.push_str("0x");
		for b in self.0 {
			s.push_str(&format!("{b:02x}"));
		}
		s
	}

	/// Parses 64 hex digits, with or without a `0x` prefix.
	pub fn from_hex(s: &str) -> Option<Self> {
		let s = s.strip_prefix("0x").unwrap_or(s).as_bytes();
		if s.len() != 64 {
			return None;
		}
		let mut out = [0u8; 32];
		for (o, pair) in out.iter_mut().zip(s.chunks_exact(2)) {
			let hi = hex_nibble(*pair.first()?)?;
			let lo = hex_nibble(*pair.get(1)?)?;
			*o = (hi << 4) | lo;
		}
		Some(Self(out))
	}
}

impl Serialize for Hash32 {
	fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
		s.serialize_str(&self.to_hex())
	}
}

struct StrVisitor;
impl serde::de::Visitor<'_> for StrVisitor {
	type Value = String;
	fn expecting(&self, f: &mut core::fmt::Formatter) -> core::fmt::Result {
		f.write_str("a string")
	}
	fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<String, E> {
		Ok(String::from(v))
	}
}

impl<'de> Deserialize<'de> for Hash32 {
	fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
		let s = d.deserialize_str(StrVisitor)?;
		Self::from_hex(&s)
			.ok_or_else(|| serde::de::Error::custom("expected 32 bytes as 64 hex digits"))
	}
}

/// A data URI (`file://`, `http://` or `https://`), at most [`MAX_URI_LEN`] bytes.
/// JSON: a string.
#[derive(
	Clone,
	PartialEq,
	Eq,
	Debug,
	Default,
	Encode,
	Decode,
	DecodeWithMemTracking,
	MaxEncodedLen,
	TypeInfo,
)]
pub struct Uri(pub BoundedVec<u8, MAX_URI_LEN>);

impl Uri {
	/// The URI as text, if it is UTF-8.
	pub fn as_str(&self) -> Option<&str> {
		core::str::from_utf8(self.0.as_slice()).ok()
	}

	/// A URI from text, if short enough.
	pub fn parse(s: &str) -> Option<Self> {
		BoundedVec::try_from_vec(Vec::from(s.as_bytes())).ok().map(Self)
	}
}

impl Serialize for Uri {
	fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
		match self.as_str() {
			Some(t) => s.serialize_str(t),
			None => Err(serde::ser::Error::custom("URI is not UTF-8")),
		}
	}
}

impl<'de> Deserialize<'de> for Uri {
	fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
		let s = d.deserialize_str(StrVisitor)?;
		Self::parse(&s).ok_or_else(|| serde::de::Error::custom("URI longer than 256 bytes"))
	}
}

/// A proportion in parts per million (1_000_000 = all). JSON: an integer.
#[derive(
	Clone,
	Copy,
	PartialEq,
	Eq,
	Debug,
	Default,
	Encode,
	Decode,
	DecodeWithMemTracking,
	MaxEncodedLen,
	TypeInfo,
	Serialize,
	Deserialize,
)]
#[serde(transparent)]
pub struct Permill(pub u32);

/// The shape of one sample: channels, height, width (an MNIST digit is 1 x 28 x 28).
#[derive(
	Clone,
	Copy,
	PartialEq,
	Eq,
	Debug,
	Default,
	Encode,
	Decode,
	DecodeWithMemTracking,
	MaxEncodedLen,
	TypeInfo,
	Serialize,
	Deserialize,
)]
#[serde(deny_unknown_fields)]
pub struct Shape3 {
	/// Channels.
	pub channels: u32,
	/// Height in pixels.
	pub height: u32,
	/// Width in pixels.
	pub width: u32,
}

impl Shape3 {
	/// `channels * height * width` in 64 bits, saturating (three `u32` factors can
	/// exceed `u64`; a spec with such a shape is refused, but is sized first).
	pub fn numel(&self) -> u64 {
		(self.channels as u64).saturating_mul(self.height as u64).saturating_mul(self.width as u64)
	}
}

/// One layer of a sequential model. Tensors are NCHW; `Linear` needs a flat input
/// (put a `Flatten` after the last spatial layer) or a sequence, whose positions it
/// maps one by one. A language model starts with an `Embedding` of its token input and
/// works on sequences of `[t, d]` (`t` positions of `d` features). JSON:
/// `{"type": "linear", ...}`.
#[derive(
	Clone,
	Copy,
	PartialEq,
	Eq,
	Debug,
	Encode,
	Decode,
	DecodeWithMemTracking,
	MaxEncodedLen,
	TypeInfo,
	Serialize,
	Deserialize,
)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum Layer {
	/// `y = x W^T + b`, `W: [out_features, in_features]`, `b: [out_features]`.
	Linear {
		/// Input features.
		in_features: u32,
		/// Output features.
		out_features: u32,
	},
	/// 2-D convolution with a square kernel, `W: [out, in, kernel, kernel]`, `b: [out]`;
	/// zero padding on every side.
	Conv2d {
		/// Input channels.
		in_channels: u32,
		/// Output channels.
		out_channels: u32,
		/// Kernel side.
		kernel: u32,
		/// Stride (both axes).
		stride: u32,
		/// Zero padding (every side); must be smaller than `kernel`.
		padding: u32,
	},
	/// `max(x, 0)`.
	Relu,
	/// Max pooling with a square window and no padding.
	MaxPool2d {
		/// Window side.
		kernel: u32,
		/// Stride (both axes).
		stride: u32,
	},
	/// `[N, C, H, W] -> [N, C*H*W]`.
	Flatten,
	/// A language model's first layer: `t` token ids (the model's input `[1, 1, t]`)
	/// to `[t, dim]`, each position the sum of its token's row of a `[vocab, dim]`
	/// table and its position's row of a learned `[t, dim]` table.
	Embedding {
		/// Tokens in the vocabulary (the data's `classes`).
		vocab: u32,
		/// Features of each position.
		dim: u32,
	},
	/// One pre-norm decoder block on `[t, d]`: `h = x + attn(LayerNorm(x))`, then
	/// `y = h + W2 gelu(W1 LayerNorm(h) + b1) + b2`, where `attn` is causal
	/// self-attention of `heads` heads (query, key, value and output projections, each
	/// `[d, d]` with a bias; scores scaled by `1/sqrt(d/heads)`) and `gelu` its tanh form.
	DecoderBlock {
		/// Attention heads; `d` must be a multiple of it.
		heads: u32,
		/// Features of the MLP's hidden layer (`W1: [hidden, d]`).
		hidden: u32,
	},
	/// Layer normalisation over each position's `d` features, with a learned scale and
	/// shift (`eps` [`LAYER_NORM_EPS`]).
	LayerNorm,
}

/// The training loss.
#[derive(
	Clone,
	Copy,
	PartialEq,
	Eq,
	Debug,
	Default,
	Encode,
	Decode,
	DecodeWithMemTracking,
	MaxEncodedLen,
	TypeInfo,
	Serialize,
	Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum Loss {
	/// Mean over the batch of `logsumexp(z) - z[label]`.
	#[default]
	SoftmaxCrossEntropy,
	/// A language model's loss: the mean over every position of every sequence of
	/// `logsumexp(z) - z[next]`, `next` the token that follows the position's.
	TokenCrossEntropy,
}

/// The model: a sequential layer list applied to samples of shape `input`.
#[derive(
	Clone,
	PartialEq,
	Eq,
	Debug,
	Encode,
	Decode,
	DecodeWithMemTracking,
	MaxEncodedLen,
	TypeInfo,
	Serialize,
	Deserialize,
)]
#[serde(deny_unknown_fields)]
pub struct ModelSpec {
	/// Shape of one input sample.
	pub input: Shape3,
	/// The layers, first applied first.
	pub layers: BoundedVec<Layer, MAX_LAYERS>,
	/// The loss on the last layer's output (the logits).
	#[serde(default)]
	pub loss: Loss,
}

/// The file format of a data set.
#[derive(
	Clone,
	Copy,
	PartialEq,
	Eq,
	Debug,
	Encode,
	Decode,
	DecodeWithMemTracking,
	MaxEncodedLen,
	TypeInfo,
	Serialize,
	Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum DataFormat {
	/// MNIST IDX images + labels (one channel, u8 pixels, value = pixel / 255).
	MnistIdx,
	/// The same, gzip-compressed.
	MnistIdxGz,
	/// Safetensors with an f32 `inputs` tensor `[N, C, H, W]` and a `labels` tensor `[N]`.
	Safetensors,
	/// Token sequences for a language model, with no header: `samples` sequences of
	/// `t + 1` token ids, one byte each (`t` the width of the input `[1, 1, t]`); a
	/// sequence's first `t` ids are the model's input and its last `t` the targets.
	Tokens,
}

/// Where the training data is and how to check it.
#[derive(
	Clone,
	PartialEq,
	Eq,
	Debug,
	Encode,
	Decode,
	DecodeWithMemTracking,
	MaxEncodedLen,
	TypeInfo,
	Serialize,
	Deserialize,
)]
#[serde(deny_unknown_fields)]
pub struct DataRef {
	/// Where to fetch the data file.
	pub uri: Uri,
	/// blake2-256 of the whole file.
	pub file_hash: Hash32,
	/// Merkle root ([`crate::merkle`]) over the file cut into
	/// [`crate::merkle::DATA_CHUNK_SIZE`]-byte chunks (the last may be shorter), so one
	/// value of the file can be proven on chain.
	pub chunk_root: Hash32,
	/// File format.
	pub format: DataFormat,
	/// Number of training samples.
	pub samples: u32,
	/// Shape of one sample; must equal the model's input.
	pub input: Shape3,
	/// Number of classes; labels are `0..classes`.
	pub classes: u32,
}

/// Bytes a data file may have beyond its elements: a safetensors header, or a gzip
/// stream's headers and block framing.
const DATA_FRAMING_SLACK: u64 = 64 * 1024;

impl DataRef {
	/// Bytes of the uncompressed IDX bundle this reference describes: the images file
	/// (a 16-byte head, then one byte per pixel) followed by the labels file (an 8-byte
	/// head, then one byte per label).
	pub fn idx_bundle_len(&self) -> u64 {
		let n = self.samples as u64;
		24u64.saturating_add(n.saturating_mul(self.input.numel().saturating_add(1)))
	}

	/// Bytes of one sequence of a `tokens` file: the input's positions and one more.
	pub fn sequence_len(&self) -> u64 {
		self.input.numel().saturating_add(1)
	}

	/// The most bytes a file of this reference's format, sample count and shape can
	/// have. A worker stops reading a download there, so that a submitter's endless or
	/// oversized body costs it bounded memory and disk: exact for an IDX bundle, the
	/// bundle plus 1/1024 and 64 KiB for gzip (a stock encoder adds far less), and for
	/// safetensors 4-byte inputs and 8-byte labels (the widest accepted) plus 64 KiB of
	/// header; exact for tokens.
	pub fn max_file_len(&self) -> u64 {
		let plain = self.idx_bundle_len();
		match self.format {
			DataFormat::MnistIdx => plain,
			DataFormat::MnistIdxGz => {
				plain.saturating_add(plain / 1024).saturating_add(DATA_FRAMING_SLACK)
			}
			DataFormat::Safetensors => {
				let per_sample = self.input.numel().saturating_mul(4).saturating_add(8);
				(self.samples as u64).saturating_mul(per_sample).saturating_add(DATA_FRAMING_SLACK)
			}
			DataFormat::Tokens => self.sequence_len().saturating_mul(self.samples as u64),
		}
	}
}

/// The optimizer and its hyper-parameters (PyTorch semantics, no weight decay).
#[derive(
	Clone,
	Copy,
	PartialEq,
	Eq,
	Debug,
	Encode,
	Decode,
	DecodeWithMemTracking,
	MaxEncodedLen,
	TypeInfo,
	Serialize,
	Deserialize,
)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum Optimizer {
	/// SGD with momentum: `buf = momentum * buf + g; p = p - lr * buf` (`buf` starts at 0).
	Sgd {
		/// Base learning rate (finite, > 0).
		lr: F32Bits,
		/// Momentum in `[0, 1)`.
		momentum: F32Bits,
	},
	/// Adam with bias correction.
	Adam {
		/// Base learning rate (finite, > 0).
		lr: F32Bits,
		/// First-moment decay in `[0, 1)`.
		beta1: F32Bits,
		/// Second-moment decay in `[0, 1)`.
		beta2: F32Bits,
		/// Denominator term (finite, > 0).
		eps: F32Bits,
	},
	/// PyTorch's `AdamW` after gradient-norm clipping: the gradients are scaled by
	/// `min(1, max_grad_norm / (norm + 1e-6))` (`norm` their global L2 norm), each
	/// parameter is decayed by `1 - lr * weight_decay`, then moved as by `Adam`. JSON:
	/// `{"type": "adam_w", ...}`, the snake case every client derives from the variant.
	AdamW {
		/// Base learning rate (finite, > 0).
		lr: F32Bits,
		/// First-moment decay in `[0, 1)`.
		beta1: F32Bits,
		/// Second-moment decay in `[0, 1)`.
		beta2: F32Bits,
		/// Denominator term (finite, > 0).
		eps: F32Bits,
		/// Decoupled weight decay (finite, >= 0).
		weight_decay: F32Bits,
		/// The gradients' largest global L2 norm (finite, > 0).
		max_grad_norm: F32Bits,
	},
}

impl Optimizer {
	/// The base learning rate.
	pub fn lr(&self) -> F32Bits {
		match self {
			Optimizer::Sgd { lr, .. }
			| Optimizer::Adam { lr, .. }
			| Optimizer::AdamW { lr, .. } => *lr,
		}
	}
}

/// How the learning rate moves with the step number (0-based).
#[derive(
	Clone,
	Copy,
	PartialEq,
	Eq,
	Debug,
	Default,
	Encode,
	Decode,
	DecodeWithMemTracking,
	MaxEncodedLen,
	TypeInfo,
	Serialize,
	Deserialize,
)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum LrSchedule {
	/// The base rate at every step.
	#[default]
	Constant,
	/// `lr * gamma^(step / every_steps)`.
	Step {
		/// Steps between decays (> 0).
		every_steps: u32,
		/// Decay factor in `(0, 1]`.
		gamma: F32Bits,
	},
	/// `min_lr + (lr - min_lr) * (1 + cos(pi * min(step, total) / total)) / 2`.
	Cosine {
		/// Steps of one half cosine (> 0).
		total_steps: u32,
		/// Final rate in `[0, lr]`.
		min_lr: F32Bits,
	},
}

/// How to train.
///
/// Steps: each epoch visits a permutation of the samples ([`crate::order`]) in batches
/// of `batch_size`; the last batch of an epoch may be smaller. A checkpoint is taken
/// every `checkpoint_interval` steps and after the last step.
#[derive(
	Clone,
	Copy,
	PartialEq,
	Eq,
	Debug,
	Encode,
	Decode,
	DecodeWithMemTracking,
	MaxEncodedLen,
	TypeInfo,
	Serialize,
	Deserialize,
)]
#[serde(deny_unknown_fields)]
pub struct TrainingSpec {
	/// Passes over the data (> 0).
	pub epochs: u32,
	/// Samples per step (> 0).
	pub batch_size: u32,
	/// Seed of the initial weights and of the data order.
	pub seed: u64,
	/// `k`: steps between checkpoints (> 0).
	pub checkpoint_interval: u32,
	/// The optimizer.
	pub optimizer: Optimizer,
	/// The learning-rate schedule.
	#[serde(default)]
	pub lr_schedule: LrSchedule,
}

/// How checkpoints are judged.
#[derive(
	Clone,
	Copy,
	PartialEq,
	Eq,
	Debug,
	Encode,
	Decode,
	DecodeWithMemTracking,
	MaxEncodedLen,
	TypeInfo,
	Serialize,
	Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum VerificationMode {
	/// A replayed segment passes within a profiled distance threshold.
	Threshold,
	/// A replayed segment passes only on equal state hashes (training done with repops).
	Exact,
}

/// Verification parameters.
#[derive(
	Clone,
	Copy,
	PartialEq,
	Eq,
	Debug,
	Encode,
	Decode,
	DecodeWithMemTracking,
	MaxEncodedLen,
	TypeInfo,
	Serialize,
	Deserialize,
)]
#[serde(deny_unknown_fields)]
pub struct VerificationSpec {
	/// Threshold or Exact.
	pub mode: VerificationMode,
	/// Share of checkpoint segments to audit, in `(0, 1_000_000]` parts per million.
	pub audit_fraction: Permill,
}

/// A whole training task.
#[derive(
	Clone,
	PartialEq,
	Eq,
	Debug,
	Encode,
	Decode,
	DecodeWithMemTracking,
	MaxEncodedLen,
	TypeInfo,
	Serialize,
	Deserialize,
)]
#[serde(deny_unknown_fields)]
pub struct TaskSpec {
	/// The model.
	pub model: ModelSpec,
	/// The data.
	pub data: DataRef,
	/// The training hyper-parameters.
	pub training: TrainingSpec,
	/// The verification parameters.
	pub verification: VerificationSpec,
}

impl TaskSpec {
	/// Steps per epoch: `ceil(samples / batch_size)` (0 when `batch_size` is 0).
	pub fn steps_per_epoch(&self) -> u64 {
		let b = self.training.batch_size as u64;
		if b == 0 {
			return 0;
		}
		(self.data.samples as u64).div_ceil(b)
	}

	/// Total steps: `epochs * steps_per_epoch` (saturating).
	pub fn total_steps(&self) -> u64 {
		(self.training.epochs as u64).saturating_mul(self.steps_per_epoch())
	}

	/// The step checkpoint `i` of a run of this task is taken after: `min(i·k, total)`
	/// (`k` the checkpoint interval, at least 1). Segment `i` runs from checkpoint `i`'s
	/// step to checkpoint `i + 1`'s.
	pub fn checkpoint_step(&self, i: u64) -> u64 {
		let k = u64::from(self.training.checkpoint_interval.max(1));
		i.saturating_mul(k).min(self.total_steps())
	}

	/// Validates the spec; see [`crate::validate`].
	pub fn validate(&self) -> Result<(), crate::SpecError> {
		crate::validate::validate(self)
	}
}
