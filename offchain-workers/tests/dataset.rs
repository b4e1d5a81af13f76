//! Dataset loading: formats, hash and chunk-root checks, and the named errors for a hash
//! mismatch, a chunk-root mismatch, a truncated file and a shape that disagrees with the
//! spec; HTTP on localhost only.

use gensyn_workers::dataset::{self, idx, Dataset, DatasetError};
use gensyn_workers::hash::{blake2_256, to_hex};
use std::io::{Read, Write};
use std::net::TcpListener;
use std::path::Path;

/// A tiny MNIST-like bundle: `n` samples of `side x side`, pixel = (i * 31 + j) % 256.
fn bundle(n: usize, side: usize) -> Vec<u8> {
	let images = idx::IdxArray {
		dims: vec![n, side, side],
		data: (0..n * side * side).map(|j| (j * 31 % 256) as u8).collect(),
	};
	let labels = idx::IdxArray { dims: vec![n], data: (0..n).map(|i| (i % 10) as u8).collect() };
	let mut out = idx::encode(&images);
	out.extend(idx::encode(&labels));
	out
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
	let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
	enc.write_all(bytes).unwrap();
	enc.finish().unwrap()
}

/// A source that reads local files too, caching downloads in `cache`.
fn local(cache: &Path) -> dataset::DataSource {
	dataset::DataSource::with_local_files(cache)
}

fn file_uri(path: &Path) -> String {
	format!("file://{}", path.display())
}

#[test]
fn idx_bundle_plain_and_gzip_read_the_same() {
	let dir = tempfile::tempdir().unwrap();
	let plain = dir.path().join("d.idx");
	let gz = dir.path().join("d.idx.gz");
	std::fs::write(&plain, bundle(5, 4)).unwrap();
	std::fs::write(&gz, gzip(&bundle(5, 4))).unwrap();
	let a = dataset::load_mnist_bundle(&plain).unwrap();
	let b = dataset::load_mnist_bundle(&gz).unwrap();
	assert_eq!(a, b);
	assert_eq!(a.len(), 5);
	assert_eq!(a.sample_shape, vec![1, 4, 4]);
	assert_eq!(a.labels, vec![0, 1, 2, 3, 4]);
	assert_eq!(a.inputs[1], 31.0 / 255.0);
	a.check(&[1, 4, 4], Some(5), 10).unwrap();
	a.check(&[4, 4], None, 10).unwrap();
}

#[test]
fn separate_idx_files_load() {
	let dir = tempfile::tempdir().unwrap();
	let b = bundle(3, 2);
	let split = 4 + 12 + 12;
	std::fs::write(dir.path().join("img"), &b[..split]).unwrap();
	std::fs::write(dir.path().join("lbl.gz"), gzip(&b[split..])).unwrap();
	let d = dataset::load_mnist_idx(&dir.path().join("img"), &dir.path().join("lbl.gz")).unwrap();
	assert_eq!(d.len(), 3);
}

#[test]
fn hash_mismatch_is_named() {
	let dir = tempfile::tempdir().unwrap();
	let path = dir.path().join("d.idx");
	std::fs::write(&path, bundle(2, 2)).unwrap();
	let good = blake2_256(&bundle(2, 2));
	assert_eq!(
		dataset::fetch_verified(&file_uri(&path), &good, u64::MAX, &local(dir.path())).unwrap(),
		bundle(2, 2)
	);
	let err = dataset::fetch_verified(&file_uri(&path), &[9; 32], u64::MAX, &local(dir.path()))
		.unwrap_err();
	match err {
		DatasetError::HashMismatch { expected, actual, .. } => {
			assert_eq!(expected, to_hex(&[9; 32]));
			assert_eq!(actual, to_hex(&good));
		}
		other => panic!("expected HashMismatch, got {other}"),
	}
}

