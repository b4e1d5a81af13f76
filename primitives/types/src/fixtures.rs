//! Task specs for tests and benchmarks, in one place (the `test-utils` feature).
//!
//! Built in Rust rather than parsed from `examples/`, so that `no_std` benchmarks and
//! crates without the example files can use them. [`mnist_mlp`] is
//! `examples/mnist-mlp.json` (a test of this crate checks it); [`mlp`] is the same
//! shape at any size; [`tiny_mlp`] and [`tiny_cnn`] are small enough to replay, prove
//! and dispute in a unit test; [`tiny_lm`] is a language model in the same spirit, which
//! the chain does not take yet. Adjust one with [`with`].

use crate::*;
use alloc::vec::Vec;

/// `spec` changed by `f`.
pub fn with(mut spec: TaskSpec, f: impl FnOnce(&mut TaskSpec)) -> TaskSpec {
	f(&mut spec);
	spec
}

fn layers(v: Vec<Layer>) -> BoundedVec<Layer, MAX_LAYERS> {
	BoundedVec::try_from_vec(v).expect("a fixture has fewer than MAX_LAYERS layers")
}

/// Flatten, Linear(input, `hidden`), ReLU, Linear(`hidden`, `classes`) on `input`
/// images: softmax cross-entropy, SGD (lr 0.1, momentum 0.9), one epoch of 8-sample
/// batches over 40 samples from `file://fixture.idx` (uncompressed IDX, zero hashes), a
/// checkpoint every step, Exact mode auditing every segment.
pub fn mlp(input: Shape3, hidden: u32, classes: u32) -> TaskSpec {
	TaskSpec {
		model: ModelSpec {
			input,
			layers: layers(alloc::vec![
				Layer::Flatten,
				Layer::Linear { in_features: input.numel() as u32, out_features: hidden },
				Layer::Relu,
				Layer::Linear { in_features: hidden, out_features: classes },
			]),
			loss: Loss::SoftmaxCrossEntropy,
		},
		data: DataRef {
			uri: Uri::parse("file://fixture.idx").unwrap_or_default(),
			file_hash: Hash32([0; 32]),
			chunk_root: Hash32([0; 32]),
			format: DataFormat::MnistIdx,
			samples: 40,
			input,
			classes,
		},
		training: TrainingSpec {
			epochs: 1,
			batch_size: 8,
			seed: 1,
			checkpoint_interval: 1,
			optimizer: Optimizer::Sgd {
				lr: F32Bits::from_f32(0.1),
				momentum: F32Bits::from_f32(0.9),
			},
			lr_schedule: LrSchedule::Constant,
		},
		verification: VerificationSpec {
			mode: VerificationMode::Exact,
			audit_fraction: Permill(1_000_000),
		},
	}
}

/// `examples/mnist-mlp.json`: 784-128-10 on the 8,004 MNIST digits of
/// `scripts/fetch-mnist.sh`, 2 epochs of 64, a checkpoint every 50 steps, Threshold mode
/// auditing 10% of the segments.
pub fn mnist_mlp() -> TaskSpec {
	let input = Shape3 { channels: 1, height: 28, width: 28 };
	with(mlp(input, 128, 10), |s| {
		s.data.uri = Uri::parse("file://.data/mnist/train.idx").unwrap_or_default();
		s.data.file_hash =
			Hash32(hex32("4a94b9ab5902bf6e81f5363678b56c50aa37127eee065e473af910839b4e3f78"));
		s.data.chunk_root =
			Hash32(hex32("3217561a52ba29b6baff13574f28381ca32ca992d9dda2f941247afe3f45fc02"));
		s.data.samples = 8_004;
		s.training.epochs = 2;
		s.training.batch_size = 64;
		s.training.seed = 42;
		s.training.checkpoint_interval = 50;
		s.training.optimizer =
			Optimizer::Sgd { lr: F32Bits::from_f32(0.05), momentum: F32Bits::from_f32(0.9) };
		s.verification.mode = VerificationMode::Threshold;
		s.verification.audit_fraction = Permill(100_000);
	})
}

