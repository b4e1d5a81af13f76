#![doc = include_str!("../README.md")]
#![cfg_attr(not(feature = "std"), no_std)]
#![deny(missing_docs)]

extern crate alloc;

pub use pallet::*;

#[cfg(feature = "runtime-benchmarks")]
mod benchmarking;
mod distance;
mod evidence;
mod game;
mod invariants;
pub mod migrations;
#[cfg(test)]
mod mock;
#[cfg(any(feature = "std", feature = "runtime-benchmarks", test))]
pub mod prover;
#[cfg(test)]
mod tests;
pub mod types;
mod views;
pub mod weights;

pub use types::*;
pub use weights::WeightInfo;

use alloc::vec::Vec;
use codec::{Decode, Encode};
use frame_support::{
	pallet_prelude::*,
	traits::{
		fungible::{Inspect, InspectHold, Mutate, MutateHold},
		tokens::{Fortitude, Precision, Restriction},
	},
};
use frame_system::pallet_prelude::*;
use gensyn_primitives::{order, TaskSpec};
use gensyn_repops::{
	dispute as geo, element,
	graph::{self, Graph, TensorKind, INPUT, LABELS},
	model,
};
use pallet_gensyn_tasks::{
	DisputeArbiter, DisputeContext, DisputeOutcome, DisputeSubjects, OffTaskProof, TaskId,
};
use sp_runtime::traits::{Saturating, Zero};

/// The move-deadline queue over the pallet's storage.
pub(crate) type Deadlines<T> = pallet_gensyn_tasks::queue::PagedQueue<
	BlockNumberFor<T>,
	DisputeKey,
	<T as Config>::MaxDeadlinesPerBlock,
	DeadlinePages<T>,
	DeadlineCounts<T>,
	DeadlineBacklog<T>,
>;

/// The storage layout's version (1: paged move deadlines).
const STORAGE_VERSION: StorageVersion = StorageVersion::new(1);

/// Balance of the currency.
pub type BalanceOf<T> =
	<<T as Config>::Currency as Inspect<<T as frame_system::Config>::AccountId>>::Balance;

/// A game in progress.
#[derive(
	Encode, Decode, MaxEncodedLen, TypeInfo, CloneNoBound, PartialEqNoBound, EqNoBound, DebugNoBound,
)]
#[scale_info(skip_type_params(T))]
#[codec(mel_bound())]
pub struct Dispute<T: Config> {
	/// Who challenged (holds the game bond).
	pub challenger: T::AccountId,
	/// The verifier defending its verdict.
	pub defendant: T::AccountId,
	/// The challenger's held game bond: none where its stake on the task backs the game
	/// (a solver contesting a fail on its own task).
	pub bond: BalanceOf<T>,
	/// Where the game stands.
	pub stage: Stage,
	/// Values posted at dissection points, when the challenger is to pick.
	pub posted: Posted,
	/// Who must move next.
	pub turn: Party,
	/// The block at which the party to move loses.
	pub deadline: BlockNumberFor<T>,
	/// Moves made so far.
	pub moves: u32,
	/// Global index of the segment's first step.
	pub first_step: u64,
	/// Steps in the segment.
	pub steps: u64,
	/// The solver's checkpoint root.
	pub checkpoint_root: Hash32,
	/// Leaves under `checkpoint_root`.
	pub checkpoints: u32,
	/// The defendant's claimed root after the segment.
	pub claimed_root: Hash32,
	/// The data-order randomness of the task.
	pub order_randomness: Hash32,
}

/// Makes the dispute contexts the benchmarks need exist.
#[cfg(feature = "runtime-benchmarks")]
pub trait BenchmarkHelper {
	/// Makes `Config::Subjects::context(task, segment)` return `ctx`.
	fn install(task: TaskId, segment: u32, ctx: DisputeContext);
}

/// One game as a player sees it (runtime API).
#[derive(Clone, PartialEq, Eq, Debug, Encode, Decode, TypeInfo)]
pub struct GameView<BlockNumber> {
	/// The task.
	pub task: TaskId,
	/// The segment.
	pub segment: u32,
	/// The asker's side.
	pub side: Party,
	/// Where the game stands.
	pub stage: Stage,
	/// Values posted, waiting for the challenger.
	pub posted: Posted,
	/// Whether the asker must move now.
	pub to_move: bool,
	/// The deadline of the current move.
	pub deadline: BlockNumber,
	/// Moves made so far (identifies the move to make).
	pub moves: u32,
}

