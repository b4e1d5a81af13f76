//! The decoder-only language model of [`gensyn_repops::transformer::lm`] in libtorch:
//! the same parameters (taken from, and given back as, repops' [`Params`]), the same
//! forward pass from libtorch's kernels (TF32 off for the process, as for every task),
//! gradients by autograd, and the same clipped AdamW step
//! ([`gensyn_repops::transformer::train`]).
//! The two engines round differently: their losses and states agree within float
//! rounding, not bit for bit. [`TchLmTrainer`] trains a language model's task with it
//! (the spec read by [`task::config`]) behind the same [`Backend`] interface as the
//! image models' trainer, in the task state's layout; [`crate::tch_backend::trainer`]
//! picks the one a spec needs.

use crate::{
	checkpoint::TrainState,
	dataset::Dataset,
	tch_backend::{describe, libtorch_failure},
	train::Backend,
};
use gensyn_primitives::TaskSpec;
use gensyn_repops::optim::{adam_scalars, adamw_decay_factor};
use gensyn_repops::transformer::{
	clip::NORM_EPS,
	lm::{Config, Params, BLOCK_TENSORS},
	task,
	train::AdamW,
};
use std::sync::Arc;
use tch::{Device, Kind, TchError, Tensor};

/// A language model and its AdamW moments, on one device.
pub struct TchLm {
	c: Config,
	/// The parameters, in repops' state order ([`Params::tensors`]).
	params: Vec<Tensor>,
	/// Adam's first and second moments, in the same order.
	m: Vec<Tensor>,
	v: Vec<Tensor>,
	step: u64,
	device: Device,
}

/// An error of this module's own.
fn own_error(message: &str) -> TchError {
	TchError::Shape(message.to_string())
}

impl TchLm {
	/// The model `c` with parameters `p`, on `device`.
	pub fn new(c: Config, p: &Params, device: Device) -> Result<Self, TchError> {
		if c.heads == 0 || c.d == 0 || !c.d.is_multiple_of(c.heads) || c.vocab == 0 {
			return Err(own_error("a configuration whose width the heads do not divide"));
		}
		// The layout repops' own parameters for `c` have, tensor by tensor.
		let fits = p.tensors().len() == c.tensor_count()
			&& p.tensors()
				.iter()
				.enumerate()
				.all(|(i, t)| c.start(i).is_some_and(|s| s.0 == t.len()));
		if !fits {
			return Err(own_error("parameters that are not the configuration's"));
		}
		crate::tch_backend::tf32::forbid();
		let params = p
			.tensors()
			.into_iter()
			.map(|t| Ok(Tensor::f_from_slice(t)?.f_to_device(device)?.set_requires_grad(true)))
			.collect::<Result<Vec<_>, TchError>>()?;
		let zeros =
			|| params.iter().map(|t| t.f_zeros_like()).collect::<Result<Vec<Tensor>, TchError>>();
		Ok(TchLm { c, m: zeros()?, v: zeros()?, params, step: 0, device })
	}

	/// The model `c` at a task's training `state` (parameters, both moments and the
	/// steps taken, in the task state's layout), on `device`.
	pub fn from_state(c: Config, state: &TrainState, device: Device) -> Result<Self, TchError> {
		let p = Params::from_tensors(&c, state.params.clone())
			.map_err(|_| own_error("a state that is not the configuration's"))?;
		let moments = task::moments_of(state)
			.map_err(|_| own_error("a state without AdamW's two moments a parameter"))?;
		let mut lm = Self::new(c, &p, device)?;
		let upload = |each: &[Vec<f32>]| {
			each.iter()
				.map(|t| Tensor::f_from_slice(t)?.f_to_device(device))
				.collect::<Result<Vec<Tensor>, TchError>>()
		};
		(lm.m, lm.v, lm.step) = (upload(&moments.m)?, upload(&moments.v)?, moments.step);
		Ok(lm)
	}

	/// The training state in host memory, in the task state's layout.
	pub fn state(&self) -> Result<TrainState, TchError> {
		let all = |each: &[Tensor]| each.iter().map(host).collect::<Result<Vec<_>, _>>();
		let opt = task::interleave(all(&self.m)?, all(&self.v)?);
		Ok(TrainState { step: self.step, params: all(&self.params)?, opt })
	}

	/// Steps taken.
	pub fn steps_done(&self) -> u64 {
		self.step
	}

	/// The parameter at state-order index `i`.
	fn p(&self, i: usize) -> Result<&Tensor, TchError> {
		self.params.get(i).ok_or_else(|| own_error("a parameter past the state"))
	}

