//! The runtime's benchmarks, run by `gensyn-node benchmark pallet` in a node built with
//! the `runtime-benchmarks` feature (`scripts/bench/weights.sh` runs them and writes
//! each pallet's `weights/measured.rs`).
//!
//! The arbitration pallet is not among them: its benchmarks install dispute contexts
//! that only its mock can hold, and its rulings call the tasks pallet, which the mock
//! stands in for; its weights stay counted by hand.

use crate::{watch::WatchTicket, AccountId};
use pallet_gensyn_tasks::Hash32;

frame_benchmarking::define_benchmarks!(
	[pallet_gensyn_stake, Stake]
	[pallet_gensyn_tasks, Tasks]
	[pallet_gensyn_jackpot, Jackpot]
);

/// What the tasks pallet's benchmarks need from this runtime.
pub struct TasksHelper;

impl pallet_gensyn_tasks::BenchmarkHelper<AccountId, WatchTicket> for TasksHelper {
	fn watch_ticket() -> Option<(AccountId, Hash32, WatchTicket)> {
		Some(crate::watch::bench::ticket())
	}

	// The runtime's arbiter checks an off-task proof itself: nothing to set.
	fn accept_off_task(_: u32) {}
}
