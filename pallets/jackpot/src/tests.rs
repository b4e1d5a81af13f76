//! Tests of the jackpot pallet.

use crate::{mock::*, *};
use frame_support::{assert_noop, assert_ok, BoundedVec};
use pallet_gensyn_stake::{Capability, DeviceKind};
use sp_crypto_hashing::blake2_256;

type J = Pallet<Test>;

/// The randomness of a draw that binds a commitment.
const SEED: Hash32 = [3; 32];

fn verifier(who: u64) {
	assert_ok!(Stake::register(
		RuntimeOrigin::signed(who),
		Role::Verifier,
		50,
		Capability { device: DeviceKind::Cpu, memory_mib: 1, mgas_per_sec: 1 },
		BoundedVec::truncate_from(b"e".to_vec())
	));
}

#[test]
fn only_verifiers_commit_and_a_bind_consumes_the_commitment() {
	new_test_ext().execute_with(|| {
		assert_noop!(
			Jackpot::commit(RuntimeOrigin::signed(1), [0; 32]),
			Error::<Test>::NotVerifier
		);
		assert_noop!(
			Jackpot::commit(RuntimeOrigin::none(), [0; 32]),
			sp_runtime::DispatchError::BadOrigin
		);
		verifier(1);
		assert!(!J::has_commitment(&1));
		assert!(!J::bind(&1, 7, SEED));
		assert_ok!(Jackpot::commit(RuntimeOrigin::signed(1), blake2_256(&[5; 32])));
		assert!(J::has_commitment(&1));
		assert!(J::bind(&1, 7, SEED));
		assert!(!J::has_commitment(&1));
		assert_eq!(J::forced(&1, 7, 0), None, "nothing known before the reveal");
		J::release(&1, 7);
		assert!(Bindings::<Test>::get(1, 7).is_none());
	});
}

#[test]
fn reveal_checks_the_secret_once() {
	new_test_ext().execute_with(|| {
		verifier(1);
		assert_noop!(
			Jackpot::reveal(RuntimeOrigin::signed(1), 7, [5; 32]),
			Error::<Test>::NotBound
		);
		assert_ok!(Jackpot::commit(RuntimeOrigin::signed(1), blake2_256(&[5; 32])));
		assert!(J::bind(&1, 7, SEED));
		assert_noop!(
			Jackpot::reveal(RuntimeOrigin::signed(1), 7, [6; 32]),
			Error::<Test>::WrongSecret
		);
		assert_noop!(
			Jackpot::reveal(RuntimeOrigin::none(), 7, [5; 32]),
			sp_runtime::DispatchError::BadOrigin
		);
		assert_ok!(Jackpot::reveal(RuntimeOrigin::signed(1), 7, [5; 32]));
		assert_noop!(
			Jackpot::reveal(RuntimeOrigin::signed(1), 7, [5; 32]),
			Error::<Test>::AlreadyRevealed
		);
		for s in 0..64 {
			assert_eq!(
				J::forced(&1, 7, s),
				Some(is_forced(&[5; 32], Some(&SEED), 7, s, Perbill::from_percent(50)))
			);
		}
		assert_ok!(J::do_try_state());
	});
}

/// The invariant check catches a revealed secret that is not its commitment's (storage
/// that no call writes, e.g. a faulty migration).
#[test]
fn the_invariants_catch_a_secret_that_is_not_its_commitments() {
	new_test_ext().execute_with(|| {
		let rate = Perbill::from_percent(1);
		let b = Binding {
			commitment: blake2_256(&[5; 32]),
			secret: Some([5; 32]),
			rate,
			seed: Some(SEED),
		};
		Bindings::<Test>::insert(1, 7, b);
		assert_ok!(J::do_try_state());
		Bindings::<Test>::insert(1, 7, Binding { secret: Some([6; 32]), ..b });
		assert!(J::do_try_state().is_err());
	});
}

