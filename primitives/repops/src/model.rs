//! Whole training steps: initial state, one step, a traced step (every op's output and
//! its commitment), and replay of `k` steps over a data set.

use crate::{
	conv,
	graph::{self, opt_slots, param_shapes, step_graph, Graph, OpKind},
	init, linear, loss, optim, pool, relu,
	state::TrainState,
	ReproError, Result,
};
use alloc::{vec, vec::Vec};
use gensyn_primitives::{
	merkle::{self, blake2_256, Hash},
	order, Layer, TaskSpec,
};

/// The initial state of a task: parameters from [`crate::init`] under the spec's seed
/// (a language model's as [`crate::transformer::lm::Config::start`] says), optimizer
/// state zero, step 0.
pub fn init_state(spec: &TaskSpec) -> Result<TrainState> {
	spec.validate()?;
	// A language model starts as its own rule says (`transformer::lm::Config::start`).
	if crate::transformer::task::config(spec).is_some() {
		return crate::transformer::task::init_state(spec);
	}
	if !graph::covers(spec) {
		return Err(ReproError::Unsupported);
	}
	let shapes = param_shapes(spec);
	let mut params = Vec::new();
	for (t, s) in shapes.iter().enumerate() {
		let bound = param_bound(spec, t as u32)?;
		let n: usize = s.iter().map(|d| *d as usize).product();
		params.push(init::uniform_tensor(spec.training.seed, t as u32, n, bound));
	}
	let slots = opt_slots(&spec.training.optimizer);
	let opt = params.iter().flat_map(|p| (0..slots).map(move |_| vec![0.0f32; p.len()])).collect();
	Ok(TrainState { step: 0, params, opt })
}

/// The range `1 / sqrt(fan_in)` of parameter tensor `t` (weight then bias per
/// trainable layer) at initialisation.
fn param_bound(spec: &TaskSpec, t: u32) -> Result<f32> {
	let fan_in = spec
		.model
		.layers
		.iter()
		.filter_map(|l| match *l {
			Layer::Linear { in_features, .. } => Some(in_features),
			Layer::Conv2d { in_channels, kernel, .. } => Some(in_channels * kernel * kernel),
			_ => None,
		})
		.nth((t / 2) as usize)
		.ok_or(ReproError::OutOfRange)?;
	Ok(1.0 / libm::sqrtf(fan_in as f32))
}

/// Element `elem` of `kind` (a parameter or optimizer-state tensor) in the task's
/// initial state, computed on its own: the pinpoint game rules on one value of a first
/// checkpoint with it. `None` for any other kind of tensor.
pub fn initial_value(spec: &TaskSpec, kind: graph::TensorKind, elem: u64) -> Option<Result<f32>> {
	if crate::transformer::task::config(spec).is_some() {
		return crate::transformer::task::initial_value(spec, kind, elem);
	}
	match kind {
		graph::TensorKind::Param(t) => Some(
			param_bound(spec, t)
				.map(|bound| init::uniform_value(spec.training.seed, t, elem, bound)),
		),
		graph::TensorKind::OptState(_) => Some(Ok(0.0)),
		_ => None,
	}
}

/// Checks that `state` has the tensors `spec`'s model and optimizer need.
pub fn check_state(spec: &TaskSpec, state: &TrainState) -> Result<()> {
	let shapes = param_shapes(spec);
	let slots = opt_slots(&spec.training.optimizer);
	if state.params.len() != shapes.len() || state.opt.len() != shapes.len() * slots {
		return Err(ReproError::StateMismatch);
	}
	for (i, s) in shapes.iter().enumerate() {
		let n: usize = s.iter().map(|d| *d as usize).product();
		let p_ok = state.params.get(i).is_some_and(|p| p.len() == n);
		let o_ok = (0..slots).all(|j| state.opt.get(i * slots + j).is_some_and(|o| o.len() == n));
		if !p_ok || !o_ok {
			return Err(ReproError::StateMismatch);
		}
	}
	Ok(())
}

fn get<'a>(values: &'a [Vec<f32>], id: Option<&u32>) -> Result<&'a [f32]> {
	id.and_then(|i| values.get(*i as usize)).map(|v| v.as_slice()).ok_or(ReproError::OutOfRange)
}

