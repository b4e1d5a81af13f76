//! Each party's moves, block by block: what a submitter, solver, verifier, whistleblower
//! and game player of each strategy sends, read from the chain's state as its worker
//! would read it. A game ends by the concession of the side that could not defend its
//! claim move by move (its replay was wrong), which is how a played-out game ends too.

use crate::world::{spec, Strategy, TaskId, World};
use codec::Encode;
use gensyn_primitives::merkle;
use gensyn_runtime::{
	watch::{self, WatchTicket},
	Runtime, RuntimeCall,
};
use pallet_gensyn_tasks::{Audit, CheckpointProof, Phase};
use sp_runtime::AccountId32;

type TasksCall = pallet_gensyn_tasks::Call<Runtime>;
type Task = pallet_gensyn_tasks::Task<Runtime>;

/// Kinds of things done once per (task, segment, account).
const VERDICT: u8 = 0;
const CHECKED: u8 = 1;
const REVEALED: u8 = 2;
const CONCEDED: u8 = 3;
const CONTESTED: u8 = 4;
const TRIED: u8 = 5;
const COMMITTED: u8 = 6;

/// Everyone's moves in the current block.
pub fn act(w: &mut World, in_flight: u32, target: u32) {
	w.commit_secrets();
	submit(w, in_flight, target);
	let ids: Vec<TaskId> = pallet_gensyn_tasks::Tasks::<Runtime>::iter_keys().collect();
	for id in ids {
		let Some(task) = pallet_gensyn_tasks::Tasks::<Runtime>::get(id) else { continue };
		note_parties(w, id, &task);
		match task.phase {
			Phase::Offered => offered(w, id, &task),
			Phase::Training => training(w, id, &task),
			Phase::Verifying => verifying(w, id),
			Phase::Challenge | Phase::Disputed => window(w, id, &task),
			_ => {}
		}
	}
	games(w);
}

/// Submitters keep `in_flight` tasks live until `target` were submitted; the griefer
/// posts one in twenty.
fn submit(w: &mut World, in_flight: u32, target: u32) {
	let live = pallet_gensyn_tasks::Tasks::<Runtime>::iter_keys().count() as u32;
	for _ in live..in_flight {
		if w.submitted >= target {
			return;
		}
		let griefer = w.member(Strategy::Griefer);
		let honest: Vec<AccountId32> = w
			.cast
			.iter()
			.filter(|m| m.role.is_none() && m.strategy == Strategy::Honest)
			.map(|m| m.who.clone())
			.collect();
		let grief = griefer.is_some() && w.chance(5);
		let who = match (grief, griefer) {
			(true, Some(g)) => g,
			_ => honest[w.below(honest.len() as u32) as usize].clone(),
		};
		let id = pallet_gensyn_tasks::NextTaskId::<Runtime>::get();
		let call = RuntimeCall::Tasks(TasksCall::submit_task { spec: spec() });
		if w.send(&who, call).is_ok() {
			w.submitted += 1;
			w.touch(&who, id);
			if grief {
				w.unusable.insert(id);
			}
		}
	}
}

/// Notes every party the chain drew for task `id` as taking part in it (a solver once it
/// accepted: a declined offer is no part in a task).
fn note_parties(w: &mut World, id: TaskId, task: &Task) {
	let accepted = task.phase != Phase::Offered;
	let mut parties: Vec<AccountId32> = task.solver.iter().filter(|_| accepted).cloned().collect();
	parties.extend(pallet_gensyn_tasks::Audits::<Runtime>::get(id).into_iter().map(|a| a.verifier));
	for p in parties {
		w.touch(&p, id);
	}
}

/// The drawn solver accepts, or declines a task whose data it cannot use (a solver
/// checks the data before it accepts, whatever it means to do with the task).
fn offered(w: &mut World, id: TaskId, task: &Task) {
	let Some(solver) = task.solver.clone() else { return };
	if !w.once(id, task.draws, &solver, TRIED) {
		return;
	}
	let call = if w.unusable.contains(&id) {
		TasksCall::decline_task { id }
	} else {
		TasksCall::accept_task { id }
	};
	let _ = w.send(&solver, RuntimeCall::Tasks(call));
}

