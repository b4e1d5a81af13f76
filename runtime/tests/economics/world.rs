//! The simulated population: who plays which strategy, what each task's solver really
//! did, and what each party spent off chain (compute and fees), so that a party's profit
//! is its balance change less its costs.

use codec::Encode;
use frame_support::{dispatch::GetDispatchInfo, traits::fungible::Mutate};
use gensyn_primitives::{fixtures, merkle, TaskSpec, VerificationMode};
use gensyn_runtime::{Balances, Runtime, RuntimeCall, RuntimeOrigin, Stake, UNIT};
use pallet_gensyn_stake::{Capability, DeviceKind, Role};
use sp_core::Pair as _;
use sp_runtime::{traits::Dispatchable, AccountId32, DispatchResult, Perbill};
use std::collections::{BTreeMap, BTreeSet};

/// A task's id.
pub type TaskId = u64;

/// What a party does in its role. Every strategy but `Honest` is a deviation whose
/// profit the table sets against honest play.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Strategy {
	/// Follows the protocol.
	Honest,
	/// Solver: trains nothing and commits made-up checkpoints.
	LazySolver,
	/// Solver: fakes each segment with this probability (percent), trains the rest.
	Faker(u32),
	/// Solver: fakes half its segments, counting on its partner verifier to pass them.
	ColludingSolver,
	/// Solver: fakes half its segments and contests every fail on them, for the game a
	/// defender might lose on time.
	ContestingFaker,
	/// Verifier: passes the colluding solver's segments unreplayed; honest elsewhere.
	BribedVerifier,
	/// Verifier: never replays; passes every segment but its forced errors.
	LazyVerifier,
	/// Verifier: never posts a verdict.
	SilentVerifier,
	/// Verifier: honest, but tells its own whistleblower account its forced segments.
	PartneredVerifier,
	/// Whistleblower: the partnered verifier's account; challenges that verifier's forced
	/// errors without replaying anything, and checks nothing else.
	OwnWhistleblower,
	/// Whistleblower: never replays; challenges forced errors it computes from reveals.
	Copycat,
	/// Whistleblower: challenges passing verdicts at random, without replaying.
	Spammer,
	/// Submitter: posts tasks whose data no solver can use.
	Griefer,
}

/// One account of the population.
#[derive(Clone, Debug)]
pub struct Member {
	/// Its account: the public key of the sr25519 pair made from `seed`.
	pub who: AccountId32,
	/// The seed of its key (a whistleblower signs its watch tickets with it).
	pub seed: [u8; 32],
	/// Its role (submitters have none on chain).
	pub role: Option<Role>,
	/// What it does.
	pub strategy: Strategy,
}

/// The population: honest parties in every role and one account (or pair) per deviation.
pub fn population() -> Vec<Member> {
	use Strategy::*;
	let mut cast = Vec::new();
	let mut add = |role, strategy, n| {
		for _ in 0..n {
			let tag = cast.len() as u8 + 1;
			let seed = [tag; 32];
			let who = AccountId32::from(sp_core::sr25519::Pair::from_seed(&seed).public());
			cast.push(Member { who, seed, role, strategy });
		}
	};
	add(Some(Role::Solver), Honest, 4);
	for s in [LazySolver, Faker(1), Faker(10), Faker(50), ColludingSolver, ContestingFaker] {
		add(Some(Role::Solver), s, 1);
	}
	add(Some(Role::Verifier), Honest, 6);
	for s in [LazyVerifier, SilentVerifier, BribedVerifier, PartneredVerifier] {
		add(Some(Role::Verifier), s, 1);
	}
	add(Some(Role::Whistleblower), Honest, 3);
	for s in [OwnWhistleblower, Copycat, Spammer] {
		add(Some(Role::Whistleblower), s, 1);
	}
	add(None, Honest, 3);
	add(None, Griefer, 1);
	cast
}

/// What the simulation knows that the chain does not, and what each party spent.
pub struct World {
	/// The population.
	pub cast: Vec<Member>,
	/// The seed of every random choice.
	pub seed: u64,
	/// Draw counter for [`Self::chance`].
	draws: u64,
	/// The share of the chain's price that the compute really costs its worker.
	pub cost_share: Perbill,
	/// Per task: which segments its solver faked (decided when it commits).
	pub fakes: BTreeMap<TaskId, Vec<bool>>,
	/// Per task: the checkpoint leaves its solver committed.
	pub leaves: BTreeMap<TaskId, Vec<[u8; 32]>>,
	/// Tasks whose data no solver can use (a griefer's).
	pub unusable: BTreeSet<TaskId>,
	/// Off-chain costs (compute and fees) per account, in planck.
	pub costs: BTreeMap<AccountId32, u128>,
	/// Value received per account: a submitter's completed model, at the price it paid.
	pub credit: BTreeMap<AccountId32, u128>,
	/// Tasks each account took part in.
	pub touched: BTreeMap<AccountId32, BTreeSet<TaskId>>,
	/// Things done once: (task, its round, segment, account, kind).
	pub done: BTreeSet<(TaskId, u32, u32, AccountId32, u8)>,
	/// Tasks submitted so far.
	pub submitted: u32,
	/// Each forced-error secret by its commitment.
	pub secrets: BTreeMap<[u8; 32], [u8; 32]>,
	/// Each whistleblower's score and ticket by lottery seed (a VRF, made once).
	pub tickets: BTreeMap<(AccountId32, [u8; 32]), (u64, gensyn_runtime::watch::WatchTicket)>,
}

/// The bond every worker holds: large enough that no slash in a run deactivates it, so
/// that each strategy is played throughout.
pub const BOND: u128 = 1_000_000 * UNIT;

