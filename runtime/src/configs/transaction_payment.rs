//! pallet-transaction-payment: fees by weight and length, paid to the block author.

use crate::{Authorship, Balance, Balances, Runtime, RuntimeEvent, MICRO_UNIT};
use frame_support::{
	parameter_types,
	traits::{
		fungible::{Balanced, Credit},
		ConstU8, Imbalance, OnUnbalanced,
	},
	weights::{ConstantMultiplier, IdentityFee},
};
use pallet_transaction_payment::{FungibleAdapter, Multiplier, TargetedFeeAdjustment};
use sp_runtime::{traits::Bounded, FixedPointNumber, Perquintill};

parameter_types! {
	/// Fee per byte of an extrinsic.
	pub const TransactionByteFee: Balance = 10 * MICRO_UNIT;
	/// Fees rise when blocks are fuller than a quarter.
	pub const TargetBlockFullness: Perquintill = Perquintill::from_percent(25);
	/// How fast the fee multiplier follows congestion.
	pub AdjustmentVariable: Multiplier = Multiplier::saturating_from_rational(75, 1_000_000);
	/// The fee multiplier never falls below this.
	pub MinimumMultiplier: Multiplier = Multiplier::saturating_from_rational(1, 10u128);
	/// The fee multiplier has no upper bound but the type's.
	pub MaximumMultiplier: Multiplier = Bounded::max_value();
}

/// Sends transaction fees (and tips) to the author of the block; burns them when the
/// author is unknown.
pub struct FeesToAuthor;

impl OnUnbalanced<Credit<crate::AccountId, Balances>> for FeesToAuthor {
	fn on_unbalanceds(
		mut fees_then_tips: impl Iterator<Item = Credit<crate::AccountId, Balances>>,
	) {
		if let Some(mut fees) = fees_then_tips.next() {
			for tip in fees_then_tips {
				fees = fees.merge(tip);
			}
			if let Some(author) = Authorship::author() {
				// Resolving fails only when the author's account cannot exist with this
				// amount; the dropped credit is then burnt.
				let _ = <Balances as Balanced<crate::AccountId>>::resolve(&author, fees);
			}
		}
	}
}

impl pallet_transaction_payment::Config for Runtime {
	type RuntimeEvent = RuntimeEvent;
	type OnChargeTransaction = FungibleAdapter<Balances, FeesToAuthor>;
	type OperationalFeeMultiplier = ConstU8<5>;
	type WeightToFee = IdentityFee<Balance>;
	type LengthToFee = ConstantMultiplier<Balance, TransactionByteFee>;
	type FeeMultiplierUpdate = TargetedFeeAdjustment<
		Self,
		TargetBlockFullness,
		AdjustmentVariable,
		MinimumMultiplier,
		MaximumMultiplier,
	>;
	type WeightInfo = pallet_transaction_payment::weights::SubstrateWeight<Runtime>;
}
