//! Training: accepting an offer and committing a result.

use super::*;

#[test]
fn accept_errors_and_training_deadline() {
	new_test_ext().execute_with(|| {
		let id = submitted();
		assert_noop!(TaskPallet::accept_task(RuntimeOrigin::signed(11), id), Error::<T>::NotSolver);
		assert_noop!(
			TaskPallet::accept_task(RuntimeOrigin::signed(10), 9),
			Error::<T>::UnknownTask
		);
		assert_noop!(
			TaskPallet::accept_task(RuntimeOrigin::none(), id),
			sp_runtime::DispatchError::BadOrigin
		);
		assert_ok!(TaskPallet::accept_task(RuntimeOrigin::signed(10), id));
		assert_noop!(
			TaskPallet::accept_task(RuntimeOrigin::signed(10), id),
			Error::<T>::WrongPhase
		);
		let t = task(id);
		assert_eq!(t.phase, Phase::Training);
		assert_ne!(t.order_randomness, [0; 32]);
		// 1_000 Mgas/s x 6 s per block; slack 2; plus 10.
		let blocks = t.gas.div_ceil(6_000_000_000) * 2;
		assert_eq!(t.deadline, 1 + 10 + blocks);
		// The solver misses the deadline: slashed 50, task re-drawn (nobody else).
		let bond = Stake::bond(&10, Role::Solver);
		run_to(t.deadline);
		assert_eq!(Stake::bond(&10, Role::Solver), bond - 50);
		assert_eq!(task(id).phase, Phase::Queued);
		assert_eq!(task(id).excluded.to_vec(), vec![10]);
		assert_eq!(pallet_gensyn_stake::Engagements::<T>::get(10).units, 0);
	});
}

#[test]
fn submit_result_errors() {
	new_test_ext().execute_with(|| {
		let id = submitted();
		let loc = || BoundedVec::truncate_from(b"/r".to_vec());
		assert_noop!(
			TaskPallet::submit_result(RuntimeOrigin::signed(10), id, [0; 32], [0; 32], 8, loc()),
			Error::<T>::WrongPhase
		);
		assert_ok!(TaskPallet::accept_task(RuntimeOrigin::signed(10), id));
		assert_noop!(
			TaskPallet::submit_result(RuntimeOrigin::signed(11), id, [0; 32], [0; 32], 8, loc()),
			Error::<T>::NotSolver
		);
		assert_noop!(
			TaskPallet::submit_result(RuntimeOrigin::signed(10), id, [0; 32], [0; 32], 7, loc()),
			Error::<T>::WrongCheckpointCount
		);
		assert_noop!(
			TaskPallet::submit_result(RuntimeOrigin::signed(10), 5, [0; 32], [0; 32], 8, loc()),
			Error::<T>::UnknownTask
		);
		assert_noop!(
			TaskPallet::submit_result(RuntimeOrigin::none(), id, [0; 32], [0; 32], 8, loc()),
			sp_runtime::DispatchError::BadOrigin
		);
		assert_ok!(TaskPallet::submit_result(
			RuntimeOrigin::signed(10),
			id,
			[0; 32],
			[0; 32],
			8,
			loc()
		));
		assert_eq!(task(id).phase, Phase::Drawing);
		assert_eq!(task(id).deadline, 3);
	});
}

#[test]
fn a_declined_offer_is_unslashed_and_drawn_again() {
	new_test_ext().execute_with(|| {
		// A second verifier, so that either solver's result could be checked.
		reg(12, Role::Verifier);
		let id = submitted();
		reg(11, Role::Solver);
		let first = task(id).solver.unwrap();
		let other = if first == 10 { 11 } else { 10 };
		assert_noop!(
			TaskPallet::decline_task(RuntimeOrigin::signed(other), id),
			Error::<T>::NotSolver
		);
		assert_noop!(
			TaskPallet::decline_task(RuntimeOrigin::signed(first), 9),
			Error::<T>::UnknownTask
		);
		assert_noop!(
			TaskPallet::decline_task(RuntimeOrigin::none(), id),
			sp_runtime::DispatchError::BadOrigin
		);
		let bond = Stake::bond(&first, Role::Solver);
		assert_ok!(TaskPallet::decline_task(RuntimeOrigin::signed(first), id));
		assert!(events().contains(&Event::TaskDeclined { id, solver: first }));
		assert_eq!(Stake::bond(&first, Role::Solver), bond, "not slashed");
		assert_eq!(pallet_gensyn_stake::Engagements::<T>::get(first).units, 0, "released");
		let t = task(id);
		assert_eq!((t.phase, t.solver, t.excluded.to_vec()), (Phase::Queued, None, vec![first]));
		// The next solver is drawn a few blocks later, from randomness that did not exist
		// at the decline.
		let delay: u64 = <<T as Config>::RandomnessDelay as Get<u64>>::get().max(2);
		assert_eq!(t.deadline, System::block_number() + delay);
		run_to(t.deadline);
		let t = task(id);
		assert_eq!((t.phase, t.solver), (Phase::Offered, Some(other)));
		// Too late to decline once the offer's deadline has passed (a backlogged queue
		// has not handled the lapse yet): the lapse is slashed.
		let until = t.deadline;
		Tasks::<T>::mutate(id, |t| t.as_mut().unwrap().deadline = System::block_number());
		assert_noop!(
			TaskPallet::decline_task(RuntimeOrigin::signed(other), id),
			Error::<T>::OfferExpired
		);
		Tasks::<T>::mutate(id, |t| t.as_mut().unwrap().deadline = until);
		assert_ok!(TaskPallet::accept_task(RuntimeOrigin::signed(other), id));
		assert_noop!(
			TaskPallet::decline_task(RuntimeOrigin::signed(other), id),
			Error::<T>::WrongPhase
		);
	});
}

/// An offered solver that is also a block author could decline in the block that puts
/// the next solver draw after a slot of its own, and withhold that block for another roll
/// until its partner is drawn. The draw after a decline waits for randomness made after
/// it and moves itself once, so blocks the decliner cannot line up decide the next solver.
#[test]
fn a_decliner_does_not_choose_who_is_offered_the_task_next() {
	let next_with = |later: u8| {
		new_test_ext().execute_with(|| {
			reg(12, Role::Verifier);
			for s in 14..=19 {
				reg(s, Role::Solver);
			}
			let id = submitted();
			let first = task(id).solver.unwrap();
			DELAY.with(|d| *d.borrow_mut() = 10);
			assert_ok!(TaskPallet::decline_task(RuntimeOrigin::signed(first), id));
			let end = System::block_number();
			let due = end + 10;
			assert_eq!(MovedDraw::<T>::get(id), Some((due, end)), "the next draw moves");
			line_up(end, due, later);
			run_to(due);
			if task(id).phase == Phase::Queued {
				run_to(task(id).deadline);
			}
			assert_eq!(task(id).phase, Phase::Offered);
			check();
			task(id).solver.unwrap()
		})
	};
	let outcomes: std::collections::BTreeSet<_> = (1..=8).map(next_with).collect();
	assert!(outcomes.len() > 1, "the blocks up to the deadline decided it: {outcomes:?}");
}
