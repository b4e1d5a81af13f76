//! Draws: the solver of a task, its audited segments and their verifiers, and the new
//! verifiers of segments audited again. Every draw reads the runtime's randomness with a
//! subject naming the task and the draw, and never picks the task's owner.

use crate::*;
use sp_runtime::traits::UniqueSaturatedInto;

/// Candidates a pick tries, each drawn afresh among those not yet tried, before it
/// finds the role's workers busy (every bond it tried backs as many tasks as it
/// covers): bounds a draw's reads of bonds and engagement counts. A draw of auditors
/// has as many tries in all.
pub const ROOM_TRIES: u32 = 8;

/// What a draw among workers found.
pub(crate) enum Drawn<AccountId> {
	/// A worker whose bond covers one more engagement.
	Picked(AccountId),
	/// Workers fit, but every one tried is engaged as much as its bond covers: the task
	/// waits for one to be free, and the draw is not spent.
	Busy,
	/// No worker fits.
	Nobody,
}

/// Who could check a task's result ([`Pallet::checkers`]).
pub(crate) enum Checkers<AccountId> {
	/// No verifier fits the task.
	Nobody,
	/// Exactly one does: it cannot check its own result as the task's solver.
	AllBut(AccountId),
	/// Two or more do: whoever solves it, another can check.
	Anyone,
}

impl<T: Config> Pallet<T> {
	/// Folds the last block's randomness into the [`Beacon`]. A block's randomness is its
	/// author's VRF output, which the author can compute for each of its slots in advance:
	/// a validator could commit where the block that decides its draw is its own. The
	/// beacon a draw reads `RandomnessDelay` blocks after a commitment folds in the outputs
	/// of every block in between, so that no single author knows it at the commitment
	/// unless it authors all of them. No randomness (the chain's first block), or the same
	/// as last folded (a block without a VRF output leaves BABE's value as it was), adds
	/// nothing: the beacon stays as it was, and a draw waiting for a new value waits on.
	pub(crate) fn fold_beacon(now: BlockNumberFor<T>) {
		let (r, _) = T::Randomness::random(b"gensyn/beacon");
		let raw = sp_crypto_hashing::blake2_256(r.as_ref());
		let (before, _, last) = Beacon::<T>::get().unwrap_or_default();
		if r == T::Hash::default() || raw == last {
			return;
		}
		Beacon::<T>::put((sp_crypto_hashing::blake2_256(&(before, r).encode()), now, raw));
	}

	/// Blocks from a commitment to the draw it waits for ([`Config::RandomnessDelay`], at
	/// least 2: the commitment's own block, whose randomness its sender may know, is
	/// folded at the next one, and the draw needs one more).
	pub(crate) fn randomness_delay() -> BlockNumberFor<T> {
		T::RandomnessDelay::get().max(2u32.into())
	}

	/// A hash of `subject` and the [`Beacon`], and the block since which it is known
	/// (zero before the first fold).
	pub(crate) fn random_hash(subject: &[u8]) -> ([u8; 32], BlockNumberFor<T>) {
		let (beacon, known_since, _) = Beacon::<T>::get().unwrap_or_default();
		(sp_crypto_hashing::blake2_256(&(subject, beacon).encode()), known_since)
	}

	/// The blocks a draw due at a deadline someone chose (by committing a result, or by
	/// ending a game) moves itself by, read from the beacon then: up to
	/// `RandomnessDelay - 2`. The author of the block before a draw knows the draw and may
	/// withhold its block for another roll; moved by a value nobody knew when the
	/// deadline was set, that block is not one the chooser can make its own. `tag` (a
	/// byte array, encoded as its bytes) keeps the two draws' values apart.
	pub(crate) fn jitter(tag: impl Encode, id: TaskId) -> BlockNumberFor<T> {
		let span: u64 =
			Self::randomness_delay().saturating_sub(1u32.into()).unique_saturated_into();
		let (x, _) = Self::random_u64(&(tag, id).encode());
		(x % span.max(1)).saturated_into()
	}

