use codec::{Decode, Encode, MaxEncodedLen};
use gensyn_primitives::{validate::infer_shapes, *};

fn load(name: &str) -> TaskSpec {
	let path = format!("{}/../../examples/{name}", manifest_dir());
	let text = std::fs::read_to_string(&path).expect("example file");
	serde_json::from_str(&text).expect("example parses")
}

fn mlp() -> TaskSpec {
	load("mnist-mlp.json")
}

#[test]
fn examples_parse_and_validate() {
	for name in ["mnist-mlp.json", "mnist-cnn.json"] {
		let spec = load(name);
		spec.validate().unwrap_or_else(|e| panic!("{name}: {e:?}"));
		// JSON round trip.
		let json = serde_json::to_string(&spec).unwrap();
		let back: TaskSpec = serde_json::from_str(&json).unwrap();
		assert_eq!(back, spec);
		// SCALE round trip, and within its max encoded length.
		let bytes = spec.encode();
		assert!(bytes.len() <= TaskSpec::max_encoded_len());
		assert_eq!(TaskSpec::decode(&mut &bytes[..]).unwrap(), spec);
	}
	let s = mlp();
	assert_eq!(s.training.optimizer.lr().to_f32(), 0.05f32);
	assert_eq!(s.total_steps(), 2 * 126);
}

#[test]
fn the_fixtures_are_the_examples_and_valid() {
	assert_eq!(fixtures::mnist_mlp(), mlp());
	for spec in [fixtures::tiny_mlp(), fixtures::tiny_cnn()] {
		spec.validate().unwrap();
	}
}

#[test]
fn floats_are_plain_json_numbers() {
	let x = F32Bits::from_f32(0.1);
	assert_eq!(serde_json::to_string(&x).unwrap(), "0.1");
	let y: F32Bits = serde_json::from_str("0.1").unwrap();
	assert_eq!(x, y);
	let z: F32Bits = serde_json::from_str("3").unwrap();
	assert_eq!(z.to_f32(), 3.0);
}

#[test]
fn shapes_are_inferred() {
	let cnn = load("mnist-cnn.json");
	let shapes = infer_shapes(&cnn.model).unwrap();
	assert_eq!(shapes.len(), 9);
	assert_eq!(shapes[8], validate::Activation::Flat(10));
	assert_eq!(
		shapes[6],
		validate::Activation::Image(Shape3 { channels: 16, height: 6, width: 6 })
	);
}

fn with_layers(layers: Vec<Layer>) -> TaskSpec {
	let mut s = mlp();
	s.model.layers = BoundedVec::try_from_vec(layers).unwrap();
	s
}

