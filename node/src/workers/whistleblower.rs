//! The whistleblower role: replays every verdict in a challenge window it is shown
//! (`Duty::Watch`) with repops and challenges those whose replay hash its own replay does
//! not reach, then plays the pinpoint game it opened. A caught forced error is paid from
//! the jackpot; a caught wrong verdict slashes the verifier.

use std::sync::Arc;

use gensyn_runtime::{AccountId, BlockNumber, RuntimeCall};
use gensyn_workers::hash;
use pallet_gensyn_stake::Role as StakeRole;
use pallet_gensyn_tasks::{Call as TasksCall, Duty, TaskId};
use sp_core::H256;

use super::{
	chain,
	dispute::{self, Player},
	duties::{DutyKey, Plan, Role},
	segment::Replays,
	WorkerContext,
};

/// The whistleblower's state.
pub struct Whistleblower {
	ctx: Arc<WorkerContext>,
	replays: Replays,
	player: Player,
	account: Option<AccountId>,
}

impl Whistleblower {
	/// A whistleblower.
	pub fn new(ctx: Arc<WorkerContext>) -> Self {
		let replays = Replays::default();
		let player = Player::new(ctx.clone(), replays.clone());
		Whistleblower { ctx, replays, player, account: None }
	}
}

impl Role for Whistleblower {
	fn name(&self) -> &'static str {
		"whistleblower"
	}

	fn on_block(&mut self, at: H256, account: &AccountId) {
		self.account = Some(account.clone());
		let earned = chain::earned(&self.ctx.client, at, account, StakeRole::Whistleblower);
		self.ctx.metrics.earned("whistleblower", earned);
	}

	fn key(&self, duty: &Duty<BlockNumber>, at: H256) -> DutyKey {
		self.player.duty_key(duty, at, self.account.as_ref())
	}

	fn plan(&mut self, duty: &Duty<BlockNumber>, at: H256) -> Plan {
		let Some(who) = self.account.clone() else { return Plan::Ignore };
		match *duty {
			Duty::Watch { task, segment, .. } => {
				let view = match chain::task(&self.ctx.client, at, task) {
					Ok(v) => v,
					Err(e) => return Plan::failed(e),
				};
				let (ctx, replays) = (self.ctx.clone(), self.replays.clone());
				Plan::Job(Box::new(move || check(&ctx, &replays, task, segment, &view)))
			}
			Duty::Dispute { task, segment } => self.player.plan(at, &who, task, segment),
			_ => Plan::Ignore,
		}
	}
}

/// Replays the verdict's segment; the challenge to send when the verdict's replay hash
/// is not what the replay reaches.
fn check(
	ctx: &WorkerContext,
	replays: &Replays,
	id: TaskId,
	segment: u32,
	view: &chain::Task,
) -> Result<Option<RuntimeCall>, String> {
	let audit = view
		.audits
		.iter()
		.find(|a| a.segment == segment)
		.ok_or_else(|| format!("task {id} has no audit of segment {segment}"))?;
	let verdict = audit.verdict.ok_or_else(|| format!("segment {segment} has no verdict"))?;
	let replayed = dispute::replayed(ctx, replays, id, segment, view)?;
	let end = replayed.run.states.last().map(|s| s.root()).ok_or("empty replay")?;
	ctx.metrics.replayed(end == verdict.replay_hash);
	if end == verdict.replay_hash {
		// No game will follow: the segment's states are not kept.
		replays.lock().unwrap_or_else(|e| e.into_inner()).remove(&(id, segment));
		log::info!(
			target: "gensyn-worker",
			"whistleblower: task {id} segment {segment}: the verdict's replay checks out"
		);
		return Ok(None);
	}
	log::warn!(
		target: "gensyn-worker",
		"whistleblower: task {id} segment {segment}: the verdict claims replay 0x{}, this \
		 node's replay reaches 0x{}: challenging",
		hash::to_hex(&verdict.replay_hash),
		hash::to_hex(&end)
	);
	ctx.metrics.challenged();
	Ok(Some(RuntimeCall::Tasks(TasksCall::challenge { id, segment })))
}
