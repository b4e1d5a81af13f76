//! A property test over random action sequences.

use super::*;

/// A small deterministic RNG for the property test.
struct Rng(u64);
impl Rng {
	fn next(&mut self) -> u64 {
		self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
		let mut z = self.0;
		z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
		z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
		z ^ (z >> 31)
	}
	fn below(&mut self, n: u64) -> u64 {
		self.next() % n.max(1)
	}
}

/// Random sequences of submit, register, accept, result, verify, challenge, rule,
/// cancel and timeouts: invariants hold after every block, every deadline moves its
/// task, and at the end every escrow is gone and every engagement released.
#[test]
fn property_random_action_sequences_conserve_funds() {
	// How often each outcome happened over all seeds, so the test cannot pass vacuously.
	let mut seen = [0u32; 5];
	for seed in 0..40u64 {
		// Half the seeds run with the real jackpot and a 30% forced-error rate, a third
		// with profiling.
		let real = seed % 2 == 1;
		let mut ext = ExtBuilder::default().salt(seed);
		if real {
			ext = ext.jackpot(sp_runtime::Perbill::from_percent(30));
		}
		if seed % 3 == 0 {
			ext = ext.profile(4);
		}
		ext.build().execute_with(|| {
			let mut rng = Rng(seed);
			// A base crew: solvers 2..=4, verifiers 5..=8, whistleblowers 9..=10.
			for a in 2..=4 {
				reg(a, Role::Solver);
			}
			for a in 5..=8 {
				reg(a, Role::Verifier);
				let _ = JackpotPallet::commit(
					RuntimeOrigin::signed(a),
					sp_io::hashing::blake2_256(&[a as u8; 32]),
				);
			}
			for a in 9..=10 {
				reg(a, Role::Whistleblower);
			}
			for _ in 0..240 {
				let ids: Vec<TaskId> = Tasks::<T>::iter_keys().collect();
				let pick = |rng: &mut Rng| ids.get(rng.below(ids.len() as u64) as usize).copied();
				let who = 1 + rng.below(ACCOUNTS);
				// Results of calls are ignored: invalid actions must fail cleanly.
				match rng.below(13) {
					11 => {
						let v = if rng.below(4) == 0 { who } else { 5 + rng.below(4) };
						let _ = JackpotPallet::commit(
							RuntimeOrigin::signed(v),
							sp_io::hashing::blake2_256(&[v as u8; 32]),
						);
					}
					12 => {
						if let Some(id) = pick(&mut rng) {
							for a in Audits::<T>::get(id) {
								let _ = JackpotPallet::reveal(
									RuntimeOrigin::signed(a.verifier),
									id,
									[a.verifier as u8; 32],
								);
							}
						}
					}
					0 => {
						let s = spec_with(|s| {
							s.verification.audit_fraction =
								SpecPermill(1 + rng.below(1_000_000) as u32);
							if rng.below(2) == 0 {
								s.verification.mode = VerificationMode::Exact;
							}
						});
						let _ = TaskPallet::submit_task(RuntimeOrigin::signed(who), s);
					}
					1 => {
						let role = [Role::Solver, Role::Verifier, Role::Whistleblower]
							[rng.below(3) as usize];
						let _ = Stake::register(
							RuntimeOrigin::signed(who),
							role,
							1_000,
							cap(16_384),
							BoundedVec::truncate_from(b"e".to_vec()),
						);
					}
					2 => {
						if let Some(id) = pick(&mut rng) {
							let s = task(id).solver.unwrap_or(who);
							let _ = TaskPallet::accept_task(RuntimeOrigin::signed(s), id);
							let pending =
								task(id).profilers.into_iter().find(|p| p.threshold.is_none());
							let p = pending.map(|p| p.who).unwrap_or(who);
							let t = rng.below(4) as f32;
							// Commits, or reveals once reveals are open (the same value:
							// a wrong one is refused, and a zero fails as invalid).
							let _ = commit_threshold(p, id, t);
							let _ = reveal_threshold(p, id, t);
						}
					}
					3 => {
						if let Some(id) = pick(&mut rng) {
							let t = task(id);
							let s = t.solver.unwrap_or(who);
							let _ = TaskPallet::submit_result(
								RuntimeOrigin::signed(s),
								id,
								[0; 32],
								merkle::root(&leaves(t.checkpoints)),
								t.checkpoints,
								BoundedVec::default(),
							);
						}
					}
					4 => {
						if let Some(id) = pick(&mut rng) {
							let n = task(id).checkpoints;
							let audits = Audits::<T>::get(id);
							if let Some(a) = audits.get(rng.below(audits.len() as u64) as usize) {
								let p = proof_for(n, a.segment);
								let honest = rng.below(3) != 0;
								let replay = if honest { p.checkpoint_hash } else { [7; 32] };
								let dist = if honest { 0 } else { 0x4100_0000 };
								let _ = TaskPallet::submit_verification(
									RuntimeOrigin::signed(a.verifier),
									id,
									a.segment,
									dist,
									replay,
									p,
								);
							}
						}
					}
					5 => {
						if let Some(id) = pick(&mut rng) {
							let audits = Audits::<T>::get(id);
							if let Some(a) = audits.get(rng.below(audits.len() as u64) as usize) {
								let c = match rng.below(4) {
									0 => task(id).solver.unwrap_or(who),
									1 => who,
									_ => 9 + rng.below(2),
								};
								let _ =
									TaskPallet::challenge(RuntimeOrigin::signed(c), id, a.segment);
							}
						}
					}
					6 => {
						let open = DISPUTES.with(|d| d.borrow().clone());
						if let Some(&(id, seg, _, _)) =
							open.get(rng.below(open.len() as u64) as usize)
						{
							if <TaskPallet as DisputeOutcome>::resolve(id, seg, rng.below(2) == 0)
								.is_ok()
							{
								DISPUTES.with(|d| {
									d.borrow_mut().retain(|x| !(x.0 == id && x.1 == seg))
								});
							}
						}
					}
					7 => {
						if let Some(id) = pick(&mut rng) {
							let _ =
								TaskPallet::cancel_task(RuntimeOrigin::signed(task(id).owner), id);
						}
					}
					8 => {
						let role = [Role::Solver, Role::Verifier, Role::Whistleblower]
							[rng.below(3) as usize];
						let _ = Stake::unbond(RuntimeOrigin::signed(who), role);
					}
					_ => {
						let to = System::block_number() + 1 + rng.below(6);
						run_to(to);
					}
				}
				check();
			}
			// Let everything run out: no task may survive its deadlines forever.
			DISPUTES.with(|d| d.borrow_mut().clear());
			// (Two rounds of up to four draws each, every one up to the longest deadline.)
			run_to(System::block_number() + 1_000);
			for e in events() {
				match e {
					Event::TaskCompleted { .. } => seen[0] += 1,
					Event::ProofRejected { .. } => seen[1] += 1,
					Event::TaskFailed { .. } => seen[2] += 1,
					Event::Challenged { .. } => seen[3] += 1,
					Event::TaskCancelled { .. } => seen[4] += 1,
					_ => {}
				}
			}
			assert_eq!(Tasks::<T>::iter().count(), 0, "seed {seed}: a task got stuck");
			for a in 1..=ACCOUNTS {
				assert_eq!(escrow_held(a), 0, "seed {seed}: escrow stranded");
			}
			assert!(WorkerTasks::<T>::iter().next().is_none());
			assert!(pallet_gensyn_stake::Engagements::<T>::iter().next().is_none());
			assert!(pallet_gensyn_jackpot::Bindings::<T>::iter().next().is_none());
			check();
		});
	}
	println!("completed, proofs rejected, failed, challenged, cancelled: {seen:?}");
	assert!(seen.iter().all(|n| *n > 0), "every outcome is exercised: {seen:?}");
}
