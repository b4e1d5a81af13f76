//! Answering a demand for a checkpoint on chain: the `publish_page` call of its next
//! page, built by the solver from its own run or, once the solver's turn is over and
//! while its node sends nothing, by its one standby verifier, from the copy it kept of
//! the checkpoint its verdict read (the run's first checkpoint is the task's seeded
//! start, which every verifier computes). The pages prove themselves against the
//! committed root, so a solver whose node is down is not rejected while a verifier of
//! its task still holds the checkpoint.

use std::sync::Arc;

use gensyn_primitives::publish;
use gensyn_runtime::{AccountId, BlockNumber, RuntimeCall};
use gensyn_workers::checkpoint::{self, TrainState};
use pallet_gensyn_tasks::{Call as TasksCall, Duty, TaskId};
use sp_core::H256;
use sp_runtime::BoundedVec;

use super::{chain, duties::Plan, published, segment, WorkerContext};

/// Blocks a verifier standing by for a solver waits after the solver's last page before
/// it publishes: the solver's node is back and answering.
const HOLD_BACK: BlockNumber = 10;

/// Whether a standby verifier may still leave the `left` pages of a demand due before
/// block `due` to a solver that sent a page lately, at block `now`: only while another
/// hold-back and two blocks a page still fit. Past that it publishes whatever the
/// solver's node does: a solver that sends a page now and then and stops short must not
/// leave the standby, which is slashed for an unanswered demand, without time (a page
/// that loses a race to the solver's only costs its fee).
fn stands_back(now: BlockNumber, due: BlockNumber, left: u64) -> bool {
	let needed = u64::from(HOLD_BACK).saturating_add(left.saturating_mul(2));
	u64::from(due.saturating_sub(now)) > needed
}

/// Where a role's pages come from.
#[derive(Clone, Copy)]
pub enum Source<'a> {
	/// The solver's own run in this node's store.
	Own,
	/// The copy a verifier kept of the checkpoint its verdict read, by the verifier's key:
	/// none for a task that key solves, whose solver role sends its own pages (duties are
	/// listed per key, and the two would race, each lost race paying).
	Kept(Option<&'a AccountId>),
}

/// The plan for `duty`, a `Duty::Publish` seen at block `at`, from `source`: beside any
/// heavy job, since the pages are due within the publish period whatever else the role
/// runs.
pub fn plan(ctx: &Arc<WorkerContext>, at: H256, duty: &Duty<BlockNumber>, source: Source) -> Plan {
	let Duty::Publish { task, checkpoint, item, page, by } = *duty else { return Plan::Ignore };
	let view = match chain::task(&ctx.client, at, task) {
		Ok(v) => v,
		Err(e) => return Plan::failed(e),
	};
	let kept = match source {
		Source::Kept(me) if me.is_some() && view.solver.as_ref() == me => return Plan::Ignore,
		Source::Kept(_) => true,
		Source::Own => false,
	};
	let (ctx, block, place) = (ctx.clone(), at, (item, page));
	Plan::Quick(Box::new(move || {
		if kept {
			kept_page(&ctx, (block, by), task, &view, checkpoint, place)
		} else {
			own_page(&ctx, task, &view, checkpoint, place)
		}
		.map(Some)
	}))
}

/// The solver's page `(item, page)` of checkpoint `checkpoint` of its run of task `id`,
/// read from this node's own store (not over its public address, which it may not
/// reach).
fn own_page(
	ctx: &WorkerContext,
	id: TaskId,
	view: &chain::Task,
	checkpoint: u32,
	at: (u32, u32),
) -> Result<RuntimeCall, String> {
	let result = view.result.as_ref().ok_or_else(|| format!("task {id} has no result"))?;
	let url = String::from_utf8_lossy(&result.url).into_owned();
	let (_, run_id) = segment::split_run_url(&url)
		.ok_or_else(|| format!("task {id}: cannot read the result's location {url:?}"))?;
	let ours = |j: &gensyn_workers::proof_store::Journal| {
		gensyn_workers::train::checkpoint_root(&j.checkpoints) == result.checkpoint_root
	};
	let journal = ctx.store.journal(run_id).map_err(|e| e.to_string())?.filter(ours);
	let journal = journal.ok_or_else(|| format!("task {id}: this node's store lacks its run"))?;
	let state = gensyn_workers::replay::load_checkpoint(&ctx.store, &journal, checkpoint as usize)
		.map_err(|e| e.to_string())?;
	let leaves = gensyn_workers::train::checkpoint_leaves(&journal.checkpoints);
	log::info!(
		target: "gensyn-worker",
		"task {id}: publishing page {}.{} of demanded checkpoint {checkpoint}", at.0, at.1
	);
	page_call(id, checkpoint, at, &state, &leaves)
}

