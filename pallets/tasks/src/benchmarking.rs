//! Benchmarks of the tasks pallet (frame-benchmarking v2).
//!
//! They assume the runtime's `T::Stake` is `pallet_gensyn_stake` (registered workers
//! are drawn) and that both pallets use the same currency. Each is measured in its
//! worst case: full active lists, the largest audit set, and for `on_initialize`
//! `n` tasks each settling with every audit verified.

use super::*;
use crate::Pallet as TasksPallet;
use frame_benchmarking::v2::*;
use frame_support::traits::{fungible::Mutate, Hooks};
use frame_system::{pallet_prelude::BlockNumberFor, RawOrigin};
use gensyn_primitives::{fixtures, Hash32 as SpecHash, Optimizer, Shape3, Uri};
use pallet_gensyn_stake::{Capability, DeviceKind};
use sp_runtime::traits::Bounded;

/// A small MNIST-shaped MLP task (784-32-10, 1,536 samples, one epoch in batches of 32,
/// a checkpoint every step) that audits every segment: 48 of them, the runtime's
/// `MaxAuditSegments`, so that each per-audit cost is measured at the runtime's most.
fn bench_spec() -> TaskSpec {
	let input = Shape3 { channels: 1, height: 28, width: 28 };
	fixtures::with(fixtures::mlp(input, 32, 10), |s| {
		s.data.uri = Uri::parse("https://example.invalid/mnist.idx.gz").unwrap_or_default();
		s.data.file_hash = SpecHash([1; 32]);
		s.data.chunk_root = SpecHash([2; 32]);
		s.data.samples = 1_536;
		s.training.batch_size = 32;
		s.training.seed = 7;
		s.training.optimizer = Optimizer::Sgd {
			lr: gensyn_primitives::F32Bits::from_f32(0.05),
			momentum: gensyn_primitives::F32Bits::from_f32(0.9),
		};
	})
}

/// What each benchmark account is given: a millionth of the largest balance, so that
/// funding two full active lists and the tasks' owners cannot overflow the issuance.
const FUND_SHARE: u32 = 1_000_000;

fn funded<T: Config>(name: &'static str, i: u32) -> T::AccountId {
	let who: T::AccountId = account(name, i, 0);
	T::Currency::set_balance(&who, BalanceOf::<T>::max_value() / FUND_SHARE.into());
	who
}

/// The forced-error secret of a benchmark verifier.
fn secret<T: Config>(who: &T::AccountId) -> Hash32 {
	sp_crypto_hashing::blake2_256(&who.encode())
}

fn register<T: Config + pallet_gensyn_stake::Config + pallet_gensyn_jackpot::Config>(
	who: &T::AccountId,
	role: Role,
) {
	let bond = pallet_gensyn_stake::Pallet::<T>::min_bond(role);
	let _ = <T as pallet_gensyn_stake::Config>::Currency::set_balance(
		who,
		pallet_gensyn_stake::BalanceOf::<T>::max_value() / FUND_SHARE.into(),
	);
	let _ = pallet_gensyn_stake::Pallet::<T>::register(
		RawOrigin::Signed(who.clone()).into(),
		role,
		bond,
		Capability { device: DeviceKind::Gpu, memory_mib: 1 << 20, mgas_per_sec: 1_000 },
		BoundedVec::truncate_from(alloc::vec![b'e'; 16]),
	);
	if role == Role::Verifier {
		let _ = pallet_gensyn_jackpot::Pallet::<T>::commit(
			RawOrigin::Signed(who.clone()).into(),
			sp_crypto_hashing::blake2_256(&secret::<T>(who)),
		);
	}
}

/// Fills the active lists of solvers and verifiers.
fn workers<T: Config + pallet_gensyn_stake::Config + pallet_gensyn_jackpot::Config>() {
	let n = <T as pallet_gensyn_stake::Config>::MaxActivePerRole::get();
	for i in 0..n {
		register::<T>(&account("solver", i, 0), Role::Solver);
		register::<T>(&account("verifier", i, 0), Role::Verifier);
	}
}

