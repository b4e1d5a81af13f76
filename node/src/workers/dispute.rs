//! The workers' side of the pinpoint game: checking a verdict by replaying its segment
//! (a whistleblower checks every verdict, a solver the failing ones on its own work),
//! then the game itself: a verifier defends its verdict, the challenger presses its
//! challenge, each answering from its own repops replay of the disputed segment
//! (`pallet_gensyn_arbitration::prover`). Every move is planned once (it is keyed by the
//! game's move count) and computed on a thread that does not wait for training, so a
//! move is never late because the node is busy.

use std::sync::Arc;

use gensyn_primitives::{verdict as rule, VerificationMode};
use gensyn_runtime::{watch::WatchTicket, AccountId, BlockNumber, Runtime, RuntimeCall};
use gensyn_workers::hash;
use pallet_gensyn_arbitration::{
	prover::{self, Table},
	GameView, Party,
};
use pallet_gensyn_tasks::{Call as TasksCall, Duty, TaskId};
use sp_core::H256;

use super::{
	chain,
	challenges::{verdict_key, Challenged, Decision, MAX_TRIES},
	duties::{DutyKey, Job, Plan},
	published,
	segment::{self, Replayed, Replays},
	WorkerContext,
};

/// Plays the games of one account.
pub struct Player {
	ctx: Arc<WorkerContext>,
	role: &'static str,
	replays: Replays,
	challenged: Challenged,
}

impl Player {
	/// A player for `role`, sharing `replays` with it (a whistleblower's checks fill it)
	/// and recording in `challenged` the verdicts it plays a game against.
	pub fn new(
		ctx: Arc<WorkerContext>,
		role: &'static str,
		replays: Replays,
		challenged: Challenged,
	) -> Self {
		Player { ctx, role, replays, challenged }
	}

	fn game(
		&self,
		at: H256,
		who: &AccountId,
		task: TaskId,
		segment: u32,
	) -> Option<GameView<BlockNumber>> {
		chain::games(&self.ctx.client, at, who)
			.ok()?
			.into_iter()
			.find(|g| g.task == task && g.segment == segment)
	}

	/// The key `duty` is tracked under for `who` (when known): a dispute's is its game's
	/// next move (one duty per move), any other duty's its own.
	pub fn duty_key(&self, duty: &Duty<BlockNumber>, at: H256, who: Option<&AccountId>) -> DutyKey {
		match (duty, who) {
			(Duty::Dispute { task, segment }, Some(who)) => {
				let moves = self.game(at, who, *task, *segment).map_or(0, |g| g.moves);
				DutyKey::Move(*task, *segment, moves)
			}
			_ => DutyKey::of(duty),
		}
	}

	/// What to do in the game over `segment` of `task` at block `at`: nothing when it is
	/// the other side's turn, else a job computing the move.
	pub fn plan(&self, at: H256, who: &AccountId, task: TaskId, segment: u32) -> Plan {
		let Some(game) = self.game(at, who, task, segment) else { return Plan::Ignore };
		let view = match chain::task(&self.ctx.client, at, task) {
			Ok(v) => v,
			Err(e) => return Plan::failed(e),
		};
		if game.side == Party::Challenger {
			// The challenge reached the chain: if the verdict stands after this game, this
			// node's replay is the one in doubt.
			let audit = view.audits.iter().find(|a| a.segment == segment);
			let run = segment::replay_key(task, segment, &view);
			if let Some(key) = run.zip(audit).and_then(|(run, a)| verdict_key(run, a)) {
				self.challenged.played(key);
			}
		}
		if !game.to_move {
			return Plan::Ignore;
		}
		let key = (task, segment);
		let seen = chain::step_roots(&self.ctx.client, at, key)
			.and_then(|r| Ok((r, chain::opened_chunk(&self.ctx.client, at, key)?)));
		let (step_roots, opened) = match seen {
			Ok(seen) => seen,
			Err(e) => return Plan::failed(e),
		};
		let verdict = view.audits.iter().find(|a| a.segment == segment).and_then(|a| a.verdict);
		let Some(verdict) = verdict.map(|v| (v.replay_hash, v.distance)) else {
			return Plan::failed(format!("task {task} segment {segment}: no verdict in play"));
		};
		let (ctx, replays, role) = (self.ctx.clone(), self.replays.clone(), self.role);
		log::info!(
			target: "gensyn-worker",
			"game on segment {segment} of task {task}: move {} as {:?} at {:?}",
			game.moves + 1, game.side, game.stage
		);
		Plan::Quick(Box::new(move || {
			let replayed = replayed(&ctx, (&replays, role), task, segment, &view)?;
			let spec = chain::spec(&view)?;
			let k = u64::from(spec.training.checkpoint_interval.max(1));
			let table = Table {
				task,
				segment,
				first_step: u64::from(segment) * k,
				stage: game.stage,
				posted: &game.posted,
				step_roots: &step_roots,
				opened: &opened,
				verdict,
				claimed: replayed.claimed.as_ref(),
			};
			let call = match game.side {
				Party::Defendant => match replayed.committed.journaled() {
					Ok(j) => prover::defend::<Runtime>(&replayed.run, &j.leaves, &table),
					// A verdict replayed from the segment's published pages defends from
					// the leaves they proved.
					Err(e) => {
						let leaves = paged_leaves(&ctx, &replayed.committed, segment).ok_or(e)?;
						prover::defend::<Runtime>(&replayed.run, &leaves, &table)
					}
				},
				Party::Challenger => prover::challenge::<Runtime>(&replayed.run, &table),
			}
			.map_err(|e| format!("no move for {:?}: {e}", game.stage))?;
			if matches!(call, pallet_gensyn_arbitration::Call::concede { .. }) {
				log::warn!(
					target: "gensyn-worker",
					"game on segment {segment} of task {task}: conceding (this node's replay \
					 cannot back its side at {:?})",
					game.stage
				);
			}
			Ok(Some(RuntimeCall::Arbitration(call)))
		}))
	}
}

