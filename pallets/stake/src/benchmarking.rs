//! Benchmarks of the stake pallet (frame-benchmarking v2). Each call is measured with
//! the role's active list full but for the caller, or (`register`) full, so that the
//! caller's higher bond takes the lowest's place. `bond_extra` tops up a worker already
//! on the list; a top-up that brings one back onto it (the `Joined` list written too) is
//! covered by the hand count.

use super::*;
use crate::Pallet as Stake;
use frame_benchmarking::v2::*;
use frame_support::traits::fungible::Mutate;
use frame_system::RawOrigin;

fn funded<T: Config>(name: &'static str, i: u32) -> T::AccountId {
	let who: T::AccountId = account(name, i, 0);
	let amount = Pallet::<T>::min_bond(Role::Solver)
		.saturating_add(Pallet::<T>::min_bond(Role::Verifier))
		.saturating_add(Pallet::<T>::min_bond(Role::Whistleblower))
		.saturating_mul(1_000u32.into())
		.saturating_add(T::Currency::minimum_balance());
	T::Currency::set_balance(&who, amount);
	who
}

fn capability() -> Capability {
	Capability { device: DeviceKind::Gpu, memory_mib: 81_920, mgas_per_sec: 100_000 }
}

fn endpoint<T: Config>() -> BoundedVec<u8, T::MaxEndpointLen> {
	let len = T::MaxEndpointLen::get().max(1) as usize;
	BoundedVec::truncate_from(alloc::vec![b'a'; len])
}

/// Fills `role`'s active list with others at the minimum bond, leaving `free` slots.
fn fill_active<T: Config>(role: Role, free: u32) {
	let n = T::MaxActivePerRole::get().saturating_sub(free);
	for i in 0..n {
		let who = funded::<T>("filler", i);
		let _ = Stake::<T>::register(
			RawOrigin::Signed(who).into(),
			role,
			Stake::<T>::min_bond(role),
			capability(),
			endpoint::<T>(),
		);
	}
}

fn registered<T: Config>(role: Role) -> T::AccountId {
	fill_active::<T>(role, 1);
	let who = funded::<T>("worker", 0);
	let _ = Stake::<T>::register(
		RawOrigin::Signed(who.clone()).into(),
		role,
		Stake::<T>::min_bond(role),
		capability(),
		endpoint::<T>(),
	);
	who
}

#[benchmarks]
mod benchmarks {
	use super::*;

	#[benchmark]
	fn register() {
		fill_active::<T>(Role::Solver, 0);
		let who = funded::<T>("worker", 0);
		let bond = Stake::<T>::min_bond(Role::Solver).saturating_add(1u32.into());
		#[extrinsic_call]
		_(RawOrigin::Signed(who.clone()), Role::Solver, bond, capability(), endpoint::<T>());
		assert!(Stake::<T>::is_active(&who, Role::Solver));
	}

	#[benchmark]
	fn update_profile() {
		let who = registered::<T>(Role::Solver);
		let cap = Capability { memory_mib: 1, ..capability() };
		#[extrinsic_call]
		_(RawOrigin::Signed(who.clone()), cap, endpoint::<T>());
		assert_eq!(Stake::<T>::capability(&who), Some(cap));
	}

	#[benchmark]
	fn bond_extra() {
		let who = registered::<T>(Role::Solver);
		let amount = Stake::<T>::min_bond(Role::Solver).max(1u32.into());
		#[extrinsic_call]
		_(RawOrigin::Signed(who.clone()), Role::Solver, amount);
		assert!(Stake::<T>::bond(&who, Role::Solver) > Stake::<T>::min_bond(Role::Solver));
	}

	#[benchmark]
	fn unbond() {
		let who = registered::<T>(Role::Solver);
		#[extrinsic_call]
		_(RawOrigin::Signed(who.clone()), Role::Solver);
		assert!(!Stake::<T>::is_active(&who, Role::Solver));
	}

	#[benchmark]
	fn withdraw() {
		let who = registered::<T>(Role::Solver);
		let _ = Stake::<T>::unbond(RawOrigin::Signed(who.clone()).into(), Role::Solver);
		let until =
			frame_system::Pallet::<T>::block_number().saturating_add(T::UnbondingDelay::get());
		frame_system::Pallet::<T>::set_block_number(until);
		#[extrinsic_call]
		_(RawOrigin::Signed(who.clone()), Role::Solver);
		assert!(Bonds::<T>::get(&who, Role::Solver).is_none());
	}

	#[benchmark]
	fn slash() {
		let who = registered::<T>(Role::Solver);
		let reporter = funded::<T>("reporter", 0);
		let victim = funded::<T>("victim", 0);
		let amount = Stake::<T>::min_bond(Role::Solver);
		// The worst case: a victim's leg, then the reporter's, the jackpot's and a burn.
		let half = amount / 2u32.into();
		#[block]
		{
			let _ = Stake::<T>::slash_compensating(
				&who,
				Role::Solver,
				amount,
				&victim,
				half,
				Some(&reporter),
				None,
			);
		}
		assert!(!Stake::<T>::is_active(&who, Role::Solver) || amount.is_zero());
	}

	impl_benchmark_test_suite!(Stake, crate::mock::new_test_ext(), crate::mock::Test);
}