/// The task every submitter posts: the MNIST MLP example (six segments, 10% audited) in
/// Exact mode, which the pinpoint game can rule on.
pub fn spec() -> TaskSpec {
	fixtures::with(fixtures::mnist_mlp(), |s| s.verification.mode = VerificationMode::Exact)
}

impl World {
	/// A world over `cast`, before set-up.
	pub fn new(cast: Vec<Member>, seed: u64, cost_share: Perbill) -> Self {
		World {
			cast,
			seed,
			draws: 0,
			cost_share,
			fakes: BTreeMap::new(),
			leaves: BTreeMap::new(),
			unusable: BTreeSet::new(),
			costs: BTreeMap::new(),
			credit: BTreeMap::new(),
			touched: BTreeMap::new(),
			done: BTreeSet::new(),
			submitted: 0,
			secrets: BTreeMap::new(),
			tickets: BTreeMap::new(),
		}
	}

	/// Funds everyone and registers the workers.
	pub fn set_up(&self) {
		for m in &self.cast {
			Balances::mint_into(&m.who, 1_000_000_000 * UNIT).expect("mints");
			let Some(role) = m.role else { continue };
			let cap =
				Capability { device: DeviceKind::Cpu, memory_mib: 16_384, mgas_per_sec: 1_000 };
			let endpoint = b"http://127.0.0.1:8700".to_vec().try_into().expect("short");
			Stake::register(RuntimeOrigin::signed(m.who.clone()), role, BOND, cap, endpoint)
				.expect("registers");
		}
	}

	/// Each verifier without a standing commitment commits a fresh secret, as its worker
	/// does once a draw bound the last one to a task.
	pub fn commit_secrets(&mut self) {
		let verifiers: Vec<AccountId32> = self
			.cast
			.iter()
			.filter(|m| m.role == Some(Role::Verifier))
			.map(|m| m.who.clone())
			.collect();
		for who in verifiers {
			if pallet_gensyn_jackpot::Commitments::<Runtime>::contains_key(&who) {
				continue;
			}
			self.draws += 1;
			let secret = merkle::blake2_256(&(b"secret", &who, self.seed, self.draws).encode());
			let commitment = merkle::blake2_256(&secret);
			let call = RuntimeCall::Jackpot(pallet_gensyn_jackpot::Call::commit { commitment });
			if self.send(&who, call).is_ok() {
				self.secrets.insert(commitment, secret);
			}
		}
	}

	/// The secret `who` bound to task `id`.
	pub fn secret(&self, who: &AccountId32, id: TaskId) -> Option<[u8; 32]> {
		let binding = pallet_gensyn_jackpot::Bindings::<Runtime>::get(who, id)?;
		self.secrets.get(&binding.commitment).copied()
	}

	/// `who`'s strategy (honest for accounts outside the population).
	pub fn strategy(&self, who: &AccountId32) -> Strategy {
		self.cast.iter().find(|m| m.who == *who).map_or(Strategy::Honest, |m| m.strategy)
	}

	/// The first member playing `strategy`.
	pub fn member(&self, strategy: Strategy) -> Option<AccountId32> {
		self.cast.iter().find(|m| m.strategy == strategy).map(|m| m.who.clone())
	}

	/// True with probability `percent` / 100, from the seed.
	pub fn chance(&mut self, percent: u32) -> bool {
		self.draws += 1;
		let h = merkle::blake2_256(&(self.seed, self.draws).encode());
		u32::from_le_bytes([h[0], h[1], h[2], h[3]]) % 100 < percent
	}

	/// A number below `n`, from the seed.
	pub fn below(&mut self, n: u32) -> u32 {
		self.draws += 1;
		let h = merkle::blake2_256(&(self.seed, self.draws).encode());
		u32::from_le_bytes([h[0], h[1], h[2], h[3]]) % n.max(1)
	}

	/// Books `amount` of off-chain cost to `who`.
	pub fn spend(&mut self, who: &AccountId32, amount: u128) {
		*self.costs.entry(who.clone()).or_default() += amount;
	}

	/// The real cost of compute the chain prices at `price`.
	pub fn compute(&self, price: u128) -> u128 {
		self.cost_share.mul_floor(price)
	}

	/// Notes that `who` took part in task `id`.
	pub fn touch(&mut self, who: &AccountId32, id: TaskId) {
		self.touched.entry(who.clone()).or_default().insert(id);
	}

	/// Whether `kind` was not yet done by `who` for `segment` of task `id` in its current
	/// round (a rejected proof sends the task to a new solver); marks it done.
	pub fn once(&mut self, id: TaskId, segment: u32, who: &AccountId32, kind: u8) -> bool {
		let round = pallet_gensyn_tasks::Tasks::<Runtime>::get(id).map_or(0, |t| t.rounds);
		self.done.insert((id, round, segment, who.clone(), kind))
	}

	/// Sends `call` signed by `who`, as a transaction would: its fee (the chain's fee for
	/// its weight and length) is booked to `who`, then it is dispatched.
	pub fn send(&mut self, who: &AccountId32, call: RuntimeCall) -> DispatchResult {
		// The call plus a signed extrinsic's address, signature and extensions.
		let len = call.encoded_size() as u32 + 110;
		let fee = pallet_transaction_payment::Pallet::<Runtime>::compute_fee(
			len,
			&call.get_dispatch_info(),
			0,
		);
		self.spend(who, fee);
		call.dispatch(RuntimeOrigin::signed(who.clone())).map(|_| ()).map_err(|e| e.error)
	}
}