#[test]
fn a_binding_keeps_the_rate_it_was_bound_at() {
	new_test_ext().execute_with(|| {
		verifier(1);
		RATE.with(|r| *r.borrow_mut() = Perbill::one());
		assert_ok!(Jackpot::commit(RuntimeOrigin::signed(1), blake2_256(&[5; 32])));
		assert!(J::bind(&1, 7, SEED));
		// The rate drops to zero while the task's verdicts are open: they are still
		// judged at the rate the verifier was bound at (every segment forced).
		RATE.with(|r| *r.borrow_mut() = Perbill::zero());
		assert_ok!(Jackpot::reveal(RuntimeOrigin::signed(1), 7, [5; 32]));
		assert_eq!(Bindings::<Test>::get(1, 7).map(|b| b.rate), Some(Perbill::one()));
		assert!((0..32).all(|s| J::forced(&1, 7, s) == Some(true)));
		// A later binding takes the new rate.
		assert_ok!(Jackpot::commit(RuntimeOrigin::signed(1), blake2_256(&[6; 32])));
		assert!(J::bind(&1, 8, SEED));
		assert_ok!(Jackpot::reveal(RuntimeOrigin::signed(1), 8, [6; 32]));
		assert!((0..32).all(|s| J::forced(&1, 8, s) == Some(false)));
	});
}

#[test]
fn forced_rate_is_respected() {
	let secret = [9u8; 32];
	let count = |rate: Perbill| {
		(0..10_000u32).filter(|s| is_forced(&secret, Some(&SEED), 1, *s, rate)).count()
	};
	assert_eq!(count(Perbill::zero()), 0);
	assert_eq!(count(Perbill::one()), 10_000);
	let five = count(Perbill::from_percent(5));
	assert!((400..600).contains(&five), "about 5% forced, got {five}");
	// Different tasks give different patterns.
	let a: Vec<bool> =
		(0..64).map(|s| is_forced(&secret, Some(&SEED), 1, s, Perbill::from_percent(50))).collect();
	let b: Vec<bool> =
		(0..64).map(|s| is_forced(&secret, Some(&SEED), 2, s, Perbill::from_percent(50))).collect();
	assert_ne!(a, b);
}

#[test]
fn pay_catch_pays_a_share_capped_and_keeps_the_pot_alive() {
	new_test_ext().execute_with(|| {
		// 10% of the 10_000 spendable, capped at 500.
		assert_eq!(J::pay_catch(&2), 500);
		assert_eq!(Balances::free_balance(2), 1_500);
		assert_eq!(Balances::free_balance(POT), 9_501);
		// Drain the pot down to its existential deposit: nothing more is paid.
		assert_ok!(<Balances as frame_support::traits::fungible::Mutate<u64>>::transfer(
			&POT,
			&3,
			9_500,
			frame_support::traits::tokens::Preservation::Preserve
		));
		assert_eq!(J::pay_catch(&2), 0);
		assert_eq!(Balances::free_balance(POT), 1);
	});
}

#[test]
fn the_unit_implementation_forces_nothing() {
	assert!(<() as ForcedErrors<u64, u64>>::has_commitment(&1));
	assert!(<() as ForcedErrors<u64, u64>>::drawable(&1));
	assert!(<() as ForcedErrors<u64, u64>>::bind(&1, 1, SEED));
	assert_eq!(<() as ForcedErrors<u64, u64>>::forced(&1, 1, 1), Some(false));
	assert_eq!(<() as ForcedErrors<u64, u64>>::pay_catch(&1), 0);
}

