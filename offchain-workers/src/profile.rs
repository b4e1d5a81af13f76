//! Profiling for Threshold mode: how far apart honest training engines end after one
//! segment. From the same state, the first segments are run with libtorch and with
//! repops on the same batches; the largest L2 distance, times a safety factor, is the
//! threshold a verifier proposes (lifecycle step 2).

use crate::checkpoint::TrainState;
use crate::dataset::Dataset;
use crate::order::DataOrder;
use crate::reference::{initial_state, RepopsEngine};
use crate::replay::{replay_steps, Distances, ReplayError};
use crate::tch_backend::TchTrainer;
use gensyn_primitives::TaskSpec;
use std::sync::Arc;

/// Proposed threshold = largest honest L2 distance times this.
pub const SAFETY_FACTOR: f64 = 10.0;
/// The smallest threshold proposed (a few f32 roundings of unit-sized weights).
pub const MIN_THRESHOLD: f64 = 1e-6;

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
		let mut torch =
			TchTrainer::with_data(spec, &start, device, data).map_err(ReplayError::Engine)?;
		let a = replay_steps(&mut torch, &mut DataOrder::new(spec, randomness), from, to)?;
		let mut repops = RepopsEngine::new(spec, &start, data.clone(), threads);
		let b = replay_steps(&mut repops, &mut DataOrder::new(spec, randomness), from, to)?;
		let distances = gensyn_repops::state::distances(&a, &b)
			.map_err(|e| ReplayError::Engine(format!("distances: {e}")))?;
		out.push(SegmentProfile { segment, from_step: from, to_step: to, distances });
		start = b;
	}
	Ok(out)
}

/// The threshold to propose from `profiles`: the largest L2 distance times
/// [`SAFETY_FACTOR`], at least [`MIN_THRESHOLD`].
pub fn suggest_threshold(profiles: &[SegmentProfile]) -> f64 {
	let worst = profiles.iter().map(|p| p.distances.l2).fold(0.0, f64::max);
	(worst * SAFETY_FACTOR).max(MIN_THRESHOLD)
}
