//! The honest moves of the game over a Threshold-mode distance, from a player's own
//! replay of the segment (its first state the segment's start, its last the replay's
//! end) and the solver's checkpoint at the segment's end.

use super::{bounded, CheckpointLeaves, Result, Run};
use crate::{Call, CheckpointValues, Config, Stage, StateValue, SumTerm, MAX_POINTS};
use alloc::vec::Vec;
use gensyn_primitives::merkle;
use gensyn_repops::{
	dispute as geo,
	state::TrainState,
	threshold::{self as thr, Measured},
	ReproError,
};

/// The distance measured over `run`'s `segment` and `claimed`.
fn measured<'a>(run: &'a Run, segment: u32, claimed: &'a TrainState) -> Result<Measured<'a>> {
	let (start, end) = run.segment_ends(segment)?;
	Measured::new(&run.spec, start, end, claimed)
}

/// What a player posts at `stage`: the sums, or a sum's accumulators at the
/// dissection points (canonical f64 bits).
fn values(m: &Measured, stage: Stage) -> Result<Vec<u64>> {
	let values = match stage {
		Stage::Sums => m.sums(),
		Stage::Sum { sum, lo, hi, .. } => {
			let kind = *m.order().get(sum as usize).ok_or(ReproError::OutOfRange)?;
			m.partials(kind, &geo::dissection_points(lo, hi, MAX_POINTS))
		}
		_ => return Err(ReproError::OutOfRange),
	};
	Ok(values.into_iter().map(thr::canonical).collect())
}

/// The honest challenger's pick among posted sums or accumulators; `None` when it
/// agrees with every sum (nothing to dispute).
pub fn challenge(
	run: &Run,
	(segment, claimed): (u32, &TrainState),
	stage: Stage,
	posted: &[u64],
) -> Result<Option<u32>> {
	let m = measured(run, segment, claimed)?;
	let truth = values(&m, stage)?;
	let posted: Vec<u64> = posted.iter().map(|v| thr::canonical(f64::from_bits(*v))).collect();
	let first = super::first_difference(&posted, &truth);
	Ok(match stage {
		Stage::Sums if first as usize >= posted.len() => None,
		_ => Some(first),
	})
}

/// The honest defendant's move at a stage of the distance game; `None` when its own
/// distance is not the one its verdict posted (it cannot defend it).
pub fn defend<T: Config>(
	run: &Run,
	claimed: &TrainState,
	leaves: &(impl CheckpointLeaves + ?Sized),
	table: &super::Table,
) -> Result<Option<Call<T>>> {
	let (task, segment) = (table.task, table.segment);
	let m = measured(run, segment, claimed)?;
	let call = match table.stage {
		Stage::Sums => {
			let sums = m.sums();
			let d = thr::distance_from_sums(&run.spec, &sums).ok_or(ReproError::OutOfRange)?;
			let mine = f64::from(gensyn_primitives::verdict::posted_distance(d));
			if thr::canonical(mine) != thr::canonical(f64::from(f32::from_bits(table.verdict.1))) {
				return Ok(None);
			}
			Call::post_sums { task, segment, values: bounded(values(&m, table.stage)?)? }
		}
		Stage::Sum { sum, lo, hi, .. } if hi == lo.saturating_add(1) => {
			let kind = *m.order().get(sum as usize).ok_or(ReproError::OutOfRange)?;
			let at = thr::term_at(&run.spec, kind, lo).ok_or(ReproError::OutOfRange)?;
			let proof = term_proof(run, claimed, leaves, segment, kind, &at)?;
			let (start, end) = run.segment_ends(segment)?;
			let steps = u32::try_from(end.step.saturating_sub(start.step))
				.map_err(|_| ReproError::OutOfRange)?;
			Call::open_sum_term {
				task,
				segment,
				proof: alloc::boxed::Box::new(proof),
				segment_steps: steps,
			}
		}
		Stage::Sum { .. } => {
			Call::post_sums { task, segment, values: bounded(values(&m, table.stage)?)? }
		}
		_ => return Err(ReproError::OutOfRange),
	};
	Ok(Some(call))
}

/// Value `elem` of tensor `tensor` of `state`, proven under the state's root.
fn state_value(state: &TrainState, tensor: u32, elem: u64) -> Result<StateValue> {
	let tensors: Vec<&Vec<f32>> = state.params.iter().chain(&state.opt).collect();
	let values = tensors.get(tensor as usize).ok_or(ReproError::OutOfRange)?;
	let mut leaves = Vec::with_capacity(tensors.len() + 1);
	leaves.push(merkle::hash_leaf(&state.step.to_le_bytes()));
	leaves.extend(tensors.iter().map(|t| merkle::tensor_root(t)));
	let at = usize::try_from(tensor).map_err(|_| ReproError::OutOfRange)?.saturating_add(1);
	let root_proof = merkle::proof(&leaves, at).ok_or(ReproError::OutOfRange)?;
	let (chunk, _) = geo::chunk_of(elem);
	let (chunk_values, proof) = geo::open_tensor(values, chunk).ok_or(ReproError::OutOfRange)?;
	Ok(StateValue {
		tensor_root: *leaves.get(at).ok_or(ReproError::OutOfRange)?,
		tensor_siblings: bounded(root_proof.siblings)?,
		values: bounded(chunk_values.iter().map(|x| x.to_bits()).collect())?,
		siblings: bounded(proof.siblings)?,
	})
}

/// The solver's checkpoint `index` (`state`, whose root is that leaf of `leaves`) with
/// the values at `tensors`' element `elem`.
fn checkpoint_values(
	state: &TrainState,
	leaves: &(impl CheckpointLeaves + ?Sized),
	index: u32,
	tensors: &[u32],
	elem: u64,
) -> Result<CheckpointValues> {
	let siblings = leaves.siblings(index).ok_or(ReproError::OutOfRange)?;
	let values =
		tensors.iter().map(|t| state_value(state, *t, elem)).collect::<Result<Vec<_>>>()?;
	Ok(CheckpointValues {
		state_root: state.root(),
		siblings: bounded(siblings)?,
		values: bounded(values)?,
	})
}

/// The values term `at` of `kind` reads, each with its proof.
fn term_proof(
	run: &Run,
	claimed: &TrainState,
	leaves: &(impl CheckpointLeaves + ?Sized),
	segment: u32,
	kind: thr::Sum,
	at: &thr::TermAt,
) -> Result<SumTerm> {
	let (start, end) = run.segment_ends(segment)?;
	let mut proof = SumTerm { replayed: None, claimed: None, start: None };
	if matches!(kind, thr::Sum::Off(_) | thr::Sum::Work(_)) {
		proof.replayed = Some(state_value(end, at.tensor, at.elem)?);
	}
	if let thr::Sum::Off(_) = kind {
		let next = segment.saturating_add(1);
		proof.claimed = Some(checkpoint_values(claimed, leaves, next, &[at.tensor], at.elem)?);
	}
	// The task's first segment starts from its seeded initial state, which the chain
	// computes itself.
	if let (thr::Sum::Work(_), true) = (kind, start.step > 0) {
		let (_, slots) = thr::state_tensors(&run.spec);
		let params = start.params.len() as u32;
		let first_slot = params.saturating_add(at.param.saturating_mul(slots));
		let mut tensors = alloc::vec![at.param];
		tensors.extend((0..slots).map(|j| first_slot.saturating_add(j)));
		proof.start = Some(checkpoint_values(start, leaves, segment, &tensors, at.elem)?);
	}
	Ok(proof)
}
