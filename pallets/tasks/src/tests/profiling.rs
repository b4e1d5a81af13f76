//! Profiling of Threshold tasks.

use super::*;

#[test]
fn threshold_tasks_are_profiled_first_and_judged_by_the_profiled_threshold() {
	ExtBuilder::default().profile(4).build().execute_with(|| {
		reg(10, Role::Solver);
		reg(11, Role::Verifier);
		assert_ok!(TaskPallet::submit_task(RuntimeOrigin::signed(1), spec()));
		let id = last_task();
		let t = task(id);
		assert_eq!(t.phase, Phase::Profiling);
		assert_eq!(t.profiler, Some(11));
		assert_eq!(t.deadline, 5);
		assert_eq!(t.escrow, t.solver_pay + 2 * t.segment_pay + t.jackpot_cut + t.treasury_cut);
		assert_eq!(TaskPallet::duties(&11), vec![Duty::Profile { task: id, by: 5 }]);
		// Cancel is still possible while profiling (checked on a twin task below).
		let three = f32::to_bits(3.0);
		assert_noop!(
			TaskPallet::submit_profile(RuntimeOrigin::signed(12), id, three),
			Error::<T>::NotProfiler
		);
		assert_noop!(
			TaskPallet::submit_profile(RuntimeOrigin::signed(11), id, f32::NAN.to_bits()),
			Error::<T>::InvalidThreshold
		);
		assert_noop!(
			TaskPallet::submit_profile(RuntimeOrigin::signed(11), id, (-1.0f32).to_bits()),
			Error::<T>::InvalidThreshold
		);
		assert_noop!(
			TaskPallet::submit_profile(RuntimeOrigin::none(), id, three),
			sp_runtime::DispatchError::BadOrigin
		);
		let before = Balances::free_balance(11);
		assert_ok!(TaskPallet::submit_profile(RuntimeOrigin::signed(11), id, three));
		assert_eq!(Balances::free_balance(11), before + t.segment_pay);
		assert!(events().contains(&Event::Profiled { id, threshold: three, paid: t.segment_pay }));
		assert_eq!(task(id).phase, Phase::Offered);
		assert_eq!(task(id).threshold, Some(three));
		assert_noop!(
			TaskPallet::submit_profile(RuntimeOrigin::signed(11), id, three),
			Error::<T>::WrongPhase
		);
		// Train, commit, verify with a distance of 2.0: over the default 1.0, under 3.0.
		assert_ok!(TaskPallet::accept_task(RuntimeOrigin::signed(10), id));
		assert_ok!(TaskPallet::submit_result(
			RuntimeOrigin::signed(10),
			id,
			[0; 32],
			merkle::root(&leaves(8)),
			8,
			BoundedVec::default()
		));
		let d = task(id).deadline;
		run_to(d);
		let a = Audits::<T>::get(id)[0].clone();
		assert_ok!(TaskPallet::submit_verification(
			RuntimeOrigin::signed(a.verifier),
			id,
			a.segment,
			f32::to_bits(2.0),
			[0; 32],
			proof_for(8, a.segment)
		));
		assert!(Audits::<T>::get(id)[0].verdict.unwrap().pass);
		let end = task(id).deadline;
		run_to(end);
		assert!(events().iter().any(|e| matches!(e, Event::TaskCompleted { .. })));
		assert_eq!(escrow_held(1), 0);
	});
}

