//! Getting a data file's bytes from a `file://` or `http(s)://` URI, checked against
//! their expected blake2-256 hash. Downloads go to public hosts only where local data
//! is not allowed ([`super::hosts`]). The bytes returned are the bytes hashed: a file
//! rewritten between a check and a later read cannot slip past the check.
//!
//! Nothing past the most the caller allows is kept, so an endless or oversized body (or
//! a `file://` URI naming `/dev/zero`) costs bounded memory and disk. An oversized file
//! is still hashed to its end (a download within its timeout, a regular local file):
//! when it is the committed file, every worker finds the same, and a verifier reports
//! it rather than wait for bytes that will never fit. `file://` is read
//! only where the [`DataSource`] allows local files: otherwise a task's submitter could
//! have a worker read any file it can.
//!
//! Downloads are streamed to a part file of their own (`<cache>/<hash>.<pid>.<n>.part`,
//! removed on any failure) while being hashed, and renamed to `<cache>/<hash>` only
//! when the hash matches, so a second fetch of the same hash downloads nothing (a cache
//! entry is hashed again when read, and fetched anew when it no longer matches).

use super::DatasetError;
use crate::hash::{self, Hash, Hasher};
use std::fs::{self, File};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// Where a worker may read task data from, and where its downloads are kept.
#[derive(Clone, Debug)]
pub struct DataSource {
	/// Directory of downloaded files, named by their hash.
	pub cache: PathBuf,
	/// Whether `file://` URIs and bare paths may be read (development chains and local
	/// tools only).
	pub local_files: bool,
	/// Whether `http(s)://` hosts that resolve to loopback, private, link-local or
	/// reserved addresses may be asked (development chains and local tools only; see
	/// [`super::hosts`]).
	pub private_hosts: bool,
}

impl DataSource {
	/// Downloads only, cached in `cache`: what a worker on a public chain uses.
	pub fn downloads(cache: impl Into<PathBuf>) -> Self {
		Self { cache: cache.into(), local_files: false, private_hosts: false }
	}

	/// Downloads cached in `cache`, and local files and hosts too (development chains,
	/// the `gensyn-ml` tool on one's own files).
	pub fn with_local_files(cache: impl Into<PathBuf>) -> Self {
		Self { cache: cache.into(), local_files: true, private_hosts: true }
	}

	/// The same source, allowed to ask hosts on loopback and private networks too.
	pub fn with_private_hosts(self) -> Self {
		Self { private_hosts: true, ..self }
	}
}

/// How long one download may take in all before it is abandoned.
const HTTP_TIMEOUT: Duration = Duration::from_secs(600);

/// The bytes `uri` names, once their blake2-256 hash is checked to be `expected`
/// ([`DatasetError::HashMismatch`] otherwise) and their length to be at most `limit`
/// ([`DatasetError::TooLarge`]: reading stops there).
///
/// `http://` and `https://` are downloaded into the source's cache (or read from it);
/// `file://PATH` (or a plain path) is read where it lies when the source allows local
/// files ([`DatasetError::LocalFileRefused`] otherwise). Any other scheme is
/// [`DatasetError::UnsupportedUri`].
pub fn fetch_verified(
	uri: &str,
	expected: &Hash,
	limit: u64,
	source: &DataSource,
) -> Result<Vec<u8>, DatasetError> {
	if !(uri.starts_with("http://") || uri.starts_with("https://")) {
		let path = local_path(uri)?;
		if !source.local_files {
			return Err(DatasetError::LocalFileRefused(uri.to_string()));
		}
		return read_checked(uri, &path, expected, limit);
	}
	let cached = source.cache.join(hash::to_hex(expected));
	if let Ok(bytes) = read_checked(uri, &cached, expected, limit) {
		return Ok(bytes);
	}
	download(uri, expected, limit, &cached, source.private_hosts)
}

