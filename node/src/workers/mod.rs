//! The protocol workers embedded in the node: `--solver` trains the tasks it is
//! assigned and commits their proofs of learning, `--verifier` profiles Threshold
//! tasks, replays the segments it is drawn for, keeps its forced-error commitment and
//! defends its verdicts, `--whistleblower` replays verdicts in their challenge window
//! and challenges (and plays the pinpoint game over) those it finds wrong.
//!
//! Each role follows the best block, asks the runtime (`TasksApi::duties`) what its
//! account must do, runs heavy work (training, replay) on its own thread, and submits
//! the resulting call through the account's [`submitter::Submitter`]. A failing job is
//! logged and retried a little later; it never stops the node.

mod chain;
mod challenges;
mod dispute;
mod duties;
mod faults;
mod metrics;
mod off_task;
mod paged;
mod publish;
mod published;
mod secrets;
mod segment;
mod solver;
mod submitter;
mod verifier;
mod whistleblower;

use std::{path::PathBuf, sync::Arc};

pub use faults::{Faults, WorkerFault};
use gensyn_workers::proof_store::ProofStore;
use sc_service::SpawnTaskHandle;
use sp_core::sr25519;
use sp_keystore::KeystorePtr;
use sp_runtime::KeyTypeId;

use crate::service::{FullClient, FullPool};

/// Keystore key type of the solver account (sr25519).
pub const SOLVER_KEY: KeyTypeId = KeyTypeId(*b"gsol");
/// Keystore key type of the verifier account (sr25519).
pub const VERIFIER_KEY: KeyTypeId = KeyTypeId(*b"gver");
/// Keystore key type of the whistleblower account (sr25519).
pub const WHISTLEBLOWER_KEY: KeyTypeId = KeyTypeId(*b"gwhb");

/// Command-line flags of the embedded workers.
#[derive(Debug, Clone, clap::Args)]
pub struct WorkerArgs {
	/// Run the solver: train the tasks assigned to the keystore's `gsol` account.
	#[arg(long)]
	pub solver: bool,

	/// Run the verifier: profile and replay for the keystore's `gver` account.
	#[arg(long)]
	pub verifier: bool,

	/// Run the whistleblower: check verdicts and challenge wrong ones for the
	/// keystore's `gwhb` account.
	#[arg(long)]
	pub whistleblower: bool,

	/// Where the workers keep checkpoints, downloaded data and secrets
	/// (default: `workers/` under the node's base path).
	#[arg(long, value_name = "DIR")]
	pub worker_dir: Option<PathBuf>,

	/// Address the solver's proof store listens on (HTTP, read-only).
	#[arg(long, value_name = "ADDR", default_value = "127.0.0.1:8700")]
	pub proof_store_listen: String,

	/// CPU threads for training and replay (0: all cores but one).
	#[arg(long, value_name = "N", default_value_t = 0)]
	pub worker_threads: usize,

	/// Train on the CPU even when a CUDA GPU is present.
	#[arg(long)]
	pub worker_cpu: bool,

	/// Read task data named by `file://` URIs (or bare paths) on this machine, or served
	/// from loopback and private networks; without it only `http(s)://` data on public
	/// addresses is fetched. Development and local chains only: on a public chain it
	/// would let any submitter choose which local files are read and which of this
	/// machine's networks are asked.
	#[arg(long)]
	pub allow_file_data: bool,

	/// Percentage of the verdicts shown to the whistleblower that it replays (1 to 100),
	/// drawn with a secret of this node's so that no verifier can tell which verdicts
	/// will be checked.
	#[arg(long, value_name = "PERCENT", default_value_t = 100, value_parser = clap::value_parser!(u8).range(1..=100))]
	pub watch_percent: u8,

	/// Blocks the verifier waits for a solver's store that does not serve a segment
	/// (its journal or checkpoints, as committed) before it reports the segment
	/// unavailable (0: at the first failure); it reports earlier when the verify period
	/// is about to end.
	#[arg(long, value_name = "BLOCKS", default_value_t = 200)]
	pub unavailable_after: gensyn_runtime::BlockNumber,

	/// Days the workers keep a training run (its checkpoints and data file) after its
	/// last write, and a download or a fetched checkpoint after it was stored: far longer
	/// than any task is audited, challenged and disputed after its commit.
	#[arg(long, value_name = "DAYS", default_value_t = 14, value_parser = clap::value_parser!(u64).range(3..))]
	pub proof_store_keep_days: u64,

	/// Most GiB the proof store may hold (0: no limit). Past it, downloads and runs are
	/// removed oldest first, but never one written in the last two days.
	#[arg(long, value_name = "GIB", default_value_t = 0)]
	pub proof_store_max_gib: u64,

