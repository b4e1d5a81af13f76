//! The solver's proof store: a content-addressed blob store on disk (a blob's name is
//! the hex blake2-256 of its bytes) plus one journal per training run that lists the
//! run's checkpoints in order, so a crashed run resumes from its last checkpoint.
//!
//! Layout under the store's root:
//! - `blobs/<hex hash>`: checkpoint files, and the data file of each task trained (its
//!   blob name is the spec's file hash), served so that a verifier can replay a
//!   segment whether or not the submitter still serves the data;
//! - `runs/<hex run id>.jsonl`: the [`Journal`] of one run, append-only: a header line
//!   (`run_id`, `backend`, `total_steps`), then one line per checkpoint, so recording a
//!   checkpoint costs the same at step 10 and at step 10 million.
//!
//! [`serve`] serves a store over HTTP, and [`remote`] fetches from one.
//!
//! Every write goes to a temporary file first and is renamed into place, so a crashed
//! process leaves either the old or the new version, never half of one. Writes are not
//! fsynced (that would stall training): after a power failure the newest files may be
//! lost, and `train::resume_point` walks back to the newest checkpoint that still reads
//! back whole. Every read of a blob checks its hash.

pub mod remote;
pub mod retention;
pub mod serve;

use crate::hash::{self, Hash};
use serde::{Deserialize, Serialize};
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Errors of the proof store.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
	/// A file could not be read or written.
	#[error("{path}: {source}")]
	Io {
		/// The file.
		path: PathBuf,
		/// What the OS said.
		source: std::io::Error,
	},
	/// No blob with this hash is stored.
	#[error("blob {0} is not in the proof store")]
	Missing(String),
	/// A stored blob no longer hashes to its name (disk corruption or tampering).
	#[error("blob {name} is corrupt: its bytes hash to {actual}")]
	Corrupt {
		/// The blob's name.
		name: String,
		/// What its bytes hash to.
		actual: String,
	},
	/// Another worker's store did not answer, or answered something unusable.
	#[error("fetching {url}: {reason}")]
	Remote {
		/// What was fetched.
		url: String,
		/// What went wrong.
		reason: String,
	},
	/// A journal is not valid JSON of the expected form.
	#[error("journal {path}: {reason}")]
	BadJournal {
		/// The journal file.
		path: PathBuf,
		/// What is wrong.
		reason: String,
	},
}

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> StoreError + '_ {
	move |source| StoreError::Io { path: path.to_path_buf(), source }
}

/// One checkpoint of a run, as the journal records it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CheckpointEntry {
	/// Training steps done when it was taken (0 = the initial state).
	pub step: u64,
	/// Name of its blob (hex blake2-256 of the safetensors file).
	pub blob: String,
	/// The checkpoint hash committed on chain (hex; the state root of weights and
	/// optimizer state).
	pub state_hash: String,
}

/// The record of one training run: what it trains and the checkpoints so far.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Journal {
	/// Hex id of the run (hash of the task spec and the data-order randomness).
	pub run_id: String,
	/// Backend that produced the checkpoints (`tch` or `repops`).
	pub backend: String,
	/// Total steps of the run.
	pub total_steps: u64,
	/// Checkpoints in step order; the first is the initial state.
	pub checkpoints: Vec<CheckpointEntry>,
	/// Whether the run finished (its last checkpoint is at `total_steps`).
	pub complete: bool,
	/// Blob name of the data file the run trained on (the spec's file hash), served
	/// beside the checkpoints and kept as long as the run.
	#[serde(default, skip_serializing_if = "Option::is_none")]
	pub data: Option<String>,
}

/// The first line of a journal file.
#[derive(Serialize, Deserialize)]
struct JournalHeader {
	run_id: String,
	backend: String,
	total_steps: u64,
	#[serde(default, skip_serializing_if = "Option::is_none")]
	data: Option<String>,
}

