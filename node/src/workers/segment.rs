//! A task's committed run as verifiers and whistleblowers reach it: the solver's journal
//! fetched from its proof store and checked against the committed checkpoint root (a
//! whistleblower does without it), its checkpoints, and the replay of one segment of it
//! with repops, step by step (what the pinpoint game's players answer from).

use std::sync::Arc;

use gensyn_primitives::TaskSpec;
use gensyn_workers::{
	checkpoint,
	dataset::{self, DatasetError},
	hash,
	proof_store::{remote, Journal},
	replay, train,
};
use pallet_gensyn_arbitration::prover::Run;
use pallet_gensyn_tasks::TaskId;

use super::{chain, published, WorkerContext, WorkerFault};

/// A committed run: where its proof store answers, its commitment on chain, and its
/// journal when the store serves it.
pub struct Committed {
	/// Base URL of the solver's proof store.
	pub base: String,
	/// The committed checkpoint root.
	pub root: [u8; 32],
	/// The committed checkpoint count.
	pub checkpoints: u32,
	/// The run's journal with its checkpoint state roots, or why it could not be had.
	journal: Result<Journaled, String>,
}

/// A run's journal checked against its commitment.
pub struct Journaled {
	/// The run's journal.
	pub journal: Journal,
	/// The checkpoint state roots, initial state first (the committed Merkle leaves).
	pub leaves: Vec<[u8; 32]>,
}

impl Committed {
	/// The run's journal, which a verifier needs (its verdict's proof, its defence in a
	/// game) and a whistleblower does without (it replays from published checkpoints).
	pub fn journaled(&self) -> Result<&Journaled, String> {
		self.journal.as_ref().map_err(Clone::clone)
	}
}

/// Task `id`'s committed result with its journal, fetched from the solver's store and
/// checked against the committed checkpoint root and count; an error when the journal
/// cannot be had.
pub fn committed(ctx: &WorkerContext, id: TaskId, view: &chain::Task) -> Result<Committed, String> {
	let run = committed_run(ctx, "verifier", id, view)?;
	run.journaled()?;
	Ok(run)
}

/// Task `id`'s committed result as `role` reads it, with its journal when the solver's
/// store serves one that matches the commitment. A whistleblower replays from this alone: a checkpoint
/// its store does not serve is demanded and read from its pages on chain, which prove
/// it against the committed root, so a solver that withholds its journal from all but
/// its partners leaves the run no less checked.
pub fn committed_run(
	ctx: &WorkerContext,
	role: &str,
	id: TaskId,
	view: &chain::Task,
) -> Result<Committed, String> {
	let result = view.result.as_ref().ok_or_else(|| format!("task {id} has no result"))?;
	let url = String::from_utf8(result.url.clone())
		.map_err(|_| format!("task {id}: the result's location is not UTF-8"))?;
	let (base, run_id) = split_run_url(&url)
		.ok_or_else(|| format!("task {id}: cannot read the result's location {url:?}"))?;
	let matches = |j: &Journal| {
		j.checkpoints.len() == result.checkpoints as usize
			&& train::checkpoint_root(&j.checkpoints) == result.checkpoint_root
	};
	let kept = kept_journal(&ctx.data.cache, run_id);
	let blind = blind(ctx, role);
	let journal = match read_kept(&kept).filter(|j| !blind && matches(j)) {
		Some(journal) => Ok(journal),
		None if blind => Err("the solver's store does not serve this node".to_string()),
		None => remote::fetch_journal(base, run_id, ctx.data.private_hosts)
			.map_err(|e| e.to_string())
			.and_then(|journal| {
				if !matches(&journal) {
					return Err(format!(
						"the journal at {url} does not match the committed checkpoint root"
					));
				}
				keep(&kept, &journal);
				Ok(journal)
			}),
	};
	let journal = journal
		.map(|journal| {
			let leaves = journal
				.checkpoints
				.iter()
				.map(|e| hash::from_hex(&e.state_hash).unwrap_or([0; 32]))
				.collect();
			Journaled { journal, leaves }
		})
		.map_err(|e| format!("task {id}: no journal of its run: {e}"));
	Ok(Committed {
		base: base.to_string(),
		root: result.checkpoint_root,
		checkpoints: result.checkpoints,
		journal,
	})
}

/// Test fault: whether the solver's store serves `role` nothing (nor may it use a copy
/// another role of this node kept).
fn blind(ctx: &WorkerContext, role: &str) -> bool {
	role == "whistleblower" && ctx.faults.is(WorkerFault::BlindWhistleblower)
}

