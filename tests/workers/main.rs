//! The embedded workers end to end on a development node: the solver (Bob), the verifier
//! (Charlie) and the whistleblower (Dave); Alice submits the MNIST MLP example from
//! polkadot.js. The verifier commits a forced-error secret and profiles the task, Bob
//! trains it with libtorch and serves its checkpoints, Charlie fetches and replays the
//! drawn segments with repops and posts verdicts, Dave replays them again, and the task
//! settles. The runs: everyone honest (every planck accounted for, nothing
//! challenged); a lazy verifier (challenged by Dave, loses the pinpoint game played by
//! the workers, slashed, its verdict void); a lazy solver (its proof rejected, slashed,
//! the task re-drawn to a second solver node and completed, Alice paying one round; in
//! Threshold mode rejected on the fail that stands, its verifier the reporter);
//! every verdict a forced error (caught by Dave, paid from the jackpot, the honest
//! solver paid in full); a solver node killed mid-training and restarted; a solver that
//! stops and never commits (slashed at its deadline, the task re-drawn and completed);
//! a spec whose data fails its checks (declined by the solver, nobody slashed); a solver
//! whose proof store serves nobody (reported, it publishes what the report demands, and
//! a re-auditor replays from the pages; or, its checkpoints not its commitment's, the
//! demand lapses and it is rejected); a solver that contests
//! the fails on its fake and stops serving its journal (the verifier still wins); a
//! whistleblower that cannot fetch the checkpoints (it demands them, the solver
//! publishes them on chain, or a verifier does when the solver's node is down); and a
//! language model's task, settled as an image model's is, or rejected where its solver
//! trained on another data order.

mod availability;
#[path = "../common/mod.rs"]
mod common;
mod language;
mod setup;

use std::{process::ExitCode, time::Duration};

use availability::*;
use common::{free_port, py_ok, repo_root, run_js, run_ok, tagged_json, Node};
use language::*;
use serde_json::Value;
use setup::*;

/// Each named test function as a trial, named after it.
macro_rules! trials {
	($($test:ident),* $(,)?) => {
		vec![$(libtest_mimic::Trial::test(stringify!($test), || {
			$test();
			Ok(())
		})),*]
	};
}