/// A verifier that knows a task before it commits (its id and segments are public from
/// submission) searches for a secret that forces every segment it could audit, for a
/// partner whistleblower to catch each from the pot at no risk. The draw's randomness,
/// made after the commitment, decides the forced segments with the secret: a ground
/// secret forces no more than any other.
#[test]
fn a_secret_ground_for_a_known_task_forces_no_more_than_chance() {
	let rate = Perbill::from_percent(50);
	let segments = 0..8u32;
	// Without the seed: 8 of 8 forced, found in a few hundred tries.
	let ground = (0u32..)
		.map(|i| blake2_256(&i.encode()))
		.find(|s| segments.clone().all(|g| is_forced(s, None, 7, g, rate)))
		.expect("a ground secret");
	// With the seeds of 64 draws: as many forced as for a secret chosen at random.
	let forced = |secret: &Hash32| -> usize {
		(0..64u8)
			.map(|d| {
				segments.clone().filter(|g| is_forced(secret, Some(&[d; 32]), 7, *g, rate)).count()
			})
			.sum()
	};
	let fair = forced(&[9; 32]);
	assert!(forced(&ground) < 64 * 6, "ground: {} of {}", forced(&ground), 64 * 8);
	assert!(forced(&ground).abs_diff(fair) < 64, "ground {} against fair {fair}", forced(&ground));
}

/// A commitment is drawn for a round whose segments may be forced only once it has stood
/// `CommitmentAge` blocks, so that the draw's randomness comes from blocks made after
/// it; a replacement starts the count again.
#[test]
fn a_commitment_is_drawable_only_once_it_has_stood() {
	new_test_ext().execute_with(|| {
		verifier(1);
		assert!(!J::drawable(&1));
		assert_ok!(Jackpot::commit(RuntimeOrigin::signed(1), blake2_256(&[5; 32])));
		assert!(J::has_commitment(&1) && !J::drawable(&1));
		System::set_block_number(1 + AGE - 1);
		assert!(!J::drawable(&1));
		System::set_block_number(1 + AGE);
		assert!(J::drawable(&1));
		assert_ok!(Jackpot::commit(RuntimeOrigin::signed(1), blake2_256(&[6; 32])));
		assert!(!J::drawable(&1), "replaced: the count starts again");
		assert!(J::bind(&1, 7, SEED));
		assert_eq!(Bindings::<Test>::get(1, 7).and_then(|b| b.seed), Some(SEED));
		assert!(!J::drawable(&1), "bound: no commitment stands");
		assert_ok!(J::do_try_state());
	});
}

/// Version 0's bindings have no seed: the migration keeps each, judged as it was made;
/// a standing commitment reads as made in the upgrade's block.
#[test]
fn a_binding_of_version_0_keeps_its_judgement() {
	use frame_support::traits::{GetStorageVersion, OnRuntimeUpgrade, StorageVersion};
	new_test_ext().execute_with(|| {
		StorageVersion::new(0).put::<Pallet<Test>>();
		let old = migrations::v0::Binding {
			commitment: blake2_256(&[5; 32]),
			secret: Some([5; 32]),
			rate: Perbill::from_percent(50),
		};
		let key = Bindings::<Test>::hashed_key_for(1, 7);
		frame_support::storage::unhashed::put_raw(&key, &old.encode());
		let standing = Commitments::<Test>::hashed_key_for(2);
		frame_support::storage::unhashed::put_raw(&standing, &blake2_256(&[6; 32]).encode());
		migrations::V0ToV1::<Test>::on_runtime_upgrade();
		assert_eq!(Pallet::<Test>::on_chain_storage_version(), 1);
		let now = System::block_number();
		assert_eq!(Commitments::<Test>::get(2), Some((blake2_256(&[6; 32]), now)), "standing");
		assert!(!J::drawable(&2), "as young as a commitment made now");
		let b = Bindings::<Test>::get(1, 7).expect("kept");
		assert_eq!((b.seed, b.secret, b.rate), (None, Some([5; 32]), Perbill::from_percent(50)));
		for s in 0..16 {
			let then = is_forced(&[5; 32], None, 7, s, Perbill::from_percent(50));
			assert_eq!(J::forced(&1, 7, s), Some(then));
		}
		assert_ok!(J::do_try_state());
	});
}
