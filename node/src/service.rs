//! The full node: database, BABE block import and authoring, GRANDPA finality, networking,
//! transaction pool, offchain workers and RPC.

use std::{sync::Arc, time::Duration};

use futures::FutureExt;
use gensyn_runtime::{apis::RuntimeApi, opaque::Block};
use sc_client_api::{Backend, BlockBackend};
use sc_consensus_babe::SlotProportion;
use sc_consensus_grandpa::SharedVoterState;
use sc_service::{error::Error as ServiceError, Configuration, TaskManager, WarpSyncConfig};
use sc_telemetry::{Telemetry, TelemetryWorker};
use sc_transaction_pool_api::OffchainTransactionPoolFactory;
use sp_consensus_babe::inherents::BabeCreateInherentDataProviders;
use sp_keystore::Keystore;

/// Host functions the wasm runtime may call.
type HostFunctions = sp_io::SubstrateHostFunctions;
/// The client, executing the on-chain wasm runtime.
pub type FullClient =
	sc_service::TFullClient<Block, RuntimeApi, sc_executor::WasmExecutor<HostFunctions>>;
type FullBackend = sc_service::TFullBackend<Block>;
type FullSelectChain = sc_consensus::LongestChain<FullBackend, Block>;
type FullGrandpaBlockImport =
	sc_consensus_grandpa::GrandpaBlockImport<FullBackend, Block, FullClient, FullSelectChain>;
type FullBabeBlockImport = sc_consensus_babe::BabeBlockImport<
	Block,
	FullClient,
	FullGrandpaBlockImport,
	BabeCreateInherentDataProviders<Block>,
	FullSelectChain,
>;
pub type FullPool = sc_transaction_pool::TransactionPoolHandle<Block, FullClient>;

/// A GRANDPA justification is stored at least every this many blocks, for warp sync.
const GRANDPA_JUSTIFICATION_PERIOD: u32 = 512;

/// What `new_partial` hands to `new_full` beyond the standard components.
pub struct Extras {
	block_import: FullBabeBlockImport,
	grandpa_link: sc_consensus_grandpa::LinkHalf<Block, FullClient, FullSelectChain>,
	babe_link: sc_consensus_babe::BabeLink<Block>,
	babe_worker_handle: sc_consensus_babe::BabeWorkerHandle<Block>,
	telemetry: Option<Telemetry>,
}

/// The parts of a node that subcommands (import, export, revert) need too.
pub type Partial = sc_service::PartialComponents<
	FullClient,
	FullBackend,
	FullSelectChain,
	sc_consensus::DefaultImportQueue<Block>,
	FullPool,
	Extras,
>;

