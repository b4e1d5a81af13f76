//! The watch lottery: a whistleblower watches a training round when its sr25519 VRF
//! output over the round's seed scores at most the round's odds. Only the holder of the
//! account's key can compute its score, and anyone can check the proof it challenges
//! with, so nobody knows the round's watchers before they challenge.

use crate::AccountId;
use codec::{Decode, DecodeWithMemTracking, Encode, MaxEncodedLen};
use pallet_gensyn_tasks::{Hash32, WatchLottery};
use scale_info::TypeInfo;
use sp_core::{
	crypto::VrfPublic,
	sr25519::{
		vrf::{VrfSignature, VrfTranscript},
		Public,
	},
};

/// The VRF transcript's label.
const LABEL: &[u8] = b"gensyn/watch";
/// The context a score's bytes are made in.
const SCORE_CONTEXT: &[u8] = b"gensyn/watch-score";

/// A whistleblower's proof of its score: an sr25519 VRF pre-output and proof over the
/// round's seed, made with the account's own key (the account id is the public key).
#[derive(
	Encode, Decode, DecodeWithMemTracking, Clone, PartialEq, Eq, Debug, TypeInfo, MaxEncodedLen,
)]
pub struct WatchTicket {
	/// The VRF pre-output (a compressed Ristretto point).
	pub pre_output: [u8; 32],
	/// The VRF proof (a DLEQ proof).
	pub proof: [u8; 64],
}

impl WatchTicket {
	/// The ticket of a VRF signature made over [`input`].
	pub fn from_signature(signature: &VrfSignature) -> Self {
		let bytes = signature.encode();
		let mut ticket = WatchTicket { pre_output: [0; 32], proof: [0; 64] };
		ticket.pre_output.copy_from_slice(&bytes[..32]);
		ticket.proof.copy_from_slice(&bytes[32..96]);
		ticket
	}

	fn signature(&self) -> Option<VrfSignature> {
		VrfSignature::decode(&mut &(self.pre_output, self.proof).encode()[..]).ok()
	}
}

/// The VRF input of the lottery drawn with `seed` (what a whistleblower signs).
pub fn input(seed: &Hash32) -> VrfTranscript {
	VrfTranscript::new(LABEL, &[(b"seed", &seed[..])])
}

/// The score a verified VRF pre-output of `public` over `seed` makes.
pub fn score_of(public: &Public, seed: &Hash32, signature: &VrfSignature) -> Option<u64> {
	let bytes: [u8; 8] =
		public.make_bytes(SCORE_CONTEXT, &input(seed), &signature.pre_output).ok()?;
	Some(u64::from_le_bytes(bytes))
}

/// The runtime's watch lottery: sr25519 VRF tickets of the challenger's own account.
pub struct VrfLottery;

impl WatchLottery<AccountId> for VrfLottery {
	type Ticket = WatchTicket;

	fn score(who: &AccountId, seed: &Hash32, ticket: &WatchTicket) -> Option<u64> {
		let public = Public::from_raw(*AsRef::<[u8; 32]>::as_ref(who));
		let signature = ticket.signature()?;
		if !public.vrf_verify(&input(seed).into_sign_data(), &signature) {
			return None;
		}
		score_of(&public, seed, &signature)
	}
}

/// A ticket made ahead for the tasks pallet's benchmarks, which run in wasm, where no VRF
/// can be signed (it needs a random nonce): the key's public half (an account), a seed,
/// and the key's ticket for that seed. A test checks that the ticket proves a score.
#[cfg(any(test, feature = "runtime-benchmarks"))]
pub mod bench {
	use super::*;

