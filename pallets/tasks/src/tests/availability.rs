//! A checkpoint served to the solver's partners alone. Its partner verifiers pass every
//! drawn segment, and whistleblowers, who cannot fetch the checkpoints, could never check
//! them. A demand makes the checkpoint public or rejects the proof: an honest solver
//! publishes it for free and is paid; a withholding one is slashed, its demander paid.

use super::*;
use gensyn_primitives::{fixtures, publish};

/// The tiny MLP in Exact mode (3 audited segments of 30; 9 pages a checkpoint).
pub(super) fn tiny() -> TaskSpec {
	fixtures::with(fixtures::tiny_mlp(), |s| s.verification.mode = VerificationMode::Exact)
}

/// The tensors of checkpoint `k` of a run of `spec` (values that differ by checkpoint).
fn state(spec: &TaskSpec, k: u32) -> Vec<Vec<f32>> {
	let lengths = publish::tensor_lengths(spec);
	let value = |t: usize, i: u64| i as f32 * 0.001 + k as f32 + t as f32 * 0.5;
	lengths.iter().enumerate().map(|(t, n)| (0..*n).map(|i| value(t, i)).collect()).collect()
}

/// The checkpoint leaves of a run of `spec` with `n` checkpoints.
fn run_leaves(spec: &TaskSpec, n: u32) -> Vec<[u8; 32]> {
	(0..n)
		.map(|k| {
			let s = state(spec, k);
			let refs: Vec<&[f32]> = s.iter().map(|t| t.as_slice()).collect();
			publish::state_root(k.into(), &refs)
		})
		.collect()
}

/// Every page of checkpoint `k` of the run, in order, with its proof.
pub(super) fn pages(spec: &TaskSpec, leaves: &[[u8; 32]], k: u32) -> Vec<publish::Page> {
	let s = state(spec, k);
	let refs: Vec<&[f32]> = s.iter().map(|t| t.as_slice()).collect();
	publish::pages(k.into(), &refs, leaves, k).unwrap()
}

/// A task of `spec` whose run has real states, every drawn segment passed by the
/// solver's partners, and its window open; with the run's checkpoint leaves.
pub(super) fn passed(spec: TaskSpec) -> (TaskId, Vec<[u8; 32]>) {
	let (id, leaves) = verifying_run(spec);
	for a in Audits::<T>::get(id) {
		pass_run(id, a.verifier, a.segment, &leaves);
	}
	assert_eq!(task(id).phase, Phase::Challenge);
	(id, leaves)
}

/// `who` posts the true pass on `segment` of the run with `leaves`.
pub(super) fn pass_run(id: TaskId, who: u64, segment: u32, leaves: &[[u8; 32]]) {
	post_run(id, who, segment, leaves, leaves[segment as usize + 1]);
}

/// `who` fails `segment` of the run with `leaves`: a replay no checkpoint has.
pub(super) fn fail_run(id: TaskId, who: u64, segment: u32, leaves: &[[u8; 32]]) {
	post_run(id, who, segment, leaves, [0xee; 32]);
}

/// `who` posts `replay` as its verdict on `segment` of the run with `leaves`.
fn post_run(id: TaskId, who: u64, segment: u32, leaves: &[[u8; 32]], replay: [u8; 32]) {
	let next = segment as usize + 1;
	let siblings = merkle::proof(leaves, next).unwrap().siblings;
	let proof = CheckpointProof {
		checkpoint_hash: leaves[next],
		siblings: BoundedVec::truncate_from(siblings),
	};
	let who = RuntimeOrigin::signed(who);
	assert_ok!(TaskPallet::submit_verification(who, id, segment, 0, replay, proof));
}

/// A task of `spec` whose run has real states, in its Verifying phase (verifiers 11 and
/// 12, whistleblower 13); with the run's checkpoint leaves.
pub(super) fn verifying_run(spec: TaskSpec) -> (TaskId, Vec<[u8; 32]>) {
	let id = submitted_with(spec.clone());
	reg(12, Role::Verifier);
	reg(13, Role::Whistleblower);
	assert_ok!(TaskPallet::accept_task(RuntimeOrigin::signed(10), id));
	let n = task(id).checkpoints;
	let leaves = run_leaves(&spec, n);
	let location = BoundedVec::truncate_from(b"/run/1".to_vec());
	let root = merkle::root(&leaves);
	assert_ok!(TaskPallet::submit_result(
		RuntimeOrigin::signed(10),
		id,
		[9; 32],
		root,
		n,
		location
	));
	run_to(task(id).deadline);
	assert_eq!(task(id).phase, Phase::Verifying);
	(id, leaves)
}