/// The tensors of every benchmark checkpoint (zeros; their steps tell them apart).
fn bench_tensors() -> Vec<Vec<f32>> {
	let lengths = gensyn_primitives::publish::tensor_lengths(&bench_spec());
	lengths.iter().map(|n| alloc::vec![0.0; *n as usize]).collect()
}

/// The checkpoint hashes of a benchmark run of `n` checkpoints: real states, so that a
/// demanded one can be published.
fn leaves(n: u32) -> alloc::vec::Vec<Hash32> {
	let roots: Vec<Hash32> = bench_tensors().iter().map(|t| merkle::tensor_root(t)).collect();
	(0..n).map(|k| gensyn_primitives::publish::state_root_of(k.into(), &roots)).collect()
}

/// A task whose verdicts are all posted and revealed, and the segment of one of them.
fn passed<T: Config + pallet_gensyn_jackpot::Config>(owner: &T::AccountId) -> (TaskId, u32) {
	let id = verifying::<T>(owner);
	verify_all::<T>(id);
	let segment = Audits::<T>::get(id).first().map(|a| a.segment).unwrap_or(0);
	(id, segment)
}

/// Submits a task and returns its id and drawn solver.
fn submitted<T: Config>(owner: &T::AccountId) -> (TaskId, T::AccountId) {
	let _ = TasksPallet::<T>::submit_task(RawOrigin::Signed(owner.clone()).into(), bench_spec());
	let id = NextTaskId::<T>::get().saturating_sub(1);
	let solver = Tasks::<T>::get(id).and_then(|t| t.solver).unwrap_or_else(|| owner.clone());
	(id, solver)
}

/// A Threshold task being profiled, and its drawn profilers.
fn profiling<T: Config>(
	owner: &T::AccountId,
) -> Result<(TaskId, Vec<T::AccountId>), BenchmarkError> {
	let mut spec = bench_spec();
	spec.verification.mode = VerificationMode::Threshold;
	let _ = TasksPallet::<T>::submit_task(RawOrigin::Signed(owner.clone()).into(), spec);
	let id = NextTaskId::<T>::get().saturating_sub(1);
	// Profilers are drawn at the task's first deadline.
	let at = Tasks::<T>::get(id).map(|t| t.deadline).unwrap_or_default();
	frame_system::Pallet::<T>::set_block_number(at);
	TasksPallet::<T>::on_initialize(at);
	let profilers: Vec<T::AccountId> = Tasks::<T>::get(id)
		.map(|t| t.profilers.iter().map(|p| p.who.clone()).collect())
		.unwrap_or_default();
	// Runtimes without profiling (a zero `ProfilePeriod`) have nothing to measure.
	if profilers.is_empty() {
		return Err(BenchmarkError::Skip);
	}
	Ok((id, profilers))
}

/// The threshold every benchmark profiler proposes (f32 bits), and its salt.
const PROFILE: (u32, [u8; 32]) = (0x3c23_d70a, [7; 32]);

/// Commits `who`'s benchmark profile for task `id`.
fn commit<T: Config>(id: TaskId, who: &T::AccountId) -> Result<(), BenchmarkError> {
	let commitment = profile_commitment(id, who, PROFILE.0, &PROFILE.1);
	TasksPallet::<T>::commit_profile(RawOrigin::Signed(who.clone()).into(), id, commitment)
		.map_err(|_| BenchmarkError::Stop("a commitment was refused"))
}

/// A Threshold task whose drawn profilers all committed but one, and that one.
fn all_but_one_committed<T: Config>(
	owner: &T::AccountId,
) -> Result<(TaskId, T::AccountId), BenchmarkError> {
	let (id, mut profilers) = profiling::<T>(owner)?;
	let last = profilers.pop().ok_or(BenchmarkError::Skip)?;
	for p in profilers {
		commit::<T>(id, &p)?;
	}
	Ok((id, last))
}