	/// Files task `id`'s deadline at `at` for a draw whose time a party chose by when it
	/// acted, at block `acted` (ending a game, revealing, deciding a threshold): there the
	/// draw waits for randomness made after `acted` and moves itself once
	/// ([`Self::move_draw`]).
	pub(crate) fn file_moved_draw(
		id: TaskId,
		task: &mut Task<T>,
		at: BlockNumberFor<T>,
		acted: BlockNumberFor<T>,
	) {
		task.deadline = Self::schedule(id, at);
		MovedDraw::<T>::insert(id, (task.deadline, acted));
	}

	/// Files task `id`'s settlement at its window's end. The settlement draws (the
	/// re-audit of an unrevealed verdict, the next solver after a rejected proof), and the
	/// window's end was set by a party's act a challenge period or more before it (the
	/// last verdict, a late reveal, a ruling): a verifier that is also a block author
	/// could time its verdict so that the block before the settlement is its own. So it
	/// moves itself once, as every draw a party timed does. `acted` is the block of that
	/// act where the caller knows it; else the window's end less a challenge period, no
	/// earlier.
	pub(crate) fn file_settlement(
		id: TaskId,
		task: &mut Task<T>,
		acted: Option<BlockNumberFor<T>>,
	) {
		let end = task.window_end;
		let acted = acted.unwrap_or_else(|| end.saturating_sub(T::ChallengePeriod::get()));
		Self::file_moved_draw(id, task, end, acted);
		task.window_end = task.deadline;
	}

	/// A deadline filed by [`Self::file_moved_draw`] is due: until the beacon has folded
	/// a block made after the act, the draw waits (a retry period at a time); then it
	/// moves itself once, by [`Self::jitter`] blocks read from the beacon now. The party
	/// that acted, if also a block author, could otherwise time its act so that the block
	/// before the draw is its own, and withhold that block for another roll.
	/// Returns whether it waited or moved (else the deadline is handled as any other).
	pub(crate) fn move_draw(id: TaskId, task: &mut Task<T>, now: BlockNumberFor<T>) -> bool {
		let Some((at, acted)) = MovedDraw::<T>::take(id) else { return false };
		if at != task.deadline {
			return false;
		}
		let (_, known_since, _) = Beacon::<T>::get().unwrap_or_default();
		if known_since <= acted.saturating_add(1u32.into()) {
			let wait = T::RetryPeriod::get().max(1u32.into());
			Self::file_moved_draw(id, task, now.saturating_add(wait), acted);
			return true;
		}
		let jitter = Self::jitter(b"gensyn/reaudit-jitter", id);
		if jitter.is_zero() {
			return false;
		}
		task.deadline = Self::schedule(id, now.saturating_add(jitter));
		true
	}

	/// A u64 from the [`Beacon`] and a subject ([`Self::random_hash`]).
	pub(crate) fn random_u64(subject: &[u8]) -> (u64, BlockNumberFor<T>) {
		let (h, known_since) = Self::random_hash(subject);
		let mut b = [0u8; 8];
		for (d, s) in b.iter_mut().zip(h.iter()) {
			*d = *s;
		}
		(u64::from_le_bytes(b), known_since)
	}

	/// The active workers of `role` whose claimed memory fits the task and that
	/// `eligible` admits: never the task's owner nor a worker it excluded.
	/// Each comes with its bond, which weighs it in a verifier-side draw.
	pub(crate) fn fitting(
		role: Role,
		task: &Task<T>,
		eligible: impl Fn(&T::AccountId) -> bool,
	) -> Vec<(T::AccountId, BalanceOf<T>)> {
		T::Stake::active(role)
			.into_iter()
			.filter(|(a, c, _)| {
				c.memory_mib >= task.memory_mib
					&& *a != task.owner
					&& !task.excluded.contains(a)
					&& eligible(a)
			})
			.map(|(a, _, b)| (a, b))
			.collect()
	}

