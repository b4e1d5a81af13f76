#![doc = include_str!("../README.md")]
#![cfg_attr(not(feature = "std"), no_std)]
#![deny(missing_docs)]

pub use pallet::*;

#[cfg(feature = "runtime-benchmarks")]
mod benchmarking;
pub mod migrations;
#[cfg(test)]
mod mock;
#[cfg(test)]
mod tests;
pub mod weights;

pub use weights::WeightInfo;

use codec::{Decode, DecodeWithMemTracking, Encode, MaxEncodedLen};
use frame_support::{
	pallet_prelude::*,
	traits::{
		fungible::{Inspect, Mutate},
		tokens::{Fortitude, Preservation},
	},
};
use pallet_gensyn_stake::{Role, StakeInterface};
use scale_info::TypeInfo;
use sp_runtime::{
	traits::{Saturating, Zero},
	Perbill,
};

/// A 32-byte hash or secret.
pub type Hash32 = [u8; 32];

/// A task id (the tasks pallet's).
pub type TaskId = u64;

/// What the tasks pallet asks of the jackpot.
pub trait ForcedErrors<AccountId, Balance> {
	/// Whether `who` has a standing commitment.
	fn has_commitment(who: &AccountId) -> bool;
	/// Whether `who`'s standing commitment may be bound to a round whose segments may be
	/// forced: it has stood long enough that the draw's randomness comes from blocks
	/// made after it (`Config::CommitmentAge`).
	fn drawable(who: &AccountId) -> bool;
	/// Binds `who`'s standing commitment to `task`, with `seed`, the randomness of the
	/// draw, mixed into which segments are forced; `false` when it has none.
	fn bind(who: &AccountId, task: TaskId, seed: Hash32) -> bool;
	/// Whether `segment` of `task` is forced for `who` (at the rate in force when the
	/// task was bound): `None` until `who` revealed the secret bound to `task`.
	fn forced(who: &AccountId, task: TaskId, segment: u32) -> Option<bool>;
	/// Pays the jackpot's catch reward to `to`; returns what was paid.
	fn pay_catch(to: &AccountId) -> Balance;
	/// Forgets `who`'s binding to `task` (the task is over).
	fn release(who: &AccountId, task: TaskId);
}

/// No forced errors: every verifier may be drawn and nothing is ever forced.
impl<AccountId, Balance: Zero> ForcedErrors<AccountId, Balance> for () {
	fn has_commitment(_: &AccountId) -> bool {
		true
	}
	fn drawable(_: &AccountId) -> bool {
		true
	}
	fn bind(_: &AccountId, _: TaskId, _: Hash32) -> bool {
		true
	}
	fn forced(_: &AccountId, _: TaskId, _: u32) -> Option<bool> {
		Some(false)
	}
	fn pay_catch(_: &AccountId) -> Balance {
		Zero::zero()
	}
	fn release(_: &AccountId, _: TaskId) {}
}

/// Who decides when a task's secrets may be revealed and hears each reveal (the tasks
/// pallet: reveals open at a point of the challenge window it fixes, and a failing
/// verdict that a reveal shows to be no forced error must leave the solver time to
/// contest it).
pub trait OnReveal<AccountId> {
	/// Whether `who` may reveal the secret bound to `task` now.
	fn may_reveal(who: &AccountId, task: TaskId) -> bool;
	/// `who` revealed the secret bound to `task`.
	fn revealed(who: &AccountId, task: TaskId);
	/// The most [`Self::may_reveal`] and [`Self::revealed`] weigh together.
	fn weight() -> Weight;
}

/// Nobody listens: a secret may be revealed at any time.
impl<AccountId> OnReveal<AccountId> for () {
	fn may_reveal(_: &AccountId, _: TaskId) -> bool {
		true
	}
	fn revealed(_: &AccountId, _: TaskId) {}
	fn weight() -> Weight {
		Weight::zero()
	}
}

/// A commitment bound to a task, and its secret once revealed.
#[derive(
	Clone,
	Copy,
	PartialEq,
	Eq,
	Debug,
	Encode,
	Decode,
	DecodeWithMemTracking,
	MaxEncodedLen,
	TypeInfo,
)]
pub struct Binding {
	/// `blake2_256(secret)`.
	pub commitment: Hash32,
	/// The secret, once revealed.
	pub secret: Option<Hash32>,
	/// The forced-error rate when it was bound: the task's verdicts are judged by it even
	/// if the rate changes while they are open.
	pub rate: Perbill,
	/// The randomness of the draw that bound it, which nobody knew when the commitment
	/// was made: mixed into which segments are forced, so that no secret can be ground
	/// against a task known in advance. `None` for a binding made before storage
	/// version 1, judged as it was made.
	pub seed: Option<Hash32>,
}

