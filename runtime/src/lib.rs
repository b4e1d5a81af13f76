//! The gensyn runtime: BABE block production, GRANDPA finality and NPoS validator
//! election (pallet-staking), with balances, fees and sudo for dev and test networks.
//!
//! Pallet configuration lives in [`configs`], one file per pallet; the runtime APIs in
//! [`apis`]; the genesis presets in [`genesis_config_presets`].

#![cfg_attr(not(feature = "std"), no_std)]
#![recursion_limit = "256"]

#[cfg(feature = "std")]
include!(concat!(env!("OUT_DIR"), "/wasm_binary.rs"));

extern crate alloc;

use alloc::vec::Vec;

#[cfg(feature = "runtime-benchmarks")]
#[macro_use]
mod benchmarks;

pub mod apis;
pub mod configs;
pub mod constants;
pub mod genesis_config_presets;
pub mod migrations;
pub mod watch;

use sp_runtime::{
	generic, impl_opaque_keys,
	traits::{BlakeTwo256, IdentifyAccount, Verify},
	MultiAddress, MultiSignature,
};
use sp_version::{runtime_version, RuntimeVersion};

pub use constants::*;
pub use frame_system::Call as SystemCall;
pub use pallet_balances::Call as BalancesCall;
pub use pallet_staking::StakerStatus;

/// Block number.
pub type BlockNumber = u32;
/// Transaction signature: sr25519, ed25519 or ecdsa.
pub type Signature = MultiSignature;
/// An account is identified by the public key that signs for it.
pub type AccountId = <<Signature as Verify>::Signer as IdentifyAccount>::AccountId;
/// Token amounts, in plancks.
pub type Balance = u128;
/// Transaction count of an account.
pub type Nonce = u32;
/// Block and state hash.
pub type Hash = sp_core::H256;
/// The address format of extrinsics.
pub type Address = MultiAddress<AccountId, ()>;
/// Block header.
pub type Header = generic::Header<BlockNumber, BlakeTwo256>;
/// Block.
pub type Block = generic::Block<Header, UncheckedExtrinsic>;

/// The transaction extensions every signed extrinsic carries (the checks polkadot.js signs).
pub type TxExtension = (
	frame_system::CheckNonZeroSender<Runtime>,
	frame_system::CheckSpecVersion<Runtime>,
	frame_system::CheckTxVersion<Runtime>,
	frame_system::CheckGenesis<Runtime>,
	frame_system::CheckEra<Runtime>,
	frame_system::CheckNonce<Runtime>,
	frame_system::CheckWeight<Runtime>,
	pallet_transaction_payment::ChargeTransactionPayment<Runtime>,
);

/// Extrinsic as it travels over the wire and lands in blocks.
pub type UncheckedExtrinsic =
	generic::UncheckedExtrinsic<Address, RuntimeCall, Signature, TxExtension>;
/// The payload a signer signs.
pub type SignedPayload = generic::SignedPayload<RuntimeCall, TxExtension>;

/// Storage migrations run on the next runtime upgrade (each runs once: it checks the
/// pallet's storage version).
type Migrations = (
	// First: the tasks migrations below read the parameters (a window's reveal point).
	migrations::WellKnownKeysToParameters,
	migrations::RetiredThresholdBounds,
	// Before the tasks pallet's steps: from version 3 on they read audits as version 23
	// writes them.
	pallet_gensyn_tasks::migrations::DropRechecks<Runtime>,
	pallet_gensyn_tasks::migrations::V0ToV1<Runtime>,
	pallet_gensyn_tasks::migrations::V1ToV2<Runtime>,
	pallet_gensyn_tasks::migrations::V2ToV3<Runtime>,
	pallet_gensyn_tasks::migrations::V3ToV4<Runtime>,
	pallet_gensyn_tasks::migrations::V4ToV5<Runtime>,
	pallet_gensyn_tasks::migrations::V5ToV6<Runtime>,
	pallet_gensyn_tasks::migrations::V6ToV7<Runtime>,
	pallet_gensyn_tasks::migrations::V7ToV8<Runtime>,
	pallet_gensyn_tasks::migrations::V8ToV9<Runtime>,
	pallet_gensyn_tasks::migrations::V9ToV10<Runtime>,
	pallet_gensyn_tasks::migrations::V10ToV11<Runtime>,
	pallet_gensyn_tasks::migrations::V11ToV12<Runtime>,
	pallet_gensyn_tasks::migrations::V12ToV13<Runtime>,
	pallet_gensyn_tasks::migrations::V13ToV14<Runtime>,
	pallet_gensyn_tasks::migrations::V14ToV15<Runtime>,
	pallet_gensyn_tasks::migrations::V15ToV16<Runtime>,
	pallet_gensyn_tasks::migrations::V16ToV17<Runtime>,
	pallet_gensyn_tasks::migrations::V17ToV18<Runtime>,
	pallet_gensyn_tasks::migrations::V18ToV19<Runtime>,
	pallet_gensyn_tasks::migrations::V19ToV20<Runtime>,
	pallet_gensyn_tasks::migrations::V20ToV21<Runtime>,
	pallet_gensyn_arbitration::migrations::V0ToV1<Runtime>,
	pallet_gensyn_stake::migrations::V0ToV1<Runtime>,
	pallet_gensyn_stake::migrations::V1ToV2<Runtime>,
	// Before the tasks pallet's version 22, which counts audits in its entries.
	pallet_gensyn_stake::migrations::V2ToV3<Runtime>,
	pallet_gensyn_tasks::migrations::V21ToV22<Runtime>,
	pallet_gensyn_tasks::migrations::V22ToV23<Runtime>,
	pallet_gensyn_tasks::migrations::V23ToV24<Runtime>,
	pallet_gensyn_jackpot::migrations::V0ToV1<Runtime>,
);

