//! Genesis presets: `development` (Alice alone) and `local_testnet` (Alice, Bob, Charlie).
//!
//! Both give sudo to Alice and fund the well-known dev accounts. A production chain spec
//! is written from scratch and carries no sudo key.

use crate::{
	AccountId, BabeConfig, Balance, BalancesConfig, RuntimeGenesisConfig, SessionConfig,
	SessionKeys, StakerStatus, StakingConfig, SudoConfig, BABE_GENESIS_EPOCH_CONFIG,
	EXISTENTIAL_DEPOSIT, UNIT,
};
use alloc::{vec, vec::Vec};
use sp_consensus_babe::AuthorityId as BabeId;
use sp_consensus_grandpa::AuthorityId as GrandpaId;
use sp_genesis_builder::{self, PresetId};
use sp_keyring::{Ed25519Keyring, Sr25519Keyring};

/// Free balance of every endowed dev account.
pub const ENDOWMENT: Balance = 1_000_000 * UNIT;
/// Stake each genesis validator bonds.
pub const VALIDATOR_STAKE: Balance = 100_000 * UNIT;
/// Seats the election fills on dev and local networks; more than the genesis
/// validators, so a newly bonded validator joins at the next era.
pub const DEV_VALIDATOR_COUNT: u32 = 10;
/// Least stake a validator must bond.
pub const MIN_VALIDATOR_BOND: Balance = 10 * UNIT;
/// Least stake a nominator must bond.
pub const MIN_NOMINATOR_BOND: Balance = UNIT;

/// A genesis validator: its stash account and its session keys.
pub struct GenesisValidator {
	/// Stash (and controller) account; also the validator id.
	pub stash: AccountId,
	/// BABE authoring key.
	pub babe: BabeId,
	/// GRANDPA voting key.
	pub grandpa: GrandpaId,
}

/// The dev validator derived from a keyring name (`//Alice` ...).
pub fn dev_validator(sr: Sr25519Keyring, ed: Ed25519Keyring) -> GenesisValidator {
	GenesisValidator {
		stash: sr.to_account_id(),
		babe: sr.public().into(),
		grandpa: ed.public().into(),
	}
}

/// Builds a genesis config: funded accounts, bonded validators, sudo.
pub fn genesis(
	validators: Vec<GenesisValidator>,
	endowed: Vec<AccountId>,
	root: AccountId,
) -> serde_json::Value {
	let config = RuntimeGenesisConfig {
		balances: BalancesConfig {
			// The protocol's pots start at the existential deposit so that small jackpot
			// and treasury shares are kept rather than burnt.
			balances: endowed
				.iter()
				.cloned()
				.map(|account| (account, ENDOWMENT))
				.chain([
					(crate::configs::JackpotAccount::get(), EXISTENTIAL_DEPOSIT),
					(crate::configs::TreasuryAccount::get(), EXISTENTIAL_DEPOSIT),
				])
				.collect(),
			..Default::default()
		},
		session: SessionConfig {
			keys: validators
				.iter()
				.map(|v| {
					let keys = SessionKeys { babe: v.babe.clone(), grandpa: v.grandpa.clone() };
					(v.stash.clone(), v.stash.clone(), keys)
				})
				.collect(),
			..Default::default()
		},
		staking: StakingConfig {
			validator_count: DEV_VALIDATOR_COUNT,
			minimum_validator_count: 1,
			min_validator_bond: MIN_VALIDATOR_BOND,
			min_nominator_bond: MIN_NOMINATOR_BOND,
			slash_reward_fraction: sp_runtime::Perbill::from_percent(10),
			stakers: validators
				.iter()
				.map(|v| {
					(v.stash.clone(), v.stash.clone(), VALIDATOR_STAKE, StakerStatus::Validator)
				})
				.collect(),
			..Default::default()
		},
		babe: BabeConfig { epoch_config: BABE_GENESIS_EPOCH_CONFIG, ..Default::default() },
		sudo: SudoConfig { key: Some(root) },
		..Default::default()
	};
	serde_json::to_value(config).unwrap_or_default()
}

fn dev_accounts() -> Vec<AccountId> {
	Sr25519Keyring::iter().map(|k| k.to_account_id()).collect()
}

fn development() -> serde_json::Value {
	genesis(
		vec![dev_validator(Sr25519Keyring::Alice, Ed25519Keyring::Alice)],
		dev_accounts(),
		Sr25519Keyring::Alice.to_account_id(),
	)
}

fn local_testnet() -> serde_json::Value {
	genesis(
		vec![
			dev_validator(Sr25519Keyring::Alice, Ed25519Keyring::Alice),
			dev_validator(Sr25519Keyring::Bob, Ed25519Keyring::Bob),
			dev_validator(Sr25519Keyring::Charlie, Ed25519Keyring::Charlie),
		],
		dev_accounts(),
		Sr25519Keyring::Alice.to_account_id(),
	)
}

/// The JSON of a named preset, or `None` for an unknown name.
pub fn get_preset(id: &PresetId) -> Option<Vec<u8>> {
	let patch = match id.as_ref() {
		sp_genesis_builder::DEV_RUNTIME_PRESET => development(),
		sp_genesis_builder::LOCAL_TESTNET_RUNTIME_PRESET => local_testnet(),
		_ => return None,
	};
	serde_json::to_string(&patch).ok().map(|s| s.into_bytes())
}

/// Names of the presets this runtime offers.
pub fn preset_names() -> Vec<PresetId> {
	vec![
		PresetId::from(sp_genesis_builder::DEV_RUNTIME_PRESET),
		PresetId::from(sp_genesis_builder::LOCAL_TESTNET_RUNTIME_PRESET),
	]
}
