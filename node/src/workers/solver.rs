//! The solver role: accepts the tasks it is offered once their data checks out against
//! the spec (file hash, chunk root, declared shape), declines the others, and trains
//! what it accepted, with libtorch (GPU when present) for Threshold tasks and repops for
//! Exact ones; the result it commits points verifiers at its proof store, which serves
//! its checkpoints and a copy of the data it trained on. A failing
//! verdict on its work is replayed and, when the verdict's replay is not what repops
//! reaches, challenged and played out.

use std::{sync::Arc, time::Duration};

use gensyn_primitives::VerificationMode;
use gensyn_runtime::{AccountId, BlockNumber, RuntimeCall};
use gensyn_workers::{
	dataset,
	jobs::{self, BackendKind, TrainJob},
};
use pallet_gensyn_stake::Role as StakeRole;
use pallet_gensyn_tasks::{Call as TasksCall, Duty, TaskId};
use sp_core::H256;
use sp_runtime::BoundedVec;

use super::{
	chain,
	challenges::Challenged,
	dispute::{self, Player},
	duties::{DutyKey, Plan, Role},
	publish,
	segment::Replays,
	WorkerContext, WorkerFault,
};

/// The solver's state.
pub struct Solver {
	ctx: Arc<WorkerContext>,
	/// Base URL of this node's proof store (what the on-chain endpoint should be).
	url: String,
	replays: Replays,
	challenged: Challenged,
	player: Player,
	account: Option<AccountId>,
}

impl Solver {
	/// A solver whose proof store answers at `url`.
	pub fn new(ctx: Arc<WorkerContext>, url: String) -> Self {
		let replays = Replays::default();
		let challenged = Challenged::default();
		let player = Player::new(ctx.clone(), "solver", replays.clone(), challenged.clone());
		Solver { ctx, url, replays, challenged, player, account: None }
	}
}

impl Role for Solver {
	fn name(&self) -> &'static str {
		"solver"
	}

	fn on_block(&mut self, at: H256, account: &AccountId) {
		self.account = Some(account.clone());
		let earned = chain::earned(&self.ctx.client, at, account, StakeRole::Solver);
		self.ctx.metrics.earned("solver", earned);
	}

	fn key(&self, duty: &Duty<BlockNumber>, at: H256) -> DutyKey {
		self.player.duty_key(duty, at, self.account.as_ref())
	}

	fn plan(&mut self, duty: &Duty<BlockNumber>, at: H256) -> Plan {
		match *duty {
			Duty::Watch { task, segment, .. }
				if self.ctx.faults.is(WorkerFault::StarvingContester) =>
			{
				let ctx = self.ctx.clone();
				Plan::Quick(Box::new(move || starve_and_contest(&ctx, at, task, segment).map(Some)))
			}
			Duty::Watch { task, segment, .. } => dispute::plan_check(
				&self.ctx,
				(&self.replays, &self.challenged),
				("solver", None, None),
				true,
				at,
				(task, segment),
			),
			Duty::Dispute { task, segment } => match self.account.clone() {
				Some(who) => self.player.plan(at, &who, task, segment),
				None => Plan::Ignore,
			},
			Duty::Accept { task, by } => {
				let (view, now) = match (
					chain::task(&self.ctx.client, at, task),
					chain::number(&self.ctx.client, at),
				) {
					(Ok(v), Ok(n)) => (v, n),
					(Err(e), _) | (_, Err(e)) => return Plan::failed(e),
				};
				let blocks = by.saturating_sub(now).saturating_sub(DECLINE_MARGIN);
				let time = Duration::from_millis(u64::from(blocks) * gensyn_runtime::SLOT_DURATION);
				let ctx = self.ctx.clone();
				// Beside any heavy job: a solver training another task must still accept
				// or decline this one before its accept deadline (missing it is slashed).
				Plan::Quick(Box::new(move || accept(&ctx, task, &view, time).map(Some)))
			}
			Duty::Publish { .. } => publish::plan(&self.ctx, at, duty, publish::Source::Own),
			Duty::Train { task, order_randomness, .. } => {
				let view = match chain::task(&self.ctx.client, at, task) {
					Ok(v) => v,
					Err(e) => return Plan::failed(e),
				};
				let ctx = self.ctx.clone();
				let url = self.url.clone();
				Plan::Job(Box::new(move || {
					train(&ctx, task, &view, order_randomness, &url).map(Some)
				}))
			}
			_ => Plan::Ignore,
		}
	}
}

/// Blocks before an offer's accept deadline by which a solver whose check of the data
/// has not finished declines (time for the decline to be included).
const DECLINE_MARGIN: BlockNumber = 10;

