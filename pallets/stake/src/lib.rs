#![doc = include_str!("../README.md")]
#![cfg_attr(not(feature = "std"), no_std)]
#![deny(missing_docs)]

extern crate alloc;

pub use pallet::*;

mod active;
#[cfg(feature = "runtime-benchmarks")]
mod benchmarking;
mod impls;
#[cfg(any(test, feature = "try-runtime", feature = "std"))]
mod invariants;
pub mod migrations;
#[cfg(test)]
mod mock;
#[cfg(test)]
mod tests;
pub mod weights;

pub use weights::WeightInfo;

/// The storage layout's version: bumped, with a migration, by every change of it (1:
/// the block each active worker joined its list; 2: each active worker's bond, kept on
/// the list for draws weighted by bond; 3: of a worker's engagements, the units of its
/// audits, which its verifier bond backs one by one).
const STORAGE_VERSION: frame_support::traits::StorageVersion =
	frame_support::traits::StorageVersion::new(3);

use alloc::vec::Vec;
use codec::{Decode, DecodeWithMemTracking, Encode, MaxEncodedLen};
use frame_support::{
	pallet_prelude::*,
	traits::{
		fungible::{Inspect, InspectHold, Mutate, MutateHold},
		tokens::{Fortitude, Precision, Restriction},
	},
};
use scale_info::TypeInfo;
use sp_runtime::{traits::Zero, DispatchResult, Perbill, Saturating};

/// A role a worker bonds for.
#[derive(
	Clone,
	Copy,
	PartialEq,
	Eq,
	PartialOrd,
	Ord,
	Debug,
	Encode,
	Decode,
	DecodeWithMemTracking,
	MaxEncodedLen,
	TypeInfo,
)]
pub enum Role {
	/// Trains models and commits proofs of learning.
	Solver,
	/// Replays audited segments of a proof.
	Verifier,
	/// Replays verifiers' work and challenges it.
	Whistleblower,
}

impl Role {
	/// Every role, in a fixed order.
	pub const ALL: [Role; 3] = [Role::Solver, Role::Verifier, Role::Whistleblower];
}

/// The kind of compute device a worker claims.
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
pub enum DeviceKind {
	/// CPU only.
	Cpu,
	/// A CUDA GPU.
	Gpu,
}

/// A worker's claimed compute capability.
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
pub struct Capability {
	/// The device the worker trains or replays on.
	pub device: DeviceKind,
	/// Memory available to one task, in MiB (> 0).
	pub memory_mib: u32,
	/// Sustained speed in millions of gas per second (> 0); see the gas table of
	/// `gensyn-primitives` (one gas is about one nanosecond of one reference core).
	pub mgas_per_sec: u32,
}

/// What a worker publishes about itself.
#[derive(
	frame_support::CloneNoBound,
	frame_support::PartialEqNoBound,
	frame_support::EqNoBound,
	frame_support::DebugNoBound,
	Encode,
	Decode,
	DecodeWithMemTracking,
	MaxEncodedLen,
	TypeInfo,
)]
#[scale_info(skip_type_params(MaxLen))]
pub struct Profile<MaxLen: Get<u32>> {
	/// Claimed capability.
	pub capability: Capability,
	/// Base URL of the worker's proof store.
	pub endpoint: BoundedVec<u8, MaxLen>,
}

/// The state of one role's bond.
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
pub enum BondStatus<BlockNumber> {
	/// Bonded; drawable while the bond is at least the role's minimum.
	Bonded,
	/// Unbonding: never drawn again; withdrawable from this block on.
	Unbonding {
		/// First block at which `withdraw` succeeds.
		until: BlockNumber,
	},
}

/// One role's bond and record.
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
pub struct RoleBond<Balance, BlockNumber> {
	/// Amount held for this role.
	pub bond: Balance,
	/// Bonded or unbonding.
	pub status: BondStatus<BlockNumber>,
	/// Total ever slashed from this role.
	pub slashed: Balance,
	/// Total ever earned in this role.
	pub earned: Balance,
}

