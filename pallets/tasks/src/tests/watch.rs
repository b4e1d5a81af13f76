//! The watch lottery: who may watch a round, what a ticket proves, and what a watcher's
//! challenge earns.

use super::*;

/// A task of half-audited segments with every segment forced, verifiers 11 and 12
/// drawn and `whistleblowers` registered before the draw.
fn drawn_with_whistleblowers(whistleblowers: &[u64]) -> TaskId {
	with_jackpot(sp_runtime::Perbill::one());
	let half = spec_with(|s| s.verification.audit_fraction = SpecPermill(500_000));
	let id = submitted_with(half);
	for who in [11, 12] {
		reg(who, Role::Verifier);
		commit(who);
	}
	for who in whistleblowers {
		reg(*who, Role::Whistleblower);
	}
	assert_ok!(TaskPallet::accept_task(RuntimeOrigin::signed(10), id));
	let (root, location) = (merkle::root(&leaves(8)), BoundedVec::default());
	let signed = RuntimeOrigin::signed(10);
	assert_ok!(TaskPallet::submit_result(signed, id, [9; 32], root, 8, location));
	run_to(3);
	assert_eq!(task(id).phase, Phase::Verifying);
	id
}

/// The first salt whose draw of a task watched by `whistleblowers` gives it the
/// `winners` that `wanted` accepts (the lottery is random; a test fixes its case).
fn salt_where(whistleblowers: &[u64], wanted: impl Fn(&[u64]) -> bool) -> u64 {
	(0..64)
		.find(|salt| {
			ExtBuilder::default()
				.salt(*salt)
				.build()
				.execute_with(|| wanted(&watchers(drawn_with_whistleblowers(whistleblowers))))
		})
		.expect("a salt that draws the case")
}

/// A verifier's own whistleblower account knows its forced segments without replaying.
/// Only a whistleblower that won the round's lottery (never its solver or verifiers,
/// even with a whistleblower's bond) may challenge a failing verdict before reveals
/// open, and only its challenge then earns a catch: the account can neither collect
/// the catch on its verifier's forced error nor take it from the watcher by
/// challenging first.
#[test]
fn a_verifiers_own_whistleblower_earns_no_catch_unless_it_won_the_lottery() {
	// The solver and both verifiers hold whistleblower bonds too.
	let all = [10, 11, 12, 13, 16];
	let salt = salt_where(&all, |w| w.len() == 1);
	ExtBuilder::default().salt(salt).build().execute_with(|| {
		let id = drawn_with_whistleblowers(&all);
		let watcher = watchers(id)[0];
		assert!([13, 16].contains(&watcher), "never the solver or a verifier: {watcher}");
		let own = if watcher == 13 { 16 } else { 13 };
		let audits = Audits::<T>::get(id);
		assert!(audits.len() > 1, "{audits:?}");
		let (a, b) = (audits[0].clone(), audits[1].clone());
		verify_all(id, false);
		let worth = |w: u64| Balances::total_balance(&w) + Stake::bond(&w, Role::Whistleblower);
		let (own_before, watcher_before) = (worth(own), worth(watcher));
		let pot = Balances::free_balance(JACKPOT);
		let other = if a.verifier == 11 { 12 } else { 11 };
		for who in [own, 10, other] {
			assert_noop!(
				TaskPallet::challenge(RuntimeOrigin::signed(who), id, a.segment),
				Error::<T>::NotWatcher
			);
			// A losing ticket, or one of a party to the task, proves nothing.
			assert_noop!(watch_challenge(who, id, a.segment), Error::<T>::NotWatcher);
		}
		// Nor does the watcher's own ticket in another's hands.
		assert_noop!(
			TaskPallet::watch_challenge(
				RuntimeOrigin::signed(own),
				id,
				a.segment,
				ticket(watcher, id)
			),
			Error::<T>::NotWatcher
		);
		assert_ok!(watch_challenge(watcher, id, b.segment));
		assert!(ChallengedAt::<T>::contains_key(id, b.segment), "the watcher's claim");
		rule(id, b.segment, true);
		reveal_all(id);
		assert_noop!(
			TaskPallet::challenge(RuntimeOrigin::signed(own), id, a.segment),
			Error::<T>::ForcedErrorRevealed
		);
		run_to(task(id).deadline);
		assert_eq!(worth(own), own_before, "the verifier's own account gained nothing");
		let catch = (pot - 1) / 10;
		assert_eq!(worth(watcher), watcher_before + catch, "the watcher is paid one catch");
		check();
	});
}