/// `role`'s replay of `segment` of `task`: from `replays` when a job already made it,
/// else fetched and replayed now (and kept).
pub fn replayed(
	ctx: &WorkerContext,
	(replays, role): (&Replays, &str),
	task: TaskId,
	segment: u32,
	view: &chain::Task,
) -> Result<Arc<Replayed>, String> {
	let key = segment::replay_key(task, segment, view)
		.ok_or_else(|| format!("task {task} has no result"))?;
	let found = replays.lock().unwrap_or_else(|e| e.into_inner()).get(&key).cloned();
	if let Some(r) = found {
		return Ok(r);
	}
	let spec = chain::spec(view)?;
	let committed = segment::committed_run(ctx, role, task, view)?;
	if role != "whistleblower" && paged_leaves(ctx, &committed, segment).is_none() {
		// Only a whistleblower replays without the journal: the others move from its
		// leaves (or from the leaves of the segment's published pages), and a replay kept
		// without them would stay unable to move.
		committed.journaled()?;
	}
	let run = segment::replay(ctx, &spec, view.order_randomness, &committed, segment)?;
	let claimed = (spec.verification.mode == VerificationMode::Threshold)
		.then(|| segment::checkpoint(ctx, &committed, segment.saturating_add(1)))
		.transpose()?;
	let r = Arc::new(Replayed { committed, run, claimed });
	let mut all = replays.lock().unwrap_or_else(|e| e.into_inner());
	// Replays of tasks no longer live are dropped as new ones come (a segment's states
	// are a few MB to a few hundred MB).
	if all.len() >= 8 {
		all.clear();
	}
	all.insert(key, r.clone());
	Ok(r)
}

