//! Proofs that a committed run is not one of its task, built from the solver's journal
//! and one checkpoint (or, without the journal, from the first checkpoint's pages): a
//! checkpoint stamped off the task's schedule, or a first checkpoint that is not the
//! task's seeded initial state. Partner verifiers could pass such a run segment by
//! segment (each replays to the run's own checkpoints); the chain checks this proof
//! itself and rejects the run at settlement (`prove_off_task`).

use gensyn_primitives::{merkle, TaskSpec};
use gensyn_workers::{
	checkpoint::{self, TrainState},
	hash,
	proof_store::remote,
	reference,
	replay::{self, ReplayError},
};
use pallet_gensyn_tasks::{OffTaskProof, StateChunk};
use sp_runtime::BoundedVec;

use super::{
	published,
	segment::{Committed, Journaled},
	WorkerContext,
};

/// The proof that `run` is not a run of `spec`, or `None` when it is one (or when it
/// is off the task in a way no proof shows, logged). Without the run's journal only
/// the run's first checkpoint is checked, as this node read it from its pages.
pub fn proof(
	ctx: &WorkerContext,
	spec: &TaskSpec,
	run: &Committed,
) -> Result<Option<OffTaskProof>, String> {
	let opened = match run.journaled() {
		Ok(journaled) => from_journal(ctx, spec, run, journaled)?,
		Err(no_journal) => from_pages(ctx, spec, run).map_err(|e| format!("{no_journal}; {e}"))?,
	};
	let Some((index, state, siblings)) = opened else { return Ok(None) };
	prove(spec, index, &state, siblings)
}

/// Whether checkpoint `index` of `run`, as this node read it from its pages, is where
/// the task puts it: the seeded initial state for the first, else a state stamped with
/// the task's step for it. A verifier replays a segment from its pages only from such a
/// start: the game opens the start as the solver committed it, and a verdict replayed
/// from the task's start could not be defended from another.
pub enum Placed {
	/// On the task's schedule.
	OnTask,
	/// Off it, with the proof the chain takes of that, where one shows it.
	Off(Option<OffTaskProof>),
}

/// [`Placed`] of checkpoint `index` of `run` as read from its pages; an error when it was
/// not read.
pub fn placed(
	ctx: &WorkerContext,
	spec: &TaskSpec,
	run: &Committed,
	index: u32,
) -> Result<Placed, String> {
	if index == 0 {
		return Ok(match from_pages(ctx, spec, run)? {
			None => Placed::OnTask,
			Some((i, state, siblings)) => Placed::Off(prove(spec, i, &state, siblings)?),
		});
	}
	let unread = format!("checkpoint {index} is not read from its pages");
	let state = published::kept((&ctx.store, &ctx.data.cache), (&run.root, index))
		.ok_or_else(|| unread.clone())?;
	if state.step == spec.checkpoint_step(u64::from(index)) {
		return Ok(Placed::OnTask);
	}
	let siblings = published::kept_siblings(&ctx.data.cache, (&run.root, index)).ok_or(unread)?;
	log::warn!(
		target: "gensyn-worker",
		"the committed run is not the task's: its checkpoint {index}, read from its pages, is \
		 at step {}",
		state.step
	);
	Ok(Placed::Off(prove(spec, index as usize, &state, siblings)?))
}

/// A checkpoint opened to prove a run off its task: its index, its state and its
/// siblings under the checkpoint root.
type Opened = (usize, TrainState, Vec<[u8; 32]>);

/// The checkpoint that shows the run in `journaled` off its task (the first stamped off
/// the schedule, else the first), fetched; `None` when the journal is the task's.
fn from_journal(
	ctx: &WorkerContext,
	spec: &TaskSpec,
	run: &Committed,
	Journaled { journal, leaves }: &Journaled,
) -> Result<Option<Opened>, String> {
	match replay::check_schedule(spec, journal) {
		Ok(()) => return Ok(None),
		Err(ReplayError::NotThisTask(why)) => {
			log::warn!(target: "gensyn-worker", "the committed run is not the task's: {why}")
		}
		Err(e) => return Err(e.to_string()),
	}
	let checkpoints = journal.checkpoints.iter().enumerate();
	let off = checkpoints.map(|(i, e)| e.step != spec.checkpoint_step(i as u64)).position(|o| o);
	let index = off.unwrap_or(0);
	let entry = journal.checkpoints.get(index).ok_or("the journal lists no checkpoint")?;
	let blob = hash::from_hex(&entry.blob).ok_or("a checkpoint's blob name is not hex")?;
	remote::fetch_blob(&run.base, &blob, &ctx.store, ctx.data.private_hosts)
		.map_err(|e| e.to_string())?;
	let state = replay::load_checkpoint(&ctx.store, journal, index).map_err(|e| e.to_string())?;
	let siblings = merkle::proof(leaves, index).ok_or("no proof of the checkpoint")?.siblings;
	Ok(Some((index, state, siblings)))
}

/// The run's first checkpoint as this node read it from its pages (see
/// [`published::ensure_checkpoints`]), when it is not the task's seeded initial state at
/// step 0; `None` when it is.
fn from_pages(
	ctx: &WorkerContext,
	spec: &TaskSpec,
	run: &Committed,
) -> Result<Option<Opened>, String> {
	let unread = "its first checkpoint is not read from its pages";
	let state = published::kept((&ctx.store, &ctx.data.cache), (&run.root, 0)).ok_or(unread)?;
	let siblings = published::kept_siblings(&ctx.data.cache, (&run.root, 0)).ok_or(unread)?;
	// The record is this node's own; the chain checks the proof anyway, but a wrong one
	// would only be refused.
	let place = merkle::MerkleProof { leaf_index: 0, leaf_count: run.checkpoints, siblings };
	if !merkle::verify_proof(&run.root, &checkpoint::state_hash(&state), &place) {
		return Err("its first checkpoint's record is not under the committed root".into());
	}
	let siblings = place.siblings;
	let initial = reference::initial_state(spec).map_err(|e| e.to_string())?;
	if state.step == 0 && checkpoint::state_hash(&state) == checkpoint::state_hash(&initial) {
		return Ok(None);
	}
	log::warn!(
		target: "gensyn-worker",
		"the committed run is not the task's: its first checkpoint, read from its pages, is \
		 not the task's seeded initial state"
	);
	Ok(Some((0, state, siblings)))
}

/// The proof that checkpoint `index` (`state`, under the root by `siblings`) shows its
/// run off the task: stamped off the schedule, or a first checkpoint whose values are
/// not the task's seeded ones; `None` when no proof the chain takes shows it (logged).
fn prove(
	spec: &TaskSpec,
	index: usize,
	state: &TrainState,
	siblings: Vec<[u8; 32]>,
) -> Result<Option<OffTaskProof>, String> {
	let tensors: Vec<&Vec<f32>> = state.params.iter().chain(&state.opt).collect();
	let tensor_roots: Vec<[u8; 32]> = tensors.iter().map(|t| merkle::tensor_root(t)).collect();
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
		siblings: bounded(siblings)?,
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