	/// Misbehaviour on purpose, for the protocol's own tests (`test-faults` builds).
	#[command(flatten)]
	pub faults: Faults,
}

impl WorkerArgs {
	/// Whether any worker role is asked for.
	pub fn any(&self) -> bool {
		self.solver || self.verifier || self.whistleblower
	}
}

/// What the workers need from the node.
pub struct WorkerDeps {
	/// The client (runtime API, block notifications).
	pub client: Arc<FullClient>,
	/// The transaction pool.
	pub pool: Arc<FullPool>,
	/// The node's keystore.
	pub keystore: KeystorePtr,
	/// Where to spawn the role loops.
	pub spawn: SpawnTaskHandle,
	/// The node's base path (default parent of the worker directory).
	pub base_path: PathBuf,
	/// A development chain: missing worker keys are filled with dev accounts.
	pub dev: bool,
	/// A development or local test chain (not a live one): `--allow-file-data` is
	/// accepted.
	pub test_chain: bool,
	/// The node's Prometheus registry, when metrics are on.
	pub registry: Option<prometheus_endpoint::Registry>,
}

/// Shared by the role loops and their jobs.
pub struct WorkerContext {
	/// The client.
	pub client: Arc<FullClient>,
	/// Checkpoints (served over HTTP by the solver; fetched ones for the verifier).
	pub store: ProofStore,
	/// Where task data may come from (downloads, cached; local files on development
	/// chains that allow them).
	pub data: gensyn_workers::dataset::DataSource,
	/// CPU threads for heavy work.
	pub threads: usize,
	/// Train on the CPU only.
	pub cpu_only: bool,
	/// Metrics.
	pub metrics: metrics::Metrics,
	/// Held by a heavy job while it runs: one at a time per role.
	pub heavy: duties::Lanes,
	/// Misbehaviour on purpose (`test-faults` builds only).
	pub faults: Faults,
}

/// Starts the roles `args` asks for. Errors are configuration problems worth stopping
/// for (no key, an unusable directory or address).
pub fn start(args: &WorkerArgs, deps: WorkerDeps) -> Result<(), String> {
	if !args.any() {
		return Ok(());
	}
	if args.allow_file_data && !deps.test_chain {
		return Err("--allow-file-data is for development and local test chains only: on a \
		            public chain a task's submitter would choose which files on this \
		            machine the workers read"
			.into());
	}
	let dir = args.worker_dir.clone().unwrap_or_else(|| deps.base_path.join("workers"));
	let store = ProofStore::open(dir.join("proof-store"))
		.map_err(|e| format!("proof store in {}: {e}", dir.display()))?;
	let threads = match args.worker_threads {
		0 => gensyn_workers::train::default_threads(),
		n => n,
	};
	let metrics = metrics::Metrics::register(deps.registry.as_ref())
		.map_err(|e| format!("worker metrics: {e}"))?;
	let ctx = Arc::new(WorkerContext {
		client: deps.client.clone(),
		store: store.clone(),
		data: gensyn_workers::dataset::DataSource {
			cache: dir.join("data"),
			local_files: args.allow_file_data,
			private_hosts: args.allow_file_data,
		},
		threads,
		cpu_only: args.worker_cpu,
		metrics,
		heavy: duties::Lanes::default(),
		faults: args.faults.clone(),
	});
	prune_hourly(args, &store, dir.join("data"));
	if let Some(fault) = args.faults.any() {
		log::warn!(target: "gensyn-worker", "this node's workers misbehave on purpose: {fault:?}");
	}
	if args.solver {
		let public = worker_key(&deps, SOLVER_KEY, "//Bob")?;
		let served = if args.faults.is(WorkerFault::WithholdingSolver) {
			ProofStore::open(dir.join("withheld-store"))
				.map_err(|e| format!("proof store in {}: {e}", dir.display()))?
		} else {
			store
		};
		let server = gensyn_workers::proof_store::serve::serve(served, &args.proof_store_listen)
			.map_err(|e| format!("proof store server on {}: {e}", args.proof_store_listen))?;
		// It serves for the life of the process; the handle only tells the address.
		let url = server.url();
		let submitter = signer(&deps, SOLVER_KEY, public);
		log::info!(
			target: "gensyn-worker",
			"solver {} serves its proof store at {url} (register this endpoint)",
			submitter.account()
		);
		let role = solver::Solver::new(ctx.clone(), url);
		deps.spawn.spawn(
			"gensyn-solver",
			Some("gensyn-workers"),
			duties::run(ctx.clone(), submitter, Box::new(role)),
		);
	}
	if args.verifier {
		let public = worker_key(&deps, VERIFIER_KEY, "//Charlie")?;
		let submitter = signer(&deps, VERIFIER_KEY, public);
		log::info!(target: "gensyn-worker", "verifier {} started", submitter.account());
		let secrets = secrets::Secrets::open(dir.join("forced-secrets"))
			.map_err(|e| format!("secrets in {}: {e}", dir.display()))?;
		let role = verifier::Verifier::new(ctx.clone(), secrets, args.unavailable_after);
		deps.spawn.spawn(
			"gensyn-verifier",
			Some("gensyn-workers"),
			duties::run(ctx.clone(), submitter, Box::new(role)),
		);
	}
	if args.whistleblower {
		let public = worker_key(&deps, WHISTLEBLOWER_KEY, "//Dave")?;
		let submitter = signer(&deps, WHISTLEBLOWER_KEY, public);
		log::info!(target: "gensyn-worker", "whistleblower {} started", submitter.account());
		let tickets = whistleblower::Tickets::new(deps.keystore.clone(), public);
		let role = whistleblower::Whistleblower::new(ctx.clone(), args.watch_percent, tickets);
		deps.spawn.spawn(
			"gensyn-whistleblower",
			Some("gensyn-workers"),
			duties::run(ctx, submitter, Box::new(role)),
		);
	}
	Ok(())
}

