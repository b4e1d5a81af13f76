//! Checkpoints the solver's store serves to its partners alone, end to end: the
//! whistleblower demands them on chain and replays from their pages, with no journal;
//! the solver publishes them or, when its node is down, a verifier of the task does;
//! a run from another start is proven off its task from its first checkpoint's pages.

use std::time::Duration;

use crate::common::{free_port, tagged_json, Node};
use crate::setup::*;

/// Dave can fetch neither Bob's journal nor his checkpoints (as if Bob's store served
/// Charlie alone): he demands each checkpoint his checks replay from on chain, Bob's
/// node publishes them page by page, and Dave reads them back from the blocks and
/// replays from them, with no journal. The run is honest: it checks out, the task
/// completes, and Bob is paid; Dave pays the fees.
pub fn a_checkpoint_the_whistleblower_cannot_fetch_is_demanded_and_published() {
	let (s, stdout, log) = every_segment_run("blind-whistleblower");
	assert!(log.contains("no journal of its run"), "{}", worker_lines(&log));
	assert!(log.contains("demanding it on chain"), "{}", worker_lines(&log));
	assert!(log.contains("publishing page"), "{}", worker_lines(&log));
	assert!(log.contains("from its pages on chain"), "{}", worker_lines(&log));
	// A check of a segment past the first replays from a published checkpoint.
	let replayed =
		|l: &&str| l.contains("whistleblower: task 0 segment") && !l.contains("segment 0:");
	let published = log.lines().filter(replayed).any(|l| l.contains("replay checks out"));
	assert!(published, "Dave replayed from the pages: {}", worker_lines(&log));
	assert!(stdout.contains("tasks.CheckpointDemanded"), "{stdout}");
	assert!(stdout.contains("tasks.CheckpointPublished"), "{stdout}");
	assert!(!stdout.contains("tasks.CheckpointWithheld"), "{stdout}");
	let outcome = tagged_json(&stdout, "OUTCOME ");
	assert_eq!(outcome["end"], "TaskCompleted", "{outcome}\n{}", worker_lines(&log));
	let to = outcome["blockNumber"].as_u64().expect("block");
	let ledger = ledger(&s, to, "//Bob,//Dave");
	let (d_bob, _) = account(&ledger, 0);
	assert!(d_bob > 0, "Bob is paid: {ledger}");
	let (d_dave, _) = account(&ledger, 1);
	assert!(d_dave < 0, "Dave pays for his demands: {ledger}");
}

/// The run of the test above, from weights of Bob's own and passed by Charlie, with its
/// journal and checkpoints served to Charlie alone: Dave, who cannot fetch them, demands
/// the run's first checkpoint on chain, reads it from its pages, and proves from it
/// that the run is not the task's, with no journal. Bob is slashed his bond.
pub fn a_hidden_run_from_another_start_is_proven_off_the_task_from_its_pages() {
	let (s, stdout, log) = every_segment_run("hidden-run-from-elsewhere");
	assert!(log.contains("no journal of its run"), "{}", worker_lines(&log));
	assert!(log.contains("read checkpoint 0 from its pages"), "{}", worker_lines(&log));
	assert!(log.contains("read from its pages, is not the task's"), "{}", worker_lines(&log));
	assert!(log.contains("proving its committed run off the task"), "{}", worker_lines(&log));
	let demanded = stdout.lines().filter(|l| l.contains("tasks.CheckpointDemanded"));
	assert!(demanded.clone().any(|l| l.contains("\"checkpoint\":\"0\"")), "{stdout}");
	assert!(stdout.contains("tasks.RunOffTask"), "{stdout}");
	assert!(stdout.contains("tasks.ProofRejected"), "{stdout}");
	let outcome = tagged_json(&stdout, "OUTCOME ");
	assert_eq!(outcome["end"], "TaskFailed", "{outcome}\n{}", worker_lines(&log));
	let to = outcome["blockNumber"].as_u64().expect("block");
	let ledger = ledger(&s, to, "//Bob,//Dave");
	const GSN: i128 = 1_000_000_000_000;
	let (d_bob, fee_bob) = account(&ledger, 0);
	assert_eq!(d_bob, -100 * GSN - fee_bob, "Bob slashed his bond: {ledger}");
	let (d_dave, _) = account(&ledger, 1);
	assert!(d_dave > 0, "Dave paid as the prover, more than his demands cost: {ledger}");
}

/// As in `a_checkpoint_the_whistleblower_cannot_fetch_is_demanded_and_published`, with
/// Bob's solver in a node of its own, which goes down as Dave demands his first
/// checkpoint. Past Bob's turn, Charlie's node, whose verdicts read the demanded
/// checkpoints, publishes them from the copies it fetched before (the first, the task's
/// seeded start, it computes), for free: Dave replays from the pages, the run checks
/// out, the task completes, and Bob, honest but down, is paid and not slashed.
pub fn a_down_solvers_demanded_checkpoints_are_published_by_its_verifier() {
	let store = format!("127.0.0.1:{}", free_port());
	let s = setup_with(Options {
		roles: &["--verifier", "--whistleblower"],
		solver_store: Some(&store),
		fault: Some("blind-whistleblower"),
		forced_percent: Some("0"),
		challenge_period: Some("40"),
		publish_period: Some("120"),
		..Options::default()
	});
	let base =
		std::env::temp_dir().join(format!("gensyn-solver-{}-{}", std::process::id(), free_port()));
	let mut solver = Node::start("solver", &solver_args(&s, &store, &base));
	let ws = s.ws.clone();
	let follow = std::thread::spawn(move || submit_spec(&ws, every_segment, &[]));
	let demanded = "demanding it on chain";
	s.node.wait_until(demanded, Duration::from_secs(900), |n| n.log().contains(demanded));
	solver.kill();
	let (_, stdout, stderr) = follow.join().expect("the follower");
	let log = s.node.log();
	let _ = std::fs::remove_dir_all(&base);
	let ended = stdout.lines().any(|l| l.starts_with("OUTCOME "));
	assert!(ended, "the task did not end:\n{stdout}\n{stderr}\n{}", worker_lines(&log));
	let answered = "did not publish demanded checkpoint";
	assert!(log.contains(answered), "Charlie answers: {}", worker_lines(&log));
	assert!(log.contains("from its pages on chain"), "{}", worker_lines(&log));
	assert!(stdout.contains("tasks.CheckpointPublished"), "{stdout}");
	assert!(!stdout.contains("tasks.CheckpointWithheld"), "{stdout}");
	let outcome = tagged_json(&stdout, "OUTCOME ");
	assert_eq!(outcome["end"], "TaskCompleted", "{outcome}\n{}", worker_lines(&log));
	let to = outcome["blockNumber"].as_u64().expect("block");
	let ledger = ledger(&s, to, "//Bob,//Charlie");
	let (d_bob, _) = account(&ledger, 0);
	assert!(d_bob > 0, "Bob is paid: {ledger}");
	let (d_charlie, _) = account(&ledger, 1);
	assert!(d_charlie > 0, "Charlie is paid: {ledger}");
}
