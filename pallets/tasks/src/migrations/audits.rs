//! Migrations of the audits: counted in the stake pallet (22), re-checks dropped (23).

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

/// Versions 3 to 22's audit, which named the verifier whose Threshold fail it re-checked.
pub mod v22 {
	use super::*;

	/// A task's audits as versions 3 to 22 stored them.
	pub type AuditsOf<T> =
		BoundedVec<Audit<<T as frame_system::Config>::AccountId>, <T as Config>::MaxAuditSegments>;

	/// Audits of live tasks as versions 3 to 22 stored them (at [`crate::Audits`]'s key).
	#[frame_support::storage_alias]
	pub(crate) type Audits<T: Config> = StorageMap<Pallet<T>, Twox64Concat, TaskId, AuditsOf<T>>;

	/// An audit as versions 3 to 22 stored it: [`crate::Audit`] with `rechecks`.
	#[derive(Encode, Decode, Clone, PartialEq, Eq, Debug)]
	pub struct Audit<AccountId> {
		/// The segment.
		pub segment: u32,
		/// Its verifier.
		pub verifier: AccountId,
		/// The verdict posted.
		pub verdict: Option<Verdict>,
		/// Who challenges the verdict.
		pub challenger: Option<AccountId>,
		/// The verdict was overturned.
		pub overturned: bool,
		/// Who won a dispute over the verdict.
		pub refuted_by: Option<AccountId>,
		/// How many times the segment was given to a new verifier.
		pub reaudits: u32,
		/// The segment stands reported unavailable.
		pub unavailable: bool,
		/// The audit re-audits a reported segment.
		pub reported_before: bool,
		/// The verifier whose Threshold fail this audit re-checked.
		pub rechecks: Option<AccountId>,
	}

	impl<AccountId> Audit<AccountId> {
		/// The same audit as version 23 stores it. An audit that re-checked a fail is an
		/// ordinary re-audit of its segment: the fail it re-checked was void already.
		pub fn upgrade(self) -> crate::Audit<AccountId> {
			crate::Audit {
				segment: self.segment,
				verifier: self.verifier,
				verdict: self.verdict,
				challenger: self.challenger,
				overturned: self.overturned,
				refuted_by: self.refuted_by,
				reaudits: self.reaudits,
				unavailable: self.unavailable,
				reported_before: self.reported_before,
			}
		}
	}
}

/// The tasks pallet's migration from storage version 22 to 23 (runs once): a Threshold
/// fail that stands rejects the proof, as an Exact one does, so no audit re-checks one,
/// and audits no longer name the verifier of one. The audits are rewritten by
/// [`DropRechecks`], which the runtime runs before every other step of the tasks
/// pallet: the steps from version 3 on read audits as version 23 writes them. This step
/// only moves the version.
pub type V22ToV23<T> =
	VersionedMigration<22, 23, NothingToMove, Pallet<T>, <T as frame_system::Config>::DbWeight>;

/// Rewrites every live task's audits without the verifier each named as re-checked, on
/// a chain at storage versions 3 to 22 (a no-op on any other: version 2's audits are
/// already version 23's), one read and one write a task. Runs before the tasks pallet's
/// versioned steps and moves no version ([`V22ToV23`] does). A task whose fail was being
/// re-checked at the upgrade keeps its re-audit, judged by the new rule: its verdict
/// decides the segment (a pass completes the task where the old rule left it
/// unverified, and is open to challenge like any pass), and the verifier of the
/// re-checked fail, whose verdict is void, is not paid for it.
pub struct DropRechecks<T>(core::marker::PhantomData<T>);

impl<T: Config> DropRechecks<T> {
	/// Whether the chain's storage holds version 3 to 22's audits.
	fn due() -> bool {
		let v = Pallet::<T>::on_chain_storage_version();
		v >= StorageVersion::new(3) && v < StorageVersion::new(23)
	}
}

impl<T: Config> frame_support::traits::OnRuntimeUpgrade for DropRechecks<T> {
	fn on_runtime_upgrade() -> Weight {
		if !Self::due() {
			return T::DbWeight::get().reads(1);
		}
		let mut tasks = 0u64;
		Audits::<T>::translate::<v22::AuditsOf<T>, _>(|_, old| {
			tasks = tasks.saturating_add(1);
			let audits: Vec<Audit<T::AccountId>> =
				old.into_iter().map(v22::Audit::upgrade).collect();
			// As many audits as before: within the same bound.
			Some(BoundedVec::truncate_from(audits))
		});
		T::DbWeight::get().reads_writes(tasks.saturating_add(1), tasks)
	}

	#[cfg(feature = "try-runtime")]
	fn pre_upgrade() -> Result<Vec<u8>, sp_runtime::TryRuntimeError> {
		let audits: u64 = if Self::due() {
			v22::Audits::<T>::iter_values().map(|a| a.len() as u64).sum()
		} else {
			Audits::<T>::iter_values().map(|a| a.len() as u64).sum()
		};
		Ok(audits.encode())
	}

	#[cfg(feature = "try-runtime")]
	fn post_upgrade(state: Vec<u8>) -> Result<(), sp_runtime::TryRuntimeError> {
		let before = u64::decode(&mut &state[..]).map_err(|_| "undecodable count")?;
		let after: u64 = Audits::<T>::iter_values().map(|a| a.len() as u64).sum();
		ensure!(after == before, "an audit was lost");
		Ok(())
	}
}
