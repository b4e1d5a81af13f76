//! Embedding lookup: each token picks a row of a `vocab x d` table.
//!
//! - forward: `y[n] = table[token[n]]`, a copy;
//! - backward: `dtable[v, j] = sum_{n : token[n] = v} dy[n, j]`, one accumulator from
//!   `+0` per table element, over the tokens in their order (rows no token picked stay
//!   `+0`).
//!
//! A learned positional embedding is the same lookup with positions as tokens.

use crate::{par, ReproError, Result};
use alloc::vec::Vec;

/// Work per output element, in [`par::threads_for`] units: a copy, or a scan of the
/// tokens per piece of the table.
const WORK_PER_ELEM: usize = 2;

/// Checks every token against the vocabulary; returns them as row indices.
fn rows(tokens: &[u32], vocab: usize) -> Result<Vec<usize>> {
	tokens
		.iter()
		.map(|t| {
			let t = *t as usize;
			if t < vocab {
				Ok(t)
			} else {
				Err(ReproError::TokenOutOfRange)
			}
		})
		.collect()
}

/// `out[n] = table[tokens[n]]` for a table of rows of `d`.
pub fn forward(
	table: &[f32],
	d: usize,
	tokens: &[u32],
	out: &mut [f32],
	threads: usize,
) -> Result<()> {
	if d == 0 || !table.len().is_multiple_of(d) || out.len() != tokens.len().saturating_mul(d) {
		return Err(ReproError::ShapeMismatch);
	}
	let picked = rows(tokens, table.len() / d)?;
	let threads = par::threads_for(out.len().saturating_mul(WORK_PER_ELEM), threads);
	par::for_rows(out, d, threads, |first, piece| {
		for (orow, v) in piece.chunks_exact_mut(d).zip(picked.iter().skip(first)) {
			if let Some(row) = table.get(v * d..(v + 1) * d) {
				orow.copy_from_slice(row);
			}
		}
	});
	Ok(())
}

/// The table's gradient: `vocab x d`, from the output gradient `dy` (`tokens x d`).
pub fn backward(
	vocab: usize,
	d: usize,
	tokens: &[u32],
	dy: &[f32],
	threads: usize,
) -> Result<Vec<f32>> {
	if d == 0 || dy.len() != tokens.len().saturating_mul(d) {
		return Err(ReproError::ShapeMismatch);
	}
	let picked = rows(tokens, vocab)?;
	let size = vocab.checked_mul(d).ok_or(ReproError::ShapeMismatch)?;
	let mut out = alloc::vec![0.0f32; size];
	let threads =
		par::threads_for(out.len().saturating_add(dy.len()).saturating_mul(WORK_PER_ELEM), threads);
	// Threads split the table's rows; each piece walks every token in order and adds
	// those that picked one of its rows, so each element's sum has one order.
	par::for_rows(&mut out, d, threads, |first, piece| {
		let count = piece.len() / d;
		for (n, v) in picked.iter().enumerate() {
			let Some(k) = v.checked_sub(first).filter(|k| *k < count) else { continue };
			let (Some(orow), Some(drow)) =
				(piece.get_mut(k * d..(k + 1) * d), dy.get(n * d..(n + 1) * d))
			else {
				return;
			};
			for (o, g) in orow.iter_mut().zip(drow) {
				*o = *o + *g;
			}
		}
	});
	Ok(out)
}

#[cfg(test)]
mod tests {
	use super::*;
	use crate::transformer::check::{self, bits};
	use alloc::vec;

	#[test]
	fn rows_are_gathered_and_gradients_summed_in_token_order_on_any_thread_count() {
		par::set_min_parallel_work(0);
		let (vocab, d) = (13, 5);
		let table = check::values(vocab * d, 1, 1.0);
		// Repeated tokens, so that rows gather several gradients; token 12 never comes.
		let tokens: Vec<u32> = (0..40u32).map(|n| (n * 7) % 12).collect();
		let dy = check::values(tokens.len() * d, 2, 1.0);
		let mut want = vec![0.0f32; vocab * d];
		for (n, t) in tokens.iter().enumerate() {
			for j in 0..d {
				let e = *t as usize * d + j;
				want[e] = want[e] + dy[n * d + j];
			}
		}
		for threads in [1, 2, 3] {
			let mut y = vec![7.0; tokens.len() * d];
			forward(&table, d, &tokens, &mut y, threads).unwrap();
			for (n, t) in tokens.iter().enumerate() {
				let t = *t as usize;
				assert_eq!(&y[n * d..(n + 1) * d], &table[t * d..(t + 1) * d], "token {n}");
			}
			let g = backward(vocab, d, &tokens, &dy, threads).unwrap();
			assert_eq!(bits(&g), bits(&want), "{threads} threads");
			assert!(g[12 * d..].iter().all(|v| v.to_bits() == 0), "an unpicked row is +0");
		}
		let mut y = vec![0.0; tokens.len() * d];
		assert_eq!(forward(&table, d, &[13], &mut y[..d], 1), Err(ReproError::TokenOutOfRange));
		assert_eq!(backward(vocab, d, &[0, 13], &dy[..2 * d], 1), Err(ReproError::TokenOutOfRange));
		assert_eq!(forward(&table, 4, &tokens, &mut y, 1), Err(ReproError::ShapeMismatch));
		assert_eq!(backward(vocab, d, &tokens, &dy[1..], 1), Err(ReproError::ShapeMismatch));
	}
}