/// The error of a job whose task data cannot be had or fails its checks (file hash,
/// chunk root, format, declared shape). The data and the spec's commitments to it are
/// the submitter's: the message says so, so that it is never read as the solver's fault,
/// and the job is retried (a download may come back; a bogus spec never passes).
fn submitters_data(e: gensyn_workers::dataset::DatasetError) -> String {
	format!("the submitter's data cannot be used: {e}")
}

/// Applies the store's retention rule and size limit, and the download cache's age
/// limit, at start and every hour after.
fn prune_hourly(args: &WorkerArgs, store: &ProofStore, cache: PathBuf) {
	use gensyn_workers::proof_store::retention::{self, Retention};
	let keep = std::time::Duration::from_secs(args.proof_store_keep_days.saturating_mul(86_400));
	let max_bytes =
		(args.proof_store_max_gib > 0).then_some(args.proof_store_max_gib.saturating_mul(1 << 30));
	let rule = Retention { keep, max_bytes, ..Retention::default() };
	let store = store.clone();
	let pass = move || {
		let now = std::time::SystemTime::now();
		match (store.prune(&rule, now), retention::prune_dir(&cache, keep, now)) {
			(Ok(s), Ok(c)) => {
				if s.runs + s.blobs + c.blobs > 0 {
					log::info!(
						target: "gensyn-worker",
						"proof store: removed {} runs and {} files ({} MiB); {} MiB held",
						s.runs,
						s.blobs + c.blobs,
						(s.freed + c.freed) >> 20,
						(s.held + c.held) >> 20
					);
				}
				if s.over {
					log::warn!(
						target: "gensyn-worker",
						"proof store: {} MiB held, over --proof-store-max-gib, and nothing \
						 older than two days is left to remove",
						s.held >> 20
					);
				}
			}
			(Err(e), _) | (_, Err(e)) => {
				log::warn!(target: "gensyn-worker", "proof store: pruning failed: {e}")
			}
		}
	};
	// A thread of its own (file work; it ends with the process).
	let spawned =
		std::thread::Builder::new().name("gensyn-store-prune".into()).spawn(move || loop {
			pass();
			std::thread::sleep(std::time::Duration::from_secs(3_600));
		});
	if let Err(e) = spawned {
		log::warn!(target: "gensyn-worker", "proof store: no pruning thread: {e}");
	}
}

/// The submitter signing with `public` of `key_type`.
fn signer(deps: &WorkerDeps, key_type: KeyTypeId, public: sr25519::Public) -> submitter::Submitter {
	let (client, pool, keystore) = (deps.client.clone(), deps.pool.clone(), deps.keystore.clone());
	submitter::Submitter::new(client, pool, keystore, key_type, public)
}

/// The role's sr25519 key from the keystore; on a development chain a missing one is
/// created from `dev_seed`.
fn worker_key(
	deps: &WorkerDeps,
	key_type: KeyTypeId,
	dev_seed: &str,
) -> Result<sr25519::Public, String> {
	if let Some(key) = deps.keystore.sr25519_public_keys(key_type).first() {
		return Ok(*key);
	}
	let name = String::from_utf8_lossy(&key_type.0).into_owned();
	if !deps.dev {
		return Err(format!(
			"no `{name}` key in the keystore: insert one with `gensyn-node key insert --key-type \
			 {name} --scheme sr25519 --suri <secret>` (or author_insertKey)"
		));
	}
	log::info!(target: "gensyn-worker", "development chain: `{name}` key is {dev_seed}");
	deps.keystore
		.sr25519_generate_new(key_type, Some(dev_seed))
		.map_err(|e| format!("inserting the development `{name}` key: {e}"))
}
