//! Players of the pinpoint game, built on repops: a replay of a segment (or of a whole
//! small task, optionally with one injected fault) that answers every question of the
//! game from its own values, and the honest moves of both sides ([`defend`],
//! [`challenge`]). The node's workers play with it; tests and benchmarks use the
//! fixture task below.

use crate::{
	Call, Config, ElementAnswer, Hash32, Posted, Stage, TensorOpening, MAX_OPENINGS, MAX_POINTS,
};
use alloc::{boxed::Box, vec, vec::Vec};
use core::cell::RefCell;
use frame_support::BoundedVec;
use gensyn_primitives::{merkle, TaskSpec};
use gensyn_repops::{
	dispute as geo, element,
	graph::{INPUT, LABELS},
	model::{self, Dataset, StepTrace},
	state::TrainState,
	ReproError,
};
use pallet_gensyn_tasks::TaskId;

mod sums;

type Result<T> = core::result::Result<T, ReproError>;

/// Image side of the fixture's samples.
pub const SIDE: u32 = 8;
/// Samples in the fixture's data file.
pub const SAMPLES: u32 = 40;

/// An MNIST IDX bundle of generated digits: `SAMPLES` images of `SIDE`², 4 classes.
pub fn fixture_file() -> Vec<u8> {
	fixture_file_of(SAMPLES)
}

/// The same with `n` samples.
pub fn fixture_file_of(n: u32) -> Vec<u8> {
	let mut f = Vec::new();
	for v in [0x803u32, n, SIDE, SIDE] {
		f.extend_from_slice(&v.to_be_bytes());
	}
	for i in 0..(n * SIDE * SIDE) {
		f.push(((i.wrapping_mul(2_654_435_761) >> 13) % 256) as u8);
	}
	for v in [0x801u32, n] {
		f.extend_from_slice(&v.to_be_bytes());
	}
	for i in 0..n {
		f.push((i % 4) as u8);
	}
	f
}

/// The fixture's spec over `file`: Flatten, Linear(64, 32), ReLU, Linear(32, 4), SGD
/// with momentum, batch 8 (5 steps an epoch), 8 epochs, checkpoint every `k` steps.
#[cfg(any(test, feature = "runtime-benchmarks"))]
pub fn fixture_spec(file: &[u8], k: u32) -> TaskSpec {
	fixture_spec_of(file, SAMPLES, k)
}

/// The same over a file of `samples` samples.
#[cfg(any(test, feature = "runtime-benchmarks"))]
pub fn fixture_spec_of(file: &[u8], samples: u32, k: u32) -> TaskSpec {
	use gensyn_primitives::{fixtures, Shape3};
	let input = Shape3 { channels: 1, height: SIDE, width: SIDE };
	fixtures::with(fixtures::mlp(input, 32, 4), |s| fixture_task(s, file, samples, k))
}

/// A fixture task's data (`file`, of `samples` samples, committed by its hash and chunk
/// root) and schedule: seed 5, 8 epochs, a checkpoint every `k` steps.
#[cfg(any(test, feature = "runtime-benchmarks"))]
fn fixture_task(s: &mut TaskSpec, file: &[u8], samples: u32, k: u32) {
	use gensyn_primitives::{Hash32 as SpecHash, DATA_CHUNK_SIZE};
	s.data.file_hash = SpecHash(merkle::blake2_256(file));
	s.data.chunk_root = SpecHash(merkle::root_of_chunks(file, DATA_CHUNK_SIZE));
	s.data.samples = samples;
	s.training.epochs = 8;
	s.training.seed = 5;
	s.training.checkpoint_interval = k;
}

/// Token sequences of the language-model fixture: `SAMPLES` sequences of
/// `LM_CONTEXT + 1` ids below the vocabulary's 5.
#[cfg(any(test, feature = "runtime-benchmarks"))]
pub fn lm_fixture_file() -> Vec<u8> {
	let len = SAMPLES * (LM_CONTEXT + 1);
	(0..len).map(|i| ((i.wrapping_mul(2_654_435_761) >> 13) % 5) as u8).collect()
}

/// Positions a sequence of the language-model fixture.
#[cfg(any(test, feature = "runtime-benchmarks"))]
pub const LM_CONTEXT: u32 = 8;

