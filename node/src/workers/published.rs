//! Checkpoints demanded on chain. A whistleblower whose check needs a checkpoint the
//! solver's store does not serve it (served to the solver's partners alone, say) demands
//! it (`demand_checkpoint`) while the chain takes a demand for it; once every page is
//! published, it reads them back from the blocks that carry them, checks each against
//! the committed root, and keeps the checkpoint in its store as if the solver had served
//! it, so that the check replays from it.

use std::collections::BTreeMap;

use codec::{Decode, Encode};
use gensyn_primitives::{publish, TaskSpec, VerificationMode};
use gensyn_runtime::{BlockNumber, RuntimeCall, UncheckedExtrinsic};
use gensyn_workers::{checkpoint, hash, proof_store::remote, replay};
use pallet_gensyn_tasks::{Call as TasksCall, TaskId};
use sc_client_api::{BlockBackend, HeaderBackend};
use sp_core::H256;

use super::{chain, segment, WorkerContext, WorkerFault};

/// Makes sure the checkpoints a check of `segment` of task `id` replays from (its start;
/// in Threshold mode its end too) are in this node's store. Returns the call that
/// demands one the solver's store does not serve, or an error while one is awaited (the
/// check comes again).
pub fn ensure_checkpoints(
	ctx: &WorkerContext,
	id: TaskId,
	segment: u32,
	view: &chain::Task,
) -> Result<Option<RuntimeCall>, String> {
	let spec = chain::spec(view)?;
	let mut indices = Vec::new();
	if segment > 0 {
		// Segment 0 starts from the task's seeded initial state.
		indices.push(segment);
	}
	if spec.verification.mode == VerificationMode::Threshold {
		indices.push(segment.saturating_add(1));
	}
	if indices.is_empty() {
		return Ok(None);
	}
	let run = segment::committed(ctx, id, view)?;
	// Every checkpoint missing is demanded (one a call), not only the first: pages
	// awaited for one must not let the other's first window pass.
	let mut waiting = None;
	for index in indices {
		match ensure(ctx, id, &spec, view, &run, index) {
			Ok(Some(call)) => return Ok(Some(call)),
			Ok(None) => {}
			Err(e) => {
				waiting.get_or_insert(e);
			}
		}
	}
	waiting.map_or(Ok(None), Err)
}

/// [`ensure_checkpoints`] for checkpoint `index`.
fn ensure(
	ctx: &WorkerContext,
	id: TaskId,
	spec: &TaskSpec,
	view: &chain::Task,
	run: &segment::Committed,
	index: u32,
) -> Result<Option<RuntimeCall>, String> {
	let entry = run.journal.checkpoints.get(index as usize).ok_or("no such checkpoint")?;
	let blob = hash::from_hex(&entry.blob).ok_or("a checkpoint's blob name is not hex")?;
	let served = if ctx.faults.is(WorkerFault::BlindWhistleblower) {
		Err("the store does not serve this node".to_string())
	} else {
		// A file that is served but is not the committed state counts as not served.
		remote::fetch_blob(&run.base, &blob, &ctx.store, ctx.data.private_hosts)
			.map_err(|e| e.to_string())
			.and_then(|()| {
				replay::load_checkpoint(&ctx.store, &run.journal, index as usize)
					.map(|_| ())
					.map_err(|e| e.to_string())
			})
	};
	let Err(unserved) = served else { return Ok(None) };
	let at = HeaderBackend::info(&*ctx.client).best_hash;
	let demands = chain::demands(&ctx.client, at, id)?;
	match demands.iter().find(|d| d.checkpoint == index) {
		None if demandable(ctx, at, id, view, index)? => {
			log::warn!(
				target: "gensyn-worker",
				"whistleblower: task {id}: checkpoint {index} is not served ({unserved}): \
				 demanding it on chain"
			);
			Ok(Some(RuntimeCall::Tasks(TasksCall::demand_checkpoint { id, checkpoint: index })))
		}
		None => Err(format!(
			"task {id}: checkpoint {index} is not served ({unserved}), and its verdict's first \
			 window has ended"
		)),
		Some(d) if d.next.is_some() => Err(format!(
			"task {id}: checkpoint {index} is demanded; its pages are due before block {}",
			d.due
		)),
		Some(d) => {
			let state = read(ctx, at, id, spec, view, index, (d.at, d.due))?;
			if run.leaves.get(index as usize) != Some(&checkpoint::state_hash(&state)) {
				return Err(format!("task {id}: checkpoint {index}'s pages are not its leaf"));
			}
			let bytes = checkpoint::to_safetensors(spec, &state).map_err(|e| e.to_string())?;
			let kept = ctx.store.put(&bytes).map_err(|e| e.to_string())?;
			if kept != blob {
				// The replay reads the file the kept journal names: this one now.
				segment::rename_kept_checkpoint(ctx, view, index, &kept)?;
			}
			log::info!(
				target: "gensyn-worker",
				"whistleblower: task {id}: read checkpoint {index} from its pages on chain"
			);
			Ok(None)
		}
	}
}