/// The units of engagement open tasks count on a worker ([`Engagements`]).
#[derive(
	Clone,
	Copy,
	PartialEq,
	Eq,
	Debug,
	Default,
	Encode,
	Decode,
	DecodeWithMemTracking,
	MaxEncodedLen,
	TypeInfo,
)]
pub struct Engaged {
	/// Every engagement's units, in any role: a bond is withdrawn only at zero, and a
	/// solver's room is counted against them.
	pub units: u32,
	/// Of those, the units of the tasks it audits: what its verifier bond backs at once
	/// (see `StakeInterface::audit_units`). Profiles and challenges are not counted.
	pub audits: u32,
}

/// How a slash was split.
#[derive(
	Clone, Copy, PartialEq, Eq, Debug, Default, Encode, Decode, DecodeWithMemTracking, TypeInfo,
)]
pub struct SlashOutcome<Balance> {
	/// Taken from the bond in all.
	pub total: Balance,
	/// Paid to the reporter.
	pub to_reporter: Balance,
	/// Paid to the jackpot account.
	pub to_jackpot: Balance,
	/// Burnt.
	pub burnt: Balance,
	/// Paid back to the party the fault cost (see `StakeInterface::slash_compensating`).
	pub to_victim: Balance,
}

/// What other pallets ask of and do to workers.
pub trait StakeInterface<AccountId, Balance> {
	/// Whether `who` may be drawn for `role` now.
	fn is_active(who: &AccountId, role: Role) -> bool;
	/// Whether `who` stands bonded for `role` (not unbonding, at least the minimum),
	/// drawn or not: what a worker may do in the role unasked, such as a whistleblower's
	/// challenge, must not depend on a place on the active list, which a higher bond can
	/// take from it.
	fn is_bonded(who: &AccountId, role: Role) -> bool {
		Self::is_active(who, role)
	}
	/// Whether `who`'s `role` bond covers `units` minimum bonds of the role: what one
	/// engagement of that weight may be slashed (see [`Self::has_room`]).
	fn covers(who: &AccountId, role: Role, units: u32) -> bool;
	/// Whether `who` may take one more engagement, of `units` units, in `role`: it stands
	/// bonded and its `role` bond covers one minimum bond of the role for every unit of
	/// every engagement that counts on it (in any role), these included. A task counts
	/// one unit per engagement, or more when it pays more than one minimum bond backs
	/// (the tasks pallet's `PayPerBondUnit`), and a solver's fault in it is slashed that
	/// many minimum bonds: one bond cannot back many fakes at once and have every slash
	/// after the first come to nothing.
	fn has_room(who: &AccountId, role: Role, units: u32) -> bool;
	/// The block `who` joined `role`'s active list at (0 for one that joined before the
	/// chain kept it), while it is on the list. A worker pushed off the list that joins
	/// it again joins anew: a draw whose randomness was known before a worker joined
	/// must not admit it, since it may have been made (or brought back) to win that draw.
	fn joined_at(who: &AccountId, role: Role) -> Option<u64>;
	/// The capability `who` claims, if it has a profile.
	fn capability(who: &AccountId) -> Option<Capability>;
	/// The proof-store base URL `who` published (empty without a profile).
	fn endpoint(who: &AccountId) -> Vec<u8>;
	/// The active workers of `role` with their capabilities and bonds (bounded by the
	/// pallet).
	fn active(role: Role) -> Vec<(AccountId, Capability, Balance)>;
	/// The minimum bond of `role`.
	fn min_bond(role: Role) -> Balance;
	/// The bond `who` holds for `role` (zero when not registered).
	fn bond(who: &AccountId, role: Role) -> Balance;
	/// Takes up to `amount` from `who`'s `role` bond; splits it between `reporter` (when
	/// given), the jackpot account and a burn. Never fails: it slashes what there is.
	fn slash(
		who: &AccountId,
		role: Role,
		amount: Balance,
		reporter: Option<&AccountId>,
	) -> SlashOutcome<Balance>;
	/// Like [`Self::slash`], but of the `amount` taken, up to `compensation` first goes
	/// to `victim`'s free balance (what the fault cost it); only the rest is split. The
	/// reporter is paid at most `reporter_cap` where one is given (what it is not paid
	/// goes to the jackpot, as a missing reporter's share does).
	fn slash_compensating(
		who: &AccountId,
		role: Role,
		amount: Balance,
		victim: &AccountId,
		compensation: Balance,
		reporter: Option<&AccountId>,
		reporter_cap: Option<Balance>,
	) -> SlashOutcome<Balance>;
	/// Pays `amount` from `from`'s free balance to `who` for work in `role`.
	fn reward(from: &AccountId, who: &AccountId, role: Role, amount: Balance) -> DispatchResult;
	/// Records that `who` was paid `amount` for work in `role` by other means.
	fn note_earned(who: &AccountId, role: Role, amount: Balance);
	/// The units of engagement tasks count on `who` now (see [`Self::note_engaged`]).
	fn engaged_units(who: &AccountId) -> u32;
	/// Notes that a task starts (`true`) or stops (`false`) counting `units` units on
	/// `who`; a worker cannot withdraw a bond while any task counts on it.
	fn note_engaged(who: &AccountId, units: u32, engaged: bool);
	/// The units of the tasks `who` audits now (see [`Self::note_auditing`]), a part of
	/// [`Self::engaged_units`]: a verifier bond that covers them and a task's units more
	/// is free to back one more audit.
	fn audit_units(who: &AccountId) -> u32;
	/// Notes that `who`, already engaged in a task of `units` units, starts (`true`) or
	/// stops (`false`) auditing it. A verifier bond backs each audit in full: one bond
	/// drawn to audit many tasks at once would lose itself once however many of them it
	/// passed wrongly.
	fn note_auditing(who: &AccountId, units: u32, auditing: bool);
}

