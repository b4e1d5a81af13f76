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
