//! Benchmarks of the arbitration pallet (frame-benchmarking v2). Each call is measured
//! on a real repops run of the prover's fixture task, at the stage it acts on, in its
//! worst case there: 16 posted points, the largest tensor of the step, the data answer
//! (which replays the epoch's shuffle; `s` samples), the first reduction term (which
//! also opens the initial value), and `n` games timing out in one block.

use super::*;
use crate::prover::{fixture_file, fixture_spec, Run};
use frame_benchmarking::v2::*;
use frame_support::traits::{fungible::Mutate, Hooks};
use frame_system::RawOrigin;
use gensyn_primitives::merkle;

const TASK: TaskId = 7;
const SEG: u32 = 1;
const K: u32 = 20;

fn players<T: Config>() -> (T::AccountId, T::AccountId) {
	let c: T::AccountId = account("challenger", 0, 0);
	let d: T::AccountId = account("defendant", 0, 0);
	let plenty = T::GameBond::get().saturating_mul(1_000u32.into());
	T::Currency::set_balance(&c, plenty);
	T::Currency::set_balance(&d, plenty);
	(c, d)
}

fn run() -> Run {
	let file = fixture_file();
	Run::new(fixture_spec(&file, K), file, [9u8; 32], None)
}

fn context(run: &Run) -> DisputeContext {
	let leaves = run.checkpoint_leaves().unwrap();
	DisputeContext {
		spec: run.spec.clone(),
		order_randomness: run.randomness,
		first_step: u64::from(SEG * K),
		steps: u64::from(K),
		checkpoint_root: merkle::root(&leaves),
		checkpoints: leaves.len() as u32,
		claimed_root: run.root(u64::from((SEG + 1) * K)).unwrap(),
		claimed_distance: None,
	}
}

/// Opens a game over `(TASK, segment)` on `ctx` and sets it to `stage`, `posted` and
/// `turn`.
fn game_at<T: Config>(
	segment: u32,
	ctx: DisputeContext,
	stage: Stage,
	posted: Posted,
	turn: Party,
) -> (T::AccountId, T::AccountId) {
	let (c, d) = players::<T>();
	T::BenchmarkHelper::install(TASK, segment, ctx);
	<Pallet<T> as DisputeArbiter<T::AccountId>>::open(TASK, segment, &c, &d)
		.expect("the game opens");
	Disputes::<T>::mutate((TASK, segment), |g| {
		if let Some(g) = g {
			g.stage = stage;
			g.posted = posted;
			g.turn = turn;
		}
	});
	(c, d)
}

/// The largest op output of the fixture's step and its leaf count.
fn largest_tensor(run: &Run, step: u64) -> (u32, u64) {
	let t = run.step_trace(step).unwrap();
	t.graph
		.ops
		.iter()
		.map(|o| (o.output, t.values[o.output as usize].len() as u64))
		.max_by_key(|(_, n)| *n)
		.map(|(id, n)| (id, gensyn_repops::dispute::tensor_chunks(n)))
		.expect("the graph has ops")
}

fn step_roots<T: Config>(run: &Run, step: u64) {
	let roots = run.tensor_roots(step).unwrap();
	StepRoots::<T>::insert((TASK, SEG), BoundedVec::truncate_from(roots));
}

#[benchmarks]
mod benches {
	use super::*;

	#[benchmark]
	fn prove_start() {
		let run = run();
		let (_, d) =
			game_at::<T>(SEG, context(&run), Stage::Start, Posted::Nothing, Party::Defendant);
		let leaves = run.checkpoint_leaves().unwrap();
		let proof = merkle::proof(&leaves, SEG as usize).expect("leaf in range");
		#[extrinsic_call]
		_(
			RawOrigin::Signed(d),
			TASK,
			SEG,
			leaves[SEG as usize],
			BoundedVec::truncate_from(proof.siblings),
		);
		assert!(matches!(
			Disputes::<T>::get((TASK, SEG)).map(|g| g.stage),
			Some(Stage::Steps { .. })
		));
	}

