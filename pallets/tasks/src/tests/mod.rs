//! Tests of the tasks pallet: every call and error, every deadline firing in
//! `on_initialize`, settlement and failure paths, and a property test over random
//! action sequences. After every block the invariants are checked: both pallets'
//! `do_try_state`, total issuance equal to the sum of all accounts (and falling only by
//! what slashes burnt), and every live task scheduled at a future block.

use crate::{mock::*, *};
use frame_support::{
	assert_noop, assert_ok,
	traits::{fungible::InspectHold, Hooks},
};
use gensyn_primitives::{merkle, Permill as SpecPermill};
use pallet_gensyn_stake::{Capability, DeviceKind};

type T = Test;

mod attacks;
mod availability;
mod collateral;
mod disputes;
mod holding;
mod invariants;
mod jackpot;
mod migrations;
mod off_task;
mod profiling;
mod property;
mod reports;
mod settlement;
mod submission;
mod training;
mod unavailable;
mod upgrades;
mod verification;
mod views;
mod watch;

/// The MNIST MLP example over 10,000 gzipped digits (314 steps: seven 50-step segments).
fn spec() -> TaskSpec {
	use gensyn_primitives::{fixtures, DataFormat, Hash32, Uri};
	fixtures::with(fixtures::mnist_mlp(), |s| {
		s.data.uri = Uri::parse("file://data/mnist/train-10k.idx.gz").unwrap();
		s.data.file_hash = Hash32([0; 32]);
		s.data.chunk_root = Hash32([0; 32]);
		s.data.format = DataFormat::MnistIdxGz;
		s.data.samples = 10_000;
	})
}

/// What `who` holds in all: free, bonded and escrowed.
fn worth(who: u64) -> u64 {
	Balances::total_balance(&who)
}

/// The sum of [`worth`] over `who`.
fn worth_of(who: &[u64]) -> u64 {
	who.iter().map(|w| worth(*w)).sum()
}

/// [`spec`] in Exact mode, where a failing verdict is a replay hash a game can check.
fn exact() -> TaskSpec {
	spec_with(|s| s.verification.mode = VerificationMode::Exact)
}

fn spec_with(f: impl FnOnce(&mut TaskSpec)) -> TaskSpec {
	let mut s = spec();
	f(&mut s);
	s
}

fn cap(mem: u32) -> Capability {
	Capability { device: DeviceKind::Gpu, memory_mib: mem, mgas_per_sec: 1_000 }
}

/// Registers `who` in `role` with its default bond and 16 GiB (once: again is a no-op).
fn reg(who: u64, role: Role) {
	if Stake::bond(&who, role) > 0 {
		return;
	}
	let bond = match role {
		Role::Solver => 1_000,
		Role::Verifier => 500,
		Role::Whistleblower => 200,
	};
	reg_bonded(who, role, bond);
}

/// Registers `who` in `role` with `bond` and 16 GiB.
fn reg_bonded(who: u64, role: Role, bond: u64) {
	assert_ok!(Stake::register(
		RuntimeOrigin::signed(who),
		role,
		bond,
		cap(16_384),
		BoundedVec::truncate_from(b"http://w".to_vec())
	));
}

fn escrow_held(who: u64) -> u64 {
	Balances::balance_on_hold(&RuntimeHoldReason::TaskPallet(HoldReason::Escrow), &who)
}

/// Sum of every account's total balance.
fn sum_of_accounts() -> u64 {
	frame_system::Account::<T>::iter().map(|(_, a)| a.data.free + a.data.reserved).sum()
}

/// What slashes burnt so far (from events).
fn burnt() -> u64 {
	System::events()
		.into_iter()
		.filter_map(|e| match e.event {
			RuntimeEvent::Stake(pallet_gensyn_stake::Event::Slashed { outcome, .. }) => {
				Some(outcome.burnt)
			}
			_ => None,
		})
		.sum()
}

fn initial_issuance() -> u64 {
	ACCOUNTS * START + 2
}

