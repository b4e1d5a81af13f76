//! The loop every role runs: at each new best block, ask the runtime for the account's
//! duties, start what is not under way yet, and submit what finished jobs produced.

use std::{
	collections::HashMap,
	panic::{catch_unwind, AssertUnwindSafe},
	sync::Arc,
};

use futures::{channel::mpsc, StreamExt};
use gensyn_runtime::{BlockNumber, RuntimeCall};
use pallet_gensyn_tasks::{Duty, TaskId};
use sc_client_api::BlockchainEvents;
use sp_core::H256;
use sp_runtime::traits::Header as _;

use super::{submitter::Submitter, WorkerContext};

/// Blocks to wait for a submitted call to take effect before submitting it again.
const RESUBMIT_AFTER: BlockNumber = 10;
/// Blocks to wait before retrying a job that failed.
pub const RETRY_AFTER: BlockNumber = 20;
/// Blocks to wait before planning a call again that the pool refused (a call is cheap
/// to retry, and some are due within a window: a verifier's reveal).
const RESEND_AFTER: BlockNumber = 2;
/// Times a job's call the pool refused is sent again before the job is run again
/// instead (a refusal that lasts may be the call's own fault).
const MAX_RESENDS: u32 = 10;

/// What a role does about one duty now.
pub enum Plan {
	/// Nothing (not this role's duty, or nothing can be done yet).
	Ignore,
	/// Submit this call.
	Call(Box<RuntimeCall>),
	/// Run this on a blocking thread, one heavy job at a time per role (training,
	/// replay), then submit the call it returns.
	Job(Job),
	/// Run this on its own thread at once, beside any heavy job (a game move: small,
	/// and late at a cost).
	Quick(Job),
}

impl Plan {
	/// A plan that reports `why` as a failed job (retried later).
	pub fn failed(why: String) -> Plan {
		Plan::Job(Box::new(move || Err(why)))
	}
}

/// One heavy job at a time per role. A role's jobs queue behind one another, never
/// behind another role's: on a node that runs several, a verifier's replay or profile,
/// due by a deadline it is slashed for missing, must not wait for the solver's training.
#[derive(Default)]
pub struct Lanes {
	solver: std::sync::Mutex<()>,
	verifier: std::sync::Mutex<()>,
	whistleblower: std::sync::Mutex<()>,
}

impl Lanes {
	/// The lane of the role named `role` ([`Role::name`]).
	pub fn of(&self, role: &str) -> &std::sync::Mutex<()> {
		match role {
			"solver" => &self.solver,
			"verifier" => &self.verifier,
			_ => &self.whistleblower,
		}
	}
}

/// Work off the async loop: returns the call to submit (`None`: nothing to submit, the
/// duty is done), or why it could not.
pub type Job = Box<dyn FnOnce() -> Result<Option<RuntimeCall>, String> + Send>;

/// One worker role.
pub trait Role: Send {
	/// Its name in logs and metrics (`solver`, `verifier`).
	fn name(&self) -> &'static str;
	/// What to do about `duty`, read at block `at`.
	fn plan(&mut self, duty: &Duty<BlockNumber>, at: H256) -> Plan;
	/// Called once per new best block, before the duties (bookkeeping, metrics).
	fn on_block(&mut self, _at: H256, _account: &gensyn_runtime::AccountId) {}
	/// The key `duty` is tracked under, read at block `at` (a game's duty changes key
	/// with every move).
	fn key(&self, duty: &Duty<BlockNumber>, _at: H256) -> DutyKey {
		DutyKey::of(duty)
	}
}

/// Identifies a duty across blocks (deadlines left out).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum DutyKey {
	/// Profile a task.
	Profile(TaskId),
	/// Accept a task.
	Accept(TaskId),
	/// Train a task.
	Train(TaskId),
	/// Verify a segment.
	Verify(TaskId, u32),
	/// A dispute (not played by this role).
	Dispute(TaskId, u32),
	/// The move after `.2` moves of the game over a segment.
	Move(TaskId, u32, u32),
	/// Check a verdict (whistleblower).
	Watch(TaskId, u32),
	/// A failing verdict a whistleblower may check only once reveals open.
	Early(TaskId, u32),
	/// Check whether a task's committed run is one of the task (whistleblower), before
	/// its verdicts.
	OffTask(TaskId),
	/// Post a forced-error commitment.
	Commit,
	/// Reveal a forced-error secret (and whether it is time to).
	Reveal(TaskId, bool),
	/// Reveal a committed profile.
	RevealProfile(TaskId),
	/// Publish a page of a demanded checkpoint: the task, checkpoint, item and page.
	Publish(TaskId, u32, u32, u32),
}

