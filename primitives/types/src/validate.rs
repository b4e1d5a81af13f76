//! Spec validation and shape inference.
//!
//! [`validate`] refuses, with one named [`SpecError`] each, every way a spec can be
//! wrong: shapes that do not chain, zero or oversized dimensions, unbounded work and
//! bad hyper-parameters. A spec that passes has a finite, bounded work estimate and a
//! well-defined training run.

use crate::spec::*;
use alloc::vec::Vec;
use codec::{Decode, DecodeWithMemTracking, Encode, MaxEncodedLen};
use scale_info::TypeInfo;

/// Every way a task spec can be wrong. `layer` fields are 0-based layer indices.
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
)]
pub enum SpecError {
	/// The model has no layer.
	NoLayers,
	/// The model has more than [`MAX_LAYERS`] layers.
	TooManyLayers,
	/// A dimension of the input shape is zero.
	InputZero,
	/// The input shape exceeds [`MAX_CHANNELS`] / [`MAX_SPATIAL`] / [`MAX_ACTIVATION`].
	InputTooLarge,
	/// A size of this layer is zero (features, channels, kernel or stride).
	ZeroSize {
		/// Layer index.
		layer: u32,
	},
	/// A size of this layer exceeds its documented bound.
	SizeOverBound {
		/// Layer index.
		layer: u32,
	},
	/// A `Linear` layer gets an image (put a `Flatten` before it) or token ids (put an
	/// `Embedding` first).
	LinearNeedsFlatInput {
		/// Layer index.
		layer: u32,
	},
	/// A `Linear` layer's `in_features` differs from its input's size.
	LinearInputMismatch {
		/// Layer index.
		layer: u32,
		/// Features the previous layer produces.
		expected: u32,
		/// `in_features` of the layer.
		got: u32,
	},
	/// A `Conv2d`, `MaxPool2d` or `Flatten` layer gets a flat input or a sequence.
	NeedsImageInput {
		/// Layer index.
		layer: u32,
	},
	/// A `Conv2d` layer's `in_channels` differs from its input's channels.
	ConvChannelMismatch {
		/// Layer index.
		layer: u32,
		/// Channels the previous layer produces.
		expected: u32,
		/// `in_channels` of the layer.
		got: u32,
	},
	/// A `Conv2d` layer's padding is not smaller than its kernel.
	PaddingNotBelowKernel {
		/// Layer index.
		layer: u32,
	},
	/// The (padded) input of a `Conv2d` / `MaxPool2d` layer is smaller than its kernel.
	KernelLargerThanInput {
		/// Layer index.
		layer: u32,
	},
	/// This layer's output per sample exceeds [`MAX_ACTIVATION`] elements.
	ActivationTooLarge {
		/// Layer index.
		layer: u32,
	},
	/// The model has more than [`MAX_PARAMETERS`] parameters.
	TooManyParameters,
	/// The model has no layer with parameters.
	NoTrainableLayer,
	/// The last layer's output is an image, not a vector of logits.
	OutputNotFlat,
	/// The last layer's output size differs from the number of classes.
	OutputClassMismatch {
		/// `data.classes`.
		expected: u32,
		/// Logits the model produces.
		got: u32,
	},
	/// The model's input shape differs from the data's sample shape.
	InputShapeMismatch,
	/// `data.classes` is below 2.
	TooFewClasses,
	/// `data.classes` exceeds [`MAX_CLASSES`].
	TooManyClasses,
	/// `data.samples` is zero.
	SamplesZero,
	/// `data.samples` exceeds [`MAX_SAMPLES`].
	TooManySamples,
	/// The data URI is empty.
	UriEmpty,
	/// The data URI is not UTF-8.
	UriNotUtf8,
	/// The data URI is not `file://`, `http://` or `https://`.
	UnsupportedUriScheme,
	/// MNIST IDX and token data have one channel.
	FormatNeedsOneChannel,
	/// MNIST IDX labels, and tokens, are bytes: at most 256 classes.
	FormatTooManyClasses,
	/// `epochs` is zero.
	EpochsZero,
	/// `epochs` exceeds [`MAX_EPOCHS`].
	TooManyEpochs,
	/// `batch_size` is zero.
	BatchZero,
	/// `batch_size` exceeds [`MAX_BATCH`].
	BatchTooLarge,
	/// The run has more than [`MAX_STEPS`] steps.
	TooManySteps,
	/// The checkpoint interval `k` is zero.
	CheckpointIntervalZero,
	/// The checkpoint interval `k` exceeds the run's total steps.
	CheckpointIntervalOverSteps,
	/// The learning rate is not finite and positive.
	LrInvalid,
	/// SGD momentum is not in `[0, 1)`.
	MomentumInvalid,
	/// Adam `beta1` is not in `[0, 1)`.
	Beta1Invalid,
	/// Adam `beta2` is not in `[0, 1)`.
	Beta2Invalid,
	/// Adam `eps` is not finite and positive.
	EpsInvalid,
	/// A step schedule's `every_steps` is zero.
	StepEveryZero,
	/// A step schedule's `gamma` is not in `(0, 1]`.
	GammaInvalid,
	/// A cosine schedule's `total_steps` is zero.
	CosineTotalZero,
	/// A cosine schedule's `min_lr` is not finite and in `[0, lr]`.
	MinLrInvalid,
	/// The audit fraction is zero.
	AuditFractionZero,
	/// The audit fraction exceeds 1_000_000 parts per million.
	AuditFractionOverOne,
	/// The work estimate overflows a `u64`.
	EstimateOverflow,
	/// An `Embedding` is not the model's first layer.
	EmbeddingNotFirst {
		/// Layer index.
		layer: u32,
	},
	/// The input of a model that starts with an `Embedding` is not `[1, 1, t]` (`t`
	/// token ids).
	EmbeddingNeedsTokenInput,
	/// A token input is longer than [`MAX_CONTEXT`] positions.
	ContextTooLong,
	/// A `DecoderBlock` or `LayerNorm` layer gets no sequence (no `Embedding` before it).
	NeedsSequenceInput {
		/// Layer index.
		layer: u32,
	},
	/// A `DecoderBlock`'s heads do not divide its input's features.
	HeadsNotDividingDim {
		/// Layer index.
		layer: u32,
		/// Features of the block's input.
		dim: u32,
		/// `heads` of the layer.
		heads: u32,
	},
	/// The `Embedding`'s vocabulary differs from the data's `classes` (its token ids).
	EmbeddingVocabMismatch {
		/// `data.classes`.
		expected: u32,
		/// `vocab` of the embedding.
		got: u32,
	},
	/// The token loss needs a model whose output is a sequence of logits.
	TokenLossNeedsSequence,
	/// The token loss and `tokens` data go together: one without the other.
	LossFormatMismatch,
	/// AdamW's `weight_decay` is not finite and non-negative.
	WeightDecayInvalid,
	/// AdamW's `max_grad_norm` is not finite and positive.
	MaxGradNormInvalid,
}

