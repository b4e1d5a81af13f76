//! Collateral in proportion to the pay at risk: a task paying its solver more than a
//! bond unit's pay counts several units. Each test sets the unit so that the MNIST MLP
//! example counts three.

use super::*;

/// Has the example's spec count three bond units; returns the solver's pay.
fn three_units() -> u64 {
	let pay = TaskPallet::quote(&exact()).unwrap().solver_pay;
	assert_eq!(TaskPallet::quote(&exact()).unwrap().bond_units, 1, "the default unit");
	set_pay_per_bond_unit(pay.div_ceil(3));
	assert_eq!(TaskPallet::bond_units(pay), 3);
	// A client sees the units before it submits.
	assert_eq!(TaskPallet::quote(&exact()).unwrap().bond_units, 3);
	pay
}

fn engaged(who: u64) -> u32 {
	pallet_gensyn_stake::Engagements::<T>::get(who).units
}

#[test]
fn units_count_each_started_unit_of_pay() {
	new_test_ext().execute_with(|| {
		assert_eq!(TaskPallet::bond_units(0), 1, "one at least");
		assert_eq!(TaskPallet::bond_units(1_000), 1, "one while the unit is larger");
		set_pay_per_bond_unit(100);
		assert_eq!(TaskPallet::bond_units(100), 1);
		assert_eq!(TaskPallet::bond_units(101), 2, "a started unit counts");
		assert_eq!(TaskPallet::bond_units(1_000), 10);
		assert_eq!(TaskPallet::bond_units(u64::MAX), u32::MAX, "saturates");
		set_pay_per_bond_unit(0);
		assert_eq!(TaskPallet::bond_units(1_000), 1, "no unit: one");
	});
}

/// A solver whose bond covers two units is not offered a three-unit task: the draw is
/// spent (a task no solver's bond covers fails after its draws rather than wait for
/// ever). Once it bonds a third minimum bond it is offered it, and the task counts
/// three units on it until the task ends.
#[test]
fn a_valuable_task_is_offered_only_to_a_solver_whose_bond_covers_its_units() {
	new_test_ext().execute_with(|| {
		three_units();
		reg_bonded(10, Role::Solver, 250);
		reg(11, Role::Verifier);
		reg(12, Role::Verifier);
		assert_ok!(TaskPallet::submit_task(RuntimeOrigin::signed(1), exact()));
		let id = last_task();
		assert_eq!(BondUnits::<T>::get(id), Some(3));
		assert_eq!(task(id).phase, Phase::Queued, "250 covers two of the 100 units");
		assert_eq!(task(id).draws, 1, "a draw spent");
		assert!(!events().iter().any(|e| matches!(e, Event::SolverDrawn { .. })));
		assert_ok!(Stake::bond_extra(RuntimeOrigin::signed(10), Role::Solver, 50));
		run_to(task(id).deadline);
		assert_eq!(task(id).solver, Some(10), "300 covers three");
		assert_eq!(engaged(10), 3);
		assert_ok!(TaskPallet::cancel_task(RuntimeOrigin::signed(1), id));
		assert_eq!(engaged(10), 0, "released with the units it was counted with");
		assert!(BondUnits::<T>::get(id).is_none());
		check();
	});
	new_test_ext().execute_with(|| {
		three_units();
		reg_bonded(10, Role::Solver, 250);
		let id = submitted_with(exact());
		run_to(40);
		assert!(Tasks::<T>::get(id).is_none());
		assert!(events().iter().any(|e| matches!(
			e,
			Event::TaskFailed { id: i, reason: FailReason::NoSolver, .. } if *i == id
		)));
		assert_eq!(escrow_held(1), 0, "refunded");
		check();
	});
}