/// A tiny MLP on 1x6x6 inputs (36-8-3), 48 samples, batches of 8, 10 epochs, a
/// checkpoint every 2 steps, SGD (lr 0.1, momentum 0.9); otherwise [`mnist_mlp`].
pub fn tiny_mlp() -> TaskSpec {
	with(mnist_mlp(), |s| {
		let input = Shape3 { channels: 1, height: 6, width: 6 };
		s.model = mlp(input, 8, 3).model;
		s.data.input = input;
		s.data.classes = 3;
		s.data.samples = 48;
		s.training.batch_size = 8;
		s.training.checkpoint_interval = 2;
		s.training.epochs = 10;
		s.training.optimizer =
			Optimizer::Sgd { lr: F32Bits::from_f32(0.1), momentum: F32Bits::from_f32(0.9) };
	})
}

/// A tiny CNN on 1x8x8 inputs (padding, stride 2, pooling), 3 classes, Adam with a
/// cosine schedule; otherwise [`tiny_mlp`].
pub fn tiny_cnn() -> TaskSpec {
	with(tiny_mlp(), |s| {
		let input = Shape3 { channels: 1, height: 8, width: 8 };
		s.model.input = input;
		s.data.input = input;
		s.training.optimizer = Optimizer::Adam {
			lr: F32Bits::from_f32(0.01),
			beta1: F32Bits::from_f32(0.9),
			beta2: F32Bits::from_f32(0.999),
			eps: F32Bits::from_f32(1e-8),
		};
		s.training.lr_schedule =
			LrSchedule::Cosine { total_steps: 60, min_lr: F32Bits::from_f32(0.001) };
		s.model.layers = layers(alloc::vec![
			Layer::Conv2d { in_channels: 1, out_channels: 3, kernel: 3, stride: 1, padding: 1 },
			Layer::Relu,
			Layer::MaxPool2d { kernel: 2, stride: 2 },
			Layer::Conv2d { in_channels: 3, out_channels: 4, kernel: 3, stride: 2, padding: 1 },
			Layer::Relu,
			Layer::Flatten,
			Layer::Linear { in_features: 16, out_features: 3 },
		]);
	})
}

/// A tiny decoder-only language model: 5 tokens, a context of 8, 8 features, one
/// block of 2 heads with an MLP of 16, a final LayerNorm and a head back to the tokens;
/// 40 sequences of `tokens` data (zero hashes), batches of 4, 2 epochs, a checkpoint
/// every 5 steps, clipped AdamW; otherwise [`tiny_mlp`].
pub fn tiny_lm() -> TaskSpec {
	with(tiny_mlp(), |s| {
		let input = Shape3 { channels: 1, height: 1, width: 8 };
		s.model = ModelSpec {
			input,
			layers: layers(alloc::vec![
				Layer::Embedding { vocab: 5, dim: 8 },
				Layer::DecoderBlock { heads: 2, hidden: 16 },
				Layer::LayerNorm,
				Layer::Linear { in_features: 8, out_features: 5 },
			]),
			loss: Loss::TokenCrossEntropy,
		};
		s.data.format = DataFormat::Tokens;
		s.data.input = input;
		s.data.classes = 5;
		s.data.samples = 40;
		s.training.batch_size = 4;
		s.training.epochs = 2;
		s.training.checkpoint_interval = 5;
		s.training.optimizer = Optimizer::AdamW {
			lr: F32Bits::from_f32(0.01),
			beta1: F32Bits::from_f32(0.9),
			beta2: F32Bits::from_f32(0.99),
			eps: F32Bits::from_f32(1e-8),
			weight_decay: F32Bits::from_f32(0.01),
			max_grad_norm: F32Bits::from_f32(1.0),
		};
	})
}

/// 32 bytes from 64 hex digits (zeros where a digit is not hex: fixtures are literals).
fn hex32(s: &str) -> [u8; 32] {
	let mut out = [0u8; 32];
	let digit = |c: u8| (c as char).to_digit(16).unwrap_or(0) as u8;
	for (o, pair) in out.iter_mut().zip(s.as_bytes().chunks(2)) {
		*o = (digit(pair[0]) << 4) | pair.get(1).map_or(0, |&c| digit(c));
	}
	out
}