#[test]
fn truncation_is_named() {
	let full = bundle(4, 3);
	for cut in [2, 10, 30, full.len() - 1, 4 + 12 + 36] {
		let err = dataset::parse_mnist_bundle(&full[..cut], "cut", u64::MAX).unwrap_err();
		assert!(
			matches!(err, DatasetError::Truncated { .. }),
			"cut at {cut}: expected Truncated, got {err}"
		);
	}
	let err = idx::gunzip_if_needed(&gzip(&full)[..20], "gz", u64::MAX).unwrap_err();
	assert!(matches!(err, DatasetError::Corrupt { .. }), "{err}");
}

#[test]
fn wrong_shape_count_and_labels_are_named() {
	let d = dataset::parse_mnist_bundle(&bundle(4, 3), "d", u64::MAX).unwrap();
	assert!(matches!(d.check(&[1, 28, 28], None, 10), Err(DatasetError::ShapeMismatch { .. })));
	assert!(matches!(
		d.check(&[1, 3, 3], Some(5), 10),
		Err(DatasetError::CountMismatch { expected: 5, actual: 4 })
	));
	assert!(matches!(
		d.check(&[1, 3, 3], Some(4), 3),
		Err(DatasetError::LabelOutOfRange { index: 3, label: 3, classes: 3 })
	));
	let mut bad = bundle(4, 3);
	bad[2] = 0x0d; // float IDX: not ubyte
	assert!(matches!(
		dataset::parse_mnist_bundle(&bad, "d", u64::MAX),
		Err(DatasetError::Corrupt { .. })
	));
	assert!(matches!(
		dataset::fetch_verified("ftp://x/y", &[0; 32], u64::MAX, &local(Path::new("/tmp"))),
		Err(DatasetError::UnsupportedUri(_))
	));
}

#[test]
fn safetensors_datasets_load() {
	use safetensors::{tensor::TensorView, Dtype};
	let inputs: Vec<u8> = (0..2 * 4).map(|i| i as u8 * 30).collect();
	let labels: Vec<u8> = (0..2 * 8).map(|i| if i % 8 == 0 { (i / 8) as u8 } else { 0 }).collect();
	let bytes = safetensors::serialize(
		[
			("inputs", TensorView::new(Dtype::U8, vec![2, 1, 2, 2], &inputs).unwrap()),
			("labels", TensorView::new(Dtype::I64, vec![2], &labels).unwrap()),
		],
		None,
	)
	.unwrap();
	let d = dataset::safetensors::parse(&bytes, "st").unwrap();
	assert_eq!(d.sample_shape, vec![1, 2, 2]);
	assert_eq!(d.labels, vec![0, 1]);
	assert_eq!(d.inputs[1], 30.0 / 255.0);
	let err = dataset::safetensors::parse(&bytes[..bytes.len() - 3], "st").unwrap_err();
	assert!(matches!(err, DatasetError::Corrupt { .. } | DatasetError::Truncated { .. }), "{err}");
	let dir = tempfile::tempdir().unwrap();
	let p = dir.path().join("d.safetensors");
	std::fs::write(&p, &bytes).unwrap();
	assert_eq!(dataset::load_local(&p).unwrap(), d);
}

/// A data reference to `uri` holding `bundle(n, side)`: its real file hash, and
/// `chunk_root` as the spec's (right or not).
fn data_ref(uri: &str, n: usize, side: usize, chunk_root: [u8; 32]) -> gensyn_primitives::DataRef {
	use gensyn_primitives::{DataFormat, Hash32, Shape3, Uri};
	gensyn_primitives::DataRef {
		uri: Uri::parse(uri).unwrap(),
		file_hash: Hash32(blake2_256(&bundle(n, side))),
		chunk_root: Hash32(chunk_root),
		format: DataFormat::MnistIdx,
		samples: n as u32,
		input: Shape3 { channels: 1, height: side as u32, width: side as u32 },
		classes: 10,
	}
}