/// A task with its result committed and its verifiers drawn.
fn verifying<T: Config>(owner: &T::AccountId) -> TaskId {
	let (id, solver) = submitted::<T>(owner);
	let _ = TasksPallet::<T>::accept_task(RawOrigin::Signed(solver.clone()).into(), id);
	let n = Tasks::<T>::get(id).map(|t| t.checkpoints).unwrap_or(0);
	let _ = TasksPallet::<T>::submit_result(
		RawOrigin::Signed(solver).into(),
		id,
		[0; 32],
		merkle::root(&leaves(n)),
		n,
		BoundedVec::default(),
	);
	// The draw may move itself once (by up to `RandomnessDelay` blocks) before it is due.
	for _ in 0..3 {
		let Some(task) = Tasks::<T>::get(id).filter(|t| t.phase == Phase::Drawing) else {
			break;
		};
		frame_system::Pallet::<T>::set_block_number(task.deadline);
		// Randomness made after the result, which a benchmark runtime has no block author
		// to make: the verifier draw would wait for it.
		Beacon::<T>::put(([9; 32], task.deadline, [9; 32]));
		TasksPallet::<T>::on_initialize(task.deadline);
	}
	id
}

fn proof(n: u32, segment: u32) -> CheckpointProof {
	let l = leaves(n);
	let p = merkle::proof(&l, segment.saturating_add(1) as usize);
	CheckpointProof {
		checkpoint_hash: l.get(segment.saturating_add(1) as usize).copied().unwrap_or_default(),
		siblings: BoundedVec::truncate_from(p.map(|p| p.siblings).unwrap_or_default()),
	}
}

/// Posts every verdict of task `id` honestly and reveals the verifiers' secrets.
fn verify_all<T: Config + pallet_gensyn_jackpot::Config>(id: TaskId) {
	let n = Tasks::<T>::get(id).map(|t| t.checkpoints).unwrap_or(0);
	for a in Audits::<T>::get(id) {
		let p = proof(n, a.segment);
		let h = p.checkpoint_hash;
		let _ = TasksPallet::<T>::submit_verification(
			RawOrigin::Signed(a.verifier).into(),
			id,
			a.segment,
			0,
			h,
			p,
		);
	}
	// Reveals open in the window's last third.
	if let Some(from) = RevealsFrom::<T>::get(id) {
		if frame_system::Pallet::<T>::block_number() < from {
			frame_system::Pallet::<T>::set_block_number(from);
		}
	}
	for a in Audits::<T>::get(id) {
		let _ = pallet_gensyn_jackpot::Pallet::<T>::reveal(
			RawOrigin::Signed(a.verifier.clone()).into(),
			id,
			secret::<T>(&a.verifier),
		);
	}
}

/// Whether the runtime's arbiter opens a game over `segment` of task `id` against
/// `challenger` (tried, then cancelled): where it has none, challenges are refused and
/// there is nothing to measure.
fn arbiter_plays<T: Config>(
	id: TaskId,
	segment: u32,
	challenger: &T::AccountId,
) -> Result<(), BenchmarkError> {
	let verifier = Audits::<T>::get(id).into_iter().find(|a| a.segment == segment);
	if let Some(a) = verifier {
		if T::Arbiter::open(id, segment, challenger, &a.verifier).is_err() {
			return Err(BenchmarkError::Weightless);
		}
		T::Arbiter::cancel(id, segment);
	}
	Ok(())
}

#[benchmarks(where T: pallet_gensyn_stake::Config + pallet_gensyn_jackpot::Config)]
mod benchmarks {
	use super::*;

	#[benchmark]
	fn submit_task() {
		workers::<T>();
		let owner = funded::<T>("owner", 0);
		#[extrinsic_call]
		_(RawOrigin::Signed(owner), bench_spec());
		assert_eq!(NextTaskId::<T>::get(), 1);
	}

