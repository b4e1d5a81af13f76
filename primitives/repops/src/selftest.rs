//! A fixed workload whose result must be the same bits on every platform: a small CNN
//! (Adam, cosine schedule) and a small MLP (SGD with momentum, step schedule), three
//! steps each on generated data, a language model's task (clipped AdamW) three steps
//! on generated tokens, each transformer operator forward and backward, and the
//! language model's first step through its op graph.
//! Tests compare its hash natively and in a wasm32 build.

use crate::{
	model::{init_state, replay, Dataset},
	Result,
};
use alloc::vec::Vec;
use gensyn_primitives::{merkle::blake2_256, *};

struct Generated {
	classes: u32,
}

impl Dataset for Generated {
	fn sample(&self, index: u32, input: &mut [f32]) -> Result<u32> {
		let key = crate::init::tensor_key(index as u64, 99);
		for (i, v) in input.iter_mut().enumerate() {
			*v = crate::init::uniform(key, i as u64) * 2.0 - 1.0;
		}
		Ok(index % self.classes)
	}

	fn sequence(&self, index: u32, ids: &mut [u32]) -> Result<()> {
		let key = crate::init::tensor_key(index as u64, 98);
		for (i, id) in ids.iter_mut().enumerate() {
			*id = (crate::init::uniform(key, i as u64) * self.classes as f32) as u32 % self.classes;
		}
		Ok(())
	}
}

fn spec(
	layers: Vec<Layer>,
	input: Shape3,
	optimizer: Optimizer,
	lr_schedule: LrSchedule,
) -> Option<TaskSpec> {
	let uri = Uri::parse("file://generated")?;
	Some(TaskSpec {
		model: ModelSpec {
			input,
			layers: BoundedVec::try_from_vec(layers).ok()?,
			loss: Loss::SoftmaxCrossEntropy,
		},
		data: DataRef {
			uri,
			file_hash: Hash32::default(),
			chunk_root: Hash32::default(),
			format: DataFormat::Safetensors,
			samples: 40,
			input,
			classes: 4,
		},
		training: TrainingSpec {
			epochs: 1,
			batch_size: 16,
			seed: 11,
			checkpoint_interval: 1,
			optimizer,
			lr_schedule,
		},
		verification: VerificationSpec {
			mode: VerificationMode::Exact,
			audit_fraction: Permill(1_000_000),
		},
	})
}

/// The test specs: a CNN and an MLP.
pub fn specs() -> Vec<TaskSpec> {
	let img = Shape3 { channels: 2, height: 9, width: 9 };
	let cnn = spec(
		alloc::vec![
			Layer::Conv2d { in_channels: 2, out_channels: 4, kernel: 3, stride: 1, padding: 1 },
			Layer::Relu,
			Layer::MaxPool2d { kernel: 2, stride: 2 },
			Layer::Conv2d { in_channels: 4, out_channels: 5, kernel: 3, stride: 2, padding: 1 },
			Layer::Relu,
			Layer::Flatten,
			Layer::Linear { in_features: 20, out_features: 4 },
		],
		img,
		Optimizer::Adam {
			lr: F32Bits::from_f32(0.01),
			beta1: F32Bits::from_f32(0.9),
			beta2: F32Bits::from_f32(0.999),
			eps: F32Bits::from_f32(1e-8),
		},
		LrSchedule::Cosine { total_steps: 3, min_lr: F32Bits::from_f32(0.001) },
	);
	let mlp = spec(
		alloc::vec![
			Layer::Flatten,
			Layer::Linear { in_features: 162, out_features: 24 },
			Layer::Relu,
			Layer::Linear { in_features: 24, out_features: 4 },
		],
		img,
		Optimizer::Sgd { lr: F32Bits::from_f32(0.1), momentum: F32Bits::from_f32(0.9) },
		LrSchedule::Step { every_steps: 2, gamma: F32Bits::from_f32(0.5) },
	);
	cnn.into_iter().chain(mlp).collect()
}

/// The language model's test spec: two blocks over 6 tokens of a 9-token vocabulary,
/// clipped AdamW on a cosine schedule.
pub fn language_spec() -> Option<TaskSpec> {
	let input = Shape3 { channels: 1, height: 1, width: 6 };
	let block = Layer::DecoderBlock { heads: 2, hidden: 16 };
	let layers = alloc::vec![
		Layer::Embedding { vocab: 9, dim: 8 },
		block,
		block,
		Layer::LayerNorm,
		Layer::Linear { in_features: 8, out_features: 9 },
	];
	let optimizer = Optimizer::AdamW {
		lr: F32Bits::from_f32(0.01),
		beta1: F32Bits::from_f32(0.9),
		beta2: F32Bits::from_f32(0.99),
		eps: F32Bits::from_f32(1e-8),
		weight_decay: F32Bits::from_f32(0.1),
		max_grad_norm: F32Bits::from_f32(0.5),
	};
	let schedule = LrSchedule::Cosine { total_steps: 3, min_lr: F32Bits::from_f32(0.001) };
	let mut s = spec(layers, input, optimizer, schedule)?;
	s.model.loss = Loss::TokenCrossEntropy;
	s.data.format = DataFormat::Tokens;
	s.data.classes = 9;
	Some(s)
}

