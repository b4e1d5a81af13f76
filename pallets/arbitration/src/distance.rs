//! The game over a Threshold-mode distance. The distance is a function of a few sums of
//! squares over three committed states (the verifier's replay, whose root its verdict
//! posted, and the solver's checkpoints at the segment's start and end), each summed
//! in one fixed order (`gensyn_repops::threshold`). The defendant posts the sums, which
//! must give its posted distance; the challenger names one it disputes; the two bisect
//! that sum's accumulators down to one term, whose values the defendant proves under
//! their states' roots and the chain computes.

use crate::*;
use gensyn_repops::threshold::{self as thr, Sum, TermAt, TermValues};

impl<T: Config> Pallet<T> {
	/// `choose`: the challenger of a Threshold-mode verdict names what it disputes.
	pub(crate) fn do_choose(
		origin: OriginFor<T>,
		task: TaskId,
		segment: u32,
		subject: Subject,
	) -> DispatchResult {
		let (key, mut d) = Self::turn_of(origin, task, segment, Party::Challenger)?;
		ensure!(d.stage == Stage::Choose, Error::<T>::WrongStage);
		d.stage = match subject {
			Subject::Replay => Stage::Start,
			Subject::Distance => Stage::Sums,
		};
		Self::advance(key, d, Party::Challenger, Party::Defendant)
	}

	/// `post_sums`: at `Sums`, the distance's sums, which must give the posted distance;
	/// in a sum's bisection, its accumulators at the dissection points.
	pub(crate) fn do_post_sums(
		origin: OriginFor<T>,
		task: TaskId,
		segment: u32,
		values: BoundedVec<u64, ConstU32<MAX_POINTS>>,
	) -> DispatchResult {
		let (key, mut d) = Self::turn_of(origin, task, segment, Party::Defendant)?;
		ensure!(d.posted == Posted::Nothing, Error::<T>::WrongStage);
		// One bit pattern per value: a NaN of another payload would differ from the
		// challenger's NaN at a pick, yet equal it at the ruling.
		let canonical = values.iter().all(|v| thr::canonical(f64::from_bits(*v)) == *v);
		ensure!(canonical, Error::<T>::NotCanonical);
		match d.stage {
			Stage::Sums => {
				let ctx = T::Subjects::context(task, segment).ok_or(Error::<T>::NoSubject)?;
				let claimed = ctx.claimed_distance.ok_or(Error::<T>::WrongStage)?;
				let sums: Vec<f64> = values.iter().map(|b| f64::from_bits(*b)).collect();
				let distance =
					thr::distance_from_sums(&ctx.spec, &sums).ok_or(Error::<T>::WrongPointCount)?;
				let posted = gensyn_primitives::verdict::posted_distance(distance);
				ensure!(
					thr::canonical(f64::from(posted))
						== thr::canonical(f64::from(f32::from_bits(claimed))),
					Error::<T>::SumsDisagree
				);
			}
			Stage::Sum { lo, hi, .. } => {
				ensure!(hi > lo.saturating_add(1), Error::<T>::WrongStage);
				let points = geo::dissection_points(lo, hi, MAX_POINTS);
				ensure!(points.len() == values.len(), Error::<T>::WrongPointCount);
			}
			_ => return Err(Error::<T>::WrongStage.into()),
		}
		d.posted = Posted::Sums(values);
		Self::advance(key, d, Party::Defendant, Party::Challenger)
	}

	/// The challenger's pick among posted sums (the one it disputes) or accumulators (the
	/// interval it disputes); the stage it leads to.
	pub(crate) fn pick_sum(
		d: &Dispute<T>,
		key: DisputeKey,
		posted: &[u64],
		index: u32,
	) -> Result<Stage, DispatchError> {
		match d.stage {
			Stage::Sums => {
				let ctx = T::Subjects::context(key.0, key.1).ok_or(Error::<T>::NoSubject)?;
				let sum =
					*thr::sums_of(&ctx.spec).get(index as usize).ok_or(Error::<T>::BadPick)?;
				let hi_acc = *posted.get(index as usize).ok_or(Error::<T>::BadPick)?;
				let hi = thr::sum_len(&ctx.spec, sum);
				ensure!(hi > 0, Error::<T>::BadPick);
				Ok(Stage::Sum { sum: index, lo: 0, hi, lo_acc: 0f64.to_bits(), hi_acc })
			}
			Stage::Sum { sum, lo, hi, lo_acc, hi_acc } => {
				let (lo, hi, lo_acc, hi_acc) =
					Self::picked((lo, hi), (lo_acc, hi_acc), posted, index)?;
				Ok(Stage::Sum { sum, lo, hi, lo_acc, hi_acc })
			}
			_ => Err(Error::<T>::WrongStage.into()),
		}
	}

