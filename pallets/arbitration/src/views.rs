//! What the `ArbitrationApi` runtime API serves: each player's open games.

use crate::*;

impl<T: Config> Pallet<T> {
	/// The games `who` plays in (runtime API; iterates the open games, which the tasks
	/// pallet bounds by its live tasks times `MaxAuditSegments`).
	pub fn games(who: &T::AccountId) -> Vec<GameView<BlockNumberFor<T>>> {
		Disputes::<T>::iter()
			.filter_map(|((task, segment), d)| {
				let side = if &d.defendant == who {
					Party::Defendant
				} else if &d.challenger == who {
					Party::Challenger
				} else {
					return None;
				};
				Some(GameView {
					task,
					segment,
					side,
					stage: d.stage,
					posted: d.posted,
					to_move: d.turn == side,
					deadline: d.deadline,
					moves: d.moves,
				})
			})
			.collect()
	}
}
