//! The verifier role: keeps a forced-error commitment standing, profiles Threshold
//! tasks, replays the segments it is drawn for with repops against the solver's
//! checkpoints (fetched from the solver's proof store and hash-checked), applies its
//! forced errors, reveals its secret in the challenge window, and defends its verdicts
//! in the pinpoint game. A solver's store that keeps failing to serve a segment (its
//! journal or checkpoints, as committed, or the task's data when the submitter does not
//! serve it either) is reported unavailable instead of judged.

use std::{
	collections::HashMap,
	sync::{Arc, Mutex},
};

use gensyn_runtime::{AccountId, BlockNumber, RuntimeCall};
use gensyn_workers::{
	dataset, hash,
	jobs::{self, VerifyJob},
	profile,
	proof_store::StoreError,
	replay::{self, ReplayError},
};
use pallet_gensyn_jackpot::{Binding, Call as JackpotCall};
use pallet_gensyn_stake::Role as StakeRole;
use pallet_gensyn_tasks::{Call as TasksCall, CheckpointProof, Duty, TaskId};
use sc_client_api::HeaderBackend;
use sp_core::H256;

use super::{
	chain,
	dispute::Player,
	duties::{DutyKey, Plan, Role},
	off_task, paged, publish,
	secrets::Secrets,
	segment::{self, Replays},
	WorkerContext, WorkerFault,
};

/// Segments a profiler runs from the start of a task (libtorch against repops).
const PROFILE_SEGMENTS: usize = 2;
/// A segment the solver's store does not serve is reported at the latest when this
/// few blocks of the verify period are left (two retries' worth).
const REPORT_MARGIN: BlockNumber = 2 * super::duties::RETRY_AFTER;

/// The block at which the solver's store first failed to serve each segment, by task,
/// segment and committed checkpoint root (a task re-drawn after a rejected proof is
/// trained again under the same id).
type Unserved = Arc<Mutex<HashMap<segment::ReplayKey, BlockNumber>>>;

/// The verifier's state.
pub struct Verifier {
	ctx: Arc<WorkerContext>,
	secrets: Secrets,
	player: Player,
	account: Option<AccountId>,
	unserved: Unserved,
	report_after: BlockNumber,
}

impl Verifier {
	/// A verifier keeping its secrets in `secrets`, that reports a segment unavailable
	/// once the solver's store has failed to serve it for `report_after` blocks.
	pub fn new(ctx: Arc<WorkerContext>, secrets: Secrets, report_after: BlockNumber) -> Self {
		// A verifier defends; it never challenges.
		let player = Player::new(ctx.clone(), "verifier", Replays::default(), Default::default());
		let unserved = Unserved::default();
		Verifier { ctx, secrets, player, account: None, unserved, report_after }
	}

	/// Whether to reveal now a secret the chain accepts from block `from` (the last third
	/// of the task's challenge window, which the chain fixes when the window opens): a
	/// call sent at the block before lands in `from` at the earliest.
	fn reveal_due(&self, at: H256, from: BlockNumber) -> Result<bool, String> {
		Ok(chain::number(&self.ctx.client, at)?.saturating_add(1) >= from)
	}

	/// The secret bound to `task` for this verifier and the forced-error rate it was
	/// bound at, when it is bound and the secret is known here.
	fn bound_secret(&self, at: H256, task: TaskId) -> Result<Option<([u8; 32], Binding)>, String> {
		let who = self.account.as_ref().ok_or("no account yet")?;
		let Some(binding) = chain::binding(&self.ctx.client, at, who, task)? else {
			return Ok(None);
		};
		let commitment = binding.commitment;
		self.secrets.get(&commitment).map(|s| Some((s, binding))).ok_or_else(|| {
			format!(
				"the secret of commitment 0x{} (task {task}) is not in this node's secrets",
				hash::to_hex(&commitment)
			)
		})
	}
}