	#[benchmark]
	fn cancel_task() {
		workers::<T>();
		let owner = funded::<T>("owner", 0);
		let (id, _) = submitted::<T>(&owner);
		#[extrinsic_call]
		_(RawOrigin::Signed(owner), id);
		assert!(Tasks::<T>::get(id).is_none());
	}

	#[benchmark]
	fn accept_task() {
		workers::<T>();
		let owner = funded::<T>("owner", 0);
		let (id, solver) = submitted::<T>(&owner);
		#[extrinsic_call]
		_(RawOrigin::Signed(solver), id);
		assert_eq!(Tasks::<T>::get(id).map(|t| t.phase), Some(Phase::Training));
	}

	#[benchmark]
	fn decline_task() {
		workers::<T>();
		let owner = funded::<T>("owner", 0);
		let (id, solver) = submitted::<T>(&owner);
		#[extrinsic_call]
		_(RawOrigin::Signed(solver.clone()), id);
		let task = Tasks::<T>::get(id);
		assert!(task.is_some_and(|t| t.phase == Phase::Queued && t.excluded.contains(&solver)));
	}

	#[benchmark]
	fn submit_result() {
		workers::<T>();
		let owner = funded::<T>("owner", 0);
		let (id, solver) = submitted::<T>(&owner);
		let _ = TasksPallet::<T>::accept_task(RawOrigin::Signed(solver.clone()).into(), id);
		let n = Tasks::<T>::get(id).map(|t| t.checkpoints).unwrap_or(0);
		let loc = BoundedVec::truncate_from(alloc::vec![b'l'; T::MaxLocationLen::get() as usize]);
		#[extrinsic_call]
		_(RawOrigin::Signed(solver), id, [0; 32], merkle::root(&leaves(n)), n, loc);
		assert_eq!(Tasks::<T>::get(id).map(|t| t.phase), Some(Phase::Drawing));
	}

	#[benchmark]
	fn submit_verification() {
		workers::<T>();
		let owner = funded::<T>("owner", 0);
		let id = verifying::<T>(&owner);
		let n = Tasks::<T>::get(id).map(|t| t.checkpoints).unwrap_or(0);
		let audits = Audits::<T>::get(id);
		// Post all but the last, so the measured call opens the challenge window.
		let count = audits.len();
		for a in audits.iter().take(count.saturating_sub(1)) {
			let p = proof(n, a.segment);
			let h = p.checkpoint_hash;
			let _ = TasksPallet::<T>::submit_verification(
				RawOrigin::Signed(a.verifier.clone()).into(),
				id,
				a.segment,
				0,
				h,
				p,
			);
		}
		let last = audits.last().cloned();
		let (verifier, segment) = match last {
			Some(a) => (a.verifier, a.segment),
			None => (owner, 0),
		};
		let p = proof(n, segment);
		let h = p.checkpoint_hash;
		#[extrinsic_call]
		_(RawOrigin::Signed(verifier), id, segment, 0, h, p);
		assert_eq!(Tasks::<T>::get(id).map(|t| t.phase), Some(Phase::Challenge));
	}

	#[benchmark]
	fn report_unavailable() {
		workers::<T>();
		let owner = funded::<T>("owner", 0);
		let id = verifying::<T>(&owner);
		let audits = Audits::<T>::get(id);
		// Report all but the last, so the measured call opens the challenge window.
		let count = audits.len();
		for a in audits.iter().take(count.saturating_sub(1)) {
			let _ = TasksPallet::<T>::report_unavailable(
				RawOrigin::Signed(a.verifier.clone()).into(),
				id,
				a.segment,
			);
		}
		let (verifier, segment) = match audits.last().cloned() {
			Some(a) => (a.verifier, a.segment),
			None => (owner, 0),
		};
		#[extrinsic_call]
		_(RawOrigin::Signed(verifier), id, segment);
		assert_eq!(Tasks::<T>::get(id).map(|t| t.phase), Some(Phase::Challenge));
	}