/// A proof store rooted at a directory.
#[derive(Clone, Debug)]
pub struct ProofStore {
	root: PathBuf,
}

impl ProofStore {
	/// Opens (creating if needed) the store at `root`.
	pub fn open(root: impl Into<PathBuf>) -> Result<Self, StoreError> {
		let root = root.into();
		for sub in ["blobs", "runs"] {
			let dir = root.join(sub);
			fs::create_dir_all(&dir).map_err(io_err(&dir))?;
		}
		Ok(Self { root })
	}

	/// The store's root directory.
	pub fn root(&self) -> &Path {
		&self.root
	}

	/// Where the blob named `hash` lives (whether or not it exists).
	pub fn blob_path(&self, hash: &Hash) -> PathBuf {
		self.root.join("blobs").join(hash::to_hex(hash))
	}

	/// Stores `bytes` and returns their hash, the blob's name. Storing the same bytes
	/// twice is a no-op.
	pub fn put(&self, bytes: &[u8]) -> Result<Hash, StoreError> {
		let hash = hash::blake2_256(bytes);
		let path = self.blob_path(&hash);
		if !path.exists() {
			write_atomic(&path, bytes)?;
		}
		Ok(hash)
	}

	/// Whether a blob named `hash` is stored.
	pub fn contains(&self, hash: &Hash) -> bool {
		self.blob_path(hash).is_file()
	}

	/// Reads the blob named `hash`, checking that its bytes still hash to its name.
	pub fn get(&self, hash: &Hash) -> Result<Vec<u8>, StoreError> {
		let path = self.blob_path(hash);
		let bytes = match fs::read(&path) {
			Ok(b) => b,
			Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
				return Err(StoreError::Missing(hash::to_hex(hash)))
			}
			Err(e) => return Err(io_err(&path)(e)),
		};
		let actual = hash::blake2_256(&bytes);
		if &actual != hash {
			return Err(StoreError::Corrupt {
				name: hash::to_hex(hash),
				actual: hash::to_hex(&actual),
			});
		}
		Ok(bytes)
	}

	/// Where run `run_id`'s journal lives (whether or not it exists).
	pub fn journal_path(&self, run_id: &str) -> PathBuf {
		self.root.join("runs").join(format!("{run_id}.jsonl"))
	}

	/// The ids of the runs in this store.
	pub fn runs(&self) -> Result<Vec<String>, StoreError> {
		let dir = self.root.join("runs");
		let mut out: Vec<String> = fs::read_dir(&dir)
			.map_err(io_err(&dir))?
			.filter_map(|e| e.ok())
			.filter_map(|e| e.file_name().to_str()?.strip_suffix(".jsonl").map(String::from))
			.collect();
		out.sort();
		Ok(out)
	}

	/// The journal of run `run_id`, if the run was started before. A torn last line (a
	/// crash in the middle of an append) is ignored.
	pub fn journal(&self, run_id: &str) -> Result<Option<Journal>, StoreError> {
		let path = self.journal_path(run_id);
		let text = match fs::read_to_string(&path) {
			Ok(t) => t,
			Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
			Err(e) => return Err(io_err(&path)(e)),
		};
		let bad = |reason: String| StoreError::BadJournal { path: path.clone(), reason };
		let mut lines = text.lines();
		let header: JournalHeader = serde_json::from_str(lines.next().unwrap_or(""))
			.map_err(|e| bad(format!("header: {e}")))?;
		let mut checkpoints = Vec::new();
		for (i, line) in lines.enumerate() {
			match serde_json::from_str::<CheckpointEntry>(line) {
				Ok(entry) => checkpoints.push(entry),
				Err(_) if !text.ends_with('\n') && text.ends_with(line) => break,
				Err(e) => return Err(bad(format!("line {}: {e}", i + 2))),
			}
		}
		let complete = checkpoints.last().is_some_and(|c| c.step == header.total_steps);
		Ok(Some(Journal {
			run_id: header.run_id,
			backend: header.backend,
			total_steps: header.total_steps,
			checkpoints,
			complete,
			data: header.data,
		}))
	}

	/// Writes (replacing) the whole journal of `journal.run_id`.
	pub fn save_journal(&self, journal: &Journal) -> Result<(), StoreError> {
		let header = JournalHeader {
			run_id: journal.run_id.clone(),
			backend: journal.backend.clone(),
			total_steps: journal.total_steps,
			data: journal.data.clone(),
		};
		let mut text = serde_json::to_string(&header).expect("a header serializes") + "\n";
		for entry in &journal.checkpoints {
			text += &(serde_json::to_string(entry).expect("an entry serializes") + "\n");
		}
		write_atomic(&self.journal_path(&journal.run_id), text.as_bytes())
	}

	/// Appends one checkpoint to the journal of `run_id` (which must exist).
	pub fn append_checkpoint(
		&self,
		run_id: &str,
		entry: &CheckpointEntry,
	) -> Result<(), StoreError> {
		let path = self.journal_path(run_id);
		let line = serde_json::to_string(entry).expect("an entry serializes") + "\n";
		let mut file = fs::OpenOptions::new().append(true).open(&path).map_err(io_err(&path))?;
		file.write_all(line.as_bytes()).map_err(io_err(&path))
	}
}