	#[benchmark]
	fn bisect_steps() {
		let run = run();
		let stage = Stage::Steps { lo: 0, hi: u64::from(K), lo_root: [1; 32], hi_root: [2; 32] };
		let (_, d) = game_at::<T>(SEG, context(&run), stage, Posted::Nothing, Party::Defendant);
		let roots = BoundedVec::truncate_from(alloc::vec![[3u8; 32]; MAX_POINTS as usize]);
		#[extrinsic_call]
		_(RawOrigin::Signed(d), TASK, SEG, roots);
		assert_eq!(Disputes::<T>::get((TASK, SEG)).map(|g| g.turn), Some(Party::Challenger));
	}

	#[benchmark]
	fn bisect_reduction() {
		let run = run();
		let stage = Stage::Reduction {
			step: 0,
			tensor: 0,
			elem: 0,
			lo: 0,
			hi: 1_000,
			lo_acc: 0,
			hi_acc: 0,
		};
		let (_, d) = game_at::<T>(SEG, context(&run), stage, Posted::Nothing, Party::Defendant);
		let accs = BoundedVec::truncate_from(alloc::vec![0u32; MAX_POINTS as usize]);
		#[extrinsic_call]
		_(RawOrigin::Signed(d), TASK, SEG, accs);
		assert_eq!(Disputes::<T>::get((TASK, SEG)).map(|g| g.turn), Some(Party::Challenger));
	}

	#[benchmark]
	fn pick() {
		let run = run();
		let stage = Stage::Descend { step: 0, tensor: 0, height: 8, index: 3, node: [0; 32] };
		let kids = BoundedVec::truncate_from(alloc::vec![[5u8; 32]; MAX_POINTS as usize]);
		let (c, _) =
			game_at::<T>(SEG, context(&run), stage, Posted::Roots(kids), Party::Challenger);
		#[extrinsic_call]
		_(RawOrigin::Signed(c), TASK, SEG, MAX_POINTS - 1);
		assert_eq!(Disputes::<T>::get((TASK, SEG)).map(|g| g.turn), Some(Party::Defendant));
	}

	#[benchmark]
	fn open_step() {
		let run = run();
		let step = 3u64;
		let global = u64::from(SEG * K) + step;
		let stage = Stage::OpenStep {
			step,
			lo_root: run.root(global).unwrap(),
			hi_root: run.root(global + 1).unwrap(),
		};
		let (_, d) = game_at::<T>(SEG, context(&run), stage, Posted::Nothing, Party::Defendant);
		let roots = BoundedVec::truncate_from(run.tensor_roots(global).unwrap());
		#[extrinsic_call]
		_(RawOrigin::Signed(d), TASK, SEG, roots);
		assert!(!StepRoots::<T>::get((TASK, SEG)).is_empty());
	}

	#[benchmark]
	fn pick_tensor() {
		let run = run();
		let global = u64::from(SEG * K);
		let (c, _) = game_at::<T>(
			SEG,
			context(&run),
			Stage::PickTensor { step: 0 },
			Posted::Nothing,
			Party::Challenger,
		);
		step_roots::<T>(&run, global);
		let (tensor, _) = largest_tensor(&run, global);
		#[extrinsic_call]
		_(RawOrigin::Signed(c), TASK, SEG, tensor);
		assert!(matches!(
			Disputes::<T>::get((TASK, SEG)).map(|g| g.stage),
			Some(Stage::Descend { .. })
		));
	}

	#[benchmark]
	fn descend() {
		let run = run();
		let global = u64::from(SEG * K);
		let (tensor, leaves) = largest_tensor(&run, global);
		let height = gensyn_repops::dispute::tree_height(leaves);
		let node = run.tensor_roots(global).unwrap()[tensor as usize];
		let stage = Stage::Descend { step: 0, tensor, height, index: 0, node };
		let (_, d) = game_at::<T>(SEG, context(&run), stage, Posted::Nothing, Party::Defendant);
		let nodes = BoundedVec::truncate_from(run.descent(global, tensor, height, 0).unwrap());
		#[extrinsic_call]
		_(RawOrigin::Signed(d), TASK, SEG, nodes);
		assert_eq!(Disputes::<T>::get((TASK, SEG)).map(|g| g.turn), Some(Party::Challenger));
	}

