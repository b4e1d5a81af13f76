//! Progress of long work: an indicatif bar (steps, loss, steps/s, time left) when
//! stderr is a terminal, and a tracing log line every few seconds otherwise.

use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;
use std::time::{Duration, Instant};

/// Seconds between log lines when stderr is not a terminal.
const LOG_EVERY: Duration = Duration::from_secs(5);

/// Reports the progress of a run of steps.
pub struct Progress {
	bar: Option<ProgressBar>,
	what: &'static str,
	total: u64,
	started: Instant,
	last_log: Instant,
	start_step: u64,
}

impl Progress {
	/// Starts reporting `what` (e.g. "train") over `total` steps, `done` of them
	/// already done (a resumed run).
	pub fn new(what: &'static str, total: u64, done: u64) -> Self {
		let bar = std::io::stderr().is_terminal().then(|| {
            let bar = ProgressBar::new(total);
            bar.set_style(
                ProgressStyle::with_template(
                    "{prefix} [{elapsed_precise}] {wide_bar} {pos}/{len} steps {per_sec} eta {eta} {msg}",
                )
                .expect("a valid template"),
            );
            bar.set_prefix(what);
            bar.set_position(done);
            bar.reset_eta();
            bar
        });
		let now = Instant::now();
		Self { bar, what, total, started: now, last_log: now, start_step: done }
	}

	/// Marks step `step` (steps done so far) with its loss.
	pub fn update(&mut self, step: u64, loss: f32) {
		match &self.bar {
			Some(bar) => {
				bar.set_position(step);
				bar.set_message(format!("loss {loss:.4}"));
			}
			None if self.last_log.elapsed() >= LOG_EVERY || step == self.total => {
				self.last_log = Instant::now();
				tracing::info!(
					target: "gensyn_ml",
					"{}: step {step}/{} loss {loss:.4} ({:.1} steps/s)",
					self.what,
					self.total,
					self.rate(step)
				);
			}
			None => {}
		}
	}

	/// Steps per second since the start, counting only steps done here.
	pub fn rate(&self, step: u64) -> f64 {
		let secs = self.started.elapsed().as_secs_f64();
		if secs == 0.0 {
			return 0.0;
		}
		step.saturating_sub(self.start_step) as f64 / secs
	}

	/// Ends the bar (or logs the last line).
	pub fn finish(self, step: u64) {
		let rate = self.rate(step);
		if let Some(bar) = self.bar {
			bar.finish_and_clear();
		}
		tracing::info!(target: "gensyn_ml", "{}: {step}/{} steps, {rate:.1} steps/s", self.what, self.total);
	}
}