/// A solver whose bond covers the units but is engaged in another valuable task as much
/// as it covers is busy: the task waits without spending its draws, and is offered to
/// it once the other task ends.
#[test]
fn a_solver_engaged_up_to_its_bond_is_busy_for_a_valuable_task() {
	new_test_ext().execute_with(|| {
		three_units();
		reg_bonded(10, Role::Solver, 500);
		let first = submitted_with(exact());
		assert_eq!(task(first).solver, Some(10));
		assert_ok!(TaskPallet::submit_task(RuntimeOrigin::signed(2), exact()));
		let second = last_task();
		assert_eq!(task(second).phase, Phase::Queued, "3 + 3 units need 600");
		assert_eq!(task(second).draws, 0, "busy: no draw spent");
		assert_ok!(TaskPallet::cancel_task(RuntimeOrigin::signed(1), first));
		run_to(task(second).deadline);
		assert_eq!(task(second).solver, Some(10));
		assert_eq!(engaged(10), 3);
		check();
	});
}

/// Verifiers whose bond covers the units are drawn before others: over several draws,
/// one that covers two units never audits a three-unit task while two that cover it
/// can.
#[test]
fn a_verifier_whose_bond_covers_the_units_is_drawn_first() {
	for salt in 0..6 {
		ExtBuilder::default().salt(salt).build().execute_with(|| {
			three_units();
			reg_bonded(12, Role::Verifier, 100);
			reg_bonded(14, Role::Verifier, 150);
			let id = verifying_with(exact());
			let drawn: Vec<u64> = Audits::<T>::get(id).iter().map(|a| a.verifier).collect();
			assert!(!drawn.is_empty());
			assert!(drawn.iter().all(|v| *v == 11 || *v == 14), "salt {salt}: {drawn:?}");
			check();
		});
	}
}

/// A segment audited again goes, like a first audit, to a verifier whose bond covers
/// the task's units wherever one is on the list: a reporter cannot count on
/// its segment landing with one of the many small bonds beside the one that covers it.
#[test]
fn a_reauditor_whose_bond_covers_the_units_is_drawn_first() {
	for salt in 0..6 {
		ExtBuilder::default().salt(salt).build().execute_with(|| {
			three_units();
			// 11 and 12 (500 each) and 14 cover three units of 50; 15 and 16 do not.
			reg_bonded(14, Role::Verifier, 150);
			reg_bonded(15, Role::Verifier, 100);
			reg_bonded(16, Role::Verifier, 100);
			let id = verifying_with(exact());
			let audits = Audits::<T>::get(id);
			let drawn: Vec<u64> = audits.iter().map(|a| a.verifier).collect();
			assert!(drawn.iter().all(|v| [11, 12, 14].contains(v)), "salt {salt}: {drawn:?}");
			let first = audits[0].clone();
			super::unavailable::unpublishable();
			assert_ok!(TaskPallet::report_unavailable(
				RuntimeOrigin::signed(first.verifier),
				id,
				first.segment
			));
			for a in audits.iter().filter(|a| a.segment != first.segment) {
				pass(id, a.verifier, a.segment);
			}
			let reaudited = || {
				events().into_iter().find_map(|e| match e {
					Event::Reaudited { id: i, segment, verifier } if i == id => {
						Some((segment, verifier))
					}
					_ => None,
				})
			};
			for _ in 0..4 {
				if reaudited().is_some() {
					break;
				}
				run_to(task(id).deadline);
			}
			let (segment, by) = reaudited().expect("the reported segment is audited again");
			assert_eq!(segment, first.segment);
			assert!([11, 12, 14].contains(&by) && !drawn.contains(&by), "salt {salt}: {by}");
			check();
		});
	}
}

/// With no verifier whose bond covers the units, a trained task is still checked by
/// those that fit (never failed for want of a bond), and a wrong verdict takes what
/// the bond holds, up to the scaled slash.
#[test]
fn a_task_no_bond_covers_is_still_checked_by_those_that_fit() {
	new_test_ext().execute_with(|| {
		three_units();
		reg_bonded(11, Role::Verifier, 100);
		reg_bonded(12, Role::Verifier, 100);
		let id = verifying_with(exact());
		let a = Audits::<T>::get(id)[0].clone();
		verify_all(id, true);
		assert_ok!(TaskPallet::challenge(RuntimeOrigin::signed(13), id, a.segment));
		rule(id, a.segment, true);
		assert_eq!(Stake::bond(&a.verifier, Role::Verifier), 10, "90 of its 100");
		check();
	});
	new_test_ext().execute_with(|| {
		three_units();
		reg_bonded(11, Role::Verifier, 100);
		reg_bonded(12, Role::Verifier, 100);
		let id = verifying_with(exact());
		verify_all(id, true);
		run_to(task(id).deadline);
		assert!(events().iter().any(|e| matches!(e, Event::TaskCompleted { .. })));
		check();
	});
}