pub(super) fn demand(who: u64, id: TaskId, checkpoint: u32) -> DispatchResult {
	TaskPallet::demand_checkpoint(RuntimeOrigin::signed(who), id, checkpoint)
}

pub(super) fn publish(
	who: u64,
	id: TaskId,
	checkpoint: u32,
	p: &publish::Page,
) -> DispatchResultWithPostInfo {
	let bytes = BoundedVec::truncate_from(p.bytes.clone());
	TaskPallet::publish_page(
		RuntimeOrigin::signed(who),
		id,
		checkpoint,
		p.item,
		p.page,
		bytes,
		p.proof.clone(),
	)
}

/// Runs blocks until task `id` leaves its challenge window (settled, or moved on).
pub(super) fn settle(id: TaskId) {
	for _ in 0..8 {
		match Tasks::<T>::get(id) {
			Some(t) if t.phase == Phase::Challenge => run_to(t.deadline),
			_ => return,
		}
	}
	panic!("task {id} never left its window");
}

/// What `who` has held for its demands.
pub(super) fn demand_held(who: u64) -> u64 {
	Balances::balance_on_hold(&RuntimeHoldReason::TaskPallet(HoldReason::Demand), &who)
}

fn fee_paid(id: TaskId) -> u64 {
	events()
		.iter()
		.find_map(|e| match e {
			Event::CheckpointDemanded { id: i, fee, .. } if *i == id => Some(*fee),
			_ => None,
		})
		.expect("a demand")
}

/// The attack and its answer. Without a demand the partners' passes stand and the
/// solver is paid, though nobody but its partners could fetch the checkpoints. With one,
/// the solver must publish: it publishes one checkpoint and withholds another, so its
/// proof is rejected and slashed and its passes are not paid. The first demander of
/// the withheld one gains the bounty with every fee it paid back; another whistleblower
/// whose demand went unanswered too gets its fee back.
#[test]
fn a_checkpoint_served_to_partners_alone_is_demanded_and_the_proof_rejected() {
	new_test_ext().execute_with(|| {
		let (id, _) = passed(tiny());
		let solver = worth(10);
		settle(id);
		assert!(events().iter().any(|e| matches!(e, Event::TaskCompleted { .. })));
		assert!(worth(10) > solver, "paid for checkpoints nobody else could fetch");
	});
	new_test_ext().execute_with(|| {
		let spec = tiny();
		let (id, leaves) = passed(spec.clone());
		reg(14, Role::Whistleblower);
		let segments: Vec<u32> = Audits::<T>::get(id).iter().map(|a| a.segment).collect();
		let (solver, demander, other, owner) = (worth(10), worth(13), worth(14), worth(1));
		let (partners, treasury) = (worth_of(&[11, 12]), worth(TREASURY));
		// The demander cannot tell which checkpoint hides the fake: it demands two.
		assert_ok!(demand(13, id, segments[1]));
		assert_ok!(demand(13, id, segments[0]));
		assert_ok!(demand(14, id, segments[2]));
		let fee = fee_paid(id);
		assert_eq!(fee, 1, "a started MiB");
		assert_eq!((demand_held(13), demand_held(14)), (2 * fee, fee), "held until answered");
		// The solver answers the first and withholds the others.
		for p in &pages(&spec, &leaves, segments[1]) {
			assert_ok!(publish(10, id, segments[1], p));
		}
		assert_eq!(demand_held(13), fee, "the answered demand's fee is paid");
		let first = Demands::<T>::get(id).into_iter().find(|d| d.next.is_some()).unwrap();
		let silent = first.standby.expect("a partner replayed from it");
		let due = Demands::<T>::get(id)[1].due;
		run_to(task(id).window_end.min(due));
		assert_eq!(task(id).phase, Phase::Challenge, "the settlement waits for the pages");
		settle(id);
		let withheld = Event::CheckpointWithheld { id, checkpoint: segments[0], by: 13 };
		assert!(events().contains(&withheld));
		assert!(events()
			.iter()
			.any(|e| matches!(e, Event::ProofRejected { id: i, solver: 10, .. } if *i == id)));
		assert!(worth(10) + 100 <= solver, "the solver is slashed its whole bond");
		assert_eq!(worth(13), demander + 10, "the demander gains the bounty, its fees back");
		assert_eq!(worth(14), other, "an unanswered demand costs nothing");
		assert_eq!((demand_held(13), demand_held(14)), (0, 0));
		assert_eq!(worth(TREASURY), treasury + fee, "the answered demand's fee");
		// The partners' passes are not paid, and the standby of the first unanswered
		// demand, the one its demander is paid for, silent too, is slashed as for a
		// missed verdict.
		assert_eq!(worth_of(&[11, 12]), partners - 20, "silent standby {silent}");
		let slashed = Event::StandbySlashed {
			id,
			checkpoint: first.checkpoint,
			verifier: silent,
			amount: 20,
		};
		assert!(events().contains(&slashed));
		assert_eq!(worth(1), owner, "the owner pays nothing");
		assert!(Demands::<T>::get(id).is_empty(), "the demands end with the round");
		check();
	});
}