impl Role for Verifier {
	fn name(&self) -> &'static str {
		"verifier"
	}

	fn on_block(&mut self, at: H256, account: &AccountId) {
		self.account = Some(account.clone());
		let earned = chain::earned(&self.ctx.client, at, account, StakeRole::Verifier);
		self.ctx.metrics.earned("verifier", earned);
	}

	fn key(&self, duty: &Duty<BlockNumber>, at: H256) -> DutyKey {
		if let Duty::Reveal { task, from, .. } = *duty {
			return DutyKey::Reveal(task, self.reveal_due(at, from).unwrap_or(true));
		}
		self.player.duty_key(duty, at, self.account.as_ref())
	}

	fn plan(&mut self, duty: &Duty<BlockNumber>, at: H256) -> Plan {
		match *duty {
			Duty::Commit => match self.secrets.fresh() {
				Ok((_, commitment)) => {
					Plan::Call(Box::new(RuntimeCall::Jackpot(JackpotCall::commit { commitment })))
				}
				Err(e) => Plan::failed(format!("cannot store a new secret: {e}")),
			},
			Duty::Reveal { task, from, .. } => match self.reveal_due(at, from) {
				Ok(false) => Plan::Ignore,
				Err(e) => Plan::failed(e),
				Ok(true) => match self.bound_secret(at, task) {
					Ok(Some((secret, _))) => {
						let reveal = JackpotCall::reveal { task, secret };
						Plan::Call(Box::new(RuntimeCall::Jackpot(reveal)))
					}
					Ok(None) => Plan::Ignore,
					Err(e) => Plan::failed(e),
				},
			},
			Duty::Profile { task, .. } => {
				let Some(who) = self.account.clone() else { return Plan::Ignore };
				match chain::task(&self.ctx.client, at, task) {
					Ok(view) => {
						let (ctx, secrets) = (self.ctx.clone(), self.secrets.clone());
						Plan::Job(Box::new(move || {
							profile_task(&ctx, &secrets, &who, task, &view).map(Some)
						}))
					}
					Err(e) => Plan::failed(e),
				}
			}
			Duty::RevealProfile { task, .. } => self.reveal_profile(at, task),
			// The chain names it to one verifier that read the checkpoint, once the
			// solver's turn is over.
			Duty::Publish { .. } => {
				let source = publish::Source::Kept(self.account.as_ref());
				publish::plan(&self.ctx, at, duty, source)
			}
			Duty::Verify { task, segment, by, forcible } => {
				let now = match chain::number(&self.ctx.client, at) {
					Ok(n) => n,
					Err(e) => return Plan::failed(e),
				};
				let view = match chain::task(&self.ctx.client, at, task) {
					Ok(v) => v,
					Err(e) => return Plan::failed(e),
				};
				let Some(key) = segment::replay_key(task, segment, &view) else {
					return Plan::failed(format!("task {task} has no result"));
				};
				let first = self.unserved.lock().ok().and_then(|u| u.get(&key).copied());
				// Reported after failing long enough, or, once failing, when the period is
				// about to end; at the first failure only at the very end (or when told).
				let may_report = self.report_after == 0
					|| first.is_some_and(|f| {
						now >= f.saturating_add(self.report_after)
							|| now.saturating_add(REPORT_MARGIN) >= by
					}) || now.saturating_add(super::duties::RETRY_AFTER) >= by;
				let store = StoreCheck { unserved: self.unserved.clone(), key, now, may_report };
				// A re-audit is never forced: its secret is not even read.
				let secret = if forcible { self.bound_secret(at, task) } else { Ok(None) };
				let forced = match secret {
					Ok(Some((secret, b))) => pallet_gensyn_jackpot::is_forced(
						&secret,
						b.seed.as_ref(),
						task,
						segment,
						b.rate,
					),
					Ok(None) => false,
					Err(e) => return Plan::failed(e),
				};
				let ctx = self.ctx.clone();
				Plan::Job(Box::new(move || {
					verify_segment(&ctx, task, segment, &view, forced, store).map(Some)
				}))
			}
			Duty::Dispute { task, segment } => match self.account.clone() {
				Some(who) => self.player.plan(at, &who, task, segment),
				None => Plan::Ignore,
			},
			_ => Plan::Ignore,
		}
	}
}

impl Verifier {
	/// Reveals the profile this node committed to for `task`, once every profiler has
	/// committed. A stored profile that does not match the chain's commitment is not
	/// sent: the call would only pay a fee.
	fn reveal_profile(&self, at: H256, task: TaskId) -> Plan {
		let Some(who) = self.account.as_ref() else { return Plan::Ignore };
		// A plain call: a failure is retried beside any replay, not behind it.
		let failed = |why: String| Plan::Quick(Box::new(move || Err(why)));
		let committed = match chain::profile_commitment(&self.ctx.client, at, who, task) {
			Ok(Some(c)) => c,
			Ok(None) => return Plan::Ignore,
			Err(e) => return failed(e),
		};
		let key = match chain::task(&self.ctx.client, at, task).and_then(|v| chain::spec(&v)) {
			Ok(spec) => profile_key(task, who, &spec),
			Err(e) => return failed(e),
		};
		match self.secrets.profile(&key) {
			Some((threshold, salt))
				if pallet_gensyn_tasks::profile_commitment(task, who, threshold, &salt)
					== committed =>
			{
				Plan::Call(Box::new(RuntimeCall::Tasks(TasksCall::reveal_profile {
					id: task,
					threshold,
					salt,
				})))
			}
			// Kept as it is (an operator may want to see it); the reveal cannot be made.
			Some(_) => failed(format!(
				"the profile stored for task {task} does not match the chain's commitment"
			)),
			None => failed(format!(
				"the profile committed for task {task} is not in this node's secrets"
			)),
		}
	}
}

