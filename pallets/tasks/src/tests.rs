//! Tests of the tasks pallet: every call and error, every deadline firing in
//! `on_initialize`, settlement and failure paths, and a property test over random
//! action sequences. After every block the invariants are checked: both pallets'
//! `do_try_state`, total issuance equal to the sum of all accounts (and falling only by
//! what slashes burnt), and every live task scheduled at a future block.

use crate::{mock::*, *};
use frame_support::{
	assert_noop, assert_ok,
	traits::{fungible::InspectHold, Hooks},
};
use gensyn_primitives::{merkle, Permill as SpecPermill};
use pallet_gensyn_stake::{Capability, DeviceKind};

type T = Test;

/// `examples/mnist-mlp.json`, built in Rust (see the note in the closing report:
/// with the workspace's unified `serde_json/arbitrary_precision`, that JSON does not
/// parse into internally tagged enums holding reals).
fn spec() -> TaskSpec {
	use gensyn_primitives::*;
	let input = Shape3 { channels: 1, height: 28, width: 28 };
	TaskSpec {
		model: ModelSpec {
			input,
			layers: BoundedVec::try_from_vec(vec![
				Layer::Flatten,
				Layer::Linear { in_features: 784, out_features: 128 },
				Layer::Relu,
				Layer::Linear { in_features: 128, out_features: 10 },
			])
			.unwrap(),
			loss: Loss::SoftmaxCrossEntropy,
		},
		data: DataRef {
			uri: Uri::parse("file://data/mnist/train-10k.idx.gz").unwrap(),
			file_hash: Hash32([0; 32]),
			chunk_root: Hash32([0; 32]),
			format: DataFormat::MnistIdxGz,
			samples: 10_000,
			input,
			classes: 10,
		},
		training: TrainingSpec {
			epochs: 2,
			batch_size: 64,
			seed: 42,
			checkpoint_interval: 50,
			optimizer: Optimizer::Sgd {
				lr: F32Bits::from_f32(0.05),
				momentum: F32Bits::from_f32(0.9),
			},
			lr_schedule: LrSchedule::Constant,
		},
		verification: VerificationSpec {
			mode: VerificationMode::Threshold,
			audit_fraction: Permill(100_000),
		},
	}
}

fn spec_with(f: impl FnOnce(&mut TaskSpec)) -> TaskSpec {
	let mut s = spec();
	f(&mut s);
	s
}

fn cap(mem: u32) -> Capability {
	Capability { device: DeviceKind::Gpu, memory_mib: mem, mgas_per_sec: 1_000 }
}

fn reg(who: u64, role: Role) {
	let bond = match role {
		Role::Solver => 1_000,
		Role::Verifier => 500,
		Role::Whistleblower => 200,
	};
	assert_ok!(Stake::register(
		RuntimeOrigin::signed(who),
		role,
		bond,
		cap(16_384),
		BoundedVec::truncate_from(b"http://w".to_vec())
	));
}

fn escrow_held(who: u64) -> u64 {
	Balances::balance_on_hold(&RuntimeHoldReason::TaskPallet(HoldReason::Escrow), &who)
}

/// Sum of every account's total balance.
fn sum_of_accounts() -> u64 {
	frame_system::Account::<T>::iter().map(|(_, a)| a.data.free + a.data.reserved).sum()
}

/// What slashes burnt so far (from events).
fn burnt() -> u64 {
	System::events()
		.into_iter()
		.filter_map(|e| match e.event {
			RuntimeEvent::Stake(pallet_gensyn_stake::Event::Slashed { outcome, .. }) => {
				Some(outcome.burnt)
			}
			_ => None,
		})
		.sum()
}

fn initial_issuance() -> u64 {
	ACCOUNTS * START + 2
}

/// Every invariant the issue asks for.
fn check() {
	TaskPallet::do_try_state().unwrap();
	Stake::do_try_state().unwrap();
	assert_eq!(
		pallet_balances::TotalIssuance::<Test>::get(),
		sum_of_accounts(),
		"issuance = sum of accounts"
	);
	assert_eq!(
		pallet_balances::TotalIssuance::<Test>::get(),
		initial_issuance() - burnt(),
		"only burns shrink it"
	);
}

/// Runs blocks up to `n` (inclusive), each with `on_initialize`, checking after each.
fn run_to(n: u64) {
	while System::block_number() < n {
		let b = System::block_number() + 1;
		System::set_block_number(b);
		TaskPallet::on_initialize(b);
		check();
	}
}

fn last_task() -> TaskId {
	NextTaskId::<T>::get() - 1
}

fn task(id: TaskId) -> Task<T> {
	Tasks::<T>::get(id).unwrap()
}

fn leaves(n: u32) -> Vec<[u8; 32]> {
	(0..n).map(|i| [i as u8 + 1; 32]).collect()
}

fn proof_for(n: u32, segment: u32) -> CheckpointProof {
	let l = leaves(n);
	let p = merkle::proof(&l, segment as usize + 1).unwrap();
	CheckpointProof {
		checkpoint_hash: l[segment as usize + 1],
		siblings: BoundedVec::truncate_from(p.siblings),
	}
}

fn events() -> Vec<Event<T>> {
	System::events()
		.into_iter()
		.filter_map(|e| if let RuntimeEvent::TaskPallet(ev) = e.event { Some(ev) } else { None })
		.collect()
}

/// Submits the MNIST MLP spec from account 1 with one solver (10) registered.
fn submitted() -> TaskId {
	submitted_with(spec())
}

/// Submits `spec` from account 1 with one solver (10) registered.
fn submitted_with(spec: TaskSpec) -> TaskId {
	reg(10, Role::Solver);
	assert_ok!(TaskPallet::submit_task(RuntimeOrigin::signed(1), spec));
	last_task()
}

/// A task through training up to its verifier draw; verifiers 11, 12 registered.
fn committed() -> TaskId {
	committed_with(spec())
}

/// [`committed`] for `spec`.
fn committed_with(spec: TaskSpec) -> TaskId {
	let id = submitted_with(spec);
	reg(11, Role::Verifier);
	reg(12, Role::Verifier);
	assert_ok!(TaskPallet::accept_task(RuntimeOrigin::signed(10), id));
	let n = task(id).checkpoints;
	let root = merkle::root(&leaves(n));
	assert_ok!(TaskPallet::submit_result(
		RuntimeOrigin::signed(10),
		id,
		[9; 32],
		root,
		n,
		BoundedVec::truncate_from(b"/run/1".to_vec())
	));
	id
}

/// A task whose verifiers are drawn.
fn verifying() -> TaskId {
	verifying_with(spec())
}

/// [`verifying`] for `spec`.
fn verifying_with(spec: TaskSpec) -> TaskId {
	let id = committed_with(spec);
	let d = task(id).deadline;
	run_to(d);
	assert_eq!(task(id).phase, Phase::Verifying);
	id
}

/// Posts every verdict honestly (`pass`: replay equals the checkpoint).
fn verify_all(id: TaskId, pass: bool) {
	let n = task(id).checkpoints;
	for a in Audits::<T>::get(id) {
		let p = proof_for(n, a.segment);
		let replay = if pass { p.checkpoint_hash } else { [0xee; 32] };
		let distance = if pass { 0 } else { 0x4000_0000 };
		assert_ok!(TaskPallet::submit_verification(
			RuntimeOrigin::signed(a.verifier),
			id,
			a.segment,
			distance,
			replay,
			p
		));
	}
}

