//! The game's turns, move deadlines and ruling: who may move, how a move advances the
//! game, and how a game ends (all or nothing, see `rule`).

use crate::*;

impl<T: Config> DisputeArbiter<T::AccountId> for Pallet<T> {
	fn open(
		task: TaskId,
		segment: u32,
		challenger: &T::AccountId,
		defendant: &T::AccountId,
	) -> DispatchResult {
		Self::start((task, segment), challenger, defendant, T::GameBond::get())
	}

	fn open_staked(
		task: TaskId,
		segment: u32,
		challenger: &T::AccountId,
		defendant: &T::AccountId,
	) -> DispatchResult {
		Self::start((task, segment), challenger, defendant, Zero::zero())
	}

	fn rules_on(spec: &TaskSpec) -> bool {
		// An honest defendant must be able to answer every move in time: read every
		// batch value, and replay a segment within a move deadline.
		let replayable = gensyn_primitives::segment_work(spec).is_ok_and(|w| {
			w.gas <= T::MaxSegmentGas::get() && w.state_bytes <= T::MaxSegmentBytes::get()
		});
		// A distance's disputed term carries the optimizer over the segment's steps.
		let carriable = spec.verification.mode != gensyn_primitives::VerificationMode::Threshold
			|| u64::from(spec.training.checkpoint_interval) <= MAX_CARRY_STEPS;
		// A step's tensor roots are opened in one move (an image model's few always are;
		// a language model's grow with its blocks).
		let openable = gensyn_repops::transformer::task::config(spec).is_none_or(|c| {
			gensyn_repops::transformer::graph::tensor_count(&c) <= T::MaxTensors::get() as usize
		});
		// Every op of a step must have an element evaluation the game can end on.
		graph::covers(spec)
			&& openable
			&& geo::data_disputable(spec.data.format)
			&& spec.data.samples <= T::MaxDataSamples::get()
			&& replayable
			&& carriable
	}

	fn off_task(
		spec: &TaskSpec,
		checkpoint_root: &Hash32,
		checkpoints: u32,
		proof: &OffTaskProof,
	) -> bool {
		evidence::off_task(spec, checkpoint_root, checkpoints, proof)
	}

	fn cancel(task: TaskId, segment: u32) {
		let key = (task, segment);
		let Some(d) = Disputes::<T>::take(key) else { return };
		StepRoots::<T>::remove(key);
		OpenedChunks::<T>::remove(key);
		Self::release_bond(&d);
		Self::deposit_event(Event::Cancelled { task, segment });
	}
}

impl<T: Config> Pallet<T> {
	/// Opens the game over `key` between `challenger` and `defendant`, holding `bond`
	/// of the challenger's (none for a challenger whose task stake backs the game).
	fn start(
		key: DisputeKey,
		challenger: &T::AccountId,
		defendant: &T::AccountId,
		bond: BalanceOf<T>,
	) -> DispatchResult {
		let (task, segment) = key;
		ensure!(!Disputes::<T>::contains_key(key), Error::<T>::AlreadyOpen);
		let ctx = T::Subjects::context(task, segment).ok_or(Error::<T>::NoSubject)?;
		ensure!(ctx.steps > 0, Error::<T>::NoSubject);
		if !bond.is_zero() {
			T::Currency::hold(&HoldReason::GameBond.into(), challenger, bond)?;
		}
		let deadline = Self::schedule(key);
		// A Threshold-mode verdict posts a root and a distance from it: the challenger
		// first names which it disputes.
		let (stage, turn) = match ctx.claimed_distance {
			Some(_) => (Stage::Choose, Party::Challenger),
			None => (Stage::Start, Party::Defendant),
		};
		let d = Dispute::<T> {
			challenger: challenger.clone(),
			defendant: defendant.clone(),
			bond,
			stage,
			posted: Posted::Nothing,
			turn,
			deadline,
			moves: 0,
			first_step: ctx.first_step,
			steps: ctx.steps,
			checkpoint_root: ctx.checkpoint_root,
			checkpoints: ctx.checkpoints,
			claimed_root: ctx.claimed_root,
			order_randomness: ctx.order_randomness,
		};
		Disputes::<T>::insert(key, d);
		Self::deposit_event(Event::Opened {
			task,
			segment,
			challenger: challenger.clone(),
			defendant: defendant.clone(),
		});
		Ok(())
	}

	/// The signer and the game over `(task, segment)`, when the signer is `party` and it
	/// is `party`'s turn.
	pub(crate) fn turn_of(
		origin: OriginFor<T>,
		task: TaskId,
		segment: u32,
		party: Party,
	) -> Result<(DisputeKey, Dispute<T>), DispatchError> {
		let who = ensure_signed(origin)?;
		let key = (task, segment);
		Ok((key, Self::expect_turn(key, &who, party)?))
	}

	/// The game over `key`, when `who` is `party` and it is `party`'s turn.
	pub(crate) fn expect_turn(
		key: DisputeKey,
		who: &T::AccountId,
		party: Party,
	) -> Result<Dispute<T>, DispatchError> {
		let d = Disputes::<T>::get(key).ok_or(Error::<T>::NoDispute)?;
		let player = match party {
			Party::Defendant => &d.defendant,
			Party::Challenger => &d.challenger,
		};
		ensure!(player == who, Error::<T>::NotAParty);
		ensure!(d.turn == party, Error::<T>::NotYourTurn);
		// The block decides, not the deadline queue: a flood that carries a timeout over
		// must not give a late party its move back.
		let now = frame_system::Pallet::<T>::block_number();
		ensure!(now < d.deadline, Error::<T>::MoveTooLate);
		Ok(d)
	}