/// The balance type of the pallet's currency.
pub type BalanceOf<T> =
	<<T as Config>::Currency as Inspect<<T as frame_system::Config>::AccountId>>::Balance;

/// A profile with the configured endpoint bound.
pub type ProfileOf<T> = Profile<<T as Config>::MaxEndpointLen>;

/// A role bond with the runtime's types.
pub type RoleBondOf<T> = RoleBond<BalanceOf<T>, frame_system::pallet_prelude::BlockNumberFor<T>>;

#[frame_support::pallet]
pub mod pallet {
	use super::*;
	use frame_system::pallet_prelude::*;

	/// The pallet.
	#[pallet::pallet]
	#[pallet::storage_version(STORAGE_VERSION)]
	pub struct Pallet<T>(_);

	/// Reasons this pallet holds funds: one per role, so each bond is slashed on its own.
	#[pallet::composite_enum]
	pub enum HoldReason {
		/// A solver's bond.
		SolverBond,
		/// A verifier's bond.
		VerifierBond,
		/// A whistleblower's bond.
		WhistleblowerBond,
	}

	/// Configuration.
	#[pallet::config]
	pub trait Config: frame_system::Config {
		/// The currency bonds are held in.
		type Currency: MutateHold<Self::AccountId, Reason = Self::RuntimeHoldReason>
			+ Mutate<Self::AccountId>
			+ InspectHold<Self::AccountId>;
		/// The runtime's hold reason.
		type RuntimeHoldReason: From<HoldReason>;
		/// Least bond of a solver.
		#[pallet::constant]
		type MinSolverBond: Get<BalanceOf<Self>>;
		/// Least bond of a verifier.
		#[pallet::constant]
		type MinVerifierBond: Get<BalanceOf<Self>>;
		/// Least bond of a whistleblower.
		#[pallet::constant]
		type MinWhistleblowerBond: Get<BalanceOf<Self>>;
		/// Blocks between `unbond` and `withdraw`.
		#[pallet::constant]
		type UnbondingDelay: Get<BlockNumberFor<Self>>;
		/// Longest proof-store endpoint, in bytes.
		#[pallet::constant]
		type MaxEndpointLen: Get<u32>;
		/// Most active workers per role.
		#[pallet::constant]
		type MaxActivePerRole: Get<u32>;
		/// Share of a slash paid to the reporter (when there is one).
		#[pallet::constant]
		type ReporterShare: Get<Perbill>;
		/// Share of a slash paid to the jackpot account (and all of what a reporter
		/// cannot receive). The rest is burnt.
		#[pallet::constant]
		type JackpotShare: Get<Perbill>;
		/// The jackpot's account.
		#[pallet::constant]
		type JackpotAccount: Get<Self::AccountId>;
		/// Weights.
		type WeightInfo: WeightInfo;
	}

