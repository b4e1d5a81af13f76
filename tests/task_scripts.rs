//! End to end: the polkadot.js task scripts (scripts/js) against a real `gensyn-node --dev`.
//!
//! register.js bonds Bob as a solver; quote.js prices examples/mnist-mlp.json from the
//! chain, and submit-task.js submits it as Alice for exactly that: the escrow it reports is
//! exactly what Alice's escrow hold grew by, and exactly the price of the work estimate
//! under the runtime's configuration; list-tasks.js shows
//! the task; a spec whose second `Linear` layer has the wrong `in_features` is refused with
//! `tasks.SpecLinearInputMismatch` (by the quote too) and nothing is held; the quote refuses
//! examples/charlm-transformer.json as `tasks.SpecNotDisputable`, and a fault in it by its
//! own name; a spec with an unknown field, an
//! unreachable data URI (`DataUnreachable`) or data that is not what its hash says
//! (`DataHashMismatch`) never leaves the client; cancel-task.js refunds the escrow in
//! full; and `submit-task.js --follow` sees Bob drawn for an Exact-mode task (once Charlie
//! registers as a verifier who could check it) and follows it to its cancellation.

mod common;

use common::{run_ok, tagged_json, Node};
use serde_json::Value;
use std::{
	io::{BufRead, BufReader},
	path::PathBuf,
	process::{Child, Command, Stdio},
	sync::mpsc,
	time::Duration,
};

/// One token (12 decimals).
const UNIT: u128 = 1_000_000_000_000;
/// `MILLI_UNIT`: one thousandth of a token.
const MILLI_UNIT: u128 = UNIT / 1_000;

// The pricing in runtime/src/configs/tasks.rs.
/// `PricePerMegagas`: training, per started million gas.
const PRICE_PER_MEGAGAS: u128 = MILLI_UNIT;
/// `VerifyPricePerMegagas`: verification replay, per started million gas.
const VERIFY_PRICE_PER_MEGAGAS: u128 = 2 * MILLI_UNIT;
/// `JackpotCut` and `TreasuryCut`, percent of the solver pay, held on top of it.
const JACKPOT_CUT_PERCENT: u128 = 5;
const TREASURY_CUT_PERCENT: u128 = 2;
/// `MaxAuditSegments`.
const MAX_AUDIT_SEGMENTS: u64 = 48;
/// `pallet_gensyn_tasks::PROFILERS`: profiles a Threshold task's escrow holds.
const PROFILERS: u128 = 3;

/// A balance field of a RESULT (decimal string).
fn amount(result: &Value, name: &str) -> u128 {
	result[name]
		.as_str()
		.and_then(|s| s.parse().ok())
		.unwrap_or_else(|| panic!("{name} in {result}"))
}

/// The escrow `pallet-gensyn-tasks` holds for `spec` given the work estimate `gas` the
/// chain reported: solver pay (per started megagas), one segment's verification pay per
/// audited segment (plus one for each of three profilers in Threshold mode), and the jackpot and
/// treasury cuts on top. Also checks that `gas` is a whole number of steps.
fn expected_escrow(spec: &Value, gas: u64) -> u128 {
	let get = |a: &str, b: &str| spec[a][b].as_u64().unwrap_or_else(|| panic!("{a}.{b}"));
	let (samples, batch) = (get("data", "samples"), get("training", "batch_size"));
	let (epochs, k) = (get("training", "epochs"), get("training", "checkpoint_interval"));
	let fraction = get("verification", "audit_fraction");
	let threshold = spec["verification"]["mode"] == "threshold";
	let steps = epochs * samples.div_ceil(batch);
	assert_eq!(gas % steps, 0, "the estimate is per-step gas x {steps} steps: {gas}");
	let per_step = gas / steps;
	let segments = steps.div_ceil(k);
	let audits =
		(segments * fraction).div_ceil(1_000_000).clamp(1, MAX_AUDIT_SEGMENTS).min(segments);
	let solver_pay = u128::from(gas.div_ceil(1_000_000)) * PRICE_PER_MEGAGAS;
	let segment_pay =
		u128::from((per_step * k.min(steps)).div_ceil(1_000_000)) * VERIFY_PRICE_PER_MEGAGAS;
	// Exact here: the solver pay is a whole number of milli-tokens, so Perbill rounds nothing.
	let cuts = solver_pay * (JACKPOT_CUT_PERCENT + TREASURY_CUT_PERCENT) / 100;
	let paid_segments = u128::from(audits) + PROFILERS * u128::from(threshold);
	solver_pay + cuts + paid_segments * segment_pay
}