sp_api::decl_runtime_apis! {
	/// Questions players ask the arbitration pallet (version 2: games over a
	/// Threshold-mode distance, whose stages and posted sums a game view shows).
	#[api_version(2)]
	pub trait ArbitrationApi<AccountId, BlockNumber> where
		AccountId: codec::Codec,
		BlockNumber: codec::Codec,
	{
		/// The games `who` plays in, and whether it must move.
		fn games(who: AccountId) -> Vec<GameView<BlockNumber>>;
	}
}

#[frame_support::pallet]
pub mod pallet {
	use super::*;

	/// The pallet.
	#[pallet::pallet]
	#[pallet::storage_version(STORAGE_VERSION)]
	pub struct Pallet<T>(_);

	/// Reasons this pallet holds funds.
	#[pallet::composite_enum]
	pub enum HoldReason {
		/// A challenger's bond for a game in progress.
		GameBond,
	}

	/// Configuration.
	#[pallet::config]
	pub trait Config: frame_system::Config {
		/// The currency of game bonds.
		type Currency: MutateHold<Self::AccountId, Reason = Self::RuntimeHoldReason>
			+ Mutate<Self::AccountId>
			+ InspectHold<Self::AccountId>;
		/// The runtime's hold reason.
		type RuntimeHoldReason: From<HoldReason>;
		/// Where a dispute's subject is read (the tasks pallet).
		type Subjects: DisputeSubjects;
		/// Who hears the outcome (the tasks pallet).
		type Outcome: DisputeOutcome;
		/// Blocks a party has for each move.
		#[pallet::constant]
		type MoveTimeout: Get<BlockNumberFor<Self>>;
		/// Held from the challenger for the game; paid to the defendant if it loses.
		#[pallet::constant]
		type GameBond: Get<BalanceOf<Self>>;
		/// Most tensors in a step's graph (bounds the step opening: 32 bytes each).
		#[pallet::constant]
		type MaxTensors: Get<u32>;
		/// Most data samples a game can locate a batch value in (the data order is
		/// recomputed on chain, linear in the sample count).
		#[pallet::constant]
		type MaxDataSamples: Get<u32>;
		/// Most gas of one segment's replay: a defendant's first move replays the whole
		/// segment (single-threaded, as `prover` does), which must fit a move deadline.
		#[pallet::constant]
		type MaxSegmentGas: Get<u64>;
		/// Most bytes of the training states a defendant keeps for one segment (one
		/// after each of its steps).
		#[pallet::constant]
		type MaxSegmentBytes: Get<u64>;
		/// Most move deadlines falling in one block.
		#[pallet::constant]
		type MaxDeadlinesPerBlock: Get<u32>;
		/// Weights.
		type WeightInfo: WeightInfo;
		/// Installs dispute contexts for the benchmarks.
		#[cfg(feature = "runtime-benchmarks")]
		type BenchmarkHelper: BenchmarkHelper;
	}

	/// Games in progress, by (task, segment).
	#[pallet::storage]
	pub type Disputes<T: Config> = StorageMap<_, Twox64Concat, DisputeKey, Dispute<T>>;

	/// The tensor roots of the disputed step, once the defendant opened it.
	#[pallet::storage]
	pub type StepRoots<T: Config> =
		StorageMap<_, Twox64Concat, DisputeKey, BoundedVec<Hash32, T::MaxTensors>, ValueQuery>;

	/// The chunk the defendant opened at the end of a descent (f32 bits).
	#[pallet::storage]
	pub type OpenedChunks<T: Config> = StorageMap<
		_,
		Twox64Concat,
		DisputeKey,
		BoundedVec<u32, ConstU32<CHUNK_VALUES>>,
		ValueQuery,
	>;

