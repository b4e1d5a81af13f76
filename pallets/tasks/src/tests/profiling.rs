//! Profiling of Threshold tasks: several profilers, the median of their thresholds, and
//! pay only for profiles near it.

use super::*;

#[test]
fn threshold_tasks_are_profiled_first_and_judged_by_the_profiled_threshold() {
	ExtBuilder::default().profile(4).build().execute_with(|| {
		let id = profiled_among(&[11]);
		let t = task(id);
		assert_eq!(t.phase, Phase::Profiling);
		// The only verifier is the only profiler; the escrow holds three profiles.
		assert_eq!(t.profilers.to_vec(), vec![Profile { who: 11, threshold: None }]);
		assert_eq!(t.deadline, 7);
		assert_eq!(t.escrow, t.solver_pay + 4 * t.segment_pay + t.jackpot_cut + t.treasury_cut);
		assert_eq!(TaskPallet::duties(&11), vec![Duty::Profile { task: id, by: 7 }]);
		// Cancel is still possible while profiling (checked on a twin task below).
		assert_noop!(commit_threshold(12, id, 3.0), Error::<T>::NotProfiler);
		assert_noop!(
			TaskPallet::commit_profile(RuntimeOrigin::none(), id, [0; 32]),
			sp_runtime::DispatchError::BadOrigin
		);
		assert_noop!(reveal_threshold(11, id, 3.0), Error::<T>::WrongPhase);
		let before = Balances::free_balance(11);
		assert_ok!(commit_threshold(11, id, 3.0));
		assert!(events().contains(&Event::ProfileCommitted { id, profiler: 11 }));
		// Its only profiler committed: the reveals open at once.
		let by = task(id).deadline;
		let now = frame_system::Pallet::<T>::block_number();
		assert_eq!((task(id).phase, by), (Phase::ProfileReveal, now + 3));
		assert!(events().contains(&Event::ProfileRevealsOpen { id, until: by }));
		assert_eq!(TaskPallet::duties(&11), vec![Duty::RevealProfile { task: id, by }]);
		assert_noop!(commit_threshold(11, id, 3.0), Error::<T>::WrongPhase);
		assert_noop!(reveal_threshold(12, id, 3.0), Error::<T>::NotProfiler);
		assert_noop!(reveal_threshold(11, id, 2.0), Error::<T>::ProfileMismatch);
		let three = f32::to_bits(3.0);
		assert_noop!(
			TaskPallet::reveal_profile(RuntimeOrigin::signed(11), id, three, [6; 32]),
			Error::<T>::ProfileMismatch
		);
		assert_ok!(reveal_threshold(11, id, 3.0));
		assert_eq!(Balances::free_balance(11), before + t.segment_pay);
		assert!(events().contains(&Event::ProfilePosted { id, profiler: 11, threshold: three }));
		let paid = vec![(11, t.segment_pay)];
		assert!(events().contains(&Event::Profiled { id, threshold: three, paid }));
		solver_drawn(id);
		assert_eq!(task(id).threshold, Some(three));
		assert_noop!(reveal_threshold(11, id, 3.0), Error::<T>::WrongPhase);
		// Train, commit, verify with a distance of 2.0: over the default 1.0, under 3.0.
		assert!(verified_at(id, 2.0).pass);
		let end = task(id).deadline;
		run_to(end);
		assert!(events().iter().any(|e| matches!(e, Event::TaskCompleted { .. })));
		// The two profiles nobody was drawn for went back with the rest.
		assert_eq!(escrow_held(1), 0);
		check();
	});
}

#[test]
fn a_lapsed_profile_is_slashed_and_redrawn_then_the_task_fails_or_is_cancelled() {
	ExtBuilder::default().profile(4).build().execute_with(|| {
		let id = profiled_among(&[11]);
		let vb = Stake::bond(&11, Role::Verifier);
		run_to(7);
		assert_eq!(Stake::bond(&11, Role::Verifier), vb - 20);
		// 11 is excluded: nobody else, so the task waits and finally fails, refunded.
		assert_eq!(task(id).phase, Phase::Profiling);
		assert!(task(id).profilers.is_empty());
		run_to(32);
		assert!(Tasks::<T>::get(id).is_none());
		assert_eq!(escrow_held(1), 0);
		assert_eq!(Balances::free_balance(1), START);
		// A second task is cancelled while profiling, before its profilers are drawn:
		// full refund.
		reg(12, Role::Verifier);
		assert_ok!(TaskPallet::submit_task(RuntimeOrigin::signed(1), spec()));
		let id2 = last_task();
		assert_eq!(task(id2).phase, Phase::Profiling);
		assert_ok!(TaskPallet::cancel_task(RuntimeOrigin::signed(1), id2));
		assert_eq!(Balances::free_balance(1), START);
		assert!(pallet_gensyn_stake::Engagements::<T>::iter().next().is_none());
	});
}

