//! The embedded workers end to end: one development node runs the solver (Bob) and the
//! verifier (Charlie); Alice submits the MNIST MLP example from polkadot.js. The
//! verifier commits a forced-error secret and profiles the task, Bob trains it with
//! libtorch and serves its checkpoints, Charlie fetches and replays the drawn segments
//! with repops, posts verdicts and reveals, and the task completes. Every planck is
//! accounted for.

mod common;

use std::time::Duration;

use common::{free_port, repo_root, run_js, Node};
use serde_json::Value;

/// The `RESULT`/`OUTCOME` JSON line of a script's output.
fn tagged_json(stdout: &str, prefix: &str) -> Value {
	let line = stdout
		.lines()
		.rev()
		.find_map(|l| l.strip_prefix(prefix))
		.unwrap_or_else(|| panic!("no `{prefix}` line in:\n{stdout}"));
	serde_json::from_str(line.trim()).expect("JSON after the tag")
}

/// Runs a script that must succeed; its `RESULT` JSON.
fn run_ok(script: &str, args: &[&str]) -> (Value, String) {
	let (ok, stdout, stderr) = run_js(script, args);
	assert!(ok, "{script} failed:\n{stdout}\n{stderr}");
	(tagged_json(&stdout, "RESULT "), stdout)
}

/// A planck amount given as a decimal string.
fn planck(v: &Value) -> i128 {
	v.as_str().and_then(|s| s.parse().ok()).unwrap_or_else(|| panic!("an amount: {v}"))
}

#[test]
fn workers_train_verify_and_settle_a_task() {
	let data = repo_root().join(".data/mnist/train.idx");
	assert!(data.exists(), "run scripts/fetch-mnist.sh first");
	let store_port = free_port();
	let listen = format!("127.0.0.1:{store_port}");
	let node = Node::start(
		"dev",
		&[
			"--dev",
			"--tmp",
			"--solver",
			"--verifier",
			"--worker-threads",
			"1",
			"--worker-cpu",
			"--proof-store-listen",
			&listen,
		],
	);
	node.wait_until("block #1 finalized", Duration::from_secs(120), |n| {
		n.finalized_number().is_some_and(|f| f >= 1)
	});
	let ws = node.ws_url();

	// Short challenge windows (sudo), then the two workers register.
	run_ok("dev-timing.js", &["--ws", &ws, "--challenge-period", "6"]);
	let endpoint = format!("http://{listen}");
	for (seed, role) in [("//Bob", "solver"), ("//Charlie", "verifier")] {
		let (reg, _) = run_ok(
			"register.js",
			&[
				"--ws",
				&ws,
				"--seed",
				seed,
				"--role",
				role,
				"--bond",
				"100",
				"--memory-mib",
				"8192",
				"--mgas-per-sec",
				"500",
				"--endpoint",
				&endpoint,
			],
		);
		assert_eq!(reg["active"], true, "{reg}");
	}
	let from = node.finalized_number().expect("finalized head");

	// The example spec with the data at its absolute path (the node runs elsewhere).
	let mut spec: Value = serde_json::from_str(
		&std::fs::read_to_string(repo_root().join("examples/mnist-mlp.json")).expect("example"),
	)
	.expect("JSON");
	let uri = format!("file://{}", data.canonicalize().expect("path").display());
	spec["data"]["uri"] = Value::String(uri);
	let spec_file =
		std::env::temp_dir().join(format!("gensyn-workers-{}.json", std::process::id()));
	std::fs::write(&spec_file, spec.to_string()).expect("write spec");

	let (ok, stdout, stderr) = run_js(
		"submit-task.js",
		&[
			"--ws",
			&ws,
			"--seed",
			"//Alice",
			"--spec",
			spec_file.to_str().expect("utf-8 path"),
			"--follow",
			"--timeout",
			"900000",
		],
	);
	let _ = std::fs::remove_file(&spec_file);
	let log = node.log();
	assert!(ok, "the task did not complete:\n{stdout}\n{stderr}\nnode log tail:\n{}", tail(&log));
	let submitted = tagged_json(&stdout, "RESULT ");
	let outcome = tagged_json(&stdout, "OUTCOME ");
	assert_eq!(outcome["end"], "TaskCompleted", "{outcome}");
	for step in ["Profiled", "TaskAccepted", "ResultSubmitted", "VerifiersDrawn", "VerdictPosted"] {
		assert!(stdout.contains(&format!("tasks.{step}")), "no {step} event:\n{stdout}");
	}
	assert!(log.contains("solver: task 0 trained"), "{}", tail(&log));
	assert!(log.contains("verifier: task 0 segment"), "{}", tail(&log));

	// Money: Alice paid the task and every fee (and, as the only block author, received
	// every fee); Bob got the solver pay, Charlie the profiling segment and each verdict.
	let to = outcome["blockNumber"].as_u64().expect("block");
	let (ledger, _) = run_ok(
		"ledger.js",
		&[
			"--ws",
			&ws,
			"--from",
			&from.to_string(),
			"--to",
			&to.to_string(),
			"--who",
			"//Alice,//Bob,//Charlie",
		],
	);
	let data = &outcome["data"];
	let (solver_paid, verifiers_paid, refunded) =
		(planck(&data["solverPaid"]), planck(&data["verifiersPaid"]), planck(&data["refunded"]));
	let escrow = planck(&submitted["escrow"]);
	let profile_pay = planck(&submitted["segmentPay"]);
	let (jackpot, treasury) = (planck(&submitted["jackpotCut"]), planck(&submitted["treasuryCut"]));
	assert!(solver_paid > 0 && verifiers_paid > 0, "{outcome}");
	assert_eq!(
		escrow - refunded,
		solver_paid + verifiers_paid + profile_pay + jackpot + treasury,
		"the escrow paid exactly the solver, the verifier (profile and verdicts) and the cuts"
	);
	let account = |i: usize| -> (i128, i128) {
		let a = &ledger["accounts"][i];
		(planck(&a["to"]) - planck(&a["from"]), planck(&a["fees"]))
	};
	let fees_total = planck(&ledger["feesTotal"]);
	let (d_alice, fee_alice) = account(0);
	let (d_bob, fee_bob) = account(1);
	let (d_charlie, fee_charlie) = account(2);
	assert!(fee_bob > 0 && fee_charlie > 0, "the workers paid their own fees: {ledger}");
	assert_eq!(d_bob, solver_paid - fee_bob, "Bob: {ledger}");
	assert_eq!(d_charlie, verifiers_paid + profile_pay - fee_charlie, "Charlie: {ledger}");
	assert_eq!(d_alice, -(escrow - refunded) - fee_alice + fees_total, "Alice: {ledger}");
	assert_eq!(
		planck(&ledger["issuanceFrom"]),
		planck(&ledger["issuanceTo"]),
		"no planck minted or burnt"
	);
}

/// The last lines of a log.
fn tail(log: &str) -> String {
	let lines: Vec<&str> = log.lines().collect();
	lines[lines.len().saturating_sub(60)..].join("\n")
}
