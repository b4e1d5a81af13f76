//! Collateral in proportion to the pay at risk: a task's bond units.
//!
//! A fixed slash deters a cheat only while the pay it could take is small beside it. A
//! task counts one bond unit per started [`Config::PayPerBondUnit`] of its solver's pay
//! ([`BondUnits`], fixed at submission), and each unit weighs one minimum bond:
//!
//! - a solver is drawn only with room for the task's units on top of what it is
//!   engaged in (one bond cannot back several valuable fakes at once), each one tried
//!   in proportion to its bond among those whose bond covers the units;
//! - a verifier, re-auditor or profiler is drawn among those whose bond covers the
//!   task's units where any does, else among all that fit, in proportion to its bond
//!   ([`Pallet::pick_covering`]);
//! - an auditor (a verifier or re-auditor) is, moreover, one whose bond is free to back
//!   the audit where one tried is ([`Pallet::pick_auditor`]): its bond covers the units
//!   of every task it audits at once, so that one bond bribed on many tasks at once
//!   does not lose itself only once. Only audits lock a bond: profiles, which a
//!   submitter can call for cheaply, do not, so that keeping honest verifiers busy
//!   costs it trained tasks whose units tie their bonds up. A busy bond is passed
//!   over, never waited for: with none free the first one tried audits;
//! - a rejected proof, a wrong verdict and a missed verdict or profile are slashed per
//!   unit, so a cheat on a task worth ten units risks ten slashes.
//!
//! Slashes that guard time, not pay (a missed accept, result or reveal, a false
//! challenge), do not scale with the pay. A whistleblower's open games are limited by its
//! bond instead: each must leave its false-challenge slash covered
//! ([`Pallet::covers_another_game`]). A false challenge of a verdict that survived a game
//! is slashed more, up to a minimum bond ([`Pallet::false_challenge_units`]).

use crate::*;
use sp_runtime::traits::One;

impl<T: Config> Pallet<T> {
	/// The bond units of a task paying its solver `pay`: one per started
	/// `PayPerBondUnit`, at least one (and one when the unit is zero).
	pub fn bond_units(pay: BalanceOf<T>) -> u32 {
		let unit = T::PayPerBondUnit::get();
		if unit.is_zero() {
			return 1;
		}
		let whole = pay / unit;
		let started = if (pay % unit).is_zero() { whole } else { whole.saturating_add(One::one()) };
		started.saturated_into::<u32>().max(1)
	}

	/// The bond units task `id` counts ([`BondUnits`]; one without an entry).
	pub(crate) fn units(id: TaskId) -> u32 {
		BondUnits::<T>::get(id).unwrap_or(1).max(1)
	}

	/// `amount` once per bond unit of task `id`: the slash of a fault in it.
	pub(crate) fn per_unit(id: TaskId, amount: BalanceOf<T>) -> BalanceOf<T> {
		amount.saturating_mul(Self::units(id).into())
	}

	/// Takes one worker from `pool` (each with its bond) for a task of `units` bond
	/// units: among those whose `role` bond covers the units when any does, else among
	/// all, each with a chance in proportion to its bond counted in whole minimum bonds,
	/// so that a stake split among many accounts is drawn for one seat no more often than
	/// the same stake in one. Whole minimum bonds, because the author of the block before
	/// a draw knows its randomness: were every planck counted, it could top a bond up by
	/// dust in that block, trying amounts until its own account wins. With equal weights
	/// this is the uniform pick at index `next()` modulo their number. None only when the
	/// pool is empty. A covering bond is preferred, never required: a trained result
	/// must not wait on large bonds, and a list diluted with small ones would then fail
	/// trained tasks unchecked.
	pub(crate) fn pick_covering(
		pool: &mut Vec<(T::AccountId, BalanceOf<T>)>,
		next: impl FnMut() -> u64,
		units: u32,
		role: Role,
	) -> Option<T::AccountId> {
		Self::take_covering(pool, next, units, role).map(|(who, _)| who)
	}

