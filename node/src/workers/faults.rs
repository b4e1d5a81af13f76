//! Misbehaviour on purpose, for the protocol's own end-to-end tests: a lazy or
//! withholding worker, or one that dies part-way through training.
//!
//! The flags exist only in a node built with the `test-faults` feature (the test suite
//! builds it so); a release node has neither the flags nor the paths behind them, since
//! [`Faults::is`] is a constant `false` there.

/// A misbehaviour a worker can be told to show.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum WorkerFault {
	/// The verifier posts passing verdicts without replaying.
	LazyVerifier,
	/// The solver trains on a data order of its own, not the task's.
	LazySolver,
	/// The solver's proof store serves nothing (an empty store on its address).
	WithholdingSolver,
	/// The solver commits checkpoint hashes that are not its checkpoints' (its journal
	/// says so too, its blobs are the real ones): every served checkpoint after the
	/// initial state mismatches its committed leaf.
	MismatchedSolver,
	/// A solver and verifier in partnership: the solver trains a task in Exact mode on
	/// schedule, but from weights of its own (one initial weight moved), and the verifier
	/// passes every segment drawn without checking the schedule or replaying.
	PartnerFromElsewhere,
	/// A solver and verifier in partnership on a Threshold task: the solver trains on a
	/// data order of its own (as `LazySolver`), and the verifier replays each segment
	/// drawn but posts the true replay root with distance 0, a pass.
	ZeroDistancePartner,
	/// The solver trains on a data order of its own (as `LazySolver`), contests every
	/// failing verdict on its task, and stops serving the run's journal as it does, so
	/// that the verifier defending the verdict could not read the run's commitments.
	StarvingContester,
	/// The whistleblower can fetch neither the run's journal nor its checkpoints from the
	/// solver's store (nor use a copy another role of its node kept), as if the store
	/// served the solver's partners alone: it demands the checkpoints on chain and
	/// replays from the published pages, with no journal.
	BlindWhistleblower,
	/// `PartnerFromElsewhere` and `BlindWhistleblower` at once: a run from another start
	/// whose journal and checkpoints the solver's store serves its partner alone.
	HiddenRunFromElsewhere,
}

/// The fault-injection flags (present with the `test-faults` feature only).
#[derive(Debug, Clone, Default, clap::Args)]
pub struct Faults {
	/// Misbehave on purpose.
	#[cfg(feature = "test-faults")]
	#[arg(long, value_enum)]
	pub worker_fault: Option<WorkerFault>,

	/// Stop training after this many steps and fail the job, as if the machine died
	/// there every time (a solver killed, or one that never commits).
	#[cfg(feature = "test-faults")]
	#[arg(long, value_name = "STEPS")]
	pub worker_stop_after: Option<u64>,

	/// Lose this node's first challenge on its way to the pool, as if the pool took it
	/// and it never reached a block (evicted, or refused at dispatch).
	#[cfg(feature = "test-faults")]
	#[arg(long)]
	pub worker_lose_first_challenge: bool,
}

impl Faults {
	/// Whether this node's workers show `fault` (alone, or as part of one that combines
	/// it with another).
	pub fn is(&self, fault: WorkerFault) -> bool {
		#[cfg(feature = "test-faults")]
		return self.worker_fault == Some(fault)
			|| (self.worker_fault == Some(WorkerFault::HiddenRunFromElsewhere)
				&& matches!(
					fault,
					WorkerFault::PartnerFromElsewhere | WorkerFault::BlindWhistleblower
				));
		#[cfg(not(feature = "test-faults"))]
		{
			let _ = fault;
			false
		}
	}

	/// The misbehaviour asked for, if any.
	pub fn any(&self) -> Option<WorkerFault> {
		#[cfg(feature = "test-faults")]
		return self.worker_fault;
		#[cfg(not(feature = "test-faults"))]
		None
	}

	/// Whether this node's challenge call `call` is to be lost on its way (the first
	/// challenge only, when asked).
	pub fn loses(&self, call: &gensyn_runtime::RuntimeCall) -> bool {
		#[cfg(feature = "test-faults")]
		{
			use gensyn_runtime::RuntimeCall::Tasks;
			use pallet_gensyn_tasks::Call;
			static LOST: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
			let challenge =
				matches!(call, Tasks(Call::challenge { .. } | Call::watch_challenge { .. }));
			challenge
				&& self.worker_lose_first_challenge
				&& !LOST.swap(true, std::sync::atomic::Ordering::Relaxed)
		}
		#[cfg(not(feature = "test-faults"))]
		{
			let _ = call;
			false
		}
	}

	/// Steps after which training stops and fails, if asked.
	pub fn stop_after(&self) -> Option<u64> {
		#[cfg(feature = "test-faults")]
		return self.worker_stop_after;
		#[cfg(not(feature = "test-faults"))]
		None
	}
}
