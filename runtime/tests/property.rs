//! The tasks pallet's random action sequences against the whole runtime: every challenge
//! goes to the real arbitration pallet, whose games end by a party's concession or a
//! missed move deadline, and blocks run through `Executive`. After every action the
//! tasks, stake and arbitration pallets' invariants hold and issuance equals the sum of
//! all balances; at the end every task has ended, every game is closed, and nothing is
//! held, engaged or bound.

mod common;

use codec::Encode;
use common::{check_conservation, now, register, signed, spec, who};
use frame_support::traits::fungible::InspectHold;
use gensyn_primitives::{merkle, Permill, VerificationMode};
use gensyn_runtime::{
	Arbitration, Balances, Jackpot, Runtime, RuntimeEvent, RuntimeHoldReason, RuntimeOrigin, Stake,
	Tasks, UNIT,
};
use pallet_gensyn_stake::Role;
use pallet_gensyn_tasks::CheckpointProof;
use sp_keyring::Sr25519Keyring;
use sp_runtime::AccountId32;

/// Numbers drawn from a seed by hashing (seed, draw count): reproducible per seed.
struct Draws {
	seed: u64,
	n: u64,
}

impl Draws {
	/// A number below `m` (0 when `m` is 0).
	fn below(&mut self, m: u64) -> u64 {
		self.n += 1;
		let h = sp_io::hashing::blake2_256(&(self.seed, self.n).encode());
		u64::from_le_bytes(h[..8].try_into().expect("8 bytes")) % m.max(1)
	}

	/// One of `items`.
	fn pick<T: Copy>(&mut self, items: &[T]) -> Option<T> {
		items.get(self.below(items.len() as u64) as usize).copied()
	}
}

/// The accounts that act: submitters, workers and bystanders alike.
const CAST: [Sr25519Keyring; 8] = [
	Sr25519Keyring::Alice,
	Sr25519Keyring::Bob,
	Sr25519Keyring::Charlie,
	Sr25519Keyring::Dave,
	Sr25519Keyring::Eve,
	Sr25519Keyring::Ferdie,
	Sr25519Keyring::One,
	Sr25519Keyring::Two,
];

/// The checkpoint leaves every solver commits (the spec's three checkpoints).
fn leaves() -> Vec<[u8; 32]> {
	(0u8..3).map(|i| merkle::hash_leaf(&[i])).collect()
}

/// A proof of `segment`'s end checkpoint.
fn proof(segment: u32) -> CheckpointProof {
	let l = leaves();
	let p = merkle::proof(&l, segment as usize + 1).expect("a leaf");
	CheckpointProof {
		checkpoint_hash: l[segment as usize + 1],
		siblings: p.siblings.try_into().expect("a short proof"),
	}
}

/// `k`'s forced-error secret.
fn secret(k: Sr25519Keyring) -> [u8; 32] {
	sp_io::hashing::blake2_256(&k.to_account_id().encode())
}

/// Every invariant the three pallets and the balances keep.
fn check() {
	check_conservation();
	pallet_gensyn_tasks::Pallet::<Runtime>::do_try_state().expect("tasks invariants");
	pallet_gensyn_stake::Pallet::<Runtime>::do_try_state().expect("stake invariants");
	pallet_gensyn_arbitration::Pallet::<Runtime>::do_try_state().expect("arbitration invariants");
}

/// How often each outcome happened, so that the test cannot pass vacuously, and each
/// task's escrow as its events tell it.
#[derive(Default, Debug)]
struct Seen {
	completed: u32,
	rejected: u32,
	failed: u32,
	declined: u32,
	profiled: u32,
	games: u32,
	ruled: u32,
	/// Per task: (what its events say was held, what they say was paid out or refunded).
	ledger: std::collections::BTreeMap<u64, (u128, u128)>,
}

