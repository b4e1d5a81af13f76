//! Benchmarks of the jackpot pallet (frame-benchmarking v2). They assume the runtime's
//! `T::Stake` is `pallet_gensyn_stake` (a committing signer must hold a verifier bond).

use super::*;
use frame_benchmarking::v2::*;
use frame_support::traits::fungible::Mutate as _;
use frame_system::{pallet_prelude::BlockNumberFor, RawOrigin};
use pallet_gensyn_stake::{Capability, DeviceKind, Pallet as Stake};
use sp_runtime::traits::{Saturating, Zero};

/// A funded account registered as a verifier with the minimum bond.
fn verifier<T: Config + pallet_gensyn_stake::Config>() -> T::AccountId {
	let who: T::AccountId = account("verifier", 0, 0);
	let bond = Stake::<T>::min_bond(Role::Verifier);
	let plenty = bond.saturating_mul(10u32.into());
	<T as pallet_gensyn_stake::Config>::Currency::set_balance(&who, plenty);
	let cap = Capability { device: DeviceKind::Cpu, memory_mib: 1_024, mgas_per_sec: 100 };
	Stake::<T>::register(
		RawOrigin::Signed(who.clone()).into(),
		Role::Verifier,
		bond,
		cap,
		BoundedVec::truncate_from(b"http://127.0.0.1:8700".to_vec()),
	)
	.expect("the verifier registers");
	who
}

#[benchmarks(where T: pallet_gensyn_stake::Config)]
mod benchmarks {
	use super::*;

	#[benchmark]
	fn commit() {
		let who = verifier::<T>();
		let commitment = sp_crypto_hashing::blake2_256(&[7u8; 32]);
		#[extrinsic_call]
		_(RawOrigin::Signed(who.clone()), commitment);
		assert!(Commitments::<T>::contains_key(&who));
	}

	/// Where the runtime's tasks pallet opens reveals only in a task's reveal window,
	/// which this pallet cannot set up, there is nothing to measure: the reveal is
	/// charged its hand count alone.
	#[benchmark]
	fn reveal() -> Result<(), BenchmarkError> {
		let who = verifier::<T>();
		if !T::OnReveal::may_reveal(&who, 3) {
			return Err(BenchmarkError::Skip);
		}
		let secret = [7u8; 32];
		Commitments::<T>::insert(
			&who,
			(sp_crypto_hashing::blake2_256(&secret), BlockNumberFor::<T>::zero()),
		);
		assert!(<Pallet<T> as ForcedErrors<T::AccountId, BalanceOf<T>>>::bind(&who, 3, [1; 32]));
		#[extrinsic_call]
		_(RawOrigin::Signed(who.clone()), 3, secret);
		assert_eq!(Bindings::<T>::get(&who, 3).and_then(|b| b.secret), Some(secret));
		Ok(())
	}

	impl_benchmark_test_suite!(Pallet, crate::mock::new_test_ext(), crate::mock::Test);
}
