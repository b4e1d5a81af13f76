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
//!
//! The distance is a function of a few sums of squares ([`Sum`]), each accumulated in
//! f64 in one fixed order (tensor by tensor, element by element), so that the pinpoint
//! game can bisect any of them down to one term, which the chain computes from values
//! proven under the states' roots ([`term_at`], [`Carry`], [`square`]).

use crate::graph::{opt_slots, param_shapes};
use crate::optim::{self, AdamScalars};
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

/// The optimizer's carry over a run of steps, element by element: what a parameter and
/// its optimizer slots become when every gradient is zero. The per-step scalars are
/// computed once; [`Carry::apply`] is the one rule for one element, which the chain
/// evaluates for a single term and [`carry_forward`] for a whole state.
#[derive(Clone, Debug)]
pub enum Carry {
	/// SGD: the momentum and each step's learning rate.
	Sgd {
		/// Momentum.
		momentum: f32,
		/// Learning rate of each step.
		lrs: Vec<f32>,
	},
	/// Adam: the moments' decays and each step's scalars.
	Adam {
		/// First-moment decay.
		beta1: f32,
		/// Second-moment decay.
		beta2: f32,
		/// Scalars of each step.
		steps: Vec<AdamScalars>,
		/// AdamW: each step's decay factor (`1 - lr * weight_decay`), applied to the
		/// parameter before the step's update; empty for Adam.
		decays: Vec<f32>,
	},
}

impl Carry {
	/// The carry over global steps `from..from + steps` of `t`'s schedule. The caller
	/// bounds `steps` (a segment's length).
	pub fn new(t: &TrainingSpec, from: u64, steps: u64) -> Self {
		let range = from..from.saturating_add(steps);
		match t.optimizer {
			Optimizer::Sgd { momentum, .. } => Carry::Sgd {
				momentum: momentum.to_f32(),
				lrs: range.map(|s| optim::lr_at(t, s)).collect(),
			},
			Optimizer::Adam { beta1, beta2, eps, .. } => {
				let (b1, b2, e) = (beta1.to_f32(), beta2.to_f32(), eps.to_f32());
				let steps =
					range.map(|s| optim::adam_scalars(optim::lr_at(t, s), b1, b2, e, s)).collect();
				Carry::Adam { beta1: b1, beta2: b2, steps, decays: Vec::new() }
			}
			// Every gradient zero, the clipping scale is one and leaves them zero.
			Optimizer::AdamW { beta1, beta2, eps, weight_decay, .. } => {
				let (b1, b2, e, wd) =
					(beta1.to_f32(), beta2.to_f32(), eps.to_f32(), weight_decay.to_f32());
				let lrs: Vec<f32> = range.clone().map(|s| optim::lr_at(t, s)).collect();
				let decays = lrs.iter().map(|lr| optim::adamw_decay_factor(*lr, wd)).collect();
				let steps =
					range.zip(&lrs).map(|(s, lr)| optim::adam_scalars(*lr, b1, b2, e, s)).collect();
				Carry::Adam { beta1: b1, beta2: b2, steps, decays }
			}
		}
	}

	/// Parameter `p` with its optimizer slots (SGD's momentum in `slots[0]`; Adam's `m`
	/// and `v`) carried over the steps.
	pub fn apply(&self, mut p: f32, mut slots: [f32; 2]) -> (f32, [f32; 2]) {
		match self {
			Carry::Sgd { momentum, lrs } => {
				for lr in lrs {
					slots[0] = optim::sgd_momentum(*momentum, slots[0], 0.0);
					p = optim::sgd_param(*lr, p, slots[0]);
				}
			}
			Carry::Adam { beta1, beta2, steps, decays } => {
				for (i, sc) in steps.iter().enumerate() {
					if let Some(f) = decays.get(i) {
						p = optim::adamw_decay(*f, p);
					}
					slots[0] = optim::adam_m(*beta1, slots[0], 0.0);
					slots[1] = optim::adam_v(*beta2, slots[1], 0.0);
					p = optim::adam_param(sc, p, slots[0], slots[1]);
				}
			}
		}
		(p, slots)
	}
}

