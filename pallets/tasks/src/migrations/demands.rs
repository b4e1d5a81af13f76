//! Migrations of the round's demanded checkpoints (`Demands`).

use super::*;

/// Versions 19 and 20's demands, which named no standby verifier.
pub mod v20 {
	use super::*;

	/// A demand as versions 19 and 20 stored it: [`crate::Demand`] without its standby.
	#[derive(Encode, Decode, Clone, PartialEq, Eq, Debug, TypeInfo, MaxEncodedLen)]
	pub struct Demand<AccountId, Balance, BlockNumber> {
		/// The checkpoint.
		pub checkpoint: u32,
		/// Who demanded it.
		pub by: AccountId,
		/// Its fee.
		pub fee: Balance,
		/// The block of the demand.
		pub at: BlockNumber,
		/// The last block (exclusive) a page may be published in.
		pub due: BlockNumber,
		/// The next page expected.
		pub next: Option<(u32, u32)>,
	}

	/// A demand of version 20 under the pallet's types.
	pub type DemandOf<T> =
		Demand<<T as frame_system::Config>::AccountId, BalanceOf<T>, BlockNumberFor<T>>;

	/// A round's demands as version 20 stored them.
	pub type RoundDemands<T> = BoundedVec<DemandOf<T>, DemandsBound<T>>;

	/// Each task's demands as version 20 stored them (at [`crate::Demands`]'s key).
	#[frame_support::storage_alias]
	pub(crate) type Demands<T: Config> =
		StorageMap<Pallet<T>, Twox64Concat, TaskId, RoundDemands<T>, ValueQuery>;
}

/// The tasks pallet's migration from storage version 19 to 20 (runs once): version 20
/// holds a demand's fee until the checkpoint is published, where version 19 paid it to
/// the treasury at once. A demand still unanswered at the upgrade has its fee moved back
/// from the treasury and held, so that the new rule applies to it whole (paid on its
/// last page, returned if its pages never come); should that fail, it records a fee of
/// nothing, which is then neither paid nor returned.
pub type V19ToV20<T> =
	VersionedMigration<19, 20, HeldDemands<T>, Pallet<T>, <T as frame_system::Config>::DbWeight>;

/// Version 19 to 20's step, unversioned: rewrites every task's demands, and moves each
/// unanswered one's fee (the treasury's and the demander's accounts and holds).
pub struct HeldDemands<T>(core::marker::PhantomData<T>);

impl<T: Config> frame_support::traits::UncheckedOnRuntimeUpgrade for HeldDemands<T> {
	fn on_runtime_upgrade() -> Weight {
		use frame_support::traits::tokens::Preservation;
		let (mut rounds, mut moved) = (0u64, 0u64);
		let treasury = T::TreasuryAccount::get();
		v20::Demands::<T>::translate_values(|mut demands: v20::RoundDemands<T>| {
			rounds = rounds.saturating_add(1);
			for d in demands.iter_mut().filter(|d| d.next.is_some()) {
				moved = moved.saturating_add(1);
				let back = frame_support::storage::with_storage_layer(|| {
					T::Currency::transfer(&treasury, &d.by, d.fee, Preservation::Preserve)?;
					T::Currency::hold(&HoldReason::Demand.into(), &d.by, d.fee)
				});
				if back.is_err() {
					d.fee = Zero::zero();
				}
			}
			Some(demands)
		});
		let db = T::DbWeight::get();
		db.reads_writes(rounds, rounds).saturating_add(db.reads_writes(3 * moved, 3 * moved))
	}
}

/// The tasks pallet's migration from storage version 20 to 21 (runs once): version 21
/// names each demand's standby verifier when it is made, where version 20 picked it
/// from the audits at every page. Each demand still awaiting pages at the upgrade names
/// the verifier version 20 would have picked now, except that an Exact-mode verdict on
/// the segment that ends at the checkpoint no longer names its verifier (nothing holds it
/// to keeping that state). `LastUpgrade` is new and starts empty.
pub type V20ToV21<T> =
	VersionedMigration<20, 21, NameStandbys<T>, Pallet<T>, <T as frame_system::Config>::DbWeight>;

/// Version 20 to 21's step, unversioned: rewrites every task's demands, reading its
/// audits and spec once.
pub struct NameStandbys<T>(core::marker::PhantomData<T>);

impl<T: Config> frame_support::traits::UncheckedOnRuntimeUpgrade for NameStandbys<T> {
	fn on_runtime_upgrade() -> Weight {
		let mut rounds = 0u64;
		// The upgrade's block (the system pallet has not moved on to it yet).
		let now = frame_system::Pallet::<T>::block_number().saturating_add(One::one());
		Demands::<T>::translate(|id, old: v20::RoundDemands<T>| {
			rounds = rounds.saturating_add(1);
			let named = old.into_iter().map(|d| Demand {
				// A demand answered, or lapsed under version 20's rules, names nobody: no
				// one is slashed for silence that rule did not punish.
				standby: (d.next.is_some() && now < d.due)
					.then(|| Pallet::<T>::standby(id, d.checkpoint))
					.flatten(),
				checkpoint: d.checkpoint,
				by: d.by,
				fee: d.fee,
				at: d.at,
				due: d.due,
				next: d.next,
			});
			// As many as before, under the same bound.
			Some(BoundedVec::truncate_from(named.collect()))
		});
		// Per round: its demands read and written, and for each demand its task's audits
		// and spec read (a round has at most `DemandsBound` demands).
		let per_round = 1 + 2 * u64::from(DemandsBound::<T>::get());
		T::DbWeight::get().reads_writes(rounds.saturating_mul(per_round), rounds)
	}

	#[cfg(feature = "try-runtime")]
	fn pre_upgrade() -> Result<Vec<u8>, sp_runtime::TryRuntimeError> {
		let n: u64 = v20::Demands::<T>::iter_values().map(|d| d.len() as u64).sum();
		Ok(n.encode())
	}

	#[cfg(feature = "try-runtime")]
	fn post_upgrade(state: Vec<u8>) -> Result<(), sp_runtime::TryRuntimeError> {
		let before = u64::decode(&mut &state[..]).map_err(|_| "undecodable count")?;
		let after: u64 = Demands::<T>::iter_values().map(|d| d.len() as u64).sum();
		ensure!(after == before, "a demand was lost");
		Ok(())
	}
}

/// The tasks pallet's migration from storage version 23 to 24 (runs once): a runtime
/// upgrade no longer rewrites every demand's due, which visited every round's demands;
/// the chain keeps the last upgrades' blocks ([`crate::Upgrades`]) and reads a demand's
/// due past them. The list starts empty: the dues of demands under way already hold the
/// upgrades before (the old rule wrote them), and this upgrade's own block is the first
/// kept (the pallet's upgrade hook, which runs after the migrations, adds it).
pub type V23ToV24<T> =
	VersionedMigration<23, 24, NothingToMove, Pallet<T>, <T as frame_system::Config>::DbWeight>;