/// Profiles a Threshold task: its first segments with libtorch and with repops; the
/// threshold it proposes covers their distance with a margin. The threshold is stored
/// with a fresh salt and only its commitment is sent: it is revealed once every
/// profiler has committed, so that no profiler can copy another's.
fn profile_task(
	ctx: &WorkerContext,
	secrets: &Secrets,
	who: &AccountId,
	id: TaskId,
	view: &chain::Task,
) -> Result<RuntimeCall, String> {
	let spec = chain::spec(view)?;
	let key = profile_key(id, who, &spec);
	if let Some((threshold, salt)) = secrets.profile(&key) {
		// Profiled before (a retry, or a restart before the commitment landed): the same
		// commitment again, so that whichever lands, its reveal is at hand.
		let commitment = pallet_gensyn_tasks::profile_commitment(id, who, threshold, &salt);
		return Ok(RuntimeCall::Tasks(TasksCall::commit_profile { id, commitment }));
	}
	// The threshold measures replay distances, in which the chunk root plays no part: the
	// profiler checks only the file hash, so that a task with a bogus chunk root is still
	// profiled (a profiler that lapsed would be slashed); solvers refuse such a task.
	let uri = spec.data.uri.as_str().unwrap_or_default();
	let limit = spec.data.max_file_len();
	let data = match dataset::fetch_verified(uri, &spec.data.file_hash.0, limit, &ctx.data)
		.and_then(|bytes| dataset::parse_data_ref(&spec.data, &bytes))
	{
		Ok(data) => Arc::new(data),
		// The submitter's data cannot be had or read: a lapsed profile is slashed, and a
		// decline is free (the task then fails, refunded, before anyone trains).
		Err(e) => {
			let why = super::submitters_data(e);
			log::warn!(target: "gensyn-worker", "verifier: declining to profile task {id}: {why}");
			return Ok(RuntimeCall::Tasks(TasksCall::decline_profile { id }));
		}
	};
	let device = gensyn_workers::tch_backend::device(ctx.cpu_only);
	let profiles = profile::profile(&spec, &data, [0; 32], PROFILE_SEGMENTS, ctx.threads, device)
		.map_err(|e| e.to_string())?;
	// Lowered to the chain's ceiling as it applies it (a bound that is not a finite
	// positive value bounds nothing; the floor wins where governance crossed the two)
	// where the measurements leave room. Finite and positive, or its reveal would be
	// refused (and slashed as missed).
	let bound =
		|bits: u32| Some(f64::from(f32::from_bits(bits))).filter(|b| b.is_finite() && *b > 0.0);
	let (floor, ceiling) = view.threshold_bounds;
	let ceiling = bound(ceiling).map(|c| bound(floor).map_or(c, |f| c.max(f)));
	let threshold =
		(profile::suggest_threshold(&profiles, ceiling) as f32).clamp(f32::MIN_POSITIVE, f32::MAX);
	log::info!(target: "gensyn-worker", "verifier: task {id} profiled: threshold {threshold:e}");
	let salt = secrets
		.store_profile(&key, threshold.to_bits())
		.map_err(|e| format!("cannot store the profile of task {id}: {e}"))?;
	let commitment = pallet_gensyn_tasks::profile_commitment(id, who, threshold.to_bits(), &salt);
	Ok(RuntimeCall::Tasks(TasksCall::commit_profile { id, commitment }))
}

/// The name a task's profile is stored under: its id, the profiler's account and the
/// spec's hash, so that a profile is only ever reused for the same work by the same
/// account (a task of another chain with the same id has another spec, or the same data
/// and model), and accounts sharing a worker directory never overwrite each other's.
fn profile_key(id: TaskId, who: &AccountId, spec: &gensyn_primitives::TaskSpec) -> String {
	use codec::Encode;
	let tag = hash::to_hex(&hash::blake2_256(&(who, spec).encode()));
	format!("{id}-{}", &tag[..32])
}

