//! The profit table: each strategy's profit per task set against honest play in the same
//! run, with a 95% interval (Student's t) from batch means over windows of the run.

use crate::world::{Strategy, World};
use frame_support::traits::fungible::Inspect;
use gensyn_runtime::{Balances, UNIT};
use pallet_gensyn_stake::Role;
use std::collections::BTreeSet;

/// What a strategy's profit is set against.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Baseline {
	/// What honest parties in the same roles earned per task in the same window.
	HonestPlay,
	/// Nothing: the party's honest alternative is to stay out (a griefer wants no model).
	Abstain,
	/// The row is honest play itself, shown as an absolute profit.
	Absolute,
}

/// One line of the table: the strategies of a party (two for a coalition).
pub struct Row {
	/// What the line is called.
	pub name: &'static str,
	/// The strategies whose accounts are the party (for an absolute line: `Honest` in
	/// `role`).
	pub members: Vec<Strategy>,
	/// For an absolute line, the honest role it shows.
	pub role: Option<Option<Role>>,
	/// What its profit is set against.
	pub baseline: Baseline,
}

/// The lines: honest play per role, then every deviation simulated.
pub fn rows() -> Vec<Row> {
	use Strategy::*;
	let honest = |name, role| Row {
		name,
		members: vec![Honest],
		role: Some(role),
		baseline: Baseline::Absolute,
	};
	let dev = |name, members: Vec<Strategy>| Row {
		name,
		members,
		role: None,
		baseline: Baseline::HonestPlay,
	};
	vec![
		honest("honest solver", Some(Role::Solver)),
		honest("honest verifier", Some(Role::Verifier)),
		honest("honest whistleblower", Some(Role::Whistleblower)),
		honest("honest submitter (model at its price)", None),
		dev("lazy solver", vec![LazySolver]),
		dev("partial faker 1%", vec![Faker(1)]),
		dev("partial faker 10%", vec![Faker(10)]),
		dev("partial faker 50%", vec![Faker(50)]),
		dev("colluding solver + bribed verifier", vec![ColludingSolver, BribedVerifier]),
		dev("contesting faker 50%", vec![ContestingFaker]),
		dev("lazy verifier", vec![LazyVerifier]),
		dev("silent verifier", vec![SilentVerifier]),
		dev("verifier + its own whistleblower", vec![PartneredVerifier, OwnWhistleblower]),
		dev("copycat whistleblower", vec![Copycat]),
		dev("spam challenger", vec![Spammer]),
		Row {
			name: "griefing submitter",
			members: vec![Griefer],
			role: None,
			baseline: Baseline::Abstain,
		},
	]
}

/// Each account's net worth (balance, held included, plus value received, less costs)
/// and task count at one point of the run, and each row's distinct task count.
pub struct Snapshot {
	net: Vec<i128>,
	tasks: Vec<u64>,
	row_tasks: Vec<u64>,
}

/// The accounts of `row`.
fn accounts(w: &World, row: &Row) -> Vec<usize> {
	(0..w.cast.len())
		.filter(|i| {
			let m = &w.cast[*i];
			row.members.contains(&m.strategy) && row.role.is_none_or(|r| m.role == r)
		})
		.collect()
}

/// The state of the run now.
pub fn snapshot(w: &World, rows: &[Row]) -> Snapshot {
	let net = w
		.cast
		.iter()
		.map(|m| {
			let balance = Balances::total_balance(&m.who) as i128;
			let credit = w.credit.get(&m.who).copied().unwrap_or_default() as i128;
			balance + credit - w.costs.get(&m.who).copied().unwrap_or_default() as i128
		})
		.collect();
	let tasks =
		w.cast.iter().map(|m| w.touched.get(&m.who).map_or(0, |t| t.len() as u64)).collect();
	let row_tasks = rows
		.iter()
		.map(|r| {
			let mut all = BTreeSet::new();
			for i in accounts(w, r) {
				all.extend(w.touched.get(&w.cast[i].who).into_iter().flatten().copied());
			}
			all.len() as u64
		})
		.collect();
	Snapshot { net, tasks, row_tasks }
}

