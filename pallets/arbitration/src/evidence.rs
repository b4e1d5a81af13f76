//! What the chain recomputes to rule: a step's graph, tensor openings checked against
//! their roots, and a batch value read from a Merkle-proven chunk of the task's data.

use crate::*;

impl<T: Config> Pallet<T> {
	/// The dispute's context, the graph of its (relative) step `step` and that step's
	/// global index.
	pub(crate) fn step_context(
		key: DisputeKey,
		d: &Dispute<T>,
		step: u64,
	) -> Result<(DisputeContext, Graph, u64), Error<T>> {
		let ctx = T::Subjects::context(key.0, key.1).ok_or(Error::<T>::NoSubject)?;
		let global = d.first_step.saturating_add(step);
		let g = Self::graph(&ctx.spec, global)?;
		Ok((ctx, g, global))
	}

	/// The graph of global step `step` of the task.
	pub(crate) fn graph(spec: &TaskSpec, step: u64) -> Result<Graph, Error<T>> {
		let (_, start, end) = order::step_range(spec, step).ok_or(Error::<T>::BadGraph)?;
		let batch = u32::try_from(end.saturating_sub(start)).map_err(|_| Error::<T>::BadGraph)?;
		let g = graph::step_graph(spec, batch, step).map_err(|_| Error::<T>::BadGraph)?;
		ensure!(g.tensors.len() as u32 <= T::MaxTensors::get(), Error::<T>::BadGraph);
		Ok(g)
	}

	/// Checks an opening against the root posted for its tensor.
	pub(crate) fn verify_opening(
		g: &Graph,
		roots: &[Hash32],
		o: &TensorOpening,
	) -> Result<(), Error<T>> {
		let info = g.tensors.get(o.tensor as usize).ok_or(Error::<T>::BadOpening)?;
		let root = roots.get(o.tensor as usize).ok_or(Error::<T>::BadOpening)?;
		let values: Vec<f32> = o.values.iter().map(|b| f32::from_bits(*b)).collect();
		let ok = geo::verify_tensor_chunk(
			root,
			info.numel() as u64,
			u64::from(o.chunk),
			&values,
			&o.siblings,
		);
		ensure!(ok, Error::<T>::BadOpening);
		Ok(())
	}

	/// A value from verified openings.
	pub(crate) fn fetch(openings: &[TensorOpening], tensor: u32, index: u64) -> Option<f32> {
		let (chunk, within) = geo::chunk_of(index);
		openings
			.iter()
			.find(|o| o.tensor == tensor && u64::from(o.chunk) == chunk)
			.and_then(|o| o.values.get(within))
			.map(|b| f32::from_bits(*b))
	}

	/// The batch value at `elem` of `tensor`, read from a proven data chunk.
	pub(crate) fn data_value(
		ctx: &DisputeContext,
		step: u64,
		tensor: u32,
		elem: u64,
		data: &DataOpening,
	) -> Result<f32, Error<T>> {
		let loc = geo::data_location(&ctx.spec, &ctx.order_randomness, step, tensor, elem)
			.map_err(|_| Error::<T>::NotDisputable)?;
		let ok = geo::verify_data_chunk(
			&ctx.spec.data.chunk_root.0,
			loc.file_len,
			loc.chunk(),
			&data.bytes,
			&data.siblings,
		);
		ensure!(ok, Error::<T>::BadDataProof);
		let at = (loc.offset % gensyn_primitives::DATA_CHUNK_SIZE as u64) as usize;
		let byte = *data.bytes.get(at).ok_or(Error::<T>::BadDataProof)?;
		Ok(loc.value(byte))
	}
}

/// Whether `proof` shows that the run committed under `root` (of `checkpoints` leaves) is
/// not one of a task of `spec`. The checkpoint it opens must be a committed leaf with as
/// many tensors as the spec's state has: a state root does not commit to its leaf
/// count, so the roots of a subtree could stand in for its leaves and any other count
/// would "show" an honest run off the task (a state with other tensors is left to the
/// game, whose start cannot be opened from it). Then a step off the schedule
/// (checkpoint `i` after `min(i·k, total)` steps) shows it, and so does, in the first
/// checkpoint, a value of a proven chunk other than the task's seeded initial value.
pub(crate) fn off_task(
	spec: &TaskSpec,
	root: &Hash32,
	checkpoints: u32,
	proof: &OffTaskProof,
) -> bool {
	let shapes = graph::param_shapes(spec);
	let slots = graph::opt_slots(&spec.training.optimizer);
	if proof.tensor_roots.len() != shapes.len().saturating_mul(slots.saturating_add(1)) {
		return false;
	}
	let leaf = geo::state_root(proof.step, proof.tensor_roots.iter().copied());
	let opened = gensyn_primitives::MerkleProof {
		leaf_index: proof.index,
		leaf_count: checkpoints,
		siblings: proof.siblings.to_vec(),
	};
	if !gensyn_primitives::merkle::verify_proof(root, &leaf, &opened) {
		return false;
	}
	if proof.step != spec.checkpoint_step(u64::from(proof.index)) {
		return true;
	}
	// On the schedule: only a first checkpoint's values can still be off the task.
	let (0, Some(c)) = (proof.index, &proof.chunk) else { return false };
	let t = c.tensor as usize;
	let (kind, shape) = match t.checked_sub(shapes.len()) {
		None => (TensorKind::Param(c.tensor), shapes.get(t)),
		Some(o) => (TensorKind::OptState(o as u32), shapes.get(o / slots.max(1))),
	};
	let (Some(shape), Some(tensor_root)) = (shape, proof.tensor_roots.get(t)) else {
		return false;
	};
	let numel = shape.iter().fold(1u64, |n, d| n.saturating_mul(u64::from(*d)));
	let values: Vec<f32> = c.values.iter().map(|b| f32::from_bits(*b)).collect();
	if !geo::verify_tensor_chunk(tensor_root, numel, u64::from(c.chunk), &values, &c.siblings) {
		return false;
	}
	let first =
		u64::from(c.chunk).saturating_mul(gensyn_primitives::merkle::TENSOR_CHUNK_ELEMENTS as u64);
	values.iter().zip(first..).any(|(v, i)| match model::initial_value(spec, kind, i) {
		Some(Ok(x)) => x.to_bits() != v.to_bits(),
		_ => false,
	})
}