/// `start` carried `steps` steps on by the optimizer alone, every gradient zero, at the
/// learning rates of `t`'s schedule: SGD's momentum decays and moves the parameters;
/// Adam's moments decay and move them. The same element functions as a training step.
pub fn carry_forward(t: &TrainingSpec, start: &TrainState, steps: u64) -> TrainState {
	let carry = Carry::new(t, start.step, steps);
	let slots = start.opt.len().checked_div(start.params.len()).unwrap_or(0).min(2);
	let mut s = start.clone();
	for (i, p) in s.params.iter_mut().enumerate() {
		for (e, p) in p.iter_mut().enumerate() {
			let mut held = [0f32; 2];
			for (j, h) in held.iter_mut().enumerate().take(slots) {
				*h = start.opt.get(i * slots + j).and_then(|o| o.get(e)).copied().unwrap_or(0.0);
			}
			let (q, out) = carry.apply(*p, held);
			*p = q;
			for (j, v) in out.iter().enumerate().take(slots) {
				if let Some(o) = s.opt.get_mut(i * slots + j).and_then(|o| o.get_mut(e)) {
					*o = *v;
				}
			}
		}
	}
	s.step = start.step.saturating_add(steps);
	s
}

/// The decay each optimizer slot carries its value into the next step with: SGD's
/// momentum; Adam's (and AdamW's) `beta1` and `beta2`.
fn slot_decays(optimizer: &Optimizer) -> [f32; 2] {
	match *optimizer {
		Optimizer::Sgd { momentum, .. } => [momentum.to_f32(), 0.0],
		Optimizer::Adam { beta1, beta2, .. } | Optimizer::AdamW { beta1, beta2, .. } => {
			[beta1.to_f32(), beta2.to_f32()]
		}
	}
}

/// The groups of a state's tensors a distance measures: `0` the parameters, `1 + j`
/// optimizer slot `j` where it carries its value into the next step (a decay above
/// zero; one that does not holds only the last step's gradient, which the parameters
/// already answer for).
pub fn measured_groups(spec: &TaskSpec) -> Vec<u32> {
	let decays = slot_decays(&spec.training.optimizer);
	let slots = opt_slots(&spec.training.optimizer) as u32;
	let carried = (0..slots).filter(|j| decays.get(*j as usize).is_some_and(|d| *d > 0.0));
	core::iter::once(0).chain(carried.map(|j| j + 1)).collect()
}

/// One sum a distance is computed from: `Σ (a − b)²` over a group's elements in state
/// order, accumulated in f64 from zero.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Sum {
	/// `Σ θ₀²` over the task's seeded initial parameters (the floor's scale).
	Initial,
	/// `Σ (R − C)²` over a measured group: the replay against the solver's checkpoint.
	Off(u32),
	/// `Σ (R − M)²` over a measured group: the replay against the carry (the work).
	Work(u32),
}

/// The sums of `spec`'s distance in the order a verifier posts them: [`Sum::Initial`],
/// then [`Sum::Off`] and [`Sum::Work`] of each measured group.
pub fn sums_of(spec: &TaskSpec) -> Vec<Sum> {
	let groups = measured_groups(spec);
	let pairs = groups.iter().flat_map(|g| [Sum::Off(*g), Sum::Work(*g)]);
	core::iter::once(Sum::Initial).chain(pairs).collect()
}

/// Where one term of a sum lies: tensor `tensor` of the state (parameters, then
/// optimizer slots), which belongs to parameter `param`, element `elem`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct TermAt {
	/// The state tensor (`TrainState::root`'s leaf `tensor + 1`).
	pub tensor: u32,
	/// The parameter tensor it belongs to.
	pub param: u32,
	/// The element.
	pub elem: u64,
}

/// The group a sum runs over.
fn group_of(sum: Sum) -> u32 {
	match sum {
		Sum::Initial => 0,
		Sum::Off(g) | Sum::Work(g) => g,
	}
}

/// The tensors of `state` in `group`: its parameters (0), or optimizer slot `group - 1`
/// of each parameter (slots are stored parameter by parameter).
fn group_tensors(state: &TrainState, group: u32) -> Vec<&[f32]> {
	let Some(slot) = group.checked_sub(1) else {
		return state.params.iter().map(Vec::as_slice).collect();
	};
	let slots = state.opt.len().checked_div(state.params.len()).unwrap_or(0).max(1);
	state.opt.iter().skip(slot as usize).step_by(slots).map(Vec::as_slice).collect()
}

/// Tensors in `spec`'s state, and its optimizer slots per parameter.
pub fn state_tensors(spec: &TaskSpec) -> (u32, u32) {
	let params = param_shapes(spec).len() as u32;
	let slots = opt_slots(&spec.training.optimizer) as u32;
	(params.saturating_mul(slots.saturating_add(1)), slots)
}

