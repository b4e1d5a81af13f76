//! Built-in chain specs (`dev`, `local`) and loading of chain-spec files.

use gensyn_runtime::WASM_BINARY;
use sc_service::ChainType;

/// The chain spec type of this node: genesis from the runtime's presets, no extensions.
pub type ChainSpec = sc_service::GenericChainSpec;

/// Token symbol, decimals and SS58 format shown by wallets.
fn properties() -> sc_service::Properties {
	let mut properties = sc_service::Properties::new();
	properties.insert("tokenSymbol".into(), "GSN".into());
	properties.insert("tokenDecimals".into(), 12.into());
	properties.insert("ss58Format".into(), 42.into());
	properties
}

fn wasm_binary() -> Result<&'static [u8], String> {
	WASM_BINARY.ok_or_else(|| {
		"The wasm runtime is not in this binary; rebuild without SKIP_WASM_BUILD.".to_string()
	})
}

/// Single-validator development chain: Alice authors and finalizes alone.
pub fn development() -> Result<ChainSpec, String> {
	Ok(ChainSpec::builder(wasm_binary()?, None)
		.with_name("Gensyn Development")
		.with_id("gensyn_dev")
		.with_chain_type(ChainType::Development)
		.with_genesis_config_preset_name(sp_genesis_builder_preset::DEV)
		.with_properties(properties())
		.build())
}

/// Three-validator local testnet: Alice, Bob and Charlie.
pub fn local_testnet() -> Result<ChainSpec, String> {
	Ok(ChainSpec::builder(wasm_binary()?, None)
		.with_name("Gensyn Local Testnet")
		.with_id("gensyn_local")
		.with_chain_type(ChainType::Local)
		.with_genesis_config_preset_name(sp_genesis_builder_preset::LOCAL)
		.with_properties(properties())
		.build())
}

/// Loads `dev`, `local`, or a chain-spec JSON file, with an error naming what went wrong.
pub fn load(id: &str) -> Result<Box<dyn sc_service::ChainSpec>, String> {
	Ok(match id {
		"dev" | "" => Box::new(development()?),
		"local" => Box::new(local_testnet()?),
		path => {
			let path = std::path::PathBuf::from(path);
			if !path.exists() {
				return Err(format!(
					"Unknown chain '{}': not one of dev, local, and no such chain-spec file.",
					path.display()
				));
			}
			Box::new(
				ChainSpec::from_json_file(path.clone())
					.map_err(|e| format!("Malformed chain spec {}: {e}", path.display()))?,
			)
		}
	})
}

/// The preset names the runtime defines.
mod sp_genesis_builder_preset {
	pub const DEV: &str = "development";
	pub const LOCAL: &str = "local_testnet";
}
