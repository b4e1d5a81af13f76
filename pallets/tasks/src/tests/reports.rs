//! Reports whose checkpoints the chain demands. A verifier that reports the solver's
//! store unavailable demands, for nothing, the checkpoints its segment's replay needs: an
//! honest solver publishes them, and a second report then proves nothing, so a false
//! reporter and a re-auditor in league with it cannot have an honest solver slashed; a
//! solver that withholds them is rejected, its reporter paid.

use super::{
	availability::{
		demand_held, fail_run, first_opened, pages, pass_run, publish, settle, tiny, verifying_run,
	},
	*,
};

/// `who` reports `segment` of task `id` unavailable.
fn report(who: u64, id: TaskId, segment: u32) {
	assert_ok!(TaskPallet::report_unavailable(RuntimeOrigin::signed(who), id, segment));
}

/// The solver publishes every checkpoint demanded of task `id`'s run.
fn publish_demanded(spec: &TaskSpec, id: TaskId, leaves: &[[u8; 32]]) {
	for d in Demands::<T>::get(id) {
		for p in &pages(spec, leaves, d.checkpoint) {
			assert_ok!(publish(10, id, d.checkpoint, p));
		}
	}
}

/// The segments of task `id` audited by `who`.
fn segments_of(id: TaskId, who: u64) -> Vec<u32> {
	Audits::<T>::get(id).iter().filter(|a| a.verifier == who).map(|a| a.segment).collect()
}

/// Runs task `id`'s deadlines until `done` holds (at most a few dozen of them).
fn run_until(id: TaskId, done: impl Fn() -> bool) {
	for _ in 0..40 {
		if done() {
			return;
		}
		let Some(t) = Tasks::<T>::get(id) else { return };
		run_to(t.deadline);
	}
	assert!(done(), "task {id} never got there");
}

/// A report demands its segment's start and end checkpoints for nothing, each once,
/// named to its reporter.
#[test]
fn a_report_demands_its_segments_checkpoints_for_nothing() {
	new_test_ext().execute_with(|| {
		let (id, _) = verifying_run(tiny());
		let a = Audits::<T>::get(id)[0].clone();
		report(a.verifier, id, a.segment);
		let demanded: Vec<(u32, u64, u64)> =
			Demands::<T>::get(id).iter().map(|d| (d.checkpoint, d.by, d.fee)).collect();
		let s = a.segment;
		assert_eq!(demanded, vec![(s, a.verifier, 0), (s + 1, a.verifier, 0)]);
		assert_eq!(demand_held(a.verifier), 0, "nothing held");
		assert!(events().iter().any(|e| matches!(
			e,
			Event::CheckpointDemanded { checkpoint, fee: 0, .. } if *checkpoint == s + 1
		)));
		check();
	});
}

/// The attack: a verifier reports an honest solver's store unavailable, and the
/// re-auditor it gets, in league with it, reports again. On the rule where a second
/// report rejects the proof, the solver lost its bond. Now the report demanded the
/// segments' checkpoints, the solver published them, and the second report proves
/// nothing: another verifier checks the segments from the pages and the solver is paid;
/// with none left, the task ends unpaid and unslashed. The pair gains nothing.
#[test]
fn a_false_reporter_and_its_reauditor_cannot_have_an_honest_solver_slashed() {
	for honest_third in [true, false] {
		new_test_ext().execute_with(|| {
			let spec = tiny();
			let (id, leaves) = verifying_run(spec.clone());
			let reporter = Audits::<T>::get(id)[0].verifier;
			let other = if reporter == 11 { 12 } else { 11 };
			// 14 is the reporter's partner, the only verifier a re-audit can draw.
			reg(14, Role::Verifier);
			let (solver, bond, pair) =
				(worth(10), Stake::bond(&10, Role::Solver), worth_of(&[reporter, 14]));
			let mine = segments_of(id, reporter);
			for s in &mine {
				report(reporter, id, *s);
			}
			for s in segments_of(id, other) {
				pass_run(id, other, s, &leaves);
			}
			publish_demanded(&spec, id, &leaves);
			run_until(id, || segments_of(id, 14).len() == mine.len());
			for s in &mine {
				report(14, id, *s);
			}
			if honest_third {
				reg(15, Role::Verifier);
			}
			run_until(id, || !segments_of(id, 15).is_empty() || Tasks::<T>::get(id).is_none());
			for s in segments_of(id, 15) {
				pass_run(id, 15, s, &leaves);
			}
			run_until(id, || Tasks::<T>::get(id).is_none());
			assert!(!events().iter().any(|e| matches!(e, Event::ProofRejected { .. })));
			assert_eq!(Stake::bond(&10, Role::Solver), bond, "the honest solver keeps its bond");
			if honest_third {
				assert!(events().iter().any(|e| matches!(e, Event::TaskCompleted { .. })));
				assert!(worth(10) > solver, "paid for the work checked from the pages");
			} else {
				let unverified = |e: &Event<T>| {
					matches!(e, Event::TaskFailed { reason: FailReason::Unverified, .. })
				};
				assert!(events().iter().any(unverified));
				assert_eq!(worth(10), solver, "neither paid nor slashed");
			}
			assert!(worth_of(&[reporter, 14]) <= pair, "the pair gains nothing");
			check();
		});
	}
}

