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
	/// A `Linear` layer gets an image; put a `Flatten` before it.
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
	/// A `Conv2d`, `MaxPool2d` or `Flatten` layer gets a flat input.
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
	/// The model has no `Linear` or `Conv2d` layer.
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
	/// MNIST IDX data has one channel.
	FormatNeedsOneChannel,
	/// MNIST IDX labels are bytes: at most 256 classes.
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
}

impl Activation {
	/// Elements per sample.
	pub fn numel(&self) -> u64 {
		match self {
			Activation::Image(s) => s.numel(),
			Activation::Flat(n) => *n as u64,
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
	if inp.channels > MAX_CHANNELS
		|| inp.height > MAX_SPATIAL
		|| inp.width > MAX_SPATIAL
		|| inp.numel() > MAX_ACTIVATION
	{
		return Err(SpecError::InputTooLarge);
	}
	let mut out = Vec::with_capacity(model.layers.len() + 1);
	let mut cur = Activation::Image(inp);
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
				let Activation::Flat(n) = act else {
					return Err(SpecError::LinearNeedsFlatInput { layer: li });
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
				Activation::Flat(out_features)
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

fn finite_positive(x: F32Bits) -> bool {
	let v = x.to_f32();
	v.is_finite() && v > 0.0
}

fn unit_interval(x: F32Bits) -> bool {
	let v = x.to_f32();
	(0.0..1.0).contains(&v)
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
	match shapes.last() {
		Some(Activation::Flat(n)) if *n == d.classes => {}
		Some(Activation::Flat(n)) => {
			return Err(SpecError::OutputClassMismatch { expected: d.classes, got: *n })
		}
		_ => return Err(SpecError::OutputNotFlat),
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
	if matches!(d.format, DataFormat::MnistIdx | DataFormat::MnistIdxGz) {
		if d.input.channels != 1 {
			return Err(SpecError::FormatNeedsOneChannel);
		}
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
		Optimizer::Adam { lr, beta1, beta2, eps } => {
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