/// A Threshold task whose data its profilers cannot use: each declines, free (a lapse
/// would be slashed). The first decline leaves the other profiler at work; once every
/// seat has declined the task fails before anyone trains, refunded but for the declined
/// seats' pay (to the jackpot pot: the data is the submitter's doing), and no profiler
/// lost anything. The decline is a drawn profiler's alone, only while it has
/// not posted, and only before its deadline.
#[test]
fn profilers_declining_unusable_data_fail_the_task_refunded_and_unslashed() {
	ExtBuilder::default().profile(4).build().execute_with(|| {
		let id = profiled_among(&[11, 12]);
		let pay = task(id).segment_pay;
		let pot = Balances::free_balance(JACKPOT);
		let worth = || Balances::total_balance(&11) + Balances::total_balance(&12);
		let profilers = worth();
		assert_eq!(task(id).profilers.len(), 2, "both verifiers profile it");
		assert_noop!(
			TaskPallet::decline_profile(RuntimeOrigin::signed(13), id),
			Error::<T>::NotProfiler
		);
		assert_ok!(TaskPallet::decline_profile(RuntimeOrigin::signed(11), id));
		let forfeited = pay;
		assert!(events().contains(&Event::ProfileDeclined { id, profiler: 11, forfeited }));
		assert_eq!(task(id).profilers.to_vec(), vec![Profile { who: 12, threshold: None }]);
		assert_eq!(TaskPallet::duties(&11), vec![], "the decliner is let go");
		assert_noop!(
			TaskPallet::decline_profile(RuntimeOrigin::signed(11), id),
			Error::<T>::NotProfiler
		);
		assert_ok!(TaskPallet::decline_profile(RuntimeOrigin::signed(12), id));
		assert!(Tasks::<T>::get(id).is_none(), "every seat declined: the task ended");
		assert!(events().iter().any(
			|e| matches!(e, Event::TaskFailed { id: i, reason: FailReason::NoThreshold, .. } if *i == id)
		));
		assert_eq!(Balances::free_balance(1), START - 2 * pay, "refunded but the seats' pay");
		assert_eq!(Balances::free_balance(JACKPOT), pot + 2 * pay, "which went to the pot");
		assert_eq!(worth(), profilers, "no profiler slashed nor paid");
		assert_eq!(TaskPallet::duties(&12), vec![], "let go");
		assert_noop!(
			TaskPallet::decline_profile(RuntimeOrigin::signed(12), id),
			Error::<T>::UnknownTask
		);
		check();
	});
}

#[test]
fn a_profile_cannot_be_declined_after_its_deadline() {
	ExtBuilder::default().profile(4).build().execute_with(|| {
		let id = profiled_among(&[11]);
		// At its deadline the lapse is due (and slashed): a decline comes too late.
		frame_system::Pallet::<T>::set_block_number(task(id).deadline);
		assert_noop!(
			TaskPallet::decline_profile(RuntimeOrigin::signed(11), id),
			Error::<T>::OfferExpired
		);
	});
}

/// Submits the MNIST MLP with verifiers 11, 12 and 13 (and solver 10), all three drawn to
/// profile it; each commits its threshold from `posts`, then each reveals it, in that
/// order.
fn profiled_by(posts: [(u64, f32); 3]) -> TaskId {
	let id = profiled_among(&[11, 12, 13]);
	let mut drawn: Vec<u64> = task(id).profilers.iter().map(|p| p.who).collect();
	drawn.sort();
	assert_eq!(drawn, vec![11, 12, 13]);
	post_profiles(id, &posts);
	id
}

/// Runs the blocks to task `id`'s solver draw, which comes `RandomnessDelay` blocks after
/// its threshold is decided (and may move from there), and checks it offered the task.
fn solver_drawn(id: TaskId) {
	for _ in 0..3 {
		if task(id).phase != Phase::Queued {
			break;
		}
		run_to(task(id).deadline);
	}
	assert_eq!(task(id).phase, Phase::Offered);
}

/// Trains task `id` as solver 10 and has its drawn verifier post `distance`; returns the
/// verdict.
fn verified_at(id: TaskId, distance: f32) -> Verdict {
	solver_drawn(id);
	assert_ok!(TaskPallet::accept_task(RuntimeOrigin::signed(10), id));
	assert_ok!(TaskPallet::submit_result(
		RuntimeOrigin::signed(10),
		id,
		[0; 32],
		merkle::root(&leaves(8)),
		8,
		BoundedVec::default()
	));
	run_to(task(id).deadline);
	let a = Audits::<T>::get(id)[0].clone();
	assert_ok!(TaskPallet::submit_verification(
		RuntimeOrigin::signed(a.verifier),
		id,
		a.segment,
		distance.to_bits(),
		[0; 32],
		proof_for(8, a.segment)
	));
	Audits::<T>::get(id)[0].verdict.expect("posted")
}

