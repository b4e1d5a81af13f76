//! `gensyn-ml`: train, verify, estimate and inspect training tasks (see `--help`).

use clap::Parser;
use gensyn_workers::cli::{self, Cli};
use std::io::IsTerminal;
use std::process::ExitCode;

fn main() -> ExitCode {
	tracing_subscriber::fmt()
		.with_writer(std::io::stderr)
		.with_ansi(std::io::stderr().is_terminal())
		.with_env_filter(
			tracing_subscriber::EnvFilter::try_from_default_env()
				.unwrap_or_else(|_| "gensyn_ml=info".into()),
		)
		.init();
	match cli::run(Cli::parse()) {
		Ok(value) => {
			println!("{}", serde_json::to_string_pretty(&value).expect("JSON values print"));
			ExitCode::SUCCESS
		}
		Err(e) => {
			eprintln!("gensyn-ml: error: {e}");
			ExitCode::FAILURE
		}
	}
}
