//! What the runtime API shows each worker: duties to verify, watch, commit, reveal.

use super::*;

#[test]
fn whistleblowers_watch_unchallenged_verdicts_in_the_window() {
	new_test_ext().execute_with(|| {
		let id = verifying();
		reg(13, Role::Whistleblower);
		let watched = |who: u64| {
			TaskPallet::duties(&who)
				.into_iter()
				.filter_map(|d| match d {
					Duty::Watch { task, segment, by } => Some((task, segment, by)),
					_ => None,
				})
				.collect::<Vec<_>>()
		};
		assert!(watched(13).is_empty(), "no verdict yet");
		verify_all(id, true);
		let audits = Audits::<T>::get(id);
		let end = task(id).window_end;
		let all: Vec<_> = audits.iter().map(|a| (id, a.segment, end)).collect();
		assert_eq!(watched(13), all);
		assert!(watched(14).is_empty(), "not a whistleblower");
		// A verifier that is also a whistleblower does not watch its own verdicts.
		let a = audits[0].clone();
		reg(a.verifier, Role::Whistleblower);
		assert!(watched(a.verifier).iter().all(|(_, s, _)| {
			audits.iter().any(|b| b.segment == *s && b.verifier != a.verifier)
		}));
		// A challenged verdict is no longer watched.
		assert_ok!(TaskPallet::challenge(RuntimeOrigin::signed(13), id, a.segment));
		assert!(!watched(13).iter().any(|(_, s, _)| *s == a.segment));
		assert_eq!(watched(13).len(), all.len() - 1);
	});
}

#[test]
fn a_solver_watches_failing_verdicts_on_its_own_work() {
	new_test_ext().execute_with(|| {
		let id = verifying();
		let watched = || {
			TaskPallet::duties(&10)
				.into_iter()
				.filter(|d| matches!(d, Duty::Watch { .. }))
				.collect::<Vec<_>>()
		};
		verify_all(id, true);
		assert!(watched().is_empty(), "a pass is nothing to contest");
		// The same segment failed instead: the solver is shown it and may challenge it.
		let a = Audits::<T>::get(id)[0].clone();
		Audits::<T>::mutate(id, |audits| {
			if let Some(v) = audits[0].verdict.as_mut() {
				v.pass = false;
			}
		});
		let end = task(id).window_end;
		assert!(watched().is_empty(), "the watcher's alone until reveals open");
		run_to_reveals(id);
		assert_eq!(watched(), vec![Duty::Watch { task: id, segment: a.segment, by: end }]);
		assert_ok!(TaskPallet::challenge(RuntimeOrigin::signed(10), id, a.segment));
		assert!(watched().is_empty(), "challenged");
		assert!(TaskPallet::duties(&10).contains(&Duty::Dispute { task: id, segment: a.segment }));
		// The solver loses the game: slashed for a false challenge, the verdict stands.
		let sb = Stake::bond(&10, Role::Solver);
		rule(id, a.segment, false);
		let slash: u64 = <<T as Config>::FalseChallengeSlash as Get<u64>>::get();
		assert_eq!(Stake::bond(&10, Role::Solver), sb - slash);
		// It contested that verdict once: it is not shown it again (the window stays open
		// a whole period from the ruling, for anyone else).
		assert!(watched().is_empty(), "contested once");
	});
}

#[test]
fn a_solver_is_not_shown_forced_or_unrevealed_failing_verdicts() {
	new_test_ext().execute_with(|| {
		let id = verifying_with_jackpot(sp_runtime::Perbill::one());
		let a = Audits::<T>::get(id)[0].clone();
		verify_all(id, false);
		let watches =
			|| TaskPallet::duties(&10).iter().filter(|d| matches!(d, Duty::Watch { .. })).count();
		assert_eq!(watches(), 0, "not revealed: it may be a forced error");
		reveal(a.verifier, id);
		assert_eq!(watches(), 0, "a forced error never counts against the solver");
	});
}

#[test]
fn the_runtime_api_helpers_list_duties() {
	new_test_ext().execute_with(|| {
		let id = verifying();
		let a = Audits::<T>::get(id)[0].clone();
		let d = TaskPallet::duties(&a.verifier);
		assert_eq!(d, vec![Duty::Verify { task: id, segment: a.segment, by: 13, forcible: true }]);
		assert!(TaskPallet::duties(&10).is_empty(), "the solver waits");
		let view = TaskPallet::view(id).unwrap();
		assert_eq!(view.phase, Phase::Verifying);
		verify_all(id, true);
		assert_eq!(TaskPallet::challengeable(), vec![(id, task(id).deadline)]);
	});
}

