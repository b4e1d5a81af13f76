//! The whistleblower role: replays the verdicts in a challenge window it is shown
//! (`Duty::Watch`; all of them, or a secret random sample with `--watch-percent`, and
//! every verdict of a round whose watch lottery it won) with repops and challenges those
//! whose replay hash its own replay does not reach, then plays the pinpoint game it
//! opened. A forced error caught by a round's watcher is paid from the jackpot; a caught
//! wrong verdict slashes the verifier.

use std::collections::HashMap;
use std::hash::BuildHasher;
use std::sync::{Arc, Mutex};

use gensyn_runtime::{
	watch::{self, WatchTicket},
	AccountId, BlockNumber, RuntimeCall,
};
use pallet_gensyn_stake::Role as StakeRole;
use pallet_gensyn_tasks::{Call as TasksCall, Duty, Hash32, TaskId};
use sp_core::{sr25519, H256};
use sp_keystore::KeystorePtr;

use super::{
	chain,
	challenges::Challenged,
	dispute::{self, Player},
	duties::{DutyKey, Plan, Role},
	off_task, published,
	segment::{self, Replays},
	WorkerContext,
};

/// The role's name, in logs and where the workers' code asks which role reads a run.
const ROLE: &str = "whistleblower";

/// The whistleblower's state.
pub struct Whistleblower {
	ctx: Arc<WorkerContext>,
	replays: Replays,
	challenged: Challenged,
	player: Player,
	account: Option<AccountId>,
	sample: Sample,
	tickets: Tickets,
	examined: Examined,
}

/// Committed runs (task and checkpoint root) this node has checked against their task
/// (a proof sent for those that are not its), shared with the jobs that check them, and
/// whether the check was whole: with the run's journal or its first checkpoint, without
/// which no proof can be made.
#[derive(Clone, Default)]
struct Examined(Arc<Mutex<HashMap<RunKey, bool>>>);

/// A committed run: its task and checkpoint root.
type RunKey = (TaskId, [u8; 32]);

/// Most runs [`Examined`] remembers (forgotten all at once; one more check each).
const EXAMINED_KEPT: usize = 4096;

impl Examined {
	/// Whether `key` was examined, and if so whether whole.
	fn get(&self, key: &RunKey) -> Option<bool> {
		self.0.lock().unwrap_or_else(|e| e.into_inner()).get(key).copied()
	}

	fn insert(&self, key: RunKey, whole: bool) {
		let mut all = self.0.lock().unwrap_or_else(|e| e.into_inner());
		if all.len() >= EXAMINED_KEPT {
			all.clear();
		}
		all.insert(key, whole);
	}
}

impl Whistleblower {
	/// A whistleblower that checks `watch_percent` percent of the verdicts it is shown,
	/// and every one of a round whose lottery its `tickets` win.
	pub fn new(ctx: Arc<WorkerContext>, watch_percent: u8, tickets: Tickets) -> Self {
		let replays = Replays::default();
		let challenged = Challenged::default();
		let player = Player::new(ctx.clone(), ROLE, replays.clone(), challenged.clone());
		let sample = Sample::new(watch_percent);
		let examined = Examined::default();
		Whistleblower { ctx, replays, challenged, player, account: None, sample, tickets, examined }
	}

	/// The committed run of `task` at block `at` when this node has not yet checked it
	/// against its task: never, or only without its journal and its first checkpoint,
	/// one of which this node has now (its checks fetch the journal, or read the
	/// checkpoint from its pages).
	fn unexamined(&self, at: H256, task: TaskId) -> Option<RunKey> {
		let view = chain::task(&self.ctx.client, at, task).ok()?;
		let key = (task, view.result.as_ref()?.checkpoint_root);
		match self.examined.get(&key) {
			None => Some(key),
			Some(true) => None,
			Some(false) => (segment::journal_kept(&self.ctx, ROLE, &view)
				|| published::recorded(&self.ctx.data.cache, (&key.1, 0))
				|| start_published(&self.ctx, at, task))
			.then_some(key),
		}
	}

