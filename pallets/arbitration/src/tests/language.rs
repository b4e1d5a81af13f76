//! Games over a language model's steps: for every kind of op in its step graph (the
//! transformer's and the linear, loss and optimizer ops it shares), an honest
//! defendant beats a challenger disputing it, and a defendant lying in it loses.

use super::*;
use alloc::string::{String, ToString};

/// The first output tensor of each kind of op in the language-model fixture's step
/// graph, with the kind's name.
fn one_of_each_kind() -> Vec<(u32, String)> {
	let file = lm_fixture_file();
	let spec = lm_fixture_spec(&file, K);
	let g = step_graph(&spec, spec.training.batch_size, FAULT_STEP).unwrap();
	let mut out: Vec<(u32, String)> = Vec::new();
	for op in &g.ops {
		let kind = match op.kind {
			OpKind::Lm(k) => format!("{k:?}"),
			k => format!("{k:?}"),
		};
		let name = kind.split(|c: char| !c.is_alphanumeric()).next().unwrap().to_string();
		if !out.iter().any(|(_, n)| *n == name) {
			out.push((op.output, name));
		}
	}
	// The transformer's 27, and the 12 it shares with the image models.
	assert_eq!(out.len(), 39, "{:?}", out.iter().map(|o| &o.1).collect::<Vec<_>>());
	out
}

#[test]
fn an_honest_defendant_beats_a_false_challenge_on_every_op_of_a_language_model() {
	// The batch's tokens and targets too, which the defendant opens from the token file.
	let (input, labels) = (gensyn_repops::graph::INPUT, gensyn_repops::graph::LABELS);
	let data = [(input, "tokens".to_string()), (labels, "targets".to_string())];
	for (tensor, name) in one_of_each_kind().into_iter().chain(data) {
		new_test_ext().execute_with(|| {
			let challenger = Challenger::False { target: tensor };
			let (won, ruling, moves) =
				run_game_of(Fixture::Lm, None, challenger, Defendant::FromRun);
			assert!(!won, "{name}: the false challenger won ({ruling:?}, {moves} moves)");
		});
	}
}

#[test]
fn a_defendant_lying_in_any_op_of_a_language_model_loses() {
	let truth = honest_run_of(Fixture::Lm);
	let trace = truth.step_trace(FAULT_STEP).unwrap();
	let end = u64::from(SEG + 1) * u64::from(K);
	// A batch trained on with one token or target not the file's: another id.
	let (input, labels) = (gensyn_repops::graph::INPUT, gensyn_repops::graph::LABELS);
	let data = [(input, "tokens".to_string()), (labels, "targets".to_string())];
	for (tensor, name) in one_of_each_kind().into_iter().chain(data) {
		// The last element: in a score or weight matrix, the last query's last key,
		// which no mask hides.
		let values = &trace.values[tensor as usize];
		let elem = values.len() - 1;
		let value = if tensor == input || tensor == labels {
			(values[elem] + 1.0) % 5.0
		} else {
			values[elem] * 1.5 + 0.25
		};
		let fault = Fault { step: FAULT_STEP, tensor, elem, value };
		let lying = Run::new(truth.spec.clone(), truth.file.clone(), randomness(), Some(fault));
		if lying.root(end).unwrap() == truth.root(end).unwrap() {
			// The loss is reported, not trained on: no state depends on it.
			assert!(["SampleLoss", "MeanLoss"].contains(&name.as_str()), "{name}");
			continue;
		}
		new_test_ext().execute_with(|| {
			let (won, ruling, moves) =
				run_game_of(Fixture::Lm, Some(fault), Challenger::Honest, Defendant::FromRun);
			assert!(won, "{name}: the lying defendant won ({ruling:?}, {moves} moves)");
		});
	}
}

/// A language model is ruled on where one move opens its step's tensors: the fixture's
/// one block is, two blocks (past the mock's 256 tensors) are not.
#[test]
fn a_language_model_is_ruled_on_where_its_step_opens_in_one_move() {
	let file = lm_fixture_file();
	let spec = lm_fixture_spec(&file, K);
	assert!(<Arbitration as DisputeArbiter<u64>>::rules_on(&spec));
	let two = gensyn_primitives::fixtures::with(spec, |s| {
		let mut layers = s.model.layers.to_vec();
		layers.insert(1, layers[1]);
		s.model.layers = layers.try_into().unwrap();
	});
	two.validate().unwrap();
	let tensors = step_graph(&two, two.training.batch_size, 0).unwrap().tensors.len();
	assert!(tensors > 256, "{tensors}");
	assert!(!<Arbitration as DisputeArbiter<u64>>::rules_on(&two));
}
