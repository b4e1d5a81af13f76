//! Threshold mode's distance: how far a solver's checkpoint lies from a verifier's
//! replay of the segment, as a share of the work the segment does.
//!
//! The work is what the segment's gradients move: the replay `R` less the optimizer's
//! carry `M`, the state the segment's steps reach with every gradient zero (momentum,
//! Adam's moments), which costs nothing to compute. So a checkpoint that skips the
//! gradients lies at 1 (further where the segment does almost no work) whatever the
//! model's scale, its momentum, an optimizer state the solver inflated at the
//! segment's start, or parameters it made huge and inert there (a dead unit moves in
//! neither `R` nor `M`); an honest one lies at the engines' rounding of that work.
//! The parameters and each optimizer slot are measured apart (their scales differ by
//! orders of magnitude) and the largest share counts, so a checkpoint's optimizer
//! state is bound as its parameters are.

use crate::optim;
use crate::state::TrainState;
use crate::{ReproError, Result};
use alloc::vec::Vec;
use gensyn_primitives::{Optimizer, TaskSpec, TrainingSpec};

/// The parameters' work is counted as at least this share of the norm of the task's
/// seeded initial parameters, a scale the solver cannot choose: where a segment moves
/// them by less (a learning rate decayed to about nothing), the engines' rounding would
/// otherwise be far from honest runs, while a fake then passes only where the segment
/// moves the parameters by a few parts per million of that scale.
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

/// The decay each optimizer slot carries its value into the next step with: SGD's
/// momentum; Adam's `beta1` and `beta2`.
fn slot_decays(optimizer: &Optimizer) -> [f32; 2] {
	match *optimizer {
		Optimizer::Sgd { momentum, .. } => [momentum.to_f32(), 0.0],
		Optimizer::Adam { beta1, beta2, .. } => [beta1.to_f32(), beta2.to_f32()],
	}
}

/// Threshold mode's distance of `claimed` (the solver's checkpoint) from `replayed` (a
/// replay of the segment of `spec` from `start`), the largest of:
/// - for the parameters, `‖R − C‖ / max(‖R − M‖, WORK_FLOOR · ‖θ₀‖)`, with `M` the
///   optimizer's carry ([`carry_forward`]) and `θ₀` the task's seeded initial
///   parameters;
/// - for each optimizer slot that carries its value into the next step (a decay above
///   zero; one that does not holds only the last step's gradient, which the parameters
///   already answer for), `‖R − C‖ / ‖R − M‖`.
///
/// Zero where the two agree; infinite where they differ and the segment did no work,
/// or where the carry is not finite (an optimizer state no honest run reaches).
pub fn relative_distance(
	spec: &TaskSpec,
	start: &TrainState,
	replayed: &TrainState,
	claimed: &TrainState,
) -> Result<f64> {
	if replayed.params.len() != claimed.params.len() || replayed.opt.len() != claimed.opt.len() {
		return Err(ReproError::StateMismatch);
	}
	let steps = replayed.step.saturating_sub(start.step);
	let carried = carry_forward(&spec.training, start, steps);
	let initial = crate::model::init_state(spec)?;
	let initial: Vec<&[f32]> = initial.params.iter().map(Vec::as_slice).collect();
	let param_floor = WORK_FLOOR * norm(&initial);
	let decays = slot_decays(&spec.training.optimizer);
	let mut worst = 0f64;
	let groups = groups(replayed).zip(groups(claimed)).zip(groups(&carried)).enumerate();
	for (i, ((r, c), m)) in groups {
		let floor = match i.checked_sub(1) {
			None => param_floor,
			Some(slot) if decays.get(slot).is_some_and(|d| *d > 0.0) => 0.0,
			Some(_) => continue,
		};
		let off = l2(&r, &c)?;
		let work = l2(&r, &m)?;
		let work = if work > floor { work } else { floor };
		let d = if off == 0.0 {
			0.0
		} else if work > 0.0 && work.is_finite() {
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
