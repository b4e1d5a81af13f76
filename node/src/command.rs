//! Dispatches the command line to the node service or to a subcommand.

use crate::{
	chain_spec,
	cli::{Cli, Subcommand},
	service,
};
use sc_cli::SubstrateCli;
use sc_service::PartialComponents;

impl SubstrateCli for Cli {
	fn impl_name() -> String {
		"gensyn-node".into()
	}

	fn impl_version() -> String {
		env!("SUBSTRATE_CLI_IMPL_VERSION").into()
	}

	fn description() -> String {
		env!("CARGO_PKG_DESCRIPTION").into()
	}

	fn author() -> String {
		env!("CARGO_PKG_AUTHORS").into()
	}

	fn support_url() -> String {
		"https://example.invalid/gensyn-node".into()
	}

	fn copyright_start_year() -> i32 {
		2026
	}

	fn load_spec(&self, id: &str) -> Result<Box<dyn sc_service::ChainSpec>, String> {
		chain_spec::load(id)
	}
}

/// Parses the command line and runs it.
pub fn run() -> sc_cli::Result<()> {
	let cli = Cli::from_args();

	match &cli.subcommand {
		Some(Subcommand::Key(cmd)) => cmd.run(&cli),
		Some(Subcommand::BuildSpec(cmd)) => {
			let runner = cli.create_runner(cmd)?;
			runner.sync_run(|config| cmd.run(config.chain_spec, config.network))
		}
		Some(Subcommand::CheckBlock(cmd)) => {
			let runner = cli.create_runner(cmd)?;
			runner.async_run(|mut config| {
				let PartialComponents { client, task_manager, import_queue, .. } =
					service::new_partial(&mut config)?;
				Ok((cmd.run(client, import_queue), task_manager))
			})
		}
		Some(Subcommand::ExportBlocks(cmd)) => {
			let runner = cli.create_runner(cmd)?;
			runner.async_run(|mut config| {
				let PartialComponents { client, task_manager, .. } =
					service::new_partial(&mut config)?;
				Ok((cmd.run(client, config.database), task_manager))
			})
		}
		Some(Subcommand::ExportState(cmd)) => {
			let runner = cli.create_runner(cmd)?;
			runner.async_run(|mut config| {
				let PartialComponents { client, task_manager, .. } =
					service::new_partial(&mut config)?;
				Ok((cmd.run(client, config.chain_spec), task_manager))
			})
		}
		Some(Subcommand::ImportBlocks(cmd)) => {
			let runner = cli.create_runner(cmd)?;
			runner.async_run(|mut config| {
				let PartialComponents { client, task_manager, import_queue, .. } =
					service::new_partial(&mut config)?;
				Ok((cmd.run(client, import_queue), task_manager))
			})
		}
		Some(Subcommand::PurgeChain(cmd)) => {
			let runner = cli.create_runner(cmd)?;
			runner.sync_run(|config| cmd.run(config.database))
		}
		Some(Subcommand::Revert(cmd)) => {
			let runner = cli.create_runner(cmd)?;
			runner.async_run(|mut config| {
				let PartialComponents { client, task_manager, backend, .. } =
					service::new_partial(&mut config)?;
				let aux_revert = Box::new(|client, backend, blocks| {
					sc_consensus_babe::revert(std::sync::Arc::clone(&client), backend, blocks)?;
					sc_consensus_grandpa::revert(client, blocks)?;
					Ok(())
				});
				Ok((cmd.run(client, backend, Some(aux_revert)), task_manager))
			})
		}
		Some(Subcommand::ChainInfo(cmd)) => {
			let runner = cli.create_runner(cmd)?;
			runner.sync_run(|config| cmd.run::<gensyn_runtime::opaque::Block>(&config))
		}
		#[cfg(feature = "runtime-benchmarks")]
		Some(Subcommand::Benchmark(cmd)) => benchmark(&cli, cmd),
		None => {
			let runner = cli.create_runner(&cli.run)?;
			runner.run_node_until_exit(|config| async move {
				service::new_full(config, &cli.workers).map_err(sc_cli::Error::Service)
			})
		}
	}
}

/// `benchmark pallet` runs the runtime's benchmarks over a genesis state (the chain
/// spec's, or with `--runtime` a runtime blob's preset); `benchmark machine` measures
/// this machine against Substrate's reference hardware.
/// The others (storage, overhead, block, extrinsic) need a database of a live chain and
/// are not offered.
#[cfg(feature = "runtime-benchmarks")]
fn benchmark(cli: &Cli, cmd: &frame_benchmarking_cli::BenchmarkCmd) -> sc_cli::Result<()> {
	use frame_benchmarking_cli::{BenchmarkCmd, SUBSTRATE_REFERENCE_HARDWARE};
	let runner = cli.create_runner(cmd)?;
	runner.sync_run(|config| match cmd {
		BenchmarkCmd::Pallet(cmd) => cmd.run_with_spec::<sp_runtime::traits::HashingFor<
			gensyn_runtime::opaque::Block,
		>, ()>(Some(config.chain_spec)),
		BenchmarkCmd::Machine(cmd) => cmd.run(&config, SUBSTRATE_REFERENCE_HARDWARE.clone()),
		_ => Err("this node offers `benchmark pallet` and `benchmark machine` only".into()),
	})
}
