//! The embedded workers end to end on a development node: the solver (Bob), the verifier
//! (Charlie) and the whistleblower (Dave); Alice submits the MNIST MLP example from
//! polkadot.js. The verifier commits a forced-error secret and profiles the task, Bob
//! trains it with libtorch and serves its checkpoints, Charlie fetches and replays the
//! drawn segments with repops and posts verdicts, Dave replays them again, and the task
//! settles. The runs: everyone honest (every planck accounted for, nothing
//! challenged); a lazy verifier (challenged by Dave, loses the pinpoint game played by
//! the workers, slashed, its verdict void); a lazy solver (its proof rejected, slashed,
//! the task re-drawn to a second solver node and completed, Alice paying one round);
//! every verdict a forced error (caught by Dave, paid from the jackpot, the honest
//! solver paid in full); a solver node killed mid-training and restarted; a solver that
//! stops and never commits (slashed at its deadline, the task re-drawn and completed);
//! a spec whose data fails its checks (declined by the solver, nobody slashed); a solver
//! whose proof store fails verifiers (reported twice, rejected).

mod common;

use std::time::Duration;

use common::{free_port, repo_root, run_js, run_ok, tagged_json, Node};
use serde_json::Value;

/// A planck amount given as a decimal string.
fn planck(v: &Value) -> i128 {
	v.as_str().and_then(|s| s.parse().ok()).unwrap_or_else(|| panic!("an amount: {v}"))
}

/// A development node running all three workers, with short challenge windows and the
/// workers registered; `fault` makes its workers misbehave, `forced_percent` sets the
/// forced-error rate.
struct Setup {
	node: Node,
	ws: String,
	/// The finalized block after registration (where ledgers start).
	from: u64,
}

fn setup(fault: Option<&str>, forced_percent: Option<&str>) -> Setup {
	setup_with(Options { fault, forced_percent, ..Options::default() })
}

/// What a [`setup_with`] node and chain differ in.
#[derive(Default)]
struct Options<'a> {
	/// The node's roles (all three when empty).
	roles: &'a [&'a str],
	/// The solver's proof store, when the solver runs in another node.
	solver_store: Option<&'a str>,
	/// `--worker-fault`.
	fault: Option<&'a str>,
	/// The forced-error rate in percent.
	forced_percent: Option<&'a str>,
	/// More node arguments.
	node_args: &'a [&'a str],
	/// Blocks every training deadline starts with.
	min_training: Option<&'a str>,
}