/// One line's result, in GSN per task.
#[derive(Debug, Clone)]
pub struct Line {
	/// The row's name.
	pub name: &'static str,
	/// Tasks the party took part in.
	pub tasks: u64,
	/// Profit per task (against the baseline).
	pub mean: f64,
	/// Half the width of the 95% interval.
	pub half: f64,
	/// The row is a deviation (not honest play).
	pub deviation: bool,
}

/// Honest parties' profit per task in `role` between two snapshots: (profit, tasks).
fn honest_rate(w: &World, a: &Snapshot, b: &Snapshot, role: Option<Role>) -> f64 {
	let (mut d, mut n) = (0i128, 0u64);
	for (i, m) in w.cast.iter().enumerate() {
		if m.strategy == Strategy::Honest && m.role == role {
			d += b.net[i] - a.net[i];
			n += b.tasks[i] - a.tasks[i];
		}
	}
	if n == 0 {
		0.0
	} else {
		d as f64 / n as f64
	}
}

/// Every row's profit per task over the windows between consecutive snapshots.
pub fn lines(w: &World, rows: &[Row], snaps: &[Snapshot]) -> Vec<Line> {
	let unit = UNIT as f64;
	rows.iter()
		.enumerate()
		.map(|(r, row)| {
			let members = accounts(w, row);
			// Per window: the party's excess over its baseline, and its tasks.
			let per: Vec<(f64, f64)> = snaps
				.windows(2)
				.map(|s| {
					let (a, b) = (&s[0], &s[1]);
					let mut d = 0.0;
					for &i in &members {
						let delta = (b.net[i] - a.net[i]) as f64;
						let tasks = (b.tasks[i] - a.tasks[i]) as f64;
						let reference = match row.baseline {
							Baseline::HonestPlay => honest_rate(w, a, b, w.cast[i].role),
							Baseline::Abstain | Baseline::Absolute => 0.0,
						};
						d += delta - tasks * reference;
					}
					let n = match row.baseline {
						Baseline::Absolute => {
							members.iter().map(|&i| (b.tasks[i] - a.tasks[i]) as f64).sum()
						}
						_ => (b.row_tasks[r] - a.row_tasks[r]) as f64,
					};
					(d / unit, n)
				})
				.collect();
			let (sd, sn): (f64, f64) = per.iter().fold((0.0, 0.0), |(x, y), (d, n)| (x + d, y + n));
			let mean = if sn > 0.0 { sd / sn } else { 0.0 };
			// The ratio estimator's variance from the windows' residuals.
			let k = per.len() as f64;
			let resid: f64 = per.iter().map(|(d, n)| (d - mean * n).powi(2)).sum();
			let var =
				if sn > 0.0 && k > 1.0 { k / (k - 1.0) * resid / (sn * sn) } else { f64::INFINITY };
			Line {
				name: row.name,
				tasks: sn as u64,
				mean,
				half: t95(k - 1.0) * var.sqrt(),
				deviation: row.baseline != Baseline::Absolute,
			}
		})
		.collect()
}

/// Student's t quantile for a two-sided 95% interval with `df` degrees of freedom
/// (a Cornish-Fisher expansion around the normal 1.96: 2.093 for 19, as tables give it;
/// a little low below 10, 2.547 for 2.571 at 5).
fn t95(df: f64) -> f64 {
	let z: f64 = 1.959_964;
	if df < 1.0 {
		return f64::INFINITY;
	}
	z + (z.powi(3) + z) / (4.0 * df)
		+ (5.0 * z.powi(5) + 16.0 * z.powi(3) + 3.0 * z) / (96.0 * df * df)
}

/// The table as text; its last line says whether every deviation's whole interval is
/// below zero.
pub fn render(lines: &[Line]) -> String {
	let mut out = format!(
		"{:<42} {:>7} {:>14} {:>24}\n",
		"strategy", "tasks", "GSN per task", "95% interval"
	);
	for l in lines {
		let kind = if l.deviation { "" } else { " (absolute)" };
		out += &format!(
			"{:<42} {:>7} {:>14.3} {:>11.3} .. {:>9.3}\n",
			format!("{}{kind}", l.name),
			l.tasks,
			l.mean,
			l.mean - l.half,
			l.mean + l.half
		);
	}
	let all = lines.iter().filter(|l| l.deviation).all(|l| l.tasks > 0 && l.mean + l.half < 0.0);
	out += &format!("every deviation < 0: {}\n", if all { "yes" } else { "no" });
	out
}
