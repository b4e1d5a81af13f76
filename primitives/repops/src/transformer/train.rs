//! One training step over a model's tensors in state order: gradient-norm clipping
//! ([`clip`]), then AdamW (PyTorch's `AdamW`: each parameter decayed by
//! `1 - lr * weight_decay`, then Adam's update from its moments, every tensor alike).
//!
//! The step walks the tensors in the order given and each tensor in element order; each
//! element's update reads only its own values, so the order fixes nothing but the norm's
//! sum, which [`clip::squared_norm`] takes in that order.

use super::clip;
use crate::{optim, ReproError, Result};
use alloc::{vec, vec::Vec};

/// AdamW's and the clipping's settings.
#[derive(Clone, Copy, PartialEq, Debug)]
pub struct AdamW {
	/// Learning rate.
	pub lr: f32,
	/// First moment's decay.
	pub beta1: f32,
	/// Second moment's decay.
	pub beta2: f32,
	/// Adam's `eps`.
	pub eps: f32,
	/// Decoupled weight decay.
	pub weight_decay: f32,
	/// The gradients' largest global L2 norm.
	pub max_norm: f32,
}

/// Adam's moments, one pair of buffers per tensor, and the steps taken.
#[derive(Clone, PartialEq, Debug, Default)]
pub struct Moments {
	/// First moments.
	pub m: Vec<Vec<f32>>,
	/// Second moments.
	pub v: Vec<Vec<f32>>,
	/// Steps taken (PyTorch's `t - 1` for the next step).
	pub step: u64,
}

impl Moments {
	/// Zero moments for tensors of these lengths.
	pub fn zeros<'a>(tensors: impl IntoIterator<Item = &'a Vec<f32>>) -> Self {
		let m: Vec<Vec<f32>> = tensors.into_iter().map(|t| vec![0.0; t.len()]).collect();
		Moments { v: m.clone(), m, step: 0 }
	}
}

/// Clips `grads` to `h.max_norm` and applies one AdamW step to `params` (both in the
/// same state order); returns the clipping scale.
pub fn step(
	params: &mut [&mut Vec<f32>],
	grads: &mut [&mut Vec<f32>],
	moments: &mut Moments,
	h: &AdamW,
) -> Result<f32> {
	let fits = params.len() == grads.len()
		&& params.len() == moments.m.len()
		&& params.len() == moments.v.len()
		&& params.iter().zip(grads.iter()).all(|(p, g)| p.len() == g.len())
		&& params.iter().zip(&moments.m).all(|(p, m)| p.len() == m.len())
		&& params.iter().zip(&moments.v).all(|(p, v)| p.len() == v.len());
	if !fits {
		return Err(ReproError::StateMismatch);
	}
	let scale = clip::scale(clip::squared_norm(grads.iter().map(|g| g.as_slice())), h.max_norm);
	for g in grads.iter_mut() {
		clip::apply(g, scale);
	}
	let s = optim::adam_scalars(h.lr, h.beta1, h.beta2, h.eps, moments.step);
	let decay = optim::adamw_decay_factor(h.lr, h.weight_decay);
	let tensors = params.iter_mut().zip(grads.iter()).zip(moments.m.iter_mut().zip(&mut moments.v));
	for ((p, g), (m, v)) in tensors {
		for (((pi, gi), mi), vi) in p.iter_mut().zip(g.iter()).zip(m.iter_mut()).zip(v.iter_mut()) {
			*mi = optim::adam_m(h.beta1, *mi, *gi);
			*vi = optim::adam_v(h.beta2, *vi, *gi);
			*pi = optim::adam_param(&s, optim::adamw_decay(decay, *pi), *mi, *vi);
		}
	}
	moments.step += 1;
	Ok(scale)
}

#[cfg(test)]
mod tests {
	use super::*;
	use crate::transformer::lm::{self, Config, Params};

	const H: AdamW =
		AdamW { lr: 1e-2, beta1: 0.9, beta2: 0.99, eps: 1e-8, weight_decay: 0.01, max_norm: 1.0 };

	/// One element by hand: the clipped gradient, the moments, the decayed parameter.
	#[test]
	fn one_step_follows_adamw_after_clipping() {
		let (mut p, mut g) = (vec![vec![0.5f32, -1.0]], vec![vec![3.0f32, 4.0]]);
		let mut moments = Moments::zeros(&p);
		let scale = {
			let mut ps: Vec<&mut Vec<f32>> = p.iter_mut().collect();
			let mut gs: Vec<&mut Vec<f32>> = g.iter_mut().collect();
			step(&mut ps, &mut gs, &mut moments, &H).unwrap()
		};
		assert_eq!(scale, clip::scale(25.0, 1.0));
		let gc = 3.0f32 * scale;
		let m = optim::adam_m(H.beta1, 0.0, gc);
		let v = optim::adam_v(H.beta2, 0.0, gc);
		let s = optim::adam_scalars(H.lr, H.beta1, H.beta2, H.eps, 0);
		let decayed = optim::adamw_decay(optim::adamw_decay_factor(H.lr, H.weight_decay), 0.5);
		assert_eq!(p[0][0].to_bits(), optim::adam_param(&s, decayed, m, v).to_bits());
		assert_eq!((moments.m[0][0], moments.step), (m, 1));
		let mut short = vec![0.0f32];
		let mut gs = vec![&mut g[0]];
		assert_eq!(
			step(&mut [&mut short], &mut gs, &mut moments, &H),
			Err(ReproError::StateMismatch)
		);
	}

	/// A small model learns a fixed cycle of tokens: its loss falls far below an
	/// untrained model's `ln(vocab)`.
	#[test]
	fn a_small_model_learns_a_cycle() {
		let c = Config { vocab: 6, t: 8, d: 16, heads: 2, layers: 1, hidden: 32, eps: 1e-5 };
		let cycle = |i: usize| [0u32, 3, 1, 4, 2, 5][i % 6];
		let tokens: Vec<u32> = (0..2 * c.t).map(|i| cycle(i + i / c.t)).collect();
		let targets: Vec<u32> = (0..2 * c.t).map(|i| cycle(i + i / c.t + 1)).collect();
		let mut params = Params::init(&c, 3);
		let mut moments = Moments::zeros(params.tensors());
		let first = lm::forward(&c, &params, &tokens, &targets, 2, 1).unwrap().loss;
		let mut last = first;
		for _ in 0..60 {
			let f = lm::forward(&c, &params, &tokens, &targets, 2, 1).unwrap();
			last = f.loss;
			let mut grads = lm::backward(&c, &params, &f, &tokens, &targets, 2, 1).unwrap();
			let mut gs = grads.tensors_mut();
			step(&mut params.tensors_mut(), &mut gs, &mut moments, &H).unwrap();
		}
		assert!(first > 1.0, "untrained: {first}");
		assert!(last < 0.2 * first, "from {first} to {last}");
	}
}