/// `blake2_256` over the state hashes and loss bits after three steps of each spec
/// (the image models' and the language model's), the transformer's operators, and the
/// language model's step through its op graph.
pub fn probe() -> Result<[u8; 32]> {
	let mut acc = Vec::new();
	// A language model's spec that failed to build would leave its step unprobed.
	let lm = language_spec().ok_or(crate::ReproError::OutOfRange)?;
	for s in specs().into_iter().chain([lm.clone()]) {
		let mut st = init_state(&s)?;
		let losses = replay(&s, &mut st, &Generated { classes: s.data.classes }, &[5u8; 32], 3, 1)?;
		acc.extend_from_slice(&st.hash());
		for l in losses {
			acc.extend_from_slice(&l.to_bits().to_le_bytes());
		}
	}
	transformer_ops(&mut acc)?;
	language_model(&mut acc)?;
	language_graph(&lm, &mut acc)?;
	Ok(blake2_256(&acc))
}

/// Appends the running hash over every op output of the language model's first step
/// through its op graph (what a game's step opening commits to), so the graph's ops are
/// compared too.
fn language_graph(spec: &TaskSpec, acc: &mut Vec<u8>) -> Result<()> {
	let data = Generated { classes: spec.data.classes };
	let (x, y) = crate::model::load_batch(spec, &data, &[5u8; 32], 0)?;
	let trace = crate::model::trace_step(spec, &init_state(spec)?, &x, &y, 1)?;
	acc.extend_from_slice(trace.prefix.last().ok_or(crate::ReproError::OutOfRange)?);
	Ok(())
}

/// Appends the bits of every transformer operator, forward and backward, on generated
/// values (the gradient of each output taken as the next op's input).
fn transformer_ops(acc: &mut Vec<u8>) -> Result<()> {
	use crate::transformer::{attention, causal_softmax, clip, embedding, gelu, layernorm};
	let (t, d, vocab) = (6usize, 8usize, 11usize);
	let values = |tensor: u32, n: usize| crate::init::uniform_tensor(3, tensor, n, 2.0);
	let mut push = |v: &[f32]| v.iter().for_each(|f| acc.extend_from_slice(&f.to_le_bytes()));
	let tokens: Vec<u32> = (0..2 * t as u32).map(|n| (n * 5) % vocab as u32).collect();
	let table = values(0, vocab * d);
	let mut x = alloc::vec![0.0; tokens.len() * d];
	embedding::forward(&table, d, &tokens, &mut x, 1)?;
	let (gamma, beta) = (values(1, d), values(2, d));
	let mut y = alloc::vec![0.0; x.len()];
	let stats = layernorm::forward(&x, d, &gamma, &beta, 1e-5, &mut y, 1)?;
	let (dx, dgamma, dbeta) = layernorm::backward(&x, d, &gamma, &stats, &y, 1)?;
	let mut h = alloc::vec![0.0; y.len()];
	gelu::forward(&y, &mut h, 1)?;
	let mut dh = alloc::vec![0.0; y.len()];
	gelu::backward(&y, &dx, &mut dh, 1)?;
	let scores = values(3, 2 * t * t);
	let mut p = alloc::vec![0.0; scores.len()];
	causal_softmax::forward(&scores, t, &mut p, 1)?;
	let mut dz = alloc::vec![0.0; p.len()];
	causal_softmax::backward(&p, &values(4, p.len()), t, &mut dz, 1)?;
	let (q, k, v) = (values(5, t * d), values(6, t * d), values(7, t * d));
	let head = attention::forward(&q, &k, &v, t, d, 1)?;
	let g = attention::backward(&q, &k, &v, &head.p, &values(8, t * d), t, d, 1)?;
	let dtable = embedding::backward(vocab, d, &tokens, &dh, 1)?;
	let mut clipped = dtable.clone();
	clip::apply(&mut clipped, clip::scale(clip::squared_norm([&dtable[..], &dz[..]]), 0.5));
	for v in [
		&x,
		&y,
		&stats.mean,
		&stats.rstd,
		&dx,
		&dgamma,
		&dbeta,
		&h,
		&dh,
		&p,
		&dz,
		&head.o,
		&g.dq,
		&g.dk,
		&g.dv,
		&clipped,
	] {
		push(v);
	}
	Ok(())
}

/// Appends the bits of a small language model's training step: its loss, every
/// parameter's gradient, and the parameters after one clipped AdamW step.
fn language_model(acc: &mut Vec<u8>) -> Result<()> {
	use crate::transformer::{lm, train};
	let c = lm::Config { vocab: 9, t: 5, d: 8, heads: 2, layers: 2, hidden: 16, eps: 1e-5 };
	let tokens: Vec<u32> = (0..2 * c.t as u32).map(|n| (n * 4) % 9).collect();
	let targets: Vec<u32> = (0..2 * c.t as u32).map(|n| (n * 4 + 1) % 9).collect();
	let mut params = lm::Params::init(&c, 5);
	let f = lm::forward(&c, &params, &tokens, &targets, 2, 1)?;
	let mut grads = lm::backward(&c, &params, &f, &tokens, &targets, 2, 1)?;
	let mut push = |v: &[f32]| v.iter().for_each(|x| acc.extend_from_slice(&x.to_le_bytes()));
	push(&[f.loss]);
	grads.tensors().into_iter().for_each(|g| push(g));
	let h = train::AdamW {
		lr: 1e-2,
		beta1: 0.9,
		beta2: 0.999,
		eps: 1e-8,
		weight_decay: 0.1,
		max_norm: 0.5,
	};
	let mut moments = train::Moments::zeros(params.tensors());
	let scale = train::step(&mut params.tensors_mut(), &mut grads.tensors_mut(), &mut moments, &h)?;
	push(&[scale]);
	params.tensors().into_iter().for_each(|p| push(p));
	Ok(())
}
