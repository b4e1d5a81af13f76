//! Fetching checkpoints from another worker's proof store (see [`super::serve`]):
//! every blob is hash-checked before it is stored locally. A store's address is what
//! its solver registered, so unless `private` hosts are allowed only public addresses
//! are asked ([`crate::dataset::hosts`]).

use super::{Journal, ProofStore, StoreError};
use crate::hash::{self, Hash};
use std::io::Read;
use std::time::Duration;

/// Largest blob accepted from a remote store (a checkpoint of the largest model the
/// spec bounds allow, with Adam's two moments, is about 200 MiB).
pub const MAX_BLOB: u64 = 256 << 20;
/// Largest journal accepted.
pub const MAX_JOURNAL: u64 = 16 << 20;

fn get(url: &str, limit: u64, private: bool) -> Result<Vec<u8>, StoreError> {
	let err = |reason: String| StoreError::Remote { url: url.to_string(), reason };
	let agent = crate::dataset::hosts::agent(Duration::from_secs(300), private);
	let response = agent.get(url).call().map_err(|e| err(e.to_string()))?;
	let mut bytes = Vec::new();
	response
		.into_body()
		.into_reader()
		.take(limit + 1)
		.read_to_end(&mut bytes)
		.map_err(|e| err(e.to_string()))?;
	if bytes.len() as u64 > limit {
		return Err(err(format!("larger than {limit} bytes")));
	}
	Ok(bytes)
}

/// Where the store at `base` serves blob `name` (a checkpoint, or the task data the
/// solver trained on, named by its file hash).
pub fn blob_url(base: &str, name: &Hash) -> String {
	format!("{base}/blob/{}", hash::to_hex(name))
}

/// Copies blob `name` from the store at `base` (e.g. `http://203.0.113.7:9955`) into
/// `store` unless it is there already; fails when the bytes do not hash to `name`.
/// `private`: loopback and private-network stores may be asked.
pub fn fetch_blob(
	base: &str,
	name: &Hash,
	store: &ProofStore,
	private: bool,
) -> Result<(), StoreError> {
	if store.contains(name) {
		return Ok(());
	}
	let url = blob_url(base, name);
	let bytes = get(&url, MAX_BLOB, private)?;
	let actual = hash::blake2_256(&bytes);
	if &actual != name {
		return Err(StoreError::Remote {
			url,
			reason: format!("bytes hash to {}", hash::to_hex(&actual)),
		});
	}
	store.put(&bytes)?;
	Ok(())
}

/// Reads run `run_id`'s journal from the store at `base` (not stored locally: it is
/// only as good as the commitments it is checked against); `private` as for
/// [`fetch_blob`].
pub fn fetch_journal(base: &str, run_id: &str, private: bool) -> Result<Journal, StoreError> {
	let url = format!("{base}/run/{run_id}");
	let bytes = get(&url, MAX_JOURNAL, private)?;
	serde_json::from_slice(&bytes)
		.map_err(|e| StoreError::Remote { url, reason: format!("bad journal: {e}") })
}