/// The language-model fixture's spec over `file`: `fixtures::tiny_lm` (an embedding of
/// 5 tokens in 8 features, one decoder block of 2 heads, LayerNorm, the head; AdamW with
/// the gradients clipped to a norm of 0.05, which every step's exceed, so that the norm
/// decides the step), batch 4 (10 steps an epoch), 8 epochs, checkpoint every `k`
/// steps.
#[cfg(any(test, feature = "runtime-benchmarks"))]
pub fn lm_fixture_spec(file: &[u8], k: u32) -> TaskSpec {
	use gensyn_primitives::{fixtures, Optimizer};
	fixtures::with(fixtures::tiny_lm(), |s| {
		if let Optimizer::AdamW { max_grad_norm, .. } = &mut s.training.optimizer {
			*max_grad_norm = 0.05f32.into();
		}
		fixture_task(s, file, SAMPLES, k);
	})
}

/// Reads samples from an MNIST IDX bundle of `n` images of `per` pixels, or sequences
/// from a file of token sequences.
struct Bundle<'a> {
	file: &'a [u8],
	n: usize,
	per: usize,
}

impl Dataset for Bundle<'_> {
	fn sample(&self, index: u32, input: &mut [f32]) -> gensyn_repops::Result<u32> {
		let i = index as usize;
		let px =
			self.file.get(16 + i * self.per..16 + (i + 1) * self.per).ok_or(ReproError::Data)?;
		for (dst, b) in input.iter_mut().zip(px) {
			*dst = f32::from(*b) / 255.0;
		}
		let label = self.file.get(16 + self.n * self.per + 8 + i).ok_or(ReproError::Data)?;
		Ok(u32::from(*label))
	}

	fn sequence(&self, index: u32, ids: &mut [u32]) -> gensyn_repops::Result<()> {
		let at = (index as usize).checked_mul(ids.len()).ok_or(ReproError::Data)?;
		let bytes = self.file.get(at..at.saturating_add(ids.len())).ok_or(ReproError::Data)?;
		for (id, b) in ids.iter_mut().zip(bytes) {
			*id = u32::from(*b);
		}
		Ok(())
	}
}

/// One value a faulty run gets wrong: element `elem` of tensor `tensor` in global step
/// `step` is set to `value`, and everything after follows from it.
#[derive(Clone, Copy, Debug)]
pub struct Fault {
	/// Global step.
	pub step: u64,
	/// Tensor id in that step's graph.
	pub tensor: u32,
	/// Flat element index.
	pub elem: usize,
	/// The wrong value.
	pub value: f32,
}

/// A dataset a run reads its batches from, when the data file is not a plain MNIST
/// IDX bundle (whose samples the run reads from the file itself).
pub type Samples = Box<dyn Dataset + Send + Sync>;

/// A run of consecutive training steps of a task, as one player computed it.
pub struct Run {
	/// The task.
	pub spec: TaskSpec,
	/// The data file (batch values are opened from it).
	pub file: Vec<u8>,
	/// Where samples are read from, when not from `file`.
	samples: Option<Samples>,
	/// The data-order randomness.
	pub randomness: [u8; 32],
	/// `states[i]` is the state after `states[0].step + i` global steps.
	pub states: Vec<TrainState>,
	/// The injected fault, if any.
	pub fault: Option<Fault>,
}

impl Run {
	/// Trains the whole task from its initial state, applying `fault` on the way.
	pub fn new(spec: TaskSpec, file: Vec<u8>, randomness: [u8; 32], fault: Option<Fault>) -> Self {
		let start = model::init_state(&spec).expect("fixture spec is valid");
		let steps = spec.total_steps();
		Self::replay(spec, file, None, randomness, start, steps, fault).expect("fixture run")
	}

