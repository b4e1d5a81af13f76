//! Submission: escrow, bad specs and their named errors, queueing, cancellation.

use super::*;
use gensyn_primitives::{DataFormat, Layer};

#[test]
fn submit_holds_estimate_times_price_and_draws_a_solver() {
	new_test_ext().execute_with(|| {
		reg(10, Role::Solver);
		reg(11, Role::Verifier);
		let s = spec();
		let est = gensyn_primitives::estimate(&s).unwrap();
		assert_ok!(TaskPallet::submit_task(RuntimeOrigin::signed(1), s));
		let id = last_task();
		let t = task(id);
		assert_eq!(t.solver_pay, est.total.div_ceil(1_000_000) * 2);
		assert_eq!(t.jackpot_cut, t.solver_pay / 20);
		// 2 epochs x 157 steps, k = 50: 7 segments, 8 checkpoints, 10% audited -> 1.
		assert_eq!(t.checkpoints, 8);
		assert_eq!(t.audits, 1);
		assert_eq!(t.escrow, t.solver_pay + t.segment_pay + t.jackpot_cut + t.treasury_cut);
		assert_eq!(escrow_held(1), t.escrow);
		assert_eq!(t.phase, Phase::Offered);
		assert_eq!(t.solver, Some(10));
		assert_eq!(t.deadline, 1 + 5);
		assert!(WorkerTasks::<T>::contains_key(10, id));
		assert_eq!(pallet_gensyn_stake::Engagements::<T>::get(10).units, 1);
		check();
	});
}

/// The fixtures' tiny language model, changed by `f`.
fn lm_with(f: impl FnOnce(&mut TaskSpec)) -> TaskSpec {
	gensyn_primitives::fixtures::with(gensyn_primitives::fixtures::tiny_lm(), f)
}

/// The tiny language model with its layer `i` replaced by `layer`.
fn lm_layer(i: usize, layer: Layer) -> TaskSpec {
	lm_with(|s| {
		let mut layers = s.model.layers.clone().into_inner();
		layers[i] = layer;
		s.model.layers = gensyn_primitives::BoundedVec::try_from_vec(layers).unwrap();
	})
}

#[test]
fn bad_specs_are_refused_with_their_named_error_and_nothing_held() {
	new_test_ext().execute_with(|| {
		let cases: Vec<(TaskSpec, Error<T>)> = vec![
			(spec_with(|s| s.training.epochs = 0), Error::<T>::SpecEpochsZero),
			(spec_with(|s| s.training.batch_size = 0), Error::<T>::SpecBatchZero),
			(
				spec_with(|s| s.training.checkpoint_interval = 0),
				Error::<T>::SpecCheckpointIntervalZero,
			),
			(spec_with(|s| s.data.classes = 7), Error::<T>::SpecOutputClassMismatch),
			(
				spec_with(|s| s.verification.audit_fraction = SpecPermill(0)),
				Error::<T>::SpecAuditFractionZero,
			),
			(spec_with(|s| s.data.samples = 0), Error::<T>::SpecSamplesZero),
			(spec_with(|s| s.training.epochs = 100_000), Error::<T>::SpecTooManyEpochs),
			// A language model's faults have names of their own.
			(lm_with(|s| s.data.classes = 6), Error::<T>::SpecOutputClassMismatch),
			(
				lm_layer(1, Layer::DecoderBlock { heads: 3, hidden: 16 }),
				Error::<T>::SpecHeadsNotDividingDim,
			),
			(lm_layer(2, Layer::Embedding { vocab: 5, dim: 8 }), Error::<T>::SpecEmbeddingNotFirst),
			(lm_with(|s| s.data.format = DataFormat::MnistIdx), Error::<T>::SpecLossFormatMismatch),
		];
		for (s, e) in cases {
			let e: sp_runtime::DispatchError = e.into();
			// The quote refuses it with the same error.
			assert_eq!(TaskPallet::quote(&s).map(|q| q.escrow), Err(e));
			assert_noop!(TaskPallet::submit_task(RuntimeOrigin::signed(1), s), e);
			assert_eq!(escrow_held(1), 0);
		}
		assert_noop!(
			TaskPallet::submit_task(RuntimeOrigin::none(), spec()),
			sp_runtime::DispatchError::BadOrigin
		);
		// A poor submitter cannot cover the escrow.
		assert_noop!(
			TaskPallet::submit_task(RuntimeOrigin::signed(77), spec()),
			sp_runtime::TokenError::FundsUnavailable
		);
		// A task the arbiter could not rule on (more samples than a game replays) would
		// leave an honest defendant unable to answer: refused, nothing held.
		let unruled = spec_with(|s| s.data.samples = MAX_DISPUTABLE_SAMPLES + 1);
		assert_noop!(
			TaskPallet::submit_task(RuntimeOrigin::signed(1), unruled),
			Error::<T>::SpecNotDisputable
		);
		assert_eq!(escrow_held(1), 0);
		check();
	});
}

#[test]
fn spec_error_mapping_is_named() {
	new_test_ext().execute_with(|| {
		let e = |x: SpecError| sp_runtime::DispatchError::from(TaskPallet::spec_error(x));
		assert_eq!(e(SpecError::NoLayers), Error::<T>::SpecNoLayers.into());
		assert_eq!(
			e(SpecError::LinearInputMismatch { layer: 1, expected: 2, got: 3 }),
			Error::<T>::SpecLinearInputMismatch.into()
		);
		assert_eq!(e(SpecError::EstimateOverflow), Error::<T>::SpecEstimateOverflow.into());
	});
}

