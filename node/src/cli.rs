//! Command-line interface: Substrate's standard flags and subcommands.

/// Subcommands besides running the node.
#[derive(Debug, clap::Subcommand)]
#[allow(clippy::large_enum_variant)]
pub enum Subcommand {
	/// Key management: generate, inspect, insert into the keystore.
	#[command(subcommand)]
	Key(sc_cli::KeySubcommand),

	/// Write a chain spec (plain or `--raw`) to stdout.
	BuildSpec(sc_cli::BuildSpecCmd),

	/// Validate blocks.
	CheckBlock(sc_cli::CheckBlockCmd),

	/// Export blocks to a file.
	ExportBlocks(sc_cli::ExportBlocksCmd),

	/// Export the state of a block as a chain spec.
	ExportState(sc_cli::ExportStateCmd),

	/// Import blocks from a file.
	ImportBlocks(sc_cli::ImportBlocksCmd),

	/// Remove the whole chain database.
	PurgeChain(sc_cli::PurgeChainCmd),

	/// Revert the chain to a previous state.
	Revert(sc_cli::RevertCmd),

	/// Database metadata: best, finalized and genesis blocks.
	ChainInfo(sc_cli::ChainInfoCmd),

	/// Measure the pallets' weights (`benchmark pallet`) or this machine
	/// (`benchmark machine`); only in a node built with `runtime-benchmarks`.
	#[cfg(feature = "runtime-benchmarks")]
	#[command(subcommand)]
	Benchmark(frame_benchmarking_cli::BenchmarkCmd),
}

/// The node's command line.
#[derive(Debug, clap::Parser)]
#[command(
	propagate_version = true,
	args_conflicts_with_subcommands = true,
	subcommand_negates_reqs = true
)]
pub struct Cli {
	/// A subcommand; without one the node runs.
	#[command(subcommand)]
	pub subcommand: Option<Subcommand>,

	/// Flags of the running node (`--dev`, `--chain`, `--validator`, ...).
	#[clap(flatten)]
	pub run: sc_cli::RunCmd,

	/// Flags of the embedded protocol workers (`--solver`, `--verifier`, ...).
	#[clap(flatten)]
	pub workers: WorkerArgs,
}

/// The embedded workers' flags.
#[cfg(feature = "workers")]
pub type WorkerArgs = crate::workers::WorkerArgs;

/// No worker flags: this node was built without the `workers` feature (a validator or
/// RPC node, without libtorch).
#[derive(Debug, Clone, Default, clap::Args)]
#[cfg(not(feature = "workers"))]
pub struct WorkerArgs {}
