//! The tasks pallet's weights counted by hand. Each figure counts the storage reads and
//! writes of the call in its worst case (balances' `Holds`/`Account`, the stake pallet's
//! active list and engagement counters included) and adds a compute allowance:
//! `submit_task` validates and estimates a spec of up to 32 layers (tens of µs) and
//! scans a full active solver list; the deadline handler's worst case is a settlement
//! paying `MaxAuditSegments` verifier legs plus solver, jackpot and treasury (or, for a
//! rejected proof, the solver's slash and a new solver draw), or a verifier draw over a
//! full active list. They cover the paths a benchmark's one run does not take.

use super::{ACTIVE_LIST_PROOF, JOINED_LIST_PROOF};
use frame_support::weights::{RuntimeDbWeight, Weight};
use pallet_gensyn_stake::weights::WEIGHED_ACTIVE;

/// The most audits (verifier legs) a task's settlement handles that the deadline weight
/// is counted for: a runtime's `MaxAuditSegments` must not exceed it (the runtime
/// checks this in a test).
pub const DEADLINE_LEGS: u64 = 48;

/// Worst case of one deadline: a settlement with [`DEADLINE_LEGS`] verifier legs (each:
/// its forced-error flag, a pay out of escrow, an earnings note, a slash when
/// overturned; about 3 reads and 4 writes) that first overturns refutations that waited
/// for a reveal, reads and writes the task's replaced verifiers, and whose proof is then
/// rejected (the solver's compensating slash, the escrow hold, releasing every worker
/// and dropping each segment's `ChallengedAt`, `SolverContested` and `Survived` and a
/// game's re-audit point) and the task re-drawn over a full active list; or a draw
/// alone. Two more reads and a write per leg cover a dispute's timeout, which also drops
/// each game's slashes from its challenger's open count (`OpenChallenges`, by the
/// verdict's `Survived` entry), and one write per leg the copy of a slashed verifier's
/// bond on the active list, and one more the verifier's reveal deadline (`RevealBy`)
/// dropped as the round ends; and a read and a write of the round's demanded
/// checkpoints (`Demands`, two a leg and the run's first), and of the last upgrade's block
/// (`LastUpgrade`: a fail the solver may contest waits a period past it), and a read of
/// the kept upgrades (`Upgrades`: a demand's due is read past them). A settlement that returns
/// unanswered demands' fees (each its demander's hold and account read and written:
/// four reads and four writes a leg, two more for the first checkpoint) pays no
/// verdict and audits none again, so the return takes the place of each leg's pay out of
/// escrow and earnings note (as many) and of a re-audit's reads;
/// a settlement that pays verdicts has every demand answered. Where the first unanswered
/// demand names a standby, the deadline slashes it and does nothing else, far less
/// (the settlement follows a block later). A verify
/// deadline that opens the window fixes those deadlines (a read and a write per leg),
/// but only where no re-audit was drawn, so its legs stay within a settlement's. A draw
/// of auditors (the first, or a re-audit) reads at most [`crate::draw::ROOM_TRIES`]
/// engagement counts in all, fewer than a solver draw's [`ROOM_READS`], which a deadline
/// that draws auditors does not make; a re-audit that lets a demand's standby go reads and
/// writes the round's demands (and reads the spec) in place of a settlement's.
const DEADLINE_REF_TIME: u64 = 500_000_000 + 62_500_000 * DEADLINE_LEGS;
const DEADLINE_READS: u64 = 19 + 6 * DEADLINE_LEGS + ROOM_READS;
/// Reads of a solver draw: for each candidate tried ([`crate::draw::ROOM_TRIES`]) its
/// bond and engagement count (whether it has room) with a third read to spare, and the
/// task's bond units.
const ROOM_READS: u64 = 3 * crate::draw::ROOM_TRIES as u64 + 1;
/// Proof size of those reads: a `Bonds` entry (about 150 bytes) and an `Engagements`
/// entry (about 60) per candidate, and the task's `BondUnits` entry.
const ROOM_PROOF: u64 = 210 * crate::draw::ROOM_TRIES as u64 + 50;
const DEADLINE_WRITES: u64 = 21 + 10 * DEADLINE_LEGS;
/// A task, its spec and audits, and the kept upgrades (about 70 bytes); per leg, about
/// 1.1 KB, with a timed-out game's challenger count, the verifier's reveal deadline and
/// two demands (about 100 bytes each, with their standbys). The active lists a deadline
/// reads are in [`DEADLINE_LISTS_PROOF`].
const DEADLINE_PROOF: u64 = 6_170 + 1_420 * DEADLINE_LEGS + ROOM_PROOF;
/// The three full active lists a block's deadlines read (a solver draw reads the
/// verifiers' too, a verifier draw the whistleblowers', and a slash writes the copy of
/// the slashed worker's bond on its role's), and the three `Joined` lists (a slash that
/// takes a worker below its minimum bond takes it off its role's list, and out of that
/// role's `Joined` list). They are the same keys in every deadline, and a block's proof
/// holds a key once, so they are counted once a block that handles any ([`deadlines`]).
const DEADLINE_LISTS_PROOF: u64 = 3 * (ACTIVE_LIST_PROOF + JOINED_LIST_PROOF);