/// Task `id`'s `Profiled` event: the threshold decided and who was paid, by account.
fn profiled_event(id: TaskId) -> (u32, Vec<(u64, u64)>) {
	let mut paid = events()
		.into_iter()
		.find_map(|e| match e {
			Event::Profiled { id: i, threshold, paid } if i == id => Some((threshold, paid)),
			_ => None,
		})
		.expect("Profiled");
	paid.1.sort();
	paid
}

/// A profiler that posts a tiny threshold so that every honest solver fails (and the
/// owner, its partner, is compensated from the solver's slash) is outvoted: the threshold
/// is the median of three, the honest solver's segment passes and it is paid, and the
/// liar is not paid for a profile two orders of magnitude off the median, while each
/// honest profiler is.
#[test]
fn a_profiler_posting_a_tiny_threshold_is_outvoted_and_unpaid() {
	ExtBuilder::default().profile(4).build().execute_with(|| {
		let before = [11, 12, 13].map(|v| Balances::total_balance(&v));
		let id = profiled_by([(11, 1e-30), (12, 1.0), (13, 2.0)]);
		let t = task(id);
		assert_eq!(t.threshold, Some(1.0f32.to_bits()), "the median, not the liar's zero");
		let paid = profiled_event(id);
		assert_eq!(paid, (1.0f32.to_bits(), vec![(12, t.segment_pay), (13, t.segment_pay)]));
		let after = [11, 12, 13].map(|v| Balances::total_balance(&v));
		assert_eq!(after[0], before[0], "the liar earned nothing");
		assert_eq!(after[1], before[1] + t.segment_pay);
		assert_eq!(after[2], before[2] + t.segment_pay);
		// An honest run 0.5 away passes (the liar's threshold would have failed it).
		assert!(verified_at(id, 0.5).pass);
		let solver = Balances::total_balance(&10);
		run_to(task(id).deadline);
		assert!(events()
			.iter()
			.any(|e| matches!(e, Event::TaskCompleted { id: i, .. } if *i == id)));
		assert!(Balances::total_balance(&10) > solver, "the honest solver was paid");
		check();
	});
}

/// A profiler that posts a huge threshold so that a fake passes is outvoted the same way:
/// the fake's distance fails against the median and the solver's proof is rejected.
#[test]
fn a_profiler_posting_a_huge_threshold_is_outvoted_and_unpaid() {
	ExtBuilder::default().profile(4).build().execute_with(|| {
		let before = Balances::total_balance(&13);
		let id = profiled_by([(13, f32::MAX), (11, 1.0), (12, 3.0)]);
		assert_eq!(task(id).threshold, Some(3.0f32.to_bits()));
		assert_eq!(Balances::total_balance(&13), before, "the liar earned nothing");
		assert!(!verified_at(id, 50.0).pass, "a fake 50 away fails");
		check();
	});
}

/// Two profilers in league with the owner hold two of the three seats and agree on a
/// tiny threshold, the median, so that the honest solver's replay fails (and the owner
/// is compensated from its slash, keeping the model it trained). The task is judged by
/// the protocol's floor instead: the honest run passes, its solver is paid and keeps its
/// bond, and the owner pays the task's full price.
#[test]
fn partner_profilers_cannot_set_a_threshold_that_fails_honest_solvers() {
	ExtBuilder::default().profile(4).build().execute_with(|| {
		let coalition = [1, 11, 12];
		let before = worth_of(&coalition);
		let id = profiled_by([(11, 1e-30), (12, 1e-30), (13, 1.0)]);
		let floor = 0.1f32.to_bits();
		assert_eq!(task(id).threshold, Some(floor), "the floor, not the partners' median");
		let paid = profiled_event(id);
		let pay = task(id).segment_pay;
		assert_eq!(paid, (floor, vec![(11, pay), (12, pay)]), "profiles paid as they agreed");
		let price = task(id).escrow;
		// An honest run 0.05 away (under the floor, over the partners' threshold).
		let bond = <T as Config>::Stake::bond(&10, Role::Solver);
		let solver = Balances::total_balance(&10);
		assert!(verified_at(id, 0.05).pass);
		run_to(task(id).deadline);
		assert!(events()
			.iter()
			.any(|e| matches!(e, Event::TaskCompleted { id: i, .. } if *i == id)));
		assert!(Balances::total_balance(&10) > solver, "the honest solver was paid");
		assert_eq!(<T as Config>::Stake::bond(&10, Role::Solver), bond, "and not slashed");
		// The coalition paid for the task like any owner, less what two profiles and the
		// unused profile returned (its partners' pay stays within it).
		let spent = before - worth_of(&coalition);
		assert!(spent > 0 && spent <= price, "the coalition paid {spent} of {price}");
		check();
	});
}