/// The attack: a solver fakes a valuable task and its bribed verifier passes the fake.
/// A whistleblower's game overturns the pass, the re-audit fails the fake, and each of
/// the pair is slashed three times what a one-unit task costs it.
#[test]
fn a_bribed_verifier_and_its_solver_lose_in_proportion_to_the_pay() {
	new_test_ext().execute_with(|| {
		three_units();
		reg(14, Role::Verifier);
		let id = verifying_with(exact());
		let a = Audits::<T>::get(id)[0].clone();
		let bribed = a.verifier;
		let pair = worth_of(&[10, bribed]);
		let (vb, sb) = (Stake::bond(&bribed, Role::Verifier), Stake::bond(&10, Role::Solver));
		verify_all(id, true);
		assert_ok!(TaskPallet::challenge(RuntimeOrigin::signed(13), id, a.segment));
		rule(id, a.segment, true);
		assert_eq!(Stake::bond(&bribed, Role::Verifier), vb - 3 * 30, "30 per unit");
		let audits = Audits::<T>::get(id);
		// The bribed verifier's other passes stand and are paid.
		let kept = audits.iter().filter(|x| x.verifier == bribed).count() as u64;
		let a = audits[0].clone();
		assert_ne!(a.verifier, bribed, "audited again by another");
		let p = proof_for(task(id).checkpoints, a.segment);
		let segment_pay = task(id).segment_pay;
		assert_ok!(TaskPallet::submit_verification(
			RuntimeOrigin::signed(a.verifier),
			id,
			a.segment,
			0x4000_0000,
			[0xee; 32],
			p
		));
		run_to(task(id).deadline);
		assert!(events()
			.iter()
			.any(|e| matches!(e, Event::ProofRejected { id: i, solver: 10, .. } if *i == id)));
		assert_eq!(Stake::bond(&10, Role::Solver), sb - 3 * 100, "100 per unit");
		assert!(
			worth_of(&[10, bribed]) + 3 * (30 + 100) <= pair + kept * segment_pay,
			"the pair loses both slashes in full"
		);
		assert!(Tasks::<T>::get(id).is_none(), "no other solver: the task failed");
		assert_eq!((engaged(10), engaged(bribed), engaged(13)), (0, 0, 0), "all released");
		check();
	});
}

/// An Exact-mode spec with two audited segments: both verifiers drawn audit one.
fn two_audits() -> TaskSpec {
	spec_with(|s| {
		s.verification.mode = VerificationMode::Exact;
		s.verification.audit_fraction = SpecPermill(200_000);
	})
}

/// The verifiers that audit task `id`, in the order of their segments.
fn auditors(id: TaskId) -> Vec<u64> {
	Audits::<T>::get(id).iter().map(|a| a.verifier).collect()
}

/// Two tasks of `units` bond units at once: the first is audited by 11 and 12, whose
/// bonds back one such audit each; 14 and 15 join with as much once it is drawn.
/// Returns the two tasks, both verifying.
fn two_valuable_tasks_at_once(units: u32) -> (TaskId, TaskId) {
	let bond = 50 * u64::from(units);
	reg_bonded(11, Role::Verifier, bond);
	reg_bonded(12, Role::Verifier, bond);
	let first = verifying_with(two_audits());
	assert_eq!(BondUnits::<T>::get(first), Some(units));
	let mut busy = auditors(first);
	busy.sort();
	assert_eq!(busy, vec![11, 12]);
	assert_eq!((audit_units(11), audit_units(12)), (units, units), "each bond backs its audit");
	reg_bonded(14, Role::Verifier, bond);
	reg_bonded(15, Role::Verifier, bond);
	let second = verifying_with(two_audits());
	(first, second)
}