	/// Replays `steps` steps from `start` (at global step `start.step`), reading samples
	/// from `samples` or, when `None`, from `file` (an MNIST IDX bundle, or token
	/// sequences).
	pub fn replay(
		spec: TaskSpec,
		file: Vec<u8>,
		samples: Option<Samples>,
		randomness: [u8; 32],
		start: TrainState,
		steps: u64,
		fault: Option<Fault>,
	) -> Result<Self> {
		model::check_state(&spec, &start)?;
		let last = start.step.checked_add(steps).ok_or(ReproError::OutOfRange)?;
		if last > spec.total_steps() {
			return Err(ReproError::OutOfRange);
		}
		let mut run = Run { spec, file, samples, randomness, states: vec![start], fault };
		for _ in 0..steps {
			let state = run.states.last().ok_or(ReproError::OutOfRange)?;
			let next = if run.fault.is_some_and(|f| f.step == state.step) {
				run.trace(state, state.step)?.next
			} else {
				let mut next = state.clone();
				let (x, y) = run.batch(next.step)?;
				model::train_step(&run.spec, &mut next, &x, &y, 1)?;
				next
			};
			run.states.push(next);
		}
		Ok(run)
	}

	fn batch(&self, step: u64) -> Result<(Vec<f32>, Vec<u32>)> {
		match &self.samples {
			Some(data) => model::load_batch(&self.spec, data.as_ref(), &self.randomness, step),
			None => {
				let per = self.spec.data.input.numel() as usize;
				let bundle = Bundle { file: &self.file, n: self.spec.data.samples as usize, per };
				model::load_batch(&self.spec, &bundle, &self.randomness, step)
			}
		}
	}

	/// The state after `step` global steps.
	fn state(&self, step: u64) -> Result<&TrainState> {
		let first = self.states.first().ok_or(ReproError::OutOfRange)?.step;
		let i = step.checked_sub(first).ok_or(ReproError::OutOfRange)?;
		self.states
			.get(usize::try_from(i).map_err(|_| ReproError::OutOfRange)?)
			.ok_or(ReproError::OutOfRange)
	}

	/// The states this run reached at the start and the end of `segment` (by the
	/// task's checkpoint schedule).
	pub fn segment_ends(&self, segment: u32) -> Result<(&TrainState, &TrainState)> {
		let at = |i: u32| self.state(self.spec.checkpoint_step(u64::from(i)));
		Ok((at(segment)?, at(segment.saturating_add(1))?))
	}

	/// The trace of global step `step` from `state`, with the fault applied when it is
	/// in this step (every later op recomputed from the wrong value).
	fn trace(&self, state: &TrainState, step: u64) -> Result<StepTrace> {
		let (x, y) = self.batch(step)?;
		let mut t = model::trace_step(&self.spec, state, &x, &y, 1)?;
		if let Some(f) = self.fault.filter(|f| f.step == step) {
			let slot = t
				.values
				.get_mut(f.tensor as usize)
				.and_then(|v| v.get_mut(f.elem))
				.ok_or(ReproError::OutOfRange)?;
			*slot = f.value;
			let first = t.graph.ops.iter().position(|o| o.output == f.tensor).map_or(0, |i| i + 1);
			for i in first..t.graph.ops.len() {
				let out = model::run_op(&t.graph, i, &t.values, 1)?;
				let id = t.graph.ops[i].output as usize;
				*t.values.get_mut(id).ok_or(ReproError::OutOfRange)? = out;
			}
			let take = |ids: &[u32]| -> Vec<Vec<f32>> {
				ids.iter()
					.map(|id| t.values.get(*id as usize).cloned().unwrap_or_default())
					.collect()
			};
			t.next = TrainState {
				step: step + 1,
				params: take(&t.graph.new_params),
				opt: take(&t.graph.new_opt_state),
			};
		}
		Ok(t)
	}

	/// The trace of global step `step`.
	pub fn step_trace(&self, step: u64) -> Result<StepTrace> {
		self.trace(self.state(step)?, step)
	}

	/// The state root after `step` global steps.
	pub fn root(&self, step: u64) -> Result<Hash32> {
		Ok(self.state(step)?.root())
	}

	/// Checkpoint roots: every `k` steps and the final state (a run from step 0 to the
	/// end of the task).
	pub fn checkpoint_leaves(&self) -> Result<Vec<Hash32>> {
		let k = u64::from(self.spec.training.checkpoint_interval.max(1));
		let total = self.spec.total_steps();
		let mut steps: Vec<u64> = (0..total).step_by(k as usize).collect();
		steps.push(total);
		steps.iter().map(|s| self.root(*s)).collect()
	}

	/// The roots of every tensor of global step `step`.
	pub fn tensor_roots(&self, step: u64) -> Result<Vec<Hash32>> {
		Ok(self.step_trace(step)?.values.iter().map(|v| merkle::tensor_root(v)).collect())
	}

