//! Runtime upgrades and demanded checkpoints. An upgrade stops every node's workers until
//! its operator runs the new version, so a demand still due at it is due a period after
//! it; one that lapsed before it stays lapsed, and its withholder answers for it.

use super::{
	availability::{demand, demand_held, pages, passed, publish, settle, tiny},
	*,
};
use gensyn_primitives::publish as pages_of;

/// A runtime upgrade stops every node's workers until its operator runs the new
/// version: a demand still due at it is due a whole period after it, the solver's turn
/// first, and one made within a period after it starts its period when that grace ends,
/// so neither the solver nor its standby answers for time the upgrade took. The upgrade
/// writes no demand (it would visit every round's): the due is read past the kept
/// upgrades, so a second upgrade after the demand's first due, while the first
/// upgrade's grace lasts, gives it a period more, and pages past the first due are
/// taken.
#[test]
fn a_runtime_upgrade_restarts_a_demands_period() {
	use frame_support::traits::Hooks;
	new_test_ext().execute_with(|| {
		let spec = tiny();
		let (id, leaves) = passed(spec.clone());
		let segment = Audits::<T>::get(id)[0].segment;
		assert_ok!(demand(13, id, segment));
		let d = Demands::<T>::get(id)[0].clone();
		let period = d.due - d.at;
		run_to(TaskPallet::solvers_turn_end(&d) + 1);
		// The hook runs before the block number moves on to the upgrade's block.
		let now = System::block_number() + 1;
		TaskPallet::on_runtime_upgrade();
		assert_eq!(LastUpgrade::<T>::get(), now);
		assert_eq!(Upgrades::<T>::get().to_vec(), vec![now]);
		assert_eq!(Demands::<T>::get(id), vec![d.clone()], "the upgrade writes no demand");
		assert_eq!(TaskPallet::demand_due(&d), now + period);
		let standby = d.standby.unwrap();
		let asked = TaskPallet::duties(&standby).iter().any(|d| matches!(d, Duty::Publish { .. }));
		assert!(!asked, "the solver's turn again");

		// A second upgrade past the first due, within the first upgrade's grace.
		run_to(d.due + 1);
		let second = System::block_number() + 1;
		assert!(second < now + period);
		TaskPallet::on_runtime_upgrade();
		assert_eq!(TaskPallet::demand_due(&d), second + period);
		// The solver's pages are taken past the demand's first due, and read from its block.
		let pages = pages(&spec, &leaves, segment);
		run_to(second + 1);
		for p in &pages {
			assert_ok!(publish(10, id, segment, p));
		}
		assert_eq!(Demands::<T>::get(id)[0].next, None);
		settle(id);
		assert!(!events().iter().any(|e| matches!(e, Event::CheckpointWithheld { .. })));
		check();
	});
	new_test_ext().execute_with(|| {
		// A demand made within a period of an upgrade starts its period after that grace.
		let (id, _) = passed(tiny());
		let now = System::block_number();
		LastUpgrade::<T>::put(now - 1);
		assert_ok!(demand(13, id, Audits::<T>::get(id)[0].segment));
		let d = Demands::<T>::get(id)[0].clone();
		let pages = pages_of::page_count(&pages_of::tensor_lengths(&tiny()));
		let period = <<T as Config>::PublishPeriod as Get<u64>>::get().max(4 * pages);
		assert_eq!((d.at, d.due), (now, now - 1 + 2 * period));
		assert_eq!(TaskPallet::demand_due(&d), d.due, "no grace on top of its own");
	});
}

/// A demand's due counts each kept upgrade it was still due at, in order: one that lapsed
/// before an upgrade stays lapsed (its demander is owed its bounty), and one made after
/// an upgrade owes it nothing. The chain keeps the last `UPGRADES_KEPT` upgrades.
#[test]
fn a_demands_due_counts_each_upgrade_it_was_still_due_at() {
	use frame_support::traits::Hooks;
	let d = Demand {
		checkpoint: 1,
		by: 13u64,
		fee: 0u64,
		at: 10u64,
		due: 20,
		next: None,
		standby: None,
	};
	let due = |upgrades: &[u64]| d.due_since(upgrades);
	assert_eq!(due(&[5]), 20, "made after it");
	assert_eq!(due(&[10]), 20, "made in its block, after it");
	assert_eq!(due(&[15]), 25);
	assert_eq!(due(&[20]), 20, "lapsed at it");
	assert_eq!(due(&[15, 22]), 32, "the first upgrade's grace held it open at the second");
	assert_eq!(due(&[15, 25]), 25, "lapsed again before the second");
	assert_eq!(due(&[15, 22, 31]), 41);
	assert_eq!(d.solvers_turn_end(&[15]), 17, "half-way from the demand to its due");
	new_test_ext().execute_with(|| {
		let kept = UPGRADES_KEPT as u64;
		for n in 1..=kept + 1 {
			run_to(System::block_number() + 1);
			TaskPallet::on_runtime_upgrade();
			assert_eq!(Upgrades::<T>::get().len() as u64, n.min(kept));
		}
		let last = System::block_number() + 1;
		let kept_blocks: Vec<u64> = (last + 1 - kept..=last).collect();
		assert_eq!(Upgrades::<T>::get().to_vec(), kept_blocks, "the oldest dropped");
	});
}

/// The attack: a solver withholds a demanded checkpoint past its due, and a runtime
/// upgrade comes after it, hoping the upgrade's grace reopens the demand so that the
/// pages it publishes then are taken. They are refused, the settlement rejects the proof
/// as withheld, and the withholder loses its bond while its demander gains the bounty
/// with its fee back; the owner pays nothing.
#[test]
fn a_demand_lapsed_before_an_upgrade_stays_lapsed_and_its_withholder_pays() {
	use frame_support::traits::Hooks;
	new_test_ext().execute_with(|| {
		// A long window: the demand lapses well before it ends.
		PERIOD.with(|p| *p.borrow_mut() = 400);
		let spec = tiny();
		let (id, leaves) = passed(spec.clone());
		let segment = Audits::<T>::get(id)[0].segment;
		let (solver, demander, owner) = (worth(10), worth(13), worth(1));
		assert_ok!(demand(13, id, segment));
		let d = Demands::<T>::get(id)[0].clone();
		run_to(d.due + 1);
		assert!(task(id).window_end > d.due + 2, "the window outlasts the demand");
		TaskPallet::on_runtime_upgrade();
		assert_eq!(TaskPallet::demand_due(&d), d.due, "lapsed before the upgrade");
		run_to(System::block_number() + 1);
		let late = pages(&spec, &leaves, segment);
		assert_noop!(publish(10, id, segment, &late[0]), Error::<T>::DemandLapsed);
		settle(id);
		let withheld = Event::CheckpointWithheld { id, checkpoint: segment, by: 13 };
		assert!(events().contains(&withheld));
		assert!(events()
			.iter()
			.any(|e| matches!(e, Event::ProofRejected { id: i, solver: 10, .. } if *i == id)));
		assert!(worth(10) + 100 <= solver, "the withholder loses its bond");
		assert_eq!(worth(13), demander + 10, "the demander gains the bounty, its fee back");
		assert_eq!(demand_held(13), 0);
		assert_eq!(worth(1), owner, "the owner pays nothing");
		check();
	});
}