/// Runs the tests four at a time unless `--test-threads` or `RUST_TEST_THREADS` says
/// otherwise: each one's node spends most of its time waiting for 3-second blocks, so
/// four share two cores and finish in about half the time that two do.
fn main() -> ExitCode {
	let mut args = libtest_mimic::Arguments::from_args();
	if args.test_threads.is_none() {
		let env = std::env::var("RUST_TEST_THREADS").ok().and_then(|v| v.parse().ok());
		args.test_threads = Some(env.unwrap_or(4));
	}
	let trials = trials![
		workers_train_verify_and_settle_a_task,
		a_lazy_verifier_is_challenged_loses_the_game_and_is_slashed,
		a_run_from_another_start_passed_by_a_partner_is_proven_off_the_task,
		a_down_solvers_demanded_checkpoints_are_published_by_its_verifier,
		a_pass_at_a_distance_the_replay_does_not_give_is_challenged_and_slashed,
		a_lazy_solver_is_slashed_and_the_task_redrawn_to_an_honest_solver,
		a_solver_that_stops_serving_once_it_contests_cannot_make_the_verifier_lose,
		a_threshold_fail_that_stands_rejects_the_solver_and_pays_its_reporter,
		a_dead_solvers_task_is_redrawn_and_completed,
		a_task_whose_data_fails_its_checks_is_declined_and_nobody_slashed,
		a_task_whose_data_no_profiler_can_fetch_is_declined_unslashed,
		a_killed_solver_restarts_and_resumes_from_its_last_checkpoint,
		a_verifier_replays_from_the_solvers_copy_when_the_submitter_stops_serving,
		a_forced_error_is_caught_and_the_jackpot_pays_the_whistleblower,
		a_solver_whose_store_serves_nothing_answers_the_reports_and_is_paid,
		a_solver_serving_checkpoints_that_mismatch_its_commitment_is_rejected,
		a_checkpoint_the_whistleblower_cannot_fetch_is_demanded_and_published,
		a_hidden_run_from_another_start_is_proven_off_the_task_from_its_pages,
		a_language_model_task_is_trained_verified_and_settled,
		a_lazy_solver_of_a_language_model_is_rejected_and_slashed,
	];
	libtest_mimic::run(&args, trials).exit_code()
}

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
	// The settled task's TaskCompleted event carries the same result.
	let done = stdout
		.lines()
		.find(|l| l.contains("tasks.TaskCompleted"))
		.and_then(|l| l.strip_prefix('#')?.split(' ').next())
		.expect("the TaskCompleted block");
	let (settled, _) =
		run_ok("fetch-model.js", &["--ws", &s.ws, "--task", "0", "--at", done, "--out", out_arg]);
	let _ = std::fs::remove_file(&out);
	assert_eq!(
		(&settled["blob"], &settled["checkpointRoot"]),
		(&fetched["blob"], &fetched["checkpointRoot"]),
		"{settled}"
	);
	// A block before the result has none to fetch.
	let (ok, stdout_early, _) =
		run_js("fetch-model.js", &["--ws", &s.ws, "--task", "0", "--at", "1"]);
	assert!(!ok && stdout_early.contains("TaskNotFound"), "{stdout_early}");
	// The Python client fetches the same checked file and loads it into PyTorch: the
	// trained MLP reads the held-out digits far better than chance.
	let py_out = out.with_extension("py.safetensors");
	let py_arg = py_out.to_str().expect("utf-8 path");
	let (py, _) =
		py_ok(&["fetch-model", "--ws", &s.ws, "--task", "0", "--at", done, "--out", py_arg]);
	assert_eq!(py["blob"], fetched["blob"], "the same model: {py}");
	let spec = repo_root().join("examples/mnist-mlp.json");
	let test_data = repo_root().join(".data/mnist/test.idx");
	let (eval, _) = py_ok(&[
		"evaluate",
		"--spec",
		spec.to_str().expect("utf-8"),
		"--model",
		py_arg,
		"--data",
		test_data.to_str().expect("utf-8"),
	]);
	let _ = std::fs::remove_file(&py_out);
	assert_eq!(eval["step"], 252, "{eval}");
	let (loss, accuracy) = (eval["loss"].as_f64().unwrap(), eval["accuracy"].as_f64().unwrap());
	assert!(accuracy > 0.85 && loss < 0.6, "the trained model on test digits: {eval}");

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
/// in full on a segment someone checked. Dave's first challenge never reaches a block
/// (a test fault): he challenges again within the window.
fn a_lazy_verifier_is_challenged_loses_the_game_and_is_slashed() {
	let s = setup_with(Options {
		fault: Some("lazy-verifier"),
		forced_percent: Some("0"),
		node_args: &["--worker-lose-first-challenge"],
		// Room for a second challenge after the first is given up for lost.
		challenge_period: Some("30"),
		..Options::default()
	});
	let (stdout, stderr, log, eve_log) = with_eve_joining(&s, &[], "lazy pass");
	assert!(log.contains("lost on its way"), "the first challenge was lost: {}", tail(&log));
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

/// Bob trains an Exact task on the task's schedule but from weights of his own, and
/// Charlie, his partner, passes every segment unchecked: each replays to Bob's own
/// checkpoints. Dave checks the committed run against the task before its verdicts and
/// proves, from Bob's first checkpoint alone, that it is not the task's seeded start; the
/// chain checks the proof and rejects Bob's proof at settlement with Dave as reporter:
/// Bob is slashed his bond. Dave may also challenge segment 0's pass (his replay starts
/// from the task's own start), and no other: the other segments replay to Bob's
/// checkpoints.
fn a_run_from_another_start_passed_by_a_partner_is_proven_off_the_task() {
	let (s, stdout, log) = every_segment_run("partner-from-elsewhere");
	assert!(log.contains("training from weights of its own"), "{}", tail(&log));
	assert!(log.contains("proving its committed run off the task"), "{}", worker_lines(&log));
	assert!(stdout.contains("tasks.RunOffTask"), "{stdout}");
	assert!(stdout.contains("tasks.ProofRejected"), "{stdout}");
	let outcome = tagged_json(&stdout, "OUTCOME ");
	assert_eq!(outcome["end"], "TaskFailed", "{outcome}\n{}", worker_lines(&log));
	for line in stdout.lines().filter(|l| l.contains("tasks.Challenged")) {
		assert!(line.contains("\"segment\":\"0\""), "a pass Dave's replay reaches: {line}");
	}
	let to = outcome["blockNumber"].as_u64().expect("block");
	let ledger = ledger(&s, to, "//Bob,//Charlie,//Dave");
	const GSN: i128 = 1_000_000_000_000;
	let (d_bob, fee_bob) = account(&ledger, 0);
	assert_eq!(d_bob, -100 * GSN - fee_bob, "Bob slashed his bond: {ledger}");
	let (d_dave, fee_dave) = account(&ledger, 2);
	assert!(d_dave > 0 && fee_dave > 0, "Dave paid as the reporter: {ledger}");
}

/// Bob trains a Threshold task on the wrong data order, and Charlie, his partner,
/// replays each segment drawn but posts its true replay root with distance 0, a pass.
/// Dave replays the segment to the same root, measures the distance of Bob's checkpoint
/// from it, and challenges the distance; Charlie cannot defend sums that give 0 and
/// concedes: he is slashed, Dave is paid as the reporter, and Bob is not paid.
fn a_pass_at_a_distance_the_replay_does_not_give_is_challenged_and_slashed() {
	let s = setup(Some("zero-distance-partner"), Some("0"));
	let (_, stdout, stderr) = submit_example(&s.ws);
	let log = s.node.log();
	let ended = stdout.lines().any(|l| l.starts_with("OUTCOME "));
	assert!(ended, "the task did not end:\n{stdout}\n{stderr}\n{}", worker_lines(&log));
	assert!(log.contains("posting distance 0 for a partner"), "{}", worker_lines(&log));
	assert!(log.contains("from the same replay: challenging"), "{}", worker_lines(&log));
	assert!(log.contains("conceding"), "Charlie gave up: {}", worker_lines(&log));
	let resolved = stdout
		.lines()
		.find(|l| l.contains("tasks.DisputeResolved"))
		.unwrap_or_else(|| panic!("no DisputeResolved:\n{stdout}"));
	assert!(resolved.contains("\"challengerWon\":true"), "{resolved}");
	let outcome = tagged_json(&stdout, "OUTCOME ");
	assert_ne!(outcome["end"], "TaskCompleted", "{outcome}\n{}", worker_lines(&log));
	let to = outcome["blockNumber"].as_u64().expect("block");
	let ledger = ledger(&s, to, "//Bob,//Charlie,//Dave");
	let (d_bob, _) = account(&ledger, 0);
	let (d_charlie, _) = account(&ledger, 1);
	let (d_dave, fee_dave) = account(&ledger, 2);
	assert!(d_bob <= 0, "Bob is not paid for a fake: {ledger}");
	assert!(d_charlie < 0 && d_bob + d_charlie < 0, "the partners lose: {ledger}");
	assert!(fee_dave > 0 && d_dave > 0, "Dave paid as the reporter: {ledger}");
}

/// Bob trains on the wrong data order; Charlie's replay fails the segment, Bob is
/// slashed, and of his slash first what Charlie's verdicts cost goes back into Alice's
/// escrow; the task is offered to Ferdie (a second solver node, registered once Bob
/// trains so that Bob is drawn first), whose proof passes. Alice pays one round. The
/// task is in Exact mode (the Threshold case is played below, without a second solver).
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

/// Bob trains an Exact task on the wrong data order and Charlie fails his segments. Bob
/// contests each fail and, as he does, stops serving his run's journal, so that Charlie,
/// who must defend his verdicts move by move, could not read the run's commitments from
/// Bob's store and would lose on time. Charlie moves from the journal he kept when he
/// verified: he wins every game, Bob loses his false contests and is rejected, and
/// Charlie is paid, never slashed.
fn a_solver_that_stops_serving_once_it_contests_cannot_make_the_verifier_lose() {
	let s = setup_with(Options {
		fault: Some("starving-contester"),
		forced_percent: Some("0"),
		challenge_period: Some("30"),
		..Options::default()
	});
	let exact = |spec: &mut Value| spec["verification"]["mode"] = Value::String("exact".into());
	let (_, stdout, stderr) = submit_spec(&s.ws, exact, &[]);
	let log = s.node.log();
	let ended = stdout.lines().any(|l| l.starts_with("OUTCOME "));
	assert!(ended, "the task did not end:\n{stdout}\n{stderr}\n{}", worker_lines(&log));
	assert!(log.contains("no longer serving the run's journal"), "{}", worker_lines(&log));
	assert!(stdout.contains("tasks.Challenged"), "Bob did not contest:\n{stdout}");
	let resolved: Vec<&str> =
		stdout.lines().filter(|l| l.contains("tasks.DisputeResolved")).collect();
	assert!(!resolved.is_empty(), "no game was ruled:\n{stdout}");
	for line in &resolved {
		assert!(line.contains("\"challengerWon\":false"), "Charlie lost a game: {line}");
	}
	assert!(stdout.contains("tasks.ProofRejected"), "{stdout}");
	let to = tagged_json(&stdout, "OUTCOME ")["blockNumber"].as_u64().expect("block");
	let ledger = ledger(&s, to, "//Bob,//Charlie");
	const GSN: i128 = 1_000_000_000_000;
	let (d_bob, fee_bob) = account(&ledger, 0);
	assert!(d_bob + fee_bob <= -100 * GSN, "Bob loses his bond: {ledger}");
	let (d_charlie, _) = account(&ledger, 1);
	assert!(d_charlie > 0, "Charlie is paid and never slashed: {ledger}");
}

/// Bob trains a Threshold task on the wrong data order and Charlie's replay fails his
/// segments. Nobody contests a right fail, and a Threshold fail that stands rejects the
/// proof as an Exact one does: Bob is slashed, Charlie is paid his profile and verdicts
/// and, as the reporter, half of what the slash leaves once Alice's escrow has the
/// verdicts back; with no other solver the task fails and Alice pays the profile only.
fn a_threshold_fail_that_stands_rejects_the_solver_and_pays_its_reporter() {
	let s = setup(Some("lazy-solver"), Some("0"));
	let (_, stdout, stderr) = submit_example(&s.ws);
	let log = s.node.log();
	let ended = stdout.lines().any(|l| l.starts_with("OUTCOME "));
	assert!(ended, "the task did not end:\n{stdout}\n{stderr}\nworkers:\n{}", worker_lines(&log));
	let submitted = tagged_json(&stdout, "RESULT ");
	let outcome = tagged_json(&stdout, "OUTCOME ");
	assert_eq!(outcome["end"], "TaskFailed", "{outcome}\n{}", worker_lines(&log));
	assert!(stdout.contains("ProofRejected"), "{stdout}");
	assert!(log.contains("FAILED"), "Charlie's replay failed it: {}", tail(&log));
	assert!(!stdout.contains("tasks.Reaudited"), "a fail that stands is final:\n{stdout}");
	assert!(!stdout.contains("tasks.Challenged"), "nobody contests a right fail:\n{stdout}");

	let to = outcome["blockNumber"].as_u64().expect("block");
	let ledger = ledger(&s, to, "//Alice,//Bob,//Charlie");
	const GSN: i128 = 1_000_000_000_000;
	let (d_bob, fee_bob) = account(&ledger, 1);
	assert_eq!(d_bob, -100 * GSN - fee_bob, "Bob slashed: {ledger}");
	let audits = submitted["audits"].as_u64().expect("audits") as i128;
	let pay = planck(&submitted["segmentPay"]);
	let verdicts = pay * audits;
	// The reporter's half of the slash less what went back into the escrow (rounded
	// down by the share's arithmetic).
	let (d_charlie, fee_charlie) = account(&ledger, 2);
	let share = d_charlie + fee_charlie - pay - verdicts;
	let half = (100 * GSN - verdicts) / 2;
	assert!((half - 1..=half).contains(&share), "Charlie's share {share}, not {half}: {ledger}");
	// Bob's slash paid the verdicts back into the escrow: Alice paid the profile only
	// (Alice authors the blocks: the fees come to her).
	let escrow = planck(&submitted["escrow"]);
	let refunded = planck(&outcome["data"]["refunded"]);
	assert_eq!(escrow - refunded, pay, "{outcome}");
	let (d_alice, fee_alice) = account(&ledger, 0);
	let fees_total = planck(&ledger["feesTotal"]);
	assert_eq!(d_alice, -(escrow - refunded) - fee_alice + fees_total, "Alice: {ledger}");
}

/// Bob stops training at step 120 and never commits (dead, as far as the chain can
/// tell); at his training deadline he is slashed and the task is re-drawn to Ferdie (a
/// second solver node, registered once Bob stopped), who trains it and is paid.
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
/// drawn to profile it, declines instead of letting his profile lapse (which is slashed):
/// the task fails before anyone trains and Alice is refunded but for the declined seat's
/// pay, which goes to the jackpot pot. Charlie pays his fee and nothing else, and
/// nothing is slashed.
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
	let (_, stdout, stderr) = follow.join().expect("the follower");
	let outcome = tagged_json(&stdout, "OUTCOME ");
	assert_eq!(outcome["end"], "TaskFailed", "{outcome}\n{stdout}\n{stderr}");
	assert!(stdout.contains("NoThreshold"), "{stdout}");
	let escrow = planck(&tagged_json(&stdout, "RESULT ")["escrow"]);
	let declined: Value = stdout
		.lines()
		.find_map(|l| l.split_once("tasks.ProfileDeclined "))
		.map(|(_, j)| serde_json::from_str(j.trim()).expect("an event's JSON"))
		.unwrap_or_else(|| panic!("Charlie did not decline:\n{stdout}"));
	let forfeited = planck(&declined["forfeited"]);
	assert!(forfeited > 0, "the seat's pay goes to the pot: {declined}");
	let refunded = planck(&outcome["data"]["refunded"]);
	assert_eq!(refunded, escrow - forfeited, "refunded but the seat's pay: {outcome}");
	assert!(!stdout.contains("tasks.Profiled"), "Charlie profiled:\n{stdout}");
	let to = outcome["blockNumber"].as_u64().expect("block");
	let ledger = ledger(&s, to, "//Alice,//Charlie");
	let (alice, alice_fees) = account(&ledger, 0);
	// Alice authors every block: she is paid the fees, hers included.
	let fees = planck(&ledger["feesTotal"]);
	assert_eq!(alice, fees - alice_fees - forfeited, "Alice lost the seat's pay: {ledger}");
	let (charlie, charlie_fees) = account(&ledger, 1);
	assert!(charlie_fees > 0 && charlie == -charlie_fees, "Charlie lost only fees: {ledger}");
	assert_eq!(ledger["issuanceFrom"], ledger["issuanceTo"], "nothing slashed: {ledger}");
}