/// Whether this node keeps a fetched journal of the run task `view` committed to, for
/// `role`.
pub fn journal_kept(ctx: &WorkerContext, role: &str, view: &chain::Task) -> bool {
	let url = view.result.as_ref().map(|r| String::from_utf8_lossy(&r.url).into_owned());
	let run = url.as_deref().and_then(split_run_url);
	run.is_some_and(|(_, id)| !blind(ctx, role) && kept_journal(&ctx.data.cache, id).exists())
}

/// Where a fetched journal of run `run_id` is kept: beside the data downloads, pruned
/// with them, and never among the node's own runs (which its solver resumes from). A
/// verifier whose verdict is challenged moves from it, so a solver that stops serving
/// its journal once it has contested a verdict cannot leave the verifier unable to move
/// and slashed on time.
fn kept_journal(cache: &std::path::Path, run_id: &str) -> std::path::PathBuf {
	cache.join(format!("journal-{run_id}.json"))
}

/// The journal kept at `path`, if one reads there (the caller checks it against the
/// committed root before trusting it).
fn read_kept(path: &std::path::Path) -> Option<Journal> {
	serde_json::from_slice(&std::fs::read(path).ok()?).ok()
}

/// Keeps `journal` at `path`; a failure only means fetching it again later.
fn keep(path: &std::path::Path, journal: &Journal) {
	let written = path
		.parent()
		.map_or(Ok(()), std::fs::create_dir_all)
		.and_then(|_| std::fs::write(path, serde_json::to_vec(journal).unwrap_or_default()));
	if let Err(e) = written {
		log::warn!(target: "gensyn-worker", "keeping a fetched journal at {path:?}: {e}");
	}
}

/// Splits a result URL `<base>/run/<run id>` into the base and the run id.
pub fn split_run_url(url: &str) -> Option<(&str, &str)> {
	let at = url.rfind("/run/")?;
	let (base, run) = (&url[..at], &url[at + "/run/".len()..]);
	(!base.is_empty() && run.len() == 64 && run.bytes().all(|b| b.is_ascii_hexdigit()))
		.then_some((base, run))
}

/// Replays `segment` of the committed run with repops over the task's own steps for
/// it, from the task's initial state (segment 0) or the solver's checkpoint `segment`
/// (see [`checkpoint`] and [`replay::segment_start`]), keeping the state after every
/// step.
pub fn replay(
	ctx: &WorkerContext,
	spec: &TaskSpec,
	randomness: [u8; 32],
	run: &Committed,
	segment: u32,
) -> Result<Run, String> {
	if segment.saturating_add(1) >= run.checkpoints {
		return Err(format!("the run has no segment {segment}"));
	}
	// Only the start is read: segment 0 starts from the task's initial state, and the
	// end is compared with the verdict's root (a distance with the solver's next
	// checkpoint, which the caller reads in Threshold mode).
	let load = || checkpoint(ctx, run, segment).map_err(Box::<dyn std::error::Error>::from);
	let (start, steps) =
		replay::segment_start(spec, segment as usize, load).map_err(|e| e.to_string())?;
	let (file, data) = task_data(ctx, spec, &run.base).map_err(|e| e.to_string())?;
	let samples: pallet_gensyn_arbitration::prover::Samples = Box::new(data);
	Run::replay(spec.clone(), file, Some(samples), randomness, start, steps, None)
		.map_err(|e| format!("replaying segment {segment}: {e}"))
}

/// Why a committed run's data could not be had for a replay.
#[derive(Debug)]
pub enum DataMiss {
	/// The bytes the spec commits to (their file hash matched) cannot be replayed: their
	/// chunk root or content is not what the spec says. Every worker finds the same.
	Committed(DatasetError),
	/// Neither the submitter's location nor the solver's store served the committed
	/// bytes (the two reasons).
	Unserved(String),
	/// This node's own trouble (its disk): retried, never blamed on anyone.
	Local(DatasetError),
}

impl std::fmt::Display for DataMiss {
	fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
		match self {
			DataMiss::Committed(e) => write!(f, "the committed data cannot be replayed: {e}"),
			DataMiss::Unserved(why) => f.write_str(why),
			DataMiss::Local(e) => write!(f, "this node could not keep the data: {e}"),
		}
	}
}