/// A task spec file in a private temp directory, removed with it.
struct TempSpecs(PathBuf);

impl TempSpecs {
	fn new() -> Self {
		let dir = std::env::temp_dir().join(format!("gensyn-task-scripts-{}", std::process::id()));
		std::fs::create_dir_all(&dir).expect("temp dir");
		TempSpecs(dir)
	}

	/// Writes `spec` as `name` and returns its path as text.
	fn write(&self, name: &str, spec: &Value) -> String {
		let path = self.0.join(name);
		std::fs::write(&path, serde_json::to_string_pretty(spec).expect("JSON")).expect("write");
		path.to_string_lossy().into_owned()
	}
}

impl Drop for TempSpecs {
	fn drop(&mut self) {
		let _ = std::fs::remove_dir_all(&self.0);
	}
}

/// A script running in the background (killed, by its own handle, when dropped), whose
/// stdout lines arrive on a channel.
struct Background {
	child: Child,
	lines: mpsc::Receiver<String>,
	seen: String,
}

impl Background {
	fn start(script: &str, args: &[&str]) -> Self {
		let dir = common::repo_root().join("scripts/js");
		let mut child = Command::new("node")
			.arg(dir.join(script))
			.args(args)
			.current_dir(&dir)
			.stdin(Stdio::null())
			.stdout(Stdio::piped())
			.stderr(Stdio::inherit())
			.spawn()
			.expect("node (Node.js) runs");
		let stdout = child.stdout.take().expect("stdout piped");
		let (tx, lines) = mpsc::channel();
		std::thread::spawn(move || {
			for line in BufReader::new(stdout).lines().map_while(Result::ok) {
				if tx.send(line).is_err() {
					break;
				}
			}
		});
		Background { child, lines, seen: String::new() }
	}

	/// Waits for a stdout line starting with `prefix`; returns it.
	fn wait_line(&mut self, prefix: &str, timeout: Duration) -> String {
		let deadline = std::time::Instant::now() + timeout;
		loop {
			let left = deadline.saturating_duration_since(std::time::Instant::now());
			match self.lines.recv_timeout(left) {
				Ok(line) => {
					self.seen.push_str(&line);
					self.seen.push('\n');
					if line.starts_with(prefix) {
						return line;
					}
				}
				Err(_) => panic!("no line starting with {prefix:?} in time; got:\n{}", self.seen),
			}
		}
	}
}

impl Drop for Background {
	fn drop(&mut self) {
		let _ = self.child.kill();
		let _ = self.child.wait();
	}
}

fn spec_path(name: &str) -> String {
	let path: PathBuf = common::repo_root().join("examples").join(name);
	assert!(path.exists(), "{} is missing", path.display());
	path.to_string_lossy().into_owned()
}