/// Nobody but a winner can tell that it won: the chain shows every whistleblower that
/// may watch the round its failing verdicts before reveals open, winner or not, and
/// names no watcher in storage or events (only the seed and the odds).
#[test]
fn a_rounds_watchers_are_known_to_nobody_before_they_challenge() {
	let salt = salt_where(&[13, 16], |w| w.len() == 1);
	ExtBuilder::default().salt(salt).build().execute_with(|| {
		let id = drawn_with_whistleblowers(&[13, 16]);
		verify_all(id, false);
		let watching = |w: u64| {
			TaskPallet::duties(&w).iter().filter(|d| matches!(d, Duty::Watch { .. })).count()
		};
		let n = Audits::<T>::get(id).len();
		assert_eq!((watching(13), watching(16)), (n, n), "the same duties, won or not");
		let draw = Watches::<T>::get(id).expect("a lottery");
		assert_eq!(draw.odds, u64::MAX / 2, "each of the two wins half the time");
		let named = events().iter().any(|e| match e {
			Event::WatchDrawn { id: i, seed, odds } => {
				*i == id && *seed == draw.seed && *odds == draw.odds
			}
			_ => false,
		});
		assert!(named, "the draw's event shows the seed and the odds only");
	});
}

/// Over many rounds each whistleblower that may watch wins about its share, whatever
/// the others hold: the lottery gives a coalition no more rounds than its accounts.
#[test]
fn each_whistleblower_wins_about_its_share_of_rounds() {
	let mut wins = [0u32; 4];
	for salt in 0..120 {
		ExtBuilder::default().salt(salt).build().execute_with(|| {
			let id = drawn_with_whistleblowers(&[13, 14, 15, 16]);
			for w in watchers(id) {
				wins[(w - 13) as usize] += 1;
			}
		});
	}
	// Each wins a quarter of 120 rounds: 30, and nearly always within 15 to 45.
	assert!(wins.iter().all(|n| (15..=45).contains(n)), "{wins:?}");
}

/// A watcher that challenged before richer accounts pushed it off the whistleblowers'
/// full active list keeps its claim, and its catch is paid; off the list it watches no
/// more (an account off the list was not counted in the odds). Nobody knows the
/// watchers, so outbidding cannot aim at one.
#[test]
fn a_watcher_pushed_off_the_active_list_keeps_its_catch_and_watches_no_more() {
	let salt = salt_where(&[13, 16], |w| !w.is_empty());
	ExtBuilder::default().salt(salt).build().execute_with(|| {
		let id = drawn_with_whistleblowers(&[13, 16]);
		let watcher = watchers(id)[0];
		let audits = Audits::<T>::get(id);
		verify_all(id, false);
		let worth = |w: u64| Balances::total_balance(&w) + Stake::bond(&w, Role::Whistleblower);
		let before = worth(watcher);
		let pot = Balances::free_balance(JACKPOT);
		assert_ok!(watch_challenge(watcher, id, audits[0].segment));
		// Higher bonds fill the list until the watcher gives way.
		let mut fillers = [2, 3, 4, 5, 6, 7, 8, 9, 14, 15].into_iter();
		while Stake::is_active(&watcher, Role::Whistleblower) {
			let who = fillers.next().expect("the watcher is pushed out");
			let endpoint = BoundedVec::truncate_from(b"http://w".to_vec());
			let (role, origin) = (Role::Whistleblower, RuntimeOrigin::signed(who));
			assert_ok!(Stake::register(origin, role, 300, cap(16_384), endpoint));
		}
		assert!(!watchers(id).contains(&watcher), "off the list, no longer a watcher");
		if let Some(b) = audits.get(1) {
			assert_noop!(watch_challenge(watcher, id, b.segment), Error::<T>::NotWatcher);
		}
		rule(id, audits[0].segment, true);
		reveal_all(id);
		run_to(task(id).deadline);
		assert_eq!(worth(watcher), before + (pot - 1) / 10, "the watcher is paid one catch");
		check();
	});
}

/// A dormant account that was on the list before the draw, pushed off it, and brought
/// back by a top-up once the seed was known (because its score wins) joins anew: it
/// takes no part in the lottery, whose odds never counted it.
#[test]
fn an_account_brought_back_onto_the_list_after_the_draw_never_watches() {
	let play = || {
		reg_bonded(16, Role::Whistleblower, 20);
		for who in [2, 3, 4, 5, 6, 7, 8, 9] {
			reg_bonded(who, Role::Whistleblower, 30);
		}
		assert!(!Stake::is_active(&16, Role::Whistleblower), "16 was pushed off");
		let id = drawn_with_whistleblowers(&[]);
		assert_ok!(Stake::bond_extra(RuntimeOrigin::signed(16), Role::Whistleblower, 100));
		assert!(Stake::is_active(&16, Role::Whistleblower), "back on the list");
		id
	};
	// A draw whose seed 16 scores a win on: it comes back for this one.
	let salt = (0..64)
		.find(|salt| {
			ExtBuilder::default().salt(*salt).build().execute_with(|| {
				let draw = Watches::<T>::get(play()).expect("a lottery");
				draw.won(score(16, &draw.seed))
			})
		})
		.expect("a salt");
	ExtBuilder::default().salt(salt).build().execute_with(|| {
		let id = play();
		verify_all(id, false);
		assert!(!watchers(id).contains(&16));
		let segment = Audits::<T>::get(id)[0].segment;
		assert_noop!(watch_challenge(16, id, segment), Error::<T>::NotWatcher);
	});
}

