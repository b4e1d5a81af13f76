//! Bad input gets a clear error and nothing else: unknown chain, malformed chain spec,
//! a development-only flag on a live chain.

mod common;

use std::process::Command;

fn run(args: &[&str]) -> (bool, String) {
	let out = Command::new(common::node_bin()).args(args).output().expect("gensyn-node runs");
	let text =
		format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
	(out.status.success(), text)
}

#[test]
fn unknown_chain_is_refused_with_a_clear_error() {
	let (ok, text) = run(&["--chain", "/no/such/spec.json", "--tmp"]);
	assert!(!ok, "node must not start:\n{text}");
	assert!(text.contains("Unknown chain '/no/such/spec.json'"), "{text}");
	assert!(!text.contains("panicked"), "{text}");
}

#[test]
fn malformed_chain_spec_is_refused_with_a_clear_error() {
	let dir = std::env::temp_dir().join(format!("gensyn-bad-spec-{}", std::process::id()));
	std::fs::create_dir_all(&dir).expect("temp dir");
	let path = dir.join("broken.json");
	std::fs::write(&path, "{ \"name\": \"half a spec\", ").expect("write spec");
	let (ok, text) = run(&["build-spec", "--chain", path.to_str().unwrap_or_default()]);
	let _ = std::fs::remove_dir_all(&dir);
	assert!(!ok, "must fail:\n{text}");
	assert!(text.contains("Malformed chain spec"), "{text}");
	assert!(!text.contains("panicked"), "{text}");
}

/// `--allow-file-data` lets a task's submitter choose which local files the workers read:
/// a node of a live chain refuses to start with it, naming the flag.
#[test]
fn local_file_data_is_refused_on_a_live_chain() {
	let dir = std::env::temp_dir().join(format!("gensyn-live-spec-{}", std::process::id()));
	std::fs::create_dir_all(&dir).expect("temp dir");
	let out = Command::new(common::node_bin())
		.args(["build-spec", "--chain", "local", "--disable-default-bootnode"])
		.output()
		.expect("gensyn-node build-spec");
	assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
	let json = String::from_utf8_lossy(&out.stdout);
	assert!(json.contains("\"chainType\": \"Local\""), "{json}");
	let path = dir.join("live.json");
	std::fs::write(&path, json.replace("\"chainType\": \"Local\"", "\"chainType\": \"Live\""))
		.expect("write spec");
	let spec_arg = path.to_str().unwrap_or_default();
	let base = dir.join("base");
	let base_arg = base.to_str().unwrap_or_default();
	let args = ["--chain", spec_arg, "--base-path", base_arg, "--port", "0", "--rpc-port", "0"];
	let (ok, text) =
		run(&[&args[..], &["--no-prometheus", "--solver", "--allow-file-data"]].concat());
	let _ = std::fs::remove_dir_all(&dir);
	assert!(!ok, "node must not start:\n{text}");
	assert!(text.contains("--allow-file-data is for development and local test chains"), "{text}");
	assert!(!text.contains("panicked"), "{text}");
}
