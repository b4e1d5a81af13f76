//! A language model's task trains from its spec: the spec is read as the model
//! `transformer::lm` computes, its initial state follows one rule value by value, a
//! step is the model's clipped AdamW step in the state's layout, and a replay reads
//! token sequences in the task's data order, with the same bits on any thread count.

mod common;

use gensyn_primitives::{fixtures, order, BoundedVec, F32Bits, Layer, Optimizer, TaskSpec};
use gensyn_repops::{
	graph::TensorKind,
	model::{self, Dataset},
	optim, par,
	state::TrainState,
	transformer::{
		lm::{self, Config, Params},
		task,
		train::{self, AdamW, Moments},
	},
	ReproError,
};

fn with_layers(mut spec: TaskSpec, layers: Vec<Layer>) -> TaskSpec {
	spec.model.layers = BoundedVec::try_from_vec(layers).unwrap();
	spec
}

/// `tiny_lm` with two blocks.
fn two_blocks() -> TaskSpec {
	let spec = fixtures::tiny_lm();
	let mut layers = spec.model.layers.clone().into_inner();
	layers.insert(1, Layer::DecoderBlock { heads: 2, hidden: 16 });
	with_layers(spec, layers)
}

/// Token sequences that follow a cycle, each starting where its index says.
struct Cycle {
	vocab: u32,
}

impl Dataset for Cycle {
	fn sample(&self, _: u32, _: &mut [f32]) -> gensyn_repops::Result<u32> {
		Err(ReproError::Data)
	}

	fn sequence(&self, index: u32, ids: &mut [u32]) -> gensyn_repops::Result<()> {
		for (i, id) in ids.iter_mut().enumerate() {
			*id = (index + 2 * i as u32) % self.vocab;
		}
		Ok(())
	}
}

fn bits(v: &[f32]) -> Vec<u32> {
	v.iter().map(|x| x.to_bits()).collect()
}

fn state_bits(s: &TrainState) -> Vec<Vec<u32>> {
	s.params.iter().chain(&s.opt).map(|t| bits(t)).collect()
}

#[test]
fn the_spec_is_read_as_the_model_it_names() {
	let c = task::config(&two_blocks()).unwrap();
	let want = Config { vocab: 5, t: 8, d: 8, heads: 2, layers: 2, hidden: 16, eps: c.eps };
	assert_eq!(c, want);
	assert_eq!(c.eps, gensyn_primitives::LAYER_NORM_EPS);
	// Every arrangement the model is not has no step here, image models included.
	let lm = fixtures::tiny_lm();
	let layers = lm.model.layers.clone().into_inner();
	let mut mixed = layers.clone();
	mixed.insert(1, Layer::DecoderBlock { heads: 1, hidden: 16 });
	let mut no_final_norm = layers.clone();
	no_final_norm.remove(2);
	let mut adam = lm.clone();
	adam.training.optimizer = Optimizer::Adam {
		lr: F32Bits::from_f32(0.01),
		beta1: F32Bits::from_f32(0.9),
		beta2: F32Bits::from_f32(0.99),
		eps: F32Bits::from_f32(1e-8),
	};
	let refused = [with_layers(lm.clone(), mixed), with_layers(lm.clone(), no_final_norm), adam];
	for spec in refused {
		spec.validate().unwrap();
		assert_eq!(task::config(&spec), None, "{:?}", spec.model.layers);
		assert_eq!(model::init_state(&spec), Err(ReproError::Unsupported));
	}
	assert_eq!(task::config(&common::tiny_mlp()), None);
	assert_eq!(task::init_state(&common::tiny_mlp()), Err(ReproError::Unsupported));
}

