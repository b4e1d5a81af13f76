//! Signs calls with a key from the node's keystore and submits them to the local
//! transaction pool: one submitter per account, which keeps its own next nonce so that
//! several extrinsics can be in flight in one block, and resyncs it from the chain when
//! the pool refuses one.

use std::sync::{Arc, Mutex};

use codec::Encode;
use frame_system_rpc_runtime_api::AccountNonceApi;
use gensyn_runtime::{
	AccountId, Nonce, RuntimeCall, SignedPayload, TxExtension, UncheckedExtrinsic,
};
use sc_client_api::HeaderBackend;
use sc_transaction_pool_api::{TransactionPool, TransactionSource};
use sp_api::{Core, ProvideRuntimeApi};
use sp_core::{sr25519, H256};
use sp_keystore::KeystorePtr;
use sp_runtime::{
	generic::Era, traits::IdentifyAccount, KeyTypeId, MultiAddress, MultiSignature, MultiSigner,
	OpaqueExtrinsic,
};

use crate::service::{FullClient, FullPool};

/// Mortality of worker transactions, in blocks: a refused or lost one stops being
/// valid after this long, so a re-submission can never double-apply.
const MORTALITY: u64 = 64;

/// How far behind the best block a transaction's era starts. The pool may check a new
/// transaction against a state a few blocks older than the best block the worker just
/// saw (its view of the new block is not made yet); an era born at the best block is
/// unknown there and refused (`AncientBirthBlock`). Seen in the end-to-end tests: a
/// verifier's reveal refused so, retried after the challenge window, and slashed.
const BIRTH_LAG: u32 = 4;

/// Why a call could not be submitted.
#[derive(Debug, thiserror::Error)]
pub enum SubmitError {
	/// The keystore lacks the key or refused to sign.
	#[error("the keystore cannot sign for {0}")]
	Keystore(String),
	/// The runtime could not be asked (nonce, version).
	#[error("runtime API: {0}")]
	Runtime(String),
	/// The pool refused the extrinsic twice (after a nonce resync).
	#[error("transaction pool refused it: {0}")]
	Pool(String),
}

/// The signer and nonce keeper of one worker account.
pub struct Submitter {
	client: Arc<FullClient>,
	pool: Arc<FullPool>,
	keystore: KeystorePtr,
	key_type: KeyTypeId,
	public: sr25519::Public,
	account: AccountId,
	next_nonce: Mutex<Option<Nonce>>,
}

impl Submitter {
	/// A submitter signing with `public` (of `key_type`, sr25519) from `keystore`.
	pub fn new(
		client: Arc<FullClient>,
		pool: Arc<FullPool>,
		keystore: KeystorePtr,
		key_type: KeyTypeId,
		public: sr25519::Public,
	) -> Self {
		let account = MultiSigner::from(public).into_account();
		Submitter {
			client,
			pool,
			keystore,
			key_type,
			public,
			account,
			next_nonce: Mutex::new(None),
		}
	}

	/// The account it signs for.
	pub fn account(&self) -> &AccountId {
		&self.account
	}

	/// Signs `call` and submits it at the best block; returns the transaction hash.
	/// A refusal resyncs the nonce from the chain and tries once more.
	pub async fn submit(&self, call: RuntimeCall) -> Result<H256, SubmitError> {
		match self.submit_once(&call).await {
			Ok(hash) => Ok(hash),
			Err(SubmitError::Pool(first)) => {
				log::debug!(target: "gensyn-worker", "pool refused ({first}); resyncing the nonce");
				*self.next_nonce.lock().unwrap_or_else(|e| e.into_inner()) = None;
				self.submit_once(&call).await
			}
			Err(e) => Err(e),
		}
	}

	async fn submit_once(&self, call: &RuntimeCall) -> Result<H256, SubmitError> {
		let info = self.client.info();
		let (best_hash, best_number) = (info.best_hash, info.best_number);
		// A call encoded for this node's runtime is never signed for another one (the
		// role loops stop at such a block, but a finished job may get here first);
		// checked before a nonce is taken, which a refusal would leave unused.
		if let Some(why) = super::chain::runtime_incompatibility(&self.client, best_hash)
			.map_err(SubmitError::Runtime)?
		{
			return Err(SubmitError::Runtime(why));
		}
		let chain_nonce = self
			.client
			.runtime_api()
			.account_nonce(best_hash, self.account.clone())
			.map_err(|e| SubmitError::Runtime(e.to_string()))?;
		let nonce = {
			let mut next = self.next_nonce.lock().unwrap_or_else(|e| e.into_inner());
			let nonce = next.map_or(chain_nonce, |n| n.max(chain_nonce));
			*next = Some(nonce.saturating_add(1));
			nonce
		};
		// The era's birth: a few blocks back on the best chain (the best block itself
		// when that block's hash is not at hand).
		let birth_number = best_number.saturating_sub(BIRTH_LAG);
		let birth = match self.client.hash(birth_number) {
			Ok(Some(hash)) => (hash, birth_number.into()),
			_ => (best_hash, best_number.into()),
		};
		let xt = self.sign(call.clone(), nonce, best_hash, birth, info.genesis_hash)?;
		let opaque = OpaqueExtrinsic::from(xt);
		match self.pool.submit_one(best_hash, TransactionSource::Local, opaque).await {
			Ok(hash) => Ok(hash),
			Err(e) => {
				// The nonce was not used: let the next call pick it again.
				*self.next_nonce.lock().unwrap_or_else(|e| e.into_inner()) = None;
				Err(SubmitError::Pool(format!("{e}")))
			}
		}
	}

	/// Builds the signed extrinsic the runtime expects (its `TxExtension`, mortal from
	/// the block `birth`: hash and number).
	fn sign(
		&self,
		call: RuntimeCall,
		nonce: Nonce,
		best_hash: H256,
		birth: (H256, u64),
		genesis_hash: H256,
	) -> Result<UncheckedExtrinsic, SubmitError> {
		let version = self
			.client
			.runtime_api()
			.version(best_hash)
			.map_err(|e| SubmitError::Runtime(e.to_string()))?;
		let extension: TxExtension = (
			frame_system::CheckNonZeroSender::new(),
			frame_system::CheckSpecVersion::new(),
			frame_system::CheckTxVersion::new(),
			frame_system::CheckGenesis::new(),
			frame_system::CheckEra::from(Era::mortal(MORTALITY, birth.1)),
			frame_system::CheckNonce::from(nonce),
			frame_system::CheckWeight::new(),
			pallet_transaction_payment::ChargeTransactionPayment::from(0),
		);
		// With a power-of-two period the era's birth block is exactly `birth`.
		let implicit = (
			(),
			version.spec_version,
			version.transaction_version,
			genesis_hash,
			birth.0,
			(),
			(),
			(),
		);
		let payload = SignedPayload::from_raw(call.clone(), extension.clone(), implicit);
		let signature = payload
			.using_encoded(|bytes| self.keystore.sr25519_sign(self.key_type, &self.public, bytes))
			.ok()
			.flatten()
			.ok_or_else(|| SubmitError::Keystore(format!("{}", self.account)))?;
		Ok(UncheckedExtrinsic::new_signed(
			call,
			MultiAddress::Id(self.account.clone()),
			MultiSignature::Sr25519(signature),
			extension,
		))
	}
}