/// The spec's file hash matches but its chunk root does not (attack A4(b): a dispute at
/// a data value could never be answered): refused with the named error, whether the
/// bytes come from a local file, a download or the download cache; the right root is
/// accepted the same ways.
#[test]
fn a_wrong_chunk_root_is_refused_whichever_way_the_bytes_come() {
	let dir = tempfile::tempdir().unwrap();
	let cache = dir.path().join("cache");
	// Several chunks, the last one short, so the root is a real tree.
	let (n, side) = (100, 6);
	let body = bundle(n, side);
	assert!(body.len() > 3 * gensyn_primitives::DATA_CHUNK_SIZE);
	let right = dataset::chunk_root(&body);
	assert_eq!(right, gensyn_primitives::merkle::root_of_chunks(&body, 1024));
	let mut wrong = right;
	wrong[31] ^= 1;
	let refused = |data: &gensyn_primitives::DataRef, uri: &str| {
		for err in [
			dataset::fetch_data_ref(data, &local(&cache)).unwrap_err(),
			dataset::load_data_ref(data, &local(&cache)).unwrap_err(),
		] {
			// Every worker reading these bytes finds the same (a verifier reports it).
			assert!(err.is_committed_data_fault(), "{err}");
			match err {
				DatasetError::ChunkRootMismatch { uri: u, expected, actual } => {
					assert_eq!(u, uri);
					assert_eq!(expected, to_hex(&wrong));
					assert_eq!(actual, to_hex(&right));
				}
				other => panic!("expected ChunkRootMismatch, got {other}"),
			}
		}
	};

	let path = dir.path().join("d.idx");
	std::fs::write(&path, &body).unwrap();
	let uri = file_uri(&path);
	refused(&data_ref(&uri, n, side, wrong), &uri);
	assert_eq!(
		dataset::fetch_data_ref(&data_ref(&uri, n, side, right), &local(&cache)).unwrap(),
		body
	);
	assert_eq!(
		dataset::load_data_ref(&data_ref(&uri, n, side, right), &local(&cache)).unwrap().len(),
		n
	);

	// Downloaded once (the file matches its hash, so it is cached), then read from the
	// cache with no server left: the cached bytes are checked as well.
	let uri = serve(body.clone(), body.len(), 1);
	refused(&data_ref(&uri, n, side, wrong), &uri);
	assert_eq!(cache_entries(&cache), vec![to_hex(&blake2_256(&body))]);
	refused(&data_ref(&uri, n, side, wrong), &uri);
	assert_eq!(
		dataset::fetch_data_ref(&data_ref(&uri, n, side, right), &local(&cache)).unwrap(),
		body
	);
	assert_eq!(
		dataset::load_data_ref(&data_ref(&uri, n, side, right), &local(&cache)).unwrap().len(),
		n
	);
}

/// Serves `body` once per connection (up to `connections`) on 127.0.0.1, announcing
/// `announced` bytes.
fn serve(body: Vec<u8>, announced: usize, connections: usize) -> String {
	let listener = TcpListener::bind("127.0.0.1:0").unwrap();
	let addr = listener.local_addr().unwrap();
	let body = std::sync::Arc::new(body);
	std::thread::spawn(move || {
		for stream in listener.incoming().take(connections) {
			let (mut s, body) = (stream.unwrap(), body.clone());
			// Each connection on its own thread, so that downloads can overlap.
			std::thread::spawn(move || {
				let mut req = [0u8; 4096];
				let _ = s.read(&mut req);
				let head = format!(
					"HTTP/1.1 200 OK\r\nContent-Length: {announced}\r\nConnection: close\r\n\r\n"
				);
				let _ = s.write_all(head.as_bytes());
				let _ = s.write_all(&body);
			});
		}
	});
	format!("http://{addr}/train.idx")
}