#[test]
fn the_initial_state_is_the_rule_value_by_value() {
	let spec = two_blocks();
	let state = model::init_state(&spec).unwrap();
	model::check_state(&spec, &state).unwrap();
	assert_eq!((state.step, state.opt.len()), (0, 2 * state.params.len()));
	assert!(state.opt.iter().flatten().all(|x| *x == 0.0));
	let c = task::config(&spec).unwrap();
	let params = Params::init(&c, spec.training.seed);
	assert_eq!(params.tensors().len(), c.tensor_count());
	for (t, tensor) in state.params.iter().enumerate() {
		assert_eq!(bits(tensor), bits(params.tensors()[t]), "tensor {t}");
		for (i, x) in tensor.iter().enumerate() {
			let one = model::initial_value(&spec, TensorKind::Param(t as u32), i as u64);
			assert_eq!(one.unwrap().unwrap().to_bits(), x.to_bits(), "tensor {t} element {i}");
		}
		let past = model::initial_value(&spec, TensorKind::Param(t as u32), tensor.len() as u64);
		assert_eq!(past, Some(Err(ReproError::OutOfRange)));
	}
	// Drawn tensors differ from one another and with the seed; LayerNorm starts at 1, 0.
	assert_ne!(bits(&state.params[0])[..8], bits(&state.params[2 + 2])[..8]);
	assert_eq!(state.params[2], vec![1.0; 8]);
	assert_eq!(state.params[3], vec![0.0; 8]);
	let mut reseeded = spec.clone();
	reseeded.training.seed += 1;
	assert_ne!(model::init_state(&reseeded).unwrap().params[0], state.params[0]);
	let opt = model::initial_value(&spec, TensorKind::OptState(5), 3);
	assert_eq!(opt, Some(Ok(0.0)));
	// Past the last slot, or past its parameter's length, there is no value.
	let slots = state.opt.len() as u32;
	let past = [(slots, 0), (5, state.params[2].len() as u64)];
	for (slot, elem) in past {
		let value = model::initial_value(&spec, TensorKind::OptState(slot), elem);
		assert_eq!(value, Some(Err(ReproError::OutOfRange)), "slot {slot} element {elem}");
	}
	let last = model::initial_value(&spec, TensorKind::OptState(slots - 1), 0);
	assert_eq!(last, Some(Ok(0.0)));
	assert_eq!(model::initial_value(&spec, TensorKind::Value, 0), None);
}

#[test]
fn a_step_from_the_spec_is_the_models_clipped_adamw_step() {
	par::set_min_parallel_work(0);
	let spec = two_blocks();
	let c = task::config(&spec).unwrap();
	let data = Cycle { vocab: 5 };
	let mut ids = vec![0u32; 3 * (c.t + 1)];
	for (i, s) in ids.chunks_exact_mut(c.t + 1).enumerate() {
		data.sequence(i as u32 + 4, s).unwrap();
	}
	// By hand: the model's passes and one AdamW step at the schedule's rate.
	let mut p = Params::init(&c, spec.training.seed);
	let tokens: Vec<u32> = ids.chunks_exact(c.t + 1).flat_map(|s| s[..c.t].to_vec()).collect();
	let targets: Vec<u32> = ids.chunks_exact(c.t + 1).flat_map(|s| s[1..].to_vec()).collect();
	let mut moments = Moments::zeros(p.tensors());
	let f = lm::forward(&c, &p, &tokens, &targets, 3, 1).unwrap();
	let mut g = lm::backward(&c, &p, &f, &tokens, &targets, 3, 1).unwrap();
	let Optimizer::AdamW { beta1, beta2, eps, weight_decay, max_grad_norm, .. } =
		spec.training.optimizer
	else {
		unreachable!()
	};
	let h = AdamW {
		lr: optim::lr_at(&spec.training, 0),
		beta1: beta1.to_f32(),
		beta2: beta2.to_f32(),
		eps: eps.to_f32(),
		weight_decay: weight_decay.to_f32(),
		max_norm: max_grad_norm.to_f32(),
	};
	train::step(&mut p.tensors_mut(), &mut g.tensors_mut(), &mut moments, &h).unwrap();
	let mut one = model::init_state(&spec).unwrap();
	let loss = task::train_step(&spec, &mut one, &ids, 1).unwrap();
	assert_eq!(loss.to_bits(), f.loss.to_bits());
	assert_eq!(one.step, 1);
	for (t, tensor) in p.tensors().iter().enumerate() {
		assert_eq!(bits(&one.params[t]), bits(tensor), "parameter {t}");
		assert_eq!(bits(&one.opt[2 * t]), bits(&moments.m[t]), "first moment {t}");
		assert_eq!(bits(&one.opt[2 * t + 1]), bits(&moments.v[t]), "second moment {t}");
	}
	// The second step reads the moments back from the state.
	let before = one.clone();
	task::train_step(&spec, &mut one, &ids, 1).unwrap();
	assert_ne!(state_bits(&one), state_bits(&before));
	for threads in [2, 3] {
		let mut other = model::init_state(&spec).unwrap();
		task::train_step(&spec, &mut other, &ids, threads).unwrap();
		task::train_step(&spec, &mut other, &ids, threads).unwrap();
		assert_eq!(state_bits(&other), state_bits(&one), "{threads} threads");
	}
}

