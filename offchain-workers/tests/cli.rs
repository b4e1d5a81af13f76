//! The `gensyn-ml` binary end to end on a small synthetic set: data-ref, estimate,
//! inspect, an interrupted and resumed `train`, `verify` passing (and refusing segments
//! the run does not have), then failing once a checkpoint commitment is tampered with;
//! bad input gives a clear error; the example language model's spec is estimated.

mod common;

use std::path::Path;
use std::process::{Command, Output};

fn gensyn_ml(args: &[&str]) -> Output {
	Command::new(env!("CARGO_BIN_EXE_gensyn-ml"))
		.args(args)
		.env("RUST_LOG", "gensyn_ml=warn")
		.output()
		.expect("gensyn-ml runs")
}

fn json(out: &Output) -> serde_json::Value {
	assert!(out.status.success(), "gensyn-ml failed: {}", String::from_utf8_lossy(&out.stderr));
	serde_json::from_slice(&out.stdout).expect("JSON on stdout")
}

fn s(p: &Path) -> &str {
	p.to_str().unwrap()
}

#[test]
fn train_resume_verify_and_detect_tampering() {
	let dir = tempfile::tempdir().unwrap();
	let spec = common::spec(dir.path(), "mlp", common::SGD, "exact");
	let raw = dir.path().join("raw.json");
	std::fs::write(&raw, serde_json::to_string(&spec).unwrap()).unwrap();
	let spec_path = dir.path().join("spec.json");
	let data = dir.path().join("synthetic.idx");
	json(&gensyn_ml(&["data-ref", "--file", s(&data), "--spec", s(&raw), "--out", s(&spec_path)]));
	let est = json(&gensyn_ml(&["estimate", "--spec", s(&spec_path)]));
	assert_eq!(est["steps"], 30);
	let ins = json(&gensyn_ml(&["inspect", "--spec", s(&spec_path)]));
	assert_eq!(ins["checkpoints"], 7);

	let store = dir.path().join("store");
	let cache = dir.path().join("cache");
	let base = ["--spec", s(&spec_path), "--store", s(&store), "--cache", s(&cache)];
	let mut train: Vec<&str> = vec!["train", "--backend", "repops"];
	train.extend(base);
	let mut partial = train.clone();
	partial.extend(["--stop-after", "12"]);
	let first = json(&gensyn_ml(&partial));
	assert_eq!(first["complete"], false);
	let done = json(&gensyn_ml(&train));
	assert_eq!(done["complete"], true);
	assert_eq!(done["resumed_from_step"], 10);
	assert_eq!(done["checkpoints"], 7);

	let mut verify: Vec<&str> = vec!["verify"];
	verify.extend(base);
	let ok = json(&gensyn_ml(&verify));
	assert_eq!(ok["passed"], true);
	assert_eq!(ok["segments"].as_array().unwrap().len(), 6);
	assert_eq!(ok["checkpoint_root"], done["checkpoint_root"]);
	// A segment the run does not have is refused, not reported as failed.
	let mut past_end = verify.clone();
	past_end.extend(["--segments", "2,6"]);
	let refused = gensyn_ml(&past_end);
	assert!(!refused.status.success());
	let why = String::from_utf8_lossy(&refused.stderr);
	assert!(why.contains("--segments 6: the run has 6 segment(s)"), "{why}");
	assert!(refused.stdout.is_empty(), "no report for a refused argument");

	// Point checkpoint 3's commitment at checkpoint 4's blob: verify must fail.
	let runs = store.join("runs");
	let journal_path = std::fs::read_dir(&runs).unwrap().next().unwrap().unwrap().path();
	let text = std::fs::read_to_string(&journal_path).unwrap();
	let mut lines: Vec<String> = text.lines().map(String::from).collect();
	let mut entry: serde_json::Value = serde_json::from_str(&lines[5]).unwrap(); // checkpoint 4
	entry["step"] = 15.into();
	lines[4] = entry.to_string(); // checkpoint 3
	std::fs::write(&journal_path, lines.join("\n") + "\n").unwrap();
	let bad = gensyn_ml(&verify);
	assert!(!bad.status.success());
	let report: serde_json::Value = serde_json::from_slice(&bad.stdout).unwrap();
	assert_eq!(report["passed"], false);
	assert_eq!(report["segments"][0]["passed"], true);
	assert_eq!(report["segments"][2]["passed"], false);
}

#[test]
fn bad_input_gives_clear_errors() {
	let dir = tempfile::tempdir().unwrap();
	let missing = gensyn_ml(&["estimate", "--spec", "/nonexistent/spec.json"]);
	assert!(!missing.status.success());
	assert!(String::from_utf8_lossy(&missing.stderr).contains("/nonexistent/spec.json"));

	let mut spec = common::spec(dir.path(), "mlp", common::SGD, "threshold");
	spec.training.batch_size = 0;
	let p = dir.path().join("bad.json");
	std::fs::write(&p, serde_json::to_string(&spec).unwrap()).unwrap();
	let out = gensyn_ml(&["estimate", "--spec", s(&p)]);
	assert!(!out.status.success());
	assert!(String::from_utf8_lossy(&out.stderr).contains("BatchZero"));

	let spec = common::spec(dir.path(), "mlp", common::SGD, "exact");
	std::fs::write(&p, serde_json::to_string(&spec).unwrap()).unwrap();
	let out = gensyn_ml(&["train", "--spec", s(&p), "--store", s(&dir.path().join("st"))]);
	assert!(!out.status.success());
	assert!(String::from_utf8_lossy(&out.stderr).contains("only a repops run"));

	let mut spec = common::spec(dir.path(), "mlp", common::SGD, "threshold");
	spec.data.file_hash.0[0] ^= 1;
	std::fs::write(&p, serde_json::to_string(&spec).unwrap()).unwrap();
	let store = dir.path().join("store");
	let out = gensyn_ml(&["train", "--spec", s(&p), "--store", s(&store)]);
	assert!(!out.status.success());
	assert!(String::from_utf8_lossy(&out.stderr).contains("hash mismatch"));
}

/// The language model the spec language names (`examples/charlm-transformer.json`) is
/// priced like any spec: its parameters, steps and the memory a worker would need.
#[test]
fn a_language_models_spec_is_estimated() {
	// This checkout's, read at run time: a test built for another checkout keeps its path.
	let dir =
		std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| env!("CARGO_MANIFEST_DIR").into());
	let example = Path::new(&dir).join("../examples/charlm-transformer.json");
	let est = json(&gensyn_ml(&["estimate", "--spec", s(&example)]));
	assert_eq!(est["parameters"], 3_208_255);
	assert_eq!(est["steps"], 1_790);
	assert!(est["memory_mib"].as_u64().is_some_and(|m| m > 32), "{est}");
	let mlp = Path::new(&dir).join("../examples/mnist-mlp.json");
	assert_eq!(json(&gensyn_ml(&["estimate", "--spec", s(&mlp)]))["memory_mib"], 3);
}