/// Two profilers in league with a lazy solver agree on a huge threshold, the median, so
/// that its copied checkpoints pass; or three honest profilers agree on a large one, for
/// a model (the submitter's choice) whose honest replays stray that far. Lowered to the
/// ceiling, the second would fail every honest replay, and the fail would stand.
/// Either way the task fails before a solver is drawn, refunded but for the
/// profiles paid as they agreed: the lazy solver trains nothing to be paid for, and no
/// honest solver is slashed. (Unpaid past the ceiling, an honest profiler would do
/// better to post the ceiling whatever it measured.)
#[test]
fn profiles_agreeing_past_the_ceiling_fail_the_task_before_anyone_trains() {
	for (posts, paid_to) in [
		([(12, f32::MAX), (13, f32::MAX), (11, 1.0)], vec![12, 13]),
		([(11, 50.0), (12, 60.0), (13, 70.0)], vec![11, 12, 13]),
	] {
		ExtBuilder::default().profile(4).build().execute_with(|| {
			let owner = worth(1);
			let id = profiled_by(posts);
			assert!(events().iter().any(|e| matches!(
				e,
				Event::TaskFailed { id: i, reason: FailReason::ThresholdAboveBound, .. } if *i == id
			)));
			assert!(Tasks::<T>::get(id).is_none(), "no solver is drawn");
			let mut paid = events()
				.into_iter()
				.find_map(|e| match e {
					Event::ProfilesPaid { id: i, paid } if i == id => Some(paid),
					_ => None,
				})
				.expect("ProfilesPaid");
			paid.sort();
			let who: Vec<u64> = paid.iter().map(|(w, _)| *w).collect();
			assert_eq!(who, paid_to, "the profiles are paid as they agreed");
			let spent: u64 = paid.iter().map(|(_, a)| a).sum();
			assert_eq!(worth(1), owner - spent, "the owner pays those profiles only");
			assert_eq!(escrow_held(1), 0);
			check();
		});
	}
}

/// Thresholds past the bounds read as the nearest bound, and one that is not a number
/// as the ceiling.
#[test]
fn the_threshold_bounds_read_sensibly_whatever_is_set() {
	let bounded = |t: f32| f32::from_bits(TaskPallet::bounded_threshold(t.to_bits()));
	assert_eq!(bounded(1.0), 1.0, "within the mock's bounds (0.1 to 10)");
	assert_eq!(bounded(1e-30), 0.1);
	assert_eq!(bounded(f32::MAX), 10.0);
	assert_eq!(bounded(f32::NAN), 10.0);
	assert_eq!(bounded(f32::INFINITY), 10.0);
}

/// A profiler that lets its deadline pass is slashed and replaced; those that committed
/// wait for the replacement (their profiles still hidden), and the threshold is the
/// median of three reveals.
#[test]
fn a_lapsed_profiler_is_replaced_while_the_others_posts_stand() {
	ExtBuilder::default().profile(4).build().execute_with(|| {
		let id = profiled_among(&[11, 12, 13, 14]);
		let drawn: Vec<u64> = task(id).profilers.iter().map(|p| p.who).collect();
		assert_eq!(drawn.len(), 3);
		let spare = [11, 12, 13, 14].into_iter().find(|v| !drawn.contains(v)).unwrap();
		let (late, posted) = (drawn[0], &drawn[1..]);
		for (v, t) in posted.iter().zip([2.0f32, 4.0]) {
			assert_ok!(commit_threshold(*v, id, t));
		}
		assert_eq!(task(id).phase, Phase::Profiling, "one still to commit");
		let bond = Stake::bond(&late, Role::Verifier);
		run_to(task(id).deadline);
		assert_eq!(Stake::bond(&late, Role::Verifier), bond - 20, "the lapse is slashed");
		let t = task(id);
		assert_eq!(t.profilers.last(), Some(&Profile { who: spare, threshold: None }));
		assert!(t.excluded.contains(&late));
		assert_eq!(TaskPallet::duties(&spare), vec![Duty::Profile { task: id, by: t.deadline }]);
		assert_ok!(commit_threshold(spare, id, 3.0));
		assert_eq!(task(id).phase, Phase::ProfileReveal);
		for (v, t) in posted.iter().zip([2.0f32, 4.0]).chain([(&spare, 3.0)]) {
			assert_ok!(reveal_threshold(*v, id, t));
		}
		assert_eq!(task(id).threshold, Some(3.0f32.to_bits()));
		solver_drawn(id);
		check();
	});
}