/// What a verify job does when the solver's store does not serve its segment.
struct StoreCheck {
	/// Where first failures are noted.
	unserved: Unserved,
	/// The segment's key there.
	key: segment::ReplayKey,
	/// The block the job was planned at.
	now: BlockNumber,
	/// Report the segment unavailable (the store failed long enough, or the deadline is
	/// near) rather than fail the job to retry later.
	may_report: bool,
}

impl StoreCheck {
	/// The store failed with `why`: the call reporting it, or the error to retry on.
	fn unserved(&self, id: TaskId, segment: u32, why: String) -> Result<RuntimeCall, String> {
		let mut unserved = self.unserved.lock().map_err(|_| "a poisoned lock".to_string())?;
		if self.may_report {
			unserved.remove(&self.key);
			log::warn!(
				target: "gensyn-worker",
				"verifier: task {id} segment {segment}: the solver's store does not serve it \
				 ({why}): reporting it unavailable"
			);
			return Ok(RuntimeCall::Tasks(TasksCall::report_unavailable { id, segment }));
		}
		let first = *unserved.entry(self.key).or_insert(self.now);
		Err(format!(
			"the solver's store does not serve segment {segment} ({why}); failing since block \
			 {first}"
		))
	}

	/// The segment was served.
	fn served(&self) {
		if let Ok(mut u) = self.unserved.lock() {
			u.remove(&self.key);
		}
	}
}

