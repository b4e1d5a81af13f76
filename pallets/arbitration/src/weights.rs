//! Weights of the arbitration pallet.
//!
//! Counted by hand: the benchmarks (`benchmarking.rs`) run every call in its worst case
//! as tests against the mock, but not in the runtime (`gensyn-node benchmark pallet`):
//! they install dispute contexts, and their rulings call back into the tasks pallet,
//! which only the mock stands in for.
//! Storage reads and writes are counted per call, plus compute allowances measured
//! roughly on native code and doubled for wasm: rebuilding a step graph ≈ 40 µs, one blake2 hash of ≤ 1 KiB
//! ≈ 2 µs, one Merkle proof of 32 levels ≈ 70 µs, the data order ≈ 30 ns per sample.

#![allow(missing_docs)]

use core::marker::PhantomData;
use frame_support::{
	traits::Get,
	weights::{constants::RocksDbWeight, Weight},
};

/// Weight functions of the arbitration pallet.
pub trait WeightInfo {
	/// `prove_start`.
	fn prove_start() -> Weight;
	/// `bisect_steps`.
	fn bisect_steps() -> Weight;
	/// `bisect_reduction`.
	fn bisect_reduction() -> Weight;
	/// `pick`.
	fn pick() -> Weight;
	/// `open_step` with `t` tensor roots.
	fn open_step(t: u32) -> Weight;
	/// `pick_tensor`.
	fn pick_tensor() -> Weight;
	/// `descend`.
	fn descend() -> Weight;
	/// `open_chunk`.
	fn open_chunk() -> Weight;
	/// `pick_element`.
	fn pick_element() -> Weight;
	/// `answer_element` for a task of `s` data samples (the worst of its three answers).
	fn answer_element(s: u32) -> Weight;
	/// `open_term`.
	fn open_term() -> Weight;
	/// `choose`.
	fn choose() -> Weight;
	/// `post_sums`.
	fn post_sums() -> Weight;
	/// `open_sum_term` for a segment of `s` steps.
	fn open_sum_term(s: u32) -> Weight;
	/// `concede`.
	fn concede() -> Weight;
	/// `on_initialize` with `n` deadlines due.
	fn on_initialize(n: u32) -> Weight;
}

// Shared compute parts, in picoseconds of reference time.
const MOVE: u64 = 25_000_000;
const GRAPH: u64 = 40_000_000;
const PROOF: u64 = 70_000_000;
const PER_ROOT: u64 = 2_500_000;
const PER_SAMPLE: u64 = 30_000;
/// One step of the optimizer's carry for one element: the step's learning rate (a
/// `powf` or `cosf`), Adam's bias corrections (two `powf`), and the element's update.
const PER_CARRY_STEP: u64 = 400_000;
/// The ruling: bonds, the tasks pallet's resolve with its slash and, for a voided
/// verdict, the re-audit's deadline and its point (`MovedDraw`); counted as a
/// re-audit draw over the active verifier list, which the ruling once made. Its reads
/// and writes count the challenger's open games (`OpenChallenges`) too, and the loser's
/// active list, which a slash writes (the bond copied there). A false challenge of a
/// verdict that survived games is slashed twice (the second share pays no reporter), and
/// the verdict's count of games survived (`Survived`) is read and written: [`RULE_RW`].
const RULE: u64 = 150_000_000;
/// The reads and writes of a ruling's second slash (bond, hold, account, jackpot
/// account, total issuance, the active list's entry) and of the verdict's `Survived`
/// entry, and the round's demands, on top of the rest.
const RULE_RW: u64 = 8;
/// The ruling's proof: one full active list (the loser's role, which is also the list a
/// re-audit draws from when the loser is the verifier) and that role's `Joined` list (a
/// slash below the minimum bond takes the loser off both), bonds, accounts, the task,
/// its audits and bond units, and the challenger's count of open games.
const RULE_PROOF: u64 = RULE_LISTS_PROOF + RULE_ENTRIES_PROOF;
/// One role's active and `Joined` lists.
const RULE_LISTS_PROOF: u64 = pallet_gensyn_tasks::weights::ACTIVE_LIST_PROOF
	+ pallet_gensyn_tasks::weights::JOINED_LIST_PROOF;
/// The rest of a ruling's proof, with the round's demands (up to 10 KB), which a
/// voided verdict's re-audit reads to tell whether a report still stands.
const RULE_ENTRIES_PROOF: u64 = 20_650;