/// Builds the client, database, transaction pool and BABE/GRANDPA import queue.
pub fn new_partial(config: &mut Configuration) -> Result<Partial, ServiceError> {
	let telemetry = config
		.telemetry_endpoints
		.clone()
		.filter(|endpoints| !endpoints.is_empty())
		.map(|endpoints| -> Result<_, sc_telemetry::Error> {
			let worker = TelemetryWorker::new(16)?;
			let telemetry = worker.handle().new_telemetry(endpoints);
			Ok((worker, telemetry))
		})
		.transpose()?;

	let executor = sc_service::new_wasm_executor::<HostFunctions>(&config.executor);
	let (client, backend, keystore_container, task_manager) =
		sc_service::new_full_parts::<Block, RuntimeApi, _>(
			config,
			telemetry.as_ref().map(|(_, telemetry)| telemetry.handle()),
			executor,
			vec![Arc::new(sc_consensus_grandpa::GrandpaPruningFilter)],
		)?;
	let client = Arc::new(client);

	let telemetry = telemetry.map(|(worker, telemetry)| {
		task_manager.spawn_handle().spawn("telemetry", None, worker.run());
		telemetry
	});

	let select_chain = sc_consensus::LongestChain::new(backend.clone());

	let transaction_pool = Arc::from(
		sc_transaction_pool::Builder::new(
			task_manager.spawn_essential_handle(),
			client.clone(),
			config.role.is_authority().into(),
		)
		.with_options(config.transaction_pool.clone())
		.with_prometheus(config.prometheus_registry())
		.build(),
	);

	let (grandpa_block_import, grandpa_link) = sc_consensus_grandpa::block_import(
		client.clone(),
		GRANDPA_JUSTIFICATION_PERIOD,
		&client,
		select_chain.clone(),
		telemetry.as_ref().map(|x| x.handle()),
	)?;
	let justification_import = grandpa_block_import.clone();

	let babe_config = sc_consensus_babe::configuration(&*client)?;
	let slot_duration = babe_config.slot_duration();
	let (block_import, babe_link) = sc_consensus_babe::block_import(
		babe_config,
		grandpa_block_import,
		client.clone(),
		Arc::new(move |_, _| async move {
			let timestamp = sp_timestamp::InherentDataProvider::from_system_time();
			let slot =
				sp_consensus_babe::inherents::InherentDataProvider::from_timestamp_and_slot_duration(
					*timestamp,
					slot_duration,
				);
			Ok((slot, timestamp))
		}) as BabeCreateInherentDataProviders<Block>,
		select_chain.clone(),
		OffchainTransactionPoolFactory::new(transaction_pool.clone()),
	)?;

	let (import_queue, babe_worker_handle) =
		sc_consensus_babe::import_queue(sc_consensus_babe::ImportQueueParams {
			link: babe_link.clone(),
			block_import: block_import.clone(),
			justification_import: Some(Box::new(justification_import)),
			client: client.clone(),
			slot_duration,
			spawner: &task_manager.spawn_essential_handle(),
			registry: config.prometheus_registry(),
			telemetry: telemetry.as_ref().map(|x| x.handle()),
		})?;

	Ok(sc_service::PartialComponents {
		client,
		backend,
		task_manager,
		import_queue,
		keystore_container,
		select_chain,
		transaction_pool,
		other: Extras { block_import, grandpa_link, babe_link, babe_worker_handle, telemetry },
	})
}

/// Starts a full node with the network backend the command line chose.
pub fn new_full(
	config: Configuration,
	workers: &crate::cli::WorkerArgs,
) -> Result<TaskManager, ServiceError> {
	match config.network.network_backend {
		sc_network::config::NetworkBackendType::Libp2p => new_full_with::<
			sc_network::NetworkWorker<Block, <Block as sp_runtime::traits::Block>::Hash>,
		>(config, workers),
		sc_network::config::NetworkBackendType::Litep2p => {
			new_full_with::<sc_network::Litep2pNetworkBackend>(config, workers)
		}
	}
}

/// Warns a validator operator whose keystore lacks a session key: the node keeps syncing,
/// and starts authoring or voting as soon as the key is inserted.
fn warn_missing_session_keys(keystore: &dyn Keystore) {
	if keystore.sr25519_public_keys(sp_consensus_babe::KEY_TYPE).is_empty() {
		log::warn!(
			"⚠️  Running as a validator, but the keystore holds no BABE key (type 'babe'): \
			 this node will not author blocks. Insert one with `gensyn-node key insert \
			 --key-type babe --scheme sr25519` or the author_insertKey RPC."
		);
	}
	if keystore.ed25519_public_keys(sp_consensus_grandpa::KEY_TYPE).is_empty() {
		log::warn!(
			"⚠️  Running as a validator, but the keystore holds no GRANDPA key (type 'gran'): \
			 this node will not vote on finality. Insert one with `gensyn-node key insert \
			 --key-type gran --scheme ed25519` or the author_insertKey RPC."
		);
	}
}