	/// A job that checks the committed run of `task` against its task and, when it is
	/// not one of the task, proves it (`prove_off_task`): the chain then rejects it at
	/// settlement, whatever its verdicts say.
	fn examine(&self, at: H256, key: RunKey) -> Plan {
		let (ctx, examined, task) = (self.ctx.clone(), self.examined.clone(), key.0);
		Plan::Quick(Box::new(move || {
			let view = chain::task(&ctx.client, at, task)?;
			if chain::off_task_proven(&ctx.client, at, task)? {
				examined.insert(key, true);
				return Ok(None);
			}
			let spec = chain::spec(&view)?;
			let committed = segment::committed_run(&ctx, ROLE, task, &view)?;
			let journal = committed.journaled().is_ok();
			if !journal {
				// Without the journal the run's first checkpoint comes from its pages:
				// demanded while the chain takes it (with any verdict in its first
				// window), read once published.
				let start = published::ensure(&ctx, task, &spec, &view, &committed, 0);
				match start {
					Ok(Some(demand)) => {
						examined.insert(key, false);
						return Ok(Some(demand));
					}
					Ok(None) => {}
					Err(e) => log::info!(
						target: "gensyn-worker",
						"whistleblower: task {task}: its run's first checkpoint: {e}"
					),
				}
			}
			// Checked whole with the journal, or with the first checkpoint read before
			// the proof is tried (which reads it), or published but unreadable here
			// (never tried again).
			let whole = journal
				|| published::recorded(&ctx.data.cache, (&key.1, 0))
				|| start_published(&ctx, at, task);
			// A proof that cannot be made (a checkpoint or the journal not served) never
			// holds up the checks of the task's verdicts. Without the journal or the
			// run's first checkpoint from its pages, the run is examined again once this
			// node has one, or once the checkpoint is published.
			let proof = off_task::proof(&ctx, &spec, &committed).unwrap_or_else(|e| {
				log::warn!(
					target: "gensyn-worker",
					"whistleblower: task {task}: no proof of its run made: {e}"
				);
				None
			});
			examined.insert(key, whole);
			Ok(proof.map(|proof| {
				log::warn!(
					target: "gensyn-worker",
					"whistleblower: task {task}: proving its committed run off the task"
				);
				RuntimeCall::Tasks(TasksCall::prove_off_task { id: task, proof })
			}))
		}))
	}

	/// Whether the verdict on `segment` of `task` is a failing one this node may not
	/// challenge yet: before reveals open only a round's watchers may.
	fn waits_for_reveals(&self, at: H256, task: TaskId, segment: u32) -> bool {
		let client = &self.ctx.client;
		self.tickets.winning(client, at, task).is_none()
			&& !chain::reveals_open(client, at, task).unwrap_or(false)
			&& chain::verdict_fails(client, at, task, segment).unwrap_or(true)
	}
}

/// Whether every page of task `id`'s run's first checkpoint was published on a demand,
/// as of block `at`.
fn start_published(ctx: &WorkerContext, at: H256, id: TaskId) -> bool {
	let demands = chain::demands(&ctx.client, at, id).unwrap_or_default();
	demands.iter().any(|d| d.checkpoint == 0 && d.next.is_none())
}

/// Most lottery outcomes [`Tickets`] remembers (one per round; forgotten all at once).
const TICKETS_KEPT: usize = 4096;

/// This node's tickets of the rounds' watch lotteries: its sr25519 VRF over each round's
/// seed, made with the whistleblower key in the keystore (nobody else can make it), and
/// kept where it wins.
pub struct Tickets {
	keystore: KeystorePtr,
	public: sr25519::Public,
	made: Mutex<HashMap<Hash32, Option<WatchTicket>>>,
}

