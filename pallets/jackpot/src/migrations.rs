//! Storage migrations, one per storage version.

use crate::*;
use frame_support::{migrations::VersionedMigration, weights::Weight};

/// The layouts of storage version 0.
pub mod v0 {
	use super::*;

	/// A binding of version 0: no draw seed.
	#[derive(Encode, Decode)]
	pub struct Binding {
		/// `blake2_256(secret)`.
		pub commitment: Hash32,
		/// The secret, once revealed.
		pub secret: Option<Hash32>,
		/// The forced-error rate when it was bound.
		pub rate: Perbill,
	}
}

/// The jackpot pallet's migration from storage version 0 to 1 (runs once): a binding
/// carries the seed of the draw that made it ([`Binding::seed`]), and a standing
/// commitment the block it was made in ([`Commitments`]). A binding made before has no
/// seed and is judged as it was made; a commitment made before reads as made in the
/// upgrade's block (one made a block before could have been chosen for a seed the
/// upgrade's first draws read).
pub type V0ToV1<T> =
	VersionedMigration<0, 1, SeedBindings<T>, Pallet<T>, <T as frame_system::Config>::DbWeight>;

/// Version 0 to 1's step, unversioned: rewrites every binding with no seed, and every
/// standing commitment as made now.
pub struct SeedBindings<T>(core::marker::PhantomData<T>);

impl<T: Config> frame_support::traits::UncheckedOnRuntimeUpgrade for SeedBindings<T> {
	fn on_runtime_upgrade() -> Weight {
		let mut n: u64 = 0;
		let now = frame_system::Pallet::<T>::block_number();
		Commitments::<T>::translate::<Hash32, _>(|_, hash| {
			n = n.saturating_add(1);
			Some((hash, now))
		});
		Bindings::<T>::translate::<v0::Binding, _>(|_, _, old| {
			n = n.saturating_add(1);
			Some(Binding {
				commitment: old.commitment,
				secret: old.secret,
				rate: old.rate,
				seed: None,
			})
		});
		T::DbWeight::get().reads_writes(n, n)
	}
}
