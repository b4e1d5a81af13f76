//! Configuration of every pallet, one file per pallet.

mod arbitration;
mod authorship;
mod babe;
mod balances;
mod grandpa;
mod jackpot;
mod offences;
mod parameters;
mod session;
mod stake;
mod staking;
mod sudo;
mod system;
mod tasks;
mod timestamp;
mod transaction_payment;

pub use arbitration::MOVE_TIMEOUT;
pub use babe::EpochDuration;
pub use parameters::{
	dynamic_params, Clamped, RuntimeParameters, RuntimeParametersKey, RuntimeParametersValue,
};
pub use stake::JackpotAccount;
pub use staking::{BondingDuration, SessionsPerEra};
pub use system::{BlockLength, BlockWeights};
pub use tasks::TreasuryAccount;