/// The counts, given database weights.
pub struct Counted(pub RuntimeDbWeight);

impl Counted {
	/// submit_task: r NextTaskId, Holds, Account, Active (solvers, and verifiers: a solver
	/// is drawn only when another could check it), Deadlines, WorkerTasks, Engagements;
	/// w those + Tasks, Specs, BondUnits. A Threshold task draws its profilers at a later
	/// deadline. A solver draw reads what [`ROOM_READS`] counts.
	pub fn submit_task(&self) -> Weight {
		let db = self.0;
		Weight::from_parts(400_000_000, 2 * ACTIVE_LIST_PROOF + 12_000 + ROOM_PROOF)
			.saturating_add(db.reads_writes(12 + ROOM_READS, 14))
	}
	/// cancel_task: r Tasks, Holds, Account, WorkerTasks, Engagements, BondUnits; w +
	/// Specs, Audits;
	/// while profiling, up to three posted profiles paid out of escrow first, and the
	/// verifiers' list read (whether a profiler draw could be due next block).
	pub fn cancel_task(&self) -> Weight {
		let db = self.0;
		Weight::from_parts(150_000_000, 12_000 + ACTIVE_LIST_PROOF)
			.saturating_add(db.reads_writes(15, 20))
	}
	/// accept_task: r Tasks, Profiles, Deadlines; w Tasks, Deadlines.
	pub fn accept_task(&self) -> Weight {
		let db = self.0;
		Weight::from_parts(50_000_000, 6_000).saturating_add(db.reads_writes(3, 2))
	}
	/// decline_task: r Tasks, WorkerTasks, Engagements, BondUnits, Deadlines, the
	/// randomness delay (a storage parameter); w Tasks, WorkerTasks, Engagements,
	/// Deadlines, MovedDraw (the next draw is a later deadline's).
	pub fn decline_task(&self) -> Weight {
		let db = self.0;
		Weight::from_parts(40_000_000, 6_000).saturating_add(db.reads_writes(6, 5))
	}
	/// decline_profile, the last of a task's three after the others committed: the
	/// decliner let go (WorkerTasks, Engagements), the seat's pay moved to the pot (Holds,
	/// two Accounts), r ProfileCommitments, then reveals opened (or, for profiles posted
	/// before commitments, the threshold decided as by the last reveal_profile): counted
	/// as the heavier, a decision.
	pub fn decline_profile(&self) -> Weight {
		self.reveal_profile().saturating_add(self.0.reads_writes(6, 5))
	}
	/// commit_profile, the last of a task's three with a seat empty: r Tasks,
	/// ProfileCommitments, the bond units, the active verifier list (a scan, each entry
	/// checked against the task's excluded and seated workers: could the empty seat be
	/// filled?), as cancel_task's; w ProfileCommitments, Tasks, the deadline queue (a
	/// page, its count, the backlog).
	pub fn commit_profile(&self) -> Weight {
		let db = self.0;
		Weight::from_parts(150_000_000, ACTIVE_LIST_PROOF + 8_000)
			.saturating_add(db.reads_writes(7, 5))
	}
	/// submit_result: r Tasks, Deadlines, the randomness delay; w Tasks, Deadlines.
	pub fn submit_result(&self) -> Weight {
		let db = self.0;
		Weight::from_parts(40_000_000, 6_000).saturating_add(db.reads_writes(3, 2))
	}
	/// submit_verification: r Tasks, Audits, Specs, Deadlines and, for a Threshold task
	/// never profiled, the two threshold bounds; w Tasks, Audits, Deadlines; a
	/// 32-level Merkle proof (33 blake2 hashes); the last verdict opens the window
	/// ([`Counted::window_opened`]).
	pub fn submit_verification(&self) -> Weight {
		let db = self.0;
		Weight::from_parts(90_000_000, 12_200)
			.saturating_add(db.reads_writes(6, 3))
			.saturating_add(self.window_opened())
	}
	/// report_unavailable: r Tasks, Audits, Deadlines; w Tasks, Audits, Deadlines; the
	/// last report opens the window ([`Counted::window_opened`]). It demands two
	/// checkpoints: r/w Demands (up to 10 KB), r Specs (three times), LastUpgrade (twice),
	/// and for each one's standby Audits and Specs again; the spec's tensor lengths are
	/// walked three times.
	pub fn report_unavailable(&self) -> Weight {
		let db = self.0;
		Weight::from_parts(70_000_000, 24_000)
			.saturating_add(db.reads_writes(3 + 10, 3 + 1))
			.saturating_add(self.window_opened())
	}
	// A window's opening fixes its verifiers' reveal deadlines: r Audits, and per audit
	// (at most [`DEADLINE_LEGS`]) r/w its verifier's `RevealBy` entry (about 150 bytes).
	fn window_opened(&self) -> Weight {
		Weight::from_parts(2_000_000 * DEADLINE_LEGS, 150 * DEADLINE_LEGS)
			.saturating_add(self.0.reads_writes(1 + DEADLINE_LEGS, DEADLINE_LEGS))
	}
	/// prove_off_task: r Tasks, OffTask, Specs (a spec of up to 32 layers), Demands (two
	/// entries a leg, about 70 bytes each, whose demander of the opened checkpoint
	/// reports); w OffTask;
	/// the arbiter's check: a 32-level checkpoint proof, a state root over up to 193
	/// leaves, a 32-level chunk proof and a 64-value leaf (about 300 blake2 hashes in
	/// all, counted at 4 us each in wasm) and 64 initial values.
	pub fn prove_off_task(&self) -> Weight {
		let db = self.0;
		Weight::from_parts(1_500_000_000, 24_000 + 150 * DEADLINE_LEGS)
			.saturating_add(db.reads_writes(4, 1))
	}
	/// challenge: r Tasks, Audits, Active, Deadlines, WorkerTasks, Engagements, BondUnits,
	/// the verifier's binding, RevealsFrom, Watches, the challenger's bond and open games,
	/// SolverContested (and Tasks again), the games the verdict survived (Survived) + the
	/// arbiter's opening (allowance: 10 reads/writes); w Tasks, Audits, Deadlines,
	/// ChallengedAt, MovedDraw, OpenChallenges, SolverContested, ...
	pub fn challenge(&self) -> Weight {
		let db = self.0;
		Weight::from_parts(120_000_000, ACTIVE_LIST_PROOF + 9_700)
			.saturating_add(db.reads_writes(25, 19))
	}
	/// watch_challenge: a challenge, r Watches, Audits, the whistleblowers' `Joined` list
	/// (a scan of it) and active list, and one VRF verification (two scalar
	/// multiplications and transcript hashing; natively about 0.1 ms, counted at 2 ms for
	/// the wasm runtime).
	pub fn watch_challenge(&self) -> Weight {
		let lists = ACTIVE_LIST_PROOF + JOINED_LIST_PROOF;
		self.challenge()
			.saturating_add(Weight::from_parts(2_000_000_000 + 2_000 * WEIGHED_ACTIVE, lists))
			.saturating_add(self.0.reads(4))
	}
	// on_initialize base: r/w Deadlines; the beacon's fold: r the block's randomness,
	// r/w Beacon, one blake2 hash.
	fn on_initialize_base(&self) -> Weight {
		let db = self.0;
		Weight::from_parts(6_000_000, 1_200).saturating_add(db.reads_writes(3, 2))
	}
	/// reveal_profile, the last of a task's three: r ProfileCommitments and one blake2
	/// hash of the reveal; the profiler let go (WorkerTasks, Engagements); three
	/// transfers out of escrow and earnings notes, plus the solver draw's filing (MovedDraw,
	/// the deadline queue), still counted as the draw itself (as submit_task's) it replaced;
	/// the threshold's two bounds (and a read to spare).
	pub fn reveal_profile(&self) -> Weight {
		let db = self.0;
		Weight::from_parts(280_000_000, 2 * ACTIVE_LIST_PROOF + 15_000 + ROOM_PROOF)
			.saturating_add(db.reads_writes(21 + ROOM_READS, 17))
	}
	fn per_deadline(&self) -> Weight {
		per_deadline(self.0)
	}
	/// on_initialize: its base and `n` deadlines, each at its worst case.
	pub fn on_initialize(&self, n: u32) -> Weight {
		self.on_initialize_base().saturating_add(deadlines(self.per_deadline(), n))
	}
	/// reopen_window (a reveal's check and what it reopens): r RevealsFrom, Tasks, the
	/// revealer's RevealBy, Audits, each audit's binding (MaxAuditSegments), Deadlines,
	/// MovedDraw; w Tasks, Deadlines, MovedDraw.
	pub fn reopen_window(&self) -> Weight {
		let db = self.0;
		Weight::from_parts(20_000_000 + 3_000_000 * DEADLINE_LEGS, 12_150 + 300 * DEADLINE_LEGS)
			.saturating_add(db.reads_writes(7 + 2 * DEADLINE_LEGS, 3 + DEADLINE_LEGS))
	}
	/// demand_checkpoint: r Tasks, Specs, Audits (about 180 bytes a leg; the standby is
	/// named from them), Demands (two entries a leg, about 105 bytes each), the verdicts'
	/// RevealBy (the run's first checkpoint goes with any verdict: one a leg, about 100
	/// bytes each), the last upgrade's block, the payer's account and holds; w Demands,
	/// the account and holds.
	pub fn demand_checkpoint(&self) -> Weight {
		let db = self.0;
		Weight::from_parts(60_000_000, 10_000 + 520 * DEADLINE_LEGS)
			.saturating_add(db.reads_writes(7 + DEADLINE_LEGS, 3))
	}
	/// publish_page: r Demands (two entries a leg, with their standbys), Upgrades (a
	/// demand's due is read past them), Tasks, Specs; w Demands; the last page w Tasks, files
	/// the settlement (r/w Deadlines, MovedDraw) and pays the fee (r/w the demander's
	/// holds and account, the treasury's account). The check hashes a full page (256
	/// leaves of 256 bytes and 255 nodes) and three proofs of up to 32 levels: about 610
	/// blake2 hashes, counted at 4 us each in wasm.
	pub fn publish_page(&self) -> Weight {
		let db = self.0;
		Weight::from_parts(2_500_000_000, 4_070 + 250 * DEADLINE_LEGS)
			.saturating_add(db.reads_writes(9, 8))
	}
}

/// `n` deadlines of weight `each`, and the active lists they read, once.
fn deadlines(each: Weight, n: u32) -> Weight {
	let lists = if n == 0 { 0 } else { DEADLINE_LISTS_PROOF };
	each.saturating_mul(n.into()).saturating_add(Weight::from_parts(0, lists))
}

fn per_deadline(db: RuntimeDbWeight) -> Weight {
	Weight::from_parts(DEADLINE_REF_TIME, DEADLINE_PROOF)
		.saturating_add(db.reads_writes(DEADLINE_READS, DEADLINE_WRITES))
}