	fn values_of(t: &StepTrace, tensor: u32) -> Result<&Vec<f32>> {
		t.values.get(tensor as usize).ok_or(ReproError::OutOfRange)
	}

	/// The nodes a descent reveals below node `index` at `height` of `tensor`'s tree.
	pub fn descent(&self, step: u64, tensor: u32, height: u32, index: u64) -> Result<Vec<Hash32>> {
		let t = self.step_trace(step)?;
		let values = Self::values_of(&t, tensor)?;
		let levels = geo::tree_levels(geo::tensor_leaves(values));
		let span = geo::descent_span(height);
		let (first, count) =
			geo::descent_children(values.len().div_ceil(64) as u64, height, index, span)
				.ok_or(ReproError::OutOfRange)?;
		levels
			.get(height.checked_sub(span).ok_or(ReproError::OutOfRange)? as usize)
			.and_then(|level| level.get(first as usize..(first + count) as usize))
			.map(|nodes| nodes.to_vec())
			.ok_or(ReproError::OutOfRange)
	}

	/// The values (f32 bits) of chunk `chunk` of `tensor`.
	pub fn chunk(&self, step: u64, tensor: u32, chunk: u64) -> Result<Vec<u32>> {
		let t = self.step_trace(step)?;
		let v = Self::values_of(&t, tensor)?;
		let start = usize::try_from(chunk).map_err(|_| ReproError::OutOfRange)?.saturating_mul(64);
		let values =
			v.get(start..start.saturating_add(64).min(v.len())).ok_or(ReproError::OutOfRange)?;
		Ok(values.iter().map(|x| x.to_bits()).collect())
	}

	/// Openings of the chunks holding every value `touch` reads from `values`.
	fn openings_for(
		values: &[Vec<f32>],
		touch: impl Fn(&dyn Fn(u32, u64) -> Option<f32>),
	) -> Result<BoundedVec<TensorOpening, frame_support::traits::ConstU32<MAX_OPENINGS>>> {
		let seen: RefCell<Vec<(u32, u64)>> = RefCell::new(Vec::new());
		let fetch = |t: u32, i: u64| {
			let key = (t, i / 64);
			if !seen.borrow().contains(&key) {
				seen.borrow_mut().push(key);
			}
			values.get(t as usize).and_then(|v| v.get(i as usize)).copied()
		};
		touch(&fetch);
		let mut out = Vec::new();
		for (t, c) in seen.into_inner() {
			let tensor = values.get(t as usize).ok_or(ReproError::OutOfRange)?;
			let (vals, proof) = geo::open_tensor(tensor, c).ok_or(ReproError::OutOfRange)?;
			out.push(TensorOpening {
				tensor: t,
				chunk: u32::try_from(c).map_err(|_| ReproError::OutOfRange)?,
				values: BoundedVec::try_from(vals.iter().map(|x| x.to_bits()).collect::<Vec<_>>())
					.map_err(|_| ReproError::OutOfRange)?,
				siblings: BoundedVec::try_from(proof.siblings)
					.map_err(|_| ReproError::OutOfRange)?,
			});
		}
		BoundedVec::try_from(out).map_err(|_| ReproError::OutOfRange)
	}

	/// The index of the op producing `tensor` in `t`'s graph.
	fn op_of(t: &StepTrace, tensor: u32) -> Result<usize> {
		t.graph.ops.iter().position(|o| o.output == tensor).ok_or(ReproError::OutOfRange)
	}

