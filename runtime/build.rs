//! Builds the wasm blob of the runtime (embedded in the native crate as `WASM_BINARY`).

fn main() {
	#[cfg(feature = "std")]
	substrate_wasm_builder::WasmBuilder::build_using_defaults();
}