/// An honest solver answers a demand by publishing the checkpoint, page by page, for
/// free; the window stays open a whole period for anyone to replay from it, and the
/// solver is paid as if nobody had asked. The demander pays its fee.
#[test]
fn an_honest_solver_publishes_a_demanded_checkpoint_and_is_paid() {
	new_test_ext().execute_with(|| {
		let spec = tiny();
		let (id, leaves) = passed(spec.clone());
		let segment = Audits::<T>::get(id)[0].segment;
		let (solver, demander, treasury) = (worth(10), worth(13), worth(TREASURY));
		assert_ok!(demand(13, id, segment));
		let fee = fee_paid(id);
		assert_eq!(demand_held(13), fee);
		let pages = pages(&spec, &leaves, segment);
		assert_eq!(pages.len() as u64, publish::page_count(&publish::tensor_lengths(&spec)));
		run_to(System::block_number() + 2);
		let due = Demands::<T>::get(id)[0].due;
		for p in &pages {
			// The solver's duty names the page the chain expects next.
			let duty = Duty::Publish {
				task: id,
				checkpoint: segment,
				item: p.item,
				page: p.page,
				by: due,
			};
			assert!(TaskPallet::duties(&10).contains(&duty), "{duty:?}");
			let posted = publish(10, id, segment, p).expect("a true page");
			assert_eq!(posted.pays_fee, Pays::No, "a page the chain accepts is free");
		}
		assert!(events().contains(&Event::CheckpointPublished { id, checkpoint: segment, fee }));
		assert_eq!(demand_held(13), 0);
		assert_eq!(Demands::<T>::get(id)[0].next, None);
		assert!(!TaskPallet::duties(&10).iter().any(|d| matches!(d, Duty::Publish { .. })));
		let now = System::block_number();
		assert!(task(id).window_end >= now + ChallengePeriod::get(), "a period to replay");
		assert_noop!(publish(10, id, segment, &pages[0]), Error::<T>::NotDemanded);
		settle(id);
		assert!(events().iter().any(|e| matches!(e, Event::TaskCompleted { .. })));
		assert!(!events().iter().any(|e| matches!(e, Event::CheckpointWithheld { .. })));
		assert!(worth(10) > solver, "the solver is paid");
		assert_eq!(worth(13), demander - fee, "the demander pays its fee");
		assert!(worth(TREASURY) >= treasury + fee, "to the treasury, with the task's cut");
		check();
	});
}

#[test]
fn a_page_out_of_order_untrue_or_late_is_refused() {
	new_test_ext().execute_with(|| {
		let spec = tiny();
		let (id, leaves) = passed(spec.clone());
		let segment = Audits::<T>::get(id)[0].segment;
		assert_noop!(
			publish(10, id, segment, &pages(&spec, &leaves, segment)[0]),
			Error::<T>::NotDemanded
		);
		assert_ok!(demand(13, id, segment));
		let pages = pages(&spec, &leaves, segment);
		assert_noop!(publish(10, id, segment, &pages[1]), Error::<T>::NotNextPage);
		// Only the solver publishes in its turn: a copy of its page from the pool, put
		// in a block first, would make its own fail and pay.
		assert_noop!(publish(13, id, segment, &pages[0]), Error::<T>::NotPublisher);
		let mut wrong = pages[1].clone();
		wrong.bytes[0] ^= 1;
		wrong.page = 0;
		wrong.item = 0;
		assert_noop!(publish(10, id, segment, &wrong), Error::<T>::PageNotProved);
		// Another checkpoint's page, at this one's place.
		let other = self::pages(&spec, &leaves, segment + 1);
		assert_noop!(publish(10, id, segment, &other[0]), Error::<T>::PageNotProved);
		assert_ok!(publish(10, id, segment, &pages[0]));
		// A game open at the window's end holds the settlement past the pages' due
		// (brought nearer than the pages' floor of four blocks each, to fall in the game).
		let other = Audits::<T>::get(id)[1].segment;
		assert_ok!(TaskPallet::challenge(RuntimeOrigin::signed(13), id, other));
		let due = System::block_number() + 3;
		Demands::<T>::mutate(id, |d| d[0].due = due);
		let asked = || TaskPallet::duties(&10).iter().any(|d| matches!(d, Duty::Publish { .. }));
		assert!(asked());
		run_to(due - 1);
		assert!(!asked(), "a page sent in the last block would land too late");
		run_to(due);
		assert_eq!(task(id).phase, Phase::Disputed);
		assert_noop!(publish(10, id, segment, &pages[1]), Error::<T>::DemandLapsed);
	});
}