	/// Move deadlines by block, in pages of at most `MaxDeadlinesPerBlock` (entries
	/// whose game moved on are skipped; see `pallet_gensyn_tasks::queue`).
	#[pallet::storage]
	pub type DeadlinePages<T: Config> = StorageDoubleMap<
		_,
		Twox64Concat,
		BlockNumberFor<T>,
		Twox64Concat,
		u32,
		BoundedVec<DisputeKey, T::MaxDeadlinesPerBlock>,
		ValueQuery,
	>;

	/// Pages of move deadlines filed at a block.
	#[pallet::storage]
	pub type DeadlineCounts<T: Config> =
		StorageMap<_, Twox64Concat, BlockNumberFor<T>, u32, ValueQuery>;

	/// The earliest block whose move deadlines were not all handled yet.
	#[pallet::storage]
	pub type DeadlineBacklog<T: Config> = StorageValue<_, BlockNumberFor<T>, OptionQuery>;

	/// Events.
	#[pallet::event]
	#[pallet::generate_deposit(pub(super) fn deposit_event)]
	pub enum Event<T: Config> {
		/// A game opened.
		Opened {
			/// The task.
			task: TaskId,
			/// The segment.
			segment: u32,
			/// The challenger.
			challenger: T::AccountId,
			/// The defendant.
			defendant: T::AccountId,
		},
		/// A party moved; `stage` is where the game now stands and `turn` who is next.
		Moved {
			/// The task.
			task: TaskId,
			/// The segment.
			segment: u32,
			/// Who moved.
			by: Party,
			/// The new stage.
			stage: Stage,
			/// Who moves next, by `deadline`.
			turn: Party,
			/// The next deadline.
			deadline: BlockNumberFor<T>,
		},
		/// A game ended.
		Resolved {
			/// The task.
			task: TaskId,
			/// The segment.
			segment: u32,
			/// Whether the challenger won.
			challenger_won: bool,
			/// Why.
			ruling: Ruling,
			/// Moves made.
			moves: u32,
		},
		/// The tasks pallet dropped a game (its own safety timeout, or its task ended);
		/// the bond is released.
		Cancelled {
			/// The task.
			task: TaskId,
			/// The segment.
			segment: u32,
		},
	}

	/// Errors.
	#[pallet::error]
	pub enum Error<T> {
		/// No game over this segment.
		NoDispute,
		/// A game over this segment is already open.
		AlreadyOpen,
		/// The tasks pallet knows no result or verdict to dispute here.
		NoSubject,
		/// The signer is not the party to move.
		NotYourTurn,
		/// The signer plays no part in this game.
		NotAParty,
		/// This move does not fit the game's stage.
		WrongStage,
		/// The number of posted values differs from the dissection points.
		WrongPointCount,
		/// The picked interval does not exist.
		BadPick,
		/// The start root is not the solver's checkpoint under its root.
		BadStartProof,
		/// The step opening has the wrong number of tensor roots.
		WrongTensorCount,
		/// The step opening does not hash to the agreed start root.
		StartRootMismatch,
		/// The step opening does not hash to the disputed end root.
		EndRootMismatch,
		/// That tensor cannot be disputed (it is part of the agreed state, or a batch
		/// value of a data format the chain cannot read).
		NotDisputable,
		/// The element index is past the tensor's end.
		ElementOutOfRange,
		/// An opening does not verify under its root, or does not cover the element.
		BadOpening,
		/// The answer's kind does not fit the disputed element.
		WrongAnswer,
		/// The final accumulator does not finish to the opened element.
		AccumulatorMismatch,
		/// An operand the computation needs was not opened.
		MissingOperand,
		/// The data chunk does not verify under the data's chunk root.
		BadDataProof,
		/// The task's data has more samples than a game can locate a value in.
		TooManySamples,
		/// The step's graph could not be rebuilt from the spec.
		BadGraph,
		/// The posted sums do not give the distance the verdict posted.
		SumsDisagree,
		/// A posted value is a NaN other than the canonical one.
		NotCanonical,
		/// The segment has more steps than the move's witness (or than a game over a
		/// distance can carry the optimizer over).
		TooManySteps,
		/// The move's deadline has come: the party to move has lost on time (a flood of
		/// deadlines may have the chain rule so a few blocks late).
		MoveTooLate,
	}