impl Seen {
	/// Counts the outcomes among the events so far and books their escrow movements, then
	/// clears them (a call's events and a block's are each counted once).
	fn note(&mut self) {
		use pallet_gensyn_tasks::Event as E;
		for r in frame_system::Pallet::<Runtime>::events() {
			let RuntimeEvent::Tasks(e) = r.event else { continue };
			let (id, held, out) = match e {
				E::TaskSubmitted { id, escrow, .. } => (id, escrow, 0),
				E::ProofRejected { id, compensated, .. } => {
					self.rejected += 1;
					(id, compensated, 0)
				}
				E::Profiled { id, paid, .. } => {
					self.profiled += 1;
					(id, 0, paid.iter().map(|(_, amount)| *amount).sum())
				}
				E::ProfilesPaid { id, paid } => {
					(id, 0, paid.iter().map(|(_, amount)| *amount).sum())
				}
				E::VerifiersPaid { id, paid } => (id, 0, paid),
				E::TaskCompleted {
					id, solver_paid, jackpot_paid, treasury_paid, refunded, ..
				} => {
					self.completed += 1;
					(id, 0, solver_paid + jackpot_paid + treasury_paid + refunded)
				}
				E::TaskCancelled { id, refunded } => (id, 0, refunded),
				E::TaskFailed { id, refunded, .. } => {
					self.failed += 1;
					(id, 0, refunded)
				}
				E::TaskDeclined { .. } => {
					self.declined += 1;
					continue;
				}
				E::Challenged { .. } => {
					self.games += 1;
					continue;
				}
				E::DisputeResolved { .. } => {
					self.ruled += 1;
					continue;
				}
				_ => continue,
			};
			let entry = self.ledger.entry(id).or_default();
			entry.0 += held;
			entry.1 += out;
		}
		frame_system::Pallet::<Runtime>::reset_events();
	}

	/// Every ended task's events account for its escrow to the planck; the ledger is then
	/// cleared for the next sequence.
	fn books_balance(&mut self, seed: u64) {
		assert!(!self.ledger.is_empty(), "seed {seed}: no task");
		for (id, (held, out)) in std::mem::take(&mut self.ledger) {
			assert_eq!(held, out, "seed {seed}: task {id}'s events do not add up");
		}
	}

	/// Runs `blocks` blocks, counting each one's outcomes.
	fn run(&mut self, blocks: u32) {
		for _ in 0..blocks {
			common::run_to_block(now() + 1);
			self.note();
		}
	}
}

/// The live tasks' ids.
fn task_ids() -> Vec<u64> {
	pallet_gensyn_tasks::Tasks::<Runtime>::iter_keys().collect()
}

/// `account` as a signed origin.
fn origin(account: AccountId32) -> RuntimeOrigin {
	RuntimeOrigin::signed(account)
}

/// One random action by a random account; results are ignored, since an invalid action
/// must fail cleanly.
fn act(d: &mut Draws, seen: &mut Seen) {
	let id = d.pick(&task_ids());
	let k = d.pick(&CAST).expect("a cast");
	match d.below(16) {
		0 => {
			let fraction = 1 + d.below(1_000_000) as u32;
			let threshold = d.below(3) == 0;
			let s = gensyn_primitives::fixtures::with(spec(), |s| {
				s.verification.audit_fraction = Permill(fraction);
				if threshold {
					s.verification.mode = VerificationMode::Threshold;
				}
			});
			let _ = Tasks::submit_task(signed(k), s);
		}
		1 => {
			let role = [Role::Solver, Role::Verifier, Role::Whistleblower][d.below(3) as usize];
			let cap = pallet_gensyn_stake::Capability {
				device: pallet_gensyn_stake::DeviceKind::Cpu,
				memory_mib: 16_384,
				mgas_per_sec: 1_000,
			};
			let endpoint = b"http://127.0.0.1:9".to_vec().try_into().expect("short");
			let _ = Stake::register(signed(k), role, 100 * UNIT, cap, endpoint);
		}
		2..=6 => {
			if let Some(id) = id {
				step(d, id, who(k));
			}
		}
		7 => {
			let games: Vec<_> = pallet_gensyn_arbitration::Disputes::<Runtime>::iter().collect();
			if let Some(i) = d.pick(&(0..games.len()).collect::<Vec<_>>()) {
				let ((task, segment), g) = &games[i];
				let by = if d.below(2) == 0 { &g.challenger } else { &g.defendant };
				let _ = Arbitration::concede(origin(by.clone()), *task, *segment);
			}
		}
		8 => {
			if let Some(t) = id.and_then(pallet_gensyn_tasks::Tasks::<Runtime>::get) {
				let _ = Tasks::cancel_task(origin(t.owner), id.unwrap_or_default());
			}
		}
		9 => {
			let role = [Role::Solver, Role::Verifier, Role::Whistleblower][d.below(3) as usize];
			let _ = Stake::unbond(signed(k), role);
		}
		10 => {
			let _ = Jackpot::commit(signed(k), sp_io::hashing::blake2_256(&secret(k)));
		}
		11 => {
			if let Some(id) = id {
				// The task's verifiers reveal once the chain opens reveals, as their
				// workers do (the blocks run to that point first).
				let from = pallet_gensyn_tasks::RevealsFrom::<Runtime>::get(id);
				if let Some(wait) = from.and_then(|f| f.checked_sub(now())) {
					seen.run(wait);
				}
				for a in pallet_gensyn_tasks::Audits::<Runtime>::get(id) {
					if let Some(v) = CAST.iter().find(|c| who(**c) == a.verifier) {
						let _ = Jackpot::reveal(signed(*v), id, secret(*v));
					}
				}
			}
		}
		12 => {
			// Anyone tries a party's call out of turn.
			if let Some(id) = id {
				let segment = d.below(3) as u32;
				let _ = match d.below(3) {
					0 => Tasks::accept_task(signed(k), id),
					1 => Tasks::submit_verification(signed(k), id, segment, 0, [7; 32], proof(0)),
					_ => Tasks::challenge(signed(k), id, segment),
				};
			}
		}
		_ => seen.run(1 + d.below(40) as u32),
	}
}

