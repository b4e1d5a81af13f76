//! The node's JSON-RPC methods beyond Substrate's defaults: account nonces, fee queries,
//! BABE epoch authorship and GRANDPA finality proofs.

use std::sync::Arc;

use gensyn_runtime::{opaque::Block, AccountId, Balance, Nonce};
use jsonrpsee::RpcModule;
use sc_consensus_babe::BabeWorkerHandle;
use sc_consensus_grandpa::{
	FinalityProofProvider, GrandpaJustificationStream, SharedAuthoritySet, SharedVoterState,
};
use sc_rpc::SubscriptionTaskExecutor;
use sc_transaction_pool_api::TransactionPool;
use sp_api::ProvideRuntimeApi;
use sp_block_builder::BlockBuilder;
use sp_blockchain::{Error as BlockChainError, HeaderBackend, HeaderMetadata};
use sp_consensus::SelectChain;
use sp_keystore::KeystorePtr;

/// What the BABE RPC needs.
pub struct BabeDeps {
	/// Handle to the BABE worker, for epoch data.
	pub babe_worker_handle: BabeWorkerHandle<Block>,
	/// The node's keystore, to tell which slots our keys may author.
	pub keystore: KeystorePtr,
}

/// What the GRANDPA RPC needs.
pub struct GrandpaDeps<B> {
	/// The voter's round state.
	pub shared_voter_state: SharedVoterState,
	/// The current authority set.
	pub shared_authority_set: SharedAuthoritySet<gensyn_runtime::Hash, gensyn_runtime::BlockNumber>,
	/// Stream of new justifications.
	pub justification_stream: GrandpaJustificationStream<Block>,
	/// Executor for subscriptions.
	pub subscription_executor: SubscriptionTaskExecutor,
	/// Finality proofs for light clients.
	pub finality_provider: Arc<FinalityProofProvider<B, Block>>,
}

/// Everything the RPC extensions need.
pub struct FullDeps<C, P, SC, B> {
	/// The client.
	pub client: Arc<C>,
	/// The transaction pool.
	pub pool: Arc<P>,
	/// Chain selection (longest chain).
	pub select_chain: SC,
	/// BABE dependencies.
	pub babe: BabeDeps,
	/// GRANDPA dependencies.
	pub grandpa: GrandpaDeps<B>,
}

/// Builds the RPC extensions of a full node.
pub fn create_full<C, P, SC, B>(
	deps: FullDeps<C, P, SC, B>,
) -> Result<RpcModule<()>, Box<dyn std::error::Error + Send + Sync>>
where
	C: ProvideRuntimeApi<Block>
		+ HeaderBackend<Block>
		+ HeaderMetadata<Block, Error = BlockChainError>
		+ sc_client_api::AuxStore
		+ Send
		+ Sync
		+ 'static,
	C::Api: substrate_frame_rpc_system::AccountNonceApi<Block, AccountId, Nonce>,
	C::Api: pallet_transaction_payment_rpc::TransactionPaymentRuntimeApi<Block, Balance>,
	C::Api: sp_consensus_babe::BabeApi<Block>,
	C::Api: BlockBuilder<Block>,
	P: TransactionPool + 'static,
	SC: SelectChain<Block> + 'static,
	B: sc_client_api::Backend<Block> + Send + Sync + 'static,
	B::State: sc_client_api::StateBackend<sp_runtime::traits::HashingFor<Block>>,
{
	use pallet_transaction_payment_rpc::{TransactionPayment, TransactionPaymentApiServer};
	use sc_consensus_babe_rpc::{Babe, BabeApiServer};
	use sc_consensus_grandpa_rpc::{Grandpa, GrandpaApiServer};
	use substrate_frame_rpc_system::{System, SystemApiServer};

	let FullDeps { client, pool, select_chain, babe, grandpa } = deps;
	let mut module = RpcModule::new(());

	module.merge(System::new(client.clone(), pool).into_rpc())?;
	module.merge(TransactionPayment::new(client.clone()).into_rpc())?;
	module.merge(
		Babe::new(client, babe.babe_worker_handle, babe.keystore, select_chain).into_rpc(),
	)?;
	module.merge(
		Grandpa::new(
			grandpa.subscription_executor,
			grandpa.shared_authority_set,
			grandpa.shared_voter_state,
			grandpa.justification_stream,
			grandpa.finality_provider,
		)
		.into_rpc(),
	)?;

	Ok(module)
}
