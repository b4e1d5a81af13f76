//! The pallet's invariants, checked by `try_state` and after every block in the tests.

use crate::*;

impl<T: Config> Pallet<T> {
	/// The configuration's bounds fit together (the runtime's integrity test): a deadline
	/// page holds a deadline, and junk challenges never crowd out a real one nor a full
	/// list refuse a re-audit, since `MaxEngaged` covers the worst case.
	pub(crate) fn check_bounds() {
		assert!(T::MaxDeadlinesPerBlock::get() > 0, "a deadline page must hold a deadline");
		let needed = T::MaxAuditSegments::get().saturating_mul(2).saturating_add(1 + PROFILERS);
		assert!(
			T::MaxEngaged::get() >= needed,
			"MaxEngaged must hold the solver, the profilers and a verifier and a challenger \
			 per audited segment"
		);
		assert!(
			Self::demand_fee(T::MaxPublishBytes::get()) < T::OffTaskBounty::get(),
			"a demand of the largest state must cost less than a withheld one pays"
		);
		assert!(
			T::MissedVerdictSlash::get() > T::OffTaskBounty::get(),
			"a silent standby must lose more than its demander's bounty pays"
		);
	}

	/// The engagement units live tasks count on each worker engaged in one: the task's
	/// bond units once per engagement.
	#[cfg(any(test, feature = "try-runtime", feature = "std"))]
	pub fn engaged_units() -> Vec<(T::AccountId, u32)> {
		let mut counted: Vec<(T::AccountId, u32)> = Vec::new();
		for (id, t) in Tasks::<T>::iter() {
			let units = Self::units(id);
			for who in t.engaged.iter() {
				match counted.iter_mut().find(|(a, _)| a == who) {
					Some((_, n)) => *n = n.saturating_add(units),
					None => counted.push((who.clone(), units)),
				}
			}
		}
		counted
	}

	/// The audit units live tasks count on each verifier in their audits: the task's bond
	/// units once per task, however many of its segments the verifier audits. (Also what
	/// the migration to version 22 counts.)
	pub fn audited_units() -> Vec<(T::AccountId, u32)> {
		let mut counted: Vec<(T::AccountId, u32)> = Vec::new();
		for (id, audits) in Audits::<T>::iter() {
			let units = Self::units(id);
			let mut seen: Vec<&T::AccountId> = Vec::new();
			for a in audits.iter() {
				if seen.contains(&&a.verifier) {
					continue;
				}
				seen.push(&a.verifier);
				match counted.iter_mut().find(|(w, _)| *w == a.verifier) {
					Some((_, n)) => *n = n.saturating_add(units),
					None => counted.push((a.verifier.clone(), units)),
				}
			}
		}
		counted
	}

	/// The false-challenge slashes each whistleblower's open games risk, counted from the
	/// audits of live tasks (a solver contesting a fail on its own task is not counted):
	/// what [`OpenChallenges`] must hold.
	pub fn challengers() -> Vec<(T::AccountId, u32)> {
		let mut counted: Vec<(T::AccountId, u32)> = Vec::new();
		for (id, audits) in Audits::<T>::iter() {
			let solver = Tasks::<T>::get(id).and_then(|t| t.solver);
			for audit in &audits {
				let Some(who) = audit.challenger.as_ref() else { continue };
				if !Self::counts_as_challenger(solver.as_ref(), who) {
					continue;
				}
				let units = Self::false_challenge_units(id, audit);
				match counted.iter_mut().find(|(a, _)| a == who) {
					Some((_, n)) => *n = n.saturating_add(units),
					None => counted.push((who.clone(), units)),
				}
			}
		}
		counted
	}

