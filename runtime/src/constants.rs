//! Units, block times and the lengths of epochs and eras.
//!
//! These are the production values. They are compile-time constants because BABE's epoch
//! length can never change after genesis; tests that need many eras run blocks natively.

use crate::{Balance, BlockNumber};

/// The smallest unit of the native token is a planck; one token (`UNIT`) is 10^12 plancks.
pub const UNIT: Balance = 1_000_000_000_000;
/// One thousandth of a token.
pub const MILLI_UNIT: Balance = UNIT / 1_000;
/// One millionth of a token.
pub const MICRO_UNIT: Balance = UNIT / 1_000_000;
/// Accounts holding less than this are reaped.
pub const EXISTENTIAL_DEPOSIT: Balance = MILLI_UNIT;

/// Target block time. BABE slots have this length.
pub const MILLI_SECS_PER_BLOCK: u64 = 3_000;
/// BABE slot duration; equal to the block time.
pub const SLOT_DURATION: u64 = MILLI_SECS_PER_BLOCK;

/// Blocks in one minute.
pub const MINUTES: BlockNumber = 60_000 / (MILLI_SECS_PER_BLOCK as BlockNumber);
/// Blocks in one hour.
pub const HOURS: BlockNumber = MINUTES * 60;
/// Blocks in one day.
pub const DAYS: BlockNumber = HOURS * 24;

/// One BABE epoch (and one session) lasts an hour.
pub const EPOCH_DURATION_IN_SLOTS: u64 = HOURS as u64;
/// Six sessions make an era: validator elections and payouts happen every six hours.
pub const SESSIONS_PER_ERA: sp_staking::SessionIndex = 6;
/// Unbonded stake stays slashable for 28 eras (seven days).
pub const BONDING_DURATION: sp_staking::EraIndex = 28;
/// Slashes are applied one era before the bonding duration ends, so governance can cancel them.
pub const SLASH_DEFER_DURATION: sp_staking::EraIndex = 27;

/// Probability of a primary BABE slot: 1/4. Secondary VRF slots fill the rest, so every
/// block carries a VRF output and on-chain randomness is always available.
pub const PRIMARY_PROBABILITY: (u64, u64) = (1, 4);

/// The BABE epoch configuration written into genesis.
pub const BABE_GENESIS_EPOCH_CONFIG: sp_consensus_babe::BabeEpochConfiguration =
	sp_consensus_babe::BabeEpochConfiguration {
		c: PRIMARY_PROBABILITY,
		allowed_slots: sp_consensus_babe::AllowedSlots::PrimaryAndSecondaryVRFSlots,
	};
