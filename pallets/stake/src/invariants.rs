//! The stake pallet's invariants, checked by `try_state` and by the tests.

use crate::{pallet::*, BondStatus, Role};
use frame_support::{ensure, traits::fungible::InspectHold};

impl<T: Config> Pallet<T> {
	/// Checks the pallet's invariants: every bond equals its hold, every active
	/// worker is bonded at least the minimum, with its bond copied on the list, and has a
	/// profile, no account is listed twice, a join block is kept once for each
	/// listed worker only, and a worker's audits are among its engagements.
	pub fn do_try_state() -> Result<(), sp_runtime::TryRuntimeError> {
		for (who, role, rb) in Bonds::<T>::iter() {
			let held = T::Currency::balance_on_hold(&Self::hold_reason(role).into(), &who);
			ensure!(held == rb.bond, "stake: bond differs from its hold");
			ensure!(Profiles::<T>::contains_key(&who), "stake: bonded account has no profile");
		}
		for (_, e) in Engagements::<T>::iter() {
			ensure!(e.audits <= e.units, "stake: more units audited than engaged");
		}
		for role in Role::ALL {
			let list = Active::<T>::get(role);
			for (i, (who, cap, bond)) in list.iter().enumerate() {
				let rb = Bonds::<T>::get(who, role).ok_or("stake: active but not bonded")?;
				ensure!(rb.bond == *bond, "stake: stale bond in active list");
				ensure!(rb.status == BondStatus::Bonded, "stake: active but unbonding");
				ensure!(rb.bond >= Self::min_bond(role), "stake: active below minimum");
				let p = Profiles::<T>::get(who).ok_or("stake: active without profile")?;
				ensure!(p.capability == *cap, "stake: stale capability in active list");
				ensure!(
					!list.iter().skip(i.saturating_add(1)).any(|(a, _, _)| a == who),
					"stake: listed twice"
				);
			}
			// A join block is kept only for a worker on the list (a watcher's
			// eligibility reads it), once.
			let joined = Joined::<T>::get(role);
			for (i, (who, _)) in joined.iter().enumerate() {
				ensure!(list.iter().any(|(a, _, _)| a == who), "stake: joined but not active");
				ensure!(
					!joined.iter().skip(i.saturating_add(1)).any(|(a, _)| a == who),
					"stake: joined twice"
				);
			}
		}
		Ok(())
	}
}