/// Writes `bytes` to `path` through a temporary file in the same directory and a rename.
fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), StoreError> {
	let tmp = path.with_extension(format!("tmp{}", std::process::id()));
	let mut file = fs::File::create(&tmp).map_err(io_err(&tmp))?;
	file.write_all(bytes).map_err(io_err(&tmp))?;
	drop(file);
	fs::rename(&tmp, path).map_err(io_err(path))
}

#[cfg(test)]
mod tests {
	use super::*;

	#[test]
	fn blobs_are_content_addressed_and_checked() {
		let dir = tempfile::tempdir().unwrap();
		let store = ProofStore::open(dir.path()).unwrap();
		let h = store.put(b"checkpoint bytes").unwrap();
		assert_eq!(h, hash::blake2_256(b"checkpoint bytes"));
		assert_eq!(store.put(b"checkpoint bytes").unwrap(), h);
		assert_eq!(store.get(&h).unwrap(), b"checkpoint bytes");
		fs::write(store.blob_path(&h), b"tampered").unwrap();
		assert!(matches!(store.get(&h), Err(StoreError::Corrupt { .. })));
		assert!(matches!(store.get(&[7; 32]), Err(StoreError::Missing(_))));
	}

	#[test]
	fn journal_round_trips() {
		let dir = tempfile::tempdir().unwrap();
		let store = ProofStore::open(dir.path()).unwrap();
		assert_eq!(store.journal("ab").unwrap(), None);
		let j = Journal {
			run_id: "ab".into(),
			backend: "tch".into(),
			total_steps: 10,
			checkpoints: vec![CheckpointEntry {
				step: 0,
				blob: "00".into(),
				state_hash: "11".into(),
			}],
			complete: false,
			data: None,
		};
		store.save_journal(&j).unwrap();
		assert_eq!(store.journal("ab").unwrap(), Some(j.clone()));
		let last = CheckpointEntry { step: 10, blob: "22".into(), state_hash: "33".into() };
		store.append_checkpoint("ab", &last).unwrap();
		let got = store.journal("ab").unwrap().unwrap();
		assert!(got.complete);
		assert_eq!(got.checkpoints[1], last);
		assert_eq!(store.runs().unwrap(), vec!["ab".to_string()]);
		// A torn last line (crash mid-append) is dropped.
		let path = dir.path().join("runs/ab.jsonl");
		let mut text = fs::read_to_string(&path).unwrap();
		text += "{\"step\":20,\"blo";
		fs::write(&path, text).unwrap();
		assert_eq!(store.journal("ab").unwrap().unwrap().checkpoints.len(), 2);
	}
}