/// Runs op `index` of `g`, reading its inputs from `values` (indexed by tensor id) and
/// returning its output.
pub fn run_op(g: &Graph, index: usize, values: &[Vec<f32>], threads: usize) -> Result<Vec<f32>> {
	let op = g.ops.get(index).ok_or(ReproError::OutOfRange)?;
	let n = g.tensors.get(op.output as usize).ok_or(ReproError::OutOfRange)?.numel();
	// Every op but the loss ops writes each element of its output (or zeroes it first).
	let loss_op = matches!(
		op.kind,
		OpKind::RowMax { .. }
			| OpKind::ExpSum { .. }
			| OpKind::SampleLoss { .. }
			| OpKind::MeanLoss { .. }
			| OpKind::LossGrad { .. }
	);
	let mut out =
		if loss_op { crate::par::scratch::take(n) } else { crate::par::scratch::take_dirty(n) };
	let i = |k: usize| get(values, op.inputs.get(k));
	let u = |x: u32| x as usize;
	match op.kind {
		OpKind::LinearFwd { batch, fin, fout } => {
			linear::forward(i(0)?, i(1)?, i(2)?, u(batch), u(fin), u(fout), &mut out, threads)?
		}
		OpKind::LinearBwdInput { batch, fin, fout } => {
			linear::backward_input(i(0)?, i(1)?, u(batch), u(fin), u(fout), &mut out, threads)?
		}
		OpKind::LinearBwdWeight { batch, fin, fout } => {
			linear::backward_weight(i(0)?, i(1)?, u(batch), u(fin), u(fout), &mut out, threads)?
		}
		OpKind::LinearBwdBias { batch, fout } => {
			linear::backward_bias(i(0)?, u(batch), u(fout), &mut out)?
		}
		OpKind::ConvFwd(geom) => conv::forward(i(0)?, i(1)?, i(2)?, &geom, &mut out, threads)?,
		OpKind::ConvBwdInput(geom) => conv::backward_input(i(0)?, i(1)?, &geom, &mut out, threads)?,
		OpKind::ConvBwdWeight(geom) => {
			conv::backward_weight(i(0)?, i(1)?, &geom, &mut out, threads)?
		}
		OpKind::ConvBwdBias(geom) => conv::backward_bias(i(0)?, &geom, &mut out, threads)?,
		OpKind::ReluFwd => relu::forward(i(0)?, &mut out, threads)?,
		OpKind::ReluBwd => relu::backward(i(0)?, i(1)?, &mut out, threads)?,
		OpKind::PoolFwd(geom) => pool::forward(i(0)?, &geom, &mut out, threads)?,
		OpKind::PoolBwd(geom) => pool::backward(i(0)?, i(1)?, &geom, &mut out, threads)?,
		OpKind::Flatten | OpKind::FlattenBwd => {
			let x = i(0)?;
			if x.len() != n {
				return Err(ReproError::ShapeMismatch);
			}
			out.copy_from_slice(x);
		}
		OpKind::RowMax { classes, .. } => loss::row_max(i(0)?, u(classes), &mut out)?,
		OpKind::ExpSum { classes, .. } => loss::exp_sum(i(0)?, i(1)?, u(classes), &mut out)?,
		OpKind::SampleLoss { classes, .. } => {
			loss::sample_losses(i(0)?, i(1)?, i(2)?, i(3)?, u(classes), &mut out)?
		}
		OpKind::MeanLoss { .. } => {
			let v = loss::mean(i(0)?);
			if let Some(o) = out.first_mut() {
				*o = v;
			}
		}
		OpKind::LossGrad { classes, .. } => {
			loss::loss_grad(i(0)?, i(1)?, i(2)?, i(3)?, u(classes), &mut out)?
		}
		OpKind::SgdMomentum { momentum } => {
			zip2(&mut out, i(0)?, i(1)?, |b, g| optim::sgd_momentum(momentum, b, g))?
		}
		OpKind::SgdParam { lr } => zip2(&mut out, i(0)?, i(1)?, |p, b| optim::sgd_param(lr, p, b))?,
		OpKind::AdamM { beta1 } => zip2(&mut out, i(0)?, i(1)?, |m, g| optim::adam_m(beta1, m, g))?,
		OpKind::AdamV { beta2 } => zip2(&mut out, i(0)?, i(1)?, |v, g| optim::adam_v(beta2, v, g))?,
		OpKind::AdamParam(sc) => {
			let (p, m, v) = (i(0)?, i(1)?, i(2)?);
			if p.len() != n || m.len() != n || v.len() != n {
				return Err(ReproError::ShapeMismatch);
			}
			for (((o, p), m), v) in out.iter_mut().zip(p).zip(m).zip(v) {
				*o = optim::adam_param(&sc, *p, *m, *v);
			}
		}
		OpKind::AdamWParam { sc, decay } => {
			let (p, m, v) = (i(0)?, i(1)?, i(2)?);
			if p.len() != n || m.len() != n || v.len() != n {
				return Err(ReproError::ShapeMismatch);
			}
			for (((o, p), m), v) in out.iter_mut().zip(p).zip(m).zip(v) {
				*o = optim::adam_param(&sc, optim::adamw_decay(decay, *p), *m, *v);
			}
		}
		OpKind::Lm(kind) => {
			let inputs = (0..op.inputs.len()).map(i).collect::<Result<Vec<_>>>()?;
			crate::transformer::ops::run(kind, &inputs, &mut out)?
		}
	}
	Ok(out)
}