/// Every invariant: both pallets' `do_try_state`, issuance against balances and burns.
fn check() {
	TaskPallet::do_try_state().unwrap();
	Stake::do_try_state().unwrap();
	// No engagement is counted on a worker that no live task counts on.
	let counted = TaskPallet::engaged_units();
	let audited = TaskPallet::audited_units();
	for (who, n) in pallet_gensyn_stake::Engagements::<T>::iter() {
		let (n, a) = (n.units, n.audits);
		assert!(counted.contains(&(who, n)), "{who} counted {n} units by no live task");
		assert!(a == 0 || audited.contains(&(who, a)), "{who} counted {a} audit units by none");
	}
	assert_eq!(
		pallet_balances::TotalIssuance::<Test>::get(),
		sum_of_accounts(),
		"issuance = sum of accounts"
	);
	assert_eq!(
		pallet_balances::TotalIssuance::<Test>::get(),
		initial_issuance() - burnt(),
		"only burns shrink it"
	);
}

/// Runs blocks up to `n` (inclusive), each with `on_initialize`, checking after each.
fn run_to(n: u64) {
	while System::block_number() < n {
		let b = System::block_number() + 1;
		System::set_block_number(b);
		TaskPallet::on_initialize(b);
		check();
	}
}

fn last_task() -> TaskId {
	NextTaskId::<T>::get() - 1
}

fn task(id: TaskId) -> Task<T> {
	Tasks::<T>::get(id).unwrap()
}

fn leaves(n: u32) -> Vec<[u8; 32]> {
	(0..n).map(|i| [i as u8 + 1; 32]).collect()
}

fn proof_for(n: u32, segment: u32) -> CheckpointProof {
	let l = leaves(n);
	let p = merkle::proof(&l, segment as usize + 1).unwrap();
	CheckpointProof {
		checkpoint_hash: l[segment as usize + 1],
		siblings: BoundedVec::truncate_from(p.siblings),
	}
}

fn events() -> Vec<Event<T>> {
	System::events()
		.into_iter()
		.filter_map(|e| if let RuntimeEvent::TaskPallet(ev) = e.event { Some(ev) } else { None })
		.collect()
}

/// Submits the MNIST MLP spec from account 1 with one solver (10) and one verifier (11)
/// registered.
fn submitted() -> TaskId {
	submitted_with(spec())
}

/// Submits `spec` from account 1 with one solver (10) and one verifier (11) registered
/// (a solver is drawn only when another could check its result).
fn submitted_with(spec: TaskSpec) -> TaskId {
	reg(10, Role::Solver);
	reg(11, Role::Verifier);
	assert_ok!(TaskPallet::submit_task(RuntimeOrigin::signed(1), spec));
	last_task()
}

/// A task through training up to its verifier draw; verifiers 11, 12 and whistleblower
/// 13 registered (13 is drawn to watch it, alone among whistleblowers).
fn committed() -> TaskId {
	committed_with(spec())
}

/// [`committed`] for `spec`.
fn committed_with(spec: TaskSpec) -> TaskId {
	let id = submitted_with(spec);
	reg(11, Role::Verifier);
	reg(12, Role::Verifier);
	reg(13, Role::Whistleblower);
	assert_ok!(TaskPallet::accept_task(RuntimeOrigin::signed(10), id));
	let n = task(id).checkpoints;
	let root = merkle::root(&leaves(n));
	assert_ok!(TaskPallet::submit_result(
		RuntimeOrigin::signed(10),
		id,
		[9; 32],
		root,
		n,
		BoundedVec::truncate_from(b"/run/1".to_vec())
	));
	id
}

/// A task whose verifiers are drawn.
fn verifying() -> TaskId {
	verifying_with(spec())
}

/// [`verifying`] for `spec`.
fn verifying_with(spec: TaskSpec) -> TaskId {
	let id = committed_with(spec);
	let d = task(id).deadline;
	run_to(d);
	assert_eq!(task(id).phase, Phase::Verifying);
	id
}