	#[pallet::hooks]
	impl<T: Config> Hooks<BlockNumberFor<T>> for Pallet<T> {
		fn on_initialize(now: BlockNumberFor<T>) -> Weight {
			// A page's worth of move deadlines a block: a flood carries over, late but
			// never lost (a late deadline only gives the party to move more time).
			let budget =
				pallet_gensyn_tasks::queue::Budget::per_block(T::MaxDeadlinesPerBlock::get());
			let done = Deadlines::<T>::drain(now, budget, |filed, key| Self::time_out(key, filed));
			T::WeightInfo::on_initialize(done.live).saturating_add(done.weight::<T::DbWeight>())
		}

		fn integrity_test() {
			assert!(T::MaxDeadlinesPerBlock::get() > 0, "a deadline page must hold a deadline");
		}

		#[cfg(feature = "try-runtime")]
		fn try_state(_n: BlockNumberFor<T>) -> Result<(), sp_runtime::TryRuntimeError> {
			Self::do_try_state()
		}
	}

	#[pallet::call]
	impl<T: Config> Pallet<T> {
		/// The defendant proves the segment's start root: the solver's checkpoint
		/// `segment` under the result's checkpoint root.
		#[pallet::call_index(0)]
		#[pallet::weight(T::WeightInfo::prove_start())]
		pub fn prove_start(
			origin: OriginFor<T>,
			task: TaskId,
			segment: u32,
			start_root: Hash32,
			siblings: Siblings,
		) -> DispatchResult {
			let (key, mut d) = Self::turn_of(origin, task, segment, Party::Defendant)?;
			ensure!(d.stage == Stage::Start, Error::<T>::WrongStage);
			let proof = gensyn_primitives::MerkleProof {
				leaf_index: segment,
				leaf_count: d.checkpoints,
				siblings: siblings.into_inner(),
			};
			ensure!(
				gensyn_primitives::merkle::verify_proof(&d.checkpoint_root, &start_root, &proof),
				Error::<T>::BadStartProof
			);
			d.stage = Self::steps_stage(0, d.steps, start_root, d.claimed_root);
			Self::advance(key, d, Party::Defendant, Party::Defendant)
		}

		/// The defendant posts the state roots at the step dissection points.
		#[pallet::call_index(1)]
		#[pallet::weight(T::WeightInfo::bisect_steps())]
		pub fn bisect_steps(
			origin: OriginFor<T>,
			task: TaskId,
			segment: u32,
			roots: BoundedVec<Hash32, ConstU32<MAX_POINTS>>,
		) -> DispatchResult {
			let (key, mut d) = Self::turn_of(origin, task, segment, Party::Defendant)?;
			let Stage::Steps { lo, hi, .. } = d.stage else {
				return Err(Error::<T>::WrongStage.into());
			};
			ensure!(d.posted == Posted::Nothing, Error::<T>::WrongStage);
			let points = geo::dissection_points(lo, hi, MAX_POINTS);
			ensure!(points.len() == roots.len(), Error::<T>::WrongPointCount);
			d.posted = Posted::Roots(roots);
			Self::advance(key, d, Party::Defendant, Party::Challenger)
		}

		/// The defendant posts the accumulators (f32 bits) at the reduction's
		/// dissection points.
		#[pallet::call_index(2)]
		#[pallet::weight(T::WeightInfo::bisect_reduction())]
		pub fn bisect_reduction(
			origin: OriginFor<T>,
			task: TaskId,
			segment: u32,
			accs: BoundedVec<u32, ConstU32<MAX_POINTS>>,
		) -> DispatchResult {
			let (key, mut d) = Self::turn_of(origin, task, segment, Party::Defendant)?;
			let Stage::Reduction { lo, hi, .. } = d.stage else {
				return Err(Error::<T>::WrongStage.into());
			};
			ensure!(d.posted == Posted::Nothing && hi > lo + 1, Error::<T>::WrongStage);
			let points = geo::dissection_points(lo, hi, MAX_POINTS);
			ensure!(points.len() == accs.len(), Error::<T>::WrongPointCount);
			d.posted = Posted::Accs(accs);
			Self::advance(key, d, Party::Defendant, Party::Challenger)
		}

