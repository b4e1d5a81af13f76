//! The language model in libtorch against repops: the same initial parameters and the
//! same batches, trained side by side with clipped AdamW on the CPU. The two engines
//! round differently, so their losses and parameters drift apart by float rounding,
//! and must stay within stated tolerances.

mod common;

use gensyn_primitives::order::SplitMix64;
use gensyn_repops::transformer::{
	lm::{self, Config, Params},
	train::{self, AdamW, Moments},
};
use gensyn_workers::tch_lm::TchLm;

/// Steps trained side by side.
const STEPS: usize = 20;
/// Sequences per step.
const BATCH: usize = 4;
/// The most a step's losses may differ, relative to repops' (measured: 3.4e-7).
const LOSS_TOLERANCE: f32 = 1e-5;
/// The most a first gradient's elements may differ, relative to its largest element.
const GRAD_TOLERANCE: f32 = 1e-4;
/// The most the parameters may differ on average after the last step (measured: 1.4e-6).
const MEAN_PARAM_TOLERANCE: f32 = 1e-4;

#[test]
fn libtorch_trains_the_language_model_as_repops_does() {
	tch::set_num_threads(1);
	let c = Config { vocab: 11, t: 16, d: 16, heads: 2, layers: 2, hidden: 32, eps: 1e-5 };
	// A decay large enough that a step without it would show in the parameters.
	let h =
		AdamW { lr: 3e-3, beta1: 0.9, beta2: 0.99, eps: 1e-8, weight_decay: 0.1, max_norm: 1.0 };
	let mut params = Params::init(&c, 4);
	let odd = Config { heads: 3, ..c };
	assert!(TchLm::new(odd, &params, tch::Device::Cpu).is_err(), "heads must divide the width");
	let mut torch = TchLm::new(c, &params, tch::Device::Cpu).unwrap();
	assert!(torch.loss(&[c.vocab as u32; 16], &[0; 16], 1).is_err(), "a token past the table");
	let mut moments = Moments::zeros(params.tensors());
	let mut rng = SplitMix64(21);
	let (mut worst_loss, mut worst_grad) = (0.0f32, 0.0f32);
	for step in 0..STEPS {
		// A noisy cycle: most tokens follow their predecessor's successor.
		let (mut tokens, mut targets) = (Vec::new(), Vec::new());
		for _ in 0..BATCH {
			let mut x = (rng.next_u64() % c.vocab as u64) as u32;
			for _ in 0..c.t {
				let next = if rng.next_u64().is_multiple_of(5) {
					(rng.next_u64() % c.vocab as u64) as u32
				} else {
					(x + 3) % c.vocab as u32
				};
				tokens.push(x);
				targets.push(next);
				x = next;
			}
		}
		let f = lm::forward(&c, &params, &tokens, &targets, BATCH, 1).unwrap();
		let mut grads = lm::backward(&c, &params, &f, &tokens, &targets, BATCH, 1).unwrap();
		if step == 0 {
			// Adam hides a gradient's scale, and clipping the whole norm's: so the first
			// gradients are compared tensor by tensor before either is used.
			let theirs = torch.gradients(&tokens, &targets, BATCH, &params).unwrap();
			for (i, (a, b)) in grads.tensors().into_iter().zip(theirs.tensors()).enumerate() {
				let size = a.iter().fold(0.0f32, |m, x| m.max(x.abs()));
				let gap = a.iter().zip(b.iter()).fold(0.0f32, |m, (x, y)| m.max((x - y).abs()));
				// The key bias's gradient is zero but for rounding (a row's scores all move
				// by one amount, which the softmax ignores): measured against a floor.
				assert!(gap <= GRAD_TOLERANCE * size.max(1e-4), "tensor {i}: {gap} of {size}");
				worst_grad = worst_grad.max(gap / size.max(1e-4));
			}
		}
		train::step(&mut params.tensors_mut(), &mut grads.tensors_mut(), &mut moments, &h).unwrap();
		let theirs = torch.step(&tokens, &targets, BATCH, &h).unwrap();
		let gap = (theirs - f.loss).abs() / f.loss;
		worst_loss = worst_loss.max(gap);
		assert!(gap <= LOSS_TOLERANCE, "step {step}: repops {}, libtorch {theirs}", f.loss);
	}
	let theirs = torch.params(&params).unwrap();
	let gaps: Vec<f32> = params
		.tensors()
		.into_iter()
		.zip(theirs.tensors())
		.flat_map(|(a, b)| a.iter().zip(b.iter()).map(|(x, y)| (x - y).abs()).collect::<Vec<f32>>())
		.collect();
	let worst = gaps.iter().fold(0.0f32, |a, g| a.max(*g));
	let mean = gaps.iter().sum::<f32>() / gaps.len() as f32;
	eprintln!(
		"worst relative gaps: first gradients {worst_grad:e}, losses {worst_loss:e}; \
		 parameter gaps: mean {mean:e}, worst {worst:e}"
	);
	assert!(mean <= MEAN_PARAM_TOLERANCE, "parameters {mean} apart on average");
	// Adam moves a parameter by about `lr` a step whatever its gradient's size, so a
	// gradient near zero that the engines round to opposite signs moves it apart by up
	// to about twice that once.
	assert!(worst <= 2.0 * h.lr, "a parameter {worst} apart");
}

