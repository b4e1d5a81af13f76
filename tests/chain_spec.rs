//! The committed `local` chain spec (chain-spec/local.json and local-raw.json) matches what
//! this runtime and node generate; regenerate with `scripts/build-chain-spec.sh`.
//!
//! The wasm code is compared by the runtime version it embeds (name and spec version), not
//! byte for byte: its bytes depend on the toolchain and on the path it was built from,
//! while every other field of the spec, the whole genesis state, must match exactly.

mod common;

use serde_json::Value;
use std::process::Command;

/// Storage key of the runtime code, `:code`, in hex.
const CODE_KEY: &str = "0x3a636f6465";

fn generate(raw: bool) -> Value {
	let mut args = vec!["build-spec", "--chain", "local", "--disable-default-bootnode"];
	if raw {
		args.push("--raw");
	}
	let out = Command::new(common::node_bin()).args(&args).output().expect("gensyn-node runs");
	assert!(out.status.success(), "build-spec failed: {}", String::from_utf8_lossy(&out.stderr));
	serde_json::from_slice(&out.stdout).expect("build-spec prints JSON")
}

fn committed(name: &str) -> Value {
	let path = common::repo_root().join("chain-spec").join(name);
	let text = std::fs::read_to_string(&path)
		.unwrap_or_else(|e| panic!("{}: {e}; run scripts/build-chain-spec.sh", path.display()));
	serde_json::from_str(&text).expect("committed spec is JSON")
}

/// Removes the wasm code from a spec and returns the runtime version it embeds.
fn take_code(spec: &mut Value) -> (String, u32) {
	let code =
		if let Some(top) = spec.pointer_mut("/genesis/raw/top").and_then(Value::as_object_mut) {
			top.remove(CODE_KEY)
		} else {
			spec.pointer_mut("/genesis/runtimeGenesis")
				.and_then(Value::as_object_mut)
				.and_then(|g| g.remove("code"))
		};
	let hex = code.and_then(|c| c.as_str().map(str::to_owned)).expect("spec carries wasm code");
	let bytes: Vec<u8> = (2..hex.len())
		.step_by(2)
		.map(|i| u8::from_str_radix(&hex[i..i + 2], 16).expect("hex code"))
		.collect();
	let blob = sc_executor_common::runtime_blob::RuntimeBlob::uncompress_if_needed(&bytes)
		.expect("code is wasm");
	let version = sc_executor::read_embedded_version(&blob)
		.expect("version section readable")
		.expect("code embeds its runtime version");
	(version.spec_name.to_string(), version.spec_version)
}

#[test]
fn committed_local_spec_matches_the_runtime() {
	for (file, raw) in [("local.json", false), ("local-raw.json", true)] {
		let mut generated = generate(raw);
		let mut committed = committed(file);
		let generated_version = take_code(&mut generated);
		let committed_version = take_code(&mut committed);
		assert_eq!(
			committed_version, generated_version,
			"chain-spec/{file} holds another runtime version; regenerate it with scripts/build-chain-spec.sh"
		);
		assert!(
			generated == committed,
			"chain-spec/{file} is stale: genesis or spec fields changed. Regenerate it with \
			 scripts/build-chain-spec.sh and commit the result."
		);
	}
}