/// The next move of task `id`'s phase, by the party whose move it is (honest or not, at
/// random); `any` stands in where the phase names nobody.
fn step(d: &mut Draws, id: u64, any: AccountId32) {
	use pallet_gensyn_tasks::Phase;
	let Some(t) = pallet_gensyn_tasks::Tasks::<Runtime>::get(id) else { return };
	let solver = t.solver.clone().unwrap_or(any.clone());
	let audits = pallet_gensyn_tasks::Audits::<Runtime>::get(id);
	let audit = d.pick(&(0..audits.len()).collect::<Vec<_>>()).map(|i| audits[i].clone());
	let _ = match (t.phase, audit) {
		(Phase::Profiling | Phase::ProfileReveal, _) => {
			let commitments = pallet_gensyn_tasks::ProfileCommitments::<Runtime>::get(id);
			let committed = |w: &AccountId32| commitments.iter().any(|(c, _)| c == w);
			// In Profiling the next to commit; in ProfileReveal the next to reveal.
			let pending = t.profilers.iter().find(|p| {
				p.threshold.is_none() && (t.phase == Phase::ProfileReveal || !committed(&p.who))
			});
			let profiler = pending.map(|p| p.who.clone()).unwrap_or(any);
			// Each profiler's threshold is fixed by its account, so that its reveal can
			// match its commitment (under the floor, 0.05, but for one account in four, past
			// the ceiling); now and then it reveals another (refused: it lapses).
			let byte = AsRef::<[u8]>::as_ref(&profiler)[0];
			let threshold =
				if byte.is_multiple_of(4) { 1.0 } else { f32::from(1 + byte % 3) / 100.0 };
			let revealed = if d.below(5) == 0 { threshold * 2.0 } else { threshold };
			if t.phase == Phase::Profiling {
				let c = pallet_gensyn_tasks::profile_commitment(
					id,
					&profiler,
					threshold.to_bits(),
					&[3; 32],
				);
				Tasks::commit_profile(origin(profiler), id, c)
			} else {
				Tasks::reveal_profile(origin(profiler), id, revealed.to_bits(), [3; 32])
			}
		}
		(Phase::Offered, _) if d.below(3) == 0 => Tasks::decline_task(origin(solver), id),
		(Phase::Offered, _) => Tasks::accept_task(origin(solver), id),
		(Phase::Training, _) => {
			let l = leaves();
			let location = b"/runs/0".to_vec().try_into().expect("short location");
			Tasks::submit_result(origin(solver), id, l[2], merkle::root(&l), 3, location)
		}
		(Phase::Verifying, Some(a)) => {
			let (by, p) = (origin(a.verifier), proof(a.segment));
			match d.below(6) {
				0 => Tasks::report_unavailable(by, id, a.segment),
				1 => Tasks::submit_verification(by, id, a.segment, 0, [7; 32], p),
				_ => {
					let honest = p.checkpoint_hash;
					Tasks::submit_verification(by, id, a.segment, 0, honest, p)
				}
			}
		}
		(Phase::Challenge | Phase::Disputed, Some(a)) => {
			let by = match d.below(3) {
				0 => solver,
				1 => who(Sr25519Keyring::Dave),
				_ => who(Sr25519Keyring::Two),
			};
			Tasks::challenge(origin(by), id, a.segment)
		}
		_ => Ok(()),
	};
}