	/// One of [`Self::fitting`], drawn with randomness and `subject` in proportion to its
	/// bond: one whose bond covers task `id`'s bond units where any does
	/// ([`Self::pick_covering`]).
	pub(crate) fn draw_one(
		id: TaskId,
		role: Role,
		task: &Task<T>,
		subject: &[u8],
		eligible: impl Fn(&T::AccountId) -> bool,
	) -> Option<T::AccountId> {
		let mut pool = Self::fitting(role, task, eligible);
		let (x, _) = Self::random_u64(subject);
		Self::pick_covering(&mut pool, Self::indices(x), Self::units(id), role)
	}

	/// Like [`Self::draw_one`], but only a worker whose bond covers one more engagement
	/// in task `id` ([`StakeInterface::has_room`]): up to [`ROOM_TRIES`] candidates are
	/// tried, each in proportion to its bond among those left ([`Self::pick_covering`]'s
	/// pick), so that a stake split among accounts is drawn no more often than the same
	/// stake in one. Busy when a worker tried covers the task's units but is engaged too
	/// much to take it now; none tried covering them is a draw spent.
	pub(crate) fn draw_with_room(
		id: TaskId,
		role: Role,
		task: &Task<T>,
		subject: &[u8],
		eligible: impl Fn(&T::AccountId) -> bool,
	) -> Drawn<T::AccountId> {
		let mut pool = Self::fitting(role, task, eligible);
		let (x, _) = Self::random_u64(subject);
		let mut next = Self::indices(x);
		let units = Self::units(id);
		let needed = T::Stake::min_bond(role).saturating_mul(units.max(1).into());
		let mut covered = false;
		for _ in 0..ROOM_TRIES {
			let Some((who, bond)) = Self::take_covering(&mut pool, &mut next, units, role) else {
				break;
			};
			// The pick prefers covering bonds: past the first that does not cover, none
			// left does.
			if bond < needed {
				break;
			}
			covered = true;
			if T::Stake::has_room(&who, role, units) {
				return Drawn::Picked(who);
			}
		}
		if covered {
			Drawn::Busy
		} else {
			Drawn::Nobody
		}
	}

	/// Indices to try drawn from `x`: `x` itself, then a stream seeded with it.
	pub(crate) fn indices(x: u64) -> impl FnMut() -> u64 {
		let mut rng = gensyn_primitives::order::SplitMix64(x);
		let mut first = Some(x);
		move || first.take().unwrap_or_else(|| rng.next_u64())
	}

	/// Who could check the task's result: the active verifiers whose claimed memory fits
	/// it, other than its owner.
	pub(crate) fn checkers(task: &Task<T>) -> Checkers<T::AccountId> {
		let mut fits = T::Stake::active(Role::Verifier)
			.into_iter()
			.filter(|(a, c, _)| c.memory_mib >= task.memory_mib && *a != task.owner)
			.map(|(a, _, _)| a);
		match (fits.next(), fits.next()) {
			(None, _) => Checkers::Nobody,
			(Some(only), None) => Checkers::AllBut(only),
			(Some(_), Some(_)) => Checkers::Anyone,
		}
	}

