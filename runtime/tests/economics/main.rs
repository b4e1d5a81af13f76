//! The profit table: a population of strategies plays thousands of tasks against the
//! native runtime (its pallets and default economic parameters, blocks through
//! `Executive`), and each deviation's profit per task is set against honest play in the
//! same run. `scripts/economics.sh` runs the full table; the test here runs a smaller
//! one and checks the deviations the protocol closes.
//!
//! Off chain, compute costs its worker half of what the chain pays for it (a solver's
//! training, a verifier's or watcher's replay), and every call costs its transaction fee.
//! Only the timing parameters are shortened (the challenge window and the shortest
//! training period), which moves no payment.

#[path = "../common/mod.rs"]
mod common;

mod agents;
mod table;
mod world;

use gensyn_runtime::{Runtime, RuntimeEvent};
use sp_runtime::Perbill;
use std::collections::BTreeMap;
use table::{Line, Snapshot};
use world::World;

/// Tasks live at once.
const IN_FLIGHT: u32 = 40;

/// Windows of the run for the intervals.
const WINDOWS: u32 = 20;

/// How the run's tasks ended, and what the jackpot paid.
#[derive(Default, Debug)]
pub struct Outcomes {
	/// Tasks completed (solver paid).
	pub completed: u32,
	/// Proofs rejected (solver slashed).
	pub rejected: u32,
	/// Tasks failed, refunded (no solver, unverified, ...).
	pub failed: u32,
	/// Forced errors caught and paid from the pot.
	pub catches: u32,
	/// What those catches paid, in planck.
	pub catch_paid: u128,
}

/// Books each completed task's model to its owner at the price it paid (what the solver,
/// the verifiers and the cuts took), from the events so far, and counts the outcomes.
fn book_events(
	w: &mut World,
	o: &mut Outcomes,
	owners: &mut BTreeMap<u64, sp_runtime::AccountId32>,
	paid: &mut BTreeMap<u64, u128>,
) {
	use pallet_gensyn_tasks::Event as E;
	for r in frame_system::Pallet::<Runtime>::events() {
		if let RuntimeEvent::Jackpot(pallet_gensyn_jackpot::Event::CatchPaid { amount, .. }) =
			&r.event
		{
			o.catches += 1;
			o.catch_paid += amount;
		}
		match &r.event {
			RuntimeEvent::Tasks(E::TaskCompleted { .. }) => o.completed += 1,
			RuntimeEvent::Tasks(E::ProofRejected { .. }) => o.rejected += 1,
			RuntimeEvent::Tasks(E::TaskFailed { .. }) => o.failed += 1,
			_ => {}
		}
		if std::env::var("ECONOMICS_TRACE").is_ok() {
			if let RuntimeEvent::Tasks(e) = &r.event {
				eprintln!("{:?}", e);
			}
		}
		match r.event {
			RuntimeEvent::Tasks(E::TaskSubmitted { id, owner, .. }) => {
				owners.insert(id, owner);
			}
			RuntimeEvent::Tasks(E::VerifiersPaid { id, paid: p }) => {
				*paid.entry(id).or_default() += p;
			}
			RuntimeEvent::Tasks(E::TaskCompleted {
				id,
				solver_paid,
				jackpot_paid,
				treasury_paid,
				..
			}) => {
				let value = solver_paid
					+ jackpot_paid + treasury_paid
					+ paid.remove(&id).unwrap_or_default();
				if let Some(owner) = owners.remove(&id) {
					*w.credit.entry(owner).or_default() += value;
				}
			}
			RuntimeEvent::Tasks(
				E::TaskFailed { id, .. }
				| E::TaskCancelled { id, .. }
				| E::ProofRejected { id, .. },
			) => {
				paid.remove(&id);
			}
			_ => {}
		}
	}
	frame_system::Pallet::<Runtime>::reset_events();
}

