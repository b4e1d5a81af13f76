//! The verifier's forced-error secrets: each is written to disk, under the name of its
//! commitment, before the commitment goes on chain, so a restarted node can still
//! reveal it and apply its forced errors.

use std::{fs, io, path::PathBuf};

use gensyn_workers::hash;

/// A directory of secrets named by their commitments.
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
		let _ = fs::remove_dir_all(dir);
	}
}