	/// Bonds by account and role.
	#[pallet::storage]
	pub type Bonds<T: Config> =
		StorageDoubleMap<_, Blake2_128Concat, T::AccountId, Twox64Concat, Role, RoleBondOf<T>>;

	/// The block each active worker of a role joined the list, kept beside [`Active`]
	/// (none for a worker that joined before storage version 1).
	#[pallet::storage]
	pub type Joined<T: Config> = StorageMap<
		_,
		Twox64Concat,
		Role,
		BoundedVec<(T::AccountId, BlockNumberFor<T>), T::MaxActivePerRole>,
		ValueQuery,
	>;

	/// Published profiles (capability and proof-store endpoint).
	#[pallet::storage]
	pub type Profiles<T: Config> = StorageMap<_, Blake2_128Concat, T::AccountId, ProfileOf<T>>;

	/// Active workers of each role with their capability and bond (copies of their
	/// profile's and of [`Bonds`]), for draws.
	#[pallet::storage]
	pub type Active<T: Config> = StorageMap<
		_,
		Twox64Concat,
		Role,
		BoundedVec<(T::AccountId, Capability, BalanceOf<T>), T::MaxActivePerRole>,
		ValueQuery,
	>;

	/// How many units of engagement open tasks count on each worker (one per engagement,
	/// more in a task that pays more than a minimum bond backs), and how many of them are
	/// audits; a worker withdraws nothing while any is counted.
	#[pallet::storage]
	pub type Engagements<T: Config> =
		StorageMap<_, Blake2_128Concat, T::AccountId, Engaged, ValueQuery>;

	/// Events.
	#[pallet::event]
	#[pallet::generate_deposit(pub(super) fn deposit_event)]
	pub enum Event<T: Config> {
		/// `who` registered for `role` with `bond`.
		Registered {
			/// The worker.
			who: T::AccountId,
			/// The role.
			role: Role,
			/// The bond held.
			bond: BalanceOf<T>,
		},
		/// `who` published a new profile.
		ProfileUpdated {
			/// The worker.
			who: T::AccountId,
		},
		/// `who` added `amount` to its `role` bond.
		Bonded {
			/// The worker.
			who: T::AccountId,
			/// The role.
			role: Role,
			/// Added.
			amount: BalanceOf<T>,
		},
		/// `who` started unbonding `role`, withdrawable at `until`.
		Unbonding {
			/// The worker.
			who: T::AccountId,
			/// The role.
			role: Role,
			/// First block `withdraw` succeeds.
			until: BlockNumberFor<T>,
		},
		/// `who` withdrew its `role` bond of `amount`.
		Withdrawn {
			/// The worker.
			who: T::AccountId,
			/// The role.
			role: Role,
			/// Released.
			amount: BalanceOf<T>,
		},
		/// `who`'s `role` bond was slashed.
		Slashed {
			/// The worker.
			who: T::AccountId,
			/// The role.
			role: Role,
			/// The split.
			outcome: SlashOutcome<BalanceOf<T>>,
		},
		/// `who` was paid `amount` for work as `role`.
		Rewarded {
			/// The worker.
			who: T::AccountId,
			/// The role.
			role: Role,
			/// Paid.
			amount: BalanceOf<T>,
		},
		/// `who` is no longer drawn for `role` (bond below the minimum, unbonding, or a
		/// higher bond took its place on a full active list).
		Deactivated {
			/// The worker.
			who: T::AccountId,
			/// The role.
			role: Role,
		},
	}