/// A verifier's page `(item, page)` of checkpoint `checkpoint` of task `id`'s run, due
/// before block `due`, for a solver that did not answer in its turn and sent no page in
/// the last [`HOLD_BACK`] blocks up to `block` (or, once time is short, whatever it
/// sent: [`stands_back`]): from the run's journal and the checkpoint this node kept when
/// its verdict read it, or the task's seeded start for the first. Nothing is sent unless
/// the state is the committed one (a page that fails its proof would only cost the fee).
fn kept_page(
	ctx: &WorkerContext,
	(block, due): (H256, BlockNumber),
	id: TaskId,
	view: &chain::Task,
	checkpoint: u32,
	at: (u32, u32),
) -> Result<RuntimeCall, String> {
	let spec = chain::spec(view)?;
	let left = publish::pages_from(&publish::tensor_lengths(&spec), at.0, at.1);
	let now = chain::number(&ctx.client, block)?;
	if let Some(solver) = view.solver.as_ref().filter(|_| stands_back(now, due, left)) {
		if published::sent_pages(ctx, block, (id, checkpoint), solver, HOLD_BACK)? {
			return Err(format!(
				"task {id}: the solver is publishing checkpoint {checkpoint}: standing by"
			));
		}
	}
	let run = segment::committed(ctx, id, view)?;
	let leaves = &run.journaled()?.leaves;
	let state = if checkpoint == 0 {
		gensyn_workers::reference::initial_state(&spec).map_err(|e| e.to_string())?
	} else {
		segment::checkpoint(ctx, &run, checkpoint)?
	};
	let leaf = leaves.get(checkpoint as usize).ok_or("the run has no such checkpoint")?;
	if checkpoint::state_hash(&state) != *leaf {
		return Err(format!(
			"task {id}: this node's copy of checkpoint {checkpoint} is not the committed one"
		));
	}
	log::info!(
		target: "gensyn-worker",
		"task {id}: the solver did not publish demanded checkpoint {checkpoint} in its turn: \
		 publishing page {}.{} from this node's copy", at.0, at.1
	);
	page_call(id, checkpoint, at, &state, leaves)
}

/// The `publish_page` call of page `(item, page)` of `state`, checkpoint `checkpoint`
/// under the run's checkpoint `leaves`.
fn page_call(
	id: TaskId,
	checkpoint: u32,
	(item, page): (u32, u32),
	state: &TrainState,
	leaves: &[[u8; 32]],
) -> Result<RuntimeCall, String> {
	let tensors: Vec<&[f32]> =
		state.params.iter().chain(&state.opt).map(|t| t.as_slice()).collect();
	let pages = publish::pages(state.step, &tensors, leaves, checkpoint)
		.ok_or_else(|| format!("task {id}: the run has no checkpoint {checkpoint}"))?;
	let found = pages.into_iter().find(|p| (p.item, p.page) == (item, page));
	let p = found
		.ok_or_else(|| format!("task {id}: checkpoint {checkpoint} has no page {item}.{page}"))?;
	Ok(RuntimeCall::Tasks(TasksCall::publish_page {
		id,
		checkpoint,
		item,
		page,
		bytes: BoundedVec::truncate_from(p.bytes),
		proof: p.proof,
	}))
}

#[cfg(test)]
mod tests {
	use super::{stands_back, HOLD_BACK};

	/// A standby leaves the pages to a solver that sent one lately only while another
	/// hold-back and two blocks a page left still fit before the due block.
	#[test]
	fn a_standby_holds_back_only_while_time_is_left() {
		let due = 200;
		let last = due - HOLD_BACK - 2 * 10;
		assert!(stands_back(last - 1, due, 10));
		assert!(!stands_back(last, due, 10), "no time left to wait");
		assert!(!stands_back(due + 1, due, 1));
		assert!(stands_back(0, due, 0));
	}
}