/// The audit units the stake pallet counts on `who`.
fn audit_units(who: u64) -> u32 {
	pallet_gensyn_stake::Engagements::<T>::get(who).audits
}

/// A verifier's bond backs each audit in full: while bonds free to back an audit are on
/// the list, one that backs as many audits as it covers is passed over. Without the
/// rule, 11 and 12 would be drawn again for the second task as often as 14 and 15.
#[test]
fn an_auditor_is_drawn_among_bonds_free_to_back_the_audit() {
	for salt in 0..6 {
		ExtBuilder::default().salt(salt).build().execute_with(|| {
			three_units();
			let (first, second) = two_valuable_tasks_at_once(3);
			let drawn = auditors(second);
			assert!(drawn.iter().all(|v| [14, 15].contains(v)), "salt {salt}: {drawn:?}");
			assert_eq!((audit_units(11), audit_units(14), audit_units(15)), (3, 3, 3));
			// The first task's end frees its auditors' bonds.
			verify_all(first, true);
			run_to(task(first).deadline);
			assert!(Tasks::<T>::get(first).is_none());
			assert_eq!((audit_units(11), audit_units(12), audit_units(14)), (0, 0, 3));
			check();
		});
	}
}

/// With every bond busy, a trained result is still audited (never left waiting): the
/// draw takes a busy bond, as before audits locked them.
#[test]
fn busy_bonds_still_audit_when_none_is_free() {
	new_test_ext().execute_with(|| {
		three_units();
		reg_bonded(11, Role::Verifier, 150);
		reg_bonded(12, Role::Verifier, 150);
		let first = verifying_with(two_audits());
		let second = verifying_with(two_audits());
		let mut drawn = auditors(second);
		drawn.sort();
		assert_eq!(drawn, vec![11, 12]);
		assert_eq!((audit_units(11), audit_units(12)), (6, 6));
		verify_all(first, true);
		verify_all(second, true);
		run_to(task(second).deadline.max(task(first).deadline));
		assert_eq!(audit_units(11), 0, "released as each task settles");
		check();
	});
}

/// The attack: a solver fakes two valuable tasks at once, and two verifiers in league
/// with it, each bonded to back one audit, are drawn to audit the first and pass it.
/// They would pass the second too if drawn again; with their bonds busy, the second is
/// audited by free bonds, which fail the fake, and the coalition's balance falls. A bond
/// unit is a quarter of the rejected-proof slash, as in the runtime.
#[test]
fn a_coalition_that_fakes_tasks_at_once_loses_to_the_free_auditors() {
	for salt in 0..6 {
		ExtBuilder::default().salt(salt).build().execute_with(|| {
			let pay = TaskPallet::quote(&two_audits()).unwrap().solver_pay;
			set_pay_per_bond_unit(25);
			let units = TaskPallet::bond_units(pay);
			assert!(units > 1);
			reg_bonded(10, Role::Solver, 2 * 100 * u64::from(units));
			let coalition = [10, 11, 12];
			let start = worth_of(&coalition);
			let (first, second) = two_valuable_tasks_at_once(units);
			verify_all(first, true);
			// A coalition's verifier passes the fake; any other fails it.
			verify_each(second, |v| coalition.contains(&v));
			for _ in 0..4 {
				let live: Vec<_> = [first, second]
					.into_iter()
					.filter_map(|id| Tasks::<T>::get(id).map(|t| t.deadline))
					.collect();
				let Some(next) = live.into_iter().min() else { break };
				run_to(next);
			}
			assert!(Tasks::<T>::get(first).is_none() && Tasks::<T>::get(second).is_none());
			assert!(events().iter().any(
				|e| matches!(e, Event::ProofRejected { id, solver: 10, .. } if *id == second)
			));
			assert!(worth_of(&coalition) < start, "salt {salt}: the coalition gains");
			check();
		});
	}
}

