//! Drives the native runtime block by block, as a node would, for the runtime's tests,
//! and the task helpers they share.
// Each test file uses a part of this module.
#![allow(dead_code)]

use codec::Encode;
use frame_support::traits::fungible::InspectHold;
use gensyn_primitives::{fixtures, Hash32, Shape3, TaskSpec};
use gensyn_runtime::{
	Balances, Executive, Header, Runtime, RuntimeHoldReason, RuntimeOrigin, Stake, SLOT_DURATION,
};
use pallet_gensyn_stake::{Capability, DeviceKind, Role};
use pallet_gensyn_tasks::Phase;
use sp_consensus_babe::digests::{PreDigest, SecondaryVRFPreDigest};
use sp_keyring::Sr25519Keyring;
use sp_runtime::AccountId32;
use sp_runtime::{traits::Header as _, BuildStorage, Digest, DigestItem};

/// Genesis storage of a named preset, built the way the node builds it.
pub fn preset_storage(name: &str) -> sp_runtime::Storage {
	let id = sp_genesis_builder::PresetId::from(name);
	let json = gensyn_runtime::genesis_config_presets::get_preset(&id)
		.unwrap_or_else(|| panic!("preset {name} missing"));
	let config: gensyn_runtime::RuntimeGenesisConfig =
		serde_json::from_slice(&json).expect("preset JSON is a full genesis config");
	config.build_storage().expect("genesis builds")
}

/// Sets the task periods (blocks) that governance may change, through the parameters
/// pallet as root would: shorter windows let a test run out in fewer blocks.
pub fn set_task_periods(challenge: u32, training: u32, randomness_delay: Option<u32>) {
	use gensyn_runtime::configs::{dynamic_params::tasks, RuntimeParameters};
	let set = |p: tasks::Parameters| {
		gensyn_runtime::Parameters::set_parameter(
			RuntimeOrigin::root(),
			RuntimeParameters::Tasks(p),
		)
		.expect("root sets a parameter");
	};
	set(tasks::Parameters::ChallengePeriod(tasks::ChallengePeriod, Some(challenge)));
	set(tasks::Parameters::MinTrainingPeriod(tasks::MinTrainingPeriod, Some(training)));
	if let Some(delay) = randomness_delay {
		set(tasks::Parameters::RandomnessDelay(tasks::RandomnessDelay, Some(delay)));
	}
}

/// Test externalities at genesis of a preset.
pub fn new_ext(preset: &str) -> sp_io::TestExternalities {
	sp_io::TestExternalities::new(preset_storage(preset))
}

/// Produces blocks until (and including) `target`, each with a BABE pre-digest for its
/// slot (a secondary VRF claim, signed with the slot's authority's development key, so
/// that every block carries randomness) and a timestamp inherent, through `Executive`
/// like a real import.
pub fn run_to_block(target: u32) {
	let mut parent = frame_system::Pallet::<Runtime>::parent_hash();
	let mut number = frame_system::Pallet::<Runtime>::block_number();
	if number > 0 {
		parent = frame_system::BlockHash::<Runtime>::get(number);
	}
	while number < target {
		number += 1;
		let slot = u64::from(number) + 1_000;
		let (authorities, randomness, epoch) = epoch_of(number, slot);
		let authority_index = (slot % authorities.len().max(1) as u64) as u32;
		let pre = PreDigest::SecondaryVRF(SecondaryVRFPreDigest {
			authority_index,
			slot: slot.into(),
			vrf_signature: vrf_claim(&authorities, authority_index, slot, &randomness, epoch),
		});
		let digest = Digest {
			logs: vec![DigestItem::PreRuntime(sp_consensus_babe::BABE_ENGINE_ID, pre.encode())],
		};
		let header = Header::new(number, Default::default(), Default::default(), parent, digest);
		Executive::initialize_block(&header);
		pallet_timestamp::Pallet::<Runtime>::set(RuntimeOrigin::none(), slot * SLOT_DURATION)
			.expect("timestamp inherent applies");
		let header = Executive::finalize_block();
		parent = header.hash();
	}
}

