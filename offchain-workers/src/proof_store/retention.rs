//! How long a proof store keeps what it holds, and how large it may grow.
//!
//! A run (its journal, its checkpoints and the data file it trained on) is kept for
//! [`Retention::keep`] after its journal was last written, which is far longer than any
//! task is verified, challenged and disputed after its commit; so is a blob no run names
//! (another solver's checkpoints fetched for a replay, a download). Over
//! [`Retention::max_bytes`], the oldest runs and unnamed blobs go first, but never one
//! younger than [`Retention::min_age`]: a store that is still full then says so rather
//! than drop a proof a task may yet be audited on, which would get its solver reported
//! and slashed.

use super::{io_err, Journal, ProofStore, StoreError};
use std::collections::HashSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// The store's retention rule and size limit.
#[derive(Clone, Debug)]
pub struct Retention {
	/// Runs and unnamed blobs older than this are removed.
	pub keep: Duration,
	/// The most bytes kept, when bounded.
	pub max_bytes: Option<u64>,
	/// Nothing younger than this is removed to meet `max_bytes`.
	pub min_age: Duration,
}

impl Default for Retention {
	/// Two weeks, no size limit, and two days for the size limit's oldest-first removal.
	fn default() -> Self {
		Self {
			keep: Duration::from_secs(14 * 86_400),
			max_bytes: None,
			min_age: Duration::from_secs(2 * 86_400),
		}
	}
}

/// What one pass removed and what is left.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Pruned {
	/// Runs removed.
	pub runs: usize,
	/// Blobs removed.
	pub blobs: usize,
	/// Bytes freed.
	pub freed: u64,
	/// Bytes still held.
	pub held: u64,
	/// Whether the store is still over its size limit (everything left is too young).
	pub over: bool,
}

/// A file of the store with its size and last write.
struct Entry {
	path: PathBuf,
	bytes: u64,
	written: SystemTime,
}

impl Entry {
	fn read(path: PathBuf) -> Option<Entry> {
		let meta = fs::metadata(&path).ok()?;
		Some(Entry { bytes: meta.len(), written: meta.modified().ok()?, path })
	}

	fn age(&self, now: SystemTime) -> Duration {
		now.duration_since(self.written).unwrap_or_default()
	}
}

/// The files of directory `dir` (temporary files of a write in progress left out).
fn entries(dir: &Path) -> Result<Vec<Entry>, StoreError> {
	let mut out = Vec::new();
	for e in fs::read_dir(dir).map_err(io_err(dir))?.filter_map(|e| e.ok()) {
		let is_tmp = e.path().extension().is_some_and(|x| x.to_string_lossy().starts_with("tmp"));
		if !is_tmp {
			out.extend(Entry::read(e.path()));
		}
	}
	Ok(out)
}

/// The blob names a journal keeps: its checkpoints and its data file.
fn named(journal: &Journal) -> impl Iterator<Item = String> + '_ {
	journal.checkpoints.iter().map(|c| c.blob.clone()).chain(journal.data.clone())
}

