//! Configuration of every pallet, one file per pallet.

mod authorship;
mod babe;
mod balances;
mod grandpa;
mod offences;
mod session;
mod staking;
mod sudo;
mod system;
mod timestamp;
mod transaction_payment;

pub use babe::EpochDuration;
pub use staking::{BondingDuration, SessionsPerEra};
pub use system::{BlockLength, BlockWeights};
