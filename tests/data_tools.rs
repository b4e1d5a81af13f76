//! The data tools a submitter without Rust uses (scripts/py/gensyn_data.py and
//! scripts/js/data-ref.js) agree with `gensyn-ml data-ref` and the chain's Merkle tree
//! on the rules of docs/data-format.md: file hash, chunk root (one chunk, several, a
//! short last one), sample count, shape and classes; the bundle layout; a language
//! model's token sequences; the checkpoint root's untagged leaves. Bad files are refused
//! with a reason.

mod common;

use gensyn_primitives::merkle;
use serde_json::Value;
use std::path::Path;
use std::process::Command;

/// An unsigned-byte IDX array's bytes.
fn idx(dims: &[u32], data: &[u8]) -> Vec<u8> {
	let mut out = vec![0, 0, 0x08, dims.len() as u8];
	for d in dims {
		out.extend(d.to_be_bytes());
	}
	out.extend(data);
	out
}

/// The images file and the labels file of `n` samples of `side x side`.
fn mnist_like(n: u32, side: u32) -> (Vec<u8>, Vec<u8>) {
	let pixels: Vec<u8> = (0..n * side * side).map(|i| (i * 37 % 251) as u8).collect();
	let labels: Vec<u8> = (0..n).map(|i| (i * 7 % 10) as u8).collect();
	(idx(&[n, side, side], &pixels), idx(&[n], &labels))
}

/// The JSON a command prints as its last line (after `RESULT ` for the JS scripts).
fn run_json(cmd: &mut Command) -> Value {
	let out = cmd.output().expect("the tool runs");
	let stdout = String::from_utf8_lossy(&out.stdout);
	assert!(out.status.success(), "{stdout}{}", String::from_utf8_lossy(&out.stderr));
	let last = stdout.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or_default();
	let text = last.strip_prefix("RESULT ").unwrap_or(stdout.trim());
	serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}: {stdout}"))
}

fn python(args: &[&str]) -> Command {
	let mut cmd = Command::new("python3");
	cmd.arg(common::repo_root().join("scripts/py/gensyn_data.py")).args(args);
	cmd
}

fn js(args: &[&str]) -> Command {
	let dir = common::repo_root().join("scripts/js");
	let mut cmd = Command::new("node");
	cmd.arg(dir.join("data-ref.js")).args(args).current_dir(dir);
	cmd
}

fn gensyn_ml(args: &[&str]) -> Command {
	let mut cmd = Command::new(common::node_bin().with_file_name("gensyn-ml"));
	cmd.args(args).env("RUST_LOG", "warn");
	cmd
}

fn arg(p: &Path) -> &str {
	p.to_str().expect("utf-8 path")
}