#[test]
fn no_fitting_solver_queues_then_redraws_then_fails_with_refund() {
	new_test_ext().execute_with(|| {
		reg(12, Role::Verifier);
		// A solver with too little memory does not fit.
		assert_ok!(Stake::register(
			RuntimeOrigin::signed(10),
			Role::Solver,
			1_000,
			cap(1),
			BoundedVec::truncate_from(b"x".to_vec())
		));
		// The owner is never its own solver.
		reg(1, Role::Solver);
		assert_ok!(TaskPallet::submit_task(RuntimeOrigin::signed(1), spec()));
		let id = last_task();
		assert_eq!(task(id).phase, Phase::Queued);
		assert_eq!(task(id).deadline, 4);
		run_to(4);
		assert_eq!(task(id).phase, Phase::Queued);
		assert_eq!(task(id).draws, 2);
		// A fitting solver arrives: the next retry offers it the task.
		reg(10 + 1, Role::Solver);
		run_to(7);
		assert_eq!(task(id).phase, Phase::Offered);
		assert_eq!(task(id).solver, Some(11));
		// It lets the offer lapse: slashed 10, excluded, re-drawn; nobody else fits.
		let bond = Stake::bond(&11, Role::Solver);
		run_to(12);
		assert_eq!(Stake::bond(&11, Role::Solver), bond - 10);
		assert_eq!(task(id).phase, Phase::Queued);
		assert_eq!(task(id).excluded.to_vec(), vec![11]);
		// Draws exhausted: failed and refunded in full.
		run_to(15);
		assert!(Tasks::<T>::get(id).is_none());
		assert_eq!(escrow_held(1), 0);
		assert!(events().contains(&Event::TaskFailed {
			id,
			reason: FailReason::NoSolver,
			refunded: spec_escrow()
		}));
		assert_eq!(pallet_gensyn_stake::Engagements::<T>::get(11).units, 0);
	});
}

fn spec_escrow() -> u64 {
	events()
		.into_iter()
		.find_map(|e| if let Event::TaskSubmitted { escrow, .. } = e { Some(escrow) } else { None })
		.unwrap()
}

#[test]
fn cancel_before_accept_refunds_in_full() {
	new_test_ext().execute_with(|| {
		let id = submitted();
		assert_noop!(TaskPallet::cancel_task(RuntimeOrigin::signed(2), id), Error::<T>::NotOwner);
		assert_noop!(
			TaskPallet::cancel_task(RuntimeOrigin::signed(1), 77),
			Error::<T>::UnknownTask
		);
		assert_noop!(
			TaskPallet::cancel_task(RuntimeOrigin::none(), id),
			sp_runtime::DispatchError::BadOrigin
		);
		assert_ok!(TaskPallet::cancel_task(RuntimeOrigin::signed(1), id));
		assert!(events().contains(&Event::TaskCancelled { id, refunded: spec_escrow() }));
		assert_eq!(Balances::free_balance(1), START);
		assert_eq!(escrow_held(1), 0);
		assert!(Tasks::<T>::get(id).is_none());
		assert!(!WorkerTasks::<T>::contains_key(10, id));
		assert_eq!(pallet_gensyn_stake::Engagements::<T>::get(10).units, 0);
		check();
		// The stale deadline entry fires harmlessly.
		run_to(7);
	});
}

#[test]
fn cancel_after_accept_is_refused() {
	new_test_ext().execute_with(|| {
		let id = submitted();
		assert_ok!(TaskPallet::accept_task(RuntimeOrigin::signed(10), id));
		assert_noop!(TaskPallet::cancel_task(RuntimeOrigin::signed(1), id), Error::<T>::WrongPhase);
	});
}

/// The quote is what submission holds, part by part, in both modes.
#[test]
fn a_quote_is_what_submission_holds() {
	new_test_ext().execute_with(|| {
		crate::mock::PROFILE.with(|p| *p.borrow_mut() = 100);
		reg(10, Role::Solver);
		reg(11, Role::Verifier);
		for mode in [VerificationMode::Exact, VerificationMode::Threshold] {
			let s = spec_with(|s| s.verification.mode = mode);
			let q = TaskPallet::quote(&s).unwrap();
			let held = escrow_held(1);
			assert_ok!(TaskPallet::submit_task(RuntimeOrigin::signed(1), s));
			let t = task(last_task());
			assert_eq!(escrow_held(1) - held, q.escrow);
			assert_eq!(
				(q.escrow, q.solver_pay, q.segment_pay, q.jackpot_cut, q.treasury_cut),
				(t.escrow, t.solver_pay, t.segment_pay, t.jackpot_cut, t.treasury_cut)
			);
			assert_eq!((q.gas, q.memory_mib), (t.gas, t.memory_mib));
			assert_eq!((q.checkpoints, q.audits), (t.checkpoints, t.audits));
			let threshold = mode == VerificationMode::Threshold;
			assert_eq!(q.profiles, if threshold { PROFILERS } else { 0 });
			let profile = q.segment_pay * u64::from(q.profiles);
			assert_eq!(
				q.escrow,
				q.solver_pay
					+ q.segment_pay * q.audits as u64
					+ profile + q.jackpot_cut
					+ q.treasury_cut
			);
		}
	});
}
