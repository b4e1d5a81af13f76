//! The active lists: who each role's draws pick from, with the capability and bond a
//! draw reads, kept beside the profiles and bonds they copy.

use crate::{pallet::*, BalanceOf, Capability, Role};
use frame_support::pallet_prelude::*;
use sp_runtime::{traits::Zero, DispatchResult};

impl<T: Config> Pallet<T> {
	/// Puts `who` on `role`'s active list (or refreshes its capability and bond there).
	/// On a full list the lowest bond gives way to a higher one (it stays bonded,
	/// inactive, until it outbids the lowest itself): a flood of minimum bonds must not
	/// keep a better-bonded newcomer out. Refused when `who`'s bond is not above the
	/// lowest.
	pub(crate) fn activate(
		who: &T::AccountId,
		role: Role,
		capability: Capability,
	) -> DispatchResult {
		let bond = Bonds::<T>::get(who, role).map(|b| b.bond).unwrap_or_else(Zero::zero);
		let evicted = Active::<T>::try_mutate(role, |list| -> Result<_, DispatchError> {
			if let Some(entry) = list.iter_mut().find(|(a, _, _)| a == who) {
				entry.1 = capability;
				entry.2 = bond;
				return Ok(None);
			}
			let mut evicted = None;
			if list.len() as u32 >= T::MaxActivePerRole::get() {
				let lowest = list.iter().enumerate().map(|(i, (_, _, b))| (*b, i)).min();
				match lowest {
					Some((low, i)) if bond > low => evicted = Some(list.remove(i).0),
					_ => return Err(Error::<T>::TooManyWorkers.into()),
				}
			}
			list.try_push((who.clone(), capability, bond))
				.map_err(|_| Error::<T>::TooManyWorkers)?;
			Ok(Some(evicted))
		})?;
		let Some(evicted) = evicted else { return Ok(()) };
		let now = frame_system::Pallet::<T>::block_number();
		Joined::<T>::mutate(role, |joined| {
			joined.retain(|(a, _)| a != who && Some(a) != evicted.as_ref());
			// Room: it holds only workers on the list, which had room for `who`.
			let _ = joined.try_push((who.clone(), now));
		});
		if let Some(out) = evicted {
			Self::deposit_event(Event::Deactivated { who: out, role });
		}
		Ok(())
	}

	/// Takes `who` off `role`'s active list.
	pub(crate) fn deactivate(who: &T::AccountId, role: Role) {
		let mut removed = false;
		Active::<T>::mutate(role, |list| {
			let before = list.len();
			list.retain(|(a, _, _)| a != who);
			removed = list.len() != before;
		});
		if removed {
			Joined::<T>::mutate(role, |joined| joined.retain(|(a, _)| a != who));
			Self::deposit_event(Event::Deactivated { who: who.clone(), role });
		}
	}

	/// Updates the capability copy kept in every active list `who` is on.
	pub(crate) fn refresh_capability(who: &T::AccountId, capability: Capability) {
		for role in Role::ALL {
			Active::<T>::mutate(role, |list| {
				for entry in list.iter_mut().filter(|(a, _, _)| a == who) {
					entry.1 = capability;
				}
			});
		}
	}

	/// Updates the bond copy kept in `role`'s active list, if `who` is on it.
	pub(crate) fn refresh_bond(who: &T::AccountId, role: Role, bond: BalanceOf<T>) {
		Active::<T>::mutate(role, |list| {
			for entry in list.iter_mut().filter(|(a, _, _)| a == who) {
				entry.2 = bond;
			}
		});
	}
}