	#[benchmark]
	fn open_chunk() {
		let run = run();
		let global = u64::from(SEG * K);
		let (tensor, _) = largest_tensor(&run, global);
		let values = run.chunk(global, tensor, 0).unwrap();
		let floats: alloc::vec::Vec<f32> = values.iter().map(|b| f32::from_bits(*b)).collect();
		let node = merkle::tensor_leaf(&floats);
		let stage = Stage::Descend { step: 0, tensor, height: 0, index: 0, node };
		let (_, d) = game_at::<T>(SEG, context(&run), stage, Posted::Nothing, Party::Defendant);
		#[extrinsic_call]
		_(RawOrigin::Signed(d), TASK, SEG, BoundedVec::truncate_from(values));
		assert!(!OpenedChunks::<T>::get((TASK, SEG)).is_empty());
	}

	#[benchmark]
	fn pick_element() {
		let run = run();
		let stage = Stage::PickElement { step: 0, tensor: 5, chunk: 2 };
		let (c, _) = game_at::<T>(SEG, context(&run), stage, Posted::Nothing, Party::Challenger);
		OpenedChunks::<T>::insert((TASK, SEG), BoundedVec::truncate_from(alloc::vec![7u32; 64]));
		#[extrinsic_call]
		_(RawOrigin::Signed(c), TASK, SEG, CHUNK_VALUES - 1);
		assert!(matches!(
			Disputes::<T>::get((TASK, SEG)).map(|g| g.stage),
			Some(Stage::Element { .. })
		));
	}

	/// The data answer over a file of `s` samples (no training needed: the stage holds
	/// the value and the chain reads the file's chunk).
	#[benchmark]
	fn answer_element(s: Linear<40, 20_000>) {
		let file = crate::prover::fixture_file_of(s);
		let spec = crate::prover::fixture_spec_of(&file, s, K);
		let randomness = [9u8; 32];
		let step = u64::from(SEG * K);
		let loc = gensyn_repops::dispute::data_location(
			&spec,
			&randomness,
			step,
			gensyn_repops::graph::INPUT,
			0,
		)
		.expect("located");
		let byte = file[loc.offset as usize];
		let ctx = DisputeContext {
			spec,
			order_randomness: randomness,
			first_step: step,
			steps: u64::from(K),
			checkpoint_root: [0; 32],
			checkpoints: 2,
			claimed_root: [0; 32],
			claimed_distance: None,
		};
		let stage = Stage::Element {
			step: 0,
			tensor: gensyn_repops::graph::INPUT,
			elem: 0,
			value: loc.value(byte).to_bits(),
		};
		let (_, d) = game_at::<T>(SEG, ctx, stage, Posted::Nothing, Party::Defendant);
		let (bytes, proof) =
			gensyn_repops::dispute::open_data(&file, loc.chunk()).expect("chunk in range");
		let answer = ElementAnswer::Data(DataOpening {
			bytes: BoundedVec::truncate_from(bytes),
			siblings: BoundedVec::truncate_from(proof.siblings),
		});
		#[extrinsic_call]
		_(RawOrigin::Signed(d), TASK, SEG, answer, s);
		assert!(Disputes::<T>::get((TASK, SEG)).is_none());
	}

	#[benchmark]
	fn open_term() {
		let run = run();
		let global = u64::from(SEG * K);
		let t = run.step_trace(global).unwrap();
		let op = t
			.graph
			.ops
			.iter()
			.find(|o| matches!(o.kind, gensyn_repops::graph::OpKind::LinearFwd { .. }))
			.expect("a linear layer");
		let tensor = op.output;
		let hi_acc =
			run.partials(global, tensor, 0, 0, 2).unwrap().first().copied().unwrap_or_default();
		let stage = Stage::Reduction { step: 0, tensor, elem: 0, lo: 0, hi: 1, lo_acc: 0, hi_acc };
		let (_, d) = game_at::<T>(SEG, context(&run), stage, Posted::Nothing, Party::Defendant);
		step_roots::<T>(&run, global);
		let operands = run.term(global, tensor, 0, 0).unwrap();
		#[extrinsic_call]
		_(RawOrigin::Signed(d), TASK, SEG, operands);
		assert!(Disputes::<T>::get((TASK, SEG)).is_none());
	}

