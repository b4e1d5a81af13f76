//! What a node did about verdicts as a challenger, so that it challenges a wrong verdict
//! until a game is under way, and never one that stood against its own game.

use std::{
	collections::{HashMap, HashSet},
	sync::{Arc, Mutex},
};

use gensyn_runtime::AccountId;
use pallet_gensyn_tasks::Audit;

use super::segment::ReplayKey;

/// Challenges this node makes of one verdict that never open a game (one failing in
/// its block: a bond that no longer covers it, a full engagement list) before it gives
/// up on the verdict: each may cost a fee.
pub const MAX_TRIES: u8 = 3;

/// One verdict: its segment of a committed run, its verifier and the replay hash it
/// claims (a re-audit's verdict on the same segment is another one).
pub type VerdictKey = (ReplayKey, AccountId, [u8; 32]);

/// The key of `audit`'s verdict on the run `run`, if it has one.
pub fn verdict_key(run: ReplayKey, audit: &Audit<AccountId>) -> Option<VerdictKey> {
	audit.verdict.map(|v| (run, audit.verifier.clone(), v.replay_hash))
}

/// A role's challenges, shared by its checks and its player.
#[derive(Clone, Default)]
pub struct Challenged(Arc<Mutex<Log>>);

#[derive(Default)]
struct Log {
	/// Verdicts this node played a game against as challenger.
	played: HashSet<VerdictKey>,
	/// Challenges made of each verdict.
	tries: HashMap<VerdictKey, u8>,
}

/// Whether this node challenges a verdict whose replay it disagrees with.
#[derive(Debug, PartialEq, Eq)]
pub enum Decision {
	/// Challenge it (again).
	Challenge,
	/// It stood against this node's game: this node's replay is the one in doubt.
	Played,
	/// [`MAX_TRIES`] challenges never opened a game.
	GaveUp,
}

impl Challenged {
	/// A game against `key` with this node as challenger is on chain.
	pub fn played(&self, key: VerdictKey) {
		self.log().played.insert(key);
	}

	/// Whether this node is done with `key`: it played a game against it, or gave up.
	pub fn done(&self, key: &VerdictKey) -> bool {
		let log = self.log();
		log.played.contains(key) || log.tries.get(key).is_some_and(|t| *t >= MAX_TRIES)
	}

	/// Whether to challenge `key` now, counting the challenge when so.
	pub fn decide(&self, key: &VerdictKey) -> Decision {
		let mut log = self.log();
		if log.played.contains(key) {
			return Decision::Played;
		}
		let tries = log.tries.entry(key.clone()).or_default();
		if *tries >= MAX_TRIES {
			return Decision::GaveUp;
		}
		*tries += 1;
		Decision::Challenge
	}

	fn log(&self) -> std::sync::MutexGuard<'_, Log> {
		self.0.lock().unwrap_or_else(|e| e.into_inner())
	}
}

#[cfg(test)]
mod tests {
	use super::*;

	fn key(verifier: u8, hash: u8) -> VerdictKey {
		((0, 1, [9; 32]), AccountId::new([verifier; 32]), [hash; 32])
	}

	#[test]
	fn a_verdict_is_challenged_until_a_game_is_seen_and_then_never() {
		let c = Challenged::default();
		assert_eq!(c.decide(&key(1, 1)), Decision::Challenge);
		assert_eq!(c.decide(&key(1, 1)), Decision::Challenge, "the first never opened a game");
		c.played(key(1, 1));
		assert_eq!(c.decide(&key(1, 1)), Decision::Played);
		// A re-audit's verdict on the same segment is another verdict.
		assert_eq!(c.decide(&key(2, 1)), Decision::Challenge);
		assert_eq!(c.decide(&key(1, 2)), Decision::Challenge);
	}

	#[test]
	fn challenges_that_never_open_a_game_end_after_max_tries() {
		let c = Challenged::default();
		for _ in 0..MAX_TRIES {
			assert!(!c.done(&key(1, 1)));
			assert_eq!(c.decide(&key(1, 1)), Decision::Challenge);
		}
		assert!(c.done(&key(1, 1)), "given up");
		assert_eq!(c.decide(&key(1, 1)), Decision::GaveUp);
		c.played(key(2, 1));
		assert!(c.done(&key(2, 1)), "played");
	}
}
