//! A language model's task end to end: the small example (`examples/charlm-small.json`,
//! two decoder blocks trained on the King James Bible) is profiled, trained with
//! libtorch, verified with repops and settled by the embedded workers, like an image
//! model's; and a solver that trains it on its own data order is rejected and slashed.

use serde_json::Value;

use crate::common::repo_root;
use crate::setup::*;

/// The token file the example names, cut from the corpus (`scripts/kjv-tokens.sh`); `None`
/// where the corpus could not be built (a system without Debian's packages).
fn small_tokens() -> Option<std::path::PathBuf> {
	let cut = std::process::Command::new("bash")
		.arg(repo_root().join("scripts/kjv-tokens.sh"))
		.arg(repo_root().join("examples/charlm-small.json"))
		.current_dir(repo_root())
		.output()
		.expect("bash");
	let file = repo_root().join(".data/kjv/train-small.tokens");
	(cut.status.success() && file.exists()).then_some(file)
}

/// Alice submits the small language model on `s`'s chain and follows it to its end:
/// the submission's `RESULT`, the `OUTCOME`, everything printed and the node's log.
fn submit_small_lm(s: &Setup, tokens: &std::path::Path) -> (Value, Value, String, String) {
	let example = std::fs::read_to_string(repo_root().join("examples/charlm-small.json"));
	let mut lm: Value = serde_json::from_str(&example.expect("the example")).expect("JSON");
	let path = tokens.canonicalize().expect("path");
	lm["data"]["uri"] = Value::String(format!("file://{}", path.display()));
	let (_, stdout, stderr) = submit_spec(&s.ws, |spec| *spec = lm, &[]);
	let log = s.node.log();
	let ended = stdout.lines().any(|l| l.starts_with("OUTCOME "));
	assert!(ended, "the task did not end:\n{stdout}\n{stderr}\n{}", tail(&log));
	let submitted = crate::common::tagged_json(&stdout, "RESULT ");
	let outcome = crate::common::tagged_json(&stdout, "OUTCOME ");
	(submitted, outcome, stdout, log)
}

/// Alice submits the small language model; Charlie profiles it, Bob trains it and
/// Charlie replays the drawn segments, Dave every verdict: the task completes, nothing is
/// challenged, and the escrow pays exactly the solver, the verifier and the cuts.
pub fn a_language_model_task_is_trained_verified_and_settled() {
	let Some(tokens) = small_tokens() else {
		eprintln!("SKIPPED: the corpus is missing; run scripts/fetch-kjv.sh");
		return;
	};
	let s = setup(None, None);
	let (submitted, outcome, stdout, log) = submit_small_lm(&s, &tokens);
	assert_eq!(outcome["end"], "TaskCompleted", "{outcome}\n{}", worker_lines(&log));
	for step in ["Profiled", "TaskAccepted", "ResultSubmitted", "VerifiersDrawn", "VerdictPosted"] {
		assert!(stdout.contains(&format!("tasks.{step}")), "no {step} event:\n{stdout}");
	}
	assert!(!stdout.contains("tasks.Challenged"), "an honest verdict was challenged:\n{stdout}");
	assert!(log.contains("solver: task 0 trained"), "{}", tail(&log));
	assert!(log.contains("replay checks out"), "the whistleblower checked: {}", tail(&log));

	let data = &outcome["data"];
	let (solver_paid, verifiers_paid, refunded) =
		(planck(&data["solverPaid"]), planck(&data["verifiersPaid"]), planck(&data["refunded"]));
	assert!(solver_paid > 0 && verifiers_paid > 0, "{outcome}\n{}", worker_lines(&log));
	let escrow = planck(&submitted["escrow"]);
	let profile_pay = planck(&submitted["segmentPay"]);
	let (jackpot, treasury) = (planck(&submitted["jackpotCut"]), planck(&submitted["treasuryCut"]));
	assert_eq!(
		escrow - refunded,
		solver_paid + verifiers_paid + profile_pay + jackpot + treasury,
		"the escrow paid exactly the solver, the verifier (profile and verdicts) and the cuts"
	);
	let to = outcome["blockNumber"].as_u64().expect("block");
	let ledger = ledger(&s, to, "//Bob");
	let (d_bob, fee_bob) = account(&ledger, 0);
	assert_eq!(d_bob, solver_paid - fee_bob, "Bob: {ledger}");
}

/// Bob trains the language model on a data order of his own: Charlie's replays fail his
/// segments, nobody contests a right fail, and the fail that stands rejects the proof:
/// Bob is slashed and unpaid.
pub fn a_lazy_solver_of_a_language_model_is_rejected_and_slashed() {
	let Some(tokens) = small_tokens() else {
		eprintln!("SKIPPED: the corpus is missing; run scripts/fetch-kjv.sh");
		return;
	};
	let s = setup(Some("lazy-solver"), Some("0"));
	let (_, outcome, stdout, log) = submit_small_lm(&s, &tokens);
	assert_eq!(outcome["end"], "TaskFailed", "{outcome}\n{}", worker_lines(&log));
	assert!(stdout.contains("ProofRejected"), "{stdout}");
	assert!(log.contains("FAILED"), "Charlie's replay failed it: {}", tail(&log));
	assert!(!stdout.contains("tasks.Challenged"), "nobody contests a right fail:\n{stdout}");
	let to = outcome["blockNumber"].as_u64().expect("block");
	let ledger = ledger(&s, to, "//Bob");
	let (d_bob, fee_bob) = account(&ledger, 0);
	const GSN: i128 = 1_000_000_000_000;
	assert_eq!(d_bob, -100 * GSN - fee_bob, "Bob slashed, unpaid: {ledger}");
}