#[test]
fn the_python_and_js_data_tools_agree_with_the_chains_rules() {
	let dir = std::env::temp_dir().join(format!("gensyn-data-tools-{}", std::process::id()));
	std::fs::create_dir_all(&dir).unwrap();
	// One chunk; two; eight with a short last one; exactly twelve full ones.
	for (n, side) in [(1, 2), (37, 6), (300, 5), (1_227, 3)] {
		let (images, labels) = mnist_like(n, side);
		let bundle = [images.clone(), labels.clone()].concat();
		assert_eq!(bundle.len() as u64, 24 + u64::from(n) * u64::from(side * side + 1));
		let path = dir.join(format!("d{n}.idx"));
		std::fs::write(&path, &bundle).unwrap();
		let uri = format!("https://data.example/d{n}.idx");
		let args = ["--file", arg(&path), "--uri", &uri];
		let reference = run_json(gensyn_ml(&["data-ref"]).args(args));
		assert_eq!(run_json(&mut python(&[&["data-ref"][..], &args].concat())), reference);
		assert_eq!(run_json(&mut js(&args)), reference);
		let root = merkle::root_of_chunks(&bundle, merkle::DATA_CHUNK_SIZE);
		assert_eq!(reference["chunk_root"], Value::String(hex(&root)));

		// The bundle tool joins the two files into the same bytes.
		let (img, lbl) = (dir.join("img"), dir.join("lbl"));
		std::fs::write(&img, &images).unwrap();
		std::fs::write(&lbl, &labels).unwrap();
		let out = dir.join("joined.idx");
		let made = ["bundle", "--images", arg(&img), "--labels", arg(&lbl), "--out", arg(&out)];
		run_json(&mut python(&made));
		assert_eq!(std::fs::read(&out).unwrap(), bundle);
	}

	// From the registry's gzip files, the bundle is scripts/fetch-mnist.sh's test.idx.
	let mnist = common::repo_root().join(".data/mnist");
	let (img, lbl) =
		(mnist.join("t10k-images-idx3-ubyte.gz"), mnist.join("t10k-labels-idx1-ubyte.gz"));
	let out = dir.join("test.idx");
	let made = ["bundle", "--images", arg(&img), "--labels", arg(&lbl), "--out", arg(&out)];
	run_json(&mut python(&made));
	assert_eq!(std::fs::read(&out).unwrap(), std::fs::read(mnist.join("test.idx")).unwrap());

	// The checkpoint root takes the state hashes as its leaves, untagged.
	let hashes: Vec<merkle::Hash> = (0u8..7).map(|i| merkle::blake2_256(&[i])).collect();
	let checkpoints: Vec<Value> = hashes
		.iter()
		.enumerate()
		.map(|(i, h)| serde_json::json!({"step": i * 10, "blob": "00", "state_hash": hex(h)}))
		.collect();
	let journal = dir.join("journal.json");
	std::fs::write(&journal, serde_json::json!({ "checkpoints": checkpoints }).to_string())
		.unwrap();
	let root = run_json(&mut python(&["checkpoint-root", "--journal", arg(&journal)]));
	assert_eq!(root["checkpoint_root"], Value::String(hex(&merkle::root(&hashes))));

	// A gzip bundle, a cut one and one with bytes after its labels are refused, named.
	let (images, labels) = mnist_like(5, 4);
	let bundle = [images, labels].concat();
	let cases = [
		(std::fs::read(mnist.join("test.idx.gz")).unwrap(), "gzip"),
		(bundle[..bundle.len() - 1].to_vec(), "present"),
		([bundle.clone(), vec![0]].concat(), "after the labels"),
	];
	for (bytes, why) in cases {
		let bad = dir.join("bad.idx");
		std::fs::write(&bad, bytes).unwrap();
		for mut cmd in [python(&["data-ref", "--file", arg(&bad)]), js(&["--file", arg(&bad)])] {
			let out = cmd.output().unwrap();
			let stderr = String::from_utf8_lossy(&out.stderr);
			assert!(!out.status.success() && stderr.contains(why), "{why}: {stderr}");
		}
	}
	let _ = std::fs::remove_dir_all(&dir);
}

