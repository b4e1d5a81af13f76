//! Runtime tests: both genesis presets build, and NPoS rotates a newly bonded validator
//! into the session (BABE and GRANDPA) authority sets at an era change.

mod common;

use gensyn_runtime::{
	genesis_config_presets::{ENDOWMENT, VALIDATOR_STAKE},
	Balances, Runtime, RuntimeOrigin, SessionKeys, UNIT,
};
use sp_core::proof_of_possession::ProofOfPossessionGenerator;
use sp_keyring::{Ed25519Keyring, Sr25519Keyring};

#[test]
fn development_preset_has_alice_as_sole_validator() {
	common::new_ext("development").execute_with(|| {
		let validators = pallet_session::Validators::<Runtime>::get();
		assert_eq!(validators, vec![Sr25519Keyring::Alice.to_account_id()]);
		assert_eq!(pallet_babe::Authorities::<Runtime>::get().len(), 1);
		assert_eq!(pallet_grandpa::Authorities::<Runtime>::get().len(), 1);
		assert_eq!(pallet_sudo::Key::<Runtime>::get(), Some(Sr25519Keyring::Alice.to_account_id()));
		let endowed = Sr25519Keyring::iter().count() as u128;
		let pots = 2 * gensyn_runtime::EXISTENTIAL_DEPOSIT;
		assert_eq!(Balances::total_issuance(), endowed * ENDOWMENT + pots);
		let alice = Sr25519Keyring::Alice.to_account_id();
		assert_eq!(
			pallet_staking::Pallet::<Runtime>::ledger(alice.into()).map(|l| l.active).ok(),
			Some(VALIDATOR_STAKE)
		);
	});
}

#[test]
fn local_testnet_preset_has_three_bonded_validators() {
	common::new_ext("local_testnet").execute_with(|| {
		let mut validators = pallet_session::Validators::<Runtime>::get();
		validators.sort();
		let mut expected: Vec<_> =
			[Sr25519Keyring::Alice, Sr25519Keyring::Bob, Sr25519Keyring::Charlie]
				.iter()
				.map(|k| k.to_account_id())
				.collect();
		expected.sort();
		assert_eq!(validators, expected);
		assert_eq!(pallet_babe::Authorities::<Runtime>::get().len(), 3);
		assert_eq!(pallet_grandpa::Authorities::<Runtime>::get().len(), 3);
		assert_eq!(pallet_staking::Validators::<Runtime>::count(), 3);
	});
}

#[test]
fn unknown_preset_is_refused() {
	let id = sp_genesis_builder::PresetId::from("no_such_preset");
	assert!(gensyn_runtime::genesis_config_presets::get_preset(&id).is_none());
}

#[test]
fn newly_bonded_validator_joins_the_set_after_an_era() {
	common::new_ext("development").execute_with(|| {
		let dave = Sr25519Keyring::Dave.to_account_id();
		let dave_keys = SessionKeys {
			babe: Sr25519Keyring::Dave.public().into(),
			grandpa: Ed25519Keyring::Dave.public().into(),
		};
		common::run_to_block(1);
		assert!(!pallet_session::Validators::<Runtime>::get().contains(&dave));

		pallet_staking::Pallet::<Runtime>::bond(
			RuntimeOrigin::signed(dave.clone()),
			50_000 * UNIT,
			pallet_staking::RewardDestination::Staked,
		)
		.expect("dave bonds");
		pallet_staking::Pallet::<Runtime>::validate(
			RuntimeOrigin::signed(dave.clone()),
			pallet_staking::ValidatorPrefs::default(),
		)
		.expect("dave validates");
		// Proof of possession: each session key signs the owner's encoded account id.
		let owner = codec::Encode::encode(&dave);
		let proof = codec::Encode::encode(&(
			Sr25519Keyring::Dave.pair().generate_proof_of_possession(&owner),
			Ed25519Keyring::Dave.pair().generate_proof_of_possession(&owner),
		));
		assert!(sp_runtime::traits::OpaqueKeys::ownership_proof_is_valid(
			&dave_keys, &owner, &proof
		));
		pallet_session::Pallet::<Runtime>::set_keys(
			RuntimeOrigin::signed(dave.clone()),
			dave_keys.clone(),
			proof,
		)
		.expect("dave sets session keys");

		// Still outside the set one session later: elections happen once per era.
		common::run_to_block(gensyn_runtime::configs::EpochDuration::get() as u32 + 2);
		assert!(!pallet_session::Validators::<Runtime>::get().contains(&dave));

		// After the era boundary (and the one-session queue), Dave authors and votes.
		let era = common::blocks_per_era();
		common::run_to_block(era + gensyn_runtime::configs::EpochDuration::get() as u32 + 2);
		assert!(pallet_staking::CurrentEra::<Runtime>::get().unwrap_or(0) >= 1);
		assert!(pallet_session::Validators::<Runtime>::get().contains(&dave));
		assert!(pallet_babe::Authorities::<Runtime>::get()
			.iter()
			.any(|(id, _)| *id == dave_keys.babe));
		assert!(pallet_grandpa::Authorities::<Runtime>::get()
			.iter()
			.any(|(id, _)| *id == dave_keys.grandpa));
	});
}
