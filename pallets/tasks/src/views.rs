//! What the `TasksApi` runtime API serves: each worker's duties, a task as clients see
//! it, and the tasks in their challenge window. Off-chain use only: these iterate.

use crate::*;

impl<T: Config> Pallet<T> {
	/// A reveal duty for `who` on task `id` once the task's reveals have a point fixed
	/// (its first window opened) and `who` posted a verdict whose secret it has not
	/// revealed. Once fixed, reveals stay open in every phase until `who`'s deadline
	/// ([`Pallet::reveal_deadline`]): a game settled in the window can send the task back
	/// to be audited again before every verifier revealed.
	fn reveal_duty(
		id: TaskId,
		t: &Task<T>,
		who: &T::AccountId,
		audits: &AuditsOf<T>,
	) -> Option<Duty<BlockNumberFor<T>>> {
		let from = RevealsFrom::<T>::get(id)?;
		let by = Self::reveal_deadline(id, t, who);
		if by.is_some_and(|by| frame_system::Pallet::<T>::block_number() >= by) {
			return None;
		}
		let unrevealed = audits.iter().any(|a| {
			a.verifier == *who
				&& !a.awaits_verdict()
				&& T::ForcedErrors::forced(who, id, a.segment).is_none()
		});
		unrevealed.then_some(Duty::Reveal { task: id, from, by: by.unwrap_or(t.window_end) })
	}

	/// What `who` must do now (runtime API).
	pub fn duties(who: &T::AccountId) -> Vec<Duty<BlockNumberFor<T>>> {
		let mut out = Vec::new();
		// Read once: every demand's due and turn are read past the same upgrades.
		let upgrades = Upgrades::<T>::get();
		if !T::Stake::bond(who, Role::Verifier).is_zero() && !T::ForcedErrors::has_commitment(who) {
			out.push(Duty::Commit);
		}
		for (id, _) in WorkerTasks::<T>::iter_prefix(who) {
			let Some(t) = Tasks::<T>::get(id) else { continue };
			let is_solver = t.solver.as_ref() == Some(who);
			Self::publish_duties((id, &t), who, &upgrades, &mut out);
			match t.phase {
				Phase::Profiling
					if t.profilers.iter().any(|p| p.who == *who && p.threshold.is_none())
						&& !ProfileCommitments::<T>::get(id).iter().any(|(w, _)| w == who) =>
				{
					out.push(Duty::Profile { task: id, by: t.deadline })
				}
				Phase::ProfileReveal
					if t.profilers.iter().any(|p| p.who == *who && p.threshold.is_none()) =>
				{
					out.push(Duty::RevealProfile { task: id, by: t.deadline })
				}
				Phase::Offered if is_solver => out.push(Duty::Accept { task: id, by: t.deadline }),
				Phase::Training if is_solver => out.push(Duty::Train {
					task: id,
					order_randomness: t.order_randomness,
					by: t.deadline,
				}),
				Phase::Verifying => {
					let audits = Audits::<T>::get(id);
					out.extend(Self::reveal_duty(id, &t, who, &audits));
					for a in audits {
						if a.verifier == *who && a.awaits_verdict() {
							out.push(Duty::Verify {
								task: id,
								segment: a.segment,
								by: t.deadline,
								forcible: a.reaudits == 0,
							});
						}
					}
				}
				Phase::Challenge | Phase::Disputed => {
					let audits = Audits::<T>::get(id);
					out.extend(Self::reveal_duty(id, &t, who, &audits));
					// Past the window a challenge is refused; games under way go on.
					let open = frame_system::Pallet::<T>::block_number() < t.window_end;
					for a in audits {
						if let Some(c) = &a.challenger {
							if c == who || a.verifier == *who {
								out.push(Duty::Dispute { task: id, segment: a.segment });
							}
						} else if is_solver && open && Self::contestable_by_solver(id, &a) {
							// The solver may check a failing verdict that would count
							// against its work (revealed, not a forced error).
							out.push(Duty::Watch {
								task: id,
								segment: a.segment,
								by: t.window_end,
							});
						}
					}
				}
				_ => {}
			}
		}
		// Shown even to a whistleblower whose bond covers no more games: its checks of
		// the runs (off-task proofs, which open no game) go on, and its worker holds a
		// challenge back until the bond covers it.
		if T::Stake::is_bonded(who, Role::Whistleblower) {
			Self::watch_duties(who, &mut out);
		}
		out
	}

	/// The next page of each checkpoint of task `id` (`t`) demanded and still in time (a
	/// call sent now lands before its due, read past the kept `upgrades`), for `who` when
	/// it may publish it ([`Pallet::may_publish`]).
	fn publish_duties(
		(id, t): (TaskId, &Task<T>),
		who: &T::AccountId,
		upgrades: &[BlockNumberFor<T>],
		out: &mut Vec<Duty<BlockNumberFor<T>>>,
	) {
		let now = frame_system::Pallet::<T>::block_number();
		// A page sent in the last block before its due lands too late, and would pay.
		for d in Demands::<T>::get(id) {
			let due = d.due_since(upgrades);
			let Some((item, page)) = d.next.filter(|_| now.saturating_add(1u32.into()) < due)
			else {
				continue;
			};
			if Self::may_publish(t, (&d, d.solvers_turn_end(upgrades)), who, now) {
				let checkpoint = d.checkpoint;
				out.push(Duty::Publish { task: id, checkpoint, item, page, by: due });
			}
		}
	}

