//! gensyn-node: a BABE + GRANDPA + NPoS node for the gensyn verified-training chain.

#![warn(missing_docs)]
// The client crates (sc-cli, sc-service) return their own large error types from every
// command and service builder; this crate passes them on unchanged.
#![allow(clippy::result_large_err)]

mod chain_spec;
mod cli;
mod command;
mod rpc;
mod service;
// The embedded workers, with libtorch; a validator-only build leaves both out.
#[cfg(feature = "workers")]
mod workers;

fn main() -> sc_cli::Result<()> {
	command::run()
}
