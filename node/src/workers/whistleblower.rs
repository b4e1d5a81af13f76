//! The whistleblower role: replays every verdict in a challenge window it is shown
//! (`Duty::Watch`) with repops and challenges those whose replay hash its own replay does
//! not reach, then plays the pinpoint game it opened. A caught forced error is paid from
//! the jackpot; a caught wrong verdict slashes the verifier.

use std::sync::Arc;

use gensyn_runtime::{AccountId, BlockNumber};
use pallet_gensyn_stake::Role as StakeRole;
use pallet_gensyn_tasks::Duty;
use sp_core::H256;

use super::{
	chain,
	dispute::{self, Challenged, Player},
	duties::{DutyKey, Plan, Role},
	segment::Replays,
	WorkerContext,
};

/// The whistleblower's state.
pub struct Whistleblower {
	ctx: Arc<WorkerContext>,
	replays: Replays,
	challenged: Challenged,
	player: Player,
	account: Option<AccountId>,
}

impl Whistleblower {
	/// A whistleblower.
	pub fn new(ctx: Arc<WorkerContext>) -> Self {
		let replays = Replays::default();
		let player = Player::new(ctx.clone(), replays.clone());
		let challenged = Challenged::default();
		Whistleblower { ctx, replays, challenged, player, account: None }
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
				let challenged = self.challenged.clone();
				Plan::Job(Box::new(move || {
					dispute::check_verdict(
						&ctx,
						(&replays, &challenged),
						"whistleblower",
						task,
						segment,
						&view,
					)
				}))
			}
			Duty::Dispute { task, segment } => self.player.plan(at, &who, task, segment),
			_ => Plan::Ignore,
		}
	}
}