fn parts<W: Get<frame_support::weights::RuntimeDbWeight>>(
	ref_time: u64,
	proof: u64,
	reads: u64,
	writes: u64,
) -> Weight {
	Weight::from_parts(ref_time, proof).saturating_add(W::get().reads_writes(reads, writes))
}

/// Estimates for a runtime with database weights `T::DbWeight`.
pub struct SubstrateWeight<T>(PhantomData<T>);

/// The estimates with the given database weights.
pub struct Estimates<W>(PhantomData<W>);

impl<W: Get<frame_support::weights::RuntimeDbWeight>> WeightInfo for Estimates<W> {
	fn prove_start() -> Weight {
		// r: Disputes; w: Disputes, Deadlines.
		parts::<W>(MOVE + PROOF, 4_000, 2, 2)
	}
	fn bisect_steps() -> Weight {
		parts::<W>(MOVE, 4_000, 2, 2)
	}
	fn bisect_reduction() -> Weight {
		parts::<W>(MOVE, 4_000, 2, 2)
	}
	fn pick() -> Weight {
		// r: Disputes, Deadlines and, picking a distance's sum, the tasks pallet's
		// context (Tasks, Specs, Audits) with the spec's shapes; w: Disputes, Deadlines.
		parts::<W>(MOVE + GRAPH, 40_000, 5, 2)
	}
	fn open_step(t: u32) -> Weight {
		// r: Disputes, Deadlines, tasks (Tasks, Specs, Audits); w: StepRoots, Disputes,
		// Deadlines. Two state roots over the state tensors (≤ t hashes).
		parts::<W>(MOVE + GRAPH + PER_ROOT * u64::from(t), 40_000 + 32 * u64::from(t), 5, 3)
	}
	fn pick_tensor() -> Weight {
		// r: Disputes, StepRoots, tasks (Tasks, Specs, Audits); w: Disputes, Deadlines.
		parts::<W>(MOVE + GRAPH, 72_000, 6, 2)
	}
	fn descend() -> Weight {
		// Rebuilds the graph for the tensor's size; folds 16 nodes (15 hashes).
		parts::<W>(MOVE + GRAPH + 15 * PER_ROOT, 40_000, 5, 2)
	}
	fn open_chunk() -> Weight {
		// One leaf hash of 256 bytes; w: OpenedChunks.
		parts::<W>(MOVE + GRAPH + PER_ROOT, 40_000, 5, 3)
	}
	fn pick_element() -> Weight {
		parts::<W>(MOVE, 4_000, 3, 2)
	}
	fn answer_element(s: u32) -> Weight {
		// Worst answer: the data order (s samples) or four chunk openings plus a tensor
		// opening and one element-wise evaluation; then the ruling (bond, tasks resolve
		// with its slash).
		let data = PER_SAMPLE * u64::from(s) + PROOF;
		let ops = 5 * PROOF;
		parts::<W>(
			MOVE + GRAPH + data.max(ops) + RULE,
			40_000 + RULE_PROOF + 4 * u64::from(s),
			18 + RULE_RW,
			16 + RULE_RW,
		)
	}
	fn open_term() -> Weight {
		parts::<W>(MOVE + GRAPH + 4 * PROOF + RULE, 40_000 + RULE_PROOF, 18 + RULE_RW, 16 + RULE_RW)
	}
	fn choose() -> Weight {
		parts::<W>(MOVE, 4_000, 2, 2)
	}
	fn post_sums() -> Weight {
		// r: Disputes, Deadlines, tasks (Tasks, Specs, Audits); w: Disputes, Deadlines.
		// The distance from at most 16 sums, the spec's parameter shapes.
		parts::<W>(MOVE + GRAPH, 40_000, 5, 2)
	}
	fn open_sum_term(s: u32) -> Weight {
		// Up to four values, each proven under a tensor root and that root under its
		// state's root, two state roots under the checkpoint root; the carry's scalars
		// and one element per step; the ruling.
		let carry = PER_CARRY_STEP.saturating_mul(u64::from(s));
		let rw = (18 + RULE_RW, 16 + RULE_RW);
		parts::<W>(MOVE + GRAPH + 10 * PROOF + carry + RULE, 40_000 + RULE_PROOF, rw.0, rw.1)
	}
	fn concede() -> Weight {
		parts::<W>(RULE, RULE_PROOF, 14 + RULE_RW, 14 + RULE_RW)
	}
	fn on_initialize(n: u32) -> Weight {
		// The lists are the same keys in every ruling (a loser is a verifier, a
		// whistleblower or a solver), and a block's proof holds a key once: the three
		// roles' lists are counted once a block that rules any game.
		let n = u64::from(n);
		let lists = if n == 0 { 0 } else { 3 * RULE_LISTS_PROOF };
		parts::<W>(
			5_000_000 + RULE * n,
			4_000 + lists + RULE_ENTRIES_PROOF * n,
			1 + (14 + RULE_RW) * n,
			1 + (14 + RULE_RW) * n,
		)
	}
}