impl Tickets {
	/// The tickets of the account whose key is `public` in `keystore`.
	pub fn new(keystore: KeystorePtr, public: sr25519::Public) -> Self {
		Tickets { keystore, public, made: Mutex::new(HashMap::new()) }
	}

	/// This node's winning ticket of `task`'s round lottery as of block `at`, if it won.
	pub fn winning(
		&self,
		client: &crate::service::FullClient,
		at: H256,
		task: TaskId,
	) -> Option<WatchTicket> {
		let draw = chain::watch_draw(client, at, task).ok().flatten()?;
		// A whistleblower that joined the active list after the lottery's `bonded_by`
		// (or is off it) takes no part in it.
		let account = AccountId::from(self.public);
		let since = chain::active_since(client, at, &account, StakeRole::Whistleblower).ok()??;
		if since > draw.bonded_by {
			return None;
		}
		let mut made = self.made.lock().unwrap_or_else(|e| e.into_inner());
		if let Some(ticket) = made.get(&draw.seed) {
			return ticket.clone();
		}
		let data = watch::input(&draw.seed).into_sign_data();
		let signed = self.keystore.sr25519_vrf_sign(super::WHISTLEBLOWER_KEY, &self.public, &data);
		let signature = match signed {
			Ok(Some(s)) => s,
			Ok(None) | Err(_) => {
				log::warn!(target: "gensyn-worker", "whistleblower: no key to draw task {task}'s watch lottery");
				made.insert(draw.seed, None);
				return None;
			}
		};
		let won =
			watch::score_of(&self.public, &draw.seed, &signature).is_some_and(|s| draw.won(s));
		let ticket = won.then(|| WatchTicket::from_signature(&signature));
		if won {
			log::info!(target: "gensyn-worker", "whistleblower: won the watch lottery of task {task}'s round");
		}
		if made.len() >= TICKETS_KEPT {
			made.clear();
		}
		made.insert(draw.seed, ticket.clone());
		ticket
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
		ROLE
	}

	fn on_block(&mut self, at: H256, account: &AccountId) {
		self.account = Some(account.clone());
		let earned = chain::earned(&self.ctx.client, at, account, StakeRole::Whistleblower);
		self.ctx.metrics.earned(ROLE, earned);
	}

	fn key(&self, duty: &Duty<BlockNumber>, at: H256) -> DutyKey {
		match *duty {
			Duty::Watch { task, .. } if self.unexamined(at, task).is_some() => {
				DutyKey::OffTask(task)
			}
			// Looked at again once reveals open.
			Duty::Watch { task, segment, .. } if self.waits_for_reveals(at, task, segment) => {
				DutyKey::Early(task, segment)
			}
			_ => self.player.duty_key(duty, at, self.account.as_ref()),
		}
	}

	fn plan(&mut self, duty: &Duty<BlockNumber>, at: H256) -> Plan {
		let Some(who) = self.account.clone() else { return Plan::Ignore };
		// A task's run is checked against the task before any of its verdicts.
		if let Duty::Watch { task, .. } = *duty {
			if let Some(key) = self.unexamined(at, task) {
				return self.examine(at, key);
			}
		}
		match *duty {
			Duty::Watch { task, segment, .. } if self.waits_for_reveals(at, task, segment) => {
				Plan::Ignore
			}
			Duty::Watch { task, segment, .. } => {
				// A round whose lottery this node won is checked whole: only its
				// watchers' challenges earn the catches on it.
				let ticket = self.tickets.winning(&self.ctx.client, at, task);
				if ticket.is_none() && !self.sample.picks(task, segment) {
					log::debug!(target: "gensyn-worker", "whistleblower: task {task} segment {segment}: not in this node's sample");
					return Plan::Ignore;
				}
				dispute::plan_check(
					&self.ctx,
					(&self.replays, &self.challenged),
					(ROLE, ticket, Some(who.clone())),
					false,
					at,
					(task, segment),
				)
			}
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