#[test]
fn a_bad_batch_is_refused_and_the_state_kept() {
	let spec = fixtures::tiny_lm();
	let per = spec.model.input.width as usize + 1;
	let start = model::init_state(&spec).unwrap();
	let mut state = start.clone();
	let too_many = vec![1u32; per * (spec.training.batch_size as usize + 1)];
	let mut out_of_vocab = vec![1u32; per];
	out_of_vocab[per - 1] = 5;
	let cases: [(&[u32], ReproError); 4] = [
		(&[], ReproError::BadBatch),
		(&[1u32; 5][..], ReproError::BadBatch),
		(&too_many, ReproError::BadBatch),
		(&out_of_vocab, ReproError::TokenOutOfRange),
	];
	for (ids, err) in cases {
		assert_eq!(task::train_step(&spec, &mut state, ids, 1), Err(err));
		assert_eq!(state, start);
	}
	let mut short = start.clone();
	short.opt.pop();
	assert_eq!(task::train_step(&spec, &mut short, &[1u32; 9], 1), Err(ReproError::StateMismatch));
	// An image model's step is not taken here.
	let mut image = model::init_state(&common::tiny_mlp()).unwrap();
	let err = task::train_step(&common::tiny_mlp(), &mut image, &[1u32; 9], 1);
	assert_eq!(err, Err(ReproError::Unsupported));
}

#[test]
fn a_replay_reads_sequences_in_the_tasks_order_and_learns() {
	let spec = fixtures::tiny_lm();
	let data = Cycle { vocab: 5 };
	let randomness = [7u8; 32];
	let total = spec.total_steps();
	let mut state = model::init_state(&spec).unwrap();
	let losses = model::replay(&spec, &mut state, &data, &randomness, total, 1).unwrap();
	assert_eq!((losses.len() as u64, state.step), (total, total));
	// Step by step over the task's own batches, the same bits.
	let per = spec.model.input.width as usize + 1;
	let mut by_hand = model::init_state(&spec).unwrap();
	for step in 0..total {
		let (epoch, start, end) = order::step_range(&spec, step).unwrap();
		let perm = order::epoch_permutation(spec.training.seed, &randomness, epoch, 40);
		let mut ids = vec![0u32; per * (end - start)];
		for (i, s) in perm[start..end].iter().zip(ids.chunks_exact_mut(per)) {
			data.sequence(*i, s).unwrap();
		}
		let loss = task::train_step(&spec, &mut by_hand, &ids, 1).unwrap();
		assert_eq!(loss.to_bits(), losses[step as usize].to_bits(), "step {step}");
	}
	assert_eq!(state_bits(&by_hand), state_bits(&state));
	assert_eq!(by_hand.hash(), state.hash());
	// The cycle is learnt: the last step's loss is well below the first's.
	let (first, last) = (losses[0], losses[losses.len() - 1]);
	assert!(last < 0.7 * first, "from {first} to {last}");
	// Past the last step, or from a data set without sequences, the replay stops.
	assert!(model::replay(&spec, &mut state, &data, &randomness, 1, 1).is_err());
	let mut fresh = model::init_state(&spec).unwrap();
	let images = common::data_for(&spec);
	let err = model::replay(&spec, &mut fresh, &images, &randomness, 1, 1);
	assert_eq!(err, Err(ReproError::Unsupported));
}