	#[benchmark]
	fn choose() {
		let run = run();
		let mut ctx = context(&run);
		ctx.claimed_distance = Some(0);
		let (c, _) = game_at::<T>(SEG, ctx, Stage::Choose, Posted::Nothing, Party::Challenger);
		#[extrinsic_call]
		_(RawOrigin::Signed(c), TASK, SEG, Subject::Distance);
		assert!(Disputes::<T>::get((TASK, SEG)).is_some_and(|g| g.stage == Stage::Sums));
	}

	#[benchmark]
	fn post_sums() {
		let run = run();
		let (start, end) = run.segment_ends(SEG).unwrap();
		let m = gensyn_repops::threshold::Measured::new(&run.spec, start, end, end).unwrap();
		let sums: Vec<u64> = m.sums().iter().map(|v| v.to_bits()).collect();
		let mut ctx = context(&run);
		ctx.claimed_distance = Some(0);
		let (_, d) = game_at::<T>(SEG, ctx, Stage::Sums, Posted::Nothing, Party::Defendant);
		#[extrinsic_call]
		_(RawOrigin::Signed(d), TASK, SEG, BoundedVec::truncate_from(sums));
		assert!(Disputes::<T>::get((TASK, SEG)).is_some_and(|g| g.posted != Posted::Nothing));
	}

	#[benchmark]
	fn open_sum_term(s: Linear<1, { MAX_CARRY_STEPS as u32 }>) {
		// A work sum's term reads the most values (the replay's, and the start's
		// parameter with its optimizer slots) and carries the optimizer over `s` steps.
		let run = run();
		let end = run.segment_ends(SEG).unwrap().1.clone();
		let leaves = run.checkpoint_leaves().unwrap();
		let mut ctx = context(&run);
		ctx.claimed_distance = Some(0);
		ctx.steps = u64::from(s);
		let order = gensyn_repops::threshold::sums_of(&run.spec);
		let work =
			order.iter().position(|x| matches!(x, gensyn_repops::threshold::Sum::Work(_))).unwrap()
				as u32;
		let stage = Stage::Sum { sum: work, lo: 0, hi: 1, lo_acc: 0, hi_acc: 0 };
		let (_, d) = game_at::<T>(SEG, ctx, stage, Posted::Nothing, Party::Defendant);
		let table = prover::Table {
			task: TASK,
			segment: SEG,
			first_step: u64::from(SEG * K),
			stage,
			posted: &Posted::Nothing,
			step_roots: &[],
			opened: &[],
			verdict: (end.root(), 0),
			claimed: Some(&end),
		};
		let Ok(Call::open_sum_term { proof, .. }) = prover::defend::<T>(&run, &leaves, &table)
		else {
			panic!("the prover opens the term");
		};
		#[extrinsic_call]
		_(RawOrigin::Signed(d), TASK, SEG, proof, s);
		assert!(Disputes::<T>::get((TASK, SEG)).is_none());
	}

	#[benchmark]
	fn concede() {
		let run = run();
		let (_, d) =
			game_at::<T>(SEG, context(&run), Stage::Start, Posted::Nothing, Party::Defendant);
		#[extrinsic_call]
		_(RawOrigin::Signed(d), TASK, SEG);
		assert!(Disputes::<T>::get((TASK, SEG)).is_none());
	}

	#[benchmark]
	fn on_initialize(n: Linear<0, { T::MaxDeadlinesPerBlock::get() }>) {
		let run = run();
		let ctx = context(&run);
		for s in 0..n {
			game_at::<T>(s, ctx.clone(), Stage::Start, Posted::Nothing, Party::Defendant);
		}
		let at = frame_system::Pallet::<T>::block_number().saturating_add(T::MoveTimeout::get());
		#[block]
		{
			Pallet::<T>::on_initialize(at);
		}
		assert_eq!(Disputes::<T>::iter().count(), 0);
	}

	impl_benchmark_test_suite!(Pallet, crate::mock::new_test_ext(), crate::mock::Test);
}