impl DutyKey {
	/// The key of `duty`.
	pub fn of(duty: &Duty<BlockNumber>) -> Self {
		match *duty {
			Duty::Profile { task, .. } => DutyKey::Profile(task),
			Duty::Accept { task, .. } => DutyKey::Accept(task),
			Duty::Train { task, .. } => DutyKey::Train(task),
			Duty::Verify { task, segment, .. } => DutyKey::Verify(task, segment),
			Duty::Dispute { task, segment } => DutyKey::Dispute(task, segment),
			Duty::Commit => DutyKey::Commit,
			Duty::Reveal { task, .. } => DutyKey::Reveal(task, true),
			Duty::Watch { task, segment, .. } => DutyKey::Watch(task, segment),
			Duty::RevealProfile { task, .. } => DutyKey::RevealProfile(task),
			Duty::Publish { task, checkpoint, item, page, .. } => {
				DutyKey::Publish(task, checkpoint, item, page)
			}
		}
	}

	/// A short name for metrics.
	pub fn kind(&self) -> &'static str {
		match self {
			DutyKey::Profile(_) => "profile",
			DutyKey::Accept(_) => "accept",
			DutyKey::Train(_) => "train",
			DutyKey::Verify(..) => "verify",
			DutyKey::Dispute(..) => "dispute",
			DutyKey::Move(..) => "move",
			DutyKey::Watch(..) | DutyKey::Early(..) | DutyKey::OffTask(..) => "watch",
			DutyKey::Commit => "commit",
			DutyKey::Reveal(..) => "reveal",
			DutyKey::RevealProfile(_) => "reveal-profile",
			DutyKey::Publish(..) => "publish",
		}
	}
}

/// Where a duty stands on this node.
#[derive(Clone, Copy, Debug)]
enum Progress {
	/// Its job runs.
	Running,
	/// Its call went to the pool at this block.
	Sent(BlockNumber),
	/// Its job failed at this block.
	Failed(BlockNumber),
	/// Its call was refused by the pool at this block (a job's call is kept and sent
	/// again, not computed again).
	Refused(BlockNumber),
	/// Nothing to do about it (ignored): looked at again when it changes.
	Idle,
}

/// A finished job.
struct Finished {
	key: DutyKey,
	result: Result<Option<RuntimeCall>, String>,
}

/// Runs `role` for the account of `submitter` until the node stops.
pub async fn run(ctx: Arc<WorkerContext>, submitter: Submitter, mut role: Box<dyn Role>) {
	let name = role.name();
	let mut blocks = ctx.client.import_notification_stream().fuse();
	let (done_tx, done_rx) = mpsc::unbounded::<Finished>();
	let mut done_rx = done_rx.fuse();
	let mut progress: HashMap<DutyKey, Progress> = HashMap::new();
	// Calls jobs computed that the pool refused: sent again while their duty lasts (a
	// challenge or a verdict is due within a window; a training job is hours of work).
	let mut held: HashMap<DutyKey, (RuntimeCall, u32)> = HashMap::new();
	let mut best: BlockNumber = 0;
	// Why the chain's runtime is not one this node can act on, while it is not.
	let mut halted: Option<String> = None;
	loop {
		futures::select! {
			block = blocks.next() => {
				let Some(block) = block else { break };
				if !block.is_new_best {
					continue;
				}
				best = *block.header.number();
				match super::chain::runtime_incompatibility(&ctx.client, block.hash) {
					Ok(None) => {
						if halted.take().is_some() {
							log::info!(target: "gensyn-worker", "{name}: the chain's runtime is this node's again; acting again");
						}
					}
					Ok(Some(why)) => {
						// Encoded for a runtime the chain no longer runs: never sent.
						held.clear();
						if halted.as_ref() != Some(&why) {
							log::error!(target: "gensyn-worker", "{name}: stopped acting: {why}");
						}
						halted = Some(why);
						continue;
					}
					Err(e) => {
						log::warn!(target: "gensyn-worker", "{name}: cannot read the runtime's version: {e}");
						continue;
					}
				}
				role.on_block(block.hash, submitter.account());
				let duties = match super::chain::duties(&ctx.client, block.hash, submitter.account()) {
					Ok(d) => d,
					Err(e) => {
						log::warn!(target: "gensyn-worker", "{name}: cannot read duties: {e}");
						continue;
					}
				};
				let keys: Vec<DutyKey> = duties.iter().map(|d| role.key(d, block.hash)).collect();
				progress.retain(|k, p| matches!(p, Progress::Running) || keys.contains(k));
				held.retain(|k, _| keys.contains(k));
				for (duty, key) in duties.iter().zip(keys) {
					let due = match progress.get(&key) {
						None => true,
						Some(Progress::Running) | Some(Progress::Idle) => false,
						Some(Progress::Sent(at)) => best >= at.saturating_add(RESUBMIT_AFTER),
						Some(Progress::Failed(at)) => best >= at.saturating_add(RETRY_AFTER),
						Some(Progress::Refused(at)) => best >= at.saturating_add(RESEND_AFTER),
					};
					if !due {
						continue;
					}
					if let Some((call, resent)) = held.remove(&key) {
						let state = if send(&submitter, name, key, call.clone(), &ctx).await {
							Progress::Sent(best)
						} else if resent + 1 < MAX_RESENDS {
							held.insert(key, (call, resent + 1));
							Progress::Refused(best)
						} else {
							log::warn!(target: "gensyn-worker", "{name}: {key:?} refused {MAX_RESENDS} times; running its job again in {RETRY_AFTER} blocks");
							Progress::Failed(best)
						};
						progress.insert(key, state);
						continue;
					}
					let (job, heavy) = match role.plan(duty, block.hash) {
						Plan::Ignore => {
							progress.insert(key, Progress::Idle);
							continue;
						}
						Plan::Call(call) => {
							let sent = send(&submitter, name, key, *call, &ctx).await;
							progress.insert(key, if sent { Progress::Sent(best) } else { Progress::Refused(best) });
							continue;
						}
						Plan::Job(job) => (job, true),
						Plan::Quick(job) => (job, false),
					};
					log::info!(target: "gensyn-worker", "{name}: starting {key:?}");
					let state = if spawn_job(name, key, job, heavy, &ctx, done_tx.clone()) {
						Progress::Running
					} else {
						Progress::Failed(best)
					};
					progress.insert(key, state);
				}
			}
			finished = done_rx.next() => {
				let Some(Finished { key, result }) = finished else { continue };
				let state = match result {
					// Built for a runtime the chain no longer runs: never sent.
					Ok(Some(_)) if halted.is_some() => Progress::Failed(best),
					Ok(Some(call)) => {
						if send(&submitter, name, key, call.clone(), &ctx).await {
							Progress::Sent(best)
						} else {
							held.insert(key, (call, 0));
							Progress::Refused(best)
						}
					}
					Ok(None) => Progress::Idle,
					Err(e) => {
						log::warn!(target: "gensyn-worker", "{name}: {key:?} failed (retrying in {RETRY_AFTER} blocks): {e}");
						ctx.metrics.job_failed(name);
						Progress::Failed(best)
					}
				};
				progress.insert(key, state);
			}
		}
	}
}

