//! Parallelism across independent outputs only.
//!
//! [`for_rows`] and [`for_groups`] cut an output buffer into whole rows and hand
//! contiguous groups of rows to threads; [`map_ranges`] does the same for a range of
//! work items whose results come back in order. Every output element is computed by the
//! same code whatever the cut, so the bits do not depend on the thread count.
//! [`threads_for`] keeps small ops on one thread.
//!
//! With the `parallel` feature the calling thread runs the first piece and a pool of
//! repops' own (rayon's pool type, one thread per core, started on first use and kept)
//! runs the others: handing 2 to 16 pieces over costs 8 to 20 us on the development
//! machine, where starting a thread per piece cost about 30 us per thread (40 us for
//! one, 440 us for fifteen: `examples/dispatch.rs`). `threads` bounds the pieces an op
//! is cut into; the pool's size bounds how many run at once.

use alloc::vec::Vec;
use core::ops::Range;
use core::sync::atomic::{AtomicUsize, Ordering};

/// Calls `f(first_row, rows)` over `out` cut into rows of `row_len`, in up to
/// `threads` contiguous pieces of whole rows run in parallel (one piece without the
/// `parallel` feature).
pub fn for_rows<F>(out: &mut [f32], row_len: usize, threads: usize, f: F)
where
	F: Fn(usize, &mut [f32]) + Sync,
{
	for_groups(out, row_len, 1, threads, f)
}

/// Below this much work (multiply-adds, or their equivalent for other ops) an op runs
/// on one thread by default: handing pieces over costs more than the split saves. Set
/// when a piece needed a thread start; with the pool it is kept until measured on a
/// machine with more cores (on the 2-core development machine splitting the MNIST
/// MLP's 6.4 M-term product did not pay even with the pool).
pub const PARALLEL_WORK: usize = 1 << 23;

static MIN_PARALLEL_WORK: AtomicUsize = AtomicUsize::new(PARALLEL_WORK);

/// Sets the work below which ops run on one thread ([`PARALLEL_WORK`] by default). It
/// changes speed only, never a bit of any result; tests set 0 to split even tiny ops.
pub fn set_min_parallel_work(work: usize) {
	MIN_PARALLEL_WORK.store(work, Ordering::Relaxed);
}

/// `threads`, or 1 when `work` is below the threshold of [`set_min_parallel_work`].
pub fn threads_for(work: usize, threads: usize) -> usize {
	if work < MIN_PARALLEL_WORK.load(Ordering::Relaxed) {
		1
	} else {
		threads
	}
}

/// Calls `f` on `0..count` cut into up to `threads` contiguous ranges (the first on
/// the calling thread, the others on repops' pool; all on the calling thread without
/// the `parallel` feature) and returns the results in range order (one result, for
/// `0..0`, when `count` is 0).
pub fn map_ranges<T, F>(count: usize, threads: usize, f: F) -> Vec<T>
where
	T: Send,
	F: Fn(Range<usize>) -> T + Sync,
{
	#[cfg(feature = "parallel")]
	{
		let t = threads.max(1).min(count);
		if t > 1 {
			let per = count.div_ceil(t);
			let mut all: Vec<Option<T>> = (0..count.div_ceil(per)).map(|_| None).collect();
			let range = |i: usize| i * per..((i + 1) * per).min(count);
			match pool() {
				// The calling thread takes the first range itself, the pool the others.
				Some(pool) => pool.in_place_scope(|s| {
					let (f, range) = (&f, &range);
					let (own, others) = all.split_at_mut(1);
					for (i, slot) in others.iter_mut().enumerate() {
						// `f` does not panic; if it did, the scope passes the panic on.
						s.spawn(move |_| *slot = Some(f(range(i + 1))));
					}
					own[0] = Some(f(range(0)));
				}),
				None => all.iter_mut().enumerate().for_each(|(i, slot)| *slot = Some(f(range(i)))),
			}
			debug_assert!(all.iter().all(Option::is_some), "every range has its result");
			return all.into_iter().flatten().collect();
		}
	}
	let _ = threads;
	alloc::vec![f(0..count)]
}

/// Repops' thread pool: one thread per core, started on first use and kept; `None` when
/// the threads could not be started (the pieces then run one after another on the
/// calling thread, with the same results).
#[cfg(feature = "parallel")]
fn pool() -> Option<&'static rayon::ThreadPool> {
	static POOL: std::sync::OnceLock<Option<rayon::ThreadPool>> = std::sync::OnceLock::new();
	POOL.get_or_init(|| {
		rayon::ThreadPoolBuilder::new()
			.num_threads(default_threads())
			.thread_name(|i| format!("repops-{i}"))
			.build()
			.ok()
	})
	.as_ref()
}

/// How many threads to use by default: the machine's parallelism with `parallel`, else 1.
/// (A solver's training leaves one core to its checkpoint writer; a replay has none.)
pub fn default_threads() -> usize {
	#[cfg(feature = "parallel")]
	{
		std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1)
	}
	#[cfg(not(feature = "parallel"))]
	{
		1
	}
}