/// Accepts and commits the task as its current solver; runs to its verifier draw.
fn train_as_solver(id: TaskId) -> u64 {
	let solver = task(id).solver.unwrap();
	assert_ok!(TaskPallet::accept_task(RuntimeOrigin::signed(solver), id));
	let n = task(id).checkpoints;
	assert_ok!(TaskPallet::submit_result(
		RuntimeOrigin::signed(solver),
		id,
		[9; 32],
		merkle::root(&leaves(n)),
		n,
		BoundedVec::truncate_from(b"/run/2".to_vec())
	));
	run_to(task(id).deadline);
	assert_eq!(task(id).phase, Phase::Verifying);
	solver
}

/// Posts every verdict honestly (`pass`: replay equals the checkpoint).
fn verify_all(id: TaskId, pass: bool) {
	verify_each(id, |_| pass);
}

/// Posts every verdict, each a pass where `passes` says so of its verifier.
fn verify_each(id: TaskId, passes: impl Fn(u64) -> bool) {
	let n = task(id).checkpoints;
	for a in Audits::<T>::get(id) {
		let pass = passes(a.verifier);
		let p = proof_for(n, a.segment);
		let replay = if pass { p.checkpoint_hash } else { [0xee; 32] };
		let distance = if pass { 0 } else { 0x4000_0000 };
		assert_ok!(TaskPallet::submit_verification(
			RuntimeOrigin::signed(a.verifier),
			id,
			a.segment,
			distance,
			replay,
			p
		));
	}
}

/// Turns the real jackpot on at `rate`, funds the pot, and commits secrets for
/// verifiers 11 and 12 (secret: `[who; 32]`).
fn with_jackpot(rate: sp_runtime::Perbill) {
	use_jackpot(rate);
	assert_ok!(Balances::transfer_allow_death(RuntimeOrigin::signed(20), JACKPOT, 10_000));
}

fn commit(who: u64) {
	assert_ok!(JackpotPallet::commit(
		RuntimeOrigin::signed(who),
		sp_io::hashing::blake2_256(&[who as u8; 32])
	));
}

/// Runs the blocks to task `id`'s reveal point, if it is still to come.
fn run_to_reveals(id: TaskId) {
	let from = RevealsFrom::<T>::get(id).expect("the window opened");
	if frame_system::Pallet::<T>::block_number() < from {
		run_to(from);
	}
}

/// `who` reveals its secret for task `id` once the chain accepts it: the blocks run to the
/// task's reveal point first.
fn reveal(who: u64, id: TaskId) {
	if let Some(from) = RevealsFrom::<T>::get(id) {
		if frame_system::Pallet::<T>::block_number() < from {
			run_to(from);
		}
	}
	assert_ok!(JackpotPallet::reveal(RuntimeOrigin::signed(who), id, [who as u8; 32]));
}

/// A task with the real jackpot at `rate`, verifiers drawn (both committed).
fn verifying_with_jackpot(rate: sp_runtime::Perbill) -> TaskId {
	verifying_with_jackpot_for(rate, spec())
}

/// [`verifying_with_jackpot`] for `spec`.
fn verifying_with_jackpot_for(rate: sp_runtime::Perbill, spec: TaskSpec) -> TaskId {
	verifying_by(rate, spec, &[11, 12])
}

/// A task of `spec` with the real jackpot at `rate`, drawn among `verifiers` (each
/// registered and committed); whistleblower 13 is registered before the draw, so that it
/// is drawn to watch the task (the only one whose challenges can earn a catch).
fn verifying_by(rate: sp_runtime::Perbill, spec: TaskSpec, verifiers: &[u64]) -> TaskId {
	with_jackpot(rate);
	let id = submitted_with(spec);
	for v in verifiers {
		reg(*v, Role::Verifier);
		commit(*v);
	}
	reg(13, Role::Whistleblower);
	assert_ok!(TaskPallet::accept_task(RuntimeOrigin::signed(10), id));
	assert_ok!(TaskPallet::submit_result(
		RuntimeOrigin::signed(10),
		id,
		[9; 32],
		merkle::root(&leaves(8)),
		8,
		BoundedVec::default()
	));
	run_to(3);
	assert_eq!(task(id).phase, Phase::Verifying);
	assert_eq!(watchers(id), vec![13], "the only whistleblower watches");
	id
}