	/// The secret key's seed (`sr25519::Pair::from_seed`).
	#[cfg(test)]
	pub const KEY_SEED: [u8; 32] = [7; 32];
	const PUBLIC: [u8; 32] = [
		124, 15, 70, 157, 59, 211, 64, 186, 231, 24, 32, 63, 163, 12, 160, 113, 165, 227, 124, 117,
		30, 137, 29, 189, 237, 131, 123, 33, 61, 69, 217, 29,
	];
	const SEED: Hash32 = [5; 32];
	const PRE_OUTPUT: [u8; 32] = [
		36, 8, 208, 186, 65, 144, 29, 9, 47, 157, 142, 109, 211, 89, 69, 32, 150, 156, 226, 206,
		217, 227, 201, 228, 156, 229, 38, 117, 209, 143, 29, 29,
	];
	const PROOF: [u8; 64] = [
		169, 183, 155, 2, 194, 161, 70, 92, 51, 226, 197, 229, 133, 143, 11, 220, 206, 103, 224,
		167, 225, 25, 203, 52, 81, 193, 182, 110, 179, 254, 201, 15, 6, 74, 23, 108, 118, 41, 191,
		114, 239, 175, 193, 185, 111, 221, 245, 110, 50, 162, 148, 194, 24, 12, 138, 241, 243, 148,
		208, 96, 225, 56, 245, 6,
	];

	/// The account, the seed, and the account's ticket for it.
	pub fn ticket() -> (AccountId, Hash32, WatchTicket) {
		(AccountId::new(PUBLIC), SEED, WatchTicket { pre_output: PRE_OUTPUT, proof: PROOF })
	}
}

#[cfg(test)]
mod tests {
	use super::*;
	use sp_core::{crypto::VrfSecret, sr25519::Pair, Pair as _};

	fn ticket(pair: &Pair, seed: &Hash32) -> WatchTicket {
		WatchTicket::from_signature(&pair.vrf_sign(&input(seed).into_sign_data()))
	}

	#[test]
	fn the_benchmarks_ticket_proves_its_accounts_score() {
		let (who, seed, ticket) = bench::ticket();
		let pair = Pair::from_seed(&bench::KEY_SEED);
		assert_eq!(who, AccountId::from(pair.public()));
		assert!(VrfLottery::score(&who, &seed, &ticket).is_some());
		// Bound to its seed: another seed's lottery is not won with it.
		assert_eq!(VrfLottery::score(&who, &[6; 32], &ticket), None);
	}

	#[test]
	fn only_the_accounts_own_key_proves_its_score() {
		let (alice, bob) = (
			Pair::from_string("//Alice", None).unwrap(),
			Pair::from_string("//Bob", None).unwrap(),
		);
		let seed = [7u8; 32];
		let who = AccountId::from(alice.public());
		let score = VrfLottery::score(&who, &seed, &ticket(&alice, &seed)).expect("a valid ticket");
		// The same account and seed always score the same; another seed scores anew.
		assert_eq!(VrfLottery::score(&who, &seed, &ticket(&alice, &seed)), Some(score));
		assert_ne!(VrfLottery::score(&who, &[8; 32], &ticket(&alice, &[8; 32])), Some(score));
		// Bob's ticket proves nothing for Alice's account, nor Alice's for another seed.
		assert_eq!(VrfLottery::score(&who, &seed, &ticket(&bob, &seed)), None);
		assert_eq!(VrfLottery::score(&who, &[8; 32], &ticket(&alice, &seed)), None);
		// A pre-output changed after signing is refused.
		let mut forged = ticket(&alice, &seed);
		forged.pre_output = ticket(&alice, &[9; 32]).pre_output;
		assert_eq!(VrfLottery::score(&who, &seed, &forged), None);
		assert_eq!(
			VrfLottery::score(&who, &seed, &WatchTicket { pre_output: [0; 32], proof: [0; 64] }),
			None
		);
	}

	#[test]
	fn scores_spread_over_the_whole_range() {
		let seed = [3u8; 32];
		let below_half = (0..200)
			.filter(|i| {
				let pair = Pair::from_string(&format!("//w{i}"), None).unwrap();
				let who = AccountId::from(pair.public());
				VrfLottery::score(&who, &seed, &ticket(&pair, &seed)).unwrap() < u64::MAX / 2
			})
			.count();
		assert!((70..130).contains(&below_half), "{below_half} of 200 below half");
	}
}