fn zip2(out: &mut [f32], a: &[f32], b: &[f32], f: impl Fn(f32, f32) -> f32) -> Result<()> {
	if a.len() != out.len() || b.len() != out.len() {
		return Err(ReproError::ShapeMismatch);
	}
	for ((o, x), y) in out.iter_mut().zip(a).zip(b) {
		*o = f(*x, *y);
	}
	Ok(())
}

/// The input values of a step's graph: batch, labels, parameters, optimizer state;
/// every other tensor empty.
/// Where a step's parameters and optimizer state come from.
enum Source<'a> {
	/// Copied from a state that stays as it is.
	Copy(&'a TrainState),
	/// Moved out of a state that the step replaces (no copy; [`restore`] moves them
	/// back if the step fails).
	Lend(&'a mut TrainState),
}

impl Source<'_> {
	fn state(&self) -> &TrainState {
		match self {
			Source::Copy(s) => s,
			Source::Lend(s) => s,
		}
	}
}

fn graph_inputs(
	g: &Graph,
	src: &mut Source,
	inputs: &[f32],
	labels: &[u32],
	classes: u32,
) -> Result<Vec<Vec<f32>>> {
	let len = |id: u32| g.tensors.get(id as usize).map(|t| t.numel()).ok_or(ReproError::OutOfRange);
	if inputs.len() != len(graph::INPUT)? || labels.len() != len(graph::LABELS)? {
		return Err(ReproError::ShapeMismatch);
	}
	if labels.iter().any(|l| *l >= classes) {
		return Err(ReproError::LabelOutOfRange);
	}
	let mut values: Vec<Vec<f32>> = vec![Vec::new(); g.tensors.len()];
	let mut set = |id: u32, v: Vec<f32>| -> Result<()> {
		*values.get_mut(id as usize).ok_or(ReproError::OutOfRange)? = v;
		Ok(())
	};
	set(graph::INPUT, inputs.to_vec())?;
	set(graph::LABELS, labels.iter().map(|l| *l as f32).collect())?;
	// Nothing below fails once these hold, so a lent state is never left half-moved.
	let n = g.tensors.len();
	if g.params.iter().chain(&g.opt_state).any(|id| *id as usize >= n) {
		return Err(ReproError::OutOfRange);
	}
	match src {
		Source::Copy(st) => {
			for (id, p) in g.params.iter().zip(&st.params) {
				set(*id, p.clone())?;
			}
			for (id, o) in g.opt_state.iter().zip(&st.opt) {
				set(*id, o.clone())?;
			}
		}
		Source::Lend(st) => {
			for (id, p) in g.params.iter().zip(st.params.iter_mut()) {
				set(*id, core::mem::take(p))?;
			}
			for (id, o) in g.opt_state.iter().zip(st.opt.iter_mut()) {
				set(*id, core::mem::take(o))?;
			}
		}
	}
	Ok(values)
}

/// Moves the tensors [`graph_inputs`] lent back into `state`.
fn restore(g: &Graph, values: &mut [Vec<f32>], state: &mut TrainState) {
	for (id, p) in g.params.iter().zip(state.params.iter_mut()) {
		if let Some(v) = values.get_mut(*id as usize) {
			*p = core::mem::take(v);
		}
	}
	for (id, o) in g.opt_state.iter().zip(state.opt.iter_mut()) {
		if let Some(v) = values.get_mut(*id as usize) {
			*o = core::mem::take(v);
		}
	}
}