/// A submitter serves its data to its partner profilers only (13 here), so that the
/// honest ones cannot fetch it. Were a decliner replaced, the honest profilers would
/// decline one after another until only partners posted, and a partner's tiny threshold
/// would fail every honest solver. A decliner's seat is never filled again (14, free to
/// profile, is not drawn): the partner's tiny profile and the honest one left disagree,
/// so nothing is decided and no solver is drawn. Were the disagreeing posts merely left
/// unpaid, this re-roll would cost the owner one seat; their pay goes to the pot with
/// the declined seat's, so it costs every seat, as much as the profiles of a draw it let
/// stand, and the pot gains all of it.
#[test]
fn a_decliners_seat_is_never_refilled_so_partners_cannot_set_the_threshold() {
	ExtBuilder::default().profile(4).build().execute_with(|| {
		let id = profiled_among(&[11, 12, 13]);
		let pay = task(id).segment_pay;
		reg(14, Role::Verifier);
		let coalition = || Balances::total_balance(&1) + Balances::total_balance(&13);
		let before = coalition();
		let pot = Balances::total_balance(&JACKPOT);
		let solver = Balances::total_balance(&10) + Stake::bond(&10, Role::Solver);
		assert_ok!(commit_threshold(13, id, 1e-30));
		assert_ok!(TaskPallet::decline_profile(RuntimeOrigin::signed(11), id));
		assert!(Tasks::<T>::get(id).is_some(), "12 still profiles it");
		assert_ok!(commit_threshold(12, id, 1.0));
		assert_ok!(reveal_threshold(13, id, 1e-30));
		assert_ok!(reveal_threshold(12, id, 1.0));
		assert!(Tasks::<T>::get(id).is_none(), "no threshold: the task ended");
		assert!(!events().iter().any(|e| matches!(e, Event::ProfilerDrawn { profiler: 14, .. })));
		assert!(!events().iter().any(|e| matches!(e, Event::Profiled { .. })));
		assert!(events().contains(&Event::ProfilesForfeited {
			id,
			profilers: vec![13, 12],
			forfeited: 2 * pay
		}));
		assert_eq!(coalition(), before - 3 * pay, "the re-roll cost the owner every seat");
		assert_eq!(Balances::total_balance(&JACKPOT), pot + 3 * pay);
		assert_eq!(Balances::total_balance(&10) + Stake::bond(&10, Role::Solver), solver);
		assert!(!events().iter().any(|e| matches!(e, Event::SolverDrawn { .. })));
		check();
	});
}

/// The owner's partner (11) is seated among its task's three profilers. Were a decline
/// to end the task, the partner would decline at once and the owner resubmit, for
/// fees, until its partners held two seats and set the threshold. The decline ends
/// nothing: the honest profilers' profiles decide the threshold and are paid, and the
/// owner that then cancels to draw again pays for both.
#[test]
fn a_partner_profiler_cannot_undo_the_draw_by_declining() {
	ExtBuilder::default().profile(4).build().execute_with(|| {
		let id = profiled_among(&[11, 12, 13]);
		let pay = task(id).segment_pay;
		let coalition = || Balances::total_balance(&1) + Balances::total_balance(&11);
		let before = coalition();
		assert_ok!(TaskPallet::decline_profile(RuntimeOrigin::signed(11), id));
		assert!(Tasks::<T>::get(id).is_some(), "the decline did not end the task");
		post_profiles(id, &[(12, 1.0), (13, 2.0)]);
		assert_eq!(task(id).threshold, Some(2.0f32.to_bits()), "the honest profiles decide");
		solver_drawn(id);
		assert_ok!(TaskPallet::cancel_task(RuntimeOrigin::signed(1), id));
		assert_eq!(coalition(), before - 3 * pay, "a re-roll costs the owner every seat");
		check();
	});
}

/// The same partner (11) declines where the owner serves its data to one honest
/// profiler only (12 posts, 13 cannot fetch it and declines): the post left alone
/// decides nothing, so the task fails, and each seat's pay goes to the pot, the post's
/// too: the re-roll is not free, and the honest post goes unpaid (the chain cannot
/// tell it from a partner's, next test).
#[test]
fn a_partner_declining_beside_a_starved_profiler_still_pays_for_the_reroll() {
	ExtBuilder::default().profile(4).build().execute_with(|| {
		let id = profiled_among(&[11, 12, 13]);
		let pay = task(id).segment_pay;
		let coalition = || Balances::total_balance(&1) + Balances::total_balance(&11);
		let before = coalition();
		let honest = [12, 13].map(|v| Balances::total_balance(&v));
		assert_ok!(commit_threshold(12, id, 1.0));
		assert_ok!(TaskPallet::decline_profile(RuntimeOrigin::signed(13), id));
		assert_ok!(TaskPallet::decline_profile(RuntimeOrigin::signed(11), id));
		assert_ok!(reveal_threshold(12, id, 1.0));
		assert!(Tasks::<T>::get(id).is_none(), "one profile decides nothing");
		assert_eq!([12, 13].map(|v| Balances::total_balance(&v)), honest, "none slashed");
		assert_eq!(coalition(), before - 3 * pay, "the re-roll cost the owner every seat");
		check();
	});
}