/// The solver trains what its strategy trains and commits its checkpoints: a faked
/// segment's end checkpoint is not what training from its start gives.
fn training(w: &mut World, id: TaskId, task: &Task) {
	let Some(solver) = task.solver.clone() else { return };
	if task.result.is_some() || !w.once(id, 0, &solver, COMMITTED) {
		return;
	}
	let segments = task.checkpoints.saturating_sub(1) as usize;
	let fakes: Vec<bool> = (0..segments)
		.map(|_| match w.strategy(&solver) {
			Strategy::LazySolver => true,
			Strategy::Faker(p) => w.chance(p),
			Strategy::ColludingSolver | Strategy::ContestingFaker => w.chance(50),
			_ => false,
		})
		.collect();
	let leaves: Vec<[u8; 32]> = (0..=segments)
		.map(|i| {
			let faked = i > 0 && fakes[i - 1];
			merkle::hash_leaf(&(id, i as u32, faked).encode())
		})
		.collect();
	let trained = fakes.iter().filter(|f| !**f).count() as u128;
	let cost = w.compute(task.solver_pay) * trained / segments.max(1) as u128;
	let location = b"/runs/sim".to_vec().try_into().expect("short location");
	let call = TasksCall::submit_result {
		id,
		final_hash: leaves[segments],
		checkpoint_root: merkle::root(&leaves),
		checkpoints: task.checkpoints,
		location,
	};
	if w.send(&solver, RuntimeCall::Tasks(call)).is_ok() {
		w.spend(&solver, cost);
		w.fakes.insert(id, fakes);
		w.leaves.insert(id, leaves);
	}
}

/// Whether `audit` of task `id` is forced for its verifier (as its worker, and whoever
/// it told its secret, knows); a re-audit never is.
fn forced(w: &World, id: TaskId, audit: &Audit<AccountId32>) -> bool {
	let (verifier, segment) = (&audit.verifier, audit.segment);
	let Some(b) = pallet_gensyn_jackpot::Bindings::<Runtime>::get(verifier, id) else {
		return false;
	};
	if audit.reaudits > 0 {
		return false;
	}
	w.secret(verifier, id)
		.is_some_and(|s| pallet_gensyn_jackpot::is_forced(&s, b.seed.as_ref(), id, segment, b.rate))
}

/// Whether `segment` of task `id` was faked.
fn faked(w: &World, id: TaskId, segment: u32) -> bool {
	w.fakes.get(&id).and_then(|f| f.get(segment as usize)).copied().unwrap_or(false)
}

/// Whether `audit`'s verdict is wrong about the solver's work.
fn wrong(w: &World, id: TaskId, audit: &Audit<AccountId32>) -> bool {
	// A forced fail carries a made-up replay hash, which no replay reaches: wrong even
	// on a faked segment.
	let forced_fail = audit.verdict.is_some_and(|v| !v.pass) && forced(w, id, audit);
	forced_fail || audit.verdict.is_some_and(|v| v.pass == faked(w, id, audit.segment))
}

/// Each drawn verifier posts its verdict once: what its replay shows (honest), what it
/// was paid to say (bribed, on its partner's task), a pass it never replayed (lazy), or
/// nothing (silent). A forced segment always gets a fail, unreplayed.
fn verifying(w: &mut World, id: TaskId) {
	let solver = pallet_gensyn_tasks::Tasks::<Runtime>::get(id).and_then(|t| t.solver);
	let segment_pay = pallet_gensyn_tasks::Tasks::<Runtime>::get(id).map_or(0, |t| t.segment_pay);
	for a in pallet_gensyn_tasks::Audits::<Runtime>::get(id) {
		if !a.awaits_verdict() || !w.once(id, a.segment, &a.verifier, VERDICT) {
			continue;
		}
		let strategy = w.strategy(&a.verifier);
		let partner = solver.as_ref().map(|s| w.strategy(s)) == Some(Strategy::ColludingSolver);
		let is_forced = forced(w, id, &a);
		let pass = match strategy {
			Strategy::SilentVerifier => continue,
			_ if is_forced => false,
			Strategy::LazyVerifier => true,
			Strategy::BribedVerifier if partner => true,
			_ => {
				let cost = w.compute(segment_pay);
				w.spend(&a.verifier, cost);
				!faked(w, id, a.segment)
			}
		};
		let Some(leaves) = w.leaves.get(&id) else { continue };
		let end = a.segment as usize + 1;
		let Some(p) = merkle::proof(leaves, end) else { continue };
		let proof = CheckpointProof {
			checkpoint_hash: leaves[end],
			siblings: p.siblings.try_into().expect("a short proof"),
		};
		// A forced fail is unreplayed: its hash is made up, as a verifier's worker makes it.
		let replay_hash = if pass {
			leaves[end]
		} else if is_forced {
			merkle::blake2_256(&(id, a.segment, b"forced", &a.verifier).encode())
		} else {
			merkle::blake2_256(&(id, a.segment, b"replay").encode())
		};
		let call = TasksCall::submit_verification {
			id,
			segment: a.segment,
			distance: 0,
			replay_hash,
			proof,
		};
		let _ = w.send(&a.verifier.clone(), RuntimeCall::Tasks(call));
	}
}

