//! The whistleblower role: replays the verdicts in a challenge window it is shown
//! (`Duty::Watch`; all of them, or a secret random sample with `--watch-percent`) with
//! repops and challenges those whose replay hash its own replay does not reach, then
//! plays the pinpoint game it opened. A caught forced error is paid from the jackpot; a
//! caught wrong verdict slashes the verifier.

use std::hash::BuildHasher;
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
	sample: Sample,
}

impl Whistleblower {
	/// A whistleblower that checks `watch_percent` percent of the verdicts it is shown.
	pub fn new(ctx: Arc<WorkerContext>, watch_percent: u8) -> Self {
		let replays = Replays::default();
		let player = Player::new(ctx.clone(), replays.clone());
		let challenged = Challenged::default();
		let sample = Sample::new(watch_percent);
		Whistleblower { ctx, replays, challenged, player, account: None, sample }
	}
}

/// Which verdicts a whistleblower checks: a fixed share of them, drawn by hashing the
/// verdict's task and segment with keys only this process knows.
pub struct Sample {
	percent: u8,
	keys: std::collections::hash_map::RandomState,
}

impl Sample {
	/// A sample of `percent` percent (capped at 100).
	pub fn new(percent: u8) -> Self {
		Sample { percent: percent.min(100), keys: Default::default() }
	}

	/// Whether the verdict on `segment` of `task` is checked.
	pub fn picks(&self, task: u64, segment: u32) -> bool {
		self.percent >= 100 || self.keys.hash_one((task, segment)) % 100 < u64::from(self.percent)
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
			// A task this node was drawn to watch is checked whole: only its watcher's
			// challenges earn the catches on it.
			Duty::Watch { task, segment, .. }
				if !self.sample.picks(task, segment)
					&& chain::watcher(&self.ctx.client, at, task).ok().flatten()
						!= Some(who.clone()) =>
			{
				log::debug!(target: "gensyn-worker", "whistleblower: task {task} segment {segment}: not in this node's sample");
				Plan::Ignore
			}
			Duty::Watch { task, segment, .. } => dispute::plan_check(
				&self.ctx,
				(&self.replays, &self.challenged),
				"whistleblower",
				false,
				at,
				(task, segment),
			),
			Duty::Dispute { task, segment } => self.player.plan(at, &who, task, segment),
			_ => Plan::Ignore,
		}
	}
}

#[cfg(test)]
mod tests {
	use super::Sample;

	#[test]
	fn a_sample_checks_about_its_share_and_the_same_verdicts_each_time() {
		let all = Sample::new(100);
		assert!((0..1000).all(|s| all.picks(7, s)));
		let quarter = Sample::new(25);
		let picked: Vec<bool> = (0..4000).map(|s| quarter.picks(7, s)).collect();
		let n = picked.iter().filter(|p| **p).count();
		assert!((800..1200).contains(&n), "{n} of 4000 picked at 25%");
		assert!((0..4000).all(|s| quarter.picks(7, s) == picked[s as usize]), "stable");
		// Another node draws another sample.
		let other = Sample::new(25);
		assert!((0..4000).any(|s| other.picks(7, s) != picked[s as usize]));
	}
}