/// A solver that withholds a reported segment's checkpoints from everyone: one report
/// is enough, with no second verifier, since the demand it made goes unanswered. The
/// proof is rejected, the solver loses its bond, its reporter gains the bounty, and the
/// owner pays nothing.
#[test]
fn a_solver_withholding_a_reported_segments_checkpoints_is_rejected_and_its_reporter_paid() {
	new_test_ext().execute_with(|| {
		let (id, leaves) = verifying_run(tiny());
		let reporter = Audits::<T>::get(id)[0].verifier;
		let other = if reporter == 11 { 12 } else { 11 };
		let (solver, owner, earned) = (worth(10), worth(1), worth(reporter));
		let s = segments_of(id, reporter)[0];
		report(reporter, id, s);
		for seg in segments_of(id, reporter).into_iter().filter(|x| *x != s) {
			pass_run(id, reporter, seg, &leaves);
		}
		for seg in segments_of(id, other) {
			pass_run(id, other, seg, &leaves);
		}
		settle(id);
		let withheld = Event::CheckpointWithheld { id, checkpoint: s, by: reporter };
		assert!(events().contains(&withheld));
		assert!(events()
			.iter()
			.any(|e| matches!(e, Event::ProofRejected { id: i, solver: 10, .. } if *i == id)));
		assert!(!events().iter().any(|e| matches!(e, Event::Reaudited { .. })), "no re-audit");
		assert!(worth(10) + 100 <= solver, "the withholder loses its bond");
		assert_eq!(worth(reporter), earned + 10, "the reporter gains the bounty");
		assert_eq!(worth(1), owner, "the owner pays nothing");
		check();
	});
}

/// A lazy solver's partner verifier reports a segment early, for nothing; when an honest
/// verifier fails another, the solver withholds the reported checkpoints so that the
/// partner, as the first demander, would take the bounty in the honest verifier's place.
/// A counted fail decides first: its verifier reports the fault and is paid, the
/// partner gains nothing.
#[test]
fn a_partners_report_does_not_take_a_caught_fakes_reward_from_its_verifier() {
	new_test_ext().execute_with(|| {
		let (id, leaves) = verifying_run(tiny());
		let partner = Audits::<T>::get(id)[0].verifier;
		let honest = if partner == 11 { 12 } else { 11 };
		let (before_partner, before_honest) = (worth(partner), worth(honest));
		let pay = task(id).segment_pay;
		let reported = segments_of(id, partner)[0];
		let passes = segments_of(id, partner).len() as u64 - 1;
		report(partner, id, reported);
		for s in segments_of(id, partner).into_iter().filter(|s| *s != reported) {
			pass_run(id, partner, s, &leaves);
		}
		let mut caught = false;
		for s in segments_of(id, honest) {
			if caught {
				pass_run(id, honest, s, &leaves);
				continue;
			}
			fail_run(id, honest, s, &leaves);
			caught = true;
		}
		run_until(id, || Tasks::<T>::get(id).is_none_or(|t| t.phase != Phase::Challenge));
		assert!(events()
			.iter()
			.any(|e| matches!(e, Event::ProofRejected { id: i, solver: 10, .. } if *i == id)));
		assert!(!events().iter().any(|e| matches!(e, Event::CheckpointWithheld { .. })));
		assert!(worth(honest) > before_honest + 10, "the honest verifier reports the fault");
		let paid = before_partner + pay * passes;
		assert_eq!(worth(partner), paid, "the partner is paid its passes, no bounty");
		check();
	});
}