/// `setup` with `o`'s differences.
fn setup_with(o: Options) -> Setup {
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
	let mut timing = vec!["--ws", ws.as_str(), "--challenge-period", "12"];
	if let Some(p) = o.forced_percent {
		timing.extend(["--forced-error-rate", p]);
	}
	if let Some(b) = o.min_training {
		timing.extend(["--min-training-period", b]);
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
fn submit_and_follow(s: &Setup) -> (Value, Value, String) {
	// The script exits non-zero for a task that failed: what matters is that it ended.
	let (_, stdout, stderr) = submit_example(&s.ws);
	let log = s.node.log();
	let ended = stdout.lines().any(|l| l.starts_with("OUTCOME "));
	assert!(ended, "the task did not end:\n{stdout}\n{stderr}\nnode log tail:\n{}", tail(&log));
	(tagged_json(&stdout, "RESULT "), tagged_json(&stdout, "OUTCOME "), stdout)
}

/// Alice submits the MNIST MLP example through `ws` and follows it: (ok, stdout, stderr).
fn submit_example(ws: &str) -> (bool, String, String) {
	submit_spec(ws, |_| {}, &[])
}

/// Alice submits the MNIST MLP example, changed by `edit`, through `ws` with `extra`
/// arguments and follows it: (ok, stdout, stderr).
fn submit_spec(ws: &str, edit: impl FnOnce(&mut Value), extra: &[&str]) -> (bool, String, String) {
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
fn ledger(s: &Setup, to: u64, who: &str) -> Value {
	run_ok(
		"ledger.js",
		&["--ws", &s.ws, "--from", &s.from.to_string(), "--to", &to.to_string(), "--who", who],
	)
	.0
}

/// (balance change, fees paid) of account `i` of a ledger.
fn account(ledger: &Value, i: usize) -> (i128, i128) {
	let a = &ledger["accounts"][i];
	(planck(&a["to"]) - planck(&a["from"]), planck(&a["fees"]))
}

#[test]
fn workers_train_verify_and_settle_a_task() {
	let s = setup(None, None);
	let (submitted, outcome, stdout) = submit_and_follow(&s);
	let log = s.node.log();
	assert_eq!(outcome["end"], "TaskCompleted", "{outcome}");
	for step in ["Profiled", "TaskAccepted", "ResultSubmitted", "VerifiersDrawn", "VerdictPosted"] {
		assert!(stdout.contains(&format!("tasks.{step}")), "no {step} event:\n{stdout}");
	}
	assert!(!stdout.contains("tasks.Challenged"), "an honest verdict was challenged:\n{stdout}");
	assert!(log.contains("solver: task 0 trained"), "{}", tail(&log));
	assert!(log.contains("verifier: task 0 segment"), "{}", tail(&log));
	assert!(log.contains("replay checks out"), "the whistleblower checked: {}", tail(&log));

	// The submitter fetches the model: read at the ResultSubmitted block (the settled task
	// has left storage), checked against the committed root, the file against its name.
	let at = stdout
		.lines()
		.find(|l| l.contains("tasks.ResultSubmitted"))
		.and_then(|l| l.strip_prefix('#')?.split(' ').next())
		.expect("the ResultSubmitted block");
	let out = std::env::temp_dir().join(format!("gensyn-model-{}.safetensors", std::process::id()));
	let out_arg = out.to_str().expect("utf-8 path");
	let (fetched, _) =
		run_ok("fetch-model.js", &["--ws", &s.ws, "--task", "0", "--at", at, "--out", out_arg]);
	let bytes = std::fs::read(&out).expect("the model file");
	let _ = std::fs::remove_file(&out);
	assert_eq!(fetched["bytes"].as_u64(), Some(bytes.len() as u64), "{fetched}");
	let name =
		format!("0x{}", gensyn_workers::hash::to_hex(&gensyn_workers::hash::blake2_256(&bytes)));
	assert_eq!(fetched["blob"], name.as_str(), "{fetched}");
	assert_eq!(fetched["step"], 252, "the last checkpoint: {fetched}");
	let root = log.split("checkpoints, root ").nth(1).and_then(|r| r.get(..66));
	assert_eq!(fetched["checkpointRoot"].as_str(), root, "the solver's committed root: {fetched}");
	// A block before the result has none to fetch.
	let (ok, stdout_early, _) =
		run_js("fetch-model.js", &["--ws", &s.ws, "--task", "0", "--at", "1"]);
	assert!(!ok && stdout_early.contains("TaskNotFound"), "{stdout_early}");

	// Money: Alice paid the task and every fee (and, as the only block author, received
	// every fee); Bob got the solver pay, Charlie the profiling segment and each verdict.
	let to = outcome["blockNumber"].as_u64().expect("block");
	let ledger = ledger(&s, to, "//Alice,//Bob,//Charlie,//Dave");
	let data = &outcome["data"];
	let (solver_paid, verifiers_paid, refunded) =
		(planck(&data["solverPaid"]), planck(&data["verifiersPaid"]), planck(&data["refunded"]));
	let escrow = planck(&submitted["escrow"]);
	let profile_pay = planck(&submitted["segmentPay"]);
	let (jackpot, treasury) = (planck(&submitted["jackpotCut"]), planck(&submitted["treasuryCut"]));
	// (A verdict whose verifier missed its reveal is voided unpaid: the events and the
	// node log say why.)
	assert!(
		solver_paid > 0 && verifiers_paid > 0,
		"{outcome}\n{}\nnode log tail:\n{}",
		stdout
			.lines()
			.filter(|l| l.contains("tasks.") || l.contains("jackpot."))
			.collect::<Vec<_>>()
			.join("\n"),
		tail(&log)
	);
	assert_eq!(
		escrow - refunded,
		solver_paid + verifiers_paid + profile_pay + jackpot + treasury,
		"the escrow paid exactly the solver, the verifier (profile and verdicts) and the cuts"
	);
	let fees_total = planck(&ledger["feesTotal"]);
	let (d_alice, fee_alice) = account(&ledger, 0);
	let (d_bob, fee_bob) = account(&ledger, 1);
	let (d_charlie, fee_charlie) = account(&ledger, 2);
	assert_eq!(account(&ledger, 3), (0, 0), "Dave found nothing to challenge");
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

/// Charlie passes without replaying; Dave challenges, the workers play the game on chain
/// and Charlie, unable to back his claim, concedes: slashed, his verdict void. The
/// segment is audited again by Eve (a second verifier node, registered once Charlie has
/// posted, so never bound to the task before), who replays it: the honest solver is paid
/// in full on a segment someone checked.
#[test]
fn a_lazy_verifier_is_challenged_loses_the_game_and_is_slashed() {
	let s = setup(Some("lazy-verifier"), Some("0"));
	let base =
		std::env::temp_dir().join(format!("gensyn-eve-{}-{}", std::process::id(), free_port()));
	let eve = second_node(&s, "eve", ("verifier", "gver", "//Eve"), &base, &[]);
	let ws = s.ws.clone();
	let follow = std::thread::spawn(move || submit_example(&ws));
	s.node.wait_until("Charlie's lazy pass", Duration::from_secs(600), |n| {
		n.log().contains("lazy pass")
	});
	register(&s.ws, "//Eve", "verifier", "http://127.0.0.1:9");
	let (_, stdout, stderr) = follow.join().expect("the follower");
	let (log, eve_log) = (s.node.log(), eve.log());
	let _ = std::fs::remove_dir_all(&base);
	assert!(stdout.lines().any(|l| l.starts_with("OUTCOME ")), "{stdout}\n{stderr}");
	let outcome = tagged_json(&stdout, "OUTCOME ");
	// The void verdict's segment, checked again by Eve, leaves the solver's proof standing.
	assert_eq!(outcome["end"], "TaskCompleted", "{outcome}\n{}", worker_lines(&log));
	assert!(stdout.contains("tasks.Challenged"), "Dave did not challenge:\n{stdout}");
	let resolved = stdout
		.lines()
		.find(|l| l.contains("tasks.DisputeResolved"))
		.unwrap_or_else(|| panic!("no DisputeResolved:\n{stdout}"));
	assert!(resolved.contains("\"challengerWon\":true"), "{resolved}");
	assert!(log.contains("game on segment"), "the workers played: {}", tail(&log));
	assert!(log.contains("conceding"), "the lazy verifier gave up: {}", tail(&log));
	assert!(stdout.contains("tasks.Reaudited"), "the segment was audited again:\n{stdout}");
	assert!(eve_log.contains("passed"), "Eve replayed it: {}", tail(&eve_log));
	// Dave is paid from Charlie's slash (more than his fees); Bob is paid in full.
	let to = outcome["blockNumber"].as_u64().expect("block");
	let ledger = ledger(&s, to, "//Bob,//Charlie,//Dave");
	let (d_dave, fee_dave) = account(&ledger, 2);
	assert!(fee_dave > 0 && d_dave > 0, "Dave: {ledger}");
	let (d_bob, fee_bob) = account(&ledger, 0);
	assert_eq!(d_bob, planck(&outcome["data"]["solverPaid"]) - fee_bob, "Bob: {ledger}");
}

/// A second node `name` (on disk at `base`, synced from the first) running one worker
/// `role` (`solver`, `verifier`) whose key of `key_type` is `suri`; `extra` is added to
/// its arguments.
fn second_node(
	s: &Setup,
	name: &str,
	(role, key_type, suri): (&str, &str, &str),
	base: &std::path::Path,
	extra: &[&str],
) -> Node {
	let base_arg = base.to_str().expect("utf-8 path");
	let inserted = std::process::Command::new(common::node_bin())
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

/// A second node whose solver signs as Ferdie, with its proof store on `store`.
fn ferdie_solver(s: &Setup, store: &str, base: &std::path::Path) -> Node {
	let extra = ["--proof-store-listen", store];
	second_node(s, "ferdie", ("solver", "gsol", "//Ferdie"), base, &extra)
}

/// Registers `seed` as a solver whose proof store is at `store`.
fn register_solver(s: &Setup, seed: &str, store: &str) {
	register(&s.ws, seed, "solver", &format!("http://{store}"));
}

/// Registers `seed` in `role` through `ws`, with the bond and capability every test
/// worker has.
fn register(ws: &str, seed: &str, role: &str, endpoint: &str) {
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
fn redrawn_to_ferdie(s: &Setup, bob_marker: &str, edit: fn(&mut Value)) -> String {
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

/// Bob trains on the wrong data order; Charlie's replay fails the segment, Bob is
/// slashed, and of his slash first what Charlie's verdicts cost goes back into Alice's
/// escrow; the task is offered to Ferdie (a second solver node, registered once Bob
/// trains so that Bob is drawn first), whose proof passes. Alice pays one round. The
/// task is in Exact mode: there a failing verdict is a replay hash a game could check,
/// while in Threshold mode a second verifier would have to fail the segment too, and
/// Charlie is the only one.
#[test]
fn a_lazy_solver_is_slashed_and_the_task_redrawn_to_an_honest_solver() {
	let s = setup(Some("lazy-solver"), Some("0"));
	let exact = |spec: &mut Value| spec["verification"]["mode"] = Value::String("exact".into());
	let stdout = redrawn_to_ferdie(&s, "training on the wrong data order", exact);
	let log = s.node.log();
	let submitted = tagged_json(&stdout, "RESULT ");
	let outcome = tagged_json(&stdout, "OUTCOME ");
	assert_eq!(outcome["end"], "TaskCompleted", "{outcome}\n{}", tail(&log));
	assert!(log.contains("FAILED"), "Charlie's replay failed Bob's segment: {}", tail(&log));
	let rejected = stdout
		.lines()
		.find(|l| l.contains("tasks.ProofRejected"))
		.unwrap_or_else(|| panic!("no ProofRejected:\n{stdout}"));
	// Bob's failing verdict is right: Dave's replay agrees and nothing is challenged.
	assert!(!stdout.contains("tasks.Challenged"), "{stdout}");

	let to = outcome["blockNumber"].as_u64().expect("block");
	let ledger = ledger(&s, to, "//Alice,//Bob,//Ferdie");
	const GSN: i128 = 1_000_000_000_000;
	let data = &outcome["data"];
	let (solver_paid, verifiers_paid, refunded) =
		(planck(&data["solverPaid"]), planck(&data["verifiersPaid"]), planck(&data["refunded"]));
	// Round 1's verdicts were paid back from Bob's slash: as much as round 2's.
	let compensated: Value = serde_json::from_str(
		rejected.split_once(' ').and_then(|(_, r)| r.split_once(' ')).expect("event").1,
	)
	.expect("event JSON");
	assert_eq!(planck(&compensated["compensated"]), verifiers_paid, "{rejected}");
	let (d_bob, fee_bob) = account(&ledger, 1);
	assert_eq!(d_bob, -100 * GSN - fee_bob, "Bob slashed: {ledger}");
	let (d_ferdie, fee_ferdie) = account(&ledger, 2);
	assert_eq!(d_ferdie, solver_paid - fee_ferdie, "Ferdie paid: {ledger}");
	// Alice paid one round: round 2's verdicts, the solver and the cuts (no profile in
	// Exact mode).
	let escrow = planck(&submitted["escrow"]);
	let cuts = planck(&submitted["jackpotCut"]) + planck(&submitted["treasuryCut"]);
	assert_eq!(escrow - refunded, verifiers_paid + solver_paid + cuts, "{outcome}");
	let (d_alice, fee_alice) = account(&ledger, 0);
	let fees_total = planck(&ledger["feesTotal"]);
	assert_eq!(d_alice, -(escrow - refunded) - fee_alice + fees_total, "Alice: {ledger}");
}

/// Bob stops training at step 120 and never commits (dead, as far as the chain can
/// tell); at his training deadline he is slashed and the task is re-drawn to Ferdie (a
/// second solver node, registered once Bob stopped), who trains it and is paid.
#[test]
fn a_dead_solvers_task_is_redrawn_and_completed() {
	let s = setup_with(Options {
		forced_percent: Some("0"),
		node_args: &["--worker-stop-after", "120"],
		min_training: Some("20"),
		..Options::default()
	});
	let stdout = redrawn_to_ferdie(&s, "training stopped at step", |_| {});
	let outcome = tagged_json(&stdout, "OUTCOME ");
	assert_eq!(outcome["end"], "TaskCompleted", "{outcome}");
	let accepted = stdout.lines().filter(|l| l.contains("tasks.TaskAccepted")).count();
	assert_eq!(accepted, 2, "Bob, then Ferdie:\n{stdout}");
	let to = outcome["blockNumber"].as_u64().expect("block");
	let ledger = ledger(&s, to, "//Bob,//Ferdie");
	const GSN: i128 = 1_000_000_000_000;
	let (d_bob, fee_bob) = account(&ledger, 0);
	assert_eq!(d_bob, -20 * GSN - fee_bob, "Bob slashed for the missed result: {ledger}");
	let (d_ferdie, fee_ferdie) = account(&ledger, 1);
	assert_eq!(d_ferdie, planck(&outcome["data"]["solverPaid"]) - fee_ferdie, "{ledger}");
}

/// Alice's spec commits to a chunk root that is not her data's (A4(b)): no solver could
/// answer a dispute that reaches a data value. Bob, the only solver, checks the data,
/// declines the task instead of letting his offer lapse, and is not drawn for it again;
/// Alice cancels the waiting task. Nobody is slashed: Bob pays his fee and nothing else,
/// and Alice gets her escrow back.
#[test]
fn a_task_whose_data_fails_its_checks_is_declined_and_nobody_slashed() {
	let s = setup_with(Options { roles: &["--solver"], ..Options::default() });
	let ws = s.ws.clone();
	let bogus = |spec: &mut Value| {
		spec["verification"]["mode"] = Value::String("exact".into());
		spec["data"]["chunk_root"] = Value::String(format!("0x{}", "11".repeat(32)));
	};
	let follow = std::thread::spawn(move || submit_spec(&ws, bogus, &["--skip-data-check"]));
	s.node.wait_until("Bob declines", Duration::from_secs(300), |n| {
		n.log().contains("solver: declining task 0")
	});
	let (ok, stdout, stderr) = (|| {
		for _ in 0..60 {
			let (list, _) = run_ok("list-tasks.js", &["--ws", &s.ws]);
			if list["tasks"][0]["phase"] == "Queued" {
				return run_js("cancel-task.js", &["--ws", &s.ws, "--id", "0"]);
			}
			std::thread::sleep(Duration::from_secs(2));
		}
		panic!("the declined task never waited for a solver: {}", worker_lines(&s.node.log()))
	})();
	assert!(ok, "cancel: {stdout}\n{stderr}");
	let (_, stdout, stderr) = follow.join().expect("the follower");
	let outcome = tagged_json(&stdout, "OUTCOME ");
	assert_eq!(outcome["end"], "TaskCancelled", "{outcome}\n{stdout}\n{stderr}");
	assert!(stdout.contains("tasks.TaskDeclined"), "Bob did not decline:\n{stdout}");
	assert!(!stdout.contains("tasks.TaskAccepted"), "Bob accepted:\n{stdout}");
	let to = outcome["blockNumber"].as_u64().expect("block");
	let ledger = ledger(&s, to, "//Alice,//Bob");
	let (bob, bob_fees) = account(&ledger, 1);
	assert!(bob_fees > 0 && bob == -bob_fees, "Bob lost nothing but his fee: {ledger}");
	// Alice authors every block and collects the fees, hers included.
	let (alice, alice_fees) = account(&ledger, 0);
	assert_eq!(
		alice,
		planck(&ledger["feesTotal"]) - alice_fees,
		"Alice got her escrow back: {ledger}"
	);
	assert_eq!(ledger["issuanceFrom"], ledger["issuanceTo"], "nothing slashed: {ledger}");
}

/// A Threshold task names data nobody can fetch (a closed port on 127.0.0.1). Charlie,
/// drawn to profile it, declines instead of letting his profile lapse (which is slashed)
/// and is not drawn for it again; Alice cancels the waiting task. Charlie pays his fee
/// and nothing else, and nothing is slashed.
#[test]
fn a_task_whose_data_no_profiler_can_fetch_is_declined_unslashed() {
	let s = setup_with(Options { roles: &["--verifier"], ..Options::default() });
	let ws = s.ws.clone();
	let unreachable = format!("http://127.0.0.1:{}/train.idx", free_port());
	let edit = move |spec: &mut Value| {
		spec["verification"]["mode"] = Value::String("threshold".into());
		spec["data"]["uri"] = Value::String(unreachable);
	};
	let follow = std::thread::spawn(move || submit_spec(&ws, edit, &["--skip-data-check"]));
	s.node.wait_until("Charlie declines", Duration::from_secs(300), |n| {
		n.log().contains("verifier: submitted Profile(0)")
	});
	assert!(s.node.log().contains("verifier: declining to profile task 0"));
	// A few blocks for the decline to be included before the cancel.
	let sent = s.node.best_number().unwrap_or(0);
	s.node.wait_until("the decline is in", Duration::from_secs(60), |n| {
		n.best_number().is_some_and(|b| b >= sent + 3)
	});
	let (ok, stdout, stderr) = run_js("cancel-task.js", &["--ws", &s.ws, "--id", "0"]);
	assert!(ok, "cancel: {stdout}\n{stderr}");
	let (_, stdout, stderr) = follow.join().expect("the follower");
	let outcome = tagged_json(&stdout, "OUTCOME ");
	assert_eq!(outcome["end"], "TaskCancelled", "{outcome}\n{stdout}\n{stderr}");
	assert!(stdout.contains("tasks.ProfileDeclined"), "Charlie did not decline:\n{stdout}");
	assert!(!stdout.contains("tasks.Profiled"), "Charlie profiled:\n{stdout}");
	let to = outcome["blockNumber"].as_u64().expect("block");
	let ledger = ledger(&s, to, "//Alice,//Charlie");
	let (charlie, charlie_fees) = account(&ledger, 1);
	assert!(charlie_fees > 0 && charlie == -charlie_fees, "Charlie lost only fees: {ledger}");
	assert_eq!(ledger["issuanceFrom"], ledger["issuanceTo"], "nothing slashed: {ledger}");
}

/// The solver runs alone in a second node (on disk, synced from the first); it is killed
/// mid-training (its training stops at step 120 under a test flag), started again on the
/// same base path, resumes the run from its last checkpoint (step 100), and the task
/// completes.
#[test]
fn a_killed_solver_restarts_and_resumes_from_its_last_checkpoint() {
	let store = format!("127.0.0.1:{}", free_port());
	let s = setup_with(Options {
		roles: &["--verifier", "--whistleblower"],
		solver_store: Some(&store),
		forced_percent: Some("0"),
		..Options::default()
	});
	let base =
		std::env::temp_dir().join(format!("gensyn-solver-{}-{}", std::process::id(), free_port()));
	let args = solver_args(&s, &store, &base);
	// The first run stops training at step 120 (checkpoints 0, 50, 100 written) and is
	// killed there; the second runs on.
	let mut first = args.clone();
	first.extend(["--worker-stop-after".to_string(), "120".to_string()]);
	let mut solver = Node::start("solver", &first);
	let ws = s.ws.clone();
	let follow = std::thread::spawn(move || submit_example(&ws));
	solver.wait_until("training stopped", Duration::from_secs(600), |n| {
		n.log().contains("training stopped at step")
	});
	solver.kill();
	let solver = Node::start("solver", &args);
	let (ok, stdout, stderr) = follow.join().expect("the follower");
	let log = solver.log();
	let _ = std::fs::remove_dir_all(&base);
	assert!(ok, "the task did not end:\n{stdout}\n{stderr}\nsolver log:\n{}", tail(&log));
	let outcome = tagged_json(&stdout, "OUTCOME ");
	assert_eq!(outcome["end"], "TaskCompleted", "{outcome}");
	let resumed: u64 = log
		.lines()
		.find_map(|l| l.split("resumed from step ").nth(1))
		.and_then(|r| r.split(|c: char| !c.is_ascii_digit()).next()?.parse().ok())
		.unwrap_or_else(|| panic!("no resume in the solver's log:\n{}", tail(&log)));
	assert_eq!(resumed, 100, "resumed from the last checkpoint before step 120");
}

/// The arguments of a node on disk at `base` running Bob's solver alone, with its proof
/// store on `store`, synced from the first node.
fn solver_args(s: &Setup, store: &str, base: &std::path::Path) -> Vec<String> {
	let boot = format!("/ip4/127.0.0.1/tcp/{}/p2p/{}", s.node.p2p_port, s.node.peer_id());
	let base = base.to_str().expect("utf-8 path");
	["--chain", "dev", "--base-path", base, "--solver", "--worker-threads", "1", "--worker-cpu"]
		.into_iter()
		.chain(["--allow-file-data", "--proof-store-listen", store, "--bootnodes", &boot])
		.map(String::from)
		.collect()
}

/// Alice serves her data over HTTP until the solver (Bob, in a second node) has it, then
/// stops (her server answers 404). Charlie cannot get it from her and replays from the
/// copy Bob's store serves beside his checkpoints: the task completes and nobody is
/// slashed. (Left without the data, Charlie would have stayed silent and been slashed.)
#[test]
fn a_verifier_replays_from_the_solvers_copy_when_the_submitter_stops_serving() {
	use gensyn_workers::proof_store::{remote, serve, ProofStore};
	let store = format!("127.0.0.1:{}", free_port());
	let s = setup_with(Options {
		roles: &["--verifier", "--whistleblower"],
		solver_store: Some(&store),
		forced_percent: Some("0"),
		..Options::default()
	});
	let tmp = |what: &str| {
		std::env::temp_dir().join(format!("gensyn-{what}-{}-{}", std::process::id(), free_port()))
	};
	// Alice's data host: a store of her own, serving the file under its hash.
	let host = ProofStore::open(tmp("host")).expect("a store");
	let file = std::fs::read(repo_root().join(".data/mnist/train.idx")).expect("the data");
	let name = host.put(&file).expect("the data stored");
	let server = serve::serve(host.clone(), "127.0.0.1:0").expect("the data served");
	let uri = remote::blob_url(&server.url(), &name);
	let base = tmp("solver");
	let solver = Node::start("solver", &solver_args(&s, &store, &base));
	let ws = s.ws.clone();
	let edit = move |spec: &mut Value| {
		// Exact mode: no profiler fetches the data before the solver does.
		spec["verification"]["mode"] = Value::String("exact".into());
		spec["data"]["uri"] = Value::String(uri);
	};
	let follow = std::thread::spawn(move || submit_spec(&ws, edit, &[]));
	solver.wait_until("Bob has the data", Duration::from_secs(600), |n| {
		n.log().contains("its data checks out, accepting")
	});
	std::fs::remove_file(host.blob_path(&name)).expect("Alice stops serving");
	let (ok, stdout, stderr) = follow.join().expect("the follower");
	let (log, solver_log) = (s.node.log(), solver.log());
	let _ = std::fs::remove_dir_all(&base);
	let _ = std::fs::remove_dir_all(host.root());
	assert!(
		ok,
		"the task did not complete:\n{stdout}\n{stderr}\nworkers:\n{}\nsolver:\n{}",
		worker_lines(&log),
		tail(&solver_log)
	);
	let outcome = tagged_json(&stdout, "OUTCOME ");
	assert_eq!(outcome["end"], "TaskCompleted", "{outcome}");
	assert!(log.contains("replaying from the solver's copy"), "{}", worker_lines(&log));
	assert!(!stdout.contains("tasks.StoreUnavailable"), "nothing reported:\n{stdout}");
	let to = outcome["blockNumber"].as_u64().expect("block");
	let ledger = ledger(&s, to, "//Bob,//Charlie");
	let (d_bob, fee_bob) = account(&ledger, 0);
	assert_eq!(d_bob, planck(&outcome["data"]["solverPaid"]) - fee_bob, "Bob: {ledger}");
	let (d_charlie, fee_charlie) = account(&ledger, 1);
	let verifiers_paid = planck(&outcome["data"]["verifiersPaid"]);
	assert!(verifiers_paid > 0, "{outcome}");
	assert_eq!(d_charlie, verifiers_paid - fee_charlie, "Charlie paid, unslashed: {ledger}");
	assert_eq!(ledger["issuanceFrom"], ledger["issuanceTo"], "nothing slashed: {ledger}");
}

/// Every segment is forced for Charlie: he posts a failing verdict, Dave catches it and is
/// paid from the jackpot. The forced segment was checked by nobody, so it is audited
/// again by Eve (a second verifier node, registered once Charlie posted; a re-audit is
/// never forced), whose pass lets Bob be paid in full.
#[test]
fn a_forced_error_is_caught_and_the_jackpot_pays_the_whistleblower() {
	let s = setup(None, Some("100"));
	// Something in the pot to pay from (a fresh chain's pot holds only its deposit).
	run_ok("transfer.js", &["--ws", &s.ws, "--to", "jackpot", "--amount", "1000000000000000"]);
	let base =
		std::env::temp_dir().join(format!("gensyn-eve-{}-{}", std::process::id(), free_port()));
	let eve = second_node(&s, "eve", ("verifier", "gver", "//Eve"), &base, &[]);
	let ws = s.ws.clone();
	let follow = std::thread::spawn(move || submit_example(&ws));
	let forced = "forced error: posting a failing verdict";
	s.node.wait_until("Charlie's forced error", Duration::from_secs(600), |n| {
		n.log().contains(forced)
	});
	register(&s.ws, "//Eve", "verifier", "http://127.0.0.1:9");
	let (_, stdout, stderr) = follow.join().expect("the follower");
	let (log, eve_log) = (s.node.log(), eve.log());
	let _ = std::fs::remove_dir_all(&base);
	assert!(stdout.lines().any(|l| l.starts_with("OUTCOME ")), "{stdout}\n{stderr}");
	let (submitted, outcome) = (tagged_json(&stdout, "RESULT "), tagged_json(&stdout, "OUTCOME "));
	assert_eq!(outcome["end"], "TaskCompleted", "{outcome}\n{}", worker_lines(&log));
	assert!(stdout.contains("tasks.Challenged"), "Dave did not challenge:\n{stdout}");
	assert!(stdout.contains("\"challengerWon\":true"), "{stdout}");
	assert!(stdout.contains("tasks.Reaudited"), "the forced segment was audited again:\n{stdout}");
	assert!(eve_log.contains("passed"), "Eve replayed it: {}", tail(&eve_log));
	let to = outcome["blockNumber"].as_u64().expect("block");
	let ledger = ledger(&s, to, "//Bob,//Charlie,//Dave,jackpot");
	// The catch: a tenth of the pot's spendable balance, capped at 100 GSN (MaxCatch),
	// to Dave; the pot got the 1,000 GSN top-up and the task's jackpot cut.
	const GSN: i128 = 1_000_000_000_000;
	let (d_dave, fee_dave) = account(&ledger, 2);
	let (d_pot, _) = account(&ledger, 3);
	assert_eq!(d_dave + fee_dave, 100 * GSN, "Dave caught the forced error: {ledger}");
	let cut = planck(&submitted["jackpotCut"]);
	assert_eq!(d_pot, 1_000 * GSN + cut - 100 * GSN, "paid from the pot: {ledger}");
	// The honest solver is paid in full.
	let (d_bob, fee_bob) = account(&ledger, 0);
	assert_eq!(d_bob, planck(&outcome["data"]["solverPaid"]) - fee_bob, "Bob: {ledger}");
}

/// The workers' lines of a node log (verdicts with their distances, duties, moves).
fn worker_lines(log: &str) -> String {
	log.lines()
		.filter(|l| l.contains("gensyn-worker") || l.contains("verifier:") || l.contains("solver:"))
		.collect::<Vec<_>>()
		.join("\n")
}

/// The last lines of a log.
fn tail(log: &str) -> String {
	let lines: Vec<&str> = log.lines().collect();
	lines[lines.len().saturating_sub(60)..].join("\n")
}

/// Bob's proof store serves nothing. Charlie, the only verifier when the task is drawn,
/// reports his segments unavailable (neither paid nor slashed); at settlement one goes to
/// Eve (a second verifier node, registered once Charlie found the store empty), whose
/// report makes two verifiers drawn independently that could not fetch the proof: Bob is
/// rejected and slashed, and with no other solver the task fails and Alice is refunded
/// all but the profile (paid to Charlie).
#[test]
fn a_solver_withholding_its_proof_is_reported_twice_and_rejected() {
	proof_not_served_is_reported_twice_and_rejected("withholding-solver");
}

/// Bob commits checkpoint hashes that are not his checkpoints' and serves the real
/// checkpoints: no verifier can replay from a committed state, and none posts a verdict
/// it could not defend in a game (a failing one would name a replay root it cannot
/// back). Both report the segment unavailable, as for a store that serves nothing: Bob
/// is rejected and slashed, no verifier is slashed.
#[test]
fn a_solver_serving_checkpoints_that_mismatch_its_commitment_is_rejected() {
	proof_not_served_is_reported_twice_and_rejected("mismatched-solver");
}

/// Bob's store does not serve his committed proof (`fault`); see the two tests above.
fn proof_not_served_is_reported_twice_and_rejected(fault: &str) {
	let s = setup_with(Options {
		fault: Some(fault),
		forced_percent: Some("0"),
		node_args: &["--unavailable-after", "1"],
		..Options::default()
	});
	let base =
		std::env::temp_dir().join(format!("gensyn-eve-{}-{}", std::process::id(), free_port()));
	let eve_args = ["--unavailable-after", "0"];
	let eve = second_node(&s, "eve", ("verifier", "gver", "//Eve"), &base, &eve_args);
	let ws = s.ws.clone();
	let follow = std::thread::spawn(move || submit_example(&ws));
	let empty = "the solver's store does not serve segment";
	s.node.wait_until("Charlie finds the store empty", Duration::from_secs(600), |n| {
		n.log().contains(empty)
	});
	register(&s.ws, "//Eve", "verifier", "http://127.0.0.1:9");
	let (_, stdout, stderr) = follow.join().expect("the follower");
	let (log, eve_log) = (s.node.log(), eve.log());
	let _ = std::fs::remove_dir_all(&base);
	let ended = stdout.lines().any(|l| l.starts_with("OUTCOME "));
	assert!(ended, "the task did not end:\n{stdout}\n{stderr}\nworkers:\n{}", worker_lines(&log));
	let submitted = tagged_json(&stdout, "RESULT ");
	let outcome = tagged_json(&stdout, "OUTCOME ");
	assert_eq!(outcome["end"], "TaskFailed", "{outcome}\n{}", worker_lines(&log));
	assert!(stdout.contains("ProofRejected"), "{stdout}");
	let reports = stdout.lines().filter(|l| l.contains("tasks.StoreUnavailable")).count();
	let audits = submitted["audits"].as_u64().expect("audits") as usize;
	assert_eq!(reports, audits + 1, "Charlie's reports and Eve's:\n{stdout}");
	let reaudits = stdout.lines().filter(|l| l.contains("tasks.Reaudited")).count();
	assert_eq!(reaudits, 1, "{stdout}");
	assert!(!stdout.contains("tasks.VerdictPosted"), "nothing was judged:\n{stdout}");
	assert!(eve_log.contains("reporting it unavailable"), "{}", tail(&eve_log));

	let to = outcome["blockNumber"].as_u64().expect("block");
	let ledger = ledger(&s, to, "//Alice,//Bob,//Charlie,//Eve");
	const GSN: i128 = 1_000_000_000_000;
	let (d_bob, fee_bob) = account(&ledger, 1);
	assert_eq!(d_bob, -100 * GSN - fee_bob, "Bob slashed: {ledger}");
	// A report is neither paid nor slashed; Charlie was paid for profiling the task.
	let profile_pay = planck(&submitted["segmentPay"]);
	let (d_charlie, fee_charlie) = account(&ledger, 2);
	assert_eq!(d_charlie, profile_pay - fee_charlie, "Charlie: {ledger}");
	let (d_eve, fee_eve) = account(&ledger, 3);
	assert_eq!(d_eve, -fee_eve, "Eve: {ledger}");
	// Alice paid the profile only (Alice authors the blocks: the fees come to her).
	let escrow = planck(&submitted["escrow"]);
	let refunded = planck(&outcome["data"]["refunded"]);
	assert_eq!(escrow - refunded, profile_pay, "{outcome}");
	let (d_alice, fee_alice) = account(&ledger, 0);
	let fees_total = planck(&ledger["feesTotal"]);
	assert_eq!(d_alice, -(escrow - refunded) - fee_alice + fees_total, "Alice: {ledger}");
}
