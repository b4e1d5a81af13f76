//! The stake pallet as the other pallets see it: [`StakeInterface`] over its storage.

use crate::{
	pallet::*, BalanceOf, BondStatus, Capability, Engaged, Role, SlashOutcome, StakeInterface,
};
use alloc::vec::Vec;
use frame_support::traits::{fungible::Mutate, tokens::Preservation};
use sp_runtime::{traits::Zero, DispatchResult, SaturatedConversion, Saturating};

impl<T: Config> StakeInterface<T::AccountId, BalanceOf<T>> for Pallet<T> {
	fn is_active(who: &T::AccountId, role: Role) -> bool {
		Active::<T>::get(role).iter().any(|(a, _, _)| a == who)
	}

	fn is_bonded(who: &T::AccountId, role: Role) -> bool {
		Bonds::<T>::get(who, role).is_some_and(|rb| {
			rb.status == BondStatus::Bonded && rb.bond >= Pallet::<T>::min_bond(role)
		})
	}

	fn covers(who: &T::AccountId, role: Role, units: u32) -> bool {
		let needed = Pallet::<T>::min_bond(role).saturating_mul(units.max(1).into());
		Self::is_bonded(who, role) && Self::bond(who, role) >= needed
	}

	fn has_room(who: &T::AccountId, role: Role, units: u32) -> bool {
		// Engagements in any role count: the tasks pallet counts them per account.
		let counted = Engagements::<T>::get(who).units.saturating_add(units.max(1));
		Self::covers(who, role, counted)
	}

	fn joined_at(who: &T::AccountId, role: Role) -> Option<u64> {
		// `Joined` holds only workers on the list; one on it without an entry joined
		// before the chain kept the block.
		match Joined::<T>::get(role).iter().find(|(a, _)| a == who) {
			Some((_, at)) => Some((*at).saturated_into()),
			None => Self::is_active(who, role).then_some(0),
		}
	}

	fn capability(who: &T::AccountId) -> Option<Capability> {
		Profiles::<T>::get(who).map(|p| p.capability)
	}

	fn endpoint(who: &T::AccountId) -> Vec<u8> {
		Profiles::<T>::get(who).map(|p| p.endpoint.into_inner()).unwrap_or_default()
	}

	fn active(role: Role) -> Vec<(T::AccountId, Capability, BalanceOf<T>)> {
		Active::<T>::get(role).into_inner()
	}

	fn min_bond(role: Role) -> BalanceOf<T> {
		Pallet::<T>::min_bond(role)
	}

	fn bond(who: &T::AccountId, role: Role) -> BalanceOf<T> {
		Bonds::<T>::get(who, role).map(|rb| rb.bond).unwrap_or_else(Zero::zero)
	}

	fn slash(
		who: &T::AccountId,
		role: Role,
		amount: BalanceOf<T>,
		reporter: Option<&T::AccountId>,
	) -> SlashOutcome<BalanceOf<T>> {
		Self::do_slash(who, role, amount, reporter.map(|r| (r, None)), None)
	}

	fn slash_compensating(
		who: &T::AccountId,
		role: Role,
		amount: BalanceOf<T>,
		victim: &T::AccountId,
		compensation: BalanceOf<T>,
		reporter: Option<&T::AccountId>,
		reporter_cap: Option<BalanceOf<T>>,
	) -> SlashOutcome<BalanceOf<T>> {
		let reporter = reporter.map(|r| (r, reporter_cap));
		Self::do_slash(who, role, amount, reporter, Some((victim, compensation)))
	}

	fn reward(
		from: &T::AccountId,
		who: &T::AccountId,
		role: Role,
		amount: BalanceOf<T>,
	) -> DispatchResult {
		T::Currency::transfer(from, who, amount, Preservation::Preserve)?;
		Self::note_earned(who, role, amount);
		Ok(())
	}

	fn note_earned(who: &T::AccountId, role: Role, amount: BalanceOf<T>) {
		Bonds::<T>::mutate(who, role, |rb| {
			if let Some(rb) = rb {
				rb.earned = rb.earned.saturating_add(amount);
			}
		});
		Self::deposit_event(Event::Rewarded { who: who.clone(), role, amount });
	}

	fn engaged_units(who: &T::AccountId) -> u32 {
		Engagements::<T>::get(who).units
	}

	fn note_engaged(who: &T::AccountId, units: u32, engaged: bool) {
		Pallet::<T>::count_engaged(who, |e| {
			e.units =
				if engaged { e.units.saturating_add(units) } else { e.units.saturating_sub(units) };
		});
	}

	fn audit_units(who: &T::AccountId) -> u32 {
		Engagements::<T>::get(who).audits
	}

	fn note_auditing(who: &T::AccountId, units: u32, auditing: bool) {
		Pallet::<T>::count_engaged(who, |e| {
			e.audits = if auditing {
				e.audits.saturating_add(units)
			} else {
				e.audits.saturating_sub(units)
			};
		});
	}
}

impl<T: Config> Pallet<T> {
	/// Changes `who`'s [`Engagements`] entry by `change`; an entry that counts nothing is
	/// removed.
	fn count_engaged(who: &T::AccountId, change: impl FnOnce(&mut Engaged)) {
		Engagements::<T>::mutate_exists(who, |n| {
			let mut e = n.unwrap_or_default();
			change(&mut e);
			*n = (e != Engaged::default()).then_some(e);
		});
	}
}