		/// The challenger names the interval it disputes among the posted points (`0`:
		/// before the first point; the point count: after the last).
		#[pallet::call_index(3)]
		#[pallet::weight(T::WeightInfo::pick())]
		pub fn pick(
			origin: OriginFor<T>,
			task: TaskId,
			segment: u32,
			index: u32,
		) -> DispatchResult {
			let (key, mut d) = Self::turn_of(origin, task, segment, Party::Challenger)?;
			match (d.stage, &d.posted) {
				(Stage::Steps { lo, hi, lo_root, hi_root }, Posted::Roots(roots)) => {
					let (a, b, ra, rb) = Self::picked((lo, hi), (lo_root, hi_root), roots, index)?;
					d.stage = Self::steps_stage(a, b, ra, rb);
				}
				(Stage::Descend { step, tensor, height, index: at, .. }, Posted::Roots(kids)) => {
					let node = *kids.get(index as usize).ok_or(Error::<T>::BadPick)?;
					let span = geo::descent_span(height);
					let first = at.checked_shl(span).ok_or(Error::<T>::BadPick)?;
					d.stage = Stage::Descend {
						step,
						tensor,
						height: height.saturating_sub(span),
						index: first.saturating_add(u64::from(index)),
						node,
					};
				}
				(
					Stage::Reduction { step, tensor, elem, lo, hi, lo_acc, hi_acc },
					Posted::Accs(accs),
				) => {
					let (lo, hi, lo_acc, hi_acc) =
						Self::picked((lo, hi), (lo_acc, hi_acc), accs, index)?;
					d.stage = Stage::Reduction { step, tensor, elem, lo, hi, lo_acc, hi_acc };
				}
				(Stage::Sums | Stage::Sum { .. }, Posted::Sums(values)) => {
					d.stage = Self::pick_sum(&d, key, values, index)?;
				}
				_ => return Err(Error::<T>::WrongStage.into()),
			}
			d.posted = Posted::Nothing;
			Self::advance(key, d, Party::Challenger, Party::Defendant)
		}

		/// The defendant opens the disputed step: the root of every tensor of its graph,
		/// in tensor-id order. They must hash to the agreed root before the step and the
		/// disputed root after it.
		#[pallet::call_index(4)]
		#[pallet::weight(T::WeightInfo::open_step(roots.len() as u32))]
		pub fn open_step(
			origin: OriginFor<T>,
			task: TaskId,
			segment: u32,
			roots: BoundedVec<Hash32, T::MaxTensors>,
		) -> DispatchResult {
			let (key, mut d) = Self::turn_of(origin, task, segment, Party::Defendant)?;
			let Stage::OpenStep { step, lo_root, hi_root } = d.stage else {
				return Err(Error::<T>::WrongStage.into());
			};
			let (_, g, global) = Self::step_context(key, &d, step)?;
			ensure!(roots.len() == g.tensors.len(), Error::<T>::WrongTensorCount);
			let start = geo::start_state_root(&g, global, &roots).ok_or(Error::<T>::BadGraph)?;
			ensure!(start == lo_root, Error::<T>::StartRootMismatch);
			let end = geo::end_state_root(&g, global, &roots).ok_or(Error::<T>::BadGraph)?;
			ensure!(end == hi_root, Error::<T>::EndRootMismatch);
			StepRoots::<T>::insert(key, roots);
			d.stage = Stage::PickTensor { step };
			Self::advance(key, d, Party::Defendant, Party::Challenger)
		}