/// The data file of a committed run and the data set read from it: from the submitter's
/// location, or else from the solver's store at `base`, which serves the data it trained
/// on under its file hash. The solver answers for that copy as for its checkpoints: a
/// submitter that stops serving its data (or serves it to the solver alone) cannot leave
/// a verifier unable to replay, and so slashed for silence.
pub fn task_data(
	ctx: &WorkerContext,
	spec: &TaskSpec,
	base: &str,
) -> Result<(Vec<u8>, dataset::Dataset), DataMiss> {
	let file = match dataset::fetch_data_ref(&spec.data, &ctx.data) {
		Ok(file) => file,
		Err(e) if e.is_committed_data_fault() => return Err(DataMiss::Committed(e)),
		Err(submitter) => {
			let copy = remote::blob_url(base, &spec.data.file_hash.0);
			match dataset::fetch_data_ref_at(&spec.data, &copy, &ctx.data) {
				Ok(file) => {
					log::info!(
						target: "gensyn-worker",
						"the submitter does not serve the data ({submitter}): replaying from \
						 the solver's copy"
					);
					file
				}
				Err(e) if e.is_committed_data_fault() => return Err(DataMiss::Committed(e)),
				Err(e @ DatasetError::Io { .. }) => return Err(DataMiss::Local(e)),
				Err(solver) => {
					return Err(DataMiss::Unserved(format!(
						"the task's data is served neither by the submitter ({submitter}) nor \
						 by the solver's store ({solver})"
					)))
				}
			}
		}
	};
	// The bytes match the file hash: a file that does not read as the spec declares is
	// the spec's fault, found alike by every worker.
	let data = dataset::parse_data_ref(&spec.data, &file).map_err(DataMiss::Committed)?;
	Ok((file, data))
}

/// A replayed segment with the run it belongs to, shared between a role's jobs.
pub struct Replayed {
	/// The committed run.
	pub committed: Committed,
	/// The segment's replay.
	pub run: Run,
	/// Threshold mode: the solver's checkpoint at the segment's end, which a verdict's
	/// distance measures (fetched and hash-checked).
	pub claimed: Option<checkpoint::TrainState>,
}

/// The solver's checkpoint `index` of the committed run: as this node read it from its
/// pages on chain, else fetched from the solver's store and checked against the hash
/// the run's journal commits to.
pub fn checkpoint(
	ctx: &WorkerContext,
	run: &Committed,
	index: u32,
) -> Result<checkpoint::TrainState, String> {
	if let Some(state) = published::kept((&ctx.store, &ctx.data.cache), (&run.root, index)) {
		return Ok(state);
	}
	let Journaled { journal, .. } = run.journaled()?;
	let entry = journal.checkpoints.get(index as usize).ok_or("no such checkpoint")?;
	let blob = hash::from_hex(&entry.blob).ok_or("a checkpoint's blob name is not hex")?;
	remote::fetch_blob(&run.base, &blob, &ctx.store, ctx.data.private_hosts)
		.map_err(|e| e.to_string())?;
	replay::load_checkpoint(&ctx.store, journal, index as usize).map_err(|e| e.to_string())
}

/// A replay's key: the task, the segment and the committed checkpoint root (a task
/// re-drawn after a rejected proof is trained again under the same id).
pub type ReplayKey = (TaskId, u32, [u8; 32]);

/// Shared replays by [`ReplayKey`].
pub type Replays = Arc<std::sync::Mutex<std::collections::HashMap<ReplayKey, Arc<Replayed>>>>;

/// The key of `segment` of task `id`'s committed result (`None` before a result).
pub fn replay_key(id: TaskId, segment: u32, view: &chain::Task) -> Option<ReplayKey> {
	view.result.as_ref().map(|r| (id, segment, r.checkpoint_root))
}

#[cfg(test)]
mod tests {
	use super::{keep, kept_journal, read_kept, split_run_url, Journal};

	/// A fetched journal is kept and read back, at a path of its own run id; a torn or
	/// missing one reads as none, so it is fetched again.
	#[test]
	fn a_fetched_journal_is_kept_and_read_back() {
		let dir = std::env::temp_dir().join(format!("gensyn-kept-{}", std::process::id()));
		let run = "cd".repeat(32);
		let path = kept_journal(&dir.join("data"), &run);
		assert!(path.ends_with(format!("journal-{run}.json")));
		assert_eq!(read_kept(&path), None);
		let journal = Journal {
			run_id: run.clone(),
			backend: "tch".into(),
			total_steps: 4,
			checkpoints: Vec::new(),
			complete: false,
			data: None,
		};
		keep(&path, &journal);
		assert_eq!(read_kept(&path), Some(journal));
		std::fs::write(&path, b"{\"run_id\":").unwrap();
		assert_eq!(read_kept(&path), None);
		let _ = std::fs::remove_dir_all(&dir);
	}

	#[test]
	fn result_urls_split_into_base_and_run() {
		let run = "ab".repeat(32);
		let url = format!("http://127.0.0.1:8700/run/{run}");
		assert_eq!(split_run_url(&url), Some(("http://127.0.0.1:8700", run.as_str())));
		assert_eq!(split_run_url(&format!("/run/{run}")), None, "no base");
		assert_eq!(split_run_url("http://x/run/abc"), None, "short run id");
		assert_eq!(split_run_url(&format!("http://x/runs/{run}")), None);
	}
}
