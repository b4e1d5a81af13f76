//! Proofs that a committed run is not one of its task, built from the solver's journal
//! and one checkpoint: a checkpoint stamped off the task's schedule, or a first
//! checkpoint that is not the task's seeded initial state. Partner verifiers could pass
//! such a run segment by segment (each replays to the run's own checkpoints); the chain
//! checks this proof itself and rejects the run at settlement (`prove_off_task`).

use gensyn_primitives::{merkle, TaskSpec};
use gensyn_workers::{
	hash,
	proof_store::remote,
	reference,
	replay::{self, ReplayError},
};
use pallet_gensyn_tasks::{OffTaskProof, StateChunk};
use sp_runtime::BoundedVec;

use super::{
	segment::{Committed, Journaled},
	WorkerContext,
};

/// The proof that `run` is not a run of `spec`, or `None` when it is one (or when it
/// is off the task in a way no proof shows, logged).
pub fn proof(
	ctx: &WorkerContext,
	spec: &TaskSpec,
	run: &Committed,
) -> Result<Option<OffTaskProof>, String> {
	let Journaled { journal, leaves } = run.journaled()?;
	match replay::check_schedule(spec, journal) {
		Ok(()) => return Ok(None),
		Err(ReplayError::NotThisTask(why)) => {
			log::warn!(target: "gensyn-worker", "the committed run is not the task's: {why}")
		}
		Err(e) => return Err(e.to_string()),
	}
	// The first checkpoint stamped off the schedule, else the first one.
	let checkpoints = journal.checkpoints.iter().enumerate();
	let off = checkpoints.map(|(i, e)| e.step != spec.checkpoint_step(i as u64)).position(|o| o);
	let index = off.unwrap_or(0);
	let entry = journal.checkpoints.get(index).ok_or("the journal lists no checkpoint")?;
	let blob = hash::from_hex(&entry.blob).ok_or("a checkpoint's blob name is not hex")?;
	remote::fetch_blob(&run.base, &blob, &ctx.store, ctx.data.private_hosts)
		.map_err(|e| e.to_string())?;
	let state = replay::load_checkpoint(&ctx.store, journal, index).map_err(|e| e.to_string())?;
	let tensors: Vec<&Vec<f32>> = state.params.iter().chain(&state.opt).collect();
	let tensor_roots: Vec<[u8; 32]> = tensors.iter().map(|t| merkle::tensor_root(t)).collect();
	let siblings = merkle::proof(leaves, index).ok_or("no proof of the checkpoint")?;
	let initial = reference::initial_state(spec).map_err(|e| e.to_string())?;
	let expected: Vec<&Vec<f32>> = initial.params.iter().chain(&initial.opt).collect();
	if expected.len() != tensors.len() {
		// A state root does not commit to its count, so the chain takes no count as
		// proof; the game, whose start cannot be opened from such a state, is left.
		log::warn!(
			target: "gensyn-worker",
			"checkpoint {index} has {} tensors, the task's state {}: no proof",
			tensors.len(),
			expected.len()
		);
		return Ok(None);
	}
	// On the schedule: a first checkpoint whose values are not the initial state's.
	let chunk = if index == 0 && state.step == 0 {
		let Some(chunk) = first_difference(&tensors, &expected) else {
			log::warn!(
				target: "gensyn-worker",
				"the run's first checkpoint has tensors of other sizes than the task's: no proof"
			);
			return Ok(None);
		};
		Some(chunk)
	} else {
		None
	};
	Ok(Some(OffTaskProof {
		index: index as u32,
		siblings: bounded(siblings.siblings)?,
		step: state.step,
		tensor_roots: bounded(tensor_roots)?,
		chunk,
	}))
}

/// The chunk holding the first value of `found` that is not `expected`'s (tensors of the
/// same count), with its proof; `None` when none differs or a tensor's size differs.
fn first_difference(found: &[&Vec<f32>], expected: &[&Vec<f32>]) -> Option<StateChunk> {
	for (t, (a, b)) in found.iter().zip(expected).enumerate() {
		if a.len() != b.len() {
			return None;
		}
		let Some(i) = a.iter().zip(b.iter()).position(|(x, y)| x.to_bits() != y.to_bits()) else {
			continue;
		};
		let chunks: Vec<&[f32]> = a.chunks(merkle::TENSOR_CHUNK_ELEMENTS).collect();
		let leaves: Vec<[u8; 32]> = chunks.iter().map(|c| merkle::tensor_leaf(c)).collect();
		let chunk = i / merkle::TENSOR_CHUNK_ELEMENTS;
		let proof = merkle::proof(&leaves, chunk)?;
		let values: Vec<u32> = chunks.get(chunk)?.iter().map(|v| v.to_bits()).collect();
		return Some(StateChunk {
			tensor: t as u32,
			chunk: chunk as u32,
			values: BoundedVec::try_from(values).ok()?,
			siblings: BoundedVec::try_from(proof.siblings).ok()?,
		});
	}
	None
}

fn bounded<V, S: sp_core::Get<u32>>(v: Vec<V>) -> Result<BoundedVec<V, S>, String> {
	BoundedVec::try_from(v).map_err(|_| "a proof past the chain's bounds".to_string())
}