/// Only a checkpoint a verdict replayed from (its end too, in Threshold mode), once,
/// within the first window that judged the verdict; and only a spec whose state fits
/// on chain is accepted at all.
#[test]
fn only_a_verdicts_checkpoint_is_demanded_once_in_its_first_window() {
	new_test_ext().execute_with(|| {
		let id = submitted_with(tiny());
		assert_noop!(demand(13, id, 0), Error::<T>::WrongPhase);
		let id = verifying_with(tiny());
		// No verdict yet.
		assert_noop!(demand(13, id, 0), Error::<T>::NotDemandable);
	});
	new_test_ext().execute_with(|| {
		// A game voids a partner's pass and the task is audited again: the other
		// verdict's first window goes on, and a demand is taken meanwhile.
		let (id, _) = passed(tiny());
		reg(14, Role::Verifier);
		let audits = Audits::<T>::get(id);
		assert_ok!(TaskPallet::challenge(RuntimeOrigin::signed(13), id, audits[1].segment));
		rule(id, audits[1].segment, true);
		assert_eq!(task(id).phase, Phase::Verifying);
		assert_ok!(demand(13, id, audits[0].segment));
	});
	new_test_ext().execute_with(|| {
		let (id, _) = passed(tiny());
		let audited: Vec<u32> = Audits::<T>::get(id).iter().map(|a| a.segment).collect();
		// The run's first checkpoint goes with any verdict; another no verdict replayed
		// from is refused.
		let spare = (1..task(id).checkpoints).find(|k| !audited.contains(k)).unwrap();
		assert_noop!(demand(13, id, spare), Error::<T>::NotDemandable);
		// In Exact mode a verdict's end is its own hash, never replayed from.
		let end = audited.iter().map(|s| s + 1).find(|k| !audited.contains(k)).unwrap();
		assert_noop!(demand(13, id, end), Error::<T>::NotDemandable);
		assert_noop!(demand(13, id, task(id).checkpoints), Error::<T>::NotDemandable);
		assert_ok!(demand(13, id, audited[0]));
		assert_noop!(demand(14, id, audited[0]), Error::<T>::AlreadyDemanded);
		// The first window's end passes while the demand holds the window open: a later
		// demand is no new chance to hold it.
		let first = RevealBy::<T>::get(id, Audits::<T>::get(id)[1].verifier).unwrap();
		run_to(first);
		assert_eq!(task(id).phase, Phase::Challenge, "held for the pages");
		assert_noop!(demand(13, id, audited[1]), Error::<T>::NotDemandable);
	});
	new_test_ext().execute_with(|| {
		// Two segments, both audited: no replay starts from the run's first checkpoint,
		// but a proof of a run off its task opens it; it goes with any verdict.
		let two = fixtures::with(tiny(), |s| {
			s.training.checkpoint_interval = 30;
			s.verification.audit_fraction = gensyn_primitives::Permill(1_000_000);
		});
		let (id, _) = passed(two);
		assert!(Audits::<T>::get(id).iter().any(|a| a.segment == 0));
		assert_ok!(demand(13, id, 0));
		assert_ok!(demand(13, id, 1));
		assert_noop!(demand(14, id, 0), Error::<T>::AlreadyDemanded);
	});
	new_test_ext().execute_with(|| {
		let threshold = fixtures::tiny_mlp();
		let (id, _) = passed(threshold);
		let segment = Audits::<T>::get(id)[0].segment;
		assert_ok!(demand(13, id, segment + 1));
	});
	new_test_ext().execute_with(|| {
		reg(10, Role::Solver);
		reg(11, Role::Verifier);
		let wide = fixtures::with(tiny(), |s| {
			s.model = fixtures::mlp(s.data.input, 4096, 3).model;
		});
		let state = publish::state_bytes(&publish::tensor_lengths(&wide));
		assert!(state > <<T as Config>::MaxPublishBytes as Get<u64>>::get());
		assert_noop!(
			TaskPallet::submit_task(RuntimeOrigin::signed(1), wide),
			Error::<T>::SpecStateTooLarge
		);
	});
}

