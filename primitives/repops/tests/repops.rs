mod common;
use common::*;
use gensyn_primitives::TaskSpec;
use gensyn_repops::{
	element,
	graph::OpKind,
	model::{self, init_state, load_batch, replay, trace_step, train_step},
	state::{distances, TrainState},
};

const R: [u8; 32] = [3u8; 32];

fn run(spec: &TaskSpec, steps: u64, threads: usize) -> TrainState {
	let mut s = init_state(spec).unwrap();
	replay(spec, &mut s, &data_for(spec), &R, steps, threads).unwrap();
	s
}

#[test]
fn bitwise_identical_across_thread_counts() {
	for spec in [tiny_mlp(), tiny_cnn(), base_spec()] {
		let steps = if spec.data.samples > 1000 { 2 } else { 7 };
		let one = run(&spec, steps, 1);
		for threads in [2, 3, 8] {
			let many = run(&spec, steps, threads);
			assert_eq!(one.hash(), many.hash(), "threads = {threads}");
		}
		// And every op's output commitment of a traced step agrees.
		let (x, y) = load_batch(&spec, &data_for(&spec), &R, one.step).unwrap();
		let a = trace_step(&spec, &one, &x, &y, 1).unwrap();
		let b = trace_step(&spec, &one, &x, &y, 5).unwrap();
		assert_eq!(a.op_roots, b.op_roots);
		assert_eq!(a.next.hash(), b.next.hash());
	}
}

#[test]
fn changing_anything_changes_the_state() {
	let spec = tiny_mlp();
	let a = run(&spec, 3, 1);
	let mut other = spec.clone();
	other.training.seed += 1;
	assert_ne!(a.hash(), run(&other, 3, 1).hash());
	let mut s = init_state(&spec).unwrap();
	replay(&spec, &mut s, &data_for(&spec), &[4u8; 32], 3, 1).unwrap();
	assert_ne!(a.hash(), s.hash());
	assert_ne!(a.hash(), run(&spec, 2, 1).hash());
	assert_eq!(a.step, 3);
}

/// Every value of the initial state can be computed on its own, as the pinpoint game
/// does to rule on a first checkpoint; nothing else has an initial value.
#[test]
fn each_initial_value_is_the_initial_states() {
	use gensyn_repops::graph::{param_shapes, TensorKind};
	for spec in [tiny_mlp(), tiny_cnn(), base_spec()] {
		let st = init_state(&spec).unwrap();
		assert_eq!(st.params.len(), param_shapes(&spec).len());
		for (t, p) in st.params.iter().enumerate() {
			for (i, v) in p.iter().enumerate() {
				let got = model::initial_value(&spec, TensorKind::Param(t as u32), i as u64);
				assert_eq!(got.unwrap().unwrap().to_bits(), v.to_bits(), "param {t}[{i}]");
			}
		}
		for (t, o) in st.opt.iter().enumerate() {
			let got = model::initial_value(&spec, TensorKind::OptState(t as u32), 0);
			assert_eq!(got.unwrap().unwrap().to_bits(), o[0].to_bits(), "opt {t}");
		}
		let beyond = param_shapes(&spec).len() as u32;
		assert!(model::initial_value(&spec, TensorKind::Param(beyond), 0).unwrap().is_err());
		assert!(model::initial_value(&spec, TensorKind::Value, 0).is_none());
		assert!(model::initial_value(&spec, TensorKind::NewParam(0), 0).is_none());
	}
}

