//! Players of the pinpoint game, built on repops, for tests and benchmarks: a run of a
//! small task (optionally with one injected fault) that answers every question of the
//! game from its own values, and an honest challenger's choices against it.

#![cfg_attr(not(test), allow(dead_code))]

use crate::{ElementAnswer, Hash32, TensorOpening, MAX_OPENINGS, MAX_POINTS};
use alloc::{vec, vec::Vec};
use core::cell::RefCell;
use frame_support::BoundedVec;
use gensyn_primitives::{
	merkle, BoundedVec as SpecVec, DataFormat, DataRef, F32Bits, Layer, Loss, LrSchedule,
	ModelSpec, Optimizer, Permill, Shape3, TaskSpec, TrainingSpec, Uri, VerificationMode,
	VerificationSpec,
};
use gensyn_repops::{
	dispute as geo, element,
	graph::{INPUT, LABELS},
	model::{self, Dataset, StepTrace},
	state::TrainState,
	ReproError,
};

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
pub fn fixture_spec(file: &[u8], k: u32) -> TaskSpec {
	fixture_spec_of(file, SAMPLES, k)
}

/// The same over a file of `samples` samples.
pub fn fixture_spec_of(file: &[u8], samples: u32, k: u32) -> TaskSpec {
	let input = Shape3 { channels: 1, height: SIDE, width: SIDE };
	let layers = vec![
		Layer::Flatten,
		Layer::Linear { in_features: SIDE * SIDE, out_features: 32 },
		Layer::Relu,
		Layer::Linear { in_features: 32, out_features: 4 },
	];
	TaskSpec {
		model: ModelSpec {
			input,
			layers: SpecVec::try_from_vec(layers).expect("four layers fit"),
			loss: Loss::SoftmaxCrossEntropy,
		},
		data: DataRef {
			uri: Uri::parse("file://fixture.idx").expect("a valid URI"),
			file_hash: gensyn_primitives::Hash32(merkle::blake2_256(file)),
			chunk_root: gensyn_primitives::Hash32(merkle::root_of_chunks(
				file,
				gensyn_primitives::DATA_CHUNK_SIZE,
			)),
			format: DataFormat::MnistIdx,
			samples,
			input,
			classes: 4,
		},
		training: TrainingSpec {
			epochs: 8,
			batch_size: 8,
			seed: 5,
			checkpoint_interval: k,
			optimizer: Optimizer::Sgd {
				lr: F32Bits::from_f32(0.1),
				momentum: F32Bits::from_f32(0.9),
			},
			lr_schedule: LrSchedule::Constant,
		},
		verification: VerificationSpec {
			mode: VerificationMode::Exact,
			audit_fraction: Permill(1_000_000),
		},
	}
}

/// Reads samples from an MNIST IDX bundle of `n` images of `per` pixels.
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

/// A full training run of a task, as one player computed it.
pub struct Run {
	/// The task.
	pub spec: TaskSpec,
	/// The data file.
	pub file: Vec<u8>,
	/// The data-order randomness.
	pub randomness: [u8; 32],
	/// The state after each global step (`states[0]` is the initial state).
	pub states: Vec<TrainState>,
	/// The injected fault, if any.
	pub fault: Option<Fault>,
}

impl Run {
	/// Trains the whole task, applying `fault` on the way.
	pub fn new(spec: TaskSpec, file: Vec<u8>, randomness: [u8; 32], fault: Option<Fault>) -> Self {
		let mut run = Run { spec, file, randomness, states: Vec::new(), fault };
		let mut state = model::init_state(&run.spec).expect("fixture spec is valid");
		run.states.push(state.clone());
		for step in 0..run.spec.total_steps() {
			let t = run.trace(&state, step);
			state = t.next;
			run.states.push(state.clone());
		}
		run
	}

