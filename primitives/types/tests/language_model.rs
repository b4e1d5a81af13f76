//! The spec language's decoder-only language model: `examples/charlm-transformer.json`
//! parses, validates and is priced; every way such a spec can be wrong has its named
//! error; and the image specs that came before keep their encoding and their price.

use codec::{Decode, Encode, MaxEncodedLen};
use gensyn_primitives::{
	fixtures, layout, publish,
	validate::{infer_shapes, Activation},
	*,
};

fn load(name: &str) -> TaskSpec {
	let dir = std::env::var("CARGO_MANIFEST_DIR")
		.unwrap_or_else(|_| env!("CARGO_MANIFEST_DIR").to_string());
	let text = std::fs::read_to_string(format!("{dir}/../../examples/{name}")).expect("example");
	serde_json::from_str(&text).expect("example parses")
}

fn hex(bytes: &[u8]) -> String {
	bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn layers(v: Vec<Layer>) -> BoundedVec<Layer, MAX_LAYERS> {
	BoundedVec::try_from_vec(v).unwrap()
}

#[test]
fn the_language_model_example_parses_validates_and_is_priced() {
	let spec = load("charlm-transformer.json");
	spec.validate().unwrap();
	let json = serde_json::to_string(&spec).unwrap();
	assert_eq!(serde_json::from_str::<TaskSpec>(&json).unwrap(), spec);
	let bytes = spec.encode();
	assert!(bytes.len() <= TaskSpec::max_encoded_len());
	assert_eq!(TaskSpec::decode(&mut &bytes[..]).unwrap(), spec);

	let shapes = infer_shapes(&spec.model).unwrap();
	assert_eq!(shapes[0], Activation::Tokens(64));
	assert!(shapes[1..6].iter().all(|a| *a == Activation::Seq { t: 64, d: 256 }));
	assert_eq!(shapes[7], Activation::Seq { t: 64, d: 63 });

	// Embeddings, four blocks, the final LayerNorm and the head.
	let block = 4 * 256 + 4 * (256 * 256 + 256) + 2 * 256 * 1024 + 1024 + 256;
	let params = (63 + 64) * 256 + 4 * block + 2 * 256 + (256 + 1) * 63;
	let e = estimate(&spec).unwrap();
	assert_eq!(e.parameters, params);
	assert!((1_000_000..5_000_000).contains(&params), "{params}");
	assert_eq!(e.steps, 1790);
	assert_eq!(e.total, e.per_step * 1790);
	// Backward costs about twice the forward pass, as a block's products do.
	assert!(e.backward > 19 * e.forward / 10 && e.backward < 21 * e.forward / 10, "{e:?}");

	// The state is each parameter tensor and AdamW's two moments for it.
	let shapes = layout::param_shapes(&spec);
	assert_eq!(shapes.len(), 2 + 4 * 16 + 2 + 2);
	let lengths = publish::tensor_lengths(&spec);
	assert_eq!(lengths.len(), 3 * shapes.len());
	assert_eq!(lengths.iter().sum::<u64>(), 3 * params);
	// A batch of 32: the scores of 8 heads alone are 8 MiB a block.
	assert!(memory_mib(&spec).unwrap() > 4 * 8, "{}", memory_mib(&spec).unwrap());
}

#[test]
fn each_language_model_error_is_named() {
	use Layer::*;
	use SpecError as E;
	let lm = fixtures::tiny_lm();
	lm.validate().unwrap();
	let check = |f: &dyn Fn(&mut TaskSpec), want: SpecError| {
		let mut s = lm.clone();
		f(&mut s);
		assert_eq!(s.validate(), Err(want), "{:?}", s.model);
	};
	let emb = Embedding { vocab: 5, dim: 8 };
	let block = DecoderBlock { heads: 2, hidden: 16 };
	let head = Linear { in_features: 8, out_features: 5 };
	check(&|s| s.model.layers = layers(vec![emb, emb, head]), E::EmbeddingNotFirst { layer: 1 });
	check(
		&|s| {
			s.model.input.height = 2;
			s.data.input.height = 2;
		},
		E::EmbeddingNeedsTokenInput,
	);
	check(
		&|s| {
			s.model.input.width = 1025;
			s.data.input.width = 1025;
		},
		E::ContextTooLong,
	);
	check(&|s| s.model.layers = layers(vec![emb, Flatten, head]), E::NeedsImageInput { layer: 1 });
	check(
		&|s| s.model.layers = layers(vec![emb, DecoderBlock { heads: 3, hidden: 16 }, head]),
		E::HeadsNotDividingDim { layer: 1, dim: 8, heads: 3 },
	);
	check(
		&|s| s.model.layers = layers(vec![emb, DecoderBlock { heads: 0, hidden: 16 }, head]),
		E::ZeroSize { layer: 1 },
	);
	check(
		&|s| s.model.layers = layers(vec![emb, DecoderBlock { heads: 65, hidden: 16 }, head]),
		E::SizeOverBound { layer: 1 },
	);
	check(
		&|s| s.model.layers = layers(vec![Embedding { vocab: 5, dim: 0 }, head]),
		E::ZeroSize { layer: 0 },
	);
	check(
		&|s| s.model.layers = layers(vec![emb, Linear { in_features: 9, out_features: 5 }]),
		E::LinearInputMismatch { layer: 1, expected: 8, got: 9 },
	);
	check(
		&|s| s.model.layers = layers(vec![emb, block]),
		E::OutputClassMismatch { expected: 5, got: 8 },
	);
	check(
		&|s| {
			s.model.layers = layers(vec![Embedding { vocab: 6, dim: 8 }, block, head]);
		},
		E::EmbeddingVocabMismatch { expected: 5, got: 6 },
	);
	// Scores of every head, `heads * t * t`, bound a block like any activation.
	check(
		&|s| {
			s.model.input.width = 1024;
			s.data.input.width = 1024;
			let wide = DecoderBlock { heads: 8, hidden: 16 };
			s.model.layers = layers(vec![emb, wide, head]);
		},
		E::ActivationTooLarge { layer: 1 },
	);
	// The image layers and loss do not take a sequence, nor the token layers an image.
	let mut image = fixtures::tiny_mlp();
	image.model.layers =
		layers(vec![Flatten, LayerNorm, Linear { in_features: 36, out_features: 3 }]);
	assert_eq!(image.validate(), Err(E::NeedsSequenceInput { layer: 1 }));
	check(&|s| s.model.loss = Loss::SoftmaxCrossEntropy, E::OutputNotFlat);
	let mut mlp = fixtures::tiny_mlp();
	mlp.model.loss = Loss::TokenCrossEntropy;
	assert_eq!(mlp.validate(), Err(E::TokenLossNeedsSequence));
	check(&|s| s.data.format = DataFormat::MnistIdx, E::LossFormatMismatch);
	let mut tokens_for_images = fixtures::tiny_mlp();
	tokens_for_images.data.format = DataFormat::Tokens;
	assert_eq!(tokens_for_images.validate(), Err(E::LossFormatMismatch));
	// Token ids are bytes.
	check(
		&|s| {
			s.data.classes = 300;
			s.model.layers = layers(vec![
				Embedding { vocab: 300, dim: 8 },
				Linear { in_features: 8, out_features: 300 },
			]);
		},
		E::FormatTooManyClasses,
	);
	let adamw = |wd: f32, clip: f32| Optimizer::AdamW {
		lr: 0.01f32.into(),
		beta1: 0.9f32.into(),
		beta2: 0.99f32.into(),
		eps: 1e-8f32.into(),
		weight_decay: wd.into(),
		max_grad_norm: clip.into(),
	};
	check(&|s| s.training.optimizer = adamw(-0.1, 1.0), E::WeightDecayInvalid);
	check(&|s| s.training.optimizer = adamw(f32::NAN, 1.0), E::WeightDecayInvalid);
	check(&|s| s.training.optimizer = adamw(0.01, 0.0), E::MaxGradNormInvalid);
	check(&|s| s.training.optimizer = adamw(0.01, f32::INFINITY), E::MaxGradNormInvalid);
	// AdamW takes Adam's checks too, and serves image models as well.
	let mut bad_beta = adamw(0.0, 1.0);
	if let Optimizer::AdamW { beta2, .. } = &mut bad_beta {
		*beta2 = 1.0f32.into();
	}
	check(&|s| s.training.optimizer = bad_beta, E::Beta2Invalid);
	let mut mlp = fixtures::tiny_mlp();
	mlp.training.optimizer = adamw(0.0, 1.0);
	mlp.validate().unwrap();
}

#[test]
fn a_tokens_file_is_exactly_its_sequences() {
	let lm = fixtures::tiny_lm();
	// 40 sequences of 8 ids and the next one.
	assert_eq!(lm.data.max_file_len(), 40 * 9);
}

#[test]
fn a_block_is_priced_alike_wherever_it_sits_and_attention_by_the_square_of_the_context() {
	let one = fixtures::tiny_lm();
	let mut two = one.clone();
	let block = Layer::DecoderBlock { heads: 2, hidden: 16 };
	two.model.layers = layers(vec![
		Layer::Embedding { vocab: 5, dim: 8 },
		block,
		block,
		Layer::LayerNorm,
		Layer::Linear { in_features: 8, out_features: 5 },
	]);
	let (e1, e2) = (estimate(&one).unwrap(), estimate(&two).unwrap());
	let mut none = one.clone();
	none.model.layers = layers(vec![
		Layer::Embedding { vocab: 5, dim: 8 },
		Layer::LayerNorm,
		Layer::Linear { in_features: 8, out_features: 5 },
	]);
	let e0 = estimate(&none).unwrap();
	assert_eq!(e2.forward - e1.forward, e1.forward - e0.forward);
	assert_eq!(e2.backward - e1.backward, e1.backward - e0.backward);
	assert_eq!(e2.parameters - e1.parameters, e1.parameters - e0.parameters);
	assert_eq!(e1.parameters - e0.parameters, validate::decoder_block_params(8, 16));
	// Each position is a row of the loss.
	let mut wide = one.clone();
	wide.model.input.width = 16;
	wide.data.input.width = 16;
	let ew = estimate(&wide).unwrap();
	assert_eq!(ew.loss, 2 * e1.loss);
	// Past the parts that grow with the positions, attention grows with their square:
	// the wider block's forward pass costs more than twice the narrower one's.
	let mut wide0 = none.clone();
	wide0.model.input.width = 16;
	wide0.data.input.width = 16;
	let block_w = ew.forward - estimate(&wide0).unwrap().forward;
	assert!(block_w > 2 * (e1.forward - e0.forward), "{block_w}");
	// Every head's scores are held for the backward pass.
	let mut heads = one.clone();
	heads.model.input.width = 512;
	heads.data.input.width = 512;
	let mut more = heads.clone();
	more.model.layers = layers(vec![
		Layer::Embedding { vocab: 5, dim: 8 },
		Layer::DecoderBlock { heads: 8, hidden: 16 },
		Layer::LayerNorm,
		Layer::Linear { in_features: 8, out_features: 5 },
	]);
	assert!(memory_mib(&more).unwrap() > memory_mib(&heads).unwrap());
}

/// What the spec language's image specs encode to and cost, read off the code before
/// the language model was added: appending variants moved none of it.
#[test]
fn image_specs_keep_their_encoding_and_their_price() {
	let mlp = load("mnist-mlp.json");
	let cnn = load("mnist-cnn.json");
	let h = |s: &TaskSpec| hex(&sp_crypto_hashing::blake2_256(&s.encode()));
	assert_eq!(h(&mlp), "3455b6648d5dc4b53942990b6c9dcceeb4e949b33425dad527a927e577bfcb64");
	assert_eq!(h(&cnn), "b6a7753fa2e9fa93befb710434c6ecbbb9487ca935f297637749ff3df34ab338");
	let cost = |s: &TaskSpec| {
		let e = estimate(s).unwrap();
		(e.forward, e.loss, e.backward, e.optimizer, e.ops, e.total, e.parameters)
	};
	assert_eq!(cost(&mlp), (6571648, 27584, 6603392, 407080, 23, 3435441408, 101770));
	assert_eq!(cost(&cnn), (18162048, 27584, 30860928, 112288, 44, 6200062848, 7018));
	assert_eq!(cost(&fixtures::tiny_mlp()), (2936, 1152, 2840, 1292, 23, 1873200, 323));
	assert_eq!(cost(&fixtures::tiny_cnn()), (26488, 1152, 28056, 3088, 42, 6047040, 193));
	assert_eq!(publish::tensor_lengths(&mlp), [100352, 128, 1280, 10, 100352, 128, 1280, 10]);
	let cnn_lengths = [72, 8, 1152, 16, 5760, 10, 72, 72, 8, 8, 1152, 1152, 16, 16, 5760, 5760];
	assert_eq!(publish::tensor_lengths(&cnn)[..16], cnn_lengths);
	// The memory rule as the tasks pallet kept it: each parameter with its gradient and
	// optimizer state, and a batch of every layer's output with its gradient.
	for s in [&mlp, &cnn, &fixtures::tiny_mlp(), &fixtures::tiny_cnn()] {
		let acts: u64 = infer_shapes(&s.model).unwrap().iter().map(|a| a.numel()).sum();
		let states = match s.training.optimizer {
			Optimizer::Sgd { .. } => 3,
			_ => 4,
		};
		let floats =
			estimate(s).unwrap().parameters * states + acts * u64::from(s.training.batch_size) * 2;
		let mib = (floats * 4).div_ceil(1 << 20).max(1) as u32;
		assert_eq!(memory_mib(s).unwrap(), mib);
	}
	assert_eq!(memory_mib(&mlp).unwrap(), 3);
}
