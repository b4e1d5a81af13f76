//! Bad input gets a clear error and nothing else: unknown chain, malformed chain spec.

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