/// The owner starves both honest profilers of data (12 and 13 decline) and its partner
/// (11) posts a tiny threshold alone. Were a post left alone by declines paid, the
/// partner's pay would come back to the coalition and the re-roll would cost two seats;
/// it goes to the pot, so the re-roll costs every seat here too.
#[test]
fn a_partner_posting_alone_after_starved_declines_is_not_paid() {
	ExtBuilder::default().profile(4).build().execute_with(|| {
		let id = profiled_among(&[11, 12, 13]);
		let pay = task(id).segment_pay;
		let coalition = || Balances::total_balance(&1) + Balances::total_balance(&11);
		let before = coalition();
		let pot = Balances::total_balance(&JACKPOT);
		assert_ok!(TaskPallet::decline_profile(RuntimeOrigin::signed(12), id));
		assert_ok!(TaskPallet::decline_profile(RuntimeOrigin::signed(13), id));
		post_profiles(id, &[(11, 1e-30)]);
		assert!(Tasks::<T>::get(id).is_none(), "one profile decides nothing");
		assert!(!events().iter().any(|e| matches!(e, Event::ProfilesPaid { .. })));
		assert_eq!(coalition(), before - 3 * pay, "the re-roll cost the owner every seat");
		assert_eq!(Balances::total_balance(&JACKPOT), pot + 3 * pay);
		check();
	});
}

/// The owner cancels a task while it is profiled: not while a drawn profiler is still at
/// work (a submitter could otherwise undo every draw that seated too few of its partners,
/// for nothing), and then the profiles already posted are paid (their work stands), the
/// rest of the escrow is refunded.
#[test]
fn a_cancel_waits_for_the_drawn_profilers_and_pays_their_profiles() {
	ExtBuilder::default().profile(4).build().execute_with(|| {
		let id = profiled_among(&[11, 12]);
		let pay = task(id).segment_pay;
		let profiler = Balances::total_balance(&11);
		assert_ok!(commit_threshold(11, id, 1.0));
		assert_noop!(
			TaskPallet::cancel_task(RuntimeOrigin::signed(1), id),
			Error::<T>::ProfilersAtWork
		);
		assert_ok!(commit_threshold(12, id, 1.0));
		assert_ok!(reveal_threshold(11, id, 1.0));
		assert_noop!(
			TaskPallet::cancel_task(RuntimeOrigin::signed(1), id),
			Error::<T>::ProfilersAtWork
		);
		// Once 12 has revealed too, the threshold is decided and both profiles paid; the
		// task, offered to its solver, can be cancelled.
		assert_ok!(reveal_threshold(12, id, 1.0));
		assert_ok!(TaskPallet::cancel_task(RuntimeOrigin::signed(1), id));
		assert_eq!(Balances::total_balance(&11), profiler + pay, "the posted profile is paid");
		assert_eq!(Balances::free_balance(1), START - 2 * pay, "the rest refunded");
		assert_eq!(escrow_held(1), 0);
		check();
	});
}

/// Draws spent on retries (no verifier fit for a while) are no decline: a post left
/// alone by lapses on the task's last draw is paid, and no profile's pay goes to the pot.
#[test]
fn a_lone_post_after_lapses_is_paid_though_retries_spent_the_draws() {
	ExtBuilder::default().profile(4).build().execute_with(|| {
		let max: u32 = <<T as Config>::MaxDraws as Get<u32>>::get();
		reg(10, Role::Solver);
		assert_ok!(TaskPallet::submit_task(RuntimeOrigin::signed(1), spec()));
		let id = last_task();
		while task(id).draws + 1 < max {
			run_to(task(id).deadline);
		}
		assert!(task(id).profilers.is_empty(), "no verifier fitted");
		for v in [11, 12, 13] {
			reg(v, Role::Verifier);
		}
		run_to(task(id).deadline);
		assert_eq!((task(id).draws, task(id).profilers.len()), (max, 3), "the last draw");
		let pay = task(id).segment_pay;
		let before = Balances::total_balance(&11);
		assert_ok!(commit_threshold(11, id, 1.0));
		run_to(task(id).deadline);
		// The others lapsed and no seat can be filled: 11's reveal is due.
		assert_eq!(task(id).phase, Phase::ProfileReveal);
		assert_ok!(reveal_threshold(11, id, 1.0));
		assert!(Tasks::<T>::get(id).is_none(), "one profile decides nothing");
		assert_eq!(Balances::total_balance(&11), before + pay, "the lone post is paid");
		assert!(!events().iter().any(|e| matches!(e, Event::ProfilesForfeited { .. })));
		check();
	});
}

