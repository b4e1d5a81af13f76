//! A short real training run on the MNIST digits that `scripts/fetch-mnist.sh` builds
//! (8,004 training and 1,996 test digits): the example MLP spec, trained with tch for
//! two epochs (252 steps, checkpoints every 50), must reach 88% test accuracy, and its
//! last segment must pass a Threshold replay with repops.

use gensyn_primitives::{TaskSpec, VerificationMode};
use gensyn_workers::dataset::{self, load_data_ref};
use gensyn_workers::order::DataOrder;
use gensyn_workers::proof_store::ProofStore;
use gensyn_workers::reference::{self, RepopsEngine};
use gensyn_workers::replay;
use gensyn_workers::tch_backend::TchTrainer;
use gensyn_workers::train::{self, Backend, RunOptions};
use gensyn_workers::{cli, hash};
use std::sync::Arc;

/// The example MLP spec.
const MLP: &str = include_str!("../../examples/mnist-mlp.json");

/// Test accuracy the run must reach (measured: about 92%).
const MIN_ACCURACY: f64 = 0.88;

#[test]
fn mlp_learns_mnist_digits() {
	let root = std::path::PathBuf::from(manifest_dir()).join("..");
	let mnist = root.join(".data/mnist");
	if !mnist.join("train.idx").exists() {
		eprintln!("SKIPPED: {} is missing; run scripts/fetch-mnist.sh", mnist.display());
		return;
	}
	let mut spec: TaskSpec = serde_json::from_str(MLP).unwrap();
	let train_file = mnist.join("train.idx");
	let (file_hash, chunk_root) = cli::file_commitments(&train_file).unwrap();
	spec.data.uri =
		gensyn_primitives::Uri::parse(&format!("file://{}", train_file.display())).unwrap();
	spec.data.file_hash = gensyn_primitives::Hash32(file_hash);
	spec.data.chunk_root = gensyn_primitives::Hash32(chunk_root);
	spec.data.format = gensyn_primitives::DataFormat::MnistIdx;
	spec.data.samples = 8004;
	spec.validate().unwrap();

	let dir = tempfile::tempdir().unwrap();
	let data = Arc::new(
		load_data_ref(&spec.data, &dataset::DataSource::with_local_files(dir.path().join("cache")))
			.unwrap(),
	);
	let test = dataset::load_local(&mnist.join("test.idx.gz")).unwrap();
	let store = ProofStore::open(dir.path().join("store")).unwrap();
	let randomness = hash::blake2_256(b"assignment");
	let id = train::run_id(&spec, &randomness, "tch");
	let init = reference::initial_state(&spec).unwrap();
	let (state, journal) =
		train::resume_point(&store, &id, "tch", spec.total_steps(), || init).unwrap();
	let mut trainer = TchTrainer::new(&spec, &state, tch::Device::cuda_if_available()).unwrap();
	trainer.load_data(&data).unwrap();
	let mut order = DataOrder::new(&spec, randomness);
	let run = train::run(&spec, &mut order, &mut trainer, &store, journal, &RunOptions::default())
		.unwrap();
	let accuracy = trainer.accuracy(&test).unwrap();
	eprintln!(
		"MNIST MLP: {} steps in {:.1}s, loss {:.3}, test accuracy {:.4}",
		spec.total_steps(),
		run.total_time.as_secs_f64(),
		trainer.last_loss(),
		accuracy
	);
	assert!(accuracy >= MIN_ACCURACY, "test accuracy {accuracy} < {MIN_ACCURACY}");
	assert_eq!(run.checkpoints, 7);

	let last = run.checkpoints as usize - 2;
	let mut make =
		|s: &gensyn_workers::checkpoint::TrainState| -> Result<Box<dyn Backend>, String> {
			Ok(Box::new(RepopsEngine::new(&spec, s, data.clone(), 2)))
		};
	let mut order = DataOrder::new(&spec, randomness);
	let report = replay::verify_segment(
		&store,
		&run.journal,
		&mut order,
		last,
		(VerificationMode::Threshold, 1e-3),
		&mut make,
		None,
	)
	.unwrap();
	assert!(report.passed, "{report:?}");
}

/// The package directory of this checkout: cargo's variable at run time (a build reused
/// from another checkout through a shared target directory keeps the old compile-time
/// path), the compile-time one otherwise.
fn manifest_dir() -> String {
	std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| env!("CARGO_MANIFEST_DIR").to_string())
}