	/// Draws a solver for the task among active solvers whose memory fits (never
	/// the owner nor an excluded solver) and whose result some verifier other than
	/// itself could check: no one trains what no verifier could check (the submitter
	/// would be refunded and could take the model from the solver's open store). With
	/// none, queues the task; after `MaxDraws` draws, fails it (`NoVerifier` when no
	/// verifier fits, `NoSolver` otherwise). Returns whether the task is still live.
	pub(crate) fn draw_solver(
		id: TaskId,
		task: &mut Task<T>,
		now: BlockNumberFor<T>,
	) -> Result<bool, DispatchError> {
		let checkers = Self::checkers(task);
		let checkable = |a: &T::AccountId| match &checkers {
			Checkers::Nobody => false,
			Checkers::AllBut(only) => a != only,
			Checkers::Anyone => true,
		};
		if task.draws >= T::MaxDraws::get() {
			// A solver fits but none whose result another could check: no verifier.
			let unchecked = Self::fitting(Role::Solver, task, checkable).is_empty()
				&& !Self::fitting(Role::Solver, task, |_| true).is_empty();
			let reason = if unchecked { FailReason::NoVerifier } else { FailReason::NoSolver };
			Self::fail(id, task, reason);
			return Ok(false);
		}
		task.draws = task.draws.saturating_add(1);
		let subject = (b"gensyn/solver", id, task.draws).encode();
		match Self::draw_with_room(id, Role::Solver, task, &subject, checkable) {
			Drawn::Picked(solver) => {
				let until = Self::schedule(id, now.saturating_add(T::AcceptPeriod::get()));
				Self::engage(id, task, &solver)?;
				task.solver = Some(solver.clone());
				task.phase = Phase::Offered;
				task.deadline = until;
				Self::deposit_event(Event::SolverDrawn { id, solver, until });
			}
			drawn => {
				if matches!(drawn, Drawn::Busy) {
					// Solvers fit but are busy: waiting for one is not a draw spent.
					task.draws = task.draws.saturating_sub(1);
				}
				task.deadline = Self::schedule(id, now.saturating_add(T::RetryPeriod::get()));
				task.phase = Phase::Queued;
				task.solver = None;
				Self::deposit_event(Event::Queued { id });
			}
		}
		Ok(true)
	}

	/// Draws the audited segments and their verifiers from randomness that did not
	/// exist at the commit. Returns whether the task is still live.
	pub(crate) fn draw_verifiers(
		id: TaskId,
		task: &mut Task<T>,
		now: BlockNumberFor<T>,
	) -> Result<bool, DispatchError> {
		let committed_at = task.result.as_ref().map(|r| r.committed_at).unwrap_or_else(Zero::zero);
		let first = committed_at.saturating_add(Self::randomness_delay());
		if task.deadline == first {
			let jitter = Self::jitter(b"gensyn/jitter", id);
			if !jitter.is_zero() {
				task.deadline = Self::schedule(id, now.saturating_add(jitter));
				return Ok(true);
			}
		}
		if task.draws >= T::MaxDraws::get() {
			Self::fail(id, task, FailReason::NoVerifier);
			return Ok(false);
		}
		let round = task.draws.saturating_add(1);
		let (seed, known_since) = Self::random_u64(&(b"gensyn/verify", id, round).encode());
		// The beacon must have folded a block after the commit's (whose output the
		// committer may have made): until then the draw waits, spending no draw.
		if known_since <= committed_at.saturating_add(1u32.into()) {
			let wait = T::RetryPeriod::get().max(1u32.into());
			task.deadline = Self::schedule(id, now.saturating_add(wait));
			return Ok(true);
		}
		task.draws = task.draws.saturating_add(1);
		let solver = task.solver.clone();
		let mut pool: Vec<(T::AccountId, BalanceOf<T>)> = T::Stake::active(Role::Verifier)
			.into_iter()
			.filter(|(a, c, _)| {
				c.memory_mib >= task.memory_mib
					&& Some(a) != solver.as_ref()
					&& *a != task.owner
					&& T::ForcedErrors::drawable(a)
			})
			.map(|(a, _, b)| (a, b))
			.collect();
		let mut rng = gensyn_primitives::order::SplitMix64(seed);
		let mut verifiers: Vec<T::AccountId> = Vec::new();
		let units = Self::units(id);
		let mut tries = ROOM_TRIES;
		for _ in 0..T::VerifiersPerTask::get().max(1) {
			let next = || rng.next_u64();
			match Self::pick_auditor(&mut pool, next, units, &mut tries) {
				Some(v) => verifiers.push(v),
				None => break,
			}
		}
		if verifiers.is_empty() {
			// No verifier fits: wait for one.
			let wait = T::RetryPeriod::get().max(1u32.into());
			task.deadline = Self::schedule(id, now.saturating_add(wait));
			return Ok(true);
		}
		let segments = task.checkpoints.saturating_sub(1).max(1);
		let mut audits: AuditsOf<T> = BoundedVec::default();
		let mut picked: Vec<(u32, T::AccountId)> = Vec::new();
		for j in 0..task.audits {
			let mut s = (rng.next_u64() % u64::from(segments)) as u32;
			// Linear probe to the next unused segment (audits <= segments).
			for _ in 0..task.audits {
				if !audits.iter().any(|a| a.segment == s) {
					break;
				}
				s = s.saturating_add(1) % segments;
			}
			let Some(v) = verifiers.get((j as usize) % verifiers.len().max(1)).cloned() else {
				break;
			};
			if audits.try_push(Audit::new(s, v.clone())).is_err() {
				break;
			}
			picked.push((s, v));
		}
		// Only the verifiers given a segment take part; one drawn for none stays out of
		// the task (and may watch it, as the lottery's odds count it).
		let assigned: Vec<T::AccountId> =
			verifiers.into_iter().filter(|v| picked.iter().any(|(_, p)| p == v)).collect();
		// Which segments are forced mixes in randomness made after every drawable
		// commitment: no secret was chosen for them.
		let (forcing, _) = Self::random_hash(&(b"gensyn/forced", id, round).encode());
		for v in &assigned {
			Self::engage_auditor(id, task, v)?;
			T::ForcedErrors::bind(v, id, forcing);
		}
		Self::draw_watch(id, task, &assigned, &mut rng);
		Audits::<T>::insert(id, audits);
		task.deadline = Self::schedule(id, now.saturating_add(T::VerifyPeriod::get()));
		task.phase = Phase::Verifying;
		Self::deposit_event(Event::VerifiersDrawn { id, audits: picked });
		Ok(true)
	}