/// Checks the task's data within `time` and returns its `accept_task`, or its
/// `decline_task` when the data cannot be had, fails its checks or was not checked in
/// time. The file must match the spec's file hash and chunk root and hold what the spec
/// declares: under a chunk root that is not the file's (attack A4(b)) no honest solver
/// could prove a data value in a dispute, and it would lose the game and be slashed; data
/// it cannot fetch it could not train on. Declining costs nothing but the turn, where a
/// lapsed offer is slashed, so the solver declines on any data error, and when a download
/// that trickles would outlast the offer. A downloaded file stays in the cache, where
/// training finds it.
fn accept(
	ctx: &WorkerContext,
	id: TaskId,
	view: &chain::Task,
	time: Duration,
) -> Result<RuntimeCall, String> {
	let spec = chain::spec(view)?;
	let (data, source) = (spec.data.clone(), ctx.data.clone());
	let (tx, rx) = std::sync::mpsc::channel();
	// On a thread of its own, so that the check cannot hold the answer past the deadline
	// (a download left running ends at its own timeout).
	std::thread::spawn(move || {
		let _ = tx.send(dataset::load_data_ref(&data, &source).map(|_| ()));
	});
	let why = match rx.recv_timeout(time) {
		Ok(Ok(())) => {
			log::info!(target: "gensyn-worker", "solver: task {id}: its data checks out, accepting");
			return Ok(RuntimeCall::Tasks(TasksCall::accept_task { id }));
		}
		Ok(Err(e)) => super::submitters_data(e),
		Err(_) => format!("its data was not fetched and checked within {time:?}"),
	};
	log::warn!(target: "gensyn-worker", "solver: declining task {id}: {why}");
	Ok(RuntimeCall::Tasks(TasksCall::decline_task { id }))
}

/// Trains (or resumes) the task and returns its `submit_result`.
fn train(
	ctx: &WorkerContext,
	id: TaskId,
	view: &chain::Task,
	randomness: [u8; 32],
	url: &str,
) -> Result<RuntimeCall, String> {
	let spec = chain::spec(view)?;
	let file = dataset::fetch_data_ref(&spec.data, &ctx.data)
		.map_err(|e| format!("task {id}: {}", super::submitters_data(e)))?;
	// The store serves the data beside the checkpoints: a verifier that cannot get it
	// from the submitter replays from this copy, and reports the segment unavailable
	// when neither serves it (the solver answers for everything a replay needs).
	ctx.store.put(&file).map_err(|e| format!("task {id}: keeping its data: {e}"))?;
	let data = dataset::parse_data_ref(&spec.data, &file)
		.map_err(|e| format!("task {id}: {}", super::submitters_data(e)))?;
	drop(file);
	let lazy =
		[WorkerFault::LazySolver, WorkerFault::ZeroDistancePartner, WorkerFault::StarvingContester];
	let randomness = if lazy.iter().any(|f| ctx.faults.is(*f)) {
		// Test fault: genuine training, but on batches of its own choosing (cheaper to
		// prepare, and not the task's): every checkpoint misses what a replay reaches.
		log::warn!(target: "gensyn-worker", "solver: task {id}: training on the wrong data order");
		[0xEE; 32]
	} else {
		randomness
	};
	let backend = match spec.verification.mode {
		VerificationMode::Exact => BackendKind::Repops,
		VerificationMode::Threshold => BackendKind::Tch,
	};
	let device =
		gensyn_workers::tch_backend::device(ctx.cpu_only || backend == BackendKind::Repops);
	if backend == BackendKind::Tch {
		tch::set_num_threads(ctx.threads as i32);
	}
	log::info!(
		target: "gensyn-worker",
		"solver: training task {id}: {} steps with {} on {device:?}",
		spec.total_steps(),
		backend.name()
	);
	let job = TrainJob {
		spec: &spec,
		randomness,
		data: Arc::new(data),
		store: &ctx.store,
		backend,
		device,
		threads: ctx.threads,
		stop_after: ctx.faults.stop_after(),
	};
	let trained = if ctx.faults.is(WorkerFault::PartnerFromElsewhere) {
		train_from_elsewhere(&job).map_err(|e| format!("task {id}: {e}"))?
	} else {
		jobs::train(&job, None).map_err(|e| e.to_string())?
	};
	let mut r = trained.result;
	if ctx.faults.is(WorkerFault::MismatchedSolver) {
		// Test fault: every committed checkpoint hash after the initial state's is not the
		// checkpoint's own (a first one other than the task's initial state is a run
		// off the task's schedule, reported before any checkpoint is fetched).
		log::warn!(target: "gensyn-worker", "solver: task {id}: committing mismatched checkpoints");
		for entry in r.journal.checkpoints.iter_mut().skip(1) {
			let real = gensyn_workers::hash::from_hex(&entry.state_hash).unwrap_or_default();
			let fake = gensyn_workers::hash::blake2_256(&real);
			entry.state_hash = gensyn_workers::hash::to_hex(&fake);
		}
		ctx.store.save_journal(&r.journal).map_err(|e| e.to_string())?;
		r.checkpoint_root = gensyn_workers::train::checkpoint_root(&r.journal.checkpoints);
	}
	if !r.journal.complete {
		// Only under the test flag --worker-stop-after: a solver that keeps crashing (the
		// job fails, its retry resumes and stops again) and never commits.
		return Err(format!(
			"training stopped at step {} (--worker-stop-after)",
			r.journal.checkpoints.last().map_or(0, |c| c.step)
		));
	}
	let seconds = r.total_time.as_secs_f64();
	let steps = spec.total_steps().saturating_sub(trained.resumed_from);
	if seconds > 0.0 {
		ctx.metrics.trained(steps as f64 / seconds);
	}
	log::info!(
		target: "gensyn-worker",
		"solver: task {id} trained ({steps} steps in {seconds:.1} s, resumed from step {}); \
		 {} checkpoints, root 0x{}",
		trained.resumed_from,
		r.checkpoints,
		gensyn_workers::hash::to_hex(&r.checkpoint_root)
	);
	let location = format!("/run/{}", r.run_id);
	let location: BoundedVec<u8, _> = location
		.into_bytes()
		.try_into()
		.map_err(|_| format!("the proof-store location of task {id} is too long"))?;
	let checkpoints =
		u32::try_from(r.checkpoints).map_err(|_| format!("task {id} has too many checkpoints"))?;
	log::debug!(target: "gensyn-worker", "solver: run of task {id} served at {url}");
	Ok(RuntimeCall::Tasks(TasksCall::submit_result {
		id,
		final_hash: r.final_hash,
		checkpoint_root: r.checkpoint_root,
		checkpoints,
		location,
	}))
}