		/// The challenger names the tensor it disputes in the opened step: an op output,
		/// or the batch input or labels.
		#[pallet::call_index(5)]
		#[pallet::weight(T::WeightInfo::pick_tensor())]
		pub fn pick_tensor(
			origin: OriginFor<T>,
			task: TaskId,
			segment: u32,
			tensor: u32,
		) -> DispatchResult {
			let (key, mut d) = Self::turn_of(origin, task, segment, Party::Challenger)?;
			let Stage::PickTensor { step } = d.stage else {
				return Err(Error::<T>::WrongStage.into());
			};
			let (ctx, g, global) = Self::step_context(key, &d, step)?;
			let info = g.tensors.get(tensor as usize).ok_or(Error::<T>::NotDisputable)?;
			let disputable = match info.kind {
				TensorKind::Input | TensorKind::Labels => {
					geo::data_disputable(ctx.spec.data.format)
				}
				// A first step starts from the task's seeded initial state, each of whose
				// values the chain computes; any later step's start is the end of the one
				// before, disputed there.
				TensorKind::Param(_) | TensorKind::OptState(_) => global == 0,
				_ => true,
			};
			ensure!(disputable && info.numel() > 0, Error::<T>::NotDisputable);
			let node =
				*StepRoots::<T>::get(key).get(tensor as usize).ok_or(Error::<T>::BadGraph)?;
			let height = geo::tree_height(geo::tensor_chunks(info.numel() as u64));
			d.stage = Stage::Descend { step, tensor, height, index: 0, node };
			Self::advance(key, d, Party::Challenger, Party::Defendant)
		}

		/// The defendant reveals the Merkle nodes up to four levels below the disputed
		/// node of the descent (they must fold to it).
		#[pallet::call_index(9)]
		#[pallet::weight(T::WeightInfo::descend())]
		pub fn descend(
			origin: OriginFor<T>,
			task: TaskId,
			segment: u32,
			nodes: BoundedVec<Hash32, ConstU32<MAX_POINTS>>,
		) -> DispatchResult {
			let (key, mut d) = Self::turn_of(origin, task, segment, Party::Defendant)?;
			let Stage::Descend { step, tensor, height, index, node } = d.stage else {
				return Err(Error::<T>::WrongStage.into());
			};
			ensure!(height > 0 && d.posted == Posted::Nothing, Error::<T>::WrongStage);
			let (_, g, _) = Self::step_context(key, &d, step)?;
			let info = g.tensors.get(tensor as usize).ok_or(Error::<T>::BadGraph)?;
			let leaves = geo::tensor_chunks(info.numel() as u64);
			let span = geo::descent_span(height);
			let (_, count) =
				geo::descent_children(leaves, height, index, span).ok_or(Error::<T>::BadGraph)?;
			ensure!(nodes.len() as u64 == count, Error::<T>::WrongPointCount);
			ensure!(geo::fold_nodes(&nodes) == Some(node), Error::<T>::BadOpening);
			d.posted = Posted::Roots(nodes);
			Self::advance(key, d, Party::Defendant, Party::Challenger)
		}

		/// At the bottom of the descent the defendant opens the chunk's values (f32 bits).
		#[pallet::call_index(10)]
		#[pallet::weight(T::WeightInfo::open_chunk())]
		pub fn open_chunk(
			origin: OriginFor<T>,
			task: TaskId,
			segment: u32,
			values: BoundedVec<u32, ConstU32<CHUNK_VALUES>>,
		) -> DispatchResult {
			let (key, mut d) = Self::turn_of(origin, task, segment, Party::Defendant)?;
			let Stage::Descend { step, tensor, height, index, node } = d.stage else {
				return Err(Error::<T>::WrongStage.into());
			};
			ensure!(height == 0, Error::<T>::WrongStage);
			let (_, g, _) = Self::step_context(key, &d, step)?;
			let numel = g.tensors.get(tensor as usize).ok_or(Error::<T>::BadGraph)?.numel() as u64;
			ensure!(values.len() as u64 == geo::chunk_len(numel, index), Error::<T>::BadOpening);
			let floats: Vec<f32> = values.iter().map(|b| f32::from_bits(*b)).collect();
			ensure!(
				gensyn_primitives::merkle::tensor_leaf(&floats) == node,
				Error::<T>::BadOpening
			);
			OpenedChunks::<T>::insert(key, values);
			d.stage = Stage::PickElement { step, tensor, chunk: index };
			Self::advance(key, d, Party::Defendant, Party::Challenger)
		}