	/// The answer for element `elem` of `tensor` in global step `step`.
	pub fn answer(&self, step: u64, tensor: u32, elem: u64) -> Result<ElementAnswer> {
		let t = self.step_trace(step)?;
		if tensor == INPUT || tensor == LABELS {
			let loc = geo::data_location(&self.spec, &self.randomness, step, tensor, elem)?;
			let (bytes, proof) = geo::open_data(&self.file, loc.chunk()).ok_or(ReproError::Data)?;
			return Ok(ElementAnswer::Data(crate::DataOpening {
				bytes: BoundedVec::try_from(bytes).map_err(|_| ReproError::Data)?,
				siblings: BoundedVec::try_from(proof.siblings).map_err(|_| ReproError::Data)?,
			}));
		}
		let g = &t.graph;
		let kind = g.tensors.get(tensor as usize).ok_or(ReproError::OutOfRange)?.kind;
		if model::initial_value(&self.spec, kind, elem).is_some() {
			// The chain computes an initial value itself.
			return Ok(ElementAnswer::Operands(BoundedVec::new()));
		}
		let op = Self::op_of(&t, tensor)?;
		let fetch =
			|id: u32, i: u64| t.values.get(id as usize).and_then(|v| v.get(i as usize)).copied();
		match element::reduction(g, op, elem)? {
			Some(red) if red.len > 0 => {
				let acc = element::partial(g, op, elem, red.len, &fetch)?;
				let value = *Self::values_of(&t, tensor)?
					.get(elem as usize)
					.ok_or(ReproError::OutOfRange)?;
				let acc = if element::finish(&red, acc).to_bits() == value.to_bits() {
					acc
				} else {
					value
				};
				Ok(ElementAnswer::Reduction(acc.to_bits()))
			}
			_ => Ok(ElementAnswer::Operands(Self::openings_for(&t.values, |f| {
				let _ = element::eval_element(g, op, elem, f);
			})?)),
		}
	}

	/// Accumulators at the dissection points of `lo..hi` of an element's reduction.
	pub fn partials(
		&self,
		step: u64,
		tensor: u32,
		elem: u64,
		lo: u64,
		hi: u64,
	) -> Result<Vec<u32>> {
		let t = self.step_trace(step)?;
		let op = Self::op_of(&t, tensor)?;
		let fetch =
			|id: u32, i: u64| t.values.get(id as usize).and_then(|v| v.get(i as usize)).copied();
		geo::dissection_points(lo, hi, MAX_POINTS)
			.iter()
			.map(|j| Ok(element::partial(&t.graph, op, elem, *j, &fetch)?.to_bits()))
			.collect()
	}

	/// Openings of term `j`'s operands (and of the initial value when `j = 0`).
	pub fn term(
		&self,
		step: u64,
		tensor: u32,
		elem: u64,
		j: u64,
	) -> Result<BoundedVec<TensorOpening, frame_support::traits::ConstU32<MAX_OPENINGS>>> {
		let t = self.step_trace(step)?;
		let g = &t.graph;
		let op = Self::op_of(&t, tensor)?;
		Self::openings_for(&t.values, |f| {
			if let Ok(Some(red)) = element::reduction(g, op, elem) {
				let acc = if j == 0 { element::value(red.init, f).unwrap_or(0.0) } else { 0.0 };
				let _ = element::reduction_step(g, op, elem, j, acc, f);
			}
		})
	}
}

/// The index of the first value of `posted` that differs from `truth` (both at the same
/// points), or `posted.len()` when all agree: an honest challenger's pick.
pub fn first_difference<V: PartialEq>(posted: &[V], truth: &[V]) -> u32 {
	posted.iter().zip(truth).position(|(a, b)| a != b).unwrap_or(posted.len()) as u32
}

/// What a player sees of one game, besides its own run.
pub struct Table<'a> {
	/// The task.
	pub task: TaskId,
	/// The disputed segment.
	pub segment: u32,
	/// Global index of the segment's first step (stage steps are relative to it).
	pub first_step: u64,
	/// Where the game stands.
	pub stage: Stage,
	/// What the defendant posted for the challenger to pick from.
	pub posted: &'a Posted,
	/// The tensor roots the defendant opened (`StepRoots`), once past `OpenStep`.
	pub step_roots: &'a [Hash32],
	/// The chunk the defendant opened (`OpenedChunks`), at `PickElement`.
	pub opened: &'a [u32],
	/// The disputed verdict's replay root and distance (f32 bits).
	pub verdict: (Hash32, u32),
	/// Threshold mode: the solver's checkpoint at the segment's end, which the distance
	/// measures (a game over the distance needs it).
	pub claimed: Option<&'a TrainState>,
}

fn bounded<V, S: frame_support::traits::Get<u32>>(v: Vec<V>) -> Result<BoundedVec<V, S>> {
	BoundedVec::try_from(v).map_err(|_| ReproError::OutOfRange)
}