	/// Draws the round's watch lottery ([`Watches`]): a seed from the beacon, and odds
	/// that give each whistleblower on the active list (never the task's owner, its
	/// solver nor one of its `verifiers`) `WatchersPerRound` chances in their number; of
	/// them, those on the list since `RandomnessDelay` blocks before now may watch
	/// ([`Pallet::may_watch`]).
	/// Nobody learns who won until a winner challenges. A round's verifiers drawn again
	/// (all were silent) keep its lottery: silence must not buy a verifier another roll
	/// of the watchers.
	fn draw_watch(
		id: TaskId,
		task: &Task<T>,
		verifiers: &[T::AccountId],
		rng: &mut gensyn_primitives::order::SplitMix64,
	) {
		if Watches::<T>::contains_key(id) {
			return;
		}
		let now = frame_system::Pallet::<T>::block_number();
		let bonded_by = now.saturating_sub(Self::randomness_delay());
		let seed = sp_crypto_hashing::blake2_256(&(b"gensyn/watch", id, rng.next_u64()).encode());
		// Every whistleblower on the list counts, those that joined too late to play
		// included: the players are among the counted, so no one wins more often than
		// its share (and the draw reads one list less).
		let pool = T::Stake::active(Role::Whistleblower)
			.into_iter()
			.filter(|(a, _, _)| Self::outside(task, verifiers, a))
			.count();
		let draw =
			WatchDraw::new(seed, pool.saturated_into(), T::WatchersPerRound::get(), bonded_by);
		if let Some(draw) = draw {
			Watches::<T>::insert(id, draw);
			Self::deposit_event(Event::WatchDrawn { id, seed, odds: draw.odds });
		}
	}