/// The challenge window: the watcher checks every verdict, other whistleblowers play
/// their strategies, verifiers reveal once reveals open, and the solver contests a
/// wrong fail on a segment it really trained.
fn window(w: &mut World, id: TaskId, task: &Task) {
	let now = frame_system::Pallet::<Runtime>::block_number();
	let open = pallet_gensyn_tasks::RevealsFrom::<Runtime>::get(id).is_some_and(|f| now >= f);
	let audits = pallet_gensyn_tasks::Audits::<Runtime>::get(id);
	let whistleblowers: Vec<(AccountId32, [u8; 32], Strategy)> = w
		.cast
		.iter()
		.filter(|m| m.role == Some(pallet_gensyn_stake::Role::Whistleblower))
		.map(|m| (m.who.clone(), m.seed, m.strategy))
		.collect();
	for (who, seed, strategy) in whistleblowers {
		let ticket = ticket(w, (id, task), &audits, &who, &seed);
		if ticket.is_some() {
			// A watcher takes part in the round it watches, whatever it does there.
			w.touch(&who, id);
		}
		match strategy {
			Strategy::Honest if ticket.is_some() => {
				watch(w, id, task, (&who, ticket), &audits, None)
			}
			Strategy::OwnWhistleblower if ticket.is_some() => {
				let partner = w.member(Strategy::PartneredVerifier);
				watch(w, id, task, (&who, ticket), &audits, partner.as_ref())
			}
			Strategy::OwnWhistleblower => own_partner(w, id, &who, &audits),
			Strategy::Copycat if open => copy(w, id, &who, &audits),
			Strategy::Spammer => spam(w, id, &who, &audits),
			_ => {}
		}
	}
	if open {
		reveal(w, id, &audits);
		contest(w, id, task, &audits);
	}
}

/// `who`'s winning ticket of task `id`'s watch lottery, made with the key of `seed`, if
/// it may watch the round and won (what its worker computes, and nobody else can).
fn ticket(
	w: &mut World,
	(id, task): (TaskId, &Task),
	audits: &[Audit<AccountId32>],
	who: &AccountId32,
	seed: &[u8; 32],
) -> Option<WatchTicket> {
	use sp_core::{crypto::VrfSecret, Pair as _};
	let draw = pallet_gensyn_tasks::Watches::<Runtime>::get(id)?;
	let party = *who == task.owner
		|| task.solver.as_ref() == Some(who)
		|| audits.iter().any(|a| a.verifier == *who);
	let (score, ticket) = w
		.tickets
		.entry((who.clone(), draw.seed))
		.or_insert_with(|| {
			let pair = sp_core::sr25519::Pair::from_seed(seed);
			let signature = pair.vrf_sign(&watch::input(&draw.seed).into_sign_data());
			let score = watch::score_of(&pair.public(), &draw.seed, &signature).unwrap_or(u64::MAX);
			(score, WatchTicket::from_signature(&signature))
		})
		.clone();
	(!party && draw.won(score)).then_some(ticket)
}

/// The watcher replays each verdict once and challenges each wrong one with its
/// `ticket`. A verifier's own whistleblower account (`tipped`) skips its partner's
/// verdicts: its partner tells it which are forced, and the others are honest.
fn watch(
	w: &mut World,
	id: TaskId,
	task: &Task,
	(who, ticket): (&AccountId32, Option<WatchTicket>),
	audits: &[Audit<AccountId32>],
	tipped: Option<&AccountId32>,
) {
	for a in audits {
		if a.verdict.is_none() || !w.once(id, a.segment, &a.verifier, CHECKED) {
			continue;
		}
		if tipped != Some(&a.verifier) {
			let cost = w.compute(task.segment_pay);
			w.spend(who, cost);
		}
		if wrong(w, id, a) && a.challenger.is_none() && a.refuted_by.is_none() {
			challenge(w, who, id, a.segment, ticket.clone());
		}
	}
}

/// `who` challenges `segment` of task `id` (as a watcher, with its `ticket`); a
/// challenge the chain opens makes the task one `who` takes part in (a refused one costs
/// its fee only).
fn challenge(
	w: &mut World,
	who: &AccountId32,
	id: TaskId,
	segment: u32,
	ticket: Option<WatchTicket>,
) {
	let call = match ticket {
		Some(ticket) => TasksCall::watch_challenge { id, segment, ticket },
		None => TasksCall::challenge { id, segment },
	};
	if w.send(who, RuntimeCall::Tasks(call)).is_ok() {
		w.touch(who, id);
	}
}

