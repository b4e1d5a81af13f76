//! The migration that counts each verifier's audits in the stake pallet.

use super::*;

/// The tasks pallet's migration from storage version 21 to 22 (runs once): from version
/// 22 a verifier's bond backs each task it audits in full, and the stake pallet counts
/// the units of those tasks apart from its other engagements. This fills that count from
/// the audits of the live tasks. The stake pallet must have moved to its version 3
/// first, whose entries hold the count (the runtime orders the two).
pub type V21ToV22<T> =
	VersionedMigration<21, 22, CountAudits<T>, Pallet<T>, <T as frame_system::Config>::DbWeight>;

/// Version 21 to 22's step, unversioned: reads every live task's audits and its bond
/// units, and writes one stake entry for each verifier of each.
pub struct CountAudits<T>(core::marker::PhantomData<T>);

impl<T: Config> frame_support::traits::UncheckedOnRuntimeUpgrade for CountAudits<T> {
	fn on_runtime_upgrade() -> Weight {
		let (mut reads, mut writes) = (0u64, 0u64);
		for (who, units) in Pallet::<T>::audited_units() {
			T::Stake::note_auditing(&who, units, true);
			writes = writes.saturating_add(1);
		}
		for _ in Audits::<T>::iter_keys() {
			reads = reads.saturating_add(3);
		}
		T::DbWeight::get().reads_writes(reads.saturating_add(writes), writes)
	}

	#[cfg(feature = "try-runtime")]
	fn post_upgrade(_: Vec<u8>) -> Result<(), sp_runtime::TryRuntimeError> {
		for (who, units) in Pallet::<T>::audited_units() {
			ensure!(T::Stake::audit_units(&who) == units, "an auditor was missed");
			// Run before the stake pallet's version 3, the count would have replaced
			// the engagements it is a part of.
			ensure!(T::Stake::engaged_units(&who) >= units, "engagements lost");
		}
		Ok(())
	}
}
