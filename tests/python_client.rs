//! The Python client (scripts/py/gensyn_client.py) against a development node: a spec
//! with a wrong field is refused before anything is sent, one the chain refuses comes
//! back as its named pallet error with nothing held, and the example spec is sent as
//! exactly the bytes the chain's own `TaskSpec` encodes, for the escrow the quote names;
//! `--follow` reports the task's end (here the owner's cancel, refunded in full). Fetching
//! and evaluating a trained model is played where a task completes (tests/workers).

mod common;

use common::{run_ok, run_py, tagged_json, Node};
use gensyn_primitives::TaskSpec;
use serde_json::Value;
use std::{io::BufRead, process::Stdio, time::Duration};

/// The example spec and a copy of it changed by `edit`, written to a temporary file.
fn spec_file(name: &str, edit: impl FnOnce(&mut Value)) -> (Value, std::path::PathBuf) {
	let text = std::fs::read_to_string(common::repo_root().join("examples/mnist-mlp.json"))
		.expect("the example spec");
	let mut spec: Value = serde_json::from_str(&text).expect("JSON");
	edit(&mut spec);
	let path = std::env::temp_dir().join(format!("gensyn-py-{}-{name}.json", std::process::id()));
	std::fs::write(&path, spec.to_string()).expect("write the spec");
	(spec, path)
}

#[test]
fn the_python_client_submits_what_the_chain_encodes_and_follows_the_task() {
	let node = Node::start("dev", &["--dev", "--tmp"]);
	node.wait_until("block #1 finalized", Duration::from_secs(120), |n| {
		n.finalized_number().is_some_and(|f| f >= 1)
	});
	let ws = node.ws_url();

	// A field the spec has no place for: named, and nothing sent.
	let (_, typo) = spec_file("typo", |s| s["training"]["epoch"] = 2.into());
	let (ok, stdout, _) = run_py(&["submit", "--ws", &ws, "--spec", typo.to_str().unwrap()]);
	let refused = tagged_json(&stdout, "RESULT ");
	assert!(!ok && refused["error"] == "BadSpec", "{stdout}");
	assert!(refused["message"].as_str().unwrap().contains("unknown field 'epoch'"), "{refused}");

	// A spec the chain refuses: its pallet error by name.
	let (_, bad) = spec_file("bad", |s| s["model"]["layers"][1]["in_features"] = 783.into());
	let (ok, stdout, _) = run_py(&["submit", "--ws", &ws, "--spec", bad.to_str().unwrap()]);
	let refused = tagged_json(&stdout, "RESULT ");
	assert!(!ok && refused["error"] == "tasks.SpecLinearInputMismatch", "{stdout}");

	// The example: the bytes sent are the chain type's encoding of the same JSON, and the
	// escrow is the quote's.
	let (spec, good) = spec_file("good", |_| {});
	let path = good.to_str().unwrap();
	let (quote, _) = run_ok("quote.js", &["--ws", &ws, "--spec", path]);
	let mut child = std::process::Command::new(common::venv_python())
		.arg(common::repo_root().join("scripts/py/gensyn_client.py"))
		.args(["submit", "--ws", &ws, "--spec", path, "--follow", "--timeout", "300"])
		.stdout(Stdio::piped())
		.stderr(Stdio::null())
		.spawn()
		.expect("the client starts");
	let mut lines = std::io::BufReader::new(child.stdout.take().expect("stdout")).lines();
	let first = lines.next().expect("a RESULT line").expect("utf-8");
	let sent = tagged_json(&first, "RESULT ");
	assert_eq!(sent["ok"], true, "{sent}");
	let hex = sent["spec"].as_str().expect("the spec sent").trim_start_matches("0x");
	let bytes = common::hex_decode(hex).expect("hex");
	let expected: TaskSpec = serde_json::from_value(spec).expect("the example parses");
	let decoded = <TaskSpec as codec::Decode>::decode(&mut &bytes[..]).expect("it decodes");
	assert_eq!(decoded, expected, "the client sent another spec than the JSON's");
	assert_eq!(sent["escrow"], quote["escrow"], "the escrow held is the quote's: {quote}");

	// --follow prints the task's end: the owner cancels, refunded in full.
	let id = sent["task"].as_u64().expect("the task id").to_string();
	let (cancel, _) = run_ok("cancel-task.js", &["--ws", &ws, "--id", &id]);
	let planck = |v: &Value| v.as_str().and_then(|s| s.parse::<u128>().ok()).expect("planck");
	let released = planck(&cancel["heldBefore"]) - planck(&cancel["heldAfter"]);
	assert_eq!(released, planck(&sent["escrow"]), "the escrow was held until the cancel");
	let rest: Vec<String> = lines.map_while(Result::ok).collect();
	assert!(child.wait().expect("the client ends").success(), "{rest:?}");
	let outcome = tagged_json(&rest.join("\n"), "OUTCOME ");
	assert_eq!(outcome["end"], "TaskCancelled", "{outcome}");
	assert_eq!(outcome["data"]["refunded"], sent["escrow"], "{outcome}");
	for p in [typo, bad, good] {
		let _ = std::fs::remove_file(p);
	}
	// A block before the task was submitted has no model to fetch.
	let (ok, stdout, _) = run_py(&["fetch-model", "--ws", &ws, "--task", &id, "--at", "1"]);
	assert!(!ok && tagged_json(&stdout, "RESULT ")["error"] == "TaskNotFound", "{stdout}");
}