/// A verifier silent on a valuable task is slashed per unit too: silence costs what a
/// wrong verdict costs, so it is never the cheaper way out of a replay.
#[test]
fn a_silent_verifier_of_a_valuable_task_is_slashed_per_unit() {
	new_test_ext().execute_with(|| {
		three_units();
		let id = verifying();
		let v = Audits::<T>::get(id)[0].verifier;
		let bond = Stake::bond(&v, Role::Verifier);
		run_to(task(id).deadline);
		assert_eq!(Stake::bond(&v, Role::Verifier), bond - 3 * 20);
		check();
	});
}

/// One minimum whistleblower bond could open any number of games: past its first losses
/// the bond was spent, and the honest defenders of the other games played for nothing
/// but the game bond. A whistleblower's bond must cover the false-challenge slash of
/// every game it has open: with two slashes bonded it opens two games at once, each honest
/// defender is paid its share of the slash, and the spammer loses both slashes.
#[test]
fn a_whistleblowers_games_at_once_are_limited_by_its_bond() {
	new_test_ext().execute_with(|| {
		let id = verifying_with(spec_with(|s| {
			s.verification.audit_fraction = SpecPermill(1_000_000);
		}));
		verify_all(id, true);
		let audits = Audits::<T>::get(id);
		assert!(audits.len() >= 3, "three verdicts to challenge");
		let slash: u64 = <<T as Config>::FalseChallengeSlash as Get<u64>>::get();
		reg_bonded(15, Role::Whistleblower, 2 * slash);
		let (spammer, defenders) = (worth(15), worth_of(&[11, 12]));
		for a in &audits[..2] {
			assert_ok!(TaskPallet::challenge(RuntimeOrigin::signed(15), id, a.segment));
		}
		assert_noop!(
			TaskPallet::challenge(RuntimeOrigin::signed(15), id, audits[2].segment),
			Error::<T>::ChallengesExceedBond
		);
		// Another whistleblower's real challenge is not held up by it.
		assert_ok!(TaskPallet::challenge(RuntimeOrigin::signed(13), id, audits[2].segment));
		assert_eq!(OpenChallenges::<T>::get(15), 2);
		check();
		// One game lost frees no room: what is left of the bond covers the one still open.
		assert_ok!(<TaskPallet as DisputeOutcome>::resolve(id, audits[0].segment, false));
		assert_eq!(OpenChallenges::<T>::get(15), 1);
		assert!(!TaskPallet::covers_another_game(&15, 1));
		assert_ok!(<TaskPallet as DisputeOutcome>::resolve(id, audits[1].segment, false));
		assert_eq!(OpenChallenges::<T>::get(15), 0);
		assert!(!TaskPallet::covers_another_game(&15, 1), "its bond is spent");
		assert_ok!(Stake::bond_extra(RuntimeOrigin::signed(15), Role::Whistleblower, 2 * slash));
		assert!(TaskPallet::covers_another_game(&15, 1), "bonded again, it may challenge");
		let share: u64 =
			<<T as pallet_gensyn_stake::Config>::ReporterShare as Get<Perbill>>::get() * slash;
		assert!(share > 0);
		assert_eq!(worth(15), spammer - 2 * slash, "the spammer loses both slashes");
		assert_eq!(worth_of(&[11, 12]), defenders + 2 * share, "each defender is paid a share");
		check();
	});
}

/// No path ends a task with a game open; should one ever (a deadline whose handling
/// fails, which fails the task), its games are cancelled and their challengers may open
/// others.
#[test]
fn a_task_ended_with_a_game_open_frees_its_challenger() {
	new_test_ext().execute_with(|| {
		let id = verifying();
		verify_all(id, true);
		let a = Audits::<T>::get(id)[0].clone();
		assert_ok!(TaskPallet::challenge(RuntimeOrigin::signed(13), id, a.segment));
		assert_eq!(OpenChallenges::<T>::get(13), 1);
		let mut t = task(id);
		TaskPallet::fail(id, &mut t, FailReason::NoVerifier);
		assert_eq!(OpenChallenges::<T>::get(13), 0);
		assert!(DISPUTES.with(|d| d.borrow().is_empty()), "the game is cancelled");
		check();
	});
}