	/// The unchallenged verdicts in challenge windows a whistleblower may check: not
	/// its own verdicts, not on its own tasks as solver, not revealed forced errors (void
	/// anyway, and no longer open to challenge); at most [`MAX_WATCHED`] open to anyone
	/// (passes, and fails once reveals open), and as many failing verdicts before reveals
	/// open on rounds it may watch ([`Pallet::may_watch`]), which its worker challenges
	/// only with a winning ticket of the round's lottery.
	pub(crate) fn watch_duties(who: &T::AccountId, out: &mut Vec<Duty<BlockNumberFor<T>>>) {
		let (mut open, mut early) = (0usize, 0usize);
		let now = frame_system::Pallet::<T>::block_number();
		for (id, t) in Tasks::<T>::iter() {
			// Past the window a challenge is refused (games under way go on).
			if !matches!(t.phase, Phase::Challenge | Phase::Disputed)
				|| now >= t.window_end
				|| t.solver.as_ref() == Some(who)
			{
				continue;
			}
			let may = Watches::<T>::get(id).is_some_and(|d| Self::may_watch(id, &t, &d, who));
			for a in Audits::<T>::get(id) {
				let Some(v) = a.verdict else { continue };
				let to_all = Self::open_to(id, v.pass, false);
				let count = if to_all { &mut open } else { &mut early };
				if *count >= MAX_WATCHED {
					continue;
				}
				if a.challenger.is_none()
					&& a.refuted_by.is_none()
					&& a.verifier != *who
					&& (to_all || may)
					&& Self::forced(id, &a) != Some(true)
				{
					out.push(Duty::Watch { task: id, segment: a.segment, by: t.window_end });
					*count += 1;
				}
			}
		}
	}

	/// A live task as clients see it (runtime API).
	pub fn view(id: TaskId) -> Option<TaskView<T::AccountId, BalanceOf<T>, BlockNumberFor<T>>> {
		let t = Tasks::<T>::get(id)?;
		let result = Self::result_view(&t);
		let threshold = Self::judging_threshold(id, &t);
		Some(TaskView {
			owner: t.owner,
			phase: t.phase,
			deadline: t.deadline,
			escrow: t.escrow,
			solver: t.solver.clone(),
			audits: Audits::<T>::get(id).into_inner(),
			spec: Specs::<T>::get(id).map(|s| s.encode()).unwrap_or_default(),
			order_randomness: t.order_randomness,
			threshold,
			threshold_bounds: T::ThresholdBounds::bounds(),
			result,
		})
	}

	/// The task's committed result as clients see it: where the solver's store serves
	/// the run, and the roots its checkpoints are checked against.
	pub(crate) fn result_view(t: &Task<T>) -> Option<ResultView> {
		let r = t.result.as_ref()?;
		let mut url = t.solver.as_ref().map(T::Stake::endpoint).unwrap_or_default();
		url.extend_from_slice(&r.location);
		Some(ResultView {
			final_hash: r.final_hash,
			checkpoint_root: r.checkpoint_root,
			checkpoints: r.checkpoints,
			url,
		})
	}

	/// The live tasks from id `from` on, in id order (runtime API): at most `limit` of
	/// them (from 1 to [`TASK_PAGE`]), among at most [`TASK_SCAN`] ids, since settled
	/// tasks leave gaps; `next` is where the following page starts.
	pub fn page(
		from: TaskId,
		limit: u32,
	) -> TaskPage<T::AccountId, BalanceOf<T>, BlockNumberFor<T>> {
		let end = NextTaskId::<T>::get();
		let (limit, stop) =
			(limit.clamp(1, TASK_PAGE) as usize, end.min(from.saturating_add(TASK_SCAN)));
		let (mut tasks, mut id) = (Vec::new(), from);
		while id < stop && tasks.len() < limit {
			if let Some(view) = Self::view(id) {
				tasks.push((id, view));
			}
			id = id.saturating_add(1);
		}
		TaskPage { tasks, next: (id < end).then_some(id) }
	}

	/// Tasks in their challenge window with its end (runtime API; iterates all live
	/// tasks, so it is for off-chain use only).
	pub fn challengeable() -> Vec<(TaskId, BlockNumberFor<T>)> {
		let now = frame_system::Pallet::<T>::block_number();
		Tasks::<T>::iter()
			.filter(|(_, t)| matches!(t.phase, Phase::Challenge | Phase::Disputed))
			.filter(|(_, t)| now < t.window_end)
			.map(|(id, t)| (id, t.window_end))
			.collect()
	}
}
