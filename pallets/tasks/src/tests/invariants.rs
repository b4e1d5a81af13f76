//! Deadline lists that fill up, and `do_try_state` catching broken invariants.

use super::*;

#[test]
fn full_deadline_lists_spill_into_later_blocks() {
	new_test_ext().execute_with(|| {
		reg(10, Role::Solver);
		for _ in 0..5 {
			assert_ok!(TaskPallet::submit_task(RuntimeOrigin::signed(1), spec()));
		}
		assert_eq!(Deadlines::<T>::get(6).len(), 3);
		assert_eq!(Deadlines::<T>::get(7).len(), 2);
		check();
		run_to(7);
		check();
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
		Deadlines::<T>::remove(6);
		assert!(TaskPallet::do_try_state().is_err());
	});
}
