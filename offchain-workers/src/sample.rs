//! `gensyn-ml sample`: text from a language model's checkpoint. Each next character is
//! drawn from the model's distribution given the last `t` characters, sharpened by a
//! temperature (0: always the most likely), with a seeded generator so that a sample
//! can be drawn again; the vocabulary maps ids to characters as the data tool cut them.

use crate::cli::{read_spec, CliError, SampleArgs};
use crate::proof_store::ProofStore;
use crate::replay::load_checkpoint;
use gensyn_primitives::order::SplitMix64;
use gensyn_repops::transformer::{
	lm::{self, Params},
	task,
};
use serde_json::{json, Value};

/// Draws `a.length` characters after `a.prompt` from a checkpoint of the run.
pub fn run(a: SampleArgs) -> Result<Value, CliError> {
	let spec = read_spec(&a.run.spec)?;
	let c = task::config(&spec).ok_or("sample needs a language model's spec")?;
	if !(a.temperature >= 0.0 && a.temperature.is_finite()) {
		return Err(format!("--temperature {}: a finite value, 0 or more", a.temperature).into());
	}
	let chars = vocabulary(&a)?;
	if chars.len() != c.vocab {
		let (n, vocab) = (chars.len(), c.vocab);
		return Err(
			format!("{n} characters given, but the model has a vocabulary of {vocab}").into()
		);
	}
	let mut ids = Vec::new();
	for ch in a.prompt.chars() {
		let id = chars.iter().position(|x| *x == ch);
		ids.push(id.ok_or_else(|| format!("the prompt's {ch:?} is not in the vocabulary"))? as u32);
	}
	if ids.is_empty() {
		return Err("an empty prompt: give at least one character".into());
	}
	let store = ProofStore::open(&a.run.store)?;
	let journal = crate::cli_run::find_journal(&store, a.run.run_id.as_deref())?;
	let last = journal.checkpoints.len().saturating_sub(1);
	let state = load_checkpoint(&store, &journal, a.checkpoint.unwrap_or(last))?;
	let params = Params::from_tensors(&c, state.params).map_err(|e| e.to_string())?;
	let threads = gensyn_repops::par::default_threads();
	let mut rng = SplitMix64(a.seed);
	for _ in 0..a.length {
		let logits = lm::next_logits(&c, &params, &ids, threads).map_err(|e| e.to_string())?;
		ids.push(draw(&logits, a.temperature, &mut rng) as u32);
	}
	let text: String = ids.iter().filter_map(|i| chars.get(*i as usize)).collect();
	tracing::info!(target: "gensyn_ml", "step {}: {text:?}", state.step);
	Ok(json!({"run_id": journal.run_id, "step": state.step, "prompt": a.prompt, "text": text}))
}

/// The characters in id order: `--characters`, or the `characters` of `--manifest`.
fn vocabulary(a: &SampleArgs) -> Result<Vec<char>, CliError> {
	let chars: String = match (&a.characters, &a.manifest) {
		(Some(chars), None) => chars.clone(),
		(None, Some(path)) => {
			let text =
				std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
			let manifest: Value = serde_json::from_str(&text)?;
			let chars = manifest["characters"].as_str();
			chars.ok_or_else(|| format!("{}: no `characters`", path.display()))?.to_string()
		}
		_ => return Err("give the vocabulary: --characters or --manifest (one of them)".into()),
	};
	Ok(chars.chars().collect())
}

/// An index drawn from `softmax(logits / temperature)` (the largest logit at 0), by one
/// uniform draw from `rng` against the running sum, in f64.
fn draw(logits: &[f32], temperature: f64, rng: &mut SplitMix64) -> usize {
	let best = (0..logits.len()).fold(0, |b, i| if logits[i] > logits[b] { i } else { b });
	if temperature == 0.0 {
		return best;
	}
	let top = f64::from(logits.get(best).copied().unwrap_or(0.0));
	let weights: Vec<f64> =
		logits.iter().map(|l| ((f64::from(*l) - top) / temperature).exp()).collect();
	let total: f64 = weights.iter().sum();
	let mut u = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64 * total;
	for (i, w) in weights.iter().enumerate() {
		if u < *w {
			return i;
		}
		u -= w;
	}
	best
}

#[cfg(test)]
mod tests {
	use super::*;

	#[test]
	fn draws_follow_the_sharpened_distribution() {
		let mut rng = SplitMix64(3);
		// Probabilities 1/4 and 3/4 at temperature 1.
		let logits = [0.0f32, 3f32.ln()];
		let n = 20_000;
		let ones = (0..n).filter(|_| draw(&logits, 1.0, &mut rng) == 1).count();
		assert!((ones as f64 / n as f64 - 0.75).abs() < 0.02, "{ones} of {n}");
		// Colder: nearly always the larger; at 0, always.
		let ones = (0..n).filter(|_| draw(&logits, 0.1, &mut rng) == 1).count();
		assert!(ones as f64 > 0.99 * n as f64, "{ones} of {n}");
		assert!((0..100).all(|_| draw(&[1.0, 5.0, 2.0], 0.0, &mut rng) == 1));
	}
}
