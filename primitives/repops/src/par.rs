//! Parallelism across independent outputs only.
//!
//! [`for_rows`] cuts an output buffer into whole rows and hands contiguous groups of
//! rows to threads. Every output element is computed by the same code whatever the
//! cut, so the bits do not depend on the thread count.

/// Calls `f(first_row, rows)` over `out` cut into rows of `row_len`, on up to `threads`
/// threads (one without the `parallel` feature).
pub fn for_rows<F>(out: &mut [f32], row_len: usize, threads: usize, f: F)
where
	F: Fn(usize, &mut [f32]) + Sync,
{
	if row_len == 0 {
		return;
	}
	let rows = out.len() / row_len;
	#[cfg(feature = "parallel")]
	{
		let t = threads.max(1).min(rows);
		if t > 1 {
			let per = rows.div_ceil(t);
			std::thread::scope(|s| {
				for (i, chunk) in out.chunks_mut(per * row_len).enumerate() {
					let f = &f;
					s.spawn(move || f(i * per, chunk));
				}
			});
			return;
		}
	}
	let _ = (threads, rows);
	f(0, out);
}

/// How many threads to use by default: the machine's parallelism with `parallel`, else 1.
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
