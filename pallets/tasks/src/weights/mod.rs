//! Weights of the tasks pallet: each call is charged the larger of what its benchmark
//! measured ([`measured`], written by `scripts/bench/weights.sh`) and its hand count
//! ([`counted`]), which covers the paths the benchmark's one run does not take (a
//! settlement whose proof is rejected and redrawn, a full `MaxAuditSegments` of legs).

pub mod counted;
pub mod measured;

use core::marker::PhantomData;
use counted::Counted;
pub use counted::DEADLINE_LEGS;
use frame_support::{
	traits::Get,
	weights::{constants::RocksDbWeight, RuntimeDbWeight, Weight},
};
use measured::Measured;
pub use pallet_gensyn_stake::weights::ACTIVE_LIST_PROOF;
pub use pallet_gensyn_stake::weights::JOINED_LIST_PROOF;

/// Weight functions of the tasks pallet.
pub trait WeightInfo {
	/// `submit_task`.
	fn submit_task() -> Weight;
	/// `cancel_task`.
	fn cancel_task() -> Weight;
	/// `accept_task`.
	fn accept_task() -> Weight;
	/// `decline_task`.
	fn decline_task() -> Weight;
	/// `submit_result`.
	fn submit_result() -> Weight;
	/// `submit_verification`.
	fn submit_verification() -> Weight;
	/// `report_unavailable`.
	fn report_unavailable() -> Weight;
	/// `challenge`.
	fn challenge() -> Weight;
	/// `watch_challenge`: a challenge and its ticket's check.
	fn watch_challenge() -> Weight;
	/// `commit_profile`.
	fn commit_profile() -> Weight;
	/// `reveal_profile`.
	fn reveal_profile() -> Weight;
	/// `decline_profile`.
	fn decline_profile() -> Weight;
	/// `prove_off_task`.
	fn prove_off_task() -> Weight;
	/// `on_initialize` handling `n` deadlines (each at its worst case).
	fn on_initialize(n: u32) -> Weight;
	/// A reveal that keeps a task's challenge window open for the solver.
	fn reopen_window() -> Weight;
	/// `demand_checkpoint`.
	fn demand_checkpoint() -> Weight;
	/// `publish_page`: a full page's check, and the last page's answer.
	fn publish_page() -> Weight;
}

/// The larger of the measured and the counted weights, given database weights.
fn larger(
	db: RuntimeDbWeight,
	measured: fn(&Measured) -> Weight,
	counted: fn(&Counted) -> Weight,
) -> Weight {
	measured(&Measured(db)).max(counted(&Counted(db)))
}

/// `on_initialize` handling `n` deadlines. With none, the hand count alone: the
/// measured fit's intercept holds per-deadline costs that grow slower than `n` (keys
/// that several deadlines read are read once a block), which a block without deadlines
/// does not pay (it was measured at 38 µs).
fn on_initialize(db: RuntimeDbWeight, n: u32) -> Weight {
	let counted = Counted(db).on_initialize(n);
	if n == 0 {
		return counted;
	}
	Measured(db).on_initialize(n).max(counted)
}

/// The charged weights for a runtime with database weights `T::DbWeight`.
pub struct SubstrateWeight<T>(PhantomData<T>);

impl<T: frame_system::Config> WeightInfo for SubstrateWeight<T> {
	fn submit_task() -> Weight {
		larger(T::DbWeight::get(), Measured::submit_task, Counted::submit_task)
	}
	fn cancel_task() -> Weight {
		larger(T::DbWeight::get(), Measured::cancel_task, Counted::cancel_task)
	}
	fn accept_task() -> Weight {
		larger(T::DbWeight::get(), Measured::accept_task, Counted::accept_task)
	}
	fn decline_task() -> Weight {
		larger(T::DbWeight::get(), Measured::decline_task, Counted::decline_task)
	}
	fn submit_result() -> Weight {
		larger(T::DbWeight::get(), Measured::submit_result, Counted::submit_result)
	}
	fn submit_verification() -> Weight {
		larger(T::DbWeight::get(), Measured::submit_verification, Counted::submit_verification)
	}
	fn report_unavailable() -> Weight {
		larger(T::DbWeight::get(), Measured::report_unavailable, Counted::report_unavailable)
	}
	fn challenge() -> Weight {
		larger(T::DbWeight::get(), Measured::challenge, Counted::challenge)
	}
	fn watch_challenge() -> Weight {
		larger(T::DbWeight::get(), Measured::watch_challenge, Counted::watch_challenge)
	}
	fn commit_profile() -> Weight {
		larger(T::DbWeight::get(), Measured::commit_profile, Counted::commit_profile)
	}
	fn reveal_profile() -> Weight {
		larger(T::DbWeight::get(), Measured::reveal_profile, Counted::reveal_profile)
	}
	fn decline_profile() -> Weight {
		larger(T::DbWeight::get(), Measured::decline_profile, Counted::decline_profile)
	}
	fn prove_off_task() -> Weight {
		larger(T::DbWeight::get(), Measured::prove_off_task, Counted::prove_off_task)
	}
	fn demand_checkpoint() -> Weight {
		larger(T::DbWeight::get(), Measured::demand_checkpoint, Counted::demand_checkpoint)
	}
	fn publish_page() -> Weight {
		larger(T::DbWeight::get(), Measured::publish_page, Counted::publish_page)
	}
	fn on_initialize(n: u32) -> Weight {
		on_initialize(T::DbWeight::get(), n)
	}
	// Not benchmarked on its own: it is part of `jackpot.reveal` (the hand count).
	fn reopen_window() -> Weight {
		Counted(T::DbWeight::get()).reopen_window()
	}
}