	/// Errors.
	#[pallet::error]
	pub enum Error<T> {
		/// Already registered for this role.
		AlreadyRegistered,
		/// Not registered for this role.
		NotRegistered,
		/// The bond is below the role's minimum.
		BondBelowMinimum,
		/// Memory or throughput claimed is zero.
		InvalidCapability,
		/// The proof-store endpoint is empty.
		EmptyEndpoint,
		/// The role's active list is full and the bond is not above its lowest.
		TooManyWorkers,
		/// The role is already unbonding.
		AlreadyUnbonding,
		/// The role is not unbonding.
		NotUnbonding,
		/// The unbonding delay has not passed.
		UnbondingNotOver,
		/// An open task still counts on this worker.
		Engaged,
		/// The account has no profile.
		NoProfile,
		/// A zero amount.
		ZeroAmount,
	}

	#[pallet::hooks]
	impl<T: Config> Hooks<BlockNumberFor<T>> for Pallet<T> {
		#[cfg(feature = "try-runtime")]
		fn try_state(_n: BlockNumberFor<T>) -> Result<(), sp_runtime::TryRuntimeError> {
			Self::do_try_state()
		}
	}

	#[pallet::call]
	impl<T: Config> Pallet<T> {
		/// Registers the signer for `role` with `bond` (held), publishing `capability`
		/// and `endpoint` as its profile. On a full active list the lowest bond gives way
		/// to a higher one (`TooManyWorkers` when `bond` is not higher).
		#[pallet::call_index(0)]
		#[pallet::weight(T::WeightInfo::register())]
		pub fn register(
			origin: OriginFor<T>,
			role: Role,
			bond: BalanceOf<T>,
			capability: Capability,
			endpoint: BoundedVec<u8, T::MaxEndpointLen>,
		) -> DispatchResult {
			let who = ensure_signed(origin)?;
			ensure!(!Bonds::<T>::contains_key(&who, role), Error::<T>::AlreadyRegistered);
			ensure!(bond >= Self::min_bond(role), Error::<T>::BondBelowMinimum);
			Self::check_profile(&capability, &endpoint)?;
			T::Currency::hold(&Self::hold_reason(role).into(), &who, bond)?;
			Profiles::<T>::insert(&who, Profile { capability, endpoint });
			Bonds::<T>::insert(
				&who,
				role,
				RoleBond {
					bond,
					status: BondStatus::Bonded,
					slashed: Zero::zero(),
					earned: Zero::zero(),
				},
			);
			Self::activate(&who, role, capability)?;
			Self::refresh_capability(&who, capability);
			Self::deposit_event(Event::Registered { who, role, bond });
			Ok(())
		}

		/// Replaces the signer's profile.
		#[pallet::call_index(1)]
		#[pallet::weight(T::WeightInfo::update_profile())]
		pub fn update_profile(
			origin: OriginFor<T>,
			capability: Capability,
			endpoint: BoundedVec<u8, T::MaxEndpointLen>,
		) -> DispatchResult {
			let who = ensure_signed(origin)?;
			ensure!(Profiles::<T>::contains_key(&who), Error::<T>::NoProfile);
			Self::check_profile(&capability, &endpoint)?;
			Profiles::<T>::insert(&who, Profile { capability, endpoint });
			Self::refresh_capability(&who, capability);
			Self::deposit_event(Event::ProfileUpdated { who });
			Ok(())
		}