	/// [`Self::pick_covering`]'s pick, with its bond.
	pub(crate) fn take_covering(
		pool: &mut Vec<(T::AccountId, BalanceOf<T>)>,
		mut next: impl FnMut() -> u64,
		units: u32,
		role: Role,
	) -> Option<(T::AccountId, BalanceOf<T>)> {
		let min = T::Stake::min_bond(role);
		let needed = min.saturating_mul(units.max(1).into());
		let covering = pool.iter().any(|(_, b)| *b >= needed);
		let weight = |b: BalanceOf<T>| {
			let whole = if min.is_zero() { b } else { b / min };
			whole.saturated_into::<u128>().max(1)
		};
		let eligible: Vec<(usize, u128)> = pool
			.iter()
			.enumerate()
			.filter(|(_, (_, b))| !covering || *b >= needed)
			.map(|(i, (_, b))| (i, weight(*b)))
			.collect();
		let first = eligible.first()?.1;
		let at = if eligible.iter().all(|(_, w)| *w == first) {
			(next() % eligible.len() as u64) as usize
		} else {
			// 128 random bits: a total far below 2^128 makes the modulo's bias nil.
			let total = eligible.iter().fold(0u128, |t, (_, w)| t.saturating_add(*w)).max(1);
			let r = ((u128::from(next()) << 64) | u128::from(next())) % total;
			let mut below = 0u128;
			eligible
				.iter()
				.position(|(_, w)| {
					below = below.saturating_add(*w);
					r < below
				})
				.unwrap_or(eligible.len() - 1)
		};
		let (i, _) = *eligible.get(at)?;
		Some(pool.swap_remove(i))
	}

	/// Takes a verifier from `pool` for an audit of a task of `units` bond units as
	/// [`Self::pick_covering`] does, but one whose bond is free to back it: it covers
	/// the units of the tasks it audits already ([`StakeInterface::audit_units`]) and
	/// these. Each covering candidate tried costs a read of its audit units, and a draw
	/// has `tries` of them in all. When none of those tried is free, the first one tried
	/// audits, as [`Self::pick_covering`] alone would have drawn it: a trained result
	/// never waits on busy verifiers, and a busy covering bond is still preferred to
	/// one that does not cover the units. With no try left, the pick is
	/// [`Self::pick_covering`]'s. Those passed over go back to the pool.
	pub(crate) fn pick_auditor(
		pool: &mut Vec<(T::AccountId, BalanceOf<T>)>,
		mut next: impl FnMut() -> u64,
		units: u32,
		tries: &mut u32,
	) -> Option<T::AccountId> {
		let min = T::Stake::min_bond(Role::Verifier);
		let needed = min.saturating_mul(units.max(1).into());
		let mut passed: Vec<(T::AccountId, BalanceOf<T>)> = Vec::new();
		let mut picked = None;
		while *tries > 0 {
			let Some((who, bond)) = Self::take_covering(pool, &mut next, units, Role::Verifier)
			else {
				break;
			};
			if bond < needed {
				// No covering bond is left untried (the pick prefers them): a smaller
				// one cannot be free, and is taken only when none covers at all.
				if passed.is_empty() {
					picked = Some(who);
				} else {
					pool.push((who, bond));
				}
				break;
			}
			*tries = tries.saturating_sub(1);
			let locked = T::Stake::audit_units(&who).saturating_add(units.max(1));
			if bond >= min.saturating_mul(locked.into()) {
				picked = Some(who);
				break;
			}
			passed.push((who, bond));
		}
		let picked = match picked {
			Some(who) => Some(who),
			None if !passed.is_empty() => Some(passed.remove(0).0),
			None => Self::pick_covering(pool, next, units, Role::Verifier),
		};
		pool.append(&mut passed);
		picked
	}

	/// Whether the whistleblower bond of `who` covers the false-challenge slashes of one
	/// more game, of `units` ([`Self::false_challenge_units`]), on top of those its open
	/// games risk. Without the rule one minimum bond could open any number of games:
	/// past the first losses its bond is spent, and the honest defenders of the rest
	/// play for nothing but the game bond.
	pub(crate) fn covers_another_game(who: &T::AccountId, units: u32) -> bool {
		let bond = T::Stake::bond(who, Role::Whistleblower);
		Self::bond_covers_games(bond, OpenChallenges::<T>::get(who), units)
	}

	/// The rule itself, for workers too: whether a whistleblower bond of `bond` covers
	/// the false-challenge slashes its open games risk (`open`) and those of one more
	/// game (`units`). A lost game takes its slashes off the bond and off the count, so
	/// only a game won or voided (or more bond) makes room.
	pub fn bond_covers_games(bond: BalanceOf<T>, open: u32, units: u32) -> bool {
		let slashes = open.saturating_add(units);
		bond >= T::FalseChallengeSlash::get().saturating_mul(slashes.into())
	}