impl<T: frame_system::Config> WeightInfo for SubstrateWeight<T> {
	fn prove_start() -> Weight {
		Estimates::<T::DbWeight>::prove_start()
	}
	fn bisect_steps() -> Weight {
		Estimates::<T::DbWeight>::bisect_steps()
	}
	fn bisect_reduction() -> Weight {
		Estimates::<T::DbWeight>::bisect_reduction()
	}
	fn pick() -> Weight {
		Estimates::<T::DbWeight>::pick()
	}
	fn open_step(t: u32) -> Weight {
		Estimates::<T::DbWeight>::open_step(t)
	}
	fn pick_tensor() -> Weight {
		Estimates::<T::DbWeight>::pick_tensor()
	}
	fn descend() -> Weight {
		Estimates::<T::DbWeight>::descend()
	}
	fn open_chunk() -> Weight {
		Estimates::<T::DbWeight>::open_chunk()
	}
	fn pick_element() -> Weight {
		Estimates::<T::DbWeight>::pick_element()
	}
	fn answer_element(s: u32) -> Weight {
		Estimates::<T::DbWeight>::answer_element(s)
	}
	fn open_term() -> Weight {
		Estimates::<T::DbWeight>::open_term()
	}
	fn choose() -> Weight {
		Estimates::<T::DbWeight>::choose()
	}
	fn post_sums() -> Weight {
		Estimates::<T::DbWeight>::post_sums()
	}
	fn open_sum_term(s: u32) -> Weight {
		Estimates::<T::DbWeight>::open_sum_term(s)
	}
	fn concede() -> Weight {
		Estimates::<T::DbWeight>::concede()
	}
	fn on_initialize(n: u32) -> Weight {
		Estimates::<T::DbWeight>::on_initialize(n)
	}
}

/// The estimates with RocksDB database weights, for tests.
impl WeightInfo for () {
	fn prove_start() -> Weight {
		Estimates::<RocksDbWeight>::prove_start()
	}
	fn bisect_steps() -> Weight {
		Estimates::<RocksDbWeight>::bisect_steps()
	}
	fn bisect_reduction() -> Weight {
		Estimates::<RocksDbWeight>::bisect_reduction()
	}
	fn pick() -> Weight {
		Estimates::<RocksDbWeight>::pick()
	}
	fn open_step(t: u32) -> Weight {
		Estimates::<RocksDbWeight>::open_step(t)
	}
	fn pick_tensor() -> Weight {
		Estimates::<RocksDbWeight>::pick_tensor()
	}
	fn descend() -> Weight {
		Estimates::<RocksDbWeight>::descend()
	}
	fn open_chunk() -> Weight {
		Estimates::<RocksDbWeight>::open_chunk()
	}
	fn pick_element() -> Weight {
		Estimates::<RocksDbWeight>::pick_element()
	}
	fn answer_element(s: u32) -> Weight {
		Estimates::<RocksDbWeight>::answer_element(s)
	}
	fn open_term() -> Weight {
		Estimates::<RocksDbWeight>::open_term()
	}
	fn choose() -> Weight {
		Estimates::<RocksDbWeight>::choose()
	}
	fn post_sums() -> Weight {
		Estimates::<RocksDbWeight>::post_sums()
	}
	fn open_sum_term(s: u32) -> Weight {
		Estimates::<RocksDbWeight>::open_sum_term(s)
	}
	fn concede() -> Weight {
		Estimates::<RocksDbWeight>::concede()
	}
	fn on_initialize(n: u32) -> Weight {
		Estimates::<RocksDbWeight>::on_initialize(n)
	}
}