/// `gensyn_data.py tokens` cuts a text into the sequences docs/data-format.md describes:
/// each character its index in the vocabulary, `t + 1` ids a sequence, the remainder
/// dropped. Its `data` object is the file's (its hash, the chain's chunk root, a length
/// the spec allows exactly) and a language model's spec validates around it; a text with
/// a character outside the vocabulary is refused, named. From the King James Bible that
/// `fetch-kjv.sh` writes (where it could), it is `examples/charlm-transformer.json`'s,
/// and its first 2,000 sequences at a context of 32 `examples/charlm-small.json`'s.
#[test]
fn the_token_tool_writes_the_sequences_a_language_models_spec_names() {
	let dir = std::env::temp_dir().join(format!("gensyn-token-tool-{}", std::process::id()));
	std::fs::create_dir_all(&dir).unwrap();
	let vocab = "\n abcd";
	let chars: Vec<char> = vocab.chars().collect();
	let text: String = (0..2_500).map(|i| chars[i * 7 % chars.len()]).collect();
	let (txt, out) = (dir.join("t.txt"), dir.join("t.tokens"));
	std::fs::write(&txt, &text).unwrap();
	let cut = |vocab: &str| {
		let args = ["tokens", "--text", arg(&txt), "--characters", vocab, "--context", "8"];
		python(&[&args[..], &["--out", arg(&out), "--uri", "https://data.example/t"]].concat())
	};
	let data = run_json(&mut cut(vocab));
	let bytes = std::fs::read(&out).unwrap();
	let samples = 2_500 / 9;
	let ids: Vec<u8> = text
		.chars()
		.take(samples * 9)
		.map(|c| chars.iter().position(|x| *x == c).unwrap() as u8)
		.collect();
	assert_eq!(bytes, ids);
	assert_eq!(data["samples"], samples);
	assert_eq!(data["file_hash"], Value::String(hex(&merkle::blake2_256(&bytes))));
	let root = merkle::root_of_chunks(&bytes, merkle::DATA_CHUNK_SIZE);
	assert_eq!(data["chunk_root"], Value::String(hex(&root)));
	let data_ref: gensyn_primitives::DataRef = serde_json::from_value(data.clone()).unwrap();
	assert_eq!(data_ref.max_file_len(), bytes.len() as u64);

	// The example's model, cut down to this vocabulary and context.
	let example = common::repo_root().join("examples/charlm-transformer.json");
	let example: Value = serde_json::from_str(&std::fs::read_to_string(example).unwrap()).unwrap();
	let mut spec = example.clone();
	spec["data"] = data;
	spec["model"]["input"]["width"] = 8.into();
	spec["model"]["layers"][0]["vocab"] = chars.len().into();
	spec["model"]["layers"][6]["out_features"] = chars.len().into();
	spec["training"]["checkpoint_interval"] = 1.into();
	let spec: gensyn_primitives::TaskSpec = serde_json::from_value(spec).unwrap();
	spec.validate().unwrap();

	let refused = cut("ab").output().unwrap();
	let stderr = String::from_utf8_lossy(&refused.stderr);
	assert!(!refused.status.success() && stderr.contains("not listed"), "{stderr}");
	// `--sequences` keeps the first sequences only.
	let mut first = cut(vocab);
	let data = run_json(first.args(["--sequences", "10"]));
	assert_eq!(
		(data["samples"].as_u64(), std::fs::read(&out).unwrap()),
		(Some(10), ids[..90].to_vec())
	);
	let none = cut(vocab).args(["--sequences", "0"]).output().unwrap();
	assert!(!none.status.success(), "no sequence kept");

	let kjv = common::repo_root().join(".data/kjv");
	if kjv.join("manifest.json").exists() {
		let (train, manifest) = (kjv.join("train.txt"), kjv.join("manifest.json"));
		let out = dir.join("train.tokens");
		let args = ["tokens", "--text", arg(&train), "--manifest", arg(&manifest)];
		let rest =
			["--context", "64", "--out", arg(&out), "--uri", "file://.data/kjv/train.tokens"];
		assert_eq!(run_json(&mut python(&[&args[..], &rest].concat())), example["data"]);
		// The small example's: the first sequences at a shorter context.
		let small = common::repo_root().join("examples/charlm-small.json");
		let small: Value = serde_json::from_str(&std::fs::read_to_string(small).unwrap()).unwrap();
		let uri = "file://.data/kjv/train-small.tokens";
		let rest = ["--context", "32", "--sequences", "2000", "--out", arg(&out), "--uri", uri];
		assert_eq!(run_json(&mut python(&[&args[..], &rest].concat())), small["data"]);
	}
	let _ = std::fs::remove_dir_all(&dir);
}

fn hex(h: &[u8]) -> String {
	h.iter().fold(String::from("0x"), |s, b| s + &format!("{b:02x}"))
}
