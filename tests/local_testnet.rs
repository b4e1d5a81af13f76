//! End to end: the three-validator local network on 127.0.0.1. All three author blocks
//! with BABE and finality advances; a validator started without keys says so and keeps
//! syncing; with one of three validators killed, blocks continue while GRANDPA (which
//! needs more than two thirds of the votes, i.e. all three of three) waits, and finality
//! resumes once the validator is back.

mod common;

use common::Node;
use std::{collections::BTreeSet, time::Duration};

fn bootnode(node: &Node) -> String {
	format!("/ip4/127.0.0.1/tcp/{}/p2p/{}", node.p2p_port, node.peer_id())
}

fn validator(name: &str, key: &str, bootnodes: &[String]) -> Node {
	// A validator of a non-dev chain needs a libp2p key on disk; --tmp starts empty.
	let mut args = vec![
		"--chain",
		"local",
		"--tmp",
		key,
		"--allow-private-ip",
		"--unsafe-force-node-key-generation",
	];
	for b in bootnodes {
		args.push("--bootnodes");
		args.push(b);
	}
	Node::start(name, &args)
}

#[test]
fn three_validators_author_and_finalize() {
	let alice = validator("alice", "--alice", &[]);
	let alice_addr = bootnode(&alice);
	let bob = validator("bob", "--bob", std::slice::from_ref(&alice_addr));
	let bob_addr = bootnode(&bob);
	let charlie = validator("charlie", "--charlie", &[alice_addr.clone(), bob_addr.clone()]);
	let charlie_addr = bootnode(&charlie);

	// A validator without session keys: logs say so, and it still follows the chain.
	let keyless = Node::start(
		"keyless",
		&[
			"--chain",
			"local",
			"--tmp",
			"--validator",
			"--allow-private-ip",
			"--unsafe-force-node-key-generation",
			"--bootnodes",
			&alice_addr,
		],
	);

	// All three authorities author blocks.
	let mut authors = BTreeSet::new();
	let mut scanned = 0;
	alice.wait_until("blocks by all three BABE authorities", Duration::from_secs(240), |n| {
		let best = n.best_number().unwrap_or(0);
		while scanned < best {
			scanned += 1;
			if let Some(index) = n.babe_author_index(scanned) {
				authors.insert(index);
			}
		}
		authors.len() == 3
	});
	alice.wait_until("finality past block #3", Duration::from_secs(120), |n| {
		n.finalized_number().is_some_and(|f| f >= 3)
	});

	// The warning comes once its keystore is read at start, which a loaded machine may
	// reach after the others finalize.
	keyless.wait_until("keyless validator warns", Duration::from_secs(120), |n| {
		n.log().contains("holds no BABE key")
	});
	let target = alice.best_number().unwrap_or(0);
	keyless.wait_until("keyless validator syncs", Duration::from_secs(60), |n| {
		n.best_number().is_some_and(|b| b >= target)
	});
	drop(keyless);

	// One of three down: BABE goes on, GRANDPA cannot reach its 3-of-3 threshold.
	let mut charlie = charlie;
	charlie.kill();
	std::thread::sleep(Duration::from_secs(3));
	let stalled_at = alice.finalized_number().unwrap_or(0);
	let best_at_kill = alice.best_number().unwrap_or(0);
	alice.wait_until("blocks without charlie", Duration::from_secs(60), |n| {
		n.best_number().is_some_and(|b| b >= best_at_kill + 3)
	});
	let finalized_without_charlie = alice.finalized_number().unwrap_or(0);
	assert!(
		finalized_without_charlie <= stalled_at + 1,
		"finality advanced from #{stalled_at} to #{finalized_without_charlie} with 2 of 3 voters"
	);

	// Charlie returns (fresh database, same keys): finality resumes.
	let _charlie = validator("charlie-again", "--charlie", &[alice_addr, bob_addr]);
	let _ = charlie_addr;
	alice.wait_until("finality resumes", Duration::from_secs(180), |n| {
		n.finalized_number().is_some_and(|f| f >= finalized_without_charlie + 3)
	});
	assert!(bob.finalized_number().unwrap_or(0) > stalled_at, "bob follows finality");
}