/// Everything one step computed: its graph, every tensor's value, and per op the
/// Merkle root of its output ([`merkle::tensor_root`]) and the running prefix hash
/// `p_i = blake2_256(p_(i-1) ++ root_i)` from `p_(-1) = [0; 32]`.
#[derive(Clone, Debug)]
pub struct StepTrace {
	/// The step's graph.
	pub graph: Graph,
	/// Every tensor's value, by tensor id.
	pub values: Vec<Vec<f32>>,
	/// Output root of each op.
	pub op_roots: Vec<Hash>,
	/// Prefix hash after each op.
	pub prefix: Vec<Hash>,
	/// The mean loss of the batch.
	pub loss: f32,
	/// The state after the step.
	pub next: TrainState,
}

/// Runs a step's ops on the parameters and optimizer state of `src`.
fn execute(
	spec: &TaskSpec,
	mut src: Source,
	inputs: &[f32],
	labels: &[u32],
	threads: usize,
) -> Result<(Graph, Vec<Vec<f32>>)> {
	check_state(spec, src.state())?;
	// A language model's labels are each position's next token.
	let per = if crate::transformer::task::config(spec).is_some() {
		spec.model.input.width.max(1) as usize
	} else {
		1
	};
	let batch = u32::try_from(labels.len() / per).map_err(|_| ReproError::BadBatch)?;
	let g = step_graph(spec, batch, src.state().step)?;
	let mut values = graph_inputs(&g, &mut src, inputs, labels, spec.data.classes)?;
	let mut run = || -> Result<()> {
		for i in 0..g.ops.len() {
			let out = run_op(&g, i, &values, threads)?;
			let id = g.ops.get(i).ok_or(ReproError::OutOfRange)?.output;
			*values.get_mut(id as usize).ok_or(ReproError::OutOfRange)? = out;
		}
		Ok(())
	};
	if let Err(e) = run() {
		if let Source::Lend(state) = src {
			restore(&g, &mut values, state);
		}
		return Err(e);
	}
	Ok((g, values))
}

fn next_state(g: &Graph, values: &mut [Vec<f32>], step: u64) -> TrainState {
	let mut take = |id: &u32| values.get_mut(*id as usize).map(core::mem::take).unwrap_or_default();
	TrainState {
		step: step + 1,
		params: g.new_params.iter().map(&mut take).collect(),
		opt: g.new_opt_state.iter().map(&mut take).collect(),
	}
}

/// One training step on a batch (`inputs`: `[B, C, H, W]` flat; `labels`: `[B]`; a
/// language model's: each sequence's `t` token ids as `f32`, then their `B * t` next
/// tokens, [`load_batch`]); updates `state` and returns the batch's mean loss (before
/// the update).
pub fn train_step(
	spec: &TaskSpec,
	state: &mut TrainState,
	inputs: &[f32],
	labels: &[u32],
	threads: usize,
) -> Result<f32> {
	let (g, mut values) = execute(spec, Source::Lend(state), inputs, labels, threads)?;
	let loss = match get(&values, Some(&g.loss)) {
		Ok(l) => l.first().copied().unwrap_or(f32::NAN),
		Err(e) => {
			restore(&g, &mut values, state);
			return Err(e);
		}
	};
	*state = next_state(&g, &mut values, state.step);
	for v in values {
		crate::par::scratch::give(v);
	}
	Ok(loss)
}

/// One step with every op's output kept and committed (the pinpoint game's levels (b)
/// and (c)); `state` is not changed.
pub fn trace_step(
	spec: &TaskSpec,
	state: &TrainState,
	inputs: &[f32],
	labels: &[u32],
	threads: usize,
) -> Result<StepTrace> {
	let (g, values) = execute(spec, Source::Copy(state), inputs, labels, threads)?;
	let mut op_roots = Vec::with_capacity(g.ops.len());
	let mut prefix = Vec::with_capacity(g.ops.len());
	let mut p = [0u8; 32];
	for op in &g.ops {
		let r = merkle::tensor_root(get(&values, Some(&op.output))?);
		let mut buf = [0u8; 64];
		buf[..32].copy_from_slice(&p);
		buf[32..].copy_from_slice(&r);
		p = blake2_256(&buf);
		op_roots.push(r);
		prefix.push(p);
	}
	let loss = get(&values, Some(&g.loss))?.first().copied().unwrap_or(f32::NAN);
	let mut vals = values.clone();
	let next = next_state(&g, &mut vals, state.step);
	Ok(StepTrace { graph: g, values, op_roots, prefix, loss, next })
}

