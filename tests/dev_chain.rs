//! End to end: `gensyn-node --dev --tmp` authors blocks with BABE and finalizes them with
//! GRANDPA, and a polkadot.js client's signed transfer lands in a finalized block with
//! exactly the expected balances.

mod common;

use common::Node;
use std::time::Duration;

#[test]
fn dev_chain_produces_finalizes_and_serves_polkadot_js() {
	let node = Node::start("dev", &["--dev", "--tmp"]);

	node.wait_until("block #3 produced", Duration::from_secs(120), |n| {
		n.best_number().is_some_and(|b| b >= 3)
	});
	node.wait_until("block #2 finalized", Duration::from_secs(60), |n| {
		n.finalized_number().is_some_and(|f| f >= 2)
	});

	let chain = node.rpc("system_chain", serde_json::json!([])).expect("system_chain answers");
	assert_eq!(chain, "Gensyn Development");

	let amount: u128 = 1_234_567_890_000;
	let (ok, stdout, stderr) = common::run_js(
		"transfer.js",
		&[
			"--ws",
			&node.ws_url(),
			"--from",
			"//Alice",
			"--to",
			"//Bob",
			"--amount",
			&amount.to_string(),
		],
	);
	assert!(ok, "transfer.js failed\nstdout:\n{stdout}\nstderr:\n{stderr}");
	assert!(stdout.contains("chain: Gensyn Development"), "{stdout}");
	let result_line = stdout
		.lines()
		.find_map(|l| l.strip_prefix("RESULT "))
		.unwrap_or_else(|| panic!("no RESULT line in\n{stdout}"));
	let result: serde_json::Value = serde_json::from_str(result_line).expect("RESULT is JSON");
	let field = |name: &str| -> u128 {
		result[name]
			.as_str()
			.and_then(|s| s.parse().ok())
			.unwrap_or_else(|| panic!("{name} in {result}"))
	};
	let fee = field("fee");
	assert!(fee > 0, "a signed transfer pays a fee");
	assert_eq!(field("toAfter") - field("toBefore"), amount, "Bob receives exactly the amount");
	// Alice is also the only block author, so the fee comes back to her as author.
	let alice_delta = field("fromBefore") - field("fromAfter");
	assert!(
		alice_delta == amount + fee || alice_delta == amount,
		"Alice pays amount (+ fee unless she authored the block): delta {alice_delta}, amount {amount}, fee {fee}"
	);

	// The block is finalized: its number is at or below the finalized head.
	let block_number = result["blockNumber"].as_u64().expect("blockNumber");
	let finalized = node.finalized_number().expect("finalized head");
	assert!(block_number <= finalized, "block #{block_number} above finalized #{finalized}");
}