#[test]
fn element_and_reduction_evaluation_match_the_fast_ops() {
	for spec in [tiny_mlp(), tiny_cnn()] {
		let mut st = init_state(&spec).unwrap();
		replay(&spec, &mut st, &data_for(&spec), &R, 2, 1).unwrap();
		let (x, y) = load_batch(&spec, &data_for(&spec), &R, st.step).unwrap();
		let tr = trace_step(&spec, &st, &x, &y, 2).unwrap();
		let vals = &tr.values;
		let fetch = |t: u32, i: u64| vals.get(t as usize).and_then(|v| v.get(i as usize)).copied();
		let mut kinds = std::collections::BTreeSet::new();
		for (oi, op) in tr.graph.ops.iter().enumerate() {
			kinds.insert(
				format!("{:?}", op.kind).split(['(', ' ', '{']).next().unwrap().to_string(),
			);
			let out = &vals[op.output as usize];
			for (e, want) in out.iter().enumerate() {
				let got = element::eval_element(&tr.graph, oi, e as u64, &fetch).unwrap();
				assert_eq!(got.to_bits(), want.to_bits(), "op {oi} {:?} element {e}", op.kind);
				if let Some(red) = element::reduction(&tr.graph, oi, e as u64).unwrap() {
					// Walk the reduction one step at a time, as the pinpoint game does.
					let mut acc = element::partial(&tr.graph, oi, e as u64, 0, &fetch).unwrap();
					for j in 0..red.len {
						acc = element::reduction_step(&tr.graph, oi, e as u64, j, acc, &fetch)
							.unwrap();
						if j == red.len / 2 {
							let p =
								element::partial(&tr.graph, oi, e as u64, j + 1, &fetch).unwrap();
							assert_eq!(p.to_bits(), acc.to_bits());
						}
					}
					assert_eq!(element::finish(&red, acc).to_bits(), want.to_bits());
				}
			}
		}
		assert!(kinds.len() >= 10, "{kinds:?}");
		// Tampering with one output changes its commitment.
		let mut v = vals[tr.graph.ops[0].output as usize].clone();
		v[0] = f32::from_bits(v[0].to_bits() ^ 1);
		assert_ne!(gensyn_primitives::merkle::tensor_root(&v), tr.op_roots[0]);
	}
}

fn loss_at(spec: &TaskSpec, st: &TrainState, x: &[f32], y: &[u32]) -> f64 {
	trace_step(spec, st, x, y, 1).unwrap().loss as f64
}

#[test]
fn gradients_match_finite_differences() {
	for spec in [tiny_mlp(), tiny_cnn()] {
		let mut st = init_state(&spec).unwrap();
		replay(&spec, &mut st, &data_for(&spec), &R, 1, 1).unwrap();
		let (x, y) = load_batch(&spec, &data_for(&spec), &R, st.step).unwrap();
		let tr = trace_step(&spec, &st, &x, &y, 1).unwrap();
		// The gradient of parameter i is the second input of its first optimizer op.
		let mut grads = Vec::new();
		for op in &tr.graph.ops {
			if matches!(op.kind, OpKind::SgdMomentum { .. } | OpKind::AdamM { .. }) {
				grads.push(tr.values[op.inputs[1] as usize].clone());
			}
		}
		assert_eq!(grads.len(), st.params.len());
		let mut checked = 0;
		for (pi, g) in grads.iter().enumerate() {
			let n = g.len();
			for k in 0..n.min(6) {
				let e = (k * 7919) % n;
				// A ReLU or max-pool kink within h of the point spoils one step size, so
				// the check passes when any of three step sizes agrees.
				let an = g[e] as f64;
				let mut fds = Vec::new();
				for h in [1e-2f32, 3e-3, 1e-3] {
					let mut plus = st.clone();
					plus.params[pi][e] += h;
					let mut minus = st.clone();
					minus.params[pi][e] -= h;
					let fd = (loss_at(&spec, &plus, &x, &y) - loss_at(&spec, &minus, &x, &y))
						/ (2.0 * h as f64);
					fds.push(fd);
				}
				let ok = fds.iter().any(|fd| (fd - an).abs() <= 1e-3 + 2e-2 * an.abs());
				assert!(ok, "param {pi} elem {e}: fd {fds:?} vs analytic {an}");
				checked += 1;
			}
		}
		assert!(checked > 20);
	}
}

#[test]
fn training_reduces_the_loss() {
	for spec in [tiny_mlp(), tiny_cnn()] {
		let mut st = init_state(&spec).unwrap();
		let losses = replay(&spec, &mut st, &data_for(&spec), &R, 60, 2).unwrap();
		let first: f32 = losses[..6].iter().sum::<f32>() / 6.0;
		let last: f32 = losses[54..].iter().sum::<f32>() / 6.0;
		assert!(last < 0.5 * first, "{losses:?}");
	}
}

#[test]
fn state_encoding_round_trips_and_distances() {
	let spec = tiny_cnn();
	let a = run(&spec, 2, 1);
	let bytes = a.encode();
	let b = TrainState::decode(&bytes).unwrap();
	assert_eq!(a, b);
	assert_eq!(a.hash(), b.hash());
	assert_eq!(a.root(), b.root());
	assert!(TrainState::decode(&bytes[..bytes.len() - 1]).is_err());
	let d = distances(&a, &b).unwrap();
	assert_eq!((d.l1, d.l2, d.linf), (0.0, 0.0, 0.0));
	assert!(d.cosine.abs() < 1e-12);
	let c = run(&spec, 3, 1);
	let d = distances(&a, &c).unwrap();
	assert!(d.l2 > 0.0 && d.linf > 0.0 && d.l1 >= d.l2);
	assert_ne!(a.root(), c.root());
	model::check_state(&spec, &a).unwrap();
	assert!(model::check_state(&tiny_mlp(), &a).is_err());
}