impl ProofStore {
	/// Applies `rule` as of `now`: removes runs and unnamed blobs past `rule.keep`, then,
	/// over `rule.max_bytes`, the oldest of the rest that are past `rule.min_age`. A
	/// blob still named by a run that stays is never removed.
	pub fn prune(&self, rule: &Retention, now: SystemTime) -> Result<Pruned, StoreError> {
		let mut runs = entries(&self.root().join("runs"))?;
		let blobs = entries(&self.root().join("blobs"))?;
		// Oldest first: the order in which the size limit takes them.
		runs.sort_by_key(|r| r.written);
		let journal_of = |run: &Entry| -> Option<Journal> {
			let id = run.path.file_name()?.to_str()?.strip_suffix(".jsonl")?;
			self.journal(id).ok().flatten()
		};
		let mut kept: Vec<(Entry, Vec<String>)> = Vec::new();
		let mut out = Pruned::default();
		for run in runs {
			if run.age(now) > rule.keep {
				self.remove(&run, &mut out)?;
				out.runs += 1;
			} else {
				let names = journal_of(&run).map(|j| named(&j).collect()).unwrap_or_default();
				kept.push((run, names));
			}
		}
		let names_of = |kept: &[(Entry, Vec<String>)]| -> HashSet<String> {
			kept.iter().flat_map(|(_, names)| names.iter().cloned()).collect()
		};
		let is_named = |names: &HashSet<String>, blob: &Entry| {
			blob.path.file_name().and_then(|n| n.to_str()).is_some_and(|n| names.contains(n))
		};
		let names = names_of(&kept);
		let mut loose: Vec<Entry> = Vec::new();
		let mut held_by_runs: Vec<Entry> = Vec::new();
		for blob in blobs {
			if is_named(&names, &blob) {
				held_by_runs.push(blob);
			} else if blob.age(now) > rule.keep {
				self.remove(&blob, &mut out)?;
				out.blobs += 1;
			} else {
				loose.push(blob);
			}
		}
		let total = |runs: &[(Entry, Vec<String>)], a: &[Entry], b: &[Entry]| -> u64 {
			runs.iter().map(|(r, _)| r.bytes).chain(a.iter().chain(b).map(|e| e.bytes)).sum()
		};
		let Some(max) = rule.max_bytes else {
			out.held = total(&kept, &loose, &held_by_runs);
			return Ok(out);
		};
		// Over the limit: unnamed blobs first (oldest first), then whole runs.
		loose.sort_by_key(|b| b.written);
		let mut loose = std::collections::VecDeque::from(loose);
		while total(&kept, loose.make_contiguous(), &held_by_runs) > max {
			match loose.front() {
				Some(b) if b.age(now) > rule.min_age => {
					if let Some(b) = loose.pop_front() {
						self.remove(&b, &mut out)?;
						out.blobs += 1;
					}
				}
				_ => break,
			}
		}
		while total(&kept, loose.make_contiguous(), &held_by_runs) > max {
			let Some((run, _)) = kept.first() else { break };
			if run.age(now) <= rule.min_age {
				break;
			}
			let (run, _) = kept.remove(0);
			self.remove(&run, &mut out)?;
			out.runs += 1;
			let names = names_of(&kept);
			let (stay, gone): (Vec<Entry>, Vec<Entry>) =
				held_by_runs.into_iter().partition(|b| is_named(&names, b));
			held_by_runs = stay;
			for b in gone {
				self.remove(&b, &mut out)?;
				out.blobs += 1;
			}
		}
		out.held = total(&kept, loose.make_contiguous(), &held_by_runs);
		out.over = out.held > max;
		Ok(out)
	}

	fn remove(&self, entry: &Entry, out: &mut Pruned) -> Result<(), StoreError> {
		remove(entry, out)
	}
}

fn remove(entry: &Entry, out: &mut Pruned) -> Result<(), StoreError> {
	match fs::remove_file(&entry.path) {
		Ok(()) => {
			out.freed += entry.bytes;
			Ok(())
		}
		Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
		Err(e) => Err(io_err(&entry.path)(e)),
	}
}

/// Removes the files of `dir` (a download cache, whose files are fetched again when
/// needed) last written more than `keep` before `now`.
pub fn prune_dir(dir: &Path, keep: Duration, now: SystemTime) -> Result<Pruned, StoreError> {
	let mut out = Pruned::default();
	if !dir.is_dir() {
		return Ok(out);
	}
	for file in entries(dir)? {
		if file.age(now) > keep {
			remove(&file, &mut out)?;
			out.blobs += 1;
		} else {
			out.held += file.bytes;
		}
	}
	Ok(out)
}

#[cfg(test)]
mod tests {
	use super::*;
	use crate::proof_store::CheckpointEntry;

	const DAY: Duration = Duration::from_secs(86_400);

	/// Sets `path`'s last write to `days` days before `now`.
	fn age(path: &Path, now: SystemTime, days: u64) {
		let file = fs::File::options().append(true).open(path).unwrap();
		file.set_modified(now - DAY * days as u32).unwrap();
	}

	/// A run `id` naming `blobs` (and `data`), written `days` ago.
	fn run(store: &ProofStore, id: &str, blobs: &[&str], data: Option<&str>, days: u64) {
		let now = SystemTime::now();
		let checkpoints = blobs
			.iter()
			.enumerate()
			.map(|(i, b)| CheckpointEntry {
				step: i as u64,
				blob: b.to_string(),
				state_hash: "00".into(),
			})
			.collect();
		let journal = Journal {
			run_id: id.into(),
			backend: "repops".into(),
			total_steps: 10,
			checkpoints,
			complete: true,
			data: data.map(String::from),
		};
		store.save_journal(&journal).unwrap();
		age(&store.journal_path(id), now, days);
	}