	/// How many `FalseChallengeSlash`s a whistleblower risks in a game over `audit`'s
	/// verdict: one, and one more for each game the verdict survived ([`Survived`]), up
	/// to what a minimum bond covers ([`Self::units_of`]).
	pub(crate) fn false_challenge_units(id: TaskId, audit: &Audit<T::AccountId>) -> u32 {
		Self::units_of(Survived::<T>::get(id, audit.segment), &audit.verifier)
	}

	/// The rule itself, for workers too: the slashes a false challenge of `verifier`'s
	/// verdict risks, given the segment's [`Survived`] entry (another verifier's entry
	/// counts a verdict since voided). A lost game reopens the window (see
	/// [`Self::keep_window_open`]) and its loser may challenge first again: at one slash
	/// a game a coalition held a verdict for a few GSN a game. A held verdict's next
	/// game risks more, but never more than a minimum bond covers: asking more of a
	/// challenger would let a coalition raise a wrong pass's count, stop, and leave it
	/// to stand with every small bond refused; and fresh minimum bonds would pay no more.
	pub fn units_of(survived: Option<(T::AccountId, u32)>, verifier: &T::AccountId) -> u32 {
		let games = Self::games_survived(survived, verifier);
		let slash = T::FalseChallengeSlash::get();
		let most = if slash.is_zero() {
			1
		} else {
			(T::Stake::min_bond(Role::Whistleblower) / slash).saturated_into::<u32>().max(1)
		};
		games.saturating_add(1).min(most)
	}

	/// The games `verifier`'s verdict survived, given its segment's [`Survived`] entry
	/// (another verifier's entry counts a verdict since voided: none).
	pub(crate) fn games_survived(
		survived: Option<(T::AccountId, u32)>,
		verifier: &T::AccountId,
	) -> u32 {
		match survived {
			Some((v, k)) if v == *verifier => k,
			_ => 0,
		}
	}

	/// Whether `who`, the solver of task `id` with `audits`, contests on its stake (the
	/// game holds no game bond of its): its solver bond covers what its engagements could
	/// be slashed (a rejected proof's slash, or a minimum bond, a unit) and, past that,
	/// the false-challenge slash of each contest of its open on the task and of this one.
	/// Then a lost contest costs it stake that a rejection would not take anyway, and an
	/// honest solver whose free balance is spent still contests. A bond its rejection
	/// would take whole backs nothing more: a faker's lost contests would cost it
	/// nothing, so its game holds a game bond as any challenger's does. Each open contest
	/// engages the solver again (so that it cannot withdraw while the game runs); this
	/// task's count here at its slash, not at the task's units, while a contest open on
	/// another of its tasks counts as those units (more than its slash).
	pub(crate) fn stake_backs_contest(
		id: TaskId,
		who: &T::AccountId,
		audits: &[Audit<T::AccountId>],
	) -> bool {
		let open = audits.iter().filter(|a| a.challenger.as_ref() == Some(who)).count();
		let open = u32::try_from(open).unwrap_or(u32::MAX);
		let contesting = open.saturating_mul(Self::units(id));
		let units = T::Stake::engaged_units(who).saturating_sub(contesting);
		let per_unit = T::RejectedProofSlash::get().max(T::Stake::min_bond(Role::Solver));
		let engaged = per_unit.saturating_mul(units.into());
		let contests = T::FalseChallengeSlash::get().saturating_mul(open.saturating_add(1).into());
		T::Stake::bond(who, Role::Solver) >= engaged.saturating_add(contests)
	}

	/// Whether `who`'s games on a task solved by `solver` count among its open
	/// challenges: not when it is that solver, contesting a fail on its own task, whose
	/// false contests its solver bond covers.
	pub(crate) fn counts_as_challenger(solver: Option<&T::AccountId>, who: &T::AccountId) -> bool {
		solver != Some(who)
	}

	/// Counts the `units` slashes that a game `who` opened on `task` (`open`), or one that
	/// ended, risks in its [`OpenChallenges`] unless it is the task's solver
	/// ([`Self::counts_as_challenger`]).
	pub(crate) fn note_challenge(task: &Task<T>, who: &T::AccountId, units: u32, open: bool) {
		if !Self::counts_as_challenger(task.solver.as_ref(), who) {
			return;
		}
		OpenChallenges::<T>::mutate_exists(who, |n| {
			let v = n.unwrap_or(0);
			let v = if open { v.saturating_add(units) } else { v.saturating_sub(units) };
			*n = (v > 0).then_some(v);
		});
	}
}