/// Two profiles (only two verifiers fit): far apart, they decide nothing and the task
/// fails, refunded but for both profiles' pay, which goes to the pot (were it refunded,
/// an owner whose partner holds one of two seats would post far off and resubmit for
/// free until its partners held both); within a hundredfold, the higher is the
/// threshold and both are paid.
#[test]
fn two_profiles_decide_only_when_they_agree() {
	ExtBuilder::default().profile(4).build().execute_with(|| {
		let far = profiled_among(&[11, 12]);
		let pay = task(far).segment_pay;
		let pot = Balances::total_balance(&JACKPOT);
		post_profiles(far, &[(11, 1e-30), (12, 1.0)]);
		assert!(Tasks::<T>::get(far).is_none(), "no agreement: failed at once");
		assert_eq!(Balances::free_balance(1), START - 2 * pay, "a re-roll costs both seats");
		assert_eq!(Balances::total_balance(&JACKPOT), pot + 2 * pay);
		assert_ok!(TaskPallet::submit_task(RuntimeOrigin::signed(1), spec()));
		let near = last_task();
		run_to(task(near).deadline);
		let pay = task(near).segment_pay;
		let before = [11, 12].map(|v| Balances::total_balance(&v));
		post_profiles(near, &[(11, 0.5), (12, 2.0)]);
		assert_eq!(task(near).threshold, Some(2.0f32.to_bits()), "the higher of two");
		assert_eq!([11, 12].map(|v| Balances::total_balance(&v)), before.map(|b| b + pay));
		check();
	});
}

#[test]
fn the_threshold_is_what_the_profiles_agree_on() {
	use crate::profiling::{agreed_threshold, within_band};
	let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
	let agreed = |v: &[f32], lone| agreed_threshold(&bits(v), lone).map(f32::from_bits);
	assert_eq!(agreed(&[3.0, 1e-30, 1.0], false), Some(1.0), "the median of three");
	assert_eq!(agreed(&[f32::MAX, 2.0, 1.0], false), Some(2.0));
	assert_eq!(agreed(&[5.0, 1.0], false), Some(5.0), "the higher of two that agree");
	assert_eq!(agreed(&[500.0, 1.0], false), None, "two that do not agree");
	assert_eq!(agreed(&[7.0], true), Some(7.0), "the only verifier that ever fitted");
	assert_eq!(agreed(&[7.0], false), None, "one left alone by others");
	assert_eq!(agreed(&[], true), None);
	let d = 1e-4f32.to_bits();
	assert!(within_band(1e-4f32.to_bits(), d));
	assert!(within_band(9e-3f32.to_bits(), d) && within_band(2e-6f32.to_bits(), d));
	assert!(!within_band(2e-2f32.to_bits(), d) && !within_band(5e-7f32.to_bits(), d));
	assert!(!within_band(f32::MAX.to_bits(), d));
}

/// A profiler that lets a three-unit task's profile lapse is slashed three times what a
/// lapse on a one-unit task costs: silence on a valuable task is not the cheap way out.
#[test]
fn a_lapsed_profile_of_a_valuable_task_is_slashed_per_unit() {
	ExtBuilder::default().profile(4).build().execute_with(|| {
		let pay = TaskPallet::quote(&spec()).unwrap().solver_pay;
		set_pay_per_bond_unit(pay.div_ceil(3));
		let id = profiled_among(&[11]);
		assert_eq!(BondUnits::<T>::get(id), Some(3));
		let vb = Stake::bond(&11, Role::Verifier);
		run_to(7);
		assert_eq!(Stake::bond(&11, Role::Verifier), vb - 3 * 20);
		check();
	});
}