	/// The mean token loss of `batch` sequences of `tokens` against `targets`.
	pub fn loss(&self, tokens: &[u32], targets: &[u32], batch: usize) -> Result<Tensor, TchError> {
		let c = &self.c;
		let rows = batch.checked_mul(c.t).filter(|r| *r > 0);
		if rows.is_none_or(|r| tokens.len() != r || targets.len() != r) {
			return Err(own_error("a batch that is not whole sequences"));
		}
		// Checked here: on a GPU an index past the table fails in a kernel, and the
		// device is lost.
		if tokens.iter().chain(targets).any(|x| *x as usize >= c.vocab) {
			return Err(own_error("a token past the vocabulary"));
		}
		let (b, t, d) = (batch as i64, c.t as i64, c.d as i64);
		let ids = |v: &[u32]| -> Result<Tensor, TchError> {
			let v: Vec<i64> = v.iter().map(|x| i64::from(*x)).collect();
			Tensor::f_from_slice(&v)?.f_to_device(self.device)
		};
		let tok = self.p(0)?.f_view([c.vocab as i64, d])?.f_index_select(0, &ids(tokens)?)?;
		let pos = self.p(1)?.f_view([t, d])?;
		let mut x = tok.f_view([b, t, d])?.f_add(&pos)?;
		let later = Tensor::f_ones([t, t], (Kind::Bool, self.device))?.f_triu(1)?;
		for layer in 0..c.layers {
			x = self.block(&x, 2 + layer * BLOCK_TENSORS, &later, b)?;
		}
		let f = 2 + c.layers * BLOCK_TENSORS;
		let z = self.norm(&x, f)?;
		let (head, bias) = (self.p(f + 2)?.f_view([c.vocab as i64, d])?, self.p(f + 3)?);
		let logits = z.f_linear(&head, Some(bias))?.f_view([b * t, c.vocab as i64])?;
		logits.f_log_softmax(-1, Kind::Float)?.f_nll_loss(
			&ids(targets)?,
			None::<Tensor>,
			tch::Reduction::Mean,
			-100,
		)
	}

	/// LayerNorm of `x` with the scale and shift at `i` and `i + 1`.
	fn norm(&self, x: &Tensor, i: usize) -> Result<Tensor, TchError> {
		let eps = f64::from(self.c.eps);
		x.f_layer_norm([self.c.d as i64], Some(self.p(i)?), Some(self.p(i + 1)?), eps, false)
	}

	/// `x W^T + b` with the weight at `i` (`rows x cols`) and the bias at `i + 1`.
	fn linear(&self, x: &Tensor, i: usize, rows: usize, cols: usize) -> Result<Tensor, TchError> {
		let w = self.p(i)?.f_view([rows as i64, cols as i64])?;
		x.f_linear(&w, Some(self.p(i + 1)?))
	}

	/// One block, its parameters from state-order index `at`; `later` masks each
	/// position's later ones.
	fn block(&self, x: &Tensor, at: usize, later: &Tensor, b: i64) -> Result<Tensor, TchError> {
		let c = &self.c;
		let (t, d, heads) = (c.t as i64, c.d as i64, c.heads as i64);
		let dh = d / heads;
		let a = self.norm(x, at)?;
		let split = |y: Tensor| y.f_view([b, t, heads, dh])?.f_transpose(1, 2);
		let q = split(self.linear(&a, at + 2, c.d, c.d)?)?;
		let k = split(self.linear(&a, at + 4, c.d, c.d)?)?;
		let v = split(self.linear(&a, at + 6, c.d, c.d)?)?;
		// repops' `1 / sqrt(dh)`, in f32.
		let scale = f64::from(1.0 / ((c.d / c.heads) as f32).sqrt());
		let scores = q.f_matmul(&k.f_transpose(-2, -1)?)?.f_mul_scalar(scale)?;
		let p = scores.f_masked_fill(later, f64::NEG_INFINITY)?.f_softmax(-1, Kind::Float)?;
		let o = p.f_matmul(&v)?.f_transpose(1, 2)?.f_contiguous()?.f_view([b, t, d])?;
		let h = x.f_add(&self.linear(&o, at + 8, c.d, c.d)?)?;
		let u = self.linear(&self.norm(&h, at + 10)?, at + 12, c.hidden, c.d)?;
		h.f_add(&self.linear(&u.f_gelu("tanh")?, at + 14, c.d, c.hidden)?)
	}

	/// The gradients of the loss on a batch, in repops' layout (`like`), without a step.
	pub fn gradients(
		&self,
		tokens: &[u32],
		targets: &[u32],
		batch: usize,
		like: &Params,
	) -> Result<Params, TchError> {
		let (_, grads) = self.loss_and_grads(tokens, targets, batch)?;
		to_params(&grads, like)
	}

	/// The loss on a batch and its gradients, as fresh tensors in state order.
	fn loss_and_grads(
		&self,
		tokens: &[u32],
		targets: &[u32],
		batch: usize,
	) -> Result<(Tensor, Vec<Tensor>), TchError> {
		let loss = self.loss(tokens, targets, batch)?;
		let grads = Tensor::f_run_backward(&[&loss], &self.params, false, false)?;
		Ok((loss, grads))
	}

