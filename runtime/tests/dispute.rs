//! A challenged verdict through the whole runtime: the tasks pallet opens a pinpoint game
//! in the arbitration pallet, the game ends (a verifier that posted a wrong replay stays
//! silent; a false challenger concedes), the tasks pallet hears the outcome and the stake
//! pallet slashes the loser. Blocks run through `Executive`; issuance always equals the
//! sum of all balances, and held game bonds match the open games.

mod common;

use common::{bond_of, check_conservation, now, phase, register, run_until, signed, spec, who};
use frame_support::traits::{
	fungible::{Inspect, InspectHold},
	Get,
};
use gensyn_primitives::{fixtures, merkle};
use gensyn_runtime::{
	configs::MOVE_TIMEOUT, Arbitration, Balances, Jackpot, Runtime, RuntimeOrigin, Tasks, UNIT,
};
use pallet_gensyn_stake::Role;
use pallet_gensyn_tasks::{CheckpointProof, Phase};
use sp_keyring::Sr25519Keyring;

#[test]
fn a_wrong_verdict_loses_its_game_and_a_false_challenge_is_slashed() {
	use Sr25519Keyring::{Charlie, Dave};
	common::new_ext("development").execute_with(|| {
		common::run_to_block(1);
		register(Dave, Role::Whistleblower, 50 * UNIT);
		// Charlie fails the first audited segment with a replay no checkpoint has and
		// passes the other, then reveals: a refuted verdict is then judged at once.
		let (id, wrong) = failed_after_reveal(100 * UNIT);
		let audits = pallet_gensyn_tasks::Audits::<Runtime>::get(id);
		assert_eq!(audits.len(), 2);
		let right = audits.iter().map(|a| a.segment).find(|s| *s != wrong).expect("a pass");
		check_conservation();

		// Dave challenges the wrong verdict: a game opens and holds his bond.
		let dave_free = Balances::balance(&who(Dave));
		Tasks::challenge(signed(Dave), id, wrong).expect("challenge opens a game");
		assert_eq!(phase(id), Some(Phase::Disputed));
		let game = pallet_gensyn_arbitration::Disputes::<Runtime>::get((id, wrong)).expect("game");
		assert_eq!(game.defendant, who(Charlie));
		assert_eq!(Balances::balance(&who(Dave)), dave_free - game.bond);
		check_conservation();

		// Charlie cannot prove a replay he never made: he stays silent and loses.
		let charlie_bond = bond_of(Charlie, Role::Verifier);
		let slash: u128 = <Runtime as pallet_gensyn_tasks::Config>::WrongVerdictSlash::get();
		common::run_to_block(now() + MOVE_TIMEOUT + 1);
		assert!(pallet_gensyn_arbitration::Disputes::<Runtime>::get((id, wrong)).is_none());
		assert_eq!(bond_of(Charlie, Role::Verifier), charlie_bond - slash);
		let audits = pallet_gensyn_tasks::Audits::<Runtime>::get(id);
		assert!(audits.iter().any(|a| a.segment == wrong && a.overturned));
		// Dave gets his bond back and the reporter's share of the slash.
		let share = <Runtime as pallet_gensyn_stake::Config>::ReporterShare::get() * slash;
		assert_eq!(Balances::balance(&who(Dave)), dave_free + share);
		assert_eq!(phase(id), Some(Phase::Challenge));
		check_conservation();

		// Dave challenges the right verdict too, then concedes: he is slashed and his
		// game bond goes to Charlie.
		let dave_bond = bond_of(Dave, Role::Whistleblower);
		let charlie_free = Balances::balance(&who(Charlie));
		Tasks::challenge(signed(Dave), id, right).expect("challenge opens a game");
		let bond =
			pallet_gensyn_arbitration::Disputes::<Runtime>::get((id, right)).expect("game").bond;
		Arbitration::concede(signed(Dave), id, right).expect("concedes");
		let false_slash: u128 =
			<Runtime as pallet_gensyn_tasks::Config>::FalseChallengeSlash::get();
		assert_eq!(bond_of(Dave, Role::Whistleblower), dave_bond - false_slash);
		let charlie_share =
			<Runtime as pallet_gensyn_stake::Config>::ReporterShare::get() * false_slash;
		assert_eq!(Balances::balance(&who(Charlie)), charlie_free + bond + charlie_share);
		assert!(pallet_gensyn_arbitration::Disputes::<Runtime>::iter().next().is_none());
		check_conservation();
	});
}