#[test]
fn each_error_is_named() {
	use Layer::*;
	use SpecError as E;
	let lin = |i, o| Linear { in_features: i, out_features: o };
	let conv = |i, o, k, s, p| Conv2d {
		in_channels: i,
		out_channels: o,
		kernel: k,
		stride: s,
		padding: p,
	};
	let cases: Vec<(TaskSpec, SpecError)> = vec![
		(with_layers(vec![]), E::NoLayers),
		(with_layers(vec![Flatten, lin(784, 0)]), E::ZeroSize { layer: 1 }),
		(with_layers(vec![Flatten, lin(784, 100_000)]), E::SizeOverBound { layer: 1 }),
		(with_layers(vec![lin(784, 10)]), E::LinearNeedsFlatInput { layer: 0 }),
		(
			with_layers(vec![Flatten, lin(780, 10)]),
			E::LinearInputMismatch { layer: 1, expected: 784, got: 780 },
		),
		(with_layers(vec![Flatten, Flatten, lin(784, 10)]), E::NeedsImageInput { layer: 1 }),
		(
			with_layers(vec![conv(3, 4, 3, 1, 0), Flatten, lin(4 * 26 * 26, 10)]),
			E::ConvChannelMismatch { layer: 0, expected: 1, got: 3 },
		),
		(
			with_layers(vec![conv(1, 4, 3, 1, 3), Flatten, lin(10, 10)]),
			E::PaddingNotBelowKernel { layer: 0 },
		),
		(with_layers(vec![conv(1, 4, 0, 1, 0)]), E::ZeroSize { layer: 0 }),
		(with_layers(vec![conv(1, 4, 3, 0, 0)]), E::ZeroSize { layer: 0 }),
		(with_layers(vec![conv(1, 4, 16, 1, 0)]), E::SizeOverBound { layer: 0 }),
		(
			with_layers(vec![
				MaxPool2d { kernel: 15, stride: 1 },
				MaxPool2d { kernel: 15, stride: 1 },
			]),
			E::KernelLargerThanInput { layer: 1 },
		),
		(
			{
				let mut s = with_layers(vec![conv(1, 1024, 1, 1, 0), Flatten, lin(10, 10)]);
				s.model.input.height = 100;
				s.model.input.width = 100;
				s
			},
			E::ActivationTooLarge { layer: 0 },
		),
		(with_layers(vec![Flatten, Relu]), E::NoTrainableLayer),
		(with_layers(vec![Flatten, lin(784, 60_000), lin(60_000, 10)]), E::TooManyParameters),
		(with_layers(vec![conv(1, 10, 14, 14, 0)]), E::OutputNotFlat),
		(with_layers(vec![Flatten, lin(784, 9)]), E::OutputClassMismatch { expected: 10, got: 9 }),
	];
	for (spec, want) in cases {
		assert_eq!(spec.validate(), Err(want), "{:?}", spec.model.layers);
	}

	let check = |f: &dyn Fn(&mut TaskSpec), want: SpecError| {
		let mut s = mlp();
		f(&mut s);
		assert_eq!(s.validate(), Err(want));
	};
	check(&|s| s.model.input.height = 0, E::InputZero);
	check(&|s| s.model.input.width = 2000, E::InputTooLarge);
	check(&|s| s.data.input.height = 27, E::InputShapeMismatch);
	check(&|s| s.data.classes = 1, E::TooFewClasses);
	check(&|s| s.data.classes = 1001, E::TooManyClasses);
	check(&|s| s.data.samples = 0, E::SamplesZero);
	check(&|s| s.data.samples = 20_000_000, E::TooManySamples);
	check(&|s| s.data.uri = Uri::parse("").unwrap(), E::UriEmpty);
	check(
		&|s| s.data.uri = Uri(BoundedVec::try_from_vec(vec![0xff, 0xfe]).unwrap()),
		E::UriNotUtf8,
	);
	check(&|s| s.data.uri = Uri::parse("ftp://x").unwrap(), E::UnsupportedUriScheme);
	check(
		&|s| {
			s.data.input.channels = 3;
			s.model.input.channels = 3;
			s.model.layers = BoundedVec::try_from_vec(vec![
				Flatten,
				Linear { in_features: 3 * 784, out_features: 10 },
			])
			.unwrap();
		},
		E::FormatNeedsOneChannel,
	);
	check(&|s| s.training.epochs = 0, E::EpochsZero);
	check(&|s| s.training.epochs = 1001, E::TooManyEpochs);
	check(&|s| s.training.batch_size = 0, E::BatchZero);
	check(&|s| s.training.batch_size = 5000, E::BatchTooLarge);
	check(
		&|s| {
			s.training.batch_size = 1;
			s.data.samples = 10_000_000;
			s.training.epochs = 2;
		},
		E::TooManySteps,
	);
	check(&|s| s.training.checkpoint_interval = 0, E::CheckpointIntervalZero);
	check(&|s| s.training.checkpoint_interval = 315, E::CheckpointIntervalOverSteps);
	let sgd = |lr: f32, m: f32| Optimizer::Sgd { lr: lr.into(), momentum: m.into() };
	check(&|s| s.training.optimizer = sgd(0.0, 0.9), E::LrInvalid);
	check(&|s| s.training.optimizer = sgd(f32::NAN, 0.9), E::LrInvalid);
	check(&|s| s.training.optimizer = sgd(f32::INFINITY, 0.9), E::LrInvalid);
	check(&|s| s.training.optimizer = sgd(0.1, 1.0), E::MomentumInvalid);
	let adam = |b1: f32, b2: f32, eps: f32| Optimizer::Adam {
		lr: 0.001f32.into(),
		beta1: b1.into(),
		beta2: b2.into(),
		eps: eps.into(),
	};
	check(&|s| s.training.optimizer = adam(-0.1, 0.999, 1e-8), E::Beta1Invalid);
	check(&|s| s.training.optimizer = adam(0.9, 1.5, 1e-8), E::Beta2Invalid);
	check(&|s| s.training.optimizer = adam(0.9, 0.999, 0.0), E::EpsInvalid);
	check(
		&|s| s.training.lr_schedule = LrSchedule::Step { every_steps: 0, gamma: 0.5f32.into() },
		E::StepEveryZero,
	);
	check(
		&|s| s.training.lr_schedule = LrSchedule::Step { every_steps: 10, gamma: 1.5f32.into() },
		E::GammaInvalid,
	);
	check(
		&|s| s.training.lr_schedule = LrSchedule::Cosine { total_steps: 0, min_lr: 0.0f32.into() },
		E::CosineTotalZero,
	);
	check(
		&|s| s.training.lr_schedule = LrSchedule::Cosine { total_steps: 10, min_lr: 1.0f32.into() },
		E::MinLrInvalid,
	);
	check(&|s| s.verification.audit_fraction = Permill(0), E::AuditFractionZero);
	check(&|s| s.verification.audit_fraction = Permill(1_000_001), E::AuditFractionOverOne);
}