/// Pages that come after the window's end, before they are due: the settlement waited
/// for them, and the last one reopens the window a whole period for anyone to replay
/// from the checkpoint; then the task settles as it would have. A demand answered in
/// time holds the task no longer than that.
#[test]
fn pages_after_the_windows_end_reopen_it_for_a_period() {
	new_test_ext().execute_with(|| {
		let spec = tiny();
		let (id, leaves) = passed(spec.clone());
		let segment = Audits::<T>::get(id)[0].segment;
		let solver = worth(10);
		assert_ok!(demand(13, id, segment));
		let end = task(id).window_end;
		let due = Demands::<T>::get(id)[0].due;
		run_to(end);
		assert!(System::block_number() < due);
		assert_eq!(task(id).deadline, due, "the settlement waits for the pages");
		assert_noop!(
			TaskPallet::challenge(RuntimeOrigin::signed(13), id, segment),
			Error::<T>::WindowClosed
		);
		for p in &pages(&spec, &leaves, segment) {
			assert_ok!(publish(10, id, segment, p));
		}
		let now = System::block_number();
		assert_eq!(task(id).window_end, now + ChallengePeriod::get(), "reopened a period");
		assert!(task(id).deadline >= task(id).window_end);
		settle(id);
		assert!(events().iter().any(|e| matches!(e, Event::TaskCompleted { .. })));
		assert!(worth(10) > solver, "the solver is paid");
		check();
	});
}

/// A proof that opens the run's first checkpoint (the test arbiter reads only the index).
pub(super) fn first_opened() -> OffTaskProof {
	OffTaskProof {
		index: 0,
		siblings: BoundedVec::new(),
		step: 0,
		tensor_roots: BoundedVec::new(),
		chunk: None,
	}
}

/// A whistleblower without the run's journal demands the run's first checkpoint, reads
/// it from its pages and proves the run off its task: the solver is slashed, and the
/// demander gets its fee back with its bounty, even when another account (one that
/// copied the proof from the pool, say) sends the proof first. So too when the other
/// account (the solver's own, say) proves it from the first pages, before the last one
/// answers the demand and pays its fee: the demander reports it, and gets the fee back.
#[test]
fn a_prover_gets_back_the_fees_of_the_checkpoints_it_demanded() {
	new_test_ext().execute_with(|| {
		let spec = tiny();
		let (id, leaves) = passed(spec.clone());
		let (demander, sybil, pair) = (worth(13), worth(14), worth_of(&[10, 14]));
		assert_ok!(demand(13, id, 0));
		let pages = pages(&spec, &leaves, 0);
		let (last, first) = pages.split_last().unwrap();
		for p in first {
			assert_ok!(publish(10, id, 0, p));
		}
		OFF_TASK_INDEX.with(|i| *i.borrow_mut() = Some(0));
		assert_ok!(TaskPallet::prove_off_task(RuntimeOrigin::signed(14), id, first_opened()));
		assert!(events().contains(&Event::RunOffTask { id, by: 13 }), "the demander reports");
		assert_ok!(publish(10, id, 0, last));
		settle(id);
		assert_eq!(worth(13), demander + 10, "the bounty, with its fee back");
		assert_eq!(worth(14), sybil, "the early proof earns nothing");
		assert!(worth_of(&[10, 14]) < pair, "the solver and its account lose by it");
		check();
	});
	new_test_ext().execute_with(|| {
		let spec = tiny();
		let (id, leaves) = passed(spec.clone());
		let (solver, prover, copier) = (worth(10), worth(13), worth(14));
		assert_ok!(demand(13, id, 0));
		for p in &pages(&spec, &leaves, 0) {
			assert_ok!(publish(10, id, 0, p));
		}
		assert_eq!(worth(13), prover - fee_paid(id), "the answered demand's fee is paid");
		OFF_TASK_INDEX.with(|i| *i.borrow_mut() = Some(0));
		assert_ok!(TaskPallet::prove_off_task(RuntimeOrigin::signed(14), id, first_opened()));
		assert!(events().contains(&Event::RunOffTask { id, by: 13 }), "the demander reports");
		settle(id);
		assert!(events()
			.iter()
			.any(|e| matches!(e, Event::ProofRejected { id: i, solver: 10, .. } if *i == id)));
		assert!(worth(10) + 100 <= solver, "the solver is slashed its whole bond");
		assert_eq!(worth(13), prover + 10, "the bounty, with its fee back");
		assert_eq!(worth(14), copier, "the copy earns nothing");
		check();
	});
}