/// Reads `path` (at most `limit` bytes) and checks the bytes' hash.
fn read_checked(
	uri: &str,
	path: &Path,
	expected: &Hash,
	limit: u64,
) -> Result<Vec<u8>, DatasetError> {
	let mut file = File::open(path).map_err(|e| DatasetError::io(path, e))?;
	let regular = file.metadata().map_err(|e| DatasetError::io(path, e))?.is_file();
	let mut bytes = Vec::new();
	(&mut file)
		.take(limit.saturating_add(1))
		.read_to_end(&mut bytes)
		.map_err(|e| DatasetError::io(path, e))?;
	if bytes.len() as u64 <= limit {
		check(uri, expected, &hash::blake2_256(&bytes))?;
		return Ok(bytes);
	}
	// Too long. A regular file ends: hash the rest too (nothing more is kept), so that
	// the committed file is told from bytes that merely failed to fit. A device or pipe
	// may never end, and is cut off unchecked.
	if !regular {
		return Err(DatasetError::TooLarge { what: uri.to_string(), limit, committed: false });
	}
	let mut hasher = Hasher::new();
	hasher.update(&bytes);
	drop(bytes);
	let mut buf = vec![0u8; 1 << 20];
	loop {
		match file.read(&mut buf) {
			Ok(0) => break,
			Ok(n) => hasher.update(&buf[..n]),
			Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
			Err(e) => return Err(DatasetError::io(path, e)),
		}
	}
	check(uri, expected, &hasher.finish())?;
	Err(DatasetError::TooLarge { what: uri.to_string(), limit, committed: true })
}

/// The local path a `file://` URI or a bare path names.
pub fn local_path(uri: &str) -> Result<PathBuf, DatasetError> {
	if let Some(rest) = uri.strip_prefix("file://") {
		return Ok(PathBuf::from(rest));
	}
	if uri.contains("://") {
		return Err(DatasetError::UnsupportedUri(uri.to_string()));
	}
	Ok(PathBuf::from(uri))
}

fn check(uri: &str, expected: &Hash, actual: &Hash) -> Result<(), DatasetError> {
	if expected != actual {
		return Err(DatasetError::HashMismatch {
			uri: uri.to_string(),
			expected: hash::to_hex(expected),
			actual: hash::to_hex(actual),
		});
	}
	Ok(())
}

/// Streams `uri` into `target` (a cache entry named by the expected hash), renaming it
/// into place only when the downloaded bytes hash to `expected`, and returns those
/// bytes (kept while streaming, so the file is not read back). Past `limit` nothing more
/// is kept or written, but the body is hashed to its end (within the download's
/// timeout), so that an oversized committed file is told from a body that merely failed
/// to fit. Only public hosts are asked unless `private` ones are allowed.
fn download(
	uri: &str,
	expected: &Hash,
	limit: u64,
	target: &Path,
	private: bool,
) -> Result<Vec<u8>, DatasetError> {
	let cache = target.parent().unwrap_or(Path::new("."));
	fs::create_dir_all(cache).map_err(|e| DatasetError::io(cache, e))?;
	let http_err = |reason: String| DatasetError::Http { uri: uri.to_string(), reason };
	let agent = super::hosts::agent(HTTP_TIMEOUT, private);
	let response = agent.get(uri).call().map_err(|e| http_err(e.to_string()))?;
	let mut body = response.into_body().into_reader();
	let part = PartFile::new(cache, expected);
	let mut out = File::create(&part.path).map_err(|e| DatasetError::io(&part.path, e))?;
	let mut hasher = Hasher::new();
	let mut kept = Vec::new();
	let mut over = false;
	let mut buf = vec![0u8; 1 << 20];
	loop {
		let n = match body.read(&mut buf) {
			Ok(0) => break,
			Ok(n) => n,
			Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
			Err(e) => return Err(http_err(e.to_string())),
		};
		hasher.update(&buf[..n]);
		if over || kept.len() as u64 + n as u64 > limit {
			if !over {
				over = true;
				kept = Vec::new();
			}
			continue;
		}
		kept.extend_from_slice(&buf[..n]);
		out.write_all(&buf[..n]).map_err(|e| DatasetError::io(&part.path, e))?;
	}
	if !over {
		out.sync_all().map_err(|e| DatasetError::io(&part.path, e))?;
	}
	drop(out);
	check(uri, expected, &hasher.finish())?;
	if over {
		return Err(DatasetError::TooLarge { what: uri.to_string(), limit, committed: true });
	}
	fs::rename(&part.path, target).map_err(|e| DatasetError::io(target, e))?;
	Ok(kept)
}

/// A download's part file: named for this call alone (two jobs fetching the same file
/// at once never share one), and removed when dropped, so every failure cleans up
/// (after a successful rename there is nothing left to remove).
struct PartFile {
	path: PathBuf,
}

impl PartFile {
	fn new(cache: &Path, expected: &Hash) -> Self {
		static NEXT: AtomicU64 = AtomicU64::new(0);
		let n = NEXT.fetch_add(1, Ordering::Relaxed);
		let name = format!("{}.{}.{n}.part", hash::to_hex(expected), std::process::id());
		PartFile { path: cache.join(name) }
	}
}

impl Drop for PartFile {
	fn drop(&mut self) {
		let _ = fs::remove_file(&self.path);
	}
}
