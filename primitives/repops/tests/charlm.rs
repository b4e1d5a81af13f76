//! A character-level language model learns real text: the King James Bible that
//! `scripts/fetch-kjv.sh` builds from Debian's packages. A small decoder-only model is
//! trained with repops (clipped AdamW) on windows of the training verses, and its mean
//! loss on fixed windows of the held-out verses must fall well below the untrained
//! model's, which sits near `ln(characters)`.

use gensyn_primitives::order::SplitMix64;
use gensyn_repops::transformer::{
	lm::{self, Config, Params},
	train::{self, AdamW, Moments},
};
use std::path::PathBuf;

/// Training steps (measured: about 4 s at one thread).
const STEPS: usize = 1500;
/// Sequences per step, and per held-out measurement.
const BATCH: usize = 8;
/// The held-out loss must end below this share of the untrained model's (measured:
/// 0.47, from 4.21 to 1.98, perplexity 67 to 7.3).
const MAX_SHARE: f32 = 0.6;

/// The corpus: each file's text as character ids, and the characters.
struct Corpus {
	train: Vec<u32>,
	test: Vec<u32>,
	chars: Vec<char>,
}

/// The corpus `scripts/fetch-kjv.sh` wrote (in `KJV_DIR`, as the script reads it, or
/// `.data/kjv`), or `None` where it wrote none; a corpus that is there but unreadable
/// fails the test.
fn corpus() -> Option<Corpus> {
	let dir = std::env::var_os("KJV_DIR")
		.map(PathBuf::from)
		.unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../.data/kjv"));
	let manifest = std::fs::read_to_string(dir.join("manifest.json")).ok()?;
	let manifest: serde_json::Value = serde_json::from_str(&manifest).expect("a JSON manifest");
	let chars: Vec<char> =
		manifest["characters"].as_str().expect("the manifest's characters").chars().collect();
	let ids = |name: &str| -> Vec<u32> {
		let text = std::fs::read_to_string(dir.join(name)).expect("the corpus's files");
		let id = |c: char| chars.iter().position(|x| *x == c).expect("a listed character");
		text.chars().map(|c| id(c) as u32).collect()
	};
	Some(Corpus { train: ids("train.txt"), test: ids("test.txt"), chars })
}

/// `BATCH` windows of `t + 1` characters from `text` at offsets drawn from `rng`: the
/// first `t` of each are the tokens, the last `t` the targets.
fn windows(text: &[u32], t: usize, rng: &mut SplitMix64) -> (Vec<u32>, Vec<u32>) {
	let (mut tokens, mut targets) = (Vec::new(), Vec::new());
	let room =
		text.len().checked_sub(t + 1).filter(|r| *r > 0).expect("a text longer than a window");
	for _ in 0..BATCH {
		let at = (rng.next_u64() % room as u64) as usize;
		tokens.extend_from_slice(&text[at..at + t]);
		targets.extend_from_slice(&text[at + 1..at + t + 1]);
	}
	(tokens, targets)
}

#[test]
fn a_small_model_learns_the_bible() {
	let Some(corpus) = corpus() else {
		eprintln!("SKIPPED: the corpus is missing; run scripts/fetch-kjv.sh");
		return;
	};
	let c = Config {
		vocab: corpus.chars.len(),
		t: 32,
		d: 32,
		heads: 4,
		layers: 1,
		hidden: 64,
		eps: 1e-5,
	};
	let h =
		AdamW { lr: 3e-3, beta1: 0.9, beta2: 0.99, eps: 1e-8, weight_decay: 0.01, max_norm: 1.0 };
	let held_out = windows(&corpus.test, c.t, &mut SplitMix64(7));
	let measure = |p: &Params| lm::forward(&c, p, &held_out.0, &held_out.1, BATCH, 1).unwrap().loss;
	let mut params = Params::init(&c, 1);
	let mut moments = Moments::zeros(params.tensors());
	let before = measure(&params);
	let mut rng = SplitMix64(11);
	for _ in 0..STEPS {
		let (tokens, targets) = windows(&corpus.train, c.t, &mut rng);
		let f = lm::forward(&c, &params, &tokens, &targets, BATCH, 1).unwrap();
		let mut grads = lm::backward(&c, &params, &f, &tokens, &targets, BATCH, 1).unwrap();
		train::step(&mut params.tensors_mut(), &mut grads.tensors_mut(), &mut moments, &h).unwrap();
	}
	let after = measure(&params);
	eprintln!(
		"held-out loss {before:.3} (perplexity {:.1}) before, {after:.3} ({:.1}) after {STEPS} steps",
		before.exp(),
		after.exp()
	);
	eprintln!("sampled: {:?}", sample(&c, &params, &corpus, "And God said", 60));
	assert!((before - (c.vocab as f32).ln()).abs() < 1.0, "untrained: {before}");
	assert!(after < MAX_SHARE * before, "from {before} to {after}");
}

/// `n` characters the model picks after `prompt`, each its most likely next one given
/// the last `t` characters.
fn sample(c: &Config, p: &Params, corpus: &Corpus, prompt: &str, n: usize) -> String {
	let id = |ch: char| corpus.chars.iter().position(|x| *x == ch).unwrap_or(0) as u32;
	let mut text: Vec<u32> = prompt.chars().map(id).collect();
	for _ in 0..n {
		let row = lm::next_logits(c, p, &text, 1).unwrap();
		let best = (0..c.vocab).fold(0, |b, i| if row[i] > row[b] { i } else { b });
		text.push(best as u32);
	}
	text.iter().map(|i| corpus.chars[*i as usize]).collect()
}