#[test]
fn task_scripts_register_submit_list_refuse_and_cancel() {
	let node = Node::start("dev", &["--dev", "--tmp"]);
	node.wait_until("block #1 finalized", Duration::from_secs(120), |n| {
		n.finalized_number().is_some_and(|f| f >= 1)
	});
	let ws = node.ws_url();
	let example = spec_path("mnist-mlp.json");
	let spec: Value =
		serde_json::from_str(&std::fs::read_to_string(&example).expect("read")).expect("JSON");
	let specs = TempSpecs::new();

	// Bob bonds 100 tokens as a CPU solver with room for the MLP.
	let (reg, _) = run_ok(
		"register.js",
		&[
			"--ws",
			&ws,
			"--seed",
			"//Bob",
			"--role",
			"solver",
			"--bond",
			"100",
			"--device",
			"cpu",
			"--memory-mib",
			"8192",
			"--mgas-per-sec",
			"500",
			"--endpoint",
			"http://127.0.0.1:8700",
		],
	);
	let bob = reg["who"].as_str().expect("who").to_string();
	assert_eq!(reg["role"], "Solver", "{reg}");
	assert_eq!(amount(&reg, "bond"), 100 * UNIT, "{reg}");
	assert_eq!(amount(&reg, "heldAfter") - amount(&reg, "heldBefore"), 100 * UNIT, "{reg}");
	assert_eq!(reg["active"], true, "Bob is drawable: {reg}");

	// quote.js asks the chain what the MNIST MLP costs, holding nothing.
	let (quote, _) = run_ok("quote.js", &["--ws", &ws, "--spec", &example]);
	assert_eq!(quote["ok"], true, "{quote}");
	// One bond unit per started 25 tokens of the solver's pay.
	let unit = 25 * UNIT;
	let units = amount(&quote, "solverPay").div_ceil(unit).max(1);
	assert_eq!(quote["bondUnits"].as_u64().map(u128::from), Some(units), "{quote}");

	// Alice submits the MNIST MLP: the escrow is what her hold grew by, and the price of
	// the work estimate.
	let (sub, stdout) =
		run_ok("submit-task.js", &["--ws", &ws, "--seed", "//Alice", "--spec", &example]);
	// The quote was the submission's price, part by part.
	for part in ["escrow", "gas", "solverPay", "segmentPay", "jackpotCut", "treasuryCut"] {
		assert_eq!(quote[part], sub[part], "{part}: quote {quote}, submitted {sub}");
	}
	for part in ["audits", "memoryMib", "checkpoints"] {
		assert_eq!(quote[part], sub[part], "{part}: quote {quote}, submitted {sub}");
	}
	assert_eq!(sub["ok"], true, "{sub}");
	let id = sub["task"].as_u64().expect("task id");
	let escrow = amount(&sub, "escrow");
	let gas: u64 = amount(&sub, "gas").try_into().expect("gas fits u64");
	assert!(escrow > 0 && gas > 0, "{sub}");
	assert!(stdout.contains(&format!("tasks.TaskSubmitted {{\"id\":\"{id}\"")), "{stdout}");
	assert_eq!(
		amount(&sub, "heldAfter") - amount(&sub, "heldBefore"),
		escrow,
		"escrow hold: {sub}"
	);
	assert_eq!(
		amount(&sub, "reservedAfter") - amount(&sub, "reservedBefore"),
		escrow,
		"all of Alice's reserved balance: {sub}"
	);
	assert_eq!(escrow, expected_escrow(&spec, gas), "escrow = estimate x price: {sub}");
	assert_eq!(
		amount(&sub, "solverPay")
			+ amount(&sub, "jackpotCut")
			+ amount(&sub, "treasuryCut")
			+ (amount(&sub, "segmentPay")
				* (u128::from(sub["audits"].as_u64().unwrap_or(0)) + PROFILERS)),
		escrow,
		"the task's breakdown adds up (three profiles in Threshold mode): {sub}"
	);
	// Threshold mode: the task waits for a profiler (no verifier is registered), so Bob
	// is not drawn yet.
	assert_eq!(sub["phase"], "Profiling", "{sub}");

	// list-tasks.js shows it with its owner and escrow.
	let (list, _) = run_ok("list-tasks.js", &["--ws", &ws]);
	let tasks = list["tasks"].as_array().expect("tasks");
	let listed =
		tasks.iter().find(|t| t["id"] == id).unwrap_or_else(|| panic!("task {id} in {list}"));
	assert_eq!(listed["owner"], sub["owner"], "{list}");
	assert_eq!(amount(listed, "escrow"), escrow, "{list}");
	assert_eq!(listed["phase"], "Profiling", "{list}");
	assert!(
		listed["deadline"].as_u64().is_some_and(|d| d > sub["blockNumber"].as_u64().unwrap_or(0)),
		"{list}"
	);

	// A Linear layer whose in_features differs from its input: refused by the chain with
	// the named error, nothing held.
	let mut bad = spec.clone();
	bad["model"]["layers"][3]["in_features"] = 64.into();
	let path = specs.write("mismatch.json", &bad);
	// The quote names the same error.
	let (ok, stdout, stderr) = common::run_js("quote.js", &["--ws", &ws, "--spec", &path]);
	assert!(!ok && stderr.contains("error: tasks.SpecLinearInputMismatch: "), "{stdout}\n{stderr}");
	assert_eq!(tagged_json(&stdout, "RESULT ")["error"], "tasks.SpecLinearInputMismatch");
	let (ok, stdout, stderr) = common::run_js("submit-task.js", &["--ws", &ws, "--spec", &path]);
	assert!(!ok, "a bad spec must fail\n{stdout}\n{stderr}");
	assert!(stderr.contains("error: tasks.SpecLinearInputMismatch: "), "{stderr}");
	let refused = tagged_json(&stdout, "RESULT ");
	assert_eq!(refused["ok"], false, "{refused}");
	assert_eq!(refused["error"], "tasks.SpecLinearInputMismatch", "{refused}");
	assert_eq!(
		amount(&refused, "heldAfter"),
		amount(&refused, "heldBefore"),
		"nothing held: {refused}"
	);
	assert_eq!(amount(&refused, "heldAfter"), escrow, "only the first task's escrow: {refused}");
	assert_eq!(amount(&refused, "reservedAfter"), amount(&refused, "reservedBefore"), "{refused}");

	// The large language model goes through the metadata like any spec: the chain
	// refuses it because a segment's states alone (6.9 GB) are more than a move deadline
	// replays, and a fault in it by its own name.
	let lm = common::repo_root().join("examples/charlm-transformer.json");
	let lm: Value = serde_json::from_str(&std::fs::read_to_string(lm).unwrap()).unwrap();
	for (heads, error) in
		[(None, "tasks.SpecNotDisputable"), (Some(3), "tasks.SpecHeadsNotDividingDim")]
	{
		let mut s = lm.clone();
		if let Some(heads) = heads {
			s["model"]["layers"][2]["heads"] = heads.into();
		}
		let path = specs.write("language-model.json", &s);
		let (ok, stdout, stderr) = common::run_js("quote.js", &["--ws", &ws, "--spec", &path]);
		assert!(!ok && stderr.contains(&format!("error: {error}: ")), "{stdout}\n{stderr}");
		assert_eq!(tagged_json(&stdout, "RESULT ")["error"], error);
	}

	// An unknown field never leaves the client.
	let mut unknown = spec.clone();
	unknown["training"]["learning_rate"] = 0.1.into();
	let path = specs.write("unknown.json", &unknown);
	let (ok, stdout, stderr) = common::run_js("submit-task.js", &["--ws", &ws, "--spec", &path]);
	assert!(!ok, "{stdout}\n{stderr}");
	assert!(stderr.contains("spec.training: unknown field 'learning_rate'"), "{stderr}");
	assert!(!stdout.contains("in block"), "nothing was sent: {stdout}");

	// Data nobody could train on never leaves the client either: an http:// URI that
	// does not answer, and a file whose blake2-256 is not the spec's file_hash.
	let mut unreachable = spec.clone();
	let dead = format!("http://127.0.0.1:{}/train.idx", common::free_port());
	unreachable["data"]["uri"] = Value::String(dead.clone());
	let mut wrong_hash = spec.clone();
	let data = common::repo_root().join(".data/mnist/train.idx");
	let data = data.canonicalize().expect("run scripts/fetch-mnist.sh first");
	wrong_hash["data"]["uri"] = Value::String(format!("file://{}", data.display()));
	wrong_hash["data"]["file_hash"] = Value::String(format!("0x{}", "00".repeat(32)));
	for (name, bad, error, says) in [
		("unreachable.json", &unreachable, "DataUnreachable", dead.as_str()),
		("wrong-hash.json", &wrong_hash, "DataHashMismatch", "the spec's file_hash is 0x0000"),
	] {
		let path = specs.write(name, bad);
		let (ok, stdout, stderr) =
			common::run_js("submit-task.js", &["--ws", &ws, "--spec", &path]);
		assert!(!ok, "{stdout}\n{stderr}");
		assert!(stderr.contains(&format!("error: {error}: ")) && stderr.contains(says), "{stderr}");
		let refused = tagged_json(&stdout, "RESULT ");
		assert_eq!(
			(&refused["error"], &refused["sent"]),
			(&Value::from(error), &Value::from(false))
		);
		assert!(!stdout.contains("in block"), "nothing was sent: {stdout}");
	}
	let (list, _) = run_ok("list-tasks.js", &["--ws", &ws]);
	assert_eq!(list["tasks"].as_array().expect("tasks").len(), 1, "only the first task: {list}");

	// Cancelling before any solver accepted refunds the escrow in full.
	let (cancel, _) =
		run_ok("cancel-task.js", &["--ws", &ws, "--seed", "//Alice", "--id", &id.to_string()]);
	assert_eq!(cancel["cancelled"], true, "{cancel}");
	assert_eq!(cancel["stillListed"], false, "{cancel}");
	assert_eq!(amount(&cancel, "escrow"), escrow, "{cancel}");
	assert_eq!(amount(&cancel, "heldBefore") - amount(&cancel, "heldAfter"), escrow, "{cancel}");
	assert_eq!(amount(&cancel, "heldAfter"), 0, "no escrow left on hold: {cancel}");
	// Alice authors every block, so the fee she pays comes back to her as author.
	let (before, after, fee) =
		(amount(&cancel, "freeBefore"), amount(&cancel, "freeAfter"), amount(&cancel, "fee"));
	assert!(
		after == before + escrow || after + fee == before + escrow,
		"free balance back: {before} -> {after}, escrow {escrow}, fee {fee}"
	);
	let (list, _) = run_ok("list-tasks.js", &["--ws", &ws]);
	assert!(!list["tasks"].as_array().expect("tasks").iter().any(|t| t["id"] == id), "{list}");

	// An Exact-mode task goes straight to the solver draw once a verifier other than the
	// solver could check its result: Charlie registers as one, and Bob is offered it.
	// Follow it while Alice cancels it.
	let (charlie, _) = run_ok(
		"register.js",
		&["--ws", &ws, "--seed", "//Charlie", "--role", "verifier", "--bond", "100"]
			.into_iter()
			.chain(["--memory-mib", "8192", "--endpoint", "http://127.0.0.1:8701"])
			.collect::<Vec<_>>(),
	);
	assert_eq!(charlie["active"], true, "Charlie is drawable: {charlie}");
	let mut exact = spec.clone();
	exact["verification"]["mode"] = "exact".into();
	let path = specs.write("exact.json", &exact);
	let mut follow = Background::start(
		"submit-task.js",
		&["--ws", &ws, "--spec", &path, "--follow", "--timeout", "180000"],
	);
	let line = follow.wait_line("RESULT ", Duration::from_secs(120));
	let sub2 = tagged_json(&line, "RESULT ");
	let id2 = sub2["task"].as_u64().expect("task id");
	assert_eq!(sub2["phase"], "Offered", "{sub2}");
	assert_eq!(
		amount(&sub2, "escrow"),
		expected_escrow(&exact, gas),
		"Exact mode pays no profiler: {sub2}"
	);
	assert!(
		follow.seen.contains(&format!("tasks.SolverDrawn {{\"id\":\"{id2}\",\"solver\":\"{bob}\"")),
		"{}",
		follow.seen
	);
	// A page at a time through the runtime API: one task a page, past the cancelled one.
	let (list, _) = run_ok("list-tasks.js", &["--ws", &ws, "--owner", "//Alice", "--page", "1"]);
	assert_eq!(list["source"], "TasksApi", "{list}");
	assert!(list["pages"].as_u64().is_some_and(|p| p >= 1), "{list}");
	let listed = list["tasks"].as_array().and_then(|t| t.iter().find(|t| t["id"] == id2).cloned());
	let listed = listed.unwrap_or_else(|| panic!("task {id2} in {list}"));
	assert_eq!(listed["phase"], "Offered", "{list}");
	assert_eq!(listed["solver"], bob.as_str(), "{list}");
	run_ok("cancel-task.js", &["--ws", &ws, "--id", &id2.to_string()]);
	let outcome = tagged_json(&follow.wait_line("OUTCOME ", Duration::from_secs(90)), "OUTCOME ");
	assert_eq!(outcome["end"], "TaskCancelled", "{outcome}");
	assert!(
		follow.seen.contains(&format!("tasks.TaskCancelled {{\"id\":\"{id2}\",\"refunded\":\"")),
		"{}",
		follow.seen
	);
	let status = follow.child.wait().expect("submit-task.js exits");
	assert!(status.success(), "--follow exits 0 on a cancelled task: {status}\n{}", follow.seen);
}