/// The elements of each parameter tensor of `spec`.
fn param_sizes(spec: &TaskSpec) -> impl Iterator<Item = u64> {
	param_shapes(spec).into_iter().map(|s| s.iter().fold(1u64, |n, d| n.saturating_mul(*d as u64)))
}

/// Terms in `sum` (its group's elements; none for a group the state has not).
pub fn sum_len(spec: &TaskSpec, sum: Sum) -> u64 {
	if group_of(sum) > state_tensors(spec).1 {
		return 0;
	}
	param_sizes(spec).fold(0u64, |n, s| n.saturating_add(s))
}

/// Where term `j` of `sum` lies, or `None` past its end.
pub fn term_at(spec: &TaskSpec, sum: Sum, j: u64) -> Option<TermAt> {
	let (_, slots) = state_tensors(spec);
	let group = group_of(sum);
	if group > slots {
		return None;
	}
	let params = param_shapes(spec).len() as u32;
	let mut rest = j;
	for (param, size) in param_sizes(spec).enumerate() {
		let param = param as u32;
		if rest < size {
			let tensor = match group.checked_sub(1) {
				None => param,
				Some(slot) => {
					params.saturating_add(param.saturating_mul(slots)).saturating_add(slot)
				}
			};
			return Some(TermAt { tensor, param, elem: rest });
		}
		rest -= size;
	}
	None
}

/// One term: `(a − b)²` in f64.
pub fn square(a: f32, b: f32) -> f64 {
	let d = f64::from(a) - f64::from(b);
	d * d
}

/// The values one term reads, as the pinpoint game's defendant proves them: the
/// replay's and the solver's checkpoint's value at the term's element, and the
/// segment's start there (the parameter and its optimizer slots, for the carry).
#[derive(Clone, Copy, PartialEq, Debug, Default)]
pub struct TermValues {
	/// `R` at the element (off and work sums).
	pub replayed: Option<f32>,
	/// `C` at the element (off sums).
	pub claimed: Option<f32>,
	/// The start's parameter and optimizer slots at the element (work sums).
	pub start: Option<(f32, [f32; 2])>,
}

/// Term `at` of `sum` of `spec`'s distance from the values it reads, with `carry` the
/// segment's ([`Carry::new`] from its first step over its steps); the initial
/// parameter comes from the seed. `MissingOperand` when a value it reads is absent.
pub fn term(spec: &TaskSpec, sum: Sum, at: &TermAt, carry: &Carry, v: &TermValues) -> Result<f64> {
	let missing = ReproError::MissingOperand;
	match sum {
		Sum::Initial => {
			let kind = crate::graph::TensorKind::Param(at.param);
			let x = crate::model::initial_value(spec, kind, at.elem).ok_or(missing)??;
			Ok(square(x, 0.0))
		}
		Sum::Off(_) => Ok(square(v.replayed.ok_or(missing)?, v.claimed.ok_or(missing)?)),
		Sum::Work(g) => {
			let (p, slots) = v.start.ok_or(missing)?;
			let (p, slots) = carry.apply(p, slots);
			let m = match g.checked_sub(1) {
				None => p,
				Some(j) => *slots.get(j as usize).ok_or(ReproError::OutOfRange)?,
			};
			Ok(square(v.replayed.ok_or(missing)?, m))
		}
	}
}

/// An accumulator's bits as the game compares them: every NaN alike, since hosts need
/// not agree on a NaN's payload.
pub fn canonical(x: f64) -> u64 {
	if x.is_nan() {
		f64::NAN.to_bits()
	} else {
		x.to_bits()
	}
}

