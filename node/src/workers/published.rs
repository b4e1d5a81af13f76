//! Checkpoints demanded on chain. A whistleblower whose check needs a checkpoint the
//! solver's store does not serve it (served to the solver's partners alone, say) demands
//! it (`demand_checkpoint`) while the chain takes a demand for it; once every page is
//! published, it reads them back from the blocks that carry them, checks each against
//! the committed root, and keeps the checkpoint in its store with a record of it, so
//! that the check replays from it. None of this needs the run's journal, which the
//! solver may withhold too.

use std::{
	collections::BTreeMap,
	path::{Path, PathBuf},
};

use codec::{Decode, Encode};
use gensyn_primitives::{publish, TaskSpec, VerificationMode};
use gensyn_runtime::{AccountId, BlockNumber, RuntimeCall, UncheckedExtrinsic};
use gensyn_workers::{checkpoint, hash, proof_store::ProofStore};
use pallet_gensyn_tasks::{Call as TasksCall, TaskId};
use sc_client_api::{BlockBackend, HeaderBackend};
use sp_core::H256;
use sp_runtime::{generic::Preamble, MultiAddress};

use super::{chain, segment, WorkerContext};

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
	let run = segment::committed_run(ctx, "whistleblower", id, view)?;
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

/// Makes sure checkpoint `index` of task `id`'s run is in this node's store, as
/// [`ensure_checkpoints`] does for a check's: the call that demands it, or an error
/// while it is awaited or cannot be demanded. A whistleblower without the run's journal
/// reads the run's first checkpoint so to prove the run off its task.
pub fn ensure(
	ctx: &WorkerContext,
	id: TaskId,
	spec: &TaskSpec,
	view: &chain::Task,
	run: &segment::Committed,
	index: u32,
) -> Result<Option<RuntimeCall>, String> {
	// A file that is served but is not the committed state counts as not served.
	let Err(unserved) = segment::checkpoint(ctx, run, index) else { return Ok(None) };
	let at = HeaderBackend::info(&*ctx.client).best_hash;
	let demands = chain::demands(&ctx.client, at, id)?;
	let upgrades = chain::upgrades(&ctx.client, at)?;
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
			d.due_since(&upgrades)
		)),
		Some(d) => {
			keep_published(ctx, at, (id, index), (spec, view, run), (d, &upgrades))?;
			log::info!(
				target: "gensyn-worker",
				"whistleblower: task {id}: read checkpoint {index} from its pages on chain"
			);
			Ok(None)
		}
	}
}

/// Reads checkpoint `index` of task `id`'s run from its pages on chain and records it,
/// whatever the solver's store serves, once a demand of it was answered: a verifier that
/// replays a segment from its pages reads both its ends so, since a store that serves
/// one of them and not the other must not leave it with neither.
pub fn read_answered(
	ctx: &WorkerContext,
	id: TaskId,
	spec: &TaskSpec,
	view: &chain::Task,
	run: &segment::Committed,
	index: u32,
) -> Result<(), String> {
	if recorded(&ctx.data.cache, (&run.root, index)) {
		return Ok(());
	}
	let at = HeaderBackend::info(&*ctx.client).best_hash;
	let demands = chain::demands(&ctx.client, at, id)?;
	let upgrades = chain::upgrades(&ctx.client, at)?;
	let d = demands
		.iter()
		.find(|d| d.checkpoint == index && d.next.is_none())
		.ok_or_else(|| format!("task {id}: checkpoint {index} is not published"))?;
	keep_published(ctx, at, (id, index), (spec, view, run), (d, &upgrades))
}

/// Reads checkpoint `index` of task `id`'s run from the pages of its answered demand `d`
/// (read past the kept `upgrades`) as of block `at`, and keeps it. Every page is proved
/// against the committed root, so the state they hold is the committed checkpoint: no
/// journal is needed to trust it.
fn keep_published(
	ctx: &WorkerContext,
	at: H256,
	(id, index): (TaskId, u32),
	(spec, view, run): (&TaskSpec, &chain::Task, &segment::Committed),
	(d, upgrades): (&chain::Demanded, &[BlockNumber]),
) -> Result<(), String> {
	let pages = (d.at, d.due_since(upgrades));
	let (state, siblings) = read(ctx, at, id, spec, view, index, pages)?;
	keep((&ctx.store, &ctx.data.cache), spec, (&run.root, index), (&state, &siblings))
}

/// Where a node records checkpoint `index` of the run committed to `root` as read from
/// its pages (the file it keeps in its store, the state root the pages proved, and its
/// siblings under the root): beside the fetched journals in its data cache.
fn record(cache: &Path, root: &[u8; 32], index: u32) -> PathBuf {
	cache.join(format!("published-{}-{index}", hash::to_hex(root)))
}