impl core::fmt::Display for SpecError {
	fn fmt(&self, f: &mut core::fmt::Formatter) -> core::fmt::Result {
		core::fmt::Debug::fmt(self, f)
	}
}

#[cfg(feature = "std")]
impl std::error::Error for SpecError {}

/// The activation of one sample between layers.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Activation {
	/// An image `[C, H, W]`.
	Image(Shape3),
	/// A vector of this many features.
	Flat(u32),
	/// A language model's input: this many token ids.
	Tokens(u32),
	/// A sequence of `t` positions of `d` features each.
	Seq {
		/// Positions.
		t: u32,
		/// Features of each position.
		d: u32,
	},
}

impl Activation {
	/// Elements per sample.
	pub fn numel(&self) -> u64 {
		match self {
			Activation::Image(s) => s.numel(),
			Activation::Flat(n) | Activation::Tokens(n) => *n as u64,
			Activation::Seq { t, d } => (*t as u64).saturating_mul(*d as u64),
		}
	}

	/// Rows a position-wise layer (`Linear`, `LayerNorm`) maps one by one: a sequence's
	/// positions, else one.
	pub fn rows(&self) -> u64 {
		match self {
			Activation::Seq { t, .. } => *t as u64,
			_ => 1,
		}
	}
}

/// Infers the activation before each layer and after the last one (`layers + 1`
/// entries), checking that the layers chain and are within bounds.
pub fn infer_shapes(model: &ModelSpec) -> Result<Vec<Activation>, SpecError> {
	let inp = model.input;
	if model.layers.is_empty() {
		return Err(SpecError::NoLayers);
	}
	if model.layers.len() > MAX_LAYERS as usize {
		return Err(SpecError::TooManyLayers);
	}
	if inp.channels == 0 || inp.height == 0 || inp.width == 0 {
		return Err(SpecError::InputZero);
	}
	let mut out = Vec::with_capacity(model.layers.len() + 1);
	// A model that starts with an embedding reads its input as token ids.
	let mut cur = match model.layers.first() {
		Some(Layer::Embedding { .. }) => {
			if inp.channels != 1 || inp.height != 1 {
				return Err(SpecError::EmbeddingNeedsTokenInput);
			}
			if inp.width > MAX_CONTEXT {
				return Err(SpecError::ContextTooLong);
			}
			Activation::Tokens(inp.width)
		}
		_ => {
			if inp.channels > MAX_CHANNELS
				|| inp.height > MAX_SPATIAL
				|| inp.width > MAX_SPATIAL
				|| inp.numel() > MAX_ACTIVATION
			{
				return Err(SpecError::InputTooLarge);
			}
			Activation::Image(inp)
		}
	};
	out.push(cur);
	let mut params: u64 = 0;
	let mut trainable = false;
	for (i, layer) in model.layers.iter().enumerate() {
		let li = i as u32;
		cur = match (*layer, cur) {
			(Layer::Linear { in_features, out_features }, act) => {
				if in_features == 0 || out_features == 0 {
					return Err(SpecError::ZeroSize { layer: li });
				}
				if in_features > MAX_FEATURES || out_features > MAX_FEATURES {
					return Err(SpecError::SizeOverBound { layer: li });
				}
				let n = match act {
					Activation::Flat(n) | Activation::Seq { d: n, .. } => n,
					_ => return Err(SpecError::LinearNeedsFlatInput { layer: li }),
				};
				if n != in_features {
					return Err(SpecError::LinearInputMismatch {
						layer: li,
						expected: n,
						got: in_features,
					});
				}
				trainable = true;
				params = params
					.saturating_add((in_features as u64 + 1).saturating_mul(out_features as u64));
				match act {
					Activation::Seq { t, .. } => Activation::Seq { t, d: out_features },
					_ => Activation::Flat(out_features),
				}
			}
			(Layer::Conv2d { in_channels, out_channels, kernel, stride, padding }, act) => {
				if in_channels == 0 || out_channels == 0 || kernel == 0 || stride == 0 {
					return Err(SpecError::ZeroSize { layer: li });
				}
				if in_channels > MAX_CHANNELS
					|| out_channels > MAX_CHANNELS
					|| kernel > MAX_KERNEL
					|| stride > MAX_KERNEL
				{
					return Err(SpecError::SizeOverBound { layer: li });
				}
				let Activation::Image(s) = act else {
					return Err(SpecError::NeedsImageInput { layer: li });
				};
				if s.channels != in_channels {
					return Err(SpecError::ConvChannelMismatch {
						layer: li,
						expected: s.channels,
						got: in_channels,
					});
				}
				if padding >= kernel {
					return Err(SpecError::PaddingNotBelowKernel { layer: li });
				}
				let ph = s.height + 2 * padding;
				let pw = s.width + 2 * padding;
				if ph < kernel || pw < kernel {
					return Err(SpecError::KernelLargerThanInput { layer: li });
				}
				trainable = true;
				let w = (in_channels as u64) * (kernel as u64) * (kernel as u64) + 1;
				params = params.saturating_add(w.saturating_mul(out_channels as u64));
				Activation::Image(Shape3 {
					channels: out_channels,
					height: (ph - kernel) / stride + 1,
					width: (pw - kernel) / stride + 1,
				})
			}
			(Layer::Relu, act) => act,
			(Layer::MaxPool2d { kernel, stride }, act) => {
				if kernel == 0 || stride == 0 {
					return Err(SpecError::ZeroSize { layer: li });
				}
				if kernel > MAX_KERNEL || stride > MAX_KERNEL {
					return Err(SpecError::SizeOverBound { layer: li });
				}
				let Activation::Image(s) = act else {
					return Err(SpecError::NeedsImageInput { layer: li });
				};
				if s.height < kernel || s.width < kernel {
					return Err(SpecError::KernelLargerThanInput { layer: li });
				}
				Activation::Image(Shape3 {
					channels: s.channels,
					height: (s.height - kernel) / stride + 1,
					width: (s.width - kernel) / stride + 1,
				})
			}
			(Layer::Flatten, act) => {
				let Activation::Image(s) = act else {
					return Err(SpecError::NeedsImageInput { layer: li });
				};
				// numel <= MAX_ACTIVATION < 2^32 was checked when `s` was produced.
				Activation::Flat(s.numel() as u32)
			}
			(Layer::Embedding { vocab, dim }, act) => {
				if li != 0 {
					return Err(SpecError::EmbeddingNotFirst { layer: li });
				}
				if vocab == 0 || dim == 0 {
					return Err(SpecError::ZeroSize { layer: li });
				}
				if vocab > MAX_CLASSES || dim > MAX_FEATURES {
					return Err(SpecError::SizeOverBound { layer: li });
				}
				let Activation::Tokens(t) = act else {
					return Err(SpecError::EmbeddingNeedsTokenInput);
				};
				trainable = true;
				params =
					params.saturating_add((vocab as u64 + t as u64).saturating_mul(dim as u64));
				Activation::Seq { t, d: dim }
			}
			(Layer::DecoderBlock { heads, hidden }, act) => {
				if heads == 0 || hidden == 0 {
					return Err(SpecError::ZeroSize { layer: li });
				}
				if heads > MAX_HEADS || hidden > MAX_FEATURES {
					return Err(SpecError::SizeOverBound { layer: li });
				}
				let Activation::Seq { t, d } = act else {
					return Err(SpecError::NeedsSequenceInput { layer: li });
				};
				if d % heads != 0 {
					return Err(SpecError::HeadsNotDividingDim { layer: li, dim: d, heads });
				}
				// What the block holds inside: the MLP's hidden layer and every head's
				// attention scores.
				let (t64, h64) = (t as u64, heads as u64);
				let inner = (t64 * hidden as u64).max(h64.saturating_mul(t64 * t64));
				if inner > MAX_ACTIVATION {
					return Err(SpecError::ActivationTooLarge { layer: li });
				}
				trainable = true;
				params = params.saturating_add(decoder_block_params(d, hidden));
				act
			}
			(Layer::LayerNorm, act) => {
				let Activation::Seq { d, .. } = act else {
					return Err(SpecError::NeedsSequenceInput { layer: li });
				};
				trainable = true;
				params = params.saturating_add(2 * d as u64);
				act
			}
		};
		if cur.numel() > MAX_ACTIVATION {
			return Err(SpecError::ActivationTooLarge { layer: li });
		}
		out.push(cur);
	}
	if !trainable {
		return Err(SpecError::NoTrainableLayer);
	}
	if params > MAX_PARAMETERS {
		return Err(SpecError::TooManyParameters);
	}
	Ok(out)
}

