//! The paged deadline queue under a flood, its migration, and `do_try_state` catching broken invariants.

use super::*;

/// Pages of deadlines filed at `at`, with their lengths.
fn pages(at: u64) -> Vec<usize> {
	(0..DeadlineCounts::<T>::get(at)).map(|p| DeadlinePages::<T>::get(at, p).len()).collect()
}

/// A6: a flood of deadlines at one block never fails a task nor refuses a call: they
/// are filed on as many pages as it takes, a block handles a page's worth of them, and
/// the rest carries over to the next blocks, late but never lost. (Version 0's bounded
/// lists spilled at most 64 blocks: the 193rd task here was refused `DeadlineQueueFull`.)
#[test]
fn a_flood_of_deadlines_carries_over_and_fails_no_task() {
	new_test_ext().execute_with(|| {
		reg(10, Role::Solver);
		reg(11, Role::Verifier);
		let tasks = 200u64;
		for i in 0..tasks {
			assert_ok!(TaskPallet::submit_task(RuntimeOrigin::signed(1 + i % 5), spec()));
		}
		// Three a page: 67 pages at block 6.
		let filed = pages(6).len() as u64;
		assert_eq!(filed, 67);
		assert_eq!(pages(6).iter().sum::<usize>(), tasks as usize);
		check();
		run_to(6);
		// Block 6 handled its share; the rest waits, and its tasks still stand.
		let per_block = 1;
		assert_eq!(DeadlineBacklog::<T>::get(), Some(6));
		assert_eq!(pages(6).len() as u64, filed - per_block);
		check();
		// Block 6's last page is handled `filed / per_block` blocks later.
		let last = 6 + filed.div_ceil(per_block) - 1;
		run_to(last - 1);
		assert!(!pages(6).is_empty());
		run_to(last);
		assert!(pages(6).is_empty());
		// Every offer lapsed (the one solver let them) and each task waits for another;
		// none failed, the one solver being drawn as many times as a task allows.
		assert_eq!(Tasks::<T>::iter().count(), tasks as usize, "no task failed");
		assert!(Tasks::<T>::iter().all(|(_, t)| t.phase == Phase::Queued));
		assert!(!events().iter().any(|e| matches!(e, Event::TaskFailed { .. })));
		check();
	});
}

/// Stale entries (tasks cancelled after their deadline was filed) cost a read each, not
/// a handling: 30 of them ahead of a live deadline delay it by one block, not ten.
#[test]
fn stale_deadlines_do_not_hold_up_live_ones() {
	new_test_ext().execute_with(|| {
		reg(10, Role::Solver);
		reg(11, Role::Verifier);
		assert_ok!(TaskPallet::submit_task(RuntimeOrigin::signed(2), spec()));
		let live = last_task();
		for _ in 0..30 {
			assert_ok!(TaskPallet::submit_task(RuntimeOrigin::signed(1), spec()));
			assert_ok!(TaskPallet::cancel_task(RuntimeOrigin::signed(1), last_task()));
		}
		assert_eq!(pages(6).iter().sum::<usize>(), 31);
		run_to(7);
		assert!(pages(6).is_empty(), "31 entries seen in two blocks");
		assert_eq!(task(live).phase, Phase::Queued, "the live offer lapsed and was handled");
	});
}

/// Version 0's deadline lists become pages of the paged queue, and nothing is lost.
#[test]
fn the_v0_deadline_lists_migrate_to_pages() {
	use frame_support::traits::OnRuntimeUpgrade;
	new_test_ext().execute_with(|| {
		reg(10, Role::Solver);
		reg(11, Role::Verifier);
		let ids: Vec<TaskId> = (0..4)
			.map(|_| {
				assert_ok!(TaskPallet::submit_task(RuntimeOrigin::signed(1), spec()));
				NextTaskId::<T>::get() - 1
			})
			.collect();
		// Put the storage back as version 0 had it: one list per block.
		let _ = DeadlinePages::<T>::clear(u32::MAX, None);
		let _ = DeadlineCounts::<T>::clear(u32::MAX, None);
		crate::migrations::v0::Deadlines::<T>::insert(
			6,
			BoundedVec::truncate_from(ids[..3].to_vec()),
		);
		crate::migrations::v0::Deadlines::<T>::insert(
			7,
			BoundedVec::truncate_from(ids[3..].to_vec()),
		);
		for id in &ids[3..] {
			Tasks::<T>::mutate(id, |t| t.as_mut().unwrap().deadline = 7);
		}
		StorageVersion::new(0).put::<TaskPallet>();
		crate::migrations::V0ToV1::<T>::on_runtime_upgrade();
		assert_eq!(StorageVersion::get::<TaskPallet>(), 1);
		assert_eq!(crate::migrations::v0::Deadlines::<T>::iter().count(), 0);
		assert_eq!((pages(6), pages(7)), (vec![3], vec![1]));
		check();
		run_to(7);
		// Every deadline was handled: each offer lapsed and the task waits.
		assert!(Tasks::<T>::iter().all(|(_, t)| t.phase == Phase::Queued));
	});
}