/// Calls `f(first_row, rows)` over `out` cut into rows of `row_len`, in up to `threads`
/// contiguous pieces run in parallel, each with a row count that is a multiple of
/// `group` (the last piece takes the rest).
pub fn for_groups<F>(out: &mut [f32], row_len: usize, group: usize, threads: usize, f: F)
where
	F: Fn(usize, &mut [f32]) + Sync,
{
	if row_len == 0 {
		return;
	}
	let rows = out.len() / row_len;
	#[cfg(feature = "parallel")]
	{
		let group = group.max(1);
		let groups = rows.div_ceil(group);
		let t = threads.max(1).min(groups);
		if t > 1 {
			let per = groups.div_ceil(t) * group;
			let mut pieces = out.chunks_mut(per * row_len).enumerate();
			match pool() {
				Some(pool) => pool.in_place_scope(|s| {
					let f = &f;
					let own = pieces.next();
					for (i, chunk) in pieces {
						s.spawn(move |_| f(i * per, chunk));
					}
					if let Some((_, chunk)) = own {
						f(0, chunk);
					}
				}),
				None => pieces.for_each(|(i, chunk)| f(i * per, chunk)),
			}
			return;
		}
	}
	let _ = (threads, rows, group);
	f(0, out);
}

/// Reuse of large `f32` buffers on the calling thread (with `std`): a training step
/// allocates the same sizes every step, and fresh allocations of that size cost page
/// faults. Only memory is reused: [`scratch::take`] zero-fills, [`scratch::take_dirty`]
/// is for callers that write every element.
pub mod scratch {
	use alloc::{vec, vec::Vec};

	/// Buffers smaller than this are left to the allocator.
	#[cfg(feature = "std")]
	const MIN: usize = 4 * 1024;
	/// At most this many buffers are kept.
	#[cfg(feature = "std")]
	const KEEP: usize = 64;

	#[cfg(feature = "std")]
	std::thread_local! {
		static FREE: core::cell::RefCell<Vec<Vec<f32>>> = const { core::cell::RefCell::new(Vec::new()) };
	}

	/// A zero-filled buffer of `n` floats, reusing a kept one when one fits.
	pub fn take(n: usize) -> Vec<f32> {
		match reuse(n) {
			Some(mut v) => {
				v.clear();
				v.resize(n, 0.0);
				v
			}
			None => vec![0.0; n],
		}
	}

	/// A buffer of `n` floats whose values are unspecified (old values of a reused
	/// buffer, or 0): only for callers that overwrite every element.
	pub fn take_dirty(n: usize) -> Vec<f32> {
		match reuse(n) {
			Some(mut v) => {
				v.truncate(n);
				v.resize(n, 0.0);
				v
			}
			None => vec![0.0; n],
		}
	}

	/// A kept buffer with room for `n` floats (and not much more), if any.
	fn reuse(n: usize) -> Option<Vec<f32>> {
		#[cfg(feature = "std")]
		if n >= MIN {
			return FREE.with(|f| {
				let mut f = f.try_borrow_mut().ok()?;
				// The smallest kept buffer that holds `n` (and is not much larger), best one
				// already `n` long: growing a shorter one writes zeros up to `n`.
				let i = f
					.iter()
					.enumerate()
					.filter(|(_, v)| v.capacity() >= n && v.capacity() <= n.saturating_mul(2))
					.min_by_key(|(_, v)| (v.len() < n, v.capacity()))
					.map(|(i, _)| i)?;
				Some(f.swap_remove(i))
			});
		}
		let _ = n;
		None
	}

	/// Drops every buffer kept on this thread (frees their memory).
	pub fn clear() {
		#[cfg(feature = "std")]
		FREE.with(|f| {
			if let Ok(mut f) = f.try_borrow_mut() {
				f.clear();
			}
		});
	}

	/// Keeps `v` for a later [`take`] (drops it when small or when enough are kept).
	pub fn give(v: Vec<f32>) {
		#[cfg(feature = "std")]
		if v.capacity() >= MIN {
			FREE.with(|f| {
				if let Ok(mut f) = f.try_borrow_mut() {
					if f.len() < KEEP {
						f.push(v);
					}
				}
			});
		}
		#[cfg(not(feature = "std"))]
		drop(v);
	}
}

#[cfg(test)]
mod tests {
	use super::*;

	#[test]
	fn map_ranges_covers_every_item_once_in_order() {
		for count in [0, 1, 2, 5, 19] {
			for threads in 1..=4 {
				let ranges = map_ranges(count, threads, |r| r);
				assert!(ranges.len() <= threads.max(1), "{count} on {threads}: {ranges:?}");
				let items: Vec<usize> = ranges.into_iter().flatten().collect();
				assert_eq!(items, (0..count).collect::<Vec<_>>(), "{count} on {threads}");
			}
		}
	}
}
