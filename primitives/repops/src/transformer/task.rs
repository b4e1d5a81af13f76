//! A language model's task: its spec read as an [`lm::Config`] and an [`AdamW`], the
//! task's initial state and one training step over a batch of token sequences, in the
//! same [`TrainState`] layout as every task ([`gensyn_primitives::layout`]). So a run of
//! such a task is replayed, hashed and paged like an image model's.
//!
//! The spec must name the model [`lm`] computes, in its order: an `Embedding`, any
//! number of `DecoderBlock`s of one size, a `LayerNorm`, then a `Linear` head from the
//! stream to the vocabulary, scored by the token loss on token data and trained with
//! `AdamW`. Any other arrangement the spec language allows has no step here yet
//! ([`ReproError::Unsupported`]).

use super::{
	lm::{self, Config, Params, Start},
	train::{self, AdamW, Moments},
};
use crate::{graph::TensorKind, init, optim, state::TrainState, ReproError, Result};
use alloc::{vec, vec::Vec};
use gensyn_primitives::{DataFormat, Layer, Loss, Optimizer, TaskSpec, LAYER_NORM_EPS};

/// The model `spec` names, where it is the one [`lm`] computes (see the module's
/// doc); `None` for any other spec, image models included.
pub fn config(spec: &TaskSpec) -> Option<Config> {
	let tokens = spec.data.format == DataFormat::Tokens
		&& spec.model.loss == Loss::TokenCrossEntropy
		&& matches!(spec.training.optimizer, Optimizer::AdamW { .. });
	let layers = spec.model.layers.as_slice();
	let (Layer::Embedding { vocab, dim }, rest) = layers.split_first()? else { return None };
	let (Layer::Linear { in_features, out_features }, rest) = rest.split_last()? else {
		return None;
	};
	let (Layer::LayerNorm, blocks) = rest.split_last()? else { return None };
	let first = blocks.first().copied().unwrap_or(Layer::DecoderBlock { heads: 1, hidden: 1 });
	let Layer::DecoderBlock { heads, hidden } = first else { return None };
	let head = *in_features == *dim && *out_features == *vocab;
	if !tokens || !head || blocks.iter().any(|b| *b != first) {
		return None;
	}
	Some(Config {
		vocab: *vocab as usize,
		t: spec.model.input.width as usize,
		d: *dim as usize,
		heads: heads as usize,
		layers: blocks.len(),
		hidden: hidden as usize,
		eps: LAYER_NORM_EPS,
	})
}

/// The task's initial state: [`Params::init`] under the spec's seed, both moments
/// zero, step 0.
pub fn init_state(spec: &TaskSpec) -> Result<TrainState> {
	let c = config(spec).ok_or(ReproError::Unsupported)?;
	let params = Params::init(&c, spec.training.seed).into_tensors();
	let opt = params.iter().flat_map(|p| [vec![0.0f32; p.len()], vec![0.0f32; p.len()]]).collect();
	Ok(TrainState { step: 0, params, opt })
}

/// Element `elem` of tensor `kind` in the task's initial state, computed on its own
/// (`None` for a kind the state does not hold): what [`init_state`] puts there.
pub fn initial_value(spec: &TaskSpec, kind: TensorKind, elem: u64) -> Option<Result<f32>> {
	let c = config(spec)?;
	match kind {
		TensorKind::Param(t) => Some(match c.start(t as usize) {
			Some((n, _)) if elem >= n as u64 => Err(ReproError::OutOfRange),
			Some((_, Start::Uniform(bound))) => {
				Ok(init::uniform_value(spec.training.seed, t, elem, bound))
			}
			Some((_, Start::Fill(x))) => Ok(x),
			None => Err(ReproError::OutOfRange),
		}),
		TensorKind::OptState(s) => Some(match c.start(s as usize / 2) {
			// Slots `2t` and `2t + 1` are parameter `t`'s moments.
			Some((n, _)) if elem < n as u64 => Ok(0.0),
			_ => Err(ReproError::OutOfRange),
		}),
		_ => None,
	}
}

