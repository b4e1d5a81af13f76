//! Threshold mode's distance: how far a solver's checkpoint lies from a verifier's
//! replay of the segment, as a share of the work the segment does.
//!
//! The work is what the segment's gradients move: the replay `R` less the optimizer's
//! carry `M`, the state the segment's steps reach with every gradient zero (momentum,
//! Adam's moments), which costs nothing to compute. So a checkpoint that skips the
//! gradients lies at 1 whatever the model's scale, its momentum, or an optimizer state
//! the solver inflated at the segment's start; an honest one lies at the engines'
//! rounding of that work. The parameters and each optimizer slot are measured apart
//! (their scales differ by orders of magnitude) and the largest share counts, so a
//! checkpoint's optimizer state is bound as its parameters are.

use crate::optim;
use crate::state::TrainState;
use crate::{ReproError, Result};
use alloc::vec::Vec;
use gensyn_primitives::{Optimizer, TrainingSpec};

/// The work is counted as at least this share of the replayed state's norm: where a
/// segment moves the state by less (a learning rate decayed to about nothing), the
/// engines' rounding, about 1e-7 of it, would otherwise be far from honest runs, while
/// a copy passes only where the segment moves the state by a few parts per million.
pub const WORK_FLOOR: f64 = 1e-4;

/// `start` carried `steps` steps on by the optimizer alone, every gradient zero, at the
/// learning rates of `t`'s schedule: SGD's momentum decays and moves the parameters;
/// Adam's moments decay and move them. The same element functions as a training step.
pub fn carry_forward(t: &TrainingSpec, start: &TrainState, steps: u64) -> TrainState {
	let mut s = start.clone();
	for step in start.step..start.step.saturating_add(steps) {
		let lr = optim::lr_at(t, step);
		match t.optimizer {
			Optimizer::Sgd { momentum, .. } => {
				let m = momentum.to_f32();
				for (p, buf) in s.params.iter_mut().zip(s.opt.iter_mut()) {
					for (p, b) in p.iter_mut().zip(buf.iter_mut()) {
						*b = optim::sgd_momentum(m, *b, 0.0);
						*p = optim::sgd_param(lr, *p, *b);
					}
				}
			}
			Optimizer::Adam { beta1, beta2, eps, .. } => {
				let (b1, b2) = (beta1.to_f32(), beta2.to_f32());
				let sc = optim::adam_scalars(lr, b1, b2, eps.to_f32(), step);
				for (i, p) in s.params.iter_mut().enumerate() {
					let (ms, vs) = s.opt.split_at_mut(2 * i + 1);
					let (Some(m), Some(v)) = (ms.get_mut(2 * i), vs.first_mut()) else {
						continue;
					};
					for ((p, m), v) in p.iter_mut().zip(m.iter_mut()).zip(v.iter_mut()) {
						*m = optim::adam_m(b1, *m, 0.0);
						*v = optim::adam_v(b2, *v, 0.0);
						*p = optim::adam_param(&sc, *p, *m, *v);
					}
				}
			}
		}
	}
	s.step = start.step.saturating_add(steps);
	s
}

/// The tensors of a state by kind: the parameters, then each optimizer slot (SGD's
/// momentum; Adam's first, then second moment), whose scales differ by orders of
/// magnitude and are measured apart.
fn groups(s: &TrainState) -> impl Iterator<Item = Vec<&[f32]>> + '_ {
	let slots = s.opt.len().checked_div(s.params.len()).unwrap_or(0);
	let params = s.params.iter().map(Vec::as_slice).collect();
	let opt =
		(0..slots).map(move |j| s.opt.iter().skip(j).step_by(slots).map(Vec::as_slice).collect());
	core::iter::once(params).chain(opt)
}

/// `‖a − b‖` over the tensors `a` and `b`, accumulated in f64 in order.
fn l2(a: &[&[f32]], b: &[&[f32]]) -> Result<f64> {
	if a.len() != b.len() {
		return Err(ReproError::StateMismatch);
	}
	let mut sum = 0f64;
	for (x, y) in a.iter().zip(b) {
		if x.len() != y.len() {
			return Err(ReproError::StateMismatch);
		}
		for (x, y) in x.iter().zip(y.iter()) {
			let d = f64::from(*x) - f64::from(*y);
			sum += d * d;
		}
	}
	Ok(libm::sqrt(sum))
}

/// `‖a‖` over the tensors `a`, accumulated in f64 in order.
fn norm(a: &[&[f32]]) -> f64 {
	let sum = a.iter().flat_map(|t| t.iter()).fold(0f64, |acc, x| {
		let x = f64::from(*x);
		acc + x * x
	});
	libm::sqrt(sum)
}

/// Threshold mode's distance of `claimed` (the solver's checkpoint) from `replayed` (a
/// replay of the segment from `start` under `t`): for the parameters and for each
/// optimizer slot, `‖R − C‖ / max(‖R − M‖, WORK_FLOOR · ‖R‖)` with `M` the optimizer's
/// carry ([`carry_forward`]); the largest of these. Zero when the two agree; infinite
/// when they differ where the replayed state is all zeros and did no work.
pub fn relative_distance(
	t: &TrainingSpec,
	start: &TrainState,
	replayed: &TrainState,
	claimed: &TrainState,
) -> Result<f64> {
	if replayed.params.len() != claimed.params.len() || replayed.opt.len() != claimed.opt.len() {
		return Err(ReproError::StateMismatch);
	}
	let carried = carry_forward(t, start, replayed.step.saturating_sub(start.step));
	let mut worst = 0f64;
	for ((r, c), m) in groups(replayed).zip(groups(claimed)).zip(groups(&carried)) {
		let off = l2(&r, &c)?;
		let work = l2(&r, &m)?;
		let scale = WORK_FLOOR * norm(&r);
		let work = if work > scale { work } else { scale };
		let d = if off == 0.0 {
			0.0
		} else if work > 0.0 {
			off / work
		} else {
			f64::INFINITY
		};
		// `max` would drop a NaN; a NaN state never passes.
		if d > worst || d.is_nan() {
			worst = d;
		}
	}
	Ok(worst)
}
