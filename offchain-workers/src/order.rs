//! The data order of a run: which samples each training step reads.
//!
//! The order itself is defined once, in `gensyn_primitives::order` (a per-epoch
//! Fisher–Yates permutation seeded by the task seed and 32 bytes of randomness fixed at
//! assignment). This wrapper only caches the current epoch's permutation so that
//! walking the steps of a run costs one shuffle per epoch, and it is what both the tch
//! trainer and the repops replay read, so the two always see the same batches.

use gensyn_primitives::{order, TaskSpec};

/// The batches of one run, epoch permutation cached.
#[derive(Clone, Debug)]
pub struct DataOrder {
	spec: TaskSpec,
	randomness: [u8; 32],
	epoch: Option<(u32, Vec<u32>)>,
}

impl DataOrder {
	/// The order of `spec`'s run with the assignment `randomness`.
	pub fn new(spec: &TaskSpec, randomness: [u8; 32]) -> Self {
		Self { spec: spec.clone(), randomness, epoch: None }
	}

	/// The task whose run this orders.
	pub fn spec(&self) -> &TaskSpec {
		&self.spec
	}

	/// The randomness input.
	pub fn randomness(&self) -> &[u8; 32] {
		&self.randomness
	}

	/// Sample indices of step `step` (0-based); `None` past the last step.
	pub fn batch(&mut self, step: u64) -> Option<&[u32]> {
		let (epoch, start, end) = order::step_range(&self.spec, step)?;
		if self.epoch.as_ref().map(|(e, _)| *e) != Some(epoch) {
			let perm = order::epoch_permutation(
				self.spec.training.seed,
				&self.randomness,
				epoch,
				self.spec.data.samples,
			);
			self.epoch = Some((epoch, perm));
		}
		self.epoch.as_ref().and_then(|(_, p)| p.get(start..end))
	}
}