	#[benchmark]
	fn commit_profile() -> Result<(), BenchmarkError> {
		workers::<T>();
		let owner = funded::<T>("owner", 0);
		// The last commitment is the heaviest: it asks whether a seat could be filled
		// (a scan of the active verifiers) and opens the reveals.
		let (id, last) = all_but_one_committed::<T>(&owner)?;
		let commitment = profile_commitment(id, &last, PROFILE.0, &PROFILE.1);
		#[extrinsic_call]
		_(RawOrigin::Signed(last), id, commitment);
		assert_eq!(Tasks::<T>::get(id).map(|t| t.phase), Some(Phase::ProfileReveal));
		Ok(())
	}

	#[benchmark]
	fn reveal_profile() -> Result<(), BenchmarkError> {
		workers::<T>();
		let owner = funded::<T>("owner", 0);
		// The last reveal is the heaviest: it decides the threshold, pays every profiler
		// and files the solver draw.
		let (id, mut profilers) = profiling::<T>(&owner)?;
		for p in &profilers {
			commit::<T>(id, p)?;
		}
		let last = profilers.pop().ok_or(BenchmarkError::Skip)?;
		for p in profilers {
			TasksPallet::<T>::reveal_profile(RawOrigin::Signed(p).into(), id, PROFILE.0, PROFILE.1)
				.map_err(|_| BenchmarkError::Stop("a reveal was refused"))?;
		}
		#[extrinsic_call]
		_(RawOrigin::Signed(last), id, PROFILE.0, PROFILE.1);
		let decided = TasksPallet::<T>::bounded_threshold(PROFILE.0);
		assert_eq!(Tasks::<T>::get(id).and_then(|t| t.threshold), Some(decided));
		Ok(())
	}

	#[benchmark]
	fn decline_profile() -> Result<(), BenchmarkError> {
		workers::<T>();
		let owner = funded::<T>("owner", 0);
		// The last profiler's decline, after the others committed: their reveals open.
		// (Its weight counts the heavier case of profiles posted before commitments,
		// which decides the threshold at once.)
		let (id, last) = all_but_one_committed::<T>(&owner)?;
		#[extrinsic_call]
		_(RawOrigin::Signed(last), id);
		assert_eq!(
			Tasks::<T>::get(id).map(|t| t.phase),
			Some(Phase::ProfileReveal),
			"the others reveal"
		);
		Ok(())
	}

	#[benchmark]
	fn challenge() -> Result<(), BenchmarkError> {
		workers::<T>();
		let owner = funded::<T>("owner", 0);
		let id = verifying::<T>(&owner);
		verify_all::<T>(id);
		let whistleblower: T::AccountId = account("whistleblower", 0, 0);
		register::<T>(&whistleblower, Role::Whistleblower);
		let segment = Audits::<T>::get(id).first().map(|a| a.segment).unwrap_or(0);
		arbiter_plays::<T>(id, segment, &whistleblower)?;
		#[extrinsic_call]
		_(RawOrigin::Signed(whistleblower), id, segment);
		assert_eq!(Tasks::<T>::get(id).map(|t| t.phase), Some(Phase::Disputed));
		Ok(())
	}