/// An honest solver whose node is down when a checkpoint is demanded: its standby
/// verifier, which replayed from the checkpoint, publishes it once the solver's turn is
/// over (not a block before), for free; the solver, back, may go on where the verifier
/// left off, and nobody else may publish (so nobody can put a copy of a publisher's page
/// in a block ahead of it). The solver is paid as if it had answered alone; the demander
/// pays its fee. The period is at least four blocks a page, whatever is set.
#[test]
fn an_offline_solvers_checkpoint_is_published_by_its_verifier_and_it_is_paid() {
	new_test_ext().execute_with(|| {
		let spec = tiny();
		let (id, leaves) = passed(spec.clone());
		let audits = Audits::<T>::get(id);
		let (segment, verifier) = (audits[0].segment, audits[0].verifier);
		let other = audits.iter().find(|a| a.verifier != verifier).expect("two").verifier;
		let (solver, demander) = (worth(10), worth(13));
		assert_ok!(demand(13, id, segment));
		let fee = fee_paid(id);
		let pages = pages(&spec, &leaves, segment);
		let d = Demands::<T>::get(id)[0].clone();
		assert!(d.due - d.at >= 4 * pages.len() as u64, "{} pages in {:?}", pages.len(), d);
		let asked =
			|who: u64| TaskPallet::duties(&who).iter().any(|d| matches!(d, Duty::Publish { .. }));
		let turn = TaskPallet::solvers_turn_end(&d);
		run_to(turn - 1);
		assert!(asked(10) && !asked(verifier), "the solver's turn");
		assert_noop!(publish(verifier, id, segment, &pages[0]), Error::<T>::NotPublisher);
		run_to(turn);
		assert!(asked(verifier) && asked(10) && !asked(other), "its standby verifier joins");
		for who in [other, 13] {
			assert_noop!(publish(who, id, segment, &pages[0]), Error::<T>::NotPublisher);
		}
		let (last, first) = pages.split_last().expect("pages");
		for p in first {
			let posted = publish(verifier, id, segment, p).expect("a true page");
			assert_eq!(posted.pays_fee, Pays::No, "a page the chain accepts is free");
		}
		assert_ok!(publish(10, id, segment, last));
		assert!(events().contains(&Event::CheckpointPublished { id, checkpoint: segment, fee }));
		settle(id);
		assert!(events().iter().any(|e| matches!(e, Event::TaskCompleted { .. })));
		assert!(!events().iter().any(|e| matches!(e, Event::CheckpointWithheld { .. })));
		assert!(!events().iter().any(|e| matches!(e, Event::StandbySlashed { .. })));
		assert!(worth(10) > solver, "the solver is paid");
		assert_eq!(worth(13), demander - fee, "the demander pays its fee");
		check();
	});
}

/// A demander in league with the standby verifier of the checkpoint it demands, while
/// the solver's node is down: the standby stays silent, so the solver's proof is
/// rejected and the demander collects the bounty. The standby is slashed as for a
/// missed verdict, so the pair ends below where it started: the deal does not pay.
#[test]
fn a_demander_and_a_silent_standby_lose_by_an_offline_solvers_slash() {
	new_test_ext().execute_with(|| {
		let (id, _) = passed(tiny());
		let audits = Audits::<T>::get(id);
		let (segment, standby) = (audits[0].segment, audits[0].verifier);
		let pair = worth_of(&[13, standby]);
		assert_ok!(demand(13, id, segment));
		let named = events().iter().any(
			|e| matches!(e, Event::CheckpointDemanded { standby: Some(s), .. } if *s == standby),
		);
		assert!(named, "the demand names its standby");
		let due = Demands::<T>::get(id)[0].due;
		run_to(due);
		settle(id);
		assert!(events().contains(&Event::CheckpointWithheld { id, checkpoint: segment, by: 13 }));
		assert!(worth_of(&[13, standby]) < pair, "the deal costs the pair");
		let slashed =
			Event::StandbySlashed { id, checkpoint: segment, verifier: standby, amount: 20 };
		assert!(events().contains(&slashed));
		check();
	});
}