/// A language model's task in libtorch from its spec and seeded state, trained as the
/// workers train it (the data order, the spec's AdamW and schedule) beside repops: the
/// states stay within the tolerances above, and a state read into libtorch comes back
/// bit for bit, moments and step included.
#[test]
fn a_language_models_task_trains_in_libtorch_as_in_repops() {
	use gensyn_workers::{
		order::DataOrder, reference::RepopsEngine, replay::replay_steps, tch_backend,
		train::Backend,
	};
	tch::set_num_threads(1);
	let dir = tempfile::tempdir().unwrap();
	let spec = common::lm_spec(dir.path(), "threshold");
	let data = common::lm_data(&spec);
	let start = gensyn_repops::model::init_state(&spec).unwrap();
	let total = spec.total_steps();
	let mut torch = tch_backend::trainer(&spec, &start, tch::Device::Cpu, &data).unwrap();
	let mut repops = RepopsEngine::new(&spec, &start, data.clone(), 1);
	let order = || DataOrder::new(&spec, [3; 32]);
	let a = replay_steps(&mut *torch, &mut order(), 0, total).unwrap();
	let b = replay_steps(&mut repops, &mut order(), 0, total).unwrap();
	assert_eq!((a.step, torch.steps_done()), (total, total));
	let gap = (torch.last_loss() - repops.last_loss()).abs() / repops.last_loss();
	assert!(gap <= LOSS_TOLERANCE, "last losses {} and {}", torch.last_loss(), repops.last_loss());
	let gaps: Vec<f32> = a
		.params
		.iter()
		.flatten()
		.zip(b.params.iter().flatten())
		.map(|(x, y)| (x - y).abs())
		.collect();
	assert_eq!(gaps.len(), b.params.iter().map(Vec::len).sum::<usize>());
	let mean = gaps.iter().sum::<f32>() / gaps.len() as f32;
	assert!(mean <= MEAN_PARAM_TOLERANCE, "parameters {mean} apart on average");
	assert!(a.params != start.params, "the parameters moved");
	// A state read in comes back as it was.
	let c = gensyn_repops::transformer::task::config(&spec).unwrap();
	let back = TchLm::from_state(c, &b, tch::Device::Cpu).unwrap().state().unwrap();
	assert_eq!(back, b);
	let mut no_moments = b.clone();
	no_moments.opt.truncate(1);
	assert!(TchLm::from_state(c, &no_moments, tch::Device::Cpu).is_err());
	// An image data set is no language model's, nor token data an image model's: each
	// engine refuses the step, and none panics.
	let mlp = common::spec(dir.path(), "mlp", common::SGD, "exact");
	let images = common::data(&mlp, dir.path());
	assert!(tch_backend::trainer(&spec, &start, tch::Device::Cpu, &images).is_err());
	assert!(RepopsEngine::new(&spec, &start, images.clone(), 1).step(&[0]).is_err());
	let mlp_start = gensyn_repops::model::init_state(&mlp).unwrap();
	assert!(RepopsEngine::new(&mlp, &mlp_start, data.clone(), 1).step(&[0]).is_err());
}
