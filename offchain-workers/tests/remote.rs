//! A verifier fetching a solver's checkpoints over HTTP (localhost): the served store,
//! hash-checked blob fetches, `gensyn-ml verify --remote` against the committed
//! checkpoint root, and the task's data read from the solver's copy.

mod common;

use gensyn_workers::dataset::{self, DataSource};
use gensyn_workers::hash;
use gensyn_workers::proof_store::{remote, serve, ProofStore, StoreError};
use std::process::Command;

#[test]
fn verifier_fetches_and_checks_a_served_run() {
	let dir = tempfile::tempdir().unwrap();
	let spec = common::spec(dir.path(), "mlp", common::SGD, "exact");
	let data = common::data(&spec, dir.path());
	let solver = ProofStore::open(dir.path().join("solver")).unwrap();
	let run = common::honest_run("repops", &spec, &data, &solver, None);
	let server = serve::serve(solver.clone(), "127.0.0.1:0").unwrap();
	let url = server.url();

	// Library: the journal and a blob arrive intact; unknown names are errors.
	let journal = remote::fetch_journal(&url, &run.run_id, true).unwrap();
	assert_eq!(journal, run.journal);
	let local = ProofStore::open(dir.path().join("verifier")).unwrap();
	let name = hash::from_hex(&journal.checkpoints[2].blob).unwrap();
	remote::fetch_blob(&url, &name, &local, true).unwrap();
	assert!(local.contains(&name));
	assert!(matches!(
		remote::fetch_blob(&url, &[5; 32], &local, true),
		Err(StoreError::Remote { .. })
	));
	assert!(remote::fetch_journal(&url, &hash::to_hex(&[5; 32]), true).is_err());

	// A store on loopback is asked only where private hosts are allowed: a solver must
	// not make verifiers send requests into their own networks.
	let refused = remote::fetch_journal(&url, &run.run_id, false).unwrap_err();
	assert!(refused.to_string().contains(dataset::hosts::NOT_PUBLIC), "{refused}");
	let err =
		remote::fetch_blob(&url, &name, &ProofStore::open(dir.path().join("v2")).unwrap(), false)
			.unwrap_err();
	assert!(err.to_string().contains(dataset::hosts::NOT_PUBLIC), "{err}");

	// A blob that changed on the solver's disk is refused by the verifier.
	let victim = hash::from_hex(&journal.checkpoints[4].blob).unwrap();
	let original = std::fs::read(solver.blob_path(&victim)).unwrap();
	std::fs::write(solver.blob_path(&victim), b"garbage").unwrap();
	assert!(remote::fetch_blob(&url, &victim, &local, true).is_err());
	assert!(!local.contains(&victim));
	std::fs::write(solver.blob_path(&victim), original).unwrap();

	// CLI: verify everything from the server, against the committed root.
	let spec_path = dir.path().join("spec.json");
	std::fs::write(&spec_path, serde_json::to_string(&spec).unwrap()).unwrap();
	let verify = |root: &str| {
		Command::new(env!("CARGO_BIN_EXE_gensyn-ml"))
			.args(["verify", "--spec", spec_path.to_str().unwrap()])
			.args(["--store", dir.path().join("fresh").to_str().unwrap()])
			.args(["--cache", dir.path().join("cache").to_str().unwrap()])
			.args(["--remote", &url, "--run-id", &run.run_id, "--expect-root", root])
			.args(["--randomness", &hash::to_hex(&common::RANDOMNESS)])
			.env("RUST_LOG", "gensyn_ml=warn")
			.output()
			.unwrap()
	};
	let ok = verify(&hash::to_hex(&run.checkpoint_root));
	assert!(ok.status.success(), "{}", String::from_utf8_lossy(&ok.stderr));
	let report: serde_json::Value = serde_json::from_slice(&ok.stdout).unwrap();
	assert_eq!(report["passed"], true);
	assert_eq!(report["segments"].as_array().unwrap().len(), 6);
	let wrong = verify(&hash::to_hex(&[1; 32]));
	assert!(!wrong.status.success());
	assert!(String::from_utf8_lossy(&wrong.stderr).contains("not the committed"));
}

/// A solver's store serves the data it trained on under the spec's file hash, so that a
/// verifier the submitter no longer serves can replay from that copy. The copy is held to
/// the spec like the submitter's file: a wrong chunk root is the same committed fault,
/// and a store without the data is a miss of the store's (reported, not judged).
#[test]
fn the_data_trained_on_is_read_from_the_solvers_store() {
	let dir = tempfile::tempdir().unwrap();
	let spec = common::spec(dir.path(), "mlp", common::SGD, "exact");
	let own = DataSource::with_local_files(dir.path().join("solver-cache"));
	let file = dataset::fetch_data_ref(&spec.data, &own).unwrap();
	let solver = ProofStore::open(dir.path().join("solver")).unwrap();
	assert_eq!(solver.put(&file).unwrap(), spec.data.file_hash.0, "named by its file hash");
	let server = serve::serve(solver, "127.0.0.1:0").unwrap();
	let copy = remote::blob_url(&server.url(), &spec.data.file_hash.0);

	// The verifier reads no local files: only the copy can serve it (from loopback here).
	let source = DataSource::downloads(dir.path().join("verifier-cache")).with_private_hosts();
	assert!(dataset::fetch_data_ref(&spec.data, &source).is_err());
	assert_eq!(dataset::fetch_data_ref_at(&spec.data, &copy, &source).unwrap(), file);
	let mut wrong = spec.data.clone();
	wrong.chunk_root.0[0] ^= 1;
	let err = dataset::fetch_data_ref_at(&wrong, &copy, &source).unwrap_err();
	assert!(err.is_committed_data_fault(), "{err}");

	let empty =
		serve::serve(ProofStore::open(dir.path().join("empty")).unwrap(), "127.0.0.1:0").unwrap();
	let missing = remote::blob_url(&empty.url(), &spec.data.file_hash.0);
	let fresh = DataSource::downloads(dir.path().join("fresh-cache")).with_private_hosts();
	let err = dataset::fetch_data_ref_at(&spec.data, &missing, &fresh).unwrap_err();
	assert!(!err.is_committed_data_fault(), "{err}");
}
