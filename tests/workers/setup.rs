//! What the end-to-end worker tests share: a development node with every role, a second
//! node, registrations, submissions through polkadot.js and ledgers.

use std::time::Duration;

use crate::common::{free_port, repo_root, run_js, run_ok, tagged_json, Node};
use serde_json::Value;

/// A planck amount given as a decimal string.
pub fn planck(v: &Value) -> i128 {
	v.as_str().and_then(|s| s.parse().ok()).unwrap_or_else(|| panic!("an amount: {v}"))
}

/// A development node running all three workers, with short challenge windows and the
/// workers registered; `fault` makes its workers misbehave, `forced_percent` sets the
/// forced-error rate.
pub struct Setup {
	pub node: Node,
	pub ws: String,
	/// The finalized block after registration (where ledgers start).
	pub from: u64,
}

pub fn setup(fault: Option<&str>, forced_percent: Option<&str>) -> Setup {
	setup_with(Options { fault, forced_percent, ..Options::default() })
}

/// What a [`setup_with`] node and chain differ in.
#[derive(Default)]
pub struct Options<'a> {
	/// The node's roles (all three when empty).
	pub roles: &'a [&'a str],
	/// The solver's proof store, when the solver runs in another node.
	pub solver_store: Option<&'a str>,
	/// `--worker-fault`.
	pub fault: Option<&'a str>,
	/// The forced-error rate in percent.
	pub forced_percent: Option<&'a str>,
	/// More node arguments.
	pub node_args: &'a [&'a str],
	/// Blocks every training deadline starts with.
	pub min_training: Option<&'a str>,
	/// Blocks of the challenge window (12 when not given).
	pub challenge_period: Option<&'a str>,
	/// Blocks a demanded checkpoint's pages are due in (the chain's default when not
	/// given).
	pub publish_period: Option<&'a str>,
}

/// `setup` with `o`'s differences.
pub fn setup_with(o: Options) -> Setup {
	let data = repo_root().join(".data/mnist/train.idx");
	assert!(data.exists(), "run scripts/fetch-mnist.sh first");
	let listen = format!("127.0.0.1:{}", free_port());
	let mut args = vec!["--dev", "--tmp"];
	let all = ["--solver", "--verifier", "--whistleblower"];
	args.extend(if o.roles.is_empty() { &all[..] } else { o.roles });
	args.extend(["--worker-threads", "1", "--worker-cpu", "--proof-store-listen", &listen]);
	// The example data is a local file.
	args.push("--allow-file-data");
	if let Some(f) = o.fault {
		args.extend(["--worker-fault", f]);
	}
	args.extend(o.node_args);
	let node = Node::start("dev", &args);
	node.wait_until("block #1 finalized", Duration::from_secs(120), |n| {
		n.finalized_number().is_some_and(|f| f >= 1)
	});
	let ws = node.ws_url();
	let window = o.challenge_period.unwrap_or("12");
	let mut timing =
		vec!["--ws", ws.as_str(), "--challenge-period", window, "--randomness-delay", "2"];
	if let Some(p) = o.forced_percent {
		timing.extend(["--forced-error-rate", p]);
	}
	if let Some(b) = o.min_training {
		timing.extend(["--min-training-period", b]);
	}
	if let Some(b) = o.publish_period {
		timing.extend(["--publish-period", b]);
	}
	run_ok("dev-timing.js", &timing);
	for (seed, role) in
		[("//Bob", "solver"), ("//Charlie", "verifier"), ("//Dave", "whistleblower")]
	{
		let endpoint = match (role, o.solver_store) {
			("solver", Some(store)) => format!("http://{store}"),
			_ => format!("http://{listen}"),
		};
		register(&ws, seed, role, &endpoint);
	}
	let from = node.finalized_number().expect("finalized head");
	Setup { node, ws, from }
}

/// Alice submits the MNIST MLP example and follows it to its end (completed or not):
/// the submission's `RESULT`, the `OUTCOME`, and everything printed.
pub fn submit_and_follow(s: &Setup) -> (Value, Value, String) {
	// The script exits non-zero for a task that failed: what matters is that it ended.
	let (_, stdout, stderr) = submit_example(&s.ws);
	let log = s.node.log();
	let ended = stdout.lines().any(|l| l.starts_with("OUTCOME "));
	assert!(ended, "the task did not end:\n{stdout}\n{stderr}\nnode log tail:\n{}", tail(&log));
	(tagged_json(&stdout, "RESULT "), tagged_json(&stdout, "OUTCOME "), stdout)
}