/// Plans `role`'s check of the verdict on `segment` of `task` as read at block `at`: a
/// heavy job, or with `quick` a job of its own beside any heavy one (a solver checks
/// verdicts on its own work while it may be training another task). A challenge goes
/// with the role's winning `ticket` of the round's watch lottery, if it has one, and waits
/// while the bond of a whistleblower (`bonded`) covers no more games.
pub fn plan_check(
	ctx: &Arc<WorkerContext>,
	(replays, challenged): (&Replays, &Challenged),
	(role, ticket, bonded): (&'static str, Option<WatchTicket>, Option<AccountId>),
	quick: bool,
	at: H256,
	(task, segment): (TaskId, u32),
) -> Plan {
	let view = match chain::task(&ctx.client, at, task) {
		Ok(v) => v,
		Err(e) => return Plan::failed(e),
	};
	let (ctx, replays, challenged) = (ctx.clone(), replays.clone(), challenged.clone());
	let job: Job = Box::new(move || {
		// A whistleblower that cannot fetch the checkpoints demands them on chain and
		// waits for their pages (the solver checks its own run, which it holds).
		if role == "whistleblower" {
			if let Some(demand) = published::ensure_checkpoints(&ctx, task, segment, &view)? {
				return Ok(Some(demand));
			}
		}
		let who = bonded.as_ref();
		let call = check_verdict(&ctx, (&replays, &challenged), (role, who), task, segment, &view)?;
		Ok(call
			.map(|(id, segment)| match ticket {
				Some(ticket) => TasksCall::watch_challenge { id, segment, ticket },
				None => TasksCall::challenge { id, segment },
			})
			.map(RuntimeCall::Tasks))
	});
	if quick {
		Plan::Quick(job)
	} else {
		Plan::Job(job)
	}
}

/// Replays the verdict's segment (for `role`'s logs); the verdict to challenge (task and
/// segment) when its replay hash is not what the replay reaches and this role has not
/// challenged it before. A whistleblower (`bonded`) whose bond covers no more games
/// waits (an error, so the check comes again): a refused challenge would spend a try.
pub fn check_verdict(
	ctx: &WorkerContext,
	(replays, challenged): (&Replays, &Challenged),
	(role, bonded): (&str, Option<&AccountId>),
	id: TaskId,
	segment: u32,
	view: &chain::Task,
) -> Result<Option<(TaskId, u32)>, String> {
	let audit = view
		.audits
		.iter()
		.find(|a| a.segment == segment)
		.ok_or_else(|| format!("task {id} has no audit of segment {segment}"))?;
	let verdict = audit.verdict.ok_or_else(|| format!("segment {segment} has no verdict"))?;
	let replayed = replayed(ctx, (replays, role), id, segment, view)?;
	let end = replayed.run.states.last().map(|s| s.root()).ok_or("empty replay")?;
	// In Threshold mode the verdict's distance is checked as its root is: both are
	// disputable in a game.
	let distance = distance_of(&replayed, segment)?;
	let agrees =
		end == verdict.replay_hash && distance.is_none_or(|d| same_distance(d, verdict.distance));
	ctx.metrics.replayed(agrees);
	if agrees {
		// No game will follow: the segment's states are not kept.
		if let Some(key) = segment::replay_key(id, segment, view) {
			replays.lock().unwrap_or_else(|e| e.into_inner()).remove(&key);
		}
		log::info!(
			target: "gensyn-worker",
			"{role}: task {id} segment {segment}: the verdict's replay checks out"
		);
		return Ok(None);
	}
	let run = segment::replay_key(id, segment, view).ok_or("no result")?;
	let key = verdict_key(run, audit).ok_or("no verdict")?;
	// The replay took a while: the challenge names only the segment, so it must still
	// be this verdict's (one voided and audited again meanwhile would be another's).
	let best = sc_client_api::HeaderBackend::info(&*ctx.client).best_hash;
	let now = chain::task(&ctx.client, best, id)?;
	let same = now.audits.iter().find(|a| a.segment == segment).is_some_and(|a| {
		a.challenger.is_none()
			&& segment::replay_key(id, segment, &now) == Some(run)
			&& verdict_key(run, a).as_ref() == Some(&key)
	});
	if !same {
		return Err(format!("task {id} segment {segment}: the verdict changed; checking again"));
	}
	if let Some(who) = bonded.filter(|_| !challenged.done(&key)) {
		if !chain::covers_another_game(&ctx.client, best, who, (id, segment), &audit.verifier)? {
			return Err(format!(
				"{role}: task {id} segment {segment}: the verdict is wrong, but this node's \
				 bond does not cover one more game over it: the challenge waits until a \
				 game of its is won or voided, or it bonds more"
			));
		}
	}
	match challenged.decide(&key) {
		Decision::Challenge => {}
		Decision::Played => {
			log::warn!(
				target: "gensyn-worker",
				"{role}: task {id} segment {segment}: the verdict stood against this node's \
				 challenge; not challenging it again"
			);
			return Ok(None);
		}
		Decision::GaveUp => {
			log::warn!(
				target: "gensyn-worker",
				"{role}: task {id} segment {segment}: {MAX_TRIES} challenges never opened a \
				 game; giving up on this verdict"
			);
			return Ok(None);
		}
	}
	if end == verdict.replay_hash {
		log::warn!(
			target: "gensyn-worker",
			"{role}: task {id} segment {segment}: the verdict posts distance {:e}, this \
			 node measures {:e} from the same replay: challenging",
			f32::from_bits(verdict.distance),
			distance.map_or(f32::NAN, f32::from_bits)
		);
	} else {
		log::warn!(
			target: "gensyn-worker",
			"{role}: task {id} segment {segment}: the verdict claims replay 0x{}, this \
			 node's replay reaches 0x{}: challenging",
			hash::to_hex(&verdict.replay_hash),
			hash::to_hex(&end)
		);
	}
	ctx.metrics.challenged();
	Ok(Some((id, segment)))
}

/// The leaves of `segment`'s start and end checkpoints of the `committed` run, with
/// their siblings, where this node read both from their pages on chain.
pub fn paged_leaves(
	ctx: &WorkerContext,
	committed: &segment::Committed,
	segment: u32,
) -> Option<prover::ProvedLeaves> {
	let indices = [segment, segment.saturating_add(1)];
	published::proved_leaves(&ctx.data.cache, &committed.root, &indices)
}

/// Threshold mode: the distance (f32 bits, as a verifier posts it) of the solver's
/// checkpoint from this node's replay of `segment`; `None` in Exact mode.
pub fn distance_of(replayed: &Replayed, segment: u32) -> Result<Option<u32>, String> {
	let Some(claimed) = replayed.claimed.as_ref() else { return Ok(None) };
	let (start, end) = replayed.run.segment_ends(segment).map_err(|e| e.to_string())?;
	let d = gensyn_workers::replay::relative_distance(&replayed.run.spec, start, end, claimed)
		.map_err(|e| format!("measuring segment {segment}'s distance: {e}"))?;
	Ok(Some(rule::posted_distance(d).to_bits()))
}

/// Whether two posted distances (f32 bits) are the same value, every NaN alike (the
/// game compares them so: hosts need not agree on a NaN's payload).
fn same_distance(a: u32, b: u32) -> bool {
	a == b || (f32::from_bits(a).is_nan() && f32::from_bits(b).is_nan())
}
