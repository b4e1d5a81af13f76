//! Drives the native runtime block by block, as a node would, for the runtime's tests.

use codec::Encode;
use gensyn_runtime::{Executive, Header, Runtime, RuntimeOrigin, SLOT_DURATION};
use sp_consensus_babe::digests::{PreDigest, SecondaryPlainPreDigest};
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

/// Test externalities at genesis of a preset.
pub fn new_ext(preset: &str) -> sp_io::TestExternalities {
	sp_io::TestExternalities::new(preset_storage(preset))
}

/// Produces blocks until (and including) `target`, each with a BABE pre-digest for its
/// slot and a timestamp inherent, through `Executive` like a real import.
pub fn run_to_block(target: u32) {
	let authorities = pallet_babe::Authorities::<Runtime>::get().len().max(1) as u64;
	let mut parent = frame_system::Pallet::<Runtime>::parent_hash();
	let mut number = frame_system::Pallet::<Runtime>::block_number();
	if number > 0 {
		parent = frame_system::BlockHash::<Runtime>::get(number);
	}
	while number < target {
		number += 1;
		let slot = u64::from(number) + 1_000;
		let pre = PreDigest::SecondaryPlain(SecondaryPlainPreDigest {
			authority_index: (slot % authorities) as u32,
			slot: slot.into(),
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

/// Blocks in one era.
#[allow(dead_code)] // Not every test file that includes this module needs it.
pub fn blocks_per_era() -> u32 {
	let sessions: u32 = gensyn_runtime::configs::SessionsPerEra::get();
	sessions * gensyn_runtime::configs::EpochDuration::get() as u32
}
