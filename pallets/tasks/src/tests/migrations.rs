//! Storage migrations: each version's records read back whole in the next, once.

use super::*;

/// Version 1 kept one excluded worker per task; the migration to version 2 turns it into
/// the first of a list, and every task still reads back whole and keeps its invariants.
#[test]
fn one_excluded_worker_becomes_a_list_when_storage_moves_to_version_2() {
	use crate::migrations::{v1, v3};
	use frame_support::traits::OnRuntimeUpgrade;
	new_test_ext().execute_with(|| {
		reg(11, Role::Solver);
		let with = submitted();
		assert_ok!(TaskPallet::submit_task(RuntimeOrigin::signed(1), spec()));
		let without = NextTaskId::<T>::get() - 1;
		let t = task(with);
		assert_ok!(TaskPallet::decline_task(RuntimeOrigin::signed(t.solver.unwrap()), with));
		let before: Vec<_> = [with, without].iter().map(|id| task(*id)).collect();
		assert!(before.iter().all(|t| t.profilers.is_empty()));
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
				profiler: None,
				threshold: t.threshold,
			};
			v1::Tasks::<T>::insert(id, old);
		}
		assert!(Tasks::<T>::try_get(with).is_err(), "version 1's bytes do not read as version 2");
		StorageVersion::new(1).put::<TaskPallet>();
		crate::migrations::V1ToV2::<T>::on_runtime_upgrade();
		assert_eq!(StorageVersion::get::<TaskPallet>(), 2);
		let excluded = |id| v3::Tasks::<T>::get(id).map(|t| t.excluded);
		assert_eq!(excluded(with), Some(before[0].excluded.clone()));
		// Run once: a second upgrade leaves version 2's tasks as they are.
		crate::migrations::V1ToV2::<T>::on_runtime_upgrade();
		assert_eq!(excluded(with), Some(before[0].excluded.clone()));
		// The later migrations carry them on to today's record.
		crate::migrations::V2ToV3::<T>::on_runtime_upgrade();
		crate::migrations::V3ToV4::<T>::on_runtime_upgrade();
		assert_eq!(StorageVersion::get::<TaskPallet>(), 4);
		assert_eq!(vec![task(with), task(without)], before);
		check();
	});
}