/// After [`submitted`], registers 14 in `role` with `big` and the splitter's 15..=18 with
/// `small` each, draws 3,000 times with `draw` (the task and a subject) and returns the
/// splitter's share of the draws and 14's.
fn split_shares(
	role: Role,
	big: u64,
	small: u64,
	draw: impl Fn(TaskId, &Task<T>, &[u8]) -> u64,
) -> (f64, f64) {
	let id = submitted();
	reg_bonded(14, role, big);
	for who in 15..=18 {
		reg_bonded(who, role, small);
	}
	let t = task(id);
	let n = 3_000u32;
	let mut drawn = [0u32; 19];
	for i in 0..n {
		drawn[draw(id, &t, &(b"split", i).encode()) as usize] += 1;
	}
	let share = |k: u32| f64::from(k) / f64::from(n);
	(share(drawn[15..=18].iter().sum()), share(drawn[14]))
}

/// Verifier-side draws weigh each worker by its bond: a party that splits its stake
/// among many minimum-bond accounts is drawn no more often than with the same stake in
/// one account, where uniform draws per account drew it once per account.
#[test]
fn a_stake_split_among_accounts_is_drawn_no_more_often() {
	new_test_ext().execute_with(|| {
		// Verifier 11 holds 500; 14 holds 800; the splitter's 15..=18 hold 50 each.
		let (split, big) = split_shares(Role::Verifier, 800, 50, |id, t, subject| {
			TaskPallet::draw_one(id, Role::Verifier, t, subject, |_| true).unwrap()
		});
		// By bond the splitter holds 200 of 1,500 (13%); by account it held 4 of 6 (67%).
		assert!((0.10..0.17).contains(&split), "the split stake drawn {split}");
		assert!((0.49..0.58).contains(&big), "800 of 1,500 drawn {big}");
	});
}

/// Solver draws weigh by bond as well. Drawn uniformly among the accounts with room, a
/// party splitting 400 into four minimum-bond solvers was offered two tasks in three
/// beside two solvers of 1,000 each; by bond it is offered a sixth, what its stake is.
#[test]
fn a_solvers_stake_split_among_accounts_is_drawn_no_more_often() {
	new_test_ext().execute_with(|| {
		// Solver 10 (1,000, drawn for this task and engaged in it) and 14 (1,000); the
		// splitter's 15..=18 hold the minimum, 100, each.
		let (split, big) =
			split_shares(
				Role::Solver,
				1_000,
				100,
				|id, t, subject| match TaskPallet::draw_with_room(
					id,
					Role::Solver,
					t,
					subject,
					|_| true,
				) {
					crate::draw::Drawn::Picked(who) => who,
					_ => panic!("every solver has room"),
				},
			);
		// The splitter holds 4 of 24 minimum bonds (17%); by account it held 4 of 6.
		assert!((0.13..0.21).contains(&split), "the split stake drawn {split}");
		assert!((0.37..0.46).contains(&big), "10 of 24 drawn {big}");
	});
}

/// Played through whole tasks to their pay, a party that splits its solver stake among
/// many minimum-bond accounts earns what the same stake earns in one account: its
/// accounts' balances grow by its stake's share of the solvers' pay, not by its share of
/// the accounts, which uniform draws paid it (six of eight here).
#[test]
fn a_split_solver_stake_earns_no_more_per_bonded_token() {
	new_test_ext().execute_with(|| {
		reg(11, Role::Verifier);
		reg(12, Role::Verifier);
		reg(13, Role::Whistleblower);
		let honest = [10u64, 14];
		for who in honest {
			reg_bonded(who, Role::Solver, 1_000);
		}
		// The splitter's 600 in six accounts of the minimum, 100.
		let split: Vec<u64> = (15..=20).collect();
		for &who in &split {
			reg_bonded(who, Role::Solver, 100);
		}
		let (split_before, honest_before) = (worth_of(&split), worth_of(&honest));
		let mut paid = 0;
		for k in 0..120u64 {
			assert_ok!(TaskPallet::submit_task(RuntimeOrigin::signed(1 + k % 5), spec()));
			let id = last_task();
			let pay = task(id).solver_pay;
			let solver = train_as_solver(id);
			let before = worth(solver);
			verify_all(id, true);
			run_to(task(id).deadline);
			assert!(Tasks::<T>::get(id).is_none(), "task {id} settled");
			assert_eq!(worth(solver), before + pay, "task {id}'s solver paid");
			paid += pay;
		}
		let split_gain = worth_of(&split) - split_before;
		let honest_gain = worth_of(&honest) - honest_before;
		assert_eq!(split_gain + honest_gain, paid, "every pay went to a solver");
		// Per bonded token the split earns less than twice what the single accounts earn:
		// 6 of 26 minimum bonds is a 23% share, and drawn by bond the ratio is 0.97 here;
		// drawn by account (a 75% share) it was 12.7.
		let per_token = |gain: u64, bond: u64| gain as f64 / bond as f64;
		let ratio = per_token(split_gain, 600) / per_token(honest_gain, 2_000);
		assert!(split_gain > 0 && ratio < 2.0, "split {split_gain}, single {honest_gain}");
	});
}

