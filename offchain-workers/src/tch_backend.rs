//! The fast path: training with libtorch through `tch`, on the GPU when there is one.
//!
//! The model is built from the task spec as plain tensors (no `nn` modules), so its
//! parameters are exactly the checkpoint's, in the same order and layout as repops:
//! `Linear` weight `[out, in]` and bias `[out]`, `Conv2d` weight `[out, in, k, k]` and
//! bias `[out]`. The optimizers are written out with tensor ops to the same
//! definitions repops uses (so their state can be checkpointed and replayed), and the
//! learning rate of each step comes from the same schedule function.

use crate::checkpoint::{state_shapes, TrainState};
use crate::dataset::Dataset;
use gensyn_primitives::{Layer, Optimizer, TaskSpec, TrainingSpec};
use gensyn_repops::optim::{adam_scalars, lr_at};
use tch::{Device, Kind, Tensor};

/// A model and its optimizer living on one libtorch device.
pub struct TchTrainer {
	device: Device,
	layers: Vec<Layer>,
	input: [i64; 3],
	params: Vec<Tensor>,
	optimizer: Optimizer,
	training: TrainingSpec,
	/// Optimizer state in repops' order: per parameter SGD's buffer, or Adam's m, v.
	opt: Vec<Tensor>,
	step: u64,
	data: Option<(Tensor, Tensor)>,
	last_loss: Option<Tensor>,
}

fn to_tensor(values: &[f32], shape: &[usize], device: Device) -> Tensor {
	let dims: Vec<i64> = shape.iter().map(|&d| d as i64).collect();
	Tensor::from_slice(values).view(&dims[..]).to_device(device)
}

fn to_vec(t: &Tensor) -> Vec<f32> {
	let flat = t.detach().to_device(Device::Cpu).contiguous().view(-1);
	Vec::<f32>::try_from(&flat).expect("an f32 tensor")
}

impl TchTrainer {
	/// Builds the model of `spec` on `device` with the parameters and optimizer state
	/// of `state`, which must fit the model (`checkpoint::check`).
	pub fn new(spec: &TaskSpec, state: &TrainState, device: Device) -> Self {
		let (param_shapes, opt_shapes) = state_shapes(spec);
		let params = state
			.params
			.iter()
			.zip(&param_shapes)
			.map(|(v, s)| to_tensor(v, s, device).set_requires_grad(true))
			.collect();
		let opt = state.opt.iter().zip(&opt_shapes).map(|(v, s)| to_tensor(v, s, device)).collect();
		let i = spec.model.input;
		Self {
			device,
			layers: spec.model.layers.iter().copied().collect(),
			input: [i.channels as i64, i.height as i64, i.width as i64],
			params,
			optimizer: spec.training.optimizer,
			training: spec.training,
			opt,
			step: state.step,
			data: None,
			last_loss: None,
		}
	}

	/// The device it trains on.
	pub fn device(&self) -> Device {
		self.device
	}

	/// Copies the whole training set to the device once; steps then gather batches there.
	pub fn load_data(&mut self, data: &Dataset) {
		let n = data.len() as i64;
		let inputs = Tensor::from_slice(&data.inputs)
			.view([n, self.input[0], self.input[1], self.input[2]])
			.to_device(self.device);
		let labels: Vec<i64> = data.labels.iter().map(|&l| l as i64).collect();
		let labels = Tensor::from_slice(&labels).to_device(self.device);
		self.data = Some((inputs, labels));
	}

	/// The logits of a batch `x` of shape `[N, C, H, W]`.
	pub fn forward(&self, x: &Tensor) -> Tensor {
		let mut x = x.shallow_clone();
		let mut p = self.params.iter();
		for layer in &self.layers {
			x = match *layer {
				Layer::Linear { .. } => {
					let (w, b) = (p.next().expect("weight"), p.next().expect("bias"));
					x.linear(w, Some(b))
				}
				Layer::Conv2d { stride, padding, .. } => {
					let (w, b) = (p.next().expect("weight"), p.next().expect("bias"));
					let (s, pad) = (stride as i64, padding as i64);
					x.conv2d(w, Some(b), [s, s], [pad, pad], [1, 1], 1)
				}
				Layer::Relu => x.relu(),
				Layer::MaxPool2d { kernel, stride } => {
					let (k, s) = (kernel as i64, stride as i64);
					x.max_pool2d([k, k], [s, s], [0, 0], [1, 1], false)
				}
				Layer::Flatten => x.flatten(1, -1),
			};
		}
		x
	}

