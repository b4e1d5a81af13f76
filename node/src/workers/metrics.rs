//! Prometheus metrics of the workers, in the node's registry (`--prometheus-port`).

use prometheus_endpoint::{
	register, Counter, CounterVec, Gauge, GaugeVec, Opts, PrometheusError, Registry, F64, U64,
};

/// The workers' metrics; inert when the node runs without Prometheus.
pub struct Metrics(Option<Inner>);

struct Inner {
	submitted: CounterVec<U64>,
	failed: CounterVec<U64>,
	steps_per_second: Gauge<F64>,
	segments: CounterVec<U64>,
	challenges: Counter<U64>,
	job_seconds: CounterVec<F64>,
	earned: GaugeVec<F64>,
}

impl Metrics {
	/// Registers the metrics in `registry` (none: nothing is recorded).
	pub fn register(registry: Option<&Registry>) -> Result<Self, PrometheusError> {
		let Some(r) = registry else { return Ok(Metrics(None)) };
		Ok(Metrics(Some(Inner {
			submitted: register(
				CounterVec::new(
					Opts::new(
						"gensyn_worker_calls_submitted_total",
						"Calls the workers submitted, by role and duty (accept, train, verify, ...)",
					),
					&["role", "duty"],
				)?,
				r,
			)?,
			failed: register(
				CounterVec::new(
					Opts::new("gensyn_worker_jobs_failed_total", "Worker jobs that failed, by role"),
					&["role"],
				)?,
				r,
			)?,
			steps_per_second: register(
				Gauge::new(
					"gensyn_worker_train_steps_per_second",
					"Training speed of the solver's last finished task",
				)?,
				r,
			)?,
			segments: register(
				CounterVec::new(
					Opts::new(
						"gensyn_worker_segments_replayed_total",
						"Segments replayed (verifier, whistleblower), by outcome (pass, fail)",
					),
					&["verdict"],
				)?,
				r,
			)?,
			challenges: register(
				Counter::new(
					"gensyn_worker_challenges_total",
					"Verdicts the whistleblower found wrong and challenged",
				)?,
				r,
			)?,
			job_seconds: register(
				CounterVec::new(
					Opts::new(
						"gensyn_worker_job_seconds_total",
						"Wall time the workers' jobs took, by role and duty (training, replays, moves)",
					),
					&["role", "duty"],
				)?,
				r,
			)?,
			earned: register(
				GaugeVec::new(
					Opts::new(
						"gensyn_worker_earned_tokens",
						"What the worker account has earned in its role so far (tokens)",
					),
					&["role"],
				)?,
				r,
			)?,
		})))
	}

	/// A call went to the pool.
	pub fn submitted(&self, role: &str, duty: &str) {
		if let Some(m) = &self.0 {
			m.submitted.with_label_values(&[role, duty]).inc();
		}
	}

	/// A job failed.
	pub fn job_failed(&self, role: &str) {
		if let Some(m) = &self.0 {
			m.failed.with_label_values(&[role]).inc();
		}
	}

	/// A training run finished at this speed.
	pub fn trained(&self, steps_per_second: f64) {
		if let Some(m) = &self.0 {
			m.steps_per_second.set(steps_per_second);
		}
	}

	/// A segment was replayed.
	pub fn replayed(&self, passed: bool) {
		if let Some(m) = &self.0 {
			m.segments.with_label_values(&[if passed { "pass" } else { "fail" }]).inc();
		}
	}

	/// A job of `role` for a duty of kind `duty` took `seconds`.
	pub fn job_took(&self, role: &str, duty: &str, seconds: f64) {
		if let Some(m) = &self.0 {
			m.job_seconds.with_label_values(&[role, duty]).inc_by(seconds);
		}
	}

	/// A verdict was challenged.
	pub fn challenged(&self) {
		if let Some(m) = &self.0 {
			m.challenges.inc();
		}
	}

	/// The role's earnings so far, in planck.
	pub fn earned(&self, role: &str, planck: u128) {
		if let Some(m) = &self.0 {
			m.earned.with_label_values(&[role]).set(planck as f64 / gensyn_runtime::UNIT as f64);
		}
	}
}
