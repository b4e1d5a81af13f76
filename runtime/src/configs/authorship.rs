//! pallet-authorship: finds each block's author so staking can award era points.

use crate::{Babe, Runtime, Staking};

impl pallet_authorship::Config for Runtime {
	type FindAuthor = pallet_session::FindAccountFromAuthorIndex<Self, Babe>;
	type EventHandler = (Staking,);
}
