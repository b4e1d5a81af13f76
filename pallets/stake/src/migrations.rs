//! Storage migrations, one per storage version.

use crate::*;
use frame_support::{migrations::VersionedMigration, weights::Weight};

/// The stake pallet's migration from storage version 0 to 1 (runs once): the chain
/// starts keeping the block each active worker joins its list ([`Joined`]). Nothing
/// moves: a worker on the list without an entry joined before the upgrade, and reads
/// as joined at block 0.
pub type V0ToV1<T> =
	VersionedMigration<0, 1, KeepJoinBlocks<T>, Pallet<T>, <T as frame_system::Config>::DbWeight>;

/// Version 0 to 1's step, unversioned: writes nothing.
pub struct KeepJoinBlocks<T>(core::marker::PhantomData<T>);

impl<T: Config> frame_support::traits::UncheckedOnRuntimeUpgrade for KeepJoinBlocks<T> {
	fn on_runtime_upgrade() -> Weight {
		Weight::zero()
	}
}

/// Version 1's active lists, whose entries held no bond.
pub(crate) mod v1 {
	use super::*;

	/// Active workers of each role with their capability, as version 1 stored them.
	#[frame_support::storage_alias]
	pub type Active<T: Config> = StorageMap<
		Pallet<T>,
		Twox64Concat,
		Role,
		BoundedVec<
			(<T as frame_system::Config>::AccountId, Capability),
			<T as Config>::MaxActivePerRole,
		>,
		ValueQuery,
	>;
}

/// The stake pallet's migration from storage version 1 to 2 (runs once): each active
/// worker's entry takes a copy of its bond, read from [`Bonds`], which draws weigh it by.
pub type V1ToV2<T> =
	VersionedMigration<1, 2, CopyBonds<T>, Pallet<T>, <T as frame_system::Config>::DbWeight>;

/// Version 1 to 2's step, unversioned: per role, one list read and written, and one bond
/// read per entry.
pub struct CopyBonds<T>(core::marker::PhantomData<T>);

impl<T: Config> frame_support::traits::UncheckedOnRuntimeUpgrade for CopyBonds<T> {
	fn on_runtime_upgrade() -> Weight {
		let mut reads = 0u64;
		for role in Role::ALL {
			let old = v1::Active::<T>::take(role);
			reads = reads.saturating_add(1 + old.len() as u64);
			let new: Vec<_> = old
				.into_iter()
				.map(|(who, capability)| {
					let bond = Bonds::<T>::get(&who, role).map(|b| b.bond).unwrap_or_default();
					(who, capability, bond)
				})
				.collect();
			// As many entries as before: the bound holds.
			Active::<T>::insert(role, BoundedVec::truncate_from(new));
		}
		T::DbWeight::get().reads_writes(reads, Role::ALL.len() as u64)
	}
}

/// Version 2's engagement counts, which did not tell audits apart.
pub(crate) mod v2 {
	use super::*;

	/// Units of engagement counted on each worker, as version 2 stored them.
	#[frame_support::storage_alias]
	pub type Engagements<T: Config> = StorageMap<
		Pallet<T>,
		Blake2_128Concat,
		<T as frame_system::Config>::AccountId,
		u32,
		ValueQuery,
	>;
}

/// The stake pallet's migration from storage version 2 to 3 (runs once): each
/// engagement count takes a count of its audits, zero here; the tasks pallet's own
/// migration then counts the audits of its live tasks.
pub type V2ToV3<T> =
	VersionedMigration<2, 3, CountAudits<T>, Pallet<T>, <T as frame_system::Config>::DbWeight>;

/// Version 2 to 3's step, unversioned: each entry read and written once.
pub struct CountAudits<T>(core::marker::PhantomData<T>);

impl<T: Config> frame_support::traits::UncheckedOnRuntimeUpgrade for CountAudits<T> {
	fn on_runtime_upgrade() -> Weight {
		let mut n = 0u64;
		Engagements::<T>::translate::<u32, _>(|_, units| {
			n = n.saturating_add(1);
			Some(Engaged { units, audits: 0 })
		});
		T::DbWeight::get().reads_writes(n, n)
	}

	#[cfg(feature = "try-runtime")]
	fn pre_upgrade() -> Result<Vec<u8>, sp_runtime::TryRuntimeError> {
		let counts: Vec<(T::AccountId, u32)> = v2::Engagements::<T>::iter().collect();
		Ok(counts.encode())
	}

	#[cfg(feature = "try-runtime")]
	fn post_upgrade(state: Vec<u8>) -> Result<(), sp_runtime::TryRuntimeError> {
		let before = Vec::<(T::AccountId, u32)>::decode(&mut &state[..])
			.map_err(|_| "undecodable counts")?;
		ensure!(Engagements::<T>::iter().count() == before.len(), "an entry was lost");
		for (who, units) in before {
			ensure!(Engagements::<T>::get(&who).units == units, "a count changed");
		}
		Ok(())
	}
}
