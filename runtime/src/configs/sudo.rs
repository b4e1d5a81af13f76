//! pallet-sudo: a superuser key, present only in dev and local genesis presets.

use crate::{Runtime, RuntimeCall, RuntimeEvent};

impl pallet_sudo::Config for Runtime {
	type RuntimeEvent = RuntimeEvent;
	type RuntimeCall = RuntimeCall;
	type WeightInfo = pallet_sudo::weights::SubstrateWeight<Runtime>;
}
