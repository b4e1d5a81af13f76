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