		/// The challenger names the element it disputes in the opened chunk.
		#[pallet::call_index(11)]
		#[pallet::weight(T::WeightInfo::pick_element())]
		pub fn pick_element(
			origin: OriginFor<T>,
			task: TaskId,
			segment: u32,
			within: u32,
		) -> DispatchResult {
			let (key, mut d) = Self::turn_of(origin, task, segment, Party::Challenger)?;
			let Stage::PickElement { step, tensor, chunk } = d.stage else {
				return Err(Error::<T>::WrongStage.into());
			};
			let value = *OpenedChunks::<T>::get(key)
				.get(within as usize)
				.ok_or(Error::<T>::ElementOutOfRange)?;
			let elem =
				chunk.saturating_mul(u64::from(CHUNK_VALUES)).saturating_add(u64::from(within));
			d.stage = Stage::Element { step, tensor, elem, value };
			Self::advance(key, d, Party::Challenger, Party::Defendant)
		}

		/// The defendant answers for the disputed element: a batch value with its data
		/// chunk, an element-wise op with its operands (both decided at once), a reduction
		/// with its final accumulator (which starts the reduction bisection).
		/// `data_samples` is a witness of the task's sample count (it bounds the weight of
		/// locating a batch value).
		#[pallet::call_index(6)]
		#[pallet::weight(T::WeightInfo::answer_element(*data_samples))]
		pub fn answer_element(
			origin: OriginFor<T>,
			task: TaskId,
			segment: u32,
			answer: ElementAnswer,
			data_samples: u32,
		) -> DispatchResult {
			let (key, mut d) = Self::turn_of(origin, task, segment, Party::Defendant)?;
			let Stage::Element { step, tensor, elem, value } = d.stage else {
				return Err(Error::<T>::WrongStage.into());
			};
			let (ctx, g, global) = Self::step_context(key, &d, step)?;
			let roots = StepRoots::<T>::get(key);
			if tensor == INPUT || tensor == LABELS {
				let ElementAnswer::Data(data) = answer else {
					return Err(Error::<T>::WrongAnswer.into());
				};
				ensure!(ctx.spec.data.samples <= data_samples, Error::<T>::TooManySamples);
				ensure!(data_samples <= T::MaxDataSamples::get(), Error::<T>::TooManySamples);
				let expected = Self::data_value(&ctx, global, tensor, elem, &data)?;
				return Self::rule(key, d, expected.to_bits() != value, Ruling::DataChecked);
			}
			let kind = g.tensors.get(tensor as usize).ok_or(Error::<T>::BadGraph)?.kind;
			if let Some(initial) = model::initial_value(&ctx.spec, kind, elem) {
				// A value of the initial state (only a first step's may be picked) has no
				// operands: the chain computes it from the seed.
				ensure!(
					matches!(&answer, ElementAnswer::Operands(o) if o.is_empty()),
					Error::<T>::WrongAnswer
				);
				let expected = initial.map_err(|_| Error::<T>::BadGraph)?;
				ensure!(global == 0, Error::<T>::BadGraph);
				return Self::rule(key, d, expected.to_bits() != value, Ruling::ElementComputed);
			}
			let op = g.ops.iter().position(|o| o.output == tensor).ok_or(Error::<T>::BadGraph)?;
			let red = element::reduction(&g, op, elem).map_err(|_| Error::<T>::BadGraph)?;
			match (red, answer) {
				(Some(red), ElementAnswer::Reduction(acc)) if red.len > 0 => {
					let finished = element::finish(&red, f32::from_bits(acc));
					ensure!(finished.to_bits() == value, Error::<T>::AccumulatorMismatch);
					d.stage = Stage::Reduction {
						step,
						tensor,
						elem,
						lo: 0,
						hi: red.len,
						lo_acc: 0,
						hi_acc: acc,
					};
					Self::advance(key, d, Party::Defendant, Party::Defendant)
				}
				(red, ElementAnswer::Operands(ops)) if red.is_none_or(|r| r.len == 0) => {
					for o in ops.iter() {
						Self::verify_opening(&g, &roots, o)?;
					}
					let fetch = |t: u32, i: u64| Self::fetch(&ops, t, i);
					let v = element::eval_element(&g, op, elem, &fetch).map_err(|e| match e {
						gensyn_repops::ReproError::MissingOperand => Error::<T>::MissingOperand,
						_ => Error::<T>::BadGraph,
					})?;
					Self::rule(key, d, v.to_bits() != value, Ruling::ElementComputed)
				}
				_ => Err(Error::<T>::WrongAnswer.into()),
			}
		}