	/// Stores `bytes` as a blob written `days` ago; its name.
	fn blob(store: &ProofStore, bytes: &[u8], days: u64) -> String {
		let name = store.put(bytes).unwrap();
		age(&store.blob_path(&name), SystemTime::now(), days);
		crate::hash::to_hex(&name)
	}

	fn has(store: &ProofStore, name: &str) -> bool {
		store.contains(&crate::hash::from_hex(name).unwrap())
	}

	#[test]
	fn old_runs_and_loose_blobs_go_and_what_a_young_run_names_stays() {
		let dir = tempfile::tempdir().unwrap();
		let store = ProofStore::open(dir.path()).unwrap();
		let shared = blob(&store, b"initial state", 30);
		let old_only = blob(&store, b"old checkpoint", 30);
		let data = blob(&store, b"the data file", 30);
		let young_only = blob(&store, b"young checkpoint", 1);
		let old_loose = blob(&store, b"a fetched checkpoint", 20);
		let young_loose = blob(&store, b"a fresh download", 1);
		run(&store, "old", &[&shared, &old_only], None, 20);
		run(&store, "young", &[&shared, &young_only], Some(&data), 1);

		let pruned = store.prune(&Retention::default(), SystemTime::now()).unwrap();
		assert_eq!((pruned.runs, pruned.blobs), (1, 2), "{pruned:?}");
		assert_eq!(store.runs().unwrap(), vec!["young".to_string()]);
		for kept in [&shared, &young_only, &data, &young_loose] {
			assert!(has(&store, kept), "{kept} kept");
		}
		for gone in [&old_only, &old_loose] {
			assert!(!has(&store, gone), "{gone} removed");
		}
		assert!(!pruned.over);
		assert_eq!(pruned.held, store_bytes(dir.path()));

		// A download cache: what is past its time goes.
		let cache = dir.path().join("data");
		fs::create_dir_all(&cache).unwrap();
		let (old, new) = (cache.join("old"), cache.join("new"));
		fs::write(&old, b"old download").unwrap();
		fs::write(&new, b"new download").unwrap();
		age(&old, SystemTime::now(), 15);
		let pruned = prune_dir(&cache, Retention::default().keep, SystemTime::now()).unwrap();
		assert_eq!((pruned.blobs, old.exists(), new.exists()), (1, false, true));
	}

	fn store_bytes(root: &Path) -> u64 {
		["runs", "blobs"]
			.iter()
			.flat_map(|d| fs::read_dir(root.join(d)).unwrap())
			.map(|e| e.unwrap().metadata().unwrap().len())
			.sum()
	}

	#[test]
	fn over_the_limit_the_oldest_go_first_but_never_a_young_one() {
		let dir = tempfile::tempdir().unwrap();
		let store = ProofStore::open(dir.path()).unwrap();
		let a = blob(&store, &[1u8; 1000], 5);
		let b = blob(&store, &[2u8; 1000], 4);
		let c = blob(&store, &[3u8; 1000], 1);
		let loose = blob(&store, &[4u8; 1000], 6);
		run(&store, "five-days", &[&a], None, 5);
		run(&store, "four-days", &[&b], None, 4);
		run(&store, "one-day", &[&c], None, 1);
		let journals = store_bytes(dir.path()) - 4000;

		// Room for two blobs: the loose one, then the oldest run go.
		let rule = Retention { max_bytes: Some(2000 + journals), ..Retention::default() };
		let pruned = store.prune(&rule, SystemTime::now()).unwrap();
		assert_eq!(store.runs().unwrap(), vec!["four-days".to_string(), "one-day".to_string()]);
		assert!(!has(&store, &loose) && !has(&store, &a) && has(&store, &b) && has(&store, &c));
		assert!(!pruned.over, "{pruned:?}");

		// Room for nothing: the four-day run goes, the one-day run is too young.
		let rule = Retention { max_bytes: Some(0), ..Retention::default() };
		let pruned = store.prune(&rule, SystemTime::now()).unwrap();
		assert_eq!(store.runs().unwrap(), vec!["one-day".to_string()]);
		assert!(has(&store, &c) && !has(&store, &b));
		assert!(pruned.over, "still over, and says so: {pruned:?}");
	}
}