#[test]
fn http_downloads_are_streamed_checked_and_cached() {
	let dir = tempfile::tempdir().unwrap();
	let body = bundle(6, 5);
	let good = blake2_256(&body);
	let uri = serve(body.clone(), body.len(), 3);
	assert_eq!(dataset::fetch_verified(&uri, &good, u64::MAX, &local(dir.path())).unwrap(), body);
	let cached = dir.path().join(to_hex(&good));
	let d: Dataset = dataset::load_mnist_bundle(&cached).unwrap();
	assert_eq!(d.len(), 6);
	// A wrong hash: nothing is kept.
	let err = dataset::fetch_verified(&uri, &[1; 32], u64::MAX, &local(dir.path())).unwrap_err();
	assert!(matches!(err, DatasetError::HashMismatch { .. }), "{err}");
	// Bytes that miss the hash may be served right yet: retried, never reported.
	assert!(!err.is_committed_data_fault());
	assert!(!dir.path().join(to_hex(&[1; 32])).exists());
	// Served again from the cache without a server.
	assert_eq!(dataset::fetch_verified(&uri, &good, u64::MAX, &local(dir.path())).unwrap(), body);
	// A cache entry that no longer matches is fetched anew (the server's second answer).
	std::fs::write(&cached, b"rewritten").unwrap();
	assert_eq!(dataset::fetch_verified(&uri, &good, u64::MAX, &local(dir.path())).unwrap(), body);
	assert_eq!(std::fs::read(&cached).unwrap(), body);
	assert_eq!(cache_entries(dir.path()), vec![to_hex(&good)], "no part file is left");
}

/// The names in a cache directory, sorted.
fn cache_entries(dir: &Path) -> Vec<String> {
	let mut names: Vec<String> = std::fs::read_dir(dir)
		.unwrap()
		.map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
		.collect();
	names.sort();
	names
}

#[test]
fn concurrent_fetches_of_one_file_both_succeed() {
	let dir = tempfile::tempdir().unwrap();
	let body = bundle(40_000, 5);
	let good = blake2_256(&body);
	let uri = serve(body.clone(), body.len(), 2);
	let fetch = || dataset::fetch_verified(&uri, &good, u64::MAX, &local(dir.path()));
	let (a, b) = std::thread::scope(|s| {
		let a = s.spawn(fetch);
		let b = s.spawn(fetch);
		(a.join().unwrap(), b.join().unwrap())
	});
	assert_eq!(a.unwrap(), body);
	assert_eq!(b.unwrap(), body);
	assert_eq!(cache_entries(dir.path()), vec![to_hex(&good)]);
}

#[test]
fn http_connection_cut_short_is_an_error() {
	let dir = tempfile::tempdir().unwrap();
	let body = bundle(6, 5);
	let uri = serve(body[..100].to_vec(), body.len(), 1);
	let err = dataset::fetch_verified(&uri, &blake2_256(&body), u64::MAX, &local(dir.path()))
		.unwrap_err();
	assert!(matches!(err, DatasetError::Http { .. } | DatasetError::HashMismatch { .. }), "{err}");
	assert!(cache_entries(dir.path()).is_empty(), "the part file is removed");
}

