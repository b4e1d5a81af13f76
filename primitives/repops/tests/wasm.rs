//! Native vs wasm32: builds `wasm-probe` for wasm32-unknown-unknown, runs it in wasmi
//! and compares its result with the same computation run natively.

use std::process::Command;

#[test]
fn wasm32_build_gives_the_same_bits_as_native() {
	let native = gensyn_repops::selftest::probe().unwrap();
	let dir = manifest_dir();
	let dir = dir.as_str();
	let target = std::env::var("CARGO_TARGET_DIR")
		.map(|t| format!("{t}/wasm-probe"))
		.unwrap_or_else(|_| format!("{dir}/../../target/wasm-probe"));
	let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
	let status = Command::new(cargo)
		.args(["build", "--release", "--target", "wasm32-unknown-unknown", "--manifest-path"])
		.arg(format!("{dir}/wasm-probe/Cargo.toml"))
		.env("CARGO_TARGET_DIR", &target)
		.env_remove("RUSTFLAGS")
		.env_remove("CARGO_ENCODED_RUSTFLAGS")
		// The test suite's lint wrapper is for this workspace, not the probe's.
		.env_remove("RUSTC_WORKSPACE_WRAPPER")
		.env_remove("CLIPPY_ARGS")
		.status()
		.expect("run cargo");
	assert!(
		status.success(),
		"building the wasm probe failed (is the wasm32-unknown-unknown target installed?)"
	);
	let wasm = std::fs::read(format!(
		"{target}/wasm32-unknown-unknown/release/gensyn_repops_wasm_probe.wasm"
	))
	.unwrap();

	let engine = wasmi::Engine::default();
	let module = wasmi::Module::new(&engine, &wasm[..]).unwrap();
	let mut store = wasmi::Store::new(&engine, ());
	let linker = wasmi::Linker::<()>::new(&engine);
	let instance = linker.instantiate_and_start(&mut store, &module).unwrap();
	let run = instance.get_typed_func::<(), i32>(&store, "run").unwrap();
	let ptr = run.call(&mut store, ()).unwrap();
	let memory = instance.get_memory(&store, "memory").unwrap();
	let mut out = [0u8; 33];
	memory.read(&store, ptr as usize, &mut out).unwrap();
	assert_eq!(out[0], 1, "the probe failed inside wasm");
	assert_eq!(&out[1..], &native[..], "wasm32 and native bits differ");
}

/// The package directory of this checkout: cargo's variable at run time (a build reused
/// from another checkout through a shared target directory keeps the old compile-time
/// path), the compile-time one otherwise.
fn manifest_dir() -> String {
	std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| env!("CARGO_MANIFEST_DIR").to_string())
}