/// A standby whose verdict a game voided and whose segment went to another verifier
/// audits nothing of the task any more and is shown no duty on it: its silence costs it
/// nothing more than the game did.
#[test]
fn a_standby_no_longer_auditing_the_task_is_not_slashed() {
	new_test_ext().execute_with(|| {
		let (id, leaves) = passed(tiny());
		reg(14, Role::Verifier);
		let audits = Audits::<T>::get(id);
		let once = |v| audits.iter().filter(|a| a.verifier == v).count() == 1;
		let a = audits.iter().find(|a| once(a.verifier)).expect("a verifier of one audit").clone();
		assert_ok!(demand(13, id, a.segment));
		assert_ok!(TaskPallet::challenge(RuntimeOrigin::signed(13), id, a.segment));
		rule(id, a.segment, true);
		let redrawn = Audits::<T>::get(id).iter().find(|b| b.segment == a.segment).unwrap().clone();
		assert_ne!(redrawn.verifier, a.verifier, "audited again by another");
		assert!(TaskPallet::duties(&a.verifier).is_empty(), "shown nothing");
		pass_run(id, redrawn.verifier, a.segment, &leaves);
		let before = worth(a.verifier);
		// Nobody else's verdict read the checkpoint (Exact mode): none stands by now.
		let none = Event::StandbyReplaced { id, checkpoint: a.segment, standby: None };
		assert!(events().contains(&none));
		run_to(Demands::<T>::get(id)[0].due);
		settle(id);
		assert!(events().iter().any(|e| matches!(e, Event::CheckpointWithheld { .. })));
		assert!(!events().iter().any(|e| matches!(e, Event::StandbySlashed { .. })));
		assert_eq!(worth(a.verifier), before);
		check();
	});
}

/// [`tiny`] with `audit_fraction` (parts per million) of its segments audited.
fn spec_with_fraction(fraction: u32) -> TaskSpec {
	let mut spec = tiny();
	spec.verification.audit_fraction = SpecPermill(fraction);
	spec
}

/// A re-audit that lets a demand's standby go while the solver's turn lasts names
/// another verifier whose verdict read the checkpoint: for the run's first, any other
/// verifier with a verdict. The duty passes on with the slash for silence, so an
/// offline solver is not left without one. The one let go may no longer publish.
#[test]
fn a_standby_let_go_by_a_reaudit_is_replaced() {
	new_test_ext().execute_with(|| {
		// Two audited segments of 30: one for each verifier.
		let spec = spec_with_fraction(60_000);
		let (id, leaves) = passed(spec.clone());
		reg(14, Role::Verifier);
		let audits = Audits::<T>::get(id);
		assert_eq!(audits.len(), 2);
		let first = audits[0].clone();
		let other = audits.iter().find(|a| a.verifier != first.verifier).expect("two").verifier;
		assert_ok!(TaskPallet::challenge(RuntimeOrigin::signed(13), id, first.segment));
		assert_ok!(demand(13, id, 0));
		let d = Demands::<T>::get(id)[0].clone();
		assert_eq!(d.standby, Some(first.verifier), "the first verifier with a verdict");
		rule(id, first.segment, true);
		assert!(System::block_number() < TaskPallet::solvers_turn_end(&d), "in the turn");
		assert_eq!(Demands::<T>::get(id)[0].standby, Some(other));
		assert!(events().contains(&Event::StandbyReplaced {
			id,
			checkpoint: 0,
			standby: Some(other)
		}));
		run_to(TaskPallet::solvers_turn_end(&d));
		let page = &pages(&spec, &leaves, 0)[0];
		assert_noop!(publish(first.verifier, id, 0, page), Error::<T>::NotPublisher);
		assert_ok!(publish(other, id, 0, page));
		check();
	});
	// The rule itself, on the audits as a re-audit would leave them: once the solver's
	// turn is over a new standby would have less than half a period, so none is named.
	new_test_ext().execute_with(|| {
		let (id, _) = passed(spec_with_fraction(60_000));
		let audits = Audits::<T>::get(id);
		let first = audits[0].verifier;
		assert_ok!(demand(13, id, 0));
		let d = Demands::<T>::get(id)[0].clone();
		let rest: Vec<_> = audits.iter().filter(|a| a.verifier != first).cloned().collect();
		let turn_end = TaskPallet::solvers_turn_end(&d);
		TaskPallet::replace_standbys(id, &rest, &[first], turn_end);
		assert_eq!(Demands::<T>::get(id)[0].standby, Some(first), "kept");
		assert!(!events().iter().any(|e| matches!(e, Event::StandbyReplaced { .. })));
		TaskPallet::replace_standbys(id, &rest, &[first], turn_end - 1);
		let standby = Some(rest[0].verifier);
		assert_eq!(Demands::<T>::get(id)[0].standby, standby, "in the turn");
		assert!(events().contains(&Event::StandbyReplaced { id, checkpoint: 0, standby }));
		check();
	});
}