	/// Whether `who` takes no part in `task`: neither its owner, its solver nor one of
	/// its `verifiers`. (A verifier let go watches like anyone else: its verdicts,
	/// forced errors included, left with it.)
	fn outside(task: &Task<T>, verifiers: &[T::AccountId], who: &T::AccountId) -> bool {
		*who != task.owner && task.solver.as_ref() != Some(who) && !verifiers.contains(who)
	}

	/// Whether `who` may watch the round of task `id` that `draw` was drawn for: on the
	/// whistleblowers' active list since the draw's `bonded_by` or earlier (so it was
	/// counted in the odds: an account made, or brought back onto the list, once the
	/// seed was known plays no part), and taking no part in the task. Its claimed memory
	/// is not asked: a claim can change after the draw.
	pub(crate) fn may_watch(
		id: TaskId,
		task: &Task<T>,
		draw: &WatchDraw<BlockNumberFor<T>>,
		who: &T::AccountId,
	) -> bool {
		let by: u64 = draw.bonded_by.saturated_into();
		let verifiers: Vec<T::AccountId> =
			Audits::<T>::get(id).into_iter().map(|a| a.verifier).collect();
		T::Stake::joined_at(who, Role::Whistleblower).is_some_and(|since| since <= by)
			&& Self::outside(task, &verifiers, who)
	}

	/// Whether `ticket` proves that `who` won the watch lottery of task `id`'s round.
	pub(crate) fn won_watch(
		id: TaskId,
		task: &Task<T>,
		who: &T::AccountId,
		ticket: &<T::Lottery as WatchLottery<T::AccountId>>::Ticket,
	) -> bool {
		let Some(draw) = Watches::<T>::get(id) else { return false };
		Self::may_watch(id, task, &draw, who)
			&& T::Lottery::score(who, &draw.seed, ticket).is_some_and(|s| draw.won(s))
	}

	/// Whether `a` is to be audited again: its verdict was voided, or its report of an
	/// unavailable store stands unchecked, and it has re-audits left. A report on a
	/// re-audit of a report is the second one: final, unless the checkpoints its replay
	/// needs were published on the round's `demands` (then it proves nothing, and another
	/// verifier checks the segment from the pages).
	pub(crate) fn due_reaudit(a: &Audit<T::AccountId>, demands: &[DemandOf<T>]) -> bool {
		let second_report =
			a.unavailable && a.reported_before && !Self::published_for(demands, a.segment);
		// A report waits for the pages it demanded: a verifier drawn before they come
		// could only report again, and use a re-audit up (the settlement waits too).
		let ends = [a.segment, a.segment.saturating_add(1)];
		let awaited = a.unavailable
			&& demands.iter().any(|d| ends.contains(&d.checkpoint) && d.next.is_some());
		a.reaudits < T::MaxReaudits::get()
			&& !second_report
			&& !awaited
			&& (a.unavailable || (a.overturned && a.verdict.is_none()))
	}

	/// Gives the segments due a re-audit to new verifiers ([`Self::reaudit`]); when any
	/// was given, stores the audits and has the task wait a verify period for their
	/// verdicts. Returns whether it did (else `audits` is unchanged, left to the caller).
	pub(crate) fn audit_again(
		id: TaskId,
		task: &mut Task<T>,
		audits: &mut AuditsOf<T>,
		now: BlockNumberFor<T>,
	) -> Result<bool, DispatchError> {
		if !Self::reaudit(id, task, audits)? {
			return Ok(false);
		}
		Audits::<T>::insert(id, &*audits);
		task.deadline = Self::schedule(id, now.saturating_add(T::VerifyPeriod::get()));
		task.phase = Phase::Verifying;
		Ok(true)
	}