#[test]
fn a_lapsed_profile_is_slashed_and_redrawn_then_the_task_fails_or_is_cancelled() {
	ExtBuilder::default().profile(4).build().execute_with(|| {
		reg(10, Role::Solver);
		reg(11, Role::Verifier);
		assert_ok!(TaskPallet::submit_task(RuntimeOrigin::signed(1), spec()));
		let id = last_task();
		let vb = Stake::bond(&11, Role::Verifier);
		run_to(5);
		assert_eq!(Stake::bond(&11, Role::Verifier), vb - 20);
		// 11 is excluded: nobody else, so the task waits and finally fails, refunded.
		assert_eq!(task(id).phase, Phase::Profiling);
		assert_eq!(task(id).profiler, None);
		run_to(30);
		assert!(Tasks::<T>::get(id).is_none());
		assert_eq!(escrow_held(1), 0);
		assert_eq!(Balances::free_balance(1), START);
		// A second task is cancelled while profiling: full refund.
		reg(12, Role::Verifier);
		assert_ok!(TaskPallet::submit_task(RuntimeOrigin::signed(1), spec()));
		let id2 = last_task();
		assert_eq!(task(id2).phase, Phase::Profiling);
		assert_ok!(TaskPallet::cancel_task(RuntimeOrigin::signed(1), id2));
		assert_eq!(Balances::free_balance(1), START);
		assert!(pallet_gensyn_stake::Engagements::<T>::iter().next().is_none());
	});
}

/// A Threshold task whose data no profiler can use: each drawn profiler declines, free
/// (a lapse would be slashed), is not drawn for the task again, and the next one is
/// drawn from later randomness. Declines spend draws: with nobody left the task fails
/// and is refunded in full, and no profiler lost anything. The decline is the drawn
/// profiler's alone and only before its deadline.
#[test]
fn profilers_decline_unusable_data_unslashed_until_the_task_is_refunded() {
	ExtBuilder::default().profile(4).build().execute_with(|| {
		reg(10, Role::Solver);
		reg(11, Role::Verifier);
		reg(12, Role::Verifier);
		assert_ok!(TaskPallet::submit_task(RuntimeOrigin::signed(1), spec()));
		let id = last_task();
		let worth = || Balances::total_balance(&11) + Balances::total_balance(&12);
		let profilers = worth();
		let first = task(id).profiler.unwrap();
		let other = if first == 11 { 12 } else { 11 };
		assert_noop!(
			TaskPallet::decline_profile(RuntimeOrigin::signed(other), id),
			Error::<T>::NotProfiler
		);
		assert_ok!(TaskPallet::decline_profile(RuntimeOrigin::signed(first), id));
		assert!(events().contains(&Event::ProfileDeclined { id, profiler: first }));
		let t = task(id);
		assert_eq!((t.phase, t.profiler), (Phase::Profiling, None));
		assert!(t.excluded.contains(&first));
		assert_eq!(TaskPallet::duties(&first), vec![], "let go");
		run_to(t.deadline);
		assert_eq!(task(id).profiler, Some(other), "the next is drawn, never the decliner");
		// Too late once its deadline has come.
		let late = task(id).deadline;
		run_to(late - 1);
		assert_ok!(TaskPallet::decline_profile(RuntimeOrigin::signed(other), id));
		run_to(30);
		assert!(Tasks::<T>::get(id).is_none(), "no profiler left: the task ended");
		assert!(events().iter().any(
			|e| matches!(e, Event::TaskFailed { id: i, reason: FailReason::NoVerifier, .. } if *i == id)
		));
		assert_eq!(Balances::free_balance(1), START, "refunded in full");
		assert_eq!(worth(), profilers, "no profiler slashed");
		assert_noop!(
			TaskPallet::decline_profile(RuntimeOrigin::signed(other), id),
			Error::<T>::UnknownTask
		);
		check();
	});
}

#[test]
fn a_profile_cannot_be_declined_after_its_deadline() {
	ExtBuilder::default().profile(4).build().execute_with(|| {
		reg(10, Role::Solver);
		reg(11, Role::Verifier);
		assert_ok!(TaskPallet::submit_task(RuntimeOrigin::signed(1), spec()));
		let id = last_task();
		// At its deadline the lapse is due (and slashed): a decline comes too late.
		frame_system::Pallet::<T>::set_block_number(task(id).deadline);
		assert_noop!(
			TaskPallet::decline_profile(RuntimeOrigin::signed(11), id),
			Error::<T>::OfferExpired
		);
	});
}