/// A task with the real jackpot (nothing forced) whose two audited segments went to two
/// of four verifiers, both passed and unrevealed: one verdict to dispute, the other's
/// verifier to reveal or not, and verifiers left to audit again.
fn two_passes() -> (TaskId, Audit<u64>, Audit<u64>) {
	let two = spec_with(|s| s.verification.audit_fraction = SpecPermill(200_000));
	let id = verifying_by(sp_runtime::Perbill::zero(), two, &[11, 12, 14, 15]);
	let audits = Audits::<T>::get(id);
	assert_eq!(audits.len(), 2);
	assert_ne!(audits[0].verifier, audits[1].verifier);
	verify_all(id, true);
	(id, audits[0].clone(), audits[1].clone())
}

/// Reveals the secrets of every verifier drawn for `id`.
fn reveal_all(id: TaskId) {
	let mut done = Vec::new();
	for a in Audits::<T>::get(id) {
		if !done.contains(&a.verifier) {
			reveal(a.verifier, id);
			done.push(a.verifier);
		}
	}
}

/// The accounts whose tickets win task `id`'s watch lottery.
fn watchers(id: TaskId) -> Vec<u64> {
	let t = task(id);
	(1..=ACCOUNTS).filter(|w| TaskPallet::won_watch(id, &t, w, &ticket(*w, id))).collect()
}

/// `who` challenges `segment` of task `id` with its watch ticket.
fn watch_challenge(who: u64, id: TaskId, segment: u32) -> DispatchResult {
	TaskPallet::watch_challenge(RuntimeOrigin::signed(who), id, segment, ticket(who, id))
}

/// `who` posts an honest pass on `segment` of task `id`.
fn pass(id: TaskId, who: u64, segment: u32) {
	let p = proof_for(task(id).checkpoints, segment);
	let h = p.checkpoint_hash;
	assert_ok!(TaskPallet::submit_verification(RuntimeOrigin::signed(who), id, segment, 0, h, p));
}

/// A whistleblower wins the game over a passing verdict of a task in `mode`; with
/// `spare` the verifier that was not drawn stays active (a possible re-auditor), else it
/// unbonds first. Returns the task and the overturned verifier.
fn overturned_pass(mode: VerificationMode, spare: bool) -> (TaskId, u64) {
	let id = verifying();
	Specs::<T>::mutate(id, |s| {
		if let Some(s) = s {
			s.verification.mode = mode;
		}
	});
	let a = Audits::<T>::get(id)[0].clone();
	if !spare {
		let other = if a.verifier == 11 { 12 } else { 11 };
		assert_ok!(Stake::unbond(RuntimeOrigin::signed(other), Role::Verifier));
	}
	reg(13, Role::Whistleblower);
	verify_all(id, true);
	assert_ok!(TaskPallet::challenge(RuntimeOrigin::signed(13), id, a.segment));
	let vb = Stake::bond(&a.verifier, Role::Verifier);
	let w = Balances::free_balance(13);
	rule(id, a.segment, true);
	assert_eq!(Stake::bond(&a.verifier, Role::Verifier), vb - 30);
	assert_eq!(Balances::free_balance(13), w + 15);
	assert_noop!(
		<TaskPallet as DisputeOutcome>::resolve(id, a.segment, true),
		Error::<T>::WrongPhase
	);
	(id, a.verifier)
}

/// The randomness of blocks `from + 1..=due` fixed (the most a party acting at `from`
/// could line up for a draw due at `due`), and of the nine after it set by `later`.
fn line_up(from: u64, due: u64, later: u8) {
	AUTHORED.with(|a| {
		let mut a = a.borrow_mut();
		a.extend((from + 1..=due).map(|b| (b, [b as u8; 32])));
		a.extend((due + 1..due + 10).map(|b| (b, [later ^ b as u8; 32])));
	});
}