/// The size a spec implies is exact for an IDX bundle, and every way the bytes come is
/// cut off just past it: a server that sends more than the spec allows (an endless body),
/// a local file that never ends, a gzip stream that inflates past the bundle. Nothing is
/// cached or left behind, and none of it is blamed on the committed data.
#[test]
fn no_read_goes_past_the_size_the_spec_implies() {
	use gensyn_primitives::DataFormat;
	let dir = tempfile::tempdir().unwrap();
	let cache = dir.path().join("cache");
	let (n, side) = (50, 6);
	let body = bundle(n, side);
	let mut data = data_ref("http://127.0.0.1/x", n, side, dataset::chunk_root(&body));
	assert_eq!(data.idx_bundle_len(), body.len() as u64);
	assert_eq!(data.max_file_len(), body.len() as u64);
	data.format = DataFormat::MnistIdxGz;
	assert!(data.max_file_len() > body.len() as u64);
	data.format = DataFormat::MnistIdx;

	// The right file at its exact size is read; bytes past it are kept nowhere. When the
	// oversized bytes are the committed file (their hash, read to the end, matches), every
	// worker finds the same and a verifier may report it; when they miss the hash, the
	// right file may be served yet.
	let uri = serve(body.clone(), body.len(), 1);
	data.uri = gensyn_primitives::Uri::parse(&uri).unwrap();
	assert_eq!(dataset::fetch_data_ref(&data, &local(&cache)).unwrap(), body);
	let mut longer = body.clone();
	longer.extend(std::iter::repeat_n(7u8, 4 << 20));
	let limit = body.len() as u64;
	let path = dir.path().join("longer.idx");
	std::fs::write(&path, &longer).unwrap();
	// A cache of its own: the one above holds the right file, which would be read instead.
	let fresh = dir.path().join("fresh-cache");
	for (expected, committed) in [(blake2_256(&longer), true), (blake2_256(&body), false)] {
		let uri = serve(longer.clone(), longer.len(), 1);
		let err = dataset::fetch_verified(&uri, &expected, limit, &local(&fresh)).unwrap_err();
		if committed {
			assert!(
				matches!(err, DatasetError::TooLarge { limit: l, committed: true, .. } if l == limit),
				"{err}"
			);
		} else {
			assert!(matches!(err, DatasetError::HashMismatch { .. }), "{err}");
		}
		assert_eq!(err.is_committed_data_fault(), committed, "{err}");
		let err = dataset::fetch_verified(&file_uri(&path), &expected, limit, &local(&fresh));
		assert_eq!(err.unwrap_err().is_committed_data_fault(), committed);
	}
	assert!(cache_entries(&fresh).is_empty(), "nothing is kept, no part file is left");

	// A local file that never ends is cut off unchecked.
	let err =
		dataset::fetch_verified("file:///dev/zero", &[0; 32], 1 << 20, &local(&cache)).unwrap_err();
	assert!(matches!(err, DatasetError::TooLarge { committed: false, .. }), "{err}");

	// A few KiB of gzip that inflate to far more than the bundle the spec describes.
	let mut bomb_plain = body.clone();
	bomb_plain.extend(std::iter::repeat_n(0u8, 64 << 20));
	let bomb = gzip(&bomb_plain);
	assert!(bomb.len() < 1 << 20);
	data.format = DataFormat::MnistIdxGz;
	let err = dataset::parse_data_ref(&data, &bomb).unwrap_err();
	assert!(matches!(err, DatasetError::TooLarge { committed: true, .. }), "{err}");
	assert_eq!(dataset::parse_data_ref(&data, &gzip(&body)).unwrap().len(), n);
	// Gzip where the spec says uncompressed is the spec's fault, never inflated: a dispute
	// reads the bundle's bytes where the spec says they are.
	data.format = DataFormat::MnistIdx;
	let err = dataset::parse_data_ref(&data, &gzip(&body)).unwrap_err();
	assert!(matches!(err, DatasetError::Corrupt { .. }) && err.is_committed_data_fault(), "{err}");
}

/// A worker that reads only downloads asks public hosts only: data served from loopback
/// (or a name that resolves there) is refused before any request is sent (a submitter
/// must not have workers ask their own networks: a node's RPC, a cloud's metadata
/// service), and fetched where private hosts are allowed.
#[test]
fn downloads_ask_public_hosts_only() {
	let dir = tempfile::tempdir().unwrap();
	let body = bundle(2, 2);
	let good = blake2_256(&body);
	let uri = serve(body.clone(), body.len(), 1);
	let by_name = uri.replace("127.0.0.1", "localhost");
	let downloads = dataset::DataSource::downloads(dir.path().join("cache"));
	for uri in [&uri, &by_name, &"http://169.254.169.254/latest/meta-data/".to_string()] {
		let err = dataset::fetch_verified(uri, &good, u64::MAX, &downloads).unwrap_err();
		let refused = matches!(&err, DatasetError::Http { reason, .. }
			if reason.contains(dataset::hosts::NOT_PUBLIC));
		assert!(refused, "{uri}: {err}");
		assert!(!err.is_committed_data_fault());
	}
	let private = downloads.with_private_hosts();
	assert_eq!(dataset::fetch_verified(&uri, &good, u64::MAX, &private).unwrap(), body);
}