#[test]
fn submit_holds_estimate_times_price_and_draws_a_solver() {
	new_test_ext().execute_with(|| {
		reg(10, Role::Solver);
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
		assert_eq!(pallet_gensyn_stake::Engagements::<T>::get(10), 1);
		check();
	});
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
		];
		for (s, e) in cases {
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
		assert_eq!(task(id).excluded, Some(11));
		// Draws exhausted: failed and refunded in full.
		run_to(15);
		assert!(Tasks::<T>::get(id).is_none());
		assert_eq!(escrow_held(1), 0);
		assert!(events().contains(&Event::TaskFailed {
			id,
			reason: FailReason::NoSolver,
			refunded: spec_escrow()
		}));
		assert_eq!(pallet_gensyn_stake::Engagements::<T>::get(11), 0);
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
		assert_eq!(Balances::free_balance(1), START);
		assert_eq!(escrow_held(1), 0);
		assert!(Tasks::<T>::get(id).is_none());
		assert!(!WorkerTasks::<T>::contains_key(10, id));
		assert_eq!(pallet_gensyn_stake::Engagements::<T>::get(10), 0);
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
		assert_eq!(task(id).excluded, Some(10));
		assert_eq!(pallet_gensyn_stake::Engagements::<T>::get(10), 0);
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
fn verifiers_are_drawn_after_the_commit_never_the_solver() {
	new_test_ext().execute_with(|| {
		let id = committed();
		// The solver is also a verifier: it must never audit itself.
		reg(10, Role::Verifier);
		run_to(3);
		let audits = Audits::<T>::get(id);
		assert_eq!(audits.len(), 1);
		assert!(audits.iter().all(|a| a.verifier != 10 && a.segment < 7));
		assert_eq!(task(id).phase, Phase::Verifying);
		assert_eq!(task(id).deadline, 13);
		check();
	});
}

#[test]
fn verifier_draw_waits_while_no_verifier_then_fails_without_slashing() {
	new_test_ext().execute_with(|| {
		let id = submitted();
		assert_ok!(TaskPallet::accept_task(RuntimeOrigin::signed(10), id));
		let n = task(id).checkpoints;
		assert_ok!(TaskPallet::submit_result(
			RuntimeOrigin::signed(10),
			id,
			[0; 32],
			[0; 32],
			n,
			BoundedVec::default()
		));
		let bond = Stake::bond(&10, Role::Solver);
		run_to(30);
		assert!(Tasks::<T>::get(id).is_none());
		assert!(events()
			.iter()
			.any(|e| matches!(e, Event::TaskFailed { reason: FailReason::NoVerifier, .. })));
		assert_eq!(Stake::bond(&10, Role::Solver), bond);
		assert_eq!(escrow_held(1), 0);
	});
}

#[test]
fn all_pass_settles_paying_solver_verifier_jackpot_treasury() {
	new_test_ext().execute_with(|| {
		let id = verifying();
		let t = task(id);
		let verifier = Audits::<T>::get(id)[0].verifier;
		let before_v = Balances::free_balance(verifier);
		let before_s = Balances::free_balance(10);
		verify_all(id, true);
		assert_eq!(task(id).phase, Phase::Challenge);
		let end = task(id).deadline;
		run_to(end);
		assert!(Tasks::<T>::get(id).is_none());
		assert_eq!(Balances::free_balance(10), before_s + t.solver_pay);
		assert_eq!(Balances::free_balance(verifier), before_v + t.segment_pay);
		assert_eq!(Balances::free_balance(JACKPOT), 1 + t.jackpot_cut);
		assert_eq!(Balances::free_balance(TREASURY), 1 + t.treasury_cut);
		assert_eq!(escrow_held(1), 0);
		assert_eq!(Balances::free_balance(1), START - t.escrow);
		assert_eq!(
			pallet_gensyn_stake::Bonds::<T>::get(10, Role::Solver).unwrap().earned,
			t.solver_pay
		);
		assert!(WorkerTasks::<T>::iter().next().is_none());
		assert!(pallet_gensyn_stake::Engagements::<T>::iter().next().is_none());
	});
}

#[test]
fn submit_verification_errors() {
	new_test_ext().execute_with(|| {
		let id = committed();
		let p = proof_for(8, 0);
		assert_noop!(
			TaskPallet::submit_verification(
				RuntimeOrigin::signed(11),
				id,
				0,
				0,
				[0; 32],
				p.clone()
			),
			Error::<T>::WrongPhase
		);
		run_to(3);
		let a = Audits::<T>::get(id)[0].clone();
		let other = if a.verifier == 11 { 12 } else { 11 };
		let p = proof_for(8, a.segment);
		assert_noop!(
			TaskPallet::submit_verification(
				RuntimeOrigin::signed(other),
				id,
				a.segment,
				0,
				[0; 32],
				p.clone()
			),
			Error::<T>::NotVerifier
		);
		let wrong = (a.segment + 1) % 7;
		assert_noop!(
			TaskPallet::submit_verification(
				RuntimeOrigin::signed(a.verifier),
				id,
				wrong,
				0,
				[0; 32],
				p.clone()
			),
			Error::<T>::UnknownSegment
		);
		let mut bad = p.clone();
		bad.checkpoint_hash = [0x55; 32];
		assert_noop!(
			TaskPallet::submit_verification(
				RuntimeOrigin::signed(a.verifier),
				id,
				a.segment,
				0,
				[0; 32],
				bad
			),
			Error::<T>::BadCheckpointProof
		);
		assert_noop!(
			TaskPallet::submit_verification(
				RuntimeOrigin::none(),
				id,
				a.segment,
				0,
				[0; 32],
				p.clone()
			),
			sp_runtime::DispatchError::BadOrigin
		);
		assert_noop!(
			TaskPallet::submit_verification(
				RuntimeOrigin::signed(a.verifier),
				42,
				a.segment,
				0,
				[0; 32],
				p.clone()
			),
			Error::<T>::UnknownTask
		);
		// Threshold mode: a distance of 0 passes even with a different replay hash.
		assert_ok!(TaskPallet::submit_verification(
			RuntimeOrigin::signed(a.verifier),
			id,
			a.segment,
			0,
			[0; 32],
			p.clone()
		));
		assert!(Audits::<T>::get(id)[0].verdict.unwrap().pass);
		assert_noop!(
			TaskPallet::submit_verification(
				RuntimeOrigin::signed(a.verifier),
				id,
				a.segment,
				0,
				[0; 32],
				p
			),
			Error::<T>::WrongPhase
		);
	});
}

#[test]
fn threshold_mode_fails_far_or_nan_distances_exact_mode_compares_hashes() {
	new_test_ext().execute_with(|| {
		reg(10, Role::Solver);
		reg(11, Role::Verifier);
		let exact = spec_with(|s| {
			s.verification.mode = VerificationMode::Exact;
			s.verification.audit_fraction = SpecPermill(1_000_000);
		});
		assert_ok!(TaskPallet::submit_task(RuntimeOrigin::signed(1), exact));
		let id = last_task();
		assert_ok!(TaskPallet::accept_task(RuntimeOrigin::signed(10), id));
		let root = merkle::root(&leaves(8));
		assert_ok!(TaskPallet::submit_result(
			RuntimeOrigin::signed(10),
			id,
			[0; 32],
			root,
			8,
			BoundedVec::default()
		));
		run_to(3);
		let audits = Audits::<T>::get(id);
		assert_eq!(audits.len(), 4, "all 7 segments wanted, capped at 4");
		let mut segs: Vec<u32> = audits.iter().map(|a| a.segment).collect();
		segs.sort();
		segs.dedup();
		assert_eq!(segs.len(), 4, "distinct segments");
		// Exact: equal hashes pass whatever the distance; a different hash fails.
		let a0 = audits[0].segment;
		let p0 = proof_for(8, a0);
		assert_ok!(TaskPallet::submit_verification(
			RuntimeOrigin::signed(11),
			id,
			a0,
			0x7fc0_0000,
			p0.checkpoint_hash,
			p0
		));
		let a1 = audits[1].segment;
		assert_ok!(TaskPallet::submit_verification(
			RuntimeOrigin::signed(11),
			id,
			a1,
			0,
			[1; 32],
			proof_for(8, a1)
		));
		let v = Audits::<T>::get(id);
		assert!(v[0].verdict.unwrap().pass);
		assert!(!v[1].verdict.unwrap().pass);
	});
}

#[test]
fn a_failing_audit_slashes_the_solver_pays_verifiers_and_refunds() {
	new_test_ext().execute_with(|| {
		let id = verifying();
		let t = task(id);
		let verifier = Audits::<T>::get(id)[0].verifier;
		let vfree = Balances::free_balance(verifier);
		let bond = Stake::bond(&10, Role::Solver);
		verify_all(id, false);
		let end = task(id).deadline;
		run_to(end);
		// No other solver: the task fails.
		assert!(Tasks::<T>::get(id).is_none());
		assert_eq!(Stake::bond(&10, Role::Solver), bond - 100);
		assert_eq!(escrow_held(1), 0);
		// The verifier was paid from the escrow, and the solver's slash paid that back
		// first: the owner is whole.
		// (Here the verdict costs more than the 100 slashed: the owner gets the slash.)
		let wasted = t.segment_pay * u64::from(t.audits);
		let back = wasted.min(100);
		assert_eq!(Balances::free_balance(1), START - (wasted - back));
		// The verifier got its pay plus the reporter's half of the rest of the slash.
		assert_eq!(Balances::free_balance(verifier), vfree + t.segment_pay + (100 - back) / 2);
		let ev = events();
		assert!(ev.contains(&Event::ProofRejected { id, solver: 10, compensated: back }));
		assert!(ev
			.iter()
			.any(|e| matches!(e, Event::TaskFailed { reason: FailReason::ProofRejected, .. })));
	});
}

/// Rejects the proof of the task's current solver once its audits fail.
fn reject_current(id: TaskId) {
	verify_all(id, false);
	let end = task(id).deadline;
	run_to(end);
}

/// Accepts and commits the task as its current solver; runs to its verifier draw.
fn train_as_solver(id: TaskId) -> u64 {
	let solver = task(id).solver.unwrap();
	assert_ok!(TaskPallet::accept_task(RuntimeOrigin::signed(solver), id));
	let n = task(id).checkpoints;
	assert_ok!(TaskPallet::submit_result(
		RuntimeOrigin::signed(solver),
		id,
		[9; 32],
		merkle::root(&leaves(n)),
		n,
		BoundedVec::truncate_from(b"/run/2".to_vec())
	));
	run_to(task(id).deadline);
	assert_eq!(task(id).phase, Phase::Verifying);
	solver
}

/// A task whose one audited segment costs less to verify than the rejected-proof slash
/// (2-step segments, one audit).
fn cheap_audit_spec() -> TaskSpec {
	spec_with(|s| {
		s.training.checkpoint_interval = 2;
		s.verification.audit_fraction = SpecPermill(1);
	})
}

#[test]
fn a_rejected_proof_goes_to_another_solver_and_the_owner_pays_one_round() {
	new_test_ext().execute_with(|| {
		let id = verifying_with(cheap_audit_spec());
		reg(14, Role::Solver);
		let t = task(id);
		assert_eq!(t.audits, 1);
		assert!(t.segment_pay < 100, "the slash covers the audit");
		let round = t.solver_pay + t.jackpot_cut + t.treasury_cut + t.segment_pay;
		assert_eq!(t.escrow, round);
		reject_current(id);
		// Offered to the other solver with the escrow of a whole round held again.
		let t2 = task(id);
		assert_eq!(
			(t2.phase, t2.solver, t2.excluded, t2.rounds),
			(Phase::Offered, Some(14), Some(10), 2)
		);
		assert_eq!((t2.escrow, escrow_held(1)), (round, round));
		assert!(t2.result.is_none());
		assert!(Audits::<T>::get(id).is_empty());
		assert!(WorkerTasks::<T>::get(10, id).is_none(), "the rejected solver is let go");
		assert_eq!(Stake::bond(&10, Role::Solver), 900);
		assert!(events().contains(&Event::SolverDrawn { id, solver: 14, until: t2.deadline }));
		// The rejected solver cannot come back to it.
		assert_noop!(TaskPallet::accept_task(RuntimeOrigin::signed(10), id), Error::<T>::NotSolver);
		// The second solver's proof passes: the owner paid one round in all.
		assert_eq!(train_as_solver(id), 14);
		verify_all(id, true);
		run_to(task(id).deadline);
		assert!(Tasks::<T>::get(id).is_none());
		assert!(events()
			.iter()
			.any(|e| matches!(e, Event::TaskCompleted { id: i, .. } if *i == id)));
		assert_eq!(Balances::free_balance(1), START - round);
		assert_eq!(escrow_held(1), 0);
		assert_eq!(Stake::bond(&14, Role::Solver), 1_000);
	});
}

#[test]
fn a_task_fails_once_its_rounds_are_spent() {
	new_test_ext().execute_with(|| {
		let id = verifying_with(cheap_audit_spec());
		reg(14, Role::Solver);
		reject_current(id);
		// Round 2 (the mock's last) is rejected too: failed, the owner whole again.
		assert_eq!(train_as_solver(id), 14);
		reject_current(id);
		assert!(Tasks::<T>::get(id).is_none());
		assert_eq!(Balances::free_balance(1), START);
		assert_eq!(escrow_held(1), 0);
		assert_eq!((Stake::bond(&10, Role::Solver), Stake::bond(&14, Role::Solver)), (900, 900));
		let rejected = events().iter().filter(|e| matches!(e, Event::ProofRejected { .. })).count();
		assert_eq!(rejected, 2);
		assert!(events()
			.iter()
			.any(|e| matches!(e, Event::TaskFailed { reason: FailReason::ProofRejected, .. })));
	});
}

#[test]
fn missed_verdicts_are_slashed_and_redrawn() {
	new_test_ext().execute_with(|| {
		let id = verifying();
		let v = Audits::<T>::get(id)[0].verifier;
		let bond = Stake::bond(&v, Role::Verifier);
		run_to(13);
		assert_eq!(Stake::bond(&v, Role::Verifier), bond - 20);
		// Nobody verified: a new draw.
		assert_eq!(task(id).phase, Phase::Verifying);
		assert_eq!(task(id).deadline, 23);
		// Again nobody: eventually the draws run out and the task fails, solver unslashed.
		let sb = Stake::bond(&10, Role::Solver);
		run_to(60);
		assert!(Tasks::<T>::get(id).is_none());
		assert_eq!(Stake::bond(&10, Role::Solver), sb);
		assert_eq!(escrow_held(1), 0);
	});
}

#[test]
fn partial_verdicts_open_the_window_with_what_was_verified() {
	new_test_ext().execute_with(|| {
		reg(10, Role::Solver);
		reg(11, Role::Verifier);
		reg(12, Role::Verifier);
		let s = spec_with(|s| s.verification.audit_fraction = SpecPermill(1_000_000));
		assert_ok!(TaskPallet::submit_task(RuntimeOrigin::signed(1), s));
		let id = last_task();
		assert_ok!(TaskPallet::accept_task(RuntimeOrigin::signed(10), id));
		assert_ok!(TaskPallet::submit_result(
			RuntimeOrigin::signed(10),
			id,
			[0; 32],
			merkle::root(&leaves(8)),
			8,
			BoundedVec::default()
		));
		run_to(3);
		let audits = Audits::<T>::get(id);
		let first = audits[0].clone();
		assert_ok!(TaskPallet::submit_verification(
			RuntimeOrigin::signed(first.verifier),
			id,
			first.segment,
			0,
			[0; 32],
			proof_for(8, first.segment)
		));
		run_to(13);
		assert_eq!(task(id).phase, Phase::Challenge);
		assert!(Audits::<T>::get(id).iter().all(|a| a.verdict.is_some()));
		let t = task(id);
		run_to(t.deadline);
		assert!(Tasks::<T>::get(id).is_none());
		// Unverified segments' budget went back to the owner.
		let paid = Audits::<T>::get(id).len() as u64;
		assert_eq!(paid, 0);
		assert_eq!(escrow_held(1), 0);
	});
}

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
		assert_eq!(watched(), vec![Duty::Watch { task: id, segment: a.segment, by: end }]);
		assert_ok!(TaskPallet::challenge(RuntimeOrigin::signed(10), id, a.segment));
		assert!(watched().is_empty(), "challenged");
		assert!(TaskPallet::duties(&10).contains(&Duty::Dispute { task: id, segment: a.segment }));
		// The solver loses the game: slashed for a false challenge, the verdict stands.
		let sb = Stake::bond(&10, Role::Solver);
		assert_ok!(<TaskPallet as DisputeOutcome>::resolve(id, a.segment, false));
		assert_eq!(Stake::bond(&10, Role::Solver), sb - 15);
		assert_eq!(watched(), vec![Duty::Watch { task: id, segment: a.segment, by: end }]);
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
fn a_verdict_a_game_refuted_is_not_tried_again() {
	new_test_ext().execute_with(|| {
		// An Exact-mode pass refuted by a whistleblower became a fail.
		let (id, _) = overturned_pass(VerificationMode::Exact, true);
		let a = Audits::<T>::get(id)[0].clone();
		assert!(a.overturned && a.verdict.is_some_and(|v| !v.pass));
		let watches = |who: u64| {
			TaskPallet::duties(&who).iter().filter(|d| matches!(d, Duty::Watch { .. })).count()
		};
		assert_eq!((watches(10), watches(13)), (0, 0), "neither solver nor whistleblower");
		for who in [10, 13] {
			assert_noop!(
				TaskPallet::challenge(RuntimeOrigin::signed(who), id, a.segment),
				Error::<T>::NotAllowedToChallenge
			);
		}
	});
}

#[test]
fn challenge_errors() {
	new_test_ext().execute_with(|| {
		let id = verifying();
		let a = Audits::<T>::get(id)[0].clone();
		reg(13, Role::Whistleblower);
		assert_noop!(
			TaskPallet::challenge(RuntimeOrigin::signed(13), id, a.segment),
			Error::<T>::WrongPhase
		);
		verify_all(id, true);
		assert_noop!(
			TaskPallet::challenge(RuntimeOrigin::signed(13), id, 99),
			Error::<T>::UnknownSegment
		);
		// Not a whistleblower; the solver may not challenge a passing verdict; the
		// verifier may not challenge itself.
		assert_noop!(
			TaskPallet::challenge(RuntimeOrigin::signed(14), id, a.segment),
			Error::<T>::NotAllowedToChallenge
		);
		assert_noop!(
			TaskPallet::challenge(RuntimeOrigin::signed(10), id, a.segment),
			Error::<T>::NotAllowedToChallenge
		);
		reg(a.verifier, Role::Whistleblower);
		assert_noop!(
			TaskPallet::challenge(RuntimeOrigin::signed(a.verifier), id, a.segment),
			Error::<T>::NotAllowedToChallenge
		);
		assert_noop!(
			TaskPallet::challenge(RuntimeOrigin::none(), id, a.segment),
			sp_runtime::DispatchError::BadOrigin
		);
		REFUSE.with(|r| *r.borrow_mut() = true);
		assert_noop!(
			TaskPallet::challenge(RuntimeOrigin::signed(13), id, a.segment),
			sp_runtime::DispatchError::Other("refused")
		);
		REFUSE.with(|r| *r.borrow_mut() = false);
		assert_ok!(TaskPallet::challenge(RuntimeOrigin::signed(13), id, a.segment));
		assert_eq!(task(id).phase, Phase::Disputed);
		assert_noop!(
			TaskPallet::challenge(RuntimeOrigin::signed(13), id, a.segment),
			Error::<T>::AlreadyDisputed
		);
		assert_eq!(DISPUTES.with(|d| d.borrow().clone()), vec![(id, a.segment, 13, a.verifier)]);
		check();
	});
}

/// A whistleblower wins the game over a passing verdict of a task in `mode`; with
/// `spare` the verifier that was not drawn stays active (a possible re-auditor), else it
/// unbonds first. Returns the task and the overturned verifier.
fn overturned_pass(mode: VerificationMode, spare: bool) -> (TaskId, u64) {
	let id = verifying();
	Specs::<T>::mutate(id, |s| {
		if let Some(s) = s {
			s.verification.mode = mode;
		}
	});
	let a = Audits::<T>::get(id)[0].clone();
	if !spare {
		let other = if a.verifier == 11 { 12 } else { 11 };
		assert_ok!(Stake::unbond(RuntimeOrigin::signed(other), Role::Verifier));
	}
	reg(13, Role::Whistleblower);
	verify_all(id, true);
	assert_ok!(TaskPallet::challenge(RuntimeOrigin::signed(13), id, a.segment));
	let vb = Stake::bond(&a.verifier, Role::Verifier);
	let w = Balances::free_balance(13);
	assert_ok!(<TaskPallet as DisputeOutcome>::resolve(id, a.segment, true));
	assert_eq!(Stake::bond(&a.verifier, Role::Verifier), vb - 30);
	assert_eq!(Balances::free_balance(13), w + 15);
	assert_noop!(
		<TaskPallet as DisputeOutcome>::resolve(id, a.segment, true),
		Error::<T>::WrongPhase
	);
	(id, a.verifier)
}

#[test]
fn an_overturned_threshold_verdict_is_void_and_its_verifier_slashed_and_unpaid() {
	new_test_ext().execute_with(|| {
		let (id, verifier) = overturned_pass(VerificationMode::Threshold, false);
		// The refuted replay says nothing about the solver's checkpoint: void; with no
		// verifier left to audit it again, the window runs on.
		let a = Audits::<T>::get(id)[0].clone();
		assert_eq!((a.verdict, a.overturned, a.reaudits), (None, true, 0));
		assert_eq!(task(id).phase, Phase::Challenge);
		let sb = Stake::bond(&10, Role::Solver);
		let vfree = Balances::free_balance(verifier);
		let kept =
			Audits::<T>::get(id).iter().filter(|a| a.verifier == verifier && !a.overturned).count()
				as u64;
		let pay = task(id).segment_pay;
		let end = task(id).deadline;
		run_to(end);
		assert!(events().iter().any(|e| matches!(e, Event::TaskCompleted { .. })));
		assert_eq!(Stake::bond(&10, Role::Solver), sb, "the solver is not failed");
		assert_eq!(
			Balances::free_balance(verifier) - vfree,
			kept * pay,
			"the overturned verdict is not paid, the verifier's others are"
		);
	});
}

#[test]
fn a_voided_segment_is_audited_again_by_another_verifier() {
	new_test_ext().execute_with(|| {
		let (id, voided) = overturned_pass(VerificationMode::Threshold, true);
		let other = if voided == 11 { 12 } else { 11 };
		let t = task(id);
		// The segment goes to the verifier not bound to the task; the voided one is let go.
		let a = Audits::<T>::get(id)[0].clone();
		assert_eq!((a.verifier, a.verdict, a.reaudits), (other, None, 1));
		assert_eq!(t.phase, Phase::Verifying);
		assert!(events().contains(&Event::Reaudited { id, segment: a.segment, verifier: other }));
		assert!(WorkerTasks::<T>::get(voided, id).is_none());
		assert!(TaskPallet::duties(&other).contains(&Duty::Verify {
			task: id,
			segment: a.segment,
			by: t.deadline,
			forcible: true
		}));
		let p = proof_for(t.checkpoints, a.segment);
		assert_ok!(TaskPallet::submit_verification(
			RuntimeOrigin::signed(other),
			id,
			a.segment,
			0,
			p.checkpoint_hash,
			p
		));
		assert_eq!(task(id).phase, Phase::Challenge, "the window opens again");
		// Overturned again: no verifier is left to draw (11 and 12 were both taken off), so
		// the segment stays void.
		assert_ok!(TaskPallet::challenge(RuntimeOrigin::signed(13), id, a.segment));
		assert_ok!(<TaskPallet as DisputeOutcome>::resolve(id, a.segment, true));
		let a = Audits::<T>::get(id)[0].clone();
		assert_eq!((a.verifier, a.verdict, a.overturned), (other, None, true));
		assert_eq!(task(id).phase, Phase::Challenge);
		let (vfree, ofree) = (Balances::free_balance(voided), Balances::free_balance(other));
		run_to(task(id).deadline);
		assert!(events().iter().any(|e| matches!(e, Event::TaskCompleted { .. })));
		// Neither refuted verdict is paid: the owner paid the solver and the cuts only.
		assert_eq!((Balances::free_balance(voided), Balances::free_balance(other)), (vfree, ofree));
		assert_eq!(
			Balances::free_balance(1),
			START - t.solver_pay - t.jackpot_cut - t.treasury_cut
		);
	});
}

#[test]
fn an_overturned_exact_pass_fails_the_proof_and_slashes_the_solver() {
	new_test_ext().execute_with(|| {
		let (id, verifier) = overturned_pass(VerificationMode::Exact, true);
		assert!(!Audits::<T>::get(id)[0].verdict.unwrap().pass, "the pass became a fail");
		assert_eq!(task(id).phase, Phase::Challenge, "a fail is not audited again");
		let sb = Stake::bond(&10, Role::Solver);
		let vfree = Balances::free_balance(verifier);
		let end = task(id).deadline;
		run_to(end);
		assert!(Tasks::<T>::get(id).is_none());
		assert_eq!(Stake::bond(&10, Role::Solver), sb - 100);
		assert_eq!(Balances::free_balance(verifier), vfree);
	});
}

#[test]
fn a_losing_challenger_is_slashed_and_the_task_settles() {
	new_test_ext().execute_with(|| {
		let id = verifying();
		let a = Audits::<T>::get(id)[0].clone();
		reg(13, Role::Whistleblower);
		verify_all(id, true);
		assert_ok!(TaskPallet::challenge(RuntimeOrigin::signed(13), id, a.segment));
		assert_noop!(
			<TaskPallet as DisputeOutcome>::resolve(id, 99, false),
			Error::<T>::UnknownSegment
		);
		assert_noop!(
			<TaskPallet as DisputeOutcome>::resolve(77, 0, false),
			Error::<T>::UnknownTask
		);
		assert_ok!(<TaskPallet as DisputeOutcome>::resolve(id, a.segment, false));
		assert_eq!(Stake::bond(&13, Role::Whistleblower), 200 - 15);
		let end = task(id).deadline;
		run_to(end);
		assert!(events().iter().any(|e| matches!(e, Event::TaskCompleted { .. })));
	});
}

#[test]
fn the_solver_may_dispute_a_failing_verdict_and_win() {
	new_test_ext().execute_with(|| {
		let id = verifying();
		let a = Audits::<T>::get(id)[0].clone();
		verify_all(id, false);
		assert_ok!(TaskPallet::challenge(RuntimeOrigin::signed(10), id, a.segment));
		assert_ok!(<TaskPallet as DisputeOutcome>::resolve(id, a.segment, true));
		// The voided segment goes to the other verifier, whose replay passes it.
		assert_eq!(task(id).phase, Phase::Verifying);
		let r = Audits::<T>::get(id)[0].clone();
		assert!(r.reaudits == 1 && r.verifier != a.verifier);
		let p = proof_for(task(id).checkpoints, r.segment);
		assert_ok!(TaskPallet::submit_verification(
			RuntimeOrigin::signed(r.verifier),
			id,
			r.segment,
			0,
			p.checkpoint_hash,
			p
		));
		let end = task(id).deadline;
		let sb = Stake::bond(&10, Role::Solver);
		run_to(end);
		assert!(events().iter().any(|e| matches!(e, Event::TaskCompleted { .. })));
		assert_eq!(Stake::bond(&10, Role::Solver), sb);
	});
}

#[test]
fn an_unresolved_dispute_times_out_and_the_task_settles() {
	new_test_ext().execute_with(|| {
		let id = verifying();
		let a = Audits::<T>::get(id)[0].clone();
		reg(13, Role::Whistleblower);
		verify_all(id, true);
		assert_ok!(TaskPallet::challenge(RuntimeOrigin::signed(13), id, a.segment));
		let d = task(id).deadline;
		run_to(d);
		assert!(Tasks::<T>::get(id).is_none());
		assert!(DISPUTES.with(|x| x.borrow().is_empty()), "arbiter told to cancel");
		assert_eq!(Stake::bond(&13, Role::Whistleblower), 200);
		assert!(events().iter().any(|e| matches!(e, Event::TaskCompleted { .. })));
	});
}

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

/// A small deterministic RNG for the property test.
struct Rng(u64);
impl Rng {
	fn next(&mut self) -> u64 {
		self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
		let mut z = self.0;
		z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
		z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
		z ^ (z >> 31)
	}
	fn below(&mut self, n: u64) -> u64 {
		self.next() % n.max(1)
	}
}

/// Random sequences of submit, register, accept, result, verify, challenge, rule,
/// cancel and timeouts: invariants hold after every block, every deadline moves its
/// task, and at the end every escrow is gone and every engagement released.
#[test]
fn property_random_action_sequences_conserve_funds() {
	// How often each outcome happened over all seeds, so the test cannot pass vacuously.
	let mut seen = [0u32; 5];
	for seed in 0..40u64 {
		new_test_ext().execute_with(|| {
			let mut rng = Rng(seed);
			SALT.with(|s| *s.borrow_mut() = seed);
			// Half the seeds run with the real jackpot and a 30% forced-error rate.
			let real = seed % 2 == 1;
			if real {
				REAL_JACKPOT.with(|r| *r.borrow_mut() = true);
				RATE.with(|r| *r.borrow_mut() = sp_runtime::Perbill::from_percent(30));
			}
			if seed % 3 == 0 {
				PROFILE.with(|r| *r.borrow_mut() = 4);
			}
			// A base crew: solvers 2..=4, verifiers 5..=8, whistleblowers 9..=10.
			for a in 2..=4 {
				reg(a, Role::Solver);
			}
			for a in 5..=8 {
				reg(a, Role::Verifier);
				let _ = JackpotPallet::commit(
					RuntimeOrigin::signed(a),
					sp_io::hashing::blake2_256(&[a as u8; 32]),
				);
			}
			for a in 9..=10 {
				reg(a, Role::Whistleblower);
			}
			for _ in 0..120 {
				let ids: Vec<TaskId> = Tasks::<T>::iter_keys().collect();
				let pick = |rng: &mut Rng| ids.get(rng.below(ids.len() as u64) as usize).copied();
				let who = 1 + rng.below(ACCOUNTS);
				// Results of calls are ignored: invalid actions must fail cleanly.
				match rng.below(13) {
					11 => {
						let v = if rng.below(4) == 0 { who } else { 5 + rng.below(4) };
						let _ = JackpotPallet::commit(
							RuntimeOrigin::signed(v),
							sp_io::hashing::blake2_256(&[v as u8; 32]),
						);
					}
					12 => {
						if let Some(id) = pick(&mut rng) {
							for a in Audits::<T>::get(id) {
								let _ = JackpotPallet::reveal(
									RuntimeOrigin::signed(a.verifier),
									id,
									[a.verifier as u8; 32],
								);
							}
						}
					}
					0 => {
						let s = spec_with(|s| {
							s.verification.audit_fraction =
								SpecPermill(1 + rng.below(1_000_000) as u32);
							if rng.below(2) == 0 {
								s.verification.mode = VerificationMode::Exact;
							}
						});
						let _ = TaskPallet::submit_task(RuntimeOrigin::signed(who), s);
					}
					1 => {
						let role = [Role::Solver, Role::Verifier, Role::Whistleblower]
							[rng.below(3) as usize];
						let _ = Stake::register(
							RuntimeOrigin::signed(who),
							role,
							1_000,
							cap(16_384),
							BoundedVec::truncate_from(b"e".to_vec()),
						);
					}
					2 => {
						if let Some(id) = pick(&mut rng) {
							let s = task(id).solver.unwrap_or(who);
							let _ = TaskPallet::accept_task(RuntimeOrigin::signed(s), id);
							let p = task(id).profiler.unwrap_or(who);
							let t = f32::to_bits(rng.below(4) as f32);
							let _ = TaskPallet::submit_profile(RuntimeOrigin::signed(p), id, t);
						}
					}
					3 => {
						if let Some(id) = pick(&mut rng) {
							let t = task(id);
							let s = t.solver.unwrap_or(who);
							let _ = TaskPallet::submit_result(
								RuntimeOrigin::signed(s),
								id,
								[0; 32],
								merkle::root(&leaves(t.checkpoints)),
								t.checkpoints,
								BoundedVec::default(),
							);
						}
					}
					4 => {
						if let Some(id) = pick(&mut rng) {
							let n = task(id).checkpoints;
							let audits = Audits::<T>::get(id);
							if let Some(a) = audits.get(rng.below(audits.len() as u64) as usize) {
								let p = proof_for(n, a.segment);
								let honest = rng.below(3) != 0;
								let replay = if honest { p.checkpoint_hash } else { [7; 32] };
								let dist = if honest { 0 } else { 0x4100_0000 };
								let _ = TaskPallet::submit_verification(
									RuntimeOrigin::signed(a.verifier),
									id,
									a.segment,
									dist,
									replay,
									p,
								);
							}
						}
					}
					5 => {
						if let Some(id) = pick(&mut rng) {
							let audits = Audits::<T>::get(id);
							if let Some(a) = audits.get(rng.below(audits.len() as u64) as usize) {
								let c = match rng.below(4) {
									0 => task(id).solver.unwrap_or(who),
									1 => who,
									_ => 9 + rng.below(2),
								};
								let _ =
									TaskPallet::challenge(RuntimeOrigin::signed(c), id, a.segment);
							}
						}
					}
					6 => {
						let open = DISPUTES.with(|d| d.borrow().clone());
						if let Some(&(id, seg, _, _)) =
							open.get(rng.below(open.len() as u64) as usize)
						{
							if <TaskPallet as DisputeOutcome>::resolve(id, seg, rng.below(2) == 0)
								.is_ok()
							{
								DISPUTES.with(|d| {
									d.borrow_mut().retain(|x| !(x.0 == id && x.1 == seg))
								});
							}
						}
					}
					7 => {
						if let Some(id) = pick(&mut rng) {
							let _ =
								TaskPallet::cancel_task(RuntimeOrigin::signed(task(id).owner), id);
						}
					}
					8 => {
						let role = [Role::Solver, Role::Verifier, Role::Whistleblower]
							[rng.below(3) as usize];
						let _ = Stake::unbond(RuntimeOrigin::signed(who), role);
					}
					_ => {
						let to = System::block_number() + 1 + rng.below(6);
						run_to(to);
					}
				}
				check();
			}
			// Let everything run out: no task may survive its deadlines forever.
			DISPUTES.with(|d| d.borrow_mut().clear());
			// (Two rounds of up to four draws each, every one up to the longest deadline.)
			run_to(System::block_number() + 1_000);
			for e in events() {
				match e {
					Event::TaskCompleted { .. } => seen[0] += 1,
					Event::ProofRejected { .. } => seen[1] += 1,
					Event::TaskFailed { .. } => seen[2] += 1,
					Event::Challenged { .. } => seen[3] += 1,
					Event::TaskCancelled { .. } => seen[4] += 1,
					_ => {}
				}
			}
			assert_eq!(Tasks::<T>::iter().count(), 0, "seed {seed}: a task got stuck");
			for a in 1..=ACCOUNTS {
				assert_eq!(escrow_held(a), 0, "seed {seed}: escrow stranded");
			}
			assert!(WorkerTasks::<T>::iter().next().is_none());
			assert!(pallet_gensyn_stake::Engagements::<T>::iter().next().is_none());
			assert!(pallet_gensyn_jackpot::Bindings::<T>::iter().next().is_none());
			check();
		});
	}
	println!("completed, proofs rejected, failed, challenged, cancelled: {seen:?}");
	assert!(seen.iter().all(|n| *n > 0), "every outcome is exercised: {seen:?}");
}

/// Turns the real jackpot on at `rate`, funds the pot, and commits secrets for
/// verifiers 11 and 12 (secret: `[who; 32]`).
fn with_jackpot(rate: sp_runtime::Perbill) {
	REAL_JACKPOT.with(|r| *r.borrow_mut() = true);
	RATE.with(|r| *r.borrow_mut() = rate);
	assert_ok!(Balances::transfer_allow_death(RuntimeOrigin::signed(20), JACKPOT, 10_000));
}

fn commit(who: u64) {
	assert_ok!(JackpotPallet::commit(
		RuntimeOrigin::signed(who),
		sp_io::hashing::blake2_256(&[who as u8; 32])
	));
}

fn reveal(who: u64, id: TaskId) {
	assert_ok!(JackpotPallet::reveal(RuntimeOrigin::signed(who), id, [who as u8; 32]));
}

/// A task with the real jackpot at `rate`, verifiers drawn (both committed).
fn verifying_with_jackpot(rate: sp_runtime::Perbill) -> TaskId {
	verifying_with_jackpot_for(rate, spec())
}

/// [`verifying_with_jackpot`] for `spec`.
fn verifying_with_jackpot_for(rate: sp_runtime::Perbill, spec: TaskSpec) -> TaskId {
	verifying_by(rate, spec, &[11, 12])
}

/// A task of `spec` with the real jackpot at `rate`, drawn among `verifiers` (each
/// registered and committed).
fn verifying_by(rate: sp_runtime::Perbill, spec: TaskSpec, verifiers: &[u64]) -> TaskId {
	with_jackpot(rate);
	let id = submitted_with(spec);
	for v in verifiers {
		reg(*v, Role::Verifier);
		commit(*v);
	}
	assert_ok!(TaskPallet::accept_task(RuntimeOrigin::signed(10), id));
	assert_ok!(TaskPallet::submit_result(
		RuntimeOrigin::signed(10),
		id,
		[9; 32],
		merkle::root(&leaves(8)),
		8,
		BoundedVec::default()
	));
	run_to(3);
	assert_eq!(task(id).phase, Phase::Verifying);
	id
}

#[test]
fn verifiers_without_a_commitment_are_not_drawn_and_a_draw_consumes_it() {
	new_test_ext().execute_with(|| {
		with_jackpot(sp_runtime::Perbill::zero());
		let id = committed();
		commit(12);
		run_to(3);
		let a = Audits::<T>::get(id)[0].clone();
		assert_eq!(a.verifier, 12, "11 has no commitment");
		assert!(!<JackpotPallet as pallet_gensyn_jackpot::ForcedErrors<u64, u64>>::has_commitment(
			&12
		));
		assert!(pallet_gensyn_jackpot::Bindings::<T>::contains_key(12, id));
	});
}

#[test]
fn a_caught_forced_error_pays_the_whistleblower_and_never_fails_the_solver() {
	new_test_ext().execute_with(|| {
		let id = verifying_with_jackpot(sp_runtime::Perbill::one());
		let a = Audits::<T>::get(id)[0].clone();
		// Forced: the verifier posts a wrong replay, failing the segment.
		verify_all(id, false);
		reg(13, Role::Whistleblower);
		assert_ok!(TaskPallet::challenge(RuntimeOrigin::signed(13), id, a.segment));
		reveal(a.verifier, id);
		let vb = Stake::bond(&a.verifier, Role::Verifier);
		assert_ok!(<TaskPallet as DisputeOutcome>::resolve(id, a.segment, true));
		assert_eq!(Stake::bond(&a.verifier, Role::Verifier), vb, "forced: not slashed");
		let w = Balances::free_balance(13);
		let sb = Stake::bond(&10, Role::Solver);
		let pot = Balances::free_balance(JACKPOT);
		let end = task(id).deadline;
		run_to(end);
		assert!(events().iter().any(|e| matches!(e, Event::TaskCompleted { .. })));
		assert_eq!(Stake::bond(&10, Role::Solver), sb, "the solver is not failed");
		// 10% of the pot's spendable balance, then the jackpot cut comes in.
		assert_eq!(Balances::free_balance(13), w + (pot - 1) / 10);
		assert!(pallet_gensyn_jackpot::Bindings::<T>::iter().next().is_none());
	});
}

#[test]
fn an_unrevealed_verdict_is_void_and_its_segment_audited_again() {
	new_test_ext().execute_with(|| {
		let id = verifying_with_jackpot(sp_runtime::Perbill::zero());
		let a = Audits::<T>::get(id)[0].clone();
		// A failing verdict whose verifier never reveals its secret.
		verify_all(id, false);
		let vb = Stake::bond(&a.verifier, Role::Verifier);
		let sb = Stake::bond(&10, Role::Solver);
		let (vfree, solver) = (Balances::free_balance(a.verifier), Balances::free_balance(10));
		let t = task(id);
		run_to(t.deadline);
		let reveal_slash: u64 = <<T as Config>::MissedRevealSlash as Get<u64>>::get();
		assert_eq!(Stake::bond(&a.verifier, Role::Verifier), vb - reveal_slash);
		let b = Audits::<T>::get(id)[0].clone();
		assert_eq!((b.reaudits, b.verdict, b.overturned), (1, None, false));
		assert!(b.verifier != a.verifier);
		assert!(events().contains(&Event::Reaudited {
			id,
			segment: a.segment,
			verifier: b.verifier
		}));
		assert_eq!(task(id).phase, Phase::Verifying);
		// The re-auditor passes the segment and reveals: the solver is paid in full; the
		// first verifier is not paid, nor slashed again.
		verify_all(id, true);
		reveal(b.verifier, id);
		run_to(task(id).deadline);
		assert!(events().iter().any(|e| matches!(
			e,
			Event::TaskCompleted { id: i, solver_paid, .. } if *i == id && *solver_paid == t.solver_pay
		)));
		assert_eq!(Balances::free_balance(10), solver + t.solver_pay);
		assert_eq!(Stake::bond(&10, Role::Solver), sb);
		assert_eq!(Stake::bond(&a.verifier, Role::Verifier), vb - reveal_slash, "slashed once");
		assert_eq!(Balances::free_balance(a.verifier), vfree, "not paid");
		check();
	});
}

#[test]
fn unrevealed_verdicts_a_short_pool_cannot_all_reaudit_are_slashed_once_and_let_go() {
	new_test_ext().execute_with(|| {
		// Two segments audited, by 11 and 12; both pass and neither reveals; one spare
		// verifier (14) to audit them again.
		let two = spec_with(|s| s.verification.audit_fraction = SpecPermill(200_000));
		let id = verifying_with_jackpot_for(sp_runtime::Perbill::zero(), two);
		let audits = Audits::<T>::get(id);
		assert_eq!(audits.len(), 2);
		verify_all(id, true);
		reg(14, Role::Verifier);
		commit(14);
		let bonds: Vec<u64> =
			audits.iter().map(|a| Stake::bond(&a.verifier, Role::Verifier)).collect();
		let reveal_slash: u64 = <<T as Config>::MissedRevealSlash as Get<u64>>::get();
		run_to(task(id).deadline);
		// Both judged and slashed now, whether a re-audit takes their segment or not.
		for (a, vb) in audits.iter().zip(&bonds) {
			assert_eq!(Stake::bond(&a.verifier, Role::Verifier), vb - reveal_slash);
		}
		let now = Audits::<T>::get(id);
		let again = now.iter().find(|a| a.reaudits > 0).expect("one re-audit").clone();
		assert_eq!(again.verifier, 14);
		let kept = now.iter().find(|a| a.reaudits == 0).expect("the other audit").clone();
		assert!(kept.overturned && kept.verdict.is_none());
		// 14 stays silent too: at the deadline the void audit no re-audit took goes with
		// it, and its verifier is let go (its binding released), slashed only once.
		run_to(task(id).deadline);
		assert!(!Audits::<T>::get(id).iter().any(|a| a.verifier == kept.verifier));
		assert!(!task(id).engaged.contains(&kept.verifier));
		assert!(!pallet_gensyn_jackpot::Bindings::<T>::contains_key(kept.verifier, id));
		assert!(Replaced::<T>::get(id).contains(&kept.verifier), "not drawn again");
		for (a, vb) in audits.iter().zip(&bonds) {
			let bond = Stake::bond(&a.verifier, Role::Verifier);
			assert_eq!(bond, vb - reveal_slash, "slashed once");
		}
		check();
	});
}

#[test]
fn an_unrevealed_verdict_with_no_verifier_left_to_draw_is_ignored_and_slashed() {
	new_test_ext().execute_with(|| {
		let id = verifying_by(sp_runtime::Perbill::zero(), spec(), &[11]);
		let a = Audits::<T>::get(id)[0].clone();
		verify_all(id, false);
		let vb = Stake::bond(&a.verifier, Role::Verifier);
		let sb = Stake::bond(&10, Role::Solver);
		let vfree = Balances::free_balance(a.verifier);
		let end = task(id).deadline;
		run_to(end);
		let reveal_slash: u64 = <<T as Config>::MissedRevealSlash as Get<u64>>::get();
		assert_eq!(Stake::bond(&a.verifier, Role::Verifier), vb - reveal_slash);
		assert_eq!(Balances::free_balance(a.verifier), vfree, "not paid");
		assert_eq!(Stake::bond(&10, Role::Solver), sb, "an untrusted verdict fails nobody");
		assert!(!events().iter().any(|e| matches!(e, Event::Reaudited { .. })));
		assert!(events().iter().any(|e| matches!(e, Event::TaskCompleted { .. })));
		check();
	});
}

#[test]
fn a_forced_segment_with_a_passing_verdict_is_a_lie() {
	new_test_ext().execute_with(|| {
		let id = verifying_with_jackpot(sp_runtime::Perbill::one());
		let a = Audits::<T>::get(id)[0].clone();
		verify_all(id, true);
		reveal(a.verifier, id);
		let vb = Stake::bond(&a.verifier, Role::Verifier);
		let end = task(id).deadline;
		run_to(end);
		assert_eq!(Stake::bond(&a.verifier, Role::Verifier), vb - 40);
	});
}

#[test]
fn a_revealed_unforced_failing_verdict_fails_the_solver() {
	new_test_ext().execute_with(|| {
		let id = verifying_with_jackpot(sp_runtime::Perbill::zero());
		let a = Audits::<T>::get(id)[0].clone();
		verify_all(id, false);
		reveal(a.verifier, id);
		let sb = Stake::bond(&10, Role::Solver);
		let end = task(id).deadline;
		run_to(end);
		assert_eq!(Stake::bond(&10, Role::Solver), sb - 100);
		assert!(events()
			.iter()
			.any(|e| matches!(e, Event::TaskFailed { reason: FailReason::ProofRejected, .. })));
	});
}

#[test]
fn a_solver_that_refutes_a_forced_error_is_not_failed_and_gets_no_catch() {
	new_test_ext().execute_with(|| {
		let id = verifying_with_jackpot(sp_runtime::Perbill::one());
		let a = Audits::<T>::get(id)[0].clone();
		verify_all(id, false);
		// The solver contests the failing verdict on its own work and wins.
		assert_ok!(TaskPallet::challenge(RuntimeOrigin::signed(10), id, a.segment));
		reveal_all(id);
		let vb = Stake::bond(&a.verifier, Role::Verifier);
		assert_ok!(<TaskPallet as DisputeOutcome>::resolve(id, a.segment, true));
		let (sb, free, pot) = (
			Stake::bond(&10, Role::Solver),
			Balances::free_balance(10),
			Balances::free_balance(JACKPOT),
		);
		let t = task(id);
		run_to(t.deadline);
		assert!(events().iter().any(|e| matches!(e, Event::TaskCompleted { .. })));
		assert_eq!(Stake::bond(&a.verifier, Role::Verifier), vb, "forced: not slashed");
		assert_eq!(Stake::bond(&10, Role::Solver), sb, "the solver is not failed");
		// Its pay and nothing from the jackpot, which only gains the task's cut.
		assert_eq!(Balances::free_balance(10), free + t.solver_pay);
		assert_eq!(Balances::free_balance(JACKPOT), pot + t.jackpot_cut);
	});
}

#[test]
fn a_reaudit_pool_that_runs_out_leaves_the_rest_unaudited_and_never_redraws_a_refuted_verifier() {
	new_test_ext().execute_with(|| {
		// Two segments audited, by 11 and 12; both passes refuted before any reveal, and
		// one spare verifier (14) to audit them again.
		let two = spec_with(|s| s.verification.audit_fraction = SpecPermill(200_000));
		let id = verifying_with_jackpot_for(sp_runtime::Perbill::zero(), two);
		let audits = Audits::<T>::get(id);
		assert_eq!(audits.len(), 2);
		assert_ne!(audits[0].verifier, audits[1].verifier);
		verify_all(id, true);
		reg(13, Role::Whistleblower);
		reg(14, Role::Verifier);
		commit(14);
		let bonds: Vec<u64> =
			audits.iter().map(|a| Stake::bond(&a.verifier, Role::Verifier)).collect();
		for a in &audits {
			assert_ok!(TaskPallet::challenge(RuntimeOrigin::signed(13), id, a.segment));
			assert_ok!(<TaskPallet as DisputeOutcome>::resolve(id, a.segment, true));
		}
		reveal_all(id);
		let (w, sb, issuance) = (
			Balances::free_balance(13),
			Stake::bond(&10, Role::Solver),
			Balances::total_issuance(),
		);
		run_to(task(id).deadline);
		// Both overturned (the wrong-verdict slash, half to 13); only one re-audited.
		for (a, vb) in audits.iter().zip(&bonds) {
			assert_eq!(Stake::bond(&a.verifier, Role::Verifier), vb - 30);
		}
		assert_eq!(Balances::free_balance(13), w + 30);
		let now = Audits::<T>::get(id);
		let again: Vec<_> = now.iter().filter(|a| a.reaudits > 0).collect();
		assert_eq!(again.len(), 1);
		assert_eq!(again[0].verifier, 14);
		assert_eq!(task(id).phase, Phase::Verifying);
		// The refuted verifier kept on the segment no one audits again owes nothing now.
		let kept = now.iter().find(|a| a.reaudits == 0).expect("the other audit");
		assert!(
			!TaskPallet::duties(&kept.verifier)
				.iter()
				.any(|d| matches!(d, Duty::Verify { task, .. } if *task == id)),
			"an overturned verdict is final: no Verify duty"
		);
		// The verifier let go commits again: it is still not drawn for the other segment.
		let gone = audits.iter().find(|a| a.segment == again[0].segment).expect("audit");
		assert!(!now.iter().any(|a| a.verifier == gone.verifier));
		commit(gone.verifier);
		let p = proof_for(task(id).checkpoints, again[0].segment);
		let pass = p.checkpoint_hash;
		assert_ok!(TaskPallet::submit_verification(
			RuntimeOrigin::signed(14),
			id,
			again[0].segment,
			0,
			pass,
			p
		));
		reveal(14, id);
		run_to(task(id).deadline);
		assert_eq!(
			events().iter().filter(|e| matches!(e, Event::Reaudited { .. })).count(),
			1,
			"the second segment stays unaudited"
		);
		assert!(events().iter().any(|e| matches!(e, Event::TaskCompleted { .. })));
		assert_eq!(Stake::bond(&10, Role::Solver), sb, "the solver is not failed");
		for (a, vb) in audits.iter().zip(&bonds) {
			assert_eq!(Stake::bond(&a.verifier, Role::Verifier), vb - 30, "slashed once");
		}
		assert!(Replaced::<T>::get(id).is_empty(), "cleared with the task");
		assert!(Balances::total_issuance() <= issuance, "slashes burn, nothing is minted");
	});
}

#[test]
fn an_exact_verifier_refuted_on_one_of_its_two_audits_is_slashed_once_and_paid_for_the_other() {
	new_test_ext().execute_with(|| {
		// Verifier 11 alone holds both audits of an Exact task; its pass on the first is
		// refuted after its reveal, which fails that segment (the replay the pass vouched
		// for is not the solver's checkpoint).
		let exact = spec_with(|s| {
			s.verification.mode = VerificationMode::Exact;
			s.verification.audit_fraction = SpecPermill(200_000);
		});
		let id = verifying_by(sp_runtime::Perbill::zero(), exact, &[11]);
		let audits = Audits::<T>::get(id);
		assert_eq!(audits.len(), 2);
		assert!(audits.iter().all(|a| a.verifier == 11));
		verify_all(id, true);
		reveal(11, id);
		reg(13, Role::Whistleblower);
		assert_ok!(TaskPallet::challenge(RuntimeOrigin::signed(13), id, audits[0].segment));
		let (vb, w) = (Stake::bond(&11, Role::Verifier), Balances::free_balance(13));
		assert_ok!(<TaskPallet as DisputeOutcome>::resolve(id, audits[0].segment, true));
		assert_eq!(Stake::bond(&11, Role::Verifier), vb - 30);
		assert_eq!(Balances::free_balance(13), w + 15);
		let refuted = Audits::<T>::get(id)[0].clone();
		assert!(refuted.overturned && refuted.verdict.is_some_and(|v| !v.pass));
		let (free, sb, pay) =
			(Balances::free_balance(11), Stake::bond(&10, Role::Solver), task(id).segment_pay);
		run_to(task(id).deadline);
		assert_eq!(Stake::bond(&11, Role::Verifier), vb - 30, "slashed once, no missed reveal");
		assert_eq!(Balances::free_balance(11), free + pay, "paid for its other verdict only");
		assert_eq!(Balances::free_balance(13), w + 15, "no reporter's share at settlement");
		assert_eq!(Stake::bond(&10, Role::Solver), sb - 100, "the failed segment counts");
		assert!(events()
			.iter()
			.any(|e| matches!(e, Event::ProofRejected { id: i, .. } if *i == id)));
	});
}

/// Reveals the secrets of every verifier drawn for `id`.
fn reveal_all(id: TaskId) {
	let mut done = Vec::new();
	for a in Audits::<T>::get(id) {
		if !done.contains(&a.verifier) {
			reveal(a.verifier, id);
			done.push(a.verifier);
		}
	}
}

/// A task with every verifier's forced-error rate at `rate`, every verdict posted as
/// `pass`, and the first audit's verdict refuted by whistleblower 13 before any reveal.
/// Returns the task, that audit and its verifier's bond before the ruling.
fn refuted_before_reveal(rate: sp_runtime::Perbill, pass: bool) -> (TaskId, Audit<u64>, u64) {
	let id = verifying_with_jackpot(rate);
	let a = Audits::<T>::get(id)[0].clone();
	verify_all(id, pass);
	reg(13, Role::Whistleblower);
	assert_ok!(TaskPallet::challenge(RuntimeOrigin::signed(13), id, a.segment));
	let vb = Stake::bond(&a.verifier, Role::Verifier);
	assert_ok!(<TaskPallet as DisputeOutcome>::resolve(id, a.segment, true));
	(id, a, vb)
}

#[test]
fn a_forced_error_refuted_before_its_reveal_is_still_a_catch() {
	new_test_ext().execute_with(|| {
		let (id, a, vb) = refuted_before_reveal(sp_runtime::Perbill::one(), false);
		// The game ended before the verifier revealed: nothing is decided yet.
		assert_eq!(Stake::bond(&a.verifier, Role::Verifier), vb);
		let audit = Audits::<T>::get(id)[0].clone();
		assert_eq!((audit.refuted_by, audit.overturned), (Some(13), false));
		assert_noop!(
			TaskPallet::challenge(RuntimeOrigin::signed(13), id, a.segment),
			Error::<T>::NotAllowedToChallenge
		);
		reveal_all(id);
		let w = Balances::free_balance(13);
		let sb = Stake::bond(&10, Role::Solver);
		let pot = Balances::free_balance(JACKPOT);
		run_to(task(id).deadline);
		assert!(events().iter().any(|e| matches!(e, Event::TaskCompleted { .. })));
		assert_eq!(Stake::bond(&a.verifier, Role::Verifier), vb, "forced: not slashed");
		assert_eq!(Stake::bond(&10, Role::Solver), sb, "the solver is not failed");
		assert_eq!(Balances::free_balance(13), w + (pot - 1) / 10, "the catch is paid");
	});
}

#[test]
fn an_honest_verdict_refuted_before_its_reveal_is_overturned_at_settlement() {
	new_test_ext().execute_with(|| {
		let (id, a, vb) = refuted_before_reveal(sp_runtime::Perbill::zero(), true);
		assert_eq!(Stake::bond(&a.verifier, Role::Verifier), vb, "waits for the reveal");
		reveal_all(id);
		let w = Balances::free_balance(13);
		let issuance = Balances::total_issuance();
		run_to(task(id).deadline);
		// Wrong, not forced: the wrong-verdict slash, half of it to the whistleblower.
		assert_eq!(Stake::bond(&a.verifier, Role::Verifier), vb - 30);
		assert_eq!(Balances::free_balance(13), w + 15);
		// Voided, so audited again by the spare verifier: the task goes on.
		let a = Audits::<T>::get(id).into_iter().find(|x| x.segment == a.segment).expect("audit");
		assert!(a.reaudits == 1 && a.verdict.is_none() && task(id).phase == Phase::Verifying);
		assert!(Balances::total_issuance() <= issuance, "slashes burn, nothing is minted");
	});
}

#[test]
fn a_refuted_pass_on_a_forced_segment_is_a_wrong_verdict_at_once() {
	new_test_ext().execute_with(|| {
		// Every segment forced: a pass is a lie, and refuting it is no forced-error catch.
		let id = verifying_with_jackpot(sp_runtime::Perbill::one());
		let a = Audits::<T>::get(id)[0].clone();
		verify_all(id, true);
		reveal_all(id);
		reg(13, Role::Whistleblower);
		assert_ok!(TaskPallet::challenge(RuntimeOrigin::signed(13), id, a.segment));
		let vb = Stake::bond(&a.verifier, Role::Verifier);
		let w = Balances::free_balance(13);
		assert_ok!(<TaskPallet as DisputeOutcome>::resolve(id, a.segment, true));
		assert_eq!(Stake::bond(&a.verifier, Role::Verifier), vb - 30);
		assert_eq!(Balances::free_balance(13), w + 15, "the reporter's share, no catch");
		let x = Audits::<T>::get(id).into_iter().find(|x| x.segment == a.segment);
		assert!(x.is_some_and(|x| x.overturned || x.reaudits > 0));
	});
}

#[test]
fn a_refuted_verdict_never_revealed_is_slashed_as_wrong_and_as_unrevealed() {
	new_test_ext().execute_with(|| {
		let (id, a, vb) = refuted_before_reveal(sp_runtime::Perbill::zero(), true);
		let w = Balances::free_balance(13);
		let sb = Stake::bond(&10, Role::Solver);
		run_to(task(id).deadline);
		assert_eq!(Stake::bond(&a.verifier, Role::Verifier), vb - 30 - 40);
		assert_eq!(Balances::free_balance(13), w + 15);
		let again = Audits::<T>::get(id).into_iter().find(|x| x.segment == a.segment);
		assert!(again.is_some_and(|x| x.reaudits == 1 && x.verifier != a.verifier), "re-audited");
		// The re-auditor posts a pass; at the end the first verifier is not slashed again.
		let n = task(id).checkpoints;
		for x in Audits::<T>::get(id).into_iter().filter(|x| x.verdict.is_none()) {
			let p = proof_for(n, x.segment);
			let pass = p.checkpoint_hash;
			let signed = RuntimeOrigin::signed(x.verifier);
			assert_ok!(TaskPallet::submit_verification(signed, id, x.segment, 0, pass, p));
		}
		reveal_all(id);
		run_to(task(id).deadline);
		assert_eq!(Stake::bond(&a.verifier, Role::Verifier), vb - 30 - 40, "slashed once");
		assert_eq!(Stake::bond(&10, Role::Solver), sb, "the solver is not failed");
		assert!(events().iter().any(|e| matches!(e, Event::TaskCompleted { .. })));
	});
}

#[test]
fn threshold_tasks_are_profiled_first_and_judged_by_the_profiled_threshold() {
	new_test_ext().execute_with(|| {
		PROFILE.with(|r| *r.borrow_mut() = 4);
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
	new_test_ext().execute_with(|| {
		PROFILE.with(|r| *r.borrow_mut() = 4);
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
		assert_eq!(reveals(v), vec![Duty::Reveal { task: id, by: end }]);
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

#[test]
fn report_unavailable_errors() {
	new_test_ext().execute_with(|| {
		let id = verifying();
		let a = Audits::<T>::get(id)[0].clone();
		let other = if a.verifier == 11 { 12 } else { 11 };
		let report = |who: u64, id: TaskId, segment: u32| {
			TaskPallet::report_unavailable(RuntimeOrigin::signed(who), id, segment)
		};
		assert_noop!(
			TaskPallet::report_unavailable(RuntimeOrigin::none(), id, a.segment),
			sp_runtime::DispatchError::BadOrigin
		);
		assert_noop!(report(a.verifier, id + 1, a.segment), Error::<T>::UnknownTask);
		assert_noop!(report(a.verifier, id, 999), Error::<T>::UnknownSegment);
		assert_noop!(report(other, id, a.segment), Error::<T>::NotVerifier);
		assert_ok!(report(a.verifier, id, a.segment));
		// Reported: the window is open, the segment neither reportable nor verifiable now.
		assert_noop!(report(a.verifier, id, a.segment), Error::<T>::WrongPhase);
		assert_noop!(
			TaskPallet::challenge(RuntimeOrigin::signed(10), id, a.segment),
			Error::<T>::NoVerdict
		);
		assert!(!Audits::<T>::get(id)[0].awaits_verdict());
		check();
	});
	new_test_ext().execute_with(|| {
		// Two audits: one verdict posted, then its verifier cannot take it back.
		let two = spec_with(|s| s.verification.audit_fraction = SpecPermill(200_000));
		let id = verifying_with(two);
		let a = Audits::<T>::get(id)[0].clone();
		let p = proof_for(task(id).checkpoints, a.segment);
		let h = p.checkpoint_hash;
		let v = RuntimeOrigin::signed(a.verifier);
		assert_ok!(TaskPallet::submit_verification(v.clone(), id, a.segment, 0, h, p));
		assert_noop!(TaskPallet::report_unavailable(v, id, a.segment), Error::<T>::AlreadyVerified);
	});
}

/// A task of two audits (by 11 and 12, the only verifiers) in its Verifying phase, and
/// the two audits.
fn verifying_two() -> (TaskId, Audit<u64>, Audit<u64>) {
	let two = spec_with(|s| s.verification.audit_fraction = SpecPermill(200_000));
	let id = verifying_with(two);
	let audits = Audits::<T>::get(id);
	assert_eq!(audits.len(), 2);
	(id, audits[0].clone(), audits[1].clone())
}

/// A task with one audit whose verifier reports the solver's store unavailable; with
/// `spare` the verifier that was not drawn stays active (a possible re-auditor), else it
/// unbonds first. Returns the task, the reporter and the other verifier.
fn reported_unavailable(spare: bool) -> (TaskId, u64, u64) {
	let id = verifying();
	let a = Audits::<T>::get(id)[0].clone();
	assert_eq!(Audits::<T>::get(id).len(), 1);
	let other = if a.verifier == 11 { 12 } else { 11 };
	if !spare {
		assert_ok!(Stake::unbond(RuntimeOrigin::signed(other), Role::Verifier));
	}
	assert_ok!(TaskPallet::report_unavailable(RuntimeOrigin::signed(a.verifier), id, a.segment));
	assert!(events().contains(&Event::StoreUnavailable {
		id,
		segment: a.segment,
		verifier: a.verifier
	}));
	assert_eq!(task(id).phase, Phase::Challenge, "the only audit is done: the window opens");
	assert!(!TaskPallet::duties(&a.verifier).iter().any(|d| matches!(d, Duty::Verify { .. })));
	(id, a.verifier, other)
}

#[test]
fn a_store_reported_unavailable_twice_rejects_the_solver_and_nobody_else_pays() {
	new_test_ext().execute_with(|| {
		let (id, reporter, other) = reported_unavailable(true);
		let balances = |w: &[u64]| -> Vec<(u64, u64)> {
			w.iter().map(|a| (Balances::free_balance(a), Stake::bond(a, Role::Verifier))).collect()
		};
		let before = balances(&[reporter, other]);
		let (sb, owner) = (Stake::bond(&10, Role::Solver), Balances::free_balance(1));
		let escrow = task(id).escrow;
		run_to(task(id).deadline);
		// The segment goes to the verifier never bound to the task; the reporter is let go.
		let a = Audits::<T>::get(id)[0].clone();
		assert_eq!(
			(a.verifier, a.reaudits, a.unavailable, a.reported_before),
			(other, 1, false, true)
		);
		assert_eq!(task(id).phase, Phase::Verifying);
		assert_eq!(Replaced::<T>::get(id).into_inner(), vec![reporter]);
		assert!(WorkerTasks::<T>::get(reporter, id).is_none());
		// A spare verifier is never drawn after the second report: it is final.
		reg(14, Role::Verifier);
		assert_ok!(TaskPallet::report_unavailable(RuntimeOrigin::signed(other), id, a.segment));
		run_to(task(id).deadline);
		// Two verifiers drawn independently could not fetch the proof: rejected, and with
		// no other solver the task fails and the escrow comes back whole.
		assert!(events().iter().any(|e| matches!(e, Event::ProofRejected { .. })));
		assert!(events().contains(&Event::TaskFailed {
			id,
			reason: FailReason::ProofRejected,
			refunded: escrow
		}));
		assert_eq!(Stake::bond(&10, Role::Solver), sb - 100);
		assert_eq!(Balances::free_balance(1), owner + escrow);
		assert_eq!(balances(&[reporter, other]), before, "reporters neither paid nor slashed");
		assert_eq!(events().iter().filter(|e| matches!(e, Event::Reaudited { .. })).count(), 1);
		assert!(Tasks::<T>::get(id).is_none() && Replaced::<T>::get(id).is_empty());
	});
}

#[test]
fn a_report_no_verifier_can_check_again_fails_the_task_unpaid_unslashed_and_refunded() {
	new_test_ext().execute_with(|| {
		let (id, reporter, _) = reported_unavailable(false);
		let (sb, vb, vfree) = (
			Stake::bond(&10, Role::Solver),
			Stake::bond(&reporter, Role::Verifier),
			Balances::free_balance(reporter),
		);
		let t = task(id);
		let (solver, owner) = (Balances::free_balance(10), Balances::free_balance(1));
		run_to(t.deadline);
		assert!(!events().iter().any(|e| matches!(e, Event::Reaudited { .. })));
		assert!(events().contains(&Event::TaskFailed {
			id,
			reason: FailReason::Unverified,
			refunded: t.escrow
		}));
		assert_eq!(Balances::free_balance(1), owner + t.escrow);
		assert_eq!((Balances::free_balance(10), Stake::bond(&10, Role::Solver)), (solver, sb));
		assert_eq!(
			(Stake::bond(&reporter, Role::Verifier), Balances::free_balance(reporter)),
			(vb, vfree),
			"the report is neither paid nor slashed"
		);
	});
}

#[test]
fn a_report_on_the_reaudit_of_a_voided_verdict_is_a_first_report_not_a_rejection() {
	new_test_ext().execute_with(|| {
		// The first verifier fetched the proof (it posted a verdict, since refuted); the
		// re-auditor's report is one verifier's word: the solver is not rejected.
		let (id, _) = overturned_pass(VerificationMode::Threshold, true);
		let a = Audits::<T>::get(id)[0].clone();
		assert!(a.reaudits == 1 && !a.reported_before);
		let sb = Stake::bond(&10, Role::Solver);
		assert_ok!(TaskPallet::report_unavailable(
			RuntimeOrigin::signed(a.verifier),
			id,
			a.segment
		));
		run_to(task(id).deadline);
		assert!(!events().iter().any(|e| matches!(e, Event::ProofRejected { .. })));
		assert!(events()
			.iter()
			.any(|e| matches!(e, Event::TaskFailed { reason: FailReason::Unverified, .. })));
		assert_eq!(Stake::bond(&10, Role::Solver), sb);
	});
}

#[test]
fn a_report_survives_a_missed_verdict_whose_silent_verifier_is_not_drawn_to_recheck_it() {
	new_test_ext().execute_with(|| {
		// Two audits by 11 and 12: one reports, the other posts nothing.
		let (id, r, m) = verifying_two();
		assert_ne!(r.verifier, m.verifier);
		assert_ok!(TaskPallet::report_unavailable(
			RuntimeOrigin::signed(r.verifier),
			id,
			r.segment
		));
		assert_eq!(task(id).phase, Phase::Verifying, "one audit still awaits its verdict");
		let (rb, mb) =
			(Stake::bond(&r.verifier, Role::Verifier), Stake::bond(&m.verifier, Role::Verifier));
		run_to(task(id).deadline);
		assert_eq!(Stake::bond(&m.verifier, Role::Verifier), mb - 20, "missed verdict");
		assert_eq!(Stake::bond(&r.verifier, Role::Verifier), rb, "a report is not a miss");
		let left = Audits::<T>::get(id);
		assert_eq!(left.len(), 1);
		assert!(left[0].unavailable && left[0].verifier == r.verifier);
		assert_eq!(task(id).phase, Phase::Challenge);
		// The silent verifier is the only other one, yet it is not drawn to re-audit
		// the report: the report stays unchecked and the task fails unverified.
		assert!(Replaced::<T>::get(id).contains(&m.verifier));
		let escrow = task(id).escrow;
		run_to(task(id).deadline);
		assert!(!events().iter().any(|e| matches!(e, Event::Reaudited { .. })));
		assert!(events().contains(&Event::TaskFailed {
			id,
			reason: FailReason::Unverified,
			refunded: escrow
		}));
		check();
	});
}

#[test]
fn a_silent_verifier_never_takes_the_room_a_reaudit_needs_in_replaced() {
	new_test_ext().execute_with(|| {
		let (id, r, m) = verifying_two();
		// Replaced one short of full (8 in the mock): the report's two re-audits may
		// still need room.
		let filler: Vec<u64> = (100..107).collect();
		Replaced::<T>::insert(id, BoundedVec::try_from(filler).unwrap());
		assert_ok!(TaskPallet::report_unavailable(
			RuntimeOrigin::signed(r.verifier),
			id,
			r.segment
		));
		run_to(task(id).deadline);
		assert!(!Replaced::<T>::get(id).contains(&m.verifier), "no room left to spare");
		assert_eq!(Replaced::<T>::get(id).len(), 7);
		reg(14, Role::Verifier);
		run_to(task(id).deadline);
		assert!(events().iter().any(|e| matches!(e, Event::Reaudited { .. })));
		assert!(Replaced::<T>::get(id).contains(&r.verifier), "the reporter is taken off");
		check();
	});
}

#[test]
fn a_silent_reauditor_of_a_reported_segment_is_slashed_and_the_report_stands() {
	new_test_ext().execute_with(|| {
		let (id, _, other) = reported_unavailable(true);
		let t = task(id);
		let (sb, solver, owner) =
			(Stake::bond(&10, Role::Solver), Balances::free_balance(10), Balances::free_balance(1));
		run_to(t.deadline);
		let a = Audits::<T>::get(id)[0].clone();
		assert_eq!((a.verifier, a.reported_before), (other, true), "re-audited by the spare");
		let ob = Stake::bond(&other, Role::Verifier);
		// The re-auditor posts nothing: it is slashed, and the first report is not lost.
		run_to(task(id).deadline);
		assert_eq!(Stake::bond(&other, Role::Verifier), ob - 20, "missed verdict");
		let a = Audits::<T>::get(id)[0].clone();
		assert_eq!((a.unavailable, a.reported_before, a.reaudits), (true, false, 1));
		assert!(events().contains(&Event::ReportStands { id, segment: a.segment }));
		assert_eq!(task(id).phase, Phase::Challenge);
		// A verifier registered since is drawn to check the report at settlement; it is
		// silent too, and the segment has no re-audit left (two in the mock).
		reg(14, Role::Verifier);
		run_to(task(id).deadline);
		let a = Audits::<T>::get(id)[0].clone();
		assert_eq!((a.verifier, a.reaudits, a.reported_before), (14, 2, true));
		assert_eq!(task(id).phase, Phase::Verifying);
		reg(15, Role::Verifier);
		run_to(task(id).deadline);
		assert_eq!(Stake::bond(&14, Role::Verifier), 500 - 20, "missed verdict");
		run_to(task(id).deadline);
		assert_eq!(events().iter().filter(|e| matches!(e, Event::Reaudited { .. })).count(), 2);
		assert!(!events().contains(&Event::Reaudited { id, segment: a.segment, verifier: 15 }));
		assert!(events().contains(&Event::TaskFailed {
			id,
			reason: FailReason::Unverified,
			refunded: t.escrow
		}));
		assert_eq!((Balances::free_balance(10), Stake::bond(&10, Role::Solver)), (solver, sb));
		assert_eq!(Balances::free_balance(1), owner + t.escrow);
		assert!(WorkerTasks::<T>::iter().next().is_none());
		check();
	});
}

#[test]
fn a_reaudit_verdict_left_unrevealed_is_slashed_once_and_another_verifier_checks_the_report() {
	new_test_ext().execute_with(|| {
		let id = verifying_by(sp_runtime::Perbill::zero(), spec(), &[11, 12, 14]);
		let first = Audits::<T>::get(id)[0].clone();
		assert_ok!(TaskPallet::report_unavailable(
			RuntimeOrigin::signed(first.verifier),
			id,
			first.segment
		));
		let t = task(id);
		let (solver, sb) = (Balances::free_balance(10), Stake::bond(&10, Role::Solver));
		run_to(t.deadline);
		let b = Audits::<T>::get(id)[0].clone();
		assert_eq!((b.reaudits, b.reported_before), (1, true));
		// The re-auditor passes the segment but never reveals its secret: its verdict
		// cannot be trusted, so it does not check the report.
		verify_all(id, true);
		let bb = Stake::bond(&b.verifier, Role::Verifier);
		run_to(task(id).deadline);
		let reveal_slash: u64 = <<T as Config>::MissedRevealSlash as Get<u64>>::get();
		assert_eq!(Stake::bond(&b.verifier, Role::Verifier), bb - reveal_slash);
		assert!(events().contains(&Event::ReportStands { id, segment: b.segment }));
		let c = Audits::<T>::get(id)[0].clone();
		assert_eq!((c.reaudits, c.reported_before, c.verdict), (2, true, None));
		assert!(c.verifier != first.verifier && c.verifier != b.verifier);
		assert_eq!(task(id).phase, Phase::Verifying);
		// The third verifier checks it honestly: the solver is paid in full.
		verify_all(id, true);
		reveal(c.verifier, id);
		run_to(task(id).deadline);
		assert!(events().iter().any(|e| matches!(
			e,
			Event::TaskCompleted { id: i, solver_paid, .. } if *i == id && *solver_paid == t.solver_pay
		)));
		assert_eq!(Balances::free_balance(10), solver + t.solver_pay);
		assert_eq!(Stake::bond(&10, Role::Solver), sb);
		assert_eq!(Stake::bond(&b.verifier, Role::Verifier), bb - reveal_slash, "slashed once");
		check();
	});
}

#[test]
fn a_reaudit_of_a_report_is_never_forced_so_its_honest_pass_checks_the_report() {
	new_test_ext().execute_with(|| {
		let id = verifying_by(sp_runtime::Perbill::zero(), spec(), &[11, 12, 14]);
		let first = Audits::<T>::get(id)[0].clone();
		assert_ok!(TaskPallet::report_unavailable(
			RuntimeOrigin::signed(first.verifier),
			id,
			first.segment
		));
		// Every secret bound from now on forces every segment.
		RATE.with(|r| *r.borrow_mut() = sp_runtime::Perbill::one());
		let t = task(id);
		let (solver, sb) = (Balances::free_balance(10), Stake::bond(&10, Role::Solver));
		run_to(t.deadline);
		let b = Audits::<T>::get(id)[0].clone();
		assert_eq!((b.reaudits, b.reported_before), (1, true));
		let by = task(id).deadline;
		let duty = Duty::Verify { task: id, segment: b.segment, by, forcible: false };
		assert!(TaskPallet::duties(&b.verifier).contains(&duty));
		// The re-auditor checks the report honestly (a pass), though its secret would
		// force the segment anywhere else.
		verify_all(id, true);
		reveal(b.verifier, id);
		assert_eq!(
			<JackpotPallet as pallet_gensyn_jackpot::ForcedErrors<u64, u64>>::forced(
				&b.verifier,
				id,
				b.segment
			),
			Some(true)
		);
		let (bb, vb) =
			(Stake::bond(&b.verifier, Role::Verifier), Balances::free_balance(b.verifier));
		run_to(task(id).deadline);
		assert!(!events().iter().any(|e| matches!(e, Event::ReportStands { .. })));
		assert!(events().iter().any(|e| matches!(
			e,
			Event::TaskCompleted { id: i, solver_paid, .. } if *i == id && *solver_paid == t.solver_pay
		)));
		assert_eq!(
			(Balances::free_balance(10), Stake::bond(&10, Role::Solver)),
			(solver + t.solver_pay, sb)
		);
		assert_eq!(
			Stake::bond(&b.verifier, Role::Verifier),
			bb,
			"an honest re-audit is not slashed"
		);
		assert_eq!(Balances::free_balance(b.verifier), vb + t.segment_pay);
		check();
	});
}

#[test]
fn an_unchecked_report_beside_a_passing_verdict_leaves_the_solver_unpaid() {
	new_test_ext().execute_with(|| {
		// Two audits by 11 and 12, the only verifiers: no one is left to re-audit.
		let (id, r, p) = verifying_two();
		let t = task(id);
		let (solver, pb) = (Balances::free_balance(10), Balances::free_balance(p.verifier));
		assert_ok!(TaskPallet::report_unavailable(
			RuntimeOrigin::signed(r.verifier),
			id,
			r.segment
		));
		let proof = proof_for(t.checkpoints, p.segment);
		let h = proof.checkpoint_hash;
		assert_ok!(TaskPallet::submit_verification(
			RuntimeOrigin::signed(p.verifier),
			id,
			p.segment,
			0,
			h,
			proof
		));
		run_to(task(id).deadline);
		assert!(!events().iter().any(|e| matches!(e, Event::Reaudited { .. })));
		let failed = events().into_iter().find_map(|e| match e {
			Event::TaskFailed { id: i, reason, refunded } if i == id => Some((reason, refunded)),
			_ => None,
		});
		// The passing verdict is paid; the solver is not: one segment went unverified.
		assert_eq!(failed, Some((FailReason::Unverified, t.escrow - t.segment_pay)));
		assert_eq!(Balances::free_balance(p.verifier), pb + t.segment_pay);
		assert_eq!(Balances::free_balance(10), solver);
		check();
	});
}

#[test]
fn a_reaudit_verdict_that_does_not_hold_leaves_the_report_unchecked() {
	new_test_ext().execute_with(|| {
		let (id, _, other) = reported_unavailable(true);
		Specs::<T>::mutate(id, |s| {
			if let Some(s) = s {
				s.verification.mode = VerificationMode::Threshold;
			}
		});
		let t = task(id);
		let (sb, solver) = (Stake::bond(&10, Role::Solver), Balances::free_balance(10));
		run_to(t.deadline);
		let a = Audits::<T>::get(id)[0].clone();
		assert_eq!((a.verifier, a.reported_before), (other, true));
		// The re-auditor passes the segment and a whistleblower refutes its replay: the
		// verdict is void, so the first report was never checked.
		reg(13, Role::Whistleblower);
		verify_all(id, true);
		assert_ok!(TaskPallet::challenge(RuntimeOrigin::signed(13), id, a.segment));
		assert_ok!(<TaskPallet as DisputeOutcome>::resolve(id, a.segment, true));
		let a = Audits::<T>::get(id)[0].clone();
		assert_eq!((a.verdict, a.overturned), (None, true));
		run_to(task(id).deadline);
		assert!(events().contains(&Event::TaskFailed {
			id,
			reason: FailReason::Unverified,
			refunded: t.escrow
		}));
		assert!(!events().iter().any(|e| matches!(e, Event::TaskCompleted { .. })));
		assert_eq!((Balances::free_balance(10), Stake::bond(&10, Role::Solver)), (solver, sb));
		check();
	});
}

#[test]
fn a_report_outlives_a_refuted_reaudit_so_the_next_report_rejects_the_proof() {
	new_test_ext().execute_with(|| {
		let (id, _, other) = reported_unavailable(true);
		Specs::<T>::mutate(id, |s| {
			if let Some(s) = s {
				s.verification.mode = VerificationMode::Threshold;
			}
		});
		let sb = Stake::bond(&10, Role::Solver);
		run_to(task(id).deadline);
		let a = Audits::<T>::get(id)[0].clone();
		assert_eq!((a.verifier, a.reported_before), (other, true));
		// The re-auditor's pass is refuted; the next verifier drawn still checks the
		// first report, so its own report is the second one.
		reg(13, Role::Whistleblower);
		reg(14, Role::Verifier);
		verify_all(id, true);
		assert_ok!(TaskPallet::challenge(RuntimeOrigin::signed(13), id, a.segment));
		assert_ok!(<TaskPallet as DisputeOutcome>::resolve(id, a.segment, true));
		let a = Audits::<T>::get(id)[0].clone();
		assert_eq!((a.verifier, a.reaudits, a.reported_before), (14, 2, true));
		assert_ok!(TaskPallet::report_unavailable(RuntimeOrigin::signed(14), id, a.segment));
		run_to(task(id).deadline);
		assert!(events().iter().any(|e| matches!(e, Event::ProofRejected { .. })));
		assert_eq!(Stake::bond(&10, Role::Solver), sb - 100);
		check();
	});
}

/// `who` posts an honest pass on `segment` of task `id`.
fn pass(id: TaskId, who: u64, segment: u32) {
	let p = proof_for(task(id).checkpoints, segment);
	let h = p.checkpoint_hash;
	assert_ok!(TaskPallet::submit_verification(RuntimeOrigin::signed(who), id, segment, 0, h, p));
}

#[test]
fn a_report_whose_reaudit_a_game_voided_survives_a_later_verifying_deadline() {
	new_test_ext().execute_with(|| {
		// Three audits: 11 and 12 dealt in turn.
		let three = spec_with(|s| {
			s.verification.audit_fraction = SpecPermill(300_000);
			s.verification.mode = VerificationMode::Threshold;
		});
		let id = verifying_with(three);
		let audits = Audits::<T>::get(id);
		assert_eq!(audits.len(), 3);
		let (s0, s1, s2) = (audits[0].clone(), audits[1].clone(), audits[2].clone());
		assert_eq!(s0.verifier, s2.verifier);
		assert_ok!(TaskPallet::report_unavailable(
			RuntimeOrigin::signed(s1.verifier),
			id,
			s1.segment
		));
		pass(id, s0.verifier, s0.segment);
		pass(id, s2.verifier, s2.segment);
		reg(14, Role::Verifier);
		run_to(task(id).deadline);
		assert_eq!(Audits::<T>::get(id)[1].verifier, 14, "the report goes to the spare");
		pass(id, 14, s1.segment);
		// Both the re-audit of the report and the first pass are refuted; one new verifier
		// comes, and the first voided segment in order takes it.
		reg(13, Role::Whistleblower);
		reg(16, Role::Whistleblower);
		assert_ok!(TaskPallet::challenge(RuntimeOrigin::signed(13), id, s1.segment));
		assert_ok!(TaskPallet::challenge(RuntimeOrigin::signed(16), id, s0.segment));
		assert_ok!(<TaskPallet as DisputeOutcome>::resolve(id, s1.segment, true));
		reg(15, Role::Verifier);
		assert_ok!(<TaskPallet as DisputeOutcome>::resolve(id, s0.segment, true));
		let now = Audits::<T>::get(id);
		assert_eq!((now[0].verifier, now[0].reaudits), (15, 1));
		assert!(now[1].overturned && now[1].reported_before && now[1].verdict.is_none());
		assert_eq!(task(id).phase, Phase::Verifying);
		// 15 stays silent: its audit is dropped, but the report on s1 is not.
		run_to(task(id).deadline);
		assert!(events().contains(&Event::ReportStands { id, segment: s1.segment }));
		let left = Audits::<T>::get(id);
		assert!(left.iter().any(|a| a.segment == s1.segment && a.unavailable));
		let solver = Balances::free_balance(10);
		// The report is re-audited while a verifier and a re-audit are left (15 again,
		// silent again), then settles unverified.
		for _ in 0..6 {
			if let Some(t) = Tasks::<T>::get(id) {
				run_to(t.deadline);
			}
		}
		assert!(Tasks::<T>::get(id).is_none());
		assert!(events()
			.iter()
			.any(|e| matches!(e, Event::TaskFailed { reason: FailReason::Unverified, .. })));
		assert_eq!(Balances::free_balance(10), solver, "the solver is not paid");
		check();
	});
}