		/// Adds `amount` to the signer's `role` bond; reactivates a bonded role that a
		/// slash had put below the minimum, or that a higher bond pushed off a full
		/// active list, once its bond is above the list's lowest.
		#[pallet::call_index(2)]
		#[pallet::weight(T::WeightInfo::bond_extra())]
		pub fn bond_extra(
			origin: OriginFor<T>,
			role: Role,
			amount: BalanceOf<T>,
		) -> DispatchResult {
			let who = ensure_signed(origin)?;
			ensure!(!amount.is_zero(), Error::<T>::ZeroAmount);
			let mut rb = Bonds::<T>::get(&who, role).ok_or(Error::<T>::NotRegistered)?;
			T::Currency::hold(&Self::hold_reason(role).into(), &who, amount)?;
			rb.bond = rb.bond.saturating_add(amount);
			Bonds::<T>::insert(&who, role, rb);
			if <Self as StakeInterface<_, _>>::is_bonded(&who, role) {
				if let Some(p) = Profiles::<T>::get(&who) {
					// Off a full list whose lowest bond is still higher, the bond grows and
					// the worker stays undrawn: a top-up must not need an outbid.
					match Self::activate(&who, role, p.capability) {
						Err(e) if e == Error::<T>::TooManyWorkers.into() => {}
						other => other?,
					}
				}
			}
			Self::deposit_event(Event::Bonded { who, role, amount });
			Ok(())
		}

		/// Starts unbonding the signer's `role`: it is never drawn again, and the bond
		/// can be withdrawn after the unbonding delay. The bond stays slashable.
		#[pallet::call_index(3)]
		#[pallet::weight(T::WeightInfo::unbond())]
		pub fn unbond(origin: OriginFor<T>, role: Role) -> DispatchResult {
			let who = ensure_signed(origin)?;
			let mut rb = Bonds::<T>::get(&who, role).ok_or(Error::<T>::NotRegistered)?;
			ensure!(rb.status == BondStatus::Bonded, Error::<T>::AlreadyUnbonding);
			let until =
				frame_system::Pallet::<T>::block_number().saturating_add(T::UnbondingDelay::get());
			rb.status = BondStatus::Unbonding { until };
			Bonds::<T>::insert(&who, role, rb);
			Self::deactivate(&who, role);
			Self::deposit_event(Event::Unbonding { who, role, until });
			Ok(())
		}

		/// Releases the signer's unbonded `role` bond once the delay is over and no open
		/// task counts on the signer.
		#[pallet::call_index(4)]
		#[pallet::weight(T::WeightInfo::withdraw())]
		pub fn withdraw(origin: OriginFor<T>, role: Role) -> DispatchResult {
			let who = ensure_signed(origin)?;
			let rb = Bonds::<T>::get(&who, role).ok_or(Error::<T>::NotRegistered)?;
			let BondStatus::Unbonding { until } = rb.status else {
				return Err(Error::<T>::NotUnbonding.into());
			};
			ensure!(
				frame_system::Pallet::<T>::block_number() >= until,
				Error::<T>::UnbondingNotOver
			);
			ensure!(Engagements::<T>::get(&who).units == 0, Error::<T>::Engaged);
			let amount = T::Currency::release(
				&Self::hold_reason(role).into(),
				&who,
				rb.bond,
				Precision::BestEffort,
			)?;
			Bonds::<T>::remove(&who, role);
			if Role::ALL.iter().all(|r| !Bonds::<T>::contains_key(&who, *r)) {
				Profiles::<T>::remove(&who);
			}
			Self::deposit_event(Event::Withdrawn { who, role, amount });
			Ok(())
		}
	}

	impl<T: Config> Pallet<T> {
		/// The minimum bond of `role`.
		pub fn min_bond(role: Role) -> BalanceOf<T> {
			match role {
				Role::Solver => T::MinSolverBond::get(),
				Role::Verifier => T::MinVerifierBond::get(),
				Role::Whistleblower => T::MinWhistleblowerBond::get(),
			}
		}

		/// The hold reason of `role`'s bond.
		pub fn hold_reason(role: Role) -> HoldReason {
			match role {
				Role::Solver => HoldReason::SolverBond,
				Role::Verifier => HoldReason::VerifierBond,
				Role::Whistleblower => HoldReason::WhistleblowerBond,
			}
		}