/// An honest solver that keeps less free balance than a game bond (all else it has is
/// bonded, past what its task could be slashed) still contests a wrong fail on its task:
/// its stake backs the game, which holds no bond of its. The verifier that lied is
/// slashed, part of it to the solver; the solver's bond and balance do not fall.
#[test]
fn a_solver_with_no_free_balance_for_a_game_bond_still_contests_a_wrong_fail() {
	use Sr25519Keyring::{Bob, Charlie};
	common::new_ext("development").execute_with(|| {
		let (id, wrong) = failed_after_reveal(200 * UNIT);

		// Bob keeps a fifth of a game bond free.
		let game_bond: u128 = <Runtime as pallet_gensyn_arbitration::Config>::GameBond::get();
		Balances::force_set_balance(RuntimeOrigin::root(), who(Bob).into(), game_bond / 5)
			.expect("root sets a balance");
		let bob = (Balances::total_balance(&who(Bob)), bond_of(Bob, Role::Solver));
		let charlie_bond = bond_of(Charlie, Role::Verifier);
		Tasks::challenge(signed(Bob), id, wrong).expect("the solver contests");
		let game = pallet_gensyn_arbitration::Disputes::<Runtime>::get((id, wrong)).expect("game");
		assert_eq!(game.bond, 0);
		check_conservation();

		// Charlie cannot prove the replay: he loses the game and his slash.
		common::run_to_block(now() + MOVE_TIMEOUT + 1);
		assert!(pallet_gensyn_arbitration::Disputes::<Runtime>::get((id, wrong)).is_none());
		let slash: u128 = <Runtime as pallet_gensyn_tasks::Config>::WrongVerdictSlash::get();
		assert_eq!(bond_of(Charlie, Role::Verifier), charlie_bond - slash);
		assert_eq!(bond_of(Bob, Role::Solver), bob.1);
		assert!(Balances::total_balance(&who(Bob)) > bob.0, "the reporter's share");
		check_conservation();
	});
}

/// A faker bonded no more than its task could be slashed contests a fail that is true:
/// its bond, which the rejection takes whole, backs no more, so the game holds its game
/// bond as a whistleblower's, and conceding costs it that bond (to the verifier) and the
/// false-challenge slash on top of what not contesting would have cost.
#[test]
fn a_faker_bonded_only_for_its_task_pays_a_game_bond_to_contest_a_true_fail() {
	use Sr25519Keyring::{Bob, Charlie};
	common::new_ext("development").execute_with(|| {
		let min: u128 = <Runtime as pallet_gensyn_stake::Config>::MinSolverBond::get();
		// Bob's first audited segment is a fake: Charlie's true replay fails it.
		let (id, faked) = failed_after_reveal(min);

		let game_bond: u128 = <Runtime as pallet_gensyn_arbitration::Config>::GameBond::get();
		let (bob, charlie) =
			(Balances::total_balance(&who(Bob)), Balances::free_balance(who(Charlie)));
		let bob_free = Balances::free_balance(who(Bob));
		Tasks::challenge(signed(Bob), id, faked).expect("the solver contests");
		let game = pallet_gensyn_arbitration::Disputes::<Runtime>::get((id, faked)).expect("game");
		assert_eq!(game.bond, game_bond);
		assert_eq!(Balances::free_balance(who(Bob)), bob_free - game_bond);
		check_conservation();

		// Bob cannot defend his fake: he concedes.
		Arbitration::concede(signed(Bob), id, faked).expect("concedes");
		let slash: u128 = <Runtime as pallet_gensyn_tasks::Config>::FalseChallengeSlash::get();
		let share = <Runtime as pallet_gensyn_stake::Config>::ReporterShare::get() * slash;
		assert_eq!(Balances::total_balance(&who(Bob)), bob - game_bond - slash);
		assert_eq!(Balances::free_balance(who(Charlie)), charlie + game_bond + share);
		check_conservation();
	});
}