/// Test fault: trains `job` with repops on the task's schedule, but from the task's
/// initial state with its first weight moved (a start of the solver's choosing).
fn train_from_elsewhere(job: &TrainJob) -> Result<jobs::Trained, String> {
	use gensyn_workers::{order::DataOrder, reference, train};
	log::warn!(target: "gensyn-worker", "solver: training from weights of its own");
	let mut start = reference::initial_state(job.spec).map_err(|e| e.to_string())?;
	if let Some(w) = start.params.first_mut().and_then(|p| p.first_mut()) {
		*w += 0.25;
	}
	let run_id = train::run_id(job.spec, &job.randomness, "repops-elsewhere");
	let total = job.spec.total_steps();
	let (state, mut journal) = train::resume_point(job.store, &run_id, "repops", total, || start)
		.map_err(|e| e.to_string())?;
	journal.data = Some(gensyn_workers::hash::to_hex(&job.spec.data.file_hash.0));
	let mut order = DataOrder::new(job.spec, job.randomness);
	let mut engine = reference::RepopsEngine::new(job.spec, &state, job.data.clone(), job.threads);
	let options = train::RunOptions { stop_after: None };
	let result = train::run(job.spec, &mut order, &mut engine, job.store, journal, &options)
		.map_err(|e| e.to_string())?;
	Ok(jobs::Trained { result, resumed_from: state.step, accuracy: None })
}

/// Test fault: contests the failing verdict on `segment` of `task` whatever it says, and
/// deletes the run's journal from this node's store first, so that the store no longer
/// serves it to the verifier that must defend the verdict.
fn starve_and_contest(
	ctx: &WorkerContext,
	at: H256,
	task: TaskId,
	segment: u32,
) -> Result<RuntimeCall, String> {
	let view = chain::task(&ctx.client, at, task)?;
	let result = view.result.as_ref().ok_or_else(|| format!("task {task} has no result"))?;
	let url = String::from_utf8_lossy(&result.url).into_owned();
	let (_, run) = super::segment::split_run_url(&url)
		.ok_or_else(|| format!("task {task}: cannot read the result's location {url:?}"))?;
	let journal = ctx.store.journal_path(run);
	if journal.exists() {
		std::fs::remove_file(&journal).map_err(|e| format!("{}: {e}", journal.display()))?;
	}
	log::warn!(
		target: "gensyn-worker",
		"solver: task {task} segment {segment}: contesting a fail and no longer serving the \
		 run's journal (test fault)"
	);
	Ok(RuntimeCall::Tasks(TasksCall::challenge { id: task, segment }))
}