/// Alice submits the MNIST MLP example through `ws` and follows it: (ok, stdout, stderr).
pub fn submit_example(ws: &str) -> (bool, String, String) {
	submit_spec(ws, |_| {}, &[])
}

/// Alice submits the MNIST MLP example, changed by `edit`, through `ws` with `extra`
/// arguments and follows it: (ok, stdout, stderr).
pub fn submit_spec(
	ws: &str,
	edit: impl FnOnce(&mut Value),
	extra: &[&str],
) -> (bool, String, String) {
	let data = repo_root().join(".data/mnist/train.idx");
	// The example spec with the data at its absolute path (the node runs elsewhere).
	let mut spec: Value = serde_json::from_str(
		&std::fs::read_to_string(repo_root().join("examples/mnist-mlp.json")).expect("example"),
	)
	.expect("JSON");
	let uri = format!("file://{}", data.canonicalize().expect("path").display());
	spec["data"]["uri"] = Value::String(uri);
	edit(&mut spec);
	let spec_file = std::env::temp_dir().join(format!(
		"gensyn-workers-{}-{}.json",
		std::process::id(),
		free_port()
	));
	std::fs::write(&spec_file, spec.to_string()).expect("write spec");
	let path = spec_file.to_str().expect("utf-8 path");
	let mut args = vec!["--ws", ws, "--seed", "//Alice", "--spec", path];
	args.extend(["--follow", "--timeout", "900000"]);
	args.extend(extra);
	let out = run_js("submit-task.js", &args);
	let _ = std::fs::remove_file(&spec_file);
	out
}

/// Balance changes and fees of `who` (comma-separated) between `from` and `to`.
pub fn ledger(s: &Setup, to: u64, who: &str) -> Value {
	run_ok(
		"ledger.js",
		&["--ws", &s.ws, "--from", &s.from.to_string(), "--to", &to.to_string(), "--who", who],
	)
	.0
}

/// (balance change, fees paid) of account `i` of a ledger.
pub fn account(ledger: &Value, i: usize) -> (i128, i128) {
	let a = &ledger["accounts"][i];
	(planck(&a["to"]) - planck(&a["from"]), planck(&a["fees"]))
}

/// A second node `name` (on disk at `base`, synced from the first) running one worker
/// `role` (`solver`, `verifier`) whose key of `key_type` is `suri`; `extra` is added to
/// its arguments.
pub fn second_node(
	s: &Setup,
	name: &str,
	(role, key_type, suri): (&str, &str, &str),
	base: &std::path::Path,
	extra: &[&str],
) -> Node {
	let base_arg = base.to_str().expect("utf-8 path");
	let inserted = std::process::Command::new(crate::common::node_bin())
		.args(["key", "insert", "--chain", "dev", "--base-path", base_arg])
		.args(["--key-type", key_type, "--scheme", "sr25519", "--suri", suri])
		.status()
		.expect("gensyn-node key insert");
	assert!(inserted.success(), "inserting {name}'s {role} key");
	let boot = format!("/ip4/127.0.0.1/tcp/{}/p2p/{}", s.node.p2p_port, s.node.peer_id());
	let role_flag = format!("--{role}");
	let mut args = vec!["--chain", "dev", "--base-path", base_arg, &role_flag];
	args.extend([
		"--worker-threads",
		"1",
		"--worker-cpu",
		"--allow-file-data",
		"--bootnodes",
		&boot,
	]);
	args.extend(extra);
	Node::start(name, &args)
}

/// Submits the example with Eve's verifier node (started with `eve_args`) running beside
/// the first, and registers Eve once the first node's log contains `marker`, so that she
/// was never bound to the task before. Returns the follower's stdout and stderr, and
/// the first node's log and Eve's once the follower is done.
pub fn with_eve_joining(
	s: &Setup,
	eve_args: &[&str],
	marker: &str,
) -> (String, String, String, String) {
	let base =
		std::env::temp_dir().join(format!("gensyn-eve-{}-{}", std::process::id(), free_port()));
	let eve = second_node(s, "eve", ("verifier", "gver", "//Eve"), &base, eve_args);
	let ws = s.ws.clone();
	let follow = std::thread::spawn(move || submit_example(&ws));
	s.node.wait_until(marker, Duration::from_secs(600), |n| n.log().contains(marker));
	register(&s.ws, "//Eve", "verifier", "http://127.0.0.1:9");
	let (_, stdout, stderr) = follow.join().expect("the follower");
	let (log, eve_log) = (s.node.log(), eve.log());
	let _ = std::fs::remove_dir_all(&base);
	(stdout, stderr, log, eve_log)
}