/// The solver runs alone in a second node (on disk, synced from the first); it is killed
/// mid-training (its training stops at step 120 under a test flag), started again on the
/// same base path, resumes the run from its last checkpoint (step 100), and the task
/// completes.
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

/// Alice serves her data over HTTP until the solver (Bob, in a second node) has it, then
/// stops (her server answers 404). Charlie cannot get it from her and replays from the
/// copy Bob's store serves beside his checkpoints: the task completes and nobody is
/// slashed. (Left without the data, Charlie would have stayed silent and been slashed.)
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

/// Bob's proof store serves nothing. Charlie, the only verifier when the task is drawn,
/// reports his segments unavailable (neither paid nor slashed), and each report demands
/// the checkpoints its segment's replay needs: Bob's node publishes them on chain. At
/// settlement Charlie's segments go to Eve (a second verifier node, registered once
/// Charlie found the store empty), who cannot fetch them from the store either: she
/// replays them from the published pages and passes them, and Bob, who served nobody
/// but answered every demand, is paid in full.
fn a_solver_whose_store_serves_nothing_answers_the_reports_and_is_paid() {
	let s = setup_with(Options {
		fault: Some("withholding-solver"),
		forced_percent: Some("0"),
		node_args: &["--unavailable-after", "1"],
		publish_period: Some("120"),
		..Options::default()
	});
	let empty = "the solver's store does not serve segment";
	let eve_args = ["--unavailable-after", "0"];
	let (stdout, stderr, log, eve_log) = with_eve_joining(&s, &eve_args, empty);
	let ended = stdout.lines().any(|l| l.starts_with("OUTCOME "));
	assert!(ended, "the task did not end:\n{stdout}\n{stderr}\nworkers:\n{}", worker_lines(&log));
	let outcome = tagged_json(&stdout, "OUTCOME ");
	assert_eq!(outcome["end"], "TaskCompleted", "{outcome}\n{}", worker_lines(&log));
	assert!(stdout.contains("tasks.StoreUnavailable"), "Charlie reported:\n{stdout}");
	assert!(stdout.contains("tasks.CheckpointPublished"), "Bob answered:\n{stdout}");
	assert!(!stdout.contains("tasks.ProofRejected"), "{stdout}");
	assert!(stdout.contains("tasks.Reaudited"), "{stdout}");
	let replayed = "replayed from its published pages";
	assert!(eve_log.contains(replayed), "Eve replays from the pages:\n{}", tail(&eve_log));
	let to = outcome["blockNumber"].as_u64().expect("block");
	let ledger = ledger(&s, to, "//Bob");
	let (d_bob, fee_bob) = account(&ledger, 0);
	assert_eq!(d_bob, planck(&outcome["data"]["solverPaid"]) - fee_bob, "Bob: {ledger}");
}