/// Version 2's audits named no re-checked verifier, nor do version 23's; the migration to
/// version 3 reads each back whole and runs once.
#[test]
fn audits_read_back_whole_when_storage_moves_to_version_3() {
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
		assert!(before.len() > 1);
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

/// Version 3 named one profiler per task; the migration to version 4 makes it the first
/// of the list, still to post, and the task carries on: its profiler posts, the threshold
/// is its own (no other profile was funded) and it is paid as before.
#[test]
fn a_profiler_becomes_a_list_when_storage_moves_to_version_4() {
	use crate::migrations::v3;
	use frame_support::traits::OnRuntimeUpgrade;
	ExtBuilder::default().profile(4).build().execute_with(|| {
		reg(10, Role::Solver);
		reg(11, Role::Verifier);
		assert_ok!(TaskPallet::submit_task(RuntimeOrigin::signed(1), spec()));
		let id = last_task();
		run_to(task(id).deadline);
		let t = task(id);
		assert_eq!(t.profilers.to_vec(), vec![Profile { who: 11, threshold: None }]);
		let old = v3::Task::<T> {
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
			excluded: t.excluded.clone(),
			rounds: t.rounds,
			order_randomness: t.order_randomness,
			result: t.result.clone(),
			window_end: t.window_end,
			engaged: t.engaged.clone(),
			profiler: Some(11),
			threshold: None,
		};
		v3::Tasks::<T>::insert(id, old);
		assert!(Tasks::<T>::try_get(id).is_err(), "version 3's bytes do not read as version 4");
		StorageVersion::new(3).put::<TaskPallet>();
		crate::migrations::V3ToV4::<T>::on_runtime_upgrade();
		assert_eq!(StorageVersion::get::<TaskPallet>(), 4);
		assert_eq!(task(id), t);
		check();
		crate::migrations::V3ToV4::<T>::on_runtime_upgrade();
		assert_eq!(task(id), t, "run once");
		let before = Balances::free_balance(11);
		let three = f32::to_bits(3.0);
		post_profiles(id, &[(11, 3.0)]);
		assert_eq!(task(id).threshold, Some(three));
		assert_eq!(Balances::free_balance(11), before + t.segment_pay);
		check();
	});
}

/// Version 4 kept no challenge's block; the migration to version 5 counts every open or
/// won challenge as opened before any reveal, so a catch in flight is still paid.
#[test]
fn challenges_in_flight_count_as_before_any_reveal_when_storage_moves_to_version_5() {
	use frame_support::traits::OnRuntimeUpgrade;
	new_test_ext().execute_with(|| {
		let id = verifying();
		verify_all(id, false);
		reg(13, Role::Whistleblower);
		let segment = Audits::<T>::get(id)[0].segment;
		assert_ok!(watch_challenge(13, id, segment));
		// As version 4 left it: no entries.
		let _ = ChallengedAt::<T>::clear_prefix(id, u32::MAX, None);
		StorageVersion::new(4).put::<TaskPallet>();
		crate::migrations::V4ToV5::<T>::on_runtime_upgrade();
		assert_eq!(StorageVersion::get::<TaskPallet>(), 5);
		assert_eq!(ChallengedAt::<T>::iter_prefix(id).collect::<Vec<_>>(), vec![(segment, 0)]);
		check();
	});
}

#[test]
fn a_window_open_at_the_upgrade_gets_its_reveal_point_when_storage_moves_to_version_6() {
	use frame_support::traits::OnRuntimeUpgrade;
	new_test_ext().execute_with(|| {
		let windowed = verifying();
		verify_all(windowed, false);
		let end = task(windowed).window_end;
		let not_windowed = submitted_with(spec());
		// As version 5 left them: no reveal points.
		let _ = RevealsFrom::<T>::clear(u32::MAX, None);
		StorageVersion::new(5).put::<TaskPallet>();
		crate::migrations::V5ToV6::<T>::on_runtime_upgrade();
		assert_eq!(StorageVersion::get::<TaskPallet>(), 6);
		assert_eq!(RevealsFrom::<T>::get(windowed), Some(TaskPallet::reveal_point(end)));
		assert_eq!(RevealsFrom::<T>::get(not_windowed), None);
		check();
	});
}

#[test]
fn the_beacon_starts_folding_when_storage_moves_to_version_7() {
	use frame_support::traits::OnRuntimeUpgrade;
	new_test_ext().execute_with(|| {
		let id = committed();
		// As version 6 left it: no beacon.
		Beacon::<T>::kill();
		StorageVersion::new(6).put::<TaskPallet>();
		crate::migrations::V6ToV7::<T>::on_runtime_upgrade();
		assert_eq!(StorageVersion::get::<TaskPallet>(), 7);
		// The verifier draw due waits for the first fold, then happens.
		let due = task(id).deadline;
		run_to(due);
		assert_eq!(Beacon::<T>::get().map(|(_, at, _)| at), Some(due));
		assert_eq!(task(id).phase, Phase::Verifying);
		check();
	});
}

/// A profiler that declined under version 7 left the task's draws at `MaxDraws`; version
/// 8 reads only one past it as a decline, so the upgrade marks such a task declined, and
/// a post left alone there still goes to the pot, not to its poster.
#[test]
fn a_decline_before_the_upgrade_still_counts_when_storage_moves_to_version_8() {
	use frame_support::traits::OnRuntimeUpgrade;
	ExtBuilder::default().profile(4).build().execute_with(|| {
		let id = profiled_among(&[11, 12, 13]);
		assert_ok!(TaskPallet::decline_profile(RuntimeOrigin::signed(12), id));
		// As version 7 left it: the draws spent at `MaxDraws`.
		let max: u32 = <<T as Config>::MaxDraws as Get<u32>>::get();
		Tasks::<T>::mutate(id, |t| {
			if let Some(t) = t {
				t.draws = max;
			}
		});
		StorageVersion::new(7).put::<TaskPallet>();
		crate::migrations::V7ToV8::<T>::on_runtime_upgrade();
		assert_eq!(StorageVersion::get::<TaskPallet>(), 8);
		assert_eq!(task(id).draws, max + 1);
		let before = Balances::total_balance(&11);
		assert_ok!(commit_threshold(11, id, 1.0));
		run_to(task(id).deadline);
		assert_ok!(reveal_threshold(11, id, 1.0));
		assert!(Tasks::<T>::get(id).is_none(), "one profile decides nothing");
		assert_eq!(Balances::total_balance(&11), before, "not paid after a decline");
		check();
	});
}

/// A round whose one public watcher was drawn under version 8 keeps no watcher after
/// the upgrade (version 8 drew no lottery, and the old watcher's name is dropped), and a
/// catch that watcher claimed before the upgrade is still paid.
#[test]
fn a_public_watcher_is_forgotten_when_storage_moves_to_version_9() {
	use frame_support::traits::OnRuntimeUpgrade;
	new_test_ext().execute_with(|| {
		let id = verifying_with_jackpot(sp_runtime::Perbill::one());
		let audits = Audits::<T>::get(id);
		verify_all(id, false);
		assert_ok!(watch_challenge(13, id, audits[0].segment));
		// As version 8 left it: the watcher named, no lottery.
		Watches::<T>::remove(id);
		crate::migrations::v8::Watchers::<T>::insert(id, 13);
		crate::migrations::v8::Watchers::<T>::insert(id + 1, 14);
		StorageVersion::new(8).put::<TaskPallet>();
		crate::migrations::V8ToV9::<T>::on_runtime_upgrade();
		assert_eq!(StorageVersion::get::<TaskPallet>(), 9);
		assert_eq!(crate::migrations::v8::Watchers::<T>::iter().count(), 0, "all drained");
		let (pot, before) = (Balances::free_balance(JACKPOT), Balances::total_balance(&13));
		rule(id, audits[0].segment, true);
		assert!(ChallengedAt::<T>::contains_key(id, audits[0].segment), "the claim stands");
		reveal(audits[0].verifier, id);
		run_to(task(id).deadline);
		assert_eq!(Balances::total_balance(&13), before + (pot - 1) / 10, "the catch is paid");
		check();
	});
}

/// Version 10 only adds the off-task proofs: a chain at version 9 moves to 10 with its
/// tasks as they were.
#[test]
fn storage_moves_to_version_10_unchanged() {
	use frame_support::traits::OnRuntimeUpgrade;
	new_test_ext().execute_with(|| {
		let id = verifying_with_jackpot(sp_runtime::Perbill::one());
		let before = (task(id), Audits::<T>::get(id));
		StorageVersion::new(9).put::<TaskPallet>();
		crate::migrations::V9ToV10::<T>::on_runtime_upgrade();
		assert_eq!(StorageVersion::get::<TaskPallet>(), 10);
		assert_eq!((task(id), Audits::<T>::get(id)), before);
		assert_eq!(OffTask::<T>::iter().count(), 0);
		check();
	});
}

/// Version 11 only adds the bond units of valuable tasks: a chain at version 10 moves to
/// 11 with its tasks as they were, and a task live at the upgrade counts the one unit
/// its engagements were counted with, whatever the unit's pay says now.
#[test]
fn storage_moves_to_version_11_with_live_tasks_at_one_unit() {
	use frame_support::traits::OnRuntimeUpgrade;
	new_test_ext().execute_with(|| {
		let id = verifying_with(exact());
		let workers: Vec<u64> = task(id).engaged.into_inner();
		let before = (task(id), Audits::<T>::get(id));
		StorageVersion::new(10).put::<TaskPallet>();
		// The upgrade brings a unit far below the task's pay.
		set_pay_per_bond_unit(1);
		crate::migrations::V10ToV11::<T>::on_runtime_upgrade();
		assert_eq!(StorageVersion::get::<TaskPallet>(), 11);
		assert_eq!((task(id), Audits::<T>::get(id)), before);
		assert!(BondUnits::<T>::get(id).is_none());
		verify_all(id, true);
		run_to(task(id).deadline);
		assert!(Tasks::<T>::get(id).is_none(), "settled");
		for w in workers {
			assert_eq!(pallet_gensyn_stake::Engagements::<T>::get(w).units, 0, "{w} released");
		}
		check();
	});
}

/// Version 12 asks profiles to be committed before they are revealed. A task profiling
/// at the upgrade keeps the profile posted in the open before it: that post counts as
/// committed and revealed, the others commit and reveal, and the threshold is decided
/// from all of them.
#[test]
fn storage_moves_to_version_12_with_a_profile_posted_before_it_kept() {
	use frame_support::traits::OnRuntimeUpgrade;
	ExtBuilder::default().profile(4).build().execute_with(|| {
		let id = profiled_among(&[11, 12, 13]);
		// As version 11 left a post: in the open, its poster no longer engaged.
		let early = task(id).profilers[0].who;
		Tasks::<T>::mutate(id, |t| {
			if let Some(t) = t {
				t.profilers[0].threshold = Some(2.0f32.to_bits());
			}
		});
		let mut t = task(id);
		TaskPallet::disengage(id, &mut t, &early);
		Tasks::<T>::insert(id, t);
		StorageVersion::new(11).put::<TaskPallet>();
		crate::migrations::V11ToV12::<T>::on_runtime_upgrade();
		assert_eq!(StorageVersion::get::<TaskPallet>(), 12);
		assert_eq!(task(id).phase, Phase::Profiling);
		let rest: Vec<(u64, f32)> =
			[11, 12, 13].into_iter().filter(|v| *v != early).zip([1.0, 3.0]).collect();
		post_profiles(id, &rest);
		assert_eq!(task(id).threshold, Some(2.0f32.to_bits()), "the median of all three");
		check();
	});
}

/// Version 13 files a game's re-audit point as the moved draw it is one case of: a point
/// stored under version 12 is carried over, and the re-audit still waits for it.
#[test]
fn a_games_reaudit_point_is_kept_when_storage_moves_to_version_13() {
	use frame_support::traits::OnRuntimeUpgrade;
	new_test_ext().execute_with(|| {
		let id = verifying();
		verify_all(id, true);
		let segment = Audits::<T>::get(id)[0].segment;
		assert_ok!(TaskPallet::challenge(RuntimeOrigin::signed(13), id, segment));
		assert_ok!(<TaskPallet as DisputeOutcome>::resolve(id, segment, true));
		// As version 12 left it: the point under its old name.
		let point = MovedDraw::<T>::take(id).expect("a game's end files its draw");
		crate::migrations::v12::GameReaudit::<T>::insert(id, point);
		StorageVersion::new(12).put::<TaskPallet>();
		crate::migrations::V12ToV13::<T>::on_runtime_upgrade();
		assert_eq!(StorageVersion::get::<TaskPallet>(), 13);
		assert_eq!(crate::migrations::v12::GameReaudit::<T>::iter().count(), 0, "drained");
		assert_eq!(MovedDraw::<T>::get(id), Some(point));
		run_to(task(id).deadline);
		assert_eq!(task(id).phase, Phase::Verifying, "re-audited");
		check();
	});
}

#[test]
fn open_games_are_counted_when_storage_moves_to_version_14() {
	use frame_support::traits::OnRuntimeUpgrade;
	new_test_ext().execute_with(|| {
		let id = verifying_with(spec_with(|s| {
			s.verification.audit_fraction = SpecPermill(1_000_000);
		}));
		assert!(Audits::<T>::get(id).len() >= 4, "four verdicts to challenge");
		verify_all(id, false);
		run_to_reveals(id);
		let audits = Audits::<T>::get(id);
		reg(14, Role::Whistleblower);
		// Whistleblower 13 plays two games, 14 one, and the solver contests a fail, which
		// is not counted.
		for (who, a) in [13, 13, 14, 10].into_iter().zip(audits.iter()) {
			assert_ok!(TaskPallet::challenge(RuntimeOrigin::signed(who), id, a.segment));
		}
		// As version 13 left it: no counts.
		let _ = OpenChallenges::<T>::clear(u32::MAX, None);
		StorageVersion::new(13).put::<TaskPallet>();
		crate::migrations::V13ToV14::<T>::on_runtime_upgrade();
		assert_eq!(StorageVersion::get::<TaskPallet>(), 14);
		assert_eq!(OpenChallenges::<T>::get(13), 2);
		assert_eq!(OpenChallenges::<T>::get(14), 1);
		assert_eq!(OpenChallenges::<T>::get(10), 0);
		// The counts fall as the games end.
		for a in audits.iter().take(4) {
			assert_ok!(<TaskPallet as DisputeOutcome>::resolve(id, a.segment, true));
		}
		assert_eq!(OpenChallenges::<T>::iter().count(), 0);
		check();
	});
}

/// A threshold decided on version 14's absolute scale is brought within the bounds of
/// version 15's relative one: a tiny one raised to the floor (which honest replays lie
/// under), a huge one lowered to the ceiling (which copies lie past), one within them
/// kept.
#[test]
fn decided_thresholds_are_bounded_when_storage_moves_to_version_15() {
	use frame_support::traits::OnRuntimeUpgrade;
	ExtBuilder::default().profile(4).build().execute_with(|| {
		let id = profiled_among(&[11, 12, 13]);
		let (floor, ceiling) = (0.1f32.to_bits(), 10.0f32.to_bits());
		for (old, new) in [(1e-5f32.to_bits(), floor), (1e6f32.to_bits(), ceiling), (1, floor)] {
			Tasks::<T>::mutate(id, |t| t.as_mut().expect("live").threshold = Some(old));
			StorageVersion::new(14).put::<TaskPallet>();
			crate::migrations::V14ToV15::<T>::on_runtime_upgrade();
			assert_eq!(StorageVersion::get::<TaskPallet>(), 15);
			assert_eq!(task(id).threshold, Some(new), "{}", f32::from_bits(old));
		}
		let within = 2.0f32.to_bits();
		Tasks::<T>::mutate(id, |t| t.as_mut().expect("live").threshold = Some(within));
		StorageVersion::new(14).put::<TaskPallet>();
		crate::migrations::V14ToV15::<T>::on_runtime_upgrade();
		assert_eq!(task(id).threshold, Some(within));
	});
}

/// Version 17 adds the games each verdict survived and counts open games in the slashes
/// they risk. No verdict survived a game as far as version 16 knew, so each open game
/// risks one slash, as it counted one game: the counts read the same, the new map starts
/// empty, a game lost after the upgrade is its verdict's first, and the upgrade runs once.
#[test]
fn open_games_count_one_slash_each_when_storage_moves_to_version_17() {
	use frame_support::traits::OnRuntimeUpgrade;
	new_test_ext().execute_with(|| {
		let id = verifying_with(spec_with(|s| {
			s.verification.audit_fraction = SpecPermill(1_000_000);
		}));
		verify_all(id, true);
		let audits = Audits::<T>::get(id);
		assert!(audits.len() >= 2, "two verdicts to challenge");
		for a in audits.iter().take(2) {
			assert_ok!(TaskPallet::challenge(RuntimeOrigin::signed(13), id, a.segment));
		}
		StorageVersion::new(16).put::<TaskPallet>();
		crate::migrations::V16ToV17::<T>::on_runtime_upgrade();
		assert_eq!(StorageVersion::get::<TaskPallet>(), 17);
		assert_eq!(OpenChallenges::<T>::get(13), 2);
		assert_eq!(Survived::<T>::iter().count(), 0);
		check();
		let (slash, held): (u64, u64) =
			(<<T as Config>::FalseChallengeSlash as Get<u64>>::get(), worth(13));
		assert_ok!(<TaskPallet as DisputeOutcome>::resolve(id, audits[0].segment, false));
		assert_eq!(worth(13), held - slash, "one slash");
		assert_eq!(OpenChallenges::<T>::get(13), 1);
		assert_eq!(Survived::<T>::get(id, audits[0].segment), Some((audits[0].verifier, 1)));
		// Run again, the upgrade changes nothing.
		crate::migrations::V16ToV17::<T>::on_runtime_upgrade();
		assert_eq!(OpenChallenges::<T>::get(13), 1);
		assert_eq!(Survived::<T>::get(id, audits[0].segment), Some((audits[0].verifier, 1)));
		check();
	});
}

/// A task in its window at the upgrade gives each verifier it judges the window's end as
/// its reveal deadline; a task not yet verified gets its deadlines when its window
/// opens. Run again, the upgrade changes nothing.
#[test]
fn reveal_deadlines_are_fixed_when_storage_moves_to_version_18() {
	use frame_support::traits::OnRuntimeUpgrade;
	new_test_ext().execute_with(|| {
		let judged = verifying_with(spec());
		verify_all(judged, true);
		let offered = submitted();
		// Storage as version 17 left it: no deadlines.
		let _ = RevealBy::<T>::clear(u32::MAX, None);
		StorageVersion::new(17).put::<TaskPallet>();
		crate::migrations::V17ToV18::<T>::on_runtime_upgrade();
		assert_eq!(StorageVersion::get::<TaskPallet>(), 18);
		let end = task(judged).window_end;
		let mut verifiers: Vec<u64> = Audits::<T>::get(judged).iter().map(|a| a.verifier).collect();
		verifiers.sort();
		verifiers.dedup();
		assert!(!verifiers.is_empty());
		for v in &verifiers {
			assert_eq!(RevealBy::<T>::get(judged, v), Some(end));
		}
		assert_eq!(RevealBy::<T>::iter().count(), verifiers.len(), "{verifiers:?}");
		assert_eq!(RevealBy::<T>::iter_prefix(offered).count(), 0);
		check();
		crate::migrations::V17ToV18::<T>::on_runtime_upgrade();
		assert_eq!(RevealBy::<T>::iter().count(), verifiers.len());
	});
}

/// A task being audited again at the upgrade gives the round's first verifiers the
/// window's end as it stands; the re-auditor gets its deadline when its window opens.
#[test]
fn a_reaudit_under_way_keeps_its_first_verifiers_deadlines_at_version_18() {
	use frame_support::traits::OnRuntimeUpgrade;
	new_test_ext().execute_with(|| {
		let (id, refuted, _) = two_passes();
		reveal(refuted.verifier, id);
		assert_ok!(TaskPallet::challenge(RuntimeOrigin::signed(13), id, refuted.segment));
		rule(id, refuted.segment, true);
		assert_eq!(task(id).phase, Phase::Verifying, "audited again");
		let _ = RevealBy::<T>::clear(u32::MAX, None);
		StorageVersion::new(17).put::<TaskPallet>();
		crate::migrations::V17ToV18::<T>::on_runtime_upgrade();
		let end = task(id).window_end;
		let audits = Audits::<T>::get(id);
		assert!(audits.iter().any(|a| a.reaudits > 0), "{audits:?}");
		for a in audits.iter() {
			let want = (a.reaudits == 0).then_some(end);
			assert_eq!(RevealBy::<T>::get(id, a.verifier), want, "{a:?}");
		}
		check();
	});
}

/// A demand unanswered at the upgrade paid its fee to the treasury at once under
/// version 19: the fee moves back and is held, as version 20 would have held it; one
/// the treasury cannot give back records none. An answered one keeps its fee (a
/// withheld proof's reporter gets it back). Run again, the upgrade changes nothing.
#[test]
fn an_unanswered_demands_fee_is_held_when_storage_moves_to_version_20() {
	use crate::migrations::v20::{Demand, Demands};
	use frame_support::traits::OnRuntimeUpgrade;
	new_test_ext().execute_with(|| {
		let demand = |checkpoint, by, next| Demand { checkpoint, by, fee: 4, at: 1, due: 9, next };
		// Version 19 paid every fee to the treasury; it holds 4 more than its minimum
		// (enough for one of the two unanswered demands).
		assert_ok!(Balances::transfer_allow_death(RuntimeOrigin::signed(13), TREASURY, 4));
		let stored =
			vec![demand(1, 13, None), demand(2, 13, Some((1, 0))), demand(3, 14, Some((0, 0)))];
		Demands::<T>::insert(0, BoundedVec::truncate_from(stored));
		let total = worth_of(&[13, 14, TREASURY]);
		StorageVersion::new(19).put::<TaskPallet>();
		crate::migrations::V19ToV20::<T>::on_runtime_upgrade();
		assert_eq!(StorageVersion::get::<TaskPallet>(), 20);
		let fees: Vec<u64> = Demands::<T>::get(0).iter().map(|d| d.fee).collect();
		assert_eq!(fees, vec![4, 4, 0], "the treasury gave back one fee");
		let held = |who| {
			Balances::balance_on_hold(&RuntimeHoldReason::TaskPallet(HoldReason::Demand), &who)
		};
		assert_eq!((held(13), held(14)), (4, 0));
		assert_eq!(worth_of(&[13, 14, TREASURY]), total, "nothing minted or burnt");
		crate::migrations::V19ToV20::<T>::on_runtime_upgrade();
		assert_eq!(held(13), 4);
	});
}

/// Version 20 picked a demand's standby from the audits at every page; version 21 names
/// it in the demand. Each demand awaiting pages at the upgrade names the verifier that
/// replayed from its checkpoint (for the run's first, the first with a verdict), and
/// nobody where no verdict read it or the demand is answered or lapsed; every other
/// field reads back as it was. Run again, nothing changes.
#[test]
fn each_demand_names_its_standby_when_storage_moves_to_version_21() {
	use crate::migrations::v20;
	use frame_support::traits::OnRuntimeUpgrade;
	new_test_ext().execute_with(|| {
		let (id, a, _) = two_passes();
		let spare = (1..task(id).checkpoints)
			.find(|k| !Audits::<T>::get(id).iter().any(|a| a.segment == *k || a.segment + 1 == *k))
			.expect("a checkpoint no audit touches");
		let now = System::block_number();
		let old =
			|checkpoint, next, due| v20::Demand { checkpoint, by: 13, fee: 4, at: 1, due, next };
		let stored = vec![
			old(a.segment, Some((1, 0)), now + 9),
			old(0, Some((0, 0)), now + 9),
			old(spare, Some((0, 0)), now + 9),
			old(a.segment + 1, None, now + 9),
			old(0, Some((0, 0)), now + 1),
		];
		v20::Demands::<T>::insert(id, BoundedVec::truncate_from(stored.clone()));
		StorageVersion::new(20).put::<TaskPallet>();
		crate::migrations::V20ToV21::<T>::on_runtime_upgrade();
		assert_eq!(StorageVersion::get::<TaskPallet>(), 21);
		let first = Audits::<T>::get(id).iter().find(|a| a.verdict.is_some()).unwrap().verifier;
		let after = Demands::<T>::get(id);
		let named: Vec<Option<u64>> = after.iter().map(|d| d.standby).collect();
		// Nobody for a checkpoint no verdict read, nor for a demand answered or lapsed (at
		// the upgrade's block, the one after the current).
		assert_eq!(named, vec![Some(a.verifier), Some(first), None, None, None]);
		for (new, old) in after.iter().zip(&stored) {
			let kept = (new.checkpoint, new.by, new.fee, new.at, new.due, new.next);
			assert_eq!(kept, (old.checkpoint, old.by, old.fee, old.at, old.due, old.next));
		}
		crate::migrations::V20ToV21::<T>::on_runtime_upgrade();
		assert_eq!(Demands::<T>::get(id), after);
	});
}

/// Version 21 did not count audits in the stake pallet; the migration to version 22
/// counts each verifier of a live task once, with the task's units, and a second run
/// changes nothing (the version guards it).
#[test]
fn every_auditor_is_counted_when_storage_moves_to_version_22() {
	use frame_support::traits::OnRuntimeUpgrade;
	use pallet_gensyn_stake::StakeInterface;
	new_test_ext().execute_with(|| {
		let (id, a, b) = two_passes();
		let units = TaskPallet::units(id);
		// As version 21 left it: engaged, no audit counted.
		for v in [a.verifier, b.verifier] {
			Stake::note_auditing(&v, units, false);
			assert_eq!(Stake::audit_units(&v), 0);
		}
		StorageVersion::new(21).put::<TaskPallet>();
		crate::migrations::V21ToV22::<T>::on_runtime_upgrade();
		assert_eq!(StorageVersion::get::<TaskPallet>(), 22);
		for v in [a.verifier, b.verifier] {
			assert_eq!(Stake::audit_units(&v), units, "{v} counted");
		}
		crate::migrations::V21ToV22::<T>::on_runtime_upgrade();
		assert_eq!(Stake::audit_units(&a.verifier), units, "counted once");
		check();
	});
}

/// Versions 3 to 22 named in each audit the verifier whose Threshold fail it re-checked;
/// version 23 drops it (a fail that stands rejects the proof). The audits are rewritten
/// before any versioned step and read back whole, the re-check an ordinary re-audit; the
/// rewrite runs only on a chain at those versions, and once.
#[test]
fn audits_drop_their_recheck_when_storage_moves_to_version_23() {
	use crate::migrations::{v22, DropRechecks, V22ToV23};
	use frame_support::traits::OnRuntimeUpgrade;
	new_test_ext().execute_with(|| {
		let half = spec_with(|s| s.verification.audit_fraction = SpecPermill(500_000));
		let id = verifying_with(half);
		let before = Audits::<T>::get(id);
		assert!(before.len() > 1);
		let old: Vec<v22::Audit<u64>> = before
			.iter()
			.enumerate()
			.map(|(i, a)| v22::Audit {
				segment: a.segment,
				verifier: a.verifier,
				verdict: a.verdict,
				challenger: a.challenger,
				overturned: a.overturned,
				refuted_by: a.refuted_by,
				reaudits: a.reaudits,
				unavailable: a.unavailable,
				reported_before: a.reported_before,
				rechecks: (i == 0).then_some(13),
			})
			.collect();
		v22::Audits::<T>::insert(id, BoundedVec::truncate_from(old.clone()));
		assert_ne!(Audits::<T>::try_get(id).ok(), Some(before.clone()), "22's bytes are not 23's");
		// Below version 3 (a test chain records none): nothing is rewritten.
		DropRechecks::<T>::on_runtime_upgrade();
		assert_eq!(v22::Audits::<T>::get(id).map(|a| a.to_vec()), Some(old.clone()));
		StorageVersion::new(22).put::<TaskPallet>();
		DropRechecks::<T>::on_runtime_upgrade();
		V22ToV23::<T>::on_runtime_upgrade();
		assert_eq!(StorageVersion::get::<TaskPallet>(), 23);
		assert_eq!(Audits::<T>::get(id), before);
		check();
		// Run once: a second upgrade leaves version 23's audits as they are.
		DropRechecks::<T>::on_runtime_upgrade();
		V22ToV23::<T>::on_runtime_upgrade();
		assert_eq!(Audits::<T>::get(id), before);
	});
}

/// Version 24 keeps the upgrades' blocks rather than rewriting every demand's due at an
/// upgrade: the list starts empty (the dues under way already hold the upgrades before),
/// and the hook, which runs after the migrations, adds the upgrade that moves the version.
#[test]
fn upgrades_are_kept_from_the_one_that_moves_storage_to_version_24() {
	use crate::migrations::V23ToV24;
	use frame_support::traits::{Hooks, OnRuntimeUpgrade};
	new_test_ext().execute_with(|| {
		StorageVersion::new(23).put::<TaskPallet>();
		V23ToV24::<T>::on_runtime_upgrade();
		assert_eq!(StorageVersion::get::<TaskPallet>(), 24);
		assert!(Upgrades::<T>::get().is_empty());
		<TaskPallet as Hooks<u64>>::on_runtime_upgrade();
		assert_eq!(Upgrades::<T>::get().to_vec(), vec![System::block_number() + 1]);
		check();
	});
}