/// BABE's authorities, randomness and epoch index for block `number` at `slot`: the next
/// epoch's when the block starts one (as BABE enacts it while importing the block).
fn epoch_of(number: u32, slot: u64) -> (Vec<sp_consensus_babe::AuthorityId>, [u8; 32], u64) {
	let start = u64::from(pallet_babe::Pallet::<Runtime>::current_epoch_start());
	let duration = <Runtime as pallet_babe::Config>::EpochDuration::get();
	let keys = |list: Vec<(sp_consensus_babe::AuthorityId, u64)>| {
		list.into_iter().map(|(a, _)| a).collect::<Vec<_>>()
	};
	if number > 1 && slot >= start + duration {
		(
			keys(pallet_babe::NextAuthorities::<Runtime>::get().into_inner()),
			pallet_babe::NextRandomness::<Runtime>::get(),
			pallet_babe::EpochIndex::<Runtime>::get() + 1,
		)
	} else {
		(
			keys(pallet_babe::Authorities::<Runtime>::get().into_inner()),
			pallet_babe::Randomness::<Runtime>::get(),
			pallet_babe::EpochIndex::<Runtime>::get(),
		)
	}
}

/// The VRF signature the development key of authority `index` of `authorities` makes for
/// `slot` in epoch `epoch` of `randomness`, as its node would.
fn vrf_claim(
	authorities: &[sp_consensus_babe::AuthorityId],
	index: u32,
	slot: u64,
	randomness: &[u8; 32],
	epoch: u64,
) -> sp_core::sr25519::vrf::VrfSignature {
	use sp_core::crypto::{ByteArray, VrfSecret};
	let authority = authorities.get(index as usize).expect("an authority at the index");
	let key = Sr25519Keyring::iter()
		.find(|k| k.public().as_slice() == authority.as_slice())
		.expect("authorities are development keys");
	let data = sp_consensus_babe::make_vrf_sign_data(randomness, slot.into(), epoch);
	key.pair().vrf_sign(&data)
}

/// Blocks in one era.
pub fn blocks_per_era() -> u32 {
	let sessions: u32 = gensyn_runtime::configs::SessionsPerEra::get();
	sessions * gensyn_runtime::configs::EpochDuration::get() as u32
}

/// 40 steps of a small MLP (64-16-4), a checkpoint every 20 steps (two segments, both
/// audited), Exact mode.
pub fn spec() -> TaskSpec {
	let input = Shape3 { channels: 1, height: 8, width: 8 };
	fixtures::with(fixtures::mlp(input, 16, 4), |s| {
		s.data.file_hash = Hash32([1; 32]);
		s.data.chunk_root = Hash32([2; 32]);
		s.training.epochs = 8;
		s.training.seed = 3;
		s.training.checkpoint_interval = 20;
	})
}

/// The account of dev key `k`.
pub fn who(k: Sr25519Keyring) -> AccountId32 {
	k.to_account_id()
}

/// `k` as a signed origin.
pub fn signed(k: Sr25519Keyring) -> RuntimeOrigin {
	RuntimeOrigin::signed(who(k))
}

/// Registers `k` in `role` with `bond` and the capability every test worker claims.
pub fn register(k: Sr25519Keyring, role: Role, bond: u128) {
	let cap = Capability { device: DeviceKind::Cpu, memory_mib: 16_384, mgas_per_sec: 1_000 };
	let endpoint = b"http://127.0.0.1:8700".to_vec().try_into().expect("short endpoint");
	Stake::register(signed(k), role, bond, cap, endpoint).expect("registers");
}

/// The current block.
pub fn now() -> u32 {
	frame_system::Pallet::<Runtime>::block_number()
}

/// Runs blocks until `done` holds (at most `limit` blocks).
pub fn run_until(limit: u32, done: impl Fn() -> bool) {
	let end = now() + limit;
	while !done() {
		assert!(now() < end, "condition not reached by block {end}");
		run_to_block(now() + 1);
	}
}

/// Task `id`'s phase, while it lives.
pub fn phase(id: u64) -> Option<Phase> {
	pallet_gensyn_tasks::Tasks::<Runtime>::get(id).map(|t| t.phase)
}

/// Total issuance equals the sum of every account's balance (free + reserved/held).
pub fn check_conservation() {
	let sum: u128 =
		frame_system::Account::<Runtime>::iter().map(|(_, a)| a.data.free + a.data.reserved).sum();
	assert_eq!(Balances::total_issuance(), sum);
	for (_, g) in pallet_gensyn_arbitration::Disputes::<Runtime>::iter() {
		let reason =
			RuntimeHoldReason::Arbitration(pallet_gensyn_arbitration::HoldReason::GameBond);
		assert!(Balances::balance_on_hold(&reason, &g.challenger) >= g.bond);
	}
}

/// `k`'s bond in `role`.
pub fn bond_of(k: Sr25519Keyring, role: Role) -> u128 {
	pallet_gensyn_stake::Bonds::<Runtime>::get(who(k), role).map(|b| b.bond).unwrap_or_default()
}