/// The balance type of the pallet's currency.
pub type BalanceOf<T> =
	<<T as Config>::Currency as Inspect<<T as frame_system::Config>::AccountId>>::Balance;

/// Whether `segment` of `task` is forced under `secret`, bound with `seed`, at `rate`.
pub fn is_forced(
	secret: &Hash32,
	seed: Option<&Hash32>,
	task: TaskId,
	segment: u32,
	rate: Perbill,
) -> bool {
	let h = match seed {
		Some(seed) => {
			sp_crypto_hashing::blake2_256(&(b"gensyn/forced", secret, seed, task, segment).encode())
		}
		None => sp_crypto_hashing::blake2_256(&(b"gensyn/forced", secret, task, segment).encode()),
	};
	let mut b = [0u8; 4];
	for (d, s) in b.iter_mut().zip(h.iter()) {
		*d = *s;
	}
	let draw = u64::from(u32::from_le_bytes(b));
	// draw / 2^32 < parts / 10^9, without division.
	draw.saturating_mul(1_000_000_000) < u64::from(rate.deconstruct()).saturating_mul(1 << 32)
}

/// The storage layout's version: bumped, with a migration, by every change of it.
const STORAGE_VERSION: StorageVersion = StorageVersion::new(1);

#[frame_support::pallet]
pub mod pallet {
	use super::*;
	use frame_system::pallet_prelude::*;

	/// The pallet.
	#[pallet::pallet]
	#[pallet::storage_version(STORAGE_VERSION)]
	pub struct Pallet<T>(_);

	/// Configuration.
	#[pallet::config]
	pub trait Config: frame_system::Config {
		/// The currency of the pot.
		type Currency: Mutate<Self::AccountId>;
		/// Who may commit: only accounts with a verifier bond.
		type Stake: StakeInterface<Self::AccountId, BalanceOf<Self>>;
		/// The pot's account.
		#[pallet::constant]
		type PotAccount: Get<Self::AccountId>;
		/// Probability that a segment is forced for its verifier. Not a metadata constant:
		/// a runtime may let governance change it (the gensyn runtime does).
		type ForcedErrorRate: Get<Perbill>;
		/// Share of the pot paid for one caught forced error.
		#[pallet::constant]
		type CatchShare: Get<Perbill>;
		/// Most paid for one caught forced error.
		#[pallet::constant]
		type MaxCatch: Get<BalanceOf<Self>>;
		/// Told of every reveal.
		type OnReveal: OnReveal<Self::AccountId>;
		/// Blocks a commitment stands before it may be bound to a round whose segments
		/// may be forced (at least the draws' randomness delay): the draw's randomness,
		/// which decides them with the secret, then comes from blocks made after the
		/// commitment, so the secret cannot have been chosen for it.
		type CommitmentAge: Get<BlockNumberFor<Self>>;
		/// Weights.
		type WeightInfo: WeightInfo;
	}

	/// Standing commitments, not yet bound to a task, with the block each was made in
	/// (the upgrade's block for one made before storage version 1).
	#[pallet::storage]
	pub type Commitments<T: Config> =
		StorageMap<_, Blake2_128Concat, T::AccountId, (Hash32, BlockNumberFor<T>)>;

	/// Commitments bound to tasks, with their secrets once revealed.
	#[pallet::storage]
	pub type Bindings<T: Config> =
		StorageDoubleMap<_, Blake2_128Concat, T::AccountId, Twox64Concat, TaskId, Binding>;

	/// Events.
	#[pallet::event]
	#[pallet::generate_deposit(pub(super) fn deposit_event)]
	pub enum Event<T: Config> {
		/// `who` posted a standing commitment.
		Committed {
			/// The verifier.
			who: T::AccountId,
		},
		/// `who`'s commitment was bound to `task`.
		Bound {
			/// The verifier.
			who: T::AccountId,
			/// The task.
			task: TaskId,
		},
		/// `who` revealed its secret for `task`.
		Revealed {
			/// The verifier.
			who: T::AccountId,
			/// The task.
			task: TaskId,
		},
		/// `to` was paid `amount` for catching a forced error.
		CatchPaid {
			/// The whistleblower.
			to: T::AccountId,
			/// Paid.
			amount: BalanceOf<T>,
		},
	}

	/// Errors.
	#[pallet::error]
	pub enum Error<T> {
		/// Only bonded verifiers commit.
		NotVerifier,
		/// No commitment of the signer is bound to this task.
		NotBound,
		/// The secret was already revealed.
		AlreadyRevealed,
		/// The secret does not hash to the commitment.
		WrongSecret,
		/// The task's secrets may not be revealed now: reveals open at a point of its
		/// challenge window that the chain fixes, and a verifier's close with the first
		/// window that judged its verdict.
		RevealNotOpen,
	}