	/// `open_sum_term`: the defendant proves the values the one disputed term reads;
	/// the chain computes the term and rules on the accumulator after it.
	pub(crate) fn do_open_sum_term(
		origin: OriginFor<T>,
		task: TaskId,
		segment: u32,
		proof: SumTerm,
		segment_steps: u32,
	) -> DispatchResult {
		let (key, d) = Self::turn_of(origin, task, segment, Party::Defendant)?;
		let Stage::Sum { sum, lo, hi, lo_acc, hi_acc } = d.stage else {
			return Err(Error::<T>::WrongStage.into());
		};
		ensure!(hi == lo.saturating_add(1), Error::<T>::WrongStage);
		let ctx = T::Subjects::context(task, segment).ok_or(Error::<T>::NoSubject)?;
		let spec = &ctx.spec;
		let kind = *thr::sums_of(spec).get(sum as usize).ok_or(Error::<T>::BadGraph)?;
		// Only a work sum's term carries the optimizer over the segment's steps.
		if let Sum::Work(_) = kind {
			ensure!(
				d.steps <= u64::from(segment_steps) && d.steps <= MAX_CARRY_STEPS,
				Error::<T>::TooManySteps
			);
		}
		let at = thr::term_at(spec, kind, lo).ok_or(Error::<T>::ElementOutOfRange)?;
		let values = Self::term_values((&d, segment), spec, kind, &at, &proof)?;
		let steps = if let Sum::Work(_) = kind { d.steps } else { 0 };
		let carry = thr::Carry::new(&spec.training, d.first_step, steps);
		let term = thr::term(spec, kind, &at, &carry, &values).map_err(|e| match e {
			gensyn_repops::ReproError::MissingOperand => Error::<T>::MissingOperand,
			_ => Error::<T>::BadGraph,
		})?;
		let before = if lo == 0 { 0.0 } else { f64::from_bits(lo_acc) };
		let after = thr::canonical(before + term);
		Self::rule(key, d, after != thr::canonical(f64::from_bits(hi_acc)), Ruling::SumComputed)
	}

	/// The values term `at` of `sum` reads, each checked under its state's root: the
	/// replay's under the verdict's root, the checkpoints' under the solver's
	/// checkpoint root (leaf `segment` at the start, `segment + 1` at the end).
	fn term_values(
		(d, segment): (&Dispute<T>, u32),
		spec: &TaskSpec,
		sum: Sum,
		at: &TermAt,
		proof: &SumTerm,
	) -> Result<TermValues, Error<T>> {
		let (tensors, slots) = thr::state_tensors(spec);
		let sizes = graph::param_shapes(spec);
		let numel = sizes
			.get(at.param as usize)
			.ok_or(Error::<T>::BadGraph)?
			.iter()
			.fold(1u64, |n, x| n.saturating_mul(u64::from(*x)));
		let value = |root: &Hash32, tensor: u32, v: &StateValue| -> Result<f32, Error<T>> {
			let leaf = gensyn_primitives::MerkleProof {
				leaf_index: tensor.saturating_add(1),
				leaf_count: tensors.saturating_add(1),
				siblings: v.tensor_siblings.to_vec(),
			};
			let under = gensyn_primitives::merkle::verify_proof(root, &v.tensor_root, &leaf);
			let (chunk, within) = geo::chunk_of(at.elem);
			let floats: Vec<f32> = v.values.iter().map(|b| f32::from_bits(*b)).collect();
			let proven =
				geo::verify_tensor_chunk(&v.tensor_root, numel, chunk, &floats, &v.siblings);
			ensure!(under && proven, Error::<T>::BadOpening);
			floats.get(within).copied().ok_or(Error::<T>::BadOpening)
		};
		let checkpoint = |c: &CheckpointValues, leaf_index: u32| -> Result<(), Error<T>> {
			let leaf = gensyn_primitives::MerkleProof {
				leaf_index,
				leaf_count: d.checkpoints,
				siblings: c.siblings.to_vec(),
			};
			let ok =
				gensyn_primitives::merkle::verify_proof(&d.checkpoint_root, &c.state_root, &leaf);
			ensure!(ok, Error::<T>::BadStartProof);
			Ok(())
		};
		let mut v = TermValues::default();
		if matches!(sum, Sum::Off(_) | Sum::Work(_)) {
			let r = proof.replayed.as_ref().ok_or(Error::<T>::MissingOperand)?;
			v.replayed = Some(value(&d.claimed_root, at.tensor, r)?);
		}
		if let Sum::Off(_) = sum {
			let c = proof.claimed.as_ref().ok_or(Error::<T>::MissingOperand)?;
			checkpoint(c, segment.saturating_add(1))?;
			let first = c.values.first().ok_or(Error::<T>::MissingOperand)?;
			v.claimed = Some(value(&c.state_root, at.tensor, first)?);
		}
		if let (Sum::Work(_), 0) = (sum, d.first_step) {
			// The task's first segment starts from its seeded initial state, as every
			// replay of it does, whatever the solver committed as its first checkpoint.
			let kind = TensorKind::Param(at.param);
			let p = model::initial_value(spec, kind, at.elem).ok_or(Error::<T>::BadGraph)?;
			v.start = Some((p.map_err(|_| Error::<T>::BadGraph)?, [0.0; 2]));
		} else if let Sum::Work(_) = sum {
			let s = proof.start.as_ref().ok_or(Error::<T>::MissingOperand)?;
			checkpoint(s, segment)?;
			ensure!(s.values.len() as u32 == slots.saturating_add(1), Error::<T>::MissingOperand);
			let params = sizes.len() as u32;
			let mut held = [0f32; 2];
			let mut param = 0f32;
			for (i, sv) in s.values.iter().enumerate() {
				let tensor = match (i as u32).checked_sub(1) {
					None => at.param,
					Some(j) => {
						params.saturating_add(at.param.saturating_mul(slots)).saturating_add(j)
					}
				};
				let x = value(&s.state_root, tensor, sv)?;
				match i.checked_sub(1) {
					None => param = x,
					Some(j) => *held.get_mut(j).ok_or(Error::<T>::MissingOperand)? = x,
				}
			}
			v.start = Some((param, held));
		}
		Ok(v)
	}
}