	/// Checks the invariants: each owner's escrow hold equals the sum of its live
	/// tasks' escrows; every live task's deadline is in the future (or carried over) and
	/// indexed; every engagement is counted in [`WorkerTasks`] and, with the task's bond
	/// units, in the stake pallet; the slashes each whistleblower's open
	/// games risk in [`OpenChallenges`]; assigned phases have a solver; reveals open within a live
	/// task's window; profile commitments belong to profilers of a live task still to
	/// reveal; a moved draw belongs to a live task; a solver's contest, to the live
	/// task's current solver; games survived, to a live task's audited segment.
	#[cfg(any(test, feature = "try-runtime", feature = "std"))]
	pub fn do_try_state() -> Result<(), sp_runtime::TryRuntimeError> {
		let now = frame_system::Pallet::<T>::block_number();
		let mut owners: Vec<(T::AccountId, BalanceOf<T>)> = Vec::new();
		for (id, t) in Tasks::<T>::iter() {
			match owners.iter_mut().find(|(o, _)| *o == t.owner) {
				Some((_, sum)) => *sum = sum.saturating_add(t.escrow),
				None => owners.push((t.owner.clone(), t.escrow)),
			}
			ensure!(
				Deadlines::<T>::pending(t.deadline, now),
				"tasks: a live task is past its deadline"
			);
			ensure!(Deadlines::<T>::contains(t.deadline, &id), "tasks: a deadline is not indexed");
			if matches!(t.phase, Phase::Offered | Phase::Training | Phase::Drawing) {
				ensure!(t.solver.is_some(), "tasks: assigned phase without solver");
			}
			for who in t.engaged.iter() {
				let n = t.engaged.iter().filter(|a| *a == who).count() as u32;
				ensure!(WorkerTasks::<T>::get(who, id) == Some(n), "tasks: engagement not indexed");
			}
			ensure!(Specs::<T>::contains_key(id), "tasks: live task without spec");
		}
		for (who, units) in Self::engaged_units() {
			ensure!(
				T::Stake::engaged_units(&who) == units,
				"tasks: the stake pallet counts other engagement units"
			);
		}
		for (who, units) in Self::audited_units() {
			ensure!(
				T::Stake::audit_units(&who) == units,
				"tasks: the stake pallet counts other audit units"
			);
		}
		let challengers = Self::challengers();
		for (who, n) in &challengers {
			ensure!(OpenChallenges::<T>::get(who) == *n, "tasks: open challenges miscounted");
		}
		for (who, _) in OpenChallenges::<T>::iter() {
			ensure!(
				challengers.iter().any(|(a, _)| *a == who),
				"tasks: open challenges counted for no game"
			);
		}
		for (owner, sum) in owners {
			let held = T::Currency::balance_on_hold(&HoldReason::Escrow.into(), &owner);
			ensure!(held == sum, "tasks: escrow hold differs from live escrows");
		}
		for (who, id, _) in WorkerTasks::<T>::iter() {
			let t = Tasks::<T>::get(id).ok_or("tasks: worker index names a dead task")?;
			ensure!(t.engaged.contains(&who), "tasks: worker index without engagement");
		}
		for id in Replaced::<T>::iter_keys() {
			ensure!(Tasks::<T>::contains_key(id), "tasks: replaced verifiers of a dead task");
		}
		for id in Watches::<T>::iter_keys() {
			ensure!(Tasks::<T>::contains_key(id), "tasks: a watcher of a dead task");
		}
		for (id, _, (solver, _)) in SolverContested::<T>::iter() {
			let t = Tasks::<T>::get(id).ok_or("tasks: a solver's contest on a dead task")?;
			ensure!(t.solver == Some(solver), "tasks: a contest of another round's solver");
		}
		for (id, segment, (_, k)) in Survived::<T>::iter() {
			ensure!(Tasks::<T>::contains_key(id), "tasks: games survived on a dead task");
			let audits = Audits::<T>::get(id);
			ensure!(
				k > 0 && audits.iter().any(|a| a.segment == segment),
				"tasks: games survived by no audited segment"
			);
		}
		for (id, units) in BondUnits::<T>::iter() {
			ensure!(Tasks::<T>::contains_key(id), "tasks: bond units of a dead task");
			ensure!(units > 1, "tasks: a task of one bond unit keeps an entry");
		}
		for id in OffTask::<T>::iter_keys() {
			let t = Tasks::<T>::get(id).ok_or("tasks: an off-task proof of a dead task")?;
			ensure!(t.result.is_some(), "tasks: an off-task proof without a result");
		}
		let mut demanders: Vec<(T::AccountId, BalanceOf<T>)> = Vec::new();
		for d in Demands::<T>::iter_values().flatten().filter(|d| d.next.is_some()) {
			match demanders.iter_mut().find(|(a, _)| *a == d.by) {
				Some((_, sum)) => *sum = sum.saturating_add(d.fee),
				None => demanders.push((d.by, d.fee)),
			}
		}
		for (who, sum) in demanders {
			let held = T::Currency::balance_on_hold(&HoldReason::Demand.into(), &who);
			ensure!(held == sum, "tasks: demand holds differ from unanswered demands' fees");
		}
		for (id, demands) in Demands::<T>::iter() {
			let t = Tasks::<T>::get(id).ok_or("tasks: a demand of a dead task")?;
			let r = t.result.as_ref().ok_or("tasks: a demand without a result")?;
			for (i, d) in demands.iter().enumerate() {
				ensure!(d.checkpoint < r.checkpoints, "tasks: a demand past the run's checkpoints");
				ensure!(
					!demands.iter().skip(i + 1).any(|e| e.checkpoint == d.checkpoint),
					"tasks: a checkpoint demanded twice in a round"
				);
			}
		}
		for (id, t) in Tasks::<T>::iter().filter(|(_, t)| t.phase == Phase::ProfileReveal) {
			let commitments = ProfileCommitments::<T>::get(id);
			for p in t.profilers.iter().filter(|p| p.threshold.is_none()) {
				ensure!(
					commitments.iter().any(|(w, _)| *w == p.who),
					"tasks: a profiler to reveal without a commitment"
				);
			}
		}
		for (id, commitments) in ProfileCommitments::<T>::iter() {
			let t = Tasks::<T>::get(id).ok_or("tasks: a profile commitment of a dead task")?;
			ensure!(
				matches!(t.phase, Phase::Profiling | Phase::ProfileReveal),
				"tasks: a profile commitment past profiling"
			);
			for (who, _) in commitments.iter() {
				ensure!(
					t.profilers.iter().any(|p| p.who == *who && p.threshold.is_none()),
					"tasks: a commitment of no profiler still to reveal"
				);
			}
		}
		for id in MovedDraw::<T>::iter_keys() {
			ensure!(Tasks::<T>::contains_key(id), "tasks: a moved draw of a dead task");
		}
		for (id, from) in RevealsFrom::<T>::iter() {
			let t = Tasks::<T>::get(id).ok_or("tasks: a reveal point of a dead task")?;
			ensure!(from <= t.window_end, "tasks: reveals open after the window ends");
		}
		for (id, who, by) in RevealBy::<T>::iter() {
			let t = Tasks::<T>::get(id).ok_or("tasks: a reveal deadline of a dead task")?;
			ensure!(
				Audits::<T>::get(id).iter().any(|a| a.verifier == who),
				"tasks: a reveal deadline of a verifier that audits nothing"
			);
			ensure!(by <= t.window_end, "tasks: a reveal deadline after the window ends");
		}
		Ok(())
	}
}
