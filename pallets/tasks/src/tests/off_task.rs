//! A committed run proven not one of its task: partners of the solver pass every
//! segment drawn (each replays to the run's own checkpoints), and anyone who proves the
//! commitment off the task has the proof rejected at settlement as its reporter. The
//! test arbiter accepts a proof of the checkpoint `OFF_TASK_INDEX` names; the check
//! itself is the arbitration pallet's (its `off_task` tests).

use super::*;

/// A proof of checkpoint `index` (the test arbiter reads only the index).
fn proof(index: u32) -> OffTaskProof {
	OffTaskProof {
		index,
		siblings: BoundedVec::new(),
		step: 0,
		tensor_roots: BoundedVec::new(),
		chunk: None,
	}
}

fn prove(who: u64, id: TaskId, index: u32) -> DispatchResultWithPostInfo {
	TaskPallet::prove_off_task(RuntimeOrigin::signed(who), id, proof(index))
}

#[test]
fn partners_passing_a_run_off_the_task_pay_the_solver_unless_someone_proves_it() {
	// Without a proof the partners' passes stand: the solver is paid for a run that is
	// not the task's (what the proof is for).
	new_test_ext().execute_with(|| {
		let id = verifying_with(exact());
		let solver = worth(10);
		verify_all(id, true);
		run_to(task(id).deadline);
		assert!(events().iter().any(|e| matches!(e, Event::TaskCompleted { .. })));
		assert!(worth(10) > solver, "paid without a proof");
	});
	new_test_ext().execute_with(|| {
		let id = verifying_with(exact());
		OFF_TASK_INDEX.with(|i| *i.borrow_mut() = Some(0));
		let (solver, prover, owner) = (worth(10), worth(13), worth(1));
		verify_all(id, true);
		let accepted = prove(13, id, 0).expect("an accepted proof");
		assert_eq!(accepted.pays_fee, Pays::No, "an accepted proof is free");
		assert!(events().contains(&Event::RunOffTask { id, by: 13 }));
		assert_noop!(prove(14, id, 0), Error::<T>::AlreadyProvenOffTask);
		run_to(task(id).deadline);
		assert!(events()
			.iter()
			.any(|e| matches!(e, Event::ProofRejected { id: i, solver: 10, .. } if *i == id)));
		assert!(!events().iter().any(|e| matches!(e, Event::TaskCompleted { .. })));
		assert!(worth(10) + 100 <= solver, "the solver is slashed its whole bond");
		assert!(worth(13) > prover, "the prover is paid as the reporter");
		// The partners' passes are not paid: the owner gets its whole escrow back.
		assert_eq!(worth(1), owner, "the owner pays nothing");
		assert!(!events().iter().any(|e| matches!(e, Event::VerifiersPaid { .. })));
		assert!(OffTask::<T>::get(id).is_none(), "the proof is spent with the round");
		check();
	});
}

#[test]
fn a_proof_the_arbiter_does_not_accept_or_without_a_result_is_refused() {
	new_test_ext().execute_with(|| {
		let id = submitted_with(exact());
		OFF_TASK_INDEX.with(|i| *i.borrow_mut() = Some(0));
		assert_noop!(prove(13, id, 0), Error::<T>::WrongPhase);
		assert_noop!(prove(13, id + 100, 0), Error::<T>::UnknownTask);
	});
	new_test_ext().execute_with(|| {
		let id = verifying_with(exact());
		OFF_TASK_INDEX.with(|i| *i.borrow_mut() = Some(3));
		assert_noop!(prove(13, id, 0), Error::<T>::NotOffTask);
		verify_all(id, true);
		run_to(task(id).deadline);
		assert!(events().iter().any(|e| matches!(e, Event::TaskCompleted { .. })));
	});
}

/// The solver proves its own run off the task from a second account, to take the
/// reporter's share of its own slash back: the prover is paid the bounty (10 of the
/// slash of 100), not the reporter's half, so the pair loses all but the bounty.
#[test]
fn a_solver_proving_its_own_run_off_the_task_takes_back_only_the_bounty() {
	new_test_ext().execute_with(|| {
		let id = verifying_with(exact());
		OFF_TASK_INDEX.with(|i| *i.borrow_mut() = Some(0));
		let (pair, prover, owner) = (worth_of(&[10, 14]), worth(14), worth(1));
		verify_all(id, true);
		assert_ok!(prove(14, id, 0));
		run_to(task(id).deadline);
		assert_eq!(worth(14), prover + 10, "the prover is paid the bounty");
		assert_eq!(worth_of(&[10, 14]) + 90, pair, "the pair loses all but the bounty");
		assert_eq!(worth(1), owner, "the owner pays nothing");
		check();
	});
}