	/// One training step on the samples `batch` of the loaded data set; returns the
	/// batch's mean loss as a device scalar (reading it waits for the device, so
	/// callers read it only when they show it).
	///
	/// # Panics
	/// When no data set was loaded with [`TchTrainer::load_data`].
	pub fn step(&mut self, batch: &[u32]) -> Tensor {
		let (inputs, labels) = self.data.as_ref().expect("load_data before step");
		let idx: Vec<i64> = batch.iter().map(|&i| i as i64).collect();
		let idx = Tensor::from_slice(&idx).to_device(self.device);
		let x = inputs.index_select(0, &idx);
		let y = labels.index_select(0, &idx);
		let loss = self.forward(&x).cross_entropy_for_logits(&y);
		// Gradients as fresh tensors (no zeroing, no accumulation into `.grad`).
		let grads = Tensor::run_backward(&[&loss], &self.params, false, false);
		let lr = lr_at(&self.training, self.step) as f64;
		tch::no_grad(|| self.update(&grads, lr));
		self.step += 1;
		loss.detach()
	}

	fn update(&mut self, grads: &[Tensor], lr: f64) {
		match self.optimizer {
			Optimizer::Sgd { momentum, .. } => {
				let mu = momentum.to_f32() as f64;
				// p += buf * (-lr) in one kernel, the factor a device scalar.
				let neg_lr = Tensor::from(-lr as f32).to_device(self.device);
				for ((p, buf), g) in self.params.iter_mut().zip(self.opt.iter_mut()).zip(grads) {
					let _ = buf.g_mul_scalar_(mu);
					let _ = buf.g_add_(g);
					let _ = p.addcmul_(buf, &neg_lr);
				}
			}
			Optimizer::Adam { beta1, beta2, eps, .. } => {
				let (b1, b2) = (beta1.to_f32() as f64, beta2.to_f32() as f64);
				let s = adam_scalars(
					lr as f32,
					beta1.to_f32(),
					beta2.to_f32(),
					eps.to_f32(),
					self.step,
				);
				let neg_step = Tensor::from(-s.step_size).to_device(self.device);
				let pairs = self.params.iter_mut().zip(self.opt.chunks_exact_mut(2));
				for ((p, mv), g) in pairs.zip(grads) {
					let [m, v] = mv else { unreachable!("chunks of two") };
					let _ = m.g_mul_scalar_(b1);
					let _ = m.g_add_(&(g * (1.0 - b1)));
					let _ = v.g_mul_scalar_(b2);
					let _ = v.addcmul_(&(g * (1.0 - b2)), g);
					let mut denom = v.sqrt();
					let _ = denom.g_div_scalar_(s.bc2_sqrt as f64);
					let _ = denom.g_add_scalar_(s.eps as f64);
					let _ = p.addcdiv_(&(m as &Tensor * &neg_step), &denom);
				}
			}
		}
	}

	/// Steps done so far.
	pub fn steps_done(&self) -> u64 {
		self.step
	}

	/// The training state, copied to host memory.
	pub fn state(&self) -> TrainState {
		TrainState {
			step: self.step,
			params: self.params.iter().map(to_vec).collect(),
			opt: self.opt.iter().map(to_vec).collect(),
		}
	}

	/// Share of `data`'s samples whose largest logit is their label.
	pub fn accuracy(&self, data: &Dataset) -> f64 {
		if data.is_empty() {
			return 0.0;
		}
		let n = data.len() as i64;
		let x = Tensor::from_slice(&data.inputs)
			.view([n, self.input[0], self.input[1], self.input[2]])
			.to_device(self.device);
		let labels: Vec<i64> = data.labels.iter().map(|&l| l as i64).collect();
		let y = Tensor::from_slice(&labels).to_device(self.device);
		tch::no_grad(|| {
			let correct = x
				.split(1024, 0)
				.iter()
				.zip(y.split(1024, 0).iter())
				.map(|(xb, yb)| {
					self.forward(xb)
						.argmax(-1, false)
						.eq_tensor(yb)
						.to_kind(Kind::Int64)
						.sum(Kind::Int64)
						.int64_value(&[])
				})
				.sum::<i64>();
			correct as f64 / n as f64
		})
	}
}

impl crate::train::Backend for TchTrainer {
	fn name(&self) -> &'static str {
		"tch"
	}

	fn step(&mut self, batch: &[u32]) -> Result<(), String> {
		let loss = TchTrainer::step(self, batch);
		self.last_loss = Some(loss);
		Ok(())
	}

	fn last_loss(&self) -> f32 {
		self.last_loss.as_ref().map_or(f32::NAN, |l| l.double_value(&[]) as f32)
	}

	fn state(&self) -> TrainState {
		TchTrainer::state(self)
	}
}