#[test]
fn oversized_lists_are_refused_when_decoding() {
	let mut s = mlp();
	let too_many: Vec<Layer> = vec![Layer::Relu; 33];
	// Encode as a plain Vec to bypass the bound, then decode as a spec.
	let mut bytes = s.model.input.encode();
	bytes.extend(too_many.encode());
	bytes.extend(s.model.loss.encode());
	assert!(ModelSpec::decode(&mut &bytes[..]).is_err());
	let json = serde_json::to_string(&s)
		.unwrap()
		.replace(r#"{"type":"relu"}"#, &vec![r#"{"type":"relu"}"#; 40].join(","));
	assert!(serde_json::from_str::<TaskSpec>(&json).is_err());
	s.data.uri = Uri::parse(&"x".repeat(256)).unwrap();
	let long = serde_json::to_string(&s).unwrap().replace(&"x".repeat(256), &"x".repeat(300));
	assert!(serde_json::from_str::<TaskSpec>(&long).is_err());
	assert!(Uri::parse(&"x".repeat(257)).is_none());
}

#[test]
fn estimate_counts_ops_and_scales_with_steps() {
	let s = mlp();
	let e = estimate(&s).unwrap();
	let b = 64u64;
	// Forward: two matmuls and their bias adds, plus flatten and relu.
	let fwd = b * 784 * 128 + b * 128 + b * 128 * 10 + b * 10 + b * 784 + b * 128;
	assert_eq!(e.forward, fwd);
	assert_eq!(e.parameters, 785 * 128 + 129 * 10);
	assert_eq!(e.steps, 252);
	assert_eq!(e.total, e.per_step * 252);
	// Twice the epochs, twice the work; Adam costs more than SGD.
	let mut s2 = s.clone();
	s2.training.epochs = 4;
	assert_eq!(estimate(&s2).unwrap().total, 2 * e.total);
	let mut s3 = s.clone();
	s3.training.optimizer = Optimizer::Adam {
		lr: 0.001f32.into(),
		beta1: 0.9f32.into(),
		beta2: 0.999f32.into(),
		eps: 1e-8f32.into(),
	};
	assert!(estimate(&s3).unwrap().per_step > e.per_step);
	// An invalid spec has no estimate.
	let mut bad = s;
	bad.training.batch_size = 0;
	assert_eq!(estimate(&bad), Err(SpecError::BatchZero));
}

#[test]
fn segment_work_is_one_checkpoint_interval_of_steps_and_its_states() {
	let s = mlp();
	let (e, w) = (estimate(&s).unwrap(), segment_work(&s).unwrap());
	// k = 50 steps, each state the parameters and SGD's momentum, kept after every step.
	assert_eq!(w.steps, 50);
	assert_eq!(w.gas, 50 * e.per_step);
	assert_eq!(w.state_bytes, 51 * e.parameters * 2 * 4);
	// Adam keeps two moments; the interval caps at the run's length.
	let mut adam = s.clone();
	adam.training.optimizer = Optimizer::Adam {
		lr: 0.001f32.into(),
		beta1: 0.9f32.into(),
		beta2: 0.999f32.into(),
		eps: 1e-8f32.into(),
	};
	adam.training.checkpoint_interval = 252;
	let w = segment_work(&adam).unwrap();
	assert_eq!((w.steps, w.state_bytes), (252, 253 * e.parameters * 3 * 4));
	let mut bad = s;
	bad.training.batch_size = 0;
	assert_eq!(segment_work(&bad), Err(SpecError::BatchZero));
}

#[test]
fn data_order_is_a_seeded_permutation() {
	let r = [7u8; 32];
	let p = order::epoch_permutation(1, &r, 0, 1000);
	let mut q = p.clone();
	q.sort();
	assert_eq!(q, (0..1000).collect::<Vec<_>>());
	assert_ne!(p, (0..1000).collect::<Vec<_>>());
	assert_eq!(p, order::epoch_permutation(1, &r, 0, 1000));
	assert_ne!(p, order::epoch_permutation(1, &r, 1, 1000));
	assert_ne!(p, order::epoch_permutation(2, &r, 0, 1000));
	assert_ne!(p, order::epoch_permutation(1, &[8u8; 32], 0, 1000));
	let s = mlp();
	// 8,004 samples in batches of 64: 126 steps per epoch, the last one of 4 samples.
	let last = order::step_batch(&s, &r, 125).unwrap();
	assert_eq!(last.len(), 8_004 - 125 * 64);
	assert_eq!(order::step_batch(&s, &r, 126).unwrap().len(), 64);
	assert!(order::step_batch(&s, &r, 252).is_none());
}

/// The package directory of this checkout: cargo's variable at run time (a build reused
/// from another checkout through a shared target directory keeps the old compile-time
/// path), the compile-time one otherwise.
fn manifest_dir() -> String {
	std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| env!("CARGO_MANIFEST_DIR").to_string())
}