/// scripts/js/merkle.js (what fetch-model.js checks a solver's journal with) gives the
/// same roots as the chain's tree, primitives/types/src/merkle.rs, for 0 to 9 leaves:
/// empty, even and odd levels, and promoted lone nodes.
#[test]
fn the_clients_merkle_tree_matches_the_chains() {
	use gensyn_primitives::merkle;
	let leaves: Vec<merkle::Hash> = (0u8..9).map(|i| merkle::blake2_256(&[i])).collect();
	let hex = |h: merkle::Hash| h.iter().fold(String::from("0x"), |s, b| s + &format!("{b:02x}"));
	let rust: Vec<String> = (0..=leaves.len()).map(|n| hex(merkle::root(&leaves[..n]))).collect();
	let script = "import { blake256, merkleRoot } from './merkle.js';\n\
		const leaves = [...Array(9).keys()].map((i) => blake256(Uint8Array.of(i)));\n\
		for (let n = 0; n <= 9; n += 1) \
		console.log(`0x${Buffer.from(merkleRoot(leaves.slice(0, n))).toString('hex')}`);";
	let out = Command::new("node")
		.args(["--input-type=module", "-e", script])
		.current_dir(common::repo_root().join("scripts/js"))
		.output()
		.expect("node (Node.js) runs");
	assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
	let js: Vec<String> = String::from_utf8_lossy(&out.stdout).lines().map(str::to_owned).collect();
	assert_eq!(js, rust);
}