/// Plays `tasks` tasks from `seed`; returns the table's lines and a summary of the run.
pub fn run(tasks: u32, seed: u64) -> (Vec<Line>, String) {
	let rows = table::rows();
	let mut w = World::new(world::population(), seed, Perbill::from_percent(50));
	let mut ext = common::new_ext("development");
	ext.execute_with(|| {
		common::run_to_block(1);
		common::set_task_periods(12, 10, None);
		w.set_up();
	});
	let mut snaps: Vec<Snapshot> = vec![ext.execute_with(|| table::snapshot(&w, &rows))];
	let (mut owners, mut paid) = (BTreeMap::new(), BTreeMap::new());
	let mut o = Outcomes::default();
	let per_window = tasks.div_ceil(WINDOWS).max(1);
	let mut blocks = 0u32;
	loop {
		let idle = ext.execute_with(|| {
			common::run_to_block(common::now() + 1);
			agents::act(&mut w, IN_FLIGHT, tasks);
			book_events(&mut w, &mut o, &mut owners, &mut paid);
			pallet_gensyn_tasks::Tasks::<Runtime>::iter_keys().next().is_none()
				&& pallet_gensyn_arbitration::Disputes::<Runtime>::iter_keys().next().is_none()
		});
		blocks += 1;
		if blocks.is_multiple_of(16) {
			// Committing keeps a block's cost flat as the run grows.
			ext.commit_all().expect("commits");
		}
		let finished = idle && w.submitted >= tasks;
		let window_full = w.submitted >= per_window * snaps.len() as u32;
		if (window_full && (snaps.len() as u32) < WINDOWS) || finished {
			snaps.push(ext.execute_with(|| table::snapshot(&w, &rows)));
		}
		if finished {
			break;
		}
		assert!(blocks < 200 * tasks + 100_000, "the run never drained");
	}
	let pot = ext.execute_with(|| {
		let account = <Runtime as pallet_gensyn_jackpot::Config>::PotAccount::get();
		<gensyn_runtime::Balances as frame_support::traits::fungible::Inspect<_>>::balance(&account)
	});
	let gsn = |p: u128| p as f64 / gensyn_runtime::UNIT as f64;
	let summary = format!(
		"{tasks} tasks (seed {seed}) in {blocks} blocks: {} completed, {} proofs rejected, \
		 {} failed refunded; {} forced errors caught, {:.3} GSN paid from the pot; pot at the \
		 end {:.3} GSN",
		o.completed,
		o.rejected,
		o.failed,
		o.catches,
		gsn(o.catch_paid),
		gsn(pot)
	);
	(table::lines(&w, &rows, &snaps), summary)
}

/// A smaller table than `scripts/economics.sh` prints: every deviation the protocol closes
/// loses money against honest play (its whole 95% interval below zero), and honest
/// solvers and verifiers earn.
#[test]
fn closed_deviations_lose_against_honest_play() {
	let (lines, summary) = run(1_000, 1);
	let text = table::render(&lines);
	println!("{summary}\n{text}");
	let line = |name: &str| lines.iter().find(|l| l.name == name).expect("a line");
	for name in CLOSED {
		let l = line(name);
		assert!(l.tasks > 0 && l.mean + l.half < 0.0, "{name} does not lose:\n{text}");
	}
	for name in ["honest solver", "honest verifier"] {
		let l = line(name);
		assert!(l.mean - l.half > 0.0, "{name} does not earn:\n{text}");
	}
}

/// The deviations whose loss a small run already shows beyond its noise. The others
/// (a 1% faker, whose rare catch is a large slash; a copycat and a verifier with its own
/// whistleblower, which the watcher rule leaves near honest play) need the full table.
const CLOSED: [&str; 8] = [
	"lazy solver",
	"partial faker 50%",
	"colluding solver + bribed verifier",
	"contesting faker 50%",
	"lazy verifier",
	"silent verifier",
	"spam challenger",
	"griefing submitter",
];

/// The full table that `scripts/economics.sh` prints (`ECONOMICS_TASKS` tasks, 10,000
/// unless set).
#[test]
#[ignore = "the full table takes minutes: scripts/economics.sh runs it"]
fn table() {
	let tasks =
		std::env::var("ECONOMICS_TASKS").ok().and_then(|s| s.parse().ok()).unwrap_or(10_000);
	let seed = std::env::var("ECONOMICS_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(1);
	let (lines, summary) = run(tasks, seed);
	println!("{summary}\n{}", table::render(&lines));
}
