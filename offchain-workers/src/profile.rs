//! Profiling for Threshold mode: how far apart honest training engines end after one
//! segment. From the same state, the first segments are run with libtorch and with
//! repops on the same batches; the largest distance between the two
//! ([`relative_distance`] of libtorch's end state from repops' replay), times a safety
//! factor, is the threshold a verifier proposes (lifecycle step 2).

use crate::checkpoint::TrainState;
use crate::dataset::Dataset;
use crate::order::DataOrder;
use crate::reference::{initial_state, RepopsEngine};
use crate::replay::{relative_distance, replay_steps, Distances, ReplayError};
use crate::tch_backend::trainer;
use gensyn_primitives::TaskSpec;
use std::sync::Arc;

/// Proposed threshold = largest honest distance times this.
pub const SAFETY_FACTOR: f64 = 10.0;
/// The smallest threshold proposed (a few f32 roundings of the step).
pub const MIN_THRESHOLD: f64 = 1e-6;
/// A proposal past the chain's ceiling is lowered to it when the worst distance
/// measured lies at least this many times under it: the honest tail then still passes
/// with room, and the task is not failed for a safety factor alone. Closer than that,
/// the proposal stays past the ceiling and the task fails before anyone trains, since
/// honest replays would stray past the ceiling and their solvers would be slashed.
pub const CEILING_ROOM: f64 = 2.0;

/// Distances of one profiled segment.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SegmentProfile {
	/// Segment index.
	pub segment: usize,
	/// First step.
	pub from_step: u64,
	/// Step after the last.
	pub to_step: u64,
	/// libtorch's end state against repops' end state.
	pub distances: Distances,
	/// libtorch's end state from repops' ([`relative_distance`]).
	pub distance: f64,
}

/// Runs the first `segments` segments of `spec`'s run with libtorch on `device` and
/// with repops (on `threads` threads), each segment from repops' state, and reports the
/// distance between the two end states of each.
pub fn profile(
	spec: &TaskSpec,
	data: &Arc<Dataset>,
	randomness: [u8; 32],
	segments: usize,
	threads: usize,
	device: tch::Device,
) -> Result<Vec<SegmentProfile>, ReplayError> {
	let k = spec.training.checkpoint_interval.max(1) as u64;
	let total = spec.total_steps();
	let mut start: TrainState =
		initial_state(spec).map_err(|e| ReplayError::Engine(format!("initial state: {e}")))?;
	let mut out = Vec::new();
	for segment in 0..segments {
		let from = start.step;
		if from >= total {
			break;
		}
		let to = (from + k).min(total);
		let mut torch = trainer(spec, &start, device, data).map_err(ReplayError::Engine)?;
		let a = replay_steps(&mut *torch, &mut DataOrder::new(spec, randomness), from, to)?;
		let mut repops = RepopsEngine::new(spec, &start, data.clone(), threads);
		let b = replay_steps(&mut repops, &mut DataOrder::new(spec, randomness), from, to)?;
		let distances = gensyn_repops::state::distances(&a, &b)
			.map_err(|e| ReplayError::Engine(format!("distances: {e}")))?;
		let distance = relative_distance(spec, &start, &b, &a)
			.map_err(|e| ReplayError::Engine(format!("distances: {e}")))?;
		out.push(SegmentProfile { segment, from_step: from, to_step: to, distances, distance });
		start = b;
	}
	Ok(out)
}

/// The threshold to propose from `profiles`: the largest distance times
/// [`SAFETY_FACTOR`], at least [`MIN_THRESHOLD`], and no more than `ceiling` (the
/// chain's, when known) where the largest lies [`CEILING_ROOM`] times under it.
pub fn suggest_threshold(profiles: &[SegmentProfile], ceiling: Option<f64>) -> f64 {
	let worst = profiles.iter().map(|p| p.distance).fold(0.0, f64::max);
	let proposed = (worst * SAFETY_FACTOR).max(MIN_THRESHOLD);
	match ceiling {
		Some(c) if proposed > c && worst * CEILING_ROOM <= c => c,
		_ => proposed,
	}
}