/// With equal bonds the weighted pick is the uniform one, index for index.
#[test]
fn equal_bonds_are_drawn_uniformly_by_index() {
	new_test_ext().execute_with(|| {
		for x in 0..20u64 {
			let mut pool: Vec<(u64, u64)> = (1..=5).map(|a| (a, 70)).collect();
			let picked = TaskPallet::pick_covering(&mut pool, || x, 1, Role::Verifier);
			assert_eq!(picked, Some(x % 5 + 1));
		}
	});
}

/// The author of the block before a draw knows its randomness. Were a verifier weighed
/// by every planck of its bond, it could top its bond up by dust in that block, trying
/// amounts until its own account wins the draw; weighed in whole minimum bonds, a top-up
/// moves a draw only by adding a whole one (held, and slashable like the rest).
#[test]
fn a_dust_top_up_moves_no_draw() {
	new_test_ext().execute_with(|| {
		let id = submitted();
		reg_bonded(14, Role::Verifier, 800);
		// Two minimum bonds (50 each) and change.
		reg_bonded(15, Role::Verifier, 100);
		let draws = || {
			let t = task(id);
			(0..200u32)
				.map(|i| {
					let subject = (b"dust", i).encode();
					TaskPallet::draw_one(id, Role::Verifier, &t, &subject, |_| true).unwrap()
				})
				.collect::<Vec<u64>>()
		};
		let before = draws();
		for dust in [1, 7, 29] {
			assert_ok!(Stake::bond_extra(RuntimeOrigin::signed(15), Role::Verifier, dust));
			assert_eq!(draws(), before, "a top-up of {dust} moved a draw");
		}
		// A third whole minimum bond does.
		assert_ok!(Stake::bond_extra(RuntimeOrigin::signed(15), Role::Verifier, 13));
		assert_ne!(draws(), before);
	});
}

/// When the tries run out on busy covering bonds, the audit goes to the first of them,
/// never to a bond that does not cover the units: small accounts beside the busy large
/// ones must not be drawn for a valuable task because they outnumber the tries.
#[test]
fn a_draw_that_finds_no_free_bond_keeps_a_covering_one() {
	use pallet_gensyn_stake::StakeInterface;
	for salt in 0..8u64 {
		new_test_ext().execute_with(|| {
			// 1 and 2 cover three units (150) and audit as much already.
			for who in [1u64, 2] {
				Stake::note_engaged(&who, 3, true);
				Stake::note_auditing(&who, 3, true);
			}
			let small = 100u64..112;
			let mut pool: Vec<(u64, u64)> = vec![(1, 150), (2, 150)];
			pool.extend(small.clone().map(|who| (who, 50)));
			let mut rng = gensyn_primitives::order::SplitMix64(salt);
			let mut tries = crate::draw::ROOM_TRIES;
			let picked = TaskPallet::pick_auditor(&mut pool, || rng.next_u64(), 3, &mut tries);
			assert!(matches!(picked, Some(1) | Some(2)), "salt {salt}: {picked:?}");
			assert_eq!(pool.len(), 13, "those passed over are back");
		});
	}
}