/// Sequences per run, and actions per sequence.
const SEEDS: u64 = 12;
const ACTIONS: u32 = 240;

/// The first block, short windows (so that a sequence runs out in fewer blocks), and a
/// base crew of registered workers whose verifiers committed their secrets.
fn setup() {
	use Sr25519Keyring::*;
	common::run_to_block(1);
	common::set_task_periods(20, 20, Some(6));
	for (k, role) in [
		(Bob, Role::Solver),
		(Ferdie, Role::Solver),
		(Charlie, Role::Verifier),
		(Eve, Role::Verifier),
		(One, Role::Verifier),
		(Dave, Role::Whistleblower),
		(Two, Role::Whistleblower),
	] {
		register(k, role, 100 * UNIT);
	}
	for k in [Charlie, Eve, One] {
		Jackpot::commit(signed(k), sp_io::hashing::blake2_256(&secret(k))).expect("commits");
	}
}

/// Once everything ran out: nothing held for a task or game, engaged, bound or stored.
fn nothing_left(seed: u64) {
	let escrow = RuntimeHoldReason::Tasks(pallet_gensyn_tasks::HoldReason::Escrow);
	let game = RuntimeHoldReason::Arbitration(pallet_gensyn_arbitration::HoldReason::GameBond);
	for k in Sr25519Keyring::iter() {
		assert_eq!(Balances::balance_on_hold(&escrow, &who(k)), 0, "seed {seed}: escrow");
		assert_eq!(Balances::balance_on_hold(&game, &who(k)), 0, "seed {seed}: game bond");
	}
	assert!(pallet_gensyn_tasks::WorkerTasks::<Runtime>::iter().next().is_none());
	assert!(pallet_gensyn_tasks::Audits::<Runtime>::iter().next().is_none());
	assert!(pallet_gensyn_tasks::Specs::<Runtime>::iter().next().is_none());
	assert!(pallet_gensyn_stake::Engagements::<Runtime>::iter().next().is_none());
	assert!(pallet_gensyn_jackpot::Bindings::<Runtime>::iter().next().is_none());
}

/// Random sequences of every call of the tasks, stake, jackpot and arbitration pallets
/// that a task's parties make, with blocks in between: the pallets' invariants hold
/// throughout, and once every deadline has passed no task, game, escrow, engagement or
/// binding is left.
#[test]
fn random_sequences_against_the_real_arbiter_conserve_funds_and_end() {
	let mut seen = Seen::default();
	for seed in 0..SEEDS {
		let mut ext = common::new_ext("development");
		ext.execute_with(setup);
		let mut d = Draws { seed, n: 0 };
		for _ in 0..ACTIONS {
			ext.execute_with(|| {
				act(&mut d, &mut seen);
				seen.note();
				check();
			});
			// Each block's storage root is over the uncommitted changes: committing them
			// keeps a block's cost flat as the sequence grows.
			ext.commit_all().expect("commits");
		}
		// Let everything run out: every deadline passes, every game times out.
		let limit = ext.execute_with(now) + 100_000;
		while ext.execute_with(|| {
			!(task_ids().is_empty()
				&& pallet_gensyn_arbitration::Disputes::<Runtime>::iter().next().is_none())
		}) {
			ext.execute_with(|| {
				assert!(now() < limit, "seed {seed}: a task or game never ended");
				seen.run(100);
				check();
			});
			ext.commit_all().expect("commits");
		}
		ext.execute_with(|| nothing_left(seed));
		seen.books_balance(seed);
	}
	println!("outcomes over all seeds: {seen:?}");
	let Seen { completed, rejected, failed, declined, profiled, games, ruled, .. } = seen;
	assert!(
		[completed, rejected, failed, declined, profiled, games, ruled].iter().all(|n| *n > 0),
		"every outcome is exercised: {seen:?}"
	);
}