/// The solver and the verifiers of a task never watch it, whatever bonds they hold:
/// with no other whistleblower, the round has no lottery.
#[test]
fn the_solver_and_verifiers_never_watch_their_task() {
	new_test_ext().execute_with(|| {
		let id = drawn_with_whistleblowers(&[10, 11, 12]);
		assert_eq!(Watches::<T>::get(id), None);
		assert!(watchers(id).is_empty());
	});
}

/// Every verifier drawn stays silent, hoping that the verifiers drawn in their place
/// come with another lottery (one a partner of theirs wins): the round keeps its
/// lottery, so silence buys no new roll of it.
#[test]
fn silent_verifiers_buy_no_new_draw_of_the_lottery() {
	new_test_ext().execute_with(|| {
		let id = drawn_with_whistleblowers(&[13, 16]);
		let lottery = Watches::<T>::get(id).expect("a lottery is drawn");
		let drawn = |id: TaskId| {
			events()
				.iter()
				.filter(|e| matches!(e, Event::WatchDrawn { id: i, .. } if *i == id))
				.count()
		};
		assert_eq!(drawn(id), 1);
		let first: Vec<u64> = Audits::<T>::get(id).iter().map(|a| a.verifier).collect();
		// Fresh verifiers with commitments stand by; the drawn ones post nothing.
		for who in [14, 15] {
			reg(who, Role::Verifier);
			commit(who);
		}
		run_to(task(id).deadline);
		assert_eq!(task(id).phase, Phase::Verifying, "verifiers drawn again");
		let again: Vec<u64> = Audits::<T>::get(id).iter().map(|a| a.verifier).collect();
		assert!(again.iter().all(|v| !first.contains(v)), "{first:?} then {again:?}");
		assert_eq!(Watches::<T>::get(id), Some(lottery), "the same lottery");
		assert_eq!(drawn(id), 1, "never drawn again");
		check();
	});
}

/// A verifier's partner reads the lottery's seed from the draw's event and makes (or
/// searches keys for) an account that wins it, bonding it only then: a bond made after
/// the lottery's `bonded_by` takes no part, so its ticket counts for nothing, whatever
/// it scores (here every score wins: one whistleblower took part).
#[test]
fn an_account_bonded_after_the_seed_was_known_never_watches() {
	new_test_ext().execute_with(|| {
		let id = drawn_with_whistleblowers(&[13]);
		let draw = Watches::<T>::get(id).expect("a lottery");
		assert_eq!(draw.odds, u64::MAX, "one whistleblower: every score wins");
		reg(16, Role::Whistleblower);
		verify_all(id, false);
		let segment = Audits::<T>::get(id)[0].segment;
		assert!(!watchers(id).contains(&16));
		let worth16 = worth(16);
		assert_noop!(watch_challenge(16, id, segment), Error::<T>::NotWatcher);
		assert!(
			!TaskPallet::duties(&16).iter().any(|d| matches!(d, Duty::Watch { .. })),
			"not shown failing verdicts before reveals open"
		);
		assert_ok!(watch_challenge(13, id, segment));
		assert_eq!(worth(16), worth16);
	});
}

/// A verifier drawn for a round but given no segment (one audited segment, two drawn)
/// takes no part in the task: the odds count it among the whistleblowers, and it may
/// watch the round like any of them.
#[test]
fn a_verifier_drawn_for_no_segment_is_counted_and_may_watch() {
	new_test_ext().execute_with(|| {
		with_jackpot(sp_runtime::Perbill::one());
		let one = spec_with(|s| s.verification.audit_fraction = SpecPermill(1));
		let id = submitted_with(one);
		for who in [11, 12] {
			reg(who, Role::Verifier);
			commit(who);
			reg(who, Role::Whistleblower);
		}
		reg(13, Role::Whistleblower);
		assert_ok!(TaskPallet::accept_task(RuntimeOrigin::signed(10), id));
		let (root, location) = (merkle::root(&leaves(8)), BoundedVec::default());
		let signed = RuntimeOrigin::signed(10);
		assert_ok!(TaskPallet::submit_result(signed, id, [9; 32], root, 8, location));
		run_to(3);
		let audits = Audits::<T>::get(id);
		assert_eq!(audits.len(), 1, "{audits:?}");
		let idle = if audits[0].verifier == 11 { 12 } else { 11 };
		let draw = Watches::<T>::get(id).expect("a lottery");
		assert_eq!(draw.odds, u64::MAX / 2, "13 and the idle verifier are counted");
		assert!(TaskPallet::may_watch(id, &task(id), &draw, &idle));
		assert!(!TaskPallet::may_watch(id, &task(id), &draw, &audits[0].verifier));
	});
}