/// Whether the chain takes a demand for checkpoint `index` at `at`: a verdict replayed
/// from it (or, in Threshold mode, ended at it) and its first window is open.
fn demandable(
	ctx: &WorkerContext,
	at: H256,
	id: TaskId,
	view: &chain::Task,
	index: u32,
) -> Result<bool, String> {
	let threshold = chain::spec(view)?.verification.mode == VerificationMode::Threshold;
	let now = chain::number(&ctx.client, at)?;
	for a in view.audits.iter().filter(|a| a.verdict.is_some()) {
		let own = a.segment == index || (threshold && a.segment.checked_add(1) == Some(index));
		if own && chain::reveal_by(&ctx.client, at, id, &a.verifier)?.is_some_and(|by| now < by) {
			return Ok(true);
		}
	}
	Ok(false)
}

/// Checkpoint `index` of task `id`'s run as its pages were published in the blocks
/// `from..due` (the demand's and those until its pages were due), each checked against
/// the committed root.
fn read(
	ctx: &WorkerContext,
	at: H256,
	id: TaskId,
	spec: &TaskSpec,
	view: &chain::Task,
	index: u32,
	(from, due): (BlockNumber, BlockNumber),
) -> Result<checkpoint::TrainState, String> {
	let result = view.result.as_ref().ok_or("no result")?;
	let lengths = publish::tensor_lengths(spec);
	let last = chain::number(&ctx.client, at)?.min(due);
	let mut pages: BTreeMap<(u32, u32), Vec<u8>> = BTreeMap::new();
	for n in from..=last {
		let missing = || format!("block {n}'s body is not kept (pruned?): no pages read");
		let hash = ctx.client.hash(n).map_err(|e| e.to_string())?.ok_or_else(missing)?;
		let body = ctx.client.block_body(hash).map_err(|e| e.to_string())?.ok_or_else(missing)?;
		for xt in body {
			let Ok(xt) = UncheckedExtrinsic::decode(&mut &xt.encode()[..]) else { continue };
			let RuntimeCall::Tasks(TasksCall::publish_page {
				id: task,
				checkpoint,
				item,
				page,
				bytes,
				proof,
			}) = xt.function
			else {
				continue;
			};
			let place = publish::PageAt { checkpoint, checkpoints: result.checkpoints, item, page };
			// A call that failed in its block, or someone else's junk, proves nothing.
			if task == id
				&& checkpoint == index
				&& publish::verify_page(&result.checkpoint_root, &lengths, place, &bytes, &proof)
			{
				pages.insert((item, page), bytes.into_inner());
			}
		}
	}
	assemble(spec, &lengths, &pages)
}

/// The training state the pages hold: the step, then each tensor's pages in order.
fn assemble(
	spec: &TaskSpec,
	lengths: &[u64],
	pages: &BTreeMap<(u32, u32), Vec<u8>>,
) -> Result<checkpoint::TrainState, String> {
	let step = pages.get(&(0, 0)).and_then(|b| <[u8; 8]>::try_from(b.as_slice()).ok());
	let step = u64::from_le_bytes(step.ok_or("the step's page is missing")?);
	let mut tensors = Vec::with_capacity(lengths.len());
	for (t, len) in lengths.iter().enumerate() {
		let item = t as u32 + 1;
		let mut values = Vec::with_capacity(*len as usize);
		for p in 0..publish::pages_of(*len) as u32 {
			let bytes = pages.get(&(item, p)).ok_or("a page is missing")?;
			values.extend(
				bytes.chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])),
			);
		}
		tensors.push(values);
	}
	let per_param = gensyn_primitives::estimate::state_tensors_per_param(&spec.training.optimizer);
	let opt = tensors.split_off(lengths.len() / per_param as usize);
	Ok(checkpoint::TrainState { step, params: tensors, opt })
}