/// Parameters of a `DecoderBlock` on `d` features with an MLP of `hidden`: two
/// LayerNorms' scales and shifts, four `[d, d]` projections with their biases, and the
/// MLP's two layers with theirs.
pub fn decoder_block_params(d: u32, hidden: u32) -> u64 {
	let (d, h) = (d as u64, hidden as u64);
	let projections = d.saturating_mul(d).saturating_add(d).saturating_mul(4);
	let mlp = d.saturating_mul(h).saturating_mul(2).saturating_add(h).saturating_add(d);
	d.saturating_mul(4).saturating_add(projections).saturating_add(mlp)
}

fn finite_positive(x: F32Bits) -> bool {
	let v = x.to_f32();
	v.is_finite() && v > 0.0
}

fn unit_interval(x: F32Bits) -> bool {
	let v = x.to_f32();
	(0.0..1.0).contains(&v)
}

/// Adam's settings, AdamW's too.
fn check_adam(lr: F32Bits, beta1: F32Bits, beta2: F32Bits, eps: F32Bits) -> Result<(), SpecError> {
	if !finite_positive(lr) {
		return Err(SpecError::LrInvalid);
	}
	if !unit_interval(beta1) {
		return Err(SpecError::Beta1Invalid);
	}
	if !unit_interval(beta2) {
		return Err(SpecError::Beta2Invalid);
	}
	if !finite_positive(eps) {
		return Err(SpecError::EpsInvalid);
	}
	Ok(())
}