/// A task the pinpoint game could not rule on is refused at submission, with its named
/// error and nothing held: gzipped data (a game cannot read a batch value at a fixed
/// offset of it), more samples than a game replays (`MaxDataSamples`), a segment
/// longer than a defendant replays within a move deadline (`MaxSegmentGas`), and a step
/// with no op graph (an image model trained with AdamW). A language model is taken.
#[test]
fn specs_the_game_cannot_rule_on_are_refused() {
	use gensyn_primitives::DataFormat;
	common::new_ext("development").execute_with(|| {
		common::run_to_block(1);
		let max: u32 = <Runtime as pallet_gensyn_arbitration::Config>::MaxDataSamples::get();
		let gzipped = fixtures::with(spec(), |s| s.data.format = DataFormat::MnistIdxGz);
		let too_many = fixtures::with(spec(), |s| s.data.samples = max + 1);
		// One segment of a whole 100-epoch MNIST MLP run: more gas than a move deadline
		// replays.
		let too_long = fixtures::with(fixtures::mnist_mlp(), |s| {
			s.training.epochs = 100;
			s.training.checkpoint_interval = s.total_steps() as u32;
		});
		let work = gensyn_primitives::segment_work(&too_long).expect("a valid spec");
		let max_gas: u64 = <Runtime as pallet_gensyn_arbitration::Config>::MaxSegmentGas::get();
		assert!(work.gas > max_gas, "{work:?}");
		// An image model trained with AdamW: a valid spec, but its step has no op graph.
		let adamw = fixtures::with(spec(), |s| {
			s.training.optimizer = gensyn_primitives::Optimizer::AdamW {
				lr: 0.01f32.into(),
				beta1: 0.9f32.into(),
				beta2: 0.99f32.into(),
				eps: 1e-8f32.into(),
				weight_decay: 0.01f32.into(),
				max_grad_norm: 1.0f32.into(),
			}
		});
		adamw.validate().expect("a valid spec");
		for bad in [gzipped, too_many, too_long, adamw] {
			let held = Balances::total_balance_on_hold(&who(Sr25519Keyring::Alice));
			assert_eq!(
				Tasks::submit_task(signed(Sr25519Keyring::Alice), bad),
				Err(pallet_gensyn_tasks::Error::<Runtime>::SpecNotDisputable.into())
			);
			assert_eq!(Balances::total_balance_on_hold(&who(Sr25519Keyring::Alice)), held);
		}
		Tasks::submit_task(signed(Sr25519Keyring::Alice), spec()).expect("the spec is valid");
		// A language model's step is a graph the game plays: the chain takes it.
		Tasks::submit_task(signed(Sr25519Keyring::Alice), fixtures::tiny_lm())
			.expect("a language model is taken");
	});
}

/// Bob, bonded `solver_bond` as a solver, trains a task and Charlie, its verifier, fails
/// its first audited segment (a replay hash no checkpoint has) and passes the other, then
/// reveals his secret once reveals open, so that Bob may contest the fail; returns the
/// task and the failed segment. No segment is forced.
fn failed_after_reveal(solver_bond: u128) -> (u64, u32) {
	use Sr25519Keyring::{Alice, Bob, Charlie};
	common::run_to_block(1);
	register(Bob, Role::Solver, solver_bond);
	register(Charlie, Role::Verifier, 100 * UNIT);
	let id = pallet_gensyn_tasks::NextTaskId::<Runtime>::get();
	Tasks::submit_task(signed(Alice), spec()).expect("the spec is valid");
	no_forced_errors();
	let secret = [1u8; 32];
	Jackpot::commit(signed(Charlie), merkle::blake2_256(&secret)).expect("commits");
	run_until(50, || phase(id) == Some(Phase::Offered));
	Tasks::accept_task(signed(Bob), id).expect("accepts");
	let leaves: Vec<[u8; 32]> = (0u8..3).map(|i| merkle::hash_leaf(&[i])).collect();
	let location = b"/runs/0".to_vec().try_into().expect("short location");
	let root = merkle::root(&leaves);
	Tasks::submit_result(signed(Bob), id, leaves[2], root, 3, location).expect("result");
	run_until(50, || phase(id) == Some(Phase::Verifying));
	let audits = pallet_gensyn_tasks::Audits::<Runtime>::get(id);
	let failed = audits[0].segment;
	for a in &audits {
		let seg = a.segment as usize;
		let truth = leaves[seg + 1];
		let replay = if a.segment == failed { [7u8; 32] } else { truth };
		let siblings = merkle::proof(&leaves, seg + 1).expect("leaf").siblings;
		let proof = CheckpointProof {
			checkpoint_hash: truth,
			siblings: siblings.try_into().expect("short"),
		};
		Tasks::submit_verification(signed(Charlie), id, a.segment, 0, replay, proof)
			.expect("verdict");
	}
	assert_eq!(phase(id), Some(Phase::Challenge));
	// Reveals open in the window's last third, which the chain fixes; Charlie reveals as
	// soon as they do.
	let not_open = pallet_gensyn_jackpot::Error::<Runtime>::RevealNotOpen;
	assert_eq!(Jackpot::reveal(signed(Charlie), id, secret), Err(not_open.into()));
	let from = pallet_gensyn_tasks::RevealsFrom::<Runtime>::get(id).expect("a window");
	common::run_to_block(from);
	Jackpot::reveal(signed(Charlie), id, secret).expect("reveals");
	(id, failed)
}

/// Sets the forced-error rate to zero, as root would through the parameters pallet.
fn no_forced_errors() {
	use gensyn_runtime::configs::{dynamic_params::jackpot, RuntimeParameters};
	let p =
		jackpot::Parameters::ForcedErrorRate(jackpot::ForcedErrorRate, Some(Default::default()));
	gensyn_runtime::Parameters::set_parameter(
		gensyn_runtime::RuntimeOrigin::root(),
		RuntimeParameters::Jackpot(p),
	)
	.expect("root sets a parameter");
}
