//! The pallet's invariants, checked by `try_state`.

use crate::*;

impl<T: Config> Pallet<T> {
	/// Invariants: every game has its deadline filed, and the held game bonds equal
	/// the open games' bonds.
	#[cfg(any(test, feature = "try-runtime", feature = "std"))]
	pub fn do_try_state() -> Result<(), sp_runtime::TryRuntimeError> {
		for (key, d) in Disputes::<T>::iter() {
			ensure!(Deadlines::<T>::contains(d.deadline, &key), "a game's deadline is not filed");
			ensure!(
				Deadlines::<T>::pending(d.deadline, frame_system::Pallet::<T>::block_number()),
				"a game is past its deadline"
			);
		}
		let mut by_account: alloc::collections::BTreeMap<T::AccountId, BalanceOf<T>> =
			Default::default();
		for (_, d) in Disputes::<T>::iter() {
			let e = by_account
				.entry(d.challenger.clone())
				.or_insert_with(sp_runtime::traits::Zero::zero);
			*e += d.bond;
		}
		for (who, total) in by_account {
			ensure!(
				T::Currency::balance_on_hold(&HoldReason::GameBond.into(), &who) == total,
				"held game bonds differ from open games"
			);
		}
		Ok(())
	}
}
