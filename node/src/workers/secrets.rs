//! The verifier's secrets: forced-error secrets, each written to disk under the name of
//! its commitment before the commitment goes on chain, so a restarted node can still
//! reveal it and apply its forced errors; and the profiles it committed to, each with
//! its salt, kept until it reveals them.

use std::{fs, io, path::PathBuf};

use gensyn_workers::hash;

/// How long a stored profile is kept.
const PROFILE_KEPT: std::time::Duration = std::time::Duration::from_secs(7 * 24 * 3600);

/// A directory of secrets named by their commitments, and of committed profiles named by
/// their tasks.
#[derive(Clone)]
pub struct Secrets {
	dir: PathBuf,
}

impl Secrets {
	/// Opens (creating) the directory.
	pub fn open(dir: PathBuf) -> io::Result<Self> {
		fs::create_dir_all(&dir)?;
		Ok(Secrets { dir })
	}

	/// A fresh random secret, stored; returns it with its commitment
	/// (`blake2_256(secret)`, what `jackpot.commit` takes).
	pub fn fresh(&self) -> io::Result<([u8; 32], [u8; 32])> {
		let mut secret = [0u8; 32];
		getrandom(&mut secret)?;
		let commitment = hash::blake2_256(&secret);
		let path = self.dir.join(hash::to_hex(&commitment));
		let tmp = path.with_extension("tmp");
		fs::write(&tmp, hash::to_hex(&secret))?;
		fs::rename(&tmp, &path)?;
		Ok((secret, commitment))
	}

	/// Stores the profile (threshold, f32 bits) this node proposes for the task `key`
	/// names with a fresh salt, replacing any stored before; returns the salt.
	pub fn store_profile(&self, key: &str, threshold: u32) -> io::Result<[u8; 32]> {
		self.prune_profiles();
		let mut salt = [0u8; 32];
		getrandom(&mut salt)?;
		let path = self.dir.join(format!("profile-{key}"));
		let tmp = path.with_extension("tmp");
		// On disk for good before its commitment is sent: a profile lost to a crash
		// cannot be revealed, and a missed reveal is slashed.
		let mut file = fs::File::create(&tmp)?;
		io::Write::write_all(&mut file, format!("{threshold} {}", hash::to_hex(&salt)).as_bytes())?;
		file.sync_all()?;
		fs::rename(&tmp, &path)?;
		fs::File::open(&self.dir)?.sync_all()?;
		Ok(salt)
	}

	/// The profile stored for the task `key` names and its salt, if any.
	pub fn profile(&self, key: &str) -> Option<(u32, [u8; 32])> {
		let text = fs::read_to_string(self.dir.join(format!("profile-{key}"))).ok()?;
		let (threshold, salt) = text.trim().split_once(' ')?;
		Some((threshold.parse().ok()?, hash::from_hex(salt)?))
	}

	/// Removes stored profiles older than [`PROFILE_KEPT`]: their tasks' reveals are
	/// long over (a task profiles for at most a day), so the directory stays small.
	fn prune_profiles(&self) {
		let Ok(entries) = fs::read_dir(&self.dir) else { return };
		for entry in entries.flatten() {
			let old = entry
				.metadata()
				.and_then(|m| m.modified())
				.ok()
				.and_then(|t| t.elapsed().ok())
				.is_some_and(|age| age > PROFILE_KEPT);
			if old && entry.file_name().to_string_lossy().starts_with("profile-") {
				let _ = fs::remove_file(entry.path());
			}
		}
	}

	/// The secret behind `commitment`, when this node made it.
	pub fn get(&self, commitment: &[u8; 32]) -> Option<[u8; 32]> {
		let text = fs::read_to_string(self.dir.join(hash::to_hex(commitment))).ok()?;
		let secret = hash::from_hex(text.trim())?;
		(hash::blake2_256(&secret) == *commitment).then_some(secret)
	}
}

/// Fills `buf` from the operating system's random source.
fn getrandom(buf: &mut [u8]) -> io::Result<()> {
	use io::Read;
	fs::File::open("/dev/urandom")?.read_exact(buf)
}

#[cfg(test)]
mod tests {
	use super::*;

	#[test]
	fn a_secret_is_found_by_its_commitment_only() {
		let dir = std::env::temp_dir().join(format!("gensyn-secrets-{}", std::process::id()));
		let secrets = Secrets::open(dir.clone()).unwrap();
		let (secret, commitment) = secrets.fresh().unwrap();
		assert_eq!(secrets.get(&commitment), Some(secret));
		let (other, _) = secrets.fresh().unwrap();
		assert_ne!(secret, other, "fresh secrets differ");
		assert_eq!(secrets.get(&[7; 32]), None);
		// A file whose content does not hash to its name is not trusted.
		fs::write(dir.join(hash::to_hex(&[9; 32])), hash::to_hex(&secret)).unwrap();
		assert_eq!(secrets.get(&[9; 32]), None);
		// Profiles: found by their key, each stored with a fresh salt.
		let salt = secrets.store_profile("3-ab", 0x3c23_d70a).unwrap();
		assert_eq!(secrets.profile("3-ab"), Some((0x3c23_d70a, salt)));
		assert_eq!(secrets.profile("3-cd"), None);
		assert_ne!(secrets.store_profile("3-ab", 1).unwrap(), salt, "a fresh salt each time");
		let _ = fs::remove_dir_all(dir);
	}
}