/// The partnered verifier's own whistleblower also challenges that verifier's forced
/// errors in rounds it does not watch, replaying nothing (the chain refuses it).
fn own_partner(w: &mut World, id: TaskId, who: &AccountId32, audits: &[Audit<AccountId32>]) {
	let Some(partner) = w.member(Strategy::PartneredVerifier) else { return };
	for a in audits {
		let ours = a.verifier == partner && a.verdict.is_some_and(|v| !v.pass);
		if !ours || !forced(w, id, a) || !w.once(id, a.segment, who, TRIED) {
			continue;
		}
		challenge(w, who, id, a.segment, None);
	}
}

/// The copycat reads each reveal and challenges the forced errors it shows.
fn copy(w: &mut World, id: TaskId, who: &AccountId32, audits: &[Audit<AccountId32>]) {
	for a in audits {
		let revealed = pallet_gensyn_jackpot::Bindings::<Runtime>::get(&a.verifier, id)
			.is_some_and(|b| b.secret.is_some());
		let fail = a.verdict.is_some_and(|v| !v.pass);
		if !revealed || !fail || !forced(w, id, a) {
			continue;
		}
		if w.once(id, a.segment, who, TRIED) {
			challenge(w, who, id, a.segment, None);
		}
	}
}

/// The spammer challenges one passing verdict in one task of six, unreplayed.
fn spam(w: &mut World, id: TaskId, who: &AccountId32, audits: &[Audit<AccountId32>]) {
	if !w.once(id, u32::MAX, who, TRIED) || !w.chance(17) {
		return;
	}
	let Some(a) =
		audits.iter().find(|a| a.verdict.is_some_and(|v| v.pass) && a.challenger.is_none())
	else {
		return;
	};
	challenge(w, who, id, a.segment, None);
}

/// Every verifier with a verdict in the task reveals its secret once reveals open (the
/// silent one has none to reveal).
fn reveal(w: &mut World, id: TaskId, audits: &[Audit<AccountId32>]) {
	for a in audits {
		let bound = pallet_gensyn_jackpot::Bindings::<Runtime>::get(&a.verifier, id)
			.is_some_and(|b| b.secret.is_none());
		if !bound || w.strategy(&a.verifier) == Strategy::SilentVerifier {
			continue;
		}
		let Some(secret) = w.secret(&a.verifier, id) else { continue };
		if w.once(id, 0, &a.verifier, REVEALED) {
			let call = pallet_gensyn_jackpot::Call::<Runtime>::reveal { task: id, secret };
			let _ = w.send(&a.verifier.clone(), RuntimeCall::Jackpot(call));
		}
	}
}

/// The solver contests each fail on a segment it trained once the verifier's reveal
/// shows it no forced error (a contesting faker, each fail whatever it trained).
fn contest(w: &mut World, id: TaskId, task: &Task, audits: &[Audit<AccountId32>]) {
	let Some(solver) = task.solver.clone() else { return };
	let every = w.strategy(&solver) == Strategy::ContestingFaker;
	for a in audits {
		let fail = a.verdict.is_some_and(|v| !v.pass);
		let revealed = pallet_gensyn_jackpot::Bindings::<Runtime>::get(&a.verifier, id)
			.is_some_and(|b| b.secret.is_some());
		let contestable = fail && revealed && a.challenger.is_none() && a.refuted_by.is_none();
		if !contestable || (faked(w, id, a.segment) && !every) || forced(w, id, a) {
			continue;
		}
		if w.once(id, a.segment, &a.verifier, CONTESTED) {
			let _ = w
				.send(&solver, RuntimeCall::Tasks(TasksCall::challenge { id, segment: a.segment }));
		}
	}
}

/// Every open game ends by the concession of the side whose claim about the segment is
/// wrong: the verifier whose verdict is wrong, else the challenger.
fn games(w: &mut World) {
	let games: Vec<_> = pallet_gensyn_arbitration::Disputes::<Runtime>::iter().collect();
	for ((id, segment), g) in games {
		let audits = pallet_gensyn_tasks::Audits::<Runtime>::get(id);
		let Some(a) = audits.iter().find(|a| a.segment == segment) else { continue };
		let loser = if wrong(w, id, a) { g.defendant.clone() } else { g.challenger.clone() };
		// One concession per game: refused, the game runs to its timeout.
		if w.once(id, segment, &loser, CONCEDED) {
			let call = pallet_gensyn_arbitration::Call::<Runtime>::concede { task: id, segment };
			let _ = w.send(&loser, RuntimeCall::Arbitration(call));
		}
	}
}