/// The spec's AdamW at step `step`: its settings, the learning rate its schedule's.
pub fn adamw(spec: &TaskSpec, step: u64) -> Result<AdamW> {
	let Optimizer::AdamW { beta1, beta2, eps, weight_decay, max_grad_norm, .. } =
		spec.training.optimizer
	else {
		return Err(ReproError::Unsupported);
	};
	Ok(AdamW {
		lr: optim::lr_at(&spec.training, step),
		beta1: beta1.to_f32(),
		beta2: beta2.to_f32(),
		eps: eps.to_f32(),
		weight_decay: weight_decay.to_f32(),
		max_norm: max_grad_norm.to_f32(),
	})
}

/// A batch of whole `sequences` (each `t + 1` ids), at least one and at most the
/// spec's batch size, split into the model's tokens (each sequence's first `t`), its
/// targets (the last `t`) and the number of sequences.
pub fn split(spec: &TaskSpec, sequences: &[u32]) -> Result<(Vec<u32>, Vec<u32>, usize)> {
	let t = spec.model.input.width as usize;
	let per = t.checked_add(1).ok_or(ReproError::BadBatch)?;
	let batch = sequences.len() / per;
	let fits = sequences.len().is_multiple_of(per)
		&& batch > 0
		&& batch <= spec.training.batch_size as usize;
	if !fits {
		return Err(ReproError::BadBatch);
	}
	let (mut tokens, mut targets) = (Vec::with_capacity(batch * t), Vec::with_capacity(batch * t));
	for s in sequences.chunks_exact(per) {
		tokens.extend_from_slice(&s[..t]);
		targets.extend_from_slice(&s[1..]);
	}
	Ok((tokens, targets, batch))
}

/// One training step of the task on `sequences` ([`split`]); updates `state` and
/// returns the batch's mean loss before the update. The learning rate is the spec's
/// schedule at `state.step`. On an error `state` is left as it was.
pub fn train_step(
	spec: &TaskSpec,
	state: &mut TrainState,
	sequences: &[u32],
	threads: usize,
) -> Result<f32> {
	let c = config(spec).ok_or(ReproError::Unsupported)?;
	let h = adamw(spec, state.step)?;
	let (tokens, targets, batch) = split(spec, sequences)?;
	let mut params = Params::from_tensors(&c, state.params.clone())?;
	let mut moments = moments_of(state)?;
	let f = lm::forward(&c, &params, &tokens, &targets, batch, threads)?;
	let mut grads = lm::backward(&c, &params, &f, &tokens, &targets, batch, threads)?;
	train::step(&mut params.tensors_mut(), &mut grads.tensors_mut(), &mut moments, &h)?;
	let Moments { m, v, step } = moments;
	state.params = params.into_tensors();
	state.opt = interleave(m, v);
	state.step = step;
	Ok(f.loss)
}

/// The state's optimizer tensors from Adam's moments: each parameter's first then
/// second moment.
pub fn interleave(m: Vec<Vec<f32>>, v: Vec<Vec<f32>>) -> Vec<Vec<f32>> {
	m.into_iter().zip(v).flat_map(|(m, v)| [m, v]).collect()
}

/// Adam's moments as the state holds them ([`interleave`]), each of its parameter's
/// length, and the steps taken.
pub fn moments_of(state: &TrainState) -> Result<Moments> {
	let fits = state.opt.len() == state.params.len().saturating_mul(2)
		&& state.params.iter().enumerate().all(|(i, p)| {
			(0..2).all(|k| state.opt.get(2 * i + k).is_some_and(|o| o.len() == p.len()))
		});
	if !fits {
		return Err(ReproError::StateMismatch);
	}
	let m = state.opt.iter().step_by(2).cloned().collect();
	let v = state.opt.iter().skip(1).step_by(2).cloned().collect();
	Ok(Moments { m, v, step: state.step })
}
