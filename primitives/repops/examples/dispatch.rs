//! What handing an op's pieces to threads costs: `par::map_ranges` (the kept pool)
//! against starting a scoped thread per piece (how `par` worked before the pool), for
//! 2 to 16 pieces of a 2 us job, as a ratio measured in the same run:
//! `cargo run -p gensyn-repops --release --example dispatch`.

use gensyn_repops::par;
use std::ops::Range;
use std::time::Instant;

/// The baseline: the first piece on the calling thread, one new thread per other piece.
fn started_threads(count: usize, pieces: usize, f: impl Fn(Range<usize>) -> f32 + Sync) -> f32 {
	let per = count.div_ceil(pieces);
	std::thread::scope(|s| {
		let f = &f;
		let others: Vec<_> = (per..count)
			.step_by(per)
			.map(|lo| s.spawn(move || f(lo..(lo + per).min(count))))
			.collect();
		f(0..per) + others.into_iter().map(|h| h.join().expect("no panic")).sum::<f32>()
	})
}

/// Microseconds per call of `call`, best of 3 rounds of `n` calls.
fn micros(n: u32, mut call: impl FnMut() -> f32) -> f64 {
	let mut best = f64::INFINITY;
	for _ in 0..3 {
		let t = Instant::now();
		let sum: f32 = (0..n).map(|_| call()).sum();
		std::hint::black_box(sum);
		best = best.min(t.elapsed().as_secs_f64() * 1e6 / n as f64);
	}
	best
}

fn main() {
	par::set_min_parallel_work(0);
	// About 2 us of work on one thread, so the figures are mostly the hand-over.
	let job = |r: Range<usize>| r.map(|i| (i as f32).sqrt()).sum::<f32>();
	for pieces in [2, 4, 8, 16] {
		let pool = micros(2000, || par::map_ranges(2000, pieces, job).iter().sum());
		let started = micros(2000, || started_threads(2000, pieces, job));
		println!(
			"{{\"pieces\": {pieces}, \"pool_us\": {pool:.1}, \"thread_start_us\": {started:.1}, \"ratio_start_over_pool\": {:.1}}}",
			started / pool
		);
	}
}