		/// The defendant opens the operands of the one disputed reduction term (and the
		/// initial value when it is the first term); the chain computes the term and
		/// rules.
		#[pallet::call_index(7)]
		#[pallet::weight(T::WeightInfo::open_term())]
		pub fn open_term(
			origin: OriginFor<T>,
			task: TaskId,
			segment: u32,
			operands: BoundedVec<TensorOpening, ConstU32<MAX_OPENINGS>>,
		) -> DispatchResult {
			let (key, d) = Self::turn_of(origin, task, segment, Party::Defendant)?;
			let Stage::Reduction { step, tensor, elem, lo, hi, lo_acc, hi_acc } = d.stage else {
				return Err(Error::<T>::WrongStage.into());
			};
			ensure!(hi == lo.saturating_add(1), Error::<T>::WrongStage);
			let (_, g, _) = Self::step_context(key, &d, step)?;
			let roots = StepRoots::<T>::get(key);
			for o in operands.iter() {
				Self::verify_opening(&g, &roots, o)?;
			}
			let op = g.ops.iter().position(|o| o.output == tensor).ok_or(Error::<T>::BadGraph)?;
			let red = element::reduction(&g, op, elem)
				.map_err(|_| Error::<T>::BadGraph)?
				.ok_or(Error::<T>::BadGraph)?;
			let fetch = |t: u32, i: u64| Self::fetch(&operands, t, i);
			let missing = |_| Error::<T>::MissingOperand;
			let acc = if lo == 0 {
				element::value(red.init, &fetch).map_err(missing)?
			} else {
				f32::from_bits(lo_acc)
			};
			let next = element::reduction_step(&g, op, elem, lo, acc, &fetch).map_err(missing)?;
			Self::rule(key, d, next.to_bits() != hi_acc, Ruling::StepComputed)
		}

		/// The challenger of a Threshold-mode verdict names what it disputes: the
		/// replay's root, or the distance posted from it.
		#[pallet::call_index(12)]
		#[pallet::weight(T::WeightInfo::choose())]
		pub fn choose(
			origin: OriginFor<T>,
			task: TaskId,
			segment: u32,
			subject: Subject,
		) -> DispatchResult {
			Self::do_choose(origin, task, segment, subject)
		}

		/// The defendant posts a distance's sums (f64 bits, in
		/// `gensyn_repops::threshold::sums_of`'s order; they must give the posted
		/// distance), or a disputed sum's accumulators at the dissection points.
		#[pallet::call_index(13)]
		#[pallet::weight(T::WeightInfo::post_sums())]
		pub fn post_sums(
			origin: OriginFor<T>,
			task: TaskId,
			segment: u32,
			values: BoundedVec<u64, ConstU32<MAX_POINTS>>,
		) -> DispatchResult {
			Self::do_post_sums(origin, task, segment, values)
		}

		/// The defendant proves the values the one disputed term of a sum reads; the
		/// chain computes the term and rules.
		/// `segment_steps` is a witness of the segment's steps (they bound the weight of
		/// the optimizer's carry).
		#[pallet::call_index(14)]
		#[pallet::weight(T::WeightInfo::open_sum_term(*segment_steps))]
		pub fn open_sum_term(
			origin: OriginFor<T>,
			task: TaskId,
			segment: u32,
			proof: alloc::boxed::Box<SumTerm>,
			segment_steps: u32,
		) -> DispatchResult {
			Self::do_open_sum_term(origin, task, segment, *proof, segment_steps)
		}

		/// A party gives up: it loses the game at once.
		#[pallet::call_index(8)]
		#[pallet::weight(T::WeightInfo::concede())]
		pub fn concede(origin: OriginFor<T>, task: TaskId, segment: u32) -> DispatchResult {
			let who = ensure_signed(origin)?;
			let key = (task, segment);
			let d = Disputes::<T>::get(key).ok_or(Error::<T>::NoDispute)?;
			let party = if who == d.defendant {
				Party::Defendant
			} else if who == d.challenger {
				Party::Challenger
			} else {
				return Err(Error::<T>::NotAParty.into());
			};
			Self::rule(key, d, party == Party::Defendant, Ruling::Conceded(party))
		}
	}
}