	#[pallet::hooks]
	impl<T: Config> Hooks<BlockNumberFor<T>> for Pallet<T> {
		#[cfg(feature = "try-runtime")]
		fn try_state(_n: BlockNumberFor<T>) -> Result<(), sp_runtime::TryRuntimeError> {
			Self::do_try_state()
		}
	}

	impl<T: Config> Pallet<T> {
		/// Checks the invariants: every revealed secret hashes to the commitment it was
		/// bound by (a verdict is judged by the secret committed before it was posted).
		#[cfg(any(test, feature = "try-runtime", feature = "std"))]
		pub fn do_try_state() -> Result<(), sp_runtime::TryRuntimeError> {
			for (_, _, b) in Bindings::<T>::iter() {
				if let Some(secret) = b.secret {
					ensure!(
						sp_crypto_hashing::blake2_256(&secret) == b.commitment,
						"jackpot: a revealed secret is not its commitment's"
					);
				}
			}
			Ok(())
		}
	}

	#[pallet::call]
	impl<T: Config> Pallet<T> {
		/// Posts (or replaces) the signer's standing commitment `blake2_256(secret)`. It
		/// may be drawn for a round whose segments may be forced once it has stood
		/// `CommitmentAge` blocks (a replacement starts the count again).
		#[pallet::call_index(0)]
		#[pallet::weight(T::WeightInfo::commit())]
		pub fn commit(origin: OriginFor<T>, commitment: Hash32) -> DispatchResult {
			let who = ensure_signed(origin)?;
			ensure!(!T::Stake::bond(&who, Role::Verifier).is_zero(), Error::<T>::NotVerifier);
			Commitments::<T>::insert(&who, (commitment, frame_system::Pallet::<T>::block_number()));
			Self::deposit_event(Event::Committed { who });
			Ok(())
		}

		/// Reveals the secret bound to `task`, once the task's reveals are open.
		#[pallet::call_index(1)]
		#[pallet::weight(T::WeightInfo::reveal().saturating_add(T::OnReveal::weight()))]
		pub fn reveal(origin: OriginFor<T>, task: TaskId, secret: Hash32) -> DispatchResult {
			let who = ensure_signed(origin)?;
			let mut b = Bindings::<T>::get(&who, task).ok_or(Error::<T>::NotBound)?;
			ensure!(b.secret.is_none(), Error::<T>::AlreadyRevealed);
			ensure!(T::OnReveal::may_reveal(&who, task), Error::<T>::RevealNotOpen);
			ensure!(
				sp_crypto_hashing::blake2_256(&secret) == b.commitment,
				Error::<T>::WrongSecret
			);
			b.secret = Some(secret);
			Bindings::<T>::insert(&who, task, b);
			T::OnReveal::revealed(&who, task);
			Self::deposit_event(Event::Revealed { who, task });
			Ok(())
		}
	}

	impl<T: Config> ForcedErrors<T::AccountId, BalanceOf<T>> for Pallet<T> {
		fn has_commitment(who: &T::AccountId) -> bool {
			Commitments::<T>::contains_key(who)
		}

		fn drawable(who: &T::AccountId) -> bool {
			let now = frame_system::Pallet::<T>::block_number();
			Commitments::<T>::get(who)
				.is_some_and(|(_, at)| now >= at.saturating_add(T::CommitmentAge::get()))
		}

		fn bind(who: &T::AccountId, task: TaskId, seed: Hash32) -> bool {
			let Some((commitment, _)) = Commitments::<T>::take(who) else { return false };
			let rate = T::ForcedErrorRate::get();
			let binding = Binding { commitment, secret: None, rate, seed: Some(seed) };
			Bindings::<T>::insert(who, task, binding);
			Self::deposit_event(Event::Bound { who: who.clone(), task });
			true
		}

		fn forced(who: &T::AccountId, task: TaskId, segment: u32) -> Option<bool> {
			let b = Bindings::<T>::get(who, task)?;
			Some(is_forced(&b.secret?, b.seed.as_ref(), task, segment, b.rate))
		}

		fn pay_catch(to: &T::AccountId) -> BalanceOf<T> {
			let pot = T::PotAccount::get();
			let available =
				T::Currency::reducible_balance(&pot, Preservation::Preserve, Fortitude::Polite);
			let amount = (T::CatchShare::get() * available).min(T::MaxCatch::get());
			if amount.is_zero() {
				return amount;
			}
			match T::Currency::transfer(&pot, to, amount, Preservation::Preserve) {
				Ok(_) => {
					Self::deposit_event(Event::CatchPaid { to: to.clone(), amount });
					amount
				}
				Err(_) => Zero::zero(),
			}
		}

		fn release(who: &T::AccountId, task: TaskId) {
			Bindings::<T>::remove(who, task);
		}
	}
}