	/// A challenge with a winning ticket of the round's watch lottery: the ticket's check
	/// (a VRF proof's, in a runtime) on top of a challenge's.
	#[benchmark]
	fn watch_challenge() -> Result<(), BenchmarkError> {
		workers::<T>();
		// A runtime without a lottery has no watchers: nothing to measure.
		let (watcher, seed, ticket) =
			T::BenchmarkHelper::watch_ticket().ok_or(BenchmarkError::Weightless)?;
		// On the list before the round's lottery is drawn, so that it plays in it.
		register::<T>(&watcher, Role::Whistleblower);
		let owner = funded::<T>("owner", 0);
		let (id, segment) = passed::<T>(&owner);
		let task = Tasks::<T>::get(id).ok_or(BenchmarkError::Stop("no task"))?;
		let mut draw = Watches::<T>::get(id).ok_or(BenchmarkError::Weightless)?;
		// The seed the ticket was made for, and every ticket wins: what is measured is a
		// winner's challenge, not the odds.
		draw.seed = seed;
		draw.odds = u64::MAX;
		Watches::<T>::insert(id, draw);
		if !TasksPallet::<T>::won_watch(id, &task, &watcher, &ticket) {
			return Err(BenchmarkError::Stop("the benchmark watcher did not win"));
		}
		arbiter_plays::<T>(id, segment, &watcher)?;
		#[extrinsic_call]
		_(RawOrigin::Signed(watcher), id, segment, ticket);
		assert_eq!(Tasks::<T>::get(id).map(|t| t.phase), Some(Phase::Disputed));
		Ok(())
	}

	/// A proof that the run's first checkpoint is not the task's seeded start, the
	/// heavier kind: besides the state root under the checkpoint root, a chunk of a
	/// tensor under the tensor's root and the seeded value of each of its elements. The
	/// benchmark run's tensors are zeros, which the seeded weights are not.
	#[benchmark]
	fn prove_off_task() -> Result<(), BenchmarkError> {
		workers::<T>();
		let owner = funded::<T>("owner", 0);
		let (id, _) = passed::<T>(&owner);
		let n = Tasks::<T>::get(id).map(|t| t.checkpoints).unwrap_or(0);
		let tensors = bench_tensors();
		let first = tensors.first().ok_or(BenchmarkError::Stop("no tensor"))?;
		let chunks: Vec<Hash32> =
			first.chunks(merkle::TENSOR_CHUNK_ELEMENTS).map(merkle::tensor_leaf).collect();
		let values = first.iter().take(merkle::TENSOR_CHUNK_ELEMENTS).map(|v| v.to_bits());
		let siblings = |p: Option<merkle::MerkleProof>| {
			BoundedVec::truncate_from(p.map(|p| p.siblings).unwrap_or_default())
		};
		let chunk = StateChunk {
			tensor: 0,
			chunk: 0,
			values: BoundedVec::truncate_from(values.collect()),
			siblings: siblings(merkle::proof(&chunks, 0)),
		};
		let roots: Vec<Hash32> = tensors.iter().map(|t| merkle::tensor_root(t)).collect();
		let proof = OffTaskProof {
			index: 0,
			siblings: siblings(merkle::proof(&leaves(n), 0)),
			step: 0,
			tensor_roots: BoundedVec::truncate_from(roots),
			chunk: Some(chunk),
		};
		T::BenchmarkHelper::accept_off_task(0);
		let prover = funded::<T>("prover", 0);
		#[extrinsic_call]
		_(RawOrigin::Signed(prover.clone()), id, proof);
		assert_eq!(OffTask::<T>::get(id), Some(prover));
		Ok(())
	}

	#[benchmark]
	fn demand_checkpoint() {
		workers::<T>();
		let owner = funded::<T>("owner", 0);
		let (id, segment) = passed::<T>(&owner);
		let demander = funded::<T>("demander", 0);
		#[extrinsic_call]
		_(RawOrigin::Signed(demander), id, segment);
		assert_eq!(Demands::<T>::get(id).len(), 1);
	}