/// The distance from its sums (in [`sums_of`]'s order), the largest of:
/// - for the parameters, `‖R − C‖ / max(‖R − M‖, WORK_FLOOR · ‖θ₀‖)`;
/// - for each other measured group, `‖R − C‖ / ‖R − M‖`.
///
/// Zero where the two agree; infinite where they differ and the segment did no work,
/// or where the carry is not finite (an optimizer state no honest run reaches).
/// `None` when the sums are not as many as `spec`'s.
pub fn distance_from_sums(spec: &TaskSpec, sums: &[f64]) -> Option<f64> {
	let order = sums_of(spec);
	if order.len() != sums.len() {
		return None;
	}
	let initial = sums.first().copied()?;
	let param_floor = WORK_FLOOR * libm::sqrt(initial);
	let mut worst = 0f64;
	for pair in order.iter().zip(sums).skip(1).collect::<Vec<_>>().chunks(2) {
		let [(Sum::Off(g), off), (Sum::Work(_), work)] = pair else { return None };
		let floor = if *g == 0 { param_floor } else { 0.0 };
		let (off, work) = (libm::sqrt(**off), libm::sqrt(**work));
		// A NaN work (a carry no honest run reaches) stays NaN, so it never passes.
		let work = if work > floor || work.is_nan() { work } else { floor };
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
	Some(worst)
}

/// The states one distance is measured over, with the carry and the seeded initial
/// state computed once: what a verifier, a whistleblower and the game's players
/// compute sums and partial sums from.
pub struct Measured<'a> {
	replayed: &'a TrainState,
	claimed: &'a TrainState,
	carried: TrainState,
	initial: TrainState,
	order: Vec<Sum>,
}

impl<'a> Measured<'a> {
	/// The distance of `claimed` (the solver's checkpoint) from `replayed` (a replay of
	/// the segment of `spec` from `start`).
	pub fn new(
		spec: &TaskSpec,
		start: &TrainState,
		replayed: &'a TrainState,
		claimed: &'a TrainState,
	) -> Result<Self> {
		for s in [start, replayed, claimed] {
			crate::model::check_state(spec, s)?;
		}
		let steps = replayed.step.saturating_sub(start.step);
		let carried = carry_forward(&spec.training, start, steps);
		let initial = crate::model::init_state(spec)?;
		Ok(Measured { replayed, claimed, carried, initial, order: sums_of(spec) })
	}

	/// The two sides of `sum`'s terms, tensor by tensor.
	fn sides(&self, sum: Sum) -> (Vec<&[f32]>, Option<Vec<&[f32]>>) {
		let group = group_of(sum);
		match sum {
			Sum::Initial => (group_tensors(&self.initial, 0), None),
			Sum::Off(_) => {
				(group_tensors(self.replayed, group), Some(group_tensors(self.claimed, group)))
			}
			Sum::Work(_) => {
				(group_tensors(self.replayed, group), Some(group_tensors(&self.carried, group)))
			}
		}
	}

	/// The accumulator of `sum` after each of `points` terms (ascending).
	pub fn partials(&self, sum: Sum, points: &[u64]) -> Vec<f64> {
		let (a, b) = self.sides(sum);
		let b_flat = b.as_ref().map(|b| b.iter().flat_map(|t| t.iter()));
		let mut b_iter: alloc::boxed::Box<dyn Iterator<Item = &f32>> = match b_flat {
			Some(it) => alloc::boxed::Box::new(it),
			None => alloc::boxed::Box::new(core::iter::repeat(&0.0f32)),
		};
		let mut out = Vec::with_capacity(points.len());
		let mut wanted = points.iter().peekable();
		let mut acc = 0f64;
		let mut n = 0u64;
		for x in a.iter().flat_map(|t| t.iter()) {
			while wanted.next_if(|p| **p == n).is_some() {
				out.push(acc);
			}
			let y = b_iter.next().copied().unwrap_or(0.0);
			acc = acc + square(*x, y);
			n += 1;
		}
		while wanted.next_if(|p| **p == n).is_some() {
			out.push(acc);
		}
		out
	}

	/// Every sum, in [`sums_of`]'s order.
	pub fn sums(&self) -> Vec<f64> {
		let total = |s: Sum| self.sides(s).0.iter().map(|t| t.len() as u64).sum::<u64>();
		let last = |s: Sum| self.partials(s, &[total(s)]).first().copied().unwrap_or(0.0);
		self.order.iter().map(|s| last(*s)).collect()
	}

	/// The sums' order.
	pub fn order(&self) -> &[Sum] {
		&self.order
	}
}

/// Threshold mode's distance of `claimed` (the solver's checkpoint) from `replayed` (a
/// replay of the segment of `spec` from `start`): [`distance_from_sums`] over the
/// sums [`Measured`] accumulates, with `M` the optimizer's carry ([`carry_forward`])
/// and `θ₀` the task's seeded initial parameters.
pub fn relative_distance(
	spec: &TaskSpec,
	start: &TrainState,
	replayed: &TrainState,
	claimed: &TrainState,
) -> Result<f64> {
	let m = Measured::new(spec, start, replayed, claimed)?;
	distance_from_sums(spec, &m.sums()).ok_or(ReproError::StateMismatch)
}