/// A report waits for the pages it demanded: a verifier drawn to re-audit the segment
/// before they come could only report again, using a re-audit up. A silent verifier's
/// segments are audited again at the verify deadline; the reported one is not, until
/// its checkpoints are published.
#[test]
fn a_reported_segment_is_audited_again_only_once_its_pages_are_in() {
	new_test_ext().execute_with(|| {
		let spec = tiny();
		let (id, leaves) = verifying_run(spec.clone());
		let reporter = Audits::<T>::get(id)[0].verifier;
		let silent = if reporter == 11 { 12 } else { 11 };
		reg(14, Role::Verifier);
		let reported = segments_of(id, reporter)[0];
		report(reporter, id, reported);
		for s in segments_of(id, reporter).into_iter().filter(|s| *s != reported) {
			pass_run(id, reporter, s, &leaves);
		}
		let silenced = segments_of(id, silent);
		assert!(!silenced.is_empty());
		run_to(task(id).deadline);
		let audit_of = |s: u32| Audits::<T>::get(id).into_iter().find(|a| a.segment == s).unwrap();
		assert!(silenced.iter().all(|s| audit_of(*s).verifier == 14), "re-audited at once");
		let r = audit_of(reported);
		assert_eq!((r.verifier, r.reaudits, r.unavailable), (reporter, 0, true), "it waits");
		publish_demanded(&spec, id, &leaves);
		for s in &silenced {
			pass_run(id, 14, *s, &leaves);
		}
		// A verifier never bound to the task, for the report's re-audit.
		reg(15, Role::Verifier);
		run_until(id, || segments_of(id, 15) == vec![reported]);
		assert_eq!(audit_of(reported).reaudits, 1, "drawn once the pages are in");
		check();
	});
}

/// A demand a whistleblower paid for keeps its place ahead of a counted fail: a
/// coalition's fail elsewhere does not take the withheld checkpoint's bounty from it.
#[test]
fn a_paid_demand_withheld_pays_its_demander_whatever_else_failed() {
	new_test_ext().execute_with(|| {
		let (id, leaves) = verifying_run(tiny());
		let audits = Audits::<T>::get(id);
		let (failing, passed) = (audits[0].clone(), audits[1].clone());
		fail_run(id, failing.verifier, failing.segment, &leaves);
		for a in audits.iter().skip(1) {
			pass_run(id, a.verifier, a.segment, &leaves);
		}
		let demander = worth(13);
		assert_ok!(TaskPallet::demand_checkpoint(RuntimeOrigin::signed(13), id, passed.segment));
		settle(id);
		let withheld = Event::CheckpointWithheld { id, checkpoint: passed.segment, by: 13 };
		assert!(events().contains(&withheld), "the paid demand decides");
		assert_eq!(worth(13), demander + 10, "its demander gains the bounty, its fee back");
		check();
	});
}

/// A report's free demand does not take an off-task proof's credit: a partner verifier
/// that reported a segment, whose checkpoint the solver started to publish, gets
/// nothing when another account proves the run off its task from that checkpoint; the
/// prover is paid.
#[test]
fn an_off_task_proof_is_credited_to_its_prover_not_to_a_reports_demand() {
	new_test_ext().execute_with(|| {
		let spec = tiny();
		let (id, leaves) = verifying_run(spec.clone());
		let reporter = Audits::<T>::get(id)[0].verifier;
		let s = segments_of(id, reporter)[0];
		report(reporter, id, s);
		let first = &pages(&spec, &leaves, s)[0];
		assert_ok!(publish(10, id, s, first));
		OFF_TASK_INDEX.with(|i| *i.borrow_mut() = Some(s));
		let proof = OffTaskProof { index: s, ..first_opened() };
		assert_ok!(TaskPallet::prove_off_task(RuntimeOrigin::signed(13), id, proof));
		assert!(events().contains(&Event::RunOffTask { id, by: 13 }), "the prover reports it");
		check();
	});
}
