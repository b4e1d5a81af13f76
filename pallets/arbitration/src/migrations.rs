//! Storage migrations, one per storage version.

use crate::*;
use frame_support::{migrations::VersionedMigration, traits::UncheckedOnRuntimeUpgrade};

/// Version 0's storage that later versions replaced.
pub(crate) mod v0 {
	use super::*;

	/// Move deadlines by block, one bounded list per block.
	#[frame_support::storage_alias]
	pub type Deadlines<T: Config> = StorageMap<
		Pallet<T>,
		Twox64Concat,
		BlockNumberFor<T>,
		BoundedVec<DisputeKey, <T as Config>::MaxDeadlinesPerBlock>,
		ValueQuery,
	>;
}

/// Version 0 to 1: each block's move-deadline list becomes the first page of that block
/// in the paged queue.
pub struct PageDeadlines<T>(PhantomData<T>);

impl<T: Config> UncheckedOnRuntimeUpgrade for PageDeadlines<T> {
	fn on_runtime_upgrade() -> Weight {
		// One list per block holding an open game's deadline: collected before the new
		// pages are written.
		let old: Vec<_> = v0::Deadlines::<T>::drain().collect();
		let (blocks, items) = Deadlines::<T>::file_lists(old);
		let rw = blocks.saturating_mul(2).saturating_add(items);
		T::DbWeight::get().reads_writes(rw, rw)
	}
}

/// The arbitration pallet's migration from storage version 0 to 1 (runs once).
pub type V0ToV1<T> =
	VersionedMigration<0, 1, PageDeadlines<T>, Pallet<T>, <T as frame_system::Config>::DbWeight>;