/// A worker that reads only downloads refuses a `file://` URI or a bare path with the
/// named error (a submitter must not have it read files on its disk), and reads the same
/// file where local files are allowed.
#[test]
fn local_files_are_read_only_where_allowed() {
	let dir = tempfile::tempdir().unwrap();
	let path = dir.path().join("d.idx");
	std::fs::write(&path, bundle(2, 2)).unwrap();
	let good = blake2_256(&bundle(2, 2));
	let downloads = dataset::DataSource::downloads(dir.path().join("cache"));
	for uri in [file_uri(&path), path.display().to_string(), "file:///etc/passwd".into()] {
		let err = dataset::fetch_verified(&uri, &good, u64::MAX, &downloads).unwrap_err();
		assert!(matches!(&err, DatasetError::LocalFileRefused(u) if *u == uri), "{err}");
		assert!(!err.is_committed_data_fault());
	}
	let got = dataset::fetch_verified(&file_uri(&path), &good, u64::MAX, &local(dir.path()));
	assert_eq!(got.unwrap(), bundle(2, 2));
}

/// Token sequences are read as exactly the count and length the spec declares, each id
/// below the vocabulary; anything else is the committed data's fault, named.
#[test]
fn token_sequences_are_read_as_declared() {
	use gensyn_primitives::{DataFormat, Hash32, Shape3, Uri};
	use gensyn_repops::model::Dataset as _;
	let (t, n) = (4usize, 3usize);
	let bytes: Vec<u8> = (0..n * (t + 1)).map(|i| (i % 7) as u8).collect();
	let data = gensyn_primitives::DataRef {
		uri: Uri::parse("https://127.0.0.1/seqs.tokens").unwrap(),
		file_hash: Hash32(blake2_256(&bytes)),
		chunk_root: Hash32(dataset::chunk_root(&bytes)),
		format: DataFormat::Tokens,
		samples: n as u32,
		input: Shape3 { channels: 1, height: 1, width: t as u32 },
		classes: 7,
	};
	let d = dataset::parse_data_ref(&data, &bytes).unwrap();
	assert_eq!((d.len(), d.sample_shape.clone(), d.sequences), (n, vec![t + 1], true));
	assert_eq!(d.sequence_batch(&[2, 0]).unwrap(), [3, 4, 5, 6, 0, 0, 1, 2, 3, 4]);
	assert_eq!(d.sequence_batch(&[3]), None);
	let mut one = [0u32; 5];
	d.sequence(1, &mut one).unwrap();
	assert_eq!(one, [5, 6, 0, 1, 2]);
	// An image data set has no sequences, and a token set no labelled samples.
	let images = Dataset::new(vec![1, 2, 2], vec![0.0; 4], vec![1]).unwrap();
	assert_eq!(images.sequence_batch(&[0]), None);
	assert_eq!(images.sequence(0, &mut one), Err(gensyn_repops::ReproError::Unsupported));
	assert!(gensyn_repops::model::Dataset::sample(&d, 0, &mut [0.0; 5]).is_err());

	let short = dataset::parse_data_ref(&data, &bytes[1..]).unwrap_err();
	assert!(matches!(short, DatasetError::Truncated { expected: 15, actual: 14, .. }), "{short}");
	let long = dataset::parse_data_ref(&data, &[&bytes[..], &[0]].concat()).unwrap_err();
	assert!(matches!(long, DatasetError::Corrupt { .. }), "{long}");
	let mut wide = bytes.clone();
	wide[12] = 7;
	let err = dataset::parse_data_ref(&data, &wide).unwrap_err();
	assert!(matches!(err, DatasetError::TokenOutOfRange { index: 2, token: 7, vocab: 7 }), "{err}");
	for e in [short, long, err] {
		assert!(e.is_committed_data_fault(), "{e}");
	}
}
