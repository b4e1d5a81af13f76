//! A bounded fuzz run over the SCALE bytes of a task spec: what an extrinsic carries is
//! decoded, validated and estimated as the runtime does, and none of it may panic or
//! overflow. Inputs are valid specs' encodings with a few bytes changed, inserted,
//! removed or cut off (most of them still decode, so validation and the estimate see
//! them), and plain random bytes.
//!
//! `SPEC_FUZZ_RUNS` sets the count (default 20,000); the test suite also runs a million
//! under the `fuzz` profile, whose overflow checks turn a wrapped sum into a failure:
//! `SPEC_FUZZ_RUNS=1000000 cargo test --profile fuzz -p gensyn-primitives --test fuzz_spec`

use codec::{Decode, DecodeLimit, Encode};
use gensyn_primitives::{fixtures, order, order::SplitMix64, *};

/// The nesting a spec's decoding may reach (layers hold no further layers).
const DEPTH: u32 = 16;

/// Valid specs whose encodings the run mutates.
fn seeds() -> Vec<Vec<u8>> {
	let examples = ["mnist-mlp.json", "mnist-cnn.json", "charlm-transformer.json"].map(|name| {
		let path = format!("{}/../../examples/{name}", env!("CARGO_MANIFEST_DIR"));
		let text = std::fs::read_to_string(&path).expect("an example spec");
		serde_json::from_str::<TaskSpec>(&text).expect("the example parses")
	});
	let mut specs = examples.to_vec();
	specs.extend([
		fixtures::mnist_mlp(),
		fixtures::tiny_mlp(),
		fixtures::tiny_cnn(),
		fixtures::tiny_lm(),
	]);
	specs.iter().map(Encode::encode).collect()
}

/// A byte that often lands on a boundary (zero, all ones, a sign bit).
fn byte(rng: &mut SplitMix64) -> u8 {
	const EDGES: [u8; 6] = [0x00, 0xff, 0x7f, 0x80, 0x01, 0xfe];
	let x = rng.next_u64();
	if x.is_multiple_of(3) {
		EDGES[(x >> 8) as usize % EDGES.len()]
	} else {
		(x >> 16) as u8
	}
}

/// One input: a seed with one to eight mutations, or (one in ten) random bytes.
fn input(rng: &mut SplitMix64, seeds: &[Vec<u8>]) -> Vec<u8> {
	if rng.next_u64().is_multiple_of(10) {
		let len = (rng.next_u64() % 600) as usize;
		return (0..len).map(|_| byte(rng)).collect();
	}
	let mut b = seeds[(rng.next_u64() % seeds.len() as u64) as usize].clone();
	for _ in 0..1 + rng.next_u64() % 8 {
		if b.is_empty() {
			break;
		}
		let at = (rng.next_u64() % b.len() as u64) as usize;
		match rng.next_u64() % 8 {
			0 => b.insert(at, byte(rng)),
			1 => {
				b.remove(at);
			}
			2 => b.truncate(at),
			// A little-endian u32 or u64 field set to an edge value.
			3 => {
				let edge = [0u64, u64::MAX, u32::MAX as u64, 1 << 31, 1 << 63][at % 5];
				let width = if rng.next_u64().is_multiple_of(2) { 4 } else { 8 };
				for (i, v) in edge.to_le_bytes().iter().take(width).enumerate() {
					if let Some(d) = b.get_mut(at + i) {
						*d = *v;
					}
				}
			}
			_ => b[at] = byte(rng),
		}
	}
	b
}

/// Everything the runtime and the workers compute from a decoded spec.
fn exercise(spec: &TaskSpec) -> bool {
	let valid = spec.validate().is_ok();
	let _ = estimate(spec);
	let _ = segment_work(spec);
	let _ = memory_mib(spec);
	let _ = (layout::param_shapes(spec), publish::tensor_lengths(spec));
	let _ = validate::infer_shapes(&spec.model);
	let _ = (spec.total_steps(), spec.steps_per_epoch());
	let _ = (spec.data.max_file_len(), spec.data.idx_bundle_len());
	if valid {
		let last = spec.total_steps().saturating_sub(1);
		for step in [0, last / 2, last] {
			let _ = order::step_range(spec, step);
		}
	}
	// What decodes encodes back to itself.
	let again = TaskSpec::decode(&mut &spec.encode()[..]).expect("a re-encoded spec decodes");
	assert_eq!(&again, spec);
	valid
}

#[test]
fn no_spec_bytes_panic_or_overflow() {
	let runs: u64 =
		std::env::var("SPEC_FUZZ_RUNS").ok().and_then(|v| v.parse().ok()).unwrap_or(20_000);
	let seeds = seeds();
	let mut rng = SplitMix64(0x5eed_f00d);
	let (mut decoded, mut valid) = (0u64, 0u64);
	for _ in 0..runs {
		let bytes = input(&mut rng, &seeds);
		if let Ok(spec) = TaskSpec::decode_all_with_depth_limit(DEPTH, &mut &bytes[..]) {
			decoded += 1;
			valid += u64::from(exercise(&spec));
		}
	}
	println!("{runs} inputs: {decoded} decoded, {valid} valid");
	// The run reaches past the decoder: else it would test nothing but the codec.
	assert!(decoded * 10 >= runs, "only {decoded} of {runs} inputs decoded");
	assert!(valid * 100 >= runs, "only {valid} of {runs} inputs validated");
}