/// The solver's committed checkpoint roots as a defendant knows them: every leaf (the
/// run's journal), or only those of the checkpoints it read from their pages on chain,
/// each with its siblings as the pages proved them. A game over a segment needs only its
/// start and its end.
pub trait CheckpointLeaves {
	/// Leaf `index`: checkpoint `index`'s state root.
	fn leaf(&self, index: u32) -> Option<Hash32>;
	/// The siblings of leaf `index` under the committed root.
	fn siblings(&self, index: u32) -> Option<Vec<Hash32>>;
}

impl CheckpointLeaves for [Hash32] {
	fn leaf(&self, index: u32) -> Option<Hash32> {
		self.get(index as usize).copied()
	}
	fn siblings(&self, index: u32) -> Option<Vec<Hash32>> {
		merkle::proof(self, index as usize).map(|p| p.siblings)
	}
}

impl CheckpointLeaves for Vec<Hash32> {
	fn leaf(&self, index: u32) -> Option<Hash32> {
		self.as_slice().leaf(index)
	}
	fn siblings(&self, index: u32) -> Option<Vec<Hash32>> {
		self.as_slice().siblings(index)
	}
}

/// Some checkpoints' leaves, each with its siblings: `(index, leaf, siblings)`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ProvedLeaves(pub Vec<(u32, Hash32, Vec<Hash32>)>);

impl CheckpointLeaves for ProvedLeaves {
	fn leaf(&self, index: u32) -> Option<Hash32> {
		self.0.iter().find(|(i, ..)| *i == index).map(|(_, leaf, _)| *leaf)
	}
	fn siblings(&self, index: u32) -> Option<Vec<Hash32>> {
		self.0.iter().find(|(i, ..)| *i == index).map(|(.., s)| s.clone())
	}
}

/// The honest defendant's move: answers from `run` (the segment's replay); `leaves` are
/// the solver's checkpoint roots (the start proof). Concedes when its own values cannot
/// back its claim (a claimed root its replay does not reach).
pub fn defend<T: Config>(
	run: &Run,
	leaves: &(impl CheckpointLeaves + ?Sized),
	table: &Table,
) -> Result<Call<T>> {
	let (task, segment, first) = (table.task, table.segment, table.first_step);
	let at = |step: u64| first.checked_add(step).ok_or(ReproError::OutOfRange);
	let call = match table.stage {
		Stage::Start => {
			let start_root = leaves.leaf(segment).ok_or(ReproError::OutOfRange)?;
			let siblings = leaves.siblings(segment).ok_or(ReproError::OutOfRange)?;
			Call::prove_start { task, segment, start_root, siblings: bounded(siblings)? }
		}
		Stage::Steps { lo, hi, .. } => {
			let points = geo::dissection_points(lo, hi, MAX_POINTS);
			let roots = points.iter().map(|p| run.root(at(*p)?)).collect::<Result<Vec<_>>>()?;
			Call::bisect_steps { task, segment, roots: bounded(roots)? }
		}
		Stage::OpenStep { step, lo_root, hi_root } => {
			let roots = run.tensor_roots(at(step)?)?;
			if run.root(at(step)?)? != lo_root || run.root(at(step + 1)?)? != hi_root {
				return Ok(Call::concede { task, segment });
			}
			Call::open_step { task, segment, roots: bounded(roots)? }
		}
		Stage::Descend { step, tensor, height: 0, index, .. } => Call::open_chunk {
			task,
			segment,
			values: bounded(run.chunk(at(step)?, tensor, index)?)?,
		},
		Stage::Descend { step, tensor, height, index, .. } => {
			let nodes = run.descent(at(step)?, tensor, height, index)?;
			Call::descend { task, segment, nodes: bounded(nodes)? }
		}
		Stage::Element { step, tensor, elem, value } => {
			let mine = run.chunk(at(step)?, tensor, elem / 64)?;
			if tensor != INPUT && tensor != LABELS && mine.get((elem % 64) as usize) != Some(&value)
			{
				return Ok(Call::concede { task, segment });
			}
			let answer = run.answer(at(step)?, tensor, elem)?;
			Call::answer_element { task, segment, answer, data_samples: run.spec.data.samples }
		}
		Stage::Reduction { step, tensor, elem, lo, hi, .. } if hi == lo.saturating_add(1) => {
			Call::open_term { task, segment, operands: run.term(at(step)?, tensor, elem, lo)? }
		}
		Stage::Reduction { step, tensor, elem, lo, hi, .. } => {
			let accs = run.partials(at(step)?, tensor, elem, lo, hi)?;
			Call::bisect_reduction { task, segment, accs: bounded(accs)? }
		}
		Stage::Sums | Stage::Sum { .. } => {
			let claimed = table.claimed.ok_or(ReproError::StateMismatch)?;
			match sums::defend(run, claimed, leaves, table)? {
				Some(call) => call,
				None => Call::concede { task, segment },
			}
		}
		Stage::PickTensor { .. } | Stage::PickElement { .. } | Stage::Choose => {
			return Err(ReproError::OutOfRange)
		}
	};
	Ok(call)
}