/// The platform probe (native against wasm32 in `tests/wasm.rs`) replays a language
/// model's task from its spec: one that this module trains, and the probe runs.
#[test]
fn the_probe_replays_a_language_models_task() {
	let spec = gensyn_repops::selftest::language_spec().unwrap();
	spec.validate().unwrap();
	assert!(task::config(&spec).is_some_and(|c| c.layers == 2));
	let mut state = model::init_state(&spec).unwrap();
	let data = Cycle { vocab: 9 };
	assert_eq!(model::replay(&spec, &mut state, &data, &[5; 32], 3, 1).unwrap().len(), 3);
	gensyn_repops::selftest::probe().unwrap();
}

/// A step through the op graph (the one the pinpoint game walks) trains as the task's
/// step does, and its trace commits to the same state.
#[test]
fn the_graph_steps_a_language_model_as_its_task_does() {
	let spec = two_blocks();
	let data = Cycle { vocab: 5 };
	let randomness = [3u8; 32];
	let mut by_task = model::init_state(&spec).unwrap();
	let mut by_graph = by_task.clone();
	for step in 0..4 {
		let (x, y) = model::load_batch(&spec, &data, &randomness, step).unwrap();
		let t = spec.model.input.width as usize;
		assert_eq!((x.len(), y.len()), (4 * t, 4 * t), "a batch of four sequences");
		let trace = model::trace_step(&spec, &by_graph, &x, &y, 2).unwrap();
		let loss = model::train_step(&spec, &mut by_graph, &x, &y, 1).unwrap();
		let want = model::replay(&spec, &mut by_task, &data, &randomness, 1, 1).unwrap()[0];
		assert_eq!(loss.to_bits(), want.to_bits(), "step {step}");
		assert_eq!(trace.loss.to_bits(), want.to_bits(), "step {step}");
		assert_eq!(state_bits(&by_graph), state_bits(&by_task), "step {step}");
		assert_eq!(trace.next.hash(), by_task.hash(), "step {step}");
	}
	// A target outside the vocabulary is the data's fault, refused before any op runs.
	let (x, mut y) = model::load_batch(&spec, &data, &randomness, 4).unwrap();
	y[3] = 5;
	let err = model::train_step(&spec, &mut by_graph, &x, &y, 1);
	assert_eq!(err, Err(ReproError::LabelOutOfRange));
}

/// Every token and target of a step's batch lies in the token file where the game reads
/// it, one byte a value.
#[test]
fn every_batch_value_of_a_token_task_lies_where_the_game_reads_it() {
	use gensyn_repops::{
		dispute,
		graph::{INPUT, LABELS},
	};
	let spec = fixtures::tiny_lm();
	let data = Cycle { vocab: 5 };
	let per = spec.model.input.width as usize + 1;
	let mut file = vec![0u8; spec.data.samples as usize * per];
	for (s, bytes) in file.chunks_exact_mut(per).enumerate() {
		let mut ids = vec![0u32; per];
		data.sequence(s as u32, &mut ids).unwrap();
		for (b, id) in bytes.iter_mut().zip(ids) {
			*b = id as u8;
		}
	}
	assert!(dispute::data_disputable(spec.data.format));
	let randomness = [9u8; 32];
	for step in [0, spec.total_steps() - 1] {
		let (x, y) = model::load_batch(&spec, &data, &randomness, step).unwrap();
		let y: Vec<f32> = y.iter().map(|v| *v as f32).collect();
		for (tensor, values) in [(INPUT, x), (LABELS, y)] {
			for (e, v) in values.iter().enumerate() {
				let loc = dispute::data_location(&spec, &randomness, step, tensor, e as u64);
				let loc = loc.unwrap();
				assert_eq!(loc.file_len, file.len() as u64);
				let byte = file[loc.offset as usize];
				assert_eq!(loc.value(byte).to_bits(), v.to_bits(), "step {step} {tensor} {e}");
			}
			let past =
				dispute::data_location(&spec, &randomness, step, tensor, values.len() as u64);
			assert_eq!(past, Err(ReproError::OutOfRange));
		}
	}
}