/// Dispatches blocks and extrinsics to the pallets.
pub type Executive = frame_executive::Executive<
	Runtime,
	Block,
	frame_system::ChainContext<Runtime>,
	Runtime,
	AllPalletsWithSystem,
	Migrations,
>;

/// Types the node needs without knowing the runtime's extrinsic format.
pub mod opaque {
	use super::*;

	/// Opaque extrinsic.
	pub use sp_runtime::OpaqueExtrinsic as UncheckedExtrinsic;
	/// Opaque block header.
	pub type Header = generic::Header<BlockNumber, BlakeTwo256>;
	/// Opaque block.
	pub type Block = generic::Block<Header, UncheckedExtrinsic>;
}

impl_opaque_keys! {
	/// The keys a validator registers with `session.set_keys`.
	pub struct SessionKeys {
		/// Signs BABE blocks (sr25519, key type `babe`).
		pub babe: Babe,
		/// Votes in GRANDPA (ed25519, key type `gran`).
		pub grandpa: Grandpa,
	}
}

/// The runtime version. Bump `spec_version` on every change of runtime logic, and
/// `transaction_version` on every change of a call's index or arguments.
#[runtime_version]
pub const VERSION: RuntimeVersion = RuntimeVersion {
	spec_name: alloc::borrow::Cow::Borrowed("gensyn"),
	impl_name: alloc::borrow::Cow::Borrowed("gensyn-node"),
	authoring_version: 1,
	spec_version: 165,
	impl_version: 1,
	apis: apis::RUNTIME_API_VERSIONS,
	transaction_version: 3,
	system_version: 1,
};

#[frame_support::runtime]
mod runtime {
	/// The runtime: every pallet of the chain.
	#[runtime::runtime]
	#[runtime::derive(
		RuntimeCall,
		RuntimeEvent,
		RuntimeError,
		RuntimeOrigin,
		RuntimeFreezeReason,
		RuntimeHoldReason,
		RuntimeSlashReason,
		RuntimeLockId,
		RuntimeTask,
		RuntimeViewFunction
	)]
	pub struct Runtime;

	/// Accounts, blocks, events.
	#[runtime::pallet_index(0)]
	pub type System = frame_system;

	/// BABE block production and its randomness.
	#[runtime::pallet_index(1)]
	pub type Babe = pallet_babe;

	/// Block timestamps.
	#[runtime::pallet_index(2)]
	pub type Timestamp = pallet_timestamp;

	/// Who authored each block (for staking points and fees).
	#[runtime::pallet_index(3)]
	pub type Authorship = pallet_authorship;

	/// The native token.
	#[runtime::pallet_index(4)]
	pub type Balances = pallet_balances;

	/// Transaction fees.
	#[runtime::pallet_index(5)]
	pub type TransactionPayment = pallet_transaction_payment;

	/// NPoS: bonding, nominating, validator election, era rewards, slashing.
	#[runtime::pallet_index(6)]
	pub type Staking = pallet_staking;

	/// Misbehaviour reports (equivocations) that staking slashes.
	#[runtime::pallet_index(7)]
	pub type Offences = pallet_offences;

	/// Validator sets of past sessions, to prove key ownership in equivocation reports.
	#[runtime::pallet_index(8)]
	pub type Historical = pallet_session::historical;

	/// Sessions: rotation of validator keys every BABE epoch.
	#[runtime::pallet_index(9)]
	pub type Session = pallet_session;

	/// GRANDPA finality.
	#[runtime::pallet_index(10)]
	pub type Grandpa = pallet_grandpa;

	/// Superuser key; set only in dev and local genesis.
	#[runtime::pallet_index(11)]
	pub type Sudo = pallet_sudo;

	/// Worker bonds: solvers, verifiers, whistleblowers.
	#[runtime::pallet_index(12)]
	pub type Stake = pallet_gensyn_stake;

	/// Training tasks: escrow, draws, results, verdicts, settlement.
	#[runtime::pallet_index(13)]
	pub type Tasks = pallet_gensyn_tasks;

	/// The jackpot and forced errors.
	#[runtime::pallet_index(14)]
	pub type Jackpot = pallet_gensyn_jackpot;

	/// The pinpoint game over challenged verdicts.
	#[runtime::pallet_index(15)]
	pub type Arbitration = pallet_gensyn_arbitration;

	/// Protocol parameters that governance sets without a runtime upgrade.
	#[runtime::pallet_index(16)]
	pub type Parameters = pallet_parameters;
}