/// Keeps `state`, checkpoint `index` of the run committed to `root` as read from its
/// pages, in `store` (in canonical form, which may not be the file the solver named)
/// and records it in `cache` with its `siblings` under the root.
fn keep(
	(store, cache): (&ProofStore, &Path),
	spec: &TaskSpec,
	(root, index): (&[u8; 32], u32),
	(state, siblings): (&checkpoint::TrainState, &[[u8; 32]]),
) -> Result<(), String> {
	let bytes = checkpoint::to_safetensors(spec, state).map_err(|e| e.to_string())?;
	let blob = store.put(&bytes).map_err(|e| e.to_string())?;
	let leaf = checkpoint::state_hash(state);
	let path = record(cache, root, index);
	// Written whole, then named: a record is never read torn.
	let part = path.with_extension("part");
	let written = path.parent().map_or(Ok(()), std::fs::create_dir_all);
	written
		.and_then(|()| std::fs::write(&part, [&[blob, leaf][..], siblings].concat().concat()))
		.and_then(|()| std::fs::rename(&part, &path))
		.map_err(|e| format!("recording checkpoint {index} at {}: {e}", path.display()))
}

/// Checkpoint `index` of the run committed to `root` as this node read it from its
/// pages on chain, if it did (see [`keep`]); a record whose file is gone or changed
/// reads as none.
pub fn kept(
	(store, cache): (&ProofStore, &Path),
	(root, index): (&[u8; 32], u32),
) -> Option<checkpoint::TrainState> {
	let record = std::fs::read(record(cache, root, index)).ok()?;
	let (blob, rest) = record.split_at_checked(32)?;
	let (leaf, _) = rest.split_at_checked(32)?;
	let state = checkpoint::from_safetensors(&store.get(blob.try_into().ok()?).ok()?).ok()?;
	(checkpoint::state_hash(&state).as_slice() == leaf).then_some(state)
}

/// The siblings under the root of checkpoint `index` of the run committed to `root`, as
/// its pages proved them, if this node read it (see [`keep`]).
pub fn kept_siblings(cache: &Path, (root, index): (&[u8; 32], u32)) -> Option<Vec<[u8; 32]>> {
	let record = std::fs::read(record(cache, root, index)).ok()?;
	let siblings = record.get(64..)?.chunks_exact(32);
	siblings.map(|s| s.try_into().ok()).collect()
}

/// The leaves of checkpoints `indices` of the run committed to `root`, each with its
/// siblings under the root, as their pages proved them, if this node read every one: what
/// a verifier without the run's journal defends its verdict with in a game.
pub fn proved_leaves(
	cache: &Path,
	root: &[u8; 32],
	indices: &[u32],
) -> Option<pallet_gensyn_arbitration::prover::ProvedLeaves> {
	let leaf = |index: u32| {
		let record = std::fs::read(record(cache, root, index)).ok()?;
		let leaf: [u8; 32] = record.get(32..64)?.try_into().ok()?;
		Some((index, leaf, kept_siblings(cache, (root, index))?))
	};
	let leaves = indices.iter().map(|i| leaf(*i)).collect::<Option<Vec<_>>>()?;
	Some(pallet_gensyn_arbitration::prover::ProvedLeaves(leaves))
}

/// Whether this node recorded checkpoint `index` of the run committed to `root` (a file
/// check only: [`kept`] reads it).
pub fn recorded(cache: &Path, (root, index): (&[u8; 32], u32)) -> bool {
	record(cache, root, index).exists()
}

/// Whether the chain takes a demand for checkpoint `index` at `at`: a verdict replayed
/// from it (or, in Threshold mode, ended at it; the run's first checkpoint goes with any
/// verdict) and its first window is open.
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
		let own = index == 0
			|| a.segment == index
			|| (threshold && a.segment.checked_add(1) == Some(index));
		if own && chain::reveal_by(&ctx.client, at, id, &a.verifier)?.is_some_and(|by| now < by) {
			return Ok(true);
		}
	}
	Ok(false)
}