	/// The bisection stage over steps `lo..hi`, or the step opening when one is left.
	pub(crate) fn steps_stage(lo: u64, hi: u64, lo_root: Hash32, hi_root: Hash32) -> Stage {
		if hi <= lo.saturating_add(1) {
			Stage::OpenStep { step: lo, lo_root, hi_root }
		} else {
			Stage::Steps { lo, hi, lo_root, hi_root }
		}
	}

	/// The interval the challenger's pick `index` names among values `posted` at the
	/// dissection points of `lo..hi`, whose ends hold `ends`: its bounds and the values
	/// at them.
	pub(crate) fn picked<V: Copy>(
		(lo, hi): (u64, u64),
		ends: (V, V),
		posted: &[V],
		index: u32,
	) -> Result<(u64, u64, V, V), Error<T>> {
		let points = geo::dissection_points(lo, hi, MAX_POINTS);
		let (a, b) = geo::picked_interval(lo, hi, &points, index).ok_or(Error::<T>::BadPick)?;
		let at = |i: u32| posted.get(i as usize).copied();
		let va = if index == 0 { Some(ends.0) } else { at(index - 1) };
		let vb = if index as usize == posted.len() { Some(ends.1) } else { at(index) };
		Ok((a, b, va.ok_or(Error::<T>::BadPick)?, vb.ok_or(Error::<T>::BadPick)?))
	}

	/// Stores the game after a move by `by`, with `next` to move by a fresh deadline.
	pub(crate) fn advance(
		key: DisputeKey,
		mut d: Dispute<T>,
		by: Party,
		next: Party,
	) -> DispatchResult {
		d.turn = next;
		d.moves = d.moves.saturating_add(1);
		d.deadline = Self::schedule(key);
		let (stage, deadline) = (d.stage, d.deadline);
		Disputes::<T>::insert(key, d);
		Self::deposit_event(Event::Moved {
			task: key.0,
			segment: key.1,
			by,
			stage,
			turn: next,
			deadline,
		});
		Ok(())
	}

	/// Files a move deadline `MoveTimeout` blocks ahead; returns its block. Never fails:
	/// the queue is paged.
	pub(crate) fn schedule(key: DisputeKey) -> BlockNumberFor<T> {
		let now = frame_system::Pallet::<T>::block_number();
		let at = now.saturating_add(T::MoveTimeout::get().max(1u32.into()));
		Deadlines::<T>::push(at, key);
		at
	}

	/// The move deadline of the game over `key`, filed at block `filed`, has passed: the
	/// party to move loses. A stale entry (the game moved on) is skipped; returns whether
	/// the entry was live.
	pub(crate) fn time_out(key: DisputeKey, filed: BlockNumberFor<T>) -> bool {
		let Some(d) = Disputes::<T>::get(key) else { return false };
		if d.deadline != filed {
			return false;
		}
		let silent = d.turn;
		let mut open = d.clone();
		if Self::rule(key, d, silent == Party::Defendant, Ruling::Timeout(silent)).is_err() {
			// The tasks pallet refused the outcome and nothing of it was written: the
			// game stays open and is ruled again a move timeout later (the tasks
			// pallet's dispute timeout cancels a game that never ends).
			open.deadline = Self::schedule(key);
			Disputes::<T>::insert(key, open);
		}
		true
	}

	/// Ends a game: releases or pays the bond, tells the tasks pallet. All or nothing:
	/// when the tasks pallet refuses the outcome, nothing of it is written (no bond
	/// moved, no slash) and the game stays open.
	pub(crate) fn rule(
		key: DisputeKey,
		d: Dispute<T>,
		challenger_won: bool,
		ruling: Ruling,
	) -> DispatchResult {
		frame_support::storage::with_storage_layer(|| {
			Self::rule_now(key, d, challenger_won, ruling)
		})
	}

	/// [`Self::rule`]'s writes, which it runs in a storage layer.
	fn rule_now(
		key: DisputeKey,
		d: Dispute<T>,
		challenger_won: bool,
		ruling: Ruling,
	) -> DispatchResult {
		Disputes::<T>::remove(key);
		StepRoots::<T>::remove(key);
		OpenedChunks::<T>::remove(key);
		if challenger_won {
			Self::release_bond(&d);
		} else if !d.bond.is_zero() {
			let moved = T::Currency::transfer_on_hold(
				&HoldReason::GameBond.into(),
				&d.challenger,
				&d.defendant,
				d.bond,
				Precision::BestEffort,
				Restriction::Free,
				Fortitude::Force,
			);
			if moved.is_err() {
				Self::release_bond(&d);
			}
		}
		T::Outcome::resolve(key.0, key.1, challenger_won)?;
		Self::deposit_event(Event::Resolved {
			task: key.0,
			segment: key.1,
			challenger_won,
			ruling,
			moves: d.moves,
		});
		Ok(())
	}

	pub(crate) fn release_bond(d: &Dispute<T>) {
		let _ = T::Currency::release(
			&HoldReason::GameBond.into(),
			&d.challenger,
			d.bond,
			Precision::BestEffort,
		);
	}
}