/// A checkpoint that skips a segment's gradients (the optimizer's carry alone) lies at
/// 1, whether the momentum is what training left or what a solver inflated at the
/// segment's start; halfway to the replay at a half; the replay itself at 0. Measured
/// against the step instead, the inflated carry would hide the skipped work.
#[test]
fn a_checkpoint_skipping_the_gradients_lies_at_one_whatever_the_momentum() {
	use gensyn_repops::threshold::{carry_forward, relative_distance, WORK_FLOOR};
	for spec in [tiny_mlp(), tiny_cnn()] {
		let t = &spec.training;
		// From step 3, where the momentum (Adam's moments) is warm, two steps on.
		let start = run(&spec, 3, 1);
		let segment = |from: &TrainState| {
			let mut s = from.clone();
			replay(&spec, &mut s, &data_for(&spec), &R, 2, 1).unwrap();
			s
		};
		let replayed = segment(&start);
		let carried = carry_forward(t, &start, 2);
		assert_eq!(carried.step, replayed.step);
		assert_eq!(relative_distance(&spec, &start, &replayed, &replayed).unwrap(), 0.0);
		assert_eq!(relative_distance(&spec, &start, &replayed, &carried).unwrap(), 1.0);
		let mut half = carried.clone();
		for (h, r) in half
			.params
			.iter_mut()
			.chain(half.opt.iter_mut())
			.zip(replayed.params.iter().chain(&replayed.opt))
		{
			h.iter_mut().zip(r).for_each(|(h, r)| *h = 0.5 * (*h + *r));
		}
		let d = relative_distance(&spec, &start, &replayed, &half).unwrap();
		assert!((d - 0.5).abs() < 1e-3, "{d}");
		// The solver's start with its optimizer state a thousand times larger: the
		// replay from it moves far, the carry as far, and skipping the gradients still
		// lies at 1, where the step-relative distance lies near 0.
		let mut inflated = start.clone();
		inflated.opt.iter_mut().flatten().for_each(|x| *x *= 1024.0);
		let replayed = segment(&inflated);
		let carried = carry_forward(t, &inflated, 2);
		assert_eq!(relative_distance(&spec, &inflated, &replayed, &carried).unwrap(), 1.0);
		let by_step = distances(&replayed, &carried).unwrap().l2
			/ distances(&replayed, &inflated).unwrap().l2;
		assert!(by_step < 0.5, "{by_step}");
	}
	// A solver that kills a hidden unit at its start (a bias of -1e30: the unit never
	// fires again, so neither the replay nor the carry moves it) makes the state huge
	// at no cost; the floor is a share of the task's seeded initial parameters, not of
	// the state, so skipping the gradients still lies at 1.
	let spec = tiny_mlp();
	let mut dead = run(&spec, 3, 1);
	dead.params[1][0] = -1e30;
	let mut replayed = dead.clone();
	replay(&spec, &mut replayed, &data_for(&spec), &R, 2, 1).unwrap();
	assert_eq!(replayed.params[1][0], -1e30, "the dead unit does not move");
	let carried = carry_forward(&spec.training, &dead, 2);
	assert_eq!(relative_distance(&spec, &dead, &replayed, &carried).unwrap(), 1.0);
	// An optimizer state whose carry overflows (Adam's m huge, v zero) never passes.
	let spec = tiny_cnn();
	let mut wild = run(&spec, 3, 1);
	wild.opt[0].iter_mut().for_each(|m| *m = 1e38);
	wild.opt[1].iter_mut().for_each(|v| *v = 0.0);
	let carried = carry_forward(&spec.training, &wild, 2);
	assert!(carried.params[0].iter().any(|p| !p.is_finite()), "the carry overflows");
	let d = relative_distance(&spec, &wild, &run(&spec, 5, 1), &run(&spec, 5, 1)).unwrap();
	assert_eq!(d, 0.0, "a claim equal to the replay still agrees");
	let mut off = run(&spec, 5, 1);
	off.params[0][0] += 1.0;
	let d = relative_distance(&spec, &wild, &run(&spec, 5, 1), &off).unwrap();
	assert_eq!(d, f64::INFINITY);
	// A segment that does no work: parameters off by `e` lie at `e` over the floor's
	// share of the seeded initial parameters.
	let spec = tiny_mlp();
	let start = run(&spec, 3, 1);
	let mut off = start.clone();
	off.params[0][0] += 1e-3;
	let d = relative_distance(&spec, &start, &start, &off).unwrap();
	let initial = init_state(&spec).unwrap();
	let params = initial.params.iter().flatten().map(|x| f64::from(*x).powi(2)).sum::<f64>();
	let expected = 1e-3 / (WORK_FLOOR * params.sqrt());
	assert!((d / expected - 1.0).abs() < 1e-3, "{d} against {expected}");
}

