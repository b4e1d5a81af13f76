//! `gensyn-ml evaluate`: the learning curve of a run, i.e. the test accuracy of each of
//! its checkpoints, as JSON and optionally as an SVG picture; for a language model's
//! run, each checkpoint's mean token loss on held-out sequences and its perplexity.

use crate::cli::{read_spec, CliError, EvaluateArgs};
use crate::dataset;
use crate::proof_store::ProofStore;
use crate::replay::load_checkpoint;
use crate::tch_backend::{describe, TchTrainer};
use gensyn_primitives::TaskSpec;
use gensyn_repops::transformer::{
	lm::{self, Config, Params},
	task,
};
use serde_json::{json, Value};

/// Evaluates every checkpoint of the run on the test data.
pub fn run(a: EvaluateArgs) -> Result<Value, CliError> {
	let spec = read_spec(&a.run.spec)?;
	if let Some(c) = task::config(&spec) {
		return held_out(&a, &spec, c);
	}
	let store = ProofStore::open(&a.run.store)?;
	let journal = crate::cli_run::find_journal(&store, a.run.run_id.as_deref())?;
	let test = dataset::load_local(&a.test_data)?;
	let mut points = Vec::new();
	for i in 0..journal.checkpoints.len() {
		let state = load_checkpoint(&store, &journal, i)?;
		let accuracy = TchTrainer::new(&spec, &state, tch::Device::Cpu)
			.and_then(|t| t.accuracy(&test))
			.map_err(|e| format!("checkpoint {i} (step {}): {}", state.step, describe(&e)))?;
		tracing::info!(target: "gensyn_ml", "step {:>6}: test accuracy {:.2}%", state.step, accuracy * 100.0);
		points.push((state.step, accuracy));
	}
	if let Some(path) = &a.svg {
		std::fs::write(path, svg(&points)).map_err(|e| format!("{}: {e}", path.display()))?;
	}
	Ok(json!({
		"run_id": journal.run_id,
		"test_samples": test.len(),
		"curve": points.iter().map(|(s, a)| json!({"step": s, "accuracy": a})).collect::<Vec<_>>(),
		"final_accuracy": points.last().map(|p| p.1),
	}))
}

/// A language model's run: every checkpoint's mean token loss on the held-out sequences
/// in `a.test_data` (a token file at the spec's context), and its perplexity, computed
/// with repops.
fn held_out(a: &EvaluateArgs, spec: &TaskSpec, c: Config) -> Result<Value, CliError> {
	if a.svg.is_some() {
		return Err("--svg draws test accuracy, which a language model's run has none of".into());
	}
	let store = ProofStore::open(&a.run.store)?;
	let journal = crate::cli_run::find_journal(&store, a.run.run_id.as_deref())?;
	let what = a.test_data.display().to_string();
	let bytes = std::fs::read(&a.test_data).map_err(|e| format!("{what}: {e}"))?;
	let test = dataset::tokens::read(&bytes, &what, c.t, c.vocab)?;
	let ids = test.sequence_batch(&(0..test.len()).collect::<Vec<_>>()).unwrap_or_default();
	// In batches the spec allows, each batch's mean weighed by its sequences.
	let per = (c.t + 1) * spec.training.batch_size.max(1) as usize;
	let threads = gensyn_repops::par::default_threads();
	let mut points = Vec::new();
	for i in 0..journal.checkpoints.len() {
		let state = load_checkpoint(&store, &journal, i)?;
		let fail =
			|e: gensyn_repops::ReproError| format!("checkpoint {i} (step {}): {e}", state.step);
		let params = Params::from_tensors(&c, state.params.clone()).map_err(fail)?;
		let mut sum = 0.0f64;
		for chunk in ids.chunks(per) {
			let (tokens, targets, n) = task::split(spec, chunk).map_err(fail)?;
			let loss = lm::forward(&c, &params, &tokens, &targets, n, threads).map_err(fail)?.loss;
			sum += f64::from(loss) * n as f64;
		}
		let loss = sum / test.len() as f64;
		tracing::info!(
			target: "gensyn_ml",
			"step {:>6}: held-out loss {loss:.4} (perplexity {:.2})",
			state.step,
			loss.exp()
		);
		points.push((state.step, loss));
	}
	let point = |p: &(u64, f64)| json!({"step": p.0, "loss": p.1, "perplexity": p.1.exp()});
	Ok(json!({
		"run_id": journal.run_id,
		"test_sequences": test.len(),
		"curve": points.iter().map(point).collect::<Vec<_>>(),
		"first": points.first().map(point),
		"final": points.last().map(point),
	}))
}

/// A line chart of accuracy (0–100 %) against step.
fn svg(points: &[(u64, f64)]) -> String {
	const W: f64 = 640.0;
	const H: f64 = 360.0;
	const L: f64 = 60.0;
	const B: f64 = 40.0;
	let (pw, ph) = (W - L - 20.0, H - B - 30.0);
	let last = points.iter().map(|p| p.0).max().unwrap_or(1).max(1) as f64;
	let x = |s: u64| L + pw * s as f64 / last;
	let y = |a: f64| 30.0 + ph * (1.0 - a.clamp(0.0, 1.0));
	let line: Vec<String> =
		points.iter().map(|&(s, a)| format!("{:.1},{:.1}", x(s), y(a))).collect();
	let mut out = format!(
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{W}\" height=\"{H}\" font-family=\"sans-serif\" font-size=\"12\">\n\
		 <rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n\
		 <text x=\"{L}\" y=\"18\" font-size=\"14\">Test accuracy per checkpoint</text>\n"
	);
	for tick in 0..=4 {
		let a = tick as f64 / 4.0;
		let (right, at, label_x, label_y) = (L + pw, y(a), L - 6.0, y(a) + 4.0);
		let percent = tick * 25;
		out += &format!(
			"<line x1=\"{L}\" x2=\"{right:.1}\" y1=\"{at:.1}\" y2=\"{at:.1}\" stroke=\"#ddd\"/>\
			 <text x=\"{label_x:.1}\" y=\"{label_y:.1}\" text-anchor=\"end\">{percent}%</text>\n"
		);
	}
	out += &format!(
		"<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">training step (0 to {last})</text>\n",
		L + pw / 2.0,
		H - 10.0
	);
	out += &format!(
		"<polyline fill=\"none\" stroke=\"#1f77b4\" stroke-width=\"2\" points=\"{}\"/>\n",
		line.join(" ")
	);
	for p in &line {
		let (px, py) = p.split_once(',').unwrap_or(("0", "0"));
		out += &format!("<circle cx=\"{px}\" cy=\"{py}\" r=\"3\" fill=\"#1f77b4\"/>\n");
	}
	out + "</svg>\n"
}

#[cfg(test)]
mod tests {
	use super::svg;

	#[test]
	fn the_curve_has_one_point_per_checkpoint_inside_the_plot() {
		let s = svg(&[(0, 0.1), (50, 0.8), (100, 0.9)]);
		assert_eq!(s.matches("<circle").count(), 3);
		assert!(s.starts_with("<svg") && s.trim_end().ends_with("</svg>"));
		// The first point is at the left axis, the last at the right edge of the plot.
		assert!(s.contains("cx=\"60.0\""), "{s}");
		assert!(s.contains("cx=\"620.0\""), "{s}");
	}
}