/// The same with RocksDB database weights, for tests.
impl WeightInfo for () {
	fn submit_task() -> Weight {
		larger(RocksDbWeight::get(), Measured::submit_task, Counted::submit_task)
	}
	fn cancel_task() -> Weight {
		larger(RocksDbWeight::get(), Measured::cancel_task, Counted::cancel_task)
	}
	fn accept_task() -> Weight {
		larger(RocksDbWeight::get(), Measured::accept_task, Counted::accept_task)
	}
	fn decline_task() -> Weight {
		larger(RocksDbWeight::get(), Measured::decline_task, Counted::decline_task)
	}
	fn submit_result() -> Weight {
		larger(RocksDbWeight::get(), Measured::submit_result, Counted::submit_result)
	}
	fn submit_verification() -> Weight {
		larger(RocksDbWeight::get(), Measured::submit_verification, Counted::submit_verification)
	}
	fn report_unavailable() -> Weight {
		larger(RocksDbWeight::get(), Measured::report_unavailable, Counted::report_unavailable)
	}
	fn challenge() -> Weight {
		larger(RocksDbWeight::get(), Measured::challenge, Counted::challenge)
	}
	fn watch_challenge() -> Weight {
		larger(RocksDbWeight::get(), Measured::watch_challenge, Counted::watch_challenge)
	}
	fn commit_profile() -> Weight {
		larger(RocksDbWeight::get(), Measured::commit_profile, Counted::commit_profile)
	}
	fn reveal_profile() -> Weight {
		larger(RocksDbWeight::get(), Measured::reveal_profile, Counted::reveal_profile)
	}
	fn decline_profile() -> Weight {
		larger(RocksDbWeight::get(), Measured::decline_profile, Counted::decline_profile)
	}
	fn prove_off_task() -> Weight {
		larger(RocksDbWeight::get(), Measured::prove_off_task, Counted::prove_off_task)
	}
	fn demand_checkpoint() -> Weight {
		larger(RocksDbWeight::get(), Measured::demand_checkpoint, Counted::demand_checkpoint)
	}
	fn publish_page() -> Weight {
		larger(RocksDbWeight::get(), Measured::publish_page, Counted::publish_page)
	}
	fn on_initialize(n: u32) -> Weight {
		on_initialize(RocksDbWeight::get(), n)
	}
	// Not benchmarked on its own: it is part of `jackpot.reveal` (the hand count).
	fn reopen_window() -> Weight {
		Counted(RocksDbWeight::get()).reopen_window()
	}
}

#[cfg(test)]
mod tests {
	use super::*;

	/// Every call is charged at least both its figures, and no more than the larger of
	/// them in each dimension (a call wired to one figure alone, or to another call's,
	/// fails this).
	#[test]
	fn each_call_is_charged_the_larger_of_its_two_figures() {
		let db = RocksDbWeight::get();
		let (m, c) = (Measured(db), Counted(db));
		let calls: [(&str, Weight, Weight, Weight); 16] = [
			("submit_task", <()>::submit_task(), m.submit_task(), c.submit_task()),
			("cancel_task", <()>::cancel_task(), m.cancel_task(), c.cancel_task()),
			("accept_task", <()>::accept_task(), m.accept_task(), c.accept_task()),
			("decline_task", <()>::decline_task(), m.decline_task(), c.decline_task()),
			("submit_result", <()>::submit_result(), m.submit_result(), c.submit_result()),
			(
				"submit_verification",
				<()>::submit_verification(),
				m.submit_verification(),
				c.submit_verification(),
			),
			(
				"report_unavailable",
				<()>::report_unavailable(),
				m.report_unavailable(),
				c.report_unavailable(),
			),
			("challenge", <()>::challenge(), m.challenge(), c.challenge()),
			("watch_challenge", <()>::watch_challenge(), m.watch_challenge(), c.watch_challenge()),
			("commit_profile", <()>::commit_profile(), m.commit_profile(), c.commit_profile()),
			("reveal_profile", <()>::reveal_profile(), m.reveal_profile(), c.reveal_profile()),
			("decline_profile", <()>::decline_profile(), m.decline_profile(), c.decline_profile()),
			("prove_off_task", <()>::prove_off_task(), m.prove_off_task(), c.prove_off_task()),
			(
				"demand_checkpoint",
				<()>::demand_checkpoint(),
				m.demand_checkpoint(),
				c.demand_checkpoint(),
			),
			("publish_page", <()>::publish_page(), m.publish_page(), c.publish_page()),
			(
				"on_initialize(16)",
				<()>::on_initialize(16),
				m.on_initialize(16),
				c.on_initialize(16),
			),
		];
		for (name, charged, measured, counted) in calls {
			assert_eq!(charged, measured.max(counted), "{name}");
		}
		// A block without deadlines pays the count alone (no measured intercept).
		assert_eq!(<()>::on_initialize(0), c.on_initialize(0));
		assert_eq!(<()>::reopen_window(), c.reopen_window());
	}
}