/// Bob commits checkpoint hashes that are not his checkpoints' and serves the real
/// checkpoints: no verifier can replay from a committed state, and none posts a verdict
/// it could not defend in a game (a failing one would name a replay root it cannot
/// back). Charlie reports the segment unavailable, as for a store that serves nothing,
/// and his report demands its checkpoints, which Bob cannot publish (no page of his
/// proves against his root): the demand lapses, Bob is rejected and slashed, and
/// Charlie is paid the withheld checkpoint's bounty, with no second verifier needed.
fn a_solver_serving_checkpoints_that_mismatch_its_commitment_is_rejected() {
	let s = setup_with(Options {
		fault: Some("mismatched-solver"),
		forced_percent: Some("0"),
		node_args: &["--unavailable-after", "1"],
		publish_period: Some("120"),
		..Options::default()
	});
	let (submitted, outcome, stdout) = submit_and_follow(&s);
	let log = s.node.log();
	assert_eq!(outcome["end"], "TaskFailed", "{outcome}\n{}", worker_lines(&log));
	assert!(stdout.contains("tasks.StoreUnavailable"), "{stdout}");
	assert!(stdout.contains("tasks.CheckpointWithheld"), "{stdout}");
	assert!(stdout.contains("ProofRejected"), "{stdout}");
	assert!(!stdout.contains("tasks.Reaudited"), "one report is enough:\n{stdout}");
	assert!(!stdout.contains("tasks.VerdictPosted"), "nothing was judged:\n{stdout}");

	let to = outcome["blockNumber"].as_u64().expect("block");
	let ledger = ledger(&s, to, "//Alice,//Bob,//Charlie");
	const GSN: i128 = 1_000_000_000_000;
	let (d_bob, fee_bob) = account(&ledger, 1);
	assert_eq!(d_bob, -100 * GSN - fee_bob, "Bob slashed: {ledger}");
	// Charlie was paid for profiling the task and, as the reporter whose demand went
	// unanswered, the withheld checkpoint's bounty.
	let profile_pay = planck(&submitted["segmentPay"]);
	let (d_charlie, fee_charlie) = account(&ledger, 2);
	assert_eq!(d_charlie, profile_pay + 10 * GSN - fee_charlie, "Charlie: {ledger}");
	// Alice paid the profile only (Alice authors the blocks: the fees come to her).
	let escrow = planck(&submitted["escrow"]);
	let refunded = planck(&outcome["data"]["refunded"]);
	assert_eq!(escrow - refunded, profile_pay, "{outcome}");
	let (d_alice, fee_alice) = account(&ledger, 0);
	let fees_total = planck(&ledger["feesTotal"]);
	assert_eq!(d_alice, -(escrow - refunded) - fee_alice + fees_total, "Alice: {ledger}");
}