	fn data(&self) -> Bundle<'_> {
		let per = self.spec.data.input.numel() as usize;
		Bundle { file: &self.file, n: self.spec.data.samples as usize, per }
	}

	/// The trace of global step `step` from `state`, with the fault applied when it is
	/// in this step (every later op recomputed from the wrong value).
	fn trace(&self, state: &TrainState, step: u64) -> StepTrace {
		let (x, y) = model::load_batch(&self.spec, &self.data(), &self.randomness, step)
			.expect("fixture data");
		let mut t = model::trace_step(&self.spec, state, &x, &y, 1).expect("fixture step");
		if let Some(f) = self.fault.filter(|f| f.step == step) {
			t.values[f.tensor as usize][f.elem] = f.value;
			let first = t.graph.ops.iter().position(|o| o.output == f.tensor).map_or(0, |i| i + 1);
			for i in first..t.graph.ops.len() {
				let out = model::run_op(&t.graph, i, &t.values, 1).expect("fixture op");
				let id = t.graph.ops[i].output as usize;
				t.values[id] = out;
			}
			let take = |ids: &[u32]| -> Vec<Vec<f32>> {
				ids.iter().map(|id| t.values[*id as usize].clone()).collect()
			};
			t.next = TrainState {
				step: step + 1,
				params: take(&t.graph.new_params),
				opt: take(&t.graph.new_opt_state),
			};
		}
		t
	}

	/// The trace of global step `step`.
	pub fn step_trace(&self, step: u64) -> StepTrace {
		self.trace(&self.states[step as usize], step)
	}

	/// The state root after `step` global steps.
	pub fn root(&self, step: u64) -> Hash32 {
		self.states[step as usize].root()
	}

	/// Checkpoint roots: every `k` steps and the final state.
	pub fn checkpoint_leaves(&self) -> Vec<Hash32> {
		let k = u64::from(self.spec.training.checkpoint_interval);
		let total = self.spec.total_steps();
		let mut steps: Vec<u64> = (0..total).step_by(k as usize).collect();
		steps.push(total);
		steps.iter().map(|s| self.root(*s)).collect()
	}

	/// The roots of every tensor of global step `step`.
	pub fn tensor_roots(&self, step: u64) -> Vec<Hash32> {
		self.step_trace(step).values.iter().map(|v| merkle::tensor_root(v)).collect()
	}

	/// The nodes a descent reveals below node `index` at `height` of `tensor`'s tree.
	pub fn descent(&self, step: u64, tensor: u32, height: u32, index: u64) -> Vec<Hash32> {
		let t = self.step_trace(step);
		let values = &t.values[tensor as usize];
		let levels = geo::tree_levels(geo::tensor_leaves(values));
		let span = geo::descent_span(height);
		let (first, count) =
			geo::descent_children(values.len().div_ceil(64) as u64, height, index, span)
				.expect("descent in range");
		levels[(height - span) as usize][first as usize..(first + count) as usize].to_vec()
	}

	/// The values (f32 bits) of chunk `chunk` of `tensor`.
	pub fn chunk(&self, step: u64, tensor: u32, chunk: u64) -> Vec<u32> {
		let t = self.step_trace(step);
		let v = &t.values[tensor as usize];
		let start = chunk as usize * 64;
		v[start..(start + 64).min(v.len())].iter().map(|x| x.to_bits()).collect()
	}

	/// Openings of the chunks holding every value `touch` reads from `values`.
	fn openings_for(
		&self,
		values: &[Vec<f32>],
		touch: impl Fn(&dyn Fn(u32, u64) -> Option<f32>),
	) -> BoundedVec<TensorOpening, frame_support::traits::ConstU32<MAX_OPENINGS>> {
		let seen: RefCell<Vec<(u32, u64)>> = RefCell::new(Vec::new());
		let fetch = |t: u32, i: u64| {
			let key = (t, i / 64);
			if !seen.borrow().contains(&key) {
				seen.borrow_mut().push(key);
			}
			values.get(t as usize).and_then(|v| v.get(i as usize)).copied()
		};
		touch(&fetch);
		let out: Vec<TensorOpening> = seen
			.into_inner()
			.into_iter()
			.map(|(t, c)| {
				let (vals, proof) = geo::open_tensor(&values[t as usize], c).expect("chunk");
				TensorOpening {
					tensor: t,
					chunk: c as u32,
					values: BoundedVec::truncate_from(vals.iter().map(|x| x.to_bits()).collect()),
					siblings: BoundedVec::truncate_from(proof.siblings),
				}
			})
			.collect();
		BoundedVec::truncate_from(out)
	}

	/// The answer for element `elem` of `tensor` in global step `step`.
	pub fn answer(&self, step: u64, tensor: u32, elem: u64) -> ElementAnswer {
		let t = self.step_trace(step);
		if tensor == INPUT || tensor == LABELS {
			let loc = geo::data_location(&self.spec, &self.randomness, step, tensor, elem)
				.expect("data location");
			let (bytes, proof) = geo::open_data(&self.file, loc.chunk()).expect("data chunk");
			return ElementAnswer::Data(crate::DataOpening {
				bytes: BoundedVec::truncate_from(bytes),
				siblings: BoundedVec::truncate_from(proof.siblings),
			});
		}
		let g = &t.graph;
		let op = g.ops.iter().position(|o| o.output == tensor).expect("op output");
		let fetch =
			|id: u32, i: u64| t.values.get(id as usize).and_then(|v| v.get(i as usize)).copied();
		match element::reduction(g, op, elem).expect("element") {
			Some(red) if red.len > 0 => {
				let acc = element::partial(g, op, elem, red.len, &fetch).expect("partial");
				let value = t.values[tensor as usize][elem as usize];
				let acc = if element::finish(&red, acc).to_bits() == value.to_bits() {
					acc
				} else {
					value
				};
				ElementAnswer::Reduction(acc.to_bits())
			}
			_ => ElementAnswer::Operands(self.openings_for(&t.values, |f| {
				let _ = element::eval_element(g, op, elem, f);
			})),
		}
	}

	/// Accumulators at the dissection points of `lo..hi` of an element's reduction.
	pub fn partials(&self, step: u64, tensor: u32, elem: u64, lo: u64, hi: u64) -> Vec<u32> {
		let t = self.step_trace(step);
		let g = &t.graph;
		let op = g.ops.iter().position(|o| o.output == tensor).expect("op output");
		let fetch =
			|id: u32, i: u64| t.values.get(id as usize).and_then(|v| v.get(i as usize)).copied();
		geo::dissection_points(lo, hi, MAX_POINTS)
			.iter()
			.map(|j| element::partial(g, op, elem, *j, &fetch).expect("partial").to_bits())
			.collect()
	}

	/// Openings of term `j`'s operands (and of the initial value when `j = 0`).
	pub fn term(
		&self,
		step: u64,
		tensor: u32,
		elem: u64,
		j: u64,
	) -> BoundedVec<TensorOpening, frame_support::traits::ConstU32<MAX_OPENINGS>> {
		let t = self.step_trace(step);
		let g = &t.graph;
		let op = g.ops.iter().position(|o| o.output == tensor).expect("op output");
		self.openings_for(&t.values, |f| {
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