/// Checkpoint `index` of task `id`'s run as its pages were published in the blocks
/// `from..due` (the demand's and those until its pages were due), each checked against
/// the committed root, with its siblings under the root (every page proves them).
fn read(
	ctx: &WorkerContext,
	at: H256,
	id: TaskId,
	spec: &TaskSpec,
	view: &chain::Task,
	index: u32,
	(from, due): (BlockNumber, BlockNumber),
) -> Result<(checkpoint::TrainState, Vec<[u8; 32]>), String> {
	let result = view.result.as_ref().ok_or("no result")?;
	let lengths = publish::tensor_lengths(spec);
	let last = chain::number(&ctx.client, at)?.min(due);
	let mut pages: BTreeMap<(u32, u32), Vec<u8>> = BTreeMap::new();
	let mut siblings = None;
	for sent in page_calls(ctx, (id, index), (from, last))? {
		let place = publish::PageAt {
			checkpoint: index,
			checkpoints: result.checkpoints,
			item: sent.item,
			page: sent.page,
		};
		// A call that failed in its block, or someone else's junk, proves nothing.
		if publish::verify_page(&result.checkpoint_root, &lengths, place, &sent.bytes, &sent.proof)
		{
			siblings.get_or_insert(sent.proof.checkpoint.siblings);
			pages.insert((sent.item, sent.page), sent.bytes);
		}
	}
	Ok((assemble(spec, &lengths, &pages)?, siblings.unwrap_or_default()))
}

/// Whether `who` sent a page of checkpoint `index` of task `id` in one of the last
/// `blocks` blocks up to `at` (taken or not): a solver whose node sends pages is
/// answering its demand, and the verifier standing by for it holds back rather than
/// race it (the page that lands second fails and pays its fee).
pub fn sent_pages(
	ctx: &WorkerContext,
	at: H256,
	(id, index): (TaskId, u32),
	who: &AccountId,
	blocks: BlockNumber,
) -> Result<bool, String> {
	let last = chain::number(&ctx.client, at)?;
	let first = last.saturating_sub(blocks.saturating_sub(1));
	Ok(page_calls(ctx, (id, index), (first, last))?.iter().any(|p| p.by.as_ref() == Some(who)))
}

/// A `publish_page` call as a block carries it (taken or not).
struct SentPage {
	/// Its signer.
	by: Option<AccountId>,
	item: u32,
	page: u32,
	bytes: Vec<u8>,
	proof: publish::PageProof,
}

/// The `publish_page` calls of checkpoint `index` of task `id` that blocks `from..=to`
/// carry, in order; an error where a block's body is not kept.
fn page_calls(
	ctx: &WorkerContext,
	(id, index): (TaskId, u32),
	(from, to): (BlockNumber, BlockNumber),
) -> Result<Vec<SentPage>, String> {
	let mut sent = Vec::new();
	for n in from..=to {
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
			if task == id && checkpoint == index {
				let by = match xt.preamble {
					Preamble::Signed(MultiAddress::Id(a), ..) => Some(a),
					_ => None,
				};
				sent.push(SentPage { by, item, page, bytes: bytes.into_inner(), proof });
			}
		}
	}
	Ok(sent)
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

#[cfg(test)]
mod tests {
	use super::{keep, kept, kept_siblings, record, recorded};
	use gensyn_primitives::TaskSpec;
	use gensyn_workers::{checkpoint, proof_store::ProofStore, reference};

	/// A checkpoint read from its pages is kept and read back by its run's root and
	/// index alone (no journal); a record of another run, or one whose file or state
	/// root no longer matches, reads as none.
	#[test]
	fn a_published_checkpoint_is_kept_and_read_back_without_a_journal() {
		let dir = std::env::temp_dir().join(format!("gensyn-published-{}", std::process::id()));
		let (cache, store) = (dir.join("data"), ProofStore::open(dir.join("store")).unwrap());
		let spec: TaskSpec =
			serde_json::from_str(include_str!("../../../examples/mnist-mlp.json")).unwrap();
		let mut state = reference::initial_state(&spec).unwrap();
		state.step = 7;
		let (root, other) = ([3; 32], [4; 32]);
		assert!(kept((&store, &cache), (&root, 1)).is_none());
		let siblings = [[5; 32], [6; 32]];
		keep((&store, &cache), &spec, (&root, 1), (&state, &siblings)).unwrap();
		assert!(recorded(&cache, (&root, 1)));
		assert_eq!(kept_siblings(&cache, (&root, 1)), Some(siblings.to_vec()));
		let read = kept((&store, &cache), (&root, 1)).expect("kept");
		assert_eq!(checkpoint::state_hash(&read), checkpoint::state_hash(&state));
		assert_eq!(read.step, 7);
		assert!(kept((&store, &cache), (&root, 2)).is_none(), "another checkpoint");
		assert!(kept((&store, &cache), (&other, 1)).is_none(), "another run");
		// A record whose state root is not its file's.
		let path = record(&cache, &root, 1);
		let mut bytes = std::fs::read(&path).unwrap();
		bytes[40] ^= 1;
		std::fs::write(&path, &bytes).unwrap();
		assert!(kept((&store, &cache), (&root, 1)).is_none(), "a changed record");
		let _ = std::fs::remove_dir_all(&dir);
	}
}