		fn check_profile(
			capability: &Capability,
			endpoint: &BoundedVec<u8, T::MaxEndpointLen>,
		) -> DispatchResult {
			ensure!(
				capability.memory_mib > 0 && capability.mgas_per_sec > 0,
				Error::<T>::InvalidCapability
			);
			ensure!(!endpoint.is_empty(), Error::<T>::EmptyEndpoint);
			Ok(())
		}

		/// Moves up to `amount` of `who`'s `role` bond to `dest`; returns what moved
		/// (zero when the move is impossible, e.g. `dest` would stay below the
		/// existential deposit). All or nothing.
		fn move_held(
			who: &T::AccountId,
			role: Role,
			dest: &T::AccountId,
			amount: BalanceOf<T>,
		) -> BalanceOf<T> {
			if amount.is_zero() {
				return Zero::zero();
			}
			frame_support::storage::with_storage_layer(|| {
				T::Currency::transfer_on_hold(
					&Self::hold_reason(role).into(),
					who,
					dest,
					amount,
					Precision::Exact,
					Restriction::Free,
					Fortitude::Force,
				)
			})
			.unwrap_or_else(|_| Zero::zero())
		}

		pub(crate) fn do_slash(
			who: &T::AccountId,
			role: Role,
			amount: BalanceOf<T>,
			reporter: Option<(&T::AccountId, Option<BalanceOf<T>>)>,
			victim: Option<(&T::AccountId, BalanceOf<T>)>,
		) -> SlashOutcome<BalanceOf<T>> {
			let Some(mut rb) = Bonds::<T>::get(who, role) else {
				return SlashOutcome::default();
			};
			let held = T::Currency::balance_on_hold(&Self::hold_reason(role).into(), who);
			let most = amount.min(rb.bond).min(held);
			if most.is_zero() {
				return SlashOutcome::default();
			}
			// The victim is made whole first; the rest is split as any slash.
			let to_victim = match victim {
				Some((v, c)) if v != who => Self::move_held(who, role, v, c.min(most)),
				_ => Zero::zero(),
			};
			let total = most.saturating_sub(to_victim);
			let mut to_reporter = Zero::zero();
			if let Some((r, cap)) = reporter {
				if r != who {
					let share = T::ReporterShare::get() * total;
					let share = cap.map_or(share, |c| share.min(c));
					to_reporter = Self::move_held(who, role, r, share);
				}
			}
			// What the reporter did not get goes to the jackpot, up to its share plus
			// the reporter's unpaid share.
			let jackpot_target = T::JackpotShare::get() * total;
			let reporter_target =
				if reporter.is_some() { T::ReporterShare::get() * total } else { Zero::zero() };
			let jackpot_amount = jackpot_target
				.saturating_add(reporter_target.saturating_sub(to_reporter))
				.min(total.saturating_sub(to_reporter));
			let to_jackpot = Self::move_held(who, role, &T::JackpotAccount::get(), jackpot_amount);
			let rest = total.saturating_sub(to_reporter).saturating_sub(to_jackpot);
			let burnt = if rest.is_zero() {
				Zero::zero()
			} else {
				T::Currency::burn_held(
					&Self::hold_reason(role).into(),
					who,
					rest,
					Precision::BestEffort,
					Fortitude::Force,
				)
				.unwrap_or_else(|_| Zero::zero())
			};
			let taken = to_victim
				.saturating_add(to_reporter)
				.saturating_add(to_jackpot)
				.saturating_add(burnt);
			rb.bond = rb.bond.saturating_sub(taken);
			rb.slashed = rb.slashed.saturating_add(taken);
			Bonds::<T>::insert(who, role, rb);
			if rb.bond < Self::min_bond(role) {
				Self::deactivate(who, role);
			} else {
				Self::refresh_bond(who, role, rb.bond);
			}
			let outcome = SlashOutcome { total: taken, to_reporter, to_jackpot, burnt, to_victim };
			Self::deposit_event(Event::Slashed { who: who.clone(), role, outcome });
			outcome
		}
	}
}