/// Submits `call`; whether the pool took it.
async fn send(
	submitter: &Submitter,
	role: &str,
	key: DutyKey,
	call: RuntimeCall,
	ctx: &WorkerContext,
) -> bool {
	if ctx.faults.loses(&call) {
		log::warn!(target: "gensyn-worker", "{role}: {key:?} lost on its way (test fault)");
		return true;
	}
	match submitter.submit(call).await {
		Ok(hash) => {
			log::info!(target: "gensyn-worker", "{role}: submitted {key:?} ({hash:?})");
			ctx.metrics.submitted(role, key.kind());
			true
		}
		Err(e) => {
			log::warn!(target: "gensyn-worker", "{role}: submitting {key:?} failed: {e}");
			false
		}
	}
}

/// Runs `job` on its own thread (one `heavy` job at a time per role); a panic in it is
/// reported as a failure. `false` when no thread could be started.
fn spawn_job(
	role: &'static str,
	key: DutyKey,
	job: Job,
	heavy: bool,
	ctx: &Arc<WorkerContext>,
	done: mpsc::UnboundedSender<Finished>,
) -> bool {
	let ctx = ctx.clone();
	let spawned = std::thread::Builder::new().name(format!("gensyn-{role}-job")).spawn(move || {
		let result = {
			let lane = ctx.heavy.of(role);
			let _heavy = heavy.then(|| lane.lock().unwrap_or_else(|e| e.into_inner()));
			let started = std::time::Instant::now();
			let result = catch_unwind(AssertUnwindSafe(job)).unwrap_or_else(|panic| {
				let what = panic
					.downcast_ref::<String>()
					.cloned()
					.or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
					.unwrap_or_else(|| "a panic".into());
				Err(format!("the job panicked: {what}"))
			});
			ctx.metrics.job_took(role, key.kind(), started.elapsed().as_secs_f64());
			result
		};
		let _ = done.unbounded_send(Finished { key, result });
	});
	match spawned {
		Ok(_) => true,
		Err(e) => {
			log::warn!(target: "gensyn-worker", "{role}: cannot start a thread for {key:?}: {e}");
			false
		}
	}
}

#[cfg(test)]
mod tests {
	use super::Lanes;

	#[test]
	fn a_role_never_waits_for_another_roles_heavy_job() {
		let lanes = Lanes::default();
		let training = lanes.of("solver").lock().unwrap();
		// The verifier and the whistleblower go ahead beside the solver's training...
		assert!(lanes.of("verifier").try_lock().is_ok());
		assert!(lanes.of("whistleblower").try_lock().is_ok());
		// ...while the solver's own next job waits for it.
		assert!(lanes.of("solver").try_lock().is_err());
		drop(training);
		assert!(lanes.of("solver").try_lock().is_ok());
	}
}
