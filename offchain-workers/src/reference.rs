//! The referee's path: training steps with repops, the bitwise reproducible engine,
//! behind the same [`Backend`] interface as the tch trainer. The verifier replays
//! segments with it; a solver trains with it for Exact mode.

use crate::checkpoint::TrainState;
use crate::dataset::Dataset;
use crate::tch_backend::TchTrainer;
use crate::train::Backend;
use gensyn_primitives::TaskSpec;
use gensyn_repops::{model, transformer::task, ReproError};
use std::sync::Arc;

/// The initial training state of a task: repops' deterministic initialisation from the
/// task seed (the same for every backend), optimizer state zero, step 0.
pub fn initial_state(spec: &TaskSpec) -> Result<TrainState, ReproError> {
	model::init_state(spec)
}

/// Trains with repops on the CPU.
pub struct RepopsEngine {
	spec: TaskSpec,
	state: TrainState,
	data: Arc<Dataset>,
	threads: usize,
	last_loss: f32,
}

impl RepopsEngine {
	/// An engine at `state` over `data`, on `threads` threads (0: all cores). The
	/// bits do not depend on the thread count.
	pub fn new(spec: &TaskSpec, state: &TrainState, data: Arc<Dataset>, threads: usize) -> Self {
		let threads = if threads == 0 { gensyn_repops::par::default_threads() } else { threads };
		Self { spec: spec.clone(), state: state.clone(), data, threads, last_loss: f32::NAN }
	}

	/// Share of `test` the current weights classify right (evaluated with libtorch on
	/// the CPU: evaluation needs no reproducibility). Error: libtorch's.
	pub fn accuracy(&self, test: &Dataset) -> Result<f64, tch::TchError> {
		TchTrainer::new(&self.spec, &self.state, tch::Device::Cpu)?.accuracy(test)
	}
}

impl Backend for RepopsEngine {
	fn name(&self) -> &'static str {
		"repops"
	}

	fn step(&mut self, batch: &[u32]) -> Result<(), String> {
		let indices: Vec<usize> = batch.iter().map(|&i| i as usize).collect();
		let step = self.state.step;
		let loss = if let Some(c) = task::config(&self.spec) {
			// A language model's batch is its token sequences, each `t + 1` ids.
			let fits = self.data.sequences && self.data.sample_shape == [c.t + 1];
			let ids = self.data.sequence_batch(&indices).filter(|_| fits).ok_or_else(|| {
				format!("repops step {step}: the data holds no such sequences of {} ids", c.t + 1)
			})?;
			task::train_step(&self.spec, &mut self.state, &ids, self.threads)
		} else if self.data.sequences {
			return Err(format!("repops step {step}: token data, but no language model to train"));
		} else {
			let (x, y) = self.data.batch(&indices);
			model::train_step(&self.spec, &mut self.state, &x, &y, self.threads)
		};
		self.last_loss = loss.map_err(|e| format!("repops step {step}: {e}"))?;
		Ok(())
	}

	fn last_loss(&self) -> f32 {
		self.last_loss
	}

	fn state(&self) -> Result<TrainState, String> {
		Ok(self.state.clone())
	}

	fn steps_done(&self) -> u64 {
		self.state.step
	}
}