/// The arbiter rules on the game over `segment` of task `id`. Where the ruling voids a
/// verdict, its segment is audited again `RandomnessDelay` blocks later, from randomness
/// neither party knew when the game ended (nothing is drawn in the ruling's block), and
/// the draw may move itself once from there: runs to that draw.
fn rule(id: TaskId, segment: u32, challenger_won: bool) {
	let drawn = || events().iter().filter(|e| matches!(e, Event::Reaudited { .. })).count();
	let before = drawn();
	assert_ok!(<TaskPallet as DisputeOutcome>::resolve(id, segment, challenger_won));
	assert_eq!(drawn(), before, "no re-audit is drawn in the ruling's block");
	let due = || {
		let demands = Demands::<T>::get(id);
		Audits::<T>::get(id).iter().any(|a| TaskPallet::due_reaudit(a, &demands))
	};
	let t = task(id);
	if t.phase == Phase::Challenge && due() {
		run_to(t.deadline);
		let t = task(id);
		if t.phase == Phase::Challenge && due() && t.deadline < t.window_end {
			run_to(t.deadline);
		}
	}
}

/// The segments of task `id` given to new verifiers (its phase is Verifying again) are
/// passed by them, who reveal their secrets; then the window runs out.
fn reaudits_pass(id: TaskId) {
	assert_eq!(task(id).phase, Phase::Verifying, "audited again");
	let owed: Vec<Audit<u64>> =
		Audits::<T>::get(id).into_iter().filter(|a| a.awaits_verdict()).collect();
	assert!(!owed.is_empty());
	for a in &owed {
		assert!(a.reaudits > 0, "a re-audit");
		pass(id, a.verifier, a.segment);
	}
	for a in &owed {
		reveal(a.verifier, id);
	}
	run_to(task(id).deadline);
}

/// Whether task `id` failed unverified (a drawn segment nobody checked).
fn unverified(id: TaskId) -> bool {
	events().iter().any(
		|e| matches!(e, Event::TaskFailed { id: i, reason: FailReason::Unverified, .. } if *i == id),
	)
}

/// The salt test profilers commit with.
const SALT: [u8; 32] = [5; 32];

/// `who` commits to threshold `t` for task `id`.
fn commit_threshold(who: u64, id: TaskId, t: f32) -> DispatchResult {
	let commitment = profile_commitment(id, &who, t.to_bits(), &SALT);
	TaskPallet::commit_profile(RuntimeOrigin::signed(who), id, commitment)
}

/// `who` reveals threshold `t` for task `id`.
fn reveal_threshold(who: u64, id: TaskId, t: f32) -> DispatchResult {
	TaskPallet::reveal_profile(RuntimeOrigin::signed(who), id, t.to_bits(), SALT)
}

/// Each of `posts` commits its threshold, then each reveals it, in order: what profilers
/// do once all are drawn.
fn post_profiles(id: TaskId, posts: &[(u64, f32)]) {
	for (who, t) in posts {
		assert_ok!(commit_threshold(*who, id, *t));
	}
	for (who, t) in posts {
		assert_ok!(reveal_threshold(*who, id, *t));
	}
}

/// Registers solver 10 and `verifiers` and submits the MNIST MLP (Threshold mode) from
/// account 1; returns the task once its profilers are drawn (`RandomnessDelay`, two
/// blocks, after the submission: block 3).
fn profiled_among(verifiers: &[u64]) -> TaskId {
	reg(10, Role::Solver);
	for v in verifiers {
		reg(*v, Role::Verifier);
	}
	assert_ok!(TaskPallet::submit_task(RuntimeOrigin::signed(1), spec()));
	let id = last_task();
	assert!(task(id).profilers.is_empty(), "none drawn at the submission");
	run_to(task(id).deadline);
	id
}