	/// Gives every segment whose verdict a dispute voided, or whose report of an
	/// unavailable store stands unchecked, while it has re-audits left
	/// ([`Config::MaxReaudits`]), to a new verifier: an active one with a standing
	/// forced-error commitment, not bound to the task now or before, neither its
	/// solver nor its owner; every segment one verifier reported goes to the same one.
	/// A report carries over to the re-audit, so a second report rejects the proof. A
	/// voided verifier left with no audit of the task is let go.
	/// Returns whether any segment was given.
	pub(crate) fn reaudit(
		id: TaskId,
		task: &mut Task<T>,
		audits: &mut AuditsOf<T>,
	) -> Result<bool, DispatchError> {
		let demands = Demands::<T>::get(id);
		let voided: Vec<usize> = audits
			.iter()
			.enumerate()
			.filter(|(_, a)| Self::due_reaudit(a, &demands))
			.map(|(i, _)| i)
			.collect();
		if voided.is_empty() {
			return Ok(false);
		}
		let mut replaced = Replaced::<T>::get(id);
		let mut pool: Vec<(T::AccountId, BalanceOf<T>)> = T::Stake::active(Role::Verifier)
			.into_iter()
			.filter(|(a, c, _)| {
				c.memory_mib >= task.memory_mib
					&& Some(a) != task.solver.as_ref()
					&& *a != task.owner
					&& !audits.iter().any(|x| x.verifier == *a)
					&& !replaced.contains(a)
					&& T::ForcedErrors::has_commitment(a)
			})
			.map(|(a, _, b)| (a, b))
			.collect();
		let (seed, _) = Self::random_u64(&(b"gensyn/reaudit", id).encode());
		let mut rng = gensyn_primitives::order::SplitMix64(seed);
		let mut given = false;
		let units = Self::units(id);
		// One budget of bond reads for the whole re-audit, however many segments it gives.
		let mut tries = ROOM_TRIES;
		// Verifiers let go, whose demands' standby duty passes on.
		let mut gone: Vec<T::AccountId> = Vec::new();
		// The re-auditor drawn for each reporter's segments.
		let mut drawn_for: Vec<(T::AccountId, T::AccountId)> = Vec::new();
		for i in voided {
			let Some(a) = audits.get(i) else { continue };
			// All segments one verifier reported go to one re-auditor: a false reporter
			// gets one draw of a colluder to confirm it, however many segments it names.
			let (old, grouped) = (a.verifier.clone(), a.unavailable);
			let same = drawn_for.iter().find(|(r, _)| grouped && *r == old);
			let v = match same {
				Some((_, v)) => v.clone(),
				None => {
					let next = || rng.next_u64();
					let picked = Self::pick_auditor(&mut pool, next, units, &mut tries);
					let Some(v) = picked else { continue };
					if Self::engage_auditor(id, task, &v).is_err() {
						// The task counts on as many workers as it may: no re-audit.
						break;
					}
					// Never forced: the seed only completes the binding.
					T::ForcedErrors::bind(&v, id, [0; 32]);
					if grouped {
						drawn_for.push((old.clone(), v.clone()));
					}
					v
				}
			};
			let Some(a) = audits.get_mut(i) else { continue };
			a.verifier = v.clone();
			let segment = a.segment;
			a.verdict = None;
			a.overturned = false;
			a.challenger = None;
			a.refuted_by = None;
			a.reaudits = a.reaudits.saturating_add(1);
			a.reported_before = a.unavailable || a.reported_before;
			a.unavailable = false;
			if !replaced.contains(&old) {
				// At most `MaxReaudits` re-audits per segment: the bound holds.
				let _ = replaced.try_push(old.clone());
			}
			if !audits.iter().any(|x| x.verifier == old) {
				Self::disengage_auditor(id, task, &old);
				Self::release_binding(&old, id);
				gone.push(old.clone());
			}
			Self::deposit_event(Event::Reaudited { id, segment, verifier: v });
			given = true;
		}
		if given {
			Replaced::<T>::insert(id, replaced);
		}
		let now = frame_system::Pallet::<T>::block_number();
		Self::replace_standbys(id, audits, &gone, now);
		Ok(given)
	}
}
