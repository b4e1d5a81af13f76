//! A verdict replayed from a segment's published pages. A verifier that the solver's
//! store does not serve replays the segment from its start and end checkpoints as they
//! were published on chain (a report of an unavailable store demands them), each page
//! proved against the committed root, with no journal, and defends the verdict in a game
//! from the leaves the pages proved. A report on a segment whose checkpoints are public
//! would prove nothing: the chain then only audits the segment again.

use gensyn_primitives::{verdict as rule, VerificationMode};
use gensyn_runtime::{Runtime, RuntimeCall};
use pallet_gensyn_arbitration::prover::CheckpointLeaves;
use pallet_gensyn_tasks::{Call as TasksCall, CheckpointProof, TaskId};
use sc_client_api::HeaderBackend;

use super::{chain, dispute, off_task, published, segment, verifier, WorkerContext};

/// The verdict on `segment` of task `id` (`view`) replayed from its published pages (a
/// forced error's where `forced`), or `None` while they are not all published.
pub fn verdict(
	ctx: &WorkerContext,
	id: TaskId,
	segment: u32,
	view: &chain::Task,
	forced: bool,
) -> Result<Option<RuntimeCall>, String> {
	let at = ctx.client.info().best_hash;
	let demands = chain::demands(&ctx.client, at, id)?;
	if !pallet_gensyn_tasks::Pallet::<Runtime>::published_for(&demands, segment) {
		return Ok(None);
	}
	let spec = chain::spec(view)?;
	let run = segment::committed_run(ctx, "verifier", id, view)?;
	let end_index = segment.saturating_add(1);
	for index in [segment, end_index] {
		published::read_answered(ctx, id, &spec, view, &run, index)?;
	}
	// Only from a start where the task puts it: the game opens the solver's. A run off
	// the task is proven so once (which rejects it at settlement), and not judged.
	for index in [segment, end_index] {
		if let off_task::Placed::Off(proof) = off_task::placed(ctx, &spec, &run, index)? {
			let proven = chain::off_task_proven(&ctx.client, at, id)?;
			if let Some(proof) = proof.filter(|_| !proven) {
				return Ok(Some(RuntimeCall::Tasks(TasksCall::prove_off_task { id, proof })));
			}
			return Err(format!("task {id}: checkpoint {index} is off the task: no verdict"));
		}
	}
	let leaves = dispute::paged_leaves(ctx, &run, segment)
		.ok_or_else(|| format!("task {id}: the pages of segment {segment} are not kept"))?;
	let checkpoint_hash = leaves.leaf(end_index).ok_or("no end leaf")?;
	let siblings = leaves.siblings(end_index).ok_or("no end siblings")?;
	let siblings = siblings.try_into().map_err(|_| format!("task {id}: Merkle proof too deep"))?;
	let threshold = spec.verification.mode == VerificationMode::Threshold;
	let claimed = threshold.then(|| segment::checkpoint(ctx, &run, end_index)).transpose()?;
	let replay = segment::replay(ctx, &spec, view.order_randomness, &run, segment)?;
	let replayed = segment::Replayed { committed: run, run: replay, claimed };
	let end = replayed.run.states.last().map(|s| s.root()).ok_or("empty replay")?;
	let distance = dispute::distance_of(&replayed, segment)?;
	let passed = match distance {
		Some(d) => rule::threshold_passes_bits(d, view.threshold.unwrap_or(f32::MAX.to_bits())),
		None => end == checkpoint_hash,
	};
	ctx.metrics.replayed(passed);
	log::info!(
		target: "gensyn-worker",
		"verifier: task {id} segment {segment}: replayed from its published pages: {}{}",
		if passed { "passed" } else { "FAILED" },
		if forced { " (forced error: posting a failing verdict)" } else { "" }
	);
	let (mut distance, mut replay_hash) = (distance.unwrap_or(0), end);
	if forced {
		(distance, replay_hash) = (f32::MAX.to_bits(), verifier::forced_error(&replay_hash));
	}
	let proof = CheckpointProof { checkpoint_hash, siblings };
	Ok(Some(RuntimeCall::Tasks(TasksCall::submit_verification {
		id,
		segment,
		distance,
		replay_hash,
		proof,
	})))
}
