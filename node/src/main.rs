//! gensyn-node: a BABE + GRANDPA + NPoS node for the gensyn verified-training chain.

#![warn(missing_docs)]

mod chain_spec;
mod cli;
mod command;
mod rpc;
mod service;
mod workers;

fn main() -> sc_cli::Result<()> {
	command::run()
}