	/// A full page (hashing dominates: 256 leaves and their tree), after the pages
	/// before it, by the solver's standby verifier (whose right to publish reads the
	/// round's audits).
	#[benchmark]
	fn publish_page() -> Result<(), BenchmarkError> {
		workers::<T>();
		let owner = funded::<T>("owner", 0);
		let (id, segment) = passed::<T>(&owner);
		let demander = funded::<T>("demander", 0);
		TasksPallet::<T>::demand_checkpoint(RawOrigin::Signed(demander).into(), id, segment)
			.map_err(|_| BenchmarkError::Stop("the demand was refused"))?;
		// Past the solver's turn, by its standby verifier: the check reads the audits.
		let task = Tasks::<T>::get(id).ok_or(BenchmarkError::Stop("no task"))?;
		let d = Demands::<T>::get(id).first().cloned().ok_or(BenchmarkError::Stop("no demand"))?;
		let turn = TasksPallet::<T>::solvers_turn_end(&d);
		frame_system::Pallet::<T>::set_block_number(turn);
		let publisher = d
			.standby
			.clone()
			.filter(|p| task.solver.as_ref() != Some(p))
			.ok_or(BenchmarkError::Stop("no standby verifier"))?;
		let n = task.checkpoints;
		let tensors = bench_tensors();
		let refs: Vec<&[f32]> = tensors.iter().map(|t| t.as_slice()).collect();
		let pages = gensyn_primitives::publish::pages(segment.into(), &refs, &leaves(n), segment)
			.ok_or(BenchmarkError::Stop("no pages"))?;
		let full = pages
			.iter()
			.position(|p| p.bytes.len() == gensyn_primitives::publish::PAGE_BYTES)
			.ok_or(BenchmarkError::Stop("no full page"))?;
		let send = |p: &gensyn_primitives::publish::Page| {
			let bytes = BoundedVec::truncate_from(p.bytes.clone());
			let origin = RawOrigin::Signed(publisher.clone()).into();
			TasksPallet::<T>::publish_page(
				origin,
				id,
				segment,
				p.item,
				p.page,
				bytes,
				p.proof.clone(),
			)
		};
		for p in pages.iter().take(full) {
			send(p).map_err(|_| BenchmarkError::Stop("a page was refused"))?;
		}
		let p = pages.get(full).cloned().ok_or(BenchmarkError::Stop("no full page"))?;
		let bytes = BoundedVec::truncate_from(p.bytes);
		#[extrinsic_call]
		_(RawOrigin::Signed(publisher), id, segment, p.item, p.page, bytes, p.proof);
		let next = Demands::<T>::get(id).first().and_then(|d| d.next);
		assert_ne!(next, Some((p.item, p.page)), "the page was taken");
		Ok(())
	}

	/// `n` tasks settle in one block, each paying every audit's verifier.
	#[benchmark]
	fn on_initialize(n: Linear<0, { T::MaxDeadlinesPerBlock::get() }>) {
		workers::<T>();
		let mut ids = alloc::vec::Vec::new();
		for i in 0..n {
			let owner = funded::<T>("owner", i);
			let id = verifying::<T>(&owner);
			verify_all::<T>(id);
			ids.push(id);
		}
		// Gather every settlement into one block.
		let at: BlockNumberFor<T> =
			frame_system::Pallet::<T>::block_number().saturating_add(T::ChallengePeriod::get());
		let at = at.saturating_add(1000u32.into());
		for id in &ids {
			Tasks::<T>::mutate(id, |t| {
				if let Some(t) = t {
					t.deadline = at;
				}
			});
			crate::Deadlines::<T>::push(at, *id);
		}
		frame_system::Pallet::<T>::set_block_number(at);
		// Every task reached its settlement: none failed to be set up.
		assert!(ids
			.iter()
			.all(|id| Tasks::<T>::get(id).is_some_and(|t| t.phase == Phase::Challenge)));
		#[block]
		{
			TasksPallet::<T>::on_initialize(at);
		}
		// Each deadline was handled: its task settled, or (a forced segment among its
		// verdicts, which a runtime's forced-error rate may draw) went back to be audited
		// again.
		assert!(ids
			.iter()
			.all(|id| Tasks::<T>::get(id)
				.is_none_or(|t| t.phase == Phase::Verifying && t.deadline > at)));
	}

	impl_benchmark_test_suite!(TasksPallet, crate::mock::new_bench_ext(), crate::mock::Test);
}