/// The same deal with the standby named in place of one a re-audit let go: the
/// demander and the new standby, in league, leave an offline solver's checkpoint
/// unpublished. The new standby is slashed as the first would have been, so the pair
/// ends below where it stood when the duty passed to it.
#[test]
fn a_demander_and_a_silent_replaced_standby_lose_by_it() {
	new_test_ext().execute_with(|| {
		let (id, leaves) = passed(spec_with_fraction(60_000));
		reg(14, Role::Verifier);
		let first = Audits::<T>::get(id)[0].clone();
		assert_ok!(TaskPallet::challenge(RuntimeOrigin::signed(13), id, first.segment));
		assert_ok!(demand(13, id, 0));
		rule(id, first.segment, true);
		let other = Demands::<T>::get(id)[0].standby.expect("a new standby");
		assert_ne!(other, first.verifier);
		let pair = worth_of(&[13, other]);
		// The re-auditor passes the segment; nobody publishes the checkpoint.
		let redrawn = Audits::<T>::get(id).iter().find(|b| b.segment == first.segment).cloned();
		let redrawn = redrawn.expect("audited again");
		let next = first.segment as usize + 1;
		let p = merkle::proof(&leaves, next).unwrap();
		let proof = CheckpointProof {
			checkpoint_hash: leaves[next],
			siblings: BoundedVec::truncate_from(p.siblings),
		};
		let who = RuntimeOrigin::signed(redrawn.verifier);
		assert_ok!(TaskPallet::submit_verification(who, id, first.segment, 0, leaves[next], proof));
		run_to(Demands::<T>::get(id)[0].due);
		settle(id);
		assert!(events()
			.iter()
			.any(|e| matches!(e, Event::StandbySlashed { verifier, .. } if *verifier == other)));
		assert!(worth_of(&[13, other]) < pair, "the deal costs the pair");
		check();
	});
}

/// The standby is named when the checkpoint is demanded: a game that later refutes its
/// verdict does not hand the duty to a verifier that would learn of it too late.
#[test]
fn the_standby_is_named_when_the_checkpoint_is_demanded() {
	new_test_ext().execute_with(|| {
		let spec = tiny();
		let (id, leaves) = passed(spec.clone());
		let a = Audits::<T>::get(id)[0].clone();
		assert_ok!(demand(13, id, a.segment));
		Audits::<T>::mutate(id, |audits| audits[0].refuted_by = Some(13));
		assert_eq!(TaskPallet::standby(id, a.segment), None, "refuted: it names nobody now");
		let d = Demands::<T>::get(id)[0].clone();
		assert_eq!(d.standby, Some(a.verifier));
		run_to(TaskPallet::solvers_turn_end(&d));
		assert_ok!(publish(a.verifier, id, a.segment, &pages(&spec, &leaves, a.segment)[0]));
	});
}

/// The standby verifier: for the run's first checkpoint (the task's seeded start, which
/// a verifier computes) the first in the audits with a verdict; for a checkpoint no
/// verdict replayed from, in Threshold mode the one whose segment ended there (it
/// measured its distance to it), in Exact mode nobody (it compared a hash); none where
/// no verdict stands or a game refuted it.
#[test]
fn each_checkpoint_has_one_standby_verifier() {
	for (spec, measured) in [(tiny(), false), (fixtures::tiny_mlp(), true)] {
		new_test_ext().execute_with(|| {
			let (id, _) = passed(spec);
			let audits = Audits::<T>::get(id);
			let standby = |c| TaskPallet::standby(id, c);
			assert_eq!(standby(0), Some(audits[0].verifier));
			let a = &audits[1];
			assert_eq!(standby(a.segment), Some(a.verifier), "it replayed from it");
			let ended = audits
				.iter()
				.find(|a| !audits.iter().any(|b| b.segment == a.segment + 1))
				.expect("an audit whose next segment is not audited");
			let want = measured.then_some(ended.verifier);
			assert_eq!(standby(ended.segment + 1), want, "its replay ended there");
			Audits::<T>::mutate(id, |audits| audits[1].refuted_by = Some(13));
			assert_ne!(standby(a.segment), Some(a.verifier), "a refuted verdict names nobody");
			Audits::<T>::mutate(id, |audits| audits.iter_mut().for_each(|a| a.verdict = None));
			assert_eq!(standby(0), None, "no verdict stands");
		});
	}
}