fn new_full_with<N>(
	config: Configuration,
	workers: &crate::cli::WorkerArgs,
) -> Result<TaskManager, ServiceError>
where
	N: sc_network::NetworkBackend<Block, <Block as sp_runtime::traits::Block>::Hash>,
{
	let mut config = config;
	let sc_service::PartialComponents {
		client,
		backend,
		mut task_manager,
		import_queue,
		keystore_container,
		select_chain,
		transaction_pool,
		other: Extras { block_import, grandpa_link, babe_link, babe_worker_handle, mut telemetry },
	} = new_partial(&mut config)?;

	let mut net_config = sc_network::config::FullNetworkConfiguration::<
		Block,
		<Block as sp_runtime::traits::Block>::Hash,
		N,
	>::new(&config.network, config.prometheus_registry().cloned());
	let metrics = N::register_notification_metrics(config.prometheus_registry());
	let peer_store_handle = net_config.peer_store_handle();

	let genesis_hash = client.block_hash(0).ok().flatten().unwrap_or_default();
	let grandpa_protocol_name =
		sc_consensus_grandpa::protocol_standard_name(&genesis_hash, &config.chain_spec);
	let (grandpa_protocol_config, grandpa_notification_service) =
		sc_consensus_grandpa::grandpa_peers_set_config::<_, N>(
			grandpa_protocol_name.clone(),
			metrics.clone(),
			peer_store_handle,
		);
	net_config.add_notification_protocol(grandpa_protocol_config);

	let warp_sync = Arc::new(sc_consensus_grandpa::warp_proof::NetworkProvider::new(
		backend.clone(),
		grandpa_link.shared_authority_set().clone(),
		Vec::default(),
	));

	let (network, system_rpc_tx, tx_handler_controller, sync_service, _) =
		sc_service::build_network(sc_service::BuildNetworkParams {
			config: &config,
			net_config,
			client: client.clone(),
			transaction_pool: transaction_pool.clone(),
			spawn_handle: task_manager.spawn_handle(),
			spawn_essential_handle: task_manager.spawn_essential_handle(),
			import_queue,
			block_announce_validator_builder: None,
			warp_sync_config: Some(WarpSyncConfig::WithProvider(warp_sync)),
			block_relay: None,
			metrics,
			gap_sync_body_policy: None,
		})?;

	if config.offchain_worker.enabled {
		let offchain_workers =
			sc_offchain::OffchainWorkers::new(sc_offchain::OffchainWorkerOptions {
				runtime_api_provider: client.clone(),
				is_validator: config.role.is_authority(),
				keystore: Some(keystore_container.keystore()),
				offchain_db: backend.offchain_storage(),
				transaction_pool: Some(OffchainTransactionPoolFactory::new(
					transaction_pool.clone(),
				)),
				network_provider: Arc::new(network.clone()),
				enable_http_requests: true,
				custom_extensions: |_| vec![],
			})?;
		task_manager.spawn_handle().spawn(
			"offchain-workers-runner",
			"offchain-worker",
			offchain_workers.run(client.clone(), task_manager.spawn_handle()).boxed(),
		);
	}

	let role = config.role;
	let force_authoring = config.force_authoring;
	let name = config.network.node_name.clone();
	let enable_grandpa = !config.disable_grandpa;
	let prometheus_registry = config.prometheus_registry().cloned();
	#[cfg(feature = "workers")]
	let worker_deps = crate::workers::WorkerDeps {
		client: client.clone(),
		pool: transaction_pool.clone(),
		keystore: keystore_container.keystore(),
		spawn: task_manager.spawn_handle(),
		base_path: config.base_path.path().to_path_buf(),
		dev: config.chain_spec.chain_type() == sc_service::ChainType::Development,
		test_chain: matches!(
			config.chain_spec.chain_type(),
			sc_service::ChainType::Development | sc_service::ChainType::Local
		),
		registry: prometheus_registry.clone(),
	};

	let shared_voter_state = SharedVoterState::empty();
	let rpc_builder = {
		let client = client.clone();
		let pool = transaction_pool.clone();
		let select_chain = select_chain.clone();
		let keystore = keystore_container.keystore();
		let shared_voter_state = shared_voter_state.clone();
		let shared_authority_set = grandpa_link.shared_authority_set().clone();
		let justification_stream = grandpa_link.justification_stream();
		let finality_provider = sc_consensus_grandpa::FinalityProofProvider::new_for_service(
			backend.clone(),
			Some(shared_authority_set.clone()),
		);

		Box::new(move |subscription_executor| {
			let deps = crate::rpc::FullDeps {
				client: client.clone(),
				pool: pool.clone(),
				select_chain: select_chain.clone(),
				babe: crate::rpc::BabeDeps {
					babe_worker_handle: babe_worker_handle.clone(),
					keystore: keystore.clone(),
				},
				grandpa: crate::rpc::GrandpaDeps {
					shared_voter_state: shared_voter_state.clone(),
					shared_authority_set: shared_authority_set.clone(),
					justification_stream: justification_stream.clone(),
					subscription_executor,
					finality_provider: finality_provider.clone(),
				},
			};
			crate::rpc::create_full(deps).map_err(Into::into)
		})
	};

	sc_service::spawn_tasks(sc_service::SpawnTasksParams {
		network: network.clone(),
		client: client.clone(),
		keystore: keystore_container.keystore(),
		task_manager: &mut task_manager,
		transaction_pool: transaction_pool.clone(),
		rpc_builder,
		backend,
		system_rpc_tx,
		tx_handler_controller,
		sync_service: sync_service.clone(),
		config,
		telemetry: telemetry.as_mut(),
		tracing_execute_block: None,
	})?;

	#[cfg(feature = "workers")]
	crate::workers::start(workers, worker_deps).map_err(ServiceError::Other)?;
	#[cfg(not(feature = "workers"))]
	let _ = workers;

	if role.is_authority() {
		warn_missing_session_keys(&*keystore_container.keystore());

		let proposer = sc_basic_authorship::ProposerFactory::new(
			task_manager.spawn_handle(),
			client.clone(),
			transaction_pool.clone(),
			prometheus_registry.as_ref(),
			telemetry.as_ref().map(|x| x.handle()),
		);

		let slot_duration = babe_link.config().slot_duration();
		let babe = sc_consensus_babe::start_babe(sc_consensus_babe::BabeParams {
			keystore: keystore_container.keystore(),
			client: client.clone(),
			select_chain,
			env: proposer,
			block_import,
			sync_oracle: sync_service.clone(),
			justification_sync_link: sync_service.clone(),
			create_inherent_data_providers: move |_parent, ()| async move {
				let timestamp = sp_timestamp::InherentDataProvider::from_system_time();
				let slot =
					sp_consensus_babe::inherents::InherentDataProvider::from_timestamp_and_slot_duration(
						*timestamp,
						slot_duration,
					);
				Ok((slot, timestamp))
			},
			force_authoring,
			backoff_authoring_blocks: Some(
				sc_consensus_slots::BackoffAuthoringOnFinalizedHeadLagging::default(),
			),
			babe_link,
			block_proposal_slot_portion: SlotProportion::new(2f32 / 3f32),
			max_block_proposal_slot_portion: None,
			telemetry: telemetry.as_ref().map(|x| x.handle()),
		})?;
		task_manager.spawn_essential_handle().spawn_blocking(
			"babe-proposer",
			Some("block-authoring"),
			babe,
		);
	}

	if enable_grandpa {
		// A non-validator runs the voter too, as an observer without keys: it follows rounds
		// and imports justifications.
		let keystore = if role.is_authority() { Some(keystore_container.keystore()) } else { None };
		let grandpa_config = sc_consensus_grandpa::Config {
			gossip_duration: Duration::from_millis(333),
			justification_generation_period: GRANDPA_JUSTIFICATION_PERIOD,
			name: Some(name),
			observer_enabled: false,
			keystore,
			local_role: role,
			telemetry: telemetry.as_ref().map(|x| x.handle()),
			protocol_name: grandpa_protocol_name,
		};
		let voter = sc_consensus_grandpa::run_grandpa_voter(sc_consensus_grandpa::GrandpaParams {
			config: grandpa_config,
			link: grandpa_link,
			network,
			sync: sync_service,
			notification_service: grandpa_notification_service,
			voting_rule: sc_consensus_grandpa::VotingRulesBuilder::default().build(),
			prometheus_registry,
			shared_voter_state,
			telemetry: telemetry.as_ref().map(|x| x.handle()),
			offchain_tx_pool_factory: OffchainTransactionPoolFactory::new(transaction_pool),
		})?;
		task_manager.spawn_essential_handle().spawn_blocking("grandpa-voter", None, voter);
	}

	Ok(task_manager)
}