/// Validates a whole task spec; see [`SpecError`] for what is checked.
pub fn validate(spec: &TaskSpec) -> Result<(), SpecError> {
	let shapes = infer_shapes(&spec.model)?;
	let d = &spec.data;
	if spec.model.input != d.input {
		return Err(SpecError::InputShapeMismatch);
	}
	if d.classes < 2 {
		return Err(SpecError::TooFewClasses);
	}
	if d.classes > MAX_CLASSES {
		return Err(SpecError::TooManyClasses);
	}
	let logits = match (spec.model.loss, shapes.last()) {
		(Loss::SoftmaxCrossEntropy, Some(Activation::Flat(n))) => *n,
		(Loss::SoftmaxCrossEntropy, _) => return Err(SpecError::OutputNotFlat),
		(Loss::TokenCrossEntropy, Some(Activation::Seq { d, .. })) => *d,
		(Loss::TokenCrossEntropy, _) => return Err(SpecError::TokenLossNeedsSequence),
	};
	if logits != d.classes {
		return Err(SpecError::OutputClassMismatch { expected: d.classes, got: logits });
	}
	if let Some(Layer::Embedding { vocab, .. }) = spec.model.layers.first() {
		if *vocab != d.classes {
			return Err(SpecError::EmbeddingVocabMismatch { expected: d.classes, got: *vocab });
		}
	}
	let tokens = d.format == DataFormat::Tokens;
	if tokens != (spec.model.loss == Loss::TokenCrossEntropy) {
		return Err(SpecError::LossFormatMismatch);
	}
	if d.samples == 0 {
		return Err(SpecError::SamplesZero);
	}
	if d.samples > MAX_SAMPLES {
		return Err(SpecError::TooManySamples);
	}
	if d.uri.0.is_empty() {
		return Err(SpecError::UriEmpty);
	}
	let uri = d.uri.as_str().ok_or(SpecError::UriNotUtf8)?;
	if !(uri.starts_with("file://") || uri.starts_with("http://") || uri.starts_with("https://")) {
		return Err(SpecError::UnsupportedUriScheme);
	}
	if matches!(d.format, DataFormat::MnistIdx | DataFormat::MnistIdxGz | DataFormat::Tokens) {
		if d.input.channels != 1 {
			return Err(SpecError::FormatNeedsOneChannel);
		}
		// Labels, and tokens, are bytes.
		if d.classes > 256 {
			return Err(SpecError::FormatTooManyClasses);
		}
	}
	let t = &spec.training;
	if t.epochs == 0 {
		return Err(SpecError::EpochsZero);
	}
	if t.epochs > MAX_EPOCHS {
		return Err(SpecError::TooManyEpochs);
	}
	if t.batch_size == 0 {
		return Err(SpecError::BatchZero);
	}
	if t.batch_size > MAX_BATCH {
		return Err(SpecError::BatchTooLarge);
	}
	let steps = spec.total_steps();
	if steps > MAX_STEPS {
		return Err(SpecError::TooManySteps);
	}
	if t.checkpoint_interval == 0 {
		return Err(SpecError::CheckpointIntervalZero);
	}
	if t.checkpoint_interval as u64 > steps {
		return Err(SpecError::CheckpointIntervalOverSteps);
	}
	match t.optimizer {
		Optimizer::Sgd { lr, momentum } => {
			if !finite_positive(lr) {
				return Err(SpecError::LrInvalid);
			}
			if !unit_interval(momentum) {
				return Err(SpecError::MomentumInvalid);
			}
		}
		Optimizer::Adam { lr, beta1, beta2, eps } => check_adam(lr, beta1, beta2, eps)?,
		Optimizer::AdamW { lr, beta1, beta2, eps, weight_decay, max_grad_norm } => {
			check_adam(lr, beta1, beta2, eps)?;
			let wd = weight_decay.to_f32();
			if !(wd.is_finite() && wd >= 0.0) {
				return Err(SpecError::WeightDecayInvalid);
			}
			if !finite_positive(max_grad_norm) {
				return Err(SpecError::MaxGradNormInvalid);
			}
		}
	}
	match t.lr_schedule {
		LrSchedule::Constant => {}
		LrSchedule::Step { every_steps, gamma } => {
			if every_steps == 0 {
				return Err(SpecError::StepEveryZero);
			}
			let g = gamma.to_f32();
			if !(g > 0.0 && g <= 1.0) {
				return Err(SpecError::GammaInvalid);
			}
		}
		LrSchedule::Cosine { total_steps, min_lr } => {
			if total_steps == 0 {
				return Err(SpecError::CosineTotalZero);
			}
			let m = min_lr.to_f32();
			if !(m.is_finite() && m >= 0.0 && m <= t.optimizer.lr().to_f32()) {
				return Err(SpecError::MinLrInvalid);
			}
		}
	}
	let v = &spec.verification;
	if v.audit_fraction.0 == 0 {
		return Err(SpecError::AuditFractionZero);
	}
	if v.audit_fraction.0 > 1_000_000 {
		return Err(SpecError::AuditFractionOverOne);
	}
	crate::estimate::estimate_unchecked(spec, &shapes).map(|_| ())
}