#[test]
fn bad_inputs_are_errors() {
	let spec = tiny_mlp();
	let mut st = init_state(&spec).unwrap();
	let x = vec![0.0f32; 36 * 2];
	assert!(train_step(&spec, &mut st, &x, &[0, 3], 1).is_err());
	assert!(train_step(&spec, &mut st, &x[..36], &[0, 1], 1).is_err());
	assert!(train_step(&spec, &mut st, &[], &[], 1).is_err());
	assert!(train_step(&spec, &mut st, &x, &[0, 2], 1).is_ok());
}

/// The distance is a function of its sums, and each term of each sum is computed alone
/// from the few values it reads, as the chain computes the one term a game narrows to:
/// the accumulator before it plus the term is the accumulator after it, bit for bit,
/// and a claimed value one ulp off gives another term.
#[test]
fn each_term_of_a_distance_is_computed_alone() {
	use gensyn_repops::threshold::{
		canonical, distance_from_sums, relative_distance, sum_len, sums_of, term, term_at, Carry,
		Measured, TermValues,
	};
	for spec in [tiny_mlp(), tiny_cnn()] {
		let start = run(&spec, 3, 1);
		let mut replayed = start.clone();
		replay(&spec, &mut replayed, &data_for(&spec), &R, 2, 1).unwrap();
		let mut claimed = replayed.clone();
		for (i, x) in claimed.params.iter_mut().chain(claimed.opt.iter_mut()).flatten().enumerate()
		{
			*x += (i % 7) as f32 * 1e-4;
		}
		let m = Measured::new(&spec, &start, &replayed, &claimed).unwrap();
		let sums = m.sums();
		assert_eq!(sums.len(), sums_of(&spec).len());
		let d = distance_from_sums(&spec, &sums).unwrap();
		assert_eq!(d, relative_distance(&spec, &start, &replayed, &claimed).unwrap());
		assert!(d > 0.0);
		let carry = Carry::new(&spec.training, start.step, replayed.step - start.step);
		let slots = start.opt.len() / start.params.len();
		let value = |s: &TrainState, t: u32, e: u64| {
			let all: Vec<&Vec<f32>> = s.params.iter().chain(&s.opt).collect();
			all[t as usize][e as usize]
		};
		for sum in sums_of(&spec) {
			let n = sum_len(&spec, sum);
			for j in [0, 1, n / 2, n - 1] {
				let at = term_at(&spec, sum, j).unwrap();
				let mut held = [0f32; 2];
				for (k, h) in held.iter_mut().enumerate().take(slots) {
					*h = start.opt[at.param as usize * slots + k][at.elem as usize];
				}
				let v = TermValues {
					replayed: Some(value(&replayed, at.tensor, at.elem)),
					claimed: Some(value(&claimed, at.tensor, at.elem)),
					start: Some((start.params[at.param as usize][at.elem as usize], held)),
				};
				let t = term(&spec, sum, &at, &carry, &v).unwrap();
				let p = m.partials(sum, &[j, j + 1]);
				assert_eq!(canonical(p[0] + t), canonical(p[1]), "{sum:?} term {j}");
				let off = Some(f32::from_bits(v.claimed.unwrap().to_bits() + 1));
				let lie = TermValues { claimed: off, ..v };
				if matches!(sum, gensyn_repops::threshold::Sum::Off(_)) {
					assert_ne!(term(&spec, sum, &at, &carry, &lie).unwrap(), t);
				}
			}
			assert!(term_at(&spec, sum, n).is_none());
			assert_eq!(
				m.partials(sum, &[n])[0],
				sums[m.order().iter().position(|s| *s == sum).unwrap()]
			);
		}
	}
}