/// A second node whose solver signs as Ferdie, with its proof store on `store`.
pub fn ferdie_solver(s: &Setup, store: &str, base: &std::path::Path) -> Node {
	let extra = ["--proof-store-listen", store];
	second_node(s, "ferdie", ("solver", "gsol", "//Ferdie"), base, &extra)
}

/// Registers `seed` as a solver whose proof store is at `store`.
pub fn register_solver(s: &Setup, seed: &str, store: &str) {
	register(&s.ws, seed, "solver", &format!("http://{store}"));
}

/// Registers `seed` in `role` through `ws`, with the bond and capability every test
/// worker has.
pub fn register(ws: &str, seed: &str, role: &str, endpoint: &str) {
	let (reg, _) = run_ok(
		"register.js",
		&[
			"--ws",
			ws,
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
			endpoint,
		],
	);
	assert_eq!(reg["active"], true, "{reg}");
}

/// Submits the example task with Ferdie's solver node running beside the first, and
/// registers Ferdie once the first node's log contains `bob_marker` (so that Bob is
/// drawn first). Checks that the task completed, Ferdie training it, and returns the
/// follower's stdout.
pub fn redrawn_to_ferdie(s: &Setup, bob_marker: &str, edit: fn(&mut Value)) -> String {
	let store = format!("127.0.0.1:{}", free_port());
	let base =
		std::env::temp_dir().join(format!("gensyn-ferdie-{}-{}", std::process::id(), free_port()));
	let ferdie = ferdie_solver(s, &store, &base);
	let ws = s.ws.clone();
	let follow = std::thread::spawn(move || submit_spec(&ws, edit, &[]));
	s.node.wait_until(bob_marker, Duration::from_secs(600), |n| n.log().contains(bob_marker));
	register_solver(s, "//Ferdie", &store);
	let (ok, stdout, stderr) = follow.join().expect("the follower");
	let ferdie_log = ferdie.log();
	let _ = std::fs::remove_dir_all(&base);
	assert!(
		ok,
		"the task did not complete:\n{stdout}\n{stderr}\nworkers:\n{}\nFerdie:\n{}",
		worker_lines(&s.node.log()),
		tail(&ferdie_log)
	);
	assert!(
		ferdie_log.contains("solver: task 0 trained"),
		"Ferdie did not train:\n{stdout}\nworkers:\n{}\nFerdie:\n{}",
		worker_lines(&s.node.log()),
		tail(&ferdie_log)
	);
	stdout
}

/// The arguments of a node on disk at `base` running Bob's solver alone, with its proof
/// store on `store`, synced from the first node.
pub fn solver_args(s: &Setup, store: &str, base: &std::path::Path) -> Vec<String> {
	let boot = format!("/ip4/127.0.0.1/tcp/{}/p2p/{}", s.node.p2p_port, s.node.peer_id());
	let base = base.to_str().expect("utf-8 path");
	["--chain", "dev", "--base-path", base, "--solver", "--worker-threads", "1", "--worker-cpu"]
		.into_iter()
		.chain(["--allow-file-data", "--proof-store-listen", store, "--bootnodes", &boot])
		.map(String::from)
		.collect()
}

/// The workers' lines of a node log (verdicts with their distances, duties, moves).
pub fn worker_lines(log: &str) -> String {
	log.lines()
		.filter(|l| l.contains("gensyn-worker") || l.contains("verifier:") || l.contains("solver:"))
		.collect::<Vec<_>>()
		.join("\n")
}

/// The example in Exact mode with every segment audited.
pub fn every_segment(spec: &mut Value) {
	spec["verification"]["mode"] = Value::String("exact".into());
	spec["verification"]["audit_fraction"] = Value::from(1_000_000);
}

/// A run of the example in Exact mode auditing every segment, by a node whose workers
/// show `fault`, with 40-block windows and nothing forced: the node, the task's
/// follower's output (asserted to have ended) and the node's log.
pub fn every_segment_run(fault: &str) -> (Setup, String, String) {
	let s = setup_with(Options {
		fault: Some(fault),
		forced_percent: Some("0"),
		challenge_period: Some("40"),
		..Options::default()
	});
	let (_, stdout, stderr) = submit_spec(&s.ws, every_segment, &[]);
	let log = s.node.log();
	let ended = stdout.lines().any(|l| l.starts_with("OUTCOME "));
	assert!(ended, "the task did not end:\n{stdout}\n{stderr}\n{}", worker_lines(&log));
	(s, stdout, log)
}

/// The last lines of a log.
pub fn tail(log: &str) -> String {
	let lines: Vec<&str> = log.lines().collect();
	lines[lines.len().saturating_sub(60)..].join("\n")
}
