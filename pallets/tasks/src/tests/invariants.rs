//! The paged deadline queue under a flood, and `do_try_state` catching broken invariants.

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
		// One solver whose bond covers every task at once, so that each is offered.
		reg_bonded(10, Role::Solver, 40_000);
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

/// A flood carries an offer's lapse over to later blocks; until it is handled, the
/// solver's accept finds the task still offered. The block decides, not the queue: a late
/// accept is refused, and the lapse is slashed when its turn comes.
#[test]
fn an_accept_after_its_deadline_is_refused_while_the_flood_carries_the_lapse() {
	new_test_ext().execute_with(|| {
		reg_bonded(10, Role::Solver, 40_000);
		reg(11, Role::Verifier);
		for i in 0..30u64 {
			assert_ok!(TaskPallet::submit_task(RuntimeOrigin::signed(1 + i % 5), spec()));
		}
		let offered = task(last_task());
		assert_eq!((offered.phase, offered.solver), (Phase::Offered, Some(10)));
		run_to(offered.deadline + 1);
		// One whose lapse waits in the backlog.
		let (id, _) = Tasks::<T>::iter()
			.find(|(_, t)| t.phase == Phase::Offered && t.deadline == offered.deadline)
			.expect("a page of lapses is carried over");
		assert_noop!(
			TaskPallet::accept_task(RuntimeOrigin::signed(10), id),
			Error::<T>::DeadlinePassed
		);
		let bond = Stake::bond(&10, Role::Solver);
		while !pages(offered.deadline).is_empty() {
			run_to(System::block_number() + 1);
		}
		let t = task(id);
		assert_eq!((t.phase, t.excluded.to_vec()), (Phase::Queued, vec![10]), "lapsed");
		assert!(Stake::bond(&10, Role::Solver) < bond, "the late solver pays for its lapse");
		check();
	});
}

/// Every act due by a deadline is refused from the deadline's block on, whether or not
/// a backlogged queue has handled the lapse yet: a result, a verdict, a report of an
/// unavailable store, a profile's commitment and its reveal.
#[test]
fn no_act_is_taken_once_its_deadline_has_come() {
	let at_deadline = |id: TaskId| System::set_block_number(task(id).deadline);
	new_test_ext().execute_with(|| {
		let id = submitted();
		assert_ok!(TaskPallet::accept_task(RuntimeOrigin::signed(10), id));
		at_deadline(id);
		let n = task(id).checkpoints;
		assert_noop!(
			TaskPallet::submit_result(
				RuntimeOrigin::signed(10),
				id,
				[9; 32],
				merkle::root(&leaves(n)),
				n,
				BoundedVec::truncate_from(b"/run/1".to_vec())
			),
			Error::<T>::DeadlinePassed
		);
	});
	new_test_ext().execute_with(|| {
		let id = verifying();
		let a = Audits::<T>::get(id)[0].clone();
		at_deadline(id);
		let p = proof_for(task(id).checkpoints, a.segment);
		let verdict = TaskPallet::submit_verification(
			RuntimeOrigin::signed(a.verifier),
			id,
			a.segment,
			0,
			p.checkpoint_hash,
			p,
		);
		assert_noop!(verdict, Error::<T>::DeadlinePassed);
		assert_noop!(
			TaskPallet::report_unavailable(RuntimeOrigin::signed(a.verifier), id, a.segment),
			Error::<T>::DeadlinePassed
		);
	});
	ExtBuilder::default().profile(4).build().execute_with(|| {
		let id = profiled_among(&[11, 12, 13]);
		let drawn: Vec<u64> = task(id).profilers.iter().map(|p| p.who).collect();
		assert_ok!(commit_threshold(drawn[0], id, 1.0));
		assert_ok!(commit_threshold(drawn[1], id, 1.0));
		at_deadline(id);
		assert_noop!(commit_threshold(drawn[2], id, 1.0), Error::<T>::DeadlinePassed);
	});
	ExtBuilder::default().profile(4).build().execute_with(|| {
		let id = profiled_among(&[11, 12, 13]);
		let drawn: Vec<u64> = task(id).profilers.iter().map(|p| p.who).collect();
		for p in &drawn {
			assert_ok!(commit_threshold(*p, id, 1.0));
		}
		assert_eq!(task(id).phase, Phase::ProfileReveal);
		assert_ok!(reveal_threshold(drawn[0], id, 1.0));
		at_deadline(id);
		assert_noop!(reveal_threshold(drawn[1], id, 1.0), Error::<T>::DeadlinePassed);
	});
}
