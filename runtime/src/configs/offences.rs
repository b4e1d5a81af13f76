//! pallet-offences: BABE and GRANDPA equivocation reports, handed to staking for slashing.

use crate::{Runtime, RuntimeEvent, Staking};

impl pallet_offences::Config for Runtime {
	type RuntimeEvent = RuntimeEvent;
	type IdentificationTuple = pallet_session::historical::IdentificationTuple<Self>;
	type OnOffenceHandler = Staking;
}