/// Version 1 kept one excluded worker per task; the migration to version 2 turns it into
/// the first of a list, and every task still reads back whole and keeps its invariants.
#[test]
fn one_excluded_worker_becomes_a_list_when_storage_moves_to_version_2() {
	use crate::migrations::v1;
	use frame_support::traits::OnRuntimeUpgrade;
	new_test_ext().execute_with(|| {
		reg(11, Role::Solver);
		let with = submitted();
		assert_ok!(TaskPallet::submit_task(RuntimeOrigin::signed(1), spec()));
		let without = NextTaskId::<T>::get() - 1;
		let t = task(with);
		assert_ok!(TaskPallet::decline_task(RuntimeOrigin::signed(t.solver.unwrap()), with));
		let before: Vec<_> = [with, without].iter().map(|id| task(*id)).collect();
		assert_eq!(before[0].excluded.len(), 1);
		assert!(before[1].excluded.is_empty());
		for (id, t) in [with, without].into_iter().zip(before.clone()) {
			let old = v1::Task::<T> {
				owner: t.owner,
				escrow: t.escrow,
				solver_pay: t.solver_pay,
				segment_pay: t.segment_pay,
				jackpot_cut: t.jackpot_cut,
				treasury_cut: t.treasury_cut,
				gas: t.gas,
				memory_mib: t.memory_mib,
				checkpoints: t.checkpoints,
				audits: t.audits,
				phase: t.phase,
				deadline: t.deadline,
				draws: t.draws,
				solver: t.solver,
				excluded: t.excluded.first().cloned(),
				rounds: t.rounds,
				order_randomness: t.order_randomness,
				result: t.result,
				window_end: t.window_end,
				engaged: t.engaged,
				profiler: t.profiler,
				threshold: t.threshold,
			};
			v1::Tasks::<T>::insert(id, old);
		}
		assert!(Tasks::<T>::try_get(with).is_err(), "version 1's bytes do not read as version 2");
		StorageVersion::new(1).put::<TaskPallet>();
		crate::migrations::V1ToV2::<T>::on_runtime_upgrade();
		assert_eq!(StorageVersion::get::<TaskPallet>(), 2);
		assert_eq!(vec![task(with), task(without)], before);
		check();
		// Run once: a second upgrade leaves version 2's tasks as they are.
		crate::migrations::V1ToV2::<T>::on_runtime_upgrade();
		assert_eq!(vec![task(with), task(without)], before);
	});
}

/// Version 2's audits named no re-checked verifier; the migration to version 3 reads
/// each back whole, re-checking nothing, and runs once.
#[test]
fn audits_gain_no_recheck_when_storage_moves_to_version_3() {
	use crate::migrations::v2;
	use frame_support::traits::OnRuntimeUpgrade;
	new_test_ext().execute_with(|| {
		let half = spec_with(|s| s.verification.audit_fraction = SpecPermill(500_000));
		let id = verifying_with(half);
		let a = Audits::<T>::get(id)[0].clone();
		assert_ok!(TaskPallet::report_unavailable(
			RuntimeOrigin::signed(a.verifier),
			id,
			a.segment
		));
		let before = Audits::<T>::get(id);
		assert!(before.len() > 1 && before.iter().all(|a| a.rechecks.is_none()));
		let old: Vec<v2::Audit<u64>> = before
			.clone()
			.into_iter()
			.map(|a| v2::Audit {
				segment: a.segment,
				verifier: a.verifier,
				verdict: a.verdict,
				challenger: a.challenger,
				overturned: a.overturned,
				refuted_by: a.refuted_by,
				reaudits: a.reaudits,
				unavailable: a.unavailable,
				reported_before: a.reported_before,
			})
			.collect();
		v2::Audits::<T>::insert(id, BoundedVec::truncate_from(old));
		assert!(Audits::<T>::try_get(id).is_err(), "version 2's bytes do not read as version 3");
		StorageVersion::new(2).put::<TaskPallet>();
		crate::migrations::V2ToV3::<T>::on_runtime_upgrade();
		assert_eq!(StorageVersion::get::<TaskPallet>(), 3);
		assert_eq!(Audits::<T>::get(id), before);
		check();
		// Run once: a second upgrade leaves version 3's audits as they are.
		crate::migrations::V2ToV3::<T>::on_runtime_upgrade();
		assert_eq!(Audits::<T>::get(id), before);
	});
}

#[test]
fn try_state_catches_broken_invariants() {
	new_test_ext().execute_with(|| {
		let id = submitted();
		Tasks::<T>::mutate(id, |t| t.as_mut().unwrap().escrow -= 1);
		assert!(TaskPallet::do_try_state().is_err());
		Tasks::<T>::mutate(id, |t| t.as_mut().unwrap().escrow += 1);
		assert!(TaskPallet::do_try_state().is_ok());
		DeadlinePages::<T>::remove(6, 0);
		assert!(TaskPallet::do_try_state().is_err());
	});
}