/// Replays `segment` of the task's committed run and returns the verdict to post, or
/// the report of an unavailable store.
fn verify_segment(
	ctx: &WorkerContext,
	id: TaskId,
	segment: u32,
	view: &chain::Task,
	forced: bool,
	store: StoreCheck,
) -> Result<RuntimeCall, String> {
	let spec = chain::spec(view)?;
	// What the store does not serve is read from its pages on chain where a report had
	// them published; else the store's failure counts towards a report.
	let unserved = |why: String| match paged::verdict(ctx, id, segment, view, forced) {
		Ok(Some(call)) => Ok(call),
		Ok(None) => store.unserved(id, segment, why),
		Err(e) => store.unserved(id, segment, format!("{why}; nor from its pages: {e}")),
	};
	let run = match segment::committed(ctx, id, view) {
		Ok(c) => c,
		Err(e) => return unserved(e),
	};
	let (base, segment::Journaled { journal, leaves }) = (&run.base, run.journaled()?);
	// A run off the task's checkpoint schedule replays to checkpoints of the solver's
	// choosing; no segment of it is judged. It is proven off its task from its commitment
	// first (which rejects the proof at settlement), then the segment is reported
	// unchecked: a report alone proves nothing once the solver publishes what it demands.
	let partner = ctx.faults.is(WorkerFault::PartnerFromElsewhere);
	match replay::check_schedule(&spec, journal) {
		Err(ReplayError::NotThisTask(_)) if partner => {}
		Ok(()) => {}
		Err(e @ ReplayError::NotThisTask(_)) => {
			let best = ctx.client.info().best_hash;
			// A proof that cannot be made (its checkpoint not served) leaves the report.
			if !chain::off_task_proven(&ctx.client, best, id).unwrap_or(true) {
				if let Ok(Some(proof)) = off_task::proof(ctx, &spec, &run) {
					log::warn!(
						target: "gensyn-worker",
						"verifier: task {id}: {e}; proving the run off its task"
					);
					return Ok(RuntimeCall::Tasks(TasksCall::prove_off_task { id, proof }));
				}
			}
			log::warn!(
				target: "gensyn-worker",
				"verifier: task {id} segment {segment}: {e}; reporting the segment unchecked"
			);
			return Ok(RuntimeCall::Tasks(TasksCall::report_unavailable { id, segment }));
		}
		// This node's own trouble (its initialisation of the model): retried, never
		// blamed on the solver.
		Err(e) => return Err(format!("task {id}: checking the run's schedule: {e}")),
	}
	let leaf = segment as usize + 1;
	let checkpoint_hash =
		*leaves.get(leaf).ok_or_else(|| format!("task {id}: no checkpoint {leaf}"))?;
	let proof = gensyn_primitives::merkle::proof(leaves, leaf)
		.ok_or_else(|| format!("task {id}: no Merkle proof for checkpoint {leaf}"))?;
	let siblings =
		proof.siblings.try_into().map_err(|_| format!("task {id}: Merkle proof too deep"))?;
	let proof = CheckpointProof { checkpoint_hash, siblings };
	if ctx.faults.is(WorkerFault::LazyVerifier) || partner {
		// Test fault: a pass claimed without replaying (the solver's own checkpoint
		// posted as the replay's end).
		log::warn!(target: "gensyn-worker", "verifier: task {id} segment {segment}: lazy pass");
		return Ok(RuntimeCall::Tasks(TasksCall::submit_verification {
			id,
			segment,
			distance: 0f32.to_bits(),
			replay_hash: checkpoint_hash,
			proof,
		}));
	}

	let private = ctx.data.private_hosts;
	match jobs::fetch_segments(base, journal, &[segment as usize], &ctx.store, private) {
		Err(e @ StoreError::Remote { .. }) => return unserved(e.to_string()),
		// This node's own trouble (its disk): retried, never blamed on the solver.
		Err(e) => return Err(e.to_string()),
		// Served once the data is had too (or the time since the first failure would
		// restart at every attempt).
		Ok(()) => {}
	}
	// The data comes from the submitter, or else from the solver's store (which serves
	// the data it trained on). Served by neither, the segment is reported unavailable
	// like a missing checkpoint, on the same schedule: the solver answers for everything
	// a replay needs. When the bytes the spec commits to cannot be replayed (their chunk
	// root or content is not what the spec says), every worker finds the same, and no
	// honest solver accepted the task (it checks first): the segment cannot be checked,
	// and it is reported so; a verdict would be one no game could defend at the input
	// level, and silence is slashed.
	let data = match segment::task_data(ctx, &spec, base) {
		Ok((_, data)) => {
			store.served();
			Arc::new(data)
		}
		Err(segment::DataMiss::Committed(e)) => {
			log::warn!(
				target: "gensyn-worker",
				"verifier: task {id} segment {segment}: the committed data cannot be \
				 replayed ({e}); reporting the segment unchecked"
			);
			return Ok(RuntimeCall::Tasks(TasksCall::report_unavailable { id, segment }));
		}
		Err(segment::DataMiss::Unserved(why)) => return unserved(why),
		Err(e @ segment::DataMiss::Local(_)) => return Err(format!("task {id}: {e}")),
	};
	// The chain's own: the decided threshold, or its bounded default.
	let threshold = view.threshold.map(f32::from_bits).unwrap_or(f32::MAX);
	let job = VerifyJob {
		spec: &spec,
		randomness: view.order_randomness,
		data: &data,
		store: &ctx.store,
		journal,
		threshold: threshold as f64,
		threads: ctx.threads,
		// A verdict is the repops replay's alone: its root and its distance are what a
		// game disputes, and a distance measured from another engine's replay is one
		// this verifier could not defend.
		second_opinion: None,
	};
	let report = match jobs::verify(&job, &[segment as usize]).pop() {
		Some(Ok(report)) => report,
		// The checkpoints served are not what the run committed to, or not checkpoints of
		// this task: the store does not serve the committed segment. That is reported,
		// never judged: a failing verdict would claim a replay root this verifier could
		// not defend move by move, and the solver would win the game.
		Some(Err(e @ (ReplayError::CommitmentMismatch { .. } | ReplayError::Checkpoint(_)))) => {
			return unserved(e.to_string())
		}
		// This node's own trouble (its disk, the engine): retried, never posted.
		Some(Err(e)) => return Err(e.to_string()),
		None => return Err("no report".to_string()),
	};
	let mut passed = report.passed;
	let mut distance = gensyn_primitives::verdict::posted_distance(report.distance);
	if ctx.faults.is(WorkerFault::ZeroDistancePartner) {
		log::warn!(
			target: "gensyn-worker",
			"verifier: task {id} segment {segment}: posting distance 0 for a partner (test fault)"
		);
		(distance, passed) = (0.0, true);
	}
	let mut replay_hash = hash::from_hex(&report.replayed_hash)
		.ok_or_else(|| format!("task {id} segment {segment}: a replay hash that is not hex"))?;
	ctx.metrics.replayed(passed);
	log::info!(
		target: "gensyn-worker",
		"verifier: task {id} segment {segment}: distance {distance:e}, {}{}",
		if passed { "passed" } else { "FAILED" },
		if forced { " (forced error: posting a failing verdict)" } else { "" }
	);
	if forced {
		(distance, replay_hash) = (f32::MAX, forced_error(&replay_hash));
	}
	Ok(RuntimeCall::Tasks(TasksCall::submit_verification {
		id,
		segment,
		distance: distance.to_bits(),
		replay_hash,
		proof,
	}))
}

/// The replay hash a forced error posts in place of `replay_hash`: one no replay reaches.
pub fn forced_error(replay_hash: &[u8; 32]) -> [u8; 32] {
	hash::blake2_256(&[&b"gensyn/forced-error"[..], &replay_hash[..]].concat())
}
