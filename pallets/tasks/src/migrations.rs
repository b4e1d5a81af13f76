//! Storage migrations, one per storage version.

use crate::*;
use frame_support::migrations::VersionedMigration;

/// Version 0's storage that later versions replaced.
pub(crate) mod v0 {
	use super::*;

	/// Tasks whose deadline fires at a block, one bounded list per block.
	#[frame_support::storage_alias]
	pub type Deadlines<T: Config> = StorageMap<
		Pallet<T>,
		Twox64Concat,
		BlockNumberFor<T>,
		BoundedVec<TaskId, <T as Config>::MaxDeadlinesPerBlock>,
		ValueQuery,
	>;
}

/// The tasks pallet's migration from storage version 0 to 1 (runs once).
/// Each block's deadline list becomes the first pages of that block in the paged queue.
pub type V0ToV1<T> =
	VersionedMigration<0, 1, PageDeadlines<T>, Pallet<T>, <T as frame_system::Config>::DbWeight>;

/// Version 0 to 1's step, unversioned.
pub type PageDeadlines<T> = crate::queue::PageLists<
	v0::Deadlines<T>,
	<T as Config>::MaxDeadlinesPerBlock,
	Deadlines<T>,
	<T as frame_system::Config>::DbWeight,
>;