/// A lazy profiler (13) waits to copy the others' profiles instead of replaying: until
/// every seated profiler has committed, the chain shows only hashes, so it has nothing
/// to copy. Committing another's hash does not help either: the hash binds the account,
/// so its copied reveal is refused and it is slashed for the missed reveal, while the
/// honest profiles decide the threshold and are paid.
#[test]
fn a_profile_cannot_be_copied_before_every_profiler_has_committed() {
	ExtBuilder::default().profile(4).build().execute_with(|| {
		let id = profiled_among(&[11, 12, 13]);
		let pay = task(id).segment_pay;
		let before = [11, 12, 13].map(|v| Balances::total_balance(&v));
		let bond = Stake::bond(&13, Role::Verifier);
		assert_ok!(commit_threshold(11, id, 1.0));
		assert_ok!(commit_threshold(12, id, 2.0));
		// All the lazy profiler can read: no threshold, only the others' hashes.
		assert!(task(id).profilers.iter().all(|p| p.threshold.is_none()));
		assert_eq!(task(id).phase, Phase::Profiling, "no reveal before 13 commits");
		assert_noop!(reveal_threshold(11, id, 1.0), Error::<T>::WrongPhase);
		let theirs = ProfileCommitments::<T>::get(id)[0].1;
		assert_ok!(TaskPallet::commit_profile(RuntimeOrigin::signed(13), id, theirs));
		assert_eq!(task(id).phase, Phase::ProfileReveal);
		assert_ok!(reveal_threshold(11, id, 1.0));
		// 11's reveal is public now; replayed under 13's name it does not match.
		assert_noop!(reveal_threshold(13, id, 1.0), Error::<T>::ProfileMismatch);
		assert_ok!(reveal_threshold(12, id, 2.0));
		run_to(task(id).deadline);
		assert_eq!(task(id).threshold, Some(2.0f32.to_bits()), "the honest profiles decide");
		let after = [11, 12, 13].map(|v| Balances::total_balance(&v));
		assert_eq!([after[0], after[1]], [before[0] + pay, before[1] + pay], "honest paid");
		assert_eq!(after[2], before[2] - 20, "the copier lost its missed-reveal slash");
		assert_eq!(Stake::bond(&13, Role::Verifier), bond - 20);
		check();
	});
}

/// A profiler that committed owes its reveal: it may not decline once committed (it
/// could otherwise withdraw a profile it saw would be outvoted), its reveal must be a
/// finite positive threshold, and a reveal left undone is slashed at the reveal
/// deadline as a missed profile; the threshold is then decided from the reveals made.
#[test]
fn a_committed_profile_must_be_revealed_or_its_profiler_is_slashed() {
	ExtBuilder::default().profile(4).build().execute_with(|| {
		let id = profiled_among(&[11, 12, 13]);
		let pay = task(id).segment_pay;
		assert_ok!(commit_threshold(11, id, 1.0));
		assert_noop!(
			TaskPallet::decline_profile(RuntimeOrigin::signed(11), id),
			Error::<T>::NotProfiler
		);
		assert_ok!(commit_threshold(12, id, 3.0));
		assert_ok!(commit_threshold(13, id, f32::NAN));
		assert_eq!(task(id).phase, Phase::ProfileReveal);
		assert_noop!(
			TaskPallet::decline_profile(RuntimeOrigin::signed(12), id),
			Error::<T>::WrongPhase
		);
		assert_noop!(reveal_threshold(13, id, f32::NAN), Error::<T>::InvalidThreshold);
		let before = [11, 12, 13].map(|v| Balances::total_balance(&v));
		assert_ok!(reveal_threshold(11, id, 1.0));
		assert_ok!(reveal_threshold(12, id, 3.0));
		assert_eq!(task(id).phase, Phase::ProfileReveal, "13 still to reveal");
		assert_noop!(
			TaskPallet::cancel_task(RuntimeOrigin::signed(1), id),
			Error::<T>::ProfilersAtWork
		);
		run_to(task(id).deadline);
		assert_eq!(task(id).threshold, Some(3.0f32.to_bits()), "the higher of two that agree");
		solver_drawn(id);
		let after = [11, 12, 13].map(|v| Balances::total_balance(&v));
		assert_eq!(after, [before[0] + pay, before[1] + pay, before[2] - 20]);
		assert!(ProfileCommitments::<T>::get(id).is_empty(), "nothing left behind");
		check();
	});
}

/// The last profiler to reveal chooses its reveal's block, and the solver used to be drawn
/// in it, from a beacon the profiler knew: it could hand a stranger's task to a partner
/// solver, with a threshold it had seen first. The solver draw waits for randomness made
/// after the reveal and moves itself once, so blocks the profiler cannot line up decide it.
#[test]
fn the_last_reveal_does_not_choose_who_solves_the_task() {
	let solver_with = |later: u8| {
		ExtBuilder::default().profile(4).build().execute_with(|| {
			let id = profiled_among(&[11, 12, 13]);
			for s in 14..=19 {
				reg(s, Role::Solver);
			}
			DELAY.with(|d| *d.borrow_mut() = 10);
			post_profiles(id, &[(11, 1.0), (12, 2.0), (13, 3.0)]);
			let end = frame_system::Pallet::<T>::block_number();
			let due = end + 10;
			let t = task(id);
			assert_eq!((t.phase, t.deadline, t.solver), (Phase::Queued, due, None), "none yet");
			assert_eq!(MovedDraw::<T>::get(id), Some((due, end)));
			line_up(end, due, later);
			run_to(due);
			if task(id).phase == Phase::Queued {
				run_to(task(id).deadline);
			}
			solver_drawn(id);
			check();
			task(id).solver.unwrap()
		})
	};
	let outcomes: std::collections::BTreeSet<_> = (1..=8).map(solver_with).collect();
	assert!(outcomes.len() > 1, "the blocks up to the deadline decided it: {outcomes:?}");
}