/// The honest challenger's move: names the first posted value its own `run` disagrees
/// with. Concedes when it finds nothing to dispute.
pub fn challenge<T: Config>(run: &Run, table: &Table) -> Result<Call<T>> {
	let (task, segment, first) = (table.task, table.segment, table.first_step);
	let at = |step: u64| first.checked_add(step).ok_or(ReproError::OutOfRange);
	let pick = |index: u32| Call::pick { task, segment, index };
	let call = match (table.stage, table.posted) {
		(Stage::Steps { lo, hi, lo_root, .. }, Posted::Roots(posted)) => {
			// A start it disputes (a first checkpoint that is not the task's initial
			// state, or one stamped with another step) is kept in the interval: the
			// defendant must open the step from it.
			if run.root(at(lo)?)? != lo_root {
				return Ok(pick(0));
			}
			let points = geo::dissection_points(lo, hi, MAX_POINTS);
			let truth = points.iter().map(|p| run.root(at(*p)?)).collect::<Result<Vec<_>>>()?;
			pick(first_difference(posted, &truth))
		}
		(Stage::Descend { step, tensor, height, index, .. }, Posted::Roots(kids)) => {
			let truth = run.descent(at(step)?, tensor, height, index)?;
			match first_difference(kids, &truth) {
				i if (i as usize) < kids.len() => pick(i),
				_ => Call::concede { task, segment },
			}
		}
		(Stage::Reduction { step, tensor, elem, lo, hi, .. }, Posted::Accs(posted)) => {
			let truth = run.partials(at(step)?, tensor, elem, lo, hi)?;
			pick(first_difference(posted, &truth))
		}
		(Stage::PickTensor { step }, _) => {
			let t = run.step_trace(at(step)?)?;
			// The task's first step starts from its initial state, which the chain rules on.
			let mut order: Vec<u32> = Vec::new();
			if at(step)? == 0 {
				order.extend(t.graph.params.iter().chain(&t.graph.opt_state));
			}
			order.extend([INPUT, LABELS]);
			order.extend(t.graph.ops.iter().map(|o| o.output));
			let differs = |id: u32| {
				let mine = t.values.get(id as usize).map(|v| merkle::tensor_root(v));
				mine.is_some() && table.step_roots.get(id as usize).copied() != mine
			};
			match order.into_iter().find(|id| differs(*id)) {
				Some(tensor) => Call::pick_tensor { task, segment, tensor },
				None => Call::concede { task, segment },
			}
		}
		(Stage::Choose, _) => {
			// The replay's root this node reaches is the verdict's: then only the distance
			// posted from it can be wrong.
			let end = run.segment_ends(segment)?.1.root();
			let subject = if end == table.verdict.0 {
				crate::Subject::Distance
			} else {
				crate::Subject::Replay
			};
			Call::choose { task, segment, subject }
		}
		(Stage::Sums | Stage::Sum { .. }, Posted::Sums(posted)) => {
			let claimed = table.claimed.ok_or(ReproError::StateMismatch)?;
			match sums::challenge(run, (segment, claimed), table.stage, posted)? {
				Some(index) => pick(index),
				None => Call::concede { task, segment },
			}
		}
		(Stage::PickElement { step, tensor, chunk }, _) => {
			let truth = run.chunk(at(step)?, tensor, chunk)?;
			match first_difference(table.opened, &truth) {
				i if (i as usize) < table.opened.len() => {
					Call::pick_element { task, segment, within: i }
				}
				_ => Call::concede { task, segment },
			}
		}
		_ => return Err(ReproError::OutOfRange),
	};
	Ok(call)
}