	/// One training step: the loss, its gradients, clipping to `h.max_norm`, and AdamW;
	/// returns the loss before the step.
	pub fn step(
		&mut self,
		tokens: &[u32],
		targets: &[u32],
		batch: usize,
		h: &AdamW,
	) -> Result<f32, TchError> {
		let (loss, grads) = self.loss_and_grads(tokens, targets, batch)?;
		let s = adam_scalars(h.lr, h.beta1, h.beta2, h.eps, self.step);
		let decay = f64::from(adamw_decay_factor(h.lr, h.weight_decay));
		let (b1, b2) = (f64::from(h.beta1), f64::from(h.beta2));
		tch::no_grad(|| -> Result<(), TchError> {
			let mut squares = Tensor::f_zeros([0i64; 0], (Kind::Float, self.device))?;
			for g in &grads {
				squares = squares.f_add(&g.f_square()?.f_sum(Kind::Float)?)?;
			}
			let norm = f64::from(squares.f_sqrt()?.double_value(&[]) as f32);
			// As repops' `clip::scale`: a NaN norm scales by NaN, not by 1.
			let ratio = f64::from(h.max_norm) / (norm + f64::from(NORM_EPS));
			let clip = if ratio.is_nan() { ratio } else { ratio.min(1.0) };
			for (((p, g), m), v) in
				self.params.iter_mut().zip(&grads).zip(&mut self.m).zip(&mut self.v)
			{
				let g = g.f_mul_scalar(clip)?;
				let _ = m.f_mul_scalar_(b1)?.f_add_(&g.f_mul_scalar(1.0 - b1)?)?;
				let _ = v.f_mul_scalar_(b2)?.f_addcmul_(&g.f_mul_scalar(1.0 - b2)?, &g)?;
				let denom = v
					.f_sqrt()?
					.f_div_scalar(f64::from(s.bc2_sqrt))?
					.f_add_scalar(f64::from(s.eps))?;
				let _ = p.f_mul_scalar_(decay)?;
				let _ = p.f_addcdiv_(&m.f_mul_scalar(-f64::from(s.step_size))?, &denom)?;
			}
			Ok(())
		})?;
		self.step += 1;
		Ok(loss.double_value(&[]) as f32)
	}

	/// The parameters, in repops' layout (`like`).
	pub fn params(&self, like: &Params) -> Result<Params, TchError> {
		to_params(&self.params, like)
	}
}

/// `tensors` (in state order) in repops' layout, that of `like`.
fn to_params(tensors: &[Tensor], like: &Params) -> Result<Params, TchError> {
	let mut out = like.clone();
	if out.tensors().len() != tensors.len() {
		return Err(own_error("parameters of another configuration"));
	}
	for (dst, src) in out.tensors_mut().into_iter().zip(tensors) {
		*dst = host(src)?;
	}
	Ok(out)
}

/// A tensor's values in host memory, flat.
fn host(t: &Tensor) -> Result<Vec<f32>, TchError> {
	let flat = t.f_detach()?.f_to_device(Device::Cpu)?.f_contiguous()?.f_view(-1)?;
	Vec::<f32>::try_from(&flat)
}

/// A language model's task trained with libtorch behind the [`Backend`] interface:
/// [`TchLm`] at the task's state, stepped on the data set's token sequences with the
/// spec's AdamW and schedule ([`task::adamw`]).
pub struct TchLmTrainer {
	spec: TaskSpec,
	lm: TchLm,
	data: Arc<Dataset>,
	last_loss: f32,
}

impl TchLmTrainer {
	/// The task `spec` at `state` on `device`, over the token sequences `data`; an error
	/// (as a message) when `spec` names no language model this engine builds, `data`
	/// holds no sequences, or libtorch fails.
	pub fn new(
		spec: &TaskSpec,
		state: &TrainState,
		device: Device,
		data: Arc<Dataset>,
	) -> Result<Self, String> {
		let c = task::config(spec).ok_or("this engine trains language models only")?;
		if !data.sequences || data.sample_shape != [c.t + 1] {
			return Err(format!(
				"a language model's task needs token sequences of {} ids",
				c.t + 1
			));
		}
		let lm = TchLm::from_state(c, state, device).map_err(|e| libtorch_failure(&e))?;
		Ok(Self { spec: spec.clone(), lm, data, last_loss: f32::NAN })
	}
}

impl Backend for TchLmTrainer {
	fn name(&self) -> &'static str {
		"tch"
	}

	fn step(&mut self, batch: &[u32]) -> Result<(), String> {
		let step = self.lm.step;
		let fail = |e: String| format!("tch step {step}: {e}");
		let indices: Vec<usize> = batch.iter().map(|&i| i as usize).collect();
		let ids =
			self.data.sequence_batch(&indices).ok_or_else(|| fail("no such sequences".into()))?;
		let (tokens, targets, n) =
			task::split(&self.spec, &ids).map_err(|e| fail(e.to_string()))?;
		let h = task::adamw(&self.spec, step).map_err(|e| fail(e.to_string()))?;
		self.last_loss = self.lm.step(&tokens, &targets, n, &h).map_err(|e| fail(describe(&e)))?;
		Ok(())
	}

	fn last_loss(&self) -> f32 {
		self.last_loss
	}

	fn state(&self) -> Result<TrainState, String> {
		self.lm.state().map_err(|e| format!("state of step {}: {}", self.lm.step, describe(&e)))
	}

	fn steps_done(&self) -> u64 {
		self.lm.step
	}
}