/// A source of training samples.
pub trait Dataset {
	/// Writes sample `index` (`C*H*W` f32 values, NCHW) into `input` and returns its label.
	fn sample(&self, index: u32, input: &mut [f32]) -> Result<u32>;

	/// Writes token sequence `index` (`t + 1` ids: the input, then the last one's next)
	/// into `ids`; only a token data set has them.
	fn sequence(&self, index: u32, ids: &mut [u32]) -> Result<()> {
		let _ = (index, ids);
		Err(ReproError::Unsupported)
	}
}

/// The batch of step `step` under the task's data order ([`gensyn_primitives::order`]):
/// its inputs and labels as a step graph reads them (a language model's, its sequences'
/// token ids as `f32` and their next tokens).
pub fn load_batch<D: Dataset + ?Sized>(
	spec: &TaskSpec,
	data: &D,
	randomness: &[u8; 32],
	step: u64,
) -> Result<(Vec<f32>, Vec<u32>)> {
	let (epoch, start, end) = order::step_range(spec, step).ok_or(ReproError::OutOfRange)?;
	let perm = order::epoch_permutation(spec.training.seed, randomness, epoch, spec.data.samples);
	let idx = perm.get(start..end).ok_or(ReproError::OutOfRange)?;
	if crate::transformer::task::config(spec).is_some() {
		let ids = sequences_of(spec, data, idx)?;
		let (tokens, targets, _) = crate::transformer::task::split(spec, &ids)?;
		return Ok((tokens.iter().map(|t| *t as f32).collect(), targets));
	}
	batch_of(spec, data, idx)
}

fn batch_of<D: Dataset + ?Sized>(
	spec: &TaskSpec,
	data: &D,
	idx: &[u32],
) -> Result<(Vec<f32>, Vec<u32>)> {
	let per = spec.data.input.numel() as usize;
	let mut inputs = vec![0.0f32; per * idx.len()];
	let mut labels = Vec::with_capacity(idx.len());
	for (i, dst) in idx.iter().zip(inputs.chunks_exact_mut(per.max(1))) {
		labels.push(data.sample(*i, dst)?);
	}
	Ok((inputs, labels))
}

/// The token sequences `idx` of a language model's data, one after another.
fn sequences_of<D: Dataset + ?Sized>(spec: &TaskSpec, data: &D, idx: &[u32]) -> Result<Vec<u32>> {
	let per = (spec.data.input.width as usize).saturating_add(1);
	let mut ids = vec![0u32; per.saturating_mul(idx.len())];
	for (i, dst) in idx.iter().zip(ids.chunks_exact_mut(per)) {
		data.sequence(*i, dst)?;
	}
	Ok(ids)
}

/// Runs `steps` training steps from `state` (at `state.step`) with the task's data
/// order, returning each step's loss (a language model's batches are token sequences:
/// [`Dataset::sequence`]). Stops with an error past the last step.
pub fn replay<D: Dataset + ?Sized>(
	spec: &TaskSpec,
	state: &mut TrainState,
	data: &D,
	randomness: &[u8; 32],
	steps: u64,
	threads: usize,
) -> Result<Vec<f32>> {
	let mut losses = Vec::new();
	let mut cached: Option<(u32, Vec<u32>)> = None;
	for _ in 0..steps {
		let (epoch, start, end) =
			order::step_range(spec, state.step).ok_or(ReproError::OutOfRange)?;
		if cached.as_ref().is_none_or(|c| c.0 != epoch) {
			cached = Some((
				epoch,
				order::epoch_permutation(spec.training.seed, randomness, epoch, spec.data.samples),
			));
		}
		let idx =
			cached.as_ref().and_then(|c| c.1.get(start..end)).ok_or(ReproError::OutOfRange)?;
		if crate::transformer::task::config(spec).is_some() {
			let ids = sequences_of(spec, data, idx)?;
			losses.push(crate::transformer::task::train_step(spec, state, &ids, threads)?);
			continue;
		}
		let (x, y) = batch_of(spec, data, idx)?;
		losses.push(train_step(spec, state, &x, &y, threads)?);
	}
	Ok(losses)
}