#[test]
fn verifiers_are_told_to_commit_and_to_reveal_until_they_do() {
	new_test_ext().execute_with(|| {
		let id = verifying_with_jackpot(sp_runtime::Perbill::zero());
		let a = Audits::<T>::get(id)[0].clone();
		let v = a.verifier;
		// The draw consumed the commitment: the verifier must post a fresh one.
		assert!(TaskPallet::duties(&v).contains(&Duty::Commit));
		commit(v);
		assert!(!TaskPallet::duties(&v).contains(&Duty::Commit));
		assert!(!TaskPallet::duties(&77).contains(&Duty::Commit), "not a verifier");
		verify_all(id, true);
		let end = task(id).window_end;
		assert_eq!(task(id).phase, Phase::Challenge);
		let reveals = |who: u64| {
			TaskPallet::duties(&who)
				.into_iter()
				.filter(|d| matches!(d, Duty::Reveal { .. }))
				.collect::<Vec<_>>()
		};
		let from = TaskPallet::reveal_point(end);
		assert_eq!(reveals(v), vec![Duty::Reveal { task: id, from, by: end }]);
		reveal(v, id);
		assert!(reveals(v).is_empty(), "revealed");
		// The view carries what verifiers need: randomness, threshold, result location.
		let view = TaskPallet::view(id).unwrap();
		let result = view.result.expect("a committed result");
		assert_eq!(result.checkpoints, 8);
		assert_eq!(result.checkpoint_root, merkle::root(&leaves(8)));
		assert_eq!(view.order_randomness, task(id).order_randomness);
	});
}

/// A client pages through the live tasks in id order: each live task once and none that
/// left storage, however small the page; a zero limit still moves on, and `next` ends.
#[test]
fn live_tasks_come_a_page_at_a_time_in_id_order() {
	new_test_ext().execute_with(|| {
		reg(10, Role::Solver);
		reg(11, Role::Verifier);
		let ids: Vec<TaskId> = (1..=5)
			.map(|owner| {
				assert_ok!(TaskPallet::submit_task(RuntimeOrigin::signed(owner), spec()));
				last_task()
			})
			.collect();
		for gone in [ids[1], ids[3]] {
			let owner = task(gone).owner;
			assert_ok!(TaskPallet::cancel_task(RuntimeOrigin::signed(owner), gone));
		}
		let live: Vec<(TaskId, u64)> = [0, 2, 4].map(|i| (ids[i], task(ids[i]).owner)).to_vec();
		let (mut seen, mut from, mut pages) = (Vec::new(), Some(ids[0]), 0);
		while let Some(f) = from {
			let page = TaskPallet::page(f, 1);
			assert!(page.tasks.len() <= 1, "{page:?}");
			seen.extend(page.tasks.iter().map(|(id, v)| (*id, v.owner)));
			from = page.next;
			pages += 1;
			assert!(pages <= ids.len(), "the pages end");
		}
		assert_eq!(seen, live);
		let all = TaskPallet::page(0, u32::MAX);
		assert_eq!(
			all.tasks.iter().map(|(id, _)| *id).collect::<Vec<_>>(),
			[0, 2, 4].map(|i| ids[i])
		);
		assert_eq!(all.next, None);
		let one = TaskPallet::page(ids[0], 0);
		assert_eq!((one.tasks.len(), one.next), (1, Some(ids[0] + 1)));
		assert_eq!(TaskPallet::page(ids[4] + 1, 10), TaskPage { tasks: vec![], next: None });
	});
}

/// A settled task leaves storage: its completion event names the solver and carries
/// where the trained run is served and the roots to check it against, as the task's
/// view showed them before.
#[test]
fn a_completed_tasks_event_keeps_its_result() {
	new_test_ext().execute_with(|| {
		let id = verifying();
		let shown = TaskPallet::view(id).and_then(|v| v.result);
		assert!(shown.is_some());
		verify_all(id, true);
		run_to(task(id).deadline);
		assert!(Tasks::<T>::get(id).is_none(), "settled");
		let kept = events().into_iter().find_map(|e| match e {
			Event::TaskCompleted { id: done, solver, result, .. } if done == id => {
				Some((solver, result))
			}
			_ => None,
		});
		assert_eq!(kept, Some((10, shown)));
	});
}
